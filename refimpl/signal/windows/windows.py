"""The window functions of torch.signal.windows.

Torch: torch/signal/windows/windows.py. Every window checks its length, layout and dtype
(`_checks`), answers M == 0 with an empty tensor (and, for the windows torch special-cases,
M == 1 with ones), then evaluates its formula on `linspace` positions: torch's own sequence
of torch calls, so that the results round as torch's do. `sym=False` gives the periodic
window (the symmetric window of length M + 1 without its last point).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from refimpl._base.dtypes import DType, float32, float64
from refimpl._base.layout import layout as Layout
from refimpl._base.layout import strided
from refimpl._base.promotion import get_default_dtype
from refimpl.api import functions as fn
from refimpl.api.factories import arange, empty, linspace, ones, tensor
from refimpl.special import i0

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]

Tensor = Any


def _checks(name: str, M: int, dtype: DType | None, layout: Layout) -> DType:
    """The dtype to use, after torch's checks. Torch: _window_function_checks."""
    dtype = get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(
            f"{name} is implemented for strided tensors only, got: {_torch_repr(layout)}"
        )
    if dtype not in (float32, float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {_torch_repr(dtype)}")
    return dtype


def _torch_repr(value: object) -> str:
    # torch's message formats the dtype or layout object: "torch.int64".
    return repr(value).replace("refimpl.", "torch.", 1)


def _trivial(M: int, dtype: DType, layout: Layout, device: Any, requires_grad: bool,
             one: bool) -> Tensor | None:
    # The empty window, and (where torch has the shortcut) the one-point window of 1.
    if M == 0:
        return empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    return None


def _span(M: int, sym: bool) -> int:
    # The divisor that spaces the points: M - 1 for a symmetric window, M for a periodic one.
    return M - 1 if sym else M


def _positions(start: Any, end: Any, M: int, dtype: DType, layout: Layout, device: Any,
               requires_grad: bool) -> Tensor:
    return linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout, device=device,
                    requires_grad=requires_grad)


def exponential(
    M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
    dtype: DType | None = None, layout: Layout = strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """exp(-|n - center| / tau). Torch: torch.signal.windows.exponential."""
    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    done = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if done is not None:
        return done
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = _positions(-center * scale, (-center + (M - 1)) * scale, M, dtype, layout, device,
                   requires_grad)
    return fn.exp(-fn.abs(k))


def cosine(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """sin(pi (n + 0.5) / M) (SciPy's cosine window). Torch: torch.signal.windows.cosine."""
    dtype = _checks("cosine", M, dtype, layout)
    done = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if done is not None:
        return done
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _positions(0.5 * scale, (0.5 + (M - 1)) * scale, M, dtype, layout, device, requires_grad)
    return fn.sin(k)


def gaussian(
    M: int, *, std: float = 1.0, sym: bool = True, dtype: DType | None = None,
    layout: Layout = strided, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """exp(-(n / (2 std))^2) about the centre. Torch: torch.signal.windows.gaussian."""
    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    done = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if done is not None:
        return done
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _positions(start * scale, (start + (M - 1)) * scale, M, dtype, layout, device,
                   requires_grad)
    return fn.exp(-(k**2))


def kaiser(
    M: int, *, beta: float = 12.0, sym: bool = True, dtype: DType | None = None,
    layout: Layout = strided, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta). Torch: torch.signal.windows.kaiser."""
    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    done = _trivial(M, dtype, layout, device, requires_grad, one=True)
    if done is not None:
        return done
    # torch: beta as a tensor of the window's dtype (so that no NaN comes from rounding).
    b = tensor(beta, dtype=dtype, device=device)
    start = -b
    step = 2.0 * b / _span(M, sym)
    end = fn.minimum(b, start + (M - 1) * step)
    k = _positions(start, end, M, dtype, layout, device, requires_grad)
    return i0(fn.sqrt(b * b - fn.pow(k, 2))) / i0(b)


def bartlett(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """1 - |2n / N - 1| (triangular). Torch: torch.signal.windows.bartlett."""
    dtype = _checks("bartlett", M, dtype, layout)
    done = _trivial(M, dtype, layout, device, requires_grad, one=True)
    if done is not None:
        return done
    step = 2 / _span(M, sym)
    k = _positions(-1, -1 + (M - 1) * step, M, dtype, layout, device, requires_grad)
    return 1 - fn.abs(k)


def general_cosine(
    M: int, *, a: Iterable[float], sym: bool = True, dtype: DType | None = None,
    layout: Layout = strided, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """sum_i (-1)^i a_i cos(2 pi i n / N). Torch: torch.signal.windows.general_cosine."""
    dtype = _checks("general_cosine", M, dtype, layout)
    done = _trivial(M, dtype, layout, device, requires_grad, one=True)
    if done is not None:
        return done
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _positions(0, (M - 1) * (2 * math.pi / _span(M, sym)), M, dtype, layout, device,
                   requires_grad)
    coefficients = tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                          requires_grad=requires_grad)
    orders = arange(coefficients.shape[0], dtype=coefficients.dtype, device=coefficients.device,
                    requires_grad=coefficients.requires_grad)
    return (coefficients.unsqueeze(-1) * fn.cos(orders.unsqueeze(-1) * k)).sum(0)


def general_hamming(
    M: int, *, alpha: float = 0.54, sym: bool = True, dtype: DType | None = None,
    layout: Layout = strided, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """alpha - (1 - alpha) cos(2 pi n / N). Torch: torch.signal.windows.general_hamming."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """The Hamming window (general_hamming with alpha 0.54). Torch: torch.signal.windows.hamming."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """The Hann window (general_hamming with alpha 0.5). Torch: torch.signal.windows.hann."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """general_cosine with a = (0.42, 0.5, 0.08). Torch: torch.signal.windows.blackman."""
    dtype = _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(
    M: int, *, sym: bool = True, dtype: DType | None = None, layout: Layout = strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """Nuttall's minimum 4-term Blackman-Harris window. Torch: torch.signal.windows.nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
