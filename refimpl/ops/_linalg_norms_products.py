"""torch.linalg's products and tensor equations: linalg_matmul, linalg_diagonal, linalg_vecdot, linalg_multi_dot, chain_matmul, linalg_vander, linalg_tensorinv, linalg_tensorsolve.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (linalg_matmul, linalg_diagonal,
multi_dot_impl with matrix_chain_order, chain_matmul, linalg_tensorinv, linalg_tensorsolve)
and BatchLinearAlgebra.cpp (linalg_vecdot, linalg_vander). All are CompositeImplicitAutograd
in torch: decompositions making torch's aten calls (mm, mul and sum, cumprod and cat,
linalg_inv_ex, linalg_solve), whose derivatives they use.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.dtypes import Category
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_linalg_compatible_dtype,
    check_same_device,
)
from refimpl.ops._outputs import format_shape, warn_resize
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")


def _write_out(result: TensorImpl, out: TensorImpl) -> Any:
    """Torch: `resize_output(result, tmp.sizes()); result.copy_(tmp)` of the hand-written
    out= forms."""
    _resize_out(out, result._size)
    return aten.copy_.default(out, result)


def _resize_out(out: TensorImpl, size: tuple[int, ...]) -> None:
    """Torch: at::native::resize_output (aten::resize_ only where the shape differs)."""
    if out._size != size:
        warn_resize(out, size)
        aten.resize_.default(out, list(size))


# --- linalg_matmul, linalg_diagonal ----------------------------------------------------------

linalg_matmul = defop("linalg_matmul(Tensor self, Tensor other) -> Tensor")


@linalg_matmul.decomposition
def linalg_matmul_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: linalg_matmul, the alias of matmul."""
    return aten.matmul.default(self, other)


linalg_matmul_out = defop(
    "linalg_matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_matmul_out.decomposition
def linalg_matmul_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: linalg_matmul_out (matmul_out)."""
    return aten.matmul.out(self, other, out=out)


linalg_diagonal = defop(
    "linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)"
)


@linalg_diagonal.decomposition
def linalg_diagonal_decomposition(A: TensorImpl, *, offset: int, dim1: int, dim2: int) -> Any:
    """Torch: linalg_diagonal, torch.diagonal with the last two dims by default (a view)."""
    return aten.diagonal.default(A, offset, dim1, dim2)


# --- linalg_vecdot ---------------------------------------------------------------------------


def _check_vecdot(x: TensorImpl, y: TensorImpl) -> None:
    """Torch: linalg_vecdot's checks (floating or complex x, y of x's dtype)."""
    check_floating_or_complex(x, "linalg.vecdot")
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x._dtype.scalar_name} and y of type {y._dtype.scalar_name} instead"
        )


def _vecdot_product(x: TensorImpl, y: TensorImpl) -> Any:
    """conj(x) * y (x * y for real x). Torch: linalg_vecdot's product."""
    if x._dtype.is_complex:
        return aten.mul.Tensor(aten.conj.default(x), y)
    return aten.mul.Tensor(x, y)


linalg_vecdot = defop("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor")


@linalg_vecdot.decomposition
def linalg_vecdot_decomposition(x: TensorImpl, y: TensorImpl, *, dim: int) -> Any:
    """The dot product of vectors along `dim`, conjugating x: sum(conj(x) * y, dim), the two
    operands broadcast. Torch: linalg_vecdot in BatchLinearAlgebra.cpp."""
    _check_vecdot(x, y)
    return aten.sum.dim_IntList(_vecdot_product(x, y), [dim])


linalg_vecdot_out = defop(
    "linalg_vecdot.out(Tensor x, Tensor y, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_vecdot_out.decomposition
def linalg_vecdot_out_decomposition(
    x: TensorImpl, y: TensorImpl, *, dim: int, out: TensorImpl
) -> Any:
    """Torch: linalg_vecdot_out: out must have x's dtype (the missing space is torch's)."""
    _check_vecdot(x, y)
    if out._dtype is not x._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected out of dtype{x._dtype.scalar_name} but found "
            f"{out._dtype.scalar_name}"
        )
    return aten.sum.IntList_out(_vecdot_product(x, y), [dim], out=out)


