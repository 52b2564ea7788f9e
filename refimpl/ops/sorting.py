"""Sorting as aten ops: sort, argsort, msort and topk.

Torch: Sorting.cpp (sort_stable meta and CPU kernels, topk), SortingKernel.cpp and
TopKImpl.h (the CPU loops), TensorCompare.cpp (argsort and msort decompose into sort). The
order is torch's: ascending by value with NaN greater than every number (descending puts
NaN first), -0.0 equal to 0.0, equal values in index order for a stable sort.

Note [Order among equal values]
torch's CPU sort with `stable=False` runs std::sort per row (libstdc++'s introsort), which
for rows of at most 16 elements is a plain insertion sort, so those rows come out in the
stable order; longer rows put equal values in an order only that introsort defines. refimpl
sorts rows of up to 16 elements stably (torch's order exactly) and longer ones with the
library's unstable sort (equal values in another order than torch's: a documented
difference, and the reason `torch.sort` on 10^6 elements costs what the library's
quicksort costs rather than its merge sort). topk takes, among equal values, the first in
index order; torch's partial_sort / nth_element pick another one (Differs).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, empty_strided_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _scan
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import value_selecting_reduction_backward
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._reduction import check_out_dtype, has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, new_tensor, registered, write_values, xp_of

aten: Final = namespace("aten")

# torch: std::sort's insertion-sort threshold (libstdc++ _S_threshold): shorter rows come out
# of the unstable sort in the stable order.
_INSERTION_SORT_ROWS: Final = 16


def sort_order(xp: Any, rows: Any, descending: bool, stable: bool) -> Any:
    """The order (int64 indices) that sorts each row of `rows` (last axis) as torch does.

    Torch: the comparators of SortingKernel.cpp (KeyValueCompAsc / KeyValueCompDesc): NaN
    after every number ascending, before every number descending. The standard leaves the
    place of NaN open, so rows with NaNs are ordered by value with NaNs as zero, then NaNs
    moved to their end in a second, stable pass.
    """
    rows = _scan.comparable(xp, rows)
    stable = stable or rows.shape[-1] <= _INSERTION_SORT_ROWS
    nan = xp.isnan(rows) if xp.isdtype(rows.dtype, "real floating") else None
    if nan is None or not bool(xp.any(nan)):
        return xp.argsort(rows, axis=-1, descending=descending, stable=stable)
    keys = xp.where(nan, xp.zeros_like(rows), rows)
    order = xp.argsort(keys, axis=-1, descending=descending, stable=True)
    nan_in_order = xp.astype(xp.take_along_axis(nan, order, axis=-1), xp.uint8)
    by_nan = xp.argsort(nan_in_order, axis=-1, descending=descending, stable=True)
    return xp.take_along_axis(order, by_nan, axis=-1)


def _check_sortable(self: TensorImpl, op: str) -> None:
    # torch: the CPU kernels' checks (sort_stable_kernel, topk_out_cpu), after the meta
    # functions: a meta tensor of a complex dtype sorts.
    if has_data(self) and self._dtype.is_complex:
        raise RuntimeError(f" {op} does not support complex dtypes on CPU")


def _prepare_out(out: TensorImpl, self: TensorImpl, dtype: Any, stride: tuple[int, ...]) -> None:
    """Torch: a structured kernel's out= handling (resize_out in the generated code): the
    dtype must match, an out of another shape is resized and takes the strides the
    functional form would have."""
    check_out_dtype(out, dtype)
    resize_output(out, self._size, stride)


# --- sort ----------------------------------------------------------------------------------


sort = defop("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")


@sort.kernel(CEA)
def sort_kernel(self: TensorImpl, dim: int, descending: bool) -> Any:
    """Torch: sort (Sorting.cpp): sort.stable with stable=False."""
    return aten.sort.stable(self, stable=False, dim=dim, descending=descending)


@sort.derivative("self")
def sort_backward(grad: Tensor, dim: int, indices: Tensor, self_sym_sizes: Any) -> Tensor:
    # torch: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(),
    #   true)
    return value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, True)


non_differentiable_outputs("aten::sort", "indices")


sort_stable = defop(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
    "(Tensor values, Tensor indices)"
)


@registered(sort_stable)
def sort_stable_kernel(self: TensorImpl, *, stable: bool | None, dim: int, descending: bool) -> Any:
    """Torch: sort_stable (structured; TORCH_META_FUNC(sort_stable)): the outputs take
    `self`'s strides when they are dense (empty_like), and `sort_stable_out` fills them."""
    geometry.wrap_dim(dim, len(self._size))
    stride = geometry.dense_strides_like(self._size, self._stride)
    device, backend = self._storage.device, self._storage.backend
    values = empty_strided_tensor(self._size, stride, self._dtype, device, backend)
    indices = empty_strided_tensor(self._size, stride, int64, device, backend)
    return _sort_into(self, stable, dim, descending, values, indices)


sort_stable.derivative("self")(sort_backward)
non_differentiable_outputs("aten::sort.stable", "indices")


sort_values = defop(
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@sort_values.kernel(CEA)
def sort_values_kernel(
    self: TensorImpl, dim: int, descending: bool, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """Torch: sort_out (Sorting.cpp): sort.values_stable with stable=False."""
    return aten.sort.values_stable(
        self, stable=False, dim=dim, descending=descending, values=values, indices=indices
    )


sort_values_stable = defop(
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"
)


@registered(sort_values_stable)
def sort_values_stable_kernel(
    self: TensorImpl,
    *,
    stable: bool | None,
    dim: int,
    descending: bool,
    values: TensorImpl,
    indices: TensorImpl,
) -> Any:
    """Torch: sort_stable_out: the meta function's checks (dim, out dtypes and sizes), then
    the CPU kernel's."""
    geometry.wrap_dim(dim, len(self._size))
    stride = geometry.dense_strides_like(self._size, self._stride)
    _prepare_out(values, self, self._dtype, stride)
    _prepare_out(indices, self, int64, stride)
    return _sort_into(self, stable, dim, descending, values, indices)


def _sort_into(
    self: TensorImpl,
    stable: bool | None,
    dim: int,
    descending: bool,
    values: TensorImpl,
    indices: TensorImpl,
) -> tuple[TensorImpl, TensorImpl]:
    _check_sortable(self, "Sort")
    if not has_data(self) or geometry.numel(self._size) == 0:
        return values, indices
    xp = xp_of(self)
    a = array_of(self)
    if a.ndim == 0:
        # torch: a 0-dim tensor is its own sort, at index 0.
        write_values(values, a)
        write_values(indices, xp.zeros((), dtype=xp.int64))
        return values, indices
    axis = geometry.wrap_dim(dim, a.ndim)
    rows = _scan.last_axis(xp, a, axis)
    order = sort_order(xp, rows, descending, bool(stable))
    sorted_rows = xp.take_along_axis(rows, order, axis=-1)
    write_values(values, _scan.from_last_axis(xp, sorted_rows, axis))
    write_values(indices, _scan.from_last_axis(xp, order, axis))
    return values, indices


# --- argsort, msort (decompositions) --------------------------------------------------------


argsort = defop("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")


@argsort.kernel(DispatchKey := __import__("refimpl._base.keys", fromlist=["DispatchKey"]).DispatchKey.CompositeImplicitAutograd)  # noqa: E501
def argsort_kernel(self: TensorImpl, dim: int, descending: bool) -> Any:
    """Torch: argsort (TensorCompare.cpp): the indices of sort(self, dim, descending)."""
    return aten.sort.default(self, dim, descending)[1]
