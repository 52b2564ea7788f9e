"""The torch.* functions of grid_sample and affine_grid: torch.grid_sampler (the
CompositeImplicitAutograd op F.grid_sample calls), grid_sampler_2d / grid_sampler_3d,
_grid_sampler_2d_cpu_fallback and affine_grid_generator.

Torch: the generated bindings in python_torch_functions.cpp (the upsample ops are bound in
torch._C._nn only: refimpl/_C/_nn.py). Each function passes through `api/_call.py`
(`torch_function`); one line per name. `SamplingMethods` is a base class of `refimpl.Tensor`
(torch has no Tensor method of this family).
"""

from __future__ import annotations

from refimpl.api._call import torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_grid_sampler_2d_cpu_fallback",
    "affine_grid_generator",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
]

grid_sampler = torch_function("grid_sampler")
grid_sampler_2d = torch_function("grid_sampler_2d")
grid_sampler_3d = torch_function("grid_sampler_3d")
affine_grid_generator = torch_function("affine_grid_generator")
_grid_sampler_2d_cpu_fallback = torch_function("_grid_sampler_2d_cpu_fallback")


class SamplingMethods:
    """The Tensor methods of this family (none in torch). Torch: torch._C.TensorBase."""

    __slots__ = ()
