"""The special functions of torch.special: error and gamma functions, entr, xlog1py, zeta,
igamma, and the `special_*` aliases torch decomposes into other aten ops.

Torch: aten/src/ATen/native/UnaryOps.cpp and BinaryOps.cpp (the special_* meta functions are
unary or binary float ops), the CPU kernels of native/cpu/UnaryOpsKernel.cpp and
native/cpu/SpecialOps*.cpp over the formulas of native/Math.h. Functions outside the Array
API standard come from the backend (`extension`: SciPy on NumPy); the rest is composed from
the standard. The Bessel functions are in special_bessel.py, the orthogonal polynomials in
special_polynomials.py.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.promotion import can_cast
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace, extension
from refimpl.core.strides import contiguous_strides
from refimpl.core.tensor import TensorImpl, resize_for_output
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import SQRT_TWO_PI, TWO_OVER_SQRT_PI, not_implemented
from refimpl.ops._iterator import Builder
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop

aten: Final = namespace("aten")


def backend_function(xp: ArrayNamespace, name: str, *arrays: Array) -> Array:
    """The backend's special function `name` on `arrays`, in the arrays' dtype.

    SciPy has no float16 loops (it answers float32); torch's float16 kernels compute in
    float32 and round, which the cast back does too.
    """
    result = extension(xp, name)(*arrays)
    dtype = arrays[0].dtype
    return result if result.dtype == dtype else xp.astype(result, dtype)


def special_unary(name: str) -> PointwiseOp:
    """Declare `special_<name>(Tensor self) -> Tensor` over build_borrowing_unary_float_op."""
    return pointwise(f"special_{name}(Tensor self) -> Tensor", Builder.UNARY_FLOAT_OP)


# --- entr --------------------------------------------------------------------------------

special_entr: Final = special_unary("entr")


@special_entr.compute
def special_entr_compute(xp: ArrayNamespace, self: Array) -> Array:
    """-x log x for x > 0; 0 at 0; -inf for x < 0; nan for nan.

    Torch: entr kernel in native/cpu/UnaryOpsKernel.cpp.
    """
    safe = xp.where(self > 0, self, xp.ones_like(self))
    positive = -self * xp.log(safe)
    values = xp.where(self == 0, xp.zeros_like(self), xp.full_like(self, -math.inf))
    values = xp.where(self > 0, positive, values)
    return xp.where(xp.isnan(self), self, values)


@special_entr.derivative("self")
def special_entr_backward(grad: Tensor, self: Tensor) -> Tensor:
    # torch: grad * (-(1 + self.log()))
    return aten.mul.Tensor(grad, aten.neg.default(aten.add.Scalar(aten.log.default(self), 1)))


# --- erfcx, ndtri, log_ndtr -------------------------------------------------------------

special_erfcx: Final = special_unary("erfcx")


@special_erfcx.compute
def special_erfcx_compute(xp: ArrayNamespace, self: Array) -> Array:
    """exp(x^2) erfc(x). Torch: calc_erfcx in native/Math.h (Faddeeva's algorithm)."""
    return backend_function(xp, "erfcx", self)


@special_erfcx.derivative("self")
def special_erfcx_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: (2.0 * self * result - 2.0 / sqrt(M_PI)) * grad
    product = aten.mul.Tensor(aten.mul.Scalar(self, 2.0), result)
    return aten.mul.Tensor(aten.sub.Scalar(product, TWO_OVER_SQRT_PI), grad)


special_ndtri: Final = special_unary("ndtri")


@special_ndtri.compute
def special_ndtri_compute(xp: ArrayNamespace, self: Array) -> Array:
    """The inverse of the standard normal CDF. Torch: calc_ndtri in native/Math.h (Cephes)."""
    return backend_function(xp, "ndtri", self)


@special_ndtri.derivative("self")
def special_ndtri_backward(grad: Tensor, result: Tensor) -> Tensor:
    # torch: grad * std::sqrt(2 * M_PI) * (result.square() / 2).exp()
    density = aten.exp.default(aten.div.Scalar(aten.square.default(result), 2))
    return aten.mul.Tensor(aten.mul.Scalar(grad, SQRT_TWO_PI), density)


special_log_ndtr: Final = special_unary("log_ndtr")


@special_log_ndtr.compute
def special_log_ndtr_compute(xp: ArrayNamespace, self: Array) -> Array:
    """log of the standard normal CDF. Torch: calc_log_ndtr in native/Math.h."""
    return backend_function(xp, "log_ndtr", self)


@special_log_ndtr.derivative("self")
def special_log_ndtr_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: grad / std::sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp()
    exponent = aten.add.Tensor(result, aten.div.Scalar(aten.pow.Tensor_Scalar(self, 2), 2))
    ratio = aten.exp.default(aten.neg.default(exponent))
    return aten.mul.Tensor(aten.div.Scalar(grad, SQRT_TWO_PI), ratio)


# --- xlog1py, zeta ----------------------------------------------------------------------

special_xlog1py: Final = pointwise(
    "special_xlog1py(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_FLOAT_OP,
    operands=("self", "other"),
    scalar=(
        "special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor",
        "special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor",
    ),
)


@special_xlog1py.compute
def special_xlog1py_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """x * log1p(y), 0 where x is 0 (unless y is nan).

    Torch: xlog1py_kernel in native/cpu/BinaryOpsKernel.cpp.
    """
    self, other = xp.broadcast_arrays(self, other)
    values = xp.where(self == 0, xp.zeros_like(self), self * xp.log1p(other))
    return xp.where(xp.isnan(other), other, values)


@special_xlog1py.derivative("self")
def special_xlog1py_backward_self(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: at::special_xlog1py(grad, other).masked_fill((self == 0.) & (other <= -1.), 0.)
    mask = aten.bitwise_and.Tensor(aten.eq.Scalar(self, 0.0), aten.le.Scalar(other, -1.0))
    return aten.masked_fill.Scalar(aten.special_xlog1py.default(grad, other), mask, 0.0)


@special_xlog1py.derivative("other")
def special_xlog1py_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad * self / (other + 1)
    return aten.div.Tensor(aten.mul.Tensor(grad, self), aten.add.Scalar(other, 1))


@special_xlog1py.derivative("self", overload="special_xlog1py.other_scalar")
def special_xlog1py_other_scalar_backward(grad: Tensor, self: Tensor, other: Scalar) -> Tensor:
    # torch: other.toDouble() > -1. ? at::special_xlog1py(grad, other)
    #                               : at::special_xlog1py(grad, other).masked_fill(self == 0., 0.)
    values = aten.special_xlog1py.other_scalar(grad, other)
    if float(other) > -1.0:  # type: ignore[arg-type]
        return values
    return aten.masked_fill.Scalar(values, aten.eq.Scalar(self, 0.0), 0.0)


@special_xlog1py.derivative("other", overload="special_xlog1py.self_scalar")
def special_xlog1py_self_scalar_backward(grad: Tensor, self: Scalar, other: Tensor) -> Tensor:
    # torch: grad * self / (other + 1), self a Scalar
    return aten.div.Tensor(aten.mul.Scalar(grad, self), aten.add.Scalar(other, 1))


# torch: zeta in native/Math.h is Cephes' Hurwitz zeta: a direct sum of q**-x up to a term
# below MACHEP (at least nine terms, and on until the base passes 9), then Euler-Maclaurin
# with the Bernoulli-number divisors below, stopping once a term falls under MACHEP.
_ZETA_MACHEP: Final = 1.11022302462515654042e-16
_ZETA_DIVISORS: Final = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)  # (2k)! / B_2k for k = 1 .. 12
_ZETA_BLOCK_ELEMENTS: Final = 1 << 18  # the terms computed at once in the direct sum


def _pick(xp: ArrayNamespace, mask: Array, values: Array) -> Array:
    """The one value of each row of `values` where `mask` (one True per row, or none: 0)."""
    return xp.sum(xp.where(mask, values, xp.zeros_like(values)), axis=-1)


def _zeta_block(
    xp: ArrayNamespace, x: Array, base: Array, total: Array, count: int, width: int
) -> tuple[Array, Array, Array, Array]:
    """`width` more steps of the direct sum on 1-d rows that all step now; returns the
    (total, base, term, converged) each row has where it stops."""
    dtype = x.dtype
    machep, nine = xp.asarray(_ZETA_MACHEP, dtype=dtype), xp.asarray(9.0, dtype=dtype)
    bases = base[:, None] + xp.arange(1, width + 1, dtype=dtype)
    position = xp.arange(width)
    # The loop's condition before each step (it only ever turns false: a prefix of steps).
    valid = (position + count < 9) | (bases - xp.asarray(1.0, dtype=dtype) <= nine)
    terms = xp.where(valid, xp.pow(bases, -x[:, None]), xp.zeros_like(bases))
    running = xp.cumulative_sum(xp.concat([total[:, None], terms], axis=-1), axis=-1)[:, 1:]
    converged = valid & (-machep * running < terms) & (terms < machep * running)
    # Each row stops at its first converged term, else at its last valid one.
    first = xp.min(xp.where(converged, position, xp.asarray(width)), axis=-1)
    last = xp.sum(xp.astype(valid, xp.int64), axis=-1) - 1
    at_stop = position == xp.where(first < width, first, last)[:, None]
    return (
        _pick(xp, at_stop, running),
        _pick(xp, at_stop, bases),
        _pick(xp, at_stop, terms),
        xp.any(converged, axis=-1),
    )


def _zeta_direct_sum(xp: ArrayNamespace, x: Array, q: Array) -> tuple[Array, ...]:
    """Cephes' first phase: total = q**-x, then `base += 1; term = base**-x; total += term`
    while fewer than nine terms were added or base <= 9, stopping where the term falls below
    MACHEP relative to the total. Returns (total, base, term, converged), in x's shape.

    Torch adds one term per step; a negative q takes about -q steps, so the steps here run
    in blocks over the elements still stepping: the terms of a block at once, their running
    totals (a cumulative sum: the same sequential additions, so the same roundings) and the
    stop at the first converged term.
    """
    shape, dtype = x.shape, x.dtype
    nine = xp.asarray(9.0, dtype=dtype)
    x, q = xp.reshape(x, (-1,)), xp.reshape(q, (-1,))
    total, base, term = xp.pow(q, -x), q, xp.zeros_like(q)
    done = xp.zeros(x.shape, dtype=xp.bool)
    count = 0  # the steps every element still stepping has taken
    while True:
        stepping = ~done & ((count < 9) | (base <= nine))
        rows = xp.nonzero(stepping)[0]
        if rows.shape[0] == 0:
            break
        sub_base = xp.take(base, rows)
        owed = xp.where(sub_base <= nine, xp.floor(nine - sub_base) + 1, xp.zeros_like(sub_base))
        width = max(9 - count, int(xp.max(owed)), 1)
        width = min(width, max(16, _ZETA_BLOCK_ELEMENTS // rows.shape[0]))
        stepped = _zeta_block(xp, xp.take(x, rows), sub_base, xp.take(total, rows), count, width)
        # Back to every element: row i of the block is the i-th stepping element.
        slot = xp.maximum(xp.cumulative_sum(xp.astype(stepping, xp.int64)) - 1, xp.asarray(0))
        total, base, term = (
            xp.where(stepping, xp.take(new, slot), old)
            for new, old in zip(stepped[:3], (total, base, term), strict=True)
        )
        done = done | (stepping & xp.take(stepped[3], slot))
        count += width
    return tuple(xp.reshape(array, shape) for array in (total, base, term, done))


def hurwitz_zeta(xp: ArrayNamespace, x: Array, q: Array) -> Array:
    """zeta(x, q) = sum over k >= 0 of (k + q) ** -x, elementwise on broadcast float arrays.

    Torch: zeta in native/Math.h: inf at x == 1 and at non-positive integer q (-inf
    included), nan for x < 1 and for q < 0 with non-integer x; nan at q == +inf.
    """
    dtype = x.dtype

    def const(value: float) -> Array:
        return xp.asarray(value, dtype=dtype)

    one, machep = const(1.0), const(_ZETA_MACHEP)
    pole = (x == one) | ((q <= 0) & (q == xp.floor(q)))
    invalid = (x < one) | ((q < 0) & (x != xp.floor(x)) & ~pole)
    # Elements answered by a special case run the sum on harmless stand-ins.
    x_run = xp.where(pole | invalid, const(2.0), x)
    q_run = xp.where(pole | invalid, one, q)
    total, base, term, done = _zeta_direct_sum(xp, x_run, q_run)
    last_base = base
    total = xp.where(done, total, total + term * last_base / (x_run - one) - const(0.5) * term)
    factor, k = one, 0.0
    for divisor in _ZETA_DIVISORS:
        factor = factor * (x_run + const(k))
        term = term / last_base
        addend = factor * term / const(divisor)
        total = xp.where(done, total, total + addend)
        done = done | (xp.abs(addend / total) < machep)
        factor = factor * (x_run + const(k + 1.0))
        term = term / last_base
        k += 2.0
    total = xp.where(pole, const(math.inf), total)
    return xp.where(invalid, const(math.nan), total)


special_zeta: Final = pointwise(
    "special_zeta(Tensor self, Tensor other) -> Tensor",
    Builder.BINARY_FLOAT_OP,
    operands=("self", "other"),
    scalar=(
        "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
        "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
    ),
)


@special_zeta.compute
def special_zeta_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The Hurwitz zeta function zeta(x, q). Torch: zeta in native/Math.h (Cephes)."""
    self, other = xp.broadcast_arrays(self, other)
    # torch: zeta computes in acc_type, double on CPU for float32.
    wide = hurwitz_zeta(xp, xp.astype(self, xp.float64), xp.astype(other, xp.float64))
    return xp.astype(wide, self.dtype)


@special_zeta.derivative("self")
def special_zeta_backward_self(grad: Tensor) -> Tensor:
    # torch: not_implemented("zeta")
    not_implemented("zeta")


@special_zeta.derivative("other")
def special_zeta_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad * -self * special_zeta(self + 1., other)
    shifted = aten.special_zeta.default(aten.add.Scalar(self, 1.0), other)
    return aten.mul.Tensor(aten.mul.Tensor(grad, aten.neg.default(self)), shifted)


special_zeta.derivative("self", overload="special_zeta.other_scalar")(special_zeta_backward_self)


@special_zeta.derivative("other", overload="special_zeta.self_scalar")
def special_zeta_self_scalar_backward(grad: Tensor, self: Scalar, other: Tensor) -> Tensor:
    # torch: grad * -self * special_zeta(self.toDouble() + 1., other)
    shifted = aten.special_zeta.self_scalar(float(self) + 1.0, other)  # type: ignore[arg-type]
    return aten.mul.Tensor(aten.mul.Scalar(grad, -self), shifted)


# --- aliases torch decomposes (CompositeImplicitAutograd) -------------------------------
# torch: the special_* wrappers in UnaryOps.cpp and BinaryOps.cpp call the op they alias.


def _alias(name: str, target: str) -> None:
    """special_<name> and special_<name>.out as calls of aten.<target> and its out=."""
    functional = defop(f"special_{name}(Tensor self) -> Tensor")
    out = defop(f"special_{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    packet = getattr(aten, target)

    def decomposition(self: TensorImpl) -> Any:
        return packet.default(self)

    def out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
        return packet.out(self, out=out)

    decomposition.__name__ = f"special_{name}_decomposition"
    out_decomposition.__name__ = f"special_{name}_out_decomposition"
    decomposition.__doc__ = f"special_{name} is {target}. Torch: special_{name} in UnaryOps.cpp."
    out_decomposition.__doc__ = decomposition.__doc__
    functional.decomposition(decomposition)
    out.decomposition(out_decomposition)


# special_<name> -> aten.<target>, one row per alias.
_ALIASES: Final[dict[str, str]] = {
    "expit": "sigmoid",
    "exp2": "exp2",
    "expm1": "expm1",
    "erf": "erf",
    "erfc": "erfc",
    "erfinv": "erfinv",
    "gammaln": "lgamma",
    "digamma": "digamma",
    "psi": "digamma",
    "i0": "i0",
    "log1p": "log1p",
    "sinc": "sinc",
}
for _name, _target in _ALIASES.items():
    _alias(_name, _target)


# --- gammainc, gammaincc ----------------------------------------------------------------

special_gammainc: Final = defop("special_gammainc(Tensor self, Tensor other) -> Tensor")
special_gammainc_out: Final = defop(
    "special_gammainc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_gammainc.decomposition
def special_gammainc_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """The regularized lower incomplete gamma function. Torch: special_gammainc is igamma."""
    return aten.igamma.default(self, other)


@special_gammainc_out.decomposition
def special_gammainc_out_decomposition(
    self: TensorImpl, other: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: special_gammainc_out in BinaryOps.cpp is igamma_out."""
    return aten.igamma.out(self, other, out=out)


special_gammaincc: Final = defop("special_gammaincc(Tensor self, Tensor other) -> Tensor")
special_gammaincc_out: Final = defop(
    "special_gammaincc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_gammaincc.decomposition
def special_gammaincc_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """The regularized upper incomplete gamma function. Torch: special_gammaincc is igammac."""
    return aten.igammac.default(self, other)


@special_gammaincc_out.decomposition
def special_gammaincc_out_decomposition(
    self: TensorImpl, other: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: special_gammaincc_out in BinaryOps.cpp is igammac_out."""
    return aten.igammac.out(self, other, out=out)


# --- xlogy ------------------------------------------------------------------------------

special_xlogy: Final = defop("special_xlogy(Tensor self, Tensor other) -> Tensor")
special_xlogy_other_scalar: Final = defop(
    "special_xlogy.other_scalar(Tensor self, Scalar other) -> Tensor"
)
special_xlogy_self_scalar: Final = defop(
    "special_xlogy.self_scalar(Scalar self, Tensor other) -> Tensor"
)
special_xlogy_out: Final = defop(
    "special_xlogy.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
)
special_xlogy_self_scalar_out: Final = defop(
    "special_xlogy.self_scalar_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
)
special_xlogy_other_scalar_out: Final = defop(
    "special_xlogy.other_scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_xlogy.decomposition
def special_xlogy_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """x * log(y). Torch: special_xlogy in BinaryOps.cpp is xlogy."""
    return aten.xlogy.Tensor(self, other)


@special_xlogy_other_scalar.decomposition
def special_xlogy_other_scalar_decomposition(self: TensorImpl, other: Scalar) -> Any:
    """Torch: special_xlogy (Tensor, Scalar) is xlogy.Scalar_Other."""
    return aten.xlogy.Scalar_Other(self, other)


@special_xlogy_self_scalar.decomposition
def special_xlogy_self_scalar_decomposition(self: Scalar, other: TensorImpl) -> Any:
    """Torch: special_xlogy (Scalar, Tensor) is xlogy.Scalar_Self."""
    return aten.xlogy.Scalar_Self(self, other)


@special_xlogy_out.decomposition
def special_xlogy_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: special_xlogy_out is xlogy_out."""
    return aten.xlogy.OutTensor(self, other, out=out)


@special_xlogy_self_scalar_out.decomposition
def special_xlogy_self_scalar_out_decomposition(
    self: Scalar, other: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: special_xlogy_out (Scalar, Tensor) is xlogy_out."""
    return aten.xlogy.OutScalar_Self(self, other, out=out)


@special_xlogy_other_scalar_out.decomposition
def special_xlogy_other_scalar_out_decomposition(
    self: TensorImpl, other: Scalar, *, out: TensorImpl
) -> Any:
    """Torch: special_xlogy_out (Tensor, Scalar) is xlogy_out."""
    return aten.xlogy.OutScalar_Other(self, other, out=out)


# --- logit, polygamma, multigammaln, round ----------------------------------------------

special_logit: Final = defop("special_logit(Tensor self, float? eps=None) -> Tensor")
special_logit_out: Final = defop(
    "special_logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_logit.decomposition
def special_logit_decomposition(self: TensorImpl, eps: float | None) -> Any:
    """log(p / (1 - p)), p clamped to [eps, 1 - eps]. Torch: special_logit is logit."""
    return aten.logit.default(self, eps)


@special_logit_out.decomposition
def special_logit_out_decomposition(self: TensorImpl, eps: float | None, *, out: TensorImpl) -> Any:
    """Torch: special_logit_out is logit_out."""
    return aten.logit.out(self, eps, out=out)


special_polygamma: Final = defop("special_polygamma(int n, Tensor self) -> Tensor")
special_polygamma_out: Final = defop(
    "special_polygamma.out(int n, Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_polygamma.decomposition
def special_polygamma_decomposition(n: int, self: TensorImpl) -> Any:
    """The n-th derivative of digamma. Torch: special_polygamma is polygamma."""
    return aten.polygamma.default(n, self)


@special_polygamma_out.decomposition
def special_polygamma_out_decomposition(n: int, self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: special_polygamma_out is polygamma_out."""
    return aten.polygamma.out(n, self, out=out)


special_multigammaln: Final = defop("special_multigammaln(Tensor self, int p) -> Tensor")
special_multigammaln_out: Final = defop(
    "special_multigammaln.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)"
)


@special_multigammaln.decomposition
def special_multigammaln_decomposition(self: TensorImpl, p: int) -> Any:
    """The log of the multivariate gamma function. Torch: special_multigammaln is mvlgamma."""
    return aten.mvlgamma.default(self, p)


@special_multigammaln_out.decomposition
def special_multigammaln_out_decomposition(self: TensorImpl, p: int, *, out: TensorImpl) -> Any:
    """Torch: special_multigammaln_out is mvlgamma_out."""
    return aten.mvlgamma.out(self, p, out=out)


special_round: Final = defop("special_round(Tensor self, *, int decimals=0) -> Tensor")
special_round_out: Final = defop(
    "special_round.out(Tensor self, *, int decimals=0, Tensor(a!) out) -> Tensor(a!)"
)


@special_round.decomposition
def special_round_decomposition(self: TensorImpl, *, decimals: int) -> Any:
    """Round half to even at `decimals`. Torch: special_round is round(decimals)."""
    return aten.round.decimals(self, decimals=decimals)


@special_round_out.decomposition
def special_round_out_decomposition(self: TensorImpl, *, decimals: int, out: TensorImpl) -> Any:
    """Torch: special_round_out is round_out(decimals)."""
    return aten.round.decimals_out(self, decimals=decimals, out=out)


# --- ndtr -------------------------------------------------------------------------------

special_ndtr: Final = defop("special_ndtr(Tensor self) -> Tensor")
special_ndtr_out: Final = defop("special_ndtr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@special_ndtr.decomposition
def special_ndtr_decomposition(self: TensorImpl) -> Any:
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2.

    Torch: calc_ndtr in aten/src/ATen/native/UnaryOps.cpp.
    """
    erf = aten.erf.default(aten.div.Scalar(self, math.sqrt(2.0)))
    return aten.mul.Scalar(aten.add.Scalar(erf, 1), 0.5)


@special_ndtr_out.decomposition
def special_ndtr_out_decomposition(self: TensorImpl, *, out: TensorImpl) -> Any:
    """ndtr computed, then copied into `out`. Torch: special_ndtr_out in UnaryOps.cpp.

    Differs: torch's resize_output warns when it resizes a non-empty `out`; refimpl resizes
    without the warning here.
    """
    if self._storage.device != out._storage.device:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{self._storage.device} and {out._storage.device}!"
        )
    result = special_ndtr_decomposition(self)
    if not can_cast(result._dtype, out._dtype):
        raise RuntimeError(
            f"result type {result._dtype.scalar_name} can't be cast to the desired output "
            f"type {out._dtype.scalar_name}"
        )
    if out._size != result._size:
        resize_for_output(out, result._size, contiguous_strides(result._size))
    return aten.copy_.default(out, result)


# --- igamma, igammac ---------------------------------------------------------------------

igamma = pointwise("igamma(Tensor self, Tensor other) -> Tensor", Builder.BINARY_FLOAT_OP)


@igamma.compute
def igamma_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The regularized lower incomplete gamma P(self, other). Torch: igamma_kernel (calc_igamma
    in aten/src/ATen/native/Math.h)."""
    return xp.astype(extension(xp, "gammainc")(self, other), self.dtype)


def _igamma_density(self: Tensor, other: Tensor) -> Tensor:
    # torch: exp((self - 1) * log(other) - other - lgamma(self))
    power = aten.mul.Tensor(aten.sub.Scalar(self, 1), aten.log.default(other))
    exponent = aten.sub.Tensor(aten.sub.Tensor(power, other), aten.lgamma.default(self))
    return aten.exp.default(exponent)


@igamma.derivative("self")
def igamma_backward_self(grad: Tensor) -> Tensor:
    # torch: not_implemented("igamma: input")
    not_implemented("igamma: input")


@igamma.derivative("other")
def igamma_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: grad * exp((self - 1) * log(other) - other - lgamma(self))
    return aten.mul.Tensor(grad, _igamma_density(self, other))


igammac = pointwise("igammac(Tensor self, Tensor other) -> Tensor", Builder.BINARY_FLOAT_OP)


@igammac.compute
def igammac_compute(xp: ArrayNamespace, self: Array, other: Array) -> Array:
    """The regularized upper incomplete gamma Q(self, other). Torch: igammac_kernel
    (calc_igammac in Math.h)."""
    return xp.astype(extension(xp, "gammaincc")(self, other), self.dtype)


@igammac.derivative("self")
def igammac_backward_self(grad: Tensor) -> Tensor:
    # torch: not_implemented("igammac: input")
    not_implemented("igammac: input")


@igammac.derivative("other")
def igammac_backward_other(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # torch: -grad * exp((self - 1) * log(other) - other - lgamma(self))
    return aten.mul.Tensor(aten.neg.default(grad), _igamma_density(self, other))
