"""embedding_bag as aten ops: embedding_bag (both overloads, CompositeImplicitAutograd),
_embedding_bag and _embedding_bag_forward_only (with out= forms), and the backward ops
_embedding_bag_backward, _embedding_bag_dense_backward and
_embedding_bag_per_sample_weights_backward.

Torch: aten/src/ATen/native/EmbeddingBag.cpp. A bag b holds the indices from offsets[b] on;
its output row is the sum, mean or max of the weight rows they name (padding_idx's left
out). The four outputs are (output, offset2bag, bag_size, max_indices); see Note [Bag paths].
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64, int32, int64
from refimpl._base.promotion import promote_types
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, requires_grad
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_embedding_checks import (
    check_same_type,
    check_scalar_types,
    tensor_arg_name,
)
from refimpl.ops._reduction import finish, has_data, input_array, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.scan import registered

aten: Final = namespace("aten")


class EmbeddingBagMode(enum.IntEnum):
    """Torch: EmbeddingBagMode (EmbeddingBag.h), the int `mode` of the aten ops."""

    SUM = 0
    MEAN = 1
    MAX = 2


_INDEX_DTYPES: Final = (int64, int32)
_WEIGHT_DTYPES: Final = (float16, bfloat16, float32, float64)
_OP: Final = "embedding_bag"

# Note [Bag paths]
# torch's CPU kernel has two paths for sum and mean. The fast one (index_select_add with
# fbgemm: a float or half weight with unit stride in its last dim, no padding_idx, unit-stride
# per_sample_weights) sums bag b over the positions offsets[b] <= i < offsets[b + 1] (the last
# bag ends at indices.size(0), or at offsets[-1] with include_last_offset), and skips
# offset2bag (returned empty in sum mode). The slow one builds offset2bag (each position's
# bag: the offsets of the bags as ones, cumsum'd) and adds every position into its bag, so
# with include_last_offset the positions past offsets[-1] join the last bag. Max always takes
# the slow path. bag_size counts each bag's positions (the last up to indices.size(0)) less
# its padding_idx entries in mean and max, and stays zeros in sum, where max_indices is zeros
# too; in mean max_indices repeats bag_size. Measured on torch 2.13, CPU.


def promote_indices_and_offsets(
    indices: TensorImpl, offsets: TensorImpl
) -> tuple[TensorImpl, TensorImpl]:
    """Both in their promoted dtype (int32 with int64: int64). Torch: promoteIndicesAndOffsets."""
    common = promote_types(indices._dtype, offsets._dtype)
    return (
        indices if indices._dtype is common else aten._to_copy.default(indices, dtype=common),
        offsets if offsets._dtype is common else aten._to_copy.default(offsets, dtype=common),
    )


def _values(t: TensorImpl) -> list[int]:
    backend = t._storage.backend
    assert backend is not None  # callers check has_data first
    a = array_of(t)
    return [int(v) for v in backend.tolist(backend.xp.reshape(a, (-1,)))]


def make_offset2bag(offsets: Sequence[int], n: int) -> list[int]:
    """Each of `n` positions' bag. Torch: make_offset2bag: ones index_add'ed at the offsets
    into n + 1 zeros, the first decremented, cumsum'd, the last dropped."""
    marks = [0] * (n + 1)
    for offset in offsets:
        if not 0 <= offset <= n:
            raise IndexError("index out of range in self")
        marks[offset] += 1
    marks[0] -= 1
    running = 0
    result = []
    for mark in marks[:n]:
        running += mark
        result.append(running)
    return result


