"""Drawing torch's CPU distributions: the generator of a call, the order in which a kernel fills
its output, torch's transforms from uniform draws to each distribution, and the samplers that
draw a varying number of words per element (Poisson, binomial).

Torch: aten/src/ATen/core/DistributionsHelper.h and TransformationHelper.h (the transforms),
aten/src/ATen/native/cpu/DistributionTemplates.h (the serial CPU kernels: each element draws
from the generator in TensorIterator's order), aten/src/ATen/native/Distributions.cpp
(sample_poisson, sample_binomial). The words come from refimpl/core/random.py's generator, so
after `manual_seed(s)` the values are torch's.

Note [Fused multiply-add in the transforms]
DistributionKernels.cpp is compiled once per CPU capability (AVX2, AVX-512), with FMA
available, and GCC contracts `a * b + c` into one fused multiply-add: torch's
transformation::normal (`z * std + mean`, so log_normal_) and transformation::cauchy
(`median + sigma * tan(...)`) round once, not twice (measured: 1000 of 1000 float64 log-normal
values equal the fused formula on torch's draws, 958 the unfused one). The standard has no
fma, so `fma` (refimpl/ops/_exact.py, shared with lerp) computes it exactly from the
standard's arithmetic (Dekker's product and Knuth's sum).

Note [Transcendental functions of the library]
torch's scalar kernels call the C library's log, log1p, tan, exp on doubles. The library's
own functions (NumPy's SIMD/SVML loops on an AVX-512 machine) can differ from glibc's in the
last bit (measured: NumPy's float64 log1p differs from glibc's on 7% of uniform draws, and
the product in exponential_ then by up to two ulps). So the transforms ask the backend for
the C functions (the `libm_log`, `libm_log1p`, `libm_exp`, `libm_tan` extensions; NumPy's
call Python's math module, which calls the C library), and refimpl's values are torch's bit for bit; a
backend without them (array_api_strict, CuPy) gets the standard's functions, and float64
values through them within two ulps of torch's (float32 and narrower almost always equal,
the double result being rounded).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import DType
from refimpl.core import layout
from refimpl.core.backend import BY_NAMESPACE, Array, Backend
from refimpl.core.random import DEFAULT_GENERATORS, Generator, uniform_real
from refimpl.core.tensor import TensorImpl, backend_dtype
from refimpl.dispatch.overloads import namespace
from refimpl.ops._exact import fma
from refimpl.ops._outputs import resize_output

Shape = tuple[int, ...]

_ATEN: Final = namespace("aten")


def generator_for(self: TensorImpl, generator: Generator | None) -> Generator:
    """The generator a kernel on `self`'s device draws from.

    Torch: get_generator_or_default / check_generator (aten/src/ATen/core/DistributionsHelper.h,
    CPUGeneratorImpl.h): the given one, which must be of the tensor's device type, else the
    device's default generator.
    """
    device_type = self._storage.device.type
    if generator is None:
        return DEFAULT_GENERATORS.get(device_type)
    if generator.device.type != device_type:
        raise RuntimeError(
            f"Expected a '{device_type}' device type for generator but found "
            f"'{generator.device.type}'"
        )
    return generator


def backend_of(self: TensorImpl) -> Backend:
    backend = self._storage.backend
    assert backend is not None  # callers check has_data first
    return backend


def clone_then(inplace: Any, self: TensorImpl, *args: Any, **kwargs: Any) -> Any:
    """Torch: the functional variant torchgen writes for an in-place op: clone, then the
    in-place op on the clone."""
    return inplace(_ATEN.clone.default(self), *args, **kwargs)


def generated_out(result: TensorImpl, out: TensorImpl) -> Any:
    """Torch: the out= form torchgen writes over a functional op: resize_out_helper (torch's
    resize_output, with its warning), then copy_ (any dtype `out` takes the values)."""
    resize_output(out, result._size)
    return _ATEN.copy_.default(out, result)


# --- the order a serial kernel fills its output ------------------------------------------------


def fill_axes(self: TensorImpl, others: Sequence[TensorImpl] = ()) -> Shape:
    """The axes of `self`, slowest first, in the order torch's serial kernel visits them.

    Torch: cpu_serial_kernel over a TensorIterator whose output is `self` (and inputs
    `others`, broadcast to it): reorder_dimensions sorts the dims by the operands' strides,
    output first, so a transposed or permuted tensor is filled in memory order.
    """
    size = self._size
    operand_strides = [tuple(s * self._dtype.itemsize for s in self._stride)]
    for other in others:
        strides = layout.broadcast_strides(other._size, other._stride, size)
        operand_strides.append(tuple(s * other._dtype.itemsize for s in strides))
    fastest_first = layout.iteration_order(size, operand_strides)
    return tuple(reversed(fastest_first))


def in_fill_order(xp: Any, values: Array, axes: Shape) -> Array:
    """`values` (shaped like the tensor) as a 1-D array in fill order."""
    if len(axes) > 1 and list(axes) != sorted(axes):
        values = xp.permute_dims(values, axes)
    return xp.reshape(values, (-1,))


def from_fill_order(xp: Any, flat: Array, size: Shape, axes: Shape) -> Array:
    """The 1-D `flat` (values in fill order) as an array shaped `size`."""
    if len(axes) <= 1 or list(axes) == sorted(axes):
        return xp.reshape(flat, size)
    permuted = xp.reshape(flat, tuple(size[a] for a in axes))
    inverse = tuple(axes.index(d) for d in range(len(axes)))
    return xp.permute_dims(permuted, inverse)


# --- casts as static_cast does them ------------------------------------------------------------


def cast_from_double(backend: Backend, values: Array, dtype: DType) -> Array:
    """float64 `values` as `dtype`, the way torch's kernels cast a double sample.

    Torch: static_cast<scalar_t>(double): c10::Half and c10::BFloat16 are built from a float,
    so a double is first rounded to float; an integer takes the truncated value; bool is
    `value != 0`.
    """
    xp = backend.xp
    if dtype is dt.float64:
        return values
    if dtype is dt.bool_:
        return values != 0
    if dtype.is_floating_point:
        values = xp.astype(values, backend_dtype(backend, dt.float32))
        return values if dtype is dt.float32 else xp.astype(values, backend_dtype(backend, dtype))
    # Integers: the truncated value through int64 (a narrower type keeps the low bits, as
    # the x86 conversion through a 32- or 64-bit register does).
    values = xp.astype(xp.trunc(values), backend_dtype(backend, dt.int64))
    return values if dtype is dt.int64 else xp.astype(values, backend_dtype(backend, dtype))


# --- transforms ------------------------------------------------------------------------------


def libm_function(xp: Any, name: str) -> Callable[[Array], Array]:
    """The C library's `name` (log, log1p, exp, tan) on float64 arrays where the backend
    supplies it, else the standard's. See Note [Transcendental functions of the library]."""
    backend = BY_NAMESPACE.get(id(xp))
    supplied = None if backend is None else backend.extensions.get(f"libm_{name}")
    if supplied is not None:
        return supplied
    return getattr(xp, name)  # type: ignore[no-any-return]


