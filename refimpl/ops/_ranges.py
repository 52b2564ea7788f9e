"""The values of `arange`, `linspace` and `logspace`, rounded as torch's CPU kernels round them.

Torch: arange_out / linspace_out / logspace_out (aten/src/ATen/native/RangeFactories.cpp) and
arange_kernel / linspace_kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp).

See Note [Range rounding]: the kernels are compiled with fused multiply-add, and arange's is
vectorized, so `start + step * i` is rounded once (an FMA), and inside each SIMD vector of
arange from that vector's first element. refimpl reproduces both, so the values are torch's
bit for bit (checked against torch in conformance/test_foundation_fixes.py).
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import DType
from refimpl._base.scalars import cast_scalar, checked_convert, convert_scalar
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import backend_dtype

# Note [Range rounding]
# torch's CPU kernels are built with -mfma for AVX2, so `a + b * c` in double (or float) is
# one fused multiply-add, rounded once; refimpl emulates it (`_fma`). arange's kernel is also
# vectorized: the output is written two SIMD vectors at a time, each vector computed as
# Vectorized<T>::arange(base, step), base = T(start + step * i0) for its first index i0 and
# element k = T(base + k * step); the tail that does not fill two vectors is computed
# element by element. A vector holds 32 bytes (AVX2, and the default build).
# Differs: on AVX-512 CPUs torch's vectors hold 64 bytes, and above 32768 elements torch
# splits the range over threads, each starting its own vectors; there float arange may differ
# from torch's in the last bit.
_VECTOR_BYTES: Final = 32
_SPLIT: Final = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant for doubles


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """Torch's error for a dtype a kernel is not dispatched for (AT_DISPATCH)."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


