"""Advanced indices: how index.Tensor and index_put_ read their indices, and the gather and scatter they run.

Torch: make_info and AdvancedIndex (TensorAdvancedIndexingUtils.h, IndexingUtils.h:
checkIndexTensorTypes, expandTensors, transposeToFront, restride_src, reshape_indexer), the
output layout make_index_iterator gives, and the bounds checks of cpu_index_kernel
(native/cpu/IndexKernel.cpp). The op blocks that use these live in ops/index.py.
"""

from __future__ import annotations

import dataclasses
import enum
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from refimpl._base.dtypes import DType, bool_, int32, int64, uint8
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace, Backend
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    operand_key,
    resize_for_output,
    tensor_over,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._outputs import overlap_status, warn_resize

aten: Final = namespace("aten")

Shape = tuple[int, ...]
Indices = list[TensorImpl | None]

# torch: the index dtypes checkIndexTensorTypes accepts (int32 since 2.0).
INDEX_DTYPES: Final = frozenset({int64, int32, uint8, bool_})
MASK_DTYPES: Final = frozenset({uint8, bool_})


def shape_text(size: Shape) -> str:
    return "[" + ", ".join(str(n) for n in size) + "]"


def resize_output(out: TensorImpl, size: Shape, stride: Shape | None = None) -> None:
    """Torch: resize_output (Resize.cpp): an `out` of another shape is resized, with torch's
    deprecation warning when it held elements."""
    if out._size == size:
        return
    warn_resize(out, size)
    resize_for_output(out, size, geometry.contiguous_strides(size) if stride is None else stride)


def check_overlaps(written: TensorImpl, *read: TensorImpl | None) -> None:
    """Torch: assert_no_internal_overlap(written) and assert_no_overlap(written, each read)
    (MemoryOverlap.cpp), as the indexing ops check their output."""
    if layout.has_internal_overlap(written._size, written._stride):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    check_no_overlap(written, *read)


def check_no_overlap(written: TensorImpl, *read: TensorImpl | None) -> None:
    for other in read:
        if (
            other is not None
            and other._storage is written._storage
            and overlap_status(written, other) in (layout.Overlap.PARTIAL, layout.Overlap.FULL)
        ):
            raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)


# Note [Advanced indices as positions]
# torch's index kernels walk a TensorIterator over `self` restrided so that the indexed dims
# read through the index tensors (restride_src). The Array API has no scatter and only
# single-axis `take`, so refimpl computes with positions instead: reading (index.Tensor) moves
# the indexed dims next to each other, merges them into one axis and takes along it with the
# row-major position inside the merged dims; writing (index_put_) computes each written
# element's row-major position in `self` and scatters with `put`, which sorts the positions
# once: duplicates keep the last value (torch's serial CPU order), or are added in order.


@dataclass(frozen=True, slots=True)
class AdvancedIndex:
    """What make_info computes: the indexed dims, their index tensors and the result's geometry.

    Torch: AdvancedIndex in TensorAdvancedIndexingUtils.h. `dims` are dims of `self` (bool
    masks already expanded to one index per dim); `front` is True when the indexed dims are
    not adjacent and move to the front of the result (transposeToFront).
    """

    dims: tuple[int, ...]
    indices: tuple[TensorImpl, ...]
    index_shape: Shape
    front: bool
    shape: Shape
    """The result's shape: dims before, the broadcast index shape, dims after."""
    others: tuple[int, ...]
    """The dims of `self` that no index names, in order."""
    before: int
    """How many of `others` come before the index dims in the result."""


def check_index_types(indices: Sequence[TensorImpl | None]) -> None:
    """Torch: checkIndexTensorTypes (allow_int) in IndexingUtils.h."""
    for index in indices:
        if index is not None and index._dtype not in INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def expand_tensors(self: TensorImpl, indices: Sequence[TensorImpl | None]) -> Indices:
    """Bool and byte masks replaced by one long index per masked dim (their nonzero columns).

    Torch: expandTensors in IndexingUtils.h.
    """
    result: Indices = []
    for index in indices:
        if index is None or index._dtype not in MASK_DTYPES:
            result.append(index)
            continue
        if index._dtype is uint8:
            warnings.warn(
                "indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                "torch.bool instead.",
                UserWarning,
                stacklevel=6,
            )
        for j, n in enumerate(index._size):
            src = len(result) + j
            size = self.size(src)
            if n != size:
                raise IndexError(
                    f"The shape of the mask {shape_text(index._size)} at index {j} does not "
                    f"match the shape of the indexed tensor {shape_text(self._size)} at "
                    f"index {src}"
                )
        nonzero = aten.nonzero.default(index)
        for j in range(len(index._size)):
            result.append(aten.select.int(nonzero, 1, j))
    return result


