"""Histograms as aten ops: histc, bincount, histogram, and histogramdd's three parts.

Torch: aten/src/ATen/native/Histogram.cpp (the checks, the outer bin edges, linspace edges,
histogram_histc_out, histogram_out, the _histogramdd_* ops and the histogramdd composites),
native/cpu/HistogramKernel.cpp (histogramdd_cpu_contiguous: which bin a value falls into,
the accumulation, density) and native/SummaryOps.cpp (bincount). Each block runs torch's
checks in torch's order before any write. torch has a Meta kernel for histc only (a Python
one, torch/_meta_registrations.py meta_histc); the other ops raise torch's NotImplementedError
on meta tensors, as torch does (their edges or sizes depend on the data).
The bins, the checks and the kernel they share are in `_histogram.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import float32, float64, int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._histogram import (
    BinSelection,
    accumulate,
    as_column,
    as_flat,
    check_inputs,
    count,
    format_double,
    histogramdd_fill,
    linspace_edges,
    no_meta,
    outer_edges,
    points,
    prepare_out,
    to_double,
)
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data, not_implemented, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, new_tensor, registered, write_values, xp_of

aten: Final = namespace("aten")

# torch: AT_DISPATCH_INTEGRAL_TYPES(..., "bincount_cpu").
_BINCOUNT_DTYPES: Final = frozenset(("uint8", "int8", "int16", "int32", "int64"))


# --- histc -------------------------------------------------------------------------------------


histc = defop("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor")
histc_out = defop(
    "histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


def _histc_meta(self: TensorImpl, bins: int, min: Any, max: Any) -> None:
    # torch: meta_histc (torch/_meta_registrations.py).
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
    if not max >= min:
        raise RuntimeError("histc(): max must be larger than min")


def _histc_range(self: TensorImpl, min: Any, max: Any) -> tuple[float, float]:
    """Torch: histc_select_outer_bin_edges: `min` and `max`, or the data's extrema when they
    are equal, widened by 1 each way when still equal; see Note [NaN in the range messages]."""
    left, right = to_double(min), to_double(max)
    count = geometry.numel(self._size)
    if left == right and count > 0:
        xp = xp_of(self)
        a = xp.reshape(array_of(self), (-1,))
        if self._dtype.is_complex:
            raise not_implemented("aminmax_cpu", self._dtype)
        if a.dtype == xp.bool:
            a = xp.astype(a, xp.int8)
        left, right = float(xp.min(a)), float(xp.max(a))
        if count > 1 and (math.isnan(left) or math.isnan(right)):
            left = right = -math.nan
        elif math.isnan(left) or math.isnan(right):
            left = right = float(a[0])
    if left == right:
        left, right = left - 1, right + 1
    if not (math.isfinite(left) and math.isfinite(right)):
        raise RuntimeError(
            f"torch.histc: range of [{format_double(left)}, {format_double(right)}] is not finite"
        )
    if not left < right:
        raise RuntimeError("torch.histc: max must be larger than min")
    return left, right


def _histc(self: TensorImpl, bins: int, min: Any, max: Any, out: TensorImpl | None) -> Any:
    """Torch: histogram_histc_out (Histogram.cpp) on the CPU, meta_histc on meta."""
    if not has_data(self):
        _histc_meta(self, bins, min, max)
        if out is None:
            return new_tensor(self, (bins,), self._dtype)
        resize_output(out, (bins,))
        return out
    hist = out if out is not None else new_tensor(self, (0,), self._dtype)
    column = as_column(self)
    edges_out = new_tensor(self, (0,), self._dtype)
    prepare_out(column, [bins], hist, [edges_out])
    left, right = _histc_range(self, min, max)
    edges = linspace_edges(self, left, right, bins + 1)
    histogramdd_fill(column, None, False, hist, [edges], BinSelection.LINEAR_INTERPOLATION)
    return hist


@registered(histc)
def histc_kernel(self: TensorImpl, bins: int, min: Any, max: Any) -> Any:
    """The histogram of `self` in `bins` equal bins over [min, max]. Torch: histogram_histc."""
    return _histc(self, bins, min, max, None)


@registered(histc_out)
def histc_out_kernel(self: TensorImpl, bins: int, min: Any, max: Any, *, out: TensorImpl) -> Any:
    """histc into `out` (of `self`'s dtype). Torch: histogram_histc_out."""
    return _histc(self, bins, min, max, out)


# --- bincount ----------------------------------------------------------------------------------


bincount = defop("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor")
bincount_out = defop(
    "bincount.out(Tensor self, Tensor? weights=None, SymInt minlength=0, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@registered(bincount)
def bincount_kernel(self: TensorImpl, weights: TensorImpl | None, minlength: int) -> Any:
    """How often each value of the 1-D non-negative integer `self` occurs, or the sum of its
    `weights`.

    Torch: _bincount_cpu and _bincount_cpu_template (SummaryOps.cpp): float32 weights sum in
    float32, any other weights are converted to float64 first (complex ones with torch's
    warning); without weights the counts are int64, as is an empty input's result.
    """
    if not has_data(self):
        raise no_meta("bincount")
    if self._dtype.name not in _BINCOUNT_DTYPES:
        raise not_implemented("bincount_cpu", self._dtype)
    if weights is not None and weights._dtype is not float32:
        weights = aten._to_copy.default(weights, dtype=float64)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = xp_of(self)
    if len(self._size) == 1 and self._size[0] == 0:
        return new_tensor(self, (minlength,), int64)
    values = array_of(self)
    if len(self._size) != 1 or int(xp.min(values)) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (len(weights._size) != 1 or weights._size[0] != self._size[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    bins = max(int(xp.max(values)) + 1, minlength)
    positions = xp.astype(values, xp.int64)
    dtype = int64 if weights is None else weights._dtype
    result = new_tensor(self, (bins,), dtype)
    if weights is None:
        write_values(result, count(xp, bins, positions, xp.int64))
    else:
        write_values(result, accumulate(xp, bins, positions, array_of(weights)))
    return result


@bincount_out.kernel(CEA)
def bincount_out_kernel(
    self: TensorImpl, weights: TensorImpl | None, minlength: int, *, out: TensorImpl
) -> Any:
    """bincount into `out`. Torch: the generated CompositeExplicitAutograd out= form."""
    return same_as_out(aten.bincount.default(self, weights, minlength), out)


# --- histogram -------------------------------------------------------------------------------


histogram_bins_tensor = defop(
    "histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor bin_edges)"
)
histogram_bins_tensor_out = defop(
    "histogram.bins_tensor_out(Tensor self, Tensor bins, *, Tensor? weight=None, "
    "bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) -> "
    "(Tensor(a!) hist, Tensor(b!) bin_edges)"
)
histogram_bin_ct = defop(
    "histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor bin_edges)"
)
histogram_bin_ct_out = defop(
    "histogram.bin_ct_out(Tensor self, int bins=100, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) -> "
    "(Tensor(a!) hist, Tensor(b!) bin_edges)"
)


def _histogram_tensor(
    self: TensorImpl,
    bins: TensorImpl,
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    bin_edges: TensorImpl,
) -> tuple[TensorImpl, TensorImpl]:
    """Torch: histogram_out with a bins tensor: histogramdd_out on self.reshape(-1, 1)."""
    if not has_data(self):
        raise no_meta("histogram.bins_tensor")
    column, flat_weight = as_column(self), as_flat(weight)
    _histogramdd_tensors(column, [bins], flat_weight, density, hist, [bin_edges])
    return hist, bin_edges


def _histogramdd_tensors(
    self: TensorImpl,
    bins: Sequence[TensorImpl],
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    bin_edges: Sequence[TensorImpl],
) -> TensorImpl:
    """Torch: histogramdd_out with bin edge tensors (BINARY_SEARCH)."""
    check_inputs(self, bins, weight)
    prepare_out(self, [geometry.numel(b._size) - 1 for b in bins], hist, bin_edges)
    edges = []
    for out_edges, given in zip(bin_edges, bins):
        aten.copy_.default(out_edges, given)
        edges.append(array_of(out_edges))
    histogramdd_fill(self, weight, density, hist, edges, BinSelection.BINARY_SEARCH)
    return hist


def _histogram_count(
    self: TensorImpl,
    bins: int,
    range_: Sequence[float] | None,
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    bin_edges: TensorImpl,
) -> tuple[TensorImpl, TensorImpl]:
    """Torch: histogram_out with a bin count: the outputs prepared, the outer edges chosen,
    linspace edges, the inputs checked, then the local-search kernel."""
    if not has_data(self):
        raise no_meta("histogram.bin_ct")
    column, flat_weight = as_column(self), as_flat(weight)
    prepare_out(column, [bins], hist, [bin_edges])
    ((left, right),) = outer_edges(column, points(column), 1, range_)
    edges = linspace_edges(self, left, right, bins + 1)
    write_values(bin_edges, edges)
    check_inputs(column, [bin_edges], flat_weight)
    histogramdd_fill(
        column,
        flat_weight,
        density,
        hist,
        [edges],
        BinSelection.LINEAR_INTERPOLATION_WITH_LOCAL_SEARCH,
    )
    return hist, bin_edges


@registered(histogram_bins_tensor)
def histogram_bins_tensor_kernel(
    self: TensorImpl, bins: TensorImpl, *, weight: TensorImpl | None, density: bool
) -> Any:
    """The histogram of `self` over the edges `bins`. Torch: histogram (Histogram.cpp)."""
    hist = new_tensor(self, (0,), self._dtype)
    bin_edges = new_tensor(bins, (0,), bins._dtype)
    return _histogram_tensor(self, bins, weight, density, hist, bin_edges)


@registered(histogram_bins_tensor_out)
def histogram_bins_tensor_out_kernel(
    self: TensorImpl,
    bins: TensorImpl,
    *,
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    bin_edges: TensorImpl,
) -> Any:
    """histogram over `bins` into `hist` and `bin_edges`. Torch: histogram_out."""
    return _histogram_tensor(self, bins, weight, density, hist, bin_edges)


@registered(histogram_bin_ct)
def histogram_bin_ct_kernel(
    self: TensorImpl,
    bins: int,
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """The histogram of `self` in `bins` equal bins. Torch: histogram (Histogram.cpp)."""
    hist = new_tensor(self, (0,), self._dtype)
    bin_edges = new_tensor(self, (0,), self._dtype)
    return _histogram_count(self, bins, range, weight, density, hist, bin_edges)


@registered(histogram_bin_ct_out)
def histogram_bin_ct_out_kernel(
    self: TensorImpl,
    bins: int,
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
    hist: TensorImpl,
    bin_edges: TensorImpl,
) -> Any:
    """histogram in `bins` equal bins into `hist` and `bin_edges`. Torch: histogram_out."""
    return _histogram_count(self, bins, range, weight, density, hist, bin_edges)


# --- histogramdd's parts -------------------------------------------------------------------


_histogramdd_bin_edges = defop(
    "_histogramdd_bin_edges(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False) -> Tensor[]"
)
_histogramdd_bin_edges_out = defop(
    "_histogramdd_bin_edges.out(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False, Tensor(a!)[] out) -> ()"
)
_histogramdd_from_bin_cts = defop(
    "_histogramdd_from_bin_cts(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False) -> Tensor"
)
_histogramdd_from_bin_cts_out = defop(
    "_histogramdd_from_bin_cts.out(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False, Tensor(a!) out) -> Tensor(a!)"
)
_histogramdd_from_bin_tensors = defop(
    "_histogramdd_from_bin_tensors(Tensor self, Tensor[] bins, *, Tensor? weight=None, "
    "bool density=False) -> Tensor"
)
_histogramdd_from_bin_tensors_out = defop(
    "_histogramdd_from_bin_tensors.out(Tensor self, Tensor[] bins, *, Tensor? weight=None, "
    "bool density=False, Tensor(a!) out) -> Tensor(a!)"
)


def _check_at_least_2d(self: TensorImpl) -> None:
    # torch: allocate_bin_edges_tensors.
    if len(self._size) < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")


def _bin_edges_arrays(
    self: TensorImpl, bins: Sequence[int], range_: Sequence[float] | None
) -> list[Any]:
    """Torch: histogramdd_bin_edges_out: the outer edges of self.reshape(M, N), the number
    of bin counts checked, then linspace edges per dimension."""
    _check_at_least_2d(self)
    n = self._size[-1]
    outer = outer_edges(self, points(self), n, range_)
    if len(bins) != n:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    if not has_data(self):
        raise no_meta("_histogramdd_bin_edges")
    return [linspace_edges(self, left, right, ct + 1) for (left, right), ct in zip(outer, bins)]


@registered(_histogramdd_bin_edges)
def histogramdd_bin_edges_kernel(
    self: TensorImpl,
    bins: list[int],
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """The bin edges of each dimension of `self`'s points. Torch: histogramdd_bin_edges."""
    if not has_data(self):
        _check_at_least_2d(self)
        raise no_meta("_histogramdd_bin_edges")
    result = []
    for edges in _bin_edges_arrays(self, bins, range):
        t = new_tensor(self, (int(edges.shape[0]),), self._dtype)
        write_values(t, edges)
        result.append(t)
    return result


@registered(_histogramdd_from_bin_cts)
def histogramdd_from_bin_cts_kernel(
    self: TensorImpl,
    bins: list[int],
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """The histogram of `self`'s points in `bins` equal bins per dimension.

    Torch: _histogramdd (Histogram.cpp, int[] bins): edges as _histogramdd_bin_edges makes
    them, the inputs checked, the outputs prepared, then the local-search kernel.
    """
    _check_at_least_2d(self)
    if not has_data(self):
        raise no_meta("_histogramdd_from_bin_cts")
    hist = new_tensor(self, (0,), self._dtype)
    edge_arrays = _bin_edges_arrays(self, bins, range)
    edge_tensors = []
    for edges in edge_arrays:
        t = new_tensor(self, (int(edges.shape[0]),), self._dtype)
        write_values(t, edges)
        edge_tensors.append(t)
    check_inputs(self, edge_tensors, weight)
    outputs = [new_tensor(self, (0,), self._dtype) for _ in edge_tensors]
    prepare_out(self, [geometry.numel(t._size) - 1 for t in edge_tensors], hist, outputs)
    histogramdd_fill(
        self,
        weight,
        density,
        hist,
        edge_arrays,
        BinSelection.LINEAR_INTERPOLATION_WITH_LOCAL_SEARCH,
    )
    return hist


@registered(_histogramdd_from_bin_tensors)
def histogramdd_from_bin_tensors_kernel(
    self: TensorImpl, bins: list[TensorImpl], *, weight: TensorImpl | None, density: bool
) -> Any:
    """The histogram of `self`'s points over the edge tensors `bins`.

    Torch: _histogramdd (Histogram.cpp, Tensor[] bins), the binary-search kernel.
    """
    _check_at_least_2d(self)
    if not has_data(self):
        raise no_meta("_histogramdd_from_bin_tensors")
    hist = new_tensor(self, (0,), self._dtype)
    outputs = [new_tensor(self, (0,), self._dtype) for _ in bins]
    return _histogramdd_tensors(self, bins, weight, density, hist, outputs)


@_histogramdd_bin_edges_out.kernel(CEA)
def histogramdd_bin_edges_out_kernel(
    self: TensorImpl,
    bins: list[int],
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
    out: list[TensorImpl],
) -> None:
    """Torch: the generated CompositeExplicitAutograd out= form (each out resized, copied)."""
    result = aten._histogramdd_bin_edges.default(
        self, bins, range=range, weight=weight, density=density
    )
    for target, value in zip(out, result):
        same_as_out(value, target)


@_histogramdd_from_bin_cts_out.kernel(CEA)
def histogramdd_from_bin_cts_out_kernel(
    self: TensorImpl,
    bins: list[int],
    *,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= form."""
    result = aten._histogramdd_from_bin_cts.default(
        self, bins, range=range, weight=weight, density=density
    )
    return same_as_out(result, out)


@_histogramdd_from_bin_tensors_out.kernel(CEA)
def histogramdd_from_bin_tensors_out_kernel(
    self: TensorImpl,
    bins: list[TensorImpl],
    *,
    weight: TensorImpl | None,
    density: bool,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= form."""
    result = aten._histogramdd_from_bin_tensors.default(self, bins, weight=weight, density=density)
    return same_as_out(result, out)


# --- histogramdd (CompositeImplicitAutograd) ------------------------------------------------


histogramdd = defop(
    "histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor[] bin_edges)"
)
histogramdd_int_bins = defop(
    "histogramdd.int_bins(Tensor self, int bins, float[]? range=None, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor[] bin_edges)"
)
histogramdd_tensor_list_bins = defop(
    "histogramdd.TensorList_bins(Tensor self, Tensor[] bins, float[]? range=None, "
    "Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor[] bin_edges)"
)


@histogramdd.decomposition
def histogramdd_decomposition(
    self: TensorImpl,
    bins: list[int],
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """Torch: histogramdd (Histogram.cpp, int[] bins): the edges, then the histogram."""
    bin_edges = aten._histogramdd_bin_edges.default(
        self, bins, range=range, weight=weight, density=density
    )
    hist = aten._histogramdd_from_bin_cts.default(
        self, bins, range=range, weight=weight, density=density
    )
    return hist, bin_edges


@histogramdd_int_bins.decomposition
def histogramdd_int_bins_decomposition(
    self: TensorImpl,
    bins: int,
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """Torch: histogramdd (int bins): the same count for each of self.size(-1) dimensions."""
    if not self._size:
        raise geometry.no_dimensions(-1)
    return aten.histogramdd.default(self, [bins] * self._size[-1], range, weight, density)


@histogramdd_tensor_list_bins.decomposition
def histogramdd_tensor_list_bins_decomposition(
    self: TensorImpl,
    bins: list[TensorImpl],
    range: list[float] | None,
    weight: TensorImpl | None,
    density: bool,
) -> Any:
    """Torch: histogramdd (Tensor[] bins): the histogram over `bins`, returned with them."""
    hist = aten._histogramdd_from_bin_tensors.default(self, bins, weight=weight, density=density)
    return hist, list(bins)
