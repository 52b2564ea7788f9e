"""The matrix-vector and vector products: addmv, mv, dot, vdot, addr, with their derivatives.

Torch: aten/src/ATen/native/Blas.cpp (addmv, mv, dot, vdot) and LinearAlgebra.cpp (addr).
Each real kernel is one body for CPU, CUDA and Meta (see ops/_products.py for what they
share); mm and the batched products are in ops/matmul.py.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType, bool_
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import promote_types
from refimpl._base.scalars import Scalar, checked_convert
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import TensorImpl, array_of, empty_strided_tensor, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, conj_scalar, maybe_multiply
from refimpl.ops._iterator_run import scalar_array
from refimpl.ops._products import (
    backend_kernels,
    cast_values,
    check_inplace,
    check_out,
    expanded,
    finish,
    matmul_arrays,
    not_implemented,
    operands,
    resize_out,
    rounded,
    scaled_sum,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")
_CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- addmv, addmv_, mv -------------------------------------------------------------------

addmv = defop(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
)
addmv_out = defop(
    "addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)"
)
addmv_ = defop(
    "addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)"
)


def _addmv_meta(self: TensorImpl, mat: TensorImpl, vec: TensorImpl) -> tuple[int]:
    """Torch: TORCH_META_FUNC(addmv) in Blas.cpp: a vector (or one element), a matrix and a
    vector of matching sizes and one dtype; the result has mat's row count."""
    ranks = (len(self._size), len(mat._size), len(vec._size))
    if not (ranks[1] == 2 and ranks[2] == 1 and ranks[0] <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {ranks[0]}, {ranks[1]}, {ranks[2]}"
        )
    (n, k), numel = mat._size, geometry.numel(self._size)
    if k != vec._size[0] or not (n == numel or numel == 1):
        shown = self._size[0] if self._size else numel
        raise RuntimeError(
            f"size mismatch, got input ({shown}), mat ({n}x{k}), vec ({vec._size[0]})"
        )
    if not (self._dtype is mat._dtype and mat._dtype is vec._dtype):
        names = [t._dtype.scalar_name for t in (self, mat, vec)]
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{names[0]}, {names[1]}, and {names[2]}"
        )
    return (n,)


def _addmv(
    self: TensorImpl,
    mat: TensorImpl,
    vec: TensorImpl,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl | None,
) -> Any:
    """beta * self + alpha * (mat @ vec). Torch: addmv_out_cpu in Blas.cpp (gemv)."""
    size = _addmv_meta(self, mat, vec)
    dtype = vec._dtype
    if out is not None:
        check_out(out, size, dtype)
    source = expanded(self, size)

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("addmv_impl_cpu", dtype)
        (base,) = operands(backend, dtype, source)
        return scaled_sum(
            backend, dtype, base, matmul_arrays(backend, dtype, mat, vec), beta, alpha
        )

    return finish(size, dtype, mat, out, compute)


