"""torch's AVX2 float32 log and sine/cosine (log256_ps, sincos256_ps), step by step, for
the Box-Muller blocks of torch.randn / normal_ on float32, float16 and bfloat16 tensors.

Torch: aten/src/ATen/native/cpu/avx_mathfun.h (Julien Pommier's cephes-based sse_mathfun,
ported to AVX), called by NormalFill16<float> in native/cpu/DistributionTemplates.h. The
kernels are compiled with -mavx2 -mfma, and GCC contracts each `a * b` followed by `+ c`
into one fused multiply-add; which pairs it fused was measured against torch 2.13 (with
these choices 320 000 samples of randn come out bit for bit). Every step here rounds to
float32 as the vector instruction does; a fused multiply-add is computed in float64, where
the product of two float32 values is exact, and rounded once to float32 (a double rounding
differs from the true fused result once in about 2^29 operations), or in float32 outright
where its product is exact in float32 (then the fused and the plain results agree).
Speed: about 110 elementwise calls per chunk of 4096 blocks, each a plain library call on
arrays that stay in cache; the raw words go in (the uniform samples are folded into the
first steps), every fused multiply-add has float64 operands only (NumPy's mixed
float32/float64 loops are five times slower), in-place updates reuse the float64
temporaries, and masks and selections are exact products with 0, 1 and -1 (NumPy's
`where` costs eight plain passes). Measured: 4 to 5 times torch's time for randn(10**6),
of which the mt19937 words alone (NumPy's MT19937) are 0.8 times torch's.
Differs: torch takes this path where its CPU capability is AVX2 or AVX512 (normal_stub is
not dispatched to AVX512, so AVX512 machines run the AVX2 kernel); on a CPU without AVX2
(or with ATEN_CPU_CAPABILITY=default) torch's float32 normals come from the scalar
NormalFill16 with the C library's logf/cosf instead, and differ from these by an ulp or so.
"""

from __future__ import annotations

import struct
from typing import Any, Final

from refimpl.core.backend import Array, extension

