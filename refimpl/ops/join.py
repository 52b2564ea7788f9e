"""Joins: cat, _chunk_cat, stack and its h/v/d/column forms, with cat's and stack's derivatives.

Torch: aten/src/ATen/native/TensorShape.cpp (cat's structured meta function and kernel,
stack and its forms). Ops torch registers as CompositeImplicitAutograd are decompositions
over other aten ops; cat has one real kernel body that serves CPU, CUDA and Meta (metadata
first, data only when there is any). atleast_*, broadcast_*, ravel, unflatten, reshape_as
and the dim-swapping aliases are in ops/shape_aliases.py; flip, roll, rot90, repeat, tile
and repeat_interleave in ops/reorder.py, the splits in ops/split.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, can_cast, result_type_of
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    operand_key,
    resize_for_output,
    result_maker,
    tensor_over,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_products import cat_tensors_backward, stack_tensors_backward
from refimpl.ops._join import (
    check_no_overlap,
    format_list,
    laid_out,
    register_backends,
)
from refimpl.ops._outputs import planned_resize, resize_output
from refimpl.ops._register import defop

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- cat ---------------------------------------------------------------------------------


# torch: cat_should_skip_tensor; a 1-d tensor of size 0 was once the only empty tensor, and
# cat still ignores it, whatever the other inputs' shapes (legacy behaviour).
_SKIPPED: Final = (0,)


def _cat_strides(tensors: list[TensorImpl], size: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """The result's strides, and whether they are contiguous.

    Torch: cat_compute_output_memory_format: channels-last only if every input suggests it
    (inputs of one rank, 4 or 5), else contiguous.
    """
    ndim = len(size)
    if (ndim == 4 or ndim == 5) and all(
        len(t._size) == ndim and layout.suggests_channels_last(t._size, t._stride) for t in tensors
    ):
        return layout.channels_last_strides(size), False
    return geometry.contiguous_strides(size), True


def _check_cat_shape(first: TensorImpl, t: TensorImpl, dim: int, index: int) -> None:
    # torch: check_cat_shape_except_dim in TensorShape.cpp.
    if len(first._size) != len(t._size):
        raise RuntimeError(
            "Tensors must have same number of dimensions: got "
            f"{len(first._size)} and {len(t._size)}"
        )
    for d, (expected, got) in enumerate(zip(first._size, t._size)):
        if d != dim and expected != got:
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {dim}. Expected size "
                f"{expected} but got size {got} for tensor number {index} in the list."
            )


# Note [cat fast path]
# cat's meta function (checks, wrapped dim, which inputs take part, the result's dtype, size
# and strides) reads only `dim` and the inputs' metadata (dtype, size, strides, device,
# backend: `operand_key`), never values. cat without out= caches, under that key, a runner
# for its answer (a `_CatPlan`): for a fresh row-major result, fetch each input's array
# (cast where its dtype differs), concatenate, wrap (`result_maker`); for any other plan
# (meta, one input, channels-last, all inputs skipped), the general `_cat_values`. Errors
# are never cached, so a failing call fails the same way each time; cat.out resizes `out`,
# not an answer to cache, so it always runs the general path. Compare Note [Pointwise fast
# path] in _pointwise.py.

CatRunner = Callable[[list[TensorImpl]], Any]
_CAT_RUNNERS: dict[tuple[object, ...], CatRunner] = {}


class _CatPlan(NamedTuple):
    """cat's meta decisions (see Note [cat fast path]): the positions of the inputs that take
    part (`valid`; the others are skipped legacy empties), the wrapped `dim`, the result's
    `dtype`, `size` and `stride`, and whether those strides are row-major."""

    valid: tuple[int, ...]
    dim: int
    dtype: DType
    size: tuple[int, ...]
    stride: tuple[int, ...]
    contiguous: bool


def _cat_plan(tensors: list[TensorImpl], dim: int, out: TensorImpl | None) -> _CatPlan:
    """The checks and output geometry of cat and cat.out.

    Torch: the structured meta function TORCH_PRECOMPUTE_META_FUNC(cat) in TensorShape.cpp,
    checks in its order: no 0-d input, dim wrapped against the first input not skipped, the
    result type of all inputs (an `out` must be castable from it), equal sizes except along
    `dim`; the result is channels-last when every input suggests it.
    """
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    device = tensors[0]._storage.device
    for t in tensors:
        if t._storage.device != device:
            # torch: the dispatcher's common-device check, before the kernel runs.
            raise RuntimeError(
                f"Tensor on device {t._storage.device} is not on the expected device {device}!"
            )
    valid: list[int] = []
    dtype = tensors[0]._dtype
    mixed = False
    for i, t in enumerate(tensors):
        if not t._size:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t._size != _SKIPPED:
            valid.append(i)
        mixed = mixed or t._dtype is not dtype
    if valid:
        dim = geometry.wrap_dim(dim, len(tensors[valid[0]]._size))
    if mixed:
        dtype = result_type_of((t._dtype, OperandKind.DIMENSIONED) for t in tensors)
    if out is not None:
        if not can_cast(dtype, out._dtype):
            raise TypeError(
                "torch.cat(): input types can't be cast to the desired output type "
                f"{out._dtype.scalar_name}"
            )
        dtype = out._dtype
    size: tuple[int, ...] = _SKIPPED
    if valid:
        first = tensors[valid[0]]
        reference = first._size
        extent = 0
        for i in valid:
            t = tensors[i]
            if t._size != reference:
                _check_cat_shape(first, t, dim, i)
            extent += t._size[dim]
        size = (*reference[:dim], extent, *reference[dim + 1 :])
    stride, contiguous = _cat_strides(tensors, size)
    return _CatPlan(tuple(valid), dim, dtype, size, stride, contiguous)


def _cat_values(p: _CatPlan, tensors: list[TensorImpl], out: TensorImpl | None) -> Any:
    """The result of a checked cat: the valid inputs' values in the result dtype joined
    along `dim` (zeros when every input was skipped), as a new tensor or written into `out`.

    Torch: cat_out_cpu in TensorShape.cpp.
    """
    storage = tensors[0]._storage
    backend = storage.backend
    valid = [tensors[i] for i in p.valid]
    dtype, size = p.dtype, p.size
    if backend is None or (out is not None and out._storage.backend is None):
        values = None
    elif valid:
        arrays = [_as_dtype(t, dtype) for t in valid]
        values = arrays[0] if len(arrays) == 1 else backend.xp.concat(arrays, axis=p.dim)
    else:
        values = backend.xp.zeros(size, dtype=backend_dtype(backend, dtype))
    if out is None:
        # A single input not cast is the one result that may still alias its input.
        fresh = len(valid) != 1 or valid[0]._dtype is not dtype
        if p.contiguous and fresh:
            return tensor_over(values, size, p.stride, dtype, storage.device, backend)
        return laid_out(values, tensors[0], size, p.stride, dtype, fresh=fresh)
    if values is not None and geometry.numel(size):
        write_array(out, values)
    return out


def cat_impl(tensors: list[TensorImpl], dim: int, out: TensorImpl | None) -> Any:
    """cat and cat.out: the meta function's checks and geometry (`_cat_plan`), `out`
    resized and checked for overlap, then the values (`_cat_values`).

    Torch: TORCH_PRECOMPUTE_META_FUNC(cat) and cat_out_cpu in TensorShape.cpp.
    """
    p = _cat_plan(tensors, dim, out)
    if out is not None:
        # torch: set_output resizes `out` (restrided to the memory format), then the
        # overlap checks run on the resized tensor (planned_resize).
        after = planned_resize(out, p.size, p.stride) if out._size != p.size else None
        if p.valid:
            check_no_overlap(out, tensors, after)
        device = tensors[0]._storage.device
        if out._storage.device != device:
            raise RuntimeError(
                f"Attempting to copy from device {device} to device {out._storage.device}, "
                "but cross-device copies are not allowed!"
            )
        if after is not None:
            resize_for_output(out, *after)
    return _cat_values(p, tensors, out)


def _cat_runner(p: _CatPlan, tensors: list[TensorImpl]) -> CatRunner:
    """`_cat_values` for plan `p` without out=, with its per-input decisions made (see
    Note [cat fast path]); `tensors` are the call's inputs, whose metadata the plan fits."""
    storage = tensors[0]._storage
    backend = storage.backend
    if backend is None or len(p.valid) < 2 or not p.contiguous:
        return lambda inputs: _cat_values(p, inputs, None)
    xp, valid, axis, dtype = backend.xp, p.valid, p.dim, p.dtype
    make = result_maker(p.size, p.stride, dtype, storage.device, backend)
    if valid == tuple(range(len(tensors))) and all(t._dtype is dtype for t in tensors):
        # Every input takes part and is read as it is.
        return lambda inputs: make(xp.concat([array_of(t) for t in inputs], axis=axis))
    return lambda inputs: make(xp.concat([_as_dtype(inputs[i], dtype) for i in valid], axis=axis))


