"""LAPACK's getrf, getrs, trsm and potrf composed from the Array API standard, for backends that do not supply them as extensions.

Torch: none (torch always calls LAPACK, cuSOLVER or MAGMA). These are the unblocked textbook
algorithms LAPACK's reference routines describe (dgetf2, dgetrs, dtrsm, dpotf2), vectorized
over the batch and looped over the columns, in the input's dtype: the same factors and
infos as LAPACK's (partial pivoting takes the first entry of largest magnitude, as idamax
does; a zero pivot sets info and the factorization goes on; potrf stops being meaningful at
the first minor that is not positive-definite), rounded in another order than a blocked
LAPACK. They take and return the backend's arrays with the signatures of the extensions
(`refimpl.core.backend.EXTENSION_NAMES`); `_linalg_kernels.lapack` uses them only where the
backend has no routine of its own.
"""

from __future__ import annotations

from typing import Any

Array = Any


def _complex(xp: Any, a: Array) -> bool:
    return bool(xp.isdtype(a.dtype, "complex floating"))


def _adjoint(xp: Any, a: Array, conj: bool) -> Array:
    t = xp.matrix_transpose(a)
    return xp.conj(t) if conj and _complex(xp, a) else t


def _swap_rows(xp: Any, a: Array, j: int, p: Array) -> Array:
    # Rows j and p[batch] of each matrix exchanged (p: int64 of the batch's shape).
    m = a.shape[-2]
    rows = xp.arange(m, dtype=xp.int64)
    pe = p[..., None]
    index = xp.where(rows == j, pe, xp.where(rows == pe, xp.asarray(j, dtype=xp.int64), rows))
    index = xp.broadcast_to(index[..., None], a.shape)
    return xp.take_along_axis(a, index, axis=-2)