# cephes_log_p0 .. p8, cephes_log_q1, q2, SQRTHF (avx_mathfun.h).
_LOG_P: Final = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LOG_Q1: Final = -2.12194440e-4
_LOG_Q2: Final = 0.693359375
_SQRTHF: Final = 0.707106781186547524
# minus_cephes_DP1..3, sincof_p0..2, coscof_p0..2, cephes_FOPI (4 / pi).
_DP: Final = (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)
_SIN_P: Final = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_COS_P: Final = (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
_FOPI: Final = 1.27323954473516
# Rows of 16 samples per pass of normal_fill_16_avx2: about 1 MiB of live temporaries, which
# stay in a core's L2 cache (measured fastest between 2048 and 8192 rows).
_CHUNK_ROWS: Final = 4096
# The uniform sample is (word & _MASK24) * 2^-24 (torch: uniform_real_distribution<float>).
_MASK24: Final = (1 << 24) - 1


def _f32(value: float) -> float:
    """`value` rounded to float32, as a Python float (a `_PS256_CONST`)."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


# The constants as float32 values (Python floats holding them).
_LOG_P32: Final = tuple(_f32(p) for p in _LOG_P)
_LOG_Q1_32: Final = _f32(_LOG_Q1)
_SQRTHF32: Final = _f32(_SQRTHF)
_SIN_P32: Final = tuple(_f32(p) for p in _SIN_P)
_COS_P32: Final = tuple(_f32(p) for p in _COS_P)
_DP32: Final = tuple(_f32(p) for p in _DP)
_FOPI32: Final = _f32(_FOPI)
# theta = 2 pi * u2 with u2 = k * 2^-24: round32(2 pi k 2^-24) = round32(k * (2 pi 2^-24)), a
# power-of-two scaling being exact; one multiplication instead of two.
_TWO_PI_ULP32: Final = _f32(2.0 * 3.141592653589793) * 2.0**-24


class _Consts:
    """0-d float32 arrays of `xp` for the float32 steps (a Python float meeting a float32
    array would be converted on every call)."""

    def __init__(self, xp: Any) -> None:
        f32 = xp.float32
        self.one = xp.asarray(1.0, dtype=f32)
        self.half = xp.asarray(0.5, dtype=f32)
        self.minus_two = xp.asarray(-2.0, dtype=f32)
        self.sqrthf = xp.asarray(_SQRTHF32, dtype=f32)
        self.q1 = xp.asarray(_LOG_Q1_32, dtype=f32)
        self.q2 = xp.asarray(_f32(_LOG_Q2), dtype=f32)
        self.fopi = xp.asarray(_FOPI32, dtype=f32)
        self.two_pi_ulp = xp.asarray(_TWO_PI_ULP32, dtype=f32)
        self.dp1 = xp.asarray(_DP32[0], dtype=f32)
        self.dp2 = xp.asarray(_DP32[1], dtype=f32)


def _frexp(xp: Any, x: Array) -> tuple[Array, Array]:
    """(m, e) with x = m * 2^e and m in [0.5, 1), for normal positive float32 `x`: what
    log256_ps takes from the bits. The backend's C frexp where it has one, else exactly from
    log2 with a correction (powers of two are exact in float64)."""
    try:
        mantissa, exponent = extension(xp, "frexp")(x)
        return mantissa, exponent
    except NotImplementedError:
        pass
    f64 = xp.float64
    wide = xp.astype(x, f64)
    exponent = xp.floor(xp.log2(wide))
    exponent = xp.where(2.0**exponent > wide, exponent - 1, exponent)
    exponent = xp.where(2.0 ** (exponent + 1) <= wide, exponent + 1, exponent)
    return xp.astype(wide / 2.0 ** (exponent + 1), xp.float32), xp.astype(exponent + 1, xp.int32)


def _fma32(xp: Any, a: Array, b: Array, c: Array | float) -> Array:
    """round32(a * b + c) for float32 `a`, float64 `b` holding float32 values and `c` a
    float64 array or a Python float holding a float32 value: vfmadd. The product is exact
    in float64; the sum rounds once there (then once to float32, as the module says).
    (Every operand is float64 already: NumPy's mixed float32/float64 loops are 5x slower.)"""
    wide = xp.astype(a, xp.float64)
    wide *= b
    wide += c
    return xp.astype(wide, xp.float32)


def log256_ps(xp: Any, c: _Consts, units: Array) -> Array:
    """torch's log256_ps of u1 = `units` * 2^-24 (`units`: uint32 in [1, 2^24]), float32.

    Torch: avx_mathfun.h: x = m * 2^e with m in [0.5, 1); if m < sqrt(1/2), e -= 1 and
    m += m (through a mask); then x = m - 1 and log = x + x^3 P(x) - x^2 / 2 + e * (q1 + q2),
    with the polynomial by Horner's rule in fused multiply-adds. Exact float32 steps: the
    mantissa arithmetic, z / 2 and e * q2 (q2 has 9 bits): their fused multiply-adds are
    plain additions.
    """
    f32, f64 = xp.float32, xp.float64
    # u1 and its integer `units` share the mantissa; the exponents differ by 24.
    mantissa, exponent = _frexp(xp, xp.astype(units, f32))
    low = xp.astype(mantissa < c.sqrthf, f32)
    e = xp.astype(exponent - 24, f32) - low
    m = (mantissa - c.one) + mantissa * low
    z = m * m
    m_wide, z_wide = xp.astype(m, f64), xp.astype(z, f64)
    y = m_wide * _LOG_P32[0]
    y += _LOG_P32[1]
    y = xp.astype(y, f32)
    for p in _LOG_P32[2:]:
        y = _fma32(xp, y, m_wide, p)
    y = y * m
    y = _fma32(xp, y, z_wide, xp.astype(e * c.q1, f64))
    y = y - z * c.half
    return (m + y) + e * c.q2


def sincos256_ps(xp: Any, c: _Consts, x: Array) -> tuple[Array, Array, Array, Array]:
    """torch's sincos256_ps for float32 `x` in [0, 2 pi), before the choice and the signs:
    (sin_poly, cos_poly, S, C), where torch's results are sin x = S cos_poly + C sin_poly
    and cos x = C cos_poly - S sin_poly.

    Torch: avx_mathfun.h: j = the octant (truncated x * 4/pi, rounded up to even), x
    reduced by j * pi/4 in three parts (Cody-Waite), then both polynomials, chosen by bit
    2 of j (through masks: the other one adds +0) and signed by bits 2 and 4. For
    j = 2q, q = 0..4 (x < 2 pi), that choice and sign are the quarter turn
    C = cos(q pi / 2), S = sin(q pi / 2), each 0 or +-1 (the products are exact; the
    chosen polynomial is never -0). j * DP1 and j * DP2 are exact in float32.
    """
    f32, f64, i32 = xp.float32, xp.float64, xp.int32
    j = xp.astype(x * c.fopi, i32)
    q = (j + 1) >> 1
    y = xp.astype(q + q, f32)
    x = x + y * c.dp1
    x = x + y * c.dp2
    x = _fma32(xp, y, xp.asarray(_DP32[2], dtype=f64), xp.astype(x, f64))
    sign = 1 - (q & 2)
    s_int = (q & 1) * sign
    turn_sin = xp.astype(s_int, f32)
    turn_cos = xp.astype(sign - s_int, f32)
    z = x * x
    z_wide = xp.astype(z, f64)
    cos_poly = z_wide * _COS_P32[0]
    cos_poly += _COS_P32[1]
    cos_poly = _fma32(xp, xp.astype(cos_poly, f32), z_wide, _COS_P32[2])
    cos_poly = cos_poly * z
    # fma(p, z, -z / 2) = round32((p - 1/2) z): p - 1/2 is exact in float64 and so is its
    # product with z (49 bits).
    wide = xp.astype(cos_poly, f64)
    wide -= 0.5
    wide *= z_wide
    cos_poly = xp.astype(wide, f32) + c.one
    sin_poly = z_wide * _SIN_P32[0]
    sin_poly += _SIN_P32[1]
    sin_poly = _fma32(xp, xp.astype(sin_poly, f32), z_wide, _SIN_P32[2])
    sin_poly = sin_poly * z
    x_wide = xp.astype(x, f64)
    sin_poly = _fma32(xp, sin_poly, x_wide, x_wide)
    return sin_poly, cos_poly, turn_sin, turn_cos


def _block_rows(xp: Any, c: _Consts, words: Array, mean: float, std: float) -> tuple[Array, Array]:
    """NormalFill16 on rows of 16 words: the first and the second 8 samples of each row."""
    f32 = xp.float32
    mask = xp.asarray(_MASK24, dtype=words.dtype)
    # u1 = 1 - k1 * 2^-24 = (2^24 - k1) * 2^-24, exactly.
    units = xp.asarray(1 << 24, dtype=words.dtype) - (words[:, :8] & mask)
    radius = xp.sqrt(c.minus_two * log256_ps(xp, c, units))
    theta = xp.astype(words[:, 8:] & mask, f32) * c.two_pi_ulp
    sin_poly, cos_poly, turn_sin, turn_cos = sincos256_ps(xp, c, theta)
    # One of each pair of products is +-0 and the other exact: the sums are exact.
    cos = cos_poly * turn_cos - sin_poly * turn_sin
    sin = cos_poly * turn_sin + sin_poly * turn_cos
    first, second = radius * cos, radius * sin
    std32, mean32 = xp.asarray(std, dtype=f32), xp.asarray(mean, dtype=f32)
    if float(std32) == 1.0:
        # fma(v, 1, mean) = round32(v + mean): v + 0 also turns -0 into +0, as the fma does.
        return first + mean32, second + mean32
    f64 = xp.float64
    std_wide = xp.astype(std32, f64)
    mean_wide = xp.astype(mean32, f64)
    return _fma32(xp, first, std_wide, mean_wide), _fma32(xp, second, std_wide, mean_wide)


def normal_fill_16_avx2(xp: Any, words: Array, mean: float, std: float) -> Array:
    """torch's NormalFill16<float> (AVX2) on each row of `words` (k x 16 uint32 words of the
    stream): with the uniform samples u = (word & (2^24 - 1)) * 2^-24, u1 = 1 - u[:8],
    u2 = u[8:], r = sqrt(-2 log u1), theta = 2 pi u2; the row becomes
    fma(r cos theta, std, mean), fma(r sin theta, std, mean). float32, k x 16."""
    rows = words.shape[0]
    c = _Consts(xp)
    if rows <= _CHUNK_ROWS:
        first, second = _block_rows(xp, c, words, mean, std)
        return xp.concat([first, second], axis=1)
    out = xp.empty((rows, 16), dtype=xp.float32)
    # Chunks keep the temporaries in cache: several times faster than whole arrays.
    for start in range(0, rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, rows)
        first, second = _block_rows(xp, c, words[start:stop, :], mean, std)
        out[start:stop, :8] = first
        out[start:stop, 8:] = second
    return out
