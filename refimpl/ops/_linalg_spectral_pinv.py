"""Linear algebra over the singular values: linalg_pinv (and pinverse) and linalg_matrix_rank, with their atol / rtol tolerances.

Torch: LinearAlgebra.cpp (get_atol_rtol, linalg_pinv and its overloads, pinverse,
get_matrix_rank_result_tensor, matrix_rank_impl, linalg_matrix_rank and its overloads).
Every overload but linalg_pinv.atol_rtol_tensor (and its out= form) is
CompositeImplicitAutograd over that one; pinv.atol_rtol_tensor has a kernel of its own
(CompositeExplicitAutogradNonFunctional) made of svd / eigh, with its own backward
(pinv_backward). A singular value counts when it exceeds max(atol, rtol * the largest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from refimpl._base.dtypes import DType, float32, float64, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.python_dispatch import is_tensor_subclass_like
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_checks import (
    LAPACK_DTYPES,
    check_is_matrix,
    check_linalg_compatible_dtypes,
    check_not_complex_tolerance,
    check_same_device,
)
from refimpl.ops._linalg_spectral_backward import mh, pinv_backward
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA

aten: Final = namespace("aten")
F = TypeVar("F", bound=Callable[..., Any])

# torch: _get_epsilon: std::numeric_limits<T>::epsilon() of the real dtype.
_EPSILON: Final[dict[str, float]] = {
    float32.name: 1.1920928955078125e-07,
    float64.name: 2.220446049250313e-16,
}


def _epsilon(dtype: DType) -> float:
    """Torch: _get_epsilon."""
    eps = _EPSILON.get(dtype.to_real().name)
    if eps is None:
        raise RuntimeError("This function doesn't handle types other than float and double")
    return eps


def _double_scalar(like: TensorImpl, value: float) -> Any:
    return aten.full.default([], value, dtype=float64, device=like._storage.device)


def _default_rtol(input: TensorImpl) -> float:
    # torch: eps(real dtype) * max(m, n)
    return _epsilon(input._dtype) * max(input._size[-1], input._size[-2])


def atol_rtol_tensors(
    input: TensorImpl, atol: TensorImpl | None, rtol: TensorImpl | None, f_name: str
) -> tuple[Any, Any]:
    """Torch: get_atol_rtol (tensor tolerances): atol defaults to 0; rtol to
    eps * max(m, n), or 0 where atol > 0 when atol is given."""
    atol_t = (
        atol
        if atol is not None
        else aten.zeros.default([], dtype=float64, device=input._storage.device)
    )
    check_not_complex_tolerance(atol_t, f_name, "atol")
    if rtol is not None:
        check_not_complex_tolerance(rtol, f_name, "rtol")
        return atol_t, rtol
    default = _double_scalar(input, _default_rtol(input))
    if atol is None:
        return atol_t, default
    zero = aten.zeros.default([], dtype=float64, device=input._storage.device)
    return atol_t, aten.where.self(aten.gt.Scalar(atol, 0), zero, default)


def atol_rtol_floats(input: TensorImpl, atol: float | None, rtol: float | None) -> tuple[Any, Any]:
    """Torch: get_atol_rtol (float tolerances): atol 0 by default; rtol 0 if atol > 0, else
    eps * max(m, n); both as double 0-dim tensors."""
    atol_value = 0.0 if atol is None else atol
    if rtol is None:
        rtol = 0.0 if atol_value > 0.0 else _default_rtol(input)
    return _double_scalar(input, atol_value), _double_scalar(input, rtol)


# --- linalg_pinv ------------------------------------------------------------------------------------


def _check_pinv_input(input: TensorImpl) -> None:
    if input._dtype.name not in LAPACK_DTYPES or len(input._size) < 2:
        size = "[" + ", ".join(str(s) for s in input._size) + "]"
        raise RuntimeError(
            f"linalg.pinv({input._dtype.scalar_name}{{{size}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )


linalg_pinv_atol_rtol_tensor = defop(
    "linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None,"
    " bool hermitian=False) -> Tensor"
)


@linalg_pinv_atol_rtol_tensor.kernel(DispatchKey.CompositeExplicitAutogradNonFunctional)
def linalg_pinv_atol_rtol_tensor_kernel(
    self: TensorImpl, *, atol: TensorImpl | None, rtol: TensorImpl | None, hermitian: bool
) -> Any:
    """Torch: linalg_pinv (atol_rtol_tensor): V diag(1/S) U^H over the singular values above
    max(atol, rtol * S_max) (eigh for a Hermitian input: |eigenvalues|)."""
    _check_pinv_input(self)
    atol_t, rtol_t = atol_rtol_tensors(self, atol, rtol, "torch.linalg.pinv")
    if geometry.numel(self._size) == 0:
        U, S, V = aten.svd.default(self)
        return aten.matmul.default(
            aten.mul.Tensor(V, aten.unsqueeze.default(aten.reciprocal.default(S), -2)),
            mh(U),
        )
    if not hermitian:
        U, S, V = aten.svd.default(self)
        max_val = aten.narrow.default(S, -1, 0, 1)
        large = S
    else:
        S, U = aten.linalg_eigh.default(self)
        large = aten.abs.default(S)
        max_val = aten.amax.default(large, [-1], True)
        V = U
    scaled = aten.mul.Tensor(aten.unsqueeze.default(rtol_t, -1), max_val)
    tol = aten.maximum.default(aten.unsqueeze.default(atol_t, -1), scaled)
    zero = aten.zeros.default([], dtype=S._dtype, device=S._storage.device)
    S_pinv = aten.where.self(aten.gt.Tensor(large, tol), aten.reciprocal.default(S), zero)
    S_pinv = (
        aten._to_copy.default(S_pinv, dtype=self._dtype)
        if S_pinv._dtype is not self._dtype
        else S_pinv
    )
    return aten.matmul.default(aten.mul.Tensor(V, aten.unsqueeze.default(S_pinv, -2)), mh(U))


@linalg_pinv_atol_rtol_tensor.derivative("self")
def linalg_pinv_backward(grad: Tensor, result: Tensor, self: Tensor) -> Tensor:
    # torch: pinv_backward(grad, result, self)
    return pinv_backward(grad, result, self)


linalg_pinv_atol_rtol_tensor_out = defop(
    "linalg_pinv.atol_rtol_tensor_out(Tensor self, *, Tensor? atol=None, Tensor? rtol=None,"
    " bool hermitian=False, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_pinv_atol_rtol_tensor_out.kernel(CEA)
def linalg_pinv_atol_rtol_tensor_out_kernel(
    self: TensorImpl,
    *,
    atol: TensorImpl | None,
    rtol: TensorImpl | None,
    hermitian: bool,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_pinv_out: the functional result, copied into `out` (resized)."""
    result = aten.linalg_pinv.atol_rtol_tensor(self, atol=atol, rtol=rtol, hermitian=hermitian)
    check_same_device("linalg.pinv", out, self)
    check_linalg_compatible_dtypes("linalg.pinv", out._dtype, result._dtype)
    resize_output(out, result._size)
    if has_data(result):
        aten.copy_.default(out, result)
    return out


