"""Binary search as aten ops: searchsorted and bucketize.

Torch: Bucketization.cpp (searchsorted_out_cpu, bucketize_out_cpu and their functional and
Scalar forms), BucketizationUtils.h (searchsorted_pre_check, the promotion of boundaries and
values to their common dtype, the Scalar's wrapping as a Python number), and the meta
functions of torch/_meta_registrations.py (meta_searchsorted, meta_bucketize).

Note [searchsorted's binary search]
torch's CPU kernel runs, per value, the loop of cus_lower_bound / cus_upper_bound: halve
[start, end) going right while `!(mid >= value)` (left side) or `!(mid > value)` (right
side), reading the boundaries through `sorter` when one is given. refimpl runs the same loop
for every value at once (one gather and one comparison per halving), so its answers are
torch's for every input, also where the standard's `searchsorted` would differ: a NaN value
goes past every boundary (the comparison is false), NaN boundaries and unsorted rows give
whatever the halving meets, as in torch.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base import promotion
from refimpl._base.context import should_warn_once
from refimpl._base.dtypes import DType, int32, int64
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.scan import CEA, new_tensor, not_implemented, registered, write_values, xp_of

aten: Final = namespace("aten")

Scalar = bool | int | float | complex
Values = TensorImpl | Scalar

# torch: AT_DISPATCH_ALL_TYPES_AND2(BFloat16, Half, ..., "searchsorted_out_cpu").
_SEARCHABLE: Final = frozenset(
    {"uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"}
)
_PREFIX: Final = "torch.searchsorted(): "


def _size_text(size: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


def _values_kind(values: Values) -> tuple[DType, OperandKind]:
    if isinstance(values, TensorImpl):
        kind = OperandKind.DIMENSIONED if values._size else OperandKind.ZERO_DIM
        return values._dtype, kind
    return promotion.scalar_dtype(values), OperandKind.WRAPPED


def _pre_check(
    boundaries: TensorImpl,
    values: Values,
    out_dtype: DType,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
) -> None:
    """Torch: searchsorted_pre_check (BucketizationUtils.h), in its order."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{_PREFIX}side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(
                f"{_PREFIX}side and right can't be set to opposites, got side of {side} while "
                "right was True"
            )
    value_size = values._size if isinstance(values, TensorImpl) else ()
    if sorter is not None:
        if sorter._size != boundaries._size:
            raise RuntimeError(
                f"{_PREFIX}boundary and sorter must have the same size, but got boundary tensor "
                f"{_size_text(boundaries._size)}and got sorter tensor {_size_text(sorter._size)}"
            )
        if sorter._dtype is not int64:
            raise RuntimeError(
                f"{_PREFIX}sorter must be a tensor of long dtype but got dtype "
                f"{sorter._dtype.scalar_name}"
            )
        if has_data(sorter) and geometry.numel(sorter._size):
            xp = xp_of(sorter)
            s = array_of(sorter)
            innermost = sorter._size[-1]
            if not (int(xp.max(s)) < innermost and int(xp.min(s)) >= 0):
                raise RuntimeError(f"{_PREFIX}sorter index out of range")
    if not value_size and len(boundaries._size) != 1:
        raise RuntimeError(
            f"{_PREFIX}input value can be a scalar only when boundaries tensor dimension is 1, "
            f"but we got boundaries tensor dim({len(boundaries._size)}) and input value's "
            "dim(0) numel(1)"
        )
    if not boundaries._size:
        raise RuntimeError(
            f"{_PREFIX}boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if len(boundaries._size) != 1 and (
        len(boundaries._size) != len(value_size) or boundaries._size[:-1] != value_size[:-1]
    ):
        raise RuntimeError(
            f"{_PREFIX}boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {_size_text(boundaries._size)} and input value tensor "
            f"{_size_text(value_size)}"
        )
    if out_dtype is not (int32 if out_int32 else int64):
        raise RuntimeError(
            f"{_PREFIX}output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
            "depending on whether out_int32 flag is True, but we got output tensor's dtype "
            f"{out_dtype.scalar_name} and out_int32 flag is {out_int32}"
        )


def _meta_check(
    boundaries: TensorImpl, values: Values, right: bool, side: str | None,
    sorter: TensorImpl | None,
) -> None:
    """Torch: meta_searchsorted (torch/_meta_registrations.py), the checks a meta tensor
    gets instead of the CPU kernel's."""
    value_size = values._size if isinstance(values, TensorImpl) else ()
    if len(boundaries._size) > 1 and boundaries._size[:-1] != value_size[:-1]:
        raise RuntimeError(
            f"{_PREFIX}boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {list(boundaries._size)} and input value tensor {list(value_size)}"
        )
    if sorter is not None and sorter._size != boundaries._size:
        raise RuntimeError(
            f"{_PREFIX}boundary and sorter must have the same size, but got boundary tensor "
            f"{list(boundaries._size)} and got sorter tensor {list(sorter._size)}"
        )
    if side == "left" and right:
        raise RuntimeError(
            f"{_PREFIX}side and right can't be set to opposites, got side of left while right "
            "was True"
        )


