"""Reductions over dimensions: sum, nansum, mean, nanmean, prod, amax, amin, aminmax, max/min (full and .dim), argmax, argmin, any, all.

Torch: aten/src/ATen/native/ReduceOps.cpp (the structured meta functions and their CPU
kernels: sum, nansum, mean, prod, amax, amin, aminmax, max.dim, min.dim, argmax, argmin,
any, all) and TensorCompare.cpp (max/min full reductions). The rules every reduction shares (dims,
output shape, dtype and layout, out=) are in `_reduction.py`; var/std, logsumexp, the norms,
renorm, dist and count_nonzero are in `reduction_norms.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, bool_, complex32, int64, uint8
from refimpl._base.promotion import can_cast, get_default_dtype
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import (
    Plan,
    Reduction,
    accumulate_dtype,
    arg_extreme,
    cast_to,
    check_nonzero_dims,
    dtype_from_optional,
    extreme,
    finish_as,
    has_data,
    implements,
    is_float_or_complex,
    not_implemented,
    plan,
    reduction_dims,
    reduction_output,
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


sum_default = defop("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(sum_default)
def sum_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The sum of every element. Torch: sum (CompositeExplicitAutograd over sum.dim_IntList).

    Differs: the body runs directly rather than through a second dispatch of sum.dim_IntList
    (the same kernel; a redispatch below CompositeExplicitAutograd reaches nothing else).
    """
    return _sum(self, None, False, dtype, None, nan_as_zero=False)


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
    """The mean over `dim`: the sum in the result dtype, divided by the count (0/0: nan).

    Torch: the CPU kernel is `sum_out(result, self, dim, keepdim, dtype).div_(count)`, so
    float16 rounds the sum before dividing.
    """
    p = _mean_meta(self, out, dim, keepdim, dtype)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    total = xp.sum(p.read(self), axis=p.axis, keepdims=keepdim)
    total = cast_to(xp, total, p.dtype, p.backend)  # rounded to the result dtype
    return p.finish(total / xp.asarray(p.count, dtype=total.dtype), out)


