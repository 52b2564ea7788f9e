"""The window factories against torch: hann_window, hamming_window, blackman_window,
bartlett_window and kaiser_window, every aten overload (functional and out=) and torch's
Python functions: values (bit for bit where refimpl's ops are torch's, see _EXACT), dtype,
shape, strides, devices (meta), requires_grad, the errors, and the aten calls a
TorchDispatchMode sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import STORED_DTYPES, outcome
from refimpl._subclasses.fake_tensor import FakeTensorMode as RefimplFakeTensorMode

Make = Callable[[Any], Any]

_WINDOWS: Final = (
    "hann_window",
    "hamming_window",
    "blackman_window",
    "bartlett_window",
    "kaiser_window",
)
_FLOATS: Final = [d for d in ("float16", "float32", "float64") if d in STORED_DTYPES]
_EXTENSIONS: Final = refimpl.config.backends.resolve("cpu").extensions


def _fn(lib: Any, name: str) -> Any:
    """torch.<name> or refimpl.<name>."""
    return getattr(lib, name)


def _exact(window: str, dtype: str) -> bool:
    """Whether refimpl's values are torch's bit for bit for `window` in `dtype`.

    The windows are torch's sequences of aten calls, so they are exact where those ops are:
    - hann, hamming and blackman call cos_: refimpl's is the backend's cos (NumPy's loop),
      torch's float and double cos is SLEEF's vectorized one; they differ in the last bit.
    - in float16 cos_ (and every other step) stores float16, where both libraries' results
      round alike: every window is exact (aten.mul_.Scalar hands its scalar to the iterator
      first, as torch's: PointwiseOp.scalar_first).
    - kaiser evaluates torch's kernel (ops/windows.py, Note [Kaiser window rounding]); in
      double it needs the C library's exp (the backend's `libm_exp`).
    """
    if window == "kaiser_window":
        return dtype != "float64" or "libm_exp" in _EXTENSIONS
    return dtype == "float16" or window == "bartlett_window"


# Where a window is not exact: torch's and refimpl's values agree within these bounds.
_ATOL: Final = {"float32": 3e-7, "float64": 1e-15}


def _compare_values(window: str, expected: Any, actual: Any) -> None:
    dtype = str(expected.dtype).split(".")[-1]
    want = expected.numpy()
    got = np.asarray(actual.tolist(), dtype=want.dtype).reshape(want.shape)
    if _exact(window, dtype):
        np.testing.assert_array_equal(got, want, strict=True)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=_ATOL[dtype])


# --- every functional overload: values ------------------------------------------------------

# Each functional aten overload and the arguments after window_length it is tried with.
_FUNCTIONAL: Final[dict[str, list[tuple[Any, ...]]]] = {
    "hann_window.default": [()],
    "hann_window.periodic": [(True,), (False,)],
    "hamming_window.default": [()],
    "hamming_window.periodic": [(True,), (False,)],
    "hamming_window.periodic_alpha": [(True, 0.3), (False, 1.0)],
    "hamming_window.periodic_alpha_beta": [(True, 0.3, 0.25), (False, 0.5, 0.5), (False, 1, -2)],
    "blackman_window.default": [()],
    "blackman_window.periodic": [(True,), (False,)],
    "bartlett_window.default": [()],
    "bartlett_window.periodic": [(True,), (False,)],
    "kaiser_window.default": [()],
    "kaiser_window.periodic": [(True,), (False,)],
    "kaiser_window.beta": [(True, 0.0), (False, 0.5), (True, 5.0), (False, 12.0), (True, 30.0)],
}
_LENGTHS: Final = (0, 1, 2, 7, 64)
_VALUE_CASES: Final = [
    (overload, args, dtype, length)
    for overload, arg_sets in _FUNCTIONAL.items()
    for args in arg_sets
    for dtype in _FLOATS
    for length in _LENGTHS
]


def _overload(lib: Any, qualified: str) -> Any:
    packet, name = qualified.split(".")
    return getattr(getattr(lib.ops.aten, packet), name)


@pytest.mark.parametrize(
    ("overload", "args", "dtype", "length"),
    _VALUE_CASES,
    ids=[f"{o}-{a}-{d}-{n}" for o, a, d, n in _VALUE_CASES],
)
def test_window_values_match_torch(
    overload: str, args: tuple[Any, ...], dtype: str, length: int
) -> None:
    """The overload's window: values, dtype, shape, strides; a periodic window is a view of
    the window one longer, as torch's narrow makes it (its storage holds length + 1)."""
    expected = _overload(torch, overload)(length, *args, dtype=getattr(torch, dtype))
    actual = _overload(refimpl, overload)(length, *args, dtype=getattr(refimpl, dtype))
    assert str(actual.dtype).split(".")[-1] == dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.untyped_storage().nbytes() == expected.untyped_storage().nbytes()
    _compare_values(overload.split(".")[0], expected, actual)


def test_kaiser_window_bit_for_bit_over_many_lengths_and_betas() -> None:
    """torch's Kaiser kernel reproduced: fused multiply-adds, glibc's expf in float, the
    C library's exp in double (Note [Kaiser window rounding] in ops/windows.py)."""
    rng = np.random.default_rng(7)
    for _ in range(12):
        length = int(rng.integers(2, 1500))
        beta = float(rng.uniform(0.0, 40.0))
        periodic = bool(rng.integers(2))
        for dtype in _FLOATS:
            expected = torch.kaiser_window(length, periodic, beta, dtype=getattr(torch, dtype))
            actual = refimpl.kaiser_window(
                length, periodic, beta, dtype=getattr(refimpl, dtype)
            )
            _compare_values("kaiser_window", expected, actual)


# --- the Python functions and the out= overloads: outcomes and dispatch ------------------------


# The out= cases: (overload, arguments, the options of `out`).
_OUT_CASES: Final[dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]]] = {
    "hann out": ("hann_window.out", (5,), {}),
    "hann periodic_out": ("hann_window.periodic_out", (7, False), {}),
    "hamming out": ("hamming_window.out", (5,), {}),
    "hamming periodic_out": ("hamming_window.periodic_out", (6, False), {}),
    "hamming periodic_alpha_out": ("hamming_window.periodic_alpha_out", (6, True, 0.3), {}),
    "hamming periodic_alpha_beta_out": (
        "hamming_window.periodic_alpha_beta_out",
        (6, False, 0.3, 0.2),
        {},
    ),
    "blackman out": ("blackman_window.out", (5,), {}),
    "blackman periodic_out": ("blackman_window.periodic_out", (5, False), {}),
    "bartlett out": ("bartlett_window.out", (5,), {}),
    "bartlett periodic_out": ("bartlett_window.periodic_out", (8, False), {}),
    "kaiser out": ("kaiser_window.out", (5,), {}),
    "kaiser periodic_out": ("kaiser_window.periodic_out", (5, False), {}),
    "kaiser beta_out": ("kaiser_window.beta_out", (9, True, 4.0), {}),
    "hann out resized": ("hann_window.periodic_out", (5, True), {"size": 3}),
    "bartlett out of the right size": ("bartlett_window.out", (4,), {"size": 4}),
    "kaiser out float64": ("kaiser_window.beta_out", (7, False, 2.0), {"dtype": "float64"}),
    "hamming out meta": ("hamming_window.out", (6,), {"device": "meta"}),
    "hann out meta int64": ("hann_window.out", (6,), {"device": "meta", "dtype": "int64"}),
    "hann error: out int64": ("hann_window.out", (5,), {"dtype": "int64"}),
    "kaiser error: out int64": ("kaiser_window.beta_out", (5, True, 1.0), {"dtype": "int64"}),
    "bartlett error: out, negative length": ("bartlett_window.out", (-1,), {}),
}
if "float16" in _FLOATS:
    _OUT_CASES["blackman out float16"] = (
        "blackman_window.periodic_out",
        (7, True),
        {"dtype": "float16"},
    )


