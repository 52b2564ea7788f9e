"""Scans and order statistics against torch: cumsum, cumprod, cummax, cummin, logcumsumexp,
median, nanmedian, mode, kthvalue, diff, trace and sum_to_size.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's type (torch.return_types.<op> for named
tuples), dtype, shape, strides and values (NaNs equal), indices included, so ties and NaNs
must pick torch's index. Function, method, in-place and out= forms; strided inputs, empty and
0-dim inputs, dims out of range, dtype= arguments, out= tensors of the wrong dtype or shape
(with torch's resize warning), and meta tensors. A hypothesis test draws shapes, dtypes,
strided views, dims and values with many ties, NaNs and infinities for every op
(SCANS_RANDOM_PROFILE=scans_search widens the search).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import HealthCheck, given, settings

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

_NAN, _INF = math.nan, math.inf
# 3 x 5 samples with ties in every row (and a NaN, an infinity and signed zeros for floats).
_VALUES: dict[str, list[Any]] = {
    "bool": [True, False, True, True, False, False, False, True, False, True, True, True,
             False, False, True],
    "uint": [3, 1, 2, 1, 5, 4, 4, 0, 2, 4, 9, 7, 7, 3, 0],
    "int": [3, 1, 2, 1, -5, 4, 4, 0, 2, 4, -1, 7, 7, 3, -1],
    "float": [3.0, 1.0, 2.5, 1.0, 5.0, -4.0, 4.0, 0.0, -0.0, 4.0, _NAN, 7.0, 7.0, _INF, 0.5],
    "complex": [1 + 2j, 3 - 1j, 0.5j, 1 + 2j, -2 + 0j, 4 + 4j, -1 - 3j, 0j, 2 + 1j, 4 + 4j,
                1 - 1j, 0.25 + 3j, -3 + 2j, 1 + 0j, 2 - 2j],
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str, shape: tuple[int, ...] = (3, 5), values: Any = None) -> Any:
    data = _VALUES[_kind(dtype)] if values is None else values
    return lib.tensor(data, dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any, values: list[Any], dtype: str = "float32") -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float) or expected is None:
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        # torch.return_types.cummax and refimpl.return_types.cummax: same name, same fields.
        assert type(actual).__name__ == type(expected).__name__
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=1e-5, atol=1e-6)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error), str(expected_error)
        )
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


# --- every dtype ---------------------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "cumsum": lambda lib, d: lib.cumsum(_t(lib, d), 1),
    "cumsum transposed": lambda lib, d: lib.cumsum(_t(lib, d).t(), 0),
    "cumsum method": lambda lib, d: _t(lib, d).cumsum(-2),
    "cumsum_": lambda lib, d: _t(lib, d).cumsum_(1),
    "cumsum dtype int32": lambda lib, d: lib.cumsum(_t(lib, d), 1, dtype=lib.int32),
    "cumprod": lambda lib, d: lib.cumprod(_t(lib, d), 0),
    "cumprod strided": lambda lib, d: lib.cumprod(_t(lib, d)[:, ::2], 1),
    "cumprod_": lambda lib, d: _t(lib, d).cumprod_(0),
    "cummax": lambda lib, d: lib.cummax(_t(lib, d), 1),
    "cummax transposed": lambda lib, d: _t(lib, d).t().cummax(0),
    "cummin": lambda lib, d: lib.cummin(_t(lib, d), 1),
    "cummin dim 0": lambda lib, d: lib.cummin(_t(lib, d), 0),
    "logcumsumexp": lambda lib, d: lib.logcumsumexp(_t(lib, d), 1),
    "logcumsumexp transposed": lambda lib, d: _t(lib, d).t().logcumsumexp(0),
    "median": lambda lib, d: lib.median(_t(lib, d)),
    "median dim": lambda lib, d: lib.median(_t(lib, d), 1),
    "median dim 0 keepdim": lambda lib, d: _t(lib, d).median(0, keepdim=True),
    "nanmedian": lambda lib, d: lib.nanmedian(_t(lib, d)),
    "nanmedian dim": lambda lib, d: lib.nanmedian(_t(lib, d), 1),
    "mode": lambda lib, d: lib.mode(_t(lib, d)),
    "mode dim 0": lambda lib, d: lib.mode(_t(lib, d), 0),
    "mode transposed keepdim": lambda lib, d: _t(lib, d).t().mode(1, True),
    "kthvalue": lambda lib, d: lib.kthvalue(_t(lib, d), 2, 1),
    "kthvalue dim 0 keepdim": lambda lib, d: _t(lib, d).kthvalue(3, 0, True),
    "diff": lambda lib, d: lib.diff(_t(lib, d)),
    "diff n=2 dim 0": lambda lib, d: _t(lib, d).diff(2, 0),
    "trace": lambda lib, d: lib.trace(_t(lib, d)),
    "trace transposed": lambda lib, d: _t(lib, d).t().trace(),
    "sum_to_size": lambda lib, d: _t(lib, d).sum_to_size(1, 5),
    "sum_to_size leading": lambda lib, d: _t(lib, d).sum_to_size((5,)),
}


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype))


# --- forms, edge cases, errors -------------------------------------------------------------

def _x(lib: Any) -> Any:
    return _t(lib, "float32")


def _i(lib: Any) -> Any:
    return _t(lib, "int64")


def _e(lib: Any, *shape: int, dtype: str = "float32") -> Any:
    return lib.empty(shape, dtype=getattr(lib, dtype))


def _long_row(lib: Any, dtype: str = "int64") -> Any:
    # 40 values of 5 kinds: rows past 16 elements, where torch's CPU sorts stop being stable.
    return lib.tensor([(i * 7) % 5 - 2 for i in range(40)], dtype=getattr(lib, dtype))


def _median_of_empty(dtype: str) -> Callable[[Any], Any]:
    return lambda lib: lib.median(_e(lib, 0, dtype=dtype))


def _kthvalue_into_input(lib: Any) -> Any:
    x = _f(lib, [3.0, 1, 2])
    return lib.kthvalue(x, 2, out=(x, _e(lib, dtype="int64")))


CASES: dict[str, Callable[[Any], Any]] = {
    # cumsum / cumprod
    "cumsum 0-dim": lambda lib: lib.cumsum(lib.tensor(3.0), 0),
    "cumsum 0-dim dim -1": lambda lib: lib.cumsum(lib.tensor(3.0), -1),
    "cumsum 0-dim dim 1": lambda lib: lib.cumsum(lib.tensor(3.0), 1),
    "cumsum dim out of range": lambda lib: lib.cumsum(_x(lib), 2),
    "cumsum dim -3": lambda lib: lib.cumsum(_x(lib), -3),
    "cumsum empty dim 0": lambda lib: lib.cumsum(_e(lib, 0, 3), 0),
    "cumsum empty dim 1": lambda lib: lib.cumsum(_e(lib, 0, 3), 1),
    "cumsum bool": lambda lib: lib.cumsum(_t(lib, "bool"), 1),
    "cumsum dtype bool": lambda lib: lib.cumsum(_x(lib), 1, dtype=lib.bool),
    "cumsum dtype float from int": lambda lib: lib.cumsum(_i(lib), 1, dtype=lib.float64),
    "cumsum int8 wraps": lambda lib: lib.cumsum(
        _f(lib, [100, 100, 100], "int8"), 0, dtype=lib.int8),
    "cumsum complex to float": lambda lib: lib.cumsum(
        _t(lib, "complex64"), 1, dtype=lib.float32),
    "cumsum float16 accumulates in float32": lambda lib: lib.cumsum(
        lib.full((3000,), 0.1, dtype=lib.float16), 0)[-5:],
    "cumsum float32 accumulates in float64": lambda lib: lib.cumsum(
        lib.full((3000,), 0.1), 0)[-5:],
    "cumsum out float64": lambda lib: lib.cumsum(_x(lib), 1, out=_e(lib, 3, 5, dtype="float64")),
    "cumsum out int64 from float": lambda lib: lib.cumsum(_x(lib).nan_to_num(), 1,
                                                          out=_e(lib, 3, 5, dtype="int64")),
    "cumsum out dtype mismatch": lambda lib: lib.cumsum(
        _i(lib), 0, dtype=lib.int32, out=_e(lib, 3, 5)),
    "cumsum out resized": lambda lib: lib.cumsum(_x(lib), 0, out=_e(lib, 4)),
    "cumsum out empty": lambda lib: lib.cumsum(_x(lib).t(), 0, out=_e(lib, 0)),
    "cumsum out transposed kept": lambda lib: lib.cumsum(_x(lib), 0, out=_e(lib, 5, 3).t()),
    "cumsum out bool": lambda lib: lib.cumsum(_x(lib), 0, out=_e(lib, 3, 5, dtype="bool")),
    "cumsum_ dtype mismatch": lambda lib: _i(lib).cumsum_(0, dtype=lib.float32),
    "cumsum_ same dtype given": lambda lib: _x(lib).cumsum_(0, dtype=lib.float32),
    "cumsum_ bool": lambda lib: _t(lib, "bool").cumsum_(0),
    "cumsum_ dim out of range": lambda lib: _x(lib).cumsum_(5, dtype=lib.float64),
    "cumprod int8 to int64": lambda lib: lib.cumprod(_f(lib, [100, 100], "int8"), 0),
    "cumprod dtype int8 wraps": lambda lib: lib.cumprod(
        _f(lib, [100, 100], "int64"), 0, dtype=lib.int8),
    "cumprod out": lambda lib: lib.cumprod(_i(lib), 1, out=_e(lib, 3, 5, dtype="int64")),
    # cummax / cummin
    "cummax ties and NaN": lambda lib: lib.cummax(
        _f(lib, [1.0, 3, 3, 2, _NAN, 5, _NAN, 7]), 0),
    "cummin ties and NaN": lambda lib: lib.cummin(
        _f(lib, [1.0, 3, 1, 0, 0, _NAN, -1, _NAN]), 0),
    "cummax long": lambda lib: lib.cummax(_long_row(lib), 0),
    "cummax 0-dim": lambda lib: lib.cummax(lib.tensor(3.0), 0),
    "cummax empty": lambda lib: lib.cummax(_e(lib, 0, 3), 0),
    "cummax dim out of range": lambda lib: lib.cummax(_x(lib), 3),
    "cummax complex": lambda lib: lib.cummax(_t(lib, "complex64"), 0),
    "cummax out": lambda lib: lib.cummax(
        _x(lib), 1, out=(_e(lib, 3, 5), _e(lib, 3, 5, dtype="int64"))),
    "cummax out resized": lambda lib: lib.cummax(
        _x(lib), 1, out=(_e(lib, 2), _e(lib, 2, dtype="int64"))),
    "cummax out indices int32": lambda lib: lib.cummax(
        _x(lib), 1, out=(_e(lib, 3, 5), _e(lib, 3, 5, dtype="int32"))),
    "cummin out values float64": lambda lib: lib.cummin(
        _x(lib), 1, out=(_e(lib, 3, 5, dtype="float64"), _e(lib, 3, 5, dtype="int32"))),
    "cummin out bad dtype before bad dim": lambda lib: lib.cummin(
        _x(lib), 7, out=(_e(lib, 3, 5, dtype="float64"), _e(lib, 3, 5, dtype="int64"))),
    # logcumsumexp
    "logcumsumexp int": lambda lib: lib.logcumsumexp(_i(lib), 0),
    "logcumsumexp infinities": lambda lib: lib.logcumsumexp(
        _f(lib, [-_INF, -_INF, 1.0, _INF, _NAN, 2.0]), 0),
    "logcumsumexp complex branch": lambda lib: lib.logcumsumexp(
        lib.tensor([1 + 3j, 2 - 3j, -1 + 3j, 0.5 + 3j, 2 + 3j, 1 - 3j]), 0),
    "logcumsumexp complex -inf": lambda lib: lib.logcumsumexp(
        lib.tensor([complex(-_INF, 1), complex(-_INF, 2), 1 + 1j]), 0),
    "logcumsumexp 0-dim": lambda lib: lib.logcumsumexp(lib.tensor(2.0), 0),
    "logcumsumexp empty": lambda lib: lib.logcumsumexp(_e(lib, 0), 0),
    "logcumsumexp out": lambda lib: lib.logcumsumexp(_x(lib), 1, out=_e(lib, 0)),
    "logcumsumexp out dtype": lambda lib: lib.logcumsumexp(
        _x(lib), 5, out=_e(lib, 3, 5, dtype="float64")),
    "logcumsumexp int out dtype": lambda lib: lib.logcumsumexp(
        _i(lib), 0, out=_e(lib, 3, 5, dtype="float64")),
    # median / nanmedian
    **{f"median empty {d}": _median_of_empty(d)
       for d in ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")},
    "nanmedian empty": lambda lib: lib.nanmedian(_e(lib, 2, 0)),
    "median bool": lambda lib: lib.median(_t(lib, "bool")),
    "median dim bool": lambda lib: lib.median(_t(lib, "bool"), 0),
    "median dim complex": lambda lib: lib.nanmedian(_t(lib, "complex64"), 0),
    "median ties index": lambda lib: lib.median(_f(lib, [2.0, 1, 2, 1, 2, 1]), 0),
    "median first NaN": lambda lib: lib.median(_f(lib, [1.0, _NAN, 2, _NAN]), 0),
    "nanmedian NaN rows": lambda lib: lib.nanmedian(lib.tensor(
        [[1.0, _NAN, 2, _NAN, 3, 3], [_NAN, _INF, _NAN, 0, _INF, 1]]), 1),
    "nanmedian all NaN short row": lambda lib: lib.nanmedian(_f(lib, [_NAN] * 3), 0),
    "nanmedian all NaN rows": lambda lib: lib.nanmedian(lib.full((3, 23), _NAN), 1),
    "median long": lambda lib: lib.median(_long_row(lib), 0),
    "median dim 0-dim": lambda lib: lib.median(lib.tensor(5.0), 0, keepdim=True),
    "median dim 0-dim out of range": lambda lib: lib.median(lib.tensor(5.0), 1),
    "median dim empty reduced": lambda lib: lib.median(_e(lib, 0, 3), 0),
    "median dim empty kept": lambda lib: lib.median(_e(lib, 0, 3), 1),
    "median out": lambda lib: lib.median(_x(lib), 1, out=(_e(lib, 3), _e(lib, 3, dtype="int64"))),
    "median out resized": lambda lib: lib.median(
        _x(lib), 1, out=(_e(lib, 7), _e(lib, 7, dtype="int64"))),
    "median out indices int32": lambda lib: lib.median(
        _x(lib), 1, out=(_e(lib, 3, dtype="float64"), _e(lib, 3, dtype="int32"))),
    "nanmedian out values float64": lambda lib: lib.nanmedian(
        _x(lib), 1, out=(_e(lib, 3, dtype="float64"), _e(lib, 3, dtype="int64"))),
    "median.out": lambda lib: lib.ops.aten.median.out(_x(lib), out=_e(lib, 3)),
    "median.out dtype": lambda lib: lib.ops.aten.median.out(_x(lib), out=_e(lib, dtype="float64")),
    "nanmedian.out": lambda lib: lib.ops.aten.nanmedian.out(_x(lib), out=_e(lib, 0)),
    # mode
    "mode smallest of most frequent": lambda lib: lib.mode(_f(lib, [3.0, 1, 3, 1, 2, 1, 3])),
    "mode NaN": lambda lib: lib.mode(_f(lib, [5.0, _NAN, _NAN, 1, 1, _NAN])),
    "mode signed zeros": lambda lib: lib.mode(_f(lib, [0.0, -0.0, 1.0])),
    "mode long int": lambda lib: lib.mode(_long_row(lib)),
    "mode long float rows": lambda lib: lib.mode(_long_row(lib, "float32").reshape(2, 20), 1),
    "mode long bool": lambda lib: lib.mode(_long_row(lib) > 0),
    "mode 0-dim": lambda lib: lib.mode(lib.tensor(3.0)),
    "mode empty reduced": lambda lib: lib.mode(_e(lib, 0, 3), 0),
    "mode empty kept": lambda lib: lib.mode(_e(lib, 3, 0), 0),
    "mode complex": lambda lib: lib.mode(_t(lib, "complex64")),
    "mode out": lambda lib: lib.mode(_x(lib), out=(_e(lib, 0), _e(lib, 0, dtype="int64"))),
    "mode out values float64": lambda lib: lib.mode(
        _x(lib), 9, out=(_e(lib, 3, dtype="float64"), _e(lib, 3, dtype="int32"))),
    "mode out indices int32": lambda lib: lib.mode(
        _x(lib), out=(_e(lib, 3), _e(lib, 3, dtype="int32"))),
    # kthvalue
    "kthvalue ties": lambda lib: lib.kthvalue(_long_row(lib), 9),
    "kthvalue ties float rows": lambda lib: lib.kthvalue(
        _long_row(lib, "float32").reshape(2, 20), 11, 1),
    "kthvalue NaN": lambda lib: lib.kthvalue(_f(lib, [3.0, _NAN, 2, _NAN, 1]), 4),
    "kthvalue k 0": lambda lib: lib.kthvalue(_x(lib), 0),
    "kthvalue k too large": lambda lib: lib.kthvalue(_x(lib), 9, 1),
    "kthvalue dim out of range": lambda lib: lib.kthvalue(_x(lib), 1, 5),
    "kthvalue empty": lambda lib: lib.kthvalue(_e(lib, 0, 3), 9, 0),
    "kthvalue empty kept": lambda lib: lib.kthvalue(_e(lib, 3, 0), 1, 0),
    "kthvalue 0-dim": lambda lib: lib.kthvalue(lib.tensor(3.0), 1),
    "kthvalue 0-dim k 2": lambda lib: lib.kthvalue(lib.tensor(3.0), 2),
    "kthvalue bool": lambda lib: lib.kthvalue(_t(lib, "bool"), 1),
    "kthvalue out": lambda lib: lib.kthvalue(
        _x(lib), 2, 0, out=(_e(lib, 10)[::2], _e(lib, 5, dtype="int64"))),
    "kthvalue out values float64": lambda lib: lib.kthvalue(
        _x(lib), 2, 1, out=(_e(lib, 3, dtype="float64"), _e(lib, 3, dtype="int32"))),
    "kthvalue out indices int32": lambda lib: lib.kthvalue(
        _x(lib), 2, 1, out=(_e(lib, 3), _e(lib, 3, dtype="int32"))),
    "kthvalue out overlaps input": _kthvalue_into_input,
    # trace
    "trace int to int64": lambda lib: lib.trace(_t(lib, "int8")),
    "trace tall": lambda lib: lib.trace(_x(lib).t()),
    "trace empty": lambda lib: lib.trace(_e(lib, 0, 3, dtype="int32")),
    "trace 1-d": lambda lib: lib.trace(_e(lib, 3)),
    "trace 0-dim": lambda lib: lib.trace(lib.tensor(3.0)),
    "trace bool": lambda lib: lib.trace(_t(lib, "bool")),
    "trace.out": lambda lib: lib.ops.aten.trace.out(_x(lib), out=_e(lib, 2)),
    "trace.out dtype": lambda lib: lib.ops.aten.trace.out(_i(lib), out=_e(lib, dtype="int32")),
    # diff
    "diff 0-dim": lambda lib: lib.diff(lib.tensor(3), n=-1),
    "diff negative n": lambda lib: lib.diff(_x(lib), n=-1, dim=5),
    "diff dim out of range": lambda lib: lib.diff(_x(lib), dim=5, prepend=lib.tensor(1.0)),
    "diff prepend rank": lambda lib: lib.diff(_x(lib), prepend=lib.tensor(1.0)),
    "diff prepend shape": lambda lib: lib.diff(_x(lib), append=_e(lib, 4, 1)),
    "diff prepend and append": lambda lib: lib.diff(
        _i(lib), prepend=_i(lib)[:, :2], append=lib.zeros(3, 1, dtype=lib.int64)),
    "diff prepend promotes": lambda lib: lib.diff(_i(lib), dim=0, prepend=_x(lib)[:1]),
    "diff bool prepend int": lambda lib: lib.diff(_t(lib, "bool"), prepend=_i(lib)[:, :1]),
    "diff bool n=2": lambda lib: lib.diff(_t(lib, "bool"), n=2),
    "diff n=0 ignores prepend": lambda lib: lib.diff(_x(lib), n=0, prepend=_x(lib)),
    "diff n past size": lambda lib: lib.diff(_i(lib), n=7),
    "diff n past size dim 0": lambda lib: lib.diff(_i(lib), n=4, dim=0),
    "diff transposed": lambda lib: lib.diff(_i(lib).t()),
    "diff empty": lambda lib: lib.diff(_e(lib, 0), n=2),
    "diff uint8 wraps": lambda lib: lib.diff(_t(lib, "uint8")),
    "diff out": lambda lib: lib.diff(_x(lib), out=_e(lib, 0, dtype="float64")),
    "diff out n=2": lambda lib: lib.diff(_i(lib), n=2, out=_e(lib, 9, dtype="int64")),
    "diff out float into int": lambda lib: lib.diff(_x(lib), out=_e(lib, 0, dtype="int64")),
    "diff out n=0 dtype": lambda lib: lib.diff(_x(lib), n=0, out=_e(lib, 0, dtype="float64")),
    "diff out n=0": lambda lib: lib.diff(_x(lib), n=0, out=_e(lib, 0)),
    "diff out bool": lambda lib: lib.diff(_t(lib, "bool"), out=_e(lib, 0, dtype="int64")),
    # sum_to_size
    "sum_to_size same": lambda lib: _x(lib).sum_to_size(3, 5),
    "sum_to_size keep rows": lambda lib: _x(lib).sum_to_size(3, 1),
    "sum_to_size one": lambda lib: _x(lib).sum_to_size(1),
    "sum_to_size scalar": lambda lib: _i(lib).sum_to_size(()),
    "sum_to_size 0-dim": lambda lib: lib.tensor(3, dtype=lib.int16).sum_to_size(()),
    "sum_to_size list": lambda lib: _x(lib).sum_to_size([1, 1]),
    "sum_to_size keyword": lambda lib: _x(lib).sum_to_size(size=(1, 5)),
    "sum_to_size bool": lambda lib: _t(lib, "bool").sum_to_size(1, 5),
    "sum_to_size not expandable": lambda lib: _x(lib).sum_to_size(4),
    "sum_to_size too many dims": lambda lib: _x(lib).sum_to_size(1, 3, 5),
    "sum_to_size no function": lambda lib: hasattr(lib, "sum_to_size"),
}


# Cases that need a dtype some backends do not store (array_api_strict has no float16).
NEEDS_FLOAT16: set[str] = {"cumsum float16 accumulates in float32"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str) -> None:
    if name in NEEDS_FLOAT16 and "float16" not in STORED_DTYPES:
        pytest.skip("the backend stores no float16")
    _check(CASES[name])


# --- the same calls on meta tensors: checks, shapes, dtypes and strides, no data ----------

def _m(lib: Any, *shape: int, dtype: str = "float32") -> Any:
    return lib.empty(*shape, dtype=getattr(lib, dtype), device="meta")


META: dict[str, Callable[[Any], Any]] = {
    "cumsum": lambda lib: lib.cumsum(_m(lib, 2, 3, dtype="int16"), 1),
    "cumsum transposed": lambda lib: lib.cumsum(_m(lib, 2, 3).t(), 0),
    "cumsum bad dim": lambda lib: lib.cumsum(_m(lib, 2, 3), 2),
    "cumprod dtype": lambda lib: lib.cumprod(_m(lib, 2, 3), 1, dtype=lib.float64),
    "cummax": lambda lib: lib.cummax(_m(lib, 2, 3), 1),
    "logcumsumexp": lambda lib: lib.logcumsumexp(_m(lib, 2, 3), 0),
    "median": lambda lib: lib.median(_m(lib, 2, 3)),
    "median dim": lambda lib: lib.median(_m(lib, 2, 3), 1, True),
    "mode": lambda lib: lib.mode(_m(lib, 2, 3), 0),
    "kthvalue": lambda lib: lib.kthvalue(_m(lib, 2, 3), 2, 1),
    "kthvalue k too large": lambda lib: lib.kthvalue(_m(lib, 2, 3), 4, 1),
    "trace": lambda lib: lib.trace(_m(lib, 2, 3, dtype="int32")),
    "diff": lambda lib: lib.diff(_m(lib, 2, 3)),
    "sum_to_size": lambda lib: _m(lib, 2, 3).sum_to_size(3),
}


@pytest.mark.parametrize("name", sorted(META))
def test_meta(name: str) -> None:
    _check(META[name])


# --- out= resizing warns as torch does ------------------------------------------------------

RESIZED: dict[str, Callable[[Any], Any]] = {
    "cumsum": lambda lib: lib.cumsum(_x(lib), 0, out=_e(lib, 4)),
    "cummax": lambda lib: lib.cummax(_x(lib), 0, out=(_e(lib, 4), _e(lib, 4, dtype="int64"))),
    "median": lambda lib: lib.median(_x(lib), 0, out=(_e(lib, 4), _e(lib, 4, dtype="int64"))),
    "cumsum empty out": lambda lib: lib.cumsum(_x(lib), 0, out=_e(lib, 0)),
}


def _warnings(fn: Callable[[Any], Any], lib: Any) -> list[tuple[type[Warning], str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [(w.category, str(w.message).partition(" (Triggered internally")[0]) for w in caught]


@pytest.mark.parametrize("name", sorted(RESIZED))
def test_resize_warning(name: str) -> None:
    assert _warnings(RESIZED[name], refimpl) == _warnings(RESIZED[name], torch)


# --- drawn cases: shapes, dims, strided views, ties and NaNs --------------------------------

_DRAWN_DTYPES = [d for d in ("bool", "uint8", "int32", "int64", "float16", "float32",
                             "float64", "complex64") if d in STORED_DTYPES]
_DRAWN_OPS: dict[str, Callable[[Any, Any, int, bool, int], Any]] = {
    "cumsum": lambda lib, x, d, keep, k: lib.cumsum(x, d),
    "cumprod": lambda lib, x, d, keep, k: x.cumprod(d),
    "cummax": lambda lib, x, d, keep, k: lib.cummax(x, d),
    "cummin": lambda lib, x, d, keep, k: x.cummin(d),
    "logcumsumexp": lambda lib, x, d, keep, k: lib.logcumsumexp(x, d),
    "median": lambda lib, x, d, keep, k: lib.median(x, d, keep),
    "nanmedian": lambda lib, x, d, keep, k: x.nanmedian(d, keep),
    "median all": lambda lib, x, d, keep, k: lib.median(x),
    "mode": lambda lib, x, d, keep, k: lib.mode(x, d, keep),
    "kthvalue": lambda lib, x, d, keep, k: lib.kthvalue(x, k, d, keep),
    "diff": lambda lib, x, d, keep, k: lib.diff(x, k - 1, d),
    "trace": lambda lib, x, d, keep, k: lib.trace(x),
}


@dataclass(frozen=True)
class Drawn:
    """One drawn call: the op, its input's values and view, and its arguments."""

    op: str
    dtype: str
    shape: tuple[int, ...]
    values: tuple[Any, ...]
    transpose: bool
    step: int
    dim: int
    keepdim: bool
    k: int

    def run(self, lib: Any) -> Any:
        x = lib.tensor(list(self.values), dtype=getattr(lib, self.dtype)).reshape(self.shape)
        if self.transpose and len(self.shape) >= 2:
            x = x.transpose(0, -1)
        if self.step > 1 and len(self.shape) >= 1:
            x = x[..., :: self.step]
        return _DRAWN_OPS[self.op](lib, x, self.dim, self.keepdim, self.k)


