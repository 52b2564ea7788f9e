"""torch.nn.functional: interpolate/upsample, grid_sample, affine_grid.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
