"""The range factories as aten ops: arange in its five overloads.

Torch: arange and arange_out in aten/src/ATen/native/RangeFactories.cpp (the size, the checks,
out= resized with a warning when its element count differs) and TensorFactories.cpp (the
functional forms, which infer int64 when every argument is integral and the default dtype
otherwise). The values follow torch's CPU kernel (ops/_ranges.py, Note [Range rounding]).
"""

from __future__ import annotations

import warnings
from typing import Any

from refimpl._base import dtypes as dt
from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import get_default_dtype
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, resize_for_output, tensor_over, write_array
from refimpl.ops import _ranges
from refimpl.ops._register import defop

CEA = DispatchKey.CompositeExplicitAutograd
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
