"""The public promotion functions: `result_type`, `promote_types` and `can_cast`.

Torch: torch.result_type, torch.promote_types and torch.can_cast. The rules themselves live
in `refimpl/_base/promotion.py`; this module checks and classifies the Python arguments.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, cast

from refimpl._base import promotion
from refimpl._base.dtypes import DType
from refimpl._base.promotion import OperandKind

Number = bool | int | float | complex

# The Python types torch's argument parser takes as a Number (bool and int subclasses included).
_NUMBER_TYPES: Final = (bool, int, float, complex)


class TensorLike(Protocol):
    """What promotion reads from a tensor: its dtype and its number of dimensions.

    Torch: torch.Tensor. Any object with a refimpl `dtype` and a `dim()` method counts, so this
    module does not import the Tensor class (see `api/tensor.py`).
    """

    @property
    def dtype(self) -> DType: ...

    def dim(self) -> int: ...


def _is_tensor(value: object) -> bool:
    return (
        not isinstance(value, _NUMBER_TYPES)
        and isinstance(getattr(value, "dtype", None), DType)
        and callable(getattr(value, "dim", None))
    )


def _operand(value: object) -> tuple[DType, OperandKind]:
    """The dtype and promotion kind of an argument already checked to be a number or tensor."""
    if isinstance(value, _NUMBER_TYPES):
        return promotion.scalar_dtype(value), OperandKind.WRAPPED
    tensor = cast(TensorLike, value)
    kind = OperandKind.ZERO_DIM if tensor.dim() == 0 else OperandKind.DIMENSIONED
    return tensor.dtype, kind


# --- result_type ---------------------------------------------------------------------------


class _Param(enum.Enum):
    """A parameter type of torch's Python argument parser, by its printed name."""

    TENSOR = "Tensor"
    NUMBER = "Number"


@dataclass(frozen=True, slots=True)
class _Signature:
    """One overload as torch's Python argument parser lists it: `(Tensor tensor, Number other)`."""

    params: tuple[tuple[_Param, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.params)

    def __str__(self) -> str:
        return "(" + ", ".join(f"{kind.value} {name}" for kind, name in self.params) + ")"


_T, _N = _Param.TENSOR, _Param.NUMBER

# torch: the signatures of THPVariable_result_type (generated python_torch_functions.cpp),
# tried in this order; the names are the keywords each overload accepts.
_RESULT_TYPE_SIGNATURES: Final = (
    _Signature(((_T, "tensor"), (_T, "other"))),
    _Signature(((_N, "scalar"), (_T, "tensor"))),
    _Signature(((_T, "tensor"), (_N, "other"))),
    _Signature(((_N, "scalar1"), (_N, "scalar2"))),
)
del _T, _N


def _accepts(param: _Param, value: object) -> bool:
    if param is _Param.TENSOR:
        return _is_tensor(value)
    return isinstance(value, _NUMBER_TYPES)


def _bind(
    signature: _Signature, args: Sequence[object], kwargs: Mapping[str, object]
) -> list[object] | None:
    """The arguments in `signature`'s order, or None if the call does not fit it."""
    if len(args) + len(kwargs) != len(signature.params) or len(args) > len(signature.params):
        return None
    values = list(args)
    for name in signature.names[len(args) :]:
        if name not in kwargs:
            return None
        values.append(kwargs[name])
    for (param, _), value in zip(signature.params, values, strict=True):
        if not _accepts(param, value):
            return None
    return values


def result_type(*args: TensorLike | Number, **kwargs: TensorLike | Number) -> DType:
    """The dtype an arithmetic op on two tensors or Python numbers computes in.

    Torch: torch.result_type(tensor1, tensor2) (at::native::result_type,
    aten/src/ATen/native/TypeProperties.cpp). Either argument may be a Python number;
    keywords are the overloads' names (`tensor=`, `other=`, `scalar=`, `scalar1=`,
    `scalar2=`). See Note [Result type of mixed operands] in `_base/promotion.py`.
    """
    for signature in _RESULT_TYPE_SIGNATURES:
        values = _bind(signature, args, kwargs)
        if values is not None:
            return promotion.result_type_of(_operand(value) for value in values)
    raise TypeError(_invalid_arguments("result_type", _RESULT_TYPE_SIGNATURES, args, kwargs))


# --- promote_types and can_cast ------------------------------------------------------------


def _check_dtype(function: str, name: str, position: int, value: object) -> DType:
    # torch: the "ScalarType" parameter check of PythonArgParser
    # (torch/csrc/utils/python_arg_parser.cpp).
    # Differs: torch leaves out "(position N)" when the argument was passed by keyword.
    if not isinstance(value, DType):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be torch.dtype, "
            f"not {_type_name(value)}"
        )
    return value


