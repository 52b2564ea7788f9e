"""The torch.* functions of no family, against torch: type queries, sym_*, the removed
solve/lstsq, range, vander, the weight-norm ops, batch_norm_update_stats and the CUDA-only
sync-batch-norm ops, detach_, dsmm/spmm.

Facts checked: values, dtypes, strides, warnings (category and text), errors (type and text),
and the aten overloads a logging TorchDispatchMode sees.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import outcome
from conformance._torch_misc_checks import (
    LIBS,
    check,
    restore_switches,  # noqa: F401 - the fixture pytestmark names
    same_tensor,
    warnings_of,
)

pytestmark = pytest.mark.usefixtures("restore_switches")


# --- type queries ------------------------------------------------------------------------------

QUERY_CASES: Final = [
    ("is_tensor tensor", lambda lib: lib.is_tensor(lib.ones(1))),
    ("is_tensor int", lambda lib: lib.is_tensor(1)),
    ("is_tensor list", lambda lib: lib.is_tensor([lib.ones(1)])),
    ("is_storage untyped", lambda lib: lib.is_storage(lib.ones(1).untyped_storage())),
    ("is_storage tensor", lambda lib: lib.is_storage(lib.ones(1))),
    ("typename float", lambda lib: lib.typename(lib.ones(2))),
    ("typename long", lambda lib: lib.typename(lib.ones(2, dtype=lib.int64))),
    ("typename bool", lambda lib: lib.typename(lib.ones(2, dtype=lib.bool))),
    ("typename complex", lambda lib: lib.typename(lib.ones(2, dtype=lib.complex64))),
    ("typename meta", lambda lib: lib.typename(lib.ones(2, device="meta"))),
    ("typename int", lambda lib: lib.typename(3)),
    ("typename None", lambda lib: lib.typename(None)),
    ("typename type", lambda lib: lib.typename(int)),
    ("typename ndarray", lambda lib: lib.typename(np.ones(2))),
]


@pytest.mark.parametrize(("name", "call"), QUERY_CASES, ids=[n for n, _ in QUERY_CASES])
def test_type_queries(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


# --- sym_* -------------------------------------------------------------------------------------

SYM_CASES: Final = [
    ("max int", lambda lib: lib.sym_max(1, 2)),
    ("max mixed", lambda lib: lib.sym_max(1, 2.5)),
    ("max float first", lambda lib: lib.sym_max(3.0, 2)),
    ("max bool", lambda lib: lib.sym_max(True, 2)),
    ("max numpy", lambda lib: lib.sym_max(np.int64(3), 2)),
    ("max tensor", lambda lib: lib.sym_max(lib.tensor(1), 2)),
    ("min mixed", lambda lib: lib.sym_min(1, 2.5)),
    ("min float", lambda lib: lib.sym_min(2, 1.5)),
    ("min tensor", lambda lib: lib.sym_min(2, lib.tensor(1.0))),
    ("float int", lambda lib: lib.sym_float(3)),
    ("float bool", lambda lib: lib.sym_float(True)),
    ("float str", lambda lib: lib.sym_float("x")),
    ("float tensor", lambda lib: lib.sym_float(lib.tensor(2))),
    ("int float", lambda lib: lib.sym_int(3.7)),
    ("int negative", lambda lib: lib.sym_int(-3.7)),
    ("int inf", lambda lib: lib.sym_int(float("inf"))),
    ("int tensor", lambda lib: lib.sym_int(lib.tensor(2.5))),
    ("not bool", lambda lib: lib.sym_not(True)),
    ("not int", lambda lib: lib.sym_not(0)),
    ("not tensor", lambda lib: lib.sym_not(lib.tensor(True))),
    ("ite", lambda lib: lib.sym_ite(True, 1, 2)),
    ("ite false", lambda lib: lib.sym_ite(False, 1.0, 2.0)),
    ("ite int condition", lambda lib: lib.sym_ite(0, 1, 2)),
    ("ite mismatched", lambda lib: lib.sym_ite(True, 1, 2.0)),
    ("sqrt", lambda lib: lib.sym_sqrt(4)),
    ("sqrt negative", lambda lib: lib.sym_sqrt(-1)),
    ("sqrt tensor", lambda lib: lib.sym_sqrt(lib.tensor(4.0))),
    ("sum list", lambda lib: lib.sym_sum([1, 2, 3])),
    ("sum mixed", lambda lib: lib.sym_sum([1, 2.5])),
    ("sum empty", lambda lib: lib.sym_sum([])),
    ("sum varargs", lambda lib: lib.sym_sum(1, 2, 3)),
    ("sum tensors", lambda lib: lib.sym_sum([lib.tensor(1), 2])),
]


@pytest.mark.parametrize(("name", "call"), SYM_CASES, ids=[n for n, _ in SYM_CASES])
def test_sym_functions(name: str, call: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(call, torch)
    actual, actual_error = outcome(call, refimpl)
    if expected_error is not None:
        assert type(actual_error) is type(expected_error)
        if "Tensor" not in str(expected_error):  # the class names differ: torch / refimpl
            assert str(actual_error) == str(expected_error)
        return
    assert actual_error is None, actual_error
    if isinstance(expected, torch.Tensor):
        same_tensor(expected, actual)
        return
    assert type(actual) is type(expected)
    assert actual == expected


# --- removed functions -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["solve", "lstsq"])
def test_removed_functions_raise(name: str) -> None:
    check(lambda lib: getattr(lib, name)(lib.eye(2), lib.eye(2)))


# --- range -------------------------------------------------------------------------------------

RANGE_CASES: Final = [
    ("ints", lambda lib: lib.range(0, 3)),
    ("float step", lambda lib: lib.range(0, 3, 0.5)),
    ("tenths", lambda lib: lib.range(0, 1, 0.1)),
    ("tenths float64", lambda lib: lib.range(0, 1, 0.1, dtype=lib.float64)),
    ("tenths float16", lambda lib: lib.range(0, 1, 0.1, dtype=lib.float16)),
    ("int32", lambda lib: lib.range(0, 3, dtype=lib.int32)),
    ("int truncation", lambda lib: lib.range(0.7, 3.2, dtype=lib.int32)),
    ("uint8 wraps", lambda lib: lib.range(0, 300, 100, dtype=lib.uint8)),
    ("descending", lambda lib: lib.range(3, 0, -1)),
    ("single", lambda lib: lib.range(2, 2)),
    ("bool start", lambda lib: lib.range(True, 2)),
    ("tensor bounds", lambda lib: lib.range(lib.tensor(0), lib.tensor(2.5))),
    ("meta", lambda lib: lib.range(0, 3, device="meta")),
    ("requires_grad", lambda lib: lib.range(0, 3, requires_grad=True)),
    ("int requires_grad", lambda lib: lib.range(0, 3, dtype=lib.int64, requires_grad=True)),
    ("wrong sign", lambda lib: lib.range(3, 0)),
    ("zero step", lambda lib: lib.range(0, 3, 0)),
    ("negative step up", lambda lib: lib.range(0, 3, -1)),
    ("inf end", lambda lib: lib.range(0, float("inf"))),
    ("nan end", lambda lib: lib.range(0, float("nan"))),
    ("int inf", lambda lib: lib.range(0, float("inf"), dtype=lib.int64)),
    ("bool dtype", lambda lib: lib.range(0, 2, dtype=lib.bool)),
    ("complex dtype", lambda lib: lib.range(0, 2, dtype=lib.complex64)),
    ("out resized", lambda lib: lib.range(0, 3, out=lib.empty(2))),
    ("out int", lambda lib: lib.range(0, 3, out=lib.empty(0, dtype=lib.int32))),
    ("out dtype mismatch", lambda lib: lib.range(0, 3, out=lib.empty(4), dtype=lib.int64)),
    ("aten default", lambda lib: lib.ops.aten.range.default(0, 3)),
    ("aten step", lambda lib: lib.ops.aten.range.step(0, 3.0, 0.5)),
    ("aten out_", lambda lib: lib.ops.aten.range.out_(0, 2, out=lib.empty(3))),
]


@pytest.mark.parametrize(("name", "call"), RANGE_CASES, ids=[n for n, _ in RANGE_CASES])
def test_range(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


def test_range_warns_deprecation() -> None:
    expected = warnings_of(lambda lib: lib.range(0, 3), torch)
    assert expected and expected[0][0] is UserWarning
    assert warnings_of(lambda lib: lib.range(0, 3), refimpl) == expected


@pytest.mark.parametrize(
    "run",
    [
        lambda lib: lib.range(0, 3),
        lambda lib: lib.range(0, 3, 2, device="meta"),
        lambda lib: lib.range(0, 3, out=lib.empty(4)),
    ],
    ids=["functional", "meta", "out"],
)
def test_range_mode_log(run: Callable[[Any], Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = aten_calls(torch, lambda: run(torch))
        actual, _ = aten_calls(refimpl, lambda: run(refimpl))
    assert actual == expected


# --- vander ------------------------------------------------------------------------------------

VANDER_CASES: Final = [
    ("ints", lambda lib: lib.vander(lib.tensor([1, 2, 3]))),
    ("increasing N", lambda lib: lib.vander(lib.tensor([1, 2, 3]), N=2, increasing=True)),
    ("floats", lambda lib: lib.vander(lib.tensor([0.5, 2.0, -1.0]), 4)),
    ("positional", lambda lib: lib.vander(lib.tensor([1.0, 2.0]), 3, True)),
    ("N 0", lambda lib: lib.vander(lib.tensor([1, 2, 3]), 0)),
    ("N 1", lambda lib: lib.vander(lib.tensor([1, 2, 3]), 1)),
    ("empty", lambda lib: lib.vander(lib.ones(0))),
    ("bool", lambda lib: lib.vander(lib.tensor([True, False]))),
    ("int8 promotes", lambda lib: lib.vander(lib.tensor([1, 2], dtype=lib.int8))),
    ("float16", lambda lib: lib.vander(lib.tensor([1.0, 2.0], dtype=lib.float16))),
    ("complex", lambda lib: lib.vander(lib.tensor([1j, 2.0]))),
    ("strided input", lambda lib: lib.vander(lib.arange(6.0)[::2])),
    ("negative N", lambda lib: lib.vander(lib.tensor([1, 2]), -1)),
    ("0-dim", lambda lib: lib.vander(lib.tensor(1.0))),
    ("2-dim", lambda lib: lib.vander(lib.ones(2, 2))),
]


@pytest.mark.parametrize(("name", "call"), VANDER_CASES, ids=[n for n, _ in VANDER_CASES])
def test_vander(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


@pytest.mark.parametrize("increasing", [False, True])
def test_vander_mode_log_and_backward(increasing: bool) -> None:
    # torch's vander writes into the matrix cumprod read, so its backward refuses (the version
    # check), in refimpl too; the tensor it names is torch's AsStrided view, refimpl's Slice.
    logs, errors = [], []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        log, result = aten_calls(lib, functools.partial(lib.vander, x, increasing=increasing))
        logs.append(log)
        with pytest.raises(RuntimeError) as raised:
            result.sum().backward()
        errors.append(str(raised.value).split(": [torch.FloatTensor")[0])
    assert logs[1] == logs[0]
    assert errors[1] == errors[0]


# --- weight norm -------------------------------------------------------------------------------


def _v(lib: Any) -> Any:
    return lib.arange(6.0).reshape(2, 3)


def _update_stats(lib: Any, mean: Any, var: Any, dtype: Any = None) -> Any:
    """batch_norm_update_stats's results and the running statistics it updated."""
    x = (lib.arange(24.0).reshape(3, 2, 4) * 0.37 - 2).to(dtype or lib.float32)
    return (*lib.batch_norm_update_stats(x, mean, var, 0.1), mean, var)