# --- linalg_multi_dot, chain_matmul ----------------------------------------------------------


def matrix_chain_order(shapes: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Where to split each sub-chain i..j for the fewest scalar products (p * q * r for a
    p x q by q x r product): s[i][j] = k splits it into i..k and k+1..j.

    Torch: matrix_chain_order in LinearAlgebra.cpp (the dynamic program of Cormen et al.,
    Introduction to Algorithms, 3rd ed., 15.2); the first split of least cost wins.
    """
    n = len(shapes)
    p = [rows for rows, _ in shapes] + [shapes[-1][1]]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = 2**63 - 1
            for k in range(i, j):
                cost = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost < m[i][j]:
                    m[i][j] = cost
                    s[i][j] = k
    return s


def _chain(tensors: Sequence[TensorImpl], order: list[list[int]], i: int, j: int) -> Any:
    """The product of tensors i..j in the optimal order. Torch: matrix_chain_multiplication."""
    if i == j:
        return tensors[i]
    return aten.mm.default(
        _chain(tensors, order, i, order[i][j]), _chain(tensors, order, order[i][j] + 1, j)
    )


def _multi_dot_operands(inputs: Sequence[TensorImpl]) -> tuple[list[TensorImpl], list[int]]:
    """The inputs as matrices (a 1-D first as a row, a 1-D last as a column) and the result's
    shape, checked. Torch: the checks of multi_dot_impl."""
    n = len(inputs)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    tensors = list(inputs)
    out_shape: list[int] = []
    first, last = inputs[0], inputs[-1]
    if len(first._size) == 1:
        tensors[0] = aten.unsqueeze.default(first, 0)
    elif len(first._size) == 2:
        out_shape.append(first._size[0])
    else:
        raise RuntimeError(
            f"multi_dot(): the first tensor must be 1D or 2D but got {len(first._size)}D"
        )
    if len(last._size) == 1:
        tensors[-1] = aten.unsqueeze.default(last, -1)
    elif len(last._size) == 2:
        out_shape.append(last._size[1])
    else:
        raise RuntimeError(
            f"multi_dot(): the last tensor must be 1D or 2D but got {len(last._size)}D"
        )
    for i in range(1, n - 1):
        if len(inputs[i]._size) != 2:
            raise RuntimeError(
                f"multi_dot(): tensor {i} must be 2D but got {len(inputs[i]._size)}D"
            )
    dtype, device = tensors[0]._dtype, tensors[0]._storage.device
    for i in range(1, n):
        if tensors[i]._dtype is not dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{type_meta_name(dtype)} and tensor {i} {type_meta_name(tensors[i]._dtype)}"
            )
        if tensors[i]._storage.device != device:
            raise RuntimeError(
                f"multi_dot(): all tensors must be on the same device but tensor 0 is on "
                f"{device} and tensor {i} on {tensors[i]._storage.device}"
            )
        if tensors[i - 1]._size[-1] != tensors[i]._size[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes "
                f"{format_shape(inputs[i - 1]._size)} and {format_shape(inputs[i]._size)} cannot "
                "be multiplied"
            )
    return tensors, out_shape


def multi_dot_impl(inputs: Sequence[TensorImpl], out: TensorImpl | None) -> Any:
    """The product of a chain of matrices, in the order of fewest scalar products.

    Torch: multi_dot_impl in LinearAlgebra.cpp: two matrices are one mm; three compare the
    costs (a*c)(b+d) of (AB)C and (b*d)(a+c) of A(BC), taking A(BC) only when strictly
    cheaper; four or more follow `matrix_chain_order`. The result is viewed to drop the
    dims of a 1-D first or last operand; with out=, out is resized and viewed as the 2-D
    result, which the last product is written into.
    """
    tensors, out_shape = _multi_dot_operands(inputs)
    dtype = tensors[0]._dtype
    target: TensorImpl | None = None
    if out is not None:
        if out._dtype is not dtype:
            raise RuntimeError(
                f"multi_dot(): expected out tensor to have dtype {type_meta_name(dtype)} but got "
                f"{type_meta_name(out._dtype)}"
            )
        if out._storage.device != tensors[0]._storage.device:
            raise RuntimeError(
                f"multi_dot(): expected out tensor to be on device {tensors[0]._storage.device} "
                f"but got {out._storage.device}"
            )
        _resize_out(out, tuple(out_shape))
        target = aten.view.default(out, [tensors[0]._size[0], tensors[-1]._size[-1]])

    def product(a: TensorImpl, b: TensorImpl) -> Any:
        # The last product: into out's 2-D view, or viewed to the result's shape.
        if target is not None:
            aten.mm.out(a, b, out=target)
            return out
        return aten.view.default(aten.mm.default(a, b), out_shape)

    if len(tensors) == 2:
        return product(tensors[0], tensors[1])
    if len(tensors) == 3:
        a, b = tensors[0]._size
        c, d = tensors[2]._size
        if (a * c) * (b + d) > (b * d) * (a + c):
            return product(tensors[0], aten.mm.default(tensors[1], tensors[2]))
        return product(aten.mm.default(tensors[0], tensors[1]), tensors[2])
    order = matrix_chain_order([(t._size[0], t._size[1]) for t in tensors])
    last = len(tensors) - 1
    split = order[0][last]
    return product(_chain(tensors, order, 0, split), _chain(tensors, order, split + 1, last))


linalg_multi_dot = defop("linalg_multi_dot(Tensor[] tensors) -> Tensor")


@linalg_multi_dot.decomposition
def linalg_multi_dot_decomposition(tensors: list[TensorImpl]) -> Any:
    """Torch: linalg_multi_dot (multi_dot_impl)."""
    return multi_dot_impl(tensors, None)


linalg_multi_dot_out = defop(
    "linalg_multi_dot.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_multi_dot_out.decomposition
def linalg_multi_dot_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: linalg_multi_dot_out (multi_dot_impl into out)."""
    multi_dot_impl(tensors, out)
    return out


def _chain_matmul_checks(matrices: Sequence[TensorImpl]) -> None:
    """Torch: chain_matmul's warning (once per process), checkAllSameDim(matrices, 2) and
    the check for at least one matrix."""
    # torch: TORCH_WARN_ONCE. Differs: torch's message ends with " (Triggered internally at
    # ...LinearAlgebra.cpp:N.)".
    if should_warn_once("chain_matmul"):
        warnings.warn(
            "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
            "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
            "rather than multiple parameters.",
            UserWarning,
            stacklevel=5,
        )
    for t in matrices:
        if len(t._size) != 2:
            raise RuntimeError(f"Tensor dimension is {len(t._size)}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")


chain_matmul = defop("chain_matmul(Tensor[] matrices) -> Tensor")


@chain_matmul.decomposition
def chain_matmul_decomposition(matrices: list[TensorImpl]) -> Any:
    """The product of 2-D matrices (a clone of a single one). Torch: chain_matmul (deprecated;
    multi_dot_impl, called without the dispatcher)."""
    _chain_matmul_checks(matrices)
    if len(matrices) == 1:
        return aten.clone.default(matrices[0])
    return multi_dot_impl(matrices, None)


chain_matmul_out = defop("chain_matmul.out(Tensor[] matrices, *, Tensor(a!) out) -> Tensor(a!)")


@chain_matmul_out.decomposition
def chain_matmul_out_decomposition(matrices: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: chain_matmul_out."""
    _chain_matmul_checks(matrices)
    if len(matrices) == 1:
        return _write_out(matrices[0], out)
    multi_dot_impl(matrices, out)
    return out


# --- linalg_vander ---------------------------------------------------------------------------

# torch: linalg_vander accepts these and the integral dtypes (not bool, not 16-bit floats).
_VANDER_FLOATING: Final = frozenset({"float32", "float64", "complex64", "complex128"})

linalg_vander = defop("linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor")


@linalg_vander.decomposition
def linalg_vander_decomposition(x: TensorImpl, *, N: int | None) -> Any:
    """The Vandermonde matrix of `x` along a new last dim: powers 0 .. N-1 (N defaults to the
    length of x's last dim), as a column of ones and the running product of x.

    Torch: linalg_vander in BatchLinearAlgebra.cpp (cumprod promotes integers to int64, so
    integer inputs give int64 matrices).
    """
    dtype = x._dtype
    allowed = dtype.name in _VANDER_FLOATING or dtype.category is Category.INTEGRAL
    if not allowed:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{dtype.scalar_name}"
        )
    x_ = aten.unsqueeze.default(x, -1) if len(x._size) == 0 else x
    shape = list(x_._size)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape.append(n - 1)
    powers = aten.cumprod.default(aten.expand.default(aten.unsqueeze.default(x_, -1), shape), -1)
    shape[-1] = 1
    ones = aten.new_ones.default(powers, shape)
    return aten.cat.default([ones, powers], -1)


# --- linalg_tensorinv, linalg_tensorsolve ----------------------------------------------------


def _product(sizes: Sequence[int]) -> int:
    return geometry.numel(tuple(sizes))


linalg_tensorinv = defop("linalg_tensorinv(Tensor self, int ind=2) -> Tensor")


@linalg_tensorinv.decomposition
def linalg_tensorinv_decomposition(self: TensorImpl, ind: int) -> Any:
    """The tensor X with tensordot(self, X, ind) the identity: the inverse of `self` reshaped
    to a square matrix (the first `ind` dims as rows), reshaped to self.shape[ind:] +
    self.shape[:ind].

    Torch: linalg_tensorinv in LinearAlgebra.cpp (linalg_inv_ex, then
    _linalg_check_errors(info, "inv", is_matrix=True)).
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(self._size[ind:]), list(self._size[:ind])
    rows, columns = _product(end), _product(start)
    if rows != columns:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {rows} != {columns}"
        )
    inverse, info = aten.linalg_inv_ex.default(
        aten.reshape.default(self, [rows, rows]), check_errors=False
    )
    aten._linalg_check_errors.default(info, "inv", is_matrix=True)
    return aten.reshape.default(inverse, end + start)


linalg_tensorinv_out = defop(
    "linalg_tensorinv.out(Tensor self, int ind=2, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_tensorinv_out.decomposition
def linalg_tensorinv_out_decomposition(self: TensorImpl, ind: int, *, out: TensorImpl) -> Any:
    """Torch: linalg_tensorinv_out."""
    check_same_device("tensorinv", out, self)
    check_linalg_compatible_dtype("tensorinv", out, self)
    return _write_out(aten.linalg_tensorinv.default(self, ind), out)


linalg_tensorsolve = defop(
    "linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor"
)


@linalg_tensorsolve.decomposition
def linalg_tensorsolve_decomposition(
    self: TensorImpl, other: TensorImpl, dims: list[int] | None
) -> Any:
    """The tensor X with tensordot(self, X, X.ndim) == other: `self` (the dims in `dims`
    moved to the end) reshaped to a square matrix and solved against other flattened.

    Torch: linalg_tensorsolve in LinearAlgebra.cpp.
    """
    ndim = len(self._size)
    self_ = self
    if dims is not None:
        destination = list(range(ndim - len(dims), ndim))
        self_ = aten.movedim.intlist(self_, dims, destination)
    result_shape = list(self_._size[len(other._size) :])
    result_product, other_product = _product(result_shape), _product(other._size)
    if result_product != other_product:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_product} != {other_product}"
        )
    matrix = aten.reshape.default(self_, [result_product, result_product])
    result = aten.linalg_solve.default(matrix, aten.flatten.using_ints(other))
    return aten.reshape.default(result, result_shape)


linalg_tensorsolve_out = defop(
    "linalg_tensorsolve.out(Tensor self, Tensor other, int[]? dims=None, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@linalg_tensorsolve_out.decomposition
def linalg_tensorsolve_out_decomposition(
    self: TensorImpl, other: TensorImpl, dims: list[int] | None, *, out: TensorImpl
) -> Any:
    """Torch: linalg_tensorsolve_out."""
    check_same_device("tensorsolve", out, self)
    check_linalg_compatible_dtype("tensorsolve", out, self)
    return _write_out(aten.linalg_tensorsolve.default(self, other, dims), out)
