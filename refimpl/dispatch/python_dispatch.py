"""The Python dispatch key: the thread's TorchDispatchMode stack, and `__torch_dispatch__`.

Torch: the Python and PythonTLSSnapshot backend fallbacks (pythonFallback and
pythonTLSSnapshotFallback in aten/src/ATen/core/PythonFallbackKernel.cpp), the mode stack
(c10::impl::TorchDispatchModeTLS) and the handler call (dispatch_on_mode / dispatch_on_subclass
in torch/csrc/utils/python_arg_parser.cpp, reached through concrete_dispatch_fn in
torch/csrc/autograd/python_variable.cpp). See pytorch-semantics.md §1.5, §1.7 and §4.

Note [When the Python key runs]
A tensor whose class defines `__torch_dispatch__` carries Python and PythonTLSSnapshot in its key
set (api/_subclass.py sets them when it is made), and while a TorchDispatchMode is on the
thread's stack both keys are TLS-included. Either way every call reaches PythonTLSSnapshot first
(the highest key a tensor carries), which remembers the thread's key sets and redispatches;
Autograd, ADInplaceOrView and CompositeImplicitAutograd decompositions run next, as for any
call; then the Python key's fallback below hands the op to Python. With no mode and no such
tensor, neither key is in any key set, so the dispatcher's cached paths never see this module.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from refimpl._base.keys import (
    PYTHON_KEYS,
    REQUIRES_GRAD_BIT,
    DispatchKey,
    DispatchKeySet,
    full_after_raw,
    key_raw,
)
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.binding import _default_of
from refimpl.dispatch.dispatcher import key_set_of
from refimpl.dispatch.overloads import SCHEMAS, OpOverload
from refimpl.dispatch.table import BACKEND_FALLBACKS, KernelRecord
from refimpl.dispatch.tls import DISPATCH_TLS

_PYTHON_RAW: Final = key_raw(DispatchKey.Python)
_PYTHON_KEYS_RAW: Final = PYTHON_KEYS.raw
_AFTER_SNAPSHOT: Final = full_after_raw(DispatchKey.PythonTLSSnapshot)
# torch: inside a handler every functionality key above Python is excluded, PythonDispatcher
# aside (pytorch-semantics.md §1.5, measured with _dispatch_tls_local_exclude_set()).
ABOVE_PYTHON: Final = DispatchKeySet(
    [key for key in DispatchKey if DispatchKey.Python < key < DispatchKey.PythonDispatcher]
)
_ABOVE_PYTHON_RAW: Final = ABOVE_PYTHON.raw


class PythonDispatchState(threading.local):
    """The current thread's TorchDispatchModes and the key sets PythonTLSSnapshot saw.

    Torch: c10::impl::TorchDispatchModeTLS (the stack, bottom first) and `tls_on_entry` in
    PythonFallbackKernel.cpp. torch keeps both per thread; so does refimpl.
    """

    modes: list[Any]
    tls_on_entry: tuple[int, int] | None

    def __init__(self) -> None:
        self.modes = []
        self.tls_on_entry = None


PYTHON_DISPATCH_STATE: Final = PythonDispatchState()


# --- the mode stack --------------------------------------------------------------------------


def push_mode(mode: Any) -> None:
    """Push `mode` on the thread's stack; the first one TLS-includes the Python keys.

    Torch: torch._C._push_on_torch_dispatch_stack (TorchDispatchModeTLS::push_non_infra_mode_
    onto_stack sets Python and PythonTLSSnapshot included when the stack was empty).
    """
    state = PYTHON_DISPATCH_STATE
    if not state.modes:
        DISPATCH_TLS.included_raw |= _PYTHON_KEYS_RAW
    state.modes.append(mode)


def pop_mode() -> Any:
    """Pop the top mode; the last one leaves the Python keys no longer TLS-included.

    Torch: torch._C._pop_torch_dispatch_stack (its error text when the stack is empty).
    """
    state = PYTHON_DISPATCH_STATE
    if not state.modes:
        raise RuntimeError("Trying to pop from empty mode stack")
    mode = state.modes.pop()
    if not state.modes:
        DISPATCH_TLS.included_raw &= ~_PYTHON_KEYS_RAW
    return mode


def is_tensor_subclass_like(t: TensorImpl) -> bool:
    """Whether `t` is a subclass with `__torch_dispatch__`, or any tensor while a dispatch mode
    is on the stack. Torch: at::isTensorSubclassLike (which checks
    c10::impl::dispatch_mode_enabled first): where it holds, autograd avoids writing in place
    (the engine's gradient sums, formulas such as gather's backward)."""
    return bool(PYTHON_DISPATCH_STATE.modes) or bool(t._key_set & _PYTHON_RAW)


def stack_len() -> int:
    """Torch: torch._C._len_torch_dispatch_stack."""
    return len(PYTHON_DISPATCH_STATE.modes)


def get_stack_at(index: int) -> Any:
    """The mode at `index`, bottom first. Torch: torch._C._get_dispatch_stack_at."""
    return PYTHON_DISPATCH_STATE.modes[index]


# --- which tensors take part ----------------------------------------------------------------


def disabled_torch_dispatch_impl(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """Run `func` with the Python keys excluded: the `__torch_dispatch__` of refimpl.Tensor.

    Torch: torch._C._disabled_torch_dispatch_impl. A class whose `__torch_dispatch__` is this
    function has no handler of its own, so its tensors carry no Python keys.
    """
    saved = DISPATCH_TLS.excluded_raw
    DISPATCH_TLS.excluded_raw = saved | _PYTHON_KEYS_RAW
    try:
        return func(*args, **(kwargs or {}))
    finally:
        DISPATCH_TLS.excluded_raw = saved


def has_torch_dispatch(cls: type) -> bool:
    """Whether tensors of `cls` go to its own `__torch_dispatch__`.

    Torch: check_has_torch_dispatch in torch/csrc/utils/python_arg_parser.cpp.
    """
    handler = getattr(cls, "__torch_dispatch__", disabled_torch_dispatch_impl)
    return handler is not disabled_torch_dispatch_impl


def _append_overloaded(found: list[Any], value: Any) -> None:
    # torch: append_overloaded_arg: one argument per type, a subclass before its parents,
    # else in argument order.
    cls = type(value)
    if any(type(seen) is cls for seen in found):
        return
    position = len(found)
    for i, seen in enumerate(found):
        if issubclass(cls, type(seen)):
            position = i
            break
    found.insert(position, value)


def overloaded_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The arguments whose `__torch_dispatch__` is tried, in torch's order.

    Torch: concrete_dispatch_fn collects every tensor argument (and tensor in a list) whose
    key set has Python, in schema order.
    """
    found: list[Any] = []
    for value in (*args, *kwargs.values()):
        items = value if type(value) is list or type(value) is tuple else (value,)
        for item in items:
            if isinstance(item, TensorImpl) and item._key_set & _PYTHON_RAW:
                _append_overloaded(found, item)
    return found


