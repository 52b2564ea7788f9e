"""The Bessel functions of torch.special: i0e, i1, i1e, bessel_j0/j1/y0/y1, the modified and
scaled modified Bessel functions, airy_ai and spherical_bessel_j0.

Torch: the unary float ops of aten/src/ATen/native/UnaryOps.cpp over the Cephes formulas of
native/Math.h; the backend's special-function library (SciPy on NumPy) stands in for them.
Split from special.py, whose helpers declare them.
"""

from __future__ import annotations

from typing import Final

from refimpl.core.backend import Array, ArrayNamespace
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import i1_backward, i1e_backward
from refimpl.ops._iterator import Builder
from refimpl.ops._pointwise import pointwise
from refimpl.ops.special import backend_function, special_unary

aten: Final = namespace("aten")

# --- i0e, i1, i1e -----------------------------------------------------------------------

special_i0e: Final = special_unary("i0e")


@special_i0e.compute
def special_i0e_compute(xp: ArrayNamespace, self: Array) -> Array:
    """exp(-|x|) I0(x). Torch: calc_i0e in native/Math.h (Cephes Chebyshev series)."""
    return backend_function(xp, "i0e", self)


@special_i0e.derivative("self")
def special_i0e_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: grad * (at::special_i1e(self) - self.sgn() * result)
    difference = aten.sub.Tensor(
        aten.special_i1e.default(self), aten.mul.Tensor(aten.sgn.default(self), result)
    )
    return aten.mul.Tensor(grad, difference)


special_i1: Final = special_unary("i1")


@special_i1.compute
def special_i1_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The modified Bessel function I1. Torch: calc_i1 in native/Math.h."""
    return backend_function(xp, "i1", self)


@special_i1.derivative("self")
def special_i1_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: i1_backward(grad, self, result)
    return i1_backward(grad, self, result)


special_i1e: Final = special_unary("i1e")


@special_i1e.compute
def special_i1e_compute(xp: ArrayNamespace, self: Array) -> Array:
    """exp(-|x|) I1(x). Torch: calc_i1e in native/Math.h."""
    return backend_function(xp, "i1e", self)


@special_i1e.derivative("self")
def special_i1e_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: i1e_backward(grad, self, result)
    return i1e_backward(grad, self, result)


# --- Bessel functions -------------------------------------------------------------------
# torch: the *_forward functions of native/Math.h (Cephes), over build_borrowing_unary_float_op.
# SciPy's functions are the same Cephes algorithms.

special_bessel_j0: Final = special_unary("bessel_j0")


@special_bessel_j0.compute
def special_bessel_j0_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The Bessel function J0. Torch: bessel_j0_forward in native/Math.h."""
    return backend_function(xp, "j0", self)


special_bessel_j1: Final = special_unary("bessel_j1")


@special_bessel_j1.compute
def special_bessel_j1_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The Bessel function J1. Torch: bessel_j1_forward in native/Math.h."""
    return backend_function(xp, "j1", self)


special_bessel_y0: Final = special_unary("bessel_y0")


@special_bessel_y0.compute
def special_bessel_y0_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The Bessel function Y0 (-inf at 0, nan below). Torch: bessel_y0_forward in Math.h."""
    return backend_function(xp, "y0", self)


special_bessel_y1: Final = special_unary("bessel_y1")


@special_bessel_y1.compute
def special_bessel_y1_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The Bessel function Y1 (-inf at 0, nan below). Torch: bessel_y1_forward in Math.h."""
    return backend_function(xp, "y1", self)


special_modified_bessel_i0: Final = special_unary("modified_bessel_i0")


@special_modified_bessel_i0.compute
def special_modified_bessel_i0_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The modified Bessel function I0. Torch: modified_bessel_i0_forward in Math.h."""
    return backend_function(xp, "i0", self)


special_modified_bessel_i1: Final = special_unary("modified_bessel_i1")


@special_modified_bessel_i1.compute
def special_modified_bessel_i1_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The modified Bessel function I1. Torch: modified_bessel_i1_forward in Math.h."""
    return backend_function(xp, "i1", self)


special_modified_bessel_k0: Final = special_unary("modified_bessel_k0")


@special_modified_bessel_k0.compute
def special_modified_bessel_k0_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The modified Bessel function K0 (inf at 0, nan below). Torch: modified_bessel_k0_forward."""
    return backend_function(xp, "k0", self)


special_modified_bessel_k1: Final = special_unary("modified_bessel_k1")


@special_modified_bessel_k1.compute
def special_modified_bessel_k1_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The modified Bessel function K1 (inf at 0, nan below). Torch: modified_bessel_k1_forward."""
    return backend_function(xp, "k1", self)


special_scaled_modified_bessel_k0: Final = pointwise(
    "special_scaled_modified_bessel_k0(Tensor x) -> Tensor", Builder.UNARY_FLOAT_OP
)


@special_scaled_modified_bessel_k0.compute
def special_scaled_modified_bessel_k0_compute(xp: ArrayNamespace, x: Array) -> Array:
    """exp(x) K0(x). Torch: modified_bessel_k0_forward's scaled twin in native/Math.h."""
    return backend_function(xp, "k0e", x)


special_scaled_modified_bessel_k1: Final = pointwise(
    "special_scaled_modified_bessel_k1(Tensor x) -> Tensor", Builder.UNARY_FLOAT_OP
)


@special_scaled_modified_bessel_k1.compute
def special_scaled_modified_bessel_k1_compute(xp: ArrayNamespace, x: Array) -> Array:
    """exp(x) K1(x). Torch: scaled_modified_bessel_k1_forward in native/Math.h."""
    return backend_function(xp, "k1e", x)


special_airy_ai: Final = pointwise("special_airy_ai(Tensor x) -> Tensor", Builder.UNARY_FLOAT_OP)


@special_airy_ai.compute
def special_airy_ai_compute(xp: ArrayNamespace, x: Array) -> Array:
    """The Airy function Ai. Torch: airy_ai_forward in native/Math.h (Cephes).

    Differs: for x below about -1e10 torch's asymptotic series gives finite values that are
    all rounding error; SciPy answers nan there.
    """
    return backend_function(xp, "airy_ai", x)


special_spherical_bessel_j0: Final = pointwise(
    "special_spherical_bessel_j0(Tensor x) -> Tensor", Builder.UNARY_FLOAT_OP
)

# torch: the Taylor coefficients of sin(x)/x that spherical_bessel_j0_forward uses for |x| < 0.5.
_J0_SERIES: Final = (
    1.0,
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362880.0,
    -1.0 / 39916800.0,
    1.0 / 6227020800.0,
)


@special_spherical_bessel_j0.compute
def special_spherical_bessel_j0_compute(xp: ArrayNamespace, x: Array) -> Array:
    """sin(x) / x, by its Taylor series near 0 and 0 at +-inf.

    Torch: spherical_bessel_j0_forward in aten/src/ATen/native/Math.h.
    """
    x2 = x * x
    series = xp.full_like(x, _J0_SERIES[-1])
    for coefficient in reversed(_J0_SERIES[:-1]):
        series = coefficient + x2 * series
    small = xp.abs(x) < 0.5
    ratio = xp.sin(x) / xp.where(small, xp.ones_like(x), x)
    values = xp.where(small, series, ratio)
    return xp.where(xp.isinf(x), xp.zeros_like(x), values)
