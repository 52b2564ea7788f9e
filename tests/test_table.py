"""Dispatch-table computation, dumps and errors, compared with torch's for the same
registrations on custom operators defined with torch.library.

refimpl's fallback registry mirrors torch's global fallbacks (read from the dump table of an
operator with no kernels), and each refimpl registration carries the debug string torch
recorded for the same registration, so dumps and error texts compare as whole strings.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import pytest

from refimpl._base import keys
from refimpl._base.keys import DispatchKey, DispatchKeySet
from refimpl.dispatch.table import BackendFallbacks, FillKind, KernelRecord, OperatorEntry

torch = pytest.importorskip("torch")
library: Any = pytest.importorskip("torch.library")

NAMESPACE: Final = "refimpl_test_table"
FT: Final = "fallthrough"  # marks a fallthrough registration in SCENARIOS


def kernel(x: Any) -> Any:
    return x


@dataclass(frozen=True)
class Scenario:
    """Registrations made, in order, to one fresh operator `ns::<name>(Tensor x) -> Tensor`."""

    name: str
    registrations: tuple[tuple[str, bool], ...]  # (dispatch key name, is fallthrough)


def scenario(name: str, *regs: str | tuple[str, str]) -> Scenario:
    parsed = tuple((r, False) if isinstance(r, str) else (r[0], True) for r in regs)
    return Scenario(name, parsed)


# pytorch-semantics.md §1.8 and the corner cases of Note [Alias key precedence].
SCENARIOS: Final = (
    scenario("cia_only", "CompositeImplicitAutograd"),
    scenario("cea_cpu", "CompositeExplicitAutograd", "CPU"),
    scenario("autograd_cpu", "Autograd", "CPU"),
    scenario("fallthrough_autogradcpu", "CPU", ("AutogradCPU", FT)),
    scenario("cpu_only", "CPU"),
    scenario("meta_only", "Meta"),
    scenario("cia_cpu", "CompositeImplicitAutograd", "CPU"),
    scenario("ceanf_cea", "CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd"),
    scenario("cia_autograd", "CompositeImplicitAutograd", "Autograd"),
    scenario("cea_autograd", "CompositeExplicitAutograd", "Autograd"),
    scenario("cia_cea", "CompositeImplicitAutograd", "CompositeExplicitAutograd"),
    scenario("cea_cia", "CompositeExplicitAutograd", "CompositeImplicitAutograd"),
    scenario("cia_sparse_ambiguous", "CompositeImplicitAutograd", "SparseCPU"),
    scenario("fpga_cia_ambiguous", "FPGA", "CompositeImplicitAutograd"),
    scenario("quantized_cia", "QuantizedCPU", "CompositeImplicitAutograd"),
    scenario("cia_nested_backend", "CompositeImplicitAutograd", "NestedTensorCPU"),
    scenario(
        "cia_nested_alias", "CompositeImplicitAutogradNestedTensor", "CompositeImplicitAutograd"
    ),
    scenario("batched_decomposition", "FuncTorchBatchedDecomposition", "CPU"),
    scenario("ceanf_only", "CompositeExplicitAutogradNonFunctional"),
    scenario("like_add", "CPU", "Meta", "Autograd", "CompositeExplicitAutogradNonFunctional"),
    scenario("cia_hip", "CompositeImplicitAutograd", "HIP"),
    scenario("fallthrough_adinplace", ("ADInplaceOrView", FT), "CPU"),
    scenario("python_cpu", "Python", "CPU"),
    scenario("dense_building_block", "Dense"),
    scenario("autogradcpu_cia", "AutogradCPU", "CompositeImplicitAutograd"),
    scenario("backendselect_cea", "BackendSelect", "CompositeExplicitAutograd"),
    scenario("fallthrough_cea", ("CompositeExplicitAutograd", FT)),
    scenario("nothing"),
)

# The slots the brief asks to check by tag, besides the whole dump.
CHECKED_KEYS: Final = ("Undefined", "CPU", "Meta", "AutogradCPU", "AutogradMeta")


@pytest.fixture(scope="module")
def torch_lib() -> Iterator[Any]:
    lib = library.Library(NAMESPACE, "DEF")
    yield lib
    lib._destroy()


def parse_table(dump: str) -> dict[str, tuple[str, bool, str]]:
    """torch's dump table as {key: (debug, is fallthrough, tag)}."""
    table = {}
    for line in dump.splitlines():
        match = re.fullmatch(r"(\w+): (fallthrough )?(.*) \[([a-z ]+)\]", line)
        assert match is not None, line
        key, fallthrough, debug, tag = match.groups()
        table[key] = (debug, fallthrough is not None, tag)
    return table


@pytest.fixture(scope="module")
def fallbacks(torch_lib: Any) -> BackendFallbacks:
    """refimpl fallbacks equal to torch's global ones (same keys, debug strings, fallthroughs)."""
    torch_lib.define("no_kernels(Tensor x) -> Tensor")
    registry = BackendFallbacks()
    for key, (debug, fallthrough, tag) in parse_table(
        torch._C._dispatch_dump_table(f"{NAMESPACE}::no_kernels")
    ).items():
        assert tag == "backend fallback"
        registry.register(DispatchKey[key], KernelRecord(kernel, debug, is_fallthrough=fallthrough))
    return registry


