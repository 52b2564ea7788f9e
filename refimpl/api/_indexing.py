"""Basic indexing: how `t[...]` with ints, slices, None, Ellipsis and bools becomes views.

Torch: applySlicing in torch/csrc/autograd/python_variable_indexing.cpp. Basic indices give a
view (select, slice, unsqueeze); advanced indices (integer and boolean tensors) arrive with the
operator issue.
"""

from __future__ import annotations

from typing import Any

from refimpl.core import strides as geometry


def normalize_index(index: object) -> tuple[Any, ...]:
    """The index as a tuple of index items."""
    if isinstance(index, tuple):
        return index
    return (index,)


def basic_index_geometry(
    g: geometry.Geometry, index: object, tensor_type: type
) -> geometry.Geometry:
    """The geometry `t[index]` views, for ints, slices, None, Ellipsis and Python bools."""
    items = normalize_index(index)
    ndim = len(g.size)
    consumed = 0
    ellipses = 0
    for item in items:
        if item is Ellipsis:
            ellipses += 1
        elif item is None or isinstance(item, bool):
            continue
        elif isinstance(item, (int, slice)):
            consumed += 1
        elif isinstance(item, tensor_type):
            raise NotImplementedError(
                "refimpl: indexing with tensors (advanced indexing) is not implemented yet"
            )
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                "Variables are valid indices (got " + type(item).__name__ + ")"
            )
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim += ndim - consumed
        elif item is None:
            g = geometry.unsqueeze(g, dim)
            dim += 1
        elif isinstance(item, bool):
            # torch: a Python bool is unsqueeze + (True: keep, False: an empty slice).
            g = geometry.unsqueeze(g, dim)
            if not item:
                g = geometry.slice_(g, dim, 0, 0, 1)
            dim += 1
        elif isinstance(item, int):
            n = g.size[dim]
            if item < -n or item >= n:
                raise IndexError(
                    f"index {item} is out of bounds for dimension {dim} with size {n}"
                )
            g = geometry.select(g, dim, item)
        else:
            assert isinstance(item, slice)
            step = 1 if item.step is None else _as_int(item.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            start = None if item.start is None else _as_int(item.start)
            stop = None if item.stop is None else _as_int(item.stop)
            g = geometry.slice_(g, dim, start, stop, step)
            dim += 1
    return g


def _as_int(value: object) -> int:
    index = getattr(value, "__index__", None)
    if index is None:
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        )
    result: int = index()
    return result


def has_bool_index(index: object) -> bool:
    """Whether the index holds a Python bool (which torch treats as a mask, giving a copy)."""
    return any(isinstance(item, bool) for item in normalize_index(index))
