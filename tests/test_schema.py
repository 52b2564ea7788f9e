"""The schema parser against torch: every spec schema round-trips, records and errors match.

The round-trip test reads spec/schemas.json (torch's own printed schemas) and needs no torch;
the attribute and error tests run torch._C.parse_schema on the same strings.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Final

import pytest

from refimpl.dispatch.schema import AliasInfo, Argument, FunctionSchema, parse_schema

SCHEMAS_JSON: Final = Path(__file__).resolve().parent.parent / "spec" / "schemas.json"


def spec_records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(SCHEMAS_JSON.read_text(encoding="utf-8"))
    return records


def qualified(record: dict[str, Any]) -> str:
    name: str = record["name"]
    return name + ("." + record["overload"] if record["overload"] else "")


# --- (a) every schema torch has parses and prints back exactly ----------------------------------


def test_every_spec_schema_round_trips() -> None:
    records = spec_records()
    assert len(records) > 3000
    mismatches = []
    for record in records:
        schema = parse_schema(record["schema"])
        if str(schema) != record["schema"]:
            mismatches.append((record["schema"], str(schema)))
        if (schema.name, schema.overload_name) != (record["name"], record["overload"]):
            mismatches.append((record["schema"], schema.qualified_name))
    assert mismatches == []


def test_schema_strings_parse_back_to_equal_records() -> None:
    for record in spec_records()[::7]:
        schema = parse_schema(record["schema"])
        assert parse_schema(str(schema)) == schema


# --- (b) records match torch's FunctionSchema attributes --------------------------------------

# Representative overloads: every type the schema language spells in aten and prims, alias
# annotations of each form, defaults of each kind, vararg, named and empty returns.
REPRESENTATIVE: Final = (
    "aten::add.Tensor",
    "aten::add.out",
    "aten::add_.Tensor",
    "aten::add.int",
    "aten::sum.dim_IntList",
    "aten::native_layer_norm",
    "aten::layer_norm",
    "aten::max.dim",
    "aten::max.dim_max",
    "aten::split.Tensor",
    "aten::_foreach_add_.List",
    "aten::index.Tensor",
    "aten::index_put_",
    "aten::empty.memory_format",
    "aten::_to_copy",
    "aten::max_pool2d_with_indices",
    "aten::max_pool1d_with_indices",
    "aten::convolution_backward.out",
    "aten::gelu",
    "aten::_local_scalar_dense",
    "aten::as_tensor",
    "aten::linalg_matrix_norm.str_ord",
    "aten::rrelu",
    "aten::triu_indices",
    "aten::sym_is_contiguous",
    "aten::bernoulli_.float",
    "aten::set_.source_Storage",
    "aten::record_stream",
    "aten::qscheme",
    "aten::tensor.complex",
    "aten::setdefault.str",
    "aten::keys.str",
    "aten::items.str",
    "aten::dict.str",
    "aten::wait",
    "aten::format",
    "aten::has_torch_function",
    "aten::__is__",
    "aten::eq.enum",
    "aten::owner",
    "aten::quantized_lstm.input",
    "aten::dequantize.any",
    "aten::strip",
    "aten::_test_string_default",
    "aten::_sparse_semi_structured_tile",
    "aten::nll_loss",
    "prims::empty",
    "prims::convert_element_type",
)


def torch_default(argument: Any) -> object:
    """torch's default value in refimpl's representation (tuples, device strings)."""
    import torch

    value = argument.default_value
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def alias_facts(alias: Any) -> tuple[bool, set[str], set[str]] | None:
    if alias is None:
        return None
    return (alias.is_write, set(alias.before_set), set(alias.after_set))


def same_value(expected: object, actual: object) -> bool:
    if isinstance(expected, tuple) and isinstance(actual, tuple):
        return len(expected) == len(actual) and all(map(same_value, expected, actual))
    if isinstance(expected, float) and isinstance(actual, float) and math.isnan(expected):
        return math.isnan(actual)
    return type(expected) is type(actual) and expected == actual


def assert_argument_matches(expected: Any, actual: Argument) -> None:
    assert actual.name == expected.name
    assert str(actual.type) == str(expected.type)
    assert actual.has_default_value() == expected.has_default_value()
    if expected.has_default_value():
        assert same_value(torch_default(expected), actual.default_value), (
            expected.name,
            expected.default_value,
            actual.default_value,
        )
    assert actual.kwarg_only == expected.kwarg_only
    assert actual.N == expected.N
    assert actual.is_out == expected.is_out
    assert actual.is_write == expected.is_write
    assert alias_facts(actual.alias_info) == alias_facts(expected.alias_info)


def assert_schema_matches(expected: Any, actual: FunctionSchema) -> None:
    assert (actual.name, actual.overload_name) == (expected.name, expected.overload_name)
    assert actual.is_mutable == expected.is_mutable
    assert len(actual.arguments) == len(expected.arguments)
    assert len(actual.returns) == len(expected.returns)
    for torch_argument, argument in zip(expected.arguments, actual.arguments, strict=True):
        assert_argument_matches(torch_argument, argument)
    for torch_return, returned in zip(expected.returns, actual.returns, strict=True):
        assert_argument_matches(torch_return, returned)
    tensor_like = {"Tensor", "Optional[Tensor]", "List[Tensor]", "List[Optional[Tensor]]"}
    expected_indices = tuple(
        index
        for index, argument in enumerate(expected.arguments)
        if str(argument.type) in tensor_like
    )
    assert actual.dispatch_argument_indices == expected_indices


@pytest.mark.parametrize("name", REPRESENTATIVE)
def test_representative_schema_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    (record,) = [record for record in spec_records() if qualified(record) == name]
    assert_schema_matches(torch._C.parse_schema(record["schema"]), parse_schema(record["schema"]))


def test_every_spec_schema_matches_torch_attributes() -> None:
    torch = pytest.importorskip("torch")
    for record in spec_records():
        assert_schema_matches(
            torch._C.parse_schema(record["schema"]), parse_schema(record["schema"])
        )


# Schemas beyond the spec: spellings torch accepts and prints differently, and every default kind.
ACCEPTED: Final = (
    "f(int[2] padding=0, int[1] p1=[0], int[2] s=[], int[] dim=[-2,-1], int[3] q=[1,2,3]) -> ()",
    "f(SymInt[2] x=0, SymInt[] z=[1,1], int[0] e=1, int[3] s=[1,2]) -> ()",
    "f(bool[3] m=[True,False,True], float[] x=[1, 2.5], complex d=2j, complex[] c=[1j]) -> ()",
    "f(Scalar s=1, Scalar t=1.5, Scalar u=True, Scalar? v=-2.5j, float? w=2, int? y=1.5) -> ()",
    "f(float a=1e-5, float b=.5, float c=5., float d=1e20, float e=-0., float f=0x1p3) -> ()",
    "f(int x=0x10, int y=1E3, int z=-0, int w=9223372036854775807) -> ()",
    "f(ScalarType d=float, ScalarType e=double, ScalarType? f=bfloat16, int r=Mean) -> ()",
    "f(Layout l=strided, MemoryFormat m=contiguous_format, ScalarType[] e=[int, long]) -> ()",
    'f(str a=\'single\', str b="""triple""", str c="\\101\\n\\t", str d="é") -> ()',
    'f(Tensor? x="abc", int y="abc", str? t="y", bool b=1, str s=None) -> ()',
    'f(Device d="cpu", Device e="cuda:1", Device f="cuda:300", Device? g=None) -> ()',
    "f(Tensor(a!)?[] x, Tensor(b)[]? y, int[2](a) z, Tensor(c)[3](d!)? w) -> Tensor(a)?",
    "f(Tensor! a, int! b) -> (Tensor! c)",
    "f(Tensor(a -> *) x, Tensor(*) y, Tensor(a! -> *) w) -> ()",
    "f(Tensor(a)[](b)[](c) x, Tensor(a)[][](c) y) -> ()",
    "f(Tensor x, *) -> Tensor",
    "f(Tensor x, *, *, Tensor y, ...) -> (Tensor, ...)",
    "f(...) -> (...)",
    "f(Tensor x) -> ((int, t) a, (int[]) b)",
    "f(Tensor x) -> (int[2] a)",
    "f(int[][] x, int?? y, Scalar?? z, int[]?[]? w, NoneType[] v) -> ()",
    "f(Dict(ScalarType, SymInt) a, (ScalarType, SymInt[], Layout?) b, Future(MemoryFormat) c) -> ()",
    (
        "f(Union(int, str) a, Union(int, None) b, Union(int, Scalar) c, "
        "Union(float, int, str, complex) d, Union(Tensor, Tensor?) e, Union(int, float, complex)? g)"
        " -> ()"
    ),
    "f(Await(t) a, RRef(int) b, Capsule c, AnyClassType d, Quantizer e, ConstQuantizerPtr f) -> ()",
    "f(a.b x, t1 y, int.b z) -> a.b",
    "  f(Tensor x,\n  # a comment\n  Tensor y) -> Tensor # trailing comment\n",
    "f(Tensor x) \\\n -> ()",
    "_::_() -> ()",
)

REJECTED: Final = (
    # syntax, as the lexer and parser report it: "expected X but found 'Y' here:" + caret
    "f(Tensor x) ->",
    "f(Tensor x)",
    "aten:add(Tensor x) -> Tensor",
    "f(Tensor x) -> Tensor y z",
    "f(Tensor x) -> (Tensor a=None)",
    "f(Tensor $x) -> ()",
    "f(Tensor x) -> Tensor;",
    "f(str x='abc) -> ()",
    'f(str x="a\nb") -> ()',
    "f(Tensor if) -> ()",
    "f(Tensor input, Tensor is) -> ()",
    "f(Tensor x)\n -> ()",
    "f(Tensor x) -> ()\ng(Tensor y) -> ()",
    "  f(Tensor x) -> Tensor\n g",
    "f(Tensor x,\n  Tensor y,\n  Tensor z,\n  Tensor w,\n  Tensor v $,\n  Tensor u,\n Tensor q) -> ()",
    "f(Tensor x) -> Tensor # type: int",
    "f(Tensor(a|a) x) -> Tensor(*|a)",
    "f(Tensor(a->b!) x) -> ()",
    "f(Tensor(a!->) w) -> ()",
    "f(Tensor?(a!)[] x) -> ()",
    "f(int[2]?[] x) -> ()",
    "f(int[-1] x) -> ()",
    "()->()",
    "",
    # names
    "aten::add",
    "aten::add.default(Tensor x) -> Tensor",
    "aten::add.__foo(Tensor x) -> Tensor",
    # types
    "f(Dimname x) -> ()",
    "f(SymFloat x) -> ()",
    "f(Foo x) -> ()",
    "f(__torch__.torch.classes.foo.Bar x) -> ()",
    "f(__torch__.torch.clazz.foo.Bar x) -> ()",
    "f(Dict(Scalar, int) a) -> ()",
    "f(Dict(t, int) a) -> ()",
    "f(Union(int, int) z) -> ()",
    "f(Union(t, t1) z) -> ()",
    "f(None? x) -> ()",
    # validation: torch's FunctionSchema checks and vararg rules
    "f(Tensor x, Tensor y=None, Tensor z) -> ()",
    "f(Tensor x, Tensor? y=None, int[]? z) -> ()",
    "f(Tensor x, ..., Tensor y) -> Tensor",
    "f(Tensor x=None, ...) -> Tensor",
    "f(...) -> (..., Tensor)",
    # defaults
    "f(Tensor[] y=[]) -> ()",
    "f(str[] y=[]) -> ()",
    "f(Tensor x=1) -> ()",
    "f(int[] x=None) -> ()",
    "f(int[2] x=None) -> ()",
    "f(int[] x=[1.5]) -> ()",
    "f(float[] x=[True]) -> ()",
    "f(bool[] b=[1]) -> ()",
    "f(complex[] c=[None]) -> ()",
    "f(MemoryFormat m=preserve_format) -> ()",
    "f(float x=inf) -> ()",
    "f(float a=-inf) -> ()",
    "f(int x=+1) -> ()",
    "f(Storage s=None) -> ()",
    "f(SymBool b=True) -> ()",
    "f(Device d=cpu) -> ()",
    'f(Device d="xyz") -> ()',
    'f(Device d="cuda:01") -> ()',
    'f(Device d="") -> ()',
    'f(Device d="cuda:99999999999") -> ()',
    'f(str s="\\x41") -> ()',
    'f(str s="\\u0041") -> ()',
    'f(str s="\\q") -> ()',
    # number conversions torch reports as ValueError / IndexError
    "f(complex c=2) -> ()",
    "f(int x=99999999999999999999) -> ()",
    "f(float x=1e999) -> ()",
    "f(float x=1e-310) -> ()",
)


def outcome(parse: Any, text: str) -> tuple[str, str]:
    try:
        return ("ok", str(parse(text)))
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return (type(error).__name__, str(error))


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_schema_matches_torch(text: str) -> None:
    torch = pytest.importorskip("torch")
    expected = torch._C.parse_schema(text)
    actual = parse_schema(text)
    assert str(actual) == str(expected)
    assert_schema_matches(expected, actual)


@pytest.mark.parametrize("text", REJECTED)
def test_rejected_schema_matches_torch(text: str) -> None:
    torch = pytest.importorskip("torch")
    expected = outcome(torch._C.parse_schema, text)
    assert expected[0] != "ok"
    assert outcome(parse_schema, text) == expected


def test_type_variables_can_be_disallowed() -> None:
    torch = pytest.importorskip("torch")
    for text in ("f(t x) -> t", "f(double x) -> ()", "f(int64_t x) -> ()", "f(a.b x) -> ()"):
        expected = outcome(lambda s: torch._C.parse_schema(s, allow_typevars=False), text)
        assert outcome(lambda s: parse_schema(s, allow_typevars=False), text) == expected


# --- refimpl-only behaviour, checked against facts torch prints ----------------------------------


def test_alias_sets_print_in_written_order() -> None:
    # Differs: torch prints multi-name alias sets in hash order; see AliasInfo.
    text = "aten::as_tensor(Tensor(a) data, *, ScalarType? dtype=None, Device? device=None) -> Tensor(b|a)"
    schema = parse_schema(text)
    assert str(schema) == text
    assert schema.returns[0].alias_info == AliasInfo(False, ("b", "a"), ("b", "a"))
    assert schema.returns[0].alias_info.before_set == frozenset({"a", "b"})


def test_schema_helpers() -> None:
    schema = parse_schema(
        "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)"
        " -> Tensor(a!)"
    )
    assert schema.qualified_name == "aten::index_put_"
    assert schema.namespace == "aten"
    assert schema.dispatch_argument_indices == (0, 1, 2)
    padding = parse_schema("f(int[2] padding=0) -> ()").arguments[0]
    assert (padding.default_value, padding.N, str(padding)) == ((0, 0), 2, "int[2] padding=0")
