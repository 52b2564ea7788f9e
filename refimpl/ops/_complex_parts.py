"""A complex number from its real and imaginary parts, bit-exact, from the Array API standard.

Torch: complex_kernel (native/cpu/ComplexKernel.cpp) stores the two parts as they are. The
standard has no such constructor, so a backend may supply one as its extension "complex"
(NumPy: assign `.real` and `.imag`); where it does not, `compose_complex` builds it from the
standard's functions. See Note [Exact complex from parts].
"""

from __future__ import annotations

import math

from refimpl.core.backend import Array, ArrayNamespace

# Note [Exact complex from parts]
# `real + imag * 1j` is not torch's complex(real, imag): imag * 1j multiplies (imag + 0j) by
# (0 + 1j), whose real part imag*0 - 0*1 is NaN for an infinite or NaN imag, and the sum
# loses negative zeros (-0.0 + 0.0 is +0.0). The composition adds two
# complex numbers whose other part is -0.0, the one zero that changes nothing it is added to
# (x + -0.0 == x for every x, -0.0 and NaN included, NaN keeping its sign):
#   conj(astype(real, c))        = (real, -0.0)      conj only negates the zero imag part.
#   |imag| * (-0.0 + 1j)         = (-0.0, |imag|)    for finite imag, by the standard's
#       schoolbook product: |imag|*-0.0 - 0*1 = -0.0 - 0.0 = -0.0 and |imag|*1 + 0*-0.0 =
#       |imag| + -0.0 = |imag|; with |imag| (not imag) the real part is -0.0 for every sign.
#   (-0.0, inf), (-0.0, nan)     constants for the non-finite imag, where the product's real
#       part would be NaN.
#   conj(...) where imag's sign bit is set gives (-0.0, imag) (conj flips a NaN's sign too).
# The sum (real + -0.0, -0.0 + imag) is (real, imag) bit for bit, except that a NaN imag
# part keeps only its sign, not its payload (torch copies the payload; no conformance check
# can see a payload).

_NEG_ZERO_TIMES_I = complex(-0.0, 1.0)
_INF_PART = complex(-0.0, math.inf)
_NAN_PART = complex(-0.0, math.nan)


def compose_complex(xp: ArrayNamespace, real: Array, imag: Array) -> Array:
    """real + i*imag, exact for signed zeros, infinities and NaNs in either part, broadcast;
    float32 parts make complex64, float64 parts complex128.

    Torch: complex_kernel in native/cpu/ComplexKernel.cpp (what a backend's "complex"
    extension does in one step). See Note [Exact complex from parts].
    """
    dtype = xp.result_type(real.dtype, imag.dtype, xp.complex64)
    finite = xp.isfinite(imag)
    magnitude = xp.where(finite, xp.abs(imag), xp.zeros_like(imag))
    turned = xp.astype(magnitude, dtype) * xp.asarray(_NEG_ZERO_TIMES_I, dtype=dtype)
    non_finite = xp.where(
        xp.isnan(imag), xp.asarray(_NAN_PART, dtype=dtype), xp.asarray(_INF_PART, dtype=dtype)
    )
    unsigned = xp.where(finite, turned, non_finite)
    imag_part = xp.where(xp.signbit(imag), xp.conj(unsigned), unsigned)
    return xp.conj(xp.astype(real, dtype)) + imag_part
