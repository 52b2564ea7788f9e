"""Gamma and Dirichlet samples as aten ops: _standard_gamma, _standard_gamma_grad, _sample_dirichlet.

Torch: _s_gamma_cpu, _standard_gamma_grad_cpu and _s_dirichlet_cpu in
aten/src/ATen/native/Distributions.cpp over sample_gamma and standard_gamma_grad_one in
Distributions.h. Each element is a scalar rejection sampler (Marsaglia and Tsang) run in
order, drawing uniform doubles and standard normals (normal_distribution<double>, which takes
and refills the generator's cached second Box-Muller sample) from the generator until it
accepts; refimpl runs the same algorithm in Python floats (the C library's functions through
`math`) on the same draws, so the samples and the generator's state after the call are
torch's. torch computes `alpha` in the tensor's dtype (float for float32: `alpha + 1`,
`alpha - 1.0f / 3.0f`) and the rest in double; so does refimpl.

Differs: for a NaN `alpha`, or one at most -2/3, torch's sampler never accepts (it loops
forever); refimpl raises instead.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.random import Generator
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, empty_tensor, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._distributions_draw import (
    SerialUniforms,
    backend_of,
    generated_out,
    generator_for,
    round_float32,
)
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, not_implemented, registered

aten: Final = namespace("aten")

_GAMMA_TYPES: Final = frozenset({dt.float32, dt.float64})
# torch: std::numeric_limits<scalar_t>::min(), the smallest positive normal number: the
# least sample _s_gamma_cpu returns.
_SMALLEST_NORMAL: Final = {"float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}
# torch: std::nexttoward(scalar_t(1), 0), the largest Dirichlet coordinate.
_BELOW_ONE: Final = {"float32": 0.9999999403953552, "float64": 0.9999999999999999}


# torch: the float literals of sample_gamma, as the double they promote to.
_THIRD_F: Final = round_float32(1.0 / 3.0)
_SQUEEZE_F: Final = round_float32(0.0331)


def _standard_normal(draws: SerialUniforms, gen: Generator) -> float:
    """One normal_distribution<double>(0, 1) sample. Torch: normal_distribution::operator()
    (DistributionsHelper.h): the cached sample if valid, else Box-Muller on two uniform
    doubles, caching r sin(theta)."""
    cached = gen.next_double_normal_sample
    if cached is not None:
        gen.next_double_normal_sample = None
        return cached
    u1, u2 = draws.take(2)
    radius = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen.next_double_normal_sample = radius * math.sin(theta)
    return radius * math.cos(theta)


def sample_gamma(alpha: float, single: bool, draws: SerialUniforms, gen: Generator) -> float:
    """One Gamma(alpha, 1) sample. Torch: sample_gamma (Distributions.h); `single`: alpha is
    a float (scalar_t float), whose own arithmetic rounds to float."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        exponent = round_float32(1.0 / alpha) if single else 1.0 / alpha
        (u,) = draws.take(1)
        scale *= math.pow(1 - u, exponent)
        alpha = round_float32(alpha + 1.0) if single else alpha + 1.0
    d = round_float32(alpha - _THIRD_F) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _standard_normal(draws, gen)
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        (u,) = draws.take(1)
        u = 1 - u
        xx = x * x
        if u < 1.0 - _SQUEEZE_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _gamma_floor(alpha: float) -> int:
    """The least number of uniform draws sample_gamma surely makes for `alpha` (the normal
    may come from the cache)."""
    if alpha == 0:
        return 0
    return 2 if alpha < 1 else 1


def _check_alphas(alphas: list[float]) -> None:
    for alpha in alphas:
        boosted = alpha + 1.0 if alpha < 1.0 else alpha
        if alpha != 0 and not boosted - _THIRD_F > 0:
            raise RuntimeError(
                f"refimpl: the Gamma sampler never accepts a sample for alpha={alpha} "
                "(torch loops forever)"
            )


