"""How grid_sampler reads its input: the coordinate maps of the grid (unnormalize, padding)
and the taps (input positions, weights and weight derivatives) of each interpolation mode.

Torch: GridSampler.h (grid_sampler_unnormalize_set_grad, clip_coordinates_set_grad,
reflect_coordinates_set_grad, compute_coordinates, get_cubic_coefficients_grad) and the
bilinear / nearest / bicubic loops of GridSampler.cpp and cpu/GridSamplerKernel.cpp.
refimpl/ops/nn_sampling_grid.py holds the ops.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType, float16, float32, float64
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.ops._nn_sampling_taps import cubic_convolution1, cubic_convolution2

# torch: GridSamplerInterpolation and GridSamplerPadding (GridSampler.h), as the ints
# F.grid_sample passes.
BILINEAR: Final = 0
NEAREST: Final = 1
BICUBIC: Final = 2
ZEROS: Final = 0
BORDER: Final = 1
REFLECTION: Final = 2

_CUBIC_A: Final = -0.75


# --- coordinates -----------------------------------------------------------------------------


def _unnormalize(coord: Array, size: int, align_corners: bool) -> tuple[Array, float]:
    """Torch: grid_sampler_unnormalize_set_grad: [-1, 1] to [0, size - 1] (align_corners) or
    [-0.5, size - 0.5], and the derivative of the map."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(xp: Any, coord: Array, size: int) -> tuple[Array, Array]:
    # torch: clip_coordinates_set_grad: clamped into [0, size - 1], derivative 0 outside.
    inside = (coord >= 0) & (coord <= size - 1)
    clipped = xp.clip(coord, 0.0, float(size - 1))
    return clipped, xp.astype(inside, coord.dtype)


def _reflect(xp: Any, coord: Array, twice_low: int, twice_high: int) -> tuple[Array, Array]:
    """Torch: reflect_coordinates_set_grad: reflected into [low, high], and the derivative
    (+1 or -1 by the parity of the flips, -1 more for a coordinate below low)."""
    if twice_low == twice_high:
        return xp.zeros_like(coord), xp.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = coord - low
    ones = xp.ones_like(coord)
    sign = xp.where(shifted < 0, -ones, ones)
    distance = xp.abs(shifted)
    extra = xp.remainder(distance, span)  # fmod of a non-negative number
    flips = xp.floor(distance / span)
    even = xp.remainder(flips, 2.0) == 0
    return xp.where(even, extra + low, span - extra + low), xp.where(even, sign, -sign)


def _coordinates(
    xp: Any, coord: Array, size: int, padding_mode: int, align_corners: bool
) -> tuple[Array, Array | None]:
    """Torch: compute_coordinates (with the derivative of the padding map; None for zeros
    padding, where it is 1)."""
    if padding_mode == BORDER:
        return _clip(xp, coord, size)
    if padding_mode == REFLECTION:
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        reflected, grad_reflect = _reflect(xp, coord, *twice)
        clipped, grad_clip = _clip(xp, reflected, size)
        return clipped, grad_reflect * grad_clip
    return coord, None


# --- gathering and scattering ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """An input of shape (N, C, *spatial) read as rows (N * prod(spatial), C), and the grid's
    points as (N, P)."""

    batch: int
    channels: int
    spatial: tuple[int, ...]
    points: int

    @property
    def volume(self) -> int:
        return geometry.numel(self.spatial)


def tap_rows(xp: Any, layout: Layout, positions: Sequence[Array]) -> tuple[Array, Array]:
    """The row of each point (N * P,) for integer positions per spatial dim (in input dim
    order), clamped into the input, and whether the position is inside it."""
    inside: Array | None = None
    linear: Array | None = None
    stride = 1
    for d in reversed(range(len(layout.spatial))):
        size = layout.spatial[d]
        p = positions[d]
        ok = (p >= 0) & (p < size)
        inside = ok if inside is None else inside & ok
        term = xp.clip(p, 0, size - 1) * stride
        linear = term if linear is None else linear + term
        stride *= size
    assert linear is not None and inside is not None
    base = xp.reshape(xp.arange(layout.batch, dtype=xp.int64) * layout.volume, (layout.batch, 1))
    rows = xp.reshape(linear + base, (-1,))
    return rows, xp.reshape(inside, (-1,))


def gather_rows(xp: Any, table: Array, rows: Array, inside: Array) -> Array:
    # The (N * P, C) values at `rows`, 0 where outside.
    values = xp.take(table, rows, axis=0)
    return xp.where(inside[:, None], values, xp.zeros_like(values))


# --- the interpolations ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tap:
    """One input position read for every point: its integer position per spatial dim, its
    weight (N * P,), and the weight's derivative along each grid coordinate (before the
    coordinate maps' own derivatives), None where the weight does not depend on it."""

    positions: tuple[Array, ...]
    weight: Array | None
    dweight: tuple[Array, ...] | None
    factors: tuple[Array, Array] | None = None
    """Bicubic: (x coefficient, y coefficient), whose product is `weight`; the forward
    interpolates along x first, then along y, as torch's kernel does."""


