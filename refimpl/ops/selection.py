"""Selection and mixing: where, nan_to_num, masked_fill, lerp, addcmul, addcdiv, frexp (clamp
is in ops/clamp.py).

Torch: aten/src/ATen/native/TensorCompare.cpp (where), UnaryOps.cpp (nan_to_num), Lerp.cpp,
PointwiseOps.cpp (addcmul, addcdiv) and
native/cpu/IndexKernel.cpp (masked_fill). Each elementwise op is one `pointwise` declaration
over TensorIterator (ops/_iterator.py); masked_fill, whose result keeps self's dtype, is
written on the tensors directly.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base import promotion
from refimpl._base.context import should_warn_once
from refimpl._base.dtypes import DType, bool_, int32
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, get_default_dtype, result_type_of
from refimpl._base.scalars import Scalar, checked_convert, convert_scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    resize_for_output,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor, conj, conj_scalar, handle_r_to_c
from refimpl.ops._backward_binary import masked_fill_backward
from refimpl.ops._derivative import derivative
from refimpl.ops._exact import blockwise, fma, fma_float32
from refimpl.ops._iterator import CONFIGS, Builder, IterConfig, Plan
from refimpl.ops._pointwise import pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

Operand = TensorImpl | Scalar

# torch: caffe2::TypeMeta names, which some checks print (`self.dtype()` in a TORCH_CHECK).
TYPE_META_NAMES: Final[dict[str, str]] = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "complex32": "c10::complex<c10::Half>",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
    "uint64": "long unsigned int",
}


def type_meta_name(dtype: DType) -> str:
    """How a TORCH_CHECK prints a `caffe2::TypeMeta` (`long int`, `float`)."""
    return TYPE_META_NAMES.get(dtype.name, dtype.name)


def _operand_dtype(value: Operand) -> tuple[DType, OperandKind]:
    if isinstance(value, TensorImpl):
        return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)
    return promotion.scalar_dtype(value), OperandKind.WRAPPED


def _resize_out(out: TensorImpl, size: tuple[int, ...]) -> None:
    """Torch: at::native::resize_output for an out= argument of another shape.

    Differs: without the deprecation warning torch gives for a non-empty `out` (resize_ has
    no kernel yet; this resizes through the tensor core directly).
    """
    if out._size != size:
        resize_for_output(out, size, geometry.contiguous_strides(size))


# --- where -------------------------------------------------------------------------------

# torch: where_self_out builds its iterator over (condition, self, other) after converting
# self and other to their result type; the bool condition never changes that result type,
# so promoting over all three gives the same common dtype.
_WHERE_CONFIG: Final = dataclasses.replace(CONFIGS[Builder.TERNARY_OP], bool_condition=True)

where = pointwise(
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    _WHERE_CONFIG,
    operands=("condition", "self", "other"),
)


@where.prepare
def where_prepare(
    operands: Sequence[Any], out: TensorImpl | None, extra: dict[str, Any]
) -> Sequence[Any]:
    """Torch: where_self_out checks the condition's dtype (uint8 still works, with a warning)."""
    condition = operands[0]
    if condition._dtype is bool_ and out is None:
        return operands  # the common call
    if condition._dtype.name == "uint8":
        if should_warn_once("where uint8"):  # torch: TORCH_WARN_ONCE
            warnings.warn(
                "where received a uint8 condition tensor. This behavior is deprecated and will "
                "be removed in a future version of PyTorch. Use a boolean condition instead.",
                UserWarning,
                stacklevel=6,
            )
        operands = [aten.ne.Scalar(condition, 0), *operands[1:]]
    elif condition._dtype is not bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype.scalar_name}"
        )
    if out is not None:
        expected = result_type_of([_operand_dtype(v) for v in operands[1:]])
        if out._dtype is not expected:
            raise RuntimeError(
                f"Expected out type to be {expected.scalar_name} but got {out._dtype.scalar_name}"
            )
    return operands


@where.compute
def where_compute(xp: ArrayNamespace, condition: Array, self: Array, other: Array) -> Array:
    """condition ? self : other. Torch: where_kernel in native/cpu/TensorCompareKernel.cpp."""
    # Differs: the iterator hands every operand over in the common dtype; the condition is
    # turned back to bool here (exact: it holds only 0 and 1).
    if condition.dtype != xp.bool:
        condition = condition != 0
    return xp.where(condition, self, other)


