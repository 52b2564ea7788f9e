"""Unary ops that keep or pick their dtype: rounding (floor, ceil, trunc, fix, round, frac),
signs (neg, negative, positive, abs, absolute, sign, sgn), reciprocal, square, angle,
deg2rad, rad2deg, bitwise_not and logical_not.

Torch: aten/src/ATen/native/UnaryOps.cpp (meta functions, the complex-to-real rules of abs and
angle) and the CPU kernels of native/cpu/UnaryOpsKernel.cpp. Integers round to themselves;
abs of int8 -128 wraps as in C++.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import bool_, float16
from refimpl._base.promotion import can_cast
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import M_180_PI, M_PI_180, angle_backward, sgn_backward
from refimpl.ops._iterator import CONFIGS, Builder, IterConfig, Plan, ResultDtype
from refimpl.ops._pointwise import BOOL, COMPLEX, INTEGRAL, pointwise
from refimpl.ops._register import defop
from refimpl.ops.unary_math import in_float32

aten: Final = namespace("aten")


def _constant(xp: ArrayNamespace, value: float, like: Array) -> Array:
    return xp.asarray(value, dtype=like.dtype)


def _copy(xp: ArrayNamespace, self: Array) -> Array:
    # A kernel's result must be a new array: the input may be a view of the tensor's storage.
    return xp.asarray(self, copy=True)


# --- floor, ceil, trunc, fix, round, frac -------------------------------------------------------
# torch: floor_kernel, ceil_kernel, trunc_kernel, round_kernel in UnaryOpsKernel.cpp; their
# meta functions are build_borrowing_unary_op, and integers round to themselves (a copy).


def _no_complex(name: str) -> Callable[[TensorImpl], None]:
    def precheck(self: TensorImpl) -> None:
        # torch: TORCH_META_FUNC(floor / ceil / trunc) check before building the iterator.
        if self._dtype.is_complex:
            raise NotImplementedError(f"{name} is not supported for complex inputs")

    precheck.__name__ = f"{name}_precheck"
    return precheck


floor = pointwise("floor(Tensor self) -> Tensor", Builder.UNARY_OP)
floor.precheck(_no_complex("floor"))
floor.compute(lambda xp, x: xp.floor(x))
floor.compute(_copy, dtypes=INTEGRAL)

ceil = pointwise("ceil(Tensor self) -> Tensor", Builder.UNARY_OP)
ceil.precheck(_no_complex("ceil"))
ceil.compute(lambda xp, x: xp.ceil(x))
ceil.compute(_copy, dtypes=INTEGRAL)

trunc = pointwise("trunc(Tensor self) -> Tensor", Builder.UNARY_OP)
trunc.precheck(_no_complex("trunc"))
trunc.compute(lambda xp, x: xp.trunc(x))
trunc.compute(_copy, dtypes=INTEGRAL)

# Half to even, as std::nearbyint in the default rounding mode.
round_op = pointwise("round(Tensor self) -> Tensor", Builder.UNARY_OP)
round_op.compute(lambda xp, x: xp.round(x))
round_op.compute(_copy, dtypes=INTEGRAL)

round_decimals = pointwise(
    "round.decimals(Tensor self, *, int decimals) -> Tensor", Builder.UNARY_OP
)


@round_decimals.precheck
def round_decimals_precheck(self: TensorImpl, *, decimals: int) -> None:
    """Torch: round_decimals_out runs round_decimals_stub unless decimals is 0 (then
    round_stub, whose dtype error spec/kernel_dtypes.json records), so its error names it."""
    # Differs: torch raises this after the iterator's out= checks; a precheck runs first.
    dtype = self._dtype
    if decimals != 0 and not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{dtype.scalar_name}'")


@round_decimals.compute
def round_decimals_compute(xp: ArrayNamespace, self: Array, *, decimals: int) -> Array:
    """Round to `decimals` digits. Torch: round_decimals_kernel in UnaryOpsKernel.cpp:
    nearbyint(x * 10**d) / 10**d, or for negative d nearbyint(x / 10**-d) * 10**-d, with 10**d
    computed in double and converted to the computation dtype."""
    scale = _constant(xp, float(10 ** abs(decimals)), self)
    if decimals < 0:
        return xp.multiply(xp.round(xp.divide(self, scale)), scale)
    return xp.divide(xp.round(xp.multiply(self, scale)), scale)


round_decimals.compute(in_float32(round_decimals_compute), dtypes=(float16,))


def rounding_backward(grad: Tensor) -> Tensor:
    """The gradient of a step function (floor, ceil, trunc, round, sign): zeros.
    Torch: `self: zeros_like(grad)`."""
    return aten.zeros_like.default(grad)


for _op in (floor, ceil, trunc, round_op):
    _op.derivative("self")(rounding_backward)
round_decimals.derivative("self")(rounding_backward)

frac = pointwise("frac(Tensor self) -> Tensor", Builder.UNARY_OP)


@frac.compute
def frac_compute(xp: ArrayNamespace, self: Array) -> Array:
    """self - trunc(self). Torch: frac_kernel."""
    return xp.subtract(self, xp.trunc(self))


@frac.derivative("self")
def frac_backward(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


fix = defop("fix(Tensor self) -> Tensor")
fix_ = defop("fix_(Tensor(a!) self) -> Tensor(a!)")
fix_out = defop("fix.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@fix.decomposition
def fix_decomposition(self: TensorImpl) -> Any:
    """Torch: fix in UnaryOps.cpp is CompositeImplicitAutograd over trunc (NumPy's name)."""
    return aten.trunc.default(self)


@fix_.decomposition
def fix_inplace_decomposition(self: TensorImpl) -> Any:
    return aten.trunc_.default(self)


@fix_out.decomposition
def fix_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    return aten.trunc.out(self, out=out)


# --- neg, negative, positive --------------------------------------------------------------------

neg = pointwise("neg(Tensor self) -> Tensor", Builder.UNARY_OP)


@neg.precheck
def neg_precheck(self: TensorImpl) -> None:
    """Torch: TORCH_META_FUNC(neg) checks before building the iterator."""
    if self._dtype is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


@neg.compute
def neg_compute(xp: ArrayNamespace, self: Array) -> Array:
    """-self; unsigned and signed integers wrap. Torch: neg_kernel."""
    return xp.negative(self)


@neg.derivative("self")
def neg_backward(grad: Tensor) -> Tensor:
    # torch: grad.neg()
    return aten.neg.default(grad)


negative = defop("negative(Tensor self) -> Tensor")
negative_ = defop("negative_(Tensor(a!) self) -> Tensor(a!)")
negative_out = defop("negative.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@negative.decomposition
def negative_decomposition(self: TensorImpl) -> Any:
    """Torch: negative in UnaryOps.cpp is CompositeImplicitAutograd over neg."""
    return aten.neg.default(self)


@negative_.decomposition
def negative_inplace_decomposition(self: TensorImpl) -> Any:
    return aten.neg_.default(self)


@negative_out.decomposition
def negative_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    return aten.neg.out(self, out=out)


positive = defop("positive(Tensor(a) self) -> Tensor(a)")


@positive.decomposition
def positive_decomposition(self: TensorImpl) -> Any:
    """+self is self itself. Torch: positive in UnaryOps.cpp (CompositeImplicitAutograd)."""
    if self._dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


# --- abs, absolute --------------------------------------------------------------------------------


# torch: abs builds TensorIterator::unary_op (all dtypes equal), except that a complex input
# gives its real dtype (unary_op_impl_with_complex_to_float).
_ABS_CONFIG: Final = IterConfig(check_all_same_dtype=False, result=ResultDtype.TO_REAL)

abs_op = pointwise("abs(Tensor self) -> Tensor", _ABS_CONFIG)


@abs_op.check
def abs_check(plan: Plan) -> None:
    """Torch: unary_op_impl_with_complex_to_float_out (abs: the iterator requires out to have
    self's dtype unless self is complex and out real)."""
    common, output = plan.common_dtype, plan.output_dtype
    if common.is_complex and not output.is_complex:
        return  # the iterator checked can_cast(real dtype, out)
    if output is not common:
        raise RuntimeError(f"Found dtype {output.scalar_name} but expected {common.scalar_name}")


@abs_op.compute
def abs_compute(xp: ArrayNamespace, self: Array) -> Array:
    """|self|; int8 -128 stays -128. Torch: abs_kernel (real result for complex)."""
    return xp.abs(self)


@abs_op.derivative("self")
def abs_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * self.sgn()
    return aten.mul.Tensor(grad, aten.sgn.default(self))


@abs_op.inplace_check
def abs_inplace_check(self: TensorImpl) -> None:
    """Torch: abs_ in UnaryOps.cpp refuses complex self (its result would be real)."""
    if self._dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")


absolute = defop("absolute(Tensor self) -> Tensor")
absolute_ = defop("absolute_(Tensor(a!) self) -> Tensor(a!)")
absolute_out = defop("absolute.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@absolute.decomposition
def absolute_decomposition(self: TensorImpl) -> Any:
    """Torch: absolute in UnaryOps.cpp is CompositeImplicitAutograd over abs."""
    return aten.abs.default(self)


@absolute_.decomposition
def absolute_inplace_decomposition(self: TensorImpl) -> Any:
    return aten.abs_.default(self)


@absolute_out.decomposition
def absolute_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    return aten.abs.out(self, out=out)


# --- sign, sgn ----------------------------------------------------------------------------------

sign = pointwise("sign(Tensor self) -> Tensor", Builder.UNARY_OP)


@sign.precheck
def sign_precheck(self: TensorImpl) -> None:
    """Torch: TORCH_META_FUNC(sign)."""
    if self._dtype.is_complex:
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. "
            "Please use torch.sgn instead."
        )


@sign.compute
def sign_compute(xp: ArrayNamespace, self: Array) -> Array:
    """(0 < x) - (x < 0): 0 for NaN. Torch: sign_kernel."""
    positive_part = xp.astype(self > 0, self.dtype)
    return xp.subtract(positive_part, xp.astype(self < 0, self.dtype))


sign.compute(_copy, dtypes=BOOL)
sign.derivative("self")(rounding_backward)

sgn = pointwise("sgn(Tensor self) -> Tensor", Builder.UNARY_OP)


def sgn_compute_complex(xp: ArrayNamespace, self: Array) -> Array:
    """z / |z|, 0 for 0. Torch: sgn_kernel (sgn_impl in zmath.h)."""
    magnitude = xp.abs(self)
    zero = magnitude == 0
    safe = xp.where(zero, xp.ones_like(magnitude), magnitude)
    quotient = xp.divide(self, xp.astype(safe, self.dtype))
    return xp.where(zero, xp.zeros_like(self), quotient)


sgn.compute(sign_compute)
sgn.compute(_copy, dtypes=BOOL)
sgn.compute(sgn_compute_complex, dtypes=COMPLEX)


@sgn.derivative("self")
def sgn_backward_self(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: sgn_backward(self, grad, result)
    return sgn_backward(self, grad, result)


# --- reciprocal, square ---------------------------------------------------------------------------

reciprocal = pointwise("reciprocal(Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)


@reciprocal.compute
def reciprocal_compute(xp: ArrayNamespace, self: Array) -> Array:
    """1 / self. Torch: reciprocal_kernel."""
    return xp.divide(_constant(xp, 1.0, self), self)


@reciprocal.derivative("self")
def reciprocal_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: -grad * (result * result).conj()
    square = aten.conj.default(aten.mul.Tensor(result, result))
    return aten.mul.Tensor(aten.neg.default(grad), square)


square = defop("square(Tensor self) -> Tensor")
square_ = defop("square_(Tensor(a!) self) -> Tensor(a!)")
square_out = defop("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@square.decomposition
def square_decomposition(self: TensorImpl) -> Any:
    """Torch: square in UnaryOps.cpp is CompositeImplicitAutograd over pow.Tensor_Scalar."""
    return aten.pow.Tensor_Scalar(self, 2)


@square_.decomposition
def square_inplace_decomposition(self: TensorImpl) -> Any:
    return aten.pow_.Scalar(self, 2)


@square_out.decomposition
def square_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    return aten.pow.Tensor_Scalar_out(self, 2, out=out)


# --- angle ----------------------------------------------------------------------------------------

# torch: angle is build_borrowing_unary_float_op for real inputs; a complex input gives its real
# dtype and may write a real `out` (unary_op_impl_with_complex_to_float).
_ANGLE_CONFIG: Final = IterConfig(
    promote_inputs_to_common_dtype=True,
    promote_integer_inputs_to_float=True,
    cast_common_dtype_to_outputs=True,
    check_all_same_dtype=False,
    result=ResultDtype.TO_REAL,
)

angle = pointwise("angle(Tensor self) -> Tensor", _ANGLE_CONFIG)


@angle.check
def angle_check(plan: Plan) -> None:
    """Torch: angle_out in UnaryOps.cpp (the float op's safe-casting check, except for a
    complex input writing a real `out`)."""
    common, output = plan.common_dtype, plan.output_dtype
    if common.is_complex and not output.is_complex:
        return  # the iterator checked can_cast(real dtype, out)
    if not can_cast(common, output):
        raise RuntimeError(
            f"result type {common.scalar_name} can't be cast to the desired output type "
            f"{output.scalar_name}"
        )


@angle.compute
def angle_compute(xp: ArrayNamespace, self: Array) -> Array:
    """0 for x >= 0, pi for x < 0, NaN for NaN. Torch: angle_kernel (angle_impl in zmath.h)."""
    angles = xp.where(self < 0, _constant(xp, math.pi, self), xp.zeros_like(self))
    return xp.where(xp.isnan(self), self, angles)


def angle_compute_complex(xp: ArrayNamespace, self: Array) -> Array:
    """arg(z) = atan2(imag, real). Torch: angle_kernel (std::arg)."""
    return xp.atan2(xp.imag(self), xp.real(self))


angle.compute(angle_compute_complex, dtypes=COMPLEX)


@angle.derivative("self")
def angle_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: angle_backward(grad, self)
    return angle_backward(grad, self)


# --- deg2rad, rad2deg -----------------------------------------------------------------------------


def _scale_by(name: str, factor: float) -> Any:
    def precheck(self: TensorImpl) -> None:
        if self._dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")

    def compute(xp: ArrayNamespace, self: Array) -> Array:
        return xp.multiply(self, _constant(xp, factor, self))

    precheck.__name__, compute.__name__ = f"{name}_precheck", f"{name}_compute"
    return precheck, compute


# torch: deg2rad_out / rad2deg_out in UnaryOps.cpp are mul_out(result, self, pi/180 (or 180/pi)
# as a wrapped double): integers compute in the default float dtype, and a float16 product
# is formed in float32 (the CPU mul kernel reads a scalar operand as opmath_t).
deg2rad = pointwise("deg2rad(Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)
_deg2rad_precheck, _deg2rad_compute = _scale_by("deg2rad", math.pi / 180)
deg2rad.precheck(_deg2rad_precheck)
deg2rad.compute(_deg2rad_compute)
deg2rad.compute(in_float32(_deg2rad_compute), dtypes=(float16,))


@deg2rad.derivative("self")
def deg2rad_backward(grad: Tensor) -> Tensor:
    # torch: deg2rad_backward(grad): at::mul(grad, M_PI_180)
    return aten.mul.Scalar(grad, M_PI_180)


rad2deg = pointwise("rad2deg(Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)
_rad2deg_precheck, _rad2deg_compute = _scale_by("rad2deg", 180 / math.pi)
rad2deg.precheck(_rad2deg_precheck)
rad2deg.compute(_rad2deg_compute)
rad2deg.compute(in_float32(_rad2deg_compute), dtypes=(float16,))


@rad2deg.derivative("self")
def rad2deg_backward(grad: Tensor) -> Tensor:
    # torch: rad2deg_backward(grad): at::mul(grad, M_180_PI)
    return aten.mul.Scalar(grad, M_180_PI)


# --- bitwise_not, logical_not ---------------------------------------------------------------------

bitwise_not = pointwise("bitwise_not(Tensor self) -> Tensor", Builder.UNARY_OP)
bitwise_not.compute(lambda xp, x: xp.bitwise_invert(x))
bitwise_not.compute(lambda xp, x: xp.logical_not(x), dtypes=BOOL)

logical_not = pointwise(
    "logical_not(Tensor self) -> Tensor", CONFIGS[Builder.UNARY_FORCE_BOOLEAN_OP]
)


@logical_not.compute
def logical_not_compute(xp: ArrayNamespace, self: Array) -> Array:
    """self == 0 (NaN is true, so its logical_not is false). Torch: logical_not_kernel."""
    return self == 0


logical_not.compute(lambda xp, x: xp.logical_not(x), dtypes=BOOL)
