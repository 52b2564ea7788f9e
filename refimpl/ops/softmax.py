"""softmax and log_softmax: the aten ops `_softmax`, `_log_softmax`, their backward ops, and
the `softmax.int` / `log_softmax.int` / `special_*` decompositions over them.

Torch: aten/src/ATen/native/SoftMax.cpp (the structured meta functions and CPU entry points)
and aten/src/ATen/native/cpu/SoftMaxKernel.cpp (the kernels: max-subtracted exp, summed, then
divided; log_softmax as `x - max - log(sum(exp(x - max)))`). float16 and bfloat16 compute in
float32 and are rounded once. The results are contiguous whatever the input's layout (the meta
function allocates with no strides). Derivatives: tools/autograd/derivatives.yaml and
softmax_double_backward in torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._outputs import resize_output
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

# The dtypes torch's CPU kernels dispatch on (AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)).
_KERNEL_DTYPES: Final = frozenset({float16, bfloat16, float32, float64})


def _kernel_name(op: str, dim: int, ndim: int) -> str:
    """The AT_DISPATCH name of the CPU kernel torch picks: the last-dim kernel when `dim` is
    the last dim (a 0-dim input is viewed as 1-dim), else the general one."""
    last = dim == max(ndim, 1) - 1
    return f"{op}_lastdim_kernel_impl" if last else f"{op}_kernel_impl"


def _prepare_out(out: TensorImpl | None, shape: tuple[int, ...], dtype: DType) -> None:
    # torch: the structured out= wrapper checks the dtype, then resizes `out` to the input's shape.
    if out is not None:
        check_out_dtype(out, dtype)
        resize_output(out, shape)


def _rounded(self: TensorImpl, a: Array) -> Array:
    """`a` (float32, for a float16/bfloat16 `self`) rounded to `self`'s dtype and back: where
    torch's kernel stores an intermediate in `scalar_t`. A no-op for float32 and float64."""
    if compute_dtype(self._dtype) is self._dtype:
        return a
    backend = self._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    return data.rounded_through(xp, a, float32, self._dtype, backend)  # type: ignore[arg-type]


def _as_1d(a: Array, xp: Any) -> Array:
    # torch: a 0-dim input is computed as a 1-element vector (input.view(1)).
    return xp.reshape(a, (1,)) if a.ndim == 0 else a


# --- _softmax, _log_softmax ----------------------------------------------------------------

