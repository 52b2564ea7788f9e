"""The aten ops beneath torch.nn.functional's activations: relu, relu6, hardtanh, threshold,
leaky_relu, prelu and their backward ops here; the other families in the modules imported below.

Torch: aten/src/ATen/native/Activation.cpp (the structured meta functions, relu and hardtanh
over clamp, prelu's weight checks) and native/cpu/Activation.cpp (the kernels). Most ops are
one `pointwise` declaration (ops/_pointwise.py: TensorIterator, in-place and out= forms);
their derivatives are tools/autograd/derivatives.yaml's. The smooth activations (elu, celu,
selu, gelu, silu, mish, softplus, log_sigmoid, glu) are in nn_activation_smooth.py; hardshrink,
softshrink, hardsigmoid and hardswish in nn_activation_hard.py; rrelu in nn_activation_rrelu.py.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import bool_, uint8
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (  # noqa: F401  # registers their kernels
    nn_activation_glu,
    nn_activation_hard,
    nn_activation_rrelu,
    nn_activation_smooth,
)
from refimpl.ops._backward import Tensor
from refimpl.ops._iterator import Builder, IterConfig
from refimpl.ops._nn_activation_common import scalar_like, zero_of
from refimpl.ops._pointwise import FLOATING, pointwise
from refimpl.ops._reduction import implements, same_as_out
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- relu, relu6 -----------------------------------------------------------------------------

relu = defop("relu(Tensor self) -> Tensor")
relu_ = defop("relu_(Tensor(a!) self) -> Tensor(a!)")
relu_out = defop("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


def _relu_check(self: TensorImpl) -> None:
    # torch: relu / relu_ in Activation.cpp (the complex refusal is clamp_min's).
    if self._dtype is bool_:
        raise RuntimeError("Boolean inputs not supported for relu")


@implements(relu)
def relu_kernel(self: TensorImpl) -> Any:
    """max(self, 0), NaN kept. Torch: relu in Activation.cpp (at::clamp_min(self, 0))."""
    _relu_check(self)
    return aten.clamp_min.default(self, 0)


@implements(relu_)
def relu__kernel(self: TensorImpl) -> Any:
    """Torch: relu_ in Activation.cpp (at::clamp_min_(self, 0))."""
    _relu_check(self)
    return aten.clamp_min_.default(self, 0)


@implements(relu_out)
def relu_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of relu."""
    return same_as_out(aten.relu.default(self), out)


@relu.derivative("self")
def relu_backward_self(grad: Tensor, result: Tensor) -> Tensor:
    # torch: threshold_backward(grad, result, 0)
    return aten.threshold_backward.default(grad, result, 0)


relu6 = defop("relu6(Tensor self) -> Tensor")
relu6_ = defop("relu6_(Tensor(a!) self) -> Tensor(a!)")


@relu6.decomposition
def relu6_decomposition(self: TensorImpl) -> Any:
    """min(max(self, 0), 6). Torch: relu6 in Activation.cpp (at::hardtanh(self, 0, 6))."""
    return aten.hardtanh.default(self, 0, 6)


@relu6_.decomposition
def relu6__decomposition(self: TensorImpl) -> Any:
    """Torch: relu6_ in Activation.cpp (at::hardtanh_(self, 0, 6))."""
    return aten.hardtanh_.default(self, 0, 6)


# --- hardtanh, hardtanh_backward -------------------------------------------------------------

