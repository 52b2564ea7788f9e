"""The checks every torch.linalg function shares: matrix shapes, dtypes, devices, out= dtypes, and the errors LAPACK's `info` becomes.

Torch: aten/src/ATen/native/LinearAlgebraUtils.h (checkIsMatrix, squareCheckInputs,
checkInputsSolver, checkFloatingOrComplex, checkSameDevice, checkLinalgCompatibleDtype,
checkUplo, checkNotComplexTolerance, linalg_solve_is_vector_rhs, _linalg_broadcast_batch_dims)
and _linalg_check_errors in BatchLinearAlgebra.cpp. Each check raises torch's exception with
torch's message; the three linalg op modules (solve, spectral, norms) call them in torch's
order, before any write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl._base.dtypes import DType, complex64, complex128, float32, float64
from refimpl._base.promotion import can_cast
from refimpl.core.tensor import TensorImpl
from refimpl.ops.data import broadcast_shapes

Shape = tuple[int, ...]


class LinAlgError(RuntimeError):
    """The error a linear-algebra routine raises for a singular or not positive-definite
    input (or one it could not converge on).

    Torch: torch._C._LinAlgError, exposed as torch.linalg.LinAlgError (TORCH_CHECK_LINALG);
    a subclass of RuntimeError.
    """


# The dtypes LAPACK computes in: torch's linalg kernels dispatch on
# AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES, so float16 and bfloat16 have no case.
LAPACK_DTYPES: Final[frozenset[str]] = frozenset(
    d.name for d in (float32, float64, complex64, complex128)
)


# --- shapes -----------------------------------------------------------------------------------


def check_is_matrix(A: TensorImpl, f_name: str, arg_name: str = "A") -> None:
    """Torch: checkIsMatrix: "linalg.svd: The input tensor A must have at least 2 dimensions."."""
    if len(A._size) < 2:
        raise RuntimeError(
            f"{f_name}: The input tensor {arg_name} must have at least 2 dimensions."
        )


def square_check_inputs(A: TensorImpl, f_name: str, arg_name: str = "A") -> None:
    """Torch: squareCheckInputs: a matrix, then "linalg.inv: A must be batches of square
    matrices, but they are 2 by 3 matrices"."""
    check_is_matrix(A, f_name, arg_name)
    m, n = A._size[-2], A._size[-1]
    if m != n:
        raise RuntimeError(
            f"{f_name}: {arg_name} must be batches of square matrices, but they are {m} by {n} "
            "matrices"
        )


def check_inputs_solver(A: TensorImpl, B: TensorImpl, left: bool, f_name: str) -> None:
    """Torch: checkInputsSolver: A square, B a matrix, and their shared dimension equal:
    "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x3)"."""
    square_check_inputs(A, f_name, "A")
    check_solver_shapes(A._size, B._size, left, f_name)


def check_solver_shapes(a: Shape, b: Shape, left: bool, f_name: str) -> None:
    """checkInputsSolver's checks of B, by shapes (linalg.solve checks B with a vector
    right-hand side unsqueezed, as torch's meta function does), A already square."""
    if len(b) < 2:
        raise RuntimeError(f"{f_name}: The input tensor B must have at least 2 dimensions.")
    if (a[-2] != b[-2]) if left else (a[-1] != b[-1]):
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{f_name}: Incompatible shapes of A and B for the equation {equation} "
            f"({a[-2]}x{a[-1]} and {b[-2]}x{b[-1]})"
        )


def linalg_solve_is_vector_rhs(A: TensorImpl, B: TensorImpl) -> bool:
    """Whether `B` is a (batch of) vector(s) rather than matrices in A X = B.

    Torch: linalg_solve_is_vector_rhs: B is 1-D, or has A's shape without its last dim.
    """
    return len(B._size) == 1 or (len(A._size) - 1 == len(B._size) and B._size == A._size[:-1])


def linalg_batch_shape(A: TensorImpl) -> Shape:
    """The batch dimensions of a (batch of) matrices: all but the last two."""
    return A._size[:-2]


def batch_count(A: TensorImpl) -> int:
    """How many matrices `A` holds. Torch: batchCount."""
    count = 1
    for n in A._size[:-2]:
        count *= n
    return count


def broadcast_batch_shape(a: TensorImpl, b: TensorImpl) -> Shape:
    """The broadcast of the batch dimensions of two (batches of) matrices, with torch's
    error. Torch: _linalg_broadcast_batch_dims (infer_size on `sizes()[:-2]`)."""
    return broadcast_shapes(a._size[:-2], b._size[:-2])


# --- dtypes and devices ---------------------------------------------------------------------


def check_floating_or_complex(
    t: TensorImpl, f_name: str, allow_low_precision_dtypes: bool = True
) -> None:
    """Torch: checkFloatingOrComplex: "linalg.inv: Expected a floating point or complex
    tensor as input. Got Long"; float16/bfloat16 also refused unless allowed ("Low precision
    dtypes not supported. Got Half")."""
    dtype = t._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"{f_name}: Expected a floating point or complex tensor as input. Got "
            f"{dtype.scalar_name}"
        )
    if not allow_low_precision_dtypes and dtype.name not in LAPACK_DTYPES:
        raise RuntimeError(f"{f_name}: Low precision dtypes not supported. Got {dtype.scalar_name}")


