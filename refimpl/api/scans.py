"""The torch.* functions and Tensor methods of scans and order statistics (cumsum, cumprod, cummax, cummin, logcumsumexp, median, nanmedian, mode, kthvalue, diff, trace, sum_to_size).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `ScanMethods` is a base class of `refimpl.Tensor`.
`sum_to_size` is a Tensor method only, taking its size as varargs or one sequence.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.api._args import sizes as parse_sizes
from refimpl.api._call import method, torch_function
from refimpl.dispatch.overloads import namespace

_aten: Final = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "diff",
    "kthvalue",
    "logcumsumexp",
    "median",
    "mode",
    "nanmedian",
    "trace",
]

cumsum = torch_function("cumsum")
cumprod = torch_function("cumprod")
cummax = torch_function("cummax")
cummin = torch_function("cummin")
logcumsumexp = torch_function("logcumsumexp")
median = torch_function("median")
nanmedian = torch_function("nanmedian")
mode = torch_function("mode")
kthvalue = torch_function("kthvalue")
diff = torch_function("diff")
trace = torch_function("trace")


class ScanMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    cumsum = method("cumsum")
    cumsum_ = method("cumsum_")
    cumprod = method("cumprod")
    cumprod_ = method("cumprod_")
    cummax = method("cummax")
    cummin = method("cummin")
    logcumsumexp = method("logcumsumexp")
    median = method("median")
    nanmedian = method("nanmedian")
    mode = method("mode")
    kthvalue = method("kthvalue")
    diff = method("diff")
    trace = method("trace")

    def sum_to_size(self, *sizes: Any, size: Any = None) -> Any:
        """`self` summed to a size: `x.sum_to_size(1, 3)`, `x.sum_to_size((1, 3))` or
        `x.sum_to_size(size=(1, 3))`.

        Torch: Tensor.sum_to_size (aten.sum_to_size, CompositeImplicitAutograd).
        """
        given = sizes if size is None else (size,)
        return _aten.sum_to_size.default(self, list(parse_sizes(given, "sum_to_size")))
