"""The aten ops beneath torch.nn.functional's regression losses: mse_loss, l1_loss,
smooth_l1_loss, huber_loss, soft_margin_loss, kl_div and poisson_nll_loss, with their backward
ops; binary cross entropy is in nn_loss_bce.py, nll_loss in nn_loss_nll.py, cross_entropy in
nn_loss_cross_entropy.py.

Torch: aten/src/ATen/native/Loss.cpp (the entry points, apply_loss_reduction, the backward
kernels' `norm`), aten/src/ATen/native/cpu/BinaryOpsKernel.cpp and PointwiseOpsKernel.cpp
(the elementwise formulas), tools/autograd/derivatives.yaml and the *_double_backward
functions of torch/csrc/autograd/FunctionsManual.cpp. The kernels compose aten ops below
autograd, as torch's do (a TorchDispatchMode sees only the loss op); float16 computes op by
op in float16, matching torch's CPU results bit for bit.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import bool_, float32
from refimpl._base.promotion import promote_types
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (
    nn_loss_bce,  # noqa: F401  # registers its kernels
    nn_loss_cross_entropy,  # noqa: F401  # registers its decomposition
    nn_loss_nll,  # noqa: F401  # registers its kernels
)
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_loss_common import (
    Reduction,
    apply_loss_reduction,
    check_can_cast,
    check_can_cast_dtype,
    check_floating,
    check_inplace_broadcast,
    check_reduction_assert,
    norm,
    reduce_into,
    write_out,
)
from refimpl.ops._outputs import warn_resize
from refimpl.ops._reduction import implements
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")


def _finish(loss: Any, reduction: int, out: TensorImpl | None, line: int) -> Any:
    """The reduced `loss`, or `out` holding it. Torch: the tail of mse_loss_out and
    smooth_l1_loss_out (at::mean_out / at::sum_out into the result, or the iterator's output
    for none; any other value trips their internal assert)."""
    if reduction == Reduction.NONE:
        return loss if out is None else write_out(loss, out)
    check_reduction_assert(reduction, line)
    if out is None:
        return apply_loss_reduction(loss, reduction)
    # torch: the structured meta function builds a binary_op iterator over `out` first.
    check_can_cast(loss, out)
    return reduce_into(loss, reduction, out)


# --- mse_loss ----------------------------------------------------------------------------------

mse_loss = defop("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
mse_loss_out = defop(
    "mse_loss.out(Tensor self, Tensor target, int reduction=1, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(mse_loss)
@implements(mse_loss_out)
def mse_loss_kernel(
    self: TensorImpl, target: TensorImpl, reduction: int = 1, *, out: TensorImpl | None = None
) -> Any:
    """`(self - target)**2`, reduced. Torch: mse_loss_out in Loss.cpp (a binary_op
    TensorIterator: broadcast, promoted; mse_kernel computes `diff * diff`)."""
    check_floating("mse_cpu", self, target)
    diff = aten.sub.Tensor(self, target)
    return _finish(aten.mul.Tensor(diff, diff), reduction, out, 97)


@mse_loss.derivative("self")
def mse_loss_backward_self(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    # torch: mse_loss_backward(grad, self, target, reduction)
    return aten.mse_loss_backward.default(grad, self, target, reduction)


@mse_loss.derivative("target")
def mse_loss_backward_target(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    # torch: mse_loss_backward(grad, target, self, reduction)
    return aten.mse_loss_backward.default(grad, target, self, reduction)


mse_loss_backward = defop(
    "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor"
)
mse_loss_backward_grad_input = defop(
    "mse_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "int reduction, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _as_input(value: Any, self: TensorImpl, grad_input: TensorImpl | None) -> Any:
    # torch: the backward kernels fill zeros_like(input) (or grad_input) through an iterator
    # with cast_common_dtype_to_outputs: the result has the input's dtype.
    if grad_input is not None:
        return write_out(value, grad_input)
    return value if value._dtype is self._dtype else aten.to.dtype(value, self._dtype)


@implements(mse_loss_backward)
@implements(mse_loss_backward_grad_input)
def mse_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """`norm * (self - target) * grad_output` with norm `2/numel` (mean) or 2.

    Torch: mse_loss_backward_out in Loss.cpp and mse_backward_cpu_kernel.
    """
    check_floating("mse_backward_cpu_out", self, target, grad_output)
    scale = 2.0 * norm(self, reduction)
    diff = aten.sub.Tensor(self, target)
    value = aten.mul.Tensor(aten.mul.Scalar(diff, scale), grad_output)
    return _as_input(value, self, grad_input)


@mse_loss_backward.derivative("grad_output")
def mse_loss_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    # torch: mse_loss_backward(grad, self, target, reduction)
    return aten.mse_loss_backward.default(grad, self, target, reduction)


def _mse_double_backward(grad: Tensor, like: Tensor, reduction: int) -> Tensor:
    # torch: mse_loss_double_backward in FunctionsManual.cpp (2 * grad, / numel for mean).
    return aten.mul.Scalar(grad, 2.0 * norm(like, reduction))


@mse_loss_backward.derivative("self")
def mse_loss_backward_self_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, reduction: int
) -> Tensor:
    # torch: mse_loss_double_backward(grad * grad_output, self, reduction)
    return _mse_double_backward(aten.mul.Tensor(grad, grad_output), self, reduction)


@mse_loss_backward.derivative("target")
def mse_loss_backward_target_double(
    grad: Tensor, grad_output: Tensor, target: Tensor, reduction: int
) -> Tensor:
    # torch: -mse_loss_double_backward(grad * grad_output, target, reduction)
    return aten.neg.default(
        _mse_double_backward(aten.mul.Tensor(grad, grad_output), target, reduction)
    )


# --- l1_loss -----------------------------------------------------------------------------------

l1_loss = defop("l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")


@l1_loss.decomposition
def l1_loss_decomposition(self: TensorImpl, target: TensorImpl, reduction: int = 1) -> Any:
    """Torch: l1_loss in Loss.cpp (CompositeImplicitAutograd):
    apply_loss_reduction((self - target).abs(), reduction)."""
    return apply_loss_reduction(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


# --- smooth_l1_loss, huber_loss ----------------------------------------------------------------

smooth_l1_loss = defop(
    "smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor"
)
smooth_l1_loss_out = defop(
    "smooth_l1_loss.out(Tensor self, Tensor target, int reduction=1, float beta=1., *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@implements(smooth_l1_loss)
@implements(smooth_l1_loss_out)
def smooth_l1_loss_kernel(
    self: TensorImpl,
    target: TensorImpl,
    reduction: int = 1,
    beta: float = 1.0,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """`z = |self - target|`: `0.5 * z**2 / beta` where `z < beta`, else `z - 0.5 * beta`.

    Torch: TORCH_META_FUNC(smooth_l1_loss) (the beta check) and smooth_l1_loss_out in
    Loss.cpp; smooth_l1_kernel in BinaryOpsKernel.cpp.
    """
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    check_floating("smooth_l1_cpu", self, target)
    z = aten.abs.default(aten.sub.Tensor(self, target))
    inner = aten.div.Scalar(aten.mul.Scalar(aten.mul.Tensor(z, z), 0.5), beta) if beta else z
    loss = aten.where.self(aten.lt.Scalar(z, beta), inner, aten.sub.Scalar(z, 0.5 * beta))
    return _finish(loss, reduction, out, 86)


@smooth_l1_loss.derivative("self")
def smooth_l1_loss_backward_self(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: smooth_l1_loss_backward(grad, self, target, reduction, beta)
    return aten.smooth_l1_loss_backward.default(grad, self, target, reduction, beta)


@smooth_l1_loss.derivative("target")
def smooth_l1_loss_backward_target(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: smooth_l1_loss_backward(grad, target, self, reduction, beta)
    return aten.smooth_l1_loss_backward.default(grad, target, self, reduction, beta)


huber_loss = defop(
    "huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor"
)
huber_loss_out = defop(
    "huber_loss.out(Tensor self, Tensor target, int reduction=1, float delta=1., *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@implements(huber_loss)
@implements(huber_loss_out)
def huber_loss_kernel(
    self: TensorImpl,
    target: TensorImpl,
    reduction: int = 1,
    delta: float = 1.0,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """`z = |self - target|`: `0.5 * z**2` where `z < delta`, else `delta * (z - 0.5 * delta)`.

    Torch: huber_loss / huber_loss_out in Loss.cpp (the delta check; the loss written into
    a tensor like `self`, so of self's dtype, then apply_loss_reduction); huber_kernel.
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    dtype = check_floating("huber_cpu", self, target)
    # torch: huber_kernel computes float16/bfloat16 in float32 (one rounding at the end).
    wide = compute_dtype(dtype)
    diff = aten.sub.Tensor(aten.to.dtype(self, wide), aten.to.dtype(target, wide))
    z = aten.abs.default(diff)
    loss = aten.where.self(
        aten.lt.Scalar(z, delta),
        aten.mul.Scalar(aten.mul.Tensor(z, z), 0.5),
        aten.mul.Scalar(aten.sub.Scalar(z, 0.5 * delta), delta),
    )
    if loss._size != self._size:
        # torch: the loss is written into empty_like(self), which the iterator resizes.
        warn_resize(self, loss._size)
    if loss._dtype is not self._dtype:
        loss = aten.to.dtype(loss, self._dtype)
    if out is None:
        return apply_loss_reduction(loss, reduction)
    if reduction == Reduction.NONE:
        return write_out(loss, out)
    return write_out(apply_loss_reduction(loss, reduction), out)


@huber_loss.derivative("self")
def huber_loss_backward_self(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: huber_loss_backward(grad, self, target, reduction, delta)
    return aten.huber_loss_backward.default(grad, self, target, reduction, delta)


@huber_loss.derivative("target")
def huber_loss_backward_target(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: huber_loss_backward(grad, target, self, reduction, delta)
    return aten.huber_loss_backward.default(grad, target, self, reduction, delta)


smooth_l1_loss_backward = defop(
    "smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, "
    "float beta) -> Tensor"
)
smooth_l1_loss_backward_grad_input = defop(
    "smooth_l1_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "int reduction, float beta, *, Tensor(a!) grad_input) -> Tensor(a!)"
)
huber_loss_backward = defop(
    "huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, "
    "float delta) -> Tensor"
)
huber_loss_backward_out = defop(
    "huber_loss_backward.out(Tensor grad_output, Tensor self, Tensor target, int reduction, "
    "float delta, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _piecewise_backward(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    bound: float,
    slope: float,
    inner_scale: float,
    kernel_name: str,
    wide: bool,
) -> Any:
    """`x = self - target`: `-norm * slope * g` where `x <= -bound`, `norm * slope * g` where
    `x >= bound`, else `norm * inner_scale * x * g`. Torch: smooth_l1_backward_cpu_kernel
    (slope 1, inner 1/beta; measured on torch 2.13: float16 computes in float32, `wide`) and
    huber_backward_cpu_kernel (slope delta, inner 1)."""
    dtype = check_floating(kernel_name, self, target, grad_output)
    scale = norm(self, reduction)
    if wide:
        # float16/bfloat16 computed in float32, rounded once (at the caller's cast).
        up = compute_dtype(dtype)
        self, target, grad_output = (aten.to.dtype(t, up) for t in (self, target, grad_output))
    x = aten.sub.Tensor(self, target)
    g = aten.mul.Scalar(grad_output, scale)
    outer = aten.mul.Scalar(g, slope)
    inner = aten.mul.Tensor(aten.mul.Scalar(x, inner_scale), g) if bound else outer
    return aten.where.self(
        aten.le.Scalar(x, -bound),
        aten.neg.default(outer),
        aten.where.self(aten.ge.Scalar(x, bound), outer, inner),
    )


@implements(smooth_l1_loss_backward)
@implements(smooth_l1_loss_backward_grad_input)
def smooth_l1_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    beta: float,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: smooth_l1_loss_backward_out in Loss.cpp (beta 0 is the sign of x: x == 0 takes
    the `x <= -beta` branch)."""
    inner = 1.0 / beta if beta else 0.0
    value = _piecewise_backward(
        grad_output, self, target, reduction, beta, 1.0, inner, "smooth_l1_backward_cpu_out", True
    )
    return _as_input(value, self, grad_input)


@implements(huber_loss_backward)
@implements(huber_loss_backward_out)
def huber_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    delta: float,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: huber_loss_backward_out in Loss.cpp."""
    value = _piecewise_backward(
        grad_output, self, target, reduction, delta, delta, 1.0, "huber_backward_cpu_out", False
    )
    return _as_input(value, self, grad_input)


def _inside(self: Tensor, target: Tensor, bound: float) -> Tensor:
    # Where the loss is quadratic: |self - target| < bound, as a 0/1 tensor of self's dtype.
    mask = aten.lt.Scalar(aten.abs.default(aten.sub.Tensor(self, target)), bound)
    return aten.to.dtype(mask, self._dtype)


@smooth_l1_loss_backward.derivative("grad_output")
def smooth_l1_loss_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: smooth_l1_loss_double_backward_grad_output: smooth_l1_loss_backward(grad, ...)
    return aten.smooth_l1_loss_backward.default(grad, self, target, reduction, beta)


def _smooth_l1_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta):
    # grad * (|x| < beta) / beta, / numel for mean; zero for beta 0.
    g = aten.mul.Tensor(grad, grad_output)
    if beta == 0:
        return aten.zeros_like.default(g)
    scaled = aten.mul.Scalar(g, norm(self, reduction) / beta)
    return aten.mul.Tensor(scaled, _inside(self, target, beta))


@smooth_l1_loss_backward.derivative("self")
def smooth_l1_loss_backward_self_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)
    return _smooth_l1_double(grad, grad_output, self, target, reduction, beta)


