"""The aten ops of the smooth activations: elu (with celu and selu over it), gelu, silu, mish,
softplus, log_sigmoid and glu, and their backward ops.

Torch: aten/src/ATen/native/Activation.cpp and GatedLinearUnit.cpp (meta functions and CPU
entry points), native/cpu/Activation.cpp and GluKernel.cpp (the kernels, which compute
float16 in float: opmath), and the double-backward helpers of
torch/csrc/autograd/FunctionsManual.cpp named in tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.grad_mode import is_grad_enabled
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._iterator import Builder, IterConfig, Plan
from refimpl.ops._nn_activation_common import scalar_like
from refimpl.ops._outputs import resize_output
from refimpl.ops._pointwise import FLOATING, pointwise
from refimpl.ops._reduction import (
    finish,
    has_data,
    implements,
    input_array,
    not_implemented,
    same_as_out,
)
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")

# torch: SELU's constants in Activation.cpp.
SELU_ALPHA: Final = 1.6732632423543772848170429916717
SELU_SCALE: Final = 1.0507009873554804934193349852946
# torch: M_SQRT1_2, and gelu's kBeta = M_SQRT2 * M_2_SQRTPI * 0.5 and kKappa (GeluKernel).
_SQRT1_2: Final = math.sqrt(0.5)
_GELU_BETA: Final = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
_GELU_KAPPA: Final = 0.044715
# torch: M_2_SQRTPI * M_SQRT1_2 * 0.5, the normal density's constant.
_PDF_BETA: Final = (2.0 / math.sqrt(math.pi)) * _SQRT1_2 * 0.5


def _one(xp: ArrayNamespace, like: Array) -> Array:
    return scalar_like(xp, 1, like)


# --- elu, elu_backward -----------------------------------------------------------------------

elu = pointwise(
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    Builder.UNARY_OP,
    opmath=True,
)


@elu.compute
def elu_compute(
    xp: ArrayNamespace, self: Array, alpha: Scalar, scale: Scalar, input_scale: Scalar
) -> Array:
    """self * scale above 0, else expm1(self * input_scale) * alpha * scale.
    Torch: elu_kernel (negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale)."""
    negcoef = scalar_like(xp, float(alpha) * float(scale), self)  # type: ignore[arg-type]
    poscoef = scalar_like(xp, scale, self)
    negative = xp.expm1(self * scalar_like(xp, input_scale, self)) * negcoef
    return xp.where(self <= 0, negative, self * poscoef)


@elu.derivative("self")
def elu_backward_self(
    grad: Tensor, self: Tensor, alpha: Scalar, scale: Scalar, input_scale: Scalar
) -> Tensor:
    # torch: elu_backward(grad, alpha, scale, input_scale, /* is_result */ false, self)
    return aten.elu_backward.default(grad, alpha, scale, input_scale, False, self)


@elu.derivative("self", overload="elu_")
def elu__backward_self(
    grad: Tensor, result: Tensor, alpha: Scalar, scale: Scalar, input_scale: Scalar
) -> Tensor:
    # torch: elu_: elu_backward(grad, alpha, scale, input_scale, /* is_result */ true, result)
    return aten.elu_backward.default(grad, alpha, scale, input_scale, True, result)


# torch: TORCH_META_FUNC(elu_backward): the in-place check, then
# build_borrowing_binary_op(grad_input, grad_output, self_or_result).
elu_backward = pointwise(
    "elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, "
    "bool is_result, Tensor self_or_result) -> Tensor",
    Builder.BINARY_OP,
    opmath=True,
)


@elu_backward.precheck
def elu_backward_precheck(
    grad_output: Any, self_or_result: Any, *, alpha: Scalar, is_result: bool, **other: Any
) -> None:
    if is_result and alpha < 0:  # type: ignore[operator]  # a real Scalar
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead."
        )


@elu_backward.compute
def elu_backward_compute(
    xp: ArrayNamespace,
    grad_output: Array,
    self_or_result: Array,
    alpha: Scalar,
    scale: Scalar,
    input_scale: Scalar,
    is_result: bool,
) -> Array:
    """Torch: elu_backward_kernel: at or below 0, grad * input_scale * (result + negcoef)
    given the result, grad * input_scale * negcoef * exp(self * input_scale) given self;
    above, grad * scale."""
    x = self_or_result
    negcoef = scalar_like(xp, float(alpha) * float(scale), x)  # type: ignore[arg-type]
    negiptcoef = scalar_like(xp, input_scale, x)
    if is_result:
        negative = grad_output * negiptcoef * (x + negcoef)
    else:
        negative = grad_output * negiptcoef * negcoef * xp.exp(x * negiptcoef)
    return xp.where(x <= 0, negative, grad_output * scalar_like(xp, scale, x))


@elu_backward.derivative("grad_output")
def elu_backward_backward_grad_output(
    grad: Tensor,
    alpha: Scalar,
    scale: Scalar,
    input_scale: Scalar,
    is_result: bool,
    self_or_result: Tensor,
) -> Tensor:
    # torch: elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result)
    return aten.elu_backward.default(grad, alpha, scale, input_scale, is_result, self_or_result)


@elu_backward.derivative("self_or_result")
def elu_backward_backward_self_or_result(
    grad: Tensor,
    grad_output: Tensor,
    alpha: Scalar,
    scale: Scalar,
    input_scale: Scalar,
    is_result: bool,
    self_or_result: Tensor,
) -> Tensor:
    # torch: elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result,
    # self_or_result) in FunctionsManual.cpp.
    negative = aten.to.dtype(aten.lt.Scalar(self_or_result, 0), grad._dtype)
    product = aten.mul.Scalar(aten.mul.Tensor(grad, grad_output), input_scale)
    if is_result:
        return aten.mul.Tensor(product, negative)
    inner = aten.elu_backward.default(product, alpha, scale, input_scale, is_result, self_or_result)
    return aten.mul.Tensor(inner, negative)


# --- selu, celu ------------------------------------------------------------------------------

selu = defop("selu(Tensor self) -> Tensor")
selu_ = defop("selu_(Tensor(a!) self) -> Tensor(a!)")


@selu.decomposition
def selu_decomposition(self: TensorImpl) -> Any:
    """Torch: selu in Activation.cpp (at::elu(self, SELU_ALPHA, SELU_SCALE))."""
    return aten.elu.default(self, SELU_ALPHA, SELU_SCALE)


@selu_.decomposition
def selu__decomposition(self: TensorImpl) -> Any:
    """Torch: selu_ in Activation.cpp (at::elu_(self, SELU_ALPHA, SELU_SCALE))."""
    return aten.elu_.default(self, SELU_ALPHA, SELU_SCALE)


celu = defop("celu(Tensor self, Scalar alpha=1.) -> Tensor")
celu_ = defop("celu_(Tensor(a!) self, Scalar alpha=1.) -> Tensor(a!)")
celu_out = defop("celu.out(Tensor self, Scalar alpha=1., *, Tensor(a!) out) -> Tensor(a!)")


def _celu_inverse_alpha(alpha: Scalar) -> float:
    # torch: celu / celu_ in Activation.cpp.
    value = float(alpha)  # type: ignore[arg-type]  # a real Scalar
    if value == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / value


@implements(celu)
def celu_kernel(self: TensorImpl, alpha: Scalar = 1.0) -> Any:
    """max(0, x) + min(0, alpha * expm1(x / alpha)). Torch: celu in Activation.cpp
    (at::elu(self, alpha, 1.0, 1 / alpha))."""
    return aten.elu.default(self, alpha, 1.0, _celu_inverse_alpha(alpha))


@implements(celu_)
def celu__kernel(self: TensorImpl, alpha: Scalar = 1.0) -> Any:
    """Torch: celu_ in Activation.cpp (at::elu_(self, alpha, 1.0, 1 / alpha))."""
    return aten.elu_.default(self, alpha, 1.0, _celu_inverse_alpha(alpha))


@implements(celu_out)
def celu_out_kernel(self: TensorImpl, alpha: Scalar = 1.0, *, out: TensorImpl) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of celu."""
    return same_as_out(aten.celu.default(self, alpha), out)


