"""torch.nn.functional: layer, group, batch, instance and RMS normalization,
local_response_norm, normalize.

Torch: torch/nn/functional.py. Each function checks its arguments as torch's does (the batch
size and spatial size checks, the eps checks of batch_norm) and calls the torch.* function
torch's calls (torch.batch_norm, torch.layer_norm, ...: refimpl.api.nn_normalization);
local_response_norm and normalize compose tensor operations, local_response_norm over
F.pad and F.avg_pool2d / avg_pool3d (torch._C._nn bindings, refimpl._C._nn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refimpl._C import _nn
from refimpl.api.functions import div as _div
from refimpl.api.nn_normalization import batch_norm as _batch_norm
from refimpl.api.nn_normalization import group_norm as _group_norm
from refimpl.api.nn_normalization import instance_norm as _instance_norm
from refimpl.api.nn_normalization import layer_norm as _layer_norm
from refimpl.api.nn_normalization import rms_norm as _rms_norm

# The torch._C._nn bindings torch's local_response_norm calls (F.pad, F.avg_pool2d and
# F.avg_pool3d are these objects in torch); _nn makes its names from the spec at import.
_pad: Any = vars(_nn)["pad"]
_avg_pool2d: Any = vars(_nn)["avg_pool2d"]
_avg_pool3d: Any = vars(_nn)["avg_pool3d"]

__all__: list[str] = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]

# torch: torch.backends.cudnn.enabled, which torch's functions pass on (True by default; no
# cuDNN path exists in refimpl).
_CUDNN_ENABLED = True


def _verify_batch_size(size: Sequence[int]) -> None:
    """Torch: torch.nn.functional._verify_batch_size."""
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def _verify_spatial_size(size: Sequence[int]) -> None:
    """Torch: torch.nn.functional._verify_spatial_size."""
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}"
        )


def batch_norm(
    input: Any,
    running_mean: Any | None,
    running_var: Any | None,
    weight: Any | None = None,
    bias: Any | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """Batch normalization over the channel dim (1). Torch: torch.nn.functional.batch_norm."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, _CUDNN_ENABLED
    )


def instance_norm(
    input: Any,
    running_mean: Any | None = None,
    running_var: Any | None = None,
    weight: Any | None = None,
    bias: Any | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """Instance normalization. Torch: torch.nn.functional.instance_norm."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _instance_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        use_input_stats,
        momentum,
        eps,
        _CUDNN_ENABLED,
    )


def layer_norm(
    input: Any,
    normalized_shape: list[int],
    weight: Any | None = None,
    bias: Any | None = None,
    eps: float = 1e-5,
) -> Any:
    """Layer normalization. Torch: torch.nn.functional.layer_norm."""
    return _layer_norm(input, normalized_shape, weight, bias, eps, _CUDNN_ENABLED)


def rms_norm(
    input: Any,
    normalized_shape: list[int],
    weight: Any | None = None,
    eps: float | None = None,
) -> Any:
    """Root mean square layer normalization. Torch: torch.nn.functional.rms_norm."""
    return _rms_norm(input, normalized_shape, weight, eps)


def group_norm(
    input: Any,
    num_groups: int,
    weight: Any | None = None,
    bias: Any | None = None,
    eps: float = 1e-5,
) -> Any:
    """Group normalization. Torch: torch.nn.functional.group_norm."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
    )
    return _group_norm(input, num_groups, weight, bias, eps, _CUDNN_ENABLED)


def local_response_norm(
    input: Any,
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> Any:
    """Local response normalization across channels. Torch:
    torch.nn.functional.local_response_norm (average pooling of the squares over a window
    of `size` channels)."""
    dim = input.dim()
    if dim < 3:
        # torch's message, its run of spaces included (a continued string literal).
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = _pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = _avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = _avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(
    input: Any,
    p: float = 2.0,
    dim: int = 1,
    eps: float = 1e-12,
    out: Any | None = None,
) -> Any:
    """`input` divided by its `p`-norm over `dim` (at least `eps`). Torch:
    torch.nn.functional.normalize."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _div(input, denom, out=out)