def promote_types(type1: DType, type2: DType) -> DType:
    """The smallest dtype both `type1` and `type2` convert to without changing category.

    Torch: torch.promote_types (c10::promoteTypes). See Note [Promotion table].
    """
    return promotion.promote_types(
        _check_dtype("promote_types", "type1", 1, type1),
        _check_dtype("promote_types", "type2", 2, type2),
    )


def can_cast(from_: DType, to: DType) -> bool:
    """Whether torch's casting rules allow converting `from_` to `to` (same or higher category).

    Torch: torch.can_cast (c10::canCast).
    """
    return promotion.can_cast(
        _check_dtype("can_cast", "from_", 1, from_),
        _check_dtype("can_cast", "to", 2, to),
    )


# --- torch's "invalid combination of arguments" message ------------------------------------

# The names torch's messages give refimpl's own classes (their C type names in torch).
_TORCH_TYPE_NAMES: Final[dict[type, str]] = {DType: "torch.dtype"}


def _type_name(value: object) -> str:
    # torch prints Py_TYPE(value)->tp_name: a class's __name__, "torch.dtype" for a dtype.
    cls = type(value)
    return _TORCH_TYPE_NAMES.get(cls, cls.__name__)


def _describe(value: object) -> str:
    # torch: _formattedArgDesc in torch/csrc/utils/invalid_arguments.cpp lists the element
    # types of a tuple or list.
    if isinstance(value, tuple):
        items = ", ".join(_type_name(item) for item in value)
        return f"tuple of ({items}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return f"list of [{', '.join(_type_name(item) for item in value)}]"
    return _type_name(value)


def _matches_by_name(param: _Param, value: object) -> bool:
    # torch's message marks an argument by comparing its type's name with the parameter's
    # type name, so a Tensor subclass is marked and a Number never matches.
    return param is _Param.TENSOR and _type_name(value) == "Tensor"


def _join_like_torch(items: Sequence[str], *, has_positional: bool) -> str:
    # torch writes "item, " for each argument and removes the last ", " only when there were
    # positional arguments, so a keyword-only call ends in ", ": "(tensor=Tensor, )".
    text = "".join(f"{item}, " for item in items)
    return text[:-2] if has_positional else text


def _invalid_arguments(
    function: str,
    signatures: Sequence[_Signature],
    args: Sequence[object],
    kwargs: Mapping[str, object],
) -> str:
    """torch's TypeError text for a call that fits none of a function's overloads.

    Torch: format_invalid_args in torch/csrc/utils/invalid_arguments.cpp (several overloads,
    no terminal colours).
    Differs: torch lists keyword arguments in std::unordered_map order; refimpl in call order.
    """
    got = _join_like_torch(
        [_type_name(a) for a in args] + [f"{name}={_type_name(v)}" for name, v in kwargs.items()],
        has_positional=bool(args),
    )
    header = (
        f"{function}() received an invalid combination of arguments - got ({got}), "
        "but expected one of:"
    )
    lines = [header]
    count = len(args) + len(kwargs)
    for signature in signatures:
        lines.append(f" * {signature}")
        if count != len(signature.params):
            continue
        start = max(len(signature.params) - len(kwargs), 0)
        unmatched = [name for name in kwargs if name not in signature.names[start:]]
        if unmatched:
            lines.append(
                "      didn't match because some of the keywords were incorrect: "
                + ", ".join(unmatched)
            )
            continue
        marked = []
        for i, (param, name) in enumerate(signature.params):
            is_keyword = i >= len(args)
            value = kwargs[name] if is_keyword else args[i]
            text = f"{name}={_describe(value)}" if is_keyword else _describe(value)
            marked.append(text if _matches_by_name(param, value) else f"!{text}!")
        lines.append(
            "      didn't match because some of the arguments have invalid types: "
            f"({_join_like_torch(marked, has_positional=bool(args))})"
        )
    return "\n".join(lines) + "\n"
