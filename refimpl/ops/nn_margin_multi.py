"""The multi-class margin losses: multi_margin_loss and multilabel_margin_loss (their forward,
backward and out= ops).

Torch: aten/src/ATen/native/LossMultiMargin.cpp and LossMultiLabelMargin.cpp (CPU kernels that
loop over frames; here the loops are array expressions over a (frames, classes) view).
multi_margin_loss and multilabel_margin_loss_forward have Meta kernels in torch (its Python
decompositions serve as their meta functions); the backward ops have none. The kernels read
`target` as int64 and the other tensors as the input's dtype (data_ptr<scalar_t>), hence
torch's "expected scalar type" errors; sums over frames accumulate in acc_type (double for
float on CPU).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType, int64
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, resize_for_output
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_margin_kernels import KERNEL_DTYPES, WITH_META, WITHOUT_META, kernels_for
from refimpl.ops._reduction import finish, has_data, input_array, not_implemented
from refimpl.ops._register import defop

aten: Final = namespace("aten")

_NONE: Final = 0
_MEAN: Final = 1


def _sizes(size: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


def _scalar_type_error(expected: DType, found: DType) -> RuntimeError:
    # torch: data_ptr<T>() of a tensor of another dtype.
    return RuntimeError(
        f"expected scalar type {expected.scalar_name} but found {found.scalar_name}"
    )


def _check_reads(expected: DType, *tensors: TensorImpl | None) -> None:
    for t in tensors:
        if t is not None and t._dtype is not expected:
            raise _scalar_type_error(expected, t._dtype)


def _frames(self: TensorImpl) -> tuple[int, int]:
    """(nframe, dim): a 0-dim or 1-dim input is one frame. Torch: the shape checks."""
    ndims = len(self._size)
    if not (
        (ndims == 2 and self._size[1] != 0) or (ndims == 1 and self._size[0] != 0) or ndims == 0
    ):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{_sizes(self._size)}"
        )
    if ndims <= 1:
        return 1, 1 if ndims == 0 else self._size[0]
    return self._size[0], self._size[1]


def _resize(out: TensorImpl, shape: tuple[int, ...]) -> None:
    # torch: Tensor::resize_ (no resize_output warning): contiguous strides on a new size.
    if out._size != shape:
        resize_for_output(out, shape, geometry.contiguous_strides(shape))


def _xp(t: TensorImpl) -> Any:
    return t._storage.backend.xp  # type: ignore[union-attr]  # callers check has_data


def _columns(xp: Any, dim: int) -> Array:
    return xp.arange(dim, dtype=xp.int64)


def _accumulated(xp: Any, values: Array) -> Array:
    # torch: at::acc_type<scalar_t, false> on CPU is double for float and double.
    return xp.astype(values, xp.float64)


# --- multi_margin_loss -----------------------------------------------------------------------

multi_margin_loss = defop(
    "multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
    "Tensor? weight=None, int reduction=1) -> Tensor"
)
multi_margin_loss_out = defop(
    "multi_margin_loss.out(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
    "Tensor? weight=None, int reduction=1, *, Tensor(a!) out) -> Tensor(a!)"
)


def _multi_margin_checks(
    self: TensorImpl, target: TensorImpl, p: Scalar, weight: TensorImpl | None
) -> tuple[int, int, int]:
    """(p, nframe, dim). Torch: the p check and multi_margin_loss_shape_check."""
    power = int(p)  # type: ignore[arg-type]  # torch: p.toLong()
    if power not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    nframe, dim = _frames(self)
    if len(target._size) > 1 or geometry.numel(target._size) != nframe:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{_sizes(target._size)}. Input has shape {_sizes(self._size)}."
        )
    if weight is not None and (len(weight._size) > 1 or geometry.numel(weight._size) != dim):
        raise RuntimeError(
            f"inconsistent weight size, expected {dim} but got {_sizes(weight._size)}"
        )
    return power, nframe, dim


def _multi_margin_terms(
    self: TensorImpl,
    target: TensorImpl,
    margin: Scalar,
    weight: TensorImpl | None,
    nframe: int,
    dim: int,
) -> tuple[Array, Array, Array, Array | None]:
    """(z, mask, onehot, weight of each frame's target) over (nframe, dim): z = margin -
    x[target] + x[d], mask where d is not the target and z > 0."""
    xp = _xp(self)
    x = xp.reshape(input_array(self, self._dtype), (nframe, dim))
    t = xp.reshape(input_array(target, int64), (nframe, 1))
    if bool(xp.any((t < 0) | (t >= dim))):
        raise RuntimeError("target out of range")
    onehot = _columns(xp, dim)[None, :] == t
    zero = xp.zeros_like(x)
    x_target = xp.sum(xp.where(onehot, x, zero), axis=1, keepdims=True)
    z = (xp.asarray(margin, dtype=x.dtype) - x_target) + x
    mask = (z > 0) & ~onehot
    if weight is None:
        return z, mask, onehot, None
    w = xp.reshape(input_array(weight, self._dtype), (1, dim))
    w_target = xp.sum(xp.where(onehot, w, zero), axis=1, keepdims=True)
    return z, mask, onehot, w_target


def _multi_margin_loss(
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar,
    margin: Scalar,
    weight: TensorImpl | None,
    reduction: int,
    out: TensorImpl | None,
) -> Any:
    """Torch: multi_margin_loss_cpu_out and multi_margin_loss_cpu_kernel: per frame, the sum
    over d != target of max(0, margin - x[target] + x[d])^p * weight[target], over dim."""
    power, nframe, dim = _multi_margin_checks(self, target, p, weight)
    shape = (nframe,) if reduction == _NONE and len(target._size) > 0 else ()
    if out is not None:
        _resize(out, shape)
    if not has_data(self):
        return finish(self, None, shape, self._dtype, out)
    xp = _xp(self)
    if geometry.numel(self._size) == 0:
        # Differs: torch returns the result as allocated (uninitialised); refimpl gives 0.
        return finish(self, xp.zeros(shape), shape, self._dtype, out)
    if self._dtype not in KERNEL_DTYPES:
        raise not_implemented("multi_margin_loss_cpu_kernel", self._dtype)
    _check_reads(int64, target)
    _check_reads(self._dtype, weight, out)
    z, mask, _, w_target = _multi_margin_terms(self, target, margin, weight, nframe, dim)
    h = z if power == 1 else z * z
    if w_target is not None:
        h = h * w_target
    per_frame = xp.sum(xp.where(mask, h, xp.zeros_like(h)), axis=1) / dim
    if shape:
        return finish(self, per_frame, shape, self._dtype, out)
    total = xp.sum(_accumulated(xp, per_frame))
    if reduction == _MEAN:
        total = total / nframe
    return finish(self, total, shape, self._dtype, out)


@kernels_for(multi_margin_loss, WITH_META)
def multi_margin_loss_kernel(
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar = 1,
    margin: Scalar = 1,
    weight: TensorImpl | None = None,
    reduction: int = 1,
) -> Any:
    """Torch: multi_margin_loss_cpu (LossMultiMargin.cpp)."""
    return _multi_margin_loss(self, target, p, margin, weight, reduction, None)


@kernels_for(multi_margin_loss_out, WITH_META)
def multi_margin_loss_out_kernel(
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar = 1,
    margin: Scalar = 1,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: multi_margin_loss_cpu_out (LossMultiMargin.cpp)."""
    return _multi_margin_loss(self, target, p, margin, weight, reduction, out)


@multi_margin_loss.derivative("self")
def multi_margin_loss_backward_self(
    grad: Tensor,
    self: Tensor,
    target: Tensor,
    p: Scalar,
    margin: Scalar,
    weight: Tensor | None,
    reduction: int,
) -> Tensor:
    # torch: multi_margin_loss_backward(grad, self, target, p, margin, weight, reduction)
    return aten.multi_margin_loss_backward.default(grad, self, target, p, margin, weight, reduction)


multi_margin_loss_backward = defop(
    "multi_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, Scalar p, "
    "Scalar margin, Tensor? weight=None, int reduction=1) -> Tensor"
)
multi_margin_loss_backward_grad_input = defop(
    "multi_margin_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target, "
    "Scalar p, Scalar margin, Tensor? weight=None, int reduction=1, *, "
    "Tensor(a!) grad_input) -> Tensor(a!)"
)


def _scale_by_grad_output(
    xp: Any, values: Array, grad_output: TensorImpl, dtype: DType, per_frame: bool, nframe: int
) -> Array:
    """`values` (nframe, dim) times grad_output: one value, or one per frame.

    Torch: the last loop of the backward kernels (a 0-dim grad_output, or any reduction,
    multiplies everything by its one value).
    """
    g = input_array(grad_output, dtype)
    if not per_frame:
        return values * xp.reshape(g, (-1,))[0]
    if grad_output._size != (nframe,):
        # torch: check_dim_size(grad_output, 1, 0, nframe) (multi_margin_loss_backward reads
        # past a wrong-sized grad_output instead). Differs: refimpl raises for both.
        raise RuntimeError(
            f"Expected a tensor of dimension 1 and tensor.size[0] == {nframe} but got: "
            f"dimension {len(grad_output._size)} and tensor.size[0] = "
            f"{grad_output._size[0] if grad_output._size else 1}"
        )
    return values * xp.reshape(g, (nframe, 1))


def _multi_margin_loss_backward(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar,
    margin: Scalar,
    weight: TensorImpl | None,
    reduction: int,
    grad_input: TensorImpl | None,
) -> Any:
    """Torch: multi_margin_loss_cpu_backward_out and its kernel: g = 1/(nframe dim) (mean) or
    1/dim; each violating class d gets g (p=1) or 2 g z (p=2), times weight[target]; the
    target class gets minus their sum."""
    power, nframe, dim = _multi_margin_checks(self, target, p, weight)
    shape = self._size
    if grad_input is not None:
        _resize(grad_input, shape)
        if not grad_input.is_contiguous():
            raise RuntimeError("grad_input must be contiguous")
    if not has_data(self):
        return finish(self, None, shape, self._dtype, grad_input)
    xp = _xp(self)
    if geometry.numel(shape) == 0:
        return finish(self, xp.zeros(shape), shape, self._dtype, grad_input)
    if self._dtype not in KERNEL_DTYPES:
        raise not_implemented("multi_margin_loss_backward_cpu_kernel", self._dtype)
    _check_reads(int64, target)
    _check_reads(self._dtype, grad_output, weight, grad_input)
    z, mask, onehot, w_target = _multi_margin_terms(self, target, margin, weight, nframe, dim)
    scale = 1.0 / (nframe * dim) if reduction == _MEAN else 1.0 / dim
    g = xp.asarray(scale, dtype=z.dtype)
    h = xp.ones_like(z) * g if power == 1 else 2 * g * z
    if w_target is not None:
        h = h * w_target
    zero = xp.zeros_like(h)
    others = xp.where(mask, h, zero)
    target_grad = -xp.sum(others, axis=1, keepdims=True)
    values = xp.where(onehot, target_grad, others)
    per_frame = reduction == _NONE and len(grad_output._size) != 0
    values = _scale_by_grad_output(xp, values, grad_output, self._dtype, per_frame, nframe)
    return finish(self, values, shape, self._dtype, grad_input)


@kernels_for(multi_margin_loss_backward, WITHOUT_META)
def multi_margin_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar,
    margin: Scalar,
    weight: TensorImpl | None = None,
    reduction: int = 1,
) -> Any:
    """Torch: multi_margin_loss_cpu_backward (LossMultiMargin.cpp)."""
    return _multi_margin_loss_backward(
        grad_output, self, target, p, margin, weight, reduction, None
    )


