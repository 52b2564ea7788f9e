"""Reductions over dimensions: sum, nansum, mean, nanmean, prod, any, all.

Torch: aten/src/ATen/native/ReduceOps.cpp (the structured meta functions and their CPU
kernels: sum, nansum, mean, prod, any, all). The rules every reduction shares (dims, output
shape, dtype and layout, out=) are in `_reduction.py`; amax, amin, aminmax, max/min and
argmax/argmin are in `reduction_extremes.py`; var/std in `reduction_moments.py`; logsumexp,
the norms, renorm, dist and count_nonzero in `reduction_norms.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, bool_, complex32, uint8
from refimpl._base.promotion import get_default_dtype
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor, sum_backward
from refimpl.ops._backward_reduction import (
    mean_backward,
    nansum_backward,
    prod_backward,
    prod_dim_backward,
)
from refimpl.ops._reduction import (
    Plan,
    Reduction,
    accumulate_dtype,
    dtype_from_optional,
    has_data,
    implements,
    is_float_or_complex,
    not_implemented,
    plan,
    reduction_dims,
    same_as_out,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")
Dims = int | Sequence[int] | None


# --- sum, nansum ---------------------------------------------------------------------------

sum_dim = defop(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor"
)
sum_dim_out = defop(
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@Reduction
def _sum_meta(
    self: TensorImpl, out: TensorImpl | None, dim: Dims, keepdim: bool, dtype: DType | None
) -> Plan:
    """Torch: TORCH_META_FUNC2(sum, dim_IntList) (the result dtype: ints give int64), and the
    CPU kernel's dtype switch."""
    result_dtype = dtype_from_optional(self, dtype, out)
    dims = reduction_dims(dim, self.ndim)
    p = plan(self, dims, keepdim, result_dtype, out, accumulate_dtype(result_dtype))
    if has_data(self) and result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("sum_cpu", result_dtype)
    return p


def _sum(
    self: TensorImpl,
    dim: Dims,
    keepdim: bool,
    dtype: DType | None,
    out: TensorImpl | None,
    nan_as_zero: bool,
) -> Any:
    """Sum (`nan_as_zero`: nansum) over `dim`. Torch: sum_out / nansum_out (ReduceOps.cpp): the
    input is read in the accumulation dtype (float16: float32), then rounded once."""
    p = _sum_meta(self, out, dim, keepdim, dtype)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    a = p.read(self)
    if nan_as_zero and p.compute.is_floating_point:
        a = xp.where(xp.isnan(a), xp.zeros_like(a), a)
    return p.finish(xp.sum(a, axis=p.axis, dtype=a.dtype, keepdims=keepdim), out)


@implements(sum_dim)
@implements(sum_dim_out)
def sum_dim_kernel(
    self: TensorImpl,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl | None = None,
) -> Any:
    """The sum over `dim` (None or []: every dim). Torch: sum.dim_IntList / sum.IntList_out."""
    return _sum(self, dim, keepdim, dtype, out, nan_as_zero=False)


@sum_dim.derivative("self")
def sum_dim_backward(
    grad: Tensor, self_sym_sizes: Sequence[int], dim: list[int] | None, keepdim: bool
) -> Tensor:
    # torch: sum_backward(grad, self.sym_sizes(), dim, keepdim)
    return sum_backward(grad, self_sym_sizes, dim, keepdim)


