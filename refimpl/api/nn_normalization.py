"""The torch.* functions of layer, group, batch, instance and RMS normalization.

Torch: the generated bindings in python_torch_functions.cpp (torch.layer_norm,
torch.native_layer_norm, torch.batch_norm, ...; torch.nn.functional's Python functions call
them). Each passes through `api/_call.py` (`torch_function`); one line per name. torch.Tensor
has no method of this family, so `NormalizationMethods` is empty.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_batch_norm_impl_index",
    "_fused_rms_norm",
    "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training",
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "native_batch_norm",
    "native_group_norm",
    "native_layer_norm",
    "rms_norm",
]

_batch_norm_impl_index = torch_function("_batch_norm_impl_index")
_fused_rms_norm = torch_function("_fused_rms_norm")
_native_batch_norm_legit = torch_function("_native_batch_norm_legit")
_native_batch_norm_legit_no_training = torch_function("_native_batch_norm_legit_no_training")
batch_norm = torch_function("batch_norm")
group_norm = torch_function("group_norm")
instance_norm = torch_function("instance_norm")
layer_norm = torch_function("layer_norm")
native_batch_norm = torch_function("native_batch_norm")
native_group_norm = torch_function("native_group_norm")
native_layer_norm = torch_function("native_layer_norm")
rms_norm = torch_function("rms_norm")


class NormalizationMethods:
    """The Tensor methods of this family (none: torch.Tensor has no normalization method)."""

    __slots__ = ()
