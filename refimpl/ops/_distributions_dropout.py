"""The dropout ops as aten ops: dropout, feature_dropout, alpha_dropout, feature_alpha_dropout (and their in-place forms), native_dropout and native_dropout_backward.

Torch: aten/src/ATen/native/Dropout.cpp. The four dropout ops are CompositeImplicitAutograd:
on CPU they decompose into `empty_like` (or `new_empty` of [N, C, 1, ...] for the feature
forms), `bernoulli_.float(1 - p)`, then arithmetic (a TorchDispatchMode logs exactly these
ops), so their masks are bernoulli_'s draws; on CUDA, dropout with 0 < p < 1 takes the fused
native_dropout. native_dropout (CPU) draws a bool mask with bernoulli_(1 - p) and returns
`input * mask * (1 / (1 - p))` with the mask.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, empty_strided_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._register import defop
from refimpl.ops.scan import registered

aten: Final = namespace("aten")

# torch: the SELU constants alpha_dropout keeps the mean and variance with (Dropout.cpp).
_ALPHA: Final = 1.7580993408473766


def _check_probability(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


def _feature_noise(input: TensorImpl) -> Any:
    """Torch: make_feature_noise: new_empty of [N, C, 1, 1, ...]."""
    if len(input._size) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    sizes = [input._size[0], input._size[1]] + [1] * (len(input._size) - 2)
    return aten.new_empty.default(input, sizes)


def _multiply(input: TensorImpl, noise: TensorImpl, inplace: bool) -> Any:
    """Torch: multiply<inplace> (input.mul_(noise) or input * noise)."""
    if inplace:
        return aten.mul_.Tensor(input, noise)
    return aten.mul.Tensor(input, noise)


def _dropout_impl(
    input: TensorImpl, p: float, train: bool, *, feature: bool, alpha: bool, inplace: bool
) -> Any:
    """Torch: _dropout_impl<feature_dropout, alpha_dropout, inplace> (Dropout.cpp)."""
    _check_probability(p)
    if p == 0 or not train or geometry.numel(input._size) == 0:
        return input
    if p == 1:
        zero = aten.zeros.default([], dtype=input._dtype, device=input._storage.device)
        return _multiply(input, zero, inplace)
    noise = _feature_noise(input) if feature else aten.empty_like.default(input)
    aten.bernoulli_.float(noise, 1 - p)
    if not alpha:
        aten.div_.Scalar(noise, 1 - p)
        return _multiply(input, noise, inplace)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = aten.add.Scalar(noise, -1)
    aten.mul_.Scalar(b, _ALPHA * a)
    aten.add_.Scalar(b, _ALPHA * a * p)
    aten.mul_.Scalar(noise, a)
    return aten.add_.Tensor(_multiply(input, noise, inplace), b)


dropout = defop("dropout(Tensor input, float p, bool train) -> Tensor")


@dropout.decomposition
def dropout_kernel(input: TensorImpl, p: float, train: bool) -> Any:
    """Elements zeroed with probability `p`, the rest scaled by 1 / (1 - p).

    Torch: dropout (Dropout.cpp): the fused native_dropout where is_fused_kernel_acceptable
    (a CUDA tensor, 0 < p < 1, elements), else _dropout<false>.
    """
    fused = input._storage.device.type == "cuda" and 0 < p < 1
    if train and fused and geometry.numel(input._size) > 0:
        return aten.native_dropout.default(input, p, train)[0]
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=False)


dropout_ = defop("dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")


@dropout_.decomposition
def dropout__kernel(self: TensorImpl, p: float, train: bool) -> Any:
    """Torch: dropout_ (_dropout<true>)."""
    return _dropout_impl(self, p, train, feature=False, alpha=False, inplace=True)


feature_dropout = defop("feature_dropout(Tensor input, float p, bool train) -> Tensor")


@feature_dropout.decomposition
def feature_dropout_kernel(input: TensorImpl, p: float, train: bool) -> Any:
    """Whole channels (dims 2.. of each [n, c]) zeroed together. Torch: _feature_dropout."""
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=False)


feature_dropout_ = defop("feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")


@feature_dropout_.decomposition
def feature_dropout__kernel(self: TensorImpl, p: float, train: bool) -> Any:
    return _dropout_impl(self, p, train, feature=True, alpha=False, inplace=True)


alpha_dropout = defop("alpha_dropout(Tensor input, float p, bool train) -> Tensor")


@alpha_dropout.decomposition
def alpha_dropout_kernel(input: TensorImpl, p: float, train: bool) -> Any:
    """Dropout keeping SELU's mean and variance. Torch: _alpha_dropout."""
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=False)


