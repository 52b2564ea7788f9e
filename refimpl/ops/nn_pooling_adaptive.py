"""Adaptive pooling: the aten ops _adaptive_avg_pool2d/3d, adaptive_max_pool2d/3d, their
backward ops, and the CompositeImplicitAutograd adaptive_avg_pool1d/2d/3d and
adaptive_max_pool1d over them.

Torch: aten/src/ATen/native/AdaptiveAveragePooling.cpp, AdaptiveAveragePooling3d.cpp,
AdaptiveMaxPooling2d.cpp, AdaptiveMaxPooling3d.cpp, the CPU kernels of
native/cpu/AdaptiveAvgPoolKernel.cpp / AdaptiveMaxPoolKernel.cpp, AdaptivePooling.h (the
windows: [floor(o * in / out), ceil((o + 1) * in / out))), and derivatives.yaml.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import bfloat16, float16, int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_pooling_window import (
    FLOATING,
    adaptive_axis,
    compute_dtype,
    flat_valid,
    gather,
    max_pool_double_backward,
    planes_array,
    prepare_out,
    result,
    scatter_planes,
    wants_channels_last,
    window_max,
    windows,
    zeros,
)
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import has_data, implements, not_implemented, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")


def _nonzero_check(self: TensorImpl, name: str, what: str = "input") -> None:
    # torch: the "non-zero size for non-batch dimensions" checks (adaptive_pool_empty_output_
    # check in AdaptivePooling.h for gradients).
    size = self._size
    for i in range(1, len(size)):
        if size[i] <= 0:
            has = "grad_output has" if what == "grad_output" else "input has"
            raise RuntimeError(
                f"{name}(): Expected {what} to have non-zero size for non-batch dimensions, "
                f"but {has} sizes {format_shape(size)} with dimension {i} being empty"
            )


def _axes(xp: Any, self: TensorImpl, output_size: Sequence[int]) -> list[Any]:
    rank = len(output_size)
    sizes = self._size[len(self._size) - rank :]
    return [adaptive_axis(xp, n, o) for n, o in zip(sizes, output_size, strict=True)]


def _window_lengths(xp: Any, self: TensorImpl, output_size: Sequence[int]) -> list[Any]:
    """Per spatial dim, each output position's window length (int64, broadcastable over the
    output's spatial shape)."""
    rank = len(output_size)
    sizes = self._size[len(self._size) - rank :]
    lengths = []
    for d, (n, o) in enumerate(zip(sizes, output_size, strict=True)):
        counts = [-((-(i + 1) * n) // o) - (i * n) // o for i in range(o)]
        shape = [1] * rank
        shape[d] = o
        lengths.append(xp.reshape(xp.asarray(counts, dtype=xp.int64), tuple(shape)))
    return lengths


# --- _adaptive_avg_pool2d, _adaptive_avg_pool3d (and adaptive_avg_pool2d/3d.out) ---------------

_adaptive_avg_pool2d = defop("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor")
_adaptive_avg_pool2d_out = defop(
    "_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> Tensor(a!)"
)
_adaptive_avg_pool3d = defop("_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor")
_adaptive_avg_pool3d_out = defop(
    "_adaptive_avg_pool3d.out(Tensor self, SymInt[3] output_size, *, Tensor(a!) out) -> Tensor(a!)"
)
adaptive_avg_pool2d_out = defop(
    "adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> Tensor(a!)"
)
adaptive_avg_pool3d_out = defop(
    "adaptive_avg_pool3d.out(Tensor self, SymInt[3] output_size, *, Tensor(a!) out) -> Tensor(a!)"
)

# The AT_DISPATCH names of torch's CPU kernels, by (rank, backward).
_AVG_KERNELS: Final[dict[tuple[int, bool], str]] = {
    (2, False): "adaptive_avg_pool2d",
    (3, False): "adaptive_avg_pool3d_cpu",
    (2, True): "adaptive_avg_pool2d_backward",
    (3, True): "adaptive_avg_pool3d_backward_cpu",
}
_MAX_KERNELS: Final[dict[tuple[int, bool], str]] = {
    (2, False): "adaptive_max_pool2d",
    (3, False): "adaptive_max_pool3d_cpu",
    (2, True): "adaptive_max_pool2d_backward",
    (3, True): "adaptive_max_pool3d_backward",
}


def _adaptive_avg(
    rank: int, self: TensorImpl, output_size: Sequence[int], out: TensorImpl | None
) -> Any:
    """Each adaptive window's average.

    Torch: adaptive_avg_pool2d_out_cpu_template / adaptive_avg_pool3d_out_cpu_template (the
    checks) and cpu_adaptive_avg_pool (the sum, accumulated in float32 for float16 and
    bfloat16, divided by each window dim's length in turn: `sum / kh / kw`).
    """
    name = f"adaptive_avg_pool{rank}d"
    if len(output_size) != rank:
        raise RuntimeError(f"{name}: output_size must be {rank}")
    ndim = len(self._size)
    if ndim not in (rank + 1, rank + 2):
        raise RuntimeError(
            f"{name}(): Expected {rank + 1}D or {rank + 2}D tensor, but got "
            f"{format_shape(self._size)}"
        )
    if rank == 3:
        _nonzero_check(self, name)
    full = tuple(self._size[: ndim - rank]) + tuple(output_size)
    cl = rank == 2 and ndim == 4 and wants_channels_last(self)
    prepare_out(out, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, out)
    if self._dtype not in FLOATING:
        raise not_implemented(_AVG_KERNELS[rank, False], self._dtype)
    if geometry.numel(full) == 0:
        return result(self, zeros(self, full, self._dtype), full, self._dtype, cl, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    # torch: the 2d kernel sums in opmath_t (float32 for float16), the 3d one in scalar_t,
    # rounding at each step (adaptive_avg_pool3d_single_out_frame).
    compute = compute_dtype(self._dtype) if rank == 2 else self._dtype
    w = windows(xp, _axes(xp, self, output_size))
    values = gather(xp, planes_array(self, rank, compute), w)
    masked = xp.where(flat_valid(xp, w), values, xp.zeros((), dtype=values.dtype))
    if compute is self._dtype and compute in (float16, bfloat16):
        sums = masked[..., 0]
        for j in range(1, masked.shape[-1]):
            sums = sums + masked[..., j]
    else:
        sums = xp.sum(masked, axis=-1)
    for length in _window_lengths(xp, self, output_size):
        sums = sums / xp.astype(length, sums.dtype)
    return result(self, sums, full, self._dtype, cl, out)


@implements(_adaptive_avg_pool2d)
@implements(adaptive_avg_pool2d_out)
def _adaptive_avg_pool2d_kernel(
    self: TensorImpl, output_size: Sequence[int], *, out: TensorImpl | None = None
) -> Any:
    """Torch: _adaptive_avg_pool2d / adaptive_avg_pool2d.out (adaptive_avg_pool2d_out_cpu)."""
    return _adaptive_avg(2, self, output_size, out)


@implements(_adaptive_avg_pool3d)
@implements(adaptive_avg_pool3d_out)
def _adaptive_avg_pool3d_kernel(
    self: TensorImpl, output_size: Sequence[int], *, out: TensorImpl | None = None
) -> Any:
    """Torch: _adaptive_avg_pool3d / adaptive_avg_pool3d.out (adaptive_avg_pool3d_out_cpu)."""
    return _adaptive_avg(3, self, output_size, out)


@implements(_adaptive_avg_pool2d_out)
def _adaptive_avg_pool2d_out_kernel(
    self: TensorImpl, output_size: Sequence[int], *, out: TensorImpl
) -> Any:
    """Torch: _adaptive_avg_pool2d.out, generated for a CompositeExplicitAutograd op."""
    return same_as_out(aten._adaptive_avg_pool2d.default(self, output_size), out)


@implements(_adaptive_avg_pool3d_out)
def _adaptive_avg_pool3d_out_kernel(
    self: TensorImpl, output_size: Sequence[int], *, out: TensorImpl
) -> Any:
    """Torch: _adaptive_avg_pool3d.out, generated for a CompositeExplicitAutograd op."""
    return same_as_out(aten._adaptive_avg_pool3d.default(self, output_size), out)


@_adaptive_avg_pool2d.derivative("self")
def _adaptive_avg_pool2d_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: _adaptive_avg_pool2d_backward(grad, self)
    return aten._adaptive_avg_pool2d_backward.default(grad, self)


@_adaptive_avg_pool3d.derivative("self")
def _adaptive_avg_pool3d_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: _adaptive_avg_pool3d_backward(grad, self)
    return aten._adaptive_avg_pool3d_backward.default(grad, self)


# --- _adaptive_avg_pool2d_backward, _adaptive_avg_pool3d_backward ------------------------------

_adaptive_avg_pool2d_backward = defop(
    "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor"
)
_adaptive_avg_pool2d_backward_out = defop(
    "_adaptive_avg_pool2d_backward.out(Tensor grad_output, Tensor self, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)
_adaptive_avg_pool3d_backward = defop(
    "_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor"
)
_adaptive_avg_pool3d_backward_out = defop(
    "_adaptive_avg_pool3d_backward.out(Tensor grad_output, Tensor self, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)
adaptive_avg_pool3d_backward_grad_input = defop(
    "adaptive_avg_pool3d_backward.grad_input(Tensor grad_output, Tensor self, *, "
    "Tensor(a!) grad_input) -> Tensor(a!)"
)


def _adaptive_avg_backward(
    rank: int, grad_output: TensorImpl, self: TensorImpl, grad_input: TensorImpl | None
) -> Any:
    """Each output's gradient divided by its window's lengths, added over the window.

    Torch: adaptive_avg_pool2d_backward_out_cpu_template / adaptive_avg_pool3d_backward_out_
    cpu_template and cpu_adaptive_avg_pool_backward (`grad_delta = grad_output / kh / kw`
    in scalar_t, accumulated in scalar_t).
    """
    fn = f"adaptive_avg_pool{rank}d_backward_out_cpu_template"
    grad_name = "grad_output" if rank == 2 else "gradOutput_"
    _nonzero_check(grad_output, f"adaptive_avg_pool{rank}d_backward", "grad_output")
    ndim = len(self._size)
    if ndim != len(grad_output._size):
        raise RuntimeError(
            f"{fn}: Expected dimensions {ndim} for `{grad_name}` but got dimensions "
            f"{len(grad_output._size)}"
        )
    if ndim not in (rank + 1, rank + 2):
        raise RuntimeError(
            f"{fn}: Expected {rank + 1}D or {rank + 2}D tensor, but got {format_shape(self._size)}"
        )
    if rank == 2 and grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"{fn}: Expected dtype {type_meta_name(self._dtype)} for `grad_output` but got "
            f"dtype {type_meta_name(grad_output._dtype)}"
        )
    full = self._size
    cl = rank == 2 and ndim == 4 and wants_channels_last(self)
    prepare_out(grad_input, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, grad_input)
    if self._dtype not in FLOATING:
        raise not_implemented(_AVG_KERNELS[rank, True], self._dtype)
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found "
            f"{grad_output._dtype.scalar_name}"
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    output_size = grad_output._size[ndim - rank :]
    w = windows(xp, _axes(xp, self, output_size))
    grads = planes_array(grad_output, rank, self._dtype)
    planes = grads.shape[0]
    deltas = xp.reshape(grads, (planes, *output_size))
    for length in _window_lengths(xp, self, output_size):
        deltas = deltas / xp.astype(length, deltas.dtype)
    count = math.prod(w.kernel)
    outs = math.prod(w.out)
    valid = xp.reshape(flat_valid(xp, w), (1, outs, count))
    spread = xp.where(
        valid, xp.reshape(deltas, (planes, outs, 1)), xp.zeros((), dtype=deltas.dtype)
    )
    index = xp.broadcast_to(xp.reshape(w.positions, (1, outs, count)), spread.shape)
    plane = math.prod(self._size[ndim - rank :])
    summed = scatter_planes(xp, planes, plane, index, spread, deltas.dtype)
    return result(self, summed, full, self._dtype, cl, grad_input)


@implements(_adaptive_avg_pool2d_backward)
def _adaptive_avg_pool2d_backward_kernel(grad_output: TensorImpl, self: TensorImpl) -> Any:
    """Torch: _adaptive_avg_pool2d_backward (adaptive_avg_pool2d_backward_cpu)."""
    return _adaptive_avg_backward(2, grad_output, self, None)


@implements(_adaptive_avg_pool3d_backward)
@implements(adaptive_avg_pool3d_backward_grad_input)
def _adaptive_avg_pool3d_backward_kernel(
    grad_output: TensorImpl, self: TensorImpl, *, grad_input: TensorImpl | None = None
) -> Any:
    """Torch: _adaptive_avg_pool3d_backward / adaptive_avg_pool3d_backward.grad_input."""
    return _adaptive_avg_backward(3, grad_output, self, grad_input)


@implements(_adaptive_avg_pool2d_backward_out)
def _adaptive_avg_pool2d_backward_out_kernel(
    grad_output: TensorImpl, self: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: _adaptive_avg_pool2d_backward.out, generated for a CompositeExplicitAutograd op."""
    return same_as_out(aten._adaptive_avg_pool2d_backward.default(grad_output, self), out)


@implements(_adaptive_avg_pool3d_backward_out)
def _adaptive_avg_pool3d_backward_out_kernel(
    grad_output: TensorImpl, self: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: _adaptive_avg_pool3d_backward.out, generated for a CompositeExplicitAutograd op."""
    return same_as_out(aten._adaptive_avg_pool3d_backward.default(grad_output, self), out)


@_adaptive_avg_pool2d_backward.derivative("grad_output")
def _adaptive_avg_pool2d_backward_grad_output(grad: Tensor, grad_output: Tensor) -> Tensor:
    # torch: _adaptive_avg_pool2d_symint(grad, grad_output.sym_sizes().slice(-2))
    return aten._adaptive_avg_pool2d.default(grad, list(grad_output._size[-2:]))


@_adaptive_avg_pool3d_backward.derivative("grad_output")
def _adaptive_avg_pool3d_backward_grad_output(grad: Tensor, grad_output: Tensor) -> Tensor:
    # torch: _adaptive_avg_pool3d_symint(grad, grad_output.sym_sizes().slice(-3))
    return aten._adaptive_avg_pool3d.default(grad, list(grad_output._size[-3:]))


@_adaptive_avg_pool2d_backward.derivative("self")
def _adaptive_avg_pool2d_backward_self_grad(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


_adaptive_avg_pool3d_backward.derivative("self")(_adaptive_avg_pool2d_backward_self_grad)


# --- adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d ------------------------------

adaptive_avg_pool1d = defop("adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor")
adaptive_avg_pool1d_out = defop(
    "adaptive_avg_pool1d.out(Tensor self, int[1] output_size, *, Tensor(a!) out) -> Tensor(a!)"
)
adaptive_avg_pool2d = defop("adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor")
adaptive_avg_pool3d = defop("adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor")


def _check_1d(name: str, self: TensorImpl, output_size: Sequence[int]) -> None:
    """Torch: checkDimRange(name, self, 2, 4) and check1d(name, "output_size", output_size)
    in AdaptiveAveragePooling.cpp / AdaptiveMaxPooling2d.cpp."""
    ndim = len(self._size)
    if ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 "
            f"'self' (while checking arguments for {name})"
        )
    if len(output_size) != 1:
        raise RuntimeError(
            f"{name}() argument 'output_size' should contain one int (got {len(output_size)})"
        )


@adaptive_avg_pool1d.decomposition
def adaptive_avg_pool1d_decomposition(self: TensorImpl, output_size: Sequence[int]) -> Any:
    """Torch: adaptive_avg_pool1d: adaptive_avg_pool2d over `self.unsqueeze(-2)` with output
    size (1, n), squeezed back."""
    _check_1d("adaptive_avg_pool1d", self, output_size)
    pooled = aten.adaptive_avg_pool2d.default(aten.unsqueeze.default(self, -2), [1, output_size[0]])
    return aten.squeeze.dim(pooled, -2)


@implements(adaptive_avg_pool1d_out)
def adaptive_avg_pool1d_out_kernel(
    self: TensorImpl, output_size: Sequence[int], *, out: TensorImpl
) -> Any:
    """Torch: adaptive_avg_pool1d.out, generated for a CompositeExplicitAutograd op."""
    return same_as_out(aten.adaptive_avg_pool1d.default(self, output_size), out)


def _adaptive_avg_composite(rank: int, self: TensorImpl, output_size: Sequence[int]) -> Any:
    """Torch: adaptive_avg_pool2d_symint / adaptive_avg_pool3d_symint: a mean over the
    spatial dims for an output of ones (restrided to channels-last for such an input),
    else the _adaptive op."""
    name = f"adaptive_avg_pool{rank}d"
    if len(output_size) != rank:
        raise RuntimeError(f"{name}: output_size must be {rank}")
    if any(n < 0 for n in output_size):
        # torch joins the 3d sizes with ", " then "," (sic).
        shown = ", ".join(str(n) for n in output_size[:2])
        if rank == 3:
            shown += f",{output_size[2]}"
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but "
            f"received {{{shown}}}"
        )
    if all(n == 1 for n in output_size):
        out = aten.mean.dim(self, list(range(-1, -rank - 1, -1)), True)
        if len(self._size) == rank + 2 and wants_channels_last(self):
            n, c = self._size[0], self._size[1]
            out = aten.as_strided_.default(out, [n, c, *([1] * rank)], [c, 1, *([c] * rank)])
        return out
    op = aten._adaptive_avg_pool2d if rank == 2 else aten._adaptive_avg_pool3d
    return op.default(self, output_size)


@adaptive_avg_pool2d.decomposition
def adaptive_avg_pool2d_decomposition(self: TensorImpl, output_size: Sequence[int]) -> Any:
    """Torch: adaptive_avg_pool2d_symint in AdaptiveAveragePooling.cpp."""
    return _adaptive_avg_composite(2, self, output_size)


@adaptive_avg_pool3d.decomposition
def adaptive_avg_pool3d_decomposition(self: TensorImpl, output_size: Sequence[int]) -> Any:
    """Torch: adaptive_avg_pool3d_symint in AdaptiveAveragePooling3d.cpp."""
    return _adaptive_avg_composite(3, self, output_size)


# --- adaptive_max_pool2d, adaptive_max_pool3d ------------------------------------------------------

adaptive_max_pool2d = defop(
    "adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)"
)
adaptive_max_pool2d_out = defop(
    "adaptive_max_pool2d.out(Tensor self, int[2] output_size, *, Tensor(a!) out, "
    "Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)
adaptive_max_pool3d = defop(
    "adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)"
)
adaptive_max_pool3d_out = defop(
    "adaptive_max_pool3d.out(Tensor self, int[3] output_size, *, Tensor(a!) out, "
    "Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)


def _adaptive_max(
    rank: int,
    self: TensorImpl,
    output_size: Sequence[int],
    out: TensorImpl | None,
    indices: TensorImpl | None,
) -> Any:
    """Each adaptive window's max and its flat index in the plane.

    Torch: TORCH_META_FUNC(adaptive_max_pool2d) / (adaptive_max_pool3d) and
    cpu_adaptive_max_pool (NaN wins, as in max pooling).
    """
    name = f"adaptive_max_pool{rank}d"
    ndim = len(self._size)
    if ndim not in (rank + 1, rank + 2):
        raise RuntimeError(
            f"{name}(): Expected {rank + 1}D or {rank + 2}D tensor, but got: "
            f"{format_shape(self._size)}"
        )
    _nonzero_check(self, name)
    if len(output_size) != rank:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {rank}")
    full = tuple(self._size[: ndim - rank]) + tuple(output_size)
    if any(n < 0 for n in output_size):
        negative = next(n for n in output_size if n < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative}: {format_shape(full)}"
        )
    cl = rank == 2 and ndim == 4 and wants_channels_last(self)
    prepare_out(out, full, self._dtype, cl)
    prepare_out(indices, full, int64, cl)
    if not has_data(self):
        return (
            result(self, None, full, self._dtype, cl, out),
            result(self, None, full, int64, cl, indices),
        )
    if self._dtype not in FLOATING:
        raise not_implemented(_MAX_KERNELS[rank, False], self._dtype)
    if geometry.numel(full) == 0:
        return (
            result(self, zeros(self, full, self._dtype), full, self._dtype, cl, out),
            result(self, zeros(self, full, int64), full, int64, cl, indices),
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    w = windows(xp, _axes(xp, self, output_size))
    values, index = window_max(xp, gather(xp, planes_array(self, rank, self._dtype), w), w)
    return (
        result(self, values, full, self._dtype, cl, out),
        result(self, index, full, int64, cl, indices),
    )


@implements(adaptive_max_pool2d)
@implements(adaptive_max_pool2d_out)
def adaptive_max_pool2d_kernel(
    self: TensorImpl,
    output_size: Sequence[int],
    *,
    out: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: adaptive_max_pool2d / .out."""
    return _adaptive_max(2, self, output_size, out, indices)


@implements(adaptive_max_pool3d)
@implements(adaptive_max_pool3d_out)
def adaptive_max_pool3d_kernel(
    self: TensorImpl,
    output_size: Sequence[int],
    *,
    out: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: adaptive_max_pool3d / .out."""
    return _adaptive_max(3, self, output_size, out, indices)


@adaptive_max_pool2d.derivative("self")
def adaptive_max_pool2d_backward_self(grad: Tensor, self: Tensor, result1: Tensor) -> Tensor:
    # torch: adaptive_max_pool2d_backward(grad, self, result1)
    return aten.adaptive_max_pool2d_backward.default(grad, self, result1)


@adaptive_max_pool3d.derivative("self")
def adaptive_max_pool3d_backward_self(grad: Tensor, self: Tensor, result1: Tensor) -> Tensor:
    # torch: adaptive_max_pool3d_backward(grad, self, result1)
    return aten.adaptive_max_pool3d_backward.default(grad, self, result1)


# --- adaptive_max_pool2d_backward, adaptive_max_pool3d_backward ----------------------------------

adaptive_max_pool2d_backward = defop(
    "adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor"
)
adaptive_max_pool2d_backward_grad_input = defop(
    "adaptive_max_pool2d_backward.grad_input(Tensor grad_output, Tensor self, Tensor indices, "
    "*, Tensor(a!) grad_input) -> Tensor(a!)"
)
adaptive_max_pool3d_backward = defop(
    "adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor"
)
adaptive_max_pool3d_backward_grad_input = defop(
    "adaptive_max_pool3d_backward.grad_input(Tensor grad_output, Tensor self, Tensor indices, "
    "*, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _adaptive_max_backward(
    rank: int,
    grad_output: TensorImpl,
    self: TensorImpl,
    indices: TensorImpl,
    grad_input: TensorImpl | None,
) -> Any:
    """Each output's gradient added at its index. Torch: TORCH_META_FUNC(adaptive_max_pool2d_
    backward) / (adaptive_max_pool3d_backward) and cpu_adaptive_max_pool_backward."""
    grad_name = "grad_output" if rank == 2 else "gradOutput"
    ndim = len(grad_output._size)
    if rank == 2 and ndim not in (3, 4):
        raise RuntimeError(
            "adaptive_max_pooling2d_backward(): Expected 3D or 4D grad_output, but got: "
            f"{format_shape(grad_output._size)}"
        )
    _nonzero_check(grad_output, f"adaptive_max_pool{rank}d_backward", "grad_output")
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self._dtype)} for `{grad_name}` but got dtype "
            f"{type_meta_name(grad_output._dtype)}"
        )
    full = self._size
    cl = rank == 2 and len(full) == 4 and wants_channels_last(self)
    prepare_out(grad_input, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, grad_input)
    if indices._size != grad_output._size:
        raise RuntimeError(
            f"expected sizes {format_shape(indices._size)} for `{grad_name}` but got sizes "
            f"{format_shape(grad_output._size)}"
        )
    if self._dtype not in FLOATING:
        raise not_implemented(_MAX_KERNELS[rank, True], self._dtype)
    if indices._dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {indices._dtype.scalar_name}")
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    planes = geometry.numel(full[: len(full) - rank])
    plane = geometry.numel(full[len(full) - rank :])
    grads = planes_array(grad_output, rank, self._dtype)
    index = planes_array(indices, rank, int64)
    summed = scatter_planes(xp, planes, plane, index, grads, grads.dtype)
    return result(self, summed, full, self._dtype, cl, grad_input)


@implements(adaptive_max_pool2d_backward)
@implements(adaptive_max_pool2d_backward_grad_input)
def adaptive_max_pool2d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: adaptive_max_pool2d_backward / .grad_input."""
    return _adaptive_max_backward(2, grad_output, self, indices, grad_input)


@implements(adaptive_max_pool3d_backward)
@implements(adaptive_max_pool3d_backward_grad_input)
def adaptive_max_pool3d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: adaptive_max_pool3d_backward / .grad_input."""
    return _adaptive_max_backward(3, grad_output, self, indices, grad_input)


@adaptive_max_pool2d_backward.derivative("grad_output")
def adaptive_max_pool2d_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 2)
    return max_pool_double_backward(grad, indices, 2)


@adaptive_max_pool3d_backward.derivative("grad_output")
def adaptive_max_pool3d_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 3)
    return max_pool_double_backward(grad, indices, 3)


@adaptive_max_pool2d_backward.derivative("self")
def adaptive_max_pool2d_backward_self_grad(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


adaptive_max_pool3d_backward.derivative("self")(adaptive_max_pool2d_backward_self_grad)


# --- adaptive_max_pool1d -------------------------------------------------------------------------

adaptive_max_pool1d = defop(
    "adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)"
)


@adaptive_max_pool1d.decomposition
def adaptive_max_pool1d_decomposition(self: TensorImpl, output_size: Sequence[int]) -> Any:
    """Torch: adaptive_max_pool1d in AdaptiveMaxPooling2d.cpp: its checks, then
    adaptive_max_pool2d over `self.unsqueeze(-2)` with output size (1, n), squeezed back."""
    _check_1d("adaptive_max_pool1d", self, output_size)
    _nonzero_check(self, "adaptive_max_pool1d")
    values, indices = aten.adaptive_max_pool2d.default(
        aten.unsqueeze.default(self, -2), [1, output_size[0]]
    )
    return aten.squeeze.dim(values, -2), aten.squeeze.dim(indices, -2)
