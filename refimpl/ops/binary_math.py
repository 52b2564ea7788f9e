"""Binary floating math: copysign, hypot, atan2 (arctan2), heaviside, nextafter, ldexp,
logaddexp, logaddexp2, xlogy, with their derivatives.

Torch: aten/src/ATen/native/BinaryOps.cpp (the structured meta functions and the composite
ldexp) and the CPU kernels of native/cpu/BinaryOpsKernel.cpp; the derivatives are those of
tools/autograd/derivatives.yaml. Each op is one `pointwise` declaration; the iterator
(ops/_iterator.py) does broadcasting, promotion, devices, layouts and out=.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base import promotion
from refimpl._base.dtypes import DType, bool_, float16
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, conj
from refimpl.ops._backward_binary import (
    atan2_backward,
    copysign_tensor_self_backward,
    zeros_of,
)
from refimpl.ops._iterator import CONFIGS, Builder
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop
from refimpl.ops.binary import in_float32

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd

Operand = TensorImpl | Scalar


def _kind(value: Operand) -> tuple[DType, OperandKind]:
    if isinstance(value, TensorImpl):
        return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)
    return promotion.scalar_dtype(value), OperandKind.WRAPPED

# --- copysign, hypot, atan2, heaviside, nextafter ------------------------------------------

copysign = pointwise(
    "copysign.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_FLOAT_OP,
    operands=("self", "other"),
    scalar=("copysign.Scalar(Tensor self, Scalar other) -> Tensor",),
)


@copysign.compute
def copysign_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """|self| with the sign of other. Torch: copysign_kernel (std::copysign)."""
    return xp.copysign(self, other)


@copysign.derivative("self")
def copysign_backward_self(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: copysign_tensor_self_backward(grad, self, result)
    return copysign_tensor_self_backward(grad, self, result)


@copysign.derivative("other")
def copysign_backward_other(
    other_sym_sizes: tuple[int, ...], other_scalar_type: DType, other_device: Any
) -> Tensor:
    # torch: zeros_like(other) (the sign has no derivative)
    return zeros_of(other_sym_sizes, other_scalar_type, other_device)


copysign.derivative("self", overload="copysign.Scalar")(copysign_backward_self)


hypot = pointwise("hypot(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)


@hypot.compute
def hypot_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """sqrt(self**2 + other**2) without overflow. Torch: hypot_kernel (std::hypot)."""
    return xp.hypot(self, other)


@hypot.derivative("self")
def hypot_backward_self(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: grad * self / result
    return aten.div.Tensor(aten.mul.Tensor(grad, self), result)


@hypot.derivative("other")
def hypot_backward_other(grad: Tensor, other: Tensor, result: Tensor) -> Tensor:
    # torch: grad * other / result
    return aten.div.Tensor(aten.mul.Tensor(grad, other), result)


atan2 = pointwise("atan2(Tensor self, Tensor other) -> Tensor", Builder.BINARY_FLOAT_OP)


@atan2.compute
def atan2_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The angle of (other, self). Torch: atan2_kernel (std::atan2)."""
    return xp.atan2(self, other)


@atan2.derivative("self", "other")
def atan2_backward_self_other(grad: Tensor, self: Tensor, other: Tensor) -> tuple[Tensor, Tensor]:
    # torch: atan2_backward(grad, self, other, grad_input_mask)
    return atan2_backward(grad, self, other)


arctan2 = defop("arctan2(Tensor self, Tensor other) -> Tensor")


@arctan2.decomposition
def arctan2_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: arctan2 is a CompositeImplicitAutograd alias of atan2."""
    return aten.atan2.default(self, other)


arctan2_out = defop("arctan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


@arctan2_out.decomposition
def arctan2_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: arctan2.out is an alias of atan2.out."""
    return aten.atan2.out(self, other, out=out)


arctan2_ = defop("arctan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)")


@arctan2_.decomposition
def arctan2__decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: arctan2_ is an alias of atan2_."""
    return aten.atan2_.default(self, other)


heaviside = pointwise(
    "heaviside(Tensor self, Tensor values) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "values"),
)

_HEAVISIDE_COMPLEX: Final = "heaviside is not yet implemented for complex tensors."
_HEAVISIDE_DTYPES: Final = "heaviside is not yet implemented for tensors with different dtypes."


@heaviside.precheck(by_metadata=True)
def heaviside_precheck(self: TensorImpl, values: TensorImpl) -> None:
    """Torch: TORCH_META_FUNC(heaviside) checks dtypes before building the iterator."""
    if self._dtype.is_complex or values._dtype.is_complex:
        raise RuntimeError(_HEAVISIDE_COMPLEX)
    if self._dtype is not values._dtype:
        raise RuntimeError(_HEAVISIDE_DTYPES)


@heaviside.check
def heaviside_check(p: Any) -> None:
    # torch: the same meta function checks a given out's dtype too.
    if p.output_dtype.is_complex:
        raise RuntimeError(_HEAVISIDE_COMPLEX)
    if p.output_dtype is not p.common_dtype:
        raise RuntimeError(_HEAVISIDE_DTYPES)


@heaviside.compute
def heaviside_compute(xp: ArrayNamespace, self: Array, values: Array) -> Array:
    """values where self is 0, else (self > 0). Torch: heaviside_kernel."""
    # The Array API orders no bools; a bool self is its own (self > 0).
    positive = self if self.dtype == xp.bool else xp.astype(self > 0, self.dtype)
    return xp.where(self == xp.zeros_like(self), values, positive)


nextafter = pointwise("nextafter(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)


@nextafter.compute
def nextafter_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The next representable value after self towards other. Torch: nextafter_kernel."""
    return extension(xp, "nextafter")(self, other)


