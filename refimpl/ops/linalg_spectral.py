"""Linear algebra, spectral decompositions: svd, eigh, eig and the functions over them (svdvals, eigvalsh, eigvals, torch.svd).

Torch: BatchLinearAlgebra.cpp (TORCH_META_FUNC(_linalg_svd) and (_linalg_eigh), linalg_eig,
_linalg_eigvals, the CompositeImplicitAutograd linalg_svd, linalg_svdvals, svd, linalg_eigh,
linalg_eigvalsh, linalg_eigvals) and their CPU kernels (LAPACK ?gesdd, ?syevd / ?heevd,
?geev). The standard's `linalg` extension computes svd and eigh; eig is the backend's
`linalg_eig` extension (the standard has none). Outputs take LAPACK's layout: matrices
column-major (batched_matrix_contiguous_strides(..., f_contig=true)), vectors contiguous.
The orthogonal factorizations (qr, geqrf, householder_product, ormqr) are in
`_linalg_spectral_qr.py`, pinv and matrix_rank in `_linalg_spectral_pinv.py`, the backward
formulas in `_linalg_spectral_backward.py`.

Note [Singular and eigenvectors are defined up to a phase]
A singular vector pair (u_i, v_i) of a distinct singular value, or an eigenvector, is unique
only up to a factor e^{i phi} (a sign for real inputs). Which one LAPACK returns depends on the
LAPACK (MKL for torch, OpenBLAS or the reference LAPACK for NumPy), so refimpl's vectors may
differ from torch's by that factor; every gauge-invariant function of them (|U|, U diag(S) Vh,
the eigenvalues, the backward of a gauge-invariant loss) agrees, and that is what
refimpl's conformance compares, as torch's OpInfos do (`output_process_fn_grad`).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.backend import extension
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace

# The orthogonal factorizations, pinv and matrix_rank register their blocks on import.
from refimpl.ops import _linalg_spectral_pinv, _linalg_spectral_qr  # noqa: F401
from refimpl.ops._backward import Tensor, handle_r_to_c
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_is_matrix,
    check_linalg_compatible_dtypes,
    check_same_device,
    check_uplo,
    raise_linalg_error,
    square_check_inputs,
)
from refimpl.ops._linalg_spectral_backward import linalg_eig_backward, mh, svd_backward
from refimpl.ops._linalg_spectral_outputs import (
    all_finite,
    check_lapack_dtype,
    matrix_infos,
    may_require_grad,
    new_output,
    prepare_out,
    write_out_like,
)
from refimpl.ops._linalg_spectral_xp import column_major_strides, hermitian_from
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import registered, write_values, xp_of

aten: Final = namespace("aten")
Shape = tuple[int, ...]


# --- _linalg_svd ----------------------------------------------------------------------------------


def _svd_geometry(A: TensorImpl, full_matrices: bool, compute_uv: bool) -> tuple[Any, ...]:
    """Torch: TORCH_META_FUNC(_linalg_svd): U (..., m, m or k) and Vh (..., n or k, n)
    column-major, or empty (0,) without compute_uv; S (..., k) contiguous, real. On meta, Vh
    is row-major (torch's meta function takes a meta tensor for a cuSOLVER one, whose V
    comes back transposed)."""
    check_is_matrix(A, "linalg.svd")
    check_floating_or_complex(A, "linalg.svd")
    *batch, m, n = A._size
    k = min(m, n)
    if compute_uv:
        u_size = (*batch, m, m if full_matrices else k)
        vh_size = (*batch, n if full_matrices else k, n)
        u_geometry = (u_size, column_major_strides(u_size))
        vh_stride = (
            column_major_strides(vh_size) if has_data(A) else geometry.contiguous_strides(vh_size)
        )
        vh_geometry = (vh_size, vh_stride)
    else:
        u_geometry = vh_geometry = ((0,), (1,))
    s_size = (*batch, k)
    return u_geometry, (s_size, geometry.contiguous_strides(s_size)), vh_geometry


def _svd_into(
    A: TensorImpl,
    full_matrices: bool,
    compute_uv: bool,
    driver: str | None,
    U: TensorImpl,
    S: TensorImpl,
    Vh: TensorImpl,
) -> tuple[TensorImpl, TensorImpl, TensorImpl]:
    """Torch: TORCH_IMPL_FUNC(_linalg_svd_out): an empty input gives the identity as U and
    Vh (a valid SVD) without a LAPACK call; the driver= check; ?gesdd; its info checked."""
    check_lapack_dtype(A, "linalg_svd_cpu")
    if not has_data(A):
        return U, S, Vh
    xp = xp_of(A)
    if geometry.numel(A._size) == 0:
        if compute_uv and full_matrices:
            for t in (U, Vh):
                if geometry.numel(t._size):
                    eye = xp.eye(t._size[-2], t._size[-1], dtype=array_of(t).dtype)
                    write_values(t, xp.broadcast_to(eye, t._size))
        return U, S, Vh
    if driver is not None:
        # torch: only cuSOLVER has drivers (gesvd, gesvdj, gesvda).
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    a = array_of(A)
    # torch: ?gesdd returns info = -4 for a matrix with non-finite values.
    raise_linalg_error(
        [-4 * i for i in matrix_infos(xp, ~all_finite(xp, a))], "linalg.svd", len(A._size) == 2
    )
    if compute_uv:
        u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
        write_values(U, u)
        write_values(Vh, vh)
    else:
        s = xp.linalg.svdvals(a)
    write_values(S, s)
    return U, S, Vh


_linalg_svd = defop(
    "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None)"
    " -> (Tensor U, Tensor S, Tensor Vh)"
)


@registered(_linalg_svd)
def _linalg_svd_kernel(
    A: TensorImpl, full_matrices: bool, compute_uv: bool, *, driver: str | None
) -> Any:
    shapes = _svd_geometry(A, full_matrices, compute_uv)
    real = A._dtype.to_real()
    U, S, Vh = (
        new_output(A, size, stride, real if i == 1 else A._dtype)
        for i, (size, stride) in enumerate(shapes)
    )
    return _svd_into(A, full_matrices, compute_uv, driver, U, S, Vh)


@_linalg_svd.derivative("A")
def _linalg_svd_backward(
    grads: tuple[Any, ...], full_matrices: bool, U: Tensor, S: Tensor, Vh: Tensor
) -> Tensor:
    # torch: svd_backward(full_matrices && grad_U.defined() ? grad_U.narrow(-1, 0, k) : grad_U,
    #   grad_S, full_matrices && grad_Vh.defined() ? grad_Vh.narrow(-2, 0, k) : grad_Vh,
    #   full_matrices ? U.narrow(-1, 0, k) : U, S, full_matrices ? Vh.narrow(-2, 0, k) : Vh)
    grad_U, grad_S, grad_Vh = grads
    k = S._size[-1]
    if full_matrices:
        grad_U = None if grad_U is None else aten.narrow.default(grad_U, -1, 0, k)
        grad_Vh = None if grad_Vh is None else aten.narrow.default(grad_Vh, -2, 0, k)
        U = aten.narrow.default(U, -1, 0, k)
        Vh = aten.narrow.default(Vh, -2, 0, k)
    return svd_backward(grad_U, grad_S, grad_Vh, U, S, Vh)


_linalg_svd_U = defop(
    "_linalg_svd.U(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None,"
    " Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)"
)


@registered(_linalg_svd_U)
def _linalg_svd_U_kernel(
    A: TensorImpl,
    full_matrices: bool,
    compute_uv: bool,
    *,
    driver: str | None,
    U: TensorImpl,
    S: TensorImpl,
    Vh: TensorImpl,
) -> Any:
    shapes = _svd_geometry(A, full_matrices, compute_uv)
    real = A._dtype.to_real()
    for i, (out, (size, stride)) in enumerate(zip((U, S, Vh), shapes, strict=True)):
        prepare_out(out, size, stride, real if i == 1 else A._dtype, A)
    return _svd_into(A, full_matrices, compute_uv, driver, U, S, Vh)


# --- linalg_svd, linalg_svdvals, svd (decompositions) ---------------------------------------------

linalg_svd = defop(
    "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)"
    " -> (Tensor U, Tensor S, Tensor Vh)"
)


@linalg_svd.decomposition
def linalg_svd_decomp(A: TensorImpl, full_matrices: bool, *, driver: str | None) -> Any:
    """Torch: linalg_svd: _linalg_svd with compute_uv=True."""
    return aten._linalg_svd.default(A, full_matrices, True, driver=driver)


linalg_svd_U = defop(
    "linalg_svd.U(Tensor A, bool full_matrices=True, *, str? driver=None, Tensor(a!) U,"
    " Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)"
)


@linalg_svd_U.decomposition
def linalg_svd_U_decomp(
    A: TensorImpl,
    full_matrices: bool,
    *,
    driver: str | None,
    U: TensorImpl,
    S: TensorImpl,
    Vh: TensorImpl,
) -> Any:
    """Torch: linalg_svd_out: _linalg_svd_out with compute_uv=True."""
    return aten._linalg_svd.U(A, full_matrices, True, driver=driver, U=U, S=S, Vh=Vh)


linalg_svdvals = defop("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor")


@linalg_svdvals.decomposition
def linalg_svdvals_decomp(A: TensorImpl, *, driver: str | None) -> Any:
    """Torch: linalg_svdvals: the vectors are computed only where a gradient may be asked
    for (svd_backward needs them)."""
    return aten._linalg_svd.default(A, False, may_require_grad(A), driver=driver)[1]


linalg_svdvals_out = defop(
    "linalg_svdvals.out(Tensor A, *, str? driver=None, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_svdvals_out.decomposition
def linalg_svdvals_out_decomp(A: TensorImpl, *, driver: str | None, out: TensorImpl) -> Any:
    """Torch: linalg_svdvals_out: _linalg_svd_out into empty U and Vh, compute_uv=False."""
    U = aten.empty.memory_format([0], dtype=A._dtype, device=A._storage.device)
    Vh = aten.empty.memory_format([0], dtype=A._dtype, device=A._storage.device)
    aten._linalg_svd.U(A, False, False, driver=driver, U=U, S=out, Vh=Vh)
    return out


svd = defop(
    "svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)"
)


def _check_svd_dims(self: TensorImpl) -> None:
    if len(self._size) < 2:
        raise RuntimeError(
            "linalg.svd: input should have at least 2 dimensions, but has "
            f"{len(self._size)} dimensions instead"
        )


@svd.decomposition
def svd_decomp(self: TensorImpl, some: bool, compute_uv: bool) -> Any:
    """Torch: svd (BatchLinearAlgebra.cpp): linalg_svd with full_matrices = !some, V = Vh^H;
    without compute_uv, U and V are zeros of the full shapes (m, m) and (n, n)."""
    _check_svd_dims(self)
    if compute_uv:
        U, S, Vh = aten.linalg_svd.default(self, not some)
        return U, S, mh(Vh)
    S = aten.linalg_svdvals.default(self)
    *batch, m, n = self._size
    U = aten.zeros.default([*batch, m, m], dtype=self._dtype, device=self._storage.device)
    Vh = aten.zeros.default([*batch, n, n], dtype=self._dtype, device=self._storage.device)
    return U, S, mh(Vh)


svd_U = defop(
    "svd.U(Tensor self, bool some=True, bool compute_uv=True, *, Tensor(a!) U, Tensor(b!) S,"
    " Tensor(c!) V) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) V)"
)


@svd_U.decomposition
def svd_U_decomp(
    self: TensorImpl, some: bool, compute_uv: bool, *, U: TensorImpl, S: TensorImpl, V: TensorImpl
) -> Any:
    """Torch: svd_out: linalg_svd_out, then V transposed (and conjugated) in place; without
    compute_uv, svdvals into S and U, V zeros of the full shapes."""
    _check_svd_dims(self)
    if compute_uv:
        aten.linalg_svd.U(self, not some, U=U, S=S, Vh=V)
        aten.transpose_.default(V, -2, -1)
        if V._dtype.is_complex:
            aten.conj_physical_.default(V)
        return U, S, V
    aten.linalg_svdvals.out(self, out=S)
    *batch, m, n = self._size
    aten.zero_.default(aten.resize_.default(U, [*batch, m, m]))
    aten.zero_.default(aten.resize_.default(V, [*batch, n, n]))
    return U, S, V


# --- _linalg_eigh -------------------------------------------------------------------------------


def _eigh_geometry(A: TensorImpl, UPLO: str, compute_v: bool) -> tuple[Any, Any]:
    """Torch: TORCH_META_FUNC(_linalg_eigh): the eigenvalues (..., n) real and contiguous, the
    eigenvectors A's shape column-major, or empty (0,) without compute_v."""
    square_check_inputs(A, "linalg.eigh")
    check_uplo(UPLO)
    values_size = A._size[:-1]
    vectors = (A._size, column_major_strides(A._size)) if compute_v else ((0,), (1,))
    return (values_size, geometry.contiguous_strides(values_size)), vectors


