"""Unit tests of refimpl's promotion rules and dtype limits, with torch as the expected value.

These call `refimpl._base.promotion`, `refimpl._base.finfo` and `refimpl.api.promotion`
directly (with a stand-in tensor), so they run without refimpl's Tensor. They cover what the
public API cannot reach: bfloat16 and complex32 operands (no backend stores them) and the
uint64 type torch gives large Python ints. `conformance/test_dtypes.py` checks the public API.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from refimpl._base import dtypes, promotion
from refimpl._base.dtypes import DType
from refimpl._base.finfo import finfo, iinfo
from refimpl._base.promotion import OperandKind
from refimpl.api import promotion as api

DTYPES = dtypes.ALL_DTYPES
DEFAULT_DTYPES = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)

# One Python number per category, as torch's tests use them.
SCALARS: tuple[bool | int | float | complex, ...] = (True, 2, 2.5, 1j)


def torch_dtype(dtype: DType) -> torch.dtype:
    result = getattr(torch, dtype.name)
    assert isinstance(result, torch.dtype)
    return result


def name_of(dtype: torch.dtype | DType) -> str:
    if isinstance(dtype, DType):
        return dtype.name
    return str(dtype).removeprefix("torch.")


def outcome(call: Callable[..., object], *args: Any, **kwargs: Any) -> tuple[str, str]:
    """What `call(*args, **kwargs)` did: ("ok", result name) or (exception type, message)."""
    try:
        result = call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the exception is the value compared
        return type(error).__name__, str(error)
    if isinstance(result, torch.dtype | DType):
        return "ok", name_of(result)
    return "ok", repr(result)


@pytest.fixture(params=DEFAULT_DTYPES, ids=lambda d: f"default_{d.name}")
def default_dtype(request: pytest.FixtureRequest) -> Iterator[DType]:
    """Set the same default dtype in torch and refimpl for one test, then restore both."""
    dtype: DType = request.param
    old_torch, old_refimpl = torch.get_default_dtype(), promotion.get_default_dtype()
    torch.set_default_dtype(torch_dtype(dtype))
    promotion.set_default_dtype(dtype)
    yield dtype
    torch.set_default_dtype(old_torch)
    promotion.set_default_dtype(old_refimpl)


# --- promote_types and can_cast --------------------------------------------------------------


def test_promote_types_every_pair() -> None:
    expected = {
        (a.name, b.name): outcome(torch.promote_types, torch_dtype(a), torch_dtype(b))
        for a, b in itertools.product(DTYPES, DTYPES)
    }
    actual = {
        (a.name, b.name): outcome(promotion.promote_types, a, b)
        for a, b in itertools.product(DTYPES, DTYPES)
    }
    assert actual == expected


@pytest.mark.parametrize("other", [*DTYPES, dtypes.uint64], ids=lambda d: d.name)
def test_promote_types_uint64(other: DType) -> None:
    u64 = dtypes.uint64
    for a, b in ((u64, other), (other, u64)):
        expected = outcome(torch.promote_types, torch_dtype(a), torch_dtype(b))
        assert outcome(promotion.promote_types, a, b) == expected


def test_can_cast_every_pair() -> None:
    every = [*DTYPES, dtypes.uint64]
    expected = {
        (a.name, b.name): torch.can_cast(torch_dtype(a), torch_dtype(b))
        for a, b in itertools.product(every, every)
    }
    actual = {
        (a.name, b.name): promotion.can_cast(a, b) for a, b in itertools.product(every, every)
    }
    assert actual == expected


# --- result_type_of ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Operand:
    """One result_type operand: a tensor of a dtype and kind, or a Python number."""

    kind: OperandKind
    dtype: DType | None = None  # tensors
    value: bool | int | float | complex | None = None  # Python numbers

    def for_torch(self) -> Any:
        if self.kind is OperandKind.WRAPPED:
            return self.value
        assert self.dtype is not None
        shape = () if self.kind is OperandKind.ZERO_DIM else (2,)
        with warnings.catch_warnings():
            # torch warns that complex32 support is experimental.
            warnings.simplefilter("ignore", UserWarning)
            return torch.zeros(shape, dtype=torch_dtype(self.dtype))

    def for_refimpl(self) -> tuple[DType, OperandKind]:
        if self.kind is OperandKind.WRAPPED:
            assert self.value is not None
            return promotion.scalar_dtype(self.value), self.kind
        assert self.dtype is not None
        return self.dtype, self.kind

    def __str__(self) -> str:
        if self.kind is OperandKind.WRAPPED:
            return repr(self.value)
        assert self.dtype is not None
        return f"{self.dtype.abbr}{'_0d' if self.kind is OperandKind.ZERO_DIM else ''}"


TENSORS = [
    Operand(kind, dtype)
    for kind in (OperandKind.DIMENSIONED, OperandKind.ZERO_DIM)
    for dtype in DTYPES
]
NUMBERS = [Operand(OperandKind.WRAPPED, value=v) for v in SCALARS]


def compare_result_types(pairs: list[tuple[Operand, Operand]]) -> None:
    expected, actual = {}, {}
    for a, b in pairs:
        key = f"{a} + {b}"
        expected[key] = outcome(torch.result_type, a.for_torch(), b.for_torch())
        actual[key] = outcome(promotion.result_type_of, [a.for_refimpl(), b.for_refimpl()])
    assert actual == expected


@pytest.mark.parametrize("first", TENSORS, ids=str)
def test_result_type_of_tensors(first: Operand) -> None:
    # Tensor-only results do not depend on the default dtype.
    compare_result_types([(first, second) for second in TENSORS])


@pytest.mark.parametrize("number", NUMBERS, ids=str)
def test_result_type_of_numbers(default_dtype: DType, number: Operand) -> None:
    pairs = [(t, number) for t in TENSORS] + [(number, t) for t in TENSORS]
    pairs += [(number, other) for other in NUMBERS]
    compare_result_types(pairs)


# torch.result_type takes two operands; addcmul promotes all three of its tensors at once.
TRIPLES = [
    ((dtypes.int32, 1), (dtypes.int64, 0), (dtypes.float64, 0)),
    ((dtypes.float16, 1), (dtypes.float64, 0), (dtypes.complex128, 0)),
    ((dtypes.uint8, 1), (dtypes.int8, 1), (dtypes.int64, 0)),
    ((dtypes.int16, 0), (dtypes.uint8, 0), (dtypes.float16, 1)),
    ((dtypes.bfloat16, 1), (dtypes.float16, 0), (dtypes.complex64, 0)),
]


@pytest.mark.parametrize(
    "triple", TRIPLES, ids=lambda t: "-".join(f"{d.abbr}{'' if n else '_0d'}" for d, n in t)
)
def test_result_type_of_three_tensors(triple: tuple[tuple[DType, int], ...]) -> None:
    tensors = [torch.zeros((2,) * ndim, dtype=torch_dtype(d)) for d, ndim in triple]
    kinds = [(d, OperandKind.DIMENSIONED if ndim else OperandKind.ZERO_DIM) for d, ndim in triple]
    expected = torch.addcmul(*tensors).dtype
    assert promotion.result_type_of(kinds).name == name_of(expected)


def test_result_type_of_follows_default_dtype_change() -> None:
    # The cache is keyed by the default dtype: a change must show at once.
    ops = ((dtypes.int64, OperandKind.DIMENSIONED), (dtypes.float64, OperandKind.WRAPPED))
    old = promotion.get_default_dtype()
    try:
        promotion.set_default_dtype(dtypes.float32)
        assert promotion.result_type_of(ops) is dtypes.float32
        promotion.set_default_dtype(dtypes.float64)
        assert promotion.result_type_of(ops) is dtypes.float64
    finally:
        promotion.set_default_dtype(old)


def test_result_type_of_needs_an_operand() -> None:
    with pytest.raises(ValueError, match="needs at least one operand"):
        promotion.result_type_of([])


# --- Python numbers ------------------------------------------------------------------------------

LARGE_INTS = (-(2**63) - 1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 2**64)


@pytest.mark.parametrize("value", LARGE_INTS, ids=str)
@pytest.mark.parametrize(
    "partner",
    [
        dtypes.int32,
        dtypes.uint8,
        dtypes.float32,
        dtypes.bool_,
        dtypes.complex64,
        True,
        1,
        1.5,
        1j,
        2**63,
    ],
    ids=lambda p: p.name if isinstance(p, DType) else repr(p),
)
def test_large_python_ints(value: int, partner: DType | bool | int | float | complex) -> None:
    # torch types ints in [2**63, 2**64) as uint64 and rejects ints outside [-2**63, 2**64).
    if isinstance(partner, DType):
        t_partner: Any = torch.zeros(2, dtype=torch_dtype(partner))
        r_partner: Any = StandIn(partner, 1)
    else:
        t_partner = r_partner = partner
    assert outcome(lambda: api.result_type(r_partner, value)) == outcome(
        lambda: torch.result_type(t_partner, value)
    )
    assert outcome(lambda: api.result_type(value, r_partner)) == outcome(
        lambda: torch.result_type(value, t_partner)
    )


def test_scalar_dtype_of_number_subclasses() -> None:
    class MyInt(int):
        pass

    class MyFloat(float):
        pass

    assert promotion.scalar_dtype(MyInt(3)) is dtypes.int64
    assert promotion.scalar_dtype(MyFloat(3.0)) is promotion.get_default_dtype()
    assert name_of(torch.result_type(torch.zeros(2, dtype=torch.int8), MyInt(3))) == "int8"


# --- default dtype -----------------------------------------------------------------------------


def test_default_dtypes(default_dtype: DType) -> None:
    assert promotion.get_default_dtype().name == name_of(torch.get_default_dtype())
    # torch.result_type(int64 tensor, 1j) is the default complex dtype.
    expected = torch.result_type(torch.zeros(2, dtype=torch.int64), 1j)
    assert promotion.default_complex_dtype().name == name_of(expected)


@pytest.mark.parametrize(
    "value", [*DTYPES, dtypes.uint64, None, 1, "float32"], ids=lambda d: getattr(d, "name", repr(d))
)
def test_set_default_dtype_errors(value: Any) -> None:
    t_value: Any = torch_dtype(value) if isinstance(value, DType) else value
    old_torch, old_refimpl = torch.get_default_dtype(), promotion.get_default_dtype()
    try:
        expected = outcome(lambda: torch.set_default_dtype(t_value))
        actual = outcome(lambda: promotion.set_default_dtype(value))
    finally:
        torch.set_default_dtype(old_torch)
        promotion.set_default_dtype(old_refimpl)
    assert actual == expected


# --- the public functions with a stand-in tensor -------------------------------------------------


class StandIn:
    """A stand-in for refimpl's Tensor: a dtype and a dim(). Named Tensor in messages."""

    def __init__(self, dtype: DType, ndim: int) -> None:
        self.dtype = dtype
        self.ndim = ndim

    def dim(self) -> int:
        return self.ndim


