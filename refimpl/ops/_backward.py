"""The helper functions derivative formulas share.

Torch: torch/csrc/autograd/FunctionsManual.cpp (handle_r_to_c, maybe_multiply, sum_backward,
mm_mat1_backward, ...) and the at::sum_to of ExpandUtils.h. Each takes and returns tensors
(refimpl.Tensor at runtime) and calls ops through the dispatcher, so a backward pass built
from them is recorded when `create_graph=True`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from refimpl._base.dtypes import DType
from refimpl.dispatch.overloads import namespace

aten = namespace("aten")

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
    leading = len(grad._size) - len(size)
    dims = list(range(leading)) + [
        leading + i for i, n in enumerate(size) if n == 1 and grad._size[leading + i] != 1
    ]
    if not dims:
        return grad
    reduced = aten.sum.dim_IntList(grad, dims, True)
    return aten.view.default(reduced, list(size)) if leading else reduced


def unsqueeze_multiple(grad: Tensor, dims: Sequence[int] | None, rank: int) -> Tensor:
    """`grad` with a dim of size 1 put back at each reduced dim. Torch: unsqueeze_multiple."""
    wrapped = sorted(d % rank for d in (range(rank) if not dims else dims)) if rank else []
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
