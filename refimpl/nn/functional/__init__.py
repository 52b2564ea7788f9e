"""`refimpl.nn.functional`: torch.nn.functional, the layer between modules and `torch.*`.

Torch: torch/nn/functional.py. Its functions check their arguments, translate legacy ones
(`size_average`/`reduce`), warn as torch warns, and call `torch.*` functions or the
`torch._C._nn` bindings (refimpl/_C/_nn.py); some of torch's are those bindings themselves
(`F.gelu is torch._C._nn.gelu`, `F.conv2d is torch.conv2d`), and so are refimpl's. The
functions live in one module per family (`_activation`, `_loss`, ...); this package
re-exports them and puts the ones torch writes in Python behind the `__torch_function__`
protocol, as torch's `has_torch_function` checks do.
"""

from __future__ import annotations

import sys

from refimpl.api._torch_function import install_on_namespace as _install_on_namespace
from refimpl.api.tensor import Tensor as Tensor
from refimpl.nn.functional._activation import *
from refimpl.nn.functional._attention import *
from refimpl.nn.functional._convolution import *
from refimpl.nn.functional._embedding import *
from refimpl.nn.functional._loss import *
from refimpl.nn.functional._margin import *
from refimpl.nn.functional._normalization import *
from refimpl.nn.functional._pooling import *
from refimpl.nn.functional._sampling import *

# torch.nn.functional's module also holds the protocol's helpers (torch.overrides'), as
# torch's F functions call them.
from refimpl.overrides import (
    handle_torch_function as handle_torch_function,
)
from refimpl.overrides import (
    has_torch_function as has_torch_function,
)
from refimpl.overrides import (
    has_torch_function_unary as has_torch_function_unary,
)
from refimpl.overrides import (
    has_torch_function_variadic as has_torch_function_variadic,
)


def _share_torch_functions(namespace: dict[str, object]) -> None:
    """Where torch's F function is a torch.* function itself (`F.conv2d is torch.conv2d`,
    `F.pdist is torch.pdist`), make refimpl's the same object: refimpl's, which the package
    has already put behind the __torch_function__ protocol (refimpl/__init__.py imports this
    package last), so a mode is told of it as of torch's, with its types."""
    top = sys.modules["refimpl"]
    for name, value in list(namespace.items()):
        if getattr(value, "__module__", None) == "refimpl" and callable(value):
            shared = getattr(top, name, None)
            if shared is not None and getattr(shared, "__wrapped__", None) in (
                value,
                getattr(value, "__wrapped__", None),
            ):
                namespace[name] = shared


_share_torch_functions(globals())
_install_on_namespace(globals(), "torch.nn.functional")
