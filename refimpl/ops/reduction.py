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
    accumulate_dtype,
    axes,
    check_nonzero_dims,
    dtype_from_optional,
    finish,
    has_data,
    implements,
    input_array,
    not_implemented,
    reduction_dims,
    reduction_output,
    same_as_out,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")
Dims = int | Sequence[int] | None


def _is_float_or_complex(dtype: DType) -> bool:
    return dtype.is_floating_point or dtype.is_complex


# --- sum, nansum ---------------------------------------------------------------------------

sum_dim = defop(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor"
)
sum_dim_out = defop(
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _sum(
    self: TensorImpl,
    dim: Dims,
    keepdim: bool,
    dtype: DType | None,
    out: TensorImpl | None,
    nan_as_zero: bool,
) -> Any:
    """Sum (`nan_as_zero`: nansum) over `dim`, in torch's result dtype (ints: int64).

    Torch: sum_out / nansum_out (ReduceOps.cpp): the input is cast to the result dtype
    first; float16/bfloat16 accumulate in float32 and round once (see accumulate_dtype).
    """
    result_dtype = dtype_from_optional(self, dtype, out)
    dims = reduction_dims(dim, self.ndim)
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    if result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("sum_cpu", result_dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = input_array(self, accumulate_dtype(result_dtype))
    if nan_as_zero and accumulate_dtype(result_dtype).is_floating_point:
        a = xp.where(xp.isnan(a), xp.zeros_like(a), a)
    values = xp.sum(a, axis=axes(self, dims), dtype=a.dtype, keepdims=keepdim)
    return finish(self, values, shape, result_dtype, out)


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

    Torch: TORCH_META_FUNC2(mean, dim) checks the dtype; the CPU kernel is
    `sum_out(result, self, dim, keepdim, dtype).div_(count)`, so float16 rounds the sum
    before dividing.
    """
    in_dtype = self._dtype if dtype is None else dtype
    if not _is_float_or_complex(in_dtype):
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            "mean(): could not infer output dtype. "
            f"{which} dtype must be either a floating point or complex dtype. "
            f"Got: {in_dtype.scalar_name}"
        )
    result_dtype = dtype_from_optional(self, dtype, out)
    dims = reduction_dims(dim, self.ndim)
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not _is_float_or_complex(result_dtype):
        # torch: the kernel's `result.div_(count)` into an integer out= refuses the float.
        raise RuntimeError(
            f"result type {get_default_dtype().scalar_name} can't be cast to the desired "
            f"output type {result_dtype.scalar_name}"
        )
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    if result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("sum_cpu", result_dtype)
    backend = self._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    total = xp.sum(
        input_array(self, accumulate_dtype(result_dtype)), axis=axes(self, dims), keepdims=keepdim
    )
    count = 1
    for d in dims:
        count *= self._size[d]
    total = finish(self, total, shape, result_dtype, None)  # rounded to the result dtype
    values = array_of(total) / xp.asarray(count, dtype=array_of(total).dtype)
    return finish(self, values, shape, result_dtype, out)


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
    if not _is_float_or_complex(self._dtype):
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


def _prod(
    self: TensorImpl,
    dims: tuple[int, ...],
    keepdim: bool,
    result_dtype: DType,
    out: TensorImpl | None,
) -> Any:
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    if result_dtype is complex32 and geometry.numel(self._size):
        raise not_implemented("prod_out_cpu", result_dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = input_array(self, accumulate_dtype(result_dtype))
    if a.dtype == xp.bool:
        values = xp.all(a, axis=axes(self, dims), keepdims=keepdim)
    else:
        values = xp.prod(a, axis=axes(self, dims), dtype=a.dtype, keepdims=keepdim)
    return finish(self, values, shape, result_dtype, out)


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
    dims = reduction_dims(dim, self.ndim)
    return _prod(self, dims, keepdim, dtype_from_optional(self, dtype, out), out)


prod_default = defop("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")


@implements(prod_default)
def prod_default_kernel(self: TensorImpl, *, dtype: DType | None) -> Any:
    """The product of every element (empty: 1). Torch: prod in ReduceOps.cpp."""
    return _prod(
        self, reduction_dims(None, self.ndim), False, dtype_from_optional(self, dtype, None), None
    )


prod_out = defop("prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")


@implements(prod_out)
def prod_out_kernel(self: TensorImpl, *, dtype: DType | None, out: TensorImpl) -> Any:
    """Torch: prod.out, generated from prod (the result's dtype must be out's)."""
    return same_as_out(aten.prod.default(self, dtype=dtype), out)


# --- amax, amin ----------------------------------------------------------------------------


def _extreme(xp: Any, a: Any, axis: tuple[int, ...] | None, keepdim: bool, largest: bool) -> Any:
    """max/min of `a` over `axis`, NaN propagating; bool as any/all (the standard's max and
    min take numeric arrays only)."""
    if a.dtype == xp.bool:
        return (xp.any if largest else xp.all)(a, axis=axis, keepdims=keepdim)
    return (xp.max if largest else xp.min)(a, axis=axis, keepdims=keepdim)


def _amax_amin(
    self: TensorImpl, dim: list[int], keepdim: bool, out: TensorImpl | None, largest: bool
) -> Any:
    name = "amax" if largest else "amin"
    if out is not None and out._dtype is not self._dtype:
        raise RuntimeError(
            "Expected the dtype for input and out to match, but got "
            f"{self._dtype.scalar_name} for input's dtype and {out._dtype.scalar_name} for "
            "out's dtype."
        )
    dims = reduction_dims(dim, self.ndim)
    check_nonzero_dims(self, dim, f"{name}()")
    shape = reduction_output(self, dims, keepdim, self._dtype, out)
    if not has_data(self):
        return finish(self, None, shape, self._dtype, out)
    if self._dtype.is_complex and geometry.numel(self._size):
        # torch: the kernel (and its dtype switch) runs only when there are elements.
        raise not_implemented("max_values_cpu" if largest else "min_values_cpu", self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    values = _extreme(xp, array_of(self), axes(self, dims), keepdim, largest)
    return finish(self, values, shape, self._dtype, out)


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
    dims = reduction_dims(dim, self.ndim)
    if dim is None:
        if geometry.numel(self._size) == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
    else:
        check_nonzero_dims(self, dim, "aminmax", wrapped=True)
    shape = reduction_output(self, dims, keepdim, self._dtype, min)
    reduction_output(self, dims, keepdim, self._dtype, max)
    if not has_data(self):
        return (
            finish(self, None, shape, self._dtype, min),
            finish(self, None, shape, self._dtype, max),
        )
    if self._dtype.is_complex and geometry.numel(self._size):
        raise not_implemented("aminmax_cpu", self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = array_of(self)
    axis = axes(self, dims)
    low = finish(self, _extreme(xp, a, axis, keepdim, False), shape, self._dtype, min)
    high = finish(self, _extreme(xp, a, axis, keepdim, True), shape, self._dtype, max)
    return low, high


# --- max, min (full and over a dim) --------------------------------------------------------


def _max_min_all(self: TensorImpl, largest: bool) -> Any:
    name = "max" if largest else "min"
    if geometry.numel(self._size) == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    if not has_data(self):
        return finish(self, None, (), self._dtype, None)
    if self._dtype.is_complex:
        raise not_implemented(f"{name}_all", self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    return finish(self, _extreme(xp, array_of(self), None, False, largest), (), self._dtype, None)


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
    name = "max" if largest else "min"
    if self._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    dims = reduction_dims(dim, self.ndim)
    check_nonzero_dims(self, dim, f"{name}()", wrapped=True)
    shape = reduction_output(self, dims, keepdim, self._dtype, values_out)
    reduction_output(self, dims, keepdim, int64, indices_out)
    if not has_data(self):
        return (
            finish(self, None, shape, self._dtype, values_out),
            finish(self, None, shape, int64, indices_out),
        )
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = array_of(self)
    values = _extreme(xp, a, axes(self, dims), keepdim, largest)
    indices = _arg_extreme(xp, a, dims[0] if self._size else None, keepdim, largest)
    return (
        finish(self, values, shape, self._dtype, values_out),
        finish(self, indices, shape, int64, indices_out),
    )


def _arg_extreme(xp: Any, a: Any, axis: int | None, keepdim: bool, largest: bool) -> Any:
    """The first index of the max (min), NaN counting as the largest; bool through uint8."""
    if a.dtype == xp.bool:
        a = xp.astype(a, xp.uint8)
    if axis is None and a.ndim == 0:
        return xp.zeros((), dtype=xp.int64)
    return (xp.argmax if largest else xp.argmin)(a, axis=axis, keepdims=keepdim)


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


def _argmax_argmin(
    self: TensorImpl, dim: int | None, keepdim: bool, out: TensorImpl | None, largest: bool
) -> Any:
    """Torch: TORCH_META_FUNC(argmax) / argmin and argmax_argmin_impl in ReduceOps.cpp."""
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
    shape = reduction_output(self, dims, keepdim, int64, out)
    if not has_data(self):
        return finish(self, None, shape, int64, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = array_of(self)
    if dim is None:
        index = _arg_extreme(xp, xp.reshape(a, (-1,)), 0 if a.ndim else None, False, largest)
    else:
        index = _arg_extreme(xp, a, dims[0] if self._size else None, keepdim, largest)
    return finish(self, index, shape, int64, out)


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


def _any_all(
    self: TensorImpl, dims: tuple[int, ...], keepdim: bool, out: TensorImpl | None, is_any: bool
) -> Any:
    """Whether any (all) elements over `dims` are nonzero; uint8 inputs give uint8.

    Torch: allany_meta in ReduceOps.cpp: the result is bool (uint8 for uint8 inputs); `out`
    may be bool or uint8.
    """
    name = "any" if is_any else "all"
    result_dtype = uint8 if self._dtype is uint8 else bool_
    if out is not None:
        if out._dtype is not bool_ and out._dtype is not uint8:
            raise RuntimeError(
                f"{name} only supports bool tensor for result, got: {out._dtype.scalar_name}"
            )
        result_dtype = out._dtype
    shape = reduction_output(self, dims, keepdim, result_dtype, out)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    # torch: a uint8 result makes the iterator's common dtype uint8: the input is converted
    # first (0.5 becomes 0, 256 becomes 0), then tested.
    a = input_array(self, uint8) if result_dtype is uint8 else array_of(self)
    nonzero = a if a.dtype == xp.bool else a != xp.zeros((), dtype=a.dtype)
    if not dims and self._size:
        values = nonzero  # an empty dim list reduces nothing
    else:
        values = (xp.any if is_any else xp.all)(nonzero, axis=axes(self, dims), keepdims=keepdim)
    return finish(self, values, shape, result_dtype, out)


def _dims_or_none(dim: list[int] | None, ndim: int) -> tuple[int, ...]:
    # torch: any.dims / all.dims: None reduces every dim, [] none (the identity).
    if dim is not None and len(dim) == 0:
        return ()
    return reduction_dims(dim, ndim)


def _register_any_all(name: str, is_any: bool) -> None:
    """Register any's (all's) six overloads, one body per argument form."""

    def reduce_all(self: TensorImpl, *, out: TensorImpl | None = None) -> Any:
        """Whether any (all) elements are nonzero. Torch: any / all (and .all_out)."""
        return _any_all(self, reduction_dims(None, self.ndim), False, out, is_any)

    def reduce_dim(
        self: TensorImpl, dim: int, keepdim: bool, *, out: TensorImpl | None = None
    ) -> Any:
        """Over one dim. Torch: any.dim / all.dim (and .out)."""
        return _any_all(self, reduction_dims(dim, self.ndim), keepdim, out, is_any)

    def reduce_dims(
        self: TensorImpl, dim: list[int] | None, keepdim: bool, *, out: TensorImpl | None = None
    ) -> Any:
        """Over dims (None: all; []: none). Torch: any.dims / all.dims (and .dims_out)."""
        return _any_all(self, _dims_or_none(dim, self.ndim), keepdim, out, is_any)

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
