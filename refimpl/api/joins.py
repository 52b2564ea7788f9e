"""The torch.* functions and Tensor methods of shapes and joins (cat, stack, the splits, flip, roll, rot90, repeat, tile, repeat_interleave, atleast_*, broadcast_*, ravel, unflatten) and the module-level forms of the view ops.

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp,
and the Python wrappers of torch/functional.py (split, atleast_*, broadcast_tensors,
broadcast_shapes). Each function and method passes through `api/_call.py` (`torch_function`,
`method`); one line per name, so a reader greps for it. `JoinMethods` is a base class of
`refimpl.Tensor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refimpl._base.size import Size
from refimpl.api._args import sizes as parse_sizes
from refimpl.api._call import check_tensor_list, method, torch_function
from refimpl.core.tensor import TensorImpl
from refimpl.ops import aten

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_chunk_cat",
    "as_strided",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "cat",
    "chunk",
    "column_stack",
    "concat",
    "concatenate",
    "detach",
    "diagonal",
    "dsplit",
    "dstack",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "moveaxis",
    "movedim",
    "narrow",
    "permute",
    "ravel",
    "repeat_interleave",
    "reshape",
    "roll",
    "rot90",
    "row_stack",
    "select",
    "split",
    "split_with_sizes",
    "squeeze",
    "stack",
    "swapaxes",
    "swapdims",
    "t",
    "tensor_split",
    "tile",
    "transpose",
    "unbind",
    "unflatten",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "unsqueeze",
    "vsplit",
    "vstack",
]

# --- joins ---------------------------------------------------------------------------------
_cat = torch_function("cat")


def cat(*args: Any, **kwargs: Any) -> Any:
    """The tensors joined along `dim`. Torch: torch.cat (the aten.cat overloads).

    `cat(tensors)` and `cat(tensors, dim)`, with a list or tuple of tensors and an int dim,
    always bind to cat.default: they enter it with the arguments its binder would return (a
    new list; dim 0 when omitted). Every other call goes through the binding (`_cat`), which
    picks the overload or raises torch's TypeError.
    """
    if not kwargs and 0 < len(args) <= 2:
        tensors = args[0]
        dim = args[1] if len(args) == 2 else 0
        if (type(tensors) is list or type(tensors) is tuple) and type(dim) is int:
            for t in tensors:
                if not isinstance(t, TensorImpl):
                    break
            else:
                return aten.cat.default.call_bound((list(tensors), dim), {})
    return _cat(*args, **kwargs)


_chunk_cat = torch_function("_chunk_cat")
concat = torch_function("concat")
concatenate = torch_function("concatenate")
stack = torch_function("stack")
hstack = torch_function("hstack")
vstack = torch_function("vstack")
row_stack = torch_function("row_stack")
dstack = torch_function("dstack")
column_stack = torch_function("column_stack")

# --- splits --------------------------------------------------------------------------------
split_with_sizes = torch_function("split_with_sizes")
tensor_split = torch_function("tensor_split")
hsplit = torch_function("hsplit")
vsplit = torch_function("vsplit")
dsplit = torch_function("dsplit")
chunk = torch_function("chunk")
unsafe_split = torch_function("unsafe_split")
unsafe_split_with_sizes = torch_function("unsafe_split_with_sizes")
unsafe_chunk = torch_function("unsafe_chunk")
unbind = torch_function("unbind")

# --- reordering and repeating ----------------------------------------------------------------
flip = torch_function("flip")
fliplr = torch_function("fliplr")
flipud = torch_function("flipud")
rot90 = torch_function("rot90")
tile = torch_function("tile")
repeat_interleave = torch_function("repeat_interleave")

# --- shapes and views ----------------------------------------------------------------------
ravel = torch_function("ravel")
broadcast_to = torch_function("broadcast_to")
unflatten = torch_function("unflatten")
movedim = torch_function("movedim")
moveaxis = torch_function("moveaxis")
swapaxes = torch_function("swapaxes")
swapdims = torch_function("swapdims")
narrow = torch_function("narrow")
reshape = torch_function("reshape")
transpose = torch_function("transpose")
permute = torch_function("permute")
squeeze = torch_function("squeeze")
unsqueeze = torch_function("unsqueeze")
t = torch_function("t")
select = torch_function("select")
diagonal = torch_function("diagonal")
flatten = torch_function("flatten")
as_strided = torch_function("as_strided")
detach = torch_function("detach")


def _int_list(value: Any) -> Any:
    # torch: the argument parser reads one int as a one-element list for `SymInt[1]` and
    # `int[1]`, and None as the default for an int list with one.
    if value is None:
        return []
    return [value] if isinstance(value, int) else value


_roll = torch_function("roll")


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    """The elements shifted cyclically along `dims` (an int or a sequence; none: flattened).

    Torch: torch.roll (aten.roll; the binding takes ints where the schema has `SymInt[1]`).
    """
    return _roll(input, _int_list(shifts), _int_list(dims))


def split(tensor: TensorImpl, split_size_or_sections: Any, dim: int = 0) -> Any:
    """Pieces of `split_size_or_sections` (an int: equal pieces; a list: their lengths).

    Torch: torch.split in torch/functional.py, which calls Tensor.split (split.Tensor or
    split_with_sizes, picked by torch/_tensor.py).
    """
    return tensor.split(split_size_or_sections, dim)  # type: ignore[attr-defined]  # a Tensor


def _atleast(packet: Any, tensors: tuple[Any, ...]) -> Any:
    # torch: torch/functional.py passes one argument alone (a tensor, or a sequence of
    # tensors) and several as a tuple; aten's Sequence overload returns a tuple.
    given: Any = tensors[0] if len(tensors) == 1 else tensors
    if isinstance(given, TensorImpl):
        return packet.default(given)
    if not isinstance(given, (tuple, list)):
        # torch: the parser's message for its two signatures, Tensor and TensorList.
        got = type(given).__name__
        why = f"      didn't match because some of the arguments have invalid types: (!{got}!)"
        raise TypeError(
            f"{packet.__name__}() received an invalid combination of arguments - got ({got}), "
            f"but expected one of:\n * (Tensor input)\n{why}\n * (tuple of Tensors tensors)\n"
            f"{why}\n"
        )
    check_tensor_list(given, 0)
    return tuple(packet.Sequence(list(given)))


def atleast_1d(*tensors: Any) -> Any:
    """Each input with at least one dim. Torch: torch.atleast_1d (torch/functional.py)."""
    return _atleast(aten.atleast_1d, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each input with at least two dims. Torch: torch.atleast_2d (torch/functional.py)."""
    return _atleast(aten.atleast_2d, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each input with at least three dims. Torch: torch.atleast_3d (torch/functional.py)."""
    return _atleast(aten.atleast_3d, tensors)


def broadcast_tensors(*tensors: Any) -> tuple[Any, ...]:
    """The inputs expanded to their common shape. Torch: torch.broadcast_tensors
    (torch/functional.py, aten.broadcast_tensors)."""
    check_tensor_list(tensors, 0)
    return tuple(aten.broadcast_tensors.default(list(tensors)))


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape tensors of these shapes broadcast to, computed without tensors.

    Torch: torch.broadcast_shapes (torch/functional.py over torch._refs._broadcast_shapes):
    an int is a 1-d shape, None is ignored; the errors are those of _broadcast_shapes.
    """
    given = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    if not given:
        return Size(())
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(  # noqa: TRY004  # torch raises RuntimeError here
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
                f"{shape}"
            )
    common = [1] * max(len(shape) for shape in given)
    for index, shape in enumerate(given):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            if shape[i] != 1 and common[i] != shape[i]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(tuple(common))


class JoinMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    split_with_sizes = method("split_with_sizes")
    tensor_split = method("tensor_split")
    hsplit = method("hsplit")
    vsplit = method("vsplit")
    dsplit = method("dsplit")
    unsafe_split = method("unsafe_split")
    unsafe_split_with_sizes = method("unsafe_split_with_sizes")
    unsafe_chunk = method("unsafe_chunk")
    fliplr = method("fliplr")
    flipud = method("flipud")
    rot90 = method("rot90")
    repeat_interleave = method("repeat_interleave")
    ravel = method("ravel")
    reshape_as = method("reshape_as")
    unflatten = method("unflatten")
    moveaxis = method("moveaxis")
    swapdims = method("swapdims")

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        """Torch: Tensor.roll (see `roll`)."""
        return _roll(self, _int_list(shifts), _int_list(dims))

    def flip(self, *dims: Any, **kwargs: Any) -> Any:
        """The elements reversed along `dims` (`x.flip(0, 1)`, `x.flip((0, 1))`, `dims=`).

        Torch: Tensor.flip (aten.flip; the binding takes the dims as varargs too).
        """
        return aten.flip.default(self, _varargs(dims, kwargs, "dims", "flip"))

    def repeat(self, *repeats: Any, **kwargs: Any) -> Any:
        """The tensor tiled along each dim (`x.repeat(2, 3)`, `x.repeat((2, 3))`, `repeats=`).

        Torch: Tensor.repeat (aten.repeat; the binding takes the sizes as varargs too).
        """
        return aten.repeat.default(self, _varargs(repeats, kwargs, "repeats", "repeat"))

    def broadcast_to(self, *size: Any, **kwargs: Any) -> Any:
        """expand to `size` (`x.broadcast_to(2, 3)` or a sequence). Torch: Tensor.broadcast_to."""
        return aten.broadcast_to.default(self, _varargs(size, kwargs, "size", "broadcast_to"))

    def tile(self, *dims: Any, **kwargs: Any) -> Any:
        """repeat with the reps padded to the tensor's rank (`x.tile(2)`). Torch: Tensor.tile."""
        return aten.tile.default(self, _varargs(dims, kwargs, "dims", "tile"))


def _varargs(args: tuple[Any, ...], kwargs: dict[str, Any], keyword: str, name: str) -> list[int]:
    # torch: a method whose one list argument may come as varargs, a sequence or by keyword.
    if keyword in kwargs and not args:
        args = (kwargs.pop(keyword),)
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return list(parse_sizes(args, name))
