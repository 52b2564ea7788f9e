"""Pooling against torch, for what the OpInfos leave out: max, average, adaptive, Lp and
fractional pooling and max_unpool through torch.nn.functional, the torch.* functions and the
aten ops (.out forms, backward ops): error paths, channels-last and non-contiguous inputs,
NaN, -inf and ties, integer and float16 dtypes, return_indices dispatch, gradients and second
gradients, and the aten overloads a TorchDispatchMode sees forward and backward.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or each result's dtype, shape, strides and values (float16 and integers
exactly, float32/float64 to a few ulps).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls, function_calls
from conformance._oracle import outcome

Call = Callable[[Any], Any]


def _F(lib: Any) -> Any:
    return lib.nn.functional


def _aten(lib: Any) -> Any:
    return lib.ops.aten


def _x(
    lib: Any, shape: tuple[int, ...], dtype: str = "float32", seed: int = 0, ties: bool = False
) -> Any:
    """A deterministic tensor: small integers (many ties) or spread values."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    values = rng.integers(-4, 5, n) if ties else np.round(rng.standard_normal(n) * 4, 3)
    if dtype.startswith(("int", "uint")):
        values = rng.integers(-20 if dtype != "uint8" else 0, 20, n)
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype)).reshape(shape)


def _cl(t: Any, lib: Any) -> Any:
    fmt = lib.channels_last if t.dim() == 4 else lib.channels_last_3d
    return t.contiguous(memory_format=fmt)


def _array(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list) and len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    if not isinstance(expected, torch.Tensor):
        assert actual == expected
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride()), (actual.stride(), expected.stride())
    e, a = _array(expected), _array(actual)
    if e.dtype in (np.float32, np.float64):
        tol = 1e-5 if e.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(a, e)


def _check(fn: Call) -> None:
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


# --- forward results ----------------------------------------------------------------------------

_NAN_INF: Call = lambda lib: lib.tensor(  # noqa: E731
    [[[math.nan, 1.0, math.nan, 2.0, -math.inf, -math.inf, -math.inf, 3.0]]]
)

