"""torch.nn.functional: layer, group, batch, instance and RMS normalization, local_response_norm, normalize.

Work in progress (issue 15). Torch: torch/nn/functional.py.
"""

from __future__ import annotations

__all__: list[str] = []
