"""The products torch composes from the BLAS-like ops: matmul (every rank, batch
broadcasting, batch folding), outer and ger, inner, tensordot, kron and einsum.

Torch: aten/src/ATen/native/LinearAlgebra.cpp (_matmul_impl, should_fold, outer, inner,
tensordot, kron) and Linear.cpp (einsum). All are CompositeImplicitAutograd in torch: each is
a decomposition calling aten ops through the dispatcher; matmul, outer, inner, tensordot
and kron make the calls torch makes, in its order (a logging TorchDispatchMode shows the
same calls). einsum contracts in torch's order, through other views (see its note).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _einsum, data
from refimpl.ops._products import (
    resize_out,
    sizes_text,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- matmul ------------------------------------------------------------------------------

matmul = defop("matmul(Tensor self, Tensor other) -> Tensor")
matmul_out = defop("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


def _should_fold(tensor1: TensorImpl, tensor2: TensorImpl, has_out: bool) -> bool:
    """Whether matmul can fold the batch of the larger operand into mm/mv rows without a copy.

    Torch: should_fold in LinearAlgebra.cpp: the larger operand (tensor2 transposed with mT
    when it is the larger) has rank >= 3 and the other rank <= 2; folding happens when the
    other operand requires grad, or when the larger is empty or its leading dims are
    row-major-contiguous, but never for a 2-D tensor1 (the result would need a transposed
    copy).
    """
    tensor1_larger = len(tensor1._size) >= len(tensor2._size)
    t1 = tensor1 if tensor1_larger else aten.transpose.int(tensor2, -2, -1)
    dim_t2 = len(tensor2._size) if tensor1_larger else len(tensor1._size)
    if not (len(t1._size) >= 3 and dim_t2 <= 2):
        return False
    other = tensor2 if tensor1_larger else tensor1
    if requires_grad(other) and not has_out:
        return True
    if len(tensor1._size) == 2:
        return False
    if geometry.numel(t1._size) == 0:
        return True
    size, stride = t1._size, t1._stride
    return all(stride[i] == stride[i + 1] * size[i + 1] for i in range(len(size) - 2))


def _matmul_impl(tensor1: TensorImpl, tensor2: TensorImpl, out: TensorImpl | None) -> Any:
    """Torch: _matmul_impl in LinearAlgebra.cpp, rank by rank: dot (1-D @ 1-D), mv (2-D @
    1-D), mm (1-D @ 2-D through unsqueeze/squeeze_, 2-D @ 2-D); an N-D operand against a
    1-D or 2-D one folds its batch into mm/mv rows where `_should_fold` allows; otherwise
    both operands are broadcast over their batch dims, flattened into one batch, and bmm'd.
    """
    dim1, dim2 = len(tensor1._size), len(tensor2._size)
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )
    # The operands are tensors (matmul's binding checked them), so the direct products are
    # entered with their arguments as bound (OpOverload.call_bound): still dispatched, as
    # torch's at::dot, at::mv and at::mm calls are, but not bound again.
    if dim1 == 1 and dim2 == 1:
        return (
            aten.dot.default.call_bound((tensor1, tensor2), {})
            if out is None
            else aten.dot.out(tensor1, tensor2, out=out)
        )
    if dim1 == 2 and dim2 == 1:
        return (
            aten.mv.default.call_bound((tensor1, tensor2), {})
            if out is None
            else aten.mv.out(tensor1, tensor2, out=out)
        )
    if dim1 == 1 and dim2 == 2:
        row = aten.unsqueeze.default(tensor1, 0)
        product = (
            aten.mm.default.call_bound((row, tensor2), {})
            if out is None
            else aten.mm.out(row, tensor2, out=out)
        )
        return aten.squeeze_.dim(product, 0)
    if dim1 == 2 and dim2 == 2:
        return (
            aten.mm.default.call_bound((tensor1, tensor2), {})
            if out is None
            else aten.mm.out(tensor1, tensor2, out=out)
        )
    if _should_fold(tensor1, tensor2, out is not None):
        return _matmul_folded(tensor1, tensor2, out)
    return _matmul_batched(tensor1, tensor2, out)


def _matmul_folded(tensor1: TensorImpl, tensor2: TensorImpl, out: TensorImpl | None) -> Any:
    """The larger operand's leading dims become mm/mv rows (the `should_fold` branch)."""
    dim1, dim2 = len(tensor1._size), len(tensor2._size)
    transpose = dim2 > dim1
    t1 = aten.transpose.int(tensor2, -2, -1) if transpose else tensor1
    if not transpose:
        t2 = tensor2
    else:
        t2 = aten.t.default(tensor1) if dim1 == 2 else tensor1
    output_shape = list(t1._size[:-1])
    folded = geometry.numel(output_shape)
    t2_is_matrix = len(t2._size) == 2
    if t2_is_matrix:
        output_shape.append(t2._size[1])
    # Not view(-1, k): a 0 in the last dim would make -1 ambiguous ([3, 5, 0] @ [0, 0]).
    t1_folded = aten.reshape.default(t1, [folded, t1._size[-1]])
    if out is None:
        if t2_is_matrix:
            output = aten._unsafe_view.default(aten.mm.default(t1_folded, t2), output_shape)
            if transpose:
                return aten.contiguous.default(aten.transpose.int(output, -2, -1))
            return output
        return aten._unsafe_view.default(aten.mv.default(t1_folded, t2), output_shape)
    resize_out(out, tuple(output_shape))
    if t2_is_matrix:
        reshaped = aten.reshape.default(out, [folded, t2._size[-1]])
        aten.mm.out(t1_folded, t2, out=reshaped)
    else:
        reshaped = aten.reshape.default(out, [folded])
        aten.mv.out(t1_folded, t2, out=reshaped)
    if reshaped._storage is not out._storage:
        aten.copy_.default(out, reshaped)
    return out


