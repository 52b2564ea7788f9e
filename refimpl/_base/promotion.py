"""Type promotion: the default dtype, the promotion lattice, result types and casting rules.

Torch: c10/core/ScalarType.cpp (promoteTypes, canCast), c10/core/DefaultDtype.cpp, and
at::native::result_type in aten/src/ATen/native/TypeProperties.cpp.
See Note [Promotion table] and Note [Result type of mixed operands].
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, assert_never

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex32,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint64,
)

# --- default dtype -----------------------------------------------------------------------


@dataclass(slots=True)
class _DefaultDtypes:
    """The default floating and complex dtypes.

    Torch: default_dtype and default_complex_dtype in c10/core/DefaultDtype.cpp. Like torch's,
    they are process-wide, not thread-local.
    """

    floating: DType
    complex_: DType


DEFAULT_DTYPES: Final = _DefaultDtypes(floating=float32, complex_=complex64)

# torch: set_default_dtype in c10/core/DefaultDtype.cpp picks the complex dtype this way;
# bfloat16 has no complex counterpart of its own and gets complex64.
_DEFAULT_COMPLEX_OF: Final[dict[DType, DType]] = {
    float16: complex32,
    bfloat16: complex64,
    float32: complex64,
    float64: complex128,
}


def get_default_dtype() -> DType:
    """The dtype of Python floats turned into tensors (float32 unless changed).

    Torch: torch.get_default_dtype.
    """
    return DEFAULT_DTYPES.floating


def default_complex_dtype() -> DType:
    """The dtype of Python complex numbers turned into tensors, set with the default dtype.

    Torch: c10::get_default_complex_dtype (float16 -> complex32, float64 -> complex128,
    otherwise complex64).
    """
    return DEFAULT_DTYPES.complex_


def set_default_dtype(d: DType, /) -> None:
    """Make `d`, a floating dtype, the default dtype; the default complex dtype follows.

    Torch: torch.set_default_dtype (torch._C._set_default_dtype,
    torch/csrc/tensor/python_tensor.cpp).
    """
    if not isinstance(d, DType):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    DEFAULT_DTYPES.floating = d
    DEFAULT_DTYPES.complex_ = _DEFAULT_COMPLEX_OF[d]


# --- promote_types -------------------------------------------------------------------------

# Note [Promotion table]
# The lattice is torch's _promoteTypesLookup (c10/core/ScalarType.cpp), rows and columns in
# ScalarType order, each row the result of promote_types(row, column). Every entry is checked
# against torch.promote_types by conformance/test_dtypes.py. Within a category the wider type
# wins; uint8 with a signed integer goes to the smallest signed type holding both (int16);
# any floating type beats every integer; float16 with bfloat16 is float32 (neither holds the
# other); complex keeps the wider of the two precisions.
u8, i8, i16, i32, i64 = uint8, int8, int16, int32, int64
f16, f32, f64, bf16 = float16, float32, float64, bfloat16
c32, c64, c128, b8 = complex32, complex64, complex128, bool_

# fmt: off
_COLUMNS: Final = (u8, i8, i16, i32, i64, f16, f32, f64, c32, c64, c128, b8, bf16)
_TABLE: Final[tuple[tuple[DType, tuple[DType, ...]], ...]] = (
    #       u8    i8    i16   i32   i64   f16   f32   f64   c32   c64   c128  b8    bf16
    (u8,   (u8,   i16,  i16,  i32,  i64,  f16,  f32,  f64,  c32,  c64,  c128, u8,   bf16)),
    (i8,   (i16,  i8,   i16,  i32,  i64,  f16,  f32,  f64,  c32,  c64,  c128, i8,   bf16)),
    (i16,  (i16,  i16,  i16,  i32,  i64,  f16,  f32,  f64,  c32,  c64,  c128, i16,  bf16)),
    (i32,  (i32,  i32,  i32,  i32,  i64,  f16,  f32,  f64,  c32,  c64,  c128, i32,  bf16)),
    (i64,  (i64,  i64,  i64,  i64,  i64,  f16,  f32,  f64,  c32,  c64,  c128, i64,  bf16)),
    (f16,  (f16,  f16,  f16,  f16,  f16,  f16,  f32,  f64,  c32,  c64,  c128, f16,  f32)),
    (f32,  (f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64,  c64,  c64,  c128, f32,  f32)),
    (f64,  (f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  c128, c128, c128, f64,  f64)),
    (c32,  (c32,  c32,  c32,  c32,  c32,  c32,  c64,  c128, c32,  c64,  c128, c32,  c64)),
    (c64,  (c64,  c64,  c64,  c64,  c64,  c64,  c64,  c128, c64,  c64,  c128, c64,  c64)),
    (c128, (c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128)),
    (b8,   (u8,   i8,   i16,  i32,  i64,  f16,  f32,  f64,  c32,  c64,  c128, b8,   bf16)),
    (bf16, (bf16, bf16, bf16, bf16, bf16, f32,  f32,  f64,  c64,  c64,  c128, bf16, bf16)),
)
# fmt: on
del u8, i8, i16, i32, i64, f16, f32, f64, bf16, c32, c64, c128, b8

# uint64 is promotable only with itself and with floating types, which win.
# torch: the isBarebonesUnsignedType branch of promoteTypes in c10/core/ScalarType.cpp.
_UINT64_PAIRS: Final[dict[tuple[DType, DType], DType]] = {
    (uint64, uint64): uint64,
    **{(uint64, f): f for f in (float16, bfloat16, float32, float64)},
    **{(f, uint64): f for f in (float16, bfloat16, float32, float64)},
}

_PROMOTE: Final[dict[tuple[DType, DType], DType]] = {
    (row, column): result
    for row, results in _TABLE
    for column, result in zip(_COLUMNS, results, strict=True)
} | _UINT64_PAIRS


def promote_types(type1: DType, type2: DType) -> DType:
    """The smallest dtype that both `type1` and `type2` convert to without changing category.

    Torch: torch.promote_types (c10::promoteTypes in c10/core/ScalarType.cpp).
    See Note [Promotion table].
    """
    result = _PROMOTE.get((type1, type2))
    if result is None:
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{type1.scalar_name} and {type2.scalar_name}"
        )
    return result


# --- result type of mixed operands ---------------------------------------------------------


class OperandKind(enum.Enum):
    """How an operand takes part in promotion.

    Torch: the three states of ResultTypeState (aten/src/ATen/native/TypeProperties.h).
    """

    DIMENSIONED = enum.auto()  # a tensor with dim() >= 1
    ZERO_DIM = enum.auto()  # a tensor with dim() == 0
    WRAPPED = enum.auto()  # a Python number (torch wraps it in a 0-dim "wrapped number")

    # Members are singletons, so identity hashing is exact; Enum.__hash__ is Python code and
    # result_type_of's cache hashes every operand's kind on each op call.
    __hash__ = object.__hash__


# torch's argument parser makes a Python int an int64 Scalar, or a uint64 one in
# [2**63, 2**64); outside both it fails with CPython's OverflowError text
# (PyLong_AsLongLong, then PyLong_AsUnsignedLongLong).
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_UINT64_MAX: Final = 2**64 - 1


def scalar_dtype(value: bool | complex) -> DType:
    """The dtype a Python number promotes as: bool, int64, or the default float/complex dtype.

    Torch: c10::Scalar::type() of the number's Scalar, then update_result_type_state
    (TypeProperties.cpp) replacing double/complex double by the default dtypes.
    An int in [2**63, 2**64) is uint64, as in torch's Python argument parser.
    """
    # bool before int: bool is an int subclass.
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return int64
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        return uint64
    if isinstance(value, float):
        return DEFAULT_DTYPES.floating
    if isinstance(value, complex):
        return DEFAULT_DTYPES.complex_
    raise TypeError(f"expected a Python number, got {type(value).__name__}")


# Note [Result type of mixed operands]
# torch: result_type and combine_categories in aten/src/ATen/native/TypeProperties.cpp.
# Operands are promoted within their kind first (dimensioned tensors with each other, 0-dim
# tensors with each other, Python numbers with each other), giving three dtypes. Then the
# kinds are combined from the lowest priority up: combine(dim, combine(zero, wrapped)).
# A lower-priority dtype only matters when its category is higher than the higher-priority
# one's: int32 + 0-dim int64 is int32, int32 + 2.5 is the default float dtype, and
# float16 + 1j is complex32 (a complex lower operand keeps the floating higher one's
# precision). A Python float promotes as the default dtype, a complex as the default complex
# dtype, whatever its value.


class _Combine(enum.Enum):
    """What combine_categories returns for a (higher, lower) pair of categories."""

    HIGHER = enum.auto()
    LOWER = enum.auto()
    PROMOTE = enum.auto()  # promote_types(higher, lower)
    COMPLEX_OF_HIGHER = enum.auto()  # the complex dtype with the higher one's precision


_H, _L, _P, _C = _Combine.HIGHER, _Combine.LOWER, _Combine.PROMOTE, _Combine.COMPLEX_OF_HIGHER

# _COMBINE[higher.category][lower.category]; torch: combine_categories (TypeProperties.cpp).
# PROMOTE rather than LOWER in the bool row because a bool higher with a uint64 lower raises.
_COMBINE: Final[tuple[tuple[_Combine, ...], ...]] = (
    # lower is: BOOL, INTEGRAL, FLOATING, COMPLEX
    (_P, _P, _P, _L),  # higher is BOOL
    (_H, _H, _P, _L),  # higher is INTEGRAL
    (_H, _H, _H, _C),  # higher is FLOATING
    (_H, _H, _H, _H),  # higher is COMPLEX
)
del _H, _L, _P, _C


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    # None is torch's ScalarType::Undefined: a kind with no operands.
    if higher is None:
        return lower
    if lower is None:
        return higher
    rule = _COMBINE[higher.category][lower.category]
    match rule:
        case _Combine.HIGHER:
            return higher
        case _Combine.LOWER:
            return lower
        case _Combine.PROMOTE:
            return promote_types(higher, lower)
        case _Combine.COMPLEX_OF_HIGHER:
            return higher.to_complex()
        case _:
            assert_never(rule)


def _promote_optional(accumulated: DType | None, dtype: DType) -> DType:
    # torch: promote_skip_undefined in TypeProperties.cpp.
    return dtype if accumulated is None else promote_types(accumulated, dtype)


def _wrapped_dtype(dtype: DType, default_dtype: DType) -> DType:
    # torch: update_result_type_state in TypeProperties.cpp.
    if dtype.is_complex:
        return _DEFAULT_COMPLEX_OF[default_dtype]
    if dtype.is_floating_point:
        return default_dtype
    return dtype


def result_type_of(operands: Iterable[tuple[DType, OperandKind]]) -> DType:
    """The dtype an elementwise op computes in, from each operand's dtype and kind.

    Torch: at::native::result_type (aten/src/ATen/native/TypeProperties.cpp).
    See Note [Result type of mixed operands]. A WRAPPED operand's floating or complex dtype
    stands for a Python float or complex and is replaced by the default (complex) dtype.
    Raises torch's RuntimeError where promotion fails (uint64 with an integer), and
    ValueError for no operands.
    """
    return _result_type(tuple(operands), DEFAULT_DTYPES.floating)


# Cached because every elementwise op call asks; the key holds the default dtype, the only
# state the answer depends on. Errors are not cached and are raised again on each call.
@functools.lru_cache(maxsize=4096)
def _result_type(operands: tuple[tuple[DType, OperandKind], ...], default_dtype: DType) -> DType:
    dimensioned: DType | None = None
    zero_dim: DType | None = None
    wrapped: DType | None = None
    for dtype, kind in operands:
        if kind is OperandKind.DIMENSIONED:
            dimensioned = _promote_optional(dimensioned, dtype)
        elif kind is OperandKind.ZERO_DIM:
            zero_dim = _promote_optional(zero_dim, dtype)
        else:
            wrapped = _promote_optional(wrapped, _wrapped_dtype(dtype, default_dtype))
    result = _combine(dimensioned, _combine(zero_dim, wrapped))
    if result is None:
        raise ValueError("result_type_of() needs at least one operand")
    return result


# --- can_cast ------------------------------------------------------------------------------


def can_cast(from_: DType, to: DType) -> bool:
    """Whether torch's casting rules allow `from_` to `to`: never to a lower category.

    Torch: torch.can_cast (c10::canCast in c10/core/ScalarType.h): complex never casts to
    a non-complex type, floating never to integral or bool, integral never to bool; any
    cast within a category (downcasts included) is allowed.
    """
    return from_.category <= to.category
