"""The helper functions the derivative formulas of the indexing, gather and scatter ops share.

Torch: the functions of torch/csrc/autograd/FunctionsManual.cpp that the derivatives.yaml
entries of index, gather, take, masked_select, scatter_reduce and index_reduce call
(index_backward, take_backward, scatter_reduce_backward, index_reduce_backward), and the
backward ops of aten/src/ATen/native/TensorAdvancedIndexing.cpp (gather_backward,
index_select_backward, masked_select_backward, masked_scatter_backward) as the formulas run
them. Each calls ops through the dispatcher only, so a backward pass built from them is
recorded when `create_graph=True`; where torch writes into a fresh zero tensor in place
(`result.scatter_add_(...)`), so does refimpl, so the second-order graph has torch's nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.python_dispatch import is_tensor_subclass_like
from refimpl.ops._backward import Tensor

aten = namespace("aten")

Indices = Sequence[Any]
"""A `Tensor?[]` index list: tensors, or None for a dim not indexed."""


def _zeros(like: Tensor, size: Sequence[int]) -> Tensor:
    # torch: grad.new_zeros_symint(sizes, options): zeros of like's dtype and device.
    return aten.new_zeros.default(like, list(size))


def index_backward(zeros: Tensor, indices: Indices, grad: Tensor) -> Tensor:
    """`grad` accumulated into `zeros` at the indices. Torch: index_backward (dense inputs:
    `_index_put_impl_(zeros, indices, grad, accumulate=true, unsafe=true)`)."""
    return aten._index_put_impl_.default(zeros, list(indices), grad, True, True)


def gather_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor) -> Tensor:
    """`grad` summed into zeros of self's size at `index` along `dim`.

    Torch: gather_backward in TensorAdvancedIndexing.cpp (`result.scatter_add_(dim, index,
    grad)`). Differs: sparse_grad=True gives the same values as a strided tensor (refimpl has
    no sparse layout).
    """
    result = _zeros(grad, self._size)
    if is_tensor_subclass_like(index) or is_tensor_subclass_like(grad):
        # torch: out of place for subclasses and under dispatch modes (areAnyTensorSubclassLike).
        return aten.scatter_add.default(result, dim, index, grad)
    return aten.scatter_add_.default(result, dim, index, grad)


def index_select_backward(
    grad: Tensor, self_sizes: Sequence[int], dim: int, index: Tensor
) -> Tensor:
    """Torch: index_select_backward_symint (`zeros.index_add_(dim, index, grad)`)."""
    result = _zeros(grad, self_sizes)
    return aten.index_add_.default(result, dim, index, grad)


def masked_select_backward(grad: Tensor, self: Tensor, mask: Tensor) -> Tensor:
    """`grad` scattered into zeros of the broadcast shape where `mask` is True.

    Torch: masked_select_backward in TensorAdvancedIndexing.cpp (zeros of self expanded to
    infer_size(self, mask), then masked_scatter_).
    """
    shape = _broadcast(tuple(self._size), tuple(mask._size))
    result = _zeros(grad, shape)
    return aten.masked_scatter_.default(result, mask, grad)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    # torch: at::infer_size (the shapes were broadcast by the forward already).
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + a
    b = (1,) * (rank - len(b)) + b
    return tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))


def masked_scatter_backward_composite(grad: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    """The elements of `grad` where `mask` is True, padded with zeros to `sizes`' element
    count and viewed as `sizes`. Torch: masked_scatter_backward_symint."""
    numel = 1
    for n in sizes:
        numel *= n
    selected = aten.masked_select.default(grad, mask)
    missing = numel - selected._size[0]
    if missing > 0:
        zeros = _zeros(grad, (missing,))
        selected = aten.cat.default([selected, zeros], 0)
    return aten.view.default(selected, list(sizes))


def take_backward(grad: Tensor, self: Tensor, index: Tensor) -> Tensor:
    """Torch: take_backward (`zeros_like(self).put_(index, grad, true)`)."""
    result = aten.zeros_like.default(self)
    return aten.put_.default(result, index, grad, True)


# --- scatter_reduce, index_reduce -----------------------------------------------------------


class _Along:
    """The ops one reduce-backward runs along `dim` with `index`: scatter_reduce's (gather,
    scatter_add, scatter) or index_reduce's (index_select, index_add, index_fill)."""

    def __init__(self, dim: int, index: Tensor, scatter: bool) -> None:
        self.dim = dim
        self.index = index
        self.scatter = scatter

    def take(self, t: Tensor) -> Tensor:
        if self.scatter:
            return aten.gather.default(t, self.dim, self.index)
        return aten.index_select.default(t, self.dim, self.index)

    def add(self, t: Tensor, source: Tensor) -> Tensor:
        if self.scatter:
            return aten.scatter_add.default(t, self.dim, self.index, source)
        return aten.index_add.default(t, self.dim, self.index, source)

    def clear(self, t: Tensor) -> Tensor:
        if self.scatter:
            return aten.scatter.value(t, self.dim, self.index, 0)
        return aten.index_fill.int_Scalar(t, self.dim, self.index, 0)

    def reduce(self, t: Tensor, source: Tensor, reduce: str, include_self: bool) -> Tensor:
        if self.scatter:
            return aten.scatter_reduce.two(
                t, self.dim, self.index, source, reduce, include_self=include_self
            )
        return aten.index_reduce.default(
            t, self.dim, self.index, source, reduce, include_self=include_self
        )


