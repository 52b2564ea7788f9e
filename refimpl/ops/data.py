"""Kernels that move data: copy between tensors, fill, cast, clone, transfer across backends.

Torch: copy_ (aten/src/ATen/native/Copy.cpp), fill_ (Fill.cpp), _to_copy and clone
(TensorConversions.cpp, TensorFactories.cpp). These are the kernel bodies; the operator
blocks that register them with the dispatcher wrap them.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import Category, DType, complex64, complex128, float32, float64
from refimpl._base.memory_format import (
    channels_last,
    contiguous_format,
    memory_format,
    preserve_format,
)
from refimpl._base.scalars import Scalar, fill_scalar
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.storage import VersionCounter
from refimpl.core.tensor import (
    MATH_BITS,
    TensorImpl,
    array_of,
    backend_dtype,
    make_tensor,
    tensor_over,
    write_array,
)

_REAL_OF: Final = {complex64.name: float32, complex128.name: float64}


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two shapes, with torch's error. Torch: infer_size in ExpandUtils.cpp."""
    if a == b:
        return a
    ndim = max(len(a), len(b))
    out = []
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        da = len(a) - 1 - offset
        db = len(b) - 1 - offset
        size_a = a[da] if da >= 0 else 1
        size_b = b[db] if db >= 0 else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        out.append(size_b if size_a == 1 else size_a)
    return tuple(reversed(out))


# torch: a float converted to an integer type goes through a C++ cast, which on this
# machine's CPU (x86 cvttss2si/cvttsd2si) gives the "integer indefinite" value, the lowest
# int32 or int64, for nan, infinities and values out of range; int8, uint8 and int16 are
# reached through int32 and keep its low bits (float 300.5 -> uint8 44, -3.7 -> uint8 253,
# nan -> 0). Measured on torch 2.13 CPU; pytorch-semantics.md notes this is UB in C++.
_INDEFINITE_LIMIT: Final = {
    "int64": 2**63,
    "int32": 2**31,
    "int16": 2**31,
    "int8": 2**31,
    "uint8": 2**31,
}


def rounded_through(
    xp: Any, array: Array, compute: DType, stored: DType, backend: Backend
) -> Array:
    """`array` (of dtype `compute`) rounded to `stored` and read back in `compute`: where a
    kernel that computes float16/bfloat16 in float32 stores an intermediate in the narrow
    dtype. The identity when the two are the same."""
    if stored is compute:
        return array
    narrow = cast_array(xp, array, compute, stored, backend)
    return cast_array(xp, narrow, stored, compute, backend)


def cast_array(xp: Any, array: Array, source: DType, target: DType, backend: Backend) -> Array:
    """`array` of dtype `source` converted to `target` as torch's copy converts.

    Torch: copy_ in aten/src/ATen/native/Copy.cpp (complex to real keeps the real part with a
    warning) and c10::convert / static_cast (c10/util/TypeCast.h): complex to bool is True
    when either part is nonzero; float to integer truncates (see _INDEFINITE_LIMIT).
    """
    if source is target:
        return array
    if target.category is Category.BOOL:
        if source.is_complex:
            return (xp.real(array) != 0) | (xp.imag(array) != 0)
        return array != 0
    if source.is_complex and not target.is_complex:
        # Differs: torch warns once per process (TORCH_WARN_ONCE) and appends
        # " (Triggered internally at ...Copy.cpp...)"; refimpl warns through Python's filters.
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            UserWarning,
            stacklevel=4,
        )
        array = xp.real(array)
        source = _REAL_OF[source.name]
    limit = _INDEFINITE_LIMIT.get(target.name)
    if limit is not None and source.is_floating_point:
        wide = xp.int64 if limit == 2**63 else xp.int32
        # -(limit + 1) rounds to -limit in float32: that value then takes the indefinite
        # branch, which gives the same -limit.
        fits = (array > -(limit + 1)) & (array < limit)
        truncated = xp.astype(xp.where(fits, array, xp.zeros_like(array)), wide)
        array = xp.where(fits, truncated, xp.full_like(truncated, -limit))
    return xp.astype(array, backend_dtype(backend, target))


