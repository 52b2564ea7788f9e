"""Extreme-value reductions: amax, amin, aminmax, max/min (full and over a dim), argmax, argmin.

Torch: aten/src/ATen/native/ReduceOps.cpp (amax, amin, aminmax, argmax, argmin) and
TensorCompare.cpp (max/min full reductions and max.dim/min.dim). The rules every reduction
shares (dims, output shape, dtype and layout, out=) are in `_reduction.py`; sum, mean, prod,
any and all are in `reduction.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import bool_, int64
from refimpl._base.promotion import can_cast
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import (
    evenly_distribute_backward,
    restore_reduced_dims,
    scale_grad_by_count,
    value_selecting_reduction_backward,
)
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import (
    Plan,
    Reduction,
    arg_extreme,
    check_nonzero_dims,
    extreme,
    finish_as,
    has_data,
    implements,
    not_implemented,
    plan,
    reduction_dims,
    reduction_output,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")

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


@amax.derivative("self")
def amax_backward(
    grad: Tensor, self: Tensor, result: Tensor, dim: list[int], keepdim: bool
) -> Tensor:
    # torch: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim),
    #   restore_reduced_dims(result, dim, keepdim) == self, dim)
    mask = aten.eq.Tensor(restore_reduced_dims(result, dim, keepdim), self)
    return scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), mask, dim)


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


amin.derivative("self")(amax_backward)


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


@aminmax.derivative("self")
def aminmax_backward(
    grads: tuple[Tensor | None, Tensor | None],
    self: Tensor,
    dim: int | None,
    keepdim: bool,
    min: Tensor,
    max: Tensor,
) -> Tensor | None:
    # torch: aminmax_backward(self, dim, keepdim, grad_min, grad_max, min, max): each output's
    # gradient shared evenly among the elements equal to it.
    dims = [] if dim is None else [dim]
    total = None
    for grad, value in zip(grads, (min, max), strict=True):
        if grad is None:
            continue
        mask = aten.eq.Tensor(restore_reduced_dims(value, dims, keepdim), self)
        part = scale_grad_by_count(restore_reduced_dims(grad, dims, keepdim), mask, dims)
        total = part if total is None else aten.add.Tensor(total, part)
    return total


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


@max_default.derivative("self")
def max_default_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: evenly_distribute_backward(grad, self, result)
    return evenly_distribute_backward(grad, self, result)


min_default.derivative("self")(max_default_backward)


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


@max_dim.derivative("self")
def max_dim_backward(
    grad: Tensor, dim: int, indices: Tensor, self_sym_sizes: Sequence[int], keepdim: bool
) -> Tensor:
    # torch: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(),
    #   keepdim)
    return value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, keepdim)


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


min_dim.derivative("self")(max_dim_backward)


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
