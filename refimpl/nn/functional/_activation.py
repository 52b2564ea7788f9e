"""torch.nn.functional: activation functions (relu, gelu, elu, hardtanh, silu, ...) and their backward ops.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
