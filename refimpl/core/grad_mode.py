"""The thread-local grad mode flags.

Torch: c10/core/GradMode.h and c10/core/InferenceMode.h: the flags live in c10's core, below
the dispatcher, so that kernels and derivative formulas can read them (torch's logit
formula, for one, picks its helper by GradMode::is_enabled). The context managers that set
them are autograd's (refimpl/autograd/grad_mode.py).
"""

from __future__ import annotations

import contextvars
from typing import Final

# Note [Thread-local grad mode]: per-thread flags in ContextVars (each thread has its own
# context), read in about 10 ns where a threading.local attribute costs about 100 ns
# (dispatch/tls.py's Note [Thread-local key sets]); hot paths call `grad_enabled()`.
_ENABLED: Final[contextvars.ContextVar[bool]] = contextvars.ContextVar(
    "refimpl_grad_enabled", default=True
)
_INFERENCE: Final[contextvars.ContextVar[bool]] = contextvars.ContextVar(
    "refimpl_inference_mode", default=False
)
grad_enabled = _ENABLED.get
inference_enabled = _INFERENCE.get


class _GradState:
    """Torch: GradMode's thread-local flag and InferenceMode's (read and assigned as
    attributes; Note [Thread-local grad mode])."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return _ENABLED.get()

    @enabled.setter
    def enabled(self, value: bool) -> None:
        _ENABLED.set(value)

    @property
    def inference(self) -> bool:
        return _INFERENCE.get()

    @inference.setter
    def inference(self, value: bool) -> None:
        _INFERENCE.set(value)


GRAD_STATE: Final = _GradState()


def is_grad_enabled() -> bool:
    """Whether autograd records operations. Torch: torch.is_grad_enabled."""
    return _ENABLED.get()
