"""How the scans and order statistics compute: prefix scans by doubling, orders with NaN last,
and the element torch's CPU algorithms pick among equal values.

Torch: the CPU kernels of aten/src/ATen/native/cpu/ReduceOpsKernel.cpp (cumsum, cumprod,
logcumsumexp, cummax, cummin: one sequential pass per row in the accumulation type) and of
Sorting.cpp / TensorCompareKernel.cpp (median, kthvalue, mode). refimpl computes the same
values with whole-array Array API operations; where torch's answer depends on its algorithm
(which index kthvalue and mode return among equal values), `quickselect_index` and
`introsort_order` replay that algorithm for the rows whose answer it decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any, Final

from refimpl._base.dtypes import DType, complex128, float32, float64, int64

Array = Any
State = tuple[Array, ...]
Combine = Callable[[Any, State, State], State]
"""combine(xp, earlier, later): the scan state of two adjacent ranges, earlier first."""

# torch: at::acc_type<T, /*is_cuda=*/false> (ATen/AccumulateType.h), the type the CPU scan
# kernels accumulate in before rounding each output: float16 in float, float in double,
# complex<float> in complex<double>, every integer type in int64.
_SCAN_ACCUMULATE: Final[dict[str, DType]] = {
    "float16": float32,
    "bfloat16": float32,
    "float32": float64,
    "float64": float64,
    "complex64": complex128,
    "complex128": complex128,
}


def scan_accumulate_dtype(dtype: DType) -> DType:
    """The dtype torch's CPU scans accumulate `dtype` in (integers and bool: int64)."""
    return _SCAN_ACCUMULATE.get(dtype.name, int64)


def last_axis(xp: Any, array: Array, axis: int) -> Array:
    """`array` with `axis` moved last (a view where the library has views)."""
    return array if axis in (-1, array.ndim - 1) else xp.moveaxis(array, axis, -1)


def from_last_axis(xp: Any, array: Array, axis: int) -> Array:
    """The inverse of `last_axis`."""
    return array if axis in (-1, array.ndim - 1) else xp.moveaxis(array, -1, axis)


def doubling_scan(xp: Any, arrays: State, combine: Combine) -> State:
    """Inclusive prefix scan along the last axis of parallel arrays, in log2(n) passes.

    `combine(xp, earlier, later)` gives, for each position, the combined state as a tuple of
    arrays; it must be associative (Hillis-Steele doubling: after the pass with shift s, each
    position holds the combination of the 2s elements ending there).
    """
    n = arrays[0].shape[-1]
    shift = 1
    while shift < n:
        earlier = tuple(a[..., : n - shift] for a in arrays)
        later = tuple(a[..., shift:] for a in arrays)
        combined = combine(xp, earlier, later)
        arrays = tuple(
            xp.concat((a[..., :shift], c), axis=-1) for a, c in zip(arrays, combined, strict=True)
        )
        shift *= 2
    return arrays


def times_one_first(xp: Any, array: Array, axis: int) -> Array:
    """`array` with its first slice along `axis` multiplied by 1 + 0i.

    Torch: the CPU cumprod starts its running product at 1 and multiplies every element in,
    the first included; for complex numbers that is not the identity (1 * (inf + 0i) is
    inf + nan i by the multiplication formula), so refimpl makes the same first product.
    """
    moved = last_axis(xp, array, axis)
    one = xp.asarray(1 + 0j, dtype=array.dtype)
    moved = xp.concat((moved[..., :1] * one, moved[..., 1:]), axis=-1)
    return from_last_axis(xp, moved, axis)


def comparable(xp: Any, array: Array) -> Array:
    """`array` in a dtype the standard's comparisons and sorts accept (bool as uint8)."""
    return xp.astype(array, xp.uint8) if array.dtype == xp.bool else array


def running(xp: Any, array: Array, step: Callable[[Array, Array], Array]) -> Array:
    """The inclusive prefix scan of an associative elementwise `step` along the last axis."""
    (result,) = doubling_scan(xp, (array,), lambda xp_, a, b: (step(a[0], b[0]),))
    return result


