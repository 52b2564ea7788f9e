"""What every reduction shares: its dims, its output's shape, dtype and layout, and `out=`.

Torch: aten/src/ATen/native/ReduceOpsUtils.h (make_dim_mask, get_reduction_shape,
resize_reduction, zero_numel_check_dims, get_dtype_from_self), infer_dtype_from_optional in
ReduceOps.cpp, and the code torchgen writes for the out= form of a CompositeExplicitAutograd
op (resize_out_helper, copy_arg). A reduction kernel here reads as torch's meta function
followed by its compute:

    dims = reduction_dims(dim, self.ndim)               # wrapped, checked; None, [] -> all
    result_dtype = dtype_from_optional(self, dtype, out)  # sum: ints -> int64, or out's
    shape = reduction_output(self, dims, keepdim, result_dtype, out)  # checks, resizes out
    if not has_data(self):                              # meta: metadata only
        return finish(self, None, shape, result_dtype, out)
    values = xp.sum(input_array(self, ...), axis=axes(self, dims), keepdims=keepdim)
    return finish(self, values, shape, result_dtype, out)  # cast; into out, or a new tensor

Every check runs before any write, so a failing call leaves `out` as it was; the data part
runs only for tensors with data, so one body serves CPU, CUDA and Meta.
See Note [Reduction output layout].

The meta part of the common reductions is a function returning a `Plan` (dims, result
geometry, result and compute dtypes), cached per reduction by `Reduction`; see
Note [Reduction fast path]:

    p = _sum_meta(self, out, dim, keepdim, dtype)       # @Reduction: cached
    if p.backend is None:                               # meta: metadata only
        return p.finish(None, out)
    values = p.xp.sum(p.read(self), axis=p.axis, ...)   # the compute
    return p.finish(values, out)                        # cast; into out, or a new tensor
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from refimpl._base.device import device
from refimpl._base.dtypes import DType, float16, float32, float64, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    result_maker,
    tensor_over,
    write_array,
)
from refimpl.ops import data
from refimpl.ops._outputs import resize_output
from refimpl.ops._register import OpBlock
from refimpl.ops.selection import type_meta_name

Shape = tuple[int, ...]
F = TypeVar("F", bound=Callable[..., Any])

_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
_MAX_DIMS: Final = 64

# Note [Reduction output layout]
# torch allocates a reduction's result with resize_reduction (ReduceOpsUtils.h), which calls
# set_output_raw_strided with no strides: the result is contiguous whatever the input's
# layout (a permuted or channels-last input included), keepdim or not. Measured on torch 2.13
# for sum, mean, prod, amax, max.dim (values and indices), argmax, var, any, logsumexp, norm,
# aminmax and var_mean; conformance/test_reductions_random.py holds refimpl to it.


def implements(block: OpBlock) -> Callable[[F], F]:
    """Register the decorated body for the keys torch registers this overload under.

    Torch: the `dispatch:` entry of native_functions.yaml: CompositeExplicitAutograd where
    torch has it, else CPU, CUDA and Meta kernels (one body here; see the module docstring).
    """

    def register(fn: F) -> F:
        if block.spec.cea:
            block.kernel(DispatchKey.CompositeExplicitAutograd)(fn)
        else:
            for key in _BACKEND_KEYS:
                block.kernel(key)(fn)
        return fn

    return register


# --- dims ------------------------------------------------------------------------------------


def reduction_dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """The dims a reduction reduces, wrapped and sorted; None or [] mean every dim.

    Torch: make_dim_mask (ReduceOpsUtils.h) over maybe_wrap_dims: a dim out of range raises
    IndexError "Dimension out of range (expected to be in range of [-2, 1], but got 2)", a
    dim named twice RuntimeError "dim 0 appears multiple times in the list of dims". A 0-dim
    tensor accepts dims 0 and -1, and reduces to itself.
    """
    if dim is None:
        return tuple(range(ndim))
    if ndim > _MAX_DIMS and (isinstance(dim, int) or len(dim) > 0):
        # torch: dim_list_to_bitset (WrapDimUtilsMulti.h) holds dims in a 64-bit set.
        raise RuntimeError(f"only tensors with up to {_MAX_DIMS} dims are supported")
    if isinstance(dim, int):
        return (geometry.wrap_dim(dim, ndim),) if ndim else _scalar_dims((dim,))
    if len(dim) == 0:
        return tuple(range(ndim))
    wrapped = geometry.dim_list(dim, ndim)
    return tuple(sorted(wrapped)) if ndim else ()


def _scalar_dims(dims: Sequence[int]) -> tuple[int, ...]:
    # A 0-dim tensor's dims wrap as for one dim, but there is no axis to reduce.
    geometry.dim_list(dims, 0)
    return ()


def reduced_shape(size: Shape, dims: Sequence[int], keepdim: bool) -> Shape:
    """The result's shape: reduced dims become 1 (keepdim) or go. Torch: get_reduction_shape."""
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(size))
    return tuple(n for i, n in enumerate(size) if i not in dims)


