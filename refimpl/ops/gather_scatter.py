"""Indexing by index tensors: gather, scatter (value, src, reduce=), scatter_add, scatter_reduce, index_select, index_add, index_copy, index_fill, index_reduce, take, put, take_along_dim.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
