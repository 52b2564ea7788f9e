"""Python operators on tensors: `+ - * / // % ** & | ^ << >> ~`, unary `-`/`+`, `abs()`,
their reflected and in-place forms, each reaching the aten overload torch's binding reaches.

Torch: torch/_tensor.py (__rsub__, __rdiv__, __rpow__, __rfloordiv__, __rmod__, ...) over the
TensorBase number protocol of python_variable_methods.cpp. The overloads are those a logging
TorchDispatchMode shows (`1 - x` is aten.rsub.Scalar, `2 / x` is reciprocal then mul, `i << 1`
is aten.__lshift__.Scalar). An operand that is neither a tensor nor a number gives
NotImplemented, so Python tries the other operand and then raises its own TypeError.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace

aten: Final = namespace("aten")

_NUMBERS: Final = (bool, int, float, complex)
_OPERANDS: Final = (TensorImpl, *_NUMBERS)


def operand(value: object) -> Any:
    """A tensor or Python number as torch's binding accepts it, or None.

    Torch: THPUtils_checkScalar accepts NumPy scalars too (np.float32(2.5) is a wrapped
    number: `float16_tensor * np.float64(7e4)` stays float16). A NumPy bool is neither a
    Python bool nor a NumPy integer to torch's scalar unpacking, so it becomes a float:
    `int8_tensor + np.bool_(True)` is float32 and `bool_tensor & np.bool_(True)` fails.
    """
    if isinstance(value, _OPERANDS):
        return value
    item = getattr(value, "item", None)
    if item is not None and getattr(value, "shape", None) == () and hasattr(value, "dtype"):
        result = item()
        if isinstance(result, bool):
            return float(result)
        if isinstance(result, _NUMBERS):
            return result
    return None


def descriptor_mismatch(name: str, value: object) -> TypeError:
    """The error of a TensorBase method called unbound on a non-tensor (`Tensor.__radd__(2, t)`).

    Torch: the method is a C method descriptor of torch._C.TensorBase; CPython checks its
    first argument before the binding runs.
    """
    return TypeError(
        f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
        f"'{type(value).__name__}' object"
    )


class TensorOperators:
    """The number protocol of refimpl.Tensor. Torch: TensorBase's operators."""

    __slots__ = ()

    # NumPy scalars and arrays defer to the tensor's reflected operators, as with torch.
    __array_priority__ = 1000

    def __add__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.add.Tensor.call_checked((self, value))

    def __radd__(self, other: object) -> Any:
        if not isinstance(self, TensorImpl):  # only through the unbound Tensor.__radd__
            raise descriptor_mismatch("__radd__", self)
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.add.Tensor.call_checked((self, value))

    def __iadd__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.add_.Tensor.call_checked((self, value))

    def __sub__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.sub.Tensor.call_checked((self, value))

    def __rsub__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.rsub.Tensor.call_checked((self, value))
        return aten.rsub.Scalar.call_checked((self, value))

    def __isub__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.sub_.Tensor.call_checked((self, value))

    def __mul__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.mul.Tensor.call_checked((self, value))

    def __rmul__(self, other: object) -> Any:
        if not isinstance(self, TensorImpl):  # only through the unbound Tensor.__rmul__
            raise descriptor_mismatch("__rmul__", self)
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.mul.Tensor.call_checked((self, value))

    def __imul__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.mul_.Tensor.call_checked((self, value))

    def __truediv__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.div.Tensor.call_checked((self, value))

    def __rtruediv__(self, other: object) -> Any:
        # torch: Tensor.__rdiv__ is self.reciprocal() * other.
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        return aten.mul.Tensor(aten.reciprocal.default(self), value)

    # torch: Tensor.__rdiv__ and __idiv__ are the Python 2 names torch keeps as aliases.
    __rdiv__ = __rtruediv__

    def __itruediv__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return NotImplemented if value is None else aten.div_.Tensor.call_checked((self, value))

    __idiv__ = __itruediv__
    __div__ = __truediv__

    def __floordiv__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return (
            NotImplemented
            if value is None
            else aten.floor_divide.default.call_checked((self, value))
        )

    def __rfloordiv__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return (
            NotImplemented
            if value is None
            else aten.floor_divide.default.call_checked((value, self))
        )

    def __ifloordiv__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        return (
            NotImplemented
            if value is None
            else aten.floor_divide_.Tensor.call_checked((self, value))
        )

    def __mod__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.remainder.Tensor.call_checked((self, value))
        return aten.remainder.Scalar.call_checked((self, value))

    def __rmod__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.remainder.Tensor.call_checked((value, self))
        return aten.remainder.Scalar_Tensor.call_checked((value, self))

    def __imod__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.remainder_.Tensor.call_checked((self, value))
        return aten.remainder_.Scalar.call_checked((self, value))

    def __pow__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.pow.Tensor_Tensor.call_checked((self, value))
        return aten.pow.Tensor_Scalar.call_checked((self, value))

    def __rpow__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.pow.Tensor_Tensor.call_checked((value, self))
        return aten.pow.Scalar.call_checked((value, self))

    def __ipow__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        if isinstance(value, TensorImpl):
            return aten.pow_.Tensor.call_checked((self, value))
        return aten.pow_.Scalar.call_checked((self, value))

    def __and__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_and, self, other)

    __rand__ = __and__

    def __iand__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_and_, self, other)

    def __or__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_or, self, other)

    __ror__ = __or__

    def __ior__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_or_, self, other)

    def __xor__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_xor, self, other)

    __rxor__ = __xor__

    def __ixor__(self, other: object) -> Any:
        return _bitwise(aten.bitwise_xor_, self, other)

    def __lshift__(self, other: object) -> Any:
        return _bitwise(aten.__lshift__, self, other)

    def __rlshift__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        return aten.bitwise_left_shift(value, self)

    def __ilshift__(self, other: object) -> Any:
        return _bitwise(aten.__ilshift__, self, other)

    def __rshift__(self, other: object) -> Any:
        return _bitwise(aten.__rshift__, self, other)

    def __rrshift__(self, other: object) -> Any:
        value = other if isinstance(other, _OPERANDS) else operand(other)
        if value is None:
            return NotImplemented
        return aten.bitwise_right_shift(value, self)

    def __irshift__(self, other: object) -> Any:
        return _bitwise(aten.__irshift__, self, other)

    def __matmul__(self, other: object) -> Any:
        # torch: TensorBase.__matmul__ is torch.matmul with a TypeError (any non-tensor)
        # turned into NotImplemented. Torch defines no __imatmul__: `a @= b` rebinds `a`.
        if not isinstance(other, TensorImpl):
            return NotImplemented
        return aten.matmul.default.call_checked((self, other))

    def __rmatmul__(self, other: object) -> Any:
        # torch: Tensor.__rmatmul__ in torch/_tensor.py, torch.matmul(other, self).
        if not isinstance(other, TensorImpl):
            return NotImplemented
        return aten.matmul.default(other, self)

    def __invert__(self) -> Any:
        # torch: THPVariable_invert refuses floating and complex tensors before dispatch.
        dtype = self._dtype  # type: ignore[attr-defined]
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return aten.bitwise_not.default(self)

    def __neg__(self) -> Any:
        return aten.neg.default(self)

    def __pos__(self) -> Any:
        return aten.positive.default(self)

    def __abs__(self) -> Any:
        return aten.abs.default(self)


def _bitwise(packet: Any, self: object, other: object) -> Any:
    # torch: the Tensor overload for a tensor, the Scalar one for a number.
    value = other if isinstance(other, _OPERANDS) else operand(other)
    if value is None:
        return NotImplemented
    return (
        packet.Tensor(self, value) if isinstance(value, TensorImpl) else packet.Scalar(self, value)
    )
