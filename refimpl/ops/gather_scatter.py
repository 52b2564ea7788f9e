"""Indexing by index tensors across dims: gather, scatter (value, src, reduce=), scatter_add, scatter_reduce, take, put, take_along_dim.

Torch: aten/src/ATen/native/TensorAdvancedIndexing.cpp (the structured metas and CPU kernels
of gather and scatter*, take, put_, take_along_dim), native/ScatterGatherChecks.h (dtype and
shape checks), native/ReductionType.h (reduce names), native/cpu/ScatterGatherKernel.cpp and
native/cpu/IndexKernel.cpp (the element loops and their bounds errors). Every op checks its
arguments in torch's order before touching data, so a failing call leaves self and out
unchanged; every write goes through one primitive, `scatter_flat` (ops/_scatter.py), which
keeps torch's CPU order for duplicate indices (the last write wins). The ops along one dim
with a vector index (index_select, index_add, ...) are in ops/index_dim.py.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.context import alert_not_deterministic
from refimpl._base.dtypes import DType, int64
from refimpl._base.keys import DispatchKey
from refimpl._base.scalars import Scalar, checked_convert
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_index import gather_backward, scatter_reduce_backward, take_backward
from refimpl.ops._derivative import derivative
from refimpl.ops._index_tensors import (
    BACKEND_KEYS,
    INDEX_DTYPES,
    NOT_MEAN,
    NOT_MINMAX,
    NOT_SCATTER_GATHER,
    SET,
    SUM,
    Reduction,
    array1,
    check_kernel_dtype,
    check_out_dtype,
    emit,
    first_outside,
    index_values,
    rank1,
    reduce_into,
    register,
    resize_out,
    shape_text,
    size1,
)
from refimpl.ops._register import defop
from refimpl.ops._scatter import ScatterReduce, flat_positions, scatter_flat

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- gather -------------------------------------------------------------------------------


def _gather(self: TensorImpl, dim: int, index: TensorImpl, out: TensorImpl | None) -> Any:
    """Torch: TORCH_META_FUNC(gather) and gather_shape_check; gather_cpu_kernel's bounds."""
    d = geometry.wrap_dim(dim, len(self._size))
    if out is not None:
        check_out_dtype(out, self._dtype)
    has_index = geometry.numel(index._size) != 0
    if has_index and index._dtype not in INDEX_DTYPES:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if has_index:
        if rank1(self) != rank1(index):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        for i in range(rank1(self)):
            if i != d and size1(index, i) > size1(self, i):
                raise RuntimeError(
                    f"Size does not match at dimension {i} expected index "
                    f"{shape_text(index._size)} to be no larger than self {shape_text(self._size)} "
                    f"apart from dimension {d}"
                )
    check_kernel_dtype(self._dtype, "scatter_gather_tensor_cpu", NOT_SCATTER_GATHER)
    backend = self._storage.backend
    values = None
    if backend is not None and has_index:
        xp = backend.xp
        idx = index_values(xp, index)
        _check_scatter_gather_bounds(xp, idx, d, size1(self, d))
        source = array1(self)
        window = tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(idx.shape))
        values = xp.reshape(xp.take_along_axis(source[window], idx, axis=d), index._size)
    return emit(
        self, values, index._size, out, inplace=False, inputs=(self, index), structured=True
    )


