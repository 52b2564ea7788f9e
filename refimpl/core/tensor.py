"""TensorImpl: a strided view of a Storage, and how its data is read and written.

Torch: c10::TensorImpl. A tensor is `(storage, size, stride, storage_offset, dtype)` plus the
version counter it shares with its views, its `_base` when it is a view, its cached dispatch
key set, and autograd's fields. The user-facing `refimpl.Tensor` (api/tensor.py) subclasses
this and registers itself with `set_tensor_class`, so lower layers build user tensors without
importing the API layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from refimpl._base import keys
from refimpl._base.device import device, storage_device
from refimpl._base.dtypes import DType
from refimpl._base.keys import REQUIRES_GRAD_BIT, DispatchKey, key_raw
from refimpl._base.memory_format import as_memory_format, channels_last, channels_last_3d
from refimpl._base.size import Size
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend, missing_dtype
from refimpl.core.grad_mode import inference_enabled
from refimpl.core.storage import (
    INFERENCE_COUNTER,
    InvalidPythonStorage,
    Storage,
    VersionCounter,
)

_META: Final = device("meta")

# Note [Math bits]
# A tensor whose key set holds Conjugate (x.conj() of a complex x) or Negative (its imag, or
# _neg_view) reads as the conjugate / negation of what its storage holds (torch: the "math
# bits", MathBitsFallback.h). Views keep the bits (make_view copies the key set). Every read
# of values goes through `array_of`, which applies them (a fresh array, never cached), and
# every write through `write_array` (or a kernel's write to array_of's view, which must not
# be used for a tensor with a bit: copy_ checks), which applies them to the values before
# storing: conjugation and negation are their own inverses. Ops reach kernels with resolved
# inputs through the Conjugate and Negative fallbacks (ops/math_bits.py); the ops torch lets
# through (copy_, clone, mm, dot, ...) read and write through these two functions.
CONJUGATE_BIT: Final = key_raw(DispatchKey.Conjugate)
NEGATIVE_BIT: Final = key_raw(DispatchKey.Negative)
MATH_BITS: Final = CONJUGATE_BIT | NEGATIVE_BIT


class TensorImpl:
    """The metadata and storage of a tensor. Torch: c10::TensorImpl."""

    __slots__ = (
        "__weakref__",
        "_array_cache",
        "_autograd_meta",
        "_base",
        "_counter",
        "_dtype",
        "_key_set",
        "_meta_token",
        "_size",
        "_storage",
        "_storage_offset",
        "_stride",
    )

    _storage: Storage
    _size: tuple[int, ...]
    _stride: tuple[int, ...]
    _storage_offset: int
    _dtype: DType
    _key_set: int
    _counter: VersionCounter | None
    """The version counter, made on first use (see `_version_counter`)."""
    _meta_token: MetaToken | None
    """The interned metadata this tensor's plans are keyed by (see Note [Metadata tokens])."""
    _base: TensorImpl | None
    _autograd_meta: Any
    """Autograd's state of the tensor (refimpl.autograd.variable.AutogradMeta), None until it
    has some. Torch: TensorImpl::autograd_meta_ (null for a tensor autograd never touched)."""
    _array_cache: tuple[Array, Array] | None
    """(the storage array it was computed from, this tensor's array): see `array_of`."""

    # --- metadata (no dispatch, as in torch: these read TensorImpl fields) ---------------

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._size)
        return self._size[geometry.wrap_dim(dim, len(self._size))]

    def stride(self, dim: int | None = None) -> Any:
        if dim is None:
            return self._stride
        return self._stride[geometry.wrap_dim(dim, len(self._size))]

    def storage_offset(self) -> int:
        return self._storage_offset

    def dim(self) -> int:
        return len(self._size)

    def ndimension(self) -> int:
        return len(self._size)

    @property
    def ndim(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        return geometry.numel(self._size)

    def nelement(self) -> int:
        return geometry.numel(self._size)

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, memory_format: object = None) -> bool:
        """Torch: TensorImpl::is_contiguous(memory_format); channels-last formats ask for the
        NHWC / NDHWC layout (always False below rank 4 / 5)."""
        fmt = as_memory_format(memory_format)
        if fmt is channels_last or fmt is channels_last_3d:
            rank = 4 if fmt is channels_last else 5
            return len(self._size) == rank and layout.is_channels_last(self._size, self._stride)
        return geometry.is_contiguous(self._size, self._stride)

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> device:
        return self._storage.device

    @property
    def is_meta(self) -> bool:
        return self._storage.device.type == "meta"

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    def untyped_storage(self) -> Storage:
        return self._storage

    def data_ptr(self) -> int:
        """The address of the first element: the storage's address plus the offset in bytes."""
        storage = self._storage
        if isinstance(storage, InvalidPythonStorage):
            return self._storage_offset * self._dtype.itemsize  # torch: from address 0
        if storage.array is None:
            return 0
        base = storage.data_ptr()
        return base + self._storage_offset * self._dtype.itemsize if base else 0

    @property
    def _version(self) -> int:
        counter = self._counter
        return 0 if counter is None else counter.version

    @property
    def _version_counter(self) -> VersionCounter:
        """The counter this tensor shares with its views. Torch: VariableVersion.

        Made on first use: most tensors (the results of functional ops) are never written in
        place nor viewed, and a counter per result costs a small op ~3% of its time.
        """
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        return counter

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def backend(self) -> Backend | None:
        """The backend plugin that holds this tensor's data (None for meta tensors).

        Differs: torch has no such attribute; refimpl tensors keep the backend that made them.
        """
        return self._storage.backend

    def _geometry(self) -> geometry.Geometry:
        # Note [Making geometries] in core/strides.py.
        return tuple.__new__(geometry.Geometry, (self._size, self._stride, self._storage_offset))

    def item(self) -> Any:
        """The value of a one-element tensor as a Python scalar. Torch: Tensor.item."""
        n = geometry.numel(self._size)
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        backend = _data_backend(self)
        return backend.tolist(backend.xp.reshape(array_of(self), ()))

    def tolist(self) -> Any:
        """Nested lists of Python scalars. Torch: Tensor.tolist."""
        return _data_backend(self).tolist(array_of(self))


