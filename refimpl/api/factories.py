"""Factory functions: `refimpl.tensor`, `zeros`, `arange`, `rand`, ... and `*_like`.

Torch: torch.tensor (torch/csrc/utils/tensor_new.cpp), TensorFactories.cpp,
RangeFactories.cpp, and the random factories over torch.Generator. Each resolves the target
device to a backend through `refimpl.config` and builds the array with that backend's `xp`.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from refimpl._base import dtypes as dt
from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl._base.promotion import default_complex_dtype, get_default_dtype, promote_types
from refimpl.api._args import sizes
from refimpl.api._autograd_methods import set_requires_grad_for_factory
from refimpl.api._call import Binding, call_packet, invalid_arguments, torch_function
from refimpl.core.backend import Array, Backend
from refimpl.core.config import config
from refimpl.core.storage import Storage
from refimpl.core.tensor import (
    TensorImpl,
    backend_dtype,
    empty_tensor,
    from_array,
    make_tensor,
)
from refimpl.dispatch.tls import AutoDispatchBelowADInplaceOrView
from refimpl.ops import aten, data

if TYPE_CHECKING:
    from refimpl.api.tensor import Tensor

_CPU = device("cpu")


def _target(dev: device | str | int | None) -> tuple[device, Backend | None]:
    """The device a factory makes its tensor on, and the backend serving it."""
    target = _CPU if dev is None else as_device(dev)
    if target.type == "meta":
        return target, None
    return target, config.backends.resolve(target.type)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        set_requires_grad_for_factory(t)
    return t


def _wrap(array: Array, dtype: DType, dev: device, backend: Backend) -> Tensor:
    out: Tensor = from_array(array, dtype, backend, dev)
    return out


def _scalar_kind_dtype(value: object) -> DType:
    # torch: the dtype a Python scalar infers (bool, int64, default float, default complex).
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, float):
        return get_default_dtype()
    if isinstance(value, complex):
        return default_complex_dtype()
    raise TypeError(f"refimpl: not a Python scalar: {type(value).__name__}")


_PYTHON_TYPES = {
    dt.Category.BOOL: bool,
    dt.Category.INTEGRAL: int,
    dt.Category.FLOATING: float,
    dt.Category.COMPLEX: complex,
}


# --- tensor(), as_tensor(), from_numpy() -----------------------------------------------


def _is_host_array(obj: object) -> bool:
    return (
        hasattr(obj, "__array__")
        or hasattr(obj, "__dlpack__")
        or hasattr(obj, "__array_interface__")
    )


# torch: MAX_DIMS in torch/csrc/utils/tensor_new.cpp, the deepest nesting compute_sizes takes.
_MAX_DIMS = 128


def _is_sequence(obj: object) -> bool:
    """Whether torch's PySequence_Check sees `obj` as a sequence: lists, tuples, ranges,
    strings and arrays with dims are; tensors, numpy scalars, dicts, sets and generators
    are not."""
    if isinstance(obj, (list, tuple, range, str, bytes)):
        return True
    if isinstance(obj, (TensorImpl, dict)):
        return False
    if _is_host_array(obj):
        return getattr(obj, "ndim", 0) > 0 or type(obj).__name__ == "ndarray"
    return isinstance(obj, Sequence)


def _compute_sizes(data_obj: object) -> tuple[int, ...]:
    """The shape of nested sequences, read along the first elements.

    Torch: compute_sizes in torch/csrc/utils/tensor_new.cpp (a string nests without end, so
    a list of strings fails here).
    """
    shape: list[int] = []
    seq = data_obj
    while _is_sequence(seq):
        length = len(seq)  # type: ignore[arg-type]  # a sequence
        shape.append(length)
        if len(shape) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if length == 0:
            break
        seq = seq[0]  # type: ignore[index]  # a sequence
    return tuple(shape)


def _infer_scalar_type(obj: object, backend: Backend) -> DType:
    """The dtype torch infers for `obj`: promoted over a sequence's items.

    Torch: infer_scalar_type in torch/csrc/utils/tensor_new.cpp. NumPy scalars and arrays keep
    their dtype (np.float64 included); a tensor gives its dtype; an empty sequence the
    default dtype.
    """
    if isinstance(obj, (bool, int, float, complex)) and type(obj).__module__ == "builtins":
        return _scalar_kind_dtype(obj)
    if isinstance(obj, TensorImpl):
        return obj._dtype
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_host_array(obj) or hasattr(obj, "dtype"):
        library = backend.dtype_of(obj)
        if library is not None:
            return library
    if isinstance(obj, (bool, int, float, complex)):
        return _scalar_kind_dtype(obj)
    if _is_sequence(obj):
        items = list(obj)  # type: ignore[call-overload]  # a sequence
        if not items:
            return get_default_dtype()
        inferred: DType | None = None
        for item in items:
            kind = _infer_scalar_type(item, backend)
            inferred = kind if inferred is None else promote_types(inferred, kind)
            if inferred is dt.complex128:
                break
        assert inferred is not None  # items is not empty
        return inferred
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _store_scalar(value: object, target: DType) -> Any:
    """A leaf as the Python value of a `target` element.

    Torch: store_scalar in torch/csrc/utils/tensor_new.cpp: integral and bool elements read
    a non-number through __index__, floating ones through __float__, complex ones through
    __complex__ (so a tensor of several elements fails there).
    """
    item = getattr(value, "item", None)
    if not isinstance(value, TensorImpl) and hasattr(value, "dtype") and item is not None:
        value = item()  # a NumPy scalar or 0-dim array: its Python number
    if isinstance(value, (bool, int, float, complex)):
        return _PYTHON_TYPES[target.category](value)
    category = target.category
    if category in (dt.Category.INTEGRAL, dt.Category.BOOL):
        return _PYTHON_TYPES[category](operator.index(value))  # type: ignore[arg-type]  # as torch
    if category is dt.Category.COMPLEX:
        return complex(value)  # type: ignore[call-overload]  # as torch: __complex__ or an error
    if isinstance(value, TensorImpl):
        return float(value)  # type: ignore[arg-type]  # Tensor has __float__
    raise TypeError(f"must be real number, not {type(value).__name__}")


def _leaves(data_obj: object, shape: tuple[int, ...]) -> list[Any]:
    """The elements of nested sequences of `shape`, in row-major order.

    Torch: recursive_store in torch/csrc/utils/tensor_new.cpp, with its length check.
    """
    leaves: list[Any] = []

    def walk(value: object, dim: int) -> None:
        if dim == len(shape):
            leaves.append(value)
            return
        if not _is_sequence(value):
            raise TypeError("not a sequence")
        seq = list(value)  # type: ignore[call-overload]  # a sequence
        if len(seq) != shape[dim]:
            raise ValueError(
                f"expected sequence of length {shape[dim]} at dim {dim} (got {len(seq)})"
            )
        for item in seq:
            walk(item, dim + 1)

    walk(data_obj, 0)
    return leaves


def tensor(
    data_obj: Any,
    *,
    dtype: DType | None = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor with a copy of `data` (nested sequences, scalars, arrays).

    Torch: torch.tensor. The dtype is inferred as torch infers it: bool, int64, the default
    float dtype, the default complex dtype, or the array's own dtype. The tensor is made
    without dispatching, then passed through aten.lift_fresh (what a TorchDispatchMode sees,
    and how FakeTensorMode turns it into a fake), then made to require grad.
    """
    made = _new_from_data(data_obj, dtype, device)
    lifted: Tensor = aten.lift_fresh.default(made)
    return _finish(lifted, requires_grad)