@where.derivative("self")
def where_backward_self(grad: Tensor, condition: Tensor) -> Tensor:
    # torch: where(condition, grad, 0)
    return aten.where.ScalarOther(condition, grad, 0)


@where.derivative("other")
def where_backward_other(grad: Tensor, condition: Tensor) -> Tensor:
    # torch: where(condition, 0, grad)
    return aten.where.ScalarSelf(condition, 0, grad)


def _where_scalars(condition: TensorImpl, self: Operand, other: Operand) -> Any:
    # torch: where.ScalarSelf/ScalarOther/Scalar (TensorCompare.cpp) wrap the scalars as
    # tensors of the result type, which the Python binding does too (aten.scalar_tensor).
    dtype = result_type_of([_operand_dtype(self), _operand_dtype(other)])
    dev = condition._storage.device

    def as_tensor(value: Operand) -> Any:
        if isinstance(value, TensorImpl):
            return value
        return aten.scalar_tensor.default(value, dtype=dtype, device=dev)

    return aten.where.self(condition, as_tensor(self), as_tensor(other))


where_scalar_other = defop(
    "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor"
)


@where_scalar_other.decomposition
def where_scalar_other_decomposition(condition: TensorImpl, self: TensorImpl, other: Scalar) -> Any:
    """Torch: where.ScalarOther is CompositeImplicitAutograd over where.self."""
    return _where_scalars(condition, self, other)


where_scalar_self = defop("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor")


@where_scalar_self.decomposition
def where_scalar_self_decomposition(condition: TensorImpl, self: Scalar, other: TensorImpl) -> Any:
    """Torch: where.ScalarSelf is CompositeImplicitAutograd over where.self."""
    return _where_scalars(condition, self, other)


where_scalar = defop("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor")


@where_scalar.decomposition
def where_scalar_decomposition(condition: TensorImpl, self: Scalar, other: Scalar) -> Any:
    """Torch: where.Scalar is CompositeImplicitAutograd over where.self."""
    return _where_scalars(condition, self, other)


# --- scalar_tensor -----------------------------------------------------------------------

scalar_tensor = defop(
    "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)


@scalar_tensor.kernel(CEA)
def scalar_tensor_kernel(
    s: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: Any,
    pin_memory: bool | None,
) -> Any:
    """A 0-dim tensor holding `s`, in the default dtype unless told.

    Torch: scalar_tensor in TensorFactories.cpp (the default dtype even for an int `s`).
    """
    return aten.full.default(
        [], s, dtype=get_default_dtype() if dtype is None else dtype, device=device
    )


scalar_tensor_out = defop("scalar_tensor.out(Scalar s, *, Tensor(a!) out) -> Tensor(a!)")


@scalar_tensor_out.kernel(CEA)
def scalar_tensor_out_kernel(s: Scalar, *, out: TensorImpl) -> Any:
    """Torch: the out= form generated for a CompositeExplicitAutograd factory."""
    _resize_out(out, ())
    return aten.fill_.Scalar(out, s)


# --- nan_to_num --------------------------------------------------------------------------

nan_to_num = pointwise(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    Builder.UNARY_OP,
)


def _nan_to_num_real(
    xp: ArrayNamespace,
    x: Array,
    nan: float | None,
    posinf: float | None,
    neginf: float | None,
) -> Array:
    info = xp.finfo(x.dtype)
    high = xp.asarray(info.max if posinf is None else posinf, dtype=x.dtype)
    low = xp.asarray(info.min if neginf is None else neginf, dtype=x.dtype)
    fill = xp.asarray(0.0 if nan is None else nan, dtype=x.dtype)
    x = xp.where(xp.isnan(x), fill, x)
    x = xp.where(x == xp.inf, high, x)
    return xp.where(x == -xp.inf, low, x)


@nan_to_num.compute
def nan_to_num_compute(
    xp: ArrayNamespace,
    self: Array,
    *,
    nan: float | None,
    posinf: float | None,
    neginf: float | None,
) -> Array:
    """NaN -> nan (0), +inf -> posinf (dtype max), -inf -> neginf (dtype min); integers and
    bools pass through. Torch: nan_to_num_kernel in native/cpu/UnaryOpsKernel.cpp, which
    treats a complex number's real and imaginary parts separately."""
    if xp.isdtype(self.dtype, "complex floating"):
        real = _nan_to_num_real(xp, xp.real(self), nan, posinf, neginf)
        imag = _nan_to_num_real(xp, xp.imag(self), nan, posinf, neginf)
        # Both parts are finite now, so real + imag * 1j is exact.
        return xp.astype(real, self.dtype) + xp.astype(imag, self.dtype) * xp.asarray(
            1j, dtype=self.dtype
        )
    if xp.isdtype(self.dtype, "real floating"):
        return _nan_to_num_real(xp, self, nan, posinf, neginf)
    return xp.asarray(self, copy=True)


@nan_to_num.derivative("self")
def nan_to_num_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * at::isfinite(self)
    return aten.mul.Tensor(grad, aten.isfinite.default(self))


# --- masked_fill -------------------------------------------------------------------------


def _check_mask(mask: TensorImpl) -> None:
    if mask._dtype is not bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{type_meta_name(mask._dtype)}"
        )


