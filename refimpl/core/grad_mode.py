"""The thread-local grad mode flags.

Torch: c10/core/GradMode.h and c10/core/InferenceMode.h: the flags live in c10's core, below
the dispatcher, so that kernels and derivative formulas can read them (torch's logit
formula, for one, picks its helper by GradMode::is_enabled). The context managers that set
them are autograd's (refimpl/autograd/grad_mode.py).
"""

from __future__ import annotations

import threading


class _GradState(threading.local):
    """Torch: GradMode's thread-local flag and InferenceMode's."""

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


GRAD_STATE = _GradState()


def is_grad_enabled() -> bool:
    """Whether autograd records operations. Torch: torch.is_grad_enabled."""
    return GRAD_STATE.enabled
