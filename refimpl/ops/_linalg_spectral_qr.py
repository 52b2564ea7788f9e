"""Linear algebra, orthogonal factorizations: linalg_qr, qr, geqrf, householder_product (orgqr) and ormqr.

Torch: BatchLinearAlgebra.cpp (TORCH_META_FUNC(linalg_qr) and its impl over geqrf + orgqr,
the CompositeImplicitAutograd qr and orgqr, geqrf_out, linalg_householder_product_out,
ormqr_out) and the LAPACK routines behind them (?geqrf, ?orgqr / ?ungqr, ?ormqr / ?unmqr).
linalg_qr uses the standard's `linalg.qr`; the compact form (geqrf) and the products of
reflectors are computed on the Array API in `_linalg_spectral_xp.py` (see Note [Householder
reflectors] there), so these ops need no backend extension. Outputs are column-major as
LAPACK writes them.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_is_matrix,
    check_linalg_compatible_dtype,
    check_same_device,
)
from refimpl.ops._linalg_spectral_backward import linalg_qr_backward, reflector_sweep_backward
from refimpl.ops._linalg_spectral_outputs import (
    check_lapack_dtype,
    new_output,
    prepare_out,
    write_out_like,
)
from refimpl.ops._linalg_spectral_xp import (
    apply_reflectors,
    column_major_strides,
    householder_product,
    householder_reflectors,
)
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import registered, write_values, xp_of

aten: Final = namespace("aten")
Shape = tuple[int, ...]


def _f_contig(size: Shape) -> tuple[Shape, Shape]:
    return size, column_major_strides(size)


# --- linalg_qr -----------------------------------------------------------------------------------

# torch: _parse_qr_mode: mode -> (compute_q, reduced).
_QR_MODES: Final[dict[str, tuple[bool, bool]]] = {
    "reduced": (True, True),
    "complete": (True, False),
    "r": (False, True),
}


def _qr_geometry(A: TensorImpl, mode: str) -> tuple[Any, Any]:
    """Torch: TORCH_META_FUNC(linalg_qr): Q (..., m, k or m), R (..., k or m, n), both
    column-major; without Q (mode 'r') Q is empty (0,)."""
    check_is_matrix(A, "linalg.qr")
    check_floating_or_complex(A, "linalg.qr")
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    compute_q, reduced = _QR_MODES[mode]
    *batch, m, n = A._size
    k = min(m, n)
    q = _f_contig((*batch, m, k if reduced else m)) if compute_q else ((0,), (1,))
    r = _f_contig((*batch, k if reduced or not compute_q else m, n))
    return q, r


def _qr_into(A: TensorImpl, mode: str, Q: TensorImpl, R: TensorImpl) -> tuple[Any, Any]:
    """Torch: TORCH_IMPL_FUNC(linalg_qr_out): geqrf, R its upper triangle, Q from orgqr."""
    check_lapack_dtype(A, "geqrf_cpu")
    if not has_data(A):
        return Q, R
    xp = xp_of(A)
    compute_q, reduced = _QR_MODES[mode]
    if geometry.numel(A._size) == 0:
        # ?orgqr of no reflectors: the identity.
        if compute_q and geometry.numel(Q._size):
            eye = xp.eye(Q._size[-2], Q._size[-1], dtype=array_of(Q).dtype)
            write_values(Q, xp.broadcast_to(eye, Q._size))
        return Q, R
    q, r = xp.linalg.qr(array_of(A), mode="reduced" if reduced else "complete")
    if compute_q:
        write_values(Q, q)
    write_values(R, r)
    return Q, R


linalg_qr = defop('linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)')


@registered(linalg_qr)
def linalg_qr_kernel(A: TensorImpl, mode: str) -> Any:
    (q_size, q_stride), (r_size, r_stride) = _qr_geometry(A, mode)
    Q = new_output(A, q_size, q_stride, A._dtype)
    R = new_output(A, r_size, r_stride, A._dtype)
    return _qr_into(A, mode, Q, R)


@linalg_qr.derivative("A")
def linalg_qr_backward_A(grads: tuple[Any, ...], mode: str, Q: Tensor, R: Tensor) -> Tensor:
    # torch: linalg_qr_backward(grad_Q, grad_R, Q, R, mode)
    return linalg_qr_backward(grads[0], grads[1], Q, R, mode)


linalg_qr_out = defop(
    'linalg_qr.out(Tensor A, str mode="reduced", *, Tensor(a!) Q, Tensor(b!) R)'
    " -> (Tensor(a!) Q, Tensor(b!) R)"
)


@registered(linalg_qr_out)
def linalg_qr_out_kernel(A: TensorImpl, mode: str, *, Q: TensorImpl, R: TensorImpl) -> Any:
    (q_size, q_stride), (r_size, r_stride) = _qr_geometry(A, mode)
    prepare_out(Q, q_size, q_stride, A._dtype, A)
    prepare_out(R, r_size, r_stride, A._dtype, A)
    return _qr_into(A, mode, Q, R)


# --- qr (decomposition) ----------------------------------------------------------------------------

_QR_DEPRECATED: Final = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
    "'reduced' if some else 'complete')"
)


def _warn_qr() -> None:
    if should_warn_once("qr"):  # torch: TORCH_WARN_ONCE
        warnings.warn(_QR_DEPRECATED, UserWarning, stacklevel=4)


qr = defop("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)")


@qr.decomposition
def qr_decomp(self: TensorImpl, some: bool) -> Any:
    """Torch: qr (BatchLinearAlgebra.cpp): a deprecation warning, then linalg_qr."""
    _warn_qr()
    return aten.linalg_qr.default(self, "reduced" if some else "complete")


qr_Q = defop(
    "qr.Q(Tensor self, bool some=True, *, Tensor(a!) Q, Tensor(b!) R)"
    " -> (Tensor(a!) Q, Tensor(b!) R)"
)


@qr_Q.decomposition
def qr_Q_decomp(self: TensorImpl, some: bool, *, Q: TensorImpl, R: TensorImpl) -> Any:
    """Torch: qr_out: the warning, then linalg_qr_out."""
    _warn_qr()
    return aten.linalg_qr.out(self, "reduced" if some else "complete", Q=Q, R=R)


# --- geqrf -----------------------------------------------------------------------------------------


def _geqrf_checks(self: TensorImpl) -> None:
    if len(self._size) < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")


def _geqrf(self: TensorImpl) -> tuple[Any, Any]:
    """Torch: geqrf_out_helper: the compact QR (?geqrf) into a column-major `a` and `tau`."""
    *batch, m, n = self._size
    a_size, a_stride = _f_contig(self._size)
    tau_size = (*batch, min(m, n))
    a = new_output(self, a_size, a_stride, self._dtype)
    tau = new_output(self, tau_size, geometry.contiguous_strides(tau_size), self._dtype)
    check_lapack_dtype(self, "geqrf_cpu")
    if has_data(self) and geometry.numel(self._size):
        xp = xp_of(self)
        compact, taus = householder_reflectors(xp, array_of(self))
        write_values(a, compact)
        write_values(tau, taus)
    return a, tau


# torch: geqrf has CPU and CUDA kernels only (no Meta).
geqrf = defop("geqrf(Tensor self) -> (Tensor a, Tensor tau)")


@geqrf.kernel(DispatchKey.CUDA)
@geqrf.kernel(DispatchKey.CPU)
def geqrf_kernel(self: TensorImpl) -> Any:
    """Torch: geqrf: geqrf_out into empty tensors."""
    _geqrf_checks(self)
    return _geqrf(self)


@geqrf.derivative("self")
def geqrf_backward(grads: tuple[Any, ...]) -> Tensor:
    # torch: not_implemented("geqrf")
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


geqrf_a = defop(
    "geqrf.a(Tensor self, *, Tensor(a!) a, Tensor(b!) tau) -> (Tensor(a!) a, Tensor(b!) tau)"
)


@geqrf_a.kernel(DispatchKey.CUDA)
@geqrf_a.kernel(DispatchKey.CPU)
def geqrf_a_kernel(self: TensorImpl, *, a: TensorImpl, tau: TensorImpl) -> Any:
    """Torch: geqrf_out: the device and dtype checks of `a` and `tau`, then the result
    written directly or copied in."""
    _geqrf_checks(self)
    check_same_device("torch.geqrf", a, self, "a")
    check_same_device("torch.geqrf", tau, self, "tau")
    check_linalg_compatible_dtype("torch.geqrf", a, self, "a")
    check_linalg_compatible_dtype("torch.geqrf", tau, self, "tau")
    result_a, result_tau = _geqrf(self)
    write_out_like(a, result_a)
    write_out_like(tau, result_tau)
    return a, tau


# --- linalg_householder_product, orgqr ---------------------------------------------------------------


def _householder_checks(input: TensorImpl, tau: TensorImpl, name: str) -> None:
    """Torch: linalg_householder_product_out's checks, in its order."""
    if len(input._size) < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input._size[-2] < input._size[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if len(tau._size) == 0 or input._size[-1] < tau._size[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    if len(input._size) - len(tau._size) != 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {len(tau._size)} and input.ndim is equal to {len(input._size)}"
        )
    if len(input._size) > 2 and tau._size[:-1] != input._size[:-2]:
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"[{', '.join(str(s) for s in tau._size[:-1])}]"
        )
    if tau._dtype is not input._dtype:
        raise RuntimeError(
            f"{name}: tau dtype {tau._dtype.scalar_name} does not match input dtype "
            f"{input._dtype.scalar_name}"
        )
    check_same_device(name, tau, input, "tau")


