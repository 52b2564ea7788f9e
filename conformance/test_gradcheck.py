"""refimpl.autograd.gradcheck / gradgradcheck against torch's: the same verdicts, the same
GradcheckError messages, on refimpl ops with derivatives and on custom Functions."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl


def _inputs(lib: Any) -> tuple[Any, Any]:
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
    return x, y


def _square(lib: Any, factor: float) -> Any:
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (a,) = ctx.saved_tensors
            return g * a * factor

    return Square


def _no_undefined(lib: Any) -> Any:
    class Plain(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    return Plain


CASES: dict[str, Callable[[Any], Any]] = {
    "arith": lambda lib: lib.autograd.gradcheck(
        lambda a, b: a * b / (a + b + 10) - a, _inputs(lib)
    ),
    "arith_gradgrad": lambda lib: lib.autograd.gradgradcheck(
        lambda a, b: a * b / (a + b + 10), _inputs(lib)
    ),
    "two_outputs": lambda lib: lib.autograd.gradcheck(
        lambda a, b: (a * b, a - b * 3), _inputs(lib)
    ),
    "exp_sin": lambda lib: lib.autograd.gradgradcheck(
        lambda a: lib.sin(lib.exp(a)) * a, (_inputs(lib)[1],)
    ),
    "function_ok": lambda lib: lib.autograd.gradcheck(_square(lib, 2.0).apply, (_inputs(lib)[1],)),
    "function_ok_gradgrad": lambda lib: lib.autograd.gradgradcheck(
        _square(lib, 2.0).apply, (_inputs(lib)[1],)
    ),
    "function_wrong": lambda lib: lib.autograd.gradcheck(_square(lib, 1.0).apply, _inputs(lib)[1]),
    "function_wrong_no_raise": lambda lib: lib.autograd.gradcheck(
        _square(lib, 1.0).apply, _inputs(lib)[1], raise_exception=False
    ),
    "function_2d_input": lambda lib: lib.autograd.gradcheck(
        _square(lib, 2.0).apply, (_inputs(lib)[0],)
    ),
    "undefined_grad": lambda lib: lib.autograd.gradcheck(
        _no_undefined(lib).apply, (_inputs(lib)[1],)
    ),
    "undefined_grad_unchecked": lambda lib: lib.autograd.gradcheck(
        _no_undefined(lib).apply, (_inputs(lib)[1],), check_undefined_grad=False
    ),
    "no_input_requires_grad": lambda lib: lib.autograd.gradcheck(
        lambda a: a * 2, (_inputs(lib)[1].detach(),)
    ),
    "stride_zero": lambda lib: lib.autograd.gradcheck(
        lambda a: a * 2, (_inputs(lib)[1].detach().expand(2, 3).requires_grad_(),)
    ),
    "non_tensor_argument": lambda lib: lib.autograd.gradcheck(
        lambda a, k: a * k, (_inputs(lib)[1], 3.0)
    ),
    "zero_dim": lambda lib: lib.autograd.gradcheck(
        lambda a: a * a * a, (lib.tensor(1.5, dtype=lib.float64, requires_grad=True),)
    ),
    "both_modes_off": lambda lib: lib.autograd.gradcheck(
        lambda a: a, (_inputs(lib)[1],), check_backward_ad=False
    ),
    "fast_mode": lambda lib: lib.autograd.gradcheck(
        lambda a, b: a * b, _inputs(lib), fast_mode=True
    ),
}


def _outcome(case: Callable[[Any], Any], lib: Any) -> tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return case(lib), None
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return None, (type(error).__name__, str(error).replace("torch.", "refimpl."))


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_matches_torch(name: str) -> None:
    assert _outcome(CASES[name], refimpl) == _outcome(CASES[name], torch)


def test_gradcheck_error_is_runtime_error() -> None:
    assert issubclass(refimpl.autograd.GradcheckError, RuntimeError)
    with pytest.raises(refimpl.autograd.GradcheckError, match="Jacobian mismatch for output 0"):
        CASES["function_wrong"](refimpl)


def test_unsupported_modes_raise_not_implemented() -> None:
    with pytest.raises(NotImplementedError):
        refimpl.autograd.gradcheck(lambda a: a * 2, (_inputs(refimpl)[1],), check_batched_grad=True)
    with pytest.raises(NotImplementedError):
        refimpl.autograd.gradcheck(lambda a: a * 2, (_inputs(refimpl)[1],), check_forward_ad=True)
