"""The argument checks of max and average pooling: their int-list arguments, output sizes and
torch's shape checks, with torch's messages.

Torch: the structured meta functions of DilatedMaxPool2d.cpp, DilatedMaxPool3d.cpp,
AveragePool2d.cpp and AveragePool3d.cpp, and pool2d_shape_check / pool3d_shape_check /
pooling_output_shape in aten/src/ATen/native/Pool.h.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.ops._nn_pooling_window import output_size, wants_channels_last

Shape = tuple[int, ...]

_COUNT: Final[dict[int, str]] = {1: "one", 2: "two", 3: "three"}

# How each op's message says what an argument may be (torch's texts differ between ops).
_MAX_PHRASES: Final[dict[str, str]] = {
    "kernel_size": "must either be a single int",
    "stride": "must either be omitted, a single int",
    "padding": "must either be a single int",
    "dilation": "must be either a single int",
}
_AVG3D_PHRASES: Final[dict[str, str]] = {
    "kernel_size": "must be a single int",
    "stride": "must be omitted, a single int",
    "padding": "must be a single int",
}
PHRASES: Final[dict[str, dict[str, str]]] = {
    "max_pool2d": _MAX_PHRASES,
    "max_pool3d": _MAX_PHRASES,
    "avg_pool2d": _MAX_PHRASES,
    "avg_pool3d": _AVG3D_PHRASES,
}


def unpack(op: str, name: str, values: Sequence[int], rank: int) -> Shape:
    """An int-list argument of length 1 or `rank` expanded to `rank` ints (`stride` may also
    be empty: then it is None's stand-in, and the caller uses the kernel size).

    Torch: the TORCH_CHECKs of the meta functions ("max_pool2d: kernel_size must either be a
    single int, or a tuple of two ints").
    """
    allowed = (0, 1, rank) if name == "stride" else (1, rank)
    if len(values) not in allowed:
        raise RuntimeError(f"{op}: {name} {PHRASES[op][name]}, or a tuple of {_COUNT[rank]} ints")
    if len(values) == 0:
        return ()
    return tuple(values) if len(values) == rank else (values[0],) * rank


@dataclass(frozen=True, slots=True)
class PoolShape:
    """One pooling call's geometry: the spatial kernel, stride, padding and dilation, the
    input's plane count (channels), spatial sizes and the output's spatial sizes."""

    kernel: Shape
    stride: Shape
    padding: Shape
    dilation: Shape
    channels: int
    sizes: Shape
    out: Shape
    channels_last: bool

    def result_shape(self, self_: TensorImpl) -> Shape:
        """The output's full shape: the input's leading dims, then `out`."""
        rank = len(self.out)
        return tuple(self_._size[: len(self_._size) - rank]) + self.out


# The function name pool3d_shape_check's messages start with.
_FN_NAMES: Final[dict[str, str]] = {
    "max_pool3d": "max_pool3d_with_indices_out_cpu_template()",
    "avg_pool3d": "avg_pool3d()",
}


def pool_shape(
    op: str,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int] | None,
    ceil_mode: bool,
    *,
    divisor_override: int | None = None,
) -> PoolShape:
    """Unpack and check a max or average pooling call's arguments and compute its output.

    Torch: TORCH_META_FUNC(max_pool2d_with_indices) / max_pool3d_with_indices_out_cpu_template
    / TORCH_META_FUNC(avg_pool2d) / TORCH_META_FUNC(avg_pool3d): the unpacking, the input's
    rank, pooling_output_shape per dim, then pool2d_shape_check / pool3d_shape_check.
    """
    rank = 2 if op.endswith("2d") else 3
    kernel = unpack(op, "kernel_size", kernel_size, rank)
    strides = unpack(op, "stride", stride, rank) or kernel
    pads = unpack(op, "padding", padding, rank)
    dilations = unpack(op, "dilation", dilation, rank) if dilation is not None else (1,) * rank
    ndim = len(self._size)
    if rank == 2 and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    channels_last = wants_channels_last(self) if ndim == rank + 2 else False
    if op == "max_pool2d" and ndim not in (3, 4):
        if channels_last:
            raise RuntimeError(
                "non-empty 4D (batch mode) tensor expected for input with channels_last layout"
            )
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if rank == 3 and ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if rank == 3 and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    # torch: avg_pool2d reads input.size(-3) with no rank check first.
    geometry.wrap_dim(-rank - 1, ndim)
    channels = self._size[-rank - 1]
    sizes = tuple(self._size[-rank:])
    out = tuple(
        output_size(n, k, p, s, d, ceil_mode)
        for n, k, p, s, d in zip(sizes, kernel, pads, strides, dilations, strict=True)
    )
    shape = PoolShape(kernel, strides, pads, dilations, channels, sizes, out, channels_last)
    if rank == 2:
        _check_2d(self, shape)
    else:
        fn_name = _FN_NAMES[op]
        check_3d(self, shape, fn_name, check_input_size=op == "avg_pool3d")
    return shape


def _check_2d(self: TensorImpl, s: PoolShape) -> None:
    """Torch: pool2d_shape_check in Pool.h."""
    (k_h, k_w), (d_h, d_w), (p_h, p_w) = s.kernel, s.stride, s.padding
    (dil_h, dil_w), (o_h, o_w) = s.dilation, s.out
    size = self._size
    ndim = len(size)
    if not (k_w > 0 and k_h > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k_h} kW: {k_w}")
    if not (d_w > 0 and d_h > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {d_h} dW: {d_w}")
    if not (dil_h > 0 and dil_w > 0):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dil_h} dilationW: {dil_w}"
        )
    valid_dims = size[-3] != 0 and size[-2] != 0 if ndim >= 3 else False
    shown = "[" + ", ".join(str(n) for n in size) + "]"
    if s.channels_last:
        if not (ndim == 4 and valid_dims and size[3] != 0):
            raise RuntimeError(
                "Expected 4D (batch mode) tensor expected for input with channels_last layout"
                f" with optional 0 dim batch size for input, but got: {shown}"
            )
    elif not (
        (ndim == 3 and size[0] != 0 and size[1] != 0 and size[2] != 0)
        or (ndim == 4 and size[1] != 0 and size[2] != 0 and size[3] != 0)
    ):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{shown}"
        )
    if not (k_w // 2 >= p_w and k_h // 2 >= p_h):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {p_w}, padH = {p_h}, kW = {k_w}, kH = {k_h}"
        )
    if not (o_w >= 1 and o_h >= 1):
        raise RuntimeError(
            f"Given input size: ({s.channels}x{s.sizes[0]}x{s.sizes[1]}). "
            f"Calculated output size: ({s.channels}x{o_h}x{o_w}). Output size is too small"
        )


def check_3d(self: TensorImpl, s: PoolShape, fn_name: str, check_input_size: bool) -> None:
    """Torch: pool3d_shape_check in Pool.h."""
    (k_t, k_h, k_w), (d_t, d_h, d_w), (p_t, p_h, p_w) = s.kernel, s.stride, s.padding
    (dil_t, dil_h, dil_w), (o_t, o_h, o_w) = s.dilation, s.out
    i_t, i_h, i_w = s.sizes
    size = self._size
    ndim = len(size)
    if not (k_t > 0 and k_w > 0 and k_h > 0):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kT: {k_t} kH: {k_h} kW: {k_w}"
        )
    if not (d_t > 0 and d_w > 0 and d_h > 0):
        raise RuntimeError(
            f"stride should be greater than zero, but got dT: {d_t} dH: {d_h} dW: {d_w}"
        )
    if not (dil_t > 0 and dil_w > 0 and dil_h > 0):
        raise RuntimeError(
            "dilation should be greater than zero, but got dilationT: "
            f"{dil_t} dilationH: {dil_h} dilationW: {dil_w}"
        )
    shown = "[" + ", ".join(str(n) for n in size) + "]"
    for i in range(ndim):
        if ndim == 5 and i == 0:
            continue
        if size[i] <= 0:
            # torch prints the dim's length where it means to print the dim.
            raise RuntimeError(
                f"{fn_name}: Expected input's non-batch dimensions to have positive length, "
                f"but input has a shape of {shown} and non-batch dimension {size[i]} has "
                "length zero!"
            )
    if check_input_size and not (i_t >= k_t and i_h >= k_h and i_w >= k_w):
        raise RuntimeError(
            f"input image (T: {i_t} H: {i_h} W: {i_w}) smaller than kernel size "
            f"(kT: {k_t} kH: {k_h} kW: {k_w})"
        )
    if not (k_t / 2 >= p_t and k_w / 2 >= p_w and k_h / 2 >= p_h):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"kT: {k_t} kW: {k_w} kH: {k_h} padT: {p_t} padW: {p_w} padH: {p_h}"
        )
    if not (o_t >= 1 and o_w >= 1 and o_h >= 1):
        raise RuntimeError(
            f"Given input size: ({s.channels}x{i_t}x{i_h}x{i_w}). "
            f"Calculated output size: ({s.channels}x{o_t}x{o_h}x{o_w}). "
            "Output size is too small"
        )