mean_default = defop("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(mean_default)
def mean_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The mean of every element. Torch: mean (CompositeExplicitAutograd over mean.dim).

    Differs: runs mean.dim's body directly, as sum does (see sum_default_kernel).
    """
    return mean_dim_kernel(self, None, False, dtype=dtype)


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


prod_default = defop("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(prod_default)
def prod_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The product of every element (empty: 1). Torch: prod in ReduceOps.cpp."""
    return _prod(self, None, False, dtype, None)


prod_out = defop("prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")


@implements(prod_out)
def prod_out_kernel(self: TensorImpl, *, dtype: DType | None, out: TensorImpl) -> Any:
    """Torch: prod.out, generated from prod (the result's dtype must be out's)."""
    return same_as_out(aten.prod.default(self, dtype=dtype), out)


# --- amax, amin ----------------------------------------------------------------------------


@Reduction
def _amax_amin_meta(
    self: TensorImpl, out: TensorImpl | None, dim: list[int], keepdim: bool, largest: bool
) -> Plan:
    """Torch: TORCH_META_FUNC(amax) / amin, and the kernel's dtype switch."""
    name = "amax" if largest else "amin"
    if out is not None and out._dtype is not self._dtype:
        raise RuntimeError(
            "Expected the dtype for input and out to match, but got "
            f"{self._dtype.scalar_name} for input's dtype and {out._dtype.scalar_name} for "
            "out's dtype."
        )
    dims = reduction_dims(dim, self.ndim)
    check_nonzero_dims(self, dim, f"{name}()")
    p = plan(self, dims, keepdim, self._dtype, out)
    if has_data(self) and self._dtype.is_complex and geometry.numel(self._size):
        # torch: the kernel (and its dtype switch) runs only when there are elements.
        raise not_implemented("max_values_cpu" if largest else "min_values_cpu", self._dtype)
    return p


def _amax_amin(
    self: TensorImpl, dim: list[int], keepdim: bool, out: TensorImpl | None, largest: bool
) -> Any:
    p = _amax_amin_meta(self, out, dim, keepdim, largest)
    if p.backend is None:
        return p.finish(None, out)
    return p.finish(extreme(p.xp, array_of(self), p.axis, keepdim, largest), out)


amax = defop("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
amax_out = defop(
    "amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(amax)
@implements(amax_out)
def amax_kernel(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl | None = None
) -> Any:
    """The largest value over `dim` ([]: every dim), NaN propagating. Torch: amax_out."""
    return _amax_amin(self, dim, keepdim, out, largest=True)


amin = defop("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
amin_out = defop(
    "amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(amin)
@implements(amin_out)
def amin_kernel(
    self: TensorImpl, dim: list[int], keepdim: bool, *, out: TensorImpl | None = None
) -> Any:
    """The smallest value over `dim` ([]: every dim), NaN propagating. Torch: amin_out."""
    return _amax_amin(self, dim, keepdim, out, largest=False)


# --- aminmax -------------------------------------------------------------------------------

aminmax = defop(
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)"
)
aminmax_out = defop(
    "aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, "
    "Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)"
)


@implements(aminmax)
@implements(aminmax_out)
def aminmax_kernel(
    self: TensorImpl,
    *,
    dim: int | None,
    keepdim: bool,
    min: TensorImpl | None = None,
    max: TensorImpl | None = None,
) -> Any:
    """(amin, amax) in one pass over `dim` (None: every element).

    Torch: TORCH_META_FUNC(aminmax) and aminmax_out in ReduceOps.cpp; an empty input has no
    identity to start from.
    """
    p = _aminmax_meta(self, None if min is None and max is None else (min, max), dim, keepdim)
    if p.backend is None:
        return p.finish(None, min), p.finish(None, max)
    xp = p.xp
    a = array_of(self)
    low = p.finish(extreme(xp, a, p.axis, keepdim, False), min)
    high = p.finish(extreme(xp, a, p.axis, keepdim, True), max)
    return low, high


@Reduction
def _aminmax_meta(
    self: TensorImpl, outs: tuple[TensorImpl | None, ...] | None, dim: int | None, keepdim: bool
) -> Plan:
    """Torch: TORCH_META_FUNC(aminmax), and the kernel's dtype switch."""
    dims = reduction_dims(dim, self.ndim)
    if dim is None:
        if geometry.numel(self._size) == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
    else:
        check_nonzero_dims(self, dim, "aminmax", wrapped=True)
    low, high = outs or (None, None)
    p = plan(self, dims, keepdim, self._dtype, low)
    reduction_output(self, dims, keepdim, self._dtype, high)
    if has_data(self) and self._dtype.is_complex and geometry.numel(self._size):
        raise not_implemented("aminmax_cpu", self._dtype)
    return p


# --- max, min (full and over a dim) --------------------------------------------------------


@Reduction
def _max_min_all_meta(self: TensorImpl, out: None, largest: bool) -> Plan:
    """Torch: max / min in TensorCompare.cpp (no identity: an empty input raises)."""
    name = "max" if largest else "min"
    if geometry.numel(self._size) == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    p = plan(self, reduction_dims(None, self.ndim), False, self._dtype, None)
    if has_data(self) and self._dtype.is_complex:
        raise not_implemented(f"{name}_all", self._dtype)
    return p


def _max_min_all(self: TensorImpl, largest: bool) -> Any:
    p = _max_min_all_meta(self, None, largest)
    if p.backend is None:
        return p.finish(None, None)
    return p.finish(extreme(p.xp, array_of(self), None, False, largest), None)


max_default = defop("max(Tensor self) -> Tensor")


@implements(max_default)
def max_default_kernel(self: TensorImpl) -> Any:
    """The largest element, NaN propagating. Torch: max in TensorCompare.cpp."""
    return _max_min_all(self, largest=True)


min_default = defop("min(Tensor self) -> Tensor")


@implements(min_default)
def min_default_kernel(self: TensorImpl) -> Any:
    """The smallest element, NaN propagating. Torch: min in TensorCompare.cpp."""
    return _max_min_all(self, largest=False)


max_unary_out = defop("max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@implements(max_unary_out)
def max_unary_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: max_unary_out in TensorCompare.cpp (resize, then copy_: out's dtype may differ)."""
    return _unary_out(self, out, largest=True)


min_unary_out = defop("min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@implements(min_unary_out)
def min_unary_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: min_unary_out in TensorCompare.cpp (resize, then copy_: out's dtype may differ)."""
    return _unary_out(self, out, largest=False)


def _unary_out(self: TensorImpl, out: TensorImpl, largest: bool) -> Any:
    # torch: max_unary_out / min_unary_out check that the input's dtype casts to out's (a
    # bare TORCH_CHECK, whose message is the condition), resize out to 0-dim, then reduce.
    if not can_cast(self._dtype, out._dtype):
        raise RuntimeError(
            "Expected canCast( typeMetaToScalarType(self.dtype()), "
            "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    resize_output(out, ())
    return aten.copy_.default(out, _max_min_all(self, largest))


def _max_min_dim(
    self: TensorImpl,
    dim: int,
    keepdim: bool,
    values_out: TensorImpl | None,
    indices_out: TensorImpl | None,
    largest: bool,
) -> Any:
    """(values, indices) over one dim: NaN propagates, ties give the first index.

    Torch: TORCH_PRECOMPUTE_META_FUNC2(max, dim) in TensorCompare.cpp.
    """
    outs = None if values_out is None and indices_out is None else (values_out, indices_out)
    p = _max_min_dim_meta(self, outs, dim, keepdim, largest)
    if p.backend is None:
        return p.finish(None, values_out), finish_as(p, None, int64, indices_out)
    xp = p.xp
    a = array_of(self)
    values = extreme(xp, a, p.axis, keepdim, largest)
    indices = arg_extreme(xp, a, p.dims[0] if self._size else None, keepdim, largest)
    return p.finish(values, values_out), finish_as(p, indices, int64, indices_out)


@Reduction
def _max_min_dim_meta(
    self: TensorImpl,
    outs: tuple[TensorImpl | None, ...] | None,
    dim: int,
    keepdim: bool,
    largest: bool,
) -> Plan:
    """Torch: TORCH_PRECOMPUTE_META_FUNC2(max, dim) / min in TensorCompare.cpp."""
    name = "max" if largest else "min"
    if self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    dims = reduction_dims(dim, self.ndim)
    check_nonzero_dims(self, dim, f"{name}()", wrapped=True)
    values_out, indices_out = outs or (None, None)
    p = plan(self, dims, keepdim, self._dtype, values_out)
    reduction_output(self, dims, keepdim, int64, indices_out)
    return p


max_dim = defop(
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
)
max_dim_max = defop(
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@implements(max_dim)
@implements(max_dim_max)
def max_dim_kernel(
    self: TensorImpl,
    dim: int,
    keepdim: bool,
    *,
    max: TensorImpl | None = None,
    max_values: TensorImpl | None = None,
) -> Any:
    """(values, indices) of the largest elements over `dim`. Torch: max.dim / max.dim_max
    (whose `max_values` argument receives the indices, as torch names it)."""
    return _max_min_dim(self, dim, keepdim, max, max_values, largest=True)


min_dim = defop(
    "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
)
min_dim_min = defop(
    "min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
    "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@implements(min_dim)
@implements(min_dim_min)
def min_dim_kernel(
    self: TensorImpl,
    dim: int,
    keepdim: bool,
    *,
    min: TensorImpl | None = None,
    min_indices: TensorImpl | None = None,
) -> Any:
    """(values, indices) of the smallest elements over `dim`. Torch: min.dim / min.dim_min."""
    return _max_min_dim(self, dim, keepdim, min, min_indices, largest=False)


# --- argmax, argmin ------------------------------------------------------------------------


@Reduction
def _argmax_argmin_meta(
    self: TensorImpl, out: TensorImpl | None, dim: int | None, keepdim: bool, largest: bool
) -> Plan:
    """Torch: TORCH_META_FUNC(argmax) / argmin in ReduceOps.cpp."""
    name = "argmax" if largest else "argmin"
    if self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    if self._dtype is bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if geometry.numel(self._size) == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        dims = reduction_dims(None, self.ndim)
    else:
        dims = reduction_dims(dim, self.ndim)
        check_nonzero_dims(self, dim, f"{name}()", wrapped=True)
    return plan(self, dims, keepdim, int64, out)


def _argmax_argmin(
    self: TensorImpl, dim: int | None, keepdim: bool, out: TensorImpl | None, largest: bool
) -> Any:
    """Torch: argmax_argmin_impl in ReduceOps.cpp (the first index of the extreme)."""
    p = _argmax_argmin_meta(self, out, dim, keepdim, largest)
    if p.backend is None:
        return p.finish(None, out)
    xp = p.xp
    a = array_of(self)
    if dim is None:
        index = arg_extreme(xp, xp.reshape(a, (-1,)), 0 if a.ndim else None, False, largest)
    else:
        index = arg_extreme(xp, a, p.dims[0] if self._size else None, keepdim, largest)
    return p.finish(index, out)


argmax = defop("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
argmax_out = defop(
    "argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(argmax)
@implements(argmax_out)
def argmax_kernel(
    self: TensorImpl, dim: int | None, keepdim: bool, *, out: TensorImpl | None = None
) -> Any:
    """The first index of the largest element (over `dim`, or of the flattened input)."""
    return _argmax_argmin(self, dim, keepdim, out, largest=True)


argmin = defop("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
argmin_out = defop(
    "argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(argmin)
@implements(argmin_out)
def argmin_kernel(
    self: TensorImpl, dim: int | None, keepdim: bool, *, out: TensorImpl | None = None
) -> Any:
    """The first index of the smallest element (over `dim`, or of the flattened input)."""
    return _argmax_argmin(self, dim, keepdim, out, largest=False)


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
