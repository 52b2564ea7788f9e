"""Fractional max pooling (fractional_max_pool2d/3d and their backward ops) and max_unpool2d /
max_unpool3d, the partial inverse of max pooling.

Torch: aten/src/ATen/native/FractionalMaxPool2d.cpp, FractionalMaxPool3d.cpp (the meta
functions, generate_intervals and the CPU frames), MaxUnpooling.cpp and
native/cpu/MaxUnpoolKernel.cpp, and derivatives.yaml. A fractional window starts where
torch's interval sequence says, drawn from one random sample per plane and dim; every plane
then has windows of its own, so the gather here reads per-plane positions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_pooling_window import (
    FLOATING,
    max_choice,
    max_pool_double_backward,
    planes_array,
    prepare_out,
    result,
    scatter_planes,
    wants_channels_last,
    zeros,
)
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import has_data, implements, not_implemented
from refimpl.ops._register import defop
from refimpl.ops._scatter import ScatterReduce, scatter_flat

aten: Final = namespace("aten")

# Which of a plane's random samples drives each spatial dim (torch: sample 0 is W and 1 is H
# in 2d; 0, 1, 2 are T, H, W in 3d).
_SAMPLE_OF_DIM: Final[dict[int, tuple[int, ...]]] = {2: (1, 0), 3: (0, 1, 2)}
_DIM_NAMES: Final[dict[int, tuple[str, ...]]] = {
    2: ("height", "width"),
    3: ("time", "height", "width"),
}
_FN: Final[dict[int, str]] = {2: "fractional_max_pool2d()", 3: "fractional_max_pool3d_out()"}
_KERNEL_MESSAGES: Final[dict[int, str]] = {
    2: "must either be a single Int or tuple of Ints",
    3: "must either be a single Int or tuple of three Ints",
}


def _intervals(xp: Any, sample: Any, size: int, out: int, pool: int) -> Any:
    """Each plane's window starts along one dim, (planes, out) int64, from its sample.

    Torch: generate_intervals in FractionalMaxPool2d.cpp, in the sample's dtype:
    `(int)((i + sample) * alpha) - (int)(sample * alpha)` with alpha = (size - pool) /
    (out - 1), and the last window ending at the input's end.
    """
    planes = sample.shape[0]
    last = xp.full((planes, min(out, 1)), size - pool, dtype=xp.int64)
    if out <= 1:
        return last
    dtype = sample.dtype
    alpha = xp.asarray(size - pool, dtype=dtype) / xp.asarray(out - 1, dtype=dtype)
    steps = xp.reshape(xp.astype(xp.arange(out - 1), dtype), (1, out - 1))
    column = xp.reshape(sample, (planes, 1))
    starts = xp.astype((steps + column) * alpha, xp.int64) - xp.astype(column * alpha, xp.int64)
    return xp.concat((starts, last), axis=1)


def _fractional_checks(
    rank: int,
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    random_samples: TensorImpl,
) -> None:
    """Torch: TORCH_META_FUNC(fractional_max_pool2d) / (fractional_max_pool3d) and
    fractional_max_pool_check_shape."""
    name = f"fractional_max_pool{rank}d"
    if len(kernel_size) != rank:
        raise RuntimeError(f"{name}: kernel_size {_KERNEL_MESSAGES[rank]}")
    if len(output_size) != rank:
        raise RuntimeError(f"{name}: output_size {_KERNEL_MESSAGES[rank]}")
    size = self._size
    ndim = len(size)
    fn = _FN[rank]
    if ndim not in (rank + 1, rank + 2):
        raise RuntimeError(
            f"{fn}: Expected {rank + 1}D or {rank + 2}D tensor, but got: {format_shape(size)}"
        )
    for i in range(ndim - rank - 1, ndim):
        if size[i] <= 0:
            raise RuntimeError(
                f"{fn}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{format_shape(size)} with dimension {i} being empty."
            )
    if random_samples._dtype is not self._dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    samples = random_samples._size
    if len(samples) != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {len(samples)}")
    batch = size[0] if ndim == rank + 2 else 1
    if samples[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples[1] != size[-rank - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples[2] != rank:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {rank}; got {samples[2]}.")
    for name_d, n, k, o in zip(
        _DIM_NAMES[rank], size[-rank:], kernel_size, output_size, strict=True
    ):
        if o + k - 1 > n:
            raise RuntimeError(f"{fn}: pool {name_d} {k} too large relative to input {name_d} {n}")


# --- fractional_max_pool2d, fractional_max_pool3d -------------------------------------------------

fractional_max_pool2d = defop(
    "fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, "
    "Tensor random_samples) -> (Tensor, Tensor)"
)
fractional_max_pool2d_output = defop(
    "fractional_max_pool2d.output(Tensor self, int[2] kernel_size, int[2] output_size, "
    "Tensor random_samples, *, Tensor(a!) output, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)
fractional_max_pool3d = defop(
    "fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, "
    "Tensor random_samples) -> (Tensor, Tensor)"
)
fractional_max_pool3d_output = defop(
    "fractional_max_pool3d.output(Tensor self, int[3] kernel_size, int[3] output_size, "
    "Tensor random_samples, *, Tensor(a!) output, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)


def _fractional(
    rank: int,
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    random_samples: TensorImpl,
    output: TensorImpl | None,
    indices: TensorImpl | None,
) -> Any:
    """The max of each plane's fractional windows and its flat index in the plane.

    Torch: fractional_max_pool2d_out_single_batch_frame / fractional_max_pool3d_out_single_
    batch_frame: the interval sequences, then the max loop (NaN wins, as in max pooling).
    """
    _fractional_checks(rank, self, kernel_size, output_size, random_samples)
    ndim = len(self._size)
    full = tuple(self._size[: ndim - rank]) + tuple(output_size)
    prepare_out(output, full, self._dtype, False)
    prepare_out(indices, full, int64, False)
    if not has_data(self):
        return (
            result(self, None, full, self._dtype, False, output),
            result(self, None, full, int64, False, indices),
        )
    if self._dtype not in FLOATING:
        raise not_implemented(f"fractional_max_pool{rank}d_out_frame", self._dtype)
    if geometry.numel(full) == 0:
        return (
            result(self, zeros(self, full, self._dtype), full, self._dtype, False, output),
            result(self, zeros(self, full, int64), full, int64, False, indices),
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    sizes = self._size[ndim - rank :]
    planes = geometry.numel(self._size[: ndim - rank])
    batch = planes // self._size[-rank - 1]
    samples = xp.reshape(array_of(random_samples)[:batch, ...], (planes, rank))
    positions = xp.zeros((planes,) + (1,) * (2 * rank), dtype=xp.int64)
    step = math.prod(sizes)
    for d in range(rank):
        step //= sizes[d]
        starts = _intervals(
            xp, samples[:, _SAMPLE_OF_DIM[rank][d]], sizes[d], output_size[d], kernel_size[d]
        )
        shape = [planes] + [1] * (2 * rank)
        shape[1 + d] = output_size[d]
        offsets = [1] * (1 + 2 * rank)
        offsets[1 + rank + d] = kernel_size[d]
        index = xp.reshape(starts, tuple(shape)) + xp.reshape(
            xp.arange(kernel_size[d], dtype=xp.int64), tuple(offsets)
        )
        positions = positions + index * step
    count = math.prod(kernel_size)
    plane = math.prod(sizes)
    positions = xp.reshape(
        xp.broadcast_to(positions, (planes, *output_size, *kernel_size)),
        (planes, *output_size, count),
    )
    base = xp.reshape(xp.arange(planes, dtype=xp.int64) * plane, (planes,) + (1,) * (rank + 1))
    flat = xp.reshape(planes_array(self, rank, self._dtype), (-1,))
    values = xp.reshape(
        xp.take(flat, xp.reshape(positions + base, (-1,))), (planes, *output_size, count)
    )
    valid = xp.ones((count,), dtype=xp.bool)
    maxima, chosen = max_choice(xp, values, valid)
    hit = xp.arange(count, dtype=xp.int64) == xp.reshape(chosen, (*chosen.shape, 1))
    index = xp.sum(xp.where(hit, positions, xp.zeros((), dtype=xp.int64)), axis=-1)
    return (
        result(self, maxima, full, self._dtype, False, output),
        result(self, index, full, int64, False, indices),
    )


@implements(fractional_max_pool2d)
@implements(fractional_max_pool2d_output)
def fractional_max_pool2d_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    random_samples: TensorImpl,
    *,
    output: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: fractional_max_pool2d / .output."""
    return _fractional(2, self, kernel_size, output_size, random_samples, output, indices)


