"""Binary ops: pow, float_power, bitwise and shifts, logical, gcd, lcm (the floating math:
copysign, hypot, atan2, ldexp, logaddexp, xlogy, ... is in ops/binary_math.py).

Torch: aten/src/ATen/native/BinaryOps.cpp and Pow.cpp (the structured meta functions and the
composite ops) and the CPU kernels of native/cpu/BinaryOpsKernel.cpp and PowKernel.cpp. Each
op is one `pointwise` declaration; the iterator (ops/_iterator.py) does broadcasting,
promotion, devices, layouts and out=.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from refimpl._base import promotion
from refimpl._base.dtypes import DType, bool_, complex128, float64
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.strides import contiguous_strides
from refimpl.core.tensor import TensorImpl, empty_tensor, resize_for_output
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_binary import (
    pow_backward,
    pow_backward_exponent,
    pow_backward_exponent_scalar,
    pow_backward_self,
)
from refimpl.ops._iterator import CONFIGS, Builder
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

Operand = TensorImpl | Scalar
ArrayFn = Callable[..., Array]


def _kind(value: Operand) -> tuple[DType, OperandKind]:
    if isinstance(value, TensorImpl):
        return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)
    return promotion.scalar_dtype(value), OperandKind.WRAPPED


def _is_integral(value: Operand) -> bool:
    """Integral including bool (torch: isIntegralType(t, /*includeBool=*/true))."""
    if isinstance(value, TensorImpl):
        return not (value._dtype.is_floating_point or value._dtype.is_complex)
    return isinstance(value, bool | int)


def _inplace_alias(op: PointwiseOp, *schemas: str) -> None:
    """Register torch's `__i<op>__` overloads as in-place forms of `op`.

    Torch: __ilshift__ / __irshift__ build a binary TensorIterator with self as the output.
    """
    for text in schemas:
        op.register(defop(text), "inplace")


def in_float32(kernel: ArrayFn) -> ArrayFn:
    """The float16 variant of a composed binary kernel: compute in float32, round once.

    Torch: CPU kernels compute Half through float (Vectorized<Half> converts to float).
    """

    def compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        wide = kernel(xp, xp.astype(self, xp.float32), xp.astype(other, xp.float32))
        return xp.astype(wide, self.dtype)

    return compute


# --- pow -----------------------------------------------------------------------------------


def _int_pow(xp: ArrayNamespace, base: Array, exponent: Array) -> Array:
    """Integer power that wraps like C++; negative exponents give 1, -1 or 0.

    Torch: powi in native/Pow.h (1 ** -n is 1, (-1) ** -n is +-1, other bases give 0).
    """
    negative = exponent < 0
    safe = xp.where(negative, xp.zeros_like(exponent), exponent)
    result = xp.pow(base, safe)
    one = xp.ones_like(base)
    inverse = xp.where(base == 1, one, xp.zeros_like(base))
    if xp.isdtype(base.dtype, "signed integer"):
        odd = xp.remainder(exponent, xp.asarray(2, dtype=exponent.dtype)) != 0
        inverse = xp.where(base == -1, xp.where(odd, -one, one), inverse)
    return xp.where(negative, inverse, result)


def pow_arrays(xp: ArrayNamespace, self: Array, exponent: Array) -> Array:
    """self ** exponent. Torch: pow_tensor_tensor_kernel / pow_tensor_scalar_kernel (std::pow;
    exponents 0.5, 2, 3, -0.5, -1, -2 computed as sqrt, products and reciprocals)."""
    if xp.isdtype(self.dtype, "integral"):
        return _int_pow(xp, self, exponent)
    result = xp.pow(self, exponent)
    if xp.isdtype(self.dtype, "complex floating"):
        # torch: std::pow on complex is C's cpow, exp(exponent * log(self)) with no special
        # cases, so 0j ** 0 is nan + nanj and 0j ** -1 is inf + nanj (NumPy's power gives
        # 1 and nan + nanj for a zero base).
        formula = xp.exp(exponent * xp.log(self))
        result = xp.where(self == xp.zeros_like(self), formula, result)
    return result


def _is_half(xp: ArrayNamespace, array: Array) -> bool:
    return bool(getattr(xp, "float16", None) == array.dtype)


def _reciprocal(xp: ArrayNamespace, x: Array) -> Array:
    return xp.divide(xp.ones_like(x), x)


# torch: pow_tensor_scalar_kernel's special exponents for float, double and complex (Half
# computes every exponent as pow in float): sqrt(-0.0) is -0.0 and rsqrt(-0.0) is -inf, where
# pow gives +0.0 and +inf; 0j ** -1 is inf + nanj.
_SPECIAL_EXPONENTS: Final[dict[complex, Callable[[ArrayNamespace, Array], Array]]] = {
    2: lambda xp, x: x * x,
    3: lambda xp, x: x * x * x,
    -1: _reciprocal,
    -2: lambda xp, x: _reciprocal(xp, x * x),
    0.5: lambda xp, x: xp.sqrt(x),
    -0.5: lambda xp, x: _reciprocal(xp, xp.sqrt(x)),
}


def pow_scalar_arrays(xp: ArrayNamespace, self: Array, exponent: Array) -> Array:
    """self ** a Scalar exponent (a 0-d array). Torch: pow_Tensor_Scalar_out fills 1 for
    exponent 0 and copies self for 1; pow_tensor_scalar_kernel computes the exponents of
    _SPECIAL_EXPONENTS by their formulas and the rest as pow."""
    value = complex(exponent)
    if value == 0:
        return xp.ones_like(self)
    if value == 1:
        return xp.asarray(self, copy=True)
    special = _SPECIAL_EXPONENTS.get(value)
    exact = xp.isdtype(self.dtype, ("real floating", "complex floating"))
    if special is not None and exact and not _is_half(xp, self):
        return special(xp, self)
    return pow_arrays(xp, self, exponent)


pow_tensor = pointwise(
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "exponent"),
)
pow_tensor.compute(pow_arrays)

pow_scalar = pointwise(
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    # torch: a unary iterator on self (the exponent is the kernel's argument).
    dataclasses.replace(CONFIGS[Builder.BINARY_OP], scalar_operands=False),
    operands=("self", "exponent"),
)


@pow_scalar.precheck
def pow_scalar_precheck(self: TensorImpl, exponent: Scalar) -> None:
    """Torch: TORCH_META_FUNC2(pow, Tensor_Scalar) (a NumPy compatibility check)."""
    if _is_integral(self) and _is_integral(exponent) and exponent < 0:  # type: ignore[operator]
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def pow_scalar_compute_bool(xp: ArrayNamespace, self: Array, exponent: Array) -> Array:
    # torch: a bool base with a bool exponent: exponent False fills 1, True copies self.
    return xp.where(exponent, self, xp.ones_like(self))


pow_scalar.compute(dtypes=(bool_,))(pow_scalar_compute_bool)
pow_scalar.compute(pow_scalar_arrays)


def _pow_base_scalar(self: Scalar, exponent: TensorImpl, out: TensorImpl | None) -> TensorImpl:
    """Torch: TORCH_META_FUNC2(pow, Scalar) allocates the result contiguous with the
    exponent's sizes (not layout-preserving); pow_Scalar_out fills ones for base 1 and
    otherwise runs pow.Tensor_Tensor with the base as a wrapped number."""
    if out is None:
        dtype = result_type_of((_kind(self), _kind(exponent)))
        storage = exponent._storage
        out = empty_tensor(exponent._size, dtype, storage.device, storage.backend)
    # torch: Scalar::equal(1.0) is false for a bool base, true for a complex 1 + 0j.
    if not isinstance(self, bool) and self == 1:
        if out._size != exponent._size:
            resize_for_output(out, exponent._size, contiguous_strides(exponent._size))
        aten.fill_.Scalar(out, 1)
        return out
    pow_tensor([self, exponent], out, {})
    return out


pow_base = defop("pow.Scalar(Scalar self, Tensor exponent) -> Tensor")
pow_base_out = defop(
    "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)"
)


def pow_base_kernel(self: Scalar, exponent: TensorImpl) -> TensorImpl:
    """Scalar ** Tensor. Torch: pow.Scalar (structured; pow_Scalar_out)."""
    return _pow_base_scalar(self, exponent, None)


def pow_base_out_kernel(self: Scalar, exponent: TensorImpl, *, out: TensorImpl) -> TensorImpl:
    """Scalar ** Tensor into `out`. Torch: pow.Scalar_out."""
    return _pow_base_scalar(self, exponent, out)


def pow_base_meta(self: Scalar, exponent: TensorImpl) -> Any:
    """Scalar ** Tensor on meta tensors.

    Torch: meta tensors take the Python meta function of pow (torch/_refs), an elementwise
    op whose result keeps the exponent's layout, unlike the CPU and CUDA kernels.
    """
    return pow_tensor([self, exponent], None, {})


for _key in _BACKEND_KEYS:
    pow_base_out.kernel(_key)(pow_base_out_kernel)
pow_base.kernel(DispatchKey.CPU)(pow_base_kernel)
pow_base.kernel(DispatchKey.CUDA)(pow_base_kernel)
pow_base.kernel(DispatchKey.Meta)(pow_base_meta)


@pow_tensor.derivative("self")
def pow_tensor_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    # torch: pow_backward_self(grad, self, exponent)
    return pow_backward_self(grad, self, exponent)


@pow_tensor.derivative("exponent")
def pow_tensor_backward_exponent(
    grad: Tensor, self: Tensor, exponent: Tensor, result: Tensor
) -> Tensor:
    # torch: pow_backward_exponent(grad, self, exponent, result)
    return pow_backward_exponent(grad, self, exponent, result)


@pow_scalar.derivative("self")
def pow_scalar_backward_self(grad: Tensor, self: Tensor, exponent: Scalar) -> Tensor:
    # torch: pow_backward(grad, self, exponent)
    return pow_backward(grad, self, exponent)


@pow_base.derivative("exponent")
def pow_base_backward_exponent(
    grad: Tensor, self: Scalar, exponent: Tensor, result: Tensor
) -> Tensor:
    # torch: pow_backward_exponent(grad, self, exponent, result), self a Scalar
    return pow_backward_exponent_scalar(grad, self, exponent, result)


# --- float_power -----------------------------------------------------------------------------


def _float_power_dtype(*values: Operand) -> DType:
    """Torch: float_power computes in float64, or complex128 when anything is complex."""
    complex_ = any(
        v._dtype.is_complex if isinstance(v, TensorImpl) else isinstance(v, complex) for v in values
    )
    return complex128 if complex_ else float64


def _to(value: Operand, dtype: DType) -> Operand:
    # torch: Tensor.to(dtype) (aten._to_copy when the dtype differs) and Scalar::toDouble /
    # toComplexDouble for a Scalar.
    if isinstance(value, TensorImpl):
        return value if value._dtype is dtype else aten._to_copy.default(value, dtype=dtype)
    return complex(value) if dtype is complex128 else float(value)  # type: ignore[arg-type]


def _float_power(base: Operand, exponent: Operand) -> Any:
    dtype = _float_power_dtype(base, exponent)
    b, e = _to(base, dtype), _to(exponent, dtype)
    if isinstance(b, TensorImpl) and isinstance(e, TensorImpl):
        return aten.pow.Tensor_Tensor(b, e)
    if isinstance(b, TensorImpl):
        return aten.pow.Tensor_Scalar(b, e)
    return aten.pow.Scalar(b, e)


def _float_power_out(base: Operand, exponent: Operand, out: TensorImpl) -> Any:
    dtype = _float_power_dtype(base, exponent)
    if out._dtype is not dtype:
        raise RuntimeError(
            f"the output given to float_power has dtype {out._dtype.scalar_name} but the "
            f"operation's result requires dtype {dtype.scalar_name}"
        )
    b, e = _to(base, dtype), _to(exponent, dtype)
    if isinstance(b, TensorImpl) and isinstance(e, TensorImpl):
        return aten.pow.Tensor_Tensor_out(b, e, out=out)
    if isinstance(b, TensorImpl):
        return aten.pow.Tensor_Scalar_out(b, e, out=out)
    return aten.pow.Scalar_out(b, e, out=out)


def _float_power_(self: TensorImpl, exponent: Operand) -> Any:
    dtype = _float_power_dtype(self, exponent)
    if self._dtype is not dtype:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self._dtype.scalar_name} but the "
            f"operation's result requires dtype {dtype.scalar_name}"
        )
    e = _to(exponent, dtype)
    if isinstance(e, TensorImpl):
        return aten.pow_.Tensor(self, e)
    return aten.pow_.Scalar(self, e)


# torch: float_power (all overloads) is CompositeImplicitAutograd in Pow.cpp.
_FLOAT_POWER: Final[tuple[tuple[str, Callable[..., Any]], ...]] = (
    ("float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", _float_power),
    ("float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", _float_power),
    ("float_power.Scalar(Scalar self, Tensor exponent) -> Tensor", _float_power),
    (
        (
            "float_power.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        _float_power_out,
    ),
    (
        (
            "float_power.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        _float_power_out,
    ),
    (
        "float_power.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
        _float_power_out,
    ),
    ("float_power_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", _float_power_),
    ("float_power_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", _float_power_),
)


def _float_power_decomposition(fn: Callable[..., Any]) -> Callable[..., Any]:
    def decomposition(self: Operand, exponent: Operand, **out: TensorImpl) -> Any:
        """Torch: float_power in Pow.cpp: `.to(float64 or complex128)`, then pow."""
        return fn(self, exponent, *out.values())

    return decomposition


for _text, _fn in _FLOAT_POWER:
    defop(_text).decomposition(_float_power_decomposition(_fn))


# --- bitwise and, or, xor --------------------------------------------------------------------


def _bitwise(fn_name: str, bool_name: str) -> tuple[ArrayFn, ArrayFn]:
    def compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        return getattr(xp, fn_name)(self, other)

    def compute_bool(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        # The Array API has no bitwise ops on bool; torch's are the logical ones.
        return getattr(xp, bool_name)(self, other)

    return compute, compute_bool


# name, Array API function on integers, on bool. Torch: bitwise_{and,or,xor}_kernel.
_BITWISE: Final = (
    ("bitwise_and", "__and__", "bitwise_and", "logical_and"),
    ("bitwise_or", "__or__", "bitwise_or", "logical_or"),
    ("bitwise_xor", "__xor__", "bitwise_xor", "logical_xor"),
)

BITWISE_OPS: Final[dict[str, PointwiseOp]] = {}
for _name, _, _int_fn, _bool_fn in _BITWISE:
    _op = pointwise(
        f"{_name}.Tensor(Tensor self, Tensor other) -> Tensor",
        Builder.BINARY_OP,
        operands=("self", "other"),
        scalar=(
            f"{_name}.Scalar(Tensor self, Scalar other) -> Tensor",
            f"{_name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
        ),
    )
    _compute, _compute_bool = _bitwise(_int_fn, _bool_fn)
    _op.compute(_compute)
    _op.compute(dtypes=(bool_,))(_compute_bool)
    BITWISE_OPS[_name] = _op


def _dunder(target: str) -> Callable[..., Any]:
    def decomposition(self: TensorImpl, other: Operand) -> Any:
        """Torch: __and__ / __iand__ (and or, xor) are CompositeImplicitAutograd over the
        bitwise op of the same overload (BitwiseOps.cpp)."""
        packet, _, overload = target.partition(".")
        return getattr(getattr(aten, packet), overload)(self, other)

    return decomposition


for _name, _dunder_name, _, _ in _BITWISE:
    _inplace = "__i" + _dunder_name[2:]
    for _overload, _arg in (("Tensor", "Tensor"), ("Scalar", "Scalar")):
        defop(f"{_dunder_name}.{_overload}(Tensor self, {_arg} other) -> Tensor").decomposition(
            _dunder(f"{_name}.{_overload}")
        )
        defop(f"{_inplace}.{_overload}(Tensor(a!) self, {_arg} other) -> Tensor(a!)").decomposition(
            _dunder(f"{_name}_.{_overload}")
        )


# --- shifts ----------------------------------------------------------------------------------


def _bits(xp: ArrayNamespace, dtype: Any) -> int:
    return int(xp.iinfo(dtype).bits)


def _shift_out_of_range(xp: ArrayNamespace, other: Array, limit: int) -> Array:
    # torch: a shift is out of range when negative (as the signed type) or >= `limit`.
    if xp.isdtype(other.dtype, "unsigned integer"):
        return other >= limit
    return (other < 0) | (other >= limit)


def left_shift_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self << other; shifts out of [0, bits) give 0. Torch: lshift_kernel."""
    bits = _bits(xp, self.dtype)
    bad = _shift_out_of_range(xp, other, bits)
    safe = xp.where(bad, xp.zeros_like(other), other)
    return xp.where(bad, xp.zeros_like(self), xp.bitwise_left_shift(self, safe))


