"""The aten ops beneath torch.nn.functional's pooling: max pooling here (max_pool1d/2d/3d,
their `_with_indices` forms and backward ops); average, adaptive, fractional pooling and
max_unpool in the nn_pooling_* modules this one imports.

Torch: aten/src/ATen/native/DilatedMaxPool2d.cpp, DilatedMaxPool3d.cpp, MaxPooling.cpp
(max_pool1d and the CompositeImplicitAutograd max_pool2d / max_pool3d), the CPU kernels of
native/cpu/MaxPoolKernel.cpp, and the derivatives.yaml entries (max_pool_double_backward in
torch/csrc/autograd/FunctionsManual.cpp). The kernels gather every window at once and
reduce it with `xp` (refimpl/ops/_nn_pooling_window.py, Note [Pooling windows]).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import (
    bfloat16,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import nn_pooling_adaptive, nn_pooling_avg, nn_pooling_fractional
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_spectral_outputs import may_require_grad
from refimpl.ops._nn_pooling_checks import PoolShape, check_3d, pool_shape, unpack
from refimpl.ops._nn_pooling_window import (
    FLOATING,
    check_dim_size,
    gather,
    max_pool_double_backward,
    output_size,
    planes_array,
    prepare_out,
    regular_axis,
    result,
    scatter_planes,
    wants_channels_last,
    window_max,
    windows,
)
from refimpl.ops._outputs import format_shape
from refimpl.ops._reduction import has_data, implements, not_implemented
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")

# The family's other modules: importing them registers their kernels.
FAMILY: Final = (nn_pooling_avg, nn_pooling_adaptive, nn_pooling_fractional)

# The dtypes of torch's CPU max pooling kernels (AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)
# less the unsigned types past uint8).
_MAX_DTYPES: Final = frozenset(
    {uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64}
)


# --- max_pool2d_with_indices, max_pool3d_with_indices ------------------------------------------

max_pool2d_with_indices = defop(
    "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
    "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)"
)
max_pool2d_with_indices_out = defop(
    "max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], "
    "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, "
    "Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)
max_pool3d_with_indices = defop(
    "max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], "
    "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)"
)
max_pool3d_with_indices_out = defop(
    "max_pool3d_with_indices.out(Tensor self, int[3] kernel_size, int[3] stride=[], "
    "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, "
    "Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))"
)


def _channels_last(self: TensorImpl, shape: PoolShape, rank: int) -> bool:
    # torch: the 2d kernels follow a 4-d input's suggested memory format, the 3d ones a 5-d
    # input's (ChannelsLast3d); a 3-d (4-d) unbatched input is contiguous.
    return shape.channels_last and len(self._size) == rank + 2


def _max_pool(
    op: str,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    out: TensorImpl | None,
    indices: TensorImpl | None,
) -> Any:
    """(max of each window, its flat index in the input plane).

    Torch: TORCH_META_FUNC(max_pool2d_with_indices) / max_pool3d_with_indices_out_cpu_template
    (checks, output shape, the input's memory format) and cpu_max_pool /
    cpu_max_pool_channels_last (MaxPoolKernel.cpp): -inf padding never wins, NaN does.
    """
    rank = 2 if op == "max_pool2d" else 3
    shape = pool_shape(op, self, kernel_size, stride, padding, dilation, ceil_mode)
    full = shape.result_shape(self)
    cl = _channels_last(self, shape, rank)
    prepare_out(out, full, self._dtype, cl)
    prepare_out(indices, full, int64, cl)
    if not has_data(self):
        return (
            result(self, None, full, self._dtype, cl, out),
            result(self, None, full, int64, cl, indices),
        )
    if self._dtype not in _MAX_DTYPES:
        raise not_implemented(op, self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    axes = [
        regular_axis(xp, n, o, k, s, p, d)
        for n, o, k, s, p, d in zip(
            shape.sizes,
            shape.out,
            shape.kernel,
            shape.stride,
            shape.padding,
            shape.dilation,
            strict=True,
        )
    ]
    w = windows(xp, axes)
    values, index = window_max(xp, gather(xp, planes_array(self, rank, self._dtype), w), w)
    return (
        result(self, values, full, self._dtype, cl, out),
        result(self, index, full, int64, cl, indices),
    )


@implements(max_pool2d_with_indices)
@implements(max_pool2d_with_indices_out)
def max_pool2d_with_indices_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
    *,
    out: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: max_pool2d_with_indices / .out (max_pool2d_with_indices_out_cpu)."""
    return _max_pool(
        "max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode, out, indices
    )


@implements(max_pool3d_with_indices)
@implements(max_pool3d_with_indices_out)
def max_pool3d_with_indices_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
    *,
    out: TensorImpl | None = None,
    indices: TensorImpl | None = None,
) -> Any:
    """Torch: max_pool3d_with_indices / .out (max_pool3d_with_indices_out_cpu)."""
    return _max_pool(
        "max_pool3d", self, kernel_size, stride, padding, dilation, ceil_mode, out, indices
    )


