"""`refimpl.utils._pytree`: nested containers flattened into leaves and a TreeSpec, and back.

Torch: torch.utils._pytree. The implementation lives in refimpl/_base/pytree.py (TreeSpec and
the tree functions) and refimpl/_base/pytree_nodes.py (the node registry), low enough for the
dispatcher and autograd to use; this is the public module that re-exports it.
"""

from __future__ import annotations

from refimpl._base.pytree import *
from refimpl._base.pytree import __all__  # noqa: F401 - the same public names
