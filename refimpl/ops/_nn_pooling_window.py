"""What every pooling kernel shares: window geometry, the window gather, the max with torch's
index rule, the scatter of gradients back into the input, and the result's layout.

Torch: aten/src/ATen/native/Pool.h (pooling_output_shape, pool2d_shape_check, ...),
AdaptivePooling.h (start_index / end_index), and the CPU kernels' loops
(native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp, AdaptiveMaxPoolKernel.cpp, ...). Those loop
over every output element and its window; here each spatial dim's windows are one small
index table (`Axis`), their outer product names every window element of every output
element at once (`Windows`), and one gather reads them all: pooling is then a reduction over
the window axis with `xp`, and its gradient a scatter-add (refimpl/ops/_scatter.py). No Python
loop runs over output elements. See Note [Pooling windows].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import BY_NAMESPACE, Array
from refimpl.core.tensor import TensorImpl, resize_for_output, tensor_over, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._outputs import warn_resize
from refimpl.ops._reduction import cast_to, check_out_dtype, input_array
from refimpl.ops._scatter import ScatterReduce, scatter_flat
from refimpl.ops.pointwise import suggest_memory_format

Shape = tuple[int, ...]

aten: Final = namespace("aten")

# Note [Pooling windows]
# A pooling op reads, for each output element, the input elements of one window per plane
# (a plane: one (batch, channel) pair's spatial dims). Along each spatial dim the windows are
# rows of an index table: output position o reads input positions idx[o, 0..k-1], of which
# those with valid[o, j] exist (the others are padding, or the unused tail of a shorter
# adaptive window). The tables of the spatial dims combine by broadcasting into `positions`
# (flat indices into the plane, shape (*out, *k)) and `valid`; one `xp.take` over the
# flattened planes then yields every window of every plane, (planes, *out, *k). The tables
# are small (out x k per dim), so building them is not a loop over output elements.

# The dtypes torch's floating kernels dispatch on (AT_DISPATCH_FLOATING_TYPES_AND2(Half,
# BFloat16)).
FLOATING: Final = frozenset({float16, bfloat16, float32, float64})


@dataclass(frozen=True, slots=True)
class Axis:
    """The windows along one spatial dim of length `size`: `index[o, j]` (int64) is the input
    position output position `o` reads at window offset `j`, where `valid[o, j]` (bool)."""

    size: int
    index: Array
    valid: Array
    regular: tuple[int, int, int] | None = None
    """(stride, pad, dilation) of evenly spaced windows (max and average pooling's)."""


def regular_axis(
    xp: Any, size: int, out: int, kernel: int, stride: int, pad: int, dilation: int
) -> Axis:
    """Windows of max and average pooling: output `o` starts at `o * stride - pad` and reads
    every `dilation`-th position. Torch: the index arithmetic of the CPU pooling loops."""
    starts = xp.reshape(xp.arange(out, dtype=xp.int64) * stride - pad, (out, 1))
    index = starts + xp.reshape(xp.arange(kernel, dtype=xp.int64) * dilation, (1, kernel))
    return Axis(size, index, (index >= 0) & (index < size), (stride, pad, dilation))


def adaptive_axis(xp: Any, size: int, out: int) -> Axis:
    """Windows of adaptive pooling: output `o` reads [floor(o * size / out),
    ceil((o + 1) * size / out)), padded to the longest window with invalid entries.

    Torch: start_index and end_index in aten/src/ATen/native/AdaptivePooling.h.
    """
    o = xp.arange(out, dtype=xp.int64)
    starts = xp.reshape((o * size) // out, (out, 1))
    ends = xp.reshape(-((-(o + 1) * size) // out), (out, 1))
    # The longest window: ceil(size / out) + 1 at most; the exact value keeps K small.
    longest = max((-((-(i + 1) * size) // out) - (i * size) // out for i in range(out)), default=0)
    index = starts + xp.reshape(xp.arange(longest, dtype=xp.int64), (1, longest))
    return Axis(size, index, index < ends)


@dataclass(frozen=True, slots=True)
class Windows:
    """Every window element of every output element of one plane: `positions` (int64, flat
    indices into the plane, always in range) and `valid` (bool), both of shape (*out, *k)."""

    positions: Array
    valid: Array
    out: Shape
    kernel: Shape
    plane: int
    sizes: Shape
    regular: tuple[tuple[int, int, int], ...] | None
    """Each dim's (stride, pad, dilation) where every dim's windows are evenly spaced."""


def windows(xp: Any, axes: Sequence[Axis]) -> Windows:
    """The outer product of the spatial dims' window tables (see Note [Pooling windows])."""
    rank = len(axes)
    out = tuple(a.index.shape[0] for a in axes)
    kernel = tuple(a.index.shape[1] for a in axes)
    plane = math.prod(a.size for a in axes)
    positions: Array = xp.zeros((1,) * (2 * rank), dtype=xp.int64)
    valid: Array = xp.ones((1,) * (2 * rank), dtype=xp.bool)
    step = plane
    for d, a in enumerate(axes):
        step //= max(a.size, 1)
        shape = [1] * (2 * rank)
        shape[d] = out[d]
        shape[rank + d] = kernel[d]
        index = xp.reshape(a.index, tuple(shape))
        positions = positions + xp.clip(index, 0, max(a.size - 1, 0)) * step
        valid = valid & xp.reshape(a.valid, tuple(shape))
    full = out + kernel
    steps = tuple(a.regular for a in axes)
    regular = None if any(step is None for step in steps) else steps
    return Windows(
        xp.broadcast_to(positions, full),
        xp.broadcast_to(valid, full),
        out,
        kernel,
        plane,
        tuple(a.size for a in axes),
        regular,  # type: ignore[arg-type]  # no None left
    )


def gather(xp: Any, planes: Array, w: Windows) -> Array:
    """Every window of every plane: `planes` (P, plane) read at `w.positions`, shape
    (P, *out, K) with K the window's element count (invalid entries hold arbitrary values).

    Evenly spaced windows on a backend with strided views are a view of the zero-padded
    planes (`_strided_windows`); otherwise one `take` reads them.
    """
    count = math.prod(w.kernel)
    backend = BY_NAMESPACE.get(id(xp))
    if w.regular is not None and backend is not None and backend.supports_strided_views:
        return _strided_windows(xp, backend, planes, w, w.regular)
    flat = xp.reshape(w.positions, (-1,))
    taken = xp.take(planes, flat, axis=1)
    return xp.reshape(taken, (planes.shape[0], *w.out, count))


def _strided_windows(
    xp: Any, backend: Any, planes: Array, w: Windows, regular: tuple[tuple[int, int, int], ...]
) -> Array:
    """`gather` as a strided view: the planes padded with zeros on each side (enough for the
    last window, ceil_mode's included), then viewed as (P, *out, *k) with the window steps
    (stride, dilation) as strides: the windows of the CPU loops' index arithmetic, with the
    padding masked out by `valid` afterwards."""
    count = planes.shape[0]
    grid = xp.reshape(planes, (count, *w.sizes))
    for d, ((step, pad, dilation), length, out, kernel) in enumerate(
        zip(regular, w.sizes, w.out, w.kernel, strict=True)
    ):
        after = max(0, (out - 1) * step - pad + (kernel - 1) * dilation + 1 - length)
        parts = []
        for width in (pad, after):
            shape = list(grid.shape)
            shape[1 + d] = width
            parts.append(xp.zeros(tuple(shape), dtype=grid.dtype))
        grid = xp.concat((parts[0], grid, parts[1]), axis=1 + d)
    strides = geometry.contiguous_strides(tuple(grid.shape))
    view_size = (count, *w.out, *w.kernel)
    view_stride = (
        strides[0],
        *(strides[1 + d] * r[0] for d, r in enumerate(regular)),
        *(strides[1 + d] * r[2] for d, r in enumerate(regular)),
    )
    view = backend.as_strided(xp.reshape(grid, (-1,)), view_size, view_stride, 0)
    return xp.reshape(view, (count, *w.out, math.prod(w.kernel)))


def flat_valid(xp: Any, w: Windows) -> Array:
    """`w.valid` as (*out, K), matching `gather`'s window axis."""
    return xp.reshape(w.valid, (*w.out, math.prod(w.kernel)))


def window_max(xp: Any, values: Array, w: Windows) -> tuple[Array, Array]:
    """The max of each window and its flat index in the plane, as torch's loops pick them
    (see `max_choice`), for windows shared by every plane."""
    result, chosen = max_choice(xp, values, flat_valid(xp, w))
    count = values.shape[-1]
    outs = math.prod(w.out)
    row = xp.reshape(xp.arange(outs, dtype=xp.int64), w.out) * count
    positions = xp.reshape(w.positions, (-1,))
    index = xp.take(positions, xp.reshape(row + chosen, (-1,)))
    return result, xp.reshape(index, chosen.shape)


def max_choice(xp: Any, values: Array, valid: Array) -> tuple[Array, Array]:
    """The max over the last axis of `values` where `valid`, and the offset torch picks.

    Torch: the inner loop of cpu_max_pool (MaxPoolKernel.cpp) and of the adaptive and
    fractional kernels: `if ((val > maxval) || std::isnan(val))` from maxval = -inf (lowest
    for integers) and the index of the window's first element: a NaN wins and the last NaN's
    offset is kept; otherwise the first maximal element's.
    """
    count = values.shape[-1]
    offsets = xp.arange(count, dtype=xp.int64)
    is_float = xp.isdtype(values.dtype, "real floating")
    lowest = -math.inf if is_float else xp.iinfo(values.dtype).min
    masked = xp.where(valid, values, xp.asarray(lowest, dtype=values.dtype))
    best = xp.max(masked, axis=-1, keepdims=True)
    chosen = xp.min(xp.where((masked == best) & valid, offsets, count), axis=-1)
    result = xp.squeeze(best, axis=-1)
    if is_float:
        nan = xp.isnan(values) & valid
        last_nan = xp.max(xp.where(nan, offsets, -1), axis=-1)
        chosen = xp.where(last_nan >= 0, last_nan, chosen)
        result = xp.where(last_nan >= 0, xp.asarray(math.nan, dtype=values.dtype), result)
    return result, xp.clip(chosen, 0, max(count - 1, 0))


def scatter_planes(
    xp: Any, planes: int, plane: int, index: Array, values: Array, dtype: Any
) -> Array:
    """(planes, plane) zeros with `values` added at the flat plane positions `index` (both
    of shape (planes, ...)). Torch: the backward loops' `grad_input[index] += grad`."""
    count = planes * plane
    base = xp.reshape(
        xp.arange(planes, dtype=xp.int64) * plane, (planes,) + (1,) * (index.ndim - 1)
    )
    positions = xp.reshape(index + base, (-1,))
    target = xp.zeros((count,), dtype=dtype)
    summed = scatter_flat(xp, target, positions, xp.reshape(values, (-1,)), ScatterReduce.SUM)
    return xp.reshape(summed, (planes, plane))


# --- arguments and shapes ----------------------------------------------------------------------


def output_size(
    size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool
) -> int:
    """The pooled length of one dim. Torch: pooling_output_shape in Pool.h (its checks, then
    pooling_output_shape_pad_lr: the last window must start inside the input or left pad)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={kernel} and dilation={dilation}"
        )
    extra = stride - 1 if ceil_mode else 0
    result = (size + 2 * pad - dilation * (kernel - 1) - 1 + extra) // stride + 1
    if ceil_mode and (result - 1) * stride >= size + pad:
        result -= 1
    return result


def spatial(self: TensorImpl, rank: int) -> tuple[int, Shape]:
    """(number of planes, spatial sizes) of `self`, whose last `rank` dims are spatial."""
    size = self._size
    return math.prod(size[: len(size) - rank]), tuple(size[len(size) - rank :])


def planes_array(self: TensorImpl, rank: int, dtype: DType) -> Array:
    """`self`'s values in `dtype` as (planes, plane): one row per (batch, channel)."""
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # called with data only
    planes, sizes = spatial(self, rank)
    return xp.reshape(input_array(self, dtype), (planes, math.prod(sizes)))


def check_dim_size(t: TensorImpl, ndim: int, dim: int, size: int) -> None:
    """Torch: check_dim_size in aten/src/ATen/TensorUtils.cpp."""
    if len(t._size) != ndim or t._size[dim] != size:
        raise RuntimeError(
            f"Expected a tensor of dimension {ndim} and tensor.size[{dim}] == {size} but got: "
            f"dimension {len(t._size)} and tensor.size[{dim}] = "
            f"{t._size[dim] if dim < len(t._size) else 0}"
        )


# --- results -----------------------------------------------------------------------------------


def result_strides(shape: Shape, channels_last: bool) -> Shape:
    """Contiguous, or channels-last (NHWC / NDHWC) strides."""
    return (
        layout.channels_last_strides(shape) if channels_last else geometry.contiguous_strides(shape)
    )


def prepare_out(out: TensorImpl | None, shape: Shape, dtype: DType, channels_last: bool) -> None:
    """Check `out`'s dtype and resize it (to the memory format torch's structured kernel
    asks for). Torch: the generated structured out= wrapper (resize_out)."""
    if out is None:
        return
    check_out_dtype(out, dtype)
    if out._size != shape:
        warn_resize(out, shape)
        resize_for_output(out, shape, result_strides(shape, channels_last))


def wants_channels_last(self: TensorImpl) -> bool:
    """Torch: self.suggest_memory_format() is ChannelsLast (4-d) or ChannelsLast3d (5-d)."""
    return layout.suggests_channels_last(self._size, self._stride)


def result(
    self: TensorImpl,
    values: Array | None,
    shape: Shape,
    dtype: DType,
    channels_last: bool,
    out: TensorImpl | None,
) -> Any:
    """The op's result: `values` (logical order, None for meta) cast to `dtype`, in a new
    tensor of the given layout on `self`'s device, or written into `out`."""
    storage = self._storage
    backend = storage.backend
    if out is not None:
        if values is not None and out._storage.backend is not None:
            xp = out._storage.backend.xp
            write_array(out, xp.reshape(cast_to(xp, values, dtype, out._storage.backend), shape))
        return out
    stride = result_strides(shape, channels_last)
    if values is None or backend is None:
        return tensor_over(None, shape, stride, dtype, storage.device, None)
    xp = backend.xp
    values = xp.reshape(cast_to(xp, values, dtype, backend), shape)
    if channels_last:
        values = xp.permute_dims(values, (0, *range(2, len(shape)), 1))
    return tensor_over(values, shape, stride, dtype, storage.device, backend)


def zeros(self: TensorImpl, shape: Shape, dtype: DType) -> Array:
    """Zeros of `shape` in `dtype` on `self`'s backend (the values of an empty result)."""
    backend = self._storage.backend
    return backend.xp.zeros(shape, dtype=backend.array_dtypes[dtype])  # type: ignore[union-attr]  # called with data only


def compute_dtype(dtype: DType) -> DType:
    """The dtype an average is accumulated in: float32 for float16 and bfloat16 (torch's
    opmath_t), the dtype itself otherwise."""
    return float32 if dtype in (float16, bfloat16) else dtype


# --- derivative helpers ------------------------------------------------------------------------


def max_pool_double_backward(grad: Tensor, indices: Tensor, dim: int) -> Tensor:
    """The gradient's values at the pooled positions: `grad` (shaped like the input) read
    at `indices` plane by plane.

    Torch: max_pool_double_backward in FunctionsManual.cpp (the grad_output formula of the
    max pooling backward ops, max_unpool's self formula).
    """
    if geometry.numel(indices._size) != 0:
        size = [*indices._size[: len(indices._size) - dim], -1]
        indices_view = aten.view.default(indices, size)
        fmt = suggest_memory_format(indices)
        flat = aten.view.default(aten.contiguous.default(grad, memory_format=fmt), size)
        gathered = aten.gather.default(flat, -1, indices_view)
        return aten.view.default(gathered, list(indices._size))
    return aten.empty_like.default(indices, dtype=grad._dtype)
