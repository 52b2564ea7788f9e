"""Comparisons: eq, ne, lt, le, gt, ge and their aliases, maximum, minimum, fmax, fmin,
isclose, equal, allclose.

Torch: aten/src/ATen/native/BinaryOps.cpp (comparison meta functions over the comparison_op
builder, the CompositeImplicitAutograd aliases), TensorCompare.cpp (isclose, allclose) and
ReduceOps.cpp (cpu_equal); the CPU kernels of native/cpu/BinaryOpsKernel.cpp.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import bool_
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import get_default_dtype
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._iterator import Builder
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd

ArrayFn = Callable[[ArrayNamespace, Array, Array], Array]

# --- eq, ne, lt, le, gt, ge ------------------------------------------------------------------


def _ordered(fn_name: str) -> ArrayFn:
    def compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        # The Array API orders no bools; False < True as integers.
        if self.dtype == xp.bool and fn_name not in ("equal", "not_equal"):
            self, other = xp.astype(self, xp.int8), xp.astype(other, xp.int8)
        return getattr(xp, fn_name)(self, other)

    compute.__doc__ = (
        f"Elementwise {fn_name}. Torch: the comparison kernels of BinaryOpsKernel.cpp."
    )
    return compute


# torch name, Array API function, CompositeImplicitAutograd alias.
_COMPARISONS: Final = (
    ("eq", "equal", None),
    ("ne", "not_equal", "not_equal"),
    ("lt", "less", "less"),
    ("le", "less_equal", "less_equal"),
    ("gt", "greater", "greater"),
    ("ge", "greater_equal", "greater_equal"),
)

COMPARISONS: Final[dict[str, PointwiseOp]] = {}
for _name, _fn, _ in _COMPARISONS:
    COMPARISONS[_name] = pointwise(
        f"{_name}.Tensor(Tensor self, Tensor other) -> Tensor",
        Builder.COMPARISON_OP,
        operands=("self", "other"),
        scalar=(f"{_name}.Scalar(Tensor self, Scalar other) -> Tensor",),
    )
    COMPARISONS[_name].compute(_ordered(_fn))


def _alias(target: str) -> Callable[..., Any]:
    def decomposition(self: TensorImpl, other: Any, **out: TensorImpl) -> Any:
        """Torch: the comparison aliases (greater, less_equal, ...) are
        CompositeImplicitAutograd over gt, le, ... (BinaryOps.cpp)."""
        packet, _, overload = target.partition(".")
        return getattr(getattr(aten, packet), overload)(self, other, **out)

    return decomposition


_OUT_OF: Final = {"Tensor": "Tensor_out", "Scalar": "Scalar_out"}
for _name, _, _alias_name in _COMPARISONS:
    if _alias_name is None:
        continue
    for _overload, _arg in (("Tensor", "Tensor"), ("Scalar", "Scalar")):
        defop(f"{_alias_name}.{_overload}(Tensor self, {_arg} other) -> Tensor").decomposition(
            _alias(f"{_name}.{_overload}")
        )
        defop(
            f"{_alias_name}.{_OUT_OF[_overload]}(Tensor self, {_arg} other, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        ).decomposition(_alias(f"{_name}.{_OUT_OF[_overload]}"))
        defop(
            f"{_alias_name}_.{_overload}(Tensor(a!) self, {_arg} other) -> Tensor(a!)"
        ).decomposition(_alias(f"{_name}_.{_overload}"))


# --- maximum, minimum, fmax, fmin ----------------------------------------------------------


def _extremum(pick: str, propagate_nan: bool) -> ArrayFn:
    def compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
        if self.dtype == xp.bool:
            # The Array API has no maximum of bools: max is or, min is and.
            fn = xp.logical_or if pick == "maximum" else xp.logical_and
            return fn(self, other)
        result = getattr(xp, pick)(self, other)
        if not xp.isdtype(self.dtype, "real floating"):
            return result
        a_nan, b_nan = xp.isnan(self), xp.isnan(other)
        if propagate_nan:
            # torch: maximum / minimum propagate NaN.
            return xp.where(a_nan, self, xp.where(b_nan, other, result))
        # torch: fmax / fmin ignore a NaN unless both are NaN.
        return xp.where(a_nan, other, xp.where(b_nan, self, result))

    return compute


_EXTREMA: Final = (
    ("maximum", "maximum", True),
    ("minimum", "minimum", True),
    ("fmax", "maximum", False),
    ("fmin", "minimum", False),
)

EXTREMA: Final[dict[str, PointwiseOp]] = {}
for _name, _pick, _propagate in _EXTREMA:
    # torch: maximum_kernel, minimum_kernel, fmax_kernel, fmin_kernel; complex dtypes raise
    # "maximum not implemented for complex tensors." (from spec/kernel_dtypes.json).
    EXTREMA[_name] = pointwise(f"{_name}(Tensor self, Tensor other) -> Tensor", Builder.BINARY_OP)
    EXTREMA[_name].compute(_extremum(_pick, _propagate))


def _split_ties(grad: Tensor, self: Tensor, other: Tensor, loses: Any) -> Tensor:
    # torch: at::where(self == other, grad / 2, grad).masked_fill_(<this input loses>, 0)
    half = aten.div.Scalar(grad, 2)
    shared = aten.where.self(aten.eq.Tensor(self, other), half, grad)
    return aten.masked_fill_.Scalar(shared, loses(self, other), 0)


@EXTREMA["maximum"].derivative("self")
def maximum_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
    return _split_ties(grad, self, other, aten.lt.Tensor)


@EXTREMA["maximum"].derivative("other")
def maximum_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::where(self == other, grad / 2, grad).masked_fill_(self > other, 0)
    return _split_ties(grad, self, other, aten.gt.Tensor)


@EXTREMA["minimum"].derivative("self")
def minimum_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::where(self == other, grad / 2, grad).masked_fill_(self > other, 0)
    return _split_ties(grad, self, other, aten.gt.Tensor)


@EXTREMA["minimum"].derivative("other")
def minimum_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
    return _split_ties(grad, self, other, aten.lt.Tensor)


def _self_wins(compare: Any, self: Tensor, other: Tensor) -> Tensor:
    # torch: (self >= other).logical_or_(other.isnan()) for fmax (<= for fmin): where self
    # is the result (a NaN other loses).
    return aten.logical_or.default(compare(self, other), aten.isnan.default(other))


@EXTREMA["fmax"].derivative("self")
def fmax_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad.masked_fill((self >= other).logical_or_(other.isnan()).logical_not_(), 0)
    loses = aten.logical_not.default(_self_wins(aten.ge.Tensor, self, other))
    return aten.masked_fill.Scalar(grad, loses, 0)


@EXTREMA["fmax"].derivative("other")
def fmax_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad.masked_fill((self >= other).logical_or_(other.isnan()), 0)
    return aten.masked_fill.Scalar(grad, _self_wins(aten.ge.Tensor, self, other), 0)


@EXTREMA["fmin"].derivative("self")
def fmin_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad.masked_fill((self <= other).logical_or_(other.isnan()).logical_not_(), 0)
    loses = aten.logical_not.default(_self_wins(aten.le.Tensor, self, other))
    return aten.masked_fill.Scalar(grad, loses, 0)


@EXTREMA["fmin"].derivative("other")
def fmin_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad.masked_fill((self <= other).logical_or_(other.isnan()), 0)
    return aten.masked_fill.Scalar(grad, _self_wins(aten.le.Tensor, self, other), 0)


def _max_min(target: str) -> Callable[..., Any]:
    def decomposition(self: TensorImpl, other: TensorImpl, **out: TensorImpl) -> Any:
        """Torch: max.other / min.other (and .out) are CompositeImplicitAutograd over
        maximum / minimum (TensorCompare.cpp)."""
        packet, _, overload = target.partition(".")
        return getattr(getattr(aten, packet), overload)(self, other, **out)

    return decomposition


defop("max.other(Tensor self, Tensor other) -> Tensor").decomposition(_max_min("maximum.default"))
defop("min.other(Tensor self, Tensor other) -> Tensor").decomposition(_max_min("minimum.default"))
defop("max.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)").decomposition(
    _max_min("maximum.out")
)
defop("min.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)").decomposition(
    _max_min("minimum.out")
)


# --- isclose, allclose, equal ----------------------------------------------------------------

isclose = defop(
    "isclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, float atol=1e-08, "
    "bool equal_nan=False) -> Tensor"
)


@isclose.decomposition
def isclose_decomposition(
    self: TensorImpl, other: TensorImpl, rtol: float, atol: float, equal_nan: bool
) -> Any:
    """|self - other| <= atol + rtol * |other|, or equal (NaNs equal with equal_nan).

    Torch: isclose in TensorCompare.cpp (CompositeImplicitAutograd); the same op sequence.
    """
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype.scalar_name} did not match {other._dtype.scalar_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = aten.eq.Tensor(self, other)
    if equal_nan and (self._dtype.is_floating_point or self._dtype.is_complex):
        both_nan = aten.bitwise_and.Tensor(aten.isnan.default(self), aten.isnan.default(other))
        aten.bitwise_or_.Tensor(close, both_nan)
    if rtol == 0 and atol == 0:
        return close
    # torch: bool inputs compute their errors in the default dtype.
    if self._dtype is bool_:
        self = aten._to_copy.default(self, dtype=get_default_dtype())
        other = aten._to_copy.default(other, dtype=get_default_dtype())
    allowed = aten.add.Scalar(aten.abs.default(aten.mul.Scalar(other, rtol)), atol)
    actual = aten.abs.default(aten.sub.Tensor(self, other))
    # torch: isfinite(t) is (t == t) * (t.abs() != inf) for floating t; torch's C++
    # evaluates the right operand first.
    not_inf = aten.ne.Scalar(aten.abs.default(actual), float("inf"))
    finite = aten.mul.Tensor(aten.eq.Tensor(actual, actual), not_inf)
    aten.bitwise_or_.Tensor(
        close, aten.bitwise_and_.Tensor(finite, aten.le.Tensor(actual, allowed))
    )
    return close


allclose = defop(
    "allclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, float atol=1e-08, "
    "bool equal_nan=False) -> bool"
)


@allclose.kernel(CEA)
def allclose_kernel(
    self: TensorImpl, other: TensorImpl, rtol: float, atol: float, equal_nan: bool
) -> bool:
    """Whether every element is close. Torch: allclose in TensorCompare.cpp
    (isclose(...).all().item())."""
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype.scalar_name} did not match {other._dtype.scalar_name}")
    close = aten.isclose.default(self, other, rtol, atol, equal_nan)
    # torch: the item() of all(), so a meta input raises item's error.
    return bool(aten.item.default(aten.all.default(close)))


def _all(t: TensorImpl) -> bool:
    backend = t._storage.backend
    if backend is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return bool(backend.xp.all(array_of(t)))


equal = defop("equal(Tensor self, Tensor other) -> bool")


def equal_kernel(self: TensorImpl, other: TensorImpl) -> bool:
    """Same sizes and equal elements. Torch: cpu_equal in ReduceOps.cpp (NaN is unequal)."""
    if self._storage.device != other._storage.device:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{self._storage.device} and {other._storage.device}!"
        )
    if self._size != other._size:
        return False
    return _all(aten.eq.Tensor(self, other))


for _key in (DispatchKey.CPU, DispatchKey.CUDA):
    equal.kernel(_key)(equal_kernel)
