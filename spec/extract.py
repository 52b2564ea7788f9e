"""Extracts the facts refimpl checks itself against from the installed torch.

Torch: reads torch's operator registries (torch._C._jit_get_all_schemas, torch.ops.<ns>.<op>),
its dispatcher (torch._C._dispatch_*) and c10/core/DispatchKey.h from the installed headers.

Run from the repository root with the targeted torch installed:

    python spec/extract.py

It rewrites spec/schemas.json and spec/dispatch_keys.json; see spec/README.md for their
contents. This script is the only place outside conformance/ and benchmarks/ that imports torch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

import torch

SPEC_DIR: Final = Path(__file__).resolve().parent
NAMESPACES: Final = ("aten", "prims")
# Alias keys whose kernels the schema records say an overload has.
COMPOSITE_FLAGS: Final = (
    ("cia", "CompositeImplicitAutograd"),
    ("cea", "CompositeExplicitAutograd"),
    ("ceanf", "CompositeExplicitAutogradNonFunctional"),
)
PER_BACKEND_FUNCTIONALITY: Final = (
    "Dense",
    "Quantized",
    "Sparse",
    "SparseCsr",
    "NestedTensor",
    "AutogradFunctionality",
)
FIRST_ALIAS_KEY: Final = "Autograd"


# --- schemas.json ------------------------------------------------------------------------------


def qualified_name(schema: torch._C.FunctionSchema) -> str:
    """`aten::add.Tensor`, or `aten::relu` for the default overload."""
    if schema.overload_name:
        return f"{schema.name}.{schema.overload_name}"
    return schema.name


def packet_positions(name: str) -> dict[str, int]:
    """Position of each overload in `torch.ops.<ns>.<op>.overloads()` (packet call order)."""
    namespace, op_name = name.split("::")
    packet = getattr(getattr(torch.ops, namespace), op_name)
    # overloads() spells the empty overload name "default".
    return {
        ("" if overload == "default" else overload): index
        for index, overload in enumerate(packet.overloads())
    }


def schema_record(
    schema: torch._C.FunctionSchema, dispatcher_ops: set[str], positions: dict[str, int]
) -> dict[str, Any]:
    """One line of schemas.json."""
    name = qualified_name(schema)
    namespace, op_name = schema.name.split("::")
    packet = getattr(getattr(torch.ops, namespace), op_name)
    overload = getattr(packet, schema.overload_name or "default")
    in_dispatcher = name in dispatcher_ops
    record: dict[str, Any] = {
        "name": schema.name,
        "overload": schema.overload_name,
        "schema": str(schema),
        "tags": [tag.name for tag in overload.tags],
    }
    for flag, key in COMPOSITE_FLAGS:
        # Operators that exist only in the TorchScript registry have no dispatcher entry.
        record[flag] = in_dispatcher and torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
    record["dispatcher"] = in_dispatcher
    record["packet_index"] = positions[schema.overload_name]
    return record


def extract_schemas() -> list[dict[str, Any]]:
    """Every aten/prims overload: the dispatcher's ops plus TorchScript-only overloads."""
    dispatcher_ops = set(torch._C._dispatch_get_all_op_names())
    # _jit_get_all_schemas is a superset of the dispatcher's aten/prims ops (checked below): it
    # also holds the TorchScript-only overloads (aten::add.int, aten::__getitem__.Dict_str, ...)
    # that torch.ops.aten.<op>.overloads() lists too.
    schemas = [
        schema
        for schema in torch._C._jit_get_all_schemas()
        if schema.name.split("::")[0] in NAMESPACES
    ]
    names = {qualified_name(schema) for schema in schemas}
    missing = {
        name for name in dispatcher_ops if name.split("::")[0] in NAMESPACES and name not in names
    }
    if missing:
        raise RuntimeError(f"dispatcher ops without a JIT schema: {sorted(missing)}")
    if len(names) != len(schemas):
        raise RuntimeError("duplicate overloads in torch._C._jit_get_all_schemas()")
    positions: dict[str, dict[str, int]] = {}
    records = []
    for schema in schemas:
        if schema.name not in positions:
            positions[schema.name] = packet_positions(schema.name)
        records.append(schema_record(schema, dispatcher_ops, positions[schema.name]))
    records.sort(key=lambda record: (record["name"], record["overload"]))
    return records


def write_schemas(records: list[dict[str, Any]], path: Path) -> None:
    """A JSON list with one record per line, so that diffs between torch releases stay readable."""
    lines = [json.dumps(record, ensure_ascii=False) for record in records]
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")


# --- dispatch_keys.json ------------------------------------------------------------------------


def dispatch_key_header() -> str:
    """c10/core/DispatchKey.h of the installed torch, with comments removed."""
    header = Path(torch.__file__).parent / "include" / "c10" / "core" / "DispatchKey.h"
    text = header.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", text)


def enum_body(header: str, enum: str) -> str:
    """The text between the braces of `enum class <enum>`."""
    match = re.search(r"enum class " + enum + r"\s*:\s*\w+\s*\{(.*?)\n\};", header, re.DOTALL)
    if match is None:
        raise RuntimeError(f"enum class {enum} not found in DispatchKey.h")
    return match.group(1)