@kernels_for(multi_margin_loss_backward_grad_input, WITHOUT_META)
def multi_margin_loss_backward_grad_input_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    p: Scalar,
    margin: Scalar,
    weight: TensorImpl | None = None,
    reduction: int = 1,
    *,
    grad_input: TensorImpl,
) -> Any:
    """Torch: multi_margin_loss_cpu_backward_out (LossMultiMargin.cpp)."""
    return _multi_margin_loss_backward(
        grad_output, self, target, p, margin, weight, reduction, grad_input
    )


# --- multilabel_margin_loss_forward, multilabel_margin_loss ----------------------------------

multilabel_margin_loss_forward = defop(
    "multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction) "
    "-> (Tensor output, Tensor is_target)"
)
multilabel_margin_loss_forward_output = defop(
    "multilabel_margin_loss_forward.output(Tensor self, Tensor target, int reduction, *, "
    "Tensor(a!) output, Tensor(b!) is_target) -> (Tensor(a!), Tensor(b!))"
)


def _multilabel_frames(self: TensorImpl, target: TensorImpl) -> tuple[int, int]:
    """(nframe, dim). Torch: multilabel_margin_loss_shape_check."""
    nframe, dim = _frames(self)
    if len(self._size) <= 1:
        fits = len(target._size) <= 1 and geometry.numel(target._size) == dim
    else:
        fits = len(target._size) == 2 and target._size == (nframe, dim)
    if not fits:
        raise RuntimeError(
            f"inconsistent target size: {_sizes(target._size)} for input of size: "
            f"{_sizes(self._size)}"
        )
    return nframe, dim


