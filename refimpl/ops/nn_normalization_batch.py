"""The aten ops of batch and instance normalization: native_batch_norm and its backward,
batch_norm_backward, and the batch_norm, _batch_norm_impl_index(_backward) and instance_norm
decompositions (the `_native_batch_norm_legit` and `_batch_norm_with_update` families are in
nn_normalization_batch_variants).

Torch: aten/src/ATen/native/Normalization.cpp (batch_norm_cpu, batch_norm_backward_cpu,
_batch_norm_impl_index, instance_norm) and native/cpu/batch_norm_kernel.cpp: statistics over
every dim but the channel dim (1), the running statistics updated in place with `momentum`
(the unbiased variance for the running variance), evaluation with the running statistics.
Derivatives: tools/autograd/derivatives.yaml and batchnorm_double_backward in
FunctionsManual.cpp (see Note [Normalization double backward] in _nn_normalization_common.py).
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64, uint8
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_normalization_common import (
    batchnorm_double_backward,
    check_meta_floating,
    make_result,
    param_dtype,
    suggested_strides,
    undefined_statistics,
    write_kernel_outs,
    write_outs,
)
from refimpl.ops._reduction import cast_to, has_data, implements, input_array, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")

# The dtypes batch_norm_cpu dispatches on (AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)).
_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})

# torch: toAccumulateType(dtype, is_cuda=false): the dtype of the empty statistics of an
# empty input in _batch_norm_impl_index.
_CPU_ACCUMULATE: Final[dict[DType, DType]] = {
    float16: float32,
    bfloat16: float32,
    float32: float64,
    float64: float64,
}


def _channel_shape(input: TensorImpl) -> tuple[int, ...]:
    """The shape a per-channel vector takes to broadcast against `input` (1, C, 1, ...)."""
    ndim = len(input._size)
    return (1, input._size[1]) + (1,) * (ndim - 2)


def _stat_axes(ndim: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, ndim))


def _vector(t: TensorImpl, dtype: DType, shape: tuple[int, ...], xp: Any) -> Array:
    return xp.reshape(input_array(t, dtype), shape)


def batch_norm_forward(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
    update: bool = True,
) -> tuple[Any, Any, Any, Array | None, Array | None]:
    """(out, save_mean, save_invstd, new running mean, new running var): the last two are
    arrays (None for meta or evaluation), written into the running statistics when `update`.

    Torch: batch_norm_cpu in Normalization.cpp: the mixed-dtype rule over (weight, bias,
    running_mean, running_var), the output in the input's suggested memory format, empty
    (size 0) saved statistics in evaluation.
    """
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    size = input._size
    channels = size[geometry.wrap_dim(1, len(size))]
    stride = suggested_strides(input)
    if not has_data(input):
        check_meta_floating(input)
        # torch: the Meta kernel (torch/_decomp native_batch_norm_helper) saves per-channel
        # statistics in the computation dtype, in evaluation too.
        stat_dtype = compute_dtype(input._dtype)
        stat_size = (channels,)
        return (
            make_result(input, None, size, input._dtype, stride),
            make_result(input, None, stat_size, stat_dtype),
            make_result(input, None, stat_size, stat_dtype),
            None,
            None,
        )
    stat_dtype = param_dtype(input, weight, bias, running_mean, running_var)
    if input._dtype not in _KERNEL_DTYPES:
        raise not_implemented("batch_norm", input._dtype)
    if training and geometry.numel(size) == 0:
        raise RuntimeError(
            "input tensor must have at least one element, but got input_sizes = "
            f"[{', '.join(map(str, size))}]"
        )
    if not training and running_mean is None:
        # Differs: torch's batch_norm_cpu reads the undefined statistics (a crash); refimpl
        # raises the error of the batch_norm composite.
        raise RuntimeError("running_mean must be defined in evaluation mode")
    xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(input._dtype)
    shape = _channel_shape(input)
    axes = _stat_axes(len(size))
    x = input_array(input, compute)
    new_mean = new_var = None
    if training:
        # torch: batch_norm_cpu_collect_stats: the mean summed in acc_type (double for
        # float) and kept in the op-math dtype, the sum of squared deviations from it
        # likewise; the running statistics update from these, while the saved mean and
        # invstd (and the output, measured bit for bit) use them rounded to the statistics'
        # dtype (float16/bfloat16 when not mixed).
        backend = input._storage.backend
        assert backend is not None
        n = geometry.numel(size) // max(channels, 1)
        wide = wide_dtype(compute)
        xw = input_array(input, wide)
        mean_c = _rounded(
            xp, xp.mean(xw, axis=axes, keepdims=True), wide, compute, backend, compute
        )
        squares = (x - mean_c) ** 2
        squares_w = (
            data.cast_array(xp, squares, compute, wide, backend) if wide is not compute else squares
        )
        var_sum = _rounded(
            xp, xp.sum(squares_w, axis=axes, keepdims=True), wide, compute, backend, compute
        )
        invstd_c = 1.0 / xp.sqrt(var_sum / n + eps)
        mean = _rounded(xp, mean_c, compute, stat_dtype, backend, compute)
        invstd = _rounded(xp, invstd_c, compute, stat_dtype, backend, compute)
        save_mean = xp.reshape(mean, (channels,))
        save_invstd = xp.reshape(invstd, (channels,))
        if running_mean is not None and running_var is not None:
            unbiased = xp.reshape(var_sum, (channels,)) * (1 / (n - 1) if n > 1 else math.nan)
            rm = input_array(running_mean, compute)
            rv = input_array(running_var, compute)
            new_mean = rm * (1 - momentum) + xp.reshape(mean_c, (channels,)) * momentum
            new_var = rv * (1 - momentum) + unbiased * momentum
    else:
        assert running_mean is not None and running_var is not None
        mean = _vector(running_mean, compute, shape, xp)
        invstd = 1.0 / xp.sqrt(_vector(running_var, compute, shape, xp) + eps)
        save_mean = save_invstd = xp.zeros((0,), dtype=x.dtype)
    values = (x - mean) * invstd
    if weight is not None:
        values = values * _vector(weight, compute, shape, xp)
    if bias is not None:
        values = values + _vector(bias, compute, shape, xp)
    if update and new_mean is not None and new_var is not None:
        backend = input._storage.backend
        assert backend is not None and running_mean is not None and running_var is not None
        write_array(running_mean, cast_to(xp, new_mean, running_mean._dtype, backend))
        write_array(running_var, cast_to(xp, new_var, running_var._dtype, backend))
    stat_size = tuple(save_mean.shape)
    return (
        make_result(input, values, size, input._dtype, stride),
        make_result(input, save_mean, stat_size, stat_dtype),
        make_result(input, save_invstd, stat_size, stat_dtype),
        new_mean,
        new_var,
    )


def wide_dtype(compute: DType) -> DType:
    """The dtype torch's CPU batch norm sums in (acc_type: double for float)."""
    return float64 if compute is float32 else compute


