"""The aten ops beneath torch.nn.functional: max, average, adaptive, Lp and fractional pooling, max_unpool.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
