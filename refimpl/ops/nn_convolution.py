"""The aten ops beneath torch.nn.functional: convolution and transposed convolution, im2col/col2im (unfold/fold).

Work in progress (issue 15): the kernels land here, one block per op.
"""

from __future__ import annotations
