"""What the histogram ops share: torch's checks, the outer bin edges, and the CPU kernel.

Torch: aten/src/ATen/native/Histogram.cpp (histogramdd_check_inputs, histogramdd_prepare_out,
select_outer_bin_edges, linspace edges) and native/cpu/HistogramKernel.cpp
(histogramdd_cpu_contiguous, histogramdd_out_cpu_template). The ops are in histograms.py.

Note [Which bin a value falls into]
torch's CPU kernel skips a value outside [first edge, last edge] (NaN included) and otherwise
picks its bin by one of three rules (BIN_SELECTION_ALGORITHM), all in the input's dtype:
- histc (LINEAR_INTERPOLATION): trunc((x - first) * bins / (last - first)), each operation
  rounded to the dtype (float16 too: c10::Half rounds after every operation, as NumPy's
  float16 does), with no check against the edges;
- histogram and histogramdd with a bin count (LINEAR_INTERPOLATION_WITH_LOCAL_SEARCH): that
  position, then std::upper_bound over the edges from position - 1 to position + 1, so the
  bin agrees with the returned linspace edges bit for bit;
- histogram and histogramdd with edge tensors (BINARY_SEARCH): upper_bound over all edges
  (searchsorted, side="right").
In every rule the last bin also holds its right edge. refimpl computes the same positions
with the standard's elementwise functions, then adds the weights (ones without weights) in
element order, as torch's loop does on one thread (see `accumulate`); torch splits inputs
longer than 200 points among its threads and sums their histograms, so long weighted float
sums may round in another order than torch's (within torch's tolerances; counts are exact).

Note [NaN in the range messages]
A C++ stream prints a NaN with its sign bit set as "-nan". histc takes its range from
aminmax over all elements, which returns the input's NaN for one element and a NaN with the
sign bit set for more (measured on torch 2.13, float16 to float64); histogram's aminmax over
dim 0 returns the first NaN of the input itself. refimpl prints the same text.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.backend import BY_NAMESPACE
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype
from refimpl.dispatch.overloads import namespace
from refimpl.ops._outputs import format_shape, resize_output
from refimpl.ops._ranges import linspace_array
from refimpl.ops._reduction import has_data, not_implemented
from refimpl.ops._scatter import ScatterReduce, scatter_flat
from refimpl.ops.scan import write_values, xp_of
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")

# torch: AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, ..., "histogram_cpu").
_HISTOGRAM_DTYPES: Final = frozenset(("float16", "bfloat16", "float32", "float64"))
# torch: AT_DISPATCH_FLOATING_TYPES(..., "histogramdd") (the outer edges from the data).
_EDGE_DTYPES: Final = frozenset(("float32", "float64"))
# The dtypes whose unweighted counts are exact in any order of additions (below the limit).
_EXACT_COUNTS: Final = frozenset(("float32", "float64"))
_EXACT_COUNT_LIMIT: Final = 2**24


class BinSelection(enum.Enum):
    """How a value finds its bin. Torch: BIN_SELECTION_ALGORITHM (HistogramKernel.cpp); see
    Note [Which bin a value falls into]."""

    LINEAR_INTERPOLATION = "linear"
    LINEAR_INTERPOLATION_WITH_LOCAL_SEARCH = "local search"
    BINARY_SEARCH = "binary search"


def no_meta(op: str) -> NotImplementedError:
    # torch: the error of an op with neither a Meta kernel nor a fake impl.
    return NotImplementedError(
        f"aten::{op}: attempted to run this operator with Meta tensors, but there was no fake "
        "impl or Meta kernel registered. You may have run into this message while using an "
        "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
        "operator with those APIs you'll need to add a fake impl. Please see the following "
        "for next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


def format_double(value: float) -> str:
    """A double as a C++ stream prints it (`%g`; a NaN with its sign bit set as `-nan`)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


def to_double(value: Any) -> float:
    # torch: Scalar::to<double>, which refuses a complex value with an imaginary part.
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return value.real
    return float(value)


# --- the histogramdd kernel -----------------------------------------------------------------

# How much larger than the input the table of `accumulate` may grow before it hands the sums
# to `_scatter.scatter_flat` (whose composition adds in another order).
_TABLE_GROWTH: Final = 8
_TABLE_MINIMUM: Final = 1 << 16