def _gamma_samples(
    gen: Generator, backend: Any, alphas: list[float], single: bool, floor: float
) -> list[float]:
    """Torch's samples for `alphas` in order, each at least `floor`."""
    _check_alphas(alphas)
    draws = SerialUniforms(gen, backend, [_gamma_floor(a) for a in alphas])
    samples = []
    for i, alpha in enumerate(alphas):
        draws.element = i
        sample = sample_gamma(alpha, single, draws, gen)
        samples.append(max(floor, round_float32(sample) if single else sample))
    return samples


def _values(self: TensorImpl) -> list[float]:
    backend = backend_of(self)
    xp = backend.xp
    flat = xp.reshape(xp.astype(array_of(self), backend_dtype(backend, dt.float64)), (-1,))
    return [float(v) for v in backend.tolist(flat)]


def _new(self: TensorImpl, values: list[float] | None = None, dtype: DType | None = None) -> Any:
    """A contiguous tensor like `self` (of `dtype`), holding `values` (doubles, rounded to
    the dtype as static_cast does) if given."""
    dtype = self._dtype if dtype is None else dtype
    result = empty_tensor(self._size, dtype, self._storage.device, self._storage.backend)
    if values is not None and has_data(result):
        backend = backend_of(result)
        xp = backend.xp
        array = xp.asarray(values, dtype=backend_dtype(backend, dt.float64))
        array = xp.astype(array, backend_dtype(backend, dtype))
        write_array(result, xp.reshape(array, self._size))
    return result


# --- _standard_gamma ---------------------------------------------------------------------------

standard_gamma = defop("_standard_gamma(Tensor self, Generator? generator=None) -> Tensor")


@registered(standard_gamma)
def standard_gamma_kernel(self: TensorImpl, generator: Generator | None) -> Any:
    """Gamma(alpha, 1) samples for the rates of `self`. Torch: _s_gamma_cpu: per element in
    order, max(numeric_limits<scalar_t>::min(), scalar_t(sample_gamma(alpha)))."""
    if self._dtype not in _GAMMA_TYPES:
        raise not_implemented("gamma_cpu", self._dtype)
    if not has_data(self) or geometry.numel(self._size) == 0:
        return _new(self)
    gen = generator_for(self, generator)
    single = self._dtype is dt.float32
    samples = _gamma_samples(
        gen, backend_of(self), _values(self), single, _SMALLEST_NORMAL[self._dtype.name]
    )
    return _new(self, samples)


@standard_gamma.derivative("self")
def standard_gamma_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: grad * _standard_gamma_grad(self, result)
    return aten.mul.Tensor(grad, aten._standard_gamma_grad.default(self, result))


standard_gamma_out = defop(
    "_standard_gamma.out(Tensor self, Generator? generator=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@standard_gamma_out.kernel(CEA)
def standard_gamma_out_kernel(
    self: TensorImpl, generator: Generator | None, *, out: TensorImpl
) -> Any:
    return generated_out(aten._standard_gamma.default(self, generator), out)


# --- _standard_gamma_grad ----------------------------------------------------------------------

_DIGAMMA_ASYMPTOTIC: Final = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
# torch: coef_uv of standard_gamma_grad_one's bivariate rational approximation.
_COEF_UV: Final = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
     0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113,
     -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07),
)  # fmt: skip


def _digamma_one(x: float) -> float:
    """Torch: digamma_one<double, double> (Distributions.h, Cephes' psi)."""
    if x == 0:
        return math.inf
    additional = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        additional = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764 + additional
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        polynomial = 0.0
        for coefficient in _DIGAMMA_ASYMPTOTIC:
            polynomial = polynomial * z + coefficient
        y = z * polynomial
    return result + math.log(x) - (0.5 / x) - y + additional


