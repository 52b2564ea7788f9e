"""The torch.* functions and Tensor methods of softmax and log_softmax.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp
(torch.softmax / torch.log_softmax take `dim` and `dtype`; `_stacklevel` belongs to
torch.nn.functional only). Each function and method passes through `api/_call.py`
(`torch_function`, `method`); one line per name. `SoftmaxMethods` is a base class of
`refimpl.Tensor`. torch.special.softmax / log_softmax are in refimpl/special.py.
"""

from __future__ import annotations

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "log_softmax",
    "softmax",
]

softmax = torch_function("softmax")
log_softmax = torch_function("log_softmax")


class SoftmaxMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    softmax = method("softmax")
    log_softmax = method("log_softmax")
