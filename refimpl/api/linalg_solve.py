"""The older torch.* linear-algebra functions and Tensor methods of solvers and factorizations (det, logdet, slogdet, inverse, cholesky, cholesky_solve, cholesky_inverse, lu, lu_solve, lu_unpack, triangular_solve).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp,
and torch.lu / Tensor.lu in torch/functional.py and torch/_tensor.py (Python wrappers of
aten._lu_with_info). Each function and method passes through `api/_call.py`
(`torch_function`, `method`); one line per name. `LinalgSolveMethods` is a base class of
`refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_lu_with_info",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "det",
    "inverse",
    "logdet",
    "lu",
    "lu_solve",
    "lu_unpack",
    "slogdet",
    "triangular_solve",
]

det = torch_function("det")
logdet = torch_function("logdet")
slogdet = torch_function("slogdet")
inverse = torch_function("inverse")
cholesky = torch_function("cholesky")
cholesky_solve = torch_function("cholesky_solve")
cholesky_inverse = torch_function("cholesky_inverse")
lu_solve = torch_function("lu_solve")
lu_unpack = torch_function("lu_unpack")
triangular_solve = torch_function("triangular_solve")
_lu_with_info = torch_function("_lu_with_info")


def lu(A: Any, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """The LU factorization and pivots of `A` (and the infos if `get_infos`).

    Torch: torch.lu (torch/functional.py's _lu_with_infos / _lu_impl, deprecated for
    torch.linalg.lu_factor): aten._lu_with_info, checking errors unless `get_infos`; with
    `out`, each result is copied into its out tensor (resize_as_, then copy_).
    """
    result = _lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    if not get_infos:
        result = result[:2]
    if out is None:
        return result
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for target, value in zip(out, result, strict=True):
        target.resize_as_(value).copy_(value)
    return out


class LinalgSolveMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    det = method("det")
    logdet = method("logdet")
    slogdet = method("slogdet")
    inverse = method("inverse")
    cholesky = method("cholesky")
    cholesky_solve = method("cholesky_solve")
    cholesky_inverse = method("cholesky_inverse")
    lu_solve = method("lu_solve")
    triangular_solve = method("triangular_solve")

    def lu(self, pivot: bool = True, get_infos: bool = False) -> Any:
        """Torch: Tensor.lu (torch/_tensor.py): torch._lu_with_info, checking errors unless
        `get_infos`."""
        LU, pivots, infos = _lu_with_info(self, pivot=pivot, check_errors=not get_infos)
        return (LU, pivots, infos) if get_infos else (LU, pivots)
