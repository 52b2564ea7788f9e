"""torch.nn.functional: interpolate (and the deprecated upsample, upsample_nearest,
upsample_bilinear), grid_sample, affine_grid.

Torch: torch/nn/functional.py. interpolate checks its arguments and calls the
`torch._C._nn.upsample_*` bindings with an output size or scale factors (their `.vec`
overloads), or F.adaptive_avg_pool*d for "area"; grid_sample calls torch.grid_sampler with
torch's enum ints; affine_grid calls torch.affine_grid_generator.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._C import _nn
from refimpl.api._torch_function import install_on_namespace as _install_on_namespace
from refimpl.api.nn_sampling import affine_grid_generator, grid_sampler
from refimpl.core.tensor import TensorImpl
from refimpl.nn.functional import _pooling

__all__: list[str] = [
    "affine_grid",
    "grid_sample",
    "interpolate",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

# torch._C._nn's bindings (made from the spec at import, so read by name).
_BINDINGS: Final[dict[str, Any]] = vars(_nn)

# The modes that take no align_corners. Torch: interpolate's first check.
_NO_ALIGN_MODES: Final = ("nearest", "area", "nearest-exact")

# torch: the NotImplementedError interpolate raises for a mode given the wrong rank.
_WRONG_RANK: Final[dict[tuple[int, str], str]] = {
    (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
    (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
    (4, "linear"): "Got 4D input, but linear mode needs 3D input",
    (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
    (5, "linear"): "Got 5D input, but linear mode needs 3D input",
    (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
}

# The binding interpolate calls for (rank, mode), with its output size or scale factors;
# the interpolating ones also take align_corners. Torch: interpolate's dispatch chain.
_NEAREST: Final[dict[tuple[int, str], Any]] = {
    (3, "nearest"): _BINDINGS["upsample_nearest1d"],
    (4, "nearest"): _BINDINGS["upsample_nearest2d"],
    (5, "nearest"): _BINDINGS["upsample_nearest3d"],
    (3, "nearest-exact"): _BINDINGS["_upsample_nearest_exact1d"],
    (4, "nearest-exact"): _BINDINGS["_upsample_nearest_exact2d"],
    (5, "nearest-exact"): _BINDINGS["_upsample_nearest_exact3d"],
}
_INTERPOLATING: Final[dict[tuple[int, str, bool], Any]] = {
    (3, "linear", False): _BINDINGS["upsample_linear1d"],
    (4, "bilinear", False): _BINDINGS["upsample_bilinear2d"],
    (4, "bilinear", True): _BINDINGS["_upsample_bilinear2d_aa"],
    (5, "trilinear", False): _BINDINGS["upsample_trilinear3d"],
    (4, "bicubic", False): _BINDINGS["upsample_bicubic2d"],
    (4, "bicubic", True): _BINDINGS["_upsample_bicubic2d_aa"],
}

_ALIGN_CORNERS_DEFAULT_WARNING: Final = (
    "Default grid_sample and affine_grid behavior has changed "
    "to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. "
    "See the documentation of grid_sample for details."
)


def _is_integer(x: Any) -> bool:
    # torch: torch.nn.functional._is_integer (an int, or an integral tensor).
    if isinstance(x, int):
        return True
    return isinstance(x, TensorImpl) and not x._dtype.is_floating_point


def _area(input: Any, output_size: Any) -> Any:
    # torch: interpolate's "area" mode is F.adaptive_avg_pool{1,2,3}d (the pooling family's
    # module, read when called).
    rank: int = input.dim()
    return vars(_pooling)[f"adaptive_avg_pool{rank - 2}d"](input, output_size)


def interpolate(
    input: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Any:
    """Resample `input` to `size` or by `scale_factor`. Torch: F.interpolate."""
    if mode in _NO_ALIGN_MODES:
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size: Any
    scale_factors: Any
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # torch: "area" always takes an explicit size, through the recompute path.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        # torch: _sym_int(size * scale), then the C++ code recomputes the scale from sizes.
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    rank = input.dim()
    nearest = _NEAREST.get((rank, mode))
    if nearest is not None:
        return nearest(input, output_size, scale_factors)
    if mode == "area" and rank in (3, 4, 5):
        return _area(input, output_size)
    binding = _INTERPOLATING.get((rank, mode, bool(antialias)))
    if binding is not None:
        return binding(input, output_size, align_corners, scale_factors)
    if rank == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _BINDINGS["_upsample_lanczos2d_aa"](input, output_size, align_corners, scale_factors)
    wrong = _WRONG_RANK.get((rank, mode))
    if wrong is not None:
        raise NotImplementedError(wrong)
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {rank}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
        f"lanczos | area | nearest-exact (got {mode})"
    )


def upsample(
    input: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Any:
    """Deprecated interpolate. Torch: F.upsample."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Any, size: Any = None, scale_factor: Any = None) -> Any:
    """Deprecated nearest interpolate. Torch: F.upsample_nearest."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Any, size: Any = None, scale_factor: Any = None) -> Any:
    """Deprecated bilinear interpolate (align_corners=True). Torch: F.upsample_bilinear."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# torch: grid_sample's enum ints (GridSamplerInterpolation, GridSamplerPadding).
_GRID_MODES: Final[dict[str, int]] = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDINGS: Final[dict[str, int]] = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(
    input: Any,
    grid: Any,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Any:
    """`input` sampled at the points of `grid`. Torch: F.grid_sample."""
    if mode not in _GRID_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode "
            "to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_DEFAULT_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDINGS[padding_mode], align_corners)


def affine_grid(theta: Any, size: Sequence[int], align_corners: bool | None = None) -> Any:
    """The sampling grid of a batch of affine maps. Torch: F.affine_grid."""
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_DEFAULT_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, "
            "for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed "
            "for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. "
            "See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


# torch: F.upsample, F.upsample_nearest and F.upsample_bilinear call interpolate, which checks
# for __torch_function__ itself; so the functions of this module are put behind the protocol
# here, where they call each other (the package's installation then finds them done).
_install_on_namespace(globals(), "torch.nn.functional")
