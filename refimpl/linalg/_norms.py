"""torch.linalg's norms, products and matrix functions.

Torch: torch/linalg/__init__.py (generated bindings of the linalg_* aten ops). Each function
calls its `aten.linalg_<name>` packet through `api/_call.py`, which binds torch's Python
arguments (`A` and `input` are the schema's `self`) and picks the overload (a string `ord`
selects linalg_norm.ord_str and linalg_matrix_norm.str_ord). The ops are in
refimpl/ops/linalg_norms.py (norms, cond), reduction_norms.py (vector_norm), vector_ops.py
(cross), _linalg_norms_products.py and _linalg_norms_functions.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl.api._call import torch_function

# The torch.linalg names this module adds to `refimpl.linalg`.
__all__: list[str] = [
    "cond",
    "cross",
    "diagonal",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "multi_dot",
    "norm",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


def _linalg(name: str) -> Callable[..., Any]:
    """`refimpl.linalg.<name>`: the aten packet `aten.linalg_<name>`. Torch: torch.linalg.<name>."""
    return torch_function(name, f"linalg_{name}", module="torch.linalg")


cond = _linalg("cond")
cross = _linalg("cross")
diagonal = _linalg("diagonal")
matmul = _linalg("matmul")
matrix_exp = _linalg("matrix_exp")
matrix_norm = _linalg("matrix_norm")
matrix_power = _linalg("matrix_power")
multi_dot = _linalg("multi_dot")
norm = _linalg("norm")
tensorinv = _linalg("tensorinv")
tensorsolve = _linalg("tensorsolve")
vander = _linalg("vander")
vecdot = _linalg("vecdot")
vector_norm = _linalg("vector_norm")