# The class used for tensors that lower layers create; api/tensor.py sets refimpl.Tensor here.
# A one-element list so the hot path reads it without a global statement.
_TENSOR_CLASS: list[type[TensorImpl]] = [TensorImpl]


def set_tensor_class(cls: type[TensorImpl]) -> None:
    """Register the user-facing tensor class (called once, by api/tensor.py)."""
    _TENSOR_CLASS[0] = cls


_DEVICE_KEY_SETS: dict[str, int] = {}


def _key_set_for(device_type: str) -> int:
    raw = _DEVICE_KEY_SETS.get(device_type)
    if raw is None:
        raw = keys.key_set_for_device(device_type).raw_repr()
        _DEVICE_KEY_SETS[device_type] = raw
    return raw


# Note [Inference tensors]
# A tensor made inside inference_mode is an inference tensor (torch: TensorImpl's
# constructor reads InferenceMode): its key set has no autograd keys and no ADInplaceOrView,
# and it tracks no version (INFERENCE_COUNTER). Every constructor below reads the thread's
# inference flag once per tensor; a view keeps its source's kind.

_INFERENCE_KEY_SETS: dict[str, int] = {}


def _inference_key_set_for(device_type: str) -> int:
    raw = _INFERENCE_KEY_SETS.get(device_type)
    if raw is None:
        raw = keys.key_set_for_device(device_type, inference=True).raw_repr()
        _INFERENCE_KEY_SETS[device_type] = raw
    return raw


def is_inference(t: TensorImpl) -> bool:
    """Torch: Tensor.is_inference (no ADInplaceOrView key)."""
    return t._counter is INFERENCE_COUNTER


def _make_inference(t: TensorImpl, device_type: str) -> None:
    t._key_set = _inference_key_set_for(device_type)
    t._counter = INFERENCE_COUNTER


# --- metadata tokens -----------------------------------------------------------------------
# Note [Metadata tokens]
# The caches of an op's decisions (TensorIterator's plans, the pointwise fast path) key a
# tensor operand by what those decisions read: dtype, sizes, strides, key set and device.
# Building and hashing that tuple for each operand of each call cost a small op about a tenth
# of its time, so a tensor keeps a token for it. Tokens are interned (equal metadata, the same
# token), so a key made of tokens hashes and compares object identities. A tensor makes its
# token on first use and drops it when its geometry changes (`set_geometry`); the results of a
# cached plan are born with theirs (`result_maker`). When the intern table is cleared, equal
# metadata gets a new token: a later lookup misses a cache, never finds a wrong entry.


