"""grid_sampler (2d, 3d) with its backward ops, and affine_grid_generator: sampling an input
at the points of a grid, and the grid of an affine map.

Torch: aten/src/ATen/native/GridSampler.cpp and GridSampler.h (the checks, the coordinate
maps: grid_sampler_unnormalize, clip_coordinates, reflect_coordinates and their `_set_grad`
forms, the bilinear / nearest / bicubic CPU kernels and their backward), GridSamplerUtils.h
(check_grid_sampler_common / _2d / _3d) and AffineGridGenerator.cpp. A point's value is a
weighted sum of input elements at integer positions (corners, nearest, or a 4x4 bicubic
window); positions outside the input read 0. The forward gathers, the backward scatters
into the input's gradient and differentiates the weights for the grid's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import bfloat16, float16, float32, float64
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops._nn_sampling_grid_taps import (
    BICUBIC,
    Layout,
    compute_dtype,
    gather_rows,
    grid_taps,
    input_rows,
    layout_of,
    tap_rows,
)
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import (
    cast_to,
    has_data,
    implements,
    input_array,
    not_implemented,
    same_as_out,
)
from refimpl.ops._register import defop
from refimpl.ops._scatter import ScatterReduce, scatter_flat

aten: Final = namespace("aten")

_FLOATS: Final = frozenset({float16, bfloat16, float32, float64})


@dataclass(frozen=True, slots=True)
class _Kind:
    """grid_sampler_2d or _3d: its rank and its CPU kernels' AT_DISPATCH names."""

    dims: int
    forward_name: str
    backward_name: str


_2D: Final = _Kind(2, "grid_sampler_2d_cpu_kernel_impl", "grid_sampler_2d_backward_cpu_kernel_impl")
_3D: Final = _Kind(3, "grid_sampler3d_cpu", "grid_sampler_3d_backward_cpu")


# --- checks ----------------------------------------------------------------------------------


def _check(kind: _Kind, input: TensorImpl, grid: TensorImpl, interpolation_mode: int) -> None:
    """Torch: check_grid_sampler_common, then check_grid_sampler_2d / _3d (GridSamplerUtils.h)."""
    isize, gsize = input._size, grid._size
    shown = f"input with sizes {format_shape(isize)} and grid with sizes {format_shape(gsize)}"
    if input._storage.device != grid._storage.device:
        raise RuntimeError(
            "grid_sampler(): expected input and grid to be on same device, but input is on "
            f"{input._storage.device} and grid is on {grid._storage.device}"
        )
    if isize[0] != gsize[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {shown}"
        )
    if gsize[-1] != len(isize) - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {len(isize) - 2} in last dimension, "
            f"but got grid with sizes {format_shape(gsize)}"
        )
    for i in range(2, len(isize)):
        if isize[i] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {format_shape(isize)} with dimension {i} being empty"
            )
    rank = kind.dims + 2
    if len(isize) != rank or len(gsize) != rank:
        raise RuntimeError(
            f"grid_sampler(): expected {rank}D input and grid with same number of dimensions, "
            f"but got {shown}"
        )
    if kind.dims == 3 and interpolation_mode == BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _check_dtypes(name: str, input: TensorImpl, grid: TensorImpl) -> None:
    # torch: the kernel's AT_DISPATCH on the input's dtype, then the data_ptr<scalar_t>() of
    # the grid.
    if input._dtype not in _FLOATS:
        raise not_implemented(name, input._dtype)
    if grid._dtype is not input._dtype:
        raise RuntimeError(
            f"expected scalar type {input._dtype.scalar_name} but found {grid._dtype.scalar_name}"
        )


# --- grid_sampler_2d, grid_sampler_3d ----------------------------------------------------------

grid_sampler_2d = defop(
    "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners) -> Tensor"
)
grid_sampler_2d_out = defop(
    "grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners, *, Tensor(a!) out) -> Tensor(a!)"
)
grid_sampler_3d = defop(
    "grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners) -> Tensor"
)
grid_sampler_3d_out = defop(
    "grid_sampler_3d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners, *, Tensor(a!) out) -> Tensor(a!)"
)