# torch: TORCH_WARN_ONCE in searchsorted_maybe_trim_input_tensors, one site per input
# (input, boundary, sorter). Differs: torch's message ends with " (Triggered internally at ...)".
_NON_CONTIGUOUS_NAMES: Final = ("input value", "boundary", "sorter")


def _warn_non_contiguous(
    boundaries: TensorImpl, values: Values, sorter: TensorImpl | None
) -> None:
    """Torch: searchsorted_maybe_trim_input_tensors, reached when an input is not contiguous
    or the dtypes differ, warns once per process for each non-contiguous input."""
    tensors = (values if isinstance(values, TensorImpl) else None, boundaries, sorter)
    for name, t in zip(_NON_CONTIGUOUS_NAMES, tensors, strict=True):
        if t is None or geometry.is_contiguous(t._size, t._stride):
            continue
        if not should_warn_once(f"searchsorted {name}"):
            continue
        warnings.warn(
            f"torch.searchsorted(): {name} tensor is non-contiguous, this will lower the "
            "performance due to extra data copy when converting non-contiguous tensor to "
            f"contiguous, please use contiguous {name} tensor if possible. This message will "
            "only appear once per program.",
            UserWarning,
            stacklevel=6,
        )


def _search(
    boundaries: TensorImpl, values: Values, right: bool, sorter: TensorImpl | None
) -> Any:
    """The insertion points (int64 array shaped like the values). See Note [searchsorted's
    binary search]."""
    backend = boundaries._storage.backend
    assert backend is not None
    xp = backend.xp
    common = result_type_of([(boundaries._dtype, OperandKind.DIMENSIONED), _values_kind(values)])
    if common.name not in _SEARCHABLE:
        raise not_implemented("searchsorted_out_cpu", common)
    bd = data.cast_array(xp, array_of(boundaries), boundaries._dtype, common, backend)
    if isinstance(values, TensorImpl):
        shape = values._size
        v = data.cast_array(xp, array_of(values), values._dtype, common, backend)
    else:
        shape = ()
        v = xp.asarray(values, dtype=backend_dtype(backend, common))
    n = boundaries._size[-1]
    if len(boundaries._size) == 1:
        rows_bd = xp.reshape(bd, (1, n))
        rows_v = xp.reshape(v, (1, -1))
    else:
        rows_bd = xp.reshape(bd, (-1, n))
        rows_v = xp.reshape(v, (rows_bd.shape[0], -1))
    order = None if sorter is None else xp.reshape(array_of(sorter), rows_bd.shape)
    start = xp.zeros(rows_v.shape, dtype=xp.int64)
    if n == 0:
        return xp.reshape(start, shape)
    end = xp.full(rows_v.shape, n, dtype=xp.int64)
    for _ in range(n.bit_length()):
        active = start < end
        mid = start + (end - start) // 2
        position = xp.clip(mid, 0, n - 1)
        if order is not None:
            position = xp.take_along_axis(order, position, axis=-1)
        middle = xp.take_along_axis(rows_bd, position, axis=-1)
        rightward = xp.logical_not(middle > rows_v if right else middle >= rows_v)
        start = xp.where(xp.logical_and(active, rightward), mid + 1, start)
        end = xp.where(xp.logical_and(active, xp.logical_not(rightward)), mid, end)
    return xp.reshape(start, shape)


def _searchsorted_into(
    boundaries: TensorImpl,
    values: Values,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
    out: TensorImpl,
) -> TensorImpl:
    """Torch: searchsorted_out_cpu: the checks, `out` resized to the values' size, then the
    search (in the boundaries' and values' common dtype)."""
    if not has_data(boundaries):
        _meta_check(boundaries, values, right, side, sorter)
    else:
        _pre_check(boundaries, values, out._dtype, out_int32, right, side, sorter)
    value_size = values._size if isinstance(values, TensorImpl) else ()
    resize_output(out, value_size)
    is_right = side == "right" if side is not None else right
    if not has_data(boundaries) or geometry.numel(value_size) == 0:
        return out
    _warn_non_contiguous(boundaries, values, sorter)
    where = _search(boundaries, values, is_right, sorter)
    xp = xp_of(out)
    write_values(out, xp.astype(where, xp.int32 if out._dtype is int32 else xp.int64))
    return out


def _new_result(boundaries: TensorImpl, values: Values, out_int32: bool) -> Any:
    # torch: at::empty({0}, kInt or kLong on the values' device), resized by the out= form.
    like = values if isinstance(values, TensorImpl) else boundaries
    return new_tensor(like, (0,), int32 if out_int32 else int64)


