"""`refimpl.utils`: torch.utils' helpers that refimpl has.

Torch: torch.utils. `refimpl.utils._pytree` flattens and rebuilds nested containers.
"""

from __future__ import annotations

from refimpl.utils import _pytree as _pytree
