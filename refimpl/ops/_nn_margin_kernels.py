"""What the margin-loss and ctc_loss kernels share: the dispatch keys torch registers them
under, and the dtypes of their CPU kernels.

Torch: the `dispatch:` entries of native_functions.yaml for multi_margin_loss,
multilabel_margin_loss_forward, _ctc_loss and their backward ops (CPU and CUDA kernels; a
Meta kernel, or a Python meta function, for some of the forward ops only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from refimpl._base.dtypes import float32, float64
from refimpl._base.keys import DispatchKey
from refimpl.ops._register import OpBlock

F = TypeVar("F", bound=Callable[..., Any])

WITH_META: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
"""An op torch gives a Meta kernel (its shapes are known without data)."""
WITHOUT_META: Final = (DispatchKey.CPU, DispatchKey.CUDA)
"""An op torch has no Meta kernel for (a meta tensor raises NotImplementedError)."""
KERNEL_DTYPES: Final = frozenset({float32, float64})
"""The dtypes of the CPU kernels (AT_DISPATCH_FLOATING_TYPES)."""


def kernels_for(block: OpBlock, keys: tuple[DispatchKey, ...]) -> Callable[[F], F]:
    """Register the decorated body as `block`'s kernel for each of `keys`.

    Differs: torch has a kernel per backend; one body that skips arithmetic on meta tensors
    serves them all here.
    """

    def register(fn: F) -> F:
        for key in keys:
            block.kernel(key)(fn)
        return fn

    return register
