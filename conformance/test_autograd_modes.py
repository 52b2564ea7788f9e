"""Grad modes, inference tensors and batched gradients, against torch.

Each case runs the same code on torch and on refimpl and compares what comes out (values,
flags) or the error (type and message).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl


def _outcome(fn: Callable[[Any], Any], lib: Any) -> Any:
    try:
        result = fn(lib)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return (type(error).__name__, str(error))
    if hasattr(result, "tolist"):
        return ("value", result.tolist())
    return ("value", result)


def _inference_tensor(lib: Any) -> Any:
    with lib.inference_mode():
        return lib.ones(2)


CASES: dict[str, Callable[[Any], Any]] = {
    "is_inference": lambda T: _inference_tensor(T).is_inference(),
    "view_of_inference_is_inference": lambda T: _inference_tensor(T)[0:1].is_inference(),
    "result_outside_mode_is_normal": lambda T: (_inference_tensor(T) + 1).is_inference(),
    "inplace_outside_mode": lambda T: _inference_tensor(T).add_(1),
    "version_of_inference_tensor": lambda T: _inference_tensor(T)._version,
    "requires_grad_outside_mode": lambda T: _inference_tensor(T).requires_grad_(),
    "saved_for_backward": lambda T: (T.ones(2, requires_grad=True) * _inference_tensor(T)),
    "normal_tensor_in_mode": lambda T: _normal_in_mode(T),
    "grad_mode_in_inference": lambda T: _grad_enabled_in_inference(T),
    "no_grad_decorator": lambda T: T.no_grad()(lambda: (T.ones(1, requires_grad=True) * 2).requires_grad)(),
    "set_grad_enabled_function": lambda T: _set_grad_enabled(T),
    "batched_grad": lambda T: _batched(T),
}


def _normal_in_mode(T: Any) -> Any:
    y = T.ones(2)
    with T.inference_mode():
        y.add_(1)
        inner = ((y + 1).is_inference(), y[0:1].is_inference())
    return (y._version, *inner)


def _grad_enabled_in_inference(T: Any) -> Any:
    with T.inference_mode():
        inside = (T.is_grad_enabled(), T.is_inference_mode_enabled())
    return (*inside, T.is_grad_enabled(), T.is_inference_mode_enabled())


def _set_grad_enabled(T: Any) -> Any:
    T.set_grad_enabled(False)
    try:
        off = (T.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        T.set_grad_enabled(True)
    return (off, T.is_grad_enabled())


def _batched(T: Any) -> Any:
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = T.autograd.grad(x * x, x, T.eye(3), is_grads_batched=True)
    return g


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str) -> None:
    assert _outcome(CASES[name], refimpl) == _outcome(CASES[name], torch)