@celu.derivative("self")
def celu_backward_self(grad: Tensor, self: Tensor, alpha: Scalar) -> Tensor:
    # torch: elu_backward(grad, alpha, 1, 1.0/alpha.toFloat(), /* is_result */ false, self)
    inverse = 1.0 / float(alpha)  # type: ignore[arg-type]  # a real Scalar
    return aten.elu_backward.default(grad, alpha, 1, inverse, False, self)


@celu_.derivative("self")
def celu__backward_self(grad: Tensor, result: Tensor, alpha: Scalar) -> Tensor:
    # torch: elu_backward(grad, alpha, 1, 1.0/alpha.toFloat(), /* is_result */ true, result)
    inverse = 1.0 / float(alpha)  # type: ignore[arg-type]  # a real Scalar
    return aten.elu_backward.default(grad, alpha, 1, inverse, True, result)


# --- gelu, gelu_backward ---------------------------------------------------------------------

# torch: GeluType (get_gelutype_enum in Activation.h).
_GELU_APPROXIMATIONS: Final = ("none", "tanh")


def gelu_approximate_check(p: Plan, *, approximate: str) -> None:
    # torch: get_gelutype_enum, called by the CPU kernel after the meta function's iterator.
    if approximate not in _GELU_APPROXIMATIONS:
        raise RuntimeError("approximate argument must be either none or tanh.")


