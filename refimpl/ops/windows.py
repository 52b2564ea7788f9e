"""The window factories as aten ops: hann, hamming, blackman, bartlett and kaiser windows.

Torch: the window functions of aten/src/ATen/native/TensorFactories.cpp (all
CompositeExplicitAutograd): window_function_checks, an empty window for length 0 and ones for
length 1, a periodic window computed one point longer and narrowed, the values made by torch's
own sequence of aten calls (so they round as torch's do wherever refimpl's ops do), and
kaiser_window_kernel in native/cpu/UnaryOpsKernel.cpp for the Kaiser window. The out= forms
are the ones torchgen writes over the functional ops (the functional op with `out`'s options,
resize_out_helper, then copy_arg).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base import layout as layouts
from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.layout import layout as Layout
from refimpl._base.promotion import get_default_dtype
from refimpl.core.backend import Array, ArrayNamespace, Backend
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, tensor_over, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._outputs import resize_output
from refimpl.ops._ranges import _fma_in
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

CEA = DispatchKey.CompositeExplicitAutograd
aten: Final = namespace("aten")

_OPTIONS: Final = (
    "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
)

# --- window_function_checks ------------------------------------------------------------------

# The names c10 prints for each layout (operator<< of c10::Layout).
_LAYOUT_NAMES: Final[dict[Layout, str]] = {
    layouts.strided: "Strided",
    layouts.sparse_coo: "Sparse",
    layouts.sparse_csr: "SparseCsr",
    layouts.sparse_csc: "SparseCsc",
    layouts.sparse_bsr: "SparseBsr",
    layouts.sparse_bsc: "SparseBsc",
    layouts._mkldnn: "Mkldnn",
    layouts.jagged: "Jagged",
}


def _given(text: str, given: bool) -> str:
    return text if given else f"{text} (default)"


def _options_text(
    dtype: DType | None, layout: Layout | None, dev: device | None, pin_memory: bool | None
) -> str:
    """TensorOptions as c10 prints it: an unset option shows its default, marked "(default)".

    Torch: operator<< for TensorOptions in c10/core/TensorOptions.cpp.
    """
    dtype_text = type_meta_name(get_default_dtype() if dtype is None else dtype)
    layout_text = _LAYOUT_NAMES[layouts.strided if layout is None else layout]
    pinned = "true" if pin_memory else "false"
    return (
        f"TensorOptions(dtype={_given(dtype_text, dtype is not None)}, "
        f"device={_given(str(dev or 'cpu'), dev is not None)}, "
        f"layout={_given(layout_text, layout is not None)}, "
        "requires_grad=false (default), "
        f"pinned_memory={_given(pinned, pin_memory is not None)}, memory_format=(nullopt))"
    )


def _check(
    name: str,
    window_length: int,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> None:
    """Torch: window_function_checks in TensorFactories.cpp (only COO counts as sparse; a
    complex dtype passes, and fails later in arange)."""
    if layout is layouts.sparse_coo:
        raise RuntimeError(
            f"{name} is not implemented for sparse types, got: "
            f"{_options_text(dtype, layout, dev, pin_memory)}"
        )
    target = get_default_dtype() if dtype is None else dtype
    if not (target.is_floating_point or target.is_complex):
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: "
            f"{_options_text(dtype, layout, dev, pin_memory)}"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )


def _trivial(
    window_length: int,
    dtype: DType,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """The window of length 0 (empty) or 1 (ones), or None. Torch: the first lines of each
    window function (at::empty({0}), native::ones({1}))."""
    options = {"dtype": dtype, "layout": layout, "device": dev, "pin_memory": pin_memory}
    if window_length == 0:
        return aten.empty.memory_format([0], **options)
    if window_length == 1:
        return aten.ones.default([1], **options)
    return None


def _periodic_result(window: Any, window_length: int, periodic: bool) -> Any:
    # torch: `periodic ? window.narrow(0, 0, window_length - 1) : window`, where
    # window_length already counts the extra point: a view of the longer window.
    return aten.narrow.default(window, 0, 0, window_length - 1) if periodic else window


# --- hamming, hann -----------------------------------------------------------------------------


def _hamming(
    name: str,
    window_length: int,
    periodic: bool,
    alpha: float,
    beta: float,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: hamming_window(window_length, periodic, alpha, beta, ...) in TensorFactories.cpp:
    arange(n).mul_(2 pi / (n - 1)).cos_().mul_(-beta).add_(alpha)."""
    target = get_default_dtype() if dtype is None else dtype
    _check(name, window_length, target, layout, dev, pin_memory)
    trivial = _trivial(window_length, target, layout, dev, pin_memory)
    if trivial is not None:
        return trivial
    n = window_length + 1 if periodic else window_length
    window = aten.arange.default(n, dtype=target, layout=layout, device=dev, pin_memory=pin_memory)
    aten.mul_.Scalar(window, math.pi * 2.0 / float(n - 1))
    aten.cos_.default(window)
    aten.mul_.Scalar(window, -beta)
    aten.add_.Scalar(window, alpha)
    return _periodic_result(window, n, periodic)


