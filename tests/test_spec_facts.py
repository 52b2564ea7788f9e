"""spec/kernel_dtypes.json and spec/api_signatures.json against the installed torch.

The readers in refimpl._base.spec must return what torch itself does: each expected value
below is computed by calling torch, and the files must regenerate byte for byte.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

from refimpl._base.spec import (
    ParameterKind,
    api_signatures,
    api_testing_override,
    kernel_dtype_facts,
    spec_overloads,
)

torch = pytest.importorskip("torch")

SPEC_DIR: Final = Path(__file__).resolve().parents[1] / "spec"
KIND_NAMES: Final = {
    inspect.Parameter.POSITIONAL_ONLY: "positional-only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional-or-keyword",
    inspect.Parameter.VAR_POSITIONAL: "var-positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword-only",
    inspect.Parameter.VAR_KEYWORD: "var-keyword",
}


def raised(call: Callable[[], object]) -> tuple[str, str] | None:
    """(exception type name, message) that a torch call raises, None if it succeeds."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - any exception is the fact under test
        return type(error).__name__, str(error)
    return None


def full(dtype: Any, value: object = 1) -> Any:
    """A CPU tensor of shape (3,)."""
    return torch.full((3,), value, dtype=dtype)


# (op, overload, dtype name, the torch call with that dtype, the message the brief quotes).
REJECTIONS: Final = [
    (
        "aten::abs",
        "default",
        "bool",
        lambda: torch.ops.aten.abs.default(full(torch.bool, True)),
        "\"abs_cpu\" not implemented for 'Bool'",
    ),
    (
        "aten::bitwise_not",
        "default",
        "float32",
        lambda: torch.ops.aten.bitwise_not.default(full(torch.float32, 0.5)),
        "\"bitwise_not_cpu\" not implemented for 'Float'",
    ),
    (
        "aten::neg",
        "default",
        "bool",
        lambda: torch.ops.aten.neg.default(full(torch.bool, True)),
        (
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        ),
    ),
    (
        "aten::sub",
        "Tensor",
        "bool",
        lambda: torch.ops.aten.sub.Tensor(full(torch.bool, True), full(torch.bool, True)),
        (
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        ),
    ),
    (
        "aten::clamp",
        "default",
        "complex64",
        lambda: torch.ops.aten.clamp.default(full(torch.complex64, 0.5), 1),
        "clamp is not supported for complex types",
    ),
]

# (op, overload, dtype name, the torch call with that dtype).
ACCEPTANCES: Final = [
    ("aten::sin", "default", "int64", lambda: torch.ops.aten.sin.default(full(torch.int64))),
    ("aten::abs", "default", "complex64", lambda: torch.abs(full(torch.complex64, 0.5))),
    ("aten::add", "Tensor", "bool", lambda: torch.add(full(torch.bool), full(torch.bool))),
    ("aten::isnan", "default", "float16", lambda: torch.isnan(full(torch.float16, 0.5))),
    ("aten::fill_", "Scalar", "complex32", lambda: full(torch.complex32, 0.5).fill_(1)),
]


@pytest.mark.parametrize(
    ("name", "overload", "dtype", "call", "message"),
    REJECTIONS,
    ids=[f"{n}.{o}-{d}" for n, o, d, _, _ in REJECTIONS],
)
def test_rejected_dtype_has_torchs_error(
    name: str, overload: str, dtype: str, call: Callable[[], object], message: str
) -> None:
    facts = kernel_dtype_facts(name, overload)
    assert facts is not None
    assert dtype not in facts.accepted
    assert facts.errors[dtype] == raised(call)
    assert facts.errors[dtype][1] == message


@pytest.mark.parametrize(
    ("name", "overload", "dtype", "call"),
    ACCEPTANCES,
    ids=[f"{n}.{o}-{d}" for n, o, d, _ in ACCEPTANCES],
)
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_accepted_dtype_has_torchs_result(
    name: str, overload: str, dtype: str, call: Callable[[], Any]
) -> None:
    facts = kernel_dtype_facts(name, overload)
    assert facts is not None
    assert dtype in facts.accepted
    result = call()
    assert facts.results[dtype] == str(result.dtype).removeprefix("torch.")


