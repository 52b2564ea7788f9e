"""Unary math: exp and log families, trigonometric and hyperbolic functions, sigmoid and logit,
and the special functions (erf, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, i0, sinc).

Torch: aten/src/ATen/native/UnaryOps.cpp (the structured meta functions, all built with
build_borrowing_unary_float_op: integers and bool compute in the default float dtype) and the
CPU kernels of native/cpu/UnaryOpsKernel.cpp. Each op is one `pointwise` declaration; the
iterator (ops/_iterator.py) does promotion, layouts, in-place and out=.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import bool_, float16, float32
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import can_cast
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, conj
from refimpl.ops._backward_unary import (
    HALF_SQRT_PI,
    LN2,
    LN10,
    M_LN2,
    TWO_OVER_SQRT_PI,
    log1p_backward,
    logit_backward,
    mvlgamma_backward,
    sinc_backward,
)
from refimpl.ops._iterator import Builder, IterConfig, Plan
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop
from refimpl.ops.special import hurwitz_zeta

aten: Final = namespace("aten")

UnaryKernel = Callable[[ArrayNamespace, Array], Array]


# --- shared: float16 computes in float32 ---------------------------------------------------


def in_float32(kernel: Callable[..., Array]) -> Callable[..., Array]:
    """The float16 variant of a composed kernel: compute in float32, round once at the end.

    Torch: at::opmath_type<Half> is float; the CPU kernels of reduced-precision dtypes load
    into float vectors, so a formula of several steps rounds to half only once.
    """

    def half_kernel(xp: ArrayNamespace, self: Array, *args: Any, **kwargs: Any) -> Array:
        result = kernel(xp, xp.astype(self, xp.float32), *args, **kwargs)
        return xp.astype(result, self.dtype)

    half_kernel.__name__ = f"{kernel.__name__}_half"
    return half_kernel


def unary_float(name: str, kernel: UnaryKernel, *, composed: bool = False) -> PointwiseOp:
    """Declare `name(Tensor self) -> Tensor` over build_borrowing_unary_float_op.

    A `composed` kernel (several rounding steps) computes float16 in float32.
    """
    op = pointwise(f"{name}(Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)
    op.compute(kernel)
    if composed:
        op.compute(in_float32(kernel), dtypes=(float16,))
    return op


def special(name: str) -> UnaryKernel:
    """A kernel calling the backend's extension `name` (a scipy.special-like function)."""

    def special_kernel(xp: ArrayNamespace, self: Array) -> Array:
        # scipy.special may answer a wider dtype than it was given; torch keeps self's.
        return xp.astype(extension(xp, name)(self), self.dtype, copy=False)

    special_kernel.__name__ = f"{name}_kernel"
    return special_kernel


def _constant(xp: ArrayNamespace, value: float, like: Array) -> Array:
    return xp.asarray(value, dtype=like.dtype)


# --- exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt ---------------------------------
# torch: exp_kernel, exp2_kernel, expm1_kernel, log_kernel, ... in UnaryOpsKernel.cpp (std::
# functions; std::complex for complex dtypes).

exp = unary_float("exp", lambda xp, x: xp.exp(x))
expm1 = unary_float("expm1", lambda xp, x: xp.expm1(x))
log = unary_float("log", lambda xp, x: xp.log(x))
log2 = unary_float("log2", lambda xp, x: xp.log2(x))
log10 = unary_float("log10", lambda xp, x: xp.log10(x))
log1p = unary_float("log1p", lambda xp, x: xp.log1p(x))
sqrt = unary_float("sqrt", lambda xp, x: xp.sqrt(x))


@exp.derivative("self")
def exp_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * result.conj()
    return aten.mul.Tensor(grad, conj(result))


@expm1.derivative("self")
def expm1_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * (result.conj() + 1)
    return aten.mul.Tensor(grad, aten.add.Scalar(conj(result), 1))


@log.derivative("self")
def log_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad.div(self.conj())
    return aten.div.Tensor(grad, conj(self))


