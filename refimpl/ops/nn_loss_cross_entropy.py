"""cross_entropy_loss, the CompositeImplicitAutograd op beneath F.cross_entropy: class-index
targets go through log_softmax and nll_loss_nd; a target of the input's shape holds class
probabilities; label smoothing mixes in the uniform distribution (for class-index targets,
through its own path that a TorchDispatchMode sees).

Torch: cross_entropy_loss_symint, cross_entropy_loss_prob_target and
cross_entropy_loss_label_smoothing in aten/src/ATen/native/LossNLL.cpp.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._nn_loss_common import Reduction
from refimpl.ops._outputs import format_shape
from refimpl.ops._register import defop

aten: Final = namespace("aten")

# --- cross_entropy_loss --------------------------------------------------------------------------

cross_entropy_loss = defop(
    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor"
)


def _check_label_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _class_weight_view(weight: TensorImpl, ndim: int, class_dim: int) -> Any:
    # torch: weight viewed with 1s everywhere but the class dim, to broadcast with the input.
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._size[0]
    return aten.view.default(weight, shape)


def _prob_target(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    label_smoothing: float,
) -> Any:
    """Torch: cross_entropy_loss_prob_target in LossNLL.cpp: `-(log_softmax(self) * target
    [* weight]).sum()`, divided by the number of samples for mean (NaN when empty); for none
    the sum over the class dim only."""
    ndim = len(self._size)
    class_dim = 0 if ndim == 1 else 1
    n_classes = self._size[class_dim]
    if weight is not None and (len(weight._size) != 1 or geometry.numel(weight._size) != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} "
            f"classes or no classes but got weight tensor of shape: {format_shape(weight._size)}"
        )
    logp = aten.log_softmax.int(self, class_dim, self._dtype)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        target = aten.add.Scalar(
            aten.mul.Scalar(target, 1 - label_smoothing), label_smoothing / n_classes
        )
    weight_ = None if weight is None else _class_weight_view(weight, ndim, class_dim)
    product = aten.mul.Tensor(logp, target)
    if weight_ is not None:
        product = aten.mul.Tensor(product, weight_)
    if reduction == Reduction.NONE:
        return aten.neg.default(aten.sum.dim_IntList(product, [class_dim]))
    total = aten.neg.default(aten.sum.default(product))
    if reduction == Reduction.SUM:
        return total
    if reduction != Reduction.MEAN:
        raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")
    numel = geometry.numel(logp._size)
    if numel == 0:
        return aten.fill_.Scalar(total, float("nan"))
    return aten.div.Scalar(total, numel // n_classes)


def _label_smoothing(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    label_smoothing: float,
) -> Any:
    """Torch: cross_entropy_loss_label_smoothing in LossNLL.cpp: `(1 - ls) * nll +
    (ls / C) * smooth`, where `smooth = -(log_softmax(self) [* weight]).sum(class_dim)`, 0 at
    ignored targets, reduced (mean: over the weights of the kept targets, or their count)."""
    ndim = len(self._size)
    class_dim = 0 if ndim == 1 else 1
    n_classes = self._size[class_dim]
    logp = aten.log_softmax.int(self, class_dim, self._dtype)
    nll = aten.nll_loss_nd.default(logp, target, weight, reduction, ignore_index)
    if weight is not None:
        weighted = aten.mul.Tensor(logp, _class_weight_view(weight, ndim, class_dim))
        smooth = aten.neg.default(aten.sum.dim_IntList(weighted, [class_dim]))
    else:
        smooth = aten.neg.default(aten.sum.dim_IntList(logp, [class_dim]))
    ignore_mask = aten.eq.Scalar(target, ignore_index)
    smooth = aten.masked_fill_.Scalar(smooth, ignore_mask, 0.0)
    if reduction == Reduction.MEAN:
        if weight is not None:
            # torch: the weights of the kept targets, gathered at 0 for ignored ones.
            filtered = aten.masked_fill.Scalar(target, ignore_mask, 0)
            flat = aten.view.default(filtered, [-1]) if len(filtered._size) != 1 else filtered
            gathered = aten.gather.default(weight, 0, flat)
            if len(filtered._size) != 1:
                gathered = aten.view.default(gathered, list(filtered._size))
            weight_sum = aten.sum.default(aten.masked_fill_.Scalar(gathered, ignore_mask, 0))
            ret = aten.div.Tensor(aten.sum.default(smooth), weight_sum)
        else:
            kept = aten.sum.default(aten.bitwise_not.default(ignore_mask))
            ret = aten.div.Tensor(aten.sum.default(smooth), kept)
    elif reduction == Reduction.SUM:
        ret = aten.sum.default(smooth)
    elif reduction == Reduction.NONE:
        ret = smooth
    else:
        raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")
    scaled = aten.mul.Scalar(ret, label_smoothing / n_classes)
    return aten.add.Tensor(aten.mul.Scalar(nll, 1 - label_smoothing), scaled)


@cross_entropy_loss.decomposition
def cross_entropy_loss_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Any:
    """Torch: cross_entropy_loss_symint in LossNLL.cpp: a target of the input's shape holds
    class probabilities (floating, no ignore_index); otherwise class indices, through
    nll_loss_nd over log_softmax (with label smoothing, its own path)."""
    if self._size == target._size:
        if not target._dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target._dtype.scalar_name}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        return _label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if len(self._size) == 1 else 1
    logp = aten.log_softmax.int(self, class_dim, self._dtype)
    return aten.nll_loss_nd.default(logp, target, weight, reduction, ignore_index)
