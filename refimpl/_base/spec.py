"""The facts extracted from torch 2.13 into spec/: schemas, kernel dtypes, Python signatures.

Torch: the operator registry of an installed torch (torch._C._jit_get_all_schemas,
OpOverload.tags), written to spec/schemas.json by spec/extract.py. refimpl reads it so that
`refimpl.ops.aten.<op>` knows every overload torch has, in torch's order, before any kernel
is registered, and so that an op block's inline schema can be checked against torch's.
spec/kernel_dtypes.json says which dtypes each elementwise CPU kernel of torch accepts and the
error it raises for the others; spec/api_signatures.json holds torch's Python signatures.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any, Final

SPEC_PACKAGE: Final = "spec"


@dataclass(frozen=True, slots=True)
class SpecOverload:
    """One overload as torch 2.13 has it."""

    name: str
    """Qualified op name without overload, `aten::add`."""
    overload: str
    """Overload name, "" for the default overload."""
    schema: str
    tags: tuple[str, ...]
    cia: bool
    """Has a CompositeImplicitAutograd kernel in torch."""
    cea: bool
    ceanf: bool
    dispatcher: bool
    """Registered with the c10 dispatcher (False: a TorchScript-only operator)."""
    packet_index: int
    """Position in `torch.ops.<ns>.<op>.overloads()`."""
    cia_and_cpu: bool = False
    """Has a CPU kernel besides its CompositeImplicitAutograd one (silu_backward): the CPU
    kernel serves CPU tensors, the composite the other backends."""


def read_text(filename: str) -> str:
    """A file of the spec/ folder."""
    return files(SPEC_PACKAGE).joinpath(filename).read_text()


@cache
def spec_overloads() -> dict[str, tuple[SpecOverload, ...]]:
    """Qualified op name -> its overloads in torch's packet order."""
    by_name: dict[str, list[SpecOverload]] = {}
    for row in json.loads(read_text("schemas.json")):
        item = SpecOverload(
            row["name"],
            row["overload"],
            row["schema"],
            tuple(row["tags"]),
            row["cia"],
            row["cea"],
            row["ceanf"],
            row["dispatcher"],
            row["packet_index"],
            row.get("cia_and_cpu", False),
        )
        by_name.setdefault(item.name, []).append(item)
    return {
        name: tuple(sorted(items, key=lambda o: o.packet_index)) for name, items in by_name.items()
    }


def spec_overload(qualified_name: str, overload: str) -> SpecOverload | None:
    """The spec entry for `aten::add` + `Tensor`, or None."""
    for item in spec_overloads().get(qualified_name, ()):
        if item.overload == overload:
            return item
    return None


# --- kernel_dtypes.json ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KernelDtypes:
    """Which of torch's 13 basic dtypes an overload's CPU kernel accepts, as torch 2.13 says.

    Torch: found by calling `torch.ops.aten.<op>.<overload>` with every Tensor argument of one
    dtype (spec/extract.py); see spec/README.md for the arguments used.
    """

    accepted: frozenset[str]
    """Dtype names (`float32`, `complex32`, `bool`) the call succeeded for."""
    errors: dict[str, tuple[str, str]]
    """Dtype name -> (exception type name, message) for the others."""
    results: dict[str, str]
    """Accepted dtype name -> the result's dtype name (`float32, int32` for a tuple)."""


@cache
def kernel_dtype_table() -> dict[tuple[str, str], KernelDtypes]:
    """(qualified op name, overload name) -> its kernel dtype facts; "default" for ""."""
    table: dict[tuple[str, str], KernelDtypes] = {}
    for name, overloads in json.loads(read_text("kernel_dtypes.json")).items():
        for overload, by_dtype in overloads.items():
            results = {d: e["result"] for d, e in by_dtype.items() if "result" in e}
            errors = {
                d: (e["error"][0], e["error"][1]) for d, e in by_dtype.items() if "error" in e
            }
            table[name, overload] = KernelDtypes(frozenset(results), errors, results)
    return table


