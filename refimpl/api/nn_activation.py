"""The torch.* functions and Tensor methods of the activation functions (relu, selu, celu,
threshold, hardshrink, prelu, rrelu) and their in-place forms.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
The other activations are torch._C._nn bindings only (refimpl/_C/_nn.py: gelu, elu, hardtanh,
leaky_relu, silu, ...), or torch.* functions of other families (sigmoid, tanh, softmax, the
dropout ops). Each function and method passes through `api/_call.py` (`torch_function`,
`method`); one line per name. `ActivationMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_prelu_kernel",
    "celu",
    "celu_",
    "hardshrink",
    "prelu",
    "relu",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "threshold",
    "threshold_",
]

relu = torch_function("relu")
relu_ = torch_function("relu_")
selu = torch_function("selu")
selu_ = torch_function("selu_")
celu = torch_function("celu")
celu_ = torch_function("celu_")
threshold = torch_function("threshold")
threshold_ = torch_function("threshold_")
hardshrink = torch_function("hardshrink")
prelu = torch_function("prelu")
_prelu_kernel = torch_function("_prelu_kernel")
rrelu = torch_function("rrelu")
rrelu_ = torch_function("rrelu_")


class ActivationMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    relu = method("relu")
    relu_ = method("relu_")
    hardshrink = method("hardshrink")
    prelu = method("prelu")
