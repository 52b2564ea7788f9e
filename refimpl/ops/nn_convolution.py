"""The aten ops beneath torch.nn.functional's convolutions: `convolution` (and `_convolution`),
`convolution_backward`, and their double backward.

Torch: aten/src/ATen/native/Convolution.cpp. `convolution` is CompositeExplicitAutograd over
`_convolution`, which checks its arguments (expand_param_if_needed, check_shape_forward),
picks a backend kernel (_select_conv_backend) and calls it; on the CPU without oneDNN these are
slow_conv2d, slow_conv3d, slow_conv_dilated2d/3d and slow_conv_transpose2d/3d (one GEMM over
im2col columns each). refimpl runs one kernel for all of them
(refimpl/ops/_nn_convolution_xp.py) and keeps torch's choice only where it shows: the dtypes
each accepts, its error texts, and the result's memory format
(refimpl/ops/_nn_convolution_params.py). A TorchDispatchMode sees
`aten.convolution.default` forward and `aten.convolution_backward.default` backward, as in
torch. The composite ops above them (conv1d/2d/3d, conv_transpose*, _convolution_mode) are in
nn_convolution_composite.py, conv_tbc and im2col/col2im in nn_convolution_fold.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl._base.memory_format import contiguous_format
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _nn_convolution_xp as kernels
from refimpl.ops import nn_convolution_composite  # noqa: F401  # registers its kernels
from refimpl.ops._backward import Tensor
from refimpl.ops._nn_convolution_params import (
    ConvBackend,
    Ints,
    check_kernel_shapes,
    check_kernel_types,
    check_mkldnn,
    check_shape_forward,
    conv_params,
    forward_geometry,
    output_sizes,
    result_format,
    select_backend,
    transposed_geometry,
    uses_mkldnn,
    wrap,
)
from refimpl.ops._reduction import cast_to, has_data, implements, input_array, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.nn_convolution_fold import compute_dtype, rounding

aten: Final = namespace("aten")


def _convolution_impl(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Any:
    """Torch: _convolution in Convolution.cpp (checks, backend choice, the kernel)."""
    p = conv_params(weight, stride, padding, dilation, transposed, output_padding, groups)
    check_shape_forward(input, weight, bias, p)
    backend = select_backend(input, p)
    mkldnn = uses_mkldnn(input, weight, p)
    if mkldnn:
        check_mkldnn(input, weight, bias, p)
    check_kernel_shapes(input, weight, p, backend)
    if not mkldnn:
        check_kernel_types(input, weight, backend)
    size = output_sizes(input, weight, p)
    if backend is ConvBackend.EMPTY and input._size[1] == 0:
        # torch: the Empty backend's result keeps the input's (zero) channels.
        size = (size[0], 0, *size[2:])
    fmt = result_format(input, weight, backend, mkldnn)
    dtype = input._dtype
    if not has_data(input) or geometry.numel(size) == 0:
        values = None if not has_data(input) else _zeros(input, size, dtype)
        return wrap(input, values, size, dtype, fmt)
    xp = input._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(dtype)
    x = input_array(input, compute)
    w = input_array(weight, compute)
    b = None
    if bias is not None:
        b = input_array(bias, compute) if bias._dtype is dtype else _cast_bias(bias, dtype, compute)
    if not transposed:
        g = forward_geometry(input, weight, p)
        y = kernels.forward(xp, x, w, g, groups, p.padding, b)
    else:
        g = transposed_geometry(input, weight, p, size[2:])
        full = kernels.scatter(xp, x, w, g, groups, size[1], rounding(input))
        y = kernels.crop(full, p.padding, size[2:])
        if b is not None:
            y = y + xp.reshape(b, (1, size[1]) + (1,) * (len(size) - 2))
    return wrap(input, y, size, dtype, fmt)


def _cast_bias(bias: TensorImpl, dtype: DType, compute: DType) -> Array:
    # torch's slow kernels read a bias of another dtype converted to the input's.
    backend = bias._storage.backend
    values = input_array(bias, bias._dtype)
    if backend is None:
        return values
    return cast_to(backend.xp, cast_to(backend.xp, values, dtype, backend), compute, backend)


def _zeros(like: TensorImpl, size: Ints, dtype: DType) -> Array:
    backend = like._storage.backend
    xp = backend.xp  # type: ignore[union-attr]  # has_data
    return xp.zeros(size, dtype=backend.array_dtypes[dtype])  # type: ignore[union-attr]


# --- convolution, _convolution -------------------------------------------------------------

convolution = defop(
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
)
convolution_out = defop(
    "convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(convolution)
def convolution_kernel(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Any:
    """Torch: convolution in Convolution.cpp (at::_convolution with the global cuDNN flags)."""
    return _convolution_impl(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )


@implements(convolution_out)
def convolution_out_kernel(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of convolution."""
    result = _convolution_impl(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )
    return same_as_out(result, out)