def kernel_dtype_facts(qualified_name: str, overload: str) -> KernelDtypes | None:
    """The kernel dtype facts of `aten::abs` + `default` (or ""), None if not extracted."""
    return kernel_dtype_table().get((qualified_name, overload or "default"))


# --- api_signatures.json -----------------------------------------------------------------------


class ParameterKind(enum.Enum):
    """How a Python parameter binds. Torch: inspect.Parameter.kind, spelled as in the stubs."""

    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"


@dataclass(frozen=True, slots=True)
class ApiParameter:
    """One parameter of a torch Python function, as its stub writes it."""

    name: str
    kind: ParameterKind
    default: str | None
    """Source text of the default (`"1"`, `"None"`), None where the parameter has none."""
    annotation: str | None
    """Source text of the annotation (`"Tensor | None"`), None where there is none."""


@dataclass(frozen=True, slots=True)
class ApiSignature:
    """One overload of a torch Python function.

    Torch: an `@overload` def of torch/_C/_VariableFunctions.pyi (torch.*), of class
    TensorBase in torch/_C/__init__.pyi (Tensor methods, `self` first), or as torchgen writes
    torch.special's, for which the wheel has no stub.
    """

    parameters: tuple[ApiParameter, ...]
    returns: str | None
    """Source text of the return annotation."""


def api_parameter(row: dict[str, Any]) -> ApiParameter:
    """A parameter from its JSON record (testing overrides carry no annotation)."""
    return ApiParameter(
        row["name"], ParameterKind(row["kind"]), row["default"], row.get("annotation")
    )


@cache
def api_table() -> dict[str, dict[str, Any]]:
    """Namespace ("torch", "torch.special", "Tensor") -> function name -> its raw record."""
    table: dict[str, dict[str, Any]] = json.loads(read_text("api_signatures.json"))
    return table


@cache
def torch_public_names(namespace: str) -> frozenset[str]:
    """The public attribute names of the torch module ("torch") or of torch.Tensor
    ("Tensor"), from spec/torch_names.json."""
    table: dict[str, list[str]] = json.loads(read_text("torch_names.json"))
    return frozenset(table.get(namespace, ()))


@cache
def api_signatures(namespace: str, name: str) -> tuple[ApiSignature, ...]:
    """The overloads of `torch.add` ("torch", "add"), in stub order; () if not extracted."""
    entry = api_table().get(namespace, {}).get(name)
    if entry is None:
        return ()
    return tuple(
        ApiSignature(tuple(api_parameter(p) for p in o["parameters"]), o["returns"])
        for o in entry["overloads"]
    )


def api_namespace_names(namespace: str) -> tuple[str, ...]:
    """The function names extracted for a namespace ("torch._C._nn"), sorted."""
    return tuple(sorted(api_table().get(namespace, {})))


@cache
def api_testing_override(namespace: str, name: str) -> tuple[ApiParameter, ...] | None:
    """Parameters of the lambda torch.overrides.get_testing_overrides() has for a function.

    Torch: these lambdas carry torch's parameter names and defaults (as `repr` text), also for
    functions without a stub; they are hand-written and may disagree with the stubs.
    """
    entry = api_table().get(namespace, {}).get(name)
    if entry is None or entry["testing_override"] is None:
        return None
    return tuple(api_parameter(p) for p in entry["testing_override"])