def _as_dtype(t: TensorImpl, dtype: DType) -> Any:
    values = array_of(t)
    if t._dtype is dtype:
        return values
    backend = t._storage.backend
    assert backend is not None  # only called for tensors with data
    return data.cast_array(backend.xp, values, t._dtype, dtype, backend)


cat = defop("cat(Tensor[] tensors, int dim=0) -> Tensor")


def cat_kernel(tensors: list[TensorImpl], dim: int) -> Any:
    """The inputs joined along `dim`. Torch: cat (structured, cat_out_cpu) in TensorShape.cpp.

    The meta function's answer and the runner for it are cached by the inputs' metadata
    (Note [cat fast path]).
    """
    key = (dim, *map(operand_key, tensors))
    runner = _CAT_RUNNERS.get(key)
    if runner is None:
        runner = _cat_runner(_cat_plan(tensors, dim, None), tensors)
        if len(_CAT_RUNNERS) > 1024:
            _CAT_RUNNERS.clear()
        _CAT_RUNNERS[key] = runner
    return runner(tensors)


register_backends(cat, cat_kernel, nonfunctional=True)


@cat.derivative("tensors")
def cat_backward(
    grad: Tensor,
    tensors_args_sizes: list[list[int]],
    tensors_args_scalartypes: list[DType],
    dim: int,
) -> list[Tensor | None]:
    # torch: cat_tensors_backward(grad, to_args_sizes_symint(tensors),
    # to_args_scalartypes(tensors), dim)
    return cat_tensors_backward(grad, tensors_args_sizes, tensors_args_scalartypes, dim)


