"""Binding Python arguments to an operator schema, compiled once per overload.

Torch: createStackForSchema / tryToInferType in torch/csrc/jit/python/pybind_utils.h, which
check each Python value against its schema type when an `OpOverload` is called from Python,
and the overload matching of `torch._C._jit_get_operation` for packets. A `Binder` is built
once per overload: a checker per argument, the defaults, the name table. Binding a call is
then a loop over those, with no introspection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import ALL_DTYPES, DType
from refimpl.core.random import Generator
from refimpl.core.storage import Storage
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.schema import Argument, FunctionSchema
from refimpl.dispatch.schema_types import ListType, OptionalType, SchemaType, TypeKind

# torch: should_allow_numbers_as_tensors in torch/csrc/utils/python_arg_parser.cpp. Only these
# operators accept a Python number where the schema says Tensor (`aten.add(2, x)`).
NUMBERS_AS_TENSORS_OPS: Final = frozenset(
    {
        "add",
        "add_",
        "div",
        "div_",
        "divide",
        "divide_",
        "mul",
        "mul_",
        "multiply",
        "multiply_",
        "sub",
        "sub_",
        "subtract",
        "subtract_",
        "true_divide",
        "true_divide_",
        "to",
        "_to_copy",
        "copy_",
        "copy",
        "floor_divide",
        "floor_divide_",
    }
)

_NUMBER_TYPES: Final = (bool, int, float, complex)
_TENSOR_OR_NUMBER: Final = (TensorImpl, *_NUMBER_TYPES)


class _LazyText:
    """An exception whose text is made only when read (Note [Lazy match errors])."""

    def __init__(self, text: str | Callable[[], str]) -> None:
        super().__init__()
        self._text = text

    def __str__(self) -> str:
        if not isinstance(self._text, str):
            self._text = self._text()
        return self._text


# Note [Lazy match errors]
# A packet tries its overloads in order, and most refusals are never shown: `add(x, y)` first
# fails `add.Scalar`'s Scalar check on `y`. Torch's text for that refusal prints the value
# (`Value: tensor(...)`), which for a large tensor costs milliseconds; so refusals carry a
# function that makes their text, called only if the error is read.


class CastError(_LazyText, Exception):
    """A value that does not fit an argument's type; the text is torch's cast detail."""


class SchemaMatchError(_LazyText, RuntimeError):
    """The arguments do not fit one schema; a packet then tries its next overload.

    Torch: schema_match_error in torch/csrc/jit/python/pybind_utils.h. Other errors raised
    while converting a value (an unparsable device string) end the packet's search.
    """


Checker = Callable[[Any], Any]


def _type_name(value: object) -> str:
    if isinstance(value, TensorImpl):
        return "Tensor"
    return type(value).__name__


# --- checkers: each returns the (possibly converted) value or raises CastError ------------------


def _check_tensor(value: Any) -> Any:
    if isinstance(value, TensorImpl):
        return value
    raise CastError(lambda: f"Unable to cast {value!r} to Tensor")


def _check_tensor_or_number(value: Any) -> Any:
    if isinstance(value, _TENSOR_OR_NUMBER):
        return value
    raise CastError(lambda: f"Unable to cast {value!r} to Tensor")


def _check_int(value: Any) -> Any:
    if isinstance(value, int):
        return value
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_float(value: Any) -> Any:
    if isinstance(value, (int, float)):
        return value
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type 'double'")


def _check_complex(value: Any) -> Any:
    if isinstance(value, _NUMBER_TYPES):
        return value
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_number(value: Any) -> Any:
    if isinstance(value, _NUMBER_TYPES):
        return value
    raise CastError(lambda: f"Cannot cast {value!r} to number")


def _check_bool(value: Any) -> Any:
    # torch: pybind11's bool caster in convert mode takes None (as False) and any number
    # (`sum(x, [0], 1)` means keepdim=True), not strings.
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return bool(value)
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type 'bool'")


def _check_str(value: Any) -> Any:
    if isinstance(value, str):
        return value
    raise CastError(
        f"Unable to cast Python instance of type {type(value)} to C++ type "
        "'std::basic_string<char, std::char_traits<char>, std::allocator<char> >'"
    )


def _check_scalar_type(value: Any) -> Any:
    # torch: a ScalarType argument also takes the enum's int (dtype=6 is float32).
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and 0 <= value < len(ALL_DTYPES):
        return ALL_DTYPES[value]
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_device(value: Any) -> Any:
    if isinstance(value, device):
        return value
    if isinstance(value, str):
        return device(value)
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_generator(value: Any) -> Any:
    if isinstance(value, Generator):
        return value
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_storage(value: Any) -> Any:
    # torch: toIValue takes a Storage argument only from a storage object (set_'s overloads
    # tell a storage from a tensor this way).
    if isinstance(value, Storage):
        return value
    raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")


def _check_any(value: Any) -> Any:
    return value


def _cannot_convert(type_str: str) -> Checker:
    # torch: toIValue's default case (type variables `t`, AnyEnumType, ...).
    def check(value: Any) -> Any:
        raise CastError(f"toIValue() cannot handle converting to type: {type_str}")

    return check


_UNCONVERTIBLE_KINDS: Final = frozenset({TypeKind.Var, TypeKind.AnyEnum, TypeKind.Enum})

# Checkers that return an accepted value unchanged: a call whose positional arguments all use
# one of these can keep its argument tuple as it is.
_VALIDATORS: Final = frozenset(
    {
        _check_tensor,
        _check_tensor_or_number,
        _check_int,
        _check_float,
        _check_complex,
        _check_number,
        _check_str,
        _check_generator,
        _check_storage,
        _check_any,
    }
)


_BASE_CHECKERS: Final[dict[TypeKind, Checker]] = {
    TypeKind.Tensor: _check_tensor,
    TypeKind.Int: _check_int,
    TypeKind.SymInt: _check_int,
    TypeKind.Float: _check_float,
    TypeKind.SymFloat: _check_float,
    TypeKind.Complex: _check_complex,
    TypeKind.Number: _check_number,
    TypeKind.Bool: _check_bool,
    TypeKind.SymBool: _check_bool,
    TypeKind.String: _check_str,
    TypeKind.ScalarType: _check_scalar_type,
    TypeKind.DeviceObj: _check_device,
    TypeKind.Generator: _check_generator,
    TypeKind.Storage: _check_storage,
}


def _optional(inner: Checker) -> Checker:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    return check


def _list(inner: Checker, repeat: int | None) -> Checker:
    """`T[]`; `repeat` is N where a single int fills the list (`int[N]` only)."""

    def check(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            if inner is _check_int:
                for v in value:
                    if type(v) is not int:
                        break
                else:
                    return list(value)  # the common int list: nothing to convert
            return [inner(v) for v in value]
        if repeat is not None and isinstance(value, int):
            # torch: toIValue repeats a single int to fill `int[N]` (`sum(x, 0)`), but
            # iterates the value for `SymInt[N]` (`roll(x, 1)` does not match).
            return [value] * repeat
        raise CastError(f"Unable to cast Python instance of type {type(value)} to C++ type '?'")

    return check


def make_checker(schema_type: SchemaType, numbers_as_tensors: bool) -> Checker:
    """The checker for one schema type (recursing through optionals and lists)."""
    if isinstance(schema_type, OptionalType):
        return _optional(make_checker(schema_type.element, numbers_as_tensors))
    if isinstance(schema_type, ListType):
        element = schema_type.element
        repeat = schema_type.size if element.kind is TypeKind.Int else None
        return _list(make_checker(element, False), repeat)
    kind = schema_type.kind
    if kind in _UNCONVERTIBLE_KINDS:
        return _cannot_convert(str(schema_type))
    if kind is TypeKind.Tensor and numbers_as_tensors:
        return _check_tensor_or_number
    return _BASE_CHECKERS.get(kind, _check_any)


def _default_of(argument: Argument) -> Any:
    """The Python value a missing argument takes."""
    value = argument.default_value
    schema_type = argument.type
    if isinstance(schema_type, OptionalType) and value is None:
        return None
    if isinstance(schema_type, ListType) and isinstance(value, int) and schema_type.size:
        return [value] * schema_type.size
    if schema_type.kind is TypeKind.ScalarType and isinstance(value, int):
        return ALL_DTYPES[value]
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass(frozen=True, slots=True)
class Parameter:
    """One argument of a schema, ready for binding."""

    name: str
    position: int
    checker: Checker
    type_str: str
    has_default: bool
    default: Any


class Binder:
    """Checks and normalises the Python arguments of calls to one overload.

    Torch: createStackForSchema. `bind` returns `(args, kwargs)` with every positional
    argument in `args` and every keyword-only one in `kwargs`, defaults filled in.
    """

    __slots__ = (
        "_by_name",
        "_declaration",
        "_default_tails",
        "_fast",
        "_kw_checkers",
        "_kw_defaults",
        "_kwonly",
        "_n_positional",
        "_op_name",
        "_params",
        "_positional",
        "_positional_checkers",
        "_valid_types",
        "_validate_only",
        "schema",
    )

    def __init__(self, schema: FunctionSchema) -> None:
        base_name = schema.name.partition("::")[2]
        numbers = base_name in NUMBERS_AS_TENSORS_OPS
        params = [
            Parameter(
                argument.name,
                index,
                make_checker(argument.type, numbers),
                str(argument.type),
                argument.has_default,
                _default_of(argument) if argument.has_default else None,
            )
            for index, argument in enumerate(schema.arguments)
        ]
        self.schema = schema
        self._positional = tuple(p for p, a in zip(params, schema.arguments) if not a.kwarg_only)
        self._kwonly = tuple(p for p, a in zip(params, schema.arguments) if a.kwarg_only)
        self._n_positional = len(self._positional)
        # Keyword-only parameters follow the positional ones in every schema.
        self._params = self._positional + self._kwonly
        self._by_name = {p.name: p for p in params}
        self._declaration = str(schema)
        self._op_name = schema.name
        # The common call: every positional argument given, no keywords. Then binding is the
        # positional checks plus the keyword-only defaults.
        self._positional_checkers = tuple(p.checker for p in self._positional)
        self._kw_defaults = {p.name: p.default for p in self._kwonly}
        self._kw_checkers = {p.name: p.checker for p in self._kwonly}
        self._fast = all(p.has_default for p in self._kwonly)
        self._validate_only = all(c in _VALIDATORS for c in self._positional_checkers)
        # For n positional arguments given, the defaults of the rest (None where one of them
        # has no default, or a keyword-only argument has none): what OpOverload.call_validated
        # appends.
        self._default_tails: tuple[tuple[Any, ...] | None, ...] = tuple(
            tuple(p.default for p in self._positional[n:])
            if self._fast and all(p.has_default for p in self._positional[n:])
            else None
            for n in range(self._n_positional + 1)
        )
        self._valid_types: set[tuple[type, ...]] = set()

    def validates_types_only(self, n_args: int) -> bool:
        """Whether binding `n_args` positional arguments (no keywords) accepts or refuses them
        by their count and types alone: the checkers of the positions given only validate."""
        return all(c in _VALIDATORS for c in self._positional_checkers[:n_args])

    def completes(self, n_args: int) -> bool:
        """Whether OpOverload.call_validated completes calls of `n_args` positional arguments
        from the defaults (`_default_tails`) without the full bind."""
        return n_args <= self._n_positional and self._default_tails[n_args] is not None

    def bind(
        self, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """`(args, kwargs)` normalised to the schema, or SchemaMatchError with torch's text.

        Torch: createStackForSchema, whose order of checks decides which message a call gets:
        the total count, then each positional value in order, then the remaining parameters
        from the keywords or their defaults, then leftover keywords.
        """
        n = len(args)
        tail = self._default_tails[n] if n <= self._n_positional else None
        if tail is not None:
            # The common call: positional arguments given in order (the omitted ones have
            # defaults), keyword-only ones by name or default. Any refusal falls through to
            # the general path and its torch text.
            try:
                if self._validate_only:
                    # Validators accept by type alone: a type pattern that passed once passes.
                    types = tuple(map(type, args))
                    if types not in self._valid_types:
                        for check, value in zip(self._positional_checkers, args):
                            check(value)
                        if len(self._valid_types) < 64:
                            self._valid_types.add(types)
                    checked = tuple(args)
                else:
                    # A loop, not a comprehension: CPython 3.11 gives a comprehension a frame.
                    converted: list[Any] = []
                    for check, value in zip(self._positional_checkers, args):
                        converted.append(check(value))
                    checked = tuple(converted)
                if tail:
                    checked += tail
                bound = dict(self._kw_defaults)
                if kwargs:
                    kw_checkers = self._kw_checkers
                    for name, value in kwargs.items():
                        bound[name] = kw_checkers[name](value)
            except (CastError, KeyError):
                pass  # the general path below reports the error in torch's words
            else:
                return checked, bound
        n_params = self._n_positional + len(self._kwonly)
        if n + len(kwargs) > n_params:
            raise SchemaMatchError(
                f"{self._op_name}() expected at most {n_params} argument(s) but received "
                f"{n + len(kwargs)} argument(s). Declaration: {self._declaration}"
            )
        positional = self._positional
        out = list(args)
        for i in range(n):
            if i == self._n_positional:
                raise SchemaMatchError(
                    f"{self._op_name}() takes {self._n_positional} positional argument(s) but "
                    f"{n} was/were given.  Declaration: {self._declaration}"
                )
            out[i] = self._convert(positional[i], args[i])
        out_kwargs: dict[str, Any] = {}
        consumed = 0
        for param in self._params[n:]:
            if param.name in kwargs:
                value = self._convert(param, kwargs[param.name])
                consumed += 1
            elif param.has_default:
                value = param.default
            else:
                raise SchemaMatchError(
                    f"{self._op_name}() is missing value for argument '{param.name}'. "
                    f"Declaration: {self._declaration}"
                )
            if param.position < self._n_positional:
                out.append(value)
            else:
                out_kwargs[param.name] = value
        if consumed != len(kwargs):
            raise SchemaMatchError(self._kwargs_error(kwargs))
        return tuple(out), out_kwargs

    def _convert(self, param: Parameter, value: Any) -> Any:
        try:
            return param.checker(value)
        except CastError as error:
            raise self._type_error(param, value, error) from None

    def _kwargs_error(self, kwargs: dict[str, Any]) -> str:
        # torch: FunctionSchema::findErrorInKwargs
        for name in kwargs:
            if name not in self._by_name:
                return (
                    f"Unknown keyword argument '{name}' for operator '{self._op_name}'. "
                    f"Schema: {self._declaration}"
                )
        duplicated = next(name for name in self._by_name if name in kwargs)
        return (
            f"Argument '{duplicated}' specified both as positional and keyword argument. "
            f"Schema: {self._declaration}"
        )

    def _type_error(self, param: Parameter, value: object, error: CastError) -> SchemaMatchError:
        return SchemaMatchError(
            lambda: (
                f"{self._op_name}() Expected a value of type '{param.type_str}' for "
                f"argument '{param.name}' but instead found type '{_type_name(value)}'.\n"
                f"Position: {param.position}\n"
                f"Value: {value!r}\n"
                f"Declaration: {self._declaration}\n"
                f"Cast error details: {error}"
            )
        )


def as_runtime_error(error: SchemaMatchError) -> RuntimeError:
    """The error a user sees for a call that fits no schema: a plain RuntimeError, as torch's."""
    return RuntimeError(str(error))


class NoMatchingSchema(RuntimeError):
    """No overload of a packet accepts the arguments (torch raises a plain RuntimeError; the
    subclass lets the torch API layer turn it into the TypeError torch's Python binding
    raises). It prints as torch's plain RuntimeError.
    """


NoMatchingSchema.__name__ = NoMatchingSchema.__qualname__ = "RuntimeError"
NoMatchingSchema.__module__ = "builtins"


def match_failure(reasons: Sequence[SchemaMatchError]) -> RuntimeError:
    """The packet's error when no overload accepts the arguments. Torch: getOpWithStack.

    A packet with a single overload raises that overload's own error instead.
    """
    if len(reasons) == 1:
        return NoMatchingSchema(str(reasons[0]))
    return NoMatchingSchema(
        "Overloaded torch operator invoked from Python failed to match any schema:\n"
        + "\n\n".join(map(str, reasons))
    )
