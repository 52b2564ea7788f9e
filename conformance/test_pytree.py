"""refimpl.utils._pytree against torch.utils._pytree, on the same Python structures.

Hypothesis builds nested lists, tuples, dicts, OrderedDicts, defaultdicts, deques and
namedtuples with int and None leaves; each test runs the same call with both pytree modules
and compares leaves, spec reprs and counts, rebuilt trees (types included), maps, key paths,
the arguments `is_leaf` is called with, JSON specs, and errors (type and text).
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

import hypothesis.strategies as st
import pytest
import torch
import torch.utils._pytree as torch_pytree
from hypothesis import HealthCheck, given, settings

import refimpl
import refimpl.utils._pytree as refimpl_pytree

from ._oracle import outcome

LIBS: Final = (torch_pytree, refimpl_pytree)
SETTINGS: Final = settings(
    derandomize=True, max_examples=150, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

Point = namedtuple("Point", ["x", "y"])
Other = namedtuple("Other", ["x", "y"])
Triple = namedtuple("Triple", ["a", "b", "c"])


# --- the structures ----------------------------------------------------------------------------

_KEYS: Final = st.sampled_from(["a", "b", "c", "d", 0, 1, ("k", 2)])


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    items = st.lists(st.tuples(_KEYS, children), max_size=4)
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        items.map(dict),
        items.map(OrderedDict),
        st.tuples(st.sampled_from([int, list, None]), items).map(lambda fi: defaultdict(*fi)),
        st.tuples(st.lists(children, max_size=4), st.sampled_from([None, 4])).map(
            lambda xs_m: deque(xs_m[0], maxlen=xs_m[1])
        ),
        st.tuples(children, children).map(lambda xy: Point(*xy)),
        st.tuples(children, children, children).map(lambda abc: Triple(*abc)),
    )


LEAVES: Final = st.one_of(st.integers(-50, 50), st.none())
TREES: Final = st.recursive(LEAVES, _containers, max_leaves=12)


def described(x: Any) -> Any:
    """`x` as nested (type, content) records, so two trees compare by type at every level."""
    if isinstance(x, dict):
        factory = getattr(x, "default_factory", "no factory")
        return (type(x), factory, [(k, described(v)) for k, v in x.items()])
    if isinstance(x, deque):
        return (type(x), x.maxlen, [described(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x), [described(v) for v in x])
    return (type(x), x)


@dataclasses.dataclass(frozen=True)
class Raised:
    """An exception as an outcome: its type and text."""

    type: type[BaseException]
    text: str


def in_both(fn: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    """fn(torch's pytree) and fn(refimpl's), each as its result or a Raised."""
    results = []
    for lib in LIBS:
        value, error = outcome(fn, lib)
        results.append(Raised(type(error), str(error)) if error is not None else value)
    return results[0], results[1]


def values_in_both(fn: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    """in_both for calls that torch completes (so a test cannot pass on a shared error)."""
    expected, actual = in_both(fn)
    assert not isinstance(expected, Raised), expected
    return expected, actual


def spec_facts(spec: Any) -> tuple[Any, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return (
            repr(spec), str(spec), spec.num_leaves, spec.num_nodes, spec.num_children,
            spec.is_leaf(), len(spec.children()), len(spec.children_specs), spec.context,
        )


# --- flatten, unflatten, map ------------------------------------------------------------------


@SETTINGS
@given(tree=TREES)
def test_flatten_and_unflatten_match_torch(tree: Any) -> None:
    def flattened(pt: ModuleType) -> Any:
        leaves, spec = pt.tree_flatten(tree)
        rebuilt = pt.tree_unflatten(leaves, spec)
        return (
            described(leaves), spec_facts(spec), described(rebuilt),
            described(pt.tree_leaves(tree)), spec_facts(pt.tree_structure(tree)),
            described(spec.flatten_up_to(tree)), pt.treespec_pprint(spec),
            described(pt.tree_unflatten(spec, leaves)),
        )

    expected, actual = values_in_both(flattened)
    assert actual == expected
    assert expected[2] == described(tree)


@SETTINGS
@given(tree=TREES, other=TREES)
def test_spec_equality_matches_torch(tree: Any, other: Any) -> None:
    def equal(pt: ModuleType) -> Any:
        a, b = pt.tree_structure(tree), pt.tree_structure(other)
        return a == b, a != b, a == pt.tree_structure(tree), hash(a) == hash(pt.tree_structure(tree))

    expected, actual = values_in_both(equal)
    assert actual == expected


def _triple(x: Any) -> Any:
    return None if x is None else 3 * x - 1


@SETTINGS
@given(tree=TREES)
def test_maps_match_torch(tree: Any) -> None:
    def mapped(pt: ModuleType) -> Any:
        doubled = pt.tree_map(_triple, tree)
        seen: list[Any] = []
        pt.tree_map_(seen.append, tree)
        # Each leaf of `tree` is a prefix of a [leaf, (leaf,)] subtree in `wider`.
        wider = pt.tree_map(lambda x: [x, (x,)], tree)
        return (
            described(doubled),
            described(seen),
            described(pt.tree_map(lambda x, y: (x, y), tree, doubled)),
            described(pt.tree_map(lambda x, sub: sub, tree, wider)),
            described(pt.tree_map_only(int, _triple, tree)),
            described(pt.tree_map_only(lambda x: x is None, lambda x: "none", tree)),
            described(pt.tree_map_only_(int, seen.append, tree)),
            pt.tree_all(lambda x: x is None or x % 2 == 0, tree),
            pt.tree_any(lambda x: x is None, tree),
            pt.tree_all_only(int, lambda x: x > 0, tree),
            pt.tree_any_only((int, type(None)), lambda x: x is None, tree),
            described(seen),
        )

    expected, actual = values_in_both(mapped)
    assert actual == expected


@SETTINGS
@given(tree=TREES)
def test_key_paths_match_torch(tree: Any) -> None:
    def paths(pt: ModuleType) -> Any:
        pairs, spec = pt.tree_flatten_with_path(tree)
        return (
            [(pt.keystr(path), repr(path), described(leaf)) for path, leaf in pairs],
            repr(spec),
            [pt.keystr(path) for path, _ in pt.tree_leaves_with_path(tree)],
            [described(pt.key_get(tree, path)) for path, _ in pairs],
            described(pt.tree_map_with_path(lambda p, x: pt.keystr(p) + str(x), tree)),
            described(pt.tree_map_with_path(lambda p, x, y: (x, y), tree, tree)),
        )

    expected, actual = values_in_both(paths)
    assert actual == expected


def _pairs_are_leaves(calls: list[Any]) -> Callable[[Any], bool]:
    def is_leaf(node: Any) -> bool:
        calls.append(described(node))
        return isinstance(node, tuple) and len(node) == 2

    return is_leaf


@SETTINGS
@given(tree=TREES)
def test_is_leaf_sees_what_torch_passes(tree: Any) -> None:
    def called(pt: ModuleType) -> Any:
        calls: list[Any] = []
        is_leaf = _pairs_are_leaves(calls)
        leaves, spec = pt.tree_flatten(tree, is_leaf=is_leaf)
        results = (
            described(leaves), repr(spec),
            described(pt.tree_leaves(tree, is_leaf=is_leaf)),
            described(pt.tree_map(lambda x: 0, tree, is_leaf=is_leaf)),
            [pt.keystr(p) for p, _ in pt.tree_flatten_with_path(tree, is_leaf=is_leaf)[0]],
            pt.tree_all(lambda x: True, tree, is_leaf=is_leaf),
            pt.tree_is_leaf(tree, is_leaf=is_leaf),
        )
        return results, calls

    expected, actual = values_in_both(called)
    assert actual == expected


@SETTINGS
@given(tree=TREES)
def test_json_specs_match_torch(tree: Any) -> None:
    # A namedtuple in the tree fails to serialize in both (it has no registered name).
    def dumped(pt: ModuleType) -> Any:
        text = pt.treespec_dumps(pt.tree_structure(tree))
        loaded = pt.treespec_loads(text)
        return text, repr(loaded), loaded == pt.tree_structure(tree)

    expected, actual = in_both(dumped)
    assert actual == expected


# --- registered node types ---------------------------------------------------------------------


class Pair:
    """A user container registered in both registries, with a dict context."""

    def __init__(self, first: Any, second: Any, tag: str = "t") -> None:
        self.first, self.second, self.tag = first, second, tag

    def __repr__(self) -> str:
        return f"Pair({self.first!r}, {self.second!r}, {self.tag!r})"


class Bare:
    """A user container registered without a flatten_with_keys_fn or serialized name."""

    def __init__(self, items: list[Any], context: Any = None) -> None:
        self.items, self.context = items, context

    def __repr__(self) -> str:
        return f"Bare({self.items!r}, {self.context!r})"


class Scratch:
    """A type each library's deprecated _register_pytree_node registers (twice: a warning)."""


