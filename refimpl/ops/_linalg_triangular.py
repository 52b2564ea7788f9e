"""Linear algebra, triangular, LDL and least-squares solvers: linalg_solve_triangular, triangular_solve, linalg_ldl_factor(_ex), linalg_ldl_solve, linalg_lstsq.

Torch: aten/src/ATen/native/BatchLinearAlgebra.cpp (linalg_solve_triangular(_out), the
structured triangular_solve, linalg_ldl_factor_ex and linalg_ldl_solve, the
CompositeImplicitAutograd linalg_ldl_factor, and linalg_lstsq(_out) with torch's drivers).
trsm, sytrf/hetrf, sytrs/hetrs and gels/gelsy/gelsd/gelss come from the backend.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import Category, int32, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _backward_linalg as bl
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_inputs_solver,
    check_linalg_compatible_dtypes,
    check_same_device,
    linear_solve_check_inputs,
    raise_linalg_error,
    square_check_inputs,
)
from refimpl.ops._linalg_kernels import (
    broadcast_batch,
    broadcast_rows,
    check_lapack_dtype,
    emit,
    infos,
    lapack,
    matrix_strides,
    mT,
    new_output,
    real_dtype_of,
    warn_deprecated,
    xp_of,
)
from refimpl.ops._outputs import resize_output as resize_contiguous
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.data import broadcast_shapes
from refimpl.ops.scan import registered

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
Shape = tuple[int, ...]


# --- linalg_solve_triangular -------------------------------------------------------------------


def _solve_triangular(
    A: TensorImpl,
    B: TensorImpl,
    upper: bool,
    left: bool,
    unitriangular: bool,
    out: TensorImpl | None,
) -> Any:
    # torch: linalg_solve_triangular_out: the solver checks, the broadcast batches, `out`
    # resized column-major, then trsm (no singularity check).
    check_inputs_solver(A, B, left, "linalg.solve_triangular")
    batch = broadcast_shapes(B._size[:-2], A._size[:-2])
    size = (*batch, *B._size[-2:])
    stride = matrix_strides(size)
    check_lapack_dtype("triangular_solve_cpu", A)
    if out is not None:
        resize_output(out, size, stride)
        if out._dtype is not A._dtype:
            # torch: the CPU kernel's data_ptr<scalar_t>() check on the out tensor.
            raise RuntimeError(
                f"expected scalar type {A._dtype.scalar_name} but found {out._dtype.scalar_name}"
            )
    check_lapack_dtype("triangular_solve_cpu", A)
    value = None
    if has_data(A):
        xp = xp_of(A)
        a = broadcast_batch(xp, array_of(A), batch)
        b = broadcast_batch(xp, xp.astype(array_of(B), array_of(A).dtype), batch)
        value = triangular_arrays(xp, a, b, upper, left, unitriangular, False)
    return emit(A, value, size, stride, A._dtype, out)


def triangular_arrays(
    xp: Any, a: Any, b: Any, upper: bool, left: bool, unitriangular: bool, transpose: bool
) -> Any:
    """X with op(A) X = B (X op(A) = B when not `left`); op(A) = A^T when `transpose`.
    A right solve is the left solve of the transposed equation, A^T X^T = B^T."""
    solve = lapack(xp, "solve_triangular")
    if left:
        return solve(a, b, upper, 1 if transpose else 0, unitriangular)
    return mT(xp, solve(a, mT(xp, b), upper, 0 if transpose else 1, unitriangular))


linalg_solve_triangular = defop(
    "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
    "bool unitriangular=False) -> Tensor"
)


@registered(linalg_solve_triangular)
def linalg_solve_triangular_kernel(
    self: TensorImpl, B: TensorImpl, *, upper: bool, left: bool, unitriangular: bool
) -> Any:
    """Torch: linalg_solve_triangular: the out= form into a new tensor of A's dtype."""
    return _solve_triangular(self, B, upper, left, unitriangular, None)


@linalg_solve_triangular.derivative("self", "B")
def linalg_solve_triangular_backward(
    grad: Tensor, self: Tensor, result: Tensor, upper: bool, left: bool, unitriangular: bool
) -> tuple[Tensor | None, Tensor | None]:
    # torch: linalg_solve_triangular_backward(grad, self, result, upper, left, unitriangular,
    #   grad_input_mask)
    return bl.linalg_solve_triangular_backward(grad, self, result, upper, left, unitriangular)


