"""The functional copies of views: the `*_copy` forms of the view ops and narrow_copy, with their derivatives.

Torch: the `*_copy` kernels torchgen writes for every view op (tag `view_copy`; gen_
functionalization_type.py: call the view, then `.clone(at::MemoryFormat::Contiguous)`), the
scatter kernels of TensorShape.cpp (clone_preserve_strides, the view of the clone, copy_ of
`src`), and narrow_copy_dense_cpu(_out) in TensorShape.cpp. torch registers the functional
forms as CompositeExplicitAutogradNonFunctional and their out= forms (generated: the
functional op, then resize and copy into `out`) as CompositeExplicitAutograd; so does this
module. Functionalization turns a program's views and in-place writes into these ops. The
scatter-backs of views (select_scatter, slice_scatter, ...) are in ops/view_scatter.py.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, resize_for_output
from refimpl.dispatch.overloads import OpOverload, namespace
from refimpl.ops._backward import (
    Tensor,
    as_strided_backward,
    diagonal_backward,
    permute_backwards,
    select_backward,
    slice_backward,
    split_backward,
    split_with_sizes_backward,
    sum_to,
    unbind_backward,
    unfold_backward,
    unsqueeze_to,
)
from refimpl.ops._derivative import derivative
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import check_out_dtype
from refimpl.ops._register import defop
from refimpl.ops.construction import copy_to_out

aten: Final = namespace("aten")
CEA: Final = DispatchKey.CompositeExplicitAutograd
CEANF: Final = DispatchKey.CompositeExplicitAutogradNonFunctional

# torch: c10::MemoryFormat::Contiguous, as the int a MemoryFormat argument carries.
_CONTIGUOUS: Final = 0


def _format(values: tuple[int, ...] | list[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# --- the *_copy forms of the view ops -----------------------------------------------------

# (functional schema, out= schema, the view overload it copies). torch: every view op with a
# `*_copy` entry in native_functions.yaml (tag view_copy).
VIEW_COPIES: Final[tuple[tuple[str, str, OpOverload], ...]] = (
    (
        "view_copy.dtype(Tensor self, ScalarType dtype) -> Tensor",
        "view_copy.dtype_out(Tensor self, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
        aten.view.dtype,
    ),
    (
        "permute_copy(Tensor self, int[] dims) -> Tensor",
        "permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)",
        aten.permute.default,
    ),
    (
        "expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor",
        (
            "expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        aten.expand.default,
    ),
    (
        "transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor",
        (
            "transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        aten.transpose.int,
    ),
    (
        "t_copy(Tensor self) -> Tensor",
        "t_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.t.default,
    ),
    (
        "squeeze_copy(Tensor self) -> Tensor",
        "squeeze_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.squeeze.default,
    ),
    (
        "squeeze_copy.dim(Tensor self, int dim) -> Tensor",
        "squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)",
        aten.squeeze.dim,
    ),
    (
        "squeeze_copy.dims(Tensor self, int[] dim) -> Tensor",
        "squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)",
        aten.squeeze.dims,
    ),
    (
        "unsqueeze_copy(Tensor self, int dim) -> Tensor",
        "unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)",
        aten.unsqueeze.default,
    ),
    (
        "select_copy.int(Tensor self, int dim, SymInt index) -> Tensor",
        (
            "select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        aten.select.int,
    ),
    (
        (
            "slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, "
            "SymInt step=1) -> Tensor"
        ),
        (
            "slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, "
            "SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)"
        ),
        aten.slice.Tensor,
    ),
    (
        "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
        (
            "diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, "
            "Tensor(a!) out) -> Tensor(a!)"
        ),
        aten.diagonal.default,
    ),
    (
        (
            "as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, "
            "SymInt? storage_offset=None) -> Tensor"
        ),
        (
            "as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride, "
            "SymInt? storage_offset=None, *, Tensor(a!) out) -> Tensor(a!)"
        ),
        aten.as_strided.default,
    ),
    (
        "alias_copy(Tensor self) -> Tensor",
        "alias_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.alias.default,
    ),
    (
        "detach_copy(Tensor self) -> Tensor",
        "detach_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.detach.default,
    ),
    (
        "unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor",
        (
            "unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out) "
            "-> Tensor(a!)"
        ),
        aten.unfold.default,
    ),
    (
        "view_as_real_copy(Tensor self) -> Tensor",
        "view_as_real_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.view_as_real.default,
    ),
    (
        "view_as_complex_copy(Tensor self) -> Tensor",
        "view_as_complex_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        aten.view_as_complex.default,
    ),
)


def _register_view_copy(functional_schema: str, out_schema: str, view: OpOverload) -> None:
    """Register `<view>_copy` (the view, cloned contiguous) and its out= form.

    Torch: the kernels gen_functionalization_type.py writes for a view_copy op
    (CompositeExplicitAutogradNonFunctional) and the generated out= wrapper
    (CompositeExplicitAutograd: the functional op, then resize_out_helper and copy_arg).
    """
    functional = defop(functional_schema)
    name = functional.op._schema.name.removeprefix("aten::")

    def copy_kernel(self: TensorImpl, *args: Any, **kwargs: Any) -> Any:
        return aten.clone.default(view(self, *args, **kwargs), memory_format=_CONTIGUOUS)

    copy_kernel.__name__ = copy_kernel.__qualname__ = f"{name}_kernel"
    copy_kernel.__doc__ = f"A contiguous copy of {view}'s result. Torch: {name}."
    functional.kernel(CEANF)(copy_kernel)

    out_block = defop(out_schema)
    copy_op = functional.op

    def out_kernel(self: TensorImpl, *args: Any, out: TensorImpl, **kwargs: Any) -> Any:
        return copy_to_out(copy_op(self, *args, **kwargs), out)

    out_kernel.__name__ = out_kernel.__qualname__ = f"{name}_out_kernel"
    out_kernel.__doc__ = f"{name} into `out`. Torch: the generated out= form of {name}."
    out_block.kernel(CEA)(out_kernel)


for _functional, _out, _view in VIEW_COPIES:
    _register_view_copy(_functional, _out, _view)


# The derivatives of the *_copy ops: their views' formulas. torch: the `<view>_copy` entries
# derivatives.yaml generates from the view's (nodes `<View>Backward0_copy`).


@derivative("aten::permute_copy", "self")
def permute_copy_backward(grad: Tensor, dims: list[int]) -> Tensor:
    # torch: permute_backwards(grad, dims)
    return permute_backwards(grad, dims)


@derivative("aten::expand_copy", "self")
def expand_copy_backward(grad: Tensor, self_sym_sizes: list[int]) -> Tensor:
    # torch: at::sum_to(grad, self.sym_sizes())
    return sum_to(grad, self_sym_sizes)


@derivative("aten::transpose_copy.int", "self")
def transpose_copy_backward(grad: Tensor, dim0: int, dim1: int) -> Tensor:
    # torch: grad.transpose(dim0, dim1)
    return aten.transpose.int(grad, dim0, dim1)


@derivative("aten::t_copy", "self")
def t_copy_backward(grad: Tensor) -> Tensor:
    # torch: grad.t()
    return aten.t.default(grad)


@derivative("aten::squeeze_copy", "self")
def squeeze_copy_backward(grad: Tensor, self_sym_sizes: list[int]) -> Tensor:
    # torch: unsqueeze_to(grad, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes)


@derivative("aten::squeeze_copy.dim", "self")
def squeeze_copy_dim_backward(grad: Tensor, self_sym_sizes: list[int], dim: int) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, [dim])


@derivative("aten::squeeze_copy.dims", "self")
def squeeze_copy_dims_backward(grad: Tensor, self_sym_sizes: list[int], dim: list[int]) -> Tensor:
    # torch: unsqueeze_to(grad, dim, self.sym_sizes())
    return unsqueeze_to(grad, self_sym_sizes, dim)


@derivative("aten::unsqueeze_copy", "self")
def unsqueeze_copy_backward(grad: Tensor, dim: int) -> Tensor:
    # torch: grad.squeeze(dim)
    return aten.squeeze.dim(grad, dim)


@derivative("aten::select_copy.int", "self")
def select_copy_backward(grad: Tensor, self_sym_sizes: list[int], dim: int, index: int) -> Tensor:
    # torch: select_backward_symint(grad, self.sym_sizes(), dim, index)
    return select_backward(grad, self_sym_sizes, dim, index)


@derivative("aten::slice_copy.Tensor", "self")
def slice_copy_backward(
    grad: Tensor,
    self_sym_sizes: list[int],
    dim: int,
    start: int | None,
    end: int | None,
    step: int,
) -> Tensor:
    # torch: slice_backward_wrapper(grad, self.sym_sizes(), dim, start, end, step)
    return slice_backward(grad, self_sym_sizes, dim, start, end, step)


@derivative("aten::diagonal_copy", "self")
def diagonal_copy_backward(
    grad: Tensor, self_sym_sizes: list[int], offset: int, dim1: int, dim2: int
) -> Tensor:
    # torch: diagonal_backward_symint(grad, self.sym_sizes(), offset, dim1, dim2)
    return diagonal_backward(grad, self_sym_sizes, offset, dim1, dim2)


@derivative("aten::as_strided_copy", "self")
def as_strided_copy_backward(
    grad: Tensor,
    self_geometry: tuple[tuple[int, ...], tuple[int, ...], int],
    size: list[int],
    stride: list[int],
    storage_offset: int | None,
) -> Tensor:
    # torch: as_strided_backward(grad, TensorGeometry(self), size, stride, storage_offset)
    return as_strided_backward(grad, self_geometry, size, stride, storage_offset)


@derivative("aten::alias_copy", "self")
def alias_copy_backward(grad: Tensor) -> Tensor:
    # torch: grad
    return grad


@derivative("aten::unfold_copy", "self")
def unfold_copy_backward(
    grad: Tensor, self_sym_sizes: list[int], dimension: int, size: int, step: int
) -> Tensor:
    # torch: unfold_backward_symint(grad, self.sym_sizes(), dimension, size, step)
    return unfold_backward(grad, self_sym_sizes, dimension, size, step)


@derivative("aten::view_as_real_copy", "self")
def view_as_real_copy_backward(grad: Tensor) -> Tensor:
    # torch: at::view_as_complex(grad.contiguous())
    return aten.view_as_complex.default(aten.contiguous.default(grad))


@derivative("aten::view_as_complex_copy", "self")
def view_as_complex_copy_backward(grad: Tensor) -> Tensor:
    # torch: at::view_as_real(grad.contiguous().resolve_conj())
    resolved = aten.resolve_conj.default(aten.contiguous.default(grad))
    return aten.view_as_real.default(resolved)


# --- view_copy ----------------------------------------------------------------------------

view_copy = defop("view_copy(Tensor self, SymInt[] size) -> Tensor")


@view_copy.kernel(CEANF)
def view_copy_kernel(self: TensorImpl, size: list[int]) -> Any:
    """A contiguous copy with another shape; where `view` would refuse the strides, a reshape.

    Torch: view_copy_symint in TensorShape.cpp (computeStride, else reshape).
    Differs: torch's Meta kernel views without the reshape fallback (and raises view's
    error); refimpl runs the CPU rule for every device.
    """
    shape = geometry.infer_size(size, geometry.numel(self._size))
    if geometry.view_strides(self._size, self._stride, shape) is None:
        return aten.reshape.default(self, size)
    return aten.clone.default(aten.view.default(self, size), memory_format=_CONTIGUOUS)


@view_copy.derivative("self")
def view_copy_backward(grad: Tensor, self_sym_sizes: list[int]) -> Tensor:
    # torch: grad.reshape_symint(self.sym_sizes())
    return aten.reshape.default(grad, self_sym_sizes)


view_copy_out = defop("view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")


@view_copy_out.kernel(CEA)
def view_copy_out_kernel(self: TensorImpl, size: list[int], *, out: TensorImpl) -> Any:
    """view_copy into `out`. Torch: the generated out= form of view_copy."""
    return copy_to_out(aten.view_copy.default(self, size), out)


# --- split_copy, split_with_sizes_copy, unbind_copy ---------------------------------------


def _copies(pieces: list[TensorImpl]) -> list[Any]:
    return [aten.clone.default(p, memory_format=_CONTIGUOUS) for p in pieces]


def _copy_pieces(
    pieces: list[TensorImpl], out: list[TensorImpl], name: str, *, resize: bool
) -> None:
    """Each piece copied into its `out` tensor, after checking that there are as many.

    Torch: split_copy_Tensor_out copies with copy_ (cast, broadcast, no resize);
    unbind_copy_int_out and split_with_sizes_copy_out resize each `out` and require its
    dtype as the generated out= forms do (`resize`). Differs: torch checks and writes piece
    by piece; refimpl checks every dtype before writing any.
    """
    if len(out) != len(pieces):
        raise RuntimeError(
            f"{name} expected an out= argument of size {len(pieces)}, got size {len(out)}"
        )
    if resize:
        for target, piece in zip(out, pieces, strict=True):
            check_out_dtype(target, piece._dtype)
    for target, piece in zip(out, pieces, strict=True):
        if resize:
            resize_output(target, piece._size)
        aten.copy_.default(target, piece)


split_copy = defop("split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]")


@split_copy.kernel(CEANF)
def split_copy_kernel(self: TensorImpl, split_size: int, dim: int) -> list[Any]:
    """Contiguous copies of split's pieces. Torch: split_copy (generated view_copy kernel)."""
    return _copies(aten.split.Tensor(self, split_size, dim))