def registration_debugs(dump: str) -> dict[str, list[str]]:
    """torch's registrations as {key: [debug, newest first]}."""
    debugs: dict[str, list[str]] = {}
    for line in dump.splitlines()[4:]:
        match = re.fullmatch(r"(\w+)(?:\[alias\])?(?: \(inactive\))?: (.*) :: .*", line)
        assert match is not None, line
        debugs.setdefault(match.group(1), []).append(match.group(2))
    return debugs


def mirror(
    qualname: str, fallbacks: BackendFallbacks, regs: tuple[tuple[str, bool], ...]
) -> OperatorEntry:
    """A refimpl entry with the same schema text and registrations as torch's `qualname`."""
    state = torch._C._dispatch_dump(qualname)
    header = dict(line.split(": ", 1) for line in state.splitlines()[1:4])
    entry = OperatorEntry(qualname, fallbacks)
    entry.set_schema(header["schema"], header["debug"], header["alias analysis kind"])
    debugs = registration_debugs(state)
    for key, fallthrough in regs:
        debug = debugs[key][-1]
        debugs[key].pop()
        if fallthrough:
            entry.register_kernel(DispatchKey[key], KernelRecord.fallthrough(debug))
        else:
            entry.register_kernel(DispatchKey[key], KernelRecord(kernel, debug))
    return entry


def define(torch_lib: Any, case: Scenario) -> str:
    torch_lib.define(f"{case.name}(Tensor x) -> Tensor")
    for key, fallthrough in case.registrations:
        torch_lib.impl(case.name, library.fallthrough_kernel if fallthrough else kernel, key)
    return f"{NAMESPACE}::{case.name}"


@pytest.mark.parametrize("case", SCENARIOS, ids=lambda c: c.name)
def test_table_matches_torch(torch_lib: Any, fallbacks: BackendFallbacks, case: Scenario) -> None:
    qualname = define(torch_lib, case)
    entry = mirror(qualname, fallbacks, case.registrations)
    expected = torch._C._dispatch_dump_table(qualname)
    tags = {SLOT: kind.value for SLOT, kind in zip(keys.SLOT_KEYS, entry.table_kinds, strict=True)}
    torch_tags = {key: tag for key, (_, _, tag) in parse_table(expected).items()}
    for key in CHECKED_KEYS:
        assert tags[DispatchKey[key]] == torch_tags.get(key, FillKind.MISSING.value), key
    assert entry.dump_computed_table() == expected
    assert entry.dump_state() == torch._C._dispatch_dump(qualname)


def test_stacked_registrations_and_removal(torch_lib: Any, fallbacks: BackendFallbacks) -> None:
    case = scenario("stacked", "CPU", "Meta")
    qualname = define(torch_lib, case)
    entry = mirror(qualname, fallbacks, case.registrations)
    second = library.Library(NAMESPACE, "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns once about overriding a kernel
        second.impl("stacked", kernel, "CPU")
    newest = registration_debugs(torch._C._dispatch_dump(qualname))["CPU"][0]
    record = KernelRecord(kernel, newest)
    entry.register_kernel(DispatchKey.CPU, record)
    assert entry.dump_state() == torch._C._dispatch_dump(qualname)
    assert entry.dump_computed_table() == torch._C._dispatch_dump_table(qualname)
    second._destroy()
    entry.deregister_kernel(DispatchKey.CPU, record)
    assert entry.dump_state() == torch._C._dispatch_dump(qualname)
    assert entry.dump_computed_table() == torch._C._dispatch_dump_table(qualname)


def test_fallback_changes_refresh_tables(torch_lib: Any, fallbacks: BackendFallbacks) -> None:
    case = scenario("refreshed", "CPU")
    qualname = define(torch_lib, case)
    entry = mirror(qualname, fallbacks, case.registrations)
    assert not entry.has_computed_kernel_for_dispatch_key(DispatchKey.AutocastHPU)
    fallback_lib = library.Library("_", "IMPL")
    fallback_lib.fallback(kernel, "AutocastHPU")
    debug = parse_table(torch._C._dispatch_dump_table(qualname))["AutocastHPU"][0]
    fallbacks.register(DispatchKey.AutocastHPU, KernelRecord(kernel, debug))
    try:
        assert entry.dump_computed_table() == torch._C._dispatch_dump_table(qualname)
        with pytest.raises(RuntimeError) as torch_error:
            fallback_lib.fallback(kernel, "AutocastHPU")
        new_debug = str(torch_error.value).rsplit("new registration ", 1)[1]
        with pytest.raises(RuntimeError) as ours:
            fallbacks.register(DispatchKey.AutocastHPU, KernelRecord(kernel, new_debug))
        assert str(ours.value) == str(torch_error.value)
    finally:
        fallback_lib._destroy()
        fallbacks.deregister(DispatchKey.AutocastHPU)
    assert entry.dump_computed_table() == torch._C._dispatch_dump_table(qualname)


def torch_error(call: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        call()
    return info.value


def test_missing_kernel_error_matches_torch(torch_lib: Any, fallbacks: BackendFallbacks) -> None:
    case = scenario("meta_kernel_only", "Meta")
    qualname = define(torch_lib, case)
    entry = mirror(qualname, fallbacks, case.registrations)
    expected = torch_error(lambda: torch.ops.refimpl_test_table.meta_kernel_only(torch.ones(2)))
    actual = entry.missing_kernel_error(DispatchKey.CPU)
    assert (type(actual), str(actual)) == (type(expected), str(expected))


def test_no_tensor_arguments_error_matches_torch(
    torch_lib: Any, fallbacks: BackendFallbacks
) -> None:
    torch_lib.define("no_tensors() -> Tensor")
    torch_lib.impl("no_tensors", lambda: torch.ones(1), "CPU")
    qualname = f"{NAMESPACE}::no_tensors"
    entry = mirror(qualname, fallbacks, (("CPU", False),))
    expected = torch_error(lambda: torch.ops.refimpl_test_table.no_tensors())
    actual = entry.missing_kernel_error(DispatchKey.Undefined)
    assert (type(actual), str(actual)) == (type(expected), str(expected))


def test_ambiguous_autograd_other_error_matches_torch(
    torch_lib: Any, fallbacks: BackendFallbacks
) -> None:
    # torch's own table is only refreshed when CIA comes last (see the Differs: note in
    # OperatorEntry._recompute), so register SparseCPU first to observe the error there.
    case = scenario("ambiguous", "SparseCPU", "CompositeImplicitAutograd")
    qualname = define(torch_lib, case)
    entry = mirror(qualname, fallbacks, case.registrations)
    # Reach the AutogradOther slot: include it, exclude the per-backend autograd keys.
    include = torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.AutogradOther)
    exclude = torch._C._ExcludeDispatchKeyGuard(
        torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)
    )
    with include, exclude:
        expected = torch_error(lambda: torch.ops.refimpl_test_table.ambiguous(torch.ones(2)))
    record = entry.computed_kernel(DispatchKey.AutogradOther)
    assert record is not None
    actual = torch_error(lambda: record.kernel(torch.ones(2)))
    assert (type(actual), str(actual)) == (type(expected), str(expected))


