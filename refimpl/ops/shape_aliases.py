"""Shape aliases: atleast_*, ravel, broadcast_to, broadcast_tensors, unflatten, reshape_as, narrow.Tensor and the dim-moving aliases (moveaxis, swapaxes, swapdims).

Torch: aten/src/ATen/native/TensorShape.cpp. Every op here is CompositeImplicitAutograd in
torch: a decomposition over other aten ops (reshape, unsqueeze, expand, view, movedim,
transpose), whose ops record their own autograd history.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import Category
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._join import format_list
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- atleast_1d, atleast_2d, atleast_3d ---------------------------------------------------


atleast_1d = defop("atleast_1d(Tensor self) -> Tensor")


@atleast_1d.decomposition
def atleast_1d_decomposition(self: TensorImpl) -> Any:
    """A 0-d tensor as shape [1]; others unchanged. Torch: atleast_1d in TensorShape.cpp."""
    return aten.reshape.default(self, [1]) if not self._size else self


atleast_1d_sequence = defop("atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]")


@atleast_1d_sequence.decomposition
def atleast_1d_sequence_decomposition(tensors: list[TensorImpl]) -> Any:
    """Torch: atleast_1d(TensorList), each input through atleast_1d."""
    return [aten.atleast_1d.default(t) for t in tensors]


atleast_2d = defop("atleast_2d(Tensor self) -> Tensor")


@atleast_2d.decomposition
def atleast_2d_decomposition(self: TensorImpl) -> Any:
    """0-d as [1, 1], 1-d as a row. Torch: atleast_2d in TensorShape.cpp."""
    ndim = len(self._size)
    if ndim == 0:
        return aten.reshape.default(self, [1, 1])
    if ndim == 1:
        return aten.unsqueeze.default(self, 0)
    return self


atleast_2d_sequence = defop("atleast_2d.Sequence(Tensor[] tensors) -> Tensor[]")


@atleast_2d_sequence.decomposition
def atleast_2d_sequence_decomposition(tensors: list[TensorImpl]) -> Any:
    """Torch: atleast_2d(TensorList)."""
    return [aten.atleast_2d.default(t) for t in tensors]


atleast_3d = defop("atleast_3d(Tensor self) -> Tensor")


@atleast_3d.decomposition
def atleast_3d_decomposition(self: TensorImpl) -> Any:
    """0-d as [1, 1, 1], 1-d as [1, n, 1], 2-d with a last dim of 1. Torch: atleast_3d."""
    ndim = len(self._size)
    if ndim == 0:
        return aten.reshape.default(self, [1, 1, 1])
    if ndim == 1:
        return aten.unsqueeze.default(aten.unsqueeze.default(self, 0), -1)
    if ndim == 2:
        return aten.unsqueeze.default(self, -1)
    return self


atleast_3d_sequence = defop("atleast_3d.Sequence(Tensor[] tensors) -> Tensor[]")


@atleast_3d_sequence.decomposition
def atleast_3d_sequence_decomposition(tensors: list[TensorImpl]) -> Any:
    """Torch: atleast_3d(TensorList)."""
    return [aten.atleast_3d.default(t) for t in tensors]


# --- ravel, broadcast_to, broadcast_tensors, unflatten -----------------------------------


ravel = defop("ravel(Tensor(a) self) -> Tensor(a)")


@ravel.decomposition
def ravel_decomposition(self: TensorImpl) -> Any:
    """The elements as 1-d: a view of a contiguous input. Torch: ravel (contiguous, view)."""
    return aten.view.default(aten.contiguous.default(self), [-1])


broadcast_to = defop("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)")


@broadcast_to.decomposition
def broadcast_to_decomposition(self: TensorImpl, size: list[int]) -> Any:
    """Torch: broadcast_to in TensorShape.cpp (expand)."""
    return aten.expand.default(self, size)


broadcast_tensors = defop("broadcast_tensors(Tensor[] tensors) -> Tensor[]")


@broadcast_tensors.decomposition
def broadcast_tensors_decomposition(tensors: list[TensorImpl]) -> Any:
    """Each input expanded to the common shape (an input already of it comes back itself).

    Torch: broadcast_tensors (expand_outplace in ExpandUtils.cpp).
    """
    shape: tuple[int, ...] = ()
    for i, t in enumerate(tensors):
        shape = t._size if i == 0 else data.broadcast_shapes(shape, t._size)
    return [t if t._size == shape else aten.expand.default(t, list(shape)) for t in tensors]


unflatten = defop("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)")


@unflatten.decomposition
def unflatten_decomposition(self: TensorImpl, dim: int, sizes: list[int]) -> Any:
    """Dim `dim` viewed as `sizes` (one may be -1). Torch: unflatten_impl in TensorShape.cpp."""
    d = geometry.wrap_dim(dim, len(self._size))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = geometry.infer_size(sizes, self._size[d])
    except RuntimeError as error:
        # torch: handle_unflatten_exception rewords infer_size's message.
        if "is invalid for input of size" in str(error):
            raise RuntimeError(
                f"unflatten: Provided sizes {format_list(sizes)} don't multiply up to the "
                f"size of dim {d} ({self._size[d]}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
    shape = [*self._size[:d], *inferred, *self._size[d + 1 :]]
    return aten.view.default(self, shape)


reshape_as = defop("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)")


@reshape_as.decomposition
def reshape_as_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: reshape_as in TensorShape.cpp (reshape to other's sizes)."""
    return aten.reshape.default(self, list(other._size))


# --- narrow.Tensor, moveaxis, swapaxes, swapdims ----------------------------------------


narrow_tensor = defop(
    "narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)"
)


@narrow_tensor.decomposition
def narrow_tensor_decomposition(self: TensorImpl, dim: int, start: TensorImpl, length: int) -> Any:
    """narrow with a 0-d integer tensor start. Torch: narrow_tensor_symint (item, narrow)."""
    # torch: isIntegralType(start.scalar_type(), /*includeBool=*/false).
    if start._size or start._dtype.category is not Category.INTEGRAL:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return aten.narrow.default(self, dim, aten._local_scalar_dense.default(start), length)


moveaxis_intlist = defop(
    "moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)"
)


@moveaxis_intlist.decomposition
def moveaxis_intlist_decomposition(
    self: TensorImpl, source: list[int], destination: list[int]
) -> Any:
    """Torch: moveaxis, an alias of movedim."""
    return aten.movedim.intlist(self, source, destination)


moveaxis_int = defop("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)")


@moveaxis_int.decomposition
def moveaxis_int_decomposition(self: TensorImpl, source: int, destination: int) -> Any:
    """Torch: moveaxis.int, an alias of movedim.int."""
    return aten.movedim.int(self, source, destination)


swapaxes = defop("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)")


@swapaxes.decomposition
def swapaxes_decomposition(self: TensorImpl, axis0: int, axis1: int) -> Any:
    """Torch: swapaxes, an alias of transpose."""
    return aten.transpose.int(self, axis0, axis1)


swapdims = defop("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")


@swapdims.decomposition
def swapdims_decomposition(self: TensorImpl, dim0: int, dim1: int) -> Any:
    """Torch: swapdims, an alias of transpose."""
    return aten.transpose.int(self, dim0, dim1)
