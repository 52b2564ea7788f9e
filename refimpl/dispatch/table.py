"""The kernels registered per dispatch key for one operator, and its computed dispatch table.

Torch: c10::impl::OperatorEntry (aten/src/ATen/core/dispatch/OperatorEntry.cpp) and the
backend fallbacks of c10::Dispatcher (Dispatcher::registerFallback).

An operator keeps, per key (runtime or alias), a stack of registrations: the newest one is
active, and removing it (a `Library` being destroyed) re-activates the previous one. From
those and the global backend fallbacks it computes one table entry per runtime slot (see
Note [Dispatch table slots] in _base/keys.py) by the rules of Note [Alias key precedence],
plus the mask of keys whose entry is a fallthrough. Both are recomputed whenever a
registration or a fallback changes, never per call: the dispatcher only indexes
`entry.dispatch_table` with `highest_priority_index(key set)`.
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from refimpl._base.keys import (
    AFTER_AUTOGRAD,
    AUTOGRAD_OTHER_BACKENDS,
    BACKEND_MASK,
    FULL_RAW,
    NUM_BACKENDS,
    NUM_SLOTS,
    REQUIRES_GRAD_BIT,
    SLOT_INDEX,
    SLOT_KEYS,
    BackendComponent,
    DispatchKey,
    DispatchKeySet,
    backend_key_set_from_autograd,
    highest_priority_index,
    is_alias_key,
    is_included_in_alias,
    key_raw,
    to_backend_component,
)

Kernel = Callable[..., Any]

AFTER_AUTOGRAD_RAW: Final = AFTER_AUTOGRAD.raw


def fallthrough_kernel(*args: object, **kwargs: object) -> NoReturn:
    """The kernel of a fallthrough registration; the dispatcher skips its key instead.

    Torch: c10::fallthrough_kernel (aten/src/ATen/core/boxing/KernelFunction.cpp).
    """
    raise RuntimeError(
        "fallthrough_kernel was executed but it should have been short-circuited by the "
        "dispatcher. This could occur if you registered a fallthrough kernel as a override for "
        "a specific operator (as opposed to a backend fallback); this is NOT currently "
        "supported, and we do not intend to add support for it in the near future.  If you do "
        "find yourself in need of this, let us know in the bug tracker."
    )


@dataclass(frozen=True, slots=True, eq=False)
class KernelRecord:
    """One kernel registration: the callable and how to call it.

    Torch: c10::impl::AnnotatedKernel. `debug` is what dumps print ("registered at
    file.py:12"). A fallthrough means "skip this key" and is never called. A kernel with
    `with_keyset` receives the call's DispatchKeySet first, so it can redispatch.
    Registrations compare by identity, so removing one removes exactly that registration.
    """

    kernel: Kernel
    debug: str
    is_fallthrough: bool = False
    with_keyset: bool = False
    boxed: bool = False
    """A backend fallback: called with the operator first, `fn(op, *args, **kwargs)`."""
    passes_without_grad: bool = False
    """An autograd kernel that only redispatches below autograd when no tensor argument
    requires grad: the dispatcher skips it for such calls (Note [Autograd skip])."""
    fuse_below: Callable[[Kernel], Kernel] | None = None
    """For a with_keyset kernel that always redispatches to the key set below `below_mask`
    and then does its own work (the ADInplaceOrView kernels): given the kernel that key set
    resolves to, the same kernel calling it directly. Note [Fused redispatch]: the dispatch
    cache keeps the fused kernel, so a cached call skips the redispatch's lookup."""
    below_mask: int = 0

    @classmethod
    def fallthrough(cls, debug: str) -> KernelRecord:
        """A fallthrough registration. Torch: CppFunction::makeFallthrough."""
        return cls(fallthrough_kernel, debug, is_fallthrough=True)


def dispatches_nothing(fn: Kernel) -> Kernel:
    """Declare that a kernel calls no operator through the dispatcher (it computes with the
    backend and the core alone). Note [Fused redispatch]: an ADInplaceOrView kernel fused with
    such a kernel need not exclude keys for nested calls, there being none;
    conformance/test_trace.py checks every declared kernel under the dispatch observer."""
    fn.__refimpl_dispatches_nothing__ = True  # type: ignore[attr-defined]
    return fn


def is_dispatch_free(fn: Kernel) -> bool:
    return getattr(fn, "__refimpl_dispatches_nothing__", False) is True


Specializer = Callable[[tuple[Any, ...], dict[str, Any]], Callable[..., Any] | None]
"""`specialize(args, kwargs)`, asked after `kernel(*args, **kwargs)` returned: a function
`fn` with `fn(*other_args)` equal to `kernel(*other_args, **kwargs)` for every `other_args`
whose operand keys (core.tensor.operand_key) and default dtype equal these; or None."""


def specializable(fn: Kernel, specialize: Specializer | None) -> Kernel:
    """Declare that `fn`'s answer for a call is fixed by its arguments' metadata, and how to
    get it (Note [Specialized calls] in dispatch/overloads.py); None withdraws it (then call
    the entries it is registered to `refresh_specializable`)."""
    fn.__refimpl_specialize__ = specialize  # type: ignore[attr-defined]
    return fn


def specializer_of(fn: Kernel) -> Specializer | None:
    found: Specializer | None = getattr(fn, "__refimpl_specialize__", None)
    return found


class DispatchObserver:
    """Who watches kernels run (refimpl.utils.trace). Note [Dispatch observer]: while `wrap` is set,
    the kernel a key set resolves to is replaced by `wrap(entry, record, keyset)`, a record
    that reports the call and runs the kernel; the caches are cleared when it is set and
    unset, so the resolution happens again (and after, the plain kernels are cached). The hot
    path never asks: a program that is not traced pays nothing."""

    wrap: Callable[[OperatorEntry, KernelRecord, int], KernelRecord] | None = None


OBSERVER: Final = DispatchObserver()


class FillKind(enum.Enum):
    """How a table slot got its kernel; the value is the tag torch's dump tables print.

    Torch: the second member of computeDispatchTableEntryWithDebug's result.
    """

    KERNEL = "kernel"  # registered directly to the slot's key
    DEFAULT_BACKEND = "default backend kernel"  # CompositeExplicitAutograd[NonFunctional]
    NESTED = "nested kernel"  # CompositeImplicitAutogradNestedTensor
    MATH = "math kernel"  # CompositeImplicitAutograd
    AMBIGUOUS_AUTOGRAD_OTHER = "ambiguous autogradother"
    AUTOGRAD = "autograd kernel"  # the Autograd alias
    BATCHED = "batched kernel"  # FuncTorchBatchedDecomposition
    BACKEND_FALLBACK = "backend fallback"  # the global fallback of the slot's key
    MISSING = "missing"  # nothing: calling raises NotImplementedError


@dataclass(frozen=True, slots=True)
class AliasRule:
    """When a kernel registered to an alias key fills a runtime slot.

    `fills_undefined`: whether it also fills the Undefined slot (calls without tensors).
    `yields_to_backend`: skipped if the op has a kernel for the slot's backend (for AutogradCPU,
    a CPU kernel) or a CompositeExplicitAutograd kernel.
    """

    alias: DispatchKey
    kind: FillKind
    fills_undefined: bool
    yields_to_backend: bool


# Note [Alias key precedence]
# For each runtime slot the first matching rule wins: a kernel registered to the slot's own
# key, then the alias rules below in order, then the global backend fallback of the key, else
# the slot is missing. Which runtime keys an alias covers is ALIAS_RUNTIME_KEY_SETS in
# _base/keys.py. CompositeImplicitAutograd yields to a backend kernel: an op with a CPU kernel
# and a CIA kernel does not run the CIA decomposition at AutogradCPU (it gets the autograd
# fallback instead), because decomposing there would bypass the CPU kernel. On AutogradOther,
# where many backends share one autograd key, a CIA kernel plus a kernel for any of those
# backends is ambiguous and the slot raises when called.
# torch: computeDispatchTableEntryWithDebug in aten/src/ATen/core/dispatch/OperatorEntry.cpp.
ALIAS_RULES: Final = (
    AliasRule(
        DispatchKey.CompositeExplicitAutogradNonFunctional,
        FillKind.DEFAULT_BACKEND,
        fills_undefined=True,
        yields_to_backend=False,
    ),
    AliasRule(
        DispatchKey.CompositeExplicitAutograd,
        FillKind.DEFAULT_BACKEND,
        fills_undefined=True,
        yields_to_backend=False,
    ),
    AliasRule(
        DispatchKey.CompositeImplicitAutogradNestedTensor,
        FillKind.NESTED,
        fills_undefined=False,
        yields_to_backend=False,
    ),
    AliasRule(
        DispatchKey.CompositeImplicitAutograd,
        FillKind.MATH,
        fills_undefined=True,
        yields_to_backend=True,
    ),
    AliasRule(
        DispatchKey.Autograd, FillKind.AUTOGRAD, fills_undefined=False, yields_to_backend=False
    ),
    AliasRule(
        DispatchKey.FuncTorchBatchedDecomposition,
        FillKind.BATCHED,
        fills_undefined=False,
        yields_to_backend=False,
    ),
)


def _covers(rule: AliasRule, key: DispatchKey) -> bool:
    if key == DispatchKey.Undefined:
        return rule.fills_undefined
    return is_included_in_alias(key, rule.alias)


# Decided once: the slots each alias rule may fill, and per slot the raw set of backend keys
# whose kernel makes a yielding rule step aside (torch: getBackendKeySetFromAutograd).
_RULE_SLOTS: Final = {
    rule: frozenset(index for index, key in enumerate(SLOT_KEYS) if _covers(rule, key))
    for rule in ALIAS_RULES
}
_SLOT_BACKEND_KEYS: Final = tuple(backend_key_set_from_autograd(key).raw for key in SLOT_KEYS)


def _backend_position(key: DispatchKey) -> int:
    backend = to_backend_component(key)
    return -1 if backend == BackendComponent.InvalidBit else backend - 1


# Per slot, for the fallthrough masks: the functionality bit a fallthrough clears, and the
# 0-based backend whose mask it clears it from (-1: every backend's mask).
_SLOT_FUNCTIONALITY_BIT: Final = tuple(key_raw(key) & ~BACKEND_MASK for key in SLOT_KEYS)
_SLOT_BACKEND_POSITION: Final = tuple(_backend_position(key) for key in SLOT_KEYS)
_UNDEFINED_SLOT: Final = SLOT_INDEX[DispatchKey.Undefined]
_AUTOGRAD_OTHER_SLOT: Final = SLOT_INDEX[DispatchKey.AutogradOther]


def _has_kernel_for_any(registered_raws: tuple[int, ...], key_set_raw: int) -> bool:
    # torch: OperatorEntry::hasKernelForAnyDispatchKey, i.e. key_set.has(k) for a registered k.
    return key_set_raw != 0 and any(raw & key_set_raw == raw for raw in registered_raws)


@dataclass(frozen=True, slots=True)
class _Registrations:
    """What the slot rules read from an operator's registrations, gathered once per update."""

    kernels: dict[DispatchKey, list[KernelRecord]]
    # The alias rules with a registration, in precedence order, with their active kernel.
    active_rules: tuple[tuple[AliasRule, KernelRecord], ...]
    # The bits of each registered non-alias key (torch: Note [No Alias Keys in DispatchKeySet]).
    runtime_raws: tuple[int, ...]
    has_composite_explicit: bool
    has_autograd_other_backend: bool
    # The slots a registration may fill; every other slot gets its backend fallback.
    candidate_slots: frozenset[int]

    @classmethod
    def of(cls, kernels: dict[DispatchKey, list[KernelRecord]]) -> _Registrations:
        runtime_raws = tuple(key_raw(key) for key in kernels if not is_alias_key(key))
        return cls(
            kernels=kernels,
            active_rules=tuple(
                (rule, kernels[rule.alias][0]) for rule in ALIAS_RULES if rule.alias in kernels
            ),
            runtime_raws=runtime_raws,
            has_composite_explicit=DispatchKey.CompositeExplicitAutograd in kernels,
            has_autograd_other_backend=_has_kernel_for_any(
                runtime_raws, AUTOGRAD_OTHER_BACKENDS.raw
            ),
            candidate_slots=frozenset(
                SLOT_INDEX[key] for key in kernels if key in SLOT_INDEX
            ).union(*(_RULE_SLOTS[rule] for rule in ALIAS_RULES if rule.alias in kernels)),
        )


class BackendFallbacks:
    """The global fallback kernel of each runtime key, used by every operator without a kernel
    of its own for that key (may be a fallthrough).

    Torch: Dispatcher::backendFallbackKernels_, registerFallback and deregisterFallback.
    Changing a fallback refreshes that slot in every live OperatorEntry using this registry.
    """

    __slots__ = ("_entries", "_kinds", "_records")

    def __init__(self) -> None:
        self._records: list[KernelRecord | None] = [None] * NUM_SLOTS
        # What a slot with no registration of its own shows: BACKEND_FALLBACK or MISSING.
        self._kinds: list[FillKind] = [FillKind.MISSING] * NUM_SLOTS
        self._entries: weakref.WeakSet[OperatorEntry] = weakref.WeakSet()

    def _slot(self, key: DispatchKey) -> int:
        index = SLOT_INDEX.get(key)
        if index is None or index == _UNDEFINED_SLOT:
            # Differs: torch maps a non-runtime key to some slot (an alias key lands on Meta's);
            # refimpl refuses.
            raise RuntimeError(
                f"Backend fallbacks are registered per runtime dispatch key, not {key.name}"
            )
        return index

    def register(self, key: DispatchKey, record: KernelRecord) -> None:
        """Install the fallback for `key`; a key has at most one.

        Torch: Dispatcher::registerFallback (Library("_", "IMPL").fallback(fn, key)).
        """
        index = self._slot(key)
        previous = self._records[index]
        if previous is not None:
            raise RuntimeError(
                "Tried to register multiple backend fallbacks for the same dispatch key "
                f"{key.name}; previous registration {previous.debug}, "
                f"new registration {record.debug}"
            )
        self._records[index] = record
        self._kinds[index] = FillKind.BACKEND_FALLBACK
        self._refresh(index)

    def deregister(self, key: DispatchKey) -> None:
        """Remove the fallback for `key`. Torch: Dispatcher::deregisterFallback."""
        index = self._slot(key)
        self._records[index] = None
        self._kinds[index] = FillKind.MISSING
        self._refresh(index)

    def get(self, key: DispatchKey) -> KernelRecord | None:
        """The fallback for `key`, if any. Torch: torch._C._dispatch_has_backend_fallback."""
        index = SLOT_INDEX.get(key)
        return None if index is None else self._records[index]

    def at_slot(self, index: int) -> KernelRecord | None:
        """The fallback of the key at table slot `index`."""
        return self._records[index]

    def fill(self, table: list[KernelRecord | None], kinds: list[FillKind]) -> None:
        """Set every slot of a table to its fallback (or to missing)."""
        table[:] = self._records
        kinds[:] = self._kinds

    def track(self, entry: OperatorEntry) -> None:
        """Keep `entry`'s table in step with this registry for as long as the entry lives."""
        self._entries.add(entry)

    def _refresh(self, index: int) -> None:
        for entry in list(self._entries):
            entry.refresh_slot(index)


# The process-wide fallbacks (torch: the Dispatcher singleton's).
BACKEND_FALLBACKS: Final = BackendFallbacks()


class OperatorEntry:
    """One operator's registrations and its computed dispatch table.

    Torch: c10::impl::OperatorEntry. `name` is the qualified name with overload
    ("aten::add.Tensor"); kernels are opaque callables. The dispatcher reads:

    - `dispatch_table[slot]`: the KernelRecord for each slot of Note [Dispatch table slots],
      None where missing (raise `missing_kernel_error(SLOT_KEYS[slot])`);
    - `non_fallthrough_mask`: raw keys whose entry is not a fallthrough (torch:
      DispatchKeyExtractor::nonFallthroughKeys_), or None when it depends on the backend
      because a fallthrough was registered for some backends of a per-backend functionality
      only; then use `non_fallthrough_masks[backend_index(tensor key set)]`
      (torch: nonFallthroughKeysPerBackend_).
    """

    __slots__ = (
        "__weakref__",
        "_ambiguous",
        "_fallbacks",
        "_kernels",
        "alias_analysis",
        "direct_records",
        "dispatch_table",
        "keyset_records",
        "name",
        "non_fallthrough_mask",
        "non_fallthrough_masks",
        "schema",
        "schema_debug",
        "specializable",
        "specialized_calls",
        "table_kinds",
    )

    def __init__(self, name: str, fallbacks: BackendFallbacks = BACKEND_FALLBACKS) -> None:
        self.name = name
        self.schema: str | None = None
        self.schema_debug = ""
        self.alias_analysis = "FROM_SCHEMA"
        self.dispatch_table: list[KernelRecord | None] = [None] * NUM_SLOTS
        self.table_kinds: list[FillKind] = [FillKind.MISSING] * NUM_SLOTS
        self.non_fallthrough_mask: int | None = FULL_RAW
        self.non_fallthrough_masks: tuple[int, ...] = (FULL_RAW,) * NUM_BACKENDS
        # The dispatcher's answer per key set (after TLS), for uniform fallthrough masks only:
        # plain kernels, and kernels taking the key set with the set they take; emptied
        # whenever the table changes. See Note [Dispatch cache] in dispatch/overloads.py.
        self.direct_records: dict[int, KernelRecord] = {}
        self.keyset_records: dict[int, tuple[KernelRecord, DispatchKeySet]] = {}
        # Note [Specialized calls] (dispatch/overloads.py): whether a kernel registered here
        # can specialize (a stale True costs a lookup per call), and per call key what the
        # kernel gave, or the general call where it gave nothing; emptied with the dispatch
        # cache.
        self.specializable = False
        self.specialized_calls: dict[tuple[object, ...], Callable[..., Any]] = {}
        # Per key, newest registration first. torch: OperatorEntry::kernels_.
        self._kernels: dict[DispatchKey, list[KernelRecord]] = {}
        self._fallbacks = fallbacks
        # torch: ambiguousAutogradOtherKernel in OperatorEntry.cpp.
        self._ambiguous = KernelRecord(
            self._raise_ambiguous_autograd_other, "ambiguous_autogradother"
        )
        fallbacks.track(self)
        self._recompute()

    # --- registration ---------------------------------------------------------------------

    def set_schema(self, schema: str, debug: str, alias_analysis: str = "FROM_SCHEMA") -> None:
        """Record the operator's schema text for dumps. Torch: OperatorEntry::registerSchema."""
        self.schema = schema
        self.schema_debug = debug
        self.alias_analysis = alias_analysis

    def register_kernel(self, key: DispatchKey, record: KernelRecord) -> None:
        """Register `record` for `key` (a runtime or alias key); it becomes the active one.

        Torch: OperatorEntry::registerKernel. Undefined stands for "no key given", which torch
        registers to CompositeImplicitAutograd.
        """
        if key == DispatchKey.Undefined:
            key = DispatchKey.CompositeImplicitAutograd
        self._kernels.setdefault(key, []).insert(0, record)
        if specializer_of(record.kernel) is not None:
            self.specializable = True
        self._recompute()

    def deregister_kernel(self, key: DispatchKey, record: KernelRecord) -> None:
        """Remove that registration; the previous one for `key`, if any, is active again.

        Torch: OperatorEntry::deregisterKernel_ (run when a Library is destroyed).
        """
        if key == DispatchKey.Undefined:
            key = DispatchKey.CompositeImplicitAutograd
        records = self._kernels.get(key, [])
        for position, registered in enumerate(records):
            if registered is record:
                del records[position]
                break
        else:
            raise ValueError(f"{record.debug} is not registered to {key.name} for {self.name}")
        if not records:
            del self._kernels[key]
        self._recompute()

    def kernels_for(self, key: DispatchKey) -> tuple[KernelRecord, ...]:
        """The registrations for `key`, newest (active) first."""
        return tuple(self._kernels.get(key, ()))

    def has_kernel_for_dispatch_key(self, key: DispatchKey) -> bool:
        """Whether a kernel is registered directly to `key` (runtime or alias).

        Torch: OperatorEntry::hasKernelForDispatchKey; torch._C._dispatch_has_kernel_for_dispatch_key.
        """
        return key in self._kernels

    def has_computed_kernel_for_dispatch_key(self, key: DispatchKey) -> bool:
        """Whether the table has an entry for runtime `key`.

        Torch: torch._C._dispatch_has_computed_kernel_for_dispatch_key.
        """
        return self.dispatch_table[SLOT_INDEX[key]] is not None

    def computed_kernel(self, key: DispatchKey) -> KernelRecord | None:
        """The table entry for runtime `key`, None where missing.

        Torch: OperatorEntry::lookup for that key.
        """
        return self.dispatch_table[SLOT_INDEX[key]]

    # --- the computed table -----------------------------------------------------------------

    def _compute_slot(
        self, index: int, registrations: _Registrations
    ) -> tuple[KernelRecord | None, FillKind]:
        # torch: computeDispatchTableEntryWithDebug. See Note [Alias key precedence].
        direct = registrations.kernels.get(SLOT_KEYS[index])
        if direct:
            return direct[0], FillKind.KERNEL
        for rule, record in registrations.active_rules:
            if index not in _RULE_SLOTS[rule]:
                continue
            if rule.yields_to_backend:
                if index == _AUTOGRAD_OTHER_SLOT and registrations.has_autograd_other_backend:
                    return self._ambiguous, FillKind.AMBIGUOUS_AUTOGRAD_OTHER
                has_backend_kernel = registrations.has_composite_explicit or _has_kernel_for_any(
                    registrations.runtime_raws, _SLOT_BACKEND_KEYS[index]
                )
                if has_backend_kernel:
                    continue
            return record, rule.kind
        fallback = self._fallbacks.at_slot(index)
        if fallback is not None:
            return fallback, FillKind.BACKEND_FALLBACK
        return None, FillKind.MISSING

    def _recompute(self) -> None:
        # Differs: torch refreshes only the slots it thinks a registration affects, and misses
        # some (a SparseCPU kernel registered after a CIA kernel leaves AutogradOther on the
        # math kernel, though torch's own dump reports "ambiguous autogradother"). refimpl
        # recomputes every slot, so the table always equals what the dump shows.
        registrations = _Registrations.of(self._kernels)
        table = self.dispatch_table
        kinds = self.table_kinds
        self._fallbacks.fill(table, kinds)
        for index in registrations.candidate_slots:
            table[index], kinds[index] = self._compute_slot(index, registrations)
        self._update_fallthrough_masks()

    def refresh_slot(self, index: int) -> None:
        """Recompute one slot after its backend fallback changed.

        Torch: OperatorEntry::updateFallback.
        """
        registrations = _Registrations.of(self._kernels)
        self.dispatch_table[index], self.table_kinds[index] = self._compute_slot(
            index, registrations
        )
        self._update_fallthrough_masks()

    def _update_fallthrough_masks(self) -> None:
        # torch: DispatchKeyExtractor::setOperatorHasFallthroughForKey. A fallthrough entry
        # clears its functionality bit: from one backend's mask for a per-backend key
        # (AutogradCPU), from every mask otherwise (ADInplaceOrView). Backend bits stay set.
        masks = [FULL_RAW] * NUM_BACKENDS
        for index, record in enumerate(self.dispatch_table):
            if record is None or not record.is_fallthrough:
                continue
            position = _SLOT_BACKEND_POSITION[index]
            keep = ~_SLOT_FUNCTIONALITY_BIT[index]
            if position < 0:
                masks = [mask & keep for mask in masks]
            else:
                masks[position] &= keep
        self.non_fallthrough_masks = tuple(masks)
        uniform = all(mask == masks[0] for mask in masks)
        self.non_fallthrough_mask = masks[0] if uniform else None
        # Every change of the table ends here (_recompute, refresh_slot).
        self.clear_caches()

    def refresh_specializable(self) -> None:
        """Recompute whether a kernel registered here can specialize (after a kernel's
        specializer was withdrawn), and forget what was specialized."""
        self.specializable = any(
            specializer_of(record.kernel) is not None
            for records in self._kernels.values()
            for record in records
        )
        self.clear_caches()

    def clear_caches(self) -> None:
        """Forget the resolved kernels and the specialized calls (Note [Dispatch cache])."""
        self.direct_records.clear()
        self.keyset_records.clear()
        self.specialized_calls.clear()

    def resolve(self, raw: int) -> tuple[KernelRecord | None, int]:
        """The kernel for a call whose key set after TLS is `raw`, and the key set (without
        fallthrough keys) it runs with.

        Torch: Dispatcher::call's lookup. Note [Autograd skip]: an autograd kernel that does
        nothing but redispatch when no tensor argument requires grad (refimpl's derivative
        kernels and autograd fallback) is skipped for a call whose key set lacks the
        requires-grad bit (Note [Requires-grad bit] in _base/keys.py): the kernel below it
        runs, with the key set it would have redispatched with.
        """
        mask = self.non_fallthrough_mask
        dispatched = raw & (self.non_fallthrough_mask_for(raw) if mask is None else mask)
        record = self.dispatch_table[highest_priority_index(dispatched)]
        if record is not None and record.passes_without_grad and not raw & REQUIRES_GRAD_BIT:
            dispatched &= AFTER_AUTOGRAD_RAW
            record = self.dispatch_table[highest_priority_index(dispatched)]
        if OBSERVER.wrap is not None and record is not None:
            record = OBSERVER.wrap(self, record, dispatched)
        return record, dispatched

    def non_fallthrough_mask_for(self, tensor_key_set_raw: int) -> int:
        """The fallthrough mask for a call whose tensors carry `tensor_key_set_raw`.

        Torch: DispatchKeyExtractor::getDispatchKeySetBoxed (the per-backend mask is picked
        by the highest backend bit of the tensors' keys, before TLS is applied).
        """
        if self.non_fallthrough_mask is not None:
            return self.non_fallthrough_mask
        return self.non_fallthrough_masks[((tensor_key_set_raw & BACKEND_MASK) >> 1).bit_length()]

    # --- dumps and errors (torch's formats) ------------------------------------------------

    def dump_state(self) -> str:
        """The registrations, per key by value, newest first.

        Torch: OperatorEntry::dumpState; torch._C._dispatch_dump(name). refimpl kernels are
        Python callables, so they print as torch prints Python kernels: ":: (none) [ boxed ]".
        """
        lines = [f"name: {self.name}"]
        if self.schema is None:
            lines.append("schema: (none)")
        else:
            lines.append(f"schema: {self.schema}")
            lines.append(f"debug: {self.schema_debug}")
            lines.append(f"alias analysis kind: {self.alias_analysis}")
        for key in sorted(self._kernels):
            label = key.name + ("[alias]" if is_alias_key(key) else "")
            for position, record in enumerate(self._kernels[key]):
                inactive = " (inactive)" if position > 0 else ""
                fallthrough = "fallthrough " if record.is_fallthrough else ""
                lines.append(f"{label}{inactive}: {record.debug} :: (none) [ {fallthrough}boxed ]")
        return "\n".join(lines) + "\n"

    def dump_computed_table(self) -> str:
        """Each non-missing slot: key, kernel debug string and how it was filled.

        Torch: OperatorEntry::dumpComputedTable; torch._C._dispatch_dump_table(name).
        """
        lines = []
        for index, record in enumerate(self.dispatch_table):
            if record is None:
                continue
            fallthrough = "fallthrough " if record.is_fallthrough else ""
            kind = self.table_kinds[index].value
            lines.append(f"{SLOT_KEYS[index].name}: {fallthrough}{record.debug} [{kind}]\n")
        return "".join(lines)

    def list_all_dispatch_keys(self) -> str:
        """The runtime keys (not Undefined) that have an entry, as torch lists them in errors.

        Torch: OperatorEntry::listAllDispatchKeys.
        """
        names = [
            SLOT_KEYS[index].name
            for index, record in enumerate(self.dispatch_table)
            if record is not None and index != _UNDEFINED_SLOT
        ]
        return "[" + ", ".join(names) + "]"

    def missing_kernel_error(self, key: DispatchKey) -> NotImplementedError:
        """The error for a call that selected runtime `key` whose slot is missing.

        Torch: OperatorEntry::reportError.
        """
        if key == DispatchKey.Undefined:
            return NotImplementedError(
                "There were no tensor arguments to this function (e.g., you passed an empty "
                "list of Tensors), but no fallback function is registered for schema "
                f"{self.name}.  This usually means that this function requires a non-empty "
                "list of Tensors, or that you (the operator writer) forgot to register a "
                f"fallback function.  Available functions are {self.list_all_dispatch_keys()}."
                f"\n\n{self.dump_computed_table()}"
            )
        return NotImplementedError(
            f"Could not run '{self.name}' with arguments from the '{key.name}' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted "
            "during the selective/custom build process (if using custom build). If you are a "
            "Facebook employee using PyTorch on mobile, please visit "
            "https://fburl.com/ptmfixes for possible resolutions. "
            f"'{self.name}' is only available for these backends: "
            f"{self.list_all_dispatch_keys()}.\n\n{self.dump_computed_table()}"
            + self._not_yet_note(key)
        )

    def _not_yet_note(self, key: DispatchKey) -> str:
        # An aten or prims operator that torch implements for this key but refimpl does not
        # yet: torch's text, then a line that says so (custom operators keep torch's text).
        if not self.name.startswith(("aten::", "prims::")):
            return ""
        return (
            f"\nrefimpl: refimpl does not implement {self.name} for the '{key.name}' "
            "dispatch key yet."
        )

    def ambiguous_autograd_other_error(self) -> RuntimeError:
        """The error raised by an ambiguous AutogradOther slot (Note [Alias key precedence]).

        Torch: ambiguous_autogradother_kernel (aten/src/ATen/core/boxing/KernelFunction.cpp),
        an internal assert, so the text starts with the assert's location as torch prints it.
        """
        return RuntimeError(
            '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/core/boxing/'
            'KernelFunction.cpp":23, please report a bug to PyTorch. '
            f"{self.name} has kernels registered to both CompositeImplicitAutograd and a "
            "backend mapped to AutogradOther. This makes the backend kernel unreachable; the "
            "dispatcher will always prefer the CompositeImplicitAutograd lowering (see Note "
            "[Ambiguity in AutogradOther kernel]). If you want to override "
            "CompositeImplicitAutograd, please open an issue to request a dedicated Autograd "
            "dispatch key for the backend.\nIf you only want to run inference instead of "
            "training, in C++, add `c10::InferenceMode mode;` before model.forward(); in "
            "Python, use `torch.inference_mode()` as a context manager (see "
            "https://pytorch.org/docs/stable/generated/torch.autograd.grad_mode.inference_mode"
            f".html).\nCanonical state\n~~~~~~~~~~~\n{self.dump_state()}\n\n"
        )

    def _raise_ambiguous_autograd_other(self, *args: object, **kwargs: object) -> NoReturn:
        raise self.ambiguous_autograd_other_error()
