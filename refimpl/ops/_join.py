"""What the shape and join kernels share: backend registration, results laid out in a given order, out= resizing, and the overlap checks of ops that write into `out`.

Torch: at::native::resize_output (aten/src/ATen/native/Resize.cpp), empty_like's dense
strides and assert_no_overlap (aten/src/ATen/MemoryOverlap.cpp).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl.core import layout
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, tensor_over
from refimpl.ops._outputs import overlap_status
from refimpl.ops._register import OpBlock

Shape = tuple[int, ...]

BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)


def register_backends(block: OpBlock, fn: Any, *, nonfunctional: bool = False) -> None:
    """Register `fn` for CPU, CUDA and Meta (one body serves them all: metadata first, data
    only when the tensor has any), and for CompositeExplicitAutogradNonFunctional where
    torch's structured functional op has that registration too (cat).

    Torch: the `dispatch:` entries CPU, CUDA (and the Meta kernel of structured ops).
    """
    for key in BACKEND_KEYS:
        block.kernel(key)(fn)
    if nonfunctional:
        block.kernel(DispatchKey.CompositeExplicitAutogradNonFunctional)(fn)


def laid_out(
    values: Array | None,
    like: TensorImpl,
    size: Shape,
    stride: Shape,
    dtype: DType,
    *,
    fresh: bool,
) -> Any:
    """A new tensor of `size` and dense `stride` holding `values` (a logical-order array, or
    None for meta), on `like`'s device and backend.

    The values are permuted into memory order before they become the storage, so a result
    laid out like a transposed or channels-last input costs one copy, as in torch. Values
    that may share memory with an input (`fresh` False: a view the library returned) are
    copied first, keeping the library's layout, which is the input's memory order.
    """
    storage = like._storage
    if values is not None and storage.backend is not None:
        if not fresh:
            values = storage.backend.xp.asarray(values, copy=True)
        order = sorted(range(len(size)), key=lambda d: -stride[d])
        if order != list(range(len(size))):
            values = storage.backend.xp.permute_dims(values, tuple(order))
    return tensor_over(values, size, stride, dtype, storage.device, storage.backend)


def check_no_overlap(
    out: TensorImpl, inputs: list[Any], after: tuple[Shape, Shape] | None = None
) -> None:
    """Torch's refusal to write into a tensor that overlaps itself or any input; `after`:
    the sizes and strides `out` is about to be resized to, judged instead of its own.

    Torch: assert_no_internal_overlap and assert_no_overlap (partial or full overlap both
    fail; layouts too hard to judge pass).
    """
    size, stride = (out._size, out._stride) if after is None else after
    if layout.has_internal_overlap(size, stride):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    for t in inputs:
        if t._storage is out._storage and overlap_status(out, t, after) in _OVERLAPPING:
            raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)


_OVERLAPPING = (layout.Overlap.PARTIAL, layout.Overlap.FULL)


def format_list(values: list[int] | tuple[int, ...]) -> str:
    """A list of ints as torch's messages print it: [2, 3]."""
    return "[" + ", ".join(str(v) for v in values) + "]"