FORWARD: list[tuple[str, Call]] = [
    # max pooling
    ("max_pool2d", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 3, 7, 9)), 3, 2, 1)),
    (
        "max_pool2d indices ceil dilation",
        lambda lib: _F(lib).max_pool2d(_x(lib, (2, 3, 7, 9)), (3, 2), (2, 3), 1, (2, 1), True, True),
    ),
    (
        "max_pool2d return_indices keyword",
        lambda lib: _F(lib).max_pool2d(_x(lib, (3, 6, 6)), 2, return_indices=True),
    ),
    (
        "max_pool2d ties",
        lambda lib: _F(lib).max_pool2d(_x(lib, (2, 2, 6, 6), ties=True), 3, 1, 1, return_indices=True),
    ),
    (
        "max_pool2d channels_last",
        lambda lib: _F(lib).max_pool2d(_cl(_x(lib, (2, 3, 6, 7)), lib), 2, return_indices=True),
    ),
    (
        "max_pool2d permuted",
        lambda lib: _F(lib).max_pool2d(_x(lib, (2, 7, 6, 3)).permute(0, 3, 2, 1), 2, 1),
    ),
    (
        "max_pool2d sliced",
        lambda lib: _F(lib).max_pool2d(_x(lib, (2, 3, 8, 9))[:, :, ::2, 1:], 2, return_indices=True),
    ),
    ("max_pool2d int64", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 5, 5), "int64"), 2, 1)),
    ("max_pool2d uint8", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 5, 5), "uint8"), 2, 1)),
    ("max_pool2d int16", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 5, 5), "int16"), 3, 2, 1)),
    ("max_pool2d float16", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 5, 5), "float16"), 2)),
    ("max_pool2d empty batch", lambda lib: _F(lib).max_pool2d(lib.zeros(0, 2, 4, 4), 2)),
    (
        "max_pool1d NaN -inf padding",
        lambda lib: _F(lib).max_pool1d(_NAN_INF(lib), 3, 1, 1, return_indices=True),
    ),
    ("max_pool1d no indices", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 9)), 3, 2, 1, 2)),
    ("max_pool1d ceil", lambda lib: _F(lib).max_pool1d(_x(lib, (3, 10)), 3, 2, 1, 1, True)),
    ("torch.max_pool1d", lambda lib: lib.max_pool1d(_x(lib, (2, 3, 9)), [3])),
    (
        "torch.max_pool1d_with_indices",
        lambda lib: lib.max_pool1d_with_indices(_x(lib, (2, 3, 9)), [3], [2], [1]),
    ),
    ("torch.max_pool2d", lambda lib: lib.max_pool2d(_x(lib, (2, 3, 6, 6)), [2, 2])),
    ("torch.max_pool3d", lambda lib: lib.max_pool3d(_x(lib, (2, 4, 6, 6)), [2, 2, 2])),
    (
        "max_pool3d",
        lambda lib: _F(lib).max_pool3d(_x(lib, (2, 2, 5, 6, 7)), 3, 2, 1, 1, True, True),
    ),
    (
        "max_pool3d channels_last_3d",
        lambda lib: _F(lib).max_pool3d(_cl(_x(lib, (2, 3, 4, 6, 6)), lib), 2, return_indices=True),
    ),
    (
        "max_pool2d_with_indices.out",
        lambda lib: _aten(lib).max_pool2d_with_indices.out(
            _x(lib, (2, 6, 6)),
            [2, 2],
            out=lib.zeros(0),
            indices=lib.zeros(0, dtype=lib.int64),
        ),
    ),
    # average pooling
    ("avg_pool2d", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 3, 7, 9)), 3, 2, 1)),
    (
        "avg_pool2d ceil no pad count",
        lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 3, 7, 9)), 3, 2, 1, True, False),
    ),
    (
        "avg_pool2d divisor",
        lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 7, 9)), (3, 2), 2, 1, True, True, 5),
    ),
    (
        "avg_pool2d channels_last",
        lambda lib: _F(lib).avg_pool2d(_cl(_x(lib, (2, 3, 6, 7)), lib), 2),
    ),
    ("avg_pool2d int64", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 5, 5), "int64"), 2, 1, 1)),
    ("avg_pool2d float16", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 5, 5), "float16"), 3, 1, 1)),
    ("avg_pool1d", lambda lib: _F(lib).avg_pool1d(_x(lib, (2, 3, 9)), 3, 2, 1, True, False)),
    ("avg_pool3d", lambda lib: _F(lib).avg_pool3d(_x(lib, (2, 2, 5, 6, 7)), 3, 2, 1, True)),
    (
        "avg_pool3d channels_last_3d",
        lambda lib: _F(lib).avg_pool3d(_cl(_x(lib, (2, 3, 4, 6, 6)), lib), 2),
    ),
    ("avg_pool3d int64", lambda lib: _F(lib).avg_pool3d(_x(lib, (2, 4, 4, 4), "int64"), 2)),
    (
        "avg_pool2d.out",
        lambda lib: _aten(lib).avg_pool2d.out(_x(lib, (2, 6, 6)), [2, 2], out=lib.zeros(0)),
    ),
    # adaptive pooling
    ("adaptive_avg_pool2d", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 3, 7, 9)), (3, 4))),
    (
        "adaptive_avg_pool2d None",
        lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 3, 7, 9)), (None, 4)),
    ),
    (
        "adaptive_avg_pool2d channels_last",
        lambda lib: _F(lib).adaptive_avg_pool2d(_cl(_x(lib, (2, 3, 7, 9)), lib), 3),
    ),
    (
        "adaptive_avg_pool2d 1x1 channels_last",
        lambda lib: _F(lib).adaptive_avg_pool2d(_cl(_x(lib, (2, 3, 7, 9)), lib), 1),
    ),
    (
        "adaptive_avg_pool2d float16",
        lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 7, 9), "float16"), 4),
    ),
    (
        "adaptive_avg_pool3d",
        lambda lib: _F(lib).adaptive_avg_pool3d(_x(lib, (2, 2, 5, 6, 7)), (2, 4, 3)),
    ),
    (
        "adaptive_avg_pool3d float16",
        lambda lib: _F(lib).adaptive_avg_pool3d(_x(lib, (2, 5, 6, 7), "float16"), 3),
    ),
    ("adaptive_avg_pool1d", lambda lib: _F(lib).adaptive_avg_pool1d(_x(lib, (2, 3, 9)), 4)),
    (
        "adaptive_max_pool2d",
        lambda lib: _F(lib).adaptive_max_pool2d(_x(lib, (2, 3, 7, 9), ties=True), (3, 4), True),
    ),
    (
        "adaptive_max_pool2d channels_last",
        lambda lib: _F(lib).adaptive_max_pool2d(_cl(_x(lib, (2, 3, 7, 9)), lib), 3, True),
    ),
    (
        "adaptive_max_pool3d",
        lambda lib: _F(lib).adaptive_max_pool3d(_x(lib, (2, 2, 5, 6, 7)), (2, 4, 3), True),
    ),
    (
        "adaptive_max_pool1d",
        lambda lib: _F(lib).adaptive_max_pool1d(_NAN_INF(lib), 3, return_indices=True),
    ),
    ("torch.adaptive_max_pool1d", lambda lib: lib.adaptive_max_pool1d(_x(lib, (2, 3, 9)), [4])),
    ("torch._adaptive_avg_pool2d", lambda lib: lib._adaptive_avg_pool2d(_x(lib, (3, 5, 5)), [2, 2])),
    (
        "_adaptive_avg_pool2d.out",
        lambda lib: _aten(lib)._adaptive_avg_pool2d.out(_x(lib, (3, 5, 5)), [2, 3], out=lib.zeros(0)),
    ),
    (
        "adaptive_avg_pool2d.out",
        lambda lib: _aten(lib).adaptive_avg_pool2d.out(_x(lib, (3, 5, 5)), [1, 1], out=lib.zeros(0)),
    ),
    (
        "adaptive_max_pool2d.out",
        lambda lib: _aten(lib).adaptive_max_pool2d.out(
            _x(lib, (3, 5, 5)), [2, 3], out=lib.zeros(0), indices=lib.zeros(0, dtype=lib.int64)
        ),
    ),
    # Lp pooling
    ("lp_pool1d", lambda lib: _F(lib).lp_pool1d(_x(lib, (2, 3, 9)), 2, 3, 2)),
    ("lp_pool2d", lambda lib: _F(lib).lp_pool2d(_x(lib, (2, 3, 6, 7)), 3, (2, 3))),
    ("lp_pool2d inf", lambda lib: _F(lib).lp_pool2d(_x(lib, (2, 3, 6, 7)), math.inf, 2)),
    ("lp_pool3d", lambda lib: _F(lib).lp_pool3d(_x(lib, (2, 4, 6, 6)), 1.5, 2, ceil_mode=True)),
    # max_unpool
    (
        "max_unpool2d",
        lambda lib: _F(lib).max_unpool2d(
            *_F(lib).max_pool2d(_x(lib, (2, 3, 6, 6)), 2, return_indices=True), 2, output_size=(7, 7)
        ),
    ),
    (
        "max_unpool2d channels_last",
        lambda lib: _F(lib).max_unpool2d(
            *_F(lib).max_pool2d(_cl(_x(lib, (2, 3, 6, 6)), lib), 2, return_indices=True), 2
        ),
    ),
    (
        "max_unpool1d",
        lambda lib: _F(lib).max_unpool1d(
            *_F(lib).max_pool1d(_x(lib, (2, 3, 8)), 2, return_indices=True), 2
        ),
    ),
    (
        "max_unpool3d",
        lambda lib: _F(lib).max_unpool3d(
            *_F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), 2, return_indices=True), 2
        ),
    ),
    # fractional max pooling
    (
        "fractional_max_pool2d samples",
        lambda lib: _F(lib).fractional_max_pool2d(
            _x(lib, (2, 3, 9, 11)),
            (2, 3),
            output_size=(4, 5),
            return_indices=True,
            _random_samples=lib.tensor(np.linspace(0.05, 0.95, 12).tolist()).reshape(2, 3, 2),
        ),
    ),
    (
        "fractional_max_pool2d ratio float64",
        lambda lib: _F(lib).fractional_max_pool2d(
            _x(lib, (3, 9, 11), "float64"),
            2,
            output_ratio=(0.5, 0.5),
            _random_samples=lib.tensor(
                np.linspace(0.1, 0.9, 6).tolist(), dtype=lib.float64
            ).reshape(1, 3, 2),
        ),
    ),
    (
        "fractional_max_pool3d samples",
        lambda lib: _F(lib).fractional_max_pool3d(
            _x(lib, (2, 2, 7, 8, 9)),
            2,
            output_size=(3, 4, 5),
            return_indices=True,
            _random_samples=lib.tensor(np.linspace(0.05, 0.95, 12).tolist()).reshape(2, 2, 3),
        ),
    ),
]


