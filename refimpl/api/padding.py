"""The torch.* functions of padding (constant_pad_nd).

Torch: the generated binding of torch.constant_pad_nd (python_torch_functions.cpp), through
`api/_call.py` (`torch_function`). The op is in refimpl/ops/padding.py; nn.functional.pad
is nn.functional's.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = ["constant_pad_nd"]

constant_pad_nd = torch_function("constant_pad_nd")
