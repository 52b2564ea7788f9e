"""The functions outside the Array API standard that the NumPy backend supplies.

NumPy has the C-library functions (fmod, frexp, ldexp, nextafter); SciPy's `scipy.special`
has the special functions. Each entry maps a name of `refimpl.core.backend.EXTENSION_NAMES`
to a function of NumPy arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as sc

from backends.numpy.linalg import linalg_extensions
from backends.numpy.linalg_spectral import spectral_extensions


def _complex(real: Any, imag: Any) -> Any:
    # real + imag*1j is not exact (inf*1j has a NaN real part); set the parts instead.
    result = np.empty(np.broadcast_shapes(real.shape, imag.shape),
                      dtype=np.result_type(real.dtype, np.complex64))
    result.real = real
    result.imag = imag
    return result


def _scatter_set(target: Any, positions: Any, values: Any) -> Any:
    # NumPy documents no order for repeated indices; its 1-D fancy assignment writes in
    # index order (the last duplicate wins), which conformance/test_gather_scatter.py checks.
    out = target.copy()
    out[positions] = values
    return out


def _scatter_at(ufunc: Any) -> Callable[[Any, Any, Any], Any]:
    def scatter(target: Any, positions: Any, values: Any) -> Any:
        # ufunc.at applies the ufunc once per index, in order (unbuffered).
        out = target.copy()
        ufunc.at(out, positions, values)
        return out

    return scatter


def _libm(function: Callable[[float], float], lowest: float) -> Callable[[Any], Any]:
    """A float64 C-library function (through Python's math module, which calls the
    platform's libm) applied element by element where its argument exceeds `lowest`; NumPy's
    own SIMD loops elsewhere (there both give -inf or NaN)."""
    each = np.frompyfunc(function, 1, 1)

    def apply(x: Any) -> Any:
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(all="ignore"):
            result = np.log(x) if function is math.log else np.log1p(x)
        inside = x > lowest
        result[inside] = each(x[inside]).astype(np.float64)
        return result

    return apply


# The arguments where Python's math.exp/tan/sin/cos (the platform's libm) raise no domain or
# range error; other elements keep NumPy's value (exact there: infinities, NaN, 0).
_LIBM_DOMAINS: dict[str, Callable[[Any], Any]] = {
    "exp": lambda a: a < 709.0,
    "tan": np.isfinite,
    "sin": np.isfinite,
    "cos": np.isfinite,
}


def _libm_elementwise(name: str) -> Callable[[Any], Any]:
    """The C library's `name` element by element on a float64 array, through Python's math
    module (NumPy's own loops may round the last bit differently)."""
    scalar = getattr(math, name)
    vector = getattr(np, name)
    domain = _LIBM_DOMAINS[name]

    def apply(a: Any) -> Any:
        result = np.array(vector(a), dtype=np.float64)
        inside = domain(a)
        values = a[inside]
        result[inside] = np.fromiter(map(scalar, values.tolist()), np.float64, values.size)
        return result

    return apply


def _libm_pow(base: Any, exponent: Any) -> Any:
    """C pow on float64 arrays, element by element through Python's math.pow (the
    platform's libm, which torch's scalar loops call); NumPy's value where the result is 0,
    infinite or NaN (math.pow raises there instead)."""
    base, exponent = np.broadcast_arrays(
        np.asarray(base, dtype=np.float64), np.asarray(exponent, dtype=np.float64)
    )
    with np.errstate(all="ignore"):
        result = np.array(np.power(base, exponent), dtype=np.float64)
    inside = np.isfinite(result) & (result != 0)
    pairs = map(math.pow, base[inside].tolist(), exponent[inside].tolist())
    result[inside] = np.fromiter(pairs, np.float64, int(inside.sum()))
    return result


def numpy_extensions() -> dict[str, Callable[..., Any]]:
    """The extension table of the NumPy backend."""
    return {
        "fmod": np.fmod,
        "complex": _complex,
        "frexp": np.frexp,
        "ldexp": np.ldexp,
        "nextafter": np.nextafter,
        "libm_log": _libm(math.log, 0.0),
        "libm_log1p": _libm(math.log1p, -1.0),
        "libm_pow": _libm_pow,
        "erf": sc.erf,
        "erfc": sc.erfc,
        "erfinv": sc.erfinv,
        "erfcx": sc.erfcx,
        "lgamma": sc.gammaln,
        "digamma": sc.psi,
        "polygamma": sc.polygamma,
        "zeta": sc.zeta,
        "gammainc": sc.gammainc,
        "gammaincc": sc.gammaincc,
        "i0": sc.i0,
        "i0e": sc.i0e,
        "i1": sc.i1,
        "i1e": sc.i1e,
        "k0": sc.k0,
        "k0e": sc.k0e,
        "k1": sc.k1,
        "k1e": sc.k1e,
        "j0": sc.j0,
        "j1": sc.j1,
        "y0": sc.y0,
        "y1": sc.y1,
        "ndtr": sc.ndtr,
        "ndtri": sc.ndtri,
        "log_ndtr": sc.log_ndtr,
        "airy_ai": lambda x: sc.airy(x)[0],
        "spherical_j0": lambda x: sc.spherical_jn(0, x),
        "multigammaln": sc.multigammaln,
        "sinc": np.sinc,
        "entr": sc.entr,
        "xlogy": sc.xlogy,
        "xlog1py": sc.xlog1py,
        "scatter_set": _scatter_set,
        "scatter_sum": _scatter_at(np.add),
        "scatter_prod": _scatter_at(np.multiply),
        "scatter_amax": _scatter_at(np.maximum),
        "scatter_amin": _scatter_at(np.minimum),
        **{f"libm_{name}": _libm_elementwise(name) for name in _LIBM_DOMAINS},
        **linalg_extensions(),
        **spectral_extensions(),
    }