def _out_case(overload: str, args: tuple[Any, ...], options: dict[str, Any]) -> Make:
    def make(lib: Any) -> Any:
        size = options.get("size", 0)
        made = {k: getattr(lib, v) if k == "dtype" else v for k, v in options.items()}
        made.pop("size", None)
        return _overload(lib, overload)(*args, out=lib.empty(size, **made))

    return make


def _option(lib: Any, key: str, value: Any) -> Any:
    if key in ("dtype", "layout") and isinstance(value, str):
        return getattr(lib, value)
    return lib.empty(value) if key == "out" else value


def _window_cases() -> dict[str, Make]:
    cases: dict[str, Make] = {}
    for name in _WINDOWS:
        short = name.removesuffix("_window")

        def call(*args: Any, _name: str = name, **kwargs: Any) -> Make:
            # dtype and layout by name, an `out` by its size.
            def make(lib: Any) -> Any:
                options = {k: _option(lib, k, v) for k, v in kwargs.items()}
                return _fn(lib, _name)(*args, **options)

            return make

        cases[f"{short}"] = call(9)
        cases[f"{short} symmetric"] = call(9, False)
        cases[f"{short} periodic keyword"] = call(6, periodic=False)
        cases[f"{short} float64"] = call(5, False, dtype="float64")
        cases[f"{short} length 0"] = call(0)
        cases[f"{short} length 1"] = call(1, False)
        cases[f"{short} requires_grad"] = call(5, requires_grad=True)
        cases[f"{short} meta"] = call(7, device="meta")
        cases[f"{short} meta, symmetric float64"] = call(7, False, device="meta", dtype="float64")
        cases[f"{short} device cpu"] = call(4, device="cpu")
        cases[f"{short} error: int64"] = call(5, dtype="int64")
        cases[f"{short} error: bool, pinned"] = call(5, dtype="bool", pin_memory=True)
        cases[f"{short} error: uint8, strided"] = call(5, dtype="uint8", layout="strided")
        cases[f"{short} error: sparse"] = call(5, layout="sparse_coo")
        cases[f"{short} error: sparse int64"] = call(5, dtype="int64", layout="sparse_coo")
        cases[f"{short} error: negative length"] = call(-1)
        cases[f"{short} error: complex"] = call(5, dtype="complex64")
        cases[f"{short} error: out="] = call(5, out=5)
        cases[f"{short} error: dtype not a dtype"] = call(5, dtype=3)
    return cases


