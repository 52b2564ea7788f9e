"""Reductions through norms and counts: logsumexp, linalg_vector_norm, norm, renorm, dist, count_nonzero.

Torch: logsumexp and renorm in aten/src/ATen/native/ReduceOps.cpp, linalg_vector_norm in
aten/src/ATen/native/LinearAlgebra.cpp, norm (the aten op, not torch.norm's Python function)
and dist in ReduceOps.cpp, count_nonzero in TensorAdvancedIndexing.cpp. The shared reduction
rules are in `_reduction.py`; var, std, var_mean and std_mean are in `reduction_moments.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, int64
from refimpl._base.promotion import get_default_dtype
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import logsumexp_backward, norm_backward, renorm_backward
from refimpl.ops._derivative import derivative
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import (
    axes,
    check_out_dtype,
    finish,
    has_data,
    implements,
    input_array,
    is_float_or_complex,
    reduced_shape,
    reduction_dims,
    reduction_output,
    same_as_out,
    to_real,
)
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")


def _count(self: TensorImpl, dims: Sequence[int]) -> int:
    """How many elements each result element reduces (1 for a 0-dim input)."""
    n = 1
    for d in dims:
        n *= self._size[d] if self._size else 1
    return n


def _format_double(value: float) -> str:
    # torch: a C++ double streamed into a message (`-1`, `0.5`, `inf`).
    return f"{value:g}"


# --- logsumexp -----------------------------------------------------------------------------

logsumexp = defop("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
logsumexp_out = defop(
    "logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(logsumexp)
@implements(logsumexp_out)
def logsumexp_kernel(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl | None = None
) -> Any:
    """log(sum(exp(x))) over `dim`, shifted by the max so it does not overflow.

    Torch: logsumexp / logsumexp_out in ReduceOps.cpp: integer inputs compute in the default
    float dtype; the max is taken as 0 where it is infinite; an out= result must be floating.
    """
    if out is not None and not out._dtype.is_floating_point:
        raise RuntimeError(
            "logsumexp(): Expected floating point type for result tensor, but got: "
            f"{out._dtype.scalar_name}"
        )
    if out is not None:
        result_dtype = out._dtype
    elif is_float_or_complex(self._dtype):
        result_dtype = self._dtype
    else:
        result_dtype = get_default_dtype()
    dims = reduction_dims(dim, self.ndim)
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(self._dtype if is_float_or_complex(self._dtype) else result_dtype)
    a = input_array(self, compute)
    axis = axes(self, dims)
    if _count(self, dims) == 0 or geometry.numel(self._size) == 0:
        shift = xp.zeros(reduced_shape(self._size, dims, True), dtype=xp.real(a).dtype)
    else:
        shift = xp.max(xp.real(a), axis=axis, keepdims=True)
        shift = xp.where(xp.isinf(shift), xp.zeros_like(shift), shift)
    # torch: `(self - maxes).exp_()`, sum_out, `log_()`, `add_(maxes)`: each step stores its
    # result in the input's dtype, so float16/bfloat16 round after every step (the sum
    # accumulates in float32 and rounds once).
    rounded = _step_rounding(self, compute)
    total = xp.sum(rounded(xp.exp(rounded(a - shift))), axis=axis, keepdims=keepdim)
    if not keepdim and self._size:
        shift = xp.reshape(shift, shape)
    return finish(self, rounded(rounded(xp.log(rounded(total))) + shift), shape, result_dtype, out)


def _step_rounding(self: TensorImpl, compute: DType) -> Any:
    """A function rounding a `compute`-dtype array to `self`'s dtype and back where `self`
    is float16/bfloat16 (computed in float32); the identity otherwise."""
    if compute is self._dtype or not self._dtype.is_floating_point:
        return lambda a: a
    backend = self._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has data
    low = self._dtype
    return lambda a: data.rounded_through(xp, a, compute, low, backend)  # type: ignore[arg-type]


@logsumexp.derivative("self")
def logsumexp_backward_self(
    grad: Tensor, self: Tensor, result: Tensor, dim: list[int], keepdim: bool
) -> Tensor:
    # torch: logsumexp_backward(grad, self, result, dim, keepdim)
    return logsumexp_backward(grad, self, result, dim, keepdim)


special_logsumexp = defop(
    "special_logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor"
)


@special_logsumexp.decomposition
def special_logsumexp_decomposition(self: TensorImpl, dim: list[int], keepdim: bool) -> Any:
    """Torch: special_logsumexp in ReduceOps.cpp (logsumexp)."""
    return aten.logsumexp.default(self, dim, keepdim)


special_logsumexp_out = defop(
    "special_logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@special_logsumexp_out.decomposition
def special_logsumexp_out_decomposition(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl
) -> Any:
    """Torch: special_logsumexp_out in ReduceOps.cpp (logsumexp_out)."""
    return aten.logsumexp.out(self, dim, keepdim, out=out)


# --- linalg_vector_norm, norm --------------------------------------------------------------


def _p_norm(xp: Any, a: Array, p: float, axis: tuple[int, ...] | None, keepdim: bool) -> Array:
    """The p-norm of `a` over `axis`: max/min of |a| for ±inf, the count of nonzeros for 0.

    Torch: the norm reduction of aten/src/ATen/native/SharedReduceOps.h (NormOps,
    NormZeroOps, NormOneOps, NormTwoOps, AbsMaxOps, AbsMinOps).
    """
    magnitude = xp.abs(a)
    if p == math.inf:
        return xp.max(magnitude, axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return xp.min(magnitude, axis=axis, keepdims=keepdim)
    if p == 0:
        nonzero = xp.astype(magnitude != 0, magnitude.dtype)
        return xp.sum(nonzero, axis=axis, keepdims=keepdim)
    if p == 1:
        return xp.sum(magnitude, axis=axis, keepdims=keepdim)
    if p == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=axis, keepdims=keepdim))
    exponent = xp.asarray(p, dtype=magnitude.dtype)
    total = xp.sum(magnitude**exponent, axis=axis, keepdims=keepdim)
    return total ** xp.asarray(1.0 / p, dtype=magnitude.dtype)


def _check_empty_norm(self: TensorImpl, p: float, dims: tuple[int, ...], specified: bool) -> None:
    # torch: linalg_vector_norm's check that a norm without identity (p < 0, inf) has data;
    # the missing space before "because" is torch's.
    if p >= 0 and p != math.inf:
        return
    if not specified:
        if geometry.numel(self._size) == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_format_double(p)} norm on an empty "
                "tensor because the operation does not have an identity"
            )
        return
    for d in dims:
        if self._size and self._size[d] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_format_double(p)} norm on the "
                f"dimension {d}because this dimension is empty and the operation does not have "
                "an identity"
            )


def _vector_norm(
    self: TensorImpl,
    p: float,
    dim: Sequence[int] | None,
    keepdim: bool,
    dtype: DType | None,
    out: TensorImpl | None,
) -> Any:
    """The norm of `self` (cast to `dtype` first, if given) over `dim`, in the real dtype."""
    dims = reduction_dims(dim, self.ndim)
    _check_empty_norm(self, p, dims, specified=dim is not None and len(dim) > 0)
    source = self._dtype if dtype is None else dtype
    result_dtype = to_real(source)
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = input_array(self, compute_dtype(source))
    return finish(self, _p_norm(xp, a, p, axes(self, dims), keepdim), shape, result_dtype, out)


def _vector_norm_dtype_error(dtype: DType) -> RuntimeError:
    # torch: checkFloatingOrComplex(self, "linalg.vector_norm") in LinearAlgebraUtils.h.
    return RuntimeError(
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
        f"{dtype.scalar_name}"
    )


linalg_vector_norm = defop(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor"
)
linalg_vector_norm_out = defop(
    "linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@implements(linalg_vector_norm)
@implements(linalg_vector_norm_out)
def linalg_vector_norm_kernel(
    self: TensorImpl,
    ord: float,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl | None = None,
) -> Any:
    """The vector `ord`-norm over `dim` (None: every element).

    Torch: TORCH_META_FUNC(linalg_vector_norm) in LinearAlgebra.cpp: the input (and `dtype`)
    must be floating or complex, a complex input wants a complex `dtype`.
    """
    if not is_float_or_complex(self._dtype):
        raise _vector_norm_dtype_error(self._dtype)
    if dtype is not None:
        if not is_float_or_complex(dtype):
            raise RuntimeError(
                "linalg.vector_norm: dtype should be floating point or complex, but got "
                f"{dtype.scalar_name}"
            )
        if self._dtype.is_complex and not dtype.is_complex:
            raise RuntimeError(
                "linalg.vector_norm: dtype should be complex for complex inputs, but got "
                f"{dtype.scalar_name}"
            )
    return _vector_norm(self, float(ord), dim, keepdim, dtype, out)


@linalg_vector_norm.derivative("self")
def linalg_vector_norm_backward(
    grad: Tensor, self: Tensor, ord: Scalar, result: Tensor, dim: list[int] | None, keepdim: bool
) -> Tensor | None:
    # torch: linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim)
    return norm_backward(grad, self, ord, result, dim or [], keepdim)


def _norm(
    self: TensorImpl,
    p: Scalar | None,
    dim: Sequence[int] | None,
    keepdim: bool,
    dtype: DType | None,
    out: TensorImpl | None,
) -> Any:
    """The aten norm ops. Torch: norm_out / TORCH_META_FUNC2(norm, ScalarOpt_dim) in
    ReduceOps.cpp (p None is 2)."""
    if not is_float_or_complex(self._dtype):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{self._dtype.scalar_name} instead."
        )
    if dtype is not None and not is_float_or_complex(dtype):
        raise RuntimeError(
            "norm(): the desired output dtype should be either floating point or complex. Got "
            f"{dtype.scalar_name} instead."
        )
    return _vector_norm(self, 2.0 if p is None else float(p), dim, keepdim, dtype, out)  # type: ignore[arg-type]  # norms take real p


def _register_norm() -> None:
    """Register the eight aten norm overloads over `_norm`."""

    def scalar_opt_dim(
        self: TensorImpl,
        p: Scalar | None,
        dim: list[int],
        keepdim: bool,
        *,
        out: TensorImpl | None = None,
    ) -> Any:
        """Torch: norm.ScalarOpt_dim / norm.out."""
        return _norm(self, p, dim, keepdim, None, out)

    def scalar_opt_dim_dtype(
        self: TensorImpl,
        p: Scalar | None,
        dim: list[int],
        keepdim: bool,
        *,
        dtype: DType,
        out: TensorImpl | None = None,
    ) -> Any:
        """Torch: norm.ScalarOpt_dim_dtype / norm.dtype_out."""
        return _norm(self, p, dim, keepdim, dtype, out)

    def scalar(self: TensorImpl, p: Scalar) -> Any:
        """Torch: norm.Scalar (every element)."""
        return _norm(self, p, None, False, None, None)

    def scalar_out(self: TensorImpl, p: Scalar, *, out: TensorImpl) -> Any:
        """Torch: norm.Scalar_out (generated from norm.Scalar)."""
        return same_as_out(aten.norm.Scalar(self, p), out)

    def scalar_opt_dtype(self: TensorImpl, p: Scalar | None, *, dtype: DType) -> Any:
        """Torch: norm.ScalarOpt_dtype (every element, in `dtype`)."""
        return _norm(self, p, None, False, dtype, None)

    def scalar_opt_dtype_out(
        self: TensorImpl, p: Scalar | None, *, dtype: DType, out: TensorImpl
    ) -> Any:
        """Torch: norm.ScalarOpt_dtype_out (generated from norm.ScalarOpt_dtype)."""
        return same_as_out(aten.norm.ScalarOpt_dtype(self, p, dtype=dtype), out)

    implements(
        defop(
            "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor"
        )
    )(scalar_opt_dim)
    implements(
        defop(
            "norm.out(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        )
    )(scalar_opt_dim)
    implements(
        defop(
            "norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, "
            "ScalarType dtype) -> Tensor"
        )
    )(scalar_opt_dim_dtype)
    implements(
        defop(
            "norm.dtype_out(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype, "
            "Tensor(a!) out) -> Tensor(a!)"
        )
    )(scalar_opt_dim_dtype)
    implements(defop("norm.Scalar(Tensor self, Scalar p=2) -> Tensor"))(scalar)
    implements(defop("norm.Scalar_out(Tensor self, Scalar p=2, *, Tensor(a!) out) -> Tensor(a!)"))(
        scalar_out
    )
    implements(
        defop("norm.ScalarOpt_dtype(Tensor self, Scalar? p, *, ScalarType dtype) -> Tensor")
    )(scalar_opt_dtype)
    implements(
        defop(
            "norm.ScalarOpt_dtype_out(Tensor self, Scalar? p, *, ScalarType dtype, Tensor(a!) out) "
            "-> Tensor(a!)"
        )
    )(scalar_opt_dtype_out)


_register_norm()


@derivative("aten::norm.Scalar", "self")
def norm_scalar_backward(grad: Tensor, self: Tensor, p: Scalar, result: Tensor) -> Tensor | None:
    # torch: norm_backward(grad, self, p, result)
    return norm_backward(grad, self, p, result)


@derivative("aten::norm.ScalarOpt_dim", "self")
def norm_dim_backward(
    grad: Tensor, self: Tensor, p: Scalar | None, result: Tensor, dim: list[int], keepdim: bool
) -> Tensor | None:
    # torch: norm_backward(grad, self, p, result, dim, keepdim)
    return norm_backward(grad, self, p, result, dim, keepdim)


@derivative("aten::norm.ScalarOpt_dtype", "self")
def norm_dtype_backward(
    grad: Tensor, self: Tensor, p: Scalar | None, result: Tensor
) -> Tensor | None:
    # torch: norm_backward(grad, self.to(grad.scalar_type()), p, result)
    return norm_backward(grad, aten.to.dtype(self, grad._dtype), p, result)


@derivative("aten::norm.ScalarOpt_dim_dtype", "self")
def norm_dim_dtype_backward(
    grad: Tensor, self: Tensor, p: Scalar | None, result: Tensor, dim: list[int], keepdim: bool
) -> Tensor | None:
    # torch: norm_backward(grad, self.to(grad.scalar_type()), p, result, dim, keepdim)
    return norm_backward(grad, aten.to.dtype(self, grad._dtype), p, result, dim, keepdim)


# --- renorm --------------------------------------------------------------------------------


def _renorm(self: TensorImpl, p: Scalar, dim: int, maxnorm: Scalar, out: TensorImpl | None) -> Any:
    """Each slice along `dim` scaled down to p-norm `maxnorm` where its norm exceeds it.

    Torch: TORCH_META_FUNC(renorm) and renorm_out in ReduceOps.cpp: the factor is
    maxnorm / (norm + 1e-7) where norm > maxnorm, else 1; norms in the accumulation dtype.
    """
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")  # noqa: TRY004 - torch's type
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")  # noqa: TRY004 - torch's type
    if maxnorm < 0:
        raise RuntimeError(
            f"renorm: expected maxnorm to be >= 0 but got {_format_double(float(maxnorm))}"
        )
    if self.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    d = geometry.wrap_dim(dim, self.ndim)
    shape = self._size
    if not is_float_or_complex(self._dtype):
        # torch: renorm's kernel computes the norms with linalg_vector_norm, which refuses.
        raise _vector_norm_dtype_error(self._dtype)
    if out is not None:
        check_out_dtype(out, self._dtype)
        resize_output(out, shape)
    if not has_data(self):
        return finish(self, None, shape, self._dtype, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = input_array(self, compute_dtype(self._dtype))
    others = tuple(i for i in range(self.ndim) if i != d)
    norms = _p_norm(xp, a, float(p), others, True)
    limit = xp.asarray(float(maxnorm), dtype=norms.dtype)
    factor = xp.where(
        norms > limit, limit / (norms + xp.asarray(1e-7, dtype=norms.dtype)), xp.ones_like(norms)
    )
    return finish(self, a * xp.astype(factor, a.dtype), shape, self._dtype, out)


renorm = defop("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor")
renorm_out = defop(
    "renorm.out(Tensor self, Scalar p, int dim, Scalar maxnorm, *, Tensor(a!) out) -> Tensor(a!)"
)
renorm_ = defop("renorm_(Tensor(a!) self, Scalar p, int dim, Scalar maxnorm) -> Tensor(a!)")


@implements(renorm)
@implements(renorm_out)
def renorm_kernel(
    self: TensorImpl, p: Scalar, dim: int, maxnorm: Scalar, *, out: TensorImpl | None = None
) -> Any:
    """Torch: renorm / renorm.out."""
    return _renorm(self, p, dim, maxnorm, out)


@implements(renorm_)
def renorm__kernel(self: TensorImpl, p: Scalar, dim: int, maxnorm: Scalar) -> Any:
    """Torch: renorm_ (the structured in-place form: `self` is the output)."""
    return _renorm(self, p, dim, maxnorm, self)


@renorm.derivative("self")
def renorm_backward_self(
    grad: Tensor, self: Tensor, p: Scalar, dim: int, maxnorm: Scalar
) -> Tensor:
    # torch: renorm_backward(grad, self, p, dim, maxnorm)
    return renorm_backward(grad, self, p, dim, maxnorm)


# --- dist ----------------------------------------------------------------------------------

dist = defop("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor")


@implements(dist)
def dist_kernel(self: TensorImpl, other: TensorImpl, p: Scalar) -> Any:
    """The p-norm of self - other. Torch: dist in ReduceOps.cpp (at::norm(self - other, p))."""
    return aten.norm.Scalar(aten.sub.Tensor(self, other), p)


dist_out = defop("dist.out(Tensor self, Tensor other, Scalar p=2, *, Tensor(a!) out) -> Tensor(a!)")


@implements(dist_out)
def dist_out_kernel(self: TensorImpl, other: TensorImpl, p: Scalar, *, out: TensorImpl) -> Any:
    """Torch: dist.out, generated from dist (the result's dtype must be out's)."""
    return same_as_out(aten.dist.default(self, other, p), out)


@dist.derivative("self")
def dist_backward_self(
    grad: Tensor, self: Tensor, other: Tensor, p: Scalar, result: Tensor
) -> Tensor | None:
    # torch: norm_backward(grad, self - other, p, result)
    return norm_backward(grad, aten.sub.Tensor(self, other), p, result)


@dist.derivative("other")
def dist_backward_other(
    grad: Tensor, self: Tensor, other: Tensor, p: Scalar, result: Tensor
) -> Tensor | None:
    # torch: -norm_backward(grad, self - other, p, result)
    gradient = norm_backward(grad, aten.sub.Tensor(self, other), p, result)
    return None if gradient is None else aten.neg.default(gradient)


# --- count_nonzero -------------------------------------------------------------------------

count_nonzero_dims = defop("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor")


@implements(count_nonzero_dims)
def count_nonzero_dims_kernel(self: TensorImpl, dim: list[int]) -> Any:
    """The number of nonzero elements over `dim` ([]: every dim), as int64.

    Torch: count_nonzero_cpu in TensorAdvancedIndexing.cpp.
    """
    dims = reduction_dims(dim, self.ndim)
    shape = reduction_output(self, dims, False, int64, None)
    if not has_data(self):
        return finish(self, None, shape, int64, None)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = input_array(self, self._dtype)
    nonzero = a if a.dtype == xp.bool else a != xp.zeros((), dtype=a.dtype)
    counts = xp.sum(xp.astype(nonzero, xp.int64), axis=axes(self, dims))
    return finish(self, counts, shape, int64, None)


count_nonzero = defop("count_nonzero(Tensor self, int? dim=None) -> Tensor")


@implements(count_nonzero)
def count_nonzero_kernel(self: TensorImpl, dim: int | None) -> Any:
    """Torch: count_nonzero (CompositeExplicitAutograd over count_nonzero.dim_IntList)."""
    return aten.count_nonzero.dim_IntList(self, [] if dim is None else [dim])


count_nonzero_dims_out = defop(
    "count_nonzero.dim_IntList_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(count_nonzero_dims_out)
def count_nonzero_dims_out_kernel(self: TensorImpl, dim: list[int], *, out: TensorImpl) -> Any:
    """Torch: the out= form generated for count_nonzero.dim_IntList (out must be int64)."""
    return same_as_out(aten.count_nonzero.dim_IntList(self, dim), out)


count_nonzero_out = defop(
    "count_nonzero.out(Tensor self, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(count_nonzero_out)
def count_nonzero_out_kernel(self: TensorImpl, dim: int | None, *, out: TensorImpl) -> Any:
    """Torch: the out= form generated for count_nonzero (out must be int64)."""
    return same_as_out(aten.count_nonzero.default(self, dim), out)
