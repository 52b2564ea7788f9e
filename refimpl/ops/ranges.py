"""The range factories as aten ops: arange in its five overloads, range (inclusive end), linspace
and logspace.

Torch: arange and arange_out in aten/src/ATen/native/RangeFactories.cpp (the size, the checks,
out= resized with a warning when its element count differs) and TensorFactories.cpp (the
functional forms, which infer int64 when every argument is integral and the default dtype
otherwise). The values follow torch's CPU kernel (ops/_ranges.py, Note [Range rounding]).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import default_complex_dtype, get_default_dtype
from refimpl._base.scalars import Scalar, cast_scalar
from refimpl.core import strides as geometry
from refimpl.core.config import config
from refimpl.core.tensor import (
    TensorImpl,
    backend_dtype,
    empty_tensor,
    resize_for_output,
    tensor_over,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _ranges, data
from refimpl.ops._register import defop

CEA = DispatchKey.CompositeExplicitAutograd
# torch: range.out has one kernel for CPU, CUDA and Meta (range_out in RangeFactories.cpp:
# its dtype checks run on meta too, only the values are not written).
_RANGE_OUT_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
aten: Final = namespace("aten")
_CPU = device("cpu")


def _inferred(start: Scalar, end: Scalar, step: Scalar, dtype: DType | None) -> DType:
    # torch: arange's dtype when none is given: int64 if every argument is integral (bools
    # count), else the default dtype.
    if dtype is not None:
        return dtype
    integral = all(isinstance(v, (bool, int)) for v in (start, end, step))
    return dt.int64 if integral else get_default_dtype()


def _arange(
    start: Scalar, end: Scalar, step: Scalar, dtype: DType | None, dev: device | None
) -> Any:
    target = _inferred(start, end, step, dtype)
    count, x_start, x_step = _ranges.arange_size(start, end, step, target)
    where = _CPU if dev is None else dev
    backend = None if where.type == "meta" else config.backends.resolve(where.type)
    strides = geometry.contiguous_strides((count,))
    if backend is None:
        return tensor_over(None, (count,), strides, target, where, None)
    array = _ranges.arange_array(backend, count, x_start, x_step, target)
    return tensor_over(array, (count,), strides, target, where, backend)


def _arange_out(start: Scalar, end: Scalar, step: Scalar, out: TensorImpl) -> Any:
    """Torch: arange_out: computed in out's dtype; an out of another element count is resized
    to (count,), with a warning unless it was empty."""
    count, x_start, x_step = _ranges.arange_size(start, end, step, out._dtype)
    if geometry.numel(out._size) != count:
        if geometry.numel(out._size) > 0:
            shape = ", ".join(str(n) for n in out._size)
            warnings.warn(
                f"The number of elements in the out tensor of shape [{shape}] is "
                f"{geometry.numel(out._size)} which does not match the computed number of "
                f"elements {count}. Note that this may occur as a result of rounding error. "
                f"The out tensor will be resized to a tensor of shape ({count},).",
                UserWarning,
                stacklevel=2,
            )
        resize_for_output(out, (count,), (1,))
    backend = out._storage.backend
    if backend is not None:
        write_array(out, _ranges.arange_array(backend, count, x_start, x_step, out._dtype))
    return out


arange = defop(
    "arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)


@arange.kernel(CEA)
def arange_kernel(
    end: Scalar, *, dtype: DType | None, layout: Any, device: device | None, pin_memory: Any
) -> Any:
    """Torch: arange(end) = arange(0, end, 1)."""
    return _arange(0, end, 1, dtype, device)


arange_start = defop(
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@arange_start.kernel(CEA)
def arange_start_kernel(
    start: Scalar,
    end: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: Any,
) -> Any:
    """Torch: arange(start, end) = arange(start, end, 1)."""
    return _arange(start, end, 1, dtype, device)


arange_start_step = defop(
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


@arange_start_step.kernel(CEA)
def arange_start_step_kernel(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: Any,
) -> Any:
    """Values from `start` to `end` (exclusive) by `step`. Torch: arange in RangeFactories."""
    return _arange(start, end, step, dtype, device)


arange_out = defop("arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)")


@arange_out.kernel(CEA)
def arange_out_kernel(end: Scalar, *, out: TensorImpl) -> Any:
    return _arange_out(0, end, 1, out)


arange_start_out = defop(
    "arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)"
)


@arange_start_out.kernel(CEA)
def arange_start_out_kernel(start: Scalar, end: Scalar, step: Scalar, *, out: TensorImpl) -> Any:
    return _arange_out(start, end, step, out)


# --- range -----------------------------------------------------------------------------------
# torch: range_out in RangeFactories.cpp (AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16), "range_cpu"
# on every device): start, end and step in the accumulate type, the size
# (end - start) / step + 1 truncated, the values start + i * step (this file is not built with
# FMA, unlike arange's kernel); and range in TensorFactories.cpp: empty({0}) then range_out.


def _range_size(start: Scalar, end: Scalar, step: Scalar, dtype: DType) -> tuple[int, Any, Any]:
    """The length of `range(start, end, step)` in `dtype`, and start and step in its
    accumulate type, with torch's checks in torch's order."""
    if dtype.category in (dt.Category.BOOL, dt.Category.COMPLEX) or dtype.name in _UNSIGNED_WIDE:
        raise _ranges.not_implemented("range_cpu", dtype)
    acc = _ranges.accumulate_type(dtype)
    x_start, x_end, x_step = (_ranges.to_acc(v, acc) for v in (start, end, step))
    if x_step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(float(x_start)) and math.isfinite(float(x_end))):
        raise RuntimeError(
            f"unsupported range: {_ranges.cpp_number(x_start)} -> {_ranges.cpp_number(x_end)}"
        )
    if not ((x_step > 0 and x_end >= x_start) or (x_step < 0 and x_end <= x_start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if acc is dt.int64:
        size = (x_end - x_start) // x_step + 1  # same signs: floor is C++'s truncation
    else:
        quotient = cast_scalar((x_end - x_start) / x_step, acc)
        size = int(cast_scalar(quotient + 1, acc))  # type: ignore[arg-type]  # a real float
    return size, x_start, x_step


# The unsigned dtypes wider than a byte: not among AT_DISPATCH_ALL_TYPES.
_UNSIGNED_WIDE: Final = frozenset({"uint16", "uint32", "uint64"})


def _range_out(start: Scalar, end: Scalar, step: Scalar, out: TensorImpl) -> Any:
    """Torch: range_out: `out` resized (without a warning) to the size, then filled."""
    size, x_start, x_step = _range_size(start, end, step, out._dtype)
    if geometry.numel(out._size) != size:
        resize_for_output(out, (size,), (1,))
    backend = out._storage.backend
    if backend is not None and size > 0:
        write_array(out, _range_array(backend, size, x_start, x_step, out._dtype))
    return out


def _range_array(backend: Any, size: int, start: Any, step: Any, dtype: DType) -> Any:
    """`start + i * step` for i < size, computed in the accumulate type, in `dtype`."""
    xp = backend.xp
    acc = _ranges.accumulate_type(dtype)
    target = backend_dtype(backend, dtype)
    if acc is dt.int64:
        index = xp.arange(size, dtype=xp.int64)
        values = xp.asarray(start, dtype=xp.int64) + xp.asarray(step, dtype=xp.int64) * index
        return xp.astype(values, target)
    # A float accumulator rounds the product and the sum to float, a double one to double.
    acc_dtype = xp.float32 if acc is dt.float32 else xp.float64
    index = xp.arange(size, dtype=acc_dtype)
    product = index * xp.asarray(step, dtype=acc_dtype)
    return xp.astype(xp.asarray(start, dtype=acc_dtype) + product, target)


range_step = defop(
    "range.step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)


def _range(
    start: Scalar, end: Scalar, step: Scalar, dtype: DType | None, dev: device | None
) -> Any:
    """Torch: range: an empty tensor of the dtype (the default dtype when none is given,
    whatever the arguments) filled by range_out."""
    target = get_default_dtype() if dtype is None else dtype
    where = _CPU if dev is None else dev
    backend = None if where.type == "meta" else config.backends.resolve(where.type)
    result = tensor_over(None, (0,), (1,), target, where, None)
    if backend is not None:
        result = empty_tensor((0,), target, where, backend)
    _range_out(start, end, step, result)
    result._version_counter.version = 0  # a fresh factory result: the fill is below autograd
    return result


@range_step.kernel(CEA)
def range_step_kernel(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: Any,
) -> Any:
    """Values from `start` to `end` inclusive by `step`. Torch: range in TensorFactories.cpp."""
    return _range(start, end, step, dtype, device)


range_default = defop(
    "range(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"
)


@range_default.kernel(CEA)
def range_kernel(
    start: Scalar,
    end: Scalar,
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: Any,
) -> Any:
    """Torch: range(start, end) = range(start, end, 1)."""
    return _range(start, end, 1, dtype, device)


range_out = defop(
    "range.out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)"
)


def range_out_kernel(start: Scalar, end: Scalar, step: Scalar, *, out: TensorImpl) -> Any:
    """Values from `start` to `end` inclusive by `step`, into `out`. Torch: range_out."""
    return _range_out(start, end, step, out)


for _key in _RANGE_OUT_KEYS:
    range_out.kernel(_key)(range_out_kernel)


range_out_ = defop("range.out_(Scalar start, Scalar end, *, Tensor(a!) out) -> Tensor(a!)")


@range_out_.kernel(CEA)
def range_out__kernel(start: Scalar, end: Scalar, *, out: TensorImpl) -> Any:
    """Torch: range.out_: range.out with step 1."""
    return aten.range.out(start, end, 1, out=out)


# --- linspace, logspace ----------------------------------------------------------------------
# torch: linspace and logspace in TensorFactories.cpp (CompositeExplicitAutograd: the dtype,
# then empty + the out= kernel), linspace_out / logspace_out in RangeFactories.cpp (the CPU
# kernels: steps checked, `out` resized without a warning, one step a fill), and the Tensor
# overloads, which take 0-dim tensors' values (Tensor.item()) and call the Scalar ones.


def _space_dtype(start: Scalar, end: Scalar, dtype: DType | None) -> DType:
    # torch: a complex start or end infers the default complex dtype, else the default dtype.
    if dtype is not None:
        return dtype
    if isinstance(start, complex) or isinstance(end, complex):
        return default_complex_dtype()
    return get_default_dtype()


def _space_out(
    name: str, start: Scalar, end: Scalar, steps: int, base: float | None, out: TensorImpl
) -> Any:
    """Torch: linspace_out / logspace_out (`base` None for linspace)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if geometry.numel(out._size) != steps:
        resize_for_output(out, (steps,), (1,))
    backend = out._storage.backend
    if backend is None or steps == 0:
        return out
    if steps == 1:
        if base is None:
            value: Scalar = start
        elif out._dtype.is_complex:
            value = complex(base) ** complex(start)
        else:
            value = float(base) ** float(start)  # type: ignore[arg-type]  # a real start
        data.fill_(out, value)
        return out
    if base is None:
        array = _ranges.linspace_array(backend, start, end, steps, out._dtype)
    else:
        array = _ranges.logspace_array(backend, start, end, steps, base, out._dtype)
    write_array(out, array)
    return out