def _check_target_range(xp: Any, t: Array, dim: int, argument: str) -> None:
    # torch: TORCH_CHECK(target.min() >= -1 && target.max() < dim, target_arg, " is out of range")
    if bool(xp.any((t < -1) | (t >= dim))):
        raise RuntimeError(f"{argument} is out of range")


def _multilabel_terms(
    self: TensorImpl, target: TensorImpl, nframe: int, dim: int
) -> tuple[Array, Array, Array, Array]:
    """(z, valid, listed, x) over (nframe, dim, dim) and (nframe, dim): z[r, j, d] =
    1 - x[r, target[r, j]] + x[r, d]; valid[r, j]: j comes before the frame's first
    negative target; listed[r, j, c]: target[r, j] is class c."""
    xp = _xp(self)
    x = xp.reshape(input_array(self, self._dtype), (nframe, dim))
    t = xp.reshape(input_array(target, int64), (nframe, dim))
    columns = _columns(xp, dim)
    past_end = xp.asarray(dim, dtype=xp.int64)
    first_negative = xp.min(xp.where(t < 0, columns[None, :], past_end), axis=1, keepdims=True)
    valid = columns[None, :] < first_negative
    listed = (t[:, :, None] == columns[None, None, :]) & valid[:, :, None]
    x_target = xp.sum(xp.where(listed, x[:, None, :], xp.zeros_like(x[:, None, :])), axis=2)
    z = (1 - x_target)[:, :, None] + x[:, None, :]
    return z, valid, listed, x


