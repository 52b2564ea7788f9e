"""Pytrees: nested containers flattened into leaves and a TreeSpec, built back, and mapped over.

Torch: torch.utils._pytree (the Python pytree; torch.utils._cxx_pytree, over optree, behaves
the same). Flattening walks a tree depth-first, children in their node's order (a dict's
insertion order, not sorted keys), asks `is_leaf(node)` first at every node if given, and
records each node's type, context and children in a TreeSpec; unflattening walks the spec.
Which types are nodes is refimpl/_base/pytree_nodes.py's registry, re-exported here.

It sits in _base so that every layer (dispatch modes, autograd, the API) can take arguments
apart and put them back with it. The public module is refimpl.utils._pytree.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import types
import warnings
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import Enum
from typing import Any, Final

from refimpl._base.pytree_nodes import (
    BUILTIN_TYPES,
    CONSTANT_NODES,
    DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL,
    NO_SERIALIZED_TYPE_NAME_FOUND,
    SERIALIZED_TYPE_TO_PYTHON_TYPE,
    STANDARD_DICT_TYPES,
    SUPPORTED_NODES,
    SUPPORTED_SERIALIZED_TYPES,
    ConstantNode,
    Context,
    DumpableContext,
    FlattenFn,
    FlattenWithKeysFn,
    FromDumpableContextFn,
    GetAttrKey,
    IsLeafFn,
    KeyEntry,
    KeyPath,
    MappingKey,
    NodeDef,
    PyTree,
    SequenceKey,
    ToDumpableContextFn,
    UnflattenFn,
    _deregister_pytree_node,
    _get_node_type,
    _private_register_pytree_node,
    _register_namedtuple,
    _register_pytree_node,
    is_constant_class,
    is_namedtuple,
    is_namedtuple_class,
    is_namedtuple_instance,
    is_structseq,
    is_structseq_class,
    is_structseq_instance,
    key_get,
    keystr,
    pytree_register_structseq,
    register_constant,
    register_dataclass,
    register_pytree_node,
    tree_is_leaf,
)

__all__ = [
    "BUILTIN_TYPES", "CONSTANT_NODES", "DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL",
    "NO_SERIALIZED_TYPE_NAME_FOUND", "SERIALIZED_TYPE_TO_PYTHON_TYPE", "STANDARD_DICT_TYPES",
    "SUPPORTED_NODES", "SUPPORTED_SERIALIZED_TYPES", "ConstantNode", "Context",
    "DumpableContext", "FlattenFn", "FlattenWithKeysFn", "FromDumpableContextFn", "GetAttrKey",
    "KeyEntry", "KeyPath", "LeafSpec", "MappingKey", "NodeDef", "PyTree", "PyTreeSpec",
    "SequenceKey", "ToDumpableContextFn", "TreeSpec", "UnflattenFn",
    "_broadcast_to_and_flatten", "_deregister_pytree_node", "_private_register_pytree_node",
    "_register_namedtuple", "_register_pytree_node", "arg_tree_leaves", "is_constant_class",
    "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "is_structseq",
    "is_structseq_class", "is_structseq_instance", "key_get", "keystr", "map_only",
    "pytree_register_structseq", "register_constant", "register_dataclass",
    "register_pytree_node", "tree_all", "tree_all_only", "tree_any", "tree_any_only",
    "tree_flatten", "tree_flatten_with_path", "tree_is_leaf", "tree_iter", "tree_leaves",
    "tree_leaves_with_path", "tree_map", "tree_map_", "tree_map_only", "tree_map_only_",
    "tree_map_with_path", "tree_structure", "tree_unflatten", "treespec_dict",
    "treespec_dumps", "treespec_leaf", "treespec_loads", "treespec_pprint", "treespec_tuple",
]


# --- TreeSpec --------------------------------------------------------------------------------


class TreeSpec:
    """The structure of a pytree: its root's node type and context, and a spec per child.

    Torch: torch.utils._pytree.TreeSpec (a frozen dataclass there). A leaf is the spec with
    type None, no context and no children; `num_nodes` counts leaves as nodes.
    """

    __slots__ = ("_children", "_context", "num_children", "num_leaves", "num_nodes", "type")

    type: Any
    _context: Context
    _children: list[TreeSpec]
    num_nodes: int
    num_leaves: int
    num_children: int

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        if type is None:
            # torch: TreeSpec.__post_init__
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(children_specs) != 0:
                raise AssertionError("leaf node should not have children")
        num_nodes = 1
        num_leaves = 1 if type is None else 0
        for child in children_specs:
            num_nodes += child.num_nodes
            num_leaves += child.num_leaves
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_children", children_specs)
        object.__setattr__(self, "num_nodes", num_nodes)
        object.__setattr__(self, "num_leaves", num_leaves)
        object.__setattr__(self, "num_children", len(children_specs))

    def __setattr__(self, name: str, value: Any) -> None:
        # A spec is frozen: torch's is a dataclass(frozen=True), whose error this is.
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies and pickles are built through __init__, since fields cannot be assigned.
        return TreeSpec, (self.type, self._context, self._children)

    def __repr__(self, indent: int = 0) -> str:
        # torch: TreeSpec.__repr__. The first child follows "[", each later one starts a line
        # indented two more than its parent's.
        inner = indent + 2
        children = (",\n" + " " * inner).join(child.__repr__(inner) for child in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec) or other.__class__ is not self.__class__:
            return NotImplemented
        # torch compares the types by their str, so equal-named types from reloads match.
        return (
            str(self.type) == str(other.type)
            and self._context == other._context
            and self._children == other._children
        )

    def __hash__(self) -> int:
        # torch: TreeSpec.__hash__. Contexts of user node types may be unhashable; they are
        # left out of the hash, which equal specs still share.
        node_type, context = self.type, self._context
        hashable: Any = None
        if node_type is defaultdict:
            hashable = (context[0], tuple(context[1]))
        elif node_type in (dict, OrderedDict):
            hashable = tuple(context)
        elif node_type is None or node_type in BUILTIN_TYPES:
            hashable = context
        elif isinstance(context, ConstantNode):
            hashable = context.value
        return hash((node_type, hashable, tuple(self._children)))

    @property
    def context(self) -> Context:
        """The root node's context (a dict's keys, a namedtuple's class, ...)."""
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        """The children's specs (deprecated in torch: use children() or child(i))."""
        warnings.warn(
            "`treespec.children_specs` is deprecated. "
            "Use `treespec.child(index)` to access a single child, "
            "or `treespec.children()` to get all children.",
            FutureWarning,
            stacklevel=2,
        )
        return self._children

    def is_leaf(self) -> bool:
        """Whether the spec is a single leaf. Torch: TreeSpec.is_leaf."""
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list[TreeSpec]:
        """A copy of the list of the children's specs. Torch: TreeSpec.children."""
        return self._children.copy()

    def child(self, index: int) -> TreeSpec:
        """The spec of child `index`. Torch: TreeSpec.child."""
        return self._children[index]

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of `tree` at this spec's leaves; `tree` must have this spec's nodes.

        Torch: TreeSpec.flatten_up_to. Custom node types must match exactly, context too;
        built-in ones by type, arity and context, except that dict, OrderedDict and
        defaultdict stand in for each other when their keys match (in the spec's key order),
        and a deque's maxlen is not compared.
        """
        subtrees: list[PyTree] = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node: PyTree, subtrees: list[PyTree]) -> None:
        if self.is_leaf():
            subtrees.append(node)
            return
        node_type = _get_node_type(node)
        if self.type not in BUILTIN_TYPES:
            if node_type != self.type:
                raise ValueError(
                    f"Type mismatch; expected {self.type!r}, but got {node_type!r}.",
                )
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(
                    f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.",
                )
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
            if not both_dicts and node_type != self.type:
                raise ValueError(
                    f"Node type mismatch; expected {self.type!r}, but got {node_type!r}.",
                )
            if len(node) != self.num_children:
                raise ValueError(
                    f"Node arity mismatch; expected {self.num_children}, but got {len(node)}.",
                )
            if both_dicts:
                # A defaultdict's context is [default_factory, keys]; the factory may differ.
                keys = self._context[1] if self.type is defaultdict else self._context
                _check_same_keys(set(keys), set(node))
                children = [node[key] for key in keys]
            else:
                children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
                if node_type is not deque and context != self._context:
                    raise ValueError(
                        f"Node context mismatch for node type {self.type!r}; "
                        f"expected {self._context!r}, but got {context!r}.",
                    )
        for child, spec in zip(children, self._children, strict=True):
            spec._flatten_up_to(child, subtrees)

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this structure holding `leaves` in order. Torch: TreeSpec.unflatten."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                f"but the spec refers to a pytree that holds {self.num_leaves} "
                f"items ({self}).",
            )
        return self._unflatten(leaves, 0)

    def _unflatten(self, leaves: list[Any] | tuple[Any, ...], start: int) -> PyTree:
        if self.is_leaf():
            return leaves[start]
        children = []
        for spec in self._children:
            children.append(spec._unflatten(leaves, start))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


def _check_same_keys(expected: set[Any], got: set[Any]) -> None:
    # torch: the dict branch of TreeSpec.flatten_up_to.
    if got == expected:
        return
    message = ""
    if missing := expected - got:
        message += f"; missing key(s): {missing}"
    if extra := got - expected:
        message += f"; extra key(s): {extra}"
    raise ValueError(f"Node keys mismatch{message}.")


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf, printed `*` (deprecated in torch: test `spec.is_leaf()`).

    Torch: torch.utils._pytree.LeafSpec; making one warns with a FutureWarning.
    """

    __slots__ = ()

    def __init__(self) -> None:
        warnings.warn(
            "`isinstance(treespec, LeafSpec)` is deprecated, "
            "use `isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(None, None, [])

    def __reduce__(self) -> tuple[Any, ...]:
        return treespec_leaf, ()

    def __repr__(self, indent: int = 0) -> str:
        return "*"


# Every leaf shares one spec, as in torch.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _LEAF_SPEC: Final = LeafSpec()


def treespec_leaf() -> TreeSpec:
    """The spec of a leaf. Torch: treespec_leaf."""
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    """The spec of a tuple of these children. Torch: treespec_tuple."""
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (),
    /,
    **kwargs: TreeSpec,
) -> TreeSpec:
    """The spec of a dict of these children. Torch: treespec_dict."""
    items = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in items.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {items!r}.")
    return TreeSpec(dict, list(items.keys()), list(items.values()))


# --- flatten and unflatten -------------------------------------------------------------------


def tree_flatten(tree: PyTree, is_leaf: IsLeafFn = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of `tree`, depth-first, and its spec. Torch: tree_flatten."""
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, is_leaf, leaves)


def _flatten_into(node: PyTree, is_leaf: IsLeafFn, leaves: list[Any]) -> TreeSpec:
    # tree_is_leaf, written out so that the node type is looked up once.
    node_type = _get_node_type(node)
    node_def = SUPPORTED_NODES.get(node_type)
    if (is_leaf is not None and is_leaf(node)) or node_def is None:
        leaves.append(node)
        return _LEAF_SPEC
    children, context = node_def.flatten_fn(node)
    return TreeSpec(node_type, context, [_flatten_into(c, is_leaf, leaves) for c in children])


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The pytree of structure `treespec` holding `leaves`; the arguments may come swapped.

    Torch: tree_unflatten.
    """
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(
                f"Expected `treespec` to be an instance of "
                f"PyTreeSpec but got item of type {type(treespec)}."
            )
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: IsLeafFn = None) -> Iterator[Any]:
    """The leaves of `tree`, one at a time. Torch: tree_iter."""
    node_def = SUPPORTED_NODES.get(_get_node_type(tree))
    if (is_leaf is not None and is_leaf(tree)) or node_def is None:
        yield tree
        return
    children, _ = node_def.flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: IsLeafFn = None) -> list[Any]:
    """The leaves of `tree` in a list. Torch: tree_leaves."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: IsLeafFn = None) -> TreeSpec:
    """The spec of `tree`. Torch: tree_structure."""
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of every argument, positional then keyword. Torch: arg_tree_leaves."""
    leaves: list[Any] = []
    for arg in (*args, *kwargs.values()):
        leaves.extend(tree_iter(arg))
    return leaves


