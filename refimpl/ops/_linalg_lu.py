"""Linear algebra, LU: linalg_lu_factor(_ex), _lu_with_info, linalg_lu, lu_unpack, linalg_lu_solve, lu_solve.

Torch: aten/src/ATen/native/BatchLinearAlgebra.cpp (the structured meta functions and kernels
of linalg_lu_factor_ex, linalg_lu, lu_unpack and linalg_lu_solve; the
CompositeImplicitAutograd linalg_lu_factor, _lu_with_info and lu_solve). getrf and getrs
come from the backend (`_linalg_kernels.py`); LU is column-major, pivots 1-based int32.
"""

from __future__ import annotations

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
    check_inputs_solver,
    raise_linalg_error,
    square_check_inputs,
)
from refimpl.ops._linalg_kernels import (
    broadcast_batch,
    broadcast_rows,
    check_lapack_dtype,
    emit,
    identity_like,
    infos,
    is_complex,
    lapack,
    lu_factor_arrays,
    matrix_strides,
    mH,
    new_output,
    permutation_matrix,
    permutation_of,
    warn_deprecated,
    xp_of,
)
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.data import broadcast_shapes
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
Shape = tuple[int, ...]


# --- linalg_lu_factor_ex, linalg_lu_factor, _lu_with_info ------------------------------------


def _lu_factor_meta(A: TensorImpl, pivot: bool) -> tuple[Shape, Shape, Shape]:
    # torch: TORCH_META_FUNC(linalg_lu_factor_ex), then the kernel's pivot check.
    if len(A._size) < 2:
        raise RuntimeError(
            "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{format_shape(A._size)} instead"
        )
    m, n = A._size[-2:]
    return A._size, (*A._size[:-2], min(m, n)), A._size[:-2]


