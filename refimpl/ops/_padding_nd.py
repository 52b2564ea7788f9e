"""What reflection and replication padding share: the checks of their 1-D, 2-D and 3-D ops,
the index map of one padded dim, and the forward and backward computed dim by dim.

Torch: aten/src/ATen/native/ReflectionPad.cpp and ReplicationPadding.cpp (the structured
meta functions and the checks of the backward entry points), native/cpu/PaddingKernel.cpp
(the CPU kernels: output position j of a padded dim reads input position ip(j), and the
backward adds grad_output[j] into grad_input[ip(j)]). With o = max(0, pad_l) and
i = max(0, -pad_l) (negative padding trims), ip(j) - o + i of:

- reflection: 2 pad_l - j for j < pad_l, j below width + pad_l, else 2 (width + pad_l - 1) - j;
- replication: pad_l for j < pad_l, j below width + pad_l, else width + pad_l - 1.

Both maps act on each padded dim alone, so an N-d pad is N 1-d pads (last dim first), and its
backward the 1-d backwards in the other order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._linalg_kernels import emit, new_output, xp_of
from refimpl.ops._reduction import has_data
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.scan import not_implemented, registered

aten: Final = namespace("aten")
Shape = tuple[int, ...]

# The names torch's messages give the padded dims, last dim first.
_DIM_NAMES: Final = ("width", "height", "depth")
_DIM_LETTERS: Final = ("W", "H", "D")


@dataclass(frozen=True, slots=True)
class PadOp:
    """One reflection or replication op of rank 1, 2 or 3 and the wording of its checks.

    Torch: the meta function of `<name>` and the checks of `<name>_backward`.
    """

    name: str
    """`reflection_pad2d`."""
    rank: int
    reflect: bool
    length_message: Callable[[int], str]
    """The padding-length error, given the length passed."""
    too_small: Callable[[Shape, Shape], str]
    """The error when no output dim is positive, given input and output sizes (D, H, W)."""
    negative_dim: Callable[[Shape], str] | None
    """The error for an output with a negative dim the previous check let through (None
    where the rank-1 check already covers it)."""
    grad_prefix: str
    """`gradOutput` or `grad_output`, as the backward's size errors name the gradient."""
    grad_comma: bool = True
    """Whether "Expected: 5, Got: 4" has its comma (replication_pad1d's has none)."""


def negative_dimension(size: Shape) -> str:
    # torch: the check in at::empty (c10::TensorImpl's size check) of the output allocation.
    first = next(n for n in size if n < 0)
    return f"Trying to create tensor with negative dimension {first}: [{', '.join(map(str, size))}]"


def numel_overflow(size: Shape) -> str:
    # torch: reflection_pad2d's CPU output allocation multiplies a negative size.
    return "numel: integer multiplication overflow"


def _sizes_text(size: Sequence[int]) -> str:
    return f"[{', '.join(map(str, size))}]"


def check_forward(op: PadOp, self: TensorImpl, padding: Sequence[int]) -> Shape:
    """The output size after torch's checks: the padding length, the input rank with its
    non-batch dims non-empty, reflection's padding below each dim's size, an output with
    some positive dim, no negative one."""
    rank = op.rank
    if len(padding) != 2 * rank:
        raise RuntimeError(op.length_message(len(padding)))
    size = self._size
    dim = len(size)
    valid = dim in (rank + 1, rank + 2) and all(s != 0 for s in size[dim - rank - 1 :])
    if not valid:
        raise RuntimeError(
            f"Expected {rank + 1}D or {rank + 2}D (batch mode) tensor with possibly 0 batch "
            f"size and other non-zero dimensions for input, but got: {_sizes_text(size)}"
        )
    if op.reflect:
        for k in range(rank):
            pad_l, pad_r = padding[2 * k], padding[2 * k + 1]
            axis = dim - 1 - k
            if pad_l >= size[axis] or pad_r >= size[axis]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * k}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({pad_l}, {pad_r}) at "
                    f"dimension {axis} of input {_sizes_text(size)}"
                )
    inner = tuple(size[dim - k - 1] for k in reversed(range(rank)))
    out_inner = tuple(
        size[dim - k - 1] + padding[2 * k] + padding[2 * k + 1] for k in reversed(range(rank))
    )
    if all(n < 1 for n in out_inner):
        raise RuntimeError(op.too_small(inner, out_inner))
    out_size = (*size[: dim - rank], *out_inner)
    if op.negative_dim is not None and any(n < 0 for n in out_inner):
        raise RuntimeError(op.negative_dim(out_size))
    return out_size


def index_map(width: int, pad_l: int, out_width: int, reflect: bool) -> list[int]:
    """The input position each output position of one padded dim reads (see the module
    docstring)."""
    offset = max(0, -pad_l) - max(0, pad_l)
    positions = []
    for j in range(out_width):
        if j < pad_l:
            base = 2 * pad_l - j if reflect else pad_l
        elif j < width + pad_l:
            base = j
        else:
            base = 2 * (width + pad_l - 1) - j if reflect else width + pad_l - 1
        positions.append(base + offset)
    return positions


