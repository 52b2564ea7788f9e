"""Extracts the facts refimpl checks itself against from the installed torch.

Torch: reads torch's operator registries (torch._C._jit_get_all_schemas, torch.ops.<ns>.<op>),
its dispatcher (torch._C._dispatch_*) and c10/core/DispatchKey.h from the installed headers.

Run from the repository root with the targeted torch installed:

    python spec/extract.py

It rewrites spec/schemas.json, spec/dispatch_keys.json, spec/kernel_dtypes.json and
spec/api_signatures.json; see spec/README.md for their contents. This script is the only place
outside conformance/ and benchmarks/ that imports torch.
"""

from __future__ import annotations

import ast
import fnmatch
import inspect
import json
import pkgutil
import re
import textwrap
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final

import torch
import torchgen
from torchgen.api import python as torchgen_python
from torchgen.gen import parse_native_yaml
from torchgen.model import SchemaKind

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
    if record["cia"] and torch._C._dispatch_has_kernel_for_dispatch_key(name, "CPU"):
        # A composite that also has a CPU kernel (silu_backward, mish_backward,
        # native_channel_shuffle): the CPU kernel runs for CPU tensors; only these carry it.
        record["cia_and_cpu"] = True
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
        "fallthrough": {key: fallthrough_ops(key) for key in MATH_BIT_KEYS},
    }


# The keys whose per-op fallthrough registrations refimpl reads (ops/math_bits.py): the ops
# that pass a tensor with the conjugate / negative bit to their kernels unresolved.
MATH_BIT_KEYS: Final = ("Conjugate", "Negative")


def fallthrough_ops(key: str) -> list[str]:
    """The aten/prims overloads with a fallthrough kernel registered for `key` (torch:
    `m.impl(name, makeFallthrough())` in ConjugateFallback.cpp, NegateFallback.cpp), as the
    dispatch table shows them."""
    found = []
    for name in torch._C._dispatch_get_all_op_names():
        if name.split("::")[0] not in NAMESPACES:
            continue
        for line in torch._C._dispatch_dump_table(name).splitlines():
            if line.startswith(f"{key}: fallthrough"):
                found.append(name)
    return sorted(found)


# --- kernel_dtypes.json ------------------------------------------------------------------------

# torch's 13 basic dtypes, the ones refimpl's kernels declare support for.
BASIC_DTYPES: Final = (
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex32,
    torch.complex64,
    torch.complex128,
    torch.bool,
)
# Elementwise overloads ("<op>.<overload>", fnmatch patterns) that torch does not (all) tag
# `pointwise` but whose kernels refimpl declares like the pointwise ones.
ELEMENTWISE_PATTERNS: Final = (
    "clamp*",
    "where.self",
    "masked_fill.Scalar",
    "masked_fill.Tensor",
    "lerp.*",
    "addcmul.default",
    "addcdiv.default",
    "nan_to_num.default",
    "isclose.default",
    "polar.default",
    "complex.default",
    "frexp.Tensor",
    "ldexp.Tensor",
    "float_power.*",
    "logit.default",
    "polygamma.default",
    "mvlgamma.default",
    "round.decimals",
    "signbit.default",
    "isnan.default",
    "isinf.default",
    "isposinf.default",
    "isneginf.default",
    "isfinite.default",
    "isreal.default",
    "nextafter.default",
    "heaviside.default",
    "copysign.*",
    "xlogy.*",
    "special_*",
    "clone.default",
    "_to_copy.default",
    "fill.*",
    "fill_.*",
    "hardtanh_backward.default",
    "leaky_relu_backward.default",
    "elu_backward.default",
    "softplus_backward.default",
    "softshrink_backward.default",
    "hardshrink_backward.default",
    "hardsigmoid_backward.default",
    "hardswish.default",
    "hardswish_backward.default",
    "mish_backward.default",
    "log_sigmoid_forward.default",
    "log_sigmoid_backward.default",
    "_prelu_kernel.default",
    "_prelu_kernel_backward.default",
    "rrelu_with_noise.default",
    "rrelu_with_noise_backward.default",
)
# In-place and out= overloads share the functional overload's kernel and are skipped, except
# these: fill_ is the kernel that fill.* is composed over.
MUTATING_PATTERNS: Final = ("fill_.*",)
# Tensor arguments whose dtype is fixed by the op rather than the computation dtype.
FIXED_DTYPE_ARGUMENTS: Final = {"condition": torch.bool, "mask": torch.bool}
# Tensor arguments the op requires to be 0-dim (fill_ and masked_fill take a 0-dim value).
ZERO_DIM_ARGUMENTS: Final = frozenset({"value"})
# Integer tensor values by argument name (default 1): pow's exponent 2, since 1 would hide
# nothing and a negative integer exponent raises.
INTEGER_TENSOR_VALUES: Final = {"exponent": 2}
# Non-Tensor arguments without a usable schema default, by argument name, then by type.
ARGUMENT_VALUES: Final[dict[str, object]] = {"exponent": 2, "n": 1, "p": 1, "decimals": 0, "dim": 0}
TYPE_VALUES: Final[dict[str, object]] = {
    "number": 1,
    "Optional[number]": 1,  # clamp needs at least one bound
    "int": 0,
    "List[int]": [0],
    "float": 0.5,
    "bool": False,
}


