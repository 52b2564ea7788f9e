"""Stride arithmetic: contiguity, storage bounds, and the geometry of every view op.

Torch: the metadata halves of the view kernels in aten/src/ATen/native/TensorShape.cpp and
ATen/InferSize.h / TensorUtils.cpp (computeStride). Each function here maps the geometry of a
tensor, `(size, stride, storage_offset)`, to the geometry of its view and raises torch's error
for bad arguments. No data is touched: the view kernels in `ops/` build tensors from these.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

Shape = tuple[int, ...]


class Geometry(NamedTuple):
    """Where a view's elements live in its storage: element [i] is at offset + sum(i*stride)."""

    size: Shape
    stride: Shape
    offset: int


# Note [Making geometries]: the hot view paths (x[i], x.view) build a Geometry as
# `tuple.__new__(Geometry, (size, stride, offset))`, what NamedTuple's generated __new__ does
# without its Python frame (about 170 ns of a ~2.5 us view).


@lru_cache(maxsize=4096)
def contiguous_strides(size: Shape) -> Shape:
    """Row-major strides for `size`; dims of size 0 or 1 count as size 1.

    Torch: c10::contiguous_strides / TensorImpl::empty_tensor_restride.
    """
    strides = [1] * len(size)
    running = 1
    for d in range(len(size) - 1, -1, -1):
        strides[d] = running
        running *= max(size[d], 1)
    return tuple(strides)