@dataclasses.dataclass(frozen=True)
class Config:
    norm: str


@dataclasses.dataclass
class Record:
    x: Any
    y: Any = None


def _unflatten_pair(values: Any, context: dict[str, str]) -> Pair:
    first, second = values
    return Pair(first, second, context["tag"])


def _register(pt: ModuleType) -> None:
    if Pair in pt.SUPPORTED_NODES:
        return
    pt.register_pytree_node(
        Pair,
        lambda p: ([p.first, p.second], {"tag": p.tag}),
        _unflatten_pair,
        serialized_type_name="test_pytree.Pair",
        flatten_with_keys_fn=lambda p: (
            [(pt.GetAttrKey("first"), p.first), (pt.GetAttrKey("second"), p.second)],
            {"tag": p.tag},
        ),
    )
    pt.register_pytree_node(
        Bare, lambda b: (b.items, b.context), lambda values, context: Bare(list(values), context)
    )
    pt.register_constant(Config)
    pt.register_dataclass(Record, serialized_type_name="test_pytree.Record")


for _lib in LIBS:
    _register(_lib)


USER_TREES: Final = [
    Pair(1, [2, 3]),
    {"p": Pair(Pair(1, 2, "in"), None, "out")},
    [Bare([1, (2, 3)], "ctx")],
    (Config("l2"), 4),
    Record(1, None),
    [Record((1, 2), Point(3, 4))],
]


