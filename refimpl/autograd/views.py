"""Views and in-place ops under autograd: where a tensor's gradient goes, and how an in-place
op on a view rewrites its base's history.

Torch: torch/csrc/autograd/variable.cpp (VariableHooks::grad_fn, which regenerates a view's
grad_fn after its base changed; impl::rebase_history, which puts a CopySlices node on the base
of a view modified in place), functions/tensor.cpp (CopySlices) and VariableTypeUtils.h
(check_inplace, handle_view_on_rebase with its CreationMeta errors). See
pytorch-semantics.md on views and autograd.

A view here is a tensor with a `_base` (views share their root base, as in torch). A view
recorded by an autograd kernel keeps, in its AutogradMeta, how it was created
(`creation`) and the version its grad_fn belongs to (`view_version`).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from refimpl._base.spec import autograd_facts
from refimpl.autograd.functions import NodeSpec
from refimpl.autograd.graph import Node, grad_accumulator
from refimpl.autograd.variable import AutogradMeta, Edge, mark_requires_grad, meta_of, set_history
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.ops import aten
from refimpl.ops._derivative import DERIVATIVES

# torch: CreationMeta (variable.h): how a view was made decides whether it may be modified in
# place under autograd.
DEFAULT: Final = "DEFAULT"
NO_GRAD_MODE: Final = "NO_GRAD_MODE"
MULTI_OUTPUT_NODE: Final = "MULTI_OUTPUT_NODE"
INFERENCE_MODE: Final = "INFERENCE_MODE"


def mark_view(t: TensorImpl, creation: str) -> None:
    """Record that `t`, a view, was made by a view op seen by autograd, and how."""
    meta = meta_of(t)
    meta.creation = creation
    meta.view_version = t._version


@cache
def _as_strided_spec() -> NodeSpec:
    facts = autograd_facts()["aten::as_strided"]
    schema = aten.as_strided.default._schema
    return NodeSpec(facts.node or "AsStridedBackward0", schema, DERIVATIVES["aten::as_strided"], facts.saved)


def current_grad_fn(t: TensorImpl) -> Node | None:
    """The tensor's grad_fn; for a view whose base changed since it was recorded, a new
    AsStridedBackward0 from the base's current history. Torch: VariableHooks::grad_fn."""
    meta: AutogradMeta | None = t._autograd_meta
    if meta is None:
        return None
    base = t._base
    if base is None or meta.view_version is None:
        return meta.grad_fn
    if meta.grad_fn is None and not requires_grad(base):
        return None
    version = t._version
    if meta.view_version != version:
        if meta.creation is not None and meta.creation != DEFAULT:
            # torch: handle_view_on_rebase(indirect=true): the base or another of its views
            # changed in place, and this view may not follow.
            raise RuntimeError(_view_message(t, meta.creation, indirect=True))
        spec = _as_strided_spec()
        saved = {
            "self_geometry": (base._size, base._stride, base._storage_offset),
            "size": t._size,
            "stride": t._stride,
            "storage_offset": t._storage_offset,
        }
        edge = gradient_edge(base)
        node = spec.node_class(spec, (edge,), ((0, 1),), saved)
        node.add_input_metadata(t)
        set_history(t, node, 0)
        meta.view_version = version
    return meta.grad_fn


def gradient_edge(t: TensorImpl) -> Edge | None:
    """Where the gradient of `t` goes: its grad_fn's input, or its accumulator for a leaf
    that requires grad; None if it needs none. Torch: impl::gradient_edge."""
    meta: AutogradMeta | None = t._autograd_meta
    if meta is None:
        return None
    # Only a view's grad_fn can need making again; any other tensor's is as recorded.
    node = meta.grad_fn if t._base is None else current_grad_fn(t)
    if node is not None:
        return node, meta.output_nr
    if meta.requires_grad:
        return grad_accumulator(t), 0
    return None


# --- in-place ops -----------------------------------------------------------------------------