WEIGHT_NORM_CASES: Final = [
    ("norm_except_dim", lambda lib: lib.norm_except_dim(_v(lib))),
    ("norm_except_dim last", lambda lib: lib.norm_except_dim(_v(lib), 2, 1)),
    ("norm_except_dim all", lambda lib: lib.norm_except_dim(_v(lib), 2, -1)),
    ("norm_except_dim -2", lambda lib: lib.norm_except_dim(_v(lib), 2, -2)),
    ("norm_except_dim p1", lambda lib: lib.norm_except_dim(_v(lib), 1, 0)),
    ("norm_except_dim p3", lambda lib: lib.norm_except_dim(_v(lib), 3, 0)),
    (
        "norm_except_dim middle",
        lambda lib: lib.norm_except_dim(lib.arange(24.0).reshape(2, 3, 4), 2, 1),
    ),
    ("norm_except_dim bad dim", lambda lib: lib.norm_except_dim(_v(lib), 2, 5)),
    ("norm_except_dim int", lambda lib: lib.norm_except_dim(lib.arange(6).reshape(2, 3))),
    ("_weight_norm", lambda lib: lib._weight_norm(_v(lib), lib.ones(2, 1))),
    ("_weight_norm last", lambda lib: lib._weight_norm(_v(lib), lib.ones(1, 3), 1)),
    ("_weight_norm flat g", lambda lib: lib._weight_norm(_v(lib), lib.ones(2), 0)),
    ("_weight_norm all", lambda lib: lib._weight_norm(_v(lib), lib.ones(1), -1)),
    (
        "_weight_norm float64",
        lambda lib: lib._weight_norm(_v(lib).double(), lib.ones(2, 1).double()),
    ),
    (
        "_weight_norm middle",
        lambda lib: lib._weight_norm(lib.arange(24.0).reshape(2, 3, 4), lib.ones(1, 3, 1), 1),
    ),
    (
        "_weight_norm dtypes differ",
        lambda lib: lib._weight_norm(_v(lib), lib.ones(2, 1, dtype=lib.float64)),
    ),
    (
        "_weight_norm int",
        lambda lib: lib._weight_norm(
            lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 1, dtype=lib.int64)
        ),
    ),
    (
        "_weight_norm_interface",
        lambda lib: lib._weight_norm_interface(_v(lib), lib.full((2, 1), 2.0)),
    ),
    ("batch_norm_update_stats", lambda lib: _update_stats(lib, lib.zeros(2), lib.ones(2))),
    (
        "batch_norm_update_stats float16 stats",
        lambda lib: _update_stats(
            lib, lib.zeros(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16), lib.float16
        ),
    ),
    (
        "batch_norm_update_stats float64",
        lambda lib: _update_stats(
            lib, lib.zeros(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64), lib.float64
        ),
    ),
    ("batch_norm_update_stats none", lambda lib: _update_stats(lib, None, None)),
    (
        "batch_norm_update_stats float16",
        lambda lib: lib.batch_norm_update_stats(_v(lib).half(), None, None, 0.1),
    ),
    (
        "batch_norm_update_stats mixed",
        lambda lib: _update_stats(lib, lib.zeros(2), lib.ones(2), dtype=lib.float16),
    ),
    (
        "batch_norm_update_stats channels_last",
        lambda lib: lib.batch_norm_update_stats(
            lib.arange(16.0).reshape(1, 2, 2, 4).contiguous(memory_format=lib.channels_last),
            None,
            None,
            0.3,
        ),
    ),
    (
        "batch_norm_update_stats int",
        lambda lib: lib.batch_norm_update_stats(lib.ones(2, 3, dtype=lib.int64), None, None, 0.1),
    ),
    (
        "batch_norm_update_stats 1-d",
        lambda lib: lib.batch_norm_update_stats(lib.ones(3), None, None, 0.1),
    ),
    (
        "batch_norm_update_stats float64 stats",
        lambda lib: lib.batch_norm_update_stats(
            lib.ones(2, 3), lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), 0.1
        ),
    ),
    (
        "batch_norm_update_stats empty",
        lambda lib: lib.batch_norm_update_stats(lib.ones(0, 3), None, None, 0.1),
    ),
    ("batch_norm_stats cpu", lambda lib: lib.batch_norm_stats(lib.ones(2, 3), 1e-5)),
    (
        "batch_norm_elemt cpu",
        lambda lib: lib.batch_norm_elemt(
            lib.ones(2, 3), lib.ones(3), lib.zeros(3), lib.zeros(3), lib.ones(3), 1e-5
        ),
    ),
    ("native_norm dense", lambda lib: lib.native_norm(lib.tensor([3.0, 4.0]))),
    ("native_norm dim", lambda lib: lib.native_norm(lib.ones(2, 3), 2, [1], False, None)),
]


