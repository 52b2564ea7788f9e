"""Storage: one flat backend array that tensors view, plus the version counter they share.

Torch: c10::StorageImpl and c10::VariableVersion. A storage holds a 1-D array of its backend's
library; every tensor is a strided view of one storage. Backends whose arrays cannot be
written in place get their array *replaced* on a write, which every alias sees because they
all hold the same `Storage` object (see Note [Storage model] in design.md).

Note [Untyped storage]
Torch's storage is untyped bytes: `x.view(torch.int32)` and `view_as_real` give tensors of
another dtype over the same bytes. Here the storage keeps one typed flat array (`array`, of
`dtype`, `size_elements` long) and its size in bytes is fixed by them. A tensor whose dtype
differs from the storage's reads the array through the backend's `bitcast` (a zero-copy
reinterpretation on NumPy and CuPy; see `array_as`), and writes through it the same way
(`replace_as` for backends that replace arrays). A backend without a bitcast
(array_api_strict: the Array API standard has none) cannot hold such tensors; the ops that
would make one raise `bitcast_unsupported`. Tensors of the storage's own dtype (nearly all)
pay nothing for this: they read `array` directly.
"""

from __future__ import annotations

import itertools
from typing import Final

from refimpl._base.device import device, storage_device
from refimpl._base.dtypes import DType
from refimpl.core.backend import Array, Backend, missing_dtype
from refimpl.core.grad_mode import GRAD_STATE

# Fake addresses so that data_ptr() is offset-aware and distinct storages never overlap.
# Differs: torch reports real memory addresses; only differences and overlaps are meaningful.
_ALIGNMENT: Final = 64
_next_address = itertools.count(1)


class Storage:
    """A flat array of `size` elements of `dtype` on `device`, or no array (meta tensors).

    Torch: c10::StorageImpl (returned by Tensor.untyped_storage()).
    """

    __slots__ = (
        "__weakref__",
        "_address",
        "array",
        "backend",
        "device",
        "dtype",
        "resizable",
        "size_elements",
    )

    def __init__(
        self,
        array: Array | None,
        size_elements: int,
        dtype: DType,
        device: device,
        backend: Backend | None,
    ) -> None:
        # core/tensor.py's tensor_over and result_maker write this __init__ out: keep them
        # in step.
        self.array = array
        self.size_elements = size_elements
        self.dtype = dtype
        # torch: CPU and meta storages have no device index (see storage_device).
        self.device = device if device._index is None else storage_device(device)
        self.backend = backend
        self._address = 0  # given on first data_ptr(): most storages never need one
        # torch: StorageImpl::resizable(); False for memory refimpl does not own (from_numpy).
        self.resizable = True

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

    def elements(self, dtype: DType) -> int:
        """How many whole elements of `dtype` the storage's bytes hold."""
        if dtype is self.dtype:
            return self.size_elements
        return self.size_elements * self.dtype.itemsize // dtype.itemsize

    def array_as(self, dtype: DType) -> Array:
        """The flat array read as `dtype`, sharing memory: `array` itself for the storage's
        own dtype, else the backend's bitcast of the whole elements of `dtype` it holds
        (None for a storage without data).

        See Note [Untyped storage].
        """
        flat = self.array
        if dtype is self.dtype or flat is None or self.backend is None:
            return flat
        backend = self.backend
        if not backend.supports_bitcast:
            raise bitcast_unsupported(backend, "reading a tensor of another dtype")
        # A bitcast to a larger element needs a whole number of them: drop the tail bytes.
        keep = self.elements(dtype) * dtype.itemsize // self.dtype.itemsize
        return backend.bitcast(
            flat[:keep] if keep < self.size_elements else flat, _library_dtype(backend, dtype)
        )

    def replace_as(self, dtype: DType, flat: Array) -> None:
        """Make `flat` (elements of `dtype`, as `array_as(dtype)` gave them) the storage's
        array: for backends that replace arrays on a write. See Note [Untyped storage]."""
        if dtype is self.dtype:
            self.array = flat
            return
        backend = self.backend
        old = self.array
        if backend is None or old is None:
            return
        own = backend.bitcast(flat, _library_dtype(backend, self.dtype))
        if own.shape[0] < self.size_elements:  # the tail bytes array_as dropped
            own = backend.xp.concat((own, old[own.shape[0] :]))
        self.array = own

    def check_growable(self, nbytes: int) -> None:
        """Raise torch's error where growing to `nbytes` is refused (memory refimpl does not
        own), changing nothing. Torch: resize_bytes_cpu in aten/src/ATen/native/Resize.cpp."""
        if nbytes > self.nbytes() and not self.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")

    def grow(self, nbytes: int) -> None:
        """Grow to hold at least `nbytes` bytes, keeping the values; new bytes are zero.

        Torch: resize_bytes_cpu (the storage's allocation grows; refimpl rounds up to whole
        elements of the storage's array).
        """
        if nbytes <= self.nbytes():
            return
        self.check_growable(nbytes)
        itemsize = self.dtype.itemsize
        count = -(-nbytes // itemsize)
        backend = self.backend
        flat = self.array
        if backend is not None and flat is not None:
            xp = backend.xp
            extra = xp.zeros((count - self.size_elements,), dtype=flat.dtype)
            self.array = xp.concat((flat, extra))
        self.size_elements = count

    @property
    def is_meta(self) -> bool:
        return self.array is None and self.device.type == "meta"

    def __repr__(self) -> str:
        return (
            f"<refimpl.Storage of {self.size_elements} {self.dtype.name} on {self.device}"
            f" ({self.backend.name if self.backend else 'no data'})>"
        )


class InvalidPythonStorage(Storage):
    """The storage of a wrapper subclass tensor: sizes in bytes, no data, no address.

    Torch: the "invalid python storage" _make_wrapper_subclass gives its tensors
    (make_storage_impl with a null data pointer, torch/csrc/autograd/python_variable.cpp).
    """

    __slots__ = ()

    def data_ptr(self) -> int:
        raise RuntimeError("Attempted to access the data pointer on an invalid python storage.")


def _library_dtype(backend: Backend, dtype: DType) -> object:
    array_dtype = backend.array_dtypes.get(dtype)
    if array_dtype is None:
        raise missing_dtype(backend, dtype)
    return array_dtype


def bitcast_unsupported(backend: Backend, operation: str) -> NotImplementedError:
    """The error of a backend that cannot reinterpret bytes as another dtype.

    Differs: torch's storage is untyped, so every device can; see Note [Untyped storage].
    """
    return NotImplementedError(
        f"refimpl: the '{backend.name}' backend cannot run {operation}: it has no bitcast "
        "(reinterpreting an array's bytes as another dtype is outside the Array API "
        "standard), so a tensor cannot view its storage as another dtype there"
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


INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)


class InferenceVersionCounter(VersionCounter):
    """The counter of inference tensors, which track no version: an in-place write is
    allowed only inside inference mode, and reading the version is an error. One instance
    serves every inference tensor.

    Torch: inference tensors have no VariableVersion (VariableVersion::bump and
    current_version raise these errors).
    """

    __slots__ = ()

    def __init__(self) -> None:
        pass

    @property
    def version(self) -> int:  # type: ignore[override]  # read-only here, by design
        raise RuntimeError("Inference tensors do not track version counter.")

    def bump(self) -> None:
        if not GRAD_STATE.inference:
            raise RuntimeError(INFERENCE_INPLACE_MESSAGE)


INFERENCE_COUNTER: Final = InferenceVersionCounter()