@log2.derivative("self")
def log2_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad / (self.conj() * 0.6931471805599453)
    return aten.div.Tensor(grad, aten.mul.Scalar(conj(self), LN2))


@log10.derivative("self")
def log10_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad / (self.conj() * 2.3025850929940456)
    return aten.div.Tensor(grad, aten.mul.Scalar(conj(self), LN10))


@log1p.derivative("self")
def log1p_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: log1p_backward(grad, self)
    return log1p_backward(grad, self)


@sqrt.derivative("self")
def sqrt_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad / (2 * result.conj())
    return aten.div.Tensor(grad, aten.mul.Scalar(conj(result), 2))


def exp2_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """2 ** self. Torch: exp2_kernel (std::exp2; pow(2, z) for complex)."""
    return xp.pow(_constant(xp, 2.0, self), self)


exp2 = unary_float("exp2", exp2_kernel)


@exp2.derivative("self")
def exp2_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * result.conj() * M_LN2
    return aten.mul.Scalar(aten.mul.Tensor(grad, conj(result)), M_LN2)


def rsqrt_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """1 / sqrt(self). Torch: rsqrt_kernel."""
    return xp.divide(_constant(xp, 1.0, self), xp.sqrt(self))


rsqrt = unary_float("rsqrt", rsqrt_kernel, composed=True)


@rsqrt.derivative("self")
def rsqrt_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: -0.5 * grad * result.pow(3).conj()
    cube = conj(aten.pow.Tensor_Scalar(result, 3))
    return aten.mul.Tensor(aten.mul.Scalar(grad, -0.5), cube)


# --- trigonometric and hyperbolic functions ---------------------------------------------------

sin = unary_float("sin", lambda xp, x: xp.sin(x))
cos = unary_float("cos", lambda xp, x: xp.cos(x))
tan = unary_float("tan", lambda xp, x: xp.tan(x))
asin = unary_float("asin", lambda xp, x: xp.asin(x))
acos = unary_float("acos", lambda xp, x: xp.acos(x))
atan = unary_float("atan", lambda xp, x: xp.atan(x))
sinh = unary_float("sinh", lambda xp, x: xp.sinh(x))
cosh = unary_float("cosh", lambda xp, x: xp.cosh(x))
tanh = unary_float("tanh", lambda xp, x: xp.tanh(x))
asinh = unary_float("asinh", lambda xp, x: xp.asinh(x))
acosh = unary_float("acosh", lambda xp, x: xp.acosh(x))
atanh = unary_float("atanh", lambda xp, x: xp.atanh(x))


@sin.derivative("self")
def sin_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self.cos().conj()
    return aten.mul.Tensor(grad, conj(aten.cos.default(self)))


@cos.derivative("self")
def cos_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * -self.sin().conj()
    return aten.mul.Tensor(grad, aten.neg.default(conj(aten.sin.default(self))))


@tan.derivative("self")
def tan_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * (1 + result.pow(2)).conj()
    return aten.mul.Tensor(grad, conj(aten.add.Scalar(aten.pow.Tensor_Scalar(result, 2), 1)))


def _one_minus_square(self: Tensor) -> Tensor:
    # torch: -self * self + 1
    return aten.add.Scalar(aten.mul.Tensor(aten.neg.default(self), self), 1)


@asin.derivative("self")
def asin_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * (-self * self + 1).rsqrt().conj()
    return aten.mul.Tensor(grad, conj(aten.rsqrt.default(_one_minus_square(self))))


@acos.derivative("self")
def acos_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * -((-self * self + 1).rsqrt()).conj()
    factor = aten.neg.default(conj(aten.rsqrt.default(_one_minus_square(self))))
    return aten.mul.Tensor(grad, factor)


@atan.derivative("self")
def atan_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad / (self * self + 1).conj()
    return aten.div.Tensor(grad, conj(aten.add.Scalar(aten.mul.Tensor(self, self), 1)))


