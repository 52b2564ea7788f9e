"""The matmul family against torch: mm, bmm, addmm, addmv, addr, addbmm, baddbmm, dot, vdot,
mv, matmul and `@`, outer/ger, inner, tensordot, kron, einsum, cross, cdist and the
trapezoid functions.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's dtype, shape, strides and values (assert_close
with torch's tolerances for the dtype, NaNs equal). Every op runs on every stored dtype
(integer products wrap, bool is refused where torch's CPU refuses it); matmul runs on every
rank combination, on strided and broadcast inputs, and reaches the aten ops torch reaches.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import refimpl
from conformance._oracle import STORED_DTYPES, outcome
from conformance.test_api_op_log import refimpl_op_log, torch_op_log

DTYPES = STORED_DTYPES
_NAN = math.nan


def _values(count: int, dtype: str, seed: int) -> list[Any]:
    """Deterministic small values of a dtype (integers small enough to wrap only in int8)."""
    raw = [((i * 7 + seed * 5) % 13) - 6 for i in range(count)]
    if dtype == "bool":
        return [v % 3 == 0 for v in raw]
    if dtype == "uint8":
        return [v + 6 for v in raw]
    if dtype.startswith("int"):
        return raw
    if dtype.startswith("complex"):
        return [complex(v / 4, ((i * 3 + seed) % 5 - 2) / 2) for i, v in enumerate(raw)]
    return [v / 4 for v in raw]


def _t(lib: Any, dtype: str, *shape: int, seed: int = 0) -> Any:
    count = math.prod(shape)
    return lib.tensor(_values(count, dtype, seed), dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any, *shape: int, seed: int = 0) -> Any:
    return _t(lib, "float32", *shape, seed=seed)


def _tolerance(dtype: torch.dtype) -> tuple[float | None, float | None]:
    # torch's assert_close defaults (None), a little looser for float16 (products accumulate).
    if dtype == torch.float16:
        return 1e-3, 1e-3
    return None, None


def _same(expected: Any, actual: Any, strides: bool = True) -> None:
    if isinstance(expected, tuple | list):
        assert type(actual).__name__ == type(expected).__name__
        for e, a in zip(expected, actual, strict=True):
            _same(e, a, strides)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    if strides:
        assert tuple(actual.stride()) == tuple(expected.stride())
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    rtol, atol = _tolerance(expected.dtype)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=rtol, atol=atol)


def _check(fn: Callable[[Any], Any], strides: bool = True) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error), str(expected_error)
        )
        return
    if actual_error is not None:
        if "has no dtype" in str(actual_error):
            pytest.skip(str(actual_error))  # a dtype the backend does not store
        raise actual_error
    _same(expected, actual, strides)


# --- every op on every dtype ---------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "mm": lambda lib, d: lib.mm(_t(lib, d, 2, 3), _t(lib, d, 3, 4, seed=1)),
    "mm_strided": lambda lib, d: lib.mm(_t(lib, d, 3, 2).t(), _t(lib, d, 4, 3, seed=1).t()),
    "bmm": lambda lib, d: lib.bmm(_t(lib, d, 2, 2, 3), _t(lib, d, 2, 3, 4, seed=1)),
    "addmm": lambda lib, d: lib.addmm(_t(lib, d, 4), _t(lib, d, 2, 3), _t(lib, d, 3, 4, seed=1)),
    "addmm_scaled": lambda lib, d: lib.addmm(
        _t(lib, d, 2, 4, seed=2), _t(lib, d, 2, 3), _t(lib, d, 3, 4, seed=1), beta=2, alpha=3),
    "addmv": lambda lib, d: lib.addmv(_t(lib, d, 2), _t(lib, d, 2, 3), _t(lib, d, 3, seed=1)),
    "addr": lambda lib, d: lib.addr(_t(lib, d, 2, 3), _t(lib, d, 2), _t(lib, d, 3, seed=1)),
    "addr_transposed_self": lambda lib, d: lib.addr(
        _t(lib, d, 3, 2).t(), _t(lib, d, 2), _t(lib, d, 3, seed=1)),
    "addbmm": lambda lib, d: lib.addbmm(
        _t(lib, d, 2, 4), _t(lib, d, 3, 2, 3), _t(lib, d, 3, 3, 4, seed=1)),
    "baddbmm": lambda lib, d: lib.baddbmm(
        _t(lib, d, 2, 4), _t(lib, d, 3, 2, 3), _t(lib, d, 3, 3, 4, seed=1), alpha=2),
    "dot": lambda lib, d: lib.dot(_t(lib, d, 5), _t(lib, d, 5, seed=1)),
    "vdot": lambda lib, d: lib.vdot(_t(lib, d, 5), _t(lib, d, 5, seed=1)),
    "mv": lambda lib, d: lib.mv(_t(lib, d, 2, 3), _t(lib, d, 3, seed=1)),
    "outer": lambda lib, d: lib.outer(_t(lib, d, 2), _t(lib, d, 3, seed=1)),
    "ger": lambda lib, d: lib.ger(_t(lib, d, 2), _t(lib, d, 3, seed=1)),
    "inner": lambda lib, d: lib.inner(_t(lib, d, 2, 3), _t(lib, d, 4, 3, seed=1)),
    "kron": lambda lib, d: lib.kron(_t(lib, d, 2, 3), _t(lib, d, 2, 2, seed=1)),
    "tensordot": lambda lib, d: lib.tensordot(_t(lib, d, 2, 3, 4), _t(lib, d, 3, 4, 2), dims=2),
    "einsum": lambda lib, d: lib.einsum("bij,bjk->bik", _t(lib, d, 2, 2, 3), _t(lib, d, 2, 3, 2)),
    "matmul": lambda lib, d: lib.matmul(_t(lib, d, 2, 2, 3), _t(lib, d, 3, 4, seed=1)),
    "cross": lambda lib, d: lib.cross(_t(lib, d, 2, 3), _t(lib, d, 2, 3, seed=1), dim=1),
    "cdist": lambda lib, d: lib.cdist(_t(lib, d, 2, 3), _t(lib, d, 4, 3, seed=1)),
    "trapezoid": lambda lib, d: lib.trapezoid(_t(lib, d, 2, 4)),
    "trapezoid_x": lambda lib, d: lib.trapezoid(_t(lib, d, 2, 4), _t(lib, d, 4, seed=1)),
    "cumulative_trapezoid": lambda lib, d: lib.cumulative_trapezoid(_t(lib, d, 2, 4), dx=2),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(PER_DTYPE))
def test_every_dtype(name: str, dtype: str) -> None:
    # einsum's and inner's strides follow their permutes, which torch does not promise.
    _check(lambda lib: PER_DTYPE[name](lib, dtype), strides=name not in ("einsum", "inner"))


# --- matmul: every rank combination ------------------------------------------------------

MATMUL_SHAPES: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (7, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((1, 2, 3), (5, 3, 4)),
    ((2, 3), (4, 5, 3, 4)), ((4, 5, 2, 3), (1, 3, 4)), ((3, 5, 0), (0, 0)), ((0, 3), (3,)),
]


@pytest.mark.parametrize(("a", "b"), MATMUL_SHAPES, ids=str)
def test_matmul_ranks(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    _check(lambda lib: lib.matmul(_f(lib, *a), _f(lib, *b, seed=1)))
    _check(lambda lib: _f(lib, *a) @ _f(lib, *b, seed=1))
    _check(lambda lib: _t(lib, "int64", *a).matmul(_t(lib, "int64", *b, seed=1)))


@pytest.mark.parametrize(("a", "b"), MATMUL_SHAPES[:12], ids=str)
def test_matmul_op_log(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """matmul decomposes into the aten ops torch's _matmul_impl calls, in its order."""
    x, y = _f(torch, *a), _f(torch, *b)
    with torch_op_log() as expected:
        torch.matmul(x, y)
    rx, ry = _f(refimpl, *a), _f(refimpl, *b)
    with refimpl_op_log() as actual:
        refimpl.matmul(rx, ry)
    assert actual == expected


