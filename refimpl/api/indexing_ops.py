"""The torch.* functions and Tensor methods of indexing by index tensors (gather, scatter, scatter_add, scatter_reduce, index_select, index_add, index_copy, index_fill, index_reduce, take, put, take_along_dim).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `IndexingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
    "index_select",
    "put",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "take",
    "take_along_dim",
]

gather = torch_function("gather")
scatter = torch_function("scatter")
scatter_add = torch_function("scatter_add")
scatter_reduce = torch_function("scatter_reduce")
index_select = torch_function("index_select")
index_add = torch_function("index_add")
index_copy = torch_function("index_copy")
index_fill = torch_function("index_fill")
index_reduce = torch_function("index_reduce")
take = torch_function("take")
put = torch_function("put")
take_along_dim = torch_function("take_along_dim")


class IndexingMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    gather = method("gather")
    scatter = method("scatter")
    scatter_ = method("scatter_")
    scatter_add = method("scatter_add")
    scatter_add_ = method("scatter_add_")
    scatter_reduce = method("scatter_reduce")
    scatter_reduce_ = method("scatter_reduce_")
    index_select = method("index_select")
    index_add = method("index_add")
    index_add_ = method("index_add_")
    index_copy = method("index_copy")
    index_copy_ = method("index_copy_")
    index_fill = method("index_fill")
    index_fill_ = method("index_fill_")
    index_reduce = method("index_reduce")
    index_reduce_ = method("index_reduce_")
    take = method("take")
    put = method("put")
    put_ = method("put_")
    take_along_dim = method("take_along_dim")
