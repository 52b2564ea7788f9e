"""Composite aten ops behind single torch.* functions: vander, _sparse_mm (torch.dsmm and
torch.spmm on dense tensors) and promote_types (the op vander calls).

Torch: vander in aten/src/ATen/native/TensorFactories.cpp, _sparse_mm in
aten/src/ATen/native/sparse/SparseTensorMath.cpp, promote_types in
aten/src/ATen/native/TypeProperties.cpp; all three are CompositeImplicitAutograd.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import DType
from refimpl._base.promotion import promote_types as promote
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- promote_types ---------------------------------------------------------------------------

promote_types = defop("promote_types(ScalarType type1, ScalarType type2) -> ScalarType")


@promote_types.decomposition
def promote_types_decomposition(type1: DType, type2: DType) -> DType:
    """The dtype both promote to. Torch: promote_types in TypeProperties.cpp."""
    return promote(type1, type2)


# --- vander ----------------------------------------------------------------------------------

vander = defop("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor")


@vander.decomposition
def vander_decomposition(
    x: TensorImpl, N: int | None, increasing: bool
) -> Any:  # the schema's names
    """The Vandermonde matrix of a 1-D `x`: column j is x**j (increasing) or x**(N-1-j).

    Torch: vander in TensorFactories.cpp: an empty (len(x), N) matrix of x's dtype promoted
    with int64 (so integer and bool inputs give int64, as cumprod would), column 0 filled with
    ones, columns 1.. the running product of x, then flipped unless `increasing`.
    """
    if len(x._size) != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._size[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dtype = aten.promote_types.default(x._dtype, dt.int64)
    result = aten.empty.memory_format(
        [x._size[0], n], dtype=dtype, layout=None, device=x._storage.device
    )
    if n > 0:
        aten.fill_.Scalar(aten.select.int(result, 1, 0), 1)
        if n > 1:
            tail = aten.slice.Tensor(result, 1, 1)
            aten.copy_.default(tail, aten.unsqueeze.default(x, 1))
            # torch: result.slice(1, 1).copy_(at::cumprod(result.slice(1, 1), 1)): the target
            # slice is taken first.
            target = aten.slice.Tensor(result, 1, 1)
            powers = aten.cumprod.default(aten.slice.Tensor(result, 1, 1), 1)
            aten.copy_.default(target, powers)
    if not increasing:
        return aten.flip.default(result, [1])
    return result


# --- _sparse_mm ------------------------------------------------------------------------------

_sparse_mm = defop("_sparse_mm(Tensor sparse, Tensor dense) -> Tensor")


@_sparse_mm.decomposition
def _sparse_mm_decomposition(sparse: TensorImpl, dense: TensorImpl) -> Any:
    """The matrix product; for two dense (strided) tensors, mm.

    Torch: _sparse_mm in SparseTensorMath.cpp: sparse operands go to the sparse kernels,
    dense ones to at::mm. refimpl has strided tensors only.
    """
    return aten.mm.default(sparse, dense)
