"""torch.special against torch: special functions, Bessel functions, orthogonal polynomials.

Table-driven: each case runs the same calls in both libraries (`lib` is torch or refimpl) for
each dtype; the outcome must match: the exception (type and message), or the result's dtype,
shape, strides and values (assert_close with torch's tolerances, NaNs equal). Functions that
need a backend extension (SciPy on NumPy) must, on a backend without it (array_api_strict),
raise refimpl's "backend has no" error instead: that is the expected failure there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._oracle import outcome

_CPU = refimpl.config.backends.resolve("cpu")
_CPU_DTYPES = {d.name for d in _CPU.array_dtypes}
_INF, _NAN = math.inf, math.nan

_FLOATS = [-3.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0, 7.5, _INF, -_INF, _NAN, 1e-5, 30.0, -30.0]
_INTS = [-3, -1, 0, 1, 2, 5, 12, -7, 3, 4, 6, 8, 9, 10, 11, 100]
_VALUES = {"float": _FLOATS, "int": _INTS, "uint": [abs(v) for v in _INTS],
           "bool": [bool(v % 2) for v in _INTS], "complex": [complex(v, 1) for v in _INTS]}
# Points and degrees for the polynomials: |x| = 1, x = 0, 0.5 (shifted), |x| > 1; n < 0,
# fractional n (truncated), n past the closed-form thresholds (6, 8).
_PX = [-1.5, -1.0, -0.9, -0.5, -0.3, 0.0, 0.2, 0.5, 0.75, 1.0, 1.2, 2.0, _NAN]
_PN = [-3.0, -1.0, -0.5, 0.0, 1.0, 1.7, 2.0, 3.0, 5.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0]


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str = "float64") -> Any:
    """16 values of the dtype's kind, as a transposed (4, 4) tensor (a strided input)."""
    return lib.tensor(_VALUES[_kind(dtype)], dtype=getattr(lib, dtype)).reshape(4, 4).t()


def _same(expected: Any, actual: Any) -> None:
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    tolerance = {"rtol": 2e-3, "atol": 1e-3} if expected.dtype is torch.float16 else {}
    torch.testing.assert_close(got, expected, equal_nan=True, **tolerance)


def check(fn: Callable[[Any], Any], extension: str | None = None) -> None:
    """Run `fn` with torch and refimpl; the outcomes must match."""
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if extension is not None and extension not in _CPU.extensions and expected_error is None:
        assert isinstance(actual_error, NotImplementedError), actual_error
        assert f"has no '{extension}'" in str(actual_error)
        return
    if expected_error is not None:
        assert type(actual_error) is type(expected_error), (expected_error, actual_error)
        assert str(actual_error) == str(expected_error)
        return
    assert actual_error is None, actual_error
    _same(expected, actual)


# name -> the backend extension it needs (None: composed from the Array API standard).
UNARY: dict[str, str | None] = {
    "entr": None, "erfcx": "erfcx", "ndtri": "ndtri", "log_ndtr": "log_ndtr", "i0e": "i0e",
    "i1": "i1", "i1e": "i1e", "bessel_j0": "j0", "bessel_j1": "j1", "bessel_y0": "y0",
    "bessel_y1": "y1", "modified_bessel_i0": "i0", "modified_bessel_i1": "i1",
    "modified_bessel_k0": "k0", "modified_bessel_k1": "k1", "scaled_modified_bessel_k0": "k0e",
    "scaled_modified_bessel_k1": "k1e", "airy_ai": "airy_ai", "spherical_bessel_j0": None,
    "ndtr": "erf",
}
UNARY_DTYPES = [d for d in ("bool", "uint8", "int16", "float32", "float64", "complex64")
                if d in _CPU_DTYPES]


@pytest.mark.parametrize("dtype", UNARY_DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name: str, dtype: str) -> None:
    check(lambda lib: getattr(lib.special, name)(_t(lib, dtype)), UNARY[name])


