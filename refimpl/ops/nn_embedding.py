"""The aten ops beneath torch.nn.functional: linear, bilinear, embedding, embedding_bag, one_hot, pad, pixel/channel shuffles.

Torch: aten/src/ATen/native/Embedding.cpp (embedding, embedding_backward,
embedding_dense_backward_cpu, embedding_renorm_cpu_) and Onehot.cpp (one_hot). The other
families live in their own modules, imported here so that importing this module registers
them: linear / bilinear / _trilinear (nn_embedding_linear), embedding_bag
(nn_embedding_bag), pixel and channel shuffles (nn_embedding_shuffle), aten.pad and its
modes (padding, padding_reflect, padding_replicate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import float64, int32, int64
from refimpl._base.keys import DispatchKey, key_raw
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (
    nn_embedding_bag,
    nn_embedding_bag_backward,
    nn_embedding_linear,
    nn_embedding_shuffle,
    padding_replicate,
)
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_unary import not_implemented as not_implemented_derivative
from refimpl.ops._nn_embedding_checks import check_scalar_types
from refimpl.ops._reduction import has_data, input_array, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.scan import registered

aten: Final = namespace("aten")

# The modules of this family whose import registers their kernels.
FAMILY_MODULES: Final = (
    nn_embedding_bag,
    nn_embedding_bag_backward,
    nn_embedding_linear,
    nn_embedding_shuffle,
    padding_replicate,
)

# torch: DispatchKey::Python in a tensor's key set (a __torch_dispatch__ subclass).
_PYTHON_KEY: Final = key_raw(DispatchKey.Python)

# torch: checkScalarTypes(..., {kLong, kInt}) on the indices of the embedding ops.
INDEX_DTYPES: Final = (int64, int32)


def check_index_dtype(indices: TensorImpl, position: int, op: str) -> None:
    """Torch: checkScalarTypes(op, TensorArg(indices, "indices", position), {kLong, kInt})."""
    check_scalar_types(indices, "indices", position, INDEX_DTYPES, op)


# --- embedding -------------------------------------------------------------------------------

embedding = defop(
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor"
)


@registered(embedding)
def embedding_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Any:
    """The rows of `weight` that `indices` name, in `indices`' shape.

    Torch: embedding_symint in Embedding.cpp (CompositeExplicitAutograd): index_select of
    the rows, viewed as `indices.shape + weight.shape[1:]` unless `indices` is 1-D.
    """
    if len(weight._size) != 2:
        raise RuntimeError("'weight' must be 2-D")
    check_index_dtype(indices, 1, "embedding")
    if len(indices._size) == 1:
        return aten.index_select.default(weight, 0, indices)
    size = [*indices._size, *weight._size[1:]]
    flat = aten.reshape.default(indices, [-1])
    return aten.view.default(aten.index_select.default(weight, 0, flat), size)


@embedding.derivative("weight")
def embedding_backward_weight(
    grad: Tensor,
    indices: Tensor,
    weight_sym_sizes: Sequence[int],
    padding_idx: int,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Tensor:
    # torch: embedding_backward_symint(grad, indices, weight.sym_size(0), padding_idx,
    #   scale_grad_by_freq, sparse)
    return aten.embedding_backward.default(
        grad, indices, weight_sym_sizes[0], padding_idx, scale_grad_by_freq, sparse
    )


embedding_out = defop(
    "embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
    "bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(embedding_out)
def embedding_out_kernel(
    weight: TensorImpl,
    indices: TensorImpl,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of embedding."""
    return same_as_out(
        embedding_kernel(weight, indices, padding_idx, scale_grad_by_freq, sparse), out
    )


# --- embedding_backward, embedding_sparse_backward ---------------------------------------------

embedding_backward = defop(
    "embedding_backward(Tensor grad, Tensor indices, SymInt num_weights, SymInt padding_idx, "
    "bool scale_grad_by_freq, bool sparse) -> Tensor"
)