@split_copy.derivative("self")
def split_copy_backward(
    grads: tuple[Tensor | None, ...], split_size: int, dim: int, self_sym_sizes: list[int]
) -> Tensor:
    # torch: split_backward(grads, split_size, dim, self.sym_sizes(), self.options())
    return split_backward(grads, split_size, dim, self_sym_sizes)


split_copy_out = defop(
    "split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()"
)


@split_copy_out.kernel(CEA)
def split_copy_out_kernel(
    self: TensorImpl, split_size: int, dim: int, *, out: list[TensorImpl]
) -> None:
    """split's pieces copied into the `out` tensors. Torch: split_copy_Tensor_out."""
    _copy_pieces(
        aten.split.Tensor(self, split_size, dim), out, "split_copy_Tensor_out()", resize=False
    )


split_with_sizes_copy = defop(
    "split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]"
)


@split_with_sizes_copy.kernel(CEANF)
def split_with_sizes_copy_kernel(self: TensorImpl, split_sizes: list[int], dim: int) -> list[Any]:
    """Contiguous copies of split_with_sizes's pieces. Torch: split_with_sizes_copy."""
    return _copies(aten.split_with_sizes.default(self, split_sizes, dim))


@split_with_sizes_copy.derivative("self")
def split_with_sizes_copy_backward(
    grads: tuple[Tensor | None, ...], split_sizes: list[int], dim: int, self_sym_sizes: list[int]
) -> Tensor:
    # torch: split_with_sizes_backward(grads, split_sizes, dim, self.sym_sizes(), self.options())
    return split_with_sizes_backward(grads, split_sizes, dim, self_sym_sizes)