def lu_factor(xp: Any, a: Array) -> tuple[Array, Array, Array]:
    """getrf (as dgetf2): the packed LU with partial pivoting, 1-based int32 pivots, info."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    a = xp.asarray(a, copy=True)
    info = xp.zeros(batch, dtype=xp.int32)
    pivots = []
    for j in range(k):
        column = a[..., j:, j]
        # idamax / izamax: the first entry of largest |re| + |im| (|x| for real x).
        size = (
            xp.abs(xp.real(column)) + xp.abs(xp.imag(column))
            if _complex(xp, column)
            else xp.abs(column)
        )
        p = xp.argmax(size, axis=-1) + j
        pivots.append(xp.astype(p + 1, xp.int32))
        a = _swap_rows(xp, a, j, p)
        pivot = a[..., j, j]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, xp.asarray(j + 1, dtype=xp.int32), info)
        if j + 1 == m:
            continue
        safe = xp.where(zero, xp.ones_like(pivot), pivot)
        below = a[..., j + 1 :, j]
        multipliers = xp.where(zero[..., None], below, below / safe[..., None])
        trailing = a[..., j + 1 :, j + 1 :] - multipliers[..., :, None] * a[..., j : j + 1, j + 1 :]
        bottom = xp.concat((a[..., j + 1 :, :j], multipliers[..., None], trailing), axis=-1)
        a = xp.concat((a[..., : j + 1, :], bottom), axis=-2)
    if pivots:
        piv = xp.stack(pivots, axis=-1)
    else:
        piv = xp.zeros((*batch, 0), dtype=xp.int32)
    return a, piv, info


def solve_triangular(
    xp: Any, a: Array, b: Array, upper: bool, trans: int, unitriangular: bool
) -> Array:
    """trsm: X with op(A) X = B, op A, A^T, A^H for trans 0, 1, 2; no singularity check
    (a zero diagonal gives inf and NaN). By substitution, one row of X at a time."""
    t = a if trans == 0 else _adjoint(xp, a, trans == 2)
    lower = upper if trans else not upper
    n = t.shape[-1]
    batch = tuple(b.shape[:-2])
    t = xp.broadcast_to(t, (*batch, n, n)) if tuple(t.shape[:-2]) != batch else t
    order = range(n) if lower else range(n - 1, -1, -1)
    rows: dict[int, Array] = {}
    for i in order:
        value = b[..., i, :]
        done = sorted(rows)
        if done:
            solved = xp.stack([rows[j] for j in done], axis=-2)
            coefficients = xp.stack([t[..., i, j] for j in done], axis=-1)
            value = value - xp.matmul(coefficients[..., None, :], solved)[..., 0, :]
        if not unitriangular:
            value = value / t[..., i, i][..., None]
        rows[i] = value
    if n == 0:
        return xp.asarray(b, copy=True)
    return xp.stack([rows[i] for i in range(n)], axis=-2)


def _permutation(xp: Any, pivots: Array, m: int) -> Array:
    # The row order the 1-based pivots' sequential swaps give (LAPACK's laswp).
    batch, k = tuple(pivots.shape[:-1]), pivots.shape[-1]
    perm = xp.broadcast_to(xp.arange(m, dtype=xp.int64), (*batch, m))
    positions = xp.arange(m, dtype=xp.int64)
    piv = xp.astype(pivots, xp.int64) - 1
    for i in range(k):
        j = piv[..., i : i + 1]
        at_i = perm[..., i : i + 1]
        at_j = xp.take_along_axis(perm, j, axis=-1)
        perm = xp.where(positions == i, at_j, xp.where(positions == j, at_i, perm))
    return perm


def lu_solve(xp: Any, lu: Array, pivots: Array, b: Array, trans: int) -> Array:
    """getrs: X with op(A) X = B from A = P L U (op A, A^T, A^H for trans 0, 1, 2)."""
    n = lu.shape[-1]
    perm = _permutation(xp, pivots, n)
    if trans == 0:
        pb = xp.take_along_axis(b, xp.broadcast_to(perm[..., None], b.shape), axis=-2)
        y = solve_triangular(xp, lu, pb, False, 0, True)
        return solve_triangular(xp, lu, y, True, 0, False)
    z = solve_triangular(xp, lu, b, True, trans, False)
    w = solve_triangular(xp, lu, z, False, trans, True)
    inverse = xp.argsort(perm, axis=-1)
    return xp.take_along_axis(w, xp.broadcast_to(inverse[..., None], w.shape), axis=-2)


def cholesky(xp: Any, a: Array, upper: bool) -> tuple[Array, Array]:
    """potrf (as dpotf2): the factor (other triangle zero) from one triangle, and info (the
    order of the first leading minor that is not positive-definite)."""
    n = a.shape[-1]
    batch = tuple(a.shape[:-2])
    source = _adjoint(xp, a, True) if upper else a
    info = xp.zeros(batch, dtype=xp.int32)
    columns: list[Array] = []
    for j in range(n):
        column = source[..., j:, j]
        if columns:
            done = xp.stack(columns, axis=-1)  # (..., n, j): the factor's first j columns
            row_j = done[..., j, :]
            column = column - xp.matmul(done[..., j:, :], xp.conj(row_j)[..., :, None])[..., 0]
        diagonal = xp.real(column[..., 0]) if _complex(xp, column) else column[..., 0]
        bad = ~(diagonal > 0)
        info = xp.where((info == 0) & bad, xp.asarray(j + 1, dtype=xp.int32), info)
        # LAPACK stops at the first failing minor: what follows it is unspecified (NaN here).
        root = xp.sqrt(xp.where(bad, xp.asarray(float("nan"), dtype=diagonal.dtype), diagonal))
        root = xp.astype(root, column.dtype) if _complex(xp, column) else root
        below = column[..., 1:] / root[..., None]
        top = xp.zeros((*batch, j), dtype=a.dtype)
        columns.append(xp.concat((top, root[..., None], below), axis=-1))
    if not columns:
        return xp.zeros(a.shape, dtype=a.dtype), info
    lower = xp.stack(columns, axis=-1)
    return (_adjoint(xp, lower, True) if upper else lower), info


# The extension names of refimpl.core.backend.EXTENSION_NAMES these compose.
STANDARD_ROUTINES: dict[str, Any] = {
    "lu_factor": lu_factor,
    "lu_solve": lu_solve,
    "solve_triangular": solve_triangular,
    "cholesky_ex": cholesky,
}
