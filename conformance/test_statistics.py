"""Histograms and statistics against torch: histc, bincount, histogram, histogramdd, quantile,
nanquantile, cov and corrcoef, for what their OpInfos leave out.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's type (torch.return_types.<op> for named
tuples), dtype, shape, strides and values (NaNs equal). Counts, bins and the quantiles of
every interpolation mode but linear are compared bit for bit; weighted sums, covariances and
linear quantiles within float tolerances (torch's lerp and matrix products round by FMA and
BLAS). Covered: every dtype each CPU kernel accepts and torch's errors for the others; the
NaN and infinite range messages; empty and 0-dim inputs; out= forms (the resize warning and
wrong dtypes); meta tensors; cov's weights, corner cases and warning; gradients of quantile
and cov through their decompositions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

_NAN, _INF = math.nan, math.inf
_FLOATS = [d for d in ("float16", "float32", "float64") if d in STORED_DTYPES]
_POINTS = [0.5, -1.25, 3.0, 2.75, 0.0, -0.0, 1.0, 2.0, -3.5, 1.5, 0.25, 3.0, -1.25, 2.5, 0.75]


def _f(lib: Any, values: Any, dtype: str = "float32") -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _pts(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (15,)) -> Any:
    return _f(lib, _POINTS, dtype).reshape(shape)


def _grid(lib: Any, dtype: str = "float64") -> Any:
    # 3 x 5 values with ties, and a NaN-free copy for quantile's rows.
    return _f(lib, _POINTS, dtype).reshape(3, 5)


def _same(expected: Any, actual: Any, exact: bool) -> None:
    if isinstance(expected, bool | int | float) or expected is None:
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        assert type(actual).__name__ == type(expected).__name__
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a, exact)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    if exact:
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)
    else:
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=2e-5, atol=1e-6)


def _check(fn: Callable[[Any], Any], exact: bool = True) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual, exact)


# --- every dtype ---------------------------------------------------------------------------


def _any(lib: Any, dtype: str) -> Any:
    values = [1, 2, 3, 3, 0, 2] if dtype in ("uint8", "bool") else [1, -2, 3, 3, 0, 2]
    return lib.tensor(values, dtype=getattr(lib, dtype))


PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "histc": lambda lib, d: lib.histc(_any(lib, d), 4),
    "histc range": lambda lib, d: lib.histc(_any(lib, d), 3, -1, 2),
    "histc method": lambda lib, d: _any(lib, d).histc(bins=5, min=0, max=3),
    "bincount": lambda lib, d: lib.bincount(_any(lib, d).abs() if d != "bool" else _any(lib, d)),
    "bincount weights": lambda lib, d: lib.bincount(
        lib.tensor([1, 0, 4, 1]), _any(lib, d)[:4], minlength=6
    ),
    "histogram": lambda lib, d: lib.histogram(_any(lib, d), 3),
    "histogram range": lambda lib, d: lib.histogram(_any(lib, d), 3, range=(0.0, 2.5)),
    "histogram edges": lambda lib, d: lib.histogram(
        _any(lib, d), lib.tensor([-1, 0, 2, 3]).to(getattr(lib, d))
    ),
    "histogramdd": lambda lib, d: lib.histogramdd(_any(lib, d).reshape(3, 2), [2, 3]),
    "quantile": lambda lib, d: lib.quantile(_any(lib, d), 0.25),
    "cov": lambda lib, d: lib.cov(_any(lib, d).reshape(2, 3)),
    "corrcoef": lambda lib, d: lib.corrcoef(_any(lib, d).reshape(3, 2)),
}


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype), exact=name not in ("cov", "corrcoef"))


# --- histc -----------------------------------------------------------------------------------

HISTC: dict[str, Callable[[Any], Any]] = {
    "bins 1": lambda lib: lib.histc(_pts(lib), 1),
    "default range from data": lambda lib: lib.histc(_pts(lib), 7),
    "equal data widened by 1": lambda lib: lib.histc(_f(lib, [2.0, 2.0]), 3),
    "empty widened": lambda lib: lib.histc(_f(lib, []), 3),
    "0-dim": lambda lib: lib.histc(_f(lib, 1.5), 4),
    "2-D": lambda lib: lib.histc(_pts(lib, shape=(3, 5)), 6, -2, 2),
    "values on edges": lambda lib: lib.histc(_f(lib, [0.0, 0.1, 0.2, 0.3, 1.0]), 10, 0, 1),
    "float range": lambda lib: lib.histc(_pts(lib), 9, -1.1, 2.3),
    "NaN skipped with a range": lambda lib: lib.histc(_f(lib, [1.0, _NAN, 2.0]), 2, 0, 3),
    "bins 0": lambda lib: lib.histc(_pts(lib), 0),
    "bins negative": lambda lib: lib.histc(_pts(lib), -3),
    "min > max": lambda lib: lib.histc(_pts(lib), 3, 2, 1),
    "infinite max": lambda lib: lib.histc(_pts(lib), 3, 1, _INF),
    "NaN range": lambda lib: lib.histc(_pts(lib), 3, _NAN, _NAN),
    "NaN in data": lambda lib: lib.histc(_f(lib, [1.0, _NAN]), 3),
    "one NaN": lambda lib: lib.histc(_f(lib, [_NAN]), 3),
    "negative NaN": lambda lib: lib.histc(_f(lib, [-_NAN]), 3),
    "infinite data": lambda lib: lib.histc(_f(lib, [1.0, _INF]), 3),
    "complex min": lambda lib: lib.histc(_pts(lib), 3, 1 + 2j, 3),
    "out": lambda lib: lib.histc(_pts(lib), 4, out=lib.empty(0)),
    "out resized": lambda lib: lib.histc(_pts(lib), 4, out=lib.empty(2)),
    "out wrong dtype": lambda lib: lib.histc(_pts(lib), 4, out=lib.empty(4, dtype=lib.float64)),
    "meta": lambda lib: lib.histc(_pts(lib).to("meta"), 5),
    "meta int": lambda lib: lib.histc(lib.tensor([1, 2], device="meta"), 3),
    "meta min > max": lambda lib: lib.histc(_pts(lib).to("meta"), 3, 2, 1),
    "meta bins 0": lambda lib: lib.histc(_pts(lib).to("meta"), 0),
}
if "float16" in STORED_DTYPES:
    HISTC["float16"] = lambda lib: lib.histc(_pts(lib, "float16"), 7, -1.3, 2.9)
    HISTC["float16 overflow"] = lambda lib: lib.histc(_pts(lib, "float16"), 3, -1e10, 3)


@pytest.mark.parametrize("name", sorted(HISTC))
def test_histc(name: str) -> None:
    _check(HISTC[name])


# --- bincount --------------------------------------------------------------------------------

BINCOUNT: dict[str, Callable[[Any], Any]] = {
    "minlength": lambda lib: lib.bincount(lib.tensor([1, 1, 3]), minlength=7),
    "minlength below": lambda lib: lib.bincount(lib.tensor([1, 1, 3]), minlength=2),
    "float32 weights": lambda lib: lib.bincount(
        lib.tensor([2, 0, 2, 1]), _f(lib, [0.1, 0.2, 0.3, 0.4])
    ),
    "float64 weights": lambda lib: lib.bincount(
        lib.tensor([2, 0, 2, 1]), _f(lib, [0.1, 0.2, 0.3, 0.4], "float64")
    ),
    "strided": lambda lib: lib.bincount(lib.tensor([4, 1, 3, 3, 0, 1])[::2]),
    "empty": lambda lib: lib.bincount(lib.tensor([], dtype=lib.int64), minlength=3),
    "empty weighted": lambda lib: lib.bincount(
        lib.tensor([], dtype=lib.int64), _f(lib, []), minlength=2
    ),
    "negative": lambda lib: lib.bincount(lib.tensor([1, -2, 3])),
    "2-D": lambda lib: lib.bincount(lib.tensor([[1, 2]])),
    "0-dim": lambda lib: lib.bincount(lib.tensor(1)),
    "float input": lambda lib: lib.bincount(_f(lib, [1.0])),
    "weights too long": lambda lib: lib.bincount(lib.tensor([1, 2]), lib.ones(3)),
    "weights 2-D": lambda lib: lib.bincount(lib.tensor([1, 2]), lib.ones(2, 2)),
    "minlength negative": lambda lib: lib.bincount(lib.tensor([1, 2]), minlength=-1),
    "aten out": lambda lib: lib.ops.aten.bincount.out(
        lib.tensor([1, 1, 2]), None, 0, out=lib.empty(0, dtype=lib.int64)
    ),
    "aten out wrong dtype": lambda lib: lib.ops.aten.bincount.out(
        lib.tensor([1, 1, 2]), None, 0, out=lib.empty(3)
    ),
}


@pytest.mark.parametrize("name", sorted(BINCOUNT))
def test_bincount(name: str) -> None:
    _check(BINCOUNT[name])


# --- histogram, histogramdd ------------------------------------------------------------------


def _w(lib: Any, dtype: str = "float32", n: int = 15) -> Any:
    return _f(lib, [(i % 4) * 0.25 + 0.125 for i in range(n)], dtype)


HISTOGRAM: dict[str, Callable[[Any], Any]] = {
    "bins 1": lambda lib: lib.histogram(_pts(lib), 1),
    "weight": lambda lib: lib.histogram(_pts(lib), 4, weight=_w(lib)),
    "density": lambda lib: lib.histogram(_pts(lib), 5, density=True),
    "weight density range": lambda lib: lib.histogram(
        _pts(lib), 6, range=(-1.0, 2.0), weight=_w(lib), density=True
    ),
    "2-D input, 2-D weight": lambda lib: lib.histogram(
        _pts(lib, shape=(3, 5)), 3, weight=_w(lib).reshape(5, 3)
    ),
    "edges": lambda lib: lib.histogram(_pts(lib), _f(lib, [-2.0, 0.0, 0.5, 3.0])),
    "edges weight density": lambda lib: lib.histogram(
        _pts(lib), _f(lib, [-2.0, 0.0, 0.5, 3.0]), weight=_w(lib), density=True
    ),
    "empty": lambda lib: lib.histogram(_f(lib, []), 3),
    "equal values": lambda lib: lib.histogram(_f(lib, [5.0, 5.0]), 4),
    "0-dim with weight": lambda lib: lib.histogram(_f(lib, 1.0), 3, weight=_f(lib, 1.0)),
    "method": lambda lib: _pts(lib, "float64").histogram(3, range=(0.0, 1.0)),
    "out": lambda lib: lib.histogram(_pts(lib), 3, out=(lib.empty(0), lib.empty(0))),
    "edges out": lambda lib: lib.histogram(
        _pts(lib), _f(lib, [0.0, 1.0, 2.0]), out=(lib.empty(0), lib.empty(0))
    ),
    "out wrong dtype": lambda lib: lib.histogram(
        _pts(lib), 3, out=(lib.empty(0, dtype=lib.float64), lib.empty(0))
    ),
    "NaN data": lambda lib: lib.histogram(_f(lib, [-_NAN, 1.0]), 3),
    "NaN data late": lambda lib: lib.histogram(_f(lib, [1.0] + [_NAN] * 3), 3),
    "range of 3": lambda lib: lib.histogram(_pts(lib), 3, range=(0.0, 1.0, 2.0)),
    "range reversed": lambda lib: lib.histogram(_pts(lib), 3, range=(2.0, 1.0)),
    "bins 0": lambda lib: lib.histogram(_pts(lib), 0),
    "edges of another dtype": lambda lib: lib.histogram(_pts(lib), _f(lib, [0.0, 1.0], "float64")),
    "edges 2-D": lambda lib: lib.histogram(_pts(lib), _f(lib, [[0.0, 1.0]])),
    "one edge": lambda lib: lib.histogram(_pts(lib), _f(lib, [1.0])),
    "no edges": lambda lib: lib.histogram(_pts(lib), _f(lib, [])),
    "weight shape": lambda lib: lib.histogram(_pts(lib), 3, weight=_f(lib, [1.0])),
    "weight dtype": lambda lib: lib.histogram(_pts(lib), 3, weight=_w(lib, "float64")),
    "int input": lambda lib: lib.histogram(lib.tensor([1, 2]), 3),
    "int input with range": lambda lib: lib.histogram(lib.tensor([1, 2]), 3, range=(0.0, 1.0)),
    "meta": lambda lib: lib.histogram(_pts(lib).to("meta"), 3),
}
if "float16" in STORED_DTYPES:
    HISTOGRAM["float16 range"] = lambda lib: lib.histogram(
        _pts(lib, "float16"), 3, range=(0.0, 1.0)
    )
    HISTOGRAM["float16 no range"] = lambda lib: lib.histogram(_pts(lib, "float16"), 3)


@pytest.mark.parametrize("name", sorted(HISTOGRAM))
def test_histogram(name: str) -> None:
    _check(HISTOGRAM[name])


def _pairs(lib: Any, dtype: str = "float32") -> Any:
    return _pts(lib, dtype, (5, 3))


HISTOGRAMDD: dict[str, Callable[[Any], Any]] = {
    "bin counts": lambda lib: lib.histogramdd(_pairs(lib), [2, 3, 1]),
    "one count": lambda lib: lib.histogramdd(_pairs(lib), 2),
    "range": lambda lib: lib.histogramdd(_pairs(lib), [2, 2, 2], range=[0.0, 1, -1, 1, 0, 3]),
    "weight density": lambda lib: lib.histogramdd(
        _pairs(lib), [3, 2, 2], weight=_w(lib, n=5), density=True
    ),
    "3-D input": lambda lib: lib.histogramdd(_pts(lib, shape=(5, 1, 3)), [2, 2, 2]),
    "edges": lambda lib: lib.histogramdd(
        _pairs(lib), [_f(lib, [-2.0, 0.0, 3.0]), _f(lib, [0.0, 1.0]), _f(lib, [-4.0, 4.0])]
    ),
    "empty": lambda lib: lib.histogramdd(_f(lib, []).reshape(0, 2), [2, 2]),
    "aten bin edges": lambda lib: lib.ops.aten._histogramdd_bin_edges(_pairs(lib), [0, -1, 2]),
    "aten bin edges too negative": lambda lib: lib.ops.aten._histogramdd_bin_edges(
        _pairs(lib), [1, -2, 2]
    ),
    "aten from bin cts out": lambda lib: lib.ops.aten._histogramdd_from_bin_cts.out(
        _pairs(lib), [2, 2, 2], out=lib.empty(0)
    ),
    "1-D input": lambda lib: lib.histogramdd(_pts(lib), [2]),
    "0-dim input": lambda lib: lib.histogramdd(_f(lib, 1.0), 2),
    "too many counts": lambda lib: lib.histogramdd(_pairs(lib), [2, 2, 2, 2]),
    "range too short": lambda lib: lib.histogramdd(_pairs(lib), 2, range=[0.0, 1.0]),
    "count 0": lambda lib: lib.histogramdd(_pairs(lib), [2, 0, 1]),
    "count -1": lambda lib: lib.histogramdd(_pairs(lib), [2, -1, 1]),
    "too few edge tensors": lambda lib: lib.histogramdd(_pairs(lib), [_f(lib, [0.0, 1.0])]),
    "weight shape": lambda lib: lib.histogramdd(_pairs(lib), 2, weight=_w(lib, n=3)),
    "float64": lambda lib: lib.histogramdd(_pairs(lib, "float64"), [4, 1, 2]),
}


@pytest.mark.parametrize("name", sorted(HISTOGRAMDD))
def test_histogramdd(name: str) -> None:
    _check(HISTOGRAMDD[name])


def test_histogramdd_returns_the_edge_tensors() -> None:
    # torch: histogramdd (Tensor[] bins) returns the bins it was given.
    x = _pairs(refimpl)
    edges = [_f(refimpl, [-2.0, 3.0]), _f(refimpl, [0.0, 1.0]), _f(refimpl, [-4.0, 4.0])]
    result = refimpl.histogramdd(x, edges)
    assert all(a is b for a, b in zip(result.bin_edges, edges, strict=True))


# --- quantile, nanquantile -------------------------------------------------------------------

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _nan_grid(lib: Any, dtype: str = "float64") -> Any:
    values = list(_POINTS)
    values[2], values[5:10] = _NAN, [_NAN] * 5
    return _f(lib, values, dtype).reshape(3, 5)


def _all_q(op: str, mode: str, dtype: str) -> Callable[[Any], Any]:
    def run(lib: Any) -> Any:
        q = lib.tensor([0.0, 0.125, 0.5, 1.0], dtype=getattr(lib, dtype))
        return getattr(lib, op)(_nan_grid(lib, dtype), q, interpolation=mode)

    return run


def _dim_0(op: str, mode: str, dtype: str) -> Callable[[Any], Any]:
    return lambda lib: getattr(lib, op)(_nan_grid(lib, dtype), 0.375, 0, True, interpolation=mode)


def _dim_1(op: str, mode: str, dtype: str) -> Callable[[Any], Any]:
    def run(lib: Any) -> Any:
        q = lib.tensor([0.3, 0.7], dtype=getattr(lib, dtype))
        return getattr(lib, op)(_grid(lib, dtype), q, 1, interpolation=mode)

    return run


QUANTILE: dict[str, Callable[[Any], Any]] = {}
for _op in ("quantile", "nanquantile"):
    for _mode in _MODES:
        for _dtype in ("float32", "float64"):
            QUANTILE[f"{_op} {_mode} {_dtype} all"] = _all_q(_op, _mode, _dtype)
            QUANTILE[f"{_op} {_mode} {_dtype} dim 0 keepdim"] = _dim_0(_op, _mode, _dtype)
            QUANTILE[f"{_op} {_mode} {_dtype} dim 1"] = _dim_1(_op, _mode, _dtype)
    QUANTILE[f"{_op} 0-dim dim 0"] = lambda lib, o=_op: getattr(lib, o)(_f(lib, 2.0), 0.2, 0)
    QUANTILE[f"{_op} 0-dim keepdim"] = lambda lib, o=_op: getattr(lib, o)(
        _f(lib, 2.0), 0.2, keepdim=True
    )
    QUANTILE[f"{_op} method"] = lambda lib, o=_op: getattr(_grid(lib), o)(0.5, -1)
    QUANTILE[f"{_op} out"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib), 0.5, 1, out=lib.empty(0, dtype=lib.float64)
    )
    QUANTILE[f"{_op} out resized"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib), _f(lib, [0.5, 0.25], "float64"), 1, out=lib.empty(2, dtype=lib.float64)
    )
    QUANTILE[f"{_op} out wrong dtype"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib), 0.5, out=lib.empty(0)
    )
    QUANTILE[f"{_op} q > 1"] = lambda lib, o=_op: getattr(lib, o)(_grid(lib), 1.5)
    QUANTILE[f"{_op} q NaN"] = lambda lib, o=_op: getattr(lib, o)(_grid(lib), _NAN)
    QUANTILE[f"{_op} q tensor out of range"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib), _f(lib, [0.5, -0.5], "float64")
    )
    QUANTILE[f"{_op} q 2-D"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib), _f(lib, [[0.5]], "float64")
    )
    QUANTILE[f"{_op} q dtype"] = lambda lib, o=_op: getattr(lib, o)(_grid(lib), _f(lib, [0.5]))
    QUANTILE[f"{_op} int input"] = lambda lib, o=_op: getattr(lib, o)(lib.tensor([1, 2]), 0.5)
    QUANTILE[f"{_op} empty"] = lambda lib, o=_op: getattr(lib, o)(_f(lib, []), 0.5)
    QUANTILE[f"{_op} bad mode first"] = lambda lib, o=_op: getattr(lib, o)(
        _f(lib, []), 0.5, 7, interpolation="cubic"
    )
    QUANTILE[f"{_op} scalar q checked first"] = lambda lib, o=_op: getattr(lib, o)(
        lib.tensor([1, 2]), 1.5, interpolation="cubic"
    )
    QUANTILE[f"{_op} dim out of range"] = lambda lib, o=_op: getattr(lib, o)(_grid(lib), 0.5, 2)
    QUANTILE[f"{_op} meta"] = lambda lib, o=_op: getattr(lib, o)(
        _grid(lib).to("meta"), lib.tensor([0.5, 2.0], dtype=lib.float64, device="meta"), 0
    )


@pytest.mark.parametrize("name", sorted(QUANTILE))
def test_quantile(name: str) -> None:
    # torch's lerp rounds once (an FMA), refimpl's twice: linear may differ in the last bit.
    _check(QUANTILE[name], exact="linear" not in name)


def test_quantile_gradient() -> None:
    def run(lib: Any) -> Any:
        x = _grid(lib).requires_grad_()
        q = lib.tensor([0.1, 0.5, 0.9], dtype=lib.float64)
        lib.quantile(x, q, 1, interpolation="midpoint").sum().backward()
        lib.nanquantile(x, 0.3).backward()
        return x.grad

    _check(run)


# --- cov, corrcoef ---------------------------------------------------------------------------


def _obs(lib: Any, dtype: str = "float64") -> Any:
    return _f(lib, _POINTS[:12], dtype).reshape(3, 4)


_FW = [1, 3, 0, 2]
_AW = [0.5, 0.25, 1.0, 0.125]

COV: dict[str, Callable[[Any], Any]] = {
    "plain": lambda lib: lib.cov(_obs(lib)),
    "correction 0": lambda lib: lib.cov(_obs(lib), correction=0),
    "correction 4 warns, divides by 0": lambda lib: lib.cov(_obs(lib), correction=4),
    "fweights": lambda lib: lib.cov(_obs(lib), fweights=lib.tensor(_FW)),
    "aweights": lambda lib: lib.cov(_obs(lib), aweights=_f(lib, _AW, "float64")),
    "both, correction 2": lambda lib: lib.cov(
        _obs(lib), correction=2, fweights=lib.tensor(_FW), aweights=_f(lib, _AW)
    ),
    "1-D": lambda lib: lib.cov(_f(lib, _POINTS)),
    "0-dim": lambda lib: lib.cov(_f(lib, 2.0)),
    "one observation": lambda lib: lib.cov(_obs(lib)[:, :1]),
    "one observation, aweights": lambda lib: lib.cov(_obs(lib)[:, :1], aweights=_f(lib, [2.0])),
    "int": lambda lib: lib.cov(lib.tensor([[1, 2, 4], [2, 5, 9]])),
    "complex": lambda lib: lib.cov(lib.tensor([[1 + 2j, 3 - 1j, 0.5j], [2 + 0j, -1 + 1j, 4 - 2j]])),
    "complex aweights": lambda lib: lib.cov(
        lib.tensor([[1 + 2j, 3 - 1j, 0.5j], [2 + 0j, -1 + 1j, 4 - 2j]]),
        aweights=_f(lib, [0.5, 2.0, 1.0]),
    ),
    "3-D": lambda lib: lib.cov(lib.ones(2, 2, 2)),
    "bool": lambda lib: lib.cov(lib.ones(2, 2, dtype=lib.bool)),
    "fweights 2-D": lambda lib: lib.cov(_obs(lib), fweights=lib.ones(4, 1, dtype=lib.int64)),
    "fweights float": lambda lib: lib.cov(_obs(lib), fweights=_f(lib, _AW)),
    "fweights length": lambda lib: lib.cov(_obs(lib), fweights=lib.tensor([1, 2])),
    "fweights negative": lambda lib: lib.cov(_obs(lib), fweights=lib.tensor([1, -2, 1, 1])),
    "aweights int": lambda lib: lib.cov(_obs(lib), aweights=lib.tensor(_FW)),
    "aweights negative": lambda lib: lib.cov(_obs(lib), aweights=_f(lib, [1.0, -1.0, 1.0, 1.0])),
    "weights sum to 0": lambda lib: lib.cov(_obs(lib), aweights=lib.zeros(4)),
    "method": lambda lib: _obs(lib).cov(correction=0),
    "corrcoef": lambda lib: lib.corrcoef(_obs(lib)),
    "corrcoef 1-D": lambda lib: lib.corrcoef(_f(lib, _POINTS)),
    "corrcoef constant row": lambda lib: lib.corrcoef(_f(lib, [[1.0, 1.0], [1.0, 2.0]])),
    "corrcoef complex": lambda lib: lib.corrcoef(
        lib.tensor([[1 + 2j, 3 - 1j, 0.5j], [2 + 0j, -1 + 1j, 4 - 2j]])
    ),
    "corrcoef 3-D": lambda lib: lib.corrcoef(lib.ones(2, 2, 2)),
    "corrcoef method": lambda lib: _obs(lib, "float32").corrcoef(),
    "meta": lambda lib: lib.cov(_obs(lib).to("meta")),
}


@pytest.mark.parametrize("name", sorted(COV))
def test_cov(name: str) -> None:
    _check(COV[name], exact=False)


def test_cov_warns_as_torch() -> None:
    for lib in (torch, refimpl):
        with pytest.warns(UserWarning, match=r"cov\(\): degrees of freedom is <= 0"):
            lib.cov(_obs(lib), correction=4)


def test_cov_zeroes_its_input_for_one_weighted_observation() -> None:
    # torch: cov writes zeros through its view of the input (Correlation.cpp's corner case).
    for lib in (torch, refimpl):
        x = _obs(lib)[:, :1].clone()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.cov(x, fweights=lib.tensor([2]))
        assert x.tolist() == [[0.0], [0.0], [0.0]]


def test_cov_gradient() -> None:
    def run(lib: Any) -> Any:
        x = _obs(lib).requires_grad_()
        w = _f(lib, _AW, "float64").requires_grad_()
        c = lib.cov(x, fweights=lib.tensor(_FW), aweights=w)
        (c * c).sum().backward()
        r = lib.corrcoef(x)
        r.sum().backward()
        return x.grad, w.grad

    _check(lambda lib: list(run(lib)), exact=False)