# --- map -------------------------------------------------------------------------------------


def tree_map(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeafFn = None
) -> PyTree:
    """A pytree of `tree`'s structure holding `func(leaf, *matching subtrees of rests)`.

    Torch: tree_map. Each of `rests` must have `tree`'s structure as a prefix (flatten_up_to).
    """
    leaves, treespec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(map(func, *flat_args))


def tree_map_(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeafFn = None
) -> PyTree:
    """Call `func` on the leaves as tree_map does, for its effects; return `tree`.

    Torch: tree_map_.
    """
    leaves, treespec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    for args in zip(*flat_args, strict=False):
        func(*args)
    return tree


TypeAny = type[Any] | tuple[type[Any], ...] | types.UnionType


def map_only(
    type_or_types_or_pred: TypeAny | Callable[[Any], bool], /
) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """A decorator: apply the function to values of these types (or passing this predicate)
    and return other values unchanged. Torch: map_only."""
    pred: Callable[[Any], bool]
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        types_ = type_or_types_or_pred

        def pred(x: Any) -> bool:
            return isinstance(x, types_)

    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        @functools.wraps(func)
        def wrapped(x: Any) -> Any:
            return func(x) if pred(x) else x

        return wrapped

    return wrapper


def tree_map_only(
    type_or_types_or_pred: TypeAny | Callable[[Any], bool],
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: IsLeafFn = None,
) -> PyTree:
    """tree_map of `func` over the leaves of these types only. Torch: tree_map_only."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(
    type_or_types_or_pred: TypeAny | Callable[[Any], bool],
    /,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: IsLeafFn = None,
) -> PyTree:
    """tree_map_ of `func` over the leaves of these types only. Torch: tree_map_only_."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeafFn = None) -> bool:
    """Whether `pred` holds for every leaf. Torch: tree_all."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeafFn = None) -> bool:
    """Whether `pred` holds for some leaf. Torch: tree_any."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(
    type_or_types: TypeAny,
    /,
    pred: Callable[[Any], bool],
    tree: PyTree,
    is_leaf: IsLeafFn = None,
) -> bool:
    """Whether `pred` holds for every leaf of these types. Torch: tree_all_only."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(
    type_or_types: TypeAny,
    /,
    pred: Callable[[Any], bool],
    tree: PyTree,
    is_leaf: IsLeafFn = None,
) -> bool:
    """Whether `pred` holds for some leaf of these types. Torch: tree_any_only."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(
    tree: PyTree, treespec: TreeSpec, is_leaf: IsLeafFn = None
) -> list[Any] | None:
    """`tree`'s leaves repeated over the leaves of `treespec` they are a prefix of, or None
    when `tree` is not a prefix (vmap's in_dims). Torch: _broadcast_to_and_flatten."""
    full_tree = treespec.unflatten([0] * treespec.num_leaves)
    result: list[Any] = []

    def add_leaves(x: Any, subtree: PyTree) -> None:
        result.extend([x] * tree_structure(subtree, is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        return None
    return result


# --- key paths -------------------------------------------------------------------------------


def tree_flatten_with_path(
    tree: PyTree, is_leaf: IsLeafFn = None
) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """(key path, leaf) pairs and the spec of `tree`. Torch: tree_flatten_with_path.

    As in torch, the tree is walked twice (spec, then paths), so `is_leaf` sees each node twice.
    """
    _, treespec = tree_flatten(tree, is_leaf)
    return list(_key_paths((), tree, is_leaf)), treespec


def tree_leaves_with_path(tree: PyTree, is_leaf: IsLeafFn = None) -> list[tuple[KeyPath, Any]]:
    """(key path, leaf) pairs of `tree`. Torch: tree_leaves_with_path."""
    return list(_key_paths((), tree, is_leaf))


def _key_paths(path: KeyPath, tree: PyTree, is_leaf: IsLeafFn) -> Iterator[tuple[KeyPath, Any]]:
    # torch: _generate_key_paths
    if is_leaf is not None and is_leaf(tree):
        yield path, tree
        return
    node_type = _get_node_type(tree)
    node_def = SUPPORTED_NODES.get(node_type)
    if node_def is None:
        yield path, tree
        return
    if node_def.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    keyed_children, _ = node_def.flatten_with_keys_fn(tree)
    for key, child in keyed_children:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_map_with_path(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeafFn = None
) -> PyTree:
    """tree_map whose `func` takes the leaf's key path first. Torch: tree_map_with_path."""
    pairs, treespec = tree_flatten_with_path(tree, is_leaf)
    columns = [list(column) for column in zip(*pairs, strict=True)]
    columns += [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(func(*args) for args in zip(*columns, strict=True))


# --- serialization ---------------------------------------------------------------------------


class _EnumEncoder(json.JSONEncoder):
    # torch: EnumEncoder. An Enum context is written as its class and member name.
    def default(self, o: object) -> Any:
        if isinstance(o, Enum):
            cls = o.__class__
            return {"__enum__": True, "fqn": f"{cls.__module__}:{cls.__qualname__}", "name": o.name}
        return super().default(o)


def _enum_object_hook(obj: dict[str, Any]) -> Any:
    if "__enum__" not in obj:
        return obj
    module_name, _, qualname = obj["fqn"].partition(":")
    enum_cls: Any = importlib.import_module(module_name)
    for attr in qualname.split("."):
        enum_cls = getattr(enum_cls, attr)
    return enum_cls[obj["name"]]


def _treespec_to_json(treespec: TreeSpec) -> dict[str, Any]:
    # torch: _treespec_to_json; the keys in _TreeSpecSchema's field order.
    if treespec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    serialize_def = SUPPORTED_SERIALIZED_TYPES.get(treespec.type)
    if serialize_def is None:
        raise NotImplementedError(f"Serializing {treespec.type} in pytree is not registered.")
    if serialize_def.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {treespec.type} found. "
            "Please update your _register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if serialize_def.to_dumpable_context is None:
        try:
            context = json.dumps(treespec._context, cls=_EnumEncoder)
        except TypeError as error:
            raise TypeError(
                "Unable to serialize context. "
                "Please make the context json dump-able, or register a "
                "custom serializer using _register_pytree_node."
            ) from error
    else:
        context = serialize_def.to_dumpable_context(treespec._context)
    return {
        "type": serialize_def.serialized_type_name,
        "context": context,
        "children_spec": [_treespec_to_json(child) for child in treespec._children],
    }


def _json_to_treespec(schema: dict[str, Any]) -> TreeSpec:
    # torch: _json_to_treespec
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    node_type = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    serialize_def = SUPPORTED_SERIALIZED_TYPES[node_type]
    if serialize_def.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"], object_hook=_enum_object_hook)
        except TypeError as error:
            raise TypeError(
                "Unable to deserialize context. "
                "Please make the context json load-able, or register a "
                "custom serializer using _register_pytree_node.",
            ) from error
    else:
        context = serialize_def.from_dumpable_context(schema["context"])
    children = [_json_to_treespec(child) for child in schema["children_spec"]]
    return TreeSpec(node_type, context, children)


# The serialization protocols by number. torch: _SUPPORTED_PROTOCOLS.
_SUPPORTED_PROTOCOLS: Final[
    dict[int, tuple[Callable[[TreeSpec], Any], Callable[[Any], TreeSpec]]]
] = {1: (_treespec_to_json, _json_to_treespec)}


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The spec as a JSON string `[protocol, {type, context, children_spec}]`.

    Torch: treespec_dumps. Every node type on the way needs a serialized type name.
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"Expected `treespec` to be an instance of "
            f"PyTreeSpec but got item of type {type(treespec)}."
        )
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. "
            f"Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}",
        )
    to_json, _ = _SUPPORTED_PROTOCOLS[protocol]
    return json.dumps((protocol, to_json(treespec)), cls=_EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str) -> TreeSpec:
    """The spec a treespec_dumps string describes. Torch: treespec_loads (cached there too)."""
    protocol, schema = json.loads(serialized)
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. "
            f"Available protocols: {list(_SUPPORTED_PROTOCOLS.keys())}",
        )
    _, from_json = _SUPPORTED_PROTOCOLS[protocol]
    return from_json(schema)


class _Asterisk(str):
    # A str whose repr is a bare `*`, to stand for each leaf in treespec_pprint.
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec printed as its pytree with `*` for each leaf: `[*, (*, *)]`.

    Torch: treespec_pprint.
    """
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))
