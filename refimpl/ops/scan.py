"""Scans and small reductions: cumsum, cumprod, cummax, cummin, logcumsumexp, diff, trace, sum_to_size.

Torch: ReduceOps.cpp (cumsum/cumprod structured kernels, cummax/cummin, logcumsumexp, diff,
trace, sum_to_size) and ExpandUtils.h (sum_to). Each block's checks run in torch's order
before any write, for meta tensors too; the data part runs only for tensors with data. How
the values are computed (scans by doubling, in torch's accumulation dtypes) lives in
`_scan.py`; the order statistics (median, mode, kthvalue) are in `order.py`.
Results are contiguous, as torch allocates them (see Note [Reduction output layout]).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from refimpl._base.dtypes import DType, bool_, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, empty_tensor, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _scan
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import (
    cummaxmin_backward,
    cumprod_backward,
    cumsum_backward,
    logcumsumexp_backward,
    trace_backward,
)
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import (
    check_out_dtype,
    dtype_from_optional,
    finish,
    has_data,
    input_array,
    same_as_out,
)
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")
F = TypeVar("F", bound=Callable[..., Any])
Shape = tuple[int, ...]

CEA: Final = DispatchKey.CompositeExplicitAutograd
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)


def registered(block: OpBlock) -> Callable[[F], F]:
    """Register the body under the keys torch uses: CompositeExplicitAutograd where torch
    has it, else CPU, CUDA and Meta (and CompositeExplicitAutogradNonFunctional where torch
    also has that, as for the structured in-place cumsum_)."""

    def register(fn: F) -> F:
        if block.spec.cea:
            block.kernel(CEA)(fn)
            return fn
        for key in _BACKEND_KEYS:
            block.kernel(key)(fn)
        if block.spec.ceanf:
            block.kernel(DispatchKey.CompositeExplicitAutogradNonFunctional)(fn)
        return fn

    return register


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """torch's AT_DISPATCH error for a dtype the kernel has no case for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


def check_scalar_type(t: TensorImpl, expected: DType) -> None:
    """Torch: check_scalar_type (ReduceOps.cpp): "expected scalar_type Float but found Double"."""
    if t._dtype is not expected:
        raise RuntimeError(
            f"expected scalar_type {expected.scalar_name} but found {t._dtype.scalar_name}"
        )


def xp_of(t: TensorImpl) -> Any:
    """The Array API namespace of a tensor with data."""
    backend = t._storage.backend
    assert backend is not None  # callers check has_data first
    return backend.xp


def new_tensor(self: TensorImpl, size: Shape, dtype: DType) -> Any:
    """A new contiguous tensor on `self`'s device and backend. Torch: at::empty."""
    return empty_tensor(size, dtype, self._storage.device, self._storage.backend)


def write_values(t: TensorImpl, values: Any) -> None:
    """`values` (already `t`'s dtype) written through `t`, reshaped to its size."""
    xp = xp_of(t)
    if tuple(values.shape) != t._size:
        values = xp.reshape(values, t._size)
    write_array(t, values)


# --- cumsum, cumprod ------------------------------------------------------------------------
# Note [Cumulative sums accumulate wide]
# torch's CPU kernels (cumsum_cpu_kernel, cumprod_cpu_kernel in ReduceOpsKernel.cpp) convert
# the input to the result dtype, then run one pass per row in at::acc_type: float16 in float,
# float32 in double, integers in int64, rounding each output to the result dtype. So a
# float32 cumsum of 3000 x 0.1 ends at exactly 300.0. refimpl accumulates in the same dtypes.


# torch's op -> the standard's scan, run in the accumulation dtype.
_STANDARD_SCANS: Final[dict[str, Callable[[Any, Any, int, Any], Any]]] = {
    "cumsum": lambda xp, a, axis, dtype: xp.cumulative_sum(a, axis=axis, dtype=dtype),
    "cumprod": lambda xp, a, axis, dtype: xp.cumulative_prod(a, axis=axis, dtype=dtype),
}