def is_contiguous(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether `stride` is row-major for `size`, ignoring dims of size 1; empty is contiguous.

    Torch: TensorImpl::compute_contiguous (c10/core/Contiguity.h).
    """
    if 0 in size:
        return True
    expected = 1
    for d in range(len(size) - 1, -1, -1):
        n = size[d]
        if n != 1:
            if stride[d] != expected:
                return False
            expected *= n
    return True


def numel(size: Sequence[int]) -> int:
    n = 1
    for s in size:
        n *= s
    return n


def storage_extent(size: Sequence[int], stride: Sequence[int], offset: int) -> int:
    """Elements a storage must hold for this geometry (0 for an empty tensor).

    Torch: computeStorageNbytes in aten/src/ATen/EmptyTensor.cpp, in elements.
    """
    extent = 1
    for n, s in zip(size, stride):
        if n == 0:
            return 0
        extent += (n - 1) * s
    return extent + offset


def wrap_dim(dim: int, ndim: int) -> int:
    """`dim` made non-negative; a 0-dim tensor accepts dims -1 and 0.

    Torch: c10::maybe_wrap_dim (c10/core/WrapDimMinimal.h).
    """
    bound = max(ndim, 1)
    if dim < -bound or dim >= bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
            f"but got {dim})"
        )
    return dim + bound if dim < 0 else dim


def no_dimensions(dim: int) -> IndexError:
    """Torch's error for a dim of a 0-dim tensor where no dim may be wrapped.

    Torch: maybe_wrap_dim with wrap_scalar=false (TensorImpl::size(dim) on a 0-dim tensor).
    """
    return IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def dim_list(dims: Sequence[int], ndim: int) -> list[int]:
    """`dims` wrapped, in order, with torch's error for a dim named twice.

    Torch: dim_list_to_bitset (aten/src/ATen/WrapDimUtilsMulti.h), used by squeeze.dims and
    the reductions; the message names the wrapped dim.
    """
    wrapped: list[int] = []
    for dim in dims:
        d = wrap_dim(dim, ndim)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return wrapped


def _format_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# --- view geometries ---------------------------------------------------------------------


def transpose(g: Geometry, dim0: int, dim1: int) -> Geometry:
    """Torch: transpose in TensorShape.cpp."""
    ndim = len(g.size)
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    if ndim == 0:
        return g
    size, stride = list(g.size), list(g.stride)
    size[d0], size[d1] = size[d1], size[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return Geometry(tuple(size), tuple(stride), g.offset)


def t(g: Geometry) -> Geometry:
    """Torch: t in TensorShape.cpp (transpose(0, 1) for at most 2 dims)."""
    ndim = len(g.size)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return g if ndim < 2 else transpose(g, 0, 1)


def permute(g: Geometry, dims: Sequence[int]) -> Geometry:
    """Torch: permute in TensorShape.cpp."""
    ndim = len(g.size)
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{ndim} is not equal to len(dims) = {len(dims)}"
        )
    wrapped = [wrap_dim(d, ndim) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Geometry(
        tuple(g.size[d] for d in wrapped), tuple(g.stride[d] for d in wrapped), g.offset
    )


# Cached: a program selects from tensors of a few geometries over and over (x[i] in a loop);
# errors are not cached.
@lru_cache(maxsize=4096)
def select(g: Geometry, dim: int, index: int) -> Geometry:
    """Torch: select in TensorShape.cpp."""
    ndim = len(g.size)
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if 0 <= dim < ndim else wrap_dim(dim, ndim)
    n = g.size[d]
    if index < -n or index >= n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {_format_list(g.size)} "
            f"at dimension {d}"
        )
    if index < 0:
        index += n
    size, stride = g[0], g[1]
    return tuple.__new__(  # Note [Making geometries]
        Geometry,
        (size[:d] + size[d + 1 :], stride[:d] + stride[d + 1 :], g[2] + index * stride[d]),
    )


def slice_(g: Geometry, dim: int, start: int | None, end: int | None, step: int) -> Geometry:
    """Torch: slice in TensorShape.cpp (start and end are clamped, as Python slicing does)."""
    ndim = len(g.size)
    if ndim == 0:
        # torch: TORCH_CHECK_INDEX, so `t[0:1]` on a 0-dim tensor is an IndexError.
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = g.size[d]
    lo = 0 if start is None else start
    hi = n if end is None else end
    if lo < 0:
        lo += n
    if hi < 0:
        hi += n
    lo = min(max(lo, 0), n)
    hi = min(max(hi, lo), n)
    length = (hi - lo + step - 1) // step
    size, stride = list(g.size), list(g.stride)
    size[d] = length
    stride[d] = g.stride[d] * step
    return Geometry(tuple(size), tuple(stride), g.offset + lo * g.stride[d])


def narrow(g: Geometry, dim: int, start: int, length: int) -> Geometry:
    """Torch: narrow in TensorShape.cpp."""
    ndim = len(g.size)
    if ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, ndim)
    n = g.size[d]
    if start < -n or start > n:
        raise IndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return slice_(g, d, start, start + length, 1)


def unsqueeze(g: Geometry, dim: int) -> Geometry:
    """Torch: unsqueeze / inferUnsqueezeGeometry in TensorShape.cpp."""
    ndim = len(g.size)
    d = wrap_dim(dim, ndim + 1)
    new_stride = 1 if d >= ndim else g.size[d] * g.stride[d]
    return Geometry(
        g.size[:d] + (1,) + g.size[d:], g.stride[:d] + (new_stride,) + g.stride[d:], g.offset
    )


def squeeze(g: Geometry, dims: Sequence[int] | None = None) -> Geometry:
    """Torch: squeeze / squeeze.dims in TensorShape.cpp (only size-1 dims go)."""
    ndim = len(g.size)
    if dims is None:
        drop = {d for d in range(ndim) if g.size[d] == 1}
    else:
        drop = {d for d in dim_list(dims, ndim) if ndim and g.size[d] == 1}
    keep = [d for d in range(ndim) if d not in drop]
    return Geometry(tuple(g.size[d] for d in keep), tuple(g.stride[d] for d in keep), g.offset)


def expand(g: Geometry, sizes: Sequence[int], type_desc: str = "") -> Geometry:
    """Torch: expand / inferExpandGeometry in aten/src/ATen/ExpandUtils.cpp.

    `type_desc` is torch's legacy type string (`torch.FloatTensor`) used in one message.
    """
    ndim = len(g.size)
    if len(sizes) < ndim:
        raise RuntimeError(
            f"expand({type_desc}{{{_format_list(g.size)}}}, size={_format_list(sizes)}): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({ndim})"
        )
    out_ndim = len(sizes)
    size = [0] * out_ndim
    stride = [0] * out_ndim
    for i in range(out_ndim - 1, -1, -1):
        offset = out_ndim - 1 - i
        d = ndim - 1 - offset
        n = g.size[d] if d >= 0 else 1
        # torch: a new dim's stride is the next dim's size times stride; a 0-dim tensor has
        # no next dim, and torch reads 0 there (tensor(1.).expand(1, 1) has strides (0, 0)).
        s = g.stride[d] if d >= 0 else size[i + 1] * stride[i + 1] if i + 1 < out_ndim else 0
        target = sizes[i]
        if d < 0 and target < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                f"non-existing dimension {i}"
            )
        if target == -1:
            target = n
        if n != target:
            if n != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({n}) at non-singleton dimension {i}.  Target sizes: "
                    f"{_format_list(sizes)}.  Tensor sizes: {_format_list(g.size)}"
                )
            s = 0
        size[i] = target
        stride[i] = s
    return Geometry(tuple(size), tuple(stride), g.offset)


def diagonal(g: Geometry, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Geometry:
    """Torch: diagonal in TensorShape.cpp."""
    ndim = len(g.size)
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    storage_offset = g.offset
    if offset >= 0:
        length = max(min(g.size[d1], g.size[d2] - offset), 0)
        if length > 0:
            storage_offset += offset * g.stride[d2]
    else:
        length = max(min(g.size[d1] + offset, g.size[d2]), 0)
        if length > 0:
            storage_offset -= offset * g.stride[d1]
    keep = [d for d in range(ndim) if d not in (d1, d2)]
    return Geometry(
        tuple(g.size[d] for d in keep) + (length,),
        tuple(g.stride[d] for d in keep) + (g.stride[d1] + g.stride[d2],),
        storage_offset,
    )


def unfold(g: Geometry, dimension: int, size: int, step: int) -> Geometry:
    """Torch: unfold in TensorShape.cpp."""
    ndim = len(g.size)
    d = wrap_dim(dimension, ndim)
    dim_size = g.size[d] if ndim else 1
    if size > dim_size:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {dim_size} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if ndim == 0:
        return Geometry((size,), (1,), g.offset)
    new_size, new_stride = list(g.size), list(g.stride)
    new_size[d] = (dim_size - size) // step + 1
    new_stride[d] = step * g.stride[d]
    return Geometry(tuple(new_size) + (size,), tuple(new_stride) + (g.stride[d],), g.offset)


def as_strided(
    g: Geometry,
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None,
    storage_elements: int,
    itemsize: int,
) -> Geometry:
    """Torch: as_strided_tensorimpl + setStrided checks (aten/src/ATen/native/TensorShape.cpp)."""
    offset = g.offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, got strides: "
            f"{_format_list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = storage_extent(size, stride, offset)
    if needed > storage_elements:
        raise RuntimeError(
            f"setStorage: sizes {_format_list(size)}, strides {_format_list(stride)}, storage "
            f"offset {offset}, and itemsize {itemsize} requiring a storage size of "
            f"{needed * itemsize} are out of bounds for storage of size "
            f"{storage_elements * itemsize}"
        )
    return Geometry(tuple(size), tuple(stride), offset)


def infer_size(shape: Sequence[int], total: int) -> Shape:
    """`shape` with a single -1 resolved so that it holds `total` elements.

    Torch: infer_size_impl in aten/src/ATen/InferSize.h.
    """
    inferred: int | None = None
    known = 1
    for i, n in enumerate(shape):
        if n == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = i
        elif n >= 0:
            known *= n
        else:
            raise RuntimeError(f"invalid shape dimension {n}")
    if inferred is None:
        if known == total:
            return tuple(shape)
    elif known != 0 and total % known == 0:
        out = list(shape)
        out[inferred] = total // known
        return tuple(out)
    elif known == 0 and total == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {_format_list(shape)} because "
            "the unspecified dimension size -1 can be any value and is ambiguous"
        )
    raise RuntimeError(f"shape '{_format_list(shape)}' is invalid for input of size {total}")


def view_strides(
    size: Sequence[int], stride: Sequence[int], new_size: Sequence[int]
) -> Shape | None:
    """Strides that let `new_size` view memory laid out as (`size`, `stride`), or None.

    Torch: computeStride in aten/src/ATen/TensorUtils.cpp: dims may be merged or split only
    within chunks whose memory is contiguous.
    """
    if not size:
        return tuple(1 for _ in new_size)
    total = numel(size)
    if total == 0:
        if tuple(size) == tuple(new_size):
            return tuple(stride)
        return contiguous_strides(new_size)
    new_stride = [0] * len(new_size)
    view_d = len(new_size) - 1
    chunk_base_stride = stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(size) - 1, -1, -1):
        tensor_numel *= size[tensor_d]
        if tensor_d == 0 or (
            size[tensor_d - 1] != 1 and stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_size[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_size[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def view(g: Geometry, shape: Sequence[int]) -> Geometry:
    """Torch: view in TensorShape.cpp (never copies)."""
    new_size, new_stride = _view_geometry(g[0], g[1], tuple(shape))
    return tuple.__new__(Geometry, (new_size, new_stride, g[2]))  # Note [Making geometries]


# Cached: a program views tensors of a few geometries over and over; errors are not cached.
@lru_cache(maxsize=4096)
def _view_geometry(size: Shape, stride: Shape, shape: Shape) -> tuple[Shape, Shape]:
    new_size = infer_size(shape, numel(size))
    new_stride = view_strides(size, stride, new_size)
    if new_stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return new_size, new_stride


def movedim(g: Geometry, source: Sequence[int], destination: Sequence[int]) -> Geometry:
    """Torch: movedim in TensorShape.cpp, as a permutation."""
    ndim = len(g.size)
    if len(source) != len(destination):
        raise RuntimeError(
            "movedim: Invalid source or destination dims: source "
            f"({_format_list(source)} dims) should contain the same number of dims as "
            f"destination ({_format_list(destination)} dims)"
        )
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_format_list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_format_list(destination)})")
    order = [-1] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in set(src))
    for i in range(ndim):
        if order[i] == -1:
            order[i] = next(rest)
    return permute(g, order) if ndim else g


def is_non_overlapping_and_dense(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether the elements tile a block of memory exactly, in some dim order.

    Torch: TensorImpl::compute_non_overlapping_and_dense (c10/core/Contiguity.h), or'd with
    is_contiguous, which holds for every empty tensor.
    """
    if 0 in size:
        return True
    if len(size) == 1:
        return size[0] < 2 or stride[0] == 1
    expected = 1
    for d in sorted(range(len(size)), key=lambda i: (stride[i], size[i])):
        if size[d] == 1:
            continue
        if stride[d] != expected:
            return False
        expected *= size[d]
    return True


def dense_strides_like(size: Shape, stride: Shape) -> Shape:
    """Strides of a dense tensor laid out like (`size`, `stride`): the same strides when they
    are already non-overlapping and dense, else contiguous in the order of the strides.

    Torch: empty_like with preserve_format, via infer_dense_strides / compute_strides_like in
    aten/src/ATen/TensorUtils.cpp (TensorIterator's permutation: 0-strides do not vote, equal
    strides order by size).
    """
    ndim = len(size)
    if ndim == 0:
        return ()
    if is_non_overlapping_and_dense(size, stride):
        return tuple(stride)

    def should_swap(dim0: int, dim1: int) -> int:
        stride0, stride1 = stride[dim0], stride[dim1]
        if stride0 == 0 or stride1 == 0:
            return 0
        if stride0 != stride1:
            return -1 if stride0 < stride1 else 1
        return 1 if size[dim0] > size[dim1] else 0

    # perm[0] is the fastest-moving dim; insertion sort as torch's.
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    out = [0] * ndim
    running = 1
    for d in perm:
        out[d] = running
        running *= max(size[d], 1)
    return tuple(out)
