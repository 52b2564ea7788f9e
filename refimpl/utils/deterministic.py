"""`refimpl.utils.deterministic.fill_uninitialized_memory`: whether the empty factories fill
their memory (NaN, the largest integer, True) while deterministic algorithms are on.

Torch: torch/utils/deterministic.py, a module whose class gives it the property (over
torch._C._get/_set_deterministic_fill_uninitialized_memory, at::Context's flag; here
refimpl/_base/context.py, read by ops/factory.py's fill_uninitialized).
"""

from __future__ import annotations

import sys
import types

from refimpl._base.context import CONTEXT


class _Deterministic(types.ModuleType):
    """This module, with torch's property. Torch: torch.utils.deterministic._Deterministic."""

    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether to fill uninitialized memory with a known value when
        refimpl.use_deterministic_algorithms(True) is set."""
        return CONTEXT.fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: object) -> None:
        # torch: _set_deterministic_fill_uninitialized_memory's check.
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")  # noqa: TRY004 - torch's type
        CONTEXT.fill_uninitialized_memory = mode


sys.modules[__name__].__class__ = _Deterministic