def _matmul_batched(tensor1: TensorImpl, tensor2: TensorImpl, out: TensorImpl | None) -> Any:
    """Both operands broadcast over their batch dims and flattened into one bmm."""
    dim1, dim2 = len(tensor1._size), len(tensor2._size)
    n = tensor1._size[-2] if dim1 > 1 else 1
    m1 = tensor1._size[-1]
    batch1 = tensor1._size[: max(dim1 - 2, 0)]
    m2 = tensor2._size[-2] if dim2 > 1 else tensor2._size[0]
    p = tensor2._size[-1] if dim2 > 1 else 1
    batch2 = tensor2._size[: max(dim2 - 2, 0)]
    # torch 2.13 squeezes a batch of one against a larger batch of 3-D tensors (found by
    # experiment: [1, 2, 3] @ [5, 3, 4] runs squeeze.dim, then the 2-D @ 3-D path).
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1:
            return _matmul_impl(aten.squeeze.dim(tensor1, 0), tensor2, out)
        if batch2[0] == 1:
            return _matmul_impl(tensor1, aten.squeeze.dim(tensor2, 0), out)
    output_shape = list(data.broadcast_shapes(batch1, batch2))
    batch = geometry.numel(output_shape)
    expanded1 = aten.expand.default(tensor1, [*output_shape, n, m1])
    expanded1 = aten.reshape.default(expanded1, [batch, n, m1])
    vector_rhs = dim2 == 1
    if vector_rhs:
        expanded2 = aten.expand.default(tensor2, [*output_shape, m2])
        expanded2 = aten.unsqueeze.default(aten.reshape.default(expanded2, [batch, m2]), 2)
    else:
        expanded2 = aten.expand.default(tensor2, [*output_shape, m2, p])
        expanded2 = aten.reshape.default(expanded2, [batch, m2, p])
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    if out is None:
        product = aten.bmm.default(expanded1, expanded2)
        if vector_rhs:
            product = aten.squeeze.dim(product, -1)
        return aten._unsafe_view.default(product, output_shape)
    resize_out(out, tuple(output_shape))
    reshaped = aten.reshape.default(out, [batch, n, p])
    aten.bmm.out(expanded1, expanded2, out=reshaped)
    if vector_rhs:
        reshaped = aten.squeeze.dim(reshaped, -1)
    if reshaped._storage is not out._storage:
        aten.copy_.default(out, aten.view_as.default(reshaped, out))
    return out