def _new_from_data(data_obj: Any, dtype: DType | None, device: device | str | int | None) -> Tensor:
    """Torch: internal_new_from_data (torch/csrc/utils/tensor_new.cpp)."""
    dev, backend = _target(device)
    if isinstance(data_obj, TensorImpl):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
            "requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        out: Tensor = data.to_copy(data_obj, dtype or data_obj._dtype, dev, backend)
        return out
    if isinstance(data_obj, str):
        raise TypeError(f"new(): invalid data type '{type(data_obj).__name__}'")
    if _is_host_array(data_obj) and not isinstance(data_obj, (list, tuple)):
        host_backend = backend or config.backends.resolve("cpu")
        array = host_backend.from_host(data_obj)
        source = host_backend.dtype_of(array)
        if source is None:
            raise TypeError(f"can't convert np.ndarray of type {getattr(array, 'dtype', '?')}")
        target = dtype or source
        if backend is None:
            made: Tensor = empty_tensor(tuple(array.shape), target, dev, None)
            return made
        xp = backend.xp
        array = data.cast_array(xp, array, source, target, backend)
        out = _wrap(xp.asarray(array, copy=True), target, dev, backend)
        return out
    # torch: internal_new_from_data reads the shape first, then infers the dtype.
    shape = _compute_sizes(data_obj)
    target = dtype or _infer_scalar_type(data_obj, backend or config.backends.resolve("cpu"))
    if backend is None:
        meta: Tensor = empty_tensor(shape, target, dev, None)
        return meta
    values = [_store_scalar(v, target) for v in _leaves(data_obj, shape)]
    xp = backend.xp
    array = xp.reshape(xp.asarray(values, dtype=backend_dtype(backend, target)), shape)
    return _wrap(array, target, dev, backend)


