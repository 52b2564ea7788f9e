"""Advanced indices: how index.Tensor and index_put_ read their indices, and the gather and scatter they run.

Torch: make_info and AdvancedIndex (TensorAdvancedIndexingUtils.h, IndexingUtils.h:
checkIndexTensorTypes, expandTensors, transposeToFront, restride_src, reshape_indexer), the
output layout make_index_iterator gives, and the bounds checks of cpu_index_kernel
(native/cpu/IndexKernel.cpp). The op blocks that use these live in ops/index.py.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from refimpl._base.dtypes import bool_, int32, int64, uint8
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl, array_of, resize_for_output, tensor_over
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


def check_index_types(indices: Indices) -> None:
    """Torch: checkIndexTensorTypes (allow_int) in IndexingUtils.h."""
    for index in indices:
        if index is not None and index._dtype not in INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def expand_tensors(self: TensorImpl, indices: Indices) -> Indices:
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


def make_info(self: TensorImpl, indices: Indices) -> AdvancedIndex:
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


def index_arrays(xp: ArrayNamespace, info: AdvancedIndex, sizes: Shape) -> list[Array]:
    """Each index as int64 in [0, size), after torch's bounds check.

    Torch: the TORCH_CHECK_INDEX of cpu_index_kernel (IndexKernel.cpp), which names the
    index's position among the indices, for the first element that fails; the check runs per
    element of the iteration, so an empty result checks nothing.
    """
    arrays = []
    checked = geometry.numel(info.shape) != 0
    for index, size in zip(info.indices, sizes, strict=True):
        array = array_of(index)
        if array.dtype != xp.int64:
            array = xp.astype(array, xp.int64)
        if checked and geometry.numel(index._size):
            low, high = int(xp.min(array)), int(xp.max(array))
            if low < -size or high >= size:
                _raise_out_of_bounds(xp, info, sizes)
            if low < 0:
                array = xp.where(array < 0, array + size, array)
        arrays.append(array)
    return arrays


def _raise_out_of_bounds(xp: ArrayNamespace, info: AdvancedIndex, sizes: Shape) -> None:
    # The first element, in row-major order of the index shape, with a bad index; then the
    # first bad index of that element.
    bads = []
    for index, size in zip(info.indices, sizes, strict=True):
        array = xp.broadcast_to(xp.astype(array_of(index), xp.int64), info.index_shape)
        bads.append(xp.reshape((array >= size) | (array < -size), (-1,)))
    bad_any = bads[0]
    for bad in bads[1:]:
        bad_any = bad_any | bad
    first = int(xp.argmax(xp.astype(bad_any, xp.int8)))
    for position, (index, bad, size) in enumerate(zip(info.indices, bads, sizes)):
        if bool(bad[first]):
            value = xp.reshape(xp.broadcast_to(array_of(index), info.index_shape), (-1,))[first]
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


def check_indices_device(self: TensorImpl, indices: Indices) -> None:
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


def check_count(self: TensorImpl, indices: Indices) -> None:
    if not indices:
        raise IndexError("at least one index must be provided")
    ndim = len(self._size)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")


def gather(self: TensorImpl, info: AdvancedIndex) -> Array:
    """The indexed values, shaped like the result (row-major). See Note [Advanced indices as
    positions]."""
    backend = self._storage.backend
    assert backend is not None
    xp = backend.xp
    sizes = tuple(self._size[d] for d in info.dims)
    arrays = index_arrays(xp, info, sizes)
    source = array_of(self)
    if not info.dims:
        return source
    order = info.others[: info.before] + info.dims + info.others[info.before :]
    if order != tuple(range(len(order))):
        source = xp.permute_dims(source, order)
    lead = tuple(source.shape[: info.before])
    trail = tuple(source.shape[info.before + len(info.dims) :])
    count = geometry.numel(sizes)
    source = xp.reshape(source, (*lead, count, *trail))
    position = xp.reshape(merged_position(xp, arrays, sizes), (-1,))
    taken = xp.take(source, position, axis=info.before)
    return xp.reshape(taken, info.shape)


def lone_mask(self: TensorImpl, indices: Indices) -> TensorImpl | None:
    """A bool mask that is the only index and starts at dim 0 (NumPy's `x[mask]`)."""
    if not indices or indices[0] is None or indices[0]._dtype is not bool_:
        return None
    if any(index is not None for index in indices[1:]):
        return None
    return indices[0]


def advanced_index(self: TensorImpl, indices: Indices) -> Any:
    """`self` read at the advanced indices; a new tensor.

    Torch: the structured index op (TORCH_META_FUNC2(index, Tensor) and index_out) in
    TensorAdvancedIndexing.cpp.
    """
    check_count(self, indices)
    check_indices_device(self, indices)
    backend = self._storage.backend
    dev = self._storage.device
    mask = lone_mask(self, indices)
    if mask is not None and backend is not None and mask._storage.backend is backend:
        # NumPy's boolean indexing is the whole op: the elements nonzero's indices select,
        # in the same order, read in one pass (the Array API's one data-dependent index).
        expand_shape_check(self, mask)
        values = array_of(self)[array_of(mask)]
        count = int(values.shape[0])
        width = len(mask._size)
        # torch: the mask becomes nonzero's columns, each a contiguous (count,) tensor.
        info = AdvancedIndex(
            dims=tuple(range(width)),
            indices=(),
            index_shape=(count,),
            front=False,
            shape=tuple(values.shape),
            others=tuple(range(width, len(self._size))),
            before=0,
        )
        column = geometry.Geometry((count,), (1,), 0)
        stride = result_strides(self, info, [column] * width)
        return laid_out(backend.xp, values, info.shape, stride, self._dtype, dev, backend)
    info = make_info(self, indices)
    stride = result_strides(self, info, [index._geometry() for index in info.indices])
    if backend is None:
        return tensor_over(None, info.shape, stride, self._dtype, dev, None)
    values = gather(self, info)
    return laid_out(backend.xp, values, info.shape, stride, self._dtype, dev, backend)


def laid_out(
    xp: ArrayNamespace,
    values: Array,
    shape: Shape,
    stride: Shape,
    dtype: Any,
    dev: Any,
    backend: Any,
) -> Any:
    """A tensor of geometry (`shape`, `stride`) holding `values` (given row-major)."""
    if stride != geometry.contiguous_strides(shape):
        order = layout.iteration_order(shape, [stride])
        values = xp.permute_dims(values, tuple(reversed(order)))
    return tensor_over(values, shape, stride, dtype, dev, backend)


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
