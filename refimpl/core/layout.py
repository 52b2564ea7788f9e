"""TensorIterator's layout rules: the dim order outputs follow, and when tensors overlap.

Torch: TensorIteratorBase::reorder_dimensions, compute_fast_setup_type and
allocate_or_resize_outputs (aten/src/ATen/TensorIterator.cpp), and get_overlap_status /
has_internal_overlap (aten/src/ATen/MemoryOverlap.cpp). Everything here reads metadata only.
See Note [Output layout of elementwise ops].
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final

from refimpl.core import strides as geometry

Shape = tuple[int, ...]

# Note [Output layout of elementwise ops]
# torch: an elementwise result is allocated dense in the memory order of its operands, not
# always row-major (pytorch-semantics.md §9.4). TensorIterator first tries a "fast setup":
# when every operand has the same shape and all are contiguous, all channels-last, or all
# non-overlapping-and-dense with equal strides, the output takes that layout. Otherwise it
# sorts the dims by the operands' strides (in bytes, outputs first, then inputs in order; a
# broadcast dim, stride 0, does not vote; equal strides put the smaller dim first) with an
# insertion sort that stops at the first operand with an opinion, and allocates the output
# contiguous in that order. `iteration_order` returns that order, fastest dim first, as
# torch's perm_.


class FastSetup(enum.Enum):
    """Torch: FastSetupType in TensorIterator.h."""

    NONE = enum.auto()
    CONTIGUOUS = enum.auto()
    CHANNELS_LAST = enum.auto()
    NON_OVERLAPPING_DENSE = enum.auto()

    __hash__ = object.__hash__


def channels_last_strides(size: Sequence[int]) -> Shape:
    """NHWC (4-d) or NDHWC (5-d) strides for `size`.

    Torch: get_channels_last_strides_2d / _3d in c10/core/MemoryFormat.h, which multiply the
    sizes as they are: an empty tensor gets strides of 0 (unlike contiguous strides, which
    count a size 0 as 1).
    """
    ndim = len(size)
    order = (1, 3, 2, 0) if ndim == 4 else (1, 4, 3, 2, 0)
    out = [0] * ndim
    running = 1
    for d in order:
        out[d] = running
        running *= size[d]
    return tuple(out)


def is_channels_last(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether a 4-d or 5-d tensor is channels-last contiguous.

    Torch: TensorImpl::compute_channels_last_contiguous_2d / _3d (c10/core/Contiguity.h):
    dims of size 1 do not count; an empty tensor is channels-last when its strides up to its
    first size-0 dim (in NHWC order) are (torch.empty_strided((1, 1, 1, 0), (1, 1, 1, 1))
    is, as is every tensor with a size-0 channel dim and channel stride 1).
    """
    ndim = len(size)
    if ndim not in (4, 5):
        return False
    order = (1, 3, 2, 0) if ndim == 4 else (1, 4, 3, 2, 0)
    expected = 1
    for d in order:
        n = size[d]
        if n != 1:
            if stride[d] != expected:
                return False
            expected *= n
    return True


def suggests_channels_last(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether torch suggests a channels-last memory format for these strides.

    Torch: TensorBase::suggest_memory_format (is_strides_like_channels_last, 4-d and 5-d).
    """
    return len(size) in (4, 5) and is_channels_last_strides(size, stride)


def is_channels_last_strides(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether the strides are in channels-last order (not necessarily dense).

    Torch: is_channels_last_strides_2d_s4 / _3d_s5 in c10/core/MemoryFormat.h; ambiguous
    cases (a zero channel stride, N111 tensors) fall back to contiguous.
    """
    ndim = len(size)
    if ndim not in (4, 5) or stride[1] == 0:
        return False
    order = (1, 3, 2, 0) if ndim == 4 else (1, 4, 3, 2, 0)
    minimum = 0
    for d in order:
        if size[d] == 0 or stride[d] < minimum:
            return False
        if d == 0 and minimum == stride[1]:
            return False
        minimum = stride[d]
        if size[d] > 1:
            minimum *= size[d]
    return True


def fast_setup(
    operands: Sequence[tuple[Shape, Shape] | None],
) -> FastSetup:
    """Which fast layout all operands share (operands of one shape; None: an output that will
    be allocated or resized, which does not vote).

    Torch: TensorIteratorBase::compute_fast_setup_type. The NON_OVERLAPPING_DENSE case needs
    equal strides everywhere.
    """
    voting = [op for op in operands if op is not None]
    if all(geometry.is_contiguous(size, stride) for size, stride in voting):
        return FastSetup.CONTIGUOUS
    if all(is_channels_last(size, stride) for size, stride in voting):
        return FastSetup.CHANNELS_LAST
    if all(geometry.is_non_overlapping_and_dense(size, stride) for size, stride in voting):
        first = voting[0][1]
        if all(stride == first for _, stride in voting):
            return FastSetup.NON_OVERLAPPING_DENSE
    return FastSetup.NONE


def broadcast_strides(size: Shape, stride: Shape, shape: Shape) -> Shape:
    """An operand's strides seen in the broadcast `shape` (0 for broadcast and new dims).

    Torch: TensorIteratorBase::compute_strides.
    """
    offset = len(shape) - len(size)
    out = [0] * len(shape)
    for i, n in enumerate(size):
        if not (n == 1 and shape[offset + i] != 1):
            out[offset + i] = stride[i]
    return tuple(out)


def iteration_order(shape: Shape, operand_strides: Sequence[Shape]) -> Shape:
    """The dims of `shape`, fastest first, sorted by the operands' byte strides.

    Torch: TensorIteratorBase::reorder_dimensions (not a reduction, no linear iteration).
    `operand_strides` are byte strides already broadcast to `shape`, in operand order
    (outputs first); outputs being allocated or resized are left out by the caller.
    """
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))
    if ndim <= 1:
        return tuple(perm)

    def should_swap(dim0: int, dim1: int) -> int:
        # 1: dim0 goes after dim1; -1: before; 0: this operand has no opinion.
        for strides in operand_strides:
            stride0, stride1 = strides[dim0], strides[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return tuple(perm)


def strides_in_order(shape: Shape, order: Shape) -> Shape:
    """Dense strides (in elements) for `shape` with `order[0]` the fastest dim.

    Torch: compatible_stride and invert_perm in allocate_or_resize_outputs.
    """
    out = [0] * len(shape)
    running = 1
    for d in order:
        out[d] = running
        running *= shape[d]
    return tuple(out)


def is_inverted(order: Shape) -> bool:
    """Whether `order` is plain row-major (last dim fastest)."""
    n = len(order)
    return all(d == n - 1 - i for i, d in enumerate(order))


# --- memory overlap ----------------------------------------------------------------------


class Overlap(enum.Enum):
    """Torch: MemOverlapStatus in aten/src/ATen/MemoryOverlap.h."""

    FULL = enum.auto()
    PARTIAL = enum.auto()
    NO = enum.auto()
    TOO_HARD = enum.auto()


INTERNAL_OVERLAP_MESSAGE: Final = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP_MESSAGE: Final = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)


def has_internal_overlap(size: Sequence[int], stride: Sequence[int]) -> bool:
    """Whether two elements surely share memory (a stride 0 over a dim of size > 1).

    Torch: has_internal_overlap (Yes only; TooHard cases pass).
    """
    if geometry.is_non_overlapping_and_dense(size, stride):
        return False
    return any(s == 0 and n > 1 for n, s in zip(size, stride))
