"""How torch's CPU convolution reads its arguments: the parameters expanded and checked, the
result's shape, which backend kernel it picks (and so which dtypes it takes and which errors
it raises), and the result's memory format.

Torch: ConvParams, expand_param_if_needed, check_shape_forward, _select_conv_backend,
check_input_same_type_as_parameters and determine_backend_memory_format in
aten/src/ATen/native/Convolution.cpp and ConvUtils.h, and the shape checks of the slow
kernels (slow_conv_transpose2d_shape_check, ...).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from refimpl._base.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
)
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, tensor_over
from refimpl.ops import _nn_convolution_xp as kernels
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import cast_to, not_implemented

Ints = tuple[int, ...]

_ALL_BUT_BOOL: Final = frozenset(
    {uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64}
)
_FLOATING_AND_LONG: Final = frozenset({float16, bfloat16, float32, float64, int64})


class ConvBackend(enum.Enum):
    """The CPU kernel torch's _select_conv_backend picks, with its AT_DISPATCH name and dtypes.

    Torch: ConvBackend in aten/src/ATen/native/ConvUtils.h (the CPU members without oneDNN).
    """

    EMPTY = ("", frozenset[DType]())
    SLOW_2D = ("slow_conv2d_cpu", _ALL_BUT_BOOL)
    SLOW_3D = ("compute_columns3d", _ALL_BUT_BOOL)
    SLOW_DILATED = ("slow_conv_dilated<>", _FLOATING_AND_LONG)
    SLOW_TRANSPOSE_2D = ("slow_conv_transpose2d_out_cpu", _FLOATING_AND_LONG)
    SLOW_TRANSPOSE_3D = ("slow_conv_transpose3d_out_cpu", _FLOATING_AND_LONG)

    def __init__(self, kernel: str, dtypes: frozenset[DType]) -> None:
        self.kernel = kernel
        self.dtypes = dtypes


@dataclass(frozen=True, slots=True)
class ConvParams:
    """The arguments of one convolution, expanded to the spatial rank.

    Torch: ConvParams in aten/src/ATen/native/ConvUtils.h.
    """

    stride: Ints
    padding: Ints
    dilation: Ints
    transposed: bool
    output_padding: Ints
    groups: int

    @property
    def is_dilated(self) -> bool:
        return any(d != 1 for d in self.dilation)


def _expand(param: Sequence[int], name: str, dim: int) -> Ints:
    """Torch: expand_param_if_needed in ConvUtils.h (one value serves every dim)."""
    values = tuple(param)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match "
            f"the convolution dimensions, but got {name}={format_shape(values)}"
        )
    return values


def conv_params(
    weight: TensorImpl,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> ConvParams:
    """The checked, expanded parameters. Torch: the start of _convolution in Convolution.cpp."""
    dim = len(weight._size) - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    return ConvParams(
        _expand(stride, "stride", dim),
        _expand(padding, "padding", dim),
        _expand(dilation, "dilation", dim),
        transposed,
        _expand(output_padding, "output_padding", dim),
        groups,
    )


def _tensor_string(t: TensorImpl) -> str:
    """Torch: Tensor::toString() ("torch.FloatTensor")."""
    device = t._storage.device.type
    prefix = "torch." if device == "cpu" else f"torch.{device}."
    return f"{prefix}{t._dtype.scalar_name}Tensor"


def check_shape_forward(
    input: TensorImpl, weight: TensorImpl, bias: TensorImpl | None, p: ConvParams
) -> None:
    """Torch: check_shape_forward in Convolution.cpp."""
    k = len(input._size)
    weight_sizes = weight._size
    shown = format_shape(weight_sizes)
    groups = p.groups
    if any(n < 0 for n in p.padding):
        raise RuntimeError("negative padding is not supported")
    if any(n < 0 for n in p.output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(n <= 0 for n in p.stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(n < 0 for n in p.dilation):
        raise RuntimeError("dilation should be greater than zero")
    if len(weight_sizes) != k:
        raise RuntimeError(
            f"Expected {len(weight_sizes)}-dimensional input for {len(weight_sizes)}-dimensional "
            f"weight {shown}, but got {k}-dimensional input of size "
            f"{format_shape(input._size)} instead"
        )
    if weight_sizes[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {shown} instead"
        )
    if weight_sizes[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{shown}] instead"
        )
    if not p.transposed:
        channels = weight_sizes[1] * groups
        if input._size[1] != channels:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {shown}, expected input"
                f"{format_shape(input._size)} to have {channels} channels, but got "
                f"{input._size[1]} channels instead"
            )
        _check_bias(bias, weight_sizes[0], f"Given weight of size {shown}")
        padded = [n + 2 * pad for n, pad in zip(input._size[2:], p.padding, strict=True)]
        kernel = [d * (n - 1) + 1 for d, n in zip(p.dilation, weight_sizes[2:], strict=True)]
        if any(a < b for a, b in zip(padded, kernel, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({_by(padded)}). Kernel size: "
                f"({_by(kernel)}). Kernel size can't be greater than actual input size"
            )
        return
    if input._size[1] != weight_sizes[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {shown}, expected input"
            f"{format_shape(input._size)} to have {weight_sizes[0]} channels, but got "
            f"{input._size[1]} channels instead"
        )
    _check_bias(bias, weight_sizes[1] * groups, f"Given transposed=1, weight of size {shown}")


def _by(sizes: Sequence[int]) -> str:
    return " x ".join(str(n) for n in sizes)


def _check_bias(bias: TensorImpl | None, expected: int, head: str) -> None:
    if bias is not None and (len(bias._size) != 1 or bias._size[0] != expected):
        raise RuntimeError(
            f"{head}, expected bias to be 1-dimensional with {expected} elements, but got bias "
            f"of size {format_shape(bias._size)} instead"
        )


def output_sizes(input: TensorImpl, weight: TensorImpl, p: ConvParams) -> Ints:
    """The result's shape. Torch: calc_output_size / conv_output_size / conv_input_size."""
    n = input._size[0]
    spatial = zip(
        input._size[2:],
        weight._size[2:],
        p.stride,
        p.padding,
        p.dilation,
        p.output_padding,
        strict=True,
    )
    if p.transposed:
        sizes = tuple(
            (i - 1) * s - 2 * pad + d * (k - 1) + op + 1 for i, k, s, pad, d, op in spatial
        )
        return (n, weight._size[1] * p.groups, *sizes)
    sizes = tuple((i + 2 * pad - d * (k - 1) - 1) // s + 1 for i, k, s, pad, d, _ in spatial)
    return (n, weight._size[0], *sizes)


def select_backend(input: TensorImpl, p: ConvParams) -> ConvBackend:
    """Torch: _select_conv_backend for a CPU tensor (1-d viewed as 2-d), oneDNN left out."""
    if input._size[0] == 0 or input._size[1] == 0:
        return ConvBackend.EMPTY
    three_d = len(input._size) == 5
    if p.transposed:
        return ConvBackend.SLOW_TRANSPOSE_3D if three_d else ConvBackend.SLOW_TRANSPOSE_2D
    if p.is_dilated:
        return ConvBackend.SLOW_DILATED
    return ConvBackend.SLOW_3D if three_d else ConvBackend.SLOW_2D


def _multi_threaded() -> bool:
    # Differs: torch asks at::get_num_threads() > 1; its default is the core count, so this
    # holds on every multi-core machine.
    return (os.cpu_count() or 1) > 1


def uses_mkldnn(input: TensorImpl, weight: TensorImpl, p: ConvParams) -> bool:
    """Whether torch's CPU build would run oneDNN here (only its error texts and the 3-d
    result layout show it). Torch: ConvParams::use_mkldnn in Convolution.cpp, float32 part."""
    if input._dtype is not float32 or input._size[0] == 0 or input._size[1] == 0:
        return False
    if p.transposed and any(
        op >= s and op >= d for op, s, d in zip(p.output_padding, p.stride, p.dilation, strict=True)
    ):
        return False
    size = input._size if len(input._size) > 3 else (*input._size[:2], 1, input._size[2])
    wsize = weight._size if len(weight._size) > 3 else (*weight._size[:2], 1, weight._size[2])
    strided = any(s != 1 for s in p.stride)
    fast = strided or p.is_dilated or size[0] >= 16 or wsize[-1] != 1 or wsize[-2] != 1
    fast = fast or _multi_threaded()
    big = (
        p.groups > 1
        or (wsize[-1] > 3 and wsize[-2] > 3)
        or size[0] > 1
        or size[0] * size[1] * size[2] * size[3] > 20480
    )
    return fast and big


def check_mkldnn(
    input: TensorImpl, weight: TensorImpl, bias: TensorImpl | None, p: ConvParams
) -> None:
    """Torch: check_input_same_type_as_parameters(input, weight, bias, backend) in
    Convolution.cpp, as _select_conv_backend calls it for oneDNN, then oneDNN's own check of
    the dilation."""
    for name, other in (("weight", weight), ("bias", bias)):
        if other is not None and other._dtype is not input._dtype:
            raise RuntimeError(
                f"Input type ({_tensor_string(input)}) and {name} type "
                f"({_tensor_string(other)}) should be the same or input should be a MKLDNN "
                f"tensor and {name} is a dense tensor"
            )
    if any(d <= 0 for d in p.dilation):
        raise RuntimeError("non-positive dilation is not supported")


def check_kernel_types(input: TensorImpl, weight: TensorImpl, backend: ConvBackend) -> None:
    """Torch: the slow kernel's AT_DISPATCH, then its read of the weight as the input's
    scalar type ("expected scalar type Float but found Double")."""
    if backend is ConvBackend.EMPTY:
        return
    if input._dtype not in backend.dtypes:
        raise not_implemented(backend.kernel, input._dtype)
    if weight._dtype is not input._dtype:
        raise RuntimeError(
            f"expected scalar type {input._dtype.scalar_name} but found {weight._dtype.scalar_name}"
        )


def check_kernel_shapes(
    input: TensorImpl, weight: TensorImpl, p: ConvParams, backend: ConvBackend
) -> None:
    """The shape checks of the slow kernel, which run before its dtype dispatch.

    Torch: slow_conv2d_shape_check, slow_conv3d_shape_check, slow_conv_dilated_shape_check,
    slow_conv_transpose2d_shape_check and slow_conv_transpose3d_shape_check (a 1-d
    convolution is checked as 2-d with height 1).
    """
    kernel = weight._size[2:]
    if len(kernel) == 1:
        kernel = (1, *kernel)
    empty = any(k <= 0 for k in kernel)
    if backend in (ConvBackend.SLOW_2D, ConvBackend.SLOW_TRANSPOSE_2D) and empty:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
            f"kernel_width: {kernel[1]}"
        )
    if backend is ConvBackend.SLOW_3D and empty:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got: {_by(kernel)} (TxHxW)"
        )
    dilation = p.dilation if len(p.dilation) > 1 else (1, *p.dilation)
    if backend is ConvBackend.SLOW_DILATED and empty:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got {format_shape(kernel)}"
        )
    if backend is ConvBackend.SLOW_DILATED and any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"dilation should be greater than zero, but got {format_shape(dilation)}"
        )
    if backend is ConvBackend.SLOW_TRANSPOSE_3D and geometry.numel(weight._size) == 0:
        raise RuntimeError(
            "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
            f"kernel_width) tensor expected for weight, but got: {format_shape(weight._size)}"
        )
    if p.transposed and backend is not ConvBackend.EMPTY:
        _check_transposed(input, weight, p)


