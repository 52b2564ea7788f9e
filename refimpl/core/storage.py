"""Storage: one flat backend array that tensors view, plus the version counter they share.

Torch: c10::StorageImpl and c10::VariableVersion. A storage holds a 1-D array of its backend's
library; every tensor is a strided view of one storage. Backends whose arrays cannot be
written in place get their array *replaced* on a write, which every alias sees because they
all hold the same `Storage` object (see Note [Storage model] in design.md).
"""

from __future__ import annotations

import itertools
from typing import Final

from refimpl._base.device import device, storage_device
from refimpl._base.dtypes import DType
from refimpl.core.backend import Array, Backend

# Fake addresses so that data_ptr() is offset-aware and distinct storages never overlap.
# Differs: torch reports real memory addresses; only differences and overlaps are meaningful.
_ALIGNMENT: Final = 64
_next_address = itertools.count(1)


class Storage:
    """A flat array of `size` elements of `dtype` on `device`, or no array (meta tensors).

    Torch: c10::StorageImpl (returned by Tensor.untyped_storage()).
    """

    __slots__ = ("__weakref__", "_address", "array", "backend", "device", "dtype", "size_elements")

    def __init__(
        self,
        array: Array | None,
        size_elements: int,
        dtype: DType,
        device: device,
        backend: Backend | None,
    ) -> None:
        self.array = array
        self.size_elements = size_elements
        self.dtype = dtype
        # torch: CPU and meta storages have no device index (see storage_device).
        self.device = device if device._index is None else storage_device(device)
        self.backend = backend
        self._address = 0  # given on first data_ptr(): most storages never need one

    def nbytes(self) -> int:
        """Size in bytes. Torch: UntypedStorage.nbytes."""
        return self.size_elements * self.dtype.itemsize

    def size(self) -> int:
        """Size in bytes, as torch's UntypedStorage.size()."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        """A stable fake address of the first byte (0 for an empty or meta storage)."""
        if self.array is None:
            return 0
        if not self._address:
            self._address = next(_next_address) * (1 << 40)
        return self._address

    def element_size(self) -> int:
        return 1

    @property
    def is_meta(self) -> bool:
        return self.array is None and self.device.type == "meta"

    def __repr__(self) -> str:
        return (
            f"<refimpl.Storage of {self.size_elements} {self.dtype.name} on {self.device}"
            f" ({self.backend.name if self.backend else 'no data'})>"
        )


class VersionCounter:
    """The version shared by a tensor and its views, bumped by every in-place write.

    Torch: c10::VariableVersion (`Tensor._version`).
    """

    __slots__ = ("version",)

    def __init__(self) -> None:
        self.version = 0

    def bump(self) -> None:
        self.version += 1