def _eigh_into(
    A: TensorImpl, UPLO: str, compute_v: bool, eigenvalues: TensorImpl, eigenvectors: TensorImpl
) -> tuple[TensorImpl, TensorImpl]:
    """Torch: TORCH_IMPL_FUNC(_linalg_eigh_out): ?syevd / ?heevd on the `UPLO` triangle,
    then its info checked."""
    check_lapack_dtype(A, "linalg_eigh_cpu")
    if not has_data(A) or geometry.numel(A._size) == 0:
        return eigenvalues, eigenvectors
    xp = xp_of(A)
    a = hermitian_from(xp, array_of(A), UPLO)
    n = A._size[-1]
    # ?syevd does not converge on a matrix with NaN or infinite values; MKL reports info
    # n - 1 for such matrices (from order 3: smaller ones come back as NaN).
    if n >= 3:
        bad = matrix_infos(xp, ~all_finite(xp, a))
        raise_linalg_error([(n - 1) * b for b in bad], "linalg.eigh", len(A._size) == 2)
    if compute_v:
        values, vectors = xp.linalg.eigh(a)
        write_values(eigenvectors, vectors)
    else:
        values = xp.linalg.eigvalsh(a)
    write_values(eigenvalues, values)
    return eigenvalues, eigenvectors