@pytest.mark.parametrize(("name", "call"), WEIGHT_NORM_CASES, ids=[n for n, _ in WEIGHT_NORM_CASES])
def test_weight_norm_ops(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_weight_norm_mode_log_and_grads(dim: int) -> None:
    logs, grads = [], []
    for lib in LIBS:
        v = (lib.arange(6.0).reshape(2, 3) - 2).requires_grad_()
        shape = {0: (2, 1), 1: (1, 3), -1: (1,)}[dim]
        g = lib.full(shape, 1.5, requires_grad=True)
        log, w = aten_calls(lib, functools.partial(lib._weight_norm, v, g, dim))
        (w * lib.arange(6.0).reshape(2, 3)).sum().backward()
        logs.append(log)
        grads.append((type(w.grad_fn).__name__, v.grad, g.grad))
    assert [op for op in logs[1] if op != "aten.ones.default"] == [
        op for op in logs[0] if op != "aten.ones.default"
    ]
    assert grads[1][0] == grads[0][0]
    for expected, actual in zip(grads[0][1:], grads[1][1:], strict=True):
        got = torch.tensor(actual.tolist())
        torch.testing.assert_close(got, expected)


# --- detach_, dsmm, spmm ------------------------------------------------------------------------

MISC_CASES: Final = [
    ("detach_", lambda lib: lib.detach_(lib.ones(2))),
    ("detach_ non-tensor", lambda lib: lib.detach_(1)),
    ("dsmm", lambda lib: lib.dsmm(lib.ones(2, 3), lib.arange(6.0).reshape(3, 2))),
    ("spmm", lambda lib: lib.spmm(lib.arange(6.0).reshape(2, 3), lib.ones(3, 2))),
    ("dsmm mismatch", lambda lib: lib.dsmm(lib.ones(2, 3), lib.ones(2, 2))),
]


@pytest.mark.parametrize(("name", "call"), MISC_CASES, ids=[n for n, _ in MISC_CASES])
def test_misc(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


def test_detach_in_place_on_graph() -> None:
    for lib in LIBS:
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        assert lib.detach_(b) is b
        assert not b.requires_grad and b.grad_fn is None


def test_dsmm_mode_log() -> None:
    # torch's mode is told of dsmm as mm (refimpl's of nothing); the aten op is mm in both.
    def run(lib: Any) -> Any:
        return lib.dsmm(lib.ones(2, 3), lib.ones(3, 2))

    expected = aten_calls(torch, lambda: run(torch))[0][-1:]
    assert aten_calls(refimpl, lambda: run(refimpl))[0][-1:] == expected


def test_batch_norm_update_stats_mode_log_and_version() -> None:
    seen = []
    for lib in LIBS:
        mean, var = lib.zeros(3), lib.ones(3)
        log, _ = aten_calls(
            lib, functools.partial(lib.batch_norm_update_stats, lib.ones(2, 3), mean, var, 0.1)
        )
        seen.append((log[-1:], mean._version, var._version))
    assert seen[1] == seen[0]