def right_shift_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """self >> other; shifts out of range keep only the sign. Torch: rshift_kernel."""
    signed = xp.isdtype(self.dtype, "signed integer")
    limit = _bits(xp, self.dtype) - (1 if signed else 0)
    bad = _shift_out_of_range(xp, other, limit)
    safe = xp.where(bad, xp.asarray(limit if signed else 0, dtype=other.dtype), other)
    shifted = xp.bitwise_right_shift(self, safe)
    return shifted if signed else xp.where(bad, xp.zeros_like(self), shifted)


left_shift = pointwise(
    "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=(
        "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
        "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    ),
)
left_shift.compute(left_shift_arrays)

right_shift = pointwise(
    "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=(
        "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
        "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    ),
)
right_shift.compute(right_shift_arrays)

# torch: __lshift__ / __rshift__ (BinaryOps.cpp) build their own binary TensorIterator over
# the same kernels; the Python operators `<<` and `>>` call them.
lshift = pointwise(
    "__lshift__.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("__lshift__.Scalar(Tensor self, Scalar other) -> Tensor",),
)
lshift.compute(left_shift_arrays)
_inplace_alias(
    lshift,
    "__ilshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "__ilshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
)

rshift = pointwise(
    "__rshift__.Tensor(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_OP,
    operands=("self", "other"),
    scalar=("__rshift__.Scalar(Tensor self, Scalar other) -> Tensor",),
)
rshift.compute(right_shift_arrays)
_inplace_alias(
    rshift,
    "__irshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "__irshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
)


