"""torch.masked against torch, for what the OpInfos leave out: mask broadcasting and non-bool
masks, fully masked-out slices (the identities, NaN, and median's refusal), keepdim and the
dim forms (None, (), [], negative, tuples), dtype= and the default result dtypes, 0-dim and
non-contiguous inputs, the error types and texts, second derivatives, torch's private helpers
(`_input_mask`, `_output_mask`, ...), the signatures, and the aten overloads a
TorchDispatchMode sees forward and backward.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message, refimpl's dtype names read as torch's), or the result's dtype, shape, strides and
values.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import STORED_DTYPES, outcome

_RNG = np.random.default_rng(4321)
_DATA = _RNG.standard_normal(120).round(3).tolist()
_POSITIVE = _RNG.uniform(0.5, 2.0, 120).round(3).tolist()
_INTS = _RNG.integers(-20, 20, 120).tolist()


def _t(lib: Any, shape: tuple[int, ...], dtype: str = "float64", rg: bool = False,
       positive: bool = False) -> Any:
    """A tensor of `shape` filled from the shared data (integers for integral dtypes)."""
    n = math.prod(shape)
    if dtype in ("int8", "int16", "int32", "int64"):
        values: list[Any] = _INTS[:n]
    elif dtype == "uint8":
        values = [abs(v) for v in _INTS[:n]]
    elif dtype == "bool":
        values = [v > 0 for v in _INTS[:n]]
    else:
        values = (_POSITIVE if positive else _DATA)[:n]
    t = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return t.requires_grad_() if rg else t


def _m(lib: Any, values: list[Any], shape: tuple[int, ...] | None = None,
       dtype: str = "bool") -> Any:
    t = lib.tensor(values, dtype=getattr(lib, dtype))
    return t.reshape(shape) if shape is not None else t


# A (3, 4) mask whose second row is fully masked out, and a (4,) mask broadcast over rows.
_ROWS = [True, False, True, True, False, False, False, False, True, True, False, True]
_COLS = [True, False, True, False]


def _rows(lib: Any) -> Any:
    return _m(lib, _ROWS, (3, 4))


def _cols(lib: Any) -> Any:
    return _m(lib, _COLS)


def _M(lib: Any) -> Any:
    return lib.masked


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    if expected is None:
        assert actual is None
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.device.type == expected.device.type
    if expected.device.type == "meta":
        return
    kind = np.complex128 if expected.dtype.is_complex else np.float64
    e = np.asarray(expected.detach().tolist(), dtype=kind)
    a = np.asarray(actual.detach().tolist(), dtype=kind)
    if str(expected.dtype) in ("torch.float16", "torch.complex32"):
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=1e-3, equal_nan=True)
    elif str(expected.dtype) in ("torch.float32", "torch.complex64"):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12, equal_nan=True)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        # refimpl's dtypes and sizes print as refimpl.int64 / refimpl.Size.
        message = str(actual_error).replace("refimpl.", "torch.")
        assert (type(actual_error), message) == (type(expected_error), str(expected_error))
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


def _prod_returns_input(lib: Any) -> Any:
    # torch.masked.prod of a 0-dim input without a mask reduces no dim: `.to` returns it.
    x = _t(lib, ())
    return lib.tensor(_M(lib).prod(x) is x)


# --- forward values, dtypes and errors ---------------------------------------------------------

_IDENTITY_REDUCTIONS = ("sum", "prod", "amax", "amin", "logsumexp")
_NAN_REDUCTIONS = ("mean", "var", "std")
_NORMALIZATIONS = ("softmax", "log_softmax", "softmin")

CASES: list[tuple[str, Callable[[Any], Any]]] = []

# Fully masked-out rows: the identities, NaN, and each dim form with and without keepdim.
for _op in (*_IDENTITY_REDUCTIONS, *_NAN_REDUCTIONS):
    for _keep in (False, True):
        for _dim in (1, -1, (0, 1), None, ()):
            CASES.append((f"{_op}-rows-dim{_dim}-keep{_keep}", lambda lib, o=_op, d=_dim, k=_keep:
                          getattr(_M(lib), o)(_t(lib, (3, 4)), d, keepdim=k, mask=_rows(lib))))
    CASES.append((f"{_op}-cols-bcast", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 0, mask=_cols(lib))))
    CASES.append((f"{_op}-nomask", lambda lib, o=_op: getattr(_M(lib), o)(_t(lib, (3, 4)), 1)))
    CASES.append((f"{_op}-0dim", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, ()), mask=_m(lib, [False], ()))))
    CASES.append((f"{_op}-noncontig", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (4, 3)).t(), 1, mask=_rows(lib))))
    # Differs: torch.logsumexp(x, []) raises (its in-place add of the kept max); refimpl's
    # logsumexp reduces every dim. An ops-layer difference, not torch.masked's.
    if _op != "logsumexp":
        CASES.append((f"{_op}-empty-list-dim", lambda lib, o=_op: getattr(_M(lib), o)(
            _t(lib, (3, 4)), [], mask=_rows(lib))))
    CASES.append((f"{_op}-dup-dim", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), (1, -1), mask=_rows(lib))))
    CASES.append((f"{_op}-bad-dim", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 2, mask=_rows(lib))))
    CASES.append((f"{_op}-mask-ndim", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (4,)), 0, mask=_rows(lib))))
    CASES.append((f"{_op}-mask-shape", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 0, mask=_m(lib, [True, False, True]))))
    CASES.append((f"{_op}-int-mask", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 1, mask=_m(lib, [1, 0, 2, 0], dtype="int64"))))
    CASES.append((f"{_op}-float-mask-same-shape", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 1, mask=_m(lib, [float(v) for v in _ROWS], (3, 4), "float32"))))
    CASES.append((f"{_op}-f32", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4), "float32"), 1, mask=_rows(lib))))

# Integral inputs: the dtype's min / max as identities, int64 accumulation, float results.
for _dtype in ("bool", "uint8", "int8", "int16", "int32", "int64"):
    for _op in ("sum", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "var", "std",
                "mean", "median", "norm", "cumsum", "cumprod"):
        _args: tuple[Any, ...] = (2.0, 1) if _op == "norm" else (1,)
        CASES.append((f"{_op}-{_dtype}", lambda lib, o=_op, t=_dtype, a=_args: getattr(
            _M(lib), o)(_t(lib, (3, 4), t), *a, mask=_rows(lib))))
        CASES.append((f"{_op}-{_dtype}-partial", lambda lib, o=_op, t=_dtype, a=_args: getattr(
            _M(lib), o)(_t(lib, (3, 4), t), *a, mask=_cols(lib))))

# Complex inputs where torch.masked takes them.
for _op in ("sum", "prod", "mean", "var", "std", "logsumexp", "cumsum", "cumprod", "amax"):
    CASES.append((f"{_op}-complex", lambda lib, o=_op: getattr(_M(lib), o)(
        lib.complex(_t(lib, (3, 4)), _t(lib, (4, 3)).t()), 1, mask=_rows(lib))))

CASES += [
    # dtype=
    ("sum-dtype", lambda lib: _M(lib).sum(_t(lib, (3, 4), "int32"), 1, dtype=lib.float32,
                                          mask=_rows(lib))),
    ("prod-dtype", lambda lib: _M(lib).prod(_t(lib, (3, 4)), 1, dtype=lib.float32)),
    ("amax-dtype", lambda lib: _M(lib).amax(_t(lib, (3, 4)), 1, dtype=lib.float32,
                                            mask=_rows(lib))),
    ("argmax-dtype", lambda lib: _M(lib).argmax(_t(lib, (3, 4)), 1, dtype=lib.int64,
                                                mask=_rows(lib))),
    ("argmax-nodim", lambda lib: _M(lib).argmax(_t(lib, (3, 4)), mask=_rows(lib))),
    ("argmin-keepdim", lambda lib: _M(lib).argmin(_t(lib, (3, 4)), 0, keepdim=True,
                                                  mask=_cols(lib))),
    ("mean-dtype", lambda lib: _M(lib).mean(_t(lib, (3, 4), "float32"), 1, dtype=lib.float64,
                                            mask=_rows(lib))),
    ("mean-int-dtype", lambda lib: _M(lib).mean(_t(lib, (3, 4)), 1, dtype=lib.int64)),
    ("mean-int-input", lambda lib: _M(lib).mean(_t(lib, (3, 4), "int64"), 1)),
    ("var-dtype", lambda lib: _M(lib).var(_t(lib, (3, 4)), 1, dtype=lib.float32,
                                          mask=_rows(lib))),
    ("var-int-dtype", lambda lib: _M(lib).var(_t(lib, (3, 4)), 1, dtype=lib.int64,
                                              mask=_cols(lib))),
    ("var-unbiased-false", lambda lib: _M(lib).var(_t(lib, (3, 4)), 1, False, mask=_rows(lib))),
    ("var-correction", lambda lib: _M(lib).var(_t(lib, (3, 4)), 1, correction=2.5,
                                               keepdim=True, mask=_cols(lib))),
    ("std-correction0", lambda lib: _M(lib).std(_t(lib, (3, 4)), None, correction=0,
                                                mask=_rows(lib))),
    ("var-both", lambda lib: _M(lib).var(_t(lib, (3, 4)), 1, True, correction=1)),
    ("cumsum-dtype", lambda lib: _M(lib).cumsum(_t(lib, (3, 4), "int32"), 1, dtype=lib.float64,
                                                mask=_rows(lib))),
    ("cumprod-neg-dim", lambda lib: _M(lib).cumprod(_t(lib, (3, 4)), -2, mask=_cols(lib))),
    ("cumsum-bad-dim", lambda lib: _M(lib).cumsum(_t(lib, (3, 4)), 3, mask=_cols(lib))),
    ("median-keepdim", lambda lib: _M(lib).median(_t(lib, (3, 4)), 0, keepdim=True,
                                                  mask=_cols(lib))),
    ("median-default-dim", lambda lib: _M(lib).median(_t(lib, (3, 4)), mask=_rows(lib))),
    ("median-dtype-ignored", lambda lib: _M(lib).median(_t(lib, (3, 4)), 1, dtype=lib.float32,
                                                        mask=_rows(lib))),
    ("median-int-dtype", lambda lib: _M(lib).median(_t(lib, (3, 4), "int32"), 1,
                                                    dtype=lib.int64, mask=_cols(lib))),
    ("norm-ord", lambda lib: [_M(lib).norm(_t(lib, (3, 4)), p, 1, mask=_rows(lib))
                              for p in (1.0, 2.0, 3.5, 0.0, math.inf, -math.inf)]),
    ("norm-keepdim-dims", lambda lib: _M(lib).norm(_t(lib, (3, 4)), 2.0, (0, 1), keepdim=True,
                                                   mask=_cols(lib))),
    ("norm-dtype", lambda lib: _M(lib).norm(_t(lib, (3, 4), "float32"), 2.0, 1,
                                            dtype=lib.float64, mask=_rows(lib))),
    ("norm-ninf-int", lambda lib: _M(lib).norm(_t(lib, (3, 4), "int64"), -math.inf, 1,
                                               mask=_rows(lib))),
    ("normalize", lambda lib: [_M(lib).normalize(_t(lib, (3, 4)), p, d, mask=_rows(lib))
                               for p in (1.0, 2.0, math.inf) for d in (0, 1)]),
    ("normalize-eps", lambda lib: _M(lib).normalize(_t(lib, (3, 4)), 2.0, 1, eps=10.0,
                                                    mask=_cols(lib))),
    ("normalize-nomask", lambda lib: _M(lib).normalize(_t(lib, (3, 4)), 2.0, -1)),
    ("normalize-complex", lambda lib: _M(lib).normalize(
        lib.complex(_t(lib, (3, 4)), _t(lib, (4, 3)).t()), 2.0, 1, mask=_rows(lib))),
    ("logaddexp", lambda lib: _M(lib).logaddexp(
        _t(lib, (3, 4)), _t(lib, (4, 3)).t(), input_mask=_rows(lib), other_mask=_cols(lib))),
    ("logaddexp-one-mask", lambda lib: _M(lib).logaddexp(
        _t(lib, (3, 4)), _t(lib, (4,)), other_mask=_m(lib, [True, False, False, True]))),
    ("logaddexp-dtype", lambda lib: _M(lib).logaddexp(
        _t(lib, (3, 4), "float32"), _t(lib, (3, 4)), dtype=lib.float16 if "float16" in
        STORED_DTYPES else lib.float32, input_mask=_rows(lib), other_mask=_rows(lib))),
    ("amax-bool-mask", lambda lib: _M(lib).amax(_t(lib, (3, 4), "bool"), 1, mask=_rows(lib))),
    ("amax-complex-mask", lambda lib: _M(lib).amax(
        lib.complex(_t(lib, (3, 4)), _t(lib, (3, 4))), 1, mask=_rows(lib))),
    ("prod-0dim-alias", lambda lib: _prod_returns_input(lib)),
]
for _op in _NORMALIZATIONS:
    for _dim in (0, 1, -1):
        CASES.append((f"{_op}-rows-dim{_dim}", lambda lib, o=_op, d=_dim: getattr(_M(lib), o)(
            _t(lib, (3, 4)), d, mask=_rows(lib))))
    CASES.append((f"{_op}-cols", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), 1, mask=_cols(lib))))
    CASES.append((f"{_op}-dtype", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4), "float32"), 1, dtype=lib.float64, mask=_rows(lib))))
    CASES.append((f"{_op}-nomask", lambda lib, o=_op: getattr(_M(lib), o)(_t(lib, (3, 4)), 0)))
    CASES.append((f"{_op}-bad-dim", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)), -3, mask=_rows(lib))))
    CASES.append((f"{_op}-noncontig", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (4, 3)).t(), 1, mask=_cols(lib))))
    CASES.append((f"{_op}-meta", lambda lib, o=_op: getattr(_M(lib), o)(
        _t(lib, (3, 4)).to("meta"), 1, mask=_rows(lib).to("meta"))))
for _op in ("sum", "amax", "mean", "var", "norm", "cumsum"):
    _args = (2.0, 1) if _op == "norm" else (1,)
    CASES.append((f"{_op}-meta", lambda lib, o=_op, a=_args: getattr(_M(lib), o)(
        _t(lib, (3, 4)).to("meta"), *a, mask=_rows(lib).to("meta"))))


@pytest.mark.parametrize(("name", "fn"), CASES, ids=[name for name, _ in CASES])
def test_matches_torch(name: str, fn: Callable[[Any], Any]) -> None:
    _check(fn)


# --- torch's private helpers (its OpInfo gradcheck wrappers call them) --------------------------

HELPER_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("input-mask", lambda lib: lib.masked._input_mask(_t(lib, (3, 4)), mask=_cols(lib))),
    ("input-mask-extra-args", lambda lib: lib.masked._input_mask(
        _t(lib, (3, 4)), 1, keepdim=True, dtype=None, mask=_m(lib, [1, 0, 0, 3], dtype="int64"))),
    ("input-mask-none", lambda lib: lib.masked._input_mask(_t(lib, (3, 4)))),
    ("input-mask-ndim", lambda lib: lib.masked._input_mask(_t(lib, (4,)), mask=_rows(lib))),
    ("output-mask-reductions", lambda lib: [
        lib.masked._output_mask(getattr(lib.masked, o), _t(lib, (3, 4)), 1, mask=_rows(lib))
        for o in ("sum", "amax", "mean", "var", "median", "logsumexp")]),
    ("output-mask-keepdim-dims", lambda lib: lib.masked._output_mask(
        lib.masked.sum, _t(lib, (3, 4)), (0, 1), keepdim=True, mask=_cols(lib))),
    ("output-mask-kw-dim", lambda lib: lib.masked._output_mask(
        lib.masked.prod, _t(lib, (3, 4)), dim=0, mask=_cols(lib))),
    ("output-mask-norm", lambda lib: lib.masked._output_mask(
        lib.masked.norm, _t(lib, (3, 4)), 2.0, 1, mask=_rows(lib))),
    ("output-mask-normalization", lambda lib: [
        lib.masked._output_mask(getattr(lib.masked, o), _t(lib, (3, 4)), 1, mask=_cols(lib))
        for o in ("softmax", "log_softmax", "softmin", "cumsum", "cumprod")]),
    ("output-mask-other", lambda lib: lib.masked._output_mask(
        lib.masked.logaddexp, _t(lib, (3, 4)), mask=_rows(lib))),
    ("output-mask-not-callable", lambda lib: lib.masked._output_mask(
        "sum", _t(lib, (3, 4)), mask=_rows(lib))),
    ("canonical-dim", lambda lib: [lib.tensor(list(lib.masked._canonical_dim(d, n)))
                                   for d, n in (((1, 0), 2), (None, 3), ((), 2), (-1, 0))]),
    ("canonical-dim-dup", lambda lib: lib.masked._canonical_dim((0, 1, 0), 2)),
    ("canonical-dim-wrapped-dup", lambda lib: lib.tensor(list(lib.masked._canonical_dim(
        (0, -2), 2)))),
    ("reduction-identity", lambda lib: [
        lib.masked._reduction_identity(o, _t(lib, (2,), t))
        for o in ("sum", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "median",
                  "norm", "cumsum", "cumprod", "logaddexp")
        for t in ("float32", "int16", "uint8")]),
    ("reduction-identity-none", lambda lib: [
        lib.masked._reduction_identity(o, _t(lib, (2,))) for o in ("mean", "var", "std")]),
    ("reduction-identity-unknown", lambda lib: lib.masked._reduction_identity(
        "masked.cummax", _t(lib, (2,)))),
    ("combine", lambda lib: lib.masked._combine_input_and_mask(
        lib.masked.amin, _t(lib, (3, 4)), _cols(lib))),
    ("combine-norm-ninf", lambda lib: lib.masked._combine_input_and_mask(
        lib.masked.norm, _t(lib, (3, 4)), _cols(lib), -math.inf)),
    ("where", lambda lib: lib.masked._where(_rows(lib), _t(lib, (3, 4)), lib.tensor(7.0))),
]


@pytest.mark.parametrize(("name", "fn"), HELPER_CASES, ids=[name for name, _ in HELPER_CASES])
def test_helpers_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    _check(fn)


# --- first and second derivatives --------------------------------------------------------------


def _grads(fn: Callable[[Any, Any], Any], lib: Any, order: int, positive: bool) -> list[Any]:
    """First or second (the gradient of the weighted first gradient) derivatives of
    `fn(lib, x)` with respect to x, with the masked-out outputs zeroed as torch's gradcheck
    wrapper for masked operations does (they may be infinite)."""
    x = _t(lib, (3, 4), rg=True, positive=positive)
    out = fn(lib, x)
    out = lib.where(lib.isfinite(out), out, out.new_zeros([]))
    weights = lib.tensor(_DATA[: out.numel()], dtype=out.dtype).reshape(out.shape)
    (first,) = lib.autograd.grad((out * weights).sum(), [x], create_graph=order == 2)
    if order == 1:
        return [first]
    if not first.requires_grad:  # a linear op: no second derivative to take
        return [None]
    return list(lib.autograd.grad((first * (x.detach() + 1.5)).sum(), [x], allow_unused=True))


GRAD_CASES: list[tuple[str, Callable[[Any, Any], Any], bool]] = []
for _op in (*_IDENTITY_REDUCTIONS, *_NAN_REDUCTIONS):
    GRAD_CASES.append((f"{_op}-rows", lambda lib, x, o=_op: getattr(_M(lib), o)(
        x, 1, mask=_rows(lib)), _op == "prod"))
    GRAD_CASES.append((f"{_op}-cols-keepdim", lambda lib, x, o=_op: getattr(_M(lib), o)(
        x, 0, keepdim=True, mask=_cols(lib)), _op == "prod"))
for _op in (*_NORMALIZATIONS, "cumsum", "cumprod"):
    GRAD_CASES.append((f"{_op}-rows", lambda lib, x, o=_op: getattr(_M(lib), o)(
        x, 1, mask=_rows(lib)), _op == "cumprod"))
GRAD_CASES += [
    ("median", lambda lib, x: _M(lib).median(x, 1, mask=_cols(lib)), False),
    ("norm-2", lambda lib, x: _M(lib).norm(x, 2.0, 1, mask=_rows(lib)), False),
    ("norm-3", lambda lib, x: _M(lib).norm(x, 3.0, 0, mask=_cols(lib)), True),
    ("normalize", lambda lib, x: _M(lib).normalize(x, 2.0, 1, mask=_rows(lib)), False),
    ("logaddexp", lambda lib, x: _M(lib).logaddexp(
        x, x.t().reshape(3, 4) * 0.5, input_mask=_rows(lib), other_mask=_cols(lib)), False),
    ("var-int-correction", lambda lib, x: _M(lib).var(x, None, correction=2, mask=_rows(lib)),
     False),
]


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize(("name", "fn", "positive"), GRAD_CASES,
                         ids=[name for name, _, _ in GRAD_CASES])
def test_gradients_match_torch(name: str, fn: Callable[[Any, Any], Any], positive: bool,
                               order: int) -> None:
    expected = _grads(fn, torch, order, positive)
    actual = _grads(fn, refimpl, order, positive)
    _same(expected, actual)


# --- the aten calls a TorchDispatchMode sees -------------------------------------------------

MODE_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("sum", lambda lib: _M(lib).sum(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("sum-int", lambda lib: _M(lib).sum(_t(lib, (3, 4), "int32"), mask=_rows(lib))),
    ("prod", lambda lib: _M(lib).prod(_t(lib, (3, 4), rg=True), (0, 1), mask=_cols(lib))),
    ("amax", lambda lib: _M(lib).amax(_t(lib, (3, 4), rg=True), 1, mask=_rows(lib))),
    ("argmin", lambda lib: _M(lib).argmin(_t(lib, (3, 4)), 1, mask=_rows(lib))),
    ("mean", lambda lib: _M(lib).mean(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("mean-nomask", lambda lib: _M(lib).mean(_t(lib, (3, 4), rg=True), 1)),
    ("median", lambda lib: _M(lib).median(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("norm", lambda lib: _M(lib).norm(_t(lib, (3, 4), rg=True), 2.0, 1, mask=_cols(lib))),
    ("var", lambda lib: _M(lib).var(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("std-nomask", lambda lib: _M(lib).std(_t(lib, (3, 4), rg=True), 0, keepdim=True)),
    ("softmax", lambda lib: _M(lib).softmax(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("log_softmax", lambda lib: _M(lib).log_softmax(_t(lib, (3, 4), rg=True), 1,
                                                    mask=_cols(lib))),
    ("softmin", lambda lib: _M(lib).softmin(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("normalize", lambda lib: _M(lib).normalize(_t(lib, (3, 4), rg=True), 2.0, 1,
                                                mask=_cols(lib))),
    ("logsumexp", lambda lib: _M(lib).logsumexp(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("cumsum", lambda lib: _M(lib).cumsum(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("cumprod", lambda lib: _M(lib).cumprod(_t(lib, (3, 4), rg=True), 1, mask=_cols(lib))),
    ("logaddexp", lambda lib: _M(lib).logaddexp(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4)), input_mask=_cols(lib),
        other_mask=_rows(lib))),
]


# Differs: under a TorchDispatchMode torch's prod and cumprod backward take their
# composite-compliant formulas (isTensorSubclassLike is true while a mode is active); refimpl's
# derivatives do not switch. An autograd-layer difference, so only the forward is compared.
_FORWARD_ONLY = frozenset({"prod", "cumprod"})


@pytest.mark.parametrize(("name", "fn"), MODE_CASES, ids=[name for name, _ in MODE_CASES])
def test_aten_calls_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    def calls(lib: Any) -> tuple[list[str], list[str]]:
        forward, result = aten_calls(lib, lambda: fn(lib))
        if not result.requires_grad or name in _FORWARD_ONLY:
            return forward, []
        finite = lib.where(lib.isfinite(result), result, result.new_zeros([]))
        backward, _ = aten_calls(lib, lambda: finite.sum().backward())
        return forward, backward

    assert calls(refimpl) == calls(torch)


@pytest.mark.parametrize(("name", "fn"), MODE_CASES, ids=[name for name, _ in MODE_CASES])
def test_torch_function_calls_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    # torch's masked functions are not overridable: a TorchFunctionMode is told of each torch.*
    # function and Tensor method they call. Differs: the property reads (`input.layout`, ...
    # of torch's sparse branches) are not compared, nor torch.is_signed (an integral input's
    # identity), which refimpl reads from the dtype.
    def calls(lib: Any) -> list[str]:
        seen = function_calls(lib, lambda: fn(lib))[0]
        return [c for c, _ in seen if not c.endswith("__get__") and c != "torch.is_signed"]

    assert calls(refimpl) == calls(torch)


def test_subclass_results_match_torch() -> None:
    # A subclass input gives a subclass result, through the inner torch.* calls' protocol.
    def types(lib: Any) -> list[str]:
        class Sub(lib.Tensor):  # type: ignore[misc]
            pass

        x = _t(lib, (3, 4)).as_subclass(Sub)
        return [type(getattr(_M(lib), o)(x, 1, mask=_rows(lib))).__name__
                for o in (*_IDENTITY_REDUCTIONS, *_NAN_REDUCTIONS, *_NORMALIZATIONS, "median")]

    assert types(refimpl) == types(torch)


def test_signatures_match_torch() -> None:
    for name in refimpl.masked.__all__:
        ours = inspect.signature(getattr(refimpl.masked, name)).parameters.values()
        theirs = inspect.signature(getattr(torch.masked, name)).parameters.values()
        assert [(p.name, p.kind, p.default) for p in ours] == [
            (p.name, p.kind, p.default) for p in theirs
        ], name


def test_names_match_torch() -> None:
    # Differs: torch.masked's MaskedTensor and its constructors are not in refimpl.
    absent = {"MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"}
    assert sorted(refimpl.masked.__all__) == sorted(set(torch.masked.__all__) - absent)
    assert refimpl.masked._ops.sum is refimpl.masked.sum
