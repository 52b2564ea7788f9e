"""The derivative formulas of the solvers and factorizations (solve, inv, det, slogdet, LU, Cholesky, triangular solves, least squares).

Torch: torch/csrc/autograd/FunctionsManual.cpp (linalg_solve_backward, linalg_det_backward,
slogdet_backward, lu_factor_ex_backward, linalg_lu_backward, lu_unpack_backward,
linalg_lu_solve_LU, cholesky_backward, cholesky_solve_backward, cholesky_inverse_backward,
linalg_solve_triangular_backward, triangular_solve_backward, linalg_lstsq_backward,
pinv_backward). Each takes and returns tensors (refimpl.Tensor at runtime) and calls ops
through the dispatcher, so a backward pass built from them is recorded when
`create_graph=True`. Where torch branches on GradMode (recompute the LU so that second
derivatives see A, or reuse the saved one), so does refimpl.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl.core.grad_mode import GRAD_STATE
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import prod_safe_zeros_backward

aten: Final = namespace("aten")

# torch: _get_epsilon (LinearAlgebraUtils.h), by the real dtype of LU.
_EPSILON: Final = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def mH(t: Tensor) -> Tensor:
    """The conjugate transpose of a (batch of) matrices. Torch: Tensor.mH."""
    t = aten.transpose.int(t, -2, -1)
    return aten.conj.default(t) if t._dtype.is_complex else t


def mT(t: Tensor) -> Tensor:
    return aten.transpose.int(t, -2, -1)


def _mm(a: Tensor, b: Tensor) -> Tensor:
    return aten.matmul.default(a, b)


def _neg(a: Tensor) -> Tensor:
    return aten.neg.default(a)


def _add(a: Tensor | None, b: Tensor) -> Tensor:
    return b if a is None else aten.add.Tensor(a, b)


def _sub(a: Tensor | None, b: Tensor) -> Tensor:
    return _neg(b) if a is None else aten.sub.Tensor(a, b)


def _tril(a: Tensor, k: int = 0) -> Tensor:
    return aten.tril.default(a, k)


def _triu(a: Tensor, k: int = 0) -> Tensor:
    return aten.triu.default(a, k)


def _solve_tri(
    A: Tensor, B: Tensor, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    return aten.linalg_solve_triangular.default(
        A, B, upper=upper, left=left, unitriangular=unitriangular
    )


def _is_contiguous(t: Tensor) -> bool:
    return bool(t.is_contiguous())


# --- solve, det, slogdet ----------------------------------------------------------------------


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    # torch: linalg_solve_is_vector_rhs
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B.shape) == tuple(A.shape[:-1]))


def linalg_solve_backward(
    gX: Tensor | None, X: Tensor, A: Tensor, LU: Tensor, pivots: Tensor, left: bool
) -> tuple[Tensor | None, Tensor | None]:
    """Torch: linalg_solve_backward: gB = A^{-H} gX (gX A^{-H} for left=False), gA = -gB X^H
    (-X^H gB). With grad mode on (create_graph) gB is a new solve, so that it is itself
    differentiable in A; otherwise the saved LU of A, solving with its adjoint."""
    if gX is None:
        return None, None
    vector_case = _is_vector_rhs(LU, gX)

    def to_matrix(t: Tensor) -> Tensor:
        return aten.unsqueeze.default(t, -1) if vector_case else t

    def to_vector(t: Tensor) -> Tensor:
        return aten.squeeze.dim(t, -1) if vector_case else t

    if GRAD_STATE.enabled:
        gB = aten.linalg_solve.default(mH(A), to_matrix(gX), left=left)
    else:
        gB = aten.linalg_lu_solve.default(LU, pivots, to_matrix(gX), left=left, adjoint=True)
    X_ = to_matrix(X)
    gA = _neg(_mm(gB, mH(X_))) if left else _neg(_mm(mH(X_), gB))
    return to_vector(gA), to_vector(gB)


def _diag_embed(values: Tensor, pivots: Tensor) -> Tensor:
    # torch: at::diag_embed(values.unsqueeze(-1).expand_as(pivots))
    expanded = aten.expand.default(aten.unsqueeze.default(values, -1), list(pivots.shape))
    return aten.diag_embed.default(expanded)


def linalg_det_backward(
    grad: Tensor | None, det: Tensor, A: Tensor, LU: Tensor, pivots: Tensor
) -> Tensor | None:
    """Torch: linalg_det_backward: the cofactor matrix det(A) A^{-H}, solved from the LU with
    eps on its zero pivots (grad mode off); with grad mode on, a new solve for invertible
    matrices and the SVD formula for those with |det| < 100 eps. An empty A (numel 0) gets
    fresh zeros, which do not require grad even with create_graph; a 1 x 1 A gets the cofactor
    1: `grad.unsqueeze(-1).unsqueeze(-1).expand(A.shape)`, independent of A (torch 2.13
    verified: its grad_fn chain is Expand <- Unsqueeze <- Unsqueeze, its second derivative
    with respect to A is None)."""
    if grad is None:
        return None
    if math.prod(A.shape) == 0:
        return aten.zeros_like.default(A)
    if A.shape[-1] == 1:
        column = aten.unsqueeze.default(aten.unsqueeze.default(grad, -1), -1)
        return aten.expand.default(column, list(A.shape))
    d = _diag_embed(aten.mul.Tensor(grad, aten.conj.default(det)), pivots)
    eps = _EPSILON[(LU._dtype.to_real() if LU._dtype.is_complex else LU._dtype).name]
    if not GRAD_STATE.enabled:
        diag = aten.diagonal.default(LU, 0, -2, -1)
        # torch: LU + diag_embed(where(LU.diagonal() == 0, eps, 0))
        shift = aten.where.Scalar(aten.eq.Scalar(diag, 0.0), eps, 0.0)
        LU_ = aten.add.Tensor(LU, aten.diag_embed.default(aten.to.dtype(shift, LU._dtype)))
        use_A_T = _is_contiguous(A) and not A._dtype.is_complex
        return aten.linalg_lu_solve.default(LU_, pivots, d, left=True, adjoint=not use_A_T)
    singular = aten.lt.Scalar(aten.abs.default(det), 100.0 * eps)
    if not bool(aten.any.default(singular).item()):
        return aten.linalg_solve.default(mH(A), d)
    return _det_singular(A, grad)


def _det_singular(A: Tensor, grad: Tensor) -> Tensor:
    # torch: linalg_det_backward's `singular` (through the SVD; needs linalg_svd).
    U, S, Vh = aten.linalg_svd.default(A)
    alpha = aten.conj.default(
        aten.mul.Tensor(aten.linalg_det.default(U), aten.linalg_det.default(Vh))
    )
    D = prod_safe_zeros_backward(
        aten.unsqueeze.default(aten.mul.Tensor(alpha, grad), -1), S, S.dim() - 1
    )
    return _mm(aten.mul.Tensor(U, aten.unsqueeze.default(D, -2)), Vh)


def slogdet_backward(
    grad_sign: Tensor | None,
    grad_logabsdet: Tensor | None,
    A: Tensor,
    signdet: Tensor,
    LU: Tensor,
    pivots: Tensor,
) -> Tensor | None:
    """Torch: slogdet_backward: A^{-H} g with g the logabsdet gradient (and, for complex A,
    -i imag(conj(grad_sign) sign))."""
    is_complex = A._dtype.is_complex
    if not is_complex and grad_logabsdet is None:
        return None
    g = grad_logabsdet
    if is_complex and grad_sign is not None:
        phase = aten.imag.default(aten.mul.Tensor(aten.conj.default(grad_sign), signdet))
        term = aten.mul.Tensor(phase, -1j)
        g = term if g is None else aten.add.Tensor(g, term)
    if g is None:
        return None
    if g._dtype is not A._dtype:
        g = aten.to.dtype(g, A._dtype)
    d = _diag_embed(g, pivots)
    if not GRAD_STATE.enabled:
        use_A_T = _is_contiguous(A) and not is_complex
        return aten.linalg_lu_solve.default(LU, pivots, d, left=True, adjoint=not use_A_T)
    return aten.linalg_solve.default(mH(A), d)


# --- LU -----------------------------------------------------------------------------------------


def lu_factor_ex_backward(
    grad: Tensor | None, LU: Tensor, pivots: Tensor, pivot: bool
) -> Tensor | None:
    """Torch: lu_factor_ex_backward: unpack, then linalg_lu_backward with the gradient's
    lower part for L and upper part for U."""
    if grad is None:
        return None
    P, L, U = aten.lu_unpack.default(LU, pivots, True, pivot)
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L_grad = aten.narrow.default(grad, -1, 0, k)
    U_grad = aten.narrow.default(grad, -2, 0, k)
    return linalg_lu_backward(L_grad, U_grad, P, L, U, pivot)


def linalg_lu_backward(
    L_grad: Tensor | None,
    U_grad: Tensor | None,
    P: Tensor,
    L: Tensor,
    U: Tensor,
    pivot: bool,
) -> Tensor | None:
    """Torch: linalg_lu_backward (square, wide m < n and tall m > n cases)."""
    if L_grad is None and U_grad is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    A_grad: Tensor | None
    if m == n:
        A_grad = _tril(_mm(mH(L), L_grad), -1) if L_grad is not None else None
        if U_grad is not None:
            A_grad = _add(A_grad, _triu(_mm(U_grad, mH(U))))
        A_grad = _solve_tri(mH(U), A_grad, upper=False, left=False)
        A_grad = _solve_tri(mH(L), A_grad, upper=True, left=True, unitriangular=True)
        return _mm(P, A_grad) if pivot else A_grad
    if m < n:
        U1 = aten.narrow.default(U, -1, 0, k)
        A_grad = _mm(mH(L), L_grad) if L_grad is not None else None
        if U_grad is not None:
            A_grad = _sub(A_grad, _mm(_triu(U_grad), mH(U)))
        A_grad = _solve_tri(mH(U1), _tril(A_grad, -1), upper=False, left=False)
        if U_grad is not None:
            A_grad = aten.cat.default(
                [
                    aten.add.Tensor(A_grad, _triu(aten.narrow.default(U_grad, -1, 0, k))),
                    aten.narrow.default(U_grad, -1, k, n - k),
                ],
                -1,
            )
        A_grad = _solve_tri(mH(L), A_grad, upper=True, left=True, unitriangular=True)
        if U_grad is None:
            U2 = aten.narrow.default(U, -1, k, n - k)
            A_grad = aten.cat.default([A_grad, aten.zeros_like.default(U2)], -1)
        return _mm(P, A_grad) if pivot else A_grad
    L1 = aten.narrow.default(L, -2, 0, k)
    A_grad = _mm(U_grad, mH(U)) if U_grad is not None else None
    if L_grad is not None:
        A_grad = _sub(A_grad, _mm(mH(L), _tril(L_grad, -1)))
    A_grad = _solve_tri(mH(L1), _triu(A_grad), upper=True, left=True, unitriangular=True)
    if L_grad is not None:
        A_grad = aten.cat.default(
            [
                aten.add.Tensor(A_grad, _tril(aten.narrow.default(L_grad, -2, 0, k), -1)),
                aten.narrow.default(L_grad, -2, k, m - k),
            ],
            -2,
        )
    A_grad = _solve_tri(mH(U), A_grad, upper=False, left=False)
    if L_grad is None:
        L2 = aten.narrow.default(L, -2, k, m - k)
        A_grad = aten.cat.default([A_grad, aten.zeros_like.default(L2)], -2)
    return _mm(P, A_grad) if pivot else A_grad


def lu_unpack_backward(
    L_grad: Tensor | None, U_grad: Tensor | None, m: int, n: int
) -> Tensor | None:
    """Torch: lu_unpack_backward: L's strictly lower part and U's upper part back into the
    packed m x n matrix."""
    if L_grad is None and U_grad is None:
        return None
    k = min(m, n)
    if m == n:
        if L_grad is not None and U_grad is not None:
            return aten.add.Tensor(_tril(L_grad, -1), _triu(U_grad))
        return _triu(U_grad) if L_grad is None else _tril(L_grad, -1)
    if m < n:
        if U_grad is not None:
            A_grad = _triu(U_grad)
            if L_grad is None:
                return A_grad
            pad = aten.constant_pad_nd.default(_tril(L_grad, -1), [0, n - k])
            return aten.add.Tensor(A_grad, pad)
        return aten.constant_pad_nd.default(_tril(L_grad, -1), [0, n - k])
    if L_grad is not None:
        A_grad = _tril(L_grad, -1)
        if U_grad is None:
            return A_grad
        return aten.add.Tensor(
            A_grad, aten.constant_pad_nd.default(_triu(U_grad), [0, 0, 0, m - k])
        )
    return aten.constant_pad_nd.default(_triu(U_grad), [0, 0, 0, m - k])


def linalg_lu_solve_LU(
    gX: Tensor, LU: Tensor, pivots: Tensor, X: Tensor, left: bool, adjoint: bool
) -> Tensor:
    """Torch: linalg_lu_solve_LU (the adjoint of linalg_lu_solve_jvp in LU)."""
    P, L, U = aten.lu_unpack.default(LU, pivots, True, left == adjoint)
    if left != adjoint:
        rhs = _mm(_neg(gX if left else mH(gX)), mH(X) if left else X)
        gR = _solve_tri(mH(U), rhs, upper=False)
        gL = _tril(_solve_tri(mH(L), _mm(gR, mH(U)), upper=True, left=True, unitriangular=True), -1)
        return aten.add.Tensor(gL, _triu(gR))
    gR = _neg(_mm(_mm(_mm(mT(P), X if left else mH(X)), mH(gX) if left else gX), P))
    gR = _solve_tri(mH(L), gR, upper=True, left=False, unitriangular=True)
    gU = _triu(_solve_tri(mH(U), _mm(mH(L), gR), upper=False, left=False))
    return aten.add.Tensor(_tril(gR, -1), gU)


# --- Cholesky -----------------------------------------------------------------------------------


def cholesky_backward(gL: Tensor | None, upper: bool, L: Tensor) -> Tensor | None:
    """Torch: cholesky_backward (Iain Murray, arXiv 1602.07527)."""
    if gL is None:
        return None
    if upper:
        L, gL = mH(L), mH(gL)
    gA = _tril(_mm(mH(L), gL))
    gA = aten.mul.Scalar(aten.add.Tensor(gA, mH(_tril(gA, -1))), 0.5)
    gA = _solve_tri(mH(L), gA, upper=True, left=True)
    return _solve_tri(L, gA, upper=False, left=False)


def cholesky_solve_backward(
    grad_x: Tensor | None, input2: Tensor, result: Tensor, upper: bool
) -> tuple[Tensor | None, Tensor | None]:
    """Torch: cholesky_solve_backward."""
    if grad_x is None:
        return None, None
    grad_self = aten.cholesky_solve.default(grad_x, input2, upper)
    common = _mm(grad_self, mH(result))
    common = aten.add.Tensor(common, mH(common))
    grad_input2 = _neg(_mm(input2, common)) if upper else _neg(_mm(common, input2))
    return grad_self, grad_input2


def cholesky_inverse_backward(
    grad: Tensor | None, L: Tensor, upper: bool, inverse: Tensor
) -> Tensor | None:
    """Torch: cholesky_inverse_backward."""
    if grad is None:
        return None
    common = aten.add.Tensor(grad, mH(grad))
    common = _mm(inverse, _mm(common, inverse))
    return _neg(_mm(L, common)) if upper else _neg(_mm(common, L))


# --- triangular solves ----------------------------------------------------------------------


def linalg_solve_triangular_backward(
    grad: Tensor | None, A: Tensor, X: Tensor, upper: bool, left: bool, unitriangular: bool
) -> tuple[Tensor | None, Tensor | None]:
    """Torch: linalg_solve_triangular_backward: G_B = A^{-H} gX, G_A = -G_B X^H projected
    on A's triangle."""
    if grad is None:
        return None, None
    G_B = _solve_tri(mH(A), grad, upper=not upper, left=left, unitriangular=unitriangular)
    X_H = mH(X)
    G_A = _neg(_mm(G_B, X_H)) if left else _neg(_mm(X_H, G_B))
    G_A = _triu(G_A, int(unitriangular)) if upper else _tril(G_A, -int(unitriangular))
    return G_A, G_B