hardtanh = defop("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor")
hardtanh_out = defop(
    "hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)
hardtanh_ = defop("hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)")


@implements(hardtanh_out)
def hardtanh_out_kernel(
    self: TensorImpl, min_val: Scalar, max_val: Scalar, *, out: TensorImpl
) -> Any:
    """self clamped to [min_val, max_val].

    Torch: hardtanh_out in Activation.cpp: bool refused; for an integral self the bounds are
    truncated to integers first (no type promotion; uint8 refuses negative bounds), then
    at::clamp_out (whose checks refuse complex self).
    """
    if self._dtype is bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        min_val, max_val = int(min_val), int(max_val)  # type: ignore[arg-type]  # real
        if self._dtype is uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return aten.clamp.out(self, min_val, max_val, out=out)


@implements(hardtanh)
def hardtanh_kernel(self: TensorImpl, min_val: Scalar = -1, max_val: Scalar = 1) -> Any:
    """Torch: hardtanh in Activation.cpp (hardtanh_out into at::empty_like(self))."""
    return aten.hardtanh.out(self, min_val, max_val, out=aten.empty_like.default(self))


@implements(hardtanh_)
def hardtanh__kernel(self: TensorImpl, min_val: Scalar = -1, max_val: Scalar = 1) -> Any:
    """Torch: hardtanh_ in Activation.cpp (hardtanh_out(self, ..., self))."""
    return aten.hardtanh.out(self, min_val, max_val, out=self)


@hardtanh.derivative("self")
def hardtanh_backward_self(grad: Tensor, self: Tensor, min_val: Scalar, max_val: Scalar) -> Tensor:
    # torch: hardtanh_backward(grad, self, min_val, max_val)
    return aten.hardtanh_backward.default(grad, self, min_val, max_val)


# torch: hardtanh_backward_out (TensorIterator::borrowing_binary_op(grad_input, grad_output,
# self)) and hardtanh_backward_kernel.
hardtanh_backward = pointwise(
    "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor",
    Builder.BINARY_OP,
)


@hardtanh_backward.compute
def hardtanh_backward_compute(
    xp: ArrayNamespace, grad_output: Array, self: Array, min_val: Scalar, max_val: Scalar
) -> Array:
    """grad_output, zeroed where self is at or beyond a bound (NaN self passes the grad)."""
    outside = (self <= scalar_like(xp, min_val, self)) | (self >= scalar_like(xp, max_val, self))
    return xp.where(outside, xp.zeros_like(grad_output), grad_output)


@hardtanh_backward.derivative("grad_output")
def hardtanh_backward_backward_grad_output(
    grad: Tensor, self: Tensor, min_val: Scalar, max_val: Scalar
) -> Tensor:
    # torch: hardtanh_backward(grad, self, min_val, max_val)
    return aten.hardtanh_backward.default(grad, self, min_val, max_val)


@hardtanh_backward.derivative("self")
def hardtanh_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- threshold, threshold_backward -----------------------------------------------------------

# torch: TORCH_META_FUNC(threshold): self twice (as self and other), promoted and cast to the
# output, which may be of a wider dtype; no overlap check (threshold is idempotent).
_THRESHOLD_CONFIG: Final = IterConfig(
    promote_inputs_to_common_dtype=True,
    check_all_same_dtype=False,
    cast_common_dtype_to_outputs=True,
    enforce_safe_casting_to_output=True,
    allow_cpu_scalars=True,
    check_mem_overlap=False,
)

threshold = pointwise(
    "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", _THRESHOLD_CONFIG
)


@threshold.compute
def threshold_compute(xp: ArrayNamespace, self: Array, threshold: Scalar, value: Scalar) -> Array:
    """`value` where self <= threshold, else self (NaN kept). Torch: threshold_kernel (both
    Scalars converted to the dtype first)."""
    below = self <= scalar_like(xp, threshold, self)
    return xp.where(below, scalar_like(xp, value, self), self)


@threshold.derivative("self")
def threshold_backward_self(grad: Tensor, self: Tensor, threshold: Scalar) -> Tensor:
    # torch: threshold_backward(grad, self, threshold)
    return aten.threshold_backward.default(grad, self, threshold)


@threshold.derivative("self", overload="threshold_")
def threshold__backward_self(grad: Tensor, self: Tensor, threshold: Scalar) -> Tensor:
    # torch: threshold_: threshold_backward(grad, self, threshold) (self as it was before)
    return aten.threshold_backward.default(grad, self, threshold)


# torch: TORCH_META_FUNC(threshold_backward): build_borrowing_binary_op(grad_input, self, grad).
threshold_backward = pointwise(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "grad_output"),
)


