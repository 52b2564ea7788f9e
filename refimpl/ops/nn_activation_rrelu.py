"""The aten ops of the randomized leaky relu: rrelu and rrelu_ (over rrelu_with_noise),
rrelu_with_noise (with its in-place and out= forms) and rrelu_with_noise_backward.

Torch: aten/src/ATen/native/Activation.cpp (rrelu, rrelu_: the bounds check and an empty
noise tensor; rrelu_with_noise_out_cpu: in training, _rrelu_with_noise_train draws one
uniform_real_distribution<double>(lower, upper) sample per non-positive element, in the order
of self.contiguous(), from the generator's mt19937 (one random64 each); in evaluation, leaky
relu with slope (lower + upper) / 2). Derivatives: tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import bfloat16, float32, float64
from refimpl._base.memory_format import contiguous_format
from refimpl._base.scalars import Scalar
from refimpl.core.random import Generator, random64
from refimpl.core.tensor import TensorImpl, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._distributions_draw import backend_of, generator_for
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data, implements, input_array, not_implemented, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.reduction_moments import compute_dtype

aten: Final = namespace("aten")


# torch: _rrelu_with_noise_train's AT_DISPATCH_FLOATING_TYPES_AND(BFloat16).
_TRAIN_DTYPES: Final = (bfloat16, float32, float64)


def _check_bounds(lower: Scalar, upper: Scalar) -> None:
    # torch: rrelu / rrelu_ in Activation.cpp.
    if float(lower) > float(upper):  # type: ignore[arg-type]  # real Scalars
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


# --- rrelu, rrelu_ ---------------------------------------------------------------------------

rrelu = defop(
    "rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, "
    "bool training=False, Generator? generator=None) -> Tensor"
)
rrelu_ = defop(
    "rrelu_(Tensor(a!) self, Scalar lower=0.125, Scalar upper=0.33333333333333331, "
    "bool training=False, Generator? generator=None) -> Tensor(a!)"
)


@rrelu.decomposition
def rrelu_decomposition(
    self: TensorImpl,
    lower: Scalar = 0.125,
    upper: Scalar = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Any:
    """Torch: rrelu in Activation.cpp (rrelu_with_noise on an empty_like noise tensor)."""
    _check_bounds(lower, upper)
    noise = aten.empty_like.default(self, memory_format=contiguous_format)
    return aten.rrelu_with_noise.default(self, noise, lower, upper, training, generator)


@rrelu_.decomposition
def rrelu__decomposition(
    self: TensorImpl,
    lower: Scalar = 0.125,
    upper: Scalar = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Any:
    """Torch: rrelu_ in Activation.cpp (rrelu_with_noise_ on an empty_like noise tensor)."""
    _check_bounds(lower, upper)
    noise = aten.empty_like.default(self, memory_format=contiguous_format)
    return aten.rrelu_with_noise_.default(self, noise, lower, upper, training, generator)


# --- rrelu_with_noise ------------------------------------------------------------------------

rrelu_with_noise = defop(
    "rrelu_with_noise(Tensor self, Tensor(b!) noise, Scalar lower=0.125, "
    "Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor"
)
rrelu_with_noise_ = defop(
    "rrelu_with_noise_(Tensor(a!) self, Tensor(b!) noise, Scalar lower=0.125, "
    "Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) "
    "-> Tensor(a!)"
)
rrelu_with_noise_out = defop(
    "rrelu_with_noise.out(Tensor self, Tensor(b!) noise, Scalar lower=0.125, "
    "Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _train(
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar,
    upper: Scalar,
    generator: Generator | None,
    output: TensorImpl,
) -> Any:
    """Torch: _rrelu_with_noise_train: for each element of self.contiguous() in order, a
    non-positive x draws r = uniform_real_distribution<double>(lower, upper) (the low 53 bits
    of random64() times 2^-53, scaled: x * (upper - lower) + lower), converted to opmath_t;
    output = x * r and noise = r; otherwise noise = 1 and output = x."""
    dtype = self._dtype
    if dtype not in _TRAIN_DTYPES:
        raise not_implemented("rrelu_with_noise_out_cpu", dtype)
    if not has_data(self):
        return output
    backend = backend_of(self)
    xp = backend.xp
    gen = generator_for(self, generator)
    opmath = compute_dtype(dtype)
    x = xp.reshape(input_array(self, opmath), (-1,))
    negative = x <= xp.zeros_like(x)
    count = int(xp.sum(xp.astype(negative, xp.int64)))
    words = random64(gen, backend, count) & xp.asarray((1 << 53) - 1, dtype=xp.uint64)
    # torch: the bounds are opmath_t (float for float32) before the double distribution.
    bounds = xp.asarray([float(lower), float(upper)], dtype=xp.float64)  # type: ignore[arg-type]
    rounded = data.cast_array(xp, bounds, float64, opmath, backend)
    low, high = float(rounded[0]), float(rounded[1])
    unit = xp.astype(words, xp.float64) * xp.asarray(2.0**-53, dtype=xp.float64)
    draws = unit * xp.asarray(high - low, dtype=xp.float64) + xp.asarray(low, dtype=xp.float64)
    draws = data.cast_array(xp, draws, float64, opmath, backend)
    if count:
        # The k-th draw belongs to the k-th non-positive element.
        order = xp.cumulative_sum(xp.astype(negative, xp.int64)) - 1
        slopes = xp.take(draws, xp.clip(order, 0, count - 1))
    else:
        slopes = xp.ones_like(x)
    one = xp.ones_like(x)
    noise_values = xp.where(negative, slopes, one)
    out_values = xp.where(negative, x * slopes, x)
    shape = self._size
    write_array(
        noise, xp.reshape(data.cast_array(xp, noise_values, opmath, noise._dtype, backend), shape)
    )
    write_array(
        output, xp.reshape(data.cast_array(xp, out_values, opmath, output._dtype, backend), shape)
    )
    return output


def _rrelu_with_noise_into(
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar,
    upper: Scalar,
    training: bool,
    generator: Generator | None,
    output: TensorImpl,
) -> Any:
    """Torch: rrelu_with_noise_out_cpu: noise must have self's shape; in evaluation,
    leaky_relu_out with the slope (lower + upper) / 2 (computed in double)."""
    if self._size != noise._size:
        raise RuntimeError(
            "noise tensor shape must match self tensor shape. Got self.shape = "
            f"{list(self._size)} noise.shape = {list(noise._size)}"
        )
    if training:
        return _train(self, noise, lower, upper, generator, output)
    slope = (float(lower) + float(upper)) / 2  # type: ignore[arg-type]  # real Scalars
    return aten.leaky_relu.out(self, slope, out=output)


@implements(rrelu_with_noise_out)
def rrelu_with_noise_out_kernel(
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar = 0.125,
    upper: Scalar = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: rrelu_with_noise_out_cpu (training writes `out`, which must have self's shape
    and dtype, elementwise)."""
    if training:
        resize_output(out, self._size)
    return _rrelu_with_noise_into(self, noise, lower, upper, training, generator, out)


