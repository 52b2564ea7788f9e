"""The aten ops beneath torch.nn.functional: the regression and classification losses (mse, l1, smooth_l1, huber, nll, cross_entropy, binary_cross_entropy, kl_div, ...).

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
