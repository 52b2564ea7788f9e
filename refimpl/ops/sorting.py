"""Sorting as aten ops: sort, argsort, msort and topk.

Torch: Sorting.cpp (sort_stable meta and CPU kernels, topk), SortingKernel.cpp and
TopKImpl.h (the CPU loops), TensorCompare.cpp (argsort and msort decompose into sort). The
order is torch's: ascending by value with NaN greater than every number (descending puts
NaN first), -0.0 equal to 0.0, equal values in index order for a stable sort.

Note [Order among equal values]
torch's CPU sort with `stable=False` runs std::sort per row (libstdc++'s introsort, through
a composite (value, index) accessor, SortingKernel.cpp sort_kernel_impl), except for a
1-dim integer tensor of at least 32768 elements sorted ascending, which goes to fbgemm's
radix sort (can_use_radix_sort), a stable sort. (This build of torch does not use
x86-simd-sort: its int32/int64/float32/float64 rows come out in introsort's order too,
measured.) Rows of at most 16 elements are a plain insertion sort, the stable order. For
longer rows equal values come out in the order only that introsort defines, and refimpl
replays it (`_scan.introsort_order`) for rows that hold equal values, up to
_REPLAY_SORT_LIMIT elements; rows without equal values have one order under every
algorithm. Differs: rows longer than _REPLAY_SORT_LIMIT with equal values, where a replay in
Python would cost seconds, take the library's unstable sort: the values are torch's, the
indices among equal values are not (and `torch.sort` on 10^6 elements costs what the
library's quicksort argsort costs, not its merge sort).
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import int64
from refimpl._base.keys import DispatchKey
from refimpl._base.layout import strided
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, empty_strided_tensor, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _scan
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import value_selecting_reduction_backward
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._reduction import check_out_dtype, has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, new_tensor, registered, write_values, xp_of

aten: Final = namespace("aten")

# torch: std::sort's insertion-sort threshold (libstdc++ _S_threshold): shorter rows come out
# of the unstable sort in the stable order.
_INSERTION_SORT_ROWS: Final = 16
# torch: can_use_radix_sort's numel >= at::internal::GRAIN_SIZE.
_RADIX_SORT_MIN: Final = 32768
# The longest row whose introsort order refimpl replays (see Note [Order among equal values]).
_REPLAY_SORT_LIMIT: Final = 1 << 16


def _sort_keys(values: list[Any], descending: bool) -> list[tuple[int, Any]]:
    """torch's comparators (KeyValueCompAsc / KeyValueCompDesc) as `<` on keys: NaN after
    every number ascending, before every number descending, NaNs equivalent."""
    if descending:
        return [(0, 0) if _is_nan(v) else (1, -v) for v in values]
    return [(1, 0) if _is_nan(v) else (0, v) for v in values]


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def sort_order(
    xp: Any, rows: Any, descending: bool, stable: bool, *, radix: bool = False, backend: Any = None
) -> Any:
    """The order (int64 indices) that sorts each row of `rows` (last axis) as torch does.

    Torch: the comparators of SortingKernel.cpp (KeyValueCompAsc / KeyValueCompDesc): NaN
    after every number ascending, before every number descending. The standard leaves the
    place of NaN open, so rows with NaNs are ordered by value with NaNs as zero, then NaNs
    moved to their end in a second, stable pass. `radix`: torch's radix sort applies (a 1-dim
    integer tensor). With `backend`, a stable order of rows of 4096 or more elements of 32
    bits or fewer comes from packed keys (Note [Sorting packed keys]), and an unstable sort
    replays introsort for rows with equal values (Note [Order among equal values]); without
    it an unstable sort is the library's.
    """
    # torch: isIntegralType(includeBool=false): bool rows are not radix sorted.
    integral = xp.isdtype(rows.dtype, "integral")
    rows = _scan.comparable(xp, rows)
    n = rows.shape[-1]
    radix = radix and not descending and n >= _RADIX_SORT_MIN and integral
    replay = backend is not None and not stable and not radix and _INSERTION_SORT_ROWS < n
    stable = stable or radix or n <= _INSERTION_SORT_ROWS or (replay and n <= _REPLAY_SORT_LIMIT)
    packed = _packed_order(xp, backend, rows, descending) if stable and n >= _PACKED_MIN else None
    nan = xp.isnan(rows) if packed is None and xp.isdtype(rows.dtype, "real floating") else None
    if packed is not None:
        order = packed
    elif nan is None or not bool(xp.any(nan)):
        order = xp.argsort(rows, axis=-1, descending=descending, stable=stable)
    else:
        keys = xp.where(nan, xp.zeros_like(rows), rows)
        order = xp.argsort(keys, axis=-1, descending=descending, stable=True)
        nan_in_order = xp.astype(xp.take_along_axis(nan, order, axis=-1), xp.uint8)
        by_nan = xp.argsort(nan_in_order, axis=-1, descending=descending, stable=True)
        order = xp.take_along_axis(order, by_nan, axis=-1)
    if not replay or n > _REPLAY_SORT_LIMIT:
        return order
    ranked = xp.take_along_axis(rows, order, axis=-1)
    tied = xp.any(_scan.same_as(xp, ranked[..., 1:], ranked[..., :-1]), axis=-1)
    if not bool(xp.any(tied)):
        return order
    row_lists = backend.tolist(xp.reshape(rows, (-1, n)))
    stable_lists = backend.tolist(xp.reshape(order, (-1, n)))
    which = backend.tolist(xp.reshape(tied, (-1,)))
    replayed = [
        _scan.introsort_order(_sort_keys(row, descending)) if redo else kept
        for row, kept, redo in zip(row_lists, stable_lists, which, strict=True)
    ]
    return xp.reshape(xp.asarray(replayed, dtype=xp.int64), order.shape)


# Note [Sorting packed keys]
# A stable order of a row of 32-bit-or-narrower values can come from one sort of plain 64-bit
# integers: each element's value mapped to 32 bits that order as torch's comparator orders
# the values (floats by their bits with the sign folded, -0.0 as 0.0, every NaN as one value
# above +inf; integers offset by 2^31), in the high half, its position in the low half. The
# library sorts integers faster than it argsorts stably (no index array travels with the
# keys; measured with NumPy 2.4 on 10^6 float32: 166 ms against 250 ms, while its unstable
# argsort takes 148 ms and is kept where the order among equal values is free); the order is
# exactly what argsort with stable=True gives. Float rows need the backend's bitcast (not
# array_api_strict's).

_PACKED_MIN: Final = 1 << 12
# float dtype name -> (the unsigned integer dtype of its width, the position of its sign bit)
_PACKED_FLOATS: Final = {"float16": ("uint16", 15), "float32": ("uint32", 31)}
_PACKED_UNSIGNED: Final = ("uint8", "uint16", "uint32")
_PACKED_SIGNED: Final = ("int8", "int16", "int32")


def _dtype_name(xp: Any, dtype: Any) -> str | None:
    names = (*_PACKED_FLOATS, *_PACKED_UNSIGNED, *_PACKED_SIGNED)
    return next((name for name in names if dtype == getattr(xp, name, None)), None)


def _packed_order(xp: Any, backend: Any, rows: Any, descending: bool) -> Any:
    """The stable order of each row from one sort of packed keys, or None where the dtype
    or backend does not allow it. See Note [Sorting packed keys]."""
    n = rows.shape[-1]
    if backend is None or n >= 1 << 32:
        return None
    name = _dtype_name(xp, rows.dtype)
    if name in _PACKED_FLOATS:
        if not backend.supports_bitcast:
            return None
        unsigned_name, sign = _PACKED_FLOATS[name]
        # one NaN and one zero: NaN's bits above +inf's, -0.0 as 0.0
        canonical = xp.where(xp.isnan(rows), xp.asarray(math.nan, dtype=rows.dtype), rows + 0.0)
        flat = backend.bitcast(backend.flatten(canonical), getattr(xp, unsigned_name))
        bits = xp.astype(xp.reshape(flat, rows.shape), xp.uint32)
        negative = xp.astype(xp.bitwise_right_shift(bits, sign), xp.bool)
        full = (1 << (sign + 1)) - 1
        key = xp.where(negative, full - bits, bits + (1 << sign))
    elif name in _PACKED_UNSIGNED:
        key = xp.astype(rows, xp.uint32)
    elif name in _PACKED_SIGNED:
        key = xp.astype(xp.astype(rows, xp.int64) + (1 << 31), xp.uint32)
    else:
        return None
    if descending:
        key = xp.bitwise_invert(key)
    position = xp.arange(n, dtype=xp.uint64)
    packed = xp.bitwise_or(xp.bitwise_left_shift(xp.astype(key, xp.uint64), 32), position)
    ordered = xp.sort(packed, axis=-1)
    return xp.astype(xp.bitwise_and(ordered, xp.asarray(0xFFFFFFFF, dtype=xp.uint64)), xp.int64)


def _check_sortable(self: TensorImpl, op: str) -> None:
    # torch: the CPU kernels' checks (sort_stable_kernel, topk_out_cpu), after the meta
    # functions: a meta tensor of a complex dtype sorts.
    if has_data(self) and self._dtype.is_complex:
        raise RuntimeError(f" {op} does not support complex dtypes on CPU")


def _prepare_out(out: TensorImpl, self: TensorImpl, dtype: Any, stride: tuple[int, ...]) -> None:
    """Torch: a structured kernel's out= handling (resize_out in the generated code): the
    dtype must match, an out of another shape is resized and takes the strides the
    functional form would have."""
    check_out_dtype(out, dtype)
    resize_output(out, self._size, stride)


# --- sort ----------------------------------------------------------------------------------


sort = defop("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")


@sort.kernel(CEA)
def sort_kernel(self: TensorImpl, dim: int, descending: bool) -> Any:
    """Torch: sort (Sorting.cpp): sort.stable with stable=False."""
    return aten.sort.stable(self, stable=False, dim=dim, descending=descending)


@sort.derivative("self")
def sort_backward(grad: Tensor, dim: int, indices: Tensor, self_sym_sizes: Any) -> Tensor:
    # torch: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(),
    #   true)
    return value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, True)


non_differentiable_outputs("aten::sort", "indices")


sort_stable = defop(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
    "(Tensor values, Tensor indices)"
)


@registered(sort_stable)
def sort_stable_kernel(self: TensorImpl, *, stable: bool | None, dim: int, descending: bool) -> Any:
    """Torch: sort_stable (structured; TORCH_META_FUNC(sort_stable)): the outputs take
    `self`'s strides when they are dense (empty_like), and `sort_stable_out` fills them."""
    geometry.wrap_dim(dim, len(self._size))
    stride = geometry.dense_strides_like(self._size, self._stride)
    device, backend = self._storage.device, self._storage.backend
    computed = _sorted_arrays(self, stable, dim, descending)
    if computed is not None and stride == geometry.contiguous_strides(self._size):
        # The usual case: contiguous results own the computed arrays, with no copy.
        return (
            tensor_over(computed[0], self._size, stride, self._dtype, device, backend),
            tensor_over(computed[1], self._size, stride, int64, device, backend),
        )
    values = empty_strided_tensor(self._size, stride, self._dtype, device, backend)
    indices = empty_strided_tensor(self._size, stride, int64, device, backend)
    if computed is not None:
        write_values(values, computed[0])
        write_values(indices, computed[1])
    return values, indices