@nextafter.derivative("self")
def nextafter_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::where(self != other, grad, 0)
    return aten.where.ScalarOther(aten.ne.Tensor(self, other), grad, 0)


@nextafter.derivative("other")
def nextafter_backward_other(
    other_sym_sizes: tuple[int, ...], other_scalar_type: DType, other_device: Any
) -> Tensor:
    # torch: zeros_like(other)
    return zeros_of(other_sym_sizes, other_scalar_type, other_device)


# --- ldexp -----------------------------------------------------------------------------------
# torch: ldexp (BinaryOps.cpp) is CompositeExplicitAutograd. A floating mantissa with an integral
# exponent runs std::ldexp in the mantissa's dtype (the exponent read as a C int; bool
# exponents are refused by the kernel's dispatch, "ldexp_cpu_exp"); anything else is
# self * pow(2.0, other).

ldexp = defop("ldexp.Tensor(Tensor self, Tensor other) -> Tensor")
ldexp_out = defop("ldexp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ldexp_ = defop("ldexp_(Tensor(a!) self, Tensor other) -> Tensor(a!)")

# The std::ldexp path as an elementwise op of the iterator (not registered under a name of
# its own: torch's ldexp kernel is internal to the composite).
_ldexp_kernel_op = PointwiseOp(ldexp, CONFIGS[Builder.BINARY_OP], ("self", "other"))


@_ldexp_kernel_op.compute
def ldexp_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self * 2 ** other, rounded once. Torch: the ldexp CPU kernel (std::ldexp)."""
    # Multiplying a float64 by powers of two is exact; two factors reach past 2**1023.
    wide = xp.astype(self, xp.float64)
    exponent = xp.clip(xp.astype(other, xp.float64), -2200.0, 2200.0)
    half = xp.trunc(exponent / 2)
    two = xp.asarray(2.0, dtype=xp.float64)
    result = wide * xp.pow(two, half) * xp.pow(two, exponent - half)
    return xp.astype(result, self.dtype)


def _std_ldexp(self: TensorImpl, other: TensorImpl) -> bool:
    """Whether torch takes the std::ldexp kernel (and checks the exponent's dtype)."""
    if (
        not self._dtype.is_floating_point
        or other._dtype.is_floating_point
        or other._dtype.is_complex
    ):
        return False
    if other._dtype is bool_:
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    return True


@ldexp.kernel(CEA)
def ldexp_kernel(self: TensorImpl, other: TensorImpl) -> Any:
    """self * 2 ** other. Torch: ldexp in BinaryOps.cpp."""
    # Differs: torch allocates the std::ldexp result like `self` and resizes it to the
    # broadcast shape (warning); refimpl allocates it at the broadcast shape.
    if _std_ldexp(self, other):
        return _ldexp_kernel_op([self, other], None, {})
    return aten.mul.Tensor(self, aten.pow.Scalar(2.0, other))


@ldexp_out.kernel(CEA)
def ldexp_out_kernel(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: ldexp_out checks the cast to `out`, then runs std::ldexp or
    mul_out(out, self, pow(2.0, other))."""
    std = _std_ldexp(self, other)
    power = None if std else aten.pow.Scalar(2.0, other)
    result_dtype = self._dtype if power is None else result_type_of((_kind(self), _kind(power)))
    if not promotion.can_cast(result_dtype, out._dtype):
        raise RuntimeError(
            f"ldexp can't be cast to the desired output type {out._dtype.scalar_name}"
        )
    if power is None:
        # Differs: torch's std::ldexp path fails an internal assert (needs_dynamic_casting)
        # when `out` has another dtype; refimpl casts.
        return _ldexp_kernel_op([self, other], out, {})
    return aten.mul.out(self, power, out=out)


@ldexp_.kernel(CEA)
def ldexp__kernel(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: ldexp_ is ldexp_out(self, self, other)."""
    return aten.ldexp.out(self, other, out=self)


@ldexp.derivative("self")
def ldexp_backward_self(grad: Tensor, other: Tensor) -> Tensor:
    # torch: grad * at::pow(2, other).conj()
    return aten.mul.Tensor(grad, conj(aten.pow.Scalar(2, other)))


@ldexp.derivative("other")
def ldexp_backward_other(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * result.conj() * M_LN2
    return aten.mul.Scalar(aten.mul.Tensor(grad, conj(result)), math.log(2.0))


# --- logaddexp, logaddexp2 -------------------------------------------------------------------


def _logaddexp_real(xp: ArrayNamespace, a: Array, b: Array, base2: bool) -> Array:
    # torch: logaddexp_kernel: equal infinities give themselves; otherwise
    # max + log1p(exp(-|a - b|)) (log1p(exp2(..)) / ln 2 for base 2).
    m = xp.maximum(a, b)
    d = -xp.abs(a - b)
    if base2:
        tail = xp.log1p(xp.pow(xp.asarray(2.0, dtype=a.dtype), d)) / xp.log(
            xp.asarray(2.0, dtype=a.dtype)
        )
    else:
        tail = xp.log1p(xp.exp(d))
    same_inf = xp.isinf(a) & (a == b)
    nan = xp.isnan(a) | xp.isnan(b)
    result = xp.where(same_inf, a, m + tail)
    return xp.where(nan, a + b, result)


logaddexp = pointwise("logaddexp(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)


@logaddexp.compute
def logaddexp_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """log(exp(self) + exp(other)). Torch: logaddexp_kernel (_log_add_exp_helper)."""
    if xp.isdtype(self.dtype, "complex floating"):
        # torch: the operand with the larger real part factors out.
        first = xp.real(self) >= xp.real(other)
        big = xp.where(first, self, other)
        small = xp.where(first, other, self)
        return big + xp.log1p(xp.exp(small - big))
    return _logaddexp_real(xp, self, other, base2=False)


logaddexp.compute(dtypes=(float16,))(in_float32(logaddexp_compute))


@logaddexp.derivative("self")
def logaddexp_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad / (1 + exp(other - self)).conj()
    denominator = aten.add.Scalar(aten.exp.default(aten.sub.Tensor(other, self)), 1)
    return aten.div.Tensor(grad, conj(denominator))


@logaddexp.derivative("other")
def logaddexp_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad / (1 + exp(self - other)).conj()
    denominator = aten.add.Scalar(aten.exp.default(aten.sub.Tensor(self, other)), 1)
    return aten.div.Tensor(grad, conj(denominator))


logaddexp2 = pointwise("logaddexp2(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)


@logaddexp2.compute
def logaddexp2_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """log2(2**self + 2**other). Torch: logaddexp2_kernel."""
    return _logaddexp_real(xp, self, other, base2=True)


logaddexp2.compute(dtypes=(float16,))(in_float32(logaddexp2_compute))


@logaddexp2.derivative("self")
def logaddexp2_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad / (1 + pow(2, other - self))
    denominator = aten.add.Scalar(aten.pow.Scalar(2, aten.sub.Tensor(other, self)), 1)
    return aten.div.Tensor(grad, denominator)


@logaddexp2.derivative("other")
def logaddexp2_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad / (1 + pow(2, self - other))
    denominator = aten.add.Scalar(aten.pow.Scalar(2, aten.sub.Tensor(self, other)), 1)
    return aten.div.Tensor(grad, denominator)


# --- xlogy -----------------------------------------------------------------------------------

xlogy = pointwise(
    "xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_FLOAT_OP,
    operands=("self", "other"),
    scalar=(
        "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
        "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
    ),
)


@xlogy.compute
def xlogy_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self * log(other), 0 where self is 0 (nan where other is nan). Torch: xlogy_kernel."""
    product = self * xp.log(other)
    zero = xp.where(self == 0, xp.zeros_like(product), product)
    return xp.where(xp.isnan(other), other, zero)


@xlogy.derivative("self")
def xlogy_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)
    where_zero = aten.logical_and.default(aten.eq.Scalar(self, 0.0), aten.le.Scalar(other, 0.0))
    return aten.masked_fill.Scalar(aten.xlogy.Tensor(grad, other), where_zero, 0.0)


@xlogy.derivative("other")
def xlogy_backward_other(grad: Tensor, self: Tensor | Scalar, other: Tensor) -> Tensor:
    # torch: grad * self / other (self a Scalar for xlogy.Scalar_Self)
    if isinstance(self, (bool, int, float, complex)):
        return aten.div.Tensor(aten.mul.Scalar(grad, self), other)
    return aten.div.Tensor(aten.mul.Tensor(grad, self), other)


xlogy.derivative("other", overload="xlogy.Scalar_Self")(xlogy_backward_other)


@xlogy.derivative("self", overload="xlogy.Scalar_Other")
def xlogy_scalar_other_backward_self(grad: Tensor, self: Tensor, other: Scalar) -> Tensor:
    # torch: other.toDouble() > 0. ? at::xlogy(grad, other)
    #                              : at::xlogy(grad, other).masked_fill(self == 0., 0.)
    product = aten.xlogy.Scalar_Other(grad, other)
    if float(other.real if isinstance(other, complex) else other) > 0.0:
        return product
    return aten.masked_fill.Scalar(product, aten.eq.Scalar(self, 0.0), 0.0)
