"""The aten ops of the gated linear unit: glu and glu_backward.

Torch: aten/src/ATen/native/GatedLinearUnit.cpp (TORCH_META_FUNC(glu): the halving checks,
then build_borrowing_binary_op over the two halves of `self` along `dim`; glu_backward_cpu_out)
and native/cpu/GluKernel.cpp (a * sigmoid(b), computed in float for float16). Derivatives:
tools/autograd/derivatives.yaml (glu_double_backward and glu_double_backward_grad_output of
FunctionsManual.cpp).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl.core import strides as geometry
from refimpl.core.backend import Array, ArrayNamespace
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._iterator import Builder
from refimpl.ops._pointwise import FLOATING, pointwise
from refimpl.ops._reduction import implements, not_implemented
from refimpl.ops._register import defop

aten: Final = namespace("aten")


def _halving_dim(self: TensorImpl, dim: int) -> tuple[int, int]:
    """The wrapped dim and the size of each half. Torch: the checks of TORCH_META_FUNC(glu)
    and glu_backward_cpu_out."""
    if len(self._size) == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    wrapped = geometry.wrap_dim(dim, len(self._size))
    size = self._size[wrapped]
    if size % 2 != 0:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {wrapped} is size {size}"
        )
    return wrapped, size // 2


def _halves(self: TensorImpl, dim: int) -> tuple[Any, Any]:
    wrapped, half = _halving_dim(self, dim)
    return aten.narrow.default(self, wrapped, 0, half), aten.narrow.default(
        self, wrapped, half, half
    )


# --- glu -------------------------------------------------------------------------------------

glu = pointwise("glu(Tensor self, int dim=-1) -> Tensor", Builder.BINARY_OP, opmath=True)


@glu.prepare
def glu_prepare(
    operands: Sequence[Any], out: TensorImpl | None, extra: dict[str, Any]
) -> Sequence[Any]:
    """The iterator's inputs are the two halves of self (torch: self.narrow(...) twice)."""
    return _halves(operands[0], extra["dim"])


@glu.compute(dtypes=FLOATING)
def glu_compute(xp: ArrayNamespace, first: Array, second: Array, dim: int) -> Array:
    """first * sigmoid(second). Torch: glu_kernel ("glu_cpu", floating dtypes only)."""
    one = xp.asarray(1, dtype=first.dtype)
    return first * (one / (one + xp.exp(-second)))


@glu.derivative("self")
def glu_backward_self(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    # torch: glu_backward(grad, self, dim)
    return aten.glu_backward.default(grad, self, dim)


# --- glu_backward ----------------------------------------------------------------------------

glu_backward = defop("glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor")
glu_backward_grad_input = defop(
    "glu_backward.grad_input(Tensor grad_output, Tensor self, int dim, *, Tensor(a!) grad_input) "
    "-> Tensor(a!)"
)


@implements(glu_backward_grad_input)
def glu_backward_grad_input_kernel(
    grad_output: TensorImpl, self: TensorImpl, dim: int, *, grad_input: TensorImpl
) -> Any:
    """[grad * s, grad * a * s * (1 - s)] for self = [a, b] along dim and s = sigmoid(b).

    Torch: glu_backward_cpu_out: grad_input resized as self; sigmoid_out into its first half
    (which refuses an integral grad_input), glu_backward_kernel ("glu_backward_cpu", floating
    dtypes) into the second, then the first half multiplied by grad in place.
    """
    wrapped, half = _halving_dim(self, dim)
    aten.resize_as_.default(grad_input, self)
    first = aten.narrow.default(self, wrapped, 0, half)
    second = aten.narrow.default(self, wrapped, half, half)
    grad_first = aten.narrow.default(grad_input, wrapped, 0, half)
    grad_second = aten.narrow.default(grad_input, wrapped, half, half)
    aten.sigmoid.out(second, out=grad_first)
    if grad_input._dtype not in FLOATING:
        raise not_implemented("glu_backward_cpu", grad_input._dtype)
    # torch: glu_backward_kernel: (1 - s) * s * a * grad, in one iterator.
    slope = aten.mul.Tensor(aten.rsub.Scalar(grad_first, 1), grad_first)
    aten.mul.out(aten.mul.Tensor(slope, first), grad_output, out=grad_second)
    aten.mul_.Tensor(grad_first, grad_output)
    return grad_input


@implements(glu_backward)
def glu_backward_kernel(grad_output: TensorImpl, self: TensorImpl, dim: int) -> Any:
    """Torch: glu_backward_cpu (glu_backward_cpu_out into at::empty({0}, grad_output.options()))."""
    grad_input = aten.empty.memory_format(
        [0], dtype=grad_output._dtype, device=grad_output._storage.device
    )
    return aten.glu_backward.grad_input(grad_output, self, dim, grad_input=grad_input)


@glu_backward.derivative("grad_output")
def glu_backward_backward_grad_output(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    # torch: glu_double_backward_grad_output(grad, self, dim): the halves of
    # grad * glu_backward(ones, self, dim), summed.
    wrapped, half = _halving_dim(self, dim)
    sizes = list(self._size)
    sizes[wrapped] = half
    ones = aten.ones.default(sizes, dtype=self._dtype, device=self._storage.device)
    product = aten.mul.Tensor(grad, aten.glu_backward.default(ones, self, wrapped))
    return aten.add.Tensor(
        aten.narrow.default(product, wrapped, 0, half),
        aten.narrow.default(product, wrapped, half, half),
    )


@glu_backward.derivative("self")
def glu_backward_backward_self(grad: Tensor, grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    # torch: glu_double_backward(grad, grad_output, self, dim): with s = sigmoid(b) and
    # grad = [u, v], d/da = v * g * s(1 - s), d/db = (u + v * a * (1 - 2s)) * g * s(1 - s).
    wrapped, half = _halving_dim(self, dim)
    first = aten.narrow.default(self, wrapped, 0, half)
    second = aten.narrow.default(self, wrapped, half, half)
    sig = aten.sigmoid.default(second)
    sig_slope = aten.mul.Tensor(sig, aten.rsub.Scalar(sig, 1))
    grad_first = aten.narrow.default(grad, wrapped, 0, half)
    grad_second = aten.narrow.default(grad, wrapped, half, half)
    second_go = aten.mul.Tensor(grad_second, grad_output)
    d_first = aten.mul.Tensor(second_go, sig_slope)
    curvature = aten.mul.Tensor(first, aten.rsub.Scalar(aten.mul.Scalar(sig, 2), 1))
    d_second = aten.mul.Tensor(
        aten.add.Tensor(
            aten.mul.Tensor(grad_first, grad_output), aten.mul.Tensor(second_go, curvature)
        ),
        sig_slope,
    )
    return aten.cat.default([d_first, d_second], wrapped)
