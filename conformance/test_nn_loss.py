"""The losses against torch, for what the OpInfos leave out: every reduction mode, the legacy
size_average/reduce arguments, weights, ignore_index, label smoothing, K-dimensional inputs,
non-contiguous inputs, out= forms, the aten ops themselves (nll_loss_forward / nll_loss2d_forward
with their total_weight, the backward ops), error texts, warnings, first and second gradients,
and the aten overloads a TorchDispatchMode sees forward and backward.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the result's dtype, shape, strides and values.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import outcome
from refimpl.ops._register import registered_overloads

# Ops of other families these losses call (F.multilabel_soft_margin_loss and the pos_weight
# gradient of binary_cross_entropy_with_logits: log_sigmoid; F.linear_cross_entropy: linear):
# their cases run once those exist.
_HAS_LOG_SIGMOID = "aten::log_sigmoid_forward" in registered_overloads()
_HAS_LINEAR = "aten::linear" in registered_overloads()
_NEEDS: dict[str, bool] = {
    "multilabel": _HAS_LOG_SIGMOID,
    "bce-logits-pw": _HAS_LOG_SIGMOID,  # its target gradient with pos_weight
    "linear-ce": _HAS_LINEAR,
}


def _params(cases: list[tuple[str, Callable[[Any], Any]]]) -> list[Any]:
    """pytest params, skipped where the case needs an op of another family refimpl lacks."""
    return [
        pytest.param(
            name, fn, id=name,
            marks=[pytest.mark.skip(reason="needs another family's op")]
            if any(name.startswith(k) and not ok for k, ok in _NEEDS.items()) else [],
        )
        for name, fn in cases
    ]

_RNG = np.random.default_rng(1234)
_DATA = {n: _RNG.standard_normal(240).tolist() for n in ("a", "b", "c")}
_UNIT = {n: _RNG.uniform(0.05, 0.95, 240).tolist() for n in ("p", "q", "w")}


def _t(lib: Any, shape: tuple[int, ...], key: str = "a", dtype: str = "float64", rg: bool = False) -> Any:
    values = (_DATA | _UNIT)[key][: math.prod(shape)]
    t = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return t.requires_grad_() if rg else t


def _idx(lib: Any, values: list[Any], shape: tuple[int, ...] | None = None) -> Any:
    t = lib.tensor(values, dtype=lib.int64)
    return t.reshape(shape) if shape is not None else t


def _F(lib: Any) -> Any:
    return lib.nn.functional


def _A(lib: Any) -> Any:
    return lib.ops.aten


def _array(t: Any) -> np.ndarray:
    if t.device.type == "meta":
        return np.empty(0)
    return np.asarray(t.detach().to(getattr(type(t), "__module__", "") and t.dtype).tolist())


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
    if not expected._is_zerotensor():
        assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.device.type == expected.device.type
    if expected.device.type == "meta":
        return
    if expected._is_zerotensor():
        # torch's efficient zeros (sgn's second derivative) hold no storage.
        e = np.zeros(tuple(expected.shape))
    else:
        e = np.asarray(expected.detach().tolist(), dtype=np.float64)
    a = np.asarray(actual.detach().tolist(), dtype=np.float64)
    if str(expected.dtype) == "torch.float16":
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=1e-3, equal_nan=True)
    elif str(expected.dtype) == "torch.float32":
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12, equal_nan=True)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        # refimpl's Size prints as refimpl.Size where torch's prints torch.Size.
        message = str(actual_error).replace("refimpl.Size", "torch.Size")
        assert (type(actual_error), message) == (type(expected_error), str(expected_error))
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


# --- forward values and errors ---------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")
_ELEMENTWISE = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss")

CASES: list[tuple[str, Callable[[Any], Any]]] = []
for _name in _ELEMENTWISE:
    for _red in _REDUCTIONS:
        CASES.append((f"{_name}-{_red}", lambda lib, n=_name, r=_red: getattr(_F(lib), n)(
            _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction=r)))
        CASES.append((f"{_name}-{_red}-f32-noncontig", lambda lib, n=_name, r=_red: getattr(
            _F(lib), n)(_t(lib, (4, 3), dtype="float32").t(), _t(lib, (3, 4), "b", "float32"),
            reduction=r)))
        CASES.append((f"{_name}-{_red}-f16", lambda lib, n=_name, r=_red: getattr(_F(lib), n)(
            _t(lib, (3, 4), dtype="float16"), _t(lib, (3, 4), "b", "float16"), reduction=r)))
        CASES.append((f"{_name}-{_red}-meta", lambda lib, n=_name, r=_red: getattr(_F(lib), n)(
            _t(lib, (3, 4)).to("meta"), _t(lib, (3, 4), "b").to("meta"), reduction=r)))
    CASES.append((f"{_name}-long", lambda lib, n=_name: getattr(_A(lib), n).default(
        _idx(lib, [1, 2]), _idx(lib, [2, 2]))))
    CASES.append((f"{_name}-empty-mean", lambda lib, n=_name: getattr(_A(lib), n).default(
        _t(lib, (0, 3)), _t(lib, (0, 3)), 1)))
    CASES.append((f"{_name}-mixed", lambda lib, n=_name: getattr(_A(lib), n).default(
        _t(lib, (3, 4), dtype="float32"), _t(lib, (3, 4), "b"), 0)))
    CASES.append((f"{_name}-legacy", lambda lib, n=_name: getattr(_F(lib), n)(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), size_average=False)
        if n != "huber_loss" else getattr(_F(lib), n)(_t(lib, (2,)), _t(lib, (2,), "b"))))
    for _red in ("mean", "sum"):
        CASES.append((f"{_name}-out-{_red}", lambda lib, n=_name, r=_red: getattr(
            _A(lib), n).out(_t(lib, (3, 4)), _t(lib, (3, 4), "b"),
                            {"mean": 1, "sum": 2}[r], out=_t(lib, (5,), "c"))))
    for _red in (0, 1):
        CASES.append((f"{_name}-out-dtype-{_red}", lambda lib, n=_name, r=_red: getattr(
            _A(lib), n).out(_t(lib, (3, 4)), _t(lib, (3, 4), "b"), r,
                            out=lib.empty(0, dtype=lib.float32))))
        CASES.append((f"{_name}-out-long-{_red}", lambda lib, n=_name, r=_red: getattr(
            _A(lib), n).out(_t(lib, (3, 4)), _t(lib, (3, 4), "b"), r,
                            out=lib.empty(0, dtype=lib.int64))))
    CASES.append((f"{_name}-out-none", lambda lib, n=_name: getattr(_A(lib), n).out(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), 0, out=lib.empty(0, dtype=lib.float64))))
CASES += [
    ("mse-broadcast", lambda lib: _F(lib).mse_loss(_t(lib, (3, 4)), _t(lib, (4,), "b"))),
    ("mse-weight", lambda lib: [_F(lib).mse_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction=r, weight=_t(lib, (3, 4), "w"))
        for r in _REDUCTIONS]),
    ("mse-weight-size", lambda lib: _F(lib).mse_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), weight=_t(lib, (4,), "w"))),
    ("mse-weight-reduction", lambda lib: _F(lib).mse_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction="bad", weight=_t(lib, (3, 4), "w"))),
    ("mse-bad-reduction", lambda lib: _F(lib).mse_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction="bad")),
    ("mse-assert", lambda lib: _A(lib).mse_loss.default(_t(lib, (3,)), _t(lib, (3,), "b"), 7)),
    ("l1-weight", lambda lib: [_F(lib).l1_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction=r, weight=_t(lib, (3, 4), "w"))
        for r in _REDUCTIONS]),
    ("huber-weight", lambda lib: [_F(lib).huber_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), reduction=r, delta=0.5,
        weight=_t(lib, (3, 4), "w")) for r in _REDUCTIONS]),
    ("huber-delta", lambda lib: _F(lib).huber_loss(_t(lib, (3,)), _t(lib, (3,), "b"), delta=0.0)),
    ("huber-mixed-dtype", lambda lib: _F(lib).huber_loss(
        _t(lib, (3,), dtype="float32"), _t(lib, (3,), "b"), delta=0.3)),
    ("smooth-beta", lambda lib: [_F(lib).smooth_l1_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), beta=b) for b in (0.0, 0.25, 3.0)]),
    ("smooth-beta-neg", lambda lib: _A(lib).smooth_l1_loss.default(
        _t(lib, (3,)), _t(lib, (3,), "b"), 1, -1.0)),
    ("soft-margin-broadcast-none", lambda lib: _A(lib).soft_margin_loss.default(
        _t(lib, (4,)), _t(lib, (3, 4), "b"), 0)),
    ("soft-margin-bool", lambda lib: _A(lib).soft_margin_loss.default(
        lib.tensor([True, False]), _t(lib, (2,), "b"), 1)),
    ("soft-margin-long-float-target", lambda lib: _A(lib).soft_margin_loss.default(
        _idx(lib, [1, 2]), _t(lib, (2,), "b"), 1)),
    ("soft-margin-long", lambda lib: _A(lib).soft_margin_loss.default(
        _idx(lib, [1, 2]), _idx(lib, [1, 2]), 1)),
    ("bce", lambda lib: [_F(lib).binary_cross_entropy(_t(lib, (3, 4), "p"), _t(lib, (3, 4), "q"),
                                                      reduction=r) for r in _REDUCTIONS]),
    ("bce-weight", lambda lib: [_F(lib).binary_cross_entropy(
        _t(lib, (3, 4), "p"), _t(lib, (3, 4), "q"), weight=_t(lib, (4,), "w"), reduction=r)
        for r in _REDUCTIONS]),
    ("bce-f32-noncontig", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (4, 3), "p", "float32").t(), _t(lib, (3, 4), "q", "float32"))),
    ("bce-f16", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (3, 4), "p", "float16"), _t(lib, (3, 4), "q", "float16"), reduction="none")),
    ("bce-clamp", lambda lib: _F(lib).binary_cross_entropy(
        lib.tensor([0.0, 1.0, 0.5]), lib.tensor([1.0, 0.0, 0.5]), reduction="none")),
    ("bce-range-input", lambda lib: _F(lib).binary_cross_entropy(
        lib.tensor([1.5, 0.5]), lib.tensor([0.5, 0.5]))),
    ("bce-range-target", lambda lib: _F(lib).binary_cross_entropy(
        lib.tensor([0.5, 0.5]), lib.tensor([0.5, -0.5]))),
    ("bce-nan", lambda lib: _F(lib).binary_cross_entropy(
        lib.tensor([float("nan"), 0.5]), lib.tensor([0.5, 0.5]))),
    ("bce-size", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (3, 4), "p"), _t(lib, (4,), "q"))),
    ("bce-dtype-mix", lambda lib: _A(lib).binary_cross_entropy.default(
        _t(lib, (3,), "p", "float32"), _t(lib, (3,), "q"))),
    ("bce-long", lambda lib: _A(lib).binary_cross_entropy.default(
        _idx(lib, [0, 1]), _idx(lib, [0, 1]))),
    ("bce-out", lambda lib: _A(lib).binary_cross_entropy.out(
        _t(lib, (3,), "p"), _t(lib, (3,), "q"), _t(lib, (3,), "w"), 1, out=_t(lib, (3,), "c"))),
    ("bce-backward", lambda lib: [_A(lib).binary_cross_entropy_backward.default(
        _t(lib, (3,), "c") if r == 0 else _t(lib, (), "c"), _t(lib, (3,), "p"),
        _t(lib, (3,), "q"), _t(lib, (3,), "w"), r) for r in (0, 1, 2)]),
    ("bce-logits", lambda lib: [_F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction=r) for r in _REDUCTIONS]),
    ("bce-logits-weights", lambda lib: [_F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), weight=_t(lib, (4,), "w"),
        pos_weight=_t(lib, (4,), "p"), reduction=r) for r in _REDUCTIONS]),
    ("bce-logits-f16", lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4), dtype="float16"), _t(lib, (3, 4), "q", "float16"), reduction="none")),
    ("bce-logits-size", lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4)), _t(lib, (4,), "q"))),
    ("bce-logits-torch", lambda lib: lib.binary_cross_entropy_with_logits(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), None, _t(lib, (4,), "w"), 2)),
    ("bce-logits-out", lambda lib: _A(lib).binary_cross_entropy_with_logits.out(
        _t(lib, (3,)), _t(lib, (3,), "q"), None, None, 0, out=lib.empty(0, dtype=lib.float64))),
    ("kl", lambda lib: [_F(lib).kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction=r,
                                       log_target=lt)
                        for r in ("none", "mean", "sum", "batchmean") for lt in (False, True)]),
    ("kl-zero-target", lambda lib: _F(lib).kl_div(
        _t(lib, (3,)), lib.tensor([0.0, 0.5, 0.5], dtype=lib.float64), reduction="sum")),
    ("kl-0d-batchmean", lambda lib: _F(lib).kl_div(
        _t(lib, ()), _t(lib, (), "q"), reduction="batchmean")),
    ("kl-legacy", lambda lib: _F(lib).kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduce=False)),
    ("kl-bad", lambda lib: _F(lib).kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction="x")),
    ("kl-torch", lambda lib: lib.kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"), 2, log_target=True)),
    ("poisson", lambda lib: [_F(lib).poisson_nll_loss(
        _t(lib, (3, 4), "p") if not li else _t(lib, (3, 4)),
        lib.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0] * 2, dtype=lib.float64).reshape(3, 4),
        log_input=li, full=fu, reduction=r)
        for li in (True, False) for fu in (False, True) for r in _REDUCTIONS]),
    ("poisson-bad", lambda lib: _F(lib).poisson_nll_loss(_t(lib, (3,)), _t(lib, (3,), "q"),
                                                         reduction="batchmean")),
    ("poisson-torch", lambda lib: lib.poisson_nll_loss(
        _t(lib, (3,)), _t(lib, (3,), "q"), True, True, 1e-8, 0)),
    ("gaussian", lambda lib: [_F(lib).gaussian_nll_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), _t(lib, (3, 4), "w"), full=fu, reduction=r)
        for fu in (False, True) for r in _REDUCTIONS]),
    ("gaussian-homoscedastic", lambda lib: [
        _F(lib).gaussian_nll_loss(_t(lib, (3, 4)), _t(lib, (3, 4), "b"), _t(lib, (3,), "w")),
        _F(lib).gaussian_nll_loss(_t(lib, (3, 4)), _t(lib, (3, 4), "b"), _t(lib, (3, 1), "w")),
        _F(lib).gaussian_nll_loss(_t(lib, (3, 4)), _t(lib, (3, 4), "b"), 0.5)]),
    ("gaussian-eps", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3,)), _t(lib, (3,), "b"), lib.tensor([0.0, 1e-9, 2.0], dtype=lib.float64))),
    ("gaussian-neg-var", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3,)), _t(lib, (3,), "b"), lib.tensor([-1.0, 1.0, 2.0], dtype=lib.float64))),
    ("gaussian-neg-float", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3,)), _t(lib, (3,), "b"), -1.0)),
    ("gaussian-var-size", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), _t(lib, (2, 4), "w"))),
    ("gaussian-bad-reduction", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3,)), _t(lib, (3,), "b"), _t(lib, (3,), "w"), reduction="x")),
    ("multilabel-soft-margin", lambda lib: [_F(lib).multilabel_soft_margin_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction=r) for r in _REDUCTIONS]),
    ("multilabel-soft-margin-weight-legacy", lambda lib: _F(lib).multilabel_soft_margin_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), weight=_t(lib, (4,), "w"), reduce=False)),
    ("multilabel-soft-margin-bad", lambda lib: _F(lib).multilabel_soft_margin_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction="x")),
    ("linear-ce", lambda lib: [_F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (4, 5), "b"), _idx(lib, [0, -100, 3]),
        linear_bias=_t(lib, (4,), "c"), weight=lib.tensor(_W4, dtype=lib.float64), reduction=r,
        label_smoothing=0.1) for r in _REDUCTIONS]),
    ("linear-ce-kdim", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (4, 2, 5), "b"), _idx(lib, [0, 1, 3, 2, 1, 1], (3, 2)),
        linear_bias=_t(lib, (4, 2), "c"))),
    ("linear-ce-prob", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (5,)), _t(lib, (4, 5), "b"), _t(lib, (4,), "q"))),
]

_W4 = [0.3, 1.2, 0.7, 2.0]
# linear_cross_entropy's checks come before its linear: they need no other family's op.
CASES += [
    ("lce-input-dim", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (2, 3, 5)), _t(lib, (4, 5), "b"), _idx(lib, [0, 1]))),
    ("lce-weight-dim", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (5,), "b"), _idx(lib, [0, 1, 2]))),
    ("lce-features", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (4, 6), "b"), _idx(lib, [0, 1, 2]))),
    ("lce-bias", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (4, 5), "b"), _idx(lib, [0, 1, 2]), linear_bias=_t(lib, (3,)))),
    ("lce-unbatched-kdim", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (5,)), _t(lib, (4, 2, 5), "b"), _idx(lib, [0, 1]))),
    ("lce-prob-ignore", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5)), _t(lib, (4, 5), "b"), _t(lib, (3, 4), "q"), ignore_index=1)),
]

_T3 = [0, 3, 1]
for _red in _REDUCTIONS:
    CASES += [
        (f"nll-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (3, 4)), _idx(lib, _T3), reduction=r)),
        (f"nll-weight-ignore-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (3, 4)), _idx(lib, [0, -100, 2]), weight=lib.tensor(_W4, dtype=lib.float64),
            reduction=r)),
        (f"nll-ignore-index-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (3, 4)), _idx(lib, [1, 1, 2]), ignore_index=1, reduction=r)),
        (f"nll-1d-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (4,)), _idx(lib, 2), weight=lib.tensor(_W4, dtype=lib.float64), reduction=r)),
        (f"nll-3d-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 4, 3)), _idx(lib, [0, 1, 3, 2, -100, 1], (2, 3)),
            weight=lib.tensor(_W4, dtype=lib.float64), reduction=r)),
        (f"nll-4d-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 3, 2, 2)), _idx(lib, [0, 1, 2, 2, 1, 0, 0, 2], (2, 2, 2)), reduction=r)),
        (f"nll-5d-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 3, 2, 2, 2)), _idx(lib, [0, 1, 2] * 5 + [1], (2, 2, 2, 2)), reduction=r)),
        (f"nll-5d-noncontig-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 2, 2, 3, 2)).transpose(1, 3), _idx(lib, [0, 1, 2] * 5 + [1], (2, 2, 2, 2)),
            reduction=r)),
        (f"nll-empty-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (0, 4)), _idx(lib, []), reduction=r)),
        (f"nll-3d-empty-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 4, 0)), _idx(lib, [], (2, 0)), reduction=r)),
        (f"nll-f16-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (5, 4), dtype="float16"), _idx(lib, [0, 3, 1, 2, 2]), reduction=r,
            weight=lib.tensor(_W4, dtype=lib.float16))),
        (f"nll-2d-f16-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 3, 4, 5), dtype="float16"),
            _idx(lib, [(i * 7) % 3 for i in range(40)], (2, 4, 5)), reduction=r)),
        (f"nll-meta-{_red}", lambda lib, r=_red: _F(lib).nll_loss(
            _t(lib, (2, 4, 3)).to("meta"), _idx(lib, [0, 1, 3, 2, 0, 1], (2, 3)).to("meta"),
            reduction=r)),
        (f"ce-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4)), _idx(lib, _T3), reduction=r)),
        (f"ce-weight-ignore-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4)), _idx(lib, [0, -100, 2]), weight=lib.tensor(_W4, dtype=lib.float64),
            reduction=r)),
        (f"ce-ls-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4)), _idx(lib, [0, -100, 2]), reduction=r, label_smoothing=0.2)),
        (f"ce-ls-weight-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4)), _idx(lib, [0, -100, 2]), weight=lib.tensor(_W4, dtype=lib.float64),
            reduction=r, label_smoothing=0.2)),
        (f"ce-ls-kdim-weight-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (2, 4, 3)), _idx(lib, [0, 1, 3, 2, -100, 1], (2, 3)),
            weight=lib.tensor(_W4, dtype=lib.float64), reduction=r, label_smoothing=0.3)),
        (f"ce-prob-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction=r)),
        (f"ce-prob-ls-weight-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (2, 4, 3)), _t(lib, (2, 4, 3), "q"), reduction=r, label_smoothing=0.1,
            weight=lib.tensor(_W4, dtype=lib.float64))),
        (f"ce-prob-1d-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (4,)), _t(lib, (4,), "q"), reduction=r, weight=lib.tensor(_W4, dtype=lib.float64))),
        (f"ce-4d-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (2, 3, 2, 2)), _idx(lib, [0, 1, 2, 2, 1, 0, 0, 2], (2, 2, 2)), reduction=r)),
        (f"ce-1d-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (4,)), _idx(lib, 3), reduction=r)),
        (f"ce-prob-empty-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (0, 4)), _t(lib, (0, 4), "q"), reduction=r)),
        (f"ce-f16-{_red}", lambda lib, r=_red: _F(lib).cross_entropy(
            _t(lib, (3, 4), dtype="float16"), _idx(lib, _T3), reduction=r)),
    ]
CASES += [
    ("nll-legacy", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4)), _idx(lib, _T3), size_average=False)),
    ("nll-uint8-target", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (3, 4)), lib.tensor(_T3, dtype=lib.uint8), None, 1, -100)),
    ("nll-int32-target", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (3, 4)), lib.tensor(_T3, dtype=lib.int32), None, 1, -100)),
    ("nll-long-input", lambda lib: _A(lib).nll_loss_forward.default(
        _idx(lib, [1, 2, 3, 4], (2, 2)), _idx(lib, [0, 1]), None, 1, -100)),
    ("nll-oob", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4)), _idx(lib, [0, 5, 1]))),
    # One bad target: torch's unreduced loop runs in parallel, so which of several it
    # reports depends on its threads.
    ("nll-oob-negative-none", lambda lib: _F(lib).nll_loss(
        _t(lib, (3, 4)), _idx(lib, [0, -1, 1]), reduction="none")),
    ("nll-2d-oob", lambda lib: _F(lib).nll_loss(
        _t(lib, (2, 3, 2, 2)), _idx(lib, [0, 1, 2, 3, 1, 0, 0, 2], (2, 2, 2)))),
    ("nll-batch", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4)), _idx(lib, [0, 1]))),
    ("nll-0d", lambda lib: _F(lib).nll_loss(_t(lib, ()), _idx(lib, 0))),
    ("nll-kdim-target", lambda lib: _F(lib).nll_loss(_t(lib, (2, 4, 3)), _idx(lib, [0] * 8, (2, 4)))),
    ("nll-weight-shape", lambda lib: _F(lib).nll_loss(
        _t(lib, (3, 4)), _idx(lib, _T3), weight=lib.ones(3, dtype=lib.float64))),
    ("nll-weight-dtype", lambda lib: _F(lib).nll_loss(
        _t(lib, (3, 4)), _idx(lib, _T3), weight=lib.ones(4, dtype=lib.float32))),
    ("nll-fwd-3d", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (2, 3, 4)), _idx(lib, [0, 1]), None, 1, -100)),
    ("nll-fwd-2d-target", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (3, 4)), _idx(lib, _T3, (3, 1)), None, 1, -100)),
    ("nll-fwd-size", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (3, 4)), _idx(lib, [0, 1]), None, 1, -100)),
    ("nll-fwd-all-ignored", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (3, 4)), _idx(lib, [-100] * 3), None, 1, -100)),
    ("nll-fwd-1d-none", lambda lib: _A(lib).nll_loss_forward.default(
        _t(lib, (4,)), _idx(lib, 1), lib.tensor(_W4, dtype=lib.float64), 0, -100)),
    ("nll-fwd-out", lambda lib: _A(lib).nll_loss_forward.output(
        _t(lib, (3, 4)), _idx(lib, _T3), None, 0, -100, output=_t(lib, (2,), "c"),
        total_weight=_t(lib, (2,), "c"))),
    ("nll-2d-fwd", lambda lib: [_A(lib).nll_loss2d_forward.default(
        _t(lib, (2, 3, 2, 2)), _idx(lib, [0, 1, 2, 2, 1, 0, -100, 2], (2, 2, 2)),
        lib.tensor(_W4[:3], dtype=lib.float64), r, -100) for r in (0, 1, 2)]),
    ("nll-2d-target-dim", lambda lib: _A(lib).nll_loss2d_forward.default(
        _t(lib, (2, 3, 2, 2)), _idx(lib, [0] * 4, (2, 2)), None, 1, -100)),
    ("nll-2d-input-dim", lambda lib: _A(lib).nll_loss2d_forward.default(
        _t(lib, (2, 3, 4)), _idx(lib, [0] * 8, (2, 2, 2)), None, 1, -100)),
    ("nll-2d-size", lambda lib: _A(lib).nll_loss2d_forward.default(
        _t(lib, (2, 3, 2, 2)), _idx(lib, [0] * 6, (2, 3, 1)), None, 1, -100)),
    ("nll-2d-weight", lambda lib: _A(lib).nll_loss2d_forward.default(
        _t(lib, (2, 3, 2, 2)), _idx(lib, [0] * 8, (2, 2, 2)), lib.ones(2, dtype=lib.float64),
        1, -100)),
    ("nll-bwd", lambda lib: [_A(lib).nll_loss_backward.default(
        _t(lib, (3,), "c") if r == 0 else _t(lib, (), "c"), _t(lib, (3, 4)),
        _idx(lib, [0, -100, 2]), lib.tensor(_W4, dtype=lib.float64), r, -100,
        lib.tensor(1.5, dtype=lib.float64)) for r in (0, 1, 2)]),
    ("nll-bwd-total-weight", lambda lib: _A(lib).nll_loss_backward.default(
        _t(lib, (), "c"), _t(lib, (3, 4)), _idx(lib, _T3), None, 1, -100, _t(lib, (2,), "w"))),
    ("nll-bwd-grad-none", lambda lib: _A(lib).nll_loss_backward.default(
        _t(lib, (2,), "c"), _t(lib, (3, 4)), _idx(lib, _T3), None, 0, -100, _t(lib, (), "w"))),
    ("nll-bwd-grad-mean", lambda lib: _A(lib).nll_loss_backward.default(
        _t(lib, (2,), "c"), _t(lib, (3, 4)), _idx(lib, _T3), None, 1, -100, _t(lib, (), "w"))),
    ("nll-bwd-weight", lambda lib: _A(lib).nll_loss_backward.default(
        _t(lib, (), "c"), _t(lib, (3, 4)), _idx(lib, _T3), lib.ones(3, dtype=lib.float64), 1,
        -100, _t(lib, (), "w"))),
    ("nll-2d-bwd", lambda lib: [_A(lib).nll_loss2d_backward.default(
        _t(lib, (2, 2, 2), "c") if r == 0 else _t(lib, (), "c"), _t(lib, (2, 3, 2, 2)),
        _idx(lib, [0, 1, 2, 2, 1, 0, -100, 2], (2, 2, 2)), None, r, -100,
        lib.tensor(7.0, dtype=lib.float64)) for r in (0, 1, 2)]),
    ("nll-nd-out", lambda lib: _A(lib).nll_loss.out(
        _t(lib, (3, 4)), _idx(lib, _T3), None, 2, -100, out=lib.empty(0, dtype=lib.float64))),
    ("ce-prob-int", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4)), _idx(lib, [1] * 12, (3, 4)))),
    ("ce-prob-ignore", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), ignore_index=1)),
    ("ce-ls-range", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4)), _idx(lib, _T3),
                                                      label_smoothing=2.0)),
    ("ce-prob-ls-range", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), label_smoothing=1.5)),
    ("ce-prob-weight", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), weight=lib.ones(3, dtype=lib.float64))),
    ("ce-0d", lambda lib: _F(lib).cross_entropy(_t(lib, ()), _idx(lib, 0))),
    ("ce-ls-negative", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4)), _idx(lib, _T3), label_smoothing=-0.5)),
    ("ce-legacy", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4)), _idx(lib, _T3), reduce=False)),
]


@pytest.mark.parametrize(("name", "fn"), _params(CASES))
def test_matches_torch(name: str, fn: Callable[[Any], Any]) -> None:
    _check(fn)


# --- warnings ----------------------------------------------------------------------------------

WARNING_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("mse-size", lambda lib: _F(lib).mse_loss(_t(lib, (3, 4)), _t(lib, (4,), "b"))),
    ("l1-size", lambda lib: _F(lib).l1_loss(_t(lib, (3, 4)), _t(lib, (1, 4), "b"))),
    ("smooth-size", lambda lib: _F(lib).smooth_l1_loss(_t(lib, (4,)), _t(lib, (3, 4), "b"))),
    ("huber-size", lambda lib: _F(lib).huber_loss(_t(lib, (3, 4)), _t(lib, (4,), "b"))),
    ("legacy", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4)), _idx(lib, _T3), reduce=False)),
    ("legacy-bce", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (3,), "p"), _t(lib, (3,), "q"), size_average=True)),
    ("kl-mean", lambda lib: _F(lib).kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"))),
    ("elementwise-mean", lambda lib: _F(lib).mse_loss(
        _t(lib, (3,)), _t(lib, (3,), "b"), reduction="elementwise_mean")),
]


def _warnings_of(fn: Callable[[Any], Any], lib: Any) -> list[tuple[type, str, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    # The frame blamed, by file: refimpl's F module stands for torch/nn/functional.py.
    files = {"_loss.py": "functional.py"}
    return [
        (w.category, str(w.message).replace("refimpl.Size", "torch.Size"),
         files.get(w.filename.rsplit("/", 1)[-1], w.filename.rsplit("/", 1)[-1]))
        for w in caught
    ]


@pytest.mark.parametrize(("name", "fn"), WARNING_CASES, ids=[c[0] for c in WARNING_CASES])
def test_warnings_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    # Same category, text, and the same frame blamed (stacklevel): this file.
    assert _warnings_of(fn, refimpl) == _warnings_of(fn, torch)


OUT_FAILURE_CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("soft-margin", lambda lib, out: _A(lib).soft_margin_loss.out(
        _t(lib, (4,)), _t(lib, (3, 4), "b"), 0, out=out)),
    ("bce-weight", lambda lib, out: _A(lib).binary_cross_entropy.out(
        _t(lib, (4,), "p"), _t(lib, (4,), "q"), _t(lib, (3, 4), "w"), 0, out=out)),
]


@pytest.mark.parametrize(("name", "call"), OUT_FAILURE_CASES, ids=[c[0] for c in OUT_FAILURE_CASES])
def test_failing_out_call_raises_before_writing(name: str, call: Callable[[Any, Any], Any]) -> None:
    # torch's error; but where torch writes `out` before its in-place steps fail (neg_out,
    # then mul_), refimpl checks first and leaves `out` as it was.
    _check(lambda lib: call(lib, _t(lib, (4,), "c")))
    out = _t(refimpl, (4,), "c")
    with pytest.raises(RuntimeError):
        call(refimpl, out)
    assert out.tolist() == _t(refimpl, (4,), "c").tolist()


def test_huber_resize_warning_matches_torch() -> None:
    # huber_loss writes its loss into empty_like(self): a target that broadcasts self larger
    # resizes it with torch's deprecation warning (the text only: the frame blamed is C++'s).
    def run(lib: Any) -> list[tuple[type, str]]:
        caught = _warnings_of(
            lambda lib: lib._C._nn.huber_loss(_t(lib, (4,)), _t(lib, (3, 4), "b"), 0), lib
        )
        # torch's C++ warnings end with where they were raised; refimpl's do not.
        return [(c, m.split(" (Triggered internally at")[0]) for c, m, _ in caught]

    assert run(refimpl) == run(torch)


def test_reduction_helpers_match_torch() -> None:
    import torch.nn._reduction as torch_reduction

    import refimpl.nn._reduction as ours

    for args in [(None, None), (True, None), (False, None), (None, False), (False, False)]:
        for emit in (True, False):
            assert ours.legacy_get_string(*args, emit_warning=emit) == (
                torch_reduction.legacy_get_string(*args, emit_warning=emit))
            assert ours.legacy_get_enum(*args, emit_warning=emit) == (
                torch_reduction.legacy_get_enum(*args, emit_warning=emit))
    for r in ("none", "mean", "sum"):
        assert ours.get_enum(r) == torch_reduction.get_enum(r)
    with pytest.raises(ValueError, match="^batchmean is not a valid value for reduction$"):
        ours.get_enum("batchmean")


# --- gradients ---------------------------------------------------------------------------------


def _grads(fn: Callable[[Any], tuple[Any, list[Any]]], lib: Any, order: int) -> list[Any]:
    """First (order 1) or second (order 2: the gradient of the sum of the first gradients,
    each weighted) gradients of `fn`'s loss with respect to its inputs."""
    loss, inputs = fn(lib)
    first = lib.autograd.grad(loss.sum(), inputs, create_graph=order == 2, allow_unused=True)
    if order == 1:
        return list(first)
    total = sum((g * (i + 1.5)).sum() for i, g in enumerate(first) if g is not None)
    return list(lib.autograd.grad(total, inputs, allow_unused=True))


