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
    AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS,
    REQUIRES_GRAD_BIT,
    DispatchKey,
    DispatchKeySet,
)
from refimpl.autograd.grad_mode import GRAD_STATE
from refimpl.autograd.views import (
    DEFAULT,
    INFERENCE_MODE,
    MULTI_OUTPUT_NODE,
    NO_GRAD_MODE,
    mark_view,
)
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import OpOverload
from refimpl.dispatch.schema import FunctionSchema
from refimpl.dispatch.schema_types import ListType
from refimpl.dispatch.table import KernelRecord
from refimpl.dispatch.tls import DISPATCH_TLS
from refimpl.ops import aten
from refimpl.ops._register import registered_overloads

_BELOW: Final = AFTER_AD_INPLACE_OR_VIEW.raw
_EXCLUDED: Final = AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS.raw

InplaceOrViewKernel = Callable[..., Any]


def inplace_kernel(
    op: OpOverload, positions: tuple[int, ...], keywords: tuple[str, ...]
) -> InplaceOrViewKernel:
    """Run `op` below ADInplaceOrView, then bump the version of each tensor it wrote: the
    arguments at `positions` and the keyword arguments `keywords` (out=). Torch: the
    generated ADInplaceOrView kernel of an in-place or out= op."""

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        tls = DISPATCH_TLS
        saved = tls.excluded_raw
        tls.excluded_raw = saved | _EXCLUDED
        try:
            result = op.redispatch_bound(keyset.raw & _BELOW, args, kwargs)
        finally:
            tls.excluded_raw = saved
        for i in positions:
            _bump(args[i])
        for name in keywords:
            _bump(kwargs[name])
        return result

    kernel.__name__ = f"{op.name()}_ad_inplace_or_view"
    return kernel


def _bump(written: Any) -> None:
    # torch: increment_version, for a Tensor(a!) or each tensor of a Tensor(a!)[] argument.
    if isinstance(written, TensorImpl):
        written._version_counter.bump()
    elif isinstance(written, (list, tuple)):
        for item in written:
            if isinstance(item, TensorImpl):
                item._version_counter.bump()


def view_kernel(op: OpOverload, multiple: bool) -> InplaceOrViewKernel:
    """Run `op` below ADInplaceOrView, then record how its views were made. Torch: the
    generated ADInplaceOrView kernel of a view op (as_view with its CreationMeta)."""

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        tls = DISPATCH_TLS
        saved = tls.excluded_raw
        tls.excluded_raw = saved | _EXCLUDED
        try:
            result = op.redispatch_bound(keyset.raw & _BELOW, args, kwargs)
        finally:
            tls.excluded_raw = saved
        state = GRAD_STATE
        if state.inference:
            creation = INFERENCE_MODE
        elif not state.enabled:
            creation = NO_GRAD_MODE
        elif multiple:
            creation = MULTI_OUTPUT_NODE
        else:
            creation = DEFAULT
        source = args[0]
        meta = source._autograd_meta
        # torch: propagate_creation_meta: a view of a view keeps its source's creation unless
        # it has one of its own; inference mode's always stays.
        if (
            meta is not None
            and source._base is not None
            and meta.creation is not None
            and (creation == DEFAULT or meta.creation == INFERENCE_MODE)
        ):
            creation = meta.creation
        if creation == DEFAULT:
            return result  # the default needs no record (views.check_inplace assumes it)
        # torch: a differentiable view requires grad when its base does (a view made in
        # no_grad mode of a tensor that requires grad too); the Autograd kernel records the
        # history of views made in grad mode.
        follows_base = requires_grad(source) and not state.enabled
        for out in result if multiple else (result,):
            if out._base is not None:
                mark_view(out, creation)
                if follows_base:
                    out._key_set |= REQUIRES_GRAD_BIT
        return result

    kernel.__name__ = f"{op.name()}_ad_inplace_or_view"
    return kernel


# --- registration -------------------------------------------------------------------------------

# torch: ops whose ADInplaceOrView kernels are written by hand (VariableTypeManual.cpp) and
# bump no version: detach_ changes no data; resize_ and resize_as_ bump in their kernels,
# only when the size changes.
_NO_BUMP: Final = frozenset({"aten::detach_", "aten::resize_", "aten::resize_as_"})
# torch: views autograd does not differentiate through (as_view with is_bw_differentiable
# false): their creation does not matter.
_NOT_DIFFERENTIABLE_VIEWS: Final = frozenset({"aten::detach", "aten::lift_fresh"})


def _written(schema: FunctionSchema) -> tuple[tuple[int, ...], tuple[str, ...]]:
    positions = tuple(
        i for i, a in enumerate(schema.arguments) if a.is_write and not a.kwarg_only
    )
    keywords = tuple(a.name for a in schema.arguments if a.is_write and a.kwarg_only)
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
            if qualified in _NO_BUMP:
                continue
            kernel = inplace_kernel(op, *_written(schema))
            kinds[qualified] = "inplace"
        elif _is_view(schema) and qualified not in _NOT_DIFFERENTIABLE_VIEWS:
            multiple = any(isinstance(r.type, ListType) for r in schema.returns)
            kernel = view_kernel(op, multiple)
            kinds[qualified] = "view"
        else:
            continue
        entry.register_kernel(
            DispatchKey.ADInplaceOrView,
            KernelRecord(kernel, f"refimpl ADInplaceOrView ({kinds[qualified]})", with_keyset=True),
        )
    return kinds


INPLACE_OR_VIEW_KINDS: Final = register_inplace_or_view_kernels()
