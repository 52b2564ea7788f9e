"""The CompositeImplicitAutograd convolutions above aten::convolution: conv1d/2d/3d (and their
`padding` string overloads), conv_transpose1d/2d/3d, _convolution_mode, and the complex
convolution they run as three real ones.

Torch: aten/src/ATen/native/Convolution.cpp (conv1d_symint ... conv_transpose3d_symint,
batchify, complex_convolution, _convolution_mode_symint, _convolution_same). Each adds a batch
dim to an unbatched input (unsqueeze(0)) and removes it after (squeeze(0)), so a
TorchDispatchMode sees those calls around `aten.convolution.default`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._outputs import format_shape
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")



def batchify(input: TensorImpl, spatial: int, name: str) -> tuple[Any, bool]:
    """`input` with a batch dim, and whether it had one. Torch: batchify in Convolution.cpp."""
    unbatched = spatial + 1
    batched = unbatched + 1
    ndim = len(input._size)
    if ndim not in (unbatched, batched):
        raise RuntimeError(
            f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to {name}, but got "
            f"input of size: {format_shape(input._size)}"
        )
    if ndim == batched:
        return input, True
    return aten.unsqueeze.default(input, 0), False


def _unbatchify(output: Any, is_batched: bool) -> Any:
    return output if is_batched else aten.squeeze.dim(output, 0)


def _check_bias_dtype(input: TensorImpl, bias: TensorImpl | None) -> None:
    # torch: the check at the top of conv1d_symint / conv2d_symint / conv3d_symint.
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({type_meta_name(input._dtype)}) and bias type "
            f"({type_meta_name(bias._dtype)}) should be the same"
        )


def _complex_parts(t: TensorImpl) -> tuple[Any, Any]:
    """Torch: complex_to_real (view_as_real, then select of each part on the last dim)."""
    real = aten.view_as_real.default(t)
    last = len(t._size)
    return aten.select.int(real, last, 0), aten.select.int(real, last, 1)


def _check_complex_types(input: TensorImpl, weight: TensorImpl, bias: TensorImpl | None) -> None:
    # torch: check_input_same_type_as_parameters(input, weight, bias) in ConvUtils.h; the
    # input prints as its legacy type ("CPUComplexFloatType"), the others as tensor types.
    device = input._storage.device.type
    head = f"Input type ({device.upper()}{input._dtype.scalar_name}Type)"
    for name, other in (("weight", weight), ("bias", bias)):
        if other is not None and other._dtype is not input._dtype:
            prefix = "torch." if device == "cpu" else f"torch.{device}."
            raise RuntimeError(
                f"{head} and {name} type ({prefix}{other._dtype.scalar_name}Tensor) should be "
                "the same"
            )


def complex_convolution(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    convolve: Any,
) -> Any:
    """A complex convolution as three real ones (Gauss's trick).

    Torch: complex_convolution / complex_convolution_mode in Convolution.cpp, See its
    [NOTE] Complex Convolution: with a = conv(xr, wr, br), b = conv(xi, wi, 0) and
    c = conv(xr + xi, wr + wi, br + bi), the result is a - b + i(c - a - b). `convolve(x, w,
    b)` runs one real convolution; the calls are made in torch's order (C++ evaluates the
    arguments of c right to left).
    """
    _check_complex_types(input, weight, bias)
    i_r, i_i = _complex_parts(input)
    w_r, w_i = _complex_parts(weight)
    if bias is None:
        a = convolve(i_r, w_r, None)
        b = convolve(i_i, w_i, None)
        w_sum = aten.add.Tensor(w_r, w_i)
        c = convolve(aten.add.Tensor(i_r, i_i), w_sum, None)
    else:
        b_r, b_i = _complex_parts(bias)
        a = convolve(i_r, w_r, b_r)
        b = convolve(i_i, w_i, None)
        b_sum = aten.add.Tensor(b_r, b_i)
        w_sum = aten.add.Tensor(w_r, w_i)
        c = convolve(aten.add.Tensor(i_r, i_i), w_sum, b_sum)
    imag = aten.mul.Scalar(aten.sub.Tensor(aten.sub.Tensor(c, a), b), 1j)
    return aten.add.Tensor(aten.sub.Tensor(a, b), imag)


def _conv(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    name: str,
) -> Any:
    """Torch: conv1d_symint / conv2d_symint / conv3d_symint."""
    spatial = int(name[-2])
    _check_bias_dtype(input, bias)
    batched, is_batched = batchify(input, spatial, name)
    zeros = [0] * spatial

    def convolve(x: Any, w: Any, b: Any) -> Any:
        return aten.convolution.default(x, w, b, stride, padding, dilation, False, zeros, groups)

    if input._dtype.is_complex:
        output = complex_convolution(batched, weight, bias, convolve)
    else:
        output = convolve(batched, weight, bias)
    return _unbatchify(output, is_batched)


def _conv_padding(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: str,
    dilation: Sequence[int],
    groups: int,
    name: str,
) -> Any:
    """Torch: conv1d_padding_symint / conv2d_padding_symint / conv3d_padding_symint."""
    spatial = int(name[-2])
    batched, is_batched = batchify(input, spatial, name)

    def convolve(x: Any, w: Any, b: Any) -> Any:
        return aten._convolution_mode.default(x, w, b, stride, padding, dilation, groups)

    if input._dtype.is_complex:
        output = complex_convolution(batched, weight, bias, convolve)
    else:
        output = convolve(batched, weight, bias)
    return _unbatchify(output, is_batched)


def _conv_transpose(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
    dilation: Sequence[int],
    name: str,
) -> Any:
    """Torch: conv_transpose1d_symint / conv_transpose2d_symint / conv_transpose3d_symint."""
    spatial = int(name[-2])
    batched, is_batched = batchify(input, spatial, name)

    def convolve(x: Any, w: Any, b: Any) -> Any:
        return aten.convolution.default(
            x, w, b, stride, padding, dilation, True, output_padding, groups
        )

    if input._dtype.is_complex:
        output = complex_convolution(batched, weight, bias, convolve)
    else:
        output = convolve(batched, weight, bias)
    return _unbatchify(output, is_batched)


# --- conv1d, conv2d, conv3d ----------------------------------------------------------------

conv1d = defop(
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], "
    "SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor"
)
conv2d = defop(
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
    "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor"
)
conv3d = defop(
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], "
    "SymInt[3] padding=[0, 0, 0], SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor"
)


@conv1d.decomposition
def conv1d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Any:
    """Torch: conv1d_symint in Convolution.cpp."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv1d")


