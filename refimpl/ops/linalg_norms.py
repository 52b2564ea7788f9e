"""Matrix norms and condition numbers: linalg_matrix_norm, linalg_norm, linalg_cond, frobenius_norm, nuclear_norm.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (linalg_matrix_norm, linalg_norm, linalg_cond,
frobenius_norm, nuclear_norm). Every op here is CompositeImplicitAutograd in torch, so each
is a decomposition making torch's aten calls in torch's order: the vector norm
(linalg_vector_norm, in reduction_norms.py), amax/amin, and the singular values
(linalg_svdvals) or the inverse (linalg_inv_ex) of the solve and spectral modules. Their
derivatives are those of the ops they call. The products and matrix functions of
torch.linalg (multi_dot, vecdot, vander, matrix_power, matrix_exp, tensorinv, tensorsolve)
are in `_linalg_norms_products.py` and `_linalg_norms_functions.py`, imported below.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.context import should_warn_once
from refimpl._base.dtypes import DType
from refimpl._base.promotion import promote_types
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, empty_tensor
from refimpl.dispatch.overloads import namespace

# Imported for their op registrations (this module is the family's entry in refimpl.ops).
from refimpl.ops import _linalg_norms_functions, _linalg_norms_products  # noqa: F401
from refimpl.ops._linalg_checks import (
    check_floating_or_complex,
    check_is_matrix,
    check_linalg_compatible_dtypes,
    check_same_device,
    square_check_inputs,
)
from refimpl.ops._outputs import warn_resize
from refimpl.ops._register import defop

aten: Final = namespace("aten")

# The orders torch's matrix norms take, as numbers and as strings.
_NUMBER_ORDERS: Final = frozenset({1.0, 2.0, math.inf})
_STRING_ORDERS: Final = ("fro", "nuc")


def write_out(result: TensorImpl, out: TensorImpl) -> Any:
    """`result` copied into `out`, resized first (with torch's warning when it held elements).

    Torch: the tail of the hand-written out= forms of LinearAlgebra.cpp
    (`at::native::resize_output(result, tmp.sizes()); result.copy_(tmp);`).
    """
    if out._size != result._size:
        warn_resize(out, result._size)
        aten.resize_.default(out, list(result._size))
    return aten.copy_.default(out, result)


def format_double(value: float) -> str:
    """A C++ double streamed into a message (`3`, `0.5`, `inf`)."""
    return f"{value:g}"


def _warn_deprecated(name: str, replacement: str) -> None:
    # torch: TORCH_WARN_ONCE in frobenius_norm / nuclear_norm (strided CPU, CUDA, Meta inputs).
    # Differs: torch's message ends with " (Triggered internally at ...LinearAlgebra.cpp:N.)".
    if not should_warn_once(name):
        return
    warnings.warn(
        f"at::{name} is deprecated and it is just left for JIT compatibility. It will be "
        f"removed in a future PyTorch release. Please use `{replacement}` instead",
        UserWarning,
        stacklevel=5,
    )


# --- linalg_matrix_norm ----------------------------------------------------------------------


def _check_norm_dtype(dtype: DType | None, self_dtype: DType, name: str) -> None:
    """Torch: detail::check_linalg_norm_dtype in LinearAlgebra.cpp."""
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"{name}: dtype should be floating point or complex, but got {dtype.scalar_name}"
        )
    if self_dtype.is_complex != dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(
            f"{name}: dtype should be {kind} for {kind} inputs, but got {dtype.scalar_name}"
        )
    if promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{name}: the dtype of the input ({self_dtype.scalar_name}) should be convertible "
            f"without narrowing to the specified dtype ({dtype.scalar_name})"
        )


def _matrix_norm_checks(
    A: TensorImpl, dim: Sequence[int], dtype: DType | None, low_precision: bool
) -> list[int]:
    """The checks of every matrix norm; `dim` wrapped. Torch: _linalg_matrix_norm_checks."""
    check_is_matrix(A, "linalg.matrix_norm")
    check_floating_or_complex(A, "linalg.matrix_norm", allow_low_precision_dtypes=low_precision)
    if len(dim) != 2:
        # torch: a std::vector streamed into the message ("0 1 1").
        raise RuntimeError(
            "linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(str(d) for d in dim)
        )
    wrapped = [geometry.wrap_dim(d, len(A._size)) for d in dim]
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({wrapped[0]}, {wrapped[1]})"
        )
    _check_norm_dtype(dtype, A._dtype, "linalg.matrix_norm")
    return wrapped


def _backshift(dim0: int, dim1: int, ndim: int) -> list[int]:
    """The permutation moving dims `dim0`, `dim1` to the end, the others in order.

    Torch: create_dim_backshift_permutation in LinearAlgebraUtils.h.
    """
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _inverse_permutation(permutation: Sequence[int]) -> list[int]:
    """Torch: create_reverse_permutation in LinearAlgebraUtils.h."""
    inverse = [0] * len(permutation)
    for position, d in enumerate(permutation):
        inverse[d] = position
    return inverse


def _max_min(A: TensorImpl, dim: int, keepdim: bool, largest: bool) -> Any:
    """The max (`largest`) or min of `A` over `dim`; the max over an empty dim is 0 (a norm's
    least value), the min over one an error.

    Torch: linalg_matrix_norm's `max_min` (torch 2.13 returns at::zeros of the reduced shape
    for an ord > 0 reduction over an empty dim, amax/amin otherwise).
    """
    if not largest:
        return aten.amin.default(A, [dim], keepdim)
    d = geometry.wrap_dim(dim, len(A._size))
    if A._size[d] != 0:
        return aten.amax.default(A, [dim], keepdim)
    shape = list(A._size)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return aten.zeros.default(shape, dtype=A._dtype, device=A._storage.device)


def _svdvals_reduced(A: TensorImpl, dims: list[int], keepdim: bool, reduce: Any) -> Any:
    """`reduce` of the singular values of the matrices over `dims` (the 2, -2 and nuclear
    norms), with the reduced dims put back in place for keepdim. Torch: the abs_ord == 2
    and "nuc" branches of linalg_matrix_norm."""
    permutation = _backshift(dims[0], dims[1], len(A._size))
    singular_values = aten.linalg_svdvals.default(aten.permute.default(A, permutation))
    result = reduce(singular_values)
    if keepdim:
        result = aten.permute.default(
            aten.unsqueeze.default(result, -1), _inverse_permutation(permutation)
        )
    return result


def _matrix_norm_number(
    A: TensorImpl, ord: Scalar, dim: list[int], keepdim: bool, dtype: DType | None
) -> Any:
    """The matrix norm for a number `ord`: ±2 through singular values, ±1 and ±inf as the
    max/min over one dim of the 1-norms over the other.

    Torch: linalg_matrix_norm (Scalar ord) in LinearAlgebra.cpp.
    """
    if isinstance(ord, complex):
        raise RuntimeError(  # noqa: TRY004 - torch's type
            "linalg.matrix_norm: Expected a non-complex scalar as the order of norm."
        )
    order = float(ord)
    if abs(order) not in _NUMBER_ORDERS:
        raise RuntimeError(f"linalg.matrix_norm: Order {format_double(order)} not supported.")
    dims = _matrix_norm_checks(A, dim, dtype, low_precision=abs(order) != 2.0)
    largest = order > 0
    if abs(order) == 2.0:
        source = A if dtype is None else aten.to.dtype(A, dtype)
        return _svdvals_reduced(source, dims, keepdim, lambda s: _max_min(s, -1, keepdim, largest))
    # The inf norm is the 1 norm of the transposed matrix.
    if abs(order) == math.inf:
        dims = [dims[1], dims[0]]
    # After the first reduction (without keepdim) the second dim moves down by one if it came
    # after the first.
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1
    column_norms = aten.linalg_vector_norm.default(A, 1.0, [dims[0]], keepdim, dtype=dtype)
    return _max_min(column_norms, dims[1], keepdim, largest)


def _matrix_norm_string(
    A: TensorImpl, ord: str, dim: list[int], keepdim: bool, dtype: DType | None
) -> Any:
    """The Frobenius ("fro") or nuclear ("nuc") norm. Torch: linalg_matrix_norm (str ord)."""
    if ord not in _STRING_ORDERS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = _matrix_norm_checks(A, dim, dtype, low_precision=ord != "nuc")
    if ord == "fro":
        return aten.linalg_vector_norm.default(A, 2, dims, keepdim, dtype=dtype)
    source = A if dtype is None else aten.to.dtype(A, dtype)
    return _svdvals_reduced(source, dims, keepdim, lambda s: aten.sum.dim_IntList(s, [-1], keepdim))


def _checked_out(name: str, result: TensorImpl, out: TensorImpl) -> Any:
    """Torch: the out= forms of linalg_matrix_norm and linalg_norm: the functional result's
    dtype must be out's ("linalg.norm expected out tensor dtype Float but got: Double")."""
    if result._dtype is not out._dtype:
        raise RuntimeError(
            f"{name} expected out tensor dtype {result._dtype.scalar_name} but got: "
            f"{out._dtype.scalar_name}"
        )
    return write_out(result, out)


