"""segment_reduce (torch.segment_reduce, torch._segment_reduce) and _segment_reduce_backward.

Torch: aten/src/ATen/native/SegmentReduce.cpp (segment_reduce_kernel,
_segment_reduce_lengths_cpu_kernel1, _segment_reduce_cpu_lengths_backward_kernel1,
_segment_reduce_backward_kernel), the Meta registration meta_segment_reduce in
torch/_meta_registrations.py, and get_reduction_enum (native/ReductionType.h).

`data` is cut along `axis` into consecutive segments, given per row of the dims before `axis`
by `lengths` (segment lengths) or `offsets` (segment bounds, one more than the segments);
`axis` must be the last dim of lengths/offsets. Each segment reduces (sum, prod, mean, max or
amax, min or amin) from `initial`, or from the reduction's identity (mean: 0, NaN for an
empty segment). torch's CPU loop accumulates in the data's dtype, one element after the
other, and a NaN sticks in max/min; the kernels here follow that order, vectorised over the
dims after `axis`. Rows are read from the flattened contiguous data as torch's pointer
arithmetic reads them, so `unsafe` lengths that do not sum to the dim's size behave alike.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64, int32, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, array_of, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._reduction import has_data, same_as_out
from refimpl.ops._register import OpBlock, defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

Scalar = bool | int | float | complex

# torch: get_reduction_enum (native/ReductionType.h): the names segment_reduce accepts.
_REDUCTIONS: Final = {
    "max": "max",
    "amax": "max",
    "mean": "mean",
    "min": "min",
    "amin": "min",
    "sum": "sum",
    "prod": "prod",
}
# torch: AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf) of the data loop.
_DATA_DTYPES: Final = (float64, float32, bfloat16, float16)


def _register(block: OpBlock, fn: Any) -> None:
    # torch registers CPU and CUDA kernels and a Meta one; one body serves them all.
    for key in _BACKEND_KEYS:
        block.kernel(key)(fn)


def _reduction(reduce: str) -> str:
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    return _REDUCTIONS[reduce]


def _check_dtypes(data: DType, bounds: DType, offsets: bool) -> None:
    """torch: AT_DISPATCH_INDEX_TYPES over lengths/offsets, then the floating dispatch."""
    if bounds not in (int32, int64):
        loop = "offsets" if offsets else "lengths"
        raise NotImplementedError(
            f"\"_segment_reduce_{loop}_cpu_kernel1\" not implemented for '{bounds.scalar_name}'"
        )
    if data not in _DATA_DTYPES:
        raise NotImplementedError(
            f"\"_segment_reduce_cpu\" not implemented for '{data.scalar_name}'"
        )


def _segments(bounds: TensorImpl, offsets: bool) -> list[list[tuple[int, int]]]:
    """Per row of `bounds` (its dims but the last, flattened), each segment's (start, end)
    along the axis. Torch: the segment_start / segment_end walk of the CPU kernels."""
    backend = bounds._storage.backend
    assert backend is not None
    width = bounds._size[-1] if bounds._size else 1
    flat: list[int] = backend.tolist(backend.xp.reshape(array_of(bounds), (-1,)))
    rows = []
    for r in range(len(flat) // width if width else 0):
        row = flat[r * width : (r + 1) * width]
        if offsets:
            rows.append(list(itertools.pairwise(row)))
        else:
            starts = [sum(row[:i]) for i in range(len(row))]
            rows.append([(s, s + n) for s, n in zip(starts, row)])
    return rows


def _geometry(data: TensorImpl, axis: int) -> tuple[int, int, int]:
    """(outer, size along axis, inner) of `data`'s contiguous layout."""
    outer = math.prod(data._size[:axis])
    return outer, data._size[axis], math.prod(data._size[axis + 1 :])


# --- segment_reduce ---------------------------------------------------------------------------

segment_reduce = defop(
    "segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
    "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor"
)


