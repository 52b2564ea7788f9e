"""The factory aten ops: empty, zeros, ones, full, eye, empty_strided, empty_permuted, and
the new_* ops that take their defaults from a tensor, with their out= forms.

Torch: the factories of aten/src/ATen/native/TensorFactories.cpp. Every refimpl factory of
the torch API calls one of these, so a TorchDispatchMode sees the aten call torch makes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base import promotion
from refimpl._base.context import CONTEXT
from refimpl._base.device import device
from refimpl._base.dtypes import Category, DType
from refimpl._base.finfo import iinfo
from refimpl._base.keys import DispatchKey
from refimpl._base.memory_format import as_memory_format, contiguous_format, preserve_format
from refimpl._base.promotion import OperandKind, get_default_dtype, result_type_of
from refimpl._base.scalars import Scalar, fill_scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Backend
from refimpl.core.config import config
from refimpl.core.tensor import (
    TensorImpl,
    backend_dtype,
    empty_strided_tensor,
    empty_tensor,
    resize_for_output,
    result_maker,
    tensor_over,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._outputs import warn_resize
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
_CPU: Final = device("cpu")
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)


# --- factories ---------------------------------------------------------------------------
# Calls without tensor arguments land on the Undefined slot. torch registers these
# factories under BackendSelect (which picks the backend from `device`) plus backend keys;
# refimpl registers CompositeExplicitAutograd kernels, which fill the Undefined slot, and
# picks the backend from `device` in the kernel. A new tensor starts at version 0; an out=
# form is one in-place write of `out` (one version bump, as torch's ADInplaceOrView does).


def _factory_target(dev: device | None) -> tuple[device, Backend | None]:
    target = _CPU if dev is None else dev
    kind = target._type  # target.type, without the property's call
    return target, None if kind == "meta" else config.backends.resolve(kind)


def _new_target(self: TensorImpl, dev: device | None) -> tuple[device, Backend | None]:
    # A tensor made from another keeps its backend on its device (as like.py's _like does).
    if dev is None or dev == self._storage.device:
        return self._storage.device, self._storage.backend
    return _factory_target(dev)


def _check_sizes(size: list[int]) -> tuple[int, ...]:
    # torch: check_size_nonnegative in aten/src/ATen/EmptyTensor.cpp.
    for n in size:
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: "
                f"[{', '.join(str(m) for m in size)}]"
            )
    return tuple(size)


# Note [Filled factories]: what a filled factory's result depends on besides its value (its
# shape, dtype, backend and device) gives its library dtype and its result maker (strides,
# key set, metadata token: core/tensor.py's result_maker), decided once per combination.
# The library makes the storage's flat array directly (a tensor's array is always read as a
# view of its flat storage: core/tensor.py's array_of).
_FILLED: dict[tuple[object, ...], tuple[tuple[int], Any, Callable[[Any], Any]]] = {}


def _filled(
    size: list[int], value: Scalar, dtype: DType, target: device, backend: Backend | None
) -> Any:
    """A new contiguous tensor of `value`: one array of the library, no fill afterwards."""
    shape = tuple(size)
    if backend is None:
        if shape and min(shape) < 0:
            _check_sizes(size)  # raises torch's error
        fill_scalar(value, dtype, geometry.numel(shape))  # its errors (overflow) still apply
        return tensor_over(None, shape, geometry.contiguous_strides(shape), dtype, target, None)
    key = (shape, dtype, backend, target._type, target._index)
    found = _FILLED.get(key)
    if found is None:
        # A shape is checked before it is remembered (so a remembered one is valid), and
        # backend_dtype raises the missing-dtype error, both before any conversion's error.
        if shape and min(shape) < 0:
            _check_sizes(size)  # raises torch's error
        array_dtype = backend_dtype(backend, dtype)
        strides = geometry.contiguous_strides(shape)
        make = result_maker(shape, strides, dtype, target, backend, flat=True)
        if len(_FILLED) > 1024:
            _FILLED.clear()
        found = _FILLED[key] = ((geometry.numel(shape),), array_dtype, make)
    flat_shape, array_dtype, make = found
    xp = backend.xp
    kind = type(value)
    if kind is int and value == 0:
        array = xp.zeros(flat_shape, dtype=array_dtype)  # zeros, ones: no conversion to check
    elif kind is int and value == 1:
        array = xp.ones(flat_shape, dtype=array_dtype)
    else:
        converted = fill_scalar(value, dtype, flat_shape[0])
        array = xp.full(flat_shape, converted, dtype=array_dtype)
    return make(array)


def _resize_like_resize_(out: TensorImpl, size: tuple[int, ...]) -> None:
    # torch: the out= kernels of full, zeros, ones and eye call result.resize_(size), which
    # keeps the strides of an `out` of the right sizes and warns about nothing.
    if size and min(size) < 0:
        # torch: resize_'s computeStorageNbytesContiguous multiplies as unsigned numbers.
        raise RuntimeError("numel: integer multiplication overflow")
    if out._size != size:
        resize_for_output(out, size, geometry.contiguous_strides(size))


def _write_out(out: TensorImpl, value: Scalar) -> Any:
    backend = out._storage.backend
    converted = fill_scalar(value, out._dtype, geometry.numel(out._size))
    if backend is not None:
        xp = backend.xp
        write_array(out, xp.full(out._size, converted, dtype=backend_dtype(backend, out._dtype)))
    return out


def _generated_out(out: TensorImpl, result: TensorImpl) -> Any:
    """Torch: the out= form generated for a functional op (resize_out_helper, then a copy):
    `out` resized (with resize_output's warning) and given `result`'s values."""
    if out._size != result._size:
        warn_resize(out, result._size)
        resize_for_output(out, result._size, geometry.contiguous_strides(result._size))
    return data.copy_(out, result)


def fill_uninitialized(t: TensorImpl) -> TensorImpl:
    """A new tensor's unspecified values made NaN (floating, complex), the largest integer, or
    True, while deterministic algorithms are on and fill_uninitialized_memory is set.

    Torch: fill_empty_deterministic_ in TensorFactories.cpp, called by empty_cpu and
    empty_strided_cpu when Context::deterministicFillUninitializedMemory(); the fill is inside
    the kernel, so neither autograd nor a mode sees it and the version stays 0.
    """
    if not (CONTEXT.deterministic and CONTEXT.fill_uninitialized_memory):
        return t
    if t._storage.backend is None or geometry.numel(t._size) == 0:
        return t
    category = t._dtype.category
    value: Scalar
    if category in (Category.FLOATING, Category.COMPLEX):
        value = float("nan")
    elif category is Category.BOOL:
        value = True
    else:
        value = iinfo(t._dtype).max
    data.fill_(t, value)
    t._version_counter.version = 0
    return t


empty = defop(
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)


@empty.kernel(CEA)
def empty_kernel(
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
    memory_format: Any,
) -> Any:
    """A tensor with unspecified values (refimpl: zeros; see fill_uninitialized), contiguous
    unless a memory format says otherwise. Torch: empty in TensorFactories.cpp (empty_cpu)."""
    target, backend = _factory_target(device)
    dtype = get_default_dtype() if dtype is None else dtype
    fmt = as_memory_format(memory_format)
    if fmt is preserve_format:
        # torch: the message streams c10::MemoryFormat::Preserve.
        raise RuntimeError("unsupported memory format Preserve")
    if fmt is None or fmt is contiguous_format:
        return fill_uninitialized(empty_tensor(size, dtype, target, backend))
    shape = _check_sizes(size)
    strides = data.format_strides(shape, fmt)
    return fill_uninitialized(empty_strided_tensor(shape, strides, dtype, target, backend))


empty_out = defop(
    "empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"
)


@empty_out.decomposition
def empty_out_decomposition(size: list[int], *, memory_format: Any, out: TensorImpl) -> Any:
    """`out` resized to `size`. Torch: empty_out in TensorFactories.cpp (resize_)."""
    _check_sizes(size)
    return aten.resize_.default(out, size, memory_format=memory_format)


zeros = defop(
    "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)


@zeros.kernel(CEA)
def zeros_kernel(
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """A tensor of zeros. Torch: zeros in TensorFactories.cpp."""
    if size and min(size) < 0:
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    target, backend = _factory_target(device)
    return _filled(size, 0, get_default_dtype() if dtype is None else dtype, target, backend)


zeros_out = defop("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")


@zeros_out.kernel(CEA)
def zeros_out_kernel(size: list[int], *, out: TensorImpl) -> Any:
    """Torch: zeros_out in TensorFactories.cpp (resize_, then zero_)."""
    _resize_like_resize_(out, tuple(size))
    return _write_out(out, 0)


ones = defop(
    "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)


@ones.kernel(CEA)
def ones_kernel(
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """A tensor of ones. Torch: ones in TensorFactories.cpp."""
    target, backend = _factory_target(device)
    return _filled(size, 1, get_default_dtype() if dtype is None else dtype, target, backend)


ones_out = defop("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")


@ones_out.kernel(CEA)
def ones_out_kernel(size: list[int], *, out: TensorImpl) -> Any:
    """Torch: ones_out in TensorFactories.cpp (resize_, then fill_ with 1)."""
    _resize_like_resize_(out, tuple(size))
    return _write_out(out, 1)


full = defop(
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@full.kernel(CEA)
def full_kernel(
    size: list[int],
    fill_value: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """A tensor filled with `fill_value`; its dtype follows the value's kind by default.

    Torch: full in TensorFactories.cpp (infer_full_options: bool, int64, default float or
    complex).
    """
    if dtype is None:
        dtype = result_type_of(((promotion.scalar_dtype(fill_value), OperandKind.WRAPPED),))
    target, backend = _factory_target(device)
    return _filled(size, fill_value, dtype, target, backend)


full_out = defop("full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)")


@full_out.kernel(CEA)
def full_out_kernel(size: list[int], fill_value: Scalar, *, out: TensorImpl) -> Any:
    """`out` resized and filled; its dtype is kept. Torch: full_out in TensorFactories.cpp."""
    _resize_like_resize_(out, tuple(size))
    return _write_out(out, fill_value)


# --- eye ---------------------------------------------------------------------------------


def _check_eye(n: int, m: int) -> None:
    # torch: eye_out_cpu in TensorFactories.cpp.
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")


def _eye_array(backend: Backend, n: int, m: int, dtype: DType) -> Any:
    return backend.xp.eye(n, m, dtype=backend_dtype(backend, dtype))


eye = defop(
    "eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)


@eye.kernel(CEA)
def eye_kernel(
    n: int, *, dtype: DType | None, layout: Any, device: device | None, pin_memory: bool | None
) -> Any:
    """The n x n identity. Torch: eye in TensorFactories.cpp (eye.m with m = n)."""
    return eye_m_kernel(n, n, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


eye_m = defop(
    "eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@eye_m.kernel(CEA)
def eye_m_kernel(
    n: int,
    m: int,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """n x m, ones on the diagonal. Torch: eye in TensorFactories.cpp (empty, then eye_out)."""
    _check_eye(n, m)
    dtype = get_default_dtype() if dtype is None else dtype
    target, backend = _factory_target(device)
    array = None if backend is None else _eye_array(backend, n, m, dtype)
    return tensor_over(array, (n, m), geometry.contiguous_strides((n, m)), dtype, target, backend)


def eye_out_kernel(n: int, *, out: TensorImpl) -> Any:
    """Torch: eye_out_cpu (n) in TensorFactories.cpp, which is eye_out_cpu(n, n)."""
    return eye_m_out_kernel(n, n, out=out)


def eye_m_out_kernel(n: int, m: int, *, out: TensorImpl) -> Any:
    """`out` resized to n x m (resize_: no warning) and set to the identity; its dtype kept.

    Torch: eye_out_cpu in TensorFactories.cpp.
    """
    _check_eye(n, m)
    _resize_like_resize_(out, (n, m))
    backend = out._storage.backend
    if backend is not None:
        write_array(out, _eye_array(backend, n, m, out._dtype))
    return out


# torch: eye.out and eye.m_out have CPU, CUDA and Meta kernels; one body serves all three.
eye_out = defop("eye.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
eye_m_out = defop("eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)")
for _key in _BACKEND_KEYS:
    eye_out.kernel(_key)(eye_out_kernel)
    eye_m_out.kernel(_key)(eye_m_out_kernel)


# --- empty_strided, new_empty_strided, empty_permuted ---------------------------------------

empty_strided = defop(
    "empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


def make_empty_strided(
    size: list[int], stride: list[int], dtype: DType, target: device, backend: Backend | None
) -> Any:
    """A tensor of the given strides over a new storage just large enough (zeros).

    Torch: empty_strided_cpu in TensorFactories.cpp, with its checks in its order.
    """
    shape = _check_sizes(size)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    if geometry.numel(shape) and any(s < 0 for s in stride):
        # torch: computeStorageNbytes multiplies as unsigned numbers and overflows.
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes=[{', '.join(map(str, size))}] "
            f"and strides=[{', '.join(map(str, stride))}]"
        )
    return empty_strided_tensor(shape, tuple(stride), dtype, target, backend)


# Differs: torch registers CPU, CUDA and Meta kernels reached through BackendSelect;
# refimpl's CompositeExplicitAutograd kernel fills the Undefined slot and picks the backend.
@empty_strided.kernel(CEA)
def empty_strided_kernel(
    size: list[int],
    stride: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: empty_strided (empty_strided_cpu in TensorFactories.cpp)."""
    target, backend = _factory_target(device)
    dtype = get_default_dtype() if dtype is None else dtype
    return fill_uninitialized(make_empty_strided(size, stride, dtype, target, backend))


empty_strided_out = defop(
    "empty_strided.out(SymInt[] size, SymInt[] stride, *, Tensor(a!) out) -> Tensor(a!)"
)


@empty_strided_out.kernel(CEA)
def empty_strided_out_kernel(size: list[int], stride: list[int], *, out: TensorImpl) -> Any:
    """Torch: the generated out= form (empty_strided, then resize_output and copy)."""
    result = aten.empty_strided.default(size, stride, dtype=out._dtype, device=out.device)
    return _generated_out(out, result)


new_empty_strided = defop(
    "new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


# Differs: torch registers new_empty_strided as CompositeExplicitAutogradNonFunctional.
@new_empty_strided.kernel(CEA)
def new_empty_strided_kernel(
    self: TensorImpl,
    size: list[int],
    stride: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """empty_strided with self's dtype and device by default. Torch: new_empty_strided in
    TensorFactories.cpp."""
    target, backend = _new_target(self, device)
    dtype = self._dtype if dtype is None else dtype
    return make_empty_strided(size, stride, dtype, target, backend)


new_empty_strided_out = defop(
    "new_empty_strided.out(Tensor self, SymInt[] size, SymInt[] stride, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@new_empty_strided_out.kernel(CEA)
def new_empty_strided_out_kernel(
    self: TensorImpl, size: list[int], stride: list[int], *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form (new_empty_strided, then resize_output and copy)."""
    result = aten.new_empty_strided.default(self, size, stride)
    return _generated_out(out, result)


empty_permuted = defop(
    "empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


@empty_permuted.kernel(CEA)
def empty_permuted_kernel(
    size: list[int],
    physical_layout: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """A tensor laid out in memory in the dim order `physical_layout` (outermost first).

    Torch: empty_permuted_symint in TensorFactories.cpp, with its checks in its order.
    """
    ndim = len(size)
    if ndim != len(physical_layout):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {ndim} is not equal to len(physical_layout) = "
            f"{len(physical_layout)}"
        )
    seen: set[int] = set()
    for i, d in enumerate(physical_layout):
        if not 0 <= d < ndim:
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {ndim - 1}, but got "
                f"{d} at index {i}).  NB: negative dims not currently supported; file an "
                "issue if you want it."
            )
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    # torch: the tensor is made as empty(physical sizes) then permuted, so a negative size
    # is reported in the physical order.
    _check_sizes([size[d] for d in physical_layout])
    shape = tuple(size)
    stride = [0] * ndim
    running = 1
    for d in reversed(physical_layout):
        stride[d] = running
        running *= max(shape[d], 1)
    target, backend = _factory_target(device)
    dtype = get_default_dtype() if dtype is None else dtype
    return fill_uninitialized(empty_strided_tensor(shape, tuple(stride), dtype, target, backend))


empty_permuted_out = defop(
    "empty_permuted.out(SymInt[] size, int[] physical_layout, *, Tensor(a!) out) -> Tensor(a!)"
)


@empty_permuted_out.kernel(CEA)
def empty_permuted_out_kernel(
    size: list[int], physical_layout: list[int], *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form (empty_permuted, then resize_output and copy)."""
    result = aten.empty_permuted.default(size, physical_layout, dtype=out._dtype, device=out.device)
    return _generated_out(out, result)


# --- new_empty, new_zeros, new_ones, new_full ----------------------------------------------
# Torch: TensorFactories.cpp; each is its functional factory with self's dtype and device
# as defaults (self.options().merge_in(options)).

new_empty = defop(
    "new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@new_empty.kernel(CEA)
def new_empty_kernel(
    self: TensorImpl,
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """An uninitialised tensor (refimpl: zeros; see fill_uninitialized) of self's dtype and
    device. Torch: new_empty."""
    target, backend = _new_target(self, device)
    made = empty_tensor(size, self._dtype if dtype is None else dtype, target, backend)
    return fill_uninitialized(made)


new_zeros = defop(
    "new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@new_zeros.kernel(CEA)
def new_zeros_kernel(
    self: TensorImpl,
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """Zeros of self's dtype and device. Torch: new_zeros in TensorFactories.cpp."""
    target, backend = _new_target(self, device)
    return _filled(size, 0, self._dtype if dtype is None else dtype, target, backend)


new_ones = defop(
    "new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@new_ones.kernel(CEA)
def new_ones_kernel(
    self: TensorImpl,
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """Ones of self's dtype and device. Torch: new_ones in TensorFactories.cpp."""
    target, backend = _new_target(self, device)
    return _filled(size, 1, self._dtype if dtype is None else dtype, target, backend)


new_full = defop(
    "new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


@new_full.kernel(CEA)
def new_full_kernel(
    self: TensorImpl,
    size: list[int],
    fill_value: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """`fill_value` in self's dtype (not the value's) and device. Torch: new_full."""
    target, backend = _new_target(self, device)
    return _filled(size, fill_value, self._dtype if dtype is None else dtype, target, backend)