STRIDED: dict[str, Callable[[Any], Any]] = {
    "transposed_batch": lambda lib: lib.matmul(_f(lib, 2, 5, 3).transpose(0, 1), _f(lib, 3, 4)),
    "mT_contiguous_1d": lambda lib: lib.matmul(_f(lib, 3), _f(lib, 5, 4, 3).mT),
    "mT_contiguous_2d": lambda lib: lib.matmul(_f(lib, 2, 3), _f(lib, 5, 4, 3).mT),
    "expanded": lambda lib: lib.matmul(_f(lib, 1, 2, 3).expand(4, 2, 3), _f(lib, 3, 2)),
    "sliced": lambda lib: lib.matmul(_f(lib, 4, 6)[::2, 1::2], _f(lib, 3, 5)),
    "out_folded": lambda lib: lib.matmul(_f(lib, 5, 2, 3), _f(lib, 3, 4), out=_f(lib, 5, 2, 4)),
    "out_batched": lambda lib: lib.matmul(
        _f(lib, 5, 2, 3), _f(lib, 5, 3, 4), out=_f(lib, 5, 4, 2).mT),
    "out_resized": lambda lib: lib.matmul(_f(lib, 2, 3), _f(lib, 3, 4), out=_f(lib, 3)),
    "out_1d_2d": lambda lib: lib.matmul(_f(lib, 3), _f(lib, 3, 4), out=_f(lib, 0)),
    "rmatmul": lambda lib: _f(lib, 3, 4).__rmatmul__(_f(lib, 2, 3)),
    "imatmul_rebinds": lambda lib: _imatmul(lib),
    "matmul_number": lambda lib: _f(lib, 2) @ 2,
    "rmatmul_number": lambda lib: 2 @ _f(lib, 2),
    "float16": lambda lib: lib.matmul(_t(lib, "float32", 8, 16).to(lib.float16),
                                      _t(lib, "float32", 16, 8, seed=1).to(lib.float16)),
    "int8_wraps": lambda lib: lib.mm(lib.full((2, 2), 100, dtype=lib.int8),
                                     lib.full((2, 2), 100, dtype=lib.int8)),
}


