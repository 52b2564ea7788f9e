"""Indexing: which aten ops `t[index]` and `t[index] = value` call, in torch's order.

Torch: THPVariable_getitem / THPVariable_setitem in
torch/csrc/autograd/python_variable_indexing.cpp, over applySlicing, applySelect, applySlice,
handleDimInMultiDimIndexing, get_item, set_item and copy_to in aten/src/ATen/TensorIndexing.h.
Ints become aten.select.int, slices aten.slice.Tensor, None aten.unsqueeze.default, an index
that changes nothing aten.alias.default. Advanced indices (integer and bool tensors, sequences
turned into tensors, Python bools turned into index tensors) are collected per dim and passed
to aten.index.Tensor (reading) or aten.index_put_.default (writing). A Python scalar assigned
is a 0-dim tensor passed through aten.lift_fresh.default, then written with aten.fill_.Tensor,
aten.copy_.default or aten.index_put_.default.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import bool_, int64, uint8
from refimpl._base.scalars import fill_scalar
from refimpl.api.factories import _infer_scalar_type, _is_host_array, _is_sequence, tensor
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, backend_dtype, empty_tensor, from_array
from refimpl.ops import aten
from refimpl.ops.view import legacy_type_name

# torch: PY_SSIZE_T_MAX / PY_SSIZE_T_MIN, what __PySlice_Unpack gives for an omitted bound.
INT64_MAX: Final = 2**63 - 1
INT64_MIN: Final = -(2**63)

_CPU: Final = device("cpu")

# Python numbers torch accepts as an assigned value (numpy scalars subclass int or float, or
# carry __index__); torch: valueToTensor in python_variable_indexing.cpp.
_NUMBER_TYPES: Final = (bool, int, float, complex)

# torch: the dtypes an index tensor consumes several dims with (a mask) or turns into a bool.
_MASK_DTYPES: Final = frozenset({bool_, uint8})

_SEQUENCE_WARNING: Final = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
    "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
    "error or a different result"
)


def _is_long(index: object) -> bool:
    """Torch: THPUtils_checkLong: a Python int that is not a bool, or a NumPy integer scalar."""
    kind = type(index)
    if kind is int:
        return True
    if kind is bool or isinstance(index, TensorImpl) or not hasattr(index, "__index__"):
        return False
    # A NumPy integer scalar: has __index__ and is neither an array nor a sequence.
    return (
        not _is_sequence(index)
        and getattr(index, "ndim", 0) == 0
        and not isinstance(index, bool)
        and type(index).__name__ != "ndarray"
        and not _is_numpy_bool(index)
    )


def _is_numpy_bool(index: object) -> bool:
    return getattr(getattr(index, "dtype", None), "kind", None) == "b"


# --- t[index] ------------------------------------------------------------------------------


def getitem(self: TensorImpl, index: object) -> Any:
    """`self[index]` for every index torch takes.

    Torch: THPVariable_getitem. A lone int, slice, None or Ellipsis takes a short path (a lone
    slice is always an aten.slice call); anything else is wrapped in a tuple and goes through
    applySlicing, which skips full slices and collects the advanced indices; without any,
    aten.alias of `self` stands for an index that changed nothing.
    """
    if index is None:
        return aten.unsqueeze.default(self, 0)
    if index is Ellipsis:
        return aten.alias.default(self)
    kind = type(index)
    if kind is int:
        return _select(self, 0, index, 0)  # type: ignore[arg-type]  # kind is int
    if kind is slice:
        start, stop, step = _unpack_slice(index)  # type: ignore[arg-type]  # kind is slice
        return _slice(self, 0, start, stop, step, optimize=False)
    if isinstance(index, TensorImpl) and index._size:
        # What wrapTuple and applySlicing do with a lone index tensor of one dim or more:
        # the count check, then the tensor recorded as the first index.
        ndim = len(self._size)
        if (len(index._size) if index._dtype in _MASK_DTYPES else 1) > ndim:
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        return aten.index.Tensor.call_checked((self, [index]))
    if _is_long(index):
        return _select(self, 0, index.__index__(), 0)  # type: ignore[attr-defined]  # checked
    items = _wrap_tuple(index)
    tensor_indices: list[Any] = []
    result = _apply_slicing(self, items, tensor_indices)
    if not tensor_indices:
        if result is self:
            # torch: "ensure we return a shallow copy for things like x[...]".
            return aten.alias.default(self)
        return result
    return aten.index.Tensor.call_checked((result, tensor_indices))


def _wrap_tuple(index: object) -> tuple[Any, ...]:
    """The index as a tuple of items. Torch: wrapTuple and treatSequenceAsTuple, NumPy's rule
    for a list that holds slices, None, Ellipsis, tensors or sequences (with a warning)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, TensorImpl) or not _is_sequence(index):
        return (index,)
    if _is_host_array(index) and type(index).__name__ == "ndarray":
        return (index,)
    items = list(index)  # type: ignore[call-overload]  # a sequence
    if len(items) >= 32:
        return (index,)
    for item in items:
        if (
            isinstance(item, (TensorImpl, slice))
            or item is None
            or item is Ellipsis
            or _is_sequence(item)
        ):
            warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=4)
            return tuple(items)
    return (index,)


