"""Tensors built from the structure of others: tril, triu, tril_indices, triu_indices, diag, diag_embed, diagflat, block_diag, meshgrid, cartesian_prod, combinations; the *_copy forms of the view ops, the scatter-backs of views, narrow_copy.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
