"""Linear algebra, Cholesky: linalg_cholesky(_ex), cholesky, cholesky_solve, _cholesky_solve_helper, cholesky_inverse.

Torch: aten/src/ATen/native/BatchLinearAlgebra.cpp (the structured linalg_cholesky_ex, the
CompositeImplicitAutograd linalg_cholesky, the deprecated cholesky, cholesky_solve (over
_cholesky_solve_helper) and cholesky_inverse with their out= forms). potrf comes from the
backend; potrs and potri are two triangular solves (trsm).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import int32
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _backward_linalg as bl
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_linalg_compatible_dtypes,
    check_same_device,
    linear_solve_check_inputs,
    raise_linalg_error,
    square_check_inputs,
)
from refimpl.ops._linalg_kernels import (
    check_lapack_dtype,
    diagonal,
    emit,
    identity_like,
    infos,
    lapack,
    matrix_strides,
    new_output,
    warn_deprecated,
    xp_of,
)
from refimpl.ops._outputs import resize_output as resize_contiguous
from refimpl.ops._reduction import has_data, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.data import broadcast_shapes
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
Shape = tuple[int, ...]


def _cholesky_arrays(xp: Any, a: Any, upper: bool) -> tuple[Any, Any]:
    """potrf of each matrix: (the factor, its other triangle zero; info)."""
    factor, info = lapack(xp, "cholesky_ex")(a, upper)
    return factor, info


def _potrs(xp: Any, factor: Any, b: Any, upper: bool) -> Any:
    """X with A X = B from A's Cholesky factor (LAPACK potrs): two triangular solves."""
    trans = 2 if xp.isdtype(factor.dtype, "complex floating") else 1
    solve = lapack(xp, "solve_triangular")
    if upper:  # A = U^H U
        y = solve(factor, b, True, trans, False)
        return solve(factor, y, True, 0, False)
    y = solve(factor, b, False, 0, False)  # A = L L^H
    return solve(factor, y, False, trans, False)


# --- linalg_cholesky_ex, linalg_cholesky -------------------------------------------------------


