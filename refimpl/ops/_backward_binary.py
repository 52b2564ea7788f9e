"""The helper functions the derivative formulas of the binary, selection and conversion ops
share.

Torch: torch/csrc/autograd/FunctionsManual.cpp (pow_backward, pow_backward_self,
pow_backward_exponent, copysign_tensor_self_backward, atan2_backward, div_tensor_*_backward,
clamp_backward, clamp_backward_min_max, masked_fill_backward, _to_copy_backward) and the
Scalar arithmetic they use (c10::Scalar::log, Scalar::equal). Each takes and returns tensors
(refimpl.Tensor at runtime) and calls ops through the dispatcher, so a backward pass built
from them is recorded when `create_graph=True`.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Sequence
from typing import Any

from refimpl._base import promotion
from refimpl._base.dtypes import DType
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Scalar, Tensor, conj, handle_r_to_c

aten = namespace("aten")


# --- tensor facts and small constructions ----------------------------------------------------


def is_number(value: Any) -> bool:
    """Whether a Tensor argument arrived as a Python number (torch: a wrapped number)."""
    return isinstance(value, (bool, int, float, complex))


def dtype_of(value: Tensor | Scalar) -> DType:
    """A tensor's dtype, or the dtype torch wraps a Python number in."""
    if isinstance(value, (bool, int, float, complex)):
        return promotion.scalar_dtype(value)
    dtype: DType = value._dtype
    return dtype


def _operand(value: Tensor | Scalar) -> tuple[DType, OperandKind]:
    if isinstance(value, (bool, int, float, complex)):
        return promotion.scalar_dtype(value), OperandKind.WRAPPED
    return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)


def zero_scalar(grad: Tensor) -> Tensor:
    """A 0-dim zero of grad's dtype and device. Torch: at::scalar_tensor(0., grad.options())."""
    return aten.scalar_tensor.default(0.0, dtype=grad._dtype, device=grad._storage.device)


def zeros_of(sizes: Sequence[int], dtype: DType, device: Any) -> Tensor:
    """Zeros of a saved input's shape, dtype and device. Torch: `zeros_like(other)` on the
    TypeAndSize torchgen saves (`other_info`)."""
    return aten.zeros.default(list(sizes), dtype=dtype, device=device)


def zeros_like_grad(grad: Tensor, dtype: DType | None = None) -> Tensor:
    """Torch: at::zeros_like(grad, grad.options().dtype(dtype))."""
    return aten.zeros_like.default(grad, dtype=dtype)


def scalar_log(value: Scalar) -> Scalar:
    """Torch: c10::Scalar::log (std::log: -inf at 0, nan below it for real numbers)."""
    if isinstance(value, complex):
        return cmath.log(value) if value != 0 else complex(-math.inf, 0.0)
    number = float(value)
    if number > 0 or math.isnan(number):
        return math.log(number)
    return -math.inf if number == 0 else math.nan


# --- div with a rounding mode ----------------------------------------------------------------


def div_tensor_self_backward(
    grad: Tensor, other: Tensor | Scalar, self_st: DType, rounding_mode: str | None
) -> Tensor:
    """Torch: div_tensor_self_backward: zeros for a rounded quotient."""
    if rounding_mode is not None:
        return zeros_like_grad(grad, self_st)
    if is_number(other):
        return handle_r_to_c(self_st, aten.div.Scalar(grad, conj(other)))
    return handle_r_to_c(self_st, aten.div.Tensor(grad, conj(other)))


def div_tensor_other_backward(
    grad: Tensor, self: Tensor | Scalar, other: Tensor, rounding_mode: str | None
) -> Tensor:
    """Torch: div_tensor_other_backward: zeros for a rounded quotient, else
    -grad * ((self / other) / other).conj()."""
    if rounding_mode is not None:
        return zeros_like_grad(grad, dtype_of(other))
    quotient = aten.div.Tensor(aten.div.Tensor(self, other), other)
    product = aten.mul.Tensor(aten.neg.default(grad), conj(quotient))
    return handle_r_to_c(dtype_of(other), product)


# --- pow -------------------------------------------------------------------------------------


def pow_backward(grad: Tensor, self: Tensor, exponent: Scalar) -> Tensor:
    """The gradient of self ** a Scalar exponent. Torch: pow_backward."""
    if not isinstance(exponent, bool) and exponent == 0:
        return aten.zeros_like.default(self)
    # torch: the exponent as a double (or complex double), so an int exponent's `exp - 1`
    # is a double too.
    value: Scalar = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    power = aten.pow.Tensor_Scalar(self, value - 1)
    product = aten.mul.Tensor(grad, conj(aten.mul.Scalar(power, value)))
    return handle_r_to_c(self._dtype, product)


def pow_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    """The gradient of self ** a Tensor exponent for self. Torch: pow_backward_self."""
    power = aten.pow.Tensor_Tensor(self, aten.sub.Scalar(exponent, 1))
    product = aten.mul.Tensor(grad, conj(aten.mul.Tensor(exponent, power)))
    out = aten.where.self(aten.eq.Scalar(exponent, 0.0), zero_scalar(grad), product)
    return handle_r_to_c(self._dtype, out)


def _real_nonnegative(exponent: Tensor) -> Tensor:
    # torch: the exponents for which 0 ** exponent has a zero derivative.
    if exponent._dtype.is_complex:
        return aten.logical_and.default(
            aten.eq.Scalar(aten.imag.default(exponent), 0),
            aten.ge.Scalar(aten.real.default(exponent), 0),
        )
    return aten.ge.Scalar(exponent, 0)


