"""The strides of the results of _fft_r2c, _fft_c2r and _fft_c2c, as torch's kernels lay them out.

Torch: _exec_fft and the _fft_*_mkl kernels in aten/src/ATen/native/mkl/SpectralOps.cpp (CPU),
_fft_*_cufft in aten/src/ATen/native/cuda/SpectralOps.cpp (CUDA), and their Python meta
functions in torch/_meta_registrations.py (meta_fft_r2c, meta_fft_c2r, meta_fft_c2c).

Note [FFT output layout]
torch's kernels lay the result out for the FFT library: _exec_fft puts the dimensions not
transformed first, ordered by the input's strides (largest first), then the transformed ones
in the order given, and makes the result contiguous in that order. So `fft(x, dim=0)` of a
contiguous 4x6 `x` has strides (1, 4).
- On the CPU, _fft_c2c sorts its dimensions by the input's strides (largest first),
  _fft_r2c too but keeps its halved dimension last, and _fft_c2r over several dimensions
  first runs a _fft_c2c over all but the last, then lays the result out from that
  intermediate's strides.
- cuFFT transforms at most 3 dimensions at a time: _fft_c2c runs in stages of the last
  three (re-sorted by the previous stage's strides), _fft_r2c and _fft_c2r take one plan for
  up to 3 dimensions unless they start with dims 0, 1 (else: the last dimension first, then
  C2C stages), and a two-sided multi-stage R2C result is contiguous.
- torch's meta functions take the CUDA layout for meta tensors (device_hint defaults to
  "cuda"), so a meta result can differ from the CPU one (rfftn of a contiguous 5x6x7 input:
  strides (6, 1, 30) on meta, (24, 4, 1) on the CPU). refimpl does the same: CPU tensors get
  the CPU layout, others (meta, CUDA) the cuFFT one.
refimpl computes the values in the tensor's own order and writes them in this memory order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.core import strides as geometry

Shape = tuple[int, ...]

# torch: cufft_max_ndim, the most dimensions one cuFFT plan transforms.
_CUFFT_MAX_NDIM: Final = 3


def sort_dims(stride: Shape, dim: Sequence[int], exclude_last: bool = False) -> list[int]:
    """`dim` ordered by the input's strides, largest first (the last kept last with
    `exclude_last`). Torch: _sort_dims in mkl/SpectralOps.cpp (a std::sort that is an
    insertion sort, so stable, at these lengths)."""
    dims = list(dim)
    end = len(dims) - int(exclude_last)
    dims[:end] = sorted(dims[:end], key=lambda d: -stride[d])
    return dims


def exec_fft_strides(stride: Shape, out_size: Shape, dim: Sequence[int]) -> Shape:
    """The strides of the result of one transform over `dim` (in that order) of an input
    with strides `stride`. Torch: the output restriding at the end of _exec_fft."""
    ndim = len(out_size)
    transformed = set(dim)
    batch = sorted((d for d in range(ndim) if d not in transformed), key=lambda d: -stride[d])
    signal_size = tuple(out_size[d] for d in dim)
    # torch: out.resize_({batch, *signal sizes}) contiguous, then each batch dim strided by
    # the (unclamped) product of the batch sizes after it.
    batched = geometry.contiguous_strides(
        (geometry.numel([out_size[d] for d in batch]), *signal_size)
    )
    out_stride = [0] * ndim
    batch_numel = 1
    for d in reversed(batch):
        out_stride[d] = batch_numel * batched[0]
        batch_numel *= out_size[d]
    for i, d in enumerate(dim):
        out_stride[d] = batched[1 + i]
    return tuple(out_stride)


def _exec(stride: Shape, out_size: Shape, dim: Sequence[int], stages: list[list[int]]) -> Shape:
    """exec_fft_strides, noting the dimensions of this _exec_fft call in `stages`."""
    stages.append(list(dim))
    return exec_fft_strides(stride, out_size, dim)


def _cufft_one_plan(dim: Sequence[int]) -> bool:
    """Torch: use_optimized_cufft_path: one plan for up to 3 dimensions not starting 0, 1."""
    return len(dim) <= _CUFFT_MAX_NDIM and not (len(dim) >= 2 and dim[0] == 0 and dim[1] == 1)


def _cufft_c2c_stages(
    stride: Shape, size: Shape, dim: Sequence[int], stages: list[list[int]]
) -> Shape:
    """Torch: _fft_c2c_cufft: the last 3 dimensions by the working strides, then the rest."""
    remaining = list(dim)
    working = stride
    while True:
        remaining.sort(key=lambda d: -working[d])
        count = min(_CUFFT_MAX_NDIM, len(remaining))
        working = _exec(working, size, remaining[len(remaining) - count :], stages)
        remaining = remaining[: len(remaining) - count]
        if not remaining:
            return working


def c2c_strides(
    device_type: str, size: Shape, stride: Shape, dim: Sequence[int], stages: list[list[int]]
) -> Shape:
    """The strides of _fft_c2c's result over `dim` (and in `stages`, the dimensions of each
    _exec_fft call, in order)."""
    if device_type == "cpu":
        return _exec(stride, size, sort_dims(stride, dim), stages)
    return _cufft_c2c_stages(stride, size, dim, stages)


def r2c_strides(
    device_type: str,
    size: Shape,
    stride: Shape,
    dim: Sequence[int],
    out_size: Shape,
    stages: list[list[int]],
) -> Shape:
    """The strides of _fft_r2c's result (of size `out_size`) over `dim`."""
    if device_type == "cpu":
        return _exec(stride, out_size, sort_dims(stride, dim, exclude_last=True), stages)
    if _cufft_one_plan(dim):
        return _exec(stride, out_size, dim, stages)
    # torch: _fft_r2c_cufft: an R2C transform over the last dimension, then C2C stages over
    # the others, in the onesided size; a two-sided result is then a new contiguous tensor.
    last = dim[-1]
    onesided_size = list(size)
    onesided_size[last] = size[last] // 2 + 1
    target = out_size if len(dim) == 1 else tuple(onesided_size)
    working = _exec(stride, target, [last], stages)
    if len(dim) == 1:
        return working
    working = _cufft_c2c_stages(working, tuple(onesided_size), dim[:-1], stages)
    if out_size[last] != onesided_size[last]:
        return geometry.contiguous_strides(out_size)
    return working


