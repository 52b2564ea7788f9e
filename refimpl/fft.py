"""`refimpl.fft`: torch.fft's functions, each calling its aten.fft_* op.

Torch: torch/fft/__init__.py (generated bindings of the fft_* entries of native_functions.yaml).
"""

from __future__ import annotations

__all__: list[str] = []