# --- the arguments a handler receives ---------------------------------------------------------

# Per overload: (the positional defaults, (has default, value) each; the keyword-only ones).
_DEFAULTS: dict[OpOverload, tuple[tuple[tuple[bool, Any], ...], dict[str, tuple[bool, Any]]]] = {}


def _defaults_of(
    op: OpOverload,
) -> tuple[tuple[tuple[bool, Any], ...], dict[str, tuple[bool, Any]]]:
    found = _DEFAULTS.get(op)
    if found is None:
        arguments = op._schema.arguments
        positional = tuple(
            (a.has_default, _default_of(a) if a.has_default else None)
            for a in arguments
            if not a.kwarg_only
        )
        keywords = {
            a.name: (a.has_default, _default_of(a) if a.has_default else None)
            for a in arguments
            if a.kwarg_only
        }
        found = _DEFAULTS[op] = (positional, keywords)
    return found


def _is_default(value: Any, default: tuple[bool, Any]) -> bool:
    # torch: IValue equality with the schema default: 1.0 is not the default 1, a tensor is
    # never a default.
    has_default, expected = default
    if not has_default:
        return False
    if value is None or expected is None:
        return value is expected
    if isinstance(value, (list, tuple)) and isinstance(expected, (list, tuple)):
        if any(isinstance(item, TensorImpl) for item in value):
            return False
        return len(value) == len(expected) and all(
            type(a) is type(b) and a == b for a, b in zip(value, expected)
        )
    if isinstance(value, TensorImpl) or type(value) is not type(expected):
        return False
    return bool(value == expected)