def _check_transposed(input: TensorImpl, weight: TensorImpl, p: ConvParams) -> None:
    """Torch: slow_conv_transpose2d_shape_check / slow_conv_transpose3d_shape_check (a 1-d
    convolution is checked as 2-d with height 1)."""
    names = ("depth", "height", "width") if len(input._size) == 5 else ("height", "width")
    pad2d = len(input._size) == 3

    def shown(values: Ints, fill: int) -> Ints:
        return ((fill, *values)) if pad2d else values

    di = shown(p.dilation, 1)
    if any(d <= 0 for d in di):
        shown_dilation = ", ".join(f"dilation_{n}: {v}" for n, v in zip(names, di, strict=True))
        raise RuntimeError(f"dilation should be greater than zero, but got {shown_dilation}")
    op = shown(p.output_padding, 0)
    st = shown(p.stride, 1)
    if any(o >= s and o >= d for o, s, d in zip(op, st, di, strict=True)):
        parts = (
            [f"output_padding_{n}: {v}" for n, v in zip(names, op, strict=True)]
            + [f"stride_{n}: {v}" for n, v in zip(names, st, strict=True)]
            + [f"dilation_{n}: {v}" for n, v in zip(names, di, strict=True)]
        )
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(parts)
        )
    out = output_sizes(input, weight, p)[2:]
    if any(n < 1 for n in out):
        raise RuntimeError(
            f"Given input size per channel: ({_by(shown(input._size[2:], 1))}). Calculated "
            f"output size per channel: ({_by(shown(out, 1))}). Output size is too small"
        )