@implements(rrelu_with_noise)
def rrelu_with_noise_kernel(
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar = 0.125,
    upper: Scalar = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Any:
    """Torch: rrelu_with_noise_cpu (into empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT))."""
    output = aten.empty.memory_format(
        list(self._size), dtype=self._dtype, device=self._storage.device
    )
    return _rrelu_with_noise_into(self, noise, lower, upper, training, generator, output)


@implements(rrelu_with_noise_)
def rrelu_with_noise__kernel(
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar = 0.125,
    upper: Scalar = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Any:
    """Torch: rrelu_with_noise_cpu_ (rrelu_with_noise_out_cpu into self)."""
    return _rrelu_with_noise_into(self, noise, lower, upper, training, generator, self)


@rrelu_with_noise.derivative("self")
def rrelu_with_noise_backward_self(
    grad: Tensor, self: Tensor, noise: Tensor, lower: Scalar, upper: Scalar, training: bool
) -> Tensor:
    # torch: rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false)
    return aten.rrelu_with_noise_backward.default(grad, self, noise, lower, upper, training, False)


@rrelu_with_noise_.derivative("self")
def rrelu_with_noise__backward_self(
    grad: Tensor, result: Tensor, noise: Tensor, lower: Scalar, upper: Scalar, training: bool
) -> Tensor:
    # torch: rrelu_with_noise_backward(grad, result, noise, lower, upper, training, true)
    return aten.rrelu_with_noise_backward.default(grad, result, noise, lower, upper, training, True)


# --- rrelu_with_noise_backward ---------------------------------------------------------------

rrelu_with_noise_backward = defop(
    "rrelu_with_noise_backward(Tensor grad_output, Tensor self, Tensor noise, Scalar lower, "
    "Scalar upper, bool training, bool self_is_result) -> Tensor"
)
rrelu_with_noise_backward_out = defop(
    "rrelu_with_noise_backward.out(Tensor grad_output, Tensor self, Tensor noise, Scalar lower, "
    "Scalar upper, bool training, bool self_is_result, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(rrelu_with_noise_backward)
def rrelu_with_noise_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar,
    upper: Scalar,
    training: bool,
    self_is_result: bool,
) -> Any:
    """noise * grad in training, else leaky_relu_backward with slope (lower + upper) / 2.
    Torch: rrelu_with_noise_backward in Activation.cpp."""
    if training:
        return aten.mul.Tensor(noise, grad_output)
    slope = (float(lower) + float(upper)) / 2  # type: ignore[arg-type]  # real Scalars
    return aten.leaky_relu_backward.default(grad_output, self, slope, self_is_result)


@implements(rrelu_with_noise_backward_out)
def rrelu_with_noise_backward_out_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    noise: TensorImpl,
    lower: Scalar,
    upper: Scalar,
    training: bool,
    self_is_result: bool,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    result = aten.rrelu_with_noise_backward.default(
        grad_output, self, noise, lower, upper, training, self_is_result
    )
    return same_as_out(result, out)


@rrelu_with_noise_backward.derivative("grad_output")
def rrelu_with_noise_backward_backward_grad_output(
    grad: Tensor, self: Tensor, noise: Tensor, lower: Scalar, upper: Scalar, training: bool
) -> Tensor:
    # torch: rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false)
    return aten.rrelu_with_noise_backward.default(grad, self, noise, lower, upper, training, False)


@rrelu_with_noise_backward.derivative("self")
def rrelu_with_noise_backward_backward_self(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    return aten.zeros_like.default(grad)
