"""The default device of the factories: torch.set_default_device, get_default_device, and the
TorchFunctionMode that applies it.

Torch: set_default_device and get_default_device in torch/__init__.py, DeviceContext in
torch/utils/_device.py.

Note [The default device is a TorchFunctionMode]
torch does not thread a default device through its factories: set_default_device pushes a
DeviceContext, a TorchFunctionMode kept at the bottom of the mode stack, whose handler adds
`device=` to the calls of the factory functions that were given none. refimpl does the same,
so its factories keep meaning `cpu` for `device=None`, a mode sees the DeviceContext on the
stack as in torch (torch.overrides._get_current_function_mode_stack), and a program without a
default device pays nothing. The factories are the objects torch lists
(_device_constructors), found by name in refimpl's namespace once it is assembled.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Final, Self

from refimpl._base.device import DEVICE_CONTEXT_HOOKS, as_device, device
from refimpl.api._torch_function import TF_TLS, pop_mode, push_mode

__all__ = ["get_default_device", "set_default_device"]

# torch: _device_constructors() in torch/utils/_device.py, the ones refimpl has (its sparse,
# quantized and nested constructors are missing; the *_like functions are left out there too).
_CONSTRUCTOR_NAMES: Final = (
    "empty",
    "empty_permuted",
    "empty_strided",
    "ones",
    "arange",
    "bartlett_window",
    "blackman_window",
    "eye",
    "full",
    "hamming_window",
    "hann_window",
    "kaiser_window",
    "linspace",
    "logspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "range",
    "tril_indices",
    "triu_indices",
    "zeros",
    "asarray",
    "tensor",
    "as_tensor",
    "scalar_tensor",
)
_FFT_CONSTRUCTOR_NAMES: Final = ("fftfreq", "rfftfreq")


class _Constructors:
    """The factory function objects, looked up once refimpl is assembled (the wrapped
    functions of its namespace, which are what a handler is given)."""

    functions: frozenset[Any] | None = None

    def get(self) -> frozenset[Any]:
        if self.functions is None:
            namespace = sys.modules["refimpl"]
            fft = namespace.fft
            found = [getattr(namespace, name, None) for name in _CONSTRUCTOR_NAMES]
            found += [getattr(fft, name, None) for name in _FFT_CONSTRUCTOR_NAMES]
            self.functions = frozenset(f for f in found if f is not None)
        return self.functions


_CONSTRUCTORS: Final = _Constructors()


class DeviceContext:
    """A TorchFunctionMode that gives factory calls without a device this one.

    Torch: torch.utils._device.DeviceContext. It lives at the bottom of the mode stack: entering
    it moves the modes above it and replaces a DeviceContext already there (restored on exit).
    # Differs: not a subclass of refimpl.overrides.TorchFunctionMode, which sits above the
    # torch API; it has the same protocol (__torch_function__, __enter__, __exit__).
    """

    def __init__(self, dev: device | str | int) -> None:
        self.device = as_device(dev)
        self.prev_mode: DeviceContext | None = None

    def __enter__(self) -> Self:
        above = [pop_mode() for _ in range(len(TF_TLS.stack))]
        push_mode(self)
        for mode in reversed(above):
            if isinstance(mode, DeviceContext):
                self.prev_mode = mode
            else:
                push_mode(mode)
        return self

    def __exit__(self, *exc: object) -> None:
        above = []
        for _ in range(len(TF_TLS.stack) - 1):
            mode = pop_mode()
            if isinstance(mode, DeviceContext):
                raise AssertionError(  # noqa: TRY004 - torch's type
                    "Found nested DeviceContext on the mode stack where none expected"
                )
            above.append(mode)
        if TF_TLS.stack:
            mode = pop_mode()
            if not isinstance(mode, DeviceContext):
                raise AssertionError("Expected a DeviceContext at the bottom of the mode stack")
        if self.prev_mode is not None:
            push_mode(self.prev_mode)
        for mode in reversed(above):
            push_mode(mode)

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func in _CONSTRUCTORS.get() and kwargs.get("device") is None:
            kwargs["device"] = self.device
        return func(*args, **kwargs)


class _GlobalDeviceContext(threading.local):
    """The DeviceContext set_default_device entered on this thread. Torch:
    _GLOBAL_DEVICE_CONTEXT (a threading.local) in torch/__init__.py."""

    device_context: DeviceContext | None = None


_GLOBAL_DEVICE_CONTEXT: Final = _GlobalDeviceContext()


def set_default_device(device: Any) -> None:
    """Make factory calls without a `device` allocate on `device` (None: back to none).
    Torch: torch.set_default_device. See Note [The default device is a TorchFunctionMode]."""
    current = _GLOBAL_DEVICE_CONTEXT.device_context
    if current is not None:
        current.__exit__(None, None, None)
    context = None
    if device is not None:
        context = DeviceContext(device)
        context.__enter__()
    _GLOBAL_DEVICE_CONTEXT.device_context = context


def _with_index(dev: device) -> device:
    # torch: a device without an index is reported with the current index of its type
    # (torch.tensor([]).device); cpu and meta have none.
    if dev.index is not None or dev.type in ("cpu", "meta"):
        return dev
    return device(dev.type, 0)


def get_default_device() -> device:
    """The device factory calls without a `device` allocate on: the innermost DeviceContext
    on the mode stack, else set_default_device's, else cpu. Torch: torch.get_default_device."""
    for mode in reversed(TF_TLS.stack):
        if isinstance(mode, DeviceContext):
            return _with_index(mode.device)
    context = _GLOBAL_DEVICE_CONTEXT.device_context
    if context is not None:
        return _with_index(context.device)
    return device("cpu")


def _enter_device(dev: device) -> None:
    # torch: THPDevice_enter pushes DeviceContext(device) on top of the mode stack, without
    # DeviceContext.__enter__'s move to the bottom.
    push_mode(DeviceContext(dev))


def _exit_device() -> None:
    pop_mode()  # torch: THPDevice_exit pops whatever is on top


DEVICE_CONTEXT_HOOKS.enter = _enter_device
DEVICE_CONTEXT_HOOKS.exit = _exit_device
