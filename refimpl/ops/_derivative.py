"""Derivative entries: an op's backward formulas, declared in its block, read by autograd.

Torch: tools/autograd/derivatives.yaml, one entry per aten overload with one formula per
differentiable input, and the saved variables torchgen derives from the formulas' text. An
op's block declares its formulas right after its kernels:

    @mul.derivative("self")
    def mul_backward_self(grad, other, self_scalar_type):
        # torch: mul_tensor_backward(grad, other, self.scalar_type())
        ...

A formula's parameters name what it reads, the way torch's generated nodes name what they save
(and expose as `_saved_<name>`):

- `grad`: the gradient of the op's only differentiable output; `grads`: the gradients of
  every output, a tuple (None where an output got no gradient);
- `grad_input_mask`: for a formula of several inputs, whether each of them needs a gradient,
  a tuple of bools in the formula's input order (torch's `grad_input_mask`, which backward
  ops such as native_layer_norm_backward take as their `output_mask`);
- a schema argument (`self`, `other`, `alpha`, `dim`): its value at the call;
- `<tensor>_sym_sizes`, `<tensor>_sym_strides`, `<tensor>_sym_numel`, `<tensor>_dim`,
  `<tensor>_scalar_type`, `<tensor>_device`, `<tensor>_options` (dtype, device),
  `<tensor>_geometry` (sizes, strides, storage offset): that much of an input tensor, where
  the formula needs no values (torch saves `self_sym_sizes` for sum, not `self`);
- `result` (the only output), or an output's schema name (`values`, `indices`), or
  `result0`, `result1`, ... for unnamed outputs: the outputs, saved after the call.

The autograd layer reads the parameters once, at registration, and saves at each call only
what the formulas of the inputs that need a gradient read. Formulas compute with tensors
(refimpl.Tensor at runtime: operators and methods reach the dispatcher), so the backward pass
is itself recorded when `create_graph=True`. Gradients are summed back to each input's shape
by the engine, never in a formula.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# Suffixes of saved facts about an input tensor (torch's saved-variable name suffixes).
TENSOR_FACTS: Final = (
    "sym_sizes",
    "sym_strides",
    "sym_numel",
    "dim",
    "scalar_type",
    "device",
    "options",
    "geometry",
)


@dataclass(frozen=True)
class Formula:
    """The gradient of `inputs` (schema names) given the output gradients: one input's
    gradient, or a tuple with one per input where one formula serves several (torch's
    `self, other: formula` entries)."""

    inputs: tuple[str, ...]
    fn: Callable[..., Any]
    params: tuple[str, ...]


@dataclass
class DerivativeEntry:
    """The formulas of one aten overload. Torch: a derivatives.yaml entry."""

    overload: str
    """Qualified name, `aten::mul.Tensor`."""
    formulas: list[Formula] = field(default_factory=list)
    non_differentiable_outputs: tuple[str, ...] = ()
    """Outputs that never require grad (torch: output_differentiability False)."""


DERIVATIVES: Final[dict[str, DerivativeEntry]] = {}
"""Every declared entry, by qualified overload name."""


def derivative(overload: str, *inputs: str) -> Callable[[F], F]:
    """Declare the decorated function as the formula for `inputs` of `overload`.

    Torch: one line of a derivatives.yaml entry (`self: grad * other.conj()`).
    """

    def declare(fn: F) -> F:
        entry = DERIVATIVES.setdefault(overload, DerivativeEntry(overload))
        taken = {name for formula in entry.formulas for name in formula.inputs}
        repeated = taken.intersection(inputs)
        if repeated:
            raise RuntimeError(f"refimpl: {overload} has two formulas for {sorted(repeated)}")
        params = tuple(inspect.signature(fn).parameters)
        entry.formulas.append(Formula(tuple(inputs), fn, params))
        return fn

    return declare


def non_differentiable_outputs(overload: str, *outputs: str) -> None:
    """Declare outputs of `overload` that never require grad (torch:
    `output_differentiability: [True, False]`, as for max.dim's indices)."""
    entry = DERIVATIVES.setdefault(overload, DerivativeEntry(overload))
    entry.non_differentiable_outputs = tuple(outputs)