def _check_forward(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    mode: int,
    per_sample_weights: TensorImpl | None,
    include_last_offset: bool,
) -> tuple[TensorImpl, TensorImpl]:
    """Torch: _embedding_bag_cpu_impl's checks and check_arguments, in their order (the
    offsets' values are checked where they are read)."""
    if len(indices._size) not in (1, 2):
        raise RuntimeError(
            f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {len(indices._size)}"
        )
    if len(indices._size) == 1 and len(offsets._size) != 1:
        raise RuntimeError(
            f"offsets has to be a 1D Tensor, but got Tensor of dimension {len(offsets._size)}"
        )
    if len(weight._size) != 2:
        raise RuntimeError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {len(weight._size)}"
        )
    indices, offsets = promote_indices_and_offsets(indices, offsets)
    check_scalar_types(indices, "indices", 1, _INDEX_DTYPES, _OP)
    check_scalar_types(offsets, "offsets", 1, _INDEX_DTYPES, _OP)
    check_same_type(indices, "indices", offsets, "offsets", _OP)
    check_scalar_types(weight, "weight", 1, _WEIGHT_DTYPES, _OP)
    if per_sample_weights is not None:
        if mode != EmbeddingBagMode.SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        check_same_type(weight, "weight", per_sample_weights, "per_sample_weights", _OP)
        if len(per_sample_weights._size) != 1:
            raise RuntimeError(
                "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  "
                "(Could this error message be improved?  If so, please report an enhancement "
                "request to PyTorch.)"
            )
        if geometry.numel(per_sample_weights._size) != geometry.numel(indices._size):
            raise RuntimeError(
                "Expected per_sample_weights.value().numel() == indices.numel() to be true, "
                "but got false.  (Could this error message be improved?  If so, please report "
                "an enhancement request to PyTorch.)"
            )
    if include_last_offset and offsets._size[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if mode not in (EmbeddingBagMode.SUM, EmbeddingBagMode.MEAN, EmbeddingBagMode.MAX):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    return indices, offsets


def _check_offset_values(offsets: TensorImpl, values: list[int], n: int) -> None:
    # torch: check_arguments: the first bag starts at 0, the last offset is within the input.
    if values:
        if values[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                f"start from position 0. However, got {values[0]}\n"
                f"[ {tensor_arg_name(offsets)}{{}} ]"
            )
        if values[-1] > n:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] "
                f"of {values[-1]}"
            )


def _is_fast_path(
    weight: TensorImpl, per_sample_weights: TensorImpl | None, padding_idx: int
) -> bool:
    # torch: is_fast_path (is_fast_path_index_select / _scale) in EmbeddingBag.cpp.
    return (
        weight._dtype in (float32, float16)
        and weight._stride[1] == 1
        and padding_idx < 0
        and (per_sample_weights is None or per_sample_weights._stride[0] == 1)
    )


