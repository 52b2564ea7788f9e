"""`defop`: one aten overload's block, its inline schema checked against torch's, and its kernels.

Torch: the `func:` line of native_functions.yaml with its `dispatch:` entries, and
TORCH_LIBRARY_IMPL(aten, Key, m) { m.impl(...) }. An op module writes each overload once:

    add = defop("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")

    @add.kernel(DispatchKey.CompositeExplicitAutograd)
    def add_kernel(self, other, *, alpha): ...

`defop` raises at import if the inline schema differs from torch 2.13's (spec/schemas.json),
and `kernel` refuses a CompositeImplicitAutograd registration for an op torch gives a real
kernel, and the reverse, so the dispatch behaviour cannot drift from torch's either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from refimpl._base.keys import DispatchKey
from refimpl._base.spec import SpecOverload, spec_overload
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import OpOverload, namespace
from refimpl.dispatch.table import KernelRecord, OperatorEntry
from refimpl.ops._derivative import derivative

KernelFn = TypeVar("KernelFn", bound=Callable[..., Any])

_ATEN: Final = namespace("aten")
_CIA: Final = DispatchKey.CompositeImplicitAutograd
# The keys a composite that also has a backend kernel in torch (silu_backward) registers it
# for: the backend kernel runs for those tensors, the composite for the rest.
_BACKEND_KEYS: Final = frozenset({DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta})


class OpBlock:
    """One aten overload as refimpl defines it: its OpOverload and its kernel registrations.

    Torch: an entry of native_functions.yaml. `op` is `refimpl.ops.aten.<op>.<overload>`.
    """

    __slots__ = ("entry", "op", "spec")

    def __init__(self, op: OpOverload, entry: OperatorEntry, spec: SpecOverload) -> None:
        self.op = op
        self.entry = entry
        self.spec = spec

    def kernel(self, key: DispatchKey) -> Callable[[KernelFn], KernelFn]:
        """Register the decorated function as this op's kernel for `key` (runtime or alias).

        Torch: m.impl(name, key, fn). The kernel is called with the bound arguments: every
        positional schema argument positionally, every keyword-only one by name.
        """
        is_cia = key == _CIA
        if is_cia != self.spec.cia and not (self.spec.cia_and_cpu and key in _BACKEND_KEYS):
            # torch: whether an op is CompositeImplicitAutograd decides what autograd and
            # modes see (pytorch-semantics.md §5.4), so refimpl keeps torch's choice.
            what = "a CompositeImplicitAutograd" if is_cia else f"a {key.name}"
            raise RuntimeError(
                f"refimpl: {self.op} registers {what} kernel, but torch 2.13 "
                f"{'does not decompose' if is_cia else 'decomposes'} this op"
            )

        def register(fn: KernelFn) -> KernelFn:
            debug = f"registered at {fn.__module__}:{fn.__code__.co_firstlineno} ({fn.__name__})"
            self.entry.register_kernel(key, KernelRecord(fn, debug))
            return fn

        return register

    def derivative(self, *inputs: str) -> Callable[[KernelFn], KernelFn]:
        """Declare the decorated function as the backward formula for `inputs`. Torch: a
        line of the op's derivatives.yaml entry. See ops/_derivative.py."""
        return derivative(self.op.name(), *inputs)

    def decomposition(self, fn: KernelFn) -> KernelFn:
        """Register `fn` as the CompositeImplicitAutograd kernel. Torch: CompositeImplicitAutograd."""
        return self.kernel(_CIA)(fn)

    def __repr__(self) -> str:
        return f"<OpBlock {self.op}>"


def _split_name(schema_text: str) -> tuple[str, str]:
    # "add.Tensor(Tensor self, ...)" -> ("add", "Tensor"); "view(Tensor(a) self, ...)" -> ("view", "").
    head = schema_text.partition("(")[0]
    name, _, overload = head.partition(".")
    return name, overload


def defop(schema_text: str) -> OpBlock:
    """The block for an aten overload, after checking its inline schema against torch's.

    Torch: a `func:` line of native_functions.yaml (namespace aten implied). Raises
    RuntimeError at import if the text is not exactly the spec's schema for that overload.
    """
    name, overload = _split_name(schema_text)
    spec = spec_overload(f"aten::{name}", overload)
    if spec is None:
        raise RuntimeError(
            f"refimpl: torch 2.13 has no overload aten::{name}.{overload or 'default'}"
        )
    expected = spec.schema.removeprefix("aten::")
    if schema_text != expected:
        raise RuntimeError(
            f"refimpl: the schema written for aten::{name} differs from torch's:\n"
            f"  written: {schema_text}\n  torch:   {expected}"
        )
    op: OpOverload = getattr(getattr(_ATEN, name), overload or "default")
    return OpBlock(op, DISPATCHER.entry(op.name()), spec)


def defop_spec(spec: SpecOverload) -> OpBlock:
    """The block for an overload found in the spec rather than written inline (the in-place
    and out= companions of a `pointwise` declaration, which are checked to pair with it)."""
    op: OpOverload = getattr(
        getattr(namespace(spec.name.partition("::")[0]), spec.name.partition("::")[2]),
        spec.overload or "default",
    )
    return OpBlock(op, DISPATCHER.entry(op.name()), spec)


def registered_overloads() -> list[str]:
    """Qualified names (`aten::add.Tensor`) of every overload with a kernel registered.

    Torch: torch._C._dispatch_get_all_op_names, restricted to ops with a registration.
    """
    found = []
    for qualified in DISPATCHER.names():
        entry = DISPATCHER.find(qualified)
        if entry is not None and any(entry.kernels_for(key) for key in _REGISTRATION_KEYS):
            found.append(qualified)
    return found


_REGISTRATION_KEYS: Final = (
    DispatchKey.CompositeExplicitAutograd,
    DispatchKey.CompositeExplicitAutogradNonFunctional,
    DispatchKey.CompositeImplicitAutograd,
    DispatchKey.CPU,
    DispatchKey.CUDA,
    DispatchKey.Meta,
)
