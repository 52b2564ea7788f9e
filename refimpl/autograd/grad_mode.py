"""Grad mode and inference mode: thread-local switches, as context managers and decorators.

Torch: c10/core/GradMode.h (GradMode, AutoGradMode), c10/core/InferenceMode.h, and the Python
classes of torch/autograd/grad_mode.py (no_grad, enable_grad, set_grad_enabled,
inference_mode) over torch/utils/_contextlib.py's decorator protocol.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, TypeVar

from refimpl._base.keys import AUTOGRAD_KEYS, DispatchKey, DispatchKeySet
from refimpl.core.grad_mode import GRAD_STATE, is_grad_enabled
from refimpl.dispatch.tls import DISPATCH_TLS

_AD_INPLACE_OR_VIEW = DispatchKeySet(DispatchKey.ADInplaceOrView).raw

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "GRAD_STATE",
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]


def is_inference_mode_enabled() -> bool:
    """Torch: torch.is_inference_mode_enabled."""
    return GRAD_STATE.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (each call runs inside it).

    Torch: torch.utils._contextlib._DecoratorContextManager.
    """

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            raise RuntimeError(
                "Please use a class-based decorator only on functions, not on classes"
            )

        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return decorated  # type: ignore[return-value]  # same signature as func

    def clone(self) -> _DecoratorContextManager:
        return self.__class__()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        raise NotImplementedError


def _set_flag(mode: bool) -> None:
    GRAD_STATE.enabled = mode


class GradModeSetter:
    """What sets grad mode: torch._C._set_grad_enabled, which a TorchFunctionMode sees (the
    API layer installs the version behind the protocol: refimpl._C._set_grad_enabled)."""

    set: Callable[[bool], None] = staticmethod(_set_flag)


GRAD_MODE_SETTER: Final = GradModeSetter()


class no_grad(_DecoratorContextManager):  # torch's name
    """Disable gradient recording in the block. Torch: torch.no_grad (through
    set_grad_enabled, so a mode sees _set_grad_enabled on entry and exit)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = GRAD_STATE.enabled
        GRAD_MODE_SETTER.set(False)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE_SETTER.set(self.prev)


class enable_grad(_DecoratorContextManager):  # torch's name
    """Enable gradient recording in the block. Torch: torch.enable_grad."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = GRAD_STATE.enabled
        GRAD_MODE_SETTER.set(True)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE_SETTER.set(self.prev)


class set_grad_enabled(_DecoratorContextManager):  # torch's name
    """Set grad mode now (a function call) or for a block (a context manager).

    Torch: torch.set_grad_enabled: the constructor sets the mode, `__exit__` restores it.
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}"
            )
        self.prev = GRAD_STATE.enabled
        self.mode = mode
        GRAD_MODE_SETTER.set(mode)

    def __call__(self, func: F) -> F:
        GRAD_MODE_SETTER.set(self.prev)  # as a decorator it sets the mode per call only
        return super().__call__(func)

    def __enter__(self) -> None:
        GRAD_MODE_SETTER.set(self.mode)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE_SETTER.set(self.prev)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):  # torch's name
    """Grad mode off, and autograd's keys skipped, in the block. Torch: torch.inference_mode
    (c10::InferenceMode excludes the autograd keys and ADInplaceOrView).

    Differs: tensors made in the block are not inference tensors (`is_inference()` is False
    and they may be saved for backward later).
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._saved: tuple[bool, bool, int, int] = (True, False, 0, 0)

    def __enter__(self) -> None:
        tls = DISPATCH_TLS
        self._saved = (GRAD_STATE.enabled, GRAD_STATE.inference, tls.included_raw, tls.excluded_raw)
        if self.mode:
            # torch: c10::InferenceMode: autograd keys excluded; ADInplaceOrView leaves the
            # included set, so it runs only for tensors that carry it (normal tensors, whose
            # versions still bump), never for inference tensors.
            GRAD_STATE.enabled = False
            GRAD_STATE.inference = True
            tls.included_raw &= ~_AD_INPLACE_OR_VIEW
            tls.excluded_raw |= AUTOGRAD_KEYS.raw
        else:
            GRAD_STATE.inference = False
            tls.included_raw |= _AD_INPLACE_OR_VIEW
            tls.excluded_raw &= ~AUTOGRAD_KEYS.raw

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        tls = DISPATCH_TLS
        GRAD_STATE.enabled, GRAD_STATE.inference, tls.included_raw, tls.excluded_raw = self._saved

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)
