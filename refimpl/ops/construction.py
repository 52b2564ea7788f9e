"""Tensors built from the structure of others: tril, triu, tril_indices, triu_indices, diag, diag_embed, diagflat, block_diag, meshgrid, cartesian_prod, combinations.

Torch: tril/triu in aten/src/ATen/native/TriangularOps.cpp (structured: CPU, CUDA and Meta
kernels), tril_indices/triu_indices in TensorFactories.cpp, diag, diag_embed, diagflat,
block_diag, meshgrid, cartesian_prod and combinations in TensorShape.cpp and Itertools.cpp.
Each kernel runs its checks and computes its output's geometry for every tensor (meta ones
included) and touches data only when there is some. The `*_copy` forms of the view ops and
the scatter-backs of views live in `ops/view_copy.py`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.device import device
from refimpl._base.dtypes import ALL_DTYPES, DType, bool_, int32, int64
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, can_cast, get_default_dtype, result_type_of
from refimpl.core import strides as geometry
from refimpl.core.backend import Backend
from refimpl.core.config import config
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    empty_tensor,
    tensor_over,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_products import block_diag_backward
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import check_out_dtype
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.view import legacy_type_name

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
CEANF: Final = DispatchKey.CompositeExplicitAutogradNonFunctional
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
_CPU: Final = device("cpu")


def _register_structured(block: OpBlock, kernel: Any) -> None:
    """Register `kernel` where torch registers a structured kernel: CPU, CUDA and Meta, and
    CompositeExplicitAutogradNonFunctional where torchgen adds it (functional and in-place).

    Differs: torch has one kernel per backend; one body serves them all here.
    """
    for key in _BACKEND_KEYS:
        block.kernel(key)(kernel)
    if block.spec.ceanf:
        block.kernel(CEANF)(kernel)


def _format(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _zeros(size: Sequence[int], dtype: DType, like: TensorImpl) -> Any:
    """A contiguous tensor of zeros (empty_tensor zero-fills) on `like`'s device and backend.

    Torch: at::zeros(size, like.options().dtype(dtype)); a tensor made from another keeps its
    backend here.
    """
    return empty_tensor(size, dtype, like._storage.device, like._storage.backend)


def copy_to_out(result: TensorImpl, out: TensorImpl) -> Any:
    """`result` written into `out`: the out= form torchgen writes for a CompositeExplicit
    Autograd functional op (resize_out_helper, then copy_arg's dtype check, then copy_).

    Differs: torch resizes `out` before it checks its dtype, so a failing call has already
    changed `out`'s shape; refimpl checks first (every check before any write).
    """
    check_out_dtype(out, result._dtype)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


# --- tril, triu ---------------------------------------------------------------------------


def _triangle(
    self: TensorImpl, diagonal: int, out: TensorImpl | None, lower: bool, name: str
) -> Any:
    """The lower (tril) or upper (triu) triangle of the last two dims, the rest zeroed.

    Torch: TORCH_META_FUNC(tril) / TORCH_META_FUNC(triu) and apply_triu_tril in
    TriangularOps.cpp: tril keeps the elements with col - row <= diagonal, triu those with
    col - row >= diagonal. The result is contiguous (set_output with no strides); an `out` of
    the right shape keeps its strides.
    """
    if len(self._size) < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    if out is not None:
        # torch: set_output_raw_strided's resize_out checks the dtype, then resizes.
        check_out_dtype(out, self._dtype)
        resize_output(out, self._size)
    backend = self._storage.backend
    if backend is None or (out is not None and out._storage.backend is None):
        if out is not None:
            return out
        size = self._size
        return tensor_over(
            None, size, geometry.contiguous_strides(size), self._dtype, self._storage.device, None
        )
    xp = backend.xp
    values = array_of(self)
    rows, cols = self._size[-2:]
    # Column j of row i is kept when j - i <= diagonal (tril) or >= diagonal (triu); the
    # comparison broadcasts a column of bounds against a row of indices into the bool mask.
    # A diagonal beyond either corner keeps all or nothing: clamped, it stays an int64.
    diagonal = min(max(diagonal, -rows), cols)
    col_index = xp.arange(cols, dtype=xp.int64)[None, :]
    bound = xp.arange(rows, dtype=xp.int64)[:, None] + diagonal
    keep = col_index <= bound if lower else col_index >= bound
    zero = xp.zeros((), dtype=values.dtype)
    result = xp.where(keep, values, zero)
    if out is None:
        size = self._size
        return tensor_over(
            result,
            size,
            geometry.contiguous_strides(size),
            self._dtype,
            self._storage.device,
            backend,
        )
    write_array(out, result)
    return out


tril = defop("tril(Tensor self, SymInt diagonal=0) -> Tensor")


def tril_kernel(self: TensorImpl, diagonal: int) -> Any:
    """The lower triangle (col - row <= diagonal) of each matrix. Torch: tril."""
    return _triangle(self, diagonal, None, True, "tril")


_register_structured(tril, tril_kernel)

tril_ = defop("tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)")


def tril__kernel(self: TensorImpl, diagonal: int) -> Any:
    """tril in place. Torch: tril_ (the structured in-place form of tril)."""
    return _triangle(self, diagonal, self, True, "tril")


_register_structured(tril_, tril__kernel)


@tril.derivative("self")
def tril_backward(grad: Tensor, diagonal: int) -> Tensor:
    # torch: grad.tril_symint(diagonal)
    return aten.tril.default(grad, diagonal)


tril_out = defop("tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)")


def tril_out_kernel(self: TensorImpl, diagonal: int, *, out: TensorImpl) -> Any:
    """tril into `out`. Torch: tril.out (structured)."""
    return _triangle(self, diagonal, out, True, "tril")


_register_structured(tril_out, tril_out_kernel)

triu = defop("triu(Tensor self, SymInt diagonal=0) -> Tensor")


def triu_kernel(self: TensorImpl, diagonal: int) -> Any:
    """The upper triangle (col - row >= diagonal) of each matrix. Torch: triu."""
    return _triangle(self, diagonal, None, False, "triu")


_register_structured(triu, triu_kernel)

triu_ = defop("triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)")


def triu__kernel(self: TensorImpl, diagonal: int) -> Any:
    """triu in place. Torch: triu_ (the structured in-place form of triu)."""
    return _triangle(self, diagonal, self, False, "triu")


_register_structured(triu_, triu__kernel)


@triu.derivative("self")
def triu_backward(grad: Tensor, diagonal: int) -> Tensor:
    # torch: grad.triu_symint(diagonal)
    return aten.triu.default(grad, diagonal)


triu_out = defop("triu.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)")


def triu_out_kernel(self: TensorImpl, diagonal: int, *, out: TensorImpl) -> Any:
    """triu into `out`. Torch: triu.out (structured)."""
    return _triangle(self, diagonal, out, False, "triu")


_register_structured(triu_out, triu_out_kernel)


# --- tril_indices, triu_indices -----------------------------------------------------------

# torch: AT_DISPATCH_INDEX_TYPES, the dtypes the index factories fill.
_INDEX_DTYPES: Final = (int32, int64)


def _factory_target(dev: device | None) -> tuple[device, Backend | None]:
    target = _CPU if dev is None else dev
    return target, None if target.type == "meta" else config.backends.resolve(target.type)


def _triangle_indices(
    row: int, col: int, offset: int, dtype: DType | int | None, dev: device | None, lower: bool
) -> Any:
    """The (2, N) coordinates of a row x col matrix's lower / upper triangle, row-major.

    Torch: tril_indices_cpu / triu_indices_cpu in TensorFactories.cpp (check_args, then the
    size, then AT_DISPATCH_INDEX_TYPES over the result's dtype).
    """
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    name = "tril_indices" if lower else "triu_indices"
    if isinstance(dtype, int):
        # The schema's default (`ScalarType? dtype=4`) arrives as the enum's int: int64.
        dtype = ALL_DTYPES[dtype]
    dtype = get_default_dtype() if dtype is None else dtype
    # Per row i, the kept columns j are j <= i + offset (tril) or j >= i + offset (triu).
    count = 0
    for i in range(row):
        bound = min(max(i + offset + 1 if lower else i + offset, 0), col)
        count += bound if lower else col - bound
    target, backend = _factory_target(dev)
    size = (2, count)
    if backend is None:
        if dtype not in _INDEX_DTYPES:
            raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.scalar_name}'")
        return tensor_over(None, size, geometry.contiguous_strides(size), dtype, target, None)
    if dtype not in _INDEX_DTYPES:
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.scalar_name}'")
    xp = backend.xp
    # Clamped past either corner (all or nothing kept), the offset stays an int64.
    offset = min(max(offset, -row), col)
    col_index = xp.arange(col, dtype=xp.int64)[None, :]
    bound = xp.arange(row, dtype=xp.int64)[:, None] + offset
    keep = col_index <= bound if lower else col_index >= bound
    rows, cols = xp.nonzero(keep)
    values = xp.astype(xp.stack((rows, cols)), backend_dtype(backend, dtype))
    values = xp.reshape(values, size)
    return tensor_over(values, size, geometry.contiguous_strides(size), dtype, target, backend)


tril_indices = defop(
    "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


# Differs: torch registers CPU and CUDA kernels reached through BackendSelect; refimpl's
# CompositeExplicitAutograd kernel fills the Undefined slot and picks the backend itself.
@tril_indices.kernel(CEA)
def tril_indices_kernel(
    row: int,
    col: int,
    offset: int,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """The coordinates of the lower triangle (col - row <= offset). Torch: tril_indices."""
    return _triangle_indices(row, col, offset, dtype, device, True)


tril_indices_out = defop(
    "tril_indices.out(int row, int col, int offset=0, *, Tensor(a!) out) -> Tensor(a!)"
)


@tril_indices_out.kernel(CEA)
def tril_indices_out_kernel(row: int, col: int, offset: int, *, out: TensorImpl) -> Any:
    """tril_indices into `out`. Torch: the generated out= form (tril_indices, then copy)."""
    result = _triangle_indices(row, col, offset, out._dtype, out._storage.device, True)
    return copy_to_out(result, out)


triu_indices = defop(
    "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


# Differs: as tril_indices (BackendSelect + CPU/CUDA in torch).
@triu_indices.kernel(CEA)
def triu_indices_kernel(
    row: int,
    col: int,
    offset: int,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """The coordinates of the upper triangle (col - row >= offset). Torch: triu_indices."""
    return _triangle_indices(row, col, offset, dtype, device, False)


triu_indices_out = defop(
    "triu_indices.out(int row, int col, int offset=0, *, Tensor(a!) out) -> Tensor(a!)"
)


@triu_indices_out.kernel(CEA)
def triu_indices_out_kernel(row: int, col: int, offset: int, *, out: TensorImpl) -> Any:
    """triu_indices into `out`. Torch: the generated out= form (triu_indices, then copy)."""
    result = _triangle_indices(row, col, offset, out._dtype, out._storage.device, False)
    return copy_to_out(result, out)


# --- diag_embed, diag, diagflat -----------------------------------------------------------

diag_embed = defop("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor")


@diag_embed.kernel(CEANF)
def diag_embed_kernel(self: TensorImpl, offset: int, dim1: int, dim2: int) -> Any:
    """Matrices (in dims dim1, dim2 of the result) whose `offset` diagonal is the last dim of
    `self`. Torch: diag_embed in TensorShape.cpp (zeros, then diagonal(...).copy_(self))."""
    ndim = len(self._size) + 1
    d1 = geometry.wrap_dim(dim1, ndim)
    d2 = geometry.wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    length = abs(offset) + self._size[-1]
    size = list(self._size[:-1])
    size.insert(min(d1, d2), length)
    size.insert(max(d1, d2), length)
    result = _zeros(size, self._dtype, self)
    aten.copy_.default(aten.diagonal.default(result, offset, d1, d2), self)
    return result


@diag_embed.derivative("self")
def diag_embed_backward(grad: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    # torch: grad.diagonal(offset, dim1, dim2)
    return aten.diagonal.default(grad, offset, dim1, dim2)


diag_embed_out = defop(
    "diag_embed.out(Tensor self, int offset=0, int dim1=-2, int dim2=-1, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@diag_embed_out.kernel(CEA)
def diag_embed_out_kernel(
    self: TensorImpl, offset: int, dim1: int, dim2: int, *, out: TensorImpl
) -> Any:
    """diag_embed into `out`. Torch: the generated out= form (diag_embed, then copy)."""
    return copy_to_out(aten.diag_embed.default(self, offset, dim1, dim2), out)


diag = defop("diag(Tensor self, int diagonal=0) -> Tensor")


@diag.decomposition
def diag_decomposition(self: TensorImpl, diagonal: int) -> Any:
    """A 1-D tensor as the `diagonal` diagonal of a square matrix, or a matrix's diagonal as a
    new 1-D tensor. Torch: diag in TensorShape.cpp (diag_embed or diagonal_copy)."""
    ndim = len(self._size)
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        return aten.diag_embed.default(self, diagonal)
    return aten.diagonal_copy.default(self, diagonal)


diag_out = defop("diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)")


@diag_out.decomposition
def diag_out_decomposition(self: TensorImpl, diagonal: int, *, out: TensorImpl) -> Any:
    """diag into `out`. Torch: diag_out in TensorShape.cpp (diag_embed_out, diagonal_copy_out)."""
    ndim = len(self._size)
    if ndim not in (1, 2):
        raise RuntimeError(f"Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        if not can_cast(self._dtype, out._dtype):
            raise RuntimeError(
                f"diag: result type {self._dtype.scalar_name} can't be cast to the desired out= "
                f"type {out._dtype.scalar_name}"
            )
        return aten.diag_embed.out(self, diagonal, out=out)
    return aten.diagonal_copy.out(self, diagonal, out=out)


diagflat = defop("diagflat(Tensor self, int offset=0) -> Tensor")


@diagflat.decomposition
def diagflat_decomposition(self: TensorImpl, offset: int) -> Any:
    """The flattened input as the `offset` diagonal of a square matrix.

    Torch: diagflat in TensorShape.cpp: self.contiguous().view(-1).diag(offset).
    """
    flat = aten.view.default(aten.contiguous.default(self), [-1])
    return aten.diag.default(flat, offset)


# --- block_diag ---------------------------------------------------------------------------

block_diag = defop("block_diag(Tensor[] tensors) -> Tensor")


@block_diag.kernel(CEA)
def block_diag_kernel(tensors: list[TensorImpl]) -> Any:
    """The inputs placed along the diagonal of a zero matrix, in their promoted dtype; 0-d
    inputs are 1 x 1 blocks, 1-d inputs 1 x n rows. Torch: block_diag in TensorShape.cpp."""
    if not tensors:
        target, backend = _factory_target(None)
        return empty_tensor((1, 0), get_default_dtype(), target, backend)
    first = tensors[0]._storage.device
    for i, t in enumerate(tensors):
        if t._storage.device != first:
            raise RuntimeError(
                f"Input tensors must all be on the same device. Input 0 is on device {first} "
                f"and input {i} is on device {t._storage.device}."
            )
    dtype = result_type_of(
        (t._dtype, OperandKind.DIMENSIONED if t._size else OperandKind.ZERO_DIM) for t in tensors
    )
    blocks = []
    rows = cols = 0
    for i, t in enumerate(tensors):
        ndim = len(t._size)
        if ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {ndim} dimensions"
            )
        # torch: a 1-d input is one row (its length is dim 1); a 0-d one is 1 x 1.
        shape = t._size if ndim == 2 else (1, t._size[0] if ndim == 1 else 1)
        blocks.append(t if ndim == 2 else aten.expand.default(t, list(shape)))
        rows += shape[0]
        cols += shape[1]
    result = _zeros((rows, cols), dtype, tensors[0])
    row = col = 0
    for block in blocks:
        n, m = block._size
        window = aten.slice.Tensor(
            aten.slice.Tensor(result, 0, row, row + n, 1), 1, col, col + m, 1
        )
        aten.copy_.default(window, block)
        row += n
        col += m
    return result


@block_diag.derivative("tensors")
def block_diag_derivative(
    grad: Tensor, tensors_args_sizes: list[list[int]], tensors_args_scalartypes: list[DType]
) -> list[Tensor]:
    # torch: block_diag_backward(grad, to_args_sizes(tensors), to_args_scalartypes(tensors))
    return block_diag_backward(grad, tensors_args_sizes, tensors_args_scalartypes)


block_diag_out = defop("block_diag.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@block_diag_out.kernel(CEA)
def block_diag_out_kernel(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """block_diag into `out`. Torch: the generated out= form (block_diag, then copy)."""
    return copy_to_out(aten.block_diag.default(tensors), out)


# --- meshgrid, cartesian_prod, combinations -----------------------------------------------

meshgrid = defop("meshgrid(Tensor[] tensors) -> Tensor[]")


@meshgrid.decomposition
def meshgrid_decomposition(tensors: list[TensorImpl]) -> Any:
    """meshgrid with "ij" indexing, after torch's one-time warning that `indexing` will be
    required. Torch: meshgrid in TensorShape.cpp (TORCH_WARN_ONCE, then meshgrid(tensors,
    "ij"))."""
    if should_warn_once("meshgrid"):  # torch: TORCH_WARN_ONCE
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=4,
        )
    return aten.meshgrid.indexing(tensors, indexing="ij")


meshgrid_indexing = defop("meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]")


@meshgrid_indexing.decomposition
def meshgrid_indexing_decomposition(tensors: list[TensorImpl], *, indexing: str) -> Any:
    """Coordinate grids: input i viewed along dim i and expanded to every input's length.
    "xy" swaps the first two dims (Cartesian order). Torch: meshgrid in TensorShape.cpp."""
    count = len(tensors)
    if count == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in itertools.pairwise(tensors):
        if a._dtype is not b._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a._storage.device != b._storage.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    ordered = list(tensors)
    swap = False
    if indexing == "xy":
        swap = count >= 2
        if swap:
            ordered[0], ordered[1] = ordered[1], ordered[0]
    elif indexing != "ij":
        raise RuntimeError(
            'torch.meshgrid: indexing must be one of "xy" or "ij", but received: ' + indexing
        )
    for t in ordered:
        if len(t._size) > 1:
            # Differs: torch prints the tensor with C++'s operator<< here; refimpl names
            # its type and sizes only.
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"[ {legacy_type_name(t._dtype)}{{{','.join(str(n) for n in t._size)}}} ]"
            )
    # torch: a 0-d input counts as one element.
    shape = [t.numel() for t in ordered]
    grids = []
    for i, t in enumerate(ordered):
        view_shape = [1] * count
        view_shape[i] = -1
        grids.append(aten.expand.default(aten.view.default(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


cartesian_prod = defop("cartesian_prod(Tensor[] tensors) -> Tensor")


@cartesian_prod.decomposition
def cartesian_prod_decomposition(tensors: list[TensorImpl]) -> Any:
    """Every combination of one element per input, as rows. Torch: cartesian_prod in
    Itertools.cpp: meshgrid "ij", each grid flattened, stacked along dim 1."""
    for t in tensors:
        if len(t._size) != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {_format(t._size)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = aten.meshgrid.indexing(tensors, indexing="ij")
    return aten.stack.default([aten.flatten.using_ints(g, 0, -1) for g in grids], 1)


combinations = defop("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor")


@combinations.decomposition
def combinations_decomposition(self: TensorImpl, r: int, with_replacement: bool) -> Any:
    """The length-r combinations of a 1-D tensor's elements, as rows, in lexicographic order
    of their indices. Torch: combinations in Itertools.cpp: meshgrid of r copies, masked by
    i < j < ... (i <= j <= ... with replacement), each grid masked_select-ed, stacked."""
    if len(self._size) != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_format(self._size)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _zeros((0,), self._dtype, self)
    grids = aten.meshgrid.indexing([self] * r, indexing="ij")
    mask = _triu_mask(self._size[0], r, with_replacement, self)
    return aten.stack.default([aten.masked_select.default(g, mask) for g in grids], 1)


def _triu_mask(n: int, dims: int, diagonal: bool, like: TensorImpl) -> Any:
    """The dims-dim bool mask of the index tuples with i < j < ... (i <= j <= ... when
    `diagonal`): the pairwise mask of each two neighbouring dims, broadcast and and-ed.

    Torch: _triu_mask in Itertools.cpp. Differs: torch compares meshgrid grids of
    arange(n); refimpl takes the pairwise mask from triu of a ones matrix (arange is not an
    aten op in refimpl yet), which gives the same mask; the and-ing is torch's `mask *=`.
    """
    dev = like._storage.device
    pair = aten.triu.default(
        aten.full.default([n, n], True, dtype=bool_, device=dev), 0 if diagonal else 1
    )
    mask = aten.full.default([n] * dims, True, dtype=bool_, device=dev)
    for d in range(dims - 1):
        shape = [1] * dims
        shape[d] = shape[d + 1] = n
        aten.mul_.Tensor(mask, aten.view.default(pair, shape))
    return mask