def count(xp: Any, size: int, positions: Any, dtype: Any) -> Any:
    """How many of the int64 `positions` name each of `size` bins (a position of `size` or more
    is not counted), as a 1-D array of `dtype`.

    Torch: `hist[pos] += 1` in the loops of histogramdd_cpu_contiguous and
    _bincount_cpu_template; for int64, float32 (below 2**24) and float64 counts every order
    of the additions gives the exact count, so a sort and a binary search count here.
    """
    ordered = xp.sort(positions)
    bounds = xp.searchsorted(ordered, xp.arange(size + 1, dtype=xp.int64), side="left")
    return xp.astype(bounds[1:] - bounds[:-1], dtype)


def accumulate(xp: Any, size: int, positions: Any, values: Any) -> Any:
    """A 1-D array of `size` zeros with each value added at its int64 position, bin by bin in
    element order, rounding after each addition in the values' dtype.

    Torch: `hist[pos] += weight` in the element loops of histogramdd_cpu_contiguous and
    _bincount_cpu_template, from zeros. A backend's `scatter_sum` extension adds in element
    order (`_scatter.scatter_flat`). The standard has no scatter-add, and the composed one
    adds in a tree order; without the extension each bin's values are laid out in a row after
    a zero (rows by bin, in element order, padded with zeros) and the standard's
    cumulative_sum runs along the rows, adding one value at a time as torch does (a padding
    zero leaves a sum as it is). Where that table would be far larger than the input (one bin
    holding most values among many bins), the composed scatter adds instead.
    """
    zeros = xp.zeros((size,), dtype=values.dtype)
    backend = BY_NAMESPACE.get(id(xp))
    total = int(positions.shape[0])
    if backend is not None and "scatter_sum" in backend.extensions:
        return scatter_flat(xp, zeros, positions, values, ScatterReduce.SUM)
    if total == 0 or size == 0:
        return zeros
    order = xp.argsort(positions, stable=True)
    keys = xp.take(positions, order)
    run_start = xp.searchsorted(keys, keys, side="left")
    rank = xp.arange(total, dtype=xp.int64) - xp.astype(run_start, xp.int64)
    width = int(xp.max(rank)) + 2
    if size * width > max(_TABLE_GROWTH * total, _TABLE_MINIMUM):
        return scatter_flat(xp, zeros, positions, values, ScatterReduce.SUM)
    # Each value's cell: its bin's row, after the leading zero; the cells are sorted.
    cells = keys * width + rank + 1
    every = xp.arange(size * width, dtype=xp.int64)
    slot = xp.clip(xp.searchsorted(cells, every, side="left"), 0, total - 1)
    filled = xp.take(cells, slot) == every
    table = xp.where(
        filled, xp.take(xp.take(values, order), slot), xp.zeros_like(every, dtype=values.dtype)
    )
    sums = xp.cumulative_sum(xp.reshape(table, (size, width)), axis=1)
    return sums[:, width - 1]


def _check_kernel_dtype(dtype: DType) -> None:
    if dtype.name not in _HISTOGRAM_DTYPES:
        raise not_implemented("histogram_cpu", dtype)


def _bin_positions(xp: Any, values: Any, edges: Any, algorithm: BinSelection) -> tuple[Any, Any]:
    """The bin of each value (int64) and whether it is counted, for one dimension.

    Torch: the inner loop of histogramdd_cpu_contiguous; see Note [Which bin a value falls
    into]. `values` and `edges` are 1-D arrays of the input's dtype.
    """
    count = int(edges.shape[0])
    first, last = edges[0], edges[count - 1]
    counted = (values >= first) & (values <= last)
    if algorithm is BinSelection.BINARY_SEARCH:
        pos = xp.astype(xp.searchsorted(edges, values, side="right"), xp.int64) - 1
    else:
        # Computed for every value, used only where counted (elsewhere any finite stand-in).
        safe = xp.where(counted, values, first)
        bins = xp.asarray(count - 1, dtype=values.dtype)
        scaled = (safe - first) * bins / (last - first)
        pos = xp.astype(xp.trunc(scaled), xp.int64)
        pos = xp.clip(pos, 0, count - 1)
        if algorithm is BinSelection.LINEAR_INTERPOLATION_WITH_LOCAL_SEARCH:
            # torch: std::upper_bound over edges[max(0, pos - 1) : min(pos + 2, count)].
            low = xp.clip(pos - 1, 0, None)
            high = xp.clip(pos + 2, None, count)
            above = low
            for step in range(3):
                at = low + step
                inside = at < high
                edge = xp.take(edges, xp.clip(at, 0, count - 1))
                above = above + xp.astype(inside & (edge <= safe), xp.int64)
            pos = above - 1
    pos = xp.where(pos == count - 1, pos - 1, pos)
    return pos, counted