def transfer(array: Array, source: Backend, target: Backend) -> Array:
    """The same values in another backend's library (a copy through host memory)."""
    if source is target:
        return array
    return target.from_host(source.to_host(array))


def check_writable(dst: TensorImpl) -> None:
    """Torch's refusal to write through a view whose elements overlap (an expanded tensor).

    Torch: assert_no_internal_overlap in aten/src/ATen/MemoryOverlap.cpp (an empty tensor
    is non-overlapping and dense, so never refused).
    """
    if layout.has_internal_overlap(dst._size, dst._stride):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def _check_no_partial_overlap(dst: TensorImpl, src: TensorImpl) -> None:
    """Torch: assert_no_partial_overlap (get_overlap_status in MemoryOverlap.cpp): two
    contiguous tensors of one storage whose element ranges meet but differ; other layouts
    are "too hard" and pass."""
    if not (dst.is_contiguous() and src.is_contiguous()) or not dst.numel() or not src.numel():
        return
    a0, a1 = dst._storage_offset, dst._storage_offset + dst.numel()
    b0, b1 = src._storage_offset, src._storage_offset + src.numel()
    if (a0, a1) != (b0, b1) and a0 < b1 and b0 < a1:
        raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)


def copy_(dst: TensorImpl, src: TensorImpl) -> TensorImpl:
    """Write `src` (broadcast, cast, transferred) into `dst`. Torch: copy_ in Copy.cpp."""
    dst_backend = dst._storage.backend
    src_backend = src._storage.backend
    if dst_backend is not None and src_backend is None:
        # torch: a meta source has no values for a tensor with data; checked before shapes.
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if dst._size != src._size:
        shape = broadcast_shapes(dst._size, src._size)
        if shape != dst._size:
            # torch: the broadcast must produce dst's shape.
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, dst._size))}] doesn't match the "
                f"broadcast shape [{', '.join(map(str, shape))}]"
            )
    if 0 in dst._stride:  # only a zero stride makes elements overlap (check_writable)
        check_writable(dst)
    if dst_backend is None or src_backend is None:
        return dst
    if src is dst:
        # torch: copy_impl returns at once when self.is_same(src).
        return dst
    if src._storage is dst._storage:
        _check_no_partial_overlap(dst, src)
    xp = dst_backend.xp
    values = array_of(src)
    if src_backend is not dst_backend:
        values = transfer(values, src_backend, dst_backend)
    if src._dtype is not dst._dtype:
        values = cast_array(xp, values, src._dtype, dst._dtype, dst_backend)
    if (
        dst_backend.supports_inplace
        and dst_backend.supports_strided_views
        and not dst._key_set & MATH_BITS
    ):
        # The hot path: the destination's cached view of its storage, assigned in place
        # (broadcasting as the library does). A destination with a math bit is written
        # through write_array, which applies the bit (Note [Math bits] in core/tensor.py):
        # torch's copy_ conjugates / negates physically when the bits of self and src differ.
        target = array_of(dst)
        target[...] = values
    else:
        if tuple(values.shape) != dst._size:
            values = xp.broadcast_to(values, dst._size)
        write_array(dst, values)
    return dst


def fill_(dst: TensorImpl, value: Scalar) -> TensorImpl:
    """Set every element of `dst` to `value`. Torch: fill_ in Fill.cpp."""
    # torch: fill_ does not check for internal overlap (an expanded tensor fills fine).
    converted = fill_scalar(value, dst._dtype, geometry.numel(dst._size))
    backend = dst._storage.backend
    if backend is not None:
        xp = backend.xp
        values = xp.full(dst._size, converted, dtype=backend_dtype(backend, dst._dtype))
        write_array(dst, values)
    return dst


