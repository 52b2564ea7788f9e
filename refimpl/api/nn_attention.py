"""The torch.* functions of scaled dot-product attention.

Torch: the generated bindings in python_torch_functions.cpp (torch._safe_softmax,
torch._scaled_dot_product_flash_attention_for_cpu, torch._scaled_dot_product_attention_math,
torch._fused_sdp_choice). F.scaled_dot_product_attention is torch._C._nn's binding
(refimpl/_C/_nn.py). Each passes through `api/_call.py`; one line per name.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_fused_sdp_choice",
    "_safe_softmax",
    "_scaled_dot_product_attention_math",
    "_scaled_dot_product_flash_attention_for_cpu",
]

_safe_softmax = torch_function("_safe_softmax")
_scaled_dot_product_flash_attention_for_cpu = torch_function(
    "_scaled_dot_product_flash_attention_for_cpu"
)
_scaled_dot_product_attention_math = torch_function("_scaled_dot_product_attention_math")
_fused_sdp_choice = torch_function("_fused_sdp_choice")


class AttentionMethods:
    """The Tensor methods of this family: none (torch has no Tensor method for attention)."""

    __slots__ = ()