@pytest.mark.parametrize(("name", "call"), FORWARD, ids=[n for n, _ in FORWARD])
def test_forward_matches_torch(name: str, call: Call) -> None:
    _check(call)


def _seeded_fractional(lib: Any) -> Any:
    lib.manual_seed(7)
    return _F(lib).fractional_max_pool2d(_x(lib, (2, 3, 9, 9)), 3, output_size=4)


def test_fractional_draws_samples_as_torch() -> None:
    # torch.rand draws the samples; refimpl's generator is torch's, so the windows match.
    _check(_seeded_fractional)


# --- errors ---------------------------------------------------------------------------------------

ERRORS: list[tuple[str, Call]] = [
    ("max2d kernel len", lambda lib: _aten(lib).max_pool2d_with_indices(_x(lib, (2, 6, 6)), [2, 2, 2])),
    ("max2d stride len", lambda lib: _aten(lib).max_pool2d_with_indices(_x(lib, (2, 6, 6)), [2], [1, 1, 1])),
    ("max2d dilation len", lambda lib: _aten(lib).max_pool2d_with_indices(_x(lib, (2, 6, 6)), [2], [], [0], [1, 1, 1])),
    ("max2d stride 0", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, 0)),
    ("max2d stride -1", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, -1)),
    ("max2d kernel 0", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 0, 1)),
    ("max2d dilation 0", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, dilation=0)),
    ("max2d pad big", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, padding=2)),
    ("max2d pad dilated", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 3, padding=2, dilation=2)),
    ("max2d pad negative", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, padding=-1)),
    ("max2d too small", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 7)),
    ("max2d 2d input", lambda lib: _F(lib).max_pool2d(_x(lib, (6, 6)), 2)),
    ("max2d empty channels", lambda lib: _F(lib).max_pool2d(lib.zeros(2, 0, 6, 6), 2)),
    ("max2d bool", lambda lib: _F(lib).max_pool2d(lib.zeros(2, 6, 6, dtype=lib.bool), 2)),
    ("max2d complex", lambda lib: _F(lib).max_pool2d(lib.zeros(2, 6, 6, dtype=lib.complex64), 2)),
    ("max3d kernel len", lambda lib: _F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), (2, 2))),
    ("max3d stride -1", lambda lib: _F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), 2, -1)),
    ("max3d 3d input", lambda lib: _F(lib).max_pool3d(_x(lib, (4, 6, 6)), 2)),
    ("max3d empty", lambda lib: _F(lib).max_pool3d(lib.zeros(2, 0, 4, 6, 6), 2)),
    ("max3d pad dilated", lambda lib: _F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), 3, padding=2, dilation=2)),
    ("max3d too small", lambda lib: _F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), 5)),
    ("max1d 4d", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 4, 5)), 2)),
    ("max1d kernel 0", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 6)), 0)),
    ("max1d padding", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 6)), 2, padding=2)),
    ("max1d output", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 6)), 7)),
    ("max1d int", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 6), "int64"), 2)),
    ("max1d indices 4d", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 4, 5)), 2, return_indices=True)),
    ("max1d indices kernel", lambda lib: lib.max_pool1d_with_indices(_x(lib, (2, 3, 6)), [2, 2])),
    ("avg2d kernel len", lambda lib: _aten(lib).avg_pool2d(_x(lib, (2, 6, 6)), [2, 2, 2])),
    ("avg2d divisor 0", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 6, 6)), 2, divisor_override=0)),
    ("avg2d 2d input", lambda lib: _F(lib).avg_pool2d(_x(lib, (6, 6)), 2)),
    ("avg2d int8", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 6, 6), "int8"), 2)),
    ("avg2d int32", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 6, 6), "int32"), 2)),
    ("avg3d kernel len", lambda lib: _aten(lib).avg_pool3d(_x(lib, (2, 4, 6, 6)), [2, 2])),
    ("avg3d input smaller", lambda lib: _F(lib).avg_pool3d(_x(lib, (2, 4, 6, 6)), 5, padding=2)),
    ("avg3d float16", lambda lib: _F(lib).avg_pool3d(_x(lib, (2, 4, 6, 6), "float16"), 2)),
    ("avg3d empty", lambda lib: _F(lib).avg_pool3d(lib.zeros(2, 0, 4, 6, 6), 2)),
    ("avg1d 1d", lambda lib: _F(lib).avg_pool1d(_x(lib, (6,)), 2)),
    ("aavg2d rank", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (6, 6)), 2)),
    ("aavg2d negative", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 6, 6)), (-1, 2))),
    ("aavg2d long", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 6, 6), "int64"), 2)),
    ("aavg3d negative", lambda lib: _F(lib).adaptive_avg_pool3d(_x(lib, (2, 4, 6, 6)), (1, 2, -1))),
    ("aavg3d empty", lambda lib: _F(lib).adaptive_avg_pool3d(lib.zeros(2, 0, 4, 6, 6), 2)),
    ("aavg3d long", lambda lib: _F(lib).adaptive_avg_pool3d(_x(lib, (2, 4, 6, 6), "int64"), 2)),
    ("aavg1d output len", lambda lib: _F(lib).adaptive_avg_pool1d(_x(lib, (2, 6)), (2, 2))),
    ("aavg list short", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (6,)), (2, None))),
    ("amax2d rank", lambda lib: _F(lib).adaptive_max_pool2d(_x(lib, (6, 6)), 2)),
    ("amax2d empty", lambda lib: _F(lib).adaptive_max_pool2d(lib.zeros(2, 0, 6, 6), 2)),
    ("amax2d negative", lambda lib: _F(lib).adaptive_max_pool2d(_x(lib, (2, 3, 6, 6)), (-1, 2))),
    ("amax3d long", lambda lib: _F(lib).adaptive_max_pool3d(_x(lib, (2, 4, 6, 6), "int64"), 2)),
    ("amax1d empty", lambda lib: _F(lib).adaptive_max_pool1d(lib.zeros(3, 0, 6), 2)),
    ("unpool2d indices dtype", lambda lib: _aten(lib).max_unpool2d(_x(lib, (2, 2, 2)), lib.zeros(2, 2, 2, dtype=lib.int32), [4, 4])),
    ("unpool2d rank", lambda lib: _aten(lib).max_unpool2d(_x(lib, (2, 2)), lib.zeros(2, 2, dtype=lib.int64), [4, 4])),
    ("unpool2d shapes", lambda lib: _aten(lib).max_unpool2d(_x(lib, (2, 2, 2)), lib.zeros(2, 2, 1, dtype=lib.int64), [4, 4])),
    ("unpool2d bad index", lambda lib: _aten(lib).max_unpool2d(_x(lib, (1, 2, 2)), lib.tensor([[[0, 1], [99, 2]]]), [4, 4])),
    ("unpool2d long", lambda lib: _aten(lib).max_unpool2d(_x(lib, (2, 2, 2), "int64"), lib.zeros(2, 2, 2, dtype=lib.int64), [4, 4])),
    ("unpool3d stride len", lambda lib: _aten(lib).max_unpool3d(_x(lib, (2, 2, 2, 2)), lib.zeros(2, 2, 2, 2, dtype=lib.int64), [4, 4, 4], [2, 2], [0, 0, 0])),
    ("unpool3d stride 0", lambda lib: _aten(lib).max_unpool3d(_x(lib, (2, 2, 2, 2)), lib.zeros(2, 2, 2, 2, dtype=lib.int64), [4, 4, 4], [0, 2, 2], [0, 0, 0])),
    ("F unpool output_size len", lambda lib: _F(lib).max_unpool2d(_x(lib, (2, 2, 2)), lib.zeros(2, 2, 2, dtype=lib.int64), 2, output_size=(4,))),
    ("F unpool output_size range", lambda lib: _F(lib).max_unpool2d(_x(lib, (2, 2, 2)), lib.zeros(2, 2, 2, dtype=lib.int64), 2, output_size=(9, 4))),
    ("frac2d no size", lambda lib: _F(lib).fractional_max_pool2d(_x(lib, (2, 6, 6)), 2)),
    ("frac2d samples dtype", lambda lib: _aten(lib).fractional_max_pool2d(_x(lib, (2, 6, 6)), [2, 2], [3, 3], lib.rand(1, 2, 2, dtype=lib.float64))),
    ("frac2d samples rank", lambda lib: _aten(lib).fractional_max_pool2d(_x(lib, (2, 6, 6)), [2, 2], [3, 3], lib.rand(2, 2))),
    ("frac2d samples size", lambda lib: _aten(lib).fractional_max_pool2d(_x(lib, (2, 6, 6)), [2, 2], [3, 3], lib.rand(1, 2, 3))),
    ("frac2d pool big", lambda lib: _aten(lib).fractional_max_pool2d(_x(lib, (2, 6, 6)), [4, 2], [4, 3], lib.rand(1, 2, 2))),
    ("frac3d rank", lambda lib: _aten(lib).fractional_max_pool3d(_x(lib, (6, 6, 6)), [2, 2, 2], [3, 3, 3], lib.rand(1, 6, 3))),
    ("frac3d pool big", lambda lib: _aten(lib).fractional_max_pool3d(_x(lib, (2, 4, 6, 6)), [3, 2, 2], [3, 3, 3], lib.rand(1, 2, 3))),
    ("lp_pool no norm", lambda lib: _F(lib).lp_pool2d(_x(lib, (2, 6, 6)), 2, (2, 2, 2))),
]


