"""Normalization against torch, for what the OpInfos leave out: layer, group, batch, instance
and RMS normalization and normalize through torch.nn.functional, torch.* and the aten ops
(errors, running statistics written in place, evaluation mode, channels-last and permuted
inputs, float16 with float32 parameters, out=, first and second gradients, and the aten
overloads a TorchDispatchMode sees forward and backward).

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the results' dtype, shape, strides and values.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as torch_F

import refimpl
import refimpl.nn.functional as refimpl_F
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import STORED_DTYPES, outcome

_FLOATS = [d for d in ("float16", "float32", "float64") if d in STORED_DTYPES]


def _F(lib: Any) -> Any:
    return torch_F if lib is torch else refimpl_F


def _t(lib: Any, shape: tuple[int, ...], dtype: str = "float32", shift: float = 0.0) -> Any:
    n = int(np.prod(shape))
    values = np.random.default_rng(n).standard_normal(n).tolist()  # the same in both libraries
    return lib.tensor([v + shift for v in values], dtype=getattr(lib, dtype)).reshape(shape)


def _array(t: Any) -> np.ndarray:
    if t.device.type == "meta":
        return np.empty(0)
    return np.asarray(
        t.detach().float().numpy() if t.dtype in (torch.float16,) else t.detach().numpy()
    )


_TOLERANCE = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-10}


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    if expected is None or not isinstance(expected, torch.Tensor):
        assert actual == expected
        return
    dtype = str(expected.dtype).split(".")[-1]
    assert str(actual.dtype).split(".")[-1] == dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        return
    e = expected.detach().to(torch.float64).numpy()
    a = np.asarray(actual.detach().to(refimpl.float64).numpy())
    tol = _TOLERANCE.get(dtype, 0.0)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        # refimpl's Size prints as refimpl.Size where torch's prints as torch.Size.
        message = str(actual_error).replace("refimpl.Size", "torch.Size")
        assert (type(actual_error), message) == (type(expected_error), str(expected_error))
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


# --- forward: F functions, running statistics, layouts -----------------------------------


def _bn(training: bool, stats: bool, affine: bool, layout: str) -> Callable[[Any], Any]:
    def call(lib: Any) -> Any:
        x = _t(lib, (2, 3, 2, 4))
        if layout == "channels_last":
            x = x.contiguous(memory_format=lib.channels_last)
        elif layout == "permuted":
            x = _t(lib, (4, 3, 2, 2)).permute(3, 1, 2, 0)
        rm = _t(lib, (3,), shift=0.0) if stats else None
        rv = _t(lib, (3,)).abs() + 0.5 if stats else None
        w = _t(lib, (3,)) if affine else None
        b = _t(lib, (3,), shift=1.0) if affine else None
        out = _F(lib).batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-3)
        return (out, rm, rv) if stats else out

    return call


_BN_CASES = [
    (training, stats, affine, layout)
    for training in (True, False)
    for stats in (True, False)
    for affine in (True, False)
    for layout in ("contiguous", "channels_last", "permuted")
    if training or stats
]


@pytest.mark.parametrize(("training", "stats", "affine", "layout"), _BN_CASES, ids=lambda v: str(v))
def test_batch_norm_matches_torch(training: bool, stats: bool, affine: bool, layout: str) -> None:
    _check(_bn(training, stats, affine, layout))


@pytest.mark.parametrize("dtype", _FLOATS)
def test_batch_norm_dtypes(dtype: str) -> None:
    def call(lib: Any) -> Any:
        x = _t(lib, (4, 3, 5), dtype)
        rm, rv = lib.zeros(3), lib.ones(3)
        w, b = _t(lib, (3,)), _t(lib, (3,), shift=0.5)
        params = (w, b, rm, rv) if dtype != "float64" else tuple(p.double() for p in (w, b, rm, rv))
        return lib.native_batch_norm(
            x, *params, True, 0.1, 1e-5
        ), rm if dtype != "float64" else None

    _check(call)


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("stats", [True, False])
def test_instance_norm_matches_torch(use_input_stats: bool, stats: bool) -> None:
    def call(lib: Any) -> Any:
        x = _t(lib, (2, 3, 4))
        rm = _t(lib, (3,)) if stats else None
        rv = _t(lib, (3,)).abs() + 0.5 if stats else None
        w, b = _t(lib, (3,)), _t(lib, (3,), shift=1.0)
        out = _F(lib).instance_norm(x, rm, rv, w, b, use_input_stats=use_input_stats)
        return out, rm, rv

    _check(call)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("affine", ["none", "weight", "both", "float32 params"])
def test_layer_norm_matches_torch(dtype: str, affine: str) -> None:
    def call(lib: Any) -> Any:
        x = _t(lib, (2, 3, 4), dtype).transpose(0, 1)
        pdtype = "float32" if affine == "float32 params" else dtype
        w = None if affine == "none" else _t(lib, (2, 4), pdtype)
        b = _t(lib, (2, 4), pdtype, shift=0.5) if affine in ("both", "float32 params") else None
        return lib.native_layer_norm(x, [2, 4], w, b, 1e-5)

    _check(call)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm_rounds_as_torch(dtype: str, affine: str) -> None:
    """The affine step rounds as torch's kernel: float32 and float64 `(x - mean) * rstd`
    (so a row of one element normalizes to 0), then one fused multiply-add with the
    parameters; float16 `x * rstd - mean * rstd` fused in float32 (a small nonzero value for
    a row of one element). Exact where the statistics are: rows of one element (torch's
    Welford moments and refimpl's sums may differ in the last bit elsewhere)."""
    for shape in [(5, 1), (6, 33)]:
        n = shape[-1]
        results = []
        for lib in (torch, refimpl):
            x = _t(lib, shape, dtype, shift=2.0) * 3
            w = _t(lib, (n,), dtype) if affine in ("weight", "both") else None
            b = _t(lib, (n,), dtype, shift=0.5) if affine in ("bias", "both") else None
            results.append(_array(lib.native_layer_norm(x, [n], w, b, 1e-5)[0]))
        expected, actual = results
        if n == 1:
            np.testing.assert_array_equal(actual, expected)
        else:
            np.testing.assert_allclose(actual, expected, rtol=_TOLERANCE[dtype], atol=1e-6)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "permuted"])