def _forward(
    kind: _Kind,
    input: TensorImpl,
    grid: TensorImpl,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Any:
    """Torch: grid_sampler_2d_cpu / grid_sampler_3d_cpu: the checks, then a contiguous
    (N, C, *grid spatial) result computed in float (double for float64)."""
    _check(kind, input, grid, interpolation_mode)
    shape = (input._size[0], input._size[1], *grid._size[1:-1])
    stride = geometry.contiguous_strides(shape)
    dtype = input._dtype
    device = input._storage.device
    if not has_data(input):
        return tensor_over(None, shape, stride, dtype, device, None)
    _check_dtypes(kind.forward_name, input, grid)
    backend = input._storage.backend
    assert backend is not None
    xp = backend.xp
    compute = compute_dtype(dtype)
    layout = layout_of(input, grid)
    table = input_rows(xp, input_array(input, compute), layout)
    taps, _ = grid_taps(
        xp, input_array(grid, compute), layout, interpolation_mode, padding_mode, align_corners
    )
    total: Array | None = None
    row: Array | None = None
    for k, tap in enumerate(taps):
        rows, inside = tap_rows(xp, layout, tap.positions)
        values = gather_rows(xp, table, rows, inside)
        if tap.factors is not None:
            # torch: bicubic interpolates each of the 4 rows (taps in groups of 4) along x,
            # then the rows along y.
            values = values * xp.reshape(tap.factors[0], (-1, 1))
            row = values if row is None else row + values
            if k % 4 != 3:
                continue
            values = row * xp.reshape(tap.factors[1], (-1, 1))
            row = None
        elif tap.weight is not None:
            values = values * xp.reshape(tap.weight, (-1, 1))
        total = values if total is None else total + values
    assert total is not None
    result = xp.reshape(total, (layout.batch, *grid._size[1:-1], layout.channels))
    order = (0, len(shape) - 1, *range(1, len(shape) - 1))
    values = cast_to(xp, xp.permute_dims(result, order), dtype, backend)
    return tensor_over(values, shape, stride, dtype, device, backend)


@implements(grid_sampler_2d)
def grid_sampler_2d_kernel(
    input: TensorImpl, grid: TensorImpl, interpolation_mode: int, padding_mode: int,
    align_corners: bool,
) -> Any:  # fmt: skip
    """Torch: grid_sampler_2d_cpu (GridSampler.cpp; cpu/GridSamplerKernel.cpp)."""
    return _forward(_2D, input, grid, interpolation_mode, padding_mode, align_corners)


@implements(grid_sampler_3d)
def grid_sampler_3d_kernel(
    input: TensorImpl, grid: TensorImpl, interpolation_mode: int, padding_mode: int,
    align_corners: bool,
) -> Any:  # fmt: skip
    """Torch: grid_sampler_3d_cpu (GridSampler.cpp)."""
    return _forward(_3D, input, grid, interpolation_mode, padding_mode, align_corners)


@implements(grid_sampler_2d_out)
def grid_sampler_2d_out_kernel(
    input: TensorImpl, grid: TensorImpl, interpolation_mode: int, padding_mode: int,
    align_corners: bool, *, out: TensorImpl,
) -> Any:  # fmt: skip
    """Torch: the generated CompositeExplicitAutograd out= form (functional, then copy)."""
    result = aten.grid_sampler_2d.default(
        input, grid, interpolation_mode, padding_mode, align_corners
    )
    return same_as_out(result, out)


@implements(grid_sampler_3d_out)
def grid_sampler_3d_out_kernel(
    input: TensorImpl, grid: TensorImpl, interpolation_mode: int, padding_mode: int,
    align_corners: bool, *, out: TensorImpl,
) -> Any:  # fmt: skip
    """Torch: the generated CompositeExplicitAutograd out= form (functional, then copy)."""
    result = aten.grid_sampler_3d.default(
        input, grid, interpolation_mode, padding_mode, align_corners
    )
    return same_as_out(result, out)


@grid_sampler_2d.derivative("input", "grid")
def grid_sampler_2d_backward_input_grid(
    grad: Any, input: Any, grid: Any, interpolation_mode: int, padding_mode: int,
    align_corners: bool, grad_input_mask: tuple[bool, ...],
) -> Any:  # fmt: skip
    # torch: grid_sampler_2d_backward(grad, input, grid, interpolation_mode, padding_mode,
    # align_corners, grad_input_mask)
    return aten.grid_sampler_2d_backward.default(
        grad, input, grid, interpolation_mode, padding_mode, align_corners,
        list(grad_input_mask),
    )  # fmt: skip


@grid_sampler_3d.derivative("input", "grid")
def grid_sampler_3d_backward_input_grid(
    grad: Any, input: Any, grid: Any, interpolation_mode: int, padding_mode: int,
    align_corners: bool, grad_input_mask: tuple[bool, ...],
) -> Any:  # fmt: skip
    # torch: grid_sampler_3d_backward(grad, input, grid, interpolation_mode, padding_mode,
    # align_corners, grad_input_mask)
    return aten.grid_sampler_3d_backward.default(
        grad, input, grid, interpolation_mode, padding_mode, align_corners,
        list(grad_input_mask),
    )  # fmt: skip


# --- grid_sampler_2d_backward, grid_sampler_3d_backward ----------------------------------------

grid_sampler_2d_backward = defop(
    "grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, "
    "int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) "
    "-> (Tensor, Tensor)"
)
grid_sampler_2d_backward_out = defop(
    "grid_sampler_2d_backward.out(Tensor grad_output, Tensor input, Tensor grid, "
    "int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"
)
grid_sampler_3d_backward = defop(
    "grid_sampler_3d_backward(Tensor grad_output, Tensor input, Tensor grid, "
    "int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) "
    "-> (Tensor, Tensor)"
)
grid_sampler_3d_backward_out = defop(
    "grid_sampler_3d_backward.out(Tensor grad_output, Tensor input, Tensor grid, "
    "int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"
)


def _backward(
    kind: _Kind,
    grad_output: TensorImpl,
    input: TensorImpl,
    grid: TensorImpl,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: Sequence[bool],
) -> Any:
    """Torch: grid_sampler_2d_backward_cpu / grid_sampler_3d_backward_cpu: grad_input (only
    if output_mask[0]; contiguous zeros, then every grad_output element times its weights
    added at its taps) and grad_grid (always computed on CPU; contiguous: per point, the sum
    over channels of grad * value * d weight / d coordinate, times the coordinate maps'
    derivative)."""
    _check(kind, input, grid, interpolation_mode)
    device = input._storage.device
    dtype = input._dtype
    want_input = bool(output_mask[0])
    if not has_data(grad_output) or not has_data(input):
        gi = (
            tensor_over(None, input._size, geometry.contiguous_strides(input._size), dtype,
                        device, None)
            if want_input else None
        )  # fmt: skip
        gg = tensor_over(
            None, grid._size, geometry.contiguous_strides(grid._size), grid._dtype, device, None
        )
        return gi, gg
    _check_dtypes(kind.backward_name, input, grid)
    backend = input._storage.backend
    assert backend is not None
    xp = backend.xp
    compute = compute_dtype(dtype)
    layout = layout_of(input, grid)
    table = input_rows(xp, input_array(input, compute), layout)
    g = _table_points(xp, input_array(grad_output, compute), layout)
    taps, mults = grid_taps(
        xp, input_array(grid, compute), layout, interpolation_mode, padding_mode, align_corners
    )
    dims = kind.dims
    grad_coords: list[Array] = [
        xp.zeros((layout.batch * layout.points,), dtype=g.dtype) for _ in range(dims)
    ]
    positions = []
    contributions = []
    channel = xp.reshape(xp.arange(layout.channels, dtype=xp.int64), (1, -1))
    for tap in taps:
        rows, inside = tap_rows(xp, layout, tap.positions)
        weighted = g if tap.weight is None else g * xp.reshape(tap.weight, (-1, 1))
        if want_input:
            flat = xp.reshape(rows * layout.channels, (-1, 1)) + channel
            positions.append(xp.reshape(flat, (-1,)))
            kept = xp.where(inside[:, None], weighted, xp.zeros_like(weighted))
            contributions.append(xp.reshape(kept, (-1,)))
        if tap.dweight is not None:
            values = gather_rows(xp, table, rows, inside)
            per_point = xp.sum(values * g, axis=1)
            for k in range(dims):
                grad_coords[k] = grad_coords[k] + per_point * xp.reshape(tap.dweight[k], (-1,))
    grad_input = None
    if want_input:
        target = xp.zeros((layout.batch * layout.volume * layout.channels,), dtype=g.dtype)
        summed = scatter_flat(
            xp, target, xp.concat(positions), xp.concat(contributions), ScatterReduce.SUM
        )
        rows_shape = (layout.batch, *layout.spatial, layout.channels)
        order = (0, dims + 1, *range(1, dims + 1))
        values = cast_to(xp, xp.permute_dims(xp.reshape(summed, rows_shape), order), dtype,
                         backend)  # fmt: skip
        grad_input = tensor_over(
            values, input._size, geometry.contiguous_strides(input._size), dtype, device, backend
        )
    columns = []
    for k in range(dims):
        mult = mults[k]
        scaled = grad_coords[k] * (xp.reshape(mult, (-1,)) if not isinstance(mult, float) else mult)
        columns.append(scaled)
    grad_grid = cast_to(xp, xp.reshape(xp.stack(columns, axis=1), grid._size), dtype, backend)
    gg = tensor_over(
        grad_grid, grid._size, geometry.contiguous_strides(grid._size), dtype, device, backend
    )
    return grad_input, gg


def _table_points(xp: Any, a: Array, layout: Layout) -> Array:
    # grad_output (N, C, *grid spatial) as (N * P, C).
    dims = a.ndim - 2
    order = (0, *range(2, 2 + dims), 1)
    return xp.reshape(xp.permute_dims(a, order), (layout.batch * layout.points, layout.channels))


@implements(grid_sampler_2d_backward)
def grid_sampler_2d_backward_kernel(
    grad_output: TensorImpl, input: TensorImpl, grid: TensorImpl, interpolation_mode: int,
    padding_mode: int, align_corners: bool, output_mask: list[bool],
) -> Any:  # fmt: skip
    """Torch: grid_sampler_2d_backward_cpu (GridSampler.cpp; cpu/GridSamplerKernel.cpp)."""
    return _backward(
        _2D, grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
        output_mask,
    )  # fmt: skip


@implements(grid_sampler_3d_backward)
def grid_sampler_3d_backward_kernel(
    grad_output: TensorImpl, input: TensorImpl, grid: TensorImpl, interpolation_mode: int,
    padding_mode: int, align_corners: bool, output_mask: list[bool],
) -> Any:  # fmt: skip
    """Torch: grid_sampler_3d_backward_cpu (GridSampler.cpp)."""
    return _backward(
        _3D, grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
        output_mask,
    )  # fmt: skip


def _backward_out(result: tuple[Any, Any], out0: TensorImpl, out1: TensorImpl) -> Any:
    # torch: the generated out= form copies each defined result into its out tensor.
    if result[0] is not None:
        same_as_out(result[0], out0)
    same_as_out(result[1], out1)
    return out0, out1


@implements(grid_sampler_2d_backward_out)
def grid_sampler_2d_backward_out_kernel(
    grad_output: TensorImpl, input: TensorImpl, grid: TensorImpl, interpolation_mode: int,
    padding_mode: int, align_corners: bool, output_mask: list[bool], *, out0: TensorImpl,
    out1: TensorImpl,
) -> Any:  # fmt: skip
    """Torch: the generated CompositeExplicitAutograd out= form."""
    result = aten.grid_sampler_2d_backward.default(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask
    )
    return _backward_out(result, out0, out1)


@implements(grid_sampler_3d_backward_out)
def grid_sampler_3d_backward_out_kernel(
    grad_output: TensorImpl, input: TensorImpl, grid: TensorImpl, interpolation_mode: int,
    padding_mode: int, align_corners: bool, output_mask: list[bool], *, out0: TensorImpl,
    out1: TensorImpl,
) -> Any:  # fmt: skip
    """Torch: the generated CompositeExplicitAutograd out= form."""
    result = aten.grid_sampler_3d_backward.default(
        grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask
    )
    return _backward_out(result, out0, out1)


# --- grid_sampler ------------------------------------------------------------------------------

grid_sampler = defop(
    "grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners) -> Tensor"
)


@grid_sampler.decomposition
def grid_sampler_decomposition(
    input: TensorImpl, grid: TensorImpl, interpolation_mode: int, padding_mode: int,
    align_corners: bool,
) -> Any:  # fmt: skip
    """Torch: grid_sampler (GridSampler.cpp): grid_sampler_2d for a 4-d input, else
    grid_sampler_3d (cuDNN only on CUDA)."""
    if len(input._size) == 4:
        return aten.grid_sampler_2d.default(
            input, grid, interpolation_mode, padding_mode, align_corners
        )
    return aten.grid_sampler_3d.default(
        input, grid, interpolation_mode, padding_mode, align_corners
    )


# --- _grid_sampler_2d_cpu_fallback -----------------------------------------------------------

_grid_sampler_2d_cpu_fallback = defop(
    "_grid_sampler_2d_cpu_fallback(Tensor input, Tensor grid, int interpolation_mode, "
    "int padding_mode, bool align_corners) -> Tensor"
)
_grid_sampler_2d_cpu_fallback_out = defop(
    "_grid_sampler_2d_cpu_fallback.out(Tensor input, Tensor grid, int interpolation_mode, "
    "int padding_mode, bool align_corners, *, Tensor(a!) out) -> Tensor(a!)"
)
_grid_sampler_2d_cpu_fallback_backward = defop(
    "_grid_sampler_2d_cpu_fallback_backward(Tensor grad_output, Tensor input, Tensor grid, "
    "int interpolation_mode, int padding_mode, bool align_corners) -> (Tensor, Tensor)"
)


def _check_float(*tensors: TensorImpl) -> None:
    # torch: the fallback reads every tensor with data_ptr<float>().
    for t in tensors:
        if has_data(t) and t._dtype is not float32:
            raise RuntimeError(f"expected scalar type Float but found {t._dtype.scalar_name}")


@implements(_grid_sampler_2d_cpu_fallback)
def _grid_sampler_2d_cpu_fallback_kernel(
    input: TensorImpl,
    grid: TensorImpl,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Any:
    """Torch: _grid_sampler_2d_cpu_fallback (GridSampler.cpp): the scalar float32 kernel
    grid_sampler_2d_cpu uses where the vectorized one's int32 offsets could overflow; the
    same values."""
    _check(_2D, input, grid, interpolation_mode)
    _check_float(input, grid)
    return _forward(_2D, input, grid, interpolation_mode, padding_mode, align_corners)


@implements(_grid_sampler_2d_cpu_fallback_out)
def _grid_sampler_2d_cpu_fallback_out_kernel(
    input: TensorImpl,
    grid: TensorImpl,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= form (functional, then copy)."""
    result = aten._grid_sampler_2d_cpu_fallback.default(
        input, grid, interpolation_mode, padding_mode, align_corners
    )
    return same_as_out(result, out)


@_grid_sampler_2d_cpu_fallback.derivative("input", "grid")
def _grid_sampler_2d_cpu_fallback_backward_input_grid(
    grad: Any,
    input: Any,
    grid: Any,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Any:
    # torch: _grid_sampler_2d_cpu_fallback_backward(grad, input, grid, interpolation_mode,
    # padding_mode, align_corners)
    return aten._grid_sampler_2d_cpu_fallback_backward.default(
        grad, input, grid, interpolation_mode, padding_mode, align_corners
    )


@implements(_grid_sampler_2d_cpu_fallback_backward)
def _grid_sampler_2d_cpu_fallback_backward_kernel(
    grad_output: TensorImpl,
    input: TensorImpl,
    grid: TensorImpl,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Any:
    """Torch: _grid_sampler_2d_cpu_fallback_backward (GridSampler.cpp): both gradients,
    float32 only."""
    _check(_2D, input, grid, interpolation_mode)
    _check_float(grad_output, input, grid)
    return _backward(
        _2D,
        grad_output,
        input,
        grid,
        interpolation_mode,
        padding_mode,
        align_corners,
        (True, True),
    )