@st.composite
def drawn(draw: st.DrawFn) -> Drawn:
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    count = math.prod(shape)
    dtype = draw(st.sampled_from(_DRAWN_DTYPES))
    # Few distinct values, so rows hold ties; NaN and infinities for floating dtypes.
    numbers: list[float] = [-2, -1, 0, 1, 2, 3]
    if dtype.startswith(("float", "complex")):
        numbers += [math.nan, math.inf, -0.0]
    values = tuple(draw(st.lists(st.sampled_from(numbers), min_size=count, max_size=count)))
    if dtype == "bool":
        values = tuple(bool(v) for v in values)
    elif dtype == "uint8":
        values = tuple(abs(int(v)) for v in values)
    elif not dtype.startswith(("float", "complex")):
        values = tuple(int(v) for v in values)
    ndim = max(len(shape), 1)
    return Drawn(
        op=draw(st.sampled_from(sorted(_DRAWN_OPS))),
        dtype=dtype,
        shape=shape,
        values=values,
        transpose=draw(st.booleans()),
        step=draw(st.sampled_from([1, 1, 2])),
        dim=draw(st.integers(-ndim - 1, ndim)),
        keepdim=draw(st.booleans()),
        k=draw(st.integers(0, 4)),
    )


settings.register_profile(
    "scans_ci", derandomize=True, max_examples=150, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# A wider local search: SCANS_RANDOM_PROFILE=scans_search python -m pytest conformance/test_scans.py
settings.register_profile(
    "scans_search", derandomize=False, max_examples=2000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@given(drawn())
@settings(settings.get_profile(os.environ.get("SCANS_RANDOM_PROFILE", "scans_ci")))
def test_drawn_matches_torch(case: Drawn) -> None:
    _check(case.run)