def macro_names(header: str, macro: str) -> list[str]:
    """The first argument of each `_(Name, ...)` entry of an X-macro definition."""
    match = re.search(r"#define " + macro + r"\([^)]*\)((?:[^\n]*\\\n)*[^\n]*)", header)
    if match is None:
        raise RuntimeError(f"#define {macro} not found in DispatchKey.h")
    return re.findall(r"_\((\w+)\s*,", match.group(1))


def backend_components(header: str) -> list[str]:
    """BackendComponent names by value: InvalidBit, CPUBit, ..., MetaBit."""
    body = enum_body(header, "BackendComponent")
    if "InvalidBit = 0" not in body or "C10_FORALL_BACKEND_COMPONENTS" not in body:
        raise RuntimeError("unexpected layout of enum class BackendComponent")
    backends = macro_names(header, "C10_FORALL_BACKEND_COMPONENTS")
    return ["InvalidBit"] + [backend + "Bit" for backend in backends]


def functionality_keys(header: str) -> list[str]:
    """DispatchKey names 0 .. EndOfFunctionalityKeys-1, i.e. by ascending priority."""
    body = enum_body(header, "DispatchKey")
    body = body[: body.index("EndOfFunctionalityKeys")]
    keys: list[str] = []
    for entry in body.split(","):
        entry = entry.strip()
        if not entry:
            continue
        match = re.fullmatch(r"(\w+)(?:\s*=\s*(\w+))?", entry)
        if match is None:
            raise RuntimeError(f"unexpected DispatchKey entry {entry!r}")
        name, value = match.groups()
        if value is None or (value == "0" and not keys):
            keys.append(name)
        elif value not in keys:
            raise RuntimeError(f"unexpected DispatchKey value {entry!r}")
        # else: a second name for an existing key (CatchAll = Undefined).
    return keys


def key_set_names(key_set: object) -> list[str]:
    """Key names from a printed DispatchKeySet, e.g. `DispatchKeySet(BackendSelect, ...)`."""
    match = re.fullmatch(r"DispatchKeySet\((.*)\)", str(key_set))
    if match is None:
        raise RuntimeError(f"unexpected DispatchKeySet repr {key_set}")
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def check_per_backend_keys(
    members: list[tuple[int, str]], functionality: list[str], backends: list[str]
) -> None:
    """The runtime keys follow EndOfFunctionalityKeys as in DispatchKey.h's macro expansion."""
    # torch: DEFINE_PER_BACKEND_KEYS in c10/core/DispatchKey.h. Each per-backend functionality
    # contributes StartOf<F>Backends followed by one key per backend (prefix + backend name).
    prefixes = {"Dense": "", "AutogradFunctionality": "Autograd"}
    expected: dict[str, int] = {}
    value = len(functionality)  # EndOfFunctionalityKeys
    for key in PER_BACKEND_FUNCTIONALITY:
        value += 1
        expected[f"StartOf{key}Backends"] = value
        for backend in backends[1:]:
            value += 1
            expected[prefixes.get(key, key) + backend.removesuffix("Bit")] = value
    actual = {name: value for value, name in members}
    for name, value in expected.items():
        if actual.get(name) != value:
            raise RuntimeError(
                f"DispatchKey.{name}: header gives {value}, pybind {actual.get(name)}"
            )


def extract_dispatch_keys() -> dict[str, Any]:
    """Key enums, their values and the default thread-local include/exclude sets."""
    header = dispatch_key_header()
    members = sorted(
        ((int(value), name) for name, value in torch._C.DispatchKey.__members__.items()),
    )
    alias_start = int(getattr(torch._C.DispatchKey, FIRST_ALIAS_KEY))
    functionality = functionality_keys(header)
    backends = backend_components(header)
    # Cross-check the header against the pybind enum where both know a key.
    for value, name in members:
        if value < len(functionality) and functionality[value] != name:
            raise RuntimeError(f"DispatchKey.h gives {functionality[value]} for {name}={value}")
    check_per_backend_keys(members, functionality, backends)
    if torch._C._dispatch_num_backends() != len(backends) - 1:
        raise RuntimeError("BackendComponent count differs from _dispatch_num_backends()")
    for key in PER_BACKEND_FUNCTIONALITY:
        if key not in functionality:
            raise RuntimeError(f"per-backend functionality {key} not in DispatchKey.h")
    return {
        "torch_version": torch.__version__,
        "backend_components": backends,
        "functionality_keys": functionality,
        "per_backend_functionality": list(PER_BACKEND_FUNCTIONALITY),
        "runtime_keys": {name: value for value, name in members if value < alias_start},
        "alias_keys": {name: value for value, name in members if value >= alias_start},
        "tls_default": {
            "included": key_set_names(torch._C._dispatch_tls_local_include_set()),
            "excluded": key_set_names(torch._C._dispatch_tls_local_exclude_set()),
        },
    }


def main() -> None:
    """Rewrites spec/schemas.json and spec/dispatch_keys.json from the installed torch."""
    records = extract_schemas()
    write_schemas(records, SPEC_DIR / "schemas.json")
    keys = extract_dispatch_keys()
    (SPEC_DIR / "dispatch_keys.json").write_text(
        json.dumps(keys, indent=1) + "\n", encoding="utf-8"
    )
    in_dispatcher = sum(record["dispatcher"] for record in records)
    print(
        f"torch {keys['torch_version']}: {len(records)} overloads "
        f"({in_dispatcher} in the dispatcher), "
        f"{len(keys['functionality_keys'])} functionality keys"
    )


if __name__ == "__main__":
    main()
