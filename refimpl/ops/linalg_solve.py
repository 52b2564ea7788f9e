"""Linear algebra, solvers: solve, inv and the error check of LAPACK's info; the other solvers and factorizations are registered by the modules this one imports.

Torch: aten/src/ATen/native/BatchLinearAlgebra.cpp (the structured meta functions and kernels
of _linalg_solve_ex and linalg_inv_ex, _linalg_check_errors, and the
CompositeImplicitAutograd linalg_solve_ex, linalg_solve, linalg_inv and inverse) and the
derivatives in derivatives.yaml / FunctionsManual.cpp (refimpl/ops/_backward_linalg.py). Each
kernel checks as torch's meta function does, in its order, before any write; results take
torch's layouts (C-contiguous batches of column-major matrices where LAPACK writes them); the
factorizations come from the backend's LAPACK (`_linalg_kernels.py`). The family's other
blocks: LU (`_linalg_lu.py`), determinants (`_linalg_det.py`), Cholesky
(`_linalg_cholesky.py`), triangular, LDL and least-squares solvers (`_linalg_triangular.py`).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import int32
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _backward_linalg as bl

# Importing the family's other blocks registers their ops.
from refimpl.ops import _linalg_cholesky, _linalg_det, _linalg_triangular  # noqa: F401
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_solver_shapes,
    linalg_solve_is_vector_rhs,
    raise_linalg_error,
    square_check_inputs,
)
from refimpl.ops._linalg_kernels import (
    broadcast_batch,
    check_lapack_dtype,
    emit,
    identity_like,
    infos,
    lu_factor_arrays,
    matrix_strides,
    new_output,
    xp_of,
)
from refimpl.ops._linalg_lu import lu_solve_arrays
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.data import broadcast_shapes
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
Shape = tuple[int, ...]


# --- _linalg_check_errors --------------------------------------------------------------------


_linalg_check_errors = defop(
    "_linalg_check_errors(Tensor info, str api_name, *, bool is_matrix) -> ()"
)


@_linalg_check_errors.kernel(CEA)
def _linalg_check_errors_kernel(info: TensorImpl, api_name: str, *, is_matrix: bool) -> None:
    """Torch: _linalg_check_errors (BatchLinearAlgebra.cpp): the error of the first nonzero
    info, naming the batch element when `is_matrix` is False; nothing for meta tensors."""
    if not has_data(info) or geometry.numel(info._size) == 0:
        return
    raise_linalg_error(infos(xp_of(info), array_of(info)), api_name, is_matrix)


# --- _linalg_solve_ex, linalg_solve_ex, linalg_solve -----------------------------------------


def _solve_meta(A: TensorImpl, B: TensorImpl, left: bool) -> tuple[Shape, bool]:
    # torch: TORCH_META_FUNC(_linalg_solve_ex), in its order.
    check_floating_or_complex(A, "linalg.solve")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    vector_case = linalg_solve_is_vector_rhs(A, B)
    B_size = (*B._size, 1) if vector_case else B._size
    square_check_inputs(A, "linalg.solve")
    check_solver_shapes(A._size, B_size, left, "linalg.solve")
    batch = broadcast_shapes(B_size[:-2], A._size[:-2])
    if not left and vector_case:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    size = (*batch, *B_size[-2:])
    return (size[:-1] if vector_case else size), vector_case


def solve_arrays(xp: Any, a: Any, b: Any, left: bool) -> tuple[Any, ...]:
    """(X, LU, pivots, info) of A X = B (X A = B) for a matrix right-hand side `b` whose
    batch is already broadcast.

    Torch: _linalg_solve_ex_out: linalg_lu_factor_ex of A (LU is A's, whatever its
    layout), then linalg_lu_solve."""
    lu, pivots, info = lu_factor_arrays(xp, a)
    x = lu_solve_arrays(xp, lu, pivots, b, left, False)
    return x, lu, pivots, info


def _linalg_solve_ex(
    A: TensorImpl,
    B: TensorImpl,
    left: bool,
    check_errors: bool,
    outs: tuple[TensorImpl, TensorImpl, TensorImpl, TensorImpl] | None,
) -> Any:
    size, vector_case = _solve_meta(A, B, left)
    a_size = A._size
    result_stride = matrix_strides(size, column_major=left)
    specs = (
        (size, result_stride, B._dtype),
        (a_size, matrix_strides(a_size), A._dtype),
        (a_size[:-1], geometry.contiguous_strides(a_size[:-1]), int32),
        (a_size[:-2], geometry.contiguous_strides(a_size[:-2]), int32),
    )
    if outs is not None:
        for out, (s, st, dt) in zip(outs, specs, strict=True):
            new_output(A, out, s, st, dt)
    check_lapack_dtype("lu_cpu", A)
    values: tuple[Any, ...] = (None, None, None, None)
    if has_data(A):
        xp = xp_of(A)
        b = array_of(B)
        b = b[..., None] if vector_case else b
        matrix_size = (*size, 1) if vector_case else size
        b = broadcast_batch(xp, b, matrix_size[:-2])
        x, lu, pivots, info = solve_arrays(xp, array_of(A), b, left)
        if check_errors:
            raise_linalg_error(infos(xp, info), "torch.linalg.solve_ex", len(a_size) == 2)
        values = (x[..., 0] if vector_case else x, lu, pivots, info)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


_linalg_solve_ex_op = defop(
    "_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
    "(Tensor result, Tensor LU, Tensor pivots, Tensor info)"
)


@registered(_linalg_solve_ex_op)
def _linalg_solve_ex_kernel(A: TensorImpl, B: TensorImpl, *, left: bool, check_errors: bool) -> Any:
    """Torch: _linalg_solve_ex (structured): LU of A, then getrs; the result is
    column-major for left=True, row-major otherwise."""
    return _linalg_solve_ex(A, B, left, check_errors, None)


@_linalg_solve_ex_op.derivative("A", "B")
def _linalg_solve_ex_backward(
    grad: Tensor, result: Tensor, A: Tensor, LU: Tensor, pivots: Tensor, left: bool
) -> tuple[Tensor | None, Tensor | None]:
    # torch: linalg_solve_backward(grad, result, A, LU, pivots, left, grad_input_mask[1])
    return bl.linalg_solve_backward(grad, result, A, LU, pivots, left)


non_differentiable_outputs("aten::_linalg_solve_ex", "LU", "pivots", "info")

_linalg_solve_ex_result = defop(
    "_linalg_solve_ex.result(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, "
    "Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, Tensor(d!) info) -> "
    "(Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, Tensor(d!) info)"
)


@registered(_linalg_solve_ex_result)
def _linalg_solve_ex_result_kernel(
    A: TensorImpl,
    B: TensorImpl,
    *,
    left: bool,
    check_errors: bool,
    result: TensorImpl,
    LU: TensorImpl,
    pivots: TensorImpl,
    info: TensorImpl,
) -> Any:
    """Torch: _linalg_solve_ex.result (structured)."""
    return _linalg_solve_ex(A, B, left, check_errors, (result, LU, pivots, info))


linalg_solve_ex = defop(
    "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
    "(Tensor result, Tensor info)"
)


@linalg_solve_ex.decomposition
def linalg_solve_ex_decomp(A: TensorImpl, B: TensorImpl, *, left: bool, check_errors: bool) -> Any:
    """Torch: linalg_solve_ex: _linalg_solve_ex's result and info."""
    result, _, _, info = aten._linalg_solve_ex.default(A, B, left=left, check_errors=check_errors)
    return result, info


