"""The scatter-backs of views: select_scatter, slice_scatter, diagonal_scatter and as_strided_scatter, with their derivatives.

Torch: the scatter kernels of TensorShape.cpp (clone_preserve_strides, the view of the
clone, copy_ of `src`), registered as CompositeExplicitAutogradNonFunctional, and their
generated out= forms (CompositeExplicitAutograd). Functionalization turns an in-place write
through a view into these ops.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl.core import layout
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._register import defop
from refimpl.ops.construction import copy_to_out

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
CEANF: Final = DispatchKey.CompositeExplicitAutogradNonFunctional


def _format(values: tuple[int, ...] | list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# --- the scatter-backs of views -----------------------------------------------------------


def clone_preserve_strides(self: TensorImpl) -> Any:
    """A copy of `self` with its strides and storage offset: the whole storage cloned and
    viewed with `self`'s geometry (a plain clone when elements overlap, as in an expand).

    Torch: clone_preserve_strides in TensorShape.cpp (see Note [*_scatter ops preserve
    strides]).
    """
    if layout.has_internal_overlap(self._size, self._stride):
        return aten.clone.default(self)
    whole = aten.as_strided.default(self, [self._storage.size_elements], [1], 0)
    return aten.as_strided.default(
        aten.clone.default(whole), list(self._size), list(self._stride), self._storage_offset
    )


def _scatter_into(output: TensorImpl, window: TensorImpl, src: TensorImpl) -> Any:
    """`src` copied into `window` (a view of `output`) after torch's shape check."""
    if window._size != src._size:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{_format(src._size)}, slice size = {_format(window._size)}"
        )
    aten.copy_.default(window, src)
    return output


select_scatter = defop("select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor")


@select_scatter.kernel(CEANF)
def select_scatter_kernel(self: TensorImpl, src: TensorImpl, dim: int, index: int) -> Any:
    """`self` with `src` written over self.select(dim, index). Torch: select_scatter."""
    output = clone_preserve_strides(self)
    return _scatter_into(output, aten.select.int(output, dim, index), src)


@select_scatter.derivative("self")
def select_scatter_backward_self(
    grad: Tensor, src_sym_sizes: list[int], dim: int, index: int
) -> Tensor:
    # torch: select_scatter_symint(grad, zeros_like(src), dim, index)
    zeros = aten.new_zeros.default(grad, src_sym_sizes)
    return aten.select_scatter.default(grad, zeros, dim, index)


@select_scatter.derivative("src")
def select_scatter_backward_src(grad: Tensor, dim: int, index: int) -> Tensor:
    # torch: grad.select_symint(dim, index)
    return aten.select.int(grad, dim, index)


