"""`refimpl.signal.windows`: the window functions of torch.signal.windows.

Torch: torch/signal/windows/windows.py, Python over torch.linspace and pointwise ops. Each
window here is the same computation: a linspace of the window's positions, scaled as torch
scales them (so the float32 values round as torch's do), then the window's formula.
"""

from __future__ import annotations

from refimpl.signal.windows.windows import (
    bartlett,
    blackman,
    cosine,
    exponential,
    gaussian,
    general_cosine,
    general_hamming,
    hamming,
    hann,
    kaiser,
    nuttall,
)

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]
