"""Tensors made like another: empty_like, zeros_like, ones_like, full_like, fill, zero_.

Torch: empty_like / zeros_like / ones_like / full_like in aten/src/ATen/native/
TensorFactories.cpp (CompositeExplicitAutograd; the result takes the input's layout under
preserve_format, as `data.layout_strides` computes), fill in Fill.cpp (`empty_like(self)
.fill_(value)`), and zero_ (a fill with 0).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.memory_format import as_memory_format
from refimpl._base.scalars import Scalar
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, empty_strided_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._register import defop
from refimpl.ops.factory import fill_uninitialized

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


def _like(
    self: TensorImpl,
    dtype: DType | None,
    dev: device | None,
    memory_format: object,
) -> Any:
    """An uninitialised tensor shaped like `self`, in `self`'s layout unless a memory format
    says otherwise. Torch: empty_like (TensorFactories.cpp)."""
    target = self._storage.device if dev is None else dev
    if target == self._storage.device:
        backend = self._storage.backend  # a tensor made like another keeps its backend
    else:
        backend = None if target.type == "meta" else config.backends.resolve(target.type)
    stride = data.layout_strides(self, as_memory_format(memory_format))
    return empty_strided_tensor(
        self._size, stride, self._dtype if dtype is None else dtype, target, backend
    )


def _fresh(t: TensorImpl) -> TensorImpl:
    # torch: a factory fills below ADInplaceOrView, so its new tensor is at version 0.
    t._version_counter.version = 0
    return t


empty_like = defop(
    "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)


@empty_like.kernel(CEA)
def empty_like_kernel(
    self: TensorImpl,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    memory_format: object,
) -> Any:
    """A tensor like `self` with unspecified values. Torch: empty_like (whose at::empty call
    fills them while deterministic algorithms are on: factory.fill_uninitialized)."""
    return fill_uninitialized(_like(self, dtype, device, memory_format))


zeros_like = defop(
    "zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)


@zeros_like.kernel(CEA)
def zeros_like_kernel(
    self: TensorImpl,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    memory_format: object,
) -> Any:
    """A tensor of zeros like `self`. Torch: zeros_like."""
    return _fresh(data.fill_(_like(self, dtype, device, memory_format), 0))


ones_like = defop(
    "ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)


@ones_like.kernel(CEA)
def ones_like_kernel(
    self: TensorImpl,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    memory_format: object,
) -> Any:
    """A tensor of ones like `self`. Torch: ones_like."""
    return _fresh(data.fill_(_like(self, dtype, device, memory_format), 1))


full_like = defop(
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)


@full_like.kernel(CEA)
def full_like_kernel(
    self: TensorImpl,
    fill_value: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    memory_format: object,
) -> Any:
    """A tensor like `self` filled with `fill_value`. Torch: full_like."""
    return _fresh(data.fill_(_like(self, dtype, device, memory_format), fill_value))


# --- fill, zero_ -------------------------------------------------------------------------

fill_scalar = defop("fill.Scalar(Tensor self, Scalar value) -> Tensor")


@fill_scalar.kernel(CEA)
def fill_scalar_kernel(self: TensorImpl, value: Scalar) -> Any:
    """A new tensor like `self` filled with `value`. Torch: fill in Fill.cpp."""
    return aten.fill_.Scalar(aten.empty_like.default(self), value)


fill_tensor = defop("fill.Tensor(Tensor self, Tensor value) -> Tensor")


@fill_tensor.kernel(CEA)
def fill_tensor_kernel(self: TensorImpl, value: TensorImpl) -> Any:
    """A new tensor like `self` filled with a 0-dim tensor's value. Torch: fill in Fill.cpp."""
    return aten.fill_.Tensor(aten.empty_like.default(self), value)


def fill_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad) (the values written do not depend on self)
    return aten.zeros_like.default(grad)


def fill_backward_value(grad: Tensor) -> Tensor:
    # torch: grad.sum() (the 0-dim value reaches every element)
    return aten.sum.default(grad)


fill_scalar.derivative("self")(fill_backward_self)
fill_tensor.derivative("self")(fill_backward_self)
fill_tensor.derivative("value")(fill_backward_value)

zero_ = defop("zero_(Tensor(a!) self) -> Tensor(a!)")


# Differs: torch registers zero_ per backend (CPU, Meta, ...); one body serves them here.
@zero_.kernel(CEA)
def zero__kernel(self: TensorImpl) -> Any:
    """Every element set to zero. Torch: zero_ in Fill.cpp (fill_ with 0)."""
    return aten.fill_.Scalar(self, 0)


zero_.derivative("self")(fill_backward_self)
