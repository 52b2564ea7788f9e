"""The pytree node registry: which types are containers, and how each comes apart and back.

Torch: the registry half of torch.utils._pytree (SUPPORTED_NODES, register_pytree_node, the
built-in nodes, key entries). A type in SUPPORTED_NODES is a node: tuple, list, dict,
namedtuple, OrderedDict, defaultdict, deque, refimpl.Size, refimpl.return_types, and what users
register; anything else is a leaf, None included. refimpl/_base/pytree.py holds TreeSpec and
the tree functions over this registry; refimpl.utils._pytree is the public module.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple, Protocol, TypeAlias

from refimpl._base.size import Size

Context: TypeAlias = Any
PyTree: TypeAlias = Any
FlattenFn: TypeAlias = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFn: TypeAlias = Callable[[Iterable[Any], Context], PyTree]
DumpableContext: TypeAlias = Any
ToDumpableContextFn: TypeAlias = Callable[[Context], DumpableContext]
FromDumpableContextFn: TypeAlias = Callable[[DumpableContext], Context]
IsLeafFn: TypeAlias = Callable[[PyTree], bool] | None


class KeyEntry(Protocol):
    """One step of a key path: how a child is reached from its parent. Torch: KeyEntry."""

    def __hash__(self) -> int: ...

    def __eq__(self, other: object) -> bool: ...

    def __str__(self) -> str: ...

    def get(self, parent: Any) -> Any: ...


KeyPath: TypeAlias = tuple[KeyEntry, ...]
FlattenWithKeysFn: TypeAlias = Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Any]]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL: Final = 1
NO_SERIALIZED_TYPE_NAME_FOUND: Final = "NO_SERIALIZED_TYPE_NAME_FOUND"


# --- the registry --------------------------------------------------------------------------


class NodeDef(NamedTuple):
    """How one node type comes apart and goes back together. Torch: NodeDef (a NamedTuple
    there too, so code that unpacks SUPPORTED_NODES' values ports)."""

    type: Any
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    """How one node type is named and its context written in treespec_dumps' JSON."""

    typ: Any
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


# The registries torch keeps, under its names. Keys are types, except `collections.namedtuple`
# (the function), which stands for every namedtuple class. See _get_node_type.
_NODE_REGISTRY_LOCK: Final = threading.RLock()
SUPPORTED_NODES: Final[dict[Any, NodeDef]] = {}
SUPPORTED_SERIALIZED_TYPES: Final[dict[Any, _SerializeNodeDef]] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: Final[dict[str, Any]] = {}
CONSTANT_NODES: Final[set[type[Any]]] = set()


def register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Register a container type as a pytree node; a type registers once.

    Torch: torch.utils._pytree.register_pytree_node. `flatten_fn(node)` returns
    (children, context), `unflatten_fn(children, context)` rebuilds the node, and
    `flatten_with_keys_fn(node)` returns ([(key entry, child), ...], context) for key paths.
    """
    # Differs: torch also registers the type with its C++ pytree (optree) when that is
    # installed; refimpl has one pytree.
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    to_str_fn: Callable[..., str] | None = None,
    maybe_from_str_fn: Callable[..., Any] | None = None,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """The deprecated spelling of register_pytree_node, which may re-register (with a warning).

    Torch: torch.utils._pytree._register_pytree_node (deprecated with a FutureWarning).
    """
    warnings.warn(
        "`torch.utils._pytree._register_pytree_node` is deprecated. "
        "Please use `torch.utils._pytree.register_pytree_node` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning,
            stacklevel=2,
        )
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _private_register_pytree_node(
    cls: Any,
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Write a node type into the registries; overwriting warns. Torch: the function of this
    name, which register_pytree_node and the built-in registrations go through."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(
                f"{cls} is already registered as pytree node. "
                "Overwriting the previous registration.",
                stacklevel=2,
            )
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(
                f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                "be None or registered."
            )
        name = serialized_type_name
        if name is None:
            name = NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, name, to_dumpable_context, from_dumpable_context
        )
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _deregister_pytree_node(cls: type[Any]) -> None:
    """Remove a node type from the registries. Torch: _deregister_pytree_node (internal)."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        serialize_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[serialize_def.serialized_type_name]
        CONSTANT_NODES.discard(cls)


@dataclasses.dataclass(frozen=True, slots=True)
class ConstantNode:
    """The context of a register_constant node: the constant itself. Torch: ConstantNode."""

    value: Any


def register_constant(cls: type[Any]) -> None:
    """Register a hashable type whose instances are nodes with no children (their value is
    kept in the spec). Torch: torch.utils._pytree.register_constant."""
    # typeshed types object.__eq__ and a class's __eq__ differently; the identity test is torch's.
    if cls.__eq__ is object.__eq__:  # type: ignore[comparison-overlap]
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__eq__` implementation."
        )
    # A class that defines __eq__ without __hash__ gets __hash__ = None.
    if cls.__hash__ is None:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__hash__` implementation."
        )
    with _NODE_REGISTRY_LOCK:
        _private_register_pytree_node(
            cls,
            lambda node: ([], ConstantNode(node)),
            lambda children, context: context.value,
            flatten_with_keys_fn=lambda node: ([], ConstantNode(node)),
        )
        CONSTANT_NODES.add(cls)


