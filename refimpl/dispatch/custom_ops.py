"""Operators defined from Python functions: `custom_op` and the registrations that take one
(register_kernel, register_fake, register_autograd), with the Autograd and ADInplaceOrView
kernels every custom op gets.

Torch: torch/_library/custom_ops.py (CustomOpDef, custom_op), torch/library.py
(register_kernel, register_fake, register_autograd), torch/_library/utils.py (the schema
checks). The generated autograd.Function lives in the autograd layer
(refimpl/autograd/custom_ops.py), reached through a factory it installs (Note [Custom op
autograd kernel]).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import AFTER_AD_INPLACE_OR_VIEW, DispatchKeySet
from refimpl._base.tags import Tag
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.library import Library, _keys_for, _library_for
from refimpl.dispatch.overloads import OpOverload, namespace
from refimpl.dispatch.schema import FunctionSchema
from refimpl.dispatch.schema_types import TENSOR, ListType, OptionalType, SchemaType

__all__ = [
    "CustomOpDef",
    "custom_op",
    "infer_schema",
    "register_autograd",
    "register_fake",
    "register_kernel",
]


def _qualified(op: str | OpOverload | CustomOpDef) -> str:
    if isinstance(op, CustomOpDef):
        return op._qualname
    if isinstance(op, OpOverload):
        return op.name()
    return op


def register_kernel(
    op: str | OpOverload | CustomOpDef,
    device_types: str | Sequence[str] | None,
    func: Callable[..., Any] | None = None,
    /,
    *,
    lib: Library | None = None,
) -> Any:
    """Register a kernel of an operator for device types. Torch: torch.library.register_kernel."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types or "default", func)
    qualname = _qualified(op)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        library = _library_for(qualname, lib)
        for key in _keys_for(device_types):
            library.impl(qualname.partition("::")[2], fn, key.name)
        return fn

    return register if func is None else register(func)


def register_fake(
    op: str | OpOverload | CustomOpDef,
    func: Callable[..., Any] | None = None,
    /,
    *,
    lib: Library | None = None,
    allow_override: bool = True,
) -> Any:
    """Register the fake (Meta) implementation: shapes and dtypes without data.

    Torch: torch.library.register_fake (registered at the Meta key).
    """
    if isinstance(op, CustomOpDef):
        return op.register_fake if func is None else op.register_fake(func)
    qualname = _qualified(op)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        library = _library_for(qualname, lib)
        library.impl(qualname.partition("::")[2], fn, "Meta", allow_override=allow_override)
        return fn

    return register if func is None else register(func)


# --- custom_op --------------------------------------------------------------------------------


def _schema_type(annotation: Any, name: str) -> str:
    # torch: infer_schema in torch/_library/infer_schema.py (the annotation table).
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = args[0] if args[1] is type(None) else args[1]
        return _schema_type(inner, name) + "?"
    if origin in (list, Sequence, typing.Sequence) and args:
        return _schema_type(args[0], name) + "[]"
    if isinstance(annotation, type) and issubclass(annotation, TensorImpl):
        return "Tensor"
    table: dict[Any, str] = {
        int: "SymInt",
        float: "float",
        bool: "bool",
        str: "str",
        DType: "ScalarType",
        device: "Device",
        complex: "complex",
    }
    found = table.get(annotation)
    if found is None:
        raise ValueError(f"infer_schema(func): Parameter {name} has unsupported type {annotation}.")
    return found


