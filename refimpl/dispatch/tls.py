"""The thread-local included and excluded dispatch key sets, and guards that change them.

Torch: c10/core/impl/LocalDispatchKeySet.h (tls_local_dispatch_key_set, IncludeDispatchKeyGuard,
ExcludeDispatchKeyGuard) and ATen/core/LegacyTypeDispatch.h (AutoDispatchBelowAutograd,
AutoDispatchBelowADInplaceOrView); from Python torch._C._dispatch_tls_* and the guards.

Every dispatch computes `((tensor keys | included) - excluded) & op mask` (see
pytorch-semantics.md §1.6), so the dispatcher reads the thread's KeyMasks (`key_masks()`) on
each call (Note [Thread-local key sets]).
"""

from __future__ import annotations

import contextvars
from types import TracebackType
from typing import Final

from refimpl._base.keys import (
    AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS,
    AUTOGRAD_KEYS,
    BACKEND_MASK,
    DEFAULT_EXCLUDED_SET,
    DEFAULT_INCLUDED_SET,
    DispatchKey,
    DispatchKeySet,
)

_FUNCTIONALITY_MASK: Final = ~BACKEND_MASK


class KeyMasks:
    """One state of the thread's included and excluded key sets, as raw ints; never changed
    once made (a change makes a new one), so the default can be shared by every thread.

    `keep` is what a call's key set is masked with after the included set is added:
    `(tensor keys | included) & keep` drops the excluded functionality bits (backend bits
    are never excluded). Note [Thread-local key sets].
    """

    __slots__ = ("_excluding", "below", "excluded_raw", "included_raw", "keep")

    def __init__(self, included_raw: int, excluded_raw: int) -> None:
        self.included_raw = included_raw
        self.excluded_raw = excluded_raw
        self.keep = ~(excluded_raw & _FUNCTIONALITY_MASK)
        self._excluding: dict[int, KeyMasks] = {}
        self.below: KeyMasks | None = None
        """`below_autograd()` once made (hot paths read `masks.below or
        masks.below_autograd()`)."""

    def below_autograd(self) -> KeyMasks:
        """This state with autograd and ADInplaceOrView excluded: what the autograd and
        ADInplaceOrView kernels run their op below (torch: AutoDispatchBelowADInplaceOrView)."""
        found = self.below
        if found is None:
            found = self.below = self.excluding(AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS.raw)
        return found

    def excluding(self, raw: int) -> KeyMasks:
        """This state with `raw` also excluded (made once per state and key set)."""
        found = self._excluding.get(raw)
        if found is None:
            found = KeyMasks(self.included_raw, self.excluded_raw | raw)
            self._excluding[raw] = found
        return found


# Note [Thread-local key sets]
# Every dispatch reads the thread's included and excluded sets. A threading.local attribute
# costs about 100 ns to read in CPython 3.11; a ContextVar's get about 10 ns (each thread has
# its own context, so a ContextVar holds per-thread state). The state is one KeyMasks; the
# hot paths read it with `key_masks()` and push a derived one with `push_masks` /
# `KEY_MASKS.reset(token)`. DISPATCH_TLS keeps the attribute interface (`included_raw`,
# `excluded_raw`, read and assigned) for everything else.
# The default is shared by every thread: KeyMasks never changes its meaning (only its cache of
# derived states grows), so sharing it is safe.
KEY_MASKS: Final[contextvars.ContextVar[KeyMasks]] = contextvars.ContextVar(
    "refimpl_key_masks",
    default=KeyMasks(DEFAULT_INCLUDED_SET.raw, DEFAULT_EXCLUDED_SET.raw),  # noqa: B039
)
key_masks = KEY_MASKS.get
push_masks = KEY_MASKS.set
reset_masks = KEY_MASKS.reset


def restore_masks(token: contextvars.Token[KeyMasks], pushed: KeyMasks, saved: KeyMasks) -> None:
    """End a `push_masks(pushed)` that excluded keys: back to the state before it, or, if the
    block changed the included set (a mode pushed inside), only the excluded set restored, as
    torch's ExcludeDispatchKeyGuard restores only what it changed."""
    current = key_masks()
    if current is pushed:
        KEY_MASKS.reset(token)
    else:
        KEY_MASKS.set(KeyMasks(current.included_raw, saved.excluded_raw))


class LocalDispatchKeySet:
    """The current thread's included and excluded key sets, as raw ints.

    Torch: c10::impl::LocalDispatchKeySet. Each thread starts from the defaults: included
    (BackendSelect, ADInplaceOrView), excluded every Autocast key (torch: Note [TLS
    Initialization]; checked by conformance/test_keys.py). Note [Thread-local key sets].
    """

    __slots__ = ()

    @property
    def included_raw(self) -> int:
        return key_masks().included_raw

    @included_raw.setter
    def included_raw(self, value: int) -> None:
        KEY_MASKS.set(KeyMasks(value, key_masks().excluded_raw))

    @property
    def excluded_raw(self) -> int:
        return key_masks().excluded_raw

    @excluded_raw.setter
    def excluded_raw(self, value: int) -> None:
        KEY_MASKS.set(KeyMasks(key_masks().included_raw, value))


# The one thread-local dispatch state's interface.
DISPATCH_TLS: Final = LocalDispatchKeySet()


def _as_raw(keys: DispatchKey | DispatchKeySet) -> int:
    return keys.raw if isinstance(keys, DispatchKeySet) else DispatchKeySet(keys).raw


