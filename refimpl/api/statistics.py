"""The torch.* functions and Tensor methods of histograms and statistics (histc, bincount, histogram, histogramdd, quantile, nanquantile, cov, corrcoef).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name. `StatisticsMethods` is a base class of `refimpl.Tensor`. torch.histogramdd is a
binding of aten::histogramdd in torch 2.13 (no longer Python in torch/functional.py), and no
Tensor method.
"""

from __future__ import annotations

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "bincount",
    "corrcoef",
    "cov",
    "histc",
    "histogram",
    "histogramdd",
    "nanquantile",
    "quantile",
]

histc = torch_function("histc")
bincount = torch_function("bincount")
histogram = torch_function("histogram")
histogramdd = torch_function("histogramdd")
quantile = torch_function("quantile")
nanquantile = torch_function("nanquantile")
cov = torch_function("cov")
corrcoef = torch_function("corrcoef")


class StatisticsMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    histc = method("histc")
    bincount = method("bincount")
    histogram = method("histogram")
    quantile = method("quantile")
    nanquantile = method("nanquantile")
    cov = method("cov")
    corrcoef = method("corrcoef")
