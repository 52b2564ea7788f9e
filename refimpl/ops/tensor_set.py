"""The aten ops behind the legacy Tensor surface: set_ (a tensor takes another storage),
is_set_to, fill_diagonal_, _is_all_true / _is_any_true, _lazy_clone, _addmm_activation,
slice_inverse and is_pinned.

Torch: set_ and is_set_to in aten/src/ATen/native/TensorShape.cpp and Resize.cpp,
fill_diagonal_ in Fill.cpp, _is_all_true / _is_any_true in ReduceOps.cpp, _lazy_clone in
TensorFactories.cpp, _addmm_activation in Blas.cpp, slice_inverse in TensorShape.cpp.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.keys import DispatchKey
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.storage import Storage
from refimpl.core.tensor import TensorImpl, empty_tensor, make_tensor, make_view, set_geometry
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_binary import zeros_of
from refimpl.ops._register import defop
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
CEANF: Final = DispatchKey.CompositeExplicitAutogradNonFunctional
# torch: set_ and is_set_to have CPU, CUDA and Meta kernels of their own (no composite).
_BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)


# --- set_: a tensor takes another storage ------------------------------------------------


def set_storage(
    self: TensorImpl,
    source: Storage,
    storage_offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...] | None,
) -> Any:
    """`self` over `source` with the given geometry (contiguous when `stride` is None); the
    storage grows to fit, as resize_ grows it.

    Torch: set_storage_cpu_ / set_storage_meta__symint (TensorShape.cpp) with
    checkSetStorage and resize_impl_cpu_.
    """
    if source.device != self._storage.device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{self._storage.device}" to '
            f'a storage on different device "{source.device}".  This is no longer allowed; '
            "the devices must match."
        )
    if stride is not None and len(stride) != len(size):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    new_stride = geometry.contiguous_strides(size) if stride is None else stride
    extent = geometry.storage_extent(size, new_stride, storage_offset)
    source.grow(extent * self._dtype.itemsize)
    self._storage = source
    set_geometry(self, size, new_stride, storage_offset)
    return self


set__source_Storage_storage_offset = defop(
    "set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset, "
    "SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)"
)


def set__source_Storage_storage_offset_kernel(
    self: TensorImpl, source: Storage, storage_offset: int, size: list[int], stride: list[int]
) -> Any:
    """`self` over `source` from `storage_offset` with `size` and `stride` (empty:
    contiguous). Torch: set_.source_Storage_storage_offset."""
    return set_storage(self, source, storage_offset, tuple(size), tuple(stride) or None)


set__source_Storage = defop("set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)")


def set__source_Storage_kernel(self: TensorImpl, source: Storage) -> Any:
    """`self` as a 1-D tensor over the whole of `source` (its bytes read as self's dtype).
    Torch: set_.source_Storage (set_storage_cpu_ with nbytes / itemsize elements)."""
    count = source.nbytes() // self._dtype.itemsize
    return set_storage(self, source, 0, (count,), None)


set__source_Tensor = defop("set_.source_Tensor(Tensor(a!) self, Tensor source) -> Tensor(a!)")


def set__source_Tensor_kernel(self: TensorImpl, source: TensorImpl) -> Any:
    """`self` over `source`'s storage with `source`'s geometry. Torch: set_tensor_ (the same
    dtype is required; setting a tensor to itself changes nothing)."""
    if source._dtype is not self._dtype:
        raise RuntimeError(
            f"Could not set tensor of type {type_meta_name(source._dtype)} to a tensor of "
            f"type {type_meta_name(self._dtype)}"
        )
    if source is self:
        return self
    return set_storage(self, source._storage, source._storage_offset, source._size, source._stride)


set_ = defop("set_(Tensor(a!) self) -> Tensor(a!)")


def set__kernel(self: TensorImpl) -> Any:
    """`self` over a new empty storage of its dtype and device, with size (0,). Torch: set_cpu_
    (Resize.cpp)."""
    fresh = empty_tensor((0,), self._dtype, self._storage.device, self._storage.backend)
    return set_storage(self, fresh._storage, 0, (0,), None)


for _key in _BACKEND_KEYS:
    set__source_Storage_storage_offset.kernel(_key)(set__source_Storage_storage_offset_kernel)
    set__source_Storage.kernel(_key)(set__source_Storage_kernel)
    set__source_Tensor.kernel(_key)(set__source_Tensor_kernel)
    set_.kernel(_key)(set__kernel)


set__source_Tensor_storage_offset = defop(
    "set_.source_Tensor_storage_offset(Tensor(a!) self, Tensor source, SymInt storage_offset, "
    "SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)"
)


@set__source_Tensor_storage_offset.decomposition
def set__source_Tensor_storage_offset_decomposition(
    self: TensorImpl, source: TensorImpl, storage_offset: int, size: list[int], stride: list[int]
) -> Any:
    """Torch: set__symint (TensorShape.cpp, CompositeImplicitAutograd): the storage overload
    with the source's storage."""
    return aten.set_.source_Storage_storage_offset(
        self, source._storage, storage_offset, size, stride
    )


is_set_to = defop("is_set_to(Tensor self, Tensor tensor) -> bool")


def is_set_to_kernel(self: TensorImpl, tensor: TensorImpl) -> bool:
    """Whether both tensors view the same storage with the same offset, sizes and strides.
    Torch: is_set_to (TensorShape.cpp)."""
    return (
        self._storage is tensor._storage
        and self._storage_offset == tensor._storage_offset
        and self._size == tensor._size
        and self._stride == tensor._stride
    )


for _key in _BACKEND_KEYS:
    is_set_to.kernel(_key)(is_set_to_kernel)


# --- fill_diagonal_ -----------------------------------------------------------------------

fill_diagonal_ = defop(
    "fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)"
)


@fill_diagonal_.decomposition
def fill_diagonal__decomposition(self: TensorImpl, fill_value: Scalar, wrap: bool) -> Any:
    """`fill_value` written on the main diagonal (all indices equal); with `wrap`, a tall
    matrix's diagonal starts again every `width + 1` rows.

    Torch: fill_diagonal_ in Fill.cpp (CompositeImplicitAutograd): as_strided windows of
    `self` filled with fill_.Scalar, which is what a dispatch mode sees.
    """
    ndim = len(self._size)
    if ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self._size[0], self._size[1]
    if ndim > 2 and any(n != height for n in self._size):
        raise RuntimeError("all dimensions of input must be of equal length")
    length = min(height, width)
    step = sum(self._stride)
    offset = self._storage_offset
    main = aten.as_strided.default(self, [length], [step], offset)
    aten.fill_.Scalar(main, fill_value)
    if wrap and ndim == 2 and height > width + 1:
        # The diagonal restarts at row width + 1, so it repeats every width + 1 rows; torch
        # counts the wrapped elements from numel as if self were contiguous.
        period = width + 1
        count = -(-geometry.numel(self._size) // period) - length
        start = offset + self._stride[0] * period
        wrapped = aten.as_strided.default(self, [count], [step], start)
        aten.fill_.Scalar(wrapped, fill_value)
    return self


# --- _is_all_true, _is_any_true ------------------------------------------------------------


def _check_bool(self: TensorImpl, line: int) -> None:
    # torch: TORCH_INTERNAL_ASSERT(self.scalar_type() == at::kBool) in ReduceOps.cpp.
    if self._dtype.name != "bool":
        raise RuntimeError(
            'self.scalar_type() == at::kBool INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
            f'aten/src/ATen/native/ReduceOps.cpp":{line}, please report a bug to PyTorch. '
        )


_is_all_true = defop("_is_all_true(Tensor self) -> Tensor")


@_is_all_true.kernel(CEA)
def _is_all_true_kernel(self: TensorImpl) -> Any:
    """all() of a bool tensor, as a 0-dim bool tensor. Torch: _is_all_true in ReduceOps.cpp."""
    _check_bool(self, 2144)
    return aten.all.default(self)


_is_any_true = defop("_is_any_true(Tensor self) -> Tensor")


@_is_any_true.kernel(CEA)
def _is_any_true_kernel(self: TensorImpl) -> Any:
    """any() of a bool tensor, as a 0-dim bool tensor. Torch: _is_any_true in ReduceOps.cpp."""
    _check_bool(self, 2148)
    return aten.any.default(self)


# --- _lazy_clone ---------------------------------------------------------------------------

_lazy_clone = defop("_lazy_clone(Tensor self) -> Tensor")


@_lazy_clone.kernel(CEA)
def _lazy_clone_kernel(self: TensorImpl) -> Any:
    """A tensor with `self`'s geometry over a copy of its whole storage.

    Torch: _lazy_clone (TensorFactories.cpp) shares the storage copy-on-write, so the copy is
    made at the first write to either. Differs: refimpl copies now, which reads the same.
    """
    storage = self._storage
    array = storage.array
    backend = storage.backend
    copied = None if array is None or backend is None else backend.xp.asarray(array, copy=True)
    fresh = Storage(copied, storage.size_elements, storage.dtype, storage.device, backend)
    return make_tensor(
        fresh, self._size, self._stride, self._storage_offset, self._dtype, cls=type(self)
    )


@_lazy_clone.derivative("self")
def _lazy_clone_backward(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


# --- _addmm_activation ---------------------------------------------------------------------

_addmm_activation = defop(
    "_addmm_activation(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
    "bool use_gelu=False) -> Tensor"
)


@_addmm_activation.kernel(CEANF)
def _addmm_activation_kernel(
    self: TensorImpl,
    mat1: TensorImpl,
    mat2: TensorImpl,
    *,
    beta: Scalar,
    alpha: Scalar,
    use_gelu: bool,
) -> Any:
    """relu (or gelu) of addmm(self, mat1, mat2, beta=beta, alpha=alpha).

    Torch: addmm_activation_out_cpu in Blas.cpp: addmm into the result, then relu_ or gelu_
    (its exact, erf form) in place.
    """
    out = aten.addmm.default(self, mat1, mat2, beta=beta, alpha=alpha)
    if use_gelu:
        return aten.gelu_.default(out)
    return aten.relu_.default(out)


# --- slice_inverse -------------------------------------------------------------------------

slice_inverse = defop(
    "slice_inverse(Tensor(a) self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)"
)


@slice_inverse.kernel(CEA)
def slice_inverse_kernel(
    self: TensorImpl,
    src: TensorImpl,
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Any:
    """A view of `self` with `src`'s sizes, strides and offset: `self` is a slice of `src`'s
    base, and the view undoes the slice. Torch: slice_inverse_symint in TensorShape.cpp (an
    as_strided of self; dim, start, end and step only serve the derivative)."""
    g = geometry.as_strided(
        self._geometry(),
        src._size,
        src._stride,
        src._storage_offset,
        self._storage.elements(self._dtype),
        self._dtype.itemsize,
    )
    return make_view(self, g)


@slice_inverse.derivative("self")
def slice_inverse_backward_self(
    grad: Tensor, dim: int, start: int | None, end: int | None, step: int
) -> Tensor:
    # torch: grad.slice_symint(dim, start, end, step)
    return aten.slice.Tensor(grad, dim, start, end, step)


@slice_inverse.derivative("src")
def slice_inverse_backward_src(
    grad: Tensor,
    self_sym_sizes: list[int],
    self_scalar_type: DType,
    self_device: device,
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Tensor:
    # torch: slice_scatter_symint(grad, zeros_like(self), dim, start, end, step), where
    # zeros_like(self) is the saved self_info's zeros
    zeros = zeros_of(self_sym_sizes, self_scalar_type, self_device)
    return aten.slice_scatter.default(grad, zeros, dim, start, end, step)


# --- is_pinned -----------------------------------------------------------------------------

is_pinned = defop("is_pinned(Tensor self, Device? device=None) -> bool")


@is_pinned.kernel(CEA)
def is_pinned_kernel(self: TensorImpl, device: Any) -> bool:
    """Whether the tensor's memory is page-locked for an accelerator: never here.

    Torch: is_pinned (Memory.cpp) asks the accelerator's host allocator; a CPU-only build
    has none and answers False. Differs: refimpl's backends allocate no pinned memory.
    """
    if device is not None:
        warnings.warn(
            "The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this "
            "argument. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Memory.cpp:31.)",
            DeprecationWarning,
            stacklevel=2,
        )
    return False
