"""Arithmetic: add, sub, rsub, mul, div (true, trunc, floor), floor_divide, remainder, fmod.

Torch: aten/src/ATen/native/BinaryOps.cpp (the structured meta functions and their checks) and
the CPU kernels of native/cpu/BinaryOpsKernel.cpp. Each op is one `pointwise` declaration; the
iterator (ops/_iterator.py) does broadcasting, promotion, devices, layouts and out=.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from refimpl._base.dtypes import DType, bool_
from refimpl._base.scalars import Scalar, checked_convert
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, conj, conj_scalar, handle_r_to_c, maybe_multiply
from refimpl.ops._backward_binary import div_tensor_other_backward, div_tensor_self_backward
from refimpl.ops._iterator import CONFIGS, Builder, IterConfig, Plan
from refimpl.ops._pointwise import COMPLEX, pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")

Operand = TensorImpl | Scalar

# mul's and the div kernels' iterators: a scalar divisor or factor of a float16/bfloat16
# tensor is read in float32 (see IterConfig.reduced_scalar_opmath).
_BINARY_SCALAR_OPMATH: Final = replace(CONFIGS[Builder.BINARY_OP], reduced_scalar_opmath=True)
_BINARY_FLOAT_SCALAR_OPMATH: Final = replace(
    CONFIGS[Builder.BINARY_FLOAT_OP], reduced_scalar_opmath=True
)

# --- shared checks -----------------------------------------------------------------------


def check_alpha(alpha: Scalar, dtype: DType) -> None:
    """Torch's rules for the `alpha` of add and sub. Torch: alpha_check in BinaryOps.h."""
    if isinstance(alpha, bool) and dtype is not bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    # A complex alpha with an integral result fails this check first, as in torch.
    if isinstance(alpha, float | complex) and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if isinstance(alpha, complex) and not dtype.is_complex:
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )


def _is_bool(value: Operand) -> bool:
    # A Python bool is a wrapped bool tensor in torch.
    return value._dtype is bool_ if isinstance(value, TensorImpl) else isinstance(value, bool)


def _scaled(xp: ArrayNamespace, other: Array, alpha: Scalar) -> Array:
    # torch computes self + alpha * other in the common dtype; alpha arrives converted.
    return xp.multiply(other, xp.asarray(alpha, dtype=other.dtype))


def _one(alpha: Scalar) -> bool:
    # The kernels below test the same inline (`type(alpha) is int and alpha == 1`): they run
    # on every call, and torch skips the multiplication only for an int alpha of 1.
    return type(alpha) is int and alpha == 1


# --- add ---------------------------------------------------------------------------------

add = pointwise(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",),
)


@add.check
def add_check(p: Plan, *, alpha: Scalar) -> dict[str, Scalar] | None:
    """Torch: TORCH_META_FUNC2(add, Tensor) checks alpha after building the iterator."""
    if type(alpha) is int and alpha == 1:  # _one, inline: every `x + y` passes here
        return None
    check_alpha(alpha, p.common_dtype)
    if p.backend is None:
        return None
    # torch: the CPU and CUDA kernels read alpha with Scalar::to<scalar_t>, a checked
    # conversion (int8 with alpha=2**40 fails, even with no elements; uint8 takes -1 as 255);
    # Meta does not.
    return {"alpha": checked_convert(alpha, p.common_dtype)}


def add_compute_bool(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar) -> Array:
    # The Array API defines no add for bool; torch's bool add is logical or.
    return xp.logical_or(self, other) if alpha else xp.asarray(self, copy=True)


add.compute(dtypes=(bool_,))(add_compute_bool)


def add_compute_complex(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar) -> Array:
    # A complex product is not an identity even for alpha 1 ((1+0j) * (inf+0j) is inf+nanj),
    # and torch always multiplies, so complex results multiply always.
    return xp.add(self, _scaled(xp, other, alpha))


add.compute(dtypes=COMPLEX)(add_compute_complex)


