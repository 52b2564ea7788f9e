"""The array-api-strict backend: CPU tensors on the strict reference namespace.

It proves that kernels use only the Array API standard. It has no strided views, so views
are gathered from index arrays, and refimpl never writes into its arrays in place: a write
replaces the storage's array. It has no float16.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import array_api_strict
import numpy as np

_ARRAY_TYPE: type = type(array_api_strict.asarray(0))

from backends._common import NumpyRandom, dtype_table
from backends._warnings import ignore_runtime_warnings_from
from refimpl._base.dtypes import DType

# torch computes silently where NumPy warns (0 / 0, inf - inf, a NaN cast to int), as the
# NumPy backend says; array-api-strict computes through NumPy inside its own modules, so the
# filter names them too. A user's own NumPy code still warns.
# backends/_warnings.py keeps the filter in front, through catch_warnings blocks.
ignore_runtime_warnings_from(r"(refimpl|backends|array_api_strict)(\.|$)")


class ArrayApiStrictBackend:
    """CPU tensors on array_api_strict, using nothing outside the standard."""

    name = "array_api_strict"
    device_type = "cpu"
    supports_strided_views = False
    supports_inplace = False
    # Differs: the standard has no bitcast, so tensors cannot view their storage as another
    # dtype here (Tensor.view(dtype) raises; view_as_real / view_as_complex copy).
    supports_bitcast = False

    def __init__(self) -> None:
        self.xp: Any = array_api_strict
        # Differs: no functions outside the standard; ops that need one say so by name.
        self.extensions: dict[str, Any] = {}
        self.array_dtypes: dict[DType, Any] = dtype_table(array_api_strict)
        self._by_dtype = {v: k for k, v in self.array_dtypes.items()}
        self._by_numpy = {
            np.dtype(k.name if k.name != "bool" else "bool"): k for k in self.array_dtypes
        }

    def as_strided(
        self, flat: Any, size: Sequence[int], stride: Sequence[int], offset: int
    ) -> Any:
        raise NotImplementedError("array_api_strict has no strided views")

    def write_strided(
        self, flat: Any, size: Sequence[int], stride: Sequence[int], offset: int, values: Any
    ) -> None:
        raise NotImplementedError("refimpl does not write array_api_strict arrays in place")

    def bitcast(self, flat: Any, dtype: Any) -> Any:
        raise NotImplementedError("array_api_strict has no bitcast")

    def flatten(self, array: Any) -> Any:
        return array_api_strict.reshape(array, (-1,))

    def strided_source(self, array: Any) -> tuple[Any, tuple[int, ...]] | None:
        return None  # no strided views: refimpl copies

    def from_host(self, data: object) -> Any:
        if isinstance(data, _ARRAY_TYPE):
            return data
        host = np.asarray(data)
        if host.dtype.kind in "biufc" and np.dtype(host.dtype) not in self._by_numpy:
            raise TypeError(
                f"refimpl: the 'array_api_strict' backend (cpu) has no dtype {host.dtype}"
            )
        return array_api_strict.asarray(host, copy=True)

    def to_host(self, array: Any) -> Any:
        return np.from_dlpack(array)

    def tolist(self, array: Any) -> Any:
        return np.from_dlpack(array).tolist()

    def dtype_of(self, array_or_scalar: object) -> DType | None:
        if isinstance(array_or_scalar, _ARRAY_TYPE):
            return self._by_dtype.get(getattr(array_or_scalar, "dtype", None))
        dt = getattr(array_or_scalar, "dtype", None)
        if dt is None:
            return None
        try:
            return self._by_numpy.get(np.dtype(dt))
        except TypeError:
            return None

    def random(self, seed: int) -> NumpyRandom:
        return NumpyRandom(seed, array_api_strict.asarray)


def backend() -> ArrayApiStrictBackend:
    """Entry point: the array-api-strict backend."""
    return ArrayApiStrictBackend()