def dtype_name(dtype: torch.dtype) -> str:
    """refimpl's name of a torch dtype: `float32`, `complex32`, `bool`."""
    return str(dtype).removeprefix("torch.")


def elementwise_overloads(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(op, overload) of every functional aten overload tagged pointwise or listed above."""
    selected = []
    for record in records:
        namespace, op_name = record["name"].split("::")
        if namespace != "aten" or not record["dispatcher"]:
            continue
        overload = record["overload"] or "default"
        dotted = f"{op_name}.{overload}"
        listed = any(fnmatch.fnmatchcase(dotted, p) for p in ELEMENTWISE_PATTERNS)
        if not (listed or "pointwise" in record["tags"]):
            continue
        schema = getattr(getattr(torch.ops.aten, op_name), overload)._schema
        if schema.is_mutable and not any(fnmatch.fnmatchcase(dotted, p) for p in MUTATING_PATTERNS):
            continue
        selected.append((op_name, overload))
    return selected


def tensor_value(dtype: torch.dtype, name: str) -> float:
    """A value no op rejects as a value: 0.5 (0 < x < 1 for logit, nonzero, > (p - 1) / 2 for
    mvlgamma), 1 for integers (nonzero divisors), True for bool."""
    if dtype == torch.bool:
        return True
    if dtype.is_floating_point or dtype.is_complex:
        return 0.5
    return INTEGER_TENSOR_VALUES.get(name, 1)


def tensor_argument(argument: torch._C.Argument, dtype: torch.dtype) -> torch.Tensor:
    """A CPU tensor of shape (3,) (or 0-dim where the op requires it) holding a safe value."""
    dtype = FIXED_DTYPE_ARGUMENTS.get(argument.name, dtype)
    shape = () if argument.name in ZERO_DIM_ARGUMENTS else (3,)
    return torch.full(shape, tensor_value(dtype, argument.name), dtype=dtype)


def synthesized_arguments(schema: torch._C.FunctionSchema, dtype: torch.dtype) -> dict[str, Any]:
    """Keyword arguments for an overload, every Tensor of `dtype`."""
    arguments: dict[str, Any] = {}
    for argument in schema.arguments:
        type_name = str(argument.type)
        if type_name in ("Tensor", "Optional[Tensor]"):
            arguments[argument.name] = tensor_argument(argument, dtype)
        elif argument.has_default_value() and not (
            argument.default_value is None and type_name in TYPE_VALUES
        ):
            arguments[argument.name] = argument.default_value
        elif argument.name in ARGUMENT_VALUES:
            arguments[argument.name] = ARGUMENT_VALUES[argument.name]
        elif type_name in TYPE_VALUES:
            arguments[argument.name] = TYPE_VALUES[type_name]
        elif type_name.startswith("Optional["):
            arguments[argument.name] = None  # rounding_mode, generator, dtype, ...
        else:
            raise RuntimeError(f"no synthesized value for {argument.name}: {type_name}")
    return arguments


def result_name(result: object) -> str:
    """The result's dtype name, `float32, int32` for a tuple of tensors."""
    if isinstance(result, torch.Tensor):
        return dtype_name(result.dtype)
    if isinstance(result, tuple | list):
        return ", ".join(result_name(item) for item in result)
    return type(result).__name__


def kernel_dtype_record(op_name: str, overload: str) -> dict[str, dict[str, Any]]:
    """For each basic dtype: {"result": dtype name} or {"error": [exception type, message]}."""
    op = getattr(getattr(torch.ops.aten, op_name), overload)
    record: dict[str, dict[str, Any]] = {}
    for dtype in BASIC_DTYPES:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ComplexHalf is experimental, deprecations
                result = op(**synthesized_arguments(op._schema, dtype))
        except Exception as error:  # noqa: BLE001 - every failure is a fact to record
            # A message spanning several lines would keep its first (none does in torch 2.13).
            message = str(error).split("\n", 1)[0]
            record[dtype_name(dtype)] = {"error": [type(error).__name__, message]}
        else:
            record[dtype_name(dtype)] = {"result": result_name(result)}
    return record


def extract_kernel_dtypes(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Op -> overload -> dtype -> accepted with its result dtype, or the error torch raised."""
    facts: dict[str, dict[str, Any]] = {}
    for op_name, overload in elementwise_overloads(records):
        facts.setdefault(f"aten::{op_name}", {})[overload] = kernel_dtype_record(op_name, overload)
    return facts


def write_kernel_dtypes(facts: dict[str, dict[str, Any]], path: Path) -> None:
    """Sorted keys, one dtype per line, so that each overload reads as one block."""
    blocks = []
    for name in sorted(facts):
        overloads = []
        for overload in sorted(facts[name]):
            rows = [
                f"   {json.dumps(dtype)}: {json.dumps(entry, ensure_ascii=False)}"
                for dtype, entry in sorted(facts[name][overload].items())
            ]
            overloads.append(f"  {json.dumps(overload)}: {{\n" + ",\n".join(rows) + "\n  }")
        blocks.append(f" {json.dumps(name)}: {{\n" + ",\n".join(overloads) + "\n }")
    path.write_text("{\n" + ",\n".join(blocks) + "\n}\n", encoding="utf-8")


# --- api_signatures.json -----------------------------------------------------------------------

# Where each Python namespace's signatures come from: the wheel's stubs, parsed with ast. The
# wheel ships no stub for torch.special, torch.linalg or torch.fft; their signatures are
# generated the way torch generates the others (see module_stub).
STUBS: Final = (
    ("torch", "_C/_VariableFunctions.pyi", None),
    ("Tensor", "_C/__init__.pyi", "TensorBase"),
)
PARAMETER_KINDS: Final = {
    "posonlyargs": "positional-only",
    "args": "positional-or-keyword",
    "vararg": "var-positional",
    "kwonlyargs": "keyword-only",
    "kwarg": "var-keyword",
}
INSPECT_KINDS: Final = {
    inspect.Parameter.POSITIONAL_ONLY: "positional-only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional-or-keyword",
    inspect.Parameter.VAR_POSITIONAL: "var-positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword-only",
    inspect.Parameter.VAR_KEYWORD: "var-keyword",
}
TESTING_OVERRIDE_OWNERS: Final[dict[str, object]] = {
    "torch": torch,
    "torch.special": torch.special,
    "torch.linalg": torch.linalg,
    "torch.fft": torch.fft,
    "torch._C._nn": torch._C._nn,
    "Tensor": torch.Tensor,
}
# Lambdas with torch's parameter names and defaults, also for functions that have no stub.
OVERRIDES: Final[dict[Any, Callable[..., Any]]] = torch.overrides.get_testing_overrides()


def stub_definitions(source: str, class_name: str | None) -> Iterable[ast.FunctionDef]:
    """The top-level defs of a stub, or those of one of its classes."""
    body = ast.parse(source).body
    if class_name is not None:
        classes = [node for node in body if isinstance(node, ast.ClassDef)]
        body = next(node for node in classes if node.name == class_name).body
    return (node for node in body if isinstance(node, ast.FunctionDef))


def source_text(node: ast.expr | None) -> str | None:
    """An annotation or default as source text, None where there is none."""
    return None if node is None else ast.unparse(node)


def parameter_records(arguments: ast.arguments) -> list[dict[str, Any]]:
    """Each parameter of a def in order: name, kind, default and annotation as source text."""
    positional = arguments.posonlyargs + arguments.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    grouped: list[tuple[str, ast.arg, ast.expr | None]] = [
        ("posonlyargs" if index < len(arguments.posonlyargs) else "args", arg, default)
        for index, (arg, default) in enumerate(zip(positional, defaults, strict=True))
    ]
    if arguments.vararg is not None:
        grouped.append(("vararg", arguments.vararg, None))
    grouped += [
        ("kwonlyargs", arg, default)
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    if arguments.kwarg is not None:
        grouped.append(("kwarg", arguments.kwarg, None))
    return [
        {
            "name": arg.arg,
            "kind": PARAMETER_KINDS[field],
            "default": source_text(default),
            "annotation": source_text(arg.annotation),
        }
        for field, arg, default in grouped
    ]


def stub_signatures(source: str, class_name: str | None) -> dict[str, list[dict[str, Any]]]:
    """Name -> its overloads in stub order, each {"parameters": [...], "returns": text}."""
    signatures: dict[str, list[dict[str, Any]]] = {}
    for node in stub_definitions(source, class_name):
        signatures.setdefault(node.name, []).append(
            {"parameters": parameter_records(node.args), "returns": source_text(node.returns)}
        )
    return signatures


def python_pair(function: Any) -> Any:
    """torchgen's pyi Python signature of a NativeFunction, paired with the function."""
    signature = torchgen_python.signature(function, pyi=True)
    return torchgen_python.PythonSignatureNativeFunctionPair(signature, function)


# The namespaces torch generates from the `python_module:` entries of native_functions.yaml,
# each named `<module>_<name>` in aten (torch.special.ndtr is aten::special_ndtr).
GENERATED_MODULES: Final = ("special", "linalg", "fft")


def module_stub(module: str) -> str:
    """torch.<module>'s stub as torch would generate it, from the wheel's native_functions.yaml.

    Torch: tools/pyi/gen_pyi.py writes _VariableFunctions.pyi from the same torchgen
    PythonSignatureGroup.signature_str_pyi, pairing each functional overload with its out=
    overload; it writes none for torch._C._special, _linalg or _fft. Overloads keep
    native_functions.yaml order.
    """
    native = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
    parsed = parse_native_yaml(str(native / "native_functions.yaml"), str(native / "tags.yaml"))
    functions = [f for f in parsed.native_functions if f.python_module == module]
    defs = []
    for function in functions:
        if function.func.is_out_fn():
            continue
        # An in-place overload (elu_) pairs with no out= overload: torchgen's pyi pairs
        # functional overloads only (else the pair would take the functional's name).
        outs = [
            f
            for f in functions
            if f.func.is_out_fn()
            and f.func.signature() == function.func.signature()
            and function.func.kind() == SchemaKind.functional
        ]
        group = torchgen_python.PythonSignatureGroup.from_pairs(
            python_pair(function), python_pair(outs[0]) if outs else None
        )
        defs.append(group.signature.signature_str_pyi(skip_outputs=False))
    return "\n".join(defs) + "\n"


def testing_override(namespace: str, name: str) -> list[dict[str, Any]] | None:
    """Parameters of torch.overrides.get_testing_overrides()'s lambda for a function."""
    function = getattr(TESTING_OVERRIDE_OWNERS[namespace], name, None)
    override = OVERRIDES.get(function) if function is not None else None
    if override is None:
        return None
    return [
        {
            "name": parameter.name,
            "kind": INSPECT_KINDS[parameter.kind],
            "default": None if parameter.default is parameter.empty else repr(parameter.default),
        }
        for parameter in inspect.signature(override).parameters.values()
    ]


def python_signatures(namespace: str) -> dict[str, list[dict[str, Any]]]:
    """Overridable functions written in Python (torch.norm, Tensor.stft), from their source.

    They have no stub; their def is their one signature.
    """
    owner = TESTING_OVERRIDE_OWNERS[namespace]
    signatures = {}
    for name, function in sorted(vars(owner).items()):
        # Wrappers of a C method (Tensor.__rsub__) have their signature in the stub; functions
        # without a testing override are no tensor API (torch.manual_seed, torch.save).
        if not inspect.isfunction(function) or not inspect.isfunction(inspect.unwrap(function)):
            continue
        if function not in OVERRIDES:
            continue
        source = textwrap.dedent(inspect.getsource(function))
        node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
        signatures[name] = [
            {"parameters": parameter_records(node.args), "returns": source_text(node.returns)}
        ]
    return signatures


def extract_api_signatures(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Namespace -> function name -> {"overloads": [...], "testing_override": [...] | None}.

    Only names that are also aten op base names (torch.special: `special_<name>`, likewise
    linalg_ and fft_) are kept.
    """
    aten_names = {
        record["name"].removeprefix("aten::")
        for record in records
        if record["name"].startswith("aten::")
    }
    torch_dir = Path(torch.__file__).parent
    sources = {
        namespace: stub_signatures((torch_dir / stub).read_text(encoding="utf-8"), class_name)
        for namespace, stub, class_name in STUBS
    }
    for module in GENERATED_MODULES:
        owner = getattr(torch, module)
        sources[f"torch.{module}"] = {
            name.removeprefix(f"{module}_"): overloads
            for name, overloads in stub_signatures(module_stub(module), None).items()
            if hasattr(owner, name.removeprefix(f"{module}_"))
        }
    # torch._C._nn: the generated bindings of the `python_module: nn` functions (gelu,
    # linear, avg_pool2d, ...), which torch.nn.functional calls or re-exports; no prefix.
    sources["torch._C._nn"] = {
        name: overloads
        for name, overloads in stub_signatures(
            # torchgen spells the `reduction` default in C++; its value is Reduction::Mean, 1.
            module_stub("nn").replace("at::Reduction::Mean", "1"), None
        ).items()
        if hasattr(torch._C._nn, name)
    }
    for namespace, signatures in sources.items():
        for name, overloads in python_signatures(namespace).items():
            signatures.setdefault(name, overloads)
    api: dict[str, dict[str, Any]] = {}
    for namespace, signatures in sorted(sources.items()):
        module = namespace.removeprefix("torch.")
        prefix = f"{module}_" if module in GENERATED_MODULES else ""
        api[namespace] = {
            name: {
                "overloads": overloads,
                "testing_override": testing_override(namespace, name),
            }
            for name, overloads in sorted(signatures.items())
            if prefix + name in aten_names
        }
    return api


def write_api_signatures(api: dict[str, dict[str, Any]], path: Path) -> None:
    """Sorted names, one overload per line."""
    blocks = []
    for namespace, functions in api.items():
        entries = []
        for name, entry in functions.items():
            overloads = ",\n".join(
                "   " + json.dumps(overload, ensure_ascii=False) for overload in entry["overloads"]
            )
            override = json.dumps(entry["testing_override"], ensure_ascii=False)
            entries.append(
                f'  {json.dumps(name)}: {{\n   "overloads": [\n{overloads}\n   ],\n'
                f'   "testing_override": {override}\n  }}'
            )
        blocks.append(f" {json.dumps(namespace)}: {{\n" + ",\n".join(entries) + "\n }")
    path.write_text("{\n" + ",\n".join(blocks) + "\n}\n", encoding="utf-8")


# --- torch_names.json ----------------------------------------------------------------------


def extract_public_names() -> dict[str, list[str]]:
    """The public attribute names of the torch module and of torch.Tensor (no leading
    underscore): functions, classes, submodules, constants. refimpl tells a missing one
    apart from a misspelling ("refimpl does not implement torch.autocast yet")."""
    # A submodule is an attribute once something imports it (torch.onnx, torch.contrib), so
    # the importable ones are listed whether imported here or not.
    submodules = {module.name for module in pkgutil.iter_modules(torch.__path__)}
    return {
        "torch": sorted(name for name in {*dir(torch), *submodules} if not name.startswith("_")),
        "Tensor": sorted(name for name in dir(torch.Tensor) if not name.startswith("_")),
    }


def main() -> None:
    """Rewrites every spec/*.json file from the installed torch."""
    start = time.perf_counter()
    records = extract_schemas()
    write_schemas(records, SPEC_DIR / "schemas.json")
    keys = extract_dispatch_keys()
    (SPEC_DIR / "dispatch_keys.json").write_text(
        json.dumps(keys, indent=1) + "\n", encoding="utf-8"
    )
    kernel_dtypes = extract_kernel_dtypes(records)
    write_kernel_dtypes(kernel_dtypes, SPEC_DIR / "kernel_dtypes.json")
    api = extract_api_signatures(records)
    write_api_signatures(api, SPEC_DIR / "api_signatures.json")
    (SPEC_DIR / "torch_names.json").write_text(
        json.dumps(extract_public_names(), indent=0) + "\n", encoding="utf-8"
    )
    in_dispatcher = sum(record["dispatcher"] for record in records)
    print(
        f"torch {keys['torch_version']}: {len(records)} overloads "
        f"({in_dispatcher} in the dispatcher), "
        f"{len(keys['functionality_keys'])} functionality keys"
    )
    print(
        f"kernel dtypes of {sum(map(len, kernel_dtypes.values()))} overloads; API signatures of "
        + ", ".join(f"{len(names)} {namespace}" for namespace, names in api.items())
        + f" functions ({time.perf_counter() - start:.1f} s)"
    )


if __name__ == "__main__":
    main()
