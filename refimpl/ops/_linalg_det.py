"""Linear algebra, determinants: _linalg_det, linalg_det, det, _linalg_slogdet, linalg_slogdet, slogdet, logdet.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (the structured _linalg_det and _linalg_slogdet,
which factor A^T when A is contiguous and real, and the CompositeImplicitAutograd
linalg_det, det, linalg_slogdet, slogdet and logdet); the derivatives
linalg_det_backward and slogdet_backward (_backward_linalg.py).
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import int32
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _backward_linalg as bl
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    square_check_inputs,
)
from refimpl.ops._linalg_kernels import (
    check_lapack_dtype,
    det_P,
    diagonal,
    emit,
    lu_factor_arrays,
    matrix_strides,
    mT,
    new_output,
    real_dtype_of,
    xp_of,
)
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
Shape = tuple[int, ...]


# --- _linalg_det, linalg_det, det ------------------------------------------------------------


def _det_lu(A: TensorImpl) -> tuple[Any, Any, Any]:
    # torch: _linalg_det_out / _linalg_slogdet_out: the LU of A^H (det(A^H) = det(A) for
    # real A) when A is contiguous and real, as lu_factor wants column-major input.
    xp = xp_of(A)
    a = array_of(A)
    if geometry.is_contiguous(A._size, A._stride) and not A._dtype.is_complex:
        a = mT(xp, a)
    return lu_factor_arrays(xp, a)


def _det_meta(A: TensorImpl, name: str, low_precision: bool) -> None:
    square_check_inputs(A, name)
    check_floating_or_complex(A, name, allow_low_precision_dtypes=low_precision)


def _linalg_det(A: TensorImpl, outs: tuple[TensorImpl, TensorImpl, TensorImpl] | None) -> Any:
    _det_meta(A, "linalg.det", True)
    size = A._size
    specs = (
        (size[:-2], geometry.contiguous_strides(size[:-2]), A._dtype),
        (size, matrix_strides(size), A._dtype),
        (size[:-1], geometry.contiguous_strides(size[:-1]), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("lu_cpu", A)
    values: tuple[Any, ...] = (None, None, None)
    if has_data(A):
        xp = xp_of(A)
        lu, pivots, _ = _det_lu(A)
        det = det_P(xp, pivots, lu.dtype) * xp.prod(diagonal(xp, lu), axis=-1)
        values = (det, lu, pivots)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


_linalg_det_op = defop("_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)")


@registered(_linalg_det_op)
def _linalg_det_kernel(A: TensorImpl) -> Any:
    """Torch: _linalg_det (structured): det(P) times the product of U's diagonal."""
    return _linalg_det(A, None)


@_linalg_det_op.derivative("A")
def _linalg_det_backward(
    grad: Tensor, A: Tensor, result: Tensor, LU: Tensor, pivots: Tensor
) -> Tensor:
    # torch: linalg_det_backward(grad, result, A, LU, pivots)
    return bl.linalg_det_backward(grad, result, A, LU, pivots)


non_differentiable_outputs("aten::_linalg_det", "LU", "pivots")

_linalg_det_result = defop(
    "_linalg_det.result(Tensor A, *, Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots) -> "
    "(Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots)"
)


@registered(_linalg_det_result)
def _linalg_det_result_kernel(
    A: TensorImpl, *, result: TensorImpl, LU: TensorImpl, pivots: TensorImpl
) -> Any:
    """Torch: _linalg_det.result (structured)."""
    return _linalg_det(A, (result, LU, pivots))


linalg_det = defop("linalg_det(Tensor A) -> Tensor")


@linalg_det.decomposition
def linalg_det_decomp(A: TensorImpl) -> Any:
    """Torch: linalg_det: _linalg_det's result."""
    return aten._linalg_det.default(A)[0]


linalg_det_out = defop("linalg_det.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)")