@implements(fractional_max_pool3d)
@implements(fractional_max_pool3d_output)
def fractional_max_pool3d_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    random_samples: TensorImpl,
    *,
    output: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: fractional_max_pool3d / .output."""
    return _fractional(3, self, kernel_size, output_size, random_samples, output, indices)


@fractional_max_pool2d.derivative("self")
def fractional_max_pool2d_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    result1: Tensor,
) -> Tensor:
    # torch: fractional_max_pool2d_backward(grad, self, kernel_size, output_size, result1)
    return aten.fractional_max_pool2d_backward.default(
        grad, self, kernel_size, output_size, result1
    )


@fractional_max_pool3d.derivative("self")
def fractional_max_pool3d_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    result1: Tensor,
) -> Tensor:
    # torch: fractional_max_pool3d_backward(grad, self, kernel_size, output_size, result1)
    return aten.fractional_max_pool3d_backward.default(
        grad, self, kernel_size, output_size, result1
    )


# --- fractional_max_pool2d_backward, fractional_max_pool3d_backward -------------------------------

fractional_max_pool2d_backward = defop(
    "fractional_max_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
    "int[2] output_size, Tensor indices) -> Tensor"
)
fractional_max_pool2d_backward_grad_input = defop(
    "fractional_max_pool2d_backward.grad_input(Tensor grad_output, Tensor self, "
    "int[2] kernel_size, int[2] output_size, Tensor indices, *, Tensor(a!) grad_input) "
    "-> Tensor(a!)"
)
fractional_max_pool3d_backward = defop(
    "fractional_max_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, "
    "int[3] output_size, Tensor indices) -> Tensor"
)
fractional_max_pool3d_backward_grad_input = defop(
    "fractional_max_pool3d_backward.grad_input(Tensor grad_output, Tensor self, "
    "int[3] kernel_size, int[3] output_size, Tensor indices, *, Tensor(a!) grad_input) "
    "-> Tensor(a!)"
)


def _fractional_backward(
    rank: int,
    grad_output: TensorImpl,
    self: TensorImpl,
    output_size: Sequence[int],
    indices: TensorImpl,
    grad_input: TensorImpl | None,
) -> Any:
    """Each output's gradient added at its index. Torch: fractional_max_pool2d_backward_out_
    cpu_template / fractional_max_pool3d_backward_out_cpu_template."""
    ndim = len(self._size)
    expected = tuple(self._size[: ndim - rank]) + tuple(output_size)
    if rank == 2:
        if grad_output._size != expected:
            raise RuntimeError("fractional_max_pool2d_backward(): gradOutput sizes unexpected")
        if indices._size != expected:
            raise RuntimeError("fractional_max_pool2d_backward(): indices sizes unexpected")
    else:
        for name_d, d in zip(_DIM_NAMES[3], (-3, -2, -1), strict=True):
            if grad_output._size[d] != output_size[d]:
                raise RuntimeError(
                    f"fractional_max_pool3d_backward_out(): gradOutput {name_d} unexpected"
                )
    full = self._size
    prepare_out(grad_input, full, self._dtype, False)
    if not has_data(self):
        return result(self, None, full, self._dtype, False, grad_input)
    if self._dtype not in FLOATING:
        raise not_implemented(f"fractional_max_pool{rank}d_backward_out_frame", self._dtype)
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found "
            f"{grad_output._dtype.scalar_name}"
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    planes = geometry.numel(full[: ndim - rank])
    plane = geometry.numel(full[ndim - rank :])
    grads = planes_array(grad_output, rank, self._dtype)
    index = planes_array(indices, rank, int64)
    summed = scatter_planes(xp, planes, plane, index, grads, grads.dtype)
    return result(self, summed, full, self._dtype, False, grad_input)


@implements(fractional_max_pool2d_backward)
@implements(fractional_max_pool2d_backward_grad_input)
def fractional_max_pool2d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: fractional_max_pool2d_backward / .grad_input."""
    return _fractional_backward(2, grad_output, self, output_size, indices, grad_input)


@implements(fractional_max_pool3d_backward)
@implements(fractional_max_pool3d_backward_grad_input)
def fractional_max_pool3d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    output_size: Sequence[int],
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: fractional_max_pool3d_backward / .grad_input."""
    return _fractional_backward(3, grad_output, self, output_size, indices, grad_input)


@fractional_max_pool2d_backward.derivative("grad_output")
def fractional_max_pool2d_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 2)
    return max_pool_double_backward(grad, indices, 2)


@fractional_max_pool3d_backward.derivative("grad_output")
def fractional_max_pool3d_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 3)
    return max_pool_double_backward(grad, indices, 3)


@fractional_max_pool2d_backward.derivative("self")
def fractional_max_pool2d_backward_self_grad(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


fractional_max_pool3d_backward.derivative("self")(fractional_max_pool2d_backward_self_grad)


# --- max_unpool2d, max_unpool3d -------------------------------------------------------------------

max_unpool2d = defop("max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor")
max_unpool2d_out = defop(
    "max_unpool2d.out(Tensor self, Tensor indices, SymInt[2] output_size, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
max_unpool3d = defop(
    "max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, "
    "int[3] padding) -> Tensor"
)
max_unpool3d_out = defop(
    "max_unpool3d.out(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, "
    "int[3] padding, *, Tensor(a!) out) -> Tensor(a!)"
)


def _unpool_checks(
    rank: int,
    self: TensorImpl,
    indices: TensorImpl,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
) -> None:
    """Torch: max_unpooling2d_forward_out_cpu's checks / max_unpooling3d_shape_check."""
    ndim = len(self._size)
    if rank == 2:
        if indices._dtype is not int64:
            raise RuntimeError(
                f"elements in indices should be type int64 but got: {indices._dtype.scalar_name}"
            )
        if len(output_size) != 2:
            raise RuntimeError(
                "There should be exactly two elements (height, width) in output_size, but got "
                f"{len(output_size)} elements."
            )
        if ndim not in (3, 4):
            raise RuntimeError(
                "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                f"{ndim} dimensions."
            )
    else:
        if indices._dtype is not int64:
            raise RuntimeError("elements in indices should be type int64")
        if ndim not in (4, 5):
            raise RuntimeError(
                "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                f"{ndim} dimensions."
            )
        for name, values, shown in (
            ("output_size", output_size, " "),
            ("stride", stride, ": "),
            ("padding", padding, ": "),
        ):
            if len(values) != 3:
                raise RuntimeError(
                    f"There should be exactly three elements (depth, height, width) in {name}, "
                    f"but got{shown}{len(values)} elements."
                )
    if self._size != indices._size:
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({format_shape(self._size)}) but got indices tensor with shape: "
            f"{format_shape(indices._size)}"
        )
    for i in range(1, ndim):
        if self._size[i] <= 0:
            raise RuntimeError(
                f"max_unpooling{rank}d_forward_out_cpu(): Expected input to have non-zero size "
                f"for non-batch dimensions, but got {format_shape(self._size)} with dimension "
                f"{i} being empty."
            )
    if rank == 3 and not all(s > 0 for s in stride):
        raise RuntimeError(
            f"strides should be greater than zero, but got stride: {format_shape(stride)}"
        )