@embedding_backward.decomposition
def embedding_backward_decomposition(
    grad: TensorImpl,
    indices: TensorImpl,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Any:
    """Torch: embedding_backward_symint in Embedding.cpp: the sparse or the dense gradient."""
    if sparse:
        return aten.embedding_sparse_backward.default(
            grad, indices, num_weights, padding_idx, scale_grad_by_freq
        )
    return aten.embedding_dense_backward.default(
        grad, indices, num_weights, padding_idx, scale_grad_by_freq
    )


embedding_sparse_backward = defop(
    "embedding_sparse_backward(Tensor grad, Tensor indices, int num_weights, int padding_idx, "
    "bool scale_grad_by_freq) -> Tensor"
)


@embedding_sparse_backward.decomposition
def embedding_sparse_backward_decomposition(
    grad: TensorImpl,
    indices: TensorImpl,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
) -> Any:
    """Torch: embedding_sparse_backward in Embedding.cpp builds a sparse COO gradient."""
    # Differs: refimpl has no sparse layout, so `sparse=True` gradients cannot be built.
    raise NotImplementedError(
        "refimpl: embedding_sparse_backward (the gradient of embedding with sparse=True) "
        "returns a sparse COO tensor, and refimpl has no sparse layout; use sparse=False"
    )


# --- embedding_dense_backward ----------------------------------------------------------------

embedding_dense_backward = defop(
    "embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, "
    "SymInt padding_idx, bool scale_grad_by_freq) -> Tensor"
)


def _embedding_dense_backward(
    grad_output: TensorImpl,
    indices: TensorImpl,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
) -> Any:
    """The gradient of `weight`: each row of `grad_output` added into the row its index
    names (divided by that index's count for `scale_grad_by_freq`), `padding_idx`'s left out.

    Torch: embedding_dense_backward_cpu in Embedding.cpp (zeros of [num_weights,
    grad.size(-1)] in grad's dtype; `grad_weight[k].add_(grad[i], 1.0 / counts[k])`).
    """
    check_index_dtype(indices, 2, "embedding_backward")
    width = grad_output._size[geometry.wrap_dim(-1, len(grad_output._size))]
    numel = geometry.numel(indices._size)
    grad = aten.view.default(aten.contiguous.default(grad_output), [numel, width])
    grad_weight = aten.zeros.default(
        [num_weights, width], dtype=grad_output._dtype, device=grad_output._storage.device
    )
    flat = aten.reshape.default(indices, [-1])
    if not has_data(flat) or numel == 0:
        return grad_weight
    keep = aten.ne.Scalar(flat, padding_idx)
    rows = aten.masked_select.default(flat, keep)
    picked = aten.index.Tensor(grad, [keep])
    if scale_grad_by_freq:
        # torch: `double scale = 1.0 / counts[k]`, taken as add_'s alpha in grad's dtype.
        counts = aten.bincount.default(flat, None, num_weights)
        per_row = aten.index_select.default(counts, 0, rows)
        scale = aten.reciprocal.default(aten._to_copy.default(per_row, dtype=float64))
        scale = aten._to_copy.default(scale, dtype=grad_output._dtype)
        picked = aten.mul.Tensor(picked, aten.unsqueeze.default(scale, 1))
    return aten.index_add_.default(grad_weight, 0, rows, picked)


@registered(embedding_dense_backward)
def embedding_dense_backward_kernel(
    grad_output: TensorImpl,
    indices: TensorImpl,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
) -> Any:
    """Torch: embedding_dense_backward (embedding_dense_backward_cpu)."""
    return _embedding_dense_backward(
        grad_output, indices, num_weights, padding_idx, scale_grad_by_freq
    )


embedding_dense_backward_out = defop(
    "embedding_dense_backward.out(Tensor grad_output, Tensor indices, SymInt num_weights, "
    "SymInt padding_idx, bool scale_grad_by_freq, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(embedding_dense_backward_out)
def embedding_dense_backward_out_kernel(
    grad_output: TensorImpl,
    indices: TensorImpl,
    num_weights: int,
    padding_idx: int,
    scale_grad_by_freq: bool,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    return same_as_out(
        _embedding_dense_backward(
            grad_output, indices, num_weights, padding_idx, scale_grad_by_freq
        ),
        out,
    )


@embedding_dense_backward.derivative("grad_output")
def embedding_dense_backward_grad_output(grad: Tensor, indices: Tensor, padding_idx: int) -> Tensor:
    # torch: embedding_dense_double_backward_symint(grad, indices, padding_idx)
    # (the frequency scaling is not applied again: torch's comment says the first backward
    # took care of it).
    gg_weight = aten.index_select.default(grad, 0, aten.reshape.default(indices, [-1]))
    if padding_idx >= 0:
        padded = aten.reshape.default(aten.eq.Scalar(indices, padding_idx), [-1, 1])
        gg_weight = aten.masked_fill_.Scalar(gg_weight, padded, 0)
    return aten.view.default(gg_weight, [*indices._size, -1])


# --- embedding_renorm_ -----------------------------------------------------------------------

embedding_renorm_ = defop(
    "embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) "
    "-> Tensor(a!)"
)


def _renorm_in_place(
    self: TensorImpl, indices: TensorImpl, max_norm: float, norm_type: float
) -> TensorImpl:
    """Each row of `self` that `indices` names (once each, in sorted order) scaled down to
    norm `max_norm` where its `norm_type`-norm exceeds it.

    Torch: embedding_renorm_cpu_ in Embedding.cpp: `row *= max_norm / (norm + 1e-7)` for a
    row whose `row.norm(norm_type)` is above `max_norm`.
    """
    if len(self._size) != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {len(self._size)}-dimensional tensor "
            "for argument #1 'self' (while checking arguments for embedding_renorm_)"
        )
    check_index_dtype(indices, 2, "embedding_renorm_")
    if not has_data(indices):
        return self
    backend = indices._storage.backend
    flat = input_array(indices, indices._dtype)
    rows = backend.tolist(flat if flat.ndim == 1 else backend.xp.reshape(flat, (-1,)))  # type: ignore[union-attr]  # has_data
    for k in sorted(set(rows)):
        row = aten.select.int(self, 0, k)
        norm = aten._local_scalar_dense.default(aten.norm.Scalar(row, norm_type))
        if norm > max_norm:
            aten.mul_.Scalar(row, max_norm / (norm + 1e-7))
    return self


@registered(embedding_renorm_)
def embedding_renorm__kernel(
    self: TensorImpl, indices: TensorImpl, max_norm: float, norm_type: float
) -> Any:
    """Torch: embedding_renorm_ (embedding_renorm_cpu_; no derivative: F.embedding calls it
    on a detached weight)."""
    return _renorm_in_place(self, indices, max_norm, norm_type)


@embedding_renorm_.derivative("self")
def embedding_renorm__backward_self(grad: Tensor) -> Tensor:
    # torch: not_implemented("embedding_renorm")
    not_implemented_derivative("embedding_renorm")


embedding_renorm = defop(
    "embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor"
)
embedding_renorm_out = defop(
    "embedding_renorm.out(Tensor self, Tensor indices, float max_norm, float norm_type, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(embedding_renorm)
def embedding_renorm_kernel(
    self: TensorImpl, indices: TensorImpl, max_norm: float, norm_type: float
) -> Any:
    """Torch: the generated functional form of embedding_renorm_ (a clone, renormed)."""
    return _renorm_in_place(aten.clone.default(self), indices, max_norm, norm_type)


@embedding_renorm.derivative("self")
def embedding_renorm_backward_self(grad: Tensor) -> Tensor:
    # torch: not_implemented("embedding_renorm")
    not_implemented_derivative("embedding_renorm")


@registered(embedding_renorm_out)
def embedding_renorm_out_kernel(
    self: TensorImpl, indices: TensorImpl, max_norm: float, norm_type: float, *, out: TensorImpl
) -> Any:
    """Torch: the generated out= form of embedding_renorm_ (the functional result copied)."""
    return same_as_out(embedding_renorm_kernel(self, indices, max_norm, norm_type), out)


# --- one_hot ---------------------------------------------------------------------------------

one_hot = defop("one_hot(Tensor self, int num_classes=-1) -> Tensor")


@one_hot.decomposition
def one_hot_decomposition(self: TensorImpl, num_classes: int = -1) -> Any:
    """`self`'s class indices as one-hot int64 vectors of `num_classes` (inferred from the
    largest index when -1).

    Torch: one_hot in Onehot.cpp: meta (and Python-key) inputs take the functional
    `eq(self.unsqueeze(-1), arange(num_classes))`; others are checked through one aminmax and
    two item() calls, then written by scatter_ into zeros.
    """
    if self._dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    device = self._storage.device
    if not has_data(self) or self._key_set & _PYTHON_KEY:
        if num_classes == -1:
            num_classes = int(aten._local_scalar_dense.default(aten.max.default(self))) + 1
        index = aten.arange.default(num_classes, dtype=int64, device=device)
        equal = aten.eq.Tensor(aten.unsqueeze.default(self, -1), index)
        return aten._to_copy.default(equal, dtype=int64)
    shape = list(self._size)
    if geometry.numel(self._size) == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return aten.empty.memory_format([*shape, num_classes], dtype=int64, device=device)
    low, high = aten.aminmax.default(self)
    if int(aten._local_scalar_dense.default(low)) < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(aten._local_scalar_dense.default(high))
    if num_classes == -1:
        num_classes = largest + 1
    elif num_classes <= largest:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = aten.zeros.default([*shape, num_classes], dtype=int64, device=device)
    return aten.scatter_.value(result, -1, aten.unsqueeze.default(self, -1), 1)