class MetaToken:
    """Stands for one metadata tuple (see Note [Metadata tokens]); hashed by identity."""

    __slots__ = ("metadata",)

    def __init__(self, metadata: tuple[object, ...]) -> None:
        self.metadata = metadata

    def __repr__(self) -> str:
        return f"MetaToken{self.metadata!r}"


_TOKENS: dict[tuple[object, ...], MetaToken] = {}


def _intern(metadata: tuple[object, ...]) -> MetaToken:
    token = _TOKENS.get(metadata)
    if token is None:
        if len(_TOKENS) > 16384:
            _TOKENS.clear()
        token = _TOKENS[metadata] = MetaToken(metadata)
    return token


def meta_token(t: TensorImpl) -> MetaToken:
    """The tensor's metadata token, made on first use (see Note [Metadata tokens])."""
    token = t._meta_token
    if token is None:
        storage = t._storage
        key_set = t._key_set & ~REQUIRES_GRAD_BIT  # plans do not depend on it
        metadata = (t._dtype, t._size, t._stride, key_set, storage.backend, storage.device._index)
        token = t._meta_token = _intern(metadata)
    return token


def operand_key(value: object) -> object:
    """What of an operand (a tensor or a Python number) an op's decisions depend on: a
    tensor's metadata (its token), a number's type; an int outside int64's range by its
    value (uint64-range ints promote differently). The key of TensorIterator's plans and of
    the dispatcher's specialized calls (Note [Specialized calls] in dispatch/overloads.py)."""
    if isinstance(value, TensorImpl):
        token = value._meta_token
        return token if token is not None else meta_token(value)
    kind = type(value)
    if kind is int and not -(2**63) <= value <= 2**63 - 1:  # type: ignore[operator]  # an int
        return value
    return kind


def requires_grad(t: TensorImpl) -> bool:
    """Whether autograd records operations on `t` (a leaf that requires grad, or a result
    with a grad_fn). Torch: TensorImpl::requires_grad. See Note [Requires-grad bit]."""
    return bool(t._key_set & REQUIRES_GRAD_BIT)


def make_tensor(
    storage: Storage,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    dtype: DType,
    *,
    base: TensorImpl | None = None,
    version_counter: VersionCounter | None = None,
    cls: type[TensorImpl] | None = None,
) -> Any:
    """A new tensor over `storage`. A view passes its root `base` and shares its counter."""
    t = object.__new__(cls or _TENSOR_CLASS[0])
    t._storage = storage
    t._size = size
    t._stride = stride
    t._storage_offset = offset
    t._dtype = dtype
    device_type = storage.device.type
    key_set = _DEVICE_KEY_SETS.get(device_type)
    t._key_set = key_set if key_set is not None else _key_set_for(device_type)
    t._counter = version_counter
    t._meta_token = None
    if inference_enabled() and version_counter is None:
        _make_inference(t, device_type)
    t._base = base
    t._autograd_meta = None
    t._array_cache = None
    return t


def make_view(source: TensorImpl, g: geometry.Geometry) -> Any:
    """An alias of `source` with geometry `g`: same storage and key set (it lives where its
    source does), but no `_base` and a version counter of its own, as a view kernel makes it
    below ADInplaceOrView; that key's kernel makes it a view (`as_view`). An inference
    tensor's alias is an inference tensor.

    Torch: the kernel half of every view op (alias_with_sizes_and_strides, as_strided_tensorimpl
    in TensorShape.cpp): a view made below ADInplaceOrView, or of an inference tensor, is no
    view (`_base` None, `_is_view()` False, its own version).
    """
    # make_tensor, written out: views are made on every x[i] and x.view(...).
    t = object.__new__(type(source))
    t._storage = source._storage
    t._size = g.size
    t._stride = g.stride
    t._storage_offset = g.offset
    t._dtype = source._dtype
    t._key_set = source._key_set & ~REQUIRES_GRAD_BIT  # autograd sets it for its views
    counter = source._counter
    t._counter = INFERENCE_COUNTER if counter is INFERENCE_COUNTER else None
    t._meta_token = None
    t._base = None
    t._autograd_meta = None
    t._array_cache = None
    return t


