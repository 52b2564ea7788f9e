"""Tensor.apply_, map_ and map2_'s element loop: reading a tensor's elements as Python values
and writing a callback's results back, below the dispatcher.

Torch: THPVariable_apply_ / map_ / map2_ in torch/csrc/autograd/python_variable_methods.cpp
(over torch/csrc/utils/tensor_apply.cpp), which check their arguments, broadcast the others
with expand_inplace, and call the callable once per element in row-major order.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from refimpl._base.dtypes import Category, DType
from refimpl._base.scalars import convert_scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, backend_dtype, make_tensor, write_array
from refimpl.ops.view import legacy_type_name


def check_tensor_argument(name: str, param: str, position: int, value: object) -> None:
    # torch: the argument parser of the map_ / map2_ bindings.
    if not isinstance(value, TensorImpl):
        raise TypeError(
            f"{name}(): argument '{param}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def check_same_type(self: TensorImpl, other: TensorImpl, template: str) -> None:
    # torch: map_ / map2_ in tensor_apply.cpp require the other tensors' options to be self's
    # (TORCH_CHECK_TYPE over TensorOptions::type_equal: dtype and device).
    if other._dtype is not self._dtype or other.device.type != self.device.type:
        raise TypeError(template.format(_type_string(self), _type_string(other)))


def _type_string(t: TensorImpl) -> str:
    # torch: TensorBase::toString: the legacy type name of a CPU tensor ("torch.FloatTensor"),
    # "torch.cuda.FloatTensor" on CUDA, the backend's type name ("MetaFloatType") otherwise.
    kind = t._storage.device.type
    if kind == "cpu":
        return legacy_type_name(t._dtype)
    if kind == "cuda":
        return f"torch.cuda.{t._dtype.scalar_name}Tensor"
    return f"{kind.capitalize()}{t._dtype.scalar_name}Type"


def check_cpu(name: str, *tensors: TensorImpl) -> None:
    # torch: TORCH_CHECK_TYPE in tensor_apply.cpp, after meta tensors returned unvisited.
    if any(t._storage.device.type != "cpu" for t in tensors):
        raise TypeError(f"{name} is only implemented on CPU tensors")


def expanded(tensor: TensorImpl, size: tuple[int, ...]) -> TensorImpl:
    """`tensor` broadcast to `size` without dispatching. Torch: expand_inplace."""
    g = geometry.expand(tensor._geometry(), size, legacy_type_name(tensor._dtype))
    out: TensorImpl = make_tensor(tensor._storage, g.size, g.stride, g.offset, tensor._dtype)
    return out


def apply_elements(
    self: TensorImpl, others: tuple[TensorImpl, ...], fn: Callable[..., Any]
) -> None:
    """Call `fn` on each element of `self` (with the elements of `others` at the same
    position, already broadcast) in row-major order, writing each result into `self`.

    Torch: recursive_apply in tensor_apply.cpp stores each result as soon as it is made, so a
    callback or conversion that raises leaves the elements before it written: refimpl writes
    that prefix before the error goes on.
    """
    columns = [elements(self), *(elements(t) for t in others)]
    dtype = self._dtype
    done: list[Any] = []
    try:
        for arguments in zip(*columns, strict=True):
            done.append(_python_value(fn(*arguments), dtype))
    finally:
        if done:
            _write(self, done + columns[0][len(done) :])


def elements(tensor: TensorImpl) -> list[Any]:
    """The elements in row-major order, as Python scalars."""
    nested = tensor.tolist()
    flat: list[Any] = []
    stack = [nested]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        else:
            flat.append(item)
    return flat


def _python_value(value: Any, dtype: DType) -> Any:
    """A callback's result as an element of `dtype`. Torch: THPUtils_unpackDouble,
    unpackComplexDouble or unpackLong as apply_'s loop reads it, then the element cast."""
    category = dtype.category
    if category is Category.FLOATING:
        if isinstance(value, complex) or not hasattr(type(value), "__float__"):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        return float(value)
    if category is Category.COMPLEX:
        if not isinstance(value, complex) and not hasattr(type(value), "__float__"):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        return complex(value)
    if isinstance(value, float):
        whole = int(value)
    elif hasattr(type(value), "__index__"):
        whole = operator.index(value)
    else:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    if not -(1 << 63) <= whole < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    if category is Category.BOOL:
        return whole != 0
    try:
        return convert_scalar(whole, dtype)
    except RuntimeError:
        # torch: this loop names the dtype as torch does ("int8"), not as C++ does.
        raise RuntimeError(
            f"value cannot be converted to type {dtype.name} without overflow"
        ) from None


def _write(tensor: TensorImpl, values: list[Any]) -> None:
    """Write Python values of the tensor's dtype, in row-major order, without dispatching."""
    backend = tensor._storage.backend
    assert backend is not None  # callers return early for tensors without data
    xp = backend.xp
    array: Array = xp.reshape(
        xp.asarray(values, dtype=backend_dtype(backend, tensor._dtype)), tensor._size
    )
    write_array(tensor, array)