@max_pool2d_with_indices.derivative("self")
def max_pool2d_with_indices_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    result1: Tensor,
) -> Tensor:
    # torch: max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding,
    #   dilation, ceil_mode, result1)
    return aten.max_pool2d_with_indices_backward.default(
        grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1
    )


@max_pool3d_with_indices.derivative("self")
def max_pool3d_with_indices_backward_self(
    grad: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    result1: Tensor,
) -> Tensor:
    # torch: max_pool3d_with_indices_backward(grad, self, kernel_size, stride, padding,
    #   dilation, ceil_mode, result1)
    return aten.max_pool3d_with_indices_backward.default(
        grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1
    )


# --- max_pool2d_with_indices_backward, max_pool3d_with_indices_backward ------------------------

max_pool2d_with_indices_backward = defop(
    "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
    "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor"
)
max_pool2d_with_indices_backward_grad_input = defop(
    "max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self, "
    "int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, "
    "Tensor indices, *, Tensor(a!) grad_input) -> Tensor(a!)"
)
max_pool3d_with_indices_backward = defop(
    "max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, "
    "int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor"
)
max_pool3d_with_indices_backward_grad_input = defop(
    "max_pool3d_with_indices_backward.grad_input(Tensor grad_output, Tensor self, "
    "int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, "
    "Tensor indices, *, Tensor(a!) grad_input) -> Tensor(a!)"
)


def _check_grad_dtype(self: TensorImpl, grad_output: TensorImpl) -> None:
    # torch: the structured meta of max_pool2d_with_indices_backward.
    if self._dtype is not grad_output._dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self._dtype)} for `gradOutput` but got dtype "
            f"{type_meta_name(grad_output._dtype)}"
        )


def _backward_checks(
    op: str,
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: TensorImpl,
) -> None:
    """Torch: TORCH_META_FUNC(max_pool2d_with_indices_backward) (the forward's checks, the
    gradient's dtype, then the gradient's and indices' sizes) and
    max_pool3d_with_indices_backward_out_cpu_template (the output sizes read from
    grad_output, pool3d_shape_check, then the sizes of both)."""
    ndim = len(self._size)
    if op == "max_pool2d":
        shape = pool_shape(op, self, kernel_size, stride, padding, dilation, ceil_mode)
        _check_grad_dtype(self, grad_output)
        planes_and_out = (shape.channels, *shape.out)
        for t in (grad_output, indices):
            for offset, size in zip((3, 2, 1), planes_and_out, strict=True):
                check_dim_size(t, ndim, ndim - offset, size)
        return
    kernel = unpack(op, "kernel_size", kernel_size, 3)
    strides = unpack(op, "stride", stride, 3) or kernel
    pads = unpack(op, "padding", padding, 3)
    dilations = unpack(op, "dilation", dilation, 3)
    if ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = tuple(grad_output._size[-3:]) if len(grad_output._size) >= 3 else (0, 0, 0)
    shape = PoolShape(
        kernel, strides, pads, dilations, self._size[-4], tuple(self._size[-3:]), out, False
    )
    check_3d(self, shape, "max_pool3d_with_indices_backward_out_cpu_template()", False)
    for t in (grad_output, indices):
        for offset, size in zip((4, 3, 2, 1), (shape.channels, *out), strict=True):
            check_dim_size(t, ndim, ndim - offset, size)
    _check_grad_dtype(self, grad_output)