def as_view(view: TensorImpl, source: TensorImpl, differentiable: bool = True) -> None:
    """Make `view` (an alias a view kernel returned) a view of `source`: root `_base` (for a
    differentiable view), the source's version counter. Torch: as_view in
    VariableTypeUtils.h, called by the ADInplaceOrView kernel of a view op; a view op torch
    marks non-differentiable (view.dtype) shares the counter only. A result that is no alias
    (a backend without bitcast copies for view_as_real) stays what it is."""
    if view._storage is not source._storage:
        return
    if differentiable:
        view._base = source._base if source._base is not None else source
    counter = source._counter  # _version_counter, its read inline
    view._counter = counter if counter is not None else source._version_counter


def backend_dtype(backend: Backend, dtype: DType) -> Any:
    """The library's dtype object for `dtype`, or a TypeError naming backend and dtype."""
    array_dtype = backend.array_dtypes.get(dtype)
    if array_dtype is None:
        raise missing_dtype(backend, dtype)
    return array_dtype


def from_array(array: Array, dtype: DType, backend: Backend, dev: device) -> Any:
    """A contiguous tensor owning `array` (flattened without a copy where the library can)."""
    size = tuple(array.shape)
    flat = backend.flatten(array)
    storage = Storage(flat, flat.shape[0], dtype, dev, backend)
    return make_tensor(storage, size, geometry.contiguous_strides(size), 0, dtype)


def empty_tensor(size: Sequence[int], dtype: DType, dev: device, backend: Backend | None) -> Any:
    """A contiguous tensor with unspecified (here: zero) values. Torch: at::empty."""
    size_t = tuple(size)
    for n in size_t:
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: "
                f"[{', '.join(str(s) for s in size_t)}]"
            )
    count = geometry.numel(size_t)
    if backend is None:
        storage = Storage(None, count, dtype, dev, None)
    else:
        array = backend.xp.zeros((count,), dtype=backend_dtype(backend, dtype))
        storage = Storage(array, count, dtype, dev, backend)
    return make_tensor(storage, size_t, geometry.contiguous_strides(size_t), 0, dtype)


def empty_strided_tensor(
    size: tuple[int, ...],
    stride: tuple[int, ...],
    dtype: DType,
    dev: device,
    backend: Backend | None,
) -> Any:
    """A tensor with the given strides over a new storage just large enough (zeros).

    Torch: at::empty_strided.
    """
    extent = geometry.storage_extent(size, stride, 0)
    if backend is None:
        storage = Storage(None, extent, dtype, dev, None)
    else:
        array = backend.xp.zeros((extent,), dtype=backend_dtype(backend, dtype))
        storage = Storage(array, extent, dtype, dev, backend)
    return make_tensor(storage, size, stride, 0, dtype)


# --- reading and writing data ------------------------------------------------------------


def _data_backend(t: TensorImpl) -> Backend:
    backend = t._storage.backend
    if backend is None:
        raise _no_data(t)
    return backend


def _no_data(t: TensorImpl) -> Exception:
    if isinstance(t._storage, InvalidPythonStorage) and t._storage.device.type != "meta":
        # torch: TensorImpl::throw_data_ptr_access_error, for a wrapper subclass's data.
        return RuntimeError(
            "The tensor has a non-zero number of elements, but its data is not allocated yet."
            "\nIf you're using torch.compile/export/fx, it is likely that we are erroneously "
            "tracing into a custom kernel. To fix this, please wrap the custom kernel into an "
            "opaque custom op. Please see the following for details: "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html\n"
            "If you're using Caffe2, Caffe2 uses a lazy allocation, so you will need to call "
            "mutable_data() or raw_mutable_data() to actually allocate memory."
        )
    # torch: the meta tensor's copy kernel raises NotImplementedError, not RuntimeError.
    return NotImplementedError("Cannot copy out of meta tensor; no data!")


