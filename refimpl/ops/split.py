"""The splits: tensor_split, hsplit, vsplit, dsplit, split.sizes, and the unsafe_ forms of split and chunk.

Torch: aten/src/ATen/native/TensorShape.cpp. tensor_split and the directional splits are
CompositeImplicitAutograd: each piece is an aten.slice of the input (a view). The unsafe_
forms share their input's memory without being views for autograd. (split.Tensor,
split_with_sizes, chunk and unbind are in ops/view.py.)
"""

from __future__ import annotations

import itertools
from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.storage import VersionCounter
from refimpl.core.tensor import TensorImpl, make_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, split_backward, split_with_sizes_backward
from refimpl.ops._reduction import same_as_out
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- tensor_split, hsplit, vsplit, dsplit ------------------------------------------------


def _split_dim(self: TensorImpl, dim: int) -> int:
    if not self._size:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    return geometry.wrap_dim(dim, len(self._size))


tensor_split_sections = defop(
    "tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]"
)


@tensor_split_sections.decomposition
def tensor_split_sections_decomposition(self: TensorImpl, sections: int, dim: int) -> Any:
    """`sections` slices of `dim`, the first (size % sections) one longer.

    Torch: tensor_split_sections_symint in TensorShape.cpp.
    """
    d = _split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    dim_size = self._size[d]
    base, extra = divmod(dim_size, sections)
    pieces = []
    start = 0
    for i in range(sections):
        length = base + 1 if i < extra else base
        pieces.append(aten.slice.Tensor(self, d, start, start + length, 1))
        start += length
    return pieces


tensor_split_indices = defop(
    "tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]"
)


@tensor_split_indices.decomposition
def tensor_split_indices_decomposition(self: TensorImpl, indices: list[int], dim: int) -> Any:
    """Slices of `dim` between consecutive indices (clamped, so possibly empty).

    Torch: _tensor_split_indices in TensorShape.cpp.
    """
    d = _split_dim(self, dim)
    bounds = [0, *indices]
    pieces = [
        aten.slice.Tensor(self, d, start, end, 1) for start, end in itertools.pairwise(bounds)
    ]
    pieces.append(aten.slice.Tensor(self, d, bounds[-1], self._size[d], 1))
    return pieces


tensor_split_tensor = defop(
    "tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor "
    "tensor_indices_or_sections, int dim=0) -> Tensor(a)[]"
)


@tensor_split_tensor.decomposition
def tensor_split_tensor_decomposition(
    self: TensorImpl, tensor_indices_or_sections: TensorImpl, dim: int
) -> Any:
    """The sections (0-d) or indices (1-d) read from an int64 CPU tensor.

    Torch: tensor_split(const Tensor&, const Tensor&, int64_t) in TensorShape.cpp.
    """
    given = tensor_indices_or_sections
    if not self._size:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    if given.device.type != "cpu":
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
            f"{given.device}"
        )
    if given._dtype.name != "int64":
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{given._dtype.scalar_name}"
        )
    if len(given._size) > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {len(given._size)} dims"
        )
    if not given._size:
        return aten.tensor_split.sections(self, aten._local_scalar_dense.default(given), dim)
    # torch reads the indices straight from memory, with no aten call.
    return aten.tensor_split.indices(self, [int(i) for i in given.tolist()], dim)


# torch: the (name, dim, minimum rank) of hsplit, vsplit and dsplit; hsplit splits a 1-d
# tensor along dim 0.
_DIRECTIONAL_SPLITS: Final = {"hsplit": (1, 1), "vsplit": (0, 2), "dsplit": (2, 3)}


def _directional_dim(self: TensorImpl, name: str) -> int:
    dim, rank = _DIRECTIONAL_SPLITS[name]
    ndim = len(self._size)
    if ndim < rank:
        what = "1 dimension" if rank == 1 else f"{rank} dimension"
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {what}, but got a tensor with "
            f"{ndim} dimensions!"
        )
    return 0 if name == "hsplit" and ndim == 1 else dim


def _directional_sections(self: TensorImpl, sections: int, name: str) -> Any:
    # torch: hsplit/vsplit/dsplit(int) in TensorShape.cpp: the size must divide evenly.
    dim = _directional_dim(self, name)
    size = self._size[dim]
    if sections == 0 or size % sections != 0:
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the "
            f"dimension {size} is not divisible by the split_size {sections}!"
        )
    return aten.tensor_split.sections(self, sections, dim)


def _directional_indices(self: TensorImpl, indices: list[int], name: str) -> Any:
    return aten.tensor_split.indices(self, indices, _directional_dim(self, name))


hsplit_int = defop("hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]")


@hsplit_int.decomposition
def hsplit_int_decomposition(self: TensorImpl, sections: int) -> Any:
    """Equal column-wise pieces. Torch: hsplit (tensor_split along 1, or 0 for 1-d)."""
    return _directional_sections(self, sections, "hsplit")


hsplit_array = defop("hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")


@hsplit_array.decomposition
def hsplit_array_decomposition(self: TensorImpl, indices: list[int]) -> Any:
    """Column-wise pieces at `indices`. Torch: hsplit(IntArrayRef)."""
    return _directional_indices(self, indices, "hsplit")


vsplit_int = defop("vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]")


@vsplit_int.decomposition
def vsplit_int_decomposition(self: TensorImpl, sections: int) -> Any:
    """Equal row-wise pieces. Torch: vsplit (tensor_split along 0)."""
    return _directional_sections(self, sections, "vsplit")


