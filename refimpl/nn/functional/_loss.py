"""torch.nn.functional: the regression and classification losses (mse, l1, smooth_l1, huber, nll, cross_entropy, binary_cross_entropy, kl_div, ...).

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
