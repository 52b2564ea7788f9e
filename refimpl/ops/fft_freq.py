"""The sample frequencies of a transform as aten factories: fft_fftfreq, fft_rfftfreq (and their out= forms).

Torch: fft_fftfreq / fft_rfftfreq and their _out forms in SpectralOps.cpp
(CompositeExplicitAutograd): an empty tensor of n (n // 2 + 1) elements in the requested
dtype (the default float dtype when none is given) filled by arange, its upper half made
negative for fftfreq, multiplied in place by 1 / (n * d) (a double: d = 0 gives inf and nan, as in C++). arange has no complex kernel,
so complex dtypes pass the dtype check and fail in arange.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import get_default_dtype
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop

aten: Final = namespace("aten")
_CEA: Final = DispatchKey.CompositeExplicitAutograd


def _reciprocal_span(n: int, d: float) -> float:
    """1.0 / (n * d) in C++ double arithmetic (a zero span gives inf, or nan for 0 / 0)."""
    span = n * d
    return 1.0 / span if span != 0 else math.copysign(math.inf, span)


def _check_dtype(name: str, out: TensorImpl) -> None:
    dtype = out._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")


def _factory_options(dtype: DType | None) -> DType:
    # torch: TensorOptions().dtype(dtype): the default float dtype when none is given.
    return dtype if dtype is not None else get_default_dtype()


# --- fft_fftfreq ------------------------------------------------------------------------------

fft_fftfreq = defop(
    "fft_fftfreq(int n, float d=1., *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@fft_fftfreq.kernel(_CEA)
def fft_fftfreq_kernel(
    n: int,
    d: float,
    *,
    dtype: DType | None,
    layout: Any,
    device: Any,
    pin_memory: bool | None,
) -> Any:
    """Torch: fft_fftfreq: [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)."""
    result = aten.empty.memory_format(
        [n], dtype=_factory_options(dtype), layout=layout, device=device, pin_memory=pin_memory
    )
    return fft_fftfreq_out_kernel(n, d, out=result)


fft_fftfreq_out = defop("fft_fftfreq.out(int n, float d=1., *, Tensor(a!) out) -> Tensor(a!)")


@fft_fftfreq_out.kernel(_CEA)
def fft_fftfreq_out_kernel(n: int, d: float, *, out: TensorImpl) -> Any:
    """Torch: fft_fftfreq_out."""
    _check_dtype("fftfreq", out)
    aten.arange.out(n, out=out)
    # torch writes the negative half through a slice of `out` resized by arange_out; the
    # slice here has that size already.
    right = aten.slice.Tensor(out, 0, (n + 1) // 2, n)
    aten.arange.start_out(-(n // 2), 0, 1, out=right)
    return aten.mul_.Scalar(out, _reciprocal_span(n, d))


# --- fft_rfftfreq -----------------------------------------------------------------------------

fft_rfftfreq = defop(
    "fft_rfftfreq(int n, float d=1., *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@fft_rfftfreq.kernel(_CEA)
def fft_rfftfreq_kernel(
    n: int,
    d: float,
    *,
    dtype: DType | None,
    layout: Any,
    device: Any,
    pin_memory: bool | None,
) -> Any:
    """Torch: fft_rfftfreq: [0, 1, ..., n // 2] / (n * d)."""
    result = aten.empty.memory_format(
        [n // 2 + 1],
        dtype=_factory_options(dtype),
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )
    return fft_rfftfreq_out_kernel(n, d, out=result)


fft_rfftfreq_out = defop("fft_rfftfreq.out(int n, float d=1., *, Tensor(a!) out) -> Tensor(a!)")


@fft_rfftfreq_out.kernel(_CEA)
def fft_rfftfreq_out_kernel(n: int, d: float, *, out: TensorImpl) -> Any:
    """Torch: fft_rfftfreq_out."""
    _check_dtype("rfftfreq", out)
    aten.arange.out(n // 2 + 1, out=out)
    return aten.mul_.Scalar(out, _reciprocal_span(n, d))
