"""The dtypes refimpl knows, as `refimpl.<name>` objects with torch's attributes.

Torch: torch.dtype (c10/core/ScalarType.h). Promotion rules live in `_base/promotion.py`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final


class Category(enum.IntEnum):
    """Promotion categories, ordered: bool < integral < floating < complex."""

    BOOL = 0
    INTEGRAL = 1
    FLOATING = 2
    COMPLEX = 3


@dataclass(frozen=True, slots=True, eq=False)
class DType:
    """A tensor element type, compared by identity like torch.dtype.

    Torch: torch.dtype. `name` is the attribute name (`float32`), `scalar_name` the C++
    ScalarType name used in error messages (`Float`), `abbr` torch's short name (`f32`).
    """

    name: str
    scalar_name: str
    abbr: str
    itemsize: int
    category: Category
    is_signed: bool

    @property
    def is_floating_point(self) -> bool:
        return self.category is Category.FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category is Category.COMPLEX

    def to_real(self) -> DType:
        """The real dtype of a complex dtype; other dtypes map to themselves.

        Torch: torch.dtype.to_real.
        """
        return _TO_REAL.get(self, self)

    def to_complex(self) -> DType:
        """The complex dtype with this dtype's precision.

        Torch: torch.dtype.to_complex; integral and bool dtypes have none.
        """
        if self.is_complex:
            return self
        if self in _TO_COMPLEX:
            return _TO_COMPLEX[self]
        raise RuntimeError(f"Unknown Complex ScalarType for {self.scalar_name}")

    def __repr__(self) -> str:
        return f"refimpl.{self.name}"

    def __str__(self) -> str:
        return f"refimpl.{self.name}"

    def __reduce__(self) -> str:
        # Pickle by name so unpickling returns the singleton.
        return self.name


bool_: Final = DType("bool", "Bool", "b8", 1, Category.BOOL, False)
uint8: Final = DType("uint8", "Byte", "u8", 1, Category.INTEGRAL, False)
int8: Final = DType("int8", "Char", "i8", 1, Category.INTEGRAL, True)
int16: Final = DType("int16", "Short", "i16", 2, Category.INTEGRAL, True)
int32: Final = DType("int32", "Int", "i32", 4, Category.INTEGRAL, True)
int64: Final = DType("int64", "Long", "i64", 8, Category.INTEGRAL, True)
float16: Final = DType("float16", "Half", "f16", 2, Category.FLOATING, True)
bfloat16: Final = DType("bfloat16", "BFloat16", "bf16", 2, Category.FLOATING, True)
float32: Final = DType("float32", "Float", "f32", 4, Category.FLOATING, True)
float64: Final = DType("float64", "Double", "f64", 8, Category.FLOATING, True)
complex32: Final = DType("complex32", "ComplexHalf", "c32", 4, Category.COMPLEX, True)
complex64: Final = DType("complex64", "ComplexFloat", "c64", 8, Category.COMPLEX, True)
complex128: Final = DType("complex128", "ComplexDouble", "c128", 16, Category.COMPLEX, True)

# torch's uint64 is a limited-support dtype that refimpl tensors never hold. It is here because
# torch types a Python int in [2**63, 2**64) as a UInt64 scalar, so promotion must name it.
uint64: Final = DType("uint64", "UInt64", "u64", 8, Category.INTEGRAL, False)

# Every dtype, in torch's ScalarType enum order (c10/core/ScalarType.h). bfloat16 and
# complex32 exist so that promotion answers as torch does (float16 + 1j is complex32);
# no built-in backend stores them.
ALL_DTYPES: Final[tuple[DType, ...]] = (
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,
    complex32,
    complex64,
    complex128,
    bool_,
    bfloat16,
)

# The dtypes the built-in backends store (the list).
STORED_DTYPES: Final[tuple[DType, ...]] = (
    bool_,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,
    complex64,
    complex128,
)

_TO_REAL: Final[dict[DType, DType]] = {
    complex32: float16,
    complex64: float32,
    complex128: float64,
}
_TO_COMPLEX: Final[dict[DType, DType]] = {
    # torch: toComplexType in c10/core/ScalarType.h maps BFloat16 to ComplexFloat (same range).
    float16: complex32,
    bfloat16: complex64,
    float32: complex64,
    float64: complex128,
}

# Public aliases, as torch spells them (torch.float is torch.float32, ...).
ALIASES: Final[dict[str, DType]] = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "cfloat": complex64,
    "cdouble": complex128,
    "chalf": complex32,
    "bool": bool_,
}

BY_NAME: Final[dict[str, DType]] = {d.name: d for d in ALL_DTYPES} | ALIASES
