"""What the ops indexing by index tensors share: kernel dtype gates, index checks, result delivery, reductions over the scatter primitive.

Torch: ScatterGatherChecks.h and the helpers of TensorAdvancedIndexing.cpp that gather,
scatter, index_add, index_copy, index_reduce, index_fill, index_select, take and put use;
resize_output (Resize.cpp) for their out= forms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import (
    DType,
    bool_,
    complex32,
    complex64,
    complex128,
    int32,
    int64,
    uint64,
)
from refimpl._base.keys import DispatchKey
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    resize_for_output,
    tensor_over,
    write_array,
)
from refimpl.ops import data
from refimpl.ops._outputs import overlap_status, planned_resize, warn_resize
from refimpl.ops._register import OpBlock
from refimpl.ops._scatter import ScatterReduce, reduction_identity, scatter_flat
from refimpl.ops.selection import type_meta_name

BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

# --- dtypes the CPU kernels dispatch over -------------------------------------------------
# torch: the AT_DISPATCH_* macro of each kernel; the wide unsigned types (uint64 is the one
# refimpl names) are in none of them.
UNSIGNED: Final = frozenset({uint64})
COMPLEX: Final = frozenset({complex32, complex64, complex128})
NOT_SCATTER_GATHER: Final = UNSIGNED | {
    complex32
}  # ALL_TYPES_AND_COMPLEX_AND3(Bool, Half, BFloat16)
NOT_MEAN: Final = NOT_SCATTER_GATHER | {bool_}
NOT_MINMAX: Final = NOT_SCATTER_GATHER | COMPLEX
NOT_INDEX_FUNC: Final = UNSIGNED | COMPLEX | {bool_}  # index_reduce: ALL_TYPES_AND2(Half, BFloat16)
INDEX_DTYPES: Final = frozenset({int32, int64})


def check_kernel_dtype(dtype: DType, kernel: str, refused: frozenset[DType]) -> None:
    if dtype in refused:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


# --- shared pieces ------------------------------------------------------------------------


def shape_text(size: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, size)) + "]"


def rank1(t: TensorImpl) -> int:
    # torch: ensure_nonempty_dim: a 0-dim tensor counts as one element along one dim.
    return max(len(t._size), 1)


def size1(t: TensorImpl, dim: int) -> int:
    # torch: ensure_nonempty_size.
    return t._size[dim] if t._size else 1


def array1(t: TensorImpl) -> Array:
    """The tensor's values with at least one dim (a 0-dim tensor as shape (1,))."""
    values = array_of(t)
    return values if t._size else t._storage.backend.xp.reshape(values, (1,))  # type: ignore[union-attr]  # data tensors have a backend


def index_values(xp: ArrayNamespace, t: TensorImpl) -> Array:
    """An index tensor's values as int64 (no copy for an int64 tensor), at least 1-dim."""
    return xp.astype(array1(t), xp.int64, copy=False)


def first_outside(xp: ArrayNamespace, index: Array, low: int, high: int) -> int | None:
    """The first index value (row-major) outside [low, high), or None."""
    if index.size == 0 or (int(xp.min(index)) >= low and int(xp.max(index)) < high):
        return None
    bad = xp.reshape((index < low) | (index >= high), (-1,))
    if not bool(xp.any(bad)):
        return None
    first = xp.argmax(xp.astype(bad, xp.int8))
    return int(xp.reshape(index, (-1,))[first])


def check_out_dtype(out: TensorImpl, dtype: DType) -> None:
    # torch: resize_out of the structured kernels' generated code.
    if out._dtype is not dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {type_meta_name(dtype)}, but got "
            f"{type_meta_name(out._dtype)} instead"
        )


def resize_out(out: TensorImpl, size: tuple[int, ...]) -> None:
    """Torch: at::native::resize_output (Resize.cpp): a non-empty `out` of another shape is
    resized with torch's deprecation warning."""
    if out._size != size:
        warn_resize(out, size)
        resize_for_output(out, size, geometry.contiguous_strides(size))