def segment_reduce_kernel(
    data: TensorImpl,
    reduce: str,
    *,
    lengths: TensorImpl | None,
    indices: TensorImpl | None,
    offsets: TensorImpl | None,
    axis: int,
    unsafe: bool,
    initial: Scalar | None,
) -> Any:
    """Torch: segment_reduce_kernel (checks, in its order) and the CPU loops."""
    axis = geometry.wrap_dim(axis, len(data._size))
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    reduction = _reduction(reduce)
    bounds = offsets if offsets is not None else lengths
    assert bounds is not None
    name = "offsets" if offsets is not None else "lengths"
    if data.device != bounds.device:
        raise RuntimeError(
            f"Expected data.get_device() == {name}_value.get_device() to be true, but got "
            "false.  (Could this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)"
        )
    if len(data._size) < len(bounds._size):
        raise RuntimeError(
            f"Expected data.dim() >= {name}_value.dim() to be true, but got false.  (Could "
            "this error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"
        )
    if axis != len(bounds._size) - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {name} but got {axis}."
        )
    if offsets is None and not unsafe and has_data(bounds):
        if math.prod(bounds._size) == 0:  # torch: lengths.min() of nothing
            raise RuntimeError(
                "min(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        if bool(aten.lt.Scalar(aten.min.default(bounds), 0).item()):
            raise RuntimeError("lengths contains negative value!")
        sums = aten.sum.dim_IntList(bounds, [-1], False)
        if not bool(aten.all.default(aten.eq.Scalar(sums, data._size[axis])).item()):
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
    _check_dtypes(data._dtype, bounds._dtype, offsets is not None)
    count = bounds._size[axis] - (1 if offsets is not None else 0)
    size = (*data._size[:axis], count, *data._size[axis + 1 :])
    stride = geometry.contiguous_strides(size)
    device, backend = data._storage.device, data._storage.backend
    if backend is None or not has_data(bounds):
        return tensor_over(None, size, stride, data._dtype, device, None)
    xp = backend.xp
    outer, along, inner = _geometry(data, axis)
    rows = xp.reshape(array_of(data), (outer * along, inner))
    dtype = rows.dtype
    results = []
    for o, segments in zip(range(outer), _segments(bounds, offsets is not None)):
        for start, end in segments:
            results.append(_reduce(xp, rows, o * along, start, end, reduction, initial, dtype))
    values = xp.reshape(xp.stack(results), size) if results else xp.zeros(size, dtype=dtype)
    return tensor_over(values, size, stride, data._dtype, device, backend)


def _reduce(
    xp: Any,
    rows: Array,
    base: int,
    start: int,
    end: int,
    reduction: str,
    initial: Scalar | None,
    dtype: Any,
) -> Array:
    """One segment's reduction. Torch: steps 1-3 of _segment_reduce_lengths_cpu_kernel1."""
    identity = {"max": -math.inf, "min": math.inf, "mean": 0, "sum": 0, "prod": 1}[reduction]
    inner = rows.shape[1]
    acc = xp.full((inner,), identity if initial is None else initial, dtype=dtype)
    for j in range(start, end):
        value = rows[base + j, :]
        if reduction == "max":  # isnan(val) ? val : std::max(acc, val)
            acc = xp.where(xp.isnan(value) | (acc < value), value, acc)
        elif reduction == "min":  # isnan(val) ? val : std::min(acc, val)
            acc = xp.where(xp.isnan(value) | (value < acc), value, acc)
        elif reduction == "prod":
            acc = acc * value
        else:
            acc = acc + value
    length = end - start
    if reduction == "mean":
        if length == 0 and initial is None:
            acc = xp.full((inner,), math.nan, dtype=dtype)
        elif length > 0:
            acc = xp.where(xp.isnan(acc), acc, acc / xp.asarray(length, dtype=dtype))
    return acc


_register(segment_reduce, segment_reduce_kernel)


@segment_reduce.derivative("data")
def segment_reduce_backward(
    grad: Tensor,
    result: Tensor,
    data: Tensor,
    reduce: str,
    lengths: Tensor | None,
    offsets: Tensor | None,
    axis: int,
    initial: Scalar | None,
) -> Tensor:
    # torch: _segment_reduce_backward(grad, result, data, reduce, lengths, offsets, axis,
    #   initial)
    found: Tensor = aten._segment_reduce_backward.default(
        grad, result, data, reduce, lengths=lengths, offsets=offsets, axis=axis, initial=initial
    )
    return found


segment_reduce_out = defop(
    "segment_reduce.out(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
    "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@segment_reduce_out.kernel(CEA)
def segment_reduce_out_kernel(
    data: TensorImpl, reduce: str, *, out: TensorImpl, **options: Any
) -> Any:
    """Torch: the generated out= form (compute, resize `out`, check its dtype, copy)."""
    return same_as_out(aten.segment_reduce.default(data, reduce, **options), out)


# --- _segment_reduce_backward ---------------------------------------------------------------

_segment_reduce_backward = defop(
    "_segment_reduce_backward(Tensor grad, Tensor output, Tensor data, str reduce, *, "
    "Tensor? lengths=None, Tensor? offsets=None, int axis=0, Scalar? initial=None) -> Tensor"
)


def _segment_reduce_backward_kernel(
    grad: TensorImpl,
    output: TensorImpl,
    data: TensorImpl,
    reduce: str,
    *,
    lengths: TensorImpl | None,
    offsets: TensorImpl | None,
    axis: int,
    initial: Scalar | None,
) -> Any:
    """The gradient of segment_reduce for `data`, in `grad`'s dtype.

    Torch: _segment_reduce_backward_kernel and _segment_reduce_cpu_lengths_backward_kernel1:
    sum copies the segment's gradient, mean divides it by the length; max/min give it to
    every element equal to the result (or NaN), then divide the positive ones by their count
    when there are several; prod gives grad * result / x, or grad times the exclusive product
    (from `initial`) where x is 0 or NaN. Empty segments get 0.
    """
    axis = geometry.wrap_dim(axis, len(data._size))
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    reduction = _reduction(reduce)
    bounds = offsets if offsets is not None else lengths
    assert bounds is not None
    _check_dtypes(data._dtype, bounds._dtype, offsets is not None)
    size = data._size
    stride = geometry.contiguous_strides(size)
    device, backend = grad._storage.device, grad._storage.backend
    if backend is None or not (has_data(data) and has_data(output) and has_data(bounds)):
        return tensor_over(None, size, stride, grad._dtype, device, None)
    xp = backend.xp
    outer, along, inner = _geometry(data, axis)
    count = output._size[axis]
    values = xp.reshape(array_of(data), (outer * along, inner))
    grads = xp.reshape(array_of(grad), (outer * count, inner))
    results = xp.reshape(array_of(output), (outer * count, inner))
    dtype = grads.dtype
    zero = xp.zeros((inner,), dtype=dtype)
    rows = [zero] * (outer * along)
    for o, segments in zip(range(outer), _segments(bounds, offsets is not None)):
        for s, (start, end) in enumerate(segments):
            if end - start == 0:
                continue
            g, r = grads[o * count + s, :], results[o * count + s, :]
            span = range(o * along + start, o * along + end)
            _segment_grad(xp, values, g, r, span, rows, reduction, initial, end - start)
    found = xp.reshape(xp.stack(rows), size) if rows else xp.zeros(size, dtype=dtype)
    return tensor_over(found, size, stride, grad._dtype, device, backend)


def _segment_grad(
    xp: Any,
    values: Array,
    g: Array,
    r: Array,
    span: range,
    rows: list[Array],
    reduction: str,
    initial: Scalar | None,
    length: int,
) -> None:
    """One segment's gradient rows, written into `rows`."""
    dtype = g.dtype
    if reduction in ("max", "min"):
        counter = xp.zeros(g.shape, dtype=dtype)
        for j in span:
            hit = xp.isnan(values[j, :]) | (values[j, :] == r)
            rows[j] = xp.where(hit, g, rows[j])
            counter = counter + xp.astype(hit, dtype)
        several = counter >= 2
        for j in span:
            # torch divides only the positive gradients (`grad_input_data > 0`)
            rows[j] = xp.where(several & (rows[j] > 0), rows[j] / counter, rows[j])
    elif reduction == "mean":
        for j in span:
            rows[j] = g / xp.asarray(length, dtype=dtype)
    elif reduction == "sum":
        for j in span:
            rows[j] = g
    else:
        scaled = g * r
        one = xp.ones(g.shape, dtype=dtype)
        for j in span:
            x = values[j, :]
            special = xp.isnan(x) | (x == 0)
            exclusive = xp.full(g.shape, 1 if initial is None else initial, dtype=dtype)
            for k in span:
                if k != j:
                    exclusive = exclusive * values[k, :]
            rows[j] = xp.where(special, g * exclusive, scaled / xp.where(special, one, x))


_register(_segment_reduce_backward, _segment_reduce_backward_kernel)


_segment_reduce_backward_out = defop(
    "_segment_reduce_backward.out(Tensor grad, Tensor output, Tensor data, str reduce, *, "
    "Tensor? lengths=None, Tensor? offsets=None, int axis=0, Scalar? initial=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@_segment_reduce_backward_out.kernel(CEA)
def _segment_reduce_backward_out_kernel(
    grad: TensorImpl,
    output: TensorImpl,
    data: TensorImpl,
    reduce: str,
    *,
    out: TensorImpl,
    **options: Any,
) -> Any:
    """Torch: the generated out= form (compute, resize `out`, check its dtype, copy)."""
    result = aten._segment_reduce_backward.default(grad, output, data, reduce, **options)
    return same_as_out(result, out)
