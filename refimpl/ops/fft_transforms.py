"""torch.fft's transforms as aten ops: fft_fft ... fft_ihfftn (and their out= forms), fft_fftshift, fft_ifftshift.

Torch: aten/src/ATen/native/SpectralOps.cpp. Every entry here is CompositeImplicitAutograd:
it checks and promotes its input (promote_tensor_fft), canonicalizes `n` / `s` and `dim`,
zero-pads or trims the input to the signal size (resize_fft_input: aten.slice and
aten.constant_pad_nd), turns the `norm` string into a normalization (norm_from_string), and
calls one of the kernels _fft_r2c, _fft_c2r, _fft_c2c (ops/fft.py), whose derivatives are
therefore the only ones. fftshift and ifftshift are aten.roll.

A transform that conjugates (ihfft, hfft) does it lazily, as torch does: `Tensor.conj()` sets
the conjugate bit and the next kernel's Conjugate fallback materializes it with a clone
(ops/math_bits.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, complex32, complex64, complex128, float16, float32, float64
from refimpl._base.promotion import get_default_dtype
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop
from refimpl.ops.fft import FftNorm

aten: Final = namespace("aten")

# --- shared steps -----------------------------------------------------------------------------

# Real dtype -> the complex dtype of its transform. Torch: promote_type_fft.
_COMPLEX_OF: Final[dict[DType, DType]] = {
    float16: complex32,
    float32: complex64,
    float64: complex128,
}

# (norm string, forward) -> normalization. Torch: norm_from_string; NumPy's modes name the
# direction that is scaled, so "forward" scales a forward transform by 1/n and leaves the
# backward one alone.
_NORMS: Final[dict[tuple[str | None, bool], FftNorm]] = {
    (None, True): FftNorm.none,
    (None, False): FftNorm.by_n,
    ("backward", True): FftNorm.none,
    ("backward", False): FftNorm.by_n,
    ("forward", True): FftNorm.by_n,
    ("forward", False): FftNorm.none,
    ("ortho", True): FftNorm.by_root_n,
    ("ortho", False): FftNorm.by_root_n,
}


def norm_from_string(norm: str | None, forward: bool) -> int:
    """Torch: norm_from_string (SpectralOps.cpp)."""
    mode = _NORMS.get((norm, forward))
    if mode is None:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return int(mode)


def promote_type_fft(dtype: DType, require_complex: bool, device_type: str) -> DType:
    """The dtype a transform computes in: integers and bool in the default float dtype;
    float32 and float64 (and float16 on CUDA and meta, where torch has half transforms);
    complex when `require_complex`. Torch: promote_type_fft (SpectralOps.cpp)."""
    if dtype.is_complex:
        return dtype
    if not dtype.is_floating_point:
        dtype = get_default_dtype()
    allowed = (float16, float32, float64) if device_type in ("cuda", "meta") else (float32, float64)
    if dtype not in allowed:
        raise RuntimeError(f"Unsupported dtype {dtype.scalar_name}")
    return _COMPLEX_OF[dtype] if require_complex else dtype


def promote_tensor_fft(t: TensorImpl, require_complex: bool = False) -> Any:
    """`t` converted to promote_type_fft's dtype (itself if it has it already).
    Torch: promote_tensor_fft."""
    new_type = promote_type_fft(t._dtype, require_complex, t._storage.device.type)
    return t if new_type is t._dtype else aten.to.dtype(t, new_type)


def resize_fft_input(x: TensorImpl, dims: Sequence[int], sizes: Sequence[int]) -> Any:
    """`x` trimmed (aten.slice) or zero-padded at the end (aten.constant_pad_nd) so that
    x.size(dims[i]) == sizes[i]; a size of -1 leaves its dimension alone.
    Torch: resize_fft_input (SpectralOps.cpp)."""
    must_copy = False
    x_sizes = x._size
    pad_amount = [0] * (len(x_sizes) * 2)
    for d, n in zip(dims, sizes, strict=True):
        if n == -1:
            continue
        if x_sizes[d] < n:
            must_copy = True
            pad_amount[len(pad_amount) - 2 * d - 1] = n - x_sizes[d]
        if x_sizes[d] > n:
            x = aten.slice.Tensor(x, d, 0, n)
    # torch: only pad when needed, since it copies the whole tensor.
    return aten.constant_pad_nd.default(x, pad_amount) if must_copy else x


def _check_out_complex(fname: str, out: TensorImpl | None) -> None:
    if out is not None and not out._dtype.is_complex:
        raise RuntimeError(
            f"{fname} expects a complex output tensor, but got {out._dtype.scalar_name}"
        )


def _check_out_real(fname: str, out: TensorImpl | None) -> None:
    if out is not None and not out._dtype.is_floating_point:
        raise RuntimeError(
            f"{fname} expects a floating point output tensor, but got {out._dtype.scalar_name}"
        )


def _r2c_maybe_out(
    fname: str, out: TensorImpl | None, x: TensorImpl, dim: list[int], norm: int, onesided: bool
) -> Any:
    """Torch: fft_r2c_maybe_out."""
    if out is None:
        return aten._fft_r2c.default(x, dim, norm, onesided)
    _check_out_complex(fname, out)
    return aten._fft_r2c.out(x, dim, norm, onesided, out=out)


def _c2r_maybe_out(
    fname: str, out: TensorImpl | None, x: TensorImpl, dim: list[int], norm: int, last: int
) -> Any:
    """Torch: fft_c2r_maybe_out."""
    if out is None:
        return aten._fft_c2r.default(x, dim, norm, last)
    _check_out_real(fname, out)
    return aten._fft_c2r.out(x, dim, norm, last, out=out)


def _c2c_maybe_out(
    fname: str, out: TensorImpl | None, x: TensorImpl, dim: list[int], norm: int, forward: bool
) -> Any:
    """Torch: fft_c2c_maybe_out."""
    if out is None:
        return aten._fft_c2c.default(x, dim, norm, forward)
    _check_out_complex(fname, out)
    return aten._fft_c2c.out(x, dim, norm, forward, out=out)


def _wrap(dim: int, ndim: int) -> int:
    # torch: maybe_wrap_dim(dim, ndim, /*wrap_scalar=*/false): a 0-dim tensor has no dims.
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return geometry.wrap_dim(dim, ndim)


# --- one-dimensional transforms ---------------------------------------------------------------


def fft_r2c(
    fname: str,
    out: TensorImpl | None,
    x: TensorImpl,
    n: int | None,
    dim: int,
    norm: str | None,
    forward: bool,
    onesided: bool,
) -> Any:
    """A transform of a real signal. An inverse one is the conjugate of the forward one
    scaled by 1/n. Torch: fft_r2c (SpectralOps.cpp)."""
    if x._dtype.is_complex:
        raise RuntimeError(f"{fname} expects a real input tensor, but got {x._dtype.scalar_name}")
    x = promote_tensor_fft(x)
    d = _wrap(dim, len(x._size))
    length = n if n is not None else x._size[d]
    if length < 1:
        raise RuntimeError(f"Invalid number of data points ({length}) specified")
    if n is not None:
        x = resize_fft_input(x, [d], [length])
    normalization = norm_from_string(norm, forward)
    if forward:
        return _r2c_maybe_out(fname, out, x, [d], normalization, onesided)
    _check_out_complex(fname, out)
    result = aten._fft_r2c.default(x, [d], normalization, onesided)
    if out is not None:
        return aten.conj_physical.out(result, out=out)
    return aten.conj.default(result)


def fft_c2r(
    fname: str,
    out: TensorImpl | None,
    x: TensorImpl,
    n: int | None,
    dim: int,
    norm: str | None,
    forward: bool,
) -> Any:
    """A transform of a Hermitian-symmetric signal (n // 2 + 1 values) to n real values; a
    forward one is the inverse transform of the conjugate. Torch: fft_c2r."""
    x = promote_tensor_fft(x, require_complex=True)
    d = _wrap(dim, len(x._size))
    length = n if n is not None else 2 * (x._size[d] - 1)
    if length < 1:
        raise RuntimeError(f"Invalid number of data points ({length}) specified")
    if n is not None:
        x = resize_fft_input(x, [d], [length // 2 + 1])
    normalization = norm_from_string(norm, forward)
    if forward:
        x = aten.conj.default(x)
    return _c2r_maybe_out(fname, out, x, [d], normalization, length)


def fft_c2c(
    fname: str,
    out: TensorImpl | None,
    x: TensorImpl,
    n: int | None,
    dim: int,
    norm: str | None,
    forward: bool,
) -> Any:
    """A transform of a complex signal. Torch: fft_c2c."""
    d = _wrap(dim, len(x._size))
    length = n if n is not None else x._size[d]
    if length < 1:
        raise RuntimeError(f"Invalid number of data points ({length}) specified")
    if n is not None:
        x = resize_fft_input(x, [d], [length])
    normalization = norm_from_string(norm, forward)
    return _c2c_maybe_out(fname, out, x, [d], normalization, forward)


OneDim = Callable[[TensorImpl, "int | None", int, "str | None", "TensorImpl | None"], Any]

# torch.fft.<name> of one dimension -> how it transforms (torch: fft_fft_symint ...).
_ONE_DIM: Final[dict[str, OneDim]] = {
    "fft": lambda x, n, dim, norm, out: (
        fft_c2c("fft", out, x, n, dim, norm, True)
        if x._dtype.is_complex
        else fft_r2c("fft", out, x, n, dim, norm, True, False)
    ),
    "ifft": lambda x, n, dim, norm, out: (
        fft_c2c("ifft", out, x, n, dim, norm, False)
        if x._dtype.is_complex
        else fft_r2c("ifft", out, x, n, dim, norm, False, False)
    ),
    "rfft": lambda x, n, dim, norm, out: fft_r2c("rfft", out, x, n, dim, norm, True, True),
    "irfft": lambda x, n, dim, norm, out: fft_c2r("irfft", out, x, n, dim, norm, False),
    "hfft": lambda x, n, dim, norm, out: fft_c2r("hfft", out, x, n, dim, norm, True),
    "ihfft": lambda x, n, dim, norm, out: fft_r2c("ihfft", out, x, n, dim, norm, False, True),
}


# --- n-dimensional transforms -----------------------------------------------------------------


def canonicalize_shape_and_dim(
    x: TensorImpl, s: Sequence[int] | None, dim: Sequence[int] | None
) -> tuple[list[int], list[int]]:
    """The signal shape and the (wrapped, unique) dimensions of an n-dimensional transform:
    `dim` defaults to the last len(s) dimensions, or all; a size of -1 in `s` is the
    input's. Torch: canonicalize_fft_shape_and_dim_args (SpectralOps.cpp)."""
    ndim = len(x._size)
    dims: list[int] = []
    if dim is not None:
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x._size[d] if n == -1 else n for n, d in zip(s, dims, strict=True)]
    elif dim is None:
        dims = list(range(ndim))
        shape = list(x._size)
    else:
        shape = [x._size[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def _at_least_one(fname: str, dims: Sequence[int]) -> None:
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")


def _c2r_shape_and_dim(
    fname: str, x: TensorImpl, s: Sequence[int] | None, dim: Sequence[int] | None
) -> tuple[list[int], list[int], int]:
    """Also the output size of the last (Hermitian) dimension, with the input size there
    set to last_dim_size // 2 + 1. Torch: canonicalize_fft_c2r_shape_and_dim_args."""
    shape, dims = canonicalize_shape_and_dim(x, s, dim)
    _at_least_one(fname, dims)
    if s is None or s[-1] == -1:
        last_dim_size = 2 * (x._size[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    if last_dim_size < 1:
        raise RuntimeError(f"Invalid number of data points ({last_dim_size}) specified")
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def fftn_c2c(
    x: TensorImpl,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: TensorImpl | None,
    forward: bool,
) -> Any:
    """Torch: fft_fftn_symint / fft_ifftn_symint (a real input is promoted to complex)."""
    shape, dims = canonicalize_shape_and_dim(x, s, dim)
    x = promote_tensor_fft(x, require_complex=True)
    x = resize_fft_input(x, dims, shape)
    normalization = norm_from_string(norm, forward)
    return _c2c_maybe_out("fftn", out, x, dims, normalization, forward)


def rfftn(
    x: TensorImpl,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: TensorImpl | None,
) -> Any:
    """Torch: fft_rfftn_impl."""
    if x._dtype.is_complex:
        raise RuntimeError(
            f"rfftn expects a real-valued input tensor, but got {x._dtype.scalar_name}"
        )
    shape, dims = canonicalize_shape_and_dim(x, s, dim)
    _at_least_one("rfftn", dims)
    x = resize_fft_input(promote_tensor_fft(x), dims, shape)
    normalization = norm_from_string(norm, True)
    return _r2c_maybe_out("rfftn", out, x, dims, normalization, True)


def irfftn(
    x: TensorImpl,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: TensorImpl | None,
) -> Any:
    """Torch: fft_irfftn_impl."""
    shape, dims, last_dim_size = _c2r_shape_and_dim("irfftn", x, s, dim)
    x = resize_fft_input(promote_tensor_fft(x, require_complex=True), dims, shape)
    normalization = norm_from_string(norm, False)
    return _c2r_maybe_out("irfftn", out, x, dims, normalization, last_dim_size)


def hfftn(
    x: TensorImpl,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: TensorImpl | None,
) -> Any:
    """A forward C2C transform over all but the last dimension, then a C2R transform of the
    conjugate over it. Torch: fft_hfftn_impl."""
    shape, dims, last_dim_size = _c2r_shape_and_dim("hfftn", x, s, dim)
    x = resize_fft_input(promote_tensor_fft(x, require_complex=True), dims, shape)
    normalization = norm_from_string(norm, True)
    tmp = aten._fft_c2c.default(x, dims[:-1], normalization, True) if len(dims) > 1 else x
    tmp = aten.conj.default(tmp)
    return _c2r_maybe_out("hfftn", out, tmp, dims[-1:], normalization, last_dim_size)


def ihfftn(
    x: TensorImpl,
    s: Sequence[int] | None,
    dim: Sequence[int] | None,
    norm: str | None,
    out: TensorImpl | None,
) -> Any:
    """A onesided R2C transform over the last dimension, conjugated, then an inverse C2C
    transform over the others. Torch: fft_ihfftn_impl."""
    shape, dims = canonicalize_shape_and_dim(x, s, dim)
    _at_least_one("ihfftn", dims)
    x = resize_fft_input(promote_tensor_fft(x), dims, shape)
    normalization = norm_from_string(norm, False)
    tmp = aten._fft_r2c.default(x, dims[-1:], normalization, True)
    if len(dims) == 1:
        # torch: no dtype check of its own here; conj_physical.out's is the one.
        return aten.conj.default(tmp) if out is None else aten.conj_physical.out(tmp, out=out)
    tmp = aten._conj_physical.default(tmp)
    return _c2c_maybe_out("ihfftn", out, tmp, dims[:-1], normalization, False)


NDim = Callable[
    [TensorImpl, "Sequence[int] | None", "Sequence[int] | None", "str | None", "TensorImpl | None"],
    Any,
]

# torch.fft.<name> of several dimensions -> how it transforms (torch: fft_fftn_symint,
# fft_fft2_symint ...: the 2-D forms are the n-D ones with dim=[-2, -1]).
_N_DIM: Final[dict[str, NDim]] = {
    "fftn": lambda x, s, dim, norm, out: fftn_c2c(x, s, dim, norm, out, True),
    "ifftn": lambda x, s, dim, norm, out: fftn_c2c(x, s, dim, norm, out, False),
    "rfftn": rfftn,
    "irfftn": irfftn,
    "hfftn": hfftn,
    "ihfftn": ihfftn,
}


# --- the aten entries -------------------------------------------------------------------------


def _register_one_dim(name: str) -> None:
    transform = _ONE_DIM[name]
    functional = defop(
        f"fft_{name}(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor"
    )
    out_form = defop(
        f"fft_{name}.out(Tensor self, SymInt? n=None, int dim=-1, str? norm=None, *, "
        "Tensor(a!) out) -> Tensor(a!)"
    )

    def decomposition(self: TensorImpl, n: int | None, dim: int, norm: str | None) -> Any:
        return transform(self, n, dim, norm, None)

    def out_decomposition(
        self: TensorImpl, n: int | None, dim: int, norm: str | None, *, out: TensorImpl
    ) -> Any:
        return transform(self, n, dim, norm, out)

    decomposition.__name__ = f"fft_{name}_decomposition"
    out_decomposition.__name__ = f"fft_{name}_out_decomposition"
    functional.decomposition(decomposition)
    out_form.decomposition(out_decomposition)


def _register_n_dim(name: str, transform: str, two_dim: bool) -> None:
    sized = (
        "SymInt[1]? s=None, int[1] dim=[-2, -1]"
        if two_dim
        else ("SymInt[1]? s=None, int[1]? dim=None")
    )
    run = _N_DIM[transform]
    functional = defop(f"fft_{name}(Tensor self, {sized}, str? norm=None) -> Tensor")
    out_form = defop(
        f"fft_{name}.out(Tensor self, {sized}, str? norm=None, *, Tensor(a!) out) -> Tensor(a!)"
    )

    def decomposition(
        self: TensorImpl, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None
    ) -> Any:
        return run(self, s, dim, norm, None)

    def out_decomposition(
        self: TensorImpl,
        s: Sequence[int] | None,
        dim: Sequence[int] | None,
        norm: str | None,
        *,
        out: TensorImpl,
    ) -> Any:
        return run(self, s, dim, norm, out)

    decomposition.__name__ = f"fft_{name}_decomposition"
    out_decomposition.__name__ = f"fft_{name}_out_decomposition"
    functional.decomposition(decomposition)
    out_form.decomposition(out_decomposition)


for _name in _ONE_DIM:
    _register_one_dim(_name)
for _name in _N_DIM:
    _register_n_dim(_name, _name, two_dim=False)
    _register_n_dim(_name[:-1] + "2", _name, two_dim=True)  # fft2 is fftn over dim=[-2, -1]


# --- fftshift, ifftshift ----------------------------------------------------------------------


def _all_dims(x: TensorImpl, dim: Sequence[int] | None) -> list[int]:
    """Torch: default_alldims (SpectralOps.cpp): `dim` wrapped, or every dimension."""
    if dim is None:
        return list(range(len(x._size)))
    return [_wrap(d, len(x._size)) for d in dim]


fft_fftshift = defop("fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor")


@fft_fftshift.decomposition
def fft_fftshift_decomposition(self: TensorImpl, dim: list[int] | None) -> Any:
    """Torch: fft_fftshift: a roll by half of each size (rounded down), so that the zero
    frequency is in the middle."""
    dims = _all_dims(self, dim)
    return aten.roll.default(self, [self._size[d] // 2 for d in dims], dims)


fft_ifftshift = defop("fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor")


@fft_ifftshift.decomposition
def fft_ifftshift_decomposition(self: TensorImpl, dim: list[int] | None) -> Any:
    """Torch: fft_ifftshift: the inverse roll, by half of each size rounded up."""
    dims = _all_dims(self, dim)
    return aten.roll.default(self, [(self._size[d] + 1) // 2 for d in dims], dims)