@sinh.derivative("self")
def sinh_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self.cosh().conj()
    return aten.mul.Tensor(grad, conj(aten.cosh.default(self)))


@cosh.derivative("self")
def cosh_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self.sinh().conj()
    return aten.mul.Tensor(grad, conj(aten.sinh.default(self)))


@tanh.derivative("self")
def tanh_backward_self(grad: Tensor, result: Tensor) -> Tensor:
    # torch: tanh_backward(grad, result)
    return aten.tanh_backward.default(grad, result)


@asinh.derivative("self")
def asinh_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * (self.pow(2) + 1).rsqrt().conj()
    shifted = aten.add.Scalar(aten.pow.Tensor_Scalar(self, 2), 1)
    return aten.mul.Tensor(grad, conj(aten.rsqrt.default(shifted)))


@acosh.derivative("self")
def acosh_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: self.is_complex() ? grad * ((self + 1).rsqrt() * (self - 1).rsqrt()).conj()
    #                          : grad * (self * self - 1).rsqrt()
    if self._dtype.is_complex:
        plus = aten.rsqrt.default(aten.add.Scalar(self, 1))
        minus = aten.rsqrt.default(aten.sub.Scalar(self, 1))
        return aten.mul.Tensor(grad, conj(aten.mul.Tensor(plus, minus)))
    return aten.mul.Tensor(grad, aten.rsqrt.default(aten.sub.Scalar(aten.mul.Tensor(self, self), 1)))


@atanh.derivative("self")
def atanh_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * 1 / (1 - self.pow(2)).conj()
    denominator = conj(aten.rsub.Scalar(aten.pow.Tensor_Scalar(self, 2), 1))
    return aten.div.Tensor(aten.mul.Scalar(grad, 1), denominator)


# The NumPy-style `arc*` names. Torch: arcsin, arcsin_, arcsin.out, ... in UnaryOps.cpp are
# CompositeImplicitAutograd aliases of asin, asin_, asin.out, ...
ARC_ALIASES: Final[dict[str, str]] = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
}


def _alias_decompositions(alias: str, target: str) -> None:
    """Register `alias`, `alias_` and `alias.out` as decompositions to `target`'s overloads."""
    packet = getattr(aten, target)
    inplace = getattr(aten, target + "_").default
    functional_op, out_op = packet.default, packet.out

    def alias_functional(self: TensorImpl) -> Any:
        return functional_op(self)

    def alias_inplace(self: TensorImpl) -> Any:
        return inplace(self)

    def alias_out(self: TensorImpl, *, out: TensorImpl) -> Any:
        return out_op(self, out=out)

    defop(f"{alias}(Tensor self) -> Tensor").decomposition(alias_functional)
    defop(f"{alias}_(Tensor(a!) self) -> Tensor(a!)").decomposition(alias_inplace)
    defop(f"{alias}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)").decomposition(alias_out)


for _alias, _target in ARC_ALIASES.items():
    _alias_decompositions(_alias, _target)


# --- sigmoid, logit ----------------------------------------------------------------------------


def sigmoid_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """1 / (1 + exp(-self)). Torch: sigmoid_kernel in UnaryOpsKernel.cpp."""
    one = _constant(xp, 1.0, self)
    return xp.divide(one, xp.add(one, xp.exp(xp.negative(self))))


sigmoid = unary_float("sigmoid", sigmoid_kernel, composed=True)


@sigmoid.derivative("self")
def sigmoid_backward_self(grad: Tensor, result: Tensor) -> Tensor:
    # torch: sigmoid_backward(grad, result)
    return aten.sigmoid_backward.default(grad, result)


# --- sigmoid_backward, tanh_backward ---------------------------------------------------------
# torch: the backward kernels of sigmoid and tanh (structured, build_borrowing_binary_op;
# sigmoid_backward_kernel and tanh_backward_kernel in native/cpu/BinaryOpsKernel.cpp), aten
# ops of their own so that a second derivative records SigmoidBackwardBackward0.

