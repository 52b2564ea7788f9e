"""The aten ops of the negative log likelihood loss: nll_loss_forward / nll_loss_backward
(inputs of 1 or 2 dims), nll_loss2d_forward / nll_loss2d_backward (N, C, H, W inputs), and the
CompositeImplicitAutograd ops over them: nll_loss, nll_loss2d and nll_loss_nd (which reshapes
K-dimensional inputs to the 2d op). cross_entropy_loss is in nn_loss_cross_entropy.py.

Torch: TORCH_META_FUNC(nll_loss_forward) / (nll_loss_backward) and the CPU kernels of
aten/src/ATen/native/LossNLL.cpp (nll_loss_out_frame, nll_loss_backward_out_frame,
nll_loss_nd_symint), aten/src/ATen/native/LossNLL2d.cpp (check_inputs_nll_loss2d, the 2d frames), and
derivatives.yaml. `total_weight` is the sum of the weights of the non-ignored targets; the
mean divides by it (NaN when every target is ignored or there are none).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, int64, uint8
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_loss_common import FLOATING_KERNEL_DTYPES, Reduction
from refimpl.ops._outputs import format_shape, resize_output
from refimpl.ops._reduction import (
    check_out_dtype,
    finish,
    has_data,
    implements,
    input_array,
    not_implemented,
)
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")

_TARGET_DTYPES: Final = (int64, uint8)


def _check_dtypes(
    self: TensorImpl, target: TensorImpl, weight: TensorImpl | None, frame: str
) -> None:
    """Torch: the CPU templates' checks: the target's dtype, the AT_DISPATCH switch over the
    input's, and `weight.data_ptr<scalar_t>()` (same dtype as the input)."""
    if target._dtype not in _TARGET_DTYPES:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target._dtype.scalar_name}"
        )
    if self._dtype not in FLOATING_KERNEL_DTYPES:
        raise not_implemented(frame, self._dtype)
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found {weight._dtype.scalar_name}"
        )


def _check_1d(self: TensorImpl, target: TensorImpl) -> None:
    # torch: TORCH_META_FUNC(nll_loss_forward) / (nll_loss_backward), the shared part.
    if not 0 < len(self._size) <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if len(target._size) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = len(self._size) == 1 and len(target._size) == 0
    if not (no_batch_dim or self._size[0] == target._size[0]):
        raise RuntimeError(
            f"size mismatch (got input: {format_shape(self._size)}, target: "
            f"{format_shape(target._size)})"
        )


def _check_2d(self: TensorImpl, target: TensorImpl) -> None:
    # torch: check_inputs_nll_loss2d in LossNLL2d.cpp (the target's rank is checked first).
    if len(target._size) != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {len(target._size)}"
        )
    if len(self._size) != 4:
        raise RuntimeError(
            "only batches of spatial inputs supported (4D tensors), but got input of "
            f"dimension: {len(self._size)}"
        )
    n, _, h, w = self._size
    if (n, h, w) != target._size:
        raise RuntimeError(
            f"size mismatch (got input: {format_shape(self._size)} , target: "
            f"{format_shape(target._size)}"
        )


def _check_weight(self: TensorImpl, weight: TensorImpl | None, spatial: bool) -> None:
    n_classes = self._size[1] if spatial else self._size[-1]
    if weight is None:
        return
    if spatial:
        # torch: check_inputs_nll_loss2d
        if geometry.numel(weight._size) != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        return
    if len(weight._size) != 1 or geometry.numel(weight._size) != n_classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {format_shape(weight._size)}"
        )


def _layout(self: TensorImpl, spatial: bool) -> tuple[int, int, int]:
    """(batch, classes, positions per sample): the input viewed as (N, C, S)."""
    if spatial:
        n, c, h, w = self._size
        return n, c, h * w
    if len(self._size) == 1:
        return 1, self._size[0], 1
    return self._size[0], self._size[1], 1