def _max_pool_backward(
    op: str,
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: TensorImpl,
    grad_input: TensorImpl | None,
) -> Any:
    """The gradient of max pooling: each output's gradient added at its index.

    Torch: max_pool2d_with_indices_backward_out_cpu / max_pool3d_..._backward_out_cpu and
    cpu_max_pool_backward (MaxPoolKernel.cpp): `grad_input[maxindex] += grad_output[i]`, in
    the input's memory format.
    """
    _backward_checks(
        op, grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices
    )
    rank = 2 if op == "max_pool2d" else 3
    cl = wants_channels_last(self) and len(self._size) == rank + 2
    full = self._size
    prepare_out(grad_input, full, self._dtype, cl)
    if not has_data(self):
        return result(self, None, full, self._dtype, cl, grad_input)
    if indices._dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {indices._dtype.scalar_name}")
    if self._dtype not in FLOATING:
        raise not_implemented(f"{op}_backward", self._dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    planes = geometry.numel(full[: len(full) - rank])
    plane = geometry.numel(full[len(full) - rank :])
    grads = planes_array(grad_output, rank, self._dtype)
    index = planes_array(indices, rank, int64)
    summed = scatter_planes(xp, planes, plane, index, grads, grads.dtype)
    return result(self, summed, full, self._dtype, cl, grad_input)


@implements(max_pool2d_with_indices_backward)
@implements(max_pool2d_with_indices_backward_grad_input)
def max_pool2d_with_indices_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: max_pool2d_with_indices_backward / .grad_input."""
    return _max_pool_backward(
        "max_pool2d",
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        indices,
        grad_input,
    )


@implements(max_pool3d_with_indices_backward)
@implements(max_pool3d_with_indices_backward_grad_input)
def max_pool3d_with_indices_backward_kernel(
    grad_output: TensorImpl,
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: TensorImpl,
    *,
    grad_input: TensorImpl | None = None,
) -> Any:
    """Torch: max_pool3d_with_indices_backward / .grad_input."""
    return _max_pool_backward(
        "max_pool3d",
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        indices,
        grad_input,
    )


@max_pool2d_with_indices_backward.derivative("grad_output")
def max_pool2d_with_indices_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 2)
    return max_pool_double_backward(grad, indices, 2)


@max_pool2d_with_indices_backward.derivative("self")
def max_pool2d_with_indices_backward_self_grad(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


@max_pool3d_with_indices_backward.derivative("grad_output")
def max_pool3d_with_indices_backward_grad_output(grad: Tensor, indices: Tensor) -> Tensor:
    # torch: max_pool_double_backward(grad, indices, 3)
    return max_pool_double_backward(grad, indices, 3)


max_pool3d_with_indices_backward.derivative("self")(max_pool2d_with_indices_backward_self_grad)


# --- max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool3d -------------------------------

max_pool1d_with_indices = defop(
    "max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], "
    "int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)"
)
max_pool1d = defop(
    "max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
    "int[1] dilation=[1], bool ceil_mode=False) -> Tensor"
)
max_pool2d = defop(
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor"
)
max_pool3d = defop(
    "max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
    "int[3] dilation=1, bool ceil_mode=False) -> Tensor"
)


def _check_max_pool1d(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> None:
    """Torch: check_max_pool1d in MaxPooling.h (the checks of max_pool1d's own CPU path)."""
    size = self._size
    if not (len(size) in (2, 3) and size[-1] != 0 and size[-2] != 0):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{format_shape(size)}"
        )
    if len(kernel_size) != 1:
        raise RuntimeError(
            "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 "
            f"but got size {len(kernel_size)}"
        )
    if len(stride) not in (0, 1):
        raise RuntimeError(
            "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size "
            f"1 but got size {len(stride)}"
        )
    if len(padding) != 1:
        raise RuntimeError(
            "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 "
            f"but got size {len(padding)}"
        )
    if len(dilation) != 1:
        raise RuntimeError(
            "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 "
            f"but got size {len(dilation)}"
        )
    k, p, d = kernel_size[0], padding[0], dilation[0]
    s = stride[0] if stride else k
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p} and kernel_size={k}"
        )
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    length = output_size(size[-1], k, p, s, d, ceil_mode)
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")


