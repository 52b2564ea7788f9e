"""Literals of PyTorch's schema language: default values read from and printed to schema text.

Torch: parseSingleConstant, parseStringLiteral and convertToList in
torch/csrc/jit/frontend/function_schema_parser.cpp and parse_string_literal.h, c10::Device's
string constructor, and the printing of defaults in ATen/core/function_schema.h and ivalue.cpp.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final, TypeAlias

from refimpl.dispatch.schema_types import ListType, OptionalType, SchemaType, TypeKind

ScalarValue: TypeAlias = bool | int | float | complex
DefaultValue: TypeAlias = ScalarValue | str | None | tuple[ScalarValue, ...]


class StringLiteralError(Exception):
    """An escape sequence torch rejects; the parser reports it at the literal's position."""


# --- reading -----------------------------------------------------------------------------------

# torch: parseSingleConstant in function_schema_parser.cpp: names any default may use, and the
# dtype names (torch.<name>) that ScalarType defaults may use besides.
DEFAULT_NAMES: Final = {
    "float": 6, "complex": 9, "long": 4, "strided": 0, "Mean": 1, "contiguous_format": 0,
}  # fmt: skip
SCALAR_TYPE_NAMES: Final = {
    "uint8": 0, "int8": 1, "int16": 2, "short": 2, "int32": 3, "int": 3, "int64": 4, "long": 4,
    "float16": 5, "half": 5, "float32": 6, "float": 6, "float64": 7, "double": 7,
    "complex32": 8, "chalf": 8, "complex64": 9, "cfloat": 9, "complex128": 10, "cdouble": 10,
    "bool": 11, "qint8": 12, "quint8": 13, "qint32": 14, "bfloat16": 15, "quint4x2": 16,
    "quint2x4": 17, "bits1x8": 18, "bits2x4": 19, "bits4x2": 20, "bits8": 21, "bits16": 22,
    "float8_e5m2": 23, "float8_e4m3fn": 24, "float8_e5m2fnuz": 25, "float8_e4m3fnuz": 26,
    "uint16": 27, "uint32": 28, "uint64": 29, "uint1": 30, "bit": 30, "uint2": 31, "uint3": 32,
    "uint4": 33, "uint5": 34, "uint6": 35, "uint7": 36, "int1": 37, "int2": 38, "int3": 39,
    "int4": 40, "int5": 41, "int6": 42, "int7": 43, "float8_e8m0fnu": 44, "float4_e2m1fn_x2": 45,
}  # fmt: skip
_STRING_ESCAPES: Final = {
    "\\": 92, "'": 39, '"': 34, "\n": 10, "a": 7, "b": 8, "f": 12, "n": 10, "v": 11, "t": 9,
}  # fmt: skip
_INTEGER_PREFIX: Final = re.compile(r"[+-]?[0-9]+")
_DEVICE_RE: Final = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")
# torch: the device type names of c10::Device's parse_type, in c10/core/Device.cpp.
DEVICE_TYPES: Final = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip


def stoll(text: str) -> int:
    """The leading decimal integer of `text`. Torch: c10::stoll (std::stoll).

    std::invalid_argument and std::out_of_range reach Python as ValueError and IndexError.
    """
    found = _INTEGER_PREFIX.match(text)
    if found is None:
        raise ValueError("stoll")
    value = int(found.group())
    if not -(2**63) <= value < 2**63:
        raise IndexError("stoll")
    return value


_FLOAT_PREFIX: Final = re.compile(
    r"-?(?:0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
)


def stod(text: str) -> float:
    """The longest leading number of `text` (`1E` reads 1). Torch: c10::stod (std::stod).

    Fails like stoll, and also on results that overflow or underflow to subnormals.
    """
    found = _FLOAT_PREFIX.match(text)
    if found is None:
        raise ValueError("stod")
    number = found.group()
    digits = number.lstrip("-")
    is_hex = digits[:2] in ("0x", "0X")
    value = float.fromhex(number) if is_hex else float(number)
    mantissa = re.split("[pP]" if is_hex else "[eE]", digits[2:] if is_hex else digits)[0]
    nonzero = any(char not in "0." for char in mantissa)
    if math.isinf(value) or (nonzero and abs(value) < 2.2250738585072014e-308):
        raise IndexError("stod")
    return value