def _apply_slicing(self: TensorImpl, items: tuple[Any, ...], tensor_indices: list[Any]) -> Any:
    """The view `items` select; advanced indices are collected in `tensor_indices`, one slot
    per dim of the view (None where a dim is not indexed).

    Torch: applySlicing (python_variable_indexing.cpp) and handleDimInMultiDimIndexing
    (TensorIndexing.h), with the slice optimization on: a slice covering its whole dim is
    skipped.
    """
    ndim = len(self._size)
    specified = _count_specified_dimensions(items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result: Any = self
    dim = 0
    for real_dim, item in enumerate(items):
        kind = type(item)
        if kind is int:
            result = _select(result, dim, item, real_dim)
        elif kind is slice:
            start, stop, step = _unpack_slice(item)
            result = _slice(result, dim, start, stop, step, optimize=True)
            dim += 1
        elif item is Ellipsis:
            # torch: every Ellipsis stands for the dims no other item names.
            dim += ndim - specified
        elif item is None:
            result = aten.unsqueeze.default(result, dim)
            dim += 1
        elif kind is bool:
            result = aten.unsqueeze.default(result, dim)
            dim = _record(_bool_index(result, item), tensor_indices, dim)
        elif isinstance(item, TensorImpl):
            result, dim = _tensor_item(result, item, tensor_indices, dim, real_dim)
        elif _is_long(item):
            # torch: THPUtils_checkLong also takes NumPy integers.
            result = _select(result, dim, item.__index__(), real_dim)
        elif _is_sequence(item):
            index_tensor = _sequence_to_tensor(self, item)
            result, dim = _tensor_item(result, index_tensor, tensor_indices, dim, real_dim)
        elif hasattr(item, "__index__"):
            result = _select(result, dim, item.__index__(), real_dim)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {kind.__name__})"
            )
    return result


def _tensor_item(
    result: Any, item: TensorImpl, tensor_indices: list[Any], dim: int, real_dim: int
) -> tuple[Any, int]:
    """A tensor index: a 0-dim integer one selects, a 0-dim bool one acts as a Python bool,
    any other is recorded for advanced indexing. Torch: handleDimInMultiDimIndexing."""
    dtype = item._dtype
    if not item._size and not (dtype.is_floating_point or dtype.is_complex):
        if dtype not in _MASK_DTYPES:
            return _select(result, dim, aten.item.default(item), real_dim), dim
        result = aten.unsqueeze.default(result, dim)
        flag = aten.item.default(item) != 0
        return result, _record(_bool_index(result, flag), tensor_indices, dim)
    return result, _record(item, tensor_indices, dim)


def _record(index: Any, tensor_indices: list[Any], dim: int) -> int:
    """Put `index` in its slot of `tensor_indices`; return the next dim of the view.

    Torch: recordTensorIndex in TensorIndexing.h. A mask consumes one dim of the view per
    mask dim but one slot of the list (aten.index expands it), so a slot is the view's dim
    less the extra dims of the masks recorded before it.
    """
    extra = sum(
        len(t._size) - 1 for t in tensor_indices if t is not None and t._dtype in _MASK_DTYPES
    )
    while len(tensor_indices) < dim - extra:
        tensor_indices.append(None)
    tensor_indices.append(index)
    return dim + (len(index._size) if index._dtype in _MASK_DTYPES else 1)


