"""Autograd: the Autograd dispatch key's kernels, the graph they record, and the engine.

Torch: torch.autograd (torch/autograd/__init__.py) over torch/csrc/autograd. Importing this
package registers the Autograd kernel of every op refimpl implements (autograd/kernel.py).
The layer sits between the torch API and the operators: `refimpl.api` calls into it (Tensor's
autograd methods), and its kernels call the operators below autograd.
"""

from __future__ import annotations

from refimpl.autograd import custom_ops as custom_ops
from refimpl.autograd import function as function
from refimpl.autograd import functional as functional
from refimpl.autograd import graph as graph
from refimpl.autograd import inplace_or_view as _inplace_or_view
from refimpl.autograd import kernel as _kernel
from refimpl.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from refimpl.autograd.function import Function
from refimpl.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from refimpl.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from refimpl.autograd.gradients import backward, grad

__all__ = [
    "Function",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "function",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]

_ = _kernel, _inplace_or_view