# Note [float16 add with alpha]: torch's CPU add_kernel computes float16/bfloat16
# `self + alpha * other` two ways: its vectorized loop in float32, rounded once, and the
# scalar loop for the last elements of a row that fill no whole vector (fewer than 32 on an
# AVX-512 machine, 16 on AVX2) in scalar_t, the product rounded before the sum. Measured on
# 25 contiguous elements every result is the scalar loop's, on 64 every one the vectorized
# loop's. Which elements take which loop depends on the machine's vector width, so refimpl
# computes every element as the scalar loop does: the answer for the small tensors of the
# OpInfo samples, within an ulp of the vectorized loop's elsewhere. mul and div have no such
# split (their scalar operand is read in float32 by both loops: see
# IterConfig.reduced_scalar_opmath).


# The real kernels default alpha to the schema's 1, so a specialized `x + y` calls them
# without it (PointwiseOp.specialized).
@add.compute
def add_compute(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar = 1) -> Array:
    """self + alpha * other. Torch: add_kernel in BinaryOpsKernel.cpp (ufunc add)."""
    return xp.add(self, other if type(alpha) is int and alpha == 1 else _scaled(xp, other, alpha))


@add.derivative("self")
def add_backward_self(grad: Tensor, self_scalar_type: DType) -> Tensor:
    # torch: handle_r_to_c(self.scalar_type(), grad)
    return handle_r_to_c(self_scalar_type, grad)


@add.derivative("other")
def add_backward_other(grad: Tensor, other_scalar_type: DType, alpha: Scalar) -> Tensor:
    # torch: handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))
    return handle_r_to_c(other_scalar_type, maybe_multiply(grad, conj_scalar(alpha)))


add.derivative("self", overload="add.Scalar")(add_backward_self)


# --- sub, rsub ---------------------------------------------------------------------------


def sub_check_bool(self: Operand, other: Operand) -> None:
    """Torch: sub_check in BinaryOps.h (before the iterator is built)."""
    self_bool = _is_bool(self)
    other_bool = _is_bool(other)
    if self_bool and other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if self_bool or other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


sub = pointwise(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",),
)


@sub.precheck(by_metadata=True)
def sub_precheck(self: Operand, other: Operand, *, alpha: Scalar) -> None:
    sub_check_bool(self, other)


sub.check(add_check)


@sub.compute(dtypes=COMPLEX)
def sub_compute_complex(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar) -> Array:
    # As add: torch always multiplies complex operands by alpha.
    return xp.subtract(self, _scaled(xp, other, alpha))


@sub.compute
def sub_compute(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar = 1) -> Array:
    """self - alpha * other. Torch: sub is add with -alpha (sub_kernel)."""
    return xp.subtract(
        self, other if type(alpha) is int and alpha == 1 else _scaled(xp, other, alpha)
    )


rsub = pointwise(
    "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",),
)


@rsub.precheck(by_metadata=True)
def rsub_precheck(self: Operand, other: Operand, *, alpha: Scalar) -> None:
    # torch: rsub(self, other) is sub(other, self), so the check sees them swapped.
    sub_check_bool(other, self)


rsub.check(add_check)


@rsub.compute(dtypes=COMPLEX)
def rsub_compute_complex(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar) -> Array:
    # As add: torch always multiplies complex operands by alpha.
    return xp.subtract(other, _scaled(xp, self, alpha))


@rsub.compute
def rsub_compute(xp: ArrayNamespace, self: Array, other: Array, *, alpha: Scalar = 1) -> Array:
    """other - alpha * self. Torch: rsub in BinaryOps.cpp."""
    return xp.subtract(
        other, self if type(alpha) is int and alpha == 1 else _scaled(xp, self, alpha)
    )


@sub.derivative("self")
def sub_backward_self(grad: Tensor, self_scalar_type: DType) -> Tensor:
    # torch: handle_r_to_c(self.scalar_type(), grad)
    return handle_r_to_c(self_scalar_type, grad)


@sub.derivative("other")
def sub_backward_other(grad: Tensor, other_scalar_type: DType, alpha: Scalar) -> Tensor:
    # torch: handle_r_to_c(other.scalar_type(), maybe_multiply(-grad, alpha.conj()))
    negated = aten.neg.default(grad)
    return handle_r_to_c(other_scalar_type, maybe_multiply(negated, conj_scalar(alpha)))


sub.derivative("self", overload="sub.Scalar")(sub_backward_self)