@backend_kernels(addmv)
def addmv_kernel(
    self: TensorImpl, mat: TensorImpl, vec: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """beta * self + alpha * (mat @ vec). Torch: addmv (Blas.cpp)."""
    return _addmv(self, mat, vec, beta, alpha, None)


@backend_kernels(addmv_out)
def addmv_out_kernel(
    self: TensorImpl,
    mat: TensorImpl,
    vec: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl,
) -> Any:
    """addmv into `out`. Torch: addmv_out."""
    return _addmv(self, mat, vec, beta, alpha, out)


@backend_kernels(addmv_)
def addmv__kernel(
    self: TensorImpl, mat: TensorImpl, vec: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """addmv written into `self`. Torch: addmv_ (the structured in-place form)."""
    check_inplace(self, _addmv_meta(self, mat, vec))
    return _addmv(self, mat, vec, beta, alpha, self)


@addmv.derivative("self")
def addmv_backward_self(grad: Tensor, beta: Scalar) -> Tensor:
    # torch: maybe_multiply(grad, beta.conj())
    return maybe_multiply(grad, conj_scalar(beta))


@addmv.derivative("mat")
def addmv_backward_mat(grad: Tensor, vec: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(grad.ger(vec.conj()), alpha.conj())
    outer = aten.ger.default(grad, aten.conj.default(vec))
    return maybe_multiply(outer, conj_scalar(alpha))


@addmv.derivative("vec")
def addmv_backward_vec(grad: Tensor, mat: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(mat.t().conj().mv(grad), alpha.conj())
    product = aten.mv.default(aten.conj.default(aten.t.default(mat)), grad)
    return maybe_multiply(product, conj_scalar(alpha))


mv = defop("mv(Tensor self, Tensor vec) -> Tensor")
mv_out = defop("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)")


@mv.kernel(_CEA)
def mv_kernel(self: TensorImpl, vec: TensorImpl) -> Any:
    """mat @ vec. Torch: mv in Blas.cpp: addmv_ into a new vector of vec's dtype, beta 0.

    Differs: refimpl calls the functional addmv: its in-place kernels bump the version
    themselves, where torch's addmv_ inside mv runs below ADInplaceOrView and bumps nothing,
    so torch's result is at version 0, as refimpl's is this way.
    """
    result = aten.empty.memory_format([self.size(0)], dtype=vec._dtype, device=self._storage.device)
    return aten.addmv.default(result, self, vec, beta=0, alpha=1)


@mv_out.kernel(_CEA)
def mv_out_kernel(self: TensorImpl, vec: TensorImpl, *, out: TensorImpl) -> Any:
    """mv into `out`. Torch: mv_out (addmv_out with `out` as self, beta 0)."""
    return aten.addmv.out(out, self, vec, beta=0, alpha=1, out=out)


@mv.derivative("self")
def mv_backward_self(grad: Tensor, vec: Tensor) -> Tensor:
    # torch: grad.ger(vec.conj())
    return aten.ger.default(grad, aten.conj.default(vec))


@mv.derivative("vec")
def mv_backward_vec(grad: Tensor, self: Tensor) -> Tensor:
    # torch: self.conj().t().mv(grad)
    return aten.mv.default(aten.t.default(aten.conj.default(self)), grad)


# --- dot, vdot ---------------------------------------------------------------------------

dot = defop("dot(Tensor self, Tensor tensor) -> Tensor")
dot_out = defop("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)")
vdot = defop("vdot(Tensor self, Tensor other) -> Tensor")
vdot_out = defop("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


def _dot(self: TensorImpl, other: TensorImpl, conjugate: bool) -> Any:
    """The inner product of two vectors (vdot: of conj(self) and other).

    Torch: dot / vdot in Blas.cpp with dot_check; 16-bit floats accumulate in float32.
    """
    if len(self._size) != 1 or len(other._size) != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {len(self._size)}D and {len(other._size)}D tensors"
        )
    if self._dtype is not other._dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{self._dtype.scalar_name} and {other._dtype.scalar_name}"
        )
    a, b = self._size[0], other._size[0]
    if a != b:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a}] and src [{b}] to have the same "
            f"number of elements, but got {a} and {b} elements respectively"
        )
    dtype = self._dtype

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("dot", dtype)
        left, right = operands(backend, dtype, self, other)
        if conjugate and dtype.is_complex:
            left = xp.conj(left)
        products = left * right
        return rounded(backend, dtype, xp.sum(products, dtype=products.dtype))

    return finish((), dtype, self, None, compute)


def _dot_out(result: TensorImpl, out: TensorImpl) -> Any:
    """Torch: dot_out / vdot_out in Blas.cpp (CompositeExplicitAutograd): the dtype check,
    resize_output, then a copy of the functional result."""
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"result dtype {out._dtype.scalar_name} does not match input dtype "
            f"{result._dtype.scalar_name}"
        )
    resize_out(out, ())
    return aten.copy_.default(out, result)


@backend_kernels(dot)
def dot_kernel(self: TensorImpl, tensor: TensorImpl) -> Any:
    """sum(self * tensor) of two vectors. Torch: dot (Blas.cpp)."""
    return _dot(self, tensor, conjugate=False)


@dot_out.kernel(_CEA)
def dot_out_kernel(self: TensorImpl, tensor: TensorImpl, *, out: TensorImpl) -> Any:
    """dot into `out`. Torch: dot_out."""
    return _dot_out(aten.dot.default(self, tensor), out)


@backend_kernels(vdot)
def vdot_kernel(self: TensorImpl, other: TensorImpl) -> Any:
    """sum(conj(self) * other) of two vectors. Torch: vdot (Blas.cpp)."""
    return _dot(self, other, conjugate=True)


