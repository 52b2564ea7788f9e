"""The scatter primitive: combine values into a 1-D array at flat positions, deterministically.

Torch: the inner loops of cpu_scatter_gather_base_kernel (native/cpu/ScatterGatherKernel.cpp),
index_add_cpu_ / index_copy / index_reduce (native/TensorAdvancedIndexing.cpp) and put_
(native/cpu/IndexKernel.cpp): each walks the index in order and writes or reduces one
element at a time. The Array API standard has no scatter, so a backend may supply one per
reduction as an extension (`scatter_set`, `scatter_sum`, ...; NumPy: `ufunc.at`); where it
does not, `scatter_flat` composes one from the standard. See Note [Deterministic scatter].
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final

from refimpl._base.dtypes import DType, bool_
from refimpl.core.backend import BY_NAMESPACE, Array, ArrayNamespace

# Note [Deterministic scatter]
# torch's CPU kernels run the index in order, so with duplicate positions `scatter` and
# `index_copy` keep the last value written (checked: scatter of [1, 2, 3] at [1, 1, 1]
# gives 3) and the reductions combine in index order. refimpl promises the same: the
# extension of a backend must keep index order for SET (NumPy's fancy assignment does;
# CuPy's does not, so the CuPy backend supplies none and gets the composition). The
# composition sorts positions stably, so equal positions keep their index order; the last
# of each run is the value SET writes. Reductions combine each run by a segmented scan
# (log2(n) steps of the standard's elementwise functions): sums and products of floats may
# then round in another order than torch's sequential loop (within torch's tolerances);
# integer results are exact (wrapping as C++), amax/amin are exact and propagate NaN.


class ScatterReduce(enum.Enum):
    """How values meet the element at their position. Torch: ReductionType (ReductionType.h),
    plus the plain write of scatter/index_copy/put."""

    SET = "set"
    SUM = "sum"
    PROD = "prod"
    AMAX = "amax"
    AMIN = "amin"


# The backend extension that implements each reduction: fn(target, positions, values) ->
# a new 1-D array (the target is not modified). See refimpl.core.backend.EXTENSION_NAMES.
EXTENSION_OF: Final[dict[ScatterReduce, str]] = {
    ScatterReduce.SET: "scatter_set",
    ScatterReduce.SUM: "scatter_sum",
    ScatterReduce.PROD: "scatter_prod",
    ScatterReduce.AMAX: "scatter_amax",
    ScatterReduce.AMIN: "scatter_amin",
}

Combine = Callable[[ArrayNamespace, Array, Array], Array]

# Binary combination of each reduction, for numbers and for bool (the standard defines no
# add, multiply, maximum or minimum on bool; torch's bool sum is "or", its product "and").
_COMBINE: Final[dict[ScatterReduce, Combine]] = {
    ScatterReduce.SET: lambda xp, a, b: b,
    ScatterReduce.SUM: lambda xp, a, b: a + b,
    ScatterReduce.PROD: lambda xp, a, b: a * b,
    ScatterReduce.AMAX: lambda xp, a, b: xp.maximum(a, b),
    ScatterReduce.AMIN: lambda xp, a, b: xp.minimum(a, b),
}
_COMBINE_BOOL: Final[dict[ScatterReduce, Combine]] = {
    ScatterReduce.SET: lambda xp, a, b: b,
    ScatterReduce.SUM: lambda xp, a, b: xp.logical_or(a, b),
    ScatterReduce.PROD: lambda xp, a, b: xp.logical_and(a, b),
    ScatterReduce.AMAX: lambda xp, a, b: xp.logical_or(a, b),
    ScatterReduce.AMIN: lambda xp, a, b: xp.logical_and(a, b),
}


def scatter_flat(
    xp: ArrayNamespace,
    target: Array,
    positions: Array,
    values: Array,
    reduce: ScatterReduce,
) -> Array:
    """A copy of the 1-D `target` with `values` combined in at `positions` (int64, in range),
    in index order (see Note [Deterministic scatter]).

    Torch: the element loop of the scatter kernels (`*self_data = src` or
    `*self_data += src`, ...). The backend's extension runs where it has one.
    """
    backend = BY_NAMESPACE.get(id(xp))
    supplied = None if backend is None else backend.extensions.get(EXTENSION_OF[reduce])
    if supplied is not None:
        return supplied(target, positions, values)
    return _compose(xp, target, positions, values, reduce)


def _compose(
    xp: ArrayNamespace, target: Array, positions: Array, values: Array, reduce: ScatterReduce
) -> Array:
    """scatter_flat from the standard alone: stable sort, segmented scan, searchsorted."""
    count = positions.shape[0]
    if count == 0:
        return xp.asarray(target, copy=True)
    combine = (_COMBINE_BOOL if target.dtype == xp.bool else _COMBINE)[reduce]
    order = xp.argsort(positions, stable=True)
    sorted_positions = xp.take(positions, order)
    run = xp.take(values, order)
    if reduce is not ScatterReduce.SET:
        run = _segmented_scan(xp, sorted_positions, run, combine)
    every = xp.arange(target.shape[0], dtype=xp.int64)
    # The last element of each run of equal positions: the run's total (or last write).
    last = xp.searchsorted(sorted_positions, every, side="right") - 1
    safe = xp.clip(last, 0, count - 1)
    hit = (last >= 0) & (xp.take(sorted_positions, safe) == every)
    total = xp.take(run, safe)
    return xp.where(hit, combine(xp, target, total), target)


def _segmented_scan(xp: ArrayNamespace, keys: Array, values: Array, combine: Combine) -> Array:
    """Inclusive scan of `values` within runs of equal (sorted) `keys`, by doubling."""
    count = values.shape[0]
    shift = 1
    while shift < count:
        same = keys[shift:] == keys[:-shift]
        tail = xp.where(same, combine(xp, values[:-shift], values[shift:]), values[shift:])
        values = xp.concat((values[:shift], tail))
        shift *= 2
    return values


def flat_positions(xp: ArrayNamespace, shape: tuple[int, ...], dim: int, index: Array) -> Array:
    """The row-major positions, in a tensor of `shape`, that the int64 `index` (any shape of
    the same rank) names along `dim`: element (i0, .., ik) names (i0, .., index[i], .., ik).

    Torch: the offset arithmetic of cpu_scatter_gather_base_kernel, for a contiguous self.
    """
    rank = len(shape)
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    # The other dims' part of each position: a small array broadcast against the index.
    base = None
    for d in range(rank):
        if d != dim:
            axis = [1] * rank
            axis[d] = index.shape[d]
            term = xp.reshape(xp.arange(index.shape[d], dtype=xp.int64) * strides[d], tuple(axis))
            base = term if base is None else base + term
    positions = index if not rank or strides[dim] == 1 else index * strides[dim]
    if base is not None:
        positions = positions + base
    return xp.reshape(positions, (-1,))


def reduction_identity(reduce: ScatterReduce, dtype: DType) -> bool | int | float:
    """The value a position starts from when `include_self=False`.

    Torch: scatter_reduce_exclude_self_helper (ScatterGatherKernel.cpp): 0 for sum and mean,
    1 for prod, the lowest value for amax, the highest for amin.
    """
    if dtype is bool_:
        return reduce in (ScatterReduce.PROD, ScatterReduce.AMIN)
    if dtype.is_floating_point:
        limits: dict[ScatterReduce, float] = {
            ScatterReduce.AMAX: -float("inf"),
            ScatterReduce.AMIN: float("inf"),
        }
        return limits.get(reduce, 1.0 if reduce is ScatterReduce.PROD else 0.0)
    bits = 8 * dtype.itemsize
    if dtype.is_signed:
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        low, high = 0, (1 << bits) - 1
    ints: dict[ScatterReduce, int] = {
        ScatterReduce.AMAX: low,
        ScatterReduce.AMIN: high,
        ScatterReduce.PROD: 1,
    }
    return ints.get(reduce, 0)
