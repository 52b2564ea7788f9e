"""The backward formulas of the spectral and orthogonal decompositions: svd, eig / eigh, qr, pinv, householder_product and ormqr.

Torch: svd_backward, linalg_eig_backward, linalg_qr_backward, pinv_backward,
householder_product_backward and ormqr_backward in torch/csrc/autograd/FunctionsManual.cpp,
named by the `_linalg_svd`, `_linalg_eigh`, `linalg_eig`, `linalg_qr`,
`linalg_pinv.atol_rtol_tensor`, `linalg_householder_product` and `ormqr` entries of
derivatives.yaml. Each takes and returns tensors (refimpl.Tensor at runtime: operators and
methods reach the dispatcher), so a backward pass built from them is itself recorded when
`create_graph=True`. A gradient is torch's: for a real loss L, dL = Re tr(G^H dA).

Note [Gauge checks]
Singular vectors and complex eigenvectors are defined up to a phase (see
linalg_spectral.py). A loss that depends on that phase has no derivative; torch's formulas
detect it from the imaginary part of diag(U^H gU) (diag(V^H gV) for eigenvectors) and raise,
with rather lax tolerances (1e-2) so as not to raise for rounding.
"""

from __future__ import annotations

from typing import Final

from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor

aten: Final = namespace("aten")


def _diag(x: Tensor) -> Tensor:
    return aten.diagonal.default(x, 0, -2, -1)


def _diag_embed(x: Tensor) -> Tensor:
    return aten.diag_embed.default(x, 0, -2, -1)


def mh(x: Tensor) -> Tensor:
    """The conjugate transpose of a (batch of) matrices. Torch: Tensor.mH (transpose, then
    conj: a no-op without a dispatch for real tensors)."""
    t = aten.transpose.int(x, -2, -1)
    return aten.conj.default(t) if t._dtype.is_complex else t


def _mm(a: Tensor, b: Tensor) -> Tensor:
    return aten.matmul.default(a, b)


def _skew(x: Tensor) -> Tensor:
    return x - mh(x)


def _fill_diagonal_one(x: Tensor) -> Tensor:
    """`x` (whose diagonal is zero) with ones on its diagonal. Torch: ret.diagonal().fill_(1)."""
    n = x._size[-1]
    eye = aten.eye.default(n, dtype=x._dtype, device=x._storage.device)
    return x + eye


# --- svd -----------------------------------------------------------------------------------------