def histogramdd_fill(
    self: TensorImpl,
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    edges: Sequence[Any],
    algorithm: BinSelection,
) -> None:
    """Write the histogram of `self` (viewed as (M, N)) over `edges` (N arrays) into `hist`.

    Torch: histogramdd_out_cpu_template and histogramdd_cpu_contiguous (HistogramKernel.cpp):
    zero the histogram, add each point's weight (1 without weights) to its bin, then with
    `density` divide by the total and by each bin's width in every dimension.
    """
    _check_kernel_dtype(self._dtype)
    if not has_data(self):
        return
    xp = xp_of(self)
    n = self._size[-1]
    points = xp.reshape(array_of(self), (-1, n))
    m = int(points.shape[0])
    backend = self._storage.backend
    assert backend is not None  # has_data
    target = backend_dtype(backend, self._dtype)
    hist_shape = hist._size
    size = geometry.numel(hist_shape)
    flat = xp.zeros((size,), dtype=target)
    if n > 0 and m > 0:
        strides = geometry.contiguous_strides(hist_shape)
        index = xp.zeros((m,), dtype=xp.int64)
        counted = xp.ones((m,), dtype=xp.bool)
        for dim in range(n):
            pos, inside = _bin_positions(xp, points[:, dim], edges[dim], algorithm)
            counted = counted & inside
            index = index + xp.where(inside, pos, xp.zeros_like(pos)) * strides[dim]
        if weight is None and self._dtype.name in _EXACT_COUNTS and m < _EXACT_COUNT_LIMIT:
            flat = count(xp, size, xp.where(counted, index, xp.full_like(index, size)), target)
        else:
            if weight is None:
                weights = xp.ones((m,), dtype=target)
            else:
                weights = xp.reshape(array_of(weight), (m,))
            weights = xp.where(counted, weights, xp.zeros_like(weights))
            flat = accumulate(xp, size, index, weights)
    values = xp.reshape(flat, hist_shape)
    if density:
        # torch: hist.div_(hist.sum().item()), then by each dimension's bin widths.
        values = values / xp.sum(values)
        for dim in range(n):
            widths = edges[dim][1:] - edges[dim][:-1]
            shape = [1] * n
            shape[dim] = int(widths.shape[0])
            values = values / xp.reshape(widths, tuple(shape))
    write_values(hist, xp.astype(values, target))


# --- the checks of Histogram.cpp --------------------------------------------------------------


def check_inputs(self: TensorImpl, bins: Sequence[TensorImpl], weight: TensorImpl | None) -> None:
    """Torch: histogramdd_check_inputs."""
    if len(self._size) < 2:
        raise RuntimeError(
            "torch.histogramdd: input tensor should have at least 2 dimensions, but got "
            f"{len(self._size)}"
        )
    n = self._size[-1]
    if len(bins) != n:
        raise RuntimeError(
            f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
            f"histogram but got {len(bins)}"
        )
    for dim, edges in enumerate(bins):
        if edges._dtype is not self._dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {type_meta_name(self._dtype)} and bins for "
                f"dimension {dim} with dtype {type_meta_name(edges._dtype)}"
            )
        if len(edges._size) != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{len(edges._size)} dimensions in the bins tensor for dimension {dim}"
            )
        if geometry.numel(edges._size) <= 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got "
                f"{geometry.numel(edges._size)} elements in the bins tensor for dimension {dim}"
            )
    if weight is not None:
        if weight._dtype is not self._dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight "
                f"tensor should have the same dtype, but got input({type_meta_name(self._dtype)})"
                f", and weight({type_meta_name(weight._dtype)})"
            )
        weight_sizes = weight._size or (1,)
        if self._size[:-1] != weight_sizes:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {format_shape(self._size)} and weight with shape "
                f"{format_shape(weight._size)}"
            )


