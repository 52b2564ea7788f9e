"""The helper functions the derivative formulas of the unary elementwise ops share.

Torch: the functions of torch/csrc/autograd/FunctionsManual.cpp that the derivatives.yaml
entries of unary ops call (log1p_backward, sinc_backward, sgn_backward, angle_backward,
mvlgamma_backward, infinitely_differentiable_logit_backward, i1_backward, i1e_backward,
polar_backward, deg2rad_backward, rad2deg_backward, not_implemented). Each calls
ops through the dispatcher only, so a backward pass built from them is recorded when
`create_graph=True`.
"""

from __future__ import annotations

import math
from typing import Final, NoReturn

from refimpl._base.dtypes import DType, float32
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Scalar, Tensor, conj

aten = namespace("aten")

# torch: the C++ constants the formulas of derivatives.yaml spell (M_PI, M_LN2, ...), as the
# doubles the expressions round them to.
TWO_OVER_SQRT_PI: Final = 2.0 / math.sqrt(math.pi)
"""`2.0 / sqrt(M_PI)` (erf, erfc, special_erfcx)."""
HALF_SQRT_PI: Final = 0.5 * math.sqrt(math.pi)
"""`0.5 * sqrt(M_PI)` (erfinv)."""
SQRT_TWO_PI: Final = math.sqrt(2 * math.pi)
"""`std::sqrt(2 * M_PI)` (special_log_ndtr, special_ndtri)."""
M_LN2: Final = math.log(2.0)
LN10: Final = 2.3025850929940456
LN2: Final = 0.6931471805599453
M_PI_180: Final = 0.017453292519943295769236907684886127134428718885417
M_180_PI: Final = 57.295779513082320876798154814105170332405472466564


def not_implemented(name: str, reason: str = "") -> NoReturn:
    """Torch: not_implemented (TORCH_CHECK_NOT_IMPLEMENTED: NotImplementedError)."""
    message = f"the derivative for '{name}' is not implemented."
    raise NotImplementedError(f"{message} {reason}" if reason else message)


def full_scalar(value: Scalar, like: Tensor) -> Tensor:
    """A 0-dim tensor of `like`'s dtype and device. Torch: at::full({}, value, options)."""
    return aten.full.default([], value, dtype=like._dtype, device=like.device)


def epsilon(dtype: DType) -> float:
    """Torch: std::numeric_limits<scalar_t>::epsilon() of AT_DISPATCH_FLOATING_TYPES."""
    return 2.0**-23 if dtype is float32 else 2.0**-52


def log1p_backward(grad: Tensor, self: Tensor) -> Tensor:
    """`grad / (self + 1).conj()`. Torch: log1p_backward (dense inputs)."""
    return aten.div.Tensor(grad, conj(aten.add.Scalar(self, 1)))


def sinc_backward(grad: Tensor, self: Tensor) -> Tensor:
    """`grad * ((pi x cos(pi x) - sin(pi x)) / (pi x**2)).conj()`, 0 at 0. Torch:
    sinc_backward."""
    self_pi = aten.mul.Scalar(self, math.pi)
    self_squared_pi = aten.mul.Scalar(aten.mul.Tensor(self, self), math.pi)
    numerator = aten.sub.Tensor(aten.mul.Tensor(self_pi, aten.cos.default(self_pi)),
                                aten.sin.default(self_pi))
    out = aten.mul.Tensor(grad, conj(aten.div.Tensor(numerator, self_squared_pi)))
    zero = full_scalar(0, grad)
    return aten.where.self(aten.eq.Scalar(self_squared_pi, 0.0), zero, out)


def sgn_backward(self: Tensor, grad: Tensor, result: Tensor) -> Tensor:
    """Torch: sgn_backward(x, gx, sgn): `(gx - sgn * sgn * gx.conj()) / (2 |x|)`, 0 where
    x is 0, for complex x; zeros for real x (a ZeroTensor in torch)."""
    if not self._dtype.is_complex:
        # Differs: torch answers at::_efficientzerotensor, which refimpl does not have.
        return aten.zeros_like.default(result)
    absolute = aten.abs.default(self)
    numerator = aten.sub.Tensor(
        grad, aten.mul.Tensor(aten.mul.Tensor(result, result), aten.conj.default(grad))
    )
    # Differs: torch fills in place (masked_fill_); the values are the same.
    return aten.masked_fill.Scalar(
        aten.div.Tensor(numerator, aten.mul.Scalar(absolute, 2.0)),
        aten.eq.Scalar(absolute, 0.0),
        0.0,
    )