def _check_pivot(A: TensorImpl, pivot: bool, name: str) -> None:
    # torch: lu_factor_kernel on the CPU (apply_lu_factor in BatchLinearAlgebraKernel.cpp).
    if not pivot and A._storage.device.type != "cuda":
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _lu_factor_ex(
    A: TensorImpl,
    pivot: bool,
    check_errors: bool,
    outs: tuple[TensorImpl, TensorImpl, TensorImpl] | None,
) -> Any:
    size, pivots_size, info_size = _lu_factor_meta(A, pivot)
    specs = (
        (size, matrix_strides(size), A._dtype),
        (pivots_size, geometry.contiguous_strides(pivots_size), int32),
        (info_size, geometry.contiguous_strides(info_size), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("lu_cpu", A)
    _check_pivot(A, pivot, "linalg.lu_factor")
    values: tuple[Any, ...] = (None, None, None)
    if has_data(A):
        xp = xp_of(A)
        values = lu_factor_arrays(xp, array_of(A))
        if check_errors:
            raise_linalg_error(infos(xp, values[2]), "torch.linalg.lu_factor_ex", len(size) == 2)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


linalg_lu_factor_ex = defop(
    "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
    "(Tensor LU, Tensor pivots, Tensor info)"
)


@registered(linalg_lu_factor_ex)
def linalg_lu_factor_ex_kernel(A: TensorImpl, *, pivot: bool, check_errors: bool) -> Any:
    """Torch: linalg_lu_factor_ex (structured): LU column-major, pivots and info int32."""
    return _lu_factor_ex(A, pivot, check_errors, None)


@linalg_lu_factor_ex.derivative("A")
def linalg_lu_factor_ex_backward(grad: Tensor, LU: Tensor, pivots: Tensor, pivot: bool) -> Tensor:
    # torch: lu_factor_ex_backward(grad, LU, pivs, pivot)
    return bl.lu_factor_ex_backward(grad, LU, pivots, pivot)


non_differentiable_outputs("aten::linalg_lu_factor_ex", "pivots", "info")

linalg_lu_factor_ex_out = defop(
    "linalg_lu_factor_ex.out(Tensor A, *, bool pivot=True, bool check_errors=False, "
    "Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info) -> "
    "(Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info)"
)


@registered(linalg_lu_factor_ex_out)
def linalg_lu_factor_ex_out_kernel(
    A: TensorImpl,
    *,
    pivot: bool,
    check_errors: bool,
    LU: TensorImpl,
    pivots: TensorImpl,
    info: TensorImpl,
) -> Any:
    """Torch: linalg_lu_factor_ex.out (structured)."""
    return _lu_factor_ex(A, pivot, check_errors, (LU, pivots, info))


linalg_lu_factor = defop(
    "linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)"
)


@linalg_lu_factor.decomposition
def linalg_lu_factor_decomp(A: TensorImpl, *, pivot: bool) -> Any:
    """Torch: linalg_lu_factor: linalg_lu_factor_ex, then the error check."""
    LU, pivots, info = aten.linalg_lu_factor_ex.default(A, pivot=pivot)
    aten._linalg_check_errors.default(info, "torch.linalg.lu_factor", is_matrix=A.dim() == 2)
    return LU, pivots


linalg_lu_factor_out = defop(
    "linalg_lu_factor.out(Tensor A, *, bool pivot=True, Tensor(a!) LU, Tensor(b!) pivots) -> "
    "(Tensor(a!) LU, Tensor(b!) pivots)"
)


@linalg_lu_factor_out.decomposition
def linalg_lu_factor_out_decomp(
    A: TensorImpl, *, pivot: bool, LU: TensorImpl, pivots: TensorImpl
) -> Any:
    """Torch: linalg_lu_factor_out: linalg_lu_factor_ex.out with a new info."""
    info = aten.new_empty.default(pivots, [0], dtype=int32)
    aten.linalg_lu_factor_ex.out(A, pivot=pivot, LU=LU, pivots=pivots, info=info)
    aten._linalg_check_errors.default(info, "torch.linalg.lu_factor", is_matrix=A.dim() == 2)
    return LU, pivots


_lu_with_info = defop(
    "_lu_with_info(Tensor self, bool pivot=True, bool check_errors=True) -> "
    "(Tensor LU, Tensor pivots, Tensor info)"
)


@_lu_with_info.decomposition
def _lu_with_info_decomp(self: TensorImpl, pivot: bool, check_errors: bool) -> Any:
    """Torch: _lu_with_info (deprecated torch.lu): the warning, then linalg_lu_factor_ex."""
    warn_deprecated("lu")
    return aten.linalg_lu_factor_ex.default(self, pivot=pivot, check_errors=check_errors)


# --- linalg_lu, lu_unpack --------------------------------------------------------------------


def _lu_shapes(A: TensorImpl, pivot: bool) -> tuple[Shape, Shape, Shape]:
    # torch: TORCH_META_FUNC(linalg_lu): P (m, m) (empty without pivoting), L (m, k), U (k, n).
    if len(A._size) < 2:
        raise RuntimeError(
            "linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
            f"{format_shape(A._size)} instead"
        )
    batch, (m, n) = A._size[:-2], A._size[-2:]
    k = min(m, n)
    return (*batch, m, m) if pivot else (0,), (*batch, m, k), (*batch, k, n)


def _unpack(xp: Any, lu: Any, m: int, n: int) -> tuple[Any, Any]:
    # torch: lu_unpack_out's data part: L unit lower (m, k), U upper (k, n).
    k = min(m, n)
    L = xp.tril(lu[..., :, :k], k=-1)
    L = (
        L + identity_like(xp, (*L.shape[:-2], m, k), L.dtype)
        if m == k
        else L + _eye_rect(xp, L.shape, L.dtype)
    )
    U = xp.triu(lu[..., :k, :])
    return L, U


def _eye_rect(xp: Any, shape: Shape, dtype: Any) -> Any:
    eye = xp.eye(shape[-2], shape[-1], dtype=dtype)
    return xp.broadcast_to(eye, shape) if len(shape) > 2 else eye


def _lu(A: TensorImpl, pivot: bool, outs: tuple[TensorImpl, TensorImpl, TensorImpl] | None) -> Any:
    shapes = _lu_shapes(A, pivot)
    specs = [(s, geometry.contiguous_strides(s), A._dtype) for s in shapes]
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("lu_cpu", A)
    _check_pivot(A, pivot, "linalg.lu_factor")
    values: list[Any] = [None, None, None]
    if has_data(A):
        xp = xp_of(A)
        m, n = A._size[-2:]
        lu, pivots, _ = lu_factor_arrays(xp, array_of(A))
        L, U = _unpack(xp, lu, m, n)
        P = permutation_matrix(xp, permutation_of(xp, pivots, m), lu.dtype)
        values = [P, L, U]
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


linalg_lu = defop("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)")


@registered(linalg_lu)
def linalg_lu_kernel(A: TensorImpl, *, pivot: bool) -> Any:
    """Torch: linalg_lu (structured): getrf, then unpacked into P, L, U (contiguous)."""
    return _lu(A, pivot, None)


@linalg_lu.derivative("A")
def linalg_lu_backward(
    grads: tuple[Tensor | None, ...], P: Tensor, L: Tensor, U: Tensor, pivot: bool
) -> Tensor:
    # torch: linalg_lu_backward(grad_L, grad_U, P, L, U, pivot)
    return bl.linalg_lu_backward(grads[1], grads[2], P, L, U, pivot)


non_differentiable_outputs("aten::linalg_lu", "P")

linalg_lu_out = defop(
    "linalg_lu.out(Tensor A, *, bool pivot=True, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
    "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)"
)


@registered(linalg_lu_out)
def linalg_lu_out_kernel(
    A: TensorImpl, *, pivot: bool, P: TensorImpl, L: TensorImpl, U: TensorImpl
) -> Any:
    """Torch: linalg_lu.out (structured)."""
    return _lu(A, pivot, (P, L, U))


def _lu_unpack(
    LU_data: TensorImpl,
    LU_pivots: TensorImpl,
    unpack_data: bool,
    unpack_pivots: bool,
    outs: tuple[TensorImpl, TensorImpl, TensorImpl] | None,
) -> Any:
    # torch: TORCH_META_FUNC(lu_unpack), then lu_unpack_out.
    if len(LU_data._size) < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{format_shape(LU_data._size)} instead"
        )
    if unpack_pivots and LU_pivots._dtype is not int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    batch, (m, n) = LU_data._size[:-2], LU_data._size[-2:]
    k = min(m, n)
    shapes: list[Shape] = [
        (*batch, m, m) if unpack_pivots else (0,),
        (*batch, m, k) if unpack_data else (0,),
        (*batch, k, n) if unpack_data else (0,),
    ]
    specs = [(s, geometry.contiguous_strides(s), LU_data._dtype) for s in shapes]
    for i, (s, st, dt) in enumerate(specs):
        new_output(LU_data, None if outs is None else outs[i], s, st, dt)
    values: list[Any] = [None, None, None]
    if has_data(LU_data):
        xp = xp_of(LU_data)
        lu = array_of(LU_data)
        zero = xp.zeros((0,), dtype=lu.dtype)
        values = [zero, zero, zero]
        if unpack_data:
            values[1], values[2] = _unpack(xp, lu, m, n)
        if unpack_pivots:
            pivots = broadcast_rows(xp, array_of(LU_pivots), batch)
            values[0] = permutation_matrix(xp, permutation_of(xp, pivots, m), lu.dtype)
    return tuple(
        emit(LU_data, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


lu_unpack = defop(
    "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True)"
    " -> (Tensor P, Tensor L, Tensor U)"
)


@registered(lu_unpack)
def lu_unpack_kernel(
    LU_data: TensorImpl, LU_pivots: TensorImpl, unpack_data: bool, unpack_pivots: bool
) -> Any:
    """Torch: lu_unpack (structured): P from the pivots, L unit lower, U upper."""
    return _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, None)


@lu_unpack.derivative("LU_data")
def lu_unpack_backward(grads: tuple[Tensor | None, ...], LU_data_sym_sizes: Any) -> Tensor:
    # torch: lu_unpack_backward(grad_L, grad_U, LU_data.sym_size(-2), LU_data.sym_size(-1))
    return bl.lu_unpack_backward(grads[1], grads[2], LU_data_sym_sizes[-2], LU_data_sym_sizes[-1])


non_differentiable_outputs("aten::lu_unpack", "P")

lu_unpack_out = defop(
    "lu_unpack.out(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
    "bool unpack_pivots=True, *, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
    "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)"
)


@registered(lu_unpack_out)
def lu_unpack_out_kernel(
    LU_data: TensorImpl,
    LU_pivots: TensorImpl,
    unpack_data: bool,
    unpack_pivots: bool,
    *,
    P: TensorImpl,
    L: TensorImpl,
    U: TensorImpl,
) -> Any:
    """Torch: lu_unpack.out (structured)."""
    return _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, (P, L, U))


# --- linalg_lu_solve, lu_solve ---------------------------------------------------------------


def _lu_solve_meta(LU: TensorImpl, pivots: TensorImpl, B: TensorImpl, left: bool) -> Shape:
    # torch: TORCH_META_FUNC(linalg_lu_solve), in its order.
    check_floating_or_complex(LU, "torch.linalg.lu_solve")
    if LU._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    if pivots._dtype is not int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    square_check_inputs(LU, "torch.linalg.lu_solve")
    check_inputs_solver(LU, B, left, "linalg.lu_solve")
    if not pivots._size or LU._size[-1] != pivots._size[-1]:
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
            "matrix"
        )
    if LU._size[:-1] != pivots._size:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {format_shape(pivots._size)} instead"
        )
    batch = broadcast_shapes(B._size[:-2], LU._size[:-2])
    return (*batch, *B._size[-2:])


