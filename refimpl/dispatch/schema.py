"""Operator schemas: PyTorch's schema language parsed into records that print back as torch does.

Torch: torch._C.parse_schema, i.e. torch/csrc/jit/frontend/function_schema_parser.cpp with the
TorchScript lexer (frontend/lexer.h) and type parser (frontend/schema_type_parser.cpp); the records
are c10::FunctionSchema, c10::Argument and c10::AliasInfo (ATen/core/function_schema.h).

`str(schema)` prints exactly what torch prints for a schema, `str(argument.type)` what torch
prints for `str(argument.type)` (`Optional[Tensor]`, `number` for Scalar, `int` for ScalarType),
and a malformed schema raises torch's exception with torch's message, including the offending
line with the token underlined. See Note [Schema types] for how types are represented.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from refimpl.dispatch.schema_lexer import expected_error, report_error, tokenize
from refimpl.dispatch.schema_literals import (
    DEFAULT_NAMES,
    LIST_ELEMENT_KINDS,
    SCALAR_TYPE_NAMES,
    DefaultValue,
    ScalarValue,
    StringLiteralError,
    format_default,
    list_default,
    parse_device,
    stod,
    stoll,
    unescape_string,
)
from refimpl.dispatch.schema_types import (
    BASE_TYPES,
    CUSTOM_CLASSES,
    TENSOR,
    BaseType,
    ClassType,
    DictType,
    ListType,
    OptionalType,
    ParametricType,
    SchemaType,
    TupleType,
    TypeKind,
    UnionType,
    VarType,
    is_tensor_like,
    make_dict,
    make_union,
)

__all__ = [
    "AliasInfo",
    "Argument",
    "BaseType",
    "ClassType",
    "DictType",
    "FunctionSchema",
    "ListType",
    "OptionalType",
    "ParametricType",
    "SchemaType",
    "TupleType",
    "TypeKind",
    "UnionType",
    "VarType",
    "parse_schema",
]

# --- records -----------------------------------------------------------------------------------

WILDCARD: Final = "*"


@dataclass(frozen=True, slots=True)
class AliasInfo:
    """An alias annotation: `(a)`, `(a!)`, `(a -> *)`, and those of list elements.

    Torch: c10::AliasInfo (ATen/core/alias_info.h). `before_sets` keep the written order.
    Differs: torch keeps the sets in an unordered_set and prints `Tensor(a|b)` as `Tensor(b|a)`;
    here sets print in written order, so that every schema torch prints parses back to itself.
    """

    is_write: bool = False
    before_sets: tuple[str, ...] = ()
    after_sets: tuple[str, ...] = ()
    contained_types: tuple[AliasInfo, ...] = ()

    @property
    def before_set(self) -> frozenset[str]:
        """Torch: AliasInfo.before_set."""
        return frozenset(self.before_sets)

    @property
    def after_set(self) -> frozenset[str]:
        """Torch: AliasInfo.after_set."""
        return frozenset(self.after_sets)

    @property
    def is_wildcard_before(self) -> bool:
        """Whether the value may alias anything (`*`). Torch: AliasInfo::isWildcardBefore."""
        return WILDCARD in self.before_sets

    @property
    def is_wildcard_after(self) -> bool:
        """Whether the value may alias anything afterwards. Torch: AliasInfo::isWildcardAfter."""
        return WILDCARD in self.after_sets

    def __str__(self) -> str:
        # torch: operator<<(std::ostream&, const AliasInfo&) in ATen/core/alias_info.h
        text = "(" + "|".join(self.before_sets) + ("!" if self.is_write else "")
        if self.before_set != self.after_set:
            text += " -> " + "|".join(self.after_sets)
        return text + ")"


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument or return of a schema.

    Torch: c10::Argument, as torch.Argument in Python. `default_value` is the Python value
    (a tuple for list defaults, a device string such as `"cuda:1"` for Device); it is None
    both for `=None` and for no default, which `has_default_value()` tells apart.
    """

    name: str
    type: SchemaType
    default_value: DefaultValue = None
    has_default: bool = False
    kwarg_only: bool = False
    alias_info: AliasInfo | None = None

    def has_default_value(self) -> bool:
        """Torch: Argument.has_default_value()."""
        return self.has_default

    @property
    def N(self) -> int | None:
        """The fixed size of `int[2]`-style lists. Torch: Argument.N."""
        list_type = self.type.element if isinstance(self.type, OptionalType) else self.type
        return list_type.size if isinstance(list_type, ListType) else None

    @property
    def is_write(self) -> bool:
        """Torch: Argument.is_write."""
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        """A keyword-only argument the op writes to. Torch: Argument.is_out."""
        return self.kwarg_only and self.is_write

    def __str__(self) -> str:
        # torch: operator<<(std::ostream&, const Argument&) in ATen/core/function_schema.h.
        # The alias annotation goes before `?`; a list element's annotation before `[]`.
        schema_type, alias = self.type, self.alias_info
        optional = isinstance(schema_type, OptionalType)
        if isinstance(schema_type, OptionalType):
            schema_type = schema_type.element
        if isinstance(schema_type, ListType):
            text = schema_type.element.schema_str()
            if alias is not None and alias.contained_types:
                text += str(alias.contained_types[0])
            text += f"[{'' if schema_type.size is None else schema_type.size}]"
        else:
            text = schema_type.schema_str()
        if alias is not None and alias.before_sets:
            text += str(alias)
        if optional:
            text += "?"
        if self.name:
            text += " " + self.name
        if self.has_default:
            text += "=" + format_default(self.default_value, self.type)
        return text


