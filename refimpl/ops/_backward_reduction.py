"""The helper functions of the reductions', scans' and order statistics' derivative formulas.

Torch: torch/csrc/autograd/FunctionsManual.cpp (restore_reduced_dims, scale_grad_by_count,
evenly_distribute_backward, value_selecting_reduction_backward, mean_backward, prod_backward,
norm_backward, var_backward, logsumexp_backward, cummaxmin_backward, logcumsumexp_backward,
trace_backward, renorm_backward, ...) and aten/src/ATen/native/ReduceOps.cpp
(cumprod_backward, reversed_cumsum). Each takes and returns tensors (refimpl.Tensor at
runtime) and calls ops through the dispatcher, so a backward pass built from them is itself
recorded when `create_graph=True`.

Torch writes several of these with in-place ops on fresh tensors (`masked_fill_`,
`scatter_`); here they are the out-of-place ops (torch's own choice for tensor subclasses):
the same values, and a backward graph with the same node names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex32,
    complex64,
    complex128,
    float16,
    float32,
    float64,
)
from refimpl._base.finfo import finfo
from refimpl.ops._backward import Scalar, Tensor, aten, conj, sum_backward, unsqueeze_multiple

Dims = Sequence[int] | None


def _rank(t: Tensor) -> int:
    return len(t._size)


def _wrap(dim: int, rank: int) -> int:
    # torch: maybe_wrap_dim (a 0-dim tensor takes dim 0 and -1).
    return dim % rank if rank else 0


def _numel(sizes: Sequence[int]) -> int:
    n = 1
    for size in sizes:
        n *= size
    return n


def _divide(a: float, b: float) -> float:
    """`a / b` as C++ doubles divide (a zero divisor gives an infinity or NaN)."""
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _is_true(t: Tensor) -> bool:
    # torch: Tensor::item<bool>() of a 0-dim bool tensor.
    return bool(aten.item.default(t))


def safe_size(sizes: Sequence[int], dims: Sequence[int]) -> int:
    """The number of elements a reduction over `dims` combines. Torch: _safe_size."""
    if not sizes:
        return 1
    size = 1
    for d in dims:
        size *= sizes[_wrap(d, len(sizes))]
    return size


def restore_reduced_dims(output: Tensor, dims: Sequence[int], keepdim: bool) -> Tensor:
    """`output` reshaped with a dim of size 1 at each reduced dim. Torch: restore_reduced_dims."""
    if keepdim:
        return output
    total = _rank(output) + len(dims)
    target = [0] * total
    for d in dims:
        target[d + total if d < 0 else d] = 1
    j = 0
    for size in output._size:
        while target[j] > 0:
            j += 1
        target[j] = size
        j += 1
    return aten.reshape.default(output, target)


def scale_grad_by_count(grad: Tensor, mask: Tensor, dims: Sequence[int]) -> Tensor:
    """`grad` shared evenly among the positions of `mask`. Torch: scale_grad_by_count."""
    count = aten.sum.dim_IntList(mask, list(dims), True)
    return aten.mul.Tensor(aten.div.Tensor(grad, count), mask)


def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """The gradient of a full reduction selecting `value` (max, min, median): shared evenly
    among the elements equal to it (or NaN, when it is NaN). Torch: evenly_distribute_backward
    (its CPU branch)."""
    nan_value = _is_true(aten.isnan.default(value))
    mask = aten.isnan.default(input) if nan_value else aten.eq.Tensor(input, value)
    share = aten.div.Tensor(grad, aten.sum.default(mask))
    zeros = aten.new_zeros.default(grad, list(input._size), dtype=input._dtype)
    return aten.masked_fill.Tensor(zeros, mask, share)


def value_selecting_reduction_backward(
    grad: Tensor, dim: int, indices: Tensor, sizes: Sequence[int], keepdim: bool
) -> Tensor:
    """The gradient of a reduction over `dim` that selects one element (max.dim, median.dim,
    kthvalue, mode): `grad` put back at `indices`. Torch: value_selecting_reduction_backward."""
    if not keepdim and len(sizes) > 0:
        grad = aten.unsqueeze.default(grad, dim)
        indices = aten.unsqueeze.default(indices, dim)
    zeros = aten.new_zeros.default(grad, list(sizes))
    return aten.scatter.src(zeros, dim, indices, grad)


def mean_backward(
    grad: Tensor, sizes: Sequence[int], dims: Dims, numel: int, keepdim: bool
) -> Tensor:
    """Torch: mean_backward."""
    n = numel if not dims else safe_size(sizes, dims)  # no dims: every element
    return aten.div.Scalar(sum_backward(grad, sizes, dims, keepdim), n)


def nansum_backward(grad: Tensor, self: Tensor, dims: Dims, keepdim: bool) -> Tensor:
    """Torch: nansum_backward (no gradient to the NaNs)."""
    expanded = sum_backward(grad, self._size, dims, keepdim)
    return aten.mul.Tensor(expanded, aten.logical_not.default(aten.isnan.default(self)))


# --- prod --------------------------------------------------------------------------------------


def prod_safe_zeros_backward(grad: Tensor, inp: Tensor, dim: int) -> Tensor:
    """The gradient of a product over `dim` as exclusive products from both sides (right with
    zeros in the input). Torch: prod_safe_zeros_backward."""
    if _numel(inp._size) == 0:
        return aten.expand.default(grad, list(inp._size))
    ones_size = list(inp._size)
    ones_size[dim] = 1
    ones = aten.new_ones.default(grad, ones_size)
    length = inp._size[dim]
    before = aten.cat.default([ones, aten.narrow.default(inp, dim, 0, length - 1)], dim)
    exclusive_normal = aten.cumprod.default(before, dim)
    after = aten.flip.default(aten.narrow.default(inp, dim, 1, length - 1), [dim])
    exclusive_reverse_nocp = aten.cat.default([ones, after], dim)
    exclusive_reverse = aten.flip.default(aten.cumprod.default(exclusive_reverse_nocp, dim), [dim])
    return aten.mul.Tensor(grad, conj(aten.mul.Tensor(exclusive_normal, exclusive_reverse)))


def _has_zero(t: Tensor) -> bool:
    return _is_true(aten.any.default(aten.eq.Scalar(t, 0)))


def prod_backward(grad: Tensor, input: Tensor, result: Tensor) -> Tensor:
    """The gradient of the product of every element. Torch: prod_backward.

    Differs: torch returns zeros directly for two or more zeros when grad mode is off; the
    exclusive products give the same zeros (formulas here do not see grad mode).
    """
    if _rank(input) == 0:
        return grad
    if not _has_zero(input):
        return aten.mul.Tensor(grad, conj(aten.div.Tensor(result, input)))
    flat = aten.reshape.default(aten.contiguous.default(input), [-1])
    return aten.view.default(prod_safe_zeros_backward(grad, flat, 0), list(input._size))


def prod_dim_backward(
    grad: Tensor, input: Tensor, result: Tensor, dim: int, keepdim: bool
) -> Tensor:
    """The gradient of a product over `dim`. Torch: prod_backward (the dim overload)."""
    if _rank(input) == 0:
        return grad
    dim = _wrap(dim, _rank(input))
    if not keepdim:
        grad = aten.unsqueeze.default(grad, dim)
        result = aten.unsqueeze.default(result, dim)
    if not _has_zero(input):
        return aten.mul.Tensor(grad, conj(aten.div.Tensor(result, input)))
    return prod_safe_zeros_backward(grad, input, dim)


# --- norms ---------------------------------------------------------------------------------


def norm_backward(
    grad: Tensor,
    self: Tensor,
    p: Scalar | None,
    norm: Tensor,
    dim: Sequence[int] = (),
    keepdim: bool = True,
) -> Tensor | None:
    """The gradient of a p-norm over `dim`. Torch: norm_backward (None for p = 0: no
    gradient)."""
    order = 2.0 if p is None else float(p)  # type: ignore[arg-type]
    rank = _rank(self)
    if not keepdim and rank != 0 and len(dim) > 0:
        grad = unsqueeze_multiple(grad, dim, rank)
        norm = unsqueeze_multiple(norm, dim, rank)
    if order == 0.0:
        return None
    if order == 1.0:
        return aten.mul.Tensor(aten.sgn.default(self), grad)
    if order == 2.0:
        # torch: (self / norm).masked_fill_(norm == 0, 0), in place as torch's formula.
        ratio = aten.masked_fill_.Scalar(
            aten.div.Tensor(self, norm), aten.eq.Scalar(norm, 0), 0
        )
        return aten.mul.Tensor(grad, ratio)
    if math.isinf(order):
        # The derivative of amax(abs(self)), NaNs counted as the maximum.
        self_abs = aten.abs.default(self)
        mask = aten.logical_or.default(
            aten.eq.Tensor(self_abs, norm), aten.isnan.default(self_abs)
        )
        shared = scale_grad_by_count(grad, mask, dim)
        return aten.mul.Tensor(aten.sgn.default(self), shared)
    if order < 1.0:
        powered = aten.pow_.Scalar(aten.abs.default(self), order - 1)
        powered = aten.masked_fill_.Scalar(powered, aten.eq.Scalar(self, 0), 0)
        self_scaled = aten.mul.Tensor(aten.sgn.default(self), powered)
        scaled = aten.mul.Tensor(self_scaled, grad)
        return aten.mul.Tensor(scaled, aten.pow.Tensor_Scalar(norm, 1 - order))
    if order < 2.0:
        powered = aten.pow_.Scalar(aten.abs.default(self), order - 1)
        self_scaled = aten.mul.Tensor(aten.sgn.default(self), powered)
    else:
        powered = aten.pow_.Scalar(aten.abs.default(self), order - 2)
        self_scaled = aten.mul.Tensor(self, powered)
    scale_v = aten.div.Tensor(grad, aten.pow.Tensor_Scalar(norm, order - 1))
    scale_v = aten.masked_fill_.Scalar(scale_v, aten.eq.Scalar(norm, 0), 0)
    return aten.mul.Tensor(self_scaled, scale_v)


# torch: at::toAccumulateType(dtype, DeviceType::CPU).
_CPU_ACCUMULATE: Final[dict[DType, DType]] = {
    float16: float32,
    bfloat16: float32,
    float32: float64,
    float64: float64,
    complex32: complex64,
    complex64: complex128,
    complex128: complex128,
}

_REAL_OF: Final[dict[DType, DType]] = {complex64: float32, complex128: float64}


def renorm_backward(
    grad: Tensor, self: Tensor, p: Scalar, dim: int, maxnorm: Scalar
) -> Tensor:
    """Torch: renorm_backward."""
    rank = _rank(self)
    dim = _wrap(dim, rank)
    reduce_dims = [d for d in range(rank) if d != dim]
    acc_type = _CPU_ACCUMULATE.get(self._dtype, self._dtype)
    norm = aten.linalg_vector_norm.default(self, p, reduce_dims, True, dtype=acc_type)
    real_acc_type = _REAL_OF.get(acc_type, acc_type)
    grad_output = aten.mul.Tensor(conj(self), grad)
    if real_acc_type is not acc_type:
        grad_output = aten.real.default(grad_output)
    grad_output = aten.sum.dim_IntList(grad_output, reduce_dims, True, dtype=real_acc_type)
    nb = norm_backward(grad_output, self, p, norm, reduce_dims, True)
    invnorm = aten.reciprocal.default(aten.add.Scalar(norm, 1e-7))
    factor = aten.mul.Scalar(invnorm, maxnorm)
    scaled = aten.sub.Tensor(grad, aten.mul.Tensor(invnorm, nb)) if nb is not None else grad
    return aten.where.self(
        aten.gt.Scalar(norm, maxnorm), aten.mul.Tensor(factor, scaled), grad
    )


def logsumexp_backward(
    grad: Tensor, self: Tensor, result: Tensor, dim: Sequence[int], keepdim: bool
) -> Tensor:
    """Torch: logsumexp_backward."""
    rank = _rank(self)
    if not keepdim and rank != 0 and len(dim) > 0:
        grad = unsqueeze_multiple(grad, dim, rank)
        result = unsqueeze_multiple(result, dim, rank)
    return aten.mul.Tensor(grad, conj(aten.exp.default(aten.sub.Tensor(self, result))))


# --- var, std --------------------------------------------------------------------------------


def var_backward(
    grad: Tensor, self: Tensor, dim: Dims, correction: Scalar | None, keepdim: bool
) -> Tensor:
    """Torch: var_backward."""
    c = 1.0 if correction is None else float(correction)  # type: ignore[arg-type]
    rank = _rank(self)
    if rank == 0 or dim is None:
        dof = _numel(self._size) - c
        centered_on = aten.mean.default(self)
        if dof <= 0:
            # torch: 2 / dof is infinite: NaN where self is its mean (inf * 0), else inf.
            flags = aten.where.Scalar(aten.eq.Tensor(self, centered_on), math.nan, math.inf)
            return aten.mul.Tensor(grad, flags)
        # torch: (2 / dof) * grad * (self - self.mean()); C++ evaluates the right operand of
        # the last product first (GCC), so the centering comes before the scaling.
        centered = aten.sub.Tensor(self, centered_on)
        return aten.mul.Tensor(aten.mul.Scalar(grad, 2.0 / dof), centered)
    if not keepdim and rank > 1 and len(dim) > 0:
        grad = unsqueeze_multiple(grad, dim, rank)
    rnumel = float(safe_size(self._size, dim))
    centered = aten.sub.Tensor(self, aten.mean.dim(self, list(dim), True))
    return aten.mul.Tensor(aten.mul.Scalar(grad, _divide(2.0, rnumel - c)), centered)


def std_backward(
    result: Tensor,
    grad: Tensor,
    self: Tensor,
    dim: Dims,
    correction: Scalar | None,
    keepdim: bool,
) -> Tensor:
    """Torch: std_backward."""
    grad_var = aten.div.Tensor(grad, aten.mul.Scalar(result, 2))
    grad_var = aten.masked_fill.Scalar(grad_var, aten.eq.Scalar(result, 0), 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def with_mean_backward(
    gself: Tensor | None, gmean: Tensor | None, self: Tensor, dim: Dims, keepdim: bool
) -> Tensor | None:
    """The mean output's share of var_mean's (std_mean's) gradient added to the first
    output's. Torch: the tail of var_mean_backward / std_mean_backward."""
    if gmean is None:
        return gself
    aux = mean_backward(gmean, self._size, dim or [], _numel(self._size), keepdim)
    return aux if gself is None else aten.add.Tensor(gself, aux)


# --- scans ---------------------------------------------------------------------------------


def reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    """Torch: reversed_cumsum in ReduceOps.cpp."""
    flipped = aten.cumsum.default(aten.flip.default(w, [dim]), dim)
    return aten.flip.default(flipped, [dim])


def cumsum_backward(grad: Tensor, dim: int) -> Tensor:
    """Torch: cumsum_backward."""
    if _numel(grad._size) <= 1 or grad._size[_wrap(dim, _rank(grad))] == 1:
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad: Tensor, input: Tensor, dim: int, output: Tensor) -> Tensor:
    """Torch: cumprod_backward in ReduceOps.cpp.

    Differs: with zeros in the input torch takes an O(n) path when grad mode is off and the
    O(n^2) differentiable one when it is on; here always the latter (the same values;
    formulas do not see grad mode).
    """
    if _numel(input._size) <= 1:
        return grad
    dim = _wrap(dim, _rank(input))
    dim_size = input._size[dim]
    if dim_size == 1:
        return grad
    input_conj = conj(input)
    output_conj = conj(output)
    w = aten.mul.Tensor(output_conj, grad)
    if not _has_zero(input):
        return aten.div.Tensor(reversed_cumsum(w, dim), input_conj)
    ones_size = list(input._size)
    ones_size[dim] = 1
    ones = aten.expand.default(aten.new_ones.default(grad, [1]), ones_size)
    slices = []
    for k in range(dim_size):
        if k == 0:
            prods_from_k_plus_1 = aten.cumprod.default(
                aten.slice.Tensor(input_conj, dim, k + 1), dim
            )
            omitted = aten.cat.default([ones, prods_from_k_plus_1], dim)
        else:
            prods_until_k = aten.prod.dim_int(aten.slice.Tensor(input_conj, dim, 0, k), dim, True)
            if k == dim_size - 1:
                omitted = prods_until_k
            else:
                prods_from_k_plus_1 = aten.cumprod.default(
                    aten.slice.Tensor(input_conj, dim, k + 1), dim
                )
                expanded = aten.expand.default(prods_until_k, list(prods_from_k_plus_1._size))
                omitted = aten.cat.default(
                    [prods_until_k, aten.mul.Tensor(expanded, prods_from_k_plus_1)], dim
                )
        product = aten.mul.Tensor(aten.slice.Tensor(grad, dim, k), omitted)
        slices.append(aten.sum.dim_IntList(product, [dim]))
    return aten.stack.default(slices, dim)


