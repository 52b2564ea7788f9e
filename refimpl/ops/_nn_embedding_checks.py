"""The argument checks the embedding ops share: torch's checkScalarTypes, checkSameType and
checkContiguous messages, which name a tensor by its legacy type.

Torch: aten/src/ATen/TensorUtils.cpp (checkScalarTypes, checkSameType, checkContiguous) and
the tensor type names they print.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl._base.dtypes import DType
from refimpl.core.tensor import TensorImpl

# torch: the scalar types with a legacy Python tensor type (torch.LongTensor, ...); the others
# print as the dispatch key and scalar type ("CPUBoolType", "CPUComplexFloatType").
_LEGACY: Final = frozenset(
    {"uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"}
)


def tensor_arg_name(t: TensorImpl) -> str:
    """How a TensorArg check names `t`'s type: "torch.LongTensor", or "CPUBoolType"."""
    dtype = t._dtype
    device = t._storage.device.type
    if dtype.name in _LEGACY:
        prefix = "torch." if device == "cpu" else f"torch.{device}."
        return f"{prefix}{dtype.scalar_name}Tensor"
    return f"{device.upper()}{dtype.scalar_name}Type"


def check_scalar_types(
    t: TensorImpl, name: str, position: int, allowed: Sequence[DType], op: str
) -> None:
    """Torch: checkScalarTypes(op, TensorArg(t, name, position), allowed)."""
    if t._dtype not in allowed:
        listed = ", ".join(d.scalar_name for d in allowed)
        raise RuntimeError(
            f"Expected tensor for argument #{position} '{name}' to have one of the following "
            f"scalar types: {listed}; but got {tensor_arg_name(t)} instead (while checking "
            f"arguments for {op})"
        )


def check_same_type(a: TensorImpl, a_name: str, b: TensorImpl, b_name: str, op: str) -> None:
    """Torch: checkSameType(op, TensorArg(a, a_name, 1), TensorArg(b, b_name, 1))."""
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"Expected tensor for argument #1 '{a_name}' to have the same type as tensor for "
            f"argument #1 '{b_name}'; but type {tensor_arg_name(a)} does not equal "
            f"{tensor_arg_name(b)} (while checking arguments for {op})"
        )


def check_contiguous(t: TensorImpl, name: str, op: str) -> None:
    """Torch: checkContiguous(op, TensorArg(t, name, 1))."""
    if not t.is_contiguous():
        raise RuntimeError(
            f"Expected contiguous tensor, but got non-contiguous tensor for argument #1 "
            f"'{name}' (while checking arguments for {op})"
        )
