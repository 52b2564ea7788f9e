"""The torch.* functions and Tensor methods of interpolate/upsample, grid_sample, affine_grid.

Work in progress (issue 15). Each function and method passes through `api/_call.py`
(`torch_function`, `method`); one line per name. `SamplingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class SamplingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