def standard_gamma_grad_one(alpha: float, x: float) -> float:
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha). Torch: standard_gamma_grad_one<scalar_t,
    double> (Distributions.h): a Taylor series for small x, Rice's saddle point expansion for
    large alpha, else a bivariate rational approximation."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = _pow(x, alpha)
        gamma_pdf = _pow(x, alpha - 1) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        log_x = math.log(x) if x > 0 else -math.inf
        gamma_cdf_alpha = (log_x - _digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
        result = _divide(-gamma_cdf_alpha, gamma_pdf)
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (
                1440 * (alpha * alpha)
                + 6 * x * (53 - 120 * x)
                - 65 * x * x / alpha
                + alpha * (107 + 3600 * x)
            )
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = _pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / (
            (alpha - x) * (alpha - x)
        )
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        numer = x * term1
        return -stirling * numer / denom
    u = math.log(x / alpha)
    v = math.log(alpha)
    coef_v = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
    q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
    return _exp(p / q)


def _pow(base: float, exponent: float) -> float:
    """C pow (inf and NaN where Python's raises)."""
    try:
        return math.pow(base, exponent)
    except (OverflowError, ValueError):
        return math.inf if base == 0 or abs(base) > 1 else math.nan


def _exp(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _divide(a: float, b: float) -> float:
    """C division (a zero divisor gives an infinity or NaN where Python's raises)."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


standard_gamma_grad = defop("_standard_gamma_grad(Tensor self, Tensor output) -> Tensor")


@registered(standard_gamma_grad)
def standard_gamma_grad_kernel(self: TensorImpl, output: TensorImpl) -> Any:
    """Torch: _standard_gamma_grad_cpu: standard_gamma_grad_one per element, in double, cast
    to the dtype (self's size; output broadcast to it)."""
    if self._dtype not in _GAMMA_TYPES:
        raise not_implemented("_standard_gamma_grad_cpu", self._dtype)
    if not has_data(self) or geometry.numel(self._size) == 0:
        return _new(self)
    expanded = aten.expand.default(output, list(self._size))
    grads = [standard_gamma_grad_one(a, x) for a, x in zip(_values(self), _values(expanded))]
    return _new(self, grads)


standard_gamma_grad_out = defop(
    "_standard_gamma_grad.out(Tensor self, Tensor output, *, Tensor(a!) out) -> Tensor(a!)"
)


@standard_gamma_grad_out.kernel(CEA)
def standard_gamma_grad_out_kernel(self: TensorImpl, output: TensorImpl, *, out: TensorImpl) -> Any:
    return generated_out(aten._standard_gamma_grad.default(self, output), out)


# --- _sample_dirichlet -------------------------------------------------------------------------

sample_dirichlet = defop("_sample_dirichlet(Tensor self, Generator? generator=None) -> Tensor")


@registered(sample_dirichlet)
def sample_dirichlet_kernel(self: TensorImpl, generator: Generator | None) -> Any:
    """Dirichlet samples over the last dim. Torch: _s_dirichlet_cpu: Gamma samples in double
    (at least DBL_MIN), divided by their sum over the last dim, cast to the dtype and
    clamped to [numeric_limits::min(), nexttoward(1, 0)]."""
    if self._dtype not in _GAMMA_TYPES:
        raise not_implemented("dirichlet", self._dtype)
    if not has_data(self) or geometry.numel(self._size) == 0:
        return _new(self)
    backend = backend_of(self)
    xp = backend.xp
    gen = generator_for(self, generator)
    samples = _gamma_samples(gen, backend, _values(self), False, _SMALLEST_NORMAL["float64"])
    gamma = _new(self, samples, dt.float64)
    total = aten.sum.dim_IntList(gamma, [-1], True) if self._size else gamma
    ratio = xp.astype(
        array_of(gamma) / array_of(aten.expand.default(total, list(self._size))),
        backend_dtype(backend, self._dtype),
    )
    low = xp.asarray(_SMALLEST_NORMAL[self._dtype.name], dtype=ratio.dtype)
    high = xp.asarray(_BELOW_ONE[self._dtype.name], dtype=ratio.dtype)
    result = _new(self)
    write_array(result, xp.minimum(high, xp.maximum(low, ratio)))
    return result


sample_dirichlet_out = defop(
    "_sample_dirichlet.out(Tensor self, Generator? generator=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@sample_dirichlet_out.kernel(CEA)
def sample_dirichlet_out_kernel(
    self: TensorImpl, generator: Generator | None, *, out: TensorImpl
) -> Any:
    return generated_out(aten._sample_dirichlet.default(self, generator), out)
