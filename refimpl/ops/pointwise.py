"""The data-moving aten ops: copy_, fill_, _to_copy and to, item.

Torch: copy_ (Copy.cpp), fill_ (Fill.cpp), _to_copy (TensorConversions.cpp),
_local_scalar_dense (Scalar.cpp); the factories are in ops/factory.py. Kernels work on metadata first and touch data only when
the tensors have some, so one CompositeExplicitAutograd body serves CPU, CUDA and Meta.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.layout import strided
from refimpl._base.memory_format import (
    as_memory_format,
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from refimpl._base.scalars import Scalar
from refimpl.core import layout
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.table import dispatches_nothing
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_binary import to_copy_backward
from refimpl.ops._register import defop
from refimpl.ops.like import fill_backward_self, fill_backward_value

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd

Operand = TensorImpl | bool | int | float | complex


# --- copy_, fill_ ------------------------------------------------------------------------

copy_ = defop("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)")


@copy_.kernel(CEA)
@dispatches_nothing
def copy__kernel(self: TensorImpl, src: Operand, non_blocking: bool) -> Any:
    """`src` broadcast, cast and transferred into `self`. Torch: copy_ in Copy.cpp."""
    if not isinstance(src, TensorImpl):
        # torch: a Python number passed as `src` is a wrapped 0-dim tensor.
        data.check_writable(self)
        return data.fill_(self, src)
    return data.copy_(self, src)


fill_scalar = defop("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)")


# Differs: torch registers fill_ per backend (CPU, CUDA, Meta, ...).
@fill_scalar.kernel(CEA)
@dispatches_nothing
def fill_scalar_kernel(self: TensorImpl, value: Scalar) -> Any:
    """Every element set to `value`. Torch: fill_ in Fill.cpp."""
    return data.fill_(self, value)


fill_tensor = defop("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)")


# Differs: torch registers fill_ per backend (CPU, CUDA, Meta, ...).
@fill_tensor.kernel(CEA)
@dispatches_nothing
def fill_tensor_kernel(self: TensorImpl, value: TensorImpl) -> Any:
    """Every element set to a 0-dim tensor's value. Torch: fill_ in Fill.cpp."""
    if value._size:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{len(value._size)} dimensions."
        )
    if value._storage.backend is None:
        return self
    # The core's read of the value, not the `item` op: a kernel reads its inputs directly.
    return data.fill_(self, TensorImpl.item(value))


@copy_.derivative("self")
def copy__backward_self(grad: Tensor) -> Tensor:
    # torch: CopyBackwards (VariableTypeManual.cpp): at::zeros_like(grad) for the overwritten
    # self
    return aten.zeros_like.default(grad)


@copy_.derivative("src")
def copy__backward_src(grad: Tensor, src_scalar_type: DType, src_device: device) -> Tensor:
    # torch: CopyBackwards: grad->to(src_options), the real part for a real src
    return to_copy_backward(grad, src_scalar_type, src_device)


fill_scalar.derivative("self")(fill_backward_self)
fill_tensor.derivative("self")(fill_backward_self)
fill_tensor.derivative("value")(fill_backward_value)


# --- _to_copy ---------------------------------------------------------------------------

_to_copy = defop(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor"
)


@_to_copy.kernel(CEA)
def _to_copy_kernel(
    self: TensorImpl,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    non_blocking: bool,
    memory_format: Any,
) -> Any:
    """A contiguous copy, possibly of another dtype and device. Torch: _to_copy."""
    target = self._storage.device if device is None else device
    if target == self._storage.device:
        backend = self._storage.backend  # a converted tensor keeps its backend
    else:
        backend = None if target.type == "meta" else config.backends.resolve(target.type)
    return data.to_copy(
        self,
        self._dtype if dtype is None else dtype,
        target,
        backend,
        as_memory_format(memory_format),
    )


@_to_copy.derivative("self")
def _to_copy_backward_self(grad: Tensor, self_scalar_type: DType, self_device: device) -> Tensor:
    # torch: _to_copy_backward(grad, self.options())
    return to_copy_backward(grad, self_scalar_type, self_device)


# --- to: the Tensor.to overloads, decomposed to _to_copy ---------------------------------

# torch: c10::Layout::Strided, as the int a Layout argument carries.
STRIDED: Final = 0


def suggest_memory_format(t: TensorImpl) -> memory_format:
    """Channels-last when the strides say so, else contiguous.

    Torch: TensorBase::suggest_memory_format.
    """
    if layout.suggests_channels_last(t._size, t._stride):
        return channels_last if len(t._size) == 4 else channels_last_3d
    return contiguous_format


def _to_impl(
    self: TensorImpl,
    dtype: DType | None,
    layout_arg: Any,
    device: device | None,
    pin_memory: bool | None,
    non_blocking: bool,
    copy: bool,
    memory_format: Any,
) -> Any:
    """`self` when nothing would change, else aten._to_copy.

    Torch: to_impl and to_will_alias in aten/src/ATen/native/TensorConversions.cpp: a memory
    format other than preserve aliases only when it is the tensor's suggested format.
    """
    fmt = as_memory_format(memory_format)
    if (
        (dtype is None or dtype is self._dtype)
        and (layout_arg is None or layout_arg == STRIDED or layout_arg is strided)
        and (device is None or device == self._storage.device)
        and not copy
        and (fmt is None or fmt is preserve_format or suggest_memory_format(self) is fmt)
    ):
        return self
    return aten._to_copy.default(
        self,
        dtype=dtype,
        layout=layout_arg,
        device=device,
        pin_memory=pin_memory,
        non_blocking=non_blocking,
        memory_format=memory_format,
    )


