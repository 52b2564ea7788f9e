"""Pieces the built-in backend plugins share: dtype tables and a NumPy-driven random source.

Torch: no counterpart. Third-party plugins need none of this; they implement
`refimpl.core.backend.Backend` directly.
"""

from __future__ import annotations

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
    """torch's CPU stream: NumPy's MT19937 bit generator, read raw (`random_raw`).

    NumPy's MT19937 is the same engine as torch's at::mt19937; refimpl seeds it as torch
    does by setting its state words (refimpl/core/random.py). Words are converted to the
    backend's arrays by `convert`.
    """

    __slots__ = ("_bits", "_convert", "_words")

    def __init__(self, seed: int, convert: Callable[[np.ndarray[Any, Any]], Any]) -> None:
        # NumPy's legacy seeding (init_genrand) is torch's for seeds below 2^32; refimpl
        # sets the state it wants through set_state anyway.
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(seed & 0xFFFFFFFF)
        self._convert = convert
        # integers over the whole uint32 range return the raw words (next_uint32), already
        # as uint32: one pass where random_raw's uint64 needs a second.
        self._words = np.random.Generator(self._bits)

    def random_raw(self, n: int) -> Any:
        words = self._words.integers(0, 1 << 32, size=n, dtype=np.uint32)
        return self._convert(words)

    def get_state(self) -> bytes:
        state = self._bits.state["state"]
        words = np.append(state["key"].astype("<u4"), np.array([state["pos"]], dtype="<u4"))
        return words.tobytes()

    def set_state(self, state: bytes) -> None:
        words = np.frombuffer(state, dtype="<u4")
        if words.shape != (625,) or words[624] > 624:
            raise ValueError("an mt19937 state is 624 words and a position 0..624")
        self._bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": words[:624].astype(np.uint32), "pos": int(words[624])},
        }


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