def test_sin_int64_computes_in_float32() -> None:
    facts = kernel_dtype_facts("aten::sin", "")
    assert facts is not None
    assert facts.results["int64"] == "float32"


def test_tuple_results_name_each_dtype() -> None:
    facts = kernel_dtype_facts("aten::frexp", "Tensor")
    assert facts is not None
    mantissa, exponent = torch.frexp(full(torch.float64, 0.5))
    assert facts.results["float64"] == f"{mantissa.dtype}, {exponent.dtype}".replace("torch.", "")


def test_every_functional_pointwise_overload_is_covered() -> None:
    for name, overloads in spec_overloads().items():
        for item in overloads:
            packet = getattr(torch.ops.aten, name.removeprefix("aten::"), None)
            if not name.startswith("aten::") or not item.dispatcher or packet is None:
                continue
            overload = item.overload or "default"
            mutable = getattr(packet, overload)._schema.is_mutable
            if "pointwise" in item.tags and not mutable:
                assert kernel_dtype_facts(name, overload) is not None, f"{name}.{overload}"


def test_unknown_overload_has_no_facts() -> None:
    assert kernel_dtype_facts("aten::mm", "default") is None


def test_torch_add_alpha_and_out_are_keyword_only() -> None:
    first = api_signatures("torch", "add")[0]
    kinds = {p.name: p.kind for p in first.parameters}
    assert kinds == {
        "input": ParameterKind.POSITIONAL_OR_KEYWORD,
        "other": ParameterKind.POSITIONAL_OR_KEYWORD,
        "alpha": ParameterKind.KEYWORD_ONLY,
        "out": ParameterKind.KEYWORD_ONLY,
    }
    assert [p.default for p in first.parameters] == [None, None, "1", "None"]
    # torch agrees: alpha binds by keyword only.
    x = torch.ones(3)
    assert torch.equal(torch.add(x, x, alpha=2), torch.full((3,), 3.0))
    out = torch.empty(3)
    torch.add(input=x, other=x, out=out)
    assert torch.equal(out, torch.full((3,), 2.0))


def test_tensor_add_takes_self_first() -> None:
    names = [p.name for p in api_signatures("Tensor", "add")[0].parameters]
    assert names == ["self", "other", "alpha", "out"]
    x = torch.ones(3)
    assert torch.equal(x.add(other=x, alpha=3), torch.full((3,), 4.0))


def test_special_polygamma_takes_n_first() -> None:
    (signature,) = api_signatures("torch.special", "polygamma")
    assert [(p.name, p.kind) for p in signature.parameters] == [
        ("n", ParameterKind.POSITIONAL_OR_KEYWORD),
        ("input", ParameterKind.POSITIONAL_OR_KEYWORD),
        ("out", ParameterKind.KEYWORD_ONLY),
    ]
    x = torch.full((3,), 0.5)
    assert torch.equal(torch.special.polygamma(n=1, input=x), torch.polygamma(1, x))


def test_python_defined_function_has_its_def_signature() -> None:
    # torch.norm is written in Python (torch/functional.py): no stub, but inspect can see it.
    (signature,) = api_signatures("torch", "norm")
    expected = inspect.signature(torch.norm).parameters.values()
    assert [(p.name, p.kind.value) for p in signature.parameters] == [
        (p.name, KIND_NAMES[p.kind]) for p in expected
    ]


def test_testing_override_names() -> None:
    override = api_testing_override("torch", "add")
    assert override is not None
    assert [p.name for p in override] == ["input", "other", "out"]
    assert api_signatures("torch", "no_such_function") == ()


def test_files_regenerate_identically(tmp_path: Path) -> None:
    extract = pytest.importorskip("spec.extract")
    records = extract.extract_schemas()
    extract.write_kernel_dtypes(
        extract.extract_kernel_dtypes(records), tmp_path / "kernel_dtypes.json"
    )
    extract.write_api_signatures(
        extract.extract_api_signatures(records), tmp_path / "api_signatures.json"
    )
    for filename in ("kernel_dtypes.json", "api_signatures.json"):
        assert (tmp_path / filename).read_bytes() == (SPEC_DIR / filename).read_bytes(), filename