def lu_solve_arrays(xp: Any, lu: Any, pivots: Any, b: Any, left: bool, adjoint: bool) -> Any:
    """X with op(A) X = B (left) or X op(A) = B from A's LU; op A or A^H (`adjoint`).

    Torch: linalg_lu_solve_out: a right solve is the left solve of the adjoint equation,
    A^H X^H = B^H, with `adjoint` flipped; getrs with Transpose for real adjoints."""
    batch = tuple(b.shape[:-2])
    lu = broadcast_batch(xp, lu, batch)
    pivots = broadcast_rows(xp, pivots, batch)
    if not left:
        adjoint = not adjoint
        b = mH(xp, b)
    complex_ = is_complex(xp, lu)
    trans = (2 if complex_ else 1) if adjoint else 0
    x = lapack(xp, "lu_solve")(lu, pivots, b, trans)
    return x if left else mH(xp, x)


def _linalg_lu_solve(
    LU: TensorImpl,
    pivots: TensorImpl,
    B: TensorImpl,
    left: bool,
    adjoint: bool,
    out: TensorImpl | None,
) -> Any:
    size = _lu_solve_meta(LU, pivots, B, left)
    stride = matrix_strides(size, column_major=left)
    new_output(B, out, size, stride, B._dtype)
    check_lapack_dtype("linalg.lu_solve_cpu", LU)
    value = None
    if has_data(B):
        xp = xp_of(B)
        b = broadcast_batch(xp, array_of(B), size[:-2])
        value = lu_solve_arrays(xp, array_of(LU), array_of(pivots), b, left, adjoint)
    return emit(B, value, size, stride, B._dtype, out)


