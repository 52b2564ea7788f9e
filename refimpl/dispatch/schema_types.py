"""The types of PyTorch's schema language: `Tensor?`, `int[2]`, `Dict(str, t)`, `Union(int, str)`.

Torch: c10::Type and its subclasses (ATen/core/jit_type.h, union_type.cpp) as
torch/csrc/jit/frontend/schema_type_parser.cpp builds them. Parsing lives in `schema.py`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

# --- types -------------------------------------------------------------------------------------

# Note [Schema types]
# torch keeps two types per argument: the "real" type as spelled (ScalarType, SymInt) and a
# "fake" type that reads ScalarType, Layout, MemoryFormat and SymInt as int; `arg.type` is the
# fake one, `str(schema)` prints the real one. Here an argument keeps one type object: its
# `schema_str()` is the real spelling and its `str()` is what torch prints for the fake type.
# Types nested in tuples, dicts, unions, futures, rrefs and awaits are fake in torch already
# (`(ScalarType, int)` prints as `(int, int)`), so the parser stores them through `fake()`.


class TypeKind(enum.IntEnum):
    """Type kinds in c10's order, which orders the members of a Union.

    Torch: c10::TypeKind (C10_FORALL_TYPES in ATen/core/jit_type_base.h).
    """

    Any = 0
    Enum = 1
    AnyEnum = 2
    Tensor = 3
    Storage = 4
    Tuple = 5
    List = 6
    Dict = 7
    Number = 8
    Float = 9
    Complex = 10
    Future = 11
    Await = 12
    RRef = 13
    Int = 14
    NoneType = 15
    String = 16
    Generator = 17
    Quantizer = 18
    Bool = 19
    Optional = 20
    Var = 21
    DeviceObj = 22
    StreamObj = 23
    Function = 24
    Class = 25
    PyObject = 26
    Capsule = 27
    Interface = 28
    QScheme = 29
    ScalarType = 30
    Layout = 31
    MemoryFormat = 32
    AnyList = 33
    AnyTuple = 34
    AnyClass = 35
    SymInt = 36
    SymFloat = 37
    SymBool = 38
    Union = 39
    Dynamic = 40


class SchemaType:
    """A type of the schema language; `str()` is torch's `str(arg.type)`.

    Torch: c10::Type (ATen/core/jit_type.h). See Note [Schema types].
    """

    __slots__ = ()

    @property
    def kind(self) -> TypeKind:
        """Which c10 type this is. Torch: c10::Type::kind()."""
        raise NotImplementedError

    def schema_str(self) -> str:
        """The spelling in a schema string (`Tensor?`, `int[]`). Torch: c10::Type::str()."""
        raise NotImplementedError

    def fake(self) -> SchemaType:
        """This type with ScalarType, Layout, MemoryFormat and SymInt read as int."""
        return self


@dataclass(frozen=True, slots=True)
class BaseType(SchemaType):
    """A named type without parameters: Tensor, int, Scalar, Device, ...

    Torch: the entries of SchemaTypeParser::parseBaseType's table.
    """

    name: str
    annotation: str
    type_kind: TypeKind

    @property
    def kind(self) -> TypeKind:
        return self.type_kind

    def schema_str(self) -> str:
        return self.name

    def fake(self) -> SchemaType:
        return INT if self.type_kind in _READ_AS_INT else self

    def __str__(self) -> str:
        return self.annotation


@dataclass(frozen=True, slots=True)
class VarType(SchemaType):
    """A type variable such as `t`: a lowercase name that is no known type. Torch: c10::VarType."""

    name: str

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Var

    def schema_str(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ClassType(SchemaType):
    """A custom class, `__torch__.torch.classes.<ns>.<name>`. Torch: c10::ClassType."""

    qualified_name: str

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Class

    def schema_str(self) -> str:
        return self.qualified_name

    def __str__(self) -> str:
        return self.qualified_name


@dataclass(frozen=True, slots=True)
class ListType(SchemaType):
    """`T[]`, or `T[N]` (`int[2]`), whose size only arguments spell. Torch: c10::ListType.

    torch keeps N on the Argument (`arg.N`); here it is the list type's `size`.
    """

    element: SchemaType
    size: int | None = None

    @property
    def kind(self) -> TypeKind:
        return TypeKind.List

    def schema_str(self) -> str:
        return f"{self.element.schema_str()}[{'' if self.size is None else self.size}]"

    def fake(self) -> SchemaType:
        return ListType(self.element.fake(), self.size)

    def __str__(self) -> str:
        return f"List[{self.element}]"


@dataclass(frozen=True, slots=True)
class OptionalType(SchemaType):
    """`T?`. Torch: c10::OptionalType."""

    element: SchemaType

    @staticmethod
    def of(element: SchemaType) -> SchemaType:
        """`element?`, standardized as torch's OptionalType constructor does.

        Torch: OptionalType::OptionalType (ATen/core/union_type.cpp), which builds the union
        `element | None`: `int??` is `int?`, `Scalar??` is `Union(Scalar)?`, and
        `Union(int, float, complex)?` is `Scalar?`.
        """
        if not isinstance(element, (UnionType, OptionalType)) and element not in (NUMBER, NONE):
            return OptionalType(element)  # `T | None` has nothing to fold
        members = _standardize([element, NONE])
        if len(members) == 1:
            raise _single_type_union([element, NONE], members[0])
        others = [member for member in members if member != NONE]
        if len(members) == 2:
            return OptionalType(others[0])
        if element == NUMBER or (
            isinstance(element, UnionType) and len(element.members) == 3 and element.holds_number
        ):
            return OptionalType(NUMBER)
        return OptionalType(make_union(others))

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Optional

    def schema_str(self) -> str:
        return f"{self.element.schema_str()}?"

    def fake(self) -> SchemaType:
        return OptionalType(self.element.fake())

    def __str__(self) -> str:
        return f"Optional[{self.element}]"


@dataclass(frozen=True, slots=True)
class TupleType(SchemaType):
    """`(T1, T2)`. Torch: c10::TupleType."""

    elements: tuple[SchemaType, ...]

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Tuple

    def schema_str(self) -> str:
        return "(" + ", ".join(element.schema_str() for element in self.elements) + ")"

    def __str__(self) -> str:
        return "Tuple[" + (", ".join(map(str, self.elements)) or "()") + "]"


@dataclass(frozen=True, slots=True)
class DictType(SchemaType):
    """`Dict(K, V)`. Torch: c10::DictType."""

    key: SchemaType
    value: SchemaType

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Dict

    def schema_str(self) -> str:
        return f"Dict({self.key.schema_str()}, {self.value.schema_str()})"

    def __str__(self) -> str:
        return f"Dict[{self.key}, {self.value}]"


@dataclass(frozen=True, slots=True)
class ParametricType(SchemaType):
    """`Future(T)`, `RRef(T)` or `Await(T)`. Torch: c10::FutureType, RRefType, AwaitType."""

    name: str
    element: SchemaType

    @property
    def kind(self) -> TypeKind:
        return _PARAMETRIC_KINDS[self.name]

    def schema_str(self) -> str:
        return f"{self.name}({self.element.schema_str()})"

    def __str__(self) -> str:
        return f"{self.name}[{self.element}]"


@dataclass(frozen=True, slots=True)
class UnionType(SchemaType):
    """`Union(T1, T2, ...)`, members flattened, unified and sorted. Torch: c10::UnionType."""

    members: tuple[SchemaType, ...]

    @property
    def kind(self) -> TypeKind:
        return TypeKind.Union

    def schema_str(self) -> str:
        return self._format(annotation=False)

    def __str__(self) -> str:
        return self._format(annotation=True)

    @property
    def holds_number(self) -> bool:
        """Whether int, float and complex are all members. Torch: canHoldType(NumberType)."""
        return all(member in self.members for member in NUMBER_MEMBERS)

    def _format(self, annotation: bool) -> str:
        # torch: UnionType::unionStr in ATen/core/union_type.cpp. int, float and complex
        # together print as one trailing Scalar; the ", " before a member is written only
        # when it is not the first member, even if the first was folded into Scalar.
        folds = self.holds_number
        text, printed = "Union[" if annotation else "Union(", False
        for index, member in enumerate(self.members):
            if folds and member in NUMBER_MEMBERS:
                continue
            if index > 0:
                text += ", "
                printed = True
            text += str(member) if annotation else member.schema_str()
        if folds:
            text += (", " if printed else "") + (str(NUMBER) if annotation else "Scalar")
        return text + ("]" if annotation else ")")


TENSOR: Final = BaseType("Tensor", "Tensor", TypeKind.Tensor)
INT: Final = BaseType("int", "int", TypeKind.Int)
FLOAT: Final = BaseType("float", "float", TypeKind.Float)
COMPLEX: Final = BaseType("complex", "complex", TypeKind.Complex)
NUMBER: Final = BaseType("Scalar", "number", TypeKind.Number)
NONE: Final = BaseType("NoneType", "NoneType", TypeKind.NoneType)
NUMBER_MEMBERS: Final = (INT, FLOAT, COMPLEX)
_READ_AS_INT: Final = frozenset(
    {TypeKind.ScalarType, TypeKind.Layout, TypeKind.MemoryFormat, TypeKind.SymInt}
)
_PARAMETRIC_KINDS: Final = {
    "Future": TypeKind.Future,
    "RRef": TypeKind.RRef,
    "Await": TypeKind.Await,
}

# torch: the type_map of SchemaTypeParser::parseBaseType. Dimname is gone in this release.
BASE_TYPES: Final[dict[str, BaseType]] = {
    "Tensor": TENSOR,
    "Generator": BaseType("Generator", "Generator", TypeKind.Generator),
    "ScalarType": BaseType("ScalarType", "int", TypeKind.ScalarType),
    "Layout": BaseType("Layout", "int", TypeKind.Layout),
    "MemoryFormat": BaseType("MemoryFormat", "int", TypeKind.MemoryFormat),
    "Storage": BaseType("Storage", "Storage", TypeKind.Storage),
    "QScheme": BaseType("QScheme", "QScheme", TypeKind.QScheme),
    "Quantizer": BaseType("Quantizer", "Quantizer", TypeKind.Quantizer),
    "ConstQuantizerPtr": INT,
    "Device": BaseType("Device", "Device", TypeKind.DeviceObj),
    "DeviceIndex": INT,
    "Stream": BaseType("Stream", "Stream", TypeKind.StreamObj),
    "Scalar": NUMBER,
    "str": BaseType("str", "str", TypeKind.String),
    "float": FLOAT,
    "complex": COMPLEX,
    "int": INT,
    "SymInt": BaseType("SymInt", "int", TypeKind.SymInt),
    "SymBool": BaseType("SymBool", "bool", TypeKind.SymBool),
    "bool": BaseType("bool", "bool", TypeKind.Bool),
    "None": NONE,
    "NoneType": NONE,
    "Capsule": BaseType("Capsule", "Capsule", TypeKind.Capsule),
    "Any": BaseType("Any", "Any", TypeKind.Any),
    "AnyClassType": BaseType("AnyClassType", "AnyClassType", TypeKind.AnyClass),
    "AnyEnumType": BaseType("AnyEnumType", "AnyEnumType", TypeKind.AnyEnum),
}

# Custom classes registered by torch's own libraries (the classes named in
# torch._C._jit_get_custom_class_schemas() of torch 2.13, CPU build).
# Differs: torch consults its live class registry; refimpl registers no classes of its own.
CUSTOM_CLASSES: Final = frozenset(
    "__torch__.torch.classes." + name
    for name in (
        "_nnapi.Compilation", "aten.OpaqueObject", "backendutils.BackendDebugInfo",
        "c10d.ProcessGroup", "c10d.ReduceOp", "c10d.Work", "dist_rpc.WorkerInfo",
        "mkldnn.ConvOpContext", "profiling.InstructionStats", "profiling.SourceRef",
        "profiling.SourceStats", "profiling._ScriptProfile", "quantized.Conv2dPackedParamsBase",
        "quantized.Conv3dPackedParamsBase", "quantized.EmbeddingPackedParamsBase",
        "quantized.LinearPackedParamsBase", "rnn.CellParamsBase", "sparse.LinearPackedParamsBase",
    )
)  # fmt: skip

# torch: DictType::create in ATen/core/jit_type.h.
_DICT_KEY_KINDS: Final = frozenset(
    {
        TypeKind.Any, TypeKind.Int, TypeKind.Bool, TypeKind.Float, TypeKind.Complex,
        TypeKind.String, TypeKind.Tensor, TypeKind.DeviceObj,
    }
)  # fmt: skip


def is_tensor_like(schema_type: SchemaType) -> bool:
    """Whether arguments of this type take part in dispatch: Tensor, Tensor?, Tensor[], Tensor?[].

    Torch: makeBitsetForDispatchArgs in ATen/core/dispatch/DispatchKeyExtractor.h.
    """
    if isinstance(schema_type, ListType):
        schema_type = schema_type.element
        if isinstance(schema_type, OptionalType):
            schema_type = schema_type.element
    elif isinstance(schema_type, OptionalType):
        schema_type = schema_type.element
    return schema_type == TENSOR


def make_dict(key: SchemaType, value: SchemaType) -> DictType:
    """`Dict(key, value)`, for the key types torch allows. Torch: DictType::create (jit_type.h)."""
    if key.kind not in _DICT_KEY_KINDS:
        raise RuntimeError(
            f"Cannot create dict for key type '{key.schema_str()}', only int, float, complex, "
            "Tensor, device and string keys are supported"
        )
    return DictType(key, value)


def _same(first: SchemaType, second: SchemaType) -> bool:
    # torch: Type::equals. Type variables compare by kind only, so `t` equals `t1`.
    if isinstance(first, VarType) and isinstance(second, VarType):
        return True
    if isinstance(first, ListType) and isinstance(second, ListType):
        return _same(first.element, second.element)
    if isinstance(first, OptionalType) and isinstance(second, OptionalType):
        return _same(first.element, second.element)
    if isinstance(first, ParametricType) and isinstance(second, ParametricType):
        return first.name == second.name and _same(first.element, second.element)
    if isinstance(first, DictType) and isinstance(second, DictType):
        return _same(first.key, second.key) and _same(first.value, second.value)
    if isinstance(first, TupleType) and isinstance(second, TupleType):
        return len(first.elements) == len(second.elements) and all(
            map(_same, first.elements, second.elements)
        )
    if isinstance(first, UnionType) and isinstance(second, UnionType):
        return len(first.members) == len(second.members) and all(
            map(_same, first.members, second.members)
        )
    return first == second


def _is_subtype(sub: SchemaType, sup: SchemaType) -> bool:
    # torch: the isSubtypeOfExt overrides in ATen/core/jit_type.h, type.cpp and union_type.cpp,
    # for the types the schema language spells. Lists and dicts are invariant.
    if _same(sub, sup) or sup.kind is TypeKind.Any:
        return True
    if isinstance(sub, OptionalType):
        if isinstance(sup, OptionalType):
            return _is_subtype(sub.element, sup.element)
        return isinstance(sup, UnionType) and all(
            any(_is_subtype(member, option) for option in sup.members)
            for member in (sub.element, NONE)
        )
    if isinstance(sub, UnionType):
        return all(_is_subtype(member, sup) for member in sub.members)
    if isinstance(sup, OptionalType):
        return sub == NONE or _is_subtype(sub, sup.element)
    if isinstance(sup, UnionType):
        return any(_is_subtype(sub, member) for member in sup.members)
    if sup == NUMBER:
        return sub in NUMBER_MEMBERS
    if isinstance(sub, TupleType) and isinstance(sup, TupleType):
        return len(sub.elements) == len(sup.elements) and all(
            map(_is_subtype, sub.elements, sup.elements)
        )
    if isinstance(sub, ParametricType) and isinstance(sup, ParametricType):
        return sub.name == sup.name == "Future" and _is_subtype(sub.element, sup.element)
    return False


def _unify(first: SchemaType, second: SchemaType) -> SchemaType | None:
    # torch: unifyTypes(t1, t2, default_to_union=false) in ATen/core/type.cpp
    if _is_subtype(first, second):
        return second
    if _is_subtype(second, first):
        return first
    if first == NONE:
        return OptionalType.of(second)
    if second == NONE:
        return OptionalType.of(first)
    if isinstance(first, OptionalType):
        element = _unify(first.element, second)
        if element is not None:
            return OptionalType.of(element)
    if isinstance(second, OptionalType):
        element = _unify(first, second.element)
        if element is not None:
            return OptionalType.of(element)
    if isinstance(first, TupleType) and isinstance(second, TupleType):
        if len(first.elements) != len(second.elements):
            return None
        unified = [_unify(a, b) for a, b in zip(first.elements, second.elements, strict=True)]
        elements = tuple(element for element in unified if element is not None)
        return TupleType(elements) if len(elements) == len(unified) else None
    if (
        isinstance(first, ParametricType)
        and isinstance(second, ParametricType)
        and first.name == second.name == "Future"
    ):
        element = _unify(first.element, second.element)
        return None if element is None else ParametricType("Future", element)
    return None


def _merge_member(first: SchemaType, second: SchemaType) -> SchemaType | None:
    # torch: get_supertype in filterDuplicateSubtypes (union_type.cpp): None merges with
    # nothing else, so that members are not folded into an Optional too early.
    if (first == NONE) != (second == NONE):
        return None
    return _unify(first, second)


def _flatten_union(member: SchemaType, into: list[SchemaType]) -> None:
    # torch: flattenUnion in ATen/core/union_type.cpp; Scalar stands for int, float, complex.
    if isinstance(member, UnionType):
        for inner in member.members:
            _flatten_union(inner, into)
    elif isinstance(member, OptionalType):
        _flatten_union(member.element, into)
        into.append(NONE)
    elif member == NUMBER:
        into.extend(NUMBER_MEMBERS)
    else:
        into.append(member)


def _repr(schema_type: SchemaType) -> str:
    # torch: Type::repr_str; a class also names its (absent) compilation unit.
    if isinstance(schema_type, ClassType):
        return f"{schema_type} (of Python compilation unit at: 0)"
    return str(schema_type)


def _single_type_union(members: Sequence[SchemaType], single: SchemaType) -> RuntimeError:
    listed = "".join(f"{_repr(m)}{',' if index > 0 else ''} " for index, m in enumerate(members))
    return RuntimeError(
        'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/'
        'union_type.cpp":210, please report a bug to PyTorch. After type unification was '
        f"performed, the Union with the original types {{{listed}}} has the single type "
        f"{_repr(single)}. Use the common supertype instead of creating a Uniontype"
    )


def _standardize(members: Sequence[SchemaType]) -> list[SchemaType]:
    # torch: standardizeVectorForUnion in ATen/core/union_type.cpp: flatten, then merge each
    # member, from the right, into the first member on its left that it unifies with
    # (filterDuplicateSubtypes), then sort by kind and spelling (sortUnion).
    flat: list[SchemaType] = []
    for member in members:
        _flatten_union(member, flat)
    end = len(flat) - 1
    for i in range(len(flat) - 1, 0, -1):
        for j in range(min(i - 1, end), -1, -1):
            unified = _merge_member(flat[i], flat[j])
            if unified is not None:
                flat[j], flat[i] = unified, flat[end]
                end -= 1
                break
    return sorted(flat[: end + 1], key=lambda member: (member.kind, member.schema_str()))


def make_union(members: Sequence[SchemaType]) -> SchemaType:
    """The type `Union(members)`: flattened, unified, sorted; `T | None` gives `T?`.

    Torch: UnionType::create (ATen/core/union_type.cpp).
    """
    kept = _standardize(members)
    if len(kept) == 1:
        raise _single_type_union(members, kept[0])
    if NONE in kept:
        others = [member for member in kept if member != NONE]
        if len(others) == 1:
            return OptionalType.of(others[0])
        if len(others) == 3 and all(member in others for member in NUMBER_MEMBERS):
            return OptionalType.of(NUMBER)
    return UnionType(tuple(kept))