def make_info(self: TensorImpl, indices: Sequence[TensorImpl | None]) -> AdvancedIndex:
    """The indices checked, masks expanded, broadcast together and placed.

    Torch: make_info in TensorAdvancedIndexing.cpp and the AdvancedIndex constructor.
    """
    check_index_types(indices)
    expanded = expand_tensors(self, indices)
    present = [index for index in expanded if index is not None]
    index_shape: Shape = ()
    try:
        for index in present:
            index_shape = data.broadcast_shapes(index_shape, index._size)
    except RuntimeError:
        shapes = ", ".join(shape_text(index._size) for index in present)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    dims = tuple(d for d, index in enumerate(expanded) if index is not None)
    ndim = len(self._size)
    others = tuple(d for d in range(ndim) if d not in dims)
    # torch: hasContiguousSubspace; otherwise transposeToFront.
    front = bool(dims) and dims[-1] - dims[0] + 1 != len(dims)
    before = 0 if front or not dims else dims[0]
    indexed_sizes = [self._size[d] for d in dims]
    if 0 in indexed_sizes and 0 not in index_shape:
        # torch: no number is a valid index into an empty dim.
        raise IndexError("index is out of bounds for dimension with size 0")
    other_sizes = tuple(self._size[d] for d in others)
    shape = other_sizes[:before] + index_shape + other_sizes[before:]
    return AdvancedIndex(dims, tuple(present), index_shape, front, shape, others, before)


def result_strides(
    self: TensorImpl, info: AdvancedIndex, index_geometries: list[geometry.Geometry]
) -> Shape:
    """The strides TensorIterator gives index's output: ordered by the restrided `self`
    first, then by the index tensors (of `index_geometries`) viewed in the result's dims.

    Torch: make_index_iterator over restride_src and reshape_indexer (TensorAdvancedIndexing.cpp).
    """
    return _result_strides(
        info.shape,
        tuple(self._stride[d] for d in info.others),
        info.index_shape,
        info.before,
        tuple((g.size, g.stride) for g in index_geometries),
    )


# Cached: a program indexes tensors of a few geometries over and over.
@lru_cache(maxsize=4096)
def _result_strides(
    shape: Shape,
    other_strides: Shape,
    index_shape: Shape,
    before: int,
    index_geometries: tuple[tuple[Shape, Shape], ...],
) -> Shape:
    width = len(index_shape)
    src = other_strides[:before] + (0,) * width + other_strides[before:]
    voting: list[tuple[Shape, Shape]] = [(shape, src)]
    pad_before, pad_after = before, len(other_strides) - before
    for size, stride in index_geometries:
        expanded = geometry.expand(geometry.Geometry(size, stride, 0), index_shape)
        view_size = (1,) * pad_before + expanded.size + (1,) * pad_after
        view_stride = geometry.view_strides(expanded.size, expanded.stride, view_size)
        assert view_stride is not None  # adding size-1 dims is always a view
        voting.append((view_size, view_stride))
    if all(size == shape for size, _ in voting):
        # torch: compute_fast_setup_type, when every operand has the result's shape.
        fast = layout.fast_setup(voting)
        if fast is layout.FastSetup.CONTIGUOUS:
            return geometry.contiguous_strides(shape)
        if fast is layout.FastSetup.CHANNELS_LAST:
            return layout.channels_last_strides(shape)
        if fast is layout.FastSetup.NON_OVERLAPPING_DENSE:
            return voting[-1][1]
    operands = [layout.broadcast_strides(size, stride, shape) for size, stride in voting]
    order = layout.iteration_order(shape, operands)
    if layout.is_inverted(order):
        # torch: allocate_or_resize_outputs allocates a row-major order contiguously.
        return geometry.contiguous_strides(shape)
    return layout.strides_in_order(shape, order)


