"""Activation functions, softmax and dropout of torch.nn.functional against torch, for what the
OpInfos leave out: the aten ops' out= and in-place forms and their checks, non-contiguous
and integer inputs, error messages, warnings, gradients and second gradients (through the
*_backward ops), the aten overloads a TorchDispatchMode sees forward and backward, and the
random streams of rrelu, dropout and gumbel_softmax.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the result's dtype, shape, strides and values (to a few ulps).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import outcome

# fmt: off
_VALUES = [3.0, -1.5, 2.25, 0.0, 7.5, -4.0, 1.0, 0.5, -0.25, 4.0, 2.0, -8.0, 6.5, 1.25, 0.75,
           -2.0, 3.5, -6.0, 5.0, 0.125, -3.0, 1.5, 2.5, -0.5]
# fmt: on


def _x(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (2, 3, 4)) -> Any:
    n = int(np.prod(shape))
    return lib.tensor(_VALUES[:n], dtype=getattr(lib, dtype)).reshape(shape)


def _xt(lib: Any, dtype: str = "float32") -> Any:
    """A non-contiguous input: (4, 3, 2) permuted from a (2, 3, 4) tensor."""
    return _x(lib, dtype).permute(2, 1, 0)


def _grad_x(lib: Any, dtype: str = "float64", shape: tuple[int, ...] = (2, 3, 4)) -> Any:
    return _x(lib, dtype, shape).requires_grad_()


def _array(t: Any) -> np.ndarray:
    if t.device.type == "meta":
        return np.empty(0)
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    e, a = _array(expected), _array(actual)
    tol = {"torch.float16": 1e-3, "torch.float32": 2e-6}.get(str(expected.dtype), 1e-12)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


# gelu (approximate="none") computes with erf, which a backend may lack (array_api_strict:
# torch.erf's cases expect the same refusal there).
_NEEDS_ERF: Final = frozenset({"gelu", "gelu_backward"})
_HAS_ERF: Final = "erf" in refimpl.config.backends.resolve("cpu").extensions


@pytest.fixture(autouse=True)
def _skip_without_erf(request: pytest.FixtureRequest) -> None:
    spec = getattr(request.node, "callspec", None)
    if spec is not None and spec.params.get("name") in _NEEDS_ERF and not _HAS_ERF:
        pytest.skip("the backend has no erf")


def _cases(table: list[tuple[str, Callable[..., Any]]]) -> list[Any]:
    """A case table as pytest params."""
    return [pytest.param(name, call, id=name) for name, call in table]


def _F(lib: Any) -> Any:
    return lib.nn.functional


def _aten(lib: Any) -> Any:
    return lib.ops.aten


# --- forward values: non-contiguous inputs, dtypes, arguments ---------------------------------

_FORWARD: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu", lambda lib, x: _F(lib).relu(x)),
    ("relu6", lambda lib, x: _F(lib).relu6(x * 2)),
    ("hardtanh", lambda lib, x: _F(lib).hardtanh(x, -2.0, 3.0)),
    ("leaky_relu", lambda lib, x: _F(lib).leaky_relu(x, 0.2)),
    ("elu", lambda lib, x: _F(lib).elu(x, 0.7)),
    ("selu", lambda lib, x: _F(lib).selu(x)),
    ("celu", lambda lib, x: _F(lib).celu(x, 1.5)),
    ("gelu", lambda lib, x: _F(lib).gelu(x)),
    ("gelu_tanh", lambda lib, x: _F(lib).gelu(x, approximate="tanh")),
    ("silu", lambda lib, x: _F(lib).silu(x)),
    ("mish", lambda lib, x: _F(lib).mish(x)),
    ("softplus", lambda lib, x: _F(lib).softplus(x, beta=2.0, threshold=5.0)),
    ("softshrink", lambda lib, x: _F(lib).softshrink(x, 1.0)),
    ("hardshrink", lambda lib, x: _F(lib).hardshrink(x, 1.0)),
    ("tanhshrink", lambda lib, x: _F(lib).tanhshrink(x)),
    ("softsign", lambda lib, x: _F(lib).softsign(x)),
    ("hardsigmoid", lambda lib, x: _F(lib).hardsigmoid(x)),
    ("hardswish", lambda lib, x: _F(lib).hardswish(x)),
    ("threshold", lambda lib, x: _F(lib).threshold(x, 0.5, -7.0)),
    ("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x)),
    ("log_sigmoid_forward", lambda lib, x: _aten(lib).log_sigmoid_forward.default(x)),
    ("glu", lambda lib, x: _F(lib).glu(x, 0)),
    ("glu_last", lambda lib, x: _F(lib).glu(x.permute(1, 0, 2), -1)),
    ("prelu", lambda lib, x: _F(lib).prelu(x, lib.tensor([0.1, 0.2, 0.3], dtype=x.dtype))),
    ("prelu_scalar", lambda lib, x: _F(lib).prelu(x, lib.tensor([0.25], dtype=x.dtype))),
    ("rrelu_eval", lambda lib, x: _F(lib).rrelu(x, 0.1, 0.3)),
    ("softmin", lambda lib, x: _F(lib).softmin(x, 1)),
    ("softmin_dtype", lambda lib, x: _F(lib).softmin(x, 0, dtype=lib.float64)),
    ("softmax", lambda lib, x: _F(lib).softmax(x, -1)),
    ("log_softmax", lambda lib, x: _F(lib).log_softmax(x, 2)),
    ("sigmoid", lambda lib, x: _F(lib).sigmoid(x)),
    ("tanh", lambda lib, x: _F(lib).tanh(x)),
    ("dropout_eval", lambda lib, x: _F(lib).dropout(x, 0.3, training=False)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize(("name", "call"), _FORWARD, ids=[n for n, _ in _FORWARD])
def test_forward_matches_torch(name: str, call: Callable[[Any, Any], Any], dtype: str) -> None:
    _check(lambda lib: call(lib, _xt(lib, dtype)))


_INTEGER: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu", lambda lib, x: _F(lib).relu(x)),
    ("relu_", lambda lib, x: _F(lib).relu(x.clone(), inplace=True)),
    ("relu6", lambda lib, x: _F(lib).relu6(x)),
    ("hardtanh_float_bounds", lambda lib, x: _F(lib).hardtanh(x, -1.5, 2.5)),
    ("threshold", lambda lib, x: _F(lib).threshold(x, 0.5, 9.0)),
    ("leaky_relu", lambda lib, x: _F(lib).leaky_relu(x)),
    ("elu", lambda lib, x: _F(lib).elu(x)),
    ("gelu", lambda lib, x: _F(lib).gelu(x)),
    ("hardswish", lambda lib, x: _F(lib).hardswish(x)),
    ("softshrink", lambda lib, x: _F(lib).softshrink(x)),
    ("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x)),
    ("glu", lambda lib, x: _F(lib).glu(x)),
    ("prelu", lambda lib, x: _F(lib).prelu(x, x.new_ones(()))),
    ("rrelu_eval", lambda lib, x: _F(lib).rrelu(x)),
    ("rrelu_train", lambda lib, x: _F(lib).rrelu(x, training=True)),
]


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "complex64"])
@pytest.mark.parametrize(("name", "call"), _INTEGER, ids=[n for n, _ in _INTEGER])
def test_other_dtypes_match_torch(name: str, call: Callable[[Any, Any], Any], dtype: str) -> None:
    _check(lambda lib: call(lib, _x(lib, "float32").to(getattr(lib, dtype))))


# --- aten forms: out=, in-place, backward ops -------------------------------------------------

_ATEN: list[tuple[str, Callable[[Any], Any]]] = [
    ("relu_out", lambda lib: _aten(lib).relu.out(_xt(lib), out=lib.empty(0))),
    (
        "relu_out_dtype",
        lambda lib: _aten(lib).relu.out(_x(lib), out=lib.empty(0, dtype=lib.float64)),
    ),
    ("hardtanh_out", lambda lib: _aten(lib).hardtanh.out(_x(lib), -1, 2, out=lib.empty(3))),
    (
        "hardtanh_out_dtype",
        lambda lib: _aten(lib).hardtanh.out(_x(lib), out=lib.empty(0, dtype=lib.float64)),
    ),
    (
        "threshold_out_wider",
        lambda lib: _aten(lib).threshold.out(_x(lib), 0, 1, out=lib.empty(0, dtype=lib.float64)),
    ),
    (
        "threshold_out_int",
        lambda lib: _aten(lib).threshold.out(_x(lib), 0, 1, out=lib.empty(0, dtype=lib.int64)),
    ),
    (
        "softplus_out_dtype",
        lambda lib: _aten(lib).softplus.out(_x(lib), out=lib.empty(0, dtype=lib.float64)),
    ),
    ("gelu_out", lambda lib: _aten(lib).gelu.out(_xt(lib), approximate="tanh", out=lib.empty(0))),
    ("celu_out", lambda lib: _aten(lib).celu.out(_x(lib), 2.0, out=lib.empty(0))),
    ("glu_out", lambda lib: _aten(lib).glu.out(_x(lib), 1, out=lib.empty(0))),
    (
        "silu_backward_out",
        lambda lib: _aten(lib).silu_backward.grad_input(
            _x(lib), _xt(lib).permute(2, 1, 0), grad_input=lib.empty(0)
        ),
    ),
    (
        "log_sigmoid_forward_output",
        lambda lib: _aten(lib).log_sigmoid_forward.output(
            _xt(lib), output=lib.empty(2), buffer=lib.empty(0)
        ),
    ),
    (
        "log_sigmoid_forward_output_dtype",
        lambda lib: _aten(lib).log_sigmoid_forward.output(
            _x(lib), output=lib.empty(0, dtype=lib.float64), buffer=lib.empty(0)
        ),
    ),
    ("log_sigmoid_out", lambda lib: _aten(lib).log_sigmoid.out(_x(lib), out=lib.empty(0))),
    ("elu_", lambda lib: _aten(lib).elu_.default(_x(lib), 0.5, 2.0, 1.5)),
    ("hardtanh_", lambda lib: _aten(lib).hardtanh_.default(_xt(lib).clone(), -1, 0.5)),
    ("threshold_", lambda lib: _aten(lib).threshold_.default(_x(lib), 1.0, 0.0)),
    (
        "leaky_relu_backward",
        lambda lib: _aten(lib).leaky_relu_backward.default(
            _x(lib), _xt(lib).permute(2, 1, 0), 0.3, False
        ),
    ),
    (
        "elu_backward_result",
        lambda lib: _aten(lib).elu_backward.default(_x(lib), 1.0, 1.0, 1.0, True, _x(lib) / 10),
    ),
    (
        "elu_backward_self",
        lambda lib: _aten(lib).elu_backward.default(_x(lib), 0.5, 2.0, 0.5, False, _x(lib) / 3),
    ),
    ("gelu_backward", lambda lib: _aten(lib).gelu_backward.default(_x(lib), _x(lib) / 4)),
    (
        "gelu_backward_tanh",
        lambda lib: _aten(lib).gelu_backward.default(_x(lib), _x(lib) / 4, approximate="tanh"),
    ),
    (
        "softplus_backward",
        lambda lib: _aten(lib).softplus_backward.default(_x(lib), _x(lib), 2.0, 3.0),
    ),
    ("hardswish_backward", lambda lib: _aten(lib).hardswish_backward.default(_x(lib), _x(lib) - 1)),
    (
        "hardsigmoid_backward",
        lambda lib: _aten(lib).hardsigmoid_backward.default(_x(lib), _x(lib) - 1),
    ),
    (
        "threshold_backward",
        lambda lib: _aten(lib).threshold_backward.default(_x(lib), _xt(lib).permute(2, 1, 0), 0.5),
    ),
    (
        "hardtanh_backward",
        lambda lib: _aten(lib).hardtanh_backward.default(_x(lib), _x(lib), -1.5, 2.0),
    ),
    ("shrink_backward", lambda lib: _aten(lib).softshrink_backward.default(_x(lib), _x(lib), 1.0)),
    (
        "glu_backward",
        lambda lib: _aten(lib).glu_backward.default(_x(lib, shape=(2, 3, 2)), _x(lib), -1),
    ),
    (
        "prelu_kernel_backward",
        lambda lib: _aten(lib)._prelu_kernel_backward.default(
            _x(lib), _x(lib), lib.tensor([0.1, 0.2, 0.3]).reshape(1, 3, 1)
        ),
    ),
    (
        "rrelu_with_noise_backward_train",
        lambda lib: _aten(lib).rrelu_with_noise_backward.default(
            _x(lib), _x(lib), _x(lib) / 7, 0.1, 0.3, True, False
        ),
    ),
    (
        "rrelu_with_noise_backward_eval",
        lambda lib: _aten(lib).rrelu_with_noise_backward.default(
            _x(lib), _x(lib), _x(lib), 0.1, 0.3, False, False
        ),
    ),
    ("meta_glu", lambda lib: _aten(lib).glu.default(_x(lib).to("meta"), 1)),
    (
        "meta_log_sigmoid_forward",
        lambda lib: _aten(lib).log_sigmoid_forward.default(_xt(lib).to("meta")),
    ),
    ("meta_relu", lambda lib: _aten(lib).relu.default(_xt(lib).to("meta"))),
    ("meta_hardtanh", lambda lib: _aten(lib).hardtanh.default(_xt(lib).to("meta"))),
]


@pytest.mark.parametrize(("name", "call"), _ATEN, ids=[n for n, _ in _ATEN])
def test_aten_forms_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    _check(call)


# --- errors -----------------------------------------------------------------------------------

_ERRORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("relu_bool", lambda lib: lib.relu(lib.tensor([True]))),
    ("relu_complex", lambda lib: lib.relu(lib.tensor([1j]))),
    ("hardtanh_bounds", lambda lib: _F(lib).hardtanh(_x(lib), 2.0, 1.0)),
    ("hardtanh_uint8_negative", lambda lib: _F(lib).hardtanh(_x(lib).abs().to(lib.uint8))),
    ("hardtanh_bool", lambda lib: _F(lib).hardtanh(lib.tensor([True]))),
    ("gelu_approximate", lambda lib: _F(lib).gelu(_x(lib), approximate="exact")),
    ("softshrink_negative", lambda lib: _F(lib).softshrink(_x(lib), -0.5)),
    ("softshrink_half_range", lambda lib: _F(lib).softshrink(_x(lib).half(), 1e6)),
    ("softshrink_long", lambda lib: _F(lib).softshrink(_x(lib).long(), -1.0)),
    ("celu_zero_alpha", lambda lib: _F(lib).celu(_x(lib), 0.0)),
    (
        "leaky_relu_backward_inplace_negative",
        lambda lib: _aten(lib).leaky_relu_backward.default(_x(lib), _x(lib), -0.1, True),
    ),
    (
        "elu_backward_inplace_negative",
        lambda lib: _aten(lib).elu_backward.default(_x(lib), -1.0, 1.0, 1.0, True, _x(lib)),
    ),
    ("glu_scalar", lambda lib: _F(lib).glu(lib.tensor(1.0))),
    ("glu_aten_scalar", lambda lib: _aten(lib).glu.default(lib.tensor(1.0))),
    ("glu_odd", lambda lib: _F(lib).glu(_x(lib), 1)),
    ("glu_dim", lambda lib: _F(lib).glu(_x(lib), 3)),
    ("glu_long", lambda lib: _F(lib).glu(_x(lib).long())),
    (
        "glu_backward_long",
        lambda lib: _aten(lib).glu_backward.default(_x(lib).long(), _x(lib).long(), 0),
    ),
    ("glu_backward_shape", lambda lib: _aten(lib).glu_backward.default(_x(lib), _x(lib), 0)),
    ("prelu_promote", lambda lib: _F(lib).prelu(_x(lib), lib.ones(3, dtype=lib.float64))),
    ("prelu_channels", lambda lib: _F(lib).prelu(_x(lib), lib.ones(4))),
    ("prelu_zero_dim", lambda lib: _F(lib).prelu(lib.tensor(1.0), lib.ones(3))),
    ("prelu_weight_ndim", lambda lib: _F(lib).prelu(_x(lib), lib.ones(1, 1))),
    ("prelu_long", lambda lib: _F(lib).prelu(_x(lib).long(), lib.ones(3, dtype=lib.int64))),
    ("rrelu_bounds", lambda lib: _F(lib).rrelu(_x(lib), 0.5, 0.1)),
    (
        "rrelu_noise_shape",
        lambda lib: _aten(lib).rrelu_with_noise.default(_x(lib), lib.empty(3), 0.1, 0.3, True),
    ),
    ("rrelu_train_long", lambda lib: _F(lib).rrelu(_x(lib).long(), training=True)),
    ("rrelu_train_half", lambda lib: _F(lib).rrelu(_x(lib).half(), training=True)),
    ("dropout_p", lambda lib: _F(lib).dropout(_x(lib), 1.5)),
    ("dropout1d_dims", lambda lib: _F(lib).dropout1d(_x(lib).reshape(24))),
    ("feature_alpha_dropout_p", lambda lib: _F(lib).feature_alpha_dropout(_x(lib), -0.1)),
    (
        "out_inplace_grad",
        lambda lib: _aten(lib).gelu.out(_grad_x(lib), out=lib.empty(0, dtype=lib.float64)),
    ),
]


@pytest.mark.parametrize(("name", "call"), _ERRORS, ids=[n for n, _ in _ERRORS])
def test_errors_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    _, expected_error = outcome(call, torch)
    assert expected_error is not None, f"torch did not raise for {name}"
    _check(call)


# --- warnings ---------------------------------------------------------------------------------

_WARNINGS: list[tuple[str, Callable[[Any], Any]]] = [
    ("softmax_implicit_dim", lambda lib: _F(lib).softmax(_x(lib))),
    ("softmin_implicit_dim", lambda lib: _F(lib).softmin(_x(lib, shape=(4, 6)))),
    ("log_softmax_implicit_dim", lambda lib: _F(lib).log_softmax(_x(lib, shape=(24,)))),
    ("dropout2d_3d", lambda lib: _F(lib).dropout2d(_x(lib), training=False)),
    ("dropout2d_2d", lambda lib: _F(lib).dropout2d(_x(lib, shape=(4, 6)), training=False)),
    ("dropout3d_3d", lambda lib: _F(lib).dropout3d(_x(lib), training=False)),
    ("gumbel_eps", lambda lib: _F(lib).gumbel_softmax(_x(lib), eps=0.1)),
    (
        "dropout2d_4d_none",
        lambda lib: _F(lib).dropout2d(_x(lib, shape=(1, 2, 3, 4)), training=False),
    ),
]


def _warnings_of(call: Callable[[Any], Any], lib: Any) -> list[tuple[type[Warning], str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(lib)
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize(("name", "call"), _WARNINGS, ids=[n for n, _ in _WARNINGS])
def test_warnings_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    assert _warnings_of(call, refimpl) == _warnings_of(call, torch)


# --- gradients and second gradients -----------------------------------------------------------

_GRADS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu", lambda lib, x: _F(lib).relu(x)),
    ("relu6", lambda lib, x: _F(lib).relu6(x)),
    ("hardtanh", lambda lib, x: _F(lib).hardtanh(x, -2.0, 3.0)),
    ("leaky_relu", lambda lib, x: _F(lib).leaky_relu(x, 0.2)),
    ("leaky_relu_inplace", lambda lib, x: _F(lib).leaky_relu(x * 1, 0.2, inplace=True)),
    ("elu", lambda lib, x: _F(lib).elu(x / 2, 0.7)),
    ("elu_inplace", lambda lib, x: _F(lib).elu(x / 2, 0.7, inplace=True)),
    ("selu", lambda lib, x: _F(lib).selu(x / 2)),
    ("celu", lambda lib, x: _F(lib).celu(x / 2, 1.5)),
    ("celu_inplace", lambda lib, x: _F(lib).celu(x / 2, 1.5, inplace=True)),
    ("gelu", lambda lib, x: _F(lib).gelu(x / 2)),
    ("gelu_tanh", lambda lib, x: _F(lib).gelu(x / 2, approximate="tanh")),
    ("silu", lambda lib, x: _F(lib).silu(x / 2)),
    ("mish", lambda lib, x: _F(lib).mish(x / 2)),
    ("softplus", lambda lib, x: _F(lib).softplus(x / 2, beta=2.0, threshold=3.0)),
    ("softshrink", lambda lib, x: _F(lib).softshrink(x, 1.0)),
    ("hardshrink", lambda lib, x: _F(lib).hardshrink(x, 1.0)),
    ("hardsigmoid", lambda lib, x: _F(lib).hardsigmoid(x / 2)),
    ("hardswish", lambda lib, x: _F(lib).hardswish(x / 2)),
    ("threshold", lambda lib, x: _F(lib).threshold(x, 0.5, -7.0)),
    ("threshold_inplace", lambda lib, x: _F(lib).threshold(x * 1, 0.5, -7.0, inplace=True)),
    ("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x / 2)),
    ("glu", lambda lib, x: _F(lib).glu(x / 2, 0)),
    ("glu_last", lambda lib, x: _F(lib).glu(x / 2)),
    ("rrelu_eval", lambda lib, x: _F(lib).rrelu(x, 0.1, 0.3)),
    ("tanhshrink", lambda lib, x: _F(lib).tanhshrink(x / 4)),
    ("softsign", lambda lib, x: _F(lib).softsign(x)),
    ("softmin", lambda lib, x: _F(lib).softmin(x / 4, 1)),
]


def _gradients(call: Callable[[Any, Any], Any], lib: Any, order: int) -> tuple[Any, ...]:
    x = _grad_x(lib)
    y = call(lib, x)
    weights = lib.linspace(-1.0, 1.0, y.numel(), dtype=y.dtype).reshape(y.shape)
    (first,) = lib.autograd.grad((y * weights).sum(), x, create_graph=order > 1)
    if order == 1:
        return (first,)
    (second,) = lib.autograd.grad((first * first).sum(), x, allow_unused=True)
    return first, second if second is not None else lib.zeros_like(x)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize(("name", "call"), _cases(_GRADS))
def test_gradients_match_torch(name: str, call: Callable[[Any, Any], Any], order: int) -> None:
    _check(lambda lib: _gradients(call, lib, order))


def test_prelu_gradients_match_torch() -> None:
    def run(lib: Any) -> Any:
        x = _grad_x(lib)
        w = lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64, requires_grad=True)
        y = _F(lib).prelu(x, w)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return (gx, gw, *lib.autograd.grad((gx.sum() + (gw * gw).sum()), (x, w)))

    _check(run)


# --- what a TorchDispatchMode sees ------------------------------------------------------------

_MODES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu", lambda lib, x: _F(lib).relu(x)),
    ("relu6", lambda lib, x: _F(lib).relu6(x)),
    ("relu6_inplace", lambda lib, x: _F(lib).relu6(x * 1, inplace=True)),
    ("hardtanh", lambda lib, x: _F(lib).hardtanh(x)),
    ("selu", lambda lib, x: _F(lib).selu(x)),
    ("celu", lambda lib, x: _F(lib).celu(x)),
    ("elu", lambda lib, x: _F(lib).elu(x)),
    ("leaky_relu_inplace", lambda lib, x: _F(lib).leaky_relu(x * 1, inplace=True)),
    ("gelu", lambda lib, x: _F(lib).gelu(x)),
    ("softplus", lambda lib, x: _F(lib).softplus(x)),
    ("hardswish", lambda lib, x: _F(lib).hardswish(x)),
    ("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x)),
    ("glu", lambda lib, x: _F(lib).glu(x, 0)),
    ("prelu", lambda lib, x: _F(lib).prelu(x, lib.ones(3, dtype=lib.float64))),
    ("rrelu_eval", lambda lib, x: _F(lib).rrelu(x)),
    ("threshold", lambda lib, x: _F(lib).threshold(x, 0.0, 1.0)),
    ("tanhshrink", lambda lib, x: _F(lib).tanhshrink(x)),
    ("softsign", lambda lib, x: _F(lib).softsign(x)),
    ("softmin", lambda lib, x: _F(lib).softmin(x, 1, dtype=lib.float32)),
    ("dropout_eval", lambda lib, x: _F(lib).dropout(x, training=False)),
    ("dropout2d_eval", lambda lib, x: _F(lib).dropout2d(x, training=False)),
]


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize(("name", "call"), _cases(_MODES))
def test_dispatch_mode_sees_torch_ops(
    name: str, call: Callable[[Any, Any], Any], backward: bool
) -> None:

    def run(lib: Any) -> Callable[[], Any]:
        x = _grad_x(lib) if backward else _x(lib, "float64")

        def program() -> Any:
            y = call(lib, x)
            if backward:
                y.backward(lib.ones_like(y))
            return y

        return program

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = aten_calls(torch, run(torch))
        actual, _ = aten_calls(refimpl, run(refimpl))
    assert actual == expected


# --- what a TorchFunctionMode is told of --------------------------------------------------------

_FUNCTIONS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu_inplace", lambda lib, x: _F(lib).relu(x, inplace=True)),
    ("gelu", lambda lib, x: _F(lib).gelu(x)),
    ("elu_inplace", lambda lib, x: _F(lib).elu(x, inplace=True)),
    ("hardtanh_inplace", lambda lib, x: _F(lib).hardtanh(x, inplace=True)),
    ("hardshrink", lambda lib, x: _F(lib).hardshrink(x)),
    ("prelu", lambda lib, x: _F(lib).prelu(x, lib.ones(3, dtype=x.dtype))),
    ("softmin", lambda lib, x: _F(lib).softmin(x, 1)),
    ("tanhshrink", lambda lib, x: _F(lib).tanhshrink(x)),
    ("logsigmoid", lambda lib, x: _F(lib).logsigmoid(x)),
    ("threshold", lambda lib, x: _F(lib).threshold(x, 0.0, 1.0)),
    ("sigmoid", lambda lib, x: _F(lib).sigmoid(x)),
    ("dropout3d_eval", lambda lib, x: _F(lib).dropout3d(x, training=False)),
    ("gumbel_softmax", lambda lib, x: _F(lib).gumbel_softmax(x)),
]


@pytest.mark.parametrize(
    ("name", "call"), _cases(_FUNCTIONS)
)
def test_function_mode_sees_torch_calls(name: str, call: Callable[[Any, Any], Any]) -> None:
    def run(lib: Any) -> Callable[[], Any]:
        x = _x(lib)
        return lambda: call(lib, x)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = function_calls(torch, run(torch))
        actual, _ = function_calls(refimpl, run(refimpl))
    assert actual == expected


# --- random streams: the same seed draws the same values ---------------------------------------


def _rrelu_with_noise(lib: Any) -> tuple[Any, Any]:
    noise = lib.empty(2, 3, 4)
    return _aten(lib).rrelu_with_noise.default(_x(lib), noise, 0.2, 0.5, True), noise


def _rrelu_train_grad(lib: Any) -> Any:
    x = _grad_x(lib)
    return lib.autograd.grad(_F(lib).rrelu(x, training=True).sum(), x)


_RANDOM: list[tuple[str, Callable[[Any], Any]]] = [
    ("rrelu_train", lambda lib: _F(lib).rrelu(_xt(lib), 0.1, 0.4, training=True)),
    ("rrelu_train_double", lambda lib: _F(lib).rrelu(_x(lib, "float64"), training=True)),
    ("rrelu_train_inplace", lambda lib: _F(lib).rrelu(_x(lib), training=True, inplace=True)),
    ("rrelu_with_noise", lambda lib: _rrelu_with_noise(lib)),
    ("rrelu_train_grad", lambda lib: _rrelu_train_grad(lib)),
    ("dropout", lambda lib: _F(lib).dropout(_x(lib), 0.4)),
    ("dropout_inplace", lambda lib: _F(lib).dropout(_x(lib), 0.4, inplace=True)),
    ("dropout1d", lambda lib: _F(lib).dropout1d(_x(lib, shape=(6, 4)), 0.5)),
    ("dropout2d", lambda lib: _F(lib).dropout2d(_x(lib, shape=(2, 3, 2, 2)), 0.5)),
    ("dropout3d_unbatched", lambda lib: _F(lib).dropout3d(_x(lib, shape=(3, 2, 2, 2)), 0.5)),
    ("alpha_dropout", lambda lib: _F(lib).alpha_dropout(_x(lib), 0.3, training=True)),
    (
        "feature_alpha_dropout",
        lambda lib: _F(lib).feature_alpha_dropout(_x(lib), 0.3, training=True),
    ),
    ("gumbel_softmax", lambda lib: _F(lib).gumbel_softmax(_x(lib), tau=0.5)),
    ("gumbel_softmax_hard", lambda lib: _F(lib).gumbel_softmax(_x(lib), hard=True, dim=1)),
]


@pytest.mark.parametrize(("name", "call"), _cases(_RANDOM))
def test_random_streams_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    def seeded(lib: Any) -> Any:
        lib.manual_seed(7)
        return call(lib)

    _check(seeded)


# --- the frame a deprecation warning blames: the caller of the F function, as torch's ------------

_WARNING_CALLS: dict[str, Any] = {
    "softmax implicit dim": lambda F, lib: F.softmax(lib.ones(2, 3)),
    "softmin implicit dim": lambda F, lib: F.softmin(lib.ones(2, 3)),
    "log_softmax implicit dim": lambda F, lib: F.log_softmax(lib.ones(2, 3)),
    "gumbel_softmax eps": lambda F, lib: F.gumbel_softmax(lib.ones(2, 3), eps=1e-3),
    "dropout2d 2-d input": lambda F, lib: F.dropout2d(lib.ones(2, 3), training=False),
    "dropout2d 3-d input": lambda F, lib: F.dropout2d(lib.ones(2, 3, 4), training=False),
    "dropout3d 3-d input": lambda F, lib: F.dropout3d(lib.ones(2, 3, 4), training=False),
}


@pytest.mark.parametrize("case", list(_WARNING_CALLS))
def test_warning_blames_the_caller(case: str) -> None:
    """torch's warnings point at the line that called the F function; refimpl's F functions
    sit behind a __torch_function__ wrapper, one frame more, which their stacklevels count."""
    for F, lib in ((torch.nn.functional, torch), (refimpl.nn.functional, refimpl)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _WARNING_CALLS[case](F, lib)
        assert caught, f"{lib.__name__} did not warn"
        assert [w.filename for w in caught] == [__file__] * len(caught), lib.__name__
