"""Reflection padding of the last dimension as aten ops: reflection_pad1d and
reflection_pad1d_backward (with their out= forms), which aten.pad calls for mode "reflect"
on 2-D and 3-D inputs (and stft.center through it).

Torch: aten/src/ATen/native/ReflectionPad.cpp (structured reflection_pad1d and
reflection_pad1d_backward, CPU kernels in native/cpu/PaddingKernel.cpp); derivatives.yaml:
reflection_pad1d's self gets reflection_pad1d_backward(grad, self, padding), and
reflection_pad1d_backward's grad_output gets reflection_pad1d(grad, padding) and its self
zeros_like(self) (so a second derivative through it reaches self as zeros, torch 2.13
verified on stft's double backward).

Output position j reads input position ip(j) (torch's index formula, which also serves
negative padding): with o = max(0, pad_l) and i = max(0, -pad_l),
ip(j) = 2 pad_l - j for j < pad_l, j for j < width + pad_l, else 2 (width + pad_l - 1) - j;
then ip(j) - o + i. The backward adds the output gradient back along the same map, in
torch's order (left reflection, middle, right reflection, onto zeros).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_kernels import emit, new_output, xp_of
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import not_implemented, registered

aten: Final = namespace("aten")
Shape = tuple[int, ...]


def _check_input(self: TensorImpl, padding: Sequence[int]) -> tuple[int, int, int]:
    """Torch: reflection_pad1d's meta function: the padding length, the 2-D / 3-D input with
    non-empty non-batch dims, the padding below the width, a positive output width."""
    if len(padding) != 2:
        raise RuntimeError(f"padding size is expected to be 2, but got: {len(padding)}")
    size = self._size
    dim = len(size)
    valid = dim in (2, 3) and all(s != 0 for s in size[dim - 2 :])
    if not valid:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: [{', '.join(map(str, size))}]"
        )
    pad_l, pad_r = padding
    width = size[-1]
    if pad_l >= width or pad_r >= width:
        raise RuntimeError(
            "Argument #4: Padding size should be less than the corresponding input dimension, "
            f"but got: padding ({pad_l}, {pad_r}) at dimension {dim - 1} of input "
            f"[{', '.join(map(str, size))}]"
        )
    out_width = width + pad_l + pad_r
    if out_width < 1:
        raise RuntimeError(
            f"input (W: {width}) is too small. Calculated output W: {out_width}"
        )
    return pad_l, pad_r, out_width


def _segments(width: int, pad_l: int, out_width: int) -> list[tuple[int, int, int, int]]:
    """(j0, j1, start, step): output positions j0 <= j < j1 read input start + step (j - j0);
    the left reflection, the middle and the right reflection, in that order."""
    offset = max(0, -pad_l) - max(0, pad_l)

    def ip(j: int) -> int:
        if j < pad_l:
            base = 2 * pad_l - j
        elif j < width + pad_l:
            base = j
        else:
            base = 2 * (width + pad_l - 1) - j
        return base + offset

    bounds = [0, max(0, min(pad_l, out_width)), max(0, min(width + pad_l, out_width)), out_width]
    steps = (-1, 1, -1)
    return [
        (bounds[k], bounds[k + 1], ip(bounds[k]), steps[k])
        for k in range(3)
        if bounds[k + 1] > bounds[k]
    ]


def _forward(self: TensorImpl, padding: Sequence[int], out: TensorImpl | None) -> Any:
    pad_l, _, out_width = _check_input(self, padding)
    if self._dtype.name == "bool":
        raise not_implemented("reflection_pad1d", self._dtype)
    size = (*self._size[:-1], out_width)
    stride = geometry.contiguous_strides(size)
    new_output(self, out, size, stride, self._dtype)
    if not has_data(self):
        return emit(self, None, size, stride, self._dtype, out)
    xp = xp_of(self)
    x = array_of(self)
    pieces = []
    for j0, j1, start, step in _segments(self._size[-1], pad_l, out_width):
        stop = start + step * (j1 - j0 - 1)
        piece = x[..., min(start, stop) : max(start, stop) + 1]
        pieces.append(xp.flip(piece, axis=-1) if step < 0 else piece)
    value = pieces[0] if len(pieces) == 1 else xp.concat(pieces, axis=-1)
    return emit(self, value, size, stride, self._dtype, out)


def _backward(
    grad_output: TensorImpl, self: TensorImpl, padding: Sequence[int], out: TensorImpl | None
) -> Any:
    pad_l, _, out_width = _check_input(self, padding)
    if grad_output._size[-1] != out_width:
        raise RuntimeError(
            f"grad_output width unexpected. Expected: {out_width}, "
            f"Got: {grad_output._size[-1]}"
        )
    dtype: DType = self._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise not_implemented("reflection_pad1d_backward", dtype)
    if grad_output._dtype is not dtype:
        raise RuntimeError(
            f"expected scalar type {dtype.scalar_name} but found "
            f"{grad_output._dtype.scalar_name}"
        )
    size = self._size
    stride = geometry.contiguous_strides(size)
    new_output(self, out, size, stride, dtype)
    if not (has_data(self) and has_data(grad_output)):
        return emit(self, None, size, stride, dtype, out)
    xp = xp_of(grad_output)
    g = xp.reshape(array_of(grad_output), (*size[:-1], out_width))
    width = size[-1]
    lead = size[:-1]
    total = xp.zeros(size, dtype=g.dtype)
    for j0, j1, start, step in _segments(width, pad_l, out_width):
        piece = g[..., j0:j1]
        if step < 0:
            piece = xp.flip(piece, axis=-1)
        low = min(start, start + step * (j1 - j0 - 1))
        parts = [
            xp.zeros((*lead, low), dtype=g.dtype),
            piece,
            xp.zeros((*lead, width - low - (j1 - j0)), dtype=g.dtype),
        ]
        total = total + xp.concat(parts, axis=-1)
    return emit(self, total, size, stride, dtype, out)


reflection_pad1d = defop("reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor")


@registered(reflection_pad1d)
def reflection_pad1d_kernel(self: TensorImpl, padding: Sequence[int]) -> Any:
    """Torch: reflection_pad1d (structured; a new contiguous tensor)."""
    return _forward(self, padding, None)


@reflection_pad1d.derivative("self")
def reflection_pad1d_derivative(grad: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
    # torch: reflection_pad1d_backward_symint(grad, self, padding)
    return aten.reflection_pad1d_backward.default(grad, self, list(padding))


reflection_pad1d_out = defop(
    "reflection_pad1d.out(Tensor self, SymInt[2] padding, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(reflection_pad1d_out)
def reflection_pad1d_out_kernel(
    self: TensorImpl, padding: Sequence[int], *, out: TensorImpl
) -> Any:
    """Torch: reflection_pad1d.out (structured: out's dtype checked, out resized)."""
    return _forward(self, padding, out)


reflection_pad1d_backward = defop(
    "reflection_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor"
)


@registered(reflection_pad1d_backward)
def reflection_pad1d_backward_kernel(
    grad_output: TensorImpl, self: TensorImpl, padding: Sequence[int]
) -> Any:
    """Torch: reflection_pad1d_backward (structured; a new contiguous tensor of self's shape)."""
    return _backward(grad_output, self, padding, None)


@reflection_pad1d_backward.derivative("grad_output")
def reflection_pad1d_backward_grad_output(grad: Tensor, padding: Sequence[int]) -> Tensor:
    # torch: reflection_pad1d_symint(grad, padding)
    return aten.reflection_pad1d.default(grad, list(padding))


@reflection_pad1d_backward.derivative("self")
def reflection_pad1d_backward_self(grad: Tensor, self: Tensor) -> Tensor:
    # torch: zeros_like(self)
    return aten.zeros_like.default(self)


reflection_pad1d_backward_grad_input = defop(
    "reflection_pad1d_backward.grad_input(Tensor grad_output, Tensor self, SymInt[2] padding, "
    "*, Tensor(a!) grad_input) -> Tensor(a!)"
)


@registered(reflection_pad1d_backward_grad_input)
def reflection_pad1d_backward_grad_input_kernel(
    grad_output: TensorImpl, self: TensorImpl, padding: Sequence[int], *, grad_input: TensorImpl
) -> Any:
    """Torch: reflection_pad1d_backward.grad_input (structured)."""
    return _backward(grad_output, self, padding, grad_input)
