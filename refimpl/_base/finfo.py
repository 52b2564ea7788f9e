"""Numerical limits of floating and integer dtypes, as `refimpl.finfo` and `refimpl.iinfo`.

Torch: torch.finfo and torch.iinfo (torch/csrc/TypeInfo.cpp), whose values are C++
std::numeric_limits of each type. Here they are computed from each format's bit layout.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
)
from refimpl._base.promotion import get_default_dtype
from refimpl._base.scalars import integral_range


@dataclass(frozen=True, slots=True)
class _FloatFormat:
    """A binary floating-point format: IEEE 754 layout plus C++'s numeric_limits::digits10."""

    bits: int
    exponent_bits: int
    mantissa_bits: int  # stored fraction bits, without the implicit leading 1
    digits10: int  # decimal digits that survive a round trip: floor(mantissa_bits * log10(2))

    @property
    def max_exponent(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def eps(self) -> float:
        return 2.0**-self.mantissa_bits

    @property
    def max(self) -> float:
        # All-ones fraction with the largest finite exponent.
        return (2.0 - 2.0**-self.mantissa_bits) * 2.0**self.max_exponent

    @property
    def smallest_normal(self) -> float:
        return 2.0 ** (1 - self.max_exponent)

    @property
    def resolution(self) -> float:
        # torch: std::pow(10, -digits10) in THPFInfo_resolution; Python's ** calls C pow too.
        return 10.0**-self.digits10


_FLOAT_FORMATS: Final[dict[DType, _FloatFormat]] = {
    float16: _FloatFormat(bits=16, exponent_bits=5, mantissa_bits=10, digits10=3),
    bfloat16: _FloatFormat(bits=16, exponent_bits=8, mantissa_bits=7, digits10=2),
    float32: _FloatFormat(bits=32, exponent_bits=8, mantissa_bits=23, digits10=6),
    float64: _FloatFormat(bits=64, exponent_bits=11, mantissa_bits=52, digits10=15),
}


class _Missing(enum.Enum):
    """The `type` argument was not passed (torch treats that unlike an explicit None)."""

    TOKEN = enum.auto()


_MISSING: Final = _Missing.TOKEN


def _type_name(value: object) -> str:
    return type(value).__name__


def _check_dtype(function: str, value: object) -> DType:
    # torch: the "ScalarType type" check of PythonArgParser
    # (torch/csrc/utils/python_arg_parser.cpp).
    # Differs: torch leaves out "(position 1)" when `type` was passed by keyword.
    if not isinstance(value, DType):
        raise TypeError(
            f"{function}(): argument 'type' (position 1) must be torch.dtype, "
            f"not {_type_name(value)}"
        )
    return value


class _DTypeInfo:
    """What finfo and iinfo share: the dtype they describe, equality, no hash.

    Torch: THPDTypeInfo (torch/csrc/TypeInfo.cpp), the base of torch.finfo and torch.iinfo.
    """

    __slots__ = ("_dtype",)

    _dtype: DType

    @property
    def dtype(self) -> str:
        return self._dtype.name

    def __eq__(self, other: object) -> bool:
        # torch: THPDTypeInfo_compare compares the stored dtypes of finfo and iinfo objects.
        if not isinstance(other, _DTypeInfo):
            return NotImplemented
        return self._dtype is other._dtype

    __hash__ = None  # type: ignore[assignment]  # torch's finfo and iinfo are unhashable


class finfo(_DTypeInfo):
    """The limits of a floating dtype; a complex dtype gives those of its real dtype.

    Torch: torch.finfo. `finfo()` describes the default dtype. Attributes are Python floats
    (`bits` an int, `dtype` the real dtype's name), equal to torch's.
    """

    __slots__ = ("_format",)

    _format: _FloatFormat

    def __init__(self, type: DType | _Missing = _MISSING) -> None:
        if type is _MISSING:
            dtype = get_default_dtype()
        else:
            dtype = _check_dtype("finfo", type)
            if not (dtype.is_floating_point or dtype.is_complex):
                # torch: THPFInfo_pynew names its own type ('torch.finfo') here, not the dtype.
                raise TypeError(
                    "torch.finfo() requires a floating point input type. "
                    "Use torch.iinfo to handle 'torch.finfo'"
                )
        # torch: THPFInfo_New stores c10::toRealValueType(type).
        self._dtype = dtype.to_real()
        self._format = _FLOAT_FORMATS[self._dtype]

    @property
    def bits(self) -> int:
        return self._format.bits

    @property
    def eps(self) -> float:
        """The difference between 1.0 and the next representable number."""
        return self._format.eps

    @property
    def max(self) -> float:
        return self._format.max

    @property
    def min(self) -> float:
        """The most negative finite number (C++ numeric_limits::lowest)."""
        return -self._format.max

    @property
    def smallest_normal(self) -> float:
        return self._format.smallest_normal

    @property
    def tiny(self) -> float:
        """The same as `smallest_normal`."""
        return self._format.smallest_normal

    @property
    def resolution(self) -> float:
        """10 ** -digits10: the decimal resolution of the format."""
        return self._format.resolution

    def __repr__(self) -> str:
        # torch: THPFInfo_str streams doubles with C++'s default format, which is C's %g.
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
            f"tiny={self.tiny:g}, dtype={self.dtype})"
        )

    __str__ = __repr__


class iinfo(_DTypeInfo):
    """The limits of an integer dtype.

    Torch: torch.iinfo. Attributes are Python ints (`dtype` the dtype's name).
    """

    __slots__ = ()

    def __init__(self, type: DType) -> None:
        dtype = _check_dtype("iinfo", type)
        if dtype is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            # torch: THPIInfo_pynew names its own type ('torch.iinfo') here, not the dtype.
            raise TypeError(
                "torch.iinfo() requires an integer input type. "
                "Use torch.finfo to handle 'torch.iinfo'"
            )
        self._dtype = dtype

    @property
    def bits(self) -> int:
        return self._dtype.itemsize * 8

    @property
    def max(self) -> int:
        return integral_range(self._dtype)[1]

    @property
    def min(self) -> int:
        return integral_range(self._dtype)[0]

    def __repr__(self) -> str:
        # torch: THPIInfo_str converts min and max to double before streaming them (%g).
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__