def _imatmul(lib: Any) -> Any:
    # torch defines no __imatmul__: `a @= b` rebinds a to a new tensor.
    a = _f(lib, 2, 2)
    before = a
    a @= _f(lib, 2, 2, seed=1)
    assert a is not before
    return a


@pytest.mark.parametrize("name", list(STRIDED))
def test_matmul_forms(name: str) -> None:
    _check(STRIDED[name])


# --- alpha, beta, in-place and out= --------------------------------------------------------


def _nan_self(lib: Any, *shape: int) -> Any:
    return lib.full(shape, _NAN)


FORMS: dict[str, Callable[[Any], Any]] = {
    "addmm_beta0_nan": lambda lib: lib.addmm(_nan_self(lib, 2, 4), _f(lib, 2, 3), _f(lib, 3, 4),
                                             beta=0),
    "addmv_beta0_nan": lambda lib: lib.addmv(_nan_self(lib, 2), _f(lib, 2, 3), _f(lib, 3),
                                             beta=0.0),
    "addr_beta0_nan": lambda lib: lib.addr(_nan_self(lib, 2, 3), _f(lib, 2), _f(lib, 3), beta=0),
    "addbmm_beta0_nan": lambda lib: lib.addbmm(_nan_self(lib, 2, 4), _f(lib, 3, 2, 3),
                                               _f(lib, 3, 3, 4), beta=False),
    "baddbmm_beta0_nan": lambda lib: lib.baddbmm(_nan_self(lib, 3, 2, 4), _f(lib, 3, 2, 3),
                                                 _f(lib, 3, 3, 4), beta=0),
    "addmm_int_truncates": lambda lib: lib.addmm(
        _t(lib, "int64", 2, 2), _t(lib, "int64", 2, 2), _t(lib, "int64", 2, 2), alpha=2.5,
        beta=-1.7),
    "addmm_bool_alpha": lambda lib: lib.addmm(_f(lib, 2, 4), _f(lib, 2, 3), _f(lib, 3, 4),
                                              alpha=True, beta=False),
    "addr_bool": lambda lib: lib.addr(_t(lib, "bool", 2, 2), _t(lib, "bool", 2),
                                      _t(lib, "bool", 2, seed=1), beta=2, alpha=True),
    "addr_promotes": lambda lib: lib.addr(_t(lib, "int64", 2, 3), _t(lib, "int64", 2),
                                          _f(lib, 3)),
    "addmm_": lambda lib: _f(lib, 2, 4).addmm_(_f(lib, 2, 3), _f(lib, 3, 4), beta=0.5),
    "addmv_": lambda lib: _f(lib, 2).addmv_(_f(lib, 2, 3), _f(lib, 3), alpha=2),
    "addr_": lambda lib: _f(lib, 2, 3).addr_(_f(lib, 2), _f(lib, 3)),
    "addbmm_": lambda lib: _f(lib, 2, 4).addbmm_(_f(lib, 3, 2, 3), _f(lib, 3, 3, 4)),
    "addbmm_grows_self": lambda lib: _f(lib, 4).addbmm_(_f(lib, 3, 2, 3), _f(lib, 3, 3, 4)),
    "baddbmm_": lambda lib: _f(lib, 3, 2, 4).baddbmm_(_f(lib, 3, 2, 3), _f(lib, 3, 3, 4)),
    "mm_out_strided": lambda lib: lib.mm(_f(lib, 2, 3), _f(lib, 3, 2), out=_f(lib, 2, 2).t()),
    "mm_out_resized": lambda lib: lib.mm(_f(lib, 2, 3), _f(lib, 3, 2), out=_f(lib, 5)),
    "bmm_out": lambda lib: lib.bmm(_f(lib, 2, 2, 3), _f(lib, 2, 3, 2), out=_f(lib, 2, 2, 2).mT),
    "addmm_out": lambda lib: lib.addmm(_f(lib, 4), _f(lib, 2, 3), _f(lib, 3, 4),
                                       out=_f(lib, 2, 4)),
    "addmv_out": lambda lib: lib.addmv(_f(lib, 2), _f(lib, 2, 3), _f(lib, 3), out=_f(lib, 0)),
    "addbmm_out": lambda lib: lib.addbmm(_f(lib, 2, 4), _f(lib, 3, 2, 3), _f(lib, 3, 3, 4),
                                         out=_f(lib, 3)),
    "baddbmm_out": lambda lib: lib.baddbmm(_f(lib, 2, 4), _f(lib, 3, 2, 3), _f(lib, 3, 3, 4),
                                           out=_f(lib, 3, 2, 4)),
    "addr_out_cast": lambda lib: lib.addr(_f(lib, 2, 3), _f(lib, 2), _f(lib, 3),
                                          out=_t(lib, "float64", 2, 3)),
    "dot_out": lambda lib: lib.dot(_f(lib, 3), _f(lib, 3), out=_f(lib, 2)),
    "vdot_out": lambda lib: lib.vdot(_f(lib, 3), _f(lib, 3), out=_f(lib)),
    "mv_out": lambda lib: lib.mv(_f(lib, 2, 3), _f(lib, 3), out=_f(lib, 2)),
    "outer_out": lambda lib: lib.outer(_f(lib, 2), _f(lib, 3), out=_f(lib, 2, 3)),
    "inner_out": lambda lib: lib.inner(_f(lib, 2, 3), _f(lib, 4, 3), out=_f(lib, 2, 4)),
    "kron_out": lambda lib: lib.kron(_f(lib, 2, 3), _f(lib, 2, 2), out=_f(lib, 0)),
    "tensordot_out": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4), dims=1,
                                               out=_f(lib, 2, 4)),
    "cross_out": lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 2, 3), dim=1, out=_f(lib, 2, 3)),
    "cross_default_dim": lambda lib: lib.cross(_f(lib, 3, 2), _f(lib, 3, 2, seed=1)),
    "cross_broadcast": lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 1, 3, seed=1), dim=-1),
    "tensordot_lists": lambda lib: lib.tensordot(_f(lib, 2, 3, 4), _f(lib, 4, 3),
                                                 dims=([1, 2], [1, 0])),
    "tensordot_broadcast_dim": lambda lib: lib.tensordot(_f(lib, 2, 1, 4), _f(lib, 3, 4, 5),
                                                         dims=([1, 2], [0, 1])),
    "tensordot_tensor_dims": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4),
                                                       dims=lib.tensor(1)),
    "inner_scalar": lambda lib: lib.inner(_f(lib), _f(lib, 2, 3)),
    "kron_ranks": lambda lib: lib.kron(_f(lib, 2, 3), _f(lib, 2, 4, 5)),
    "cdist_p1": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 4, 3, seed=1), p=1),
    "cdist_p0": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 4, 3, seed=1), p=0),
    "cdist_pinf": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 4, 3, seed=1), p=math.inf),
    "cdist_p3": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 4, 3, seed=1), p=3),
    "cdist_batched": lambda lib: lib.cdist(_f(lib, 2, 1, 3, 3), _f(lib, 4, 5, 3, seed=1)),
    "cdist_mm": lambda lib: lib.cdist(_t(lib, "float64", 30, 3), _t(lib, "float64", 4, 3, seed=1)),
    "cdist_mm_forced": lambda lib: lib.cdist(
        _t(lib, "float64", 2, 3), _t(lib, "float64", 4, 3, seed=1),
        compute_mode="use_mm_for_euclid_dist"),
    "trapz_dx": lambda lib: lib.trapz(_f(lib, 2, 4), dx=0.5, dim=0),
    "trapezoid_empty": lambda lib: lib.trapezoid(_f(lib, 2, 0)),
    "trapezoid_x_nd": lambda lib: lib.trapezoid(_f(lib, 2, 4), _f(lib, 2, 4, seed=1)),
    "cumulative_trapezoid_x": lambda lib: lib.cumulative_trapezoid(_f(lib, 2, 4), _f(lib, 4)),
}


