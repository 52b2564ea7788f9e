"""The aten ops beneath torch.nn.functional: activation functions (relu, gelu, elu, hardtanh, silu, ...) and their backward ops.

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