def index_arrays(backend: Backend, info: AdvancedIndex, sizes: Shape) -> list[Array]:
    """Each index as int64 in [0, size), after torch's bounds check.

    Torch: the TORCH_CHECK_INDEX of cpu_index_kernel (IndexKernel.cpp), which names the
    index's position among the indices, for the first element that fails; the check runs per
    element of the iteration, so an empty result checks nothing.
    """
    checked = geometry.numel(info.shape) != 0
    widen = tuple(index._dtype is not int64 for index in info.indices)
    check = tuple(bounds_check(index, checked) for index in info.indices)
    return bounded_arrays(backend, info.indices, sizes, info.index_shape, widen, check)


class Check(enum.Enum):
    """How an index's bounds are checked."""

    NONE = 0
    """Not at all: the result or the index has no elements."""
    HOST = 1
    """On the host, as Python ints: a short index (see _HOST_CHECK_MAX)."""
    ARRAY = 2
    """With the array library's min and max."""


# A reduction of the array library costs microseconds of fixed overhead per call (two per
# index), reading a short index as Python ints far less; the answer is the same.
_HOST_CHECK_MAX: Final = 32


def bounds_check(index: TensorImpl, checked: bool) -> Check:
    """How `index` is bounds-checked when the result has elements (`checked`)."""
    count = geometry.numel(index._size)
    if not checked or count == 0:
        return Check.NONE
    return Check.HOST if count <= _HOST_CHECK_MAX else Check.ARRAY


def bounded_arrays(
    backend: Backend,
    indices: Sequence[TensorImpl],
    sizes: Shape,
    index_shape: Shape,
    widen: tuple[bool, ...],
    check: tuple[Check, ...],
) -> list[Array]:
    """index_arrays with its metadata decisions made: which arrays become int64 (`widen`)
    and how each is bounds-checked (`check`)."""
    xp = backend.xp
    arrays = []
    for index, size, wide, how in zip(indices, sizes, widen, check, strict=True):
        array = array_of(index)
        if wide:
            array = xp.astype(array, xp.int64)
        if how is Check.HOST:
            values = backend.tolist(array if array.ndim == 1 else xp.reshape(array, (-1,)))
            low, high = min(values), max(values)
        elif how is Check.ARRAY:
            low, high = int(xp.min(array)), int(xp.max(array))
        else:
            arrays.append(array)
            continue
        if low < -size or high >= size:
            _raise_out_of_bounds(xp, indices, index_shape, sizes)
        if low < 0:
            array = xp.where(array < 0, array + size, array)
        arrays.append(array)
    return arrays


def _raise_out_of_bounds(
    xp: ArrayNamespace, indices: Sequence[TensorImpl], index_shape: Shape, sizes: Shape
) -> None:
    # The first element, in row-major order of the index shape, with a bad index; then the
    # first bad index of that element.
    bads = []
    for index, size in zip(indices, sizes, strict=True):
        array = xp.broadcast_to(xp.astype(array_of(index), xp.int64), index_shape)
        bads.append(xp.reshape((array >= size) | (array < -size), (-1,)))
    bad_any = bads[0]
    for bad in bads[1:]:
        bad_any = bad_any | bad
    first = int(xp.argmax(xp.astype(bad_any, xp.int8)))
    for position, (index, bad, size) in enumerate(zip(indices, bads, sizes)):
        if bool(bad[first]):
            value = xp.reshape(xp.broadcast_to(array_of(index), index_shape), (-1,))[first]
            raise IndexError(
                f"index {int(value)} is out of bounds for dimension {position} with size {size}"
            )


def merged_position(xp: ArrayNamespace, arrays: list[Array], sizes: Shape) -> Array:
    """The row-major position inside the indexed dims of each indexed element."""
    position = arrays[-1]
    step = sizes[-1]
    for array, size in zip(arrays[-2::-1], sizes[-2::-1]):
        position = position + array * step
        step *= size
    return position


