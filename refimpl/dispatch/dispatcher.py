"""The dispatcher: operators by name, the global fallbacks, and how one call finds its kernel.

Torch: c10::Dispatcher (aten/src/ATen/core/dispatch/Dispatcher.h). A call computes its key set
((tensor keys | TLS included) - TLS excluded, masked by the op's fallthroughs), takes the
kernel in the table slot of the highest-priority key, and calls it. Kernels registered with
`with_keyset` receive that key set so they can redispatch below their own key; backend
fallbacks (boxed kernels) receive the operator first. See pytorch-semantics.md §1.6.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from refimpl._base.keys import (
    BACKEND_MASK,
    SLOT_INDEX,
    SLOT_KEYS,
    DispatchKey,
    DispatchKeySet,
    highest_priority_index,
)
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.table import BACKEND_FALLBACKS, OBSERVER, KernelRecord, OperatorEntry
from refimpl.dispatch.tls import key_masks

FUNCTIONALITY_MASK: Final = ~BACKEND_MASK


class Operator(Protocol):
    """What a boxed fallback receives as `op`: an OpOverload (dispatch/ops.py)."""

    def name(self) -> str: ...

    def redispatch(self, keyset: DispatchKeySet, /, *args: Any, **kwargs: Any) -> Any: ...


class Dispatcher:
    """Every operator's registrations, by qualified name. Torch: c10::Dispatcher::singleton."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, OperatorEntry] = {}

    def entry(self, qualified_name: str) -> OperatorEntry:
        """The entry for `ns::op.overload`, created on first use. Torch: findOrRegisterName."""
        entry = self._entries.get(qualified_name)
        if entry is None:
            entry = OperatorEntry(qualified_name)
            self._entries[qualified_name] = entry
        return entry

    def find(self, qualified_name: str) -> OperatorEntry | None:
        return self._entries.get(qualified_name)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def clear_caches(self) -> None:
        """Forget every resolved kernel (Note [Dispatch cache]); the next calls resolve again."""
        for entry in self._entries.values():
            entry.clear_caches()


DISPATCHER: Final = Dispatcher()


def key_set_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The raw union of the key sets of every tensor among the arguments (lists included).

    Torch: DispatchKeyExtractor::getDispatchKeySetBoxed. Only tensor-typed arguments can hold
    tensors, so scanning every argument gives the same set.
    """
    raw = 0
    for value in args:
        if isinstance(value, TensorImpl):
            raw |= value._key_set
        elif type(value) is list or type(value) is tuple:
            for item in value:
                if isinstance(item, TensorImpl):
                    raw |= item._key_set
    if kwargs:
        for value in kwargs.values():
            if isinstance(value, TensorImpl):
                raw |= value._key_set
            elif type(value) is list or type(value) is tuple:
                for item in value:
                    if isinstance(item, TensorImpl):
                        raw |= item._key_set
    return raw


def dispatch_raw(entry: OperatorEntry, tensor_keys: int) -> int:
    """The call's key set: tensor keys with the TLS sets applied, minus fallthrough keys."""
    masks = key_masks()  # Note [Thread-local key sets]
    raw = (tensor_keys | masks.included_raw) & masks.keep
    mask = entry.non_fallthrough_mask
    if mask is None:
        mask = entry.non_fallthrough_mask_for(raw)
    return raw & mask


def call_kernel(
    op: Operator, entry: OperatorEntry, raw: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Run the kernel for key set `raw` (already masked). Torch: KernelFunction::call."""
    slot = highest_priority_index(raw)
    record = entry.dispatch_table[slot]
    if record is None:
        raise entry.missing_kernel_error(SLOT_KEYS[slot])
    if OBSERVER.wrap is not None:  # Note [Dispatch observer]
        record = OBSERVER.wrap(entry, record, raw)
    if record.boxed:
        if record.with_keyset:
            return record.kernel(DispatchKeySet.from_raw_repr(raw), op, *args, **kwargs)
        return record.kernel(op, *args, **kwargs)
    if record.with_keyset:
        return record.kernel(DispatchKeySet.from_raw_repr(raw), *args, **kwargs)
    return record.kernel(*args, **kwargs)


# --- the global fallbacks every build of torch registers ------------------------------------


def _meta_fallback(op: Operator, /, *args: Any, **kwargs: Any) -> Any:
    # torch: metaFallback in aten/src/ATen/core/MetaFallbackKernel.cpp
    raise NotImplementedError(
        f"{op.name().partition('.')[0]}: attempted to run this operator with Meta tensors, but "
        "there was no fake impl or Meta kernel registered. You may have run into this message "
        "while using an operator with PT2 compilation APIs (torch.compile/torch.export); in "
        "order to use this operator with those APIs you'll need to add a fake impl. Please see "
        "the following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


# Every autograd key: AutogradOther, AutogradNestedTensor and AutogradCPU .. AutogradMeta.
# Registering all of them keeps the fallthrough mask one int for every backend.
_AUTOGRAD_FALLBACK_KEYS: Final = tuple(
    key for key in DispatchKey if key.name.startswith("Autograd") and key in SLOT_INDEX
)
_FALLTHROUGH_KEYS: Final = (
    DispatchKey.BackendSelect,
    DispatchKey.ADInplaceOrView,
    DispatchKey.AutocastCPU,
    DispatchKey.AutocastCUDA,
)


def register_builtin_fallbacks() -> None:
    """Install torch's global fallbacks for the keys refimpl's tensors carry.

    Torch: the TORCH_LIBRARY_IMPL(_, Key, m) { m.fallback(...) } blocks of ATen.
    """
    for key in _FALLTHROUGH_KEYS:
        BACKEND_FALLBACKS.register(key, KernelRecord.fallthrough(f"refimpl {key.name} fallthrough"))
    # Differs: torch's autograd fallback (autogradNotImplementedFallback in
    # torch/csrc/autograd/VariableFallbackKernel.cpp, "warn" mode) is a boxed kernel that
    # records nothing and redispatches below autograd. Until autograd lands (#6), refimpl
    # makes these keys fallthroughs: the same backend kernel runs, without a second trip
    # through the dispatcher. Dumps show "fallthrough" where torch's show the boxed kernel.
    for key in _AUTOGRAD_FALLBACK_KEYS:
        BACKEND_FALLBACKS.register(
            key, KernelRecord.fallthrough("refimpl autograd fallback (VariableFallbackKernel)")
        )
    BACKEND_FALLBACKS.register(
        DispatchKey.Meta, KernelRecord(_meta_fallback, "refimpl meta fallback", boxed=True)
    )


register_builtin_fallbacks()
