"""The helper functions of the product, join, split, reorder and view-copy derivatives.

Torch: torch/csrc/autograd/FunctionsManual.cpp (cat_tensors_backward, stack_tensors_backward,
split_backward, split_with_sizes_backward, repeat_backward, block_diag_backward,
_euclidean_dist_backward, select_backward, slice_backward_wrapper, diagonal_backward,
unfold_backward, unbind_backward, permute_backwards, unsqueeze_to) and the CPU kernel of
aten::_cdist_backward (aten/src/ATen/native/Distance.cpp). Each takes and returns tensors
(refimpl.Tensor at runtime) and calls ops only through the dispatcher, so a backward pass
built from them is recorded when `create_graph=True`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from refimpl._base.dtypes import DType
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor

aten: Final = namespace("aten")

_INT64_MAX: Final = 2**63 - 1


def _wrap(dim: int, rank: int) -> int:
    # torch: maybe_wrap_dim (a 0-dim tensor takes dims -1 and 0).
    return dim % rank if rank else 0


def _real_for(dtype: DType, grad: Tensor) -> Tensor:
    # torch: the `!isComplexType(dtype) && grad.is_complex()` step of the list backwards.
    return aten.real.default(grad) if grad._dtype.is_complex and not dtype.is_complex else grad


# --- joins ------------------------------------------------------------------------------------


def _legacy_cat_wrap_dim(dim: int, sizes: Sequence[Sequence[int]]) -> int:
    # torch: legacy_cat_wrap_dim: the first input that is not a legacy empty [0] tensor.
    for size in sizes:
        if not (len(size) == 1 and size[0] == 0):
            return _wrap(dim, len(size))
    return dim


def cat_tensors_backward(
    grad: Tensor, sizes: Sequence[Sequence[int]], dtypes: Sequence[DType], dim: int
) -> list[Tensor | None]:
    """One narrow of `grad` per input of cat (an empty [0] input gets an empty gradient).

    Torch: cat_tensors_backward.
    """
    dim = _legacy_cat_wrap_dim(dim, sizes)
    grads: list[Tensor | None] = []
    offset = 0
    for size, dtype in zip(sizes, dtypes, strict=True):
        piece = _real_for(dtype, grad)
        if len(size) == 1 and size[0] == 0:
            grads.append(aten.new_zeros.default(piece, [0]))
            continue
        grads.append(aten.narrow.default(piece, dim, offset, size[dim]))
        offset += size[dim]
    return grads


def stack_tensors_backward(grad: Tensor, dim: int, dtypes: Sequence[DType]) -> list[Tensor]:
    """One select of `grad` per stacked input. Torch: stack_tensors_backward."""
    return [
        _real_for(dtype, aten.select.int(grad, dim, i)) for i, dtype in enumerate(dtypes)
    ]


def block_diag_backward(
    grad: Tensor, sizes: Sequence[Sequence[int]], dtypes: Sequence[DType]
) -> list[Tensor]:
    """Each input's block of `grad`, reshaped to the input. Torch: block_diag_backward."""
    grads = []
    row = col = 0
    for size, dtype in zip(sizes, dtypes, strict=True):
        source = _real_for(dtype, grad)
        if len(size) == 1 and size[0] == 0:
            grads.append(aten.new_zeros.default(source, [0]))
            continue
        rows, cols = (size[0], size[1]) if len(size) == 2 else (1, size[0] if size else 1)
        block = aten.slice.Tensor(source, 0, row, row + rows, 1)
        block = aten.slice.Tensor(block, 1, col, col + cols, 1)
        grads.append(block if len(size) == 2 else aten.reshape.default(block, list(size)))
        row += rows
        col += cols
    return grads


# --- splits -----------------------------------------------------------------------------------


# --- reorders ---------------------------------------------------------------------------------


def repeat_backward(grad: Tensor, repeats: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """The tiles of `grad` summed onto one copy of the input. Torch: repeat_backward: the
    leading new dims summed away, then each repeated dim split as (repeat, size) and the
    repeat dims summed."""
    if 0 in repeats:
        return aten.new_zeros.default(grad, list(sizes))
    leading = len(repeats) - len(sizes)
    if leading:
        grad = aten.sum.dim_IntList(grad, list(range(leading)), False)
    shape: list[int] = []
    summed: list[int] = []
    for d, size in enumerate(sizes):
        if repeats[leading + d] != 1:
            shape.append(repeats[leading + d])
            summed.append(len(shape) - 1)
        shape.append(size)
    if not summed:
        return grad
    return aten.sum.dim_IntList(aten.reshape.default(grad, shape), summed, False)


# --- the views' backwards (for the *_copy ops) -------------------------------------------------


# --- distances --------------------------------------------------------------------------------


def cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, dist: Tensor) -> Tensor:
    """The gradient of cdist's first operand, of the batch-broadcast size of x1.

    Torch: _cdist_backward (Distance.cpp, cdist_backward_kernel): per pair, the gradient
    of the p-norm of x1[i] - x2[j]: zero for p = 0; sign(diff) for p = 1; diff / dist for
    p = 2; sign(diff) where |diff| is the max for p = inf; else
    diff * |diff|^(p-2) / dist^(p-1); a pair at distance 0 contributes 0.
    """
    diff = aten.sub.Tensor(aten.unsqueeze.default(x1, -2), aten.unsqueeze.default(x2, -3))
    g = aten.unsqueeze.default(grad, -1)
    d = aten.unsqueeze.default(dist, -1)
    zero = aten.eq.Scalar(d, 0)
    if p == 0:
        term = aten.mul.Scalar(diff, 0)
    elif p == 1:
        term = aten.mul.Tensor(g, aten.sign.default(diff))
    elif p == 2:
        term = aten.mul.Tensor(g, aten.div.Tensor(diff, d))
    elif math.isinf(p):
        at_max = aten.eq.Tensor(aten.abs.default(diff), d)
        term = aten.mul.Tensor(aten.mul.Tensor(g, aten.sign.default(diff)), at_max)
    else:
        power = aten.pow.Tensor_Scalar(aten.abs.default(diff), p - 1)
        numerator = aten.mul.Tensor(aten.mul.Tensor(aten.sign.default(diff), power), g)
        term = aten.div.Tensor(numerator, aten.pow.Tensor_Scalar(d, p - 1))
        if p < 1:
            zero = aten.logical_or.default(zero, aten.eq.Scalar(diff, 0))
    term = aten.where.self(zero, aten.new_zeros.default(term, []), term)
    return aten.sum.dim_IntList(term, [-2], False)


def euclidean_dist_backward(
    grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor
) -> tuple[Tensor, Tensor]:
    """Torch: _euclidean_dist_backward (grad / dist, 0 where the distance is 0)."""
    ratio = aten.div.Tensor(grad, result)
    zeros = aten.new_zeros.default(ratio, [])
    ratio = aten.where.self(aten.eq.Scalar(result, 0), zeros, ratio)
    first = aten.sub.Tensor(
        aten.mul.Tensor(x1, aten.sum.dim_IntList(ratio, [-1], True)), aten.matmul.default(ratio, x2)
    )
    ratio_t = aten.transpose.int(ratio, -2, -1)
    second = aten.sub.Tensor(
        aten.mul.Tensor(x2, aten.unsqueeze.default(aten.sum.dim_IntList(ratio, [-2], False), -1)),
        aten.matmul.default(ratio_t, x1),
    )
    return first, second