_softmax = defop("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
_softmax_out = defop(
    "_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)"
)
_log_softmax = defop("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
_log_softmax_out = defop(
    "_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)"
)


def _forward(
    self: TensorImpl, dim: int, half_to_float: bool, out: TensorImpl | None, log: bool
) -> Any:
    """softmax (or log_softmax) of `self` along `dim`.

    Torch: TORCH_META_FUNC(_softmax) / (_log_softmax) (dim wrapping, the float32 result of
    half_to_float) and softmax_cpu_out / log_softmax_cpu_out (the CPU refusal of
    half_to_float, the early return for an empty input, the AT_DISPATCH dtypes).
    """
    op = "log_softmax" if log else "softmax"
    ndim = len(self._size)
    wrapped = geometry.wrap_dim(dim, ndim)
    result_dtype = float32 if half_to_float else self._dtype
    device_type = self._storage.device.type
    if half_to_float and device_type == "cpu":
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    if half_to_float and self._dtype not in (float16, bfloat16):
        # torch: host_softmax's check in aten/src/ATen/native/cuda/SoftMax.cu.
        raise RuntimeError("conversion is supported for Half type only")
    shape = self._size
    _prepare_out(out, shape, result_dtype)
    if not has_data(self):
        return finish(self, None, shape, result_dtype, out)
    if geometry.numel(shape) == 0:
        return finish(self, input_array(self, self._dtype), shape, result_dtype, out)
    if self._dtype not in _KERNEL_DTYPES:
        raise not_implemented(_kernel_name(op, wrapped, ndim), self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    a = _as_1d(input_array(self, compute_dtype(self._dtype)), xp)
    axis = wrapped if ndim else 0
    last = wrapped == max(ndim, 1) - 1
    shifted = a - xp.max(a, axis=axis, keepdims=True)
    exps = xp.exp(shifted)
    total = xp.sum(exps, axis=axis, keepdims=True)
    # float16/bfloat16, measured bit for bit against torch 2.13's CPU kernels: the last-dim
    # log_softmax keeps the sum and its log in scalar_t (_vec_log_softmax_lastdim); the
    # other-dim softmax stores exp(x - max) in the output (scalar_t) before dividing.
    if log:
        log_total = _rounded(self, xp.log(_rounded(self, total))) if last else xp.log(total)
        values = shifted - log_total
    elif last and compute_dtype(self._dtype) is self._dtype:
        # float32/float64, last dim: _vec_softmax_lastdim multiplies by the sum's reciprocal.
        values = exps * (1.0 / total)
    else:
        values = (exps if last else _rounded(self, exps)) / total
    return finish(self, xp.reshape(values, shape), shape, result_dtype, out)


@implements(_softmax)
@implements(_softmax_out)
def _softmax_kernel(
    self: TensorImpl, dim: int, half_to_float: bool, *, out: TensorImpl | None = None
) -> Any:
    """Torch: _softmax / _softmax.out (softmax_cpu_out; SoftMaxKernel.cpp)."""
    return _forward(self, dim, half_to_float, out, log=False)


@implements(_log_softmax)
@implements(_log_softmax_out)
def _log_softmax_kernel(
    self: TensorImpl, dim: int, half_to_float: bool, *, out: TensorImpl | None = None
) -> Any:
    """Torch: _log_softmax / _log_softmax.out (log_softmax_cpu_out; SoftMaxKernel.cpp)."""
    return _forward(self, dim, half_to_float, out, log=True)


@_softmax.derivative("self")
def _softmax_backward_self(
    grad: Tensor, result: Tensor, dim: int, self_scalar_type: DType
) -> Tensor:
    # torch: _softmax_backward_data(grad, result, dim, self.scalar_type())
    return aten._softmax_backward_data.default(grad, result, dim, self_scalar_type)


@_log_softmax.derivative("self")
def _log_softmax_backward_self(
    grad: Tensor, result: Tensor, dim: int, self_scalar_type: DType
) -> Tensor:
    # torch: _log_softmax_backward_data(grad, result, dim, self.scalar_type())
    return aten._log_softmax_backward_data.default(grad, result, dim, self_scalar_type)


# --- _softmax_backward_data, _log_softmax_backward_data -------------------------------------

_softmax_backward_data = defop(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype)"
    " -> Tensor"
)
_softmax_backward_data_out = defop(
    "_softmax_backward_data.out(Tensor grad_output, Tensor output, int dim, "
    "ScalarType input_dtype, *, Tensor(a!) grad_input) -> Tensor(a!)"
)
_log_softmax_backward_data = defop(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
    "ScalarType input_dtype) -> Tensor"
)
_log_softmax_backward_data_out = defop(
    "_log_softmax_backward_data.out(Tensor grad_output, Tensor output, int dim, "
    "ScalarType input_dtype, *, Tensor(a!) out) -> Tensor(a!)"
)


def _scalar_type_error(expected: DType, found: DType) -> RuntimeError:
    # torch: the data_ptr<T>() check of a CPU kernel reading a tensor of another dtype.
    return RuntimeError(
        f"expected scalar type {expected.scalar_name} but found {found.scalar_name}"
    )


def _backward(
    grad_output: TensorImpl,
    output: TensorImpl,
    dim: int,
    input_dtype: DType,
    out: TensorImpl | None,
    log: bool,
) -> Any:
    """The gradient of softmax (log_softmax) given its output.

    Torch: TORCH_META_FUNC(_softmax_backward_data) (checkSameSize; dim wrapping; the result in
    `input_dtype`, which the Meta kernel keeps) and softmax_backward_cpu_out (the CPU result in
    grad_output's dtype; the kernel reads `output` and the result as grad_output's dtype, so a
    float32 gradient of a float16 input and an `output` of another dtype raise "expected scalar
    type"). softmax: `(g - sum(g * y)) * y`; log_softmax: `g - exp(y) * sum(g)`.
    """
    op = "log_softmax_backward" if log else "softmax_backward"
    ndim = len(output._size)
    if not log and grad_output._size != output._size:
        # torch: checkSameSize in softmax_backward's meta (log_softmax_backward has none, and
        # wraps `dim` first).
        raise RuntimeError(
            f"Expected tensor for argument #1 'grad' to have same size as tensor for argument "
            f"#2 'output'; but {list(grad_output._size)} does not equal {list(output._size)} "
            "(while checking arguments for softmax_backward)"
        )
    wrapped = geometry.wrap_dim(dim, ndim)
    shape = output._size
    if not has_data(grad_output):
        _prepare_out(out, shape, input_dtype)
        return finish(grad_output, None, shape, input_dtype, out)
    g_dtype = grad_output._dtype
    if g_dtype is float32 and input_dtype is float16:
        raise _scalar_type_error(float32, float16)
    if output._dtype is not g_dtype and geometry.numel(shape) != 0:
        raise _scalar_type_error(g_dtype, output._dtype)
    _prepare_out(out, shape, g_dtype)
    xp = grad_output._storage.backend.xp  # type: ignore[union-attr]  # has_data
    if geometry.numel(shape) == 0:
        return finish(grad_output, input_array(grad_output, g_dtype), shape, g_dtype, out)
    if g_dtype not in _KERNEL_DTYPES:
        raise not_implemented(_kernel_name(op, wrapped, ndim), g_dtype)
    compute = compute_dtype(g_dtype)
    g = _as_1d(input_array(grad_output, compute), xp)
    y = _as_1d(input_array(output, compute), xp)
    axis = wrapped if ndim else 0
    if log:
        values = g - xp.exp(y) * xp.sum(g, axis=axis, keepdims=True)
    else:
        values = (g - xp.sum(g * y, axis=axis, keepdims=True)) * y
    return finish(grad_output, xp.reshape(values, shape), shape, g_dtype, out)


@implements(_softmax_backward_data)
@implements(_softmax_backward_data_out)
def _softmax_backward_data_kernel(
    grad_output: TensorImpl,
    output: TensorImpl,
    dim: int,
    input_dtype: DType,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: _softmax_backward_data / .out (softmax_backward_cpu_out)."""
    return _backward(grad_output, output, dim, input_dtype, grad_input, log=False)


@implements(_log_softmax_backward_data)
@implements(_log_softmax_backward_data_out)
def _log_softmax_backward_data_kernel(
    grad_output: TensorImpl,
    output: TensorImpl,
    dim: int,
    input_dtype: DType,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: _log_softmax_backward_data / .out (log_softmax_backward_cpu_out)."""
    return _backward(grad_output, output, dim, input_dtype, out, log=True)


@_softmax_backward_data.derivative("grad_output")
def _softmax_backward_data_grad_output(
    grad: Tensor, output: Tensor, dim: int, input_dtype: DType
) -> Tensor:
    # torch: _softmax_backward_data(grad, output, dim, input_dtype)
    return aten._softmax_backward_data.default(grad, output, dim, input_dtype)


@_softmax_backward_data.derivative("output")
def _softmax_backward_data_output(
    grad: Tensor, grad_output: Tensor, output: Tensor, dim: int
) -> Tensor:
    # torch: softmax_double_backward(grad, grad_output, dim, output):
    #   grad_output * grad - (output * grad_output).sum(dim, true) * grad
    #     - grad_output * (output * grad).sum(dim, true)
    first = aten.mul.Tensor(grad_output, grad)
    second = aten.mul.Tensor(
        aten.sum.dim_IntList(aten.mul.Tensor(output, grad_output), [dim], True), grad
    )
    third = aten.mul.Tensor(
        grad_output, aten.sum.dim_IntList(aten.mul.Tensor(output, grad), [dim], True)
    )
    return aten.sub.Tensor(aten.sub.Tensor(first, second), third)


@_log_softmax_backward_data.derivative("grad_output")
def _log_softmax_backward_data_grad_output(grad: Tensor, output: Tensor, dim: int) -> Tensor:
    # torch: grad.to(output.dtype()) - (grad.to(output.dtype()) * output.exp()).sum(dim, true)
    g = aten.to.dtype(grad, output._dtype)
    return aten.sub.Tensor(
        g, aten.sum.dim_IntList(aten.mul.Tensor(g, aten.exp.default(output)), [dim], True)
    )


@_log_softmax_backward_data.derivative("output")
def _log_softmax_backward_data_output(
    grad: Tensor, grad_output: Tensor, output: Tensor, dim: int
) -> Tensor:
    # torch: (-grad_output.sum(dim, true) * output.exp() * grad.to(output.dtype()))
    #   .to(output.dtype())
    total = aten.neg.default(aten.sum.dim_IntList(grad_output, [dim], True))
    product = aten.mul.Tensor(
        aten.mul.Tensor(total, aten.exp.default(output)), aten.to.dtype(grad, output._dtype)
    )
    return aten.to.dtype(product, output._dtype)


# --- softmax.int, log_softmax.int, special_softmax, special_log_softmax ---------------------

softmax_int = defop("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
softmax_int_out = defop(
    "softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)"
)
log_softmax_int = defop("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
log_softmax_int_out = defop(
    "log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


def _converted(self: TensorImpl, dtype: DType | None) -> Any:
    # torch: `dtype.has_value() ? input_.toType(dtype.value()) : input_`; the CUDA
    # half-to-float fast path (_softmax with half_to_float=True) gives the same values.
    return self if dtype is None else aten.to.dtype(self, dtype)


@softmax_int.decomposition
def softmax_int_decomposition(self: TensorImpl, dim: int, dtype: DType | None = None) -> Any:
    """Torch: softmax(const Tensor&, int64_t, optional<ScalarType>) in SoftMax.cpp."""
    return aten._softmax.default(_converted(self, dtype), dim, False)


@log_softmax_int.decomposition
def log_softmax_int_decomposition(self: TensorImpl, dim: int, dtype: DType | None = None) -> Any:
    """Torch: log_softmax(const Tensor&, int64_t, optional<ScalarType>) in SoftMax.cpp."""
    return aten._log_softmax.default(_converted(self, dtype), dim, False)


@implements(softmax_int_out)
def softmax_int_out_kernel(
    self: TensorImpl, dim: int, dtype: DType | None = None, *, out: TensorImpl
) -> Any:
    """Torch: softmax_out in SoftMax.cpp (_softmax_out on the converted input)."""
    return aten._softmax.out(_converted(self, dtype), dim, False, out=out)


@implements(log_softmax_int_out)
def log_softmax_int_out_kernel(
    self: TensorImpl, dim: int, dtype: DType | None = None, *, out: TensorImpl
) -> Any:
    """Torch: log_softmax_out in SoftMax.cpp (_log_softmax_out on the converted input)."""
    return aten._log_softmax.out(_converted(self, dtype), dim, False, out=out)


special_softmax = defop("special_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
special_log_softmax = defop(
    "special_log_softmax(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor"
)


@special_softmax.decomposition
def special_softmax_decomposition(self: TensorImpl, dim: int, dtype: DType | None = None) -> Any:
    """Torch: special_softmax in SoftMax.cpp (softmax)."""
    return aten.softmax.int(self, dim, dtype)


@special_log_softmax.decomposition
def special_log_softmax_decomposition(
    self: TensorImpl, dim: int, *, dtype: DType | None = None
) -> Any:
    """Torch: special_log_softmax in SoftMax.cpp (log_softmax)."""
    return aten.log_softmax.int(self, dim, dtype)