def emit(
    self: TensorImpl,
    values: Array | None,
    size: tuple[int, ...],
    out: TensorImpl | None,
    inplace: bool,
    inputs: tuple[TensorImpl | object, ...] = (),
    *,
    structured: bool = False,
) -> Any:
    """Deliver a result computed as `values` (None: no data, or nothing to write): into
    self, into out (resized), or as a new contiguous tensor. `inputs` are the tensors the
    written one must not share memory with.

    `structured`: torch's kernel is structured (gather, scatter, index_add, ...), whose meta
    function resizes `out` before its impl asserts the overlaps, so they are judged on the
    resized geometry (planned_resize): `gather(t, 0, ind[1:], out=ind[:1])` grows `out` over
    `ind[1]` and raises. The other kernels (index_select, take) assert on `out` as given,
    then resize it."""
    target = self if inplace else out
    if target is None:
        backend = self._storage.backend
        if backend is not None and values is None:
            values = backend.xp.zeros(size, dtype=backend_dtype(backend, self._dtype))
        stride = geometry.contiguous_strides(size)
        return tensor_over(values, size, stride, self._dtype, self._storage.device, backend)
    resizing = not inplace and target._size != size
    after = None  # the geometry a structured kernel's meta function gives `out` first
    if resizing and structured:
        after = planned_resize(target, size, geometry.contiguous_strides(size))
    else:
        # torch: assert_no_internal_overlap on the written tensor (an expanded out or self;
        # a resized one is contiguous).
        data.check_writable(target)
    # torch: assert_no_overlap of the written tensor with each input.
    for value in inputs:
        if (
            isinstance(value, TensorImpl)
            and not (inplace and value is target)
            and value._storage is target._storage
            and overlap_status(target, value, after) is not layout.Overlap.NO
        ):
            raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)
    if after is not None:
        resize_for_output(target, *after)
    elif resizing:
        resize_out(target, size)
    if values is not None:
        write_array(target, values)
    return target


def register(block: OpBlock, fn: Callable[..., Any], keys: tuple[DispatchKey, ...]) -> None:
    for key in keys:
        block.kernel(key)(fn)


# --- reductions -----------------------------------------------------------------------------

# A reduction as the kernels run it: how values combine, and whether to divide by the count.
Reduction = tuple[ScatterReduce, bool]
SET: Final[Reduction] = (ScatterReduce.SET, False)
SUM: Final[Reduction] = (ScatterReduce.SUM, False)


def reduce_into(
    xp: ArrayNamespace,
    dtype: DType,
    flat: Array,
    positions: Array,
    updates: Array,
    mode: Reduction,
    include_self: bool,
) -> Array:
    """`flat` with `updates` reduced in at `positions`; a mean divides by the count.

    Torch: scatter_reduce_two_impl / index_reduce_func_impl: positions a value reaches start
    from the reduction's identity when include_self is False; mean divides by the number of
    values (plus one for self), rounding down for integers.
    """
    reduce, is_mean = mode
    if not include_self:
        start = xp.full(updates.shape, reduction_identity(reduce, dtype), dtype=flat.dtype)
        flat = scatter_flat(xp, flat, positions, start, ScatterReduce.SET)
    result = scatter_flat(xp, flat, positions, updates, reduce)
    if not is_mean:
        return result
    counts = xp.full(flat.shape, 1 if include_self else 0, dtype=xp.int64)
    ones = xp.ones(positions.shape, dtype=xp.int64)
    counts = scatter_flat(xp, counts, positions, ones, ScatterReduce.SUM)
    counts = xp.astype(xp.where(counts == 0, xp.ones_like(counts), counts), flat.dtype)
    if dtype.is_floating_point or dtype.is_complex:
        return result / counts
    return xp.floor_divide(result, counts)