@conv2d.decomposition
def conv2d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> Any:
    """Torch: conv2d_symint in Convolution.cpp."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv2d")


@conv3d.decomposition
def conv3d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: Sequence[int] = (0, 0, 0),
    dilation: Sequence[int] = (1, 1, 1),
    groups: int = 1,
) -> Any:
    """Torch: conv3d_symint in Convolution.cpp."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv3d")


conv1d_padding = defop(
    "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], "
    'str padding="valid", SymInt[1] dilation=[1], SymInt groups=1) -> Tensor'
)
conv2d_padding = defop(
    "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
    'str padding="valid", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor'
)
conv3d_padding = defop(
    "conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
    'SymInt[3] stride=[1, 1, 1], str padding="valid", SymInt[3] dilation=[1, 1, 1], '
    "SymInt groups=1) -> Tensor"
)


@conv1d_padding.decomposition
def conv1d_padding_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1,),
    padding: str = "valid",
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Any:
    """Torch: conv1d_padding_symint in Convolution.cpp."""
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, "conv1d")


@conv2d_padding.decomposition
def conv2d_padding_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1),
    padding: str = "valid",
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> Any:
    """Torch: conv2d_padding_symint in Convolution.cpp."""
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, "conv2d")


@conv3d_padding.decomposition
def conv3d_padding_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: str = "valid",
    dilation: Sequence[int] = (1, 1, 1),
    groups: int = 1,
) -> Any:
    """Torch: conv3d_padding_symint in Convolution.cpp."""
    return _conv_padding(input, weight, bias, stride, padding, dilation, groups, "conv3d")