def svd_backward(
    gU: Tensor | None, gS: Tensor | None, gVh: Tensor | None, U: Tensor, S: Tensor, Vh: Tensor
) -> Tensor | None:
    """The gradient of A = U diag(S) Vh (reduced: U (m, k), Vh (k, n)). Torch: svd_backward.

    gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] Vh, E_ij = S_j^2 - S_i^2, plus
    the terms that project gU (m > n) or gVh (m < n) off the span of U or V; only S asked
    for: U diag(gS) Vh. See Note [Gauge checks].
    """
    if gS is None and gU is None and gVh is None:
        return None
    m, n = U._size[-2], Vh._size[-1]
    if gU is None and gVh is None:
        # torch: the svdvals shortcut.
        assert gS is not None
        if m >= n:
            return _mm(U, gS.unsqueeze(-1) * Vh)
        return _mm(U * gS.unsqueeze(-2), Vh)
    is_complex = U._dtype.is_complex
    UhgU = _skew(_mm(mh(U), gU)) if gU is not None else None
    VhgV = _skew(_mm(Vh, mh(gVh))) if gVh is not None else None
    if is_complex:
        im_u = aten.imag.default(_diag(UhgU)) if UhgU is not None else aten.zeros_like.default(S)
        im_v = aten.imag.default(_diag(VhgV)) if VhgV is not None else aten.zeros_like.default(S)
        if not aten.allclose.default(im_u, -im_v, 1e-2, 1e-2):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this phase "
                "term, making it ill-defined."
            )
    S2 = S * S
    E = _fill_diagonal_one(S2.unsqueeze(-2) - S2.unsqueeze(-1))
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = UhgU * (S.unsqueeze(-2) / E)
    else:
        gA = S.unsqueeze(-1) * VhgV / E
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if is_complex and UhgU is not None:
        gA = gA + _diag_embed(_diag(UhgU) / (2.0 * S))
    if m > n and gU is not None:
        # gA = [U gA + (I_m - U U^H) gU S^{-1}] V^H
        gA = _mm(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - _mm(U, _mm(mh(U), gUSinv))
        return _mm(gA, Vh)
    if m < n and gVh is not None:
        # gA = U [gA V^H + S^{-1} gV^H (I_n - V V^H)]
        gA = _mm(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - _mm(_mm(SinvgVh, mh(Vh)), Vh)
        return _mm(U, gA)
    return _mm(U, _mm(gA, Vh)) if m >= n else _mm(_mm(U, gA), Vh)


# --- eig, eigh -----------------------------------------------------------------------------------


def linalg_eig_backward(
    gL: Tensor | None, gV: Tensor | None, L: Tensor, V: Tensor, is_hermitian: bool
) -> Tensor | None:
    """The gradient of A V = V diag(L) (eig: V's columns of norm 1; eigh: V unitary).

    Torch: linalg_eig_backward. gA = V^{-H} (diag(gL) + (V^H gV projected) / E) V^H with
    E_ij = conj(L_j - L_i); eigh: V (...) V^H. Only L asked for: V^{-H} diag(gL) V^H.
    See Note [Gauge checks].
    """
    if gL is None and gV is None:
        return None
    Vh = mh(V)
    if gV is None:
        assert gL is not None
        if is_hermitian:
            return _mm(V * gL.unsqueeze(-2), Vh)
        return aten.linalg_solve.default(Vh, gL.unsqueeze(-1) * Vh)
    VhgV = _mm(Vh, gV)
    diag_VhgV = _diag(VhgV)
    if V._dtype.is_complex:
        im = aten.imag.default(diag_VhgV)
        if not aten.allclose.default(im, aten.zeros_like.default(im), 1e-2, 1e-2):
            name = "linalg_eigh_backward" if is_hermitian else "linalg_eig_backward"
            raise RuntimeError(
                f"{name}: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined."
            )
    if is_hermitian:
        # The tangent space at the identity of U(n): the skew-Hermitian matrices.
        VhgV = 0.5 * _skew(VhgV)
    else:
        # The tangent space at V^H V of the matrices with columns of norm 1.
        VhgV = VhgV - _mm(Vh, V * aten.real.default(diag_VhgV).unsqueeze(-2))
    Lc = L if is_hermitian else aten.conj.default(L)
    Econj = _fill_diagonal_one(Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
    gA = VhgV / Econj
    if gL is not None:
        # torch: gA.diagonal().copy_(gL)
        gA = gA + _diag_embed(gL - _diag(gA))
    if is_hermitian:
        return _mm(V, _mm(gA, Vh))
    return aten.linalg_solve.default(Vh, _mm(gA, Vh))


# --- qr ------------------------------------------------------------------------------------------


def linalg_qr_backward(
    gQ: Tensor | None, gR: Tensor | None, Q: Tensor, R: Tensor, mode: str
) -> Tensor | None:
    """The gradient of A = Q R. Torch: linalg_qr_backward (arXiv:2009.10071, 4.3 and 4.5).

    With M = gR R^H - Q^H gQ: m >= n: gA = (Q syminvadj(triu(M)) + gQ) R^{-H}; m < n:
    gA = [Q trilImInvAdjSkew(-M) R1^{-H}, 0] + Q gR with R1 R's first m columns.
    """
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    m, n = Q._size[-2], R._size[-1]
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if gQ is None and gR is None:
        return None
    if gQ is not None and gR is not None:
        gA = _mm(gR, mh(R)) - _mm(mh(Q), gQ)
    elif gQ is not None:
        gA = -_mm(mh(Q), gQ)
    else:
        gA = _mm(gR, mh(R))
    if m >= n:
        # syminvadj(X) = X + X^H with its (real) diagonal halved.
        sym = aten.triu.default(gA) + mh(aten.triu.default(gA))
        sym = sym - 0.5 * _diag_embed(_diag(sym))
        gA = _mm(Q, sym)
        if gQ is not None:
            gA = gA + gQ
        return aten.linalg_solve_triangular.default(mh(R), gA, upper=False, left=False)
    # trilImInvAdjSkew(X) = tril(X - X^H) with its (imaginary) diagonal halved.
    skew = aten.tril.default(_skew(-gA))
    skew = skew - 0.5 * _diag_embed(_diag(skew))
    gA = _mm(Q, skew)
    R1 = aten.narrow.default(R, -1, 0, m)
    gA = aten.linalg_solve_triangular.default(mh(R1), gA, upper=False, left=False)
    pad = aten.zeros.default([*R._size[:-1], n - m], dtype=gA._dtype, device=gA._storage.device)
    gA = aten.cat.default([gA, pad], -1)
    if gR is not None:
        gA = gA + _mm(Q, gR)
    return gA


# --- pinv ----------------------------------------------------------------------------------------


def pinv_backward(grad: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """The gradient of pinv(A) (Golub and Pereyra), as products of the smallest matrices.

    Torch: pinv_backward.
    """
    m, n = A._size[-2], A._size[-1]
    pinvAh = mh(pinvA)
    gradh = mh(grad)
    if m <= n:
        K = _mm(gradh, pinvA)
        KpinvAh = _mm(K, pinvAh)
        return (
            -mh(_mm(pinvA, K))
            + KpinvAh
            - _mm(_mm(A, pinvA), KpinvAh)
            + _mm(_mm(pinvAh, pinvA), gradh - _mm(K, A))
        )
    K = _mm(pinvA, gradh)
    pinvAhK = _mm(pinvAh, K)
    return (
        -mh(_mm(K, pinvA))
        + _mm(_mm(gradh - _mm(A, K), pinvA), pinvAh)
        + pinvAhK
        - _mm(_mm(pinvAhK, pinvA), A)
    )


# --- householder_product, ormqr -------------------------------------------------------------------
# Note [Reflector sweeps]
# householder_product and ormqr apply k reflectors H_i = I - t_i v_i v_i^H (t_i = tau_i, or
# conj(tau_i) for H_i^H) one after another, from the left (Y = H X) or the right (Y = X H).
# Their backward walks the steps in reverse: with G the gradient of Y and W = G X^H (left) or
# X^H G (right), the step gives X the gradient H^H G (left) or G H^H (right), t the gradient
# -v^H W v and v the gradient -conj(t) W v - t W^H v, of which column i of `input` takes the
# entries below the diagonal (v_i's 1 and zeros are not read from `input`). The X of each step
# is recomputed by a forward sweep first. The result is torch's gradient (a VJP is unique);
# the order of the products is refimpl's own.


def _numel(size: tuple[int, ...]) -> int:
    count = 1
    for n in size:
        count *= n
    return count


def _reflector(input: Tensor, i: int) -> Tensor:
    """v_i (..., m): column i of `input` below the diagonal, 1 at row i, 0 above."""
    m = input._size[-2]
    column = aten.select.int(input, -1, i)
    below = aten.arange.default(m, device=input._storage.device) > i
    one = aten.arange.default(m, device=input._storage.device) == i
    zero = aten.zeros_like.default(column)
    return aten.where.self(below, column, zero) + one


def _apply(v: Tensor, t: Tensor, X: Tensor, left: bool) -> Tensor:
    """H X or X H for H = I - t v v^H (t of shape (...,), v (..., m))."""
    tt = t.unsqueeze(-1).unsqueeze(-1)
    if left:
        return X - tt * _mm(v.unsqueeze(-1), _mm(mh(v.unsqueeze(-1)), X))
    return X - tt * _mm(_mm(X, v.unsqueeze(-1)), mh(v.unsqueeze(-1)))


def reflector_sweep_backward(
    grad: Tensor,
    input: Tensor,
    tau: Tensor,
    X0: Tensor,
    left: bool,
    transpose: bool,
    need_input: bool,
    need_tau: bool,
) -> tuple[Tensor | None, Tensor | None, Tensor]:
    """(gradient of input, of tau, of X0) for Y = the reflectors of `input`, `tau` applied to
    X0 as ormqr applies them. See Note [Reflector sweeps]."""
    k = tau._size[-1]
    if not _numel(input._size) or not _numel(tau._size):
        # No reflector (or no matrix): Y = X0; torch gives input and tau no gradient.
        return None, None, grad
    # The order of application: Q C applies H_{k-1} first, Q^H C H_0 first, C Q H_0 first,
    # C Q^H H_{k-1} first.
    order = list(range(k)) if left == transpose else list(range(k - 1, -1, -1))
    vs = {i: _reflector(input, i) for i in order}
    ts = {
        i: aten.conj.default(aten.select.int(tau, -1, i))
        if transpose
        else aten.select.int(tau, -1, i)
        for i in order
    }
    Xs = [X0]
    for i in order[:-1]:
        Xs.append(_apply(vs[i], ts[i], Xs[-1], left))
    G = grad
    v_grads: dict[int, Tensor] = {}
    t_grads: dict[int, Tensor] = {}
    for step in range(len(order) - 1, -1, -1):
        i = order[step]
        v, t, X = vs[i], ts[i], Xs[step]
        if need_input or need_tau:
            W = _mm(G, mh(X)) if left else _mm(mh(X), G)
            vc = v.unsqueeze(-1)
            Wv = _mm(W, vc).squeeze(-1)
            if need_tau:
                g_t = -_mm(mh(vc), _mm(W, vc)).squeeze(-1).squeeze(-1)
                t_grads[i] = aten.conj.default(g_t) if transpose else g_t
            if need_input:
                WHv = _mm(mh(W), vc).squeeze(-1)
                ct = aten.conj.default(t).unsqueeze(-1)
                v_grads[i] = -ct * Wv - t.unsqueeze(-1) * WHv
        # The gradient of this step's X: H^H G (left) or G H^H (right).
        G = _apply(v, aten.conj.default(t), G, left)
    g_input = None
    if need_input:
        m, n = input._size[-2], input._size[-1]
        rows = aten.arange.default(m, device=input._storage.device)
        columns = []
        for i in range(n):
            if i in v_grads:
                g = v_grads[i]
                columns.append(aten.where.self(rows > i, g, aten.zeros_like.default(g)))
            else:
                columns.append(aten.zeros_like.default(aten.select.int(input, -1, i)))
        g_input = aten.stack.default(columns, -1) if columns else aten.zeros_like.default(input)
    g_tau = aten.stack.default([t_grads[i] for i in range(k)], -1) if need_tau else None
    return g_input, g_tau, G
