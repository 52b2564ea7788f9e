"""The aten ops of group normalization: native_group_norm, its backward, and the group_norm
decomposition.

Torch: aten/src/ATen/native/group_norm.cpp (native_group_norm, native_group_norm_backward,
check_group_norm_inputs, group_norm) and native/cpu/group_norm_kernel.cpp: the statistics of
each (sample, group) over its C/G channels and spatial positions, in float32 for a
float16/bfloat16 input, the output in the input's suggested memory format. Derivatives:
tools/autograd/derivatives.yaml (infinitely_differentiable_native_group_norm_backward when
grad mode is on, see Note [Normalization double backward]).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import bfloat16, float16, float32, float64
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.grad_mode import is_grad_enabled
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_normalization_common import (
    check_meta_floating,
    make_result,
    param_dtype,
    suggested_strides,
    write_outs,
)
from refimpl.ops._reduction import has_data, implements, input_array, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.pointwise import suggest_memory_format
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")

# The dtypes GroupNormKernelImpl dispatches on (AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)).
_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})


def _shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def check_group_norm_inputs(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    channels: int,
    num_groups: int,
) -> None:
    """Torch: check_group_norm_inputs in group_norm.cpp (its bias message shows the weight's
    shape, `[0]` when there is no weight: torch's text, kept)."""
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {_shape_text(input._size)} and num_groups={num_groups}"
        )
    if weight is not None and (len(weight._size) != 1 or weight._size[0] != channels):
        raise RuntimeError(
            "Expected weight to be a vector of size equal to the number of channels in input, "
            f"but got weight of shape {_shape_text(weight._size)} and input of shape "
            f"{_shape_text(input._size)}"
        )
    if bias is not None and (len(bias._size) != 1 or bias._size[0] != channels):
        shown = _shape_text(weight._size) if weight is not None else "[0]"
        raise RuntimeError(
            "Expected bias to be a vector of size equal to the number of channels in input, "
            f"but got bias of shape {shown} and input of shape {_shape_text(input._size)}"
        )


