"""torch.nn.functional: convolution and transposed convolution, im2col/col2im (unfold/fold).

Torch: torch/nn/functional.py. F.conv1d ... F.conv_transpose3d and F.conv_tbc *are* the
torch.* functions (refimpl/api/nn_convolution.py); F.unfold and F.fold are Python functions
over torch._C._nn.im2col / col2im.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from refimpl._C import _nn
from refimpl.api.nn_convolution import (
    conv1d,
    conv2d,
    conv3d,
    conv_tbc,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)

__all__: list[str] = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "fold",
    "unfold",
]


# refimpl._C._nn builds its bindings from the spec at import, so mypy sees no names there.
_im2col: Any = vars(_nn)["im2col"]
_col2im: Any = vars(_nn)["col2im"]


def _pair(value: Any) -> tuple[Any, ...]:
    # torch: _pair (torch/nn/modules/utils.py): an iterable as a tuple, else repeated twice.
    if isinstance(value, Iterable):
        return tuple(value)
    return (value, value)


def unfold(
    input: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    """Extract sliding local blocks from a batched input tensor.

    Torch: torch.nn.functional.unfold (torch._C._nn.im2col with each argument as a pair).
    """
    return _im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(
    input: Any,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    """Combine an array of sliding local blocks into a large containing tensor.

    Torch: torch.nn.functional.fold (torch._C._nn.col2im with each argument as a pair).
    """
    return _col2im(
        input,
        _pair(output_size),
        _pair(kernel_size),
        _pair(dilation),
        _pair(padding),
        _pair(stride),
    )