def as_tensor(
    data_obj: Any, dtype: DType | None = None, device: device | str | int | None = None
) -> Tensor:
    """`data` as a tensor, without a copy when it already is one of that dtype and device.

    Torch: torch.as_tensor.
    """
    if isinstance(data_obj, TensorImpl):
        if dtype is None and device is None:
            return data_obj  # type: ignore[return-value]  # every tensor is a refimpl.Tensor
        return data_obj.to(device=device, dtype=dtype)  # type: ignore[attr-defined,no-any-return]  # as above
    dev, backend = _target(device)
    if backend is not None and _is_host_array(data_obj) and dtype is None:
        return from_numpy(data_obj) if backend.name == "numpy" else tensor(data_obj, device=dev)
    return tensor(data_obj, dtype=dtype, device=dev)


def from_numpy(ndarray: Any) -> Tensor:
    """A CPU tensor over a NumPy array, with its strides; it shares memory on the NumPy backend.

    Torch: torch.from_numpy. On a CPU backend without strided views the values are copied.
    """
    if type(ndarray).__name__ != "ndarray" or not hasattr(ndarray, "__array_interface__"):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    itemsize = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
    if any(s % itemsize for s in ndarray.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the "
            "numpy array to reallocate the memory."
        )
    backend = config.backends.resolve("cpu")
    array = backend.from_host(ndarray)
    dtype = backend.dtype_of(array)
    if dtype is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype}. The only supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
        )
    return shared_cpu_tensor(array, backend, dtype)


def shared_cpu_tensor(array: Array, backend: Backend, dtype: DType) -> Tensor:
    """A CPU tensor over `array`'s memory, with its strides, where the backend can view it
    (else over the array as the backend gives it). Torch: tensor_from_numpy and asarray's
    buffer path: the storage is memory torch does not own, so it cannot grow."""
    source = backend.strided_source(array)
    out: Tensor
    if source is None:
        out = _wrap(array, dtype, _CPU, backend)
    else:
        flat, strides = source
        storage = Storage(flat, int(flat.shape[0]), dtype, _CPU, backend)
        out = make_tensor(storage, tuple(array.shape), strides, 0, dtype)
    out._storage.resizable = False
    return out


# --- filled factories: each one aten call, as torch's bindings make ------------------------


def _aten_device(dev: device | str | int | None) -> device | None:
    return None if dev is None else as_device(dev)


def _options(name: str, dtype: object, dev: object) -> dict[str, Any]:
    """The `dtype` and `device` keywords of a factory, checked as torch's argument parser
    checks them (so the aten call needs no binding: OpOverload.call_validated)."""
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    if dev is None:
        return {"dtype": dtype, "device": None}
    if not isinstance(dev, (device, str, int)) or isinstance(dev, bool):
        raise TypeError(
            f"{name}(): argument 'device' must be torch.device, not {type(dev).__name__}"
        )
    return {"dtype": dtype, "device": as_device(dev)}


def _size_argument(args: tuple[Any, ...], name: str) -> list[int]:
    """The `*size` of a factory; torch's parser requires at least one value."""
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return list(sizes(args, name))


def _scalar_argument(value: Any) -> Any:
    # torch: a Scalar argument takes a Python number, a NumPy scalar or a one-element tensor
    # and reads its Python value. A NumPy bool is neither a Python bool nor an integer to
    # torch's argument parser, which reads it as a double (THPUtils_unpackDouble).
    if isinstance(value, TensorImpl):
        return value.item()
    if isinstance(value, (bool, int, float, complex)):
        return value
    item = getattr(value, "item", None)
    if item is None:
        return value
    number = item()
    return float(number) if isinstance(number, bool) else number