def decomposition(schema: str) -> Callable[[F], F]:
    """Declare the decorated function as the CompositeImplicitAutograd kernel of the overload
    `schema` names (checked against torch's as every defop is)."""
    return defop(schema).decomposition


@decomposition(
    "linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None,"
    " bool hermitian=False) -> Tensor",
)
def linalg_pinv_atol_rtol_float_decomp(
    self: TensorImpl, *, atol: float | None, rtol: float | None, hermitian: bool
) -> Any:
    """Torch: linalg_pinv (float tolerances): as tensors, then atol_rtol_tensor."""
    atol_t, rtol_t = atol_rtol_floats(self, atol, rtol)
    return aten.linalg_pinv.atol_rtol_tensor(self, atol=atol_t, rtol=rtol_t, hermitian=hermitian)


@decomposition(
    "linalg_pinv.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None,"
    " bool hermitian=False, Tensor(a!) out) -> Tensor(a!)"
)
def linalg_pinv_atol_rtol_float_out_decomp(
    self: TensorImpl, *, atol: float | None, rtol: float | None, hermitian: bool, out: TensorImpl
) -> Any:
    """Torch: linalg_pinv_out (float tolerances)."""
    atol_t, rtol_t = atol_rtol_floats(self, atol, rtol)
    return aten.linalg_pinv.atol_rtol_tensor_out(
        self, atol=atol_t, rtol=rtol_t, hermitian=hermitian, out=out
    )


@decomposition("linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor")
def linalg_pinv_decomp(self: TensorImpl, rcond: float, hermitian: bool) -> Any:
    """Torch: linalg_pinv (rcond): NumPy's rcond is the relative tolerance, atol 0."""
    return aten.linalg_pinv.atol_rtol_float(self, atol=0.0, rtol=rcond, hermitian=hermitian)