def _multilabel_margin_loss_forward(
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    output: TensorImpl | None,
    is_target: TensorImpl | None,
) -> Any:
    """Torch: multilabel_margin_loss_forward_out_cpu_template and its frame loop: per frame,
    the sum over listed targets j and unlisted classes d of max(0, 1 - x[t_j] + x[d]), over
    dim; is_target marks the listed classes."""
    nframe, dim = _multilabel_frames(self, target)
    shape = () if reduction != _NONE or len(target._size) <= 1 else (nframe,)
    mask_shape = target._size
    if output is not None and is_target is not None:
        _resize(output, shape)
        _resize(is_target, mask_shape)
        if not is_target.is_contiguous():
            raise RuntimeError("is_target must be contiguous")
    if not has_data(self):
        return (
            finish(self, None, shape, self._dtype, output),
            finish(self, None, mask_shape, self._dtype, is_target),
        )
    xp = _xp(self)
    if geometry.numel(self._size) == 0:
        # Differs: torch zeroes is_target and returns output uninitialised; refimpl gives 0.
        return (
            finish(self, xp.zeros(shape), shape, self._dtype, output),
            finish(self, xp.zeros(mask_shape), mask_shape, self._dtype, is_target),
        )
    _check_target_range(xp, input_array(target, target._dtype), dim, "argument #2 'target'")
    if self._dtype not in KERNEL_DTYPES:
        raise not_implemented("multilabel_margin_loss_forward_out_frame", self._dtype)
    _check_reads(int64, target)
    _check_reads(self._dtype, output, is_target)
    z, valid, listed, x = _multilabel_terms(self, target, nframe, dim)
    is_target_values = xp.astype(xp.any(listed, axis=1), x.dtype)
    unlisted = (is_target_values == 0)[:, None, :]
    hinge = xp.where(valid[:, :, None] & unlisted & (z > 0), z, xp.zeros_like(z))
    per_frame = xp.sum(xp.reshape(_accumulated(xp, hinge), (nframe, dim * dim)), axis=1)
    if shape:
        values = xp.astype(per_frame, x.dtype) / dim
    else:
        values = xp.sum(per_frame) / dim
        if reduction == _MEAN:
            values = values / nframe
    return (
        finish(self, values, shape, self._dtype, output),
        finish(self, xp.reshape(is_target_values, mask_shape), mask_shape, self._dtype, is_target),
    )


