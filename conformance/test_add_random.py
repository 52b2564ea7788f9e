"""Random aten.add.Tensor calls against torch (hypothesis): promotion, broadcasting, alpha, errors.

Each example draws two operands (tensors of any dtype and broadcast-compatible shape, some
non-contiguous views, or Python numbers, never two numbers), an `alpha`, and an entry point
(`a + b`, `aten.add.Tensor`, `Tensor.add`). Both libraries run the same call on operands built
from the same Python values; the exception (type and message) or the result's dtype, shape and
values must match. Output strides are not compared: refimpl's results are always contiguous
until the TensorIterator issue (#5).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import HealthCheck, given, settings

import refimpl

settings.register_profile(
    "add_ci", derandomize=True, max_examples=200, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# A wider local search: ADD_RANDOM_PROFILE=add_search python -m pytest conformance/test_add_random.py
settings.register_profile(
    "add_search", derandomize=False, max_examples=2000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
_PROFILE = os.environ.get("ADD_RANDOM_PROFILE", "add_ci")

_CPU_DTYPES = {d.name for d in refimpl.config.backends.resolve("cpu").array_dtypes}
DTYPES = [
    name for name in (
        "bool", "uint8", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128",
    )
    # array_api_strict has no float16; refimpl then raises "has no dtype float16".
    if name in _CPU_DTYPES
]

_SMALL_FLOATS = st.one_of(
    st.integers(-50, 50).map(float),
    st.floats(-100, 100, width=32),
    st.sampled_from([math.inf, -math.inf, math.nan, -0.0]),
)


def _values(dtype: str) -> st.SearchStrategy[Any]:
    """Element values for a tensor of `dtype`, in small ranges (full range for 8-bit ints)."""
    if dtype == "bool":
        return st.booleans()
    if dtype == "uint8":
        return st.integers(0, 255)
    if dtype == "int8":
        return st.integers(-128, 127)
    if dtype in ("int16", "int32", "int64"):
        return st.integers(-1000, 1000)
    if dtype == "float16":
        return st.one_of(st.floats(-1000, 1000, width=16), st.sampled_from([math.inf, math.nan]))
    if dtype in ("float32", "float64"):
        return _SMALL_FLOATS
    parts = st.one_of(st.integers(-10, 10).map(float), st.floats(-10, 10, width=32))
    return st.builds(complex, parts, parts)


_SCALARS = st.one_of(
    st.booleans(),
    st.integers(-300, 300),
    st.sampled_from([2**40, -(2**40), 2**31, 2**63 - 1, -(2**63), 2**63, 2**64]),
    st.floats(-100, 100),
    st.sampled_from([math.inf, -math.inf, math.nan, 1e300, 70000.0, 0.1, -0.0]),
    st.builds(complex, st.integers(-5, 5).map(float), st.floats(-5, 5)),
    st.sampled_from([complex(math.inf, 0), complex(0, math.nan), 1j]),
)


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """How to build one tensor operand: values of a base tensor, then an optional view."""

    dtype: str
    base_shape: tuple[int, ...]
    values: list[Any]
    view: tuple[str, tuple[Any, ...]] | None


def _build(lib: Any, spec: TensorSpec) -> Any:
    base = lib.tensor(spec.values, dtype=getattr(lib, spec.dtype)).reshape(spec.base_shape)
    if spec.view is None:
        return base
    name, args = spec.view
    if name == "step":
        dim, step = args
        index = [slice(None)] * len(spec.base_shape)
        index[dim] = slice(None, None, step)
        return base[tuple(index)]
    return getattr(base, name)(*args)


@st.composite
def tensor_spec(draw: st.DrawFn, shape: tuple[int, ...]) -> TensorSpec:
    """A tensor of `shape`, possibly a transposed, stepped or expanded view of a base."""
    dtype = draw(st.sampled_from(DTYPES))
    kinds = ["plain", "expand"]
    if len(shape) >= 2:
        kinds.append("transpose")
    if shape:
        kinds.append("step")
    kind = draw(st.sampled_from(kinds))
    view: tuple[str, tuple[Any, ...]] | None = None
    base_shape = shape
    if kind == "transpose":
        a, b = draw(st.permutations(range(len(shape))).map(lambda p: p[:2]))
        swapped = list(shape)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        base_shape, view = tuple(swapped), ("transpose", (a, b))
    elif kind == "step":
        dim = draw(st.integers(0, len(shape) - 1))
        step = draw(st.integers(2, 3))
        grown = list(shape)
        grown[dim] = shape[dim] * step - draw(st.integers(0, step - 1)) if shape[dim] else 0
        base_shape, view = tuple(grown), ("step", (dim, step))
    elif kind == "expand":
        # Some dims of size 1 in the base, and maybe fewer leading dims.
        lead = draw(st.integers(0, len(shape)))
        kept = [1 if draw(st.booleans()) else n for n in shape[lead:]]
        base_shape, view = tuple(kept), ("expand", (shape,))
    n = math.prod(base_shape)
    values = draw(st.lists(_values(dtype), min_size=n, max_size=n))
    return TensorSpec(dtype, base_shape, values, view)


@st.composite
def operand_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast (suffixes of one shape, some dims 1), rarely two that clash."""
    full = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))

    def one() -> tuple[int, ...]:
        start = draw(st.integers(0, len(full)))
        return tuple(1 if draw(st.booleans()) else n for n in full[start:])

    first, second = one(), one()
    if first and draw(st.integers(0, 9)) == 0:
        # A clash: torch's "The size of tensor a (..) must match the size of tensor b (..)".
        first = (*first[:-1], 4)
        second = (*second[:-1], 5) if second else (5,)
    return first, second


