"""The batch norm variants torch.export and functionalization use: the
`_native_batch_norm_legit` family (with and without running statistics, no_training,
functional) and `_batch_norm_with_update` / `_with_update_functional` / `_no_update`.

Torch: aten/src/ATen/native/Normalization.cpp (_batch_norm_legit_cpu,
_batch_norm_with_update_cpu, _batch_norm_no_update and their out= forms, all over
batch_norm_cpu; the functional forms return the updated running statistics instead of
writing them). Derivatives: tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._nn_normalization_common import make_result, write_kernel_outs, write_outs
from refimpl.ops._reduction import implements
from refimpl.ops._register import defop
from refimpl.ops.nn_normalization_batch import (
    batch_norm_forward as _batch_norm,
)
from refimpl.ops.nn_normalization_batch import (
    native_batch_norm_backward_call as _native_batch_norm_backward_call,
)
from refimpl.ops.nn_normalization_batch import (
    native_batch_norm_backward_formula,
)
from refimpl.ops.nn_normalization_batch import reserve as _reserve

aten: Final = namespace("aten")


# --- _native_batch_norm_legit, _native_batch_norm_legit_no_training, _functional -----------

_native_batch_norm_legit = defop(
    "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, "
    "float eps) -> (Tensor, Tensor, Tensor)"
)
_native_batch_norm_legit_out = defop(
    "_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, "
    "float eps, *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd) -> "
    "(Tensor(d!), Tensor(e!), Tensor(f!))"
)
_native_batch_norm_legit_no_stats = defop(
    "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"
)
_native_batch_norm_legit_no_stats_out = defop(
    "_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias, "
    "bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, "
    "Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)
_native_batch_norm_legit_no_training = defop(
    "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor)"
)
_native_batch_norm_legit_no_training_out = defop(
    "_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0, "
    "Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)
_native_batch_norm_legit_functional = defop(
    "_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)"
)


@implements(_native_batch_norm_legit)
def _native_batch_norm_legit_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _native_batch_norm_legit (_batch_norm_legit_cpu: batch_norm_cpu)."""
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[:3]


@implements(_native_batch_norm_legit_out)
def _native_batch_norm_legit_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    training: bool,
    momentum: float,
    eps: float,
    *,
    out: TensorImpl,
    save_mean: TensorImpl,
    save_invstd: TensorImpl,
) -> Any:
    """Torch: _native_batch_norm_legit.out (_batch_norm_legit_cpu_out)."""
    results = _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return write_kernel_outs(results[:3], (out, save_mean, save_invstd))


@implements(_native_batch_norm_legit_no_stats)
def _native_batch_norm_legit_no_stats_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _native_batch_norm_legit.no_stats (_batch_norm_legit_no_stats_cpu)."""
    return _batch_norm(input, weight, bias, None, None, training, momentum, eps)[:3]


@implements(_native_batch_norm_legit_no_stats_out)
def _native_batch_norm_legit_no_stats_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    training: bool,
    momentum: float,
    eps: float,
    *,
    out: TensorImpl,
    save_mean: TensorImpl,
    save_invstd: TensorImpl,
) -> Any:
    """Torch: _native_batch_norm_legit.no_stats_out (_batch_norm_legit_no_stats_cpu_out)."""
    results = _batch_norm(input, weight, bias, None, None, training, momentum, eps)
    return write_kernel_outs(results[:3], (out, save_mean, save_invstd))


@implements(_native_batch_norm_legit_no_training)
def _native_batch_norm_legit_no_training_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _native_batch_norm_legit_no_training (CompositeExplicitAutograd:
    _native_batch_norm_legit with training false)."""
    return _batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)[:3]


@implements(_native_batch_norm_legit_no_training_out)
def _native_batch_norm_legit_no_training_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    momentum: float,
    eps: float,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    """Torch: _native_batch_norm_legit_no_training.out (the generated out= form)."""
    results = _batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)
    return write_outs(results[:3], (out0, out1, out2))


