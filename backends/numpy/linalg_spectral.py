"""The eigendecomposition of general matrices (LAPACK ?geev), which the Array API standard lacks, for the NumPy backend.

Torch computes linalg.eig and linalg.eigvals with LAPACK ?geev on the CPU
(BatchLinearAlgebraKernel.cpp: apply_linalg_eig); numpy.linalg.eig / eigvals call the same
routine, batched, in the input's precision. Both return complex arrays (NumPy returns real
ones when every eigenvalue is real; torch's results are always complex). The meaning of each
entry is in `refimpl.core.backend.EXTENSION_NAMES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _complex_of(a: Any) -> Any:
    return np.result_type(a.dtype, np.complex64)


def eig(a: Any) -> tuple[Any, Any]:
    """The eigenvalues and the right eigenvectors (columns of norm 1) of each matrix."""
    values, vectors = np.linalg.eig(a)
    dtype = _complex_of(a)
    return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)


def eigvals(a: Any) -> Any:
    """The eigenvalues of each matrix."""
    return np.linalg.eigvals(a).astype(_complex_of(a), copy=False)


def spectral_extensions() -> dict[str, Callable[..., Any]]:
    """The spectral entries of the NumPy backend's extension table."""
    return {"linalg_eig": eig, "linalg_eigvals": eigvals}
