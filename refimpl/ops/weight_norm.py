"""Weight normalization as aten ops: norm_except_dim, _weight_norm and its fused CPU form
_weight_norm_interface (with the derivative torch records for it).

Torch: aten/src/ATen/native/WeightNorm.cpp (norm_except_dim and _weight_norm, both
CompositeImplicitAutograd; weight_norm_cpu, the kernel of _weight_norm_interface) and
aten/src/ATen/native/cpu/WeightNormKernel.cpp (its values); the derivative is
_weight_norm_differentiable_backward's formula (tools/autograd/derivatives.yaml).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.keys import DispatchKey
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._register import defop

aten: Final = namespace("aten")

# torch: weight_norm_kernel dispatches on AT_DISPATCH_FLOATING_TYPES_AND(BFloat16).
_WEIGHT_NORM_DTYPES: Final = frozenset({dt.float32, dt.float64, dt.bfloat16})


# --- norm_except_dim -------------------------------------------------------------------------

norm_except_dim = defop("norm_except_dim(Tensor v, int pow=2, int dim=0) -> Tensor")


@norm_except_dim.decomposition
def norm_except_dim_decomposition(v: TensorImpl, pow: int, dim: int) -> Any:
    """The `pow`-norm of `v` over every dim but `dim`, kept as size-1 dims (dim -1: over all).

    Torch: norm_except_dim in WeightNorm.cpp: dim 0 and the last dim view `v` as a matrix and
    take norm.ScalarOpt_dim; another dim is moved to 0 by a transpose and back.
    """
    if dim == -1:
        return aten.norm.Scalar(v, pow)
    ndim = len(v._size)
    if dim == 0:
        shape = [1] * ndim
        shape[0] = v._size[0]
        matrix = aten.view.default(aten.contiguous.default(v), [v._size[0], -1])
        return aten.view.default(aten.norm.ScalarOpt_dim(matrix, pow, [1]), shape)
    if dim == ndim - 1:
        shape = [1] * ndim
        shape[-1] = v._size[-1]
        matrix = aten.view.default(aten.contiguous.default(v), [-1, v._size[-1]])
        return aten.view.default(aten.norm.ScalarOpt_dim(matrix, pow, [0]), shape)
    moved = aten.norm_except_dim.default(aten.transpose.int(v, 0, dim), pow, 0)
    return aten.transpose.int(moved, 0, dim)


# --- _weight_norm ----------------------------------------------------------------------------

_weight_norm = defop("_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor")


@_weight_norm.decomposition
def _weight_norm_decomposition(v: TensorImpl, g: TensorImpl, dim: int) -> Any:
    """`v * (g / ||v||)`, the norm over every dim but `dim`.

    Torch: _weight_norm in WeightNorm.cpp: the fused _weight_norm_interface where it applies
    (dim 0 or the last dim, no float16), else composed of norm_except_dim, div and mul.
    """
    if v._storage.device != g._storage.device:
        raise RuntimeError(
            "weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
            f"{v._storage.device} and g_in is on {g._storage.device}"
        )
    v = aten.contiguous.default(v)
    g = aten.contiguous.default(g)
    has_half = dt.float16 in (v._dtype, g._dtype)
    if not has_half and (dim == 0 or dim == len(v._size) - 1):
        return aten._weight_norm_interface.default(v, g, dim)[0]
    norms = aten.norm_except_dim.default(v, 2, dim)
    return aten.mul.Tensor(v, aten.div.Tensor(g, norms))


# --- _weight_norm_interface ------------------------------------------------------------------

_weight_norm_interface = defop(
    "_weight_norm_interface(Tensor v, Tensor g, int dim=0) -> (Tensor, Tensor)"
)


def _check_weight_norm(v: TensorImpl, g: TensorImpl) -> None:
    # torch: weight_norm_kernel's dtype dispatch, then its read of g as v's scalar type.
    if v._dtype not in _WEIGHT_NORM_DTYPES:
        raise NotImplementedError(
            f"\"weight_norm_kernel\" not implemented for '{v._dtype.scalar_name}'"
        )
    if g._dtype is not v._dtype:
        raise RuntimeError(
            f"expected scalar type {v._dtype.scalar_name} but found {g._dtype.scalar_name}"
        )


def _weight_norm_interface_kernel(v: TensorImpl, g: TensorImpl, dim: int) -> Any:
    """The weight `v * g / ||v||` and the norms (of g's shape and strides; float for a
    bfloat16 g), for dim 0 or the last dim. Torch: weight_norm_cpu and weight_norm_kernel."""
    _check_weight_norm(v, g)
    norm_dtype = dt.float32 if g._dtype is dt.bfloat16 else g._dtype
    # The kernel accumulates in float for bfloat16 (opmath), so the norms are computed there.
    source = aten._to_copy.default(v, dtype=norm_dtype) if v._dtype is not norm_dtype else v
    norms = aten.norm_except_dim.default(source, 2, dim)
    # torch: the kernel reads g as one value per slice of `dim`, whatever g's shape.
    per_slice = aten.reshape.default(g, list(norms._size))
    scale = aten.div.Tensor(aten._to_copy.default(per_slice, dtype=norm_dtype), norms)
    weight = aten._to_copy.default(aten.mul.Tensor(source, scale), dtype=v._dtype)
    out_norms = aten.empty_strided.default(
        list(g._size), list(g._stride), dtype=norm_dtype, device=g._storage.device
    )
    aten.copy_.default(out_norms, aten.view.default(norms, list(g._size)))
    return aten.contiguous.default(weight), out_norms


for _key in (DispatchKey.CPU, DispatchKey.CUDA):
    _weight_norm_interface.kernel(_key)(_weight_norm_interface_kernel)


@_weight_norm_interface.derivative("v", "g")
def _weight_norm_interface_backward_formula(
    grad: Tensor, v: Tensor, g: Tensor, result1: Tensor, dim: int
) -> tuple[Tensor, Tensor]:
    # torch: _weight_norm_differentiable_backward(grad.contiguous(), v, g, result1, dim) in
    # FunctionsManual.cpp (what torch records with grad mode on; _weight_norm_interface_
    # backward, the fused kernel it uses otherwise, gives the same values):
    #   grad_g = sum(grad * v over every dim but dim) / norms
    #   grad_v = (g / norms) * (grad - v * (grad_g / norms))
    grad = aten.contiguous.default(grad)
    last = len(v._size) - 1
    if dim not in (0, last):
        raise RuntimeError("_weight_norm_differentiable_backward: expected dim 0 or last dim")
    norms = (
        aten._to_copy.default(result1, dtype=g._dtype)
        if result1._dtype is not g._dtype
        else result1
    )
    other_dims = [d for d in range(len(v._size)) if d != dim]
    products = aten.mul.Tensor(grad, v)
    summed = aten.sum.dim_IntList(products, other_dims, True) if other_dims else products
    grad_g = aten.div.Tensor(aten.view.default(summed, list(g._size)), norms)
    shaped_norms = aten.view.default(norms, list(summed._size))
    shaped_grad_g = aten.view.default(grad_g, list(summed._size))
    shaped_g = aten.view.default(g, list(summed._size))
    correction = aten.mul.Tensor(v, aten.div.Tensor(shaped_grad_g, shaped_norms))
    grad_v = aten.mul.Tensor(
        aten.div.Tensor(shaped_g, shaped_norms), aten.sub.Tensor(grad, correction)
    )
    return grad_v, grad_g


# torch: the norms (result1) do not require grad.
non_differentiable_outputs("aten::_weight_norm_interface", "result1")