def infer_schema(fn: Callable[..., Any], mutates_args: str | Sequence[str]) -> str:
    """The schema of a Python function from its annotations. Torch: torch.library.infer_schema."""
    hints = typing.get_type_hints(fn)
    signature = inspect.signature(fn)
    mutated = (
        set()
        if mutates_args == "unknown"
        else set([mutates_args] if isinstance(mutates_args, str) else mutates_args)
    )
    parts: list[str] = []
    alias = 0
    for param in signature.parameters.values():
        if param.name not in hints:
            raise ValueError(
                f"infer_schema(func): Parameter {param.name} must have a type annotation. "
                f"Got func with signature {signature})"
            )
        text = _schema_type(hints[param.name], param.name)
        if param.name in mutated:
            text = text.replace("Tensor", f"Tensor(a{alias}!)", 1)
            alias += 1
        default = ""
        if param.default is not inspect.Parameter.empty:
            default = "=None" if param.default is None else f"={param.default!r}".replace("'", '"')
        prefix = (
            "*, "
            if param.kind is inspect.Parameter.KEYWORD_ONLY
            and not any(p.startswith("*") for p in parts)
            else ""
        )
        parts.append(f"{prefix}{text} {param.name}{default}")
    returns = hints.get("return")
    if returns is None or returns is type(None):
        out = "()"
    elif typing.get_origin(returns) is tuple:
        out = "(" + ", ".join(_schema_type(a, "return") for a in typing.get_args(returns)) + ")"
    else:
        out = _schema_type(returns, "return")
    return f"({', '.join(parts)}) -> {out}"


# --- what register_autograd asks of a schema (torch: torch/_library/utils.py) -------------------


def _is_tensor_like_type(schema_type: SchemaType) -> bool:
    """Tensor or Tensor?. Torch: is_tensor_like_type."""
    if isinstance(schema_type, OptionalType):
        schema_type = schema_type.element
    return schema_type == TENSOR


def is_tensorlist_like_type(schema_type: SchemaType) -> bool:
    """Tensor[], Tensor?[], Tensor[]? or Tensor?[]?. Torch: is_tensorlist_like_type."""
    if isinstance(schema_type, OptionalType):
        schema_type = schema_type.element
    return isinstance(schema_type, ListType) and _is_tensor_like_type(schema_type.element)


def _has_kwarg_only_tensors(schema: FunctionSchema) -> bool:
    """Torch: has_kwarg_only_tensors."""
    return any(
        a.kwarg_only and (_is_tensor_like_type(a.type) or is_tensorlist_like_type(a.type))
        for a in schema.arguments
    )


def _is_functional_schema(schema: FunctionSchema, *, allow_valid_view: bool = False) -> bool:
    """No argument written, at least one return, and no view unless `allow_valid_view` and
    the view is of one Tensor input as one Tensor output. Torch: is_functional_schema."""
    if schema.is_mutable:
        return False
    if any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns):
        tensors_in = sum(1 for a in schema.arguments if a.type == TENSOR)
        tensors_out = sum(1 for r in schema.returns if r.type == TENSOR)
        return allow_valid_view and tensors_in == 1 and tensors_out == 1
    return bool(schema.returns)


def _check_autograd_registration(op: OpOverload, shown: object) -> None:
    """torch's refusals of out= and non-functional operators (`shown` is how the message
    names the op: the CustomOpDef, or the OpOverload)."""
    if Tag.out in op.tags:
        raise RuntimeError(
            "Cannot register autograd formula for operator tagged with torch.Tag.out: "
            f"{shown}. Out variants do not support autograd."
        )
    if not _is_functional_schema(op._schema, allow_valid_view=isinstance(shown, CustomOpDef)):
        raise RuntimeError(
            f"Cannot register autograd formula for non-functional operator {shown} with "
            f"schema {op._schema}. Please create a functional operator and register an "
            "autograd formula for that."
        )


# --- the Autograd and ADInplaceOrView kernels of custom ops -------------------------------------

# Note [Custom op autograd kernel]
# Every custom op gets an Autograd kernel that runs a generated autograd.Function when some
# argument requires grad (torch: make_autograd_impl in torch/_library/autograd.py). That
# Function belongs to the autograd layer, above this one, so the autograd layer hands its
# factory in when it is imported (refimpl/autograd/custom_ops.py calls
# install_autograd_impl_factory): custom ops defined before then get their kernel at that
# moment, custom ops defined after get it in CustomOpDef.__init__.


class InfoProtocol(Protocol):
    """What a custom op's Autograd kernel reads at each call (None until register_autograd).
    Torch: torch._library.autograd.InfoProtocol."""

    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


@dataclass(slots=True)
class Info:
    """register_autograd's formula for an op that is not a CustomOpDef. Torch: Info."""

    _backward_fn: Callable[..., Any] | None
    _setup_context_fn: Callable[..., Any] | None


