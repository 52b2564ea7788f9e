"""The Autograd kernels: record a node for each op whose inputs require grad, then run the op
below autograd.

Torch: the kernels torchgen generates into torch/csrc/autograd/generated/VariableType_*.cpp
(registered at the Autograd alias key), and the boxed autogradNotImplementedFallback of
torch/csrc/autograd/autograd_not_implemented_fallback.cpp. Here one function makes the kernel
of any overload from its derivative entry (ops/_derivative.py), deciding at registration which
arguments are differentiable inputs, what each formula saves and which outputs get history;
`register_autograd_kernels` gives every overload refimpl implements the kernel torch's
autograd has for it (spec/derivatives.json says which kind).

Every kernel here is `passes_without_grad`: for a call no tensor argument of which requires
grad, the dispatcher runs the kernel below autograd directly (Note [Autograd skip]).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import Category
from refimpl._base.keys import (
    AFTER_AUTOGRAD,
    REQUIRES_GRAD_BIT,
    SLOT_INDEX,
    DispatchKey,
    DispatchKeySet,
)
from refimpl._base.spec import AutogradFacts, autograd_facts
from refimpl.autograd.functions import ARGUMENT, NodeSpec, save_tensor_argument
from refimpl.autograd.graph import Node, SavedVariable
from refimpl.autograd.variable import AutogradMeta, set_history
from refimpl.autograd.views import check_inplace, gradient_edge, rebase_history
from refimpl.core.grad_mode import grad_enabled
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.overloads import OpOverload
from refimpl.dispatch.table import BACKEND_FALLBACKS, KernelRecord
from refimpl.dispatch.tls import key_masks, push_masks, reset_masks, restore_masks
from refimpl.ops import aten
from refimpl.ops._derivative import DERIVATIVES
from refimpl.ops._register import registered_overloads

_AFTER_AUTOGRAD: Final = AFTER_AUTOGRAD.raw

AutogradKernel = Callable[..., Any]


# torch: isDifferentiableType: floating point and complex dtypes.
DIFFERENTIABLE: Final = frozenset((Category.FLOATING, Category.COMPLEX))


def differentiable(t: TensorImpl) -> bool:
    """Torch: isDifferentiableType: floating point and complex dtypes."""
    return t._dtype.category in DIFFERENTIABLE


def redispatch_below(
    op: OpOverload, keyset: DispatchKeySet, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Run `op` below autograd, with autograd and ADInplaceOrView excluded for the calls its
    kernel makes. Torch: at::AutoDispatchBelowADInplaceOrView, then at::redispatch with
    `ks & c10::after_autograd_keyset`."""
    masks = key_masks()  # Note [Thread-local key sets]
    below = masks.below or masks.below_autograd()
    token = push_masks(below)
    try:
        return op.redispatch_bound(keyset.raw & _AFTER_AUTOGRAD, args, kwargs)
    finally:
        if key_masks() is below:
            reset_masks(token)
        else:
            restore_masks(token, below, masks)


def _edges(
    spec: NodeSpec, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], tuple[tuple[int, int], ...]]:
    """The next edges (one per tensor of each differentiable input) and each input's span,
    for ops with a tensor-list or keyword input (the kernel reads simple ones itself)."""
    found: list[Any] = []
    spans = []
    for d in spec.inputs:
        value = spec.argument(d.name, args, kwargs)
        start = len(found)
        items = value if d.is_list else (value,)
        for item in items:
            found.append(gradient_edge(item) if isinstance(item, TensorImpl) else None)
        spans.append((start, len(found)))
    return tuple(found), tuple(spans)


def _outputs(result: Any) -> tuple[Any, ...]:
    # A tuple of returns, a Tensor[] return (split, unbind), or one tensor.
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def refused_arguments(op: OpOverload, exempt: frozenset[str]) -> tuple[tuple[str, int], ...]:
    """(name, position) of each tensor argument torch's kernel for `op` refuses when it
    requires grad: those its derivatives.yaml entry neither differentiates nor marks
    non_differentiable (`exempt`), but `output`, which double-backward entries take without
    a formula. Keyword-only arguments have position -1. Torch: the check_no_requires_grad
    calls gen_variable_type.py emits (nll_loss_forward's `weight`)."""
    refused = []
    position = 0
    for argument in op._schema.arguments:
        here = -1 if argument.kwarg_only else position
        if not argument.kwarg_only:
            position += 1
        tensor_like = argument.type.schema_str().startswith("Tensor")
        if not tensor_like or argument.is_write or argument.name in exempt:
            continue
        if argument.name != "output":
            refused.append((argument.name, here))
    return tuple(refused)