@rsub.derivative("self")
def rsub_backward_self(grad: Tensor, self_scalar_type: DType, alpha: Scalar) -> Tensor:
    # torch: handle_r_to_c(self.scalar_type(), maybe_multiply(-grad, alpha.conj()))
    negated = aten.neg.default(grad)
    return handle_r_to_c(self_scalar_type, maybe_multiply(negated, conj_scalar(alpha)))


@rsub.derivative("other")
def rsub_backward_other(grad: Tensor, other_scalar_type: DType) -> Tensor:
    # torch: handle_r_to_c(other.scalar_type(), grad)
    return handle_r_to_c(other_scalar_type, grad)


rsub.derivative("self", overload="rsub.Scalar")(rsub_backward_self)


# --- mul ---------------------------------------------------------------------------------

mul = pointwise(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    _BINARY_SCALAR_OPMATH,
    operands=("self", "other"),
    scalar=("mul.Scalar(Tensor self, Scalar other) -> Tensor",),
    scalar_first=("mul_.Scalar",),
)


def mul_compute_bool(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    # The Array API defines no multiply for bool; torch's bool mul is logical and.
    return xp.logical_and(self, other)


mul.compute(dtypes=(bool_,))(mul_compute_bool)


@mul.compute
def mul_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self * other. Torch: mul_kernel in BinaryOpsKernel.cpp."""
    return xp.multiply(self, other)


@mul.derivative("self")
def mul_backward_self(grad: Tensor, other: Tensor, self_scalar_type: DType) -> Tensor:
    # torch: mul_tensor_backward(grad, other, self.scalar_type())
    return handle_r_to_c(self_scalar_type, aten.mul.Tensor(grad, conj(other)))


@mul.derivative("other")
def mul_backward_other(grad: Tensor, self: Tensor, other_scalar_type: DType) -> Tensor:
    # torch: mul_tensor_backward(grad, self, other.scalar_type())
    return handle_r_to_c(other_scalar_type, aten.mul.Tensor(grad, conj(self)))


@mul.derivative("self", overload="mul.Scalar")
def mul_scalar_backward_self(grad: Tensor, other: Scalar, self_scalar_type: DType) -> Tensor:
    # torch: mul_tensor_backward(grad, other, self.scalar_type()), other a Scalar
    return handle_r_to_c(self_scalar_type, aten.mul.Scalar(grad, conj_scalar(other)))


# --- div ---------------------------------------------------------------------------------


def _div_config(extra: dict[str, Any]) -> IterConfig:
    """Torch: TORCH_META_FUNC2(div, Tensor_mode): true division promotes integers to float;
    trunc and floor keep the common dtype."""
    mode = extra.get("rounding_mode")
    if mode is None:
        return _BINARY_FLOAT_SCALAR_OPMATH
    if mode in ("trunc", "floor"):
        return _BINARY_SCALAR_OPMATH
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'"
    )


def _check_integer_divisor(xp: ArrayNamespace, other: Array) -> None:
    # torch: div_trunc_kernel / div_floor_kernel / remainder_kernel on integers.
    if xp.any(other == 0):
        raise RuntimeError("ZeroDivisionError")


def true_divide_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self / other in a floating or complex dtype. Torch: div_true_kernel."""
    return xp.divide(self, other)


def trunc_divide_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """Quotient rounded toward zero. Torch: div_trunc_kernel (C division for integers)."""
    if xp.isdtype(self.dtype, "integral"):
        _check_integer_divisor(xp, other)
        quotient = xp.floor_divide(self, other)
        inexact = xp.remainder(self, other) != 0
        return xp.where(inexact & (quotient < 0), quotient + 1, quotient)
    return xp.trunc(xp.divide(self, other))


def floor_divide_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """Quotient rounded toward -inf. Torch: div_floor_kernel (div_floor_floating for floats:
    the quotient of (a - fmod(a, b)) / b, as Python's float //)."""
    if xp.isdtype(self.dtype, "integral"):
        _check_integer_divisor(xp, other)
    return xp.floor_divide(self, other)


div = pointwise(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    _BINARY_FLOAT_SCALAR_OPMATH,
    operands=("self", "other"),
    scalar=("div.Scalar(Tensor self, Scalar other) -> Tensor",),
)
div.compute(true_divide_arrays)


@div.derivative("self")
def div_backward_self(grad: Tensor, other: Tensor, self_scalar_type: DType) -> Tensor:
    # torch: div_tensor_self_backward(grad, other, self.scalar_type())
    return handle_r_to_c(self_scalar_type, aten.div.Tensor(grad, conj(other)))


@div.derivative("other")
def div_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: div_tensor_other_backward(grad, self, other): -grad * ((self / other) / other).conj(),
    # the real part for a real other
    return div_tensor_other_backward(grad, self, other, None)


@div.derivative("self", overload="div.Scalar")
def div_scalar_backward_self(grad: Tensor, other: Scalar, self_scalar_type: DType) -> Tensor:
    # torch: div_tensor_self_backward(grad, other, self.scalar_type()), other a Scalar
    return handle_r_to_c(self_scalar_type, aten.div.Scalar(grad, conj_scalar(other)))


div_mode = pointwise(
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    _div_config,
    operands=("self", "other"),
    scalar=("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",),
)


@div_mode.check
def div_mode_check(p: Plan, *, rounding_mode: str | None) -> None:
    """Torch: div_trunc_kernel and div_floor_kernel dispatch over integral and floating types
    only, so bool and complex fail in the kernel (not on meta tensors)."""
    if rounding_mode is None or p.backend is None:
        return
    dtype = p.common_dtype
    if dtype is bool_ or dtype.is_complex:
        raise NotImplementedError(
            f"\"div_{rounding_mode}_cpu\" not implemented for '{dtype.scalar_name}'"
        )


@div_mode.compute
def div_mode_compute(
    xp: ArrayNamespace, self: Array, other: Array, *, rounding_mode: str | None
) -> Array:
    """self / other, rounded as `rounding_mode` says. Torch: div_true/trunc/floor kernels."""
    if rounding_mode is None:
        return true_divide_arrays(xp, self, other)
    if rounding_mode == "trunc":
        return trunc_divide_arrays(xp, self, other)
    return floor_divide_arrays(xp, self, other)


@div_mode.derivative("self")
def div_mode_backward_self(
    grad: Tensor, other: Tensor, self_scalar_type: DType, rounding_mode: str | None
) -> Tensor:
    # torch: div_tensor_self_backward(grad, other, self.scalar_type(), rounding_mode): zeros
    # for a rounded quotient.
    return div_tensor_self_backward(grad, other, self_scalar_type, rounding_mode)


@div_mode.derivative("other")
def div_mode_backward_other(
    grad: Tensor, self: Tensor, other: Tensor, rounding_mode: str | None
) -> Tensor:
    # torch: div_tensor_other_backward(grad, self, other, rounding_mode)
    return div_tensor_other_backward(grad, self, other, rounding_mode)


div_mode.derivative("self", overload="div.Scalar_mode")(div_mode_backward_self)


true_divide = defop("true_divide.Tensor(Tensor self, Tensor other) -> Tensor")


@true_divide.decomposition
def true_divide_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Torch: true_divide in BinaryOps.cpp is CompositeImplicitAutograd over div."""
    return aten.div.Tensor(self, other)


true_divide_scalar = defop("true_divide.Scalar(Tensor self, Scalar other) -> Tensor")


@true_divide_scalar.decomposition
def true_divide_scalar_decomposition(self: TensorImpl, other: Scalar) -> Any:
    """Torch: true_divide.Scalar is CompositeImplicitAutograd over div.Scalar."""
    return aten.div.Scalar(self, other)


# --- the CompositeImplicitAutograd aliases: divide, multiply, subtract, true_divide --------
# torch: BinaryOps.cpp defines each as a call of the op it names, overload for overload.

_ALIASES: Final[tuple[tuple[str, str], ...]] = (
    ("true_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", "div.out"),
    ("true_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "div_.Tensor"),
    ("true_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", "div_.Scalar"),
    ("divide.Tensor(Tensor self, Tensor other) -> Tensor", "div.Tensor"),
    ("divide.Scalar(Tensor self, Scalar other) -> Tensor", "div.Scalar"),
    (
        "divide.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        "div.Tensor_mode",
    ),
    (
        "divide.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
        "div.Scalar_mode",
    ),
    ("divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", "div.out"),
    (
        (
            "divide.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        "div.out_mode",
    ),
    ("divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "div_.Tensor"),
    ("divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", "div_.Scalar"),
    (
        ("divide_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)"),
        "div_.Tensor_mode",
    ),
    (
        ("divide_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)"),
        "div_.Scalar_mode",
    ),
    ("multiply.Tensor(Tensor self, Tensor other) -> Tensor", "mul.Tensor"),
    ("multiply.Scalar(Tensor self, Scalar other) -> Tensor", "mul.Scalar"),
    ("multiply.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", "mul.out"),
    ("multiply_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "mul_.Tensor"),
    ("multiply_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", "mul_.Scalar"),
    ("subtract.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "sub.Tensor"),
    ("subtract.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "sub.Scalar"),
    (
        (
            "subtract.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        "sub.out",
    ),
    (
        "subtract_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "sub_.Tensor",
    ),
    (
        "subtract_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
        "sub_.Scalar",
    ),
)


def _alias_of(target: str) -> Any:
    packet, _, overload = target.partition(".")

    def decomposition(*args: Any, **kwargs: Any) -> Any:
        """Torch: an alias in BinaryOps.cpp, CompositeImplicitAutograd over its target."""
        return getattr(getattr(aten, packet), overload)(*args, **kwargs)

    return decomposition


for _schema, _target in _ALIASES:
    defop(_schema).decomposition(_alias_of(_target))


# --- floor_divide, remainder, fmod ---------------------------------------------------------

floor_divide = pointwise(
    "floor_divide(Tensor self, Tensor other) -> Tensor",
    _BINARY_SCALAR_OPMATH,
    operands=("self", "other"),
    scalar=("floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",),
)
floor_divide.compute(floor_divide_arrays)


def _div_floor_refuses(name: str) -> Any:
    def kernel(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        # torch: div_floor_kernel dispatches over integers and floats only (the spec has no
        # dtype facts for floor_divide, so the error is written here).
        raise NotImplementedError(f"\"div_floor_cpu\" not implemented for '{name}'")

    return kernel


floor_divide.compute(dtypes=(bool_,))(_div_floor_refuses("Bool"))
floor_divide.compute(dtypes=COMPLEX[1:2])(_div_floor_refuses("ComplexFloat"))
floor_divide.compute(dtypes=COMPLEX[2:])(_div_floor_refuses("ComplexDouble"))


def _remainder_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """Python's %: the sign of the divisor. Torch: remainder_kernel."""
    if xp.isdtype(self.dtype, "integral"):
        _check_integer_divisor(xp, other)
    return xp.remainder(self, other)


remainder = pointwise(
    "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=(
        "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
        "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    ),
)
remainder.compute(_remainder_arrays)


def remainder_backward_self(grad: Tensor) -> Tensor:
    # torch: grad (remainder and fmod are self minus a multiple of other)
    return grad


@remainder.derivative("other")
def remainder_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: -grad * self.div(other, /*rounding_mode=*/"floor")
    quotient = aten.div.Tensor_mode(self, other, rounding_mode="floor")
    return aten.mul.Tensor(aten.neg.default(grad), quotient)


remainder.derivative("self")(remainder_backward_self)
remainder.derivative("self", overload="remainder.Scalar")(remainder_backward_self)


def _fmod_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """C's fmod: the sign of the dividend. Torch: fmod_kernel (std::fmod; % for integers)."""
    if xp.isdtype(self.dtype, "integral"):
        _check_integer_divisor(xp, other)
        result = xp.remainder(self, other)
        adjust = (result != 0) & ((result < 0) != (self < 0))
        return xp.where(adjust, result - other, result)
    return extension(xp, "fmod")(self, other)


fmod = pointwise(
    "fmod.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("fmod.Scalar(Tensor self, Scalar other) -> Tensor",),
)
fmod.compute(_fmod_arrays)


@fmod.derivative("other")
def fmod_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: -grad * self.div(other, /*rounding_mode=*/"trunc")
    quotient = aten.div.Tensor_mode(self, other, rounding_mode="trunc")
    return aten.mul.Tensor(aten.neg.default(grad), quotient)


fmod.derivative("self")(remainder_backward_self)
fmod.derivative("self", overload="fmod.Scalar")(remainder_backward_self)