def _check_1d_with_indices(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> None:
    """Torch: max_pool1d_with_indices in MaxPooling.cpp (checkDimRange, then each int[1])."""
    ndim = len(self._size)
    if ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 "
            "'self' (while checking arguments for max_pool1d)"
        )
    for name, values, allowed in (
        ("kernel_size", kernel_size, (1,)),
        ("stride", stride, (0, 1)),
        ("padding", padding, (1,)),
        ("dilation", dilation, (1,)),
    ):
        if len(values) not in allowed:
            raise RuntimeError(
                f"max_pool1d() argument '{name}' should contain one int (got {len(values)})"
            )


@max_pool1d_with_indices.decomposition
def max_pool1d_with_indices_decomposition(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Any:
    """Torch: max_pool1d_with_indices in MaxPooling.cpp: the 2d op over `self.unsqueeze(-2)`
    with a kernel of height 1, both results squeezed back."""
    _check_1d_with_indices(self, kernel_size, stride, padding, dilation)
    strides = [1, stride[0]] if stride else []
    kernel = [1, kernel_size[0]]
    if not strides:
        strides = kernel
    values, indices = aten.max_pool2d_with_indices.default(
        aten.unsqueeze.default(self, -2),
        kernel,
        strides,
        [0, padding[0]],
        [1, dilation[0]],
        ceil_mode,
    )
    return aten.squeeze.dim(values, -2), aten.squeeze.dim(indices, -2)


@max_pool1d.decomposition
def max_pool1d_decomposition(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Any:
    """Torch: max_pool1d in MaxPooling.cpp: check_max_pool1d, then max_pool1d_with_indices's
    values where autograd may need the indices (or off CPU, or under a dispatch mode), else
    its own kernel (max_pool1d_impl: floating dtypes only), whose values refimpl computes
    through the same 2d kernel (Differs: max_pool1d_impl calls no aten op, refimpl calls
    max_pool2d_with_indices; no mode sees either)."""
    _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    if may_require_grad(self) or self._storage.device.type != "cpu":
        return aten.max_pool1d_with_indices.default(
            self, kernel_size, stride, padding, dilation, ceil_mode
        )[0]
    if self._dtype not in FLOATING:
        raise not_implemented("max_pool1d_impl", self._dtype)
    return max_pool1d_with_indices_decomposition(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )[0]


@max_pool2d.decomposition
def max_pool2d_decomposition(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Any:
    """Torch: max_pool2d in MaxPooling.cpp: on CPU without mkldnn or quantization,
    max_pool2d_with_indices's values."""
    return aten.max_pool2d_with_indices.default(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )[0]


@max_pool3d.decomposition
def max_pool3d_decomposition(
    self: TensorImpl,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Any:
    """Torch: max_pool3d in MaxPooling.cpp: max_pool3d_with_indices's values."""
    return aten.max_pool3d_with_indices.default(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )[0]
