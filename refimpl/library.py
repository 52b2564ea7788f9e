"""`refimpl.library`: define operators and register kernels from Python.

Torch: torch.library. The implementation lives in the dispatcher layer
(refimpl/dispatch/library.py); this module is its public path.
"""

from __future__ import annotations

from refimpl.dispatch.library import (
    CustomOpDef,
    Library,
    _scoped_library,
    custom_op,
    define,
    fallthrough_kernel,
    impl,
    infer_schema,
    register_fake,
    register_kernel,
)

__all__ = [
    "CustomOpDef",
    "Library",
    "_scoped_library",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "impl",
    "infer_schema",
    "register_fake",
    "register_kernel",
]
