"""The Connectionist Temporal Classification loss: ctc_loss, _ctc_loss and _ctc_loss_backward.

Torch: aten/src/ATen/native/LossCTC.cpp (ctc_loss_impl; the CPU kernels ctc_loss_cpu_template
and ctc_loss_backward_cpu_template, after Graves et al., ICML 2006, eqs. 6-16). The kernels
loop over batch items, time and the extended label sequence l' (the target with a blank
before, between and after its labels); here the forward-backward recursions run in log space
over the whole batch and every extended label at once, looping only over time. Only
_ctc_loss (with int[] lengths) has a Meta kernel in torch; ctc_loss.IntList and
ctc_loss.Tensor are CompositeImplicitAutograd.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType, int32, int64
from refimpl._base.keys import DispatchKey
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, backend_dtype, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_margin_kernels import KERNEL_DTYPES, WITH_META, WITHOUT_META, kernels_for
from refimpl.ops._reduction import finish, has_data, input_array, not_implemented, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.view import legacy_type_name

aten: Final = namespace("aten")

_CHECKED: Final = " (while checking arguments for ctc_loss_allocate_outputs)"


# --- the admin bits: checks, lengths, target offsets -----------------------------------------


@dataclass(frozen=True, slots=True)
class _Layout:
    """What the kernels read of their arguments. Torch: the "admin bits" of the CPU kernels."""

    input_lengths: tuple[int, ...]
    target_lengths: tuple[int, ...]
    target_index: tuple[tuple[int, ...], ...]
    """Per batch item, the flat (logical) positions of its labels in `targets`."""
    max_target_length: int


def _kernel_name(log_probs: TensorImpl, backward: bool) -> str:
    suffix = "meta" if log_probs._storage.device.type == "meta" else "cpu"
    return f"ctc_loss_backward_{suffix}" if backward else f"ctc_loss_{suffix}"


def _layout(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
    backward: bool = False,
) -> _Layout:
    """Torch: ctc_loss_allocate_outputs (the checks, in torch's order) and the batch offsets
    of the targets, padded (batch x max_target_length) or concatenated."""
    if log_probs._dtype not in KERNEL_DTYPES:
        raise not_implemented(_kernel_name(log_probs, backward), log_probs._dtype)
    if not backward and has_data(log_probs) and log_probs.numel() == 0:
        # torch: ctc_loss_cpu's check (the Meta kernel allocates empty outputs instead).
        raise RuntimeError("log_probs tensor must not be empty")
    if backward and targets._dtype not in (int64, int32):
        # torch: the backward kernel reads non-int64 targets as int (data_ptr<int>).
        raise RuntimeError(f"expected scalar type Int but found {targets._dtype.scalar_name}")
    if targets._dtype not in (int64, int32):
        raise RuntimeError(
            "Expected tensor for argument #2 'targets' to have scalar type Int; but got "
            f"{legacy_type_name(targets._dtype)} instead{_CHECKED}"
        )
    if len(log_probs._size) != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {len(log_probs._size)}-dimensional tensor "
            f"for argument #1 'log_probs'{_CHECKED}"
        )
    if not 1 <= len(targets._size) <= 2:
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {len(targets._size)}-dimensional tensor for "
            f"argument #2 'targets'{_CHECKED}"
        )
    max_input_length, batch_size, num_labels = log_probs._size
    if not 0 <= blank < num_labels:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch_size:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch_size:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {length}"
                f"{_CHECKED}"
            )
    max_target_length = max(target_lengths, default=0)
    if len(targets._size) == 1:
        starts = [sum(target_lengths[:b]) for b in range(batch_size)]
        _check_size(targets, 0, sum(target_lengths))
    else:
        width = targets._size[1]
        starts = [b * width for b in range(batch_size)]
        _check_size(targets, 0, batch_size)
        if width < max_target_length:
            raise RuntimeError(
                f"Expected tensor to have size at least {max_target_length} at dimension 1, but "
                f"got size {width} for argument #2 'targets'{_CHECKED}"
            )
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {length}{_CHECKED}"
            )
        if length > max_input_length:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {max_input_length}, but got "
                f"value {length}{_CHECKED}"
            )
    index = tuple(
        tuple(start + k for k in range(length))
        for start, length in zip(starts, target_lengths, strict=True)
    )
    return _Layout(tuple(input_lengths), tuple(target_lengths), index, max_target_length)


def _check_size(targets: TensorImpl, dim: int, expected: int) -> None:
    # torch: checkSize(c, targets_arg, dim, expected).
    if targets._size[dim] != expected:
        raise RuntimeError(
            f"Expected tensor to have size {expected} at dimension {dim}, but got size "
            f"{targets._size[dim]} for argument #2 'targets'{_CHECKED}"
        )


def _lengths_of(t: TensorImpl, name: str) -> list[int]:
    """Torch: `t.to(kCPU, kLong).contiguous()` read as an IntArrayRef (the .Tensor overloads)."""
    if t._dtype.is_floating_point or t._dtype.is_complex or t._dtype.name == "bool":
        raise RuntimeError(f"{name} must be integral")
    return [int(v) for v in t.tolist()] if t._size else [int(t.item())]


# --- the forward-backward recursions ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lattice:
    """The extended label lattice of a batch, as arrays: `lp` the log-probabilities of each
    extended label, (T, N, S'); `valid` s <= 2 L_b; `skip` the transition s-2 -> s is allowed
    (l'_s is not blank and differs from l'_{s-2}); `labels` l' (N, S')."""

    lp: Array
    valid: Array
    skip: Array
    labels: Array
    columns: Array


def _lattice(xp: Any, log_probs: Array, targets: Array, layout: _Layout, blank: int) -> _Lattice:
    steps, batch, classes = log_probs.shape
    width = 2 * layout.max_target_length + 1
    # l'[b, s]: blank for even s, target label (s - 1) / 2 for odd s (blank past the end).
    positions = [
        [
            layout.target_index[b][(s - 1) // 2] if s % 2 and (s - 1) // 2 < length else -1
            for s in range(width)
        ]
        for b, length in enumerate(layout.target_lengths)
    ]
    where_label = xp.asarray(positions, dtype=xp.int64)
    flat_targets = xp.reshape(xp.astype(targets, xp.int64), (-1,))
    gathered = (
        xp.take(flat_targets, xp.reshape(xp.where(where_label < 0, 0, where_label), (-1,)))
        if flat_targets.shape[0]
        else xp.zeros((batch * width,), dtype=xp.int64)
    )
    labels = xp.where(where_label < 0, blank, xp.reshape(gathered, (batch, width)))
    flat = xp.reshape(xp.arange(batch, dtype=xp.int64)[:, None] * classes + labels, (-1,))
    lp = xp.reshape(
        xp.take(xp.reshape(log_probs, (steps, batch * classes)), flat, axis=1),
        (steps, batch, width),
    )
    columns = xp.arange(width, dtype=xp.int64)[None, :]
    lengths = xp.asarray(layout.target_lengths, dtype=xp.int64)[:, None]
    earlier = xp.concat((xp.full((batch, 2), -1, dtype=xp.int64), labels), axis=1)[:, :width]
    skip = (columns >= 2) & (labels != earlier)
    return _Lattice(lp, columns <= 2 * lengths, skip, labels, columns)


def _log(xp: Any, values: Array) -> Array:
    # log with log(0) = -inf and no floating point warning.
    positive = values > 0
    return xp.where(positive, xp.log(xp.where(positive, values, 1)), -math.inf)


def _log_add3(xp: Any, a: Array, b: Array, c: Array) -> Array:
    """log(exp(a) + exp(b) + exp(c)) as the kernels compute it (max-shifted, a -inf maximum
    taken as 0)."""
    top = xp.maximum(xp.maximum(a, b), c)
    top = xp.where(top == -math.inf, 0, top)
    return _log(xp, xp.exp(a - top) + xp.exp(b - top) + xp.exp(c - top)) + top


def _shifted(xp: Any, a: Array, by: int) -> Array:
    """a[:, s - by] (by > 0) or a[:, s + |by|] (by < 0), -inf where that is outside."""
    rows, width = a.shape
    pad = xp.full((rows, abs(by)), -math.inf, dtype=a.dtype)
    if by > 0:
        return xp.concat((pad, a), axis=1)[:, :width]
    return xp.concat((a, pad), axis=1)[:, abs(by) : abs(by) + width]


def _alpha(xp: Any, lattice: _Lattice, layout: _Layout) -> Array:
    """log alpha (T, N, S'), eqs. 6-7. Differs: entries a batch item never reaches are -inf;
    torch leaves them uninitialised."""
    lp = lattice.lp
    inputs = xp.asarray(layout.input_lengths, dtype=xp.int64)[:, None]
    lengths = xp.asarray(layout.target_lengths, dtype=xp.int64)[:, None]
    columns = lattice.columns
    first = (columns == 0) | ((columns == 1) & (lengths > 0))
    rows = [xp.where(first & (inputs > 0), lp[0, ...], -math.inf)]
    for t in range(1, lp.shape[0]):
        previous = rows[-1]
        step = _log_add3(
            xp,
            previous,
            _shifted(xp, previous, 1),
            xp.where(lattice.skip, _shifted(xp, previous, 2), -math.inf),
        )
        rows.append(xp.where((t < inputs) & lattice.valid, step + lp[t, ...], -math.inf))
    return xp.stack(rows, axis=0)


def _beta(xp: Any, lattice: _Lattice, layout: _Layout) -> Array:
    """log beta (T, N, S'), eqs. 10-11, started at each item's last input step."""
    lp = lattice.lp
    steps, batch, width = lp.shape
    inputs = xp.asarray(layout.input_lengths, dtype=xp.int64)[:, None]
    lengths = xp.asarray(layout.target_lengths, dtype=xp.int64)[:, None]
    columns = lattice.columns
    last = (columns == 2 * lengths) | ((columns == 2 * lengths - 1) & (lengths > 0))
    skip_next = _shifted(xp, xp.astype(lattice.skip, lp.dtype), -2) == 1
    following = xp.full((batch, width), -math.inf, dtype=lp.dtype)
    rows = []
    for t in range(steps - 1, -1, -1):
        step = _log_add3(
            xp,
            following,
            _shifted(xp, following, -1),
            xp.where(skip_next, _shifted(xp, following, -2), -math.inf),
        )
        started = xp.where(last, lp[t, ...], -math.inf)
        recursed = xp.where((t < inputs - 1) & lattice.valid, step + lp[t, ...], -math.inf)
        following = xp.where(t == inputs - 1, started, recursed)
        rows.append(following)
    return xp.stack(rows[::-1], axis=0)


def _at_last_step(xp: Any, values: Array, layout: _Layout) -> Array:
    """values[input_length - 1, b, :] for each b (row 0 where the input is empty)."""
    steps, batch, width = values.shape
    rows = [max(length - 1, 0) * batch + b for b, length in enumerate(layout.input_lengths)]
    return xp.take(
        xp.reshape(values, (steps * batch, width)), xp.asarray(rows, dtype=xp.int64), axis=0
    )


def _neg_log_likelihood(xp: Any, alpha: Array, layout: _Layout) -> Array:
    """-log p(target | input), eq. 8: log(alpha[T-1, 2L] + alpha[T-1, 2L-1]) (alpha[T-1, 0]
    for an empty target; 0 or inf for an empty input)."""
    final = _at_last_step(xp, alpha, layout)
    width = final.shape[1]
    ends = [2 * length for length in layout.target_lengths]
    flat = xp.reshape(final, (-1,))
    l1 = xp.take(flat, xp.asarray([b * width + e for b, e in enumerate(ends)], dtype=xp.int64))
    l2 = xp.take(
        flat, xp.asarray([b * width + max(e - 1, 0) for b, e in enumerate(ends)], dtype=xp.int64)
    )
    top = xp.maximum(l1, l2)
    top = xp.where(top == -math.inf, 0, top)
    both = _log(xp, xp.exp(l1 - top) + xp.exp(l2 - top)) + top
    lengths = xp.asarray(layout.target_lengths, dtype=xp.int64)
    inputs = xp.asarray(layout.input_lengths, dtype=xp.int64)
    log_likelihood = xp.where(lengths == 0, l1, both)
    empty_input = xp.where(lengths == 0, xp.zeros_like(l1), xp.full_like(l1, -math.inf))
    return -xp.where(inputs == 0, empty_input, log_likelihood)


# --- _ctc_loss, _ctc_loss.Tensor -------------------------------------------------------------

_ctc_loss = defop(
    "_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "int blank=0, bool zero_infinity=False) -> (Tensor, Tensor)"
)
_ctc_loss_tensor = defop(
    "_ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, "
    "Tensor target_lengths, int blank=0, bool zero_infinity=False) -> (Tensor, Tensor)"
)
_ctc_loss_out = defop(
    "_ctc_loss.out(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "int blank=0, bool zero_infinity=False, *, Tensor(a!) out0, Tensor(b!) out1) "
    "-> (Tensor(a!), Tensor(b!))"
)
_ctc_loss_tensor_out = defop(
    "_ctc_loss.Tensor_out(Tensor log_probs, Tensor targets, Tensor input_lengths, "
    "Tensor target_lengths, int blank=0, bool zero_infinity=False, *, Tensor(a!) out0, "
    "Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"
)


def _forward(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
) -> tuple[Any, Any]:
    """(neg_log_likelihood (N,), log_alpha (N, T, 2 max_target_length + 1)).

    Torch: ctc_loss_cpu_template (ctc_loss_meta for Meta); zero_infinity is only read by
    the backward.
    """
    layout = _layout(log_probs, targets, input_lengths, target_lengths, blank)
    steps, batch, _ = log_probs._size
    dtype = log_probs._dtype
    nll_shape = (batch,)
    alpha_shape = (batch, steps, 2 * layout.max_target_length + 1)
    if not has_data(log_probs):
        return (
            finish(log_probs, None, nll_shape, dtype, None),
            finish(log_probs, None, alpha_shape, dtype, None),
        )
    xp = log_probs._storage.backend.xp  # type: ignore[union-attr]  # has_data
    lattice = _lattice(
        xp, input_array(log_probs, dtype), input_array(targets, targets._dtype), layout, blank
    )
    alpha = _alpha(xp, lattice, layout)
    nll = _neg_log_likelihood(xp, alpha, layout)
    log_alpha = xp.permute_dims(alpha, (1, 0, 2))
    return (
        finish(log_probs, nll, nll_shape, dtype, None),
        finish(log_probs, log_alpha, alpha_shape, dtype, None),
    )


@kernels_for(_ctc_loss, WITH_META)
def _ctc_loss_kernel(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: list[int],
    target_lengths: list[int],
    blank: int = 0,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss_cpu (LossCTC.cpp) and ctc_loss_meta."""
    return _forward(log_probs, targets, input_lengths, target_lengths, blank)


@kernels_for(_ctc_loss_tensor, WITHOUT_META)
def _ctc_loss_tensor_kernel(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: TensorImpl,
    target_lengths: TensorImpl,
    blank: int = 0,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss_tensor (LossCTC.cpp): integral lengths read as int64, then the
    int[] kernel (called directly, not dispatched)."""
    inputs = _lengths_of(input_lengths, "input_lengths")
    targets_lengths = _lengths_of(target_lengths, "target_lengths")
    return _forward(log_probs, targets, inputs, targets_lengths, blank)


@_ctc_loss_out.kernel(DispatchKey.CompositeExplicitAutograd)
def _ctc_loss_out_kernel(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: list[int],
    target_lengths: list[int],
    blank: int = 0,
    zero_infinity: bool = False,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
) -> Any:
    """Torch: the generated out= form (the functional op, then each output copied)."""
    nll, log_alpha = aten._ctc_loss.default(
        log_probs, targets, input_lengths, target_lengths, blank, zero_infinity
    )
    return same_as_out(nll, out0), same_as_out(log_alpha, out1)


@_ctc_loss_tensor_out.kernel(DispatchKey.CompositeExplicitAutograd)
def _ctc_loss_tensor_out_kernel(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: TensorImpl,
    target_lengths: TensorImpl,
    blank: int = 0,
    zero_infinity: bool = False,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
) -> Any:
    """Torch: the generated out= form (the functional op, then each output copied)."""
    nll, log_alpha = aten._ctc_loss.Tensor(
        log_probs, targets, input_lengths, target_lengths, blank, zero_infinity
    )
    return same_as_out(nll, out0), same_as_out(log_alpha, out1)


@_ctc_loss.derivative("log_probs")
def _ctc_loss_backward_log_probs(
    grads: tuple[Any, ...],
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: list[int],
    target_lengths: list[int],
    result0: Tensor,
    result1: Tensor,
    blank: int,
    zero_infinity: bool,
) -> Tensor | None:
    # torch: _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
    #   result0, result1, blank, zero_infinity)
    if grads[0] is None:
        return None
    return aten._ctc_loss_backward.default(
        grads[0],
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        result0,
        result1,
        blank,
        zero_infinity,
    )


@_ctc_loss_tensor.derivative("log_probs")
def _ctc_loss_tensor_backward_log_probs(
    grads: tuple[Any, ...],
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    result0: Tensor,
    result1: Tensor,
    blank: int,
    zero_infinity: bool,
) -> Tensor | None:
    # torch: _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths,
    #   result0, result1, blank, zero_infinity) (the .Tensor overload)
    if grads[0] is None:
        return None
    return aten._ctc_loss_backward.Tensor(
        grads[0],
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        result0,
        result1,
        blank,
        zero_infinity,
    )


# torch: the formulas read only `grad` (the first output's), so log_alpha is not
# differentiable.
non_differentiable_outputs("aten::_ctc_loss", "result1")
non_differentiable_outputs("aten::_ctc_loss.Tensor", "result1")


# --- _ctc_loss_backward ----------------------------------------------------------------------

_ctc_loss_backward = defop(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, "
    "int[] target_lengths, Tensor neg_log_likelihood, Tensor log_alpha, int blank, "
    "bool zero_infinity=False) -> Tensor"
)
_ctc_loss_backward_tensor = defop(
    "_ctc_loss_backward.Tensor(Tensor grad, Tensor log_probs, Tensor targets, "
    "Tensor input_lengths, Tensor target_lengths, Tensor neg_log_likelihood, "
    "Tensor log_alpha, int blank, bool zero_infinity=False) -> Tensor"
)
_ctc_loss_backward_out = defop(
    "_ctc_loss_backward.out(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, "
    "int[] target_lengths, Tensor neg_log_likelihood, Tensor log_alpha, int blank, "
    "bool zero_infinity=False, *, Tensor(a!) out) -> Tensor(a!)"
)


def _backward(
    grad: TensorImpl,
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    neg_log_likelihood: TensorImpl,
    log_alpha: TensorImpl,
    blank: int,
    zero_infinity: bool,
) -> Any:
    """The gradient with respect to log_probs, (T, N, C).

    Torch: ctc_loss_backward_cpu_template: beta by eqs. 10-11, then eq. 16 for each label c
    and step t < input_length: (exp(lp) - exp(log sum_{s: l'_s = c} alpha beta + nll - lp))
    times the item's grad; zero past the input and, with zero_infinity, for an infinite
    loss.
    """
    layout = _layout(log_probs, targets, input_lengths, target_lengths, blank, backward=True)
    dtype = log_probs._dtype
    shape = log_probs._size
    xp = log_probs._storage.backend.xp  # type: ignore[union-attr]  # CPU only
    if log_probs.numel() == 0:
        return finish(log_probs, xp.zeros(shape), shape, dtype, None)
    for t in (grad, neg_log_likelihood, log_alpha):
        if t._dtype is not dtype:
            raise RuntimeError(
                f"expected scalar type {dtype.scalar_name} but found {t._dtype.scalar_name}"
            )
    lp = input_array(log_probs, dtype)
    lattice = _lattice(xp, lp, input_array(targets, targets._dtype), layout, blank)
    alpha = xp.permute_dims(input_array(log_alpha, dtype), (1, 0, 2))
    width = lattice.lp.shape[2]
    alpha = alpha[:, :, :width]
    beta = _beta(xp, lattice, layout)
    steps, batch, classes = shape
    # collected[t, b, c] = log sum over valid s with l'_s = c of alpha[t, s] + beta[t, s].
    chosen = (lattice.labels[:, :, None] == xp.arange(classes, dtype=xp.int64)[None, None, :]) & (
        lattice.valid[:, :, None]
    )
    # torch starts each item's sums at its last step by assignment, blank (s = 2L) first, then
    # l'_{2L-1}: a target ending in the blank label keeps only the second.
    steps_index = xp.arange(steps, dtype=xp.int64)[:, None, None]
    inputs = xp.asarray(layout.input_lengths, dtype=xp.int64)[None, :, None]
    lengths = xp.asarray(layout.target_lengths, dtype=xp.int64)[:, None]
    before_end = xp.where(lattice.columns == 2 * lengths - 1, lattice.labels, -1)
    ends_in_blank = xp.any(before_end == blank, axis=1)[None, :, None]
    overwritten = (steps_index == inputs - 1) & ends_in_blank & (lattice.columns == 2 * lengths)
    included = chosen[None, :, :, :] & ~overwritten[:, :, :, None]
    terms = xp.where(included, (alpha + beta)[:, :, :, None], -math.inf)
    top = xp.max(terms, axis=2) if width else xp.full((steps, batch, classes), -math.inf)
    top = xp.where(top == -math.inf, 0, top)
    collected = _log(xp, xp.sum(xp.exp(terms - top[:, :, None, :]), axis=2)) + top
    nll = xp.reshape(input_array(neg_log_likelihood, dtype), (1, batch, 1))
    g = xp.reshape(input_array(grad, dtype), (1, batch, 1))
    values = (xp.exp(lp) - xp.exp(collected + nll - lp)) * g
    keep = steps_index < inputs
    if zero_infinity:
        keep = keep & (nll != math.inf)
    return finish(log_probs, xp.where(keep, values, xp.zeros_like(values)), shape, dtype, None)


@kernels_for(_ctc_loss_backward, WITHOUT_META)
def _ctc_loss_backward_kernel(
    grad: TensorImpl,
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: list[int],
    target_lengths: list[int],
    neg_log_likelihood: TensorImpl,
    log_alpha: TensorImpl,
    blank: int,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss_backward_cpu (LossCTC.cpp)."""
    return _backward(
        grad,
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        neg_log_likelihood,
        log_alpha,
        blank,
        zero_infinity,
    )


@kernels_for(_ctc_loss_backward_tensor, WITHOUT_META)
def _ctc_loss_backward_tensor_kernel(
    grad: TensorImpl,
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: TensorImpl,
    target_lengths: TensorImpl,
    neg_log_likelihood: TensorImpl,
    log_alpha: TensorImpl,
    blank: int,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss_backward_tensor (LossCTC.cpp): integral lengths read as int64."""
    inputs = _lengths_of(input_lengths, "input_lengths")
    targets_lengths = _lengths_of(target_lengths, "target_lengths")
    return _backward(
        grad,
        log_probs,
        targets,
        inputs,
        targets_lengths,
        neg_log_likelihood,
        log_alpha,
        blank,
        zero_infinity,
    )


@_ctc_loss_backward_out.kernel(DispatchKey.CompositeExplicitAutograd)
def _ctc_loss_backward_out_kernel(
    grad: TensorImpl,
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: list[int],
    target_lengths: list[int],
    neg_log_likelihood: TensorImpl,
    log_alpha: TensorImpl,
    blank: int,
    zero_infinity: bool = False,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated out= form (the functional op, then copied)."""
    result = aten._ctc_loss_backward.default(
        grad,
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        neg_log_likelihood,
        log_alpha,
        blank,
        zero_infinity,
    )
    return same_as_out(result, out)


# --- ctc_loss.IntList, ctc_loss.Tensor -------------------------------------------------------

ctc_loss_intlist = defop(
    "ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, "
    "int[] target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor"
)
ctc_loss_tensor = defop(
    "ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, "
    "Tensor target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor"
)

_MEAN: Final = 1
_SUM: Final = 2


def _ctc_loss_impl(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: Any,
    target_lengths: Any,
    blank: int,
    reduction: int,
    zero_infinity: bool,
) -> Any:
    """Torch: ctc_loss_impl in LossCTC.cpp: an unbatched (T, C) input gets a batch dim; the
    targets are converted to int64 on log_probs' device; with zero_infinity infinite losses
    become 0; mean divides each loss by its target length (at least 1) first."""
    batched = len(log_probs._size) == 3
    lp = log_probs if batched else aten.unsqueeze.default(log_probs, 1)
    labels = aten.to.device(targets, log_probs.device, int64)
    if isinstance(input_lengths, TensorImpl):
        res = aten._ctc_loss.Tensor(
            lp, labels, input_lengths, target_lengths, blank, zero_infinity
        )[0]
    else:
        res = aten._ctc_loss.default(
            lp, labels, input_lengths, target_lengths, blank, zero_infinity
        )[0]
    if zero_infinity:
        zeros = aten.zeros.default([], dtype=res._dtype, device=res.device)
        res = aten.where.self(aten.eq.Scalar(res, math.inf), zeros, res)
    if reduction == _MEAN:
        lengths = (
            target_lengths
            if isinstance(target_lengths, TensorImpl)
            else _lengths_tensor(target_lengths, res._dtype, res)
        )
        return aten.mean.default(aten.div.Tensor(res, aten.clamp_min.default(lengths, 1)))
    if reduction == _SUM:
        return aten.sum.default(res)
    return res if batched else aten.squeeze.dim(res, 0)


def _lengths_tensor(lengths: Sequence[int], dtype: DType, like: TensorImpl) -> Any:
    """Torch: at::tensor(target_lengths, res.options()): an empty tensor, filled by a copy
    the dispatcher does not see."""
    result = aten.empty.memory_format([len(lengths)], dtype=dtype, device=like.device)
    backend = result._storage.backend
    if backend is not None:
        write_array(result, backend.xp.asarray(list(lengths), dtype=backend_dtype(backend, dtype)))
    return result


@ctc_loss_intlist.decomposition
def ctc_loss_intlist_decomposition(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: list[int],
    target_lengths: list[int],
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss (int[] lengths) in LossCTC.cpp."""
    return _ctc_loss_impl(
        log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity
    )


@ctc_loss_tensor.decomposition
def ctc_loss_tensor_decomposition(
    log_probs: TensorImpl,
    targets: TensorImpl,
    input_lengths: TensorImpl,
    target_lengths: TensorImpl,
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Any:
    """Torch: ctc_loss (Tensor lengths) in LossCTC.cpp (the lengths stay tensors)."""
    return _ctc_loss_impl(
        log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity
    )