def cummaxmin_backward(grad: Tensor, input: Tensor, indices: Tensor, dim: int) -> Tensor:
    """Torch: cummaxmin_backward.

    Differs: for an empty input torch returns the input itself as its gradient; here an
    empty tensor of zeros (the same values).
    """
    zeros = aten.new_zeros.default(input, list(input._size))
    if _numel(input._size) == 0:
        return zeros
    return aten.scatter_add.default(zeros, dim, indices, grad)


def logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """Torch: logcumsumexp_backward (after TensorFlow's: positive and negative parts of a real
    gradient each through a reversed logcumsumexp)."""
    if _rank(grad) == 0 or _numel(grad._size) == 0:
        return grad

    def reverse_logcumsumexp(x: Tensor) -> Tensor:
        inner = aten.logcumsumexp.default(aten.flip.default(x, [dim]), dim)
        return aten.flip.default(inner, [dim])

    def part(log_grad: Tensor) -> Tensor:
        summed = reverse_logcumsumexp(aten.sub.Tensor(log_grad, result))
        return aten.exp.default(aten.add.Tensor(summed, self))

    if not grad._dtype.is_complex:
        lowest = finfo(grad._dtype).min
        log_abs_grad = aten.log.default(aten.abs.default(grad))
        positive = aten.where.ScalarOther(aten.gt.Scalar(grad, 0), log_abs_grad, lowest)
        negative = aten.where.ScalarOther(aten.lt.Scalar(grad, 0), log_abs_grad, lowest)
        return aten.sub.Tensor(part(positive), part(negative))
    return aten.conj.default(part(aten.log.default(aten.conj.default(grad))))


def trace_backward(grad: Tensor, sizes: Sequence[int]) -> Tensor:
    """Torch: trace_backward_symint.

    Differs: torch fills the diagonal of a flattened zeros tensor with index_fill at
    arange(0, numel, cols + 1) (refimpl has no arange overload); here where() on an identity
    mask gives the same values.
    """
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    rows, cols = sizes
    diagonal = aten.eye.m(rows, cols, dtype=bool_)
    return aten.where.ScalarOther(diagonal, grad, 0)