@matmul.decomposition
def matmul_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """The matrix product with NumPy's rank rules and batch broadcasting.

    Torch: matmul (LinearAlgebra.cpp), CompositeImplicitAutograd over dot, mv, mm and bmm.
    """
    return _matmul_impl(self, other, None)


@matmul_out.decomposition
def matmul_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """matmul into `out`. Torch: matmul_out (the same ranks, through the out= ops).

    Differs: torch refuses out= when an argument requires grad under grad mode; refimpl has
    no autograd yet (issue 12 adds it with that check).
    """
    return _matmul_impl(self, other, out)


# --- outer, ger, inner -------------------------------------------------------------------

outer = defop("outer(Tensor self, Tensor vec2) -> Tensor")
outer_out = defop("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)")
ger = defop("ger(Tensor self, Tensor vec2) -> Tensor")
ger_out = defop("ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)")


def _check_1d(t: TensorImpl, name: str, fn: str) -> None:
    # torch: check_1d in LinearAlgebra.cpp.
    if len(t._size) != 1:
        raise RuntimeError(f"{fn}: Expected 1-D argument {name}, but got {len(t._size)}-D")


@outer.decomposition
def outer_decomposition(self: TensorImpl, vec2: TensorImpl) -> Any:
    """self[:, None] * vec2. Torch: outer in LinearAlgebra.cpp (a mul, so it promotes)."""
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return aten.mul.Tensor(aten.reshape.default(self, [self._size[0], 1]), vec2)


@outer_out.decomposition
def outer_out_decomposition(self: TensorImpl, vec2: TensorImpl, *, out: TensorImpl) -> Any:
    """outer into `out`. Torch: outer_out (mul_out)."""
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return aten.mul.out(aten.reshape.default(self, [self._size[0], 1]), vec2, out=out)


@ger.decomposition
def ger_decomposition(self: TensorImpl, vec2: TensorImpl) -> Any:
    """The outer product's old name. Torch: ger in LinearAlgebra.cpp (calls outer)."""
    return aten.outer.default(self, vec2)


@ger_out.decomposition
def ger_out_decomposition(self: TensorImpl, vec2: TensorImpl, *, out: TensorImpl) -> Any:
    """Torch: ger_out (outer_out)."""
    return aten.outer.out(self, vec2, out=out)


