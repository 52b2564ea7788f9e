"""Complex numbers: complex, polar, view_as_real, view_as_complex, real, imag, conj,
conj_physical, the math-bit views _conj and _neg_view, is_conj, is_neg, resolve_conj,
resolve_neg, adjoint.

Torch: aten/src/ATen/native/TensorFactories.cpp (complex, polar), ComplexHelper.h
(view_as_real, view_as_complex), UnaryOps.cpp (real, imag, conj, conj_physical, _conj,
_neg_view, resolve_conj, resolve_neg), LinearAlgebra.cpp (adjoint). See Note [Complex views
are copies] for backends without a bitcast, and Note [Math bits] in core/tensor.py for how a
tensor carries a lazy conjugation or negation (the fallbacks are in ops/math_bits.py).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl.core.backend import BY_NAMESPACE, Array, ArrayNamespace
from refimpl.core.storage import Storage
from refimpl.core.tensor import (
    CONJUGATE_BIT,
    MATH_BITS,
    NEGATIVE_BIT,
    TensorImpl,
    is_inference,
    make_tensor,
    make_view,
)
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.table import dispatches_nothing
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import polar_backward
from refimpl.ops._complex_parts import compose_complex
from refimpl.ops._derivative import derivative
from refimpl.ops._iterator import IterConfig, Plan, ResultDtype
from refimpl.ops._pointwise import pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
_CEA: Final = DispatchKey.CompositeExplicitAutograd
_HALF_FLOAT_DOUBLE: Final = frozenset({"float16", "float32", "float64"})

# Note [Complex views are copies]
# In torch, view_as_real and view_as_complex reinterpret the same memory with another dtype,
# and real/imag are views over it. refimpl does the same where the backend has a bitcast
# (NumPy, CuPy; see Note [Untyped storage] in core/storage.py). A backend without one
# (array_api_strict), or without the new dtype (complex32 for a float16 view_as_complex),
# cannot hold a tensor of another dtype than its storage's, so there these
# results copy the whole storage into one of the new dtype and lay the result over it with
# torch's geometry: sizes, strides, storage offset, dtype and values are torch's, but writes
# through the result do not reach the source (and `_is_view()` is False).

# --- complex, polar ------------------------------------------------------------------------


def _check_floating(a: TensorImpl, b: TensorImpl) -> None:
    # torch: complex_check_floating in TensorFactories.cpp.
    if a._dtype.name not in _HALF_FLOAT_DOUBLE or b._dtype.name not in _HALF_FLOAT_DOUBLE:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{a._dtype.scalar_name} and {b._dtype.scalar_name}"
        )


def _check_same(a: TensorImpl, b: TensorImpl, *_: Any) -> None:
    # torch: complex_check_dtype in TensorFactories.cpp.
    _check_floating(a, b)
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {a._dtype.scalar_name} but got scalar type "
            f"{b._dtype.scalar_name} for second argument"
        )


def _check_out(p: Plan) -> None:
    if p.output_dtype is not p.kernel_dtype:
        raise RuntimeError(
            f"Expected object of scalar type {p.kernel_dtype.scalar_name} but got scalar type "
            f"{p.output_dtype.scalar_name} for argument 'out'"
        )


# torch: complex_out builds its iterator with check_all_same_dtype(false) over two inputs of
# one floating dtype; the output is that dtype's complex counterpart.
_COMPLEX_CONFIG: Final = IterConfig(check_all_same_dtype=False, result=ResultDtype.TO_COMPLEX)


def make_complex(xp: ArrayNamespace, real: Array, imag: Array) -> Array:
    """real + i*imag, exact for signed zeros, infinite and NaN parts (real + imag*1j is not).

    Torch: complex_kernel in native/cpu/ComplexKernel.cpp. The backend's extension "complex"
    runs where it has one; otherwise refimpl composes it from the standard (see Note
    [Exact complex from parts] in ops/_complex_parts.py).
    """
    backend = BY_NAMESPACE.get(id(xp))
    supplied = None if backend is None else backend.extensions.get("complex")
    if supplied is not None:
        return supplied(real, imag)
    return compose_complex(xp, real, imag)


complex_ = pointwise("complex(Tensor real, Tensor imag) -> Tensor", _COMPLEX_CONFIG)
complex_.precheck(_check_same)
complex_.check(_check_out)


@complex_.compute
def complex_compute(xp: ArrayNamespace, real: Array, imag: Array) -> Array:
    """Torch: complex_kernel in native/cpu/ComplexKernel.cpp."""
    return make_complex(xp, real, imag)


@complex_.derivative("real")
def complex_backward_real(grad: Tensor, real: Tensor) -> Tensor:
    # torch: at::real(grad). (torch's node saves `real` too: the formula's text names it.)
    return aten.real.default(grad)


@complex_.derivative("imag")
def complex_backward_imag(grad: Tensor, imag: Tensor) -> Tensor:
    # torch: at::imag(grad) (saving `imag`, as torch's node does).
    return aten.imag.default(grad)


polar = pointwise("polar(Tensor abs, Tensor angle) -> Tensor", _COMPLEX_CONFIG)
polar.precheck(_check_same)
polar.check(_check_out)


@polar.compute
def polar_compute(xp: ArrayNamespace, abs: Array, angle: Array) -> Array:
    """abs * (cos(angle) + i sin(angle)). Torch: polar_kernel (std::polar)."""
    return make_complex(xp, abs * xp.cos(angle), abs * xp.sin(angle))


@polar.derivative("abs", "angle")
def polar_backward_inputs(grad: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
    # torch: polar_backward(grad, result)
    return polar_backward(grad, result)


# --- view_as_real, view_as_complex -----------------------------------------------------------


def _retyped(
    source: TensorImpl,
    array: Array | None,
    count: int,
    dtype: DType,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
) -> Any:
    storage = source._storage
    new = Storage(array, count, dtype, storage.device, storage.backend)
    out = make_tensor(new, size, stride, offset, dtype, cls=type(source))
    out._key_set |= source._key_set & MATH_BITS  # a negative view's view stays negative
    return out


def _can_view(source: TensorImpl, dtype: DType) -> bool:
    """Whether a view as `dtype` is possible: meta, or a backend with a bitcast that stores
    `dtype` (no backend stores complex32, the view_as_complex of a float16 tensor)."""
    backend = source._storage.backend
    return backend is None or (backend.supports_bitcast and dtype in backend.array_dtypes)


def _dtype_view(
    source: TensorImpl,
    dtype: DType,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
) -> Any:
    # An alias of the same storage read as `dtype` (ADInplaceOrView makes it a view; see
    # make_view); an inference tensor's alias is an inference tensor.
    alias = make_tensor(source._storage, size, stride, offset, dtype, cls=type(source))
    alias._key_set |= source._key_set & MATH_BITS  # a view keeps the negative bit
    if is_inference(source):
        alias._key_set = source._key_set
        alias._counter = source._counter
    return alias


view_as_real = defop("view_as_real(Tensor(a) self) -> Tensor(a)")


def view_as_real_kernel(self: TensorImpl) -> Any:
    """A complex tensor as a real one with a last dim of 2 (real, imaginary).

    Torch: view_as_real in ComplexHelper.h: a view of the same bytes. See Note [Complex views
    are copies] for backends without a bitcast.
    """
    if self._key_set & CONJUGATE_BIT:
        # torch: view_as_real in ComplexHelper.h refuses a lazily conjugated tensor.
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be "
            "warned that the resulting tensor will NOT alias the original."
        )
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    size = (*self._size, 2)
    stride = (*(2 * s for s in self._stride), 1)
    if _can_view(self, self._dtype.to_real()):
        return _dtype_view(self, self._dtype.to_real(), size, stride, 2 * self._storage_offset)
    storage = self._storage
    flat = storage.array_as(self._dtype)
    backend = storage.backend
    pairs = None
    if flat is not None and backend is not None:
        xp = backend.xp
        pairs = xp.reshape(xp.stack((xp.real(flat), xp.imag(flat)), axis=-1), (-1,))
    # Differs: without a bitcast, a copy of the storage. See Note [Complex views are copies].
    return _retyped(
        self,
        pairs,
        2 * storage.elements(self._dtype),
        self._dtype.to_real(),
        size,
        stride,
        2 * self._storage_offset,
    )


for _key in _BACKEND_KEYS:
    view_as_real.kernel(_key)(view_as_real_kernel)


@view_as_real.derivative("self")
def view_as_real_backward(grad: Tensor) -> Tensor:
    # torch: at::view_as_complex(grad.contiguous())
    return aten.view_as_complex.default(aten.contiguous.default(grad))

view_as_complex = defop("view_as_complex(Tensor(a) self) -> Tensor(a)")


def view_as_complex_kernel(self: TensorImpl) -> Any:
    """A real tensor whose last dim is 2 as a complex one. Torch: view_as_complex in
    ComplexHelper.h, with its checks in its order. See Note [Complex views are copies]."""
    if self._dtype.name not in _HALF_FLOAT_DOUBLE:
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {self._dtype.scalar_name}"
        )
    if not self._size:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._storage_offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    size = self._size[:-1]
    stride = tuple(s // 2 for s in self._stride[:-1])
    if _can_view(self, self._dtype.to_complex()):
        return _dtype_view(self, self._dtype.to_complex(), size, stride, self._storage_offset // 2)
    storage = self._storage
    count = storage.elements(self._dtype) // 2
    flat = storage.array_as(self._dtype)
    backend = storage.backend
    values = None
    if flat is not None and backend is not None:
        xp = backend.xp
        # (count, 2) pairs, not flat[1::2]: the standard refuses a start past an empty axis.
        pairs = xp.reshape(flat[: 2 * count], (count, 2))
        values = make_complex(xp, pairs[:, 0], pairs[:, 1])
    # Differs: without a bitcast, a copy of the storage. See Note [Complex views are copies].
    return _retyped(
        self,
        values,
        count,
        self._dtype.to_complex(),
        size,
        stride,
        self._storage_offset // 2,
    )


for _key in _BACKEND_KEYS:
    view_as_complex.kernel(_key)(view_as_complex_kernel)


@view_as_complex.derivative("self")
def view_as_complex_backward(grad: Tensor) -> Tensor:
    # torch: at::view_as_real(grad.contiguous().resolve_conj())
    resolved = aten.resolve_conj.default(aten.contiguous.default(grad))
    return aten.view_as_real.default(resolved)


# --- real, imag ----------------------------------------------------------------------------

real = defop("real(Tensor(a) self) -> Tensor(a)")


@real.decomposition
def real_decomposition(self: TensorImpl) -> Any:
    """The real part; a real tensor is returned itself. Torch: real in UnaryOps.cpp."""
    if not self._dtype.is_complex:
        return self
    # torch: a conjugated tensor's real part is that of its storage: view_as_real(self._conj()).
    source = aten._conj.default(self) if self._key_set & CONJUGATE_BIT else self
    # torch: at::select(real_tensor, real_tensor.dim() - 1, 0): the last dim, counted.
    return aten.select.int(aten.view_as_real.default(source), len(self._size), 0)


imag = defop("imag(Tensor(a) self) -> Tensor(a)")


@imag.decomposition
def imag_decomposition(self: TensorImpl) -> Any:
    """The imaginary part, for complex tensors only. Torch: imag in UnaryOps.cpp."""
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self._key_set & CONJUGATE_BIT:
        # torch: the imaginary part of conj(z) is minus that of z: view_as_real(self._conj())
        # with the negative bit set (_neg_view) before the select.
        pairs = aten._neg_view.default(aten.view_as_real.default(aten._conj.default(self)))
    else:
        pairs = aten.view_as_real.default(self)
    return aten.select.int(pairs, len(self._size), 1)


# --- conj_physical, conj, resolve_conj, resolve_neg ----------------------------------------

# torch: _conj_physical (UnaryOps.cpp) is conj_physical_out into empty_like(self).
_conj_physical = pointwise(
    "_conj_physical(Tensor self) -> Tensor", IterConfig(output_like_self=True)
)


@_conj_physical.compute
def conj_physical_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The complex conjugate; a copy for real dtypes. Torch: conj_kernel in
    native/cpu/UnaryOpsKernel.cpp."""
    if xp.isdtype(self.dtype, "complex floating"):
        return xp.conj(self)
    return xp.asarray(self, copy=True)


