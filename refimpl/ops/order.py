"""Order statistics: median, nanmedian, mode and kthvalue, with the index of the value chosen.

Torch: Sorting.cpp (median, nanmedian, kthvalue: median_impl, median_with_indices_impl,
kthvalue_out_impl_cpu), TensorCompare.cpp and TensorCompareKernel.cpp (mode). Each block's
checks run in torch's order before any write, for meta tensors too; the data part runs only
for tensors with data. Which index torch reports among equal values is part of each op's
contract here: the stable order for median (torch breaks ties by index), the last of the
equal run for mode, a replay of torch's quickselect for kthvalue (`_scan.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import int64
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _scan
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import (
    evenly_distribute_backward,
    value_selecting_reduction_backward,
)
from refimpl.ops._outputs import overlap_status, resize_output
from refimpl.ops._reduction import (
    check_nonzero_dims,
    finish,
    has_data,
    reduced_shape,
    same_as_out,
)
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, new_tensor, not_implemented, registered, write_values, xp_of
from refimpl.ops.view import legacy_type_name

aten: Final = namespace("aten")
_OVERLAPPING: Final = (layout.Overlap.FULL, layout.Overlap.PARTIAL)


# --- median, nanmedian ----------------------------------------------------------------------

_ORDERED: Final = frozenset(
    {"uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"}
)


def _median_all(self: TensorImpl, ignore_nan: bool) -> Any:
    """Torch: median_impl (Sorting.cpp): the lower median of every element; NaN if any is NaN
    (median) or of the non-NaN elements (nanmedian); an empty input, of any dtype, gives NaN
    converted to its dtype (before the dtype switch that refuses bool and complex)."""
    count = geometry.numel(self._size)
    if count and self._dtype.name not in _ORDERED:
        raise not_implemented("median_cpu", self._dtype)
    values = None
    if has_data(self):
        xp = xp_of(self)
        if count == 0:
            backend = self._storage.backend
            assert backend is not None
            values = xp.asarray(
                _scan.empty_median_value(self._dtype), dtype=backend_dtype(backend, self._dtype)
            )
        else:
            values = _median_value(xp, xp.reshape(array_of(self), (count,)), ignore_nan)
    return finish(self, values, (), self._dtype, None)


def _median_value(xp: Any, flat: Any, ignore_nan: bool) -> Any:
    """The lower median of a 1-D array as a 0-d array (values only, so no index order).

    NaNs sort as +inf here: the first `valid` sorted values are the non-NaN ones either way.
    """
    n = flat.shape[0]
    if not xp.isdtype(flat.dtype, "real floating"):
        return xp.sort(_scan.comparable(xp, flat))[(n - 1) // 2]
    nan = xp.isnan(flat)
    nan_value = xp.asarray(xp.nan, dtype=flat.dtype)
    ordered = xp.sort(xp.where(nan, xp.asarray(xp.inf, dtype=flat.dtype), flat))
    if not ignore_nan:
        # torch: the median of anything holding a NaN is NaN.
        return xp.where(xp.any(nan), nan_value, ordered[(n - 1) // 2])
    valid = n - xp.sum(xp.astype(nan, xp.int64))
    position = xp.reshape(xp.where(valid > 0, (valid - 1) // 2, 0), (1,))
    return xp.where(valid > 0, xp.reshape(xp.take(ordered, position), ()), nan_value)


def _median_positions(xp: Any, rows: Any, ignore_nan: bool) -> Any:
    """Per row (last axis), the position in the NaN-last order that the median takes:
    (n - 1) // 2, or (n - nan_count - 1) // 2 for nanmedian (0 when every value is NaN,
    as C++'s division truncates)."""
    n = rows.shape[-1]
    if ignore_nan and xp.isdtype(rows.dtype, "real floating"):
        valid = n - xp.sum(xp.astype(xp.isnan(rows), xp.int64), axis=-1)
        return xp.where(valid > 0, (valid - 1) // 2, 0)
    return xp.full(rows.shape[:-1], (n - 1) // 2, dtype=xp.int64)


median = defop("median(Tensor self) -> Tensor")


@registered(median)
def median_kernel(self: TensorImpl) -> Any:
    """The lower median of all elements. Torch: median_cpu (Sorting.cpp)."""
    return _median_all(self, ignore_nan=False)


@median.derivative("self")
def median_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # torch: evenly_distribute_backward(grad, self, result)
    return evenly_distribute_backward(grad, self, result)


median_out = defop("median.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@median_out.kernel(CEA)
def median_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: the generated out= form of median (functional result copied into `out`)."""
    return same_as_out(aten.median.default(self), out)


nanmedian = defop("nanmedian(Tensor self) -> Tensor")


@registered(nanmedian)
def nanmedian_kernel(self: TensorImpl) -> Any:
    """The lower median of the non-NaN elements. Torch: nanmedian_cpu (Sorting.cpp)."""
    return _median_all(self, ignore_nan=True)


nanmedian.derivative("self")(median_backward)


nanmedian_out = defop("nanmedian.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@nanmedian_out.kernel(CEA)
def nanmedian_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: the generated out= form of nanmedian."""
    return same_as_out(aten.nanmedian.default(self), out)


def _median_dim(
    self: TensorImpl,
    dim: int,
    keepdim: bool,
    values: TensorImpl,
    indices: TensorImpl,
    ignore_nan: bool,
) -> tuple[Any, Any]:
    """Torch: median_with_indices_impl (Sorting.cpp). The index is the median's position in
    the stable order (equal values by index, NaN last): nth_element with an index-breaking
    comparator. median returns the first NaN of a row holding one."""
    ndim = len(self._size)
    axis = geometry.wrap_dim(dim, ndim)
    if ndim:
        check_nonzero_dims(self, (axis,), "median()")
    if indices._dtype is not int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"{legacy_type_name(indices._dtype)} instead (while checking arguments for median)"
        )
    if values._dtype is not self._dtype:
        raise RuntimeError(
            "Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type {legacy_type_name(values._dtype)} does not equal "
            f"{legacy_type_name(self._dtype)} (while checking arguments for median)"
        )
    shape = reduced_shape(self._size, (axis,), keepdim) if ndim else ()
    resize_output(values, shape)
    resize_output(indices, shape)
    if self._dtype.name not in _ORDERED:
        raise not_implemented("median_out", self._dtype)
    if has_data(self) and geometry.numel(shape):
        xp = xp_of(self)
        rows = (
            _scan.last_axis(xp, array_of(self), axis) if ndim else xp.reshape(array_of(self), (1,))
        )
        order = _scan.order_nan_last(xp, rows)
        position = _median_positions(xp, rows, ignore_nan)[..., None]
        index = xp.take_along_axis(order, position, axis=-1)
        if xp.isdtype(rows.dtype, "real floating"):
            nan = xp.isnan(rows)
            if ignore_nan:
                # A row of NaNs: the index std::nth_element happens to leave there.
                all_nan = xp.all(nan, axis=-1, keepdims=True)
                fallback = _scan.nth_of_equivalent(rows.shape[-1])
                index = xp.where(all_nan, xp.asarray(fallback, dtype=index.dtype), index)
            else:
                first_nan = xp.argmax(xp.astype(nan, xp.uint8), axis=-1, keepdims=True)
                index = xp.where(xp.any(nan, axis=-1, keepdims=True), first_nan, index)
        write_values(values, xp.take_along_axis(rows, index, axis=-1))
        write_values(indices, index)
    return values, indices


median_dim = defop(
    "median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
)


@median_dim.kernel(CEA)
def median_dim_kernel(self: TensorImpl, dim: int, keepdim: bool) -> Any:
    """The lower median along `dim` and its index. Torch: median.dim (Sorting.cpp)."""
    values, indices = new_tensor(self, (0,), self._dtype), new_tensor(self, (0,), int64)
    return tuple(aten.median.dim_values(self, dim, keepdim, values=values, indices=indices))


@median_dim.derivative("self")
def median_dim_backward(
    grad: Tensor, dim: int, indices: Tensor, self_sym_sizes: Sequence[int], keepdim: bool
) -> Tensor:
    # torch: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(),
    #   keepdim)
    return value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, keepdim)


median_dim_values = defop(
    "median.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(median_dim_values)
def median_dim_values_kernel(
    self: TensorImpl, dim: int, keepdim: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """median along `dim` into `values` and `indices`. Torch: median_out_cpu."""
    return _median_dim(self, dim, keepdim, values, indices, ignore_nan=False)


nanmedian_dim = defop(
    "nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
)


@nanmedian_dim.kernel(CEA)
def nanmedian_dim_kernel(self: TensorImpl, dim: int, keepdim: bool) -> Any:
    """The lower median of the non-NaN values along `dim`. Torch: nanmedian.dim."""
    values, indices = new_tensor(self, (0,), self._dtype), new_tensor(self, (0,), int64)
    return tuple(aten.nanmedian.dim_values(self, dim, keepdim, values=values, indices=indices))


nanmedian_dim.derivative("self")(median_dim_backward)


nanmedian_dim_values = defop(
    "nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(nanmedian_dim_values)
def nanmedian_dim_values_kernel(
    self: TensorImpl, dim: int, keepdim: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """nanmedian along `dim` into `values` and `indices`. Torch: nanmedian_out_cpu."""
    return _median_dim(self, dim, keepdim, values, indices, ignore_nan=True)


# --- mode -----------------------------------------------------------------------------------


def _mode_rows(xp: Any, rows: Any) -> tuple[Any, Any]:
    """Per row (last axis): the smallest of the most frequent values and the index torch
    reports for it.

    Torch: mode_kernel_impl (TensorCompareKernel.cpp) sorts (value, index) pairs by value
    and keeps the first run longer than every earlier one, reporting that run's last pair;
    NaN differs from everything, NaN included, so each NaN is a run of one. For rows of 16
    or fewer NaN-free values that sort is stable, so the reported pair is the run's last in
    the stable order, computed here for all rows at once; other rows replay torch's sort.
    See Note [mode among equal values].
    """
    n = rows.shape[-1]
    has_nan = xp.isdtype(rows.dtype, "real floating") and bool(xp.any(xp.isnan(rows)))
    if n > _scan.INSERTION_THRESHOLD or has_nan:
        chosen = [_scan.mode_of_row(values)[1] for values in _row_lists(xp, rows)]
        best = xp.reshape(xp.asarray(chosen, dtype=xp.int64), rows.shape[:-1] + (1,))
        return xp.take_along_axis(rows, best, axis=-1), best
    order = _scan.order_nan_last(xp, rows)
    ordered = xp.take_along_axis(rows, order, axis=-1)
    changes = ordered[..., 1:] != ordered[..., :-1]
    true = xp.ones(rows.shape[:-1] + (1,), dtype=xp.bool)
    starts = xp.concat((true, changes), axis=-1)
    ends = xp.concat((changes, true), axis=-1)
    positions = xp.broadcast_to(xp.arange(n, dtype=xp.int64), rows.shape)
    run_start = xp.where(starts, positions, xp.zeros_like(positions))
    run_start = _scan.running(xp, run_start, xp.maximum)
    lengths = xp.where(ends, positions - run_start + 1, xp.zeros_like(positions))
    best = xp.argmax(lengths, axis=-1, keepdims=True)
    return xp.take_along_axis(ordered, best, axis=-1), xp.take_along_axis(order, best, axis=-1)


def _row_lists(xp: Any, rows: Any) -> list[list[Any]]:
    """Each row (last axis) as a list of Python numbers that compare as its elements do."""
    flat = xp.reshape(rows, (-1, rows.shape[-1]))
    convert = int if xp.isdtype(rows.dtype, "integral") or rows.dtype == xp.bool else float
    return [[convert(flat[r, i]) for i in range(flat.shape[1])] for r in range(flat.shape[0])]


mode = defop("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)")


@registered(mode)
def mode_kernel(self: TensorImpl, dim: int, keepdim: bool) -> Any:
    """The most frequent value along `dim` (the smallest among equally frequent ones) and
    an index of it. Torch: mode (TensorCompare.cpp) over mode_kernel_impl."""
    ndim = len(self._size)
    axis = geometry.wrap_dim(dim, ndim)
    if ndim:
        check_nonzero_dims(self, (axis,), "mode()")
    if self._dtype.is_complex and ndim and geometry.numel(self._size):
        # torch: 0-dim and empty inputs return before the kernel's dtype switch.
        raise not_implemented("mode_cpu", self._dtype)
    shape = reduced_shape(self._size, (axis,), keepdim) if ndim else ()
    values, indices = new_tensor(self, shape, self._dtype), new_tensor(self, shape, int64)
    if has_data(self) and geometry.numel(shape):
        xp = xp_of(self)
        a = array_of(self)
        if ndim:
            best, where = _mode_rows(xp, _scan.last_axis(xp, a, axis))
        else:
            # torch: a 0-dim input is its own result, at index 0.
            best, where = a, xp.zeros((), dtype=xp.int64)
        write_values(values, best)
        write_values(indices, where)
    return values, indices


mode.derivative("self")(median_dim_backward)


mode_values = defop(
    "mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@mode_values.kernel(CEA)
def mode_values_kernel(
    self: TensorImpl, dim: int, keepdim: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """mode into `values` and `indices`. Torch: mode_out (TensorCompare.cpp)."""
    for t, expected, what in ((values, self._dtype, "values"), (indices, int64, "indices")):
        if t._dtype is not expected:
            raise RuntimeError(
                f"expected scalar type '{expected.scalar_name}' but got "
                f"'{t._dtype.scalar_name}' for {what} output"
            )
    best, where = aten.mode.default(self, dim, keepdim)
    for t, result in ((values, best), (indices, where)):
        resize_output(t, result._size)
        if has_data(t):
            write_values(t, array_of(result))
    return values, indices


# --- kthvalue -------------------------------------------------------------------------------


def _kth_rows(xp: Any, rows: Any, k: int) -> tuple[Any, Any]:
    """Per row: the k-th smallest value (NaN largest) and the index torch's CPU kthvalue
    returns for it. See Note [kthvalue among equal values]."""
    order = _scan.order_nan_last(xp, rows)
    index = order[..., k - 1 : k]
    value = xp.take_along_axis(rows, index, axis=-1)
    ties = xp.sum(xp.astype(_scan.same_as(xp, rows, value), xp.int64), axis=-1) > 1
    if bool(xp.any(ties)):
        replayed = [_scan.quickselect_index(values, k - 1) for values in _row_lists(xp, rows)]
        chosen = xp.reshape(xp.asarray(replayed, dtype=xp.int64), index.shape)
        index = xp.where(ties[..., None], chosen, index)
    return value, index


kthvalue = defop(
    "kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)"
)


@kthvalue.kernel(CEA)
def kthvalue_kernel(self: TensorImpl, k: int, dim: int, keepdim: bool) -> Any:
    """The k-th smallest value along `dim` and its index. Torch: kthvalue (Sorting.cpp)."""
    values, indices = new_tensor(self, (0,), self._dtype), new_tensor(self, (0,), int64)
    return tuple(aten.kthvalue.values(self, k, dim, keepdim, values=values, indices=indices))


kthvalue.derivative("self")(median_dim_backward)


kthvalue_values = defop(
    "kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(kthvalue_values)
def kthvalue_values_kernel(
    self: TensorImpl, k: int, dim: int, keepdim: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """kthvalue into `values` and `indices`. Torch: kthvalue_out_impl_cpu and
    _reduction_with_indices_allocate_or_resize_output (SortingUtils.h)."""
    ndim = len(self._size)
    axis = geometry.wrap_dim(dim, ndim)
    if ndim:
        check_nonzero_dims(self, (axis,), "kthvalue()")
    if not 0 < k <= (self._size[axis] if ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    # torch: at::assert_no_overlap(self, values): a full overlap is refused too.
    if values._storage is self._storage and overlap_status(self, values) in _OVERLAPPING:
        raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)
    if values._dtype is not self._dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices._dtype is not int64:
        raise RuntimeError("output indices must be of scalar type Long")
    shape = reduced_shape(self._size, (axis,), keepdim) if ndim else ()
    resize_output(values, shape)
    resize_output(indices, shape)
    if ndim and self._dtype.name not in _ORDERED:
        # torch: a 0-dim input is copied out before the kernel's dtype switch.
        raise not_implemented("kthvalue_cpu", self._dtype)
    if has_data(self) and geometry.numel(shape):
        xp = xp_of(self)
        a = array_of(self)
        if ndim:
            best, where = _kth_rows(xp, _scan.last_axis(xp, a, axis), k)
        else:
            # torch: a 0-dim input is its own result, at index 0.
            best, where = a, xp.zeros((), dtype=xp.int64)
        write_values(values, best)
        write_values(indices, where)
    return values, indices
