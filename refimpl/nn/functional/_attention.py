"""torch.nn.functional: scaled_dot_product_attention and multi_head_attention_forward.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