@vdot_out.kernel(_CEA)
def vdot_out_kernel(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """vdot into `out`. Torch: vdot_out."""
    return _dot_out(aten.vdot.default(self, other), out)


@dot.derivative("self")
def dot_backward_self(grad: Tensor, tensor: Tensor) -> Tensor:
    # torch: grad * tensor.conj()
    return aten.mul.Tensor(grad, aten.conj.default(tensor))


@dot.derivative("tensor")
def dot_backward_tensor(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self.conj()
    return aten.mul.Tensor(grad, aten.conj.default(self))


@vdot.derivative("self")
def vdot_backward_self(grad: Tensor, other: Tensor) -> Tensor:
    # torch: grad.conj() * other
    return aten.mul.Tensor(aten.conj.default(grad), other)


@vdot.derivative("other")
def vdot_backward_other(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self
    return aten.mul.Tensor(grad, self)


# --- addr, addr_ -------------------------------------------------------------------------

addr = defop(
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
)
addr_out = defop(
    "addr.out(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)"
)
addr_ = defop(
    "addr_(Tensor(a!) self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)"
)


def _check_addr_scalar(name: str, value: Scalar, dtype: DType) -> None:
    # torch: the scalar checks of addr (LinearAlgebra.cpp) on the result dtype, beta's before
    # alpha's: a bool only for a bool result; no float (nor complex) for an integral or bool
    # result.
    if isinstance(value, bool):
        if dtype is not bool_:
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        return
    if isinstance(value, float | complex) and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"For integral input tensors, argument {name} must not be a floating point number."
        )


def _addr(
    self: TensorImpl,
    vec1: TensorImpl,
    vec2: TensorImpl,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl | None,
) -> Any:
    """beta * self + alpha * outer(vec1, vec2), elementwise over self expanded to the result.

    Torch: addr_out in LinearAlgebra.cpp (CompositeExplicitAutograd): a TensorIterator over
    (self, vec1[:, None], vec2[None, :]), so the inputs promote and bool works (as or/and).
    """
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if len(v._size) != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {len(v._size)}-D")
    size = (vec1._size[0], vec2._size[0])
    source = expanded(self, size)
    dtype = promote_types(promote_types(self._dtype, vec1._dtype), vec2._dtype)
    _check_addr_scalar("beta", beta, dtype)
    _check_addr_scalar("alpha", alpha, dtype)
    if out is not None:
        if out._dtype.category < dtype.category:
            raise RuntimeError(
                f"result type {dtype.scalar_name} can't be cast to the desired output type "
                f"{out._dtype.scalar_name}"
            )
        resize_out(out, size)
    backend = vec1._storage.backend
    if backend is None:
        if out is not None:
            return out
        stride = geometry.dense_strides_like(size, source._stride)
        return empty_strided_tensor(size, stride, dtype, vec1._storage.device, None)
    xp = backend.xp
    base, left, right = (
        cast_values(backend, array_of(t), t._dtype, dtype) for t in (source, vec1, vec2)
    )
    if dtype is bool_:
        values = xp.logical_or(
            xp.logical_and(base, xp.asarray(bool(beta))),
            xp.logical_and(xp.logical_and(left[:, None], right[None, :]), xp.asarray(bool(alpha))),
        )
    else:
        # torch: addr_kernel computes `beta * self + alpha * vec1 * vec2` in the result dtype,
        # left to right (a 16-bit float rounds after each operation), skipping self when
        # beta == 0.
        a = scalar_array(checked_convert(alpha, dtype), dtype, backend)
        values = (a * left)[:, None] * right[None, :]
        b = checked_convert(beta, dtype)
        if b != 0:
            values = scalar_array(b, dtype, backend) * base + values
    if out is None:
        stride = geometry.dense_strides_like(size, source._stride)
        result = empty_strided_tensor(size, stride, dtype, vec1._storage.device, backend)
        write_array(result, values)
        return result
    write_array(out, cast_values(backend, values, dtype, out._dtype))
    return out


@addr.kernel(_CEA)
def addr_kernel(
    self: TensorImpl, vec1: TensorImpl, vec2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """beta * self + alpha * outer(vec1, vec2). Torch: addr (LinearAlgebra.cpp)."""
    return _addr(self, vec1, vec2, beta, alpha, None)


@addr_out.kernel(_CEA)
def addr_out_kernel(
    self: TensorImpl,
    vec1: TensorImpl,
    vec2: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl,
) -> Any:
    """addr into `out`. Torch: addr_out."""
    return _addr(self, vec1, vec2, beta, alpha, out)


@addr_.kernel(_CEA)
def addr__kernel(
    self: TensorImpl, vec1: TensorImpl, vec2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """addr written into `self`. Torch: addr_ (addr_out with self as the result)."""
    if len(self._size) != 2:
        # torch: addr_ checks self with check_dim_size-like text before computing.
        raise RuntimeError(f"2D tensor expected, got {len(self._size)}D tensor for input")
    return _addr(self, vec1, vec2, beta, alpha, self)


addr.derivative("self")(addmv_backward_self)


@addr.derivative("vec1")
def addr_backward_vec1(grad: Tensor, vec2: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(grad.mv(vec2.conj()), alpha.conj())
    product = aten.mv.default(grad, aten.conj.default(vec2))
    return maybe_multiply(product, conj_scalar(alpha))


@addr.derivative("vec2")
def addr_backward_vec2(grad: Tensor, vec1: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(grad.t().mv(vec1.conj()), alpha.conj())
    product = aten.mv.default(aten.t.default(grad), aten.conj.default(vec1))
    return maybe_multiply(product, conj_scalar(alpha))