def _forward(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    mode: int,
    per_sample_weights: TensorImpl | None,
    include_last_offset: bool,
    padding_idx: int,
    forward_only: bool,
) -> tuple[Any, Any, Any, Any]:
    """The four outputs. Torch: _embedding_bag_cpu_impl and _embedding_bag_cpu_impl_out
    (index_select_add, index_select_scale_add, embedding_bag_cpu_max_out)."""
    indices, offsets = _check_forward(
        weight, indices, offsets, mode, per_sample_weights, include_last_offset
    )
    index_dtype = offsets._dtype
    num_offsets = offsets._size[0]
    num_bags = num_offsets - 1 if include_last_offset else num_offsets
    features = weight._size[1]
    n = indices._size[0]
    fast = _is_fast_path(weight, per_sample_weights, padding_idx)
    with_offset2bag = mode != EmbeddingBagMode.SUM or not fast
    bag_size_len = num_bags if (mode != EmbeddingBagMode.SUM or not forward_only) else num_offsets
    shapes = (
        (num_bags, features),
        (n if with_offset2bag else 0,),
        (bag_size_len,),
        (num_bags, features) if mode == EmbeddingBagMode.MAX else (bag_size_len,),
    )
    if not (has_data(weight) and has_data(indices) and has_data(offsets)):
        # torch: meta_embedding_bag (torch/_meta_registrations.py), its branch for tensors
        # off the CPU: offset2bag one entry per index, bag_size one per offset, max_indices
        # (bags, features) in max mode and empty otherwise.
        meta_max = shapes[3] if mode == EmbeddingBagMode.MAX else (0,)
        return (
            finish(weight, None, shapes[0], weight._dtype, None),
            finish(offsets, None, (n,), index_dtype, None),
            finish(offsets, None, (num_offsets,), index_dtype, None),
            finish(offsets, None, meta_max, index_dtype, None),
        )
    index_values = _values(indices)
    offset_values = _values(offsets)
    _check_offset_values(offsets, offset_values, n)
    if len(indices._size) != 1:
        # Differs: torch's kernel reads 2-D indices with inconsistent lengths (size(0) for
        # offset2bag and bag_size, numel for the fast path's last bag); F.embedding_bag
        # always passes them flattened.
        raise NotImplementedError(
            "refimpl: _embedding_bag with 2-D indices is not supported (torch reads them "
            "inconsistently); flatten them and pass offsets, as F.embedding_bag does"
        )
    offset2bag = make_offset2bag(offset_values[:num_bags], n) if with_offset2bag else []
    num_weights = weight._size[0]
    # Each bag's (position, index) members, in order (Note [Bag paths]).
    members: list[list[tuple[int, int]]] = [[] for _ in range(num_bags)]
    if fast and mode != EmbeddingBagMode.MAX:
        for b in range(num_bags):
            end = n if b == num_offsets - 1 else offset_values[b + 1]
            for i in range(offset_values[b], end):
                value = index_values[i]
                if not 0 <= value < num_weights:
                    raise RuntimeError(
                        f"Index {i} of input takes value {value} which is not in the valid "
                        f"range [0, {num_weights})"
                    )
                members[b].append((i, value))
    else:
        for i, value in enumerate(index_values):
            if not 0 <= value < num_weights:
                raise RuntimeError(
                    "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx "
                    f"to be {value}"
                )
            bag = offset2bag[i]
            if 0 <= bag < num_bags and value != padding_idx:
                members[bag].append((i, value))
    bag_size = [0] * bag_size_len
    if mode != EmbeddingBagMode.SUM:
        for b in range(num_bags):
            end = n if b == num_bags - 1 else offset_values[b + 1]
            bag_size[b] = end - offset_values[b]
        for i, value in enumerate(index_values):
            bag = offset2bag[i]
            if value == padding_idx and 0 <= bag < num_bags:
                bag_size[bag] -= 1
    output = _bag_rows(weight, per_sample_weights, members, mode, bag_size)
    xp = weight._storage.backend.xp  # type: ignore[union-attr]  # has_data
    if mode == EmbeddingBagMode.MAX:
        max_indices: Any = xp.asarray(
            [_max_row(weight, m)[1] for m in members] if members else [], dtype=xp.int64
        )
        max_indices = xp.reshape(max_indices, shapes[3])
    elif mode == EmbeddingBagMode.MEAN:
        max_indices = xp.asarray(bag_size, dtype=xp.int64)
    else:
        max_indices = xp.zeros(shapes[3], dtype=xp.int64)
    return (
        finish(weight, output, shapes[0], weight._dtype, None),
        finish(offsets, xp.asarray(offset2bag, dtype=xp.int64), shapes[1], index_dtype, None),
        finish(offsets, xp.asarray(bag_size, dtype=xp.int64), shapes[2], index_dtype, None),
        finish(offsets, max_indices, shapes[3], index_dtype, None),
    )


def _compute_dtype(dtype: DType) -> DType:
    # float16 / bfloat16 bags accumulate in float32 (fbgemm and the slow path's opmath).
    return float32 if dtype in (float16, bfloat16) else dtype


def _max_row(weight: TensorImpl, bag: list[tuple[int, int]]) -> tuple[Any, Any]:
    """The bag's max row and, per feature, the weight row it came from; zeros for an empty
    bag. Torch: embedding_bag_cpu_max_out: the first row, then each later row's entries that
    are greater (so NaN is kept only where it comes first, and ties keep the first)."""
    xp = weight._storage.backend.xp  # type: ignore[union-attr]  # has_data
    w = array_of(weight)
    features = weight._size[1]
    if not bag:
        return xp.zeros((features,), dtype=w.dtype), [0] * features
    current = w[bag[0][1], ...]
    chosen = xp.full((features,), bag[0][1], dtype=xp.int64)
    for _, value in bag[1:]:
        row = w[value, ...]
        better = row > current
        current = xp.where(better, row, current)
        chosen = xp.where(better, xp.asarray(value, dtype=xp.int64), chosen)
    backend = weight._storage.backend
    return current, [int(v) for v in backend.tolist(chosen)]  # type: ignore[union-attr]


