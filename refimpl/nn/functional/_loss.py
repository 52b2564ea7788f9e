"""torch.nn.functional: the regression and classification losses (mse, l1, smooth_l1, huber,
soft_margin, binary_cross_entropy(_with_logits), kl_div, poisson_nll, gaussian_nll, nll,
cross_entropy, multilabel_soft_margin, linear_cross_entropy).

Torch: torch/nn/functional.py. Each function translates the legacy `size_average`/`reduce`
arguments (refimpl/nn/_reduction.py), checks and warns as torch's does, and calls what torch's
calls: a torch._C._nn binding (refimpl/_C/_nn.py: mse_loss, nll_loss_nd, cross_entropy_loss,
...), a torch.* function (binary_cross_entropy_with_logits, kl_div, poisson_nll_loss), or
composes tensor operations in Python (gaussian_nll_loss, multilabel_soft_margin_loss, the
weighted forms of mse/l1/huber).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from refimpl._C import _nn
from refimpl.api import factories as _factories
from refimpl.api import functions as _functions
from refimpl.api import joins as _joins
from refimpl.api import nn_loss as _api
from refimpl.api import reductions as _reductions
from refimpl.autograd.grad_mode import no_grad as _no_grad
from refimpl.nn._reduction import get_enum, legacy_get_enum, legacy_get_string

__all__: list[str] = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "gaussian_nll_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "linear_cross_entropy",
    "mse_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
]

Tensor = Any

# torch._C._nn bindings (refimpl._C._nn fills its namespace from the spec, so they are read
# from it by name).
_binary_cross_entropy: Any = vars(_nn)["binary_cross_entropy"]
_cross_entropy_loss: Any = vars(_nn)["cross_entropy_loss"]
_huber_loss: Any = vars(_nn)["huber_loss"]
_l1_loss: Any = vars(_nn)["l1_loss"]
_linear: Any = vars(_nn)["linear"]
_log_sigmoid: Any = vars(_nn)["log_sigmoid"]
_mse_loss: Any = vars(_nn)["mse_loss"]
_nll_loss_nd: Any = vars(_nn)["nll_loss_nd"]
_smooth_l1_loss: Any = vars(_nn)["smooth_l1_loss"]
_soft_margin_loss: Any = vars(_nn)["soft_margin_loss"]


# The stacklevel that blames the caller of an F function from inside it: torch's 2, plus the
# frame of the __torch_function__ wrapper these functions sit behind (the package __init__).
_CALLER = 3


def _warn_size_mismatch(input: Tensor, target: Tensor) -> None:  # torch's name
    # torch: the broadcasting warning of mse_loss, l1_loss, smooth_l1_loss and huber_loss
    # (stacklevel 2 from inside them: the caller of the F function; one more from here).
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=_CALLER + 1,
        )


def _weighted(errors: Tensor, weight: Tensor, reduction: str, mean_over_weight: bool) -> Tensor:
    """The weighted tail of mse_loss / l1_loss (mean: sum / sum(weight)) and huber_loss
    (mean: mean of the weighted loss). Torch: the `weight is not None` branches, after their
    size check."""
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _reductions.sum(weighted)
    if reduction == "mean":
        if mean_over_weight:
            return _reductions.sum(weighted) / _reductions.sum(weight)
        return weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The mean squared error. Torch: torch.nn.functional.mse_loss."""
    _warn_size_mismatch(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _joins.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        squared = _functions.pow(expanded_input - expanded_target, 2)
        return _weighted(squared, weight, reduction, mean_over_weight=True)
    return _mse_loss(expanded_input, expanded_target, get_enum(reduction))


def l1_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The mean absolute error. Torch: torch.nn.functional.l1_loss."""
    _warn_size_mismatch(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _joins.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        absolute = _functions.abs(expanded_input - expanded_target)
        return _weighted(absolute, weight, reduction, mean_over_weight=True)
    return _l1_loss(expanded_input, expanded_target, get_enum(reduction))


def smooth_l1_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """The smooth L1 loss (L1 past `beta`, scaled L2 inside). Torch:
    torch.nn.functional.smooth_l1_loss (beta 0 calls l1_loss)."""
    _warn_size_mismatch(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _joins.broadcast_tensors(input, target)
    if beta == 0.0:
        return _l1_loss(expanded_input, expanded_target, get_enum(reduction))
    return _smooth_l1_loss(expanded_input, expanded_target, get_enum(reduction), beta)


def huber_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """The Huber loss (L2 inside `delta`, scaled L1 past it). Torch:
    torch.nn.functional.huber_loss."""
    _warn_size_mismatch(input, target)
    expanded_input, expanded_target = _joins.broadcast_tensors(input, target)
    if weight is None:
        return _huber_loss(expanded_input, expanded_target, get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    unweighted = _huber_loss(expanded_input, expanded_target, get_enum("none"), delta)
    return _weighted(unweighted, weight, reduction, mean_over_weight=False)


def soft_margin_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The two-class logistic loss. Torch: torch.nn.functional.soft_margin_loss."""
    if size_average is not None or reduce is not None:
        reduction_enum = legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = get_enum(reduction)
    return _soft_margin_loss(input, target, reduction_enum)


def binary_cross_entropy(
    input: Tensor,  # torch's name
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy of probabilities. Torch: torch.nn.functional.binary_cross_entropy
    (same-size target; weight expanded to the broadcast shape)."""
    if size_average is not None or reduce is not None:
        reduction_enum = legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = get_enum(reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        new_size = _joins.broadcast_shapes(target.size(), weight.size())
        weight = weight.expand(new_size)
    return _binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(
    input: Tensor,  # torch's name
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy of logits. Torch:
    torch.nn.functional.binary_cross_entropy_with_logits."""
    if size_average is not None or reduce is not None:
        reduction_enum = legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = get_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return _api.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def kl_div(
    input: Tensor,  # torch's name
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence of log-probabilities `input` from `target`. Torch:
    torch.nn.functional.kl_div ('batchmean' sums, then divides by the batch size)."""
    if size_average is not None or reduce is not None:
        reduction_enum = legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                stacklevel=_CALLER,
            )
        if reduction == "batchmean":
            reduction_enum = get_enum("sum")
        else:
            reduction_enum = get_enum(reduction)
    reduced = _api.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def poisson_nll_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The Poisson negative log likelihood. Torch: torch.nn.functional.poisson_nll_loss."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    return _api.poisson_nll_loss(input, target, log_input, full, eps, get_enum(reduction))


def gaussian_nll_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The Gaussian negative log likelihood with predicted variance `var`. Torch:
    torch.nn.functional.gaussian_nll_loss (its var checks, homoscedastic shapes, and the
    clamp of var at eps made without autograd)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _factories.ones_like(input)
    elif _reductions.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            # torch: homoscedastic, one dim short: var gets a trailing 1 to broadcast.
            var = _joins.unsqueeze(var, -1)
        elif (
            input.ndim == var.ndim
            and sum(y for x, y in zip(input.size(), var.size(), strict=True) if x != y) == 1
        ):
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_functions.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def nll_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log likelihood of class-index targets. Torch:
    torch.nn.functional.nll_loss (torch._C._nn.nll_loss_nd)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return _nll_loss_nd(input, target, weight, get_enum(reduction), ignore_index)


def cross_entropy(
    input: Tensor,  # torch's name
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits and class indices or probabilities. Torch:
    torch.nn.functional.cross_entropy (torch._C._nn.cross_entropy_loss)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return _cross_entropy_loss(
        input, target, weight, get_enum(reduction), ignore_index, label_smoothing
    )


def multilabel_soft_margin_loss(
    input: Tensor,  # torch's name
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label one-versus-all logistic loss, averaged over classes. Torch:
    torch.nn.functional.multilabel_soft_margin_loss."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    loss = -(target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    n_classes = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / n_classes  # only return N loss values
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def linear_cross_entropy(
    input: Tensor,  # torch's name
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """Cross entropy of `linear(input, linear_weight, linear_bias)` against `target`.

    Torch: torch.nn.functional.linear_cross_entropy, its reference path (options=None):
    its shape checks, `linear`, a reshape to (*batch, C, *out_features), then cross_entropy.
    # Differs: the chunked path (`options` given) runs torch's torch_nn:: custom ops, which
    refimpl does not have; refimpl raises NotImplementedError for it.
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(
            "expected linear_bias shape "
            f"{(num_classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if len(out_features) > 0 and len(num_batches) == 0:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*num_batches, num_classes, *out_features)
    target_contains_probabilities = tuple(target.shape) == logits_shape
    if target_contains_probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        raise NotImplementedError(
            "refimpl: linear_cross_entropy's chunked path (options=...) uses torch's "
            "torch_nn:: custom ops, which refimpl does not implement; pass options=None"
        )
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = _linear(input, linear_weight, linear_bias)
    logits = logits.reshape(logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
    )