@pytest.mark.parametrize("name", list(FORMS))
def test_forms(name: str) -> None:
    _check(FORMS[name])


SCALED: dict[str, Callable[..., Any]] = {
    "addmm": lambda lib, d, **k: lib.addmm(_t(lib, d, 2, 4), _t(lib, d, 2, 3),
                                           _t(lib, d, 3, 4, seed=1), **k),
    "addmv": lambda lib, d, **k: lib.addmv(_t(lib, d, 2), _t(lib, d, 2, 3),
                                           _t(lib, d, 3, seed=1), **k),
    "addr": lambda lib, d, **k: lib.addr(_t(lib, d, 2, 3), _t(lib, d, 2), _t(lib, d, 3, seed=1),
                                         **k),
    "addbmm": lambda lib, d, **k: lib.addbmm(_t(lib, d, 2, 4), _t(lib, d, 3, 2, 3),
                                             _t(lib, d, 3, 3, 4, seed=1), **k),
    "baddbmm_": lambda lib, d, **k: _t(lib, d, 3, 2, 4).baddbmm_(
        _t(lib, d, 3, 2, 3), _t(lib, d, 3, 3, 4, seed=1), **k),
}
SCALARS: list[dict[str, Any]] = [
    {"alpha": True}, {"beta": False}, {"alpha": 2.5}, {"beta": 0.5}, {"alpha": 1j},
    {"beta": -3}, {"alpha": 0}, {"alpha": True, "beta": 1.5},
]


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32", "complex64"])
@pytest.mark.parametrize("name", list(SCALED))
def test_alpha_beta(name: str, dtype: str) -> None:
    """alpha and beta of every type on every kind of result (Scalar::to<T> conversion,
    addr's checks, the beta == 0 rule)."""
    for scalars in SCALARS:

        def call(lib: Any, scalars: dict[str, Any] = scalars) -> Any:
            return SCALED[name](lib, dtype, **scalars)

        _check(call)