def prepare_out(
    self: TensorImpl, bin_ct: Sequence[int], hist: TensorImpl, bin_edges: Sequence[TensorImpl]
) -> None:
    """Torch: histogramdd_prepare_out: dtypes, bin counts, then each output resized."""
    if hist._dtype is not self._dtype:
        raise RuntimeError(
            "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
            f"input {type_meta_name(self._dtype)} and hist {type_meta_name(hist._dtype)}"
        )
    for dim, edges in enumerate(bin_edges):
        if edges._dtype is not self._dtype:
            raise RuntimeError(
                "torch.histogram: input tensor and bin_edges tensor should have the same "
                f"dtype, but got input {type_meta_name(self._dtype)} and bin_edges "
                f"{type_meta_name(edges._dtype)} for dimension {dim}"
            )
        if bin_ct[dim] <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {bin_ct[dim]} for dimension {dim}"
            )
        resize_output(edges, (bin_ct[dim] + 1,))
    resize_output(hist, tuple(bin_ct))


def _first_nan(xp: Any, column: Any) -> float:
    # The first NaN of `column` itself (its sign kept), as aminmax over dim 0 returns it.
    where = xp.nonzero(xp.isnan(column))[0]
    return float(column[int(where[0])])


def outer_edges(
    self: TensorImpl, points: Any, n: int, range_: Sequence[float] | None
) -> list[tuple[float, float]]:
    """The first and last edge of each dimension. Torch: select_outer_bin_edges: `range`
    pairs, else the data's min and max (aminmax over dim 0), else [0, 1] for no data;
    finite, ordered, and an empty range widened by 0.5 each way as NumPy does."""
    outer = [(0.0, 1.0)] * n
    if range_ is not None:
        if len(range_) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have "
                f"{2 * n} elements, but got {len(range_)}"
            )
        outer = [(float(range_[2 * d]), float(range_[2 * d + 1])) for d in range(n)]
    elif geometry.numel(self._size) > 0:
        if self._dtype.name not in _EDGE_DTYPES:
            raise not_implemented("histogramdd", self._dtype)
        if points is None:
            raise no_meta("histogram")
        xp = xp_of(self)
        low, high = xp.min(points, axis=0), xp.max(points, axis=0)
        outer = []
        for d in range(n):
            pair = (float(low[d]), float(high[d]))
            if math.isnan(pair[0]) or math.isnan(pair[1]):
                nan = _first_nan(xp, points[:, d])
                pair = (nan, nan)
            outer.append(pair)
    result = []
    for dim, (left, right) in enumerate(outer):
        if not (math.isfinite(left) and math.isfinite(right)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {dim}'s range [{format_double(left)}, "
                f"{format_double(right)}] is not finite"
            )
        if left > right:
            raise RuntimeError(
                "torch.histogramdd: min should not exceed max, but got min "
                f"{format_double(left)} max {format_double(right)} for dimension {dim}"
            )
        if left == right:
            left, right = left - 0.5, right + 0.5
        result.append((left, right))
    return result


def linspace_edges(self: TensorImpl, left: float, right: float, steps: int) -> Any:
    """Torch: at::linspace_out(edges, left, right, steps) in the input's dtype."""
    backend = self._storage.backend
    assert backend is not None
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps <= 1:
        # torch: linspace_out fills one step with `start` and none with nothing.
        return linspace_array(backend, left, left, 2, self._dtype)[:steps]
    return linspace_array(backend, left, right, steps, self._dtype)


def points(self: TensorImpl) -> Any:
    """`self` as an (M, N) array (None for meta)."""
    if not has_data(self):
        return None
    n = self._size[-1] if self._size else 1
    return xp_of(self).reshape(array_of(self), (-1, n))


def as_column(self: TensorImpl) -> Any:
    """`self` reshaped to (numel, 1), as histogram and histc view it. Torch: self.reshape."""
    return aten.reshape.default(self, [geometry.numel(self._size), 1])


def as_flat(weight: TensorImpl | None) -> Any:
    if weight is None:
        return None
    return aten.reshape.default(weight, [geometry.numel(weight._size)])
