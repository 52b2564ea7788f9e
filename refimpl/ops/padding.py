"""Padding as aten ops: constant_pad_nd (and its out= form).

Torch: constant_pad_nd in aten/src/ATen/native/PadNd.cpp (CompositeExplicitAutograd) and
constant_pad_nd_backward in FunctionsManual.cpp. `pad` lists (before, after) pairs from the
last dimension backwards; negative amounts trim. aten.pad's other modes (reflect, replicate,
circular) are nn.functional's and are not here yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.keys import DispatchKey
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