@convolution.derivative("input", "weight", "bias")
def convolution_backward_formula(
    grad: Tensor,
    input: Tensor,
    weight: Tensor,
    bias_sym_sizes: Ints | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    transposed: bool,
    output_padding: list[int],
    groups: int,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: convolution_backward_symint(grad, input, weight, bias->sym_sizes(), stride,
    #   padding, dilation, transposed, output_padding, groups, grad_input_mask)
    return aten.convolution_backward.default(  # type: ignore[no-any-return]
        grad,
        input,
        weight,
        bias_sym_sizes,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        list(grad_input_mask),
    )


_convolution = defop(
    "_convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool benchmark, "
    "bool deterministic, bool cudnn_enabled, bool allow_tf32) -> Tensor"
)
_convolution_out = defop(
    "_convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups, bool benchmark, bool deterministic, bool cudnn_enabled, bool allow_tf32, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
_convolution_deprecated = defop(
    "_convolution.deprecated(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, int[] output_padding, SymInt groups, "
    "bool benchmark, bool deterministic, bool cudnn_enabled) -> Tensor"
)


@implements(_convolution)
@implements(_convolution_out)
def _convolution_kernel(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    benchmark: bool,
    deterministic: bool,
    cudnn_enabled: bool,
    allow_tf32: bool,
    *,
    out: TensorImpl | None = None,
) -> Any:
    """Torch: _convolution in Convolution.cpp; benchmark, deterministic, cudnn_enabled and
    allow_tf32 choose among GPU kernels only."""
    result = _convolution_impl(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )
    return result if out is None else same_as_out(result, out)


# torch: the same convolution_backward_symint call as convolution's.
_convolution.derivative("input", "weight", "bias")(convolution_backward_formula)


@_convolution_deprecated.decomposition
def _convolution_deprecated_decomposition(
    input: TensorImpl,
    weight: TensorImpl,
    bias: TensorImpl | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    benchmark: bool,
    deterministic: bool,
    cudnn_enabled: bool,
) -> Any:
    """Torch: _convolution (deprecated overload): _convolution with allowTF32CuDNN (True)."""
    return aten._convolution.default(
        input,
        weight,
        bias,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        benchmark,
        deterministic,
        cudnn_enabled,
        True,
    )


# --- convolution_backward ------------------------------------------------------------------

convolution_backward = defop(
    "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
    "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
    "SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)"
)
convolution_backward_out = defop(
    "convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight, "
    "SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask, *, "
    "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))"
)


def _backward_impl(
    grad_output: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """(grad_input, grad_weight, grad_bias), None where `output_mask` says so.

    Torch: convolution_backward in Convolution.cpp (the checks of _convolution, then the
    backend's backward kernel): the input gradient is a transposed convolution of
    grad_output, the weight gradient the correlation of input windows with grad_output, the
    bias gradient grad_output summed over all dims but the channel.
    """
    p = conv_params(weight, stride, padding, dilation, transposed, output_padding, groups)
    check_shape_forward(input, weight, None, p)
    backend = select_backend(input, p)
    mkldnn = uses_mkldnn(input, weight, p)
    if mkldnn:
        check_mkldnn(input, weight, None, p)
    check_kernel_shapes(input, weight, p, backend)
    if not mkldnn:
        check_kernel_types(input, weight, backend)
    fmt = result_format(input, weight, backend, mkldnn)
    dtype = input._dtype
    want_input, want_weight, want_bias = (bool(m) for m in output_mask)
    data = has_data(grad_output) and has_data(input) and has_data(weight)
    xp = input._storage.backend.xp if data else None  # type: ignore[union-attr]
    compute = compute_dtype(dtype)
    g = input_array(grad_output, compute) if xp is not None else None
    empty = backend is ConvBackend.EMPTY
    grad_input = grad_weight = grad_bias = None
    if want_input:
        values = None
        if xp is not None and not empty:
            w = input_array(weight, compute)
            if not transposed:
                geo = forward_geometry(input, weight, p)
                full = kernels.scatter(xp, g, w, geo, groups, input._size[1], rounding(input))
                values = kernels.crop(full, p.padding, input._size[2:])
            else:
                geo = transposed_geometry(input, weight, p, grad_output._size[2:])
                values = kernels.forward(xp, g, w, geo, groups, p.padding)
        elif xp is not None:
            values = _zeros(input, input._size, dtype)
        grad_input = wrap(input, values, input._size, dtype, fmt)
    if want_weight:
        values = None
        if xp is not None and not empty:
            x = input_array(input, compute)
            if not transposed:
                geo = forward_geometry(input, weight, p)
                values = kernels.weight_grad(xp, x, g, geo, groups, p.padding)
            else:
                geo = transposed_geometry(input, weight, p, grad_output._size[2:])
                values = kernels.weight_grad(xp, g, x, geo, groups, p.padding)
        elif xp is not None:
            values = _zeros(weight, weight._size, dtype)
        grad_weight = wrap(weight, values, weight._size, dtype, fmt)
    if want_bias:
        channels = grad_output._size[1]
        size = (channels,) if bias_sizes is None else tuple(bias_sizes)
        values = None
        if xp is not None and empty:
            # torch: the Empty backend's bias gradient is zeros of the bias's size.
            values = _zeros(grad_output, size, dtype)
        elif xp is not None:
            axes = (0, *range(2, len(grad_output._size)))
            values = xp.sum(g, axis=axes)
        grad_bias = wrap(grad_output, values, size, dtype, contiguous_format)
    return grad_input, grad_weight, grad_bias


@implements(convolution_backward)
def convolution_backward_kernel(
    grad_output: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """Torch: convolution_backward in Convolution.cpp."""
    return _backward_impl(
        grad_output,
        input,
        weight,
        bias_sizes,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        output_mask,
    )


@implements(convolution_backward_out)
def convolution_backward_out_kernel(
    grad_output: TensorImpl,
    input: TensorImpl,
    weight: TensorImpl,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> tuple[Any, Any, Any]:
    """Torch: the generated CompositeExplicitAutograd out= wrapper (each defined result
    copied into its out tensor)."""
    results = _backward_impl(
        grad_output,
        input,
        weight,
        bias_sizes,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        output_mask,
    )
    outs = (out0, out1, out2)
    for result, out in zip(results, outs, strict=True):
        if result is not None:
            same_as_out(result, out)
    return outs


@convolution_backward.derivative("grad_output", "input", "weight")
def convolution_backward_backward(
    grads: tuple[Tensor | None, Tensor | None, Tensor | None],
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    transposed: bool,
    output_padding: list[int],
    groups: int,
    grad_input_mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: _convolution_double_backward_symint(grads[0], grads[1], grads[2], grad_output,
    #   weight, input, stride, padding, dilation, transposed, output_padding, groups,
    #   grad_input_mask)
    return aten._convolution_double_backward.default(  # type: ignore[no-any-return]
        grads[0],
        grads[1],
        grads[2],
        grad_output,
        weight,
        input,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        list(grad_input_mask),
    )


# --- _convolution_double_backward ----------------------------------------------------------

_convolution_double_backward = defop(
    "_convolution_double_backward(Tensor? ggI, Tensor? ggW, Tensor? ggb, Tensor gO, "
    "Tensor weight, Tensor self, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) "
    "-> (Tensor, Tensor, Tensor)"
)


@_convolution_double_backward.decomposition
def _convolution_double_backward_decomposition(
    ggI: TensorImpl | None,
    ggW: TensorImpl | None,
    ggb: TensorImpl | None,
    gO: TensorImpl,
    weight: TensorImpl,
    self: TensorImpl,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Any, Any, Any]:
    """The gradients of convolution_backward's (grad_input, grad_weight, grad_bias) with
    respect to (grad_output, input, weight), given their incoming gradients ggI, ggW, ggb.

    Torch: _convolution_double_backward in Convolution.cpp. convolution_backward is linear in
    grad_output and bilinear in (grad_output, input) / (grad_output, weight), so:
    ggO = conv(ggI, w) + conv(x, ggW) + ggb (broadcast over the channel dim);
    gI = the input gradient of conv(., ggW) at gO; gW = the weight gradient of conv(ggI, .)
    at gO.
    """
    args = (stride, padding, dilation, transposed, output_padding, groups)
    gg_o = None
    if output_mask[0]:
        if ggI is not None:
            gg_o = aten.convolution.default(ggI, weight, None, *args)
        if ggW is not None:
            term = aten.convolution.default(self, ggW, None, *args)
            gg_o = term if gg_o is None else aten.add.Tensor(gg_o, term)
        if ggb is not None:
            shape = [1, ggb._size[0]] + [1] * (len(gO._size) - 2)
            term = aten.expand.default(aten.view.default(ggb, shape), list(gO._size))
            gg_o = term if gg_o is None else aten.add.Tensor(gg_o, term)
        if gg_o is None:
            gg_o = aten.zeros_like.default(gO)
    g_w = None
    if output_mask[2] and ggI is not None:
        g_w = aten.convolution_backward.default(gO, ggI, weight, None, *args, [False, True, False])[
            1
        ]
    elif output_mask[2]:
        g_w = aten.zeros_like.default(weight)
    g_i = None
    if output_mask[1] and ggW is not None:
        g_i = aten.convolution_backward.default(gO, self, ggW, None, *args, [True, False, False])[0]
    elif output_mask[1]:
        g_i = aten.zeros_like.default(self)
    return gg_o, g_i, g_w
