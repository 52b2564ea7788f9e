"""softmax and log_softmax against torch: torch.softmax / log_softmax (with dtype=), the
Tensor methods, torch.special.softmax / log_softmax, the aten ops `_softmax`, `_log_softmax`
(.out, half_to_float), `_softmax_backward_data`, `_log_softmax_backward_data` (.out), their
gradients and second gradients, for what the OpInfos leave out.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the result's dtype, shape, strides and values (float16 bit for bit, as
torch's CPU kernel rounds; float32/float64 to a few ulps: torch's vectorized exp differs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

_FLOATS = [d for d in ("float16", "float32", "float64") if d in STORED_DTYPES]

_VALUES = [3.0, -1.5, 2.25, 0.0, 7.5, -4.0, 1.0, 0.5, -0.25, 4.0, 2.0, -8.0, 6.5, 1.25, 0.75,
           -2.0, 3.5, -6.0, 5.0, 0.125, -3.0, 1.5, 2.5, -0.5]


def _x(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (2, 3, 4)) -> Any:
    n = math.prod(shape)
    return lib.tensor(_VALUES[:n], dtype=getattr(lib, dtype)).reshape(shape)


def _aten(lib: Any) -> Any:
    return lib.ops.aten


def _array(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().cpu().numpy() if t.device.type != "meta" else np.empty(0)
    return np.asarray(t.detach().numpy()) if t.device.type != "meta" else np.empty(0)


def _same(expected: Any, actual: Any) -> None:
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    e, a = _array(expected), _array(actual)
    if str(expected.dtype) == "torch.float16":
        np.testing.assert_array_equal(a, e)
    elif e.size:
        np.testing.assert_allclose(a, e, rtol=1e-6 if e.dtype == np.float32 else 1e-13,
                                   atol=1e-6 if e.dtype == np.float32 else 1e-13)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error), str(expected_error)
        )
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


def _out(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (2,)) -> Any:
    return lib.zeros(shape, dtype=getattr(lib, dtype))


def _forward(op: str, dtype: str, dim: int) -> Callable[[Any], Any]:
    return lambda lib: getattr(lib, op)(_x(lib, dtype), dim)


def _backward(op: str, dtype: str, dim: int) -> Callable[[Any], Any]:
    def call(lib: Any) -> Any:
        y = lib.softmax(_x(lib, dtype), dim)
        return getattr(_aten(lib), op)(_x(lib, dtype).sin(), y, dim, getattr(lib, dtype))

    return call


CASES: dict[str, Callable[[Any], Any]] = {
    # values, every dim, both APIs
    **{f"{op} {d} {dim}": _forward(op, d, dim)
       for op in ("softmax", "log_softmax") for d in _FLOATS for dim in (0, 1, 2, -1)},
    "method softmax": lambda lib: _x(lib).softmax(1),
    "method log_softmax dtype": lambda lib: _x(lib).log_softmax(-1, dtype=lib.float64),
    "softmax dtype from int": lambda lib: lib.softmax(_x(lib, "int64"), 0, dtype=lib.float32),
    "softmax dtype from half": lambda lib: lib.softmax(_x(lib, "float16"), 2, lib.float32),
    "special softmax": lambda lib: lib.special.softmax(_x(lib), 1),
    "special log_softmax": lambda lib: lib.special.log_softmax(_x(lib), 1, dtype=lib.float64),
    "transposed": lambda lib: lib.softmax(_x(lib).permute(2, 0, 1), 1),
    "0-dim dim 0": lambda lib: lib.softmax(lib.tensor(2.0), 0),
    "0-dim dim -1": lambda lib: lib.log_softmax(lib.tensor(2.0), -1),
    "empty": lambda lib: lib.softmax(lib.zeros((0, 3)), 1),
    "empty int": lambda lib: _aten(lib)._softmax(lib.zeros((0, 3), dtype=lib.int64), 1, False),
    "infinities": lambda lib: lib.softmax(lib.tensor([math.inf, 1.0, -math.inf]), 0),
    "all -inf": lambda lib: lib.log_softmax(lib.tensor([-math.inf, -math.inf]), 0),
    "nan": lambda lib: lib.softmax(lib.tensor([math.nan, 1.0]), 0),
    # out=
    "out": lambda lib: lib.softmax(_x(lib), 1, out=_out(lib)),
    "out dtype": lambda lib: lib.log_softmax(_x(lib), 1, dtype=lib.float64,
                                             out=_out(lib, "float64")),
    "out wrong dtype": lambda lib: lib.softmax(_x(lib), 1, out=_out(lib, "float64")),
    "_softmax.out": lambda lib: _aten(lib)._softmax.out(_x(lib), 0, False, out=_out(lib)),
    "_log_softmax.out": lambda lib: _aten(lib)._log_softmax.out(_x(lib), 2, False, out=_out(lib)),
    # meta
    "meta": lambda lib: lib.softmax(lib.empty((2, 3), device="meta"), 1),
    "meta int": lambda lib: _aten(lib)._log_softmax(
        lib.empty((2, 3), dtype=lib.int64, device="meta"), 1, False),
    "meta half_to_float": lambda lib: _aten(lib)._softmax(
        lib.empty((2, 3), dtype=lib.float16, device="meta"), 1, True),
    # errors
    "dim out of range": lambda lib: lib.softmax(_x(lib), 3),
    "0-dim dim 1": lambda lib: lib.softmax(lib.tensor(2.0), 1),
    "int input": lambda lib: lib.softmax(_x(lib, "int64"), 0),
    "int input last dim": lambda lib: lib.log_softmax(_x(lib, "int64"), -1),
    "bool input": lambda lib: lib.softmax(_x(lib, "bool"), 1),
    "complex input": lambda lib: lib.softmax(_x(lib, "complex64"), 2),
    "int dtype": lambda lib: lib.softmax(_x(lib), 0, dtype=lib.int32),
    "half_to_float on CPU": lambda lib: _aten(lib)._softmax(_x(lib, "float16"), 0, True),
    "log half_to_float on CPU": lambda lib: _aten(lib)._log_softmax(_x(lib), 0, True),
    # backward ops
    **{f"backward {op} {d} {dim}": _backward(op, d, dim)
       for op in ("_softmax_backward_data", "_log_softmax_backward_data")
       for d in ("float32", "float64") for dim in (0, 2)},
    "backward input float16": lambda lib: _aten(lib)._softmax_backward_data(
        _x(lib), _x(lib), 1, lib.float16),
    "backward input float64": lambda lib: _aten(lib)._softmax_backward_data(
        _x(lib), _x(lib), 1, lib.float64),
    "backward output dtype": lambda lib: _aten(lib)._log_softmax_backward_data(
        _x(lib, "float64"), _x(lib), 1, lib.float64),
    "backward size": lambda lib: _aten(lib)._softmax_backward_data(
        _x(lib), _x(lib).reshape(4, 6), 1, lib.float32),
    "backward int": lambda lib: _aten(lib)._softmax_backward_data(
        _x(lib, "int32"), _x(lib, "int32"), 1, lib.int32),
    "backward dim": lambda lib: _aten(lib)._softmax_backward_data(
        _x(lib), _x(lib), -4, lib.float32),
    "backward out": lambda lib: _aten(lib)._softmax_backward_data.out(
        _x(lib), _x(lib), 0, lib.float32, grad_input=_out(lib)),
    "log backward out": lambda lib: _aten(lib)._log_softmax_backward_data.out(
        _x(lib), _x(lib), 0, lib.float32, out=_out(lib)),
}


# Cases that build a float16 tensor (array_api_strict stores none).
_NEEDS_FLOAT16 = {"softmax dtype from half", "half_to_float on CPU"}


@pytest.mark.parametrize("name", list(CASES))
def test_case(name: str) -> None:
    if name in _NEEDS_FLOAT16 and "float16" not in STORED_DTYPES:
        pytest.skip("the backend stores no float16")
    _check(CASES[name])


def _grads(lib: Any, op: str, dim: int, order: int) -> list[Any]:
    x = _x(lib, "float64").requires_grad_()
    y = getattr(lib, op)(x, dim)
    w = lib.cos(_x(lib, "float64"))
    (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
    if order == 1:
        return [g]
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    return [gg]


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 2])
@pytest.mark.parametrize("order", [1, 2])
def test_gradient(op: str, dim: int, order: int) -> None:
    for e, a in zip(_grads(torch, op, dim, order), _grads(refimpl, op, dim, order), strict=True):
        _same(e, a)