gelu = pointwise(
    'gelu(Tensor self, *, str approximate="none") -> Tensor', Builder.UNARY_OP, opmath=True
)
gelu.check(gelu_approximate_check)


@gelu.compute
def gelu_compute(xp: ArrayNamespace, self: Array, approximate: str) -> Array:
    """x * Phi(x), or its tanh approximation 0.5 * x * (1 + tanh(beta * (x + kappa * x^3))).
    Torch: GeluKernelImpl."""
    half = scalar_like(xp, 0.5, self)
    if approximate == "tanh":
        cube = self * self * self
        inner = scalar_like(xp, _GELU_BETA, self) * (
            self + scalar_like(xp, _GELU_KAPPA, self) * cube
        )
        return half * self * (_one(xp, self) + xp.tanh(inner))
    erf = extension(xp, "erf")
    return self * half * (_one(xp, self) + erf(self * scalar_like(xp, _SQRT1_2, self)))


@gelu.derivative("self")
def gelu_backward_self(grad: Tensor, self: Tensor, approximate: str) -> Tensor:
    # torch: gelu_backward(grad, self, approximate)
    return aten.gelu_backward.default(grad, self, approximate=approximate)


gelu_backward = pointwise(
    'gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
    Builder.BINARY_OP,
    opmath=True,
)
gelu_backward.check(gelu_approximate_check)


@gelu_backward.compute
def gelu_backward_compute(
    xp: ArrayNamespace, grad_output: Array, self: Array, approximate: str
) -> Array:
    """grad * (Phi(x) + x * phi(x)), or the tanh approximation's derivative.
    Torch: GeluBackwardKernelImpl."""
    one = _one(xp, self)
    half = scalar_like(xp, 0.5, self)
    if approximate == "tanh":
        beta = scalar_like(xp, _GELU_BETA, self)
        kappa = scalar_like(xp, _GELU_KAPPA, self)
        x_sq = self * self
        tanh_inner = xp.tanh(beta * (self + kappa * x_sq * self))
        left_derivative = half * (one + tanh_inner)
        slope = beta * (one + scalar_like(xp, 3, self) * kappa * x_sq)
        right_derivative = half * self * (one - tanh_inner * tanh_inner) * slope
        return grad_output * (left_derivative + right_derivative)
    erf = extension(xp, "erf")
    cdf = half * (one + erf(self * scalar_like(xp, _SQRT1_2, self)))
    pdf = xp.exp(-half * self * self) * scalar_like(xp, _PDF_BETA, self)
    return grad_output * (cdf + self * pdf)