inner = defop("inner(Tensor self, Tensor other) -> Tensor")
inner_out = defop("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


def _inner_check(self: TensorImpl, other: TensorImpl) -> None:
    # torch: inner in LinearAlgebra.cpp; tensordot itself would not insist on this.
    if self._size[-1] != other._size[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{sizes_text(self._size)} and {sizes_text(other._size)}"
        )


@inner.decomposition
def inner_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """Contract the last dims (a plain product if either is 0-d). Torch: inner
    (LinearAlgebra.cpp): mul for a 0-d operand, else tensordot over dims -1 and -1."""
    if not self._size or not other._size:
        return aten.mul.Tensor(self, other)
    _inner_check(self, other)
    return aten.tensordot.default(self, other, [-1], [-1])


@inner_out.decomposition
def inner_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """inner into `out`. Torch: inner_out (mul_out or tensordot_out)."""
    if not self._size or not other._size:
        return aten.mul.out(self, other, out=out)
    _inner_check(self, other)
    return aten.tensordot.out(self, other, [-1], [-1], out=out)


# --- tensordot ---------------------------------------------------------------------------

tensordot = defop(
    "tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor"
)
tensordot_out = defop(
    "tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _contracted(dims: list[int], ndim: int) -> set[int]:
    # torch: dim_list_to_bitset in aten/src/ATen/WrapDimUtilsMulti.h.
    seen: set[int] = set()
    for d in dims:
        wrapped = geometry.wrap_dim(d, ndim)
        if wrapped in seen:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen.add(wrapped)
    return seen


@tensordot.decomposition
def tensordot_decomposition(
    self: TensorImpl, other: TensorImpl, dims_self: list[int], dims_other: list[int]
) -> Any:
    """Contract `dims_self` of self with `dims_other` of other, as one mm.

    Torch: tensordot in LinearAlgebra.cpp: a contracted dim of size 1 on one side is summed
    away on the other first (broadcast); both operands are permuted (free dims, then
    contracted dims, in the order given) and reshaped into matrices for mm, and the product
    reshaped to the free dims of self, then of other.
    """
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2 = self, other
    contracted_size = 1
    for d1, d2 in zip(dims_self, dims_other, strict=True):
        s1, s2 = self.size(d1), other.size(d2)
        if s2 == 1:
            t1 = aten.sum.dim_IntList(t1, [d1], True, dtype=t1._dtype)
        elif s1 == 1:
            t2 = aten.sum.dim_IntList(t2, [d2], True, dtype=t2._dtype)
        elif s1 != s2:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {d1} "
                f"and second has size {s2} in dim {d2}"
            )
        else:
            contracted_size *= s1
    ndim1, ndim2 = len(self._size), len(other._size)
    c1, c2 = _contracted(dims_self, ndim1), _contracted(dims_other, ndim2)
    free1 = [i for i in range(ndim1) if i not in c1]
    free2 = [i for i in range(ndim2) if i not in c2]
    size1 = geometry.numel([t1._size[i] for i in free1])
    size2 = geometry.numel([t2._size[i] for i in free2])
    result_size = [t1._size[i] for i in free1] + [t2._size[i] for i in free2]
    left = aten.reshape.default(
        aten.permute.default(t1, free1 + list(dims_self)), [size1, contracted_size]
    )
    right = aten.reshape.default(
        aten.permute.default(t2, list(dims_other) + free2), [contracted_size, size2]
    )
    return aten.reshape.default(aten.mm.default(left, right), result_size)


@tensordot_out.decomposition
def tensordot_out_decomposition(
    self: TensorImpl,
    other: TensorImpl,
    dims_self: list[int],
    dims_other: list[int],
    *,
    out: TensorImpl,
) -> Any:
    """tensordot into `out`. Torch: tensordot_out (no promotion: the dtypes must agree)."""
    result = aten.tensordot.default(self, other, dims_self, dims_other)
    if result._dtype is not out._dtype:
        raise RuntimeError(
            f"tensordot: Expected the output tensor to have dtype {result._dtype.scalar_name}, "
            f"but got an output tensor with dtype {out._dtype.scalar_name}"
        )
    resize_out(out, result._size)
    return aten.copy_.default(out, result)


# --- kron --------------------------------------------------------------------------------

kron = defop("kron(Tensor self, Tensor other) -> Tensor")
kron_out = defop("kron.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")


def _kron_shapes(self: TensorImpl, other: TensorImpl) -> tuple[list[int], list[int], list[int]]:
    """Torch: KronImpl in LinearAlgebra.cpp: both operands padded to one rank with leading
    ones, self's dims interleaved with ones (a_i, 1) and other's (1, b_i), so that their
    product has dims (a_i, b_i), reshaped to (a_i * b_i)."""
    ndim = max(len(self._size), len(other._size))
    a = [1] * (ndim - len(self._size)) + list(self._size)
    b = [1] * (ndim - len(other._size)) + list(other._size)
    self_shape = [n for size in a for n in (size, 1)]
    other_shape = [n for size in b for n in (1, size)]
    return self_shape, other_shape, [x * y for x, y in zip(a, b, strict=True)]


@kron.decomposition
def kron_decomposition(self: TensorImpl, other: TensorImpl) -> Any:
    """The Kronecker product. Torch: kron in LinearAlgebra.cpp (one broadcast mul).

    Like torch, the operands go through _unsafe_view, so a layout that cannot be viewed
    raises view's error (torch.kron of a transposed matrix does).
    """
    self_shape, other_shape, result_shape = _kron_shapes(self, other)
    product = aten.mul.Tensor(
        aten._unsafe_view.default(self, self_shape), aten._unsafe_view.default(other, other_shape)
    )
    return aten._unsafe_view.default(product, result_shape)


@kron_out.decomposition
def kron_out_decomposition(self: TensorImpl, other: TensorImpl, *, out: TensorImpl) -> Any:
    """kron into `out`. Torch: kron_out (resize_output, then mul_out into a view of out)."""
    self_shape, other_shape, result_shape = _kron_shapes(self, other)
    resize_out(out, tuple(result_shape))
    left = aten._unsafe_view.default(self, self_shape)
    right = aten._unsafe_view.default(other, other_shape)
    product_shape = [x * y for x, y in zip(self_shape, other_shape, strict=True)]
    aten.mul.out(left, right, out=aten._unsafe_view.default(out, product_shape))
    return out


# --- einsum ------------------------------------------------------------------------------

einsum = defop("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor")

# Global dim keys: a label is 0..51; the k-th ellipsis dim is _ELLIPSIS_KEY + k.
_ELLIPSIS_KEY: Final = 100


def _operand_keys(labels: tuple[int, ...], rank: int, ellipsis_dims: int) -> list[int]:
    # The ellipsis dims of an operand are right-aligned among all operands' ellipsis dims.
    keys: list[int] = []
    for label in labels:
        if label == _einsum.ELLIPSIS:
            own = rank - (len(labels) - 1)
            keys.extend(_ELLIPSIS_KEY + ellipsis_dims - own + j for j in range(own))
        else:
            keys.append(label)
    return keys


def _take_diagonals(
    operand: TensorImpl, keys: list[int], index: int
) -> tuple[TensorImpl, list[int]]:
    """A label repeated in one operand takes the diagonal of its dims (moved to the end)."""
    while len(set(keys)) != len(keys):
        label = next(k for k in keys if keys.count(k) > 1)
        d1 = keys.index(label)
        d2 = keys.index(label, d1 + 1)
        if operand._size[d2] != operand._size[d1]:
            raise RuntimeError(
                f"einsum(): subscript {_einsum.label_char(label)} is repeated for operand "
                f"{index} but the sizes don't match, {operand._size[d2]} != {operand._size[d1]}"
            )
        operand = aten.diagonal.default(operand, 0, d1, d2)
        keys = [k for j, k in enumerate(keys) if j not in (d1, d2)] + [label]
    return operand, keys


def _sumproduct_pair(left: TensorImpl, right: TensorImpl, sum_dims: list[int]) -> Any:
    """left * right summed over `sum_dims` (kept, as size 1), through one bmm.

    Torch: sumproduct_pair in Linear.cpp: dims in both operands are the batch, dims in one
    are its rows or columns, the summed dims the contraction; a plain mul when nothing is
    summed.
    """
    if not sum_dims:
        return aten.mul.Tensor(left, right)
    batch: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    for d in range(len(left._size)):
        if d in sum_dims:
            continue
        in_left, in_right = left._size[d] != 1, right._size[d] != 1
        if in_left and in_right:
            batch.append(d)
        elif in_right:
            cols.append(d)
        else:
            rows.append(d)

    def sizes(t: TensorImpl, dims: list[int]) -> list[int]:
        return [t._size[d] for d in dims]

    b, m = sizes(left, batch), sizes(left, rows)
    k, n = sizes(left, sum_dims), sizes(right, cols)
    nb, nm, nk, nn = (geometry.numel(s) for s in (b, m, k, n))
    left_mat = aten.reshape.default(
        aten.permute.default(left, batch + rows + sum_dims + cols), [nb, nm, nk]
    )
    right_mat = aten.reshape.default(
        aten.permute.default(right, batch + sum_dims + cols + rows), [nb, nk, nn]
    )
    product = aten.bmm.default(left_mat, right_mat)
    # torch: the product viewed as "both, left only, 1 per summed dim, right only", then
    # permuted back to the operands' order of dims.
    order = batch + rows + sum_dims + cols
    product = aten.view.default(product, b + m + [1] * len(sum_dims) + n)
    inverse = [order.index(d) for d in range(len(order))]
    return aten.permute.default(product, inverse)


@einsum.decomposition
def einsum_decomposition(equation: str, tensors: list[TensorImpl], *, path: Any) -> Any:
    """Sum of products over the labels of `equation`, contracting left to right.

    Torch: einsum in Linear.cpp (with `path` None: opt_einsum is not consulted here). Every
    operand is aligned to the output dims followed by the contraction labels (repeated
    labels become diagonals, missing dims size 1); a contraction label held by only one
    operand is summed there first, and each next operand is combined with sumproduct_pair,
    summing the labels no later operand holds. A contraction of a single operand is a sum.
    See ops/_einsum.py for the grammar and its errors.

    The views and permutes around each bmm are torch's (conformance/test_corpus_modes.py
    compares the ops a TorchDispatchMode sees), as are the contractions, their order and the
    dtypes (sums of integers widen as torch's do).
    """
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    parsed = _einsum.parse(equation, [len(t._size) for t in tensors])
    ellipsis_dims = max(
        (
            len(t._size) - len(labels) + 1
            for t, labels in zip(tensors, parsed.inputs, strict=True)
            if _einsum.ELLIPSIS in labels
        ),
        default=0,
    )
    ellipsis_keys = [_ELLIPSIS_KEY + k for k in range(ellipsis_dims)]
    output: list[int] = []
    for label in parsed.output:
        output.extend(ellipsis_keys if label == _einsum.ELLIPSIS else [label])
    used = sorted({k for labels in parsed.inputs for k in labels if k != _einsum.ELLIPSIS})
    # Ellipsis dims missing from the output are summed, like labels missing from it.
    contraction = [k for k in used + ellipsis_keys if k not in output]
    all_keys = output + contraction
    seen: dict[int, int] = {}
    operands: list[TensorImpl] = []
    for index, (t, labels) in enumerate(zip(tensors, parsed.inputs, strict=True)):
        keys = _operand_keys(labels, len(t._size), ellipsis_dims)
        t, keys = _take_diagonals(t, keys, index)
        for key, size in zip(keys, t._size, strict=True):
            previous = seen.get(key, 1)
            if size != 1 and previous != 1 and size != previous:
                raise _no_broadcast(key, index, size, previous)
            if size != 1:
                seen[key] = size
        for key in all_keys:
            if key not in keys:
                t = aten.unsqueeze.default(t, len(keys))
                keys.append(key)
        operands.append(aten.permute.default(t, [keys.index(k) for k in all_keys]))
    return _contract(operands, len(output), len(contraction))


def _no_broadcast(key: int, index: int, size: int, previous: int) -> RuntimeError:
    # torch: einsum's size checks; the ellipsis message lacks a space after the operand
    # ("operand 1has"), as torch 2.13 prints it.
    if key >= _ELLIPSIS_KEY:
        return RuntimeError(
            f"einsum(): dimension {key - _ELLIPSIS_KEY} covered by ellipsis in operand "
            f"{index}has size {size} which does not broadcast with previously seen ellipsis "
            f"with size {previous} for the respective dimension"
        )
    return RuntimeError(
        f"einsum(): subscript {_einsum.label_char(key)} has size {size} for operand {index} "
        f"which does not broadcast with previously seen size {previous}"
    )


def _contract(operands: list[TensorImpl], n_out: int, n_sum: int) -> Any:
    """Torch: the contraction loop of einsum (path None): left to right."""
    sum_positions = list(range(n_out, n_out + n_sum))
    result = operands[0]
    if len(operands) == 1:
        if not sum_positions:
            return result
        return aten.sum.dim_IntList(result, sum_positions, False)
    counts = {d: sum(1 for t in operands if t._size[d] != 1) for d in sum_positions}
    for right in operands[1:]:
        left = result
        sum_dims: list[int] = []
        for d in sum_positions:
            if left._size[d] != 1 and right._size[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if left._size[d] != 1:
                    left = aten.sum.dim_IntList(left, [d], True)
                    counts[d] = 0
                elif right._size[d] != 1:
                    right = aten.sum.dim_IntList(right, [d], True)
                    counts[d] = 0
        result = _sumproduct_pair(left, right, sum_dims)
    if not sum_positions:
        return result
    # torch: the summed dims (size 1 now) dropped with a view.
    kept = [n for d, n in enumerate(result._size) if d not in sum_positions]
    return aten.view.default(result, kept)