def test_group_norm_matches_torch(dtype: str, layout: str) -> None:
    def call(lib: Any) -> Any:
        x = _t(lib, (2, 6, 2, 2), dtype)
        if layout == "channels_last":
            x = x.contiguous(memory_format=lib.channels_last)
        elif layout == "permuted":
            x = x.transpose(2, 3)
        w, b = _t(lib, (6,), dtype), _t(lib, (6,), dtype, shift=1.0)
        return _F(lib).group_norm(x, 3, w, b, eps=1e-3)

    _check(call)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("eps", [None, 0.25])
def test_rms_norm_matches_torch(dtype: str, eps: float | None) -> None:
    _check(
        lambda lib: _F(lib).rms_norm(_t(lib, (2, 3, 4), dtype), [3, 4], _t(lib, (3, 4), dtype), eps)
    )


def test_rms_norm_dtype_mismatch_warns() -> None:
    for lib in (torch, refimpl):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _F(lib).rms_norm(_t(lib, (2, 4), "float64"), [4], _t(lib, (4,)))
        texts = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        assert any("Mismatch dtype between input and weight" in t for t in texts), lib


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_normalize_matches_torch(p: float, dim: int) -> None:
    _check(lambda lib: _F(lib).normalize(_t(lib, (3, 4, 2)), p=p, dim=dim))


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 5, 2, 3), (2, 5, 2, 1, 3), (0, 5, 3)])
def test_local_response_norm_matches_torch(dtype: str, shape: tuple[int, ...]) -> None:
    _check(lambda lib: _F(lib).local_response_norm(_t(lib, shape, dtype), 3, k=1.5))


