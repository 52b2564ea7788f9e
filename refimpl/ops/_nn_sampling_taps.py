"""Which input elements, with which weights, make each output element of an upsample, per dim.

Torch: the index and weight helpers of aten/src/ATen/native/UpSample.h
(area_pixel_compute_scale, area_pixel_compute_source_index, compute_scales_value,
guard_index_and_lambda, nearest_idx / nearest_neighbor_exact_compute_source_index,
get_cubic_upsample_coefficients) and of aten/src/ATen/native/cpu/UpSampleKernel.cpp
(HelperInterpNearest / Linear / Cubic::compute_indices_weights,
HelperInterpBase::_compute_indices_min_size_weights_aa and the int16 weights of the uint8
kernels). Every upsample is separable: along each spatial dim, output element `i` is
`sum_j input[index[i, j]] * weight[i, j]`, so one `Taps` per dim describes the op, forward
(a gather) and backward (the transposed scatter). The index arithmetic runs on arrays of the
dtype torch computes it in (float32 for float32/float16/bfloat16 inputs, float64 for float64;
nearest always in float32), so that floors and weights round as torch's do.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from refimpl.core.backend import Array


class Interp(enum.Enum):
    """How one output element is interpolated. Torch: the HelperInterp* class (and, for
    the _aa ops, its `aa_filter`) that UpSampleKernel.cpp instantiates."""

    NEAREST = enum.auto()  # floor(i * scale)
    NEAREST_EXACT = enum.auto()  # floor((i + 0.5) * scale)
    LINEAR = enum.auto()  # two taps
    CUBIC = enum.auto()  # four taps, A = -0.75, clamped access
    LINEAR_AA = enum.auto()  # triangle filter over the scaled support (antialias)
    CUBIC_AA = enum.auto()  # Keys cubic, a = -0.5, over the scaled support (antialias)
    LANCZOS_AA = enum.auto()  # Lanczos-3 (truncated sinc), over the scaled support (antialias)


@dataclass(frozen=True, slots=True)
class Taps:
    """Along one dim: output `i` reads input `index[i, j]` with weight `weight[i, j]`.

    `weight` is None for nearest (one tap, weight 1). For the uint8 kernels, `weight` holds
    integers (int64) scaled by 2**`precision` (torch's int16 weights); else it is float in
    the compute dtype and `precision` is 0.
    """

    index: Array
    weight: Array | None
    precision: int = 0


def _float_scalar(xp: Any, value: float, dtype: Any) -> Array:
    return xp.asarray(value, dtype=dtype)


def compute_scale(
    xp: Any, dtype: Any, in_size: int, out_size: int, align_corners: bool, scale: float | None
) -> Array:
    """The input step per output step, a 0-d array of `dtype`.

    Torch: area_pixel_compute_scale<T> and compute_scales_value<T> (UpSample.h): with
    align_corners `(in - 1) / (out - 1)` (0 for one output); else `1 / scale` (computed in
    double, then rounded) when a positive scale is given, else `in / out` in T.
    """
    if align_corners:
        if out_size > 1:
            return _float_scalar(xp, in_size - 1, dtype) / _float_scalar(xp, out_size - 1, dtype)
        return _float_scalar(xp, 0.0, dtype)
    return scales_value(xp, dtype, in_size, out_size, scale)


def scales_value(xp: Any, dtype: Any, in_size: int, out_size: int, scale: float | None) -> Array:
    """Torch: compute_scales_value<T> (UpSample.h)."""
    if scale is not None and scale > 0:
        return _float_scalar(xp, 1.0 / scale, dtype)
    return _float_scalar(xp, in_size, dtype) / _float_scalar(xp, out_size, dtype)


def _positions(xp: Any, out_size: int, dtype: Any) -> Array:
    return xp.astype(xp.arange(out_size, dtype=xp.int64), dtype)


def _identity(xp: Any, size: int) -> Taps:
    return Taps(xp.reshape(xp.arange(size, dtype=xp.int64), (size, 1)), None)


def nearest_taps(
    xp: Any, in_size: int, out_size: int, scale: float | None, exact: bool, shortcuts: bool
) -> Taps:
    """Torch: nearest_idx and nearest_neighbor_exact_compute_source_index (UpSample.h).

    With `shortcuts` (nearest_idx: the 2d kernel and every backward), plain nearest of the
    same size is the identity, of twice the size `i >> 1` (the 1d/3d forward kernels,
    HelperInterpNearest, take none); else the scale
    is a float (compute_scales_value<float>) and the index `floorf(i * scale)` (exact:
    `floorf((i + 0.5) * scale)`, the product taken in double, then rounded to float),
    capped at in - 1.
    """
    shortcut = shortcuts and not exact
    if shortcut and out_size == in_size:
        return _identity(xp, out_size)
    i = xp.arange(out_size, dtype=xp.int64)
    if shortcut and out_size == 2 * in_size:
        return Taps(xp.reshape(i // 2, (out_size, 1)), None)
    step = scales_value(xp, xp.float32, in_size, out_size, scale)
    if exact:
        product = (xp.astype(i, xp.float64) + 0.5) * xp.astype(step, xp.float64)
        source = xp.floor(xp.astype(product, xp.float32))
    else:
        source = xp.floor(xp.astype(i, xp.float32) * step)
    index = xp.minimum(xp.astype(source, xp.int64), in_size - 1)
    return Taps(xp.reshape(index, (out_size, 1)), None)


def _guard(xp: Any, real: Array, in_size: int, dtype: Any) -> tuple[Array, Array]:
    # torch: guard_index_and_lambda: index = min(floor(real), in - 1); lambda = clamp(real -
    # index, 0, 1).
    index = xp.minimum(xp.astype(xp.floor(real), xp.int64), in_size - 1)
    lam = xp.clip(real - xp.astype(index, dtype), 0.0, 1.0)
    return index, lam


def _source_index(xp: Any, step: Array, i: Array, align_corners: bool, cubic: bool) -> Array:
    # torch: area_pixel_compute_source_index: scale * i with align_corners, else
    # scale * (i + 0.5) - 0.5, clamped at 0 unless cubic.
    if align_corners:
        return step * i
    real = step * (i + 0.5) - 0.5
    return real if cubic else xp.maximum(real, 0.0)


def linear_taps(
    xp: Any,
    dtype: Any,
    in_size: int,
    out_size: int,
    align_corners: bool,
    scale: float | None,
    store: Callable[[Array], Array],
) -> Taps:
    """Torch: HelperInterpLinear::compute_indices_weights and compute_source_index_and_lambda
    (same size: the identity; else indices (i0, i0 + 1 capped) with weights (1 - l, l)).

    `store` rounds a weight to the input's dtype: torch keeps lambda1 in scalar_t and
    computes lambda0 = 1 - lambda1 from the stored value (float16 and bfloat16 differ).
    """
    if out_size == in_size:
        return _identity(xp, out_size)
    step = compute_scale(xp, dtype, in_size, out_size, align_corners, scale)
    real = _source_index(xp, step, _positions(xp, out_size, dtype), align_corners, False)
    index0, lam1 = _guard(xp, real, in_size, dtype)
    lam1 = store(lam1)
    index1 = xp.where(index0 < in_size - 1, index0 + 1, index0)
    lam0 = store(1.0 - lam1)
    return Taps(xp.stack((index0, index1), axis=1), xp.stack((lam0, lam1), axis=1))


def cubic_convolution1(x: Array, a: float) -> Array:
    """Torch: cubic_convolution1 (UpSample.h), |x| <= 1."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def cubic_convolution2(x: Array, a: float) -> Array:
    """Torch: cubic_convolution2 (UpSample.h), 1 < |x| < 2."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_taps(
    xp: Any, dtype: Any, in_size: int, out_size: int, align_corners: bool, scale: float | None
) -> Taps:
    """Torch: HelperInterpCubic::compute_indices_weights (get_cubic_upsample_coefficients
    with A = -0.75 on the guarded lambda; the four indices i - 1 .. i + 2 clamped into the
    input, as upsample_get_value_bounded reads). No shortcut for the same size: an explicit
    scale still moves the taps (upsample_generic_Nd_kernel_impl)."""
    step = compute_scale(xp, dtype, in_size, out_size, align_corners, scale)
    real = _source_index(xp, step, _positions(xp, out_size, dtype), align_corners, True)
    index, t = _guard(xp, real, in_size, dtype)
    a = -0.75
    weights = (
        cubic_convolution2(t + 1.0, a),
        cubic_convolution1(t, a),
        cubic_convolution1(1.0 - t, a),
        cubic_convolution2(2.0 - t, a),
    )
    indices = tuple(xp.clip(index + (j - 1), 0, in_size - 1) for j in range(4))
    return Taps(xp.stack(indices, axis=1), xp.stack(weights, axis=1))


def _linear_filter(xp: Any, x: Array) -> Array:
    # torch: HelperInterpLinear::aa_filter: 1 - |x| inside (-1, 1).
    x = xp.abs(x)
    return xp.where(x < 1.0, 1.0 - x, xp.zeros_like(x))


def _cubic_filter(xp: Any, x: Array, a: float) -> Array:
    # torch: HelperInterpCubic::aa_filter (a = -0.5 with antialias, Keys; else -0.75).
    x = xp.abs(x)
    return xp.where(
        x < 1.0,
        cubic_convolution1(x, a),
        xp.where(x < 2.0, cubic_convolution2(x, a), xp.zeros_like(x)),
    )


def _sinc(xp: Any, x: Array) -> Array:
    # sin(pi x) / (pi x), 1 at 0.
    nonzero = x != 0.0
    scaled = xp.where(nonzero, x, xp.ones_like(x)) * math.pi
    return xp.where(nonzero, xp.sin(scaled) / scaled, xp.ones_like(x))


def _lanczos_filter(xp: Any, x: Array) -> Array:
    # torch: HelperInterpLanczos::aa_filter (Pillow's lanczos_filter): sinc(x) * sinc(x / 3)
    # on [-3, 3).
    inside = (x >= -3.0) & (x < 3.0)
    return xp.where(inside, _sinc(xp, x) * _sinc(xp, x / 3.0), xp.zeros_like(x))


# Half the filter's width in input elements at scale 1. Torch: HelperInterp*::interp_size / 2.
_HALF_WIDTH = {
    Interp.LINEAR: 1.0,
    Interp.CUBIC: 2.0,
    Interp.LINEAR_AA: 1.0,
    Interp.CUBIC_AA: 2.0,
    Interp.LANCZOS_AA: 3.0,
}


def range_taps(
    xp: Any,
    dtype: Any,
    interp: Interp,
    in_size: int,
    out_size: int,
    align_corners: bool,
    scale: float | None,
    antialias: bool,
) -> Taps:
    """Taps over a filter's support, normalized to sum 1 (the antialias kernels, and the
    uint8 kernels of bilinear/bicubic with antialias False).

    Torch: HelperInterpBase::_compute_index_ranges_weights and
    _compute_indices_min_size_weights_aa: center = scale * (i + 0.5 - delta) in T (delta is
    0.5 for align_corners without antialias), the support scaled by the downsampling factor
    with antialias, xmin = max(trunc(center - support + 0.5 + delta), 0), xsize = min(trunc(
    center + support + 0.5 + delta), in) - xmin (at most the maximal size), weights
    filter((j + xmin - center + 0.5 - delta) * invscale) divided by their sum.
    """
    step = compute_scale(xp, dtype, in_size, out_size, align_corners, scale)
    step_value = float(step)
    half = _HALF_WIDTH[interp]
    support_value = half * step_value if (antialias and step_value >= 1.0) else half
    support = _float_scalar(xp, support_value, dtype)
    width = math.ceil(support_value) * 2 + 1 if antialias else int(2 * half)
    delta = 0.5 if (align_corners and not antialias) else 0.0
    invscale = _float_scalar(xp, 1.0, dtype) / step if (antialias and step_value >= 1.0) else 1.0
    i64 = xp.arange(out_size, dtype=xp.int64)
    center = xp.astype(
        xp.astype(step, xp.float64) * (xp.astype(i64, xp.float64) + (0.5 - delta)), dtype
    )
    low = xp.astype(xp.astype(center - support, xp.float64) + (0.5 + delta), xp.int64)
    high = xp.astype(xp.astype(center + support, xp.float64) + (0.5 + delta), xp.int64)
    xmin = xp.maximum(low, 0)
    xsize = xp.clip(xp.minimum(high, in_size) - xmin, 0, width)
    j = xp.arange(width, dtype=xp.int64)
    index = xmin[:, None] + j[None, :]
    inside = j[None, :] < xsize[:, None]
    offset = xp.astype(index, dtype) - center[:, None]
    argument = xp.astype(
        (xp.astype(offset, xp.float64) + (0.5 - delta))
        * xp.astype(xp.asarray(invscale, dtype=dtype), xp.float64),
        dtype,
    )
    if interp in (Interp.LINEAR, Interp.LINEAR_AA):
        raw = _linear_filter(xp, argument)
    elif interp is Interp.LANCZOS_AA:
        raw = _lanczos_filter(xp, argument)
    else:
        raw = _cubic_filter(xp, argument, -0.5 if antialias else -0.75)
    raw = xp.where(inside, raw, xp.zeros_like(raw))
    total = raw[:, 0]
    for k in range(1, width):
        # torch: total_w accumulates in T, one weight after another.
        total = total + raw[:, k]
    safe = xp.where(total != 0.0, total, xp.ones_like(total))
    weight = xp.where((total != 0.0)[:, None], raw / safe[:, None], raw)
    index = xp.clip(index, 0, in_size - 1)
    return Taps(index, weight)


def merge_clamped(taps: Taps, xp: Any) -> Taps:
    """`taps` with the weights of repeated (clamped) indices summed into the first of them.

    Torch: the uint8 bicubic kernel without antialias reads the border element once with
    the summed weight of the taps that fall outside the input (which sets the precision).
    """
    weight = taps.weight
    if weight is None:
        return taps
    columns = [weight[:, j] for j in range(weight.shape[1])]
    for j in range(len(columns) - 1, 0, -1):
        same = taps.index[:, j] == taps.index[:, j - 1]
        columns[j - 1] = xp.where(same, columns[j - 1] + columns[j], columns[j - 1])
        columns[j] = xp.where(same, xp.zeros_like(columns[j]), columns[j])
    return Taps(taps.index, xp.stack(columns, axis=1))


def int16_taps(taps: Taps, xp: Any) -> Taps:
    """`taps` (float64 weights) as the uint8 kernels' fixed-point weights.

    Torch: HelperInterpBase::compute_index_ranges_int16_weights: the precision is the
    largest p < 22 with round(w_max * 2**(p + 1)) < 2**15, and each weight is rounded half
    away from zero to an integer in units of 2**-p.
    """
    if taps.weight is None:
        return taps
    w_max = float(xp.max(taps.weight))
    precision = 0
    while precision < 22:
        if int(0.5 + w_max * (1 << (precision + 1))) >= (1 << 15):
            break
        precision += 1
    scaled = taps.weight * float(1 << precision)
    rounded = xp.where(scaled < 0.0, scaled - 0.5, scaled + 0.5)
    return Taps(taps.index, xp.astype(rounded, xp.int64), precision)