def _runs(positions: list[int]) -> list[tuple[int, int, int, int]]:
    """`positions` cut into runs (j0, j1, start, step) with step -1, 0 or 1: output j in
    [j0, j1) reads input start + step (j - j0)."""
    runs: list[tuple[int, int, int, int]] = []
    j = 0
    while j < len(positions):
        step = positions[j + 1] - positions[j] if j + 1 < len(positions) else 1
        if step not in (-1, 0, 1):
            step = 1
        end = j + 1
        while end < len(positions) and positions[end] - positions[end - 1] == step:
            end += 1
        runs.append((j, end, positions[j], step))
        j = end
    return runs


def _take(xp: Any, a: Any, axis: int, positions: list[int]) -> Any:
    # The output positions of one dim gathered from `a` along `axis`, run by run.
    pieces = []
    lead = (slice(None),) * axis
    for j0, j1, start, step in _runs(positions):
        count = j1 - j0
        if step == 0:
            piece = a[(*lead, slice(start, start + 1), ...)]
            shape = list(piece.shape)
            shape[axis] = count
            piece = xp.broadcast_to(piece, tuple(shape))
        else:
            low = start if step > 0 else start - count + 1
            piece = a[(*lead, slice(low, low + count), ...)]
            if step < 0:
                piece = xp.flip(piece, axis=axis)
        pieces.append(piece)
    if not pieces:
        shape = list(a.shape)
        shape[axis] = 0
        return xp.zeros(tuple(shape), dtype=a.dtype)
    return pieces[0] if len(pieces) == 1 else xp.concat(pieces, axis=axis)


def _scatter_add(xp: Any, g: Any, axis: int, positions: list[int], width: int) -> Any:
    # The adjoint of _take: each output position's gradient added into the input position it
    # read, run by run (torch's order: left pad, middle, right pad, onto zeros).
    lead = (slice(None),) * axis
    shape = list(g.shape)
    shape[axis] = width
    total = xp.zeros(tuple(shape), dtype=g.dtype)
    for j0, j1, start, step in _runs(positions):
        count = j1 - j0
        piece = g[(*lead, slice(j0, j1), ...)]
        if step == 0:
            piece = xp.sum(piece, axis=axis, keepdims=True, dtype=g.dtype)
            low, length = start, 1
        else:
            if step < 0:
                piece = xp.flip(piece, axis=axis)
            low = start if step > 0 else start - count + 1
            length = count
        before = list(shape)
        before[axis] = low
        after = list(shape)
        after[axis] = width - low - length
        parts = [
            xp.zeros(tuple(before), dtype=g.dtype),
            piece,
            xp.zeros(tuple(after), dtype=g.dtype),
        ]
        total = total + xp.concat(parts, axis=axis)
    return total


def forward(op: PadOp, self: TensorImpl, padding: Sequence[int], out: TensorImpl | None) -> Any:
    """Torch: `<op>` / `<op>.out`: the checks, then a new contiguous tensor (or `out`)."""
    out_size = check_forward(op, self, padding)
    if self._dtype.name == "bool":
        raise not_implemented(op.name, self._dtype)
    stride = geometry.contiguous_strides(out_size)
    new_output(self, out, out_size, stride, self._dtype)
    if not has_data(self):
        return emit(self, None, out_size, stride, self._dtype, out)
    xp = xp_of(self)
    value = array_of(self)
    dim = len(self._size)
    if geometry.numel(out_size) != 0:
        for k in range(op.rank):
            axis = dim - 1 - k
            positions = index_map(self._size[axis], padding[2 * k], out_size[axis], op.reflect)
            value = _take(xp, value, axis, positions)
    else:
        value = xp.zeros(out_size, dtype=value.dtype)
    return emit(self, value, out_size, stride, self._dtype, out)


def backward(
    op: PadOp,
    grad_output: TensorImpl,
    self: TensorImpl,
    padding: Sequence[int],
    grad_input: TensorImpl | None,
) -> Any:
    """Torch: `<op>_backward` / `.grad_input`: the padding length, grad_output's padded dims
    against the forward's output (width, then height, then depth), the kernel's dtypes (it
    dispatches on grad_output's and reads the result, self's dtype, as that), then the
    gradient added back along each dim's index map."""
    rank = op.rank
    if len(padding) != 2 * rank:
        raise RuntimeError(op.length_message(len(padding)))
    size = self._size
    dim = len(size)
    if dim < rank + 1:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-dim}, {dim - 1}], but got "
            f"{rank})"
        )
    separator = ", " if op.grad_comma else " "
    for k in range(rank):
        axis = dim - 1 - k
        expected = size[axis] + padding[2 * k] + padding[2 * k + 1]
        got = grad_output._size[axis] if axis < len(grad_output._size) else 0
        if got != expected:
            raise RuntimeError(
                f"{op.grad_prefix} {_DIM_NAMES[k]} unexpected. Expected: {expected}"
                f"{separator}Got: {got}"
            )
    g_dtype: DType = grad_output._dtype
    if not (g_dtype.is_floating_point or g_dtype.is_complex):
        raise not_implemented(f"{op.name}_backward", g_dtype)
    if self._dtype is not g_dtype:
        raise RuntimeError(
            f"expected scalar type {g_dtype.scalar_name} but found {self._dtype.scalar_name}"
        )
    stride = geometry.contiguous_strides(size)
    new_output(self, grad_input, size, stride, self._dtype)
    if not (has_data(self) and has_data(grad_output)):
        return emit(self, None, size, stride, self._dtype, grad_input)
    xp = xp_of(grad_output)
    value = xp.reshape(
        array_of(grad_output), (*size[: dim - rank], *grad_output._size[dim - rank :])
    )
    for k in reversed(range(rank)):
        axis = dim - 1 - k
        out_width = grad_output._size[axis]
        positions = index_map(size[axis], padding[2 * k], out_width, op.reflect)
        value = _scatter_add(xp, value, axis, positions, size[axis])
    return emit(self, value, size, stride, self._dtype, grad_input)