def _fill_value(value: Operand) -> Scalar:
    if isinstance(value, TensorImpl):
        if value._size:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{len(value._size)} dimension(s)."
            )
        if value.is_meta:
            # torch: the Meta kernel reads no value; a stand-in of its kind keeps the checks.
            return convert_scalar(0, value._dtype)
        return aten.item.default(value)  # type: ignore[no-any-return]  # a Python scalar
    return value


def masked_fill_inplace(self: TensorImpl, mask: TensorImpl, value: Operand) -> TensorImpl:
    """Write `value` where `mask` is True; the mask broadcasts to self, never the reverse.

    Torch: masked_fill__cpu in native/TensorAdvancedIndexing.cpp (masked_fill_kernel).
    """
    _check_mask(mask)
    fill = _fill_value(value)
    shape = data.broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._size))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, shape))}]"
        )
    backend = self._storage.backend
    if backend is not None:
        data.check_writable(self)
        xp = backend.xp
        # torch: Scalar::to<scalar_t>, a checked conversion (1j into an int64 tensor fails).
        converted = checked_convert(fill, self._dtype)
        filler = xp.asarray(converted, dtype=backend_dtype(backend, self._dtype))
        values = xp.where(array_of(mask), filler, array_of(self))
        write_array(self, xp.broadcast_to(values, self._size))
    return self


def masked_fill_functional(self: TensorImpl, mask: TensorImpl, value: Operand) -> Any:
    """Torch: masked_fill (CompositeExplicitAutograd): expand self and mask together, clone
    self, then masked_fill_."""
    _check_mask(mask)
    _fill_value(value)
    # torch: expand_outplace(mask, self) names the mask first in its broadcast error.
    shape = data.broadcast_shapes(mask._size, self._size)
    expanded = self if shape == self._size else aten.expand.default(self, list(shape))
    return masked_fill_inplace(aten.clone.default(expanded), mask, value)


def masked_fill_out(self: TensorImpl, mask: TensorImpl, value: Operand, out: TensorImpl) -> Any:
    """Torch: the out= form generated for masked_fill (resize, then copy the result)."""
    result = masked_fill_functional(self, mask, value)
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {type_meta_name(result._dtype)}, but got "
            f"{type_meta_name(out._dtype)} instead"
        )
    _resize_out(out, result._size)
    return aten.copy_.default(out, result)


for _kind, _value in (("Scalar", "Scalar"), ("Tensor", "Tensor")):
    _functional = defop(f"masked_fill.{_kind}(Tensor self, Tensor mask, {_value} value) -> Tensor")
    _functional.kernel(CEA)(masked_fill_functional)
    _out = defop(
        f"masked_fill.{_kind}_out(Tensor self, Tensor mask, {_value} value, *, Tensor(a!) out) "
        "-> Tensor(a!)"
    )

    @_out.kernel(CEA)
    def masked_fill_out_kernel(
        self: TensorImpl, mask: TensorImpl, value: Operand, *, out: TensorImpl
    ) -> Any:
        return masked_fill_out(self, mask, value, out)

    _inplace = defop(
        f"masked_fill_.{_kind}(Tensor(a!) self, Tensor mask, {_value} value) -> Tensor(a!)"
    )
    for _key in _BACKEND_KEYS:
        _inplace.kernel(_key)(masked_fill_inplace)


def masked_fill_backward_self(grad: Tensor, mask: Tensor) -> Tensor:
    # torch: grad.masked_fill(mask, 0)
    return aten.masked_fill.Scalar(grad, mask, 0)


def masked_fill_backward_value(grad: Tensor, mask: Tensor) -> Tensor:
    # torch: masked_fill_backward(grad, mask)
    return masked_fill_backward(grad, mask)


