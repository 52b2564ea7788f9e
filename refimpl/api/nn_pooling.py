"""The torch.* functions of max, average and adaptive pooling (torch has no pooling Tensor
methods).

Torch: the generated bindings in python_torch_functions.cpp (torch.max_pool1d,
torch.avg_pool1d, ...: the aten ops whose native_functions.yaml entry has no
`python_module: nn`; the others are torch._C._nn bindings, refimpl/_C/_nn.py). Each function
passes through `api/_call.py` (`torch_function`); one line per name, put behind the
`__torch_function__` protocol here as a C++ binding (torch's resolve_name calls torch.avg_pool1d
`torch.nn.functional.avg_pool1d`, yet a handler is told of no plain Tensor type, unlike for a
function torch writes in Python). `PoolingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from refimpl.api._call import torch_function
from refimpl.api._torch_function import overridable

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_adaptive_avg_pool2d",
    "_adaptive_avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "avg_pool1d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
]

max_pool1d = overridable(torch_function("max_pool1d"))
max_pool1d_with_indices = overridable(torch_function("max_pool1d_with_indices"))
max_pool2d = overridable(torch_function("max_pool2d"))
max_pool3d = overridable(torch_function("max_pool3d"))
avg_pool1d = overridable(torch_function("avg_pool1d"))
adaptive_avg_pool1d = overridable(torch_function("adaptive_avg_pool1d"))
adaptive_max_pool1d = overridable(torch_function("adaptive_max_pool1d"))
# Private: torch does not check these for overrides.
_adaptive_avg_pool2d = torch_function("_adaptive_avg_pool2d")
_adaptive_avg_pool3d = torch_function("_adaptive_avg_pool3d")


class PoolingMethods:
    """The Tensor methods of this family: none (torch.Tensor has no pooling method)."""

    __slots__ = ()
