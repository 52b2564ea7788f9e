"""The functions outside the Array API standard that the CuPy backend supplies.

CuPy has the C-library functions; `cupyx.scipy.special` has the special functions (SciPy's
names). Each entry maps a name of `refimpl.core.backend.EXTENSION_NAMES` to a function of
CuPy arrays; names CuPy lacks are left out, and refimpl says so when an op needs one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# scipy.special name -> refimpl extension name, for those that differ.
_SPECIAL_NAMES: dict[str, str] = {
    "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "erfcx": "erfcx", "gammaln": "lgamma",
    "psi": "digamma", "polygamma": "polygamma", "zeta": "zeta", "gammainc": "gammainc",
    "gammaincc": "gammaincc", "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e", "k0": "k0",
    "k0e": "k0e", "k1": "k1", "k1e": "k1e", "j0": "j0", "j1": "j1", "y0": "y0", "y1": "y1",
    "ndtr": "ndtr", "ndtri": "ndtri", "log_ndtr": "log_ndtr", "multigammaln": "multigammaln",
    "entr": "entr", "xlogy": "xlogy", "xlog1py": "xlog1py",
}


def _complex(cupy: Any, real: Any, imag: Any) -> Any:
    # real + imag*1j is not exact (inf*1j has a NaN real part); set the parts instead.
    shape = cupy.broadcast_shapes(real.shape, imag.shape)
    result = cupy.empty(shape, dtype=cupy.result_type(real.dtype, cupy.complex64))
    result.real = real
    result.imag = imag
    return result


def cupy_extensions(cupy: Any) -> dict[str, Callable[..., Any]]:
    """The extension table of the CuPy backend (only what this CuPy has)."""
    from cupyx.scipy import special

    table: dict[str, Callable[..., Any]] = {
        "complex": lambda real, imag: _complex(cupy, real, imag),
        "fmod": cupy.fmod, "frexp": cupy.frexp, "ldexp": cupy.ldexp,
        "nextafter": cupy.nextafter, "sinc": cupy.sinc,
    }
    # No scatter_set/_sum/_prod/_amax/_amin: CuPy's fancy assignment and cupyx.scatter_*
    # keep no order among duplicate positions, so refimpl's deterministic composition from
    # the standard runs instead (refimpl.ops._scatter, Note [Deterministic scatter]).
    for scipy_name, name in _SPECIAL_NAMES.items():
        fn = getattr(special, scipy_name, None)
        if fn is not None:
            table[name] = fn
    return table
