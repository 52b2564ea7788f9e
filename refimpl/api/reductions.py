"""The torch.* functions and Tensor methods of reductions (sum, mean, prod, amax/amin, max/min, argmax/argmin, var/std, any/all, count_nonzero, logsumexp, norm, dist, renorm).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `ReductionMethods` is a base class of `refimpl.Tensor`.
`max` and `min` bind every overload of their packets: the reductions here and the binary
`max.other` (torch.maximum's older spelling). torch.norm is a Python function in torch
(torch/functional.py), written out below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from refimpl._base.dtypes import DType
from refimpl.api._call import method, torch_function
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace

_aten = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_segment_reduce",
    "all",
    "amax",
    "amin",
    "aminmax",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "dist",
    "gradient",
    "logsumexp",
    "max",
    "mean",
    "min",
    "nanmean",
    "nansum",
    "norm",
    "prod",
    "renorm",
    "segment_reduce",
    "std",
    "std_mean",
    "sum",
    "var",
    "var_mean",
]

sum = torch_function("sum")
gradient = torch_function("gradient")
segment_reduce = torch_function("segment_reduce")
_segment_reduce = segment_reduce  # torch: the same binding under both names
nansum = torch_function("nansum")
mean = torch_function("mean")
nanmean = torch_function("nanmean")
prod = torch_function("prod")
amax = torch_function("amax")
amin = torch_function("amin")
aminmax = torch_function("aminmax")
max = torch_function("max")
min = torch_function("min")
argmax = torch_function("argmax")
argmin = torch_function("argmin")
any = torch_function("any")
all = torch_function("all")
count_nonzero = torch_function("count_nonzero")
logsumexp = torch_function("logsumexp")
renorm = torch_function("renorm")
dist = torch_function("dist")


def _int_dim_first(bound: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`bound` with an int second argument read as a dim, as torch's argument parser reads it.

    Torch: var, std, var_mean and std_mean have the signatures (input, bool unbiased=True)
    and (input, dim, bool unbiased=True, bool keepdim=False); torch's parser gives a bool
    parameter only a bool, so `var(x, 1)` reduces dim 1. The aten packet, like
    torch.ops.aten.var, would take the 1 as `unbiased`; a one-element dim list cannot be.
    A call with the input alone matches torch's (input, dim=None, *, correction=None, ...)
    signature first, so it reaches the `.correction` overload (the packet would choose
    `var(self, unbiased=True)`: same values, another node for autograd).
    """
    correction = getattr(_aten, name).correction

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], TensorImpl):
            return correction(args[0])
        if len(args) > 1 and type(args[1]) is int:
            args = (args[0], [args[1]], *args[2:])
        return bound(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = bound.__doc__
    return call


var = _int_dim_first(torch_function("var"), "var")
std = _int_dim_first(torch_function("std"), "std")
var_mean = _int_dim_first(torch_function("var_mean"), "var_mean")
std_mean = _int_dim_first(torch_function("std_mean"), "std_mean")


def norm(
    input: Any,
    p: float | str | None = "fro",
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    out: Any = None,
    dtype: DType | None = None,
) -> Any:
    """The vector norm of `input` over `dim` (a number p, "fro"); "nuc" is a matrix norm.

    Torch: torch.norm in torch/functional.py: for strided tensors it calls
    torch.linalg.vector_norm for a number p (None is 2) and for "fro" over at most two dims,
    and torch.linalg.matrix_norm otherwise.
    """
    dims = [dim] if isinstance(dim, int) else (None if dim is None else list(dim))
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dims or ()) <= 2):
            return _vector_norm(input, 2, dims, keepdim, dtype, out)
        # torch: the nuclear norm, or matrix_norm's error for the other strings and dims.
        matrix_dims = list(range(input.dim())) if dims is None else dims
        if out is None:
            return _aten.linalg_matrix_norm.str_ord(input, p, matrix_dims, keepdim, dtype=dtype)
        return _aten.linalg_matrix_norm.str_ord_out(
            input, p, matrix_dims, keepdim, dtype=dtype, out=out
        )
    return _vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype, out)


def _vector_norm(
    input: Any, p: float, dim: list[int] | None, keepdim: bool, dtype: DType | None, out: Any
) -> Any:
    # torch: torch.linalg.vector_norm(input, ord, dim, keepdim, dtype=dtype[, out=out]).
    if out is None:
        return _aten.linalg_vector_norm.default(input, p, dim, keepdim, dtype=dtype)
    return _aten.linalg_vector_norm.out(input, p, dim, keepdim, dtype=dtype, out=out)


class ReductionMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    sum = method("sum")
    nansum = method("nansum")
    mean = method("mean")
    nanmean = method("nanmean")
    prod = method("prod")
    amax = method("amax")
    amin = method("amin")
    aminmax = method("aminmax")
    max = method("max")
    min = method("min")
    argmax = method("argmax")
    argmin = method("argmin")
    var = _int_dim_first(method("var"), "var")
    std = _int_dim_first(method("std"), "std")
    any = method("any")
    all = method("all")
    count_nonzero = method("count_nonzero")
    logsumexp = method("logsumexp")
    renorm = method("renorm")
    renorm_ = method("renorm_")
    dist = method("dist")

    def norm(
        self,
        p: float | str | None = "fro",
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        dtype: DType | None = None,
    ) -> Any:
        """Torch: Tensor.norm in torch/_tensor.py (torch.norm with the tensor as input)."""
        return norm(self, p, dim, keepdim, dtype=dtype)