# --- conv_transpose1d, conv_transpose2d, conv_transpose3d ----------------------------------

conv_transpose1d = defop(
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], "
    "SymInt[1] padding=[0], SymInt[1] output_padding=[0], SymInt groups=1, "
    "SymInt[1] dilation=[1]) -> Tensor"
)
conv_transpose2d = defop(
    "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], "
    "SymInt groups=1, SymInt[2] dilation=[1, 1]) -> Tensor"
)
conv_transpose3d = defop(
    "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], "
    "SymInt[3] output_padding=[0, 0, 0], SymInt groups=1, SymInt[3] dilation=[1, 1, 1]) "
    "-> Tensor"
)


@conv_transpose1d.decomposition
def conv_transpose1d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    output_padding: Sequence[int] = (0,),
    groups: int = 1,
    dilation: Sequence[int] = (1,),
) -> Any:
    """Torch: conv_transpose1d_symint in Convolution.cpp."""
    return _conv_transpose(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        "conv_transpose1d",
    )


@conv_transpose2d.decomposition
def conv_transpose2d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0),
    output_padding: Sequence[int] = (0, 0),
    groups: int = 1,
    dilation: Sequence[int] = (1, 1),
) -> Any:
    """Torch: conv_transpose2d_symint in Convolution.cpp."""
    return _conv_transpose(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        "conv_transpose2d",
    )


@conv_transpose3d.decomposition
def conv_transpose3d_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: Sequence[int] = (0, 0, 0),
    output_padding: Sequence[int] = (0, 0, 0),
    groups: int = 1,
    dilation: Sequence[int] = (1, 1, 1),
) -> Any:
    """Torch: conv_transpose3d_symint in Convolution.cpp."""
    return _conv_transpose(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        "conv_transpose3d",
    )


# --- _convolution_mode ---------------------------------------------------------------------

_convolution_mode = defop(
    "_convolution_mode(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, str padding, "
    "SymInt[] dilation, SymInt groups) -> Tensor"
)


@_convolution_mode.decomposition
def _convolution_mode_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: str,
    dilation: Sequence[int],
    groups: int,
) -> Any:
    """Torch: _convolution_mode_symint in Convolution.cpp ("same" through _convolution_same,
    "valid" as zero padding)."""
    if padding == "same":
        return _convolution_same(input, weight, bias, stride, dilation, groups)
    if padding == "valid":
        return aten.convolution.default(
            input, weight, bias, stride, [0], dilation, False, [0], groups
        )
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def _convolution_same(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Any:
    """Torch: _convolution_same in Convolution.cpp: the total padding d * (k - 1) split with
    the extra element on the right; an uneven split pads the input first (constant_pad_nd)."""
    k = len(weight._size)
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != len(input._size):
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight"
            f"{format_shape(weight._size)}, but got {len(input._size)}-dimensional input of "
            f"size {format_shape(input._size)} instead"
        )
    if len(stride) not in (dim, 1):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if len(dilation) not in (dim, 1):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left: list[int] = []
    right: list[int] = []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight._size[i + 2] - 1)
        # C++ integer division truncates toward zero.
        half = int(total / 2)
        left.append(half)
        right.append(total - half)
    if left == right:
        return aten.convolution.default(
            input, weight, bias, stride, left, dilation, False, [0], groups
        )
    message = (
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created"
    )
    if should_warn_once("_convolution_same"):  # torch: TORCH_WARN_ONCE
        # Differs: torch's message ends with " (Triggered internally at ...)".
        warnings.warn(message, UserWarning, stacklevel=6)
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = right[i] - left[i]
        index = 2 * (dim - 1 - i)  # constant_pad_nd lists the last dim first
        if delta > 0:
            pad_nd[index + 1] = delta
        else:
            pad_nd[index] = delta
            left[i] = right[i]
    padded = aten.constant_pad_nd.default(input, pad_nd, 0)
    return aten.convolution.default(
        padded, weight, bias, stride, left, dilation, False, [0], groups
    )