def c2r_strides(
    device_type: str,
    size: Shape,
    stride: Shape,
    dim: Sequence[int],
    out_size: Shape,
    stages: list[list[int]],
) -> Shape:
    """The strides of _fft_c2r's result (of size `out_size`) over `dim`."""
    if device_type == "cpu":
        # torch: _fft_c2r_mkl: a C2C transform over all but the last dimension first.
        if len(dim) > 1:
            stride = c2c_strides(device_type, size, stride, dim[:-1], stages)
        return _exec(stride, out_size, dim[-1:], stages)
    contiguous = geometry.contiguous_strides(size)
    if _cufft_one_plan(dim):
        return _exec(contiguous, out_size, dim, stages)
    working = _cufft_c2c_stages(stride, size, dim[:-1], stages) if len(dim) > 1 else contiguous
    return _exec(working, out_size, dim[-1:], stages)


def check_empty(device_type: str, with_data: bool, size: Shape, stages: list[list[int]]) -> None:
    """torch's errors for a transform of no elements: each _exec_fft call collapses the
    dimensions it does not transform with reshape(-1, *signal), which is ambiguous when the
    signal has no elements either; on the CPU the first call that gets that far fails in
    the FFT library (MKL rejects a batch of 0 transforms)."""
    if geometry.numel(size) != 0:
        return
    for dims in stages:
        signal = [size[d] for d in dims]
        if geometry.numel(signal) == 0:
            shape = ", ".join(str(n) for n in (-1, *signal))
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape [{shape}] because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if device_type == "cpu" and with_data:
            raise RuntimeError(
                "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters"
            )
