"""The discrete Fourier transforms as aten ops: the kernels _fft_r2c, _fft_c2r, _fft_c2c and their derivatives.

Torch: aten/src/ATen/native/mkl/SpectralOps.cpp (_fft_r2c_mkl, _fft_c2r_mkl, _fft_c2c_mkl and
their out= forms, whose _exec_fft decides the output layout), SpectralOpsUtils.h
(fft_norm_mode), FunctionsManual.cpp (fft_r2c_backward, fft_c2r_backward) and
derivatives.yaml. The torch.fft.* entries (fft_fft ... fft_ihfftn, fftshift) that decompose
into these kernels are in `fft_transforms.py`, fftfreq and rfftfreq in `fft_freq.py`,
stft and istft in `fft_stft.py`.

The kernels compute on the Array API `fft` extension (`xp.fft.fftn`, `rfftn`, `irfftn`...),
whose `norm=` modes name torch's normalizations per direction (see _STANDARD_NORM). Like
torch's pocketfft, NumPy 2 computes float32 transforms in float32.

The output layouts (Note [FFT output layout]) are in `_fft_layout.py`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _fft_layout as layout
from refimpl.ops._backward import Tensor
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import registered, xp_of

aten: Final = namespace("aten")
Shape = tuple[int, ...]


class FftNorm(enum.IntEnum):
    """How a transform is scaled: the `normalization` argument of the kernels.

    Torch: fft_norm_mode in SpectralOpsUtils.h.
    """

    none = 0  # no scaling
    by_root_n = 1  # divided by sqrt(signal numel)
    by_n = 2  # divided by signal numel


# (normalization, forward) -> the standard's `norm=` for a transform in that direction.
# The standard scales the backward (inverse) transform by 1/n under "backward".
_STANDARD_NORM: Final[dict[tuple[int, bool], str]] = {
    (FftNorm.none, True): "backward",
    (FftNorm.by_root_n, True): "ortho",
    (FftNorm.by_n, True): "forward",
    (FftNorm.none, False): "forward",
    (FftNorm.by_root_n, False): "ortho",
    (FftNorm.by_n, False): "backward",
}


def _standard_norm(normalization: int, forward: bool) -> str:
    # torch: the MKL plan (_mkl_set_scale) scales by 1/n for any value but none and
    # by_root_n.
    mode = normalization if normalization in (FftNorm.none, FftNorm.by_root_n) else FftNorm.by_n
    return _STANDARD_NORM[(mode, forward)]


def _device_type(self: TensorImpl) -> str:
    return str(self._storage.device.type)


def _result(self: TensorImpl, values: Any, size: Shape, stride: Shape, dtype: DType) -> Any:
    """A new tensor of `size` and `stride` holding `values` (in the tensor's logical order;
    None for meta), on `self`'s device."""
    device, backend = self._storage.device, self._storage.backend
    if values is None or backend is None:
        return tensor_over(None, size, stride, dtype, device, None)
    xp = backend.xp
    if not geometry.is_contiguous(size, stride):
        # The memory order: dimensions by stride, largest first.
        order = sorted(range(len(size)), key=lambda d: -stride[d])
        values = xp.permute_dims(values, tuple(order))
    return tensor_over(values, size, stride, dtype, device, backend)


def _c2c(xp: Any, a: Any, dims: Sequence[int], norm: str, forward: bool) -> Any:
    """The complex transform of `a` over `dims` (the one-axis function for one axis: the
    n-dimensional ones cost more per call)."""
    if len(dims) == 1:
        transform = xp.fft.fft if forward else xp.fft.ifft
        return transform(a, axis=dims[0], norm=norm)
    transform_n = xp.fft.fftn if forward else xp.fft.ifftn
    return transform_n(a, axes=tuple(dims), norm=norm)


def _kind(dtype: DType) -> int:
    """How general a dtype is: complex 0, floating 1, integral 2, bool 3. Torch:
    can_safe_cast_to in torch/_prims_common (a kind takes itself and every higher number)."""
    if dtype.is_complex:
        return 0
    if dtype.is_floating_point:
        return 1
    return 3 if dtype.name == "bool" else 2


def _copy_out(result: TensorImpl, out: TensorImpl) -> TensorImpl:
    """Torch: the CPU out= kernels (_fft_*_mkl_out): resize_output(out, result.sizes()),
    then out.copy_(result), which converts between dtypes. On meta, torch's meta functions
    (out_wrapper) accept only casts to a kind as general as the result's."""
    resize_output(out, result._size)
    if not has_data(out) and _kind(out._dtype) > _kind(result._dtype):
        raise RuntimeError(
            f"Attempting to cast from torch.{result._dtype.name} to out tensor with dtype "
            f"torch.{out._dtype.name}, but this can't be cast because it is not safe!"
        )
    aten.copy_.default(out, result)
    return out


