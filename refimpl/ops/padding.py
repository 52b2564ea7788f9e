"""Padding as aten ops: constant_pad_nd (and its out= form), and aten.pad with its modes
(_pad_enum, _pad_circular).

Torch: aten/src/ATen/native/PadNd.cpp: constant_pad_nd (CompositeExplicitAutograd) with
constant_pad_nd_backward in FunctionsManual.cpp; pad, _pad_enum and _pad_circular
(CompositeImplicitAutograd), which pick constant_pad_nd, reflection_padNd (ops/padding_reflect.py),
replication_padNd (ops/padding_replicate.py) or the circular copies by mode and rank. `pad`
lists (before, after) pairs from the last dimension backwards; negative amounts trim.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.keys import DispatchKey
from refimpl._base.layout import strided
from refimpl._base.scalars import Scalar
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._reduction import same_as_out
from refimpl.ops._register import defop

aten: Final = namespace("aten")
_CEA: Final = DispatchKey.CompositeExplicitAutograd


constant_pad_nd = defop("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor")


@constant_pad_nd.kernel(_CEA)
def constant_pad_nd_kernel(self: TensorImpl, pad: Sequence[int], value: Scalar) -> Any:
    """Torch: constant_pad_nd (PadNd.cpp): the input narrowed by the negative amounts; if
    no amount is positive, a copy of that; else a new contiguous tensor filled with `value`
    with the narrowed input copied into its middle."""
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    input_sizes = self._size
    l_inp = len(input_sizes)
    l_pad = len(pad) // 2
    l_diff = l_inp - l_pad
    if l_inp < l_pad:
        # torch's message has no space before "while" and "dimensions".
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the "
            f"input. Pad length is {len(pad)}while the input has {l_inp}dimensions."
        )
    all_pads_non_positive = True
    c_input = self
    for i in range(l_diff, l_inp):
        before, after = pad[2 * (l_inp - i - 1)], pad[2 * (l_inp - i - 1) + 1]
        if before < 0:
            c_input = aten.narrow.default(c_input, i, -before, c_input._size[i] + before)
        elif before != 0:
            all_pads_non_positive = False
        if after < 0:
            c_input = aten.narrow.default(c_input, i, 0, c_input._size[i] + after)
        elif after != 0:
            all_pads_non_positive = False
    if all_pads_non_positive:
        return aten.clone.default(c_input)
    new_shape = list(input_sizes[:l_diff])
    for i in range(l_pad):
        pad_idx = len(pad) - (i + 1) * 2
        new_dim = input_sizes[l_diff + i] + pad[pad_idx] + pad[pad_idx + 1]
        if new_dim < 0:
            raise RuntimeError(
                f"The input size {input_sizes[l_diff + i]}, plus negative padding "
                f"{pad[pad_idx]} and {pad[pad_idx + 1]} resulted in a negative output size, "
                f"which is invalid. Check dimension {l_diff + i} of your input."
            )
        new_shape.append(new_dim)
    output = aten.empty.memory_format(new_shape, dtype=self._dtype, device=self._storage.device)
    aten.fill_.Scalar(output, value)
    c_output = output
    for i in range(l_diff, l_inp):
        before, after = pad[2 * (l_inp - i - 1)], pad[2 * (l_inp - i - 1) + 1]
        if before > 0:
            c_output = aten.narrow.default(c_output, i, before, c_output._size[i] - before)
        if after > 0:
            c_output = aten.narrow.default(c_output, i, 0, c_output._size[i] - after)
    aten.copy_.default(c_output, c_input)
    return output


@constant_pad_nd.derivative("self")
def constant_pad_nd_backward(grad: Tensor, pad: Sequence[int]) -> Tensor:
    # torch: constant_pad_nd_backward(grad, pad): the padding undone by its negation.
    return aten.constant_pad_nd.default(grad, [-p for p in pad], 0)


constant_pad_nd_out = defop(
    "constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) -> "
    "Tensor(a!)"
)


@constant_pad_nd_out.kernel(_CEA)
def constant_pad_nd_out_kernel(
    self: TensorImpl, pad: Sequence[int], value: Scalar, *, out: TensorImpl
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper."""
    return same_as_out(constant_pad_nd_kernel(self, pad, value), out)


# --- pad, _pad_enum ----------------------------------------------------------------------------


class PaddingMode(enum.IntEnum):
    """Torch: at::padding_mode (aten/src/ATen/native/PadNd.h), the int `_pad_enum` takes."""

    reflect = 0
    replicate = 1
    circular = 2
    constant = 3


_MODE_VALUES: Final = frozenset(int(m) for m in PaddingMode)

# The ops a non-constant mode calls, by (mode, padding length); each takes inputs of rank
# length / 2 + 1 or + 2. Torch: the switch of _pad_enum_symint in PadNd.cpp.
_MODE_OPS: Final = {
    (PaddingMode.reflect, 2): "reflection_pad1d",
    (PaddingMode.reflect, 4): "reflection_pad2d",
    (PaddingMode.reflect, 6): "reflection_pad3d",
    (PaddingMode.replicate, 2): "replication_pad1d",
    (PaddingMode.replicate, 4): "replication_pad2d",
    (PaddingMode.replicate, 6): "replication_pad3d",
    (PaddingMode.circular, 2): "_pad_circular",
    (PaddingMode.circular, 4): "_pad_circular",
    (PaddingMode.circular, 6): "_pad_circular",
}