linalg_solve_ex_out = defop(
    "linalg_solve_ex.out(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, "
    "Tensor(a!) result, Tensor(b!) info) -> (Tensor(a!) result, Tensor(b!) info)"
)


@linalg_solve_ex_out.decomposition
def linalg_solve_ex_out_decomp(
    A: TensorImpl,
    B: TensorImpl,
    *,
    left: bool,
    check_errors: bool,
    result: TensorImpl,
    info: TensorImpl,
) -> Any:
    """Torch: linalg_solve_ex_out: _linalg_solve_ex.result with new LU and pivots."""
    LU = aten.new_empty.default(B, [0])
    pivots = aten.new_empty.default(B, [0], dtype=int32)
    aten._linalg_solve_ex.result(
        A,
        B,
        left=left,
        check_errors=check_errors,
        result=result,
        LU=LU,
        pivots=pivots,
        info=info,
    )
    return result, info


linalg_solve = defop("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor")


@linalg_solve.decomposition
def linalg_solve_decomp(A: TensorImpl, B: TensorImpl, *, left: bool) -> Any:
    """Torch: linalg_solve: linalg_solve_ex, then the error check."""
    result, info = aten.linalg_solve_ex.default(A, B, left=left)
    aten._linalg_check_errors.default(info, "torch.linalg.solve", is_matrix=A.dim() == 2)
    return result