to_dtype = defop(
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)"
)


@to_dtype.decomposition
def to_dtype_decomposition(
    self: TensorImpl, dtype: DType, non_blocking: bool, copy: bool, memory_format: Any
) -> Any:
    """`self` as `dtype`; itself if it has that dtype. Torch: to (dtype) in TensorConversions.cpp."""
    return _to_impl(self, dtype, None, None, None, non_blocking, copy, memory_format)


to_device = defop(
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, "
    "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)"
)


@to_device.decomposition
def to_device_decomposition(
    self: TensorImpl,
    device: device,
    dtype: DType,
    non_blocking: bool,
    copy: bool,
    memory_format: Any,
) -> Any:
    """`self` on `device` as `dtype`. Torch: to (device, dtype) in TensorConversions.cpp.

    Differs: torch first gives an index-less CUDA device the current index (ensure_has_index);
    refimpl compares devices as given.
    """
    return _to_impl(self, dtype, None, device, None, non_blocking, copy, memory_format)


to_dtype_layout = defop(
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)"
)


@to_dtype_layout.decomposition
def to_dtype_layout_decomposition(
    self: TensorImpl,
    *,
    dtype: DType | None,
    layout: int | None,
    device: device | None,
    pin_memory: bool | None,
    non_blocking: bool,
    copy: bool,
    memory_format: Any,
) -> Any:
    """`self` with the given tensor options. Torch: to (TensorOptions) in TensorConversions.cpp."""
    return _to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


to_other = defop(
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)"
)


@to_other.decomposition
def to_other_decomposition(
    self: TensorImpl,
    other: TensorImpl,
    non_blocking: bool,
    copy: bool,
    memory_format: Any,
) -> Any:
    """`self` with `other`'s dtype and device. Torch: to (other) in TensorConversions.cpp."""
    return _to_impl(
        self,
        other._dtype,
        STRIDED,
        other._storage.device,
        None,
        non_blocking,
        copy,
        memory_format,
    )


# --- _local_scalar_dense, item ----------------------------------------------------------

_local_scalar_dense = defop("_local_scalar_dense(Tensor self) -> Scalar")


# Differs: torch registers _local_scalar_dense per backend (CPU, CUDA, Meta).
@_local_scalar_dense.kernel(CEA)
def _local_scalar_dense_kernel(self: TensorImpl) -> Any:
    """The first element as a Python number (no element count check). Torch: Scalar.cpp."""
    backend = self._storage.backend
    if backend is None:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    xp = backend.xp
    first = xp.reshape(array_of(self), (-1,))[:1]
    return backend.tolist(xp.reshape(first, ()))


item = defop("item(Tensor self) -> Scalar")


@item.decomposition
def item_decomposition(self: TensorImpl) -> Any:
    """The value of a one-element tensor. Torch: item in Scalar.cpp (_local_scalar_dense)."""
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return aten._local_scalar_dense.default(self)


# --- is_nonzero, is_same_size ----------------------------------------------------------------

is_nonzero = defop("is_nonzero(Tensor self) -> bool")


@is_nonzero.decomposition
def is_nonzero_decomposition(self: TensorImpl) -> bool:
    """Whether a one-element tensor's value is nonzero. Torch: is_nonzero in
    TensorProperties.cpp (the element count checks, then item(): a complex value counts
    when either part is nonzero, NaN counts)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(aten.item.default(self))


is_same_size = defop("is_same_size(Tensor self, Tensor other) -> bool")


@is_same_size.kernel(CEA)
def is_same_size_kernel(self: TensorImpl, other: TensorImpl) -> bool:
    """Whether two tensors have the same shape. Torch: is_same_size in
    TensorProperties.cpp (CompositeExplicitAutograd)."""
    return self._size == other._size


# --- is_complex, is_floating_point, is_signed, is_inference, numel, get_device -----------------
# torch: CompositeImplicitAutograd ops over the tensor's metadata (TensorProperties.cpp and
# the TensorBase methods they call); torch's Python bindings of these names read the
# metadata without dispatching, and so do refimpl's Tensor methods.

_QUERIES: Final = {
    "is_complex(Tensor self) -> bool": lambda t: t._dtype.is_complex,
    "is_floating_point(Tensor self) -> bool": lambda t: t._dtype.is_floating_point,
    "is_signed(Tensor self) -> bool": lambda t: t._dtype.is_signed,
    "numel(Tensor self) -> int": lambda t: t.numel(),
    # -1 for CPU and meta tensors, which have no device index.
    "get_device(Tensor self) -> int": lambda t: (
        -1 if t._storage.device.type in ("cpu", "meta") else (t._storage.device.index or 0)
    ),
}


def _query(schema: str, read: Any) -> None:
    op = defop(schema)

    @op.decomposition
    def query_decomposition(self: TensorImpl) -> Any:
        return read(self)

    query_decomposition.__name__ = f"{schema.partition('(')[0]}_decomposition"


for _schema, _read in _QUERIES.items():
    _query(_schema, _read)