def check_inplace(self: TensorImpl, grad_enabled: bool) -> None:
    """Refuse an in-place op autograd could not differentiate. Torch: check_inplace and
    handle_view_on_rebase (VariableTypeUtils.h)."""
    meta: AutogradMeta | None = self._autograd_meta
    base = self._base
    if base is not None:
        creation = DEFAULT if meta is None or meta.creation is None else meta.creation
        if grad_enabled and creation != DEFAULT:
            raise RuntimeError(_view_message(self, creation))
        base_meta: AutogradMeta | None = base._autograd_meta
        if base_meta is not None and base_meta.grad_fn is None and base_meta.requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
        return
    if meta is not None and meta.grad_fn is None and meta.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def _view_message(view: TensorImpl, creation: str, indirect: bool = False) -> str:
    # torch: handle_view_on_rebase's messages (variable.cpp).
    meta = view._autograd_meta
    node = None if meta is None else meta.grad_fn
    modified = (
        "its base or another view of its base has been" if indirect else "is being"
    )
    if node is not None:
        # torch names the forward op: UnbindBackward0 -> Unbind.
        name = node.name().rstrip("0123456789").removesuffix("Backward")
        output_nr = 0 if meta is None else meta.output_nr
        message = f"Output {output_nr} of {name} is a view and {modified} modified inplace."
    elif creation == INFERENCE_MODE:
        message = (
            f"A view was created in inference mode and {modified} modified inplace in normal "
            "mode."
        )
    else:
        message = (
            f"A view was created in no_grad mode and {modified} modified inplace with grad "
            "mode enabled."
        )
    if creation == MULTI_OUTPUT_NODE:
        return (
            f"{message} This view is the output of a function that returns multiple views. "
            "Such functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one."
        )
    block = "no_grad" if creation == NO_GRAD_MODE else "inference_mode"
    return (
        f"{message} Given that this use case is ambiguous and error-prone, it is forbidden. "
        "You can clarify your code by moving both the view and the inplace either both inside "
        f"the {block} block (if you don't want the inplace to be tracked) or both outside (if "
        "you want the inplace to be tracked)."
    )


class CopySlices(Node):
    """The base's node after an in-place op on one of its views: the op's node (`fn`) runs
    on the view's part of the base's gradient. Torch: torch::autograd::CopySlices."""

    __slots__ = ("_base_geometry", "_fn", "_view_geometry")

    def __init__(self, base: TensorImpl, view: TensorImpl, fn: Node) -> None:
        super().__init__(fn.next_edges)
        self._base_geometry = (base._size, base._stride, base._storage_offset)
        self._view_geometry = (view._size, view._stride, view._storage_offset)
        self._fn = fn

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list[Any]) -> list[Any]:
        grad = grads[0]
        out: list[Any] = [None] * len(self.next_edges)
        if grad is None:
            return out
        sizes, strides, base_offset = self._base_geometry
        result = aten.new_empty_strided.default(grad, list(sizes), list(strides))
        result = aten.copy_.default(result, grad)
        size, stride, offset = self._view_geometry
        grad_slice = aten.as_strided.default(result, list(size), list(stride), offset - base_offset)
        res = self._fn.apply([aten.clone.default(grad_slice)])
        for i, value in enumerate(res):
            if i == 0:
                if value is None:
                    aten.zero_.default(grad_slice)
                else:
                    aten.copy_.default(grad_slice, value)
                out[0] = result
            else:
                out[i] = value
        return out

    def release_variables(self) -> None:
        self._fn.release_variables()


def rebase_history(view: TensorImpl, fn: Node) -> None:
    """Record an in-place op's node `fn` on a view: the base gets a CopySlices node whose
    first edge is the base's old history, and the view's grad_fn is made again from it.

    Torch: impl::rebase_history for a view (CopySlices), then the view's grad_fn regenerated
    by VariableHooks::grad_fn.
    """
    base = view._base
    assert base is not None
    fn.next_edges = (gradient_edge(base), *fn.next_edges[1:])
    copy_slices = CopySlices(base, view, fn)
    copy_slices.add_input_metadata(base)
    set_history(base, copy_slices, 0)
    meta = meta_of(view)
    if meta.creation is None:
        meta.creation = DEFAULT
    meta.grad_fn = None
    meta.view_version = -1  # made again from the base on first use
    mark_requires_grad(view, True)  # as its base does now
