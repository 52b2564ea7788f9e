"""The ADInplaceOrView kernels: version bumps for ops that write their arguments, and how a
view was made for ops that return views.

Torch: the kernels torchgen generates into
torch/csrc/autograd/generated/ADInplaceOrViewType_*.cpp (gen_inplace_or_view_type.py), and the
manual ones of VariableTypeManual.cpp. ADInplaceOrView sits below the Autograd keys and above
the backends, and runs for every tensor that is not an inference tensor, whether or not it
requires grad (the thread's included set holds the key outside inference mode): an op whose
tensors need no gradient skips its Autograd kernel (Note [Autograd skip]) but still bumps its
versions here.

- An op whose schema writes an argument (`Tensor(a!)`: `add_`, `add.out`, `copy_`, `t_`, ...)
  runs below ADInplaceOrView, then bumps the version of each written tensor (torch:
  increment_version). Kernels below never bump: an op a kernel calls runs below
  ADInplaceOrView too (the thread excludes the key while it runs), so `mv` writing its own
  fresh result with `addmv_` leaves it at version 0, as in torch.
- A view op runs below, then records on each view how it was made (torch: as_view with a
  CreationMeta): in no_grad mode, in inference mode, or by an op that returns several views.
  Autograd refuses an in-place op on such a view when it needs a gradient
  (views.check_inplace). A view made in grad mode by a single-view op keeps the default,
  inheriting its source's non-default creation (torch: propagate_creation_meta).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.keys import (
    AFTER_AD_INPLACE_OR_VIEW,
    REQUIRES_GRAD_BIT,
    DispatchKey,
    DispatchKeySet,
)
from refimpl._base.spec import autograd_facts
from refimpl.autograd.views import (
    DEFAULT,
    INFERENCE_MODE,
    MULTI_OUTPUT_NODE,
    NO_GRAD_MODE,
    mark_view,
)
from refimpl.core.grad_mode import grad_enabled, inference_enabled
from refimpl.core.storage import VersionCounter
from refimpl.core.tensor import TensorImpl, as_view, requires_grad
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import OpOverload
from refimpl.dispatch.python_dispatch import python_detach
from refimpl.dispatch.schema import FunctionSchema
from refimpl.dispatch.schema_types import ListType
from refimpl.dispatch.table import KernelRecord, is_dispatch_free
from refimpl.dispatch.tls import key_masks, push_masks, reset_masks, restore_masks
from refimpl.ops import aten
from refimpl.ops._register import registered_overloads

_BELOW: Final = AFTER_AD_INPLACE_OR_VIEW.raw



Kernel = Callable[..., Any]


def inplace_kernel(positions: tuple[int, ...], keywords: tuple[str, ...]) -> Callable[[Kernel], Kernel]:
    """Given the kernel below ADInplaceOrView, the ADInplaceOrView kernel of an in-place or
    out= op: run it below the key, then bump the version of each tensor it wrote (the
    arguments at `positions`, the keyword arguments `keywords`). Torch: the generated
    ADInplaceOrView kernel of an in-place or out= op (increment_version)."""

    def fuse(below: Kernel) -> Kernel:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            masks = key_masks()  # Note [Thread-local key sets]
            pushed = masks.below or masks.below_autograd()
            token = push_masks(pushed)
            try:
                result = below(*args, **kwargs)
            finally:
                if key_masks() is pushed:
                    reset_masks(token)
                else:
                    restore_masks(token, pushed, masks)
            for i in positions:
                _bump(args[i])
            for name in keywords:
                _bump(kwargs[name])
            return result

        def self_kernel(*args: Any, **kwargs: Any) -> Any:
            # The usual case, `self` written (add_, copy_, t_): the same, unrolled.
            masks = key_masks()
            pushed = masks.below or masks.below_autograd()
            token = push_masks(pushed)
            try:
                result = below(*args, **kwargs)
            finally:
                if key_masks() is pushed:
                    reset_masks(token)
                else:
                    restore_masks(token, pushed, masks)
            counter = args[0]._counter
            if type(counter) is VersionCounter:
                counter.version += 1  # VersionCounter.bump, inline
            else:  # none made yet, or an inference tensor's (which refuses outside the mode)
                args[0]._version_counter.bump()
            return result

        def free_self_kernel(*args: Any, **kwargs: Any) -> Any:
            # `self` written by a kernel that dispatches nothing: no keys to exclude. (Note
            # [Calls without keywords] in dispatch/overloads.py.)
            result = below(*args, **kwargs) if kwargs else below(*args)
            counter = args[0]._counter
            if type(counter) is VersionCounter:
                counter.version += 1
            else:
                args[0]._version_counter.bump()
            return result

        if positions == (0,) and not keywords:
            return free_self_kernel if is_dispatch_free(below) else self_kernel
        return kernel

    return fuse


def _bump(written: Any) -> None:
    # torch: increment_version, for a Tensor(a!) or each tensor of a Tensor(a!)[] argument.
    if isinstance(written, TensorImpl):
        written._version_counter.bump()
    elif isinstance(written, (list, tuple)):
        for item in written:
            if isinstance(item, TensorImpl):
                item._version_counter.bump()


def view_kernel(multiple: bool, differentiable: bool = True) -> Callable[[Kernel], Kernel]:
    """Given the kernel below ADInplaceOrView, the ADInplaceOrView kernel of a view op: run
    it below the key, then record how its views were made. Torch: the generated
    ADInplaceOrView kernel of a view op (as_view with its CreationMeta)."""

    def fuse(below: Kernel) -> Kernel:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            masks = key_masks()  # Note [Thread-local key sets]
            pushed = masks.below or masks.below_autograd()
            token = push_masks(pushed)
            try:
                result = below(*args, **kwargs)
            finally:
                if key_masks() is pushed:
                    reset_masks(token)
                else:
                    restore_masks(token, pushed, masks)
            source = args[0]
            _as_views(result, source, multiple, differentiable)
            enabled = grad_enabled()
            if enabled and not multiple and source._autograd_meta is None:
                return result  # the default creation, nothing to inherit: no record
            _record_views(result, source, multiple, enabled, inference_enabled())
            return result

        def free_kernel(*args: Any, **kwargs: Any) -> Any:
            # Below, a kernel that dispatches nothing: no keys to exclude. (Note [Calls
            # without keywords] in dispatch/overloads.py.)
            result = below(*args, **kwargs) if kwargs else below(*args)
            source = args[0]
            _as_views(result, source, multiple, differentiable)
            enabled = grad_enabled()
            if enabled and not multiple and source._autograd_meta is None:
                return result
            _record_views(result, source, multiple, enabled, inference_enabled())
            return result

        chosen = free_kernel if is_dispatch_free(below) else kernel
        if differentiable or multiple:
            return chosen

        def non_differentiable_kernel(*args: Any, **kwargs: Any) -> Any:
            # torch: as_view of a view autograd does not differentiate (view.dtype) makes the
            # output with make_variable_non_differentiable_view, a shallow_copy_and_detach,
            # which a mode or the tensor's class answers first (python_detach): the
            # aten.detach.default a mode sees after aten.view.dtype.
            result = chosen(*args, **kwargs) if kwargs else chosen(*args)
            handled = python_detach(result)
            return result if handled is None else handled

        return non_differentiable_kernel

    return fuse


def _as_views(result: Any, source: TensorImpl, multiple: bool, differentiable: bool) -> None:
    """Torch: as_view on each output of a view op (the kernel below returned aliases)."""
    if multiple:
        for out in result:
            as_view(out, source, differentiable)
    else:
        as_view(result, source, differentiable)


def _record_views(
    result: Any, source: TensorImpl, multiple: bool, grad_enabled: bool, inference: bool
) -> None:
    if inference:
        creation = INFERENCE_MODE
    elif not grad_enabled:
        creation = NO_GRAD_MODE
    elif multiple:
        creation = MULTI_OUTPUT_NODE
    else:
        creation = DEFAULT
    meta = source._autograd_meta
    # torch: propagate_creation_meta: a view of a view keeps its source's creation unless it
    # has one of its own; inference mode's always stays.
    if (
        meta is not None
        and source._base is not None
        and meta.creation is not None
        and (creation == DEFAULT or meta.creation == INFERENCE_MODE)
    ):
        creation = meta.creation
    if creation == DEFAULT:
        return  # the default needs no record (views.check_inplace assumes it)
    # torch: a differentiable view requires grad when its base does (a view made in no_grad
    # mode of a tensor that requires grad too); the Autograd kernel records the history of
    # views made in grad mode.
    follows_base = requires_grad(source) and not grad_enabled
    for out in result if multiple else (result,):
        if out._base is not None:
            mark_view(out, creation)
            if follows_base:
                out._key_set |= REQUIRES_GRAD_BIT


def _keyset_kernel(op: OpOverload, fuse: Callable[[Kernel], Kernel]) -> Kernel:
    """The with_keyset form of a fused kernel, for calls the dispatch cache does not serve
    fused (a kernel below that takes the key set, or a Python handler)."""

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        below = keyset.raw & _BELOW

        def redispatch(*a: Any, **k: Any) -> Any:
            return op.redispatch_bound(below, a, k)

        return fuse(redispatch)(*args, **kwargs)

    kernel.__name__ = f"{op.name()}_ad_inplace_or_view"
    return kernel


# --- registration -------------------------------------------------------------------------------

# torch: ops whose ADInplaceOrView kernels are written by hand (VariableTypeManual.cpp) and
# bump no version: detach_ changes no data; resize_ and resize_as_ bump in their kernels,
# only when the size changes. The batch norms that update their running statistics have no
# ADInplaceOrView kernel at all (measured: the statistics keep their version).
_NO_BUMP: Final = frozenset(
    {
        "aten::detach_",
        "aten::resize_",
        "aten::resize_as_",
        "aten::_native_batch_norm_legit",
        "aten::_batch_norm_with_update",
    }
)
# torch: views autograd does not differentiate through (as_view with is_bw_differentiable
# false): their creation does not matter.
_NOT_DIFFERENTIABLE_VIEWS: Final = frozenset({"aten::detach", "aten::lift_fresh"})


# torch: written arguments that are not returned and keep their version (measured): the
# noise rrelu_with_noise's kernels fill, which autograd saves for the backward.
_UNBUMPED: Final[dict[str, frozenset[str]]] = {
    "aten::rrelu_with_noise": frozenset({"noise"}),
    "aten::rrelu_with_noise_": frozenset({"noise"}),
    "aten::rrelu_with_noise.out": frozenset({"noise"}),
}


def _written(
    schema: FunctionSchema, unbumped: frozenset[str] = frozenset()
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    positions = tuple(
        i
        for i, a in enumerate(schema.arguments)
        if a.is_write and not a.kwarg_only and a.name not in unbumped
    )
    keywords = tuple(
        a.name for a in schema.arguments if a.is_write and a.kwarg_only and a.name not in unbumped
    )
    return positions, keywords


def _is_view(schema: FunctionSchema) -> bool:
    first = schema.arguments[0] if schema.arguments else None
    if first is None or first.alias_info is None or first.alias_info.is_write:
        return False
    return any(r.alias_info is not None for r in schema.returns)


def _overload(qualified: str) -> OpOverload:
    name, _, overload = qualified.partition("::")[2].partition(".")
    found: OpOverload = getattr(getattr(aten, name), overload or "default")
    return found


def register_inplace_or_view_kernels() -> dict[str, str]:
    """Give each overload refimpl implements that writes an argument or returns a view its
    ADInplaceOrView kernel; the kind per overload, for reports. Decompositions get none: the
    ops they call have theirs."""
    kinds: dict[str, str] = {}
    for qualified in registered_overloads():
        entry = DISPATCHER.find(qualified)
        if entry is None or entry.kernels_for(DispatchKey.CompositeImplicitAutograd):
            continue
        op = _overload(qualified)
        schema = op._schema
        if schema.is_mutable:
            positions, keywords = _written(schema, _UNBUMPED.get(qualified, frozenset()))
            if qualified in _NO_BUMP or not (positions or keywords):
                continue
            fuse = inplace_kernel(positions, keywords)
            kinds[qualified] = "inplace"
        elif _is_view(schema) and qualified not in _NOT_DIFFERENTIABLE_VIEWS:
            multiple = any(isinstance(r.type, ListType) for r in schema.returns)
            fact = autograd_facts().get(qualified)
            differentiable = fact is None or fact.category != "not_differentiable"
            fuse = view_kernel(multiple, differentiable)
            kinds[qualified] = "view"
        else:
            continue
        record = KernelRecord(
            _keyset_kernel(op, fuse),
            f"refimpl ADInplaceOrView ({kinds[qualified]})",
            with_keyset=True,
            fuse_below=fuse,
            below_mask=_BELOW,
        )
        entry.register_kernel(DispatchKey.ADInplaceOrView, record)
    return kinds


INPLACE_OR_VIEW_KINDS: Final = register_inplace_or_view_kernels()
