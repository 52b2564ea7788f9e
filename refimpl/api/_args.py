"""Argument conventions shared by the torch API functions (sizes given as varargs or a tuple).

Torch: the IntArrayRef parsing in torch/csrc/utils/python_arg_parser.cpp.
"""

from __future__ import annotations

from typing import Any


def sizes(args: tuple[Any, ...], name: str) -> tuple[int, ...]:
    """`f(2, 3)` and `f((2, 3))` both mean size (2, 3), as in torch's argument parser."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for n in args:
        if type(n) is not int:
            return tuple(as_index(n, name) for n in args)
    return args  # plain ints, the usual case


def as_index(value: object, name: str) -> int:
    """An int from an int or anything with `__index__` (a 0-dim integer tensor)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    index = getattr(value, "__index__", None)
    if index is None or isinstance(value, bool):
        raise TypeError(
            f"{name}(): argument 'size' must be tuple of ints, but found element of type "
            f"{type(value).__name__}"
        )
    result: int = index()
    return result