def array_of(t: TensorImpl) -> Array:
    """The tensor's values as an array of its backend, shaped like the tensor.

    A zero-copy strided view where the backend has one; otherwise a gather with index
    arrays computed from the metadata. A tensor of another dtype than its storage's reads
    the storage through a bitcast (see Note [Untyped storage] in core/storage.py).
    """
    storage = t._storage
    source = storage.array
    cached = t._array_cache
    # The array is cached with the storage array it came from. Backends with in-place writes
    # keep that array (and the cached one views it); the others replace it on every write,
    # which invalidates the cache.
    if cached is not None and cached[0] is source:
        return cached[1]
    backend = storage.backend
    if source is None or backend is None:
        raise _no_data(t)
    flat = source if t._dtype is storage.dtype else storage.array_as(t._dtype)
    size, stride, offset = t._size, t._stride, t._storage_offset
    xp = backend.xp
    if geometry.is_contiguous(size, stride):
        count = geometry.numel(size)
        if count == 0:
            # An empty view's offset may lie past the end of its storage (torch allows it).
            offset = 0
        if offset == 0 and count == flat.shape[0]:
            array = xp.reshape(flat, size)
        else:
            array = xp.reshape(flat[offset : offset + count], size)
    elif backend.supports_strided_views:
        array = backend.as_strided(flat, size, stride, offset)
    else:
        array = xp.reshape(xp.take(flat, gather_indices(xp, size, stride, offset)), size)
    if t._key_set & MATH_BITS:
        return apply_math_bits(t._key_set, xp, array)  # Note [Math bits]: a new array
    t._array_cache = (source, array)
    return array


def apply_math_bits(key_set: int, xp: Any, values: Array) -> Array:
    """`values` conjugated and/or negated as the math bits of `key_set` ask (Note [Math
    bits]): the values a tensor with those bits shows for what its storage holds, and the
    values to store for what it is to show."""
    if key_set & CONJUGATE_BIT and xp.isdtype(values.dtype, "complex floating"):
        values = xp.conj(values)
    if key_set & NEGATIVE_BIT:
        values = xp.negative(values)
    return values


def gather_indices(xp: Any, size: Sequence[int], stride: Sequence[int], offset: int) -> Array:
    """Storage positions of a strided view's elements, in row-major order, as a 1-D array."""
    index = xp.asarray([offset], dtype=xp.int64)
    for n, s in zip(size, stride):
        steps = xp.arange(n, dtype=xp.int64) * s
        index = xp.reshape(index[:, None] + steps[None, :], (-1,))
    return index


def write_array(t: TensorImpl, values: Array) -> None:
    """Write `values` (already of the tensor's shape and dtype) through the tensor's view.

    In place where the backend can; otherwise the storage's array is replaced by a new one,
    which every tensor sharing the storage sees. A tensor of another dtype than its
    storage's writes through a bitcast (see Note [Untyped storage] in core/storage.py).
    """
    storage = t._storage
    flat = storage.array
    backend = storage.backend
    if flat is None or backend is None:
        return  # Meta tensors hold no data: a write only checks metadata.
    dtype = t._dtype
    if dtype is not storage.dtype:
        flat = storage.array_as(dtype)
    size, stride, offset = t._size, t._stride, t._storage_offset
    xp = backend.xp
    if t._key_set & MATH_BITS:
        values = apply_math_bits(t._key_set, xp, values)  # Note [Math bits]
    if backend.supports_inplace:
        backend.write_strided(flat, size, stride, offset, values)
        return
    count = geometry.numel(size)
    if count == 0:
        return
    flat_values = xp.reshape(values, (-1,))
    if geometry.is_contiguous(size, stride):
        if offset == 0 and count == flat.shape[0]:
            storage.replace_as(dtype, xp.asarray(flat_values, copy=True))
            return
        storage.replace_as(dtype, xp.concat((flat[:offset], flat_values, flat[offset + count :])))
        return
    # A general non-overlapping view: find, for each storage position, the element written
    # there (if any) by binary search over the sorted write positions.
    positions = gather_indices(xp, size, stride, offset)
    order = xp.argsort(positions)
    sorted_positions = xp.take(positions, order)
    sorted_values = xp.take(flat_values, order)
    every = xp.arange(flat.shape[0], dtype=xp.int64)
    slot = xp.searchsorted(sorted_positions, every)
    slot = xp.clip(slot, 0, max(count - 1, 0))
    hit = xp.take(sorted_positions, slot) == every
    storage.replace_as(dtype, xp.where(hit, xp.take(sorted_values, slot), flat))


