"""Conformance: `repr(t)` and `str(t)` of tensors, and the print options, against torch.

Each case builds the same tensor with `torch` and with `refimpl` (under the same print
options and default dtype) and compares `repr(refimpl_tensor)` with torch's text, where
`torch.` is spelled `refimpl.`.

Torch wraps suffixes (`dtype=...`, `requires_grad=True`) by the length of the text it prints,
and `refimpl.int32` is two characters longer than `torch.int32`; the cases keep their last
line away from that boundary so both libraries make the same wrapping choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest
import torch

import refimpl


@dataclass(frozen=True)
class Case:
    """A tensor to print, built by `build(lib)` for lib in (torch, refimpl)."""

    name: str
    build: Callable[[Any], Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    default_dtype: str | None = None


def _c(
    name: str,
    build: Callable[[Any], Any],
    default_dtype: str | None = None,
    **options: Any,
) -> Case:
    return Case(name, build, options, default_dtype)


NAN, INF = math.nan, math.inf

# The middle of this list has values far outside the shown edges; a summarised print picks
# its notation from the shown values only, so this prints in fixed notation.
_HIDDEN_OUTLIERS = [0.5, 1.25, 2.0, 3.5] + [1e12] * 1000 + [NAN, INF, 7.75, 8.0, 9.5]

CASES: list[Case] = [
    # --- every stored dtype --------------------------------------------------------------
    _c("bool", lambda lib: lib.tensor([True, False, True])),
    _c("bool_0d", lambda lib: lib.tensor(False)),
    _c("bool_2d", lambda lib: lib.tensor([[True], [False]])),
    _c("uint8", lambda lib: lib.tensor([0, 255, 7], dtype=lib.uint8)),
    _c("int8", lambda lib: lib.tensor([-128, 127, 0], dtype=lib.int8)),
    _c("int16", lambda lib: lib.tensor([-32768, 5, 32767], dtype=lib.int16)),
    _c("int32_2d", lambda lib: lib.tensor([[1, -2], [300, 4]], dtype=lib.int32)),
    _c("int64", lambda lib: lib.tensor([1, 2, 3])),
    _c("int64_0d", lambda lib: lib.tensor(7)),
    _c("int64_extremes", lambda lib: lib.tensor([-(2**63), 2**63 - 1])),
    _c("float16", lambda lib: lib.tensor([1.5, -2.25, 1000.0], dtype=lib.float16)),
    _c("float16_rounded", lambda lib: lib.tensor([0.1, 0.2, 0.3], dtype=lib.float16)),
    _c("float16_wide_range", lambda lib: lib.tensor([65504.0, 1e-3], dtype=lib.float16)),
    _c("float32_integral", lambda lib: lib.tensor([1.0, 2.0, 3.0])),
    _c("float32_fraction", lambda lib: lib.tensor([0.1, 0.2, 1 / 3])),
    _c("float64", lambda lib: lib.tensor([1 / 3, 2 / 3], dtype=lib.float64)),
    _c("complex64", lambda lib: lib.tensor([1 + 2j, -3.5 - 0.25j], dtype=lib.complex64)),
    _c("complex128", lambda lib: lib.tensor([1e10 + 1j, 0j], dtype=lib.complex128)),
    _c("complex64_0d", lambda lib: lib.tensor(1.5 - 2j, dtype=lib.complex64)),
    _c("complex_default", lambda lib: lib.tensor([1j, 2 + 0j])),
    _c("complex_nonfinite", lambda lib: lib.tensor([complex(NAN, 1), complex(1, INF), 2j])),
    _c("complex_negative_zero_imag", lambda lib: lib.tensor([complex(1.5, -0.0), 1j])),
    _c("complex_2d", lambda lib: lib.tensor([[1 + 1j, -2j], [3.25, 4 - 4j]])),
    # --- shapes --------------------------------------------------------------------------
    _c("float_0d", lambda lib: lib.tensor(3.5)),
    _c("float_0d_small", lambda lib: lib.tensor(1e-5)),
    _c("float_0d_nan", lambda lib: lib.tensor(NAN)),
    _c("float_0d_negative_zero", lambda lib: lib.tensor(-0.0)),
    _c("float_2d", lambda lib: lib.arange(12.0).reshape(3, 4)),
    _c("int_3d", lambda lib: lib.arange(24).reshape(2, 3, 4)),
    _c("float_3d_negative", lambda lib: lib.arange(-11.5, 12.0).reshape(2, 3, 4)),
    _c("float_4d", lambda lib: lib.ones(2, 1, 2, 1)),
    _c("ones_1x1x1", lambda lib: lib.ones(1, 1, 1, dtype=lib.int32)),
    _c("full_2d", lambda lib: lib.full((2, 3), 2.5)),
    # --- empty tensors -------------------------------------------------------------------
    _c("empty_float", lambda lib: lib.tensor([])),
    _c("empty_0x3", lambda lib: lib.zeros(0, 3)),
    _c("empty_int64", lambda lib: lib.empty(0, dtype=lib.int64)),
    _c("empty_int32_3d", lambda lib: lib.empty(2, 0, 3, dtype=lib.int32)),
    _c("empty_bool", lambda lib: lib.empty(0, dtype=lib.bool)),
    _c("empty_complex64", lambda lib: lib.empty(0, dtype=lib.complex64)),
    _c("empty_float64_2d", lambda lib: lib.empty(3, 0, dtype=lib.float64)),
    # --- choice of notation --------------------------------------------------------------
    _c("sci_large", lambda lib: lib.tensor([1e10, 1.0])),
    _c("sci_small", lambda lib: lib.tensor([1e-5, 1.0])),
    _c("sci_ratio", lambda lib: lib.tensor([0.001, 2.0])),
    _c("sci_integral_above_1e8", lambda lib: lib.tensor([1e9, 2e9])),
    _c("fixed_ratio_1000", lambda lib: lib.tensor([0.001, 1.0])),
    _c("nonfinite_mixed", lambda lib: lib.tensor([INF, -INF, NAN, 1.5])),
    _c("nonfinite_integral", lambda lib: lib.tensor([-INF, 1.0, NAN])),
    _c("nonfinite_only", lambda lib: lib.tensor([NAN, INF])),
    _c("zeros", lambda lib: lib.zeros(3)),
    _c("negatives", lambda lib: lib.tensor([-1.5, 2.25, -3.0])),
    _c("integral_floats", lambda lib: lib.tensor([-1.0, 100.0, 3.0])),
    _c("negative_zero", lambda lib: lib.tensor([-0.0, 0.0, 1.0])),
    _c("negative_zero_fraction", lambda lib: lib.tensor([-0.0, 0.5])),
    _c("wide_values", lambda lib: lib.tensor([123456.789, 1000.5])),
    _c("linspace", lambda lib: lib.linspace(0, 1, 7)),
    # --- line wrapping -------------------------------------------------------------------
    _c("wrap_1d_float", lambda lib: lib.tensor([i * 1.5 for i in range(100)])),
    _c("wrap_1d_int", lambda lib: lib.arange(200)),
    _c("wrap_2d", lambda lib: lib.linspace(0, 1, 60).reshape(2, 30)),
    _c("wrap_complex", lambda lib: lib.tensor([complex(i, -i / 3) for i in range(20)])),
    _c("wrap_suffix", lambda lib: lib.tensor([[1e5 + 0.5] * 8] * 2, dtype=lib.float64)),
    # --- summarised (more than `threshold` elements) -------------------------------------
    _c("summary_1d", lambda lib: lib.arange(10000.0)),
    _c("summary_1d_int", lambda lib: lib.arange(10000)),
    _c("summary_2d", lambda lib: lib.arange(10000.0).reshape(100, 100)),
    _c("summary_3d", lambda lib: lib.arange(8000.0).reshape(20, 20, 20)),
    _c("summary_wide_rows", lambda lib: lib.arange(2000).reshape(2, 1000)),
    _c("summary_tall", lambda lib: lib.tensor([[i / 7, -i / 9] for i in range(1000)])),
    _c("summary_bool", lambda lib: lib.full((2000,), True)),
    _c("summary_complex", lambda lib: lib.tensor([complex(i, 1 - i) for i in range(1500)])),
    _c("summary_hidden_outliers", lambda lib: lib.tensor(_HIDDEN_OUTLIERS)),
    _c("summary_int8", lambda lib: lib.zeros(30, 40, dtype=lib.int8)),
    # --- autograd suffixes ---------------------------------------------------------------
    _c("requires_grad", lambda lib: lib.tensor([1.0, 2.0], requires_grad=True)),
    _c("requires_grad_0d", lambda lib: lib.tensor(1.5, requires_grad=True)),
    _c("requires_grad_float64", lambda lib: lib.ones(2, 2, dtype=lib.float64).requires_grad_()),
    _c("requires_grad_complex", lambda lib: lib.tensor([1j], requires_grad=True)),
    _c("requires_grad_empty", lambda lib: lib.zeros(0, 2, requires_grad=True)),
    _c("requires_grad_summary", lambda lib: lib.zeros(50, 50).requires_grad_()),
    # --- print options -------------------------------------------------------------------
    _c("precision_2", lambda lib: lib.tensor([1.23456, 2.5]), precision=2),
    _c("precision_10", lambda lib: lib.tensor([1 / 3], dtype=lib.float64), precision=10),
    _c("precision_0_sci", lambda lib: lib.tensor([1e-7, 2.5]), precision=0),
    _c("sci_mode_true", lambda lib: lib.tensor([1.0, 2.5]), sci_mode=True),
    _c("sci_mode_true_zeros", lambda lib: lib.zeros(2), sci_mode=True),
    _c("sci_mode_false", lambda lib: lib.tensor([1e-5, 1e10]), sci_mode=False),
    _c("threshold_5", lambda lib: lib.arange(10), threshold=5),
    _c("edgeitems_1", lambda lib: lib.arange(30.0).reshape(5, 6), threshold=5, edgeitems=1),
    _c("edgeitems_0", lambda lib: lib.arange(5), edgeitems=0),
    _c("edgeitems_0_summary", lambda lib: lib.arange(24.0).reshape(4, 6), edgeitems=0,
       threshold=5),
    _c("edgeitems_0_summary_1d", lambda lib: lib.arange(10), edgeitems=0, threshold=5),
    _c("linewidth_40", lambda lib: lib.tensor([i / 3 for i in range(30)]), linewidth=40),
    _c("linewidth_10", lambda lib: lib.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]]), linewidth=10),
    _c("profile_short", lambda lib: lib.tensor([i / 3 for i in range(2000)]), profile="short"),
    _c("profile_full", lambda lib: lib.arange(1200), profile="full"),
    _c("profile_with_override", lambda lib: lib.tensor([1 / 3]), profile="short", precision=6),
    # --- default dtype float64 -----------------------------------------------------------
    _c("default64_float64", lambda lib: lib.tensor([1.5, 2.0]), default_dtype="float64"),
    _c("default64_float32", lambda lib: lib.tensor([1.5], dtype=lib.float32),
       default_dtype="float64"),
    _c("default64_complex128", lambda lib: lib.tensor([1j]), default_dtype="float64"),
    _c("default64_complex64", lambda lib: lib.tensor([1j], dtype=lib.complex64),
       default_dtype="float64"),
    _c("default64_empty", lambda lib: lib.tensor([]), default_dtype="float64"),
    _c("default64_empty_float32", lambda lib: lib.zeros(0, dtype=lib.float32),
       default_dtype="float64"),
    _c("default16_complex64", lambda lib: lib.tensor([1j], dtype=lib.complex64),
       default_dtype="float16"),
    # --- meta tensors --------------------------------------------------------------------
    _c("meta", lambda lib: lib.empty(2, 3, device="meta")),
    _c("meta_int64", lambda lib: lib.empty(2, 3, dtype=lib.int64, device="meta")),
    _c("meta_0d", lambda lib: lib.empty((), device="meta")),
    _c("meta_empty", lambda lib: lib.empty(0, device="meta")),
]


@pytest.fixture(autouse=True)
def _restore_state() -> Iterator[None]:
    # Print options and the default dtype are process-wide in both libraries.
    yield
    for lib in (torch, refimpl):
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


def _print(lib: ModuleType, case: Case, show: Callable[[Any], str]) -> str:
    lib.set_printoptions(**case.options)
    if case.default_dtype is not None:
        lib.set_default_dtype(getattr(lib, case.default_dtype))
    try:
        return show(case.build(lib))
    except TypeError as error:
        # A backend without the dtype (array_api_strict has no float16) says so; skip there.
        if lib is refimpl and "has no dtype" in str(error):
            pytest.skip(str(error))
        raise
    finally:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_repr(case: Case) -> None:
    expected = _print(torch, case, repr).replace("torch.", "refimpl.")
    assert _print(refimpl, case, repr) == expected


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_str_is_repr(case: Case) -> None:
    assert _print(refimpl, case, str) == _print(refimpl, case, repr)


_OPTION_CALLS: list[dict[str, Any]] = [
    {},
    {"precision": 2},
    {"threshold": 5, "edgeitems": 1},
    {"linewidth": 120, "sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "full", "threshold": 10},
    {"profile": "no-such-profile"},
]


def test_get_printoptions_default() -> None:
    assert refimpl.get_printoptions() == torch._tensor_str.get_printoptions()


@pytest.mark.parametrize("calls", [_OPTION_CALLS, _OPTION_CALLS[::-1]], ids=["forward", "back"])
def test_set_printoptions_sequence(calls: list[dict[str, Any]]) -> None:
    # Options accumulate across calls, except sci_mode, which every call sets.
    for kwargs in calls:
        torch.set_printoptions(**kwargs)
        refimpl.set_printoptions(**kwargs)
        got = refimpl.get_printoptions()
        expected = torch._tensor_str.get_printoptions()
        assert got == expected
        assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_printoptions_round_trip() -> None:
    refimpl.set_printoptions(precision=7, edgeitems=5, sci_mode=True)
    saved = refimpl.get_printoptions()
    refimpl.set_printoptions(profile="short")
    refimpl.set_printoptions(**saved)
    assert refimpl.get_printoptions() == saved


def test_suffix_wraps_by_printed_length() -> None:
    # `refimpl.int32` is two characters longer than `torch.int32`, so refimpl wraps this
    # dtype suffix where torch wraps it at a line width two narrower. Seventeen one-digit
    # values lay out on one line at either width, so torch at 78 gives refimpl's text at 80.
    t = refimpl.ones(17, dtype=refimpl.int32)
    torch.set_printoptions(linewidth=78)
    expected = repr(torch.ones(17, dtype=torch.int32)).replace("torch.", "refimpl.")
    assert "\n" in expected
    torch.set_printoptions(linewidth=80)
    assert "\n" not in repr(torch.ones(17, dtype=torch.int32))
    assert repr(t) == expected
