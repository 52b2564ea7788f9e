"""The functions outside the Array API standard that the NumPy backend supplies.

NumPy has the C-library functions (fmod, frexp, ldexp, nextafter); SciPy's `scipy.special`
has the special functions. Each entry maps a name of `refimpl.core.backend.EXTENSION_NAMES`
to a function of NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as sc


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


def numpy_extensions() -> dict[str, Callable[..., Any]]:
    """The extension table of the NumPy backend."""
    return {
        "fmod": np.fmod,
        "complex": _complex,
        "frexp": np.frexp,
        "ldexp": np.ldexp,
        "nextafter": np.nextafter,
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
    }