def test_normalize_out() -> None:
    def call(lib: Any) -> Any:
        out = lib.zeros(3)
        result = _F(lib).normalize(_t(lib, (3, 4)), dim=1, out=out)
        return result, out

    _check(call)


def test_out_forms() -> None:
    def layer(lib: Any) -> Any:
        outs = [lib.zeros(0) for _ in range(3)]
        lib.ops.aten.native_layer_norm.out(
            _t(lib, (3, 4)), [4], None, None, 1e-5, out0=outs[0], out1=outs[1], out2=outs[2]
        )
        return outs

    def batch(lib: Any) -> Any:
        outs = [lib.zeros(0) for _ in range(3)]
        lib.ops.aten.native_batch_norm.out(
            _t(lib, (4, 3)),
            None,
            None,
            None,
            None,
            True,
            0.1,
            1e-5,
            out=outs[0],
            save_mean=outs[1],
            save_invstd=outs[2],
        )
        return outs

    _check(layer)
    _check(batch)


def test_legit_running_stats_keep_their_version() -> None:
    for lib in (torch, refimpl):
        rm, rv = lib.zeros(3), lib.ones(3)
        lib.ops.aten._native_batch_norm_legit(_t(lib, (4, 3)), None, None, rm, rv, True, 0.1, 1e-5)
        assert (rm._version, rv._version) == (0, 0)


# --- errors ----------------------------------------------------------------------------------

_ERRORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("ln empty shape", lambda lib: lib.native_layer_norm(_t(lib, (2, 4)), [], None, None, 1e-5)),
    ("ln weight shape", lambda lib: lib.layer_norm(_t(lib, (2, 4)), [4], lib.ones(3))),
    ("ln bias shape", lambda lib: lib.layer_norm(_t(lib, (2, 4)), [4], None, lib.ones(3))),
    ("ln input shape", lambda lib: _F(lib).layer_norm(_t(lib, (2, 4)), [5])),
    ("ln long", lambda lib: lib.layer_norm(lib.ones(2, 4, dtype=lib.int64), [4])),
    ("ln mixed", lambda lib: lib.layer_norm(_t(lib, (2, 4)), [4], lib.ones(4, dtype=lib.float64))),
    (
        "ln mixed double input",
        lambda lib: lib.layer_norm(_t(lib, (2, 4), "float64"), [4], lib.ones(4)),
    ),
    (
        "ln half weight float bias",
        lambda lib: lib.layer_norm(
            _t(lib, (2, 4), "float16"), [4], lib.ones(4, dtype=lib.float16), lib.ones(4)
        ),
    ),
    ("rms input shape", lambda lib: _F(lib).rms_norm(_t(lib, (2, 4)), [5])),
    ("rms long", lambda lib: _F(lib).rms_norm(lib.ones(2, 4, dtype=lib.int64), [4])),
    ("gn groups", lambda lib: _F(lib).group_norm(_t(lib, (2, 6, 4)), 4)),
    ("gn zero groups", lambda lib: lib.group_norm(_t(lib, (2, 6, 4)), 0)),
    ("gn weight", lambda lib: lib.group_norm(_t(lib, (2, 6, 4)), 3, lib.ones(5))),
    ("gn bias", lambda lib: lib.group_norm(_t(lib, (2, 6, 4)), 3, None, lib.ones(5))),
    ("gn 1-d", lambda lib: _F(lib).group_norm(_t(lib, (6,)), 3)),
    ("gn batch 1", lambda lib: _F(lib).group_norm(_t(lib, (1, 3, 1)), 3)),
    ("gn long", lambda lib: lib.group_norm(lib.ones(2, 6, 4, dtype=lib.int64), 3)),
    (
        "gn numel",
        lambda lib: lib.native_group_norm(_t(lib, (2, 6, 4)), None, None, 3, 6, 4, 3, 1e-5),
    ),
    ("bn batch 1", lambda lib: _F(lib).batch_norm(_t(lib, (1, 3)), None, None, training=True)),
    (
        "bn eps train",
        lambda lib: _F(lib).batch_norm(_t(lib, (2, 3)), None, None, training=True, eps=0),
    ),
    (
        "bn eps eval",
        lambda lib: _F(lib).batch_norm(_t(lib, (2, 3)), lib.zeros(3), lib.ones(3), eps=-1),
    ),
    ("bn eval no stats", lambda lib: _F(lib).batch_norm(_t(lib, (2, 3)), None, None)),
    (
        "bn weight size",
        lambda lib: lib.batch_norm(
            _t(lib, (2, 3)), lib.ones(4), None, None, None, True, 0.1, 1e-5, False
        ),
    ),
    (
        "bn running size",
        lambda lib: lib.batch_norm(
            _t(lib, (2, 3)), None, None, lib.ones(4), lib.ones(4), True, 0.1, 1e-5, False
        ),
    ),
    (
        "bn one running stat",
        lambda lib: lib.native_batch_norm(
            _t(lib, (2, 3)), None, None, lib.ones(3), None, True, 0.1, 1e-5
        ),
    ),
    (
        "bn long",
        lambda lib: lib.native_batch_norm(
            lib.ones(2, 3, dtype=lib.int64), None, None, None, None, True, 0.1, 1e-5
        ),
    ),
    (
        "bn stats dtype",
        lambda lib: lib.native_batch_norm(
            _t(lib, (2, 3)),
            lib.ones(3),
            None,
            lib.zeros(3, dtype=lib.float64),
            lib.ones(3, dtype=lib.float64),
            True,
            0.1,
            1e-5,
        ),
    ),
    (
        "bn empty training",
        lambda lib: lib.native_batch_norm(
            lib.ones(0, 3), None, None, lib.zeros(3), lib.ones(3), True, 0.1, 1e-5
        ),
    ),
    ("in spatial 1", lambda lib: _F(lib).instance_norm(_t(lib, (2, 3, 1)))),
    (
        "in no stats",
        lambda lib: lib.instance_norm(
            _t(lib, (2, 3, 4)), None, None, None, None, False, 0.1, 1e-5, False
        ),
    ),
    ("lrn dims", lambda lib: _F(lib).local_response_norm(_t(lib, (2, 3)), 2)),
    (
        "ln out dtype",
        lambda lib: lib.ops.aten.native_layer_norm.out(
            _t(lib, (3, 4)),
            [4],
            None,
            None,
            1e-5,
            out0=lib.zeros(0, dtype=lib.float64),
            out1=lib.zeros(0),
            out2=lib.zeros(0),
        ),
    ),
    (
        "bn out dtype",
        lambda lib: lib.ops.aten.native_batch_norm.out(
            _t(lib, (3, 4)),
            None,
            None,
            None,
            None,
            True,
            0.1,
            1e-5,
            out=lib.zeros(0),
            save_mean=lib.zeros(0, dtype=lib.float64),
            save_invstd=lib.zeros(0),
        ),
    ),
    (
        "ln backward without weight",
        lambda lib: lib.ops.aten.native_layer_norm_backward(
            _t(lib, (3, 4)),
            _t(lib, (3, 4)),
            [4],
            lib.zeros(3, 1),
            lib.ones(3, 1),
            None,
            None,
            [True, True, False],
        ),
    ),
]


@pytest.mark.parametrize(("name", "call"), _ERRORS, ids=[n for n, _ in _ERRORS])
def test_error_matches_torch(name: str, call: Callable[[Any], Any]) -> None:
    if "half" in name and "float16" not in STORED_DTYPES:
        pytest.skip("the backend stores no float16")
    _check(call)


# --- gradients and the aten calls a TorchDispatchMode sees ---------------------------------