def _rounded(xp: Any, a: Array, source: DType, dtype: DType, backend: Any, compute: DType) -> Array:
    """`a` (in `source`) rounded to `dtype` and read back in `compute`."""
    low = data.cast_array(xp, a, source, dtype, backend) if source is not dtype else a
    return data.cast_array(xp, low, dtype, compute, backend) if dtype is not compute else low


def reserve(input: TensorImpl) -> Any:
    # torch: at::empty({0}, input.options().dtype(kByte)), the reserve of the cuDNN path.
    backend = input._storage.backend
    empty = None if backend is None else backend.xp.zeros((0,))
    return make_result(input, empty, (0,), uint8)


# --- native_batch_norm ---------------------------------------------------------------------

native_batch_norm = defop(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"
)
native_batch_norm_out = defop(
    "native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, *, Tensor(a!) out, "
    "Tensor(b!) save_mean, Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)


@implements(native_batch_norm)
def native_batch_norm_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: native_batch_norm (batch_norm_cpu; its Meta kernel)."""
    return batch_norm_forward(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[:3]


@implements(native_batch_norm_out)
def native_batch_norm_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
    *,
    out: TensorImpl,
    save_mean: TensorImpl,
    save_invstd: TensorImpl,
) -> Any:
    """Torch: native_batch_norm.out (batch_norm_cpu_out)."""
    results = batch_norm_forward(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return write_kernel_outs(results[:3], (out, save_mean, save_invstd))


def native_batch_norm_backward_call(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor,
    save_invstd: Tensor,
    training: bool,
    eps: float,
    mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    return tuple(
        aten.native_batch_norm_backward.default(
            grad,
            input,
            weight,
            running_mean,
            running_var,
            save_mean,
            save_invstd,
            training,
            eps,
            list(mask),
        )
    )


@native_batch_norm.derivative("input", "weight", "bias")
def native_batch_norm_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    result1: Tensor,
    result2: Tensor,
    training: bool,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: native_batch_norm_backward(grad, input, weight, running_mean, running_var,
    #   result1, result2, training, eps, grad_input_mask)
    return native_batch_norm_backward_call(
        grad,
        input,
        weight,
        running_mean,
        running_var,
        result1,
        result2,
        training,
        eps,
        grad_input_mask,
    )


non_differentiable_outputs("aten::native_batch_norm", "result1", "result2")


# --- native_batch_norm_backward, batch_norm_backward ---------------------------------------

native_batch_norm_backward = defop(
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, "
    "bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)"
)
native_batch_norm_backward_out = defop(
    "native_batch_norm_backward.out(Tensor grad_out, Tensor input, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, "
    "bool train, float eps, bool[3] output_mask, *, Tensor(a!) out0, Tensor(b!) out1, "
    "Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)
batch_norm_backward = defop(
    "batch_norm_backward(Tensor grad_out, Tensor input, Tensor weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_var, bool update, float eps, "
    "bool[3] output_mask, Tensor reserve) -> (Tensor, Tensor, Tensor)"
)


def _batch_norm_backward(
    grad_out: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    save_mean: TensorImpl | None,
    save_invstd: TensorImpl | None,
    train: bool,
    eps: float,
    output_mask: list[bool],
) -> tuple[Any, Any, Any]:
    """(grad input, grad weight, grad bias), None where `output_mask` says no.

    Torch: batch_norm_backward_cpu: in training the saved statistics,
    dx = invstd * w * (g - mean(g) - x_hat * mean(g * x_hat)); in evaluation the running
    ones, dx = g * invstd * w; dweight = sum(g * x_hat), dbias = sum(g) per channel.
    """
    size = input._size
    channels = size[geometry.wrap_dim(1, len(size))]
    stride = suggested_strides(input)
    if not has_data(input):
        stat_dtype = weight._dtype if weight is not None else input._dtype
        values: list[Any] = [None, None, None]
    else:
        stat_dtype = param_dtype(input, weight)
        if input._dtype not in _KERNEL_DTYPES:
            raise not_implemented("batch_norm_backward_cpu", input._dtype)
        xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
        compute = compute_dtype(input._dtype)
        shape = _channel_shape(input)
        axes = _stat_axes(len(size))
        g = input_array(grad_out, compute)
        x = input_array(input, compute)
        if train:
            if save_mean is None or save_invstd is None:
                raise undefined_statistics("save_mean", "training")
            mean = _vector(save_mean, compute, shape, xp)
            invstd = _vector(save_invstd, compute, shape, xp)
        else:
            if running_mean is None or running_var is None:
                raise undefined_statistics("running_mean", "evaluation")
            mean = _vector(running_mean, compute, shape, xp)
            invstd = 1.0 / xp.sqrt(_vector(running_var, compute, shape, xp) + eps)
        w = 1.0 if weight is None else _vector(weight, compute, shape, xp)
        x_hat = (x - mean) * invstd
        dx = None
        if output_mask[0]:
            if train:
                dx = (
                    g
                    - xp.mean(g, axis=axes, keepdims=True)
                    - x_hat * xp.mean(g * x_hat, axis=axes, keepdims=True)
                ) * (invstd * w)
            else:
                dx = g * (invstd * w)
        values = [
            dx,
            xp.reshape(xp.sum(g * x_hat, axis=axes), (channels,)),
            xp.reshape(xp.sum(g, axis=axes), (channels,)),
        ]
    grads: list[Any] = [None, None, None]
    if output_mask[0]:
        grads[0] = make_result(input, values[0], size, input._dtype, stride)
    if output_mask[1]:
        grads[1] = make_result(input, values[1], (channels,), stat_dtype)
    if output_mask[2]:
        grads[2] = make_result(input, values[2], (channels,), stat_dtype)
    return grads[0], grads[1], grads[2]


@implements(native_batch_norm_backward)
def native_batch_norm_backward_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    save_mean: TensorImpl | None,
    save_invstd: TensorImpl | None,
    train: bool,
    eps: float,
    output_mask: list[bool],
) -> Any:
    """Torch: native_batch_norm_backward (batch_norm_backward_cpu; its Meta kernel)."""
    return _batch_norm_backward(
        grad_out,
        input,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_invstd,
        train,
        eps,
        output_mask,
    )


@implements(native_batch_norm_backward_out)
def native_batch_norm_backward_out_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    save_mean: TensorImpl | None,
    save_invstd: TensorImpl | None,
    train: bool,
    eps: float,
    output_mask: list[bool],
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: native_batch_norm_backward.out (the generated out= form)."""
    results = _batch_norm_backward(
        grad_out,
        input,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_invstd,
        train,
        eps,
        output_mask,
    )
    outs = (out0, out1, out2)
    for r, o in zip(results, outs, strict=True):
        if r is not None:
            write_outs((r,), (o,))
    return outs


@implements(batch_norm_backward)
def batch_norm_backward_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    save_mean: TensorImpl | None,
    save_var: TensorImpl | None,
    update: bool,
    eps: float,
    output_mask: list[bool],
    reserve: TensorImpl,
) -> Any:
    """Torch: batch_norm_backward (_new_batch_norm_backward_cpu: batch_norm_backward_cpu)."""
    return _batch_norm_backward(
        grad_out,
        input,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_var,
        update,
        eps,
        output_mask,
    )


