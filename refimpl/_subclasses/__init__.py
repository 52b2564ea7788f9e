"""`refimpl._subclasses`: tensor subclasses refimpl ships, FakeTensor first.

Torch: torch/_subclasses/__init__.py, which names FakeTensor, FakeTensorMode,
UnsupportedFakeTensorException, DynamicOutputShapeException and the converter. The package
sits above refimpl.api (it subclasses refimpl.Tensor) and is imported on first use, not by
`import refimpl`.
"""

from __future__ import annotations

from refimpl._subclasses import fake_tensor as fake_tensor
from refimpl._subclasses.fake_tensor import (
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
)

__all__ = [
    "DynamicOutputShapeException",
    "FakeTensor",
    "FakeTensorMode",
    "UnsupportedFakeTensorException",
    "fake_tensor",
]