@pytest.mark.parametrize("tree", USER_TREES, ids=repr)
def test_registered_nodes_match_torch(tree: Any) -> None:
    def flattened(pt: ModuleType) -> Any:
        leaves, spec = pt.tree_flatten(tree)
        rebuilt = pt.tree_unflatten([_triple(x) for x in leaves], spec)
        paths = outcome(lambda lib: [lib.keystr(p) for p, _ in lib.tree_leaves_with_path(tree)], pt)
        dumped = outcome(lambda lib: lib.treespec_dumps(spec), pt)
        return (
            leaves, spec_facts(spec), repr(rebuilt), spec == pt.tree_structure(tree),
            paths[0], type(paths[1]), str(paths[1]), dumped[0], type(dumped[1]), str(dumped[1]),
        )

    expected, actual = values_in_both(flattened)
    assert actual == expected


def _max(lib: ModuleType) -> Any:
    return lib.max(lib.tensor([[1.0, 5.0], [3.0, 2.0]]), 0)


@pytest.mark.parametrize("lib_pair", [(torch, torch_pytree), (refimpl, refimpl_pytree)],
                         ids=["torch", "refimpl"])
def test_return_types_are_nodes(lib_pair: tuple[ModuleType, ModuleType]) -> None:
    lib, pt = lib_pair
    result = _max(lib)
    leaves, spec = pt.tree_flatten(result)
    mapped = pt.tree_map(lambda t: t * 2, result)
    facts = (
        repr(spec), [t.tolist() for t in leaves], type(mapped).__name__, mapped.values.tolist(),
        [pt.keystr(p) for p, _ in pt.tree_leaves_with_path(result)],
        pt.is_structseq(result), pt.is_structseq(type(result)), pt.is_namedtuple(result),
        type(outcome(lambda _: pt.treespec_dumps(spec), pt)[1]),
    )
    torch_result = _max(torch)
    torch_leaves, torch_spec = torch_pytree.tree_flatten(torch_result)
    torch_mapped = torch_pytree.tree_map(lambda t: t * 2, torch_result)
    assert facts == (
        repr(torch_spec), [t.tolist() for t in torch_leaves], type(torch_mapped).__name__,
        torch_mapped.values.tolist(),
        [torch_pytree.keystr(p) for p, _ in torch_pytree.tree_leaves_with_path(torch_result)],
        True, True, False, NotImplementedError,
    )