@pytest.mark.parametrize(("name", "call"), ERRORS, ids=[n for n, _ in ERRORS])
def test_error_matches_torch(name: str, call: Call) -> None:
    _check(call)


# --- backward ops ---------------------------------------------------------------------------------


def _max2d_backward(lib: Any, grad_dtype: str = "float32", index_dtype: str = "int64") -> Any:
    x = _x(lib, (2, 3, 6, 6))
    _, indices = _aten(lib).max_pool2d_with_indices(x, [2, 2])
    grad = _x(lib, (2, 3, 3, 3), grad_dtype, seed=1)
    return _aten(lib).max_pool2d_with_indices_backward(
        grad, x, [2, 2], [2, 2], [0, 0], [1, 1], False, indices.to(getattr(lib, index_dtype))
    )


BACKWARD: list[tuple[str, Call]] = [
    ("max2d backward", _max2d_backward),
    ("max2d backward grad dtype", lambda lib: _max2d_backward(lib, "float64")),
    ("max2d backward index dtype", lambda lib: _max2d_backward(lib, index_dtype="int32")),
    (
        "max2d backward grad shape",
        lambda lib: _aten(lib).max_pool2d_with_indices_backward(
            _x(lib, (2, 3, 2, 3)), _x(lib, (2, 3, 6, 6)), [2, 2], [2, 2], [0, 0], [1, 1], False,
            lib.zeros(2, 3, 3, 3, dtype=lib.int64),
        ),
    ),
    (
        "max2d backward channels_last",
        lambda lib: _aten(lib).max_pool2d_with_indices_backward(
            _cl(_x(lib, (2, 3, 3, 3)), lib), _cl(_x(lib, (2, 3, 6, 6)), lib), [2, 2], [2, 2],
            [0, 0], [1, 1], False, _F(lib).max_pool2d(_cl(_x(lib, (2, 3, 6, 6)), lib), 2, return_indices=True)[1],
        ),
    ),
    (
        "max2d backward long",
        lambda lib: _aten(lib).max_pool2d_with_indices_backward(
            _x(lib, (2, 3, 3), "int64"), _x(lib, (2, 6, 6), "int64"), [2, 2], [2, 2], [0, 0],
            [1, 1], False, lib.zeros(2, 3, 3, dtype=lib.int64),
        ),
    ),
    (
        "max3d backward grad_input",
        lambda lib: _aten(lib).max_pool3d_with_indices_backward.grad_input(
            _x(lib, (2, 2, 3, 3)), _x(lib, (2, 4, 6, 6)), [2, 2, 2], [2, 2, 2], [0, 0, 0],
            [1, 1, 1], False, _F(lib).max_pool3d(_x(lib, (2, 4, 6, 6)), 2, return_indices=True)[1],
            grad_input=lib.zeros(0),
        ),
    ),
    (
        "avg2d backward",
        lambda lib: _aten(lib).avg_pool2d_backward(
            _x(lib, (2, 4, 4)), _x(lib, (2, 7, 7)), [3, 3], [2, 2], [1, 1], True, False, None
        ),
    ),
    (
        "avg2d backward int64",
        lambda lib: _aten(lib).avg_pool2d_backward(
            _x(lib, (2, 4, 4), "int64"), _x(lib, (2, 7, 7), "int64"), [3, 3], [2, 2], [1, 1],
            True, True, None,
        ),
    ),
    (
        "avg2d backward float16",
        lambda lib: _aten(lib).avg_pool2d_backward(
            _x(lib, (2, 4, 4), "float16"), _x(lib, (2, 7, 7), "float16"), [3, 3], [2, 2], [1, 1],
            True, True, 4,
        ),
    ),
    (
        "avg2d backward grad dtype",
        lambda lib: _aten(lib).avg_pool2d_backward(
            _x(lib, (2, 4, 4), "float64"), _x(lib, (2, 7, 7)), [3, 3], [2, 2], [1, 1], True, True, None
        ),
    ),
    (
        "avg3d backward grad shape",
        lambda lib: _aten(lib).avg_pool3d_backward(
            _x(lib, (2, 1, 3, 3)), _x(lib, (2, 4, 6, 6)), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, None
        ),
    ),
    (
        "aavg2d backward",
        lambda lib: _aten(lib)._adaptive_avg_pool2d_backward(_x(lib, (2, 3, 4)), _x(lib, (2, 7, 9))),
    ),
    (
        "aavg2d backward dims",
        lambda lib: _aten(lib)._adaptive_avg_pool2d_backward(_x(lib, (3, 4)), _x(lib, (2, 7, 9))),
    ),
    (
        "aavg3d backward grad_input",
        lambda lib: _aten(lib).adaptive_avg_pool3d_backward.grad_input(
            _x(lib, (2, 2, 3, 4)), _x(lib, (2, 5, 7, 9)), grad_input=lib.zeros(0)
        ),
    ),
    (
        "amax2d backward sizes",
        lambda lib: _aten(lib).adaptive_max_pool2d_backward(
            _x(lib, (2, 1, 2)), _x(lib, (2, 6, 6)), lib.zeros(2, 2, 2, dtype=lib.int64)
        ),
    ),
    (
        "frac2d backward sizes",
        lambda lib: _aten(lib).fractional_max_pool2d_backward(
            _x(lib, (2, 2, 3)), _x(lib, (2, 6, 6)), [2, 2], [3, 3], lib.zeros(2, 3, 3, dtype=lib.int64)
        ),
    ),
]