def layout_strides(src: TensorImpl, fmt: memory_format | None) -> tuple[int, ...]:
    """The strides of a copy of `src` in memory format `fmt` (None: preserve_format).

    Torch: clone and _to_copy (TensorFactories.cpp, TensorConversions.cpp): preserve keeps a
    non-overlapping-and-dense input's strides, else empty_like's infer_dense_strides (the
    input's dim order, dense); the other formats give their strides, with torch's errors.
    """
    size = src._size
    if fmt is None or fmt is preserve_format:
        return geometry.dense_strides_like(size, src._stride)
    return format_strides(size, fmt)


def format_strides(size: tuple[int, ...], fmt: memory_format) -> tuple[int, ...]:
    """The strides of memory format `fmt` (contiguous or channels-last) for `size`.

    Torch: empty_tensor_restride in TensorImpl.h, with its rank error.
    """
    if fmt is contiguous_format:
        return geometry.contiguous_strides(size)
    rank = 4 if fmt is channels_last else 5
    if len(size) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    return layout.channels_last_strides(size)


def _memory_order(stride: tuple[int, ...]) -> list[int]:
    """The dims from slowest to fastest in memory for dense strides (ties: dims of size 1)."""
    return sorted(range(len(stride)), key=lambda d: -stride[d])


def copy_laid_out(
    src: TensorImpl,
    dtype: DType,
    dev: device,
    backend: Backend | None,
    stride: tuple[int, ...],
) -> Any:
    """A new tensor with `src`'s values as `dtype` on `dev`, with dense strides `stride`.

    The elements are copied once, straight into memory order: the source view is permuted
    so that memory order is row-major and flattened (a fresh array unless it already was
    row-major, when the slice of storage it views is copied).
    """
    size = src._size
    source_backend = src._storage.backend
    if backend is None or source_backend is None:
        if backend is not None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return tensor_over(None, size, stride, dtype, dev, None)
    xp = backend.xp
    values = array_of(src)
    fresh = False
    if source_backend is not backend:
        values, fresh = transfer(values, source_backend, backend), True
    if src._dtype is not dtype:
        values, fresh = cast_array(xp, values, src._dtype, dtype, backend), True
    order = _memory_order(stride)
    if order != list(range(len(size))):
        values = xp.permute_dims(values, tuple(order))
    ordered_size = tuple(size[d] for d in order)
    if fresh or not geometry.is_contiguous(ordered_size, tuple(src._stride[d] for d in order)):
        flat = backend.flatten(values)  # not row-major in memory: this is the one copy
    else:
        flat = xp.asarray(backend.flatten(values), copy=True)
    return tensor_over(flat, size, stride, dtype, dev, backend)


def to_copy(
    src: TensorImpl,
    dtype: DType,
    dev: device,
    backend: Backend | None,
    fmt: memory_format | None = None,
) -> Any:
    """A new tensor with `src`'s values as `dtype` on `dev`, laid out as `fmt` asks.

    Torch: _to_copy in TensorConversions.cpp.
    """
    return copy_laid_out(src, dtype, dev, backend, layout_strides(src, fmt))


def clone(src: TensorImpl, fmt: memory_format | None = None) -> Any:
    """A copy with the same dtype and device. Torch: clone in TensorFactories.cpp."""
    return to_copy(src, src._dtype, src._storage.device, src._storage.backend, fmt)


def alias_detached(src: TensorImpl, *, share_version: bool) -> Any:
    """A tensor over the same storage and geometry, with no `_base` and no history.

    Torch: detach (shares the version counter) and Tensor.data (a fresh counter).
    """
    out = make_tensor(
        src._storage,
        src._size,
        src._stride,
        src._storage_offset,
        src._dtype,
        version_counter=src._version_counter if share_version else VersionCounter(),
        cls=type(src),
    )
    keep_math_bits(out, src)
    return out


def keep_math_bits(alias: TensorImpl, source: TensorImpl) -> None:
    """Give `alias` (a tensor over `source`'s memory) `source`'s conjugate and negative bits.

    Torch: an alias's TensorImpl copies its source's key set (shallow_copy_and_detach,
    alias_with_sizes_and_strides), the math bits with it (Note [Math bits] in core/tensor.py).
    """
    alias._key_set |= source._key_set & MATH_BITS