def _check(condition: bool, text: str) -> None:
    # torch: TORCH_CHECK(cond) without a message.
    if not condition:
        raise RuntimeError(
            f"Expected {text} to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )


def _is_contiguous_in_format(input: TensorImpl) -> bool:
    # torch: TensorBase::is_contiguous(input.suggest_memory_format()).
    if layout.suggests_channels_last(input._size, input._stride):
        return layout.is_channels_last(input._size, input._stride)
    return geometry.is_contiguous(input._size, input._stride)


# --- native_group_norm ---------------------------------------------------------------------

native_group_norm = defop(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, "
    "SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)"
)
native_group_norm_out = defop(
    "native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, "
    "SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) "
    "-> (Tensor(a!), Tensor(b!), Tensor(c!))"
)


def _group_norm(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[Any, Any, Any]:
    """(out, mean, rstd) with mean and rstd of shape (N, group).

    Torch: native_group_norm in group_norm.cpp: the checks, an input contiguous in its
    suggested memory format, the mixed-dtype rule (statistics in float32 for a float16/
    bfloat16 input with float32 parameters, else in the input's dtype).
    """
    check_group_norm_inputs(input, weight, bias, C, group)
    size = input._size
    stride = suggested_strides(input)
    if not has_data(input):
        check_meta_floating(input)
        stat_dtype = input._dtype
        # torch: the reference keeps the input's layout (elementwise ops on it).
        return (
            make_result(input, None, size, input._dtype, data.layout_strides(input, None)),
            make_result(input, None, (N, group), stat_dtype),
            make_result(input, None, (N, group), stat_dtype),
        )
    _check(geometry.numel(size) == N * C * HxW, "X.numel() == N * C * HxW")
    _check(_is_contiguous_in_format(input), "X.is_contiguous(memory_format)")
    stat_dtype = param_dtype(input, weight, bias)
    if input._dtype not in _KERNEL_DTYPES:
        raise not_implemented("GroupNormKernelImpl", input._dtype)
    xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(input._dtype)
    a = xp.reshape(input_array(input, compute), (N, group, -1) if N * C * HxW else (N, group, 0))
    if a.shape[2] == 0:
        mean = xp.zeros((N, group, 1), dtype=a.dtype)
        rstd = 1.0 / xp.sqrt(mean + eps)
    else:
        mean = xp.mean(a, axis=2, keepdims=True)
        var = xp.mean((a - mean) ** 2, axis=2, keepdims=True)
        rstd = 1.0 / xp.sqrt(var + eps)
    values = xp.reshape((a - mean) * rstd, (N, C, -1) if N * C * HxW else (N, C, HxW))
    if weight is not None:
        values = values * xp.reshape(input_array(weight, compute), (1, C, 1))
    if bias is not None:
        values = values + xp.reshape(input_array(bias, compute), (1, C, 1))
    return (
        make_result(input, values, size, input._dtype, stride),
        make_result(input, mean, (N, group), stat_dtype),
        make_result(input, rstd, (N, group), stat_dtype),
    )


@implements(native_group_norm)
def native_group_norm_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> Any:
    """Torch: native_group_norm (its CPU kernel; the Meta kernel keeps the input's dtype)."""
    return _group_norm(input, weight, bias, N, C, HxW, group, eps)


@implements(native_group_norm_out)
def native_group_norm_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: native_group_norm.out (the generated out= form)."""
    return write_outs(_group_norm(input, weight, bias, N, C, HxW, group, eps), (out0, out1, out2))


@native_group_norm.derivative("input", "weight", "bias")
def native_group_norm_backward_formula(
    grads: tuple[Tensor | None, ...],
    input: Tensor,
    result1: Tensor,
    result2: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: GradMode::is_enabled() || grads[1].defined() || grads[2].defined()
    #   ? infinitely_differentiable_native_group_norm_backward(grads[0], grads[1], grads[2],
    #       input, result1, result2, weight, N, C, HxW, group, eps, grad_input_mask)
    #   : grads[0].defined() ? native_group_norm_backward(grads[0].contiguous(
    #       input.suggest_memory_format()), input.contiguous(...), result1, result2, weight,
    #       N, C, HxW, group, grad_input_mask) : (undefined)
    grad, grad_mean, grad_rstd = grads
    if is_grad_enabled() or grad_mean is not None or grad_rstd is not None:
        return infinitely_differentiable_group_norm_backward(
            grad,
            grad_mean,
            grad_rstd,
            input,
            result1,
            result2,
            weight,
            N,
            C,
            HxW,
            group,
            grad_input_mask,
        )
    if grad is None:
        return None, None, None
    fmt = suggest_memory_format(input)
    return tuple(
        aten.native_group_norm_backward.default(
            aten.contiguous.default(grad, memory_format=fmt),
            aten.contiguous.default(input, memory_format=fmt),
            result1,
            result2,
            weight,
            N,
            C,
            HxW,
            group,
            list(grad_input_mask),
        )
    )


def infinitely_differentiable_group_norm_backward(
    grad: Tensor | None,
    grad_mean: Tensor | None,
    grad_rstd: Tensor | None,
    input: Tensor,
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """Torch: infinitely_differentiable_native_group_norm_backward in FunctionsManual.cpp,
    on aten calls: with x_hat = (x - mean) * rstd over each (sample, group) of n elements,
    dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) + dmean / n
         - drstd * rstd^3 * (x - mean) / n,  g = grad * weight,
    dweight = sum(grad * x_hat), dbias = sum(grad) per channel."""
    d = C // group
    x = aten.reshape.default(input, [N, group, d, HxW])
    mu = aten.reshape.default(mean, [N, group, 1, 1])
    r = aten.reshape.default(rstd, [N, group, 1, 1])
    centered = aten.sub.Tensor(x, mu)
    x_hat = aten.mul.Tensor(centered, r)
    dims = [2, 3]
    count = d * HxW
    g4 = None if grad is None else aten.reshape.default(grad, [N, group, d, HxW])
    dx = dw = db = None
    if mask[0]:
        terms = []
        if g4 is not None:
            g = (
                g4
                if weight is None
                else aten.mul.Tensor(g4, aten.reshape.default(weight, [1, group, d, 1]))
            )
            inner = aten.sub.Tensor(
                aten.sub.Tensor(g, aten.mean.dim(g, dims, True)),
                aten.mul.Tensor(x_hat, aten.mean.dim(aten.mul.Tensor(g, x_hat), dims, True)),
            )
            terms.append(aten.mul.Tensor(inner, r))
        if grad_mean is not None:
            dm = aten.div.Scalar(aten.reshape.default(grad_mean, [N, group, 1, 1]), count)
            terms.append(aten.expand.default(dm, [N, group, d, HxW]))
        if grad_rstd is not None:
            dr = aten.reshape.default(grad_rstd, [N, group, 1, 1])
            r3 = aten.mul.Tensor(aten.mul.Tensor(r, r), r)
            scale = aten.div.Scalar(aten.mul.Tensor(dr, r3), count)
            terms.append(aten.neg.default(aten.mul.Tensor(centered, scale)))
        if terms:
            total = terms[0]
            for t in terms[1:]:
                total = aten.add.Tensor(total, t)
            dx = aten.reshape.default(total, list(input.shape))
        else:
            dx = aten.zeros_like.default(input)
    if g4 is not None:
        if mask[1] and weight is not None:
            dw = aten.reshape.default(aten.sum.dim_IntList(aten.mul.Tensor(g4, x_hat), [0, 3]), [C])
        if mask[2]:
            db = aten.reshape.default(aten.sum.dim_IntList(g4, [0, 3]), [C])
    return dx, dw, db


# --- native_group_norm_backward ------------------------------------------------------------

native_group_norm_backward = defop(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, "
    "Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> "
    "(Tensor, Tensor, Tensor)"
)
native_group_norm_backward_out = defop(
    "native_group_norm_backward.out(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, "
    "Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)


def _group_norm_backward(
    grad_out: TensorImpl,
    input: TensorImpl,
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: list[bool],
) -> tuple[Any, Any, Any]:
    """Torch: native_group_norm_backward in group_norm.cpp (GroupNormBackwardKernelImpl);
    a weight gradient without a weight raises as torch's allocation from its options does."""
    if (output_mask[1] or output_mask[2]) and weight is None:
        raise RuntimeError("tensor does not have a device")
    size = input._size
    stride = suggested_strides(input)
    stat_dtype = input._dtype if weight is None else weight._dtype
    values: list[Any] = [None, None, None]
    if has_data(input):
        stat_dtype = param_dtype(input, weight)
        if input._dtype not in _KERNEL_DTYPES:
            raise not_implemented("GroupNormBackwardKernelImpl", input._dtype)
        xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
        compute = compute_dtype(input._dtype)
        d = C // group
        shape4 = (N, group, d, HxW)
        g = xp.reshape(input_array(grad_out, compute), shape4)
        x = xp.reshape(input_array(input, compute), shape4)
        mu = xp.reshape(input_array(mean, compute), (N, group, 1, 1))
        r = xp.reshape(input_array(rstd, compute), (N, group, 1, 1))
        x_hat = (x - mu) * r
        gw = g
        if weight is not None:
            gw = g * xp.reshape(input_array(weight, compute), (1, group, d, 1))
        if d * HxW:
            dx = r * (
                gw
                - xp.mean(gw, axis=(2, 3), keepdims=True)
                - x_hat * xp.mean(gw * x_hat, axis=(2, 3), keepdims=True)
            )
        else:
            dx = gw
        values = [
            dx,
            xp.reshape(xp.sum(g * x_hat, axis=(0, 3)), (C,)),
            xp.reshape(xp.sum(g, axis=(0, 3)), (C,)),
        ]
    grads: list[Any] = [None, None, None]
    if output_mask[0]:
        grads[0] = make_result(input, values[0], size, input._dtype, stride)
    if output_mask[1]:
        grads[1] = make_result(input, values[1], (C,), stat_dtype)
    if output_mask[2]:
        grads[2] = make_result(input, values[2], (C,), stat_dtype)
    return grads[0], grads[1], grads[2]


@implements(native_group_norm_backward)
def native_group_norm_backward_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: list[bool],
) -> Any:
    """Torch: native_group_norm_backward (its CPU and Meta kernels)."""
    return _group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)


