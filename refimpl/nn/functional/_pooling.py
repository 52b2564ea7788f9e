"""torch.nn.functional: max, average, adaptive, Lp and fractional pooling, max_unpool.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