@linalg_det_out.decomposition
def linalg_det_out_decomp(A: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: linalg_det_out: _linalg_det.result with new LU and pivots."""
    LU = aten.new_empty.default(A, [0])
    pivots = aten.new_empty.default(A, [0], dtype=int32)
    aten._linalg_det.result(A, result=out, LU=LU, pivots=pivots)
    return out


det = defop("det(Tensor self) -> Tensor")


@det.decomposition
def det_decomp(self: TensorImpl) -> Any:
    """Torch: det: linalg_det."""
    return aten.linalg_det.default(self)


# --- _linalg_slogdet, linalg_slogdet, slogdet, logdet -----------------------------------------


def _linalg_slogdet(
    A: TensorImpl, outs: tuple[TensorImpl, TensorImpl, TensorImpl, TensorImpl] | None
) -> Any:
    _det_meta(A, "linalg.slogdet", False)
    size = A._size
    batch = size[:-2]
    real = A._dtype.to_real() if A._dtype.is_complex else A._dtype
    specs = (
        (batch, geometry.contiguous_strides(batch), A._dtype),
        (batch, geometry.contiguous_strides(batch), real),
        (size, matrix_strides(size), A._dtype),
        (size[:-1], geometry.contiguous_strides(size[:-1]), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    values: tuple[Any, ...] = (None, None, None, None)
    if has_data(A):
        xp = xp_of(A)
        lu, pivots, _ = _det_lu(A)
        diag = diagonal(xp, lu)
        magnitude = xp.abs(diag)
        if xp.isdtype(diag.dtype, "complex floating"):
            unit = xp.where(
                magnitude == 0, xp.zeros_like(diag), diag / xp.astype(magnitude, diag.dtype)
            )
        else:
            unit = xp.sign(diag)
        sign = xp.prod(unit, axis=-1) * det_P(xp, pivots, lu.dtype)
        logabsdet = xp.sum(xp.log(magnitude), axis=-1)
        values = (sign, xp.astype(logabsdet, real_dtype_of(xp, lu.dtype)), lu, pivots)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


_linalg_slogdet_op = defop(
    "_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)"
)


@registered(_linalg_slogdet_op)
def _linalg_slogdet_kernel(A: TensorImpl) -> Any:
    """Torch: _linalg_slogdet (structured): sign = det(P) prod(sgn(diag U)), logabsdet =
    sum(log |diag U|)."""
    return _linalg_slogdet(A, None)


@_linalg_slogdet_op.derivative("A")
def _linalg_slogdet_backward(
    grads: tuple[Tensor | None, ...], A: Tensor, sign: Tensor, LU: Tensor, pivots: Tensor
) -> Tensor:
    # torch: slogdet_backward(grad_sign, grad_logabsdet, A, sign, LU, pivots)
    return bl.slogdet_backward(grads[0], grads[1], A, sign, LU, pivots)


non_differentiable_outputs("aten::_linalg_slogdet", "LU", "pivots")

_linalg_slogdet_sign = defop(
    "_linalg_slogdet.sign(Tensor A, *, Tensor(a!) sign, Tensor(b!) logabsdet, Tensor(c!) LU, "
    "Tensor(d!) pivots) -> (Tensor(a!) sign, Tensor(b!) logabsdet, Tensor(c!) LU, "
    "Tensor(d!) pivots)"
)


@registered(_linalg_slogdet_sign)
def _linalg_slogdet_sign_kernel(
    A: TensorImpl,
    *,
    sign: TensorImpl,
    logabsdet: TensorImpl,
    LU: TensorImpl,
    pivots: TensorImpl,
) -> Any:
    """Torch: _linalg_slogdet.sign (structured)."""
    return _linalg_slogdet(A, (sign, logabsdet, LU, pivots))


linalg_slogdet = defop("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)")


@linalg_slogdet.decomposition
def linalg_slogdet_decomp(A: TensorImpl) -> Any:
    """Torch: linalg_slogdet: _linalg_slogdet's sign and logabsdet."""
    sign, logabsdet, _, _ = aten._linalg_slogdet.default(A)
    return sign, logabsdet


linalg_slogdet_out = defop(
    "linalg_slogdet.out(Tensor A, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
    "(Tensor(a!) sign, Tensor(b!) logabsdet)"
)


@linalg_slogdet_out.decomposition
def linalg_slogdet_out_decomp(A: TensorImpl, *, sign: TensorImpl, logabsdet: TensorImpl) -> Any:
    """Torch: linalg_slogdet_out: _linalg_slogdet.sign with new LU and pivots."""
    LU = aten.new_empty.default(A, [0])
    pivots = aten.new_empty.default(A, [0], dtype=int32)
    aten._linalg_slogdet.sign(A, sign=sign, logabsdet=logabsdet, LU=LU, pivots=pivots)
    return sign, logabsdet


slogdet = defop("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)")


@slogdet.decomposition
def slogdet_decomp(self: TensorImpl) -> Any:
    """Torch: slogdet: linalg_slogdet."""
    return aten.linalg_slogdet.default(self)


slogdet_out = defop(
    "slogdet.out(Tensor self, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
    "(Tensor(a!) sign, Tensor(b!) logabsdet)"
)


@slogdet_out.decomposition
def slogdet_out_decomp(self: TensorImpl, *, sign: TensorImpl, logabsdet: TensorImpl) -> Any:
    """Torch: slogdet_out: linalg_slogdet.out."""
    return aten.linalg_slogdet.out(self, sign=sign, logabsdet=logabsdet)


logdet = defop("logdet(Tensor self) -> Tensor")


@logdet.decomposition
def logdet_decomp(self: TensorImpl) -> Any:
    """Torch: logdet (LinearAlgebra.cpp): log(sign) + logabsdet for complex input; for real
    input logabsdet, NaN where the determinant is negative."""
    square_check_inputs(self, "logdet")
    check_floating_or_complex(self, "logdet", allow_low_precision_dtypes=False)
    sign, logabsdet = aten.linalg_slogdet.default(self)
    if self._dtype.is_complex:
        return aten.add.Tensor(aten.log.default(sign), logabsdet)
    return aten.where.ScalarSelf(aten.eq.Scalar(sign, -1.0), math.nan, logabsdet)