cat_out = defop("cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")


def cat_out_kernel(tensors: list[TensorImpl], dim: int, *, out: TensorImpl) -> Any:
    """cat written into `out` (resized; of any dtype the result casts to). Torch: cat.out."""
    return cat_impl(tensors, dim, out)


register_backends(cat_out, cat_out_kernel)


# torch: concat and concatenate are CompositeImplicitAutograd aliases of cat.
concat = defop("concat(Tensor[] tensors, int dim=0) -> Tensor")


@concat.decomposition
def concat_decomposition(tensors: list[TensorImpl], dim: int) -> Any:
    """Torch: concat in TensorShape.cpp (at::cat)."""
    return aten.cat.default(tensors, dim)


concat_out = defop("concat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")


@concat_out.decomposition
def concat_out_decomposition(tensors: list[TensorImpl], dim: int, *, out: TensorImpl) -> Any:
    """Torch: concat_out in TensorShape.cpp (at::cat_out)."""
    return aten.cat.out(tensors, dim, out=out)


concatenate = defop("concatenate(Tensor[] tensors, int dim=0) -> Tensor")


@concatenate.decomposition
def concatenate_decomposition(tensors: list[TensorImpl], dim: int) -> Any:
    """Torch: concatenate in TensorShape.cpp (at::cat)."""
    return aten.cat.default(tensors, dim)


