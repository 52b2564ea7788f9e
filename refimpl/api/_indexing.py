"""Basic indexing: which aten ops `t[index]` and `t[index] = value` call, in torch's order.

Torch: THPVariable_getitem / THPVariable_setitem in
torch/csrc/autograd/python_variable_indexing.cpp, over applySlicing, applySelect, applySlice,
get_item, set_item and copy_to in aten/src/ATen/TensorIndexing.h. Ints become aten.select.int,
slices aten.slice.Tensor, None aten.unsqueeze.default, an index that changes nothing
aten.alias.default; a Python scalar assigned is a 0-dim tensor passed through
aten.lift_fresh.default, then written with aten.fill_.Tensor or aten.copy_.default.
Advanced indices (integer and boolean tensors, sequences) arrive with the indexing-op issue;
a Python bool, which torch turns into an index tensor, is handled with views here.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.scalars import fill_scalar
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


# --- t[index] ------------------------------------------------------------------------------


def getitem(self: TensorImpl, index: object) -> Any:
    """`self[index]` for ints, slices, None, Ellipsis and Python bools.

    Torch: THPVariable_getitem. A lone int, slice, None or Ellipsis takes a short path (a lone
    slice is always an aten.slice call); a tuple goes through applySlicing, which skips full
    slices and returns aten.alias of `self` when no index changed anything.
    """
    kind = type(index)
    if kind is int:
        return _select(self, 0, index, 0)  # type: ignore[arg-type]  # kind is int
    if kind is slice:
        start, stop, step = _unpack_slice(index)  # type: ignore[arg-type]  # kind is slice
        return _slice(self, 0, start, stop, step, optimize=False)
    if index is None:
        return aten.unsqueeze.default(self, 0)
    if index is Ellipsis:
        return aten.alias.default(self)
    items = index if kind is tuple else (index,)
    result, has_bool = _apply_slicing(self, items)  # type: ignore[arg-type]  # a tuple
    if has_bool:
        # Differs: torch treats a Python bool as an index tensor (aten.index.Tensor), so the
        # result is a copy; refimpl takes the same values through views and clones them.
        return aten.clone.default(result)
    if result is self:
        # torch: "ensure we return a shallow copy for things like x[...]".
        return aten.alias.default(self)
    return result


def _apply_slicing(self: TensorImpl, items: tuple[Any, ...]) -> tuple[Any, bool]:
    """The view `items` select, and whether a Python bool was among them.

    Torch: applySlicing and handleDimInMultiDimIndexing (TensorIndexing.h), with the slice
    optimization on: a slice covering its whole dim is skipped.
    """
    ndim = len(self._size)
    specified = _count_specified_dimensions(items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result: Any = self
    has_bool = False
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
            # torch: unsqueeze, then an index tensor [0] (True) or [] (False).
            has_bool = True
            result = aten.unsqueeze.default(result, dim)
            if not item:
                result = aten.slice.Tensor(result, dim, 0, 0, 1)
            dim += 1
        elif isinstance(item, TensorImpl):
            raise NotImplementedError(
                "refimpl: indexing with tensors (advanced indexing) is not implemented yet"
            )
        elif hasattr(item, "__index__"):
            # torch: THPUtils_checkLong also takes NumPy integers.
            result = _select(result, dim, item.__index__(), real_dim)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {kind.__name__})"
            )
    return result, has_bool


def _count_specified_dimensions(items: tuple[Any, ...]) -> int:
    # torch: count_specified_dimensions in python_variable_indexing.cpp; every item but None,
    # Ellipsis and the bools names one dim (invalid items too: their error comes later).
    count = 0
    for item in items:
        if item is not None and item is not Ellipsis and type(item) is not bool:
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
    """`self[index] = value`: the indexed view written with `value`, broadcast.

    Torch: THPVariable_setitem and set_item (TensorIndexing.h). A Python number becomes a
    0-dim tensor of `self`'s dtype (on the CPU unless `self` is a meta tensor) passed through
    aten.lift_fresh; a lone index takes a short path, with the slice optimization on.
    """
    source = value if isinstance(value, TensorImpl) else _value_to_tensor(self, value)
    kind = type(index)
    if kind is int:
        _copy_to(_select(self, 0, index, 0), source)  # type: ignore[arg-type]  # kind is int
    elif kind is slice:
        start, stop, step = _unpack_slice(index)  # type: ignore[arg-type]  # kind is slice
        _copy_to(_slice(self, 0, start, stop, step, optimize=True), source)
    elif index is False:
        # torch: nothing is written (and the value's shape is not checked).
        return
    elif index is None or index is True:
        _copy_to(aten.unsqueeze.default(self, 0), source)
    elif index is Ellipsis:
        _copy_to(self, source)
    else:
        items = index if kind is tuple else (index,)
        # Differs: with a Python bool in a tuple torch writes through aten.index_put_;
        # refimpl writes the same elements through the view.
        target, _ = _apply_slicing(self, items)  # type: ignore[arg-type]  # a tuple
        _copy_to(target, source)


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
        backend = self._storage.backend if dev.type == "cpu" else config.backends.resolve("cpu")
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
    sizes = src._size
    first = 0
    while first < len(sizes) and sizes[first] == 1:
        first += 1
    src_view = aten.view.default(src, list(sizes[first:]))
    if src_view._size != dst._size:
        src_view = aten.expand.default(src_view, list(dst._size))
    aten.copy_.default(dst, src_view)
