"""Specialized calls (Note [Specialized calls] in dispatch/overloads.py) give the general path's
answer: each program runs a call once, so its answer is cached, then changes what the answer
depends on (a kernel registration, a mode, grad mode, the default dtype, a tensor's metadata,
an operand's value) and calls again. Torch runs the same program and the outcomes must agree.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import assert_same_outcome


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list) and len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    if isinstance(expected, torch.Tensor):
        assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(actual.shape) == tuple(expected.shape)
        assert tuple(actual.stride()) == tuple(expected.stride())
        assert actual.requires_grad == expected.requires_grad
        assert actual.is_inference() == expected.is_inference()
        assert (actual.grad_fn is None) == (expected.grad_fn is None)
        if expected.grad_fn is not None:
            assert type(actual.grad_fn).__name__ == type(expected.grad_fn).__name__
        values = torch.tensor(actual.detach().tolist(), dtype=expected.dtype)
        torch.testing.assert_close(values, expected.detach(), equal_nan=True)
        return
    assert actual == expected


def _again(first: Callable[[Any], Any], then: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A program: `first` twice (its answer is cached), then `then`, twice."""

    def program(lib: Any) -> Any:
        first(lib)
        first(lib)
        then(lib)
        return then(lib)

    return program


def _f32(lib: Any) -> Any:
    return lib.arange(6, dtype=lib.float32).reshape(2, 3)


def _i64(lib: Any) -> Any:
    return lib.arange(6).reshape(2, 3)


def _grad_leaf(lib: Any) -> Any:
    return lib.ones(2, 3, requires_grad=True)


def _transposed(lib: Any) -> Any:
    x = _f32(lib).reshape(3, 2)
    x.t_()
    return x + x


def _default_float64(lib: Any) -> Any:
    previous = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        return _i64(lib) + 2.5, lib.exp(_i64(lib)), _i64(lib) * 0.5
    finally:
        lib.set_default_dtype(previous)


def _inference(lib: Any) -> Any:
    with lib.inference_mode():
        return _f32(lib) + _f32(lib), lib.exp(_f32(lib))


def _no_grad(lib: Any) -> Any:
    with lib.no_grad():
        return _grad_leaf(lib) + 1