@_conj_physical.derivative("self")
def conj_physical_backward(grad: Tensor) -> Tensor:
    # torch: grad.conj_physical()
    return aten.conj_physical.default(grad)


# torch: conj_physical.out and conj_physical_ are the same kernel as _conj_physical.
_conj_physical.register(
    defop("conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"), "out"
)
_conj_physical.register(defop("conj_physical_(Tensor(a!) self) -> Tensor(a!)"), "inplace")
# torch: conj_physical_ has its own entry (ConjPhysicalBackward1), with the same formula.
derivative("aten::conj_physical_", "self")(conj_physical_backward)

conj_physical = defop("conj_physical(Tensor self) -> Tensor")


@conj_physical.decomposition
def conj_physical_decomposition(self: TensorImpl) -> Any:
    """Torch: conj_physical in UnaryOps.cpp returns a real tensor itself."""
    if not self._dtype.is_complex:
        return self
    return aten._conj_physical.default(self)


# --- the math-bit views: _conj, _neg_view, is_conj, is_neg ------------------------------------


def _toggled(self: TensorImpl, bit: int) -> Any:
    # An alias with the same geometry and `bit` flipped in its key set (ADInplaceOrView makes
    # it a view of self, with self's version counter; Note [Math bits] in core/tensor.py).
    alias = make_view(self, self._geometry())
    alias._key_set ^= bit
    return alias