split_with_sizes_copy_out = defop(
    "split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, "
    "Tensor(a!)[] out) -> ()"
)


@split_with_sizes_copy_out.kernel(CEA)
def split_with_sizes_copy_out_kernel(
    self: TensorImpl, split_sizes: list[int], dim: int, *, out: list[TensorImpl]
) -> None:
    """split_with_sizes's pieces copied into the `out` tensors.

    Torch: split_with_sizes_copy_out in TensorShape.cpp.
    """
    pieces = aten.split_with_sizes.default(self, split_sizes, dim)
    _copy_pieces(pieces, out, "split_with_sizes_copy_out", resize=True)


unbind_copy = defop("unbind_copy.int(Tensor self, int dim=0) -> Tensor[]")


@unbind_copy.kernel(CEANF)
def unbind_copy_kernel(self: TensorImpl, dim: int) -> list[Any]:
    """Contiguous copies of unbind's slices. Torch: unbind_copy (generated view_copy kernel)."""
    return _copies(aten.unbind.int(self, dim))


@unbind_copy.derivative("self")
def unbind_copy_backward(grads: tuple[Tensor | None, ...], dim: int) -> Tensor:
    # torch: unbind_backward(grads, dim)
    return unbind_backward(grads, dim)


unbind_copy_out = defop("unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()")


