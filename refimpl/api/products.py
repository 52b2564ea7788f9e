"""The torch.* functions and Tensor methods of the matmul family (mm, bmm, matmul, addmm, addmv, addr, addbmm, baddbmm, dot, vdot, mv, outer, inner, einsum, tensordot, kron, cross, cdist, trapezoid).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `ProductMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class ProductMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
