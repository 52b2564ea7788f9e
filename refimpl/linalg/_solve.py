"""torch.linalg's solvers and factorizations: cholesky, inv, solve, solve_triangular, lu, lu_factor, lu_solve, ldl, lstsq, det and slogdet (with their `_ex` forms).

Torch: torch/linalg/__init__.py (generated bindings of the linalg_* aten ops). Each function
passes through `api/_call.py`'s `torch_function` to its aten packet; the `_ex` forms return
`info` instead of raising, the others check it (aten._linalg_check_errors).
"""

from __future__ import annotations

from typing import Final

from refimpl.api._call import torch_function
from refimpl.ops._linalg_checks import LinAlgError

_MODULE: Final = "torch.linalg"

# The torch.linalg names this module adds to `refimpl.linalg`.
__all__: list[str] = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "det",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
]

cholesky = torch_function("cholesky", "linalg_cholesky", module=_MODULE)
cholesky_ex = torch_function("cholesky_ex", "linalg_cholesky_ex", module=_MODULE)
det = torch_function("det", "linalg_det", module=_MODULE)
inv = torch_function("inv", "linalg_inv", module=_MODULE)
inv_ex = torch_function("inv_ex", "linalg_inv_ex", module=_MODULE)
ldl_factor = torch_function("ldl_factor", "linalg_ldl_factor", module=_MODULE)
ldl_factor_ex = torch_function("ldl_factor_ex", "linalg_ldl_factor_ex", module=_MODULE)
ldl_solve = torch_function("ldl_solve", "linalg_ldl_solve", module=_MODULE)
lstsq = torch_function("lstsq", "linalg_lstsq", module=_MODULE)
lu = torch_function("lu", "linalg_lu", module=_MODULE)
lu_factor = torch_function("lu_factor", "linalg_lu_factor", module=_MODULE)
lu_factor_ex = torch_function("lu_factor_ex", "linalg_lu_factor_ex", module=_MODULE)
lu_solve = torch_function("lu_solve", "linalg_lu_solve", module=_MODULE)
slogdet = torch_function("slogdet", "linalg_slogdet", module=_MODULE)
solve = torch_function("solve", "linalg_solve", module=_MODULE)
solve_ex = torch_function("solve_ex", "linalg_solve_ex", module=_MODULE)
solve_triangular = torch_function("solve_triangular", "linalg_solve_triangular", module=_MODULE)
