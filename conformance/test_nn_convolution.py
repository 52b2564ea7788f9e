"""Convolutions against torch, for what the OpInfos leave out: aten.convolution (transposed,
output_padding, groups, dilation, int64 and float16), convolution_backward (output_mask, .out),
the second derivative (convolution_backward's own derivative), padding="same"/"valid", the
complex convolution, channels-last layouts, unbatched inputs, conv_tbc and its backward,
im2col/col2im (F.unfold/F.fold) with out=, the errors torch's checks raise, the warning of
padding="same", and the aten overloads a TorchDispatchMode sees forward and backward.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the result's dtype, shape, strides and values (float32 to a few ulps:
torch's oneDNN sums in another order; float16 to torch's own float16 tolerance).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import outcome
from refimpl._base.context import CONTEXT

_TOLERANCE: dict[str, tuple[float, float]] = {
    "float64": (1e-10, 1e-10),
    "float32": (1e-5, 1e-5),
    # torch's slow kernels accumulate float16 in float32 with another summation order.
    "float16": (1e-3, 1e-2),
    "complex128": (1e-10, 1e-10),
    "complex64": (1e-5, 1e-5),
}


def _values(shape: tuple[int, ...], seed: int) -> list[float]:
    # Small integers over 4: exact in every float dtype, so sums do not depend on order.
    n = math.prod(shape)
    return [float((i * 7 + seed * 3) % 9 - 4) / 4 for i in range(n)]


def _t(lib: Any, shape: tuple[int, ...], dtype: str = "float64", seed: int = 0) -> Any:
    values = _values(shape, seed)
    t = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    if dtype.startswith("complex"):
        imag = lib.tensor(_values(shape, seed + 5), dtype=getattr(lib, dtype)).reshape(shape)
        t = t + imag * 1j
    return t


def _array(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().numpy())


def _same(expected: Any, actual: Any, strides: bool = True) -> None:
    if expected is None or actual is None:
        assert expected is None and actual is None
        return
    if isinstance(expected, tuple | list):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a, strides)
        return
    dtype = str(expected.dtype).split(".")[-1]
    assert str(actual.dtype).split(".")[-1] == dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    if strides:
        assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        return
    rtol, atol = _TOLERANCE.get(dtype, (0.0, 0.0))
    np.testing.assert_allclose(_array(actual), _array(expected), rtol=rtol, atol=atol)


def _check(fn: Callable[[Any], Any], strides: bool = True) -> None:
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
    _same(expected, actual, strides)


# --- aten.convolution forward and backward -------------------------------------------------

# (input shape, weight shape, bias, stride, padding, dilation, transposed, output_padding,
# groups)
_CONV_CASES: list[tuple[Any, ...]] = [
    ((2, 4, 7), (6, 2, 3), True, [2], [1], [1], False, [0], 2),
    ((2, 3, 7, 6), (4, 3, 3, 2), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), False, [2, 1], [1, 0], [1, 2], False, [0, 0], 1),
    ((1, 4, 6, 6), (4, 1, 3, 3), True, [1, 1], [1, 1], [2, 2], False, [0, 0], 4),
    ((2, 2, 4, 5, 4), (3, 2, 2, 3, 2), True, [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
    ((2, 4, 5), (4, 3, 3), True, [2], [1], [1], True, [1], 2),
    ((2, 3, 4, 5), (3, 2, 3, 2), True, [2, 3], [1, 0], [1, 1], True, [1, 2], 1),
    ((1, 2, 3, 4), (2, 3, 2, 2), False, [1, 1], [0, 1], [2, 1], True, [1, 0], 1),
    ((1, 2, 3, 3, 2), (2, 2, 2, 2, 2), True, [2, 1, 1], [0, 0, 1], [1, 1, 1], True, [1, 0, 0], 1),
    ((0, 3, 5, 5), (4, 3, 2, 2), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    ((2, 0, 5, 5), (4, 0, 2, 2), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
]


def _conv_args(lib: Any, case: tuple[Any, ...], dtype: str, grad: bool = False) -> list[Any]:
    x_shape, w_shape, with_bias, stride, padding, dilation, transposed, out_pad, groups = case
    out_channels = w_shape[1] * groups if transposed else w_shape[0]
    x = _t(lib, x_shape, dtype, 1)
    w = _t(lib, w_shape, dtype, 2)
    b = _t(lib, (out_channels,), dtype, 3) if with_bias else None
    if grad:
        x.requires_grad_()
        w.requires_grad_()
        if b is not None:
            b.requires_grad_()
    return [x, w, b, stride, padding, dilation, transposed, out_pad, groups]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64"])
@pytest.mark.parametrize("case", _CONV_CASES, ids=str)
def test_convolution_forward(case: tuple[Any, ...], dtype: str) -> None:
    _check(lambda lib: lib.ops.aten.convolution.default(*_conv_args(lib, case, dtype)))


@pytest.mark.parametrize("case", _CONV_CASES, ids=str)
def test_convolution_gradients(case: tuple[Any, ...]) -> None:
    def run(lib: Any) -> Any:
        args = _conv_args(lib, case, "float64", grad=True)
        y = lib.ops.aten.convolution.default(*args)
        g = _t(lib, tuple(y.shape), "float64", 4)
        inputs = [a for a in args[:3] if a is not None]
        return lib.autograd.grad(y, inputs, g)

    _check(run)


@pytest.mark.parametrize("mask", [[True, True, True], [False, True, False], [True, False, True]])
@pytest.mark.parametrize("case", _CONV_CASES[:9], ids=str)
def test_convolution_backward_mask(case: tuple[Any, ...], mask: list[bool]) -> None:
    def run(lib: Any) -> Any:
        args = _conv_args(lib, case, "float64")
        y = lib.ops.aten.convolution.default(*args)
        g = _t(lib, tuple(y.shape), "float64", 4)
        bias_sizes = None if args[2] is None else list(args[2].shape)
        return lib.ops.aten.convolution_backward.default(
            g, args[0], args[1], bias_sizes, *args[3:], mask
        )

    _check(run)


@pytest.mark.parametrize("case", _CONV_CASES[:9], ids=str)
def test_convolution_double_backward(case: tuple[Any, ...]) -> None:
    def run(lib: Any) -> Any:
        args = _conv_args(lib, case, "float64", grad=True)
        y = lib.ops.aten.convolution.default(*args)
        g = _t(lib, tuple(y.shape), "float64", 4).requires_grad_()
        inputs = [a for a in args[:3] if a is not None]
        grads = lib.autograd.grad(y, inputs, g, create_graph=True)
        total = sum((gr * gr).sum() for gr in grads)
        return lib.autograd.grad(total, [g, *inputs[:2]])

    # Differs: torch's double backward returns some gradients as transposed views; refimpl's
    # are contiguous (the values are compared).
    _check(run, strides=False)


def test_convolution_out_forms() -> None:
    case = _CONV_CASES[1]

    def conv(lib: Any) -> Any:
        out = lib.zeros(0, dtype=lib.float64)
        lib.ops.aten.convolution.out(*_conv_args(lib, case, "float64"), out=out)
        return out

    def backward(lib: Any) -> Any:
        args = _conv_args(lib, case, "float64")
        g = _t(lib, (2, 4, 5, 5), "float64", 4)
        outs = [lib.zeros(0, dtype=lib.float64) for _ in range(3)]
        lib.ops.aten.convolution_backward.out(
            g,
            args[0],
            args[1],
            [4],
            *args[3:],
            [True, True, True],
            out0=outs[0],
            out1=outs[1],
            out2=outs[2],
        )
        return tuple(outs)

    _check(conv)
    _check(backward)


# --- layouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_channels_last_layouts(dtype: str, transposed: bool) -> None:
    def run(lib: Any) -> Any:
        x = _t(lib, (2, 4, 5, 5), dtype, 1).to(memory_format=lib.channels_last)
        w = _t(lib, (4, 4, 2, 2), dtype, 2).requires_grad_()
        x.requires_grad_()
        y = lib.ops.aten.convolution.default(
            x, w, None, [1, 1], [0, 0], [1, 1], transposed, [0, 0], 1
        )
        gx, gw = lib.autograd.grad(y, [x, w], lib.ones_like(y))
        return y, gx, gw

    _check(run)


def test_non_contiguous_inputs() -> None:
    def run(lib: Any) -> Any:
        x = _t(lib, (5, 2, 6, 3), "float64", 1).permute(1, 3, 0, 2)  # (2, 3, 5, 6)
        w = _t(lib, (4, 3, 3, 2), "float64", 2)[:, :, ::2, :]  # (4, 3, 2, 2)
        return lib.nn.functional.conv2d(x, w, stride=(2, 1), padding=1)

    _check(run)


# --- the torch.* / F functions -------------------------------------------------------------

_F_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    (
        "conv1d unbatched",
        lambda lib: lib.nn.functional.conv1d(
            _t(lib, (3, 7)), _t(lib, (2, 3, 3), seed=1), _t(lib, (2,), seed=2), 2, 1
        ),
    ),
    (
        "conv2d unbatched",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (3, 5, 6)), _t(lib, (2, 3, 3, 3), seed=1), None, 1, 1
        ),
    ),
    (
        "conv3d",
        lambda lib: lib.conv3d(
            _t(lib, (1, 2, 4, 4, 4)), _t(lib, (2, 2, 2, 2, 2), seed=1), dilation=2, padding=1
        ),
    ),
    (
        "conv2d same",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 2, 5, 6)), _t(lib, (3, 2, 3, 2), seed=1), padding="same"
        ),
    ),
    (
        "conv2d same dilated",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 2, 5, 6)), _t(lib, (3, 2, 2, 3), seed=1), padding="same", dilation=(3, 2)
        ),
    ),
    (
        "conv1d valid",
        lambda lib: lib.nn.functional.conv1d(
            _t(lib, (1, 2, 5)), _t(lib, (3, 2, 3), seed=1), padding="valid"
        ),
    ),
    (
        "conv3d same unbatched",
        lambda lib: lib.nn.functional.conv3d(
            _t(lib, (2, 3, 4, 3)), _t(lib, (2, 2, 2, 1, 2), seed=1), padding="same"
        ),
    ),
    (
        "conv_transpose1d",
        lambda lib: lib.nn.functional.conv_transpose1d(
            _t(lib, (2, 4, 5)), _t(lib, (4, 3, 3), seed=1), _t(lib, (6,), seed=2), 2, 1, 1, 2
        ),
    ),
    (
        "conv_transpose2d unbatched",
        lambda lib: lib.nn.functional.conv_transpose2d(
            _t(lib, (2, 3, 4)), _t(lib, (2, 3, 2, 2), seed=1), stride=2, dilation=(1, 2)
        ),
    ),
    (
        "conv_transpose3d",
        lambda lib: lib.conv_transpose3d(
            _t(lib, (1, 2, 3, 2, 3)), _t(lib, (2, 1, 2, 2, 2), seed=1), output_padding=1, stride=2
        ),
    ),
    (
        "conv2d complex",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 2, 4, 4), "complex128"),
            _t(lib, (3, 2, 2, 2), "complex128", 1),
            _t(lib, (3,), "complex128", 2),
        ),
    ),
    (
        "conv2d complex same",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 2, 4, 4), "complex128"),
            _t(lib, (3, 2, 2, 2), "complex128", 1),
            padding="same",
        ),
    ),
    (
        "conv_transpose2d complex",
        lambda lib: lib.nn.functional.conv_transpose2d(
            _t(lib, (1, 2, 3, 3), "complex64"),
            _t(lib, (2, 3, 2, 2), "complex64", 1),
            _t(lib, (3,), "complex64", 2),
            stride=2,
        ),
    ),
    (
        "convolution",
        lambda lib: lib.convolution(
            _t(lib, (1, 2, 5)), _t(lib, (3, 2, 2), seed=1), None, [1], [1], [1], False, [0], 1
        ),
    ),
    (
        "_convolution",
        lambda lib: lib._convolution(
            _t(lib, (1, 2, 5)),
            _t(lib, (2, 3, 2), seed=1),
            None,
            [2],
            [0],
            [1],
            True,
            [1],
            1,
            False,
            False,
            True,
            True,
        ),
    ),
    (
        "_convolution_mode",
        lambda lib: lib._convolution_mode(
            _t(lib, (1, 2, 5)), _t(lib, (3, 2, 2), seed=1), None, [1], "same", [1], 1
        ),
    ),
    (
        "conv_tbc",
        lambda lib: lib.conv_tbc(
            _t(lib, (5, 2, 3)), _t(lib, (3, 3, 4), seed=1), _t(lib, (4,), seed=2), 1
        ),
    ),
    (
        "conv_tbc pad 0",
        lambda lib: lib.nn.functional.conv_tbc(
            _t(lib, (5, 2, 3), "float32"),
            _t(lib, (2, 3, 4), "float32", 1),
            _t(lib, (4,), "float32", 2),
        ),
    ),
    (
        "conv_tbc int64",
        lambda lib: lib.conv_tbc(
            _t(lib, (5, 2, 3), "int64"), _t(lib, (2, 3, 4), "int64", 1), _t(lib, (4,), "int64", 2)
        ),
    ),
    (
        "unfold",
        lambda lib: lib.nn.functional.unfold(
            _t(lib, (2, 3, 5, 6)), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)
        ),
    ),
    ("unfold unbatched", lambda lib: lib.nn.functional.unfold(_t(lib, (3, 5, 6)), 2)),
    ("unfold bool", lambda lib: lib.nn.functional.unfold(_t(lib, (1, 2, 4, 4)) > 0, 2)),
    ("fold", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 20)), (5, 6), 2, stride=1)),
    (
        "fold strided",
        lambda lib: lib.nn.functional.fold(
            _t(lib, (1, 8, 12), "float32"), (5, 6), 2, dilation=2, padding=1, stride=(2, 1)
        ),
    ),
    ("fold bool", lambda lib: lib.nn.functional.fold(_t(lib, (12, 20)) > 0, (5, 6), 2)),
    (
        "fold float16",
        lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 20), "float16"), (5, 6), 2),
    ),
]


@pytest.mark.parametrize(("name", "fn"), _F_CASES, ids=[n for n, _ in _F_CASES])
def test_functions(name: str, fn: Callable[[Any], Any]) -> None:
    _check(fn)


def test_conv_tbc_gradients() -> None:
    def run(lib: Any) -> Any:
        x = _t(lib, (5, 2, 3)).requires_grad_()
        w = _t(lib, (3, 3, 4), seed=1).requires_grad_()
        b = _t(lib, (4,), seed=2).requires_grad_()
        y = lib.conv_tbc(x, w, b, 1)
        return lib.autograd.grad(y, [x, w, b], _t(lib, tuple(y.shape), seed=3))

    _check(run)


@pytest.mark.parametrize(("op", "shape"), [("unfold", (2, 3, 5, 6)), ("fold", (2, 12, 20))])
def test_fold_gradients(op: str, shape: tuple[int, ...]) -> None:
    # im2col's derivative is col2im and col2im's is im2col: the second derivative (through
    # the incoming gradient) runs both.
    def run(lib: Any) -> Any:
        x = _t(lib, shape).requires_grad_()
        f = lib.nn.functional
        y = f.unfold(x, 2, padding=1) if op == "unfold" else f.fold(x, (5, 6), 2)
        gy = _t(lib, tuple(y.shape), seed=3).requires_grad_()
        (g,) = lib.autograd.grad(y, [x], gy, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [gy])
        return g, gg

    _check(run)


def test_fold_out() -> None:
    def run(lib: Any) -> Any:
        out = lib.zeros(3, dtype=lib.float64)
        lib._C._nn.im2col(_t(lib, (2, 3, 5, 6)), [2, 2], [1, 1], [0, 0], [1, 1], out=out)
        out2 = lib.zeros(0, dtype=lib.float64)
        lib._C._nn.col2im(out, [5, 6], [2, 2], [1, 1], [0, 0], [1, 1], out=out2)
        return out, out2

    _check(run)


# --- errors --------------------------------------------------------------------------------


def _aten_conv(
    x: tuple[int, ...],
    w: tuple[int, ...],
    *rest: Any,
    dtype: str = "float32",
    wdtype: str | None = None,
) -> Callable[[Any], Any]:
    return lambda lib: lib.ops.aten.convolution.default(
        _t(lib, x, dtype), _t(lib, w, wdtype or dtype, 1), *rest
    )


_X = (1, 2, 4, 4)
_W = (2, 2, 2, 2)
_ERROR_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("channels", lambda lib: lib.nn.functional.conv2d(_t(lib, (2, 4, 6, 6)), _t(lib, _W))),
    ("conv2d rank", lambda lib: lib.nn.functional.conv2d(_t(lib, (6, 6)), _t(lib, _W))),
    ("conv1d rank", lambda lib: lib.conv1d(_t(lib, (2, 3, 4, 5)), _t(lib, (4, 3, 3)))),
    (
        "conv_transpose3d rank",
        lambda lib: lib.conv_transpose3d(_t(lib, (3, 4)), _t(lib, (3, 4, 3, 3, 3))),
    ),
    ("negative padding", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), padding=-1)),
    ("zero stride", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), stride=0)),
    ("zero dilation", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), dilation=0)),
    (
        "zero dilation onednn",
        lambda lib: lib.conv2d(
            _t(lib, (2, 2, 4, 4), "float32"), _t(lib, _W, "float32"), dilation=0
        ),
    ),
    (
        "zero dilation transposed",
        lambda lib: lib.conv_transpose2d(_t(lib, _X), _t(lib, _W), dilation=0),
    ),
    ("negative dilation", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), dilation=-1)),
    ("zero groups", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), groups=0)),
    ("groups channels", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), groups=2)),
    (
        "groups divisible",
        lambda lib: lib.conv2d(_t(lib, (1, 4, 4, 4)), _t(lib, (3, 2, 2, 2)), groups=2),
    ),
    ("same strided", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), padding="same", stride=2)),
    ("bad padding string", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), padding="full")),
    ("bias size", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), _t(lib, (3,)))),
    (
        "bias dtype",
        lambda lib: lib.conv2d(
            _t(lib, _X, "float32"), _t(lib, _W, "float32"), _t(lib, (2,), "float64")
        ),
    ),
    ("kernel too big", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, (2, 2, 5, 5)))),
    ("stride length", lambda lib: lib.conv2d(_t(lib, _X), _t(lib, _W), stride=(1, 1, 1))),
    ("weight rank", _aten_conv(_X, (2, 2, 2), None, [1], [0], [1], False, [0], 1)),
    ("weight 2-d", _aten_conv(_X, (2, 2), None, [1], [0], [1], False, [0], 1)),
    (
        "output_padding length",
        _aten_conv(_X, _W, None, [1, 1], [0, 0], [1, 1], False, [0, 0, 0], 1),
    ),
    ("negative output_padding", _aten_conv(_X, _W, None, [2, 2], [0, 0], [1, 1], True, [-1, 0], 1)),
    ("output_padding too big", _aten_conv(_X, _W, None, [1, 1], [0, 0], [1, 1], True, [1, 1], 1)),
    (
        "transposed output too small",
        _aten_conv(_X, _W, None, [1, 1], [4, 4], [1, 1], True, [0, 0], 1),
    ),
    (
        "transposed channels",
        _aten_conv((1, 3, 4, 4), _W, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1),
    ),
    (
        "transposed 1-d output_padding",
        _aten_conv((1, 2, 4), (2, 2, 2), None, [1], [0], [1], True, [1], 1),
    ),
    ("bool", _aten_conv(_X, _W, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, dtype="bool")),
    (
        "int32 dilated",
        _aten_conv(_X, _W, None, [1, 1], [0, 0], [2, 2], False, [0, 0], 1, dtype="int32"),
    ),
    (
        "int32 transposed",
        _aten_conv(_X, _W, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1, dtype="int32"),
    ),
    (
        "complex aten",
        _aten_conv(_X, _W, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, dtype="complex64"),
    ),
    (
        "slow weight dtype",
        _aten_conv(
            _X,
            _W,
            None,
            [1, 1],
            [0, 0],
            [1, 1],
            False,
            [0, 0],
            1,
            dtype="float32",
            wdtype="float64",
        ),
    ),
    (
        "onednn weight dtype",
        _aten_conv(
            (2, 2, 4, 4),
            _W,
            None,
            [1, 1],
            [0, 0],
            [1, 1],
            False,
            [0, 0],
            1,
            dtype="float32",
            wdtype="float64",
        ),
    ),
    ("zero kernel", _aten_conv(_X, (2, 2, 0, 2), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)),
    (
        "zero kernel 3-d",
        _aten_conv(
            (1, 2, 4, 4, 4),
            (2, 2, 0, 2, 2),
            None,
            [1, 1, 1],
            [0, 0, 0],
            [1, 1, 1],
            False,
            [0, 0, 0],
            1,
        ),
    ),
    ("zero kernel dilated", _aten_conv((1, 2, 4), (2, 2, 0), None, [1], [0], [2], False, [0], 1)),
    ("complex weight dtype", lambda lib: lib.conv2d(_t(lib, _X, "complex64"), _t(lib, _W))),
    (
        "tbc input rank",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2)), _t(lib, (3, 3, 4)), _t(lib, (4,))),
    ),
    (
        "tbc weight rank",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2, 3)), _t(lib, (3, 4)), _t(lib, (4,))),
    ),
    (
        "tbc bias rank",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2, 3)), _t(lib, (3, 3, 4)), _t(lib, (4, 1))),
    ),
    (
        "tbc channels",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2, 3)), _t(lib, (3, 2, 4)), _t(lib, (4,))),
    ),
    (
        "tbc bias size",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2, 3)), _t(lib, (3, 3, 4)), _t(lib, (5,))),
    ),
    (
        "tbc negative length",
        lambda lib: lib.conv_tbc(_t(lib, (2, 2, 3)), _t(lib, (5, 3, 4)), _t(lib, (4,))),
    ),
    (
        "tbc bool",
        lambda lib: lib.conv_tbc(_t(lib, (5, 2, 3)) > 0, _t(lib, (3, 3, 4)) > 0, _t(lib, (4,)) > 0),
    ),
    ("unfold kernel", lambda lib: lib.nn.functional.unfold(_t(lib, _X), (0, 2))),
    ("unfold dilation", lambda lib: lib.nn.functional.unfold(_t(lib, _X), 2, dilation=0)),
    ("unfold padding", lambda lib: lib.nn.functional.unfold(_t(lib, _X), 2, padding=-1)),
    ("unfold stride", lambda lib: lib.nn.functional.unfold(_t(lib, _X), 2, stride=(0, 1))),
    ("unfold rank 2", lambda lib: lib.nn.functional.unfold(_t(lib, (3, 5)), 2)),
    ("unfold rank 5", lambda lib: lib.nn.functional.unfold(_t(lib, (1, 1, 3, 4, 5)), 2)),
    ("unfold empty", lambda lib: lib.nn.functional.unfold(_t(lib, (2, 0, 5, 5)), 2)),
    ("unfold too small", lambda lib: lib.nn.functional.unfold(_t(lib, _X), (7, 2))),
    (
        "unfold kernel length",
        lambda lib: lib._C._nn.im2col(_t(lib, _X), [2], [1, 1], [0, 0], [1, 1]),
    ),
    ("unfold int64", lambda lib: lib.nn.functional.unfold(_t(lib, _X, "int64"), 2)),
    ("fold rank", lambda lib: lib.nn.functional.fold(_t(lib, (12,)), (5, 6), 2)),
    ("fold divisible", lambda lib: lib.nn.functional.fold(_t(lib, (2, 11, 20)), (5, 6), 2)),
    ("fold blocks", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 21)), (5, 6), 2)),
    ("fold too small", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 2)), (1, 1), (3, 4))),
    ("fold output length", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 20)), (5,), 2)),
    (
        "im2col out dtype",
        lambda lib: lib._C._nn.im2col(
            _t(lib, _X), [2, 2], [1, 1], [0, 0], [1, 1], out=lib.zeros(0, dtype=lib.float32)
        ),
    ),
    (
        "col2im out dtype",
        lambda lib: lib._C._nn.col2im(
            _t(lib, (2, 12, 20)),
            [5, 6],
            [2, 2],
            [1, 1],
            [0, 0],
            [1, 1],
            out=lib.zeros(0, dtype=lib.float32),
        ),
    ),
    (
        "convolution out dtype",
        lambda lib: lib.ops.aten.convolution.out(
            _t(lib, _X),
            _t(lib, _W),
            None,
            [1, 1],
            [0, 0],
            [1, 1],
            False,
            [0, 0],
            1,
            out=lib.zeros(0, dtype=lib.float32),
        ),
    ),
    (
        "conv_tbc out dtype",
        lambda lib: lib.ops.aten.conv_tbc.out(
            _t(lib, (5, 2, 3)),
            _t(lib, (3, 3, 4)),
            _t(lib, (4,)),
            1,
            out=lib.zeros(0, dtype=lib.float32),
        ),
    ),
    ("fold int64", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 20), "int64"), (5, 6), 2)),
]


@pytest.mark.parametrize(("name", "fn"), _ERROR_CASES, ids=[n for n, _ in _ERROR_CASES])
def test_errors(name: str, fn: Callable[[Any], Any]) -> None:
    _expected, expected_error = outcome(fn, torch)
    assert expected_error is not None, f"torch did not raise for {name}"
    _check(fn)


def test_same_padding_warning() -> None:
    # torch warns once per process (TORCH_WARN_ONCE), so refimpl's record of it is reset and
    # torch's text is compared where torch still warns.
    message = (
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created"
    )

    def run(lib: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.conv2d(_t(lib, _X), _t(lib, _W), padding="same")
        return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]

    CONTEXT.warned_once.discard("_convolution_same")
    assert run(refimpl) == [message]
    assert run(refimpl) == []
    assert all(text.startswith(message) for text in run(torch))


# --- what a TorchDispatchMode sees ---------------------------------------------------------

_MODE_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    (
        "conv2d",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (2, 3, 5, 5)).requires_grad_(),
            _t(lib, (4, 3, 3, 3)).requires_grad_(),
            _t(lib, (4,)).requires_grad_(),
            padding=1,
        ),
    ),
    (
        "conv2d unbatched no bias",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (3, 5, 5)).requires_grad_(), _t(lib, (4, 3, 3, 3)).requires_grad_()
        ),
    ),
    (
        "conv2d same even",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 3, 5, 5)).requires_grad_(), _t(lib, (4, 3, 2, 2)), padding="same"
        ),
    ),
    (
        "conv1d valid",
        lambda lib: lib.nn.functional.conv1d(
            _t(lib, (1, 3, 5)).requires_grad_(), _t(lib, (4, 3, 2)), padding="valid"
        ),
    ),
    (
        "conv_transpose2d",
        lambda lib: lib.nn.functional.conv_transpose2d(
            _t(lib, (2, 3, 4, 4)).requires_grad_(), _t(lib, (3, 2, 3, 3)).requires_grad_(), stride=2
        ),
    ),
    (
        "conv3d",
        lambda lib: lib.nn.functional.conv3d(
            _t(lib, (1, 2, 3, 3, 3)).requires_grad_(), _t(lib, (2, 2, 2, 2, 2))
        ),
    ),
    (
        "conv2d complex",
        lambda lib: lib.nn.functional.conv2d(
            _t(lib, (1, 2, 4, 4), "complex128"),
            _t(lib, (3, 2, 2, 2), "complex128"),
            _t(lib, (3,), "complex128"),
        ),
    ),
    (
        "conv_tbc",
        lambda lib: lib.conv_tbc(
            _t(lib, (5, 2, 3)).requires_grad_(),
            _t(lib, (2, 3, 4)).requires_grad_(),
            _t(lib, (4,)).requires_grad_(),
            1,
        ),
    ),
    ("unfold", lambda lib: lib.nn.functional.unfold(_t(lib, (2, 3, 5, 6)).requires_grad_(), 2)),
    ("fold", lambda lib: lib.nn.functional.fold(_t(lib, (2, 12, 20)).requires_grad_(), (5, 6), 2)),
]


@pytest.mark.parametrize(("name", "fn"), _MODE_CASES, ids=[n for n, _ in _MODE_CASES])
def test_dispatch_mode_sees_torch_calls(name: str, fn: Callable[[Any], Any]) -> None:
    def program(lib: Any) -> Callable[[], Any]:
        def run() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = fn(lib)
            if y.requires_grad:
                y.sum().backward()
            return y

        return run

    expected, _ = aten_calls(torch, program(torch))
    actual, _ = aten_calls(refimpl, program(refimpl))
    assert actual == expected


@pytest.mark.parametrize(("name", "fn"), _MODE_CASES, ids=[n for n, _ in _MODE_CASES])
def test_function_mode_sees_torch_names(name: str, fn: Callable[[Any], Any]) -> None:
    # F.conv2d is torch.conv2d (a binding: told of with overloaded argument types only);
    # F.unfold and F.fold are Python functions.
    def program(lib: Any) -> Callable[[], Any]:
        def run() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn(lib)

        return run

    expected, _ = function_calls(torch, program(torch))
    actual, _ = function_calls(refimpl, program(refimpl))
    assert actual == expected


def test_functional_names_are_torch_functions() -> None:
    f = refimpl.nn.functional
    for name in (
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "conv_tbc",
    ):
        assert (getattr(f, name) is getattr(refimpl, name)) == (
            getattr(torch.nn.functional, name) is getattr(torch, name)
        )
