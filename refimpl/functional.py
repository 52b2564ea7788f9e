"""`refimpl.functional`: the functions torch keeps in torch/functional.py, as refimpl has them.

Torch: torch/functional.py, Python wrappers over aten ops where the generated binding cannot
express the signature (variadic tensors, a Python result type). Each is also a `refimpl.*`
name, defined in the API module of its family; this module re-exports them so that
`torch.functional.<name>` ports to refimpl unchanged.
"""

from __future__ import annotations

from refimpl.api.constructions import block_diag, cartesian_prod, meshgrid
from refimpl.api.indexing_ops import unravel_index
from refimpl.api.joins import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_shapes,
    broadcast_tensors,
    split,
)
from refimpl.api.linalg_norms import chain_matmul
from refimpl.api.linalg_solve import lu
from refimpl.api.products import cdist, einsum, tensordot
from refimpl.api.reductions import norm
from refimpl.api.sorting import unique, unique_consecutive
from refimpl.api.spectral import istft, stft

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "meshgrid",
    "norm",
    "split",
    "stft",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]
