"""What the loss ops share: the `reduction` enum, apply_loss_reduction, the dtype check of
their CPU kernels, and writing a computed loss into an `out=` tensor.

Torch: aten/src/ATen/core/Reduction.h (the enum), apply_loss_reduction in
aten/src/ATen/native/Loss.cpp, and the AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)
switches of the loss kernels in aten/src/ATen/native/cpu/BinaryOpsKernel.cpp.
"""

from __future__ import annotations

import enum
import math
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64
from refimpl._base.promotion import can_cast, promote_types
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._outputs import format_shape, resize_output
from refimpl.ops._reduction import not_implemented

aten: Final = namespace("aten")

# The dtypes the loss kernels dispatch on (AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)).
FLOATING_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})


class Reduction(enum.IntEnum):
    """The `int reduction` of the loss schemas. Torch: at::Reduction::Reduction."""

    NONE = 0
    MEAN = 1
    SUM = 2


def apply_loss_reduction(loss: Any, reduction: int) -> Any:
    """`loss.mean()` for MEAN, `loss.sum()` for SUM, `loss` for any other value.

    Torch: apply_loss_reduction in aten/src/ATen/native/Loss.cpp.
    """
    if reduction == Reduction.MEAN:
        return aten.mean.default(loss)
    if reduction == Reduction.SUM:
        return aten.sum.default(loss)
    return loss


def reduce_into(loss: Any, reduction: int, out: TensorImpl) -> Any:
    """`out` holding the reduced `loss`, as the out= kernels do: at::mean_out / at::sum_out
    over every dim (their dtype check and resize included)."""
    if reduction == Reduction.MEAN:
        return aten.mean.out(loss, [], False, dtype=None, out=out)
    return aten.sum.IntList_out(loss, [], False, dtype=None, out=out)


def check_floating(kernel_name: str, *tensors: TensorImpl) -> DType:
    """The dtype the tensors promote to; torch's AT_DISPATCH error unless it is floating."""
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        dtype = promote_types(dtype, t._dtype)
    if dtype not in FLOATING_KERNEL_DTYPES:
        raise not_implemented(kernel_name, dtype)
    return dtype


def check_reduction_assert(reduction: int, line: int) -> None:
    """The internal assert of the out= kernels that reduce (mse_loss_out, smooth_l1_loss_out)
    on a reduction other than none, mean and sum. Torch: TORCH_INTERNAL_ASSERT in Loss.cpp
    (the message names its source line)."""
    if reduction not in (Reduction.MEAN, Reduction.SUM):
        raise RuntimeError(
            "reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL ASSERT "
            f'FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/Loss.cpp":{line}, please '
            "report a bug to PyTorch. "
        )


def check_can_cast_dtype(result: DType, out: DType) -> None:
    """TensorIterator's check that the computed dtype casts safely to an output's."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"result type {result.scalar_name} can't be cast to the desired output "
            f"type {out.scalar_name}"
        )


def check_can_cast(value: TensorImpl, out: TensorImpl) -> None:
    """`check_can_cast_dtype` for a computed tensor and an out= tensor."""
    check_can_cast_dtype(value._dtype, out._dtype)


def write_out(value: TensorImpl, out: TensorImpl) -> TensorImpl:
    """`out` resized to `value`'s shape and holding it, as a TensorIterator out= with
    cast_common_dtype_to_outputs does (the common dtype must cast safely to out's)."""
    check_can_cast(value, out)
    resize_output(out, value._size)
    aten.copy_.default(out, value)
    return out


def numel(t: TensorImpl | Any) -> int:
    """The element count of a TensorImpl (kernels) or a Tensor (derivative formulas)."""
    return math.prod(t._size if isinstance(t, TensorImpl) else t.shape)


def norm(t: TensorImpl | Any, reduction: int) -> float:
    """The scale a loss's gradient takes: 1/numel for MEAN, else 1. Torch: the `norm` of the
    backward kernels in Loss.cpp (a zero numel gives inf, as its division does)."""
    if reduction != Reduction.MEAN:
        return 1.0
    n = numel(t)
    return 1.0 / n if n else math.inf


def check_inplace_broadcast(self: TensorImpl, other: TensorImpl) -> None:
    """The error of `self.op_(other)` when `other` broadcasts `self` larger, raised before
    anything is written. Torch: TensorIterator's compute_shape for an in-place op."""
    shape = data.broadcast_shapes(self._size, other._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {format_shape(self._size)} doesn't match the broadcast shape "
            f"{format_shape(shape)}"
        )