@gelu_backward.derivative("grad_output")
def gelu_backward_backward_grad_output(grad: Tensor, self: Tensor, approximate: str) -> Tensor:
    # torch: gelu_backward(grad, self, approximate)
    return aten.gelu_backward.default(grad, self, approximate=approximate)


@gelu_backward.derivative("self")
def gelu_backward_backward_self(
    grad: Tensor, grad_output: Tensor, self: Tensor, approximate: str
) -> Tensor:
    # torch: gelu_double_backward(grad, grad_output, self, approximate) in FunctionsManual.cpp.
    mul, scaled = aten.mul.Tensor, aten.mul.Scalar
    if approximate == "tanh":
        inner = scaled(
            aten.add.Tensor(self, scaled(aten.pow.Tensor_Scalar(self, 3), _GELU_KAPPA)), _GELU_BETA
        )
        tanh_inner = aten.tanh.default(inner)
        sech_inner = aten.reciprocal.default(aten.cosh.default(inner))
        f = scaled(self, 0.5)
        g = aten.rsub.Scalar(mul(tanh_inner, tanh_inner), 1)
        h = scaled(aten.add.Scalar(scaled(mul(self, self), 3 * _GELU_KAPPA), 1), _GELU_BETA)
        f_prime_gh = mul(scaled(g, 0.5), h)
        g_prime = mul(mul(scaled(sech_inner, 2), aten.neg.default(mul(sech_inner, tanh_inner))), h)
        g_prime_fh = mul(mul(f, h), g_prime)
        h_prime = scaled(self, 6 * _GELU_KAPPA * _GELU_BETA)
        h_prime_fg = mul(mul(f, g), h_prime)
        total = aten.add.Tensor(
            aten.add.Tensor(aten.add.Tensor(f_prime_gh, f_prime_gh), g_prime_fh), h_prime_fg
        )
        return mul(mul(grad, grad_output), total)
    input_sq = mul(self, self)
    pdf = scaled(aten.exp.default(scaled(input_sq, -0.5)), _PDF_BETA)
    d_grad_d_input = aten.sub.Tensor(scaled(pdf, 2), mul(input_sq, pdf))
    return mul(mul(grad, grad_output), d_grad_d_input)


# --- silu, silu_backward ---------------------------------------------------------------------

silu = pointwise("silu(Tensor self) -> Tensor", Builder.UNARY_OP, opmath=True)


@silu.compute
def silu_compute(xp: ArrayNamespace, self: Array) -> Array:
    """self / (1 + exp(-self)). Torch: silu_kernel."""
    return self / (_one(xp, self) + xp.exp(-self))


def infinitely_differentiable_silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """Torch: infinitely_differentiable_silu_backward in FunctionsManual.cpp:
    grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid))."""
    sigmoid = aten.sigmoid.default(self)
    slope = aten.add.Scalar(aten.mul.Tensor(self, aten.rsub.Scalar(sigmoid, 1.0)), 1.0)
    return aten.mul.Tensor(aten.mul.Tensor(grad_output, sigmoid), slope)


@silu.derivative("self")
def silu_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: GradMode::is_enabled() ? infinitely_differentiable_silu_backward(grad, self)
    #                               : silu_backward(grad, self)
    if is_grad_enabled():
        return infinitely_differentiable_silu_backward(grad, self)
    return aten.silu_backward.default(grad, self)