derivative("aten::masked_fill.Scalar", "self")(masked_fill_backward_self)
derivative("aten::masked_fill.Tensor", "self")(masked_fill_backward_self)
derivative("aten::masked_fill.Tensor", "value")(masked_fill_backward_value)


# --- lerp --------------------------------------------------------------------------------


def _lerp_check(self: TensorImpl, end: TensorImpl, *rest: Any, **extra: Any) -> None:
    # torch: TORCH_META_FUNC(lerp_Scalar) / lerp_Tensor in Lerp.cpp.
    if self._dtype is not end._dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self._dtype)} for `end` but got dtype "
            f"{type_meta_name(end._dtype)}"
        )
    weight = rest[0] if rest else extra.get("weight")
    if isinstance(weight, TensorImpl) and weight._dtype is not self._dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self._dtype)} for `weight` but got dtype "
            f"{type_meta_name(weight._dtype)}"
        )


def lerp_arrays(xp: ArrayNamespace, self: Array, end: Array, weight: Array) -> Array:
    """self + weight * (end - self), computed from the nearer end for accuracy.

    Torch: lerp in native/Lerp.h (|weight| < 0.5 starts from self, else from end) and
    LerpKernel.cpp's lerp_vec: `fmadd(small ? weight : weight - 1, end - self, small ? self :
    end)`. The kernels are compiled with FMA, so both the vectorized and the scalar path (GCC
    contracts `self + weight * diff` and `end - diff * (1 - weight)`) round the real
    product-plus-sum once; float32 (and float16/bfloat16, computed in float32) and float64
    use the exact fma of _exact.py (torch 2.13 verified bit for bit on 10^6 float32 values,
    contiguous and strided, against about 20% differing when rounded twice). The signs of
    zero results are the scalar path's (`-(1 - weight)`, -0 for weight 1); the vectorized
    path's `weight - 1` gives +0 there (torch's own result depends on the path).

    Differs: complex values are computed as `self + weight * diff` / `end - diff * (1 -
    weight)` with each operation rounded; torch's complex products (c10::complex's, FMA
    contracted, or AVX's fmaddsub, different again between its scalar and vectorized paths)
    are not reproduced: within 2 ulps, the last bit differing on 12-39% of random values
    (measured, complex64 and complex128).
    """
    if xp.isdtype(self.dtype, "complex floating"):
        diff = end - self
        one = xp.asarray(1, dtype=self.dtype)
        near_self = xp.abs(weight) < 0.5
        return xp.where(near_self, self + weight * diff, end - diff * (one - weight))
    return blockwise(xp, _lerp_real, self, end, weight)


def _lerp_real(xp: ArrayNamespace, self: Array, end: Array, weight: Array) -> Array:
    # The scalar path's fma(weight, diff, self) or fma(-(1 - weight), diff, end): -(1 - w)
    # is w - 1 but for w == 1, where it is -0, as the product -diff * (1 - w) is.
    near_self = xp.abs(weight) < 0.5
    one = xp.asarray(1, dtype=weight.dtype)
    coefficient = xp.where(near_self, weight, -(one - weight))
    base = xp.where(near_self, self, end)
    if self.dtype == xp.float32:
        return fma_float32(xp, coefficient, end - self, base)
    return fma(xp, coefficient, end - self, base)


_LERP_CONFIG: Final = IterConfig(allow_cpu_scalars=True)

lerp_scalar = pointwise(
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    _LERP_CONFIG,
    opmath=True,
)
lerp_scalar.precheck(_lerp_check)


@lerp_scalar.check
def lerp_scalar_convert(p: Plan, *, weight: Scalar) -> dict[str, Scalar] | None:
    # torch: weight.to<opmath_t>(), a checked conversion.
    if p.backend is None:
        return None
    return {"weight": checked_convert(weight, p.common_dtype)}


@lerp_scalar.compute
def lerp_scalar_compute(xp: ArrayNamespace, self: Array, end: Array, *, weight: Scalar) -> Array:
    """Torch: lerp_scalar_kernel in native/cpu/LerpKernel.cpp."""
    return lerp_arrays(xp, self, end, xp.asarray(weight, dtype=self.dtype))


@lerp_scalar.derivative("self")
def lerp_scalar_backward_self(grad: Tensor, weight: Scalar) -> Tensor:
    # torch: weight.isComplex() ? grad * (1 - weight.conj().toComplexDouble())
    #                           : grad * (1 - weight.toDouble())
    if isinstance(weight, complex):
        return aten.mul.Scalar(grad, 1 - weight.conjugate())
    return aten.mul.Scalar(grad, 1 - float(weight))


