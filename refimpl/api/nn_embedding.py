"""The torch.* functions and Tensor methods of linear, bilinear, embedding, embedding_bag, one_hot, pad, pixel/channel shuffles.

Torch: the generated bindings in python_torch_functions.cpp (torch.embedding,
torch.embedding_bag, torch.bilinear, torch._trilinear, torch.pixel_shuffle, ...; torch has
no Tensor methods for these). Each function passes through `api/_call.py`
(`torch_function`); one line per name. `EmbeddingMethods` is a base class of
`refimpl.Tensor`. torch.constant_pad_nd is in refimpl/api/padding.py; linear, one_hot and pad
are torch._C._nn's (refimpl/_C/_nn.py).
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_embedding_bag",
    "_embedding_bag_forward_only",
    "_trilinear",
    "bilinear",
    "channel_shuffle",
    "embedding",
    "embedding_bag",
    "embedding_renorm_",
    "native_channel_shuffle",
    "pixel_shuffle",
    "pixel_unshuffle",
]

bilinear = torch_function("bilinear")
_trilinear = torch_function("_trilinear")
embedding = torch_function("embedding")
embedding_renorm_ = torch_function("embedding_renorm_")
embedding_bag = torch_function("embedding_bag")
_embedding_bag = torch_function("_embedding_bag")
_embedding_bag_forward_only = torch_function("_embedding_bag_forward_only")
pixel_shuffle = torch_function("pixel_shuffle")
pixel_unshuffle = torch_function("pixel_unshuffle")
channel_shuffle = torch_function("channel_shuffle")
native_channel_shuffle = torch_function("native_channel_shuffle")


class EmbeddingMethods:
    """The Tensor methods of this family (none: torch has no Tensor methods for these ops).

    Torch: torch._C.TensorBase's methods."""

    __slots__ = ()
