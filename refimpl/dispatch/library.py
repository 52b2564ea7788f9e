"""`refimpl.library`: defining operators and registering kernels and fallbacks from Python.

Torch: torch/library.py (Library, define, impl, fallback, fallthrough_kernel). Every
registration a `Library` makes is undone when the Library is destroyed (garbage collected,
`_destroy()`, or the end of a `_scoped_library` block), as torch's are. Operators defined from
Python functions (custom_op, register_kernel, register_fake, register_autograd) are in
dispatch/custom_ops.py.
"""

from __future__ import annotations

import sys
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.device import device
from refimpl._base.keys import DispatchKey
from refimpl._base.tags import Tag
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import SCHEMAS, OpOverload
from refimpl.dispatch.schema import parse_schema
from refimpl.dispatch.table import (
    BACKEND_FALLBACKS,
    KernelRecord,
    OperatorEntry,
    fallthrough_kernel,
)

__all__ = [
    "Library",
    "define",
    "fallthrough_kernel",
    "impl",
]

_KINDS: Final = ("DEF", "IMPL", "FRAGMENT")
# torch: the C++ macro each kind stands for, as its error messages name the block.
_BLOCK_NAMES: Final = {
    "DEF": "TORCH_LIBRARY",
    "IMPL": "TORCH_LIBRARY_IMPL",
    "FRAGMENT": "TORCH_LIBRARY_FRAGMENT",
}
_RESERVED_NAMESPACES: Final = ("prim",)

# torch: the device-type strings torch.library accepts, and the key each registers to.
_DEVICE_TYPE_KEYS: Final[dict[str, DispatchKey]] = {
    "cpu": DispatchKey.CPU,
    "cuda": DispatchKey.CUDA,
    "meta": DispatchKey.Meta,
    "default": DispatchKey.CompositeExplicitAutograd,
}


@dataclass(slots=True)
class _LibraryState:
    """What one Library registered, so that it can all be undone."""

    kernels: list[tuple[OperatorEntry, DispatchKey, KernelRecord]] = field(default_factory=list)
    definitions: list[tuple[str, str]] = field(default_factory=list)
    fallbacks: list[DispatchKey] = field(default_factory=list)
    def_namespace: str | None = None


# Namespaces that have a DEF library, with where it was made. torch: Library::Library's check.
_DEF_NAMESPACES: dict[str, str] = {}


def _caller() -> str:
    """Where the caller of the calling method is, as torch's registration debug strings say."""
    return f"registered at {_caller_location(3)}"


def _caller_location(depth: int = 2) -> str:
    """`file:line` of the frame `depth` levels above this function (2: the caller's caller)."""
    frame = sys._getframe(depth)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def parse_dispatch_key(name: str) -> DispatchKey:
    """A DispatchKey from its name; "" means CompositeImplicitAutograd. Torch: parseDispatchKey."""
    if name == "":
        return DispatchKey.CompositeImplicitAutograd
    key = DispatchKey.__members__.get(name)
    if key is None:
        raise RuntimeError(f"could not parse dispatch key: {name}")
    return key


def _undo(state: _LibraryState) -> None:
    for entry, key, record in reversed(state.kernels):
        entry.deregister_kernel(key, record)
    for qualified, overload in reversed(state.definitions):
        SCHEMAS.undefine(qualified, overload)
    for key in state.fallbacks:
        BACKEND_FALLBACKS.deregister(key)
    if state.def_namespace is not None:
        _DEF_NAMESPACES.pop(state.def_namespace, None)
    state.kernels.clear()
    state.definitions.clear()
    state.fallbacks.clear()


def _checking_returns(fn: Callable[..., Any], entry: OperatorEntry) -> Callable[..., Any]:
    """`fn` with its result checked against the operator's returns, as torch converts a
    Python kernel's result back to C++ (torch: PythonKernelHolder, toIValue)."""
    schema = parse_schema(entry.schema) if entry.schema is not None else None
    if schema is None:
        return fn
    kinds = tuple(str(r.type) for r in schema.returns)

    def check(result: Any) -> Any:
        if not kinds:
            if result is not None:
                raise RuntimeError(
                    f"Expected PythonKernelHolder for {schema.name} to return None but it "
                    "returned something else instead."
                )
        elif len(kinds) > 1:
            if not isinstance(result, (tuple, list)):
                raise TypeError(
                    f"Object of type '{type(result).__name__}' is not an instance of 'sequence'"
                )
        elif kinds[0] == "Tensor" and not (result is None or isinstance(result, TensorImpl)):
            raise RuntimeError(f"Unable to cast {result} to Tensor")
        return result

    def checked(*args: Any, **kwargs: Any) -> Any:
        return check(fn(*args, **kwargs))

    checked.__wrapped__ = fn  # type: ignore[attr-defined]  # for introspection
    return checked