@dataclass(frozen=True, slots=True)
class FunctionSchema:
    """A parsed operator schema.

    Torch: c10::FunctionSchema, as torch.FunctionSchema in Python (`op._schema`).
    `dispatch_argument_indices` are the positions of the arguments that take part in dispatch
    (see `is_tensor_like`), computed once.
    """

    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False
    dispatch_argument_indices: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # torch: FunctionSchema::checkSchema in ATen/core/function_schema.h. Lists without a
        # default may follow defaults: old serialized broadcasting lists did so.
        seen_default = False
        for argument in self.arguments:
            if argument.has_default:
                seen_default = True
            elif (
                seen_default and not argument.kwarg_only and argument.type.kind is not TypeKind.List
            ):
                raise RuntimeError(
                    "!seen_default_arg || arg.kwarg_only() INTERNAL ASSERT FAILED at "
                    '"/__w/pytorch/pytorch/aten/src/ATen/core/function_schema.h":342, please '
                    "report a bug to PyTorch. Non-default positional argument follows default "
                    f"argument. Parameter {argument.name} in {self}"
                )
        indices = tuple(i for i, arg in enumerate(self.arguments) if is_tensor_like(arg.type))
        object.__setattr__(self, "dispatch_argument_indices", indices)

    @property
    def qualified_name(self) -> str:
        """`aten::add.Tensor`, or `aten::relu` for the default overload. Torch: OpOverload.name()."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def namespace(self) -> str:
        """`aten` for `aten::add`; empty for a name without namespace."""
        return self.name.partition("::")[0] if "::" in self.name else ""

    @property
    def is_mutable(self) -> bool:
        """Whether the op writes to an argument. Torch: FunctionSchema.is_mutable."""
        return any(argument.is_write for argument in self.arguments)

    def __str__(self) -> str:
        # torch: operator<<(std::ostream&, const FunctionSchema&) in ATen/core/function_schema.cpp
        parts, seen_kwarg_only = [], False
        for argument in self.arguments:
            if argument.kwarg_only and not seen_kwarg_only:
                parts.append("*")
                seen_kwarg_only = True
            parts.append(str(argument))
        if self.is_vararg:
            parts.append("...")
        returns = [str(argument) for argument in self.returns]
        if self.is_varret:
            returns.append("...")
        result = ", ".join(returns)
        # One plain return goes bare, unless its text starts with "(" (a tuple type) and
        # would read as a return list; a bare `...` is also printed without parentheses.
        single = len(self.returns) == 1 and not self.is_varret and not result.startswith("(")
        if not single and not (not self.returns and self.is_varret):
            result = f"({result})"
        overload = f".{self.overload_name}" if self.overload_name else ""
        return f"{self.name}{overload}({', '.join(parts)}) -> {result}"

    def __repr__(self) -> str:
        # torch: torch.FunctionSchema's repr is its schema text, as str() gives it.
        return str(self)


# --- parser ------------------------------------------------------------------------------------

_SCALAR_DEFAULT_KINDS: Final = frozenset(
    {
        TypeKind.String, TypeKind.Optional, TypeKind.Number, TypeKind.Int, TypeKind.Bool,
        TypeKind.Float, TypeKind.Complex,
    }
)  # fmt: skip
_NONE_DEFAULT_KINDS: Final = frozenset({TypeKind.Tensor, TypeKind.Generator, TypeKind.Quantizer})


_UNKNOWN_TYPE: Final = (
    "unknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
    "bool, Scalar; for a full list, please see "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func "
)
_MISSPELLED_TYPES: Final = {
    "double": "Use `float` instead of `double` in an operator's schema string. `float` in schema "
    "corresponds to the double type in C++",
    "int64_t": "Use `SymInt` or `int` instead of `int64_t` in an operator's schema string. "
    "`SymInt` corresponds to c10::SymInt in C++ while `int` in schema corresponds to the "
    "int64_t type in C++.",
}


def _list_alias(element: AliasInfo | None, container: AliasInfo | None) -> AliasInfo | None:
    # torch: parseFakeAndRealType: a list's annotation holds its element's annotation, and
    # a list without one gets an empty annotation sharing the element's is_write.
    if element is None:
        return container
    if container is None:
        container = AliasInfo(is_write=element.is_write)
    return AliasInfo(
        container.is_write,
        container.before_sets,
        container.after_sets,
        container.contained_types + (element,),
    )


class _Parser:
    """Recursive descent over one schema string's tokens.

    Torch: SchemaParser (function_schema_parser.cpp) and SchemaTypeParser
    (schema_type_parser.cpp), with the same order of checks so errors match.
    """

    __slots__ = ("alias_id", "ends", "error", "index", "kinds", "source", "starts", "typevars")

    def __init__(self, source: str, allow_typevars: bool) -> None:
        tokens = tokenize(source)
        self.source = source
        self.kinds, self.starts, self.ends = tokens.kinds, tokens.starts, tokens.ends
        self.error = tokens.error
        self.index = 0
        self.typevars = allow_typevars
        self.alias_id = 0  # numbers the sets of `Tensor!` annotations: $0, $1, ...
        if not self.kinds and self.error is not None:
            raise self.error

    # token access

    @property
    def kind(self) -> str:
        return self.kinds[self.index]

    def text(self, index: int) -> str:
        return self.source[self.starts[index] : self.ends[index]]

    def advance(self) -> None:
        self.index += 1
        if self.index == len(self.kinds) and self.error is not None:
            raise self.error

    def accept(self, kind: str) -> bool:
        if self.kinds[self.index] != kind:
            return False
        self.advance()
        return True

    def expect(self, kind: str) -> int:
        """Consumes a token of `kind` and returns its index. Torch: Lexer::expect."""
        index = self.index
        if self.kinds[index] != kind:
            found = self.kinds[index]
            raise expected_error(kind, found, self.source, self.starts[index], self.ends[index])
        self.advance()
        return index

    def lookahead(self) -> str:
        if self.index + 1 == len(self.kinds):
            if self.error is not None:
                raise self.error
            return "eof"
        return self.kinds[self.index + 1]

    def report(self, message: str, index: int | None = None) -> RuntimeError:
        index = self.index if index is None else index
        return report_error(message, self.source, self.starts[index], self.ends[index])

    # declarations

    def parse_schema(self) -> FunctionSchema:
        name, overload_name = self.parse_name()
        if self.kind != "(":
            self.accept("newline")
            self.expect("eof")
            raise RuntimeError(
                "Tried to parse a function schema but only the operator name was given"
            )
        arguments: list[Argument] = []
        kwarg_only = is_vararg = False
        self.expect("(")
        if self.kind != ")":
            while True:
                if is_vararg:
                    raise self.report("... must be the last element of the argument list")
                if self.accept("*"):
                    kwarg_only = True
                elif self.accept("dots"):
                    is_vararg = True
                else:
                    arguments.append(self.parse_argument(False, kwarg_only))
                if not self.accept(","):
                    break
        self.expect(")")
        if is_vararg and any(argument.has_default for argument in arguments):
            raise self.report("schemas with vararg (...) can't have default value args")
        self.expect("arrow")
        returns: list[Argument] = []
        is_varret = False
        if self.accept("dots"):
            is_varret = True
        elif self.accept("("):
            if self.kind != ")":
                while True:
                    if is_varret:
                        raise self.report("... must be the last element of the return list")
                    if self.accept("dots"):
                        is_varret = True
                    else:
                        returns.append(self.parse_argument(True, False))
                    if not self.accept(","):
                        break
            self.expect(")")
        else:
            returns.append(self.parse_argument(True, False))
        schema = FunctionSchema(
            name, overload_name, tuple(arguments), tuple(returns), is_vararg, is_varret
        )
        self.accept("newline")
        self.expect("eof")
        return schema

    def parse_name(self) -> tuple[str, str]:
        name = self.text(self.expect("ident"))
        if self.accept(":"):
            self.expect(":")
            name += "::" + self.text(self.expect("ident"))
        overload_name = self.text(self.expect("ident")) if self.accept(".") else ""
        # `default` is how Python spells the empty overload name; dunders are Python's.
        if overload_name == "default" or overload_name.startswith("__"):
            raise RuntimeError(f"{overload_name} is not a legal overload name for aten operators")
        return name, overload_name

    def parse_argument(self, is_return: bool, kwarg_only: bool) -> Argument:
        schema_type, alias = self.parse_type()
        if self.accept("["):
            # A sized list, `int[2]`, is spelled only at argument level.
            size = stoll(self.text(self.expect("number")))
            size = (size + 2**31) % 2**32 - 2**31  # torch keeps N in an int32_t
            self.expect("]")
            alias = _list_alias(alias, self.parse_alias_annotation())
            schema_type = ListType(schema_type, size)
            if self.accept("?"):
                schema_type = OptionalType.of(schema_type)
        if is_return:
            name = ""
            if self.kind == "ident":
                name = self.text(self.index)
                self.advance()
            return Argument(name, schema_type, alias_info=alias)
        name = self.text(self.expect("ident"))
        if self.accept("="):
            default = self.parse_default(schema_type)
            return Argument(name, schema_type, default, True, kwarg_only, alias)
        return Argument(name, schema_type, kwarg_only=kwarg_only, alias_info=alias)

    # types

    def parse_type(self) -> tuple[SchemaType, AliasInfo | None]:
        """A type and its alias annotation. Torch: SchemaTypeParser::parseFakeAndRealType."""
        schema_type: SchemaType
        alias: AliasInfo | None = None
        text = self.text(self.index) if self.kind == "ident" else ""
        if self.kind == "(":
            self.advance()
            elements: list[SchemaType] = []
            if self.kind != ")":
                elements.append(self.parse_type()[0].fake())
                while self.accept(","):
                    elements.append(self.parse_type()[0].fake())
            self.expect(")")
            schema_type = TupleType(tuple(elements))
        elif text in ("Future", "Await", "RRef"):
            self.advance()
            self.expect("(")
            schema_type = ParametricType(text, self.parse_type()[0].fake())
            self.expect(")")
        elif text == "Dict":
            self.advance()
            self.expect("(")
            key = self.parse_type()[0].fake()
            self.expect(",")
            value = self.parse_type()[0].fake()
            self.expect(")")
            alias = self.parse_alias_annotation()
            schema_type = make_dict(key, value)
        elif text == "Union":
            self.advance()
            self.expect("(")
            members = [self.parse_type()[0].fake()]
            while self.kind != ")":
                self.expect(",")
                members.append(self.parse_type()[0].fake())
            self.expect(")")
            alias = self.parse_alias_annotation()
            schema_type = make_union(members)
        elif text == "__torch__":
            schema_type = self.parse_class()
        elif text == "Tensor":
            self.advance()
            schema_type = TENSOR
            alias = self.parse_alias_annotation()
        else:
            schema_type = self.parse_base_type()
            alias = self.parse_alias_annotation()
        while True:
            if self.kind == "[" and self.lookahead() == "]":
                self.advance()
                self.advance()
                schema_type = ListType(schema_type)
                alias = _list_alias(alias, self.parse_alias_annotation())
            elif self.accept("?"):
                schema_type = OptionalType.of(schema_type)
            else:
                return schema_type, alias

    def parse_base_type(self) -> SchemaType:
        index = self.index
        if not (self.accept("None") or self.accept("NoneType")):
            self.expect("ident")
        text = self.text(index)
        # A dotted name reads as one name (torch 2.13 allows them for opaque types); as a type
        # variable it keeps its dots (`a.b`).
        while self.kind == "." and self.lookahead() == "ident":
            self.advance()
            text += "." + self.text(self.index)
            self.advance()
        base = BASE_TYPES.get(text)
        if base is not None:
            return base
        if self.typevars and "a" <= text[0] <= "z":
            return VarType(text)
        raise self.report(_MISSPELLED_TYPES.get(text, _UNKNOWN_TYPE), index)

    def parse_class(self) -> ClassType:
        self.advance()
        for expected_name in ("torch", "classes"):
            self.expect(".")
            index = self.expect("ident")
            if self.text(index) != expected_name:
                raise self.report(f"Expected classes namespace but got {self.text(index)}", index)
        self.expect(".")
        namespace = self.text(self.expect("ident"))
        self.expect(".")
        index = self.expect("ident")
        qualified_name = f"__torch__.torch.classes.{namespace}.{self.text(index)}"
        if qualified_name not in CUSTOM_CLASSES:
            message = f"Unknown custom class type {namespace}.{self.text(index)}."
            raise self.report(message + " Please ensure it is registered.", index)
        return ClassType(qualified_name)

    def parse_alias_annotation(self) -> AliasInfo | None:
        """`(a)`, `(a!)`, `(a -> b|*)`, or `!` for a fresh set. Torch: parseAliasAnnotation."""
        if self.accept("("):
            before = self.parse_alias_sets()
            is_write = self.accept("!")
            after = self.parse_alias_sets() if self.accept("arrow") else before
            self.expect(")")
            return AliasInfo(is_write, before, after)
        if self.accept("!"):
            self.alias_id += 1
            return AliasInfo(True, (f"${self.alias_id - 1}",), ())
        return None

    def parse_alias_sets(self) -> tuple[str, ...]:
        # After a wildcard, further set names are neither read nor kept, as in torch.
        sets: list[str] = []
        while True:
            if self.accept("*"):
                if WILDCARD not in sets:
                    sets.append(WILDCARD)
            elif WILDCARD not in sets:
                name = self.text(self.expect("ident"))
                if name not in sets:
                    sets.append(name)
            if not self.accept("|"):
                return tuple(sets)

    # default values

    def parse_default(self, schema_type: SchemaType) -> DefaultValue:
        """The value after `=`, read by the argument's fake type. Torch: parseDefaultValue."""
        index = self.index
        fake = schema_type.fake()
        if fake.kind in _NONE_DEFAULT_KINDS:
            self.expect("None")
            return None
        if fake.kind in _SCALAR_DEFAULT_KINDS:
            return self.parse_constant(fake.kind, _takes_dtype_names(schema_type))
        if fake.kind is TypeKind.DeviceObj:
            return parse_device(self.string_value(self.expect("string_literal")))
        if isinstance(fake, ListType) and isinstance(schema_type, ListType):
            element_kind = fake.element.kind
            dtype_names = _takes_dtype_names(schema_type.element)
            if self.kind == "ident":
                self.expect("None")
            if fake.size is not None and self.kind != "[":
                # `int[2] padding=0` means [0, 0].
                value = self.parse_constant(element_kind, dtype_names)
                return self.to_list(element_kind, [value] * fake.size, index)
            index = self.expect("[")
            values: list[ScalarValue | str | None] = []
            if self.kind != "]":
                values.append(self.parse_constant(element_kind, dtype_names))
                while self.accept(","):
                    values.append(self.parse_constant(element_kind, dtype_names))
            self.expect("]")
            return self.to_list(element_kind, values, index)
        raise self.report("unexpected type, file a bug report", index)

    def parse_constant(self, kind: TypeKind, dtype_names: bool) -> ScalarValue | str | None:
        """One literal. Torch: parseSingleConstant; a number's spelling picks int or float."""
        token = self.kind
        if token in ("True", "False", "None"):
            self.advance()
            return None if token == "None" else token == "True"
        if token == "string_literal":
            index = self.index
            self.advance()
            return self.string_value(index)
        if token == "ident":
            name = self.text(self.index)
            self.advance()
            value = DEFAULT_NAMES.get(name)
            if value is None and dtype_names:
                value = SCALAR_TYPE_NAMES.get(name)
            if value is None:
                # torch reports this at the token after the name.
                raise self.report("invalid numeric default value")
            return value
        number = ("-" if self.accept("-") else "") + self.text(self.expect("number"))
        if kind is TypeKind.Complex or "j" in number:
            return complex(0.0, stod(number[:-1]))
        if kind is TypeKind.Float or "." in number or "e" in number:
            return stod(number)
        return stoll(number)

    def to_list(
        self, kind: TypeKind, values: Sequence[ScalarValue | str | None], index: int
    ) -> tuple[ScalarValue, ...]:
        if kind not in LIST_ELEMENT_KINDS:
            raise self.report("lists are only supported for float, int and complex types", index)
        return list_default(kind, values)

    def string_value(self, index: int) -> str:
        try:
            return unescape_string(self.text(index))
        except StringLiteralError as error:
            raise self.report(str(error), index) from None


def _takes_dtype_names(schema_type: SchemaType) -> bool:
    if isinstance(schema_type, OptionalType):
        schema_type = schema_type.element
    return schema_type.kind is TypeKind.ScalarType


def parse_schema(schema: str, allow_typevars: bool = True) -> FunctionSchema:
    """The FunctionSchema a schema string declares, e.g. `aten::relu(Tensor self) -> Tensor`.

    Torch: torch._C.parse_schema. Raises RuntimeError with torch's message for malformed
    schemas (ValueError or IndexError for unreadable numbers, as torch does). Lowercase
    unknown type names are type variables unless `allow_typevars` is False.
    """
    return _Parser(schema, allow_typevars).parse_schema()