@pytest.mark.parametrize("name", ["entr", "i0e", "i1e"])
def test_unary_float16(name: str) -> None:
    if "float16" not in _CPU_DTYPES:
        pytest.skip("no float16 on this backend")
    check(lambda lib: getattr(lib.special, name)(_t(lib, "float16")), UNARY[name])


@pytest.mark.parametrize("name", ["entr", "bessel_j0", "ndtr"])
def test_unary_out(name: str) -> None:
    def fn(lib: Any) -> Any:
        out = lib.empty(4, 4, dtype=lib.float64)
        result = getattr(lib.special, name)(_t(lib, "float32"), out=out)
        assert result is out
        return out

    check(fn, UNARY[name])


def test_out_int_dtype_error() -> None:
    check(lambda lib: lib.special.entr(_t(lib, "float32"), out=lib.empty(4, 4, dtype=lib.int64)))


BINARY: dict[str, str | None] = {"xlog1py": None, "zeta": None}


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary(name: str, dtype: str) -> None:
    def fn(lib: Any) -> Any:
        x = lib.tensor(_VALUES[_kind(dtype)], dtype=getattr(lib, dtype)).reshape(-1, 1)
        q = lib.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.5, _NAN, _INF])
        return getattr(lib.special, name)(x, q)

    check(fn, BINARY[name])


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("form", ["self_scalar", "other_scalar", "out"])
def test_binary_forms(name: str, form: str) -> None:
    def fn(lib: Any) -> Any:
        f = getattr(lib.special, name)
        x = lib.tensor([1.5, 2.0, 3.0, 0.0])
        if form == "self_scalar":
            return f(2, x)
        if form == "other_scalar":
            return f(x, 2.5)
        return f(x, x, out=lib.empty(0, dtype=lib.float64))

    check(fn, BINARY[name])


POLYNOMIALS = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p",
]


