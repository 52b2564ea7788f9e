"""Tensor arguments autograd refuses to record: an op's argument without a derivative formula
that requires grad raises torch's error when the op runs (torch: the check_no_requires_grad
calls gen_variable_type.py emits; refimpl: autograd/kernel.py refused_arguments), while the
arguments derivatives.yaml marks non_differentiable, and those with a formula, pass. An out=
form refuses an argument that requires grad only where its functional form differentiates it.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the name of the result's grad_fn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as torch_F

import refimpl
import refimpl.nn.functional as refimpl_F
from conformance._oracle import outcome


def _F(lib: Any) -> Any:
    return torch_F if lib is torch else refimpl_F


def _rg(lib: Any, *shape: int) -> Any:
    """A tensor of `shape` that requires grad (the values do not matter here)."""
    return lib.rand(shape).requires_grad_()


_CASES: dict[str, Callable[[Any], Any]] = {
    "nll_loss weight": lambda lib: _F(lib).nll_loss(
        _rg(lib, 3, 5), lib.tensor([1, 0, 4]), weight=_rg(lib, 5)
    ),
    "cross_entropy weight": lambda lib: _F(lib).cross_entropy(
        _rg(lib, 3, 5), lib.tensor([1, 0, 4]), weight=_rg(lib, 5)
    ),
    "nll_loss2d weight": lambda lib: _F(lib).nll_loss(
        _rg(lib, 1, 3, 2, 2), lib.zeros(1, 2, 2, dtype=lib.long), weight=_rg(lib, 3)
    ),
    "nll_loss target (integer)": lambda lib: _F(lib).nll_loss(
        _rg(lib, 3, 5), lib.tensor([1, 0, 4])
    ),
    "binary_cross_entropy weight": lambda lib: _F(lib).binary_cross_entropy(
        _rg(lib, 3), lib.rand(3), weight=_rg(lib, 3)
    ),
    "binary_cross_entropy target": lambda lib: _F(lib).binary_cross_entropy(
        _rg(lib, 3), _rg(lib, 3)
    ),
    "bce_with_logits pos_weight": lambda lib: _F(lib).binary_cross_entropy_with_logits(
        _rg(lib, 3), lib.rand(3), pos_weight=_rg(lib, 3)
    ),
    "multi_margin_loss weight": lambda lib: _F(lib).multi_margin_loss(
        _rg(lib, 3, 5), lib.tensor([1, 0, 4]), weight=_rg(lib, 5)
    ),
    "soft_margin_loss target": lambda lib: _F(lib).soft_margin_loss(_rg(lib, 3), _rg(lib, 3)),
    "mse_loss target": lambda lib: _F(lib).mse_loss(_rg(lib, 3), _rg(lib, 3)),
    "batch_norm running_mean": lambda lib: _F(lib).batch_norm(
        _rg(lib, 2, 3), lib.zeros(3).requires_grad_(), lib.ones(3), training=True
    ),
    "fractional_max_pool2d samples": lambda lib: _F(lib).fractional_max_pool2d(
        _rg(lib, 1, 1, 4, 4), 2, output_size=2, _random_samples=_rg(lib, 1, 1, 2)
    ),
    "embedding_bag per_sample_weights": lambda lib: _F(lib).embedding_bag(
        lib.tensor([0, 1]),
        _rg(lib, 3, 2),
        lib.tensor([0]),
        per_sample_weights=_rg(lib, 2),
        mode="sum",
    ),
    "linalg.pinv atol": lambda lib: lib.linalg.pinv(_rg(lib, 3, 3), atol=_rg(lib), rtol=None),
    "sdpa attn_mask": lambda lib: _F(lib).scaled_dot_product_attention(
        _rg(lib, 1, 2, 4, 8), _rg(lib, 1, 2, 4, 8), _rg(lib, 1, 2, 4, 8), attn_mask=_rg(lib, 4, 4)
    ),
    "copy_ src": lambda lib: lib.zeros(3).copy_(_rg(lib, 3)),
    # out= forms refuse only the arguments their functional form differentiates.
    "add out=": lambda lib: lib.add(_rg(lib, 3), 1, out=lib.empty(3)),
    "mul out=, other": lambda lib: lib.mul(lib.ones(3), _rg(lib, 3), out=lib.empty(3)),
    "sign out=": lambda lib: lib.sign(_rg(lib, 3), out=lib.empty(3)),
    "sum out=": lambda lib: lib.sum(_rg(lib, 3), 0, out=lib.empty(())),
    "cat out=": lambda lib: lib.cat([_rg(lib, 3)], out=lib.empty(3)),
    "eq out= (no derivative)": lambda lib: lib.eq(
        _rg(lib, 3), 0.5, out=lib.empty(3, dtype=lib.bool)
    ),
    "argmax out=": lambda lib: lib.argmax(_rg(lib, 3), 0, out=lib.empty((), dtype=lib.long)),
    "histc out=": lambda lib: lib.histc(_rg(lib, 3), out=lib.empty(100)),
    "bucketize out=": lambda lib: lib.bucketize(
        _rg(lib, 3), lib.tensor([0.5]), out=lib.empty(3, dtype=lib.long)
    ),
    "searchsorted out=": lambda lib: lib.searchsorted(
        _rg(lib, 2), lib.rand(3), out=lib.empty(3, dtype=lib.long)
    ),
    "weight, no_grad": lambda lib: _no_grad(lib),
}


def _no_grad(lib: Any) -> Any:
    # torch checks only in grad mode.
    with lib.no_grad():
        return _F(lib).nll_loss(_rg(lib, 3, 5), lib.tensor([1, 0, 4]), weight=_rg(lib, 5))


@pytest.mark.parametrize("case", list(_CASES))
def test_refusal_matches_torch(case: str) -> None:
    expected, expected_error = outcome(_CASES[case], torch)
    actual, actual_error = outcome(_CASES[case], refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    expected_node = None if expected.grad_fn is None else type(expected.grad_fn).__name__
    actual_node = None if actual.grad_fn is None else type(actual.grad_fn).__name__
    assert actual_node == expected_node
