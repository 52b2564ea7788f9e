"""Advanced indexing and masks: index.Tensor, index_put_, _index_put_impl_, masked_select, masked_scatter, nonzero, nonzero_static, argwhere.

Torch: index, index_put_, _index_put_impl_, masked_select, masked_scatter_, nonzero,
nonzero_static and argwhere in aten/src/ATen/native/TensorAdvancedIndexing.cpp, over make_info
and AdvancedIndex (TensorAdvancedIndexingUtils.h, IndexingUtils.h: checkIndexTensorTypes,
expandTensors, transposeToFront, restride_src, reshape_indexer) and the CPU kernels of
native/cpu/IndexKernel.cpp. Every check runs on metadata first, in torch's order, so a failing
call leaves its inputs unchanged and one body serves CPU, CUDA and Meta; the data part runs only
when the tensors hold data. See Note [Advanced indices as positions].
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.dtypes import bool_, int64, uint8
from refimpl._base.keys import DispatchKey
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, array_of, tensor_over, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._advanced_index import (
    MASK_DTYPES,
    Indices,
    advanced_index,
    check_no_overlap,
    check_overlaps,
    expandable,
    index_arrays,
    make_info,
    put,
    resize_output,
    self_position,
    shape_text,
)
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_index import (
    index_backward,
    masked_scatter_backward_composite,
    masked_select_backward,
)
from refimpl.ops._register import OpBlock, defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
CEANF: Final = DispatchKey.CompositeExplicitAutogradNonFunctional
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
# torch: c10::MemoryFormat::Contiguous, the value a `MemoryFormat` argument carries.
_CONTIGUOUS: Final = 0


def _register(block: OpBlock, fn: Any, keys: tuple[DispatchKey, ...] = _BACKEND_KEYS) -> None:
    # torch registers these ops per backend (CPU, CUDA, Meta); one body serves them all.
    for key in keys:
        block.kernel(key)(fn)


# --- index.Tensor ---------------------------------------------------------------------------

index_tensor = defop("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")


def index_tensor_kernel(self: TensorImpl, indices: Indices) -> Any:
    """`self[indices]` with tensor indices. Torch: index (structured, TensorAdvancedIndexing.cpp)."""
    return advanced_index(self, indices)


_register(index_tensor, index_tensor_kernel, (*_BACKEND_KEYS, CEANF))


@index_tensor.derivative("self")
def index_backward_self(grad: Tensor, self_sym_sizes: list[int], indices: Indices) -> Tensor:
    # torch: index_backward(grad.new_zeros_symint(self.sym_sizes(), self.options()), indices,
    # grad)
    return index_backward(aten.new_zeros.default(grad, list(self_sym_sizes)), indices, grad)


index_tensor_out = defop(
    "index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)"
)


def index_tensor_out_kernel(self: TensorImpl, indices: Indices, *, out: TensorImpl) -> Any:
    """Torch: index_out: the result written into `out`, resized if needed."""
    if out._dtype is not self._dtype:
        raise RuntimeError(
            f"index_out: self ({self._dtype.scalar_name}) and result "
            f"({out._dtype.scalar_name}) must have the same scalar type"
        )
    check_overlaps(out, self, *indices)
    result = advanced_index(self, indices)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


_register(index_tensor_out, index_tensor_out_kernel)


# --- index_put_, _index_put_impl_ -----------------------------------------------------------


def _masked_fill_mask(self: TensorImpl, indices: Indices, values: TensorImpl) -> Any:
    """The mask when index_put_ is a masked_fill_: one mask, a one-element value on the CPU.

    Torch: canDispatchToMaskedFill in TensorAdvancedIndexing.cpp (the mask unsqueezed at the
    end to `self`'s rank).
    """
    if geometry.numel(values._size) != 1 or values._storage.device.type != "cpu":
        return None
    count = 0
    mask = None
    dev = self._storage.device
    for index in indices:
        if index is None:
            count += 1
            continue
        if index._dtype not in MASK_DTYPES or index._storage.device != dev or mask is not None:
            return None
        mask = index
        for j, n in enumerate(index._size):
            size = self.size(count + j)
            if n != size:
                raise IndexError(
                    f"The shape of the mask {shape_text(index._size)} at index {j} does not "
                    f"match the shape of the indexed tensor {shape_text(self._size)} at "
                    f"index {count + j}"
                )
        count += len(index._size)
    if mask is None:
        return None
    for _ in range(count, len(self._size)):
        mask = aten.unsqueeze.default(mask, -1)
    return mask


def index_put_impl_(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool
) -> TensorImpl:
    """Write `values` (broadcast) at the advanced indices, or add them with `accumulate`.

    Torch: _index_put_impl_ in TensorAdvancedIndexing.cpp (make_index_put_iterator, then
    index_put_stub: cpu_index_kernel with serial accumulation).
    """
    ndim = len(self._size)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    if layout.has_internal_overlap(self._size, self._stride):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor",
            UserWarning,
            stacklevel=5,
        )
    if not accumulate:
        mask = _masked_fill_mask(self, indices, values)
        if mask is not None:
            return aten.masked_fill_.Scalar(self, mask, TensorImpl.item(values))  # type: ignore[no-any-return]
    if self.is_meta and any(i is not None and i._dtype in MASK_DTYPES for i in indices):
        # torch: index_put_'s Meta kernel returns self unchecked; a mask's count is data, so
        # the checks below could not run without it.
        return self
    check_no_overlap(self, values, *indices)
    info = make_info(self, indices)
    if not expandable(values._size, info.shape):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {shape_text(values._size)} cannot be "
            f"broadcast to indexing result of shape {shape_text(info.shape)}"
        )
    if values._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{self._dtype.scalar_name} for the destination and {values._dtype.scalar_name} "
            "for the source."
        )
    backend = self._storage.backend
    if backend is not None and values._storage.backend is not None:
        xp = backend.xp
        sizes = tuple(self._size[d] for d in info.dims)
        # Differs: torch's CPU loop writes the elements before a bad index and then raises;
        # refimpl checks every index first, so a failing call leaves `self` unchanged.
        arrays = index_arrays(backend, info, sizes)
        position = xp.reshape(self_position(xp, self._size, info, arrays), (-1,))
        source = array_of(values)
        if values._storage.backend is not backend:
            source = data.transfer(source, values._storage.backend, backend)
        source = xp.reshape(xp.broadcast_to(source, info.shape), (-1,))
        flat = xp.reshape(array_of(self), (-1,))
        written = put(xp, flat, position, source, accumulate=accumulate)
        write_array(self, xp.reshape(written, self._size))
    return self


_index_put_impl__block = defop(
    "_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, "
    "bool unsafe=False) -> Tensor(a!)"
)


def _index_put_impl__kernel(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool, unsafe: bool
) -> Any:
    """Torch: _index_put_impl_ (CPU, CUDA, Meta)."""
    return index_put_impl_(self, list(indices), values, accumulate)


_register(_index_put_impl__block, _index_put_impl__kernel)


@_index_put_impl__block.derivative("self")
def index_put_backward_self(
    grad: Tensor, indices: Indices, values_sym_sizes: list[int], accumulate: bool
) -> Tensor:
    # torch: accumulate ? grad : grad.index_put(indices, zeros_like(values), false)
    if accumulate:
        return grad
    zeros = aten.new_zeros.default(grad, list(values_sym_sizes))
    return aten.index_put.default(grad, list(indices), zeros, False)


@_index_put_impl__block.derivative("values")
def index_put_backward_values(grad: Tensor, indices: Indices) -> Tensor:
    # torch: grad.index(indices)
    return aten.index.Tensor(grad, list(indices))


_index_put_impl_block = defop(
    "_index_put_impl(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, "
    "bool unsafe=False) -> Tensor"
)


@_index_put_impl_block.kernel(CEA)
def _index_put_impl_kernel(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool, unsafe: bool
) -> Any:
    """Torch: the functional form generated for _index_put_impl_ (clone, then write)."""
    result = aten.clone.default(self)
    return aten._index_put_impl_.default(result, indices, values, accumulate, unsafe)


_index_put_impl_out = defop(
    "_index_put_impl.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, "
    "bool unsafe=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@_index_put_impl_out.kernel(CEA)
def _index_put_impl_out_kernel(
    self: TensorImpl,
    indices: Indices,
    values: TensorImpl,
    accumulate: bool,
    unsafe: bool,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the out= form generated for _index_put_impl_ (resize, then copy)."""
    result = aten._index_put_impl.default(self, indices, values, accumulate, unsafe)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


index_put_ = defop(
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
    "-> Tensor(a!)"
)


@index_put_.kernel(CEA)
def index_put__kernel(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool
) -> Any:
    """Torch: index_put_ in TensorAdvancedIndexing.cpp, over _index_put_impl_."""
    ndim = len(self._size)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    return aten._index_put_impl_.default(self, indices, values, accumulate, False)


index_put = defop(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor"
)


@index_put.kernel(CEA)
def index_put_kernel(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool
) -> Any:
    """A copy of `self` with the values put. Torch: index_put (clone, then index_put_)."""
    result = aten.clone.default(self)
    return aten.index_put_.default(result, indices, values, accumulate)


index_put.derivative("self")(index_put_backward_self)
index_put.derivative("values")(index_put_backward_values)


index_put_out = defop(
    "index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@index_put_out.kernel(CEA)
def index_put_out_kernel(
    self: TensorImpl, indices: Indices, values: TensorImpl, accumulate: bool, *, out: TensorImpl
) -> Any:
    """Torch: the out= form generated for index_put (resize, then copy)."""
    result = aten.index_put.default(self, indices, values, accumulate)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


# --- masked_select ------------------------------------------------------------------------


def _check_bool_mask(mask: TensorImpl, name: str) -> None:
    if mask._dtype is not bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


def masked_select(self: TensorImpl, mask: TensorImpl) -> Any:
    """The elements of `self` where `mask` (both broadcast) is True, as a 1-D tensor.

    Torch: masked_select_out_impl_cpu in TensorAdvancedIndexing.cpp: expand_outplace, then
    index with the mask.
    """
    _check_bool_mask(mask, "masked_select")
    shape = data.broadcast_shapes(mask._size, self._size)
    if self._storage.backend is None or mask._storage.backend is None:
        # torch: masked_select has no Meta kernel (its size depends on the data).
        raise NotImplementedError(
            "aten::masked_select: attempted to run this operator with Meta tensors, but there "
            "was no fake impl or Meta kernel registered. You may have run into this message "
            "while using an operator with PT2 compilation APIs (torch.compile/torch.export); "
            "in order to use this operator with those APIs you'll need to add a fake impl. "
            "Please see the following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
        )
    backend = self._storage.backend
    xp = backend.xp
    values = array_of(self)
    chosen = array_of(mask)
    if mask._storage.backend is not backend:
        chosen = data.transfer(chosen, mask._storage.backend, backend)
    if tuple(values.shape) != shape:
        values = xp.broadcast_to(values, shape)
    if tuple(chosen.shape) != shape:
        chosen = xp.broadcast_to(chosen, shape)
    if not shape:
        values, chosen = xp.reshape(values, (1,)), xp.reshape(chosen, (1,))
    result = values[chosen]
    size = (int(result.shape[0]),)
    return tensor_over(result, size, (1,), self._dtype, self._storage.device, backend)


masked_select_block = defop("masked_select(Tensor self, Tensor mask) -> Tensor")


def masked_select_kernel(self: TensorImpl, mask: TensorImpl) -> Any:
    """Torch: masked_select_cpu."""
    return masked_select(self, mask)


_register(masked_select_block, masked_select_kernel)


@masked_select_block.derivative("self")
def masked_select_backward_self(grad: Tensor, self: Tensor, mask: Tensor) -> Tensor:
    # torch: masked_select_backward(grad, self, mask)
    return masked_select_backward(grad, self, mask)


masked_select_out = defop(
    "masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> Tensor(a!)"
)


def masked_select_out_kernel(self: TensorImpl, mask: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: masked_select_out_cpu."""
    _check_bool_mask(mask, "masked_select")
    if out._dtype is not self._dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    check_overlaps(out, self, mask)
    result = masked_select(self, mask)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


_register(masked_select_out, masked_select_out_kernel)


# --- masked_scatter -----------------------------------------------------------------------


def masked_scatter_(self: TensorImpl, mask: TensorImpl, source: TensorImpl) -> TensorImpl:
    """The elements of `source`, in order, written where `mask` (broadcast to `self`) is True.

    Torch: masked_scatter__cpu in TensorAdvancedIndexing.cpp and cpu_masked_scatter_kernel.
    """
    data.check_writable(self)
    if self._dtype is not source._dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{self._dtype.scalar_name} and {source._dtype.scalar_name}"
        )
    if mask._dtype is uint8:
        warnings.warn(
            "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
            "deprecated,please use a mask with dtype torch.bool instead.",
            UserWarning,
            stacklevel=5,
        )
    if mask._dtype is not bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.scalar_name}"
        )
    # torch: expand_inplace(self, mask, "masked_scatter_").
    geometry.expand(mask._geometry(), self._size, f"CPU{mask._dtype.scalar_name}Type")
    count = geometry.numel(self._size)
    backend = self._storage.backend
    if count == 0 or backend is None or mask._storage.backend is None:
        return self
    xp = backend.xp
    chosen = xp.reshape(xp.broadcast_to(array_of(mask), self._size), (-1,))
    ones = int(xp.sum(xp.astype(chosen, xp.int64)))
    source_count = geometry.numel(source._size)
    if source_count < ones:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if ones:
        flat = xp.reshape(array_of(self), (-1,))
        taken = xp.reshape(array_of(source), (-1,))
        # The k-th True takes the k-th source element: its rank among the Trues.
        rank = xp.cumulative_sum(xp.astype(chosen, xp.int64)) - 1
        rank = xp.clip(rank, 0, source_count - 1)
        written = xp.where(chosen, xp.take(taken, rank), flat)
        write_array(self, xp.reshape(written, self._size))
    return self


masked_scatter__block = defop(
    "masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)"
)


def masked_scatter__kernel(self: TensorImpl, mask: TensorImpl, source: TensorImpl) -> Any:
    """Torch: masked_scatter__cpu."""
    return masked_scatter_(self, mask, source)


_register(masked_scatter__block, masked_scatter__kernel)


def masked_scatter_backward_self(grad: Tensor, mask: Tensor) -> Tensor:
    # torch: grad.masked_fill(mask, 0)
    return aten.masked_fill.Scalar(grad, mask, 0)


def masked_scatter_backward_source(
    grad: Tensor, mask: Tensor, source_sym_sizes: list[int]
) -> Tensor:
    # torch: masked_scatter_backward_symint(grad, mask, source.sym_sizes())
    return aten.masked_scatter_backward.default(grad, mask, list(source_sym_sizes))


masked_scatter_block = defop("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor")


@masked_scatter_block.kernel(CEA)
def masked_scatter_kernel(self: TensorImpl, mask: TensorImpl, source: TensorImpl) -> Any:
    """Torch: masked_scatter: expand_outplace(mask, self), a contiguous clone, masked_scatter_."""
    shape = data.broadcast_shapes(mask._size, self._size)
    expanded_mask = mask if mask._size == shape else aten.expand.default(mask, list(shape))
    expanded = self if self._size == shape else aten.expand.default(self, list(shape))
    result = aten.clone.default(expanded, memory_format=_CONTIGUOUS)
    return aten.masked_scatter_.default(result, expanded_mask, source)


masked_scatter_block.derivative("self")(masked_scatter_backward_self)
masked_scatter_block.derivative("source")(masked_scatter_backward_source)

masked_scatter_backward = defop(
    "masked_scatter_backward(Tensor grad_output, Tensor mask, SymInt[] sizes) -> Tensor"
)


@masked_scatter_backward.kernel(CEA)
def masked_scatter_backward_kernel(
    grad_output: TensorImpl, mask: TensorImpl, sizes: list[int]
) -> Any:
    """The elements of grad_output where mask is True, zero-padded and viewed as `sizes`.

    Torch: masked_scatter_backward_symint in TensorAdvancedIndexing.cpp.
    """
    return masked_scatter_backward_composite(grad_output, mask, sizes)


@masked_scatter_backward.derivative("grad_output")
def masked_scatter_backward_backward(
    grad: Tensor, grad_output_sym_sizes: list[int], mask: Tensor
) -> Tensor:
    # torch: zeros_like(grad_output).masked_scatter(mask, grad)
    zeros = aten.new_zeros.default(grad, list(grad_output_sym_sizes))
    return aten.masked_scatter.default(zeros, mask, grad)


masked_scatter_out = defop(
    "masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out) -> Tensor(a!)"
)


@masked_scatter_out.kernel(CEA)
def masked_scatter_out_kernel(
    self: TensorImpl, mask: TensorImpl, source: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: the out= form generated for masked_scatter (resize, then copy)."""
    result = aten.masked_scatter.default(self, mask, source)
    resize_output(out, result._size)
    return aten.copy_.default(out, result)


# --- nonzero, nonzero_static, argwhere ----------------------------------------------------

_NONZERO_META: Final = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True."
)


def _nonzero_columns(self: TensorImpl) -> Array:
    """The coordinates of the nonzero elements as a (ndim, count) int64 array, row-major."""
    backend = self._storage.backend
    assert backend is not None
    xp = backend.xp
    values = array_of(self)
    if not self._size:
        hit = bool(values != xp.zeros((), dtype=values.dtype))
        return xp.zeros((0, 1 if hit else 0), dtype=xp.int64)
    if values.dtype == xp.bool:
        found = xp.nonzero(values)
    else:
        found = xp.nonzero(values != xp.zeros((), dtype=values.dtype))
    return xp.stack([xp.astype(c, xp.int64) for c in found], axis=0)


def _check_long_out(name: str, out: TensorImpl) -> None:
    if out._dtype is not int64:
        raise RuntimeError(
            f"{name}: Expected out tensor to have scalar type Long but got scalar type"
            f"{out._dtype.scalar_name}"
        )


def nonzero(self: TensorImpl, out: TensorImpl | None = None) -> Any:
    """The (count, ndim) coordinates of the nonzero elements, in row-major order.

    Torch: nonzero_out_cpu in TensorAdvancedIndexing.cpp, which fills a (ndim, count) buffer
    and returns its transpose: strides (1, count).
    """
    if out is not None:
        _check_long_out("nonzero", out)
    backend = self._storage.backend
    if backend is None:
        raise NotImplementedError(_NONZERO_META)
    columns = _nonzero_columns(self)
    ndim, count = int(columns.shape[0]), int(columns.shape[1])
    size = (count, ndim)
    stride = (1, count)
    if out is None:
        return tensor_over(columns, size, stride, int64, self._storage.device, backend)
    if out._size != size:
        resize_output(out, size, stride)
    write_array(out, backend.xp.permute_dims(columns, (1, 0)))
    return out


nonzero_block = defop("nonzero(Tensor self) -> Tensor")


def nonzero_kernel(self: TensorImpl) -> Any:
    """Torch: nonzero_cpu."""
    return nonzero(self)


_register(nonzero_block, nonzero_kernel)

nonzero_out = defop("nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


def nonzero_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: nonzero_out_cpu."""
    return nonzero(self, out)


_register(nonzero_out, nonzero_out_kernel)


def nonzero_static(self: TensorImpl, size: int, fill_value: int, out: TensorImpl | None) -> Any:
    """The first `size` coordinates of nonzero elements, rows past the count set to `fill_value`.

    Torch: nonzero_static_out_cpu in TensorAdvancedIndexing.cpp (a contiguous (size, ndim)).
    """
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if out is not None:
        _check_long_out("nonzero_static", out)
    ndim = len(self._size)
    shape = (size, ndim)
    backend = self._storage.backend
    dev = self._storage.device
    if backend is None:
        # torch: the Meta kernel gives the transposed layout nonzero uses.
        stride = (1, max(size, 1))
        if out is None:
            return tensor_over(None, shape, stride, int64, dev, None)
        resize_output(out, shape)
        return out
    xp = backend.xp
    columns = _nonzero_columns(self)
    count = int(columns.shape[1])
    rows = xp.permute_dims(columns, (1, 0))
    if count >= size:
        rows = rows[:size, :]
    else:
        fill = xp.full((size - count, ndim), fill_value, dtype=xp.int64)
        rows = xp.concat((rows, fill), axis=0)
    if out is None:
        return tensor_over(rows, shape, geometry.contiguous_strides(shape), int64, dev, backend)
    resize_output(out, shape)
    write_array(out, rows)
    return out


nonzero_static_block = defop(
    "nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor"
)


def nonzero_static_kernel(self: TensorImpl, *, size: int, fill_value: int) -> Any:
    """Torch: nonzero_static_cpu."""
    return nonzero_static(self, size, fill_value, None)


_register(nonzero_static_block, nonzero_static_kernel)

nonzero_static_out = defop(
    "nonzero_static.out(Tensor self, *, SymInt size, int fill_value=-1, Tensor(a!) out) "
    "-> Tensor(a!)"
)


def nonzero_static_out_kernel(
    self: TensorImpl, *, size: int, fill_value: int, out: TensorImpl
) -> Any:
    """Torch: nonzero_static_out_cpu."""
    return nonzero_static(self, size, fill_value, out)


_register(nonzero_static_out, nonzero_static_out_kernel)

argwhere = defop("argwhere(Tensor self) -> Tensor")


@argwhere.decomposition
def argwhere_decomposition(self: TensorImpl) -> Any:
    """Torch: argwhere in TensorAdvancedIndexing.cpp is `self.nonzero()`."""
    return aten.nonzero.default(self)


nonzero_numpy = defop("nonzero_numpy(Tensor self) -> Tensor[]")


@nonzero_numpy.decomposition
def nonzero_numpy_decomposition(self: TensorImpl) -> Any:
    """One index tensor per dim, what `nonzero(as_tuple=True)` returns.

    Torch: nonzero_numpy in TensorAdvancedIndexing.cpp (a 0-dim input is unsqueezed first,
    as NumPy does).
    """
    if not self._size:
        return aten.unbind.int(aten.nonzero.default(aten.unsqueeze.default(self, 0)), 1)
    return aten.unbind.int(aten.nonzero.default(self), 1)