def is_constant_class(cls: type[Any]) -> bool:
    """Whether `cls` was registered by register_constant. Torch: is_constant_class."""
    return isinstance(cls, type) and cls in CONSTANT_NODES


def register_dataclass(
    cls: type[Any],
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Register a dataclass (or a class built from keyword fields) as a node whose children
    are its non-None fields. Torch: torch.utils._pytree.register_dataclass."""
    dropped = set(drop_field_names or [])
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError(
                "field_names must be specified with a list of all fields used to "
                f"initialize {cls}, as it is not a dataclass."
            )
    elif field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    else:
        init_fields = {f.name for f in dataclasses.fields(cls) if f.init} - dropped
        if init_fields != set(field_names):
            message = "field_names does not include all dataclass fields.\n"
            if missing := init_fields - set(field_names):
                message += (
                    f"Missing fields in `field_names`: {missing}. If you want "
                    "to include these fields in the pytree, please add them "
                    "to `field_names`, otherwise please add them to "
                    "`drop_field_names`.\n"
                )
            if unexpected := set(field_names) - init_fields:
                message += (
                    f"Unexpected fields in `field_names`: {unexpected}. "
                    "Please remove these fields, or add them to `drop_field_names`.\n"
                )
            raise ValueError(message)
    names = list(field_names)

    def flatten(node: Any) -> tuple[list[Any], Context]:
        # None fields are kept in the context, not as leaves, as torch does.
        present = [name for name in names if getattr(node, name) is not None]
        absent = [name for name in names if getattr(node, name) is None]
        return [getattr(node, name) for name in present], [present, absent]

    def unflatten(values: Iterable[Any], context: Context) -> Any:
        present, absent = context
        return cls(**dict(zip(present, values, strict=True)), **dict.fromkeys(absent))

    def flatten_with_keys(node: Any) -> tuple[list[tuple[KeyEntry, Any]], Context]:
        values, (present, _) = flatten(node)
        return [(GetAttrKey(k), v) for k, v in zip(present, values, strict=True)], present

    _private_register_pytree_node(
        cls,
        flatten,
        unflatten,
        serialized_type_name=serialized_type_name,
        flatten_with_keys_fn=flatten_with_keys,
    )


# --- key entries ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """A child reached by position, printed `[0]`. Torch: SequenceKey."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Sequence[Any]) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    """A child reached by a mapping key, printed `['a']`. Torch: MappingKey."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Mapping[Any, Any]) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """A child reached as an attribute, printed `.name`. Torch: GetAttrKey."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: KeyPath) -> str:
    """A key path printed as its entries one after another: `['a'][0].x`. Torch: keystr."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """The value a key path reaches from `obj`. Torch: key_get."""
    for k in kp:
        obj = k.get(obj)
    return obj


# --- namedtuples and structseqs -------------------------------------------------------------


def is_namedtuple_class(cls: type) -> bool:
    """Whether `cls` is a namedtuple class: a tuple with str `_fields`, `_make` and `_asdict`.

    Torch: is_namedtuple_class (after optree's typing.is_namedtuple_class).
    """
    if not (isinstance(cls, type) and issubclass(cls, tuple)):
        return False
    fields = getattr(cls, "_fields", None)
    return (
        isinstance(fields, tuple)
        and all(type(field) is str for field in fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple(obj: object) -> bool:
    """Whether `obj` is a namedtuple class or instance. Torch: is_namedtuple."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj: object) -> bool:
    """Whether `obj` is a namedtuple instance. Torch: is_namedtuple_instance."""
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls: type) -> bool:
    """Whether `cls` is a struct sequence: a tuple class with int `n_fields`,
    `n_sequence_fields` and `n_unnamed_fields` (time.struct_time, refimpl.return_types.max).

    Torch: is_structseq_class (after optree's). CPython's structseqs derive from tuple directly
    and cannot be subclassed; torch checks that too.
    """
    # Differs: refimpl's return types are Python subclasses of StructSeq
    # (refimpl/api/return_types.py), so the direct-base and no-subclassing checks are left out.
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and cls is not tuple
        and isinstance(getattr(cls, "n_fields", None), int)
        and isinstance(getattr(cls, "n_sequence_fields", None), int)
        and isinstance(getattr(cls, "n_unnamed_fields", None), int)
    )


