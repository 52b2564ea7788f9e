"""Average pooling: the aten ops avg_pool2d, avg_pool3d, their backward ops, and the
CompositeImplicitAutograd avg_pool1d over avg_pool2d.

Torch: aten/src/ATen/native/AveragePool2d.cpp, AveragePool3d.cpp (structured meta functions
and the 3d CPU frames), native/cpu/AvgPoolKernel.cpp (the 2d kernels), Pooling.cpp
(avg_pool1d), and derivatives.yaml. A window's sum (accumulated in float32 for float16 and
bfloat16, in int64 for int64) is divided by the override, by the window's extent clipped to
the padded input (count_include_pad), or by its count of input elements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64, int64
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_pooling_checks import PoolShape, pool_shape
from refimpl.ops._nn_pooling_window import (
    check_dim_size,
    compute_dtype,
    flat_valid,
    gather,
    planes_array,
    prepare_out,
    regular_axis,
    result,
    scatter_planes,
    wants_channels_last,
    windows,
)
from refimpl.ops._reduction import has_data, implements, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")

# The dtypes of torch's CPU kernels: AT_DISPATCH_FLOATING_TYPES_AND3(Long, Half, BFloat16)
# in 2d, AT_DISPATCH_FLOATING_TYPES_AND(Long) in 3d.
_DTYPES: Final[dict[int, frozenset[DType]]] = {
    2: frozenset({int64, float16, bfloat16, float32, float64}),
    3: frozenset({int64, float32, float64}),
}
# The AT_DISPATCH names torch's CPU kernels report.
_KERNEL_NAMES: Final[dict[tuple[int, bool], str]] = {
    (2, False): "avg_pool2d",
    (2, True): "avg_pool2d_backward",
    (3, False): "avg_pool3d_out_frame",
    (3, True): "avg_pool3d_backward_out_frame",
}


def _divisors(
    xp: Any, shape: PoolShape, count_include_pad: bool, divisor_override: int | None
) -> Any:
    """Each output element's divisor, shape `shape.out` (int64).

    Torch: the divide_factor of cpu_avg_pool / avg_pool3d_out_frame: the override, or
    (hend - hstart) * (wend - wstart) with the ends clipped to input + pad
    (count_include_pad), or after clipping both to the input.
    """
    rank = len(shape.out)
    if divisor_override is not None:
        return xp.full(shape.out, divisor_override, dtype=xp.int64)
    total = xp.ones((1,) * rank, dtype=xp.int64)
    for d in range(rank):
        n, k, s, p = shape.sizes[d], shape.kernel[d], shape.stride[d], shape.padding[d]
        counts = []
        for o in range(shape.out[d]):
            start = o * s - p
            end = min(start + k, n + p)
            if count_include_pad:
                counts.append(end - start)
            else:
                counts.append(min(end, n) - max(start, 0))
        along = [1] * rank
        along[d] = shape.out[d]
        total = total * xp.reshape(xp.asarray(counts, dtype=xp.int64), tuple(along))
    return total


def _truncated_divide(xp: Any, a: Any, b: Any) -> Any:
    # C++ integer division rounds toward zero; the standard's floor_divide rounds down.
    q = xp.floor_divide(a, b)
    return xp.where((q < 0) & (q * b != a), q + 1, q)


def _axes(xp: Any, shape: PoolShape) -> list[Any]:
    return [
        regular_axis(xp, n, o, k, s, p, 1)
        for n, o, k, s, p in zip(
            shape.sizes, shape.out, shape.kernel, shape.stride, shape.padding, strict=True
        )
    ]


# --- avg_pool2d, avg_pool3d ---------------------------------------------------------------------

avg_pool2d = defop(
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
)
avg_pool2d_out = defop(
    "avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
avg_pool3d = defop(
    "avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
)
avg_pool3d_out = defop(
    "avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _avg_shape(
    rank: int,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    divisor_override: int | None,
) -> PoolShape:
    """Torch: TORCH_META_FUNC(avg_pool2d) / (avg_pool3d): the arguments, "divisor must be
    not zero", then the shape checks."""
    return pool_shape(
        f"avg_pool{rank}d",
        self,
        kernel_size,
        stride,
        padding,
        None,
        ceil_mode,
        divisor_override=divisor_override,
    )


