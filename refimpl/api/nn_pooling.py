"""The torch.* functions and Tensor methods of max, average, adaptive, Lp and fractional pooling, max_unpool.

Work in progress (issue 15). Each function and method passes through `api/_call.py`
(`torch_function`, `method`); one line per name. `PoolingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class PoolingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