@pytest.mark.parametrize(("name", "call"), BACKWARD, ids=[n for n, _ in BACKWARD])
def test_backward_op_matches_torch(name: str, call: Call) -> None:
    _check(call)


# --- gradients, second gradients, and what a TorchDispatchMode sees ------------------------------

GRADS: list[tuple[str, tuple[int, ...], Call]] = [
    ("max_pool1d", (2, 3, 9), lambda lib, x: _F(lib).max_pool1d(x, 3, 2, 1)),
    ("max_pool2d", (2, 3, 7, 7), lambda lib, x: _F(lib).max_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("max_pool2d channels_last", (2, 3, 6, 6), lambda lib, x: _F(lib).max_pool2d(_cl(x, lib), 2)),
    ("max_pool3d", (2, 2, 4, 5, 5), lambda lib, x: _F(lib).max_pool3d(x, 2, 1)),
    ("avg_pool1d", (2, 3, 9), lambda lib, x: _F(lib).avg_pool1d(x, 3, 2, 1)),
    ("avg_pool2d", (2, 3, 7, 7), lambda lib, x: _F(lib).avg_pool2d(x, 3, 2, 1, True, False)),
    ("avg_pool3d", (2, 2, 4, 5, 5), lambda lib, x: _F(lib).avg_pool3d(x, 2, 1, divisor_override=3)),
    ("adaptive_avg_pool1d", (2, 3, 9), lambda lib, x: _F(lib).adaptive_avg_pool1d(x, 4)),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), lambda lib, x: _F(lib).adaptive_avg_pool2d(x, (3, 4))),
    ("adaptive_avg_pool2d 1x1", (2, 3, 7, 9), lambda lib, x: _F(lib).adaptive_avg_pool2d(x, 1)),
    ("adaptive_avg_pool3d", (2, 5, 6, 7), lambda lib, x: _F(lib).adaptive_avg_pool3d(x, (2, 4, 3))),
    ("adaptive_max_pool1d", (2, 3, 9), lambda lib, x: _F(lib).adaptive_max_pool1d(x, 4)),
    ("adaptive_max_pool2d", (2, 3, 7, 9), lambda lib, x: _F(lib).adaptive_max_pool2d(x, (3, 4))),
    ("adaptive_max_pool3d", (2, 5, 6, 7), lambda lib, x: _F(lib).adaptive_max_pool3d(x, 3)),
    ("lp_pool2d", (2, 3, 6, 6), lambda lib, x: _F(lib).lp_pool2d(x, 2, 2)),
    (
        "fractional_max_pool2d",
        (2, 3, 9, 9),
        lambda lib, x: _F(lib).fractional_max_pool2d(
            x, 2, output_size=4, _random_samples=lib.full((2, 3, 2), 0.37, dtype=x.dtype)
        ),
    ),
    (
        "fractional_max_pool3d",
        (2, 7, 7, 7),
        lambda lib, x: _F(lib).fractional_max_pool3d(
            x, 2, output_size=3, _random_samples=lib.full((1, 2, 3), 0.61, dtype=x.dtype)
        ),
    ),
    (
        "max_unpool2d",
        (2, 3, 6, 6),
        lambda lib, x: _F(lib).max_unpool2d(*_F(lib).max_pool2d(x, 2, return_indices=True), 2),
    ),
    (
        "max_unpool3d",
        (2, 4, 6, 6),
        lambda lib, x: _F(lib).max_unpool3d(*_F(lib).max_pool3d(x, 2, return_indices=True), 2),
    ),
]