def _householder_product(input: TensorImpl, tau: TensorImpl) -> Any:
    """Torch: householder_product_out_helper: ?orgqr / ?ungqr into a column-major result."""
    size, stride = _f_contig(input._size)
    result = new_output(input, size, stride, input._dtype)
    check_lapack_dtype(input, "orgqr_cpu")
    if has_data(input) and geometry.numel(input._size):
        xp = xp_of(input)
        write_values(result, householder_product(xp, array_of(input), array_of(tau)))
    return result


linalg_householder_product = defop("linalg_householder_product(Tensor input, Tensor tau) -> Tensor")


@registered(linalg_householder_product)
def linalg_householder_product_kernel(input: TensorImpl, tau: TensorImpl) -> Any:
    """Torch: linalg_householder_product: the out= form into an empty tensor."""
    _householder_checks(input, tau, "torch.linalg.householder_product")
    return _householder_product(input, tau)


@linalg_householder_product.derivative("input", "tau")
def linalg_householder_product_backward(
    grad: Tensor, result: Tensor, input: Tensor, tau: Tensor
) -> tuple[Tensor | None, Tensor | None]:
    # torch: householder_product_backward(grad, result, input, tau). See Note [Reflector
    # sweeps]: Q = H_0 ... H_{k-1} applied to the first n columns of the identity.
    if grad is None or geometry.numel(input._size) == 0 or geometry.numel(tau._size) == 0:
        return None, None
    m, n = input._size[-2], input._size[-1]
    eye = aten.eye.m(m, n, dtype=input._dtype, device=input._storage.device)
    X0 = aten.expand.default(eye, [*input._size[:-2], m, n])
    g_input, g_tau, _ = reflector_sweep_backward(grad, input, tau, X0, True, False, True, True)
    return g_input, g_tau