vsplit_array = defop("vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")


@vsplit_array.decomposition
def vsplit_array_decomposition(self: TensorImpl, indices: list[int]) -> Any:
    """Row-wise pieces at `indices`. Torch: vsplit(IntArrayRef)."""
    return _directional_indices(self, indices, "vsplit")


dsplit_int = defop("dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]")


@dsplit_int.decomposition
def dsplit_int_decomposition(self: TensorImpl, sections: int) -> Any:
    """Equal depth-wise pieces. Torch: dsplit (tensor_split along 2)."""
    return _directional_sections(self, sections, "dsplit")


dsplit_array = defop("dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")


@dsplit_array.decomposition
def dsplit_array_decomposition(self: TensorImpl, indices: list[int]) -> Any:
    """Depth-wise pieces at `indices`. Torch: dsplit(IntArrayRef)."""
    return _directional_indices(self, indices, "dsplit")


split_sizes = defop(
    "split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]"
)


@split_sizes.decomposition
def split_sizes_decomposition(self: TensorImpl, split_size: list[int], dim: int) -> Any:
    """Torch: split.sizes in TensorShape.cpp (split_with_sizes)."""
    return aten.split_with_sizes.default(self, split_size, dim)


# --- unsafe_split, unsafe_split_with_sizes, unsafe_chunk ---------------------------------


def _unsafe(pieces: list[Any]) -> list[Any]:
    # torch: unsafe_split gives split's pieces a fresh version counter each; they share
    # the input's memory, but autograd does not see them as views (no `_base`).
    return [
        make_tensor(
            p._storage,
            p._size,
            p._stride,
            p._storage_offset,
            p._dtype,
            version_counter=VersionCounter(),
            cls=type(p),
        )
        for p in pieces
    ]


def _copy_pieces(pieces: list[Any], out: list[TensorImpl]) -> None:
    # torch: the generated out= form of a CompositeExplicitAutograd op returning Tensor[]:
    # each result copied into its `out` (resized).
    if len(out) != len(pieces):
        raise RuntimeError(f"Expected {len(pieces)} out tensors, but got {len(out)}")
    for piece, target in zip(pieces, out, strict=True):
        same_as_out(piece, target)


unsafe_split = defop("unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]")


@unsafe_split.kernel(CEA)
def unsafe_split_kernel(self: TensorImpl, split_size: int, dim: int) -> Any:
    """split's pieces, not tracked as views. Torch: unsafe_split in TensorShape.cpp."""
    return _unsafe(aten.split.Tensor(self, split_size, dim))


@unsafe_split.derivative("self")
def unsafe_split_backward(
    grads: tuple[Tensor | None, ...], split_size: int, dim: int, self_sym_sizes: list[int]
) -> Tensor:
    # torch: split_backward(grads, split_size, dim, self.sym_sizes(), self.options())
    return split_backward(grads, split_size, dim, self_sym_sizes)


unsafe_split_out = defop(
    "unsafe_split.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()"
)


@unsafe_split_out.kernel(CEA)
def unsafe_split_out_kernel(
    self: TensorImpl, split_size: int, dim: int, *, out: list[TensorImpl]
) -> None:
    """Torch: the generated unsafe_split.Tensor_out."""
    _copy_pieces(aten.split.Tensor(self, split_size, dim), out)


unsafe_split_with_sizes = defop(
    "unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]"
)


@unsafe_split_with_sizes.kernel(CEA)
def unsafe_split_with_sizes_kernel(self: TensorImpl, split_sizes: list[int], dim: int) -> Any:
    """split_with_sizes' pieces, not tracked as views. Torch: unsafe_split_with_sizes."""
    return _unsafe(aten.split_with_sizes.default(self, split_sizes, dim))


@unsafe_split_with_sizes.derivative("self")
def unsafe_split_with_sizes_backward(
    grads: tuple[Tensor | None, ...], split_sizes: list[int], dim: int, self_sym_sizes: list[int]
) -> Tensor:
    # torch: split_with_sizes_backward(grads, split_sizes, dim, self.sym_sizes(), self.options())
    return split_with_sizes_backward(grads, split_sizes, dim, self_sym_sizes)


unsafe_split_with_sizes_out = defop(
    "unsafe_split_with_sizes.out(Tensor self, SymInt[] split_sizes, int dim=0, *, "
    "Tensor(a!)[] out) -> ()"
)


@unsafe_split_with_sizes_out.kernel(CEA)
def unsafe_split_with_sizes_out_kernel(
    self: TensorImpl, split_sizes: list[int], dim: int, *, out: list[TensorImpl]
) -> None:
    """Torch: the generated unsafe_split_with_sizes.out."""
    _copy_pieces(aten.split_with_sizes.default(self, split_sizes, dim), out)


unsafe_chunk = defop("unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]")


@unsafe_chunk.decomposition
def unsafe_chunk_decomposition(self: TensorImpl, chunks: int, dim: int) -> Any:
    """chunk's pieces through unsafe_split. Torch: unsafe_chunk in TensorShape.cpp."""
    if not self._size:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._size[geometry.wrap_dim(dim, len(self._size))]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        return aten.unsafe_split_with_sizes.default(self, [0] * chunks, dim)
    return aten.unsafe_split.Tensor(self, split_size, dim)