def _updated(stat: TensorImpl, new: Array | None) -> Any:
    """A new tensor holding the updated running statistic (a copy of `stat` where none)."""
    if new is None:
        return aten.clone.default(stat)
    return make_result(stat, new, stat._size, stat._dtype)


@implements(_native_batch_norm_legit_functional)
def _native_batch_norm_legit_functional_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _native_batch_norm_legit_functional (CompositeExplicitAutograd): the running
    statistics returned updated instead of written."""
    out, save_mean, save_invstd, new_mean, new_var = _batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, update=False
    )
    return (
        out,
        save_mean,
        save_invstd,
        _updated(running_mean, new_mean),
        _updated(running_var, new_var),
    )


# torch: _native_batch_norm_legit's entry (and its functional form's) is native_batch_norm's
# formula: native_batch_norm_backward(grad, input, weight, running_mean, running_var,
# result1, result2, training, eps, grad_input_mask).
_native_batch_norm_legit.derivative("input", "weight", "bias")(native_batch_norm_backward_formula)


@_native_batch_norm_legit_no_stats.derivative("input", "weight", "bias")
def _native_batch_norm_legit_no_stats_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    result1: Tensor,
    result2: Tensor,
    training: bool,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: native_batch_norm_backward(grad, input, weight, Tensor(), Tensor(), result1,
    #   result2, training, eps, grad_input_mask)
    return _native_batch_norm_backward_call(
        grad, input, weight, None, None, result1, result2, training, eps, grad_input_mask
    )


@_native_batch_norm_legit_no_training.derivative("input", "weight", "bias")
def _native_batch_norm_legit_no_training_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor,
    running_var: Tensor,
    result1: Tensor,
    result2: Tensor,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: native_batch_norm_backward(grad, input, weight, running_mean, running_var,
    #   result1, result2, /*training=*/false, eps, grad_input_mask)
    return _native_batch_norm_backward_call(
        grad,
        input,
        weight,
        running_mean,
        running_var,
        result1,
        result2,
        False,
        eps,
        grad_input_mask,
    )


_native_batch_norm_legit_functional.derivative("input", "weight", "bias")(
    native_batch_norm_backward_formula
)


for _name in (
    "_native_batch_norm_legit",
    "_native_batch_norm_legit.no_stats",
    "_native_batch_norm_legit_no_training",
):
    non_differentiable_outputs(f"aten::{_name}", "result1", "result2")
non_differentiable_outputs(
    "aten::_native_batch_norm_legit_functional",
    "result1",
    "result2",
    "running_mean_out",
    "running_var_out",
)


# --- _batch_norm_with_update, _batch_norm_with_update_functional, _batch_norm_no_update ----

_batch_norm_with_update = defop(
    "_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor, Tensor)"
)
_batch_norm_with_update_out = defop(
    "_batch_norm_with_update.out(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps, *, "
    "Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd, Tensor(g!) reserve) -> "
    "(Tensor(d!), Tensor(e!), Tensor(f!), Tensor(g!))"
)
_batch_norm_with_update_functional = defop(
    "_batch_norm_with_update_functional(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)"
)
_batch_norm_no_update = defop(
    "_batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)"
)
_batch_norm_no_update_out = defop(
    "_batch_norm_no_update.out(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor? running_mean, Tensor? running_var, float momentum, float eps, *, "
    "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2, Tensor(d!) out3) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!), Tensor(d!))"
)


@implements(_batch_norm_with_update)
def _batch_norm_with_update_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _batch_norm_with_update (_batch_norm_with_update_cpu: batch_norm_cpu in
    training, and an empty reserve)."""
    results = _batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return (*results[:3], _reserve(input))


@implements(_batch_norm_with_update_out)
def _batch_norm_with_update_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    momentum: float,
    eps: float,
    *,
    out: TensorImpl,
    save_mean: TensorImpl,
    save_invstd: TensorImpl,
    reserve: TensorImpl,
) -> Any:
    """Torch: _batch_norm_with_update.out (_batch_norm_with_update_cpu_out)."""
    results = _batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return write_kernel_outs(
        (*results[:3], _reserve(input)), (out, save_mean, save_invstd, reserve)
    )