def _check_scatter_gather_bounds(xp: ArrayNamespace, idx: Array, dim: int, size: int) -> None:
    # torch: the TORCH_CHECK in cpu_scatter_gather_base_kernel's loop.
    # Differs: torch checks while it writes (an in-place scatter may have written part of
    # self when it raises); refimpl checks every index first.
    bad = first_outside(xp, idx, 0, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


gather = defop("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor")


def gather_kernel(self: TensorImpl, dim: int, index: TensorImpl, *, sparse_grad: bool) -> Any:
    """out[i][j] = self[index[i][j]][j] along `dim` (dim 0 here). Torch: gather (CPU, Meta)."""
    return _gather(self, dim, index, None)


register(gather, gather_kernel, BACKEND_KEYS)


@gather.derivative("self")
def gather_backward_self(
    grad: Tensor, self: Tensor, dim: int, index: Tensor, sparse_grad: bool
) -> Tensor:
    # torch: gather_backward(grad, self, dim, index, sparse_grad)
    return gather_backward(grad, self, dim, index)


gather_out = defop(
    "gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) "
    "-> Tensor(a!)"
)


def gather_out_kernel(
    self: TensorImpl, dim: int, index: TensorImpl, *, sparse_grad: bool, out: TensorImpl
) -> Any:
    """Torch: gather.out."""
    return _gather(self, dim, index, out)


register(gather_out, gather_out_kernel, BACKEND_KEYS)


# --- scatter, scatter_add, scatter_reduce ---------------------------------------------------

# torch: get_operator_enum (ReductionType.h): scatter's legacy names, then scatter_reduce's
# (which also accept "max" and "min").
_LEGACY_REDUCE: Final[dict[str, Reduction]] = {
    "add": SUM,
    "multiply": (ScatterReduce.PROD, False),
}
_REDUCE: Final[dict[str, Reduction]] = {
    "sum": SUM,
    "prod": (ScatterReduce.PROD, False),
    "mean": (ScatterReduce.SUM, True),
    "amax": (ScatterReduce.AMAX, False),
    "max": (ScatterReduce.AMAX, False),
    "amin": (ScatterReduce.AMIN, False),
    "min": (ScatterReduce.AMIN, False),
}


def _scatter_checks(self: TensorImpl, d: int, index: TensorImpl, src: TensorImpl | None) -> None:
    """Torch: scatter_gather_dtype_check and scatter_shape_check (ScatterGatherChecks.h)."""
    has_index = geometry.numel(index._size) != 0
    if has_index and index._dtype not in INDEX_DTYPES:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if not has_index:
        return
    if rank1(self) != rank1(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and rank1(src) != rank1(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    wrong = any(i != d and size1(index, i) > size1(self, i) for i in range(rank1(self)))
    expected = (
        f"Expected index {shape_text(index._size)} to be no larger than self "
        f"{shape_text(self._size)} apart from dimension {d}"
    )
    if src is None:
        if wrong:
            raise RuntimeError(expected)
        return
    if wrong or any(size1(index, i) > size1(src, i) for i in range(rank1(self))):
        raise RuntimeError(f"{expected} and to be no larger size than src {shape_text(src._size)}")


def _scatter(
    self: TensorImpl,
    dim: int,
    index: TensorImpl,
    src: TensorImpl | Scalar,
    reduce: str | None,
    names: dict[str, Reduction],
    *,
    include_self: bool = True,
    out: TensorImpl | None = None,
    inplace: bool = False,
) -> Any:
    """scatter, scatter_add and scatter_reduce, in every form.

    Torch: scatter_meta_impl, then scatter_impl / scatter_reduce_two_impl
    (TensorAdvancedIndexing.cpp). `names` reads `reduce`: scatter's legacy names or
    scatter_reduce's.
    """
    d = geometry.wrap_dim(dim, len(self._size))
    src_tensor = src if isinstance(src, TensorImpl) else None
    _scatter_checks(self, d, index, src_tensor)
    if out is not None:
        check_out_dtype(out, self._dtype)
    mode = SET
    if reduce is not None:
        found = names.get(reduce)
        if found is None:
            if names is _LEGACY_REDUCE:
                raise RuntimeError("reduce argument must be either add or multiply.")
            raise RuntimeError(
                f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
            )
        mode = found
    _check_scatter_dtype(self._dtype, mode, src_tensor is not None, include_self)
    if names is _LEGACY_REDUCE and reduce is not None and src_tensor is not None:
        # Differs: torch warns once per process (TORCH_WARN_ONCE) and appends
        # " (Triggered internally at ...)"; refimpl warns through Python's filters.
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
            stacklevel=5,
        )
    backend = self._storage.backend
    values = None
    if backend is not None and geometry.numel(index._size) != 0:
        xp = backend.xp
        idx = index_values(xp, index)
        _check_scatter_gather_bounds(xp, idx, d, size1(self, d))
        if src_tensor is not None:
            window = tuple(slice(0, n) for n in idx.shape)
            updates = xp.reshape(array1(src_tensor)[window], (-1,))
        else:
            # torch: value.to<scalar_t>(), a checked conversion.
            fill = checked_convert(src, self._dtype)  # type: ignore[arg-type]  # a Scalar here
            count = geometry.numel(idx.shape)
            updates = xp.full((count,), fill, dtype=backend_dtype(backend, self._dtype))
        positions = flat_positions(xp, self._size or (1,), d, idx)
        flat = xp.reshape(array_of(self), (-1,))
        result = reduce_into(xp, self._dtype, flat, positions, updates, mode, include_self)
        values = xp.reshape(result, self._size)
    elif backend is not None and not inplace:
        values = backend.xp.asarray(array_of(self), copy=True)
    return emit(self, values, self._size, out, inplace, inputs=(self, index, src), structured=True)


def _check_scatter_dtype(dtype: DType, mode: Reduction, has_src: bool, include_self: bool) -> None:
    # torch: the AT_DISPATCH of scatter_reduce_exclude_self_helper, then of the kernel.
    if not include_self:
        check_kernel_dtype(dtype, "scatter_reduce_exclude_input_init", NOT_SCATTER_GATHER)
    reduce, is_mean = mode
    if is_mean:
        check_kernel_dtype(dtype, "scatter_gather_tensor_cpu_reduce_mean", NOT_MEAN)
    elif reduce in (ScatterReduce.AMAX, ScatterReduce.AMIN):
        kernel = f"scatter_gather_tensor_cpu_reduce_{reduce.value}"
        check_kernel_dtype(dtype, kernel, NOT_MINMAX)
    kernel = "scatter_gather_tensor_cpu" if has_src else "scatter_gather_scalar_cpu"
    check_kernel_dtype(dtype, kernel, NOT_SCATTER_GATHER)


def scatter_src_kernel(
    self: TensorImpl,
    dim: int,
    index: TensorImpl,
    src: TensorImpl,
    *,
    reduce: str | None = None,
    out: TensorImpl | None = None,
) -> Any:
    """self with src[i][j] written at [index[i][j]][j] (dim 0), or combined by `reduce`.

    Torch: scatter.src / .reduce and their out= forms (CPU, CUDA, Meta).
    """
    return _scatter(self, dim, index, src, reduce, _LEGACY_REDUCE, out=out)


def scatter_value_kernel(
    self: TensorImpl,
    dim: int,
    index: TensorImpl,
    value: Scalar,
    *,
    reduce: str | None = None,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: scatter.value / .value_reduce and their out= forms (CPU, CUDA, Meta)."""
    return _scatter(self, dim, index, value, reduce, _LEGACY_REDUCE, out=out)


def scatter__src_kernel(
    self: TensorImpl, dim: int, index: TensorImpl, src: TensorImpl, *, reduce: str | None = None
) -> Any:
    """Torch: scatter_.src / scatter_.reduce (CPU, CUDA, Meta)."""
    return _scatter(self, dim, index, src, reduce, _LEGACY_REDUCE, inplace=True)


def scatter__value_kernel(
    self: TensorImpl, dim: int, index: TensorImpl, value: Scalar, *, reduce: str | None = None
) -> Any:
    """Torch: scatter_.value / scatter_.value_reduce (CPU, CUDA, Meta)."""
    return _scatter(self, dim, index, value, reduce, _LEGACY_REDUCE, inplace=True)


def scatter_add_kernel(
    self: TensorImpl, dim: int, index: TensorImpl, src: TensorImpl, *, out: TensorImpl | None = None
) -> Any:
    """self with src summed in at index along dim. Torch: scatter_add (CPU, CUDA, Meta)."""
    return _scatter(self, dim, index, src, "sum", _REDUCE, out=out)


def scatter_add__kernel(self: TensorImpl, dim: int, index: TensorImpl, src: TensorImpl) -> Any:
    """Torch: scatter_add_ (CPU, CUDA, Meta)."""
    return _scatter(self, dim, index, src, "sum", _REDUCE, inplace=True)


# Each scatter overload and its kernel (the kernels above serve the out= forms too).
_SCATTER_OVERLOADS: Final[tuple[tuple[str, Callable[..., Any]], ...]] = (
    ("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", scatter_src_kernel),
    (
        ("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor"),
        scatter_value_kernel,
    ),
    (
        ("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor"),
        scatter_src_kernel,
    ),
    (
        (
            "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, "
            "str reduce) -> Tensor"
        ),
        scatter_value_kernel,
    ),
    (
        (
            "scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        ),
        scatter_src_kernel,
    ),
    (
        (
            "scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        ),
        scatter_value_kernel,
    ),
    (
        (
            "scatter.reduce_out(Tensor self, int dim, Tensor index, Tensor src, *, str reduce, "
            "Tensor(a!) out) -> Tensor(a!)"
        ),
        scatter_src_kernel,
    ),
    (
        (
            "scatter.value_reduce_out(Tensor self, int dim, Tensor index, Scalar value, *, "
            "str reduce, Tensor(a!) out) -> Tensor(a!)"
        ),
        scatter_value_kernel,
    ),
    (
        ("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)"),
        scatter__src_kernel,
    ),
    (
        ("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)"),
        scatter__value_kernel,
    ),
    (
        (
            "scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, "
            "str reduce) -> Tensor(a!)"
        ),
        scatter__src_kernel,
    ),
    (
        (
            "scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, "
            "str reduce) -> Tensor(a!)"
        ),
        scatter__value_kernel,
    ),
    ("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", scatter_add_kernel),
    (
        (
            "scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        ),
        scatter_add_kernel,
    ),
    (
        ("scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)"),
        scatter_add__kernel,
    ),
)
for _schema, _kernel in _SCATTER_OVERLOADS:
    register(defop(_schema), _kernel, BACKEND_KEYS)


@derivative("aten::scatter.src", "self")
def scatter_backward_self(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    # torch: grad.scatter(dim, index, 0)
    return aten.scatter.value(grad, dim, index, 0)


@derivative("aten::scatter.src", "src")
def scatter_backward_src(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    # torch: grad.gather(dim, index)
    return aten.gather.default(grad, dim, index)


derivative("aten::scatter.value", "self")(scatter_backward_self)


@derivative("aten::scatter_add", "self")
def scatter_add_backward_self(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


derivative("aten::scatter_add", "src")(scatter_backward_src)
# torch: scatter.reduce and scatter.value_reduce (the legacy reduce=) have no derivative.


def _scatter_reduce_kernel(inplace: bool) -> Callable[..., Any]:
    def scatter_reduce_kernel(
        self: TensorImpl,
        dim: int,
        index: TensorImpl,
        src: TensorImpl,
        reduce: str,
        *,
        include_self: bool,
        out: TensorImpl | None = None,
    ) -> Any:
        """Torch: scatter_reduce.two (CPU, CUDA, Meta), TensorAdvancedIndexing.cpp."""
        return _scatter(
            self,
            dim,
            index,
            src,
            reduce,
            _REDUCE,
            include_self=include_self,
            out=out,
            inplace=inplace,
        )

    return scatter_reduce_kernel


register(
    defop(
        "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True) -> Tensor"
    ),
    _scatter_reduce_kernel(inplace=False),
    BACKEND_KEYS,
)


@derivative("aten::scatter_reduce.two", "self", "src")
def scatter_reduce_backward_self_src(
    grad: Tensor,
    self: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    include_self: bool,
    result: Tensor,
) -> tuple[Tensor, Tensor]:
    # torch: scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result)
    return scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result)


register(
    defop(
        "scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True) -> Tensor(a!)"
    ),
    _scatter_reduce_kernel(inplace=True),
    BACKEND_KEYS,
)
register(
    defop(
        "scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True, Tensor(a!) out) -> Tensor(a!)"
    ),
    _scatter_reduce_kernel(inplace=False),
    BACKEND_KEYS,
)


# --- take, put ----------------------------------------------------------------------------
# torch: take and put_ see self as 1-D in row-major order; negative indices count from the
# end (TensorAdvancedIndexing.cpp, IndexKernel.cpp's take/put kernels).
_TAKE_REFUSED: Final = NOT_SCATTER_GATHER  # AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3


def _check_flat_bounds(xp: ArrayNamespace, idx: Array, count: int) -> None:
    # torch: the TORCH_CHECK_INDEX of take_put_kernel_template's element loop.
    bad = first_outside(xp, idx, -count, count)
    if bad is not None:
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {count} elements."
        )


def _wrapped(xp: ArrayNamespace, idx: Array, count: int) -> Array:
    # Negative indices count from the end; most indices have none (one pass to know).
    return xp.where(idx < 0, idx + count, idx) if int(xp.min(idx)) < 0 else idx


def _take(self: TensorImpl, index: TensorImpl, out: TensorImpl | None) -> Any:
    """self.flatten()[index], shaped like index. Torch: take_out (TensorAdvancedIndexing.cpp)."""
    if index._dtype is not int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    if out is not None and out._dtype is not self._dtype:
        raise RuntimeError(
            "take(): self and out expected to have the same dtype, but got self.dtype = "
            f"{self._dtype.scalar_name} and out.dtype = {out._dtype.scalar_name}"
        )
    count = geometry.numel(self._size)
    if count == 0 and geometry.numel(index._size) != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    check_kernel_dtype(self._dtype, "take_cpu", _TAKE_REFUSED)
    backend = self._storage.backend
    values = None
    if backend is not None and geometry.numel(index._size):
        xp = backend.xp
        idx = xp.reshape(index_values(xp, index), (-1,))
        _check_flat_bounds(xp, idx, count)
        flat = xp.reshape(array_of(self), (-1,))
        values = xp.reshape(xp.take(flat, _wrapped(xp, idx, count)), index._size)
    return emit(self, values, index._size, out, inplace=False, inputs=(self, index))


take = defop("take(Tensor self, Tensor index) -> Tensor")


def take_kernel(self: TensorImpl, index: TensorImpl) -> Any:
    """Torch: take (CPU, CUDA, Meta)."""
    return _take(self, index, None)


register(take, take_kernel, BACKEND_KEYS)


@take.derivative("self")
def take_backward_self(grad: Tensor, self: Tensor, index: Tensor) -> Tensor:
    # torch: take_backward(grad, self, index)
    return take_backward(grad, self, index)


take_out = defop("take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)")


def take_out_kernel(self: TensorImpl, index: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: take.out (CPU, CUDA, Meta)."""
    return _take(self, index, out)


register(take_out, take_out_kernel, BACKEND_KEYS)


def _put_(self: TensorImpl, index: TensorImpl, source: TensorImpl, accumulate: bool) -> Any:
    """self.flatten()[index] = source (or += with accumulate), in place. Torch: put_."""
    # torch: put_ alerts first: without accumulate, duplicate indices make the result
    # depend on the order of writes (with it, only CUDA's atomic adds are nondeterministic).
    if not accumulate or self._storage.device.type == "cuda":
        alert_not_deterministic("put_")
    if index._dtype is not int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{self._dtype.scalar_name} and source.dtype = {source._dtype.scalar_name}"
        )
    index_count = geometry.numel(index._size)
    source_count = geometry.numel(source._size)
    if index_count != source_count:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source_count}, index.numel() = {index_count}"
        )
    data.check_writable(self)
    count = geometry.numel(self._size)
    if count == 0 and index_count != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    check_kernel_dtype(self._dtype, "take_put_cpu", _TAKE_REFUSED)
    backend = self._storage.backend
    if backend is not None and index_count:
        xp = backend.xp
        idx = xp.reshape(index_values(xp, index), (-1,))
        _check_flat_bounds(xp, idx, count)
        positions = _wrapped(xp, idx, count)
        flat = xp.reshape(array_of(self), (-1,))
        updates = xp.reshape(array_of(source), (-1,))
        reduce = ScatterReduce.SUM if accumulate else ScatterReduce.SET
        result = scatter_flat(xp, flat, positions, updates, reduce)
        write_array(self, xp.reshape(result, self._size))
    return self


