"""Tensor.new, the legacy constructor: which of its argument forms a call is, and the tensor
each makes.

Torch: legacy_tensor_new / legacy_tensor_generic_ctor_new in torch/csrc/utils/tensor_new.cpp:
(*, device) an empty tensor, (Storage) a tensor over it, (Tensor other) an alias of a tensor
of the same type, (sizes, *, device) an uninitialised tensor, (data, *, device) a copy of
sequence data, all of the calling tensor's dtype and device type.
"""

from __future__ import annotations

from typing import Any

from refimpl._base.device import as_device
from refimpl._base.dtypes import DType
from refimpl._base.size import Size
from refimpl.api import factories
from refimpl.core.storage import Storage
from refimpl.core.tensor import TensorImpl
from refimpl.ops import aten
from refimpl.ops.selection import type_meta_name


def legacy_new(self: TensorImpl, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Torch: legacy_tensor_new / legacy_tensor_generic_ctor_new in tensor_new.cpp."""
    options = dict(kwargs)
    target = options.pop("device", None)
    size_keyword = options.pop("size", None) if not args else None
    if options:
        raise _new_invalid(args, kwargs)
    dev = self._storage.device
    if target is not None:
        wanted = as_device(target)
        if wanted.type != dev.type:
            raise RuntimeError(
                f"legacy constructor expects device type: {dev.type} but device type: "
                f"{wanted.type} was passed"
            )
        dev = wanted
    if size_keyword is not None:
        return aten.empty.memory_format(list(size_keyword), dtype=self._dtype, device=dev)
    if not args:
        return aten.empty.memory_format([0], dtype=self._dtype, device=dev)
    first = args[0]
    if len(args) == 1 and isinstance(first, Storage):
        if target is not None:
            raise _new_invalid(args, kwargs)
        out = aten.empty.memory_format([0], dtype=self._dtype, device=dev)
        return aten.set_.source_Storage(out, first)
    if len(args) == 1 and isinstance(first, TensorImpl):
        if target is not None:
            raise _new_invalid(args, kwargs)
        if first._dtype is not self._dtype or first._storage.device.type != dev.type:
            raise TypeError(
                f"expected {_options_text(self._dtype, dev.type)} (got "
                f"{_options_text(first._dtype, first._storage.device.type)})"
            )
        return aten.alias.default(first)
    if len(args) == 1 and isinstance(first, (list, tuple)) and not _is_size(first):
        return factories.tensor(first, dtype=self._dtype, device=dev)
    if len(args) == 1 and _is_size(first):
        sizes = list(first)
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        sizes = list(args)
    elif len(args) == 1 and isinstance(first, (float, complex, bool)):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    elif len(args) == 1 and not isinstance(first, (TensorImpl, Storage)):
        raise TypeError(f"new(): invalid data type '{type(first).__name__}'")
    elif isinstance(first, int) and not isinstance(first, bool):
        bad = next(i for i, a in enumerate(args) if not isinstance(a, int) or isinstance(a, bool))
        raise TypeError(
            f"new(): argument 'size' failed to unpack the object at pos {bad + 1} with error "
            f'"type must be tuple of ints,but got {type(args[bad]).__name__}"'
        )
    else:
        raise _new_invalid(args, kwargs)
    return aten.empty.memory_format(sizes, dtype=self._dtype, device=dev)


def _is_size(value: object) -> bool:
    # torch: a torch.Size is sizes; any other sequence (a tuple included) is data.
    return isinstance(value, Size)


def _options_text(dtype: DType, device_type: str) -> str:
    # torch: operator<< of TensorOptions, as check_base_legacy_new prints it.
    return (
        f"TensorOptions(dtype={type_meta_name(dtype)}, device={device_type}, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


def _new_invalid(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    # torch: the argument parser's message over legacy_tensor_new's signatures.
    def type_name(value: object) -> str:
        if isinstance(value, TensorImpl):
            return "Tensor"
        if isinstance(value, Storage):
            return "torch.storage.UntypedStorage"
        if isinstance(value, DType):
            return "torch.dtype"
        return type(value).__name__

    got = ", ".join(
        [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    )
    return TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n"
        " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n"
    )
