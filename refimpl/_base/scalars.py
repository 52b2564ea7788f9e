"""Python scalars converted to a dtype's value range, with torch's overflow errors.

Torch: c10::checked_convert and c10::overflows (c10/util/TypeCast.h, c10/util/Half.h), used
when a Python number is written into a tensor (`fill_`, `full`, `x[0] = v`) and for an op's
`alpha`; and c10::static_cast_with_inter_type, the unchecked cast of a wrapped number.
"""

from __future__ import annotations

import math
import struct
from typing import Final

from refimpl._base.dtypes import Category, DType, float64, int64

Scalar = bool | int | float | complex

# torch: the C++ type names in "value cannot be converted to type X without overflow".
_CPP_NAMES: Final[dict[str, str]] = {
    "bool": "bool",
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "complex32": "c10::complex<c10::Half>",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_FLOAT_MAX: Final[dict[str, float]] = {
    "float32": 3.4028234663852886e38,
    "float64": math.inf,
    "complex64": 3.4028234663852886e38,
    "complex128": math.inf,
}


def _overflow(dtype: DType) -> RuntimeError:
    return RuntimeError(
        f"value cannot be converted to type {_CPP_NAMES[dtype.name]} without overflow"
    )


def integral_range(dtype: DType) -> tuple[int, int]:
    """The smallest and largest value of an integral dtype."""
    bits = dtype.itemsize * 8
    if dtype.is_signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def convert_scalar(value: Scalar, dtype: DType) -> Scalar:
    """`value` as the Python value a `dtype` element would hold, or torch's overflow error.

    Integral targets truncate floats in range toward zero; an unsigned target also accepts
    negative integers down to -max, wrapping them as C++ does.
    """
    category = dtype.category
    if category is Category.BOOL:
        return bool(value)
    if category is Category.INTEGRAL:
        if isinstance(value, complex):
            if value.imag != 0:
                raise _overflow(dtype)
            value = value.real
        low, high = integral_range(dtype)
        if isinstance(value, float):
            # torch: c10::overflows for a floating value compares it, before truncation,
            # with the limits as doubles; negative floats never wrap into unsigned types.
            if not math.isfinite(value) or value < float(low) or value > float(high):
                raise _overflow(dtype)
            # float(high) rounds up to 2**63 (2**64): that value passes the check and the
            # x86 conversion wraps it, as torch shows (full((1,), 2.0**63) is -2**63).
            return (int(value) - low) % (high - low + 1) + low
        as_int = int(value)
        if not dtype.is_signed and -high <= as_int < 0:
            return as_int + high + 1
        if as_int < low or as_int > high:
            raise _overflow(dtype)
        return as_int
    limit = _FLOAT_MAX.get(dtype.name, math.inf)
    if category is Category.FLOATING:
        if isinstance(value, complex):
            if value.imag != 0:
                raise _overflow(dtype)
            value = value.real
        as_float = float(value)
        # The 16-bit floats are left to the callers: whether torch checks their range depends
        # on the path (see fill_scalar and checked_convert).
        _check_within(as_float, limit, dtype)
        return as_float
    as_complex = complex(value)
    _check_within(as_complex, limit, dtype)
    return as_complex


def _check_within(value: complex, limit: float, dtype: DType) -> None:
    """Torch's overflow error if a finite part of `value` lies beyond `limit` (infinities and
    NaN convert to any floating dtype)."""
    for part in (value.real, value.imag):
        if math.isfinite(part) and abs(part) > limit:
            raise _overflow(dtype)


# torch: std::numeric_limits<T>::max() of the 16-bit float types, which c10::overflows checks
# as it checks float's; convert_scalar leaves them out (see its float16 note).
_REDUCED_FLOAT_MAX: Final[dict[str, float]] = {
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "complex32": 65504.0,
}


def checked_convert(value: Scalar, dtype: DType) -> Scalar:
    """`value` as a `dtype` element, or torch's overflow error, 16-bit floats included.

    Torch: c10::checked_convert, as Scalar::to<T> applies it (the `alpha` of add and sub).
    """
    converted = convert_scalar(value, dtype)
    limit = _REDUCED_FLOAT_MAX.get(dtype.name)
    if limit is not None and isinstance(converted, float | complex):
        _check_within(converted, limit, dtype)
    return converted


# struct formats that round a double to a narrower IEEE type as a C cast does; struct
# raises OverflowError where the rounded value would be infinite.
_PACK_FORMATS: Final[dict[str, str]] = {
    "float16": "e",
    "float32": "f",
    "complex32": "e",
    "complex64": "f",
}


def _round_bfloat16(value: float) -> float:
    # Round to nearest even on the float32 bits, then keep the top 16 bits.
    if math.isnan(value):
        return value
    bits: int = struct.unpack("<I", struct.pack("<f", _round_float(value, "f")))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    rounded: float = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    return rounded


def _round_float(value: float, fmt: str) -> float:
    try:
        rounded: float = struct.unpack(fmt, struct.pack(fmt, value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return rounded


def _round_part(value: float, dtype: DType) -> float:
    if dtype.name == "bfloat16":
        return _round_bfloat16(value)
    fmt = _PACK_FORMATS.get(dtype.name)
    return value if fmt is None else _round_float(value, fmt)


def cast_scalar(value: Scalar, dtype: DType) -> Scalar:
    """`value` as a `dtype` element by C++ casts: integers wrap, floats round (to inf past
    the range), complex drops its imaginary part for a real dtype; never an error.

    Torch: c10::static_cast_with_inter_type, the cast of a wrapped number into the common
    dtype (`int8_tensor + 200` gives -55, `float32_tensor + 1e300` gives inf), unlike fill_,
    which checks the range.
    """
    category = dtype.category
    if category is Category.BOOL:
        return bool(value)
    if category is Category.INTEGRAL:
        # Wrapped numbers reaching an integral dtype are bool or int: promotion makes a
        # float or complex operand's result floating or complex.
        low, high = integral_range(dtype)
        as_int = int(value.real) if isinstance(value, complex) else int(value)
        return (as_int - low) % (high - low + 1) + low
    as_complex = complex(value)
    if category is Category.FLOATING:
        return _round_part(as_complex.real, dtype)
    return complex(_round_part(as_complex.real, dtype), _round_part(as_complex.imag, dtype))


# Note [Fill overflow checks]
# torch: fill_ (aten/src/ATen/native/Fill.cpp) writes a one-element CPU tensor through
# scalar_fill, which reads the value as double (so only a complex value's imaginary part is
# checked, against "double") and casts it, unchecked, to float16 or bfloat16 (past the range:
# inf); ComplexHalf it converts with the full check. Every other tensor goes through
# fill_kernel with value.to<scalar_t>(), which checks float16 and bfloat16 against their
# range but converts ComplexHalf unchecked. The other dtypes are checked on both paths.
# Found by experiment with torch 2.13: `zeros(2, dtype=float16).fill_(1e6)` raises,
# `zeros(1, dtype=float16).fill_(1e6)` gives inf, and the reverse for complex32.
_REDUCED_REAL: Final = frozenset({"float16", "bfloat16"})


def fill_scalar(value: Scalar, dtype: DType, numel: int) -> Scalar:
    """`value` as the element `fill_` writes into a `dtype` tensor of `numel` elements, or
    torch's overflow error. See Note [Fill overflow checks].

    Torch: fill_ (scalar_fill for one element, fill_kernel otherwise), as used by `full`,
    `ones`, `*_like` and `t[i] = v`.
    """
    name = dtype.name
    if numel == 1:
        if name in _REDUCED_REAL:
            return cast_scalar(convert_scalar(value, float64), dtype)
        return checked_convert(value, dtype)
    if name == "complex32":
        return cast_scalar(value, dtype)
    return checked_convert(value, dtype)


def int_of(value: Scalar, is_floating_point: bool) -> int:
    """`int(t)` of a one-element tensor holding `value`. Torch: THPVariable_integral_fn
    (python_variable_methods.cpp): a floating value converts as Python's int(float) does;
    any other reads the value as int64_t, checked (a complex one needs a zero imaginary part).
    """
    if is_floating_point:
        return int(value.real if isinstance(value, complex) else value)
    return int(convert_scalar(value, int64).real)