def result_format(
    input: TensorImpl, weight: TensorImpl, backend: ConvBackend, mkldnn: bool
) -> memory_format:
    """Channels-last when the input or weight suggests it (2-d kernels, and oneDNN's 3-d).

    Torch: determine_backend_memory_format in Convolution.cpp (thnn_conv_use_channels_last,
    mkldnn_conv_use_channels_last).
    """
    if backend is ConvBackend.EMPTY:
        return contiguous_format
    rank = len(input._size)
    suggests = layout.suggests_channels_last
    if (rank == 4 or (rank == 5 and mkldnn)) and (
        suggests(input._size, input._stride) or suggests(weight._size, weight._stride)
    ):
        return channels_last if rank == 4 else channels_last_3d
    return contiguous_format


def wrap(
    like: TensorImpl, values: Array | None, size: Ints, dtype: DType, fmt: memory_format
) -> Any:
    """A new tensor of `size` and layout `fmt` holding `values` (computed row-major in the
    logical order), cast to `dtype`; metadata only where `like` has no data."""
    storage = like._storage
    backend = storage.backend
    if fmt is contiguous_format:
        stride = geometry.contiguous_strides(size)
    else:
        stride = layout.channels_last_strides(size)
    if values is None or backend is None:
        return tensor_over(None, size, stride, dtype, storage.device, None)
    xp = backend.xp
    values = cast_to(xp, values, dtype, backend)
    if fmt is not contiguous_format:
        order = (0, *range(2, len(size)), 1)
        values = xp.permute_dims(values, order)
    return tensor_over(values, size, stride, dtype, storage.device, backend)


def forward_geometry(input: TensorImpl, weight: TensorImpl, p: ConvParams) -> kernels.Geometry:
    """The window geometry of a (non-transposed) convolution of `input` by `weight`."""
    out = output_sizes(input, weight, p)[2:]
    padded = tuple(n + 2 * pad for n, pad in zip(input._size[2:], p.padding, strict=True))
    return kernels.Geometry(padded, out, weight._size[2:], p.stride, p.dilation)


def transposed_geometry(
    input: TensorImpl, weight: TensorImpl, p: ConvParams, out: Ints
) -> kernels.Geometry:
    """The geometry of the convolution whose input gradient a transposed convolution of
    `input` is: the kernel visits `input`'s positions inside the padded result `out`."""
    padded = tuple(n + 2 * pad for n, pad in zip(out, p.padding, strict=True))
    return kernels.Geometry(padded, input._size[2:], weight._size[2:], p.stride, p.dilation)