@implements(native_group_norm_backward_out)
def native_group_norm_backward_out_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: list[bool],
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: native_group_norm_backward.out (the generated out= form)."""
    results = _group_norm_backward(
        grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask
    )
    outs = (out0, out1, out2)
    for r, o in zip(results, outs, strict=True):
        if r is not None:
            write_outs((r,), (o,))
    return outs


# torch: derivatives.yaml declares native_group_norm_backward's derivative
# not_implemented ("derivative for aten::native_group_norm_backward is not implemented");
# refimpl declares none either, so a double backward through it raises the same.


# --- group_norm ----------------------------------------------------------------------------

group_norm = defop(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor"
)


@group_norm.decomposition
def group_norm_decomposition(
    input: TensorImpl,
    num_groups: int,
    weight: TensorImpl | None = None,
    bias: TensorImpl | None = None,
    eps: float = 1e-05,
    cudnn_enabled: bool = True,
) -> Any:
    """Torch: group_norm in group_norm.cpp: the checks, the input made contiguous in its
    suggested memory format, native_group_norm's first output."""
    size = input._size
    n = size[geometry.wrap_dim(0, len(size))]
    c = size[geometry.wrap_dim(1, len(size))]
    check_group_norm_inputs(input, weight, bias, c, num_groups)
    hxw = geometry.numel(size[2:])
    x = aten.contiguous.default(input, memory_format=suggest_memory_format(input))
    w = None if weight is None else aten.contiguous.default(weight)
    b = None if bias is None else aten.contiguous.default(bias)
    return aten.native_group_norm.default(x, w, b, n, c, hxw, num_groups, eps)[0]
