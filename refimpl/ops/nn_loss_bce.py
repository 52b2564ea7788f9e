"""The aten ops of binary cross entropy: binary_cross_entropy (+ its backward op) and
binary_cross_entropy_with_logits.

Torch: binary_cross_entropy_out_cpu / binary_cross_entropy_backward_out_cpu in
aten/src/ATen/native/Loss.cpp (one TensorIterator over same-dtype operands: the range checks
run per element, the logs are clamped at -100, the backward divides by
`max((1 - x) * x, 1e-12)`), binary_cross_entropy_with_logits (CompositeExplicitAutograd) in
the same file, derivatives.yaml and the binary_cross_entropy_* functions of
torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_loss_common import (
    FLOATING_KERNEL_DTYPES,
    Reduction,
    apply_loss_reduction,
    check_floating,
    check_inplace_broadcast,
    numel,
)
from refimpl.ops._reduction import has_data, implements, not_implemented
from refimpl.ops._register import defop

aten: Final = namespace("aten")

_EPSILON: Final = 1e-12  # torch: EPSILON in Loss.cpp
_LOG_FLOOR: Final = -100.0  # torch: the clamp of the logs in binary_cross_entropy


def _check_same_dtype(kernel_name: str, *tensors: TensorImpl | None) -> None:
    """Torch: a TensorIterator with check_all_same_dtype ("Found dtype Double but expected
    Float": expected is the first input's dtype), then the AT_DISPATCH switch."""
    present = [t for t in tensors if t is not None]
    expected = present[0]._dtype
    for t in present[1:]:
        if t._dtype is not expected:
            raise RuntimeError(
                f"Found dtype {t._dtype.scalar_name} but expected {expected.scalar_name}"
            )
    if expected not in FLOATING_KERNEL_DTYPES:
        raise not_implemented(kernel_name, expected)


def _check_unit_range(t: TensorImpl, name: str) -> None:
    # torch: TORCH_CHECK((x >= 0) && (x <= 1), ...) per element (so NaN fails too).
    inside = aten.logical_and.default(aten.ge.Scalar(t, 0), aten.le.Scalar(t, 1))
    if not aten._local_scalar_dense.default(aten.all.default(inside)):
        raise RuntimeError(f"all elements of {name} should be between 0 and 1")


# --- binary_cross_entropy ----------------------------------------------------------------------

binary_cross_entropy = defop(
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) "
    "-> Tensor"
)
binary_cross_entropy_out = defop(
    "binary_cross_entropy.out(Tensor self, Tensor target, Tensor? weight=None, "
    "int reduction=1, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(binary_cross_entropy)
@implements(binary_cross_entropy_out)
def binary_cross_entropy_kernel(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """`-w * (t * max(log x, -100) + (1 - t) * max(log(1 - x), -100))`, reduced.

    Torch: binary_cross_entropy_cpu / binary_cross_entropy_out_cpu: the loss is written into
    a tensor like `self` (`target` broadcasts to it), multiplied in place by `weight`, then
    apply_loss_reduction copied into it (resize_as_).
    """
    _check_same_dtype("binary_cross_entropy", self, target)
    # torch: the loss is `self`-shaped: target (the iterator) and weight (mul_) may only
    # broadcast to it. Differs: checked before anything is written (torch's out= form has
    # written the unweighted loss into `out` when mul_ fails).
    check_inplace_broadcast(self, target)
    if weight is not None:
        check_inplace_broadcast(self, weight)
    if has_data(self) and has_data(target):
        _check_unit_range(self, "input")
        _check_unit_range(target, "target")
    log_x = aten.clamp_min.default(aten.log.default(self), _LOG_FLOOR)
    log_1mx = aten.clamp_min.default(aten.log1p.default(aten.neg.default(self)), _LOG_FLOOR)
    # torch: (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)
    loss = aten.sub.Tensor(
        aten.mul.Tensor(aten.sub.Scalar(target, 1), log_1mx), aten.mul.Tensor(target, log_x)
    )
    if out is not None:
        aten.resize_.default(out, list(self._size))
        loss = aten.copy_.default(out, loss)
    if weight is not None:
        loss = aten.mul_.Tensor(loss, weight)
    if reduction == Reduction.NONE:
        return loss
    reduced = apply_loss_reduction(loss, reduction)
    if out is None:
        return reduced
    aten.resize_.default(out, list(reduced._size))
    aten.copy_.default(out, reduced)
    return out


@binary_cross_entropy.derivative("self")
def binary_cross_entropy_backward_self(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    # torch: binary_cross_entropy_backward(grad, self, target, weight, reduction)
    return aten.binary_cross_entropy_backward.default(grad, self, target, weight, reduction)


def _weighted_mean(value: Tensor, weight: Tensor | None, like: Tensor, reduction: int) -> Tensor:
    # The tail of torch's binary_cross_entropy gradient functions: * weight, / numel for mean.
    if weight is not None:
        value = aten.mul.Tensor(value, weight)
    if reduction == Reduction.MEAN:
        value = aten.div_.Scalar(value, numel(like))
    return value


@binary_cross_entropy.derivative("target")
def binary_cross_entropy_backward_target(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    # torch: binary_cross_entropy_target_backward: -logit(self) * grad (* weight, / numel).
    value = aten.mul.Tensor(aten.neg_.default(aten.logit.default(self)), grad)
    return _weighted_mean(value, weight, target, reduction)


binary_cross_entropy_backward = defop(
    "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, "
    "Tensor? weight=None, int reduction=1) -> Tensor"
)
binary_cross_entropy_backward_grad_input = defop(
    "binary_cross_entropy_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "Tensor? weight=None, int reduction=1, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


@implements(binary_cross_entropy_backward)
@implements(binary_cross_entropy_backward_grad_input)
def binary_cross_entropy_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """`g * (x - t) / max((1 - x) * x, 1e-12)`, times `weight`, / numel for mean.

    Torch: binary_cross_entropy_backward_out_cpu in Loss.cpp.
    """
    _check_same_dtype("binary_cross_entropy_backward", grad_output, self, target)
    denominator = aten.clamp_min.default(aten.mul.Tensor(aten.rsub.Scalar(self, 1), self), _EPSILON)
    value = aten.div.Tensor(
        aten.mul.Tensor(grad_output, aten.sub.Tensor(self, target)), denominator
    )
    if weight is not None:
        value = aten.mul.Tensor(value, weight)
    if reduction == Reduction.MEAN:
        value = aten.div.Scalar(value, numel(self))
    if grad_input is None:
        return value
    aten.resize_.default(grad_input, list(value._size))
    return aten.copy_.default(grad_input, value)


@binary_cross_entropy_backward.derivative("grad_output")
def binary_cross_entropy_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    # torch: binary_cross_entropy_double_backward_grad_output:
    # grad * (x - t) / max((1 - x) * x, eps) (* weight, / numel for mean).
    denominator = aten.clamp_min.default(aten.mul.Tensor(aten.rsub.Scalar(self, 1), self), _EPSILON)
    value = aten.mul.Tensor(aten.div.Tensor(aten.sub.Tensor(self, target), denominator), grad)
    return _weighted_mean(value, weight, self, reduction)


@binary_cross_entropy_backward.derivative("self")
def binary_cross_entropy_backward_self_double(
    grad: Tensor,
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
) -> Tensor:
    # torch: binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, r):
    # (x*x - 2*x*t + t) / ((x + eps)**2 * (1 - x + eps)**2) * grad * grad_output.
    eps = _EPSILON
    numerator = aten.add.Tensor(
        aten.sub.Tensor(
            aten.mul.Tensor(self, self), aten.mul.Scalar(aten.mul.Tensor(self, target), 2)
        ),
        target,
    )
    x_eps = aten.add.Scalar(self, eps)
    one_m_x_eps = aten.add.Scalar(aten.rsub.Scalar(self, 1), eps)
    denominator = aten.mul.Tensor(
        aten.mul.Tensor(x_eps, x_eps), aten.mul.Tensor(one_m_x_eps, one_m_x_eps)
    )
    value = aten.mul.Tensor(
        aten.div.Tensor(numerator, denominator), aten.mul.Tensor(grad, grad_output)
    )
    return _weighted_mean(value, weight, self, reduction)


@binary_cross_entropy_backward.derivative("target")
def binary_cross_entropy_backward_target_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, weight: Tensor | None, reduction: int
) -> Tensor:
    # torch: binary_cross_entropy_double_backward_target:
    # -grad * grad_output / max((1 - x) * x, eps) (* weight, / numel for mean).
    denominator = aten.clamp_min.default(aten.mul.Tensor(aten.rsub.Scalar(self, 1), self), _EPSILON)
    value = aten.div.Tensor(aten.neg.default(aten.mul.Tensor(grad, grad_output)), denominator)
    return _weighted_mean(value, weight, self, reduction)


# --- binary_cross_entropy_with_logits ----------------------------------------------------------

binary_cross_entropy_with_logits = defop(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
    "Tensor? pos_weight=None, int reduction=1) -> Tensor"
)
binary_cross_entropy_with_logits_out = defop(
    "binary_cross_entropy_with_logits.out(Tensor self, Tensor target, Tensor? weight=None, "
    "Tensor? pos_weight=None, int reduction=1, *, Tensor(a!) out) -> Tensor(a!)"
)


def _log_sigmoid(x: Any) -> Any:
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)). Torch: log_sigmoid_cpu_kernel.
    check_floating("log_sigmoid_cpu", x)
    return aten.sub.Tensor(
        aten.clamp_max.default(x, 0),
        aten.log1p.default(aten.exp.default(aten.neg.default(aten.abs.default(x)))),
    )


@implements(binary_cross_entropy_with_logits)
@implements(binary_cross_entropy_with_logits_out)
def binary_cross_entropy_with_logits_kernel(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    pos_weight: TensorImpl | None = None,
    reduction: int = 1,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """`(1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x)`, times weight, reduced.

    Torch: binary_cross_entropy_with_logits in Loss.cpp (CompositeExplicitAutograd):
    log_sigmoid(input), scaled in place by `(pos_weight - 1) * target + 1`, then
    `(1 - target).mul_(input).sub_(...)`, `.mul_(weight)`, apply_loss_reduction.
    """
    log_sig = _log_sigmoid(self)
    if pos_weight is not None:
        log_weight = aten.add_.Scalar(aten.mul.Tensor(aten.sub.Scalar(pos_weight, 1), target), 1)
        log_sig = aten.mul_.Tensor(log_sig, log_weight)
    loss = aten.sub_.Tensor(aten.mul_.Tensor(aten.rsub.Scalar(target, 1), self), log_sig)
    if weight is not None:
        loss = aten.mul_.Tensor(loss, weight)
    result = apply_loss_reduction(loss, reduction)
    if out is None:
        return result
    aten.resize_.default(out, list(result._size))
    return aten.copy_.default(out, result)


def _bce_logits_tail(value: Tensor, weight: Tensor | None, like: Tensor, reduction: int) -> Tensor:
    if weight is not None:
        value = aten.mul.Tensor(value, weight)
    if reduction == Reduction.MEAN:
        value = aten.div_.Scalar(value, numel(like))
    return value


@binary_cross_entropy_with_logits.derivative("self")
def binary_cross_entropy_with_logits_backward_self(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    pos_weight: Tensor | None,
    reduction: int,
) -> Tensor:
    # torch: binary_cross_entropy_with_logits_backward in FunctionsManual.cpp:
    # ((pos_weight * t + 1 - t) * sigmoid(x) - pos_weight * t, or sigmoid(x) - t) * grad.
    if pos_weight is not None:
        t = aten.mul.Tensor(pos_weight, target)
        value = aten.sub.Tensor(
            aten.mul.Tensor(
                aten.sub.Tensor(aten.add.Scalar(t, 1), target), aten.sigmoid.default(self)
            ),
            t,
        )
    else:
        value = aten.sub.Tensor(aten.sigmoid.default(self), target)
    return _bce_logits_tail(aten.mul.Tensor(value, grad), weight, self, reduction)


@binary_cross_entropy_with_logits.derivative("target")
def binary_cross_entropy_with_logits_backward_target(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    pos_weight: Tensor | None,
    reduction: int,
) -> Tensor:
    # torch: binary_cross_entropy_with_logits_target_backward in FunctionsManual.cpp:
    # (log_sigmoid(-x) - log_sigmoid(x) * pos_weight, or -x) * grad.
    if pos_weight is not None:
        value = aten.sub.Tensor(
            aten.log_sigmoid.default(aten.neg.default(self)),
            aten.mul.Tensor(aten.log_sigmoid.default(self), pos_weight),
        )
    else:
        value = aten.neg.default(self)
    return _bce_logits_tail(aten.mul.Tensor(value, grad), weight, target, reduction)