def _avg_pool(
    rank: int,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    out: TensorImpl | None,
) -> Any:
    """Each window's average. Torch: avg_pool2d_out_cpu (cpu_avg_pool,
    cpu_avg_pool_channels_last) / avg_pool3d_out_cpu_template (avg_pool3d_out_frame)."""
    shape = _avg_shape(rank, self, kernel_size, stride, padding, ceil_mode, divisor_override)
    full = shape.result_shape(self)
    # torch: the 2d result follows the input's memory format; the 3d one is contiguous.
    cl = rank == 2 and shape.channels_last and len(self._size) == 4
    prepare_out(out, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, out)
    if self._dtype not in _DTYPES[rank]:
        raise not_implemented(_KERNEL_NAMES[rank, False], self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(self._dtype)
    w = windows(xp, _axes(xp, shape))
    values = gather(xp, planes_array(self, rank, compute), w)
    zero = xp.zeros((), dtype=values.dtype)
    sums = xp.sum(xp.where(flat_valid(xp, w), values, zero), axis=-1)
    divisors = _divisors(xp, shape, count_include_pad, divisor_override)
    if compute is int64:
        averages = _truncated_divide(xp, sums, divisors)
    else:
        averages = sums / xp.astype(divisors, sums.dtype)
    return result(self, averages, full, self._dtype, cl, out)


@implements(avg_pool2d)
@implements(avg_pool2d_out)
def avg_pool2d_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: avg_pool2d / avg_pool2d.out."""
    return _avg_pool(
        2,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        out,
    )


@implements(avg_pool3d)
@implements(avg_pool3d_out)
def avg_pool3d_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: avg_pool3d / avg_pool3d.out."""
    return _avg_pool(
        3,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        out,
    )


@avg_pool2d.derivative("self")
def avg_pool2d_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    # torch: avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
    #   count_include_pad, divisor_override)
    return aten.avg_pool2d_backward.default(
        grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


@avg_pool3d.derivative("self")
def avg_pool3d_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    # torch: avg_pool3d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
    #   count_include_pad, divisor_override)
    return aten.avg_pool3d_backward.default(
        grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


# --- avg_pool2d_backward, avg_pool3d_backward ---------------------------------------------------

avg_pool2d_backward = defop(
    "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
    "int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor"
)
avg_pool2d_backward_grad_input = defop(
    "avg_pool2d_backward.grad_input(Tensor grad_output, Tensor self, int[2] kernel_size, "
    "int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, "
    "int? divisor_override, *, Tensor(a!) grad_input) -> Tensor(a!)"
)
avg_pool3d_backward = defop(
    "avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, "
    "int[3] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor"
)
avg_pool3d_backward_grad_input = defop(
    "avg_pool3d_backward.grad_input(Tensor grad_output, Tensor self, int[3] kernel_size, "
    "int[3] stride, int[3] padding, bool ceil_mode, bool count_include_pad, "
    "int? divisor_override, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _avg_pool_backward(
    rank: int,
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    grad_input: TensorImpl | None,
) -> Any:
    """Each output's gradient divided by its divisor and added over its window's input
    elements. Torch: TORCH_META_FUNC(avg_pool2d_backward) and cpu_avg_pool_backward;
    avg_pool3d_backward_out_cpu_template and avg_pool3d_backward_out_frame."""
    shape = _avg_shape(rank, self, kernel_size, stride, padding, ceil_mode, divisor_override)
    ndim = len(self._size)
    for offset, size in zip(range(rank + 1, 0, -1), (shape.channels, *shape.out), strict=True):
        check_dim_size(grad_output, ndim, ndim - offset, size)
    if rank == 2 and grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self._dtype)} for `gradOutput` but got dtype "
            f"{type_meta_name(grad_output._dtype)}"
        )
    full = self._size
    cl = rank == 2 and wants_channels_last(self) and ndim == 4
    prepare_out(grad_input, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, grad_input)
    if self._dtype not in _DTYPES[rank]:
        raise not_implemented(_KERNEL_NAMES[rank, True], self._dtype)
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found "
            f"{grad_output._dtype.scalar_name}"
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(self._dtype)
    w = windows(xp, _axes(xp, shape))
    grads = planes_array(grad_output, rank, compute)
    divisors = xp.reshape(
        _divisors(xp, shape, count_include_pad, divisor_override), (1, math.prod(shape.out))
    )
    if compute is int64:
        deltas = _truncated_divide(xp, grads, divisors)
    else:
        deltas = grads / xp.astype(divisors, grads.dtype)
    planes = grads.shape[0]
    # torch: grad_delta is stored in scalar_t, and grad_input accumulates in scalar_t.
    low = planes_array(self, rank, self._dtype)
    deltas = xp.astype(deltas, low.dtype) if compute is not self._dtype else deltas
    count = math.prod(w.kernel)
    outs = math.prod(w.out)
    valid = xp.reshape(flat_valid(xp, w), (1, outs, count))
    spread = xp.where(
        valid, xp.reshape(deltas, (planes, outs, 1)), xp.zeros((), dtype=deltas.dtype)
    )
    index = xp.broadcast_to(xp.reshape(w.positions, (1, outs, count)), spread.shape)
    summed = scatter_planes(xp, planes, math.prod(shape.sizes), index, spread, deltas.dtype)
    return result(self, summed, full, self._dtype, cl, grad_input)