def check_indices_device(self: TensorImpl, indices: Sequence[TensorImpl | None]) -> None:
    # torch: check_indices_on_cpu_or_selfdevice in TensorAdvancedIndexing.cpp.
    dev = self._storage.device
    for index in indices:
        if index is not None:
            where = index._storage.device
            if where.type != "cpu" and where != dev and where.type != "meta":
                raise IndexError(
                    "indices should be either on cpu or on the same device as the indexed "
                    f"tensor ({dev})"
                )


def check_count(self: TensorImpl, indices: Sequence[TensorImpl | None]) -> None:
    if not indices:
        raise IndexError("at least one index must be provided")
    ndim = len(self._size)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")


# Note [Advanced index plans]
# Everything advanced_index decides before it reads a value depends only on the metadata of
# `self` and of its indices (dtype, size, stride, device, backend; which slots are None): the
# checks in torch's order (count, devices, index dtypes, mask shapes, broadcasting, empty
# dims), the result's shape and strides (result_strides), and how the indexed dims of `self`
# are moved, merged and taken from. A plan holds those answers; `_PLANS` caches it by that
# metadata, so a repeated call makes no metadata decision: it reads the arrays, checks the
# bounds (the index values are data), takes and wraps the result. A call whose checks fail
# builds no plan, so it fails the same way every time. Masks other than a lone bool mask are
# not cached: expandTensors turns them into long indices by their values (and a uint8 mask
# warns on every call); make_info expands them and the long indices get a plan for that call.


@dataclass(frozen=True, slots=True)
class TakePlan:
    """How advanced_index reads long indices: make_info's and gather's metadata decisions."""

    dense: bool
    """Every slot of the indices holds one (none is None)."""
    sizes: Shape
    """The sizes of the indexed dims of `self`, one per index (the bounds)."""
    widen: tuple[bool, ...]
    """Which index arrays are cast to int64 (the int32 ones)."""
    check: tuple[Check, ...]
    """How each index is bounds-checked."""
    index_shape: Shape
    permute: tuple[int, ...] | None
    """`self`'s dims reordered so that the indexed ones are adjacent (None: they are)."""
    merged: Shape | None
    """The permuted `self` with the indexed dims merged into one axis (None: a single one)."""
    axis: int
    """That axis: how many dims of the result come before the index dims."""
    flat: bool
    """The index shape is not 1-D: positions are flattened and the taken values reshaped."""
    shape: Shape
    stride: Shape
    store: tuple[int, ...] | None
    """The permutation of the row-major values into the result's memory order."""
    dtype: DType
    device: Any
    backend: Backend | None


def take_plan(self: TensorImpl, info: AdvancedIndex, dense: bool) -> TakePlan:
    """The plan for `self` read at the long indices of `info` (see Note [Advanced index
    plans]; gather runs it); `dense`: no slot of the indices is None."""
    stride = result_strides(self, info, [index._geometry() for index in info.indices])
    sizes = tuple(self._size[d] for d in info.dims)
    order = info.others[: info.before] + info.dims + info.others[info.before :]
    permuted = tuple(self._size[d] for d in order)
    trail = permuted[info.before + len(info.dims) :]
    checked = geometry.numel(info.shape) != 0
    return TakePlan(
        dense=dense,
        sizes=sizes,
        widen=tuple(index._dtype is not int64 for index in info.indices),
        check=tuple(bounds_check(index, checked) for index in info.indices),
        index_shape=info.index_shape,
        permute=None if order == tuple(range(len(order))) else order,
        merged=None
        if len(sizes) == 1
        else (*permuted[: info.before], geometry.numel(sizes), *trail),
        axis=info.before,
        flat=len(info.index_shape) != 1,
        shape=info.shape,
        stride=stride,
        store=_store_order(info.shape, stride),
        dtype=self._dtype,
        device=self._storage.device,
        backend=self._storage.backend,
    )


