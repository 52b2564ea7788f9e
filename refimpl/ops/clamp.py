"""clamp, clamp_min, clamp_max (Scalar and Tensor bounds) and their alias clip, with their
derivatives.

Torch: aten/src/ATen/native/TensorCompare.cpp (the clamp meta functions and kernels'
checks), native/cpu/TensorCompareKernel.cpp and UnaryOpsKernel.cpp (clamp kernels); the
derivatives are those of tools/autograd/derivatives.yaml (clamp_backward,
clamp_backward_min_max of FunctionsManual.cpp). Each op is one `pointwise` declaration over
TensorIterator (ops/_iterator.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.promotion import result_type_of
from refimpl._base.scalars import Scalar
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_binary import clamp_backward, clamp_backward_min_max, zero_scalar
from refimpl.ops._iterator import Builder, IterConfig
from refimpl.ops._pointwise import PointwiseOp, pointwise
from refimpl.ops._register import defop
from refimpl.ops.selection import _operand_dtype, type_meta_name

aten: Final = namespace("aten")

Operand = TensorImpl | Scalar


def _present(
    operands: Sequence[Any], out: TensorImpl | None, extra: dict[str, Any]
) -> list[Any]:
    """Drop absent optional operands; the kernel learns which bounds came."""
    extra["bounds"] = tuple(v is not None for v in operands[1:])
    return [v for v in operands if v is not None]


# --- clamp, clamp_min, clamp_max, clip -----------------------------------------------------


def _clamp_none_check(self: Operand, *bounds: Any, **extra: Any) -> None:
    if all(b is None for b in bounds):
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


# torch: TORCH_META_FUNC(clamp) promotes self with the scalar bounds by hand (floating self
# keeps its dtype, which wrapped scalars never change) and then calls build_unary_op, whose
# check_all_same_dtype rejects an out= of another dtype.
_CLAMP_SCALAR_CONFIG: Final = IterConfig(
    promote_inputs_to_common_dtype=True,
    check_all_same_dtype=True,
    allow_cpu_scalars=True,
    scalar_operands=False,  # torch: build_borrowing_unary_op; the bounds are kernel arguments
)


def _clamp_inplace_check(
    operands: Sequence[Any], out: TensorImpl | None, extra: dict[str, Any]
) -> Sequence[Any]:
    """Torch: clamp's meta refuses an in-place promotion (`int_tensor.clamp_(0.5)`)."""
    self: TensorImpl = operands[0]
    if out is self and not self._dtype.is_floating_point:
        result = result_type_of([_operand_dtype(v) for v in operands])
        if result is not self._dtype and not result.is_complex:
            raise RuntimeError(
                f"result type {result.scalar_name} can't be cast to the desired output type "
                f"{type_meta_name(self._dtype)}"
            )
    return operands


def _clamp_arrays(
    xp: ArrayNamespace, self: Array, *bounds: Array, which: tuple[bool, ...]
) -> Array:
    # torch: clamp_kernel / clamp_scalar_kernel: min(max(x, lo), hi); NaN in x or a bound
    # propagates, and hi wins when lo > hi. The Array API defines no maximum for bool.
    is_bool = self.dtype == xp.bool
    if is_bool:
        self = xp.astype(self, xp.uint8)
        bounds = tuple(xp.astype(b, xp.uint8) for b in bounds)
    given = iter(bounds)
    result = self
    if which[0]:
        result = xp.maximum(result, next(given))
    if len(which) > 1 and which[1]:
        result = xp.minimum(result, next(given))
    return xp.astype(result, xp.bool) if is_bool else result


def _declare_clamp(
    schema: str, config: IterConfig | Builder, names: tuple[str, ...]
) -> PointwiseOp:
    op = pointwise(schema, config, operands=("self", *names))
    op.prepare(_present)
    if config is _CLAMP_SCALAR_CONFIG:
        op.prepare(_clamp_inplace_check)
    if len(names) > 1:
        op.precheck(_clamp_none_check)

    @op.compute
    def clamp_compute(xp: ArrayNamespace, self: Array, *bounds: Array, **extra: Any) -> Array:
        """min(max(self, min), max) over the bounds given. Torch: clamp_kernel."""
        return _clamp_arrays(xp, self, *bounds, which=_which(names, extra))

    return op


def _which(names: tuple[str, ...], extra: dict[str, Any]) -> tuple[bool, ...]:
    given: tuple[bool, ...] = extra["bounds"]
    if names == ("max",):
        return (False, True)
    return given