sort_stable.derivative("self")(sort_backward)
non_differentiable_outputs("aten::sort.stable", "indices")


sort_values = defop(
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@sort_values.kernel(CEA)
def sort_values_kernel(
    self: TensorImpl, dim: int, descending: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """Torch: sort_out (Sorting.cpp): sort.values_stable with stable=False."""
    return aten.sort.values_stable(
        self, stable=False, dim=dim, descending=descending, values=values, indices=indices
    )


sort_values_stable = defop(
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(sort_values_stable)
def sort_values_stable_kernel(
    self: TensorImpl,
    *,
    stable: bool | None,
    dim: int,
    descending: bool,
    values: TensorImpl,
    indices: TensorImpl,
) -> Any:
    """Torch: sort_stable_out: the meta function's checks (dim, out dtypes and sizes), then
    the CPU kernel's."""
    geometry.wrap_dim(dim, len(self._size))
    stride = geometry.dense_strides_like(self._size, self._stride)
    _prepare_out(values, self, self._dtype, stride)
    _prepare_out(indices, self, int64, stride)
    return _sort_into(self, stable, dim, descending, values, indices)


def _sorted_arrays(
    self: TensorImpl, stable: bool | None, dim: int, descending: bool
) -> tuple[Any, Any] | None:
    """The sorted values and their indices as arrays shaped like `self`, after the CPU
    kernel's dtype check; None where there is nothing to compute (meta, empty)."""
    _check_sortable(self, "Sort")
    if not has_data(self) or geometry.numel(self._size) == 0:
        return None
    xp = xp_of(self)
    a = array_of(self)
    if a.ndim == 0:
        # torch: a 0-dim tensor is its own sort, at index 0 (a copy: the result owns it).
        return xp.asarray(a, copy=True), xp.zeros((), dtype=xp.int64)
    axis = geometry.wrap_dim(dim, a.ndim)
    rows = _scan.last_axis(xp, a, axis)
    order = sort_order(
        xp, rows, descending, bool(stable), radix=a.ndim == 1, backend=self._storage.backend
    )
    sorted_rows = xp.take_along_axis(rows, order, axis=-1)
    return _scan.from_last_axis(xp, sorted_rows, axis), _scan.from_last_axis(xp, order, axis)


def _sort_into(
    self: TensorImpl,
    stable: bool | None,
    dim: int,
    descending: bool,
    values: TensorImpl,
    indices: TensorImpl,
) -> tuple[TensorImpl, TensorImpl]:
    computed = _sorted_arrays(self, stable, dim, descending)
    if computed is not None:
        write_values(values, computed[0])
        write_values(indices, computed[1])
    return values, indices


# --- argsort, msort (decompositions) --------------------------------------------------------


argsort = defop("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")


@argsort.decomposition
def argsort_kernel(self: TensorImpl, dim: int, descending: bool) -> Any:
    """Torch: argsort (TensorCompare.cpp): the indices of sort(self, dim, descending)."""
    return aten.sort.default(self, dim, descending)[1]


argsort_stable = defop(
    "argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor"
)


@argsort_stable.decomposition
def argsort_stable_kernel(self: TensorImpl, *, stable: bool, dim: int, descending: bool) -> Any:
    """Torch: argsort_stable (TensorCompare.cpp): the indices of sort.stable."""
    return aten.sort.stable(self, stable=stable, dim=dim, descending=descending)[1]


argsort_stable_out = defop(
    "argsort.stable_out(Tensor self, *, bool stable, int dim=-1, bool descending=False, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@argsort_stable_out.decomposition
def argsort_stable_out_kernel(
    self: TensorImpl, *, stable: bool, dim: int, descending: bool, out: TensorImpl
) -> Any:
    """Torch: argsort_stable_out (TensorCompare.cpp): sort.values_stable into a new empty
    values tensor (at::empty({0}, self.options())) and `out`."""
    values = aten.empty.memory_format(
        [0], dtype=self._dtype, layout=strided, device=self._storage.device
    )
    aten.sort.values_stable(
        self, stable=stable, dim=dim, descending=descending, values=values, indices=out
    )
    return out


msort = defop("msort(Tensor self) -> Tensor")


@msort.decomposition
def msort_kernel(self: TensorImpl) -> Any:
    """Torch: msort (TensorCompare.cpp): the values of sort(self, 0)."""
    return aten.sort.default(self, 0)[0]


msort_out = defop("msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@msort_out.decomposition
def msort_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: msort_out (TensorCompare.cpp): sort.values into `out` and a new empty int64
    indices tensor."""
    indices = aten.empty.memory_format(
        [0], dtype=int64, layout=strided, device=self._storage.device
    )
    aten.sort.values(self, 0, values=out, indices=indices)
    return out


# --- topk -----------------------------------------------------------------------------------
# Note [topk among equal values]
# torch's CPU topk (topk_impl_loop in TopKImpl.h) fills a queue of (value, index) pairs per
# row and runs std::partial_sort over the first k when k * 64 <= n, else std::nth_element at
# k - 1 followed (sorted=True) by std::sort of the first k - 1; its comparator orders by
# value only, NaN beyond every number. The values are the row's k largest (smallest) either
# way, but which of several equal values is taken, and with sorted=False the order of the k,
# is what libstdc++'s algorithms leave. refimpl takes the stable order where no two of the
# first k + 1 values of a row are equal (then every algorithm agrees) and replays libstdc++
# (`_replay_topk`) for the other rows, and for sorted=False on the nth_element path. Differs:
# rows longer than _REPLAY_LIMIT are not replayed (a replay in Python would cost seconds):
# their values are torch's, but among equal values the indices are the stable order's, and
# with sorted=False they come out sorted.

_REPLAY_LIMIT: Final = 1 << 16
_PARTIAL_SORT_FACTOR: Final = 64  # torch: use_partial_sort = k * 64 <= n


def _adjust_heap(keys: list[Any], where: list[int], hole: int, length: int, top: int) -> None:
    """libstdc++'s std::__adjust_heap over keys[top:top+length] with `<`: the value at
    `hole` sifted down to a leaf, then pushed up (std::__push_heap)."""
    value, origin = keys[top + hole], where[top + hole]
    top_index, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[top + child] < keys[top + child - 1]:
            child -= 1
        keys[top + hole], where[top + hole] = keys[top + child], where[top + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[top + hole], where[top + hole] = keys[top + child - 1], where[top + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top_index and keys[top + parent] < value:
        keys[top + hole], where[top + hole] = keys[top + parent], where[top + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[top + hole], where[top + hole] = value, origin


def _pop_heap(keys: list[Any], where: list[int], first: int, last: int, result: int) -> None:
    """libstdc++'s std::__pop_heap: the top of heap [first, last) moved to `result`, whose
    value is sifted into the heap."""
    keys[first], keys[result] = keys[result], keys[first]
    where[first], where[result] = where[result], where[first]
    _adjust_heap(keys, where, 0, last - first, first)


def _heap_select(keys: list[Any], where: list[int], first: int, middle: int, last: int) -> None:
    """libstdc++'s std::__heap_select: a max-heap of [first, middle) that every later element
    less than its top replaces."""
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(keys, where, parent, length, first)
    for i in range(middle, last):
        if keys[i] < keys[first]:
            _pop_heap(keys, where, first, middle, i)


def _partial_sort(keys: list[Any], where: list[int], k: int) -> None:
    """libstdc++'s std::partial_sort(begin, begin + k, end): heap select, then sort_heap."""
    _heap_select(keys, where, 0, k, len(keys))
    last = k
    while last > 1:
        last -= 1
        _pop_heap(keys, where, 0, last, last)


def _insertion_sort(keys: list[Any], where: list[int], first: int, last: int) -> None:
    """libstdc++'s std::__insertion_sort of [first, last) with `<`."""
    for i in range(first + 1, last):
        value, origin = keys[i], where[i]
        if value < keys[first]:
            keys[first + 1 : i + 1], where[first + 1 : i + 1] = keys[first:i], where[first:i]
            keys[first], where[first] = value, origin
            continue
        j = i - 1
        while value < keys[j]:
            keys[j + 1], where[j + 1] = keys[j], where[j]
            j -= 1
        keys[j + 1], where[j + 1] = value, origin


def _nth_element(keys: list[Any], where: list[int], nth: int) -> None:
    """libstdc++'s std::nth_element (std::__introselect) with `<`: median-of-three pivots
    and unguarded partitions until 3 elements or fewer remain, then insertion sort."""

    def swap(i: int, j: int) -> None:
        keys[i], keys[j] = keys[j], keys[i]
        where[i], where[j] = where[j], where[i]

    first, last = 0, len(keys)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(keys, where, first, nth + 1, last)
            swap(first, nth)
            return
        depth -= 1
        a, b, c = first + 1, first + (last - first) // 2, last - 1
        if keys[a] < keys[b]:
            median = b if keys[b] < keys[c] else (c if keys[a] < keys[c] else a)
        else:
            median = a if keys[a] < keys[c] else (c if keys[b] < keys[c] else b)
        swap(first, median)
        low, high = first + 1, last
        while True:
            while keys[low] < keys[first]:
                low += 1
            high -= 1
            while keys[first] < keys[high]:
                high -= 1
            if not low < high:
                break
            swap(low, high)
            low += 1
        if low <= nth:
            first = low
        else:
            last = low
    _insertion_sort(keys, where, first, last)


def _replay_topk(values: list[Any], k: int, largest: bool, sort: bool) -> list[int]:
    """The row indices torch's CPU topk returns for one row. See Note [topk among equal
    values]."""
    keys = _sort_keys(values, largest)
    where = list(range(len(keys)))
    if k * _PARTIAL_SORT_FACTOR <= len(keys):
        _partial_sort(keys, where, k)
        return where[:k]
    _nth_element(keys, where, k - 1)
    if sort:
        head = where[: k - 1]
        return [head[i] for i in _scan.introsort_order(keys[: k - 1])] + [where[k - 1]]
    return where[:k]


def _topk_rows(backend: Any, rows: Any, k: int, largest: bool, sort: bool) -> Any:
    """The indices of each row's top k in torch's order. See Note [topk among equal values]."""
    xp = backend.xp
    n = rows.shape[-1]
    order = sort_order(xp, rows, largest, stable=True, backend=backend)
    head = order[..., : min(k + 1, n)]
    ranked = xp.take_along_axis(_scan.comparable(xp, rows), head, axis=-1)
    tied = xp.any(_scan.same_as(xp, ranked[..., 1:], ranked[..., :-1]), axis=-1)
    unsorted_path = not sort and k * _PARTIAL_SORT_FACTOR > n and k > 1
    replay = xp.ones_like(tied) if unsorted_path else tied
    chosen = order[..., :k]
    if n > _REPLAY_LIMIT or not bool(xp.any(replay)):
        return chosen
    # Each row as Python numbers, which compare as the elements do.
    row_lists = backend.tolist(xp.reshape(rows, (-1, n)))
    chosen_lists = backend.tolist(xp.reshape(chosen, (-1, k)))
    which = backend.tolist(xp.reshape(replay, (-1,)))
    replayed = [
        _replay_topk(row, k, largest, sort) if redo else picked
        for row, picked, redo in zip(row_lists, chosen_lists, which, strict=True)
    ]
    return xp.reshape(xp.asarray(replayed, dtype=xp.int64), chosen.shape)


def _check_k(self: TensorImpl, k: int, dim: int) -> int:
    """The wrapped dim after torch's k check. Torch: TORCH_META_FUNC(topk) (Sorting.cpp)."""
    axis = geometry.wrap_dim(dim, len(self._size))
    slice_size = self._size[axis] if self._size else 1
    if not 0 <= k <= slice_size:
        raise RuntimeError("selected index k out of range")
    return axis


def _topk_shape(self: TensorImpl, k: int, axis: int) -> tuple[int, ...]:
    return tuple(k if d == axis else s for d, s in enumerate(self._size))


def _topk_into(
    self: TensorImpl,
    k: int,
    axis: int,
    largest: bool,
    sort: bool,
    values: TensorImpl,
    indices: TensorImpl,
) -> tuple[TensorImpl, TensorImpl]:
    """Torch: topk_out_cpu (Sorting.cpp) over topk_impl_loop (TopKImpl.h): the dtype checks,
    then the selection. See Note [topk among equal values]."""
    if has_data(self):
        if self._dtype.is_complex:
            raise RuntimeError(" topk does not support complex dtypes on CPU")
        if self._dtype.name == "bool":
            raise RuntimeError("topk does not support bool dtypes on CPU")
    if not has_data(self) or geometry.numel(values._size) == 0:
        return values, indices
    backend = self._storage.backend
    xp = xp_of(self)
    a = array_of(self)
    if a.ndim == 0:
        # torch: a 0-dim input is its own top 1, at index 0.
        write_values(values, a)
        write_values(indices, xp.zeros((), dtype=xp.int64))
        return values, indices
    rows = _scan.last_axis(xp, a, axis)
    where = _topk_rows(backend, rows, k, largest, sort)
    write_values(values, _scan.from_last_axis(xp, xp.take_along_axis(rows, where, axis=-1), axis))
    write_values(indices, _scan.from_last_axis(xp, where, axis))
    return values, indices


topk = defop(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
    "(Tensor values, Tensor indices)"
)


def topk_kernel(self: TensorImpl, k: int, dim: int, largest: bool, sort: bool) -> Any:
    """The k largest (smallest) elements along `dim` and their indices, in new contiguous
    tensors. Torch: topk (structured, TORCH_META_FUNC(topk) and topk_out_cpu)."""
    axis = _check_k(self, k, dim)
    shape = _topk_shape(self, k, axis)
    values, indices = new_tensor(self, shape, self._dtype), new_tensor(self, shape, int64)
    return _topk_into(self, k, axis, largest, sort, values, indices)


for _key in (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.CompositeExplicitAutogradNonFunctional):
    topk.kernel(_key)(topk_kernel)


@topk.kernel(DispatchKey.Meta)
def topk_meta(self: TensorImpl, k: int, dim: int, largest: bool, sort: bool) -> Any:
    """Torch: topk_meta (torch/_meta_registrations.py), which replaces the C++ meta function
    for the functional form: its checks say "k not in range for dimension"."""
    axis = geometry.wrap_dim(dim, len(self._size))
    if k < 0:
        raise RuntimeError(
            "Expected cond to be True, but got False. (Could this error message be improved? "
            "If so, please report an enhancement request to PyTorch.)"
        )
    if k > (self._size[axis] if self._size else 1):
        raise RuntimeError("k not in range for dimension")
    shape = _topk_shape(self, k, axis)
    return new_tensor(self, shape, self._dtype), new_tensor(self, shape, int64)


@topk.derivative("self")
def topk_backward(grad: Tensor, dim: int, indices: Tensor, self_sym_sizes: Any) -> Tensor:
    # torch: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(),
    #   true)
    return value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, True)


non_differentiable_outputs("aten::topk", "indices")


topk_values = defop(
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(topk_values)
def topk_values_kernel(
    self: TensorImpl,
    k: int,
    dim: int,
    largest: bool,
    sort: bool,
    *,
    values: TensorImpl,
    indices: TensorImpl,
) -> Any:
    """topk into `values` and `indices`: the meta function's checks (k, out dtypes; outs of
    another shape are resized contiguous), then the CPU kernel's. Torch: topk_out_cpu."""
    axis = _check_k(self, k, dim)
    shape = _topk_shape(self, k, axis)
    stride = geometry.contiguous_strides(shape)
    check_out_dtype(values, self._dtype)
    check_out_dtype(indices, int64)
    resize_output(values, shape, stride)
    resize_output(indices, shape, stride)
    return _topk_into(self, k, axis, largest, sort, values, indices)
