"""The torch.* functions and Tensor methods of indexing by index tensors (gather, scatter, scatter_add, scatter_reduce, index_select, index_add, index_copy, index_fill, index_reduce, take, put, take_along_dim).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name, so a reader greps for it. `IndexingMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from typing import Any

from refimpl._base import dtypes as dt
from refimpl.api._call import method, torch_function
from refimpl.api.factories import tensor

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_unsafe_masked_index",
    "_unsafe_masked_index_put_accumulate",
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
    "unravel_index",
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
_unsafe_masked_index = torch_function("_unsafe_masked_index")
_unsafe_masked_index_put_accumulate = torch_function("_unsafe_masked_index_put_accumulate")


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates in a tensor of `shape` of each flat index, one tensor per dim.

    Torch: torch.unravel_index and _unravel_index (torch/functional.py): the indices, with a
    last dim added, floor-divided by the row-major strides of `shape` and taken modulo
    `shape` (int64 tensors), then unbound along that last dim. Out-of-range indices wrap as
    that arithmetic makes them; torch does not check them.
    """
    if indices.dtype.is_complex or indices.dtype.is_floating_point or indices.dtype is dt.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
    shape = tuple(shape)
    if not all(size >= 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = list(itertools.accumulate(reversed((*shape[1:], 1)), operator.mul))[::-1]
    device = indices.device
    coordinates = indices.unsqueeze(-1).floor_divide(
        tensor(strides, device=device, dtype=dt.int64)
    ) % tensor(shape, device=device, dtype=dt.int64)
    return tuple(coordinates.unbind(-1))


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