def zeros(
    *size: Any,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of zeros. Torch: torch.zeros (aten.zeros, or aten.zeros.out)."""
    # _size_argument, _options and _finish, written out for the common call (zeros(8)).
    if len(size) == 1 and type(size[0]) is int:
        shape = [size[0]]  # zeros(8): what sizes() gives, without its call
    else:
        shape = list(sizes(size, "zeros")) if size else _size_argument(size, "zeros")
    result: Tensor
    if out is not None:
        result = aten.zeros.out(shape, out=out)
        return result
    options = None if dtype is None and device is None else _options("zeros", dtype, device)
    result = aten.zeros.default.call_validated((shape,), options)
    if requires_grad:
        set_requires_grad_for_factory(result)
    return result


def ones(
    *size: Any,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ones. Torch: torch.ones (aten.ones, or aten.ones.out)."""
    # _size_argument, _options and _finish, written out for the common call (zeros(8)).
    if len(size) == 1 and type(size[0]) is int:
        shape = [size[0]]  # ones(8): what sizes() gives, without its call
    else:
        shape = list(sizes(size, "ones")) if size else _size_argument(size, "ones")
    result: Tensor
    if out is not None:
        result = aten.ones.out(shape, out=out)
        return result
    options = None if dtype is None and device is None else _options("ones", dtype, device)
    result = aten.ones.default.call_validated((shape,), options)
    if requires_grad:
        set_requires_grad_for_factory(result)
    return result


def empty(
    *size: Any,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor with unspecified values (refimpl: zeros). Torch: torch.empty
    (aten.empty.memory_format, or aten.empty.out, which resizes `out`)."""
    shape = _size_argument(size, "empty")
    result: Tensor
    if out is not None:
        if memory_format is not None:
            # torch: the binding's check in python_torch_functions (dispatch_empty_out).
            raise RuntimeError(
                "'memory_format' argument is incompatible with 'out' tensor argument"
            )
        result = aten.empty.out(shape, memory_format=memory_format, out=out)
        return result
    options = _options("empty", dtype, device)
    result = aten.empty.memory_format(shape, memory_format=memory_format, **options)
    return _finish(result, requires_grad)


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor filled with `fill_value`. Torch: torch.full (aten.full, or aten.full.out).

    The dtype follows the value's kind (bool, int64, the default float or complex dtype).
    """
    shape = list(sizes((size,), "full"))
    value = _scalar_argument(fill_value)
    result: Tensor
    if out is not None:
        result = aten.full.out(shape, value, out=out)
        return result
    result = aten.full.default(shape, value, **_options("full", dtype, device))
    return _finish(result, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A 2-D tensor with ones on the diagonal. Torch: torch.eye (aten.eye, eye.m, eye.out,
    eye.m_out)."""
    result: Tensor
    if out is not None:
        result = aten.eye.out(n, out=out) if m is None else aten.eye.m_out(n, m, out=out)
        return result
    dev = _aten_device(device)
    if m is None:
        result = aten.eye.default(n, dtype=dtype, device=dev)
    else:
        result = aten.eye.m(n, m, dtype=dtype, device=dev)
    return _finish(result, requires_grad)


def scalar_tensor(
    s: Any,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A 0-dim tensor holding `s`, in the default dtype unless told (also for an int or a
    bool). Torch: torch.scalar_tensor (aten.scalar_tensor)."""
    result: Tensor = aten.scalar_tensor.default(
        _scalar_argument(s), dtype=dtype, device=_aten_device(device)
    )
    return _finish(result, requires_grad)


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor (refimpl: zeros) with the given strides over a storage just
    large enough. Torch: torch.empty_strided (aten.empty_strided)."""
    result: Tensor = aten.empty_strided.default(
        list(size), list(stride), dtype=dtype, device=_aten_device(device)
    )
    return _finish(result, requires_grad)


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor laid out in memory in the dim order `physical_layout`.

    Torch: torch.empty_permuted (aten.empty_permuted).
    """
    result: Tensor = aten.empty_permuted.default(
        list(size), list(physical_layout), dtype=dtype, device=_aten_device(device)
    )
    return _finish(result, requires_grad)


# --- resize_as_, as_strided_: in-place geometry torch also exposes as torch.* functions -----

resize_as_ = torch_function("resize_as_")
as_strided_ = torch_function("as_strided_")


# --- ranges ----------------------------------------------------------------------------------


def _range_argument(value: Any) -> Any:
    return value.item() if isinstance(value, TensorImpl) else value


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from `start` to `end` (exclusive) by `step`. Torch: torch.arange (aten.arange,
    arange.start, arange.start_step, and their out= forms; ops/ranges.py).

    The dtype is int64 unless an argument is a float (then the default dtype). The size and
    the values follow torch's CPU kernel (see ops/_ranges.py): an integer dtype truncates
    start and step first, so `arange(0, 2.5, 0.5, dtype=int32)` is five zeros.
    """
    one_argument = end is None
    if one_argument:
        start, end = 0, start
    start, end, step = (_range_argument(v) for v in (start, end, step))
    result: Tensor
    if out is not None:
        if one_argument:
            result = aten.arange.out(end, out=out)
        else:
            result = aten.arange.start_out(start, end, step, out=out)
        return result
    options = _options("arange", dtype, device)
    if one_argument:
        result = aten.arange.default.call_validated((end,), options)
    elif step == 1 and type(step) is int:
        result = aten.arange.start.call_validated((start, end), options)
    else:
        result = aten.arange.start_step.call_validated((start, end, step), options)
    return _finish(result, requires_grad)


def _space(
    binding: Binding,
    args: tuple[Any, ...],
    out: Tensor | None,
    dtype: DType | None,
    layout: Any,
    device: device | str | int | None,
    requires_grad: bool,
) -> Tensor:
    """torch.linspace / torch.logspace: the aten overload for the arguments' kinds (0-dim
    tensors or numbers, ops/ranges.py), or its out= form; torch's argument errors."""
    if out is not None:
        if dtype is not None and dtype is not out.dtype:
            # torch: check_out_type_matches in the Python binding.
            raise RuntimeError(
                f"dtype {dtype.scalar_name} does not match dtype of out parameter "
                f"({out.dtype.scalar_name})"
            )
        result: Tensor = call_packet(binding, args, {"out": out})
        return _finish(result, requires_grad)
    given = (("dtype", dtype), ("layout", layout), ("device", device))
    kwargs = {name: value for name, value in given if value is not None}
    if dtype is not None and not isinstance(dtype, DType):
        raise invalid_arguments(binding, args, kwargs)
    if "device" in kwargs and isinstance(kwargs["device"], (str, int)):
        kwargs["device"] = as_device(kwargs["device"])
    # torch: the factory functions of the Python bindings (torch::linspace in
    # variable_factories.h) run below autograd; the result only takes `requires_grad`.
    with AutoDispatchBelowADInplaceOrView():
        result = call_packet(binding, args, kwargs)
    return _finish(result, requires_grad)


_LINSPACE = Binding("linspace", "torch", aten.linspace)
_LOGSPACE = Binding("logspace", "torch", aten.logspace)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` inclusive. Torch: torch.linspace
    (aten.linspace and its Tensor overloads for 0-dim tensor bounds; ops/ranges.py).

    torch: the CPU kernel computes the first half forwards from `start` and the second half
    backwards from `end` (see ops/_ranges.py).
    """
    return _space(_LINSPACE, (start, end, steps), out, dtype, layout, device, requires_grad)


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """`base ** linspace(start, end, steps)`. Torch: torch.logspace (aten.logspace and its
    Tensor overloads; ops/ranges.py)."""
    return _space(_LOGSPACE, (start, end, steps, base), out, dtype, layout, device, requires_grad)


# --- *_like ----------------------------------------------------------------------------------


def like_target(
    input: TensorImpl, device: device | str | int | None
) -> tuple[device, Backend | None]:
    """Where a `*_like` result lives: `input`'s device and backend unless another device is
    asked for (a tensor derived from another keeps its backend)."""
    target = input._storage.device if device is None else as_device(device)
    if target == input._storage.device:
        return target, input._storage.backend
    return _target(target)


def zeros_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Zeros with `input`'s shape, dtype and device. Torch: torch.zeros_like."""
    result: Tensor = aten.zeros_like.default(
        input, dtype=dtype, device=_aten_device(device), memory_format=memory_format
    )
    return _finish(result, requires_grad)


def ones_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Ones with `input`'s shape, dtype and device. Torch: torch.ones_like."""
    result: Tensor = aten.ones_like.default(
        input, dtype=dtype, device=_aten_device(device), memory_format=memory_format
    )
    return _finish(result, requires_grad)


def empty_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """An uninitialised tensor like `input` (refimpl: zeros). Torch: torch.empty_like."""
    result: Tensor = aten.empty_like.default(
        input, dtype=dtype, device=_aten_device(device), memory_format=memory_format
    )
    return _finish(result, requires_grad)


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """`fill_value` with `input`'s shape, dtype and device. Torch: torch.full_like."""
    result: Tensor = aten.full_like.default(
        input,
        _scalar_argument(fill_value),
        dtype=dtype,
        device=_aten_device(device),
        memory_format=memory_format,
    )
    return _finish(result, requires_grad)