def is_structseq(obj: object) -> bool:
    """Whether `obj` is a struct sequence class or instance. Torch: is_structseq."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj: object) -> bool:
    """Whether `obj` is a struct sequence instance. Torch: is_structseq_instance."""
    return is_structseq_class(type(obj))


def pytree_register_structseq(cls: type[Any]) -> None:
    """Register a return type (`refimpl.return_types.max`) as a node of its fields, built back
    with `cls(values)`. Torch: torch.return_types.pytree_register_structseq, run there for
    every return type at import; refimpl/api/return_types.py runs it as it makes each type.
    """
    register_pytree_node(
        cls,
        lambda node: (list(node), None),
        lambda values, context: cls(values),
        flatten_with_keys_fn=lambda node: ([(SequenceKey(i), v) for i, v in enumerate(node)], None),
    )


# --- the built-in nodes ---------------------------------------------------------------------


def _sequence_keys(values: Iterable[Any]) -> list[tuple[KeyEntry, Any]]:
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _mapping_keys(keys: Iterable[Any], values: Iterable[Any]) -> list[tuple[KeyEntry, Any]]:
    return [(MappingKey(k), v) for k, v in zip(keys, values, strict=True)]


def _namedtuple_serialize(context: Context) -> DumpableContext:
    # torch: _namedtuple_serialize; a namedtuple class is written by its registered name.
    serialize_def = SUPPORTED_SERIALIZED_TYPES.get(context)
    if serialize_def is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "didn't register a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    if serialize_def.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we "
            "couldn't find a serializated_type_name. Please register using "
            "`_register_namedtuple`."
        )
    return serialize_def.serialized_type_name


def _namedtuple_deserialize(dumpable_context: DumpableContext) -> Context:
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} "
            "because we couldn't find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _defaultdict_serialize(context: Context) -> DumpableContext:
    default_factory, keys = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": keys,
    }


def _defaultdict_deserialize(dumpable_context: DumpableContext) -> Context:
    module = importlib.import_module(dumpable_context["default_factory_module"])
    factory = getattr(module, dumpable_context["default_factory_name"])
    return [factory, dumpable_context["dict_context"]]


def _namedtuple_flatten_with_keys(node: Any) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    pairs: list[tuple[KeyEntry, Any]] = [
        (GetAttrKey(field), v) for field, v in zip(type(node)._fields, node, strict=True)
    ]
    return pairs, type(node)


def _register_namedtuple(cls: type[Any], *, serialized_type_name: str) -> None:
    """Give a namedtuple class a name so that specs holding it serialize. Torch: the function
    of this name."""
    _private_register_pytree_node(
        cls,
        lambda node: (list(node), type(node)),
        lambda values, context: context(*values),
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _BuiltinNode:
    """One row of the built-in node table: a type, its three functions, its JSON name."""

    type: Any
    flatten: FlattenFn
    unflatten: UnflattenFn
    flatten_with_keys: FlattenWithKeysFn
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None = None
    from_dumpable_context: FromDumpableContextFn | None = None


# torch: the _private_register_pytree_node calls after _deque_unflatten in
# torch/utils/_pytree.py, in the same order (SUPPORTED_NODES keeps it). A dict's context is its
# keys in insertion order; a defaultdict's is [default_factory, keys]; a namedtuple's is its
# class; a deque's is its maxlen; tuple and list have none.
_BUILTIN_NODES: Final = (
    _BuiltinNode(
        tuple,
        lambda node: (list(node), None),
        lambda values, context: tuple(values),
        lambda node: (_sequence_keys(node), None),
        "builtins.tuple",
    ),
    _BuiltinNode(
        list,
        lambda node: (node, None),
        lambda values, context: list(values),
        lambda node: (_sequence_keys(node), None),
        "builtins.list",
    ),
    _BuiltinNode(
        dict,
        lambda node: (list(node.values()), list(node.keys())),
        lambda values, context: dict(zip(context, values, strict=True)),
        lambda node: (_mapping_keys(node.keys(), node.values()), list(node.keys())),
        "builtins.dict",
    ),
    _BuiltinNode(
        namedtuple,
        lambda node: (list(node), type(node)),
        lambda values, context: context(*values),
        _namedtuple_flatten_with_keys,
        "collections.namedtuple",
        _namedtuple_serialize,
        _namedtuple_deserialize,
    ),
    _BuiltinNode(
        OrderedDict,
        lambda node: (list(node.values()), list(node.keys())),
        lambda values, context: OrderedDict(zip(context, values, strict=True)),
        lambda node: (_mapping_keys(node.keys(), node.values()), list(node.keys())),
        "collections.OrderedDict",
    ),
    _BuiltinNode(
        defaultdict,
        lambda node: (list(node.values()), [node.default_factory, list(node.keys())]),
        lambda values, context: defaultdict(context[0], zip(context[1], values, strict=True)),
        lambda node: (
            _mapping_keys(node.keys(), node.values()),
            [node.default_factory, list(node.keys())],
        ),
        "collections.defaultdict",
        _defaultdict_serialize,
        _defaultdict_deserialize,
    ),
    _BuiltinNode(
        deque,
        lambda node: (list(node), node.maxlen),
        lambda values, context: deque(values, maxlen=context),
        lambda node: (_sequence_keys(node), node.maxlen),
        "collections.deque",
    ),
    # torch: registered by torch/fx/experimental/proxy_tensor.py, which `import torch` loads;
    # a Size is built back as a plain tuple there.
    _BuiltinNode(
        Size,
        lambda node: (list(node), None),
        lambda values, context: tuple(values),
        lambda node: (_sequence_keys(node), None),
        "torch.Size",
    ),
)

for _row in _BUILTIN_NODES:
    _private_register_pytree_node(
        _row.type,
        _row.flatten,
        _row.unflatten,
        serialized_type_name=_row.serialized_type_name,
        to_dumpable_context=_row.to_dumpable_context,
        from_dumpable_context=_row.from_dumpable_context,
        flatten_with_keys_fn=_row.flatten_with_keys,
    )

STANDARD_DICT_TYPES: Final[frozenset[Any]] = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES: Final[frozenset[Any]] = frozenset(
    {tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque}
)


def _get_node_type(tree: Any) -> Any:
    # torch: _get_node_type. Every namedtuple class is the one node type `namedtuple` (its class
    # is the context), even one registered on its own.
    node_type = type(tree)
    if node_type is not tuple and issubclass(node_type, tuple) and is_namedtuple_class(node_type):
        return namedtuple
    return node_type


def tree_is_leaf(tree: PyTree, is_leaf: IsLeafFn = None) -> bool:
    """Whether `tree` is a leaf: `is_leaf(tree)` says so, or its type is not a node.

    Torch: tree_is_leaf. None is a leaf, not an empty node.
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES
