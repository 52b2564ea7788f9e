"""Operators as Python objects: `refimpl.ops.<ns>.<op>` packets and their overloads.

Torch: torch/_ops.py (OpOverloadPacket, OpOverload, _OpNamespace). An `OpOverload` binds its
Python arguments to its schema (compiled once, dispatch/binding.py) and enters the
dispatcher; a packet picks the first overload, in torch's order, whose schema accepts the
arguments. Schemas come from `define` (custom operators) or, for aten and prims, from the
spec snapshot of torch 2.13, so every torch overload exists here before it has a kernel.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import SLOT_INDEX, DispatchKey, DispatchKeySet
from refimpl._base.promotion import DEFAULT_DTYPES, get_default_dtype
from refimpl._base.spec import SpecOverload, spec_overloads
from refimpl._base.tags import Tag
from refimpl.core.tensor import TensorImpl, operand_key
from refimpl.dispatch.binding import Binder, SchemaMatchError, as_runtime_error, match_failure
from refimpl.dispatch.dispatcher import (
    DISPATCHER,
    call_kernel,
    key_set_of,
)
from refimpl.dispatch.schema import (
    Argument,
    FunctionSchema,
    ListType,
    OptionalType,
    parse_schema,
)
from refimpl.dispatch.table import KernelRecord, OperatorEntry, specializer_of
from refimpl.dispatch.tls import key_masks


class SchemaRegistry:
    """Every defined operator overload: qualified name -> schema text and tags.

    Torch: the schemas registered with c10::Dispatcher (registerDef). aten and prims come
    from the spec snapshot; `Library.define` adds the rest.
    """

    __slots__ = ("_defined", "_packets")

    def __init__(self) -> None:
        # "ns::op" -> {overload name: (schema text, tags)} in definition order.
        self._defined: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {}
        self._packets: dict[str, OpOverloadPacket] = {}

    def overloads(self, qualified_op: str) -> dict[str, tuple[str, tuple[str, ...]]]:
        found = self._defined.get(qualified_op)
        if found is None:
            spec: tuple[SpecOverload, ...] = spec_overloads().get(qualified_op, ())
            found = {o.overload: (o.schema, o.tags) for o in spec}
            if found:
                self._defined[qualified_op] = found
        return found

    def define(self, schema: FunctionSchema, tags: tuple[str, ...]) -> None:
        """Add an overload. Torch: Dispatcher::registerDef (Library.define)."""
        overloads = self.overloads(schema.name)
        if schema.overload_name in overloads:
            raise RuntimeError(
                f"Tried to register an operator ({schema}) with the same name and overload "
                f"name multiple times. Each overload's schema should only be registered with a "
                f"single call to def(). Duplicate registration: {schema}"
            )
        self._defined.setdefault(schema.name, {})[schema.overload_name] = (str(schema), tags)
        packet = self._packets.get(schema.name)
        if packet is not None:
            packet._refresh()

    def undefine(self, qualified_op: str, overload: str) -> None:
        """Remove an overload defined by a Library that is being destroyed."""
        overloads = self._defined.get(qualified_op, {})
        overloads.pop(overload, None)
        if not overloads:
            # torch: an operator with no schema left is gone from its namespace.
            self._defined.pop(qualified_op, None)
            self._packets.pop(qualified_op, None)
            ns, _, op_name = qualified_op.partition("::")
            found = _NAMESPACES.get(ns)
            if found is not None and op_name in vars(found):
                delattr(found, op_name)
            return
        packet = self._packets.get(qualified_op)
        if packet is not None:
            packet._refresh()

    def packet(self, qualified_op: str) -> OpOverloadPacket | None:
        packet = self._packets.get(qualified_op)
        if packet is None and self.overloads(qualified_op):
            packet = OpOverloadPacket(qualified_op, self)
            self._packets[qualified_op] = packet
        return packet


SCHEMAS: Final = SchemaRegistry()


def _is_list(argument: Argument) -> bool:
    schema_type = argument.type
    if isinstance(schema_type, OptionalType):
        schema_type = schema_type.element
    return isinstance(schema_type, ListType)


class OpOverload:
    """One overload of an operator: a schema and a dispatcher entry.

    Torch: torch._ops.OpOverload. `str(op) == "aten.add.Tensor"`, `op.name() ==
    "aten::add.Tensor"`; calling it binds the arguments and dispatches.
    """

    __slots__ = (
        "__name__",
        "__qualname__",
        "_binder",
        "_entry",
        "_overloadname",
        "_qualified_name",
        "_schema",
        "_tags",
        "_tensor_kwargs",
        "_tensor_list_positions",
        "_tensor_lists_or_kwargs",
        "_tensor_positions",
        "namespace",
        "overloadpacket",
    )

    def __init__(
        self, packet: OpOverloadPacket, schema: FunctionSchema, tags: tuple[str, ...]
    ) -> None:
        self._schema = schema
        self._overloadname = schema.overload_name or "default"
        self.overloadpacket = packet
        self._qualified_name = schema.qualified_name
        self._entry: OperatorEntry = DISPATCHER.entry(self._qualified_name)
        if self._entry.schema is None:
            self._entry.set_schema(str(schema), "registered by refimpl")
        self._binder = Binder(schema)
        # Where tensors can be, decided once: positional Tensor / Tensor? arguments, positional
        # Tensor[] / Tensor?[] lists, and keyword-only ones (`out=`). Torch: the
        # DispatchKeyExtractor's bitset of dispatch arguments.
        dispatch = [schema.arguments[i] for i in schema.dispatch_argument_indices]
        positional = [a for a in schema.arguments if not a.kwarg_only]
        index = {a.name: i for i, a in enumerate(positional)}
        self._tensor_positions = tuple(
            index[a.name] for a in dispatch if not a.kwarg_only and not _is_list(a)
        )
        self._tensor_list_positions = tuple(
            index[a.name] for a in dispatch if not a.kwarg_only and _is_list(a)
        )
        self._tensor_kwargs = tuple(a.name for a in dispatch if a.kwarg_only)
        self._tensor_lists_or_kwargs = bool(self._tensor_list_positions or self._tensor_kwargs)
        self._tags = tags
        self.namespace = schema.namespace
        self.__name__ = f"{schema.name.partition('::')[2]}.{self._overloadname}"
        self.__qualname__ = self._qualified_name

    # --- calling ----------------------------------------------------------------------------

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        try:
            args, kwargs = self._binder.bind(args, kwargs)
        except SchemaMatchError as mismatch:
            raise as_runtime_error(mismatch) from None
        return self.call_bound(args, kwargs)

    def call_checked(self, args: tuple[Any, ...]) -> Any:
        """Call with every positional argument given, each already of its schema type (a
        Python operator that has checked its operand), keyword-only arguments defaulted.

        The binder's answer for such a call, without asking it again (see Binder.bind's
        fast path, which returns exactly these arguments); a call whose arguments have the
        metadata of an earlier one takes that call's specialized kernel (Note [Specialized
        calls]).
        """
        if args and isinstance(args[0], TensorImpl):
            # call_validated, written out: every Python operator comes this way.
            binder = self._binder
            tails = binder._default_tails
            if len(args) < len(tails):
                tail = tails[len(args)]
                if tail == () and self._entry.specializable and not self._tensor_lists_or_kwargs:
                    key: tuple[object, ...]
                    if len(args) == 2:
                        # call_key, unrolled for a binary operator's call (operand_key's token
                        # read inline; args[1], where a tensor, is at a Tensor position).
                        a, b = args
                        raw = a._key_set
                        ka = a._meta_token
                        if isinstance(b, TensorImpl):
                            raw |= b._key_set
                            kb = b._meta_token
                        else:
                            kb = None
                        masks = key_masks()
                        key = (
                            (raw | masks.included_raw) & masks.keep,
                            DEFAULT_DTYPES.floating,  # get_default_dtype()
                            ka if ka is not None else operand_key(a),
                            kb if kb is not None else operand_key(b),
                        )
                    else:
                        key = self.call_key(args)
                    specialized = self._entry.specialized_calls.get(key)
                    if specialized is not None:
                        return specialized(*args)
                    return self._call_specializing(key, args)
                if tail is not None:
                    # The defaults dict itself: see call_bound's Note [Shared keyword defaults].
                    return self.call_bound(args + tail if tail else args, binder._kw_defaults)
        # A first argument that is not a tensor gets the full bind: a Scalar-first overload,
        # or an operator called unbound, `Tensor.__rsub__(2, 3)`; so does a call missing an
        # argument without a default (the bind raises torch's error).
        return self(*args)

    # Note [Specialized calls]
    # What call_bound decides for a call (the kernel, from the key set after TLS) and what a
    # kernel then decides from its arguments' metadata (a pointwise op's plan, checks and
    # runner: Note [Pointwise fast path] in ops/_pointwise.py) are both functions of the
    # call key: the key set after TLS, the default dtype and each argument's operand_key (a
    # tensor's metadata token, a number's type). After a call_checked call succeeds, the
    # kernel it ran is asked for its answer (`specializer_of`: only kernels that declare
    # one, the pointwise ops' functional kernels); the next call with that key calls the
    # answer directly, one lookup instead of the dispatcher's and the kernel's, and a key
    # whose kernel gave none (an autograd kernel, a mode's) keeps the general call. The
    # cache lives in the OperatorEntry and is emptied with the dispatch cache (a
    # registration, a backend fallback, the dispatch observer); errors are never cached, so
    # a failing call fails the same way each time. Python operators come this way, and API
    # calls whose packet resolution needs no bind (OpOverloadPacket.__call__).

    def call_key(self, args: tuple[Any, ...]) -> tuple[object, ...]:
        """The key of a call_checked call (Note [Specialized calls]); call_checked computes a
        binary operator's inline."""
        masks = key_masks()
        if len(args) == 1:  # a unary call (torch.exp(x)), unrolled
            (a,) = args
            ka = a._meta_token
            return (
                (a._key_set | masks.included_raw) & masks.keep,
                DEFAULT_DTYPES.floating,  # get_default_dtype()
                ka if ka is not None else operand_key(a),
            )
        raw = 0
        for i in self._tensor_positions:
            value = args[i]
            if isinstance(value, TensorImpl):
                raw |= value._key_set
        return ((raw | masks.included_raw) & masks.keep, get_default_dtype(), *map(operand_key, args))

    def _call_specializing(self, key: tuple[object, ...], args: tuple[Any, ...]) -> Any:
        """call_checked's general call, then the kernel's specialized answer kept for `key`."""
        entry = self._entry
        kwargs = self._binder._kw_defaults
        result = self.call_bound(args, kwargs)
        record = entry.direct_records.get(key[0])  # type: ignore[call-overload]  # the raw key set
        specialize = None if record is None else specializer_of(record.kernel)
        specialized = None if specialize is None else specialize(args, kwargs)
        calls = entry.specialized_calls
        if len(calls) > 1024:
            calls.clear()
        # Where the kernel gave nothing (an autograd kernel, a mode's), the general call.
        calls[key] = self._call_defaulted if specialized is None else specialized
        return result

    def _call_defaulted(self, *args: Any) -> Any:
        """call_checked's general call for arguments without an omitted positional one."""
        return self.call_bound(args, self._binder._kw_defaults)

    def call_validated(self, args: tuple[Any, ...], keywords: dict[str, Any] | None = None) -> Any:
        """Call with positional `args` and keyword-only `keywords` the caller has checked
        against the schema's types (an API function that validated its arguments); what
        is omitted takes its default, as `bind` would give it."""
        # The omitted trailing positional arguments and keyword-only ones defaulted, as `bind`
        # would give them (the binder's `_default_tails`: None where one has no default).
        binder = self._binder
        tails = binder._default_tails
        tail = tails[len(args)] if len(args) < len(tails) else None
        if tail is None:
            # An omitted argument without a default: the full bind raises torch's error.
            return self(*args, **(keywords or {}))
        # Note [Shared keyword defaults] (call_bound): without keywords, the defaults dict itself.
        kwargs = {**binder._kw_defaults, **keywords} if keywords else binder._kw_defaults
        return self.call_bound(args + tail if tail else args, kwargs)

    def call_bound(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Dispatch arguments already bound to this overload's schema.

        The hot path: dispatch_raw and call_kernel (dispatcher.py), written out inline.

        Note [Shared keyword defaults]: `kwargs` may be the binder's own dict of keyword-only
        defaults (call_checked, call_validated), which must not change. A cached kernel gets
        it unpacked (`**kwargs`, a copy); the general path copies it before anything can
        hold or change it (`_call_resolved`).
        """
        raw = 0
        for i in self._tensor_positions:
            value = args[i]
            if isinstance(value, TensorImpl):
                raw |= value._key_set
        if self._tensor_lists_or_kwargs:
            for i in self._tensor_list_positions:
                raw |= key_set_of(tuple(args[i] or ()), {})
            for name in self._tensor_kwargs:
                value = kwargs[name]
                if isinstance(value, TensorImpl):
                    raw |= value._key_set
                elif type(value) is list or type(value) is tuple:
                    raw |= key_set_of(tuple(value), {})
        masks = key_masks()  # Note [Thread-local key sets]
        raw = (raw | masks.included_raw) & masks.keep
        entry = self._entry
        record = entry.direct_records.get(raw)
        if record is None:
            found = entry.keyset_records.get(raw)
            if found is not None:  # a kernel taking the key set: an autograd kernel, mostly
                return found[0].kernel(found[1], *args, **kwargs)
            return self._call_resolved(entry, raw, args, kwargs)
        # Note [Calls without keywords]: `f(*args)` costs less than `f(*args, **{})` (CPython
        # 3.11 unpacks even an empty dict), and most schemas have no keyword-only argument.
        return record.kernel(*args, **kwargs) if kwargs else record.kernel(*args)

    def _call_resolved(
        self, entry: OperatorEntry, raw: int, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """call_bound for a key set the direct cache does not hold: resolve it, remember the
        answer, call. Note [Dispatch cache]: with a uniform fallthrough mask, the kernel is a
        function of the key set after TLS alone (and the table, which clears the cache when
        it changes); torch needs no cache, its table lookup is a few instructions."""
        kwargs = dict(kwargs)  # Note [Shared keyword defaults] (call_bound)
        found = entry.keyset_records.get(raw)
        if found is not None:
            return found[0].kernel(found[1], *args, **kwargs)
        record, dispatched = entry.resolve(raw)
        if record is None or record.boxed:
            return call_kernel(self, entry, dispatched, args, kwargs)
        if record.fuse_below is not None and entry.non_fallthrough_mask is not None:
            # Note [Fused redispatch] (dispatch/table.py).
            below, _ = entry.resolve(dispatched & record.below_mask)
            if below is not None and not (below.boxed or below.with_keyset):
                fused = record.fuse_below(below.kernel)
                entry.direct_records[raw] = KernelRecord(fused, record.debug)
                return fused(*args, **kwargs)
        if entry.non_fallthrough_mask is not None:
            if record.with_keyset:
                entry.keyset_records[raw] = (record, DispatchKeySet.from_raw_repr(dispatched))
            else:
                entry.direct_records[raw] = record
        if record.with_keyset:
            return record.kernel(DispatchKeySet.from_raw_repr(dispatched), *args, **kwargs)
        return record.kernel(*args, **kwargs)

    def redispatch(self, keyset: DispatchKeySet, /, *args: Any, **kwargs: Any) -> Any:
        """Call the kernel for `keyset` as given (TLS is not applied again).

        Torch: OpOverload.redispatch (c10::Dispatcher::redispatch).
        """
        try:
            args, kwargs = self._binder.bind(args, kwargs)
        except SchemaMatchError as mismatch:
            raise as_runtime_error(mismatch) from None
        entry = self._entry
        raw = keyset.raw
        mask = entry.non_fallthrough_mask
        raw &= entry.non_fallthrough_mask_for(raw) if mask is None else mask
        return call_kernel(self, entry, raw, args, kwargs)

    def redispatch_bound(self, raw: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """`redispatch` for arguments already bound to the schema, with a key set below
        autograd (an autograd kernel redispatching its own arguments; TLS is not applied
        again). Resolved and cached as call_bound's key sets are (Note [Dispatch cache])."""
        record = self._entry.direct_records.get(raw)
        if record is None:
            return self._call_resolved(self._entry, raw, args, kwargs)
        # Note [Calls without keywords] (call_bound).
        return record.kernel(*args, **kwargs) if kwargs else record.kernel(*args)

    def decompose(self, *args: Any, **kwargs: Any) -> Any:
        """Run the CompositeImplicitAutograd kernel, or return NotImplemented if there is none.

        Torch: OpOverload.decompose.
        """
        records = self._entry.kernels_for(DispatchKey.CompositeImplicitAutograd)
        if not records:
            return NotImplemented
        args, kwargs = self._binder.bind(args, kwargs)
        return records[0].kernel(*args, **kwargs)

    # --- introspection ------------------------------------------------------------------------

    def name(self) -> str:
        return self._qualified_name

    @property
    def _opname(self) -> str:
        return self._schema.name.partition("::")[2]

    @property
    def tags(self) -> list[Tag]:
        """The overload's tags. Torch: OpOverload.tags."""
        return [Tag[name] for name in self._tags]

    @property
    def is_view(self) -> bool:
        """Whether the op returns a view of an input: some argument carries a non-write alias
        annotation and none a write one. Torch: OpOverload.is_view (MathBitsFallback.h)."""
        annotated = [a.alias_info.is_write for a in self._schema.arguments if a.alias_info]
        return bool(annotated) and not any(annotated)

    def has_kernel_for_dispatch_key(self, key: DispatchKey) -> bool:
        """Torch: OpOverload.has_kernel_for_dispatch_key (the computed table has an entry)."""
        index = SLOT_INDEX.get(key)
        if index is None:
            return self._entry.has_kernel_for_dispatch_key(key)
        return self._entry.dispatch_table[index] is not None

    @property
    def entry(self) -> OperatorEntry:
        """The dispatcher entry (registrations and computed table) of this overload."""
        return self._entry

    def __str__(self) -> str:
        return f"{self._schema.name.replace('::', '.')}.{self._overloadname}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._schema.name.replace('::', '.')}', overload='{self._overloadname}')>"

    def __hash__(self) -> int:
        return id(self)


# Note [Packet resolution by types]
# A packet call tries its overloads in torch's order and takes the first that binds. When
# every binder up to the chosen one only validates types (no list or value conversions) and
# the call has positional arguments only, that choice is a function of the arguments' types,
# so the packet remembers it per type tuple and later calls enter the overload directly
# (OpOverload.call_checked). The cache is emptied when the packet's overloads change.


class OpOverloadPacket:
    """All overloads of one operator name. Torch: torch._ops.OpOverloadPacket."""

    def __init__(self, qualified_op: str, registry: SchemaRegistry) -> None:
        self._qualified_op_name = qualified_op
        self._registry = registry
        self.__name__ = qualified_op.partition("::")[2]
        self._overload_names: list[str] = []
        self._resolution: tuple[OpOverload, ...] = ()
        self._by_types: dict[tuple[type, ...], tuple[OpOverload, tuple[Any, ...] | None] | None] = {}
        self._refresh()

    def _refresh(self) -> None:
        for name in self._overload_names:
            self.__dict__.pop(name or "default", None)
        self._overload_names = list(self._registry.overloads(self._qualified_op_name))
        self._resolution = ()
        self._by_types = {}

    def overloads(self) -> list[str]:
        """Overload names in torch's order ("default" for the unnamed one)."""
        return [name or "default" for name in self._overload_names]

    def __getattr__(self, attr: str) -> OpOverload:
        if attr.startswith("__"):
            raise AttributeError(attr)
        overload = "" if attr == "default" else attr
        found = self._registry.overloads(self._qualified_op_name).get(overload)
        if found is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{attr}'")
        schema_text, tags = found
        op = OpOverload(self, parse_schema(schema_text), tags)
        # Cache on the packet: later lookups are plain attribute reads.
        setattr(self, attr, op)
        return op

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call the first overload that accepts the arguments. Torch: OpOverloadPacket.__call__."""
        types: tuple[type, ...] | None = None
        if not kwargs:
            # Note [Packet resolution by types]: where the overloads before it refuse by the
            # arguments' types alone, the overload the scan below chose for these types last
            # time (None: these types need the scan). If its binder only validates types, the
            # arguments go in as they are, with the omitted ones' defaults (`tail`: what
            # call_validated would add, decided once); else it binds them (converting values,
            # `1` to `[1]` for an int[] dim), and a refusal sends the call to the scan as before.
            types = tuple(map(type, args))
            chosen = self._by_types.get(types)
            if chosen is not None:
                op, tail = chosen
                if tail is not None:
                    if args and isinstance(args[0], TensorImpl) and op._entry.specializable:
                        # The same call, through the specialized calls (Note [Specialized
                        # calls]): torch.exp(x), x.mul(y).
                        return op.call_checked(args)
                    # Note [Shared keyword defaults] (call_bound): the defaults dict itself.
                    return op.call_bound(args + tail if tail else args, op._binder._kw_defaults)
                try:
                    bound_args, bound_kwargs = op._binder.bind(args, kwargs)
                except SchemaMatchError:
                    pass
                else:
                    return op.call_bound(bound_args, bound_kwargs)
            elif types in self._by_types:
                types = None
        if not self._resolution:
            self._resolution = tuple(getattr(self, name) for name in self.overloads())
        reasons: list[SchemaMatchError] = []
        for op in self._resolution:
            try:
                bound_args, bound_kwargs = op._binder.bind(args, kwargs)
            except SchemaMatchError as mismatch:
                reasons.append(mismatch)
                continue
            if types is not None and len(self._by_types) < 64:
                self._by_types[types] = self._decided_by_types(op, len(args))
            return op.call_bound(bound_args, bound_kwargs)
        raise match_failure(reasons)

    def _decided_by_types(
        self, chosen: OpOverload, n_args: int
    ) -> tuple[OpOverload, tuple[Any, ...] | None] | None:
        """For positional arguments only: (`chosen`, the default values of the positional
        arguments the call omits if its binder only validates the given ones, else None) if
        the scan's choice follows from the arguments' types (every binder before it refuses
        by types alone), else None."""
        for op in self._resolution:
            if op is chosen:
                binder = op._binder
                if binder.validates_types_only(n_args) and binder.completes(n_args):
                    return op, binder._default_tails[n_args]
                return op, None
            if not op._binder.validates_types_only(n_args):
                return None
        return None

    def resolve(self, *args: Any, **kwargs: Any) -> OpOverload:
        """The overload a call with these arguments binds to (no call is made)."""
        if not self._resolution:
            self._resolution = tuple(getattr(self, name) for name in self.overloads())
        reasons: list[SchemaMatchError] = []
        for op in self._resolution:
            try:
                op._binder.bind(args, kwargs)
            except SchemaMatchError as mismatch:
                reasons.append(mismatch)
                continue
            return op
        raise match_failure(reasons)

    def __str__(self) -> str:
        return self._qualified_op_name.replace("::", ".")

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self}')>"


class OpNamespace:
    """`refimpl.ops.aten`: the packets of one namespace. Torch: torch._ops._OpNamespace."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        packet = SCHEMAS.packet(f"{self.name}::{op_name}")
        # Python's protocol probes (__deepcopy__, ...) are not ops; aten's __and__,
        # __lshift__, ... are (torch.ops.aten.__and__ exists).
        if packet is None and op_name.startswith("__"):
            raise AttributeError(op_name)
        if packet is None:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'"
            )
        # Cache on the namespace: later lookups are plain attribute reads.
        setattr(self, op_name, packet)
        return packet

    def __repr__(self) -> str:
        return f"<refimpl.ops.{self.name}>"


_NAMESPACES: dict[str, OpNamespace] = {}


def namespace(name: str) -> OpNamespace:
    """The namespace object `refimpl.ops.<name>`."""
    found = _NAMESPACES.get(name)
    if found is None:
        found = OpNamespace(name)
        _NAMESPACES[name] = found
    return found
