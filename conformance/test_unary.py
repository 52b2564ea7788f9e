"""Unary math and sign/rounding ops against torch.

Table-driven: each op runs on the same Python values in both libraries, for every dtype the
CPU backend has; the outcome must match: the exception (type and message), or the result's
dtype, shape, strides and values (assert_close with torch's tolerances, NaNs equal). The
method, in-place and out= forms, strided inputs and the ops' own errors are one line each.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

DTYPES = STORED_DTYPES
_INF, _NAN = math.inf, math.nan

# Sample values per dtype kind, 8 elements each, shaped (2, 4); special values included.
_VALUES: dict[str, list[Any]] = {
    "bool": [True, False, True, False, True, True, False, False],
    "uint": [0, 1, 2, 3, 5, 7, 12, 255],
    "int": [-3, -1, 0, 1, 2, 5, 12, -128],
    "float": [-1.5, -0.0, 0.0, 0.25, 2.5, _INF, _NAN, -_INF],
    "complex": [1 + 2j, -1.5 + 0j, 0j, 2 - 1j, 0.5 + 0.5j, 3j, -2 - 2j, 0.25 - 0.75j],
}
# Values inside (-1, 1) for the ops whose domain is there (and the special functions).
_UNIT: dict[str, list[Any]] = {
    "float": [-0.9, -0.5, -0.0, 0.0, 0.1, 0.5, 0.75, 0.99],
    "complex": [0.5 + 0.25j, -0.5 + 0j, 0j, 0.2 - 0.1j, 0.5 + 0.5j, 0.3j, -0.2 - 0.2j, 0.9 + 0j],
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str = "float32", values: dict[str, list[Any]] | None = None,
       shape: tuple[int, ...] = (2, 4)) -> Any:
    table = _VALUES if values is None else {**_VALUES, **values}
    return lib.tensor(table[_kind(dtype)], dtype=getattr(lib, dtype)).reshape(shape)


# The special functions come from the backend's library (scipy.special for NumPy), which
# computes float32 through float64: a few ulp from torch's float32 algorithms. (digamma and
# polygamma follow torch's algorithms and compare at torch's default tolerances.)
_SPECIAL = {"i0", "lgamma", "erfinv", "mvlgamma", "erf", "erfc"}
# Transcendental functions: torch's float32 kernels (SLEEF, vectorized) and the backend's own
# loops (NumPy's SIMD code, which changes between releases: NumPy 2.4's float32 cosh is an
# ulp from torch's where 2.3's was not) may round the last bit differently.
_TRANSCENDENTAL = {
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
    "asinh", "atan", "atanh", "cos", "cosh", "exp", "exp2", "expm1", "log", "log10", "log1p",
    "log2", "logit", "sigmoid", "sin", "sinc", "sinh", "tan", "tanh",
}
# Poles, signed zeros, negative non-integers near poles, the recurrence's end at 10, the
# asymptotic range and its 1e17 cut, infinities and NaN.
_GAMMA_POINTS = [
    0.0, -0.0, -3.0, -2.5, -0.3, 1e-30, 0.2, 1.0, 3.7, 9.999, 10.0, 10.5, 30.0, 1e17, 2e17,
    -27.984865188598633, -20.983232498168945, -7.25, -1000.5, _INF, -_INF, _NAN,
]
_ZETA_X = [1.0, 0.5, 1.5, 2.0, 3.0, 4.5, 20.0, _INF, _NAN, 2.0, 3.0, 2.5, 4.0, 6.0, 2.0]
_ZETA_Q = [1.0, 1.0, 0.5, -0.0, -3.0, 2.5, 9.5, 1.0, 1.0, _INF, -_INF, -2.5, -2.5, -100.5, 1e8]


def _same(expected: Any, actual: Any, loose: bool = False) -> None:
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    # float16 special functions: torch rounds its float32 result, scipy may differ by 1 ulp.
    tolerance = {"rtol": 2e-3, "atol": 1e-3} if expected.dtype is torch.float16 else {}
    if loose and expected.dtype in (torch.float32, torch.float64):
        tolerance = {"rtol": 1e-5, "atol": 1e-6}
    torch.testing.assert_close(got, expected, equal_nan=True, **tolerance)


def check(fn: Callable[[Any], Any], loose: bool = False) -> None:
    """Run `fn(lib)` with torch and refimpl and compare the outcomes."""
    expected, torch_error = outcome(fn, torch)
    actual, refimpl_error = outcome(fn, refimpl)
    if torch_error is not None:
        assert refimpl_error is not None, f"torch raised {torch_error!r}; refimpl gave {actual}"
        assert (type(refimpl_error), str(refimpl_error)) == (type(torch_error), str(torch_error))
        return
    if refimpl_error is not None:
        if isinstance(refimpl_error, TypeError) and "has no dtype" in str(refimpl_error):
            # A backend that does not store the dtype (array_api_strict: float16) says so.
            pytest.skip(str(refimpl_error).partition(";")[0])
        if "backend has no '" in str(refimpl_error):
            # A backend without the special function (array_api_strict) refuses by name;
            # see refimpl.core.backend.EXTENSION_NAMES.
            pytest.xfail(str(refimpl_error).partition(" (")[0])
        raise refimpl_error
    _same(expected, actual, loose)


# --- every op, every dtype ----------------------------------------------------------------

# name -> the values it samples (None: the general table with infinities and NaN).
UNARY: dict[str, dict[str, list[Any]] | None] = {
    "exp": None, "exp2": None, "expm1": None, "log": None, "log2": None, "log10": None,
    "log1p": None, "sqrt": None, "rsqrt": None, "sin": None, "cos": None, "tan": None,
    "asin": _UNIT, "acos": _UNIT, "atan": None, "sinh": None, "cosh": None, "tanh": None,
    "asinh": None, "acosh": None, "atanh": _UNIT, "arcsin": _UNIT, "arccos": _UNIT,
    "arctan": None, "arcsinh": None, "arccosh": None, "arctanh": _UNIT, "sigmoid": None,
    "logit": _UNIT, "erf": None, "erfc": None, "erfinv": _UNIT, "lgamma": None,
    "digamma": None, "i0": None, "sinc": None, "deg2rad": None, "rad2deg": None,
    "floor": None, "ceil": None, "trunc": None, "fix": None, "round": None, "frac": None,
    "neg": None, "negative": None, "positive": None, "abs": None, "absolute": None,
    "sign": None, "sgn": None, "reciprocal": None, "square": None, "angle": None,
    "bitwise_not": None, "logical_not": None,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_op_dtype(name: str, dtype: str) -> None:
    values = UNARY[name]
    check(lambda lib: getattr(lib, name)(_t(lib, dtype, values)), name in _SPECIAL)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"])
@pytest.mark.parametrize("name", list(UNARY))
def test_method_inplace_out(name: str, dtype: str) -> None:
    if dtype not in DTYPES:
        pytest.skip(f"no {dtype} on this backend")
    values = UNARY[name]
    loose = name in _SPECIAL or name in _TRANSCENDENTAL
    check(lambda lib: getattr(_t(lib, dtype, values), name)(), loose)
    if name != "positive":
        check(lambda lib: getattr(_t(lib, dtype, values), name + "_")(), loose)
        check(lambda lib: getattr(lib, name)(_t(lib, dtype, values), out=_t(lib, "float64")), loose)
        check(lambda lib: getattr(lib, name)(_t(lib, dtype, values), out=_t(lib, dtype)), loose)


# --- layouts, arguments, errors: one line each ---------------------------------------------

CASES: dict[str, Callable[[Any], Any]] = {
    "exp transposed": lambda lib: lib.exp(_t(lib, "float32", shape=(4, 2)).t()),
    "sin strided": lambda lib: lib.sin(_t(lib, "float64", shape=(2, 4))[:, ::2]),
    "floor transposed int": lambda lib: lib.floor(_t(lib, "int64", shape=(4, 2)).t()),
    "abs expanded": lambda lib: lib.abs(lib.tensor([-1.0, 2.0]).expand(3, 2)),
    "sqrt 0-dim": lambda lib: lib.sqrt(lib.tensor(4.0)),
    "sqrt empty": lambda lib: lib.sqrt(lib.ones(0, 3)),
    "abs int8 min": lambda lib: lib.abs(lib.tensor([-128, 127], dtype=lib.int8)),
    "exp out resize": lambda lib: lib.exp(_t(lib), out=lib.empty(3)),
    "exp out int": lambda lib: lib.exp(_t(lib), out=lib.empty(2, 4, dtype=lib.int32)),
    "floor out float from int": lambda lib: lib.floor(_t(lib, "int32"), out=lib.empty(2, 4)),
    "sqrt_ int": lambda lib: _t(lib, "int32").sqrt_(),
    "round decimals 2": lambda lib: lib.round(lib.tensor([1.2345, -2.675, 0.125]), decimals=2),
    "round decimals -1": lambda lib: lib.round(lib.tensor([15.0, 25.0, -35.0]), decimals=-1),
    "round decimals f64": lambda lib: lib.round(
        lib.tensor([1.005, 2.5e-3, -7.77777], dtype=lib.float64), decimals=3),
    "round decimals int": lambda lib: lib.round(_t(lib, "int32"), decimals=1),
    "round half even": lambda lib: lib.round(lib.tensor([0.5, 1.5, 2.5, -0.5, -2.5])),
    "round_ decimals": lambda lib: lib.tensor([1.26, 3.14159]).round_(decimals=1),
    "logit eps": lambda lib: lib.logit(lib.tensor([0.0, 0.1, 0.5, 1.0, _NAN]), eps=1e-6),
    "logit eps 0.2": lambda lib: lib.logit(lib.tensor([0.0, 0.1, 0.5, 1.0]), 0.2),
    "logit int": lambda lib: lib.logit(lib.tensor([0, 1, 2])),
    "digamma points f32": lambda lib: lib.digamma(lib.tensor(_GAMMA_POINTS)),
    "digamma points f64": lambda lib: lib.digamma(lib.tensor(_GAMMA_POINTS, dtype=lib.float64)),
    "digamma points f16": lambda lib: lib.digamma(lib.tensor([-2.5, 0.0, -0.0, -3.0, 0.2, 12.0],
                                                             dtype=lib.float16)),
    "digamma int8 poles": lambda lib: lib.digamma(lib.arange(-5, 5, dtype=lib.int8)),
    "polygamma 1 points f32": lambda lib: lib.polygamma(1, lib.tensor(_GAMMA_POINTS)),
    "polygamma 1 points f64": lambda lib: lib.polygamma(
        1, lib.tensor(_GAMMA_POINTS, dtype=lib.float64)),
    "polygamma 2 points f32": lambda lib: lib.polygamma(2, lib.tensor(_GAMMA_POINTS)),
    "polygamma 3 points f64": lambda lib: lib.polygamma(
        3, lib.tensor(_GAMMA_POINTS, dtype=lib.float64)),
    "polygamma 4 points f32": lambda lib: lib.polygamma(4, lib.tensor(_GAMMA_POINTS)),
    "polygamma 4 far negative": lambda lib: lib.polygamma(
        4, lib.tensor([-1e5 - 0.5, -2.5], dtype=lib.float64)),
    "polygamma int16 poles": lambda lib: lib.polygamma(1, lib.arange(-5, 5, dtype=lib.int16)),
    "polygamma 3 int8 poles": lambda lib: lib.polygamma(3, lib.arange(-5, 5, dtype=lib.int8)),
    "polygamma 2 f16": lambda lib: lib.polygamma(2, lib.tensor([-2.5, 0.5, 3.0],
                                                               dtype=lib.float16)),
    "polygamma 1 transposed": lambda lib: lib.polygamma(1, _t(lib, shape=(4, 2)).t()),
    "polygamma 2 out": lambda lib: lib.polygamma(2, lib.tensor([0.5, -2.5]), out=lib.empty(2)),
    "special_polygamma 0": lambda lib: lib.special.polygamma(0, lib.tensor(_GAMMA_POINTS)),
    "zeta points f32": lambda lib: lib.special.zeta(lib.tensor(_ZETA_X), lib.tensor(_ZETA_Q)),
    "zeta points f64": lambda lib: lib.special.zeta(
        lib.tensor(_ZETA_X, dtype=lib.float64), lib.tensor(_ZETA_Q, dtype=lib.float64)),
    "zeta scalar x": lambda lib: lib.special.zeta(3.0, lib.tensor([0.5, -2.5, 7.0])),
    "zeta broadcast": lambda lib: lib.special.zeta(lib.tensor([[2.0], [3.0]]),
                                                   lib.tensor([0.5, 1.0, -1.5])),
    "Tensor.__radd__ unbound": lambda lib: lib.Tensor.__radd__(2, lib.tensor([1, 2, 3])),
    "Tensor.__rmul__ unbound": lambda lib: lib.Tensor.__rmul__(2, 3),
    "polygamma 0": lambda lib: lib.polygamma(0, lib.tensor([0.5, 1.0, 3.0])),
    "polygamma 1": lambda lib: lib.polygamma(1, lib.tensor([0.5, 1.0, 3.0])),
    "polygamma 3": lambda lib: lib.polygamma(3, lib.tensor([0.5, 1.0, 3.0], dtype=lib.float64)),
    "polygamma int": lambda lib: lib.polygamma(2, lib.tensor([1, 2, 3])),
    "polygamma negative n": lambda lib: lib.polygamma(-1, lib.tensor([1.0])),
    "polygamma_": lambda lib: lib.tensor([1.0, 2.0]).polygamma_(1),
    "polygamma_ int": lambda lib: lib.tensor([1, 2]).polygamma_(1),
    "mvlgamma p1": lambda lib: lib.mvlgamma(lib.tensor([1.5, 2.0, 3.0]), 1),
    "mvlgamma p3": lambda lib: lib.mvlgamma(lib.tensor([1.5, 2.0, 3.0], dtype=lib.float64), 3),
    "mvlgamma int": lambda lib: lib.mvlgamma(lib.tensor([2, 3]), 2),
    "mvlgamma p0": lambda lib: lib.mvlgamma(lib.tensor([2.0]), 0),
    "mvlgamma bool": lambda lib: lib.mvlgamma(lib.tensor([True]), 2),
    "mvlgamma_": lambda lib: lib.tensor([2.0, 3.0]).mvlgamma_(2),
    "mvlgamma_ int": lambda lib: lib.tensor([2, 3]).mvlgamma_(2),
    "mvlgamma out f32": lambda lib: lib.mvlgamma(
        lib.tensor([2.0, 3.0], dtype=lib.float64), 2, out=lib.empty(2)),
    "neg bool": lambda lib: lib.neg(lib.tensor([True])),
    "neg bool out": lambda lib: lib.neg(lib.tensor([True]), out=lib.empty(1)),
    "neg uint8": lambda lib: lib.neg(lib.tensor([0, 1, 255], dtype=lib.uint8)),
    "positive bool": lambda lib: lib.positive(lib.tensor([True])),
    "positive is self": lambda lib: (lambda x: lib.tensor(lib.positive(x) is x))(lib.ones(2)),
    "sign complex": lambda lib: lib.sign(lib.tensor([1j])),
    "sign complex out": lambda lib: lib.sign(lib.tensor([1j]), out=lib.empty(1)),
    "sgn complex zero": lambda lib: lib.sgn(lib.tensor([0j, 3 + 4j, -2j])),
    "abs complex out float64": lambda lib: lib.abs(
        _t(lib, "complex64"), out=lib.empty(2, 4, dtype=lib.float64)),
    "abs complex out complex128": lambda lib: lib.abs(
        _t(lib, "complex64"), out=lib.empty(2, 4, dtype=lib.complex128)),
    "abs complex out int": lambda lib: lib.abs(
        _t(lib, "complex64"), out=lib.empty(2, 4, dtype=lib.int32)),
    "abs int out float": lambda lib: lib.abs(_t(lib, "int32"), out=lib.empty(2, 4)),
    "abs_ complex": lambda lib: _t(lib, "complex64").abs_(),
    "angle complex out float64": lambda lib: lib.angle(
        _t(lib, "complex64"), out=lib.empty(2, 4, dtype=lib.float64)),
    "angle complex out int": lambda lib: lib.angle(
        _t(lib, "complex64"), out=lib.empty(2, 4, dtype=lib.int32)),
    "angle int out int": lambda lib: lib.angle(
        _t(lib, "int32"), out=lib.empty(2, 4, dtype=lib.int32)),
    "deg2rad complex": lambda lib: lib.deg2rad(lib.tensor([1j])),
    "deg2rad int out int": lambda lib: lib.deg2rad(_t(lib, "int32"), out=_t(lib, "int32")),
    "rad2deg_ int": lambda lib: _t(lib, "int32").rad2deg_(),
    "logical_not out int": lambda lib: lib.logical_not(_t(lib, "float32"), out=_t(lib, "int32")),
    "logical_not_ int": lambda lib: _t(lib, "int32").logical_not_(),
    "bitwise_not float": lambda lib: lib.bitwise_not(_t(lib)),
    "frac int": lambda lib: lib.frac(_t(lib, "int32")),
    "floor bool": lambda lib: lib.floor(_t(lib, "bool")),
    "sqrt out overlap": lambda lib: (lambda x: lib.sqrt(x[1:], out=x[:-1]))(lib.arange(4.0)),
    "exp_ on expanded": lambda lib: lib.ones(1).expand(3).exp_(),
}


@pytest.mark.parametrize("name", list(CASES))
def test_case(name: str) -> None:
    check(CASES[name])