def _leaves(lib: Any, shapes: list[tuple[int, ...]]) -> list[Any]:
    return [_t(lib, s, "float64", shift=0.1 * i).requires_grad_() for i, s in enumerate(shapes)]


_PROGRAMS: list[tuple[str, list[tuple[int, ...]], Callable[[Any, list[Any]], Any]]] = [
    (
        "layer_norm",
        [(2, 3, 4), (4,), (4,)],
        lambda lib, a: _F(lib).layer_norm(a[0], [4], a[1], a[2]),
    ),
    ("layer_norm 2d", [(2, 3, 4), (3, 4)], lambda lib, a: _F(lib).layer_norm(a[0], [3, 4], a[1])),
    ("group_norm", [(2, 6, 4), (6,), (6,)], lambda lib, a: _F(lib).group_norm(a[0], 3, a[1], a[2])),
    (
        "batch_norm train",
        [(4, 3, 2), (3,), (3,)],
        lambda lib, a: _F(lib).batch_norm(
            a[0],
            lib.zeros(3, dtype=lib.float64),
            lib.ones(3, dtype=lib.float64),
            a[1],
            a[2],
            training=True,
        ),
    ),
    (
        "batch_norm eval",
        [(4, 3, 2), (3,), (3,)],
        lambda lib, a: _F(lib).batch_norm(
            a[0], _t(lib, (3,), "float64"), _t(lib, (3,), "float64").abs() + 0.5, a[1], a[2]
        ),
    ),
    (
        "batch_norm no affine",
        [(4, 3, 2)],
        lambda lib, a: _F(lib).batch_norm(a[0], None, None, training=True),
    ),
    (
        "instance_norm",
        [(2, 3, 4), (3,), (3,)],
        lambda lib, a: _F(lib).instance_norm(a[0], weight=a[1], bias=a[2]),
    ),
    ("rms_norm", [(2, 3, 4), (4,)], lambda lib, a: _F(lib).rms_norm(a[0], [4], a[1])),
    ("normalize", [(3, 4)], lambda lib, a: _F(lib).normalize(a[0])),
    (
        "batch_norm channels_last",
        [(2, 3, 2, 2), (3,)],
        lambda lib, a: _F(lib).batch_norm(
            a[0].contiguous(memory_format=lib.channels_last), None, None, a[1], training=True
        ),
    ),
    (
        "group_norm channels_last",
        [(2, 4, 2, 3), (4,)],
        lambda lib, a: _F(lib).group_norm(
            a[0].contiguous(memory_format=lib.channels_last), 2, a[1]
        ),
    ),
    ("local_response_norm", [(2, 4, 5)], lambda lib, a: _F(lib).local_response_norm(a[0], 3)),
    (
        "local_response_norm 4d",
        [(2, 4, 3, 2)],
        lambda lib, a: _F(lib).local_response_norm(a[0], 2, alpha=0.1, beta=0.5, k=2.0),
    ),
]