def gather(self: TensorImpl, plan: TakePlan, indices: Sequence[TensorImpl]) -> Any:
    """The result of `plan` for `self` and its (present, long) `indices`: a new tensor. See
    Note [Advanced indices as positions]."""
    backend = plan.backend
    if backend is None:
        return tensor_over(None, plan.shape, plan.stride, plan.dtype, plan.device, None)
    xp = backend.xp
    arrays = bounded_arrays(backend, indices, plan.sizes, plan.index_shape, plan.widen, plan.check)
    values = array_of(self)
    if arrays:
        if plan.permute is not None:
            values = xp.permute_dims(values, plan.permute)
        if plan.merged is not None:
            values = xp.reshape(values, plan.merged)
        position = arrays[0] if len(arrays) == 1 else merged_position(xp, arrays, plan.sizes)
        if plan.flat:
            position = xp.reshape(position, (-1,))
        values = xp.take(values, position, axis=plan.axis)
        if plan.flat:
            values = xp.reshape(values, plan.shape)
    if plan.store is not None:
        values = xp.permute_dims(values, plan.store)
    return tensor_over(values, plan.shape, plan.stride, plan.dtype, plan.device, backend)


@dataclass(frozen=True, slots=True)
class MaskPlan:
    """How advanced_index reads a lone bool mask (NumPy's `x[mask]`): the result's layout
    for each count of True elements seen (see Note [Advanced index plans])."""

    trail: Shape
    """The sizes of the dims of `self` after the masked ones."""
    info: AdvancedIndex
    """make_info's answer for a count of 0; a count replaces its index shape."""
    layouts: dict[int, tuple[Shape, Shape, tuple[int, ...] | None]]
    """Per count: the result's shape, strides and memory order (`_store_order`)."""
    dtype: DType
    device: Any
    backend: Backend


def mask_plan(self: TensorImpl, mask: TensorImpl, backend: Backend) -> MaskPlan:
    width = len(mask._size)
    info = AdvancedIndex(
        dims=tuple(range(width)),
        indices=(),
        index_shape=(0,),
        front=False,
        shape=(0, *self._size[width:]),
        others=tuple(range(width, len(self._size))),
        before=0,
    )
    return MaskPlan(self._size[width:], info, {}, self._dtype, self._storage.device, backend)


def select_masked(self: TensorImpl, plan: MaskPlan, mask: TensorImpl) -> Any:
    """`self` read at a lone bool mask: NumPy's boolean indexing is the whole op (the
    elements nonzero's indices select, in the same order, read in one pass: the Array API's
    one data-dependent index)."""
    values = array_of(self)[array_of(mask)]
    count = int(values.shape[0])
    layout_ = plan.layouts.get(count)
    if layout_ is None:
        shape = (count, *plan.trail)
        info = dataclasses.replace(plan.info, index_shape=(count,), shape=shape)
        # torch: the mask becomes nonzero's columns, each a contiguous (count,) tensor.
        column = geometry.Geometry((count,), (1,), 0)
        stride = result_strides(self, info, [column] * len(info.dims))
        layout_ = (shape, stride, _store_order(shape, stride))
        if len(plan.layouts) < 64:
            plan.layouts[count] = layout_
    shape, stride, store = layout_
    if store is not None:
        values = plan.backend.xp.permute_dims(values, store)
    return tensor_over(values, shape, stride, plan.dtype, plan.device, plan.backend)


Plan = TakePlan | MaskPlan
_PLANS: dict[tuple[object, ...], Plan] = {}


def advanced_index(self: TensorImpl, indices: Sequence[TensorImpl | None]) -> Any:
    """`self` read at the advanced indices; a new tensor.

    Torch: the structured index op (TORCH_META_FUNC2(index, Tensor) and index_out) in
    TensorAdvancedIndexing.cpp. See Note [Advanced index plans].
    """
    # An absent index's key is its type, NoneType.
    key = (operand_key(self), *map(operand_key, indices))
    plan = _PLANS.get(key)
    if plan is None:
        check_count(self, indices)
        check_indices_device(self, indices)
        backend = self._storage.backend
        mask = lone_mask(indices)
        if mask is not None and backend is not None and mask._storage.backend is backend:
            expand_shape_check(self, mask)
            plan = mask_plan(self, mask, backend)
        else:
            info = make_info(self, indices)
            plan = take_plan(self, info, all(i is not None for i in indices))
            if any(i is not None and i._dtype in MASK_DTYPES for i in indices):
                # Masks, expanded by their values: this plan holds for this call only.
                return gather(self, plan, info.indices)
        if len(_PLANS) < 4096:
            _PLANS[key] = plan
    if isinstance(plan, MaskPlan):
        return select_masked(self, plan, indices[0])  # type: ignore[arg-type]  # the mask
    if plan.dense:
        return gather(self, plan, indices)  # type: ignore[arg-type]  # no None among them
    return gather(self, plan, [i for i in indices if i is not None])