def cumulative_extreme(xp: Any, array: Array, largest: bool) -> tuple[Array, Array]:
    """cummax (`largest`) or cummin along the last axis: the running extreme and its index.

    Torch: cummax_cummin_helper (ReduceOps.cpp) keeps, element by element, `x` and its index
    when `isnan(x) || (!isnan(out) && x >= out)` (`<=` for cummin): equal values move the
    index to the later one, and a NaN, once seen, stays, each new NaN taking its own index.
    Here: the running extreme (maximum/minimum propagate NaN), then for each position the
    last index where the element equals the running extreme or is NaN; the values are read
    at those indices, so signed zeros are the elements themselves.
    """
    keys = comparable(xp, array)
    extreme = running(xp, keys, xp.maximum if largest else xp.minimum)
    hit = keys == extreme
    if xp.isdtype(keys.dtype, "real floating"):
        hit = xp.logical_or(hit, xp.isnan(keys))
    positions = xp.broadcast_to(xp.arange(keys.shape[-1], dtype=xp.int64), keys.shape)
    index = running(xp, xp.where(hit, positions, xp.zeros_like(positions)), xp.maximum)
    return xp.take_along_axis(array, index, axis=-1), index


def complex_log_add_exp(xp: Any, x: Array, y: Array) -> Array:
    """log(exp(x) + exp(y)) for complex arrays, in torch's branch of the logarithm.

    Torch: _log_add_exp_helper for complex (cpu/LogAddExp.h): the operand with the smaller
    real part is `low` (`y` on ties), the result is high + log1p(exp(low - high)), so the
    imaginary part continues the operands' rather than being reduced to (-pi, pi]; any NaN
    part gives NaN + NaN i; equal infinite real parts give `low` (-inf) or
    log(exp(low) + exp(high)) (+inf).
    """
    x_low = xp.real(x) < xp.real(y)
    low = xp.where(x_low, x, y)
    high = xp.where(x_low, y, x)
    result = high + xp.log1p(xp.exp(low - high))
    low_real, high_real = xp.real(low), xp.real(high)
    same_infinity = xp.logical_and(xp.isinf(low_real), low_real == high_real)
    zero = xp.zeros_like(low)
    plus = xp.log(
        xp.exp(xp.where(same_infinity, low, zero)) + xp.exp(xp.where(same_infinity, high, zero))
    )
    result = xp.where(same_infinity, xp.where(low_real < 0, low, plus), result)
    nan = xp.logical_or(xp.isnan(x), xp.isnan(y))
    return xp.where(nan, xp.asarray(complex("nan+nanj"), dtype=x.dtype), result)


def log_add_exp_combine(xp: Any, earlier: State, later: State) -> State:
    """The combine of a real logcumsumexp's doubling scan (any association order gives the
    same value, up to rounding). Torch: _log_add_exp_helper for real types."""
    return (xp.logaddexp(earlier[0], later[0]),)


def complex_log_cumsum_exp(xp: Any, array: Array) -> Array:
    """logcumsumexp of complex rows (last axis), one element after another.

    Torch: logcumsumexp_cpu_kernel: the running value starts at -inf + 0i and each step is
    `_log_add_exp_helper(element, running)`. The imaginary part depends on that order (it is
    not reduced modulo 2 pi), so the scan runs in it rather than by doubling.
    """
    running = xp.full(array.shape[:-1], complex(-float("inf"), 0.0), dtype=array.dtype)
    steps = []
    for i in range(array.shape[-1]):
        running = complex_log_add_exp(xp, array[..., i], running)
        steps.append(running)
    return xp.stack(steps, axis=-1) if steps else array


