"""The LAPACK factorizations and solvers the Array API standard lacks, for the NumPy backend.

Torch computes these with LAPACK on the CPU (getrf, getrs, potrf, trsm, sytrf/hetrf,
sytrs/hetrs, gels/gelsy/gelsd/gelss in BatchLinearAlgebra.cpp); SciPy wraps the same
routines (scipy.linalg.lapack, scipy.linalg.blas), so each function here calls the routine
torch calls, once per matrix of a batch, in the input's dtype. Each takes NumPy arrays of
batches of matrices (`(..., m, n)`) and returns NumPy arrays; the meaning of each entry is in
`refimpl.core.backend.EXTENSION_NAMES`. Pivots are LAPACK's (1-based, int32), `info` is
LAPACK's per matrix (int32, batch-shaped).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import scipy.linalg as sl
from scipy.linalg import blas, lapack


def _batches(shape: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    return iter(np.ndindex(*shape))


def _column_major(shape: tuple[int, ...], dtype: Any) -> Any:
    # An empty batch of matrices, each in column-major (LAPACK's) order, batches row-major:
    # the layout torch gives LAPACK results, so refimpl wraps them without a copy.
    return np.empty((*shape[:-2], shape[-1], shape[-2]), dtype=dtype).swapaxes(-1, -2)


def _lapack(name: str, *arrays: Any) -> Any:
    # The routine for the arrays' dtype: s/d/c/z + name.
    return _routine(name, np.result_type(*arrays).char)


@functools.cache
def _routine(name: str, char: str) -> Any:
    (routine,) = lapack.get_lapack_funcs((name,), dtype=np.dtype(char))
    return routine


def lu_factor(a: Any) -> tuple[Any, Any, Any]:
    """LU with partial pivoting (getrf) of each matrix: the packed LU (column-major), the
    1-based pivots and info (the first zero pivot, 1-based, or 0)."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    lu = _column_major(a.shape, a.dtype)
    pivots = np.empty((*batch, k), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if a.size == 0:
        pivots[...] = np.arange(1, k + 1, dtype=np.int32)
        return lu, pivots, info
    getrf = _lapack("getrf", a)
    if not batch:
        # One column-major copy (NumPy's is faster than f2py's), factored in place.
        factor, piv, code = getrf(np.array(a, order="F"), overwrite_a=True)
        return factor, (piv + 1).astype(np.int32), np.asarray(code, dtype=np.int32)
    for index in _batches(batch):
        factor, piv, code = getrf(np.array(a[index], order="F"), overwrite_a=True)
        lu[index] = factor
        pivots[index] = piv + 1
        info[index] = code
    return lu, pivots, info


def lu_solve(lu: Any, pivots: Any, b: Any, trans: int) -> Any:
    """X with op(A) X = B from A's getrf factors (getrs); op is A, A^T or A^H for trans
    0, 1, 2. The batch dimensions of `lu`, `pivots` and `b` are already equal."""
    if b.ndim == 2 and b.size:
        return _lapack("getrs", lu, b)(lu, pivots - 1, b, trans=trans)[0]
    x = _column_major(b.shape, b.dtype)
    if b.size == 0 or lu.shape[-1] == 0:
        x[...] = b
        return x
    getrs = _lapack("getrs", lu, b)
    for index in _batches(b.shape[:-2]):
        solved, _ = getrs(lu[index], pivots[index] - 1, b[index], trans=trans)
        x[index] = solved
    return x


def cholesky(a: Any, upper: bool) -> tuple[Any, Any]:
    """The Cholesky factor of each matrix (potrf; the other triangle zero) and info (the
    order of the first leading minor that is not positive-definite, or 0). Only the lower
    (upper) triangle of the input is read."""
    batch = a.shape[:-2]
    factor = _column_major(a.shape, a.dtype)
    info = np.zeros(batch, dtype=np.int32)
    if a.size == 0:
        return factor, info
    potrf = _lapack("potrf", a)
    for index in _batches(batch):
        c, code = potrf(a[index], lower=not upper, clean=1, overwrite_a=False)
        factor[index] = c
        info[index] = code
    return factor, info


def solve_triangular(a: Any, b: Any, upper: bool, trans: int, unitriangular: bool) -> Any:
    """X with op(A) X = B for triangular A (BLAS trsm, no singularity check: a zero diagonal
    gives inf and NaN as in torch); op is A, A^T or A^H for trans 0, 1, 2. Batch dimensions
    already equal."""
    x = _column_major(b.shape, np.result_type(a.dtype, b.dtype))
    if b.size == 0:
        return x
    (trsm,) = blas.get_blas_funcs(("trsm",), (a, b))
    one = np.ones((), dtype=x.dtype)
    for index in _batches(b.shape[:-2]):
        x[index] = trsm(
            one,
            a[index],
            b[index],
            side=0,
            lower=int(not upper),
            trans_a=trans,
            diag=int(unitriangular),
        )
    return x


def ldl_factor(a: Any, hermitian: bool) -> tuple[Any, Any, Any]:
    """The Bunch-Kaufman LDL^T (LDL^H if hermitian) factorization of each matrix from its
    lower triangle (sytrf / hetrf): the compact LD (upper triangle zero), LAPACK's 1-based
    pivots (negative for 2x2 blocks) and info."""
    batch, n = a.shape[:-2], a.shape[-1]
    ld = _column_major(a.shape, a.dtype)
    pivots = np.zeros((*batch, n), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if a.size == 0:
        return ld, pivots, info
    name = "hetrf" if hermitian and np.iscomplexobj(a) else "sytrf"
    routine = _lapack(name, a)
    for index in _batches(batch):
        factor, piv, code = routine(a[index], lower=1)
        ld[index] = np.tril(factor)
        pivots[index] = piv
        info[index] = code
    return ld, pivots, info


def ldl_solve(ld: Any, pivots: Any, b: Any, hermitian: bool) -> Any:
    """X with A X = B from A's sytrf / hetrf factors (sytrs / hetrs, lower). Batch
    dimensions already equal."""
    x = _column_major(b.shape, b.dtype)
    if b.size == 0 or ld.shape[-1] == 0:
        x[...] = b
        return x
    name = "hetrs" if hermitian and np.iscomplexobj(ld) else "sytrs"
    routine = _lapack(name, ld, b)
    for index in _batches(b.shape[:-2]):
        solved, _ = routine(ld[index], pivots[index], b[index], lower=1)
        x[index] = solved
    return x


# torch's driver name -> how SciPy runs it: (lstsq's lapack_driver, or None for gels).
_LSTSQ_DRIVERS: dict[str, str | None] = {
    "gels": None,
    "gelsy": "gelsy",
    "gelsd": "gelsd",
    "gelss": "gelss",
}


def lstsq(a: Any, b: Any, rcond: float, driver: str) -> tuple[Any, Any, Any]:
    """Least squares with LAPACK's driver (gels, gelsy, gelsd, gelss) for each matrix:
    the driver's overwritten B (max(m, n) rows: the solution's n rows, then for m > n the
    residual's components), the effective rank (gelsy, gelsd, gelss) and the singular
    values (gelsd, gelss). Batch dimensions already equal."""
    batch, (m, n), k = a.shape[:-2], a.shape[-2:], b.shape[-1]
    dtype = np.result_type(a.dtype, b.dtype)
    real = np.empty((), dtype=dtype).real.dtype
    rows = max(m, n)
    x = _column_major((*batch, rows, k), dtype)
    x[...] = 0
    rank = np.zeros(batch, dtype=np.int64)
    sv = np.zeros((*batch, min(m, n)), dtype=real)
    if a.size == 0 or b.size == 0:
        return x, rank, sv
    scipy_driver = _LSTSQ_DRIVERS[driver]
    for index in _batches(batch):
        ai, bi = a[index], b[index]
        if scipy_driver is None:
            gels = _lapack("gels", ai, bi)
            padded = np.zeros((rows, k), dtype=dtype)
            padded[:m] = bi
            _, solved, _ = gels(ai, padded)
            x[index] = solved
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            solution, _, r, s = sl.lstsq(
                ai, bi, cond=rcond, lapack_driver=scipy_driver, check_finite=False
            )
        x[index][:n] = solution
        if m > n:
            # The residual rows: gelsd/gelss leave Q^H B's last m - n rows there; their
            # squared norms are what torch sums, and equal those of A X - B.
            x[index][n:] = _residual_rows(ai, bi, solution, m - n)
        rank[index] = r
        if s is not None:
            sv[index] = s
    return x, rank, sv


def _residual_rows(a: Any, b: Any, solution: Any, count: int) -> Any:
    # m - n rows whose column-wise squared norms equal those of A X - B: that residual's
    # first rows (the norms, not the rows themselves, are what refimpl reads).
    residual = a @ solution - b
    rows = np.zeros((count, b.shape[-1]), dtype=residual.dtype)
    rows[0] = np.sqrt(np.sum(np.abs(residual) ** 2, axis=0))
    return rows


def linalg_extensions() -> dict[str, Callable[..., Any]]:
    """The linear-algebra part of the NumPy backend's extension table."""
    return {
        "lu_factor": lu_factor,
        "lu_solve": lu_solve,
        "cholesky_ex": cholesky,
        "solve_triangular": solve_triangular,
        "ldl_factor": ldl_factor,
        "ldl_solve": ldl_solve,
        "lstsq": lstsq,
    }