@native_batch_norm_backward.derivative("input", "weight", "grad_out")
def native_batch_norm_backward_double(
    grads: tuple[Tensor | None, ...],
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor | None,
    save_invstd: Tensor | None,
    train: bool,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: batchnorm_double_backward(input, weight, grads[0], grads[1], grads[2], grad_out,
    #   running_mean, running_var, train, eps, save_mean, save_invstd, grad_input_mask)
    return batchnorm_double_backward(
        input,
        weight,
        grads,
        grad_out,
        running_mean,
        running_var,
        train,
        eps,
        save_mean,
        save_invstd,
        grad_input_mask,
    )


@batch_norm_backward.derivative("input", "weight", "grad_out")
def batch_norm_backward_double(
    grads: tuple[Tensor | None, ...],
    grad_out: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor | None,
    save_var: Tensor | None,
    update: bool,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: batchnorm_double_backward(input, weight, grads[0], grads[1], grads[2], grad_out,
    #   running_mean, running_var, update, eps, save_mean, save_var, grad_input_mask)
    return batchnorm_double_backward(
        input,
        weight,
        grads,
        grad_out,
        running_mean,
        running_var,
        update,
        eps,
        save_mean,
        save_var,
        grad_input_mask,
    )


# --- _batch_norm_impl_index, batch_norm, instance_norm -------------------------------------

_batch_norm_impl_index = defop(
    "_batch_norm_impl_index(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> "
    "(Tensor, Tensor, Tensor, Tensor, int)"
)


def _check_features(name: str, expected: int, t: TensorImpl) -> None:
    # torch: check_dims_match_num_input_features in Normalization.cpp.
    actual = geometry.numel(t._size)
    if actual != expected:
        raise RuntimeError(f"{name} should contain {expected} elements not {actual}")


@_batch_norm_impl_index.decomposition
def _batch_norm_impl_index_decomposition(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Any:
    """Torch: _batch_norm_impl_index in Normalization.cpp: an empty input gives a clone
    scaled by weight[0] and shifted by bias[0]; otherwise the size checks, then on the CPU
    native_batch_norm (impl index 0) with an empty uint8 reserve."""
    device = input._storage.device
    if geometry.numel(input._size) == 0:
        # torch reads sizes()[1] unchecked: a 1-d empty input gets 0 features (measured).
        features = input._size[1] if len(input._size) > 1 else 0
        reserve = aten.empty.memory_format([0], dtype=uint8, device=device)
        accumulate = _CPU_ACCUMULATE.get(input._dtype, input._dtype)
        save_mean = aten.empty.memory_format([features], dtype=accumulate, device=device)
        save_var = aten.empty.memory_format([features], dtype=accumulate, device=device)
        out = aten.clone.default(input)
        if weight is not None:
            out = aten.mul.Tensor(out, aten.select.int(weight, 0, 0))
        if bias is not None:
            out = aten.add.Tensor(out, aten.select.int(bias, 0, 0))
        return out, save_mean, save_var, reserve, 0
    features = input._size[geometry.wrap_dim(1, len(input._size))]
    if running_mean is not None:
        _check_features("running_mean", features, running_mean)
    elif not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is not None:
        _check_features("running_var", features, running_var)
    elif not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    if weight is not None:
        _check_features("weight", features, weight)
    if bias is not None:
        _check_features("bias", features, bias)
    reserve = aten.empty.memory_format([0], dtype=uint8, device=device)
    out, save_mean, save_invstd = aten.native_batch_norm.default(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return out, save_mean, save_invstd, reserve, 0


_batch_norm_impl_index_backward = defop(
    "_batch_norm_impl_index_backward(int impl_index, Tensor input, Tensor grad_output, "
    "Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, "
    "Tensor? save_var_transform, bool train, float eps, bool[3] output_mask, "
    "Tensor reservedSpace) -> (Tensor, Tensor, Tensor)"
)


@_batch_norm_impl_index_backward.decomposition
def _batch_norm_impl_index_backward_decomposition(
    impl_index: int,
    input: TensorImpl,
    grad_output: TensorImpl,
    weight: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    save_mean: TensorImpl | None,
    save_var_transform: TensorImpl | None,
    train: bool,
    eps: float,
    output_mask: list[bool],
    reservedSpace: TensorImpl,
) -> Any:
    """Torch: _batch_norm_impl_index_backward in Normalization.cpp (impl index 0, the native
    path: native_batch_norm_backward; an empty input gives empty gradients)."""
    return aten.native_batch_norm_backward.default(
        grad_output,
        input,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_var_transform,
        train,
        eps,
        output_mask,
    )


batch_norm = defop(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> "
    "Tensor"
)


@batch_norm.decomposition
def batch_norm_decomposition(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Any:
    """Torch: batch_norm in Normalization.cpp (_batch_norm_impl_index's first output)."""
    return aten._batch_norm_impl_index.default(
        input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
    )[0]


instance_norm = defop(
    "instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
    "bool cudnn_enabled) -> Tensor"
)


@instance_norm.decomposition
def instance_norm_decomposition(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Any:
    """Torch: instance_norm in Normalization.cpp: batch_norm over the input viewed as one
    batch of N*C channels, the parameters and running statistics repeated N times; the
    running statistics then get the mean over the batch of the updated ones."""
    if not (use_input_stats or (running_mean is not None and running_var is not None)):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    size = list(input._size)
    b = size[geometry.wrap_dim(0, len(size))]
    c = size[geometry.wrap_dim(1, len(size))]
    shape = [1, b * c, *size[2:]]

    def repeated(t: TensorImpl | None) -> Any:
        return None if t is None else aten.repeat.default(t, [b])

    weight_, bias_ = repeated(weight), repeated(bias)
    mean_, var_ = repeated(running_mean), repeated(running_var)
    reshaped = aten.view.default(aten.contiguous.default(input), shape)
    out = aten.batch_norm.default(
        reshaped, weight_, bias_, mean_, var_, use_input_stats, momentum, eps, cudnn_enabled
    )
    if use_input_stats:
        for stat, updated in ((running_mean, mean_), (running_var, var_)):
            if stat is not None:
                # torch: at::alias(running_mean).copy_(running_mean_.view({b, c}).mean(0));
                # the alias (the call's object) is made before its argument.
                target = aten.alias.default(stat)
                batch = aten.mean.dim(aten.view.default(updated, [b, c]), [0], False)
                aten.copy_.default(target, batch)
    return aten.view.default(out, size)