put_ = defop(
    "put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)"
)


def put__kernel(self: TensorImpl, index: TensorImpl, source: TensorImpl, accumulate: bool) -> Any:
    """Torch: put_ (CPU, CUDA, Meta)."""
    return _put_(self, index, source, accumulate)


register(put_, put__kernel, BACKEND_KEYS)

put = defop("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor")


@put.kernel(CEA)
def put_kernel(self: TensorImpl, index: TensorImpl, source: TensorImpl, accumulate: bool) -> Any:
    """Torch: put (CompositeExplicitAutograd): clone self keeping its layout, then put_."""
    return _put_(aten.clone.default(self), index, source, accumulate)


@put.derivative("self")
def put_backward_self(
    grad: Tensor, index: Tensor, source_sym_sizes: list[int], accumulate: bool
) -> Tensor:
    # torch: accumulate ? grad : grad.put(index, zeros_like(source), false)
    if accumulate:
        return grad
    zeros = aten.new_zeros.default(grad, list(source_sym_sizes))
    return aten.put.default(grad, index, zeros, False)


@put.derivative("source")
def put_backward_source(grad: Tensor, index: Tensor, source: Tensor) -> Tensor:
    # torch: grad.take(index).reshape_as(source)
    return aten.reshape.default(aten.take.default(grad, index), list(source._size))