clamp = _declare_clamp(
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    _CLAMP_SCALAR_CONFIG,
    ("min", "max"),
)
# torch: TORCH_META_FUNC2(clamp, Tensor) builds its own config over the bounds that are given.
clamp_tensor = _declare_clamp(
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    IterConfig(
        promote_inputs_to_common_dtype=True,
        cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True,
        check_all_same_dtype=False,
    ),
    ("min", "max"),
)
clamp_min = _declare_clamp(
    "clamp_min(Tensor self, Scalar min) -> Tensor", _CLAMP_SCALAR_CONFIG, ("min",)
)
clamp_min_tensor = _declare_clamp(
    "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", Builder.BINARY_OP, ("min",)
)
clamp_max = _declare_clamp(
    "clamp_max(Tensor self, Scalar max) -> Tensor", _CLAMP_SCALAR_CONFIG, ("max",)
)
clamp_max_tensor = _declare_clamp(
    "clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", Builder.BINARY_OP, ("max",)
)



@clamp.derivative("self")
def clamp_backward_self(
    grad: Tensor, self: Tensor, min: Scalar | None, max: Scalar | None
) -> Tensor:
    # torch: clamp_backward(grad, self, min, max)
    return clamp_backward(grad, self, min, max)


clamp_tensor.derivative("self")(clamp_backward_self)


@clamp_tensor.derivative("min", "max")
def clamp_tensor_backward_min_max(
    grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor | None
) -> tuple[Tensor | None, Tensor | None]:
    # torch: clamp_backward_min_max(grad, self, min, max, grad_input_mask)
    return clamp_backward_min_max(grad, self, min, max)


@clamp_min.derivative("self")
def clamp_min_backward_self(grad: Tensor, self: Tensor, min: Tensor | Scalar) -> Tensor:
    # torch: where(self >= min, grad, at::scalar_tensor(0., grad.options()))
    return clamp_backward(grad, self, min, None)


clamp_min_tensor.derivative("self")(clamp_min_backward_self)


@clamp_min_tensor.derivative("min")
def clamp_min_backward_min(grad: Tensor, self: Tensor, min: Tensor) -> Tensor:
    # torch: where(self < min, grad, at::scalar_tensor(0., grad.options()))
    return aten.where.self(aten.lt.Tensor(self, min), grad, zero_scalar(grad))


@clamp_max.derivative("self")
def clamp_max_backward_self(grad: Tensor, self: Tensor, max: Tensor | Scalar) -> Tensor:
    # torch: where(self <= max, grad, at::scalar_tensor(0., grad.options()))
    return clamp_backward(grad, self, None, max)


clamp_max_tensor.derivative("self")(clamp_max_backward_self)


@clamp_max_tensor.derivative("max")
def clamp_max_backward_max(grad: Tensor, self: Tensor, max: Tensor) -> Tensor:
    # torch: where(self > max, grad, at::scalar_tensor(0., grad.options()))
    return aten.where.self(aten.gt.Tensor(self, max), grad, zero_scalar(grad))


clip = defop("clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")


@clip.decomposition
def clip_decomposition(self: TensorImpl, min: Scalar | None, max: Scalar | None) -> Any:
    """Torch: clip is CompositeImplicitAutograd over clamp (an alias)."""
    return aten.clamp.default(self, min, max)


clip_tensor = defop("clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor")


@clip_tensor.decomposition
def clip_tensor_decomposition(
    self: TensorImpl,
    min: TensorImpl | None,
    max: TensorImpl | None,
) -> Any:
    """Torch: clip.Tensor is CompositeImplicitAutograd over clamp.Tensor."""
    return aten.clamp.Tensor(self, min, max)


clip_out = defop(
    "clip.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@clip_out.decomposition
def clip_out_decomposition(
    self: TensorImpl,
    min: Scalar | None,
    max: Scalar | None,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: clip.out is CompositeImplicitAutograd over clamp.out."""
    return aten.clamp.out(self, min, max, out=out)


clip_tensor_out = defop(
    "clip.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@clip_tensor_out.decomposition
def clip_tensor_out_decomposition(
    self: TensorImpl,
    min: TensorImpl | None,
    max: TensorImpl | None,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: clip.Tensor_out is CompositeImplicitAutograd over clamp.Tensor_out."""
    return aten.clamp.Tensor_out(self, min, max, out=out)


clip_ = defop("clip_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)")


@clip_.decomposition
def clip__decomposition(self: TensorImpl, min: Scalar | None, max: Scalar | None) -> Any:
    """Torch: clip_ is CompositeImplicitAutograd over clamp_."""
    return aten.clamp_.default(self, min, max)


clip__tensor = defop(
    "clip_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)"
)


@clip__tensor.decomposition
def clip__tensor_decomposition(
    self: TensorImpl,
    min: TensorImpl | None,
    max: TensorImpl | None,
) -> Any:
    """Torch: clip_.Tensor is CompositeImplicitAutograd over clamp_.Tensor."""
    return aten.clamp_.Tensor(self, min, max)