@dataclass(frozen=True, slots=True)
class AddCase:
    """One add call: two operands (TensorSpec or a Python number), alpha, entry point."""

    first: TensorSpec | bool | int | float | complex
    second: TensorSpec | bool | int | float | complex
    alpha: bool | int | float | complex | None
    entry: str


@st.composite
def add_case(draw: st.DrawFn) -> AddCase:
    shape_a, shape_b = draw(operand_shapes())
    layout = draw(st.sampled_from(["tt", "ts", "st"]))
    first = draw(_SCALARS) if layout[0] == "s" else draw(tensor_spec(shape_a))
    second = draw(_SCALARS) if layout[1] == "s" else draw(tensor_spec(shape_b))
    entries = ["operator", "aten"] + (["method"] if layout[0] == "t" else [])
    entry = draw(st.sampled_from(entries))
    # Beyond the usual alphas, some that overflow narrow dtypes (torch checks alpha's range).
    alphas = st.one_of(
        st.sampled_from([None, 1, 2, -1, 0.5, True, 1j]),
        st.sampled_from([2**40, -300, 1e6, 1e300, False, 0]),
    )
    alpha = None if entry == "operator" else draw(alphas)
    return AddCase(first, second, alpha, entry)


def _run(lib: Any, case: AddCase) -> Any:
    a = _build(lib, case.first) if isinstance(case.first, TensorSpec) else case.first
    b = _build(lib, case.second) if isinstance(case.second, TensorSpec) else case.second
    kwargs = {} if case.alpha is None else {"alpha": case.alpha}
    if case.entry == "operator":
        return a + b
    if case.entry == "method":
        return a.add(b, **kwargs)
    return lib.ops.aten.add.Tensor(a, b, **kwargs)


def _outcome(lib: Any, case: AddCase) -> tuple[Any, BaseException | None]:
    try:
        return _run(lib, case), None
    except Exception as exc:  # noqa: BLE001 - any exception is compared with torch's
        return None, exc


@given(add_case())
@settings(settings.get_profile(_PROFILE))
def test_random_add_matches_torch(case: AddCase) -> None:
    expected, torch_error = _outcome(torch, case)
    actual, refimpl_error = _outcome(refimpl, case)
    if torch_error is not None:
        assert refimpl_error is not None, f"torch raised {torch_error!r}; refimpl returned {actual}"
        assert (type(refimpl_error), str(refimpl_error)) == (type(torch_error), str(torch_error))
        return
    if expected.dtype == torch.complex32:
        # float16 with a complex number gives complex32, which no Array API library stores.
        assert isinstance(refimpl_error, TypeError)
        assert "has no dtype complex32" in str(refimpl_error)
        return
    if refimpl_error is not None:
        raise refimpl_error
    assert actual.dtype.__repr__().removeprefix("refimpl.") == str(expected.dtype).removeprefix(
        "torch."
    )
    assert tuple(actual.shape) == tuple(expected.shape)
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True)


def test_float16_skipped_only_where_missing() -> None:
    """float16 is drawn unless the CPU backend lacks it (array_api_strict)."""
    if "float16" not in DTYPES:
        with pytest.raises(TypeError, match="has no dtype float16"):
            refimpl.ones(1, dtype=refimpl.float16)