# torch: the float16 kernel rounds each step to half (no opmath), as NumPy's float16 does.
sigmoid_backward = pointwise(
    "sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", Builder.BINARY_OP
)


@sigmoid_backward.compute
def sigmoid_backward_compute(xp: ArrayNamespace, grad_output: Array, output: Array) -> Array:
    """grad_output * (1 - output) * output; for complex, grad_output * conj((1 - y) y)."""
    one_minus = xp.subtract(_constant(xp, 1.0, output), output)
    if xp.isdtype(output.dtype, "complex floating"):
        return xp.multiply(grad_output, xp.conj(xp.multiply(one_minus, output)))
    return xp.multiply(xp.multiply(grad_output, one_minus), output)


@sigmoid_backward.derivative("grad_output")
def sigmoid_backward_backward_grad_output(grad: Tensor, output: Tensor) -> Tensor:
    # torch: sigmoid_backward(grad, output.conj())
    return aten.sigmoid_backward.default(grad, conj(output))


@sigmoid_backward.derivative("output")
def sigmoid_backward_backward_output(grad: Tensor, grad_output: Tensor, output: Tensor) -> Tensor:
    # torch: grad.conj() * grad_output * (-2 * output.conj() + 1)
    slope = aten.add.Scalar(aten.mul.Scalar(conj(output), -2), 1)
    return aten.mul.Tensor(aten.mul.Tensor(conj(grad), grad_output), slope)


tanh_backward = pointwise(
    "tanh_backward(Tensor grad_output, Tensor output) -> Tensor", Builder.BINARY_OP
)


@tanh_backward.compute
def tanh_backward_compute(xp: ArrayNamespace, grad_output: Array, output: Array) -> Array:
    """grad_output * (1 - output**2); for complex, grad_output * conj(1 - y**2).

    Differs: torch's CPU kernel forms 1 - y**2 with a fused multiply-add; float64 and complex
    results here may differ from it in the last bit.
    """
    factor = xp.subtract(_constant(xp, 1.0, output), xp.multiply(output, output))
    if xp.isdtype(output.dtype, "complex floating"):
        factor = xp.conj(factor)
    return xp.multiply(grad_output, factor)


@tanh_backward.compute(dtypes=(float16, float32))
def tanh_backward_compute_fused(xp: ArrayNamespace, grad_output: Array, output: Array) -> Array:
    """The float32 (and float16, computed in float32) kernel: 1 - y**2 rounded once, as
    torch's fused multiply-add does (y * y is exact in float64)."""
    wide = xp.astype(output, xp.float64)
    factor = xp.astype(xp.subtract(xp.asarray(1.0, dtype=xp.float64), wide * wide), xp.float32)
    product = xp.multiply(xp.astype(grad_output, xp.float32), factor)
    return xp.astype(product, output.dtype)


@tanh_backward.derivative("grad_output")
def tanh_backward_backward_grad_output(grad: Tensor, output: Tensor) -> Tensor:
    # torch: tanh_backward(grad, output.conj())
    return aten.tanh_backward.default(grad, conj(output))


@tanh_backward.derivative("output")
def tanh_backward_backward_output(grad: Tensor, grad_output: Tensor, output: Tensor) -> Tensor:
    # torch: grad.conj() * (-2 * output.conj() * grad_output)
    product = aten.mul.Tensor(aten.mul.Scalar(conj(output), -2), grad_output)
    return aten.mul.Tensor(conj(grad), product)


logit = pointwise("logit(Tensor self, float? eps=None) -> Tensor", Builder.UNARY_FLOAT_OP)


