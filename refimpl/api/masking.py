"""The torch.* functions and Tensor methods of masks and advanced indices (index, index_put, masked_select, masked_scatter, nonzero, nonzero_static, argwhere).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `MaskingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import check_tensor_list, method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_index_put_impl_",
    "argwhere",
    "index_put",
    "index_put_",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "nonzero_static",
]

_index_put = torch_function("index_put")
_index_put_ = torch_function("index_put_")
_index_put_impl = torch_function("_index_put_impl_")
_index_put_method = method("index_put")
_index_put__method = method("index_put_")


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """A copy of `input` with `values` put at `indices`. Torch: torch.index_put."""
    check_tensor_list(indices, 1)
    return _index_put(input, indices, values, accumulate)


def index_put_(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """`values` put at `indices` of `input`. Torch: torch.index_put_."""
    check_tensor_list(indices, 1)
    return _index_put_(input, indices, values, accumulate)


def _index_put_impl_(
    input: Any, indices: Any, values: Any, accumulate: bool = False, unsafe: bool = False
) -> Any:
    """Torch: torch._index_put_impl_."""
    check_tensor_list(indices, 1)
    return _index_put_impl(input, indices, values, accumulate, unsafe)


masked_select = torch_function("masked_select")
masked_scatter = torch_function("masked_scatter")
nonzero_static = torch_function("nonzero_static")
argwhere = torch_function("argwhere")
_nonzero = torch_function("nonzero")
_nonzero_numpy = torch_function("nonzero", "nonzero_numpy")


def nonzero(input: Any, *, as_tuple: bool = False, out: Any = None) -> Any:
    """The coordinates of the nonzero elements; with `as_tuple`, one index tensor per dim.

    Torch: torch.nonzero: the binding's `as_tuple=True` signature calls aten.nonzero_numpy
    (python_torch_functions_manual.cpp) and refuses `out`.
    """
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return tuple(_nonzero_numpy(input))
    return _nonzero(input, out=out)


class MaskingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    def index_put(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        """Torch: Tensor.index_put (indices a sequence of tensors)."""
        check_tensor_list(indices, 0)
        return _index_put_method(self, indices, values, accumulate)

    def index_put_(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        """Torch: Tensor.index_put_ (indices a sequence of tensors)."""
        check_tensor_list(indices, 0)
        return _index_put__method(self, indices, values, accumulate)

    masked_select = method("masked_select")
    masked_scatter = method("masked_scatter")
    masked_scatter_ = method("masked_scatter_")
    nonzero_static = method("nonzero_static")
    argwhere = method("argwhere")

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        """Torch: Tensor.nonzero (as_tuple=True calls aten.nonzero_numpy)."""
        return nonzero(self, as_tuple=as_tuple)
