"""The array computations of convolution: forward, transposed (the input gradient), the
weight gradient, and im2col/col2im, as sums over kernel offsets of matrix products.

Torch: the CPU kernels behind at::_convolution (slow_conv2d, slow_conv3d,
slow_conv_dilated2d/3d, slow_conv_transpose2d/3d in aten/src/ATen/native/*Conv*.cpp), which
unfold the input into columns (im2col / vol2col) and call one GEMM. refimpl computes the same
sums with the Array API's `matmul` and basic slicing only, so one body serves every backend
(array_api_strict has no strided views). See Note [Convolution as shifted products].
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from refimpl.core.backend import Array, ArrayNamespace

Ints = tuple[int, ...]

# About 512 KiB of float32: the input columns one block of products reads (see forward).
_CACHE_ELEMENTS = 1 << 17
Rounding = Callable[[Array], Array] | None
"""Where the result is float16/bfloat16: the float32 values rounded to it and back. torch's
CPU col2im (the transposed convolution's scatter) adds each column into the output in the
output's dtype, so each partial sum is rounded; None for the other dtypes."""

# Note [Convolution as shifted products]
# A convolution sums, over the kernel offsets k (prod(kernel) of them), the product of the
# weight's slice w[..., k] (out_channels x in_channels, per group) with the input read at
# offset k: y = sum_k w_k @ x_k. The input gradient scatters the transposed products back,
# dx_k += w_k^T @ dy, and the weight gradient is dw_k = dy @ x_k^T. No loop runs over pixels:
# the loop is over kernel offsets (9 for a 3x3 kernel), each step one batched GEMM.
#
# How x_k is read depends on the stride:
# - stride 1 everywhere (the common case): the padded input is laid out channel-major,
#   (C, N * L) with L the padded image's size, every image's spatial dims flattened, one
#   zero image appended. The output is computed on that grid (every position of every
#   padded image), where x_k is the contiguous range flat[:, off_k : off_k + N * L], off_k
#   the flat offset of kernel position k: one (O, C) @ (C, N * L) GEMM per offset, with no
#   copy of the input per offset. The positions with no output (the last rows and columns of
#   each padded image, whose windows run into the next image) are computed and dropped: for
#   3x3 on 32x32, (34 * 34) / (32 * 32) of the work. The forward runs the products per
#   block of images, so that a block's columns and partial sums stay in cache while the
#   offsets' products are summed.
# - otherwise: x_k is the strided slice pad[..., k*d : k*d + s*(o-1) + 1 : s] of the padded
#   input (a copy of one output's worth per offset, the columns of torch's im2col), and the
#   products are batched over the images.


@dataclass(frozen=True, slots=True)
class Geometry:
    """The spatial geometry of one convolution: the input's padded sizes and the output's.

    `padded` are the input's spatial sizes with padding (forward) or the transposed
    output's padded sizes; `out` the sizes the kernel visits (forward output, transposed
    input); `kernel`, `stride`, `dilation` as in torch's ConvParams.
    """

    padded: Ints
    out: Ints
    kernel: Ints
    stride: Ints
    dilation: Ints

    @property
    def flat(self) -> bool:
        """Whether the stride-1 flat layout applies (Note [Convolution as shifted products])."""
        return all(s == 1 for s in self.stride)

    @property
    def offsets(self) -> list[Ints]:
        """Every kernel position, in row-major order (torch's column order in im2col)."""
        return list(itertools.product(*(range(k) for k in self.kernel)))

    @property
    def size(self) -> int:
        """L: the number of positions of one padded image."""
        return math.prod(self.padded)

    def flat_offset(self, k: Ints) -> int:
        """The flat offset of kernel position `k` on the padded grid."""
        offset = 0
        for pos, d, n in zip(k, self.dilation, self.padded, strict=True):
            offset = offset * n + pos * d
        return offset

    def window(self, k: Ints) -> tuple[slice, ...]:
        """The strided slice of the padded input that kernel position `k` reads."""
        return tuple(
            slice(pos * d, pos * d + s * (o - 1) + 1, s)
            for pos, d, s, o in zip(k, self.dilation, self.stride, self.out, strict=True)
        )


def _add(acc: Array, term: Array, rounding: Rounding) -> Array:
    # One partial sum of a scatter, rounded as torch's col2im stores it.
    if rounding is None:
        return acc + term
    return rounding(acc + rounding(term))


def pad(xp: ArrayNamespace, a: Array, low: Sequence[int], high: Sequence[int]) -> Array:
    """`a` (batch, channel, *spatial) with zeros added before and after each spatial dim."""
    if not any(low) and not any(high):
        return a
    spatial = a.shape[2:]
    shape = (*a.shape[:2], *(n + lo + hi for n, lo, hi in zip(spatial, low, high, strict=True)))
    result = xp.zeros(shape, dtype=a.dtype, device=a.device)
    inner = tuple(slice(lo, lo + n) for lo, n in zip(low, spatial, strict=True))
    result[(slice(None), slice(None), *inner)] = a
    return result


def crop(a: Array, low: Sequence[int], sizes: Sequence[int]) -> Array:
    """The spatial region [low, low + sizes) of `a` (batch, channel, *spatial)."""
    inner = tuple(slice(lo, lo + n) for lo, n in zip(low, sizes, strict=True))
    return a[(slice(None), slice(None), *inner)]


def _grouped(xp: ArrayNamespace, a: Array, groups: int) -> Array:
    # (N, C, ...) -> (N, G, C/G, ...)
    n, c = a.shape[:2]
    return xp.reshape(a, (n, groups, c // groups, *a.shape[2:]))


def _weights_by_offset(xp: ArrayNamespace, w: Array, groups: int) -> list[Array]:
    """(O, C/G, *k) as one (G, O/G, C/G) matrix per kernel position (row-major order), each
    contiguous: a strided matrix is not one BLAS takes, and NumPy would multiply it slowly."""
    o, cg = w.shape[:2]
    positions = math.prod(w.shape[2:])
    by_offset = xp.permute_dims(xp.reshape(w, (groups, o // groups, cg, positions)), (3, 0, 1, 2))
    dense = xp.reshape(xp.reshape(by_offset, (-1,)), (positions, groups, o // groups, cg))
    return [dense[i, ...] for i in range(positions)]


def _channel_major(xp: ArrayNamespace, x: Array, padding: Ints, groups: int) -> Array:
    """`x` (N, C, *spatial) padded into the flat layout: (G, C/G, (N + 1) * L), images
    flattened one after the other, then one zero image (which every range may run into)."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    padded = tuple(size + 2 * p for size, p in zip(spatial, padding, strict=True))
    buffer = xp.zeros((c, n + 1, *padded), dtype=x.dtype, device=x.device)
    inner = tuple(slice(p, p + size) for p, size in zip(padding, spatial, strict=True))
    buffer[(slice(None), slice(0, n), *inner)] = xp.permute_dims(x, (1, 0, *range(2, x.ndim)))
    return xp.reshape(buffer, (groups, c // groups, -1))


def _to_grid(xp: ArrayNamespace, dense: Array, geometry: Geometry, groups: int) -> Array:
    """(N, O, *out) placed on the flat layout's grid: (G, O/G, N * L), zeros elsewhere."""
    n, o = dense.shape[:2]
    grid = xp.zeros((o, n, *geometry.padded), dtype=dense.dtype, device=dense.device)
    inner = tuple(slice(0, size) for size in geometry.out)
    grid[(slice(None), slice(None), *inner)] = xp.permute_dims(dense, (1, 0, *range(2, dense.ndim)))
    return xp.reshape(grid, (groups, o // groups, n * geometry.size))


def _from_grid(xp: ArrayNamespace, grid: Array, n: int, sizes: Ints) -> Array:
    """(G, X, N * L) on the flat layout's grid (of images `sizes`) back to (N, G * X,
    *sizes) in the logical order (a permuted view: the result's copy makes it dense)."""
    channels = grid.shape[0] * grid.shape[1]
    full = xp.reshape(grid, (channels, n, *sizes))
    return xp.permute_dims(full, (1, 0, *range(2, full.ndim)))


def _group_matmul(xp: ArrayNamespace, a: Array, b: Array, groups: int) -> Array:
    """a @ b over leading (G) dims, one group as a plain 2-d GEMM (NumPy's batched matmul
    is slower than one GEMM)."""
    if groups == 1:
        return xp.expand_dims(xp.matmul(a[0, ...], b[0, ...]), axis=0)
    return xp.matmul(a, b)


def _batch_matmul(xp: ArrayNamespace, a: Array, b: Array, groups: int) -> Array:
    """(N, G, A, P) from the per-group `a` (G, A, B) and `b` (N, G, B, P)."""
    if groups == 1:
        return xp.expand_dims(xp.matmul(a[0, ...], b[:, 0, ...]), axis=1)
    return xp.matmul(a, b)


def _strided_columns(
    xp: ArrayNamespace, x: Array, geometry: Geometry, groups: int, padding: Ints
) -> Iterator[Array]:
    """x_k (N, G, C/G, P) for every kernel position k (row-major), P = prod(out)."""
    g = _grouped(xp, pad(xp, x, padding, padding), groups)
    lead = g.shape[:3]
    positions = math.prod(geometry.out)
    for k in geometry.offsets:
        window = g[(slice(None), slice(None), slice(None), *geometry.window(k))]
        yield xp.reshape(window, (*lead, positions))


def forward(
    xp: ArrayNamespace,
    x: Array,
    weight: Array,
    geometry: Geometry,
    groups: int,
    padding: Ints,
    bias: Array | None = None,
) -> Array:
    """y (N, O, *out) = bias + sum over kernel positions k of w_k @ x_k, per group.

    `x` (N, C, *spatial) is the input before `padding`, `weight` (O, C/G, *kernel), `bias`
    (O,) or None.
    """
    n = x.shape[0]
    o = weight.shape[0]
    w = _weights_by_offset(xp, weight, groups)  # (G, O/G, C/G) per kernel position
    total = None
    if geometry.flat:
        source = _channel_major(xp, x, padding, groups)  # (G, C/G, (N + 1) * L)
        size = geometry.size
        # Images in blocks whose columns stay in cache across the kernel offsets' products;
        # each block's result goes straight to its place in the (contiguous) result.
        block = max(1, _CACHE_ELEMENTS // max(1, x.shape[1] * size))
        result = xp.empty((n, o, *geometry.out), dtype=x.dtype, device=x.device)
        for start in range(0, n, block):
            stop = min(n, start + block)
            part = None
            for index, k in enumerate(geometry.offsets):
                offset = geometry.flat_offset(k)
                columns = source[..., start * size + offset : stop * size + offset]
                term = _group_matmul(xp, w[index], columns, groups)  # (G, O/G, images * L)
                part = term if part is None else _accumulate(part, term)
            if part is None:  # a kernel with no positions cannot pass the shape checks
                raise AssertionError("convolution kernel without positions")
            if bias is not None:
                part += xp.reshape(bias, (groups, o // groups, 1))
            full = _from_grid(xp, part, stop - start, geometry.padded)
            result[start:stop, ...] = crop(full, (0,) * len(geometry.out), geometry.out)
        return result
    for index, columns in enumerate(_strided_columns(xp, x, geometry, groups, padding)):
        term = _batch_matmul(xp, w[index], columns, groups)  # (N, G, O/G, P)
        total = term if total is None else _accumulate(total, term)
    if total is None:
        raise AssertionError("convolution kernel without positions")
    if bias is not None:
        total += xp.reshape(bias, (groups, o // groups, 1))
    return xp.reshape(total, (n, o, *geometry.out))


def _accumulate(total: Array, term: Array) -> Array:
    # In place: `total` is a fresh product no one else holds.
    total += term
    return total


def scatter(
    xp: ArrayNamespace,
    grad: Array,
    weight: Array,
    geometry: Geometry,
    groups: int,
    channels: int,
    rounding: Rounding = None,
) -> Array:
    """The padded input gradient (N, channels, *padded): sum over k of w_k^T @ dy scattered
    to the positions x_k reads (a transposed convolution; torch's col2im of the columns).

    `grad` (N, O, *out), `weight` (O, channels/G, *kernel).
    """
    n = grad.shape[0]
    w = _weights_by_offset(xp, weight, groups)  # (G, O/G, C/G) per kernel position
    cg = channels // groups
    if geometry.flat:
        columns = _to_grid(xp, grad, geometry, groups)  # (G, O/G, N * L)
        positions = n * geometry.size
        acc = xp.zeros(
            (groups, cg, positions + geometry.size), dtype=grad.dtype, device=grad.device
        )
        for index, k in enumerate(geometry.offsets):
            offset = geometry.flat_offset(k)
            term = _group_matmul(xp, xp.matrix_transpose(w[index]), columns, groups)
            span = (slice(None), slice(None), slice(offset, offset + positions))
            acc[span] = _add(acc[span], term, rounding)
        full = xp.reshape(acc, (channels, n + 1, *geometry.padded))[:, :n, ...]
        return xp.permute_dims(full, (1, 0, *range(2, full.ndim)))
    g = _grouped(xp, grad, groups)  # (N, G, O/G, *out)
    columns = xp.reshape(g, (*g.shape[:3], math.prod(geometry.out)))
    acc = xp.zeros((n, groups, cg, *geometry.padded), dtype=grad.dtype, device=grad.device)
    for index, k in enumerate(geometry.offsets):
        term = _batch_matmul(xp, xp.matrix_transpose(w[index]), columns, groups)
        where = (slice(None), slice(None), slice(None), *geometry.window(k))
        acc[where] = _add(acc[where], xp.reshape(term, (n, groups, cg, *geometry.out)), rounding)
    return xp.reshape(acc, (n, channels, *geometry.padded))


def weight_grad(
    xp: ArrayNamespace,
    x: Array,
    grad: Array,
    geometry: Geometry,
    groups: int,
    padding: Ints,
) -> Array:
    """dw (O, C/G, *kernel): dw_k = dy @ x_k^T summed over the batch, per group.

    `x` (N, C, *spatial) is the input before `padding`, `grad` (N, O, *out).
    """
    n, o = grad.shape[:2]
    pieces = []
    if geometry.flat:
        columns = _to_grid(xp, grad, geometry, groups)  # (G, O/G, N * L)
        source = _channel_major(xp, x, padding, groups)
        positions = n * geometry.size
        for k in geometry.offsets:
            offset = geometry.flat_offset(k)
            x_k = source[..., offset : offset + positions]
            pieces.append(_group_matmul(xp, columns, xp.matrix_transpose(x_k), groups))
    else:
        g = _grouped(xp, grad, groups)  # (N, G, O/G, *out)
        columns = xp.reshape(g, (*g.shape[:3], math.prod(geometry.out)))
        for x_k in _strided_columns(xp, x, geometry, groups, padding):
            product = xp.matmul(columns, xp.matrix_transpose(x_k))  # (N, G, O/G, C/G)
            pieces.append(xp.sum(product, axis=0))
    stacked = xp.stack(pieces, axis=-1)  # (G, O/G, C/G, K)
    return xp.reshape(stacked, (o, stacked.shape[2], *geometry.kernel))


def im2col(xp: ArrayNamespace, padded: Array, geometry: Geometry) -> Array:
    """(N, C * prod(kernel), P): each channel's windows, kernel positions row-major.

    Torch: im2col in aten/src/ATen/native/im2col.h (column c * K + k holds channel c at
    kernel position k).
    """
    n, c = padded.shape[:2]
    positions = math.prod(geometry.out)
    pieces = [
        xp.reshape(padded[(slice(None), slice(None), *geometry.window(k))], (n, c, positions))
        for k in geometry.offsets
    ]
    stacked = xp.stack(pieces, axis=2)  # (N, C, K, P)
    return xp.reshape(stacked, (n, c * len(pieces), positions))


def col2im(
    xp: ArrayNamespace,
    columns: Array,
    channels: int,
    geometry: Geometry,
    rounding: Rounding = None,
) -> Array:
    """The padded image (N, C, *padded) the columns (N, C * K, P) sum back into.

    Torch: col2im in aten/src/ATen/native/im2col.h (overlapping windows add up).
    """
    n = columns.shape[0]
    kernels = math.prod(geometry.kernel)
    split = xp.reshape(columns, (n, channels, kernels, *geometry.out))
    acc = xp.zeros((n, channels, *geometry.padded), dtype=columns.dtype, device=columns.device)
    for index, k in enumerate(geometry.offsets):
        where = (slice(None), slice(None), *geometry.window(k))
        acc[where] = _add(acc[where], split[:, :, index, ...], rounding)
    return acc
