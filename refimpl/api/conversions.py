"""Tensors from other objects, sharing their memory where torch does: torch.asarray,
frombuffer and from_dlpack.

Torch: asarray and tensor_frombuffer in torch/csrc/utils/tensor_new.cpp, tensor_from_numpy in
torch/csrc/utils/tensor_numpy.cpp, and torch.utils.dlpack.from_dlpack. Memory is shared on a
backend that can view host memory (NumPy); another CPU backend gets a copy (see from_numpy in
api/factories.py).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl._base.promotion import get_default_dtype
from refimpl.api._autograd_methods import set_requires_grad_for_factory
from refimpl.api.factories import _new_from_data, from_numpy, shared_cpu_tensor
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, backend_dtype
from refimpl.ops import aten, data

if TYPE_CHECKING:
    from refimpl.api.tensor import Tensor

__all__ = ["asarray", "from_dlpack", "frombuffer"]

_NOT_WRITABLE_BUFFER: Final = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program."
)
_NOT_WRITABLE_ARRAY: Final = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable "
    "tensors. This means writing to this tensor will result in undefined behavior. You may "
    "want to copy the array to protect its data or make it writable before converting it to "
    "a tensor. This type of warning will be suppressed for the rest of this program."
)
_UNSPECIFIED_REQUIRES_GRAD: Final = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning."
)


# --- frombuffer --------------------------------------------------------------------------------


def _buffer_tensor(buffer: Any, dtype: DType, count: int, offset: int) -> Tensor:
    """Torch: tensor_frombuffer: the buffer's bytes from `offset`, `count` elements of `dtype`
    (all that fit when -1), shared with the buffer; its checks in torch's order."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly and should_warn_once("frombuffer"):
        # Differs: torch appends " (Triggered internally at ...tensor_new.cpp...)".
        warnings.warn(_NOT_WRITABLE_BUFFER, UserWarning, stacklevel=3)
    length = view.nbytes
    size = dtype.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not (0 <= offset < length):
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if not (count > 0 or (length - offset) % size == 0):
        raise ValueError(
            f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
            f"multiple of element size ({size})"
        )
    actual = (length - offset) // size if count < 0 else count
    if offset + actual * size > length:
        raise ValueError(
            f"requested buffer length ({actual} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    backend = config.backends.resolve("cpu")
    raw = view.cast("B")[offset : offset + actual * size]
    if backend.supports_bitcast:
        array = backend.bitcast(backend.from_host(raw), backend_dtype(backend, dtype))
    else:
        # A backend that cannot reinterpret bytes reads the buffer through a typed view (a
        # copy); dtypes without a buffer format (complex, bfloat16) are refused.
        form = _BUFFER_FORMATS.get(dtype.name)
        if form is None:
            raise NotImplementedError(
                f"refimpl: the '{backend.name}' backend cannot read a buffer as "
                f"{dtype.scalar_name} (it has no bitcast)"
            )
        array = backend.from_host(raw.cast(form))  # type: ignore[call-overload]  # a format of the table below
    return shared_cpu_tensor(array, backend, dtype)


# The struct formats memoryview.cast reads each dtype's elements with.
_BUFFER_FORMATS: Final = {
    "bool": "?",
    "uint8": "B",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float16": "e",
    "float32": "f",
    "float64": "d",
}


def frombuffer(
    buffer: Any,
    *,
    dtype: DType,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Tensor:
    """A 1-D CPU tensor over the bytes of an object with the buffer protocol, sharing them.

    Torch: torch.frombuffer (tensor_frombuffer). A read-only buffer warns once (torch lets the
    tensor write to it; refimpl's NumPy backend refuses such writes).
    """
    if not isinstance(dtype, DType):
        raise TypeError(
            f"frombuffer(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    result = _buffer_tensor(buffer, dtype, count, offset)
    if requires_grad:
        set_requires_grad_for_factory(result)
    return result


# --- from_dlpack -------------------------------------------------------------------------------

# torch: DLDeviceType kDLCPU.
_DLPACK_CPU: Final = 1


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing the memory of an object with `__dlpack__` (a CPU array).

    Torch: torch.utils.dlpack.from_dlpack. A refimpl Tensor gives a new tensor over its storage
    (not a view, with its own version counter), as torch's round trip through a capsule does.
    """
    if isinstance(ext_tensor, TensorImpl):
        out: Tensor = data.alias_detached(ext_tensor, share_version=False)
        return out
    if not hasattr(ext_tensor, "__dlpack__"):
        # torch: anything else is taken for a DLPack capsule, which this is not.
        raise RuntimeError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once."
        )
    device_type = (
        ext_tensor.__dlpack_device__()[0]
        if hasattr(ext_tensor, "__dlpack_device__")
        else _DLPACK_CPU
    )
    if device_type != _DLPACK_CPU:
        # Differs: refimpl imports CPU memory only (a CUDA backend's arrays go through cupy).
        raise RuntimeError(f"refimpl: from_dlpack of a DLPack device type {device_type} (CPU only)")
    backend = config.backends.resolve("cpu")
    array = backend.xp.from_dlpack(ext_tensor)
    dtype = backend.dtype_of(array)
    if dtype is None:
        raise RuntimeError(f"Unsupported dtype in DLPack: {getattr(array, 'dtype', '?')}")
    return shared_cpu_tensor(array, backend, dtype)


# --- asarray -----------------------------------------------------------------------------------


def _is_numpy_array(obj: object) -> bool:
    return type(obj).__name__ == "ndarray" and hasattr(obj, "__array_interface__")


def _is_numpy_scalar(obj: object) -> bool:
    return type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and not _is_numpy_array(obj)


def _has_buffer(obj: object) -> bool:
    try:
        memoryview(obj)  # type: ignore[arg-type]  # probing the buffer protocol
    except TypeError:
        return False
    return True


def _aliasable(obj: Any, dtype: DType | None, copy: bool | None) -> tuple[Tensor | None, bool]:
    """The tensor `obj` already is or views (a Tensor, a NumPy array or scalar, a DLPack or
    buffer object), and whether it is a non-writable NumPy array. Torch: asarray's cases 1-4."""
    if isinstance(obj, TensorImpl):
        return obj, False  # type: ignore[return-value]  # every tensor is a refimpl.Tensor
    if _is_numpy_array(obj):
        return aten.lift_fresh.default(from_numpy(obj)), not obj.flags.writeable
    if _is_numpy_scalar(obj):
        if copy is False:
            raise RuntimeError(
                "can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. "
            )
        backend = config.backends.resolve("cpu")
        array = backend.from_host(obj)
        return aten.lift_fresh.default(shared_cpu_tensor(array, backend, backend.dtype_of(array))), False  # type: ignore[arg-type]  # a NumPy scalar's dtype is one refimpl has
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj), False
    if _has_buffer(obj):
        return _buffer_tensor(obj, dtype or get_default_dtype(), -1, 0), False
    return None, False


def asarray(
    obj: Any,
    *,
    dtype: DType | None = None,
    device: device | str | int | None = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Tensor:
    """`obj` as a tensor, sharing its memory unless a copy is asked for (copy=True) or needed
    for `dtype` or `device` (copy=None); copy=False refuses to copy.

    Torch: torch.asarray (asarray in tensor_new.cpp). Nested sequences and scalars are read as
    torch.tensor reads them (they cannot be shared).
    """
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"asarray(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(): argument 'copy' must be bool, not {type(copy).__name__}")
    target = None if device is None else as_device(device)
    tensor, read_only = _aliasable(obj, dtype, copy)
    if tensor is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        made: Tensor = aten.lift_fresh.default(_new_from_data(obj, dtype, target))
        if requires_grad:
            set_requires_grad_for_factory(made)
        return made
    wrong_device = target is not None and target != tensor.device
    wrong_dtype = dtype is not None and dtype is not tensor.dtype
    if copy is True or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            tensor = tensor.to(target or tensor.device, dtype or tensor.dtype, copy=bool(copy))
        else:
            tensor = tensor.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{tensor.device}' to '{target}'.")
        if wrong_dtype:
            assert dtype is not None  # wrong_dtype says so
            raise ValueError(
                f"can't alias tensor with dtype '{tensor.dtype.scalar_name}' into dtype "
                f"'{dtype.scalar_name}'."
            )
        if read_only and should_warn_once("asarray_numpy"):
            warnings.warn(_NOT_WRITABLE_ARRAY, UserWarning, stacklevel=2)
    return _with_requires_grad(tensor, requires_grad)


def _with_requires_grad(tensor: Tensor, requires_grad: bool | None) -> Tensor:
    """Torch: asarray's last step. Unspecified: the tensor keeps its flag (with a warning when
    it requires grad); False: a leaf stops requiring grad, a non-leaf is detached; True: a
    leaf starts requiring grad."""
    if requires_grad is None:
        if tensor.requires_grad:
            # Differs: torch appends " (Triggered internally at ...tensor_new.cpp...)".
            warnings.warn(_UNSPECIFIED_REQUIRES_GRAD, UserWarning, stacklevel=3)
        return tensor
    if not requires_grad:
        if tensor.grad_fn is not None:
            detached: Tensor = tensor.detach()
            return detached
        if tensor.requires_grad:
            tensor.requires_grad_(False)
        return tensor
    if not tensor.requires_grad:
        set_requires_grad_for_factory(tensor)
    return tensor
