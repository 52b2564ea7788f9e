"""The backward ops of embedding_bag: _embedding_bag_backward, _embedding_bag_sparse_backward,
_embedding_bag_dense_backward and _embedding_bag_per_sample_weights_backward (with their
out= forms).

Torch: aten/src/ATen/native/EmbeddingBag.cpp (_embedding_bag_backward_symint,
_embedding_bag_dense_backward_cpu with its _max and _sum_mean helpers,
_embedding_bag_per_sample_weights_backward_cpu). Where the forward skipped offset2bag (the
sum fast path, see Note [Bag paths] in ops/nn_embedding_bag.py) it is rebuilt from all the
offsets. derivatives.yaml gives these ops not_implemented formulas.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import bfloat16, float16, float32, float64, int32, int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import not_implemented as not_implemented_derivative
from refimpl.ops._nn_embedding_checks import (
    check_contiguous,
    check_same_type,
    check_scalar_types,
)
from refimpl.ops._reduction import finish, has_data, input_array, same_as_out
from refimpl.ops._register import defop
from refimpl.ops._scatter import ScatterReduce, scatter_flat
from refimpl.ops.nn_embedding_bag import (
    EmbeddingBagMode,
    make_offset2bag,
    promote_indices_and_offsets,
)
from refimpl.ops.scan import registered

aten: Final = namespace("aten")

_INDEX_DTYPES: Final = (int64, int32)
_GRAD_DTYPES: Final = (float16, bfloat16, float32, float64)
_OP: Final = "embedding_bag"


def _values(t: TensorImpl) -> list[int]:
    backend = t._storage.backend
    assert backend is not None  # callers check has_data first
    return [int(v) for v in backend.tolist(backend.xp.reshape(array_of(t), (-1,)))]


def _offset2bag(indices: TensorImpl, offsets: TensorImpl, offset2bag: TensorImpl) -> Any:
    """The offset2bag to use: the forward's, or (where it skipped it) one rebuilt from every
    offset. Torch: _embedding_bag_backward_symint / per_sample_weights_backward."""
    if geometry.numel(indices._size) != 0 and geometry.numel(offset2bag._size) == 0:
        if not has_data(offsets):
            return None
        n = indices._size[0]
        return make_offset2bag(_values(offsets), n)
    check_scalar_types(offset2bag, "offset2bag", 1, _INDEX_DTYPES, _OP)
    check_contiguous(offset2bag, "offset2bag", _OP)
    return offset2bag


# --- _embedding_bag_backward -------------------------------------------------------------------

_embedding_bag_backward = defop(
    "_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, "
    "Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, "
    "int mode, bool sparse, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor"
)


@registered(_embedding_bag_backward)
def _embedding_bag_backward_kernel(
    grad: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    offset2bag: TensorImpl,
    bag_size: TensorImpl,
    maximum_indices: TensorImpl,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    sparse: bool,
    per_sample_weights: TensorImpl | None,
    padding_idx: int = -1,
) -> Any:
    """The gradient of embedding_bag's weight: the indices and offsets checked, offset2bag
    rebuilt where the forward skipped it, then the dense (or sparse) backward.

    Torch: _embedding_bag_backward_symint in EmbeddingBag.cpp.
    """
    indices, offsets = promote_indices_and_offsets(indices, offsets)
    check_scalar_types(indices, "indices", 1, _INDEX_DTYPES, _OP)
    check_contiguous(indices, "indices", _OP)
    check_scalar_types(offsets, "offsets", 1, _INDEX_DTYPES, _OP)
    check_same_type(indices, "indices", offsets, "offsets", _OP)
    check_contiguous(offsets, "offsets", _OP)
    bags = _offset2bag(indices, offsets, offset2bag)
    if isinstance(bags, list):
        backend = offsets._storage.backend
        xp = backend.xp  # type: ignore[union-attr]  # has_data
        bags = finish(offsets, xp.asarray(bags, dtype=xp.int64), (len(bags),), offsets._dtype, None)
    elif bags is None:
        bags = aten.empty.memory_format(
            [indices._size[0]], dtype=offsets._dtype, device=offsets._storage.device
        )
    if sparse:
        return aten._embedding_bag_sparse_backward.default(
            grad,
            indices,
            offsets,
            bags,
            bag_size,
            num_weights,
            scale_grad_by_freq,
            mode,
            per_sample_weights,
            padding_idx,
        )
    return aten._embedding_bag_dense_backward.default(
        grad,
        indices,
        bags,
        bag_size,
        maximum_indices,
        num_weights,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        padding_idx,
    )


@_embedding_bag_backward.derivative("grad", "per_sample_weights")
def _embedding_bag_backward_backward(grad: Tensor) -> tuple[Tensor, Tensor]:
    # torch: not_implemented("_embedding_bag_backward") for both.
    not_implemented_derivative("_embedding_bag_backward")


_embedding_bag_sparse_backward = defop(
    "_embedding_bag_sparse_backward(Tensor grad, Tensor indices, Tensor offsets, "
    "Tensor offset2bag, Tensor bag_size, SymInt num_weights, bool scale_grad_by_freq, "
    "int mode, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor"
)


@_embedding_bag_sparse_backward.decomposition
def _embedding_bag_sparse_backward_decomposition(
    grad: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    offset2bag: TensorImpl,
    bag_size: TensorImpl,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: TensorImpl | None,
    padding_idx: int = -1,
) -> Any:
    """Torch: _embedding_bag_sparse_backward in EmbeddingBag.cpp builds a sparse COO gradient."""
    # Differs: refimpl has no sparse layout, so `sparse=True` gradients cannot be built.
    raise NotImplementedError(
        "refimpl: _embedding_bag_sparse_backward (the gradient of embedding_bag with "
        "sparse=True) returns a sparse COO tensor, and refimpl has no sparse layout; use "
        "sparse=False"
    )


# --- _embedding_bag_dense_backward -------------------------------------------------------------

_embedding_bag_dense_backward = defop(
    "_embedding_bag_dense_backward(Tensor grad, Tensor indices, Tensor offset2bag, "
    "Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, "
    "int mode, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor"
)
_embedding_bag_dense_backward_out = defop(
    "_embedding_bag_dense_backward.out(Tensor grad, Tensor indices, Tensor offset2bag, "
    "Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, "
    "int mode, Tensor? per_sample_weights, int padding_idx=-1, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


def _dense_backward(
    grad: TensorImpl,
    indices: TensorImpl,
    offset2bag: TensorImpl,
    bag_size: TensorImpl,
    maximum_indices: TensorImpl,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: TensorImpl | None,
    padding_idx: int,
) -> Any:
    """The weight's gradient, [num_weights, features] in grad's dtype.

    Torch: _embedding_bag_dense_backward_cpu: max mode adds each non-empty bag's gradient
    into the rows its max came from (per feature); sum and mean add, for each index other
    than padding_idx, its bag's gradient scaled by its per-sample weight, 1 / its count
    (scale_grad_by_freq) and 1 / its bag's size (mean), the scale a double cast to grad's
    dtype.
    """
    check_scalar_types(grad, "grad_", 1, _GRAD_DTYPES, _OP)
    features = grad._size[1]
    size = (num_weights, features)
    if not (has_data(grad) and has_data(indices)):
        return finish(grad, None, size, grad._dtype, None)
    backend = grad._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    g = input_array(grad, grad._dtype)
    flat_target = xp.zeros((num_weights * features,), dtype=g.dtype)
    columns = xp.arange(features, dtype=xp.int64)
    if mode == EmbeddingBagMode.MAX:
        sizes = _values(bag_size)
        chosen = xp.reshape(input_array(maximum_indices, int64), (-1, features))
        nonempty = xp.asarray([b for b, s in enumerate(sizes) if s != 0], dtype=xp.int64)
        rows = xp.take(chosen, nonempty, axis=0)
        updates = xp.take(g, nonempty, axis=0)
        positions = rows * features + columns
    else:
        index_values = _values(indices)
        bags = _values(offset2bag)
        sizes = _values(bag_size) if mode == EmbeddingBagMode.MEAN else []
        counts: dict[int, int] = {}
        for value in index_values:
            counts[value] = counts.get(value, 0) + 1
        psw = None if per_sample_weights is None else _floats(per_sample_weights)
        kept, sources, scales = [], [], []
        # torch: the indices are visited sorted (stable here), group by group of equal
        # indices; the frequency divisor is read as counts[sorted[group number]], not
        # counts[index] (torch 2.13's kernel, measured), so it can belong to another index.
        order = sorted(range(len(index_values)), key=index_values.__getitem__)
        ordered = [index_values[p] for p in order]
        group = -1
        for j, position in enumerate(order):
            value = ordered[j]
            if j == 0 or value != ordered[j - 1]:
                group += 1
            if value == padding_idx:
                continue
            scale = 1.0 if psw is None else psw[position]
            if scale_grad_by_freq:
                scale /= counts[ordered[group]]
            bag = bags[position]
            if mode == EmbeddingBagMode.MEAN and sizes[bag] != 0:
                scale /= sizes[bag]
            kept.append(value)
            sources.append(bag)
            scales.append(scale)
        scale_array = data.cast_array(
            xp,
            xp.asarray(scales, dtype=xp.float64),
            float64,
            grad._dtype,
            backend,  # type: ignore[arg-type]
        )
        updates = xp.take(g, xp.asarray(sources, dtype=xp.int64), axis=0)
        updates = updates * xp.reshape(scale_array, (-1, 1))
        positions = xp.reshape(xp.asarray(kept, dtype=xp.int64), (-1, 1)) * features + columns
    result = scatter_flat(
        xp,
        flat_target,
        xp.reshape(positions, (-1,)),
        xp.reshape(updates, (-1,)),
        ScatterReduce.SUM,
    )
    return finish(grad, xp.reshape(result, size), size, grad._dtype, None)


def _floats(t: TensorImpl) -> list[float]:
    backend = t._storage.backend
    assert backend is not None  # callers check has_data first
    return [float(v) for v in backend.tolist(backend.xp.reshape(array_of(t), (-1,)))]


@registered(_embedding_bag_dense_backward)
def _embedding_bag_dense_backward_kernel(
    grad: TensorImpl,
    indices: TensorImpl,
    offset2bag: TensorImpl,
    bag_size: TensorImpl,
    maximum_indices: TensorImpl,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: TensorImpl | None,
    padding_idx: int = -1,
) -> Any:
    """Torch: _embedding_bag_dense_backward (_embedding_bag_dense_backward_cpu)."""
    return _dense_backward(
        grad,
        indices,
        offset2bag,
        bag_size,
        maximum_indices,
        num_weights,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        padding_idx,
    )


@registered(_embedding_bag_dense_backward_out)
def _embedding_bag_dense_backward_out_kernel(
    grad: TensorImpl,
    indices: TensorImpl,
    offset2bag: TensorImpl,
    bag_size: TensorImpl,
    maximum_indices: TensorImpl,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: TensorImpl | None,
    padding_idx: int = -1,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    result = _dense_backward(
        grad,
        indices,
        offset2bag,
        bag_size,
        maximum_indices,
        num_weights,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        padding_idx,
    )
    return same_as_out(result, out)


@_embedding_bag_dense_backward.derivative("grad", "per_sample_weights")
def _embedding_bag_dense_backward_backward(grad: Tensor) -> tuple[Tensor, Tensor]:
    # torch: not_implemented("_embedding_bag_dense_backward") for both.
    not_implemented_derivative("_embedding_bag_dense_backward")


# --- _embedding_bag_per_sample_weights_backward ------------------------------------------------

_embedding_bag_per_sample_weights_backward = defop(
    "_embedding_bag_per_sample_weights_backward(Tensor grad, Tensor weight, Tensor indices, "
    "Tensor offsets, Tensor offset2bag, int mode, int padding_idx=-1) -> Tensor"
)
_embedding_bag_per_sample_weights_backward_out = defop(
    "_embedding_bag_per_sample_weights_backward.out(Tensor grad, Tensor weight, "
    "Tensor indices, Tensor offsets, Tensor offset2bag, int mode, int padding_idx=-1, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _per_sample_weights_backward(
    grad: TensorImpl,
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    offset2bag: TensorImpl,
    mode: int,
    padding_idx: int,
) -> Any:
    """Each sample's gradient: the dot product of its bag's gradient with its weight row (0
    for padding_idx). Torch: _embedding_bag_per_sample_weights_backward_cpu."""
    if mode != EmbeddingBagMode.SUM:
        raise RuntimeError(
            "embedding_bag_backward: per_sample_weights only supported for mode='sum'"
        )
    indices, offsets = promote_indices_and_offsets(indices, offsets)
    check_scalar_types(indices, "indices", 1, _INDEX_DTYPES, _OP)
    check_contiguous(indices, "indices", _OP)
    n = indices._size[0]
    bags = _offset2bag(indices, offsets, offset2bag)
    if not (has_data(grad) and has_data(weight) and has_data(indices)) or bags is None:
        return finish(grad, None, (n,), grad._dtype, None)
    backend = grad._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    bag_of = bags if isinstance(bags, list) else _values(bags)
    index_values = _values(indices)
    g = input_array(grad, grad._dtype)
    w = input_array(weight, grad._dtype)
    values = []
    for i in range(n):
        value = index_values[i]
        if value == padding_idx:
            values.append(xp.zeros((), dtype=g.dtype))
        else:
            values.append(xp.sum(g[bag_of[i], ...] * w[value, ...]))
    result = xp.stack(values) if values else xp.zeros((0,), dtype=g.dtype)
    return finish(grad, result, (n,), grad._dtype, None)


@registered(_embedding_bag_per_sample_weights_backward)
def _embedding_bag_per_sample_weights_backward_kernel(
    grad: TensorImpl,
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    offset2bag: TensorImpl,
    mode: int,
    padding_idx: int = -1,
) -> Any:
    """Torch: _embedding_bag_per_sample_weights_backward (its _cpu kernel)."""
    return _per_sample_weights_backward(
        grad, weight, indices, offsets, offset2bag, mode, padding_idx
    )


@registered(_embedding_bag_per_sample_weights_backward_out)
def _embedding_bag_per_sample_weights_backward_out_kernel(
    grad: TensorImpl,
    weight: TensorImpl,
    indices: TensorImpl,
    offsets: TensorImpl,
    offset2bag: TensorImpl,
    mode: int,
    padding_idx: int = -1,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    result = _per_sample_weights_backward(
        grad, weight, indices, offsets, offset2bag, mode, padding_idx
    )
    return same_as_out(result, out)
