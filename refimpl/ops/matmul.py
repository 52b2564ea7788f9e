"""The BLAS-like products: mm, bmm, addmm, addmv, mv, addbmm, baddbmm, dot, vdot, addr.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (the structured meta functions of addmm, mm,
bmm and baddbmm, addmm_impl_cpu_, baddbmm_with_gemm_, addbmm_impl_, addr) and Blas.cpp
(addmv, mv, dot, vdot). Each real kernel is one body for CPU, CUDA and Meta: its checks and
output geometry run for every device, its arithmetic only where there is data (see
ops/_products.py for what they share, and Note [beta == 0] there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import (
    DType,
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
from refimpl._base.promotion import promote_types
from refimpl._base.scalars import Scalar, checked_convert
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import (
    MetaToken,
    TensorImpl,
    array_of,
    backend_dtype,
    empty_strided_tensor,
    meta_token,
    resize_for_output,
    result_maker,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops._iterator import scalar_array
from refimpl.ops._products import (
    OPMATH,
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
    for name, t in (("mat1", mat1), ("self", self)):
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


mv = defop("mv(Tensor self, Tensor vec) -> Tensor")
mv_out = defop("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)")


@mv.kernel(_CEA)
def mv_kernel(self: TensorImpl, vec: TensorImpl) -> Any:
    """mat @ vec. Torch: mv in Blas.cpp: addmv_ into a new vector of vec's dtype, beta 0."""
    result = aten.empty.memory_format([self.size(0)], dtype=vec._dtype, device=self._storage.device)
    return aten.addmv_.default(result, self, vec, beta=0, alpha=1)


@mv_out.kernel(_CEA)
def mv_out_kernel(self: TensorImpl, vec: TensorImpl, *, out: TensorImpl) -> Any:
    """mv into `out`. Torch: mv_out (addmv_out with `out` as self, beta 0)."""
    return aten.addmv.out(out, self, vec, beta=0, alpha=1, out=out)


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
            out._version_counter.bump()
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
    out._version_counter.bump()
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
