"""Which registered kernel runs: the same registrations on a custom operator in torch and refimpl.

Each scenario defines `<ns>::foo(Tensor x) -> Tensor` with `Library(ns, "DEF")` in each library
(a fresh namespace per scenario and library, destroyed at the end) and registers kernels that
append their label to a log. The op then runs on a CPU tensor, a meta tensor and a
requires_grad CPU tensor; the label sequences (or exception type and first message line) must
be the same.

Kernel bodies return their input and call no tensor ops: in torch a CompositeImplicitAutograd
kernel runs at the Autograd key, and any op it called would re-enter the dispatcher and add
its own kernels to what is compared.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import torch

import refimpl
import refimpl.library
from refimpl._base import keys as refimpl_keys
from refimpl.dispatch import tls as refimpl_tls

_COUNTER = itertools.count()


@dataclass(slots=True)
class Side:
    """One library under test, with the few calls that differ in spelling."""

    name: str
    library: Any  # torch.library or refimpl.library
    ops: Any
    ones: Callable[..., Any]
    full_after: Callable[[str], Any]
    autocast_pu1: Callable[[], Any]  # context manager that lets AutocastPrivateUse1 run


@contextmanager
def _torch_autocast_pu1() -> Iterator[None]:
    key = torch._C.DispatchKey.AutocastPrivateUse1
    torch._C._dispatch_tls_set_dispatch_key_excluded(key, False)
    try:
        with torch._C._IncludeDispatchKeyGuard(key):
            yield
    finally:
        torch._C._dispatch_tls_set_dispatch_key_excluded(key, True)


@contextmanager
def _refimpl_autocast_pu1() -> Iterator[None]:
    key = refimpl_keys.DispatchKey.AutocastPrivateUse1
    refimpl_tls.tls_set_dispatch_key_excluded(key, False)
    try:
        with refimpl_tls.IncludeDispatchKeyGuard(key):
            yield
    finally:
        refimpl_tls.tls_set_dispatch_key_excluded(key, True)


TORCH = Side(
    "torch",
    torch.library,
    torch.ops,
    torch.ones,
    lambda key: torch._C._dispatch_keyset_full_after(getattr(torch._C.DispatchKey, key)),
    _torch_autocast_pu1,
)
REFIMPL = Side(
    "refimpl",
    refimpl.library,
    refimpl.ops,
    refimpl.ones,
    lambda key: refimpl_keys.full_after(getattr(refimpl_keys.DispatchKey, key)),
    _refimpl_autocast_pu1,
)

Setup = Callable[[Side, Any, str, list[str]], None]


def _kernel(log: list[str], label: str) -> Callable[[Any], Any]:
    def kernel(x: Any) -> Any:
        log.append(label)
        return x

    return kernel


# --- scenarios: (side, lib, ns, log) -> registrations --------------------------------------------


def cia_only(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CIA"))


def cea_and_cpu(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CEA"), "CompositeExplicitAutograd")
    lib.impl("foo", _kernel(log, "CPU"), "CPU")


def autograd_and_cpu(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "Autograd"), "Autograd")
    lib.impl("foo", _kernel(log, "CPU"), "CPU")


def fallthrough_autograd_cpu(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", side.library.fallthrough_kernel, "AutogradCPU")
    lib.impl("foo", _kernel(log, "CPU"), "CPU")


def meta_only(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "Meta"), "Meta")


def cpu_only(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CPU"), "CPU")


def cia_and_cpu(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CIA"), "CompositeImplicitAutograd")
    lib.impl("foo", _kernel(log, "CPU"), "CPU")


def cea_only(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CEA"), "CompositeExplicitAutograd")


def ceanf_and_cea(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CEANF"), "CompositeExplicitAutogradNonFunctional")
    lib.impl("foo", _kernel(log, "CEA"), "CompositeExplicitAutograd")


def cia_and_autograd(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CIA"), "CompositeImplicitAutograd")
    lib.impl("foo", _kernel(log, "Autograd"), "Autograd")


def autograd_cpu_and_meta(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "AutogradCPU"), "AutogradCPU")
    lib.impl("foo", _kernel(log, "CPU"), "CPU")
    lib.impl("foo", _kernel(log, "Meta"), "Meta")


def redispatch_below_autograd(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    op = getattr(side.ops, ns).foo.default

    def autograd(keyset: Any, x: Any) -> Any:
        log.append("Autograd")
        return op.redispatch(keyset & side.full_after("AutogradCPU"), x)

    lib.impl("foo", autograd, "Autograd", with_keyset=True)
    lib.impl("foo", _kernel(log, "CPU"), "CPU")
    lib.impl("foo", _kernel(log, "Meta"), "Meta")


def redispatch_from_cpu_to_nothing(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    op = getattr(side.ops, ns).foo.default

    def cpu(keyset: Any, x: Any) -> Any:
        log.append("CPU")
        return op.redispatch(keyset & side.full_after("CPU"), x)

    lib.impl("foo", cpu, "CPU", with_keyset=True)


def stacked_cpu(side: Side, lib: Any, ns: str, log: list[str]) -> None:
    lib.impl("foo", _kernel(log, "CPU1"), "CPU")
    lib.impl("foo", _kernel(log, "CPU2"), "CPU")


SCENARIOS: dict[str, Setup] = {
    "a_cia_only": cia_only,
    "b_cea_and_cpu": cea_and_cpu,
    "c_autograd_and_cpu": autograd_and_cpu,
    "d_fallthrough_autograd_cpu": fallthrough_autograd_cpu,
    "f_meta_only": meta_only,
    "g_cpu_only": cpu_only,
    "h_cia_and_cpu": cia_and_cpu,
    "i_cea_only": cea_only,
    "j_ceanf_and_cea": ceanf_and_cea,
    "k_cia_and_autograd": cia_and_autograd,
    "l_redispatch_below_autograd": redispatch_below_autograd,
    "l2_redispatch_past_cpu": redispatch_from_cpu_to_nothing,
    "autograd_cpu_and_meta": autograd_cpu_and_meta,
    "stacked_cpu": stacked_cpu,
}

INPUTS = ["cpu", "meta", "requires_grad"]


def _input(side: Side, which: str) -> Any:
    if which == "meta":
        return side.ones(2, device="meta")
    x = side.ones(2)
    return x.requires_grad_() if which == "requires_grad" else x


def _outcome(run: Callable[[], Any], log: list[str], ns: str) -> list[str]:
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        text = str(error).replace(ns, "<ns>")
        first = text.splitlines()[0] if text else ""
        # Differs: the lists of keys that have kernels ("only available for these backends",
        # "Available functions are") name keys refimpl does not model; compare up to them.
        first = first.partition(" is only available for these backends")[0]
        first = first.partition("Available functions are")[0]
        log.append(f"{type(error).__name__}: {first}")
    return log


def _run_scenario(side: Side, setup: Setup, which: str) -> list[str]:
    ns = f"refimpl_scn_{side.name}_{next(_COUNTER)}"
    lib = side.library.Library(ns, "DEF")
    log: list[str] = []
    try:
        lib.define("foo(Tensor x) -> Tensor")
        setup(side, lib, ns, log)
        x = _input(side, which)
        op = getattr(side.ops, ns).foo.default
        return _outcome(lambda: op(x), log, ns)
    finally:
        lib._destroy()


@pytest.mark.filterwarnings("ignore:Warning only once for all operators")
@pytest.mark.parametrize("which", INPUTS)
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name: str, which: str) -> None:
    setup = SCENARIOS[name]
    expected = _run_scenario(TORCH, setup, which)
    assert _run_scenario(REFIMPL, setup, which) == expected


# --- (e) a boxed fallback on a key tensors carry but TLS normally excludes ------------------------


def _run_fallback(side: Side, which: str) -> list[str]:
    ns = f"refimpl_scn_{side.name}_{next(_COUNTER)}"
    lib = side.library.Library(ns, "DEF")
    fallback_lib = side.library.Library("_", "IMPL")
    log: list[str] = []

    def fallback(op: Any, *args: Any, **kwargs: Any) -> Any:
        log.append(f"fallback {op.name().partition('::')[2]}")
        return args[0]

    try:
        lib.define("foo(Tensor x) -> Tensor")
        lib.impl("foo", _kernel(log, "CPU"), "CPU")
        lib.impl("foo", _kernel(log, "Meta"), "Meta")
        fallback_lib.fallback(fallback, "AutocastPrivateUse1")
        x = _input(side, which)
        op = getattr(side.ops, ns).foo.default
        with side.autocast_pu1():
            _outcome(lambda: op(x), log, ns)
        # Outside the block AutocastPrivateUse1 is excluded again: the fallback does not run.
        return _outcome(lambda: op(x), log, ns)
    finally:
        fallback_lib._destroy()
        lib._destroy()


@pytest.mark.parametrize("which", INPUTS)
def test_e_boxed_fallback(which: str) -> None:
    expected = _run_fallback(TORCH, which)
    assert _run_fallback(REFIMPL, which) == expected


# --- (m) custom_op with register_fake and register_kernel("cpu") -------------------------------


def _run_custom_op(side: Side, which: str) -> list[str]:
    ns = f"refimpl_scn_{side.name}_{next(_COUNTER)}"
    log: list[str] = []
    tensor_type = torch.Tensor if side is TORCH else refimpl.Tensor

    def body(x: Any) -> Any:
        log.append("custom_op body")
        return x.clone() if side is TORCH else x

    body.__annotations__ = {"x": tensor_type, "return": tensor_type}
    op = side.library.custom_op(f"{ns}::foo", mutates_args=())(body)

    @op.register_fake
    def _(x: Any) -> Any:
        log.append("fake")
        return x

    def cpu_kernel(x: Any) -> Any:
        log.append("cpu kernel")
        # Differs: torch's custom_op rejects a kernel output that aliases an input; refimpl
        # does not check that yet, and `clone` has no refimpl kernel yet.
        return x.clone() if side is TORCH else x

    op.register_kernel("cpu")(cpu_kernel)
    try:
        x = _input(side, which)
        return _outcome(lambda: op(x), log, ns)
    finally:
        if side is TORCH:
            torch._library.custom_ops.OPDEF_TO_LIB.pop(f"{ns}::foo")._destroy()
        else:
            op._lib._destroy()


@pytest.mark.parametrize("which", INPUTS)
def test_m_custom_op(which: str) -> None:
    expected = _run_custom_op(TORCH, which)
    assert _run_custom_op(REFIMPL, which) == expected


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) + 2 >= 12