concatenate_out = defop(
    "concatenate.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)"
)


@concatenate_out.decomposition
def concatenate_out_decomposition(tensors: list[TensorImpl], dim: int, *, out: TensorImpl) -> Any:
    """Torch: concatenate_out in TensorShape.cpp (at::cat_out)."""
    return aten.cat.out(tensors, dim, out=out)


# --- _chunk_cat ----------------------------------------------------------------------------


def _chunk_cat_dim(tensors: list[TensorImpl], dim: int, num_chunks: int) -> int:
    """Torch: _chunk_cat_check in TensorShape.cpp, its checks in its order."""
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    dtype = tensors[0]._dtype
    for t in tensors:
        if geometry.numel(t._size) == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t._dtype is not dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    ranks = {len(t._size) for t in tensors}
    if len(ranks) == 1:
        dim = geometry.wrap_dim(dim, len(tensors[0]._size))
    else:
        if dim < 0:
            raise RuntimeError(
                "_chunk_cat expects non-negative dim when input tensors have different ndims"
            )
        if any(dim >= len(t._size) for t in tensors):
            raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    leading = tensors[0]._size[:dim]
    if any(t._size[:dim] != leading for t in tensors):
        raise RuntimeError(
            "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors"
        )
    return dim


_chunk_cat = defop("_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor")


@_chunk_cat.kernel(CEA)
def _chunk_cat_kernel(tensors: list[TensorImpl], dim: int, num_chunks: int) -> Any:
    """Each input split along `dim` into `num_chunks` equal chunks (zero-padded at the end),
    each chunk flattened with the dims after `dim`, and chunk i of every input joined into
    row i: the result has shape leading dims + (num_chunks, total chunk length).

    Torch: _chunk_cat in TensorShape.cpp (the copy FSDP uses to pack gradients).
    """
    d = _chunk_cat_dim(tensors, dim, num_chunks)
    leading = tensors[0]._size[:d]
    lengths = []
    for t in tensors:
        per_chunk = -(-t._size[d] // num_chunks)
        lengths.append(per_chunk * geometry.numel(t._size[d + 1 :]))
    size = (*leading, num_chunks, sum(lengths))
    storage = tensors[0]._storage
    backend = storage.backend
    values = None
    if backend is not None:
        xp = backend.xp
        pieces = []
        for t, length in zip(tensors, lengths, strict=True):
            array = array_of(t)
            padded = length * num_chunks // geometry.numel(t._size[d + 1 :])
            if padded != t._size[d]:
                pad = (*t._size[:d], padded - t._size[d], *t._size[d + 1 :])
                array = xp.concat([array, xp.zeros(pad, dtype=array.dtype)], axis=d)
            pieces.append(xp.reshape(array, (*leading, num_chunks, length)))
        values = xp.concat(pieces, axis=d + 1)
    stride = geometry.contiguous_strides(size)
    return laid_out(values, tensors[0], size, stride, tensors[0]._dtype, fresh=True)


_chunk_cat_out = defop(
    "_chunk_cat.out(Tensor[] tensors, int dim, int num_chunks, *, Tensor(a!) out) -> Tensor(a!)"
)


@_chunk_cat_out.kernel(CEA)
def _chunk_cat_out_kernel(
    tensors: list[TensorImpl], dim: int, num_chunks: int, *, out: TensorImpl
) -> Any:
    """_chunk_cat written into `out` as cat.out writes (castable dtype, resized).

    Torch: _chunk_cat_out in TensorShape.cpp (at::cat_out of the padded chunk views).
    """
    d = _chunk_cat_dim(tensors, dim, num_chunks)
    return aten.cat.out([aten._chunk_cat.default(tensors, d, num_chunks)], d + 1, out=out)


# --- stack -------------------------------------------------------------------------------


def _check_stack_inputs(tensors: list[TensorImpl]) -> None:
    # torch: check_stack_inputs / get_stack_inputs in TensorShape.cpp.
    entry = tensors[0]._size
    for i, t in enumerate(tensors[1:], start=1):
        if t._size != entry:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {format_list(entry)} at "
                f"entry 0 and {format_list(t._size)} at entry {i}"
            )