linalg_solve_out = defop(
    "linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_solve_out.decomposition
def linalg_solve_out_decomp(A: TensorImpl, B: TensorImpl, *, left: bool, out: TensorImpl) -> Any:
    """Torch: linalg_solve_out: linalg_solve_ex.out with a new info, then the check."""
    info = aten.new_empty.default(B, [0], dtype=int32)
    aten.linalg_solve_ex.out(A, B, left=left, result=out, info=info)
    aten._linalg_check_errors.default(info, "torch.linalg.solve", is_matrix=A.dim() == 2)
    return out


# --- linalg_inv_ex, linalg_inv, inverse ------------------------------------------------------


def _inv_ex(A: TensorImpl, check_errors: bool, outs: tuple[TensorImpl, TensorImpl] | None) -> Any:
    # torch: TORCH_META_FUNC(linalg_inv_ex), then linalg_inv_ex_out: solve A X = I.
    square_check_inputs(A, "linalg.inv")
    check_floating_or_complex(A, "linalg.inv", allow_low_precision_dtypes=False)
    size = A._size
    specs = (
        (size, matrix_strides(size), A._dtype),
        (size[:-2], geometry.contiguous_strides(size[:-2]), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    values: tuple[Any, ...] = (None, None)
    if has_data(A):
        xp = xp_of(A)
        a = array_of(A)
        eye = identity_like(xp, tuple(a.shape), a.dtype)
        x, _, _, info = solve_arrays(xp, a, eye, True)
        if check_errors:
            raise_linalg_error(infos(xp, info), "linalg.inv_ex", len(size) == 2)
        values = (x, info)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


linalg_inv_ex = defop(
    "linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)"
)


@registered(linalg_inv_ex)
def linalg_inv_ex_kernel(A: TensorImpl, *, check_errors: bool) -> Any:
    """Torch: linalg_inv_ex (structured): the solution of A X = I (column-major)."""
    return _inv_ex(A, check_errors, None)


@linalg_inv_ex.derivative("A")
def linalg_inv_ex_backward(grad: Tensor, inverse: Tensor) -> Tensor:
    # torch: -at::matmul(inverse.mH(), at::matmul(grad, inverse.mH()))
    inverse_h = bl.mH(inverse)
    return aten.neg.default(aten.matmul.default(inverse_h, aten.matmul.default(grad, inverse_h)))


non_differentiable_outputs("aten::linalg_inv_ex", "info")

linalg_inv_ex_inverse = defop(
    "linalg_inv_ex.inverse(Tensor A, *, bool check_errors=False, Tensor(a!) inverse, "
    "Tensor(b!) info) -> (Tensor(a!) inverse, Tensor(b!) info)"
)


@registered(linalg_inv_ex_inverse)
def linalg_inv_ex_inverse_kernel(
    A: TensorImpl, *, check_errors: bool, inverse: TensorImpl, info: TensorImpl
) -> Any:
    """Torch: linalg_inv_ex.inverse (structured)."""
    return _inv_ex(A, check_errors, (inverse, info))


linalg_inv = defop("linalg_inv(Tensor A) -> Tensor")


@linalg_inv.decomposition
def linalg_inv_decomp(A: TensorImpl) -> Any:
    """Torch: linalg_inv: linalg_inv_ex, then the error check."""
    result, info = aten.linalg_inv_ex.default(A)
    aten._linalg_check_errors.default(info, "linalg.inv", is_matrix=A.dim() == 2)
    return result


linalg_inv_out = defop("linalg_inv.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)")


@linalg_inv_out.decomposition
def linalg_inv_out_decomp(A: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: linalg_inv_out: linalg_inv_ex.inverse with a new info, then the check."""
    info = aten.new_empty.default(A, [0], dtype=int32)
    aten.linalg_inv_ex.inverse(A, inverse=out, info=info)
    aten._linalg_check_errors.default(info, "linalg.inv", is_matrix=A.dim() == 2)
    return out


inverse = defop("inverse(Tensor self) -> Tensor")


@inverse.decomposition
def inverse_decomp(self: TensorImpl) -> Any:
    """Torch: inverse: linalg_inv."""
    return aten.linalg_inv.default(self)


inverse_out = defop("inverse.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@inverse_out.decomposition
def inverse_out_decomp(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: inverse_out: linalg_inv.out."""
    return aten.linalg_inv.out(self, out=out)
