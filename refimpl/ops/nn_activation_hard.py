"""The aten ops of the shrink and hard activations: hardshrink, softshrink, hardsigmoid,
hardswish, and their backward ops.

Torch: aten/src/ATen/native/Activation.cpp (structured meta functions built with
build_unary_op / build_borrowing_binary_op; hardswish's CPU functions over
TensorIterator::unary_op) and native/cpu/Activation.cpp (the kernels, which compute float16 in
float through Vectorized<float>). Derivatives: tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._iterator import Builder
from refimpl.ops._nn_activation_common import scalar_like, zero_of
from refimpl.ops._pointwise import pointwise

aten: Final = namespace("aten")

# torch: std::numeric_limits<scalar_t>::max() of the floating dtypes softshrink accepts.
_LARGEST: Final[dict[DType, float]] = {
    float16: 65504.0,
    bfloat16: 3.3895313892515355e38,
    float32: 3.4028234663852886e38,
    float64: 1.7976931348623157e308,
}
# torch: 1.0f / 6.0f, the float nearest 1/6, in hardsigmoid_backward_kernel.
_ONE_SIXTH_FLOAT: Final = 0.1666666716337204


# --- hardshrink, hardshrink_backward ---------------------------------------------------------

hardshrink = pointwise(
    "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", Builder.UNARY_OP, opmath=True
)


@hardshrink.compute
def hardshrink_compute(xp: ArrayNamespace, self: Array, lambd: Scalar) -> Array:
    """0 where -lambd <= self <= lambd, else self (NaN kept). Torch: hardshrink_kernel."""
    bound = scalar_like(xp, lambd, self)
    inside = (self >= -bound) & (self <= bound)
    return xp.where(inside, xp.zeros_like(self), self)


@hardshrink.derivative("self")
def hardshrink_backward_self(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    # torch: hardshrink_backward(grad, self, lambd)
    return aten.hardshrink_backward.default(grad, self, lambd)


# torch: TORCH_META_FUNC(hardshrink_backward): build_borrowing_binary_op(grad_input, grad, self).
hardshrink_backward = pointwise(
    "hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor",
    Builder.BINARY_OP,
    opmath=True,
)


@hardshrink_backward.compute
def hardshrink_backward_compute(
    xp: ArrayNamespace, grad_out: Array, self: Array, lambd: Scalar
) -> Array:
    """0 where -lambd <= self <= lambd, else grad_out. Torch: shrink_backward_kernel."""
    bound = scalar_like(xp, lambd, self)
    inside = (self >= -bound) & (self <= bound)
    return xp.where(inside, xp.zeros_like(grad_out), grad_out)


@hardshrink_backward.derivative("grad_out")
def hardshrink_backward_backward_grad_out(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    # torch: hardshrink_backward(grad, self, lambd)
    return aten.hardshrink_backward.default(grad, self, lambd)


@hardshrink_backward.derivative("self")
def hardshrink_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- softshrink, softshrink_backward ---------------------------------------------------------

softshrink = pointwise(
    "softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", Builder.UNARY_OP, opmath=True
)


@softshrink.precheck
def softshrink_precheck(self: Any, *, lambd: Scalar) -> None:
    # torch: TORCH_META_FUNC(softshrink), in an AT_DISPATCH over self's floating dtype
    # ("softshrink_check"; the other dtypes are refused by that switch, as by the kernel's).
    largest = _LARGEST.get(self._dtype)
    if largest is None:
        return
    value = float(lambd)  # type: ignore[arg-type]  # a real Scalar
    if not 0 <= value <= largest:
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype "
            f"{self._dtype.scalar_name}, but found {value:g}"
        )


@softshrink.compute
def softshrink_compute(xp: ArrayNamespace, self: Array, lambd: Scalar) -> Array:
    """self - lambd above lambd, self + lambd below -lambd, else self * 0 (NaN and the sign
    of zero kept). Torch: softshrink_kernel."""
    bound = scalar_like(xp, lambd, self)
    return xp.where(self > bound, self - bound, xp.where(self < -bound, self + bound, self * 0))


@softshrink.derivative("self")
def softshrink_backward_self(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    # torch: softshrink_backward(grad, self, lambd)
    return aten.softshrink_backward.default(grad, self, lambd)


# torch: TORCH_META_FUNC(softshrink_backward): build_borrowing_binary_op(grad_input, grad, self).
softshrink_backward = pointwise(
    "softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor",
    Builder.BINARY_OP,
    opmath=True,
)


@softshrink_backward.compute
def softshrink_backward_compute(
    xp: ArrayNamespace, grad_output: Array, self: Array, lambd: Scalar
) -> Array:
    """0 where -lambd <= self <= lambd, else grad_output. Torch: shrink_backward_kernel."""
    bound = scalar_like(xp, lambd, self)
    inside = (self >= -bound) & (self <= bound)
    return xp.where(inside, xp.zeros_like(grad_output), grad_output)


@softshrink_backward.derivative("grad_output")
def softshrink_backward_backward_grad_output(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    # torch: softshrink_backward(grad, self, lambd)
    return aten.softshrink_backward.default(grad, self, lambd)


@softshrink_backward.derivative("self")
def softshrink_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- hardsigmoid, hardsigmoid_backward -------------------------------------------------------


def _relu6_of_shift(xp: ArrayNamespace, self: Array) -> Array:
    # torch: std::min(std::max(x + three, zero), six)
    shifted = self + scalar_like(xp, 3, self)
    return xp.clip(shifted, scalar_like(xp, 0, self), scalar_like(xp, 6, self))


hardsigmoid = pointwise("hardsigmoid(Tensor self) -> Tensor", Builder.UNARY_OP, opmath=True)


@hardsigmoid.compute
def hardsigmoid_compute(xp: ArrayNamespace, self: Array) -> Array:
    """min(max(self + 3, 0), 6) / 6. Torch: hardsigmoid_kernel."""
    return _relu6_of_shift(xp, self) / scalar_like(xp, 6, self)


@hardsigmoid.derivative("self")
def hardsigmoid_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: hardsigmoid_backward(grad, self)
    return aten.hardsigmoid_backward.default(grad, self)


hardsigmoid_backward = pointwise(
    "hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
    Builder.BINARY_OP,
    opmath=True,
)


@hardsigmoid_backward.compute
def hardsigmoid_backward_compute(xp: ArrayNamespace, grad_output: Array, self: Array) -> Array:
    """grad_output * (1 / 6) where -3 < self < 3, else 0. Torch: hardsigmoid_backward_kernel
    (its `one_sixth` is the float literal 1.0f / 6.0f, for double too)."""
    inside = (self > scalar_like(xp, -3, self)) & (self < scalar_like(xp, 3, self))
    scaled = grad_output * scalar_like(xp, _ONE_SIXTH_FLOAT, grad_output)
    return xp.where(inside, scaled, xp.zeros_like(grad_output))


# --- hardswish, hardswish_backward -----------------------------------------------------------

# torch: hardswish / hardswish_ / hardswish_out (TensorIterator::unary_op) in Activation.cpp.
hardswish = pointwise("hardswish(Tensor self) -> Tensor", Builder.UNARY_OP, opmath=True)


@hardswish.compute
def hardswish_compute(xp: ArrayNamespace, self: Array) -> Array:
    """self * min(max(self + 3, 0), 6) / 6. Torch: hardswish_kernel."""
    return self * _relu6_of_shift(xp, self) / scalar_like(xp, 6, self)


@hardswish.derivative("self")
def hardswish_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: hardswish_backward(grad, self)
    return aten.hardswish_backward.default(grad, self)


# torch: hardswish_backward (TensorIterator::borrowing_binary_op(grad_input, grad_output, self)).
hardswish_backward = pointwise(
    "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor", Builder.BINARY_OP, opmath=True
)


@hardswish_backward.compute
def hardswish_backward_compute(xp: ArrayNamespace, grad_output: Array, self: Array) -> Array:
    """0 where self <= -3, grad_output * (self / 3 + 0.5) where self < 3, else grad_output
    (NaN self passes the grad). Torch: hardswish_backward_kernel."""
    three = scalar_like(xp, 3, self)
    slope = grad_output * (self / three + scalar_like(xp, 0.5, self))
    return xp.where(
        self <= -three, xp.zeros_like(grad_output), xp.where(self < three, slope, grad_output)
    )


@hardswish_backward.derivative("grad_output")
def hardswish_backward_backward_grad_output(grad: Tensor, self: Tensor) -> Tensor:
    # torch: hardswish_backward(grad, self)
    return aten.hardswish_backward.default(grad, self)


@hardswish_backward.derivative("self")
def hardswish_backward_backward_self(grad: Tensor, grad_output: Tensor, self: Tensor) -> Tensor:
    # torch: at::where(at::logical_and(-3.0 < self, self < 3.0), grad * grad_output / 3.0,
    #                  at::zeros({}, self.options()))
    inside = aten.logical_and.default(aten.gt.Scalar(self, -3.0), aten.lt.Scalar(self, 3.0))
    slope = aten.div.Scalar(aten.mul.Tensor(grad, grad_output), 3.0)
    return aten.where.self(inside, slope, zero_of(self))