@decomposition(
    "linalg_pinv.out(Tensor self, float rcond, bool hermitian=False, *, Tensor(a!) out)"
    " -> Tensor(a!)"
)
def linalg_pinv_out_decomp(
    self: TensorImpl, rcond: float, hermitian: bool, *, out: TensorImpl
) -> Any:
    """Torch: linalg_pinv_out (rcond)."""
    return aten.linalg_pinv.atol_rtol_float_out(
        self, atol=0.0, rtol=rcond, hermitian=hermitian, out=out
    )


@decomposition(
    "linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False) -> Tensor"
)
def linalg_pinv_rcond_tensor_decomp(self: TensorImpl, rcond: TensorImpl, hermitian: bool) -> Any:
    """Torch: linalg_pinv (rcond tensor): atol a zero of rcond's dtype."""
    atol = aten.zeros.default([], dtype=rcond._dtype, device=rcond._storage.device)
    return aten.linalg_pinv.atol_rtol_tensor(self, atol=atol, rtol=rcond, hermitian=hermitian)


@decomposition(
    "linalg_pinv.out_rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False, *,"
    " Tensor(a!) out) -> Tensor(a!)"
)
def linalg_pinv_out_rcond_tensor_decomp(
    self: TensorImpl, rcond: TensorImpl, hermitian: bool, *, out: TensorImpl
) -> Any:
    """Torch: linalg_pinv_out (rcond tensor)."""
    atol = aten.zeros.default([], dtype=rcond._dtype, device=rcond._storage.device)
    return aten.linalg_pinv.atol_rtol_tensor_out(
        self, atol=atol, rtol=rcond, hermitian=hermitian, out=out
    )


@decomposition("pinverse(Tensor self, float rcond=1.0000000000000001e-15) -> Tensor")
def pinverse_decomp(self: TensorImpl, rcond: float) -> Any:
    """Torch: pinverse: linalg_pinv with rcond, not Hermitian."""
    return aten.linalg_pinv.default(self, rcond, False)


# --- linalg_matrix_rank -------------------------------------------------------------------------------


def _rank_result(input: TensorImpl) -> Any:
    """Torch: get_matrix_rank_result_tensor: an int64 tensor of the batch shape."""
    check_is_matrix(input, "torch.linalg.matrix_rank", "input")
    return aten.empty.memory_format(
        list(input._size[:-2]), dtype=int64, device=input._storage.device
    )


def _matrix_rank(
    input: TensorImpl, atol: Any, rtol: Any, hermitian: bool, result: TensorImpl
) -> Any:
    """Torch: matrix_rank_impl: the singular values (|eigenvalues|) above
    max(atol, rtol * the largest), counted."""
    name = "torch.linalg.matrix_rank"
    check_same_device(name, result, input)
    check_same_device(name, atol, input, "atol")
    check_same_device(name, rtol, input, "rtol")
    check_linalg_compatible_dtypes(name, result._dtype, int64)
    check_not_complex_tolerance(atol, name, "atol")
    check_not_complex_tolerance(rtol, name, "rtol")
    if geometry.numel(input._size) == 0:
        return aten.fill_.Scalar(result, 0)
    if not hermitian:
        S = aten.linalg_svdvals.default(input)
        max_S = aten.narrow.default(S, -1, 0, 1)
    else:
        S = aten.abs.default(aten.linalg_eigvalsh.default(input))
        max_S = aten.amax.default(S, [-1], True)
    # torch: at::max(atol.unsqueeze(-1), rtol.unsqueeze(-1) * max_S), whose arguments the
    # compiler evaluates right to left.
    scaled = aten.mul.Tensor(aten.unsqueeze.default(rtol, -1), max_S)
    tol = aten.maximum.default(aten.unsqueeze.default(atol, -1), scaled)
    above = aten.gt.Tensor(S, tol)
    if is_tensor_subclass_like(input):
        # torch: for Composite Compliance, a subclass (or a mode) takes the functional sum.
        return aten.sum.dim_IntList(above, [-1])
    return aten.sum.IntList_out(above, [-1], out=result)


