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
from refimpl.core.grad_mode import GRAD_STATE
from refimpl.core.tensor import CONJUGATE_BIT, MATH_BITS, NEGATIVE_BIT, TensorImpl, requires_grad
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
        if (t._key_set ^ base._key_set) & MATH_BITS:
            # Note [Math-bit views replay]: the view made again from the base, in grad mode,
            # gives the grad_fn (torch: view_fn(base).grad_fn()).
            saved_mode = GRAD_STATE.enabled
            GRAD_STATE.enabled = True
            try:
                replayed = replay_view(base, t._geometry(), t._key_set)
            finally:
                GRAD_STATE.enabled = saved_mode
            replayed_meta: AutogradMeta | None = replayed._autograd_meta
            meta.grad_fn = None if replayed_meta is None else replayed_meta.grad_fn
            meta.view_version = version
            return meta.grad_fn
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


# Note [Math-bit views replay]
# A view whose conjugate or negative bit differs from its base's (x.conj(), x.conj()[0],
# x.conj().imag) cannot be made again from the base by as_strided alone, which keeps the
# base's bits. torch records a view_fn for such views (the ADInplaceOrView kernels of _conj and
# _neg_view, chained with later views) and replays it where it would use as_strided: in
# CopySlices and when a view's grad_fn is made again. refimpl replays as_strided over the
# view's geometry (skipped where the geometry is the base's) and then the bit toggles, _conj
# and _neg_view: the same view, and the same gradients. Differs: for a view made by several
# ops after the toggle (x.conj()[0]) torch replays each op and its grad_fn is the last one's
# node (SelectBackward0); refimpl's is ConjBackward0 over an AsStridedBackward0.


def replay_view(base: TensorImpl, view_geometry: tuple[Any, ...], view_key_set: int) -> Any:
    """The view of `base` with geometry `view_geometry` and the math bits of `view_key_set`.

    Torch: a view's view_fn (ViewInfo::view_fn) for views that toggle a math bit.
    """
    size, stride, offset = view_geometry
    if (size, stride, offset) == (base._size, base._stride, base._storage_offset):
        out = base
    else:
        out = aten.as_strided.default(base, list(size), list(stride), offset)
    toggled = (view_key_set ^ base._key_set) & MATH_BITS
    if toggled & CONJUGATE_BIT:
        out = aten._conj.default(out)
    if toggled & NEGATIVE_BIT:
        out = aten._neg_view.default(out)
    return out


class CopySlices(Node):
    """The base's node after an in-place op on one of its views: the op's node (`fn`) runs
    on the view's part of the base's gradient. Torch: torch::autograd::CopySlices."""

    __slots__ = ("_base_geometry", "_fn", "_toggled_bits", "_view_geometry")

    def __init__(self, base: TensorImpl, view: TensorImpl, fn: Node) -> None:
        super().__init__(fn.next_edges)
        self._base_geometry = (base._size, base._stride, base._storage_offset)
        self._view_geometry = (view._size, view._stride, view._storage_offset)
        # The math bits the view toggles (Note [Math-bit views replay]).
        self._toggled_bits = (view._key_set ^ base._key_set) & MATH_BITS
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
        if self._toggled_bits:
            # Note [Math-bit views replay]: the slice of the gradient reads and is written
            # through the view's bits.
            grad_slice = replay_view(
                result, (size, stride, offset - base_offset), result._key_set ^ self._toggled_bits
            )
        else:
            grad_slice = aten.as_strided.default(
                result, list(size), list(stride), offset - base_offset
            )
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