# torch: silu_backward has a CPU kernel (silu_backward_kernel) and a CompositeImplicitAutograd
# one (math_silu_backward) for other backends: for CPU tensors the CPU kernel runs, so a
# TorchDispatchMode sees silu_backward itself (spec: cia_and_cpu).
silu_backward = defop("silu_backward(Tensor grad_output, Tensor self) -> Tensor")
silu_backward_grad_input = defop(
    "silu_backward.grad_input(Tensor grad_output, Tensor self, *, Tensor(a!) grad_input) "
    "-> Tensor(a!)"
)


@silu_backward.decomposition
def silu_backward_decomposition(grad_output: TensorImpl, self: TensorImpl) -> Any:
    """grad * sigmoid * (1 + x * (1 - sigmoid)). Torch: math_silu_backward in Activation.cpp."""
    sigmoid = aten.sigmoid.default(self)
    slope = aten.add.Scalar(aten.mul.Tensor(self, aten.rsub.Scalar(sigmoid, 1)), 1)
    return aten.mul.Tensor(grad_output, aten.mul.Tensor(sigmoid, slope))


@implements(silu_backward)
def silu_backward_kernel(grad_output: TensorImpl, self: TensorImpl) -> Any:
    """Torch: silu_backward's CPU kernel (silu_backward_kernel in Activation.cpp): the same
    formula as the composite, run below autograd and the modes, as one op."""
    return silu_backward_decomposition(grad_output, self)


@implements(silu_backward_grad_input)
def silu_backward_grad_input_kernel(
    grad_output: TensorImpl, self: TensorImpl, *, grad_input: TensorImpl
) -> Any:
    """Torch: silu_backward_out (the structured out= form). Differs: written as the result
    copied into `grad_input` (resized, same dtype required)."""
    return same_as_out(aten.silu_backward.default(grad_output, self), grad_input)


# --- mish, mish_backward ---------------------------------------------------------------------

mish = pointwise("mish(Tensor self) -> Tensor", Builder.UNARY_OP, opmath=True)


@mish.compute
def mish_compute(xp: ArrayNamespace, self: Array) -> Array:
    """self * tanh(log1p(exp(self))). Torch: mish_kernel."""
    return self * xp.tanh(xp.log1p(xp.exp(self)))


@mish.derivative("self")
def mish_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: GradMode::is_enabled() ? infinitely_differentiable_mish_backward(grad, self)
    #                               : mish_backward(grad, self)
    if not is_grad_enabled():
        return aten.mish_backward.default(grad, self)
    # torch: infinitely_differentiable_mish_backward in FunctionsManual.cpp.
    sigmoid = aten.sigmoid.default(self)
    tanh_softplus = aten.tanh.default(aten.log1p.default(aten.exp.default(self)))
    rest = aten.rsub.Scalar(aten.mul.Tensor(tanh_softplus, tanh_softplus), 1.0)
    slope = aten.add.Tensor(tanh_softplus, aten.mul.Tensor(aten.mul.Tensor(self, sigmoid), rest))
    return aten.mul.Tensor(grad, slope)


# torch: mish_backward has a CPU kernel and a CompositeImplicitAutograd one
# (math_mish_backward), as silu_backward has.
mish_backward = defop("mish_backward(Tensor grad_output, Tensor self) -> Tensor")


@mish_backward.decomposition
def mish_backward_decomposition(grad_output: TensorImpl, self: TensorImpl) -> Any:
    """grad * (tanh(softplus) + x * sigmoid * (1 - tanh(softplus)^2)). Torch:
    math_mish_backward in Activation.cpp."""
    tanh_softplus = aten.tanh.default(aten.softplus.default(self))
    sigmoid = aten.sigmoid.default(self)
    rest = aten.rsub.Scalar(aten.mul.Tensor(tanh_softplus, tanh_softplus), 1)
    slope = aten.add.Tensor(tanh_softplus, aten.mul.Tensor(aten.mul.Tensor(self, sigmoid), rest))
    return aten.mul.Tensor(grad_output, slope)


@implements(mish_backward)
def mish_backward_kernel(grad_output: TensorImpl, self: TensorImpl) -> Any:
    """Torch: mish_backward's CPU kernel (mish_backward_kernel): the composite's formula, run
    below autograd and the modes, as one op."""
    return mish_backward_decomposition(grad_output, self)


