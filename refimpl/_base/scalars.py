"""Python scalars converted to a dtype's value range, with torch's overflow errors.

Torch: c10::checked_convert and c10::overflows (c10/util/TypeCast.h, c10/util/Half.h), used
when a Python number is written into a tensor (`fill_`, `full`, `x[0] = v`).
"""

from __future__ import annotations

import math
from typing import Final

from refimpl._base.dtypes import Category, DType

Scalar = bool | int | float | complex

# torch: the C++ type names in "value cannot be converted to type X without overflow".
_CPP_NAMES: Final[dict[str, str]] = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t",
    "int32": "int", "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double", "complex32": "c10::complex<c10::Half>",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}
_FLOAT_MAX: Final[dict[str, float]] = {
    "float32": 3.4028234663852886e38, "float64": math.inf,
    "complex64": 3.4028234663852886e38, "complex128": math.inf,
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

    Integral targets truncate floats toward zero; an unsigned target also accepts negative
    values down to -max, wrapping them as C++ does.
    """
    category = dtype.category
    if category is Category.BOOL:
        return bool(value)
    if category is Category.INTEGRAL:
        if isinstance(value, complex):
            if value.imag != 0:
                raise _overflow(dtype)
            value = value.real
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _overflow(dtype)
            value = int(value)
        low, high = integral_range(dtype)
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
        # Differs: torch's float16 check depends on the fill path; refimpl rounds to inf.
        if math.isfinite(as_float) and abs(as_float) > limit:
            raise _overflow(dtype)
        return as_float
    as_complex = complex(value)
    for part in (as_complex.real, as_complex.imag):
        if math.isfinite(part) and abs(part) > limit:
            raise _overflow(dtype)
    return as_complex