linalg_matrix_norm = defop(
    "linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor"
)


@linalg_matrix_norm.decomposition
def linalg_matrix_norm_decomposition(
    self: TensorImpl, ord: Scalar, dim: list[int], keepdim: bool, *, dtype: DType | None
) -> Any:
    """Torch: linalg_matrix_norm (Scalar ord) in LinearAlgebra.cpp."""
    return _matrix_norm_number(self, ord, list(dim), keepdim, dtype)


linalg_matrix_norm_out = defop(
    "linalg_matrix_norm.out(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_matrix_norm_out.decomposition
def linalg_matrix_norm_out_decomposition(
    self: TensorImpl,
    ord: Scalar,
    dim: list[int],
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_matrix_norm_out (Scalar ord): same device, then the functional form."""
    check_same_device("linalg.matrix_norm", self, out)
    result = aten.linalg_matrix_norm.default(self, ord, dim, keepdim, dtype=dtype)
    return _checked_out("linalg.matrix_norm", result, out)


linalg_matrix_norm_str_ord = defop(
    'linalg_matrix_norm.str_ord(Tensor self, str ord="fro", int[] dim=[-2, -1], '
    "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
)


@linalg_matrix_norm_str_ord.decomposition
def linalg_matrix_norm_str_ord_decomposition(
    self: TensorImpl, ord: str, dim: list[int], keepdim: bool, *, dtype: DType | None
) -> Any:
    """Torch: linalg_matrix_norm (string ord, "fro" or "nuc") in LinearAlgebra.cpp."""
    return _matrix_norm_string(self, ord, list(dim), keepdim, dtype)


linalg_matrix_norm_str_ord_out = defop(
    'linalg_matrix_norm.str_ord_out(Tensor self, str ord="fro", int[] dim=[-2, -1], '
    "bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_matrix_norm_str_ord_out.decomposition
def linalg_matrix_norm_str_ord_out_decomposition(
    self: TensorImpl,
    ord: str,
    dim: list[int],
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_matrix_norm_out (string ord)."""
    check_same_device("linalg.matrix_norm", self, out)
    result = aten.linalg_matrix_norm.str_ord(self, ord, dim, keepdim, dtype=dtype)
    return _checked_out("linalg.matrix_norm", result, out)


# --- linalg_norm -----------------------------------------------------------------------------


def _check_norm_dim(X: TensorImpl, dim: Sequence[int] | None, has_ord: bool) -> None:
    """Torch: the checks opening both linalg_norm overloads."""
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                f"[{', '.join(str(d) for d in dim)}]"
            )
    elif has_ord and len(X._size) not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{len(X._size)}D."
        )