# --- derivatives.json --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AutogradFacts:
    """What torch's autograd does for one aten overload on CPU (spec/extract_autograd.py)."""

    category: str
    """formula, composite_implicit, manual, out, not_differentiable or not_implemented."""
    node: str | None
    """The node class torch records (`AddBackward0`), for overloads with a formula."""
    formula_of: str | None
    """The overload whose derivatives.yaml entry it uses (`aten::add.Tensor` for add_)."""
    saved: frozenset[str]
    """The `_saved_<name>` attributes torch's node exposes."""
    exempt: frozenset[str] = frozenset()
    """The arguments its derivatives.yaml entry gives a formula or marks non_differentiable:
    torch's kernel refuses any other tensor argument that requires grad."""
    differentiable: frozenset[str] = frozenset()
    """The arguments its derivatives.yaml entry gives a formula: those its out= form refuses
    when they require grad."""
    resets_grad_accumulator: bool = False
    """Whether its kernel drops `self`'s gradient accumulator after the call, in every grad
    mode (set_: the tensor may now have another shape)."""


@cache
def fallthrough_ops(key: str) -> frozenset[str]:
    """The qualified overloads torch registers a fallthrough kernel for at `key` (Conjugate,
    Negative): they see a tensor with that math bit unresolved. From dispatch_keys.json."""
    document = json.loads(read_text("dispatch_keys.json"))
    return frozenset(document["fallthrough"][key])


def _with_formula(entry: dict[str, Any]) -> list[str]:
    # An entry's inputs are keyed as derivatives.yaml writes them: "input, weight, bias" for
    # one formula of several inputs.
    return [name for key in entry["inputs"] for name in key.split(", ")]


def _exempt(entry: dict[str, Any]) -> list[str]:
    return _with_formula(entry) + list(entry.get("non_differentiable") or ())


@cache
def autograd_facts() -> dict[str, AutogradFacts]:
    """Qualified overload name (`aten::add.Tensor`, `aten::sum`) -> its autograd facts."""
    document = json.loads(read_text("derivatives.json"))
    derivatives = document["derivatives"]
    resets = frozenset(document["reset_grad_accumulator"])
    facts = {}
    for name, category in document["autograd"].items():
        entry = derivatives.get(name)
        facts[name] = AutogradFacts(
            category,
            None if entry is None else entry["node"],
            None if entry is None else entry["formula_of"],
            frozenset(() if entry is None else entry["saved"]),
            frozenset(() if entry is None else _exempt(entry)),
            frozenset(() if entry is None else _with_formula(entry)),
            name in resets,
        )
    return facts


# --- torch_function.json -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TorchFunctionFacts:
    """What torch's `__torch_function__` protocol reports (spec/extract_overrides.py)."""

    operators: dict[str, tuple[str, bool]]
    """Python operator (`__mul__`) -> the function a handler is told of (`torch.Tensor.mul`)
    and whether plain Tensors count among its `types`."""
    self_counts: frozenset[str]
    """Tensor attributes whose handlers see a plain Tensor `self` among the types: those torch
    defines in Python and the methods that take nothing but self."""
    overridable: tuple[str, ...]
    """torch.overrides.get_overridable_functions(), by torch's names."""
    ignored: frozenset[str]
    """torch.overrides.get_ignored_functions(), by torch's names."""
    mode_only: frozenset[str]
    """Ignored functions that modes still see (bound in C++: factories such as torch.empty;
    Tensor methods whose binding still asks handlers: Tensor.stride, Tensor.new_zeros)."""
    resolved_as: dict[str, str]
    """Names torch.overrides.resolve_name gives another name (torch.mm -> torch.spmm, the same
    builtin; torch.atleast_1d -> torch.functional.atleast_1d, written in Python)."""


@cache
def torch_function_facts() -> TorchFunctionFacts:
    document = json.loads(read_text("torch_function.json"))
    return TorchFunctionFacts(
        {k: (v["name"], v["types"] == ["Tensor"]) for k, v in document["operators"].items()},
        frozenset(document["python_level"]) | frozenset(document["noargs_methods"]),
        # The bindings torch's table leaves out by name behave as the overridable ones.
        tuple(document["overridable"]) + tuple(document.get("unlisted", ())),
        frozenset(document["ignored"]),
        frozenset(document["mode_only"]),
        dict(document["resolved_as"]),
    )