def _fma(xp: Any, a: Array, b: Array, c: Array) -> Array:
    """`a * b + c` in float64, rounded once (as a hardware FMA), by error-free transforms.

    The product is split exactly into `p + e` (Dekker), the sum `p + c` into `s + t` (Knuth);
    `s + (t + e)` is then the correctly rounded result except in rare double-rounding ties.
    """
    p = a * b
    a_big, b_big = a * _SPLIT, b * _SPLIT
    a_hi = a_big - (a_big - a)
    b_hi = b_big - (b_big - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    shift = s - p
    t = (p - (s - shift)) + (c - shift)
    fused = s + (t + e)
    # Where the product overflows or a value is not finite, the plain result is the FMA's.
    return xp.where(xp.isfinite(fused), fused, p + c)


def _fma_in(xp: Any, acc: DType, a: Array, b: Array, c: Array) -> Array:
    """An FMA in the accumulate type `acc` (float64 arrays in, float64 arrays out)."""
    if acc is dt.float64:
        return _fma(xp, a, b, c)
    # float: the exact product fits a double; the double sum is rounded to float.
    return xp.astype(xp.astype(a * b + c, xp.float32), xp.float64)


# --- arange ----------------------------------------------------------------------------------


def accumulate_type(dtype: DType) -> DType:
    # torch: at::acc_type<scalar_t, /*is_cuda=*/false>: int64 for integers, float for the
    # 16-bit floats, double for float and double.
    if dtype.category is dt.Category.INTEGRAL:
        return dt.int64
    return dt.float32 if dtype.itemsize == 2 else dt.float64


def arange_size(start: Any, end: Any, step: Any, dtype: DType) -> tuple[int, Any, Any]:
    """The length of `arange(start, end, step)` in `dtype`, and start and step in its
    accumulate type, with torch's errors.

    Torch: arange_out. The size is ceil((end - start) / step) in double from the arguments as
    given; for int64 it is computed in integers from the truncated arguments.
    """
    if dtype.category in (dt.Category.BOOL, dt.Category.COMPLEX):
        raise not_implemented("arange_cpu", dtype)
    d_start, d_end, d_step = float(start), float(end), float(step)
    if d_step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(d_start) and math.isfinite(d_end)):
        raise RuntimeError(f"unsupported range: {cpp_number(start)} -> {cpp_number(end)}")
    if not ((d_step > 0 and d_end >= d_start) or (d_step < 0 and d_end <= d_start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    acc = accumulate_type(dtype)
    x_start, x_end, x_step = (to_acc(v, acc) for v in (start, end, step))
    if dtype is dt.int64:
        if x_step == 0:
            # torch: the integer size below divides by the truncated step.
            raise ValueError("step must be nonzero")
        sign = 1 if x_step > 0 else -1
        numerator = x_end - x_start + x_step - sign
        quotient = abs(numerator) // abs(x_step)
        size = quotient if (numerator >= 0) == (x_step > 0) else -quotient
    else:
        quotient_d = (d_end - d_start) / d_step
        if not quotient_d <= 2.0**63:
            raise RuntimeError("invalid size, possible overflow?")
        size = math.ceil(quotient_d)
    if size < 0 or size > 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    return size, x_start, x_step


def to_acc(value: Any, acc: DType) -> Any:
    # torch: Scalar::to<accscalar_t>, a checked conversion (then rounded to float for float).
    if acc is dt.int64:
        return convert_scalar(value, dt.int64)
    return cast_scalar(checked_convert(value, acc), acc)


def cpp_number(value: Any) -> str:
    # How C++ streams a double: integral values without ".0", inf/nan bare.
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def arange_array(backend: Backend, size: int, start: Any, step: Any, dtype: DType) -> Array:
    """`size` values `start + i * step` in `dtype`, as torch's arange_kernel computes them.

    See Note [Range rounding].
    """
    xp = backend.xp
    acc = accumulate_type(dtype)
    if acc is dt.int64:
        index = xp.arange(size, dtype=xp.int64)
        values = xp.asarray(start, dtype=xp.int64) + xp.asarray(step, dtype=xp.int64) * index
        return xp.astype(values, backend_dtype(backend, dtype))
    target = backend_dtype(backend, dtype)
    width = _VECTOR_BYTES // dtype.itemsize
    index = xp.arange(size, dtype=xp.float64)
    start_a = xp.asarray(float(start), dtype=xp.float64)
    step_a = xp.asarray(float(step), dtype=xp.float64)
    # The elements computed one at a time (the tail).
    single = _fma_in(xp, acc, step_a, index, start_a)
    # The elements of vectors: from the vector's first element, rounded to the output dtype.
    first = xp.floor(index / width) * width
    base = xp.astype(xp.astype(_fma_in(xp, acc, step_a, first, start_a), target), xp.float64)
    vector = _fma_in(xp, acc, index - first, step_a, base)
    vectorized_end = size - size % (2 * width)
    return xp.astype(xp.where(index < vectorized_end, vector, single), target)


def _to_dtype(value: Any, dtype: DType) -> Any:
    # torch: Scalar::to<scalar_t>, checked, and rounded to the dtype (wrapped for unsigned).
    return cast_scalar(checked_convert(value, dtype), dtype)


# --- linspace --------------------------------------------------------------------------------


def linspace_array(backend: Backend, start: Any, end: Any, steps: int, dtype: DType) -> Array:
    """`steps` values from `start` to `end`, as torch's linspace_kernel computes them.

    Torch: the first half is start + step * i, the second end - step * (steps - 1 - i), with
    step = (end - start) / (steps - 1) in the output dtype (double for integers), and start
    and end first converted to the output dtype with torch's overflow check.
    """
    xp = backend.xp
    category = dtype.category
    if category is dt.Category.BOOL:
        raise not_implemented("linspace_cpu", dtype)
    target = backend_dtype(backend, dtype)
    first, last = _to_dtype(start, dtype), _to_dtype(end, dtype)
    index = xp.arange(steps, dtype=xp.int64)
    front = index < steps // 2
    if category is dt.Category.COMPLEX:
        real = _linspace_real(xp, complex(first).real, complex(last).real, steps, front, dtype)
        imag = _linspace_real(xp, complex(first).imag, complex(last).imag, steps, front, dtype)
        return xp.astype(real, target) + xp.astype(imag, target) * 1j
    if dtype.is_floating_point and dtype.itemsize == 2:
        return _linspace_half(xp, target, float(first), float(last), steps, front)
    values = _linspace_real(xp, first, last, steps, front, dtype)
    return xp.astype(values, target)


def _linspace_real(xp: Any, first: Any, last: Any, steps: int, front: Array, dtype: DType) -> Array:
    """linspace's values (float64 arrays) for a real dtype or one part of a complex one."""
    integral = dtype.category is dt.Category.INTEGRAL
    real = dtype.to_real() if dtype.is_complex else dtype
    f64 = xp.float64
    if integral or real is dt.float64:
        step = (float(last) - float(first)) / (steps - 1)
        acc = dt.float64
    else:
        # float: (end - start) and the division are rounded to float.
        f32 = xp.float32
        diff = xp.asarray(first, dtype=f32)
        diff = xp.asarray(last, dtype=f32) - diff
        step = float(diff / xp.asarray(steps - 1, dtype=f32))
        acc = dt.float32
    i = xp.astype(xp.arange(steps, dtype=xp.int64), f64)
    step_a = xp.asarray(step, dtype=f64)
    forward = _fma_in(xp, acc, step_a, i, xp.asarray(float(first), dtype=f64))
    backward = _fma_in(xp, acc, -step_a, (steps - 1) - i, xp.asarray(float(last), dtype=f64))
    values = xp.where(front, forward, backward)
    if integral:
        # torch: the double result converts to the integer type by truncation.
        return xp.astype(xp.trunc(values), xp.int64)
    return values


def _linspace_half(
    xp: Any, target: Any, first: float, last: float, steps: int, front: Array
) -> Array:
    # torch: step_t is c10::Half, whose every operation computes in float and rounds to Half;
    # NumPy's float16 arithmetic rounds the same way.
    start_h, end_h = xp.asarray(first, dtype=target), xp.asarray(last, dtype=target)
    step = (end_h - start_h) / xp.asarray(steps - 1, dtype=target)
    i = xp.arange(steps, dtype=xp.int64)
    forward = start_h + step * xp.astype(i, target)
    backward = end_h - step * xp.astype((steps - 1) - i, target)
    return xp.where(front, forward, backward)


# --- logspace --------------------------------------------------------------------------------


def logspace_array(
    backend: Backend, start: Any, end: Any, steps: int, base: float, dtype: DType
) -> Array:
    """`base ** e` for linspace-like exponents `e`, as torch's logspace_out computes them.

    Torch: for a real dtype the exponents are start + step * i (and end - step * (steps - 1 - i))
    in double, not fused, with step = double(end - start) / (steps - 1) from start and end converted to
    the dtype, and the power is taken in double (C pow); a complex dtype computes in its own
    type.
    """
    xp = backend.xp
    if dtype.category is dt.Category.BOOL:
        raise not_implemented("logspace_cpu", dtype)
    target = backend_dtype(backend, dtype)
    if dtype.is_complex:
        exponents = linspace_array(backend, start, end, steps, dtype)
        return xp.astype(xp.pow(xp.asarray(complex(base), dtype=target), exponents), target)
    first, last = _to_dtype(start, dtype), _to_dtype(end, dtype)
    # torch: end - start is computed in the dtype itself (rounded for floats, exact for ints).
    difference = cast_scalar(last - first, dtype) if dtype.is_floating_point else last - first
    step = xp.asarray(difference / (steps - 1), dtype=xp.float64)
    i = xp.astype(xp.arange(steps, dtype=xp.int64), xp.float64)
    # Unlike linspace's, these sums are not fused (torch's values show it).
    forward = float(first) + step * i
    backward = float(last) - step * ((steps - 1) - i)
    exponents = xp.where(i < steps // 2, forward, backward)
    # torch: std::pow per element, the C library's (NumPy's vector loops round differently);
    # a backend without the libm_pow extension gives the standard's pow.
    power = backend.extensions.get("libm_pow", xp.pow)
    values = power(xp.asarray(float(base), dtype=xp.float64), exponents)
    if dtype.category is dt.Category.INTEGRAL:
        values = xp.trunc(values)
    return xp.astype(values, target)