@unbind_copy_out.kernel(CEA)
def unbind_copy_out_kernel(self: TensorImpl, dim: int, *, out: list[TensorImpl]) -> None:
    """unbind's slices copied into the `out` tensors. Torch: unbind_copy_int_out."""
    _copy_pieces(aten.unbind.int(self, dim), out, "unbind_copy_int_out", resize=True)


# --- narrow_copy --------------------------------------------------------------------------


def _narrow_window(self: TensorImpl, dim: int, start: int, length: int) -> Any:
    """The narrowed view of `self`, after narrow_copy's checks in torch's order.

    Torch: narrow_copy_dense_cpu_out in TensorShape.cpp (its own checks, not narrow's: a
    non-negative `dim` past the end fails a bare TORCH_CHECK).
    """
    ndim = len(self._size)
    if dim < 0:
        dim = geometry.wrap_dim(dim, ndim)
    elif dim >= ndim:
        raise RuntimeError(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)"
        )
    cur_size = self._size[dim]
    if not -cur_size <= start <= cur_size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-cur_size}, {cur_size}], but "
            f"got {start})"
        )
    if start < 0:
        start += cur_size
    if length < 0 or start > cur_size - length:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({cur_size})."
        )
    return aten.slice.Tensor(self, dim, start, start + length, 1)


