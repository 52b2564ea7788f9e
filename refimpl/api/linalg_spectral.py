"""The older torch.* linear-algebra functions and Tensor methods of decompositions (svd, qr, pinverse, geqrf, ormqr, orgqr, svd_lowrank, pca_lowrank).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp;
svd_lowrank and pca_lowrank are Python in torch/_lowrank.py (randomized range finders,
Halko et al. 2009), written here over refimpl's ops with torch's random draws
(torch.randn with the default generator), so a seeded call draws torch's numbers. Each
function and method passes through `api/_call.py` (`torch_function`, `method`); one line per
name. `LinalgSpectralMethods` is a base class of `refimpl.Tensor`.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import float16, float32, float64
from refimpl.api._call import method, torch_function
from refimpl.dispatch.overloads import namespace

_aten: Final = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "eig",
    "geqrf",
    "matrix_rank",
    "orgqr",
    "ormqr",
    "pca_lowrank",
    "pinverse",
    "qr",
    "svd",
    "svd_lowrank",
    "symeig",
]

svd = torch_function("svd")
qr = torch_function("qr")
pinverse = torch_function("pinverse")
geqrf = torch_function("geqrf")
ormqr = torch_function("ormqr")
orgqr = torch_function("orgqr")


# --- svd_lowrank, pca_lowrank (torch/_lowrank.py) ------------------------------------------------


def _floating_dtype(A: Any) -> Any:
    """Torch: torch._linalg_utils.get_floating_dtype: A's dtype if floating, else float32."""
    return A.dtype if A.dtype in (float16, float32, float64) else float32


def _approximate_basis(A: Any, q: int, niter: int | None, M: Any | None) -> Any:
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M (Halko et al.,
    Algorithm 4.4). Torch: get_approximate_basis in torch/_lowrank.py."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() else _floating_dtype(A)
    # torch.randn: empty, then normal_(0, 1) with the default generator.
    R = _aten.empty.memory_format([A.shape[-1], q], dtype=dtype, device=A.device)
    _aten.normal_.default(R, 0.0, 1.0)
    X = _aten.matmul.default(A, R)
    if M is not None:
        X = X - _aten.matmul.default(M, R)
    Q = _aten.linalg_qr.default(X)[0]
    for _ in range(niter):
        X = _aten.matmul.default(A.mH, Q)
        if M is not None:
            X = X - _aten.matmul.default(M.mH, Q)
        Q = _aten.linalg_qr.default(X)[0]
        X = _aten.matmul.default(A, Q)
        if M is not None:
            X = X - _aten.matmul.default(M, Q)
        Q = _aten.linalg_qr.default(X)[0]
    return Q


def _svd_lowrank(A: Any, q: int | None, niter: int | None, M: Any | None) -> tuple[Any, Any, Any]:
    """Torch: _svd_lowrank (Halko et al., Algorithm 5.1): the SVD of Q^H (A - M), lifted."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = _aten.matmul.default(Q.mH, A)
    if M is not None:
        B = B - _aten.matmul.default(Q.mH, M)
    U, S, Vh = _aten.linalg_svd.default(B, False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(
    A: Any, q: int | None = 6, niter: int | None = 2, M: Any | None = None
) -> tuple[Any, Any, Any]:
    """(U, S, V) with A - M ~ U diag(S) V^H, from a randomized range finder.

    Torch: torch.svd_lowrank (torch/_lowrank.py).
    """
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(
    A: Any, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Any, Any, Any]:
    """(U, S, V) of the (centered) A, as svd_lowrank: V's columns are the principal directions.

    Torch: torch.pca_lowrank (torch/_lowrank.py); sparse inputs are not supported by refimpl.
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    C = _aten.mean.dim(A, [-2], True)
    return _svd_lowrank(A - C, q, niter, None)


# --- the functions removed in torch 1.9 (torch/_linalg_utils.py: they raise) ----------------------

_REMOVED: Final = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(input: Any, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Torch: torch.matrix_rank (torch/_linalg_utils.py): removed, for linalg.matrix_rank."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
        "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


def symeig(
    input: Any, eigenvectors: bool = False, upper: bool = True, *, out: Any = None
) -> tuple[Any, Any]:
    """Torch: torch.symeig (torch/_linalg_utils.py _symeig): removed, for linalg.eigh."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, "
        "upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper "
        "else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced "
        "with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(self: Any, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> tuple[Any, Any]:
    """Torch: torch.eig (torch/_linalg_utils.py): removed, for linalg.eig."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
        "torch.linalg.eig(A)"
    )


class LinalgSpectralMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    svd = method("svd")
    qr = method("qr")
    pinverse = method("pinverse")
    geqrf = method("geqrf")
    ormqr = method("ormqr")
    orgqr = method("orgqr")
    # torch: Tensor.eig and Tensor.symeig are torch/_linalg_utils.py's removed functions.
    eig = eig
    symeig = symeig