def _as(t: Tensor, like: Tensor) -> Tensor:
    # torch: `t.to(self.scalar_type())`.
    return aten._to_copy.default(t, dtype=like._dtype)


def _prod_backward(
    grad: Tensor, self: Tensor, along: _Along, src: Tensor, include_self: bool, result: Tensor
) -> tuple[Tensor, Tensor]:
    # The product without each element, computed so that zeros in self or src are exact.
    masked_self = aten.masked_fill.Scalar(self, aten.eq.Scalar(self, 0), 1)
    masked_self_result = along.reduce(masked_self, src, "prod", include_self)
    grad_self = aten.div.Tensor(aten.mul.Tensor(grad, masked_self_result), masked_self)
    src_zero = aten.eq.Scalar(src, 0)
    src_num_zeros = along.take(along.add(aten.zeros_like.default(self), _as(src_zero, self)))
    src_single_zero = aten.bitwise_and.Tensor(src_zero, aten.eq.Scalar(src_num_zeros, 1))
    masked_src = aten.masked_fill.Scalar(src, src_single_zero, 1)
    masked_src_result = along.reduce(self, masked_src, "prod", include_self)
    # Differs: torch puts a DelayedError node on grad_src when more than one zero of src
    # reaches one position (its double backward is refused); refimpl computes it.
    grad_src = aten.where.self(
        src_single_zero,
        along.take(aten.mul.Tensor(grad, masked_src_result)),
        aten.div.Tensor(
            along.take(aten.mul.Tensor(grad, result)), aten.masked_fill.Scalar(src, src_zero, 1)
        ),
    )
    return grad_self, grad_src


def _mean_backward(
    grad: Tensor, self: Tensor, along: _Along, src: Tensor, include_self: bool, result: Tensor
) -> tuple[Tensor, Tensor]:
    start = aten.ones_like.default(grad) if include_self else aten.zeros_like.default(grad)
    counts = along.add(start, aten.ones_like.default(src))
    counts = aten.masked_fill_.Scalar(counts, aten.eq.Scalar(counts, 0), 1)
    grad_self = aten.div.Tensor(grad, counts)
    grad_src = aten.div.Tensor(along.take(grad), along.take(counts))
    return grad_self, grad_src


def _extreme_backward(
    grad: Tensor, self: Tensor, along: _Along, src: Tensor, include_self: bool, result: Tensor
) -> tuple[Tensor, Tensor]:
    # The gradient shared evenly among the elements equal to the result.
    value = along.take(result)
    self_is_result = aten.eq.Tensor(self, result)
    src_is_result = aten.eq.Tensor(src, value)
    count = along.add(_as(self_is_result, self), _as(src_is_result, self))
    distributed = aten.div.Tensor(grad, count)
    if along.scatter:
        # torch: scatter_reduce_backward multiplies by the bool masks.
        grad_self = aten.mul.Tensor(self_is_result, distributed)
        grad_src = aten.mul.Tensor(src_is_result, along.take(distributed))
    else:
        # torch: index_reduce_backward multiplies by the masks converted to self's dtype.
        grad_self = aten.mul.Tensor(_as(self_is_result, self), distributed)
        grad_src = aten.mul.Tensor(_as(src_is_result, self), along.take(distributed))
    return grad_self, grad_src


def _sum_backward(
    grad: Tensor, self: Tensor, along: _Along, src: Tensor, include_self: bool, result: Tensor
) -> tuple[Tensor, Tensor]:
    return grad, along.take(grad)


_REDUCE_BACKWARDS: Final[dict[str, Callable[..., tuple[Tensor, Tensor]]]] = {
    "sum": _sum_backward,
    "prod": _prod_backward,
    "mean": _mean_backward,
    "amax": _extreme_backward,
    "amin": _extreme_backward,
}


def scatter_reduce_backward(
    grad: Tensor,
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
) -> tuple[Tensor, Tensor]:
    """The gradients of self and src of scatter_reduce. Torch: scatter_reduce_backward."""
    backward = _REDUCE_BACKWARDS.get(reduce)
    if backward is None:
        raise RuntimeError(
            "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
            f"{reduce}."
        )
    along = _Along(dim, index, scatter=True)
    grad_self, grad_src = backward(grad, self, along, src, include_self, result)
    if not include_self:
        grad_self = along.clear(grad_self)
    return grad_self, grad_src


def index_reduce_backward(
    grad: Tensor,
    self: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
) -> tuple[Tensor, Tensor]:
    """The gradients of self and source of index_reduce. Torch: index_reduce_backward."""
    backward = _REDUCE_BACKWARDS.get(reduce) if reduce != "sum" else None
    if backward is None:
        raise RuntimeError(
            "Expected 'reduce' to be one of 'prod', 'amax', 'amin' or 'mean' but got "
            f"{reduce}."
        )
    along = _Along(dim, index, scatter=False)
    grad_self, grad_src = backward(grad, self, along, source, include_self, result)
    if not include_self:
        grad_self = along.clear(grad_self)
    return grad_self, grad_src