@implements(_batch_norm_with_update_functional)
def _batch_norm_with_update_functional_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl,
    running_var: TensorImpl,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _batch_norm_with_update_functional (CompositeExplicitAutograd)."""
    out, save_mean, save_invstd, new_mean, new_var = _batch_norm(
        input, weight, bias, running_mean, running_var, True, momentum, eps, update=False
    )
    return (
        out,
        save_mean,
        save_invstd,
        _reserve(input),
        _updated(running_mean, new_mean),
        _updated(running_var, new_var),
    )


def _no_update(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    momentum: float,
    eps: float,
) -> tuple[Any, ...]:
    # torch: _batch_norm_no_update: batch_norm_cpu with training false.
    # Differs: torch reads undefined running statistics (a crash); refimpl raises
    # "running_mean must be defined in evaluation mode".
    results = _batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)
    return (*results[:3], _reserve(input))


@implements(_batch_norm_no_update)
def _batch_norm_no_update_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    momentum: float,
    eps: float,
) -> Any:
    """Torch: _batch_norm_no_update (CompositeExplicitAutograd)."""
    return _no_update(input, weight, bias, running_mean, running_var, momentum, eps)


@implements(_batch_norm_no_update_out)
def _batch_norm_no_update_out_kernel(
    input: TensorImpl,
    weight: TensorImpl | None,
    bias: TensorImpl | None,
    running_mean: TensorImpl | None,
    running_var: TensorImpl | None,
    momentum: float,
    eps: float,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
    out3: TensorImpl,
) -> Any:
    """Torch: _batch_norm_no_update.out (the generated out= form)."""
    results = _no_update(input, weight, bias, running_mean, running_var, momentum, eps)
    return write_outs(results, (out0, out1, out2, out3))


def _batch_norm_backward_call(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    save_mean: Tensor,
    save_var: Tensor,
    update: bool,
    eps: float,
    mask: tuple[bool, ...],
    reserve: Tensor,
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    if weight is None:
        # torch: batch_norm_backward's weight is a Tensor, not optional: an undefined one
        # (a batch norm without weight) fails its argument check (measured).
        raise RuntimeError(
            "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
            "argument #2 'weight'"
        )
    return tuple(
        aten.batch_norm_backward.default(
            grad,
            input,
            weight,
            running_mean,
            running_var,
            save_mean,
            save_var,
            update,
            eps,
            list(mask),
            reserve,
        )
    )


@_batch_norm_with_update.derivative("input", "weight", "bias")
def _batch_norm_with_update_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor,
    running_var: Tensor,
    result1: Tensor,
    result2: Tensor,
    result3: Tensor,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: batch_norm_backward(grad, input, weight, running_mean, running_var, result1,
    #   result2, /*update=*/true, eps, grad_input_mask, result3)
    return _batch_norm_backward_call(
        grad,
        input,
        weight,
        running_mean,
        running_var,
        result1,
        result2,
        True,
        eps,
        grad_input_mask,
        result3,
    )


# torch: the functional form's entry is _batch_norm_with_update's formula.
_batch_norm_with_update_functional.derivative("input", "weight", "bias")(
    _batch_norm_with_update_backward_formula
)


@_batch_norm_no_update.derivative("input", "weight", "bias")
def _batch_norm_no_update_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    result1: Tensor,
    result2: Tensor,
    result3: Tensor,
    eps: float,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: batch_norm_backward(grad, input, weight, running_mean, running_var, result1,
    #   result2, /*update=*/false, eps, grad_input_mask, result3)
    return _batch_norm_backward_call(
        grad,
        input,
        weight,
        running_mean,
        running_var,
        result1,
        result2,
        False,
        eps,
        grad_input_mask,
        result3,
    )


for _name in ("_batch_norm_with_update", "_batch_norm_no_update"):
    non_differentiable_outputs(f"aten::{_name}", "result1", "result2", "result3")
non_differentiable_outputs(
    "aten::_batch_norm_with_update_functional",
    "result1",
    "result2",
    "result3",
    "running_mean_out",
    "running_var_out",
)