def _max_unpool(
    rank: int,
    self: TensorImpl,
    indices: TensorImpl,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    out: TensorImpl | None,
) -> Any:
    """Zeros with each input element written at its index in its plane.

    Torch: max_unpooling2d_forward_out_cpu / max_unpooling3d_forward_out_cpu and
    cpu_max_unpool (MaxUnpoolKernel.cpp). Differs: where two elements name one position,
    torch's threads race (torch documents max_unpool as nondeterministic then) and refimpl
    keeps the last one in input order; of several indices outside the plane, torch names one
    some thread met, refimpl the last of the first plane that has one.
    """
    _unpool_checks(rank, self, indices, output_size, stride, padding)
    ndim = len(self._size)
    full = tuple(self._size[: ndim - rank]) + tuple(output_size)
    # torch: the 2d CPU kernel follows the input's memory format; on the meta device
    # max_unpool2d runs its Python decomposition (torch/_decomp), whose result is contiguous.
    cl = rank == 2 and ndim == 4 and wants_channels_last(self) and has_data(self)
    prepare_out(out, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, out)
    if self._dtype not in FLOATING:
        raise not_implemented(f"max_unpool{rank}d", self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    planes = geometry.numel(self._size[: ndim - rank])
    plane = math.prod(output_size)
    index = planes_array(indices, rank, int64)
    values = planes_array(self, rank, self._dtype)
    bad = (index < 0) | (index >= plane)
    if planes and bool(xp.any(bad)):
        first_plane = int(xp.argmax(xp.astype(xp.any(bad, axis=1), xp.int8)))
        row_bad = bad[first_plane, :]
        count = row_bad.shape[0]
        last = int(xp.max(xp.where(row_bad, xp.arange(count, dtype=xp.int64), -1)))
        sizes = "x".join(str(n) for n in output_size)
        raise RuntimeError(
            f"Found an invalid max index: {int(index[first_plane, last])} (output volumes are "
            f"of size {sizes})"
        )
    base = xp.reshape(xp.arange(planes, dtype=xp.int64) * plane, (planes, 1))
    positions = xp.reshape(index + base, (-1,))
    target = xp.zeros((planes * plane,), dtype=values.dtype)
    written = scatter_flat(xp, target, positions, xp.reshape(values, (-1,)), ScatterReduce.SET)
    return result(self, written, full, self._dtype, cl, out)


@implements(max_unpool2d)
@implements(max_unpool2d_out)
def max_unpool2d_kernel(
    self: TensorImpl,
    indices: TensorImpl,
    output_size: Sequence[int],
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: max_unpool2d / .out."""
    return _max_unpool(2, self, indices, output_size, (), (), out)


@implements(max_unpool3d)
@implements(max_unpool3d_out)
def max_unpool3d_kernel(
    self: TensorImpl,
    indices: TensorImpl,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: max_unpool3d / .out."""
    return _max_unpool(3, self, indices, output_size, stride, padding, out)


@max_unpool2d.derivative("self")
def max_unpool2d_backward_self(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 2)
    return max_pool_double_backward(grad, indices, 2)


@max_unpool3d.derivative("self")
def max_unpool3d_backward_self(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 3)
    return max_pool_double_backward(grad, indices, 3)
