"""The aten ops of layer and RMS normalization (this module), batch and instance normalization
(nn_normalization_batch) and group normalization (nn_normalization_group).

Torch: aten/src/ATen/native/layer_norm.cpp (layer_norm_cpu, layer_norm_backward_cpu,
_check_layer_norm_inputs, rms_norm_symint) and native/cpu/layer_norm_kernel.cpp (the row
moments computed in float32 for float16/bfloat16 inputs, rounded once). Derivatives:
tools/autograd/derivatives.yaml and layer_norm_double_backward in FunctionsManual.cpp (see
Note [Normalization double backward] in _nn_normalization_common.py).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, complex64, complex128, float16, float32, float64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (
    nn_normalization_batch,  # noqa: F401  # registers its ops
    nn_normalization_batch_variants,  # noqa: F401  # registers its ops
    nn_normalization_group,  # noqa: F401  # registers its ops
)
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._exact import fma, fma_float32
from refimpl.ops._nn_normalization_common import (
    check_meta_floating,
    make_result,
    normalization_double_backward,
    param_dtype,
    write_outs,
)
from refimpl.ops._reduction import has_data, implements, input_array, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")

# The dtypes LayerNormKernelImpl dispatches on (AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)).
_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})


def _shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def check_layer_norm_inputs(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    rms: bool = False,
) -> int:
    """The first normalized dim, after torch's checks.

    Torch: _check_layer_norm_inputs (and _check_rms_norm_inputs_symint, whose input-shape
    message writes `[*5]` where layer norm's writes `[*, 5]`) in layer_norm.h.
    """
    shown = _shape_text(normalized_shape)
    if not normalized_shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            f"least one element, but got normalized_shape = {shown}"
        )
    normalized = tuple(normalized_shape)
    if weight is not None and weight._size != normalized:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{_shape_text(weight._size)} and normalized_shape = {shown}"
        )
    if bias is not None and bias._size != normalized:
        raise RuntimeError(
            "Expected bias to be of same shape as normalized_shape, but got bias of shape "
            f"{_shape_text(bias._size)} and normalized_shape = {shown}"
        )
    ndim = len(input._size)
    axis = ndim - len(normalized)
    if axis < 0 or input._size[axis:] != normalized:
        star = "*" if rms else "*, "
        raise RuntimeError(
            f"Given normalized_shape={shown}, expected input with shape [{star}"
            f"{shown[1:-1]}], but got input of size{_shape_text(input._size)}"
        )
    return axis


# --- native_layer_norm ---------------------------------------------------------------------

native_layer_norm = defop(
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)"
)
native_layer_norm_out = defop(
    "native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
    "Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))"
)


def _layer_norm(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    eps: float,
) -> tuple[Any, Any, Any]:
    """(out, mean, rstd): `input` normalized over its last len(normalized_shape) dims.

    Torch: layer_norm_cpu: the checks, the mixed-dtype rule (mean and rstd in float32 for a
    float16/bfloat16 input with float32 parameters, else in the input's dtype), a contiguous
    result; the Meta kernel (the reference in torch/_refs) keeps mean and rstd in the
    computation dtype and makes no dtype check.
    """
    axis = check_layer_norm_inputs(input, normalized_shape, weight, bias)
    size = input._size
    stat_shape = size[:axis] + (1,) * (len(size) - axis)
    if not has_data(input):
        check_meta_floating(input)
        stat_dtype = compute_dtype(input._dtype) if input._dtype in _KERNEL_DTYPES else input._dtype
        return (
            make_result(input, None, size, input._dtype),
            make_result(input, None, stat_shape, stat_dtype),
            make_result(input, None, stat_shape, stat_dtype),
        )
    stat_dtype = param_dtype(input, weight, bias)
    if input._dtype not in _KERNEL_DTYPES:
        raise not_implemented("LayerNormKernelImpl", input._dtype)
    xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(input._dtype)
    rows = geometry.numel(size[:axis])
    cols = geometry.numel(size[axis:])
    a = xp.reshape(input_array(input, compute), (rows, cols))
    w = None if weight is None else xp.reshape(input_array(weight, compute), (1, cols))
    b = None if bias is None else xp.reshape(input_array(bias, compute), (1, cols))
    if cols == 0:
        # torch: an empty row has mean 0 and a NaN rstd.
        mean = xp.zeros((rows, 1), dtype=a.dtype)
        rstd = xp.full((rows, 1), math.nan, dtype=a.dtype)
        values = a
    else:
        # sum / cols: xp.mean's rounding (NumPy's mean divides the sum), without its wrapper.
        mean = xp.sum(a, axis=1, keepdims=True) / cols
        centred = a - mean
        rstd = 1.0 / xp.sqrt(xp.sum(centred * centred, axis=1, keepdims=True) / cols + eps)
        if compute is input._dtype:
            values = _affine(xp, centred, rstd, w, b)
        else:
            values = _affine_reduced(xp, a, mean, rstd, w, b)
    return (
        make_result(input, values, size, input._dtype),
        make_result(input, mean, stat_shape, stat_dtype),
        make_result(input, rstd, stat_shape, stat_dtype),
    )


def _fused(xp: Any, a: Any, b: Any, c: Any) -> Any:
    """`a * b + c` rounded once, as torch's kernels compiled with FMA contraction compute it."""
    return (fma_float32 if a.dtype == xp.float32 else fma)(xp, a, b, c)


def _affine(xp: Any, centred: Any, rstd: Any, w: Any | None, b: Any | None) -> Any:
    """`(x - mean) * rstd * w + b` as LayerNormKernelImplInternal computes it for float32 and
    float64: `(x - mean) * rstd` rounded, then the parameters applied with one fused
    multiply-add (the compiler contracts the scalar loop and the vectorized map3; an absent
    weight's `* 1` folds away, so a bias alone fuses with rstd)."""
    if w is None:
        return centred * rstd if b is None else _fused(xp, centred, rstd, b)
    normed = centred * rstd
    # `+ 0.0`: the fused `normed * w + 0` turns a -0 product into +0.
    return normed * w + 0.0 if b is None else _fused(xp, normed, w, b)


def _affine_reduced(
    xp: Any, a: Any, mean: Any, rstd: Any, w: Any | None, b: Any | None
) -> Any:
    """`(x * rstd + (-rstd * mean)) * w + b` in float32 as layer_norm_kernel_mixed_type
    computes a float16/bfloat16 input: two fused multiply-adds, an absent weight 1 and an
    absent bias 0 (so a row of one element gives a small nonzero result, as torch's, not 0)."""
    values = _fused(xp, a, rstd, -rstd * mean)
    if w is None:
        return values if b is None else values + b
    return values * w + 0.0 if b is None else _fused(xp, values, w, b)


@implements(native_layer_norm)
def native_layer_norm_kernel(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    eps: float,
) -> Any:
    """Torch: native_layer_norm (layer_norm_cpu; its Meta kernel)."""
    return _layer_norm(input, normalized_shape, weight, bias, eps)


@implements(native_layer_norm_out)
def native_layer_norm_out_kernel(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    eps: float,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: native_layer_norm.out (the generated CompositeExplicitAutograd out= form)."""
    results = _layer_norm(input, normalized_shape, weight, bias, eps)
    return write_outs(results, (out0, out1, out2))


@native_layer_norm.derivative("input", "weight", "bias")
def native_layer_norm_backward_formula(
    grad: Tensor,
    input: Tensor,
    normalized_shape: list[int],
    result1: Tensor,
    result2: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: native_layer_norm_backward_symint(grad, input, normalized_shape, result1, result2,
    #   weight, bias, grad_input_mask)
    return tuple(
        aten.native_layer_norm_backward.default(
            grad, input, normalized_shape, result1, result2, weight, bias, list(grad_input_mask)
        )
    )


# torch: output_differentiability: [True, False, False]
non_differentiable_outputs("aten::native_layer_norm", "result1", "result2")


# --- native_layer_norm_backward ------------------------------------------------------------

native_layer_norm_backward = defop(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, "
    "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> "
    "(Tensor, Tensor, Tensor)"
)
native_layer_norm_backward_out = defop(
    "native_layer_norm_backward.out(Tensor grad_out, Tensor input, SymInt[] normalized_shape, "
    "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)

# torch: the gradient of an undefined weight or bias is allocated from its (missing) options.
_NO_DEVICE: Final = "tensor does not have a device"


def _layer_norm_backward(
    grad_out: TensorImpl,
    input: TensorImpl,
    normalized_shape: list[int],
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    output_mask: list[bool],
) -> tuple[Any, Any, Any]:
    """(grad input, grad weight, grad bias), each None where `output_mask` says no.

    Torch: layer_norm_backward_cpu and LayerNormBackwardKernelImpl:
    dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = grad_out * weight,
    dweight = sum over rows of grad_out * x_hat, dbias = sum of grad_out.
    """
    axis = check_layer_norm_inputs(input, normalized_shape, weight, bias)
    if (output_mask[1] and weight is None) or (output_mask[2] and bias is None):
        raise RuntimeError(_NO_DEVICE)
    size = input._size
    if has_data(input):
        param_dtype(input, weight, bias)
        if grad_out._dtype is not input._dtype:
            raise RuntimeError(
                f"expected scalar type {input._dtype.scalar_name} but found "
                f"{grad_out._dtype.scalar_name}"
            )
        if input._dtype not in _KERNEL_DTYPES:
            raise not_implemented("LayerNormBackwardKernelImpl", input._dtype)
    if not has_data(input):
        values: list[Any] = [None, None, None]
    else:
        xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
        compute = compute_dtype(input._dtype)
        rows = geometry.numel(size[:axis])
        cols = geometry.numel(size[axis:])
        g = xp.reshape(input_array(grad_out, compute), (rows, cols))
        x = xp.reshape(input_array(input, compute), (rows, cols))
        mu = xp.reshape(input_array(mean, compute), (rows, 1))
        r = xp.reshape(input_array(rstd, compute), (rows, 1))
        x_hat = (x - mu) * r
        gw = g
        if weight is not None:
            gw = g * xp.reshape(input_array(weight, compute), (1, cols))
        dx = None
        if output_mask[0]:
            if cols == 0:
                dx = gw
            else:
                dx = r * (
                    gw
                    - xp.mean(gw, axis=1, keepdims=True)
                    - x_hat * xp.mean(gw * x_hat, axis=1, keepdims=True)
                )
        values = [dx, xp.sum(g * x_hat, axis=0), xp.sum(g, axis=0)]
    grads: list[Any] = [None, None, None]
    if output_mask[0]:
        grads[0] = make_result(input, values[0], size, input._dtype)
    if output_mask[1] and weight is not None:
        grads[1] = make_result(input, values[1], weight._size, weight._dtype)
    if output_mask[2] and bias is not None:
        grads[2] = make_result(input, values[2], bias._size, bias._dtype)
    return grads[0], grads[1], grads[2]


@implements(native_layer_norm_backward)
def native_layer_norm_backward_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    normalized_shape: list[int],
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    output_mask: list[bool],
) -> Any:
    """Torch: native_layer_norm_backward (layer_norm_backward_cpu; its Meta kernel)."""
    return _layer_norm_backward(
        grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask
    )


@implements(native_layer_norm_backward_out)
def native_layer_norm_backward_out_kernel(
    grad_out: TensorImpl,
    input: TensorImpl,
    normalized_shape: list[int],
    mean: TensorImpl,
    rstd: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    output_mask: list[bool],
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: native_layer_norm_backward.out (the generated out= form: every output of the
    functional call, undefined ones skipped)."""
    results = _layer_norm_backward(
        grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask
    )
    outs = (out0, out1, out2)
    for r, o in zip(results, outs, strict=True):
        if r is not None:
            write_outs((r,), (o,))
    return outs


@native_layer_norm_backward.derivative("input", "weight", "grad_out")
def native_layer_norm_backward_double(
    grads: tuple[Tensor | None, ...],
    grad_out: Tensor,
    input: Tensor,
    normalized_shape: list[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: layer_norm_double_backward(input, weight, grads[0], grads[1], grads[2], grad_out,
    #   mean, rstd, normalized_shape, grad_input_mask)
    ndim = len(input.shape)
    axis = ndim - len(normalized_shape)
    return normalization_double_backward(
        input,
        weight,
        grads[0],
        grads[1],
        grads[2],
        grad_out,
        mean,
        rstd,
        list(range(axis, ndim)),
        list(range(axis)),
        grad_input_mask,
    )


# --- layer_norm ----------------------------------------------------------------------------

layer_norm = defop(
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor"
)


@layer_norm.decomposition
def layer_norm_decomposition(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None = None,
    bias: TensorImpl | None = None,
    eps: float = 1e-05,
    cudnn_enable: bool = True,
) -> Any:
    """Torch: layer_norm_symint in layer_norm.cpp (native_layer_norm's first output)."""
    return aten.native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


# --- rms_norm ------------------------------------------------------------------------------

rms_norm = defop(
    "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) "
    "-> Tensor"
)

# The dtypes rms_norm dispatches on (AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(Half, BFloat16)).
_RMS_DTYPES: Final = frozenset({float16, bfloat16, float32, float64, complex64, complex128})

# torch: std::numeric_limits<opmath_t>::epsilon() for eps=None (float16/bfloat16 compute in
# float32).
_EPSILON: Final[dict[DType, float]] = {
    float16: 2.0**-23,
    bfloat16: 2.0**-23,
    float32: 2.0**-23,
    float64: 2.0**-52,
}


def _rms_norm_composite(
    input: TensorImpl, normalized_shape: list[int], weight: TensorImpl | None, eps: float | None
) -> tuple[Any, Any]:
    """(result, rstd): `(x * rsqrt(mean(x^2) + eps)) * weight` in the op-math dtype (eps
    None: that dtype's machine epsilon), rounded back to the input's dtype.

    Torch: the composite of rms_norm_symint and _fused_rms_norm's CompositeImplicitAutograd
    kernel in layer_norm.cpp (on the CPU; the fused kernels are for other devices).
    """
    check_layer_norm_inputs(input, normalized_shape, weight, None, rms=True)
    dtype = input._dtype
    if dtype not in _RMS_DTYPES:
        raise not_implemented("rms_norm", dtype)
    opmath = compute_dtype(dtype)
    epsilon = _EPSILON[opmath.to_real()] if eps is None else eps
    ndim = len(input._size)
    dims = [ndim - i - 1 for i in range(len(normalized_shape))]
    upcast = aten.to.dtype(input, opmath)
    squares = aten.pow.Tensor_Scalar(upcast, 2)
    rstd = aten.rsqrt.default(aten.add_.Scalar(aten.mean.dim(squares, dims, True), epsilon))
    result = aten.mul.Tensor(upcast, rstd)
    if weight is not None:
        result = aten.mul.Tensor(result, weight)
    # torch: result.type_as(input) (to(input.options()); refimpl has no type_as kernel).
    return aten.to.dtype(result, dtype), rstd


@rms_norm.decomposition
def rms_norm_decomposition(
    input: TensorImpl,
    normalized_shape: list[int],
    weight: TensorImpl | None = None,
    eps: float | None = None,
) -> Any:
    """Torch: rms_norm_symint in layer_norm.cpp: a warning where weight's dtype differs
    from the input's (no fused kernel then), the composite's result."""
    if weight is not None and weight._dtype is not input._dtype:
        warnings.warn(
            "Mismatch dtype between input and weight: input dtype = "
            f"{type_meta_name(input._dtype)}, weight dtype = {type_meta_name(weight._dtype)}, "
            "Cannot dispatch to fused implementation.",
            UserWarning,
            stacklevel=3,
        )
    return _rms_norm_composite(input, normalized_shape, weight, eps)[0]


_fused_rms_norm = defop(
    "_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> "
    "(Tensor, Tensor)"
)


@_fused_rms_norm.decomposition
def _fused_rms_norm_decomposition(
    input: TensorImpl, normalized_shape: list[int], weight: TensorImpl | None, eps: float | None
) -> Any:
    """Torch: _fused_rms_norm's CompositeImplicitAutograd kernel (the CPU path): the
    composite's result and its rstd (in the op-math dtype)."""
    return _rms_norm_composite(input, normalized_shape, weight, eps)
