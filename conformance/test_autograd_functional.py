"""refimpl.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against
torch.autograd.functional: values, structure and errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl


def _t(lib: Any, values: Any) -> Any:
    return lib.tensor(values, dtype=lib.float64)


def _f1(a: Any) -> Any:
    return a * a * a / (a + 4)


def _f2(a: Any, b: Any) -> Any:
    return (a * b + a / (b + 3), a - b * b)


def _scalar(a: Any, b: Any) -> Any:
    return ((a * a * b + b * b * b / (a + 5)) * 0.5).sum()


def _x(lib: Any) -> Any:
    return _t(lib, [1.0, -2.0, 0.5])


def _y(lib: Any) -> Any:
    return _t(lib, [3.0, 0.25, 2.0])


def _fn(lib: Any) -> Any:
    return lib.autograd.functional


CASES: dict[str, Callable[[Any], Any]] = {
    "vjp": lambda lib: _fn(lib).vjp(_f1, _x(lib), _y(lib)),
    "vjp_tuple": lambda lib: _fn(lib).vjp(_f2, (_x(lib), _y(lib)), (_y(lib), _x(lib))),
    "vjp_create_graph": lambda lib: _fn(lib).vjp(_f1, _x(lib), _y(lib), create_graph=True),
    "vjp_scalar_no_v": lambda lib: _fn(lib).vjp(
        lambda a: (a * a), _t(lib, [2.0])
    ),
    "vjp_v_none_error": lambda lib: _fn(lib).vjp(_f1, _x(lib)),
    "vjp_bad_v_size": lambda lib: _fn(lib).vjp(_f1, _x(lib), _t(lib, [1.0, 2.0])),
    "vjp_bad_v_len": lambda lib: _fn(lib).vjp(_f2, (_x(lib), _y(lib)), (_y(lib),)),
    "vjp_non_tensor": lambda lib: _fn(lib).vjp(_f1, 3.0),
    "vjp_strict_independent": lambda lib: _fn(lib).vjp(
        lambda a, b: a * 2, (_x(lib), _y(lib)), _y(lib), strict=True
    ),
    "vjp_unused_zero": lambda lib: _fn(lib).vjp(lambda a, b: a * 2, (_x(lib), _y(lib)), _y(lib)),
    "jvp": lambda lib: _fn(lib).jvp(_f1, _x(lib), _y(lib)),
    "jvp_tuple": lambda lib: _fn(lib).jvp(_f2, (_x(lib), _y(lib)), (_y(lib), _x(lib))),
    "jacobian": lambda lib: _fn(lib).jacobian(_f1, _x(lib)),
    "jacobian_tuple": lambda lib: _fn(lib).jacobian(_f2, (_x(lib), _y(lib))),
    "jacobian_2d": lambda lib: _fn(lib).jacobian(
        lambda a: a * _t(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _x(lib)
    ),
    "jacobian_create_graph": lambda lib: _fn(lib).jacobian(_f1, _x(lib), create_graph=True),
    "jacobian_strict": lambda lib: _fn(lib).jacobian(
        lambda a, b: a * 2, (_x(lib), _y(lib)), strict=True
    ),
    "jacobian_bad_strategy": lambda lib: _fn(lib).jacobian(_f1, _x(lib), strategy="sideways"),
    "hessian": lambda lib: _fn(lib).hessian(_scalar, (_x(lib), _y(lib))),
    "hessian_single": lambda lib: _fn(lib).hessian(lambda a: _scalar(a, a), _x(lib)),
    "hessian_not_scalar": lambda lib: _fn(lib).hessian(_f1, _x(lib)),
    "vhp": lambda lib: _fn(lib).vhp(_scalar, (_x(lib), _y(lib)), (_y(lib), _x(lib))),
    "hvp": lambda lib: _fn(lib).hvp(_scalar, (_x(lib), _y(lib)), (_y(lib), _x(lib))),
    "hvp_single": lambda lib: _fn(lib).hvp(lambda a: _scalar(a, a), _x(lib), _y(lib)),
    "hvp_not_scalar": lambda lib: _fn(lib).hvp(_f1, _x(lib), _y(lib)),
}


def _describe(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [_describe(v) for v in x]
    if isinstance(x, (torch.Tensor, refimpl.Tensor)):
        return (
            tuple(x.shape), x.requires_grad,
            [round(v, 9) for v in x.detach().reshape(-1).tolist()],
        )
    return x


def _outcome(case: Callable[[Any], Any], lib: Any) -> tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _describe(case(lib)), None
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        text = str(error).replace("torch.", "refimpl.").replace("<class 'refimpl.", "<class '")
        return None, (type(error).__name__, text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_matches_torch(name: str) -> None:
    assert _outcome(CASES[name], refimpl) == _outcome(CASES[name], torch)


def test_vectorize_not_implemented() -> None:
    with pytest.raises(NotImplementedError):
        refimpl.autograd.functional.jacobian(_f1, _x(refimpl), vectorize=True)
