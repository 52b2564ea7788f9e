"""The predicates: isnan, isinf, isposinf, isneginf, isfinite, isreal, signbit.

Torch: aten/src/ATen/native/TensorCompare.cpp (isnan, isinf, isposinf, isneginf, signbit,
isfinite, isreal) and their CPU kernels. Each is a `pointwise` declaration with a bool result
(UNARY_FORCE_BOOLEAN_OP), or a decomposition where torch makes the op
CompositeImplicitAutograd.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import bool_
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._iterator import Builder, Plan
from refimpl.ops._pointwise import pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- isnan, isinf, isposinf, isneginf, isfinite, isreal, signbit ---------------------------


def _falses(xp: ArrayNamespace, x: Array) -> Array:
    return xp.zeros(x.shape, dtype=xp.bool)


isnan = pointwise("isnan(Tensor self) -> Tensor", Builder.UNARY_FORCE_BOOLEAN_OP)


@isnan.compute
def isnan_compute(xp: ArrayNamespace, self: Array) -> Array:
    """Torch: isnan is self != self; integers and bools are never NaN."""
    if xp.isdtype(self.dtype, ("real floating", "complex floating")):
        return xp.isnan(self)
    return _falses(xp, self)


isinf = pointwise("isinf(Tensor self) -> Tensor", Builder.UNARY_FORCE_BOOLEAN_OP)


@isinf.compute
def isinf_compute(xp: ArrayNamespace, self: Array) -> Array:
    """Torch: isinf in TensorCompare.cpp (|x| == inf; a complex number with an infinite part)."""
    if xp.isdtype(self.dtype, ("real floating", "complex floating")):
        return xp.isinf(self)
    return _falses(xp, self)


isposinf = pointwise("isposinf(Tensor self) -> Tensor", Builder.UNARY_FORCE_BOOLEAN_OP)


def _bool_out_check(name: str) -> Any:
    def check(p: Plan) -> None:
        # torch: isposinf_out / isneginf_out in TensorCompare.cpp.
        if p.output_dtype is not bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")

    return check


isposinf.check(_bool_out_check("isposinf"))


@isposinf.compute
def isposinf_compute(xp: ArrayNamespace, self: Array) -> Array:
    """Torch: isposinf_kernel (x == inf); integers are never infinite."""
    if xp.isdtype(self.dtype, "real floating"):
        return self == xp.inf
    return _falses(xp, self)


isneginf = pointwise("isneginf(Tensor self) -> Tensor", Builder.UNARY_FORCE_BOOLEAN_OP)
isneginf.check(_bool_out_check("isneginf"))


@isneginf.compute
def isneginf_compute(xp: ArrayNamespace, self: Array) -> Array:
    """Torch: isneginf_kernel (x == -inf); integers are never infinite."""
    if xp.isdtype(self.dtype, "real floating"):
        return self == -xp.inf
    return _falses(xp, self)


signbit = pointwise("signbit(Tensor self) -> Tensor", Builder.UNARY_FORCE_BOOLEAN_OP)


@signbit.compute
def signbit_compute(xp: ArrayNamespace, self: Array) -> Array:
    """Torch: signbit_kernel (std::signbit; x < 0 for integers; false for bool and uint8)."""
    if xp.isdtype(self.dtype, "real floating"):
        return xp.signbit(self)
    if xp.isdtype(self.dtype, "signed integer"):
        return self < 0
    return _falses(xp, self)


isfinite = defop("isfinite(Tensor self) -> Tensor")


@isfinite.decomposition
def isfinite_decomposition(self: TensorImpl) -> Any:
    """Torch: isfinite in TensorCompare.cpp is CompositeImplicitAutograd: true for integers,
    else neither NaN nor infinite."""
    # Differs: torch computes (self == self) * (self.abs() != inf); the same truth table from
    # isnan and isinf, which need no abs of complex numbers.
    return aten.logical_not.default(
        aten.logical_or.default(aten.isnan.default(self), aten.isinf.default(self))
    )


isreal = defop("isreal(Tensor self) -> Tensor")


@isreal.decomposition
def isreal_decomposition(self: TensorImpl) -> Any:
    """Torch: isreal in TensorCompare.cpp: true for real dtypes, else imag == 0."""
    if not self._dtype.is_complex:
        # Differs: torch calls ones_like (which keeps a dense layout); refimpl allocates a
        # contiguous result until ones_like has a kernel.
        return aten.full.default(list(self._size), True, dtype=bool_, device=self._storage.device)
    return aten.eq.Scalar(aten.imag.default(self), 0)
