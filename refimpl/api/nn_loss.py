"""The torch.* functions of the losses: torch.binary_cross_entropy_with_logits,
torch.kl_div and torch.poisson_nll_loss (the other loss ops are bound in torch._C._nn only,
refimpl/_C/_nn.py; none is a Tensor method).

Torch: the generated bindings in python_torch_functions.cpp. Each function passes through
`api/_call.py` (`torch_function`); one line per name. `LossMethods` is a base class of
`refimpl.Tensor`.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "binary_cross_entropy_with_logits",
    "kl_div",
    "poisson_nll_loss",
]

binary_cross_entropy_with_logits = torch_function("binary_cross_entropy_with_logits")
kl_div = torch_function("kl_div")
poisson_nll_loss = torch_function("poisson_nll_loss")


class LossMethods:
    """The Tensor methods of this family (torch has none). Torch: torch._C.TensorBase."""

    __slots__ = ()