_linalg_eigh = defop(
    '_linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True)'
    " -> (Tensor eigenvalues, Tensor eigenvectors)"
)


@registered(_linalg_eigh)
def _linalg_eigh_kernel(A: TensorImpl, UPLO: str, compute_v: bool) -> Any:
    (values_size, values_stride), (vectors_size, vectors_stride) = _eigh_geometry(
        A, UPLO, compute_v
    )
    eigenvalues = new_output(A, values_size, values_stride, A._dtype.to_real())
    eigenvectors = new_output(A, vectors_size, vectors_stride, A._dtype)
    return _eigh_into(A, UPLO, compute_v, eigenvalues, eigenvectors)


@_linalg_eigh.derivative("A")
def _linalg_eigh_backward(
    grads: tuple[Any, ...], eigenvalues: Tensor, eigenvectors: Tensor
) -> Tensor:
    # torch: linalg_eig_backward(grads[0], grads[1], eigenvalues, eigenvectors,
    #   /*is_hermitian=*/true)
    return linalg_eig_backward(grads[0], grads[1], eigenvalues, eigenvectors, True)


_linalg_eigh_eigenvalues = defop(
    '_linalg_eigh.eigenvalues(Tensor A, str UPLO="L", bool compute_v=True, *,'
    " Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)"
    " -> (Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)"
)