sum_default = defop("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(sum_default)
def sum_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The sum of every element. Torch: sum (CompositeExplicitAutograd over sum.dim_IntList).

    Differs: the body runs directly rather than through a second dispatch of sum.dim_IntList
    (the same kernel; a redispatch below CompositeExplicitAutograd reaches nothing else).
    """
    return _sum(self, None, False, dtype, None, nan_as_zero=False)


@sum_default.derivative("self")
def sum_default_backward(grad: Tensor, self_sym_sizes: Sequence[int]) -> Tensor:
    # torch: grad.expand_symint(self.sym_sizes())
    return aten.expand.default(grad, list(self_sym_sizes))


sum_out = defop("sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")


@implements(sum_out)
def sum_out_kernel(self: TensorImpl, *, dtype: DType | None, out: TensorImpl) -> Any:
    """Torch: sum.out, generated from sum (the result's dtype must be out's)."""
    return same_as_out(aten.sum.default(self, dtype=dtype), out)


nansum = defop(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
)
nansum_out = defop(
    "nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@implements(nansum)
@implements(nansum_out)
def nansum_kernel(
    self: TensorImpl,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl | None = None,
) -> Any:
    """The sum with NaNs counted as zero. Torch: nansum_out in ReduceOps.cpp."""
    if self._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return _sum(self, dim, keepdim, dtype, out, nan_as_zero=True)


@nansum.derivative("self")
def nansum_backward_self(
    grad: Tensor, self: Tensor, dim: list[int] | None, keepdim: bool
) -> Tensor:
    # torch: nansum_backward(grad.to(self.scalar_type()), self, dim, keepdim)
    return nansum_backward(aten.to.dtype(grad, self._dtype), self, dim, keepdim)


# --- mean, nanmean -------------------------------------------------------------------------

mean_dim = defop(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
)
mean_out = defop(
    "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@Reduction
def _mean_meta(
    self: TensorImpl, out: TensorImpl | None, dim: Dims, keepdim: bool, dtype: DType | None
) -> Plan:
    """Torch: TORCH_META_FUNC2(mean, dim) (the dtype must be floating point or complex)."""
    in_dtype = self._dtype if dtype is None else dtype
    if not is_float_or_complex(in_dtype):
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            "mean(): could not infer output dtype. "
            f"{which} dtype must be either a floating point or complex dtype. "
            f"Got: {in_dtype.scalar_name}"
        )
    result_dtype = dtype_from_optional(self, dtype, out)
    dims = reduction_dims(dim, self.ndim)
    p = plan(self, dims, keepdim, result_dtype, out, accumulate_dtype(result_dtype))
    if not is_float_or_complex(result_dtype):
        # torch: the kernel's `result.div_(count)` into an integer out= refuses the float.
        raise RuntimeError(
            f"result type {get_default_dtype().scalar_name} can't be cast to the desired "
            f"output type {result_dtype.scalar_name}"
        )
    if has_data(self) and result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("sum_cpu", result_dtype)
    return p


@implements(mean_dim)
@implements(mean_out)
def mean_dim_kernel(
    self: TensorImpl,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl | None = None,
) -> Any:
    """The mean over `dim`: the sum divided by the count (0/0: nan), in the accumulation
    dtype, rounded to the result dtype once.

    Torch: mean_out's CPU path is `sum_out(result, self, dim, keepdim, dtype).div_(count)`,
    with float16 and bfloat16 summed and divided in float32 and cast at the end (measured on
    torch 2.13: the mean of three float16 6.3047 is 6.3047, not the 6.3008 a float16 sum
    divided in float16 gives).
    """
    p = _mean_meta(self, out, dim, keepdim, dtype)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    total = xp.sum(p.read(self), axis=p.axis, keepdims=keepdim)
    return p.finish(total / xp.asarray(p.count, dtype=total.dtype), out)


@mean_dim.derivative("self")
def mean_dim_backward(
    grad: Tensor,
    self_sym_sizes: Sequence[int],
    dim: list[int] | None,
    self_sym_numel: int,
    keepdim: bool,
) -> Tensor:
    # torch: mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)
    return mean_backward(grad, self_sym_sizes, dim, self_sym_numel, keepdim)


mean_default = defop("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(mean_default)
def mean_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The mean of every element. Torch: mean (CompositeExplicitAutograd over mean.dim).

    Differs: runs mean.dim's body directly, as sum does (see sum_default_kernel).
    """
    return mean_dim_kernel(self, None, False, dtype=dtype)


@mean_default.derivative("self")
def mean_default_backward(
    grad: Tensor, self_sym_sizes: Sequence[int], self_sym_numel: int
) -> Tensor:
    # torch: grad.expand_symint(self.sym_sizes()) / self.sym_numel()
    return aten.div.Scalar(aten.expand.default(grad, list(self_sym_sizes)), self_sym_numel)


mean_dtype_out = defop(
    "mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@implements(mean_dtype_out)
def mean_dtype_out_kernel(self: TensorImpl, *, dtype: DType | None, out: TensorImpl) -> Any:
    """Torch: mean.dtype_out, generated from mean (the result's dtype must be out's)."""
    return same_as_out(aten.mean.default(self, dtype=dtype), out)


nanmean = defop(
    "nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor"
)
nanmean_out = defop(
    "nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _check_nanmean(self: TensorImpl) -> None:
    if not is_float_or_complex(self._dtype):
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{self._dtype.scalar_name}"
        )


@nanmean.decomposition
def nanmean_decomposition(
    self: TensorImpl, dim: list[int] | None, keepdim: bool, *, dtype: DType | None
) -> Any:
    """The mean of the non-NaN elements. Torch: nanmean in ReduceOps.cpp (nansum divided by
    the count of non-NaN elements)."""
    _check_nanmean(self)
    factor = aten.sum.dim_IntList(aten.logical_not.default(aten.isnan.default(self)), dim, keepdim)
    return aten.div.Tensor(aten.nansum.default(self, dim, keepdim, dtype=dtype), factor)


@nanmean_out.decomposition
def nanmean_out_decomposition(
    self: TensorImpl,
    dim: list[int] | None,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl,
) -> Any:
    """Torch: nanmean_out in ReduceOps.cpp (nansum_out, then div_ by the count)."""
    _check_nanmean(self)
    factor = aten.sum.dim_IntList(aten.logical_not.default(aten.isnan.default(self)), dim, keepdim)
    aten.nansum.out(self, dim, keepdim, dtype=dtype, out=out)
    return aten.div_.Tensor(out, factor)


# --- prod ----------------------------------------------------------------------------------

prod_dim = defop(
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
)
prod_int_out = defop(
    "prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@Reduction
def _prod_meta(
    self: TensorImpl, out: TensorImpl | None, dim: int | None, keepdim: bool, dtype: DType | None
) -> Plan:
    """Torch: TORCH_META_FUNC2(prod, dim_int) (ints give int64), and the kernel's switch."""
    dims = reduction_dims(dim, self.ndim)
    result_dtype = dtype_from_optional(self, dtype, out)
    p = plan(self, dims, keepdim, result_dtype, out, accumulate_dtype(result_dtype))
    if has_data(self) and result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("prod_out_cpu", result_dtype)
    return p


def _prod(
    self: TensorImpl, dim: int | None, keepdim: bool, dtype: DType | None, out: TensorImpl | None
) -> Any:
    p = _prod_meta(self, out, dim, keepdim, dtype)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    a = p.read(self)
    if a.dtype == xp.bool:
        values = xp.all(a, axis=p.axis, keepdims=keepdim)
    else:
        values = xp.prod(a, axis=p.axis, dtype=a.dtype, keepdims=keepdim)
    return p.finish(values, out)


@implements(prod_dim)
@implements(prod_int_out)
def prod_dim_kernel(
    self: TensorImpl,
    dim: int,
    keepdim: bool,
    *,
    dtype: DType | None,
    out: TensorImpl | None = None,
) -> Any:
    """The product over one dim (integers: int64, wrapping). Torch: prod.int_out in
    ReduceOps.cpp (TORCH_META_FUNC2(prod, dim_int))."""
    return _prod(self, dim, keepdim, dtype, out)


@prod_dim.derivative("self")
def prod_dim_backward_self(
    grad: Tensor, self: Tensor, result: Tensor, dim: int, keepdim: bool
) -> Tensor:
    # torch: prod_backward(grad, self.to(grad.scalar_type()), result, dim, keepdim)
    return prod_dim_backward(grad, aten.to.dtype(self, grad._dtype), result, dim, keepdim)


prod_default = defop("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(prod_default)
def prod_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The product of every element (empty: 1). Torch: prod in ReduceOps.cpp."""
    return _prod(self, None, False, dtype, None)


@prod_default.derivative("self")
def prod_default_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: prod_backward(grad, self.to(grad.scalar_type()), result)
    return prod_backward(grad, aten.to.dtype(self, grad._dtype), result)


prod_out = defop("prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")


@implements(prod_out)
def prod_out_kernel(self: TensorImpl, *, dtype: DType | None, out: TensorImpl) -> Any:
    """Torch: prod.out, generated from prod (the result's dtype must be out's)."""
    return same_as_out(aten.prod.default(self, dtype=dtype), out)


# --- any, all ------------------------------------------------------------------------------


@Reduction
def _any_all_meta(
    self: TensorImpl,
    out: TensorImpl | None,
    dim: int | list[int] | None,
    keepdim: bool,
    is_any: bool,
) -> Plan:
    """Torch: allany_meta in ReduceOps.cpp: the result is bool (uint8 for uint8 inputs);
    `out` may be bool or uint8. None reduces every dim, [] none (any.dims / all.dims)."""
    name = "any" if is_any else "all"
    result_dtype = uint8 if self._dtype is uint8 else bool_
    if out is not None:
        if out._dtype is not bool_ and out._dtype is not uint8:
            raise RuntimeError(
                f"{name} only supports bool tensor for result, got: {out._dtype.scalar_name}"
            )
        result_dtype = out._dtype
    dims = () if isinstance(dim, Sequence) and not dim else reduction_dims(dim, self.ndim)
    # torch: a uint8 result makes the iterator's common dtype uint8: the input is converted
    # first (0.5 becomes 0, 256 becomes 0), then tested.
    compute = uint8 if result_dtype is uint8 else self._dtype
    return plan(self, dims, keepdim, result_dtype, out, compute)


def _any_all(
    self: TensorImpl,
    dim: int | list[int] | None,
    keepdim: bool,
    out: TensorImpl | None,
    is_any: bool,
) -> Any:
    """Whether any (all) elements over `dim` are nonzero; uint8 inputs give uint8."""
    p = _any_all_meta(self, out, dim, keepdim, is_any)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    a = p.read(self)
    nonzero = a if a.dtype == xp.bool else a != xp.zeros((), dtype=a.dtype)
    if not p.dims and self._size:
        values = nonzero  # an empty dim list reduces nothing
    else:
        values = (xp.any if is_any else xp.all)(nonzero, axis=p.axis, keepdims=keepdim)
    return p.finish(values, out)


def _register_any_all(name: str, is_any: bool) -> None:
    """Register any's (all's) six overloads, one body per argument form."""

    def reduce_all(self: TensorImpl, *, out: TensorImpl | None = None) -> Any:
        """Whether any (all) elements are nonzero. Torch: any / all (and .all_out)."""
        return _any_all(self, None, False, out, is_any)

    def reduce_dim(
        self: TensorImpl, dim: int, keepdim: bool, *, out: TensorImpl | None = None
    ) -> Any:
        """Over one dim. Torch: any.dim / all.dim (and .out)."""
        return _any_all(self, dim, keepdim, out, is_any)

    def reduce_dims(
        self: TensorImpl, dim: list[int] | None, keepdim: bool, *, out: TensorImpl | None = None
    ) -> Any:
        """Over dims (None: all; []: none). Torch: any.dims / all.dims (and .dims_out)."""
        return _any_all(self, dim, keepdim, out, is_any)

    implements(defop(f"{name}(Tensor self) -> Tensor"))(reduce_all)
    implements(defop(f"{name}.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"))(reduce_all)
    implements(defop(f"{name}.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"))(reduce_dim)
    implements(
        defop(
            f"{name}.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
        )
    )(reduce_dim)
    implements(defop(f"{name}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"))(
        reduce_dims
    )
    implements(
        defop(
            f"{name}.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        )
    )(reduce_dims)


_register_any_all("any", is_any=True)
_register_any_all("all", is_any=False)
