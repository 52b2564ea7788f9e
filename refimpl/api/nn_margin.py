"""The torch.* functions of the margin and embedding losses, ctc_loss, and the distances
(cosine_similarity, pairwise_distance, pdist).

Torch: the generated bindings in python_torch_functions.cpp; each calls its aten packet
(torch.ctc_loss picks ctc_loss.IntList or ctc_loss.Tensor by the lengths' types). Each passes
through `api/_call.py` (`torch_function`); one line per name. None of them is a Tensor
method in torch, so `MarginMethods` (a base class of `refimpl.Tensor`) is empty.
multi_margin_loss and multilabel_margin_loss are torch._C._nn functions (refimpl/_C/_nn.py).
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_ctc_loss",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "pairwise_distance",
    "pdist",
    "triplet_margin_loss",
]

cosine_similarity = torch_function("cosine_similarity")
pairwise_distance = torch_function("pairwise_distance")
pdist = torch_function("pdist")
margin_ranking_loss = torch_function("margin_ranking_loss")
hinge_embedding_loss = torch_function("hinge_embedding_loss")
cosine_embedding_loss = torch_function("cosine_embedding_loss")
triplet_margin_loss = torch_function("triplet_margin_loss")
ctc_loss = torch_function("ctc_loss")
_ctc_loss = torch_function("_ctc_loss")


class MarginMethods:
    """The Tensor methods of this family (none: torch.Tensor has none of these names)."""

    __slots__ = ()
