"""`refimpl.masked`: torch.masked, reductions and normalizations that a boolean mask restricts
to some of the input's elements.

Torch: torch/masked/__init__.py. The functions live in `_ops.py` (torch's module path,
`torch.masked._ops`), on the mask rules of `_mask.py`; this package re-exports them. Torch's
private helpers (`_input_mask`, `_output_mask`, ...) are here too, as in torch, where its
OpInfo gradcheck wrappers find them. Strided tensors only: refimpl has neither sparse layouts
nor MaskedTensor (torch.masked's `MaskedTensor`, `masked_tensor`, `as_masked_tensor`,
`is_masked_tensor` are absent).
"""

from __future__ import annotations

from refimpl.masked._mask import (
    _canonical_dim as _canonical_dim,
)
from refimpl.masked._mask import (
    _combine_input_and_mask as _combine_input_and_mask,
)
from refimpl.masked._mask import (
    _input_mask as _input_mask,
)
from refimpl.masked._mask import (
    _output_mask as _output_mask,
)
from refimpl.masked._mask import (
    _reduction_identity as _reduction_identity,
)
from refimpl.masked._mask import (
    _where as _where,
)
from refimpl.masked._ops import *
from refimpl.masked._ops import __all__ as __all__
