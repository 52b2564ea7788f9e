"""The torch.* functions and Tensor methods of masks and advanced indices (index, index_put, masked_select, masked_scatter, nonzero, nonzero_static, argwhere).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `MaskingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class MaskingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