def _grads(lib: Any, shape: tuple[int, ...], fn: Callable[[Any, Any], Any]) -> Any:
    """The first gradient, and the second through the backward op (its grad_output input)."""
    x = _x(lib, shape, "float64").requires_grad_()
    y = fn(lib, x)
    v = _x(lib, tuple(y.shape), "float64", seed=3).requires_grad_()
    (g,) = lib.autograd.grad(y, x, v, create_graph=True)
    w = _x(lib, shape, "float64", seed=4)
    (gg,) = lib.autograd.grad((g * w).sum(), v)
    return g, gg


@pytest.mark.parametrize(("name", "shape", "fn"), GRADS, ids=[n for n, _, _ in GRADS])
def test_gradients_match_torch(name: str, shape: tuple[int, ...], fn: Callable[[Any, Any], Any]) -> None:
    _check(lambda lib: _grads(lib, shape, fn))


@pytest.mark.parametrize(("name", "shape", "fn"), GRADS, ids=[n for n, _, _ in GRADS])
def test_mode_sees_torch_aten_calls(
    name: str, shape: tuple[int, ...], fn: Callable[[Any, Any], Any]
) -> None:
    def run(lib: Any) -> Callable[[], Any]:
        x = _x(lib, shape).requires_grad_()

        def program() -> Any:
            y = fn(lib, x)
            (y[0] if isinstance(y, tuple) else y).sum().backward()
            return x.grad

        return program

    expected, _ = aten_calls(torch, run(torch))
    actual, _ = aten_calls(refimpl, run(refimpl))
    assert actual == expected