def order_nan_last(xp: Any, array: Array) -> Array:
    """The stable ascending order of each row (last axis) with NaNs after every number.

    Torch: the order median.dim's and nanmedian.dim's comparators define: by value, equal
    values by index, NaN greater than everything (Sorting.cpp, median_with_indices_impl).
    The standard leaves the place of NaN in a sort open, so NaNs are ordered in a second,
    stable pass.
    """
    array = comparable(xp, array)
    if not xp.isdtype(array.dtype, "real floating"):
        return xp.argsort(array, axis=-1, stable=True)
    nan = xp.isnan(array)
    first = xp.argsort(xp.where(nan, xp.zeros_like(array), array), axis=-1, stable=True)
    nan_in_order = xp.astype(xp.take_along_axis(nan, first, axis=-1), xp.uint8)
    return xp.take_along_axis(first, xp.argsort(nan_in_order, axis=-1, stable=True), axis=-1)


def same_as(xp: Any, array: Array, value: Array) -> Array:
    """`array == value`, with NaN equal to NaN (torch's selection treats NaNs as equal)."""
    equal = array == value
    if xp.isdtype(array.dtype, "real floating"):
        equal = xp.logical_or(equal, xp.logical_and(xp.isnan(array), xp.isnan(value)))
    return equal


# Note [kthvalue among equal values]
# torch's CPU kthvalue partitions each row in place with a median-of-three quickselect
# (quick_select_template in Sorting.cpp, Sedgewick's partition), so among equal values the
# index it returns is the one the partitioning happens to leave at position k-1: not the
# first, not the last, not the stable order's. The value is the k-th of the sorted row either
# way. refimpl takes the index from the stable order where the k-th value occurs once in its
# row, and replays the selection (quickselect_index) for rows where it occurs more than once.