def _picked(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    ignore_index: int,
    spatial: bool,
    last_bad: bool = False,
) -> tuple[Any, Any, Any, Any]:
    """(xp, the input's value at each target, each target's weight, a valid mask), flat in
    target order; zero weight where the target is ignored. IndexError "Target 5 is out of
    bounds." for the first other target outside [0, C), or the last where torch's loop
    records the bad target and checks after it (`last_bad`)."""
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    n, c, s = _layout(self, spatial)
    dtype = compute_dtype(self._dtype)
    x = xp.reshape(input_array(self, dtype), (-1,))
    t = xp.reshape(input_array(target, int64), (-1,))
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    count = n * s
    if count and (int(xp.min(safe)) < 0 or int(xp.max(safe)) >= c):
        flags = xp.astype(xp.logical_or(safe < 0, safe >= c), xp.int8)
        if last_bad:
            where = count - 1 - int(xp.argmax(xp.flip(flags)))
        else:
            where = int(xp.argmax(flags))
        raise IndexError(f"Target {int(t[where])} is out of bounds.")
    if count == 0:
        values = xp.zeros((0,), dtype=x.dtype)
    elif s == 1:
        # (sample, class) of an (N, C) input: sample * C + class.
        values = xp.take(x, xp.arange(0, count * c, c, dtype=xp.int64) + safe)
    else:
        # (sample, class, position) of an (N, C, S) input, the targets in (N, S) order.
        flat = xp.arange(count, dtype=xp.int64)
        values = xp.take(x, (flat // s * c + safe) * s + flat % s)
    if weight is None:
        w = xp.astype(valid, x.dtype)
    else:
        picked = xp.take(input_array(weight, dtype), safe) if count else xp.zeros_like(values)
        w = xp.where(valid, picked, xp.zeros_like(picked))
    return xp, values, w, valid


def _round_half(value: float) -> float:
    # float -> float16 -> float, rounding to nearest even (struct's IEEE half packing).
    return float(struct.unpack("e", struct.pack("e", value))[0])


def _round_bfloat16(value: float) -> float:
    # float -> bfloat16 -> float: the float32 bits rounded to their upper half, nearest even.
    if math.isnan(value):
        return value
    bits = struct.unpack("I", struct.pack("f", value))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(struct.unpack("f", struct.pack("I", bits))[0])


_ROUNDING: Final[dict[DType, Callable[[float], float]]] = {
    float16: _round_half,
    bfloat16: _round_bfloat16,
}
"""The dtypes whose reduced loss is summed as torch's frames sum it, in `scalar_t`."""

_CASCADE_LEVELS: Final = 8


def _cascade_sums(
    xp: Any, values: Any, w: Any, valid: Any, weighted: bool, rnd: Callable[[float], float]
) -> tuple[float, float]:
    """The loss and total weight summed in the input's low-precision dtype, every operation
    rounded, in torch's cascade order.

    Torch: the reduction branch of nll_loss_out_frame (LossNLL.cpp) and
    nll_loss2d_forward_out_frame (LossNLL2d.cpp): `loss_partial_sums[0] -= x * w` per kept
    target (in scalar_t), and after element `i` the partial sums move up one level for each
    group of `level_power` low bits of `i` that are all zero; the levels are added in order at
    the end. Without weights the total weight is the count of kept targets.
    """
    count = int(values.shape[0])
    level_power = max(4, math.ceil(math.log2(count)) // _CASCADE_LEVELS) if count > 1 else 4
    level_mask = (1 << level_power) - 1
    loss_sums = [0.0] * _CASCADE_LEVELS
    weight_sums = [0.0] * _CASCADE_LEVELS
    kept = 0
    for i in range(count):
        if not bool(valid[i]):
            continue
        kept += 1
        x = float(values[i])
        if weighted:
            wi = float(w[i])
            loss_sums[0] = rnd(loss_sums[0] - rnd(x * wi))
            weight_sums[0] = rnd(weight_sums[0] + wi)
        else:
            loss_sums[0] = rnd(loss_sums[0] - x)
        for j in range(_CASCADE_LEVELS - 1):
            if i & (level_mask << (j * level_power)):
                break
            weight_sums[j + 1] = rnd(weight_sums[j + 1] + weight_sums[j])
            loss_sums[j + 1] = rnd(loss_sums[j + 1] + loss_sums[j])
            weight_sums[j] = 0.0
            loss_sums[j] = 0.0
    total = 0.0
    loss = 0.0
    for level in range(_CASCADE_LEVELS):
        total = rnd(total + weight_sums[level])
        loss = rnd(loss + loss_sums[level])
    return loss, (total if weighted else rnd(float(kept)))


# --- nll_loss_forward, nll_loss2d_forward --------------------------------------------------------

nll_loss_forward = defop(
    "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index) -> (Tensor output, Tensor total_weight)"
)
nll_loss_forward_output = defop(
    "nll_loss_forward.output(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) total_weight) "
    "-> (Tensor(a!), Tensor(b!))"
)
nll_loss2d_forward = defop(
    "nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index) -> (Tensor output, Tensor total_weight)"
)
nll_loss2d_forward_output = defop(
    "nll_loss2d_forward.output(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) total_weight) "
    "-> (Tensor(a!), Tensor(b!))"
)


def _forward(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    output: TensorImpl | None,
    total_weight: TensorImpl | None,
    spatial: bool,
) -> tuple[Any, Any]:
    """The loss and total weight. Every check runs before anything is written."""
    if spatial:
        _check_2d(self, target)
    else:
        _check_1d(self, target)
    _check_weight(self, weight, spatial)
    unreduced = reduction == Reduction.NONE and len(self._size) >= 2
    shape: tuple[int, ...] = ()
    if unreduced:
        shape = (self._size[0], *self._size[2:]) if spatial else (self._size[0],)
    dtype = self._dtype
    if output is not None and total_weight is not None:
        check_out_dtype(output, dtype)
        check_out_dtype(total_weight, dtype)
    if not has_data(self):
        if output is not None and total_weight is not None:
            resize_output(output, shape)
            resize_output(total_weight, ())
        return (
            finish(self, None, shape, dtype, output),
            finish(self, None, (), dtype, total_weight),
        )
    frame = "nll_loss2d_forward_out_frame" if spatial else "nll_loss_out_frame"
    _check_dtypes(self, target, weight, frame)
    # torch: nll_loss_out_frame's unreduced branch stores a bad target and raises after
    # the loop (the last one); its other branches and the 2d frame raise at the first.
    last_bad = unreduced and not spatial
    xp, values, w, valid = _picked(self, target, weight, ignore_index, spatial, last_bad)
    losses = -values * w
    total = xp.sum(w)
    if unreduced:
        # torch: the unreduced branch returns before summing: total_weight stays 0.
        result = xp.reshape(losses, shape)
        total = xp.zeros_like(total)
    elif geometry.numel(target._size) == 0 and reduction == Reduction.MEAN:
        result = xp.asarray(float("nan"), dtype=values.dtype)
    elif dtype in _ROUNDING:
        loss_value, total_value = _cascade_sums(
            xp, values, w, valid, weight is not None, _ROUNDING[dtype]
        )
        if reduction == Reduction.MEAN:
            loss_value = _ROUNDING[dtype](loss_value / total_value)
        result = xp.asarray(loss_value, dtype=values.dtype)
        total = xp.asarray(total_value, dtype=values.dtype)
    else:
        result = xp.sum(losses)
        if reduction == Reduction.MEAN:
            result = result / total
    if output is not None and total_weight is not None:
        resize_output(output, shape)
        resize_output(total_weight, ())
    return (
        finish(self, result, shape, dtype, output),
        finish(self, total, (), dtype, total_weight),
    )


@implements(nll_loss_forward)
@implements(nll_loss_forward_output)
def nll_loss_forward_kernel(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    *,
    output: TensorImpl | None = None,
    total_weight: TensorImpl | None = None,
) -> tuple[Any, Any]:
    """Torch: nll_loss_forward_out_cpu (nll_loss_out_frame) in LossNLL.cpp: for reduction
    none and a 2-dim input, `-input[i, t_i] * weight[t_i]` per sample (0 where ignored); else
    their sum, divided by the total weight for mean. A 1-dim input is one sample."""
    return _forward(self, target, weight, reduction, ignore_index, output, total_weight, False)


@implements(nll_loss2d_forward)
@implements(nll_loss2d_forward_output)
def nll_loss2d_forward_kernel(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    *,
    output: TensorImpl | None = None,
    total_weight: TensorImpl | None = None,
) -> tuple[Any, Any]:
    """Torch: nll_loss2d_forward_out_cpu (nll_loss2d_forward_out_frame) in LossNLL2d.cpp:
    the 1d loss at every (h, w) position; reduction none gives an (N, H, W) result."""
    return _forward(self, target, weight, reduction, ignore_index, output, total_weight, True)


@nll_loss_forward.derivative("self")
def nll_loss_forward_backward_self(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    # torch: nll_loss_backward_symint(grad, self, target, weight, reduction, ignore_index,
    #   total_weight)
    return aten.nll_loss_backward.default(
        grad, self, target, weight, reduction, ignore_index, total_weight
    )


@nll_loss2d_forward.derivative("self")
def nll_loss2d_forward_backward_self(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    # torch: nll_loss2d_backward_symint(grad, self, target, weight, reduction, ignore_index,
    #   total_weight)
    return aten.nll_loss2d_backward.default(
        grad, self, target, weight, reduction, ignore_index, total_weight
    )


non_differentiable_outputs("aten::nll_loss_forward", "total_weight")
non_differentiable_outputs("aten::nll_loss2d_forward", "total_weight")


# --- nll_loss_backward, nll_loss2d_backward ------------------------------------------------------

nll_loss_backward = defop(
    "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, "
    "int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor"
)
nll_loss_backward_grad_input = defop(
    "nll_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight, *, "
    "Tensor(a!) grad_input) -> Tensor(a!)"
)
nll_loss2d_backward = defop(
    "nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, "
    "int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor"
)
nll_loss2d_backward_grad_input = defop(
    "nll_loss2d_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight, *, "
    "Tensor(a!) grad_input) -> Tensor(a!)"
)


def _check_backward(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    total_weight: TensorImpl,
    spatial: bool,
) -> None:
    """Torch: TORCH_META_FUNC(nll_loss_backward) and check_inputs_nll_loss2d /
    nll_loss2d_backward_out_cpu_template's grad_output checks."""
    if spatial:
        _check_2d(self, target)
    else:
        _check_1d(self, target)
    if geometry.numel(total_weight._size) != 1:
        # torch: the 1d meta function's text has two spaces before "single"; the 2d one's one.
        gap = " " if spatial else "  "
        raise RuntimeError(
            f"expected total_weight to be a{gap}single element tensor, got: "
            f"{format_shape(total_weight._size)} ({geometry.numel(total_weight._size)} elements)"
        )
    n_classes = self._size[1] if spatial else self._size[-1]
    if weight is not None and geometry.numel(weight._size) != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == Reduction.NONE and len(self._size) >= 2:
        if spatial:
            if len(grad_output._size) != 3:
                raise RuntimeError(
                    "grad_output must have same dimension as target (3) but got dimension: "
                    f"{format_shape(grad_output._size)}"
                )
            if grad_output._size != target._size:
                raise RuntimeError(
                    f"size mismatch (got grad_output: {format_shape(grad_output._size)} "
                    f"target: {format_shape(target._size)}"
                )
        elif len(grad_output._size) != 1 or grad_output._size[0] != self._size[0]:
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {self._size[0]} but "
                f"got: dimension {len(grad_output._size)} and tensor.size[0] = "
                f"{grad_output._size[0] if grad_output._size else 1}"
            )
    elif len(grad_output._size) > 1 or geometry.numel(grad_output._size) != 1:
        raise RuntimeError(
            "Expected a single element grad_output tensor, but got: "
            f"{format_shape(grad_output._size)}"
        )


def _backward(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    total_weight: TensorImpl,
    grad_input: TensorImpl | None,
    spatial: bool,
) -> Any:
    """`-weight[t] * g` at each sample's target (g per sample for none, else the single
    gradient, divided by the total weight for mean), zeros elsewhere."""
    _check_backward(grad_output, self, target, weight, reduction, total_weight, spatial)
    shape = self._size
    dtype = self._dtype
    if grad_input is not None:
        check_out_dtype(grad_input, dtype)
    if not has_data(self):
        if grad_input is not None:
            resize_output(grad_input, shape)
        return finish(self, None, shape, dtype, grad_input)
    frame = "nll_loss2d_backward_out_frame" if spatial else "nll_loss_backward_out_frame"
    _check_dtypes(self, target, weight, frame)
    # torch: nll_loss_backward_out_frame raises at the last bad target, the 2d frame at
    # the first. Differs: for reduction none torch checks nothing and writes out of bounds.
    xp, _, w, _ = _picked(self, target, weight, ignore_index, spatial, not spatial)
    cdtype = compute_dtype(dtype)
    g = xp.reshape(input_array(grad_output, cdtype), (-1,))
    if reduction == Reduction.MEAN:
        g = g / xp.reshape(input_array(total_weight, cdtype), (-1,))
    n, c, s = _layout(self, spatial)
    per_target = -w * g  # broadcasts a single gradient over every target
    # Scatter onto a zero (N, C, S) array: one-hot over classes, as the frames write
    # grad_input[i][t_i] (ignored targets have zero weight).
    t = xp.reshape(input_array(target, int64), (n, 1, s))
    classes = xp.reshape(xp.arange(c, dtype=xp.int64), (1, c, 1))
    onehot = t == classes
    picked = xp.reshape(per_target, (n, 1, s))
    values = xp.where(onehot, picked, xp.zeros_like(picked))
    if grad_input is not None:
        resize_output(grad_input, shape)
    return finish(self, xp.reshape(values, shape), shape, dtype, grad_input)


@implements(nll_loss_backward)
@implements(nll_loss_backward_grad_input)
def nll_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    total_weight: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: nll_loss_backward_out_cpu (nll_loss_backward_out_frame) in LossNLL.cpp."""
    return _backward(
        grad_output,
        self,
        target,
        weight,
        reduction,
        ignore_index,
        total_weight,
        grad_input,
        False,
    )


@implements(nll_loss2d_backward)
@implements(nll_loss2d_backward_grad_input)
def nll_loss2d_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None,
    reduction: int,
    ignore_index: int,
    total_weight: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: nll_loss2d_backward_out_cpu (nll_loss2d_backward_out_frame) in LossNLL2d.cpp."""
    return _backward(
        grad_output,
        self,
        target,
        weight,
        reduction,
        ignore_index,
        total_weight,
        grad_input,
        True,
    )


@nll_loss_backward.derivative("grad_output")
def nll_loss_backward_grad_output(
    grad: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> Tensor:
    # torch: nll_loss_symint(grad, target, weight, reduction, ignore_index)
    return aten.nll_loss.default(grad, target, weight, reduction, ignore_index)


@nll_loss_backward.derivative("self")
def nll_loss_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


@nll_loss2d_backward.derivative("grad_output")
def nll_loss2d_backward_grad_output(
    grad: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> Tensor:
    # torch: nll_loss2d_symint(grad, target, weight, reduction, ignore_index)
    return aten.nll_loss2d.default(grad, target, weight, reduction, ignore_index)


@nll_loss2d_backward.derivative("self")
def nll_loss2d_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)


# --- nll_loss, nll_loss2d, nll_loss_nd -----------------------------------------------------------

nll_loss = defop(
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor"
)
nll_loss_out = defop(
    "nll_loss.out(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, *, Tensor(a!) out) -> Tensor(a!)"
)
nll_loss2d = defop(
    "nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor"
)
nll_loss2d_out = defop(
    "nll_loss2d.out(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, *, Tensor(a!) out) -> Tensor(a!)"
)


@nll_loss.decomposition
def nll_loss_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
) -> Any:
    """Torch: nll_loss_symint in LossNLL.cpp: the output of nll_loss_forward."""
    return aten.nll_loss_forward.default(self, target, weight, reduction, ignore_index)[0]


@nll_loss_out.decomposition
def nll_loss_out_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: nll_loss_out in LossNLL.cpp (nll_loss_forward_out with a scratch total_weight)."""
    total_weight = aten.empty.memory_format([0], dtype=self._dtype, device=self._storage.device)
    return aten.nll_loss_forward.output(
        self, target, weight, reduction, ignore_index, output=out, total_weight=total_weight
    )[0]


@nll_loss2d.decomposition
def nll_loss2d_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
) -> Any:
    """Torch: nll_loss2d_symint in LossNLL2d.cpp: the output of nll_loss2d_forward."""
    return aten.nll_loss2d_forward.default(self, target, weight, reduction, ignore_index)[0]


@nll_loss2d_out.decomposition
def nll_loss2d_out_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: nll_loss2d_out in LossNLL2d.cpp."""
    total_weight = aten.empty.memory_format([0], dtype=self._dtype, device=self._storage.device)
    return aten.nll_loss2d_forward.output(
        self, target, weight, reduction, ignore_index, output=out, total_weight=total_weight
    )[0]


nll_loss_nd = defop(
    "nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor"
)


@nll_loss_nd.decomposition
def nll_loss_nd_decomposition(
    self: TensorImpl,
    target: TensorImpl,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    ignore_index: int = -100,
) -> Any:
    """Torch: nll_loss_nd_symint in LossNLL.cpp: 1- and 2-dim inputs go to nll_loss, 4-dim
    ones to nll_loss2d; 3-dim and >4-dim inputs are made contiguous and viewed as
    (N, C, 1, -1) with targets (N, 1, -1) ((N, C, 0, 0) / (N, 0, 0) when empty), and an
    unreduced result is viewed back to (N, d1, ..., dk)."""
    ndim = len(self._size)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and self._size[0] != target._size[0]:
        raise ValueError(
            f"Expected input batch_size ({self._size[0]}) to match target batch_size "
            f"({target._size[0]})."
        )
    if ndim in (1, 2):
        return aten.nll_loss.default(self, target, weight, reduction, ignore_index)
    if ndim == 4:
        return aten.nll_loss2d.default(self, target, weight, reduction, ignore_index)
    n, c = self._size[0], self._size[1]
    out_size = [n, *self._size[2:]]
    if tuple(target._size[1:]) != tuple(self._size[2:]):
        raise RuntimeError(
            f"Expected target size {format_shape(out_size)}, got {format_shape(target._size)}"
        )
    input_ = aten.contiguous.default(self)
    target_ = aten.contiguous.default(target)
    if geometry.numel(input_._size) > 0:
        input_ = aten.view.default(input_, [n, c, 1, -1])
    else:
        input_ = aten.view.default(input_, [n, c, 0, 0])
    if geometry.numel(target_._size) > 0:
        target_ = aten.view.default(target_, [n, 1, -1])
    else:
        target_ = aten.view.default(target_, [n, 0, 0])
    result = aten.nll_loss2d.default(input_, target_, weight, reduction, ignore_index)
    if reduction != Reduction.NONE:
        return result
    return aten.view.default(result, out_size)