def angle_backward(grad: Tensor, self: Tensor) -> Tensor:
    """`grad * self / |self|**2 * 1j`, 0 where self is 0; zeros for real self. Torch:
    angle_backward."""
    if not self._dtype.is_complex:
        return aten.zeros_like.default(self)
    scaled = aten.div.Tensor(
        aten.mul.Tensor(grad, self), aten.pow.Tensor_Scalar(aten.abs.default(self), 2)
    )
    rotated = aten.mul.Scalar(scaled, 1j)
    return aten.where.self(aten.eq.Scalar(self, 0.0), full_scalar(0, self), rotated)


def mvlgamma_backward(grad: Tensor, self: Tensor, p: int) -> Tensor:
    """`grad * sum_j digamma(self - j / 2)` over j < p. Torch: mvlgamma_backward (the shifts
    as `arange(-p / 2 + 0.5, 0.5, 0.5)` added to `self.unsqueeze(-1)`)."""
    # Differs: refimpl has no arange; the p shifted copies are stacked on a new last dim,
    # which gives the same tensor.
    shifted = [aten.add.Scalar(self, -p / 2.0 + 0.5 + 0.5 * j) for j in range(p)]
    args = aten.stack.default(shifted, -1)
    return aten.mul.Tensor(grad, aten.sum.dim_IntList(aten.digamma.default(args), [-1]))


def logit_backward(grad: Tensor, self: Tensor, eps: float | None) -> Tensor:
    """`grad / (self (1 - self))` inside [eps, 1 - eps] (0 outside), or inside [0, 1] (nan
    outside) without eps. Torch: infinitely_differentiable_logit_backward."""
    # Differs: torch calls the aten kernel logit_backward when grad mode is off (a backward
    # without create_graph); its values are these.
    low, high = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = aten.logical_and.default(aten.ge.Scalar(self, low), aten.le.Scalar(self, high))
    value = aten.div.Tensor(grad, aten.mul.Tensor(self, aten.rsub.Scalar(self, 1.0)))
    outside = full_scalar(math.nan if eps is None else 0.0, self)
    return aten.where.self(inside, value, outside)


def i1_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """`grad * (i0(x) - i1(x) / x)`, 1/2 where |x| <= eps. Torch: i1_backward."""
    eps = epsilon(self._dtype)
    not_tiny = aten.gt.Scalar(aten.abs.default(self), eps)
    safe_self = aten.where.self(not_tiny, self, full_scalar(eps, self))
    gradx = aten.sub.Tensor(
        aten.i0.default(safe_self), aten.mul.Tensor(result, aten.reciprocal.default(safe_self))
    )
    return aten.mul.Tensor(grad, aten.where.self(not_tiny, gradx, full_scalar(0.5, self)))


def i1e_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """`grad * (i0e(x) - i1e(x) (sgn x + 1 / x))`, 1/2 where |x| <= eps. Torch:
    i1e_backward."""
    eps = epsilon(self._dtype)
    not_tiny = aten.gt.Scalar(aten.abs.default(self), eps)
    safe_self = aten.where.self(not_tiny, self, full_scalar(eps, self))
    shift = aten.add.Tensor(aten.sgn.default(safe_self), aten.reciprocal.default(safe_self))
    gradx = aten.sub.Tensor(aten.special_i0e.default(safe_self), aten.mul.Tensor(result, shift))
    return aten.mul.Tensor(grad, aten.where.self(not_tiny, gradx, full_scalar(0.5, self)))


def polar_backward(grad: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
    """The gradients of abs and angle from result = abs e^(i angle). Torch: polar_backward."""
    grad_conj = aten.conj.default(grad)
    grad_abs = aten.real.default(aten.mul.Tensor(grad_conj, aten.sgn.default(result)))
    result_mul_1_j = aten.mul.Scalar(result, 1j)
    grad_angle = aten.real.default(aten.mul.Tensor(grad_conj, result_mul_1_j))
    return grad_abs, grad_angle
