"""Reflection padding as aten ops: reflection_pad1d, reflection_pad2d, reflection_pad3d and
their backward ops (with their out= forms), which aten.pad calls for mode "reflect" (and
stft.center through reflection_pad1d).

Torch: aten/src/ATen/native/ReflectionPad.cpp (structured reflection_pad1d and its backward,
reflection_pad2d_cpu, structured reflection_pad3d and its backward; CPU kernels in
native/cpu/PaddingKernel.cpp); derivatives.yaml: reflection_padNd's self gets
reflection_padNd_backward(grad, self, padding), and reflection_padNd_backward's grad_output
gets reflection_padNd(grad, padding) and its self zeros_like(self) (so a second derivative
through it reaches self as zeros, torch 2.13 verified on stft's double backward). The index
map and the dim-by-dim compute are in ops/_padding_nd.py.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl.ops._padding_nd import (
    PadOp,
    declare,
    negative_dimension,
    numel_overflow,
    too_small_1d,
    too_small_2d,
    too_small_3d,
)


def _length_message(rank: int) -> Any:
    # torch: "padding size is expected to be 4, but got: 2" (the structured meta functions).
    return lambda length: f"padding size is expected to be {2 * rank}, but got: {length}"


# The three ops, each with the wording of its checks (torch 2.13, measured).
REFLECTION_PAD1D: Final = PadOp(
    "reflection_pad1d", 1, True, _length_message(1), too_small_1d, None, "grad_output"
)
REFLECTION_PAD2D: Final = PadOp(
    "reflection_pad2d",
    2,
    True,
    _length_message(2),
    too_small_2d(""),
    numel_overflow,
    "gradOutput",
)
REFLECTION_PAD3D: Final = PadOp(
    "reflection_pad3d",
    3,
    True,
    _length_message(3),
    too_small_3d,
    negative_dimension,
    "grad_output",
)


(
    reflection_pad1d,
    reflection_pad1d_out,
    reflection_pad1d_backward,
    reflection_pad1d_backward_grad_input,
) = declare(REFLECTION_PAD1D, 2)
(
    reflection_pad2d,
    reflection_pad2d_out,
    reflection_pad2d_backward,
    reflection_pad2d_backward_grad_input,
) = declare(REFLECTION_PAD2D, 4)
(
    reflection_pad3d,
    reflection_pad3d_out,
    reflection_pad3d_backward,
    reflection_pad3d_backward_grad_input,
) = declare(REFLECTION_PAD3D, 6)