def _bag_rows(
    weight: TensorImpl,
    per_sample_weights: TensorImpl | None,
    members: list[list[tuple[int, int]]],
    mode: int,
    bag_size: list[int],
) -> Any:
    """The output rows: each bag's sum (scaled by per_sample_weights), mean or max."""
    backend = weight._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    features = weight._size[1]
    dtype = weight._dtype
    compute = _compute_dtype(dtype)
    w = input_array(weight, compute)
    scale = None if per_sample_weights is None else input_array(per_sample_weights, compute)
    if scale is not None:
        scale = xp.reshape(scale, (-1,))
    rows = []
    for b, bag in enumerate(members):
        if mode == EmbeddingBagMode.MAX:
            rows.append(_as_compute(weight, _max_row(weight, bag)[0], compute))
            continue
        total = xp.zeros((features,), dtype=w.dtype)
        for i, value in bag:
            row = w[value, ...]
            total = total + (row * scale[i] if scale is not None else row)
        if mode == EmbeddingBagMode.MEAN:
            # torch: the sum is stored in the output (scalar_t), then divided in place.
            total = _rounded(weight, total)
            total = total / max(bag_size[b], 1)
        rows.append(total)
    if not rows:
        return xp.zeros((0, features), dtype=w.dtype)
    return xp.stack(rows, axis=0)


def _as_compute(weight: TensorImpl, a: Any, compute: DType) -> Any:
    """A row of `weight`'s dtype read in `compute`."""
    from_dtype = weight._dtype
    if from_dtype is compute:
        return a
    backend = weight._storage.backend
    return data.cast_array(backend.xp, a, from_dtype, compute, backend)  # type: ignore[union-attr, arg-type]


def _rounded(weight: TensorImpl, a: Any) -> Any:
    # A float32 value of a float16 / bfloat16 weight rounded to that dtype and back.
    dtype = weight._dtype
    compute = _compute_dtype(dtype)
    if compute is dtype:
        return a
    backend = weight._storage.backend
    return data.rounded_through(backend.xp, a, compute, dtype, backend)  # type: ignore[union-attr, arg-type]


# --- _embedding_bag, _embedding_bag_forward_only ------------------------------------------------

_BAG_ARGS: Final = (
    "Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, "
    "bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, "
    "int padding_idx=-1"
)
_BAG_OUTS: Final = "*, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2, Tensor(d!) out3"
_BAG_RESULTS: Final = "(Tensor(a!), Tensor(b!), Tensor(c!), Tensor(d!))"

_embedding_bag = defop(f"_embedding_bag({_BAG_ARGS}) -> (Tensor, Tensor, Tensor, Tensor)")
_embedding_bag_forward_only = defop(
    f"_embedding_bag_forward_only({_BAG_ARGS}) -> (Tensor, Tensor, Tensor, Tensor)"
)
_embedding_bag_out = defop(f"_embedding_bag.out({_BAG_ARGS}, {_BAG_OUTS}) -> {_BAG_RESULTS}")
_embedding_bag_forward_only_out = defop(
    f"_embedding_bag_forward_only.out({_BAG_ARGS}, {_BAG_OUTS}) -> {_BAG_RESULTS}"
)


@registered(_embedding_bag)
def _embedding_bag_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: TensorImpl | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> Any:
    """Torch: _embedding_bag (_embedding_bag_cpu; see Note [Bag paths])."""
    return _forward(
        weight,
        indices,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
        forward_only=False,
    )


@registered(_embedding_bag_forward_only)
def _embedding_bag_forward_only_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: TensorImpl | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> Any:
    """Torch: _embedding_bag_forward_only (_embedding_bag_forward_only_cpu: as
    _embedding_bag, but sum mode's bag_size and max_indices have one entry per offset)."""
    return _forward(
        weight,
        indices,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
        forward_only=True,
    )


