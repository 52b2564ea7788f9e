"""The aten ops of sliding blocks (im2col, col2im: F.unfold and F.fold) and the time-batch-
channel convolution conv_tbc with its backward.

Torch: aten/src/ATen/native/Im2Col.cpp, Col2Im.cpp and im2col_shape_check.h (CPU and Meta
kernels: each is the other's derivative), aten/src/ATen/native/ConvolutionTBC.cpp (conv_tbc is
CompositeExplicitAutograd with its own derivative; conv_tbc_backward is composite, a loop of
addmm_ over the kernel width, which a TorchDispatchMode sees call by call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
)
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _nn_convolution_xp as kernels
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._outputs import format_shape, resize_output
from refimpl.ops._reduction import (
    finish,
    has_data,
    implements,
    input_array,
    not_implemented,
    same_as_out,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")

Ints = tuple[int, ...]

# torch: AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND3(kBFloat16, kHalf, kBool) in Im2Col.cpp
# and Col2Im.cpp.
_FOLD_DTYPES: Final = frozenset({bool_, float16, bfloat16, float32, float64, complex64, complex128})


def compute_dtype(dtype: DType) -> DType:
    """float16 and bfloat16 compute in float32, rounded once at the end."""
    return float32 if dtype in (float16, bfloat16) else dtype


def rounding(t: TensorImpl) -> kernels.Rounding:
    """For a float16/bfloat16 tensor: float32 values rounded to its dtype and back (where
    torch's kernels store a partial result); None otherwise."""
    dtype = t._dtype
    backend = t._storage.backend
    if compute_dtype(dtype) is dtype or backend is None:
        return None
    xp = backend.xp

    def round_trip(a: Array) -> Array:
        low = data.cast_array(xp, a, float32, dtype, backend)
        return data.cast_array(xp, low, dtype, float32, backend)

    return round_trip


def _pair(values: Sequence[int], name: str) -> Ints:
    # torch: the TORCH_CHECKs at the top of im2col_out_cpu_template / col2im_out_cpu_template.
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return (values[0], values[1])


def _check_parameters(kernel: Ints, dilation: Ints, padding: Ints, stride: Ints) -> None:
    """Torch: the parameter checks shared by im2col_shape_check and col2im_shape_check."""
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(
            "kernel size should be greater than zero, but got kernel_height: "
            f"{kernel[0]} kernel_width: {kernel[1]}"
        )
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(
            "dilation should be greater than zero, but got dilation_height: "
            f"{dilation[0]} dilation_width: {dilation[1]}"
        )
    if padding[0] < 0 or padding[1] < 0:
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
            f"{padding[1]}"
        )
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got stride_height: {stride[0]} "
            f"stride_width: {stride[1]}"
        )


def _blocks(size: Ints, kernel: Ints, dilation: Ints, padding: Ints, stride: Ints) -> Ints:
    # torch: div_rtn(size + 2 * pad - (dilation * (kernel - 1) + 1), stride) + 1 per dim.
    return tuple(
        (n + 2 * p - (d * (k - 1) + 1)) // s + 1
        for n, k, d, p, s in zip(size, kernel, dilation, padding, stride, strict=True)
    )


def _pairs(values: Ints) -> str:
    return f"({values[0]}, {values[1]})"


# --- im2col --------------------------------------------------------------------------------