def tensor_over(
    array: Array | None,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    dtype: DType,
    dev: device,
    backend: Backend | None,
) -> Any:
    """A new tensor of geometry (`size`, `stride`) whose storage is `array` read row-major.

    `array` holds the elements in memory order (for a permuted layout, the result computed
    in that order); no copy is made where the library can flatten it as a view. With no
    array (meta), the storage holds metadata only.
    """
    if array is None or backend is None:
        extent = geometry.storage_extent(size, stride, 0)
        storage = Storage(None, extent, dtype, dev, None)
    else:
        # Storage(flat, flat.shape[0], dtype, dev, backend), its __init__ written out.
        flat = backend.flatten(array)
        storage = object.__new__(Storage)
        storage.array = flat
        storage.size_elements = flat.shape[0]
        storage.dtype = dtype
        storage.device = dev if dev._index is None else storage_device(dev)
        storage.backend = backend
        storage._address = 0
        storage.resizable = True
    # make_tensor, written out: this runs once per result of an op.
    t = object.__new__(_TENSOR_CLASS[0])
    t._storage = storage
    t._size = size
    t._stride = stride
    t._storage_offset = 0
    t._dtype = dtype
    key_set = _DEVICE_KEY_SETS.get(dev._type)  # dev.type, without the property's call
    t._key_set = key_set if key_set is not None else _key_set_for(dev._type)
    t._counter = None
    t._meta_token = None
    if inference_enabled():
        _make_inference(t, dev.type)
    t._base = None
    t._autograd_meta = None
    t._array_cache = None
    return t


def result_maker(
    size: tuple[int, ...],
    stride: tuple[int, ...],
    dtype: DType,
    dev: device,
    backend: Backend,
    *,
    flat: bool = False,
) -> Callable[[Array], Any]:
    """`tensor_over` for one result geometry, with what depends on the geometry alone (the
    key set, the element count, the metadata token) decided once. With `flat`, the arrays
    given are already the storage's: 1-D and contiguous (a factory's), not flattened again.

    A cached plan's runner makes every result with the same geometry; `tensor_over` decides
    these per call.
    """
    key_set = _key_set_for(dev.type)
    count = geometry.numel(size)
    kept = dev if dev._index is None else storage_device(dev)  # as Storage keeps it
    token = _intern((dtype, size, stride, key_set, backend, kept._index))
    flatten = None if flat else backend.flatten

    def make(array: Array) -> Any:
        # `array` holds `count` elements in memory order, as for tensor_over.
        # Storage(flatten(array), count, dtype, dev, backend), its __init__ written out.
        storage = object.__new__(Storage)
        storage.array = array if flatten is None else flatten(array)
        storage.size_elements = count
        storage.dtype = dtype
        storage.device = kept
        storage.backend = backend
        storage._address = 0
        storage.resizable = True
        t = object.__new__(_TENSOR_CLASS[0])
        t._storage = storage
        t._size = size
        t._stride = stride
        t._storage_offset = 0
        t._dtype = dtype
        t._key_set = key_set
        t._counter = None
        t._meta_token = token
        if inference_enabled():
            _make_inference(t, dev.type)
            t._meta_token = None
        t._base = None
        t._autograd_meta = None
        t._array_cache = None
        return t

    return make


def set_geometry(t: TensorImpl, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> None:
    """Give `t` new sizes, strides and offset over its storage, dropping what was cached for
    the old ones (its array, its metadata token). Torch: TensorImpl::set_sizes_and_strides
    and set_storage_offset."""
    t._size = size
    t._stride = stride
    t._storage_offset = offset
    t._array_cache = None
    t._meta_token = None


def set_data(t: TensorImpl, source: TensorImpl) -> None:
    """Give `t` the storage, dtype and geometry of `source`, keeping whether it requires grad.
    Torch: VariableHooks::set_data (`t.data = source`)."""
    t._storage = source._storage
    t._dtype = source._dtype
    t._key_set = (source._key_set & ~REQUIRES_GRAD_BIT) | (t._key_set & REQUIRES_GRAD_BIT)
    set_geometry(t, source._size, source._stride, source._storage_offset)


def resize_for_output(t: TensorImpl, size: tuple[int, ...], stride: tuple[int, ...]) -> None:
    """Give `t` a new geometry, growing its storage if it is too small (values kept).

    Torch: resize_output then as_strided_ (resize_out in the structured kernels' generated
    code); the storage offset is kept, and a storage grows as resize_ grows it.
    """
    needed = geometry.storage_extent(size, stride, t._storage_offset)
    t._storage.grow(needed * t._dtype.itemsize)
    set_geometry(t, size, stride, t._storage_offset)