def check_not_complex_tolerance(tol: TensorImpl, f_name: str, tol_name: str) -> None:
    """Torch: checkNotComplexTolerance (matrix_rank, pinv's atol/rtol)."""
    if tol._dtype.is_complex:
        raise RuntimeError(
            f"{f_name}: {tol_name} tensor of complex type is not supported. Got "
            f"{tol._dtype.scalar_name}"
        )


def check_same_device(
    fn_name: str, result: TensorImpl, input: TensorImpl, result_name: str = "result"
) -> None:
    """Torch: checkSameDevice (an out= tensor on another device than the input)."""
    if result._storage.device != input._storage.device:
        raise RuntimeError(
            f"{fn_name}: Expected {result_name} and input tensors to be on the same device, but "
            f"got {result_name} on {result._storage.device} and input on {input._storage.device}"
        )


def check_linalg_compatible_dtype(
    fn_name: str, result: TensorImpl, input: TensorImpl, result_name: str = "result"
) -> None:
    """Torch: checkLinalgCompatibleDtype(fn_name, result, input): the input's dtype must
    cast safely (c10::canCast) to the out= tensor's."""
    check_linalg_compatible_dtypes(fn_name, result._dtype, input._dtype, result_name)


def check_linalg_compatible_dtypes(
    fn_name: str, out_type: DType, result_type: DType, out_name: str = "result"
) -> None:
    """Torch: checkLinalgCompatibleDtype(fn_name, out_type, result_type, out_name)."""
    if not can_cast(result_type, out_type):
        raise RuntimeError(
            f"{fn_name}: Expected {out_name} to be safely castable from "
            f"{result_type.scalar_name} dtype, but got {out_name} with dtype "
            f"{out_type.scalar_name}"
        )


def check_uplo(uplo: str) -> None:
    """Torch: checkUplo: "Expected UPLO argument to be 'L' or 'U', but got X"."""
    if len(uplo) != 1 or uplo.upper() not in ("U", "L"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


# --- LAPACK's info ----------------------------------------------------------------------------

# The message of a positive info, by the first word found in the api name, in torch's order
# (`inv` before `solve`: cholesky_inverse is an inversion). Torch: _linalg_check_errors.
_POSITIVE_INFO: Final[tuple[tuple[str, str], ...]] = (
    (
        "inv",
        (
            ": The diagonal element {info} is zero, the inversion could not be completed because "
            "the input matrix is singular."
        ),
    ),
    ("solve", ": The solver failed because the input matrix is singular."),
    (
        "cholesky",
        (
            ": The factorization could not be completed because the input is not positive-definite "
            "(the leading minor of order {info} is not positive-definite)."
        ),
    ),
    (
        "svd",
        (
            ": The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated singular values (error code: {info})."
        ),
    ),
    (
        "eig",
        (
            ": The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated eigenvalues (error code: {info})."
        ),
    ),
    (
        "syevd",
        (
            ": The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated eigenvalues (error code: {info})."
        ),
    ),
    (
        "lstsq",
        (
            ": The least squares solution could not be computed because the input matrix does not "
            "have full rank (error code: {info})."
        ),
    ),
    (
        "lu_factor",
        (
            ": U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. "
            "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)"
        ),
    ),
)


def raise_linalg_error(infos: Sequence[int], api_name: str, is_matrix: bool) -> None:
    """Raise torch's error for the first nonzero `info` (none if all are zero).

    Torch: _linalg_check_errors(infos, api_name, is_matrix) in BatchLinearAlgebra.cpp. For a
    batch the message names the batch element (row-major index of the first failure):
    "linalg.inv: (Batch element 0): The diagonal element 2 is zero, ...". lu_factor's error
    is a plain RuntimeError, the others torch.linalg.LinAlgError.
    """
    index = next((i for i, info in enumerate(infos) if info != 0), None)
    if index is None:
        return
    info = int(infos[index])
    batch = "" if is_matrix else f": (Batch element {index})"
    if info < 0:
        if "svd" in api_name and info == -4:
            raise LinAlgError(
                f"{api_name}{batch}: The algorithm failed to converge because the input matrix "
                "contained non-finite values."
            )
        raise RuntimeError(
            f"{api_name}{batch}: Argument {-info} has illegal value. Most certainly there is a "
            "bug in the implementation calling the backend library."
        )
    for word, message in _POSITIVE_INFO:
        if word in api_name:
            error = RuntimeError if word == "lu_factor" else LinAlgError
            raise error(api_name + batch + message.format(info=info))
    raise RuntimeError(f"{api_name}: Unknown error code: {info}.")


def linear_solve_check_inputs(b: TensorImpl, A: TensorImpl, name: str) -> None:
    """The older solvers' checks (triangular_solve, cholesky_solve): same dtype, A square,
    A's size matching b's rows. Torch: linearSolveCheckInputs."""
    if b._dtype is not A._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b._dtype.scalar_name} and A of type {A._dtype.scalar_name} instead."
        )
    if A._size[-1] != A._size[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A._size[-2]} by "
            f"{A._size[-1]} matrices"
        )
    if A._size[-1] != b._size[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {A._size[-1]} by "
            f"{A._size[-1]} but each b matrix is {b._size[-2]} by {b._size[-1]}"
        )