im2col = defop(
    "im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) "
    "-> Tensor"
)
im2col_out = defop(
    "im2col.out(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, "
    "int[2] stride, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(im2col)
@implements(im2col_out)
def im2col_kernel(
    self: TensorImpl,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
    *,
    out: TensorImpl | None = None,
) -> Any:
    """The sliding blocks of `self` (N, C, H, W) or (C, H, W) as columns (N, C*kh*kw, L).

    Torch: im2col_out_cpu_template in Im2Col.cpp with im2col_shape_check.
    """
    kernel = _pair(kernel_size, "kernel_size")
    dil = _pair(dilation, "dilation")
    pad = _pair(padding, "padding")
    st = _pair(stride, "stride")
    _check_parameters(kernel, dil, pad, st)
    size = self._size
    ndim = len(size)
    # torch: input.size(1) and input.size(2) are read before the rank check.
    valid = size[geometry.wrap_dim(1, ndim)] != 0 and size[geometry.wrap_dim(2, ndim)] != 0
    if not ((ndim == 3 and size[0] != 0 and valid) or (ndim == 4 and valid and size[3] != 0)):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {format_shape(size)}"
        )
    spatial = (size[-2], size[-1])
    blocks = _blocks(spatial, kernel, dil, pad, st)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size {_pairs(spatial)}, kernel_size={_pairs(kernel)}, "
            f"dilation={_pairs(dil)}, padding={_pairs(pad)}, calculated shape of the array of "
            f"sliding blocks as {_pairs(blocks)}, but its components must be at least one."
        )
    channels = size[-3]
    batched = (size[0],) if ndim == 4 else ()
    shape = (*batched, channels * kernel[0] * kernel[1], blocks[0] * blocks[1])
    dtype = self._dtype
    if out is not None:
        if out._dtype is not dtype:
            raise _scalar_type_error(dtype, out._dtype)
        resize_output(out, shape)
    if not has_data(self):
        return finish(self, None, shape, dtype, out)
    if dtype not in _FOLD_DTYPES:
        raise not_implemented("im2col_out_cpu", dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    x = input_array(self, compute_dtype(dtype))
    x = x if ndim == 4 else xp.reshape(x, (1, *size))
    padded = kernels.pad(xp, x, pad, pad)
    geo = kernels.Geometry(tuple(padded.shape[2:]), blocks, kernel, st, dil)
    columns = kernels.im2col(xp, padded, geo)
    return finish(self, xp.reshape(columns, shape), shape, dtype, out)


def _scalar_type_error(expected: Any, found: Any) -> RuntimeError:
    # torch: the out tensor read as the input's scalar type by the CPU kernel.
    return RuntimeError(
        f"expected scalar type {expected.scalar_name} but found {found.scalar_name}"
    )


@im2col.derivative("self")
def im2col_backward(
    grad: Tensor,
    self_sym_sizes: Ints,
    kernel_size: list[int],
    dilation: list[int],
    padding: list[int],
    stride: list[int],
) -> Tensor:
    # torch: col2im_symint(grad, {self.sym_size(-2), self.sym_size(-1)}, kernel_size,
    #   dilation, padding, stride)
    output_size = [self_sym_sizes[-2], self_sym_sizes[-1]]
    return aten.col2im.default(grad, output_size, kernel_size, dilation, padding, stride)


# --- col2im --------------------------------------------------------------------------------

col2im = defop(
    "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
    "int[2] padding, int[2] stride) -> Tensor"
)
col2im_out = defop(
    "col2im.out(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
    "int[2] padding, int[2] stride, *, Tensor(a!) out) -> Tensor(a!)"
)


@implements(col2im)
@implements(col2im_out)
def col2im_kernel(
    self: TensorImpl,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
    *,
    out: TensorImpl | None = None,
) -> Any:
    """The image (N, C, H, W) whose sliding blocks the columns `self` (N, C*kh*kw, L) hold,
    overlapping blocks summed. Torch: col2im_out_cpu_template in Col2Im.cpp with
    col2im_shape_check."""
    output = _pair(output_size, "output_size")
    kernel = _pair(kernel_size, "kernel_size")
    dil = _pair(dilation, "dilation")
    pad = _pair(padding, "padding")
    st = _pair(stride, "stride")
    _check_parameters(kernel, dil, pad, st)
    size = self._size
    ndim = len(size)
    if not (
        (ndim == 2 and size[0] != 0 and size[1] != 0)
        or (ndim == 3 and size[1] != 0 and size[2] != 0)
    ):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {format_shape(size)}"
        )
    planes = size[-2]
    kernels_per_plane = kernel[0] * kernel[1]
    if planes % kernels_per_plane != 0:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={planes} and kernel_size={_pairs(kernel)}."
        )
    blocks = _blocks(output, kernel, dil, pad, st)
    head = (
        f"Given output_size={_pairs(output)}, kernel_size={_pairs(kernel)}, "
        f"dilation={_pairs(dil)}, padding={_pairs(pad)}, stride={_pairs(st)}, "
    )
    if size[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"{head}expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={size[-1]}."
        )
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(
            f"{head}calculated shape of the array of sliding blocks as {_pairs(blocks)}, which "
            "is too small (non-positive)"
        )
    channels = planes // kernels_per_plane
    batched = (size[0],) if ndim == 3 else ()
    shape = (*batched, channels, output[0], output[1])
    dtype = self._dtype
    if out is not None:
        if out._dtype is not dtype:
            raise _scalar_type_error(dtype, out._dtype)
        resize_output(out, shape)
    if not has_data(self):
        return finish(self, None, shape, dtype, out)
    if dtype not in _FOLD_DTYPES:
        raise not_implemented("col2im_out_cpu", dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(dtype)
    columns = input_array(self, compute)
    columns = columns if ndim == 3 else xp.reshape(columns, (1, *size))
    if compute is bool_:
        # Differs: none in value; the Array API adds no bools, so bool sums run as int8 and
        # any nonzero sum is True (torch's bool col2im adds with `+`, i.e. logical or).
        columns = xp.astype(columns, xp.int8)
    padded = (output[0] + 2 * pad[0], output[1] + 2 * pad[1])
    geo = kernels.Geometry(padded, blocks, kernel, st, dil)
    image = kernels.col2im(xp, columns, channels, geo, rounding(self))
    values = kernels.crop(image, pad, output)
    if compute is bool_:
        values = values != 0
    return finish(self, xp.reshape(values, shape), shape, dtype, out)


@col2im.derivative("self")
def col2im_backward(
    grad: Tensor,
    kernel_size: list[int],
    dilation: list[int],
    padding: list[int],
    stride: list[int],
) -> Tensor:
    # torch: im2col(grad, kernel_size, dilation, padding, stride)
    return aten.im2col.default(grad, kernel_size, dilation, padding, stride)


# --- conv_tbc, conv_tbc_backward -----------------------------------------------------------

conv_tbc = defop("conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor")
conv_tbc_out = defop(
    "conv_tbc.out(Tensor self, Tensor weight, Tensor bias, int pad=0, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)

# torch: addmm's CPU dispatch (AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(Half, BFloat16)).
_TBC_REFUSED: Final = frozenset({bool_})


def _conv_tbc_impl(self: TensorImpl, weight: TensorImpl, bias: TensorImpl, pad: int) -> Any:
    """Torch: conv_tbc in ConvolutionTBC.cpp: output[t] = bias + sum over k of
    input[t + k - pad] @ weight[k] (a correlation; rows outside the input count as zero)."""
    if len(self._size) != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if len(weight._size) != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if len(bias._size) != 1:
        raise RuntimeError("Bias must be 1-D")
    ilen, batch, planes = self._size
    kw, _, out_planes = weight._size
    olen = ilen - kw + 1 + pad * 2
    if planes != weight._size[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if out_planes != bias._size[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    shape = (olen, batch, out_planes)
    if olen < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {olen}: {format_shape(shape)}"
        )
    dtype = self._dtype
    if not has_data(self):
        return finish(self, None, shape, dtype, None)
    if dtype in _TBC_REFUSED:
        raise not_implemented("addmm_impl_cpu_", dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    compute = compute_dtype(dtype)
    x = xp.permute_dims(input_array(self, compute), (1, 2, 0))  # (B, C, T)
    w = xp.permute_dims(input_array(weight, compute), (2, 1, 0))  # (O, C, K)
    b = input_array(bias, compute)
    if olen == 0 or kw == 0 or batch == 0:
        values = xp.zeros((batch, out_planes, olen), dtype=x.dtype) + xp.reshape(b, (1, -1, 1))
    else:
        # torch's loop reads input row t + k - pad for output row t: a convolution padded by
        # `pad` (olen = ilen + 2 * pad - kw + 1), or, for a negative pad, of the input with
        # -pad rows cut from each end.
        if pad < 0:
            x = x[..., -pad : ilen + pad]
        padding = (max(pad, 0),)
        geo = kernels.Geometry((olen + kw - 1,), (olen,), (kw,), (1,), (1,))
        values = kernels.forward(xp, x, w, geo, 1, padding, b)
    return finish(self, xp.permute_dims(values, (2, 0, 1)), shape, dtype, None)


@implements(conv_tbc)
def conv_tbc_kernel(self: TensorImpl, weight: TensorImpl, bias: TensorImpl, pad: int = 0) -> Any:
    """Torch: conv_tbc in ConvolutionTBC.cpp."""
    return _conv_tbc_impl(self, weight, bias, pad)


@implements(conv_tbc_out)
def conv_tbc_out_kernel(
    self: TensorImpl, weight: TensorImpl, bias: TensorImpl, pad: int = 0, *, out: TensorImpl
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of conv_tbc."""
    return same_as_out(_conv_tbc_impl(self, weight, bias, pad), out)


@conv_tbc.derivative("self", "weight", "bias")
def conv_tbc_backward_formula(
    grad: Tensor, self: Tensor, weight: Tensor, bias: Tensor, pad: int
) -> tuple[Tensor, Tensor, Tensor]:
    # torch: grad.defined() ? conv_tbc_backward(grad, self, weight, bias, pad) : tuple()
    return aten.conv_tbc_backward.default(  # type: ignore[no-any-return]
        grad, self, weight, bias, pad
    )


conv_tbc_backward = defop(
    "conv_tbc_backward(Tensor self, Tensor input, Tensor weight, Tensor bias, int pad) "
    "-> (Tensor, Tensor, Tensor)"
)


@conv_tbc_backward.decomposition
def conv_tbc_backward_decomposition(
    self: TensorImpl, input: TensorImpl, weight: TensorImpl, bias: TensorImpl, pad: int
) -> tuple[Any, Any, Any]:
    """(dInput, dWeight, dBias) of conv_tbc given dOutput (`self`).

    Torch: conv_tbc_backward in ConvolutionTBC.cpp: for each kernel position k, an addmm_ of
    the overlapping rows (narrow, view) of dOutput and weight[k] (input and dOutput for the
    weight), then the bias gradient as dOutput summed over time and batch.
    """
    d_output = self
    ilen, batch, planes = input._size
    kw, _, out_planes = weight._size
    olen = ilen - kw + 1 + pad * 2
    real_pad = int((olen - ilen + kw - 1) / 2)
    d_input = aten.zeros_like.default(input)
    for k in range(kw):
        i_shift = max(0, k - real_pad)
        o_shift = max(0, real_pad - k)
        t = min(ilen + real_pad - k, olen) - o_shift
        if t > 0:
            d_o = aten.view.default(
                aten.slice.Tensor(d_output, 0, o_shift, o_shift + t), [t * batch, out_planes]
            )
            d_i = aten.view.default(
                aten.slice.Tensor(d_input, 0, i_shift, i_shift + t), [t * batch, planes]
            )
            aten.addmm_.default(d_i, d_o, aten.t.default(aten.select.int(weight, 0, k)))
    d_weight = aten.zeros_like.default(weight)
    for k in range(kw):
        i_shift = max(0, k - real_pad)
        o_shift = max(0, real_pad - k)
        t = min(ilen + real_pad - k, olen) - o_shift
        if t > 0:
            d_w = aten.select.int(d_weight, 0, k)
            d_o = aten.view.default(
                aten.slice.Tensor(d_output, 0, o_shift, o_shift + t), [t * batch, out_planes]
            )
            i = aten.t.default(
                aten.view.default(
                    aten.slice.Tensor(input, 0, i_shift, i_shift + t), [t * batch, planes]
                )
            )
            aten.addmm_.default(d_w, i, d_o)
    d_bias = aten.zeros_like.default(bias)
    total = aten.sum.dim_IntList(d_output, [0], False)
    aten.copy_.default(d_bias, aten.sum.dim_IntList(total, [0], False))
    return d_input, d_weight, d_bias