def pow_backward_exponent(grad: Tensor, self: Tensor, exponent: Tensor, result: Tensor) -> Tensor:
    """The gradient of self ** exponent for the exponent; 0 at self == 0 for exponent >= 0.
    Torch: pow_backward_exponent (Tensor base)."""
    cond = aten.logical_and.default(aten.eq.Scalar(self, 0), _real_nonnegative(exponent))
    promoted = result_type_of((_operand(self), _operand(exponent)))
    base = self if self._dtype is promoted else aten._to_copy.default(self, dtype=promoted)
    value = conj(aten.mul.Tensor(result, aten.log.default(base)))
    out = aten.mul.Tensor(grad, aten.where.self(cond, zero_scalar(grad), value))
    return handle_r_to_c(exponent._dtype, out)


def pow_backward_exponent_scalar(
    grad: Tensor, self: Scalar, exponent: Tensor, result: Tensor
) -> Tensor:
    """The gradient of a Scalar base ** exponent for the exponent. Torch:
    pow_backward_exponent (Scalar base): (result * log(base)).conj(), 0 where base is 0 and
    the exponent is real and >= 0."""
    base: Scalar = (
        complex(self) if exponent._dtype.is_complex and not isinstance(self, complex) else self
    )
    value = conj(aten.mul.Scalar(result, scalar_log(base)))
    if not isinstance(self, bool) and self == 0:
        zero = aten.zeros.default([], dtype=grad._dtype, device=grad._storage.device)
        value = aten.where.self(_real_nonnegative(exponent), zero, value)
    return handle_r_to_c(exponent._dtype, aten.mul.Tensor(grad, value))


# --- copysign, atan2 -------------------------------------------------------------------------


def copysign_tensor_self_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """Torch: copysign_tensor_self_backward: grad * result / self, 0 where self is 0."""
    ratio = aten.div.Tensor(result, self)
    ratio = aten.masked_fill.Scalar(ratio, aten.eq.Scalar(self, 0), 0)
    return aten.mul.Tensor(grad, ratio)


def atan2_backward(grad: Tensor, self: Tensor, other: Tensor) -> tuple[Tensor, Tensor]:
    """Torch: atan2_backward: grad * other / r2 and grad * -self / r2, r2 = self² + other²."""
    squares = aten.add.Tensor(aten.mul.Tensor(self, self), aten.mul.Tensor(other, other))
    recip = aten.reciprocal.default(squares)
    return (
        aten.mul.Tensor(aten.mul.Tensor(grad, other), recip),
        aten.mul.Tensor(aten.mul.Tensor(grad, aten.neg.default(self)), recip),
    )


# --- clamp -----------------------------------------------------------------------------------

_COMPARE_SCALAR = {"ge": aten.ge.Scalar, "le": aten.le.Scalar}
_COMPARE_TENSOR = {"ge": aten.ge.Tensor, "le": aten.le.Tensor}


def _compare(name: str, self: Tensor, bound: Tensor | Scalar) -> Tensor:
    table = _COMPARE_SCALAR if is_number(bound) else _COMPARE_TENSOR
    return table[name](self, bound)


def clamp_backward(
    grad: Tensor, self: Tensor, min: Tensor | Scalar | None, max: Tensor | Scalar | None
) -> Tensor:
    """grad where min <= self <= max (the subgradient 1 at the bounds), else 0.

    Torch: clamp_backward (the Scalar and the Tensor bounds forms alike), which makes its zero
    before the comparison (the order a TorchDispatchMode sees)."""
    if min is None and max is None:
        return grad
    zero = zero_scalar(grad)
    if min is not None and max is not None:
        inside = aten.logical_and.default(_compare("ge", self, min), _compare("le", self, max))
    elif min is not None:
        inside = _compare("ge", self, min)
    else:
        inside = _compare("le", self, max)
    return aten.where.self(inside, grad, zero)


def clamp_backward_min_max(
    grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor | None
) -> tuple[Tensor | None, Tensor | None]:
    """The gradients of clamp's Tensor bounds: min where self < min < max, max where
    self > max or max < min (max wins a crossing). Torch: clamp_backward_min_max."""
    zero = zero_scalar(grad)
    if min is not None and max is not None:
        below = aten.logical_and.default(aten.lt.Tensor(self, min), aten.lt.Tensor(min, max))
        above = aten.logical_or.default(aten.gt.Tensor(self, max), aten.lt.Tensor(max, min))
        return aten.where.self(below, grad, zero), aten.where.self(above, grad, zero)
    if min is not None:
        return aten.where.self(aten.lt.Tensor(self, min), grad, zero), None
    if max is not None:
        return None, aten.where.self(aten.gt.Tensor(self, max), grad, zero)
    return None, None


# --- masked_fill, conversions ----------------------------------------------------------------


def masked_fill_backward(grad: Tensor, mask: Tensor) -> Tensor:
    """The gradient of masked_fill's 0-dim value: the sum of grad where mask is set.
    Torch: masked_fill_backward."""
    return aten.sum.default(aten.masked_select.default(grad, mask))


def to_copy_backward(grad: Tensor, dtype: DType, device: Any) -> Tensor:
    """grad back in the input's dtype and device; a real input takes the real part.
    Torch: _to_copy_backward (and CopyBackwards for copy_'s src)."""
    grad = handle_r_to_c(dtype, grad)
    return aten.to.dtype_layout(grad, dtype=dtype, device=device)
