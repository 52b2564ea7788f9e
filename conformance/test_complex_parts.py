"""complex(real, imag) against torch, bit for bit, on the NumPy and array-api-strict backends.

NumPy supplies the extension "complex"; array-api-strict has none, so there refimpl composes
it from the standard (refimpl/ops/_complex_parts.py, Note [Exact complex from parts]). Both
must give torch's parts exactly: signed zeros, infinities and NaNs (with their sign) in
either part, subnormals and huge values, broadcast shapes, and random finite values.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Final, Literal

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import refimpl

BACKENDS: Final = ("numpy", "array_api_strict")
DTYPES: Final = ("float32", "float64")
WIDTH: Final[dict[str, Literal[32, 64]]] = {"float32": 32, "float64": 64}
_INF, _NAN = math.inf, math.nan

# The special values of each dtype: both zeros, both infinities, NaN of both signs, ordinary
# numbers, the smallest subnormals and the largest finite values.
SPECIAL: Final[dict[str, list[float]]] = {
    "float32": [0.0, -0.0, _INF, -_INF, _NAN, -_NAN, 1.5, -2.0, 1e-45, -1e-45, 1.2e-38,
                3.4e38, -3.4e38],
    "float64": [0.0, -0.0, _INF, -_INF, _NAN, -_NAN, 1.5, -2.0, 5e-324, -5e-324, 2.2e-308,
                1.7e308, -1.7e308],
}

# (real's shape, imag's shape): each side broadcast against the other, 0-d and empty too.
BROADCAST_SHAPES: Final = [
    ((), ()),
    ((), (4,)),
    ((4,), ()),
    ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)),
    ((1,), (2, 3)),
    ((0, 3), (3,)),
]


def _both(dtype: str, real: list[float], imag: list[float], real_shape: tuple[int, ...],
          imag_shape: tuple[int, ...]) -> tuple[Any, torch.Tensor]:
    """refimpl's and torch's complex(real, imag) for the same parts."""
    def make(lib: Any, values: list[float], shape: tuple[int, ...]) -> Any:
        return lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)

    expected = torch.complex(make(torch, real, real_shape), make(torch, imag, imag_shape))
    actual = refimpl.complex(make(refimpl, real, real_shape), make(refimpl, imag, imag_shape))
    return actual, expected


def _assert_bitwise(actual: Any, expected: torch.Tensor) -> None:
    """Same dtype and shape; each part equal to torch's, with its sign bit, NaN where torch's
    is NaN (the parts compared as real tensors, torch.view_as_real on both)."""
    assert actual.dtype.name == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    # refimpl's values, read out as Python complex numbers (exact: each part is a float of
    # the dtype), back in a torch tensor of the same dtype (and shape: an empty list is 1-D).
    values = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    got = torch.view_as_real(values)
    want = torch.view_as_real(expected)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(torch.signbit(got), torch.signbit(want))
    assert torch.equal(torch.nan_to_num(got, nan=0.0), torch.nan_to_num(want, nan=0.0))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_grid(backend: str, dtype: str) -> None:
    """Every special real part with every special imaginary part."""
    pairs = list(itertools.product(SPECIAL[dtype], repeat=2))
    real = [r for r, _ in pairs]
    imag = [i for _, i in pairs]
    with refimpl.config.using(cpu=backend):
        actual, expected = _both(dtype, real, imag, (len(pairs),), (len(pairs),))
        _assert_bitwise(actual, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_outer(backend: str, dtype: str) -> None:
    """The same grid by broadcasting a column of real parts against a row of imag parts."""
    values = SPECIAL[dtype]
    with refimpl.config.using(cpu=backend):
        actual, expected = _both(dtype, values, values, (len(values), 1), (1, len(values)))
        _assert_bitwise(actual, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("real_shape", "imag_shape"), BROADCAST_SHAPES, ids=str)
def test_broadcast_shapes(backend: str, dtype: str, real_shape: tuple[int, ...],
                          imag_shape: tuple[int, ...]) -> None:
    values = SPECIAL[dtype]
    real = [values[k % len(values)] for k in range(math.prod(real_shape))]
    imag = [values[(3 * k + 1) % len(values)] for k in range(math.prod(imag_shape))]
    with refimpl.config.using(cpu=backend):
        actual, expected = _both(dtype, real, imag, real_shape, imag_shape)
        _assert_bitwise(actual, expected)


@st.composite
def _finite_parts(draw: st.DrawFn) -> tuple[str, list[float], list[float], tuple[int, ...]]:
    """A dtype, real and imag parts of one length, and the imag parts' shape (a row or a
    column: broadcast against the real row)."""
    dtype = draw(st.sampled_from(DTYPES))
    floats = st.floats(allow_nan=False, allow_infinity=False, width=WIDTH[dtype])
    size = draw(st.integers(1, 8))
    real = draw(st.lists(floats, min_size=size, max_size=size))
    imag = draw(st.lists(floats, min_size=size, max_size=size))
    imag_shape = draw(st.sampled_from([(size,), (size, 1)]))
    return dtype, real, imag, imag_shape


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(parts=_finite_parts())
def test_random_finite_parts(
    backend: str, parts: tuple[str, list[float], list[float], tuple[int, ...]]
) -> None:
    dtype, real, imag, imag_shape = parts
    with refimpl.config.using(cpu=backend):
        actual, expected = _both(dtype, real, imag, (len(real),), imag_shape)
        _assert_bitwise(actual, expected)
