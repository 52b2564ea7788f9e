"""_unsafe_masked_index and its backward, _unsafe_masked_index_put_accumulate.

Torch: _unsafe_masked_index and _unsafe_masked_index_put_accumulate in
aten/src/ATen/native/TensorAdvancedIndexing.cpp (CompositeExplicitAutograd), with their
derivatives.yaml entries. `_unsafe_masked_index(self, mask, indices, fill)` is
`where(mask, self[indices], fill)` where a masked-out position may hold an out-of-range index:
torch clamps every index into [-size, size - 1] of its dim, indexes, then fills where `mask`
is false. Indices under a true mask are assumed in range (torch does not check them). The
eager forms exist for compilers' decompositions; refimpl composes the same aten ops, so one
body serves data and meta tensors.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import int32, int64
from refimpl._base.keys import DispatchKey
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd

Indices = list[Any]
"""A `Tensor?[]` index list: tensors, or None for a dim not indexed."""

Scalar = bool | int | float | complex


def _clamped(self: TensorImpl, indices: Indices) -> Indices:
    """Each index clamped into its dim's [-size, size - 1]; int32/int64 only.

    Torch: the `clamp` lambda of both functions, applied with std::transform over
    (indices, self.sizes()), so indices past self's dims are dropped.
    """
    clamped: Indices = []
    for index, size in zip(indices, self._size):
        if index is None:
            clamped.append(None)
            continue
        if index._dtype not in (int64, int32):
            raise RuntimeError(
                f"_unsafe_masked_index found unexpected index type {index._dtype.scalar_name}"
            )
        clamped.append(aten.clamp.default(index, -size, size - 1))
    return clamped + list(indices[len(clamped) :])


_unsafe_masked_index = defop(
    "_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor"
)


@_unsafe_masked_index.kernel(CEA)
def _unsafe_masked_index_kernel(
    self: TensorImpl, mask: TensorImpl, indices: Indices, fill: Scalar
) -> Any:
    """`self[indices]` where `mask`, `fill` elsewhere. Torch: _unsafe_masked_index.

    An empty `self` has nothing to read: torch indexes a tensor of `fill` whose indexed
    empty dims are made length 1 (its way of getting the result's size).
    """
    clamped = _clamped(self, indices)
    if 0 in self._size:
        sizes = [
            1 if index is not None and size == 0 else size
            for index, size in zip(indices, self._size)
        ]
        # torch's vector of self.dim() zeros, the indexed dims overwritten
        sizes += [0] * (len(self._size) - len(sizes))
        filled = aten.new_full.default(self, sizes, fill)
        return aten.index.Tensor(filled, clamped)
    result = aten.index.Tensor(self, clamped)
    return aten.masked_fill.Scalar(result, aten.logical_not.default(mask), fill)


@_unsafe_masked_index.derivative("self")
def _unsafe_masked_index_backward(
    grad: Tensor, self_sym_sizes: list[int], mask: Tensor, indices: Indices
) -> Tensor:
    # torch: at::_unsafe_masked_index_put_accumulate(grad.new_zeros_symint(self.sym_sizes(),
    #   self.options()), mask, indices, grad)
    zeros = aten.new_zeros.default(grad, list(self_sym_sizes))
    result: Tensor = aten._unsafe_masked_index_put_accumulate.default(zeros, mask, indices, grad)
    return result


_unsafe_masked_index_put_accumulate = defop(
    "_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, "
    "Tensor values) -> Tensor"
)


@_unsafe_masked_index_put_accumulate.kernel(CEA)
def _unsafe_masked_index_put_accumulate_kernel(
    self: TensorImpl, mask: TensorImpl, indices: Indices, values: TensorImpl
) -> Any:
    """A copy of `self` with `values` added at the indices where `mask` holds.

    Torch: _unsafe_masked_index_put_accumulate (the backward of _unsafe_masked_index): an
    empty `self` is cloned; else the masked-out values become 0 and are accumulated with
    index_put at the clamped indices.
    """
    if 0 in self._size:
        return aten.clone.default(self)
    clamped = _clamped(self, indices)
    masked = aten.masked_fill.Scalar(values, aten.logical_not.default(mask), 0)
    return aten.index_put.default(self, clamped, masked, True)


@_unsafe_masked_index_put_accumulate.derivative("self")
def _unsafe_masked_index_put_accumulate_backward_self(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


@_unsafe_masked_index_put_accumulate.derivative("values")
def _unsafe_masked_index_put_accumulate_backward_values(
    grad: Tensor, mask: Tensor, indices: Indices
) -> Tensor:
    # torch: at::_unsafe_masked_index(grad, mask, indices, 0)
    result: Tensor = aten._unsafe_masked_index.default(grad, mask, indices, 0)
    return result
