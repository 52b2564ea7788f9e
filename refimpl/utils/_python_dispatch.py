"""`refimpl.utils._python_dispatch`: TorchDispatchMode, the mode stack's helpers, and the
helpers wrapper subclasses use.

Torch: torch/utils/_python_dispatch.py. The stack itself and the Python key's fallback live in
refimpl/dispatch/python_dispatch.py (torch keeps them in C++: TorchDispatchModeTLS and
PythonFallbackKernel.cpp); this is the public module over them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from refimpl.core.tensor import _TENSOR_CLASS, TensorImpl
from refimpl.dispatch import python_dispatch
from refimpl.dispatch.overloads import OpOverload

__all__ = [
    "TorchDispatchMode",
    "is_traceable_wrapper_subclass",
    "is_traceable_wrapper_subclass_type",
    "return_and_correct_aliasing",
]


class TorchDispatchMode:
    """Within `with mode:`, every aten call reaches `mode.__torch_dispatch__(func, types,
    args, kwargs)` at the Python key (after Autograd; see Note [When the Python key runs]).

    Torch: torch.utils._python_dispatch.TorchDispatchMode. While the handler runs the mode is
    off the stack, so the ops it calls go to the next mode or to the kernels; `with self:`
    inside the handler makes them reach it again.
    """

    supports_higher_order_operators = False

    def __init__(self, _dispatch_key: Any = None) -> None:
        if _dispatch_key is not None:
            # Differs: torch pushes a mode made with _dispatch_key=PreDispatch on the
            # PreDispatch stack (make_fx(pre_dispatch=True)); refimpl has no such stack.
            raise NotImplementedError(
                "refimpl: TorchDispatchMode(_dispatch_key=...) (the PreDispatch mode stack) "
                "is not implemented"
            )

    def __torch_dispatch__(
        self, func: OpOverload, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        raise NotImplementedError

    def __enter__(self) -> Any:
        _push_mode(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> Any:
        """A new mode (use `with Mode():`). Torch: TorchDispatchMode.push (deprecated)."""
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        """Whether this is one of torch's infra modes (Fake, Proxy, Functional): never here."""
        return False

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        """Torch: TorchDispatchMode.ignore_compile_internals (True for infra modes)."""
        return cls.is_infra_mode()


class BaseTorchDispatchMode(TorchDispatchMode):
    """A mode that runs every op unchanged. Torch: BaseTorchDispatchMode."""

    def __torch_dispatch__(
        self, func: OpOverload, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        return func(*args, **(kwargs or {}))


def _get_current_dispatch_mode() -> Any:
    """The top mode (the next to run), or None. Torch: _get_current_dispatch_mode."""
    n = python_dispatch.stack_len()
    return python_dispatch.get_stack_at(n - 1) if n > 0 else None


def _get_current_dispatch_mode_stack() -> list[Any]:
    """The modes, bottom first. Torch: _get_current_dispatch_mode_stack."""
    return [python_dispatch.get_stack_at(i) for i in range(python_dispatch.stack_len())]


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    """Whether a mode is on the stack. Torch: is_in_torch_dispatch_mode."""
    return python_dispatch.stack_len() > 0


def _push_mode(mode: TorchDispatchMode) -> None:
    """Torch: _push_mode (torch._C._push_on_torch_dispatch_stack)."""
    python_dispatch.push_mode(mode)


def _pop_mode(k: Any = None) -> Any:
    """Torch: _pop_mode (torch._C._pop_torch_dispatch_stack)."""
    return python_dispatch.pop_mode()


@contextlib.contextmanager
def _pop_mode_temporarily(k: Any = None) -> Iterator[Any]:
    """The top mode off the stack for the block. Torch: _pop_mode_temporarily."""
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


@contextlib.contextmanager
def _disable_current_modes() -> Iterator[list[Any]]:
    """Every mode off the stack for the block (top first in the list it yields).

    Torch: _disable_current_modes.
    """
    old_modes = [_pop_mode() for _ in range(python_dispatch.stack_len())]
    try:
        yield old_modes
    finally:
        for mode in reversed(old_modes):
            _push_mode(mode)


# --- wrapper subclasses -------------------------------------------------------------------------


def _has_traceable_wrapper_subclass_protocol(t: object) -> bool:
    return hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__")


def is_traceable_wrapper_subclass(t: object) -> bool:
    """Whether `t` is a tensor subclass with `__tensor_flatten__` and `__tensor_unflatten__`.

    Torch: is_traceable_wrapper_subclass.
    """
    is_subclass = isinstance(t, TensorImpl) and type(t) is not _plain_tensor_class()
    return is_subclass and _has_traceable_wrapper_subclass_protocol(t)


def is_traceable_wrapper_subclass_type(t: type) -> bool:
    """is_traceable_wrapper_subclass for a type. Torch: is_traceable_wrapper_subclass_type."""
    return (
        issubclass(t, TensorImpl)
        and t is not _plain_tensor_class()
        and _has_traceable_wrapper_subclass_protocol(t)
    )


def _plain_tensor_class() -> type:
    # The class api/tensor.py registered (refimpl.Tensor).
    return _TENSOR_CLASS[0]


def _alias_sets(argument: Any) -> frozenset[str]:
    info = argument.alias_info
    return frozenset() if info is None else info.before_set


def return_and_correct_aliasing(func: OpOverload, args: Any, kwargs: Any, out: Any) -> Any:
    """`out` as the op's schema says it is returned: a view op's outputs share the storage of
    the input they alias; an in-place or out= op returns the argument it wrote.

    Torch: return_and_correct_aliasing (for wrapper subclasses' `__torch_dispatch__`).
    Differs: inplace_view ops (`t_`, `as_strided_`) do not re-run on the wrapper's metadata.
    """
    schema = func._schema
    arguments = schema.arguments
    returns = schema.returns
    outs = out if isinstance(out, tuple) else (out,)
    # torch: _correct_storage_aliasing: a read-only alias between an argument and a return.
    for i, argument in enumerate(arguments):
        sets = _alias_sets(argument)
        if not sets or (argument.alias_info is not None and argument.alias_info.is_write):
            continue
        if i >= len(args):
            continue
        for j, returned in enumerate(returns):
            if sets & _alias_sets(returned) and j < len(outs):
                _share_storage(outs[j], args[i])
    write_aliases = [
        next(iter(_alias_sets(r))) if r.alias_info is not None and r.alias_info.is_write else None
        for r in returns
    ]
    if not any(alias is not None for alias in write_aliases):
        return out
    written = [alias for alias in write_aliases if alias is not None]
    if len(written) != len(write_aliases):
        raise RuntimeError("Unsupported schema: " + str(schema))
    found = [_argument_for(func, alias, args, kwargs or {}) for alias in written]
    if len(found) == 1:
        return found[0]
    return type(out)(found)


def _share_storage(ret: Any, arg: Any) -> None:
    # torch: torch._functionalize_unsafe_set: the output takes the input's storage, keeping its
    # own sizes and strides.
    for r in ret if isinstance(ret, list) else [ret]:
        if isinstance(r, TensorImpl) and isinstance(arg, TensorImpl):
            r._storage = arg._storage
            r._array_cache = None


def _argument_for(func: OpOverload, alias: str, args: Any, kwargs: dict[str, Any]) -> Any:
    # torch: get_arg_from_alias: the one argument annotated with the output's alias set.
    for i, argument in enumerate(func._schema.arguments):
        if alias in _alias_sets(argument):
            if argument.name in kwargs:
                return kwargs[argument.name]
            return args[i]
    raise AssertionError("Expected exactly one argument index for the given output alias")