@registered(_linalg_eigh_eigenvalues)
def _linalg_eigh_eigenvalues_kernel(
    A: TensorImpl,
    UPLO: str,
    compute_v: bool,
    *,
    eigenvalues: TensorImpl,
    eigenvectors: TensorImpl,
) -> Any:
    (values_size, values_stride), (vectors_size, vectors_stride) = _eigh_geometry(
        A, UPLO, compute_v
    )
    prepare_out(eigenvalues, values_size, values_stride, A._dtype.to_real(), A)
    prepare_out(eigenvectors, vectors_size, vectors_stride, A._dtype, A)
    return _eigh_into(A, UPLO, compute_v, eigenvalues, eigenvectors)


# --- linalg_eigh, linalg_eigvalsh (decompositions) ---------------------------------------------

linalg_eigh = defop(
    'linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)'
)


@linalg_eigh.decomposition
def linalg_eigh_decomp(self: TensorImpl, UPLO: str) -> Any:
    """Torch: linalg_eigh: _linalg_eigh with compute_v=True."""
    return aten._linalg_eigh.default(self, UPLO, True)


linalg_eigh_eigvals = defop(
    'linalg_eigh.eigvals(Tensor self, str UPLO="L", *, Tensor(a!) eigvals, Tensor(b!) eigvecs)'
    " -> (Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)"
)


