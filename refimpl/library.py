"""`refimpl.library`: define operators and register kernels from Python.

Torch: torch.library. The implementation lives in the dispatcher layer
(refimpl/dispatch/library.py and custom_ops.py); this module is its public path.
"""

from __future__ import annotations

from refimpl.dispatch.custom_ops import (
    CustomOpDef,
    custom_op,
    infer_schema,
    register_autograd,
    register_fake,
    register_kernel,
)
from refimpl.dispatch.library import Library, _scoped_library, define, fallthrough_kernel, impl

__all__ = [
    "CustomOpDef",
    "Library",
    "_scoped_library",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "impl",
    "infer_schema",
    "register_autograd",
    "register_fake",
    "register_kernel",
]