def _space(
    name: str,
    start: Scalar,
    end: Scalar,
    steps: int,
    base: float | None,
    dtype: DType | None,
    dev: device | None,
) -> Any:
    """Torch: linspace / logspace: steps checked, then empty((steps,)) and the out= kernel."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = _space_dtype(start, end, dtype)
    where = _CPU if dev is None else dev
    backend = None if where.type == "meta" else config.backends.resolve(where.type)
    result = tensor_over(None, (steps,), (1,), target, where, None)
    if backend is not None:
        result = empty_tensor((steps,), target, where, backend)
    _space_out(name, start, end, steps, base, result)
    result._version_counter.version = 0  # a fresh factory result: the fill is below autograd
    return result


def _values(name: str, start: Any, end: Any) -> tuple[Scalar, Scalar]:
    """The Scalar values of a Tensor overload's 0-dim `start` and/or `end`, with torch's check
    (which names the arguments that are tensors)."""
    tensors = [
        (label, t) for label, t in (("start", start), ("end", end)) if isinstance(t, TensorImpl)
    ]
    if any(len(t._size) != 0 for _, t in tensors):
        got = " and ".join(f"{label} with {len(t._size)} dimension(s)" for label, t in tensors)
        raise RuntimeError(
            f"{name} only supports 0-dimensional start and end tensors, but got {got}."
        )
    # torch: Tensor.item(), through the dispatcher.
    return (
        aten.item.default(start) if isinstance(start, TensorImpl) else start,
        aten.item.default(end) if isinstance(end, TensorImpl) else end,
    )


def _meta_space(
    start: Any, end: Any, steps: int, dtype: DType | None, out: TensorImpl | None
) -> Any:
    """linspace / logspace with a meta start or end, whose value is unknown. Torch: the
    meta_linspace_logspace registration in torch/_meta_registrations.py (its dims message,
    linspace's for both ops; only Python complex numbers infer a complex dtype)."""
    if any(isinstance(t, TensorImpl) and len(t._size) != 0 for t in (start, end)):
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out is not None:
        if geometry.numel(out._size) != steps:
            resize_for_output(out, (steps,), (1,))
        return out
    target = _space_dtype(start, end, dtype)
    return tensor_over(None, (steps,), (1,), target, device("meta"), None)


# The overloads of linspace and logspace: which of start and end are 0-dim tensors.
_SPACE_OVERLOADS: Final = {
    "": ("Scalar start", "Scalar end"),
    "Tensor_Tensor": ("Tensor start", "Tensor end"),
    "Tensor_Scalar": ("Tensor start", "Scalar end"),
    "Scalar_Tensor": ("Scalar start", "Tensor end"),
}
_OPTIONS: Final = (
    "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
)


def _space_kernels(name: str, overload: str, logarithmic: bool) -> None:
    """Register `name.overload` and its out= form (linspace without `base`)."""
    start_type, end_type = _SPACE_OVERLOADS[overload]
    parameters = f"{start_type}, {end_type}, int steps" + (
        ", float base=10." if logarithmic else ""
    )
    dotted = f".{overload}" if overload else ""
    out_name = f".{overload}_out" if overload else ".out"
    functional = defop(f"{name}{dotted}({parameters}, {_OPTIONS}) -> Tensor")
    out_form = defop(f"{name}{out_name}({parameters}, *, Tensor(a!) out) -> Tensor(a!)")

    def values(start: Any, end: Any) -> tuple[Scalar, Scalar]:
        return _values(name, start, end) if overload else (start, end)

    def on_meta(start: Any, end: Any) -> bool:
        return any(isinstance(t, TensorImpl) and t._storage.backend is None for t in (start, end))

    @functional.kernel(CEA)
    def functional_kernel(
        start: Any,
        end: Any,
        steps: int,
        base: float | None = None,
        *,
        dtype: DType | None,
        layout: Any,
        device: device | None,
        pin_memory: Any,
    ) -> Any:
        if on_meta(start, end):
            return _meta_space(start, end, steps, dtype, None)
        first, last = values(start, end)
        return _space(name, first, last, steps, base, dtype, device)

    @out_form.kernel(CEA)
    def out_kernel(
        start: Any, end: Any, steps: int, base: float | None = None, *, out: TensorImpl
    ) -> Any:
        if on_meta(start, end):
            return _meta_space(start, end, steps, None, out)
        first, last = values(start, end)
        return _space_out(name, first, last, steps, base, out)

    functional_kernel.__name__ = f"{name}{overload and '_' + overload}_kernel"
    out_kernel.__name__ = f"{name}{overload and '_' + overload}_out_kernel"


for _overload in _SPACE_OVERLOADS:
    _space_kernels("linspace", _overload, logarithmic=False)
    _space_kernels("logspace", _overload, logarithmic=True)