linalg_solve_triangular_out = defop(
    "linalg_solve_triangular.out(Tensor self, Tensor B, *, bool upper, bool left=True, "
    "bool unitriangular=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(linalg_solve_triangular_out)
def linalg_solve_triangular_out_kernel(
    self: TensorImpl,
    B: TensorImpl,
    *,
    upper: bool,
    left: bool,
    unitriangular: bool,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_solve_triangular_out."""
    return _solve_triangular(self, B, upper, left, unitriangular, out)


# --- triangular_solve (deprecated) ---------------------------------------------------------------


def _triangular_solve(
    self: TensorImpl,
    A: TensorImpl,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    outs: tuple[TensorImpl, TensorImpl] | None,
) -> Any:
    # torch: TORCH_META_FUNC(triangular_solve) (the deprecation warning first), then
    # triangular_solve_out.
    warn_deprecated("triangular_solve")
    if len(self._size) < 2:
        raise RuntimeError(
            "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
            f"{len(self._size)} dimensions instead"
        )
    if len(A._size) < 2:
        raise RuntimeError(
            "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
            f"{len(A._size)} dimensions instead"
        )
    linear_solve_check_inputs(self, A, "triangular_solve")
    batch = broadcast_shapes(self._size[:-2], A._size[:-2])
    b_size, a_size = (*batch, *self._size[-2:]), (*batch, *A._size[-2:])
    specs = (
        (b_size, matrix_strides(b_size), self._dtype),
        (a_size, matrix_strides(a_size), A._dtype),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(A, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("triangular_solve_cpu", self)
    values: tuple[Any, ...] = (None, None)
    if has_data(A):
        xp = xp_of(A)
        a = broadcast_batch(xp, array_of(A), batch)
        b = broadcast_batch(xp, array_of(self), batch)
        values = (triangular_arrays(xp, a, b, upper, True, unitriangular, transpose), a)
    return tuple(
        emit(A, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


triangular_solve = defop(
    "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
    "bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)"
)


@registered(triangular_solve)
def triangular_solve_kernel(
    self: TensorImpl, A: TensorImpl, upper: bool, transpose: bool, unitriangular: bool
) -> Any:
    """Torch: triangular_solve (structured): the solution and a copy of A, column-major."""
    return _triangular_solve(self, A, upper, transpose, unitriangular, None)


@triangular_solve.derivative("self", "A")
def triangular_solve_backward(
    grads: tuple[Tensor | None, ...],
    self: Tensor,
    A: Tensor,
    solution: Tensor,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
) -> tuple[Tensor | None, Tensor | None]:
    # torch: triangular_solve_backward(grads[0], grads[1], self, A, solution, upper,
    #   transpose, unitriangular, grad_input_mask)
    return bl.triangular_solve_backward(
        grads[0], grads[1], self, A, solution, upper, transpose, unitriangular
    )


triangular_solve_X = defop(
    "triangular_solve.X(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
    "bool unitriangular=False, *, Tensor(a!) X, Tensor(b!) M) -> "
    "(Tensor(a!) solution, Tensor(b!) cloned_coefficient)"
)


@registered(triangular_solve_X)
def triangular_solve_X_kernel(
    self: TensorImpl,
    A: TensorImpl,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    *,
    X: TensorImpl,
    M: TensorImpl,
) -> Any:
    """Torch: triangular_solve.X (structured)."""
    return _triangular_solve(self, A, upper, transpose, unitriangular, (X, M))


# --- linalg_ldl_factor_ex, linalg_ldl_factor, linalg_ldl_solve --------------------------------


def _ldl_factor_ex(
    self: TensorImpl,
    hermitian: bool,
    check_errors: bool,
    outs: tuple[TensorImpl, TensorImpl, TensorImpl] | None,
) -> Any:
    # torch: TORCH_META_FUNC(linalg_ldl_factor_ex), then linalg_ldl_factor_ex_out (lower).
    square_check_inputs(self, "torch.linalg.ldl_factor_ex")
    check_floating_or_complex(self, "torch.linalg.ldl_factor_ex")
    size = self._size
    specs = (
        (size, matrix_strides(size), self._dtype),
        (size[:-1], geometry.contiguous_strides(size[:-1]), int32),
        (size[:-2], geometry.contiguous_strides(size[:-2]), int32),
    )
    for i, (s, st, dt) in enumerate(specs):
        new_output(self, None if outs is None else outs[i], s, st, dt)
    check_lapack_dtype("ldl_factor_kernel_cpu", self)
    values: tuple[Any, ...] = (None, None, None)
    if has_data(self):
        xp = xp_of(self)
        values = lapack(xp, "ldl_factor")(array_of(self), hermitian)
        if check_errors:
            raise_linalg_error(infos(xp, values[2]), "torch.linalg.ldl_factor_ex", len(size) == 2)
    return tuple(
        emit(self, v, s, st, dt, None if outs is None else outs[i])
        for i, (v, (s, st, dt)) in enumerate(zip(values, specs, strict=True))
    )


linalg_ldl_factor_ex = defop(
    "linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
    "(Tensor LD, Tensor pivots, Tensor info)"
)


@registered(linalg_ldl_factor_ex)
def linalg_ldl_factor_ex_kernel(self: TensorImpl, *, hermitian: bool, check_errors: bool) -> Any:
    """Torch: linalg_ldl_factor_ex (structured): sytrf / hetrf on the lower triangle."""
    return _ldl_factor_ex(self, hermitian, check_errors, None)


linalg_ldl_factor_ex_out = defop(
    "linalg_ldl_factor_ex.out(Tensor self, *, bool hermitian=False, bool check_errors=False, "
    "Tensor(a!) LD, Tensor(b!) pivots, Tensor(c!) info) -> "
    "(Tensor(a!) LD, Tensor(b!) pivots, Tensor(c!) info)"
)


@registered(linalg_ldl_factor_ex_out)
def linalg_ldl_factor_ex_out_kernel(
    self: TensorImpl,
    *,
    hermitian: bool,
    check_errors: bool,
    LD: TensorImpl,
    pivots: TensorImpl,
    info: TensorImpl,
) -> Any:
    """Torch: linalg_ldl_factor_ex.out (structured)."""
    return _ldl_factor_ex(self, hermitian, check_errors, (LD, pivots, info))


linalg_ldl_factor = defop(
    "linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)"
)


@linalg_ldl_factor.decomposition
def linalg_ldl_factor_decomp(self: TensorImpl, *, hermitian: bool) -> Any:
    """Torch: linalg_ldl_factor: linalg_ldl_factor_ex, then the error check."""
    LD, pivots, info = aten.linalg_ldl_factor_ex.default(self, hermitian=hermitian)
    aten._linalg_check_errors.default(info, "torch.linalg.ldl_factor", is_matrix=self.dim() == 2)
    return LD, pivots


linalg_ldl_factor_out = defop(
    "linalg_ldl_factor.out(Tensor self, *, bool hermitian=False, Tensor(a!) LD, "
    "Tensor(b!) pivots) -> (Tensor(a!) LD, Tensor(b!) pivots)"
)


@linalg_ldl_factor_out.decomposition
def linalg_ldl_factor_out_decomp(
    self: TensorImpl, *, hermitian: bool, LD: TensorImpl, pivots: TensorImpl
) -> Any:
    """Torch: linalg_ldl_factor_out: linalg_ldl_factor_ex.out with a new info."""
    info = aten.new_empty.default(self, [0], dtype=int32)
    aten.linalg_ldl_factor_ex.out(self, hermitian=hermitian, LD=LD, pivots=pivots, info=info)
    aten._linalg_check_errors.default(info, "torch.linalg.ldl_factor", is_matrix=self.dim() == 2)
    return LD, pivots


def _ldl_solve(
    LD: TensorImpl, pivots: TensorImpl, B: TensorImpl, hermitian: bool, out: TensorImpl | None
) -> Any:
    # torch: TORCH_META_FUNC(linalg_ldl_solve), then linalg_ldl_solve_out.
    square_check_inputs(LD, "torch.linalg.ldl_solve")
    check_floating_or_complex(LD, "torch.linalg.ldl_solve")
    if len(B._size) < 2:
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected B to have at least 2 dimensions, but it has "
            f"{len(B._size)} dimensions instead"
        )
    linear_solve_check_inputs(B, LD, "torch.linalg.ldl_solve")
    if pivots._size != LD._size[:-1]:
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, "
            f"but got pivots with shape [{', '.join(map(str, pivots._size))}] instead"
        )
    if pivots._dtype.category is not Category.INTEGRAL:
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {pivots._dtype.scalar_name}"
        )
    batch = broadcast_shapes(B._size[:-2], LD._size[:-2])
    size = (*batch, *B._size[-2:])
    stride = matrix_strides(size)
    new_output(B, out, size, stride, B._dtype)
    check_lapack_dtype("ldl_solve_cpu", LD)
    value = None
    if has_data(B):
        xp = xp_of(B)
        ld = broadcast_batch(xp, array_of(LD), batch)
        piv = broadcast_rows(xp, xp.astype(array_of(pivots), xp.int32), batch)
        b = broadcast_batch(xp, array_of(B), batch)
        value = lapack(xp, "ldl_solve")(ld, piv, b, hermitian)
    return emit(B, value, size, stride, B._dtype, out)


linalg_ldl_solve = defop(
    "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor"
)


@registered(linalg_ldl_solve)
def linalg_ldl_solve_kernel(
    LD: TensorImpl, pivots: TensorImpl, B: TensorImpl, *, hermitian: bool
) -> Any:
    """Torch: linalg_ldl_solve (structured): sytrs / hetrs."""
    return _ldl_solve(LD, pivots, B, hermitian, None)


linalg_ldl_solve_out = defop(
    "linalg_ldl_solve.out(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(linalg_ldl_solve_out)
def linalg_ldl_solve_out_kernel(
    LD: TensorImpl, pivots: TensorImpl, B: TensorImpl, *, hermitian: bool, out: TensorImpl
) -> Any:
    """Torch: linalg_ldl_solve.out (structured)."""
    return _ldl_solve(LD, pivots, B, hermitian, out)


# --- linalg_lstsq --------------------------------------------------------------------------------

# torch: _get_epsilon by the input's real dtype (the default rcond's eps).
_EPSILON: Final = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}
_LSTSQ_DRIVERS: Final = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_driver(driver: str | None, self: TensorImpl) -> str:
    # torch: get_default_lstsq_driver: gelsy on the CPU unless named (case-insensitive).
    if driver is None:
        return "gels" if self._storage.device.type == "cuda" else "gelsy"
    name = driver.lower()
    if self._storage.device.type == "cuda":
        if name != "gels":
            raise RuntimeError(
                "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA"
            )
    elif name not in _LSTSQ_DRIVERS:
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    return name


def _lstsq(
    self: TensorImpl,
    b: TensorImpl,
    rcond: float | None,
    driver: str | None,
    outs: tuple[TensorImpl, TensorImpl, TensorImpl, TensorImpl] | None,
) -> Any:
    # torch: linalg_lstsq_out (BatchLinearAlgebra.cpp), in its order.
    if len(self._size) < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if len(b._size) < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if self._dtype is not b._dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {self._dtype.scalar_name} and other's dtype {b._dtype.scalar_name}"
        )
    dim_diff = len(self._size) - len(b._size)
    if not 0 <= dim_diff <= 1:
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    b_size = (*b._size, 1) if dim_diff else b._size
    if self._size[-2] != b_size[-2]:
        which = "other.size(-1)" if dim_diff else "other.size(-2)"
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match {which}")
    real = self._dtype.to_real() if self._dtype.is_complex else self._dtype
    if outs is not None:
        names = ("solution", "residuals", "rank", "singular_values")
        for out, name, dtype in zip(outs, names, (self._dtype, real, int64, real), strict=True):
            check_same_device("torch.linalg.lstsq", out, self, name)
            check_linalg_compatible_dtypes("torch.linalg.lstsq", out._dtype, dtype, name)
    if rcond is None:
        if real.name not in _EPSILON:
            raise RuntimeError("This function doesn't handle types other than float and double")
        rcond = _EPSILON[real.name] * max(self._size[-2], self._size[-1])
    name = _lstsq_driver(driver, self)
    check_lapack_dtype("linalg_lstsq_cpu", self)
    m, n = self._size[-2:]
    k = b_size[-1]
    batch = broadcast_shapes(self._size[:-2], b_size[:-2])
    vector = dim_diff == 1
    solution_size = (*batch, n) if vector else (*batch, n, k)
    rank_size: Shape = batch if name != "gels" else (0,)
    sv_size: Shape = (*batch, min(m, n)) if name in ("gelsd", "gelss") else (0,)
    values: list[Any] = [None, None, None, None]
    residual_size: Shape = (0,)
    full = None
    if has_data(self):
        xp = xp_of(self)
        a = broadcast_batch(xp, array_of(self), batch)
        bb = array_of(b)
        bb = bb[..., None] if vector else bb
        bb = broadcast_batch(xp, bb, batch)
        full, rank, sv = lapack(xp, "lstsq")(a, bb, rcond, name)
        solution = full[..., :n, :] if m > 0 else xp.zeros((*batch, n, k), dtype=full.dtype)
        values[0] = solution[..., 0] if vector else solution
        full_rank = name in ("gels", "gelsy") or bool(xp.all(rank == n))
        if m > n and name != "gelsy" and full_rank:
            raw = full[..., n:, :]
            squares = (
                xp.real(raw * xp.conj(raw))
                if xp.isdtype(raw.dtype, "complex floating")
                else raw * raw
            )
            residuals = xp.sum(squares, axis=-2)
            values[1] = xp.astype(residuals, real_dtype_of(xp, full.dtype))
            residual_size = tuple(values[1].shape)
        else:
            values[1] = xp.zeros((0,), dtype=real_dtype_of(xp, full.dtype))
        values[2] = rank if name != "gels" else xp.zeros((0,), dtype=xp.int64)
        values[3] = (
            sv
            if name in ("gelsd", "gelss")
            else xp.zeros((0,), dtype=real_dtype_of(xp, full.dtype))
        )
    elif m > n and name in ("gels",):
        residual_size = (*batch, k) if not vector else (*batch, 1)
    specs: list[tuple[Shape, Shape, Any]] = [
        (solution_size, _solution_strides(solution_size, m, n, vector), self._dtype),
        (residual_size, geometry.contiguous_strides(residual_size), real),
        (rank_size, geometry.contiguous_strides(rank_size), int64),
        (sv_size, geometry.contiguous_strides(sv_size), real),
    ]
    if outs is None:
        results = [emit(self, v, s, st, dt) for v, (s, st, dt) in zip(values, specs, strict=True)]
        if full is not None:
            # The solution is the first n rows of the driver's column-major buffer.
            s, st, dt = specs[0]
            storage = self._storage
            results[0] = tensor_over(
                mT(xp_of(self), full), s, st, dt, storage.device, storage.backend
            )
        return tuple(results)
    for out, value, (s, _, _) in zip(outs, values, specs, strict=True):
        resize_contiguous(out, s)
        if value is not None and has_data(out):
            xp = xp_of(out)
            emit(out, xp.astype(value, array_of(out).dtype), s, out._stride, out._dtype, out)
    return tuple(outs)


def _solution_strides(size: Shape, m: int, n: int, vector: bool) -> Shape:
    # torch: the solution is the first n rows of a column-major (max(m, n), k) buffer
    # (k = 1 and squeezed for a vector right-hand side).
    rows = max(m, n)
    if vector:
        return matrix_strides((*size, 1)[:-2] + (rows, 1))[:-1]
    return matrix_strides((*size[:-2], rows, size[-1]))


linalg_lstsq = defop(
    "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
    "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)"
)


@linalg_lstsq.kernel(CEA)
def linalg_lstsq_kernel(
    self: TensorImpl, b: TensorImpl, rcond: float | None, *, driver: str | None
) -> Any:
    """Torch: linalg_lstsq: the least-squares solution by LAPACK's driver (gelsy by default
    on the CPU), the residuals when m > n and every matrix has full rank (not for gelsy),
    the rank (not for gels), the singular values (gelsd, gelss)."""
    if not has_data(self):
        # torch: linalg_lstsq runs linalg_lstsq.out, which has no Meta kernel: a meta input
        # gets the dispatcher's error.
        empty = [aten.new_empty.default(self, [0]) for _ in range(4)]
        return aten.linalg_lstsq.out(
            self,
            b,
            rcond,
            driver=driver,
            solution=empty[0],
            residuals=empty[1],
            rank=empty[2],
            singular_values=empty[3],
        )
    return _lstsq(self, b, rcond, driver, None)


@linalg_lstsq.derivative("self", "b")
def linalg_lstsq_backward(
    grads: tuple[Tensor | None, ...], self: Tensor, b: Tensor, solution: Tensor
) -> tuple[Tensor | None, Tensor | None]:
    # torch: linalg_lstsq_backward(grads[0], grads[1], self, b, solution, grad_input_mask)
    return bl.linalg_lstsq_backward(grads[0], grads[1], self, b, solution)


non_differentiable_outputs("aten::linalg_lstsq", "rank", "singular_values")

linalg_lstsq_out = defop(
    "linalg_lstsq.out(Tensor self, Tensor b, float? rcond=None, *, str? driver=None, "
    "Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, Tensor(d!) singular_values) "
    "-> (Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, "
    "Tensor(d!) singular_values)"
)


@linalg_lstsq_out.kernel(DispatchKey.CPU)
@linalg_lstsq_out.kernel(DispatchKey.CUDA)
def linalg_lstsq_out_kernel(
    self: TensorImpl,
    b: TensorImpl,
    rcond: float | None,
    *,
    driver: str | None,
    solution: TensorImpl,
    residuals: TensorImpl,
    rank: TensorImpl,
    singular_values: TensorImpl,
) -> Any:
    """Torch: linalg_lstsq_out (CPU and CUDA kernels only, no Meta kernel)."""
    return _lstsq(self, b, rcond, driver, (solution, residuals, rank, singular_values))