linalg_lu_solve = defop(
    "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False)"
    " -> Tensor"
)


@registered(linalg_lu_solve)
def linalg_lu_solve_kernel(
    LU: TensorImpl, pivots: TensorImpl, B: TensorImpl, *, left: bool, adjoint: bool
) -> Any:
    """Torch: linalg_lu_solve (structured): getrs on the LU of A."""
    return _linalg_lu_solve(LU, pivots, B, left, adjoint, None)


@linalg_lu_solve.derivative("LU")
def linalg_lu_solve_LU_backward(
    grad: Tensor, LU: Tensor, pivots: Tensor, result: Tensor, left: bool, adjoint: bool
) -> Tensor:
    # torch: linalg_lu_solve_LU(grad, LU, pivots, result, left, adjoint)
    return bl.linalg_lu_solve_LU(grad, LU, pivots, result, left, adjoint)


@linalg_lu_solve.derivative("B")
def linalg_lu_solve_B_backward(
    grad: Tensor, LU: Tensor, pivots: Tensor, left: bool, adjoint: bool
) -> Tensor:
    # torch: at::linalg_lu_solve(LU, pivots, grad, left, !adjoint)
    return aten.linalg_lu_solve.default(LU, pivots, grad, left=left, adjoint=not adjoint)


linalg_lu_solve_out = defop(
    "linalg_lu_solve.out(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
    "bool adjoint=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(linalg_lu_solve_out)
def linalg_lu_solve_out_kernel(
    LU: TensorImpl,
    pivots: TensorImpl,
    B: TensorImpl,
    *,
    left: bool,
    adjoint: bool,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_lu_solve.out (structured)."""
    return _linalg_lu_solve(LU, pivots, B, left, adjoint, out)


lu_solve = defop("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor")


@lu_solve.decomposition
def lu_solve_decomp(self: TensorImpl, LU_data: TensorImpl, LU_pivots: TensorImpl) -> Any:
    """Torch: lu_solve (deprecated): the warning, then linalg_lu_solve(LU_data, LU_pivots,
    self)."""
    warn_deprecated("lu_solve")
    return aten.linalg_lu_solve.default(LU_data, LU_pivots, self)


lu_solve_out = defop(
    "lu_solve.out(Tensor self, Tensor LU_data, Tensor LU_pivots, *, Tensor(a!) out) -> Tensor(a!)"
)


@lu_solve_out.decomposition
def lu_solve_out_decomp(
    self: TensorImpl, LU_data: TensorImpl, LU_pivots: TensorImpl, *, out: TensorImpl
) -> Any:
    """Torch: lu_solve_out: the warning, then linalg_lu_solve.out."""
    warn_deprecated("lu_solve", "lu_solve_out")
    return aten.linalg_lu_solve.out(LU_data, LU_pivots, self, out=out)