# --- softplus, softplus_backward -------------------------------------------------------------

softplus = pointwise(
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    Builder.UNARY_OP,
    opmath=True,
)


@softplus.compute
def softplus_compute(xp: ArrayNamespace, self: Array, beta: Scalar, threshold: Scalar) -> Array:
    """self where self * beta > threshold, else log1p(exp(self * beta)) / beta.
    Torch: softplus_kernel."""
    b = scalar_like(xp, beta, self)
    scaled = self * b
    return xp.where(scaled > scalar_like(xp, threshold, self), self, xp.log1p(xp.exp(scaled)) / b)


@softplus.derivative("self")
def softplus_backward_self(grad: Tensor, self: Tensor, beta: Scalar, threshold: Scalar) -> Tensor:
    # torch: softplus_backward(grad, self, beta, threshold)
    return aten.softplus_backward.default(grad, self, beta, threshold)


softplus_backward = pointwise(
    "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor",
    Builder.BINARY_OP,
    opmath=True,
)


@softplus_backward.compute
def softplus_backward_compute(
    xp: ArrayNamespace, grad_output: Array, self: Array, beta: Scalar, threshold: Scalar
) -> Array:
    """grad where self * beta > threshold, else grad * z / (z + 1), z = exp(self * beta).
    Torch: softplus_backward_kernel."""
    scaled = self * scalar_like(xp, beta, self)
    z = xp.exp(scaled)
    inner = grad_output * z / (z + _one(xp, self))
    return xp.where(scaled > scalar_like(xp, threshold, self), grad_output, inner)


@softplus_backward.derivative("grad_output")
def softplus_backward_backward_grad_output(
    grad: Tensor, self: Tensor, beta: Scalar, threshold: Scalar
) -> Tensor:
    # torch: softplus_backward(grad, self, beta, threshold)
    return aten.softplus_backward.default(grad, self, beta, threshold)


@softplus_backward.derivative("self")
def softplus_backward_backward_self(
    grad: Tensor, grad_output: Tensor, self: Tensor, beta: Scalar, threshold: Scalar
) -> Tensor:
    # torch: softplus_double_backward(grad * grad_output, self, beta, threshold):
    #   x = input * beta; sigmoid_backward(grad, x.sigmoid()) * (x < threshold).type_as(grad) * beta
    product = aten.mul.Tensor(grad, grad_output)
    x = aten.mul.Scalar(self, beta)
    slope = aten.sigmoid_backward.default(product, aten.sigmoid.default(x))
    below = aten.to.dtype(aten.lt.Scalar(x, threshold), product._dtype)
    return aten.mul.Scalar(aten.mul.Tensor(slope, below), beta)


# --- log_sigmoid, log_sigmoid_forward, log_sigmoid_backward ----------------------------------

