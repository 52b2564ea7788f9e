"""What every op with an `out=` argument shares: resizing `out` with torch's warning, and
the overlap status of two tensors over one storage.

Torch: resize_output in aten/src/ATen/native/Resize.cpp and get_overlap_status in
aten/src/ATen/MemoryOverlap.cpp. TensorIterator (`_iterator.py`) and the non-elementwise ops
(reductions, joins, indexing, products) call these, so the warning's text exists once.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, resize_for_output

Shape = tuple[int, ...]


def format_shape(shape: Sequence[int]) -> str:
    """A shape as torch's messages print it: `[2, 3]`."""
    return "[" + ", ".join(str(n) for n in shape) + "]"


def warn_resize(out: TensorImpl, shape: Shape) -> None:
    """Torch's deprecation warning for resizing an `out` that had elements (an empty `out`
    resizes silently). Torch: resize_output in aten/src/ATen/native/Resize.cpp."""
    if geometry.numel(out._size) != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{format_shape(out._size)}, which does not match the required output shape "
            f"{format_shape(shape)}. This behavior is deprecated, and in a future PyTorch "
            "release outputs will not be resized unless they have zero elements. You can "
            "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
            "t.resize_(0).",
            UserWarning,
            stacklevel=5,
        )


def resize_output(out: TensorImpl, shape: Shape) -> bool:
    """`out` given shape `shape` (contiguous) if it has another one, warning as torch does
    when it had elements; whether it was resized. Torch: at::native::resize_output."""
    if out._size == shape:
        return False
    warn_resize(out, shape)
    resize_for_output(out, shape, geometry.contiguous_strides(shape))
    return True


def planned_resize(out: TensorImpl, size: Shape, stride: Shape) -> tuple[Shape, Shape]:
    """The geometry a kernel that resizes `out` before its checks (torch's structured meta
    functions, cat's set_output) gives it, with torch's warning and its refusal of a storage
    that cannot grow, but `out` unchanged: the caller judges its overlaps on this geometry
    and resizes (resize_for_output) once every check passed, so a failing call leaves `out`
    as it was. Differs: torch's failing call has resized it."""
    warn_resize(out, size)
    extent = geometry.storage_extent(size, stride, out._storage_offset)
    out._storage.check_growable(extent * out._dtype.itemsize)
    return size, stride


def overlap_status(
    a: TensorImpl, b: TensorImpl, a_geometry: tuple[Shape, Shape] | None = None
) -> layout.Overlap:
    """How two tensors over one storage overlap. Torch: get_overlap_status in
    MemoryOverlap.cpp (the same storage is assumed): one tensor overlaps itself fully, even
    empty (`cat((x, y), out=x)` with x of no elements is refused). `a_geometry`: the sizes
    and strides `a` is about to have (an `out` a structured kernel resizes first)."""
    if a is b:
        return layout.Overlap.FULL
    a_size, a_stride = (a._size, a._stride) if a_geometry is None else a_geometry
    a_n, b_n = geometry.numel(a_size), geometry.numel(b._size)
    if a_n == 0 or b_n == 0:
        return layout.Overlap.NO
    dense = geometry.is_non_overlapping_and_dense
    if not dense(a_size, a_stride) or not dense(b._size, b._stride):
        return layout.Overlap.TOO_HARD
    a_begin, b_begin = a._storage_offset, b._storage_offset
    a_end, b_end = a_begin + a_n, b_begin + b_n
    if a_begin == b_begin and a_end == b_end:
        return layout.Overlap.FULL if a_stride == b._stride else layout.Overlap.PARTIAL
    if a_begin < b_end and b_begin < a_end:
        return layout.Overlap.PARTIAL
    return layout.Overlap.NO