# --- logical and, or, xor ------------------------------------------------------------------


def _logical(fn_name: str) -> ArrayFn:
    def compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        """Torch: logical_{and,or,xor}_kernel: the truth of each operand (nonzero)."""
        a = self if self.dtype == xp.bool else self != 0
        b = other if other.dtype == xp.bool else other != 0
        return getattr(xp, fn_name)(a, b)

    return compute


LOGICAL_OPS: Final[dict[str, PointwiseOp]] = {}
for _name in ("logical_and", "logical_or", "logical_xor"):
    # torch: comparison_op builder: bool result, or cast into out's dtype.
    LOGICAL_OPS[_name] = pointwise(
        f"{_name}(Tensor self, Tensor other) -> Tensor", Builder.COMPARISON_OP
    )
    LOGICAL_OPS[_name].compute(_logical(_name))


# --- gcd, lcm --------------------------------------------------------------------------------


def gcd_arrays(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The greatest common divisor, non-negative. Torch: calc_gcd (Euclid on |a|, |b|)."""
    a, b = xp.abs(self), xp.abs(other)
    while bool(xp.any(a != 0)):
        nonzero = a != 0
        safe = xp.where(nonzero, a, xp.ones_like(a))
        a, b = xp.where(nonzero, xp.remainder(b, safe), a), xp.where(nonzero, a, b)
    return b


gcd = pointwise("gcd(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)
gcd.compute(gcd_arrays)

lcm = pointwise("lcm(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)


@lcm.compute
def lcm_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """|self / gcd * other|, 0 where the gcd is 0. Torch: lcm_kernel."""
    g = gcd_arrays(xp, self, other)
    zero = g == 0
    safe = xp.where(zero, xp.ones_like(g), g)
    return xp.where(zero, xp.zeros_like(g), xp.abs(xp.floor_divide(self, safe) * other))
