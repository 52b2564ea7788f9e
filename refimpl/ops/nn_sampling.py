"""The aten ops beneath torch.nn.functional: interpolate/upsample, grid_sample, affine_grid.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
