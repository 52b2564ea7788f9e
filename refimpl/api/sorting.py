"""The torch.* functions and Tensor methods of sorting and sets (sort, argsort, msort, topk, searchsorted, bucketize, unique, unique_consecutive, isin).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name. `unique` and `unique_consecutive` are Python functions in torch/functional.py
(re-exported by refimpl.functional) and Python methods in torch/_tensor.py: which aten op
they call depends on the arguments (`_unique2`, or `unique_dim` with a `dim`;
`unique_consecutive` either way), and what they return on the flags (the output alone, or a
tuple with the inverse and/or the counts). `SortingMethods` is a base class of
`refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.api._call import method, torch_function
from refimpl.dispatch.overloads import namespace

_aten: Final = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_unique",
    "_unique2",
    "argsort",
    "bucketize",
    "isin",
    "msort",
    "searchsorted",
    "sort",
    "topk",
    "unique",
    "unique_consecutive",
]

sort = torch_function("sort")
argsort = torch_function("argsort")
msort = torch_function("msort")
topk = torch_function("topk")
searchsorted = torch_function("searchsorted")
bucketize = torch_function("bucketize")
isin = torch_function("isin")
_unique = torch_function("_unique")
_unique2 = torch_function("_unique2")


def _pick(results: Any, return_inverse: bool, return_counts: bool) -> Any:
    # torch: the boolean_dispatch of torch/functional.py: the output alone, or a tuple of
    # the output and whichever of inverse and counts was asked for.
    output, inverse, counts = results
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(
    input: Any,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The unique elements of `input` (or its unique slices along `dim`), sorted, with the
    inverse indices and counts when asked for.

    Torch: torch.unique (torch/functional.py, _unique_impl): aten._unique2 without `dim`,
    aten.unique_dim with one.
    """
    if dim is not None:
        results = _aten.unique_dim.default(
            input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    else:
        results = _aten._unique2.default(
            input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts
        )
    return _pick(results, return_inverse, return_counts)


def unique_consecutive(*args: Any, **kwargs: Any) -> Any:
    """`input` with every run of equal neighbours (elements, or slices along `dim`) reduced to
    one, with the inverse indices and counts when asked for.

    Torch: torch.unique_consecutive (torch/functional.py, _unique_consecutive_impl):
    aten.unique_consecutive. What it returns is chosen as torch's boolean_dispatch chooses:
    return_inverse read as a keyword or at position 2, return_counts at position 1 (the
    positions of torch.unique's flags, one off from this signature's), so
    `unique_consecutive(x, True)` gives (output, an empty counts tensor), as in torch.
    """
    wants_inverse = kwargs.get("return_inverse", args[2] if len(args) > 2 else False)
    wants_counts = kwargs.get("return_counts", args[1] if len(args) > 1 else False)
    return _pick(_unique_consecutive(*args, **kwargs), wants_inverse, wants_counts)


def _unique_consecutive(
    input: Any,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    return _aten.unique_consecutive.default(
        input, return_inverse=return_inverse, return_counts=return_counts, dim=dim
    )


class SortingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods and
    torch/_tensor.py's unique and unique_consecutive."""

    __slots__ = ()

    sort = method("sort")
    argsort = method("argsort")
    msort = method("msort")
    topk = method("topk")

    def unique(
        self,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Any:
        """Torch: Tensor.unique (torch/_tensor.py): torch.unique(self, ...)."""
        return unique(
            self,
            sorted=sorted,
            return_inverse=return_inverse,
            return_counts=return_counts,
            dim=dim,
        )

    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
    ) -> Any:
        """Torch: Tensor.unique_consecutive (torch/_tensor.py)."""
        results = _unique_consecutive(
            self, return_inverse=return_inverse, return_counts=return_counts, dim=dim
        )
        return _pick(results, return_inverse, return_counts)
