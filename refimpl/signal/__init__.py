"""`refimpl.signal`: torch.signal (its `windows` namespace).

Torch: torch/signal/__init__.py.
"""

from __future__ import annotations

from refimpl.signal import windows as windows

__all__ = ["windows"]
