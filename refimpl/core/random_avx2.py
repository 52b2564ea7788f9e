"""torch's AVX2 float32 log and sine/cosine (log256_ps, sincos256_ps), step by step, for
the Box-Muller blocks of torch.randn / normal_ on float32, float16 and bfloat16 tensors.

Torch: aten/src/ATen/native/cpu/avx_mathfun.h (Julien Pommier's cephes-based sse_mathfun,
ported to AVX), called by NormalFill16<float> in native/cpu/DistributionTemplates.h. The
kernels are compiled with -mavx2 -mfma, and GCC contracts each `a * b` followed by `+ c`
into one fused multiply-add; which pairs it fused was measured against torch 2.13 (with
these choices 320 000 samples of randn come out bit for bit). Every step here rounds to
float32 as the vector instruction does; a fused multiply-add is computed in float64, where
the product of two float32 values is exact, and rounded once to float32 (a double rounding
differs from the true fused result once in about 2^29 operations).
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
# Rows of 16 samples per pass of normal_fill_16_avx2.
_CHUNK_ROWS: Final = 4096


def _f32(value: float) -> float:
    """`value` rounded to float32, as a Python float (a `_PS256_CONST`)."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


class Float32Steps:
    """float32 arithmetic of `xp` rounded as the AVX2 instructions round."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def const(self, value: float) -> Array:
        return self.xp.asarray(value, dtype=self.xp.float32)

    def mul(self, a: Array, b: Array) -> Array:
        return a * b

    def wide(self, a: Array) -> Array:
        """`a` as float64 (exact), for an operand several fused steps reuse."""
        return self.xp.astype(a, self.xp.float64)

    def fma(self, a: Array, b: Array | float, c: Array | float) -> Array:
        """round32(a * b + c), as vfmadd; array operands float32 or already widened, the
        others Python floats holding float32 values."""
        xp = self.xp
        return xp.astype(self._widen(a) * self._widen(b) + self._widen(c), xp.float32)

    def _widen(self, value: Array | float) -> Array | float:
        if isinstance(value, float) or value.dtype == self.xp.float64:
            return value
        return self.xp.astype(value, self.xp.float64)


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
    return xp.astype(wide / 2.0 ** (exponent + 1), xp.float32), exponent + 1


def log256_ps(steps: Float32Steps, x: Array) -> Array:
    """torch's log256_ps for float32 `x` in (0, 1] (the Box-Muller radius's argument).

    Torch: avx_mathfun.h: x = m * 2^e with m in [0.5, 1); if m < sqrt(1/2), e -= 1 and
    m doubles; then x = m - 1 and log = x + x^3 P(x) - x^2 / 2 + e * (q1 + q2), with the
    polynomial by Horner's rule in fused multiply-adds.
    """
    xp = steps.xp
    f32 = xp.float32
    mantissa, e = _frexp(xp, x)
    e = xp.astype(e, f32)
    one = steps.const(1.0)
    low = mantissa < steps.const(_SQRTHF)
    # The masks as 0/1 arithmetic (exact; cheaper than selecting): x & mask adds 0.
    low_f = xp.astype(low, f32)
    e = e - low_f
    m = mantissa - one
    m = m + mantissa * low_f
    z = steps.mul(m, m)
    m_wide, z_wide = steps.wide(m), steps.wide(z)
    y = steps.fma(m_wide, _f32(_LOG_P[0]), _f32(_LOG_P[1]))
    for p in _LOG_P[2:]:
        y = steps.fma(y, m_wide, _f32(p))
    y = steps.mul(y, m)
    y = steps.fma(y, z_wide, steps.mul(e, steps.const(_LOG_Q1)))
    y = steps.fma(z_wide, steps.const(-0.5), y)
    m = m + y
    return xp.astype(steps.fma(e, steps.const(_LOG_Q2), m), f32)


def sincos256_ps(steps: Float32Steps, x: Array) -> tuple[Array, Array]:
    """torch's sincos256_ps for float32 `x` >= 0: (sin x, cos x).

    Torch: avx_mathfun.h: j = the octant (truncated x * 4/pi, rounded up to even), x
    reduced by j * pi/4 in three parts (Cody-Waite), then the cosine and sine polynomials,
    chosen and signed by j.
    """
    xp = steps.xp
    i32 = xp.int32
    j = xp.astype(steps.mul(x, steps.const(_FOPI)), i32)
    j = (j + 1) & xp.asarray(~1, dtype=i32)
    y = steps.wide(xp.astype(j, xp.float32))
    swap_sin = (j & 4) != 0
    use_sin_poly = (j & 2) == 0
    for dp in _DP:
        x = steps.fma(y, steps.const(dp), x)
    negative_cos = (~(j - 2) & 4) != 0
    z = steps.mul(x, x)
    z_wide = steps.wide(z)
    cos_poly = steps.fma(z_wide, _f32(_COS_P[0]), _f32(_COS_P[1]))
    cos_poly = steps.fma(cos_poly, z_wide, _f32(_COS_P[2]))
    cos_poly = steps.mul(cos_poly, z)
    cos_poly = steps.fma(cos_poly, z_wide, -steps.mul(z, steps.const(0.5)))
    cos_poly = cos_poly + steps.const(1.0)
    sin_poly = steps.fma(z_wide, _f32(_SIN_P[0]), _f32(_SIN_P[1]))
    sin_poly = steps.fma(sin_poly, z_wide, _f32(_SIN_P[2]))
    sin_poly = steps.mul(sin_poly, z)
    x_wide = steps.wide(x)
    sin_poly = steps.fma(sin_poly, x_wide, x_wide)
    sin = xp.where(use_sin_poly, sin_poly, cos_poly)
    cos = xp.where(use_sin_poly, cos_poly, sin_poly)
    # The sign-bit XORs as products with -1 or 1 (exact, zeros' signs flip alike).
    one, two = steps.const(1.0), steps.const(2.0)
    sin = sin * (one - two * xp.astype(swap_sin, xp.float32))
    cos = cos * (one - two * xp.astype(negative_cos, xp.float32))
    return sin, cos


def normal_fill_16_avx2(xp: Any, blocks: Array, mean: float, std: float) -> Array:
    """torch's NormalFill16<float> (AVX2) on each row of `blocks` (k x 16 float32 uniform
    samples): u1 = 1 - row[:8], u2 = row[8:], r = sqrt(-2 log u1), theta = 2 pi u2; the row
    becomes fma(r cos theta, std, mean), fma(r sin theta, std, mean)."""
    total = blocks.shape[0]
    if total > _CHUNK_ROWS:
        # Chunks keep the ~60 temporaries of a block in cache: several times faster.
        parts = [
            normal_fill_16_avx2(xp, blocks[start : min(start + _CHUNK_ROWS, total), :], mean, std)
            for start in range(0, total, _CHUNK_ROWS)
        ]
        return xp.concat(parts, axis=0)
    steps = Float32Steps(xp)
    rows = total
    # 1-D copies: elementwise work on rows of 8 would pay the library's per-row overhead.
    u1 = steps.const(1.0) - xp.reshape(blocks[:, :8], (-1,))
    u2 = xp.reshape(blocks[:, 8:], (-1,))
    radius = xp.sqrt(steps.mul(steps.const(-2.0), log256_ps(steps, u1)))
    theta = steps.mul(steps.const(2.0 * 3.141592653589793), u2)
    sin, cos = sincos256_ps(steps, theta)
    std32, mean32 = steps.const(std), steps.const(mean)
    first = steps.fma(steps.mul(radius, cos), std32, mean32)
    second = steps.fma(steps.mul(radius, sin), std32, mean32)
    return xp.concat([xp.reshape(first, (rows, 8)), xp.reshape(second, (rows, 8))], axis=1)
