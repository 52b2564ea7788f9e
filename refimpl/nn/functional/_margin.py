"""torch.nn.functional: the margin and embedding losses, ctc_loss, and the distances (cosine_similarity, pairwise_distance, pdist).

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
