"""interpolate / upsample, grid_sample and affine_grid against torch, for what the OpInfos leave
out: errors and warnings of the F functions and of the aten ops, channels-last and strided
inputs, given scales, out= forms, the `.vec` overloads, uint8 kernels, backward ops, second
gradients, and the aten overloads a TorchDispatchMode sees.

Each case runs the same call in both libraries; the outcome must match: the exception (type
and message), or the result's dtype, shape, strides and values (nearest and uint8 exactly).
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


def _x(lib: Any, shape: tuple[int, ...], dtype: str = "float64", seed: int = 0) -> Any:
    values = np.random.default_rng(seed).standard_normal(math.prod(shape)) * 3
    if dtype == "uint8":
        values = np.minimum(np.round(np.abs(values) * 40), 255)
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype)).reshape(shape)


def _grid(lib: Any, shape: tuple[int, ...], dtype: str = "float64", seed: int = 1) -> Any:
    values = np.random.default_rng(seed).uniform(-1.3, 1.3, math.prod(shape))
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype)).reshape(shape)


def _F(lib: Any) -> Any:
    return lib.nn.functional


def _aten(lib: Any) -> Any:
    return lib.ops.aten


def _array(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().numpy())


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual):
            if e is None:
                assert a is None
            else:
                _same(e, a)
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        return
    e, a = _array(expected), _array(actual)
    if e.dtype.kind in "iu":
        np.testing.assert_array_equal(a, e)
    else:
        tol = {np.float16: 1e-3, np.float32: 1e-5}.get(e.dtype.type, 1e-12)
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


# --- errors ------------------------------------------------------------------------------------

ERRORS: list[tuple[str, Callable[[Any], Any]]] = [
    (
        "nearest align_corners",
        lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, mode="nearest", align_corners=True),
    ),
    ("size and scale", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, 2.0)),
    ("neither", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)))),
    ("size length", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), (8, 8))),
    ("scale length", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), scale_factor=(2.0, 2.0))),
    ("size type", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), (8.0,))),
    (
        "recompute with size",
        lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, recompute_scale_factor=True),
    ),
    ("antialias nearest", lambda L: _F(L).interpolate(_x(L, (1, 1, 4, 4)), 8, antialias=True)),
    (
        "antialias 3d",
        lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, mode="linear", antialias=True),
    ),
    ("bilinear 3d", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, mode="bilinear")),
    ("linear 4d", lambda L: _F(L).interpolate(_x(L, (1, 1, 4, 4)), 8, mode="linear")),
    ("trilinear 4d", lambda L: _F(L).interpolate(_x(L, (1, 1, 4, 4)), 8, mode="trilinear")),
    ("bicubic 5d", lambda L: _F(L).interpolate(_x(L, (1, 1, 2, 2, 2)), 4, mode="bicubic")),
    (
        "lanczos align_corners",
        lambda L: _F(L).interpolate(
            _x(L, (1, 1, 4, 4)), 8, mode="lanczos", align_corners=True, antialias=True
        ),
    ),
    ("lanczos no antialias", lambda L: _F(L).interpolate(_x(L, (1, 1, 4, 4)), 8, mode="lanczos")),
    ("2d input", lambda L: _F(L).interpolate(_x(L, (2, 4)), scale_factor=2.0)),
    ("unknown mode", lambda L: _F(L).interpolate(_x(L, (1, 1, 4)), 8, mode="cubic")),
    ("output_size length", lambda L: _aten(L).upsample_bilinear2d(_x(L, (1, 1, 4, 4)), [8], False)),
    ("input rank", lambda L: _aten(L).upsample_nearest2d(_x(L, (1, 4, 4)), [8, 8])),
    ("zero output 1d", lambda L: _aten(L).upsample_nearest1d(_x(L, (1, 2, 4)), [0])),
    ("zero output 2d", lambda L: _aten(L).upsample_bicubic2d(_x(L, (1, 2, 4, 4)), [0, 3], True)),
    (
        "zero input 3d",
        lambda L: _aten(L).upsample_trilinear3d(_x(L, (1, 2, 3, 0, 3)), [2, 2, 2], False),
    ),
    ("no channels", lambda L: _aten(L).upsample_bilinear2d(_x(L, (2, 0, 4, 4)), [8, 8], False)),
    (
        "backward rank",
        lambda L: _aten(L).upsample_nearest2d_backward(_x(L, (2, 3, 4)), [4, 4], [2, 3, 2, 2]),
    ),
    (
        "backward shape",
        lambda L: _aten(L).upsample_linear1d_backward(_x(L, (2, 3, 4)), [5], [2, 3, 2], False),
    ),
    ("vec both", lambda L: _aten(L).upsample_nearest1d.vec(_x(L, (2, 3, 4)), [4], [2.0])),
    ("vec neither", lambda L: _aten(L).upsample_linear1d.vec(_x(L, (2, 3, 4)), None, False, None)),
    ("vec size length", lambda L: _aten(L).upsample_nearest1d.vec(_x(L, (2, 3, 4)), [4, 5], None)),
    (
        "vec scale length",
        lambda L: _aten(L).upsample_bicubic2d.vec(_x(L, (2, 3, 4, 4)), None, False, [2.0]),
    ),
    (
        "int64 nearest2d",
        lambda L: _aten(L).upsample_nearest2d(_x(L, (1, 1, 2, 2), "int64"), [4, 4]),
    ),
    (
        "int64 nearest3d",
        lambda L: _aten(L).upsample_nearest3d(_x(L, (1, 1, 2, 2, 2), "int64"), [4, 4, 4]),
    ),
    ("uint8 linear", lambda L: _aten(L).upsample_linear1d(_x(L, (1, 1, 2), "uint8"), [4], False)),
    (
        "uint8 bilinear backward",
        lambda L: _aten(L).upsample_bilinear2d_backward(
            _x(L, (1, 1, 4, 4), "uint8"), [4, 4], [1, 1, 2, 2], False
        ),
    ),
    (
        "float16 aa",
        lambda L: _aten(L)._upsample_bicubic2d_aa(_x(L, (1, 1, 4, 4), "float16"), [2, 2], False),
    ),
    (
        "float16 aa backward",
        lambda L: _aten(L)._upsample_bilinear2d_aa_backward(
            _x(L, (1, 1, 2, 2), "float16"), [2, 2], [1, 1, 4, 4], False
        ),
    ),
    (
        "out dtype",
        lambda L: _aten(L).upsample_bilinear2d(
            _x(L, (1, 1, 2, 2)), [4, 4], False, out=L.empty(0, dtype=L.float32)
        ),
    ),
    (
        "grid_sample mode",
        lambda L: _F(L).grid_sample(
            _x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 2)), mode="area", align_corners=False
        ),
    ),
    (
        "grid_sample padding",
        lambda L: _F(L).grid_sample(
            _x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 2)), padding_mode="wrap", align_corners=False
        ),
    ),
    (
        "grid batch",
        lambda L: L.grid_sampler(_x(L, (2, 1, 2, 2)), _grid(L, (1, 2, 2, 2)), 0, 0, False),
    ),
    (
        "grid last dim",
        lambda L: L.grid_sampler(_x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 3)), 0, 0, False),
    ),
    (
        "grid empty",
        lambda L: L.grid_sampler(_x(L, (1, 1, 0, 2)), _grid(L, (1, 2, 2, 2)), 0, 0, False),
    ),
    (
        "grid rank",
        lambda L: L.grid_sampler_2d(_x(L, (1, 1, 2, 2)), _grid(L, (1, 1, 2, 2, 2)), 0, 0, False),
    ),
    (
        "grid 3d rank",
        lambda L: L.grid_sampler_3d(_x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 2)), 0, 0, False),
    ),
    (
        "grid 3d bicubic",
        lambda L: L.grid_sampler(_x(L, (1, 1, 2, 2, 2)), _grid(L, (1, 2, 2, 2, 3)), 2, 0, False),
    ),
    (
        "grid dtypes",
        lambda L: L.grid_sampler(
            _x(L, (1, 1, 2, 2), "float32"), _grid(L, (1, 2, 2, 2)), 0, 0, False
        ),
    ),
    (
        "grid int64",
        lambda L: L.grid_sampler(
            _x(L, (1, 1, 2, 2), "int64"), _grid(L, (1, 2, 2, 2)).long(), 0, 0, False
        ),
    ),
    (
        "grid 3d int64",
        lambda L: L.grid_sampler(
            _x(L, (1, 1, 2, 2, 2), "int64"), _grid(L, (1, 2, 2, 2, 3)).long(), 0, 0, False
        ),
    ),
    (
        "cpu fallback double",
        lambda L: L._grid_sampler_2d_cpu_fallback(
            _x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 2)), 0, 0, False
        ),
    ),
    (
        "affine theta dtype",
        lambda L: _F(L).affine_grid(_x(L, (1, 2, 3), "int64"), [1, 1, 2, 2], align_corners=False),
    ),
    (
        "affine 2d shape",
        lambda L: _F(L).affine_grid(_x(L, (1, 3, 4)), [1, 1, 2, 2], align_corners=False),
    ),
    (
        "affine 3d shape",
        lambda L: _F(L).affine_grid(_x(L, (1, 2, 3)), [1, 1, 2, 2, 2], align_corners=False),
    ),
    (
        "affine size rank",
        lambda L: _F(L).affine_grid(_x(L, (1, 2, 3)), [1, 2, 2], align_corners=False),
    ),
    (
        "affine size zero",
        lambda L: _F(L).affine_grid(_x(L, (1, 2, 3)), [1, 1, 0, 2], align_corners=False),
    ),
    (
        "affine generator rank",
        lambda L: L.affine_grid_generator(_x(L, (1, 2, 3)), [1, 2, 2], False),
    ),
]


@pytest.mark.parametrize(("name", "call"), ERRORS, ids=[n for n, _ in ERRORS])
def test_error_matches_torch(name: str, call: Callable[[Any], Any]) -> None:
    _, expected_error = outcome(call, torch)
    _, actual_error = outcome(call, refimpl)
    assert expected_error is not None, f"{name}: torch raised nothing"
    assert actual_error is not None, f"{name}: refimpl raised nothing, torch {expected_error!r}"
    # The F functions print dtypes and sizes as the library spells them (torch.int64,
    # refimpl.int64).
    message = str(actual_error).replace("refimpl.", "torch.")
    assert (type(actual_error), message) == (type(expected_error), str(expected_error))


# --- values ------------------------------------------------------------------------------------


def _channels_last(t: Any) -> Any:
    return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


VALUES: list[tuple[str, Callable[[Any], Any]]] = [
    ("nearest odd scale", lambda L: _F(L).interpolate(_x(L, (1, 2, 7)), scale_factor=1.7)),
    ("nearest 2x given scale", lambda L: _F(L).interpolate(_x(L, (1, 2, 3, 3)), scale_factor=2.2)),
    (
        "nearest-exact odd scale",
        lambda L: _F(L).interpolate(
            _x(L, (1, 2, 9, 5)), scale_factor=(0.7, 2.9), mode="nearest-exact"
        ),
    ),
    ("nearest 3d shrink", lambda L: _F(L).interpolate(_x(L, (1, 2, 5, 4, 7)), size=(3, 4, 2))),
    (
        "linear recompute",
        lambda L: _F(L).interpolate(
            _x(L, (1, 2, 7)), scale_factor=1.7, mode="linear", recompute_scale_factor=True
        ),
    ),
    (
        "linear align",
        lambda L: _F(L).interpolate(_x(L, (2, 2, 5)), 9, mode="linear", align_corners=True),
    ),
    (
        "linear one output",
        lambda L: _F(L).interpolate(_x(L, (2, 2, 5)), 1, mode="linear", align_corners=True),
    ),
    (
        "bilinear channels last",
        lambda L: _F(L).interpolate(_channels_last(_x(L, (2, 3, 4, 5))), (7, 3), mode="bilinear"),
    ),
    (
        "bicubic channels last",
        lambda L: _F(L).interpolate(
            _channels_last(_x(L, (2, 3, 4, 5))), (7, 9), mode="bicubic", align_corners=True
        ),
    ),
    (
        "nearest channels last",
        lambda L: _F(L).interpolate(_channels_last(_x(L, (2, 3, 4, 5))), (7, 9)),
    ),
    (
        "trilinear strided",
        lambda L: _F(L).interpolate(
            _x(L, (2, 3, 4, 5, 6))[:, :, ::2, :, 1:], scale_factor=1.5, mode="trilinear"
        ),
    ),
    (
        "bilinear float32",
        lambda L: _F(L).interpolate(
            _x(L, (2, 3, 4, 5), "float32"), (7, 3), mode="bilinear", align_corners=True
        ),
    ),
    (
        "bicubic float32 scales",
        lambda L: _F(L).interpolate(
            _x(L, (1, 2, 4, 5), "float32"), scale_factor=(1.3, 0.6), mode="bicubic"
        ),
    ),
    (
        "antialias bilinear",
        lambda L: _F(L).interpolate(_x(L, (1, 2, 9, 11)), (4, 5), mode="bilinear", antialias=True),
    ),
    (
        "antialias bicubic align",
        lambda L: _F(L).interpolate(
            _x(L, (1, 2, 9, 11)), (4, 13), mode="bicubic", antialias=True, align_corners=True
        ),
    ),
    (
        "lanczos",
        lambda L: _F(L).interpolate(_x(L, (1, 2, 9, 11)), (4, 17), mode="lanczos", antialias=True),
    ),
    (
        "uint8 lanczos",
        lambda L: _F(L).interpolate(
            _x(L, (1, 2, 9, 11), "uint8"), (4, 17), mode="lanczos", antialias=True
        ),
    ),
    (
        "uint8 bilinear",
        lambda L: _F(L).interpolate(_x(L, (2, 3, 6, 7), "uint8"), (9, 4), mode="bilinear"),
    ),
    (
        "uint8 bilinear 5 channels",
        lambda L: _F(L).interpolate(
            _x(L, (1, 5, 6, 7), "uint8"), (9, 4), mode="bilinear", align_corners=True
        ),
    ),
    (
        "uint8 bicubic",
        lambda L: _F(L).interpolate(_x(L, (2, 3, 6, 7), "uint8"), (13, 4), mode="bicubic"),
    ),
    (
        "uint8 antialias",
        lambda L: _F(L).interpolate(
            _x(L, (2, 3, 16, 7), "uint8"), (5, 4), mode="bicubic", antialias=True
        ),
    ),
    ("uint8 nearest", lambda L: _F(L).interpolate(_x(L, (2, 3, 6, 7), "uint8"), (13, 4))),
    (
        "float16 bilinear",
        lambda L: _F(L).interpolate(_x(L, (1, 2, 4, 5), "float16"), (7, 9), mode="bilinear"),
    ),
    ("empty batch", lambda L: _F(L).interpolate(_x(L, (0, 2, 4, 5)), (7, 9), mode="bicubic")),
    (
        "vec",
        lambda L: _aten(L).upsample_bilinear2d.vec(_x(L, (1, 2, 4, 5)), None, True, [1.5, 2.5]),
    ),
    # A dim that keeps its size under an explicit scale: which kernels take it as the identity.
    ("nearest1d same size", lambda L: _aten(L).upsample_nearest1d(_x(L, (1, 2, 5)), [5], 1.1)),
    (
        "nearest2d same size",
        lambda L: _aten(L).upsample_nearest2d(_x(L, (1, 2, 5, 3)), [5, 6], 1.1, 2.2),
    ),
    (
        "bicubic same size",
        lambda L: _aten(L).upsample_bicubic2d(_x(L, (1, 2, 5, 6)), [5, 13], False, 1.1, 2.3),
    ),
    (
        "antialias same size",
        lambda L: _aten(L)._upsample_bilinear2d_aa(_x(L, (1, 2, 5, 6)), [5, 3], False, 1.1, 0.5),
    ),
    (
        "bicubic backward same sizes",
        lambda L: _aten(L).upsample_bicubic2d_backward(
            _x(L, (1, 2, 5, 6)), [5, 6], [1, 2, 5, 6], False, 1.1, 1.05
        ),
    ),
    (
        "out resized",
        lambda L: _aten(L).upsample_nearest1d(
            _x(L, (1, 2, 4)), [7], out=L.zeros(3, dtype=L.float64)
        ),
    ),
    (
        "out channels last",
        lambda L: _aten(L).upsample_bilinear2d(
            _channels_last(_x(L, (2, 3, 4, 5))), [3, 3], False, out=L.empty(0, dtype=L.float64)
        ),
    ),
    (
        "vec_out",
        lambda L: _aten(L).upsample_nearest2d.vec_out(
            _x(L, (1, 2, 4, 5)), [3, 3], None, out=L.empty(0, dtype=L.float64)
        ),
    ),
    (
        "backward op",
        lambda L: _aten(L).upsample_bicubic2d_backward(
            _x(L, (2, 3, 7, 6)), [7, 6], [2, 3, 4, 5], True, 1.5, None
        ),
    ),
    (
        "backward channels last",
        lambda L: _aten(L).upsample_bilinear2d_backward(
            _channels_last(_x(L, (2, 3, 7, 6))), [7, 6], [2, 3, 4, 5], False
        ),
    ),
    (
        "bicubic backward channels last",
        lambda L: _aten(L).upsample_bicubic2d_backward(
            _channels_last(_x(L, (2, 3, 7, 6))), [7, 6], [2, 3, 4, 5], False
        ),
    ),
    (
        "nearest3d backward channels last",
        lambda L: _aten(L).upsample_nearest3d_backward(
            _x(L, (2, 3, 7, 6, 4)).permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3),
            [7, 6, 4],
            [2, 3, 4, 5, 3],
        ),
    ),
    (
        "backward grad_input",
        lambda L: _aten(L)._upsample_nearest_exact3d_backward(
            _x(L, (1, 2, 3, 4, 5)),
            [3, 4, 5],
            [1, 2, 2, 3, 3],
            grad_input=L.empty(0, dtype=L.float64),
        ),
    ),
    (
        "meta",
        lambda L: _aten(L).upsample_trilinear3d(
            _x(L, (1, 2, 3, 4, 5)).to("meta"), [4, 5, 6], False
        ),
    ),
    (
        "grid_sample border",
        lambda L: _F(L).grid_sample(
            _x(L, (2, 3, 4, 5)), _grid(L, (2, 6, 7, 2)), padding_mode="border", align_corners=True
        ),
    ),
    (
        "grid_sample reflection bicubic",
        lambda L: _F(L).grid_sample(
            _x(L, (2, 3, 4, 5)),
            _grid(L, (2, 6, 7, 2)),
            mode="bicubic",
            padding_mode="reflection",
            align_corners=False,
        ),
    ),
    (
        "grid_sample 3d nearest",
        lambda L: _F(L).grid_sample(
            _x(L, (2, 3, 4, 5, 3)),
            _grid(L, (2, 6, 7, 2, 3)),
            mode="nearest",
            padding_mode="reflection",
            align_corners=True,
        ),
    ),
    (
        "grid_sample float16 bicubic",
        lambda L: _F(L).grid_sample(
            _x(L, (1, 2, 4, 5), "float16"),
            _grid(L, (1, 3, 3, 2), "float16"),
            mode="bicubic",
            align_corners=False,
        ),
    ),
    (
        "grid_sample channels last",
        lambda L: _F(L).grid_sample(
            _channels_last(_x(L, (2, 3, 4, 5))), _grid(L, (2, 6, 7, 2)), align_corners=False
        ),
    ),
    (
        "grid_sampler backward mask",
        lambda L: L.ops.aten.grid_sampler_2d_backward(
            _x(L, (2, 3, 6, 7)),
            _x(L, (2, 3, 4, 5)),
            _grid(L, (2, 6, 7, 2)),
            0,
            2,
            False,
            [False, True],
        ),
    ),
    (
        "grid_sampler out",
        lambda L: L.ops.aten.grid_sampler_3d(
            _x(L, (1, 2, 3, 4, 5)),
            _grid(L, (1, 2, 2, 2, 3)),
            0,
            1,
            False,
            out=L.empty(0, dtype=L.float64),
        ),
    ),
    (
        "cpu fallback",
        lambda L: L._grid_sampler_2d_cpu_fallback(
            _x(L, (2, 3, 4, 5), "float32"), _grid(L, (2, 6, 7, 2), "float32"), 2, 2, True
        ),
    ),
    (
        "cpu fallback backward",
        lambda L: L.ops.aten._grid_sampler_2d_cpu_fallback_backward(
            _x(L, (2, 3, 6, 7), "float32"),
            _x(L, (2, 3, 4, 5), "float32"),
            _grid(L, (2, 6, 7, 2), "float32"),
            0,
            1,
            False,
        ),
    ),
    (
        "affine_grid 2d",
        lambda L: _F(L).affine_grid(_x(L, (2, 2, 3)), [2, 3, 4, 5], align_corners=False),
    ),
    (
        "affine_grid 3d unit",
        lambda L: _F(L).affine_grid(_x(L, (2, 3, 4)), [2, 3, 1, 4, 5], align_corners=True),
    ),
    (
        "affine_grid float32",
        lambda L: _F(L).affine_grid(_x(L, (2, 2, 3), "float32"), [2, 3, 4, 5], align_corners=True),
    ),
    (
        "affine_grid_generator out",
        lambda L: L.ops.aten.affine_grid_generator(
            _x(L, (2, 2, 3)), [2, 3, 4, 5], False, out=L.empty(0, dtype=L.float64)
        ),
    ),
]


@pytest.mark.parametrize(("name", "call"), VALUES, ids=[n for n, _ in VALUES])
def test_values_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    _check(call)


# --- warnings ----------------------------------------------------------------------------------

WARNINGS: list[tuple[str, Callable[[Any], Any]]] = [
    ("upsample", lambda L: _F(L).upsample(_x(L, (1, 1, 4)), 8)),
    ("upsample_nearest", lambda L: _F(L).upsample_nearest(_x(L, (1, 1, 4)), 8)),
    ("upsample_bilinear", lambda L: _F(L).upsample_bilinear(_x(L, (1, 1, 4, 4)), 8)),
    (
        "grid_sample default",
        lambda L: _F(L).grid_sample(_x(L, (1, 1, 2, 2)), _grid(L, (1, 2, 2, 2))),
    ),
    ("affine_grid default", lambda L: _F(L).affine_grid(_x(L, (1, 2, 3)), [1, 1, 2, 2])),
    (
        "affine_grid unit",
        lambda L: _F(L).affine_grid(_x(L, (1, 2, 3)), [1, 1, 1, 2], align_corners=True),
    ),
]


def _warned(call: Callable[[Any], Any], lib: Any) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(lib)
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize(("name", "call"), WARNINGS, ids=[n for n, _ in WARNINGS])
def test_warnings_match_torch(name: str, call: Callable[[Any], Any]) -> None:
    expected = _warned(call, torch)
    assert expected
    assert _warned(call, refimpl) == expected


# --- gradients ---------------------------------------------------------------------------------

GRADS: list[tuple[str, Callable[[Any, Any], Any], tuple[int, ...]]] = [
    ("nearest", lambda L, x: _F(L).interpolate(x, scale_factor=1.7), (1, 2, 5)),
    (
        "nearest-exact 3d",
        lambda L, x: _F(L).interpolate(x, (3, 5, 2), mode="nearest-exact"),
        (1, 2, 4, 3, 3),
    ),
    ("linear", lambda L, x: _F(L).interpolate(x, 7, mode="linear"), (1, 2, 5)),
    (
        "bilinear",
        lambda L, x: _F(L).interpolate(x, (7, 3), mode="bilinear", align_corners=True),
        (2, 2, 4, 5),
    ),
    ("bicubic", lambda L, x: _F(L).interpolate(x, (7, 3), mode="bicubic"), (2, 2, 4, 5)),
    (
        "trilinear",
        lambda L, x: _F(L).interpolate(x, scale_factor=1.5, mode="trilinear"),
        (1, 2, 3, 2, 4),
    ),
    (
        "bilinear aa",
        lambda L, x: _F(L).interpolate(x, (3, 2), mode="bilinear", antialias=True),
        (1, 2, 7, 5),
    ),
    (
        "lanczos",
        lambda L, x: _F(L).interpolate(x, (3, 8), mode="lanczos", antialias=True),
        (1, 2, 7, 5),
    ),
    (
        "area",
        lambda L, x: _F(L).interpolate(x, scale_factor=0.6, mode="area"),
        (1, 2, 7, 5),
    ),
    (
        "bicubic aa",
        lambda L, x: _F(L).interpolate(x, (3, 8), mode="bicubic", antialias=True),
        (1, 2, 7, 5),
    ),
]


def _first(lib: Any, fn: Callable[[Any, Any], Any], shape: tuple[int, ...]) -> Any:
    x = _x(lib, shape).requires_grad_()
    out = fn(lib, x)
    weight = _x(lib, tuple(out.shape), seed=5)
    (g,) = lib.autograd.grad((out * weight).sum(), x)
    return out, g


def _second(lib: Any, fn: Callable[[Any, Any], Any], shape: tuple[int, ...]) -> Any:
    # The second gradient goes through the backward op's derivative (the forward op).
    x = _x(lib, shape).requires_grad_()
    out = fn(lib, x)
    weight = _x(lib, tuple(out.shape), seed=5).requires_grad_()
    (g,) = lib.autograd.grad((out * weight).sum(), x, create_graph=True)
    return lib.autograd.grad((g * g).sum(), weight)[0]


@pytest.mark.parametrize(("name", "fn", "shape"), GRADS, ids=[n for n, _, _ in GRADS])
def test_gradients_and_aten_calls_match_torch(
    name: str, fn: Callable[[Any, Any], Any], shape: tuple[int, ...]
) -> None:
    expected_calls, expected = aten_calls(torch, lambda: _first(torch, fn, shape))
    actual_calls, actual = aten_calls(refimpl, lambda: _first(refimpl, fn, shape))
    _same(expected, actual)
    assert actual_calls == expected_calls
    _same(_second(torch, fn, shape), _second(refimpl, fn, shape))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradients_match_torch(mode: str, padding_mode: str) -> None:
    def run(lib: Any) -> Any:
        x = _x(lib, (2, 3, 4, 5)).requires_grad_()
        grid = _grid(lib, (2, 3, 4, 2)).requires_grad_()
        out = _F(lib).grid_sample(
            x, grid, mode=mode, padding_mode=padding_mode, align_corners=padding_mode == "border"
        )
        weight = _x(lib, tuple(out.shape), seed=5)
        return (out, *lib.autograd.grad((out * weight).sum(), (x, grid)))

    expected_calls, expected = aten_calls(torch, lambda: run(torch))
    actual_calls, actual = aten_calls(refimpl, lambda: run(refimpl))
    _same(expected, actual)
    assert actual_calls == expected_calls


def test_grid_sample_3d_gradients_match_torch() -> None:
    def run(lib: Any) -> Any:
        x = _x(lib, (1, 2, 3, 4, 5)).requires_grad_()
        grid = _grid(lib, (1, 2, 3, 4, 3)).requires_grad_()
        out = _F(lib).grid_sample(x, grid, padding_mode="reflection", align_corners=False)
        return (out, *lib.autograd.grad(out.sum(), (x, grid)))

    _same(run(torch), run(refimpl))


def test_affine_grid_gradient_matches_torch() -> None:
    # Differs: torch's affine_grid_generator_backward decomposition calls aten.linspace,
    # which refimpl has no aten kernel for, so only values are compared here.
    def run(lib: Any) -> Any:
        theta = _x(lib, (2, 3, 4)).requires_grad_()
        out = _F(lib).affine_grid(theta, [2, 1, 3, 4, 5], align_corners=False)
        weight = _x(lib, tuple(out.shape), seed=5)
        return (out, *lib.autograd.grad((out * weight).sum(), theta))

    _same(run(torch), run(refimpl))
    assert (
        aten_calls(
            refimpl,
            lambda: _F(refimpl).affine_grid(
                _x(refimpl, (2, 2, 3)), [2, 1, 3, 4], align_corners=False
            ),
        )[0]
        == aten_calls(
            torch,
            lambda: _F(torch).affine_grid(_x(torch, (2, 2, 3)), [2, 1, 3, 4], align_corners=False),
        )[0]
    )


def test_torch_names() -> None:
    names = (
        "grid_sampler",
        "grid_sampler_2d",
        "grid_sampler_3d",
        "affine_grid_generator",
        "_grid_sampler_2d_cpu_fallback",
    )
    for name in names:
        assert hasattr(torch, name) and hasattr(refimpl, name)


def test_torch_function_calls_match_torch() -> None:
    def run(lib: Any) -> None:
        F = _F(lib)
        x = _x(lib, (1, 2, 3, 4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F.interpolate(x, scale_factor=2, mode="bilinear")
            F.upsample_bilinear(x, scale_factor=2)
            F.upsample(x, scale_factor=2)
            F.upsample_nearest(x, size=5)
            F.grid_sample(x, _grid(lib, (1, 2, 2, 2)))
            F.affine_grid(_x(lib, (1, 2, 3)), [1, 1, 2, 2], align_corners=False)

    assert (
        function_calls(refimpl, lambda: run(refimpl))[0]
        == (function_calls(torch, lambda: run(torch))[0])
    )