class Library:
    """A set of definitions and registrations in one namespace. Torch: torch.library.Library.

    `kind` is "DEF" (defines the namespace; once per namespace), "FRAGMENT" (adds
    definitions to any namespace) or "IMPL" (only registers kernels).
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _RESERVED_NAMESPACES and kind in ("DEF", "FRAGMENT"):
            raise ValueError(
                f"{ns} is a reserved namespace. Please try creating a library with another name."
            )
        location = _caller_location()
        where = f"registered at {location}"
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._where = where
        self._location = location
        self._state = _LibraryState()
        if kind == "DEF":
            previous = _DEF_NAMESPACES.get(ns)
            if previous is not None or ns == "aten":
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                    f"of TORCH_LIBRARY was {previous or 'registered by refimpl'}; latest "
                    f"registration was {where}"
                )
            _DEF_NAMESPACES[ns] = where
            self._state.def_namespace = ns
        self._finalizer = weakref.finalize(self, _undo, self._state)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _destroy(self) -> None:
        """Undo every registration now. Torch: Library._destroy."""
        self._finalizer()

    # --- define -----------------------------------------------------------------------------

    def define(
        self, schema: str, alias_analysis: str = "", *, tags: Sequence[Tag | str] | Tag | str = ()
    ) -> str:
        """Define an operator overload from a schema string; returns its name.

        Torch: Library.define. The namespace is the library's unless the schema names one.
        """
        if self.kind == "IMPL":
            name = schema.partition("(")[0]
            raise RuntimeError(
                f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                "block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for "
                f"their namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block "
                f"at {self._location})"
            )
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        head = schema.partition("(")[0]
        if "::" in head and head.partition("::")[0] != self.ns:
            raise RuntimeError(
                f"Explicitly provided namespace ({head.partition('::')[0]}) in schema string "
                f"does not match namespace of enclosing {_BLOCK_NAMES[self.kind]} block "
                f"({self.ns}).  Move this definition to the (unique) TORCH_LIBRARY block "
                "corresponding to this namespace (and consider deleting the namespace from "
                f"your schema string.)  (Error occurred while processing "
                f"{_BLOCK_NAMES[self.kind]} block at {self._location})"
            )
        text = schema if "::" in head else f"{self.ns}::{schema}"
        parsed = parse_schema(text)
        items = (tags,) if isinstance(tags, (str, Tag)) else tuple(tags)
        tag_names = tuple(t.name if isinstance(t, Tag) else Tag[t].name for t in items)
        SCHEMAS.define(parsed, tag_names)
        self._state.definitions.append((parsed.name, parsed.overload_name))
        entry = DISPATCHER.entry(parsed.qualified_name)
        entry.set_schema(str(parsed), _caller(), alias_analysis or "FROM_SCHEMA")
        # torch: Library.define returns the operator name; the overload name is dropped.
        return parsed.name.partition("::")[2]

    # --- impl -------------------------------------------------------------------------------

    def _entry_for(self, op_name: str | OpOverload) -> OperatorEntry:
        if isinstance(op_name, OpOverload):
            return op_name.entry
        if "::" in op_name and op_name.partition("::")[0] != self.ns:
            raise RuntimeError(
                f'impl("{op_name}", ...): Explicitly provided namespace '
                f"({op_name.partition('::')[0]}) in operator name does not match namespace of "
                f"enclosing {_BLOCK_NAMES[self.kind]} block ({self.ns}).  Move this definition "
                f"to the {_BLOCK_NAMES[self.kind]} block corresponding to this namespace (and "
                "consider deleting the namespace from your schema string.)  (Error occurred "
                f"while processing {_BLOCK_NAMES[self.kind]} block at {self._location})"
            )
        qualified = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        name, _, overload = qualified.partition(".")
        if not SCHEMAS.overloads(name) or overload not in SCHEMAS.overloads(name):
            raise RuntimeError(
                f"operator {qualified} does not exist; define it before registering kernels"
            )
        return DISPATCHER.entry(qualified)

    def impl(
        self,
        op_name: str | OpOverload,
        fn: Callable[..., Any],
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = True,
    ) -> None:
        """Register `fn` as the kernel of `op_name` for `dispatch_key`. Torch: Library.impl.

        No key means CompositeImplicitAutograd. `fallthrough_kernel` makes the key skip.
        """
        key = parse_dispatch_key(dispatch_key or self.dispatch_key)
        entry = self._entry_for(op_name)
        where = _caller()
        if fn is fallthrough_kernel:
            record = KernelRecord.fallthrough(where)
        else:
            record = KernelRecord(_checking_returns(fn, entry), where, with_keyset=with_keyset)
        existing = entry.kernels_for(key)
        if existing:
            if not allow_override:
                raise RuntimeError(
                    f"This is not allowed since there's already a kernel registered from python "
                    f"overriding {entry.name}'s behavior for {key.name} dispatch key and "
                    f"{self.ns} namespace."
                )
            if should_warn_once("override"):  # torch: TORCH_WARN_ONCE in OperatorEntry.cpp
                warnings.warn(
                    "Warning only once for all operators,  other operators may also be "
                    "overridden.\n  Overriding a previously registered kernel for the same "
                    f"operator and the same dispatch key\n  operator: {entry.schema}\n    "
                    f"{entry.schema_debug}\n  dispatch key: {key.name}\n  previous kernel: "
                    f"{existing[0].debug}\n       new kernel: {where}",
                    UserWarning,
                    stacklevel=2,
                )
        entry.register_kernel(key, record)
        self._state.kernels.append((entry, key, record))

    def fallback(
        self, fn: Callable[..., Any], dispatch_key: str = "", *, with_keyset: bool = False
    ) -> None:
        """Register `fn` as the boxed fallback of every operator for `dispatch_key`.

        Torch: Library.fallback; `fn(op, *args, **kwargs)`, or `fn(keyset, op, ...)`.
        """
        if self.ns != "_":
            raise RuntimeError(
                "Fallback can only be registered using library fragment on the global "
                f'namespace "_" but it is {self.ns}'
            )
        key = parse_dispatch_key(dispatch_key or self.dispatch_key)
        where = _caller()
        if fn is fallthrough_kernel:
            record = KernelRecord.fallthrough(where)
        else:
            record = KernelRecord(fn, where, with_keyset=with_keyset, boxed=True)
        BACKEND_FALLBACKS.register(key, record)
        self._state.fallbacks.append(key)


@contextmanager
def _scoped_library(ns: str, kind: str, dispatch_key: str = "") -> Iterator[Library]:
    """A Library whose registrations end with the block. Torch: torch.library._scoped_library."""
    lib = Library(ns, kind, dispatch_key)
    try:
        yield lib
    finally:
        lib._destroy()


# --- the functional API ---------------------------------------------------------------------

# Libraries made by the functional API live for the rest of the process, as torch's do.
_KEPT_ALIVE: list[Library] = []


def _library_for(qualname: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    made = Library(qualname.partition("::")[0], "FRAGMENT")
    _KEPT_ALIVE.append(made)
    return made


def define(
    qualname: str, schema: str, *, lib: Library | None = None, tags: Sequence[str] = ()
) -> None:
    """Define `ns::name` with `schema` ("(Tensor x) -> Tensor"). Torch: torch.library.define."""
    library = _library_for(qualname, lib)
    library.define(qualname.partition("::")[2] + schema, tags=tags)


def _keys_for(device_types: str | Sequence[str] | None) -> list[DispatchKey]:
    if device_types is None:
        return [DispatchKey.CompositeExplicitAutograd]
    names = [device_types] if isinstance(device_types, str) else list(device_types)
    keys = []
    for name in names:
        key = _DEVICE_TYPE_KEYS.get(device(name).type if name != "default" else "default")
        if key is None:
            raise ValueError(f"Unsupported device type for refimpl: {name}")
        keys.append(key)
    return keys


def impl(
    qualname: str,
    types: str | Sequence[str],
    func: Callable[..., Any] | None = None,
    *,
    lib: Library | None = None,
) -> Any:
    """Register a kernel for device types ("cpu", "cuda") or a dispatch key name.

    Torch: torch.library.impl; usable as a decorator.
    """

    # torch: the decorator returns None (the decorated name is not the kernel afterwards).
    def register(fn: Callable[..., Any]) -> None:
        library = _library_for(qualname, lib)
        names = [types] if isinstance(types, str) else list(types)
        for name in names:
            key_name = name if name in DispatchKey.__members__ else _keys_for(name)[0].name
            library.impl(qualname.partition("::")[2], fn, key_name)

    if func is None:
        return register
    register(func)
    return None
