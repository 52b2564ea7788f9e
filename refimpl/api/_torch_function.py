"""The `__torch_function__` protocol: how a call at the torch API reaches a TorchFunctionMode or
a Tensor subclass before refimpl computes it.

Torch: torch/overrides.py (handle_torch_function, _get_overloaded_args, TorchFunctionMode and
its stack helpers), torch/csrc/utils/python_arg_parser.cpp and
torch/csrc/utils/disable_torch_function.cpp (has_torch_function, the DisableTorchFunction
guards, the per-thread mode stack), torch/_tensor.py (Tensor.__torch_function__, _convert).

Every public callable of the API (refimpl.* functions, Tensor methods, properties and Python
operators) is wrapped once, when the API is assembled, by `overridable`: the wrapper reads
`PROTOCOL.active` and, only when a mode is on the stack or a Tensor subclass that takes part
exists, collects the overloaded arguments and calls `handle_torch_function`. A program
without modes and subclasses pays one call and that read per API call. Objects that are
not Tensors but define `__torch_function__` (torch's "tensor-likes") are looked for when the
call fails on them (Note [Tensor-likes] in `overridable`), so looking costs nothing before.

What torch tells a handler is data (spec/torch_function.json, extracted from torch): the
function object (`refimpl.Tensor.add` for `x + 1`, `refimpl.Tensor.shape.__get__` for
`x.shape`) and the types of the overloaded arguments: subclasses of Tensor, plus plain Tensors
where torch's binding reports them (Python-level methods of torch/_tensor.py and methods that
take nothing but self).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from refimpl._base.spec import torch_function_facts
from refimpl.core.tensor import TensorImpl

Function = Callable[..., Any]


def _disabled_torch_function_impl(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """The `__torch_function__` of types that take no part in the protocol (torch.nn.Parameter
    sets it). Torch: torch._C._disabled_torch_function_impl."""
    return func(*args, **(kwargs or {}))


class _ProtocolState:
    """What makes any call look for handlers, process-wide: `active` is one read on the hot
    path, true while a Tensor subclass that takes part exists or some thread has a mode on its
    stack (the thread's own state is then asked)."""

    subclassed = False
    modes_pushed = 0  # over all threads
    active = False

    def update(self) -> None:
        self.active = self.subclassed or self.modes_pushed > 0


PROTOCOL: Final = _ProtocolState()

# torch: torch._C._TorchFunctionState.
ENABLED: Final = 0
SUBCLASSES_DISABLED: Final = 1
ALL_DISABLED: Final = 2


class TorchFunctionTLS(threading.local):
    """The thread's mode stack and protocol state. Torch: the torch-function TLS of
    torch/csrc/utils/torch_dispatch_mode.h's sibling, PythonTorchFunctionTLS."""

    def __init__(self) -> None:
        self.stack: list[Any] = []
        self.state = ENABLED
        self.modes_active = False  # a mode on the stack and the state not ALL_DISABLED

    def refresh(self) -> None:
        self.modes_active = bool(self.stack) and self.state != ALL_DISABLED


TF_TLS: Final = TorchFunctionTLS()


# --- overloaded arguments ---------------------------------------------------------------------

_PLAIN: set[type] = set()  # the exact Tensor class (and Parameter, later): never overloaded


def register_plain_type(cls: type) -> None:
    """Types the bindings never count as overloaded (torch: THPVariable_CheckTypeExact:
    Tensor and Parameter)."""
    _PLAIN.add(cls)


def takes_part(cls: type) -> bool:
    """Whether instances of `cls` are overloaded arguments. Torch: check_has_torch_function
    (without its mode test)."""
    if cls in _PLAIN:
        return False
    method = getattr(cls, "__torch_function__", None)
    if method is None:
        return False
    return getattr(method, "__func__", method) is not _disabled_torch_function_impl


def append_overloaded(
    found: list[Any],
    seen_types: list[type],
    value: Any,
    get_type: Callable[[Any], type] = type,
) -> None:
    """Add `value` to the overloaded arguments `found`, in torch's order: one argument per type,
    a subclass before its parents, otherwise left to right. Torch: _get_overloaded_args."""
    cls = get_type(value)
    if cls in seen_types:
        return
    seen_types.append(cls)
    index = len(found)
    for i, old in enumerate(found):
        if issubclass(cls, get_type(old)):
            index = i
            break
    found.insert(index, value)


def overloaded_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The arguments (lists and tuples among them looked into) whose types take part, in
    torch's order; none while subclasses are disabled on this thread."""
    if TF_TLS.state != ENABLED:
        return []
    found: list[Any] = []
    seen_types: list[type] = []
    for value in (*args, *kwargs.values()):
        if type(value) is list or type(value) is tuple:
            for item in value:
                if takes_part(type(item)):
                    append_overloaded(found, seen_types, item)
        elif takes_part(type(value)):
            append_overloaded(found, seen_types, value)
    return found


def with_self(relevant: list[Any], args: tuple[Any, ...]) -> list[Any]:
    """`relevant` with a plain Tensor `self` among them: torch's Python-level methods and its
    no-argument bindings report it (after a mode or a subclass made the call look)."""
    if TF_TLS.state != ENABLED or not args or type(args[0]) not in _PLAIN:
        return relevant
    found = list(relevant)
    append_overloaded(found, [type(a) for a in found], args[0])
    return found


def with_plain(relevant: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """`relevant` with the plain Tensors among the arguments too (lists looked into): what
    torch's Python-level functions report (torch.overrides._get_overloaded_args)."""
    if TF_TLS.state != ENABLED:
        return relevant
    found = list(relevant)
    seen = [type(a) for a in found]
    for value in (*args, *kwargs.values()):
        for item in value if type(value) is list or type(value) is tuple else (value,):
            if type(item) in _PLAIN:
                append_overloaded(found, seen, item)
    return found


# --- handling ---------------------------------------------------------------------------------


@contextmanager
def _pop_mode_temporarily() -> Iterator[Any]:
    """Torch: torch.overrides._pop_mode_temporarily: the mode is off while its handler runs."""
    tls = TF_TLS
    mode = tls.stack.pop()
    tls.refresh()
    try:
        yield mode
    finally:
        tls.stack.append(mode)
        tls.refresh()


def handle_torch_function(
    public_api: Function,
    relevant: list[Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    python_level: bool = False,
) -> Any:
    """Call the active mode's handler, then each overloaded argument's, until one does not
    return NotImplemented. Torch: torch.overrides.handle_torch_function."""
    types = tuple(type(a) for a in relevant)
    mode = None
    if TF_TLS.modes_active:
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in relevant:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(_refusal(public_api, relevant, mode, python_level))


def _refusal(public_api: Any, relevant: list[Any], mode: Any, python_level: bool) -> str:
    # torch: handle_torch_function's message (Python) or handle_torch_function_no_python_
    # arg_parser's (the bindings, python_arg_parser.cpp).
    module = getattr(public_api, "__module__", None) or ""
    name = _torch_name(f"{module}.{getattr(public_api, '__name__', '')}")
    if python_level:
        message = (
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {[type(a) for a in relevant]}"
        )
        return message if mode is None else f"{message} nor in mode {mode}"
    lines = [f"  - mode object {mode}"] if mode is not None else []
    lines += [f"  - tensor subclass {type(a)}" for a in relevant]
    return (
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        "NotImplemented:\n\n" + "\n".join(lines) + "\n\nFor more information, try re-running "
        "with TORCH_LOGS=not_implemented"
    )


def _torch_name(name: str) -> str:
    return name.replace("refimpl", "torch", 1) if name.startswith("refimpl") else name


def overridable(
    fn: Function,
    *,
    self_counts: bool = False,
    public: Callable[[], Function] | None = None,
    modes_only: bool = False,
    type_error_is_not_implemented: bool = False,
    binary: bool = False,
    python_level: bool = False,
) -> Function:
    """`fn` behind the protocol: what the API exposes. `public` gives the object a handler is
    told of when it is not the wrapper itself (a Python operator reports the method torch
    reports, `x * 2` as Tensor.mul); `self_counts`: a plain Tensor `self` is among the types
    once something takes part; `modes_only` for functions torch ignores for subclasses but
    shows modes (factories: torch.empty); `type_error_is_not_implemented` for the reflected
    operators torch defines in Python (torch:
    _handle_torch_function_and_wrap_type_error_to_not_implemented), so `2 @ t` still lets
    Python try the other operand. `binary`: `fn` takes exactly (self, other), a Python
    operator's signature, and the wrapper takes them as they are (no argument packing).
    `python_level`: a function torch writes in Python (torch.functional's, autograd.grad),
    whose handle_torch_function counts plain Tensors among the types too."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if PROTOCOL.active and (PROTOCOL.subclassed or TF_TLS.modes_active):
            relevant = [] if modes_only else overloaded_args(args, kwargs)
            if relevant or TF_TLS.modes_active:
                if python_level:
                    relevant = with_plain(relevant, args, kwargs)
                elif self_counts:
                    relevant = with_self(relevant, args)
                reported = exposed if public is None else public()
                if not type_error_is_not_implemented:
                    return handle_torch_function(reported, relevant, args, kwargs)
                try:
                    return handle_torch_function(reported, relevant, args, kwargs)
                except TypeError:
                    return NotImplemented
        try:
            # Without keywords, no empty dict to unpack (Note [Calls without keywords] in
            # dispatch/overloads.py).
            return fn(*args, **kwargs) if kwargs else fn(*args)
        except Exception:
            # Note [Tensor-likes]: an object that is not a Tensor but has __torch_function__
            # takes part too; refimpl's kernels refuse it, so it is looked for only then.
            relevant = [] if modes_only else overloaded_args(args, kwargs)
            if not relevant or TF_TLS.modes_active:
                raise
        reported = exposed if public is None else public()
        return handle_torch_function(reported, relevant, args, kwargs)

    @functools.wraps(fn)
    def binary_wrapper(self: Any, other: Any) -> Any:
        # The same as `wrapper`, for the calls Python makes to an operator: (self, other).
        if PROTOCOL.active:
            return wrapper(self, other)
        try:
            return fn(self, other)
        except Exception:
            if not overloaded_args((self, other), {}):
                raise
        return wrapper(self, other)

    exposed = binary_wrapper if binary else wrapper
    exposed.__wrapped_by_torch_function__ = True  # type: ignore[attr-defined]
    return exposed


def overridable_property(prop: property, owner: type, name: str) -> property:
    """A property whose reads (and writes) go through the protocol, reported as
    `Tensor.<name>.__get__` (`__set__`), as torch's are."""
    getter, setter = prop.fget, prop.fset
    assert getter is not None

    @functools.wraps(getter)
    def get(self: Any) -> Any:
        if PROTOCOL.active and (PROTOCOL.subclassed or TF_TLS.modes_active):
            relevant = overloaded_args((self,), {})
            if relevant or TF_TLS.modes_active:
                relevant = with_self(relevant, (self,))
                reported = owner.__dict__[name].__get__
                return handle_torch_function(reported, relevant, (self,), {})
        return getter(self)

    def set_(self: Any, value: Any) -> None:
        if PROTOCOL.active and (PROTOCOL.subclassed or TF_TLS.modes_active):
            relevant = overloaded_args((self, value), {})
            if relevant or TF_TLS.modes_active:
                relevant = with_self(relevant, (self, value))
                reported = owner.__dict__[name].__set__
                handle_torch_function(reported, relevant, (self, value), {})
                return
        assert setter is not None
        setter(self, value)

    return property(get, set_ if setter is not None else None, prop.fdel, prop.__doc__)


def is_overridable(fn: object) -> bool:
    return getattr(fn, "__wrapped_by_torch_function__", False) is True


# --- Tensor.__torch_function__ --------------------------------------------------------------


def convert(result: Any, cls: type) -> Any:
    """Results of a subclass's default handling become the subclass. Torch: _convert in
    torch/_tensor.py."""
    if isinstance(result, TensorImpl) and not isinstance(result, cls):
        result = result.as_subclass(cls)  # type: ignore[attr-defined]
    if isinstance(result, (tuple, list)):
        result = type(result)(convert(r, cls) for r in result)
    return result


@contextmanager
def _state(state: int) -> Iterator[None]:
    tls = TF_TLS
    saved = tls.state
    tls.state = state
    tls.refresh()
    try:
        yield
    finally:
        tls.state = saved
        tls.refresh()


class DisableTorchFunctionSubclass:
    """Subclasses take no part while it is active (modes still do). Torch:
    torch._C.DisableTorchFunctionSubclass."""

    def __enter__(self) -> None:
        self._saved = TF_TLS.state
        if self._saved == ENABLED:
            TF_TLS.state = SUBCLASSES_DISABLED
            TF_TLS.refresh()

    def __exit__(self, *exc: object) -> None:
        TF_TLS.state = self._saved
        TF_TLS.refresh()


class DisableTorchFunction:
    """Neither modes nor subclasses take part while it is active. Torch:
    torch._C.DisableTorchFunction."""

    def __enter__(self) -> None:
        self._saved = TF_TLS.state
        TF_TLS.state = ALL_DISABLED
        TF_TLS.refresh()

    def __exit__(self, *exc: object) -> None:
        TF_TLS.state = self._saved
        TF_TLS.refresh()


# --- installing the protocol on the API ------------------------------------------------------

TENSOR_PREFIX: Final = "torch.Tensor."


def install_on_tensor(cls: type) -> list[str]:
    """Put each method, property and operator of `cls` that torch makes overridable behind the
    protocol; the torch names installed. Torch: the bindings' has_torch_function checks."""
    facts = torch_function_facts()
    installed = []
    done: set[str] = set()
    # torch's table lists an operator that is another method's alias (`__neg__` is `neg`)
    # under that method's name only; the operators come from their own table. Methods torch
    # lists as ignored but whose binding still asks handlers (Tensor.stride, new_zeros) are
    # among mode_only; their binding checks self, so subclasses take part too.
    operators = tuple(TENSOR_PREFIX + name for name in facts.operators)
    still_handled = sorted(name for name in facts.mode_only if name.startswith(TENSOR_PREFIX))
    for qualified in (*facts.overridable, *operators, *still_handled):
        if not qualified.startswith(TENSOR_PREFIX):
            continue
        name = qualified[len(TENSOR_PREFIX) :].partition(".")[0]
        if name in done:
            continue
        done.add(name)
        static = inspect.getattr_static(cls, name, None)
        if isinstance(static, property):
            setattr(cls, name, overridable_property(static, cls, name))
        elif inspect.isfunction(static):
            reported, plain_counts = facts.operators.get(name, (TENSOR_PREFIX + name, False))
            target = reported[len(TENSOR_PREFIX) :]
            public = None
            if target != name and inspect.getattr_static(cls, target, None) is not None:
                public = functools.partial(getattr, cls, target)
            counts = plain_counts or name in facts.self_counts
            reflected = name in facts.self_counts and name in facts.operators
            setattr(
                cls,
                name,
                overridable(
                    static,
                    self_counts=counts,
                    public=public,
                    type_error_is_not_implemented=reflected and name != "__format__",
                    binary=_is_binary(static),
                ),
            )
        else:
            continue
        installed.append(qualified)
    return installed


def _is_binary(fn: Function) -> bool:
    """Whether `fn` takes exactly two positional parameters (a Python binary operator)."""
    parameters = list(inspect.signature(fn).parameters.values())
    return len(parameters) == 2 and all(
        p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.default is p.empty
        for p in parameters
    )


def install_on_namespace(namespace: dict[str, Any], torch_module: str) -> list[str]:
    """Put each function of a module's namespace that torch makes overridable in
    `torch_module` behind the protocol; the torch names installed."""
    prefix = torch_module + "."
    installed = []
    facts = torch_function_facts()
    for qualified in (*facts.overridable, *facts.mode_only):
        if not qualified.startswith(prefix) or "." in qualified[len(prefix) :]:
            continue
        name = qualified[len(prefix) :]
        fn = namespace.get(name)
        if inspect.isfunction(fn) and not is_overridable(fn):
            resolved = facts.resolved_as.get(qualified, qualified)
            namespace[name] = overridable(
                fn,
                modes_only=qualified in facts.mode_only,
                # torch.functional's functions and torch.nn.functional's own Python ones
                # (not the bindings F re-exports, such as F.prelu, which is torch.prelu).
                python_level=resolved.startswith("torch.functional.")
                or fn.__module__.startswith("refimpl.nn.functional"),
            )
            installed.append(qualified)
    return installed


# --- the mode stack ---------------------------------------------------------------------------


def push_mode(mode: Any) -> None:
    """Torch: torch._C._push_on_torch_function_stack."""
    TF_TLS.stack.append(mode)
    TF_TLS.refresh()
    PROTOCOL.modes_pushed += 1
    PROTOCOL.update()


def pop_mode() -> Any:
    """Torch: torch._C._pop_torch_function_stack."""
    tls = TF_TLS
    if not tls.stack:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = tls.stack.pop()
    tls.refresh()
    PROTOCOL.modes_pushed -= 1
    PROTOCOL.update()
    return mode


def mode_stack() -> list[Any]:
    return list(TF_TLS.stack)


# --- Tensor's side ------------------------------------------------------------------------------


class TorchFunctionMethods:
    """Tensor's part in the protocol. Torch: Tensor.__torch_function__ in torch/_tensor.py."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass of Tensor (not Tensor itself, which mixes this class in) takes part.
        derived = any(
            b is not TorchFunctionMethods and issubclass(b, TorchFunctionMethods)
            for b in cls.__bases__
        )
        if derived and takes_part(cls):
            PROTOCOL.subclassed = True
            PROTOCOL.update()

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        """Run `func` with subclasses disabled and give its tensors the class `cls`, unless a
        type among `types` is not a parent of `cls`. Torch: Tensor.__torch_function__."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
            if _no_wrap(func):
                return result
            return convert(result, cls)


# torch: get_default_nowrap_functions: field reads whose tensor keeps its identity.
_NO_WRAP_PROPERTIES: Final = frozenset({"_base", "grad", "_grad"})


def _no_wrap(func: Any) -> bool:
    owner = getattr(func, "__self__", None)
    if not isinstance(owner, property) or getattr(func, "__name__", "") != "__get__":
        return False
    getter = owner.fget
    return getattr(getter, "__name__", "") in _NO_WRAP_PROPERTIES