def _stack_dim(tensors: list[TensorImpl], dim: int) -> int:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return geometry.wrap_dim(dim, len(tensors[0]._size) + 1)


stack = defop("stack(Tensor[] tensors, int dim=0) -> Tensor")


@stack.kernel(CEA)
def stack_kernel(tensors: list[TensorImpl], dim: int) -> Any:
    """The inputs (of one shape) joined along a new dim. Torch: stack in TensorShape.cpp.

    Below the last dim the result is cat's, viewed with the new dim split out (never a
    view for autograd, as torch's internal view is not tracked); at the last dim, the
    inputs are unsqueezed and concatenated.
    """
    d = _stack_dim(tensors, dim)
    _check_stack_inputs(tensors)
    ndim = len(tensors[0]._size)
    if d < ndim:
        size = list(tensors[0]._size)
        size.insert(d, len(tensors))
        return aten._unsafe_view.default(aten.cat.default(tensors, d), size)
    return aten.cat.default([aten.unsqueeze.default(t, d) for t in tensors], d)


@stack.derivative("tensors")
def stack_backward(grad: Tensor, dim: int, tensors_args_scalartypes: list[DType]) -> list[Tensor]:
    # torch: stack_tensors_backward(grad, dim, to_args_scalartypes(tensors))
    return stack_tensors_backward(grad, dim, tensors_args_scalartypes)


stack_out = defop("stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")


@stack_out.kernel(CEA)
def stack_out_kernel(tensors: list[TensorImpl], dim: int, *, out: TensorImpl) -> Any:
    """stack written into `out`. Torch: stack_out in TensorShape.cpp: `out` is resized to the
    result's shape, then written through a view of cat's shape when its strides allow one."""
    d = _stack_dim(tensors, dim)
    ndim = len(tensors[0]._size)
    if d < ndim:
        _check_stack_inputs(tensors)
        size = list(tensors[0]._size)
        size.insert(d, len(tensors))
        resize_output(out, tuple(size))
        cat_size = list(tensors[0]._size)
        cat_size[d] *= len(tensors)
        if geometry.view_strides(out._size, out._stride, tuple(cat_size)) is not None:
            aten.cat.out(tensors, d, out=aten.view.default(out, cat_size))
            return out
    _check_stack_inputs(tensors)
    return aten.cat.out([aten.unsqueeze.default(t, d) for t in tensors], dim, out=out)


_stack = defop("_stack(Tensor[] tensors, int dim=0) -> Tensor")


@_stack.kernel(CEA)
def _stack_kernel(tensors: list[TensorImpl], dim: int) -> Any:
    """stack without its fast path: the inputs unsqueezed at `dim`, then concatenated.

    Torch: _stack in TensorShape.cpp (get_stack_inputs, then cat into a result of the
    inputs' result type).
    """
    d = _stack_dim(tensors, dim)
    _check_stack_inputs(tensors)
    return aten.cat.default([aten.unsqueeze.default(t, d) for t in tensors], d)


_stack_out = defop("_stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")


@_stack_out.kernel(CEA)
def _stack_out_kernel(tensors: list[TensorImpl], dim: int, *, out: TensorImpl) -> Any:
    """Torch: _stack_out in TensorShape.cpp."""
    d = _stack_dim(tensors, dim)
    _check_stack_inputs(tensors)
    return aten.cat.out([aten.unsqueeze.default(t, d) for t in tensors], d, out=out)


