"""Every aten overload refimpl registers a kernel for prints its schema exactly as torch's."""

from __future__ import annotations

import pytest
import torch

import refimpl
from refimpl.ops._register import registered_overloads

REGISTERED = registered_overloads()


def _lookup(root: object, qualified: str) -> object:
    namespace, _, rest = qualified.partition("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(root, namespace), name), overload or "default")


def test_add_is_registered() -> None:
    assert "aten::add.Tensor" in REGISTERED


@pytest.mark.parametrize("qualified", REGISTERED)
def test_schema_prints_as_torch(qualified: str) -> None:
    ours = _lookup(refimpl.ops, qualified)
    theirs = _lookup(torch.ops, qualified)
    assert str(ours._schema) == str(theirs._schema)  # type: ignore[attr-defined]


@pytest.mark.parametrize("qualified", REGISTERED)
def test_composite_implicit_matches_torch(qualified: str) -> None:
    ours = _lookup(refimpl.ops, qualified)
    theirs = _lookup(torch.ops, qualified)
    key = refimpl.ops.view.DispatchKey.CompositeImplicitAutograd
    # The C++ dispatcher's answer: OpOverload.has_kernel_for_dispatch_key also counts a
    # decomposition torch registers from Python only (native_batch_norm, upsample_nearest*).
    assert ours.entry.has_kernel_for_dispatch_key(key) == torch._C._dispatch_has_kernel_for_dispatch_key(
        theirs.name(), "CompositeImplicitAutograd"  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("qualified", REGISTERED)
def test_tags_match_torch(qualified: str) -> None:
    ours = _lookup(refimpl.ops, qualified)
    theirs = _lookup(torch.ops, qualified)
    assert [repr(tag) for tag in ours.tags] == [repr(tag) for tag in theirs.tags]  # type: ignore[attr-defined]


def test_tag_enum_matches_torch() -> None:
    assert {m: int(v) for m, v in refimpl.Tag.__members__.items()} == {
        m: int(v) for m, v in torch.Tag.__members__.items()
    }


def test_overload_introspection_matches_torch() -> None:
    for lib in (torch, refimpl):
        op = lib.ops.aten.add.Tensor
        assert (str(op), op.name(), op.__name__, op._overloadname, op.namespace) == (
            "aten.add.Tensor", "aten::add.Tensor", "add.Tensor", "Tensor", "aten",
        )
        assert repr(op) == "<OpOverload(op='aten.add', overload='Tensor')>"
        assert op.overloadpacket is lib.ops.aten.add
        assert repr(lib.ops.aten.add) == "<OpOverloadPacket(op='aten.add')>"
        assert str(lib.ops.aten.relu.default) == "aten.relu.default"
        assert lib.ops.aten.relu.default.name() == "aten::relu"


@pytest.mark.parametrize("qualified", REGISTERED)
def test_is_view_matches_torch(qualified: str) -> None:
    ours = _lookup(refimpl.ops, qualified)
    theirs = _lookup(torch.ops, qualified)
    assert ours.is_view == theirs.is_view  # type: ignore[attr-defined]