StandIn.__name__ = "Tensor"


class Sub(StandIn):
    pass


class TorchSub(torch.Tensor):
    pass


Sub.__name__ = TorchSub.__name__ = "Sub"


def vector(lib: str) -> Any:
    return torch.zeros(2) if lib == "torch" else StandIn(dtypes.float32, 1)


def int8_vector(lib: str) -> Any:
    return torch.zeros(2, dtype=torch.int8) if lib == "torch" else StandIn(dtypes.int8, 1)


def sub_vector(lib: str) -> Any:
    return torch.zeros(2).as_subclass(TorchSub) if lib == "torch" else Sub(dtypes.float32, 1)


def a_dtype(lib: str) -> Any:
    return torch.int32 if lib == "torch" else dtypes.int32


RESULT_TYPE_CALLS: dict[str, Callable[[Callable[..., Any], str], object]] = {
    "no args": lambda rt, lib: rt(),
    "one tensor": lambda rt, lib: rt(vector(lib)),
    "three tensors": lambda rt, lib: rt(vector(lib), vector(lib), vector(lib)),
    "tensor, str": lambda rt, lib: rt(vector(lib), "a"),
    "str, tensor": lambda rt, lib: rt("a", vector(lib)),
    "tensor, None": lambda rt, lib: rt(vector(lib), None),
    "int, str": lambda rt, lib: rt(2, "a"),
    "tensor, list": lambda rt, lib: rt(vector(lib), [1, 2.0]),
    "tensor, 1-tuple": lambda rt, lib: rt(vector(lib), (1,)),
    "tensor, empty tuple": lambda rt, lib: rt(vector(lib), ()),
    "tensor, empty list": lambda rt, lib: rt(vector(lib), []),
    "tensor, dtype": lambda rt, lib: rt(vector(lib), a_dtype(lib)),
    "subclass, str": lambda rt, lib: rt(sub_vector(lib), "a"),
    "tensor, other=str": lambda rt, lib: rt(vector(lib), other="a"),
    "tensor, tensor=tensor": lambda rt, lib: rt(vector(lib), tensor=vector(lib)),
    "int, scalar1=float": lambda rt, lib: rt(2, scalar1=2.5),
    "tensor1=tensor": lambda rt, lib: rt(tensor1=vector(lib)),
    "tensor=, other=": lambda rt, lib: rt(tensor=int8_vector(lib), other=2),
    "other=, tensor=": lambda rt, lib: rt(other=2, tensor=int8_vector(lib)),
    "scalar=, tensor=": lambda rt, lib: rt(scalar=2.5, tensor=int8_vector(lib)),
    "int, tensor=": lambda rt, lib: rt(2, tensor=int8_vector(lib)),
    "scalar1=, scalar2=": lambda rt, lib: rt(scalar1=2, scalar2=2.5),
    "int, scalar2=": lambda rt, lib: rt(2, scalar2=1j),
    "subclass, int": lambda rt, lib: rt(sub_vector(lib), 2),
    "two ints": lambda rt, lib: rt(2, 3),
    "bool, complex": lambda rt, lib: rt(True, 1j),
}