def _cholesky_ex(
    A: TensorImpl, upper: bool, check_errors: bool, outs: tuple[TensorImpl, TensorImpl] | None
) -> Any:
    # torch: TORCH_META_FUNC(linalg_cholesky_ex), then linalg_cholesky_ex_out.
    square_check_inputs(A, "linalg.cholesky")
    check_floating_or_complex(A, "linalg.cholesky")
    size = A._size
    specs = (
        (size, matrix_strides(size), A._dtype),
        (size[:-2], geometry.contiguous_strides(size[:-2]), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("cholesky_cpu", A)
    values: tuple[Any, ...] = (None, None)
    if has_data(A):
        xp = xp_of(A)
        factor, info = _cholesky_arrays(xp, array_of(A), upper)
        if check_errors:
            raise_linalg_error(infos(xp, info), "linalg.cholesky_ex", len(size) == 2)
        values = (factor, info)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


linalg_cholesky_ex = defop(
    "linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
    "(Tensor L, Tensor info)"
)


@registered(linalg_cholesky_ex)
def linalg_cholesky_ex_kernel(self: TensorImpl, *, upper: bool, check_errors: bool) -> Any:
    """Torch: linalg_cholesky_ex (structured): potrf on the input's triangle."""
    return _cholesky_ex(self, upper, check_errors, None)


@linalg_cholesky_ex.derivative("self")
def linalg_cholesky_ex_backward(grad: Tensor, upper: bool, L: Tensor) -> Tensor:
    # torch: cholesky_backward(grad, upper, L)
    return bl.cholesky_backward(grad, upper, L)


non_differentiable_outputs("aten::linalg_cholesky_ex", "info")

linalg_cholesky_ex_L = defop(
    "linalg_cholesky_ex.L(Tensor self, *, bool upper=False, bool check_errors=False, "
    "Tensor(a!) L, Tensor(b!) info) -> (Tensor(a!) L, Tensor(b!) info)"
)


@registered(linalg_cholesky_ex_L)
def linalg_cholesky_ex_L_kernel(
    self: TensorImpl, *, upper: bool, check_errors: bool, L: TensorImpl, info: TensorImpl
) -> Any:
    """Torch: linalg_cholesky_ex.L (structured)."""
    return _cholesky_ex(self, upper, check_errors, (L, info))


linalg_cholesky = defop("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor")


@linalg_cholesky.decomposition
def linalg_cholesky_decomp(self: TensorImpl, *, upper: bool) -> Any:
    """Torch: linalg_cholesky: linalg_cholesky_ex, then the error check."""
    L, info = aten.linalg_cholesky_ex.default(self, upper=upper)
    aten._linalg_check_errors.default(info, "linalg.cholesky", is_matrix=self.dim() == 2)
    return L


linalg_cholesky_out = defop(
    "linalg_cholesky.out(Tensor self, *, bool upper=False, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_cholesky_out.decomposition
def linalg_cholesky_out_decomp(self: TensorImpl, *, upper: bool, out: TensorImpl) -> Any:
    """Torch: linalg_cholesky_out: linalg_cholesky_ex.L with a new info, then the check."""
    info = aten.new_empty.default(self, [0], dtype=int32)
    aten.linalg_cholesky_ex.L(self, upper=upper, L=out, info=info)
    aten._linalg_check_errors.default(info, "linalg.cholesky", is_matrix=self.dim() == 2)
    return out


# --- cholesky (deprecated) -------------------------------------------------------------------


def _cholesky(self: TensorImpl, upper: bool, site: str) -> Any:
    # torch: cholesky (BatchLinearAlgebra.cpp): the deprecation warning; an empty input gives
    # empty_like (contiguous).
    warn_deprecated("cholesky", site)
    if geometry.numel(self._size) == 0:
        return emit(
            self, _empty(self), self._size, geometry.contiguous_strides(self._size), self._dtype
        )
    square_check_inputs(self, "cholesky")
    check_lapack_dtype("cholesky_cpu", self)
    size = self._size
    value = None
    if has_data(self):
        xp = xp_of(self)
        value, info = _cholesky_arrays(xp, array_of(self), upper)
        raise_linalg_error(infos(xp, info), "cholesky", len(size) == 2)
    return emit(self, value, size, matrix_strides(size), self._dtype)


def _empty(t: TensorImpl) -> Any:
    if not has_data(t):
        return None
    xp = xp_of(t)
    return xp.zeros(t._size, dtype=array_of(t).dtype)


cholesky = defop("cholesky(Tensor self, bool upper=False) -> Tensor")


@registered(cholesky)
def cholesky_kernel(self: TensorImpl, upper: bool) -> Any:
    """Torch: cholesky (deprecated for linalg.cholesky): the factor, column-major."""
    return _cholesky(self, upper, "cholesky")


@cholesky.derivative("self")
def cholesky_backward(grad: Tensor, upper: bool, result: Tensor) -> Tensor:
    # torch: cholesky_backward(grad, upper, result)
    return bl.cholesky_backward(grad, upper, result)


cholesky_out = defop("cholesky.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)")


@registered(cholesky_out)
def cholesky_out_kernel(self: TensorImpl, upper: bool, *, out: TensorImpl) -> Any:
    """Torch: cholesky_out: device and castable-dtype checks, cholesky, then a copy."""
    check_same_device("cholesky", out, self)
    check_linalg_compatible_dtypes("cholesky", out._dtype, self._dtype)
    result = _cholesky(self, upper, "cholesky_out")
    resize_contiguous(out, result._size)
    if has_data(out):
        xp = xp_of(out)
        emit(
            out,
            xp.astype(array_of(result), array_of(out).dtype),
            out._size,
            out._stride,
            out._dtype,
            out,
        )
    return out


# --- cholesky_solve, _cholesky_solve_helper ----------------------------------------------------


_cholesky_solve_helper = defop(
    "_cholesky_solve_helper(Tensor self, Tensor A, bool upper) -> Tensor"
)


@registered(_cholesky_solve_helper)
def _cholesky_solve_helper_kernel(self: TensorImpl, A: TensorImpl, upper: bool) -> Any:
    """Torch: _cholesky_solve_helper_cpu: potrs on batch-broadcast inputs (column-major)."""
    check_lapack_dtype("cholesky_solve_cpu", self)
    size = self._size
    value = None
    if has_data(self):
        xp = xp_of(self)
        value = _potrs(xp, array_of(A), array_of(self), upper)
    return emit(self, value, size, matrix_strides(size), self._dtype)


cholesky_solve = defop("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor")


def _cholesky_solve_checks(self: TensorImpl, input2: TensorImpl) -> Shape:
    # torch: cholesky_solve's checks, then _linalg_broadcast_batch_dims(self, A, "cholesky_solve").
    if len(self._size) < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {len(self._size)} dimensions instead"
        )
    if len(input2._size) < 2:
        raise RuntimeError(
            f"u should have at least 2 dimensions, but has {len(input2._size)} dimensions instead"
        )
    linear_solve_check_inputs(self, input2, "cholesky_solve")
    return broadcast_shapes(self._size[:-2], input2._size[:-2])


@cholesky_solve.kernel(CEA)
def cholesky_solve_kernel(self: TensorImpl, input2: TensorImpl, upper: bool) -> Any:
    """Torch: cholesky_solve: broadcast the batches of b and the factor, then
    _cholesky_solve_helper."""
    batch = _cholesky_solve_checks(self, input2)
    b = aten.expand.default(self, [*batch, *self._size[-2:]])
    A = aten.expand.default(input2, [*batch, *input2._size[-2:]])
    return aten._cholesky_solve_helper.default(b, A, upper)


@cholesky_solve.derivative("self", "input2")
def cholesky_solve_backward(
    grad: Tensor, input2: Tensor, result: Tensor, upper: bool
) -> tuple[Tensor | None, Tensor | None]:
    # torch: cholesky_solve_backward(grad, self, input2, result, upper, grad_input_mask)
    return bl.cholesky_solve_backward(grad, input2, result, upper)


cholesky_solve_out = defop(
    "cholesky_solve.out(Tensor self, Tensor input2, bool upper=False, *, Tensor(a!) out) -> "
    "Tensor(a!)"
)


@cholesky_solve_out.kernel(CEA)
def cholesky_solve_out_kernel(
    self: TensorImpl, input2: TensorImpl, upper: bool, *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form (cholesky_solve, then resize and copy)."""
    return same_as_out(aten.cholesky_solve.default(self, input2, upper), out)


_cholesky_solve_helper_out = defop(
    "_cholesky_solve_helper.out(Tensor self, Tensor A, bool upper, *, Tensor(a!) out) -> Tensor(a!)"
)


@_cholesky_solve_helper_out.kernel(CEA)
def _cholesky_solve_helper_out_kernel(
    self: TensorImpl, A: TensorImpl, upper: bool, *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form of _cholesky_solve_helper."""
    return same_as_out(aten._cholesky_solve_helper.default(self, A, upper), out)


# --- cholesky_inverse --------------------------------------------------------------------------


def _cholesky_inverse(self: TensorImpl, upper: bool, out: TensorImpl | None) -> Any:
    # torch: cholesky_inverse_out: checks, potri (on a column-major copy), then the info check.
    square_check_inputs(self, "cholesky_inverse")
    if out is not None:
        check_same_device("cholesky_inverse", out, self)
        check_linalg_compatible_dtypes("cholesky_inverse", out._dtype, self._dtype)
    check_lapack_dtype("cholesky_inverse_out_cpu", self)
    size = self._size
    value = None
    if has_data(self):
        xp = xp_of(self)
        a = array_of(self)
        factor = xp.triu(a) if upper else xp.tril(a)
        diag = diagonal(xp, factor)
        zero = diag == 0
        n = zero.shape[-1]
        first = (
            xp.argmax(xp.astype(zero, xp.int32), axis=-1)
            if n
            else xp.zeros(zero.shape[:-1], dtype=xp.int64)
        )
        info = xp.where(xp.any(zero, axis=-1), first + 1, 0)
        is_matrix = len(size) == 2 if out is None else len(out._size) == 2
        raise_linalg_error(infos(xp, info), "cholesky_inverse", is_matrix)
        eye = identity_like(xp, tuple(a.shape), a.dtype)
        value = _potrs(xp, factor, eye, upper)
    if out is None:
        return emit(self, value, size, matrix_strides(size), self._dtype)
    resize_contiguous(out, size)
    if value is not None and has_data(out):
        xp = xp_of(out)
        emit(out, xp.astype(value, array_of(out).dtype), size, out._stride, out._dtype, out)
    return out


cholesky_inverse = defop("cholesky_inverse(Tensor self, bool upper=False) -> Tensor")


@registered(cholesky_inverse)
def cholesky_inverse_kernel(self: TensorImpl, upper: bool) -> Any:
    """Torch: cholesky_inverse: (L L^H)^{-1} (or (U^H U)^{-1}) from the factor (potri)."""
    return _cholesky_inverse(self, upper, None)


@cholesky_inverse.derivative("self")
def cholesky_inverse_backward(grad: Tensor, self: Tensor, upper: bool, result: Tensor) -> Tensor:
    # torch: cholesky_inverse_backward(grad, self, upper, result)
    return bl.cholesky_inverse_backward(grad, self, upper, result)


cholesky_inverse_out = defop(
    "cholesky_inverse.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(cholesky_inverse_out)
def cholesky_inverse_out_kernel(self: TensorImpl, upper: bool, *, out: TensorImpl) -> Any:
    """Torch: cholesky_inverse_out."""
    return _cholesky_inverse(self, upper, out)
