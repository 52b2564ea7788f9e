"""What the solver and factorization kernels share: torch's LAPACK output layouts, out= handling, the backend's LAPACK routines, and LU facts (the determinant of P, unpacking pivots).

Torch: batched_matrix_contiguous_strides (LinearAlgebraUtils.h: results are C-contiguous
batches of column-major matrices, LAPACK's layout), the structured kernels' set_output /
resize_out, lu_det_P and unpack_pivots (BatchLinearAlgebra.cpp). The routines themselves
(getrf, getrs, potrf, trsm, sytrf, gels...) are not in the Array API standard: a backend
supplies them as extensions (`refimpl.core.backend.EXTENSION_NAMES`), and a backend without
them raises refimpl's "backend has no 'lu_factor'" error.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.backend import BY_NAMESPACE, extension
from refimpl.core.tensor import TensorImpl, tensor_over, write_array
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._linalg_standard import STANDARD_ROUTINES
from refimpl.ops._reduction import check_out_dtype, has_data
from refimpl.ops.scan import not_implemented

Shape = tuple[int, ...]
Array = Any

# The dtypes torch's CPU LAPACK kernels have a case for (AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES).
_LAPACK_DTYPES: Final = frozenset(("float32", "float64", "complex64", "complex128"))


def check_lapack_dtype(kernel: str, t: TensorImpl) -> None:
    """Torch: the AT_DISPATCH of a LAPACK kernel: '"lu_cpu" not implemented for 'Half''.
    Meta tensors pass: torch's meta functions do not dispatch on the dtype."""
    if has_data(t) and t._dtype.name not in _LAPACK_DTYPES:
        raise not_implemented(kernel, t._dtype)


# --- layouts and outputs ----------------------------------------------------------------------


def matrix_strides(size: Shape, column_major: bool = True) -> Shape:
    """Torch: batched_matrix_contiguous_strides(sizes, f_contig): row-major strides, with
    the last two dims column-major when `column_major` (LAPACK's layout)."""
    stride = list(geometry.contiguous_strides(size))
    if column_major and len(size) >= 2:
        stride[-1] = max(size[-2], 1)
        stride[-2] = 1
    return tuple(stride)


def prepare_out(out: TensorImpl, size: Shape, stride: Shape, dtype: DType) -> None:
    """A structured kernel's out= check: the dtype must be the result's, then `out` is
    resized (taking the result's strides) if its shape differs. Torch: resize_out."""
    check_out_dtype(out, dtype)
    resize_output(out, size, stride)


def emit(
    like: TensorImpl,
    value: Array | None,
    size: Shape,
    stride: Shape,
    dtype: DType,
    out: TensorImpl | None = None,
) -> Any:
    """The result tensor of geometry (`size`, `stride`) holding `value` (its logical values;
    None for meta): written through `out` when given, else a new tensor over `value`
    without a copy where `value` is already laid out as `stride` says."""
    if out is not None:
        if value is not None and has_data(out):
            xp = xp_of(out)
            if tuple(value.shape) != out._size:
                value = xp.reshape(value, out._size)
            write_array(out, value)
        return out
    storage = like._storage
    if value is None or storage.backend is None:
        return tensor_over(None, size, stride, dtype, storage.device, None)
    xp = storage.backend.xp
    if tuple(value.shape) != size:
        value = xp.reshape(value, size)
    if len(size) >= 2 and stride != geometry.contiguous_strides(size):
        # Column-major matrices: memory holds each matrix's transpose row by row.
        value = value.mT
    return tensor_over(value, size, stride, dtype, storage.device, storage.backend)


def new_output(
    like: TensorImpl, out: TensorImpl | None, size: Shape, stride: Shape, dtype: DType
) -> None:
    """Check and resize `out` (if given) for a result of geometry (`size`, `stride`)."""
    if out is not None:
        prepare_out(out, size, stride, dtype)


def xp_of(t: TensorImpl) -> Any:
    backend = t._storage.backend
    assert backend is not None  # callers check has_data first
    return backend.xp


# --- the backend's LAPACK -------------------------------------------------------------------


def lapack(xp: Any, name: str) -> Callable[..., Any]:
    """The backend's routine `name` (see EXTENSION_NAMES); without one, refimpl's composition
    from the standard where it has one (getrf, getrs, trsm, potrf: `_linalg_standard.py`),
    else refimpl's "backend has no" error."""
    backend = BY_NAMESPACE.get(id(xp))
    found = None if backend is None else backend.extensions.get(name)
    if found is not None:
        return found
    standard = STANDARD_ROUTINES.get(name)
    if standard is not None:
        return functools.partial(standard, xp)
    return extension(xp, name)


def lu_factor_arrays(xp: Any, a: Array) -> tuple[Array, Array, Array]:
    """getrf of each matrix: (LU, 1-based int32 pivots, int32 info)."""
    lu, pivots, info = lapack(xp, "lu_factor")(a)
    return lu, pivots, info


