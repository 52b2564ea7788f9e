"""The aten ops beneath torch.nn.functional: linear, bilinear, embedding, embedding_bag, one_hot, pad, pixel/channel shuffles.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
