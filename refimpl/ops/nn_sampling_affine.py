"""affine_grid_generator and its backward: the sampling grid of a batch of affine maps.

Torch: aten/src/ATen/native/AffineGridGenerator.cpp (make_base_grid_4D / _5D: a grid of
x, y[, z] in [-1, 1] and ones, times theta transposed; the backward is the transposed
product). F.affine_grid is in refimpl/nn/functional/_sampling.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, backend_dtype, tensor_over, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops._ranges import linspace_array
from refimpl.ops._reduction import implements, same_as_out
from refimpl.ops._register import defop

aten: Final = namespace("aten")


# --- affine_grid_generator -----------------------------------------------------------------------

affine_grid_generator = defop(
    "affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor"
)
affine_grid_generator_out = defop(
    "affine_grid_generator.out(Tensor theta, SymInt[] size, bool align_corners, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)
affine_grid_generator_backward = defop(
    "affine_grid_generator_backward(Tensor grad, SymInt[] size, bool align_corners) -> Tensor"
)


def _linspace_from_neg_one(like: TensorImpl, steps: int, align_corners: bool) -> Any:
    """Torch: linspace_from_neg_one (AffineGridGenerator.cpp): `steps` points from -1 to 1,
    scaled by (steps - 1) / steps without align_corners; `at::tensor(0)` for one step."""
    device = like._storage.device
    if steps <= 1:
        zero = aten.empty.memory_format(
            [1], dtype=like._dtype, layout=None, device=device, pin_memory=None,
            memory_format=None,
        )  # fmt: skip
        backend = zero._storage.backend
        if backend is not None:
            # torch: at::tensor copies its value in without a dispatched op.
            write_array(zero, backend.xp.zeros((1,), dtype=backend_dtype(backend, like._dtype)))
        return zero
    # Differs: torch calls aten.linspace; refimpl has no aten kernel for it (refimpl.linspace
    # is written at the API layer), so the values are made here, as its kernel makes them.
    backend = like._storage.backend
    array = None if backend is None else linspace_array(backend, -1, 1, steps, like._dtype)
    values = tensor_over(array, (steps,), (1,), like._dtype, device, backend)
    if not align_corners:
        values = aten.div.Scalar(aten.mul.Scalar(values, steps - 1), steps)
    return values


def _base_grid(like: TensorImpl, size: Sequence[int], align_corners: bool) -> Any:
    """Torch: make_base_grid_4D / _5D: (N, *spatial, dims + 1) holding x, y[, z] in [-1, 1]
    and a column of ones."""
    spatial = list(size[2:])
    dims = len(spatial)
    base = aten.empty.memory_format(
        [size[0], *spatial, dims + 1], dtype=like._dtype, layout=None,
        device=like._storage.device, pin_memory=None, memory_format=None,
    )  # fmt: skip
    for k in range(dims):
        column = aten.select.int(base, -1, k)
        values = _linspace_from_neg_one(like, spatial[dims - 1 - k], align_corners)
        # torch: x varies along the last spatial dim, y along the one before (unsqueeze_(-1)),
        # z along the first (unsqueeze_(-1) twice).
        for _ in range(k):
            values = aten.unsqueeze_.default(values, -1)
        aten.copy_.default(column, values)
    aten.fill_.Scalar(aten.select.int(base, -1, dims), 1)
    return base


@implements(affine_grid_generator)
def affine_grid_generator_kernel(theta: TensorImpl, size: list[int], align_corners: bool) -> Any:
    """Torch: affine_grid_generator (AffineGridGenerator.cpp): the base grid times theta^T,
    (N, prod(spatial), dims + 1) @ (N, dims + 1, dims)."""
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    dims = len(size) - 2
    spatial = list(size[2:])
    base = _base_grid(theta, size, align_corners)
    flat = aten.view.default(base, [size[0], geometry.numel(spatial), dims + 1])
    grid = aten.bmm.default(flat, aten.transpose.int(theta, 1, 2))
    return aten.view.default(grid, [size[0], *spatial, dims])


@implements(affine_grid_generator_out)
def affine_grid_generator_out_kernel(
    theta: TensorImpl, size: list[int], align_corners: bool, *, out: TensorImpl
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= form."""
    return same_as_out(aten.affine_grid_generator.default(theta, size, align_corners), out)


@affine_grid_generator.derivative("theta")
def affine_grid_generator_backward_theta(grad: Any, size: list[int], align_corners: bool) -> Any:
    # torch: affine_grid_generator_backward_symint(grad, size, align_corners)
    return aten.affine_grid_generator_backward.default(grad, size, align_corners)


@affine_grid_generator_backward.decomposition
def affine_grid_generator_backward_decomposition(
    grad: TensorImpl, size: list[int], align_corners: bool
) -> Any:
    """Torch: affine_grid_generator_backward (AffineGridGenerator.cpp): base_grid^T @ grad,
    transposed: (N, dims, dims + 1)."""
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    dims = len(size) - 2
    points = geometry.numel(size[2:])
    base = _base_grid(grad, size, align_corners)
    flat = aten.transpose.int(aten.view.default(base, [size[0], points, dims + 1]), 1, 2)
    theta = aten.bmm.default(flat, aten.view.default(grad, [size[0], points, dims]))
    return aten.transpose.int(theta, 1, 2)
