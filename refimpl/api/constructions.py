"""The torch.* functions and Tensor methods of tensors built from the structure of others (tril/triu and their indices, diag, diag_embed, diagflat, block_diag, meshgrid, cartesian_prod, combinations), the *_copy forms of the view ops, the scatter-backs of views and narrow_copy.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp,
and torch/functional.py for block_diag, meshgrid and cartesian_prod (which take their tensors
as varargs). Each function and method passes through `api/_call.py` (`torch_function`,
`method`); one line per name, so a reader greps for it. `ConstructionMethods` is a base class
of `refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import check_tensor_list, method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "alias_copy",
    "as_strided_copy",
    "as_strided_scatter",
    "block_diag",
    "cartesian_prod",
    "combinations",
    "detach_copy",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal_copy",
    "diagonal_scatter",
    "expand_copy",
    "meshgrid",
    "narrow_copy",
    "permute_copy",
    "select_copy",
    "select_scatter",
    "slice_copy",
    "slice_scatter",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "tril",
    "tril_indices",
    "triu",
    "triu_indices",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_as_complex_copy",
    "view_as_real_copy",
    "view_copy",
]

tril = torch_function("tril")
triu = torch_function("triu")
tril_indices = torch_function("tril_indices")
triu_indices = torch_function("triu_indices")
diag = torch_function("diag")
diag_embed = torch_function("diag_embed")
diagflat = torch_function("diagflat")
combinations = torch_function("combinations")

alias_copy = torch_function("alias_copy")
as_strided_copy = torch_function("as_strided_copy")
detach_copy = torch_function("detach_copy")
diagonal_copy = torch_function("diagonal_copy")
expand_copy = torch_function("expand_copy")
permute_copy = torch_function("permute_copy")
select_copy = torch_function("select_copy")
slice_copy = torch_function("slice_copy")
squeeze_copy = torch_function("squeeze_copy")
t_copy = torch_function("t_copy")
transpose_copy = torch_function("transpose_copy")
unfold_copy = torch_function("unfold_copy")
unsqueeze_copy = torch_function("unsqueeze_copy")
view_as_complex_copy = torch_function("view_as_complex_copy")
view_as_real_copy = torch_function("view_as_real_copy")
view_copy = torch_function("view_copy")

select_scatter = torch_function("select_scatter")
slice_scatter = torch_function("slice_scatter")
diagonal_scatter = torch_function("diagonal_scatter")
as_strided_scatter = torch_function("as_strided_scatter")
narrow_copy = torch_function("narrow_copy")

_block_diag = torch_function("block_diag")
_cartesian_prod = torch_function("cartesian_prod")
_meshgrid = torch_function("meshgrid")
_split_copy = torch_function("split_copy")
_split_with_sizes_copy = torch_function("split_with_sizes_copy")
_unbind_copy = torch_function("unbind_copy")


def block_diag(*tensors: Any) -> Any:
    """The tensors along the diagonal of a zero matrix. Torch: torch.block_diag
    (torch/functional.py, over aten.block_diag)."""
    check_tensor_list(tensors, 0)
    return _block_diag(list(tensors))


def cartesian_prod(*tensors: Any) -> Any:
    """Every combination of one element of each 1-D tensor, as rows. Torch:
    torch.cartesian_prod (torch/functional.py, over aten.cartesian_prod)."""
    check_tensor_list(tensors, 0)
    return _cartesian_prod(list(tensors))


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """Coordinate grids of 0-D/1-D tensors ("ij" or "xy" indexing), as a tuple.

    Torch: torch.meshgrid (torch/functional.py `_meshgrid`): one list or tuple argument is
    the list of tensors; without `indexing` the aten overload without it runs (and warns).
    """
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    check_tensor_list(tensors, 0)
    if indexing is None:
        return tuple(_meshgrid(list(tensors)))
    return tuple(_meshgrid(list(tensors), indexing=indexing))


def _as_tuple(result: Any) -> Any:
    # torch: a binding returning Tensor[] gives a tuple; an out= form returning () gives None.
    return None if result is None else tuple(result)


def split_copy(*args: Any, **kwargs: Any) -> Any:
    """Contiguous copies of split's pieces, as a tuple. Torch: torch.split_copy."""
    return _as_tuple(_split_copy(*args, **kwargs))


def split_with_sizes_copy(*args: Any, **kwargs: Any) -> Any:
    """Contiguous copies of split_with_sizes's pieces, as a tuple.

    Torch: torch.split_with_sizes_copy.
    """
    return _as_tuple(_split_with_sizes_copy(*args, **kwargs))


def unbind_copy(*args: Any, **kwargs: Any) -> Any:
    """Contiguous copies of unbind's slices, as a tuple. Torch: torch.unbind_copy."""
    return _as_tuple(_unbind_copy(*args, **kwargs))


class ConstructionMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    tril = method("tril")
    triu = method("triu")
    tril_ = method("tril_")
    triu_ = method("triu_")
    diag = method("diag")
    diag_embed = method("diag_embed")
    diagflat = method("diagflat")
    select_scatter = method("select_scatter")
    slice_scatter = method("slice_scatter")
    diagonal_scatter = method("diagonal_scatter")
    as_strided_scatter = method("as_strided_scatter")
    narrow_copy = method("narrow_copy")