def test_size_is_a_node_rebuilt_as_tuple() -> None:
    def facts(lib: ModuleType, pt: ModuleType) -> Any:
        size = lib.Size([2, 3])
        leaves, spec = pt.tree_flatten(size)
        rebuilt = pt.tree_map(lambda x: x + 1, size)
        return leaves, repr(spec), type(rebuilt), rebuilt, pt.treespec_dumps(spec)

    assert facts(refimpl, refimpl_pytree) == facts(torch, torch_pytree)


KIND_OBJECTS: Final = [
    Point(1, 2), Point, (1, 2), [1], time.gmtime(0), type(time.gmtime(0)), os.stat("."),
    Config("a"), None,
]


@pytest.mark.parametrize("obj", KIND_OBJECTS, ids=lambda o: type(o).__name__)
def test_namedtuple_and_structseq_tests_match_torch(obj: Any) -> None:
    def kinds(pt: ModuleType) -> Any:
        cls = obj if isinstance(obj, type) else type(obj)
        return (
            pt.is_namedtuple(obj), pt.is_namedtuple_class(cls), pt.is_namedtuple_instance(obj),
            pt.is_structseq(obj), pt.is_structseq_class(cls), pt.is_structseq_instance(obj),
            pt.tree_is_leaf(obj),
        )

    expected, actual = in_both(kinds)
    assert actual == expected


def test_builtin_registry_matches_torch() -> None:
    # torch's registry also holds its own types (immutable collections, return types, ...).
    expected = [t for t in torch_pytree.SUPPORTED_NODES if t in torch_pytree.BUILTIN_TYPES]
    actual = [t for t in refimpl_pytree.SUPPORTED_NODES if t in refimpl_pytree.BUILTIN_TYPES]
    assert actual == expected
    assert refimpl_pytree.BUILTIN_TYPES == torch_pytree.BUILTIN_TYPES
    assert refimpl_pytree.STANDARD_DICT_TYPES == torch_pytree.STANDARD_DICT_TYPES
    for node_type in expected:
        assert (
            refimpl_pytree.SUPPORTED_SERIALIZED_TYPES[node_type].serialized_type_name
            == torch_pytree.SUPPORTED_SERIALIZED_TYPES[node_type].serialized_type_name
        )


# --- errors and warnings ----------------------------------------------------------------------


def _spec(pt: ModuleType, tree: Any) -> Any:
    return pt.tree_structure(tree)


def _warned(fn: Callable[[ModuleType], Any]) -> Callable[[ModuleType], Any]:
    def caught(pt: ModuleType) -> Any:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn(pt)
        return [(w.category, str(w.message)) for w in seen]

    return caught