def _check_dtype(self: TensorImpl, complex_input: bool) -> None:
    # torch: the CPU kernels' TORCH_CHECK(self.is_complex()) / is_floating_point(), raised
    # from the dtype dispatch ("Only supports complex dtypes, but found: Float"); the MKL
    # and pocketfft plans take float and double only.
    dtype = self._dtype
    accepted = dtype.is_complex if complex_input else dtype.is_floating_point
    if not accepted and not has_data(self):
        # torch: the meta functions' bare torch._check(self.dtype.is_complex) and
        # torch._check(self.dtype.is_floating_point).
        raise RuntimeError(
            "Expected cond to be True, but got False. (Could this error message be improved? "
            "If so, please report an enhancement request to PyTorch.)"
        )
    if not accepted:
        kind = "complex" if complex_input else "floating-point"
        raise RuntimeError(f"Only supports {kind} dtypes, but found: {dtype.scalar_name}")
    if has_data(self) and dtype.itemsize == (4 if dtype.is_complex else 2):
        raise RuntimeError(
            f"MKL FFT doesn't support tensors of type: {dtype.to_real().scalar_name}"
        )


def _dims(self: TensorImpl, dim: Sequence[int]) -> list[int]:
    if not dim:
        # torch: dim.back() of an empty IntArrayRef.
        raise RuntimeError("ArrayRef: attempted to access back() of empty list")
    return [geometry.wrap_dim(d, len(self._size)) for d in dim]


# --- _fft_r2c ---------------------------------------------------------------------------------


_fft_r2c = defop("_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor")


@registered(_fft_r2c)
def _fft_r2c_kernel(self: TensorImpl, dim: list[int], normalization: int, onesided: bool) -> Any:
    """Torch: _fft_r2c_mkl: a real-to-complex forward transform over `dim`, the last of which
    keeps n // 2 + 1 frequencies when `onesided` (else all, by conjugate symmetry)."""
    _check_dtype(self, complex_input=False)
    dims = _dims(self, dim)
    norm = _standard_norm(normalization, True)
    out_size = list(self._size)
    if onesided:
        out_size[dims[-1]] = self._size[dims[-1]] // 2 + 1
    size = tuple(out_size)
    stages: list[list[int]] = []
    device_type = _device_type(self)
    stride = layout.r2c_strides(device_type, self._size, self._stride, dims, size, stages)
    layout.check_empty(device_type, has_data(self), self._size, stages)
    dtype = self._dtype.to_complex()
    if not has_data(self):
        return _result(self, None, size, stride, dtype)
    xp = xp_of(self)
    a = array_of(self)
    if onesided:
        values = (
            xp.fft.rfft(a, axis=dims[0], norm=norm)
            if len(dims) == 1
            else xp.fft.rfftn(a, axes=tuple(dims), norm=norm)
        )
    else:
        # torch fills the other half by conjugate symmetry; the full transform is the same.
        complex_a = xp.astype(a, xp.complex64 if a.dtype == xp.float32 else xp.complex128)
        values = _c2c(xp, complex_a, dims, norm, forward=True)
    return _result(self, values, size, stride, dtype)


@_fft_r2c.derivative("self")
def _fft_r2c_backward(
    grad: Tensor, dim: list[int], normalization: int, onesided: bool, self_sym_sizes: Any
) -> Tensor:
    # torch: fft_r2c_backward(grad, dim, normalization, onesided, self.sym_size(dim.back()))
    return fft_r2c_backward(grad, dim, normalization, onesided, self_sym_sizes[dim[-1]])


def fft_r2c_backward(
    grad: Tensor, dim: Sequence[int], normalization: int, onesided: bool, last_dim_size: int
) -> Tensor:
    """Torch: fft_r2c_backward (FunctionsManual.cpp). A onesided R2C transform is a C2C
    transform of the real input with half of its result dropped: the backward fills that
    half with zeros, runs the inverse C2C transform and keeps the real part."""
    if not onesided:
        return aten.real.default(aten._fft_c2c.default(grad, list(dim), normalization, False))
    half_sizes = list(grad._size)
    last_dim = geometry.wrap_dim(dim[-1], len(half_sizes))
    zero_length = last_dim_size - grad._size[dim[-1]]
    full_grad = grad
    if zero_length > 0:
        new_shape = list(half_sizes)
        new_shape[last_dim] = last_dim_size
        full_grad = aten.new_zeros.default(grad, new_shape)
        aten.copy_.default(aten.slice.Tensor(full_grad, last_dim, 0, half_sizes[last_dim]), grad)
    return aten.real.default(aten._fft_c2c.default(full_grad, list(dim), normalization, False))


