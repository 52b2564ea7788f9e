"""unravel_index, gradient, _unsafe_masked_index(_put_accumulate) and segment_reduce against torch.

Values, errors (type and message) and gradients, on the cases the OpInfos leave out: every
spacing form of gradient, uneven coordinates, edge_order 2, NaN and zeros in segment_reduce's
max/min/prod gradients, offsets, `initial`, unsafe lengths, empty segments.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl


def _to_refimpl(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        result = refimpl.tensor(value.tolist(), dtype=getattr(refimpl, str(value.dtype)[6:]))
        return result.requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_refimpl(v) for v in value)
    return value


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, torch.Tensor):
        assert tuple(actual.shape) == tuple(expected.shape)
        assert actual.dtype.name == str(expected.dtype)[6:]
        torch.testing.assert_close(
            torch.tensor(actual.tolist(), dtype=expected.dtype), expected.detach(), equal_nan=True
        )
        return
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        _same(e, a)


def _check(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """fn(torch, ...) and fn(refimpl, ...) agree: same values, or same error."""
    try:
        expected = fn(torch, *args, **kwargs)
    except Exception as error:  # noqa: BLE001  # torch's error is the expectation
        with pytest.raises(type(error)) as caught:
            fn(refimpl, *_to_refimpl(args), **_to_refimpl(kwargs))
        assert str(caught.value).replace("refimpl", "torch") == str(error)
        return
    _same(expected, fn(refimpl, *_to_refimpl(args), **_to_refimpl(kwargs)))


# --- unravel_index ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("indices", "shape"),
    [
        ([4, 1], (3, 2)),
        ([[1234], [5678]], (10, 10, 10, 10)),
        ([5, 7], 8),
        ([0], ()),
        ([3], (2, 0)),
        ([1.0], (2,)),
        ([1], (2, -1)),
        ([1], (2, 1.0)),
        ([1], 2.0),
    ],
)
def test_unravel_index(indices: Any, shape: Any) -> None:
    _check(lambda m, i: m.unravel_index(m.tensor(i), shape), indices)


def test_unravel_index_bool_and_functional() -> None:
    _check(lambda m: m.unravel_index(m.tensor([True]), (2,)))
    _check(lambda m: m.functional.unravel_index(m.tensor([5]), (2, 3)))


# --- gradient ---------------------------------------------------------------------------------

_VALUES: list[list[float]] = [
    [1.0, 2, 4, 8, 3],
    [10, 20, 40, 80, -1],
    [3, 5, 9, 1, 0],
    [2, 2, 7, 1, 5],
]


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"spacing": 2.0},
        {"spacing": 3},
        {"spacing": 2.0, "dim": 1},
        {"spacing": 2.0, "dim": [1, 0]},
        {"spacing": [2.0, 0.5]},
        {"spacing": [2.0], "dim": -1},
        {"spacing": [2.0, 3.0], "dim": [1, 0]},
        {"dim": [-1]},
        {"dim": 0},
        {"spacing": [1.0], "dim": [1, 0]},
        {"dim": [1, 1]},
        {"dim": 2},
    ],
)
def test_gradient_uniform(kwargs: dict[str, Any], edge_order: int) -> None:
    _check(lambda m: m.gradient(m.tensor(_VALUES), edge_order=edge_order, **kwargs))


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_gradient_coordinates(edge_order: int, dtype: str) -> None:
    def fn(m: Any) -> Any:
        values = (
            m.tensor(_VALUES, dtype=getattr(m, dtype))
            if dtype != "int64"
            else m.tensor([[int(v) for v in row] for row in _VALUES])
        )
        coordinates = (m.tensor([0.0, 1, 3, 3.5]), m.tensor([0, 1, 3, 4, 7]))
        return m.gradient(values, spacing=coordinates, edge_order=edge_order)

    _check(fn)
    _check(lambda m: m.gradient(m.tensor(_VALUES), spacing=(m.tensor([0.0, 1, 2, 4]),), dim=0))


def test_gradient_errors() -> None:
    _check(lambda m: m.gradient(m.tensor([[1, 2], [3, 4]], dtype=m.uint8)))
    _check(lambda m: m.gradient(m.tensor([[1.0, 2], [3, 4]]), edge_order=2))
    _check(lambda m: m.gradient(m.tensor(_VALUES), edge_order=3))
    _check(lambda m: m.gradient(m.tensor(_VALUES), spacing=[1.0, 2.0, 3.0]))
    _check(lambda m: m.gradient(m.tensor(_VALUES), spacing=(m.tensor([[0.0, 1, 2, 3]]),), dim=0))


def test_gradient_grad() -> None:
    def fn(m: Any) -> Any:
        x = m.tensor(_VALUES, dtype=m.float64, requires_grad=True)
        coordinates = (m.tensor([0.0, 1, 3, 3.5]), m.tensor([0.0, 1, 3, 4, 7]))
        outputs = m.gradient(x, spacing=coordinates, edge_order=2)
        return m.autograd.grad(sum((o * o).sum() for o in outputs), x)

    _check(fn)


# --- _unsafe_masked_index ---------------------------------------------------------------------


def test_unsafe_masked_index() -> None:
    def fn(m: Any) -> Any:
        x = m.arange(12.0).reshape(3, 4).requires_grad_()
        mask = m.tensor([[[True], [False], [True]], [[False], [True], [True]]])
        rows = m.tensor([[0, 5, 2], [-9, 1, -1]])
        out = m._unsafe_masked_index(x, mask, [rows], -1.5)
        (grad,) = m.autograd.grad(out.sum(), x)
        return out, grad

    _check(fn)
    _check(
        lambda m: m._unsafe_masked_index(
            m.zeros(0, 5), m.tensor([True, False]), [m.tensor([0, 1])], 2.0
        )
    )
    _check(lambda m: m._unsafe_masked_index(m.zeros(3), m.tensor([True]), [m.tensor([True])], 0))


def test_unsafe_masked_index_put_accumulate() -> None:
    def fn(m: Any) -> Any:
        x = m.zeros(3, 2, dtype=m.float64, requires_grad=True)
        values = m.tensor([[1.0, 2], [3, 4], [5, 6]], dtype=m.float64, requires_grad=True)
        mask = m.tensor([[True], [True], [False]])
        index = m.tensor([0, 0, 7])
        out = m._unsafe_masked_index_put_accumulate(x, mask, [index], values)
        return (out, *m.autograd.grad((out * out).sum(), (x, values)))

    _check(fn)


# --- segment_reduce ---------------------------------------------------------------------------

_DATA = [[1.0, 2, 3, 3, 5, 0], [5, math.nan, 1, 2, 2, -3]]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "amax", "min", "amin", "prod"])
@pytest.mark.parametrize("initial", [None, 2])
@pytest.mark.parametrize("mode", ["lengths", "offsets"])
def test_segment_reduce(reduce: str, initial: Any, mode: str) -> None:
    def fn(m: Any) -> Any:
        data = m.tensor(_DATA, dtype=m.float64, requires_grad=True)
        lengths = m.tensor([[2, 0, 4], [1, 2, 3]])
        if mode == "lengths":
            bounds = {"lengths": lengths}
        else:
            bounds = {"offsets": m.cat([m.zeros(2, 1, dtype=m.int64), lengths.cumsum(1)], 1)}
        out = m.segment_reduce(data, reduce, axis=1, initial=initial, **bounds)
        weights = m.tensor([[1.0, -2, 3], [-1, 2, 0.5]], dtype=m.float64)
        return (out, *m.autograd.grad((out * weights).sum(), data))

    _check(fn)


def test_segment_reduce_errors() -> None:
    d, lengths = [0.0, 1, 2, 3, 4, 5], [2, 4]
    _check(lambda m: m.segment_reduce(m.tensor(d), "foo", lengths=m.tensor(lengths)))
    _check(lambda m: m.segment_reduce(m.tensor([0, 1, 2]), "sum", lengths=m.tensor([3])))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([2.0, 4])))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([2, 3])))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([-1, 7])))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum"))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor(lengths), axis=1))
    _check(lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([[2, 4]])))
    _check(
        lambda m: m.segment_reduce(
            m.tensor(d), "sum", lengths=m.tensor(lengths), indices=m.tensor(lengths)
        )
    )
    _check(lambda m: m.segment_reduce(m.tensor(d), "mean", lengths=m.tensor([2, 3]), unsafe=True))


def test_segment_reduce_double_backward_is_not_implemented() -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2, 3], requires_grad=True)
        (g,) = m.autograd.grad(
            m.segment_reduce(x, "prod", lengths=m.tensor([3])).sum(), x, create_graph=True
        )
        return m.autograd.grad(g.sum(), x)

    _check(fn)