log_sigmoid = defop("log_sigmoid(Tensor self) -> Tensor")
log_sigmoid_out = defop("log_sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
log_sigmoid_forward = defop("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)")
log_sigmoid_forward_output = defop(
    "log_sigmoid_forward.output(Tensor self, *, Tensor(a!) output, Tensor(b!) buffer) "
    "-> (Tensor(a!), Tensor(b!))"
)


@log_sigmoid.decomposition
def log_sigmoid_decomposition(self: TensorImpl) -> Any:
    """Torch: log_sigmoid in Activation.cpp (std::get<0>(at::log_sigmoid_forward(self)))."""
    return aten.log_sigmoid_forward.default(self)[0]


@log_sigmoid_out.decomposition
def log_sigmoid_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: log_sigmoid_out (log_sigmoid_forward_out with an empty buffer)."""
    buffer = aten.empty.memory_format([0], dtype=self._dtype, device=self._storage.device)
    return aten.log_sigmoid_forward.output(self, output=out, buffer=buffer)[0]


def _scalar_type_error(expected: DType, found: DType) -> RuntimeError:
    # torch: the data_ptr<T>() check of a CPU kernel writing a tensor of another dtype.
    return RuntimeError(
        f"expected scalar type {expected.scalar_name} but found {found.scalar_name}"
    )


@implements(log_sigmoid_forward)
@implements(log_sigmoid_forward_output)
def log_sigmoid_forward_kernel(
    self: TensorImpl, *, output: TensorImpl | None = None, buffer: TensorImpl | None = None
) -> Any:
    """(min(x, 0) - log1p(exp(-|x|)), exp(-|x|)), both contiguous.

    Torch: log_sigmoid_forward_cpu / log_sigmoid_forward_out_cpu (results resized to self's
    shape; log_sigmoid_cpu_kernel over self.contiguous(), AT_DISPATCH_FLOATING_TYPES_AND2).
    """
    shape = self._size
    dtype = self._dtype
    for out in (output, buffer):
        if out is not None:
            resize_output(out, shape)
    if not has_data(self):
        # torch: the Meta kernel (log_sigmoid_forward's meta registration) allocates with
        # empty_like(self), keeping a dense self's strides; the CPU results are contiguous.
        if output is None:
            return aten.empty_like.default(self), aten.empty_like.default(self)
        return output, buffer
    if dtype not in FLOATING:
        raise not_implemented("log_sigmoid_cpu", dtype)
    for out in (output, buffer):
        if out is not None and out._dtype is not dtype:
            raise _scalar_type_error(dtype, out._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    x = input_array(self, compute_dtype(dtype))
    z = xp.exp(-xp.abs(x))
    values = xp.minimum(x, xp.zeros_like(x)) - xp.log1p(z)
    return finish(self, values, shape, dtype, output), finish(self, z, shape, dtype, buffer)


# torch: output_differentiability: [True, False] (the buffer).
non_differentiable_outputs("aten::log_sigmoid_forward", "buffer")


@log_sigmoid_forward.derivative("self")
def log_sigmoid_forward_backward_self(grad: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    # torch: log_sigmoid_backward(grad, self, buffer)
    return aten.log_sigmoid_backward.default(grad, self, buffer)


# torch: log_sigmoid_backward_cpu: a plain TensorIteratorConfig over (self, buffer,
# grad_output) (all of one dtype), into empty_like(grad_output).
log_sigmoid_backward = pointwise(
    "log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
    IterConfig(),
    operands=("self", "buffer", "grad_output"),
    opmath=True,
)


@log_sigmoid_backward.compute
def log_sigmoid_backward_compute(
    xp: ArrayNamespace, self: Array, buffer: Array, grad_output: Array
) -> Array:
    """(max_deriv - sign * z / (1 + z)) * grad, with max_deriv, sign = (1, 1) for a negative
    self, else (0, -1), z the buffer. Torch: log_sigmoid_backward_cpu_kernel."""
    negative = self < 0
    one = _one(xp, self)
    max_deriv = xp.where(negative, one, xp.zeros_like(one))
    sign = xp.where(negative, one, -one)
    return (max_deriv - sign * (buffer / (one + buffer))) * grad_output


@log_sigmoid_backward.derivative("grad_output")
def log_sigmoid_backward_backward_grad_output(grad: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    # torch: log_sigmoid_backward(grad, self, buffer)
    return aten.log_sigmoid_backward.default(grad, self, buffer)


@log_sigmoid_backward.derivative("self")
def log_sigmoid_backward_backward_self(grad: Tensor, grad_output: Tensor, self: Tensor) -> Tensor:
    # torch: log_sigmoid_double_backward(grad * grad_output, self): z = self.sigmoid();
    # grad * (z - 1) * z
    z = aten.sigmoid.default(self)
    product = aten.mul.Tensor(grad, grad_output)
    return aten.mul.Tensor(aten.mul.Tensor(product, aten.sub.Scalar(z, 1)), z)