@pytest.mark.parametrize(("name", "shapes", "program"), _PROGRAMS, ids=[p[0] for p in _PROGRAMS])
def test_gradients_match_torch(name: str, shapes: list[tuple[int, ...]], program: Any) -> None:
    results = []
    for lib in (torch, refimpl):
        leaves = _leaves(lib, shapes)
        out = program(lib, leaves)
        weights = _t(lib, tuple(out.shape), "float64")
        grads = lib.autograd.grad((out * weights).sum(), leaves, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        second = lib.autograd.grad(total, leaves, allow_unused=True)
        results.append((out, grads, second))
    (e_out, e_grads, e_second), (a_out, a_grads, a_second) = results
    _same(e_out, a_out)
    _same(list(e_grads), list(a_grads))
    for e, a in zip(e_second, a_second, strict=True):
        if e is None or a is None:
            assert e is None or bool((e == 0).all())
            assert a is None or bool((a == 0).all())
        else:
            _same(e, a)


# linalg_vector_norm's backward (refimpl/ops/_backward_reduction.py) uses out-of-place
# masked_fill where torch's uses masked_fill_, by choice: only normalize's forward compares.
_FORWARD_ONLY = frozenset({"normalize"})


@pytest.mark.parametrize(("name", "shapes", "program"), _PROGRAMS, ids=[p[0] for p in _PROGRAMS])
def test_aten_calls_match_torch(name: str, shapes: list[tuple[int, ...]], program: Any) -> None:
    logs = []
    for lib in (torch, refimpl):
        leaves = _leaves(lib, shapes)

        def run(lib: Any = lib, leaves: list[Any] = leaves) -> Any:
            out = program(lib, leaves)
            if name not in _FORWARD_ONLY:
                out.sum().backward()

        logs.append(aten_calls(lib, run)[0])
    assert logs[1] == logs[0]


@pytest.mark.parametrize(("name", "shapes", "program"), _PROGRAMS, ids=[p[0] for p in _PROGRAMS])
def test_torch_function_calls_match_torch(
    name: str, shapes: list[tuple[int, ...]], program: Any
) -> None:
    logs = []
    for lib in (torch, refimpl):
        leaves = [_t(lib, s, "float64") for s in shapes]

        def run(lib: Any = lib, leaves: list[Any] = leaves) -> Any:
            return program(lib, leaves)

        logs.append(function_calls(lib, run)[0])
    assert logs[1] == logs[0]


def _stats(lib: Any) -> tuple[Any, Any]:
    return _t(lib, (3,), "float64"), _t(lib, (3,), "float64").abs() + 0.5


_VARIANTS: list[tuple[str, Callable[[Any, Any, Any, Any, Any], Any]]] = [
    (
        "_native_batch_norm_legit",
        lambda a, x, w, rm, rv: a._native_batch_norm_legit(x, w, None, rm, rv, True, 0.2, 1e-5),
    ),
    (
        "_native_batch_norm_legit eval",
        lambda a, x, w, rm, rv: a._native_batch_norm_legit(x, w, None, rm, rv, False, 0.2, 1e-5),
    ),
    (
        "_native_batch_norm_legit.no_stats",
        lambda a, x, w, rm, rv: a._native_batch_norm_legit.no_stats(x, w, None, True, 0.2, 1e-5),
    ),
    (
        "_native_batch_norm_legit_no_training",
        lambda a, x, w, rm, rv: a._native_batch_norm_legit_no_training(
            x, w, None, rm, rv, 0.2, 1e-5
        ),
    ),
    (
        "_native_batch_norm_legit_functional",
        lambda a, x, w, rm, rv: a._native_batch_norm_legit_functional(
            x, w, None, rm, rv, True, 0.2, 1e-5
        ),
    ),
    (
        "_batch_norm_with_update",
        lambda a, x, w, rm, rv: a._batch_norm_with_update(x, w, None, rm, rv, 0.2, 1e-5),
    ),
    (
        "_batch_norm_with_update_functional",
        lambda a, x, w, rm, rv: a._batch_norm_with_update_functional(x, w, None, rm, rv, 0.2, 1e-5),
    ),
    (
        "_batch_norm_no_update",
        lambda a, x, w, rm, rv: a._batch_norm_no_update(x, w, None, rm, rv, 0.2, 1e-5),
    ),
]


@pytest.mark.parametrize(("name", "call"), _VARIANTS, ids=[n for n, _ in _VARIANTS])
def test_batch_norm_variants_match_torch(name: str, call: Any) -> None:
    def run(lib: Any) -> Any:
        x = _t(lib, (4, 3, 2), "float64").requires_grad_()
        w = _t(lib, (3,), "float64", shift=1.0).requires_grad_()
        rm, rv = _stats(lib)
        results = call(lib.ops.aten, x, w, rm, rv)
        grads = lib.autograd.grad((results[0] * results[0]).sum(), [x, w])
        return (*results, rm, rv, *grads)

    _check(run)