@lerp_scalar.derivative("end")
def lerp_scalar_backward_end(grad: Tensor, weight: Scalar) -> Tensor:
    # torch: grad * weight.conj()
    return aten.mul.Scalar(grad, conj_scalar(weight))


lerp_tensor = pointwise(
    "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    _LERP_CONFIG,
    opmath=True,
)
lerp_tensor.precheck(_lerp_check)
lerp_tensor.compute(lerp_arrays)


@lerp_tensor.derivative("self")
def lerp_tensor_backward_self(grad: Tensor, weight: Tensor) -> Tensor:
    # torch: grad * (1 - weight).conj()
    return aten.mul.Tensor(grad, conj(aten.rsub.Scalar(weight, 1)))


@lerp_tensor.derivative("end")
def lerp_tensor_backward_end(grad: Tensor, weight: Tensor) -> Tensor:
    # torch: grad * weight.conj()
    return aten.mul.Tensor(grad, conj(weight))


@lerp_tensor.derivative("weight")
def lerp_tensor_backward_weight(grad: Tensor, self: Tensor, end: Tensor) -> Tensor:
    # torch: grad * (end - self).conj()
    return aten.mul.Tensor(grad, conj(aten.sub.Tensor(end, self)))


# --- addcmul, addcdiv --------------------------------------------------------------------

addcmul = pointwise(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    Builder.TERNARY_OP,
    opmath=True,
)


def _value_check(p: Plan, *, value: Scalar) -> dict[str, Scalar] | None:
    # torch: value.to<scalar_t>() in the CPU kernels, a checked conversion.
    if p.backend is None:
        return None
    return {"value": checked_convert(value, p.common_dtype)}


addcmul.check(_value_check)


@addcmul.compute
def addcmul_compute(
    xp: ArrayNamespace, self: Array, tensor1: Array, tensor2: Array, *, value: Scalar
) -> Array:
    """self + value * tensor1 * tensor2. Torch: addcmul_cpu_kernel in PointwiseOpsKernel.cpp."""
    scale = xp.asarray(value, dtype=self.dtype)
    return self + scale * tensor1 * tensor2


def addc_backward_self(grad: Tensor, self_scalar_type: DType) -> Tensor:
    # torch: handle_r_to_c(self.scalar_type(), grad)
    return handle_r_to_c(self_scalar_type, grad)


addcmul.derivative("self")(addc_backward_self)


@addcmul.derivative("tensor1")
def addcmul_backward_tensor1(
    grad: Tensor, tensor1_scalar_type: DType, tensor2: Tensor, value: Scalar
) -> Tensor:
    # torch: handle_r_to_c(tensor1.scalar_type(), grad * (tensor2 * value).conj())
    scaled = conj(aten.mul.Scalar(tensor2, value))
    return handle_r_to_c(tensor1_scalar_type, aten.mul.Tensor(grad, scaled))


@addcmul.derivative("tensor2")
def addcmul_backward_tensor2(
    grad: Tensor, tensor1: Tensor, tensor2_scalar_type: DType, value: Scalar
) -> Tensor:
    # torch: handle_r_to_c(tensor2.scalar_type(), grad * (tensor1 * value).conj())
    scaled = conj(aten.mul.Scalar(tensor1, value))
    return handle_r_to_c(tensor2_scalar_type, aten.mul.Tensor(grad, scaled))


addcdiv = pointwise(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    Builder.TERNARY_OP,
    opmath=True,
)


@addcdiv.precheck(by_metadata=True)
def addcdiv_precheck(
    self: TensorImpl, tensor1: TensorImpl, tensor2: TensorImpl, *, value: Scalar
) -> None:
    """Torch: TORCH_META_FUNC(addcdiv) refuses integer tensor1 and tensor2, whatever self is."""
    if not _is_inexact(tensor1._dtype) and not _is_inexact(tensor2._dtype):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )


def _is_inexact(dtype: DType) -> bool:
    return dtype.is_floating_point or dtype.is_complex


addcdiv.check(_value_check)


@addcdiv.compute
def addcdiv_compute(
    xp: ArrayNamespace, self: Array, tensor1: Array, tensor2: Array, *, value: Scalar
) -> Array:
    """self + value * tensor1 / tensor2. Torch: addcdiv_cpu_kernel in PointwiseOpsKernel.cpp."""
    scale = xp.asarray(value, dtype=self.dtype)
    return self + scale * tensor1 / tensor2