def _bilinear_taps(xp: Any, sources: Sequence[Array], layout: Layout) -> list[_Tap]:
    """Torch: the bilinear kernels: the 2**dims corners, x fastest (nw, ne, sw, se; then the
    bottom layer in 3d), weight the product of (hi - x) or (x - lo) over the dims, x first."""
    dims = len(sources)
    lows = [xp.floor(s) for s in sources]
    factors = [(lows[k] + 1 - sources[k], sources[k] - lows[k]) for k in range(dims)]
    taps = []
    # Corner bits in grid coordinate order (x, y[, z]); itertools.product varies the last
    # fastest, so iterate z, y, x and reverse.
    for bits_rev in itertools.product((0, 1), repeat=dims):
        bits = bits_rev[::-1]
        weight: Array | None = None
        for k in range(dims):
            f = factors[k][bits[k]]
            weight = f if weight is None else weight * f
        dweight = []
        for k in range(dims):
            d: Array = xp.ones_like(sources[0]) * (1.0 if bits[k] else -1.0)
            for j in range(dims):
                if j != k:
                    d = d * factors[j][bits[j]]
            dweight.append(d)
        coords = [xp.astype(lows[k], xp.int64) + bits[k] for k in range(dims)]
        taps.append(_Tap(tuple(coords[::-1]), weight, tuple(dweight)))
    return taps


def _nearest_taps(xp: Any, sources: Sequence[Array]) -> list[_Tap]:
    # torch: std::nearbyint (round half to even), the coordinates read once with weight 1.
    coords = [xp.astype(xp.round(s), xp.int64) for s in sources]
    return [_Tap(tuple(coords[::-1]), None, None)]


def _cubic_coefficients(t: Array) -> tuple[Array, ...]:
    # torch: get_cubic_upsample_coefficients (UpSample.h), A = -0.75.
    return (
        cubic_convolution2(t + 1.0, _CUBIC_A),
        cubic_convolution1(t, _CUBIC_A),
        cubic_convolution1(1.0 - t, _CUBIC_A),
        cubic_convolution2(2.0 - t, _CUBIC_A),
    )


def _cubic_coefficients_grad(t: Array) -> tuple[Array, ...]:
    # torch: get_cubic_coefficients_grad (GridSampler.h): d coefficient / d t, negated as the
    # kernel uses it (x = -1 - t, -t, 1 - t, 2 - t).
    a = _CUBIC_A
    x0, x1, x2, x3 = -1.0 - t, -t, 1.0 - t, 2.0 - t
    return (
        (-3 * a * x0 - 10 * a) * x0 - 8 * a,
        (-3 * (a + 2) * x1 - 2 * (a + 3)) * x1,
        (3 * (a + 2) * x2 - 2 * (a + 3)) * x2,
        (3 * a * x3 - 10 * a) * x3 + 8 * a,
    )


def _bicubic_taps(
    xp: Any, unnormalized: Sequence[Array], layout: Layout, padding_mode: int, align_corners: bool
) -> list[_Tap]:
    """Torch: the 2d bicubic kernel: the 4x4 window around floor(x), floor(y) of the
    unnormalized (unpadded) coordinates, each position mapped by the padding (get_value_bounded
    / add_value_bounded: compute_coordinates, then truncation), weight x_coeff[i] *
    y_coeff[j]; the grid's gradient subtracts value * coeff_grad * other coeff."""
    ix, iy = unnormalized
    x0, y0 = xp.floor(ix), xp.floor(iy)
    tx, ty = ix - x0, iy - y0
    cx, cy = _cubic_coefficients(tx), _cubic_coefficients(ty)
    gx, gy = _cubic_coefficients_grad(tx), _cubic_coefficients_grad(ty)
    width, height = layout.spatial[1], layout.spatial[0]
    taps = []
    for j in range(4):
        y, _ = _coordinates(xp, y0 - 1 + j, height, padding_mode, align_corners)
        for i in range(4):
            x, _ = _coordinates(xp, x0 - 1 + i, width, padding_mode, align_corners)
            position = (xp.astype(y, xp.int64), xp.astype(x, xp.int64))
            weight = cx[i] * cy[j]
            dweight = (-(gx[i] * cy[j]), -(gy[j] * cx[i]))
            taps.append(_Tap(position, weight, dweight, (cx[i], cy[j])))
    return taps


def grid_taps(
    xp: Any,
    grid: Array,
    layout: Layout,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> tuple[list[_Tap], list[Array]]:
    """The taps of every point, and the derivative of each source coordinate with respect to
    its grid coordinate (grid coordinate k is input spatial dim dims - 1 - k)."""
    dims = len(layout.spatial)
    flat = xp.reshape(grid, (layout.batch, layout.points, dims))
    mults = []
    unnormalized = []
    sources = []
    for k in range(dims):
        size = layout.spatial[dims - 1 - k]
        coord, mult = _unnormalize(flat[:, :, k], size, align_corners)
        unnormalized.append(coord)
        mapped, grad = _coordinates(xp, coord, size, padding_mode, align_corners)
        sources.append(mapped)
        mults.append(mult if grad is None else grad * mult)
    if interpolation_mode == BICUBIC:
        # torch: bicubic pads each tap, not the coordinate: only the unnormalize derivative.
        mults = [
            _unnormalize(flat[:, :, 0], layout.spatial[dims - 1 - k], align_corners)[1]
            for k in range(dims)
        ]
        return _bicubic_taps(xp, unnormalized, layout, padding_mode, align_corners), mults
    if interpolation_mode == NEAREST:
        return _nearest_taps(xp, sources), mults
    return _bilinear_taps(xp, sources, layout), mults


def layout_of(input: TensorImpl, grid: TensorImpl) -> Layout:
    return Layout(
        input._size[0], input._size[1], tuple(input._size[2:]), geometry.numel(grid._size[1:-1])
    )


def input_rows(xp: Any, a: Array, layout: Layout) -> Array:
    # The input as rows (N * prod(spatial), C).
    order = (0, *range(2, 2 + len(layout.spatial)), 1)
    return xp.reshape(xp.permute_dims(a, order), (layout.batch * layout.volume, layout.channels))


def compute_dtype(dtype: DType) -> DType:
    return float64 if dtype is float64 else (float16 if dtype is float16 else float32)
