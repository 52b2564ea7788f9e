"""The torch.* functions that read a tensor's metadata: torch.is_complex, is_floating_point,
is_signed, is_nonzero, is_same_size, is_inference, numel, get_device.

Torch: their `torch.<name>` bindings (python_torch_functions.cpp); each parses its arguments
as every binding does and, but for is_nonzero (item(): _local_scalar_dense) and is_same_size
(an aten op a dispatch mode sees), reads metadata without reaching a kernel: the aten ops
of these names are CompositeImplicitAutograd (ops/pointwise.py).
"""

from __future__ import annotations

from typing import Any

from refimpl.api._call import torch_function
from refimpl.core.tensor import TensorImpl

__all__ = [
    "get_device",
    "is_complex",
    "is_floating_point",
    "is_inference",
    "is_nonzero",
    "is_same_size",
    "is_signed",
    "numel",
]

is_complex = torch_function("is_complex")
is_floating_point = torch_function("is_floating_point")
is_signed = torch_function("is_signed")
is_nonzero = torch_function("is_nonzero")
is_same_size = torch_function("is_same_size")
numel = torch_function("numel")
get_device = torch_function("get_device")


def is_inference(input: Any) -> bool:
    """Whether `input` was made in inference mode. Torch: torch.is_inference."""
    if not isinstance(input, TensorImpl):
        raise TypeError(
            f"is_inference(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    result: bool = input.is_inference()  # type: ignore[attr-defined]  # a Tensor's method
    return result