@logit.compute
def logit_compute(xp: ArrayNamespace, self: Array, eps: float | None) -> Array:
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given and not negative.

    Torch: logit_kernel in UnaryOpsKernel.cpp (eps is converted to the input dtype first; NaN
    passes the clamp).
    """
    one = _constant(xp, 1.0, self)
    if eps is not None and eps >= 0:
        low = _constant(xp, eps, self)
        high = xp.subtract(one, low)
        self = xp.where(self < low, low, xp.where(self > high, high, self))
    return xp.log(xp.divide(self, xp.subtract(one, self)))


logit.compute(in_float32(logit_compute), dtypes=(float16,))


@logit.derivative("self")
def logit_backward_self(grad: Tensor, self: Tensor, eps: float | None) -> Tensor:
    # torch: GradMode::is_enabled() ? infinitely_differentiable_logit_backward(grad, self, eps)
    #                               : logit_backward(grad, self, eps)
    return logit_backward(grad, self, eps)


# --- erf, erfc, erfinv, lgamma, i0 -------------------------------------------------------
# torch: the kernels of UnaryOpsKernel.cpp and UnarySpecialOpsKernel.cpp (calc_erfinv,
# calc_i0 in Math.h); the backend's special-function library stands in for them.

erf = unary_float("erf", special("erf"), composed=True)
erfc = unary_float("erfc", special("erfc"), composed=True)
erfinv = unary_float("erfinv", special("erfinv"), composed=True)


def _gaussian(self: Tensor) -> Tensor:
    # torch: exp(-(self.pow(2)))
    return aten.exp.default(aten.neg.default(aten.pow.Tensor_Scalar(self, 2)))


@erf.derivative("self")
def erf_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    return aten.mul.Tensor(aten.mul.Scalar(_gaussian(self), TWO_OVER_SQRT_PI), grad)


@erfc.derivative("self")
def erfc_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    return aten.mul.Tensor(aten.mul.Scalar(_gaussian(self), -TWO_OVER_SQRT_PI), grad)


@erfinv.derivative("self")
def erfinv_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
    square = aten.pow.Tensor_Scalar(aten.erfinv.default(self), 2)
    return aten.mul.Tensor(aten.mul.Scalar(aten.exp.default(square), HALF_SQRT_PI), grad)


def lgamma_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """log |Gamma(x)|. Torch: lgamma_kernel (std::lgamma: +inf at -inf, where the backend's
    library may answer -inf)."""
    result = special("lgamma")(xp, self)
    return xp.where(self == -math.inf, _constant(xp, math.inf, self), result)


lgamma = unary_float("lgamma", lgamma_kernel, composed=True)
i0 = unary_float("i0", special("i0"), composed=True)


@lgamma.derivative("self")
def lgamma_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * digamma(self)
    return aten.mul.Tensor(grad, aten.digamma.default(self))


@i0.derivative("self")
def i0_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * at::special_i1(self)
    return aten.mul.Tensor(grad, aten.special_i1.default(self))


# --- digamma, polygamma ------------------------------------------------------------------------
# torch: calc_digamma and calc_trigamma in native/Math.h, computed in the input's own float
# type (float32 in float32), and zeta (special.py's hurwitz_zeta) for n >= 2. SciPy's psi and
# polygamma differ at the poles (torch: ±inf at ±0, nan at negative integers for digamma; the
# rounding residue of sin(pi x) for trigamma; ±inf from zeta above) and in float32 rounding.

# The asymptotic series of digamma: B_2k / 2k for k = 7 .. 1, highest power of 1/x**2 first.
_DIGAMMA_SERIES: Final = (
    1 / 12,
    -691 / 32760,
    1 / 132,
    -1 / 240,
    1 / 252,
    -1 / 120,
    1 / 12,
)
_DIGAMMA_10: Final = 2.25175258906672110764  # digamma(10), used exactly at 10
_DIGAMMA_SERIES_LIMIT: Final = 1.0e17  # from here on, log(x) - 1/2x alone


def _digamma_positive(xp: ArrayNamespace, x: Array) -> Array:
    """digamma for x > 0 (or nan/inf): recurrence up to 10, then the asymptotic series."""

    def const(value: float) -> Array:
        return xp.asarray(value, dtype=x.dtype)

    one, ten = const(1.0), const(10.0)
    result = xp.zeros_like(x)
    for _ in range(10):  # digamma(x) = digamma(x + 1) - 1/x until x reaches 10
        below = x < ten
        result = xp.where(below, result - one / xp.where(below, x, one), result)
        x = xp.where(below, x + one, x)
    inverse_square = one / (x * x)
    series = const(_DIGAMMA_SERIES[0])
    for coefficient in _DIGAMMA_SERIES[1:]:
        series = series * inverse_square + const(coefficient)
    series = xp.where(x < const(_DIGAMMA_SERIES_LIMIT), inverse_square * series, const(0.0))
    asymptotic = result + xp.log(x) - const(0.5) / x - series
    return xp.where(x == ten, result + const(_DIGAMMA_10), asymptotic)


def digamma_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """The logarithmic derivative of Gamma. Torch: calc_digamma in native/Math.h: for x < 0
    the reflection digamma(1 - x) - pi / tan(pi r), r the fractional part of x (that term in
    double); nan at the negative integers and -inf, -inf at +0 and +inf at -0."""

    def const(value: float) -> Array:
        return xp.asarray(value, dtype=self.dtype)

    negative = self < 0
    positive_part = _digamma_positive(xp, xp.where(negative, const(1.0) - self, self))
    fraction = self - xp.trunc(self)
    # torch: the float version too takes pi / tan(pi r) in double and rounds it once.
    wide = xp.astype(fraction, xp.float64)
    cotangent = xp.asarray(math.pi, dtype=xp.float64) / xp.tan(math.pi * wide)
    reflected = positive_part - xp.astype(cotangent, self.dtype)
    result = xp.where(negative, reflected, positive_part)
    result = xp.where(negative & (fraction == 0), const(math.nan), result)
    signed_infinity = xp.where(xp.signbit(self), const(math.inf), const(-math.inf))
    return xp.where(self == 0, signed_infinity, result)


digamma = unary_float("digamma", digamma_kernel, composed=True)


@digamma.derivative("self")
def digamma_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * polygamma(1, self)
    return aten.mul.Tensor(grad, aten.polygamma.default(1, self))


def trigamma_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """The derivative of digamma. Torch: calc_trigamma in native/Math.h: for x < 1/2 the
    reflection pi**2 / sin(pi x)**2 - trigamma(1 - x), six steps of the recurrence, then
    the asymptotic series (1 + 1/2x + 1/6x**2 - 1/30x**4 + 1/42x**6) / x."""

    def const(value: float) -> Array:
        return xp.asarray(value, dtype=self.dtype)

    one, pi = const(1.0), const(math.pi)
    reflect = self < const(0.5)
    sine = xp.sin(pi * self)
    result = xp.where(reflect, -(pi * pi) / (sine * sine), const(0.0))
    x = xp.where(reflect, one - self, self)
    for _ in range(6):
        result = result + one / (x * x)
        x = x + one
    inverse_square = one / (x * x)
    tail = const(1 / 6) - inverse_square * (const(1 / 30) - inverse_square * const(1 / 42))
    result = result + (one + one / (const(2.0) * x) + inverse_square * tail) / x
    return xp.where(reflect, -result, result)


polygamma = pointwise("polygamma(int n, Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)


@polygamma.precheck
def polygamma_precheck(self: TensorImpl, *, n: int) -> None:
    """Torch: TORCH_META_FUNC(polygamma)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