# --- fallthrough masks, observed through which kernel a call runs ---------------------------


def simulate(entry: OperatorEntry, tensor_keys: DispatchKeySet) -> KernelRecord:
    """The first registered kernel a call reaches, dispatching as in
    pytorch-semantics.md §1.6 with default TLS; torch's fallbacks redispatch below their key."""
    tls_included, tls_excluded = keys.DEFAULT_INCLUDED_SET, keys.DEFAULT_EXCLUDED_SET
    ks = ((tensor_keys | tls_included) - tls_excluded).raw
    ks &= entry.non_fallthrough_mask_for(tensor_keys.raw)
    while True:
        slot = keys.highest_priority_index(ks)
        record = entry.dispatch_table[slot]
        assert record is not None, keys.SLOT_KEYS[slot]
        if entry.table_kinds[slot] is not FillKind.BACKEND_FALLBACK:
            return record
        ks &= keys.full_after_raw(keys.SLOT_KEYS[slot])


def test_per_backend_fallthrough_matches_torch(torch_lib: Any, fallbacks: BackendFallbacks) -> None:
    seen: list[str] = []
    torch_lib.define("traced(Tensor x) -> Tensor")

    def tracing_kernel(key: str) -> Callable[[Any], Any]:
        def traced(x: Any) -> Any:
            seen.append(key)
            return x

        return traced

    for key in ("CPU", "Meta", "Autograd"):
        torch_lib.impl("traced", tracing_kernel(key), key)
    torch_lib.impl("traced", library.fallthrough_kernel, "AutogradCPU")
    regs = (("CPU", False), ("Meta", False), ("Autograd", False), ("AutogradCPU", True))
    qualname = f"{NAMESPACE}::traced"
    entry = mirror(qualname, fallbacks, regs)
    record_key = {id(entry.kernels_for(DispatchKey[k])[0]): k for k, _ in regs[:3]}
    assert entry.non_fallthrough_mask is None  # CPU's mask differs from the others
    for device in ("cpu", "meta"):
        seen.clear()
        torch.ops.refimpl_test_table.traced(torch.ones(2, device=device))
        ran = simulate(entry, keys.key_set_for_device(device))
        # Autograd's kernel does not redispatch, so torch's trace ends where ours does.
        assert [record_key[id(ran)]] == seen, device


def test_uniform_fallthrough_mask() -> None:
    registry = BackendFallbacks()
    registry.register(DispatchKey.ADInplaceOrView, KernelRecord.fallthrough("adinplace"))
    entry = OperatorEntry("ns::op", registry)
    assert (
        entry.non_fallthrough_mask
        == keys.FULL_RAW & ~DispatchKeySet(DispatchKey.ADInplaceOrView).raw
    )
    entry.register_kernel(DispatchKey.ADInplaceOrView, KernelRecord(kernel, "kernel"))
    assert entry.non_fallthrough_mask == keys.FULL_RAW