@threshold_backward.compute
def threshold_backward_compute(
    xp: ArrayNamespace, self: Array, grad_output: Array, threshold: Scalar
) -> Array:
    """0 where self <= threshold, else grad_output. Torch: threshold_kernel (value 0)."""
    below = self <= scalar_like(xp, threshold, self)
    return xp.where(below, xp.zeros_like(grad_output), grad_output)


@threshold_backward.derivative("grad_output")
def threshold_backward_backward_grad_output(
    grad: Tensor, self: Tensor, threshold: Scalar
) -> Tensor:
    # torch: threshold_backward(grad, self, threshold)
    return aten.threshold_backward.default(grad, self, threshold)


@threshold_backward.derivative("self")
def threshold_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- leaky_relu, leaky_relu_backward ---------------------------------------------------------

leaky_relu = pointwise(
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", Builder.UNARY_OP, opmath=True
)


@leaky_relu.compute
def leaky_relu_compute(xp: ArrayNamespace, self: Array, negative_slope: Scalar) -> Array:
    """self where positive, else self * negative_slope. Torch: leaky_relu_kernel."""
    return xp.where(self > 0, self, self * scalar_like(xp, negative_slope, self))


@leaky_relu.derivative("self")
def leaky_relu_backward_self(grad: Tensor, self: Tensor, negative_slope: Scalar) -> Tensor:
    # torch: leaky_relu_backward(grad, self, negative_slope, false)
    return aten.leaky_relu_backward.default(grad, self, negative_slope, False)


@leaky_relu.derivative("self", overload="leaky_relu_")
def leaky_relu__backward_self(grad: Tensor, result: Tensor, negative_slope: Scalar) -> Tensor:
    # torch: leaky_relu_: leaky_relu_backward(grad, result, negative_slope, true)
    return aten.leaky_relu_backward.default(grad, result, negative_slope, True)


# torch: TORCH_META_FUNC(leaky_relu_backward): the in-place check, then
# build_borrowing_binary_op(grad_input, self_or_result, grad_output).
leaky_relu_backward = pointwise(
    "leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, "
    "bool self_is_result) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "grad_output"),
    opmath=True,
)


@leaky_relu_backward.precheck
def leaky_relu_backward_precheck(
    self: Any, grad_output: Any, *, negative_slope: Scalar, self_is_result: bool
) -> None:
    if self_is_result and negative_slope < 0:  # type: ignore[operator]  # a real Scalar
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope"
        )


@leaky_relu_backward.compute
def leaky_relu_backward_compute(
    xp: ArrayNamespace,
    self: Array,
    grad_output: Array,
    negative_slope: Scalar,
    self_is_result: bool,
) -> Array:
    """grad_output where self is positive, else grad_output * negative_slope.
    Torch: leaky_relu_backward_kernel."""
    scaled = grad_output * scalar_like(xp, negative_slope, grad_output)
    return xp.where(self > 0, grad_output, scaled)


@leaky_relu_backward.derivative("grad_output")
def leaky_relu_backward_backward_grad_output(
    grad: Tensor, self: Tensor, negative_slope: Scalar
) -> Tensor:
    # torch: leaky_relu_backward(grad, self, negative_slope, false)
    return aten.leaky_relu_backward.default(grad, self, negative_slope, False)


@leaky_relu_backward.derivative("self")
def leaky_relu_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- prelu, _prelu_kernel, _prelu_kernel_backward --------------------------------------------

prelu = defop("prelu(Tensor self, Tensor weight) -> Tensor")


@prelu.decomposition
def prelu_decomposition(self: TensorImpl, weight: TensorImpl) -> Any:
    """self where positive, else weight * self, one weight per channel (dim 1).

    Torch: prelu in Activation.cpp: same dtypes; a weight of more than one element must match
    the channel count (a 0-dim self refused); weight a scalar or 1-D, reshaped to
    [1, C, 1, ...] to broadcast; then _prelu_kernel.
    """
    self_dim = len(self._size)
    if self._dtype is not weight._dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{self._dtype.scalar_name} and {weight._dtype.scalar_name}"
        )
    weight_numel = 1
    for size in weight._size:
        weight_numel *= size
    if weight_numel != 1:
        if self_dim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self._size[1] if self_dim > 1 else 1
        if channels != weight_numel:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight_numel} and channel size = {channels}."
            )
    if len(weight._size) > 1:
        raise RuntimeError(
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
            f"{len(weight._size)}"
        )
    if self_dim != len(weight._size):
        shape = [1] * self_dim
        if self_dim > 1:
            shape[1] = weight_numel
        weight = aten.reshape.default(weight, shape)
    return aten._prelu_kernel.default(self, weight)