alpha_dropout_ = defop("alpha_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")


@alpha_dropout_.decomposition
def alpha_dropout__kernel(self: TensorImpl, p: float, train: bool) -> Any:
    return _dropout_impl(self, p, train, feature=False, alpha=True, inplace=True)


feature_alpha_dropout = defop("feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor")


@feature_alpha_dropout.decomposition
def feature_alpha_dropout_kernel(input: TensorImpl, p: float, train: bool) -> Any:
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=False)


feature_alpha_dropout_ = defop(
    "feature_alpha_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)"
)


@feature_alpha_dropout_.decomposition
def feature_alpha_dropout__kernel(self: TensorImpl, p: float, train: bool) -> Any:
    return _dropout_impl(self, p, train, feature=True, alpha=True, inplace=True)


# --- native_dropout ----------------------------------------------------------------------------

native_dropout = defop("native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)")


def _bool_like(input: TensorImpl) -> Any:
    """Torch: at::empty_like(input, input.options().dtype(kBool)) (input's dense strides)."""
    stride = geometry.dense_strides_like(input._size, input._stride)
    return empty_strided_tensor(
        input._size, stride, dt.bool_, input._storage.device, input._storage.backend
    )


@registered(native_dropout)
def native_dropout_kernel(input: TensorImpl, p: float, train: bool | None) -> Any:
    """(output, mask). Torch: native_dropout_cpu (Dropout.cpp): for an empty input, the input
    itself and an empty_like of it; in training (train None or True) a bool mask drawn by
    bernoulli_(1 - p) and input.mul(mask).mul_(1 / (1 - p)) (0 for p = 1); otherwise a
    clone and a mask of ones."""
    if geometry.numel(input._size) == 0:
        return input, aten.empty_like.default(input)
    if train is None or train:
        keep = 1.0 - p
        scale = 0.0 if keep == 0 else 1.0 / keep
        mask = aten.bernoulli_.float(_bool_like(input), keep)
        # mul_.Scalar: a float16 product with the scale as float16 holds it (see
        # PointwiseOp.scalar_first), as torch's.
        output = aten.mul_.Scalar(aten.mul.Tensor(input, mask), scale)
        return output, mask
    mask = aten.fill_.Scalar(_bool_like(input), True)
    return aten.clone.default(input), mask


def _dropout_scale(p: float, train: bool | None) -> float:
    # torch: (!train.has_value() || !train.value() ? 1 : (p == 1 ? 0.0 : 1.0 / (1.0 - p)))
    # (so train=None, which draws a mask, back-propagates with scale 1, as torch does).
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@native_dropout.derivative("input")
def native_dropout_backward_formula(
    grad: Tensor, result1: Tensor, p: float, train: bool | None
) -> Tensor:
    # torch: infinitely_differentiable_native_dropout_backward(grad, result1, scale) with grad
    # mode on: grad * (mask.type_as(grad) * scale); native_dropout_backward without.
    scale = _dropout_scale(p, train)
    mask = aten._to_copy.default(result1, dtype=grad._dtype)
    return aten.mul.Tensor(grad, aten.mul.Scalar(mask, scale))


native_dropout_backward = defop(
    "native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor"
)


@registered(native_dropout_backward)
def native_dropout_backward_kernel(grad_output: TensorImpl, mask: TensorImpl, scale: float) -> Any:
    """Torch: native_dropout_backward (Dropout.cpp): grad * mask * scale."""
    return aten.mul.Scalar(aten.mul.Tensor(grad_output, mask), scale)


@native_dropout_backward.derivative("grad_output")
def native_dropout_double_backward(
    grad: Tensor, grad_output: Tensor, mask: Tensor, scale: float
) -> Tensor:
    # torch: native_dropout_double_backward(ggI, grad, mask, scale):
    # ggI.type_as(grad) * (mask.type_as(grad) * scale)
    typed_grad = aten._to_copy.default(grad, dtype=grad_output._dtype)
    typed_mask = aten._to_copy.default(mask, dtype=grad_output._dtype)
    return aten.mul.Tensor(typed_grad, aten.mul.Scalar(typed_mask, scale))