_fft_r2c_out = defop(
    "_fft_r2c.out(Tensor self, int[] dim, int normalization, bool onesided, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(_fft_r2c_out)
def _fft_r2c_out_kernel(
    self: TensorImpl, dim: list[int], normalization: int, onesided: bool, *, out: TensorImpl
) -> Any:
    """Torch: _fft_r2c_mkl_out: the functional result copied into `out`; a two-sided one is
    filled by conjugate symmetry in `out` itself, which must therefore be complex."""
    result = _fft_r2c_kernel(self, dim, normalization, onesided)
    if not onesided and not out._dtype.is_complex and has_data(out):
        resize_output(out, self._size)
        raise NotImplementedError(
            f"\"_fft_fill_with_conjugate_symmetry\" not implemented for '{out._dtype.scalar_name}'"
        )
    return _copy_out(result, out)


# --- _fft_c2r ---------------------------------------------------------------------------------


_fft_c2r = defop(
    "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor"
)


@registered(_fft_c2r)
def _fft_c2r_kernel(
    self: TensorImpl, dim: list[int], normalization: int, last_dim_size: int
) -> Any:
    """Torch: _fft_c2r_mkl: an inverse transform of Hermitian-symmetric input (the last
    dimension holding n // 2 + 1 frequencies) to a real result of `last_dim_size` there:
    a C2C inverse transform over all but the last dimension, then a C2R one over it."""
    _check_dtype(self, complex_input=True)
    dims = _dims(self, dim)
    norm = _standard_norm(normalization, False)
    out_size = list(self._size)
    out_size[dims[-1]] = last_dim_size
    size = tuple(out_size)
    stages: list[list[int]] = []
    device_type = _device_type(self)
    out_stride = layout.c2r_strides(device_type, self._size, self._stride, dims, size, stages)
    layout.check_empty(device_type, has_data(self), self._size, stages)
    dtype = self._dtype.to_real()
    if not has_data(self):
        return _result(self, None, size, out_stride, dtype)
    xp = xp_of(self)
    a = array_of(self)
    if len(dims) == 1:
        values = xp.fft.irfft(a, n=last_dim_size, axis=dims[0], norm=norm)
    else:
        s = [self._size[d] for d in dims[:-1]] + [last_dim_size]
        values = xp.fft.irfftn(a, s=s, axes=tuple(dims), norm=norm)
    return _result(self, values, size, out_stride, dtype)


@_fft_c2r.derivative("self")
def _fft_c2r_backward(grad: Tensor, dim: list[int], normalization: int) -> Tensor:
    # torch: fft_c2r_backward(grad, dim, normalization)
    return fft_c2r_backward(grad, dim, normalization)


def fft_c2r_backward(grad: Tensor, dim: Sequence[int], normalization: int) -> Tensor:
    """Torch: fft_c2r_backward (FunctionsManual.cpp): a onesided R2C transform of the
    gradient, with the frequencies whose mirror image the C2R transform also read (1 up to
    n - (n // 2 + 1)) doubled."""
    g_input = aten._fft_r2c.default(grad, list(dim), normalization, True)
    double_length = grad._size[dim[-1]] - g_input._size[dim[-1]]
    if double_length > 0:
        aten.mul_.Scalar(aten.narrow.default(g_input, dim[-1], 1, double_length), 2)
    return g_input


_fft_c2r_out = defop(
    "_fft_c2r.out(Tensor self, int[] dim, int normalization, SymInt last_dim_size, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(_fft_c2r_out)
def _fft_c2r_out_kernel(
    self: TensorImpl, dim: list[int], normalization: int, last_dim_size: int, *, out: TensorImpl
) -> Any:
    """Torch: _fft_c2r_mkl_out: the functional result copied into `out`."""
    return _copy_out(_fft_c2r_kernel(self, dim, normalization, last_dim_size), out)


# --- _fft_c2c ---------------------------------------------------------------------------------


_fft_c2c = defop("_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor")


@registered(_fft_c2c)
def _fft_c2c_kernel(self: TensorImpl, dim: list[int], normalization: int, forward: bool) -> Any:
    """Torch: _fft_c2c_mkl: a complex transform over `dim`, forward or inverse; over no
    dimension, a copy (self.clone())."""
    _check_dtype(self, complex_input=True)
    if not dim:
        return aten.clone.default(self)
    dims = [geometry.wrap_dim(d, len(self._size)) for d in dim]
    norm = _standard_norm(normalization, forward)
    size = self._size
    stages: list[list[int]] = []
    device_type = _device_type(self)
    stride = layout.c2c_strides(device_type, size, self._stride, dims, stages)
    layout.check_empty(device_type, has_data(self), size, stages)
    if not has_data(self):
        return _result(self, None, size, stride, self._dtype)
    values = _c2c(xp_of(self), array_of(self), dims, norm, forward)
    return _result(self, values, size, stride, self._dtype)


@_fft_c2c.derivative("self")
def _fft_c2c_backward(grad: Tensor, dim: list[int], normalization: int, forward: bool) -> Tensor:
    # torch: _fft_c2c_symint(grad, dim, normalization, !forward): the adjoint of a DFT is
    # the DFT of the other direction with the same scaling.
    return aten._fft_c2c.default(grad, dim, normalization, not forward)


_fft_c2c_out = defop(
    "_fft_c2c.out(Tensor self, SymInt[] dim, int normalization, bool forward, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(_fft_c2c_out)
def _fft_c2c_out_kernel(
    self: TensorImpl, dim: list[int], normalization: int, forward: bool, *, out: TensorImpl
) -> Any:
    """Torch: _fft_c2c_mkl_out: the functional result copied into `out`."""
    return _copy_out(_fft_c2c_kernel(self, dim, normalization, forward), out)
