"""The shuffles as aten ops: pixel_shuffle, pixel_unshuffle, channel_shuffle (with their out=
forms and derivatives) and native_channel_shuffle.

Torch: aten/src/ATen/native/PixelShuffle.cpp (check_pixel_shuffle_shapes,
check_pixel_unshuffle_shapes, pixel_shuffle_cpu, pixel_unshuffle_cpu), ChanelShuffle.cpp
(channel_shuffle_cpu, math_channel_shuffle) and their kernels in native/cpu/
PixelShuffleKernel.cpp and ChannelShuffleKernel.cpp: every dtype, the result in the input's
suggested memory format (channels-last stays channels-last). derivatives.yaml: pixel_shuffle's
self gets pixel_unshuffle(grad, upscale_factor) and the reverse; channel_shuffle's self gets
channel_shuffle(grad, grad.size(1) / groups).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.memory_format import contiguous_format, memory_format
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._reduction import has_data, implements, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.pointwise import suggest_memory_format
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
Shape = tuple[int, ...]


def _result(self: TensorImpl, value: Any, size: Shape, meta_format: bool = False) -> Any:
    """A new tensor of `size` holding `value` (its logical values; None for meta), laid out
    in `self`'s suggested memory format. Torch: `output.resize_(sizes, memory_format)`; on
    the meta device, torch's meta functions keep that format only where `meta_format` says
    so (pixel_unshuffle's), the others return contiguous results."""
    keeps_format = meta_format or has_data(self)
    channels_last = keeps_format and suggest_memory_format(self) is not contiguous_format
    stride = (
        layout.channels_last_strides(size) if channels_last else geometry.contiguous_strides(size)
    )
    storage = self._storage
    if value is None or storage.backend is None:
        return tensor_over(None, size, stride, self._dtype, storage.device, None)
    xp = storage.backend.xp
    value = xp.reshape(value, size)
    if channels_last:
        # Memory holds the channels last: (N, H, W, C) or (N, D, H, W, C).
        value = xp.permute_dims(value, (0, *range(2, len(size)), 1))
    return tensor_over(value, size, stride, self._dtype, storage.device, storage.backend)


# --- pixel_shuffle, pixel_unshuffle ------------------------------------------------------------

pixel_shuffle = defop("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor")
pixel_unshuffle = defop("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor")


def _check_rank(self: TensorImpl, op: str) -> None:
    if len(self._size) < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with "
            f"{len(self._size)} dimension(s)"
        )


