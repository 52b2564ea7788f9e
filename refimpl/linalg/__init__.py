"""`refimpl.linalg`: torch.linalg's functions, each calling its aten.linalg_* op.

Torch: torch/linalg/__init__.py, whose functions are the generated bindings of the
`linalg_*` entries of native_functions.yaml. Three modules hold them by kind: solvers and
factorizations (`_solve`), spectral and orthogonal decompositions (`_spectral`), norms and
products (`_norms`).
"""

from __future__ import annotations

from refimpl.linalg._norms import *
from refimpl.linalg._solve import *
from refimpl.linalg._spectral import *
