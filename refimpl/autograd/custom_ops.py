"""The Autograd kernel of custom operators: a generated autograd.Function per overload.

Torch: torch/_library/autograd.py (make_autograd_impl, supports_tensorlist), the kernel that
CustomOpDef._register_autograd_dispatcher_impl and torch.library.register_autograd register
at the Autograd key. Importing this module installs `make_autograd_impl` as the factory of
those kernels (Note [Custom op autograd kernel] in dispatch/custom_ops.py).

When grad mode is on and some argument requires grad, the kernel runs a Function named
`GeneratedBackwardFor_<ns>_<op>_<overload>`: its forward runs the op below autograd and calls
the registered setup_context, its backward calls the registered backward (or raises when none
is). Otherwise the kernel only runs the op below autograd.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from refimpl._base.dtypes import ALL_DTYPES, DType
from refimpl._base.keys import AFTER_AUTOGRAD, AUTOGRAD_KEYS, DispatchKeySet
from refimpl._base.tags import Tag
from refimpl.autograd.function import BackwardCFunction, Function
from refimpl.autograd.grad_mode import GRAD_STATE
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.dispatch.custom_ops import (
    InfoProtocol,
    install_autograd_impl_factory,
    is_tensorlist_like_type,
)
from refimpl.dispatch.overloads import OpOverload
from refimpl.dispatch.schema import Argument
from refimpl.dispatch.tls import DISPATCH_TLS

__all__ = ["make_autograd_impl"]

_AFTER_AUTOGRAD: Final = AFTER_AUTOGRAD.raw
_AUTOGRAD: Final = AUTOGRAD_KEYS.raw

Spec = tuple[int | None, ...]
"""How a flat argument tuple rebuilds: per item, None for one value, n for a list of n.
Torch: the pytree TreeSpec supports_tensorlist keeps."""


@dataclass(slots=True)
class Metadata:
    """The generated Function's last argument: the call's key set and keyword-only arguments,
    and for an op with tensor lists, how its arguments and results were flattened.

    Torch: make_autograd_impl's Metadata and supports_tensorlist's TensorListMetadata.
    """

    keyset: DispatchKeySet
    keyword_only_args: dict[str, Any]
    dropped: tuple[Any, ...] = ()
    """The trailing positional arguments left out of the Function's (see _given)."""
    input_spec: Spec = ()
    output_spec: Spec = ()
    result_is_tuple: bool = True


