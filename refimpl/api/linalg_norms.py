"""The torch.* functions and Tensor methods of norms, products and matrix functions that the linalg family adds (matrix_power, matrix_exp, chain_matmul, frobenius_norm, nuclear_norm).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp,
and chain_matmul in torch/functional.py (a variadic wrapper). Each function and method passes
through `api/_call.py` (`torch_function`, `method`); one line per name. `LinalgNormMethods`
is a base class of `refimpl.Tensor`. torch.norm and Tensor.norm are in api/reductions.py.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "chain_matmul",
    "frobenius_norm",
    "matrix_exp",
    "matrix_power",
    "nuclear_norm",
]

frobenius_norm = torch_function("frobenius_norm")
matrix_exp = torch_function("matrix_exp")
matrix_power = torch_function("matrix_power")
nuclear_norm = torch_function("nuclear_norm")
_chain_matmul = torch_function("chain_matmul")


def chain_matmul(*matrices: Any, out: Any = None) -> Any:
    """The product of the 2-D `matrices`, in the order of fewest scalar products.

    Torch: torch.chain_matmul in torch/functional.py (deprecated for torch.linalg.multi_dot;
    it passes the variadic matrices as one list to aten.chain_matmul).
    """
    if out is None:
        return _chain_matmul(matrices)
    return _chain_matmul(matrices, out=out)


class LinalgNormMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    matrix_exp = method("matrix_exp")
    matrix_power = method("matrix_power")
