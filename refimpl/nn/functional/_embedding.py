"""torch.nn.functional: linear, bilinear, embedding, embedding_bag, one_hot, pad, pixel/channel shuffles.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
