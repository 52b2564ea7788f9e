"""The torch.* functions and Tensor methods of tensors built from the structure of others (tril/triu and their indices, diag, diag_embed, diagflat, block_diag, meshgrid, cartesian_prod, combinations), the *_copy forms of the view ops, the scatter-backs of views and narrow_copy.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `ConstructionMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class ConstructionMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
