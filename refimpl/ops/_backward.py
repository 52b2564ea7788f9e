"""The helper functions derivative formulas share.

Torch: torch/csrc/autograd/FunctionsManual.cpp (handle_r_to_c, maybe_multiply, sum_backward,
mm_mat1_backward, ...) and the at::sum_to of ExpandUtils.h. Each takes and returns tensors
(refimpl.Tensor at runtime) and calls ops through the dispatcher, so a backward pass built
from them is recorded when `create_graph=True`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from refimpl._base.dtypes import DType, int64
from refimpl.dispatch.overloads import namespace

aten = namespace("aten")

_INT64 = int64
_INT64_MAX = 2**63 - 1


def _wrap(dim: int, rank: int) -> int:
    return dim % rank if rank else 0

Tensor: TypeAlias = Any
"""A refimpl.Tensor (the API class, which the ops layer does not import)."""
Scalar: TypeAlias = bool | int | float | complex


def handle_r_to_c(self_dtype: DType | None, grad: Tensor) -> Tensor:
    """The real part of a complex gradient for a real input. Torch: handle_r_to_c."""
    if grad is None or self_dtype is None or self_dtype.is_complex or not grad._dtype.is_complex:
        return grad
    return aten.real.default(grad)


def maybe_multiply(grad: Tensor, value: Scalar) -> Tensor:
    """`grad * value`, or `grad` itself for a value of 1. Torch: maybe_multiply (exactly:
    an integral or bool 1 skips the product; 1.0 does not)."""
    if (type(value) is int or type(value) is bool) and value == 1:
        return grad
    return aten.mul.Scalar(grad, value)


def conj_scalar(value: Scalar) -> Scalar:
    """Torch: Scalar::conj."""
    return value.conjugate() if isinstance(value, complex) else value


def conj(value: Tensor | Scalar) -> Tensor | Scalar:
    """The conjugate of a tensor, or of a Python number given for a Tensor argument (torch
    wraps it in a tensor; refimpl's ops take the number itself). Torch: Tensor.conj."""
    if isinstance(value, (bool, int, float, complex)):
        return conj_scalar(value)
    return aten.conj.default(value)


def sum_to(grad: Tensor, size: Sequence[int]) -> Tensor:
    """`grad` summed down to `size` (which broadcasts to grad's shape). Torch: at::sum_to."""
    size = tuple(size)
    if not size:
        return aten.sum.default(grad)  # torch: sum_to of an empty shape is tensor.sum()
    leading = len(grad._size) - len(size)
    dims = list(range(leading)) + [
        leading + i for i, n in enumerate(size) if n == 1 and grad._size[leading + i] != 1
    ]
    if not dims:
        return grad
    reduced = aten.sum.dim_IntList(grad, dims, True)
    return aten.view.default(reduced, list(size)) if leading else reduced


def unsqueeze_multiple(grad: Tensor, dims: Sequence[int] | None, rank: int) -> Tensor:
    """`grad` with a dim of size 1 put back at each of `dims` (None: every dim). Torch:
    unsqueeze_multiple."""
    wrapped = sorted(d % rank for d in (range(rank) if dims is None else dims)) if rank else []
    for d in wrapped:
        grad = aten.unsqueeze.default(grad, d)
    return grad


def sum_backward(grad: Tensor, sizes: Sequence[int], dims: Sequence[int] | None, keepdim: bool) -> Tensor:
    """The gradient of a sum over `dims`: `grad` broadcast back. Torch: sum_backward."""
    if not keepdim and len(sizes) > 0:
        if dims is None or len(dims) == 0:
            return aten.expand.default(grad, list(sizes))
        grad = unsqueeze_multiple(grad, dims, len(sizes))
    return aten.expand.default(grad, list(sizes))


def mm_mat1_backward(
    grad: Tensor, mat2: Tensor, sizes: Sequence[int], strides: Sequence[int], alpha: Scalar
) -> Tensor:
    """The gradient of mm's first operand. Torch: mm_mat1_backward (a column-major input
    gets its gradient column-major)."""
    if strides[0] == 1 and strides[1] == sizes[0]:
        product = aten.t.default(aten.mm.default(aten.conj.default(mat2), aten.t.default(grad)))
        return maybe_multiply(product, conj_scalar(alpha))
    product = aten.mm.default(grad, aten.conj.default(aten.t.default(mat2)))
    return maybe_multiply(product, conj_scalar(alpha))


def mm_mat2_backward(
    grad: Tensor, mat1: Tensor, sizes: Sequence[int], strides: Sequence[int], alpha: Scalar
) -> Tensor:
    """The gradient of mm's second operand. Torch: mm_mat2_backward."""
    if strides[0] == 1 and strides[1] == sizes[0]:
        product = aten.t.default(aten.mm.default(aten.t.default(grad), aten.conj.default(mat1)))
        return maybe_multiply(product, conj_scalar(alpha))
    product = aten.mm.default(aten.conj.default(aten.t.default(mat1)), grad)
    return maybe_multiply(product, conj_scalar(alpha))


# --- views ---------------------------------------------------------------------------------


def permute_backwards(grad: Tensor, dims: Sequence[int]) -> Tensor:
    """`grad` permuted back. Torch: permute_backwards."""
    rank = len(dims)
    inverse = [0] * rank
    for i, d in enumerate(dims):
        inverse[d % rank if rank else 0] = i
    return aten.permute.default(grad, inverse)


def unsqueeze_to(grad: Tensor, sizes: Sequence[int], dims: Sequence[int] | int | None = None) -> Tensor:
    """`grad` with the size-1 dims a squeeze removed put back. Torch: unsqueeze_to (the
    every-dim form, and the dim / dims forms, which only restore dims that were 1)."""
    rank = len(sizes)
    candidates: Sequence[int]
    if dims is None:
        candidates = range(rank)
    else:
        listed = [dims] if isinstance(dims, int) else list(dims)
        candidates = sorted({d % rank for d in listed}) if rank else []
    for d in candidates:
        if sizes[d] == 1:
            grad = aten.unsqueeze.default(grad, d)
    return grad


def _zeros(grad: Tensor, sizes: Sequence[int]) -> Tensor:
    return aten.new_zeros.default(grad, list(sizes))


def select_backward(grad: Tensor, sizes: Sequence[int], dim: int, index: int) -> Tensor:
    """Zeros of the input's size with `grad` at `index` of `dim`. Torch: the select_backward
    op (ops/view_scatter.py)."""
    return aten.select_backward.default(grad, list(sizes), dim, index)


def slice_backward(
    grad: Tensor, sizes: Sequence[int], dim: int, start: int | None, end: int | None, step: int
) -> Tensor:
    """`grad` scattered into zeros of the input's size. Torch: slice_backward_wrapper, which
    fills in a missing start or end and calls the slice_backward op."""
    start = 0 if start is None else start
    end = _INT64_MAX if end is None else end
    return aten.slice_backward.default(grad, list(sizes), dim, start, end, step)


def diagonal_backward(
    grad: Tensor, sizes: Sequence[int], offset: int, dim1: int, dim2: int
) -> Tensor:
    """Zeros of the input's size with `grad` on the diagonal. Torch: diagonal_backward."""
    return aten.diagonal_scatter.default(_zeros(grad, sizes), grad, offset, dim1, dim2)


def as_strided_backward(
    grad: Tensor,
    geometry: tuple[tuple[int, ...], tuple[int, ...], int],
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None,
) -> Tensor:
    """The gradient of an as_strided view with respect to the tensor it was taken from.

    Torch: as_strided_backward. Each element of `grad` is added at the storage position its
    element of the view reads (several, where the view's elements overlap); the input's
    elements then read their positions, each position's sum split evenly among the input's
    elements that share it.
    """
    in_size, in_stride, in_offset = geometry
    offset = in_offset if storage_offset is None else storage_offset
    extent = max(
        _extent(in_size, in_stride, in_offset), _extent(tuple(size), tuple(stride), offset)
    )
    flat = _zeros(grad, [extent])
    if _overlaps(tuple(size), tuple(stride)):
        positions = _positions(grad, tuple(size), tuple(stride), offset)
        flat = aten.index_add.default(flat, 0, positions, aten.reshape.default(grad, [-1]))
    else:
        flat = aten.as_strided_scatter.default(flat, grad, list(size), list(stride), offset)
    result = aten.as_strided.default(flat, list(in_size), list(in_stride), in_offset)
    if _overlaps(tuple(in_size), tuple(in_stride)):
        positions = _positions(grad, tuple(in_size), tuple(in_stride), in_offset)
        ones = aten.ones_like.default(aten.reshape.default(result, [-1]))
        count = aten.index_add.default(_zeros(grad, [extent]), 0, positions, ones)
        shared = aten.as_strided.default(count, list(in_size), list(in_stride), in_offset)
        result = aten.div.Tensor(result, shared)
    return result


def _overlaps(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether two elements of the geometry may share a storage position (torch's
    as_strided_backward asks the same of both geometries)."""
    dims = sorted((s, n) for n, s in zip(size, stride, strict=True) if n > 1)
    span = 1
    for s, n in dims:
        if s < span:
            return True
        span = s * (n - 1) + span
    return False


def _positions(like: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
    """The storage position of each element of a geometry, row-major, as an int64 tensor
    (built from ops, as torch builds it from arange)."""
    total = aten.scalar_tensor.default(offset, dtype=_INT64, device=like._storage.device)
    for d, (n, s) in enumerate(zip(size, stride, strict=True)):
        steps = aten.sub.Scalar(aten.cumsum.default(_ones_int(like, n), 0), 1)
        shape = [1] * len(size)
        shape[d] = n
        total = aten.add.Tensor(total, aten.view.default(aten.mul.Scalar(steps, s), shape))
    return aten.reshape.default(aten.expand.default(total, list(size)), [-1])


def _ones_int(like: Tensor, n: int) -> Tensor:
    return aten.ones.default([n], dtype=_INT64, device=like._storage.device)


def _extent(size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> int:
    if any(n == 0 for n in size):
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))


def unfold_backward(
    grad: Tensor, sizes: Sequence[int], dimension: int, size: int, step: int
) -> Tensor:
    """The windows' gradients added back at their places: window element k of every
    window lands on positions k, k + step, ... of `dimension`. Torch: unfold_backward (an
    aten op there; a sum of strided scatters here)."""
    dim = _wrap(dimension, len(sizes))
    windows = grad._size[dim] if sizes else 1
    zeros = aten.new_zeros.default(grad, list(sizes))
    result = zeros
    for k in range(size):
        element = aten.select.int(grad, -1, k)
        if not sizes:
            return aten.add.Tensor(zeros, element)
        placed = aten.slice_scatter.default(
            zeros, element, dim, k, k + (windows - 1) * step + 1, step
        )
        result = aten.add.Tensor(result, placed)
    return result


def split_with_sizes_backward(
    grads: Sequence[Tensor | None], split_sizes: Sequence[int], dim: int, sizes: Sequence[int]
) -> Tensor:
    """The pieces' gradients joined back along `dim`, zeros for a piece without one.

    Torch: split_with_sizes_backward (its zeros take the options of a defined gradient here:
    they are self's, the pieces' dtype and device).
    """
    dim = _wrap(dim, len(sizes))
    defined = next(g for g in grads if g is not None)
    pieces = []
    for grad, length in zip(grads, split_sizes, strict=True):
        if grad is None:
            shape = list(sizes)
            shape[dim] = length
            grad = aten.new_zeros.default(defined, shape)
        pieces.append(grad)
    return aten.cat.default(pieces, dim)


def split_backward(
    grads: Sequence[Tensor | None], split_size: int, dim: int, sizes: Sequence[int]
) -> Tensor:
    """Torch: split_backward (the last piece takes what is left of the dim)."""
    dim = _wrap(dim, len(sizes))
    count = len(grads)
    split_sizes = [split_size] * count
    split_sizes[-1] = split_size - (split_size * count - sizes[dim])
    return split_with_sizes_backward(grads, split_sizes, dim, sizes)


def unbind_backward(grads: Sequence[Tensor | None], dim: int) -> Tensor:
    """The slices' gradients stacked, zeros for slices without one (shaped as one that has
    one: the node runs only when some gradient is defined). Torch: unbind_backward."""
    defined = next(g for g in grads if g is not None)
    filled = [aten.zeros_like.default(defined) if g is None else g for g in grads]
    return aten.stack.default(filled, dim)
