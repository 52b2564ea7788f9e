"""Extracts torch's autograd facts (derivative formulas, node names, saved attributes) as data.

Torch: tools/autograd/derivatives.yaml read by torchgen's own loader
(torchgen/packaged/autograd/load_derivatives.py), matched to every native function as
tools/autograd/gen_autograd.py matches them (torchgen.api.autograd.match_differentiability_info),
and the Python getters of each node as tools/autograd/gen_autograd_functions.py generates them.

Run from the repository root with the targeted torch installed:

    python spec/extract_autograd.py

It rewrites spec/derivatives.json; see spec/README.md for its contents. Like spec/extract.py,
this script may import torch and torchgen; refimpl never does.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any, Final

import torch
import torchgen
import yaml
from torchgen.api.autograd import (
    DifferentiabilityInfo,
    NativeFunctionWithDifferentiabilityInfo,
    gen_differentiable_outputs,
    match_differentiability_info,
)
from torchgen.context import native_function_manager
from torchgen.gen import get_grouped_by_view_native_functions, parse_native_yaml
from torchgen.model import (
    BackendIndex,
    DispatchKey,
    NativeFunction,
    NativeFunctionsViewGroup,
    SchemaKind,
)
from torchgen.packaged.autograd.gen_autograd_functions import (
    PY_FUNCTION_PROPS_AND_GETTERS,
    process_function,
)
from torchgen.packaged.autograd.gen_trace_type import MANUAL_AUTOGRAD
from torchgen.packaged.autograd.gen_variable_type import (
    DONT_REQUIRE_DERIVATIVE,
    RESET_GRAD_ACCUMULATOR,
)
from torchgen.packaged.autograd.load_derivatives import load_derivatives
from torchgen.yaml_utils import YamlLoader

BackendIndices = dict[DispatchKey, BackendIndex]

SPEC_DIR: Final = Path(__file__).resolve().parent
PACKAGED: Final = Path(torchgen.__file__).resolve().parent / "packaged"
DERIVATIVES_YAML: Final = PACKAGED / "autograd" / "derivatives.yaml"
NATIVE_YAML: Final = PACKAGED / "ATen" / "native" / "native_functions.yaml"
TAGS_YAML: Final = PACKAGED / "ATen" / "native" / "tags.yaml"
# The derivatives.yaml key whose formulas the CPU autograd kernel uses.
DEFAULT_KEY: Final = "Default"
# Keys of a derivatives.yaml entry that are neither inputs nor outputs.
ENTRY_META_KEYS: Final = frozenset({"name", "dispatch", "output_differentiability"})
# Kernels that keep AutogradCPU from falling to an op's CompositeImplicitAutograd kernel.
AUTOGRAD_CPU_BACKEND_KEYS: Final = frozenset(
    {
        "CPU",
        "QuantizedCPU",
        "SparseCPU",
        "SparseCsrCPU",
        "CompositeExplicitAutograd",
        "CompositeExplicitAutogradNonFunctional",
    }
)
GETTER_NAME: Final = re.compile(r'"(_(?:raw_)?saved_\w+)"')


def qualified(function: NativeFunction) -> str:
    """`aten::add.Tensor`, `aten::relu` for the default overload (spec/schemas.json's keys)."""
    return f"aten::{function.func.name}"


def raw_entries() -> dict[int, dict[str, Any]]:
    """The yaml text of each entry's Default block, by id of its info's `derivatives`.

    The loader keeps formulas but replaces `result: auto_element_wise` / `auto_linear` by the
    code they stand for, so those words are read from the yaml itself. A `{view}_copy` info
    shares its view's `derivatives` object, so it finds its view's block.
    """
    definitions = yaml.load(DERIVATIVES_YAML.read_text(encoding="utf-8"), Loader=YamlLoader)
    infos, _ = load_derivatives(str(DERIVATIVES_YAML), str(NATIVE_YAML), str(TAGS_YAML))
    by_schema = {str(schema): per_key for schema, per_key in infos.items()}
    blocks: dict[int, dict[str, Any]] = {}
    for definition in definitions:
        block = definition.get("dispatch", {}).get(DEFAULT_KEY, definition)
        # The loader keys entries by the parsed schema, which prints back as the yaml's name;
        # a KeyError here means a torch release changed that.
        per_key = by_schema[definition["name"]]
        if DEFAULT_KEY in per_key:
            blocks[id(per_key[DEFAULT_KEY].derivatives)] = block
    return blocks


def exposed_attributes(info: DifferentiabilityInfo) -> tuple[list[str], list[str]]:
    """`_saved_<name>` and `_raw_saved_<name>` getters the node's Python class has.

    Torch: gen_autograd_functions.py's process_function; saved values of some C++ types
    (ScalarType, TensorOptions, TypeAndSize, ...) get no getter.
    """
    names = GETTER_NAME.findall(process_function(info, PY_FUNCTION_PROPS_AND_GETTERS))
    saved = sorted(name for name in names if name.startswith("_saved_"))
    raw = sorted(name for name in names if name.startswith("_raw_saved_"))
    return saved, raw


def entry(
    function: NativeFunction,
    per_key: dict[str, DifferentiabilityInfo],
    blocks: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """One overload's line of "derivatives": its node and one record per formula."""
    info = per_key[DEFAULT_KEY]
    # Out-of-place _foreach_ ops get infos generated from their scalar op's (no yaml block).
    block = blocks.get(id(info.derivatives))
    inputs = {
        ", ".join(derivative.var_names): {
            "formula": derivative.original_formula,
            "saved_inputs": [saved.nctype.name for saved in derivative.saved_inputs],
            "saved_outputs": [saved.nctype.name for saved in derivative.saved_outputs],
        }
        for derivative in info.derivatives
    }
    input_keys = set(inputs) | set(info.non_differentiable_arg_names)
    forward = {
        str(key): str(value)
        for key, value in (block or {}).items()
        if key not in ENTRY_META_KEYS and key not in input_keys
    }
    saved, raw = exposed_attributes(info)
    return {
        "node": info.op,
        "kind": function.func.kind().name,
        "formula_of": qualified(info.func),
        "in_yaml": block is not None,
        "inputs": inputs,
        "non_differentiable": list(info.non_differentiable_arg_names),
        "output_differentiability": info.output_differentiability,
        "output_differentiability_conditions": info.output_differentiability_conditions,
        "saved": saved,
        "raw_saved": raw,
        "forward": forward,
        "auto_element_wise": "auto_element_wise" in forward.values(),
        "auto_linear": "auto_linear" in forward.values(),
        "uses_result": any(derivative.saved_outputs for derivative in info.derivatives),
        "dispatch_keys": sorted(per_key),
    }


def decomposes_at_autograd_cpu(
    function: NativeFunction, indices: BackendIndices, by_name: dict[str, NativeFunction]
) -> bool:
    """AutogradCPU runs the op's CompositeImplicitAutograd kernel (no node of its own).

    Torch: computeDispatchTableEntryWithDebug in aten/src/ATen/core/dispatch/OperatorEntry.cpp
    uses the CompositeImplicitAutograd kernel for an Autograd<Backend> key only when neither
    the backend's keys (CPU, QuantizedCPU, SparseCPU, SparseCsrCPU; not NestedTensorCPU) nor
    CompositeExplicitAutograd have a kernel; otherwise the Autograd alias's kernel
    (VariableType) runs. A structured op's kernel is its `structured_delegate`'s.
    """
    if not function.has_composite_implicit_autograd_kernel:
        return False
    owners = [function]
    if function.structured_delegate is not None:
        owners.append(by_name[str(function.structured_delegate)])
    return not any(
        index.has_kernel(owner)
        for key, index in indices.items()
        if str(key) in AUTOGRAD_CPU_BACKEND_KEYS
        for owner in owners
    )


def category(
    matched: NativeFunctionWithDifferentiabilityInfo,
    indices: BackendIndices,
    by_name: dict[str, NativeFunction],
) -> tuple[str, str | None]:
    """How torch's CPU autograd kernel treats one overload, and why when it records nothing.

    Torch: gen_variable_type.py (gen_variable_type_func, emit_body) and gen_trace_type.py.
    """
    function = matched.func
    base = function.func.name.name.base
    base_name = str(function.func.name.name)
    if decomposes_at_autograd_cpu(function, indices, by_name):
        return "composite_implicit", None
    if base in MANUAL_AUTOGRAD or base_name in MANUAL_AUTOGRAD:
        return "manual", None
    if function.func.kind() == SchemaKind.out:
        return "out", None
    if base in DONT_REQUIRE_DERIVATIVE or base_name in DONT_REQUIRE_DERIVATIVE:
        return "not_differentiable", "DONT_REQUIRE_DERIVATIVE"
    info = matched.info.get(DEFAULT_KEY) if matched.info else None
    if info is None:
        # Entries only for other keys (AutogradNestedTensor) leave the CPU op without one.
        matched = NativeFunctionWithDifferentiabilityInfo(function, None, None)
    with native_function_manager(function):
        outputs = gen_differentiable_outputs(matched)
    if info is not None and not info.has_derivatives:
        return "not_differentiable", "non_differentiable inputs"
    if not outputs:
        if info is not None and info.output_differentiability is not None:
            return "not_differentiable", "output_differentiability"
        return "not_differentiable", "no differentiable outputs"
    if info is not None:
        return "formula", None
    # RESET_GRAD_ACCUMULATOR (set_) adds a reset of the accumulator after the call (the
    # "reset_grad_accumulator" list): the kernel is still the not-implemented one (a leaf
    # that requires grad is refused, a result gets a NotImplemented node).
    return "not_implemented", None


def view_record(group: NativeFunctionsViewGroup) -> dict[str, str | None]:
    """A view op's in-place view and `{view}_copy` overloads (native_functions.yaml)."""
    return {
        "view_inplace": None if group.view_inplace is None else qualified(group.view_inplace),
        "view_copy": None if group.view_copy is None else qualified(group.view_copy),
    }


def extract() -> dict[str, Any]:
    """The whole of derivatives.json."""
    blocks = raw_entries()
    infos, _ = load_derivatives(str(DERIVATIVES_YAML), str(NATIVE_YAML), str(TAGS_YAML))
    parsed = parse_native_yaml(str(NATIVE_YAML), str(TAGS_YAML))
    functions, indices = parsed.native_functions, parsed.backend_indices
    by_name = {str(function.func.name): function for function in functions}
    matched_all = match_differentiability_info(functions, infos)
    derivatives: dict[str, Any] = {}
    categories: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for matched in matched_all:
        name = qualified(matched.func)
        categories[name], reason = category(matched, indices, by_name)
        if reason is not None:
            reasons[name] = reason
        if matched.func.func.kind() == SchemaKind.out:
            continue
        if matched.info and DEFAULT_KEY in matched.info:
            record = entry(matched.func, matched.info, blocks)
            record["cia"] = decomposes_at_autograd_cpu(matched.func, indices, by_name)
            derivatives[name] = record
    views = {
        qualified(group.view): view_record(group)
        for group in get_grouped_by_view_native_functions(functions)
        if isinstance(group, NativeFunctionsViewGroup)
    }
    return {
        "torch_version": torch.__version__,
        "derivatives": dict(sorted(derivatives.items())),
        "autograd": dict(sorted(categories.items())),
        "not_differentiable": dict(sorted(reasons.items())),
        "views": dict(sorted(views.items())),
        # torch: the generated kernels of these call reset_grad_accumulator(self) after the
        # op, in every grad mode (gen_variable_type.py RESET_GRAD_ACCUMULATOR); resize_ is
        # written by hand (VariableTypeManual.cpp) and does not.
        "reset_grad_accumulator": sorted(
            qualified(m.func)
            for m in matched_all
            if str(m.func.func.name.name) in RESET_GRAD_ACCUMULATOR
            and categories[qualified(m.func)] == "not_implemented"
        ),
    }


def write(facts: dict[str, Any], path: Path) -> None:
    """Sorted keys, one overload per line."""
    sections = [f' "torch_version": {json.dumps(facts["torch_version"])}']
    for section in ("derivatives", "autograd", "not_differentiable", "views"):
        lines = ",\n".join(
            f"  {json.dumps(name)}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}"
            for name, value in facts[section].items()
        )
        sections.append(f" {json.dumps(section)}: {{\n{lines}\n }}")
    sections.append(f' "reset_grad_accumulator": {json.dumps(facts["reset_grad_accumulator"])}')
    path.write_text("{\n" + ",\n".join(sections) + "\n}\n", encoding="utf-8")


def main() -> None:
    """Rewrites spec/derivatives.json from the installed torch's torchgen."""
    start = time.perf_counter()
    facts = extract()
    write(facts, SPEC_DIR / "derivatives.json")
    counts: dict[str, int] = {}
    for value in facts["autograd"].values():
        counts[value] = counts.get(value, 0) + 1
    nodes = {record["node"] for record in facts["derivatives"].values() if record["node"]}
    print(
        f"torch {facts['torch_version']}: {len(facts['derivatives'])} overloads with a "
        f"derivatives.yaml entry ({len(nodes)} node classes), {len(facts['views'])} view ops; "
        + ", ".join(f"{count} {name}" for name, count in sorted(counts.items()))
        + f" ({time.perf_counter() - start:.1f} s)"
    )


if __name__ == "__main__":
    main()
