"""The torch.* functions of the math bits: torch.is_conj, is_neg, _neg_view, adjoint.

Torch: their `torch.<name>` bindings (python_torch_functions.cpp). is_conj and is_neg read
the tensor's key set without reaching a kernel (the aten ops of these names are
CompositeImplicitAutograd, ops/complex.py); _neg_view and adjoint call their aten ops. See
Note [Math bits] in core/tensor.py.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

__all__ = ["_neg_view", "adjoint", "is_conj", "is_neg"]

is_conj = torch_function("is_conj")
is_neg = torch_function("is_neg")
_neg_view = torch_function("_neg_view")
adjoint = torch_function("adjoint")
