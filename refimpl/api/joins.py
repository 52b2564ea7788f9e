"""The torch.* functions and Tensor methods of shapes and joins (cat, stack, the splits, flip, roll, rot90, repeat, tile, repeat_interleave, atleast_*, broadcast_*, ravel, unflatten) and the module-level forms of the view ops.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `JoinMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = []


class JoinMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