@kernels_for(multilabel_margin_loss_forward, WITH_META)
def multilabel_margin_loss_forward_kernel(
    self: TensorImpl, target: TensorImpl, reduction: int
) -> Any:
    """Torch: multilabel_margin_loss_forward_cpu (LossMultiLabelMargin.cpp)."""
    return _multilabel_margin_loss_forward(self, target, reduction, None, None)


@kernels_for(multilabel_margin_loss_forward_output, WITH_META)
def multilabel_margin_loss_forward_output_kernel(
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    *,
    output: TensorImpl,
    is_target: TensorImpl,
) -> Any:
    """Torch: multilabel_margin_loss_forward_out_cpu (LossMultiLabelMargin.cpp)."""
    return _multilabel_margin_loss_forward(self, target, reduction, output, is_target)


@multilabel_margin_loss_forward.derivative("self")
def multilabel_margin_loss_forward_backward_self(
    grads: tuple[Any, ...],
    self: Tensor,
    target: Tensor,
    reduction: int,
    is_target: Tensor,
) -> Tensor | None:
    # torch: multilabel_margin_loss_backward(grad, self, target, reduction, is_target)
    if grads[0] is None:
        return None
    return aten.multilabel_margin_loss_backward.default(
        grads[0], self, target, reduction, is_target
    )


# torch: only `grad` (the first output's) appears in the formula, so is_target is not
# differentiable.
non_differentiable_outputs("aten::multilabel_margin_loss_forward", "is_target")