_API_CASES: Final[dict[str, Make]] = {
    **_window_cases(),
    "hamming alpha": lambda lib: _fn(lib, "hamming_window")(8, True, 0.6),
    "hamming alpha beta": lambda lib: _fn(lib, "hamming_window")(8, False, 0.6, 0.3),
    "hamming alpha beta keywords": lambda lib: _fn(lib, "hamming_window")(
        8, periodic=False, alpha=0.6, beta=0.3
    ),
    "kaiser beta": lambda lib: _fn(lib, "kaiser_window")(8, False, 3.5),
    "kaiser beta keyword": lambda lib: _fn(lib, "kaiser_window")(8, True, beta=7.0),
    "kaiser error: meta int64 (checked)": lambda lib: _fn(lib, "kaiser_window")(
        5, dtype=lib.int64, device="meta"
    ),
    # torch runs a Python decomposition as hann_window's Meta kernel: no dtype check, and a
    # negative length fails in arange or narrow.
    "hann meta int64": lambda lib: _fn(lib, "hann_window")(6, dtype=lib.int64, device="meta"),
    "hann error: meta negative, symmetric": lambda lib: _fn(lib, "hann_window")(
        -2, False, device="meta"
    ),
    "hann error: meta negative, periodic": lambda lib: _fn(lib, "hann_window")(-2, device="meta"),
    "hann error: meta sparse": lambda lib: _fn(lib, "hann_window")(
        3, device="meta", layout=lib.sparse_coo
    ),
    "error: hann, a third argument": lambda lib: _fn(lib, "hann_window")(5, True, 1.0),
    "error: hamming beta without alpha": lambda lib: _fn(lib, "hamming_window")(5, False, beta=0.3),
    "error: kaiser beta without periodic": lambda lib: _fn(lib, "kaiser_window")(5, beta=3.0),
    "error: blackman int8 on cpu:0": lambda lib: _fn(lib, "blackman_window")(
        3, device=lib.device("cpu", 0), dtype=lib.int8
    ),
    # The aten overloads called directly: the options print as given (device "(default)").
    "aten: error int64": lambda lib: lib.ops.aten.hann_window.default(5, dtype=lib.int64),
    "aten: error int64, pinned, strided": lambda lib: lib.ops.aten.hamming_window.periodic(
        5, True, dtype=lib.int64, layout=lib.strided, pin_memory=True
    ),
    "aten: error negative": lambda lib: lib.ops.aten.kaiser_window.beta(-3, True, 1.0),
    "aten: blackman default": lambda lib: lib.ops.aten.blackman_window.default(6),
    **{name: _out_case(*case) for name, case in _OUT_CASES.items()},
}


