"""The aten view ops: tensors that share their input's storage, with new geometry.

Torch: the view kernels of aten/src/ATen/native/TensorShape.cpp. Each real kernel computes the
view's geometry with `core/strides.py` (which raises torch's errors) and builds the view with
`make_view`, which shares storage and version counter and sets `_base` (torch does that in the
ADInplaceOrView kernel of each view op). Kernels read metadata only, so one body serves CPU,
CUDA and Meta tensors: they are registered as CompositeExplicitAutograd. Ops torch makes
CompositeImplicitAutograd (reshape, narrow, chunk, movedim, flatten, contiguous) are
decompositions that call other aten ops through the dispatcher.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.memory_format import as_memory_format, preserve_format
from refimpl.core import strides as geometry
from refimpl.core.storage import VersionCounter, bitcast_unsupported
from refimpl.core.tensor import (
    CONJUGATE_BIT,
    NEGATIVE_BIT,
    TensorImpl,
    is_inference,
    make_tensor,
    make_view,
)
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.table import dispatches_nothing
from refimpl.ops import data
from refimpl.ops._backward import (
    Tensor,
    as_strided_backward,
    diagonal_backward,
    permute_backwards,
    select_backward,
    slice_backward,
    split_backward,
    split_with_sizes_backward,
    sum_to,
    unbind_backward,
    unfold_backward,
    unsqueeze_to,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd

# torch: c10::MemoryFormat::Contiguous, the int a `MemoryFormat` argument carries.
CONTIGUOUS_FORMAT: Final = 0

# torch: the legacy type names errors print (torch.FloatTensor, ...).
_LEGACY_NAMES: Final = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
    "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}


def legacy_type_name(dtype: DType) -> str:
    """The legacy tensor type name errors print for a CPU tensor of `dtype`.

    Torch: toString(DeprecatedTypeProperties) ("torch.FloatTensor"), as in expand's error.
    """
    return f"torch.{_LEGACY_NAMES.get(dtype.name, 'Tensor')}"


# --- view --------------------------------------------------------------------------------

view = defop("view(Tensor(a) self, SymInt[] size) -> Tensor(a)")


# Differs: torch registers view per backend (CPU, CUDA, Meta, ...); one geometry-only body
# serves them all here.
@view.kernel(CEA)
@dispatches_nothing
def view_kernel(self: TensorImpl, size: list[int]) -> Any:
    """A view with another shape; never copies. Torch: view in TensorShape.cpp."""
    return make_view(self, geometry.view(self._geometry(), size))


@view.derivative("self")
def view_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    # torch: grad.reshape_symint(self.sym_sizes())
    return aten.reshape.default(grad, list(self_sym_sizes))


# --- view.dtype ---------------------------------------------------------------------------

view_dtype = defop("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)")


@view_dtype.kernel(CEA)
def view_dtype_kernel(self: TensorImpl, dtype: DType) -> Any:
    """The same bytes read as another dtype; the last dim scales by the element size ratio.

    Torch: view_dtype in aten/src/ATen/native/TensorConversions.cpp, with its checks in its
    order. The result shares the storage and the version counter but is not a view (no
    `_base`): torch marks view.dtype non-differentiable. See Note [Untyped storage] in
    core/storage.py.
    """
    # Under a TorchDispatchMode torch's call shows an aten.detach after view.dtype: the
    # ADInplaceOrView kernel's shallow copy of this non-differentiable view asks the mode
    # (autograd/inplace_or_view.py, view_kernel).
    # torch: a tensor with a math bit is refused, whatever the dtype (Note [Math bits]).
    if self._key_set & CONJUGATE_BIT:
        raise RuntimeError(
            "torch.Tensor.view is not supported for conjugate view tensors when converting to "
            "a different dtype."
        )
    if self._key_set & NEGATIVE_BIT:
        raise RuntimeError(
            "torch.Tensor.view is not supported for tensors with negative bit set when "
            "converting to a different dtype."
        )
    old_size, new_size = self._dtype.itemsize, dtype.itemsize
    size, stride, offset = list(self._size), list(self._stride), self._storage_offset
    if old_size != new_size:
        ndim = len(size)
        names = f"{self._dtype.scalar_name} as {dtype.scalar_name}"
        views = f"to view {names} (different element sizes)"
        if ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {views}")
        last_stride = f"self.stride(-1) must be 1 {views}, but got {stride[-1]}"
        if old_size > new_size:
            if stride[-1] != 1:
                raise RuntimeError(last_stride)
            ratio = old_size // new_size
            stride = [s * ratio for s in stride[:-1]] + [1]
            size[-1] *= ratio
            offset *= ratio
        else:
            ratio = new_size // old_size
            if size[-1] % ratio:
                raise RuntimeError(
                    f"self.size(-1) must be divisible by {ratio} {views}, but got {size[-1]}"
                )
            if offset % ratio:
                raise RuntimeError(
                    f"self.storage_offset() must be divisible by {ratio} {views}, but got {offset}"
                )
            if stride[-1] != 1:
                raise RuntimeError(last_stride)
            for d in range(ndim - 1):
                if stride[d] % ratio:
                    raise RuntimeError(
                        f"self.stride({d}) must be divisible by {ratio} {views}, but got "
                        f"{stride[d]}"
                    )
            stride = [s // ratio for s in stride[:-1]] + [1]
            size[-1] //= ratio
            offset //= ratio
    backend = self._storage.backend
    if dtype is not self._storage.dtype and backend is not None and not backend.supports_bitcast:
        raise bitcast_unsupported(backend, "view.dtype (Tensor.view(dtype))")
    # An alias with its own version counter (an inference tensor's is an inference tensor):
    # the ADInplaceOrView kernel shares the counter (view.dtype is a non-differentiable view:
    # no `_base`), as torch's as_view does.
    alias = make_tensor(self._storage, tuple(size), tuple(stride), offset, dtype, cls=type(self))
    if is_inference(self):
        alias._key_set = self._key_set
        alias._counter = self._counter
    return alias


# --- _unsafe_view ------------------------------------------------------------------------

_unsafe_view = defop("_unsafe_view(Tensor self, SymInt[] size) -> Tensor")


@_unsafe_view.kernel(CEA)
def _unsafe_view_kernel(self: TensorImpl, size: list[int]) -> Any:
    """`view` whose result is not a view (no `_base`, own version counter).

    Torch: _unsafe_view in TensorShape.cpp; reshape uses it on a fresh clone, which nothing
    else sees, so autograd need not track the aliasing.
    """
    g = geometry.view(self._geometry(), size)
    out = make_tensor(
        self._storage,
        g.size,
        g.stride,
        g.offset,
        self._dtype,
        version_counter=VersionCounter(),
        cls=type(self),
    )
    data.keep_math_bits(out, self)
    return out


@_unsafe_view.derivative("self")
def _unsafe_view_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    # torch: grad.reshape_symint(self.sym_sizes())
    return aten.reshape.default(grad, list(self_sym_sizes))


# --- reshape -----------------------------------------------------------------------------

reshape = defop("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)")


@reshape.decomposition
def reshape_decomposition(self: TensorImpl, shape: list[int]) -> Any:
    """`view` when the strides allow it, else a contiguous clone viewed.

    Torch: reshape_symint in TensorShape.cpp (op log of `x.t().reshape(32)`: t, clone with
    memory_format=contiguous_format, _unsafe_view; pytorch-semantics.md §9.3).
    """
    size = geometry.infer_size(shape, geometry.numel(self._size))
    if geometry.view_strides(self._size, self._stride, size) is not None:
        return aten.view.default(self, size)
    copy = aten.clone.default(self, memory_format=CONTIGUOUS_FORMAT)
    return aten._unsafe_view.default(copy, size)


# --- transpose, t, permute ---------------------------------------------------------------

transpose = defop("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")


@transpose.kernel(CEA)
@dispatches_nothing
def transpose_kernel(self: TensorImpl, dim0: int, dim1: int) -> Any:
    """Two dims swapped. Torch: transpose in TensorShape.cpp."""
    return make_view(self, geometry.transpose(self._geometry(), dim0, dim1))


@transpose.derivative("self")
def transpose_backward(grad: Tensor, dim0: int, dim1: int) -> Tensor:
    # torch: grad.transpose(dim0, dim1)
    return aten.transpose.int(grad, dim0, dim1)


t = defop("t(Tensor(a) self) -> Tensor(a)")


@t.kernel(CEA)
@dispatches_nothing
def t_kernel(self: TensorImpl) -> Any:
    """transpose(0, 1) of a tensor with at most 2 dims. Torch: t in TensorShape.cpp."""
    return make_view(self, geometry.t(self._geometry()))


@t.derivative("self")
def t_backward(grad: Tensor) -> Tensor:
    # torch: grad.t()
    return aten.t.default(grad)


permute = defop("permute(Tensor(a) self, int[] dims) -> Tensor(a)")


# Differs: torch registers permute for CompositeExplicitAutograd and MPS; no MPS here.
@permute.kernel(CEA)
@dispatches_nothing
def permute_kernel(self: TensorImpl, dims: list[int]) -> Any:
    """The dims reordered. Torch: permute in TensorShape.cpp."""
    return make_view(self, geometry.permute(self._geometry(), dims))


@permute.derivative("self")
def permute_backward(grad: Tensor, dims: list[int]) -> Tensor:
    # torch: permute_backwards(grad, dims)
    return permute_backwards(grad, dims)


# --- expand ------------------------------------------------------------------------------

expand = defop("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)")


@expand.kernel(CEA)
@dispatches_nothing
def expand_kernel(self: TensorImpl, size: list[int], *, implicit: bool) -> Any:
    """Size-1 dims repeated with stride 0, new leading dims added. Torch: expand."""
    return make_view(self, geometry.expand(self._geometry(), size, legacy_type_name(self._dtype)))


@expand.derivative("self")
def expand_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    # torch: at::sum_to(grad, self.sym_sizes())
    return sum_to(grad, self_sym_sizes)


# --- unsqueeze, squeeze ------------------------------------------------------------------

unsqueeze = defop("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)")


@unsqueeze.kernel(CEA)
@dispatches_nothing
def unsqueeze_kernel(self: TensorImpl, dim: int) -> Any:
    """A size-1 dim inserted at `dim`. Torch: unsqueeze in TensorShape.cpp."""
    return make_view(self, geometry.unsqueeze(self._geometry(), dim))


@unsqueeze.derivative("self")
def unsqueeze_backward(grad: Tensor, dim: int) -> Tensor:
    # torch: grad.squeeze(dim)
    return aten.squeeze.dim(grad, dim)


squeeze = defop("squeeze(Tensor(a) self) -> Tensor(a)")


@squeeze.kernel(CEA)
@dispatches_nothing
def squeeze_kernel(self: TensorImpl) -> Any:
    """Every size-1 dim removed. Torch: squeeze in TensorShape.cpp."""
    return make_view(self, geometry.squeeze(self._geometry(), None))


@squeeze.derivative("self")
def squeeze_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    # torch: unsqueeze_to(grad, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes)


squeeze_dim = defop("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)")


@squeeze_dim.kernel(CEA)
@dispatches_nothing
def squeeze_dim_kernel(self: TensorImpl, dim: int) -> Any:
    """`dim` removed if its size is 1. Torch: squeeze.dim in TensorShape.cpp."""
    return make_view(self, geometry.squeeze(self._geometry(), [dim]))


@squeeze_dim.derivative("self")
def squeeze_dim_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, dim)


squeeze_dims = defop("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)")


@squeeze_dims.kernel(CEA)
@dispatches_nothing
def squeeze_dims_kernel(self: TensorImpl, dim: list[int]) -> Any:
    """The listed dims of size 1 removed. Torch: squeeze.dims in TensorShape.cpp."""
    return make_view(self, geometry.squeeze(self._geometry(), dim))


@squeeze_dims.derivative("self")
def squeeze_dims_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: list[int]) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, dim)


# --- select, slice, narrow ---------------------------------------------------------------

select = defop("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)")


@select.kernel(CEA)
@dispatches_nothing
def select_kernel(self: TensorImpl, dim: int, index: int) -> Any:
    """The slice at `index` of `dim`, that dim removed. Torch: select in TensorShape.cpp."""
    return make_view(self, geometry.select(self._geometry(), dim, index))


@select.derivative("self")
def select_backward_self(
    grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int, index: int
) -> Tensor:
    # torch: select_backward_symint(grad, self.sym_sizes(), dim, index)
    return select_backward(grad, self_sym_sizes, dim, index)


slice_ = defop(
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)"
)


@slice_.kernel(CEA)
@dispatches_nothing
def slice_kernel(self: TensorImpl, dim: int, start: int | None, end: int | None, step: int) -> Any:
    """Every `step`-th index of `dim` in [start, end), clamped. Torch: slice in TensorShape.cpp."""
    return make_view(self, geometry.slice_(self._geometry(), dim, start, end, step))


@slice_.derivative("self")
def slice_backward_self(
    grad: Tensor,
    self_sym_sizes: tuple[int, ...],
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Tensor:
    # torch: slice_backward_wrapper(grad, self.sym_sizes(), dim, start, end, step)
    return slice_backward(grad, self_sym_sizes, dim, start, end, step)


narrow = defop("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)")


@narrow.decomposition
def narrow_decomposition(self: TensorImpl, dim: int, start: int, length: int) -> Any:
    """`length` indices of `dim` from `start`. Torch: narrow_symint in TensorShape.cpp (slice)."""
    # geometry.narrow raises torch's errors for bad arguments; the view itself is a slice.
    geometry.narrow(self._geometry(), dim, start, length)
    d = geometry.wrap_dim(dim, len(self._size))
    begin = start + self._size[d] if start < 0 else start
    return aten.slice.Tensor(self, d, begin, begin + length, 1)


# --- diagonal, as_strided, unfold, alias, lift_fresh, detach ---------------------------

diagonal = defop("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")


@diagonal.kernel(CEA)
@dispatches_nothing
def diagonal_kernel(self: TensorImpl, offset: int, dim1: int, dim2: int) -> Any:
    """A diagonal of the (dim1, dim2) planes, as the last dim. Torch: diagonal."""
    return make_view(self, geometry.diagonal(self._geometry(), offset, dim1, dim2))


@diagonal.derivative("self")
def diagonal_backward_self(
    grad: Tensor, self_sym_sizes: tuple[int, ...], offset: int, dim1: int, dim2: int
) -> Tensor:
    # torch: diagonal_backward_symint(grad, self.sym_sizes(), offset, dim1, dim2)
    return diagonal_backward(grad, self_sym_sizes, offset, dim1, dim2)


as_strided = defop(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a)"
)


# Differs: torch registers as_strided per backend (CPU, CUDA, Meta, ...).
@as_strided.kernel(CEA)
@dispatches_nothing
def as_strided_kernel(
    self: TensorImpl, size: list[int], stride: list[int], storage_offset: int | None
) -> Any:
    """Any geometry within the storage. Torch: as_strided_tensorimpl in TensorShape.cpp."""
    g = geometry.as_strided(
        self._geometry(),
        tuple(size),
        tuple(stride),
        storage_offset,
        self._storage.elements(self._dtype),
        self._dtype.itemsize,
    )
    return make_view(self, g)


@as_strided.derivative("self")
def as_strided_backward_self(
    grad: Tensor,
    self_geometry: tuple[tuple[int, ...], tuple[int, ...], int],
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
) -> Tensor:
    # torch: as_strided_backward(grad, TensorGeometry(self), size, stride, storage_offset)
    return as_strided_backward(grad, self_geometry, size, stride, storage_offset)


unfold = defop("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)")


# Differs: torch registers unfold per backend (CPU, CUDA, Meta, ...).
@unfold.kernel(CEA)
@dispatches_nothing
def unfold_kernel(self: TensorImpl, dimension: int, size: int, step: int) -> Any:
    """Windows of `size` every `step` along `dimension`, as a new last dim. Torch: unfold."""
    return make_view(self, geometry.unfold(self._geometry(), dimension, size, step))


@unfold.derivative("self")
def unfold_backward_self(
    grad: Tensor, self_sym_sizes: tuple[int, ...], dimension: int, size: int, step: int
) -> Tensor:
    # torch: unfold_backward_symint(grad, self.sym_sizes(), dimension, size, step)
    return unfold_backward(grad, self_sym_sizes, dimension, size, step)


alias = defop("alias(Tensor(a) self) -> Tensor(a)")


@alias.kernel(CEA)
@dispatches_nothing
def alias_kernel(self: TensorImpl) -> Any:
    """A view with the same geometry. Torch: alias in TensorShape.cpp."""
    return make_view(self, self._geometry())


@alias.derivative("self")
def alias_backward(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


lift_fresh = defop("lift_fresh(Tensor(a) self) -> Tensor(a)")


@lift_fresh.kernel(CEA)
def lift_fresh_kernel(self: TensorImpl) -> Any:
    """`self` itself: marks a tensor made without dispatching (indexing's assigned scalar).

    Torch: lift_fresh in TensorShape.cpp returns its input; functionalization and fake
    tensors use the call to wrap constants.
    """
    return self


detach = defop("detach(Tensor(a) self) -> Tensor(a)")


@detach.kernel(CEA)
def detach_kernel(self: TensorImpl) -> Any:
    """The same storage and version counter, not a view, outside autograd. Torch: detach."""
    return data.alias_detached(self, share_version=True)


# --- split, split_with_sizes, unbind, chunk ----------------------------------------------

split = defop("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")


@split.kernel(CEA)
@dispatches_nothing
def split_kernel(self: TensorImpl, split_size: int, dim: int) -> list[Any]:
    """Pieces of `split_size` along `dim`, the last one shorter. Torch: split in TensorShape.cpp."""
    if not self._size:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    d = geometry.wrap_dim(dim, len(self._size))
    dim_size = self._size[d]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        )
    # torch: at least one piece, also when split_size > dim_size.
    count = max((dim_size + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * count - dim_size)
    g = self._geometry()
    return [
        make_view(
            self, geometry.narrow(g, d, i * split_size, split_size if i < count - 1 else last)
        )
        for i in range(count)
    ]


@split.derivative("self")
def split_backward_self(
    grads: tuple[Tensor | None, ...],
    split_size: int,
    dim: int,
    self_sym_sizes: tuple[int, ...],
) -> Tensor:
    # torch: split_backward(grads, split_size, dim, self.sym_sizes(), self.options())
    return split_backward(grads, split_size, dim, self_sym_sizes)


split_with_sizes = defop(
    "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]"
)


@split_with_sizes.kernel(CEA)
@dispatches_nothing
def split_with_sizes_kernel(self: TensorImpl, split_sizes: list[int], dim: int) -> list[Any]:
    """Pieces of the given lengths along `dim`. Torch: split_with_sizes in TensorShape.cpp."""
    if not self._size:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = geometry.wrap_dim(dim, len(self._size))
    g = self._geometry()
    pieces = []
    start = 0
    for length in split_sizes:
        if length < 0:
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={_format(split_sizes)}"
            )
        pieces.append(make_view(self, geometry.slice_(g, d, start, start + length, 1)))
        start += length
    if start != self._size[d]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {self._size[d]} (input "
            f"tensor's size at dimension {d}), but got split_sizes={_format(split_sizes)}"
        )
    return pieces


@split_with_sizes.derivative("self")
def split_with_sizes_backward_self(
    grads: tuple[Tensor | None, ...],
    split_sizes: list[int],
    dim: int,
    self_sym_sizes: tuple[int, ...],
) -> Tensor:
    # torch: split_with_sizes_backward(grads, split_sizes, dim, self.sym_sizes(), self.options())
    return split_with_sizes_backward(grads, split_sizes, dim, self_sym_sizes)


unbind = defop("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")


@unbind.kernel(CEA)
@dispatches_nothing
def unbind_kernel(self: TensorImpl, dim: int) -> list[Any]:
    """Every index of `dim` selected. Torch: unbind in TensorShape.cpp."""
    if not self._size:
        raise geometry.no_dimensions(0)
    d = geometry.wrap_dim(dim, len(self._size))
    g = self._geometry()
    return [make_view(self, geometry.select(g, d, i)) for i in range(self._size[d])]


@unbind.derivative("self")
def unbind_backward_self(grads: tuple[Tensor | None, ...], dim: int) -> Tensor:
    # torch: unbind_backward(grads, dim)
    return unbind_backward(grads, dim)


chunk = defop("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]")


@chunk.decomposition
def chunk_decomposition(self: TensorImpl, chunks: int, dim: int) -> Any:
    """At most `chunks` equal pieces along `dim`. Torch: chunk in TensorShape.cpp (split)."""
    if not self._size:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._size[geometry.wrap_dim(dim, len(self._size))]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        # torch: split would give one piece; split_with_sizes keeps `chunks` empty pieces.
        return aten.split_with_sizes.default(self, [0] * chunks, dim)
    return aten.split.Tensor(self, split_size, dim)


# --- movedim, flatten, contiguous, clone -------------------------------------------------

movedim_int = defop("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)")


@movedim_int.decomposition
def movedim_int_decomposition(self: TensorImpl, source: int, destination: int) -> Any:
    """One dim moved. Torch: movedim in TensorShape.cpp (the intlist overload)."""
    return aten.movedim.intlist(self, [source], [destination])


movedim = defop("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)")


@movedim.decomposition
def movedim_decomposition(self: TensorImpl, source: list[int], destination: list[int]) -> Any:
    """Dims moved from `source` to `destination`, the rest in order. Torch: movedim (permute)."""
    ndim = len(self._size)
    # geometry.movedim is a permute (with torch's checks); applied to the strides 0..n-1 it
    # returns the permutation itself.
    probe = geometry.Geometry((1,) * ndim, tuple(range(ndim)), 0)
    order = list(geometry.movedim(probe, source, destination).stride)
    return aten.permute.default(self, order)


flatten = defop("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)")


@flatten.decomposition
def flatten_decomposition(self: TensorImpl, start_dim: int, end_dim: int) -> Any:
    """Dims start_dim..end_dim merged into one. Torch: flatten in TensorShape.cpp (reshape)."""
    ndim = len(self._size)
    start = geometry.wrap_dim(start_dim, ndim)
    end = geometry.wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return aten.reshape.default(self, [1])
    if start == end:
        return self
    merged = geometry.numel(self._size[start : end + 1])
    return aten.reshape.default(self, [*self._size[:start], merged, *self._size[end + 1 :]])


contiguous = defop("contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)")


@contiguous.decomposition
def contiguous_decomposition(self: TensorImpl, *, memory_format: Any) -> Any:
    """Itself if contiguous in `memory_format`, else a clone in that format.

    Torch: contiguous in TensorProperties.cpp (is_contiguous(memory_format), then clone).
    """
    fmt = as_memory_format(memory_format)
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if self.is_contiguous(memory_format=fmt):
        return self
    return aten.clone.default(self, memory_format=memory_format)


clone = defop("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")


@clone.kernel(CEA)
def clone_kernel(self: TensorImpl, *, memory_format: Any) -> Any:
    """A copy with its own storage, laid out as `memory_format` asks (default: preserve, which
    keeps a dense input's strides). Torch: clone in TensorFactories.cpp."""
    return data.clone(self, as_memory_format(memory_format))


@clone.derivative("self")
def clone_backward(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


def _format(values: list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"