def _bool_index(result: Any, value: bool) -> Any:
    """A Python bool as an index tensor: [0] for True, [] for False.

    Torch: boolToIndexingTensor in TensorIndexing.h.
    """
    dev = result._storage.device
    if value:
        return aten.fill_.Scalar(aten.empty.memory_format([1], dtype=int64, device=dev), 0)
    return aten.empty.memory_format([0], dtype=int64, device=dev)


def _sequence_to_tensor(self: TensorImpl, item: Any) -> Any:
    """A sequence (or array) of indices as a long, bool or byte tensor on `self`'s device.

    Torch: sequenceToVariable and indexing_tensor_from_data (torch/csrc/utils/tensor_new.cpp):
    a bool or uint8 inference is kept, anything else becomes int64.
    """
    dev = self._storage.device
    backend = self._storage.backend or config.backends.resolve("cpu")
    inferred = _infer_scalar_type(item, backend)
    dtype = inferred if inferred in _MASK_DTYPES else int64
    return tensor(item, dtype=dtype, device=dev)  # torch.tensor lifts it (aten.lift_fresh)


def _count_specified_dimensions(items: tuple[Any, ...]) -> int:
    # torch: count_specified_dimensions in python_variable_indexing.cpp; a bool or byte tensor
    # names one dim per dim it has, every other item but None, Ellipsis and the Python bools
    # names one (invalid items too: their error comes later).
    count = 0
    for item in items:
        if isinstance(item, TensorImpl):
            count += len(item._size) if item._dtype in _MASK_DTYPES else 1
        elif item is not None and item is not Ellipsis and type(item) is not bool:
            count += 1
    return count


def _select(self: Any, dim: int, index: int, real_dim: int) -> Any:
    """aten.select.int after torch's bounds check, which names the index's position.

    Torch: applySelect in TensorIndexing.h; the negative index is passed on unnormalized.
    """
    sizes = self._size
    if index == 0 and dim == 0 and not sizes:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    # torch reads the size past the last dim as 0 (x0d[5], x[..., ..., 0]).
    size = sizes[dim] if dim < len(sizes) else 0
    if not (size > -1 - index and size > index):
        raise IndexError(
            f"index {index} is out of bounds for dimension {real_dim} with size {size}"
        )
    if type(index) is int:
        return aten.select.int.call_checked((self, dim, index))
    return aten.select.int(self, dim, index)


def _slice(self: Any, dim: int, start: int, stop: int, step: int, *, optimize: bool) -> Any:
    """aten.slice.Tensor, or with `optimize` `self` for a slice that covers the dim.

    Torch: applySlice in TensorIndexing.h (`disable_slice_optimization` is `not optimize`).
    """
    if step <= 0:
        raise ValueError("step must be greater than zero")
    sizes = self._size
    if optimize and sizes and start == 0 and step == 1 and sizes[dim] <= stop:
        return self
    return aten.slice.Tensor(self, dim, start, stop, step)


