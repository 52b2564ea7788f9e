"""Autograd's state of a tensor: requires_grad, .grad, grad_fn, hooks, and the edges into the
graph.

Torch: torch/csrc/autograd/variable.h and variable.cpp (AutogradMeta, impl::set_history,
impl::gradient_edge, impl::grad_accumulator). A tensor autograd never touched has no
AutogradMeta (`TensorImpl._autograd_meta` is None). Whether a tensor requires grad is also
kept as a bit of its key set (Note [Requires-grad bit] in _base/keys.py), set and cleared only
here.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from refimpl._base.keys import REQUIRES_GRAD_BIT
from refimpl.core.tensor import TensorImpl

if TYPE_CHECKING:
    from refimpl.autograd.graph import AccumulateGrad, Node

Edge = tuple["Node", int]
"""(the node a gradient flows into, which of its inputs). Torch: autograd::Edge."""


class AutogradMeta:
    """Torch: torch::autograd::AutogradMeta."""

    __slots__ = (
        "_accumulator",
        "creation",
        "grad",
        "grad_fn",
        "hooks",
        "name",
        "output_nr",
        "post_accumulate_grad_hooks",
        "requires_grad",
        "retains_grad",
        "view_version",
    )

    def __init__(self) -> None:
        self.requires_grad = False
        """The leaf flag (a non-leaf requires grad through its grad_fn)."""
        self.grad: TensorImpl | None = None
        self.grad_fn: Node | None = None
        self.output_nr = 0
        self.retains_grad = False
        self.hooks: dict[int, Callable[[Any], Any]] = {}
        """Tensor hooks of a leaf (a non-leaf's live on its grad_fn), by handle id."""
        self.post_accumulate_grad_hooks: dict[int, Callable[[Any], Any]] = {}
        self._accumulator: weakref.ref[AccumulateGrad] | None = None
        self.name: str | None = None
        self.creation: str | None = None
        """For a view recorded by autograd: how it was made (views.py's CreationMeta)."""
        self.view_version: int | None = None
        """For such a view: the version its grad_fn belongs to (torch: attr_version)."""

    @classmethod
    def of_output(cls, node: Node, output_nr: int) -> AutogradMeta:
        """The meta of a fresh output of `node`: set_history on a new tensor, in one step."""
        meta = cls()
        meta.grad_fn = node
        meta.output_nr = output_nr
        return meta


def meta_of(t: TensorImpl) -> AutogradMeta:
    """The tensor's AutogradMeta, made on first need. Torch: impl::materialize_autograd_meta."""
    meta: AutogradMeta | None = t._autograd_meta
    if meta is None:
        meta = t._autograd_meta = AutogradMeta()
    return meta


def mark_requires_grad(t: TensorImpl, requires: bool) -> None:
    """Set or clear the tensor's requires-grad bit (Note [Requires-grad bit])."""
    if requires:
        t._key_set |= REQUIRES_GRAD_BIT
    else:
        t._key_set &= ~REQUIRES_GRAD_BIT


def grad_fn(t: TensorImpl) -> Node | None:
    """Torch: Tensor.grad_fn."""
    meta: AutogradMeta | None = t._autograd_meta
    return None if meta is None else meta.grad_fn


def is_leaf(t: TensorImpl) -> bool:
    """Torch: Tensor.is_leaf (no grad_fn)."""
    return grad_fn(t) is None


def set_requires_grad(t: TensorImpl, requires: bool) -> None:
    """Set a leaf's flag (the caller checked it is a leaf of a differentiable dtype).

    Torch: AutogradMeta::set_requires_grad.
    """
    if not requires and t._autograd_meta is None:
        return
    meta_of(t).requires_grad = requires
    mark_requires_grad(t, requires)


def set_history(t: TensorImpl, node: Node, output_nr: int) -> None:
    """Make `t` the `output_nr`-th output of `node`: a non-leaf that requires grad.

    Torch: impl::set_gradient_edge (via set_history, which also records the input metadata
    the engine checks gradients against: see Node.add_input_metadata).
    """
    meta = meta_of(t)
    meta.grad_fn = node
    meta.output_nr = output_nr
    meta.requires_grad = False
    mark_requires_grad(t, True)


def clear_history(t: TensorImpl) -> None:
    """Make `t` a leaf that does not require grad. Torch: detach_."""
    meta: AutogradMeta | None = t._autograd_meta
    if meta is not None:
        meta.grad_fn = None
        meta.output_nr = 0
        meta.requires_grad = False
        meta.creation = None
        meta.view_version = None
    mark_requires_grad(t, False)