addcdiv.derivative("self")(addc_backward_self)


@addcdiv.derivative("tensor1")
def addcdiv_backward_tensor1(
    grad: Tensor, tensor1_scalar_type: DType, tensor2: Tensor, value: Scalar
) -> Tensor:
    # torch: handle_r_to_c(tensor1.scalar_type(), grad * (value / tensor2).conj()), where
    # `value / tensor2` fills a tensor like tensor2 with value and divides it
    ratio = aten.div.Tensor(aten.full_like.default(tensor2, value), tensor2)
    return handle_r_to_c(tensor1_scalar_type, aten.mul.Tensor(grad, conj(ratio)))


@addcdiv.derivative("tensor2")
def addcdiv_backward_tensor2(
    grad: Tensor, tensor1: Tensor, tensor2_scalar_type: DType, tensor2: Tensor, value: Scalar
) -> Tensor:
    # torch: handle_r_to_c(tensor2.scalar_type(),
    #                      -grad * (value * tensor1 / (tensor2 * tensor2)).conj())
    square = aten.mul.Tensor(tensor2, tensor2)
    ratio = aten.div.Tensor(aten.mul.Scalar(tensor1, value), square)
    product = aten.mul.Tensor(aten.neg.default(grad), conj(ratio))
    return handle_r_to_c(tensor2_scalar_type, product)


# --- frexp -------------------------------------------------------------------------------


def _frexp_check(self: TensorImpl, mantissa: TensorImpl, exponent: TensorImpl) -> None:
    # torch: frexp_out in native/UnaryOps.cpp.
    if not self._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if mantissa._dtype is not self._dtype:
        raise RuntimeError(
            f"torch.frexp() expects mantissa to have dtype {type_meta_name(self._dtype)} but "
            f"got {type_meta_name(mantissa._dtype)}"
        )
    if exponent._dtype is not int32:
        raise RuntimeError(
            "torch.frexp() expects exponent to have int dtype but got "
            f"{type_meta_name(exponent._dtype)}"
        )


frexp_out = defop(
    "frexp.Tensor_out(Tensor self, *, Tensor(a!) mantissa, Tensor(b!) exponent) -> "
    "(Tensor(a!) mantissa, Tensor(b!) exponent)"
)


def frexp_out_kernel(
    self: TensorImpl, *, mantissa: TensorImpl, exponent: TensorImpl
) -> tuple[TensorImpl, TensorImpl]:
    """self = mantissa * 2**exponent, |mantissa| in [0.5, 1). Torch: frexp_out (C frexp)."""
    _frexp_check(self, mantissa, exponent)
    _resize_out(mantissa, self._size)
    _resize_out(exponent, self._size)
    backend = self._storage.backend
    if backend is not None:
        xp = backend.xp
        values = array_of(self)
        man, exp = extension(xp, "frexp")(values)
        write_array(mantissa, xp.astype(man, backend_dtype(backend, self._dtype)))
        write_array(exponent, xp.astype(exp, backend_dtype(backend, int32)))
    return mantissa, exponent


for _key in _BACKEND_KEYS:
    frexp_out.kernel(_key)(frexp_out_kernel)

frexp = defop("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)")


@frexp.kernel(CEA)
def frexp_kernel(self: TensorImpl) -> tuple[Any, Any]:
    """Torch: frexp (CompositeExplicitAutograd) allocates like self and calls frexp.Tensor_out."""
    if not self._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    # Differs: torch allocates with empty_like (which keeps a dense layout); refimpl
    # allocates contiguous outputs until empty_like has a kernel.
    dev = self._storage.device
    mantissa = aten.empty.memory_format(list(self._size), dtype=self._dtype, device=dev)
    exponent = aten.empty.memory_format(list(self._size), dtype=int32, device=dev)
    return aten.frexp.Tensor_out(self, mantissa=mantissa, exponent=exponent)  # type: ignore[no-any-return]  # a pair


@frexp.derivative("self")
def frexp_backward_self(grad: Tensor, exponent: Tensor) -> Tensor:
    # torch: grad / exponent.exp2() (the mantissa's gradient; the exponent has none)
    if grad is None:
        return None  # torch: an undefined gradient gives an undefined one
    return aten.div.Tensor(grad, aten.exp2.default(exponent))
