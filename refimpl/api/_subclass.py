"""How Tensor subclasses are made: `_make_subclass`, `_make_wrapper_subclass`, `as_subclass`.

Torch: THPVariable_make_subclass, THPVariable_make_wrapper_subclass and
THPVariable_as_subclass in torch/csrc/autograd/python_variable.cpp, and THPVariable_NewWithVar,
which gives the tensor the Python dispatch keys when its class defines `__torch_dispatch__`
(see Note [When the Python key runs] in dispatch/python_dispatch.py). refimpl's Tensor is its
own TensorImpl, so "wrapping the same TensorImpl in another class" is a new object of that
class holding the same slots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl._base.keys import PYTHON_KEYS
from refimpl._base.memory_format import as_memory_format, contiguous_format
from refimpl._base.promotion import get_default_dtype
from refimpl.api._autograd_methods import set_requires_grad_for_factory
from refimpl.core import strides as geometry
from refimpl.core.storage import InvalidPythonStorage
from refimpl.core.tensor import TensorImpl, make_tensor
from refimpl.dispatch.python_dispatch import disabled_torch_dispatch_impl, has_torch_dispatch
from refimpl.dispatch.tls import ExcludeDispatchKeyGuard
from refimpl.ops import aten
from refimpl.ops.data import format_strides

_PYTHON_KEYS_RAW = PYTHON_KEYS.raw


def _check_tensor_class(cls: Any, tensor_class: type) -> None:
    # torch: THPVariable_NewWithVar's check, worded as torch words it.
    if not (isinstance(cls, type) and issubclass(cls, tensor_class)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is "
            "not possible. Make sure your class inherits from Tensor."
        )


def _slot_names(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__weakref__", "__dict__") and name not in names:
                names.append(name)
    return tuple(names)


def rewrap(t: TensorImpl, cls: type) -> Any:
    """A new object of `cls` holding `t`'s slots (storage, geometry, version counter, key set,
    autograd state), with the Python keys iff `cls` defines `__torch_dispatch__`.

    Torch: THPVariable_NewWithVar on an existing TensorImpl (set_python_dispatch).
    """
    out: Any = object.__new__(cls)
    for name in _slot_names(type(t)):
        if hasattr(t, name):
            setattr(out, name, getattr(t, name))
    if has_torch_dispatch(cls):
        out._key_set |= _PYTHON_KEYS_RAW
    else:
        out._key_set &= ~_PYTHON_KEYS_RAW
    return out


class SubclassMethods:
    """The subclass constructors of refimpl.Tensor, and its disabled `__torch_dispatch__`."""

    __slots__ = ()

    # torch: Tensor.__torch_dispatch__ is torch._C._disabled_torch_dispatch_impl: plain tensors
    # have no handler, and a subclass that defines one gets the Python keys.
    __torch_dispatch__ = staticmethod(disabled_torch_dispatch_impl)

    @staticmethod
    def _make_subclass(
        cls: Any,  # noqa: PLW0211 - torch names it cls (Tensor._make_subclass(cls, ...))
        data: Any,
        require_grad: bool = False,
        dispatch_strides: bool = False,
        dispatch_device: bool = False,
        dispatch_layout: bool = False,
        _extra_dispatch_keys: Any = None,
        storage_size: Any = None,
    ) -> Any:
        """A `cls` tensor sharing `data`'s storage, geometry and version counter, a leaf that
        requires grad iff `require_grad`. Torch: Tensor._make_subclass (`data.detach()`,
        with the Python keys excluded, so modes do not see it)."""
        _check_tensor_class(cls, TensorImpl)
        if not isinstance(data, TensorImpl):
            raise TypeError(
                "_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                f"{type(data).__name__}"
            )
        with ExcludeDispatchKeyGuard(PYTHON_KEYS):
            detached = aten.detach.default(data)
        out = rewrap(detached, cls)
        if require_grad:
            set_requires_grad_for_factory(out)
        return out

    @staticmethod
    def _make_wrapper_subclass(
        cls: Any,  # noqa: PLW0211 - torch names it cls (Tensor._make_subclass(cls, ...))
        size: Sequence[int],
        strides: Sequence[int] | None = None,
        storage_offset: int | None = None,
        memory_format: Any = None,
        dtype: DType | None = None,
        layout: Any = None,
        device: device | str | None = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
        dispatch_sizes_strides_policy: str | None = None,
        dispatch_device: bool = False,
        dispatch_layout: bool = False,
        _extra_dispatch_keys: Any = None,
        storage_size: int | None = None,
    ) -> Any:
        """A `cls` tensor with metadata and no data: its size, strides, offset, dtype and
        device are the given ones, and reading its values fails as in torch.

        Torch: Tensor._make_wrapper_subclass (an "invalid python storage" of the bytes the
        geometry needs, or `storage_size`).
        Differs: dispatch_sizes_strides_policy, dispatch_device and dispatch_layout are
        accepted and ignored: metadata queries never reach `__torch_dispatch__` here.
        """
        _check_tensor_class(cls, TensorImpl)
        if not has_torch_dispatch(cls):
            raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
        size_t = tuple(int(n) for n in size)
        if strides is not None:
            stride_t = tuple(int(s) for s in strides)
        elif memory_format is not None:
            stride_t = format_strides(size_t, as_memory_format(memory_format) or contiguous_format)
        else:
            stride_t = geometry.contiguous_strides(size_t)
        offset = 0 if storage_offset is None else int(storage_offset)
        dtype_ = get_default_dtype() if dtype is None else dtype
        dev = as_device("cpu" if device is None else device)
        extent = geometry.storage_extent(size_t, stride_t, offset)
        elements = extent if storage_size is None else -(-int(storage_size) // dtype_.itemsize)
        storage = InvalidPythonStorage(None, elements, dtype_, dev, None)
        out = make_tensor(storage, size_t, stride_t, offset, dtype_, cls=cls)
        out._key_set |= _PYTHON_KEYS_RAW
        if requires_grad:
            set_requires_grad_for_factory(out)
        return out

    def as_subclass(self: Any, cls: Any) -> Any:
        """This tensor as an object of `cls`: an alias of it (shared storage, geometry,
        version counter), with `AliasBackward0` when it requires grad.

        Torch: Tensor.as_subclass (`self.alias()` with the Python keys excluded, wrapped
        in `cls`).
        """
        _check_tensor_class(cls, TensorImpl)
        with ExcludeDispatchKeyGuard(PYTHON_KEYS):
            aliased = aten.alias.default(self)
        return rewrap(aliased, cls)
