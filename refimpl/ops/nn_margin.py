"""The aten ops beneath torch.nn.functional's distances (cosine_similarity, pairwise_distance,
pdist) and embedding losses (margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss,
triplet_margin_loss); the multi-class margin losses and ctc_loss are in nn_margin_multi.py and
nn_margin_ctc.py.

Torch: aten/src/ATen/native/Distance.cpp (cosine_similarity, pairwise_distance, pdist,
_pdist_forward, _pdist_backward), native/cpu/DistanceOpsKernel.cpp (the pdist kernels) and
native/Loss.cpp (the embedding losses). Every op here but _pdist_forward and _pdist_backward is
CompositeImplicitAutograd: a decomposition making torch's aten calls, so autograd and
TorchDispatchModes see the same ops as in torch.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import DType, float32, float64
from refimpl._base.memory_format import contiguous_format, preserve_format
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.grad_mode import GRAD_STATE
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace

# The multi-class margin losses and ctc_loss register their kernels on import.
from refimpl.ops import nn_margin_ctc, nn_margin_multi  # noqa: F401
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import not_implemented as derivative_not_implemented
from refimpl.ops._reduction import (
    finish,
    has_data,
    implements,
    input_array,
    not_implemented,
    same_as_out,
)
from refimpl.ops._register import defop
from refimpl.ops.data import broadcast_shapes

aten: Final = namespace("aten")


# --- the reduction argument ------------------------------------------------------------------


class Reduction(enum.Enum):
    """The `int reduction` of the loss schemas. Torch: at::Reduction (core/Reduction.h)."""

    NONE = 0
    MEAN = 1
    SUM = 2


# torch: apply_loss_reduction in aten/src/ATen/native/Loss.cpp (mean(), sum(), or as is).
_APPLY_REDUCTION: Final[dict[Reduction, Callable[[Any], Any]]] = {
    Reduction.NONE: lambda loss: loss,
    Reduction.MEAN: lambda loss: aten.mean.default(loss),
    Reduction.SUM: lambda loss: aten.sum.default(loss),
}


def apply_loss_reduction(loss: TensorImpl, reduction: int) -> Any:
    """`loss` reduced as `reduction` says. Torch: apply_loss_reduction (Loss.cpp)."""
    return _APPLY_REDUCTION[Reduction(reduction)](loss)


def _rsub(value: float, t: TensorImpl) -> Any:
    # torch: `double - Tensor` in C++ (ATen/TensorOperators.h):
    # at::empty_like(t).fill_(value).sub_(t).
    filled = aten.fill_.Scalar(aten.empty_like.default(t, memory_format=preserve_format), value)
    return aten.sub_.Tensor(filled, t)


def _clamped(t: TensorImpl) -> Any:
    # torch: `x.clamp_min_(0)` on a fresh temporary (autograd clones x first when it needs
    # grad, as for any in-place op whose formula reads the input).
    return aten.clamp_min_.default(t, 0)


# --- cosine_similarity -----------------------------------------------------------------------

cosine_similarity = defop(
    "cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor"
)


def _operand(t: TensorImpl) -> tuple[DType, OperandKind]:
    return t._dtype, OperandKind.DIMENSIONED if t._size else OperandKind.ZERO_DIM


@cosine_similarity.decomposition
def cosine_similarity_decomposition(
    x1: TensorImpl, x2: TensorImpl, dim: int = 1, eps: float = 1e-08
) -> Any:
    """<x1, x2> / (max(||x1||, eps) * max(||x2||, eps)) along `dim` of the broadcast shape.

    Torch: cosine_similarity in Distance.cpp: integral (and bool) inputs are converted to the
    common floating dtype; each input is divided by its clamped norm before the product (the
    norms are cloned, then clamped in place under NoGradGuard, so the clamp is not recorded).
    """
    common = result_type_of((_operand(x1), _operand(x2)))
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common.scalar_name}"
        )
    first = x1 if x1._dtype.is_floating_point or x1._dtype.is_complex else aten.to.dtype(x1, common)
    second = (
        x2 if x2._dtype.is_floating_point or x2._dtype.is_complex else aten.to.dtype(x2, common)
    )
    if first._size != second._size:
        # torch: expand_outplace expands both when the shapes differ.
        shape = list(broadcast_shapes(first._size, second._size))
        first = aten.expand.default(first, shape)
        second = aten.expand.default(second, shape)
    norm1 = aten.clone.default(aten.linalg_vector_norm.default(first, 2, [dim], True))
    norm2 = aten.clone.default(aten.linalg_vector_norm.default(second, 2, [dim], True))
    enabled = GRAD_STATE.enabled
    GRAD_STATE.enabled = False
    try:
        floor = aten.scalar_tensor.default(eps, dtype=norm1._dtype, device=norm1.device)
        aten.clamp_min_.Tensor(norm1, floor)
        aten.clamp_min_.Tensor(norm2, floor)
    finally:
        GRAD_STATE.enabled = enabled
    product = aten.mul.Tensor(aten.div.Tensor(first, norm1), aten.div.Tensor(second, norm2))
    return aten.sum.dim_IntList(product, [dim])


# --- pairwise_distance -----------------------------------------------------------------------

pairwise_distance = defop(
    "pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=9.9999999999999995e-07, "
    "bool keepdim=False) -> Tensor"
)


@pairwise_distance.decomposition
def pairwise_distance_decomposition(
    x1: TensorImpl, x2: TensorImpl, p: float = 2.0, eps: float = 1e-06, keepdim: bool = False
) -> Any:
    """The p-norm of `x1 - x2 + eps` along the last dim of the broadcast shape.

    Torch: pairwise_distance in Distance.cpp: at::norm(x1 - x2 + eps, p, innermost_dim, keepdim).
    """
    innermost = max(len(x1._size), len(x2._size)) - 1
    shifted = aten.add.Scalar(aten.sub.Tensor(x1, x2), eps)
    return aten.norm.ScalarOpt_dim(shifted, p, [innermost], keepdim)


# --- pdist, _pdist_forward, _pdist_backward --------------------------------------------------

pdist = defop("pdist(Tensor self, float p=2.) -> Tensor")
_pdist_forward = defop("_pdist_forward(Tensor self, float p=2.) -> Tensor")
_pdist_forward_out = defop(
    "_pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out) -> Tensor(a!)"
)
_pdist_backward = defop(
    "_pdist_backward(Tensor grad, Tensor self, float p, Tensor pdist) -> Tensor"
)
_pdist_backward_out = defop(
    "_pdist_backward.out(Tensor grad, Tensor self, float p, Tensor pdist, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)

# The dtypes of torch's CPU kernels (AT_DISPATCH_FLOATING_TYPES in DistanceOpsKernel.cpp).
_PDIST_DTYPES: Final = frozenset({float32, float64})


@pdist.decomposition
def pdist_decomposition(self: TensorImpl, p: float = 2.0) -> Any:
    """The distances between every pair of rows i < j. Torch: pdist in Distance.cpp: checks,
    then _pdist_forward(self.contiguous(), p)."""
    if len(self._size) != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {len(self._size)}D")
    if not self._dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return aten._pdist_forward.default(aten.contiguous.default(self), p)


def _pairs(n: int) -> tuple[list[int], list[int]]:
    """The row pairs (i, j), i < j, in the order of pdist's result (row-major upper triangle)."""
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    return first, second


