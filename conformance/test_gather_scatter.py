"""Indexing by index tensors against torch: gather, scatter, scatter_add, scatter_reduce,
index_select, index_add, index_copy, index_fill, index_reduce, take, put, take_along_dim.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or the result's dtype, shape, strides and values. Every op in
its functional, method, in-place and out= forms, on every stored dtype, on strided inputs,
with duplicate indices (torch's CPU order: the last write wins, reductions in index order),
failing calls that must leave their inputs unchanged, meta tensors, and torch's warnings.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import refimpl
from conformance._oracle import STORED_DTYPES, outcome

DTYPES = STORED_DTYPES
_INF, _NAN = math.inf, math.nan
_VALUES: dict[str, list[Any]] = {
    "bool": [True, False, True, False, True, True, False, False, True, False, False, True],
    "uint": [0, 1, 2, 3, 5, 7, 12, 255, 9, 4, 8, 6],
    "int": [-3, -1, 0, 1, 2, 5, 12, -8, 7, 3, -2, 4],
    "float": [-1.5, -0.0, 0.0, 1.0, 2.5, _INF, _NAN, -_INF, 0.25, 3.0, -2.0, 8.0],
    "complex": [1 + 2j, 0.5j, 0j, 2 - 1j, 0.5 + 0.5j, 3j, -2 + 0j, 1 + 0j, 1j, 2 + 2j,
                -1j, 4 + 0j],
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str, shape: tuple[int, ...] = (3, 4), reverse: bool = False) -> Any:
    data = _VALUES[_kind(dtype)]
    data = data[::-1] if reverse else data
    return lib.tensor(data[: math.prod(shape)], dtype=getattr(lib, dtype)).reshape(shape)


def _f(lib: Any, shape: tuple[int, ...] = (3, 4)) -> Any:
    return lib.arange(float(math.prod(shape))).reshape(shape)


def _ix(lib: Any, values: Any, dtype: str = "int64") -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype))


# An index for dim 1 of a (3, 4) tensor, with duplicates in each row.
_GATHER_INDEX = [[0, 3, 3], [2, 2, 1], [1, 0, 1]]


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float):
        assert actual == expected and type(actual) is type(expected)
        return
    if isinstance(expected, tuple | list):
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.storage_offset() == expected.storage_offset()
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=1e-5, atol=1e-6)


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


# --- every op on every dtype ---------------------------------------------------------------

def _index_d1(lib: Any) -> Any:
    return _ix(lib, [2, 0, 2])


PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "gather": lambda lib, d: lib.gather(_t(lib, d), 1, _ix(lib, _GATHER_INDEX)),
    "scatter_src": lambda lib, d: lib.scatter(
        _t(lib, d), 1, _ix(lib, _GATHER_INDEX), _t(lib, d, (3, 4), reverse=True)),
    "scatter_value": lambda lib, d: lib.scatter(_t(lib, d), 1, _ix(lib, _GATHER_INDEX), 1),
    "scatter_reduce_add": lambda lib, d: lib.scatter(
        _t(lib, d), 1, _ix(lib, _GATHER_INDEX), _t(lib, d, reverse=True), reduce="add"),
    "scatter_reduce_multiply": lambda lib, d: lib.scatter(
        _t(lib, d), 1, _ix(lib, _GATHER_INDEX), _t(lib, d, reverse=True), reduce="multiply"),
    "scatter_value_reduce": lambda lib, d: lib.scatter(
        _t(lib, d), 0, _ix(lib, [[2, 2, 0, 1]]), 1, reduce="add"),
    "scatter_add": lambda lib, d: lib.scatter_add(
        _t(lib, d), 1, _ix(lib, _GATHER_INDEX), _t(lib, d, reverse=True)),
    **{
        f"scatter_reduce_{r}{'' if s else '_exclude_self'}": (
            lambda lib, d, r=r, s=s: lib.scatter_reduce(
                _t(lib, d), 1, _ix(lib, _GATHER_INDEX), _t(lib, d, reverse=True), r,
                include_self=s)
        )
        for r in ("sum", "prod", "mean", "amax", "amin")
        for s in (True, False)
    },
    "index_select": lambda lib, d: lib.index_select(_t(lib, d), 1, _index_d1(lib)),
    "index_select_dim0": lambda lib, d: lib.index_select(_t(lib, d), 0, _ix(lib, [2, 2, 0])),
    "index_add": lambda lib, d: lib.index_add(
        _t(lib, d), 1, _index_d1(lib), _t(lib, d, (3, 3), reverse=True)),
    "index_add_alpha": lambda lib, d: lib.index_add(
        _t(lib, d), 0, _ix(lib, [1, 1]), _t(lib, d, (2, 4), reverse=True), alpha=2),
    "index_copy": lambda lib, d: lib.index_copy(
        _t(lib, d), 1, _index_d1(lib), _t(lib, d, (3, 3), reverse=True)),
    "index_fill": lambda lib, d: lib.index_fill(_t(lib, d), 1, _ix(lib, [-1, 0]), 1),
    "index_fill_tensor": lambda lib, d: lib.index_fill(
        _t(lib, d), 0, _ix(lib, [1]), lib.tensor(0, dtype=getattr(lib, d))),
    **{
        f"index_reduce_{r}{'' if s else '_exclude_self'}": (
            lambda lib, d, r=r, s=s: lib.index_reduce(
                _t(lib, d), 1, _index_d1(lib), _t(lib, d, (3, 3), reverse=True), r,
                include_self=s)
        )
        for r in ("prod", "mean", "amax", "amin")
        for s in (True, False)
    },
    "take": lambda lib, d: lib.take(_t(lib, d), _ix(lib, [[11, 0], [-1, -12]])),
    "put": lambda lib, d: lib.put(
        _t(lib, d), _ix(lib, [1, -1, 1]), _t(lib, d, (3,), reverse=True)),
    "put_accumulate": lambda lib, d: lib.put(
        _t(lib, d), _ix(lib, [1, -1, 1]), _t(lib, d, (3,), reverse=True), accumulate=True),
    "take_along_dim": lambda lib, d: lib.take_along_dim(_t(lib, d), _ix(lib, [[3], [-1], [0]]), 1),
    "take_along_dim_none": lambda lib, d: lib.take_along_dim(_t(lib, d), _ix(lib, [5, 0, 11])),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype))


# --- forms: method, in-place (returns self), out= ------------------------------------------

def _inplace(fn: Callable[[Any, Any], Any]) -> Callable[[Any], Any]:
    """The in-place call on a fresh tensor; the outcome is the tensor and its identity."""
    def run(lib: Any) -> Any:
        self = _f(lib)
        result = fn(lib, self)
        assert result is self
        return self
    return run


def _out(fn: Callable[[Any, Any], Any], out_shape: tuple[int, ...] = (0,)) -> Callable[[Any], Any]:
    def run(lib: Any) -> Any:
        out = lib.empty(out_shape)
        result = fn(lib, out)
        assert result is out
        return out
    return run


_G = _GATHER_INDEX
FORMS: dict[str, Callable[[Any], Any]] = {
    "gather method": lambda lib: _f(lib).gather(1, _ix(lib, _G)),
    "gather out": _out(lambda lib, o: lib.gather(_f(lib), 1, _ix(lib, _G), out=o)),
    "gather int32 index": lambda lib: lib.gather(_f(lib), 1, _ix(lib, _G, "int32")),
    "scatter_ src": _inplace(lambda lib, s: s.scatter_(1, _ix(lib, _G), _f(lib) * 10)),
    "scatter_ value": _inplace(lambda lib, s: s.scatter_(0, _ix(lib, [[2, 0, 2, 1]]), -1.5)),
    "scatter_ reduce": _inplace(
        lambda lib, s: s.scatter_(1, _ix(lib, _G), _f(lib), reduce="multiply")),
    "scatter_ value reduce": _inplace(
        lambda lib, s: s.scatter_(1, _ix(lib, _G), 2.0, reduce="add")),
    "scatter out": _out(lambda lib, o: lib.scatter(_f(lib), 1, _ix(lib, _G), _f(lib), out=o)),
    "scatter value out": _out(lambda lib, o: lib.scatter(_f(lib), 1, _ix(lib, _G), 3, out=o)),
    "scatter reduce out": _out(
        lambda lib, o: lib.scatter(_f(lib), 1, _ix(lib, _G), _f(lib), reduce="add", out=o)),
    "scatter_add_": _inplace(lambda lib, s: s.scatter_add_(1, _ix(lib, _G), _f(lib))),
    "scatter_add out": _out(
        lambda lib, o: lib.scatter_add(_f(lib), 1, _ix(lib, _G), _f(lib), out=o)),
    "scatter_add method": lambda lib: _f(lib).scatter_add(1, _ix(lib, _G), _f(lib)),
    "scatter_reduce_": _inplace(
        lambda lib, s: s.scatter_reduce_(1, _ix(lib, _G), _f(lib), "mean", include_self=False)),
    "scatter_reduce out": _out(
        lambda lib, o: lib.scatter_reduce(_f(lib), 1, _ix(lib, _G), _f(lib), "amax", out=o)),
    "scatter_reduce max alias": lambda lib: lib.scatter_reduce(
        _f(lib), 1, _ix(lib, _G), -_f(lib), "max"),
    "scatter_reduce min alias": lambda lib: lib.scatter_reduce(
        _f(lib), 1, _ix(lib, _G), -_f(lib), "min"),
    "index_select method": lambda lib: _f(lib).index_select(0, _ix(lib, [2, 0])),
    "index_select out": _out(lambda lib, o: lib.index_select(_f(lib), 1, _ix(lib, [3]), out=o)),
    "index_select int32": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [3, 1], "int32")),
    "index_select 0-dim index": lambda lib: lib.index_select(_f(lib), 0, _ix(lib, 1)),
    "index_select 0-dim self": lambda lib: lib.index_select(lib.tensor(5.0), 0, _ix(lib, [0])),
    "index_add_": _inplace(
        lambda lib, s: s.index_add_(0, _ix(lib, [2, 2]), _f(lib, (2, 4)), alpha=-1.5)),
    "index_add out": _out(
        lambda lib, o: lib.index_add(_f(lib), 1, _ix(lib, [0, 0]), _f(lib, (3, 2)), out=o)),
    "index_add int alpha float": lambda lib: lib.index_add(
        _f(lib).long(), 1, _ix(lib, [0, 0]), _f(lib, (3, 2)).long(), alpha=1.5),
    "index_add 0-dim": lambda lib: lib.index_add(lib.tensor(1.0), 0, _ix(lib, [0]),
                                                 lib.tensor(2.0)),
    "index_add 3-dim middle": lambda lib: lib.index_add(
        _f(lib, (2, 3, 2)), 1, _ix(lib, [2, 0, 2]), _f(lib, (2, 3, 2))),
    "index_copy_": _inplace(lambda lib, s: s.index_copy_(1, _ix(lib, [3, 3]), _f(lib, (3, 2)))),
    "index_copy out": _out(
        lambda lib, o: lib.index_copy(_f(lib), 0, _ix(lib, [1]), _f(lib, (1, 4)), out=o)),
    "index_copy 0-dim": lambda lib: lib.index_copy(lib.tensor(1.0), 0, _ix(lib, [0]),
                                                   lib.tensor(2.0)),
    "index_fill_": _inplace(lambda lib, s: s.index_fill_(1, _ix(lib, [-4]), 7)),
    "index_fill_ tensor": _inplace(lambda lib, s: s.index_fill_(0, _ix(lib, 2), lib.tensor(7))),
    "index_fill int from float": lambda lib: lib.index_fill(
        _f(lib).long(), 1, _ix(lib, [0]), 5.5),
    "index_fill uint8 -1": lambda lib: lib.index_fill(
        _f(lib).to(lib.uint8), 1, _ix(lib, [0]), -1),
    "index_fill bool from float": lambda lib: lib.index_fill(
        lib.zeros(3, dtype=lib.bool), 0, _ix(lib, [1]), 2.5),
    "index_fill 0-dim": lambda lib: lib.index_fill(lib.tensor(0.0), 0, _ix(lib, [0]), 5),
    "index_reduce_": _inplace(
        lambda lib, s: s.index_reduce_(0, _ix(lib, [0, 0]), _f(lib, (2, 4)), "amin")),
    "index_reduce out": _out(lambda lib, o: lib.index_reduce(
        _f(lib), 1, _ix(lib, [0, 0]), _f(lib, (3, 2)), "prod", out=o)),
    "index_reduce int mean floors": lambda lib: lib.index_reduce(
        lib.full((3,), -2), 0, _ix(lib, [0, 0, 1]), lib.tensor([1, 0, -3]), "mean"),
    "take method": lambda lib: _f(lib).take(_ix(lib, [0, 11])),
    "take out": _out(lambda lib, o: lib.take(_f(lib), _ix(lib, [[1, 2]]), out=o)),
    "take empty": lambda lib: lib.take(lib.zeros(0), _ix(lib, [], "int64")),
    "take 0-dim": lambda lib: lib.take(lib.tensor(3.0), _ix(lib, 0)),
    "put_": _inplace(lambda lib, s: s.put_(_ix(lib, [0, 0, 5]), lib.tensor([1.0, 2.0, 3.0]))),
    "put_ accumulate": _inplace(lambda lib, s: s.put_(
        _ix(lib, [0, 0, 5]), lib.tensor([1.0, 2.0, 3.0]), accumulate=True)),
    "put method 2-d source": lambda lib: _f(lib).put(_ix(lib, [1, 2]), lib.tensor([[1.0], [2.0]])),
    "put int8 accumulate wraps": lambda lib: lib.put(
        lib.full((2,), 127, dtype=lib.int8), _ix(lib, [0, 0]),
        lib.tensor([1, 1], dtype=lib.int8), accumulate=True),
    "take_along_dim method": lambda lib: _f(lib).take_along_dim(_ix(lib, [[0, 3]]), 1),
    "take_along_dim broadcast self": lambda lib: lib.take_along_dim(
        _f(lib)[:1], _ix(lib, [[2], [0], [1]]), 1),
    "take_along_dim out": _out(
        lambda lib, o: lib.take_along_dim(_f(lib), _ix(lib, [[1]]), 1, out=o)),
    "take_along_dim dim 0 wraps": lambda lib: lib.take_along_dim(
        _f(lib), _ix(lib, [[3, -1, 5, 0]]), 0),
    "take_along_dim none transposed": lambda lib: lib.take_along_dim(
        _f(lib).t(), _ix(lib, [0, 5])),
    "take_along_dim none out": _out(
        lambda lib, o: lib.take_along_dim(_f(lib), _ix(lib, [0, 5]), out=o)),
    "gather index longer along dim": lambda lib: lib.gather(
        _f(lib), 1, _ix(lib, [[0, 1, 2, 3, 3, 1]])),
    "gather 0-dim self, 1-dim index": lambda lib: lib.gather(lib.tensor(3.0), 0, _ix(lib, [0, 0])),
    "gather 0-dim index": lambda lib: lib.gather(lib.tensor([3.0, 4.0]), 0, _ix(lib, 1)),
    "scatter 0-dim": lambda lib: lib.scatter(lib.tensor(0.0), 0, _ix(lib, 0), lib.tensor(5.0)),
    "scatter 0-dim self, 1-dim index": lambda lib: lib.scatter(
        lib.tensor(0.0), 0, _ix(lib, [0]), lib.tensor([5.0])),
    "scatter 0-dim out of bounds": lambda lib: lib.scatter(
        lib.tensor(0.0), 0, _ix(lib, 1), lib.tensor(5.0)),
    "scatter_reduce empty index": lambda lib: lib.scatter_reduce(
        _f(lib), 1, lib.zeros(3, 0, dtype=lib.int64), _f(lib), "mean"),
    "index_select empty index": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [], "int64")),
    "index_select empty self": lambda lib: lib.index_select(lib.zeros(0, 3), 1, _ix(lib, [0])),
    "index_add empty index": lambda lib: lib.index_add(
        _f(lib), 1, _ix(lib, [], "int64"), lib.ones(3, 0)),
    "index_fill empty index": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [], "int64"), 2.0),
    "index_reduce 0-dim": lambda lib: lib.index_reduce(
        lib.tensor(2.0), 0, _ix(lib, [0]), lib.tensor(3.0), "prod"),
    "put 0-dim": lambda lib: lib.put(lib.tensor(3.0), _ix(lib, 0), lib.tensor(1.0)),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_form(name: str) -> None:
    _check(FORMS[name])


# --- strided inputs and layouts ------------------------------------------------------------

LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "gather transposed self": lambda lib: lib.gather(_f(lib, (4, 3)).t(), 1, _ix(lib, _G)),
    "gather transposed index": lambda lib: lib.gather(_f(lib), 1, _ix(lib, _G).t()),
    "gather smaller index": lambda lib: lib.gather(_f(lib), 0, _ix(lib, [[2, 1]])),
    "gather expanded index": lambda lib: lib.gather(_f(lib), 1, _ix(lib, [[3]]).expand(3, 5)),
    "scatter transposed self": lambda lib: lib.scatter(
        _f(lib, (4, 3)).t(), 1, _ix(lib, _G), _f(lib)),
    "scatter_ through a view": lambda lib: _f(lib, (4, 6))[1:, ::2].scatter_(
        1, _ix(lib, _G), _f(lib) + 100)._base,
    "scatter sliced src": lambda lib: lib.scatter(
        _f(lib), 1, _ix(lib, _G), _f(lib, (5, 6))[1:, ::2]),
    "index_select transposed": lambda lib: lib.index_select(_f(lib, (4, 3)).t(), 0, _ix(lib, [1, 0])),
    "index_select strided index": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [0, 9, 3, 9])[::2]),
    "index_add transposed self": lambda lib: lib.index_add(
        _f(lib, (4, 3)).t(), 1, _ix(lib, [0]), lib.ones(3, 1)),
    "index_add_ through a view": lambda lib: _f(lib, (4, 6))[:, 1::2].index_add_(
        0, _ix(lib, [3, 0]), lib.ones(2, 3))._base,
    "index_copy_ transposed": lambda lib: _f(lib, (4, 3)).t().index_copy_(
        1, _ix(lib, [0, 2]), _f(lib, (3, 2))),
    "index_fill keeps layout": lambda lib: lib.index_fill(_f(lib, (4, 3)).t(), 1, _ix(lib, [0]), 5),
    "index_reduce transposed": lambda lib: lib.index_reduce(
        _f(lib, (4, 3)).t(), 1, _ix(lib, [0]), lib.ones(3, 1), "amax"),
    "take transposed": lambda lib: lib.take(_f(lib, (4, 3)).t(), _ix(lib, [1, 2, 5])),
    "put keeps layout": lambda lib: lib.put(_f(lib, (4, 3)).t(), _ix(lib, [1]), lib.ones(1)),
    "put_ transposed": lambda lib: _f(lib, (4, 3)).t().put_(_ix(lib, [1, 4]), lib.ones(2)),
    "take_along_dim transposed": lambda lib: lib.take_along_dim(
        _f(lib, (4, 3)).t(), _ix(lib, [[0], [3], [1]]), 1),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layout(name: str) -> None:
    _check(LAYOUTS[name])


# --- duplicate indices: torch's CPU order --------------------------------------------------

_DUPS = [1, 1, 1, 3, 3, 0, 1]
DUPLICATES: dict[str, Callable[[Any], Any]] = {
    "scatter last wins": lambda lib: lib.scatter(
        lib.zeros(5), 0, _ix(lib, _DUPS), lib.arange(7.0) + 1),
    "scatter last wins long": lambda lib: lib.scatter(
        lib.zeros(3), 0, lib.zeros(1000, dtype=lib.int64), lib.arange(1000.0)),
    "index_copy last wins": lambda lib: lib.index_copy(
        lib.zeros(5, 2), 0, _ix(lib, _DUPS), lib.arange(14.0).reshape(7, 2)),
    "put last wins": lambda lib: lib.put(lib.zeros(5), _ix(lib, _DUPS), lib.arange(7.0) + 1),
    "scatter_add float16 in order": lambda lib: lib.scatter_add(
        lib.ones(3, dtype=lib.float16), 0, _ix(lib, [0, 0, 0, 1]),
        lib.tensor([1000.0, 0.4, 0.4, 3.0], dtype=lib.float16)),
    "scatter_reduce nan amax": lambda lib: lib.scatter_reduce(
        lib.ones(3), 0, _ix(lib, [0, 0, 1, 1]), lib.tensor([_NAN, 1.0, 2.0, -_INF]), "amax"),
    "scatter_reduce nan amin exclude": lambda lib: lib.scatter_reduce(
        lib.ones(3), 0, _ix(lib, [0, 0, 1, 1]), lib.tensor([1.0, _NAN, 2.0, -_INF]), "amin",
        include_self=False),
    "scatter_reduce int mean floors": lambda lib: lib.scatter_reduce(
        lib.zeros(3, dtype=lib.int64), 0, _ix(lib, [0, 0, 1]), lib.tensor([-3, 0, -3]), "mean"),
    "scatter_reduce int8 prod wraps": lambda lib: lib.scatter_reduce(
        lib.full((2,), 3, dtype=lib.int8), 0, _ix(lib, [0, 0, 0, 0, 0]),
        lib.full((5,), 5, dtype=lib.int8), "prod"),
    "index_add many duplicates": lambda lib: lib.index_add(
        lib.zeros(2, 3), 0, lib.zeros(50, dtype=lib.int64), lib.ones(50, 3)),
}


@pytest.mark.parametrize("name", sorted(DUPLICATES))
def test_duplicates(name: str) -> None:
    if "float16" in name and "float16" not in STORED_DTYPES:
        pytest.skip("the backend stores no float16")
    _check(DUPLICATES[name])


# --- errors: torch's type and message, inputs unchanged ------------------------------------

ERRORS: dict[str, Callable[[Any], Any]] = {
    "gather float index": lambda lib: lib.gather(_f(lib), 1, _ix(lib, _G).float()),
    "gather ndim": lambda lib: lib.gather(_f(lib), 1, _ix(lib, [0])),
    "gather out of bounds": lambda lib: lib.gather(_f(lib), 1, _ix(lib, [[4]])),
    "gather negative": lambda lib: lib.gather(_f(lib), 1, _ix(lib, [[-1]])),
    "gather size": lambda lib: lib.gather(_f(lib), 1, lib.zeros(4, 1, dtype=lib.int64)),
    "gather dim": lambda lib: lib.gather(_f(lib), 2, _ix(lib, _G)),
    "gather out dtype": lambda lib: lib.gather(
        _f(lib), 1, _ix(lib, _G), out=lib.empty(3, 3, dtype=lib.float64)),
    "gather uint64-free empty float index": lambda lib: lib.gather(_f(lib), 1, lib.zeros(3, 0)),
    "scatter src dtype": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, _G), _f(lib).double()),
    "scatter index dtype": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, _G).float(), _f(lib)),
    "scatter src size": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, _G), lib.ones(3, 2)),
    "scatter self size": lambda lib: lib.scatter(
        _f(lib), 1, lib.zeros(4, 1, dtype=lib.int64), lib.ones(4, 4)),
    "scatter value size": lambda lib: lib.scatter(_f(lib), 1, lib.zeros(4, 1, dtype=lib.int64), 1),
    "scatter src ndim": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, _G), lib.ones(3, 4, 1)),
    "scatter self ndim": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, [1]), lib.ones(3)),
    "scatter out of bounds": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, [[4]]), _f(lib)),
    "scatter reduce name": lambda lib: lib.scatter(_f(lib), 1, _ix(lib, _G), _f(lib), reduce="sum"),
    "scatter_ value reduce name": lambda lib: _f(lib).scatter_(
        1, _ix(lib, _G), 1.0, reduce="mean"),
    "scatter_ int8 value overflow": lambda lib: _f(lib).to(lib.int8).scatter_(
        1, _ix(lib, _G), 300),
    "scatter_add out of bounds": lambda lib: lib.scatter_add(_f(lib), 0, _ix(lib, [[3]]), _f(lib)),
    "scatter_add out dtype": lambda lib: lib.scatter_add(
        _f(lib), 1, _ix(lib, _G), _f(lib), out=lib.empty(3, 4, dtype=lib.float64)),
    "scatter_reduce name": lambda lib: lib.scatter_reduce(_f(lib), 1, _ix(lib, _G), _f(lib), "add"),
    "scatter_reduce mean bool": lambda lib: lib.scatter_reduce(
        _f(lib) > 2, 1, _ix(lib, _G), _f(lib) > 3, "mean"),
    "scatter_reduce amax complex": lambda lib: lib.scatter_reduce(
        _f(lib).to(lib.complex64), 1, _ix(lib, _G), _f(lib).to(lib.complex64), "amax"),
    "scatter_reduce amin complex exclude": lambda lib: lib.scatter_reduce(
        _f(lib).to(lib.complex64), 1, _ix(lib, _G), _f(lib).to(lib.complex64), "amin",
        include_self=False),
    "index_select 2-d index": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [[2, 0]])),
    "index_select float index": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [1]).float()),
    "index_select dim 0 bounds": lambda lib: lib.index_select(_f(lib), 0, _ix(lib, [3])),
    "index_select dim 1 bounds": lambda lib: lib.index_select(_f(lib), 1, _ix(lib, [-1])),
    "index_select 1-d bounds": lambda lib: lib.index_select(lib.ones(3), 0, _ix(lib, [3])),
    "index_select scalar self": lambda lib: lib.index_select(lib.tensor(5.0), 0, _ix(lib, [0, 0])),
    "index_select empty axis": lambda lib: lib.index_select(lib.zeros(0, 3), 0, _ix(lib, [0])),
    "index_select out dtype": lambda lib: lib.index_select(
        _f(lib), 1, _ix(lib, [1]), out=lib.empty(3, 1, dtype=lib.float64)),
    "index_add source dtype": lambda lib: lib.index_add(
        _f(lib), 1, _ix(lib, [0]), lib.ones(3, 1, dtype=lib.float64)),
    "index_add count": lambda lib: lib.index_add(_f(lib), 1, _ix(lib, [0, 0]), lib.ones(3, 3)),
    "index_add shape": lambda lib: lib.index_add(_f(lib), 1, _ix(lib, [0, 0]), lib.ones(2, 2)),
    "index_add index dims": lambda lib: lib.index_add(_f(lib), 1, _ix(lib, [[0, 0]]), lib.ones(3, 2)),
    "index_add index dtype": lambda lib: lib.index_add(_f(lib), 1, _ix(lib, [0.0]), lib.ones(3, 1)),
    "index_add source dim": lambda lib: lib.index_add(_f(lib), 1, _ix(lib, [0]), lib.ones(3)),
    "index_add scalar source": lambda lib: lib.index_add(
        lib.zeros(3), 0, _ix(lib, [1, 1]), lib.tensor(2.0)),
    "index_add bounds dim 0": lambda lib: lib.index_add(_f(lib), 0, _ix(lib, [3]), lib.ones(1, 4)),
    "index_add bounds 1-d": lambda lib: lib.index_add(lib.ones(3), 0, _ix(lib, [-1]), lib.ones(1)),
    "index_add bounds middle": lambda lib: lib.index_add(
        lib.ones(2, 3, 2), 1, _ix(lib, [3]), lib.ones(2, 1, 2)),
    "index_copy int32": lambda lib: lib.index_copy(
        _f(lib), 1, _ix(lib, [0], "int32"), lib.ones(3, 1)),
    "index_copy dtype": lambda lib: lib.index_copy(
        _f(lib), 1, _ix(lib, [0]), lib.ones(3, 1, dtype=lib.float64)),
    "index_copy slice shape": lambda lib: lib.index_copy(
        lib.zeros(2, 3, 4), 1, _ix(lib, [0]), lib.ones(2, 1, 5)),
    "index_copy dimensionality": lambda lib: lib.index_copy(
        lib.zeros(2, 3, 4), 1, _ix(lib, [0]), lib.ones(1, 5)),
    "index_copy scalar source": lambda lib: lib.index_copy(
        _f(lib), 1, _ix(lib, [0, 1]), lib.tensor(1.0)),
    "index_copy scalar source slice": lambda lib: lib.index_copy(
        _f(lib), 1, _ix(lib, [0]), lib.tensor(1.0)),
    "index_copy count": lambda lib: lib.index_copy(_f(lib), 1, _ix(lib, [2, 2]), _f(lib)),
    "index_copy 2-d index": lambda lib: lib.index_copy(_f(lib), 1, _ix(lib, [[2]]), lib.ones(3, 1)),
    "index_copy bounds": lambda lib: lib.index_copy(_f(lib), 1, _ix(lib, [-1]), lib.ones(3, 1)),
    "index_fill int32": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [0], "int32"), 1),
    "index_fill 2-d index": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [[0]]), 1),
    "index_fill value dims": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [0]), lib.ones(1)),
    "index_fill complex": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [0]), 1j),
    "index_fill complex tensor": lambda lib: lib.index_fill(
        _f(lib), 1, _ix(lib, [0]), lib.tensor(1j)),
    "index_fill bounds": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [4]), 1),
    "index_fill negative bounds": lambda lib: lib.index_fill(_f(lib), 1, _ix(lib, [-5]), 1),
    "index_fill uint8 overflow": lambda lib: lib.index_fill(
        _f(lib).to(lib.uint8), 1, _ix(lib, [0]), 300),
    "index_reduce name": lambda lib: lib.index_reduce(
        _f(lib), 1, _ix(lib, [0]), lib.ones(3, 1), "sum"),
    "index_reduce bounds": lambda lib: lib.index_reduce(
        _f(lib), 1, _ix(lib, [4]), lib.ones(3, 1), "prod"),
    "index_reduce dtype": lambda lib: lib.index_reduce(
        _f(lib), 1, _ix(lib, [0]), lib.ones(3, 1, dtype=lib.float64), "prod"),
    "index_reduce bool": lambda lib: lib.index_reduce(
        _f(lib) > 1, 1, _ix(lib, [0]), lib.ones(3, 1, dtype=lib.bool), "amax"),
    "index_reduce complex": lambda lib: lib.index_reduce(
        _f(lib).to(lib.complex64), 1, _ix(lib, [0]), lib.ones(3, 1, dtype=lib.complex64), "mean"),
    "take int32": lambda lib: lib.take(_f(lib), _ix(lib, [1], "int32")),
    "take bounds": lambda lib: lib.take(_f(lib), _ix(lib, [12])),
    "take negative bounds": lambda lib: lib.take(_f(lib), _ix(lib, [-13])),
    "take from empty": lambda lib: lib.take(lib.zeros(0), _ix(lib, [0])),
    "take out dtype": lambda lib: lib.take(_f(lib), _ix(lib, [1]), out=lib.empty(1, dtype=lib.float64)),
    "take out is self": lambda lib: (lambda x: lib.take(x, _ix(lib, [0, 1]), out=x))(_f(lib)),
    "put count": lambda lib: lib.put(_f(lib), _ix(lib, [1, 2]), lib.ones(3)),
    "put dtype": lambda lib: lib.put(_f(lib), _ix(lib, [1]), _ix(lib, [1])),
    "put index dtype": lambda lib: lib.put(_f(lib), _ix(lib, [1], "int32"), lib.ones(1)),
    "put bounds": lambda lib: lib.put(_f(lib), _ix(lib, [0, 12]), lib.ones(2)),
    "put into empty": lambda lib: lib.put(lib.zeros(0), _ix(lib, [0]), lib.ones(1)),
    "put_ expanded": lambda lib: lib.zeros(1).expand(3).put_(_ix(lib, [1]), lib.ones(1)),
    "take_along_dim int32": lambda lib: lib.take_along_dim(_f(lib), _ix(lib, [[1]], "int32"), 1),
    "take_along_dim ndim": lambda lib: lib.take_along_dim(_f(lib), _ix(lib, [1]), 1),
    "take_along_dim broadcast": lambda lib: lib.take_along_dim(
        _f(lib), _ix(lib, [[1], [1], [1], [1]]), 1),
    "take_along_dim dim": lambda lib: lib.take_along_dim(_f(lib), _ix(lib, [[1]]), 2),
    "take_along_dim 0-dim": lambda lib: lib.take_along_dim(lib.tensor(3.0), _ix(lib, 0), 0),
    "take_along_dim none bounds": lambda lib: lib.take_along_dim(_f(lib), _ix(lib, [12])),
    "take_along_dim ndim before dtype": lambda lib: lib.take_along_dim(
        _f(lib), _ix(lib, [0], "int32"), 1),
    "take_along_dim dtype before dim": lambda lib: lib.take_along_dim(
        _f(lib), _ix(lib, [[0]], "float32"), 5),
    "take_along_dim none int32": lambda lib: lib.take_along_dim(_f(lib), _ix(lib, [0], "int32")),
    "scatter_reduce out dtype before name": lambda lib: lib.scatter_reduce(
        _f(lib), 1, _ix(lib, [[0]]), _f(lib), "x", out=lib.empty(0, dtype=lib.int64)),
    "index_copy out dtype first": lambda lib: lib.index_copy(
        _f(lib), 1, _ix(lib, [[0]]), lib.ones(3, 1), out=lib.empty(0, dtype=lib.int64)),
    "index_add index before out dtype": lambda lib: lib.index_add(
        _f(lib), 1, _ix(lib, [[0]]), lib.ones(3, 1), out=lib.empty(0, dtype=lib.int64)),
    "gather out is self": lambda lib: (lambda x: lib.gather(x, 0, _ix(lib, [[0]]), out=x))(
        _f(lib)),
    "scatter_ expanded self": lambda lib: lib.zeros(1, 4).expand(3, 4).scatter_(
        1, _ix(lib, _G), 1.0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name: str) -> None:
    _check(ERRORS[name])


# In-place and out= calls that fail leave self and out as they were: refimpl checks every
# index before it writes. Differs: torch's CPU loops check while they write (a failing
# scatter_ may have written the elements before the bad index) and resize `out` first, so
# the expected values are self's before the call, made by torch.
UNCHANGED: dict[str, Callable[[Any, Any], Any]] = {
    "scatter_ bounds": lambda lib, s: s.scatter_(1, _ix(lib, [[0, 9]]), 5.0),
    "scatter_add_ bounds": lambda lib, s: s.scatter_add_(1, _ix(lib, [[0], [9]]), _f(lib)),
    "index_add_ bounds": lambda lib, s: s.index_add_(1, _ix(lib, [0, 9]), lib.ones(3, 2)),
    "index_copy_ bounds": lambda lib, s: s.index_copy_(1, _ix(lib, [0, 9]), lib.ones(3, 2)),
    "index_fill_ bounds": lambda lib, s: s.index_fill_(1, _ix(lib, [0, 9]), 5.0),
    "index_reduce_ bounds": lambda lib, s: s.index_reduce_(1, _ix(lib, [0, 9]), lib.ones(3, 2),
                                                          "prod"),
    "put_ bounds": lambda lib, s: s.put_(_ix(lib, [0, 99]), lib.ones(2)),
    "gather out bounds": lambda lib, s: lib.gather(_f(lib), 1, _ix(lib, [[0, 9]]), out=s),
    "index_select out bounds": lambda lib, s: lib.index_select(
        _f(lib), 1, _ix(lib, [0, 9]), out=s),
    "take out bounds": lambda lib, s: lib.take(_f(lib), _ix(lib, [0, 99]), out=s),
}


@pytest.mark.parametrize("name", sorted(UNCHANGED))
def test_failure_leaves_inputs(name: str) -> None:
    def run(lib: Any) -> tuple[Any, str | None]:
        self = _f(lib)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                UNCHANGED[name](lib, self)
        except (RuntimeError, IndexError) as error:
            return self, f"{type(error).__name__}: {error}"
        return self, None

    expected_error = run(torch)[1]
    actual, actual_error = run(refimpl)
    assert expected_error is not None and actual_error == expected_error
    assert actual._version == 0
    _same(_f(torch), actual)


# An `out` that overlaps an index only once resized: torch's structured kernels (gather,
# scatter*, index_add/copy/reduce) resize `out` in their meta function and assert the overlaps
# in their impl, so they raise; index_select and take assert first, on `out` as given, and
# succeed (PyTorch's own error_inputs_gather, sample 7). Differs: torch leaves the failing
# call's `out` resized, refimpl leaves it as it was (an op that fails changes nothing).
RESIZED_OVERLAP: dict[str, Callable[[Any, Any, Any], Any]] = {
    "gather": lambda lib, b, out: lib.gather(_b(lib)[:3], 0, b[1:3], out=out),
    "scatter": lambda lib, b, out: lib.scatter(_b(lib)[:3], 0, b[1:3], _b(lib)[:2], out=out),
    "scatter value": lambda lib, b, out: lib.scatter(_b(lib)[:3], 0, b[1:3], 5, out=out),
    "scatter_add": lambda lib, b, out: lib.scatter_add(_b(lib)[:3], 0, b[1:3], _b(lib)[:2], out=out),
    "scatter_reduce": lambda lib, b, out: lib.scatter_reduce(
        _b(lib)[:3], 0, b[1:3], _b(lib)[:2], "sum", out=out),
    "index_add": lambda lib, b, out: lib.index_add(_b(lib)[:3], 0, b[1:3], _b(lib)[:2], out=out),
    "index_copy": lambda lib, b, out: lib.index_copy(_b(lib)[:3], 0, b[1:3], _b(lib)[:2], out=out),
    "index_reduce": lambda lib, b, out: lib.index_reduce(
        _b(lib)[:3], 0, b[1:3], _b(lib)[:2], "prod", out=out),
    "index_select": lambda lib, b, out: lib.index_select(_b(lib)[:3], 0, b[1:3], out=out),
    "take": lambda lib, b, out: lib.take(_b(lib)[:3], b[1:3], out=out),
}


def _b(lib: Any) -> Any:
    return lib.tensor([0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("name", sorted(RESIZED_OVERLAP))
def test_out_overlapping_once_resized(name: str) -> None:
    def run(lib: Any) -> tuple[list[int], tuple[int, ...], str | None]:
        base = _b(lib)
        out = base[:1]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the resize warning
                RESIZED_OVERLAP[name](lib, base, out)
        except RuntimeError as error:
            return base.tolist(), tuple(out.shape), f"RuntimeError: {error}"
        return base.tolist(), tuple(out.shape), None

    expected, actual = run(torch), run(refimpl)
    assert actual[0] == expected[0] and actual[2] == expected[2]
    assert actual[1] == ((1,) if expected[2] is not None else expected[1])


# --- meta tensors: shapes, dtypes and strides without data ---------------------------------

def _meta(lib: Any, shape: tuple[int, ...] = (3, 4), dtype: str = "float32") -> Any:
    return lib.empty(shape, dtype=getattr(lib, dtype), device="meta")


META: dict[str, Callable[[Any], Any]] = {
    "gather": lambda lib: lib.gather(_meta(lib), 1, _meta(lib, (2, 5), "int64")),
    "scatter": lambda lib: lib.scatter(_meta(lib), 1, _meta(lib, (2, 5), "int64"), 1.0),
    "scatter_reduce": lambda lib: lib.scatter_reduce(
        _meta(lib), 1, _meta(lib, (2, 2), "int64"), _meta(lib), "mean"),
    "index_select": lambda lib: lib.index_select(_meta(lib), 1, _meta(lib, (6,), "int64")),
    "index_add_": lambda lib: _meta(lib).index_add_(0, _meta(lib, (2,), "int64"),
                                                    _meta(lib, (2, 4))),
    "index_copy": lambda lib: lib.index_copy(_meta(lib), 0, _meta(lib, (2,), "int64"),
                                             _meta(lib, (2, 4))),
    "take": lambda lib: lib.take(_meta(lib), _meta(lib, (2, 2), "int64")),
}


@pytest.mark.parametrize("name", sorted(META))
def test_meta(name: str) -> None:
    _check(META[name])


# --- warnings -------------------------------------------------------------------------------

WARNINGS: dict[str, Callable[[Any], Any]] = {
    "scatter src reduce is deprecated": lambda lib: lib.scatter(
        _f(lib), 1, _ix(lib, _G), _f(lib), reduce="add"),
    "index_reduce is beta": lambda lib: lib.index_reduce(
        _f(lib), 1, _ix(lib, [0]), lib.ones(3, 1), "prod"),
    "out resized": lambda lib: lib.gather(_f(lib), 1, _ix(lib, _G), out=lib.empty(5)),
    "index_select out resized": lambda lib: lib.index_select(
        _f(lib), 1, _ix(lib, [0]), out=lib.empty(5)),
}


def _warned(fn: Callable[[Any], Any], lib: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    # Differs: torch appends " (Triggered internally at ...)" to its C++ warnings.
    return [str(w.message).partition(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_warning(name: str) -> None:
    # torch warns some of these once per process: compare with what torch says, if it does.
    expected = _warned(WARNINGS[name], torch)
    actual = _warned(WARNINGS[name], refimpl)
    assert set(expected) <= set(actual)
    assert actual


# --- drawn samples: scatter_reduce and index_add with random duplicates -----------------

@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    data=st.data(),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
    reduce=st.sampled_from(["sum", "prod", "mean", "amax", "amin"]),
    include_self=st.booleans(),
    transposed=st.booleans(),
)
def test_scatter_reduce_drawn(
    data: st.DataObject, shape: tuple[int, ...], reduce: str, include_self: bool,
    transposed: bool,
) -> None:
    dim = data.draw(st.integers(0, len(shape) - 1))
    index_shape = tuple(data.draw(st.integers(1, n)) if d != dim else data.draw(st.integers(1, 6))
                        for d, n in enumerate(shape))
    count = math.prod(index_shape)
    index = data.draw(st.lists(st.integers(0, shape[dim] - 1), min_size=count, max_size=count))
    values = data.draw(st.lists(st.integers(-4, 4), min_size=math.prod(shape) + count,
                                max_size=math.prod(shape) + count))

    def call(lib: Any) -> Any:
        self = lib.tensor(values[: math.prod(shape)], dtype=lib.float64).reshape(shape)
        if transposed and len(shape) > 1:
            self = self.t().contiguous().t()
        src = lib.tensor(values[math.prod(shape):], dtype=lib.float64).reshape(index_shape)
        idx = lib.tensor(index, dtype=lib.int64).reshape(index_shape)
        return self.scatter_reduce(dim, idx, src, reduce, include_self=include_self)

    _check(call)