def axes(self: TensorImpl, dims: tuple[int, ...]) -> tuple[int, ...] | None:
    """The `axis` argument of an Array API reduction over `dims` (None for a 0-dim tensor,
    whose array has no axis but is its own reduction)."""
    return dims if self._size else None


def check_nonzero_dims(
    self: TensorImpl, dim: int | Sequence[int] | None, name: str, *, wrapped: bool = False
) -> None:
    """Errors for a reduction without identity (amax, max.dim) over an empty dim.

    Torch: zero_numel_check_dims (ReduceOpsUtils.h). For each dim named, in the order given,
    IndexError "amax(): Expected reduction dim -2 to have non-zero size." (the dim as
    written); with none named (None or []), RuntimeError "... Expected reduction dim to be
    specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.";
    `name` is the prefix torch prints; `wrapped` names the dim wrapped, as max.dim, aminmax
    and argmax do (amax names it as written). Call it after `reduction_dims` has checked the
    dims.
    """
    dims = (dim,) if isinstance(dim, int) else tuple(dim or ())
    if not dims:
        if geometry.numel(self._size) == 0:
            raise RuntimeError(
                f"{name}: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    if not self._size:
        return
    for d in dims:
        axis = geometry.wrap_dim(d, len(self._size))
        if self._size[axis] == 0:
            shown = axis if wrapped else d
            raise IndexError(f"{name}: Expected reduction dim {shown} to have non-zero size.")


def not_implemented(kernel_name: str, dtype: DType) -> NotImplementedError:
    """Torch's error for a dtype a CPU kernel's AT_DISPATCH switch lacks.

    Torch: AT_DISPATCH_* ('"sum_cpu" not implemented for 'ComplexHalf'').
    """
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


# --- dtypes ----------------------------------------------------------------------------------


def dtype_from_self(self: TensorImpl, dtype: DType | None, promote_integers: bool) -> DType:
    """The dtype of sum/prod-like reductions: `dtype` if given, int64 for bool and integer
    inputs when `promote_integers`, else the input's. Torch: get_dtype_from_self."""
    if dtype is not None:
        return dtype
    if promote_integers and not (self._dtype.is_floating_point or self._dtype.is_complex):
        return int64
    return self._dtype


def dtype_from_optional(self: TensorImpl, dtype: DType | None, out: TensorImpl | None) -> DType:
    """`dtype` if given, else `out`'s dtype (an out= call computes in it), else
    `dtype_from_self` with integer promotion. Torch: infer_dtype_from_optional."""
    if dtype is not None:
        return dtype
    if out is not None:
        return out._dtype
    return dtype_from_self(self, None, promote_integers=True)


def is_float_or_complex(dtype: DType) -> bool:
    """Whether `dtype` is a floating point or complex dtype (mean, var, norms need one)."""
    return dtype.is_floating_point or dtype.is_complex


def to_real(dtype: DType) -> DType:
    """The real dtype of a complex one (var, std and norms of complex inputs are real).

    Torch: c10::toRealValueType.
    """
    return _REAL_OF.get(dtype.name, dtype)


_REAL_OF: Final[dict[str, DType]] = {
    "complex32": float16,
    "complex64": float32,
    "complex128": float64,
}


def accumulate_dtype(dtype: DType) -> DType:
    """The dtype torch's CPU reductions accumulate `dtype` in: float16 and bfloat16 sum in
    float32 and round once at the end. Torch: at::opmath_type / acc_type on CPU."""
    if dtype.is_floating_point and dtype.itemsize == 2:
        return float32
    return dtype


def check_out_dtype(out: TensorImpl, expected: DType) -> None:
    """RuntimeError unless `out` has the dtype the op computes.

    Torch: resize_reduction's check and copy_arg in the generated out= wrappers: "Expected
    out tensor to have dtype float, but got double instead" (caffe2 TypeMeta names).
    """
    if out._dtype is not expected:
        raise RuntimeError(
            f"Expected out tensor to have dtype {type_meta_name(expected)}, but got "
            f"{type_meta_name(out._dtype)} instead"
        )


# --- outputs ---------------------------------------------------------------------------------


def reduction_output(
    self: TensorImpl,
    dims: tuple[int, ...],
    keepdim: bool,
    dtype: DType,
    out: TensorImpl | None,
) -> Shape:
    """The result's shape, after checking `out`'s dtype and resizing it to that shape.

    Torch: resize_reduction (ReduceOpsUtils.h) in a structured reduction's meta function.
    """
    shape = reduced_shape(self._size, dims, keepdim)
    if out is not None:
        check_out_dtype(out, dtype)
        resize_output(out, shape)
    return shape


def has_data(t: TensorImpl) -> bool:
    """Whether `t` holds data (meta tensors do not: their kernels stop after the checks)."""
    return t._storage.backend is not None


def finish(
    self: TensorImpl, values: Array | None, shape: Shape, dtype: DType, out: TensorImpl | None
) -> Any:
    """The result: `values` (the reduced array; None for meta) cast to `dtype` and written
    into `out`, or a new contiguous tensor on `self`'s device holding them (no copy).

    Torch: the structured kernel's output; see Note [Reduction output layout].
    """
    storage = self._storage
    backend = storage.backend
    if out is not None:
        return _finish_out(values, shape, dtype, out)
    stride = geometry.contiguous_strides(shape)
    if values is None or backend is None:
        return tensor_over(None, shape, stride, dtype, storage.device, None)
    xp = backend.xp
    values = cast_to(xp, values, dtype, backend)
    if tuple(values.shape) != shape:
        values = xp.reshape(values, shape)
    return tensor_over(values, shape, stride, dtype, storage.device, backend)


def _finish_out(values: Array | None, shape: Shape, dtype: DType, out: TensorImpl) -> Any:
    # `values` cast to `dtype` and written into `out` (already resized to `shape`).
    backend = out._storage.backend
    if values is not None and backend is not None:
        xp = backend.xp
        values = cast_to(xp, values, dtype, backend)
        write_array(out, xp.reshape(values, shape) if tuple(values.shape) != shape else values)
    return out


def cast_to(xp: Any, array: Array, dtype: DType, backend: Backend) -> Array:
    """`array` converted to the tensor dtype `dtype` as torch's copy converts (no-op if same)."""
    if array.dtype == backend_dtype(backend, dtype):
        return array
    source = backend.dtype_of(array)
    if source is None:
        raise TypeError(f"refimpl: no tensor dtype for array dtype {array.dtype}")
    return data.cast_array(xp, array, source, dtype, backend)


def input_array(self: TensorImpl, dtype: DType) -> Array:
    """`self`'s values converted to `dtype` (the dtype the reduction computes in)."""
    backend = self._storage.backend
    array = array_of(self)
    if self._dtype is dtype or backend is None:
        return array
    return data.cast_array(backend.xp, array, self._dtype, dtype, backend)


def same_as_out(result: TensorImpl, out: TensorImpl) -> Any:
    """The out= form torch generates for a CompositeExplicitAutograd op: `out` is resized to
    the functional result's shape, its dtype must be the result's, then the result is copied.

    Torch: resize_out_helper, then copy_arg, in the generated RegisterCompositeExplicitAutograd
    (so a wrong dtype raises after `out` was resized, as in torch).
    """
    resize_output(out, result._size)
    check_out_dtype(out, result._dtype)
    backend = out._storage.backend
    if backend is None:
        return out
    write_array(out, array_of(result))
    return out


# --- computes --------------------------------------------------------------------------------


def extreme(xp: Any, a: Any, axis: tuple[int, ...] | None, keepdim: bool, largest: bool) -> Any:
    """max/min of `a` over `axis`, NaN propagating; bool as any/all (the standard's max and
    min take numeric arrays only)."""
    if a.dtype == xp.bool:
        return (xp.any if largest else xp.all)(a, axis=axis, keepdims=keepdim)
    return (xp.max if largest else xp.min)(a, axis=axis, keepdims=keepdim)


def arg_extreme(xp: Any, a: Any, axis: int | None, keepdim: bool, largest: bool) -> Any:
    """The first index of the max (min), NaN counting as the largest; bool through uint8."""
    if a.dtype == xp.bool:
        a = xp.astype(a, xp.uint8)
    if axis is None and a.ndim == 0:
        return xp.zeros((), dtype=xp.int64)
    return (xp.argmax if largest else xp.argmin)(a, axis=axis, keepdims=keepdim)


# --- plans -----------------------------------------------------------------------------------

# Note [Reduction fast path]
# A reduction's meta function (its checks, the wrapped dims, the result's shape and strides,
# the result dtype, the dtype the input is read in) depends only on the input's metadata
# (dtype, shape, device, backend) and the reduction's arguments (dim, keepdim, dtype, ...):
# never on values, nor on the input's strides (the result is contiguous; Note [Reduction
# output layout]). `Reduction` caches its answer, a `Plan`, under that key, for calls on
# tensors with data and without out= (an out= call resizes `out`, which is not an answer to
# cache; a meta tensor stops after the meta function anyway). Errors are never cached, so a
# failing call fails the same way every time; warnings and value-dependent errors belong to
# the compute part, which runs on every call. A repeated call thus only fetches the input
# array, reduces it and wraps the result (`Plan.finish`, one tensor_over). Compare
# Note [Pointwise fast path] in _pointwise.py.


class Plan:
    """The meta function's decisions for one reduction call (see Note [Reduction fast path]).

    `dims` are the reduced dims (wrapped, sorted), `axis` the Array API `axis` argument for
    them (None for a 0-dim input), `shape` and `stride` the result's contiguous geometry,
    `count` the number of elements each result element reduces; `dtype` is the result's
    dtype, `compute` the dtype `read` gives the input in.
    """

    __slots__ = (
        "array_dtype",
        "axis",
        "backend",
        "compute",
        "count",
        "device",
        "dims",
        "dtype",
        "keepdim",
        "make",
        "shape",
        "stride",
        "xp",
    )

    def __init__(
        self, self_: TensorImpl, dims: tuple[int, ...], keepdim: bool, dtype: DType, compute: DType
    ) -> None:
        size = self_._size
        self.dims = dims
        self.axis = dims if size else None
        self.keepdim = keepdim
        self.shape = reduced_shape(size, dims, keepdim)
        self.stride = geometry.contiguous_strides(self.shape)
        count = 1
        for d in dims:
            count *= size[d]
        self.count = count
        self.dtype = dtype
        self.compute = compute
        storage = self_._storage
        self.device: device = storage.device
        self.backend = backend = storage.backend
        self.xp: Any = None if backend is None else backend.xp
        self.array_dtype = None if backend is None else backend.array_dtypes.get(dtype)
        # The result's maker (tensor_over with what depends on the geometry decided once),
        # made by the first `finish` of a cached plan.
        self.make: Callable[[Array], Any] | None = None

    def read(self, self_: TensorImpl) -> Array:
        """`self_`'s values in the compute dtype. Torch: the iterator's input conversion."""
        array = array_of(self_)
        if self_._dtype is self.compute:
            return array
        return data.cast_array(self.xp, array, self_._dtype, self.compute, self.backend)  # type: ignore[arg-type]  # read only with data

    def finish(self, values: Array | None, out: TensorImpl | None) -> Any:
        """The result: `values` (the reduced array; None for meta) in the result dtype,
        written into `out` or wrapped as a new contiguous tensor (no copy). See `finish`."""
        if out is not None or values is None:
            return finish_as(self, values, self.dtype, out)
        found = values.dtype  # numpy's dtypes are singletons: `is` answers most calls
        if found is not self.array_dtype and found != self.array_dtype:
            return finish_as(self, values, self.dtype, out)
        if values.shape != self.shape:
            values = self.xp.reshape(values, self.shape)
        make = self.make
        if make is None:
            make = self.make = result_maker(
                self.shape, self.stride, self.dtype, self.device, self.backend  # type: ignore[arg-type]  # values: a backend
            )
        return make(values)


def finish_as(p: Plan, values: Array | None, dtype: DType, out: TensorImpl | None) -> Any:
    """`Plan.finish` for a result of dtype `dtype` (a second output: max.dim's indices)."""
    if out is not None:
        return _finish_out(values, p.shape, dtype, out)
    if values is None or p.backend is None:
        return tensor_over(None, p.shape, p.stride, dtype, p.device, None)
    values = cast_to(p.xp, values, dtype, p.backend)
    if values.shape != p.shape:
        values = p.xp.reshape(values, p.shape)
    return tensor_over(values, p.shape, p.stride, dtype, p.device, p.backend)


def plan(
    self: TensorImpl,
    dims: tuple[int, ...],
    keepdim: bool,
    dtype: DType,
    out: TensorImpl | None,
    compute: DType | None = None,
) -> Plan:
    """The plan of a reduction over `dims` into `dtype` (read in `compute`, default `dtype`),
    after checking `out`'s dtype and resizing it to the result's shape.

    Torch: resize_reduction (ReduceOpsUtils.h) in a structured reduction's meta function.
    """
    p = Plan(self, dims, keepdim, dtype, dtype if compute is None else compute)
    if out is not None:
        check_out_dtype(out, dtype)
        resize_output(out, p.shape)
    return p


class Reduction:
    """One reduction's meta function, with its plans cached (Note [Reduction fast path]); use
    it as a decorator: the decorated meta function is called as before.

    `meta(self, out, *args)` checks the call (resizing `out`) and returns its Plan; `out` is
    the out= tensor, or the tuple of them of a multi-output op (None without out=), `args`
    the reduction's other arguments after `self`: the dim first (an int, None, or a list),
    then hashable values (keepdim, dtype, ...).
    """

    __slots__ = ("_meta", "_plans")

    def __init__(self, meta: Callable[..., Plan]) -> None:
        self._meta = meta
        self._plans: dict[tuple[object, ...], Plan] = {}

    def __call__(self, self_: TensorImpl, out: object, *args: Any) -> Plan:
        """The plan of this call: cached for tensors with data and no `out`."""
        storage = self_._storage
        backend = storage.backend
        if out is not None or backend is None:
            return self._meta(self_, out, *args)
        if args and type(args[0]) is list:
            args = (tuple(args[0]), *args[1:])  # a dim list (from the binder) keys as a tuple
        key = (self_._dtype, self_._size, self_._key_set, backend, storage.device._index, args)
        found = self._plans.get(key)
        if found is None:
            found = self._meta(self_, None, *args)
            if len(self._plans) >= 1024:
                self._plans.clear()
            self._plans[key] = found
        return found
