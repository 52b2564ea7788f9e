"""batch_norm_update_stats: the per-channel mean and biased variance of a batch, with the
running statistics updated in place; the one sync-batch-norm op torch runs on the CPU.

Torch: batch_norm_update_stats_cpu and batch_norm_cpu_update_stats_template in
aten/src/ATen/native/Normalization.cpp (the statistics from batch_norm_cpu_collect_stats,
the variance through the Var transform with eps 0). The other sync-batch-norm ops
(batch_norm_stats, batch_norm_elemt, batch_norm_gather_stats*, batch_norm_backward_*) have
CUDA kernels only, so a CPU tensor reaches NotImplementedError, as in torch.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, write_array
from refimpl.ops import data
from refimpl.ops._nn_normalization_common import make_result, param_dtype
from refimpl.ops._reduction import cast_to, input_array, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.nn_normalization_batch import wide_dtype
from refimpl.ops.reduction_moments import compute_dtype

# torch: AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ..., "batch_norm_update_stats_cpu").
_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})

batch_norm_update_stats = defop(
    "batch_norm_update_stats(Tensor input, Tensor? running_mean, Tensor? running_var, "
    "float momentum) -> (Tensor, Tensor)"
)


def batch_norm_update_stats_kernel(
    input: TensorImpl,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    momentum: float,
) -> Any:
    """(mean, biased variance) over every dim but 1, in the input's dtype (float32 when the
    running statistics are float32 for a float16/bfloat16 input); the running mean and the
    running variance (unbiased) move towards them by `momentum`. Torch:
    batch_norm_update_stats_cpu."""
    size = input._size
    channels = size[geometry.wrap_dim(1, len(size))]
    if input._dtype not in _KERNEL_DTYPES:
        raise not_implemented("batch_norm_update_stats_cpu", input._dtype)
    stat_dtype = param_dtype(input, running_mean, running_var)
    if geometry.numel(size) == 0:
        raise RuntimeError(
            "input tensor must have at least one element, but got input_sizes = "
            f"[{', '.join(map(str, size))}]"
        )
    backend = input._storage.backend
    assert backend is not None  # a CPU kernel (torch has no Meta kernel)
    xp = backend.xp
    n = geometry.numel(size) // channels
    axes = (0, *range(2, len(size)))
    compute = compute_dtype(input._dtype)
    wide = wide_dtype(compute)
    # torch: batch_norm_cpu_collect_stats: the mean summed in the accumulate type and kept in
    # the op-math dtype, the sum of squared deviations from it likewise (as native_batch_norm).
    mean_wide = xp.mean(input_array(input, wide), axis=axes)
    mean = (
        data.cast_array(xp, mean_wide, wide, compute, backend) if wide is not compute else mean_wide
    )
    shape = (1, channels) + (1,) * (len(size) - 2)
    squares = (input_array(input, compute) - xp.reshape(mean, shape)) ** 2
    squares_w = (
        data.cast_array(xp, squares, compute, wide, backend) if wide is not compute else squares
    )
    var_sum_w = xp.sum(squares_w, axis=axes)
    var_sum = (
        data.cast_array(xp, var_sum_w, wide, compute, backend) if wide is not compute else var_sum_w
    )
    # torch: the statistics are stored in the statistics' dtype (float16 stays float16 when
    # not mixed); the variance is var_sum / n in the accumulate type (double for float and
    # for the mixed kernel, which runs on float), the running updates in double (momentum is
    # a double).
    mean = _round_trip(xp, mean, compute, stat_dtype, backend)
    var_sum = _round_trip(xp, var_sum, compute, stat_dtype, backend)
    acc = float32 if stat_dtype in (float16, bfloat16) else float64
    var_sum_acc = (
        data.cast_array(xp, var_sum, compute, acc, backend) if acc is not compute else var_sum
    )
    variance = var_sum_acc / n
    if running_mean is not None:
        old = input_array(running_mean, float64)
        new_mean = _as_float64(xp, mean, compute, backend) * momentum + old * (1 - momentum)
        write_array(running_mean, cast_to(xp, new_mean, running_mean._dtype, backend))
    if running_var is not None:
        unbiased = var_sum_acc * (1 / (n - 1) if n > 1 else math.nan)
        if acc is not float64:
            unbiased = data.cast_array(xp, unbiased, acc, float64, backend)
        old = input_array(running_var, float64)
        new_var = unbiased * momentum + old * (1 - momentum)
        write_array(running_var, cast_to(xp, new_var, running_var._dtype, backend))
    return (
        make_result(input, mean, (channels,), stat_dtype),
        make_result(input, variance, (channels,), stat_dtype),
    )


batch_norm_update_stats.kernel(DispatchKey.CPU)(batch_norm_update_stats_kernel)


def _round_trip(xp: Any, a: Any, compute: DType, dtype: DType, backend: Any) -> Any:
    """`a` (in `compute`) rounded to `dtype` and read back in `compute`."""
    if dtype is compute:
        return a
    return data.cast_array(
        xp, data.cast_array(xp, a, compute, dtype, backend), dtype, compute, backend
    )


def _as_float64(xp: Any, a: Any, compute: DType, backend: Any) -> Any:
    return a if compute is float64 else data.cast_array(xp, a, compute, float64, backend)
