"""The in-place view ops (squeeze_, unsqueeze_, t_, transpose_, swapdims_, as_strided_) and
resize_ / resize_as_: ops that change a tensor's own geometry.

Torch: the `inplace_view` ops of aten/src/ATen/native/TensorShape.cpp and Resize.cpp.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl._base.memory_format import as_memory_format, preserve_format
from refimpl.core import strides as geometry
from refimpl.core.tensor import (
    TensorImpl,
    requires_grad,
    resize_for_output,
    set_geometry,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor, as_strided_backward, unsqueeze_to
from refimpl.ops._register import defop
from refimpl.ops.pointwise import suggest_memory_format

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- the in-place view ops: squeeze_, unsqueeze_, t_, transpose_, swapdims_, as_strided_ ---
# Torch: the `inplace_view` ops of TensorShape.cpp change self's sizes, strides and offset
# (TensorImpl::set_sizes_and_strides) and keep its storage; the ADInplaceOrView kernel bumps
# the version counter, also when nothing changed.


def restride_(self: TensorImpl, g: geometry.Geometry) -> Any:
    """Give `self` the geometry `g` in place and bump its version.

    Differs: torch bumps the version in the ADInplaceOrView kernel; refimpl has no such
    kernel yet, so the op's kernel does.
    """
    set_geometry(self, g.size, g.stride, g.offset)
    return self


squeeze_ = defop("squeeze_(Tensor(a!) self) -> Tensor(a!)")


@squeeze_.kernel(CEA)
def squeeze__kernel(self: TensorImpl) -> Any:
    """Every size-1 dim removed, in place. Torch: squeeze_ in TensorShape.cpp."""
    return restride_(self, geometry.squeeze(self._geometry(), None))


@squeeze_.derivative("self")
def squeeze__backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    # torch: unsqueeze_to(grad, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes)


squeeze__dim = defop("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)")


@squeeze__dim.kernel(CEA)
def squeeze__dim_kernel(self: TensorImpl, dim: int) -> Any:
    """`dim` removed if its size is 1, in place. Torch: squeeze_.dim in TensorShape.cpp."""
    return restride_(self, geometry.squeeze(self._geometry(), [dim]))


@squeeze__dim.derivative("self")
def squeeze__dim_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, dim)


squeeze__dims = defop("squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)")


@squeeze__dims.kernel(CEA)
def squeeze__dims_kernel(self: TensorImpl, dim: list[int]) -> Any:
    """The listed size-1 dims removed, in place. Torch: squeeze_.dims in TensorShape.cpp."""
    return restride_(self, geometry.squeeze(self._geometry(), dim))


@squeeze__dims.derivative("self")
def squeeze__dims_backward(
    grad: Tensor, self_sym_sizes: tuple[int, ...], dim: list[int]
) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, dim)


unsqueeze_ = defop("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)")


@unsqueeze_.kernel(CEA)
def unsqueeze__kernel(self: TensorImpl, dim: int) -> Any:
    """A size-1 dim inserted at `dim`, in place. Torch: unsqueeze_ in TensorShape.cpp."""
    return restride_(self, geometry.unsqueeze(self._geometry(), dim))


@unsqueeze_.derivative("self")
def unsqueeze__backward(grad: Tensor, dim: int) -> Tensor:
    # torch: grad.squeeze(dim)
    return aten.squeeze.dim(grad, dim)


t_ = defop("t_(Tensor(a!) self) -> Tensor(a!)")


@t_.kernel(CEA)
def t__kernel(self: TensorImpl) -> Any:
    """transpose_(0, 1) of a tensor with at most 2 dims. Torch: t_ in TensorShape.cpp."""
    ndim = len(self._size)
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return restride_(self, geometry.t(self._geometry()))


@t_.derivative("self")
def t__backward(grad: Tensor) -> Tensor:
    # torch: grad.t()
    return aten.t.default(grad)


transpose_ = defop("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)")


@transpose_.kernel(CEA)
def transpose__kernel(self: TensorImpl, dim0: int, dim1: int) -> Any:
    """Two dims swapped, in place. Torch: transpose_ in TensorShape.cpp."""
    return restride_(self, geometry.transpose(self._geometry(), dim0, dim1))


@transpose_.derivative("self")
def transpose__backward(grad: Tensor, dim0: int, dim1: int) -> Tensor:
    # torch: grad.transpose(dim0, dim1)
    return aten.transpose.int(grad, dim0, dim1)


swapdims_ = defop("swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)")


@swapdims_.decomposition
def swapdims__decomposition(self: TensorImpl, dim0: int, dim1: int) -> Any:
    """Torch: swapdims_ in TensorShape.cpp is transpose_."""
    return aten.transpose_.default(self, dim0, dim1)


swapaxes_ = defop("swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)")


@swapaxes_.decomposition
def swapaxes__decomposition(self: TensorImpl, axis0: int, axis1: int) -> Any:
    """Torch: swapaxes_ in TensorShape.cpp is transpose_."""
    return aten.transpose_.default(self, axis0, axis1)


as_strided_ = defop(
    "as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a!)"
)


# Differs: torch registers as_strided_ as CompositeExplicitAutogradNonFunctional.
@as_strided_.kernel(CEA)
def as_strided__kernel(
    self: TensorImpl, size: list[int], stride: list[int], storage_offset: int | None
) -> Any:
    """Any geometry within the storage, in place. Torch: as_strided_ in TensorShape.cpp."""
    g = geometry.as_strided(
        self._geometry(),
        tuple(size),
        tuple(stride),
        storage_offset,
        self._storage.elements(self._dtype),
        self._dtype.itemsize,
    )
    return restride_(self, g)


@as_strided_.derivative("self")
def as_strided__backward(
    grad: Tensor,
    self_geometry: tuple[tuple[int, ...], tuple[int, ...], int],
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
) -> Tensor:
    # torch: as_strided_backward(grad, TensorGeometry(self), size, stride, storage_offset)
    return as_strided_backward(grad, self_geometry, size, stride, storage_offset)


# --- resize_, resize_as_ -----------------------------------------------------------------

resize_ = defop(
    "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)"
)


def resize__kernel(self: TensorImpl, size: list[int], *, memory_format: Any) -> Any:
    """New sizes, contiguous, over a storage grown to fit (values kept); same sizes keep
    the strides unless a memory format is given.

    Torch: resize_ in aten/src/ATen/native/Resize.cpp (resize_impl_cpu_, then
    empty_tensor_restride for a memory format). The version is bumped only when the sizes
    change. Differs: torch sets the sizes before its checks fail (a negative size, a bad
    memory format); refimpl checks first and leaves `self` unchanged.
    """
    if requires_grad(self):
        # torch: resize_ in torch/csrc/autograd/VariableTypeManual.cpp.
        raise RuntimeError("cannot resize variables that require grad")
    new_size = tuple(size)
    if any(n < 0 for n in new_size):
        # torch: computeStorageNbytesContiguous multiplies the sizes as unsigned numbers.
        raise RuntimeError("numel: integer multiplication overflow")
    fmt = as_memory_format(memory_format)
    if fmt is preserve_format:
        # torch: the message streams c10::MemoryFormat::Preserve, with no space before it.
        raise RuntimeError("Unsupported memory formatPreserve")
    if fmt is None:
        new_stride = (
            self._stride if new_size == self._size else geometry.contiguous_strides(new_size)
        )
    else:
        new_stride = data.format_strides(new_size, fmt)
    changed = new_size != self._size
    resize_for_output(self, new_size, new_stride)
    if changed:
        self._version_counter.bump()
    return self


for _key in (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta):
    resize_.kernel(_key)(resize__kernel)


resize_as_ = defop(
    "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) "
    "-> Tensor(a!)"
)


@resize_as_.kernel(CEA)
def resize_as__kernel(self: TensorImpl, the_template: TensorImpl, *, memory_format: Any) -> Any:
    """`self` resized to the template's sizes; a memory format restrides it (preserve: the
    template's suggested format). Torch: resize_as_ in Resize.cpp (resize_, then
    empty_tensor_restride)."""
    fmt = as_memory_format(memory_format)
    if fmt is preserve_format:
        fmt = suggest_memory_format(the_template)
    if fmt is not None:
        data.format_strides(the_template._size, fmt)  # its error before any change
    aten.resize_.default(self, list(the_template._size))
    if fmt is not None:
        set_geometry(self, self._size, data.format_strides(self._size, fmt), self._storage_offset)
    return self