def python_arguments(
    op: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """`args` and `kwargs` as a handler receives them: arguments equal to their default left
    out (trailing positional ones, keyword-only ones), even when the caller passed them.

    Torch: parseIValuesToPyArgsKwargs in torch/csrc/utils/python_arg_parser.cpp.
    """
    positional, keywords = _defaults_of(op)
    end = len(args)
    while end > 0 and _is_default(args[end - 1], positional[end - 1]):
        end -= 1
    py_kwargs = {
        name: value
        for name, value in kwargs.items()
        if not _is_default(value, keywords.get(name, (False, None)))
    }
    return args[:end], py_kwargs


# --- the two fallbacks ------------------------------------------------------------------------


def python_tls_snapshot_fallback(
    keyset: DispatchKeySet, op: OpOverload, /, *args: Any, **kwargs: Any
) -> Any:
    """Remember the thread's key sets as the call entered, then redispatch below.

    Torch: pythonTLSSnapshotFallback (StashTLSOnEntryGuard, then redispatchBoxed with
    `keys & FULL_AFTER(PythonTLSSnapshot)`).
    """
    state = PYTHON_DISPATCH_STATE
    saved = state.tls_on_entry
    state.tls_on_entry = (DISPATCH_TLS.included_raw, DISPATCH_TLS.excluded_raw)
    # The fallback's key set lacks the requires-grad bit (DispatchKeySet drops it); the
    # Autograd kernel below must still run for inputs that require grad (Note [Autograd skip]).
    raw = (keyset.raw & _AFTER_SNAPSHOT) | (key_set_of(args, kwargs) & REQUIRES_GRAD_BIT)
    try:
        return op.redispatch_bound(raw, args, kwargs)
    finally:
        state.tls_on_entry = saved


def python_fallback(keyset: DispatchKeySet, op: OpOverload, /, *args: Any, **kwargs: Any) -> Any:
    """Hand the call to the top mode, else to the `__torch_dispatch__` of its subclasses.

    Torch: pythonFallback, which excludes every key above Python for the handlers
    (ExcludeDispatchKeyGuard(after_Python_keyset)), so calls made by a handler go straight to
    the next handler or the backend: no autograd, no version bumps (the outer call's kernels
    did those). The mode stack's TLS-included keys are the thread's current ones: a handler
    that pops the last mode makes its calls skip the Python key unless a tensor carries it.
    """
    tls = DISPATCH_TLS
    saved = tls.excluded_raw
    tls.excluded_raw = saved | _ABOVE_PYTHON_RAW
    try:
        return dispatch_to_python(op, args, kwargs)
    finally:
        tls.excluded_raw = saved


def dispatch_to_python(op: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The top mode's handler (popped while it runs), then each subclass's in turn, until one
    returns something other than NotImplemented.

    Torch: handle_torch_function_no_python_arg_parser for TorchDispatch (dispatch_on_mode,
    then dispatch_on_subclass).
    """
    overloaded = overloaded_tensors(args, kwargs)
    types = tuple(type(t) for t in overloaded)
    py_args, py_kwargs = python_arguments(op, args, kwargs)
    tried: list[str] = []
    if PYTHON_DISPATCH_STATE.modes:
        # torch: _pop_mode_temporarily (StashTorchDispatchModeGuard).
        mode = pop_mode()
        try:
            result = mode.__torch_dispatch__(op, types, py_args, py_kwargs)
        finally:
            push_mode(mode)
        if result is not NotImplemented:
            return result
        tried.append(f"mode object {mode!r}")
    for tensor in overloaded:
        result = tensor.__torch_dispatch__(op, types, py_args, py_kwargs)
        if result is not NotImplemented:
            return result
        tried.append(f"tensor subclass {type(tensor)!r}")
    raise multiple_dispatch_failed(op, tried)


def python_detach(t: TensorImpl) -> Any:
    """`detach(t)` as a Python handler answers it, or None where no handler takes part (no
    mode on the stack and `t` without the Python key, or the Python key excluded).

    Torch: TensorImpl::shallow_copy_and_detach asks the top mode, else the tensor's class,
    through PyInterpreter::detach, before copying the TensorImpl itself: what autograd's saved
    outputs (Variable::tensor_data) and AccumulateGrad get, and why a mode sees
    `aten.detach.default` after ops whose derivative saves their result.
    """
    tls = DISPATCH_TLS
    if tls.excluded_raw & _PYTHON_RAW:
        return None
    if not (PYTHON_DISPATCH_STATE.modes or t._key_set & _PYTHON_RAW):
        return None
    saved = tls.excluded_raw
    tls.excluded_raw = saved | _ABOVE_PYTHON_RAW
    try:
        out = dispatch_to_python(_detach(), (t,), {})
    finally:
        tls.excluded_raw = saved
    if isinstance(out, TensorImpl):
        out._counter = t._version_counter  # torch: r->set_version_counter(...)
    return out


def _detach() -> OpOverload:
    packet = SCHEMAS.packet("aten::detach")
    assert packet is not None  # aten::detach is in the spec snapshot
    op: OpOverload = packet.default
    return op


def multiple_dispatch_failed(op: OpOverload, tried: list[str]) -> TypeError:
    """Every handler returned NotImplemented. Torch: handle_torch_function_no_python_arg_parser.

    torch names the op by its Python module and name, `torch._ops.aten.add.Tensor`; refimpl
    spells it the same, as the op stands for torch's.
    """
    listed = "".join(f"  - {line}\n" for line in tried)
    return TypeError(
        f"Multiple dispatch failed for 'torch._ops.{op.namespace}.{op.__name__}'; all "
        f"__torch_dispatch__ handlers returned NotImplemented:\n\n{listed}\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented"
    )


def register_python_fallbacks() -> None:
    """Install the Python and PythonTLSSnapshot fallbacks. Torch: TORCH_LIBRARY_IMPL(_, Python,
    m) and (_, PythonTLSSnapshot, m) in PythonFallbackKernel.cpp."""
    BACKEND_FALLBACKS.register(
        DispatchKey.PythonTLSSnapshot,
        KernelRecord(
            python_tls_snapshot_fallback,
            "refimpl PythonTLSSnapshot fallback (pythonTLSSnapshotFallback)",
            with_keyset=True,
            boxed=True,
        ),
    )
    BACKEND_FALLBACKS.register(
        DispatchKey.Python,
        KernelRecord(
            python_fallback,
            "refimpl Python fallback (pythonFallback)",
            with_keyset=True,
            boxed=True,
        ),
    )


register_python_fallbacks()
