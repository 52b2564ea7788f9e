"""What of torch's answer depends on the machine the conformance suite runs on, and how the
OpInfo runner keeps its oracle the same on every machine: half-precision cases run torch's
ATen kernels (oneDNN off), and single-precision BLAS and LAPACK results are refereed in
double precision.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import torch

# Note [Half-precision cases run torch without oneDNN]
# Whether torch's CPU build runs a float16 or bfloat16 convolution (and matmul) through oneDNN
# depends on the CPU: ConvParams::use_mkldnn asks mkldnn_fp16_device_check() /
# mkldnn_bf16_device_check(), true where the CPU has AVX512-FP16 / AMX (Sapphire Rapids on).
# The two paths round differently: oneDNN sums in float32 and rounds once, while ATen's own
# slow_conv_transpose2d adds each column into a float16 output (col2im), rounding each partial
# sum, so a float16 conv_transpose2d differs by a float16 ulp or more between machines
# (measured: 0.25 at -202.19, where the OpInfo's tolerance allows 0.004 relative). refimpl
# follows ATen's kernels, as on a CPU without that support (ops/_nn_convolution_params.py:
# uses_mkldnn is torch's float32 part); the half-precision cases turn oneDNN off in torch so
# that the oracle is that machine-independent path on every machine. float32 keeps oneDNN on:
# torch chooses it there by shape alone, and refimpl models that choice (its error texts and
# 3-d layouts).
_HALF: Final = (torch.float16, torch.bfloat16)


@contextmanager
def native_half_kernels(dtype: torch.dtype | None) -> Iterator[None]:
    """Run a float16/bfloat16 case's torch calls with oneDNN off (Note above)."""
    if dtype not in _HALF:
        yield
        return
    # set_flags changes only what it is given; flags() would also set allow_tf32 (with a
    # deprecation warning), and torch's testing module forbids assigning `enabled`.
    (enabled, *_) = torch.backends.mkldnn.set_flags(False, None, None, None)
    try:
        yield
    finally:
        torch.backends.mkldnn.set_flags(enabled, None, None, None)


# Note [A single-precision BLAS or LAPACK result is refereed in double]
# The linalg and matmul families' results come from LAPACK and BLAS, and which library
# computes them differs: torch's CPU build links MKL, whose code path depends on the CPU's
# instruction set, and the NumPy backend links OpenBLAS. In float32 and complex64 their
# answers differ by the rounding error the algorithm allows (another summation order), which
# an ill-conditioned sample amplifies past torch's default tolerance (measured on a Sapphire
# Rapids CPU, where an earlier machine's MKL passed: linalg.cond of a complex64 sample with
# condition number 60.81 reads 60.80986 from MKL, 60.81000 from OpenBLAS, 60.810005 in
# complex128; a complex64 matmul element 1.35670 + 10.73966j from OpenBLAS, 1.35669 +
# 10.73963j from MKL, each 1.4e-5 from the complex128 answer, 2.6e-5 apart where 2.4e-5 is
# allowed). Such a case is refereed: torch computes the sample again in float64/complex128,
# and the target's values pass where each is as close to that answer as torch's own (within
# the dtype's tolerance). A target less accurate than torch still fails; dtypes, sizes and
# strides compare as always.
REFEREED_FAMILIES: Final = frozenset({"linalg", "matmul"})
# nn.functional's OpInfos whose values are BLAS products too (a complex64 conv2d element,
# computed by torch's three real convolutions, reads 2.9e-5 apart where 2.1e-5 is allowed,
# each 1.4-1.6e-5 from complex128's).
REFEREED_OPS: Final = frozenset(
    {
        "nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
        "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
        "nn.functional.conv_transpose3d", "nn.functional.linear", "nn.functional.bilinear",
    }
)  # fmt: skip
REFEREED_DTYPES: Final = {torch.float32: torch.float64, torch.complex64: torch.complex128}


def widened(
    parts: tuple[Any, tuple[Any, ...], dict[str, Any]],
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """A sample's (input, args, kwargs) with its single-precision tensors in double."""

    def widen(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.dtype in REFEREED_DTYPES:
            return value.detach().to(REFEREED_DTYPES[value.dtype])
        if isinstance(value, (tuple, list)):
            return type(value)(widen(v) for v in value)
        return value

    first, args, kwargs = parts
    return widen(first), widen(args), {k: widen(v) for k, v in kwargs.items()}


def refereed(name: str, family: str) -> bool:
    """Whether an OpInfo's single-precision values are refereed (Note above)."""
    return family in REFEREED_FAMILIES or name in REFEREED_OPS


def as_accurate(
    actual: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor, rtol: float, atol: float
) -> bool:
    """Whether each of `actual`'s values is close to `expected`'s (the usual tolerance) or as
    close to `truth` as `expected`'s is, within the same tolerance: |actual - truth| <=
    |expected - truth| + atol + rtol * |truth|. NaNs must be where `expected` has them."""
    if not (truth.is_floating_point() or truth.is_complex()):
        return False
    wide = truth.dtype
    a, e = actual.to(wide), expected.to(wide)
    if not torch.equal(a.isnan(), e.isnan()):
        return False
    close = (a - e).abs() <= atol + rtol * e.abs()
    accurate = (a - truth).abs() <= (e - truth).abs() + atol + rtol * truth.abs()
    return bool((close | accurate | a.isnan() | (a == e)).all())
