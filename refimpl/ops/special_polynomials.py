"""The orthogonal polynomials of torch.special: Chebyshev (and shifted), Hermite, Laguerre,
Legendre, each P(x, n) with Tensor and Scalar overloads.

Torch: the *_polynomial_*_forward functions in aten/src/ATen/native/Math.h, over
build_borrowing_binary_float_op (TORCH_META_FUNC(special_chebyshev_polynomial_t) in
BinaryOps.cpp); the Scalar overloads wrap the scalar and call the Tensor overload. Values
follow torch's recurrences and its closed forms for large n, not SciPy's: torch's values are
the specification (n truncated to an integer, 0 for n < 0, torch's special cases at |x| = 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from refimpl.core.backend import Array, ArrayNamespace
from refimpl.ops._exact import fma_float32
from refimpl.ops._iterator import Builder
from refimpl.ops._pointwise import PointwiseOp, pointwise

Step = Callable[[int, Array, Array], Array]
"""The degree-m value of a three-term recurrence from the degree m-2 (`p`) and m-1 (`q`) ones."""

# --- shared: degree, recurrence, declaration -------------------------------------------------


def _degree(xp: ArrayNamespace, n: Array) -> Array:
    """The integer degree torch reads from `n`: static_cast<int64_t>(n), truncating.

    A non-finite n has no int64 value; x86 converts it to INT64_MIN, so torch returns 0 for
    it, as for any negative n. It becomes -1 here.
    """
    if xp.isdtype(n.dtype, "integral"):
        return xp.astype(n, xp.int64)
    finite = xp.isfinite(n)
    safe = xp.where(finite, xp.trunc(n), xp.zeros_like(n))
    return xp.where(finite, xp.astype(safe, xp.int64), xp.full_like(safe, -1, dtype=xp.int64))


def _full(xp: ArrayNamespace, like: Array, value: float) -> Array:
    return xp.full(like.shape, value, dtype=like.dtype)


def _recurrence(
    xp: ArrayNamespace, degree: Array, needed: Array, p0: Array, p1: Array, step: Step
) -> Array:
    """Each element's value at its own degree, by running the recurrence up to the highest
    degree among the `needed` elements (torch's loop, run for all elements at once)."""
    result = xp.where(degree == 0, p0, p1)
    top = int(xp.max(xp.where(needed, degree, xp.zeros_like(degree)))) if degree.size else 0
    p, q = p0, p1
    for m in range(2, top + 1):
        p, q = q, step(m, p, q)
        result = xp.where(degree == m, q, result)
    return result


# Note [The recurrences' fused multiply-subtract]
# Each recurrence step of torch's kernels is written `a * q - b` (Math.h: `(x + x) * q - p`,
# `x * q - k * p`, ...), and torch's CPU kernels compiled for AVX2 and AVX-512 (the builds
# its dispatcher picks on any x86 CPU since 2013; only ATEN_CPU_CAPABILITY=default runs the
# other) have the compiler fuse it into one FMA: a * q - b rounded once, `b` itself rounded
# first. The steps amplify a rounding difference near a root (float32 He_7(3.7645) reads
# 43.70929 fused, 43.70886 unfused, where the OpInfo's tolerance allows 6.7e-5), so refimpl
# fuses float32 steps too (_exact.fma_float32). Measured on 40,000 random (x, n): 100% of
# float32 values equal torch's AVX-512 ones for hermite, laguerre and legendre, 52% unfused.
# float64 steps as written (an ulp per step at most).


def _fused(xp: ArrayNamespace, a: Array, q: Array, b: Array) -> Array:
    """a * q - b with one rounding for float32, as torch's compiled step (Note above)."""
    if a.dtype == xp.float32:
        return fma_float32(xp, a, q, -b)
    return a * q - b


def _odd(degree: Array) -> Array:
    return degree % 2 == 1


def _signed(xp: ArrayNamespace, negative: Array, value: Array) -> Array:
    return xp.where(negative, -value, value)


def _polynomial(name: str) -> PointwiseOp:
    """Declare `special_<name>(x, n)` with its x_scalar and n_scalar overloads."""
    return pointwise(
        f"special_{name}(Tensor x, Tensor n) -> Tensor",
        Builder.BINARY_FLOAT_OP,
        operands=("x", "n"),
        scalar=(
            f"special_{name}.x_scalar(Scalar x, Tensor n) -> Tensor",
            f"special_{name}.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
    )


def _prepare(xp: ArrayNamespace, x: Array, n: Array) -> tuple[Array, Array, Array]:
    """x and n broadcast, the integer degree, and the degree in x's dtype."""
    x, n = xp.broadcast_arrays(x, n)
    degree = _degree(xp, n)
    return x, degree, xp.astype(degree, x.dtype)


def _libm(xp: ArrayNamespace, fn: Callable[[Array], Array], a: Array) -> Array:
    """`fn(a)` as torch's kernels get it from the C library's float function (cosf, acosf):
    for float32, computed in float64 and rounded once, which glibc's float functions equal
    far more often than the library's own float32 ones (measured: cosf 98.7%, acosf 92%,
    against 84% and 65% for NumPy's float32 SIMD)."""
    if a.dtype == xp.float32:
        return xp.astype(fn(xp.astype(a, xp.float64)), xp.float32)
    return fn(a)


def _trig_arg(xp: ArrayNamespace, y: Array, use: Array) -> Array:
    # acos only where the closed form is used, so |y| > 1 never reaches it.
    return _libm(xp, xp.acos, xp.where(use, y, xp.zeros_like(y)))


# --- chebyshev_polynomial_t, shifted_chebyshev_polynomial_t ----------------------------------

chebyshev_polynomial_t: Final = _polynomial("chebyshev_polynomial_t")


def _chebyshev_t(xp: ArrayNamespace, y: Array, degree: Array, nf: Array, trig_from: int) -> Array:
    # torch: chebyshev_polynomial_t_forward; T_n(cos t) = cos(n t) for |y| < 1 and large n.
    trig = (degree > trig_from) & (xp.abs(y) < 1)
    closed = _libm(xp, xp.cos, nf * _trig_arg(xp, y, trig))
    needed = (degree >= 2) & ~trig
    values = _recurrence(
        xp, degree, needed, xp.ones_like(y), y, lambda m, p, q: _fused(xp, y + y, q, p)
    )
    return xp.where(trig, closed, values)


@chebyshev_polynomial_t.compute
def chebyshev_polynomial_t_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """T_n(x) by T_{k+1} = 2x T_k - T_{k-1}; cos(n acos x) for n > 6, |x| < 1.

    Torch: chebyshev_polynomial_t_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, nf = _prepare(xp, x, n)
    one = _full(xp, x, 1.0)
    at_one = _signed(xp, (x < 0) & _odd(degree), one)
    values = xp.where(xp.abs(x) == 1, at_one, _chebyshev_t(xp, x, degree, nf, 6))
    return xp.where(degree < 0, xp.zeros_like(x), values)


shifted_chebyshev_polynomial_t: Final = _polynomial("shifted_chebyshev_polynomial_t")


@shifted_chebyshev_polynomial_t.compute
def shifted_chebyshev_polynomial_t_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """T*_n(x) = T_n(2x - 1). Torch: shifted_chebyshev_polynomial_t_forward in Math.h."""
    x, degree, nf = _prepare(xp, x, n)
    one = _full(xp, x, 1.0)
    values = _chebyshev_t(xp, x + x - 1, degree, nf, 6)
    values = xp.where(x == 0, _signed(xp, _odd(degree), one), values)
    values = xp.where(x == 1, one, values)
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- chebyshev_polynomial_u, shifted_chebyshev_polynomial_u ----------------------------------

chebyshev_polynomial_u: Final = _polynomial("chebyshev_polynomial_u")


def _chebyshev_u(xp: ArrayNamespace, y: Array, degree: Array, nf: Array, trig_from: int) -> Array:
    # torch: chebyshev_polynomial_u_forward; U_n(cos t) = sin((n+1) t) / sin t.
    trig = (degree > trig_from) & (xp.abs(y) < 1)
    t = _trig_arg(xp, y, trig)
    sin_t = _libm(xp, xp.sin, t)
    nonzero = sin_t != 0
    closed = xp.where(
        nonzero,
        _libm(xp, xp.sin, (nf + 1) * t) / xp.where(nonzero, sin_t, xp.ones_like(sin_t)),
        (nf + 1) * _libm(xp, xp.cos, (nf + 1) * t) / xp.where(nonzero, xp.ones_like(y), y),
    )
    needed = (degree >= 2) & ~trig
    values = _recurrence(
        xp, degree, needed, xp.ones_like(y), y + y, lambda m, p, q: _fused(xp, y + y, q, p)
    )
    return xp.where(trig, closed, values)


@chebyshev_polynomial_u.compute
def chebyshev_polynomial_u_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """U_n(x) by U_{k+1} = 2x U_k - U_{k-1}; sin((n+1) t) / sin t for n > 8, |x| < 1.

    Torch: chebyshev_polynomial_u_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, nf = _prepare(xp, x, n)
    at_one = _signed(xp, (x < 0) & _odd(degree), nf + 1)
    values = xp.where(xp.abs(x) == 1, at_one, _chebyshev_u(xp, x, degree, nf, 8))
    return xp.where(degree < 0, xp.zeros_like(x), values)


shifted_chebyshev_polynomial_u: Final = _polynomial("shifted_chebyshev_polynomial_u")


@shifted_chebyshev_polynomial_u.compute
def shifted_chebyshev_polynomial_u_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """U*_n(x) = U_n(2x - 1). Torch: shifted_chebyshev_polynomial_u_forward in Math.h."""
    x, degree, nf = _prepare(xp, x, n)
    values = _chebyshev_u(xp, x + x - 1, degree, nf, 6)
    values = xp.where(x == 0, _signed(xp, _odd(degree), nf + 1), values)
    values = xp.where(x == 1, nf + 1, values)
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- chebyshev_polynomial_v, shifted_chebyshev_polynomial_v ----------------------------------

chebyshev_polynomial_v: Final = _polynomial("chebyshev_polynomial_v")


def _chebyshev_v(xp: ArrayNamespace, y: Array, degree: Array, nf: Array, trig_from: int) -> Array:
    # torch: chebyshev_polynomial_v_forward; V_n(cos t) = cos((n + 1/2) t) / cos(t / 2).
    trig = (degree > trig_from) & (xp.abs(y) < 1)
    t = _trig_arg(xp, y, trig)
    regular = _libm(xp, xp.sin, t / 2) != 1
    odd_value = _signed(xp, _odd(degree), nf + nf + 1)
    cos_half = _libm(xp, xp.cos, t / 2)
    closed = xp.where(
        regular,
        _libm(xp, xp.cos, (nf + 0.5) * t) / xp.where(regular, cos_half, xp.ones_like(cos_half)),
        odd_value,
    )
    needed = (degree >= 2) & ~trig
    values = _recurrence(
        xp, degree, needed, xp.ones_like(y), y + y - 1, lambda m, p, q: _fused(xp, y + y, q, p)
    )
    return xp.where(trig, closed, values)


@chebyshev_polynomial_v.compute
def chebyshev_polynomial_v_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """V_n(x), the third-kind Chebyshev polynomial; closed form for n > 8, |x| < 1.

    Torch: chebyshev_polynomial_v_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, nf = _prepare(xp, x, n)
    at_one = xp.where(x > 0, _full(xp, x, 1.0), _signed(xp, _odd(degree), nf + nf + 1))
    values = xp.where(xp.abs(x) == 1, at_one, _chebyshev_v(xp, x, degree, nf, 8))
    return xp.where(degree < 0, xp.zeros_like(x), values)


shifted_chebyshev_polynomial_v: Final = _polynomial("shifted_chebyshev_polynomial_v")


@shifted_chebyshev_polynomial_v.compute
def shifted_chebyshev_polynomial_v_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """V*_n(x) = V_n(2x - 1). Torch: shifted_chebyshev_polynomial_v_forward in Math.h."""
    x, degree, nf = _prepare(xp, x, n)
    values = _chebyshev_v(xp, x + x - 1, degree, nf, 6)
    values = xp.where(x == 0, _signed(xp, _odd(degree), nf + nf + 1), values)
    values = xp.where(x == 1, _full(xp, x, 1.0), values)
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- chebyshev_polynomial_w, shifted_chebyshev_polynomial_w ----------------------------------

chebyshev_polynomial_w: Final = _polynomial("chebyshev_polynomial_w")


def _chebyshev_w(
    xp: ArrayNamespace, y: Array, degree: Array, nf: Array, trig_from: int, at_pole: Array
) -> Array:
    # torch: chebyshev_polynomial_w_forward; W_n(cos t) = sin((n + 1/2) t) / sin(t / 2).
    trig = (degree > trig_from) & (xp.abs(y) < 1)
    t = _trig_arg(xp, y, trig)
    regular = _libm(xp, xp.cos, t / 2) != 1
    sin_half = _libm(xp, xp.sin, t / 2)
    closed = xp.where(
        regular,
        _libm(xp, xp.sin, (nf + 0.5) * t) / xp.where(regular, sin_half, xp.ones_like(sin_half)),
        at_pole,
    )
    needed = (degree >= 2) & ~trig
    values = _recurrence(
        xp, degree, needed, xp.ones_like(y), y + y + 1, lambda m, p, q: _fused(xp, y + y, q, p)
    )
    return xp.where(trig, closed, values)


@chebyshev_polynomial_w.compute
def chebyshev_polynomial_w_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """W_n(x), the fourth-kind Chebyshev polynomial; closed form for n > 8, |x| < 1.

    Torch: chebyshev_polynomial_w_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, nf = _prepare(xp, x, n)
    at_one = xp.where(x > 0, nf + nf + 1, _signed(xp, _odd(degree), _full(xp, x, 1.0)))
    values = xp.where(xp.abs(x) == 1, at_one, _chebyshev_w(xp, x, degree, nf, 8, at_one))
    return xp.where(degree < 0, xp.zeros_like(x), values)


shifted_chebyshev_polynomial_w: Final = _polynomial("shifted_chebyshev_polynomial_w")


@shifted_chebyshev_polynomial_w.compute
def shifted_chebyshev_polynomial_w_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """W*_n(x) = W_n(2x - 1). Torch: shifted_chebyshev_polynomial_w_forward in Math.h."""
    x, degree, nf = _prepare(xp, x, n)
    at_zero = _signed(xp, _odd(degree), _full(xp, x, 1.0))
    values = _chebyshev_w(xp, x + x - 1, degree, nf, 4, at_zero)
    values = xp.where(x == 0, at_zero, values)
    values = xp.where(x == 1, nf + nf + 1, values)
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- hermite_polynomial_h, hermite_polynomial_he ---------------------------------------------

hermite_polynomial_h: Final = _polynomial("hermite_polynomial_h")


@hermite_polynomial_h.compute
def hermite_polynomial_h_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """The physicists' H_n(x): H_{k+1} = 2x H_k - 2k H_{k-1}.

    Torch: hermite_polynomial_h_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, _ = _prepare(xp, x, n)
    values = _recurrence(
        xp,
        degree,
        degree >= 2,
        xp.ones_like(x),
        x + x,
        lambda m, p, q: _fused(xp, x + x, q, (2 * (m - 1)) * p),
    )
    return xp.where(degree < 0, xp.zeros_like(x), values)


hermite_polynomial_he: Final = _polynomial("hermite_polynomial_he")


@hermite_polynomial_he.compute
def hermite_polynomial_he_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """The probabilists' He_n(x): He_{k+1} = x He_k - k He_{k-1}.

    Torch: hermite_polynomial_he_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, _ = _prepare(xp, x, n)
    values = _recurrence(
        xp, degree, degree >= 2, xp.ones_like(x), x, lambda m, p, q: _fused(xp, x, q, (m - 1) * p)
    )
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- laguerre_polynomial_l -------------------------------------------------------------------

laguerre_polynomial_l: Final = _polynomial("laguerre_polynomial_l")


@laguerre_polynomial_l.compute
def laguerre_polynomial_l_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """L_n(x): (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1.

    Torch: laguerre_polynomial_l_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, _ = _prepare(xp, x, n)

    def step(m: int, p: Array, q: Array) -> Array:
        k = m - 1
        return _fused(xp, k + k + (1 - x), q, k * p) / (k + 1)

    values = _recurrence(xp, degree, degree >= 2, xp.ones_like(x), 1 - x, step)
    values = xp.where(x == 0, _full(xp, x, 1.0), values)
    return xp.where(degree < 0, xp.zeros_like(x), values)


# --- legendre_polynomial_p -------------------------------------------------------------------

legendre_polynomial_p: Final = _polynomial("legendre_polynomial_p")


@legendre_polynomial_p.compute
def legendre_polynomial_p_compute(xp: ArrayNamespace, x: Array, n: Array) -> Array:
    """P_n(x): (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}; +-1 at |x| = 1.

    Torch: legendre_polynomial_p_forward in aten/src/ATen/native/Math.h.
    """
    x, degree, _ = _prepare(xp, x, n)

    def step(m: int, p: Array, q: Array) -> Array:
        k = m - 1
        return _fused(xp, (k + k + 1) * x, q, k * p) / (k + 1)

    values = _recurrence(xp, degree, degree >= 2, xp.ones_like(x), x, step)
    one = _full(xp, x, 1.0)
    at_one = _signed(xp, (x < 0) & _odd(degree), one)
    values = xp.where(xp.abs(x) == 1, at_one, values)
    return xp.where(degree < 0, xp.zeros_like(x), values)