def quickselect_index(values: list[Any], k: int) -> int:
    """The original position of the element torch's CPU quickselect leaves at index `k`.

    Torch: quick_select_template (Sorting.cpp): a median-of-three pivot moved to the front
    of the active range, a Hoare partition, and the active range narrowed to the side that
    holds `k`; NaN compares greater than every number. See Note [kthvalue among equal values].
    """

    def greater(x: Any, y: Any) -> bool:
        return bool((math.isnan(x) and not math.isnan(y)) or x > y)

    row = list(values)
    where = list(range(len(row)))

    def swap(i: int, j: int) -> None:
        row[i], row[j] = row[j], row[i]
        where[i], where[j] = where[j], where[i]

    low, high = 0, len(row) - 1
    while high > low:
        if high == low + 1:
            if greater(row[low], row[high]):
                swap(low, high)
            break
        swap((low + high) // 2, low + 1)
        for a, b in ((low + 1, high), (low, high), (low + 1, low)):
            if greater(row[a], row[b]):
                swap(a, b)
        pivot = row[low]
        i, j = low + 1, high
        while True:
            i += 1
            while greater(pivot, row[i]):
                i += 1
            j -= 1
            while greater(row[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return where[k]


# torch: the value an empty input's median takes, NaN converted to the dtype by the CPU's
# float-to-integer conversion (cvttss2si gives INT_MIN, whose low bytes are 0 for the narrow
# integer types; NaN is true as a bool).
EMPTY_MEDIAN: Final[dict[str, bool | int | float]] = {
    "bool": True,
    "uint8": 0,
    "int8": 0,
    "int16": 0,
    "int32": -(2**31),
    "int64": -(2**63),
}


def empty_median_value(dtype: DType) -> bool | int | float:
    """What torch.median / nanmedian of an empty tensor of `dtype` hold: NaN for floats."""
    return EMPTY_MEDIAN.get(dtype.name, float("nan"))


# Note [mode among equal values]
# torch's CPU mode sorts each row's (value, index) pairs with std::sort comparing values only
# (mode_kernel_impl in TensorCompareKernel.cpp), then reports the last pair of the first
# longest run. std::sort is libstdc++'s introsort: for 16 elements or fewer it is an insertion
# sort, which is stable, so the last pair of a run is the run's largest index; for longer rows
# the partitioning moves equal values around, and NaN (which compares false with everything)
# blocks insertion. refimpl computes short NaN-free rows with whole-array operations and
# replays the sort (`introsort_order`) for the others.

INSERTION_THRESHOLD: Final = 16  # libstdc++'s _S_threshold


def introsort_order(values: list[Any]) -> list[int]:
    """The positions of `values` in the order libstdc++'s std::sort with `a < b` leaves them.

    Torch: the std::sort call of mode_kernel_impl. The phases are libstdc++'s: partitioning
    around a median-of-three pivot moved to the front until ranges hold 16 elements or
    fewer, then one insertion sort over everything. See Note [mode among equal values].
    Differs: where libstdc++ would switch to heapsort (recursion deeper than 2 log2 n, which
    needs adversarial inputs) the range is sorted stably instead.
    """
    row = list(values)
    where = list(range(len(row)))

    def swap(i: int, j: int) -> None:
        row[i], row[j] = row[j], row[i]
        where[i], where[j] = where[j], where[i]

    def median_to_first(first: int, a: int, b: int, c: int) -> None:
        if row[a] < row[b]:
            if row[b] < row[c]:
                swap(first, b)
            elif row[a] < row[c]:
                swap(first, c)
            else:
                swap(first, a)
        elif row[a] < row[c]:
            swap(first, a)
        elif row[b] < row[c]:
            swap(first, c)
        else:
            swap(first, b)

    def partition(first: int, last: int) -> int:
        # Hoare partition of [first + 1, last) around row[first], unguarded.
        pivot = first
        low, high = first + 1, last
        while True:
            while row[low] < row[pivot]:
                low += 1
            high -= 1
            while row[pivot] < row[high]:
                high -= 1
            if not low < high:
                return low
            swap(low, high)
            low += 1

    def introsort(first: int, last: int, depth: int) -> None:
        while last - first > INSERTION_THRESHOLD:
            if depth == 0:
                ranked = sorted(range(first, last), key=lambda i: row[i])
                row[first:last] = [row[i] for i in ranked]
                where[first:last] = [where[i] for i in ranked]
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first, last)
            introsort(cut, last, depth)
            last = cut

    def linear_insert(i: int, guarded: bool) -> None:
        value, origin = row[i], where[i]
        if guarded and value < row[0]:
            row[1 : i + 1], where[1 : i + 1] = row[:i], where[:i]
            row[0], where[0] = value, origin
            return
        j = i - 1
        while value < row[j]:
            row[j + 1], where[j + 1] = row[j], where[j]
            j -= 1
        row[j + 1], where[j + 1] = value, origin

    n = len(row)
    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        for i in range(1, min(n, INSERTION_THRESHOLD)):
            linear_insert(i, guarded=True)
        for i in range(INSERTION_THRESHOLD, n):
            linear_insert(i, guarded=False)
    return where


def mode_of_row(values: list[Any]) -> tuple[Any, int]:
    """(value, index) torch's CPU mode reports for one row. See Note [mode among equal values]."""
    order = introsort_order(values)
    best_value, best_index, best_count, count = values[0], 0, 0, 0
    for i, position in enumerate(order):
        count += 1
        value = values[position]
        if i == len(order) - 1 or value != values[order[i + 1]]:
            if count > best_count:
                best_value, best_index, best_count = value, position, count
            count = 0
    return best_value, best_index


@cache
def nth_of_equivalent(n: int) -> int:
    """The original position libstdc++'s std::nth_element leaves first when all `n` elements
    are equivalent (nanmedian.dim of a row of NaNs, whose comparator says no NaN is less than
    another).

    Torch: the std::nth_element call of median_with_indices_impl (Sorting.cpp). Introselect
    moves the median of three to the front (with no element less than another: the middle
    one), partitions (swapping pairs from both ends inwards) and keeps the part holding
    position 0, until 3 elements or fewer remain, which insertion sort leaves as they are.
    """
    where = list(range(n))
    first, last = 0, n
    while last - first > 3:
        middle = first + (last - first) // 2
        where[first], where[middle] = where[middle], where[first]
        low, high = first + 1, last
        while True:
            high -= 1
            if not low < high:
                break
            where[low], where[high] = where[high], where[low]
            low += 1
        last = low
    return where[0]