def lone_mask(indices: Sequence[TensorImpl | None]) -> TensorImpl | None:
    """A bool mask that is the only index and starts at dim 0 (NumPy's `x[mask]`)."""
    if not indices or indices[0] is None or indices[0]._dtype is not bool_:
        return None
    if any(index is not None for index in indices[1:]):
        return None
    return indices[0]


def _store_order(shape: Shape, stride: Shape) -> tuple[int, ...] | None:
    """How values given row-major are permuted into the memory order of (`shape`,
    `stride`); None for a row-major layout."""
    if stride == geometry.contiguous_strides(shape):
        return None
    return tuple(reversed(layout.iteration_order(shape, [stride])))


def expand_shape_check(self: TensorImpl, mask: TensorImpl) -> None:
    # The checks make_info makes for a lone mask (expandTensors).
    for j, n in enumerate(mask._size):
        size = self.size(j)
        if n != size:
            raise IndexError(
                f"The shape of the mask {shape_text(mask._size)} at index {j} does not "
                f"match the shape of the indexed tensor {shape_text(self._size)} at index {j}"
            )


def expandable(size: Shape, shape: Shape) -> bool:
    # torch: is_expandable_to in ExpandUtils.h.
    if len(size) > len(shape):
        return False
    for n, target in zip(reversed(size), reversed(shape)):
        if n != target and n != 1:
            return False
    return True


def self_position(
    xp: ArrayNamespace, size: Shape, info: AdvancedIndex, arrays: list[Array]
) -> Array:
    """The row-major position in `self` of each element of the indexing result."""
    strides = geometry.contiguous_strides(size)
    rank = len(info.shape)
    width = len(info.index_shape)
    start = info.before
    position = xp.zeros(info.shape, dtype=xp.int64)
    for array, d in zip(arrays, info.dims, strict=True):
        array = xp.broadcast_to(array, info.index_shape)
        placed = xp.reshape(array, (1,) * start + info.index_shape + (1,) * (rank - start - width))
        position = position + placed * strides[d]
    for k, d in enumerate(info.others):
        axis = k if k < info.before else k + width
        shape = [1] * rank
        shape[axis] = size[d]
        steps = xp.arange(size[d], dtype=xp.int64) * strides[d]
        position = position + xp.reshape(steps, tuple(shape))
    return position


def put(
    xp: ArrayNamespace, flat: Array, position: Array, values: Array, *, accumulate: bool
) -> Array:
    """`flat` with `values` written (or added) at `position`: a scatter from the standard.

    Positions are sorted once (stably, so the elements of one position keep their order):
    without accumulate the last value of each position wins, as in torch's serial CPU loop;
    with it the values of a position are added one after another, as that loop adds them.
    """
    count = int(position.shape[0])
    if count == 0:
        return flat
    order = xp.argsort(position, stable=True)
    position = xp.take(position, order)
    values = xp.take(values, order)
    changes = position[1:] != position[:-1]
    true = xp.asarray([True])
    if accumulate:
        first = xp.concat((true, changes))
        starts = xp.nonzero(first)[0]
        counts = xp.concat((starts[1:], xp.asarray([count], dtype=starts.dtype))) - starts
        unique = xp.take(position, starts)
        total = xp.take(flat, unique)
        is_bool = values.dtype == xp.bool
        for rank in range(int(xp.max(counts))):
            has = counts > rank
            addend = xp.take(values, xp.clip(starts + rank, 0, count - 1))
            added = xp.logical_or(total, addend) if is_bool else total + addend
            total = xp.where(has, added, total)
        position, values = unique, total
    else:
        last = xp.concat((changes, true))
        position = position[last]
        values = values[last]
    # Each storage slot finds its written value (if any) by binary search.
    every = xp.arange(flat.shape[0], dtype=xp.int64)
    slot = xp.clip(xp.searchsorted(position, every), 0, int(position.shape[0]) - 1)
    hit = xp.take(position, slot) == every
    return xp.where(hit, xp.take(values, slot), flat)