def triangular_solve_backward(
    grad_x: Tensor | None,
    grad_m: Tensor | None,
    b: Tensor,
    a: Tensor,
    x: Tensor,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
) -> tuple[Tensor | None, Tensor | None]:
    """Torch: triangular_solve_backward (gradients of b and A)."""
    if grad_x is None and grad_m is None:
        return None, None
    grad_b = grad_a = None
    if grad_x is not None:
        grad_b = aten.triangular_solve.default(
            grad_x, aten.conj.default(a), upper, not transpose, unitriangular
        )[0]
        grad_a = (
            _neg(_mm(aten.conj.default(x), mT(grad_b))) if transpose else _neg(_mm(grad_b, mH(x)))
        )
        grad_a = _triu(grad_a, int(unitriangular)) if upper else _tril(grad_a, -int(unitriangular))
    if grad_a is None:
        grad_a = aten.zeros_like.default(a)
    if grad_b is None:
        grad_b = aten.zeros_like.default(b)
    if grad_m is not None:
        grad_a = aten.add.Tensor(grad_a, grad_m)
    return grad_b, grad_a


# --- least squares ----------------------------------------------------------------------------


def pinv_backward(grad: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """Torch: pinv_backward."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = mH(pinvA)
    gradh = mH(grad)
    if m <= n:
        K = _mm(gradh, pinvA)
        KpinvAh = _mm(K, pinvAh)
        terms = (
            _neg(mH(_mm(pinvA, K))),
            KpinvAh,
            _neg(_mm(_mm(A, pinvA), KpinvAh)),
            _mm(_mm(pinvAh, pinvA), aten.sub.Tensor(gradh, _mm(K, A))),
        )
    else:
        K = _mm(pinvA, gradh)
        pinvAhK = _mm(pinvAh, K)
        terms = (
            _neg(mH(_mm(K, pinvA))),
            _mm(_mm(aten.sub.Tensor(gradh, _mm(A, K)), pinvA), pinvAh),
            pinvAhK,
            _neg(_mm(_mm(pinvAhK, pinvA), A)),
        )
    total = terms[0]
    for term in terms[1:]:
        total = aten.add.Tensor(total, term)
    return total


def linalg_lstsq_backward(
    gX_: Tensor | None, gL: Tensor | None, A: Tensor, B_: Tensor, X_: Tensor
) -> tuple[Any, Any]:
    """Torch: linalg_lstsq_backward: the solution's gradient through pinv(A) (gelsy is not
    deterministic); the residuals' L = sum |A X - B|^2 (X optimal, so only its explicit
    dependence counts): gA = 2 (R gL) X^H, gB = -2 R gL with R = A X - B."""
    if gX_ is None and gL is None:
        return None, None
    vector_case = _is_vector_rhs(A, B_)

    def to_matrix(t: Tensor) -> Tensor:
        return aten.unsqueeze.default(t, -1) if vector_case else t

    B = to_matrix(B_)
    A_grad = B_grad = None
    if gX_ is not None:
        gX = to_matrix(gX_)
        pinvA = aten.linalg_pinv.atol_rtol_float(A)
        A_grad = pinv_backward(_mm(gX, mH(B)), pinvA, A)
        B_grad = _mm(mH(pinvA), gX)
    if gL is not None and gL.numel() > 0:
        X = to_matrix(X_)
        R = aten.sub.Tensor(_mm(A, X), B)
        RgL = aten.mul.Scalar(aten.mul.Tensor(R, aten.unsqueeze.default(gL, -2)), 2.0)
        A_grad = _add(A_grad, _mm(RgL, mH(X)))
        B_grad = _sub(B_grad, RgL)
    if B_grad is not None and vector_case:
        B_grad = aten.squeeze.dim(B_grad, -1)
    return A_grad, B_grad