def _hann(
    window_length: int,
    periodic: bool,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: hann_window checks its options as given (an unset dtype prints as the default),
    then is hamming_window with alpha = beta = 0.5. On the meta device torch runs another
    kernel (`_hann_meta`)."""
    if dev is not None and dev.type == "meta":
        return _hann_meta(window_length, periodic, dtype, layout, pin_memory)
    _check("hann_window", window_length, dtype, layout, dev, pin_memory)
    return _hamming(
        "hamming_window", window_length, periodic, 0.5, 0.5, dtype, layout, dev, pin_memory
    )


def _hann_meta(
    window_length: int,
    periodic: bool,
    dtype: DType | None,
    layout: Layout | None,
    pin_memory: bool | None,
) -> Any:
    """hann_window on the meta device. Torch: the Python decomposition hann_window_periodic
    (torch/_decomp/decompositions.py) is hann_window's Meta kernel: no dtype or length check
    of its own, so any dtype gives a window, and a negative length fails in arange
    (symmetric) or narrow (periodic). refimpl's dispatcher picks a factory's kernel by its
    tensor arguments (none here), so the CEA kernel branches here."""
    if layout is layouts.sparse_coo:
        # torch: a sparse layout dispatches to SparseMeta, which runs the C++ kernel.
        _check("hann_window", window_length, dtype, layout, device("meta"), pin_memory)
    target = get_default_dtype() if dtype is None else dtype
    meta = device("meta")
    if window_length in (0, 1):
        return tensor_over(None, (window_length,), (1,), target, meta, None)
    n = window_length + 1 if periodic else window_length
    positions = aten.arange.default(n, device=meta)
    if periodic:
        aten.narrow.default(positions, 0, 0, window_length)
    return tensor_over(None, (window_length,), (1,), target, meta, None)


# --- blackman, bartlett ------------------------------------------------------------------------


def _blackman(
    window_length: int,
    periodic: bool,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: blackman_window: w = arange(n).mul_(pi / (n - 1)), then
    w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42."""
    target = get_default_dtype() if dtype is None else dtype
    _check("blackman_window", window_length, target, layout, dev, pin_memory)
    trivial = _trivial(window_length, target, layout, dev, pin_memory)
    if trivial is not None:
        return trivial
    n = window_length + 1 if periodic else window_length
    window = aten.arange.default(n, dtype=target, layout=layout, device=dev, pin_memory=pin_memory)
    aten.mul_.Scalar(window, math.pi / float(n - 1))
    fourth = aten.mul_.Scalar(aten.cos_.default(aten.mul.Scalar(window, 4)), 0.08)
    second = aten.mul_.Scalar(aten.cos_.default(aten.mul.Scalar(window, 2)), 0.5)
    window = aten.add.Scalar(aten.sub.Tensor(fourth, second), 0.42)
    return _periodic_result(window, n, periodic)


def _bartlett(
    window_length: int,
    periodic: bool,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: bartlett_window: w = arange(n).mul_(2 / (n - 1)), and its second half (from
    ((n - 1) >> 1) + 1 on) mapped in place to 2 - w by .mul_(-1).add_(2)."""
    target = get_default_dtype() if dtype is None else dtype
    _check("bartlett_window", window_length, target, layout, dev, pin_memory)
    trivial = _trivial(window_length, target, layout, dev, pin_memory)
    if trivial is not None:
        return trivial
    n = window_length + 1 if periodic else window_length
    window = aten.arange.default(n, dtype=target, layout=layout, device=dev, pin_memory=pin_memory)
    aten.mul_.Scalar(window, 2.0 / float(n - 1))
    first_half = ((n - 1) >> 1) + 1
    second_half = aten.narrow.default(window, 0, first_half, n - first_half)
    aten.add_.Scalar(aten.mul_.Scalar(second_half, -1), 2)
    return _periodic_result(window, n, periodic)


# --- kaiser ------------------------------------------------------------------------------------
# Note [Kaiser window rounding]
# torch's kaiser_window_kernel evaluates, per element a of arange(n) and in the opmath type
# (float for float16, bfloat16 and float; double for double),
#   calc_i0(beta * sqrt(|1 - pow((a - alpha) / alpha, 2)|)) / calc_i0(beta),
# alpha = (n - 1) / 2, with calc_i0 the Cephes Chebyshev series of native/Math.h. The scalar
# loop is compiled with -mfma (the AVX2 build): pow(q, 2) becomes q * q and 1 - q * q one
# fused multiply-add, as does `x * b1 - b2` in chbevl; std::exp is the C library's. refimpl
# evaluates the same steps on float64 arrays, rounding to float after each one for float
# (the double result of + - * / sqrt rounds to float as the float operation would), with the
# backend's `libm_exp` where it has one: then the values are torch's bit for bit.

# Chebyshev coefficients of exp(-x) I0(x) on [0, 8] (A) and of exp(-x) sqrt(x) I0(x) on
# [8, inf) (B). Torch: chebyshev_coefficients_i0e_A / _B in native/Math.h (Cephes).
# fmt: off
_I0_A: Final = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)
# fmt: on
# fmt: off
_I0_B: Final = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
# fmt: on


# glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, from ARM's optimized-routines): x N / ln 2
# = k + r, exp(x) = 2^(k/N) 2^(r/N) with a 2^(j/N) table (N = 32) and a cubic, all in double,
# rounded once to float. It is not correctly rounded (0.502 ulp): rounding exp's double value
# to float differs from it on about 1 in 1,000 arguments, so refimpl evaluates glibc's steps.
_EXPF_INV_LN2_N: Final = float.fromhex("0x1.71547652b82fep+0") * 32
_EXPF_SHIFT: Final = float.fromhex("0x1.8p+52")
_EXPF_POLY: Final = (
    float.fromhex("0x1.c6af84b912394p-5") / 32**3,
    float.fromhex("0x1.ebfce50fac4f3p-3") / 32**2,
    float.fromhex("0x1.62e42ff0c52d6p-1") / 32,
)
# 2^(j/32), j = 0 .. 31, rounded to double (glibc's __exp2f_data.tab without its exponent
# offsets).
# fmt: off
_EXPF_TABLE: Final = tuple(
    float.fromhex(h)
    for h in (
        "0x1.0000000000000p+0", "0x1.059b0d3158574p+0", "0x1.0b5586cf9890fp+0",
        "0x1.11301d0125b51p+0", "0x1.172b83c7d517bp+0", "0x1.1d4873168b9aap+0",
        "0x1.2387a6e756238p+0", "0x1.29e9df51fdee1p+0", "0x1.306fe0a31b715p+0",
        "0x1.371a7373aa9cbp+0", "0x1.3dea64c123422p+0", "0x1.44e086061892dp+0",
        "0x1.4bfdad5362a27p+0", "0x1.5342b569d4f82p+0", "0x1.5ab07dd485429p+0",
        "0x1.6247eb03a5585p+0", "0x1.6a09e667f3bcdp+0", "0x1.71f75e8ec5f74p+0",
        "0x1.7a11473eb0187p+0", "0x1.82589994cce13p+0", "0x1.8ace5422aa0dbp+0",
        "0x1.93737b0cdc5e5p+0", "0x1.9c49182a3f090p+0", "0x1.a5503b23e255dp+0",
        "0x1.ae89f995ad3adp+0", "0x1.b7f76f2fb5e47p+0", "0x1.c199bdd85529cp+0",
        "0x1.cb720dcef9069p+0", "0x1.d5818dcfba487p+0", "0x1.dfc97337b9b5fp+0",
        "0x1.ea4afa2a490dap+0", "0x1.f50765b6e4540p+0",
    )
)
# fmt: on
_EXPF_OVERFLOW: Final = float.fromhex("0x1.62e42ep6")  # above it, expf(x) is inf


def _expf(xp: ArrayNamespace, x: Array) -> Array:
    """glibc's expf of float values held in a float64 array, rounded to float. Torch: the
    std::exp(float) of torch's scalar CPU loops."""
    usable = xp.isfinite(x) & (x <= _EXPF_OVERFLOW)
    xd = xp.where(usable, x, xp.zeros_like(x))
    z = _EXPF_INV_LN2_N * xd
    k = (z + _EXPF_SHIFT) - _EXPF_SHIFT  # z rounded to an integer, ties to even
    r = z - k
    table = xp.asarray(_EXPF_TABLE, dtype=xp.float64)
    j = xp.astype(xp.remainder(k, 32.0), xp.int64)
    scale = xp.take(table, j) * xp.pow(xp.asarray(2.0, dtype=xp.float64), xp.floor(k / 32.0))
    c0, c1, c2 = _EXPF_POLY
    y = ((c0 * r + c1) * (r * r) + (c2 * r + 1.0)) * scale
    # glibc: inf above the overflow bound, 0 at -inf, NaN for NaN.
    special = xp.where(x > _EXPF_OVERFLOW, xp.full_like(x, math.inf), x + x)
    special = xp.where(x == -math.inf, xp.zeros_like(x), special)
    result = xp.where(usable, y, special)
    return xp.astype(xp.astype(result, xp.float32), xp.float64)


class _Opmath:
    """Arithmetic in torch's opmath type on float64 arrays: float64 itself, or float, each
    result rounded to float. See Note [Kaiser window rounding]."""

    def __init__(self, xp: ArrayNamespace, backend: Backend, opmath: DType) -> None:
        self.xp = xp
        self.opmath = opmath
        self.backend = backend

    def round(self, x: Array) -> Array:
        xp = self.xp
        if self.opmath is dt.float64:
            return x
        return xp.astype(xp.astype(x, xp.float32), xp.float64)

    def constant(self, value: float, like: Array) -> Array:
        return self.round(self.xp.full(like.shape, value, dtype=self.xp.float64))

    def fma(self, a: Array, b: Array, c: Array) -> Array:
        return _fma_in(self.xp, self.opmath, a, b, c)

    def exp(self, x: Array) -> Array:
        # torch: std::exp, the C library's: exp for double, expf for float (see _expf).
        if self.opmath is dt.float32:
            return _expf(self.xp, x)
        libm = self.backend.extensions.get("libm_exp")
        return libm(x) if libm is not None else self.xp.exp(x)

    def chbevl(self, x: Array, coefficients: tuple[float, ...]) -> Array:
        """Torch: chbevl in native/Math.h (Clenshaw's recurrence), `x * b1 - b2` fused."""
        b0 = self.constant(coefficients[0], x)
        b1 = self.constant(0.0, x)
        b2 = b1
        for c in coefficients[1:]:
            b2, b1 = b1, b0
            b0 = self.round(self.fma(x, b1, -b2) + self.constant(c, x))
        return self.round(0.5 * (b0 - b2))

    def i0(self, x: Array) -> Array:
        """Torch: calc_i0 in native/Math.h."""
        xp = self.xp
        x = xp.abs(x)
        small = self.round(self.exp(x) * self.chbevl(self.round(self.round(x / 2.0) - 2.0), _I0_A))
        safe = xp.where(x > 8.0, x, xp.ones_like(x))
        reduced = self.round(self.round(32.0 / safe) - 2.0)
        large = self.round(
            self.round(self.exp(safe) * self.chbevl(reduced, _I0_B)) / self.round(xp.sqrt(safe))
        )
        return xp.where(x <= 8.0, small, large)


def _kaiser_values(backend: Backend, positions: Array, n: int, beta: float, dtype: DType) -> Array:
    """The Kaiser window at `positions` (arange(n) in `dtype`). Torch: kaiser_window_kernel in
    native/cpu/UnaryOpsKernel.cpp; see Note [Kaiser window rounding]."""
    xp = backend.xp
    opmath = dt.float64 if dtype is dt.float64 else dt.float32
    ops = _Opmath(xp, backend, opmath)
    a = xp.astype(positions, xp.float64)
    alpha = ops.constant((n - 1) / 2.0, a)
    beta_ = ops.constant(beta, a)
    q = ops.round(ops.round(a - alpha) / alpha)
    # torch: 1 - pow(q, 2) is one fused multiply-add, 1 - q * q rounded once.
    inner = xp.abs(ops.fma(-q, q, ops.constant(1.0, a)))
    values = ops.round(ops.i0(ops.round(beta_ * ops.round(xp.sqrt(inner)))) / ops.i0(beta_))
    return xp.astype(values, backend_dtype(backend, dtype))


def _kaiser(
    window_length: int,
    periodic: bool,
    beta: float,
    dtype: DType | None,
    layout: Layout | None,
    dev: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: kaiser_window(window_length, periodic, beta, ...) in TensorFactories.cpp: the
    checks; on the meta device at once an empty window of `window_length`; then arange(n) and
    the kernel into a new tensor of n elements."""
    target = get_default_dtype() if dtype is None else dtype
    _check("kaiser_window", window_length, target, layout, dev, pin_memory)
    options = {"dtype": target, "layout": layout, "device": dev, "pin_memory": pin_memory}
    if dev is not None and dev.type == "meta":
        return aten.empty.memory_format([window_length], **options)
    trivial = _trivial(window_length, target, layout, dev, pin_memory)
    if trivial is not None:
        return trivial
    n = window_length + 1 if periodic else window_length
    initial = aten.arange.default(n, **options)
    window = aten.empty.memory_format([n], **options)
    backend = window._storage.backend
    if backend is not None:
        write_array(window, _kaiser_values(backend, array_of(initial), n, beta, target))
    return _periodic_result(window, n, periodic)


# --- the overloads ---------------------------------------------------------------------------
# Each window is one computation taking (window_length, periodic[, its shape parameters]); its
# overloads pass the leading ones and torch's defaults for the rest (TensorFactories.cpp:
# periodic True, hamming's alpha 0.54 and beta 0.46, kaiser's beta 12).


def _hamming_window(
    window_length: int, periodic: bool, alpha: float, beta: float, *options: Any
) -> Any:
    return _hamming("hamming_window", window_length, periodic, alpha, beta, *options)


# window -> (its computation, its parameters after window_length with torch's defaults)
_WINDOWS: Final[dict[str, tuple[Callable[..., Any], tuple[tuple[str, str, Any], ...]]]] = {
    "hann_window": (_hann, (("bool", "periodic", True),)),
    "hamming_window": (
        _hamming_window,
        (("bool", "periodic", True), ("float", "alpha", 0.54), ("float", "beta", 0.46)),
    ),
    "blackman_window": (_blackman, (("bool", "periodic", True),)),
    "bartlett_window": (_bartlett, (("bool", "periodic", True),)),
    "kaiser_window": (_kaiser, (("bool", "periodic", True), ("float", "beta", 12.0))),
}

# overload -> how many of its window's parameters it takes (the rest take their defaults).
_OVERLOADS: Final = {
    "hann_window": 0,
    "hann_window.periodic": 1,
    "hamming_window": 0,
    "hamming_window.periodic": 1,
    "hamming_window.periodic_alpha": 2,
    "hamming_window.periodic_alpha_beta": 3,
    "blackman_window": 0,
    "blackman_window.periodic": 1,
    "bartlett_window": 0,
    "bartlett_window.periodic": 1,
    "kaiser_window": 0,
    "kaiser_window.periodic": 1,
    "kaiser_window.beta": 2,
}


def _register(qualified: str, taken: int) -> None:
    """The functional overload `qualified` and its out= form.

    Torch: the out= forms are generated by torchgen (autogen) over the functional overload:
    called with `out`'s dtype, layout and device, then resize_out_helper (resize_output, with
    its warning) and copy_arg (out.copy_(result)).
    """
    name, _, overload = qualified.partition(".")
    compute, parameters = _WINDOWS[name]
    typed = "".join(f", {kind} {parameter}" for kind, parameter, _ in parameters[:taken])
    defaults = tuple(default for _, _, default in parameters[taken:])
    functional = defop(f"{qualified}(int window_length{typed}, {_OPTIONS}) -> Tensor")
    out_name = f"{name}.{overload}_out" if overload else f"{name}.out"
    out_form = defop(f"{out_name}(int window_length{typed}, *, Tensor(a!) out) -> Tensor(a!)")

    def kernel(
        window_length: int,
        *given: Any,
        dtype: DType | None,
        layout: Layout | None,
        device: device | None,
        pin_memory: bool | None,
    ) -> Any:
        return compute(window_length, *given, *defaults, dtype, layout, device, pin_memory)

    def out_kernel(window_length: int, *given: Any, out: TensorImpl) -> Any:
        result = functional.op(
            window_length,
            *given,
            dtype=out._dtype,
            layout=layouts.strided,
            device=out._storage.device,
            pin_memory=None,
        )
        resize_output(out, result._size)
        return aten.copy_.default(out, result)

    kernel.__name__ = qualified.replace(".", "_") + "_kernel"
    kernel.__doc__ = f"Torch: {qualified} (TensorFactories.cpp)."
    out_kernel.__name__ = out_name.replace(".", "_") + "_kernel"
    out_kernel.__doc__ = f"Torch: the generated {out_name}."
    functional.kernel(CEA)(kernel)
    out_form.kernel(CEA)(out_kernel)


for _qualified, _taken in _OVERLOADS.items():
    _register(_qualified, _taken)
