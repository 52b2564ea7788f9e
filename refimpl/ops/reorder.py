"""Ops that move or repeat elements into a new tensor: flip, fliplr, flipud, roll, rot90, repeat, tile, repeat_interleave.

Torch: aten/src/ATen/native/TensorTransformations.cpp (flip, roll, rot90) and Repeat.cpp
(repeat_interleave), repeat and tile in TensorShape.cpp. Each real kernel is one body for
CPU, CUDA and Meta: torch's checks and the result's geometry first, then the values when the
tensor has data. The out= forms torch generates for CompositeExplicitAutograd ops compute
the result and copy it into `out` (`same_as_out`).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_products import repeat_backward
from refimpl.ops._join import format_list, laid_out, register_backends
from refimpl.ops._reduction import same_as_out
from refimpl.ops._register import defop
from refimpl.ops.view import CONTIGUOUS_FORMAT

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- flip, fliplr, flipud ----------------------------------------------------------------

flip = defop("flip(Tensor self, int[] dims) -> Tensor")


def flip_kernel(self: TensorImpl, dims: list[int]) -> Any:
    """The elements in reverse order along `dims`, laid out like `self`.

    Torch: flip in TensorTransformations.cpp (empty_like with preserve_format, then the
    reversed copy; a repeated dim raises dim_list_to_bitset's error).
    """
    size = self._size
    wrapped = geometry.dim_list(dims, len(size))
    stride = geometry.dense_strides_like(size, self._stride)
    values = None
    backend = self._storage.backend
    if backend is not None:
        values = array_of(self)
        axes = tuple(d for d in wrapped if size[d] > 1)
        if axes:
            values = backend.xp.flip(values, axis=axes)
    return laid_out(values, self, size, stride, self._dtype, fresh=False)


register_backends(flip, flip_kernel)


@flip.derivative("self")
def flip_backward(grad: Tensor, dims: list[int]) -> Tensor:
    # torch: grad.flip(dims)
    return aten.flip.default(grad, dims)


flip_out = defop("flip.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)")


@flip_out.kernel(CEA)
def flip_out_kernel(self: TensorImpl, dims: list[int], *, out: TensorImpl) -> Any:
    """Torch: the generated flip.out (flip, then resize_out_helper and copy_arg)."""
    return same_as_out(aten.flip.default(self, dims), out)


fliplr = defop("fliplr(Tensor self) -> Tensor")


@fliplr.decomposition
def fliplr_decomposition(self: TensorImpl) -> Any:
    """Columns in reverse order. Torch: fliplr in TensorTransformations.cpp (flip({1}))."""
    if len(self._size) < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip.default(self, [1])


flipud = defop("flipud(Tensor self) -> Tensor")


@flipud.decomposition
def flipud_decomposition(self: TensorImpl) -> Any:
    """Rows in reverse order. Torch: flipud in TensorTransformations.cpp (flip({0}))."""
    if len(self._size) < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip.default(self, [0])


# --- roll --------------------------------------------------------------------------------

roll = defop("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor")


def roll_kernel(self: TensorImpl, shifts: list[int], dims: list[int]) -> Any:
    """The elements shifted cyclically along `dims` (no dims: along the flattened tensor).

    Torch: roll_cpu and roll_common in TensorTransformations.cpp: one dim is two narrows
    concatenated (so the result is laid out as cat lays it out); several dims roll one after
    the other; no dims roll the contiguous flattened tensor. An empty tensor is cloned
    (preserving its layout) before any dim is looked at.
    """
    size = self._size
    if len(shifts) != 1 or len(dims) != 1:
        if not shifts:
            raise RuntimeError("`shifts` required")
        if (dims or len(shifts) != 1) and len(shifts) != len(dims):
            raise RuntimeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
            )
    empty = geometry.numel(size) == 0
    if not dims:
        stride = geometry.contiguous_strides(size)
    elif empty:
        stride = geometry.dense_strides_like(size, self._stride)
    elif layout.suggests_channels_last(size, self._stride):
        stride = layout.channels_last_strides(size)
    else:
        stride = geometry.contiguous_strides(size)
    if dims and not size:
        # torch: self.size(dim) on a 0-d tensor (maybe_wrap_dim without wrap_scalar).
        raise geometry.no_dimensions(dims[0])
    wrapped = [] if empty else [geometry.wrap_dim(d, len(size)) for d in dims]
    values = None
    backend = self._storage.backend
    if backend is not None:
        values = array_of(self)
        if not empty:
            xp = backend.xp
            if wrapped:
                values = xp.roll(values, shift=tuple(shifts), axis=tuple(wrapped))
            else:
                values = xp.roll(values, shift=shifts[0])
    return laid_out(
        values, self, size, stride, self._dtype, fresh=backend is not None and not empty
    )


register_backends(roll, roll_kernel)


@roll.derivative("self")
def roll_backward(grad: Tensor, shifts: list[int], dims: list[int]) -> Tensor:
    # torch: grad.roll_symint(fmap(reverse_list_symint(shifts), [](c10::SymInt i){return -i;}),
    # reverse_list(dims))
    return aten.roll.default(grad, [-s for s in reversed(shifts)], list(reversed(dims)))


roll_out = defop(
    "roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out) -> Tensor(a!)"
)


@roll_out.kernel(CEA)
def roll_out_kernel(
    self: TensorImpl, shifts: list[int], dims: list[int], *, out: TensorImpl
) -> Any:
    """Torch: the generated roll.out."""
    return same_as_out(aten.roll.default(self, shifts, dims), out)


# --- rot90 -------------------------------------------------------------------------------

rot90 = defop("rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor")


@rot90.kernel(CEA)
def rot90_kernel(self: TensorImpl, k: int, dims: list[int]) -> Any:
    """The (dims[0], dims[1]) planes turned by k quarter turns, from dims[0] towards dims[1].

    Torch: rot90 in TensorTransformations.cpp: k = 1 is flip(dims[1]) then transpose_, 2 is
    a flip of both dims, 3 is flip(dims[0]) then transpose_, 0 a contiguous clone; the
    result keeps the geometry those steps give.
    """
    size = self._size
    ndim = len(size)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = geometry.wrap_dim(dims[0], ndim), geometry.wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    turns = k % 4
    backend = self._storage.backend
    values = array_of(self) if backend is not None else None
    if turns == 0:
        if values is not None and backend is not None:
            values = backend.xp.asarray(values, copy=True)
        stride = geometry.contiguous_strides(size)
        return laid_out(values, self, size, stride, self._dtype, fresh=True)
    stride = geometry.dense_strides_like(size, self._stride)
    if turns == 2:
        if values is not None and backend is not None:
            values = backend.xp.flip(values, axis=(d0, d1))
        return laid_out(values, self, size, stride, self._dtype, fresh=False)
    # A quarter turn: flip one dim, then swap the two dims (sizes, strides and values).
    swapped = list(range(ndim))
    swapped[d0], swapped[d1] = d1, d0
    if values is not None and backend is not None:
        xp = backend.xp
        values = xp.permute_dims(xp.flip(values, axis=d1 if turns == 1 else d0), tuple(swapped))
    new_size = tuple(size[d] for d in swapped)
    new_stride = tuple(stride[d] for d in swapped)
    return laid_out(values, self, new_size, new_stride, self._dtype, fresh=False)


@rot90.derivative("self")
def rot90_backward(grad: Tensor, k: int, dims: list[int]) -> Tensor:
    # torch: grad.rot90(-k, dims)
    return aten.rot90.default(grad, -k, dims)


rot90_out = defop(
    "rot90.out(Tensor self, int k=1, int[] dims=[0, 1], *, Tensor(a!) out) -> Tensor(a!)"
)


@rot90_out.kernel(CEA)
def rot90_out_kernel(self: TensorImpl, k: int, dims: list[int], *, out: TensorImpl) -> Any:
    """Torch: the generated rot90.out."""
    return same_as_out(aten.rot90.default(self, k, dims), out)


# --- repeat, tile ------------------------------------------------------------------------

repeat = defop("repeat(Tensor self, SymInt[] repeats) -> Tensor")


@repeat.kernel(CEA)
def repeat_kernel(self: TensorImpl, repeats: list[int]) -> Any:
    """The tensor tiled `repeats[i]` times along each dim (new leading dims as needed).

    Torch: repeat in TensorShape.cpp; the result is a new contiguous tensor whose size is
    checked as at::empty checks it.
    """
    ndim = len(self._size)
    if len(repeats) < ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(repeats) - ndim) + self._size
    target = tuple(n * r for n, r in zip(padded, repeats, strict=True))
    for n in target:
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: {format_list(target)}"
            )
    values = None
    backend = self._storage.backend
    if backend is not None:
        xp = backend.xp
        values = xp.tile(xp.reshape(array_of(self), padded), tuple(repeats))
    stride = geometry.contiguous_strides(target)
    return laid_out(values, self, target, stride, self._dtype, fresh=True)


@repeat.derivative("self")
def repeat_derivative(grad: Tensor, repeats: list[int], self_sym_sizes: list[int]) -> Tensor:
    # torch: repeat_backward(grad, repeats, self.sym_sizes())
    return repeat_backward(grad, repeats, self_sym_sizes)


repeat_out = defop("repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out) -> Tensor(a!)")


@repeat_out.kernel(CEA)
def repeat_out_kernel(self: TensorImpl, repeats: list[int], *, out: TensorImpl) -> Any:
    """Torch: the generated repeat.out."""
    return same_as_out(aten.repeat.default(self, repeats), out)


tile = defop("tile(Tensor self, SymInt[] dims) -> Tensor")


@tile.decomposition
def tile_decomposition(self: TensorImpl, dims: list[int]) -> Any:
    """repeat, with `dims` padded by leading 1s to the tensor's rank. Torch: tile_symint."""
    missing = len(self._size) - len(dims)
    return aten.repeat.default(self, [1] * missing + list(dims) if missing > 0 else dims)


# --- repeat_interleave -------------------------------------------------------------------

repeat_interleave = defop(
    "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor"
)

# torch: AT_DISPATCH_INDEX_TYPES, the dtypes repeat_interleave's repeats may have.
_INDEX_DTYPES: Final = frozenset({"int32", "int64"})


def repeat_interleave_kernel(repeats: TensorImpl, *, output_size: int | None) -> Any:
    """Each index i of the 1-d `repeats` written repeats[i] times: the indices that repeat
    the elements. Torch: repeat_interleave_cpu / repeat_interleave_common in Repeat.cpp."""
    backend = repeats._storage.backend
    device = repeats._storage.device
    if backend is None and output_size is None:
        raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
    if repeats._dtype.name not in _INDEX_DTYPES:
        raise NotImplementedError(
            f'"repeat_interleave_{device.type}" not implemented for '
            f"'{repeats._dtype.scalar_name}'"
        )
    if len(repeats._size) != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    count = repeats._size[0]
    if backend is None:
        assert output_size is not None  # checked above
        return laid_out(None, repeats, (output_size,), (1,), repeats._dtype, fresh=True)
    if count == 0:
        empty = backend.xp.zeros((0,), dtype=backend_dtype(backend, repeats._dtype))
        return laid_out(empty, repeats, (0,), (1,), repeats._dtype, fresh=True)
    xp = backend.xp
    counts = xp.astype(array_of(repeats), xp.int64)
    required = int(xp.sum(counts))
    negative = bool(xp.any(counts < 0))
    if output_size is None:
        total = required
        if negative:
            raise RuntimeError("repeats can not be negative")
    else:
        total = output_size
    if total != required:
        raise RuntimeError("allocated size does not match required size")
    if negative:
        raise RuntimeError("repeats can not be negative")
    indices = xp.arange(count, dtype=backend_dtype(backend, repeats._dtype))
    values = xp.repeat(indices, counts)
    return laid_out(values, repeats, (total,), (1,), repeats._dtype, fresh=True)


register_backends(repeat_interleave, repeat_interleave_kernel)

repeat_interleave_out = defop(
    "repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@repeat_interleave_out.kernel(CEA)
def repeat_interleave_out_kernel(
    repeats: TensorImpl, *, output_size: int | None, out: TensorImpl
) -> Any:
    """Torch: the generated repeat_interleave.Tensor_out."""
    return same_as_out(aten.repeat_interleave.Tensor(repeats, output_size=output_size), out)


repeat_interleave_self_tensor = defop(
    "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor"
)


@repeat_interleave_self_tensor.decomposition
def repeat_interleave_self_tensor_decomposition(
    self: TensorImpl, repeats: TensorImpl, dim: int | None, *, output_size: int | None
) -> Any:
    """Element i along `dim` (of the flattened tensor if no dim) repeated repeats[i] times.

    Torch: repeat_interleave_symint(Tensor, Tensor) in Repeat.cpp: a 0-d or one-element
    `repeats` is broadcast, then index_select with the indices repeat_interleave.Tensor gives.
    """
    source = self if dim is not None else aten.flatten.using_ints(self, 0, -1)
    d = 0 if dim is None else dim
    length = source._size[geometry.wrap_dim(d, len(source._size))]
    counts = repeats
    if not repeats._size or repeats._size == (1,):
        counts = aten.expand.default(aten.reshape.default(repeats, [1]), [length])
    elif len(repeats._size) == 1:
        if repeats._size[0] != length:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._size[0]} and input.size({d}) = {length}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    indices = aten.repeat_interleave.Tensor(counts, output_size=output_size)
    return aten.index_select.default(source, d, indices)


repeat_interleave_self_int = defop(
    "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor"
)


@repeat_interleave_self_int.decomposition
def repeat_interleave_self_int_decomposition(
    self: TensorImpl, repeats: int, dim: int | None, *, output_size: int | None
) -> Any:
    """Each element along `dim` repeated `repeats` times.

    Torch: repeat_interleave_symint(Tensor, SymInt) in Repeat.cpp: a new dim after `dim`
    expanded to `repeats`, cloned contiguous and merged back into `dim`.
    """
    source = self if dim is not None else aten.flatten.using_ints(self, 0, -1)
    d = geometry.wrap_dim(0 if dim is None else dim, len(source._size))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    expanded = list(source._size)
    expanded.insert(d + 1, repeats)
    spread = aten.expand.default(aten.unsqueeze.default(source, d + 1), expanded)
    copy = aten.clone.default(spread, memory_format=CONTIGUOUS_FORMAT)
    return aten.flatten.using_ints(copy, d, d + 1)