_conj = defop("_conj(Tensor(a) self) -> Tensor(a)")


@_conj.kernel(_CEA)
@dispatches_nothing
def _conj_kernel(self: TensorImpl) -> Any:
    """A view of self with the conjugate bit flipped: `x._conj()._conj()` reads as x.

    Torch: _conj in UnaryOps.cpp (alias with set_conj(!self.is_conj())).
    """
    return _toggled(self, CONJUGATE_BIT)


@_conj.derivative("self")
def conj_backward(grad: Tensor) -> Tensor:
    # torch: grad.conj()
    return aten.conj.default(grad)


_neg_view = defop("_neg_view(Tensor(a) self) -> Tensor(a)")


@_neg_view.kernel(_CEA)
@dispatches_nothing
def _neg_view_kernel(self: TensorImpl) -> Any:
    """A view of self with the negative bit flipped; real dtypes too.

    Torch: _neg_view in UnaryOps.cpp (alias with set_neg(!self.is_neg())).
    """
    return _toggled(self, NEGATIVE_BIT)


@_neg_view.derivative("self")
def neg_view_backward(grad: Tensor) -> Tensor:
    # torch: grad.neg()
    return aten.neg.default(grad)


is_conj = defop("is_conj(Tensor self) -> bool")


@is_conj.decomposition
def is_conj_decomposition(self: TensorImpl) -> bool:
    """Whether the conjugate bit is set. Torch: is_conj (TensorBase::is_conj, no dispatch)."""
    return bool(self._key_set & CONJUGATE_BIT)