AutogradImplFactory = Callable[[OpOverload, InfoProtocol], Callable[..., Any]]

AUTOGRAD_IMPL_FACTORY: Final[list[AutogradImplFactory]] = []
"""The autograd layer's make_autograd_impl, once it is imported (Note [Custom op autograd
kernel]); a holder of at most one factory."""

OPDEFS: Final[dict[str, CustomOpDef]] = {}
"""Every CustomOpDef by qualified name. Torch: OPDEFS in torch/_library/custom_ops.py."""


def install_autograd_impl_factory(factory: AutogradImplFactory) -> None:
    """Make `factory` build custom ops' Autograd kernels; the live ones get theirs now."""
    AUTOGRAD_IMPL_FACTORY[:] = [factory]
    for opdef in list(OPDEFS.values()):
        if opdef._lib._finalizer.alive:
            opdef._register_autograd_dispatcher_impl()


def _increment_version(value: Any) -> None:
    # torch: increment_version in torch/_library/custom_ops.py (a tensor, or each of a list's).
    for item in value if isinstance(value, (list, tuple)) else (value,):
        if isinstance(item, TensorImpl):
            item._version_counter.bump()


def _mutation_version_bump(op: OpOverload) -> Callable[..., Any]:
    """The ADInplaceOrView kernel of a mutable custom op: bump the version of every argument
    it writes, then run it below. Torch: CustomOpDef._register_mutation_version_bump (which
    bumps before the call, as here, so the kernel already sees the new version)."""
    schema = op._schema
    positions = tuple(i for i, a in enumerate(schema.arguments) if a.is_write and not a.kwarg_only)
    names = tuple(a.name for a in schema.arguments if a.is_write and a.kwarg_only)

    def kernel(keyset: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        for i in positions:
            _increment_version(args[i])
        for name in names:
            _increment_version(kwargs[name])
        return op.redispatch_bound(keyset.raw & _AFTER_AD_INPLACE_OR_VIEW, args, kwargs)

    return kernel


_AFTER_AD_INPLACE_OR_VIEW: Final = AFTER_AD_INPLACE_OR_VIEW.raw


class CustomOpDef:
    """An operator defined from a Python function. Torch: torch._library.custom_ops.CustomOpDef.

    The function is the CompositeExplicitAutograd kernel (opaque to decomposition); fake and
    per-device kernels and an autograd formula can be added. The op has an Autograd kernel
    from the start (Note [Custom op autograd kernel]): without a formula, backward through it
    raises. A mutable op also has an ADInplaceOrView kernel that bumps the versions of the
    arguments it writes.
    """

    def __init__(
        self, qualname: str, schema: str, fn: Callable[..., Any], tags: Sequence[str]
    ) -> None:
        self._qualname = qualname
        self._lib = Library(qualname.partition("::")[0], "FRAGMENT")
        self._name = qualname.partition("::")[2]
        self._lib.define(self._name + schema, tags=tags)
        self._lib.impl(self._name, fn, "CompositeExplicitAutograd")
        # torch: the Meta kernel runs the fake impl, and says so when none was registered.
        self._fake_fn: Callable[..., Any] | None = None
        self._lib.impl(self._name, self._run_fake, "Meta")
        self._opoverload: OpOverload = getattr(
            namespace(qualname.partition("::")[0]), self._name
        ).default
        self._init_fn = fn
        self._backward_fn: Callable[..., Any] | None = None
        self._setup_context_fn: Callable[..., Any] | None = None
        self._has_autograd_kernel = False
        self._register_autograd_dispatcher_impl()
        if self._opoverload._schema.is_mutable:
            bump = _mutation_version_bump(self._opoverload)
            self._lib.impl(self._name, bump, "ADInplaceOrView", with_keyset=True)
        OPDEFS[qualname] = self

    def _register_autograd_dispatcher_impl(self) -> None:
        """Torch: CustomOpDef._register_autograd_dispatcher_impl (Note [Custom op autograd
        kernel]); nothing until the autograd layer has installed its factory."""
        if self._has_autograd_kernel or not AUTOGRAD_IMPL_FACTORY:
            return
        kernel = AUTOGRAD_IMPL_FACTORY[0](self._opoverload, self)
        self._lib.impl(self._name, kernel, "Autograd", with_keyset=True)
        self._has_autograd_kernel = True

    def _run_fake(self, *args: Any, **kwargs: Any) -> Any:
        if self._fake_fn is None:
            raise RuntimeError(
                f"There was no fake impl registered for {self}. This is necessary for "
                "torch.compile/export/fx tracing to work. Please use "
                f"`{self._init_fn.__name__}.register_fake` to add an fake impl."
            )
        return self._fake_fn(*args, **kwargs)

    def register_fake(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Set the fake (meta) implementation. Torch: CustomOpDef.register_fake."""
        self._fake_fn = fn
        return fn

    def register_kernel(
        self, device_types: str | Sequence[str], fn: Callable[..., Any] | None = None
    ) -> Any:
        def register(kernel: Callable[..., Any]) -> Callable[..., Any]:
            for key in _keys_for(device_types):
                self._lib.impl(self._name, kernel, key.name)
            return kernel

        return register if fn is None else register(fn)

    def register_autograd(
        self, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None
    ) -> None:
        """Set the backward formula, and the setup_context that saves what it needs.

        Torch: CustomOpDef.register_autograd. `backward(ctx, *grads)` returns one gradient
        per input; `setup_context(ctx, inputs, output)` (with `keyword_only_inputs` before
        `output` when the op has keyword-only arguments) runs in forward. The Autograd kernel
        reads both at each call, so a registration applies to later backward passes.
        """
        _check_autograd_registration(self._opoverload, self)
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"


def custom_op(
    name: str,
    fn: Callable[..., Any] | None = None,
    /,
    *,
    mutates_args: str | Sequence[str],
    device_types: str | Sequence[str] | None = None,
    schema: str | None = None,
    tags: Sequence[str] | None = None,
) -> Any:
    """Define an operator from a Python function. Torch: torch.library.custom_op.

    The result is a CustomOpDef: register_fake, register_kernel and register_autograd add
    to it.
    """

    def wrap(func: Callable[..., Any]) -> CustomOpDef:
        op_schema = schema if schema is not None else infer_schema(func, mutates_args)
        result = CustomOpDef(name, op_schema, func, tags or ())
        if device_types is not None:
            result.register_kernel(device_types, func)
        return result

    return wrap if fn is None else wrap(fn)


def _lookup_op(qualname: str) -> OpOverload:
    """The overload `ns::name` or `ns::name.overload` names. Torch: lookup_op."""
    ns, _, name = qualname.partition("::")
    opname, _, overload = name.partition(".")
    found: OpOverload = getattr(getattr(namespace(ns), opname), overload or "default")
    return found


def register_autograd(
    op: str | OpOverload | CustomOpDef,
    backward: Callable[..., Any],
    /,
    *,
    setup_context: Callable[..., Any] | None = None,
    lib: Library | None = None,
) -> None:
    """Register the backward formula of an operator. Torch: torch.library.register_autograd.

    A custom op (or its name) gets it through CustomOpDef.register_autograd; another operator
    gets an Autograd kernel made from it (Note [Custom op autograd kernel]).
    """
    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        message = f"register_autograd({op}): got unexpected type for op: {type(op)}"
        raise ValueError(message)  # noqa: TRY004 - torch's type
    qualname = _qualified(op)
    opdef = op if isinstance(op, CustomOpDef) else OPDEFS.get(qualname)
    if opdef is not None:
        opdef.register_autograd(backward, setup_context=setup_context)
        return
    overload = _lookup_op(qualname)
    _check_autograd_registration(overload, overload)
    if _has_kwarg_only_tensors(overload._schema):
        raise NotImplementedError(
            "register_autograd with kwarg-only Tensor args. In the original definition of the "
            "op, please make your tensors not kwarg-only. Got: "
            f"{overload._schema}"
        )
    # refimpl imports its autograd layer with the package, so the factory is installed.
    kernel = AUTOGRAD_IMPL_FACTORY[0](overload, Info(backward, setup_context))
    library = _library_for(qualname, lib)
    library.impl(qualname.partition("::")[2], kernel, "Autograd", with_keyset=True)