def _grad_case(call: Callable[..., Any], *specs: tuple[tuple[int, ...], str, bool],
               extra: Callable[[Any], dict[str, Any]] | None = None) -> Callable[[Any], Any]:
    def fn(lib: Any) -> tuple[Any, list[Any]]:
        tensors = [_t(lib, shape, key, rg=rg) for shape, key, rg in specs]
        kwargs = extra(lib) if extra else {}
        return call(lib, *tensors, **kwargs), [t for t in tensors if t.requires_grad]
    return fn


GRAD_CASES: list[tuple[str, Callable[[Any], Any]]] = []
for _red in _REDUCTIONS:
    for _name in ("mse_loss", "smooth_l1_loss", "huber_loss"):
        GRAD_CASES.append((f"{_name}-{_red}", _grad_case(
            lambda lib, x, y, n=_name, r=_red: getattr(_F(lib), n)(x, y, reduction=r),
            ((3, 4), "a", True), ((3, 4), "b", True))))
    GRAD_CASES += [
        (f"l1-{_red}", _grad_case(lambda lib, x, y, r=_red: _F(lib).l1_loss(x, y, reduction=r),
                                  ((3, 4), "a", True), ((3, 4), "b", True))),
        (f"smooth-beta0-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).smooth_l1_loss(x, y, reduction=r, beta=0.0),
            ((3, 4), "a", True), ((3, 4), "b", True))),
        (f"soft-margin-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).soft_margin_loss(x, y, reduction=r),
            ((3, 4), "a", True), ((3, 4), "b", False))),
        (f"bce-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).binary_cross_entropy(
                x, y, weight=lib.tensor(_W4, dtype=lib.float64), reduction=r),
            ((3, 4), "p", True), ((3, 4), "q", True))),
        (f"bce-logits-pw-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).binary_cross_entropy_with_logits(
                x, y, weight=lib.tensor(_W4, dtype=lib.float64),
                pos_weight=lib.tensor(_W4[::-1], dtype=lib.float64), reduction=r),
            ((3, 4), "a", True), ((3, 4), "q", True))),
        (f"bce-logits-plain-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).binary_cross_entropy_with_logits(x, y, reduction=r),
            ((3, 4), "a", True), ((3, 4), "q", True))),
        (f"kl-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).kl_div(x, y, reduction=r, log_target=True),
            ((3, 4), "a", True), ((3, 4), "b", True))),
        (f"poisson-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).poisson_nll_loss(
                x, y * 3, log_input=False, full=True, reduction=r),
            ((3, 4), "p", True), ((3, 4), "q", True))),
        (f"gaussian-{_red}", _grad_case(
            lambda lib, x, y, v, r=_red: _F(lib).gaussian_nll_loss(x, y, v, reduction=r),
            ((3, 4), "a", True), ((3, 4), "b", True), ((3, 4), "w", True))),
        (f"nll-{_red}", _grad_case(
            lambda lib, x, r=_red: _F(lib).nll_loss(
                x, _idx(lib, [0, -100, 2]), weight=lib.tensor(_W4, dtype=lib.float64),
                reduction=r), ((3, 4), "a", True))),
        (f"nll-5d-{_red}", _grad_case(
            lambda lib, x, r=_red: _F(lib).nll_loss(
                x, _idx(lib, [0, 1, 2] * 5 + [1], (2, 2, 2, 2)), reduction=r),
            ((2, 3, 2, 2, 2), "a", True))),
        (f"ce-{_red}", _grad_case(
            lambda lib, x, r=_red: _F(lib).cross_entropy(
                x, _idx(lib, [0, 1, 3, 2, -100, 1], (2, 3)), reduction=r),
            ((2, 4, 3), "a", True))),
        (f"ce-ls-weight-{_red}", _grad_case(
            lambda lib, x, r=_red: _F(lib).cross_entropy(
                x, _idx(lib, [0, -100, 2]), weight=lib.tensor(_W4, dtype=lib.float64),
                reduction=r, label_smoothing=0.15), ((3, 4), "a", True))),
        (f"ce-prob-{_red}", _grad_case(
            lambda lib, x, y, r=_red: _F(lib).cross_entropy(x, y, reduction=r, label_smoothing=0.1),
            ((3, 4), "a", True), ((3, 4), "q", True))),
    ]


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize(("name", "fn"), _params(GRAD_CASES))
def test_gradients_match_torch(name: str, fn: Callable[[Any], Any], order: int) -> None:
    _check(lambda lib: _grads(fn, lib, order))