is_neg = defop("is_neg(Tensor self) -> bool")


@is_neg.decomposition
def is_neg_decomposition(self: TensorImpl) -> bool:
    """Whether the negative bit is set. Torch: is_neg (TensorBase::is_neg, no dispatch)."""
    return bool(self._key_set & NEGATIVE_BIT)


# --- conj, resolve_conj, resolve_neg, adjoint --------------------------------------------------

conj = defop("conj(Tensor(a) self) -> Tensor(a)")


@conj.decomposition
def conj_decomposition(self: TensorImpl) -> Any:
    """Torch: conj in UnaryOps.cpp returns a real tensor itself, else _conj(self)."""
    if not self._dtype.is_complex:
        return self
    return aten._conj.default(self)


resolve_conj = defop("resolve_conj(Tensor(a) self) -> Tensor(a)")


@resolve_conj.decomposition
def resolve_conj_decomposition(self: TensorImpl) -> Any:
    """Self, or with the conjugate bit set a clone holding the conjugated values (clone's
    copy applies the bit; the clone has none). Torch: resolve_conj in UnaryOps.cpp."""
    if not self._key_set & CONJUGATE_BIT:
        return self
    return aten.clone.default(self)


resolve_neg = defop("resolve_neg(Tensor(a) self) -> Tensor(a)")


@resolve_neg.decomposition
def resolve_neg_decomposition(self: TensorImpl) -> Any:
    """Self, or with the negative bit set a clone holding the negated values.

    Torch: resolve_neg in UnaryOps.cpp.
    """
    if not self._key_set & NEGATIVE_BIT:
        return self
    return aten.clone.default(self)


adjoint = defop("adjoint(Tensor(a) self) -> Tensor(a)")


@adjoint.decomposition
def adjoint_decomposition(self: TensorImpl) -> Any:
    """The conjugate transpose of the last two dims: a view, lazily conjugated for complex
    dtypes. Torch: adjoint in LinearAlgebra.cpp (_adjoint: transpose(-2, -1), then conj)."""
    if len(self._size) < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{len(self._size)}-D tensor."
        )
    transposed = aten.transpose.int(self, -2, -1)
    return aten._conj.default(transposed) if self._dtype.is_complex else transposed
