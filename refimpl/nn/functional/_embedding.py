"""torch.nn.functional: linear, bilinear, embedding, embedding_bag, one_hot, pad, pixel/channel shuffles.

Torch: torch/nn/functional.py. F.linear, F.one_hot are the torch._C._nn bindings themselves,
F.bilinear and the shuffles the torch.* functions; embedding, embedding_bag and pad are
Python functions (their checks, then torch.embedding, torch.embedding_bag and
torch._C._nn.pad).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from refimpl._base.dtypes import int64
from refimpl._C import _nn
from refimpl.api import nn_embedding
from refimpl.api.factories import arange
from refimpl.api.nn_embedding import (
    bilinear,
    channel_shuffle,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
)
from refimpl.api.tensor import Tensor

__all__: list[str] = [
    "bilinear",
    "channel_shuffle",
    "embedding",
    "embedding_bag",
    "linear",
    "native_channel_shuffle",
    "one_hot",
    "pad",
    "pixel_shuffle",
    "pixel_unshuffle",
]

# refimpl._C._nn builds its bindings from the spec at import, so mypy sees no names there.
# F.linear and F.one_hot are torch._C._nn's bindings themselves.
linear: Any = vars(_nn)["linear"]
one_hot: Any = vars(_nn)["one_hot"]
_c_pad: Any = vars(_nn)["pad"]

# torch: the `mode` strings of F.embedding_bag and the ints aten's embedding_bag takes.
_BAG_MODES: dict[str, int] = {"sum": 0, "mean": 1, "max": 2}


def _no_grad_embedding_renorm_(
    weight: Tensor, input: Tensor, max_norm: float, norm_type: float
) -> None:
    """Torch: torch.nn.functional._no_grad_embedding_renorm_ (renorms a detached weight, so
    autograd does not see the in-place write)."""
    nn_embedding.embedding_renorm_(weight.detach(), input, max_norm, norm_type)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of `weight` that `input` names, renormalising them first for `max_norm`.

    Torch: torch.nn.functional.embedding (padding_idx checked and wrapped, -1 when None;
    `embedding_renorm_` on the detached weight, then torch.embedding).
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # torch: Note [embedding_renorm contiguous]: the renorm reads the indices contiguous.
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    result: Tensor = nn_embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
    return result


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sums, means or maxima of bags of `weight`'s rows.

    Torch: torch.nn.functional.embedding_bag (the legacy argument order, the 2-D input as
    fixed-length bags, the mode checks, then torch.embedding_bag's first output).
    """
    if weight.dtype == int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. "
            "Usage `embedding_bag(weight, input, ...)` is deprecated, "
            "and should now be `embedding_bag(input, weight, ...)`.",
            # torch's stacklevel=2, plus the __torch_function__ wrapper's frame
            # (api/_torch_function.py: overridable), so the caller is named as in torch.
            stacklevel=3,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if not weight.dim() == 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None"
                ", as input is treated is a mini-batch of"
                " fixed length sequences. However, found "
                f"offsets of type {type(offsets)}"
            )
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    mode_enum = _BAG_MODES[mode]
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. "
            "per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    ret, _, _, _ = nn_embedding.embedding_bag(
        weight,
        input,
        offsets,
        scale_grad_by_freq,
        mode_enum,
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
    result: Tensor = ret
    return result


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """`input` padded by `pad` ((before, after) pairs from the last dim backwards) in `mode`.

    Torch: torch.nn.functional.pad (torch._C._nn.pad; its deterministic-algorithms branch is
    for CUDA and XPU inputs only).
    """
    result: Tensor = _c_pad(input, pad, mode, value)
    return result
