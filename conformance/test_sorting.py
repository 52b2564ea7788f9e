"""Sorting and sets against torch: sort, argsort, msort, topk, searchsorted, bucketize, unique,
unique_consecutive, isin, for what the OpInfos leave out.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's type (torch.return_types.<op> for named
tuples), dtype, shape, strides and values (NaNs equal), indices included, so ties and NaNs
must land where torch puts them: the order among equal values of the unstable sort on long
rows (libstdc++'s introsort, replayed), topk's choice among equal values and its order with
sorted=False (nth_element / partial_sort), searchsorted's binary search with NaN values and
boundaries, unique's NaNs (never merged). Also out= tensors of the wrong dtype or shape
(with torch's resize warning), strided inputs, 0-dim and empty inputs, meta tensors, the
Python-level flag handling of torch.unique / unique_consecutive, and torch's errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

_NAN, _INF = math.nan, math.inf
# 3 x 7 samples with ties in every row (and NaNs, an infinity and signed zeros for floats).
_VALUES: dict[str, list[Any]] = {
    "bool": [True, False, True, True, False, False, False, True, False, True, True, True,
             False, False, True, False, True, True, False, True, False],
    "uint": [3, 1, 2, 1, 5, 4, 4, 0, 2, 4, 9, 7, 7, 3, 0, 1, 1, 8, 2, 2, 6],
    "int": [3, 1, 2, 1, -5, 4, 4, 0, 2, 4, -1, 7, 7, 3, -1, 1, 1, -8, 2, 2, 6],
    "float": [3.0, 1.0, 2.5, 1.0, 5.0, -4.0, 4.0, 0.0, -0.0, 4.0, _NAN, 7.0, 7.0, _INF, 0.5,
              _NAN, 1.0, -_INF, 2.5, 2.5, 6.0],
    "complex": [1 + 2j, 3 - 1j, 0.5j, 1 + 2j, -2 + 0j, 4 + 4j, -1 - 3j, 0j, 2 + 1j, 4 + 4j,
                1 - 1j, 0.25 + 3j, -3 + 2j, 1 + 0j, 2 - 2j, 1j, 1j, 2, 3, 4, 5],
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str, shape: tuple[int, ...] = (3, 7)) -> Any:
    return lib.tensor(_VALUES[_kind(dtype)], dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any, values: list[Any], dtype: str = "float32") -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _long_row(lib: Any, n: int = 300, dtype: str = "float32", modulus: int = 7) -> Any:
    # Many ties in one long row: the unstable sort's order among them is introsort's.
    values = [((i * 37) % 101) % modulus for i in range(n)]
    if dtype.startswith("float"):
        values[5] = values[77] = _NAN
    return _f(lib, values, dtype)


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float) or expected is None:
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        assert type(actual).__name__ == type(expected).__name__
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)


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


# --- every dtype ---------------------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "sort": lambda lib, d: lib.sort(_t(lib, d)),
    "sort dim 0 descending": lambda lib, d: lib.sort(_t(lib, d), 0, True),
    "sort stable transposed": lambda lib, d: _t(lib, d).t().sort(stable=True, dim=0),
    "sort long row": lambda lib, d: lib.sort(_long_row(lib, dtype=d)),
    "sort long row descending": lambda lib, d: lib.sort(_long_row(lib, dtype=d), descending=True),
    "argsort": lambda lib, d: lib.argsort(_t(lib, d), 1, True),
    "argsort stable": lambda lib, d: _t(lib, d).argsort(stable=True, dim=0),
    "msort": lambda lib, d: lib.msort(_t(lib, d)),
    "topk": lambda lib, d: lib.topk(_t(lib, d), 3),
    "topk smallest dim 0": lambda lib, d: _t(lib, d).topk(2, 0, False),
    "topk unsorted": lambda lib, d: lib.topk(_t(lib, d), 4, sorted=False),
    "topk long row unsorted": lambda lib, d: lib.topk(_long_row(lib, dtype=d), 50, sorted=False),
    "topk long row partial_sort": lambda lib, d: lib.topk(_long_row(lib, 700, d), 10),
    "searchsorted": lambda lib, d: lib.searchsorted(lib.sort(_t(lib, d)).values, _t(lib, d)),
    "searchsorted right 1-dim": lambda lib, d: lib.searchsorted(
        lib.sort(_t(lib, d).flatten()).values, _t(lib, d), right=True
    ),
    "searchsorted sorter": lambda lib, d: lib.searchsorted(
        _t(lib, d), _t(lib, d), side="right", sorter=lib.argsort(_t(lib, d), stable=True)
    ),
    "bucketize": lambda lib, d: lib.bucketize(_t(lib, d), lib.msort(_t(lib, d)[0])),
    "unique": lambda lib, d: lib.unique(_t(lib, d), return_inverse=True, return_counts=True),
    "unique dim 0": lambda lib, d: lib.unique(_t(lib, d), dim=0, return_counts=True),
    "unique dim 1": lambda lib, d: _t(lib, d).unique(dim=1, return_inverse=True),
    "unique_consecutive": lambda lib, d: lib.unique_consecutive(
        _t(lib, d), return_inverse=True, return_counts=True
    ),
    "unique_consecutive dim": lambda lib, d: _t(lib, d).unique_consecutive(dim=1),
    "isin": lambda lib, d: lib.isin(_t(lib, d), _t(lib, d)[1]),
    "isin invert": lambda lib, d: lib.isin(_t(lib, d), _t(lib, d)[0, :3], invert=True),
}


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype))


# --- forms, edge cases, errors -------------------------------------------------------------


def _out_pair(lib: Any, shape: tuple[int, ...] = (2,), dtype: str = "float32") -> Any:
    return lib.zeros(shape, dtype=getattr(lib, dtype)), lib.zeros(shape, dtype=lib.int64)


CASES: dict[str, Callable[[Any], Any]] = {
    # sort / argsort / msort
    "sort 0-dim": lambda lib: lib.sort(lib.tensor(3.0)),
    "sort empty": lambda lib: lib.sort(lib.zeros(0, 3), 0),
    "sort dim out of range": lambda lib: lib.sort(_t(lib, "float32"), 2),
    "sort out= resized": lambda lib: lib.sort(_t(lib, "float32"), out=_out_pair(lib)),
    "sort out= wrong dtype": lambda lib: lib.sort(
        _t(lib, "float32"), out=_out_pair(lib, dtype="float64")
    ),
    "sort descending NaN first": lambda lib: lib.sort(
        _f(lib, [1.0, _NAN, -0.0, 0.0, _NAN, -_INF]), descending=True
    ),
    "sort long row stable": lambda lib: lib.sort(_long_row(lib), stable=True),
    "sort long row 2-dim": lambda lib: lib.sort(_long_row(lib, 600).reshape(20, 30), 0),
    "argsort stable out=": lambda lib: lib.argsort(
        _t(lib, "float32"), stable=True, out=lib.zeros(0, dtype=lib.int64)
    ),
    "argsort stable out= wrong dtype": lambda lib: lib.argsort(
        _t(lib, "float32"), stable=True, out=lib.zeros(0)
    ),
    "msort out=": lambda lib: lib.msort(_t(lib, "int64"), out=lib.zeros(0, dtype=lib.int64)),
    "sort meta": lambda lib: lib.sort(lib.empty(4, 5, device="meta"), 0),
    "argsort meta": lambda lib: lib.argsort(lib.empty(4, 5, device="meta"), stable=True),
    # topk
    "topk k too large": lambda lib: lib.topk(_t(lib, "float32"), 8),
    "topk k negative": lambda lib: lib.topk(_t(lib, "float32"), -1),
    "topk 0-dim": lambda lib: lib.topk(lib.tensor(2.0), 1),
    "topk 0-dim k 0": lambda lib: lib.topk(lib.tensor(2.0), 0),
    "topk k 0": lambda lib: lib.topk(_t(lib, "float32"), 0),
    "topk empty": lambda lib: lib.topk(lib.zeros(0, 3), 2),
    "topk transposed": lambda lib: lib.topk(_t(lib, "float32").t(), 2, 0),
    "topk NaN largest": lambda lib: lib.topk(_f(lib, [1.0, _NAN, 3.0, _NAN, 2.0]), 3),
    "topk NaN smallest": lambda lib: lib.topk(_f(lib, [1.0, _NAN, 3.0, _NAN, 2.0]), 4, largest=False),
    "topk issue example": lambda lib: lib.topk(
        _f(lib, [4, 1, 2, 3, 9, 1, 0]), 3, sorted=False
    ),
    "topk out=": lambda lib: lib.topk(_t(lib, "float32"), 2, out=_out_pair(lib, (5,))),
    "topk out= wrong dtype": lambda lib: lib.topk(
        _t(lib, "float32"), 2, out=_out_pair(lib, dtype="int64")
    ),
    "topk bool": lambda lib: lib.topk(_t(lib, "bool"), 2),
    "topk complex": lambda lib: lib.topk(_t(lib, "complex64"), 2),
    "topk meta": lambda lib: lib.topk(lib.empty(4, 5, device="meta"), 2),
    "topk meta k too large": lambda lib: lib.topk(lib.empty(4, 5, device="meta"), 6),
    "topk meta k negative": lambda lib: lib.topk(lib.empty(4, 5, device="meta"), -1),
    "topk meta complex": lambda lib: lib.topk(lib.empty(4, 5, device="meta", dtype=lib.cfloat), 2),
    # searchsorted / bucketize
    "searchsorted NaN": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0, _NAN]), _f(lib, [_NAN, 2.0, 5.0, -_INF])
    ),
    "searchsorted unsorted": lambda lib: lib.searchsorted(
        _f(lib, [5.0, 1.0, 4.0, 2.0, 3.0]), _f(lib, [0.0, 2.0, 3.5, 9.0])
    ),
    "searchsorted scalar": lambda lib: lib.searchsorted(_f(lib, [1, 2, 3], "int64"), 2.5),
    "searchsorted scalar right": lambda lib: lib.searchsorted(_f(lib, [1.0, 2.0]), 2, right=True),
    "searchsorted out_int32": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5, 3.0]), out_int32=True
    ),
    "searchsorted mixed dtypes": lambda lib: lib.searchsorted(
        _f(lib, [1, 2, 3], "int32"), _f(lib, [1.5, 3.0], "float64")
    ),
    "searchsorted out=": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5, 3.0]), out=lib.zeros(5, dtype=lib.int64)
    ),
    "searchsorted out= wrong dtype": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5, 3.0]), out=lib.zeros(2)
    ),
    "searchsorted bad side": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5]), side="middle"
    ),
    "searchsorted side and right": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5]), side="left", right=True
    ),
    "searchsorted sorter size": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5]), sorter=_f(lib, [0, 1, 2], "int64")
    ),
    "searchsorted sorter dtype": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5]), sorter=_f(lib, [0, 1], "int32")
    ),
    "searchsorted sorter range": lambda lib: lib.searchsorted(
        _f(lib, [1.0, 2.0]), _f(lib, [1.5]), sorter=_f(lib, [0, 2], "int64")
    ),
    "searchsorted scalar 2-dim boundaries": lambda lib: lib.searchsorted(lib.ones(2, 2), 1.0),
    "searchsorted 0-dim boundaries": lambda lib: lib.searchsorted(lib.tensor(1.0), _f(lib, [1.0])),
    "searchsorted leading dims": lambda lib: lib.searchsorted(lib.ones(2, 2), lib.ones(3, 2)),
    "searchsorted bool": lambda lib: lib.searchsorted(
        _f(lib, [False, True], "bool"), _f(lib, [True], "bool")
    ),
    "searchsorted meta": lambda lib: lib.searchsorted(
        lib.empty(3, 4, device="meta"), lib.empty(3, 2, device="meta"), out_int32=True
    ),
    "bucketize 2-dim boundaries": lambda lib: lib.bucketize(_f(lib, [1.0]), lib.ones(2, 2)),
    "bucketize meta 2-dim boundaries": lambda lib: lib.bucketize(
        lib.empty(3, device="meta"), lib.empty(2, 2, device="meta")
    ),
    "bucketize scalar": lambda lib: lib.bucketize(4, _f(lib, [1, 3, 6], "int64"), right=True),
    "bucketize out=": lambda lib: lib.bucketize(
        _f(lib, [1.0, 4.0]), _f(lib, [0.0, 2.0]), out_int32=True, out=lib.zeros(0, dtype=lib.int32)
    ),
    # unique / unique_consecutive
    "unique NaNs never merged": lambda lib: lib.unique(
        _f(lib, [_NAN, 1.0, _NAN, 1.0]), return_inverse=True, return_counts=True
    ),
    "unique sorted=False still sorted": lambda lib: lib.unique(
        _f(lib, [3, 1, 2, 1], "int64"), sorted=False, return_inverse=True
    ),
    "unique 0-dim": lambda lib: lib.unique(lib.tensor(3.0), return_inverse=True, return_counts=True),
    "unique empty": lambda lib: lib.unique(lib.zeros(0, 3), return_inverse=True, return_counts=True),
    "unique positional flags": lambda lib: lib.unique(_f(lib, [2, 1, 2], "int64"), True, False, True),
    "unique dim 0-dim": lambda lib: lib.unique(lib.tensor(3.0), dim=0),
    "unique dim zero-size other": lambda lib: lib.unique(lib.zeros(2, 0), dim=0),
    "unique dim zero-size selected": lambda lib: lib.unique(
        lib.zeros(0, 2), dim=0, return_inverse=True, return_counts=True
    ),
    "unique dim 3-dim": lambda lib: lib.unique(
        _t(lib, "int64", (3, 7, 1)).expand(3, 7, 2), dim=2, return_inverse=True
    ),
    "unique dim NaN and -0.0 slices": lambda lib: lib.unique(
        _f(lib, [[0.0, 1.0], [_NAN, 2.0], [-0.0, 1.0], [_NAN, 2.0], [1.0, _NAN], [-0.0, -0.0],
                 [0.0, 0.0], [1.0, 0.5]]),
        dim=0, return_inverse=True, return_counts=True,
    ),
    "unique complex": lambda lib: lib.unique(_t(lib, "complex64")),
    "unique meta": lambda lib: lib.unique(lib.empty(3, device="meta")),
    "unique_consecutive NaNs": lambda lib: lib.unique_consecutive(
        _f(lib, [_NAN, _NAN, 1.0, 1.0]), return_counts=True
    ),
    "unique_consecutive positional quirk": lambda lib: lib.unique_consecutive(
        _f(lib, [1, 1, 2], "int64"), True
    ),
    "unique_consecutive positional quirk 2": lambda lib: lib.unique_consecutive(
        _f(lib, [1, 1, 2], "int64"), False, True
    ),
    "unique_consecutive 0-dim": lambda lib: lib.unique_consecutive(
        lib.tensor(3.0), return_inverse=True, return_counts=True
    ),
    "unique_consecutive dim 0-dim": lambda lib: lib.unique_consecutive(lib.tensor(3.0), dim=0),
    "unique_consecutive 1-dim dim 0": lambda lib: lib.unique_consecutive(
        _f(lib, [1, 1, 2], "int64"), return_inverse=True, dim=0
    ),
    "unique_consecutive complex": lambda lib: lib.unique_consecutive(_t(lib, "complex64")),
    # isin
    "isin scalar test": lambda lib: lib.isin(_t(lib, "int64"), 4),
    "isin scalar element": lambda lib: lib.isin(4, _t(lib, "int64")),
    "isin uint8 against -1": lambda lib: lib.isin(_f(lib, [255, 2], "uint8"), -1),
    "isin uint8 against tensor -1": lambda lib: lib.isin(
        _f(lib, [255, 2], "uint8"), _f(lib, [-1], "int64")
    ),
    "isin mixed dtypes": lambda lib: lib.isin(_f(lib, [1, 2], "int64"), _f(lib, [1.5, 2.0])),
    "isin NaN": lambda lib: lib.isin(_f(lib, [_NAN, 1.0]), _f(lib, [_NAN, 1.0])),
    "isin empty test": lambda lib: lib.isin(_f(lib, [1.0, 2.0]), lib.zeros(0)),
    "isin transposed": lambda lib: lib.isin(_t(lib, "float32").t(), _f(lib, [1.0, 4.0])),
    "isin bool": lambda lib: lib.isin(_t(lib, "bool"), _t(lib, "bool")),
    "isin bool scalar": lambda lib: lib.isin(_t(lib, "int64"), True),
    "isin complex scalar": lambda lib: lib.isin(_t(lib, "int64"), 1j),
    "isin out=": lambda lib: lib.isin(
        _t(lib, "int64"), _f(lib, [1, 2], "int64"), out=lib.zeros(0, dtype=lib.bool)
    ),
    "isin out= wrong dtype": lambda lib: lib.isin(
        _t(lib, "int64"), _f(lib, [1, 2], "int64"), out=lib.zeros(0)
    ),
    "isin meta": lambda lib: lib.isin(lib.empty(3, 2, device="meta"), lib.empty(4, device="meta")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str) -> None:
    _check(CASES[name])


def test_out_resize_warns() -> None:
    # torch: resize_output's deprecation warning when an out= tensor with elements is resized.
    for lib in (torch, refimpl):
        with pytest.warns(UserWarning, match="was resized since it had shape"):
            lib.topk(_t(lib, "float32"), 2, out=_out_pair(lib, (5,)))


@pytest.mark.parametrize("op", ["sort", "topk", "msort"])
def test_gradient(op: str) -> None:
    # torch: value_selecting_reduction_backward: the gradient flows to the chosen positions.
    def grad(lib: Any) -> Any:
        x = _f(lib, [3.0, 1.0, 2.0, 1.0, 5.0, 4.0]).reshape(2, 3).requires_grad_()
        if op == "sort":
            y = lib.sort(x, 1, descending=True).values
        elif op == "topk":
            y = lib.topk(x, 2, 1).values
        else:
            y = lib.msort(x)
        (y * lib.arange(y.numel(), dtype=lib.float32).reshape(y.shape)).sum().backward()
        return x.grad

    _check(grad)


# --- drawn inputs: many ties, NaNs, every algorithm path ------------------------------------

_SHAPES = [(1,), (16,), (17,), (40,), (5, 33), (3, 4, 70), (1000,), (4000,)]


def _drawn(lib: Any, shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    generator = torch.Generator().manual_seed(seed)
    values = torch.randint(-4, 5, shape, generator=generator).to(getattr(torch, dtype))
    if dtype.startswith("float"):
        values.view(-1)[:: 5 + seed % 7] = _NAN
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype))


_DRAWS = [(1, True, True), (3, False, False), (0.5, True, False), (1.0, False, True),
          (1 / 64, True, True)]


def _drawn_calls(shape: tuple[int, ...], dtype: str, seed: int) -> list[Callable[[Any], Any]]:
    fraction, largest, order = _DRAWS[seed]
    n = shape[-1]
    k = max(min(int(fraction * n) if isinstance(fraction, float) else fraction, n), 1)

    def x(lib: Any, offset: int = 0) -> Any:
        return _drawn(lib, shape, dtype, seed + offset)

    return [
        lambda lib: lib.sort(x(lib), descending=largest),
        lambda lib: lib.topk(x(lib), k, largest=largest, sorted=order),
        lambda lib: lib.unique(x(lib), return_inverse=True, return_counts=True),
        lambda lib: lib.searchsorted(x(lib), x(lib, 1), right=largest),
    ]


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_drawn(shape: tuple[int, ...], dtype: str) -> None:
    for seed in range(len(_DRAWS)):
        for call in _drawn_calls(shape, dtype, seed):
            _check(call)


@pytest.mark.parametrize("dim", [None, 0])
@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_unique_backward_not_implemented(op: str, dim: int | None) -> None:
    # torch: derivatives.yaml's not_implemented("_unique2") etc.: the output requires grad,
    # its node is named after the op, backward raises NotImplementedError.
    def backward(lib: Any) -> Any:
        x = _f(lib, [[3.0, 1.0], [3.0, 1.0]]).requires_grad_()
        y = getattr(lib, op)(x, dim=dim)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        return name

    _check(backward)