@decomposition(
    "linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None,"
    " bool hermitian=False) -> Tensor"
)
def linalg_matrix_rank_atol_rtol_tensor_decomp(
    input: TensorImpl, *, atol: TensorImpl | None, rtol: TensorImpl | None, hermitian: bool
) -> Any:
    """Torch: linalg_matrix_rank (tensor tolerances)."""
    result = _rank_result(input)
    atol_t, rtol_t = atol_rtol_tensors(input, atol, rtol, "torch.linalg.matrix_rank")
    return _matrix_rank(input, atol_t, rtol_t, hermitian, result)


@decomposition(
    "linalg_matrix_rank.atol_rtol_tensor_out(Tensor input, *, Tensor? atol=None, Tensor? rtol=None,"
    " bool hermitian=False, Tensor(a!) out) -> Tensor(a!)"
)
def linalg_matrix_rank_atol_rtol_tensor_out_decomp(
    input: TensorImpl,
    *,
    atol: TensorImpl | None,
    rtol: TensorImpl | None,
    hermitian: bool,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_matrix_rank_out (tensor tolerances)."""
    atol_t, rtol_t = atol_rtol_tensors(input, atol, rtol, "torch.linalg.matrix_rank")
    return _matrix_rank(input, atol_t, rtol_t, hermitian, out)


@decomposition(
    "linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None,"
    " bool hermitian=False) -> Tensor"
)
def linalg_matrix_rank_atol_rtol_float_decomp(
    self: TensorImpl, *, atol: float | None, rtol: float | None, hermitian: bool
) -> Any:
    """Torch: linalg_matrix_rank (float tolerances)."""
    result = _rank_result(self)
    atol_t, rtol_t = atol_rtol_floats(self, atol, rtol)
    return _matrix_rank(self, atol_t, rtol_t, hermitian, result)


@decomposition(
    "linalg_matrix_rank.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None,"
    " bool hermitian=False, Tensor(a!) out) -> Tensor(a!)"
)
def linalg_matrix_rank_atol_rtol_float_out_decomp(
    self: TensorImpl, *, atol: float | None, rtol: float | None, hermitian: bool, out: TensorImpl
) -> Any:
    """Torch: linalg_matrix_rank_out (float tolerances)."""
    atol_t, rtol_t = atol_rtol_floats(self, atol, rtol)
    return _matrix_rank(self, atol_t, rtol_t, hermitian, out)


@decomposition("linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor")
def linalg_matrix_rank_decomp(self: TensorImpl, tol: float, hermitian: bool) -> Any:
    """Torch: linalg_matrix_rank (tol): atol = tol, rtol = 0."""
    result = _rank_result(self)
    atol_t, rtol_t = atol_rtol_floats(self, tol, 0.0)
    return _matrix_rank(self, atol_t, rtol_t, hermitian, result)


@decomposition(
    "linalg_matrix_rank.out(Tensor self, float tol, bool hermitian=False, *, Tensor(a!) out)"
    " -> Tensor(a!)"
)
def linalg_matrix_rank_out_decomp(
    self: TensorImpl, tol: float, hermitian: bool, *, out: TensorImpl
) -> Any:
    """Torch: linalg_matrix_rank_out (tol)."""
    atol_t, rtol_t = atol_rtol_floats(self, tol, 0.0)
    return _matrix_rank(self, atol_t, rtol_t, hermitian, out)


@decomposition(
    "linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor"
)
def linalg_matrix_rank_tol_tensor_decomp(
    input: TensorImpl, tol: TensorImpl, hermitian: bool
) -> Any:
    """Torch: linalg_matrix_rank (tol tensor): atol = tol, rtol a zero of tol's dtype."""
    result = _rank_result(input)
    rtol = aten.zeros.default([], dtype=tol._dtype, device=tol._storage.device)
    return _matrix_rank(input, tol, rtol, hermitian, result)


@decomposition(
    "linalg_matrix_rank.out_tol_tensor(Tensor input, Tensor tol, bool hermitian=False, *,"
    " Tensor(a!) out) -> Tensor(a!)"
)
def linalg_matrix_rank_out_tol_tensor_decomp(
    input: TensorImpl, tol: TensorImpl, hermitian: bool, *, out: TensorImpl
) -> Any:
    """Torch: linalg_matrix_rank_out (tol tensor)."""
    """Torch: linalg_pinv (float tolerances): as tensors, then atol_rtol_tensor."""
    rtol = aten.zeros.default([], dtype=tol._dtype, device=tol._storage.device)
    return _matrix_rank(input, tol, rtol, hermitian, out)