@linalg_eigh_eigvals.decomposition
def linalg_eigh_eigvals_decomp(
    self: TensorImpl, UPLO: str, *, eigvals: TensorImpl, eigvecs: TensorImpl
) -> Any:
    """Torch: linalg_eigh_out: _linalg_eigh_out with compute_v=True."""
    return aten._linalg_eigh.eigenvalues(
        self, UPLO, True, eigenvalues=eigvals, eigenvectors=eigvecs
    )


linalg_eigvalsh = defop('linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor')


@linalg_eigvalsh.decomposition
def linalg_eigvalsh_decomp(self: TensorImpl, UPLO: str) -> Any:
    """Torch: linalg_eigvalsh: the eigenvectors are computed only where a gradient may be
    asked for."""
    return aten._linalg_eigh.default(self, UPLO, may_require_grad(self))[0]


linalg_eigvalsh_out = defop(
    'linalg_eigvalsh.out(Tensor self, str UPLO="L", *, Tensor(a!) out) -> Tensor(a!)'
)


@linalg_eigvalsh_out.decomposition
def linalg_eigvalsh_out_decomp(self: TensorImpl, UPLO: str, *, out: TensorImpl) -> Any:
    """Torch: linalg_eigvalsh_out: _linalg_eigh_out into an empty V, compute_v=False."""
    V = aten.empty.memory_format([0], dtype=self._dtype, device=self._storage.device)
    aten._linalg_eigh.eigenvalues(self, UPLO, False, eigenvalues=out, eigenvectors=V)
    return out


# --- linalg_eig, _linalg_eigvals, linalg_eigvals ------------------------------------------------


def _eig_checks(self: TensorImpl) -> None:
    """Torch: linalg_eig_out's checks, in its order (the finite check reads the data)."""
    if has_data(self) and geometry.numel(self._size):
        xp = xp_of(self)
        if not bool(xp.all(xp.isfinite(array_of(self)))):
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    square_check_inputs(self, "linalg.eig")


def _eig_into(
    self: TensorImpl, values: TensorImpl, vectors: TensorImpl | None, kernel: str
) -> None:
    """Torch: linalg_eig_out_info: LAPACK ?geev (the backend's `linalg_eig` extension)."""
    check_lapack_dtype(self, kernel)
    if not has_data(self) or geometry.numel(self._size) == 0:
        return
    xp = xp_of(self)
    a = array_of(self)
    complex_dtype = array_of(values).dtype
    if vectors is None:
        w = extension(xp, "linalg_eigvals")(a)
        write_values(values, xp.astype(w, complex_dtype))
        return
    w, v = extension(xp, "linalg_eig")(a)
    write_values(values, xp.astype(w, complex_dtype))
    write_values(vectors, xp.astype(v, complex_dtype))


def _eig_outputs(self: TensorImpl, complex_dtype: DType) -> tuple[Any, Any]:
    """The eigenvalues (contiguous) and eigenvectors: column-major as ?geev writes them on
    the CPU; row-major on meta (torch's Meta kernel allocates them contiguous)."""
    values_size = self._size[:-1]
    values = new_output(self, values_size, geometry.contiguous_strides(values_size), complex_dtype)
    stride = (
        column_major_strides(self._size)
        if has_data(self)
        else geometry.contiguous_strides(self._size)
    )
    vectors = new_output(self, self._size, stride, complex_dtype)
    return values, vectors


linalg_eig = defop("linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)")


