"""torch.nn.functional: convolution and transposed convolution, im2col/col2im (unfold/fold).

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
