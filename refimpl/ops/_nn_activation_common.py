"""Helpers the activation kernels share: Scalar arguments as arrays of the computation dtype,
and the zero tensors their double-backward formulas return.

Torch: `Scalar::to<scalar_t>()` / `to<opmath_t>()` in native/cpu/Activation.cpp, and
`at::zeros({}, t.options())` in derivatives.yaml.
"""

from __future__ import annotations

from typing import Final

from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor

aten: Final = namespace("aten")


def scalar_like(xp: ArrayNamespace, value: Scalar, like: Array) -> Array:
    """`value` as a 0-dim array of `like`'s dtype. Torch: Scalar::to<scalar_t>(), which
    truncates a floating value for an integral dtype."""
    if xp.isdtype(like.dtype, "integral"):
        return xp.asarray(int(value), dtype=like.dtype)  # type: ignore[arg-type]  # real Scalar
    return xp.asarray(float(value), dtype=like.dtype)  # type: ignore[arg-type]  # real Scalar


def zero_of(t: Tensor) -> Tensor:
    """A 0-dim zero of `t`'s dtype and device. Torch: at::zeros({}, t.options())."""
    return aten.zeros.default([], dtype=t._dtype, device=t._storage.device)