@smooth_l1_loss_backward.derivative("target")
def smooth_l1_loss_backward_target_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float
) -> Tensor:
    # torch: -smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)
    return aten.neg.default(_smooth_l1_double(grad, grad_output, self, target, reduction, beta))


@huber_loss_backward.derivative("grad_output")
def huber_loss_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: huber_loss_double_backward_grad_output: huber_loss_backward(grad, ...)
    return aten.huber_loss_backward.default(grad, self, target, reduction, delta)


def _huber_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: huber_loss_double_backward(grad * grad_output, self, target, reduction, delta):
    # grad * (|x| < delta), / numel for mean.
    g = aten.mul.Scalar(aten.mul.Tensor(grad, grad_output), norm(self, reduction))
    return aten.mul.Tensor(g, _inside(self, target, delta))


@huber_loss_backward.derivative("self")
def huber_loss_backward_self_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)
    return _huber_double(grad, grad_output, self, target, reduction, delta)


@huber_loss_backward.derivative("target")
def huber_loss_backward_target_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float
) -> Tensor:
    # torch: -huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)
    return aten.neg.default(_huber_double(grad, grad_output, self, target, reduction, delta))


# --- soft_margin_loss --------------------------------------------------------------------------

soft_margin_loss = defop("soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
soft_margin_loss_out = defop(
    "soft_margin_loss.out(Tensor self, Tensor target, int reduction=1, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@implements(soft_margin_loss)
@implements(soft_margin_loss_out)
def soft_margin_loss_kernel(
    self: TensorImpl, target: TensorImpl, reduction: int = 1, *, out: TensorImpl | None = None
) -> Any:
    """`log(1 + exp(-self * target))`, reduced.

    Torch: soft_margin_loss_out in Loss.cpp: `at::neg_out(output, input).mul_(target)
    .exp_().log1p_()` in place (so the loss has self's shape and dtype: a target that
    broadcasts it larger, or an integer self, fail as those in-place ops do), then
    apply_loss_reduction into the output resized to [].
    """
    # The checks of the in-place steps below, made before `out` is written (a bool self
    # fails first in neg, which writes nothing). Differs: torch's neg_out writes `out`
    # before its mul_ or exp_ fails.
    if self._dtype is not bool_:
        check_inplace_broadcast(self, target)
        check_can_cast_dtype(promote_types(self._dtype, target._dtype), self._dtype)
        if not (self._dtype.is_floating_point or self._dtype.is_complex):
            check_can_cast_dtype(float32, self._dtype)  # exp_ of an integer self
    output = aten.neg.default(self) if out is None else aten.neg.out(self, out=out)
    aten.log1p_.default(aten.exp_.default(aten.mul_.Tensor(output, target)))
    if reduction == Reduction.NONE:
        return output
    reduced = apply_loss_reduction(output, reduction)
    if out is None:
        return reduced
    aten.resize_.default(out, [])
    aten.copy_.default(out, reduced)
    return out


@soft_margin_loss.derivative("self")
def soft_margin_loss_backward_self(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    # torch: soft_margin_loss_backward(grad, self, target, reduction)
    return aten.soft_margin_loss_backward.default(grad, self, target, reduction)


soft_margin_loss_backward = defop(
    "soft_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) "
    "-> Tensor"
)
soft_margin_loss_backward_grad_input = defop(
    "soft_margin_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "int reduction, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


@implements(soft_margin_loss_backward)
@implements(soft_margin_loss_backward_grad_input)
def soft_margin_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """`-norm * target * z / (1 + z) * grad_output`, `z = exp(-target * self)`.

    Torch: soft_margin_loss_backward_out in Loss.cpp (at::mul_out(grad_input, target, z)
    .mul_(-norm), then div_(1 + z) and mul_(grad_output), in place).
    """
    scale = norm(self, reduction)
    z = aten.exp.default(aten.mul.Tensor(aten.neg.default(target), self))
    result = (
        aten.mul.Tensor(target, z)
        if grad_input is None
        else aten.mul.out(target, z, out=grad_input)
    )
    aten.mul_.Scalar(result, -scale)
    aten.mul_.Tensor(aten.div_.Tensor(result, aten.add.Scalar(z, 1)), grad_output)
    return result


@soft_margin_loss_backward.derivative("grad_output")
def soft_margin_loss_backward_grad_output(
    grad: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    # torch: soft_margin_loss_double_backward_grad_output: soft_margin_loss_backward(grad, ...)
    return aten.soft_margin_loss_backward.default(grad, self, target, reduction)


@soft_margin_loss_backward.derivative("self")
def soft_margin_loss_backward_self_double(
    grad: Tensor, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int
) -> Tensor:
    # torch: soft_margin_loss_double_backward(grad * grad_output, self, target, reduction):
    # norm * target**2 * z / (1 + z)**2 * grad, z = exp(-target * self).
    z = aten.exp.default(aten.mul.Tensor(aten.neg.default(target), self))
    onez = aten.add.Scalar(z, 1)
    factor = aten.div.Tensor(
        aten.mul.Tensor(aten.mul.Tensor(target, target), z), aten.mul.Tensor(onez, onez)
    )
    g = aten.mul.Scalar(aten.mul.Tensor(grad, grad_output), norm(self, reduction))
    return aten.mul.Tensor(g, factor)


# --- kl_div, poisson_nll_loss --------------------------------------------------------------------

kl_div = defop(
    "kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor"
)


@kl_div.decomposition
def kl_div_decomposition(
    self: TensorImpl, target: TensorImpl, reduction: int = 1, *, log_target: bool = False
) -> Any:
    """Torch: kl_div in Loss.cpp (CompositeImplicitAutograd): `exp(target) * (target - self)`
    for a log target, else `xlogy(target, target) - target * self`, then
    apply_loss_reduction. The operands are evaluated right to left, as torch's compiler
    does (the order a TorchDispatchMode sees)."""
    if log_target:
        diff = aten.sub.Tensor(target, self)
        loss = aten.mul.Tensor(aten.exp.default(target), diff)
    else:
        product = aten.mul.Tensor(target, self)
        loss = aten.sub.Tensor(aten.xlogy.Tensor(target, target), product)
    return apply_loss_reduction(loss, reduction)


poisson_nll_loss = defop(
    "poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
    "int reduction) -> Tensor"
)


@poisson_nll_loss.decomposition
def poisson_nll_loss_decomposition(
    input: TensorImpl,  # the schema's name
    target: TensorImpl,
    log_input: bool,
    full: bool,
    eps: float,
    reduction: int,
) -> Any:
    """Torch: poisson_nll_loss in Loss.cpp (CompositeImplicitAutograd): `exp(input) - target
    * input` (log input) or `input - target * log(input + eps)`; with `full`, the Stirling
    term `target * log(target) - target + 0.5 * log(2 * pi * target)`, zero where
    `target <= 1`, added in place; then apply_loss_reduction. Operands right to left."""
    if log_input:
        product = aten.mul.Tensor(target, input)
        loss = aten.sub.Tensor(aten.exp.default(input), product)
    else:
        logged = aten.log.default(aten.add.Scalar(input, eps))
        loss = aten.sub.Tensor(input, aten.mul.Tensor(target, logged))
    if full:
        half_log = aten.mul.Scalar(aten.log.default(aten.mul.Scalar(target, 2 * math.pi)), 0.5)
        xlogx = aten.mul.Tensor(target, aten.log.default(target))
        stirling = aten.add.Tensor(aten.sub.Tensor(xlogx, target), half_log)
        loss = aten.add_.Tensor(
            loss, aten.masked_fill.Scalar(stirling, aten.le.Scalar(target, 1), 0)
        )
    return apply_loss_reduction(loss, reduction)