def _double(xp: Any, value: float, like: Array) -> Array:
    return xp.asarray(value, dtype=like.dtype)


def uniform_doubles(gen: Generator, backend: Backend, n: int) -> Array:
    """`n` draws of uniform_real_distribution<double>(0, 1): one random64() each."""
    return uniform_real(gen, backend, n, dt.float64)


def uniform_floats(gen: Generator, backend: Backend, n: int) -> Array:
    """`n` draws of uniform_real_distribution<float>(0, 1): one random() each, as float32."""
    return uniform_real(gen, backend, n, dt.float32)


def exponential_transform(xp: Any, u: Array, lambd: float) -> Array:
    """Torch: transformation::exponential on CPU: `-1 / lambda * log1p(-u)` in double."""
    return _double(xp, -1.0 / lambd, u) * libm_function(xp, "log1p")(-u)


def geometric_transform(xp: Any, u: Array, p: float) -> Array:
    """Torch: transformation::geometric: `ceil(log(u) / log1p(-p))` in double."""
    return xp.ceil(libm_function(xp, "log")(u) / _double(xp, math.log1p(-p), u))


def cauchy_transform(xp: Any, u: Array, median: float, sigma: float) -> Array:
    """Torch: transformation::cauchy: `median + sigma * tan(pi * (u - 0.5))` in double, the
    multiply-add fused (Note [Fused multiply-add in the transforms])."""
    tangent = libm_function(xp, "tan")(_double(xp, math.pi, u) * (u - _double(xp, 0.5, u)))
    return fma(xp, _double(xp, sigma, u), tangent, _double(xp, median, u))


def normal_transform(xp: Any, z: Array, mean: float, std: float) -> Array:
    """Torch: transformation::normal: `z * std + mean`, fused (see the Note)."""
    if mean == 0.0 and std == 1.0:
        return z
    return fma(xp, z, _double(xp, std, z), _double(xp, mean, z))


# --- samplers drawing a varying number of words per element ------------------------------------


class SerialUniforms:
    """Uniform doubles drawn on demand for a scalar sampler, never more than it uses.

    Torch's sample_poisson / sample_binomial draw uniform_real_distribution<double> samples
    one at a time until they accept. refimpl draws them in blocks; a block is sized by the
    least the remaining elements can still use (`floor` per element), so the generator ends
    exactly where torch's does.
    """

    __slots__ = ("_backend", "_buffer", "_floors", "_gen", "_position", "element")

    def __init__(self, gen: Generator, backend: Backend, floors: Sequence[int]) -> None:
        self._gen = gen
        self._backend = backend
        # _floors[i]: the least number of draws elements i, i+1, ... use in all.
        running = 0
        suffix = [0] * (len(floors) + 1)
        for i in range(len(floors) - 1, -1, -1):
            running += floors[i]
            suffix[i] = running
        self._floors = suffix
        self._buffer: list[float] = []
        self._position = 0
        self.element = 0

    def take(self, count: int) -> list[float]:
        """The next `count` draws for the current element (`count` it surely uses)."""
        available = len(self._buffer) - self._position
        if available < count:
            block = count - available + self._floors[self.element + 1]
            drawn = uniform_doubles(self._gen, self._backend, block)
            self._buffer = self._buffer[self._position :] + list(self._backend.tolist(drawn))
            self._position = 0
        start = self._position
        self._position += count
        return self._buffer[start : self._position]