# torch: _prelu_kernel (TensorIterator::binary_op(result, self, weight)) and prelu_kernel.
_prelu_kernel = pointwise("_prelu_kernel(Tensor self, Tensor weight) -> Tensor", Builder.BINARY_OP)


@_prelu_kernel.compute
def _prelu_kernel_compute(xp: ArrayNamespace, self: Array, weight: Array) -> Array:
    """self where positive, else weight * self."""
    return xp.where(self > 0, self, weight * self)


@_prelu_kernel.derivative("self", "weight")
def _prelu_kernel_backward_self_weight(
    grad: Tensor, self: Tensor, weight: Tensor
) -> tuple[Tensor, Tensor]:
    # torch: _prelu_kernel_backward(grad, self, weight)
    grad_self, grad_weight = aten._prelu_kernel_backward.default(grad, self, weight)
    return grad_self, grad_weight


_prelu_kernel_backward = defop(
    "_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (Tensor, Tensor)"
)


@implements(_prelu_kernel_backward)
def _prelu_kernel_backward_kernel(
    grad_output: TensorImpl, self: TensorImpl, weight: TensorImpl
) -> Any:
    """(grad where self > 0 else weight * grad, 0 where self > 0 else self * grad).

    Torch: _prelu_kernel_backward in Activation.cpp: one iterator over (self, weight, grad)
    writes both gradients at the broadcast shape (prelu_backward_kernel); autograd sums the
    weight's back to the weight's shape.
    """
    dtype = self._dtype
    if dtype not in FLOATING:
        raise NotImplementedError(
            f"\"prelu_backward_cpu\" not implemented for '{dtype.scalar_name}'"
        )
    positive = aten.gt.Scalar(self, 0)
    grad_self = aten.where.self(positive, grad_output, aten.mul.Tensor(weight, grad_output))
    grad_weight = aten.where.self(
        positive,
        aten.zeros.default([], dtype=dtype, device=self._storage.device),
        aten.mul.Tensor(self, grad_output),
    )
    return grad_self, grad_weight


@_prelu_kernel_backward.derivative("grad_output", "self", "weight")
def _prelu_kernel_backward_backward(
    grads: tuple[Tensor | None, Tensor | None], grad_output: Tensor, self: Tensor, weight: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    # torch: the formulas of _prelu_kernel_backward in derivatives.yaml (grads[0] the
    # gradient of grad_self, grads[1] of grad_weight; an undefined one counts as zero).
    g_self, g_weight = grads
    non_negative = aten.ge.Scalar(self, 0)
    if g_self is not None and g_weight is not None:
        d_grad = aten.where.self(
            non_negative,
            g_self,
            aten.add.Tensor(aten.mul.Tensor(g_self, weight), aten.mul.Tensor(g_weight, self)),
        )
    elif g_self is not None:
        d_grad = aten.where.self(non_negative, g_self, aten.mul.Tensor(g_self, weight))
    else:
        d_grad = aten.where.self(
            non_negative, zero_of(grad_output), aten.mul.Tensor(g_weight, self)
        )
    if g_weight is not None:
        d_self = aten.where.self(
            non_negative, zero_of(self), aten.mul.Tensor(grad_output, g_weight)
        )
    else:
        d_self = aten.zeros_like.default(self)
    if g_self is not None:
        d_weight = aten.where.self(
            non_negative, zero_of(weight), aten.mul.Tensor(grad_output, g_self)
        )
    else:
        d_weight = aten.zeros_like.default(self)
    return d_grad, d_self, d_weight
