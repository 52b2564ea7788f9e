"""The short-time Fourier transforms as aten ops: stft, stft.center, istft.

Torch: stft and istft in aten/src/ATen/native/SpectralOps.cpp (CompositeImplicitAutograd):
frames of the signal taken as a strided view (hop_length apart), windowed, transformed by
_fft_r2c or _fft_c2c over the last dimension; istft inverts each frame (_fft_c2r or
_fft_c2c), windows it again and overlap-adds the frames (unfold_backward), divided by the
overlap-added squared window. Their derivatives are those of the ops they call.

Differs: stft.center pads the signal with aten.constant_pad_nd for pad_mode "constant" and
aten.reflection_pad1d for "reflect" as torch does, but composes "replicate" and "circular"
from slices and a concatenation (torch calls replication_pad1d and _pad_circular, which
refimpl does not have yet); istft's overlap-add is a sum of slice_scatters where torch
calls aten.unfold_backward. The values are torch's.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import unfold_backward
from refimpl.ops._register import defop
from refimpl.ops.fft import FftNorm

aten: Final = namespace("aten")


_NO_WINDOW: Final = (
    "A window was not provided. A rectangular window will be applied,which is known to cause "
    "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
    "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`."
)
_RETURN_REAL: Final = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
    "Note: you can still call torch.view_as_real on the complex output to recover the old "
    "return format."
)
_ISTFT_NO_WINDOW: Final = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`."
)
_LENGTH_PADDED: Final = (
    "The length of signal is shorter than the length parameter. Result is being padded with "
    "zeros in the tail. Please check your center and hop_length settings."
)


def _warn_once(message: str) -> None:
    # torch: TORCH_WARN_ONCE, one site per message.
    if should_warn_once(message):
        warnings.warn(message, UserWarning, stacklevel=4)


def _tensor_string(t: TensorImpl) -> str:
    """Torch: Tensor::toString() ("torch.FloatTensor"; "torch.cuda.FloatTensor")."""
    device = t._storage.device.type
    prefix = "torch." if device == "cpu" else f"torch.{device}."
    return f"{prefix}{t._dtype.scalar_name}Tensor"


def _type_string(t: TensorImpl) -> str:
    """Torch: the legacy type name istft prints its input with ("CPUComplexFloatType")."""
    return f"{t._storage.device.type.upper()}{t._dtype.scalar_name}Type"


def _sizes(size: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in size) + "]"


def _opt(value: bool | int | None) -> str:
    # torch: writeOpt streams an optional: its value (bools as 0 / 1) or "None".
    return "None" if value is None else str(int(value))


def _window_repr(window: TensorImpl | None) -> str:
    return "None" if window is None else f"{_tensor_string(window)}{{{_sizes(window._size)}}}"


# --- padding the signal (stft.center) ---------------------------------------------------------


def pad_signal(x: TensorImpl, amount: int, mode: str) -> Any:
    """`x` padded by `amount` on both sides of its last dimension in `mode`.
    Torch: aten.pad (PadNd.cpp: pad_symint, _pad_enum) with a pad of length 2."""
    if mode == "constant":
        return aten.constant_pad_nd.default(x, [amount, amount], 0.0)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "reflect":
        # torch: _pad_enum calls reflection_pad1d for a 2-D or 3-D input (stft's is 3-D).
        return aten.reflection_pad1d.default(x, [amount, amount])
    if amount == 0:
        return x
    n = x._size[-1]
    if mode == "replicate":
        edge_size = [*x._size[:-1], amount]
        left = aten.expand.default(aten.slice.Tensor(x, -1, 0, 1), edge_size)
        right = aten.expand.default(aten.slice.Tensor(x, -1, n - 1, n), edge_size)
    else:
        if amount > n:
            # torch: _pad_circular's check (PadNd.cpp).
            raise RuntimeError("Padding value causes wrapping around more than once.")
        left = aten.slice.Tensor(x, -1, n - amount, n)
        right = aten.slice.Tensor(x, -1, 0, amount)
    return aten.cat.default([left, x, right], -1)


# --- stft -------------------------------------------------------------------------------------


stft = defop(
    "stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    "Tensor? window=None, bool normalized=False, bool? onesided=None, "
    "bool? return_complex=None, bool? align_to_window=None) -> Tensor"
)


@stft.decomposition
def stft_decomposition(
    self: TensorImpl,
    n_fft: int,
    hop_length: int | None,
    win_length: int | None,
    window: TensorImpl | None,
    normalized: bool,
    onesided: bool | None,
    return_complex: bool | None,
    align_to_window: bool | None,
) -> Any:
    """Torch: stft (SpectralOps.cpp), the overload without centering."""
    if window is None:
        _warn_once(_NO_WINDOW)
    hop = hop_length if hop_length is not None else n_fft >> 2
    win = win_length if win_length is not None else n_fft

    def fail(problem: str) -> RuntimeError:
        return RuntimeError(
            f"stft({_tensor_string(self)}{_sizes(self._size)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
            f"normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) "
            f": {problem}"
        )

    if window is not None and window._storage.device != self._storage.device:
        raise RuntimeError(
            "stft input and window must be on the same device but got self on "
            f"{self._storage.device} and window on {window._storage.device}"
        )
    wants_complex = (
        return_complex
        if return_complex is not None
        else self._dtype.is_complex or (window is not None and window._dtype.is_complex)
    )
    if not wants_complex:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and "
                "will further require that return_complex=True in a future PyTorch release."
            )
        _warn_once(_RETURN_REAL)
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise fail("expected a tensor of floating point or complex values")
    if len(self._size) not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    x = aten.unsqueeze.default(self, 0) if len(self._size) == 1 else self
    length = x._size[1]
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (len(window._size) != 1 or window._size[0] != win):
        raise fail(
            f"expected a 1D window tensor of size equal to win_length={win}, but got window "
            f"with size {_sizes(window._size)}"
        )
    window_ = window
    if win < n_fft:
        # torch: the window centred in n_fft zeros (ones where none was given).
        left = (n_fft - win) // 2
        like = window if window is not None else self
        window_ = aten.zeros.default(
            [n_fft], dtype=like._dtype, layout=None, device=like._storage.device
        )
        middle = aten.narrow.default(window_, 0, left, win)
        if window is not None:
            aten.copy_.default(middle, window)
        else:
            aten.fill_.Scalar(middle, 1)
    if align_to_window:
        pad_amount = (n_fft - win) // 2
        x = aten.constant_pad_nd.default(x, [pad_amount, pad_amount], 0.0)
        length = x._size[1]
    n_frames = 1 + (length - n_fft) // hop
    frames = aten.as_strided.default(
        x,
        [x._size[0], n_frames, n_fft],
        [x._stride[0], hop * x._stride[1], x._stride[1]],
    )
    if window_ is not None:
        frames = aten.mul.Tensor(frames, window_)
    complex_fft = frames._dtype.is_complex
    one_sided = onesided if onesided is not None else not complex_fft
    normalization = int(FftNorm.by_root_n if normalized else FftNorm.none)
    if complex_fft:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = aten._fft_c2c.default(frames, [2], normalization, True)
    else:
        out = aten._fft_r2c.default(frames, [2], normalization, one_sided)
    out = aten.transpose_.default(out, 1, 2)
    if len(self._size) == 1:
        out = aten.squeeze_.dim(out, 0)
    return out if wants_complex else aten.view_as_real.default(out)


stft_center = defop(
    "stft.center(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    'Tensor? window=None, bool center=True, str pad_mode="reflect", bool normalized=False, '
    "bool? onesided=None, bool? return_complex=None, bool? align_to_window=None) -> Tensor"
)


@stft_center.decomposition
def stft_center_decomposition(
    self: TensorImpl,
    n_fft: int,
    hop_length: int | None,
    win_length: int | None,
    window: TensorImpl | None,
    center: bool,
    pad_mode: str,
    normalized: bool,
    onesided: bool | None,
    return_complex: bool | None,
    align_to_window: bool | None,
) -> Any:
    """Torch: stft (SpectralOps.cpp), the overload with `center`: the signal padded by
    n_fft // 2 on both sides (viewed as 3-D for aten.pad), then the plain stft."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    x = self
    if center:
        ndim = len(self._size)
        extra_dims = max(3, ndim) - ndim
        extended = aten.view.default(self, [1] * extra_dims + list(self._size))
        padded = pad_signal(extended, n_fft // 2, pad_mode)
        x = aten.view.default(padded, list(padded._size[extra_dims:]))
    return aten.stft.default(
        x,
        n_fft,
        hop_length,
        win_length,
        window,
        normalized,
        onesided,
        return_complex,
        align_to_window,
    )


# --- istft ------------------------------------------------------------------------------------


istft = defop(
    "istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    "Tensor? window=None, bool center=True, bool normalized=False, bool? onesided=None, "
    "int? length=None, bool return_complex=False) -> Tensor"
)


@istft.decomposition
def istft_decomposition(
    self: TensorImpl,
    n_fft: int,
    hop_length: int | None,
    win_length: int | None,
    window: TensorImpl | None,
    center: bool,
    normalized: bool,
    onesided: bool | None,
    length: int | None,
    return_complex: bool,
) -> Any:
    """Torch: istft (SpectralOps.cpp)."""
    if window is None:
        _warn_once(_ISTFT_NO_WINDOW)
    hop = hop_length if hop_length is not None else n_fft >> 2
    win = win_length if win_length is not None else n_fft

    def fail(problem: str) -> RuntimeError:
        return RuntimeError(
            f"istft({_type_string(self)}{_sizes(self._size)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
            f"center={int(center)}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"length={_opt(length)}, return_complex={int(return_complex)}) {problem}"
        )

    if window is not None and window._storage.device != self._storage.device:
        raise RuntimeError(
            "istft input and window must be on the same device but got self on "
            f"{self._storage.device} and window on {window._storage.device}"
        )
    if not self._dtype.is_complex:
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    # torch: the sizes are read from view_as_real(self): frames at -2, frequencies at -3.
    x = aten.view_as_real.default(aten.resolve_conj.default(self))
    real_ndim = len(x._size)
    n_frames = x._size[geometry.wrap_dim(-2, real_ndim)]
    fft_size = x._size[geometry.wrap_dim(-3, real_ndim)]
    expected_output_signal_len = n_fft + hop * (n_frames - 1)
    if geometry.numel(self._size) == 0:
        raise fail(": input tensor cannot be empty.")
    if real_ndim not in (3, 4):
        raise fail(f": expected a tensor with 3 or 4 dimensions of complex, but got {real_ndim}")
    one_sided = onesided if onesided is not None else fft_size != n_fft
    if one_sided and n_fft // 2 + 1 != fft_size:
        raise fail(
            ": expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not one_sided and n_fft != fft_size:
        raise fail(
            ": expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise fail(": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise fail(": expected 0 < win_length <= n_fft")
    if window is not None and (len(window._size) != 1 or window._size[0] != win):
        raise fail(": Invalid window shape. window has to be 1D and length of `win_length`")
    real: DType = self._dtype.to_real()
    window_tmp = (
        window
        if window is not None
        else aten.ones.default([win], dtype=real, device=self._storage.device)
    )
    if win != n_fft:
        left = (n_fft - win) // 2
        window_tmp = aten.constant_pad_nd.default(window_tmp, [left, n_fft - win - left], 0)
    if real_ndim == 3:
        x = aten.unsqueeze.default(x, 0)
    # (channel, n_frames, fft_size)
    x = aten.view_as_complex.default(aten.transpose.int(x, 1, 2))
    normalization = int(FftNorm.by_root_n if normalized else FftNorm.by_n)
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = aten._fft_c2c.default(x, [2], normalization, False)
    else:
        if window is not None and window._dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            x = aten.narrow.default(x, -1, 0, n_fft // 2 + 1)
        x = aten._fft_c2r.default(x, [2], normalization, n_fft)
    y_tmp = aten.mul.Tensor(x, aten.view.default(window_tmp, [1, 1, n_fft]))
    y = unfold_backward(y_tmp, [y_tmp._size[0], expected_output_signal_len], 1, n_fft, hop)
    squared = aten.expand.default(aten.pow.Tensor_Scalar(window_tmp, 2), [1, n_frames, n_fft])
    window_envelop = unfold_backward(squared, [1, expected_output_signal_len], 1, n_fft, hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = -(n_fft // 2)
    else:
        end = expected_output_signal_len
    y = aten.slice.Tensor(y, 1, start, end, 1)
    window_envelop = aten.slice.Tensor(window_envelop, 1, start, end, 1)
    lowest = aten.lt.Scalar(aten.min.default(aten.abs.default(window_envelop)), 1e-11)
    # torch: the check reads the flag through at::equal with a true tensor (no Meta kernel,
    # so a meta input fails here as in torch).
    if aten.equal.default(lowest, aten.new_ones.default(lowest, [], dtype=lowest._dtype)):
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]")
    y = aten.div.Tensor(y, window_envelop)
    if len(self._size) == 2:
        y = aten.squeeze.dim(y, 0)
    if end > expected_output_signal_len:
        _warn_once(_LENGTH_PADDED)
        y = aten.constant_pad_nd.default(y, [0, end - expected_output_signal_len], 0)
    return y