@implements(avg_pool2d_backward)
@implements(avg_pool2d_backward_grad_input)
def avg_pool2d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: avg_pool2d_backward / .grad_input."""
    return _avg_pool_backward(
        2,
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        grad_input,
    )


@implements(avg_pool3d_backward)
@implements(avg_pool3d_backward_grad_input)
def avg_pool3d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: avg_pool3d_backward / .grad_input."""
    return _avg_pool_backward(
        3,
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        grad_input,
    )


@avg_pool2d_backward.derivative("grad_output")
def avg_pool2d_backward_grad_output(
    grad: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    # torch: avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    #   divisor_override)
    return aten.avg_pool2d.default(
        grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


@avg_pool3d_backward.derivative("grad_output")
def avg_pool3d_backward_grad_output(
    grad: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    # torch: avg_pool3d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    #   divisor_override)
    return aten.avg_pool3d.default(
        grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


@avg_pool2d_backward.derivative("self")
def avg_pool2d_backward_self_grad(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


avg_pool3d_backward.derivative("self")(avg_pool2d_backward_self_grad)


# --- avg_pool1d ---------------------------------------------------------------------------------

avg_pool1d = defop(
    "avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
    "bool ceil_mode=False, bool count_include_pad=True) -> Tensor"
)


@avg_pool1d.decomposition
def avg_pool1d_decomposition(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Any:
    """Torch: avg_pool1d in Pooling.cpp: checkDimRange(2, 3), each int[1] argument checked,
    then avg_pool2d over `self.unsqueeze(-2)` with a kernel of height 1, squeezed back."""
    ndim = len(self._size)
    if ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 "
            "'self' (while checking arguments for avg_pool1d)"
        )
    for name, values, allowed in (
        ("kernel_size", kernel_size, (1,)),
        ("stride", stride, (0, 1)),
        ("padding", padding, (1,)),
    ):
        if len(values) not in allowed:
            raise RuntimeError(
                f"avg_pool1d() argument '{name}' should contain one int (got {len(values)})"
            )
    kernel = [1, kernel_size[0]]
    strides = [1, stride[0]] if stride else kernel
    pooled = aten.avg_pool2d.default(
        aten.unsqueeze.default(self, -2),
        kernel,
        strides,
        [0, padding[0]],
        ceil_mode,
        count_include_pad,
    )
    return aten.squeeze.dim(pooled, -2)
