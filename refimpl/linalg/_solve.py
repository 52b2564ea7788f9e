"""torch.linalg's solvers and factorizations.

Torch: torch/linalg/__init__.py (generated bindings of the linalg_* aten ops).
"""

from __future__ import annotations

# The torch.linalg names this module adds to `refimpl.linalg`.
__all__: list[str] = []
