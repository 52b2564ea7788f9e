"""The CuPy backend: CUDA tensors in CuPy arrays (the default for `cuda`).

CuPy is imported when the backend is first used, so refimpl imports without it. CuPy has
strided views and in-place writes, like NumPy.
"""

from __future__ import annotations

import pickle
from typing import Any

from backends._common import StridedViews, dtype_table
from backends.cupy.extensions import cupy_extensions
from refimpl._base.dtypes import DType


class CupyRandom:
    """Raw 32-bit words from CuPy's own generator on the device (not torch's Philox stream).

    refimpl applies torch's transforms to these words (refimpl/core/random.py), so the
    distributions are torch's but the values differ from torch's CUDA ones.
    """

    __slots__ = ("_cp", "_rng")

    def __init__(self, cp: Any, seed: int) -> None:
        self._cp = cp
        self._rng = cp.random.RandomState(seed % (1 << 64))

    def random_raw(self, n: int) -> Any:
        words = self._rng.randint(0, 1 << 32, size=n, dtype=self._cp.int64)
        return words.astype(self._cp.uint32)

    def get_state(self) -> bytes:
        return pickle.dumps(self._rng)

    def set_state(self, state: bytes) -> None:
        self._rng = pickle.loads(state)


class CupyBackend(StridedViews):
    """CUDA tensors on CuPy, computing through array-api-compat's CuPy namespace."""

    name = "cupy"
    device_type = "cuda"
    supports_strided_views = True
    supports_inplace = True
    supports_bitcast = True

    def __init__(self) -> None:
        import array_api_compat.cupy as xp_cupy
        import cupy

        self._cp: Any = cupy
        self._lib = cupy
        self.xp: Any = xp_cupy
        self.extensions = cupy_extensions(cupy)
        self.array_dtypes: dict[DType, Any] = dtype_table(xp_cupy)
        self._by_cupy = {cupy.dtype(v): k for k, v in self.array_dtypes.items()}

    def from_host(self, data: object) -> Any:
        return self._cp.asarray(data)

    def to_host(self, array: Any) -> Any:
        return self._cp.asnumpy(array)

    def tolist(self, array: Any) -> Any:
        return self._cp.asnumpy(array).tolist()

    def dtype_of(self, array_or_scalar: object) -> DType | None:
        dt = getattr(array_or_scalar, "dtype", None)
        if dt is None:
            return None
        try:
            return self._by_cupy.get(self._cp.dtype(dt))
        except TypeError:
            return None

    def random(self, seed: int) -> CupyRandom:
        return CupyRandom(self._cp, seed)


def backend() -> CupyBackend:
    """Entry point: the CuPy backend."""
    return CupyBackend()
