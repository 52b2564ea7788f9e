"""The matrix products: mm, addmm, bmm, baddbmm, addbmm, with their derivatives.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (the structured meta functions of addmm, mm,
bmm and baddbmm, addmm_impl_cpu_, baddbmm_with_gemm_, addbmm_impl_). Each real kernel is one
body for CPU, CUDA and Meta: its checks and output geometry run for every device, its
arithmetic only where there is data (see ops/_products.py for what they share, and Note
[beta == 0] there). The matrix-vector and vector products (addmv, mv, dot, vdot, addr) are
in ops/matvec.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import (
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from refimpl._base.keys import DispatchKey
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import (
    MetaToken,
    TensorImpl,
    array_of,
    backend_dtype,
    meta_token,
    resize_for_output,
    result_maker,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import (
    Tensor,
    conj_scalar,
    maybe_multiply,
    mm_mat1_backward,
    mm_mat2_backward,
)
from refimpl.ops._products import (
    OPMATH,
    backend_kernels,
    check_inplace,
    check_out,
    expanded,
    finish,
    matmul_arrays,
    not_implemented,
    operands,
    rounded,
    scaled_sum,
)
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")
_CEA: Final = DispatchKey.CompositeExplicitAutograd


# The dtypes whose product is the library's own (no bool refusal, no 16-bit opmath).
_PLAIN_PRODUCT: Final = frozenset(
    {uint8, int8, int16, int32, int64, float32, float64, complex64, complex128}
)


# --- mm ----------------------------------------------------------------------------------

mm = defop("mm(Tensor self, Tensor mat2) -> Tensor")
mm_out = defop("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)")

# Note [mm fast path]
# mm's meta function (ranks, shapes and dtypes checked; the result's size, strides, dtype
# and device) reads only its operands' metadata. A call without out= on tensors with data,
# of a dtype whose product is the library's own, caches its answer under the operands'
# metadata tokens (Note [Metadata tokens] in core/tensor.py) as the maker of its result
# (`result_maker`): a repeated call multiplies the arrays and wraps the product. Errors are
# never cached, so a failing call fails the same way each time; the other calls (out=,
# meta, 16-bit and bool dtypes) always run `_mm`. Compare Note [Pointwise fast path].
_MM_RESULTS: dict[tuple[MetaToken, MetaToken], Callable[[Array], Any]] = {}


def _mm(self: TensorImpl, mat2: TensorImpl, out: TensorImpl | None) -> Any:
    """self @ mat2 for two matrices. Torch: TORCH_META_FUNC(mm), then addmm_impl_cpu_."""
    if len(self._size) != 2:
        raise RuntimeError("self must be a matrix")
    if len(mat2._size) != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, m) = self._size, mat2._size
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    dtype = self._dtype
    if mat2._dtype is not dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{type_meta_name(dtype)} != {type_meta_name(mat2._dtype)}"
        )
    storage = self._storage
    backend = storage.backend
    if out is None and backend is not None and dtype in _PLAIN_PRODUCT:
        # The common case without the generic result plumbing: a new row-major result over
        # the library's product, its maker cached (Note [mm fast path]).
        values = array_of(self) @ array_of(mat2)
        size = (n, m)
        make = result_maker(size, geometry.contiguous_strides(size), dtype, storage.device, backend)
        if len(_MM_RESULTS) > 1024:
            _MM_RESULTS.clear()
        _MM_RESULTS[meta_token(self), meta_token(mat2)] = make
        return make(values)
    if out is not None:
        check_out(out, (n, m), dtype)

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("addmm_impl_cpu_", dtype)
        return rounded(backend, dtype, matmul_arrays(backend, dtype, self, mat2))

    return finish((n, m), dtype, self, out, compute)


@backend_kernels(mm)
def mm_kernel(self: TensorImpl, mat2: TensorImpl) -> Any:
    """The matrix product of two matrices. Torch: mm (LinearAlgebra.cpp)."""
    make = _MM_RESULTS.get((meta_token(self), meta_token(mat2)))
    if make is not None:
        return make(array_of(self) @ array_of(mat2))
    return _mm(self, mat2, None)


@backend_kernels(mm_out)
def mm_out_kernel(self: TensorImpl, mat2: TensorImpl, *, out: TensorImpl) -> Any:
    """mm into `out`. Torch: mm_out."""
    return _mm(self, mat2, out)


@mm.derivative("self")
def mm_backward_self(
    grad: Tensor, mat2: Tensor, self_sym_sizes: list[int], self_sym_strides: list[int]
) -> Tensor:
    # torch: mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), self.layout(), 1)
    return mm_mat1_backward(grad, mat2, self_sym_sizes, self_sym_strides, 1)


@mm.derivative("mat2")
def mm_backward_mat2(
    grad: Tensor, self: Tensor, mat2_sym_sizes: list[int], mat2_sym_strides: list[int]
) -> Tensor:
    # torch: mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(), 1)
    return mm_mat2_backward(grad, self, mat2_sym_sizes, mat2_sym_strides, 1)


# --- addmm, addmm_ -----------------------------------------------------------------------

addmm = defop(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
)
addmm_out = defop(
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)"
)
addmm_ = defop(
    "addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)"
)


def _addmm_meta(self: TensorImpl, mat1: TensorImpl, mat2: TensorImpl) -> tuple[int, int]:
    """Torch: TORCH_META_FUNC(addmm) (addmm_meta in LinearAlgebra.cpp): checks, result size."""
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if len(t._size) != 2:
            raise RuntimeError(f"{name} must be a matrix, got {len(t._size)}-D tensor")
    # torch 2.13 compares self's dtype first (addmm(f32, f32, f64) names self).
    for name, t in (("self", self), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{t._dtype.scalar_name} and {mat2._dtype.scalar_name}"
            )
    (n, k), (k2, m) = mat1._size, mat2._size
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    return n, m


def _addmm(
    self: TensorImpl,
    mat1: TensorImpl,
    mat2: TensorImpl,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl | None,
) -> Any:
    """beta * self + alpha * (mat1 @ mat2). Torch: addmm_impl_cpu_ (self broadcast to the
    result with expand_size after the output is set up)."""
    size = _addmm_meta(self, mat1, mat2)
    dtype = mat2._dtype
    if out is not None:
        check_out(out, size, dtype)
    source = expanded(self, size)

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("addmm_impl_cpu_", dtype)
        (base,) = operands(backend, dtype, source)
        return scaled_sum(
            backend, dtype, base, matmul_arrays(backend, dtype, mat1, mat2), beta, alpha
        )

    return finish(size, dtype, self, out, compute)


@backend_kernels(addmm)
def addmm_kernel(
    self: TensorImpl, mat1: TensorImpl, mat2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """beta * self + alpha * (mat1 @ mat2). Torch: addmm (LinearAlgebra.cpp)."""
    return _addmm(self, mat1, mat2, beta, alpha, None)


@backend_kernels(addmm_out)
def addmm_out_kernel(
    self: TensorImpl,
    mat1: TensorImpl,
    mat2: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl,
) -> Any:
    """addmm into `out`. Torch: addmm_out."""
    return _addmm(self, mat1, mat2, beta, alpha, out)


@backend_kernels(addmm_)
def addmm__kernel(
    self: TensorImpl, mat1: TensorImpl, mat2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """addmm written into `self`. Torch: addmm_ (the structured in-place form)."""
    check_inplace(self, _addmm_meta(self, mat1, mat2))
    return _addmm(self, mat1, mat2, beta, alpha, self)


@addmm.derivative("self")
def addmm_backward_self(grad: Tensor, beta: Scalar) -> Tensor:
    # torch: maybe_multiply(grad, beta.conj()) (also for addmv, addr, baddbmm, addbmm)
    return maybe_multiply(grad, conj_scalar(beta))


@addmm.derivative("mat1")
def addmm_backward_mat1(
    grad: Tensor,
    mat2: Tensor,
    mat1_sym_sizes: list[int],
    mat1_sym_strides: list[int],
    alpha: Scalar,
) -> Tensor:
    # torch: mm_mat1_backward(grad, mat2, mat1.sym_sizes(), mat1.sym_strides(), mat1.layout(),
    # alpha)
    return mm_mat1_backward(grad, mat2, mat1_sym_sizes, mat1_sym_strides, alpha)


@addmm.derivative("mat2")
def addmm_backward_mat2(
    grad: Tensor,
    mat1: Tensor,
    mat2_sym_sizes: list[int],
    mat2_sym_strides: list[int],
    alpha: Scalar,
) -> Tensor:
    # torch: mm_mat2_backward(grad, mat1, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(),
    # alpha)
    return mm_mat2_backward(grad, mat1, mat2_sym_sizes, mat2_sym_strides, alpha)


# --- bmm, baddbmm, baddbmm_ --------------------------------------------------------------

bmm = defop("bmm(Tensor self, Tensor mat2) -> Tensor")
bmm_out = defop("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)")
baddbmm = defop(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
)
baddbmm_out = defop(
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)"
)
baddbmm_ = defop(
    "baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)"
)


def _bmm_meta(batch1: TensorImpl, batch2: TensorImpl) -> tuple[int, int, int]:
    """Torch: common_checks_baddbmm_bmm in LinearAlgebra.cpp: two 3-D tensors whose batch
    and contraction sizes agree; the result is (batch, rows of batch1, columns of batch2)."""
    if len(batch1._size) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._size) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, m) = batch1._size, batch2._size
    if b2 != b or k2 != k:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but "
            f"got: [{b2}, {k2}]."
        )
    return b, n, m


def _check_batch_dtypes(batch1: TensorImpl, batch2: TensorImpl) -> None:
    # torch: the CPU bmm kernel reads batch2 as batch1's scalar type (TensorBase::data_ptr).
    if batch2._dtype is not batch1._dtype:
        raise RuntimeError(
            f"expected scalar type {batch1._dtype.scalar_name} but found "
            f"{batch2._dtype.scalar_name}"
        )


def _baddbmm(
    self: TensorImpl | None,
    batch1: TensorImpl,
    batch2: TensorImpl,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl | None,
) -> Any:
    """beta * self + alpha * (batch1 @ batch2), batch by batch (bmm: no self).

    Torch: bmm_out_cpu / baddbmm_out_cpu over bmm_out_or_baddbmm_ in LinearAlgebra.cpp.
    """
    size = _bmm_meta(batch1, batch2)
    name = "bmm" if self is None else "baddbmm"
    if self is not None and self._dtype is not batch1._dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {type_meta_name(self._dtype)}, "
            f"batch1: {type_meta_name(batch1._dtype)}, batch2: {type_meta_name(batch2._dtype)}"
        )
    source = None if self is None else expanded(self, size)
    dtype = batch1._dtype
    if out is not None:
        check_out(out, size, dtype)
    _check_batch_dtypes(batch1, batch2)

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented(name, dtype)
        product = matmul_arrays(backend, dtype, batch1, batch2)
        base = None if source is None else operands(backend, dtype, source)[0]
        return scaled_sum(backend, dtype, base, product, beta, alpha)

    return finish(size, dtype, batch1, out, compute)


@backend_kernels(bmm)
def bmm_kernel(self: TensorImpl, mat2: TensorImpl) -> Any:
    """Matrix products of two batches of matrices. Torch: bmm (LinearAlgebra.cpp)."""
    return _baddbmm(None, self, mat2, 0, 1, None)


@backend_kernels(bmm_out)
def bmm_out_kernel(self: TensorImpl, mat2: TensorImpl, *, out: TensorImpl) -> Any:
    """bmm into `out`. Torch: bmm_out."""
    return _baddbmm(None, self, mat2, 0, 1, out)


@backend_kernels(baddbmm)
def baddbmm_kernel(
    self: TensorImpl, batch1: TensorImpl, batch2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """beta * self + alpha * bmm(batch1, batch2). Torch: baddbmm (LinearAlgebra.cpp)."""
    return _baddbmm(self, batch1, batch2, beta, alpha, None)


@backend_kernels(baddbmm_out)
def baddbmm_out_kernel(
    self: TensorImpl,
    batch1: TensorImpl,
    batch2: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl,
) -> Any:
    """baddbmm into `out`. Torch: baddbmm_out."""
    return _baddbmm(self, batch1, batch2, beta, alpha, out)


@backend_kernels(baddbmm_)
def baddbmm__kernel(
    self: TensorImpl, batch1: TensorImpl, batch2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """baddbmm written into `self`. Torch: baddbmm_ (the structured in-place form)."""
    check_inplace(self, _bmm_meta(batch1, batch2))
    return _baddbmm(self, batch1, batch2, beta, alpha, self)


def _batch_mT_conj(t: Tensor) -> Tensor:
    # torch: t.transpose(1, 2).conj()
    return aten.conj.default(aten.transpose.int(t, 1, 2))


@bmm.derivative("self")
def bmm_backward_self(grad: Tensor, mat2: Tensor) -> Tensor:
    # torch: grad.bmm(mat2.transpose(1, 2).conj())
    return aten.bmm.default(grad, _batch_mT_conj(mat2))


@bmm.derivative("mat2")
def bmm_backward_mat2(grad: Tensor, self: Tensor) -> Tensor:
    # torch: self.transpose(1, 2).conj().bmm(grad)
    return aten.bmm.default(_batch_mT_conj(self), grad)


baddbmm.derivative("self")(addmm_backward_self)


@baddbmm.derivative("batch1")
def baddbmm_backward_batch1(grad: Tensor, batch2: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(grad.bmm(batch2.transpose(1, 2).conj()), alpha.conj())
    return maybe_multiply(aten.bmm.default(grad, _batch_mT_conj(batch2)), conj_scalar(alpha))


@baddbmm.derivative("batch2")
def baddbmm_backward_batch2(grad: Tensor, batch1: Tensor, alpha: Scalar) -> Tensor:
    # torch: maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad), alpha.conj())
    return maybe_multiply(aten.bmm.default(_batch_mT_conj(batch1), grad), conj_scalar(alpha))


# --- addbmm, addbmm_ ---------------------------------------------------------------------

addbmm = defop(
    "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
)
addbmm_out = defop(
    "addbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)"
)
addbmm_ = defop(
    "addbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)"
)


def _addbmm(
    self: TensorImpl,
    batch1: TensorImpl,
    batch2: TensorImpl,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl | None,
) -> Any:
    """beta * self + alpha * the sum over the batch of batch1[i] @ batch2[i].

    Torch: addbmm_out (LinearAlgebra.cpp): self is expanded to (batch1.size(1),
    batch2.size(2)) first, then addbmm_impl_ checks the batches and accumulates one addmm_
    per batch into the result (so a 16-bit float result rounds after every batch).
    """
    size = (batch1.size(1), batch2.size(2))
    source = expanded(self, size)
    if len(batch1._size) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._size) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, m) = batch1._size, batch2._size
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{m})")
    # torch: the per-batch addmm_ into the result checks dtypes as addmm does, with the
    # result (out, or a tensor of self's dtype) as its `self`.
    result_dtype = self._dtype if out is None else out._dtype
    for name, dtype in (("mat1", batch1._dtype), ("self", result_dtype)):
        if dtype is not batch2._dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {dtype.scalar_name} and "
                f"{batch2._dtype.scalar_name}"
            )
    dtype = batch2._dtype
    if out is not None and out._size != size:
        # torch: result.resize_as_(self): silent, contiguous (an in-place self grows too).
        resize_for_output(out, size, geometry.contiguous_strides(size))

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("addmm_impl_cpu_", dtype)
        (base,) = operands(backend, dtype, source)
        products = matmul_arrays(backend, dtype, batch1, batch2)
        if dtype not in OPMATH or b == 0:
            return scaled_sum(
                backend, dtype, base, xp.sum(products, axis=0, dtype=products.dtype), beta, alpha
            )
        wide = backend_dtype(backend, OPMATH[dtype])
        result = scaled_sum(backend, dtype, base, products[0, ...], beta, alpha)
        for i in range(1, b):
            widened = xp.astype(result, wide)
            result = scaled_sum(backend, dtype, widened, products[i, ...], 1, alpha)
        return result

    return finish(size, dtype, batch1, out, compute)


@backend_kernels(addbmm)
def addbmm_kernel(
    self: TensorImpl, batch1: TensorImpl, batch2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """beta * self + alpha * sum_i batch1[i] @ batch2[i]. Torch: addbmm (LinearAlgebra.cpp)."""
    return _addbmm(self, batch1, batch2, beta, alpha, None)


@backend_kernels(addbmm_out)
def addbmm_out_kernel(
    self: TensorImpl,
    batch1: TensorImpl,
    batch2: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    out: TensorImpl,
) -> Any:
    """addbmm into `out`. Torch: addbmm_out."""
    return _addbmm(self, batch1, batch2, beta, alpha, out)


@backend_kernels(addbmm_)
def addbmm__kernel(
    self: TensorImpl, batch1: TensorImpl, batch2: TensorImpl, *, beta: Scalar, alpha: Scalar
) -> Any:
    """addbmm written into `self`. Torch: addbmm_ (addbmm_out with self as the result)."""
    return _addbmm(self, batch1, batch2, beta, alpha, self)


addbmm.derivative("self")(addmm_backward_self)


def _addbmm_grad(grad: Tensor, batch1_sym_sizes: list[int], batch2_sym_sizes: list[int]) -> Tensor:
    # torch: grad.unsqueeze(0).expand_symint({batch1.sym_size(0), batch1.sym_size(1),
    # batch2.sym_size(2)})
    size = [batch1_sym_sizes[0], batch1_sym_sizes[1], batch2_sym_sizes[2]]
    return aten.expand.default(aten.unsqueeze.default(grad, 0), size)


# Differs: torch saves batch1.sym_size(0), batch1.sym_size(1) and batch2.sym_size(2) as
# `batch1_sym_argsize_0` ...; refimpl saves the sizes whole (no argsize facts).
@addbmm.derivative("batch1")
def addbmm_backward_batch1(
    grad: Tensor,
    batch1_sym_sizes: list[int],
    batch2_sym_sizes: list[int],
    batch2: Tensor,
    alpha: Scalar,
) -> Tensor:
    # torch: maybe_multiply(grad.unsqueeze(0).expand_symint(...).bmm(batch2.transpose(1, 2)
    # .conj()), alpha.conj())
    expanded_grad = _addbmm_grad(grad, batch1_sym_sizes, batch2_sym_sizes)
    product = aten.bmm.default(expanded_grad, _batch_mT_conj(batch2))
    return maybe_multiply(product, conj_scalar(alpha))


@addbmm.derivative("batch2")
def addbmm_backward_batch2(
    grad: Tensor,
    batch1_sym_sizes: list[int],
    batch2_sym_sizes: list[int],
    batch1: Tensor,
    alpha: Scalar,
) -> Tensor:
    # torch: maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad.unsqueeze(0)
    # .expand_symint(...)), alpha.conj())
    expanded_grad = _addbmm_grad(grad, batch1_sym_sizes, batch2_sym_sizes)
    product = aten.bmm.default(_batch_mT_conj(batch1), expanded_grad)
    return maybe_multiply(product, conj_scalar(alpha))