def _metadata_changed_in_place(lib: Any) -> Any:
    """A tensor whose metadata changes in place after its call was cached."""
    results = []
    for change in (
        lambda x: setattr(x, "data", lib.arange(4, dtype=lib.float64)),
        lambda x: x.set_(lib.arange(2.0)),
        lambda x: x.resize_(5).fill_(2),
        lambda x: x.as_strided_((2,), (2,)),
        lambda x: x.unsqueeze_(0).t_(),
    ):
        x = lib.ones(4)
        _ = x + x  # cached
        change(x)
        results.append(x + x)
    return results


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "metadata_changed_in_place": _metadata_changed_in_place,
    # A tensor's metadata: another layout, requires_grad set afterwards.
    "layout": _again(lambda lib: _f32(lib) + _f32(lib), _transposed),
    "requires_grad_later": _again(
        lambda lib: _f32(lib) * _f32(lib), lambda lib: _f32(lib).requires_grad_() * _f32(lib)
    ),
    "grad_then_plain": _again(lambda lib: _grad_leaf(lib) - 1, lambda lib: _f32(lib) - 1),
    "no_grad": _again(lambda lib: _grad_leaf(lib) + 1, _no_grad),
    "inference_mode": _again(lambda lib: (_f32(lib) + _f32(lib), lib.exp(_f32(lib))), _inference),
    # The default dtype types a Python float.
    "default_dtype": _again(
        lambda lib: (_i64(lib) + 2.5, lib.exp(_i64(lib)), _i64(lib) * 0.5), _default_float64
    ),
    # A number's type and, for ints outside int64, its value.
    "bool_after_int": _again(lambda lib: _f32(lib) + 1, lambda lib: _i64(lib) + True),
    "huge_int": _again(lambda lib: _i64(lib) + 5, lambda lib: _i64(lib) + 2**63),
    "complex_after_float": _again(lambda lib: _f32(lib) * 2.0, lambda lib: _f32(lib) * 2j),
    # Errors are never cached; checks that read values run on every call.
    "bool_sub": _again(
        lambda lib: _f32(lib) - _f32(lib), lambda lib: lib.ones(2, dtype=lib.bool) - True
    ),
    "negative_power": _again(lambda lib: _i64(lib) ** 2, lambda lib: _i64(lib) ** -1),
    "alpha_overflow": _again(
        lambda lib: lib.ones(2, dtype=lib.int8).add(lib.ones(2, dtype=lib.int8)),
        lambda lib: lib.ones(2, dtype=lib.int8).add(lib.ones(2, dtype=lib.int8), alpha=2**40),
    ),
    "where_uint8": _again(
        lambda lib: lib.where(_f32(lib) > 1, _f32(lib), 0.0),
        lambda lib: lib.where((_f32(lib) > 1).to(lib.uint8), _f32(lib), 0.0),
    ),
    # Broadcasting and wrapped numbers after a same-shape call.
    "broadcast": _again(
        lambda lib: _f32(lib) + _f32(lib), lambda lib: _f32(lib) + lib.ones(3, dtype=lib.float64)
    ),
    "zero_dim": _again(lambda lib: _f32(lib) / _f32(lib), lambda lib: _i64(lib) / lib.tensor(2)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_match_torch(name: str) -> None:
    assert_same_outcome(PROGRAMS[name], _same)


def test_grad_flows_after_a_specialized_call() -> None:
    def program(lib: Any) -> Any:
        x = _f32(lib)
        _ = x + x  # cached
        leaf = _grad_leaf(lib)
        (leaf * x + x).sum().backward()
        return leaf.grad

    assert_same_outcome(program, _same)


def test_a_mode_sees_calls_made_before() -> None:
    for lib in (torch, refimpl):
        x = _f32(lib)
        _ = x + x  # cached
        lib.exp(x)
    expected, _ = aten_calls(torch, lambda: (_f32(torch) + 1, torch.exp(_f32(torch))))
    actual, _ = aten_calls(refimpl, lambda: (_f32(refimpl) + 1, refimpl.exp(_f32(refimpl))))
    assert actual == expected


def test_a_kernel_registered_later_runs() -> None:
    """A registration empties the cache; removing it restores the kernel before it."""
    results = {}
    for lib in (torch, refimpl):
        x = _f32(lib)
        before = x + x
        library = lib.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns that the kernel is overridden
            library.impl("add.Tensor", lambda a, b, alpha=1: a.new_full(a.shape, 7.0), "CPU")
        try:
            during = x + x
        finally:
            library._destroy()
        after = x + x
        results[lib.__name__] = [t.tolist() for t in (before, during, after)]
    assert results["refimpl"] == results["torch"]
    assert results["refimpl"][1] == [[7.0] * 3] * 2


def test_the_dispatch_observer_sees_calls_made_before() -> None:
    from refimpl.utils.trace import trace

    x = _f32(refimpl)
    _ = x + x  # cached
    steps = trace(lambda lib: x + x, refimpl).steps
    names = [child.name for step in steps for child in step.children]
    assert any("add.Tensor" in name for name in names), names


def test_specialized_calls_are_cached_per_key() -> None:
    """The cache holds one answer per call key: a repeated call adds nothing."""
    entry = refimpl.ops.aten.add.Tensor._entry
    x = _f32(refimpl)
    _ = x + x
    size = len(entry.specialized_calls)
    for _ in range(3):
        _ = x + x
        _ = _f32(refimpl) + _f32(refimpl)  # new tensors, the same metadata
    assert len(entry.specialized_calls) == size