linalg_norm = defop(
    "linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor"
)


@linalg_norm.decomposition
def linalg_norm_decomposition(
    self: TensorImpl,
    ord: Scalar | None,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
) -> Any:
    """A matrix norm where `ord` is given and the dims are two (`dim` of length 2, or a 2-D
    input with no `dim`); otherwise the vector norm (`ord` None: 2, which is also the
    Frobenius norm of a matrix).

    Torch: linalg_norm (Scalar ord) in LinearAlgebra.cpp.
    """
    _check_norm_dim(self, dim, ord is not None)
    is_matrix = (dim is not None and len(dim) == 2) or (dim is None and len(self._size) == 2)
    if ord is not None and is_matrix:
        dims = list(dim) if dim is not None else [0, 1]
        return aten.linalg_matrix_norm.default(self, ord, dims, keepdim, dtype=dtype)
    return aten.linalg_vector_norm.default(
        self, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype
    )


linalg_norm_out = defop(
    "linalg_norm.out(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_norm_out.decomposition
def linalg_norm_out_decomposition(
    self: TensorImpl,
    ord: Scalar | None,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_norm_out (Scalar ord)."""
    check_same_device("linalg.norm", self, out)
    result = aten.linalg_norm.default(self, ord, dim, keepdim, dtype=dtype)
    return _checked_out("linalg.norm", result, out)


linalg_norm_ord_str = defop(
    "linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor"
)


@linalg_norm_ord_str.decomposition
def linalg_norm_ord_str_decomposition(
    self: TensorImpl, ord: str, dim: list[int] | None, keepdim: bool, *, dtype: DType | None
) -> Any:
    """The Frobenius or nuclear norm: always a matrix norm (over dims 0, 1 by default).

    Torch: linalg_norm (string ord) in LinearAlgebra.cpp.
    """
    _check_norm_dim(self, dim, True)
    dims = list(dim) if dim is not None else [0, 1]
    return aten.linalg_matrix_norm.str_ord(self, ord, dims, keepdim, dtype=dtype)


linalg_norm_ord_str_out = defop(
    "linalg_norm.ord_str_out(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_norm_ord_str_out.decomposition
def linalg_norm_ord_str_out_decomposition(
    self: TensorImpl,
    ord: str,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl,
) -> Any:
    """Torch: linalg_norm_out (string ord)."""
    check_same_device("linalg.norm", self, out)
    result = aten.linalg_norm.ord_str(self, ord, dim, keepdim, dtype=dtype)
    return _checked_out("linalg.norm", result, out)


# --- frobenius_norm, nuclear_norm ------------------------------------------------------------


def _check_frobenius_dims(dim: Sequence[int]) -> None:
    # torch: frobenius_norm's check (it then computes the vector 2-norm, whatever the dims).
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")


frobenius_norm_dim = defop(
    "frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False) -> Tensor"
)


@frobenius_norm_dim.decomposition
def frobenius_norm_dim_decomposition(self: TensorImpl, dim: list[int], keepdim: bool) -> Any:
    """The 2-norm over `dim` (at most two dims). Torch: frobenius_norm (deprecated: at::norm)."""
    _warn_deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    _check_frobenius_dims(dim)
    return aten.norm.ScalarOpt_dim(self, 2.0, dim, keepdim)


frobenius_norm_out = defop(
    "frobenius_norm.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@frobenius_norm_out.decomposition
def frobenius_norm_out_decomposition(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl
) -> Any:
    """Torch: frobenius_norm_out (at::norm_out)."""
    _warn_deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    _check_frobenius_dims(dim)
    return aten.norm.out(self, 2.0, dim, keepdim, out=out)


_NUCLEAR_REPLACEMENT: Final = "linalg.matrix_norm(A, 'nuc', dim, keepdim)"

nuclear_norm = defop("nuclear_norm(Tensor self, bool keepdim=False) -> Tensor")


@nuclear_norm.decomposition
def nuclear_norm_decomposition(self: TensorImpl, keepdim: bool) -> Any:
    """The nuclear norm over the last two dims. Torch: nuclear_norm (nuclear_norm.dim with
    dims (-2, -1), called directly, not through the dispatcher)."""
    return nuclear_norm_dim_decomposition(self, [-2, -1], keepdim)


nuclear_norm_out = defop(
    "nuclear_norm.out(Tensor self, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@nuclear_norm_out.decomposition
def nuclear_norm_out_decomposition(self: TensorImpl, keepdim: bool, *, out: TensorImpl) -> Any:
    """Torch: nuclear_norm_out (linalg_matrix_norm_out with "nuc", dims (-2, -1))."""
    _warn_deprecated("nuclear_norm", _NUCLEAR_REPLACEMENT)
    return aten.linalg_matrix_norm.str_ord_out(self, "nuc", [-2, -1], keepdim, out=out)


nuclear_norm_dim = defop("nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor")


@nuclear_norm_dim.decomposition
def nuclear_norm_dim_decomposition(self: TensorImpl, dim: list[int], keepdim: bool) -> Any:
    """Torch: nuclear_norm (dims): linalg_matrix_norm with "nuc"."""
    _warn_deprecated("nuclear_norm", _NUCLEAR_REPLACEMENT)
    return aten.linalg_matrix_norm.str_ord(self, "nuc", dim, keepdim)


nuclear_norm_dim_out = defop(
    "nuclear_norm.dim_out(Tensor self, int[2] dim, bool keepdim=False, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@nuclear_norm_dim_out.decomposition
def nuclear_norm_dim_out_decomposition(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl
) -> Any:
    """Torch: nuclear_norm_out (dims)."""
    _warn_deprecated("nuclear_norm", _NUCLEAR_REPLACEMENT)
    return aten.linalg_matrix_norm.str_ord_out(self, "nuc", dim, keepdim, out=out)


# --- linalg_cond -----------------------------------------------------------------------------


def _check_cond_ord(ord: Scalar | str) -> None:
    """Torch: _linalg_cond_check_ord."""
    if isinstance(ord, str):
        if ord not in _STRING_ORDERS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord}")
        return
    if abs(_to_double(ord)) not in _NUMBER_ORDERS:
        raise RuntimeError(
            f"linalg.cond got an invalid norm type: {format_double(_to_double(ord))}"
        )


def _to_double(value: Scalar) -> float:
    """Torch: Scalar::toDouble (a complex order keeps its real part here)."""
    return float(value.real) if isinstance(value, complex) else float(value)


def _cond_empty(self: TensorImpl) -> Any:
    """Zero for each (empty) matrix of the batch, in the real dtype.

    Torch: _linalg_cond_empty_matrix (NumPy defines no condition number for 0x0 matrices).
    """
    result = empty_tensor(
        self._size[:-2], self._dtype.to_real(), self._storage.device, self._storage.backend
    )
    return aten.zero_.default(result)


def _cond_from_inverse(self: TensorImpl, ord: Scalar | str) -> Any:
    """norm(A) * norm(A^-1), the inverse of a singular matrix taken as all inf.

    Torch: _linalg_cond_helper: linalg_inv_ex, inverse.masked_fill_(info > 0, inf), the two
    matrix norms, and nan_to_num_(inf, inf, -inf) (0 * inf is inf, as in NumPy).
    """
    inverse, info = aten.linalg_inv_ex.default(self)
    info = aten.unsqueeze_.default(aten.unsqueeze_.default(info, -1), -1)
    aten.masked_fill_.Scalar(inverse, aten.gt.Scalar(info, 0), math.inf)
    if isinstance(ord, str):
        norm_self = aten.linalg_matrix_norm.str_ord(self, ord)
        norm_inverse = aten.linalg_matrix_norm.str_ord(inverse, ord)
    else:
        norm_self = aten.linalg_matrix_norm.default(self, ord)
        norm_inverse = aten.linalg_matrix_norm.default(inverse, ord)
    result = aten.mul.Tensor(norm_self, norm_inverse)
    return aten.nan_to_num_.default(result, math.inf, math.inf, -math.inf)


linalg_cond = defop("linalg_cond(Tensor self, Scalar? p=None) -> Tensor")


@linalg_cond.decomposition
def linalg_cond_decomposition(self: TensorImpl, p: Scalar | None) -> Any:
    """The condition number in the `p` norm (None: 2): s_max / s_min for ±2 (its reciprocal
    for -2), norm(A) * norm(A^-1) for ±1 and ±inf.

    Torch: linalg_cond (Scalar p) in LinearAlgebra.cpp; ±1 and ±inf need square matrices,
    and name the order in the message with std::to_string ("linalg.cond(ord=1.000000)" for
    a float order, "linalg.cond(ord=-1)" for an integer one).
    """
    if len(self._size) < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord: Scalar = 2 if p is None else p
    _check_cond_ord(ord)
    if geometry.numel(self._size) == 0:
        return _cond_empty(self)
    order = _to_double(ord)
    if abs(order) == 2.0:
        singular_values = aten.linalg_svdvals.default(self)
        s_max = aten.narrow.default(singular_values, -1, 0, 1)
        s_min = aten.narrow.default(singular_values, -1, -1, 1)
        ratio = aten.div.Tensor(s_min, s_max) if order == -2.0 else aten.div.Tensor(s_max, s_min)
        return aten.squeeze.dim(ratio, -1)
    shown = f"{order:f}" if isinstance(ord, float) else str(int(order))
    square_check_inputs(self, f"linalg.cond(ord={shown})")
    return _cond_from_inverse(self, ord)


linalg_cond_p_str = defop("linalg_cond.p_str(Tensor self, str p) -> Tensor")


@linalg_cond_p_str.decomposition
def linalg_cond_p_str_decomposition(self: TensorImpl, p: str) -> Any:
    """The condition number in the Frobenius or nuclear norm.

    Torch: linalg_cond (string p): square matrices; "nuc" from the singular values directly
    (sum(s) * sum(1 / s): matrix_norm's nuclear norm refuses infinities), "fro" through the
    inverse.
    """
    square_check_inputs(self, f"linalg.cond(ord={p})")
    _check_cond_ord(p)
    if geometry.numel(self._size) == 0:
        return _cond_empty(self)
    if p == "nuc":
        singular_values = aten.linalg_svdvals.default(self)
        # torch's compiled `s.sum(-1) * s.reciprocal().sum(-1)` evaluates the right operand
        # first (the order a dispatch mode sees).
        reciprocal_sum = aten.sum.dim_IntList(aten.reciprocal.default(singular_values), [-1])
        return aten.mul.Tensor(aten.sum.dim_IntList(singular_values, [-1]), reciprocal_sum)
    return _cond_from_inverse(self, p)


linalg_cond_out = defop(
    "linalg_cond.out(Tensor self, Scalar? p=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_cond_out.decomposition
def linalg_cond_out_decomposition(self: TensorImpl, p: Scalar | None, *, out: TensorImpl) -> Any:
    """Torch: linalg_cond_out: same device, the real dtype castable to out's, then the
    functional form."""
    check_same_device("linalg.cond", out, self)
    check_linalg_compatible_dtypes("linalg.cond", out._dtype, self._dtype.to_real())
    return write_out(aten.linalg_cond.default(self, p), out)


linalg_cond_p_str_out = defop(
    "linalg_cond.p_str_out(Tensor self, str p, *, Tensor(a!) out) -> Tensor(a!)"
)


@linalg_cond_p_str_out.decomposition
def linalg_cond_p_str_out_decomposition(self: TensorImpl, p: str, *, out: TensorImpl) -> Any:
    """Torch: linalg_cond_out (string p)."""
    check_same_device("linalg.cond", out, self)
    check_linalg_compatible_dtypes("linalg.cond", out._dtype, self._dtype.to_real())
    return write_out(aten.linalg_cond.p_str(self, p), out)
