"""lerp's rounding against torch, bit for bit: torch's CPU kernels compute
`fma(small ? weight : weight - 1, end - self, small ? self : end)` with one rounding
(native/Lerp.h, LerpKernel.cpp's lerp_vec, compiled with FMA), which refimpl's exact fmas
(refimpl/ops/_exact.py) reproduce; float16 computes in float32 then rounds. Random values
(contiguous and strided, tensor and scalar weights), special values, and a float32 sum that
lands on a tie in float64 while the exact one does not (double rounding)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import refimpl

_N = 10**6


def _r(t: torch.Tensor) -> Any:
    dtype = getattr(refimpl, str(t.dtype).removeprefix("torch."))
    try:
        refimpl.zeros(1, dtype=dtype)
    except TypeError as error:  # the backend has no such dtype (array_api_strict: float16)
        pytest.skip(str(error))
    if t.dtype is torch.float16:
        return refimpl.tensor(t.float().numpy()).to(dtype)
    return refimpl.tensor(t.numpy(), dtype=dtype)


def _t(x: Any, dtype: torch.dtype) -> torch.Tensor:
    if dtype is torch.float16:
        return torch.from_numpy(np.array(x.float().numpy())).to(dtype)
    return torch.from_numpy(np.array(x.numpy()))


def _assert_bitwise(got: Any, expected: torch.Tensor) -> None:
    actual = _t(got, expected.dtype)
    assert actual.dtype == expected.dtype
    nan = actual.isnan() & expected.isnan()
    # -0.0 and 0.0 compare equal: check the signs too (not NaN's).
    same = nan | ((actual == expected) & (torch.signbit(actual) == torch.signbit(expected)))
    assert bool(same.all()), f"{int((~same).sum())} of {same.numel()} values differ"


def _operands(dtype: torch.dtype, n: int, strided: bool) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(n)
    width = 2 if strided else 1
    self = torch.randn(n, width, generator=g, dtype=torch.float64)
    end = torch.randn(n, width, generator=g, dtype=torch.float64) * 3
    weight = torch.rand(n, width, generator=g, dtype=torch.float64) * 2 - 0.5
    return [x.to(dtype)[:, 0] for x in (self, end, weight)]


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_lerp_tensor_weight_bitwise(dtype: torch.dtype, strided: bool) -> None:
    n = _N if dtype is torch.float32 and not strided else _N // 10
    self, end, weight = _operands(dtype, n, strided)
    expected = torch.lerp(self, end, weight)
    _assert_bitwise(refimpl.lerp(_r(self), _r(end), _r(weight)), expected)


@pytest.mark.parametrize("weight", [0.3, 0.7, -1.25, 0.5, 2.0, 1.5, -0.5, 0.75])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_lerp_scalar_weight_bitwise(dtype: torch.dtype, weight: float) -> None:
    self, end, _ = _operands(dtype, _N // 10, False)
    _assert_bitwise(refimpl.lerp(_r(self), _r(end), weight), torch.lerp(self, end, weight))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_lerp_special_values(dtype: torch.dtype) -> None:
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, 3e38, float("inf"), float("-inf"),
                float("nan")]
    grid = torch.tensor(specials, dtype=dtype)
    self, end, weight = torch.meshgrid(grid, grid, grid, indexing="ij")
    expected = torch.lerp(self, end, weight)
    _assert_bitwise(refimpl.lerp(_r(self), _r(end), _r(weight)), expected)


def test_lerp_float32_double_rounding() -> None:
    # weight * (end - self) = 2^-24 (1 + 2^-18)(1 - 2^-18) = 2^-24 - 2^-60 and self = 1 + 2^-23:
    # the float64 sum is the float32 tie 1 + 2^-23 + 2^-24, which rounds to even (up), while
    # the exact sum lies below it (torch's fma rounds down).
    weight = torch.tensor([2.0**-24 * (1 + 2.0**-18)], dtype=torch.float32)
    self = torch.tensor([1 + 2.0**-23], dtype=torch.float32)
    end = self + torch.tensor([1 - 2.0**-18], dtype=torch.float32)
    assert float(end - self) == 1 - 2.0**-18
    expected = torch.lerp(self, end, weight)
    assert float(expected) == 1 + 2.0**-23
    _assert_bitwise(refimpl.lerp(_r(self), _r(end), _r(weight)), expected)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_lerp_complex_close(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(3)
    self, end, weight = (torch.randn(1000, generator=g, dtype=dtype) for _ in range(3))
    got = _t(refimpl.lerp(_r(self), _r(end), _r(weight)), dtype)
    torch.testing.assert_close(got, torch.lerp(self, end, weight))