def _outs(results: tuple[Any, ...], outs: tuple[TensorImpl, ...]) -> tuple[Any, ...]:
    # torch: the generated out= wrapper: each output resized and copied into.
    return tuple(same_as_out(r, o) for r, o in zip(results, outs, strict=True))


@registered(_embedding_bag_out)
def _embedding_bag_out_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: TensorImpl | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
    out3: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of _embedding_bag."""
    results = _forward(
        weight,
        indices,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
        forward_only=False,
    )
    return _outs(results, (out0, out1, out2, out3))


@registered(_embedding_bag_forward_only_out)
def _embedding_bag_forward_only_out_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: TensorImpl | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
    out3: TensorImpl,
) -> Any:
    """Torch: the generated out= wrapper of _embedding_bag_forward_only."""
    results = _forward(
        weight,
        indices,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
        forward_only=True,
    )
    return _outs(results, (out0, out1, out2, out3))


non_differentiable_outputs("aten::_embedding_bag", "result1", "result2", "result3")


@_embedding_bag.derivative("weight")
def _embedding_bag_backward_weight(
    grad: Tensor,
    indices: Tensor,
    offsets: Tensor,
    result1: Tensor,
    result2: Tensor,
    result3: Tensor,
    weight_sym_sizes: Sequence[int],
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: Tensor | None,
    padding_idx: int,
) -> Tensor:
    # torch: _embedding_bag_backward_symint(grad, indices, offsets, result1, result2, result3,
    #   weight.sym_size(0), scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
    return aten._embedding_bag_backward.default(
        grad,
        indices,
        offsets,
        result1,
        result2,
        result3,
        weight_sym_sizes[0],
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        padding_idx,
    )


@_embedding_bag.derivative("per_sample_weights")
def _embedding_bag_backward_per_sample_weights(
    grad: Tensor,
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    result1: Tensor,
    mode: int,
    padding_idx: int,
) -> Tensor:
    # torch: _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets,
    #   result1, mode, padding_idx)
    return aten._embedding_bag_per_sample_weights_backward.default(
        grad, weight, indices, offsets, result1, mode, padding_idx
    )


# --- embedding_bag ------------------------------------------------------------------------------

embedding_bag = defop(
    "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
    "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, "
    "bool include_last_offset=False) -> (Tensor, Tensor, Tensor, Tensor)"
)
embedding_bag_padding_idx = defop(
    "embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, "
    "bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, "
    "bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)"
)


def _contiguous(t: TensorImpl) -> Any:
    # torch: Tensor::contiguous(), which dispatches only for a tensor that is not.
    return t if t.is_contiguous() else aten.contiguous.default(t)


def _embedding_bag_impl(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: TensorImpl | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> Any:
    """Torch: embedding_bag in EmbeddingBag.cpp: padding_idx checked and wrapped (-1 for
    none), then _embedding_bag_forward_only for a weight that does not require grad, else
    _embedding_bag, on contiguous indices and offsets."""
    wrapped = -1
    if padding_idx is not None:
        num_embeddings = weight._size[0]
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{num_embeddings} "
                f"through {num_embeddings - 1}, but got {padding_idx}"
            )
        wrapped = geometry.wrap_dim(padding_idx, num_embeddings)
    op = aten._embedding_bag if requires_grad(weight) else aten._embedding_bag_forward_only
    return op.default(
        weight,
        _contiguous(indices),
        _contiguous(offsets),
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        wrapped,
    )


@embedding_bag.decomposition
def embedding_bag_decomposition(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: TensorImpl | None = None,
    include_last_offset: bool = False,
) -> Any:
    """Torch: embedding_bag (at::native::embedding_bag with no padding_idx, a direct call)."""
    return _embedding_bag_impl(
        weight,
        indices,
        offsets,
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        None,
    )


@embedding_bag_padding_idx.decomposition
def embedding_bag_padding_idx_decomposition(
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: TensorImpl | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> Any:
    """Torch: embedding_bag.padding_idx (embedding_bag in EmbeddingBag.cpp)."""
    return _embedding_bag_impl(
        weight,
        indices,
        offsets,
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