def _pair_differences(xp: Any, a: Array, n: int) -> Array:
    # self[i] - self[j] for every pair, gathered with index arrays (no strided windows needed).
    first, second = _pairs(n)
    rows_i = xp.take(a, xp.asarray(first, dtype=xp.int64), axis=0)
    rows_j = xp.take(a, xp.asarray(second, dtype=xp.int64), axis=0)
    return rows_i - rows_j


def _pdist_values(xp: Any, diff: Array, p: float) -> Array:
    """Torch: the distance functors of DistanceOpsKernel.cpp (zdist counts the nonzero
    differences, odist sums them, tdist is the 2-norm, idist the largest, pdist the p-norm)."""
    magnitude = xp.abs(diff)
    if p == 0:
        return xp.sum(xp.astype(magnitude != 0, diff.dtype), axis=-1)
    if p == 1:
        return xp.sum(magnitude, axis=-1)
    if p == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=-1))
    if math.isinf(p):
        return xp.max(magnitude, axis=-1)
    exponent = xp.asarray(p, dtype=diff.dtype)
    return xp.sum(magnitude**exponent, axis=-1) ** (1 / exponent)


def _check_device(self: TensorImpl, name: str) -> None:
    device_type = self._storage.device.type
    if device_type not in ("cpu", "cuda", "meta"):
        raise RuntimeError(f"{name} only supports CPU and CUDA devices, got: {device_type}")


