"""The torch.* functions and Tensor methods of the short-time Fourier transforms (stft, istft).

Torch: torch.stft is torch/functional.py's Python wrapper (it pads a centred signal, then
calls aten.stft without centring); torch.istft and both Tensor methods are generated
bindings (python_torch_functions.cpp; Tensor.stft and Tensor.istft in torch/_tensor.py call
torch.stft and torch.istft). The transforms are in refimpl/ops/fft_stft.py.
`SpectralMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.api._call import torch_function
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops.fft_stft import pad_signal

_aten: Final = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = ["istft", "stft"]


def stft(
    input: TensorImpl,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: TensorImpl | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Any:
    """The short-time Fourier transform. Torch: torch.functional.stft: a centred signal is
    padded by n_fft // 2 on both sides in `pad_mode` (viewed as 3-D for F.pad), then
    aten.stft transforms it."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = len(input._size)
        extended = _aten.view.default(input, [1] * (3 - signal_dim) + list(input._size))
        padded = pad_signal(extended, int(n_fft // 2), pad_mode)
        input = _aten.view.default(padded, list(padded._size[-signal_dim:]))
    return _aten.stft.default(
        input,
        n_fft,
        hop_length,
        win_length,
        window,
        normalized,
        onesided,
        return_complex,
        align_to_window,
    )


istft = torch_function("istft")


class SpectralMethods:
    """The Tensor methods of this family. Torch: torch.Tensor.stft / istft (torch/_tensor.py),
    which call torch.stft and torch.istft."""

    __slots__ = ()

    def stft(
        self: Any,
        n_fft: int,
        hop_length: int | None = None,
        win_length: int | None = None,
        window: TensorImpl | None = None,
        center: bool = True,
        pad_mode: str = "reflect",
        normalized: bool = False,
        onesided: bool | None = None,
        return_complex: bool | None = None,
        align_to_window: bool | None = None,
    ) -> Any:
        """Torch: torch.Tensor.stft."""
        return stft(
            self,
            n_fft,
            hop_length,
            win_length,
            window,
            center,
            pad_mode,
            normalized,
            onesided,
            return_complex,
            align_to_window,
        )

    def istft(
        self: Any,
        n_fft: int,
        hop_length: int | None = None,
        win_length: int | None = None,
        window: TensorImpl | None = None,
        center: bool = True,
        normalized: bool = False,
        onesided: bool | None = None,
        length: int | None = None,
        return_complex: bool = False,
    ) -> Any:
        """Torch: torch.Tensor.istft."""
        return istft(
            self,
            n_fft,
            hop_length,
            win_length,
            window,
            center,
            normalized,
            onesided,
            length,
            return_complex,
        )
