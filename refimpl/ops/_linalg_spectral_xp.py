"""Householder reflectors, the Hermitian matrix LAPACK reads from one triangle, and LAPACK's column-major layout, written on the Array API.

Torch: the LAPACK routines behind geqrf, orgqr / householder_product and ormqr
(BatchLinearAlgebraKernel.cpp calls ?geqrf, ?orgqr / ?ungqr, ?ormqr / ?unmqr), and the
`uplo` argument of ?syevd / ?heevd. The Array API standard has `linalg.qr` but not the
compact form behind it, so the reflectors are computed here one column at a time, batched,
with LAPACK's conventions (?larfg), so that they equal LAPACK's up to rounding.

Note [Householder reflectors]
LAPACK stores Q = H(1) H(2) ... H(k) with H(i) = I - tau_i v_i v_i^H, where v_i has zeros
above row i, a 1 at row i (not stored) and its tail below the diagonal of column i. ?larfg
picks, for the column x = (alpha, x_tail), beta = -sign(Re alpha) * ||x|| and
tau = (beta - alpha) / beta, v_tail = x_tail / (alpha - beta), so that H(i)^H x = beta e_1 and
the diagonal of R is real; when x_tail is zero and alpha is real, tau = 0 (H(i) = I).
"""

from __future__ import annotations

from typing import Any

from refimpl.core import strides as geometry

Shape = tuple[int, ...]


def column_major_strides(size: Shape) -> Shape:
    """The strides of a batch of column-major (Fortran-contiguous) matrices, as LAPACK writes
    them. Torch: batched_matrix_contiguous_strides(sizes, /*f_contig=*/true)."""
    if len(size) < 2:
        return geometry.contiguous_strides(size)
    swapped = (*size[:-2], size[-1], size[-2])
    stride = geometry.contiguous_strides(swapped)
    return (*stride[:-2], stride[-1], stride[-2])


def mh(xp: Any, a: Any) -> Any:
    """The conjugate transpose of a batch of matrices."""
    t = xp.matrix_transpose(a)
    return xp.conj(t) if xp.isdtype(a.dtype, "complex floating") else t


def hermitian_from(xp: Any, a: Any, uplo: str) -> Any:
    """The Hermitian matrix ?syevd / ?heevd read from `a`: its `uplo` triangle ("L" or "U"),
    mirrored, with the imaginary part of the diagonal dropped."""
    n = a.shape[-1]
    rows = xp.arange(n)[:, None]
    cols = xp.arange(n)[None, :]
    strict = rows > cols if uplo.upper() == "L" else rows < cols
    zero = xp.zeros_like(a)
    part = xp.where(strict, a, zero)
    diagonal = xp.where(rows == cols, a, zero)
    if xp.isdtype(a.dtype, "complex floating"):
        diagonal = xp.astype(xp.real(diagonal), a.dtype)
    return part + mh(xp, part) + diagonal


def _column(xp: Any, a: Any, j: int) -> Any:
    return a[..., :, j]


def householder_reflectors(xp: Any, a: Any) -> tuple[Any, Any]:
    """The compact QR of a batch of matrices: R on and above the diagonal, the reflector
    tails below it, and tau (?geqrf). See Note [Householder reflectors]."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    complex_ = xp.isdtype(a.dtype, "complex floating")
    rows = xp.arange(m)
    cols = xp.arange(n)
    taus = []
    for i in range(k):
        x = _column(xp, a, i)
        below = rows > i
        alpha = x[..., i]
        tail = xp.where(below, x, xp.zeros_like(x))
        tail_norm = xp.linalg.vector_norm(tail, axis=-1)
        alpha_re = xp.real(alpha) if complex_ else alpha
        alpha_im = xp.imag(alpha) if complex_ else xp.zeros_like(alpha_re)
        norm = xp.sqrt(alpha_re * alpha_re + alpha_im * alpha_im + tail_norm * tail_norm)
        identity = (tail_norm == 0) & (alpha_im == 0)
        beta = -xp.where(alpha_re >= 0, norm, -norm)
        safe_beta = xp.where(identity, xp.ones_like(beta), beta)
        beta_c = xp.astype(safe_beta, a.dtype) if complex_ else safe_beta
        tau = xp.where(identity, xp.zeros_like(alpha), (beta_c - alpha) / beta_c)
        scale = xp.where(identity, xp.ones_like(alpha), alpha - beta_c)
        v = xp.where(below, x / scale[..., None], xp.zeros_like(x))
        v = xp.where(rows == i, xp.ones_like(x), v)
        # H(i)^H applied to the trailing columns: A -= conj(tau) v (v^H A).
        vc = xp.conj(v) if complex_ else v
        vh_a = xp.sum(vc[..., :, None] * a, axis=-2)
        ctau = xp.conj(tau) if complex_ else tau
        updated = a - ctau[..., None, None] * v[..., :, None] * vh_a[..., None, :]
        diagonal = xp.where(identity, alpha, xp.astype(beta, a.dtype) if complex_ else beta)
        column = xp.where(below, v, xp.where(rows == i, diagonal[..., None], x))
        a = xp.where(cols > i, updated, xp.where(cols == i, column[..., :, None], a))
        taus.append(tau)
    if not taus:
        return a, xp.zeros((*a.shape[:-2], 0), dtype=a.dtype)
    return a, xp.stack(taus, axis=-1)


def _reflector(xp: Any, a: Any, i: int) -> Any:
    """v_i of Note [Householder reflectors], from column i of the compact form."""
    m = a.shape[-2]
    rows = xp.arange(m)
    x = _column(xp, a, i)
    v = xp.where(rows > i, x, xp.zeros_like(x))
    return xp.where(rows == i, xp.ones_like(x), v)


def apply_reflectors(xp: Any, a: Any, tau: Any, c: Any, left: bool, transpose: bool) -> Any:
    """Q C, Q^H C, C Q or C Q^H for Q = H(1) ... H(k) given by the reflectors in `a`'s first
    k = tau.shape[-1] columns (?ormqr / ?unmqr)."""
    k = tau.shape[-1]
    complex_ = xp.isdtype(a.dtype, "complex floating")

    def conj(x: Any) -> Any:
        return xp.conj(x) if complex_ else x

    # Q C = H(1) (H(2) (... H(k) C)): the last reflector acts first; Q^H C the first; C Q the
    # first; C Q^H the last.
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    for i in order:
        v = _reflector(xp, a, i)
        t = tau[..., i]
        t = conj(t) if transpose else t
        if left:
            # H C = C - tau v (v^H C)
            vh_c = xp.sum(conj(v)[..., :, None] * c, axis=-2)
            c = c - t[..., None, None] * v[..., :, None] * vh_c[..., None, :]
        else:
            # C H = C - tau (C v) v^H
            c_v = xp.sum(c * v[..., None, :], axis=-1)
            c = c - t[..., None, None] * c_v[..., :, None] * conj(v)[..., None, :]
    return c


def householder_product(xp: Any, a: Any, tau: Any) -> Any:
    """The first n columns of H(1) ... H(k) (?orgqr / ?ungqr) for `a` of shape (..., m, n)."""
    m, n = a.shape[-2], a.shape[-1]
    eye = xp.eye(m, n, dtype=a.dtype)
    c = xp.broadcast_to(eye, (*a.shape[:-2], m, n))
    return apply_reflectors(xp, a, tau, c, left=True, transpose=False)
