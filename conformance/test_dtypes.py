"""Dtype rules against torch: promote_types, result_type, can_cast, default dtype, finfo, iinfo.

Every case makes the same call on torch and on refimpl and compares dtype names (or values,
or the exception's type and message). result_type runs on both default dtypes (the
`default_dtype` fixture in conftest.py), because Python floats and complex numbers promote as
the default dtype.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
import torch

import refimpl
from conformance.conftest import default_dtype_in_both

# The dtypes the built-in backends store, and those refimpl only names (meta tensors, finfo).
# fmt: off
STORED: Final = (
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "complex64", "complex128",
)
# fmt: on
EVERY: Final = (*STORED, "bfloat16", "complex32")
SCALARS: Final[tuple[bool | int | float | complex, ...]] = (True, 2, 2.5, 1j)
KINDS: Final = ("dim", "0d")  # a 1-d tensor of 2 elements; a 0-dim tensor

LIBRARIES: Final = (torch, refimpl)

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")


def name_of(dtype: object) -> str:
    return str(dtype).removeprefix("torch.").removeprefix("refimpl.")


def outcome(call: Callable[[], object]) -> tuple[str, str]:
    """What a call did: ("ok", its result) or (exception type name, message)."""
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the exception is the value compared
        return type(error).__name__, str(error)
    if isinstance(result, torch.dtype | refimpl.dtype):
        return "ok", name_of(result)
    return "ok", repr(result)


def same_in_both(call: Callable[[Any], object]) -> None:
    """Run `call(lib)` on torch and refimpl; both must give the same outcome."""
    expected = outcome(lambda: call(torch))
    actual = outcome(lambda: call(refimpl))
    assert actual == expected


_TENSORS: dict[tuple[str, str, str], Any] = {}


def tensor(lib: Any, dtype: str, kind: str) -> Any:
    """A meta tensor of `dtype`: 1-d ("dim") or 0-dim ("0d"); made once per library.

    Promotion reads only dtype and dim, so meta tensors (no data) let every dtype take part,
    bfloat16 and complex32 included, whatever the backend stores.
    """
    key = (lib.__name__, dtype, kind)
    if key not in _TENSORS:
        shape = (2,) if kind == "dim" else ()
        _TENSORS[key] = lib.empty(shape, dtype=getattr(lib, dtype), device="meta")
    return _TENSORS[key]


def operand_id(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


# --- promote_types and can_cast --------------------------------------------------------------

DTYPE_PAIRS: Final = list(itertools.product(EVERY, EVERY))


@pytest.mark.parametrize(("a", "b"), DTYPE_PAIRS, ids=[f"{a}-{b}" for a, b in DTYPE_PAIRS])
def test_promote_types(a: str, b: str) -> None:
    same_in_both(lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)))


@pytest.mark.parametrize(("a", "b"), DTYPE_PAIRS, ids=[f"{a}-{b}" for a, b in DTYPE_PAIRS])
def test_can_cast(a: str, b: str) -> None:
    same_in_both(lambda lib: lib.can_cast(getattr(lib, a), getattr(lib, b)))


# --- result_type ---------------------------------------------------------------------------

TENSOR_OPERANDS: Final = [f"{dtype}_{kind}" for kind in KINDS for dtype in EVERY]


def make(lib: Any, operand: str | bool | complex) -> Any:
    """A tensor for "<dtype>_<kind>", or the Python number itself."""
    if not isinstance(operand, str):
        return operand
    dtype, kind = operand.rsplit("_", 1)
    return tensor(lib, dtype, kind)


TENSOR_PAIRS: Final = list(itertools.product(TENSOR_OPERANDS, TENSOR_OPERANDS))


@pytest.mark.parametrize(("a", "b"), TENSOR_PAIRS, ids=[f"{a}-{b}" for a, b in TENSOR_PAIRS])
def test_result_type_tensors(default_dtype: str, a: str, b: str) -> None:
    same_in_both(lambda lib: lib.result_type(make(lib, a), make(lib, b)))


SCALAR_PAIRS: Final = [
    pair for t, s in itertools.product(TENSOR_OPERANDS, SCALARS) for pair in ((t, s), (s, t))
] + list(itertools.product(SCALARS, SCALARS))
SCALAR_PAIR_IDS: Final = [f"{operand_id(a)}-{operand_id(b)}" for a, b in SCALAR_PAIRS]


@pytest.mark.parametrize(("a", "b"), SCALAR_PAIRS, ids=SCALAR_PAIR_IDS)
def test_result_type_python_numbers(default_dtype: str, a: object, b: object) -> None:
    same_in_both(lambda lib: lib.result_type(make(lib, a), make(lib, b)))  # type: ignore[arg-type]


@pytest.fixture(params=["float16", "bfloat16"], ids=["default_f16", "default_bf16"])
def low_precision_default(request: pytest.FixtureRequest) -> Iterator[str]:
    """The other legal default dtypes: float16 makes 1j complex32, bfloat16 complex64."""
    with default_dtype_in_both(request.param) as name:
        yield name


@pytest.mark.parametrize(("a", "b"), SCALAR_PAIRS, ids=SCALAR_PAIR_IDS)
def test_result_type_python_numbers_low_precision_default(
    low_precision_default: str, a: object, b: object
) -> None:
    same_in_both(lambda lib: lib.result_type(make(lib, a), make(lib, b)))  # type: ignore[arg-type]


CPU_PAIRS: Final = [
    ("int64", "dim", "float32", "0d"),
    ("bool", "dim", "int64", "0d"),
    ("float32", "0d", "int64", "dim"),
    ("int64", "dim", 2.5),
]


@pytest.mark.parametrize("pair", CPU_PAIRS, ids=lambda p: "-".join(map(str, p)))
def test_result_type_cpu_tensors(default_dtype: str, pair: tuple[Any, ...]) -> None:
    # The meta tensors above stand for any device; check that tensors with data agree too.
    def call(lib: Any) -> object:
        first = lib.zeros((2,) if pair[1] == "dim" else (), dtype=getattr(lib, pair[0]))
        if len(pair) == 3:
            return lib.result_type(first, pair[2])
        second = lib.zeros((2,) if pair[3] == "dim" else (), dtype=getattr(lib, pair[2]))
        return lib.result_type(first, second)

    same_in_both(call)


# Large ints: torch types [2**63, 2**64) as uint64 and rejects ints outside [-2**63, 2**64).
LARGE_INTS: Final = (-(2**63) - 1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 2**64)
LARGE_INT_PARTNERS: Final = (
    "int32_dim",
    "uint8_dim",
    "float32_dim",
    "bool_dim",
    "bool_0d",
    "complex64_dim",
    True,
    1,
    1.5,
    1j,
    2**63,
)
LARGE_INT_PAIRS: Final = [
    pair
    for value, partner in itertools.product(LARGE_INTS, LARGE_INT_PARTNERS)
    for pair in ((partner, value), (value, partner))
]


@pytest.mark.parametrize(
    ("a", "b"),
    LARGE_INT_PAIRS,
    ids=[f"{operand_id(a)}-{operand_id(b)}" for a, b in LARGE_INT_PAIRS],
)
def test_result_type_large_ints(a: object, b: object) -> None:
    same_in_both(lambda lib: lib.result_type(make(lib, a), make(lib, b)))  # type: ignore[arg-type]


# torch.result_type's keywords are its overloads' parameter names.
KEYWORD_CALLS: Final[dict[str, Callable[[Any], object]]] = {
    "tensor=,other=tensor": lambda lib: lib.result_type(
        tensor=tensor(lib, "int8", "dim"), other=tensor(lib, "int64", "0d")
    ),
    "other=number,tensor=": lambda lib: lib.result_type(
        other=2.5, tensor=tensor(lib, "int8", "dim")
    ),
    "scalar=,tensor=": lambda lib: lib.result_type(scalar=1j, tensor=tensor(lib, "int8", "dim")),
    "number,tensor=": lambda lib: lib.result_type(2, tensor=tensor(lib, "uint8", "dim")),
    "scalar1=,scalar2=": lambda lib: lib.result_type(scalar1=2, scalar2=2.5),
    "number,scalar2=": lambda lib: lib.result_type(True, scalar2=1j),
}


@pytest.mark.parametrize("name", list(KEYWORD_CALLS))
def test_result_type_keywords(default_dtype: str, name: str) -> None:
    same_in_both(KEYWORD_CALLS[name])


# --- default dtype -------------------------------------------------------------------------


def test_default_dtype(default_dtype: str) -> None:
    same_in_both(lambda lib: lib.get_default_dtype())


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_set_default_dtype(name: str) -> None:
    saved_torch, saved_refimpl = torch.get_default_dtype(), refimpl.get_default_dtype()
    try:
        for lib in LIBRARIES:
            lib.set_default_dtype(getattr(lib, name))
        same_in_both(lambda lib: lib.get_default_dtype())
    finally:
        torch.set_default_dtype(saved_torch)
        refimpl.set_default_dtype(saved_refimpl)


# --- finfo and iinfo -----------------------------------------------------------------------

FINFO_ATTRIBUTES: Final = (
    "bits",
    "eps",
    "max",
    "min",
    "tiny",
    "smallest_normal",
    "resolution",
    "dtype",
)
FLOATING: Final = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex32",
    "complex64",
    "complex128",
)
INTEGRAL: Final = ("uint8", "int8", "int16", "int32", "int64")


def info_attribute(info: object, attribute: str) -> tuple[str, object]:
    # Compare the value and its Python type: torch gives floats, and ints for bits.
    value = getattr(info, attribute)
    return type(value).__name__, value


@pytest.mark.parametrize("attribute", [*FINFO_ATTRIBUTES, "repr"])
@pytest.mark.parametrize("dtype", FLOATING)
def test_finfo(dtype: str, attribute: str) -> None:
    def read(lib: Any) -> object:
        info = lib.finfo(getattr(lib, dtype))
        return repr(info) if attribute == "repr" else info_attribute(info, attribute)

    same_in_both(read)


def test_finfo_of_default_dtype(default_dtype: str) -> None:
    same_in_both(lambda lib: repr(lib.finfo()))


@pytest.mark.parametrize("attribute", ["bits", "max", "min", "dtype", "repr"])
@pytest.mark.parametrize("dtype", INTEGRAL)
def test_iinfo(dtype: str, attribute: str) -> None:
    def read(lib: Any) -> object:
        info = lib.iinfo(getattr(lib, dtype))
        return repr(info) if attribute == "repr" else info_attribute(info, attribute)

    same_in_both(read)


def test_finfo_equality() -> None:
    same_in_both(lambda lib: lib.finfo(lib.complex64) == lib.finfo(lib.float32))
    same_in_both(lambda lib: lib.finfo(lib.float16) == lib.finfo(lib.bfloat16))
    same_in_both(lambda lib: lib.iinfo(lib.int8) == lib.iinfo(lib.int8))
    same_in_both(lambda lib: lib.finfo(lib.float32) == lib.iinfo(lib.int32))


# --- errors --------------------------------------------------------------------------------

ERROR_CASES: Final[dict[str, Callable[[Any], object]]] = {
    "set_default_dtype(int64)": lambda lib: lib.set_default_dtype(lib.int64),
    "set_default_dtype(complex64)": lambda lib: lib.set_default_dtype(lib.complex64),
    "set_default_dtype(complex32)": lambda lib: lib.set_default_dtype(lib.complex32),
    "set_default_dtype(bool)": lambda lib: lib.set_default_dtype(lib.bool),
    "set_default_dtype(uint8)": lambda lib: lib.set_default_dtype(lib.uint8),
    "set_default_dtype(None)": lambda lib: lib.set_default_dtype(None),
    "set_default_dtype(1)": lambda lib: lib.set_default_dtype(1),
    "set_default_dtype(str)": lambda lib: lib.set_default_dtype("float64"),
    "finfo(int32)": lambda lib: lib.finfo(lib.int32),
    "finfo(bool)": lambda lib: lib.finfo(lib.bool),
    "finfo(1)": lambda lib: lib.finfo(1),
    "finfo(None)": lambda lib: lib.finfo(None),
    "finfo(str)": lambda lib: lib.finfo("float32"),
    "iinfo(float32)": lambda lib: lib.iinfo(lib.float32),
    "iinfo(complex64)": lambda lib: lib.iinfo(lib.complex64),
    "iinfo(bfloat16)": lambda lib: lib.iinfo(lib.bfloat16),
    "iinfo(bool)": lambda lib: lib.iinfo(lib.bool),
    "iinfo(1)": lambda lib: lib.iinfo(1),
    "iinfo(None)": lambda lib: lib.iinfo(None),
    "promote_types(int, dtype)": lambda lib: lib.promote_types(1, lib.int8),
    "promote_types(dtype, str)": lambda lib: lib.promote_types(lib.int8, "x"),
    "can_cast(int, dtype)": lambda lib: lib.can_cast(1, lib.int8),
    "can_cast(dtype, None)": lambda lib: lib.can_cast(lib.int8, None),
    "result_type()": lambda lib: lib.result_type(),
    "result_type(t)": lambda lib: lib.result_type(tensor(lib, "float32", "dim")),
    "result_type(t, t, t)": lambda lib: lib.result_type(*[tensor(lib, "float32", "dim")] * 3),
    "result_type(t, str)": lambda lib: lib.result_type(tensor(lib, "float32", "dim"), "a"),
    "result_type(str, t)": lambda lib: lib.result_type("a", tensor(lib, "float32", "dim")),
    "result_type(t, None)": lambda lib: lib.result_type(tensor(lib, "float32", "dim"), None),
    "result_type(int, str)": lambda lib: lib.result_type(2, "a"),
    "result_type(t, dtype)": lambda lib: lib.result_type(tensor(lib, "int8", "dim"), lib.int32),
    "result_type(t, list)": lambda lib: lib.result_type(tensor(lib, "int8", "dim"), [1, 2.0]),
    "result_type(t, 1-tuple)": lambda lib: lib.result_type(tensor(lib, "int8", "dim"), (1,)),
    "result_type(t, empty list)": lambda lib: lib.result_type(tensor(lib, "int8", "dim"), []),
    "result_type(t, other=str)": lambda lib: lib.result_type(tensor(lib, "int8", "dim"), other="a"),
    "result_type(t, tensor=t)": lambda lib: lib.result_type(
        tensor(lib, "int8", "dim"), tensor=tensor(lib, "int8", "dim")
    ),
    "result_type(int, scalar1=float)": lambda lib: lib.result_type(2, scalar1=2.5),
    "result_type(tensor1=t)": lambda lib: lib.result_type(tensor1=tensor(lib, "int8", "dim")),
}


@pytest.fixture
def restore_default_dtype() -> Iterator[None]:
    saved_torch, saved_refimpl = torch.get_default_dtype(), refimpl.get_default_dtype()
    try:
        yield
    finally:
        torch.set_default_dtype(saved_torch)
        refimpl.set_default_dtype(saved_refimpl)


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_error_matches_torch(restore_default_dtype: None, name: str) -> None:
    expected = outcome(lambda: ERROR_CASES[name](torch))
    assert expected[0] != "ok", "the case must fail in torch"
    assert outcome(lambda: ERROR_CASES[name](refimpl)) == expected


# --- dtype objects ---------------------------------------------------------------------------

DTYPE_NAMES: Final = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex32", "complex64", "complex128",
]
ALIAS_NAMES: Final = [
    "float", "double", "half", "long", "int", "short", "cfloat", "cdouble", "chalf",
]


def _dtype_facts(lib: Any, name: str) -> tuple[object, ...]:
    d = getattr(lib, name)

    def convert(method: str) -> object:
        try:
            return str(getattr(d, method)()).split(".")[-1]
        except RuntimeError as error:
            return ("RuntimeError", str(error))

    return (
        d.is_floating_point, d.is_complex, d.is_signed, d.itemsize,
        convert("to_real"), convert("to_complex"), str(d).split(".")[-1],
    )


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_attributes_match_torch(name: str) -> None:
    assert _dtype_facts(refimpl, name) == _dtype_facts(torch, name)
    assert repr(getattr(refimpl, name)) == repr(getattr(torch, name)).replace("torch.", "refimpl.")


@pytest.mark.parametrize("alias", ALIAS_NAMES)
def test_dtype_aliases_match_torch(alias: str) -> None:
    expected = str(getattr(torch, alias)).split(".")[-1]
    assert getattr(refimpl, alias) is getattr(refimpl, expected)