@polygamma.compute
def polygamma_compute(xp: ArrayNamespace, self: Array, *, n: int) -> Array:
    """The n-th derivative of digamma. Torch: polygamma_kernel: digamma for n = 0,
    trigamma for n = 1, (-1)**(n+1) n! zeta(n + 1, x) above."""
    if n == 0:
        return digamma_kernel(xp, self)
    if n == 1:
        return trigamma_kernel(xp, self)
    # torch: the factor and zeta in double (zeta's acc_type on CPU), rounded once.
    wide = xp.astype(self, xp.float64)
    signed_factorial = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1))
    values = signed_factorial * hurwitz_zeta(xp, xp.full_like(wide, float(n + 1)), wide)
    return xp.astype(values, self.dtype)


polygamma.compute(in_float32(polygamma_compute), dtypes=(float16,))


@polygamma.derivative("self")
def polygamma_backward(grad: Tensor, n: int, self: Tensor) -> Tensor:
    # torch: grad * polygamma(n + 1, self)
    return aten.mul.Tensor(grad, aten.polygamma.default(n + 1, self))

polygamma_ = defop("polygamma_(Tensor(a!) self, int n) -> Tensor(a!)")


@polygamma_.kernel(DispatchKey.CompositeExplicitAutograd)
def polygamma_inplace(self: TensorImpl, n: int) -> Any:
    """Torch: polygamma_ in UnaryOps.cpp is at::polygamma_out(self, n, self)."""
    return aten.polygamma.out(n, self, out=self)