put_out = defop(
    "put.out(Tensor self, Tensor index, Tensor source, bool accumulate=False, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@put_out.kernel(CEA)
def put_out_kernel(
    self: TensorImpl, index: TensorImpl, source: TensorImpl, accumulate: bool, *, out: TensorImpl
) -> Any:
    """Torch: put.out, generated for a CompositeExplicitAutograd op (resize_out, copy_)."""
    result = _put_(aten.clone.default(self), index, source, accumulate)
    check_out_dtype(out, result._dtype)
    resize_out(out, result._size)
    return aten.copy_.default(out, result)


# --- take_along_dim -----------------------------------------------------------------------


def _take_along_dim_args(
    self: TensorImpl, indices: TensorImpl, dim: int | None
) -> tuple[TensorImpl, int, TensorImpl]:
    """(self, dim, index) of the gather take_along_dim runs: flattened for dim None, else
    both broadcast against each other outside `dim` and the index wrapped by remainder.

    Torch: take_along_dim and _take_along_dim_helper (TensorAdvancedIndexing.cpp).
    """
    if dim is None:
        # torch: no dtype check here; gather accepts int32 indices too.
        return aten.view.default(self, [-1]), 0, aten.view.default(indices, [-1])
    if len(self._size) != len(indices._size):
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {len(self._size)} dimensions for input, and "
            f"{len(indices._size)} dimensions for indices"
        )
    if indices._dtype is not int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices._dtype.scalar_name}"
        )
    if not self._size:
        # torch: self.size(dim) on a 0-dim tensor.
        raise geometry.no_dimensions(dim)
    d = geometry.wrap_dim(dim, len(self._size))
    self_sizes = list(self._size)
    self_sizes[d] = indices._size[d]
    index_shape = data.broadcast_shapes(tuple(self_sizes), indices._size)
    index_sizes = list(indices._size)
    index_sizes[d] = self._size[d]
    self_shape = data.broadcast_shapes(tuple(index_sizes), self._size)
    index = aten.expand.default(indices, list(index_shape))
    source = aten.expand.default(self, list(self_shape))
    return source, d, aten.remainder.Scalar(index, self._size[d])


take_along_dim = defop("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor")


@take_along_dim.decomposition
def take_along_dim_decomposition(self: TensorImpl, indices: TensorImpl, dim: int | None) -> Any:
    """Values of self at `indices` along dim (broadcasting), or of self flattened.

    Torch: take_along_dim (CompositeImplicitAutograd) over gather.
    """
    source, d, index = _take_along_dim_args(self, indices, dim)
    return aten.gather.default(source, d, index)


take_along_dim_out = defop(
    "take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@take_along_dim_out.decomposition
def take_along_dim_out_decomposition(
    self: TensorImpl, indices: TensorImpl, dim: int | None, *, out: TensorImpl
) -> Any:
    """Torch: take_along_dim_out (CompositeImplicitAutograd) over gather.out."""
    source, d, index = _take_along_dim_args(self, indices, dim)
    return aten.gather.out(source, d, index, out=out)
