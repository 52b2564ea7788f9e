"""The torch.* functions of convolution and transposed convolution.

Torch: the generated bindings in python_torch_functions.cpp (torch.conv2d, torch.convolution,
torch.conv_tbc, ...; torch.nn.functional.conv2d *is* torch.conv2d). Each function passes
through `api/_call.py` (`torch_function`); one line per name. im2col and col2im are
torch._C._nn functions (refimpl/_C/_nn.py). Torch has no Tensor methods of this family.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import torch_function
from refimpl.api._torch_function import overridable

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_convolution",
    "_convolution_mode",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "convolution",
]

_conv1d = torch_function("conv1d")
_conv2d = torch_function("conv2d")
_conv3d = torch_function("conv3d")
_conv_transpose1d = torch_function("conv_transpose1d")
_conv_transpose2d = torch_function("conv_transpose2d")
_conv_transpose3d = torch_function("conv_transpose3d")
# torch: these are generated bindings (a TorchFunctionMode is told of F.conv2d and
# F.conv_tbc with the types of overloaded arguments only, as for any binding), so they are
# put behind the protocol here, not as Python-level functions.
convolution = overridable(torch_function("convolution"))
conv_tbc = overridable(torch_function("conv_tbc"))
_convolution = overridable(torch_function("_convolution"))
_convolution_mode = overridable(torch_function("_convolution_mode"))


def _ints(value: Any, n: int) -> Any:
    # torch: the Python argument parser fills a `SymInt[N]` parameter from one int (N copies);
    # the aten schema itself takes lists only. A str (conv2d's padding="same") passes as is.
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    return value


@overridable
def conv1d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: Any = 1,
) -> Any:
    """A 1-D convolution. Torch: torch.conv1d (aten.conv1d, aten.conv1d.padding)."""
    return _conv1d(
        input, weight, bias, _ints(stride, 1), _ints(padding, 1), _ints(dilation, 1), groups
    )


@overridable
def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: Any = 1,
) -> Any:
    """A 2-D convolution. Torch: torch.conv2d (aten.conv2d, aten.conv2d.padding)."""
    return _conv2d(
        input, weight, bias, _ints(stride, 2), _ints(padding, 2), _ints(dilation, 2), groups
    )


@overridable
def conv3d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: Any = 1,
) -> Any:
    """A 3-D convolution. Torch: torch.conv3d (aten.conv3d, aten.conv3d.padding)."""
    return _conv3d(
        input, weight, bias, _ints(stride, 3), _ints(padding, 3), _ints(dilation, 3), groups
    )


@overridable
def conv_transpose1d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: Any = 1,
    dilation: Any = 1,
) -> Any:
    """A 1-D transposed convolution. Torch: torch.conv_transpose1d (aten.conv_transpose1d)."""
    return _conv_transpose1d(
        input,
        weight,
        bias,
        _ints(stride, 1),
        _ints(padding, 1),
        _ints(output_padding, 1),
        groups,
        _ints(dilation, 1),
    )


@overridable
def conv_transpose2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: Any = 1,
    dilation: Any = 1,
) -> Any:
    """A 2-D transposed convolution. Torch: torch.conv_transpose2d
    (aten.conv_transpose2d.input)."""
    return _conv_transpose2d(
        input,
        weight,
        bias,
        _ints(stride, 2),
        _ints(padding, 2),
        _ints(output_padding, 2),
        groups,
        _ints(dilation, 2),
    )


@overridable
def conv_transpose3d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: Any = 1,
    dilation: Any = 1,
) -> Any:
    """A 3-D transposed convolution. Torch: torch.conv_transpose3d
    (aten.conv_transpose3d.input)."""
    return _conv_transpose3d(
        input,
        weight,
        bias,
        _ints(stride, 3),
        _ints(padding, 3),
        _ints(output_padding, 3),
        groups,
        _ints(dilation, 3),
    )


class ConvolutionMethods:
    """The Tensor methods of this family (none: torch has no Tensor.conv2d). Torch:
    torch._C.TensorBase's methods."""

    __slots__ = ()