MODE_FORWARD: list[tuple[str, Call]] = [
    ("max_pool1d no grad", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 3, 9)), 2)),
    ("adaptive_avg_pool2d 1x1 channels_last", lambda lib: _F(lib).adaptive_avg_pool2d(_cl(_x(lib, (2, 3, 5, 5)), lib), 1)),
    ("fractional draws", _seeded_fractional),
]


@pytest.mark.parametrize(("name", "call"), MODE_FORWARD, ids=[n for n, _ in MODE_FORWARD])
def test_mode_sees_torch_aten_calls_forward(name: str, call: Call) -> None:
    expected, _ = aten_calls(torch, lambda: call(torch))
    actual, _ = aten_calls(refimpl, lambda: call(refimpl))
    assert actual == expected


def test_meta_tensors_match_torch() -> None:
    def run(lib: Any) -> Any:
        x = lib.empty(2, 3, 7, 9, device="meta").contiguous(memory_format=lib.channels_last)
        values, indices = _F(lib).max_pool2d(x, 3, 2, 1, return_indices=True)
        avg = _F(lib).avg_pool3d(lib.empty(2, 3, 4, 6, 6, device="meta"), 2)
        return [(tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1]) for t in (values, indices, avg)]

    assert run(refimpl) == run(torch)


FUNCTION_MODE: list[tuple[str, Call]] = [
    ("max_pool2d", lambda lib: _F(lib).max_pool2d(_x(lib, (2, 6, 6)), 2, return_indices=True)),
    ("max_pool1d", lambda lib: _F(lib).max_pool1d(_x(lib, (2, 6)), 2)),
    ("avg_pool2d", lambda lib: _F(lib).avg_pool2d(_x(lib, (2, 6, 6)), 2)),
    ("avg_pool1d", lambda lib: _F(lib).avg_pool1d(_x(lib, (2, 6)), 2)),
    ("adaptive_avg_pool2d", lambda lib: _F(lib).adaptive_avg_pool2d(_x(lib, (2, 6, 6)), 2)),
    ("adaptive_max_pool1d", lambda lib: _F(lib).adaptive_max_pool1d(_x(lib, (2, 6)), 2, True)),
    ("lp_pool2d", lambda lib: _F(lib).lp_pool2d(_x(lib, (2, 6, 6)), 2, 2)),
    (
        "max_unpool1d",
        lambda lib: _F(lib).max_unpool1d(*_F(lib).max_pool1d(_x(lib, (2, 6)), 2, return_indices=True), 2),
    ),
]


@pytest.mark.parametrize(("name", "call"), FUNCTION_MODE, ids=[n for n, _ in FUNCTION_MODE])
def test_function_mode_sees_torch_calls(name: str, call: Call) -> None:
    x_torch, x_ref = call, call
    expected, _ = function_calls(torch, lambda: x_torch(torch))
    actual, _ = function_calls(refimpl, lambda: x_ref(refimpl))
    assert actual == expected
