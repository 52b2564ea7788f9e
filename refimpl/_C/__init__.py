"""`refimpl._C`: the dispatcher introspection torch exposes as `torch._C`.

Torch: torch._C.DispatchKey, DispatchKeySet, _dispatch_keys, _dispatch_dump,
_dispatch_dump_table, the TLS functions and guards. refimpl has no C++ core: these names
re-export the Python implementations, so code written against torch._C reads the same.
"""

from __future__ import annotations

from refimpl._base.keys import DispatchKey, DispatchKeySet, full_after
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.schema import parse_schema
from refimpl.dispatch.tls import (
    AutoDispatchBelowADInplaceOrView as _AutoDispatchBelowADInplaceOrView,
)
from refimpl.dispatch.tls import (
    AutoDispatchBelowAutograd as _AutoDispatchBelowAutograd,
)
from refimpl.dispatch.tls import (
    ExcludeDispatchKeyGuard as _ExcludeDispatchKeyGuard,
)
from refimpl.dispatch.tls import (
    IncludeDispatchKeyGuard as _IncludeDispatchKeyGuard,
)
from refimpl.dispatch.tls import (
    tls_is_dispatch_key_excluded as _dispatch_tls_is_dispatch_key_excluded,
)
from refimpl.dispatch.tls import (
    tls_is_dispatch_key_included as _dispatch_tls_is_dispatch_key_included,
)
from refimpl.dispatch.tls import (
    tls_local_exclude_set as _dispatch_tls_local_exclude_set,
)
from refimpl.dispatch.tls import (
    tls_local_include_set as _dispatch_tls_local_include_set,
)
from refimpl.dispatch.tls import (
    tls_set_dispatch_key_excluded as _dispatch_tls_set_dispatch_key_excluded,
)
from refimpl.dispatch.tls import (
    tls_set_dispatch_key_included as _dispatch_tls_set_dispatch_key_included,
)

__all__ = [
    "DispatchKey",
    "DispatchKeySet",
    "_AutoDispatchBelowADInplaceOrView",
    "_AutoDispatchBelowAutograd",
    "_ExcludeDispatchKeyGuard",
    "_IncludeDispatchKeyGuard",
    "_dispatch_dump",
    "_dispatch_dump_table",
    "_dispatch_has_kernel_for_dispatch_key",
    "_dispatch_keys",
    "_dispatch_keyset_full_after",
    "_dispatch_tls_is_dispatch_key_excluded",
    "_dispatch_tls_is_dispatch_key_included",
    "_dispatch_tls_local_exclude_set",
    "_dispatch_tls_local_include_set",
    "_dispatch_tls_set_dispatch_key_excluded",
    "_dispatch_tls_set_dispatch_key_included",
    "parse_schema",
]


def _dispatch_keys(tensor: TensorImpl) -> DispatchKeySet:
    """The key set a tensor carries. Torch: torch._C._dispatch_keys."""
    return DispatchKeySet.from_raw_repr(tensor._key_set)


def _dispatch_keyset_full_after(key: DispatchKey) -> DispatchKeySet:
    """Every key below `key` (plus PythonDispatcher). Torch: _dispatch_keyset_full_after."""
    return full_after(key)


def _entry_text(name: str, dump_table: bool) -> str:
    entry = DISPATCHER.find(name)
    if entry is None:
        raise RuntimeError(f"could not find operator {name}")
    return entry.dump_computed_table() if dump_table else entry.dump_state()


def _dispatch_dump(name: str) -> str:
    """An operator's registrations, as torch prints them. Torch: torch._C._dispatch_dump."""
    return _entry_text(name, dump_table=False)


def _dispatch_dump_table(name: str) -> str:
    """An operator's computed dispatch table. Torch: torch._C._dispatch_dump_table."""
    return _entry_text(name, dump_table=True)


def _dispatch_has_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    """Whether a kernel is registered directly to `key` (runtime or alias) for `name`.

    Torch: torch._C._dispatch_has_kernel_for_dispatch_key.
    """
    entry = DISPATCHER.find(name)
    dispatch_key = DispatchKey[key] if isinstance(key, str) else key
    return entry is not None and entry.has_kernel_for_dispatch_key(dispatch_key)