@pytest.mark.parametrize("dtypes", ["float64", "float32", "float64-int64", "int64-int64"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial(name: str, dtypes: str) -> None:
    x_dtype, _, n_dtype = dtypes.partition("-")

    def fn(lib: Any) -> Any:
        xs = _PX if x_dtype.startswith("float") else [-2, -1, 0, 1, 2, 3]
        ns = _PN if (n_dtype or x_dtype).startswith("float") else [-2, 0, 1, 2, 3, 7, 9, 12]
        x = lib.tensor(xs, dtype=getattr(lib, x_dtype)).reshape(-1, 1)
        n = lib.tensor(ns, dtype=getattr(lib, n_dtype or x_dtype))
        return getattr(lib.special, name)(x, n)

    check(fn)


# The polynomials whose every float32 value is a recurrence step (the Chebyshev ones take a
# closed form through libm's cosf/acosf for large n, which refimpl computes in float64 and
# rounds: about 1% of values an ulp from glibc's, within tolerance, not equal).
RECURRENCES = ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
               "legendre_polynomial_p"]


@pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() == "DEFAULT",
    reason="torch's DEFAULT-capability kernels do not fuse the step into an FMA",
)
@pytest.mark.parametrize("name", RECURRENCES)
def test_polynomial_float32_steps_equal_torchs(name: str) -> None:
    """Note [The recurrences' fused multiply-subtract] in ops/special_polynomials.py: float32
    values equal torch's bit for bit, near roots too (He_7(3.7645): 43.70929, unfused
    43.70886)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.cat([torch.tensor([3.7644824981689453]), torch.randn(4000, generator=generator) * 4])
    n = torch.cat([torch.tensor([7.0]), torch.randint(0, 14, (4000,), generator=generator).float()])
    expected = getattr(torch.special, name)(x, n)
    actual = getattr(refimpl.special, name)(refimpl.tensor(x.tolist()), refimpl.tensor(n.tolist()))
    got = torch.tensor(actual.tolist(), dtype=torch.float32)
    assert torch.equal(got.isnan(), expected.isnan())
    assert torch.equal(got.nan_to_num(), expected.nan_to_num())


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("form", ["x_scalar", "n_scalar", "out", "float16"])
def test_polynomial_forms(name: str, form: str) -> None:
    if form == "float16" and "float16" not in _CPU_DTYPES:
        pytest.skip("no float16 on this backend")

    def fn(lib: Any) -> Any:
        f = getattr(lib.special, name)
        x = lib.tensor([-1.0, -0.4, 0.0, 0.3, 1.0, 1.5])
        if form == "x_scalar":
            return f(0.5, lib.tensor([0, 1, 2, 5, 10]))
        if form == "n_scalar":
            return f(x, 4)
        if form == "out":
            return f(x, x, out=lib.empty(2, 3, dtype=lib.float64).t())
        return f(lib.tensor([0.5, 1.0], dtype=lib.float16), 3)

    check(fn)


# The aliases torch decomposes: run through the op they call.
ALIASES: dict[str, Callable[[Any], Any]] = {
    "expit": lambda lib: lib.special.expit(_t(lib, "float32")),
    "exp2": lambda lib: lib.special.exp2(_t(lib, "int16")),
    "expm1": lambda lib: lib.special.expm1(_t(lib, "float64")),
    "erf": lambda lib: lib.special.erf(_t(lib, "float32")),
    "erfc": lambda lib: lib.special.erfc(_t(lib, "float32")),
    "erfinv": lambda lib: lib.special.erfinv(lib.tensor([-0.5, 0.0, 0.9, 1.0])),
    "gammaln": lambda lib: lib.special.gammaln(_t(lib, "float64")),
    "digamma": lambda lib: lib.special.digamma(_t(lib, "float64")),
    "psi": lambda lib: lib.special.psi(lib.tensor([0.5, 1.0, 2.0, 3.5])),
    "i0": lambda lib: lib.special.i0(_t(lib, "float32")),
    "log1p": lambda lib: lib.special.log1p(_t(lib, "float32")),
    "sinc": lambda lib: lib.special.sinc(_t(lib, "float64")),
    "logit": lambda lib: lib.special.logit(lib.tensor([0.1, 0.5, 0.95]), eps=0.2),
    "polygamma": lambda lib: lib.special.polygamma(1, lib.tensor([0.5, 1.0, 2.0])),
    "multigammaln": lambda lib: lib.special.multigammaln(lib.tensor([2.0, 3.5]), 2),
    "round": lambda lib: lib.special.round(lib.tensor([1.2345, 2.5, -0.125]), decimals=2),
    "xlogy": lambda lib: lib.special.xlogy(lib.tensor([0.0, 1.0, 2.0]), 3.0),
    "xlogy_self_scalar": lambda lib: lib.special.xlogy(2, lib.tensor([0.5, 1.0, 2.0])),
    "gammainc": lambda lib: lib.special.gammainc(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 3.0])),
    "gammaincc": lambda lib: lib.special.gammaincc(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 3.0])),
    "ndtr_out": lambda lib: lib.special.ndtr(
        lib.tensor([-1.0, 0.0, 2.0]), out=lib.empty(3, dtype=lib.float64)
    ),
    "ndtr_out_int": lambda lib: lib.special.ndtr(
        lib.tensor([-1.0, 0.0, 2.0]), out=lib.empty(3, dtype=lib.int64)
    ),
}


@pytest.mark.parametrize("case", list(ALIASES))
def test_alias(case: str) -> None:
    # The aliased ops belong to other modules; one without a kernel yet, or needing an
    # extension this backend lacks, is an expected failure, named in the reason.
    _, error = outcome(ALIASES[case], refimpl)
    if isinstance(error, NotImplementedError) and (
        "Could not run 'aten::" in str(error) or "backend has no" in str(error)
    ):
        pytest.xfail(str(error).partition(". ")[0])
    check(ALIASES[case])


def test_public_module() -> None:
    public = {n for n in dir(torch.special) if not n.startswith("_")}
    skipped = {"Tensor", "common_args", "multi_dim_common", "torch", "logsumexp", "softmax",
               "log_softmax"}
    missing = sorted(public - skipped - set(dir(refimpl.special)))
    assert not missing
    assert refimpl.special.ndtr.__module__ == "refimpl.special"
