"""`refimpl.overrides`: the `__torch_function__` protocol's public helpers.

Torch: torch/overrides.py. The machinery lives in the API layer
(refimpl/api/_torch_function.py); this module gives it torch's public names, and the tables of
which functions are overridable, named as torch names them (spec/torch_function.json).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Self

import refimpl
from refimpl._base.spec import api_testing_override, torch_function_facts
from refimpl.api._torch_function import (
    TF_TLS,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    append_overloaded,
    is_overridable,
    mode_stack,
    pop_mode,
    push_mode,
    takes_part,
)
from refimpl.api._torch_function import (
    _pop_mode_temporarily as _pop_mode_temporarily,  # noqa: PLC0414  # re-exported, as torch.overrides has it
)
from refimpl.api._torch_function import (
    handle_torch_function as _handle,
)
from refimpl.api.tensor import Tensor
from refimpl.dispatch.overloads import OpOverload, OpOverloadPacket

__all__ = [
    "BaseTorchFunctionMode",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "resolve_name",
    "wrap_torch_function",
]


class TorchFunctionMode:
    """Override every overridable function inside a `with` block. Torch:
    torch.overrides.TorchFunctionMode (a mode is off while its own handler runs; calls the
    handler makes go to the next mode on the stack)."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(
        self, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        raise NotImplementedError

    def __enter__(self) -> Self:
        _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchFunctionMode:
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that calls the function. Torch: torch.overrides.BaseTorchFunctionMode."""

    def __torch_function__(
        self, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        return func(*args, **(kwargs or {}))


def _push_mode(mode: Any) -> None:
    push_mode(mode)


def _pop_mode() -> Any:
    return pop_mode()


def _get_current_function_mode() -> Any:
    stack = mode_stack()
    return stack[-1] if stack else None


def _get_current_function_mode_stack() -> list[Any]:
    return mode_stack()


def _len_torch_function_stack() -> int:
    return len(TF_TLS.stack)


# --- checks and handling (torch's Python API) ----------------------------------------------


def _get_overloaded_args(
    relevant_args: Iterable[Any], get_type_fn: Callable[[Any], type] = type
) -> list[Any]:
    """Torch: torch.overrides._get_overloaded_args (plain Tensors count here, as in torch's
    Python version; the bindings leave them out)."""
    found: list[Any] = []
    seen: list[type] = []
    for arg in relevant_args:
        method = getattr(get_type_fn(arg), "__torch_function__", None)
        if method is None or getattr(method, "__func__", method) is _disabled_torch_function_impl:
            continue
        append_overloaded(found, seen, arg, get_type_fn)
    return found


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether a mode is active or an argument's type takes part. Torch:
    torch._C._has_torch_function."""
    if TF_TLS.modes_active:
        return True
    return TF_TLS.state == 0 and any(takes_part(type(a)) for a in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Torch: torch.overrides.handle_torch_function."""
    return _handle(
        public_api, _get_overloaded_args(relevant_args), args, kwargs, python_level=True
    )


def wrap_torch_function(dispatcher: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator that puts a function behind the protocol, with `dispatcher` naming its
    relevant arguments. Torch: torch.overrides.wrap_torch_function."""

    def inner(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def is_tensor_like(inp: Any) -> bool:
    """Torch: torch.overrides.is_tensor_like."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


# --- the tables, by torch's names ---------------------------------------------------------


def _resolve(qualified: str) -> Any:
    """The refimpl object for a torch name (`torch.add`, `torch.Tensor.shape.__get__`), or
    None where refimpl does not have it."""
    parts = qualified.split(".")
    if parts[0] != "torch":
        return None
    if parts[1:2] == ["functional"] and len(parts) == 3:
        # torch.functional's functions (norm, einsum, split, ...) are refimpl's top-level ones.
        return getattr(refimpl, parts[2], None)
    obj: Any = refimpl
    for i, part in enumerate(parts[1:], start=1):
        if part in ("__get__", "__set__") and i == len(parts) - 1:
            static = obj
            return getattr(static, part, None) if isinstance(static, property) else None
        if isinstance(obj, type):
            found = inspect.getattr_static(obj, part, None)
            if isinstance(found, property):
                obj = found
                continue
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj


@functools.cache
def _tables() -> tuple[dict[Any, list[Any]], dict[Any, str], set[Any]]:
    facts = torch_function_facts()
    by_namespace: dict[Any, list[Any]] = {}
    names: dict[Any, str] = {}
    for qualified in facts.overridable:
        obj = _resolve(qualified)
        if obj is None or not (is_overridable(obj) or _is_property_accessor(obj)):
            continue
        namespace = _resolve(qualified.rpartition(".")[0])
        if isinstance(namespace, property):
            namespace = Tensor
        if obj not in names:
            by_namespace.setdefault(namespace, []).append(obj)
        names[obj] = facts.resolved_as.get(qualified, qualified)
    ignored = {obj for name in facts.ignored if (obj := _resolve(name)) is not None}
    for qualified in facts.mode_only:
        obj = _resolve(qualified)
        if obj is not None and is_overridable(obj):
            names[obj] = qualified
    return by_namespace, names, ignored


def _is_property_accessor(obj: Any) -> bool:
    return isinstance(getattr(obj, "__self__", None), property)


def get_overridable_functions() -> dict[Any, list[Any]]:
    """Namespace (refimpl, refimpl.special, refimpl.Tensor) -> its overridable functions.
    Torch: torch.overrides.get_overridable_functions (restricted to what refimpl has)."""
    return {k: list(v) for k, v in _tables()[0].items()}


def resolve_name(f: Any) -> str | None:
    """The name torch gives the function a handler is told of (`torch.Tensor.add`). Torch:
    torch.overrides.resolve_name."""
    if isinstance(f, OpOverload | OpOverloadPacket):
        return str(f)
    try:
        return _tables()[1].get(f)
    except TypeError:  # an unhashable object
        return None


def get_ignored_functions() -> set[Any]:
    """Public functions that take tensors but are not overridable. Torch:
    torch.overrides.get_ignored_functions (restricted to what refimpl has)."""
    return set(_tables()[2])


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """Torch: torch.overrides.is_tensor_method_or_property."""
    return func in _tables()[0].get(Tensor, ()) or getattr(func, "__name__", "") == "__get__"


def get_testing_overrides() -> dict[Any, Callable[..., Any]]:
    """Each overridable function -> a lambda with torch's testing signature returning -1.
    Torch: torch.overrides.get_testing_overrides (restricted to what refimpl has)."""
    result: dict[Any, Callable[..., Any]] = {}
    for obj, qualified in _tables()[1].items():
        namespace, _, name = qualified.rpartition(".")
        key = "Tensor" if namespace == "torch.Tensor" else namespace
        params = api_testing_override(key, name)
        if params is None:
            continue
        result[obj] = _dummy(params)
    return result


def _dummy(params: Any) -> Callable[..., Any]:
    parameters = [
        inspect.Parameter(p.name, getattr(inspect.Parameter, p.kind.name)) for p in params
    ]

    def dummy(*args: Any, **kwargs: Any) -> int:
        return -1

    dummy.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return dummy