def _redispatch_below_autograd(
    op: OpOverload, keyset: DispatchKeySet, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Run `op` below autograd, the autograd keys excluded while it runs. Torch:
    `op.redispatch(keyset & _after_autograd_keyset)` under _AutoDispatchBelowAutograd, which
    (unlike a generated kernel's guard) leaves ADInplaceOrView on: in-place ops the custom
    kernel runs still bump versions."""
    tls = DISPATCH_TLS
    saved = tls.excluded_raw
    tls.excluded_raw = saved | _AUTOGRAD
    try:
        return op.redispatch_bound(keyset.raw & _AFTER_AUTOGRAD, args, kwargs)
    finally:
        tls.excluded_raw = saved


def _any_requires_grad(values: Sequence[Any]) -> bool:
    """Torch: torch._C._any_requires_grad (tensors, and the tensors of lists)."""
    for value in values:
        for item in value if isinstance(value, list) else (value,):
            if isinstance(item, TensorImpl) and requires_grad(item):
                return True
    return False


def _is_default(value: Any, argument: Argument) -> bool:
    """Whether `value` is `argument`'s default. Torch: is_default in parseIValuesToPyArgsKwargs
    (torch/csrc/autograd/python_variable.cpp), IValue equality."""
    if not argument.has_default:
        return False
    default = argument.default_value
    if value is None or default is None or isinstance(value, TensorImpl):
        return value is None and default is None
    if isinstance(value, DType):
        return isinstance(default, int) and ALL_DTYPES[default] is value
    if isinstance(default, str):
        return str(value) == default  # a str, or a Device written as its string
    if isinstance(value, list) and isinstance(default, int):
        return value == [default] * len(value)  # int[2] stride=1
    if isinstance(default, tuple):
        return bool(value == list(default))
    if isinstance(value, bool) is not isinstance(default, bool):
        return False  # IValue equality: a bool equals no number
    return bool(value == default)


def _given(args: tuple[Any, ...], positional: tuple[Argument, ...]) -> int:
    """How many positional arguments a Python kernel is given: torch's dispatcher leaves out
    the trailing ones that equal their defaults, so the generated Function (and
    needs_input_grad) has only the others. Torch: parseIValuesToPyArgsKwargs."""
    n = len(args)
    while n > 0 and _is_default(args[n - 1], positional[n - 1]):
        n -= 1
    return n


# --- tensor lists (torch: supports_tensorlist) ---------------------------------------------------


def _flatten(values: Sequence[Any], *, optional: bool = False) -> tuple[list[Any], Spec]:
    """Lists of tensors spliced into one flat list (lists of tensors or None, if `optional`).
    Torch: tree_flatten with not_list_of_tensor / not_list_of_optional_tensor as leaves."""
    flat: list[Any] = []
    spec: list[int | None] = []
    for value in values:
        if isinstance(value, list) and all(
            isinstance(v, TensorImpl) or (optional and v is None) for v in value
        ):
            flat.extend(value)
            spec.append(len(value))
        else:
            flat.append(value)
            spec.append(None)
    return flat, tuple(spec)


def _unflatten(flat: Sequence[Any], spec: Spec) -> tuple[Any, ...]:
    """The values `_flatten` made `flat` from. Torch: tree_unflatten."""
    values: list[Any] = []
    i = 0
    for n in spec:
        if n is None:
            values.append(flat[i])
            i += 1
        else:
            values.append(list(flat[i : i + n]))
            i += n
    return tuple(values)


# --- the kernel ----------------------------------------------------------------------------------


def make_autograd_impl(op: OpOverload, info: InfoProtocol) -> Callable[..., Any]:
    """The Autograd kernel (taking the key set) of custom op `op`, with `info`'s backward and
    setup_context read at each call. Torch: make_autograd_impl in torch/_library/autograd.py.
    """
    schema = op._schema
    has_kwarg_only_args = any(a.kwarg_only for a in schema.arguments)
    # torch: supports_tensorlist wraps the Function when a tensor list is among the arguments
    # or returns: lists are flattened into the Function's arguments and results.
    tensorlist = any(is_tensorlist_like_type(a.type) for a in (*schema.arguments, *schema.returns))
    positional = tuple(a for a in schema.arguments if not a.kwarg_only)
    is_out = Tag.out in op.tags

    def run_forward(ctx: BackwardCFunction, given: tuple[Any, ...], metadata: Metadata) -> Any:
        # torch fills the defaults back in (fill_defaults): the op and setup_context see them.
        args = (*given, *metadata.dropped)
        kwargs = metadata.keyword_only_args
        result = _redispatch_below_autograd(op, metadata.keyset, args, kwargs)
        setup_context = info._setup_context_fn
        if setup_context is not None:
            if has_kwarg_only_args:
                setup_context(ctx=ctx, inputs=args, keyword_only_inputs=dict(kwargs), output=result)
            else:
                setup_context(ctx=ctx, inputs=args, output=result)
        return result

    def run_backward(ctx: BackwardCFunction, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        backward_fn = info._backward_fn
        if backward_fn is None:
            raise RuntimeError(
                f"Trying to backward through {op} but no autograd formula was registered. "
                "Please use register_autograd to add one."
            )
        result = backward_fn(ctx, *grads)
        return result if isinstance(result, tuple) else (result,)

    def forward(ctx: BackwardCFunction, *args: Any) -> Any:
        metadata = cast(Metadata, args[-1])
        if not tensorlist:
            return run_forward(ctx, args[:-1], metadata)
        result = run_forward(ctx, _unflatten(args[:-1], metadata.input_spec), metadata)
        metadata.result_is_tuple = isinstance(result, tuple)
        flat, metadata.output_spec = _flatten(result if metadata.result_is_tuple else (result,))
        if hasattr(ctx, "_pt_metadata"):
            raise RuntimeError("Please don't set ctx._pt_metadata; PyTorch uses it to store info")
        ctx._pt_metadata = metadata  # type: ignore[attr-defined]  # torch's attribute
        return tuple(flat)

    def backward(ctx: BackwardCFunction, *grads: Any) -> tuple[Any, ...]:
        # The user's backward sees needs_input_grad without the Metadata argument's entry
        # (and, with tensor lists, in the arguments' structure).
        previous = ctx.needs_input_grad
        metadata: Metadata | None = getattr(ctx, "_pt_metadata", None) if tensorlist else None
        if metadata is None:
            ctx.needs_input_grad = previous[:-1]
        else:
            grads = _unflatten(grads, metadata.output_spec)
            ctx.needs_input_grad = _unflatten(previous[:-1], metadata.input_spec)
        try:
            returned = run_backward(ctx, grads)
        finally:
            ctx.needs_input_grad = previous
        if metadata is None:
            return (*returned, None)
        flat, spec = _flatten(returned, optional=True)
        if spec != metadata.input_spec:
            # Differs: torch prints the two structures as pytree TreeSpecs.
            raise RuntimeError(
                "Expected the return from backward to be of the same structure as the inputs. "
                f"Got: {spec} (return from backward), {metadata.input_spec} (inputs)"
            )
        return (*flat, None)

    generated = cast(
        type[Function],
        type(
            f"GeneratedBackwardFor_{op.namespace}_{op._opname}_{op._overloadname}",
            (Function,),
            {"forward": staticmethod(forward), "backward": staticmethod(backward)},
        ),
    )

    # torch: the dispatcher passes keyword-only arguments as kwargs, all others positionally.
    def autograd_impl(keyset: DispatchKeySet, *args: Any, **keyword_only_args: Any) -> Any:
        if is_out:
            if GRAD_STATE.enabled and _any_requires_grad((*args, *keyword_only_args.values())):
                raise RuntimeError(
                    f"{op._opname}(): functions with out=... arguments don't support automatic "
                    "differentiation, but one of the arguments requires grad."
                )
            return _redispatch_below_autograd(op, keyset, args, keyword_only_args)
        if not (GRAD_STATE.enabled and _any_requires_grad(args)):
            return _redispatch_below_autograd(op, keyset, args, keyword_only_args)
        n = _given(args, positional)
        metadata = Metadata(keyset, keyword_only_args, args[n:])
        if not tensorlist:
            return generated.apply(*args[:n], metadata)
        flat, metadata.input_spec = _flatten(args[:n])
        result = _unflatten(generated.apply(*flat, metadata), metadata.output_spec)
        return result if metadata.result_is_tuple else result[0]

    autograd_impl.__name__ = f"{op.name()}_autograd"
    return autograd_impl


install_autograd_impl_factory(make_autograd_impl)