ERROR_CASES: Final[list[tuple[str, Callable[[ModuleType], Any]]]] = [
    ("unflatten too few", lambda pt: pt.tree_unflatten([1], _spec(pt, [1, (2, 3)]))),
    ("unflatten too many", lambda pt: _spec(pt, {"a": 1}).unflatten(iter([1, 2]))),
    ("unflatten not a spec", lambda pt: pt.tree_unflatten([1], "spec")),
    ("flatten_up_to type", lambda pt: _spec(pt, [1, 2]).flatten_up_to((1, 2))),
    ("flatten_up_to arity", lambda pt: _spec(pt, [1, 2]).flatten_up_to([1])),
    ("flatten_up_to keys", lambda pt: _spec(pt, {"a": 1}).flatten_up_to({"b": 1})),
    ("flatten_up_to dict kinds", lambda pt: _spec(pt, OrderedDict(a=1, b=[2])).flatten_up_to(
        defaultdict(list, b=[3], a=4))),
    ("flatten_up_to namedtuple", lambda pt: _spec(pt, Point(1, 2)).flatten_up_to(Other(1, 2))),
    ("flatten_up_to deque maxlen", lambda pt: _spec(pt, deque([1], maxlen=3)).flatten_up_to(
        deque([5]))),
    ("flatten_up_to custom type", lambda pt: _spec(pt, Pair(1, 2)).flatten_up_to([1, 2])),
    ("flatten_up_to custom context", lambda pt: _spec(pt, Pair(1, 2)).flatten_up_to(
        Pair(1, 2, "u"))),
    ("flatten_up_to custom arity", lambda pt: _spec(pt, Bare([1])).flatten_up_to(Bare([1, 2]))),
    ("tree_map rests mismatch", lambda pt: pt.tree_map(lambda x, y: x, [1, 2], [1, 2, 3])),
    ("register twice", lambda pt: pt.register_pytree_node(list, list, list)),
    ("dumps namedtuple", lambda pt: pt.treespec_dumps(_spec(pt, Point(1, 2)))),
    ("dumps no name", lambda pt: pt.treespec_dumps(_spec(pt, Bare([1])))),
    ("dumps bad protocol", lambda pt: pt.treespec_dumps(_spec(pt, [1]), protocol=7)),
    ("dumps not a spec", lambda pt: pt.treespec_dumps([1])),
    ("loads bad protocol", lambda pt: pt.treespec_loads("[3, {}]")),
    ("loads unknown type", lambda pt: pt.treespec_loads(
        '[1, {"type": "no.Such", "context": "null", "children_spec": []}]')),
    ("dumps unserializable context", lambda pt: pt.treespec_dumps(
        pt.TreeSpec(dict, [object], [pt.treespec_leaf()]))),
    ("dumps defaultdict", lambda pt: pt.treespec_dumps(_spec(pt, defaultdict(list, a=1)))),
    ("loads defaultdict", lambda pt: repr(pt.treespec_loads(pt.treespec_dumps(
        _spec(pt, defaultdict(list, a=1)))))),
    ("dumps user node", lambda pt: pt.treespec_dumps(_spec(pt, Pair(1, 2)))),
    ("key path without keys fn", lambda pt: pt.tree_leaves_with_path([Bare([1])])),
    ("map_only non-type", lambda pt: pt.map_only(3)),
    ("constant without eq", lambda pt: pt.register_constant(Bare)),
    ("constant without hash", lambda pt: pt.register_constant(Record)),
    ("dataclass field names", lambda pt: pt.register_dataclass(Config, field_names=["other"])),
    ("leaf spec with context", lambda pt: pt.TreeSpec(None, 1, [])),
    ("treespec_tuple non-spec", lambda pt: pt.treespec_tuple([1])),
    ("treespec_dict", lambda pt: repr(pt.treespec_dict({"a": pt.treespec_leaf()}, b=_spec(
        pt, (1, 2))))),
    ("broadcast prefix", lambda pt: pt._broadcast_to_and_flatten(
        (0, [1, 2]), _spec(pt, ([1, 2], [3, (4, 5)])))),
    ("broadcast not a prefix", lambda pt: pt._broadcast_to_and_flatten([0, 1], _spec(pt, [1]))),
    ("arg_tree_leaves", lambda pt: pt.arg_tree_leaves([1, (2,)], 3, a={"b": 4})),
    ("constant spec", lambda pt: repr(_spec(pt, [Config("x")]))),
    ("spec frozen", lambda pt: setattr(_spec(pt, [1]), "num_leaves", 3)),
    ("LeafSpec warns", _warned(lambda pt: pt.LeafSpec())),
    ("children_specs warns", _warned(lambda pt: _spec(pt, [1]).children_specs)),
    ("_register_pytree_node warns", _warned(lambda pt: [pt._register_pytree_node(
        Scratch, lambda s: ([], None), lambda values, context: Scratch()) for _ in range(2)])),
]


@pytest.mark.parametrize(("name", "call"), ERROR_CASES, ids=[n for n, _ in ERROR_CASES])
def test_errors_and_edge_cases_match_torch(name: str, call: Callable[[ModuleType], Any]) -> None:
    expected, actual = in_both(call)
    assert actual == expected
