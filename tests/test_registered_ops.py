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
    assert ours.entry.has_kernel_for_dispatch_key(key) == theirs.has_kernel_for_dispatch_key(  # type: ignore[attr-defined]
        torch._C.DispatchKey.CompositeImplicitAutograd
    )
