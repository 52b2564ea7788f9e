"""The aten ops beneath torch.nn.functional: scaled_dot_product_attention and multi_head_attention_forward.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
