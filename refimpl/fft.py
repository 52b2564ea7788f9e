"""`refimpl.fft`: torch.fft's functions, each calling its aten.fft_* op.

Torch: torch/fft/__init__.py, whose functions are the generated bindings of the fft_*
entries of native_functions.yaml (`torch.fft.rfft(x)` calls `aten::fft_rfft`). Arguments
bind as torch's Python signatures say (`input` is the schema's `self`); the transforms
themselves are in refimpl/ops/fft_transforms.py and ops/fft.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl.api._autograd_methods import set_requires_grad_for_factory
from refimpl.api._call import torch_function

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


def _fft(name: str) -> Callable[..., Any]:
    """`refimpl.fft.<name>`: the aten packet `aten.fft_<name>`. Torch: torch.fft.<name>."""
    return torch_function(name, f"fft_{name}", module="torch.fft")


fft = _fft("fft")
ifft = _fft("ifft")
fft2 = _fft("fft2")
ifft2 = _fft("ifft2")
fftn = _fft("fftn")
ifftn = _fft("ifftn")
rfft = _fft("rfft")
irfft = _fft("irfft")
rfft2 = _fft("rfft2")
irfft2 = _fft("irfft2")
rfftn = _fft("rfftn")
irfftn = _fft("irfftn")
hfft = _fft("hfft")
ihfft = _fft("ihfft")
hfft2 = _fft("hfft2")
ihfft2 = _fft("ihfft2")
hfftn = _fft("hfftn")
ihfftn = _fft("ihfftn")


def _factory(name: str) -> Callable[..., Any]:
    """`refimpl.fft.<name>` of a factory: the aten packet, then `requires_grad` as torch's
    binding applies it to a factory's result. Torch: torch.fft.fftfreq / rfftfreq."""
    packet = _fft(name)

    def function(*args: Any, requires_grad: bool = False, **kwargs: Any) -> Any:
        result = packet(*args, **kwargs)
        if requires_grad:
            set_requires_grad_for_factory(result)
        return result

    function.__name__ = function.__qualname__ = name
    function.__module__ = "refimpl.fft"
    function.__doc__ = packet.__doc__
    return function


fftfreq = _factory("fftfreq")
rfftfreq = _factory("rfftfreq")
fftshift = _fft("fftshift")
ifftshift = _fft("ifftshift")
