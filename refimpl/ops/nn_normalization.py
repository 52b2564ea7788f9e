"""The aten ops beneath torch.nn.functional: layer, group, batch, instance and RMS normalization, local_response_norm, normalize.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