def sample_poisson(lam: float, draws: SerialUniforms) -> int:
    """One Poisson sample. Torch: sample_poisson (aten/src/ATen/native/Distributions.cpp):
    Hörmann's transformed rejection (PTRS) for rate >= 10, else products of uniforms."""
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            first, v = draws.take(2)
            u = first - 0.5
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                -lam + k * loglam - math.lgamma(k + 1.0)
            ):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    count = 0
    product = 1.0
    while True:
        (u,) = draws.take(1)
        product *= u
        if product > enlam:
            count += 1
        else:
            return count


def poisson_floor(lam: float) -> int:
    """The least number of draws sample_poisson uses for `lam`."""
    if lam >= 10:
        return 2
    return 0 if lam == 0 else 1


def round_float32(value: float) -> float:
    """`value` rounded to float32: the result of a float expression in torch's C++."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def c_log(value: float) -> float:
    """C log (-inf at 0, NaN below, where Python's raises)."""
    if value > 0:
        return math.log(value)
    return -math.inf if value == 0 else math.nan


def _stirling_approx_tail(k: float) -> float:
    """Torch: stirling_approx_tail<double> (Distributions.h)."""
    if k <= 9:
        return _STIRLING_TAILS[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_STIRLING_TAILS: Final = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _binomial_inversion(count: float, prob: float, single: bool, draws: SerialUniforms) -> float:
    """Torch: binomial_inversion<scalar_t, double>: geometric jumps until they pass count.
    For float, `log1p(-prob)` is the float function (glibc's log1pf; here the double
    result rounded to float)."""
    logprob = round_float32(math.log1p(-prob)) if single else math.log1p(-prob)
    geom_sum = 0.0
    num_geom = 0.0
    while True:
        (u,) = draws.take(1)
        ratio = c_log(u) / logprob
        geom_sum += math.ceil(ratio) if math.isfinite(ratio) else ratio
        if geom_sum > count:
            return num_geom
        num_geom = num_geom + 1


def _btrs(count: float, prob: float, single: bool, draws: SerialUniforms) -> float:
    """Torch: btrs<scalar_t, double> (Hörmann's transformed rejection with squeeze), with
    scalar_t arithmetic rounded to float where `single`."""
    s = round_float32 if single else float
    stddev = math.sqrt(s(s(count * prob) * s(1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = s(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = s(prob / s(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(math.floor(s(s(count + 1) * prob)))
    while True:
        first, v = draws.take(2)
        u = first - 0.5
        us = 0.5 - abs(u)
        k = s(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = c_log(v * alpha / (a / (us * us) + b))
        rest = s(s(count - k) + 1)
        upperbound = (
            (m + 0.5) * c_log((m + 1) / (r * (count - m + 1)))
            + s(count + 1) * c_log((count - m + 1) / rest)
            + (k + 0.5) * c_log(r * rest / s(k + 1))
            + _stirling_approx_tail(m)
            + _stirling_approx_tail(count - m)
            - _stirling_approx_tail(k)
            - _stirling_approx_tail(s(count - k))
        )
        if v <= upperbound:
            return k


def sample_binomial(count: float, prob: float, single: bool, draws: SerialUniforms) -> float:
    """One Binomial(count, prob) sample. Torch: sample_binomial<scalar_t, double>
    (Distributions.h): BTRS where count * p >= 10 (p the smaller of prob and 1 - prob), else
    inversion; NaN for a NaN prob."""
    s = round_float32 if single else float
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if s(count * prob) >= 10.0:
            return _btrs(count, prob, single, draws)
        return _binomial_inversion(count, prob, single, draws)
    if prob > 0.5:
        qprob = s(1.0 - prob)
        if s(count * qprob) >= 10.0:
            return s(count - _btrs(count, qprob, single, draws))
        return s(count - _binomial_inversion(count, qprob, single, draws))
    return math.nan


def binomial_floor(count: float, prob: float, single: bool) -> int:
    """The least number of draws sample_binomial uses."""
    if not (count > 0.0 and 0.0 < prob < 1.0):
        return 0
    s = round_float32 if single else float
    smaller = prob if prob <= 0.5 else s(1.0 - prob)
    return 2 if s(count * smaller) >= 10.0 else 1


def serial_samples(
    gen: Generator,
    backend: Backend,
    params: Sequence[tuple[float, ...]],
    sample: Callable[..., float],
    floor: Callable[..., int],
) -> list[float]:
    """One sample per parameter tuple, in order, each `sample(*params, draws)`."""
    draws = SerialUniforms(gen, backend, [floor(*p) for p in params])
    out = []
    for i, p in enumerate(params):
        draws.element = i
        out.append(sample(*p, draws))
    return out