def infos(xp: Any, info: Array) -> list[int]:
    """The info values of a batch as Python ints, in row-major batch order."""
    return [int(v) for v in xp.reshape(info, (-1,))]


def mT(xp: Any, a: Array) -> Array:
    return a.mT


def mH(xp: Any, a: Array) -> Array:
    return xp.conj(a.mT) if is_complex(xp, a) else a.mT


def is_complex(xp: Any, a: Array) -> bool:
    """Whether an array has a complex dtype (a lookup: this runs on every solve)."""
    return bool(a.dtype == xp.complex64 or a.dtype == xp.complex128)


def broadcast_batch(xp: Any, a: Array, batch: Shape) -> Array:
    """`a` with its batch dimensions broadcast to `batch` (its last two dims kept)."""
    shape = (*batch, *a.shape[-2:])
    return a if tuple(a.shape) == shape else xp.broadcast_to(a, shape)


def broadcast_rows(xp: Any, a: Array, batch: Shape) -> Array:
    """`a` (pivots: one row per matrix) broadcast to `batch` + its last dim."""
    shape = (*batch, a.shape[-1])
    return a if tuple(a.shape) == shape else xp.broadcast_to(a, shape)


def diagonal(xp: Any, a: Array) -> Array:
    """The main diagonals of a batch of square (or rectangular) matrices, shape (..., k)."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    flat = xp.reshape(a, (*a.shape[:-2], m * n))
    index = xp.arange(k, dtype=xp.int64) * (n + 1)
    return xp.take(flat, index, axis=flat.ndim - 1)


def det_P(xp: Any, pivots: Array, dtype: Any) -> Array:
    """The determinant of the permutation of 1-based pivots, ±1 per matrix, in `dtype`.

    Torch: lu_det_P: -1 to the number of rows that were swapped."""
    k = pivots.shape[-1]
    identity = xp.arange(1, k + 1, dtype=pivots.dtype)
    swaps = xp.sum(xp.astype(pivots != identity, xp.int64), axis=-1)
    odd = (swaps % 2) == 1
    one = xp.ones(odd.shape, dtype=dtype)
    return xp.where(odd, -one, one)


def permutation_of(xp: Any, pivots: Array, m: int) -> Array:
    """The row permutation (int64, 0-based, shape batch + (m,)) the 1-based pivots apply:
    perm starts as 0..m-1 and row i swaps with row pivots[i] - 1, in order.

    Torch: unpack_pivots_cpu_kernel (BatchLinearAlgebraKernel.cpp). The swaps are
    sequential, so this loops over the k pivots (each step one batched swap)."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    perm = xp.broadcast_to(xp.arange(m, dtype=xp.int64), (*batch, m))
    piv = xp.astype(pivots, xp.int64) - 1
    positions = xp.arange(m, dtype=xp.int64)
    for i in range(k):
        j = piv[..., i : i + 1]
        at_i = perm[..., i : i + 1]
        at_j = xp.take_along_axis(perm, j, axis=-1)
        perm = xp.where(positions == i, at_j, xp.where(positions == j, at_i, perm))
    return perm


def permutation_matrix(xp: Any, perm: Array, dtype: Any) -> Array:
    """P with P[perm[j], j] = 1, so that A = P L U. Torch: lu_unpack's
    P.scatter_(-2, perm.unsqueeze(-2), 1)."""
    m = perm.shape[-1]
    rows = xp.reshape(xp.arange(m, dtype=xp.int64), (m, 1))
    return xp.astype(rows == perm[..., None, :], dtype)


def identity_like(xp: Any, shape: Shape, dtype: Any) -> Array:
    """A batch of identity matrices of `shape` (..., n, n)."""
    eye = xp.eye(shape[-1], dtype=dtype)
    return xp.broadcast_to(eye, shape) if len(shape) > 2 else eye


def real_dtype_of(xp: Any, dtype: Any) -> Any:
    """The real dtype of an array dtype (float32 for complex64)."""
    if dtype == xp.complex64:
        return xp.float32
    if dtype == xp.complex128:
        return xp.float64
    return dtype


# --- deprecation warnings -----------------------------------------------------------------------

# torch: the deprecated solvers' TORCH_WARN_ONCE messages (BatchLinearAlgebra.cpp).
DEPRECATED: Final[dict[str, str]] = {
    "cholesky": (
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
        "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
        "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs."
    ),
    "lu": (
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)"
    ),
    "lu_solve": (
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)"
    ),
    "triangular_solve": (
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\n"
        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B)."
    ),
}

# torch: TORCH_WARN_ONCE keeps one flag per call site for the whole process; these are the
# flags (by call site) of the warnings already given.
WARNED: Final[set[str]] = set()


def warn_deprecated(name: str, site: str | None = None) -> None:
    """Torch's one-time deprecation warning of torch.<name> (at call site `site`)."""
    key = site or name
    if key in WARNED:
        return
    WARNED.add(key)
    warnings.warn(DEPRECATED[name], UserWarning, stacklevel=5)