multilabel_margin_loss = defop(
    "multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor"
)
multilabel_margin_loss_out = defop(
    "multilabel_margin_loss.out(Tensor self, Tensor target, int reduction=1, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@multilabel_margin_loss.decomposition
def multilabel_margin_loss_decomposition(
    self: TensorImpl, target: TensorImpl, reduction: int = 1
) -> Any:
    """Torch: multilabel_margin_loss in LossMultiLabelMargin.cpp (the forward's output)."""
    return aten.multilabel_margin_loss_forward.default(self, target, reduction)[0]


@multilabel_margin_loss_out.decomposition
def multilabel_margin_loss_out_decomposition(
    self: TensorImpl, target: TensorImpl, reduction: int = 1, *, out: TensorImpl
) -> Any:
    """Torch: multilabel_margin_loss_out: the forward's .output form with a fresh is_target."""
    is_target = aten.empty.memory_format([0], dtype=self._dtype, device=self.device)
    return aten.multilabel_margin_loss_forward.output(
        self, target, reduction, output=out, is_target=is_target
    )[0]


# --- multilabel_margin_loss_backward ---------------------------------------------------------

multilabel_margin_loss_backward = defop(
    "multilabel_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
    "int reduction, Tensor is_target) -> Tensor"
)
multilabel_margin_loss_backward_grad_input = defop(
    "multilabel_margin_loss_backward.grad_input(Tensor grad_output, Tensor self, "
    "Tensor target, int reduction, Tensor is_target, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _multilabel_margin_loss_backward(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    is_target: TensorImpl,
    grad_input: TensorImpl | None,
) -> Any:
    """Torch: multilabel_margin_loss_backward_out_cpu_template and its frame loop: each
    violating (listed j, unlisted d) pair adds g to class d and takes g from class t_j,
    g = 1/(nframe dim) (mean) or 1/dim."""
    nframe, dim = _multilabel_frames(self, target)
    if target._size != is_target._size:
        raise RuntimeError(
            "Expected tensor for argument #3 'target' to have same size as tensor for argument "
            f"#5 'is_target'; but {_sizes(target._size)} does not equal "
            f"{_sizes(is_target._size)} (while checking arguments for "
            "multilabel_margin_loss_backward_cpu_template)"
        )
    shape = self._size
    if grad_input is not None:
        _resize(grad_input, shape)
    if not has_data(self):
        return finish(self, None, shape, self._dtype, grad_input)
    xp = _xp(self)
    if geometry.numel(shape) == 0:
        return finish(self, xp.zeros(shape), shape, self._dtype, grad_input)
    if grad_input is not None and not grad_input.is_contiguous():
        raise RuntimeError("grad_input must be contiguous")
    _check_target_range(xp, input_array(target, target._dtype), dim, "argument #3 'target'")
    if self._dtype not in KERNEL_DTYPES:
        raise not_implemented("multilabel_margin_loss_backward_out_frame", self._dtype)
    _check_reads(int64, target)
    marks = input_array(is_target, is_target._dtype)
    if bool(xp.any(marks < 0)) or bool(xp.any(marks > 1)):
        raise RuntimeError("argument #5 'is_target' is out of range")
    _check_reads(self._dtype, is_target, grad_input, grad_output)
    z, valid, listed, x = _multilabel_terms(self, target, nframe, dim)
    unlisted = (xp.reshape(input_array(is_target, self._dtype), (nframe, dim)) == 0)[:, None, :]
    violating = xp.astype(valid[:, :, None] & unlisted & (z > 0), x.dtype)
    scale = 1.0 / (nframe * dim) if reduction == _MEAN else 1.0 / dim
    g = xp.asarray(scale, dtype=x.dtype)
    gained = xp.sum(violating, axis=1)
    lost_by_entry = xp.sum(violating, axis=2)
    lost = xp.sum(xp.where(listed, lost_by_entry[:, :, None], xp.zeros_like(z)), axis=1)
    values = g * gained - g * lost
    per_frame = reduction == _NONE and len(grad_output._size) != 0
    values = _scale_by_grad_output(xp, values, grad_output, self._dtype, per_frame, nframe)
    return finish(self, values, shape, self._dtype, grad_input)


@kernels_for(multilabel_margin_loss_backward, WITHOUT_META)
def multilabel_margin_loss_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    is_target: TensorImpl,
) -> Any:
    """Torch: multilabel_margin_loss_backward_cpu (LossMultiLabelMargin.cpp)."""
    return _multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target, None)


@kernels_for(multilabel_margin_loss_backward_grad_input, WITHOUT_META)
def multilabel_margin_loss_backward_grad_input_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    target: TensorImpl,
    reduction: int,
    is_target: TensorImpl,
    *,
    grad_input: TensorImpl,
) -> Any:
    """Torch: multilabel_margin_loss_backward_cpu_out (LossMultiLabelMargin.cpp)."""
    return _multilabel_margin_loss_backward(
        grad_output, self, target, reduction, is_target, grad_input
    )
