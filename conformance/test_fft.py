"""torch.fft, stft and istft against torch: what the OpInfos leave out.

Table-driven: each case runs the same call with `torch` and with `refimpl`; the outcome must
match: the exception (type and message), or the result's dtype, shape, strides and values.
Covered: every torch.fft function over real, integer and complex inputs, contiguous and
permuted, with `n` / `s` trimming and zero-padding, every `dim` form and norm mode; the out=
forms (complex / real checks, other dtypes copied into, resizing); the raw kernels
_fft_r2c, _fft_c2r, _fft_c2c and their out= forms; fftfreq / rfftfreq (d, dtypes, out=,
requires_grad); fftshift / ifftshift; meta tensors (torch's meta layout, see Note [FFT
output layout] in refimpl/ops/_fft_layout.py); stft / istft argument checks, pad modes,
windows and warnings; gradients through the kernels; and the aten calls each function
makes, seen by a TorchDispatchMode.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
import refimpl.utils._python_dispatch
from conformance._oracle import STORED_DTYPES, outcome

Case = Callable[[Any], Any]

_REAL = [
    0.5,
    -1.0,
    2.0,
    3.5,
    -0.25,
    1.0,
    4.0,
    -2.0,
    0.0,
    1.5,
    -3.0,
    2.5,
    0.75,
    -1.5,
    3.0,
    -0.5,
    2.25,
    1.25,
    -2.75,
    0.25,
    1.75,
    -0.75,
    2.75,
    -1.25,
]
_COMPLEX = [complex(a, b) for a, b in zip(_REAL, reversed(_REAL), strict=True)]


def _real(lib: Any, dtype: str = "float32", shape: tuple[int, ...] = (4, 6)) -> Any:
    return lib.tensor(_REAL, dtype=getattr(lib, dtype)).reshape(shape)


def _complex(lib: Any, dtype: str = "complex64", shape: tuple[int, ...] = (4, 6)) -> Any:
    return lib.tensor(_COMPLEX, dtype=getattr(lib, dtype)).reshape(shape)


def _ints(lib: Any) -> Any:
    return lib.arange(24).reshape(4, 6)


def _cube(lib: Any, complex_: bool = False) -> Any:
    base = _complex(lib, "complex128", (24,)) if complex_ else _real(lib, "float64", (24,))
    return lib.cat([base, base * 2, base - 1]).reshape(3, 4, 6)


def _values(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return np.asarray(t.detach().resolve_conj().numpy())


def _dtype_name(t: Any) -> str:
    return str(t.dtype).rpartition(".")[2]


def _check(case: Case, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    expected, expected_error = outcome(case, torch)
    actual, actual_error = outcome(case, refimpl)
    if expected_error is not None or actual_error is not None:
        assert actual_error is not None, f"refimpl returned, torch raised {expected_error!r}"
        assert expected_error is not None, f"refimpl raised {actual_error!r}"
        assert type(actual_error).__name__ == type(expected_error).__name__
        assert str(actual_error) == str(expected_error)
        return
    _compare(expected, actual, rtol, atol)


def _compare(expected: Any, actual: Any, rtol: float, atol: float) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _compare(e, a, rtol, atol)
        return
    assert _dtype_name(actual) == _dtype_name(expected)
    assert tuple(actual.shape) == tuple(expected.shape)
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
    else:
        np.testing.assert_allclose(_values(actual), _values(expected), rtol=rtol, atol=atol)
    if expected.numel() > 1:
        assert tuple(actual.stride()) == tuple(expected.stride())


# --- one-dimensional transforms -------------------------------------------------------------

_ONE_DIM_REAL = ["fft", "ifft", "rfft", "ihfft"]
_ONE_DIM_COMPLEX = ["fft", "ifft", "irfft", "hfft"]
_INPUTS: dict[str, Case] = {
    "real": lambda lib: _real(lib),
    "double_t": lambda lib: _real(lib, "float64").t(),
    "ints": _ints,
    "complex": lambda lib: _complex(lib),
    "complex_t": lambda lib: _complex(lib, "complex128").t(),
    "slice": lambda lib: _real(lib, "float64")[:, ::2],
}
_ONE_DIM_ARGS: list[dict[str, Any]] = [
    {},
    {"n": 3},
    {"n": 9, "dim": 0},
    {"n": 1, "norm": "forward"},
    {"dim": 0, "norm": "ortho"},
    {"dim": -1, "norm": "backward"},
    {"n": 0},
    {"dim": 2},
    {"norm": "bad"},
]


@pytest.mark.parametrize("kwargs", _ONE_DIM_ARGS, ids=str)
@pytest.mark.parametrize("source", list(_INPUTS))
@pytest.mark.parametrize("name", sorted(set(_ONE_DIM_REAL + _ONE_DIM_COMPLEX)))
def test_one_dim(name: str, source: str, kwargs: dict[str, Any]) -> None:
    _check(lambda lib: getattr(lib.fft, name)(_INPUTS[source](lib), **kwargs))


# --- n-dimensional transforms ----------------------------------------------------------------

_N_DIM = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
_N_DIM_ARGS: list[dict[str, Any]] = [
    {},
    {"dim": (0, 2)},
    {"dim": (2, 0)},
    {"s": (5, 3), "dim": (0, 2), "norm": "forward"},
    {"s": (-1, 8)},
    {"s": (4,), "norm": "ortho"},
    {"dim": (1,)},
    {"dim": ()},
    {"dim": (0, 0)},
    {"s": (2, 2), "dim": (0,)},
    {"s": (1, 2, 3, 4)},
    {"s": (0, 2)},
    {"dim": (3,)},
]
_N_INPUTS: dict[str, Case] = {
    "real": lambda lib: _cube(lib),
    "complex": lambda lib: _cube(lib, True),
    "permuted": lambda lib: _cube(lib).permute(2, 0, 1),
    "complex_permuted": lambda lib: _cube(lib, True).permute(1, 2, 0),
}


@pytest.mark.parametrize("kwargs", _N_DIM_ARGS, ids=str)
@pytest.mark.parametrize("source", list(_N_INPUTS))
@pytest.mark.parametrize("name", _N_DIM)
def test_n_dim(name: str, source: str, kwargs: dict[str, Any]) -> None:
    _check(lambda lib: getattr(lib.fft, name)(_N_INPUTS[source](lib), **kwargs))


@pytest.mark.parametrize("source", list(_N_INPUTS))
@pytest.mark.parametrize("name", [n[:-1] + "2" for n in _N_DIM])
def test_two_dim(name: str, source: str) -> None:
    _check(lambda lib: getattr(lib.fft, name)(_N_INPUTS[source](lib)))
    _check(lambda lib: getattr(lib.fft, name)(_N_INPUTS[source](lib), s=(3, 5), dim=(0, 1)))


def test_zero_dim_and_half() -> None:
    _check(lambda lib: lib.fft.fft(lib.tensor(1.0)))
    _check(lambda lib: lib.fft.fftn(lib.tensor(1.0)))
    _check(lambda lib: lib.fft.rfftn(lib.tensor(1.0)))
    if "float16" in STORED_DTYPES:
        _check(lambda lib: lib.fft.fft(_real(lib).to(lib.float16)))
        _check(lambda lib: lib.fft.fftn(_real(lib).to(lib.float16), norm="bad"))
    _check(lambda lib: lib.fft.irfft(_complex(lib)[:, :1]))


# --- out= -------------------------------------------------------------------------------------

_OUT_DTYPES = ["float32", "float64", "complex64", "complex128", "int64"]


@pytest.mark.parametrize("out_dtype", _OUT_DTYPES)
@pytest.mark.parametrize(
    ("name", "source"),
    [(n, "real") for n in _ONE_DIM_REAL]
    + [(n, "complex") for n in _ONE_DIM_COMPLEX]
    + [(n, "real") for n in ("fftn", "rfftn", "ihfftn", "fft2", "rfft2", "ihfft2")]
    + [(n, "complex") for n in ("fftn", "ifftn", "irfftn", "hfftn", "irfft2", "hfft2")],
)
def test_out(name: str, source: str, out_dtype: str) -> None:
    def case(lib: Any) -> Any:
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = getattr(lib.fft, name)(_INPUTS[source](lib), out=out)
        assert result is out
        return out

    _check(case)


def test_out_resized_with_warning() -> None:
    for lib in (torch, refimpl):
        out = lib.empty(3, dtype=lib.complex64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.fft.fft(_real(lib), out=out)
        assert any("was resized" in str(w.message) for w in caught)
        assert tuple(out.shape) == (4, 6)


# --- the kernels ------------------------------------------------------------------------------

_KERNELS: list[tuple[str, Case]] = [
    ("r2c", lambda lib: lib.ops.aten._fft_r2c.default(_real(lib), [1], 0, True)),
    ("r2c_full", lambda lib: lib.ops.aten._fft_r2c.default(_cube(lib), [0, 2], 1, False)),
    (
        "r2c_t",
        lambda lib: lib.ops.aten._fft_r2c.default(_cube(lib).transpose(0, 2), [2, 0], 2, True),
    ),
    ("r2c_int", lambda lib: lib.ops.aten._fft_r2c.default(_ints(lib), [1], 0, True)),
    ("r2c_none", lambda lib: lib.ops.aten._fft_r2c.default(_real(lib), [], 0, True)),
    ("c2r", lambda lib: lib.ops.aten._fft_c2r.default(_complex(lib), [1], 2, 10)),
    ("c2r_odd", lambda lib: lib.ops.aten._fft_c2r.default(_complex(lib), [0, 1], 0, 11)),
    (
        "c2r_t",
        lambda lib: lib.ops.aten._fft_c2r.default(_cube(lib, True).permute(2, 0, 1), [0, 2], 1, 6),
    ),
    ("c2r_real", lambda lib: lib.ops.aten._fft_c2r.default(_real(lib), [1], 2, 10)),
    ("c2c", lambda lib: lib.ops.aten._fft_c2c.default(_complex(lib), [0], 0, True)),
    ("c2c_inv", lambda lib: lib.ops.aten._fft_c2c.default(_cube(lib, True), [2, 0], 2, False)),
    ("c2c_t", lambda lib: lib.ops.aten._fft_c2c.default(_complex(lib).t(), [0], 1, True)),
    ("c2c_none", lambda lib: lib.ops.aten._fft_c2c.default(_complex(lib), [], 0, True)),
    ("c2c_real", lambda lib: lib.ops.aten._fft_c2c.default(_real(lib), [0], 0, True)),
]


_KERNELS += [
    # The meta functions' dtype checks are bare torch._check calls.
    (
        "r2c_meta_int",
        lambda lib: lib.ops.aten._fft_r2c.default(
            lib.ones(4, dtype=lib.int32, device="meta"), [0], 0, True
        ),
    ),
    (
        "c2c_meta_real",
        lambda lib: lib.ops.aten._fft_c2c.default(lib.ones(4, device="meta"), [0], 0, True),
    ),
    (
        "c2r_meta_real",
        lambda lib: lib.ops.aten._fft_c2r.default(lib.ones(4, device="meta"), [0], 0, 6),
    ),
    # Any normalization but 0 (none) and 1 (by_root_n) scales by 1/n.
    ("c2r_norm_5", lambda lib: lib.ops.aten._fft_c2r.default(_complex(lib), [1], 5, 10)),
    ("c2c_norm_minus_1", lambda lib: lib.ops.aten._fft_c2c.default(_complex(lib), [0], -1, False)),
    # No elements: _exec_fft's reshape(-1, *signal) is ambiguous for an empty signal; an
    # empty batch fails in MKL on the CPU, and passes on meta.
    ("empty_batch", lambda lib: lib.fft.fft(lib.ones(0, 4), dim=1)),
    ("empty_batch_r2c", lambda lib: lib.fft.rfft(lib.ones(0, 4))),
    ("empty_batch_c2r", lambda lib: lib.fft.irfft(lib.ones(0, 4, dtype=lib.complex64))),
    ("empty_batch_meta", lambda lib: lib.fft.fft(lib.ones(0, 4, device="meta"), dim=1)),
    (
        "empty_signal",
        lambda lib: lib.ops.aten._fft_c2c.default(
            lib.ones(3, 0, 4, dtype=lib.complex64), [2, 1], 0, True
        ),
    ),
    (
        "empty_signal_r2c_meta",
        lambda lib: lib.ops.aten._fft_r2c.default(
            lib.ones(3, 0, 4, device="meta"), [1, 2], 0, True
        ),
    ),
    (
        "empty_signal_c2r_meta",
        lambda lib: lib.ops.aten._fft_c2r.default(
            lib.ones(3, 0, 4, dtype=lib.complex64, device="meta"), [0, 1], 0, 6
        ),
    ),
    (
        "empty_no_dims",
        lambda lib: lib.ops.aten._fft_c2c.default(lib.ones(0, 4, dtype=lib.complex64), [], 0, True),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in _KERNELS], ids=[n for n, _ in _KERNELS])
def test_kernels(case: Case) -> None:
    _check(case)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("out_dtype", _OUT_DTYPES)
def test_kernel_out(out_dtype: str, device: str) -> None:
    # On meta, torch's meta functions (out_wrapper) refuse casts to a less general kind.
    def out_of(lib: Any) -> Any:
        return lib.empty(0, dtype=getattr(lib, out_dtype), device=device)

    def real(lib: Any) -> Any:
        return _real(lib).to(device)

    def complex_(lib: Any) -> Any:
        return _complex(lib).to(device)

    _check(lambda lib: lib.ops.aten._fft_r2c.out(real(lib), [1], 0, False, out=out_of(lib)))
    _check(lambda lib: lib.ops.aten._fft_r2c.out(real(lib), [1], 0, True, out=out_of(lib)))
    _check(lambda lib: lib.ops.aten._fft_c2r.out(complex_(lib), [1], 0, 10, out=out_of(lib)))
    _check(lambda lib: lib.ops.aten._fft_c2c.out(complex_(lib), [1], 0, True, out=out_of(lib)))


# --- meta tensors: torch's meta layout (the cuFFT one) ------------------------------------------

_META: list[tuple[str, Case]] = [
    ("rfft", lambda lib: lib.fft.rfft(_real(lib).t())),
    ("rfftn", lambda lib: lib.fft.rfftn(_cube(lib))),
    ("rfftn_perm", lambda lib: lib.fft.rfftn(_cube(lib).permute(2, 0, 1), dim=(1, 2))),
    ("rfft2_full", lambda lib: lib.ops.aten._fft_r2c.default(_cube(lib), [0, 1, 2], 0, False)),
    ("r2c_first_dims", lambda lib: lib.ops.aten._fft_r2c.default(_cube(lib), [0, 1], 0, True)),
    ("hfft2", lambda lib: lib.fft.hfft2(_cube(lib, True), dim=(0, -1))),
    ("irfftn", lambda lib: lib.fft.irfftn(_cube(lib, True).permute(1, 2, 0))),
    ("irfftn_first", lambda lib: lib.fft.irfftn(_cube(lib, True), dim=(0, 1))),
    ("fft_dim0", lambda lib: lib.fft.fft(_complex(lib), dim=0)),
    ("fftn_4d", lambda lib: lib.fft.fftn(_cube(lib, True).reshape(3, 2, 2, 6))),
    ("ihfftn", lambda lib: lib.fft.ihfftn(_cube(lib))),
]


@pytest.mark.parametrize("case", [c for _, c in _META], ids=[n for n, _ in _META])
def test_meta(case: Case) -> None:
    # torch's meta functions lay results out as cuFFT does (see Note [FFT output layout] in
    # refimpl/ops/_fft_layout.py), which for some n-dimensional transforms is not the CPU
    # layout; refimpl's meta tensors follow torch's.
    expected = _on_meta(case, torch)
    actual = _on_meta(case, refimpl)
    assert actual.device.type == "meta"
    assert tuple(actual.shape) == tuple(expected.shape)
    assert _dtype_name(actual) == _dtype_name(expected)
    assert tuple(actual.stride()) == tuple(expected.stride())


def _on_meta(case: Case, lib: Any) -> Any:
    """The case with every input tensor made on the meta device (strides kept)."""

    class MetaLib:
        def __getattr__(self, name: str) -> Any:
            return getattr(lib, name)

        @staticmethod
        def tensor(data: Any, dtype: Any = None) -> Any:
            return lib.tensor(data, dtype=dtype).to("meta")

        @staticmethod
        def arange(*args: Any, **kwargs: Any) -> Any:
            return lib.arange(*args, **kwargs).to("meta")

    return case(MetaLib())


# --- fftfreq, rfftfreq, fftshift, ifftshift ---------------------------------------------------

_FREQ: list[tuple[str, Case]] = [
    ("fftfreq", lambda lib: lib.fft.fftfreq(5)),
    ("fftfreq_even", lambda lib: lib.fft.fftfreq(8, 0.3, dtype=lib.float64)),
    ("fftfreq_zero_d", lambda lib: lib.fft.fftfreq(4, 0.0)),
    ("fftfreq_empty", lambda lib: lib.fft.fftfreq(0)),
    ("fftfreq_int", lambda lib: lib.fft.fftfreq(5, dtype=lib.int64)),
    ("fftfreq_complex", lambda lib: lib.fft.fftfreq(5, dtype=lib.complex64)),
    ("fftfreq_negative", lambda lib: lib.fft.fftfreq(-1)),
    ("fftfreq_out", lambda lib: lib.fft.fftfreq(6, 2.0, out=lib.empty(0, dtype=lib.float64))),
    ("fftfreq_out_int", lambda lib: lib.fft.fftfreq(6, out=lib.empty(0, dtype=lib.int32))),
    ("rfftfreq", lambda lib: lib.fft.rfftfreq(7, 2.0)),
    ("rfftfreq_even", lambda lib: lib.fft.rfftfreq(8, dtype=lib.float64)),
    ("rfftfreq_complex", lambda lib: lib.fft.rfftfreq(5, dtype=lib.complex64)),
    ("rfftfreq_out", lambda lib: lib.fft.rfftfreq(9, out=lib.empty(0))),
    ("fftshift", lambda lib: lib.fft.fftshift(_cube(lib))),
    ("fftshift_dim", lambda lib: lib.fft.fftshift(_cube(lib), dim=(0, -1))),
    ("fftshift_int_dim", lambda lib: lib.fft.fftshift(_ints(lib), dim=1)),
    ("ifftshift", lambda lib: lib.fft.ifftshift(_cube(lib, True))),
    ("ifftshift_dim", lambda lib: lib.fft.ifftshift(_real(lib, "float32", (24,)), dim=0)),
    ("fftshift_bad_dim", lambda lib: lib.fft.fftshift(_real(lib), dim=5)),
]


if "float16" in STORED_DTYPES:
    _FREQ.append(("fftfreq_half", lambda lib: lib.fft.fftfreq(5, dtype=lib.float16)))


@pytest.mark.parametrize("case", [c for _, c in _FREQ], ids=[n for n, _ in _FREQ])
def test_freq_and_shift(case: Case) -> None:
    _check(case)


def test_fftfreq_requires_grad() -> None:
    assert refimpl.fft.fftfreq(4, requires_grad=True).requires_grad
    assert refimpl.fft.rfftfreq(4, requires_grad=True).is_leaf


# --- stft, istft ------------------------------------------------------------------------------


def _signal(lib: Any, dtype: str = "float64") -> Any:
    return _real(lib, dtype, (24,))


def _win(lib: Any, n: int, dtype: str = "float64") -> Any:
    # A window both libraries build alike (refimpl may not have hann_window yet).
    values = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).tolist()
    return lib.tensor(values, dtype=getattr(lib, dtype))


_STFT: list[tuple[str, Case]] = [
    ("default", lambda lib: lib.stft(_signal(lib), 8, window=_win(lib, 8), return_complex=True)),
    (
        "batch",
        lambda lib: lib.stft(
            _real(lib, "float64", (2, 12)), 4, window=_win(lib, 4), return_complex=True
        ),
    ),
    (
        "nocenter",
        lambda lib: lib.stft(_signal(lib), 8, hop_length=3, center=False, return_complex=True),
    ),
    (
        "short_window",
        lambda lib: lib.stft(_signal(lib), 8, 2, 6, window=_win(lib, 6), return_complex=True),
    ),
    ("no_window_short", lambda lib: lib.stft(_signal(lib), 8, 2, 5, return_complex=True)),
    (
        "align",
        lambda lib: lib.stft(
            _signal(lib),
            8,
            2,
            6,
            window=_win(lib, 6),
            center=False,
            return_complex=True,
            align_to_window=True,
        ),
    ),
    (
        "align_center",
        lambda lib: lib.stft(_signal(lib), 8, return_complex=True, align_to_window=True),
    ),
    (
        "constant",
        lambda lib: lib.stft(
            _signal(lib), 8, window=_win(lib, 8), pad_mode="constant", return_complex=True
        ),
    ),
    (
        "replicate",
        lambda lib: lib.stft(
            _signal(lib), 8, window=_win(lib, 8), pad_mode="replicate", return_complex=True
        ),
    ),
    (
        "circular",
        lambda lib: lib.stft(
            _signal(lib), 8, window=_win(lib, 8), pad_mode="circular", return_complex=True
        ),
    ),
    ("bad_mode", lambda lib: lib.stft(_signal(lib), 8, pad_mode="bad", return_complex=True)),
    ("reflect_too_long", lambda lib: lib.stft(_signal(lib)[:3], 8, return_complex=True)),
    (
        "normalized",
        lambda lib: lib.stft(
            _signal(lib), 8, window=_win(lib, 8), normalized=True, return_complex=True
        ),
    ),
    (
        "twosided",
        lambda lib: lib.stft(
            _signal(lib), 8, window=_win(lib, 8), onesided=False, return_complex=True
        ),
    ),
    ("real_out", lambda lib: lib.stft(_signal(lib), 8, window=_win(lib, 8), return_complex=False)),
    (
        "complex_in",
        lambda lib: lib.stft(_complex(lib, "complex128", (24,)), 8, window=_win(lib, 8)),
    ),
    (
        "complex_window",
        lambda lib: lib.stft(_signal(lib), 8, window=_win(lib, 8).to(lib.complex128)),
    ),
    (
        "complex_onesided",
        lambda lib: lib.stft(_complex(lib, "complex128", (24,)), 8, onesided=True),
    ),
    (
        "float_window_double",
        lambda lib: lib.stft(_signal(lib, "float32"), 8, window=_win(lib, 8), return_complex=True),
    ),
    ("no_return_complex", lambda lib: lib.stft(_signal(lib), 8)),
    ("int_input", lambda lib: lib.stft(_ints(lib).reshape(-1), 8, return_complex=True)),
    ("3d_input", lambda lib: lib.stft(_cube(lib), 4, return_complex=True)),
    ("n_fft_too_long", lambda lib: lib.stft(_signal(lib), 30, center=False, return_complex=True)),
    ("hop_zero", lambda lib: lib.stft(_signal(lib), 8, hop_length=0, return_complex=True)),
    ("win_too_long", lambda lib: lib.stft(_signal(lib), 8, win_length=9, return_complex=True)),
    (
        "window_size",
        lambda lib: lib.stft(_signal(lib), 8, window=_win(lib, 7), return_complex=True),
    ),
    ("method", lambda lib: _signal(lib).stft(8, window=_win(lib, 8), return_complex=True)),
    (
        "aten_center",
        lambda lib: lib.ops.aten.stft.center(
            _signal(lib), 8, window=_win(lib, 8), return_complex=True
        ),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in _STFT], ids=[n for n, _ in _STFT])
def test_stft(case: Case) -> None:
    _check(case)


def _spectrum(lib: Any, onesided: bool = True) -> Any:
    return lib.stft(
        _real(lib, "float64", (2, 12)),
        4,
        window=_win(lib, 4),
        onesided=onesided,
        return_complex=True,
    )


_ISTFT: list[tuple[str, Case]] = [
    ("default", lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 4))),
    ("length", lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 4), length=10)),
    ("length_padded", lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 4), length=20)),
    ("twosided", lambda lib: lib.istft(_spectrum(lib, False), 4, window=_win(lib, 4))),
    (
        "complex",
        lambda lib: lib.istft(_spectrum(lib, False), 4, window=_win(lib, 4), return_complex=True),
    ),
    ("normalized", lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 4), normalized=True)),
    ("single", lambda lib: lib.istft(_spectrum(lib)[0], 4, window=_win(lib, 4))),
    ("no_window", lambda lib: lib.istft(_spectrum(lib), 4, hop_length=2)),
    ("short_window", lambda lib: lib.istft(_spectrum(lib), 4, 1, 3, window=_win(lib, 3))),
    ("real_input", lambda lib: lib.istft(_spectrum(lib).real, 4)),
    ("empty", lambda lib: lib.istft(_spectrum(lib)[:, :, :0], 4, window=_win(lib, 4))),
    ("one_dim", lambda lib: lib.istft(_spectrum(lib)[0, 0], 4)),
    ("bad_frequencies", lambda lib: lib.istft(_spectrum(lib), 6)),
    ("twosided_mismatch", lambda lib: lib.istft(_spectrum(lib), 4, onesided=False)),
    ("hop_too_long", lambda lib: lib.istft(_spectrum(lib), 4, hop_length=5)),
    ("win_too_long", lambda lib: lib.istft(_spectrum(lib), 4, win_length=5)),
    ("window_shape", lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 3))),
    ("onesided_complex", lambda lib: lib.istft(_spectrum(lib), 4, return_complex=True)),
    (
        "complex_window",
        lambda lib: lib.istft(_spectrum(lib), 4, window=_win(lib, 4).to(lib.complex128)),
    ),
    (
        "zero_window",
        lambda lib: lib.istft(_spectrum(lib), 4, window=lib.zeros(4, dtype=lib.float64)),
    ),
    ("method", lambda lib: _spectrum(lib).istft(4, window=_win(lib, 4), center=False)),
    ("meta", lambda lib: lib.istft(lib.ones(3, 5, dtype=lib.complex64, device="meta"), 4)),
]


@pytest.mark.parametrize("case", [c for _, c in _ISTFT], ids=[n for n, _ in _ISTFT])
def test_istft(case: Case) -> None:
    _check(case)


def test_stft_warnings() -> None:
    # torch warns once per process (TORCH_WARN_ONCE); the first call in refimpl warns.
    from refimpl._base.context import CONTEXT

    CONTEXT.warned_once.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        refimpl.stft(_signal(refimpl), 8, return_complex=False)
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("A window was not provided.") for m in messages)
    assert any(m.startswith("stft with return_complex=False is deprecated.") for m in messages)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        refimpl.istft(_spectrum(refimpl), 4)
    assert any("to make the inversion lossless" in str(w.message) for w in caught)


# --- gradients --------------------------------------------------------------------------------

_GRAD: list[tuple[str, Case]] = [
    ("rfft_n", lambda lib: lib.fft.rfft(_real(lib, "float64").requires_grad_(), n=9, norm="ortho")),
    ("irfft_n", lambda lib: lib.fft.irfft(_complex(lib, "complex128").requires_grad_(), n=7)),
    ("hfft2", lambda lib: lib.fft.hfft2(_complex(lib, "complex128").requires_grad_(), s=(3, 6))),
    ("ihfftn", lambda lib: lib.fft.ihfftn(_cube(lib).requires_grad_(), norm="forward")),
    ("fft_real", lambda lib: lib.fft.fft(_real(lib, "float64").requires_grad_(), dim=0)),
    ("irfftn", lambda lib: lib.fft.irfftn(_cube(lib, True).requires_grad_(), s=(2, 4, 5))),
    (
        "stft",
        lambda lib: lib.stft(
            _signal(lib).requires_grad_(), 8, window=_win(lib, 8), return_complex=True
        ),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in _GRAD], ids=[n for n, _ in _GRAD])
def test_gradients(case: Case) -> None:
    def grads(lib: Any) -> Any:
        result = case(lib)
        assert result.grad_fn is not None
        weight = lib.tensor(
            np.linspace(-1.0, 1.0, result.numel()).tolist(), dtype=lib.float64
        ).reshape(tuple(result.shape))
        if result.is_complex():
            total = (result * weight.to(result.dtype)).real.sum()
        else:
            total = (result * weight).sum()
        return lib.autograd.grad(total, _leaves(result))

    expected = grads(torch)
    actual = grads(refimpl)
    for e, a in zip(expected, actual, strict=True):
        np.testing.assert_allclose(_values(a), _values(e), rtol=1e-7, atol=1e-9)


def _leaves(result: Any) -> list[Any]:
    """The leaf tensors that require grad behind `result` (walking its graph)."""
    found: list[Any] = []
    seen: set[int] = set()
    stack = [result.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.append(variable)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


# --- the aten calls ---------------------------------------------------------------------------

_LOGGED: list[tuple[str, Case]] = [
    ("fft_n", lambda lib: lib.fft.fft(_real(lib), n=8)),
    ("fft_complex_trim", lambda lib: lib.fft.fft(_complex(lib), n=3)),
    ("rfft", lambda lib: lib.fft.rfft(_real(lib))),
    ("irfft_n", lambda lib: lib.fft.irfft(_complex(lib), n=5)),
    ("fftn_real", lambda lib: lib.fft.fftn(_real(lib))),
    ("fft2_s", lambda lib: lib.fft.fft2(_real(lib), s=(6, 3))),
    ("rfftn", lambda lib: lib.fft.rfftn(_real(lib))),
    ("irfftn", lambda lib: lib.fft.irfftn(_complex(lib))),
    ("ifftn", lambda lib: lib.fft.ifftn(_complex(lib))),
    ("ihfftn", lambda lib: lib.fft.ihfftn(_real(lib))),
    ("fftfreq", lambda lib: lib.fft.fftfreq(5)),
    ("fftshift", lambda lib: lib.fft.fftshift(_real(lib))),
    ("fft_out", lambda lib: lib.fft.fft(_real(lib), out=lib.empty(0, dtype=lib.complex64))),
]


def _aten_calls(lib: Any, case: Case) -> list[str]:
    base = (
        torch.utils._python_dispatch.TorchDispatchMode
        if lib is torch
        else refimpl.utils._python_dispatch.TorchDispatchMode
    )
    calls: list[str] = []

    class Log(base):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            calls.append(str(func).removeprefix("aten."))
            return func(*args, **(kwargs or {}))

    with Log():
        case(lib)
    # The transforms' own calls (the inputs' factories left out).
    return [c for c in calls if c.startswith(_LOGGED_PREFIXES)]


_LOGGED_PREFIXES = ("_fft", "fft", "slice", "constant_pad", "roll", "_conj", "conj", "_to_copy")


@pytest.mark.parametrize("case", [c for _, c in _LOGGED], ids=[n for n, _ in _LOGGED])
def test_aten_calls(case: Case) -> None:
    assert _aten_calls(refimpl, case) == _aten_calls(torch, case)