@pytest.mark.parametrize("case", list(_API_CASES))
def test_window_matches_torch(case: str) -> None:
    """The outcome (the error's type and first line, or the result's dtype, device, shape,
    strides, values and autograd state) and the aten overloads a TorchDispatchMode sees."""
    make = _API_CASES[case]
    expected, expected_error = outcome(lambda lib: aten_calls(lib, lambda: make(lib)), torch)
    actual, actual_error = outcome(lambda lib: aten_calls(lib, lambda: make(lib)), refimpl)
    assert ("error" in case) == (expected_error is not None), "the case's name says wrong"
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert type(actual_error) is type(expected_error)
        # refimpl lists the stubs' signatures under the parser's first line.
        assert str(actual_error).splitlines()[0] == str(expected_error).splitlines()[0]
        return
    if actual_error is not None:
        raise actual_error
    (expected_calls, expected_result), (actual_calls, actual_result) = expected, actual
    assert actual_calls == expected_calls
    assert str(actual_result.dtype).split(".")[-1] == str(expected_result.dtype).split(".")[-1]
    assert actual_result.device.type == expected_result.device.type
    assert tuple(actual_result.shape) == tuple(expected_result.shape)
    assert tuple(actual_result.stride()) == tuple(expected_result.stride())
    assert actual_result.requires_grad == expected_result.requires_grad
    assert (actual_result.grad_fn is None) == (expected_result.grad_fn is None)
    assert actual_result.is_leaf == expected_result.is_leaf
    if expected_result.device.type != "meta":
        window = next(w for w in _WINDOWS if w.split("_")[0] in case)
        _compare_values(window, expected_result.detach(), actual_result.detach())


def test_every_window_overload_is_covered() -> None:
    """Each of torch's 26 window overloads is called by a test here."""
    covered = set(_FUNCTIONAL) | {overload for overload, _, _ in _OUT_CASES.values()}
    expected = {
        f"{name}.{overload}"
        for name in _WINDOWS
        for overload in getattr(torch.ops.aten, name).overloads()
    }
    assert covered == expected


@pytest.mark.parametrize("name", _WINDOWS)
def test_window_under_fake_tensor_mode_matches_torch(name: str) -> None:
    """Under FakeTensorMode a window is a fake CPU tensor of torch's dtype and shape."""
    with TorchFakeTensorMode():
        expected = _fn(torch, name)(6, False, dtype=torch.float64)
    with RefimplFakeTensorMode():
        actual = _fn(refimpl, name)(6, False, dtype=refimpl.float64)
    assert type(actual).__name__ == type(expected).__name__ == "FakeTensor"
    assert (str(actual.dtype), tuple(actual.shape), actual.device.type) == (
        str(expected.dtype).replace("torch.", "refimpl."),
        tuple(expected.shape),
        expected.device.type,
    )
