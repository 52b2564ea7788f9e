"""The aten ops beneath torch.nn.functional: the margin and embedding losses, ctc_loss, and the distances (cosine_similarity, pairwise_distance, pdist).

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