@pytest.mark.parametrize("name", list(RESULT_TYPE_CALLS))
def test_result_type_arguments(name: str) -> None:
    call = RESULT_TYPE_CALLS[name]
    expected = outcome(lambda: call(torch.result_type, "torch"))
    assert outcome(lambda: call(api.result_type, "refimpl")) == expected


DTYPE_ARGUMENT_CALLS: dict[str, Callable[[Any], object]] = {
    "promote_types(int, dtype)": lambda lib: lib.promote_types(1, lib.int8),
    "promote_types(dtype, str)": lambda lib: lib.promote_types(lib.int8, "x"),
    "can_cast(int, dtype)": lambda lib: lib.can_cast(1, lib.int8),
    "can_cast(dtype, None)": lambda lib: lib.can_cast(lib.int8, None),
    "promote_types ok": lambda lib: lib.promote_types(lib.uint8, lib.int8),
    "can_cast ok": lambda lib: lib.can_cast(lib.float32, lib.int32),
}


class RefimplFunctions:
    """The names a DTYPE_ARGUMENT_CALLS entry uses, taken from refimpl's modules."""

    promote_types = staticmethod(api.promote_types)
    can_cast = staticmethod(api.can_cast)
    int8, uint8, float32, int32 = dtypes.int8, dtypes.uint8, dtypes.float32, dtypes.int32