def _unpack_slice(item: slice) -> tuple[int, int, int]:
    """A slice's (start, stop, step) as C integers. Torch: __PySlice_Unpack (PySlice_Unpack)."""
    step = 1 if item.step is None else _slice_index(item.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if item.start is None:
        start = INT64_MAX if step < 0 else 0
    else:
        start = _slice_index(item.start)
    if item.stop is None:
        stop = INT64_MIN if step < 0 else INT64_MAX
    else:
        stop = _slice_index(item.stop)
    return start, stop, step


def _slice_index(value: object) -> int:
    # torch: _PyEval_SliceIndex, which clamps to the C range.
    index = getattr(value, "__index__", None)
    if index is None:
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    result: int = index()
    return min(max(result, INT64_MIN), INT64_MAX)


# --- t[index] = value -----------------------------------------------------------------------


def setitem(self: TensorImpl, index: object, value: object) -> None:
    """`self[index] = value`: the indexed elements written with `value`, broadcast.

    Torch: THPVariable_setitem and set_item (TensorIndexing.h). A Python number becomes a
    0-dim tensor of `self`'s dtype (on the CPU unless `self` is a meta tensor) passed through
    aten.lift_fresh; a lone index takes a short path, with the slice optimization on; with
    advanced indices the sliced view is written by aten.index_put_, else by copy_to.
    """
    source = value if isinstance(value, TensorImpl) else _value_to_tensor(self, value)
    kind = type(index)
    if index is False:
        # torch: nothing is written (and the value's shape is not checked).
        return
    if index is Ellipsis:
        _copy_to(self, source)
    elif index is None or index is True:
        _copy_to(aten.unsqueeze.default(self, 0), source)
    elif kind is int:
        _copy_to(_select(self, 0, index, 0), source)  # type: ignore[arg-type]  # kind is int
    elif kind is slice:
        start, stop, step = _unpack_slice(index)  # type: ignore[arg-type]  # kind is slice
        _copy_to(_slice(self, 0, start, stop, step, optimize=True), source)
    elif _is_long(index):
        _copy_to(_select(self, 0, index.__index__(), 0), source)  # type: ignore[attr-defined]  # checked
    else:
        tensor_indices: list[Any] = []
        sliced = _apply_slicing(self, _wrap_tuple(index), tensor_indices)
        if not tensor_indices:
            _copy_to(sliced, source)
            return
        # torch: the value's leading size-1 dims are dropped (slicePrefix1sSize), then
        # index_put_ broadcasts it.
        trimmed = _strip_leading_ones(source._size)
        if trimmed != source._size:
            source = aten.view.default(source, list(trimmed))
        aten.index_put_.default(sliced, tensor_indices, source)


def _strip_leading_ones(sizes: tuple[int, ...]) -> tuple[int, ...]:
    # torch: slicePrefix1sSize in TensorIndexing.h.
    first = 0
    while first < len(sizes) and sizes[first] == 1:
        first += 1
    return sizes[first:]


def _value_to_tensor(self: TensorImpl, value: object) -> Any:
    """A Python number as a fresh 0-dim tensor of `self`'s dtype, lifted.

    Torch: valueToTensor and scalarToTensor (python_variable_indexing.cpp, TensorIndexing.h):
    the tensor is built without dispatching (scalar_tensor_static), then aten.lift_fresh.
    """
    if not isinstance(value, _NUMBER_TYPES):
        if not hasattr(value, "__index__"):
            raise TypeError(
                f"can't assign a {type(value).__name__} to a {legacy_type_name(self._dtype)}"
            )
        value = value.__index__()
    # torch's overflow error comes before anything is dispatched, as a one-element fill's.
    converted = fill_scalar(value, self._dtype, 1)  # type: ignore[arg-type]  # a number
    dev = self._storage.device
    if dev.type == "meta":
        # Differs: torch makes a meta scalar with a dispatched aten.scalar_tensor here.
        scalar = empty_tensor((), self._dtype, dev, None)
    else:
        # A tensor without data (a FakeTensor's storage) lifts a scalar made on the CPU.
        own = self._storage.backend if dev.type == "cpu" else None
        backend = own or config.backends.resolve("cpu")
        assert backend is not None  # a tensor not on the meta device has data
        array = backend.xp.asarray(converted, dtype=backend_dtype(backend, self._dtype))
        scalar = from_array(array, self._dtype, backend, _CPU)
    return aten.lift_fresh.default(scalar)


def _copy_to(dst: Any, src: Any) -> None:
    """Write `src` into `dst`, leading size-1 dims of `src` dropped, then broadcast.

    Torch: copy_to in python_variable_indexing.cpp (slicePrefix1sSize, expand_inplace).
    """
    if dst._size == src._size:
        aten.copy_.default(dst, src)
        return
    if not src._size and src._storage.device.type == "cpu":
        aten.fill_.Tensor(dst, src)
        return
    src_view = aten.view.default(src, list(_strip_leading_ones(src._size)))
    if src_view._size != dst._size:
        src_view = aten.expand.default(src_view, list(dst._size))
    aten.copy_.default(dst, src_view)