def _warnings(call: Callable[[Any], Any], lib: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(lib)
    # torch appends where in its C++ the warning came from.
    return [str(w.message).partition(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("name", ["mm_out_resized", "dot_out", "addmv_out", "kron_out"])
def test_out_resize_warns(name: str) -> None:
    assert _warnings(FORMS[name], refimpl) == _warnings(FORMS[name], torch)


def test_cross_without_dim_warns() -> None:
    # torch warns once per process (TORCH_WARN_ONCE), so its text comes from a fresh one.
    code = (
        "import warnings, torch\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.cross(torch.ones(2, 3), torch.ones(2, 3))\n"
        "print(repr([str(m.message).partition(' (Triggered internally')[0] for m in w]))\n"
    )
    expected = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    actual = _warnings(lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 2, 3)), refimpl)
    assert repr(actual) == expected


EINSUM: list[tuple[str, tuple[tuple[int, ...], ...]]] = [
    ("ij,jk", ((2, 3), (3, 4))), ("ij,jk->", ((2, 3), (3, 4))), ("ij->ji", ((2, 3),)),
    ("ii", ((3, 3),)), ("ii->i", ((3, 3),)), ("iij->ij", ((3, 3, 2),)), ("ij->", ((3, 3),)),
    ("i,j", ((2,), (3,))), ("i,i,i", ((3,), (3,), (3,))), ("Ab,bA", ((2, 3), (3, 2))),
    ("...ij,...jk->...ik", ((5, 1, 2, 3), (4, 3, 2))), ("...ik, ...j -> ij", ((1, 2, 3), (3,))),
    ("bij,bjk,kl->bil", ((5, 2, 3), (5, 3, 4), (4, 2))), ("ij,ij->ij", ((2, 3), (1, 3))),
    ("i...->...", ((3, 3),)), ("...,...->...", ((2, 3), (3,))), ("->", ((),)),
    ("i j -> j", ((2, 3),)), ("ij,jk", ((2, 0), (0, 4))),
    # errors
    ("", ((2,),)), ("ij", ((2, 3), (3,))), ("ij,jk", ((2, 3),)), ("i1", ((2, 2),)),
    ("i.j", ((2, 2),)), ("i....", ((2, 2),)), ("ij", ((2, 3, 4),)), ("...ijk", ((2, 3),)),
    ("ij->ii", ((2, 3),)), ("ij->k", ((2, 3),)), ("ii", ((2, 3),)), ("ij,ij", ((2, 3), (4, 3))),
    ("ij->->", ((2, 3),)), ("...ij,...jk", ((2, 2, 3), (3, 3, 4))),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(equation: str, shapes: tuple[tuple[int, ...], ...]) -> None:
    _check(lambda lib: lib.einsum(equation, *[_f(lib, *s, seed=i) for i, s in enumerate(shapes)]),
           strides=False)


def test_einsum_sublist_and_list() -> None:
    _check(lambda lib: lib.einsum(_f(lib, 2, 3), [0, 1], _f(lib, 3, 4), [1, 2], [0, 2]))
    _check(lambda lib: lib.einsum(_f(lib, 2, 3), [0, Ellipsis]), strides=False)
    _check(lambda lib: lib.einsum(_f(lib, 2, 3), [0, 60]))
    _check(lambda lib: lib.einsum(_f(lib, 2, 3)))
    _check(lambda lib: lib.einsum("ij,jk", [_f(lib, 2, 3), _f(lib, 3, 4)]))
    _check(lambda lib: lib.functional.einsum("i,i", _f(lib, 3), _f(lib, 3)))


# --- errors --------------------------------------------------------------------------------

D = "float64"


def _d(lib: Any, *shape: int) -> Any:
    return _t(lib, D, *shape)


def _i(lib: Any, *shape: int) -> Any:
    return _t(lib, "int64", *shape)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "mm_1d": lambda lib: lib.mm(_f(lib, 3), _f(lib, 3, 4)),
    "mm_mat2_1d": lambda lib: lib.mm(_f(lib, 2, 3), _f(lib, 3)),
    "mm_shapes": lambda lib: lib.mm(_f(lib, 2, 3), _f(lib, 4, 5)),
    "mm_dtypes": lambda lib: lib.mm(_f(lib, 2, 3), _d(lib, 3, 4)),
    "mm_int_float": lambda lib: lib.mm(_i(lib, 2, 3), _f(lib, 3, 4)),
    "mm_bool": lambda lib: lib.mm(_t(lib, "bool", 2, 3), _t(lib, "bool", 3, 4)),
    "mm_out_dtype": lambda lib: lib.mm(_f(lib, 2, 3), _f(lib, 3, 4), out=_d(lib, 2, 4)),
    "bmm_2d": lambda lib: lib.bmm(_f(lib, 2, 3), _f(lib, 3, 4)),
    "bmm_batch": lambda lib: lib.bmm(_f(lib, 2, 2, 3), _f(lib, 3, 3, 4)),
    "bmm_dtypes": lambda lib: lib.bmm(_f(lib, 2, 2, 3), _d(lib, 2, 3, 4)),
    "bmm_bool": lambda lib: lib.bmm(_t(lib, "bool", 1, 2, 3), _t(lib, "bool", 1, 3, 4)),
    "addmm_self_shape": lambda lib: lib.addmm(_f(lib, 3, 3), _f(lib, 2, 3), _f(lib, 3, 4)),
    "addmm_self_rank": lambda lib: lib.addmm(_f(lib, 1, 2, 4), _f(lib, 2, 3), _f(lib, 3, 4)),
    "addmm_self_dtype": lambda lib: lib.addmm(_d(lib, 2, 4), _f(lib, 2, 3), _f(lib, 3, 4)),
    "addmm_mat1_dtype": lambda lib: lib.addmm(_f(lib, 2, 4), _d(lib, 2, 3), _f(lib, 3, 4)),
    "addmm_1d": lambda lib: lib.addmm(_f(lib, 4), _f(lib, 3), _f(lib, 3, 4)),
    "addmm_complex_alpha": lambda lib: lib.addmm(_f(lib, 2, 4), _f(lib, 2, 3), _f(lib, 3, 4),
                                                 alpha=1j),
    "addmm__broadcast": lambda lib: _f(lib, 4).addmm_(_f(lib, 2, 3), _f(lib, 3, 4)),
    "addmv_shapes": lambda lib: lib.addmv(_f(lib, 2), _f(lib, 2, 3), _f(lib, 4)),
    "addmv_self": lambda lib: lib.addmv(_f(lib, 3), _f(lib, 2, 3), _f(lib, 3)),
    "addmv_ranks": lambda lib: lib.addmv(_f(lib, 1, 2), _f(lib, 2, 3), _f(lib, 3)),
    "addmv_dtypes": lambda lib: lib.addmv(_f(lib, 2), _f(lib, 2, 3), _d(lib, 3)),
    "mv_dtypes": lambda lib: lib.mv(_f(lib, 2, 3), _d(lib, 3)),
    "mv_ranks": lambda lib: lib.mv(_f(lib, 3), _f(lib, 3)),
    "mv_out_dtype": lambda lib: lib.mv(_f(lib, 2, 3), _f(lib, 3), out=_d(lib, 2)),
    "dot_2d": lambda lib: lib.dot(_f(lib, 2, 3), _f(lib, 3)),
    "dot_sizes": lambda lib: lib.dot(_f(lib, 2), _f(lib, 3)),
    "dot_dtypes": lambda lib: lib.dot(_i(lib, 3), _f(lib, 3)),
    "dot_out_dtype": lambda lib: lib.dot(_f(lib, 3), _f(lib, 3), out=_d(lib)),
    "vdot_bool": lambda lib: lib.vdot(_t(lib, "bool", 3), _t(lib, "bool", 3)),
    "addr_vec1": lambda lib: lib.addr(_f(lib, 2, 3), _f(lib, 2, 1), _f(lib, 3)),
    "addr_self": lambda lib: lib.addr(_f(lib, 3, 3), _f(lib, 2), _f(lib, 3)),
    "addr_bool_beta": lambda lib: lib.addr(_i(lib, 2, 2), _i(lib, 2), _i(lib, 2), beta=True),
    "addr_float_alpha": lambda lib: lib.addr(_i(lib, 2, 2), _i(lib, 2), _i(lib, 2), alpha=1.5),
    "addr_out_cast": lambda lib: lib.addr(_f(lib, 2, 3), _f(lib, 2), _f(lib, 3),
                                          out=_i(lib, 2, 3)),
    "addr__rank": lambda lib: _f(lib, 3).addr_(_f(lib, 2), _f(lib, 3)),
    "addbmm_batches": lambda lib: lib.addbmm(_f(lib, 2, 4), _f(lib, 2, 2, 3), _f(lib, 3, 3, 4)),
    "addbmm_inner": lambda lib: lib.addbmm(_f(lib, 2, 4), _f(lib, 2, 2, 3), _f(lib, 2, 4, 4)),
    "addbmm_2d": lambda lib: lib.addbmm(_f(lib, 2, 4), _f(lib, 2, 2, 3), _f(lib, 3, 4)),
    "addbmm_dtypes": lambda lib: lib.addbmm(_f(lib, 2, 4), _d(lib, 2, 2, 3), _f(lib, 2, 3, 4)),
    "addbmm_out_dtype": lambda lib: lib.addbmm(_f(lib, 2, 4), _f(lib, 2, 2, 3), _f(lib, 2, 3, 4),
                                               out=_d(lib, 2, 4)),
    "baddbmm_self_dtype": lambda lib: lib.baddbmm(_d(lib, 2, 2, 4), _f(lib, 2, 2, 3),
                                                  _f(lib, 2, 3, 4)),
    "baddbmm_dtypes": lambda lib: lib.baddbmm(_f(lib, 2, 2, 4), _f(lib, 2, 2, 3),
                                              _d(lib, 2, 3, 4)),
    "baddbmm_self_rank": lambda lib: lib.baddbmm(_f(lib, 1, 2, 2, 4), _f(lib, 2, 2, 3),
                                                 _f(lib, 2, 3, 4)),
    "baddbmm__broadcast": lambda lib: _f(lib, 1, 2, 4).baddbmm_(_f(lib, 2, 2, 3),
                                                                _f(lib, 2, 3, 4)),
    "matmul_0d": lambda lib: lib.matmul(_f(lib), _f(lib, 3)),
    "matmul_shapes": lambda lib: lib.matmul(_f(lib, 2, 3), _f(lib, 4, 5)),
    "matmul_1d": lambda lib: lib.matmul(_f(lib, 3), _f(lib, 4)),
    "matmul_nd": lambda lib: lib.matmul(_f(lib, 5, 2, 3), _f(lib, 5, 4, 5)),
    "matmul_batch": lambda lib: lib.matmul(_f(lib, 5, 2, 3), _f(lib, 4, 3, 5)),
    "matmul_3d_1d": lambda lib: lib.matmul(_f(lib, 5, 3, 5), _f(lib, 4)),
    "matmul_dtypes": lambda lib: lib.matmul(_f(lib, 2, 3), _d(lib, 3, 4)),
    "outer_2d": lambda lib: lib.outer(_f(lib, 2, 3), _f(lib, 3)),
    "inner_sizes": lambda lib: lib.inner(_f(lib, 2, 3), _f(lib, 4)),
    "inner_dtypes": lambda lib: lib.inner(_f(lib, 2, 3), _d(lib, 3)),
    "tensordot_sizes": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 4, 4), dims=1),
    "tensordot_negative": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4), dims=-1),
    "tensordot_too_many": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4), dims=3),
    "tensordot_lengths": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4),
                                                   dims=([1, 0], [0])),
    "tensordot_repeated": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4),
                                                    dims=([1, 1], [0, 0])),
    "tensordot_bad_dims": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4), dims="a"),
    "tensordot_out_dtype": lambda lib: lib.tensordot(_f(lib, 2, 3), _f(lib, 3, 4), dims=1,
                                                     out=_d(lib, 2, 4)),
    "kron_transposed": lambda lib: lib.kron(_f(lib, 3, 2).t(), _f(lib, 2, 2)),
    "cross_sizes": lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 2, 4), dim=1),
    "cross_no_dim3": lambda lib: lib.cross(_f(lib, 2, 4), _f(lib, 2, 4)),
    "cross_dim": lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 2, 3), dim=0),
    "cross_broadcast": lambda lib: lib.cross(_f(lib, 2, 3), _f(lib, 4, 3), dim=1),
    "cross_dtypes": lambda lib: lib.cross(_f(lib, 2, 3), _d(lib, 2, 3), dim=1),
    "cross_bool": lambda lib: lib.cross(_t(lib, "bool", 3), _t(lib, "bool", 3), dim=0),
    "cdist_1d": lambda lib: lib.cdist(_f(lib, 3), _f(lib, 3)),
    "cdist_columns": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 2, 4)),
    "cdist_p": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 2, 3), p=-1),
    "cdist_dtypes": lambda lib: lib.cdist(_f(lib, 2, 3), _d(lib, 2, 3)),
    "cdist_int": lambda lib: lib.cdist(_i(lib, 2, 3), _i(lib, 2, 3)),
    "cdist_mode": lambda lib: lib.cdist(_f(lib, 2, 3), _f(lib, 2, 3), compute_mode="x"),
    "cdist_batch": lambda lib: lib.cdist(_f(lib, 2, 2, 3), _f(lib, 3, 2, 3)),
    "trapezoid_bool": lambda lib: lib.trapezoid(_t(lib, "bool", 3)),
    "trapezoid_x_count": lambda lib: lib.trapezoid(_f(lib, 2, 3), _f(lib, 4)),
    "trapezoid_complex_dx": lambda lib: lib.trapezoid(_f(lib, 3), dx=1j),
    "cumulative_trapezoid_bool": lambda lib: lib.cumulative_trapezoid(_t(lib, "bool", 3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name: str) -> None:
    _, expected_error = outcome(ERRORS[name], torch)
    assert expected_error is not None, "the case must raise in torch"
    _check(ERRORS[name])


def test_inputs_unchanged_on_error() -> None:
    """A failing call writes nothing: every check runs before any write."""
    out = _f(refimpl, 2, 4)
    before = out.tolist()
    with pytest.raises(RuntimeError):
        refimpl.addmm(_f(refimpl, 3, 3), _f(refimpl, 2, 3), _f(refimpl, 3, 4), out=out)
    assert out.tolist() == before
    self = _f(refimpl, 1, 2, 4)
    with pytest.raises(RuntimeError):
        self.baddbmm_(_f(refimpl, 2, 2, 3), _f(refimpl, 2, 3, 4))
    assert self.shape == (1, 2, 4)


def test_return_types_and_meta() -> None:
    """Meta tensors: shapes and dtypes without data (bool mm is refused only with data)."""
    a = refimpl.empty(2, 3, device="meta", dtype=refimpl.bool)
    b = refimpl.empty(3, 4, device="meta", dtype=refimpl.bool)
    expected = torch.mm(torch.empty(2, 3, device="meta", dtype=torch.bool),
                        torch.empty(3, 4, device="meta", dtype=torch.bool))
    result = refimpl.mm(a, b)
    assert tuple(result.shape) == tuple(expected.shape) and result.is_meta
    m = refimpl.matmul(refimpl.empty(5, 2, 3, device="meta"), refimpl.empty(3, 4, device="meta"))
    assert tuple(m.shape) == (5, 2, 4) and m.is_meta


# --- matmul on drawn ranks, batches and layouts ------------------------------------------


@st.composite
def _matmul_operands(draw: st.DrawFn) -> tuple[tuple[int, ...], bool, tuple[int, ...], bool]:
    """Two shapes matmul accepts (batch dims broadcast, some of size 1), and whether each
    operand is a transposed (mT) view of a contiguous tensor."""
    n, k, m = (draw(st.integers(0, 3)) for _ in range(3))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    rank_a, rank_b = draw(st.integers(1, 2 + len(batch))), draw(st.integers(1, 2 + len(batch)))

    def shape(rank: int, rows: int, cols: int, vector: int) -> tuple[int, ...]:
        if rank == 1:
            return (vector,)
        lead = [b if draw(st.booleans()) else 1 for b in batch][len(batch) - (rank - 2):]
        return (*lead, rows, cols)

    a = shape(rank_a, n, k, k)
    b = shape(rank_b, k, m, k)
    return a, len(a) > 1 and draw(st.booleans()), b, len(b) > 1 and draw(st.booleans())


def _operand(lib: Any, dtype: str, shape: tuple[int, ...], transposed: bool, seed: int) -> Any:
    if not transposed:
        return _t(lib, dtype, *shape, seed=seed)
    return _t(lib, dtype, *shape[:-2], shape[-1], shape[-2], seed=seed).mT


@settings(max_examples=60, deadline=None, derandomize=True)
@given(operands=_matmul_operands(), dtype=st.sampled_from(["float32", "int64"]))
def test_matmul_drawn(
    operands: tuple[tuple[int, ...], bool, tuple[int, ...], bool], dtype: str
) -> None:
    a, a_t, b, b_t = operands
    _check(lambda lib: lib.matmul(_operand(lib, dtype, a, a_t, 0), _operand(lib, dtype, b, b_t, 1)))