# --- hstack, vstack, row_stack, dstack, column_stack -------------------------------------


def _nonempty(tensors: list[TensorImpl], name: str) -> None:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def _hstack_parts(tensors: list[TensorImpl]) -> tuple[list[Any], int]:
    _nonempty(tensors, "hstack")
    parts = aten.atleast_1d.Sequence(tensors)
    return parts, 0 if len(parts[0]._size) == 1 else 1


hstack = defop("hstack(Tensor[] tensors) -> Tensor")


@hstack.decomposition
def hstack_decomposition(tensors: list[TensorImpl]) -> Any:
    """Joined column-wise (1-d inputs end to end). Torch: hstack (atleast_1d, cat)."""
    parts, dim = _hstack_parts(tensors)
    return aten.cat.default(parts, dim)


hstack_out = defop("hstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@hstack_out.decomposition
def hstack_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: hstack_out in TensorShape.cpp."""
    parts, dim = _hstack_parts(tensors)
    return aten.cat.out(parts, dim, out=out)


vstack = defop("vstack(Tensor[] tensors) -> Tensor")


@vstack.decomposition
def vstack_decomposition(tensors: list[TensorImpl]) -> Any:
    """Joined row-wise, 1-d inputs as rows. Torch: vstack (atleast_2d, cat along 0)."""
    _nonempty(tensors, "vstack")
    return aten.cat.default(aten.atleast_2d.Sequence(tensors), 0)


vstack_out = defop("vstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@vstack_out.decomposition
def vstack_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: vstack_out in TensorShape.cpp."""
    _nonempty(tensors, "vstack")
    return aten.cat.out(aten.atleast_2d.Sequence(tensors), 0, out=out)


row_stack = defop("row_stack(Tensor[] tensors) -> Tensor")


@row_stack.decomposition
def row_stack_decomposition(tensors: list[TensorImpl]) -> Any:
    """Torch: row_stack, an alias of vstack."""
    return aten.vstack.default(tensors)


row_stack_out = defop("row_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@row_stack_out.decomposition
def row_stack_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: row_stack_out, an alias of vstack_out."""
    return aten.vstack.out(tensors, out=out)


dstack = defop("dstack(Tensor[] tensors) -> Tensor")


@dstack.decomposition
def dstack_decomposition(tensors: list[TensorImpl]) -> Any:
    """Joined depth-wise (dim 2). Torch: dstack in TensorShape.cpp (atleast_3d, cat)."""
    _nonempty(tensors, "dstack")
    return aten.cat.default(aten.atleast_3d.Sequence(tensors), 2)


dstack_out = defop("dstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@dstack_out.decomposition
def dstack_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: dstack_out in TensorShape.cpp."""
    _nonempty(tensors, "dstack")
    return aten.cat.out(aten.atleast_3d.Sequence(tensors), 2, out=out)


def _columns(tensors: list[TensorImpl]) -> list[Any]:
    # torch: column_stack reshapes 0-d and 1-d inputs to columns (numel, 1).
    _nonempty(tensors, "column_stack")
    return [
        aten.reshape.default(t, [geometry.numel(t._size), 1]) if len(t._size) <= 1 else t
        for t in tensors
    ]


column_stack = defop("column_stack(Tensor[] tensors) -> Tensor")


@column_stack.decomposition
def column_stack_decomposition(tensors: list[TensorImpl]) -> Any:
    """1-d inputs as columns, joined column-wise. Torch: column_stack (reshape, hstack)."""
    return aten.hstack.default(_columns(tensors))


column_stack_out = defop("column_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")


@column_stack_out.decomposition
def column_stack_out_decomposition(tensors: list[TensorImpl], *, out: TensorImpl) -> Any:
    """Torch: column_stack_out in TensorShape.cpp."""
    return aten.hstack.out(_columns(tensors), out=out)