# torch: polygamma_ has its own entry (PolygammaBackward1), the functional's formula.
polygamma_.derivative("self")(polygamma_backward)


# --- mvlgamma ----------------------------------------------------------------------------------

# torch: mvlgamma_out computes `self.mvlgamma(p)` and copies it into `out` after its own cast
# check (no safe-casting check of the iterator).
_MVLGAMMA_CONFIG: Final = IterConfig(
    promote_inputs_to_common_dtype=True,
    promote_integer_inputs_to_float=True,
    cast_common_dtype_to_outputs=True,
    check_all_same_dtype=False,
)

mvlgamma = pointwise("mvlgamma(Tensor self, int p) -> Tensor", _MVLGAMMA_CONFIG)


@mvlgamma.precheck
def mvlgamma_precheck(self: TensorImpl, *, p: int) -> None:
    """Torch: mvlgamma_check in UnaryOps.cpp."""
    if self._dtype is bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


@mvlgamma.check
def mvlgamma_check(plan: Plan, *, p: int) -> None:
    """Torch: the can_cast check of mvlgamma_out."""
    from_dtype, to_dtype = plan.common_dtype, plan.output_dtype
    if not can_cast(from_dtype, to_dtype):
        # Differs: torch's text names self's dtype, then the computed one; the check sees
        # only the plan, so it names out's dtype first (the same text when out has self's).
        raise RuntimeError(
            f"mvlgamma: result type {to_dtype.scalar_name} can't be cast to the desired "
            f"output type {from_dtype.scalar_name}"
        )


@mvlgamma.compute
def mvlgamma_compute(xp: ArrayNamespace, self: Array, *, p: int) -> Array:
    """log of the multivariate gamma function of dimension p.

    Torch: mvlgamma in UnaryOps.cpp: sum over j < p of lgamma(x - j/2), plus
    p (p - 1) / 4 log(pi).
    """
    lgamma_fn = special("lgamma")
    total = lgamma_fn(xp, xp.add(self, _constant(xp, (1 - p) / 2, self)))
    for j in range(1, p):
        term = lgamma_fn(xp, xp.add(self, _constant(xp, (1 - p + j) / 2, self)))
        total = xp.add(total, term)
    return xp.add(total, _constant(xp, p * (p - 1) * math.log(math.pi) / 4, self))


mvlgamma.compute(in_float32(mvlgamma_compute), dtypes=(float16,))


@mvlgamma.derivative("self")
def mvlgamma_backward_self(grad: Tensor, self: Tensor, p: int) -> Tensor:
    # torch: mvlgamma_backward(grad, self, p)
    return mvlgamma_backward(grad, self, p)


# --- sinc --------------------------------------------------------------------------------------


def sinc_kernel(xp: ArrayNamespace, self: Array) -> Array:
    """sin(pi x) / (pi x), 1 at 0. Torch: sinc_kernel (the product in opmath_t)."""
    product = xp.multiply(_constant(xp, math.pi, self), self)
    quotient = xp.divide(xp.sin(product), product)
    return xp.where(self == 0, _constant(xp, 1.0, self), quotient)


sinc = unary_float("sinc", sinc_kernel, composed=True)


@sinc.derivative("self")
def sinc_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: sinc_backward(grad, self)
    return sinc_backward(grad, self)