narrow_copy = defop("narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor")


def narrow_copy_kernel(self: TensorImpl, dim: int, start: int, length: int) -> Any:
    """`length` indices of `dim` from `start`, as a new contiguous tensor.

    Torch: narrow_copy_dense_cpu (CPU) and narrow_copy_dense_symint (CompositeExplicit
    AutogradNonFunctional: narrow, then clone). Differs: one body with the CPU kernel's
    checks serves every device.
    """
    if not self._size:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    window = _narrow_window(self, dim, start, length)
    return aten.clone.default(window, memory_format=_CONTIGUOUS)


narrow_copy.kernel(DispatchKey.CPU)(narrow_copy_kernel)
narrow_copy.kernel(CEANF)(narrow_copy_kernel)


@narrow_copy.derivative("self")
def narrow_copy_backward(
    grad: Tensor, self_sym_sizes: list[int], dim: int, start: int, length: int
) -> Tensor:
    # torch: slice_backward_wrapper(grad, self.sym_sizes(), dim, start, start + length, 1)
    return slice_backward(grad, self_sym_sizes, dim, start, start + length, 1)


narrow_copy_out = defop(
    "narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@narrow_copy_out.kernel(DispatchKey.CPU)
def narrow_copy_out_kernel(
    self: TensorImpl, dim: int, start: int, length: int, *, out: TensorImpl
) -> Any:
    """narrow_copy into `out`, resized silently (resize_, no deprecation warning).

    Torch: narrow_copy_dense_cpu_out in TensorShape.cpp (CPU only).
    Differs: torch copies the elements row-major into `out`'s memory whatever `out`'s
    strides (a transposed `out` of the right shape reads back transposed); refimpl writes
    through `out`'s strides, as copy_ does.
    """
    if not self._size:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if self._dtype is not out._dtype:
        raise RuntimeError(
            "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this "
            "error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"
        )
    window = _narrow_window(self, dim, start, length)
    if out._size != window._size:
        resize_for_output(out, window._size, geometry.contiguous_strides(window._size))
    return aten.copy_.default(out, window)
