"""Advanced indexing and masks: index.Tensor, index_put_, _index_put_impl_, masked_select, masked_scatter, nonzero, nonzero_static, argwhere.

Torch: (to be filled by the module's author: the torch files these ops mirror).
"""

from __future__ import annotations