def too_small_1d(inner: Shape, out_inner: Shape) -> str:
    # torch: reflection_pad1d / replication_pad1d's meta functions.
    return f"input (W: {inner[0]}) is too small. Calculated output W: {out_inner[0]}"


def too_small_2d(space: str) -> Callable[[Shape, Shape], str]:
    """torch: the 2-D meta functions; replication_pad2d's has a space before ")"."""

    def message(inner: Shape, out_inner: Shape) -> str:
        return (
            f"input (H: {inner[0]}, W: {inner[1]}{space}) is too small. Calculated output "
            f"H: {out_inner[0]} W: {out_inner[1]}"
        )

    return message


def too_small_3d(inner: Shape, out_inner: Shape) -> str:
    # torch: reflection_pad3d / replication_pad3d's meta functions.
    return (
        f"input (D: {inner[0]} H: {inner[1]}, W: {inner[2]}) is too small. Calculated output "
        f"D: {out_inner[0]} H: {out_inner[1]} W: {out_inner[2]}"
    )


# --- the op blocks ----------------------------------------------------------------------------


def declare(op: PadOp, size: int) -> tuple[OpBlock, OpBlock, OpBlock, OpBlock]:
    """The four overloads of one reflection or replication op (functional, out=, backward,
    backward's grad_input=), each registered under the keys torch uses, with derivatives."""
    name = op.name
    functional = defop(f"{name}(Tensor self, SymInt[{size}] padding) -> Tensor")
    out_form = defop(
        f"{name}.out(Tensor self, SymInt[{size}] padding, *, Tensor(a!) out) -> Tensor(a!)"
    )
    grad = defop(
        f"{name}_backward(Tensor grad_output, Tensor self, SymInt[{size}] padding) -> Tensor"
    )
    grad_input = defop(
        f"{name}_backward.grad_input(Tensor grad_output, Tensor self, SymInt[{size}] padding, "
        "*, Tensor(a!) grad_input) -> Tensor(a!)"
    )

    def pad_kernel(self: TensorImpl, padding: Sequence[int]) -> Any:
        return forward(op, self, padding, None)

    def pad_out_kernel(self: TensorImpl, padding: Sequence[int], *, out: TensorImpl) -> Any:
        return forward(op, self, padding, out)

    def pad_backward_kernel(
        grad_output: TensorImpl, self: TensorImpl, padding: Sequence[int]
    ) -> Any:
        return backward(op, grad_output, self, padding, None)

    def pad_backward_grad_input_kernel(
        grad_output: TensorImpl,
        self: TensorImpl,
        padding: Sequence[int],
        *,
        grad_input: TensorImpl,
    ) -> Any:
        return backward(op, grad_output, self, padding, grad_input)

    for block, fn in (
        (functional, pad_kernel),
        (out_form, pad_out_kernel),
        (grad, pad_backward_kernel),
        (grad_input, pad_backward_grad_input_kernel),
    ):
        fn.__name__ = f"{block.op.name().removeprefix('aten::').replace('.', '_')}_kernel"
        fn.__doc__ = f"Torch: {block.op.name()} (see ops/_padding_nd.py)."
        registered(block)(fn)

    backward_op = getattr(aten, f"{name}_backward").default
    forward_op = getattr(aten, name).default

    def pad_derivative(grad: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
        # torch: <name>_backward_symint(grad, self, padding)
        return backward_op(grad, self, list(padding))

    def pad_backward_grad_output(grad: Tensor, padding: Sequence[int]) -> Tensor:
        # torch: <name>_symint(grad, padding)
        return forward_op(grad, list(padding))

    def pad_backward_self(grad: Tensor, self: Tensor) -> Tensor:
        # torch: zeros_like(self)
        return aten.zeros_like.default(self)

    pad_derivative.__name__ = f"{name}_backward_self"
    pad_backward_grad_output.__name__ = f"{name}_backward_grad_output"
    pad_backward_self.__name__ = f"{name}_backward_backward_self"
    functional.derivative("self")(pad_derivative)
    grad.derivative("grad_output")(pad_backward_grad_output)
    grad.derivative("self")(pad_backward_self)
    return functional, out_form, grad, grad_input