@pytest.mark.parametrize("name", list(DTYPE_ARGUMENT_CALLS))
def test_dtype_arguments(name: str) -> None:
    call = DTYPE_ARGUMENT_CALLS[name]
    assert outcome(lambda: call(RefimplFunctions)) == outcome(lambda: call(torch))


# --- finfo and iinfo ---------------------------------------------------------------------------

FINFO_ATTRIBUTES = ("bits", "eps", "max", "min", "smallest_normal", "tiny", "resolution", "dtype")
FLOATING = [d for d in DTYPES if d.is_floating_point or d.is_complex]
INTEGRAL = [d for d in (*DTYPES, dtypes.uint64) if d.category is dtypes.Category.INTEGRAL]


@pytest.mark.parametrize("dtype", FLOATING, ids=lambda d: d.name)
def test_finfo(dtype: DType) -> None:
    expected, actual = torch.finfo(torch_dtype(dtype)), finfo(dtype)
    for attribute in FINFO_ATTRIBUTES:
        value = getattr(actual, attribute)
        assert value == getattr(expected, attribute), attribute
        assert type(value) is type(getattr(expected, attribute)), attribute
    assert repr(actual) == repr(expected)
    assert str(actual) == str(expected)


@pytest.mark.parametrize("dtype", INTEGRAL, ids=lambda d: d.name)
def test_iinfo(dtype: DType) -> None:
    expected, actual = torch.iinfo(torch_dtype(dtype)), iinfo(dtype)
    for attribute in ("bits", "max", "min", "dtype"):
        value = getattr(actual, attribute)
        assert value == getattr(expected, attribute), attribute
        assert type(value) is type(getattr(expected, attribute)), attribute
    assert repr(actual) == repr(expected)


def test_finfo_default(default_dtype: DType) -> None:
    assert repr(finfo()) == repr(torch.finfo())


def test_info_equality() -> None:
    assert finfo(dtypes.complex64) == finfo(dtypes.float32)
    assert torch.finfo(torch.complex64) == torch.finfo(torch.float32)
    assert finfo(dtypes.float32) != finfo(dtypes.float64)
    # operator.eq: mypy rejects == between unrelated types, which is what is tested here.
    assert operator.eq(finfo(dtypes.float32), iinfo(dtypes.int32)) is operator.eq(
        torch.finfo(torch.float32), torch.iinfo(torch.int32)
    )
    assert iinfo(dtypes.int8) == iinfo(dtypes.int8)
    assert operator.eq(finfo(dtypes.float32), "float32") is operator.eq(
        torch.finfo(torch.float32), "float32"
    )
    with pytest.raises(TypeError):
        hash(torch.finfo(torch.float32))
    with pytest.raises(TypeError):
        hash(finfo(dtypes.float32))


@pytest.mark.parametrize(
    "value", [*DTYPES, dtypes.uint64, None, 1, "float32"], ids=lambda d: getattr(d, "name", repr(d))
)
def test_info_errors(value: Any) -> None:
    t_value: Any = torch_dtype(value) if isinstance(value, DType) else value
    assert outcome(lambda: finfo(value)) == outcome(lambda: torch.finfo(t_value))
    assert outcome(lambda: iinfo(value)) == outcome(lambda: torch.iinfo(t_value))