def _cumulative(
    name: str,
    self: TensorImpl,
    dim: int,
    dtype: DType | None,
    out: TensorImpl | None,
    inplace: bool,
) -> Any:
    """cumsum / cumprod and their out= and in-place forms.

    Torch: the structured meta function of cumsum/cumprod (ReduceOps.cpp): wrap `dim`, the
    result dtype is `dtype`, else out's, else int64 for integers and bool, else self's;
    then impl_func_cum_ops. See Note [Cumulative sums accumulate wide].
    """
    axis = geometry.wrap_dim(dim, len(self._size))
    result_dtype = dtype_from_optional(self, dtype, out)
    if inplace and result_dtype is not self._dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {type_meta_name(self._dtype)} and output "
            f"tensor dtype {type_meta_name(result_dtype)} should match"
        )
    if out is not None and not inplace:
        check_out_dtype(out, result_dtype)
    if result_dtype is bool_:
        raise not_implemented(f"{name}_out_cpu", result_dtype)
    if out is not None and not inplace:
        resize_output(out, self._size)
    values = None
    if has_data(self):
        xp = xp_of(self)
        backend = self._storage.backend
        assert backend is not None
        array = input_array(self, result_dtype)
        if self._size and geometry.numel(self._size):
            if name == "cumprod" and result_dtype.is_complex:
                array = _scan.times_one_first(xp, array, axis)
            accumulate = backend_dtype(backend, _scan.scan_accumulate_dtype(result_dtype))
            array = _STANDARD_SCANS[name](xp, array, axis, accumulate)
        values = array
    return finish(self, values, self._size, result_dtype, out)


cumsum = defop("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")


@registered(cumsum)
def cumsum_kernel(self: TensorImpl, dim: int, *, dtype: DType | None) -> Any:
    """Running sums along `dim`. Torch: cumsum (structured, ReduceOps.cpp)."""
    return _cumulative("cumsum", self, dim, dtype, None, False)


@cumsum.derivative("self")
def cumsum_backward_self(grad: Tensor, self_scalar_type: DType, dim: int) -> Tensor:
    # torch: cumsum_backward(grad.to(self.scalar_type()), dim)
    return cumsum_backward(aten.to.dtype(grad, self_scalar_type), dim)


