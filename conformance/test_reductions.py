"""Reductions against torch: sum, nansum, mean, nanmean, prod, amax, amin, aminmax, max, min, argmax, argmin, var, std, var_mean, std_mean, any, all, count_nonzero, logsumexp, norm, renorm, dist.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's dtype, shape, strides and values (assert_close,
NaNs equal), and for out= calls the `out` tensor itself (identity, dtype, shape, values) and
the resize warning. Function, method, in-place and out= forms; meta tensors for the output
metadata without data.
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

DTYPES = STORED_DTYPES
_INF, _NAN = math.inf, math.nan
# 24 values a kind: a (2, 3, 4) tensor; ties (the 5s, the 1s) check first-index rules.
_VALUES: dict[str, list[Any]] = {
    "bool": [
        True,
        False,
        True,
        True,
        False,
        False,
        True,
        False,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
        False,
        True,
        False,
        True,
        True,
        True,
        True,
        False,
        True,
    ],
    "uint": [0, 1, 2, 3, 5, 7, 12, 255, 5, 1, 0, 9, 4, 4, 8, 2, 3, 6, 1, 0, 11, 5, 7, 2],
    "int": [-3, -1, 0, 1, 2, 5, 12, -8, 5, 1, 0, 9, -4, 4, 8, 2, -3, 6, 1, 0, 11, 5, -7, 2],
    "float": [
        -1.5,
        -0.0,
        0.0,
        1.0,
        2.5,
        3.25,
        0.5,
        -2.0,
        2.5,
        1.0,
        0.0,
        0.75,
        -4.0,
        4.0,
        1.5,
        2.0,
        -3.0,
        0.25,
        1.0,
        0.0,
        1.125,
        2.5,
        -0.75,
        2.0,
    ],
    "complex": [
        1 + 2j,
        0.5 - 1j,
        0j,
        2 + 0.5j,
        0.5 + 0.5j,
        3j,
        -1 - 2j,
        1 + 0j,
        -0.5j,
        2 - 2j,
        1.5 + 1j,
        0.25j,
        1 + 1j,
        -2 + 0j,
        0.5 - 0.5j,
        3 + 0j,
        -1j,
        2 + 2j,
        0.75 + 0j,
        -1.5 + 1j,
        1j,
        0.5 + 0j,
        -0.25 - 1j,
        2j,
    ],
}
_SPECIALS: list[float] = [1.0, _NAN, -_INF, 2.0, _INF, 0.0, -1.0, _NAN, 3.0, 0.5, -0.0, 1.0]


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str, shape: tuple[int, ...] = (2, 3, 4)) -> Any:
    data = _VALUES[_kind(dtype)][: math.prod(shape)]
    return lib.tensor(data, dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (2, 3, 4)) -> Any:
    """Floats with NaN and infinities (shape of 12 elements)."""
    return lib.tensor(_SPECIALS[: math.prod(shape)], dtype=getattr(lib, dtype)).reshape(shape)


def _empty(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (2, 0, 3)) -> Any:
    return lib.zeros(shape, dtype=getattr(lib, dtype))


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float):
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        assert type(actual).__name__ == type(expected).__name__
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.device.type == expected.device.type
    if expected.device.type == "meta":
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    # float16 accumulates in float32 in both; the last bit may still differ.
    rtol, atol = (1e-3, 1e-3) if expected.dtype in (torch.float16, torch.bfloat16) else (1e-5, 1e-6)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=rtol, atol=atol)


def _check(fn: Callable[[Any], Any]) -> None:
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
    _same(expected, actual)


# --- every dtype ---------------------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "sum": lambda lib, d: lib.sum(_t(lib, d)),
    "sum_dim": lambda lib, d: _t(lib, d).sum(1),
    "sum_dims_keepdim": lambda lib, d: lib.sum(_t(lib, d), (0, 2), keepdim=True),
    "sum_dim_none": lambda lib, d: _t(lib, d).sum(dim=None),
    "sum_dim_empty_list": lambda lib, d: lib.sum(_t(lib, d), []),
    "sum_dtype": lambda lib, d: lib.sum(_t(lib, d), 1, dtype=lib.float64),
    "nansum": lambda lib, d: lib.nansum(_t(lib, d), 2),
    "mean": lambda lib, d: _t(lib, d).mean(),
    "mean_dim": lambda lib, d: lib.mean(_t(lib, d), (1, -1), True),
    "mean_dtype": lambda lib, d: lib.mean(_t(lib, d), 0, dtype=lib.float64),
    "nanmean": lambda lib, d: lib.nanmean(_t(lib, d), 1),
    "prod": lambda lib, d: lib.prod(_t(lib, d)),
    "prod_dim": lambda lib, d: _t(lib, d).prod(2, keepdim=True),
    "amax": lambda lib, d: lib.amax(_t(lib, d), (0, 1)),
    "amin": lambda lib, d: _t(lib, d).amin(-1, keepdim=True),
    "aminmax": lambda lib, d: lib.aminmax(_t(lib, d)),
    "aminmax_dim": lambda lib, d: lib.aminmax(_t(lib, d), dim=1, keepdim=True),
    "max": lambda lib, d: lib.max(_t(lib, d)),
    "max_dim": lambda lib, d: lib.max(_t(lib, d), 1),
    "max_other": lambda lib, d: lib.max(_t(lib, d), _t(lib, d).flip(0)),
    "min": lambda lib, d: _t(lib, d).min(),
    "min_dim": lambda lib, d: _t(lib, d).min(dim=2, keepdim=True),
    "argmax": lambda lib, d: lib.argmax(_t(lib, d)),
    "argmax_dim": lambda lib, d: _t(lib, d).argmax(1, keepdim=True),
    "argmin_dim": lambda lib, d: lib.argmin(_t(lib, d), 2),
    "var": lambda lib, d: lib.var(_t(lib, d)),
    "var_dim": lambda lib, d: _t(lib, d).var(1, keepdim=True),
    "var_unbiased": lambda lib, d: lib.var(_t(lib, d), 2, False),
    "std_correction": lambda lib, d: lib.std(_t(lib, d), (0, 2), correction=2),
    "var_mean": lambda lib, d: lib.var_mean(_t(lib, d), 1),
    "std_mean": lambda lib, d: lib.std_mean(_t(lib, d), correction=0),
    "any": lambda lib, d: lib.any(_t(lib, d)),
    "any_dim": lambda lib, d: _t(lib, d).any(1),
    "any_dims": lambda lib, d: lib.any(_t(lib, d), (0, 2), keepdim=True),
    "all": lambda lib, d: _t(lib, d).all(),
    "all_dim": lambda lib, d: lib.all(_t(lib, d), -1),
    "count_nonzero": lambda lib, d: lib.count_nonzero(_t(lib, d)),
    "count_nonzero_dims": lambda lib, d: _t(lib, d).count_nonzero((0, 1)),
    "logsumexp": lambda lib, d: lib.logsumexp(_t(lib, d), 1),
    "special_logsumexp": lambda lib, d: lib.special.logsumexp(_t(lib, d), (0, 2), True),
    "norm": lambda lib, d: lib.norm(_t(lib, d)),
    "norm_p1_dim": lambda lib, d: _t(lib, d).norm(1, 1),
    "norm_inf": lambda lib, d: lib.norm(_t(lib, d), math.inf, (0, 2), keepdim=True),
    "norm_p0": lambda lib, d: lib.norm(_t(lib, d), 0),
    "norm_p3": lambda lib, d: lib.norm(_t(lib, d), 3, -1),
    "aten_norm": lambda lib, d: lib.ops.aten.norm.Scalar(_t(lib, d), 2),
    "renorm": lambda lib, d: lib.renorm(_t(lib, d), 2, 1, 1.5),
    "dist": lambda lib, d: lib.dist(_t(lib, d), _t(lib, d).flip(1), 3),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype))


# --- NaN, infinities, empty inputs, 0-dim inputs, layouts ------------------------------------

SPECIAL: dict[str, Callable[[Any], Any]] = {
    "sum_nan": lambda lib: lib.sum(_f(lib, shape=(3, 4)), 1),
    "nansum_nan": lambda lib: lib.nansum(_f(lib, shape=(3, 4)), 1),
    "nanmean_nan": lambda lib: lib.nanmean(_f(lib, shape=(3, 4)), 0),
    "amax_nan": lambda lib: lib.amax(_f(lib, shape=(3, 4)), 1),
    "max_dim_nan": lambda lib: lib.max(_f(lib, shape=(3, 4)), 1),
    "min_dim_nan": lambda lib: lib.min(_f(lib, shape=(4, 3)), 0),
    "argmax_nan": lambda lib: lib.argmax(_f(lib, shape=(3, 4)), 1),
    "argmin_nan": lambda lib: _f(lib, shape=(3, 4)).argmin(),
    "aminmax_nan": lambda lib: lib.aminmax(_f(lib, shape=(3, 4)), dim=0),
    "logsumexp_inf": lambda lib: lib.logsumexp(_f(lib, shape=(3, 4)), 1),
    "logsumexp_minus_inf": lambda lib: lib.logsumexp(lib.full((2, 3), -math.inf), 1),
    "norm_inf_nan": lambda lib: lib.norm(_f(lib, shape=(3, 4)), math.inf, 1),
    "sum_empty": lambda lib: lib.sum(_empty(lib), 1),
    "sum_empty_all": lambda lib: _empty(lib).sum(),
    "prod_empty": lambda lib: lib.prod(_empty(lib), 1),
    "mean_empty": lambda lib: lib.mean(_empty(lib), 1),
    "var_empty": lambda lib: lib.var(_empty(lib), 1),
    "any_empty": lambda lib: lib.any(_empty(lib), 1),
    "all_empty": lambda lib: lib.all(_empty(lib)),
    "logsumexp_empty": lambda lib: lib.logsumexp(_empty(lib), 1),
    "amax_empty_other_dim": lambda lib: lib.amax(_empty(lib), 2),
    "count_nonzero_empty": lambda lib: lib.count_nonzero(_empty(lib), 1),
    "norm_empty": lambda lib: lib.norm(_empty(lib), 2, 1),
    "sum_scalar": lambda lib: lib.sum(lib.tensor(2.5), 0),
    "sum_scalar_keepdim": lambda lib: lib.tensor(2.5).sum(-1, keepdim=True),
    "max_scalar_dim": lambda lib: lib.max(lib.tensor(3), 0),
    "argmax_scalar": lambda lib: lib.tensor(3.0).argmax(0, True),
    "var_scalar": lambda lib: lib.var(lib.tensor(3.0)),
    "argmax_keepdim_none": lambda lib: lib.argmax(_t(lib, "float32"), keepdim=True),
    "any_dims_none": lambda lib: lib.any(_t(lib, "int32"), None),
    "int_sum_wraps": lambda lib: lib.sum(lib.full((4,), 2**62, dtype=lib.int64)),
    "int32_prod": lambda lib: lib.prod(lib.full((5,), 1000, dtype=lib.int32)),
    "half_sum_accumulates": lambda lib: lib.sum(lib.full((4096,), 1.0, dtype=lib.float16)),
    "half_mean": lambda lib: lib.mean(lib.full((3000,), 0.1, dtype=lib.float16)),
    "sum_dtype_from_complex": lambda lib: lib.sum(_t(lib, "complex64"), dtype=lib.float32),
    "sum_permuted": lambda lib: _t(lib, "float32").permute(2, 0, 1).sum(1, keepdim=True),
    "amax_permuted": lambda lib: _t(lib, "float32").permute(2, 0, 1).amax(0),
    "max_channels_last": lambda lib: (
        _t(lib, "float32", (1, 2, 3, 4))
        .contiguous(memory_format=lib.channels_last)
        .max(1, keepdim=True)
    ),
    "var_mean_strided": lambda lib: lib.var_mean(_t(lib, "float64")[:, ::2], (0, 2), keepdim=True),
    "any_transposed": lambda lib: _t(lib, "int32").transpose(0, 2).any(0, keepdim=True),
    "renorm_transposed": lambda lib: lib.renorm(_t(lib, "float32").transpose(0, 2), 1, 0, 2.0),
    "renorm_inplace": lambda lib: _t(lib, "float64").renorm_(2, 2, 1.0),
    "norm_fro": lambda lib: lib.norm(_t(lib, "float32"), "fro", (0, 1)),
    "norm_dtype": lambda lib: lib.norm(_t(lib, "float32"), 2, 1, dtype=lib.float64),
    "norm_negative_p": lambda lib: lib.norm(_t(lib, "float32", (24,)).abs() + 1, -1.5),
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special(name: str) -> None:
    if name.startswith("half_") and "float16" not in STORED_DTYPES:
        pytest.skip("the backend does not store float16")
    _check(SPECIAL[name])


# --- out= ----------------------------------------------------------------------------------


def _out(lib: Any, dtype: str, shape: tuple[int, ...]) -> Any:
    return lib.zeros(shape, dtype=getattr(lib, dtype))


def _with_out(call: Callable[[Any, Any], Any], out: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Run `call(lib, out)`; the outcome is (result is out, out), with the warnings raised."""

    def run(lib: Any) -> Any:
        target = out(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call(lib, target)
        messages = tuple(str(w.message).partition(" (Triggered")[0] for w in caught)
        same = (
            tuple(r is t for r, t in zip(result, target, strict=True))
            if isinstance(target, tuple)
            else result is target
        )
        return same, messages, target

    return run


OUT: dict[str, Callable[[Any], Any]] = {
    "sum_out": _with_out(
        lambda lib, o: lib.sum(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float32", (2, 4)),
    ),
    "sum_out_other_dtype": _with_out(
        lambda lib, o: lib.sum(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "sum_out_dtype_mismatch": _with_out(
        lambda lib, o: lib.sum(_t(lib, "float32"), 1, dtype=lib.float32, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "sum_out_resize": _with_out(
        lambda lib, o: lib.sum(_t(lib, "int32"), (0, 1), out=o),
        lambda lib: _out(lib, "int64", (3,)),
    ),
    "sum_out_empty_resize": _with_out(
        lambda lib, o: lib.sum(_t(lib, "int32"), 2, out=o), lambda lib: _out(lib, "int64", (0,))
    ),
    "sum_full_out": _with_out(
        lambda lib, o: lib.ops.aten.sum.out(_t(lib, "float32"), out=o),
        lambda lib: _out(lib, "float64", ()),
    ),
    "mean_out": _with_out(
        lambda lib, o: lib.mean(_t(lib, "float32"), 0, out=o),
        lambda lib: _out(lib, "float64", (3, 4)),
    ),
    "mean_out_int": _with_out(
        lambda lib, o: lib.mean(_t(lib, "int32"), 0, out=o),
        lambda lib: _out(lib, "float32", (3, 4)),
    ),
    "nansum_out": _with_out(
        lambda lib, o: lib.nansum(_f(lib, shape=(3, 4)), 1, out=o),
        lambda lib: _out(lib, "float32", (3,)),
    ),
    "nanmean_out": _with_out(
        lambda lib, o: lib.nanmean(_f(lib, shape=(3, 4)), 1, out=o),
        lambda lib: _out(lib, "float32", (3,)),
    ),
    "prod_out": _with_out(
        lambda lib, o: lib.prod(_t(lib, "int16"), 2, out=o), lambda lib: _out(lib, "int64", (2, 3))
    ),
    "amax_out": _with_out(
        lambda lib, o: lib.amax(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float32", (2, 4)),
    ),
    "amax_out_dtype": _with_out(
        lambda lib, o: lib.amax(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "aminmax_out": _with_out(
        lambda lib, o: lib.aminmax(_t(lib, "int8"), dim=0, out=o),
        lambda lib: (_out(lib, "int8", (3, 4)), _out(lib, "int8", (3, 4))),
    ),
    "max_dim_out": _with_out(
        lambda lib, o: lib.max(_t(lib, "float32"), 1, out=o),
        lambda lib: (_out(lib, "float32", (2, 4)), _out(lib, "int64", (2, 4))),
    ),
    "max_dim_out_index_dtype": _with_out(
        lambda lib, o: lib.max(_t(lib, "float32"), 1, out=o),
        lambda lib: (_out(lib, "float32", (2, 4)), _out(lib, "int32", (2, 4))),
    ),
    "min_dim_out_values_dtype": _with_out(
        lambda lib, o: lib.min(_t(lib, "float32"), 1, out=o),
        lambda lib: (_out(lib, "float64", (2, 4)), _out(lib, "int32", (2, 4))),
    ),
    "max_unary_out": _with_out(
        lambda lib, o: lib.max(_t(lib, "float32"), out=o), lambda lib: _out(lib, "float64", ())
    ),
    "max_unary_out_cannot_cast": _with_out(
        lambda lib, o: lib.max(_t(lib, "float32"), out=o), lambda lib: _out(lib, "int32", ())
    ),
    "min_unary_out_resize": _with_out(
        lambda lib, o: lib.min(_t(lib, "int32"), out=o), lambda lib: _out(lib, "float32", (2,))
    ),
    "argmax_out": _with_out(
        lambda lib, o: lib.argmax(_t(lib, "float32"), 2, out=o),
        lambda lib: _out(lib, "int64", (2, 3)),
    ),
    "argmin_out_dtype": _with_out(
        lambda lib, o: lib.argmin(_t(lib, "float32"), 2, out=o),
        lambda lib: _out(lib, "int32", (2, 3)),
    ),
    "var_out": _with_out(
        lambda lib, o: lib.var(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "var_out_int": _with_out(
        lambda lib, o: lib.var(_t(lib, "float32"), 1, out=o), lambda lib: _out(lib, "int32", (2, 4))
    ),
    "std_out_complex": _with_out(
        lambda lib, o: lib.std(_t(lib, "complex64"), 1, out=o),
        lambda lib: _out(lib, "float32", (2, 4)),
    ),
    "var_mean_out": _with_out(
        lambda lib, o: lib.ops.aten.var_mean.correction_out(
            _t(lib, "float32"), [1], correction=1, out0=o[0], out1=o[1]
        ),
        lambda lib: (_out(lib, "float32", (2, 4)), _out(lib, "float32", (2, 4))),
    ),
    "any_out": _with_out(
        lambda lib, o: lib.any(_t(lib, "float32"), 1, out=o), lambda lib: _out(lib, "bool", (2, 4))
    ),
    "any_out_uint8": _with_out(
        lambda lib, o: lib.any(_t(lib, "float32"), 1, out=o), lambda lib: _out(lib, "uint8", (2, 4))
    ),
    "all_out_uint8_from_int": _with_out(
        lambda lib, o: lib.all(_t(lib, "int16") * 64, 0, out=o),
        lambda lib: _out(lib, "uint8", (3, 4)),
    ),
    "all_out_float": _with_out(
        lambda lib, o: lib.all(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float32", (2, 4)),
    ),
    "all_full_out": _with_out(
        lambda lib, o: lib.all(_t(lib, "int32"), out=o), lambda lib: _out(lib, "bool", ())
    ),
    "logsumexp_out": _with_out(
        lambda lib, o: lib.logsumexp(_t(lib, "float32"), 1, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "logsumexp_out_int": _with_out(
        lambda lib, o: lib.logsumexp(_t(lib, "int32"), 1, out=o),
        lambda lib: _out(lib, "int32", (2, 4)),
    ),
    "norm_out": _with_out(
        lambda lib, o: lib.norm(_t(lib, "float32"), 2, 1, out=o),
        lambda lib: _out(lib, "float32", (2, 4)),
    ),
    "norm_out_dtype": _with_out(
        lambda lib, o: lib.norm(_t(lib, "float32"), 2, 1, out=o),
        lambda lib: _out(lib, "float64", (2, 4)),
    ),
    "renorm_out": _with_out(
        lambda lib, o: lib.renorm(_t(lib, "float32"), 2, 0, 1.0, out=o),
        lambda lib: _out(lib, "float32", (2, 3, 4)),
    ),
    "dist_out": _with_out(
        lambda lib, o: lib.ops.aten.dist.out(_t(lib, "float32"), _t(lib, "float32").flip(0), out=o),
        lambda lib: _out(lib, "float32", ()),
    ),
}


@pytest.mark.parametrize("name", list(OUT))
def test_out(name: str) -> None:
    expected, expected_error = outcome(OUT[name], torch)
    actual, actual_error = outcome(OUT[name], refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    assert actual[:2] == expected[:2]
    _same(expected[2], actual[2])


# --- errors --------------------------------------------------------------------------------

ERRORS: dict[str, Callable[[Any], Any]] = {
    "dim_out_of_range": lambda lib: lib.sum(_t(lib, "float32"), 3),
    "dim_out_of_range_scalar": lambda lib: lib.sum(lib.tensor(1.0), 1),
    "dim_twice": lambda lib: lib.sum(_t(lib, "float32"), (0, -3)),
    "dim_twice_scalar": lambda lib: lib.sum(lib.tensor(1.0), (0, -1)),
    "mean_int": lambda lib: lib.mean(_t(lib, "int64")),
    "mean_int_dtype": lambda lib: lib.mean(_t(lib, "float32"), dtype=lib.int32),
    "nanmean_int": lambda lib: lib.nanmean(_t(lib, "int32")),
    "nansum_complex": lambda lib: lib.nansum(_t(lib, "complex64")),
    "amax_complex": lambda lib: lib.amax(_t(lib, "complex64")),
    "amax_empty_dim": lambda lib: lib.amax(_empty(lib), 1),
    "amax_empty_all": lambda lib: lib.amax(_empty(lib)),
    "amin_dim_twice": lambda lib: lib.amin(_t(lib, "float32"), (1, 1)),
    "max_empty": lambda lib: lib.max(_empty(lib)),
    "max_dim_empty": lambda lib: lib.max(_empty(lib), 1),
    "max_complex": lambda lib: lib.max(_t(lib, "complex64")),
    "max_dim_complex": lambda lib: lib.max(_t(lib, "complex64"), 0),
    "argmax_bool": lambda lib: lib.argmax(_t(lib, "bool")),
    "argmin_complex": lambda lib: lib.argmin(_t(lib, "complex128"), 1),
    "argmax_empty": lambda lib: lib.argmax(_empty(lib)),
    "argmax_empty_dim": lambda lib: lib.argmax(_empty(lib), 1),
    "aminmax_empty": lambda lib: lib.aminmax(_empty(lib)),
    "aminmax_empty_dim": lambda lib: lib.aminmax(_empty(lib), dim=1),
    "aminmax_complex": lambda lib: lib.aminmax(_t(lib, "complex64")),
    "var_int": lambda lib: lib.var(_t(lib, "int32")),
    "std_mean_bool": lambda lib: lib.std_mean(_t(lib, "bool")),
    "var_mean_int": lambda lib: lib.var_mean(_t(lib, "int32"), 1),
    "norm_int": lambda lib: lib.norm(_t(lib, "int32")),
    "aten_norm_int": lambda lib: lib.ops.aten.norm.Scalar(_t(lib, "int64")),
    "aten_norm_int_dtype": lambda lib: lib.ops.aten.norm.ScalarOpt_dim_dtype(
        _t(lib, "float32"), 2, [0], False, dtype=lib.int32
    ),
    "norm_inf_empty": lambda lib: lib.norm(_empty(lib), math.inf),
    "norm_inf_empty_dim": lambda lib: lib.norm(_empty(lib), -math.inf, 1),
    "renorm_1d": lambda lib: lib.renorm(_t(lib, "float32", (4,)), 2, 0, 1.0),
    "renorm_p": lambda lib: lib.renorm(_t(lib, "float32"), 0, 0, 1.0),
    "renorm_maxnorm": lambda lib: lib.renorm(_t(lib, "float32"), 2, 0, -1.5),
    "dist_int": lambda lib: lib.dist(_t(lib, "int32"), _t(lib, "int32")),
    "count_nonzero_dim_twice": lambda lib: lib.count_nonzero(_t(lib, "float32"), (1, 1)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name: str) -> None:
    _check(ERRORS[name])


def test_degrees_of_freedom_warning() -> None:
    for lib in (torch, refimpl):
        with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
            lib.var(lib.ones(1))
        with pytest.warns(UserWarning, match=r"std_mean\(\): degrees of freedom is <= 0"):
            lib.std_mean(lib.ones(2, 3), 1, correction=3)


def test_return_types() -> None:
    x = _t(refimpl, "float32")
    assert type(refimpl.max(x, 1)) is refimpl.return_types.max
    assert type(x.min(0)) is refimpl.return_types.min
    assert type(refimpl.aminmax(x)) is refimpl.return_types.aminmax
    values, indices = refimpl.zeros(2, 4), refimpl.zeros(2, 4, dtype=refimpl.int64)
    assert type(refimpl.max(x, 1, out=(values, indices))) is refimpl.return_types.max_out


# --- meta tensors: shape, dtype and strides without data -------------------------------------

META: dict[str, Callable[[Any], Any]] = {
    "sum": lambda lib: lib.sum(_m(lib, "int32"), 1, keepdim=True),
    "sum_permuted": lambda lib: _m(lib, "float32").permute(2, 0, 1).sum((0, 2)),
    "mean": lambda lib: lib.mean(_m(lib, "float16"), (0, 2)),
    "prod": lambda lib: lib.prod(_m(lib, "bool"), 0),
    "amax": lambda lib: lib.amax(_m(lib, "float64"), 2, keepdim=True),
    "max_dim": lambda lib: lib.max(_m(lib, "int8"), 1),
    "argmax": lambda lib: lib.argmax(_m(lib, "float32")),
    "var": lambda lib: lib.var(_m(lib, "complex64"), 1),
    "var_mean": lambda lib: lib.var_mean(_m(lib, "complex64"), 1),
    "any": lambda lib: lib.any(_m(lib, "uint8"), 0),
    "logsumexp": lambda lib: lib.logsumexp(_m(lib, "int64"), 2),
}


def _m(lib: Any, dtype: str) -> Any:
    return lib.empty((2, 3, 4), dtype=getattr(lib, dtype), device="meta")


@pytest.mark.parametrize("name", list(META))
def test_meta(name: str) -> None:
    _check(META[name])


def test_generated_out_resizes_before_refusing_the_dtype() -> None:
    # torch: the out= wrapper of a CompositeExplicitAutograd op resizes `out` (warning; torch
    # prints it from C++ when called through torch.ops), then refuses its dtype, so `out`
    # keeps the new shape.
    shapes = []
    for lib in (torch, refimpl):
        out = lib.zeros(3, dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float"):
                lib.ops.aten.sum.out(lib.ones(2, 2), out=out)
        shapes.append(tuple(out.shape))
    assert shapes[0] == shapes[1] == ()