select_scatter_out = defop(
    "select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@select_scatter_out.kernel(CEA)
def select_scatter_out_kernel(
    self: TensorImpl, src: TensorImpl, dim: int, index: int, *, out: TensorImpl
) -> Any:
    """select_scatter into `out`. Torch: the generated out= form of select_scatter."""
    return copy_to_out(aten.select_scatter.default(self, src, dim, index), out)


slice_scatter = defop(
    "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor"
)


@slice_scatter.kernel(CEANF)
def slice_scatter_kernel(
    self: TensorImpl,
    src: TensorImpl,
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Any:
    """`self` with `src` written over self.slice(dim, start, end, step).

    Torch: slice_scatter in TensorShape.cpp.
    """
    output = clone_preserve_strides(self)
    return _scatter_into(output, aten.slice.Tensor(output, dim, start, end, step), src)


@slice_scatter.derivative("self")
def slice_scatter_backward_self(
    grad: Tensor,
    src_sym_sizes: list[int],
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Tensor:
    # torch: slice_scatter_symint(grad, zeros_like(src), dim, start, end, step)
    zeros = aten.new_zeros.default(grad, src_sym_sizes)
    return aten.slice_scatter.default(grad, zeros, dim, start, end, step)


@slice_scatter.derivative("src")
def slice_scatter_backward_src(
    grad: Tensor, dim: int, start: int | None, end: int | None, step: int
) -> Tensor:
    # torch: grad.slice_symint(dim, start, end, step)
    return aten.slice.Tensor(grad, dim, start, end, step)


slice_scatter_out = defop(
    "slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, "
    "SymInt? end=None, SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)"
)


@slice_scatter_out.kernel(CEA)
def slice_scatter_out_kernel(
    self: TensorImpl,
    src: TensorImpl,
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
    *,
    out: TensorImpl,
) -> Any:
    """slice_scatter into `out`. Torch: the generated out= form of slice_scatter."""
    return copy_to_out(aten.slice_scatter.default(self, src, dim, start, end, step), out)


diagonal_scatter = defop(
    "diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor"
)


@diagonal_scatter.kernel(CEANF)
def diagonal_scatter_kernel(
    self: TensorImpl, src: TensorImpl, offset: int, dim1: int, dim2: int
) -> Any:
    """`self` with `src` written over self.diagonal(offset, dim1, dim2).

    Torch: diagonal_scatter in TensorShape.cpp.
    """
    output = clone_preserve_strides(self)
    return _scatter_into(output, aten.diagonal.default(output, offset, dim1, dim2), src)


@diagonal_scatter.derivative("self")
def diagonal_scatter_backward_self(
    grad: Tensor, src_sym_sizes: list[int], offset: int, dim1: int, dim2: int
) -> Tensor:
    # torch: diagonal_scatter(grad, zeros_like(src), offset, dim1, dim2)
    zeros = aten.new_zeros.default(grad, src_sym_sizes)
    return aten.diagonal_scatter.default(grad, zeros, offset, dim1, dim2)


@diagonal_scatter.derivative("src")
def diagonal_scatter_backward_src(grad: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    # torch: grad.diagonal(offset, dim1, dim2)
    return aten.diagonal.default(grad, offset, dim1, dim2)


diagonal_scatter_out = defop(
    "diagonal_scatter.out(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@diagonal_scatter_out.kernel(CEA)
def diagonal_scatter_out_kernel(
    self: TensorImpl, src: TensorImpl, offset: int, dim1: int, dim2: int, *, out: TensorImpl
) -> Any:
    """diagonal_scatter into `out`. Torch: the generated out= form of diagonal_scatter."""
    return copy_to_out(aten.diagonal_scatter.default(self, src, offset, dim1, dim2), out)


as_strided_scatter = defop(
    "as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, "
    "SymInt? storage_offset=None) -> Tensor"
)


@as_strided_scatter.kernel(CEANF)
def as_strided_scatter_kernel(
    self: TensorImpl,
    src: TensorImpl,
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
) -> Any:
    """`self` with `src` written over the as_strided view of its (cloned) storage.

    Torch: as_strided_scatter in TensorShape.cpp: the geometry is relative to the storage of
    the clone, which clone_preserve_strides lays out as self's.
    """
    output = clone_preserve_strides(self)
    window = aten.as_strided.default(output, size, stride, storage_offset)
    return _scatter_into(output, window, src)


@as_strided_scatter.derivative("self")
def as_strided_scatter_backward_self(
    grad: Tensor,
    self_sym_sizes: list[int],
    self_sym_strides: list[int],
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
) -> Tensor:
    # torch: as_strided_scatter_backward(grad, TensorGeometry(self), TensorGeometry(src), size,
    # stride, storage_offset): zeros of self's size holding grad's window, viewed with self's
    # geometry (torch's result, which keeps the window rather than zeroing it).
    window = aten.as_strided.default(aten.contiguous.default(grad), size, stride, storage_offset)
    zeros = aten.new_zeros.default(grad, self_sym_sizes)
    scattered = aten.as_strided_scatter.default(zeros, window, size, stride, storage_offset)
    return aten.as_strided.default(scattered, self_sym_sizes, self_sym_strides)


@as_strided_scatter.derivative("src")
def as_strided_scatter_backward_src(
    grad: Tensor, size: list[int], stride: list[int], storage_offset: int | None
) -> Tensor:
    # torch: grad.contiguous().as_strided_symint(size, stride, storage_offset)
    return aten.as_strided.default(aten.contiguous.default(grad), size, stride, storage_offset)


as_strided_scatter_out = defop(
    "as_strided_scatter.out(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, "
    "SymInt? storage_offset=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@as_strided_scatter_out.kernel(CEA)
def as_strided_scatter_out_kernel(
    self: TensorImpl,
    src: TensorImpl,
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
    *,
    out: TensorImpl,
) -> Any:
    """as_strided_scatter into `out`. Torch: the generated out= form of as_strided_scatter."""
    result = aten.as_strided_scatter.default(self, src, size, stride, storage_offset)
    return copy_to_out(result, out)


# --- the backward ops of select and slice ------------------------------------------------------
# Torch: select_backward and slice_backward in TensorShape.cpp, aten ops that the derivatives of
# select and slice call (so a TorchDispatchMode sees them, not the zeros and copy inside).


select_backward = defop(
    "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor"
)


@select_backward.kernel(CEANF)
def select_backward_kernel(
    grad_output: TensorImpl, input_sizes: list[int], dim: int, index: int
) -> Any:
    """Zeros of `input_sizes` with `grad_output` at `index` of `dim`. Torch: select_backward
    (zeros, then the select's copy_)."""
    zeros = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.select_scatter.default(zeros, grad_output, dim, index)


@select_backward.derivative("grad_output")
def select_backward_backward(grad: Tensor, dim: int, index: int) -> Tensor:
    # torch: grad.select_symint(dim, index)
    return aten.select.int(grad, dim, index)


slice_backward = defop(
    "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, "
    "SymInt end, SymInt step) -> Tensor"
)


@slice_backward.kernel(CEANF)
def slice_backward_kernel(
    grad_output: TensorImpl, input_sizes: list[int], dim: int, start: int, end: int, step: int
) -> Any:
    """Zeros of `input_sizes` with `grad_output` over the slice. Torch: slice_backward."""
    zeros = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.slice_scatter.default(zeros, grad_output, dim, start, end, step)


@slice_backward.derivative("grad_output")
def slice_backward_backward(grad: Tensor, dim: int, start: int, end: int, step: int) -> Tensor:
    # torch: grad.slice_symint(dim, start, end, step)
    return aten.slice.Tensor(grad, dim, start, end, step)