def tls_local_include_set() -> DispatchKeySet:
    """The current thread's included keys. Torch: torch._C._dispatch_tls_local_include_set."""
    return DispatchKeySet.from_raw_repr(DISPATCH_TLS.included_raw)


def tls_local_exclude_set() -> DispatchKeySet:
    """The current thread's excluded keys. Torch: torch._C._dispatch_tls_local_exclude_set."""
    return DispatchKeySet.from_raw_repr(DISPATCH_TLS.excluded_raw)


def tls_is_dispatch_key_included(key: DispatchKey) -> bool:
    """Whether `key` is in the included set. Torch: c10::impl::tls_is_dispatch_key_included."""
    return tls_local_include_set().has(key)


def tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    """Whether `key` is in the excluded set. Torch: c10::impl::tls_is_dispatch_key_excluded."""
    return tls_local_exclude_set().has(key)


def tls_set_dispatch_key_included(key: DispatchKey, desired_state: bool) -> None:
    """Add `key` to, or remove it from, the included set.

    Torch: c10::impl::tls_set_dispatch_key_included. Removing clears the functionality bit
    only (DispatchKeySet.remove), so a per-backend key leaves its backend bit behind.
    """
    current = tls_local_include_set()
    if current.has(key) != desired_state:
        updated = current.add(key) if desired_state else current.remove(key)
        DISPATCH_TLS.included_raw = updated.raw


def tls_set_dispatch_key_excluded(key: DispatchKey, desired_state: bool) -> None:
    """Add `key` to, or remove it from, the excluded set.

    Torch: c10::impl::tls_set_dispatch_key_excluded. Removing clears the functionality bit only.
    """
    current = tls_local_exclude_set()
    if current.has(key) != desired_state:
        updated = current.add(key) if desired_state else current.remove(key)
        DISPATCH_TLS.excluded_raw = updated.raw


# Note [Dispatch key guards restore the saved set]
# Each guard saves the whole set on entry and restores it on exit, so changes made inside the
# block (tls_set_dispatch_key_*) are undone too. That is what torch 2.13's Python guards do:
# `with _ExcludeDispatchKeyGuard(ks): _dispatch_tls_set_dispatch_key_excluded(Negative, True)`
# leaves Negative not excluded afterwards, and no backend bit lingers (checked in
# tests/test_keys.py against torch). A guard object is not re-entrant while active.


class IncludeDispatchKeyGuard:
    """Within the block, also include the given key(s).

    Torch: c10::impl::IncludeDispatchKeyGuard; torch._C._IncludeDispatchKeyGuard.
    See Note [Dispatch key guards restore the saved set].
    """

    __slots__ = ("_raw", "_saved")

    def __init__(self, keys: DispatchKey | DispatchKeySet) -> None:
        self._raw = _as_raw(keys)
        self._saved = 0

    def __enter__(self) -> None:
        self._saved = DISPATCH_TLS.included_raw
        DISPATCH_TLS.included_raw = self._saved | self._raw

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        DISPATCH_TLS.included_raw = self._saved


class ExcludeDispatchKeyGuard:
    """Within the block, also exclude the given key(s).

    Torch: c10::impl::ExcludeDispatchKeyGuard; torch._C._ExcludeDispatchKeyGuard.
    See Note [Dispatch key guards restore the saved set].
    """

    __slots__ = ("_raw", "_saved")

    def __init__(self, keys: DispatchKey | DispatchKeySet) -> None:
        self._raw = _as_raw(keys)
        self._saved = 0

    def __enter__(self) -> None:
        self._saved = DISPATCH_TLS.excluded_raw
        DISPATCH_TLS.excluded_raw = self._saved | self._raw

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        DISPATCH_TLS.excluded_raw = self._saved


class AutoDispatchBelowAutograd(ExcludeDispatchKeyGuard):
    """Within the block, skip every autograd key (AutogradOther, Autograd<Backend>,
    AutogradNestedTensor); ADInplaceOrView still runs.

    Torch: at::AutoDispatchBelowAutograd; torch._C._AutoDispatchBelowAutograd.
    """

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(AUTOGRAD_KEYS)


class AutoDispatchBelowADInplaceOrView(ExcludeDispatchKeyGuard):
    """Within the block, skip the autograd keys and ADInplaceOrView: what an autograd kernel
    pushes before redispatching, so nested calls made by backend kernels skip autograd.

    Torch: at::AutoDispatchBelowADInplaceOrView; torch._C._AutoDispatchBelowADInplaceOrView.
    """

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS)


class ForceDispatchKeyGuard:
    """Within the block, replace both sets; restore them afterwards.

    Torch: c10::impl::ForceDispatchKeyGuard; torch._C._ForceDispatchKeyGuard. Used to
    re-install a snapshot of the sets (PythonTLSSnapshot, PythonDispatcher).
    """

    __slots__ = ("_excluded", "_included", "_saved_excluded", "_saved_included")

    def __init__(self, included: DispatchKeySet, excluded: DispatchKeySet) -> None:
        self._included = included.raw
        self._excluded = excluded.raw
        self._saved_included = 0
        self._saved_excluded = 0

    def __enter__(self) -> None:
        self._saved_included = DISPATCH_TLS.included_raw
        self._saved_excluded = DISPATCH_TLS.excluded_raw
        DISPATCH_TLS.included_raw = self._included
        DISPATCH_TLS.excluded_raw = self._excluded

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        DISPATCH_TLS.included_raw = self._saved_included
        DISPATCH_TLS.excluded_raw = self._saved_excluded