def parse_device(text: str) -> str:
    """A Device default as `type` or `type:index`. Torch: c10::Device(const std::string&)."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    found = _DEVICE_RE.fullmatch(text)
    if found is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    device_type, index = found.groups()
    if index is not None and int(index) >= 2**31:
        raise RuntimeError(f"Could not parse device index '{index}' in device string '{text}'")
    if device_type not in DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
            f"{device_type}"
        )
    # c10::DeviceIndex is an int8_t.
    return device_type if index is None else f"{device_type}:{(int(index) + 128) % 256 - 128}"


def unescape_string(literal: str) -> str:
    """The value of a string literal token, quotes included in `literal`.

    Torch: parseStringLiteral (torch/csrc/jit/frontend/parse_string_literal.h): C escapes
    except \\r, three-digit octal escapes, no hex or unicode escapes.
    """
    quote_len = 3 if literal.startswith(literal[0] * 3) else 1
    content = literal[quote_len : len(literal) - quote_len]
    value = bytearray()
    position = 0
    while (backslash := content.find("\\", position)) >= 0:
        value += content[position:backslash].encode("utf-8", "surrogateescape")
        escaped = content[backslash + 1] if backslash + 1 < len(content) else "\0"
        position = backslash + 2
        if escaped in _STRING_ESCAPES:
            value.append(_STRING_ESCAPES[escaped])
        elif escaped == "x":
            raise StringLiteralError("unsupported hex specifier")
        elif escaped in "uU":
            raise StringLiteralError("unsupported unicode specifier")
        else:
            digits = content[backslash + 1 : backslash + 4]
            if len(digits) < 3 or any(digit not in "01234567" for digit in digits):
                raise StringLiteralError(" ill formed octal specifier")
            value.append(int(digits, 8))
            position = backslash + 4
    value += content[position:].encode("utf-8", "surrogateescape")
    return value.decode("utf-8", "surrogateescape")


def _ivalue_assert(condition: str, where: str, message: str) -> RuntimeError:
    return RuntimeError(
        f'{condition} INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/{where},'
        f" please report a bug to PyTorch. {message}"
    )


def _ivalue_tag(value: object) -> str:
    # torch: IValue::tagKind() names, for the values a default can hold.
    names = {bool: "Bool", int: "Int", float: "Double", complex: "ComplexDouble", str: "String"}
    return "None" if value is None else names[type(value)]


# torch: convertToList in function_schema_parser.cpp converts each element with IValue::toInt,
# toDouble, toBool or toComplexDouble, which assert (file, message) on a value of another kind.
_LIST_ELEMENTS: Final[dict[TypeKind, tuple[type, str, str]]] = {
    TypeKind.Int: (int, 'ivalue.h":663', "expected int"),
    TypeKind.Float: (float, 'ivalue.h":544', "expected double"),
    TypeKind.Bool: (bool, 'ivalue.h":710', "expected bool"),
    TypeKind.Complex: (complex, 'ivalue_inl.h":159', "Expected ComplexDouble but got "),
}
LIST_ELEMENT_KINDS: Final = frozenset(_LIST_ELEMENTS)


def list_default(
    kind: TypeKind, values: Sequence[ScalarValue | str | None]
) -> tuple[ScalarValue, ...]:
    """A list default from its literals, for element kinds in LIST_ELEMENT_KINDS.

    Torch: convertToList in function_schema_parser.cpp.
    """
    element_type, file, message = _LIST_ELEMENTS[kind]
    result: list[ScalarValue] = []
    for value in values:
        if value is None or isinstance(value, str) or type(value) is not element_type:
            if kind is TypeKind.Complex:
                raise _ivalue_assert("isComplexDouble()", file, message + _ivalue_tag(value))
            raise _ivalue_assert("0", file, message)
        result.append(value)
    return tuple(result)


# --- printing ----------------------------------------------------------------------------------


def format_default(value: DefaultValue, schema_type: SchemaType) -> str:
    """A default value as torch prints it after `=`.

    Torch: the default-value branch of operator<<(std::ostream&, const Argument&): strings of
    str-typed arguments are quoted, int lists of equal elements print as one element
    (`int[2] padding=0`), everything else prints as its IValue.
    """
    unwrapped = schema_type.element if isinstance(schema_type, OptionalType) else schema_type
    if isinstance(value, str) and unwrapped.kind is TypeKind.String:
        return quote_string(value)
    if (
        isinstance(value, tuple)
        and isinstance(schema_type, ListType)
        and schema_type.element.kind is TypeKind.Int
        and len(value) > 1
        and all(element == value[0] for element in value)
    ):
        return format_value(value[0])
    return format_value(value)


def format_value(value: DefaultValue) -> str:
    """An IValue as torch prints it. Torch: operator<<(std::ostream&, const IValue&)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, complex):
        sign = "+" if value.imag >= 0 else "-"
        return f"{format_double(value.real)}{sign}{format_double(abs(value.imag))}j"
    if isinstance(value, str):
        return value
    return "[" + ", ".join(format_value(element) for element in value) + "]"


def format_double(value: float) -> str:
    """`1.`, `0.5`, `1.0000000000000001e-05`: integral values in int64 range end in a dot."""
    # torch: the Double case of operator<< for IValue in ATen/core/ivalue.cpp, which prints
    # with max_digits10 (17) significant digits; -0.0 prints as `0.`.
    if math.isfinite(value) and value == math.trunc(value) and -(2**63) <= value < 2**63:
        return f"{int(value)}."
    return f"{value:.17g}"


_ESCAPES: Final = {
    ord("\\"): "\\\\", ord("'"): "\\'", ord('"'): '\\"', 7: "\\a", 8: "\\b",
    12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v",
}  # fmt: skip


def quote_string(value: str) -> str:
    """A str default in double quotes with C escapes. Torch: c10::printQuotedString."""
    text = ['"']
    for byte in value.encode("utf-8", "surrogateescape"):
        if byte in _ESCAPES:
            text.append(_ESCAPES[byte])
        elif 0x20 <= byte < 0x7F:
            text.append(chr(byte))
        else:
            # Three octal digits computed on a signed char, as torch does: bytes above 0x7f
            # come out as punctuation (`é` prints as `\0)+\/.)`).
            signed = byte - 256 if byte > 0x7F else byte
            digits = []
            for _ in range(2):
                digits.append(chr(ord("0") + int(math.fmod(signed, 8))))
                signed = int(signed / 8)
            digits.append(chr(ord("0") + signed))
            text.append("\\" + "".join(reversed(digits)))
    text.append('"')
    return "".join(text)
