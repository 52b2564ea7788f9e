"""torch.nn.functional: the margin and embedding losses, ctc_loss, and the distances
(cosine_similarity, pairwise_distance, pdist).

Torch: torch/nn/functional.py. F.cosine_similarity, F.pairwise_distance and F.pdist are the
torch.* functions themselves; multi_margin_loss and multilabel_margin_loss call the
torch._C._nn bindings; the other losses check their arguments, translate the legacy
`size_average`/`reduce` pair, and call the torch.* function of the same name
(triplet_margin_with_distance_loss is written in Python over any distance function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl._C import _nn
from refimpl.api.functions import clamp_min, minimum
from refimpl.api.nn_margin import (
    cosine_embedding_loss as _cosine_embedding_loss,
)
from refimpl.api.nn_margin import (
    cosine_similarity,
    pairwise_distance,
    pdist,
)
from refimpl.api.nn_margin import (
    ctc_loss as _ctc_loss,
)
from refimpl.api.nn_margin import (
    hinge_embedding_loss as _hinge_embedding_loss,
)
from refimpl.api.nn_margin import (
    margin_ranking_loss as _margin_ranking_loss,
)
from refimpl.api.nn_margin import (
    triplet_margin_loss as _triplet_margin_loss,
)
from refimpl.api.reductions import mean
from refimpl.api.reductions import sum as _sum
from refimpl.nn._reduction import get_enum, legacy_get_enum

__all__: list[str] = [
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "pairwise_distance",
    "pdist",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

Tensor = Any


def _reduction_enum(size_average: bool | None, reduce: bool | None, reduction: str) -> int:
    # torch: the legacy pair wins when either is given (with its deprecation warning).
    if size_average is not None or reduce is not None:
        return legacy_get_enum(size_average, reduce)
    return get_enum(reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -target * (input1 - input2) + margin), reduced.

    Torch: torch.nn.functional.margin_ranking_loss (the three inputs must have one rank).
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """`input` where target is 1, max(0, margin - input) where it is -1, reduced.

    Torch: torch.nn.functional.hinge_embedding_loss.
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _hinge_embedding_loss(input, target, margin, reduction_enum)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, reduced.

    Torch: torch.nn.functional.cosine_embedding_loss.
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _cosine_embedding_loss(input1, input2, target, margin, reduction_enum)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss: sum over i != target of max(0, margin - x[target] + x[i])^p
    (times weight[target]) / C, reduced.

    Torch: torch.nn.functional.multi_margin_loss (torch._C._nn.multi_margin_loss).
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss over the target classes listed before the first -1.

    Torch: torch.nn.functional.multilabel_margin_loss (torch._C._nn.multilabel_margin_loss).
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _nn.multilabel_margin_loss(input, target, reduction_enum)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm distance.

    Torch: torch.nn.functional.triplet_margin_loss.
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for any distance `d`
    (pairwise_distance by default); `swap` uses min(d(anchor, negative), d(positive, negative)).

    Torch: torch.nn.functional.triplet_margin_with_distance_loss.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs"
        )
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = minimum(dist_neg, dist_swap)
    loss = clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return _sum(loss)
    if reduction == "mean":
        return mean(loss)
    return loss


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The Connectionist Temporal Classification loss.

    Torch: torch.nn.functional.ctc_loss (torch.ctc_loss with the reduction's enum).
    """
    return _ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        get_enum(reduction),
        zero_infinity,
    )
