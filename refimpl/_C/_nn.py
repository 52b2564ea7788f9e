"""`refimpl._C._nn`: the functions torch binds in `torch._C._nn`, the generated Python bindings
of the aten ops whose native_functions.yaml entry says `python_module: nn` (gelu, linear,
avg_pool2d, mse_loss, upsample_bilinear2d, ...).

Torch: torch/csrc/autograd/generated/python_nn_functions.cpp. torch.nn.functional calls them
(`torch._C._nn.elu(input, alpha)`) or exposes them as they are (`F.gelu is
torch._C._nn.gelu`). Each is one `torch_function` over its aten packet, with the Python
signatures spec/api_signatures.json records for the namespace "torch._C._nn"; the table is
that file's, so nothing here is written per op.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.spec import api_namespace_names
from refimpl.api._call import torch_function
from refimpl.api._torch_function import overridable

_MODULE: Final = "torch._C._nn"


def _bindings() -> dict[str, Any]:
    # torch: every generated binding checks for __torch_function__ overrides; F.gelu is this
    # very object, so a TorchFunctionMode is told of it (as torch.nn.functional.gelu).
    return {
        name: overridable(torch_function(name, module=_MODULE))
        for name in api_namespace_names(_MODULE)
    }


globals().update(_bindings())


def __getattr__(name: str) -> Any:
    # The bindings are made at import from the spec (above); this tells a type checker that
    # the module has names it cannot see, and says what torch says of a missing one.
    raise AttributeError(f"module 'torch._C._nn' has no attribute '{name}'")