def _pad_enum_impl(self: TensorImpl, pad: Sequence[int], mode: int, value: float | None) -> Any:
    """Torch: _pad_enum_symint in PadNd.cpp (which pad calls directly, not dispatched)."""
    input_dim = len(self._size)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > input_dim * 2:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input_dim}"
        )
    if mode == PaddingMode.constant:
        return aten.constant_pad_nd.default(self, list(pad), 0.0 if value is None else value)
    known = mode in _MODE_VALUES
    if value is not None and value != 0:
        name = PaddingMode(mode).name if known else ""
        raise RuntimeError(f'Padding mode "{name}" doesn\'t take in value argument')
    op_name = _MODE_OPS.get((PaddingMode(mode), len(pad))) if known else None
    if op_name is not None and input_dim in (len(pad) // 2 + 1, len(pad) // 2 + 2):
        return getattr(aten, op_name).default(self, list(pad))
    raise NotImplementedError(
        f"Padding size {len(pad)} is not supported for {input_dim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
    )


_pad_enum = defop("_pad_enum(Tensor self, SymInt[] pad, int mode, float? value=None) -> Tensor")


@_pad_enum.decomposition
def _pad_enum_decomposition(
    self: TensorImpl, pad: Sequence[int], mode: int, value: float | None = None
) -> Any:
    """Torch: _pad_enum (CompositeImplicitAutograd in PadNd.cpp)."""
    return _pad_enum_impl(self, pad, mode, value)


pad_op = defop('pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor')


@pad_op.decomposition
def pad_decomposition(
    self: TensorImpl, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Any:
    """`self` padded in `mode` ("constant", "reflect", "replicate", "circular").

    Torch: pad_symint in PadNd.cpp: the mode string to at::padding_mode, then
    at::native::_pad_enum_symint (a direct call: dispatch modes see only the op it picks).
    """
    if mode not in PaddingMode.__members__:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return _pad_enum_impl(self, pad, PaddingMode[mode], value)


# --- _pad_circular -----------------------------------------------------------------------------

_pad_circular = defop("_pad_circular(Tensor self, SymInt[] pad) -> Tensor")


@_pad_circular.decomposition
def _pad_circular_decomposition(self: TensorImpl, pad: Sequence[int]) -> Any:
    """`self` padded circularly: each padded dim wraps around (at most once).

    Torch: _pad_circular_symint in PadNd.cpp: the input (trimmed by negative amounts) copied
    into the middle of a new_empty output, then, dim by dim from the last, the left pad
    copied from the output's right end and the right pad from its left end (corners are
    written more than once).
    """
    in_shape = self._size
    ndim_padded = len(pad) // 2
    ndim_nonpadded = len(in_shape) - ndim_padded
    if ndim_nonpadded not in (1, 2):
        raise RuntimeError(
            "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be "
            f"equivalent to padding of length {(len(in_shape) - 1) * 2} or "
            f"{(len(in_shape) - 2) * 2} respectively but got {len(pad)}"
        )
    out_shape = list(in_shape[:ndim_nonpadded])
    for i in range(ndim_padded):
        pad_l = pad[2 * (ndim_padded - i - 1)]
        pad_r = pad[2 * (ndim_padded - i - 1) + 1]
        size = in_shape[ndim_nonpadded + i]
        out_shape.append(size + pad_l + pad_r)
        if not (pad_l <= size and pad_r <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = aten.new_empty.default(
        self, out_shape, dtype=self._dtype, layout=strided, device=self._storage.device
    )
    out_slice = out
    in_slice = self
    for i in range(ndim_padded):
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = pad[2 * i], pad[2 * i + 1]
        out_slice = aten.slice.Tensor(out_slice, dim, max(pad_l, 0), out_shape[dim] - max(pad_r, 0))
        in_slice = aten.slice.Tensor(in_slice, dim, max(-pad_l, 0), in_shape[dim] - max(-pad_r, 0))
    aten.copy_.default(out_slice, in_slice)
    for i in range(ndim_padded):
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = pad[2 * i], pad[2 * i + 1]
        if pad_l > 0:
            out_slice = aten.slice.Tensor(out, dim, 0, pad_l)
            in_slice = aten.slice.Tensor(
                out, dim, out_shape[dim] - pad_l - max(pad_r, 0), out_shape[dim] - max(pad_r, 0)
            )
            aten.copy_.default(out_slice, in_slice)
        if pad_r > 0:
            out_slice = aten.slice.Tensor(out, dim, out_shape[dim] - pad_r, out_shape[dim])
            in_slice = aten.slice.Tensor(out, dim, max(pad_l, 0), max(pad_l, 0) + pad_r)
            aten.copy_.default(out_slice, in_slice)
    return out