# --- the aten calls a TorchDispatchMode sees -----------------------------------------------------

MODE_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("mse", lambda lib: _F(lib).mse_loss(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"))),
    ("mse-weight", lambda lib: _F(lib).mse_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"), weight=_t(lib, (3, 4), "w"))),
    ("l1", lambda lib: _F(lib).l1_loss(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"))),
    ("smooth", lambda lib: _F(lib).smooth_l1_loss(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"))),
    ("huber", lambda lib: _F(lib).huber_loss(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"))),
    ("soft-margin", lambda lib: _F(lib).soft_margin_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"))),
    ("bce", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (3, 4), "p", rg=True), _t(lib, (3, 4), "q"))),
    ("bce-logits", lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"))),
    ("kl", lambda lib: _F(lib).kl_div(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"), reduction="batchmean")),
    ("kl-log-target", lambda lib: _F(lib).kl_div(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"), reduction="sum", log_target=True)),
    ("poisson", lambda lib: _F(lib).poisson_nll_loss(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"))),
    ("poisson-full", lambda lib: _F(lib).poisson_nll_loss(
        _t(lib, (3, 4), "p", rg=True), _t(lib, (3, 4), "q") * 3, log_input=False, full=True)),
    ("gaussian", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"), _t(lib, (3, 4), "w"))),
    ("nll", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4), rg=True), _idx(lib, _T3))),
    ("nll-5d-none", lambda lib: _F(lib).nll_loss(
        _t(lib, (2, 3, 2, 2, 2), rg=True), _idx(lib, [0, 1, 2] * 5 + [1], (2, 2, 2, 2)),
        reduction="none")),
    ("ce", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4), rg=True), _idx(lib, _T3))),
    ("ce-3d", lambda lib: _F(lib).cross_entropy(
        _t(lib, (2, 4, 3), rg=True), _idx(lib, [0, 1, 3, 2, 0, 1], (2, 3)))),
    ("ce-4d", lambda lib: _F(lib).cross_entropy(
        _t(lib, (2, 3, 2, 2), rg=True), _idx(lib, [0, 1, 2, 2, 1, 0, 0, 2], (2, 2, 2)))),
    ("ce-1d", lambda lib: _F(lib).cross_entropy(_t(lib, (4,), rg=True), _idx(lib, 1))),
    ("ce-prob", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"))),
    ("ce-prob-ls-weight", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"), label_smoothing=0.1,
        weight=lib.tensor(_W4, dtype=lib.float64))),
    ("ce-ls", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4), rg=True), _idx(lib, _T3), label_smoothing=0.1)),
    ("ce-ls-weight", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4), rg=True), _idx(lib, _T3), label_smoothing=0.1,
        weight=lib.tensor(_W4, dtype=lib.float64))),
    ("ce-ls-weight-none", lambda lib: _F(lib).cross_entropy(
        _t(lib, (3, 4), rg=True), _idx(lib, _T3), label_smoothing=0.1, reduction="none",
        weight=lib.tensor(_W4, dtype=lib.float64))),
    ("ce-ls-kdim-weight", lambda lib: _F(lib).cross_entropy(
        _t(lib, (2, 4, 3), rg=True), _idx(lib, [0, 1, 3, 2, -100, 1], (2, 3)),
        weight=lib.tensor(_W4, dtype=lib.float64), label_smoothing=0.3)),
    ("ce-ls-kdim-sum", lambda lib: _F(lib).cross_entropy(
        _t(lib, (2, 4, 3), rg=True), _idx(lib, [0, 1, 3, 2, -100, 1], (2, 3)),
        reduction="sum", label_smoothing=0.3)),
    ("nll-3d-noncontig", lambda lib: _F(lib).nll_loss(
        _t(lib, (2, 3, 4), rg=True).transpose(1, 2), _idx(lib, [0, 1, 3, 2, 0, 1], (2, 3)),
        reduction="none")),
    ("nll-3d-empty", lambda lib: _F(lib).nll_loss(
        _t(lib, (2, 4, 0), rg=True), _idx(lib, [], (2, 0)), reduction="sum")),
    ("bce-weight", lambda lib: _F(lib).binary_cross_entropy(
        _t(lib, (3, 4), "p", rg=True), _t(lib, (3, 4), "q", rg=True), weight=_t(lib, (4,), "w"))),
    ("bce-logits-pw", lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q", rg=True), weight=_t(lib, (4,), "w"),
        pos_weight=_t(lib, (4,), "p"))),
    ("huber-weight", lambda lib: _F(lib).huber_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b"), weight=_t(lib, (3, 4), "w"))),
    ("smooth-beta0", lambda lib: _F(lib).smooth_l1_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "b", rg=True), beta=0.0)),
    ("multilabel", lambda lib: _F(lib).multilabel_soft_margin_loss(
        _t(lib, (3, 4), rg=True), _t(lib, (3, 4), "q"))),
    ("linear-ce", lambda lib: _F(lib).linear_cross_entropy(
        _t(lib, (3, 5), rg=True), _t(lib, (4, 5), "b", rg=True), _idx(lib, _T3))),
]


@pytest.mark.parametrize(("name", "fn"), _params(MODE_CASES))
def test_aten_calls_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    def calls(lib: Any) -> tuple[list[str], list[str]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            forward, loss = aten_calls(lib, lambda: fn(lib))
            backward, _ = aten_calls(lib, lambda: loss.sum().backward())
        return forward, backward

    assert calls(refimpl) == calls(torch)


FUNCTION_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("mse", lambda lib: _F(lib).mse_loss(_t(lib, (3, 4)), _t(lib, (3, 4), "b"))),
    ("cross-entropy", lambda lib: _F(lib).cross_entropy(_t(lib, (3, 4)), _idx(lib, _T3))),
    ("nll", lambda lib: _F(lib).nll_loss(_t(lib, (3, 4)), _idx(lib, _T3))),
    ("kl", lambda lib: _F(lib).kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"), reduction="sum")),
    ("bce-logits", lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"))),
    ("gaussian", lambda lib: _F(lib).gaussian_nll_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "b"), _t(lib, (3, 4), "w"))),
    ("torch-kl", lambda lib: lib.kl_div(_t(lib, (3, 4)), _t(lib, (3, 4), "q"))),
    ("torch-poisson", lambda lib: lib.poisson_nll_loss(
        _t(lib, (3, 4)), _t(lib, (3, 4), "q"), True, False, 1e-8, 1)),
]


@pytest.mark.parametrize(("name", "fn"), _params(FUNCTION_CASES))
def test_torch_function_calls_match_torch(name: str, fn: Callable[[Any], Any]) -> None:
    # What a TorchFunctionMode is told of: the F function (torch writes it in Python) or the
    # torch.* binding, once, as torch's has_torch_function checks do.
    def calls(lib: Any) -> list[Any]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function_calls(lib, lambda: fn(lib))[0]

    assert calls(refimpl) == calls(torch)


def test_signatures_match_torch() -> None:
    import inspect

    from refimpl.nn.functional import _loss

    for name in _loss.__all__:
        ours = inspect.signature(getattr(refimpl.nn.functional, name)).parameters.values()
        theirs = inspect.signature(getattr(torch.nn.functional, name)).parameters.values()
        assert [(p.name, p.kind, p.default) for p in ours] == [
            (p.name, p.kind, p.default) for p in theirs
        ], name


def test_linear_cross_entropy_chunked_path_is_refused() -> None:
    # Differs: torch's chunked path runs torch_nn:: custom ops refimpl does not have.
    with pytest.raises(NotImplementedError, match="chunked path"):
        refimpl.nn.functional.linear_cross_entropy(
            _t(refimpl, (3, 5)), _t(refimpl, (4, 5), "b"), _idx(refimpl, _T3), options=object()
        )