def _check_no_requires_grad(
    name: str, refused: tuple[tuple[str, int], ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Torch: check_no_requires_grad (torch/csrc/autograd/FunctionsManual.cpp)."""
    for argument, position in refused:
        value = args[position] if 0 <= position < len(args) else kwargs.get(argument)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, TensorImpl) and requires_grad(item):
                raise RuntimeError(
                    f"The function '{name}' is not differentiable with respect to argument "
                    f"'{argument}'. This input cannot have requires_grad True."
                )


def derivative_kernel(
    op: OpOverload,
    spec: NodeSpec,
    inplace: bool,
    refused: tuple[tuple[str, int], ...] = (),
) -> AutogradKernel:
    """The Autograd kernel of `op` from its node spec. Torch: a generated VariableType kernel
    (check_inplace, check_no_requires_grad for the `refused` arguments, the node, redispatch
    to ADInplaceOrView (inplace_or_view.py), then set_history, or rebase_history for an
    in-place op on a view)."""
    first = spec.inputs[0].name if spec.inputs else ""
    function_name = op._schema.name.partition("::")[2]
    simple_inputs, simple_spans = spec.simple_inputs, spec.simple_spans
    schema_first = op._schema.arguments[0] if op._schema.arguments else None
    alias = None if schema_first is None else schema_first.alias_info
    is_view_op = alias is not None and not alias.is_write

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        if not grad_enabled():
            return redispatch_below(op, keyset, args, kwargs)
        if simple_inputs is not None:
            # _edges for ops whose differentiable inputs are single positional tensors.
            edges = tuple(
                [
                    gradient_edge(value) if isinstance(value, TensorImpl) else None
                    for value in [args[i] for i in simple_inputs]
                ]
            )
            spans = simple_spans
        else:
            edges, spans = _edges(spec, args, kwargs)
        if inplace:
            # torch: check_inplace(self, compute_requires_grad(...)): a view made in no_grad
            # mode requires grad through its base but has no edge of its own.
            check_inplace(args[0], True)
        if refused:
            _check_no_requires_grad(function_name, refused, args, kwargs)
        if all(edge is None for edge in edges):
            return redispatch_below(op, keyset, args, kwargs)
        saved: dict[str, Any] = {name: save(args, kwargs) for name, save in spec.always_savers}
        if spec.saves_tensors:
            # Input tensors are saved for the formulas that will run: those of inputs that
            # need a gradient (torch: should_compute_output).
            for plan in spec.plans:
                if not any(edges[i] is not None for p in plan.inputs for i in range(*spans[p])):
                    continue
                for p in plan.params:
                    if p.kind == ARGUMENT and p.tensor and p.name not in saved:
                        if inplace and p.source == first:
                            # torch: an in-place op whose formula reads self's value saves a
                            # copy made before the write (original_self = self.clone()).
                            original = aten.clone.default(args[0])
                            saved[p.name] = SavedVariable(original, is_output=False)
                        else:
                            saved[p.name] = save_tensor_argument(p, args, kwargs)
        result = redispatch_below(op, keyset, args, kwargs)
        node = spec.node_class(spec, edges, spans, saved)
        outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        for i, out in enumerate(outputs):
            if not (
                isinstance(out, TensorImpl)
                and out._dtype.category in DIFFERENTIABLE
                and i not in spec.non_differentiable_outputs
            ):
                node.input_metadata.append(None)
                continue
            node.input_metadata.append((out._size, out._dtype, out._storage.device))  # type: ignore[arg-type]
            if inplace and out._base is not None:
                rebase_history(out, node)
                continue
            if out._autograd_meta is None:
                out._autograd_meta = AutogradMeta.of_output(node, i)
                out._key_set |= REQUIRES_GRAD_BIT
            else:
                set_history(out, node, i)
            if is_view_op and out._base is not None:
                # ADInplaceOrView recorded how the view was made; its grad_fn is current.
                out._autograd_meta.view_version = out._version
        # torch saves the outputs its formulas read whatever inputs need a gradient.
        for p in spec.saved_outputs:
            out = outputs[p.output]
            if isinstance(out, TensorImpl):
                saved[p.name] = SavedVariable(out, is_output=True, output_nr=p.output)
            elif isinstance(out, (list, tuple)):
                saved[p.name] = [
                    SavedVariable(item, is_output=True, output_nr=i) for i, item in enumerate(out)
                ]
        return result

    kernel.__name__ = f"{op.name()}_autograd"
    return kernel


# --- ops autograd has no formula for --------------------------------------------------------


class NotImplementedNode(Node):
    """Torch: torch::autograd::NotImplemented (its name() is the qualified C++ name)."""

    __slots__ = ("_message",)

    def __init__(self, message: str, next_edges: tuple[Any, ...]) -> None:
        super().__init__(next_edges)
        self._message = message

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: list[Any]) -> list[Any]:
        raise RuntimeError(self._message)


NotImplementedNode.__name__ = "NotImplemented"
NotImplementedNode.__qualname__ = "NotImplemented"


def not_implemented_fallback(
    keyset: DispatchKeySet, op: OpOverload, *args: Any, **kwargs: Any
) -> Any:
    """Record a node that raises when backward reaches it. Torch:
    autogradNotImplementedFallback ("derivative for aten::floor_divide is not implemented")."""
    tensors = [
        item
        for value in (*args, *kwargs.values())
        for item in (value if isinstance(value, (list, tuple)) else (value,))
        if isinstance(item, TensorImpl)
    ]
    if not grad_enabled() or not any(requires_grad(t) for t in tensors):
        return redispatch_below(op, keyset, args, kwargs)
    # torch: check_inplace on each tensor the op writes (a leaf that requires grad, or a view
    # autograd could not rebase, is refused before the call).
    for position, argument in enumerate(op._schema.arguments):
        if argument.is_write:
            written = kwargs.get(argument.name) if argument.kwarg_only else args[position]
            if isinstance(written, TensorImpl):
                check_inplace(written, True)
    name = op.name().partition(".")[0]
    facts = autograd_facts().get(op.name())
    message = f"derivative for {name} is not implemented"
    if facts is not None and facts.category == "formula":
        message += " (refimpl does not implement this derivative yet; torch does)"
    edges = tuple(gradient_edge(t) for t in tensors if requires_grad(t))
    result = redispatch_below(op, keyset, args, kwargs)
    node = NotImplementedNode(message, edges)
    outputs = _outputs(result)
    for i, out in enumerate(outputs):
        if isinstance(out, TensorImpl) and differentiable(out):
            node.add_input_metadata(out)
            set_history(out, node, i)
        else:
            node.input_metadata.append(None)
    return result


def out_kernel(op: OpOverload, differentiable_arguments: frozenset[str]) -> AutogradKernel:
    """Torch: the generated kernel of an out= overload refuses a call where an argument its
    functional form differentiates requires grad (`torch.add(x, 1, out=o)`), and runs any
    other (`torch.eq(x, 0.5, out=o)`: eq has no derivative)."""
    name = op.name().partition("::")[2].partition(".")[0]
    checked = tuple(
        (argument.name, -1 if argument.kwarg_only else position)
        for position, argument in enumerate(op._schema.arguments)
        if argument.name in differentiable_arguments and not argument.is_write
    )

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        if checked and grad_enabled() and _any_requires_grad(checked, args, kwargs):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        return redispatch_below(op, keyset, args, kwargs)

    return kernel


_FACTORY_OPTIONS: Final = frozenset(("dtype", "layout", "device", "pin_memory"))


def _functional_of(op: OpOverload) -> str | None:
    """The qualified functional overload of an out= overload: the one of its packet with the
    same arguments but the outputs (`aten::add.Tensor` for `aten::add.out`)."""

    def inputs(schema: Any) -> list[tuple[str, str]]:
        # The factory options of a functional form have no place in its out= form.
        return [
            (a.name, a.type.schema_str())
            for a in schema.arguments
            if not (a.kwarg_only and (a.is_write or a.name in _FACTORY_OPTIONS))
        ]

    wanted = inputs(op._schema)
    packet_name = op._schema.name.partition("::")[2]
    packet = getattr(aten, packet_name)
    for overload in packet.overloads():
        candidate = getattr(packet, overload)
        schema = candidate._schema
        if candidate is op or any(a.is_write and a.kwarg_only for a in schema.arguments):
            continue
        if inputs(schema) == wanted:
            return str(candidate.name())
    return None


def passthrough_kernel(op: OpOverload) -> AutogradKernel:
    """Torch: the generated kernel of a non-differentiable op: run it, record nothing."""

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        return redispatch_below(op, keyset, args, kwargs)

    return kernel


def _any_requires_grad(
    checked: tuple[tuple[str, int], ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> bool:
    # `checked`: (name, position) of the arguments to look at; position -1: keyword-only.
    for name, position in checked:
        value = args[position] if 0 <= position < len(args) else kwargs.get(name)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, TensorImpl) and requires_grad(item):
                return True
    return False


# --- registration -----------------------------------------------------------------------------

_AUTOGRAD: Final = DispatchKey.Autograd
# Every runtime autograd key, as the dispatcher's built-in fallthroughs list them.
_AUTOGRAD_FALLBACK_KEYS: Final = tuple(
    key for key in DispatchKey if key.name.startswith("Autograd") and key in SLOT_INDEX
)


def _register(op: OpOverload, kernel: AutogradKernel, what: str) -> None:
    record = KernelRecord(
        kernel, f"refimpl autograd ({what})", with_keyset=True, passes_without_grad=True
    )
    DISPATCHER.entry(op.name()).register_kernel(_AUTOGRAD, record)


def _overload(qualified: str) -> OpOverload:
    name, _, overload = qualified.partition("::")[2].partition(".")
    packet = getattr(aten, name)
    found: OpOverload = getattr(packet, overload or "default")
    return found


# torch: the ops of VariableTypeManual.cpp, each as the kind of kernel it amounts to: copy_
# records CopyBackwards (its formulas are declared with copy_); detach, resize_ and
# resize_as_ record nothing (resize_ refuses a tensor that requires grad itself).
_MANUAL: Final[dict[str, tuple[str, AutogradFacts | None]]] = {
    "aten::copy_": (
        "formula",
        AutogradFacts(
            "formula", "CopyBackwards", "aten::copy_", frozenset(), frozenset(("self", "src"))
        ),
    ),
    "aten::detach": ("not_differentiable", None),
    "aten::resize_": ("not_differentiable", None),
    "aten::resize_as_": ("not_differentiable", None),
}


def register_autograd_kernels() -> dict[str, str]:
    """Give each overload refimpl implements the Autograd kernel torch's autograd has for it;
    the kind per overload, for reports. Torch: the VariableType registrations."""
    facts = autograd_facts()
    kinds: dict[str, str] = {}
    for qualified in registered_overloads():
        entry = DISPATCHER.find(qualified)
        if entry is None or entry.kernels_for(DispatchKey.CompositeImplicitAutograd):
            continue  # a decomposition: its ops record themselves
        fact = facts.get(qualified)
        op = _overload(qualified)
        category = "not_implemented" if fact is None else fact.category
        if category == "manual":
            category, fact = _MANUAL[qualified]
        if category == "formula" and fact is not None and fact.formula_of in DERIVATIVES:
            formula_of = fact.formula_of
            spec = NodeSpec(
                fact.node or "", _overload(formula_of)._schema, DERIVATIVES[formula_of], fact.saved
            )
            first = op._schema.arguments[0] if op._schema.arguments else None
            inplace = first is not None and first.is_write and not first.kwarg_only
            refused = refused_arguments(op, fact.exempt)
            _register(op, derivative_kernel(op, spec, inplace, refused), "derivative")
            kinds[qualified] = "derivative"
        elif category == "out":
            # torch: an out= overload's kernel is its functional form's: a derivative refuses
            # arguments that require grad, none records nothing, and without an entry the
            # not-implemented fallback records NotImplemented (linspace.Tensor_Scalar_out).
            functional = _functional_of(op)
            functional_fact = None if functional is None else facts.get(functional)
            functional_kind = None if functional_fact is None else functional_fact.category
            if functional_fact is not None and functional_kind == "formula":
                _register(op, out_kernel(op, functional_fact.differentiable), "out=")
                kinds[qualified] = "out"
            elif functional_kind in ("not_differentiable", "composite_implicit", "manual"):
                _register(op, passthrough_kernel(op), "out= of a non-differentiable op")
                kinds[qualified] = "not_differentiable"
            else:
                kinds[qualified] = "fallback"
        elif category == "not_differentiable":
            _register(op, passthrough_kernel(op), "not differentiable")
            kinds[qualified] = "not_differentiable"
        elif fact is not None and fact.resets_grad_accumulator:
            _register(op, resetting_kernel(op), "not implemented, resets the accumulator")
            kinds[qualified] = "fallback"
        else:
            kinds[qualified] = "fallback"
    return kinds


def resetting_kernel(op: OpOverload) -> AutogradKernel:
    """The not-implemented kernel, then `self` loses its gradient accumulator, in every grad
    mode: its next AccumulateGrad is made for its new geometry. Torch: the generated kernels
    of set_ (RESET_GRAD_ACCUMULATOR in gen_variable_type.py, reset_grad_accumulator)."""

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        result = not_implemented_fallback(keyset, op, *args, **kwargs)
        meta = args[0]._autograd_meta
        if meta is not None:
            meta._accumulator = None
        return result

    return kernel


def register_fallback() -> None:
    """The autograd keys' backend fallback: NotImplemented nodes. Torch:
    autogradNotImplementedFallback."""
    for key in _AUTOGRAD_FALLBACK_KEYS:
        # It replaces the fallthrough the dispatcher installs while autograd is not loaded.
        BACKEND_FALLBACKS.deregister(key)
        BACKEND_FALLBACKS.register(
            key,
            KernelRecord(
                not_implemented_fallback,
                "refimpl autograd fallback (autogradNotImplementedFallback)",
                with_keyset=True,
                boxed=True,
                passes_without_grad=True,
            ),
        )


AUTOGRAD_KINDS: Final = register_autograd_kernels()
register_fallback()
