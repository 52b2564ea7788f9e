"""`refimpl.nn`: torch.nn. So far its functional layer, `refimpl.nn.functional`.

Torch: torch/nn/__init__.py.
"""

from __future__ import annotations

from refimpl.nn import functional as functional
