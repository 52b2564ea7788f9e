"""Replication padding as aten ops: replication_pad1d, replication_pad2d, replication_pad3d
and their backward ops (with their out= forms), which aten.pad calls for mode "replicate".

Torch: aten/src/ATen/native/ReplicationPadding.cpp (the structured ops and their meta
functions; CPU kernels in native/cpu/PaddingKernel.cpp); derivatives.yaml: replication_padNd's
self gets replication_padNd_backward(grad, self, padding), replication_padNd_backward's
grad_output gets replication_padNd(grad, padding) and its self zeros_like(self). The index
map and the dim-by-dim compute are in ops/_padding_nd.py.
"""

from __future__ import annotations

from typing import Final

from refimpl.ops._padding_nd import (
    PadOp,
    declare,
    negative_dimension,
    too_small_1d,
    too_small_2d,
    too_small_3d,
)


def _length_message(length: int, rank: int) -> str:
    # torch: "padding size is expected to be 4" (no count of what was passed).
    return f"padding size is expected to be {2 * rank}"


# The three ops, each with the wording of its checks (torch 2.13, measured).
REPLICATION_PAD1D: Final = PadOp(
    "replication_pad1d",
    1,
    False,
    lambda length: _length_message(length, 1),
    too_small_1d,
    None,
    "gradOutput",
    grad_comma=False,
)
REPLICATION_PAD2D: Final = PadOp(
    "replication_pad2d",
    2,
    False,
    lambda length: _length_message(length, 2),
    too_small_2d(" "),
    negative_dimension,
    "gradOutput",
)
REPLICATION_PAD3D: Final = PadOp(
    "replication_pad3d",
    3,
    False,
    lambda length: _length_message(length, 3),
    too_small_3d,
    negative_dimension,
    "gradOutput",
)

(
    replication_pad1d,
    replication_pad1d_out,
    replication_pad1d_backward,
    replication_pad1d_backward_grad_input,
) = declare(REPLICATION_PAD1D, 2)
(
    replication_pad2d,
    replication_pad2d_out,
    replication_pad2d_backward,
    replication_pad2d_backward_grad_input,
) = declare(REPLICATION_PAD2D, 4)
(
    replication_pad3d,
    replication_pad3d_out,
    replication_pad3d_backward,
    replication_pad3d_backward_grad_input,
) = declare(REPLICATION_PAD3D, 6)