cumsum_out = defop(
    "cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(cumsum_out)
def cumsum_out_kernel(self: TensorImpl, dim: int, *, dtype: DType | None, out: TensorImpl) -> Any:
    """cumsum into `out`, computed in `dtype` or else `out`'s dtype. Torch: cumsum.out."""
    return _cumulative("cumsum", self, dim, dtype, out, False)


cumsum_ = defop("cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)")


@registered(cumsum_)
def cumsum__kernel(self: TensorImpl, dim: int, *, dtype: DType | None) -> Any:
    """cumsum in place; `dtype` must be self's. Torch: cumsum_ (structured in-place)."""
    return _cumulative("cumsum", self, dim, dtype, self, True)


cumprod = defop("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")


@registered(cumprod)
def cumprod_kernel(self: TensorImpl, dim: int, *, dtype: DType | None) -> Any:
    """Running products along `dim`. Torch: cumprod (structured, ReduceOps.cpp)."""
    return _cumulative("cumprod", self, dim, dtype, None, False)


@cumprod.derivative("self")
def cumprod_backward_self(grad: Tensor, self: Tensor, dim: int, result: Tensor) -> Tensor:
    # torch: cumprod_backward(grad.to(self.scalar_type()), self, dim, result)
    return cumprod_backward(aten.to.dtype(grad, self._dtype), self, dim, result)


cumprod_out = defop(
    "cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(cumprod_out)
def cumprod_out_kernel(self: TensorImpl, dim: int, *, dtype: DType | None, out: TensorImpl) -> Any:
    """cumprod into `out`. Torch: cumprod.out."""
    return _cumulative("cumprod", self, dim, dtype, out, False)


cumprod_ = defop("cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)")


@registered(cumprod_)
def cumprod__kernel(self: TensorImpl, dim: int, *, dtype: DType | None) -> Any:
    """cumprod in place. Torch: cumprod_ (structured in-place)."""
    return _cumulative("cumprod", self, dim, dtype, self, True)


# --- cummax, cummin ------------------------------------------------------------------------


def _cum_extreme_out(
    name: str, self: TensorImpl, dim: int, values: TensorImpl, indices: TensorImpl
) -> tuple[Any, Any]:
    """Torch: cummax_out / cummin_out (ReduceOps.cpp): dtypes checked, then `dim`, the outputs
    resized to self's size; a 0-dim input is its own result, an empty one has nothing to do."""
    check_scalar_type(values, self._dtype)
    check_scalar_type(indices, int64)
    resize_output(values, self._size)
    resize_output(indices, self._size)
    if not self._size:
        if dim not in (-1, 0):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        aten.fill_.Tensor(values, self)
        aten.fill_.Scalar(indices, 0)
    elif geometry.numel(self._size):
        # torch: `dim` is wrapped (and checked) only when there are elements to scan.
        axis = geometry.wrap_dim(dim, len(self._size))
        helper = aten._cummax_helper if name == "cummax" else aten._cummin_helper
        helper.default(self, values, indices, axis)
    return values, indices


def _cum_extreme_helper(
    name: str, self: TensorImpl, values: TensorImpl, indices: TensorImpl, dim: int
) -> None:
    """Torch: cummax_helper_cpu / cummin_helper_cpu. See `_scan.cumulative_extreme` for the
    rule on equal values and NaN."""
    if self._dtype.is_complex:
        raise not_implemented(f"{name}_cpu", self._dtype)
    if not has_data(self):
        return
    xp = xp_of(self)
    axis = geometry.wrap_dim(dim, len(self._size))
    a = _scan.last_axis(xp, array_of(self), axis)
    best, where = _scan.cumulative_extreme(xp, a, largest=name == "cummax")
    write_values(values, _scan.from_last_axis(xp, best, axis))
    write_values(indices, _scan.from_last_axis(xp, where, axis))


cummax = defop("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)")


@registered(cummax)
def cummax_kernel(self: TensorImpl, dim: int) -> Any:
    """Running maximum along `dim` and where it was. Torch: cummax (ReduceOps.cpp)."""
    values, indices = new_tensor(self, self._size, self._dtype), new_tensor(self, self._size, int64)
    return tuple(aten.cummax.out(self, dim, values=values, indices=indices))


@cummax.derivative("self")
def cummax_backward(grad: Tensor, self: Tensor, indices: Tensor, dim: int) -> Tensor:
    # torch: cummaxmin_backward(grad, self, indices, dim)
    return cummaxmin_backward(grad, self, indices, dim)


cummax_out = defop(
    "cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> "
    "(Tensor(a!) values, Tensor(b!) indices)"
)


@registered(cummax_out)
def cummax_out_kernel(
    self: TensorImpl, dim: int, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """cummax into `values` and `indices`. Torch: cummax_out."""
    return _cum_extreme_out("cummax", self, dim, values, indices)


_cummax_helper = defop(
    "_cummax_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) -> ()"
)


@registered(_cummax_helper)
def _cummax_helper_kernel(
    self: TensorImpl, values: TensorImpl, indices: TensorImpl, dim: int
) -> None:
    """The running maximum written into sized outputs. Torch: cummax_helper_cpu."""
    _cum_extreme_helper("cummax", self, values, indices, dim)


cummin = defop("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)")


@registered(cummin)
def cummin_kernel(self: TensorImpl, dim: int) -> Any:
    """Running minimum along `dim` and where it was. Torch: cummin (ReduceOps.cpp)."""
    values, indices = new_tensor(self, self._size, self._dtype), new_tensor(self, self._size, int64)
    return tuple(aten.cummin.out(self, dim, values=values, indices=indices))


cummin.derivative("self")(cummax_backward)


cummin_out = defop(
    "cummin.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> "
    "(Tensor(a!) values, Tensor(b!) indices)"
)


@registered(cummin_out)
def cummin_out_kernel(
    self: TensorImpl, dim: int, *, values: TensorImpl, indices: TensorImpl
) -> Any:
    """cummin into `values` and `indices`. Torch: cummin_out."""
    return _cum_extreme_out("cummin", self, dim, values, indices)


_cummin_helper = defop(
    "_cummin_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) -> ()"
)


@registered(_cummin_helper)
def _cummin_helper_kernel(
    self: TensorImpl, values: TensorImpl, indices: TensorImpl, dim: int
) -> None:
    """The running minimum written into sized outputs. Torch: cummin_helper_cpu."""
    _cum_extreme_helper("cummin", self, values, indices, dim)


# --- logcumsumexp ---------------------------------------------------------------------------


def _logcumsumexp_into(self: TensorImpl, dim: int, out: TensorImpl | None) -> Any:
    """Torch: _logcumsumexp_cpu / _logcumsumexp_out_cpu and logcumsumexp_cpu_kernel (one
    pass per row in acc_type with log-add-exp; here a doubling scan of the same step)."""
    axis = geometry.wrap_dim(dim, len(self._size))
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise not_implemented("logcumsumexp_out_cpu", self._dtype)
    if out is not None:
        resize_output(out, self._size)
    values = None
    if has_data(self):
        xp = xp_of(self)
        array = input_array(self, _scan.scan_accumulate_dtype(self._dtype))
        if self._size and geometry.numel(self._size):
            moved = _scan.last_axis(xp, array, axis)
            if self._dtype.is_complex:
                moved = _scan.complex_log_cumsum_exp(xp, moved)
            else:
                (moved,) = _scan.doubling_scan(xp, (moved,), _scan.log_add_exp_combine)
            array = _scan.from_last_axis(xp, moved, axis)
        values = array
    return finish(self, values, self._size, self._dtype, out)


logcumsumexp = defop("logcumsumexp(Tensor self, int dim) -> Tensor")


@logcumsumexp.kernel(CEA)
def logcumsumexp_kernel(self: TensorImpl, dim: int) -> Any:
    """log of the running sum of exp along `dim`. Torch: logcumsumexp (ReduceOps.cpp)."""
    return aten._logcumsumexp.default(self, dim)


@logcumsumexp.derivative("self")
def logcumsumexp_backward_self(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    # torch: logcumsumexp_backward(grad, self, result, dim)
    return logcumsumexp_backward(grad, self, result, dim)


logcumsumexp_out = defop("logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)")


@logcumsumexp_out.kernel(CEA)
def logcumsumexp_out_kernel(self: TensorImpl, dim: int, *, out: TensorImpl) -> Any:
    """logcumsumexp into `out`, whose dtype must be self's. Torch: logcumsumexp_out."""
    check_scalar_type(out, self._dtype)
    return aten._logcumsumexp.out(self, dim, out=out)


_logcumsumexp = defop("_logcumsumexp(Tensor self, int dim) -> Tensor")


@registered(_logcumsumexp)
def _logcumsumexp_kernel(self: TensorImpl, dim: int) -> Any:
    """Torch: _logcumsumexp_cpu."""
    return _logcumsumexp_into(self, dim, None)


_logcumsumexp_out = defop(
    "_logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(_logcumsumexp_out)
def _logcumsumexp_out_kernel(self: TensorImpl, dim: int, *, out: TensorImpl) -> Any:
    """Torch: _logcumsumexp_out_cpu."""
    return _logcumsumexp_into(self, dim, out)


# --- trace ----------------------------------------------------------------------------------

trace = defop("trace(Tensor self) -> Tensor")


@registered(trace)
def trace_kernel(self: TensorImpl) -> Any:
    """The sum of the main diagonal of a matrix; integers sum to int64.

    Torch: trace_cpu (ReduceOps.cpp): 2-D only, accumulated in acc_type.
    """
    if self._dtype is bool_:
        raise not_implemented("trace", self._dtype)
    if len(self._size) != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {len(self._size)}")
    result_dtype = self._dtype if self._dtype.is_floating_point or self._dtype.is_complex else int64
    values = None
    if has_data(self):
        xp = xp_of(self)
        diagonal = aten.diagonal.default(self)
        accumulate = _scan.scan_accumulate_dtype(result_dtype)
        values = xp.sum(input_array(diagonal, accumulate))
    return finish(self, values, (), result_dtype, None)


@trace.derivative("self")
def trace_backward_self(grad: Tensor, self_sym_sizes: Sequence[int]) -> Tensor:
    # torch: trace_backward_symint(grad, self.sym_sizes())
    return trace_backward(grad, self_sym_sizes)


trace_out = defop("trace.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")


@trace_out.kernel(CEA)
def trace_out_kernel(self: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: the generated out= form of trace (functional result copied into `out`)."""
    return same_as_out(aten.trace.default(self), out)


# --- diff -----------------------------------------------------------------------------------


def _diff_check(
    self: TensorImpl, n: int, dim: int, prepend: TensorImpl | None, append: TensorImpl | None
) -> None:
    """Torch: diff_check (ReduceOps.cpp). `dim` is checked here only when there is a tensor
    to prepend or append (otherwise by the first narrow, which n = 0 never runs)."""
    ndim = len(self._size)
    if ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is None:
            continue
        axis = geometry.wrap_dim(dim, ndim)
        if len(other._size) != ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(ndim):
            if i != axis and other._size[i] != self._size[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({i}) = "
                    f"{self._size[i]}, but got tensor.size({i}) = {other._size[i]}"
                )


def _diff_input(
    self: TensorImpl, dim: int, prepend: TensorImpl | None, append: TensorImpl | None
) -> Any:
    """Torch: prepend_append_on_dim: `cat([prepend, self, append], dim)` when given."""
    if prepend is None and append is None:
        return self
    parts = [t for t in (prepend, self, append) if t is not None]
    return aten.cat.default(parts, dim)


def _diff_step(a: TensorImpl, dim: int, out: TensorImpl | None) -> Any:
    """One difference along `dim`: later minus earlier, logical_xor for bool.

    Torch: diff_helper (ReduceOps.cpp): narrow(1, len) - narrow(0, len).
    """
    length = max(a._size[geometry.wrap_dim(dim, len(a._size))] - 1, 0)
    # torch's op log shows the earlier slice first (C++ evaluates the operands right to left).
    earlier = aten.narrow.default(a, dim, 0, length)
    later = aten.narrow.default(a, dim, 1 if length else 0, length)
    if a._dtype is bool_:
        if out is None:
            return aten.logical_xor.default(later, earlier)
        return aten.logical_xor.out(later, earlier, out=out)
    if out is None:
        return aten.sub.Tensor(later, earlier)
    return aten.sub.out(later, earlier, out=out)


diff = defop(
    "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor"
)


@diff.decomposition
def diff_decomposition(
    self: TensorImpl,
    n: int,
    dim: int,
    prepend: TensorImpl | None,
    append: TensorImpl | None,
) -> Any:
    """The n-th forward difference along `dim`, after prepending/appending.

    Torch: diff (ReduceOps.cpp, CompositeImplicitAutograd): n = 0 gives a copy; n larger
    than the dim's size stops at an empty result.
    """
    _diff_check(self, n, dim, prepend, append)
    if n == 0:
        # torch: diff ignores prepend and append when n is 0.
        return aten.copy_.default(aten.zeros_like.default(self), self)
    a = _diff_input(self, dim, prepend, append)
    for _ in range(min(n, a._size[geometry.wrap_dim(dim, len(a._size))])):
        a = _diff_step(a, dim, None)
    return a


diff_out = defop(
    "diff.out(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@diff_out.decomposition
def diff_out_decomposition(
    self: TensorImpl,
    n: int,
    dim: int,
    prepend: TensorImpl | None,
    append: TensorImpl | None,
    *,
    out: TensorImpl,
) -> Any:
    """diff into `out`: the last difference is written by sub.out / logical_xor.out.

    Torch: diff_out (ReduceOps.cpp); for n = 0, out's dtype must be self's.
    """
    _diff_check(self, n, dim, prepend, append)
    if n == 0:
        check_scalar_type(out, self._dtype)
        resize_output(out, self._size)
        return aten.copy_.default(out, self)
    a = _diff_input(self, dim, prepend, append)
    steps = min(n, a._size[geometry.wrap_dim(dim, len(a._size))])
    for _ in range(max(steps - 1, 0)):
        a = _diff_step(a, dim, None)
    return _diff_step(a, dim, out)


# --- sum_to_size ----------------------------------------------------------------------------

sum_to_size = defop("sum_to_size(Tensor self, SymInt[] size) -> Tensor")


@sum_to_size.decomposition
def sum_to_size_decomposition(self: TensorImpl, size: list[int]) -> Any:
    """`self` summed down to `size`, a shape it can be expanded from; self if already so.

    Torch: sum_to_size (ReduceOps.cpp) over at::sum_to (ExpandUtils.h): the leading dims
    and the dims where `size` is 1 are summed with keepdim, then the leading ones viewed away.
    """
    shape = tuple(size)
    lead = len(self._size) - len(shape)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(shape, self._size[lead:], strict=True)):
        raise RuntimeError(
            f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
            f"{{[{', '.join(map(str, self._size))}]}}."
        )
    if not shape:
        return aten.sum.default(self)
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(shape) if s == 1 and self._size[lead + i] != 1
    ]
    result: Any = self
    if dims:
        result = aten.sum.dim_IntList(self, dims, True)
    if lead:
        result = aten.view.default(result, list(shape))
    return result
