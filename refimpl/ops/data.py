"""Kernels that move data: copy between tensors, fill, cast, clone, transfer across backends.

Torch: copy_ (aten/src/ATen/native/Copy.cpp), fill_ (Fill.cpp), _to_copy and clone
(TensorConversions.cpp, TensorFactories.cpp). These are the kernel bodies; the operator
blocks that register them with the dispatcher wrap them.
"""

from __future__ import annotations

import warnings
from typing import Any

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.scalars import Scalar, fill_scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.storage import VersionCounter
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    empty_tensor,
    from_array,
    make_tensor,
    write_array,
)


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


def cast_array(xp: Any, array: Array, source: DType, target: DType, backend: Backend) -> Array:
    """`array` of dtype `source` converted to `target` as torch converts (complex to real
    keeps the real part, with torch's warning)."""
    if source is target:
        return array
    if source.is_complex and not target.is_complex:
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning,
            stacklevel=4,
        )
        array = xp.real(array)
    if target.category.name == "BOOL" and source.category.name != "BOOL":
        return array != 0
    return xp.astype(array, backend_dtype(backend, target))


def transfer(array: Array, source: Backend, target: Backend) -> Array:
    """The same values in another backend's library (a copy through host memory)."""
    if source is target:
        return array
    return target.from_host(source.to_host(array))


def check_writable(dst: TensorImpl) -> None:
    """Torch's refusal to write through a view whose elements overlap (an expanded tensor).

    Torch: assert_no_internal_overlap in aten/src/ATen/MemoryOverlap.cpp.
    """
    for n, s in zip(dst._size, dst._stride):
        if s == 0 and n > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation."
            )


def copy_(dst: TensorImpl, src: TensorImpl) -> TensorImpl:
    """Write `src` (broadcast, cast, transferred) into `dst`. Torch: copy_ in Copy.cpp."""
    dst_backend = dst._storage.backend
    src_backend = src._storage.backend
    if dst_backend is not None and src_backend is None:
        # torch: a meta source has no values for a tensor with data; checked before shapes.
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    shape = broadcast_shapes(dst._size, src._size)
    if shape != dst._size:
        # torch: the broadcast must produce dst's shape.
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, dst._size))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, shape))}]"
        )
    check_writable(dst)
    if dst_backend is None or src_backend is None:
        dst._version_counter.bump()
        return dst
    xp = dst_backend.xp
    values = transfer(array_of(src), src_backend, dst_backend)
    values = cast_array(xp, values, src._dtype, dst._dtype, dst_backend)
    if tuple(values.shape) != dst._size:
        values = xp.broadcast_to(values, dst._size)
    write_array(dst, values)
    dst._version_counter.bump()
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
    dst._version_counter.bump()
    return dst


def to_copy(
    src: TensorImpl, dtype: DType, dev: device, backend: Backend | None
) -> Any:
    """A new contiguous tensor with `src`'s values as `dtype` on `dev`. Torch: _to_copy."""
    source_backend = src._storage.backend
    if backend is None or source_backend is None:
        if backend is not None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return empty_tensor(src._size, dtype, dev, None)
    xp = backend.xp
    values = transfer(array_of(src), source_backend, backend)
    values = cast_array(xp, values, src._dtype, dtype, backend)
    values = xp.asarray(xp.reshape(values, src._size), copy=True)
    return from_array(values, dtype, backend, dev)


def clone(src: TensorImpl) -> Any:
    """A contiguous copy with the same dtype and device. Torch: clone (contiguous format)."""
    return to_copy(src, src._dtype, src._storage.device, src._storage.backend)


def alias_detached(src: TensorImpl, *, share_version: bool) -> Any:
    """A tensor over the same storage and geometry, with no `_base` and no history.

    Torch: detach (shares the version counter) and Tensor.data (a fresh counter).
    """
    return make_tensor(
        src._storage, src._size, src._stride, src._storage_offset, src._dtype,
        version_counter=src._version_counter if share_version else VersionCounter(),
        cls=type(src),
    )