def _pixel_shuffle(self: TensorImpl, upscale_factor: int) -> Any:
    """(*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h, w].

    Torch: check_pixel_shuffle_shapes and pixel_shuffle_cpu in PixelShuffle.cpp.
    """
    _check_rank(self, "pixel_shuffle")
    if upscale_factor <= 0:
        raise RuntimeError(
            f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}"
        )
    r = upscale_factor
    *batch, c, h, w = self._size
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    size = (*batch, c // (r * r), h * r, w * r)
    if not has_data(self):
        return _result(self, None, size)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    n = geometry.numel(tuple(batch))
    a = xp.reshape(array_of(self), (n, c // (r * r), r, r, h, w))
    a = xp.permute_dims(a, (0, 1, 4, 2, 5, 3))
    return _result(self, a, size)


def _pixel_unshuffle(self: TensorImpl, downscale_factor: int) -> Any:
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle.

    Torch: check_pixel_unshuffle_shapes and pixel_unshuffle_cpu in PixelShuffle.cpp.
    """
    _check_rank(self, "pixel_unshuffle")
    if downscale_factor <= 0:
        raise RuntimeError(
            f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}"
        )
    r = downscale_factor
    *batch, c, h, w = self._size
    if h % r != 0:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r != 0:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    size = (*batch, c * r * r, h // r, w // r)
    if not has_data(self):
        return _result(self, None, size, meta_format=True)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    n = geometry.numel(tuple(batch))
    a = xp.reshape(array_of(self), (n, c, h // r, r, w // r, r))
    a = xp.permute_dims(a, (0, 1, 3, 5, 2, 4))
    return _result(self, a, size)


@registered(pixel_shuffle)
def pixel_shuffle_kernel(self: TensorImpl, upscale_factor: int) -> Any:
    """Torch: pixel_shuffle (pixel_shuffle_cpu; every dtype)."""
    return _pixel_shuffle(self, upscale_factor)


@pixel_shuffle.derivative("self")
def pixel_shuffle_backward_self(grad: Tensor, upscale_factor: int) -> Tensor:
    # torch: pixel_unshuffle(grad, upscale_factor)
    return aten.pixel_unshuffle.default(grad, upscale_factor)


@registered(pixel_unshuffle)
def pixel_unshuffle_kernel(self: TensorImpl, downscale_factor: int) -> Any:
    """Torch: pixel_unshuffle (pixel_unshuffle_cpu; every dtype)."""
    return _pixel_unshuffle(self, downscale_factor)


@pixel_unshuffle.derivative("self")
def pixel_unshuffle_backward_self(grad: Tensor, downscale_factor: int) -> Tensor:
    # torch: pixel_shuffle(grad, downscale_factor)
    return aten.pixel_shuffle.default(grad, downscale_factor)


pixel_shuffle_out = defop(
    "pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out) -> Tensor(a!)"
)
pixel_unshuffle_out = defop(
    "pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(pixel_shuffle_out)
def pixel_shuffle_out_kernel(self: TensorImpl, upscale_factor: int, *, out: TensorImpl) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    return same_as_out(_pixel_shuffle(self, upscale_factor), out)


@registered(pixel_unshuffle_out)
def pixel_unshuffle_out_kernel(self: TensorImpl, downscale_factor: int, *, out: TensorImpl) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    return same_as_out(_pixel_unshuffle(self, downscale_factor), out)


# --- channel_shuffle, native_channel_shuffle ---------------------------------------------------

channel_shuffle = defop("channel_shuffle(Tensor self, SymInt groups) -> Tensor")


def _check_channel_shuffle(self: TensorImpl, groups: int) -> None:
    """Torch: the checks of channel_shuffle and native_channel_shuffle in ChanelShuffle.cpp."""
    if len(self._size) <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"[{', '.join(map(str, self._size))}]"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if self._size[1] % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {self._size[1]} channels "
            f"and {groups} groups."
        )


def _channel_shuffle(self: TensorImpl, groups: int) -> Any:
    """(N, g k, *) -> (N, k g, *): channel i k + j moves to j g + i.

    Torch: channel_shuffle_cpu (ChanelShuffle.cpp, ChannelShuffleKernel.cpp; every dtype).
    """
    _check_channel_shuffle(self, groups)
    size = self._size
    if not has_data(self):
        return _result(self, None, size)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    n, c = size[0], size[1]
    rest = geometry.numel(size[2:])
    a = xp.reshape(array_of(self), (n, groups, c // groups, rest))
    a = xp.permute_dims(a, (0, 2, 1, 3))
    return _result(self, a, size)


@registered(channel_shuffle)
def channel_shuffle_kernel(self: TensorImpl, groups: int) -> Any:
    """Torch: channel_shuffle (channel_shuffle_cpu)."""
    return _channel_shuffle(self, groups)


@channel_shuffle.derivative("self")
def channel_shuffle_backward_self(grad: Tensor, groups: int) -> Tensor:
    # torch: channel_shuffle_symint(grad, grad.sym_size(1) / groups)
    return aten.channel_shuffle.default(grad, grad._size[1] // groups)


channel_shuffle_out = defop(
    "channel_shuffle.out(Tensor self, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(channel_shuffle_out)
def channel_shuffle_out_kernel(self: TensorImpl, groups: int, *, out: TensorImpl) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    return same_as_out(_channel_shuffle(self, groups), out)


native_channel_shuffle = defop("native_channel_shuffle(Tensor self, SymInt groups) -> Tensor")


@native_channel_shuffle.decomposition
def native_channel_shuffle_decomposition(self: TensorImpl, groups: int) -> Any:
    """Torch: math_channel_shuffle in ChanelShuffle.cpp (its CompositeImplicitAutograd
    kernel): a view as (N, groups, C / groups, -1), the two group dims swapped, made
    contiguous, reshaped back, then made contiguous in the input's suggested format."""
    _check_channel_shuffle(self, groups)
    b, c = self._size[0], self._size[1]
    reshaped = aten.view.default(self, [b, groups, c // groups, -1])
    permuted = aten.permute.default(reshaped, [0, 2, 1, 3])
    output = aten.reshape.default(aten.contiguous.default(permuted), list(self._size))
    fmt: memory_format = suggest_memory_format(self)
    return aten.contiguous.default(output, memory_format=fmt)


@implements(native_channel_shuffle)
def native_channel_shuffle_kernel(self: TensorImpl, groups: int) -> Any:
    """Torch: channel_shuffle_cpu, native_channel_shuffle's CPU kernel besides its composite
    (spec: cia_and_cpu): on CPU a dispatch mode sees native_channel_shuffle itself, and it
    has no derivative. The same permutation as the composite, as one op."""
    return native_channel_shuffle_decomposition(self, groups)
