"""Binary ops, comparisons, logic, bitwise and pow against torch.

Table-driven: each op runs on the same Python values in both libraries, for every dtype the
CPU backend has; the outcome must match: the exception (type and message), or the result's
dtype, shape, strides and values (assert_close, NaNs equal). Special cases (Scalar overloads,
out=, in-place, layouts, shifts past the bit width, pow's special exponents, the composite
ops) are one line each below.
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

# Sample values per dtype kind: (self, other), 8 elements each, shaped (2, 4).
_VALUES: dict[str, tuple[list[Any], list[Any]]] = {
    "bool": ([True, False, True, False, True, True, False, False],
             [True, True, False, False, True, False, True, False]),
    "uint": ([0, 1, 2, 3, 5, 7, 12, 255], [1, 0, 3, 2, 3, 7, 8, 1]),
    "int": ([-3, -1, 0, 1, 2, 5, 12, -8], [2, 1, 3, 0, -1, 7, 8, 3]),
    "float": ([-1.5, -0.0, 0.0, 1.0, 2.5, _INF, _NAN, 3.0],
              [2.0, 0.0, -0.0, -1.0, 2.5, _INF, 1.0, -_INF]),
    "complex": ([1 + 2j, -1.5 + 0j, 0j, 2 - 1j, 0.5 + 0.5j, 3j, -2 - 2j, 1 + 0j],
                [2 - 1j, 1 + 1j, 1j, 2 - 1j, -0.5 + 2j, 1 + 0j, 0.5j, 2 + 0j]),
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _tensor(lib: Any, values: list[Any], dtype: str, shape: tuple[int, ...] = (2, 4)) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float | str):
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=1e-5, atol=1e-6)


def check(fn: Callable[[Any], Any]) -> None:
    """Run `fn(lib)` with torch and refimpl and compare the outcomes."""
    expected, torch_error = outcome(fn, torch)
    actual, refimpl_error = outcome(fn, refimpl)
    if torch_error is not None:
        assert refimpl_error is not None, f"torch raised {torch_error!r}; refimpl gave {actual}"
        assert (type(refimpl_error), str(refimpl_error)) == (type(torch_error), str(torch_error))
        return
    if refimpl_error is not None:
        raise refimpl_error
    _same(expected, actual)


# --- every op, every dtype ----------------------------------------------------------------

BINARY_NAMES = [
    "pow", "float_power", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less_equal",
    "not_equal", "maximum", "minimum", "fmax", "fmin", "logical_and",
    "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "isclose", "equal", "allclose", "copysign",
    "hypot", "atan2", "arctan2", "heaviside", "nextafter", "ldexp", "logaddexp", "logaddexp2",
    "xlogy", "gcd", "lcm",
]


# Ops whose kernels need a backend extension (refimpl.core.backend.EXTENSION_NAMES), which
# backends without it (array_api_strict) refuse with "has no '<name>'".
_EXTENSION_OPS = {"nextafter": "nextafter"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY_NAMES)
def test_op_dtype(name: str, dtype: str) -> None:
    a, b = _VALUES[_kind(dtype)]
    extension = _EXTENSION_OPS.get(name)
    if extension is not None and dtype.startswith("float"):
        _, error = outcome(lambda lib: getattr(lib, name)(_tensor(lib, a, dtype), _tensor(lib, b, dtype)), refimpl)
        if error is not None and f"has no '{extension}'" in str(error):
            pytest.xfail(f"the backend has no {extension!r} extension")
    check(lambda lib: getattr(lib, name)(_tensor(lib, a, dtype), _tensor(lib, b, dtype)))


def _t(lib: Any, dtype: str = "float32", which: int = 0, shape: tuple[int, ...] = (2, 4)) -> Any:
    return _tensor(lib, _VALUES[_kind(dtype)][which], dtype, shape)


def _i(lib: Any, values: list[int], dtype: str = "int32") -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


# --- one line per case ---------------------------------------------------------------------

CASES: dict[str, Callable[[Any], Any]] = {
    # pow: Scalar overloads, special exponents, dtypes, errors, layouts
    "pow_tensor_scalar_int": lambda lib: lib.pow(_t(lib, "int64"), 3),
    "pow_int_neg_scalar_error": lambda lib: lib.pow(_t(lib, "int32"), -1),
    "pow_bool_neg_scalar_error": lambda lib: lib.pow(_t(lib, "bool"), -2),
    "pow_int_float_scalar": lambda lib: lib.pow(_t(lib, "int32"), 2.5),
    "pow_int_neg_tensor": lambda lib: lib.pow(_i(lib, [2, 1, -1, -1, 0]), _i(lib, [-1, -3, -3, -2, 2])),
    "pow_bool_scalar": lambda lib: lib.pow(_t(lib, "bool"), 2),
    "pow_bool_true": lambda lib: lib.pow(_t(lib, "bool"), True),
    "pow_half": lambda lib: _t(lib, "float64").abs() ** 0.5 if hasattr(lib, "abs") else lib.pow(_t(lib, "float64"), 0.5),
    "pow_special_exponents": lambda lib: [lib.pow(_t(lib, "float32"), e) for e in (2, 3, -1, -2, 0, 1)],
    "pow_complex_scalar": lambda lib: lib.pow(_t(lib, "complex64"), 2),
    "pow_scalar_base": lambda lib: 2 ** _t(lib, "float32"),
    "pow_scalar_base_transposed": lambda lib: lib.pow(2, _t(lib, "float32").t()),
    "pow_scalar_base_one": lambda lib: lib.pow(1, _t(lib, "int32").t()),
    "pow_scalar_base_int": lambda lib: lib.pow(3, _i(lib, [0, 1, 2, 5])),
    "pow_scalar_base_float_int": lambda lib: lib.pow(2.5, _i(lib, [0, 1, 2, 5])),
    "pow_out_float64": lambda lib: lib.pow(_t(lib), 2, out=lib.empty(2, 4, dtype=lib.float64)),
    "pow_out_cast_error": lambda lib: lib.pow(_t(lib, "int32"), 2.5, out=lib.empty(2, 4, dtype=lib.int32)),
    "pow_inplace": lambda lib: _t(lib).pow_(2),
    "pow_inplace_tensor": lambda lib: _t(lib).pow_(_t(lib, which=1)),
    "pow_broadcast": lambda lib: lib.pow(_t(lib), _t(lib, shape=(8, 1))),
    # float_power
    "float_power_scalar": lambda lib: lib.float_power(_t(lib), 2),
    "float_power_complex_scalar": lambda lib: lib.float_power(_t(lib), 2j),
    "float_power_scalar_base": lambda lib: lib.float_power(2, _t(lib, "int32")),
    "float_power_out_error": lambda lib: lib.float_power(_t(lib), 2, out=lib.empty(2, 4)),
    "float_power_out": lambda lib: lib.float_power(_t(lib), 2, out=lib.empty(2, 4, dtype=lib.float64)),
    "float_power_inplace_error": lambda lib: _t(lib).float_power_(2),
    "float_power_inplace": lambda lib: _t(lib, "float64").float_power_(2),
    # comparisons
    "eq_scalar": lambda lib: _t(lib) == 1,
    "lt_scalar_int_float": lambda lib: _t(lib, "int32") < 0.5,
    "ge_out_float": lambda lib: lib.ge(_t(lib), _t(lib, which=1), out=lib.empty(2, 4)),
    "gt_inplace": lambda lib: _t(lib).gt_(0),
    "lt_complex_error": lambda lib: lib.lt(_t(lib, "complex64"), 1),
    "eq_transposed": lambda lib: _t(lib).t() == _t(lib, which=1).t(),
    "greater_equal_scalar": lambda lib: lib.greater_equal(_t(lib), 1.0),
    "maximum_complex_error": lambda lib: lib.maximum(_t(lib, "complex64"), _t(lib, "complex64")),
    "fmax_mixed": lambda lib: lib.fmax(_t(lib, "int32"), _t(lib, "float64", 1)),
    "maximum_out": lambda lib: lib.maximum(_t(lib), _t(lib, which=1), out=lib.empty(0)),
    # logical
    "logical_and_out_int": lambda lib: lib.logical_and(_t(lib), _t(lib, which=1), out=lib.empty(2, 4, dtype=lib.int64)),
    "logical_or_inplace": lambda lib: _t(lib).logical_or_(_t(lib, which=1)),
    "logical_xor_mixed": lambda lib: lib.logical_xor(_t(lib, "int8"), _t(lib, "complex64")),
    # bitwise and shifts
    "and_scalar": lambda lib: _t(lib, "int32") & 1,
    "rand_scalar": lambda lib: 1 & _t(lib, "int32"),
    "or_bool_int": lambda lib: _t(lib, "bool") | _t(lib, "int8"),
    "xor_float_error": lambda lib: _t(lib) ^ _t(lib),
    "iand": lambda lib: _t(lib, "int64").__iand__(3),
    "ixor_tensor": lambda lib: _t(lib, "int64").__ixor__(_t(lib, "int64", 1)),
    "lshift_scalar": lambda lib: _t(lib, "int32") << 1,
    "rlshift": lambda lib: 1 << _i(lib, [0, 1, 5, 31, 32, 40, -1]),
    "lshift_by_width": lambda lib: _i(lib, [5, -5, 1]) << 32,
    "lshift_wraps": lambda lib: _i(lib, [1, 3, -1], "int8") << 7,
    "rshift_by_width": lambda lib: _i(lib, [5, -5, -1]) >> 40,
    "rshift_negative_shift": lambda lib: _i(lib, [5, -5, 8]) >> _i(lib, [-1, -2, 1]),
    "rshift_uint8": lambda lib: _i(lib, [255, 128, 7], "uint8") >> _i(lib, [8, 7, 200], "uint8"),
    "rshift_tensor": lambda lib: _i(lib, [-7, 64, 3]) >> _i(lib, [1, 3, 0]),
    "ilshift": lambda lib: _i(lib, [1, 2, 3]).__ilshift__(2),
    "irshift_tensor": lambda lib: _i(lib, [8, 16, -3]).__irshift__(_i(lib, [1, 2, 1])),
    "shift_float_error": lambda lib: _t(lib) << 1,
    "bitwise_left_shift_scalar_tensor": lambda lib: lib.bitwise_left_shift(3, _i(lib, [0, 1, 2])),
    # isclose, allclose, equal
    "isclose_default": lambda lib: lib.isclose(_t(lib), _t(lib, which=1)),
    "isclose_equal_nan": lambda lib: lib.isclose(_t(lib), _t(lib), equal_nan=True),
    "isclose_tol": lambda lib: lib.isclose(_t(lib), _t(lib) + 0.01, rtol=0, atol=0.02),
    "isclose_zero_tol": lambda lib: lib.isclose(_t(lib), _t(lib), rtol=0, atol=0),
    "isclose_dtype_error": lambda lib: lib.isclose(_t(lib), _t(lib, "float64")),
    "isclose_rtol_error": lambda lib: lib.isclose(_t(lib), _t(lib), rtol=-1),
    "isclose_atol_error": lambda lib: lib.isclose(_t(lib), _t(lib), atol=-0.5),
    "isclose_complex_nan": lambda lib: lib.isclose(_t(lib, "complex64"), _t(lib, "complex64"), equal_nan=True),
    "isclose_bool": lambda lib: lib.isclose(_t(lib, "bool"), _t(lib, "bool", 1)),
    "allclose_true": lambda lib: lib.allclose(_t(lib, "float64", 1), _t(lib, "float64", 1)),
    "allclose_dtype_error": lambda lib: lib.allclose(_t(lib), _t(lib, "float64")),
    "equal_mixed_dtypes": lambda lib: lib.equal(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "equal_sizes": lambda lib: lib.equal(lib.ones(2), lib.ones(3)),
    "equal_nan": lambda lib: lib.equal(_t(lib), _t(lib)),
    # the others
    "heaviside_dtype_error": lambda lib: lib.heaviside(_t(lib), _t(lib, "float64")),
    "heaviside_complex_error": lambda lib: lib.heaviside(_t(lib, "complex64"), _t(lib)),
    "xlogy_scalar_self": lambda lib: lib.xlogy(2, _t(lib)),
    "xlogy_scalar_other": lambda lib: lib.xlogy(_t(lib, "int32"), 3),
    "xlogy_zero_nan": lambda lib: lib.xlogy(lib.zeros(3), lib.tensor([0.0, _NAN, -1.0])),
    "copysign_scalar": lambda lib: lib.copysign(_t(lib, "int32"), -1),
    "atan2_int": lambda lib: lib.atan2(_t(lib, "int64"), _t(lib, "int64", 1)),
    "ldexp_int": lambda lib: lib.ldexp(_t(lib), _i(lib, [1, 2, -1, 0, 3, 1, 1, 2]).reshape(2, 4)),
    "ldexp_inplace_int_error": lambda lib: _i(lib, [1, 2]).ldexp_(_i(lib, [1, 2])),
    "ldexp_out_int_error": lambda lib: lib.ldexp(_i(lib, [1]), _i(lib, [1]), out=_i(lib, [0])),
    "ldexp_out_float64": lambda lib: lib.ldexp(_i(lib, [1]), _i(lib, [3]), out=lib.zeros(1, dtype=lib.float64)),
    # arithmetic aliases (CompositeImplicitAutograd)
    "true_divide_inplace": lambda lib: _t(lib).true_divide_(2),
    "divide_mode": lambda lib: lib.divide(_t(lib, "int32"), 2, rounding_mode="floor"),
    "divide_inplace_mode": lambda lib: _t(lib).divide_(_t(lib, which=1), rounding_mode="trunc"),
    "multiply_out": lambda lib: lib.multiply(_t(lib), 2, out=lib.empty(2, 4)) if lib is torch else lib.multiply(_t(lib), lib.tensor(2.0), out=lib.empty(2, 4)),
    "subtract_alpha": lambda lib: lib.subtract(_t(lib), _t(lib, which=1), alpha=2),
    # meta tensors: shapes and dtypes only
    "meta_pow_scalar_base": lambda lib: lib.pow(2, lib.empty(3, 2, device="meta").t()).stride(),
    "meta_pow_scalar_base_one": lambda lib: lib.pow(1, lib.empty(3, 2, device="meta").t()).stride(),
    "meta_eq": lambda lib: str((lib.empty(3, 2, device="meta").t() == 1).dtype).split(".")[-1],
    "meta_bitwise": lambda lib: str((lib.empty(3, dtype=lib.int8, device="meta") << 2).dtype).split(".")[-1],
    "pow_scalar_base_out_resize": lambda lib: lib.pow(2, _t(lib), out=lib.empty(0)),
    "pow_complex_special": lambda lib: [lib.pow(_t(lib, "complex128"), e) for e in (0.5, -0.5, 2, 3, -1, -2)],
    "pow_float16_special": lambda lib: [lib.pow(_t(lib, "float16"), e) for e in (0.5, -0.5, 2, 3, -1, -2)],
    "maximum_signed_zero": lambda lib: lib.maximum(lib.tensor([0.0, -0.0]), lib.tensor([-0.0, 0.0])),
    "gcd_mixed": lambda lib: lib.gcd(_i(lib, [0, 12, -18, 7], "int64"), _i(lib, [0, -8, 12, 0], "int16")),
    "lcm_zero": lambda lib: lib.lcm(_i(lib, [0, 4, -6]), _i(lib, [3, 6, 4])),
    "logaddexp_inf": lambda lib: lib.logaddexp(lib.tensor([_INF, -_INF, 1.0]), lib.tensor([_INF, -_INF, -_INF])),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_case(case: str) -> None:
    if "float16" in case and "float16" not in STORED_DTYPES:
        pytest.skip("the backend has no float16")
    check(CASES[case])


# --- op logs: which aten overloads the Python API and the composites run --------------------

OP_LOG_CASES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "and_scalar": lambda lib, x, i: i & 1,
    "rand_scalar": lambda lib, x, i: 1 & i,
    "lshift_scalar": lambda lib, x, i: i << 1,
    "rlshift_scalar": lambda lib, x, i: 1 << i,
    "rshift_tensor": lambda lib, x, i: i >> i,
    "eq_scalar": lambda lib, x, i: x == 1,
    "xlogy_scalar_self": lambda lib, x, i: lib.xlogy(2, x),
    "pow_tensor_scalar": lambda lib, x, i: x**2,
    "pow_scalar": lambda lib, x, i: 2**x,
    "float_power": lambda lib, x, i: lib.float_power(x, 2),
    "isclose": lambda lib, x, i: lib.isclose(x, x),
    "isclose_equal_nan": lambda lib, x, i: lib.isclose(x, x, equal_nan=True),
    "isclose_bool": lambda lib, x, i: lib.isclose(i > 2, i > 2),
    "greater": lambda lib, x, i: lib.greater(x, x),
    "ldexp": lambda lib, x, i: lib.ldexp(x, i),
}


@pytest.mark.parametrize("case", list(OP_LOG_CASES), ids=list(OP_LOG_CASES))
def test_op_log(case: str) -> None:
    from conformance.test_api_op_log import refimpl_op_log, torch_op_log

    logs = []
    for lib, log in ((torch, torch_op_log), (refimpl, refimpl_op_log)):
        x, i = lib.arange(6.0).reshape(2, 3), lib.arange(6).reshape(2, 3)
        with log() as ops:
            OP_LOG_CASES[case](lib, x, i)
        logs.append([op for op in ops if op != "aten.lift_fresh.default"])
    assert logs[1] == logs[0]


# --- float16 with a scalar operand: the kernels' float32 reading (IterConfig.reduced_scalar_opmath)

_REDUCED_SCALAR_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "x * 0.3": lambda lib, x: x * 0.3,
    "0.3 * x": lambda lib, x: 0.3 * x,
    "x / 0.3": lambda lib, x: x / 0.3,
    "0.3 / x": lambda lib, x: 0.3 / x,
    "x // 0.3": lambda lib, x: x // 0.3,
    "div trunc": lambda lib, x: lib.div(x, 0.3, rounding_mode="trunc"),
    "div floor": lambda lib, x: lib.div(x, 0.3, rounding_mode="floor"),
    "x * 0-dim float32": lambda lib, x: x * lib.tensor(0.3),
    "x / 0-dim float64": lambda lib, x: x / lib.tensor(0.3, dtype=lib.float64),
    "x * one-element float16": lambda lib, x: x * lib.tensor([0.3], dtype=lib.float16),
    "mul_": lambda lib, x: x.clone().mul_(0.3),
    # mul_.Scalar hands torch's iterator the scalar first: float16 x float16(0.3).
    "aten.mul_.Scalar": lambda lib, x: lib.ops.aten.mul_.Scalar(x.clone(), 0.3),
    "aten.div_.Scalar": lambda lib, x: lib.ops.aten.div_.Scalar(x.clone(), 0.3),
    "aten.mul.Scalar": lambda lib, x: lib.ops.aten.mul.Scalar(x, 0.3),
    "div_ out=": lambda lib, x: lib.div(x, 0.7, out=lib.empty(0, dtype=lib.float16)),
    "x + 0.3 (common dtype)": lambda lib, x: x + 0.3,
    "add alpha, 25 elements": lambda lib, x: lib.add(x, x.flip(0), alpha=-3.125),
}


@pytest.mark.skipif("float16" not in DTYPES, reason="the backend stores no float16")
@pytest.mark.parametrize("case", list(_REDUCED_SCALAR_CASES))
def test_float16_scalar_operand_bit_exact(case: str) -> None:
    """Every finite float16 value (and 25 of them for add's alpha, see Note [float16 add
    with alpha]) against torch, bit for bit: mul and the divisions read a scalar second
    operand in float32 (`x * 0.3` multiplies by 0.3f); add reads it as float16."""
    # The finite float16 values, as the int16 words holding them.
    bits = list(range(0, 0x7C00)) + list(range(0x8000 - 0x10000, 0xFC00 - 0x10000))
    call = _REDUCED_SCALAR_CASES[case]
    results = []
    for lib in (torch, refimpl):
        x = lib.tensor(bits, dtype=lib.int16).view(lib.float16)
        if case.startswith("add alpha"):
            x = x[2000:2025]
        results.append(call(lib, x))
    expected, actual = results
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    e = expected.view(torch.int16).tolist()
    a = actual.view(refimpl.int16).tolist()
    assert a == e