@registered(linalg_eig)
def linalg_eig_kernel(self: TensorImpl) -> Any:
    """Torch: linalg_eig: complex outputs (toComplexType fails first for integers), then
    linalg_eig_out's checks; the eigenvectors column-major."""
    complex_dtype = self._dtype.to_complex()
    _eig_checks(self)
    # torch: the kernel's dtype error (its complex32 outputs are made first, which a
    # backend may not store).
    check_lapack_dtype(self, "linalg_eig_out_cpu")
    values, vectors = _eig_outputs(self, complex_dtype)
    _eig_into(self, values, vectors, "linalg_eig_out_cpu")
    return values, vectors


@linalg_eig.derivative("self")
def linalg_eig_backward_self(
    grads: tuple[Any, ...], self_scalar_type: DType, eigenvalues: Tensor, eigenvectors: Tensor
) -> Tensor:
    # torch: handle_r_to_c(self.scalar_type(), linalg_eig_backward(grads[0], grads[1],
    #   eigenvalues, eigenvectors, /*is_hermitian=*/false))
    return handle_r_to_c(
        self_scalar_type, linalg_eig_backward(grads[0], grads[1], eigenvalues, eigenvectors, False)
    )


def _check_eig_out(self: TensorImpl, out: TensorImpl, name: str, fn_name: str) -> None:
    check_linalg_compatible_dtypes(fn_name, out._dtype, self._dtype.to_complex(), name)
    check_same_device(fn_name, out, self, name)


linalg_eig_out = defop(
    "linalg_eig.out(Tensor self, *, Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)"
    " -> (Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)"
)


@registered(linalg_eig_out)
def linalg_eig_out_kernel(
    self: TensorImpl, *, eigenvalues: TensorImpl, eigenvectors: TensorImpl
) -> Any:
    """Torch: linalg_eig_out: the finite and square checks, the out dtypes (complex,
    castable) and devices, then the kernel into temporaries copied into the outs."""
    _eig_checks(self)
    complex_dtype = self._dtype.to_complex()
    _check_eig_out(self, eigenvalues, "eigenvalues", "torch.linalg.eig")
    _check_eig_out(self, eigenvectors, "eigenvectors", "torch.linalg.eig")
    # torch: the kernel's dtype error (its complex32 outputs are made first, which a
    # backend may not store).
    check_lapack_dtype(self, "linalg_eig_out_cpu")
    values, vectors = _eig_outputs(self, complex_dtype)
    _eig_into(self, values, vectors, "linalg_eig_out_cpu")
    write_out_like(eigenvalues, values)
    write_out_like(eigenvectors, vectors)
    return eigenvalues, eigenvectors


_linalg_eigvals = defop("_linalg_eigvals(Tensor self) -> Tensor")


@registered(_linalg_eigvals)
def _linalg_eigvals_kernel(self: TensorImpl) -> Any:
    """Torch: _linalg_eigvals: ?geev without vectors, into a complex tensor."""
    complex_dtype = self._dtype.to_complex()
    _eig_checks(self)
    check_lapack_dtype(self, "linalg_eig_out_cpu")
    values, _ = _eig_outputs(self, complex_dtype)
    _eig_into(self, values, None, "linalg_eig_out_cpu")
    return values


linalg_eigvals = defop("linalg_eigvals(Tensor self) -> Tensor")


@linalg_eigvals.decomposition
def linalg_eigvals_decomp(self: TensorImpl) -> Any:
    """Torch: linalg_eigvals: linalg_eig's eigenvalues where a gradient may be asked for
    (its backward needs the vectors), else _linalg_eigvals."""
    if may_require_grad(self):
        return aten.linalg_eig.default(self)[0]
    return aten._linalg_eigvals.default(self)


linalg_eigvals_out = defop("linalg_eigvals.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@registered(linalg_eigvals_out)
def linalg_eigvals_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: linalg_eigvals_out: linalg_eig_out's checks for `values`, then the values."""
    _eig_checks(self)
    complex_dtype = self._dtype.to_complex()
    _check_eig_out(self, out, "eigenvalues", "torch.linalg.eigvals")
    check_lapack_dtype(self, "linalg_eig_out_cpu")
    values, _ = _eig_outputs(self, complex_dtype)
    _eig_into(self, values, None, "linalg_eig_out_cpu")
    write_out_like(out, values)
    return out