linalg_householder_product_out = defop(
    "linalg_householder_product.out(Tensor input, Tensor tau, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(linalg_householder_product_out)
def linalg_householder_product_out_kernel(
    input: TensorImpl, tau: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: linalg_householder_product_out: the checks, out's device and dtype, then the
    result written directly or copied in."""
    name = "torch.linalg.householder_product"
    _householder_checks(input, tau, name)
    check_same_device(name, out, input)
    check_linalg_compatible_dtype(name, out, input)
    write_out_like(out, _householder_product(input, tau))
    return out


orgqr = defop("orgqr(Tensor self, Tensor input2) -> Tensor")


@orgqr.decomposition
def orgqr_decomp(self: TensorImpl, input2: TensorImpl) -> Any:
    """Torch: orgqr: linalg_householder_product."""
    return aten.linalg_householder_product.default(self, input2)


orgqr_out = defop("orgqr.out(Tensor self, Tensor input2, *, Tensor(a!) out) -> Tensor(a!)")


@orgqr_out.decomposition
def orgqr_out_decomp(self: TensorImpl, input2: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: orgqr_out: linalg_householder_product_out."""
    return aten.linalg_householder_product.out(self, input2, out=out)


# --- ormqr ----------------------------------------------------------------------------------------


def _ormqr_checks(input: TensorImpl, tau: TensorImpl, other: TensorImpl, left: bool) -> None:
    """Torch: ormqr_out's checks, in its order."""
    name = "torch.ormqr"
    if len(input._size) < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if len(other._size) < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    cond = -2 if left else -1
    if other._size[cond] != input._size[-2]:
        raise RuntimeError(f"{name}: other.shape[{cond}] must be equal to input.shape[-2]")
    if len(tau._size) == 0 or min(other._size[cond], input._size[-1]) != tau._size[-1]:
        raise RuntimeError(
            f"{name}: tau.shape[-1] must be equal to min(other.shape[{cond}], input.shape[-1])"
        )
    if len(input._size) - len(tau._size) != 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {len(tau._size)} and input.ndim is equal to {len(input._size)}"
        )
    if len(input._size) != len(other._size):
        raise RuntimeError(
            f"{name}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {len(other._size)} and input.ndim is equal to "
            f"{len(input._size)}"
        )
    if len(input._size) > 2:
        batch = input._size[:-2]
        for what, got in (("tau", tau._size[:-1]), ("other", other._size[:-2])):
            if got != batch:
                raise RuntimeError(
                    f"{name}: Expected batch dimensions of {what} to be equal to "
                    f"input.shape[:-2], but got [{', '.join(str(s) for s in got)}]"
                )
    for what, t in (("tau", tau), ("other", other)):
        if t._dtype is not input._dtype:
            raise RuntimeError(
                f"{name}: Expected input and {what} to have the same dtype, but input has dtype"
                f"{input._dtype.scalar_name} and {what} has dtype {t._dtype.scalar_name}"
            )
    check_same_device(name, tau, input, "tau")
    check_same_device(name, other, input, "other")


def _ormqr(
    input: TensorImpl, tau: TensorImpl, other: TensorImpl, left: bool, transpose: bool
) -> Any:
    """Torch: ormqr_out_helper: ?ormqr / ?unmqr on a column-major copy of `other`."""
    size, stride = _f_contig(other._size)
    result = new_output(other, size, stride, other._dtype)
    check_lapack_dtype(input, "ormqr_cpu")
    if has_data(input) and geometry.numel(other._size):
        xp = xp_of(input)
        c = apply_reflectors(xp, array_of(input), array_of(tau), array_of(other), left, transpose)
        write_values(result, c)
    return result


ormqr = defop(
    "ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False)"
    " -> Tensor"
)


@registered(ormqr)
def ormqr_kernel(
    self: TensorImpl, input2: TensorImpl, input3: TensorImpl, left: bool, transpose: bool
) -> Any:
    """Torch: ormqr: ormqr_out into an empty tensor."""
    _ormqr_checks(self, input2, input3, left)
    return _ormqr(self, input2, input3, left, transpose)


@ormqr.derivative("self", "input2", "input3")
def ormqr_backward(
    grad: Tensor,
    self: Tensor,
    input2: Tensor,
    input3: Tensor,
    left: bool,
    transpose: bool,
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: ormqr_backward(grad, result, self, input2, input3, left, transpose,
    #   grad_input_mask). See Note [Reflector sweeps].
    return reflector_sweep_backward(grad, self, input2, input3, left, transpose, True, True)


ormqr_out = defop(
    "ormqr.out(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False,"
    " *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(ormqr_out)
def ormqr_out_kernel(
    self: TensorImpl,
    input2: TensorImpl,
    input3: TensorImpl,
    left: bool,
    transpose: bool,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: ormqr_out: the checks, out's dtype (equal to input's) and device, then the
    result written directly or copied in."""
    _ormqr_checks(self, input2, input3, left)
    if out._dtype is not self._dtype:
        raise RuntimeError(
            "torch.ormqr: Expected input and result to have the same dtype, but input has dtype"
            f"{self._dtype.scalar_name} and result has dtype {out._dtype.scalar_name}"
        )
    check_same_device("torch.ormqr", out, self, "result")
    write_out_like(out, _ormqr(self, input2, input3, left, transpose))
    return out