# --- searchsorted ---------------------------------------------------------------------------


searchsorted_tensor = defop(
    "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor"
)


@registered(searchsorted_tensor)
def searchsorted_tensor_kernel(
    sorted_sequence: TensorImpl,
    self: TensorImpl,
    *,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
) -> Any:
    """Where each value would go in the sorted last dim of `sorted_sequence`. Torch:
    searchsorted_cpu (Bucketization.cpp)."""
    out = _new_result(sorted_sequence, self, out_int32)
    return _searchsorted_into(sorted_sequence, self, out_int32, right, side, sorter, out)


searchsorted_tensor_out = defop(
    "searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(searchsorted_tensor_out)
def searchsorted_tensor_out_kernel(
    sorted_sequence: TensorImpl,
    self: TensorImpl,
    *,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
    out: TensorImpl,
) -> Any:
    """Torch: searchsorted_out_cpu (Bucketization.cpp)."""
    return _searchsorted_into(sorted_sequence, self, out_int32, right, side, sorter, out)


searchsorted_scalar = defop(
    "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor"
)


@registered(searchsorted_scalar)
def searchsorted_scalar_kernel(
    sorted_sequence: TensorImpl,
    self: Scalar,
    *,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
) -> Any:
    """Torch: searchsorted_cpu's Scalar form: the number taken as a wrapped 0-dim tensor
    (searchsorted_scalar_tensor), so it promotes as a Python number."""
    out = _new_result(sorted_sequence, self, out_int32)
    return _searchsorted_into(sorted_sequence, self, out_int32, right, side, sorter, out)


searchsorted_scalar_out = defop(
    "searchsorted.Scalar_out(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(searchsorted_scalar_out)
def searchsorted_scalar_out_kernel(
    sorted_sequence: TensorImpl,
    self: Scalar,
    *,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: TensorImpl | None,
    out: TensorImpl,
) -> Any:
    """Torch: searchsorted_out_cpu's Scalar form."""
    return _searchsorted_into(sorted_sequence, self, out_int32, right, side, sorter, out)


# --- bucketize ------------------------------------------------------------------------------


def _bucketize_into(
    values: Values, boundaries: TensorImpl, out_int32: bool, right: bool, out: TensorImpl
) -> TensorImpl:
    """Torch: bucketize_out_cpu: 1-dim boundaries, then searchsorted. A meta tensor gets
    meta_bucketize (torch/_meta_registrations.py): a result shaped like the values, no
    checks."""
    if not has_data(boundaries):
        resize_output(out, values._size if isinstance(values, TensorImpl) else ())
        return out
    if len(boundaries._size) != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({len(boundaries._size)})"
        )
    return _searchsorted_into(boundaries, values, out_int32, right, None, None, out)


bucketize_tensor = defop(
    "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False) -> Tensor"
)


@registered(bucketize_tensor)
def bucketize_tensor_kernel(
    self: TensorImpl, boundaries: TensorImpl, *, out_int32: bool, right: bool
) -> Any:
    """The bucket of each value among 1-dim `boundaries`. Torch: bucketize_cpu."""
    out = _new_result(boundaries, self, out_int32)
    return _bucketize_into(self, boundaries, out_int32, right, out)


bucketize_tensor_out = defop(
    "bucketize.Tensor_out(Tensor self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(bucketize_tensor_out)
def bucketize_tensor_out_kernel(
    self: TensorImpl, boundaries: TensorImpl, *, out_int32: bool, right: bool, out: TensorImpl
) -> Any:
    """Torch: bucketize_out_cpu (Bucketization.cpp)."""
    return _bucketize_into(self, boundaries, out_int32, right, out)


bucketize_scalar = defop(
    "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False) -> Tensor"
)


@registered(bucketize_scalar)
def bucketize_scalar_kernel(
    self: Scalar, boundaries: TensorImpl, *, out_int32: bool, right: bool
) -> Any:
    """Torch: bucketize_cpu's Scalar form (the number wrapped as a 0-dim tensor)."""
    out = _new_result(boundaries, self, out_int32)
    return _bucketize_into(self, boundaries, out_int32, right, out)


bucketize_scalar_out = defop(
    "bucketize.Scalar_out(Scalar self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False, Tensor(a!) out) -> Tensor(a!)"
)


def bucketize_scalar_out_kernel(
    self: Scalar, boundaries: TensorImpl, *, out_int32: bool, right: bool, out: TensorImpl
) -> Any:
    """Torch: bucketize.Scalar_out (CompositeExplicitAutograd, generated): the functional
    result, then `out` resized and the result copied in."""
    result = aten.bucketize.Scalar(self, boundaries, out_int32=out_int32, right=right)
    return same_as_out(result, out)


bucketize_scalar_out.kernel(CEA)(bucketize_scalar_out_kernel)
