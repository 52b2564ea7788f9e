"""Pieces the built-in backend plugins share: dtype tables and a NumPy-driven random source.

Torch: no counterpart. Third-party plugins need none of this; they implement
`refimpl.core.backend.Backend` directly.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from refimpl._base.dtypes import STORED_DTYPES, DType


def dtype_table(xp: Any) -> dict[DType, Any]:
    """refimpl dtype -> `xp` dtype, for every stored dtype the namespace defines."""
    table: dict[DType, Any] = {}
    for dtype in STORED_DTYPES:
        array_dtype = getattr(xp, dtype.name, None)
        if array_dtype is not None:
            table[dtype] = array_dtype
    return table


class NumpyRandom:
    """Random numbers from NumPy's PCG64, converted to the backend's arrays by `convert`."""

    __slots__ = ("_convert", "_rng")

    def __init__(self, seed: int, convert: Callable[[np.ndarray[Any, Any]], Any]) -> None:
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self._convert = convert

    def uniform(self, n: int) -> Any:
        return self._convert(self._rng.random(n, dtype=np.float64))

    def normal(self, n: int) -> Any:
        return self._convert(self._rng.standard_normal(n, dtype=np.float64))

    def integers(self, low: int, high: int, n: int) -> Any:
        return self._convert(self._rng.integers(low, high, size=n, dtype=np.int64))

    def permutation(self, n: int) -> Any:
        return self._convert(self._rng.permutation(n).astype(np.int64))

    def get_state(self) -> bytes:
        return pickle.dumps(self._rng.bit_generator.state)

    def set_state(self, state: bytes) -> None:
        self._rng.bit_generator.state = pickle.loads(state)


class StridedViews:
    """Strided views and in-place writes for a NumPy-like library (NumPy, CuPy).

    `_lib` is the library module: it has `lib.stride_tricks.as_strided` and
    `ascontiguousarray`, and its arrays have `strides` in bytes and `flags`.
    """

    _lib: Any

    def as_strided(
        self, flat: Any, size: Sequence[int], stride: Sequence[int], offset: int
    ) -> Any:
        itemsize = flat.itemsize
        return self._lib.lib.stride_tricks.as_strided(
            flat[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride)
        )

    def write_strided(
        self, flat: Any, size: Sequence[int], stride: Sequence[int], offset: int, values: Any
    ) -> None:
        target = self.as_strided(flat, size, stride, offset)
        target[...] = values

    def bitcast(self, flat: Any, dtype: Any) -> Any:
        # ndarray.view(dtype) reinterprets the bytes of a contiguous array without a copy.
        return flat.view(dtype)

    def flatten(self, array: Any) -> Any:
        # A strided array reshapes to a strided 1-D view; storage must be contiguous.
        if not array.flags.c_contiguous:
            array = self._lib.ascontiguousarray(array)
        return array.reshape(-1)

    def strided_source(self, array: Any) -> tuple[Any, tuple[int, ...]] | None:
        itemsize = array.itemsize
        if any(s < 0 or s % itemsize for s in array.strides):
            return None
        strides = tuple(s // itemsize for s in array.strides)
        extent = 0 if 0 in array.shape else 1 + sum(
            (n - 1) * s for n, s in zip(array.shape, strides)
        )
        flat = self._lib.lib.stride_tricks.as_strided(
            array, shape=(extent,), strides=(itemsize,)
        )
        return flat, strides