@implements(_pdist_forward)
def _pdist_forward_kernel(self: TensorImpl, p: float = 2.0) -> Any:
    """Torch: _pdist_forward in Distance.cpp (and meta__pdist_forward): a contiguous input of
    n rows gives n(n-1)/2 distances; no rows past the first, no distances; no columns, zeros."""
    if not self.is_contiguous():
        raise RuntimeError("_pdist_forward requires contiguous input")
    _check_device(self, "_pdist_forward")
    n = self._size[0]
    shape = (n * (n - 1) // 2,) if n > 1 else (0,)
    if not has_data(self):
        return finish(self, None, shape, self._dtype, None)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    if n > 1 and self._size[1] != 0 and self._dtype not in _PDIST_DTYPES:
        raise not_implemented("pdist", self._dtype)
    if n <= 1 or self._size[1] == 0:
        return finish(self, xp.zeros(shape), shape, self._dtype, None)
    a = input_array(self, self._dtype)
    return finish(self, _pdist_values(xp, _pair_differences(xp, a, n), p), shape, self._dtype, None)


@implements(_pdist_forward_out)
def _pdist_forward_out_kernel(self: TensorImpl, p: float = 2.0, *, out: TensorImpl) -> Any:
    """Torch: the generated out= form of a CompositeExplicitAutograd op."""
    return same_as_out(aten._pdist_forward.default(self, p), out)


@_pdist_forward.derivative("self")
def _pdist_forward_backward_self(grad: Tensor, self: Tensor, p: float, result: Tensor) -> Tensor:
    # torch: _pdist_backward(grad, self, p, result)
    return aten._pdist_backward.default(grad, self, p, result)


def _pair_gradients(xp: Any, diff: Array, grad: Array, dist: Array, p: float) -> Array:
    """Each pair's gradient with respect to self[i] (self[j] gets its negation).

    Torch: the `backward` of the distance functors in DistanceOpsKernel.cpp: odist
    sign(diff) grad; lttdist (p < 2) sign(diff) |diff|^(p-1) grad / dist^(p-1), 0 where
    diff is 0 and p < 1; tdist grad diff / dist; idist grad sign(diff) where |diff| is the
    largest; pdist diff |diff|^(p-2) grad / dist^(p-1); a zero distance gives 0.
    """
    g = grad[:, None]
    d = dist[:, None]
    zero = xp.zeros_like(diff)
    sign = xp.sign(diff)
    magnitude = xp.abs(diff)
    if p == 1:
        return g * sign
    if math.isinf(p):
        return xp.where(magnitude == d, g * sign, zero)
    safe = xp.where(d == 0, xp.ones_like(d), d)
    if p == 2:
        values = g * diff / safe
    else:
        exponent = xp.asarray(p, dtype=diff.dtype)
        if p < 2:
            values = sign * magnitude ** (exponent - 1) * g / safe ** (exponent - 1)
            if p < 1:
                values = xp.where(diff == 0, zero, values)
        else:
            values = diff * magnitude ** (exponent - 2) * g / safe ** (exponent - 1)
    return xp.where(d == 0, zero, values)


@implements(_pdist_backward)
def _pdist_backward_kernel(grad: TensorImpl, self: TensorImpl, p: float, pdist: TensorImpl) -> Any:
    """Torch: _pdist_backward in Distance.cpp (and meta__pdist_backward): each pair's
    gradient added to row i and subtracted from row j; zeros for p = 0 or no elements."""
    if not self.is_contiguous():
        raise RuntimeError("_pdist_backward requires self to be contiguous")
    if not pdist.is_contiguous():
        raise RuntimeError("_pdist_backward requires pdist to be contiguous")
    _check_device(self, "_pdist_backward")
    shape = self._size
    if not has_data(self):
        return finish(self, None, shape, self._dtype, None)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    if p == 0 or geometry.numel(grad._size) == 0 or geometry.numel(shape) == 0:
        return finish(self, xp.zeros(shape), shape, self._dtype, None)
    if self._dtype not in _PDIST_DTYPES:
        raise not_implemented("pdist_backward", self._dtype)
    for t in (grad, pdist):
        if t._dtype is not self._dtype:
            # torch: the kernel reads grad and pdist as self's scalar_t (data_ptr<scalar_t>).
            raise RuntimeError(
                f"expected scalar type {self._dtype.scalar_name} but found {t._dtype.scalar_name}"
            )
    n = shape[0]
    pairs = n * (n - 1) // 2
    if geometry.numel(grad._size) != pairs or geometry.numel(pdist._size) != pairs:
        # Differs: torch's kernel reads n(n-1)/2 values of each whatever their sizes.
        raise RuntimeError(
            f"_pdist_backward: expected grad and pdist to have {pairs} elements, got "
            f"{geometry.numel(grad._size)} and {geometry.numel(pdist._size)}"
        )
    a = input_array(self, self._dtype)
    diff = _pair_differences(xp, a, n)
    g = xp.reshape(input_array(grad, self._dtype), (-1,))
    dist = xp.reshape(input_array(pdist, self._dtype), (-1,))
    per_pair = _pair_gradients(xp, diff, g, dist, p)
    # Row i gains each of its pairs' gradients, row j loses them: an incidence matrix product.
    first, second = _pairs(n)
    rows = xp.arange(n, dtype=xp.int64)[:, None]
    plus = xp.astype(rows == xp.asarray(first, dtype=xp.int64)[None, :], a.dtype)
    minus = xp.astype(rows == xp.asarray(second, dtype=xp.int64)[None, :], a.dtype)
    return finish(self, xp.matmul(plus - minus, per_pair), shape, self._dtype, None)


@implements(_pdist_backward_out)
def _pdist_backward_out_kernel(
    grad: TensorImpl, self: TensorImpl, p: float, pdist: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form of a CompositeExplicitAutograd op."""
    return same_as_out(aten._pdist_backward.default(grad, self, p, pdist), out)


@_pdist_backward.derivative("grad", "self", "pdist")
def _pdist_backward_backward(grads: tuple[Any, ...]) -> Tensor:
    # torch: not_implemented("_pdist_backward") for each input.
    derivative_not_implemented("_pdist_backward")


# --- margin_ranking_loss ---------------------------------------------------------------------

margin_ranking_loss = defop(
    "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
    "int reduction=1) -> Tensor"
)


@margin_ranking_loss.decomposition
def margin_ranking_loss_decomposition(
    input1: TensorImpl,
    input2: TensorImpl,
    target: TensorImpl,
    margin: float = 0.0,
    reduction: int = 1,
) -> Any:
    """max(0, -target * (input1 - input2) + margin), reduced.

    Torch: margin_ranking_loss in Loss.cpp.
    """
    difference = aten.sub.Tensor(input1, input2)
    unclamped = aten.add.Scalar(aten.mul.Tensor(aten.neg.default(target), difference), margin)
    return apply_loss_reduction(_clamped(unclamped), reduction)


# --- hinge_embedding_loss --------------------------------------------------------------------

hinge_embedding_loss = defop(
    "hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=1) -> Tensor"
)


@hinge_embedding_loss.decomposition
def hinge_embedding_loss_decomposition(
    self: TensorImpl, target: TensorImpl, margin: float = 1.0, reduction: int = 1
) -> Any:
    """`self` where target is 1, max(0, margin - self) where it is -1 (both elsewhere), reduced.

    Torch: hinge_embedding_loss in Loss.cpp: where(target != 1, margin_clamp, 0)
    + where(target != -1, self, 0).
    """
    zeros = aten.zeros_like.default(self, memory_format=contiguous_format)
    margin_clamp = _clamped(_rsub(margin, self))
    output_margin = aten.where.self(aten.ne.Scalar(target, 1), margin_clamp, zeros)
    output_self = aten.where.self(aten.ne.Scalar(target, -1), self, zeros)
    return apply_loss_reduction(aten.add.Tensor(output_margin, output_self), reduction)


# --- cosine_embedding_loss -------------------------------------------------------------------

cosine_embedding_loss = defop(
    "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
    "int reduction=1) -> Tensor"
)

# torch: `static const float EPSILON = 1e-12` in Loss.cpp, passed on as a double.
_COSINE_EPSILON: Final = 9.999999960041972e-13


def _sizes(t: TensorImpl) -> str:
    return "[" + ", ".join(str(s) for s in t._size) + "]"


@cosine_embedding_loss.decomposition
def cosine_embedding_loss_decomposition(
    input1: TensorImpl,
    input2: TensorImpl,
    target: TensorImpl,
    margin: float = 0.0,
    reduction: int = 1,
) -> Any:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, reduced.

    Torch: cosine_embedding_loss in Loss.cpp (the cosine from sums of products, each squared
    magnitude plus EPSILON).
    """
    targ_dim = len(target._size)
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = 2 if targ_dim == 1 else 1
    if len(input1._size) != expected or len(input2._size) != expected:
        raise RuntimeError(
            f"{targ_dim}D target tensor expects {expected}D input tensors, but found inputs "
            f"with sizes {_sizes(input1)} and {_sizes(input2)}."
        )
    prod_sum = aten.sum.dim_IntList(aten.mul.Tensor(input1, input2), [targ_dim])
    mag_square1 = aten.add.Scalar(
        aten.sum.dim_IntList(aten.mul.Tensor(input1, input1), [targ_dim]), _COSINE_EPSILON
    )
    mag_square2 = aten.add.Scalar(
        aten.sum.dim_IntList(aten.mul.Tensor(input2, input2), [targ_dim]), _COSINE_EPSILON
    )
    denom = aten.sqrt_.default(aten.mul.Tensor(mag_square1, mag_square2))
    cos = aten.div.Tensor(prod_sum, denom)
    zeros = aten.zeros_like.default(cos, memory_format=contiguous_format)
    pos = _rsub(1, cos)
    neg = _clamped(aten.sub.Scalar(cos, margin))
    output_pos = aten.where.self(aten.eq.Scalar(target, 1), pos, zeros)
    output_neg = aten.where.self(aten.eq.Scalar(target, -1), neg, zeros)
    return apply_loss_reduction(aten.add.Tensor(output_pos, output_neg), reduction)


# --- triplet_margin_loss ---------------------------------------------------------------------

triplet_margin_loss = defop(
    "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., "
    "float p=2., float eps=9.9999999999999995e-07, bool swap=False, int reduction=1) -> Tensor"
)


@triplet_margin_loss.decomposition
def triplet_margin_loss_decomposition(
    anchor: TensorImpl,
    positive: TensorImpl,
    negative: TensorImpl,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-06,
    swap: bool = False,
    reduction: int = 1,
) -> Any:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), reduced; with `swap`, the
    negative distance is the smaller of d(anchor, negative) and d(positive, negative).

    Torch: triplet_margin_loss in Loss.cpp (pairwise_distance, at::min, clamp_min).
    """
    a_dim, p_dim, n_dim = len(anchor._size), len(positive._size), len(negative._size)
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs"
        )
    dist_pos = aten.pairwise_distance.default(anchor, positive, p, eps)
    dist_neg = aten.pairwise_distance.default(anchor, negative, p, eps)
    if swap:
        dist_swap = aten.pairwise_distance.default(positive, negative, p, eps)
        dist_neg = aten.minimum.default(dist_neg, dist_swap)
    loss = aten.sub.Tensor(aten.add.Scalar(dist_pos, margin), dist_neg)
    return apply_loss_reduction(aten.clamp_min.default(loss, 0), reduction)
