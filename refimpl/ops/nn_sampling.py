"""The upsample ops beneath F.interpolate: upsample_{nearest,linear,bilinear,bicubic,trilinear}
and _upsample_nearest_exact (1d/2d/3d), _upsample_{bilinear,bicubic}2d_aa, with their `.vec`,
out= and backward overloads; grid_sampler and affine_grid are in nn_sampling_grid.py.

Torch: aten/src/ATen/native/UpSample*.cpp (the structured meta functions and their checks,
upsample::compute_output_size for `.vec`) and aten/src/ATen/native/cpu/UpSampleKernel.cpp
(the kernels). Every upsample is separable: along each spatial dim (the last first, as the
separable kernels run), output `i` is a weighted sum of a few input elements, described by
one `Taps` per dim (refimpl/ops/_nn_sampling_taps.py). The backward ops are the transposed
maps (a scatter-add), so each op's derivative is its backward op and each backward op's
derivative is the forward op, as in derivatives.yaml. Results keep the input's suggested
memory format (channels-last in, channels-last out). float16/bfloat16 compute in float32
and round once; uint8 bilinear/bicubic run torch's fixed-point (int16 weight) passes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32, float64, int64, uint8
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, resize_for_output, tensor_over, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (  # noqa: F401  # registers their kernels
    nn_sampling_affine,
    nn_sampling_grid,
)
from refimpl.ops._nn_sampling_taps import (
    Interp,
    Taps,
    cubic_taps,
    int16_taps,
    linear_taps,
    merge_clamped,
    nearest_taps,
    range_taps,
)
from refimpl.ops._outputs import format_shape, warn_resize
from refimpl.ops._reduction import (
    cast_to,
    check_out_dtype,
    has_data,
    implements,
    input_array,
    not_implemented,
)
from refimpl.ops._register import defop
from refimpl.ops._scatter import ScatterReduce, scatter_flat
from refimpl.ops.data import cast_array

aten: Final = namespace("aten")

_FLOATS: Final = frozenset({float16, bfloat16, float32, float64})
_REDUCED: Final = frozenset({float16, bfloat16})

# The scale arguments of an op of 1, 2 or 3 spatial dims. Torch: native_functions.yaml.
_SCALE_NAMES: Final[dict[int, tuple[str, ...]]] = {
    1: ("scales",),
    2: ("scales_h", "scales_w"),
    3: ("scales_d", "scales_h", "scales_w"),
}
# The letters torch's size checks name the spatial dims with (upsample_*_common_check).
_DIM_LETTERS: Final[dict[int, tuple[str, ...]]] = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


@dataclass(frozen=True, slots=True)
class Upsample:
    """One upsample op family: its name, spatial dims, interpolation, and the dtypes and
    AT_DISPATCH names of its CPU kernels (torch 2.13, measured)."""

    name: str
    dims: int
    interp: Interp
    kernel_name: str
    """The forward kernel's AT_DISPATCH name, in its "not implemented for" error."""
    backward_name: str
    dtypes: frozenset[DType]
    backward_dtypes: frozenset[DType]
    vec_out: bool = False
    """Whether torch has a `.vec_out` overload (bilinear2d and nearest2d only)."""
    backward_cl_name: str | None = None
    """The backward kernel's name for a channels-last contiguous grad_output, where torch
    has a channels-last backward kernel."""
    backward_channels_last: bool = False
    """Whether the backward op's result keeps a channels-last grad_output's memory format
    (torch 2.13, measured: nearest2d, nearest_exact2d, bilinear2d, bilinear2d_aa,
    trilinear3d; the others return contiguous gradients)."""
    opmath_weights: bool = False
    """Whether the float16/bfloat16 kernel keeps its weights in float (bilinear2d's
    channels-last kernel, which torch 2.13 runs for every layout), not in scalar_t."""

    @property
    def align(self) -> bool:
        """Whether the op takes `align_corners` (every one but nearest)."""
        return self.interp not in (Interp.NEAREST, Interp.NEAREST_EXACT)

    @property
    def antialias(self) -> bool:
        return self.interp in (Interp.LINEAR_AA, Interp.CUBIC_AA, Interp.LANCZOS_AA)


_F_U8: Final = _FLOATS | {uint8}
_AA: Final = frozenset({float32, float64, uint8})
_AA_BACKWARD: Final = frozenset({float32, float64})

# torch: the AT_DISPATCH names and dtypes of UpSampleKernel.cpp (nearest 2d and bilinear 2d
# report their channels-last kernel's name whatever the layout, as torch 2.13 does).
FAMILIES: Final = (
    Upsample("upsample_nearest1d", 1, Interp.NEAREST, "compute_indices_weights_nearest",
             "upsample_nearest1d_backward", _F_U8, _FLOATS),
    Upsample("upsample_nearest2d", 2, Interp.NEAREST, "upsample_nearest2d_channels_last",
             "upsample_nearest2d_backward", _F_U8, _FLOATS, vec_out=True,
             backward_cl_name="upsample_nearest2d_backward_cl", backward_channels_last=True),
    Upsample("upsample_nearest3d", 3, Interp.NEAREST, "compute_indices_weights_nearest",
             "upsample_nearest3d_backward", _F_U8, _FLOATS,
             backward_cl_name="_upsample_nearest3d_backward_cl"),
    Upsample("_upsample_nearest_exact1d", 1, Interp.NEAREST_EXACT,
             "compute_indices_weights_nearest", "_upsample_nearest_exact1d_backward", _F_U8,
             _FLOATS),
    Upsample("_upsample_nearest_exact2d", 2, Interp.NEAREST_EXACT,
             "upsample_nearest2d_channels_last", "_upsample_nearest_exact2d_backward", _F_U8,
             _FLOATS, backward_cl_name="_upsample_nearest_exact2d_backward_cl",
             backward_channels_last=True),
    Upsample("_upsample_nearest_exact3d", 3, Interp.NEAREST_EXACT,
             "compute_indices_weights_nearest", "_upsample_nearest_exact3d_backward", _F_U8,
             _FLOATS, backward_cl_name="_upsample_nearest_exact3d_backward_cl"),
    Upsample("upsample_linear1d", 1, Interp.LINEAR, "compute_indices_weights_linear",
             "upsample_linear1d_backward", _FLOATS, _FLOATS),
    Upsample("upsample_bilinear2d", 2, Interp.LINEAR, "upsample_bilinear2d_channels_last",
             "upsample_bilinear2d_backward", _F_U8, _FLOATS, vec_out=True,
             backward_cl_name="upsample_bilinear2d_backward_channels_last", opmath_weights=True,
             backward_channels_last=True),
    Upsample("upsample_trilinear3d", 3, Interp.LINEAR, "compute_indices_weights_linear",
             "upsample_trilinear3d_backward", _FLOATS, _FLOATS,
             backward_cl_name="upsample_trilinear3d_backward_channels_last",
             backward_channels_last=True),
    Upsample("upsample_bicubic2d", 2, Interp.CUBIC, "compute_indices_weights_cubic",
             "upsample_bicubic2d_backward", _F_U8, _FLOATS),
    Upsample("_upsample_bilinear2d_aa", 2, Interp.LINEAR_AA, "compute_index_ranges_weights",
             "upsample_bilinear2d_aa_backward_cpu", _AA, _AA_BACKWARD,
             backward_channels_last=True),
    Upsample("_upsample_bicubic2d_aa", 2, Interp.CUBIC_AA, "compute_index_ranges_weights",
             "upsample_bicubic2d_aa_backward_cpu", _AA, _AA_BACKWARD),
    Upsample("_upsample_lanczos2d_aa", 2, Interp.LANCZOS_AA, "compute_index_ranges_weights",
             "upsample_lanczos2d_aa_backward_cpu", _AA, _AA_BACKWARD),
)  # fmt: skip


# --- checks ----------------------------------------------------------------------------------


def _common_check(
    family: Upsample, input_size: Sequence[int], output_size: Sequence[int]
) -> tuple[int, ...]:
    """The full output shape, after torch's checks of the two sizes.

    Torch: upsample_1d/2d/3d_common_check (UpSample.h).
    """
    dims = family.dims
    if len(output_size) != dims:
        raise RuntimeError(
            f"It is expected output_size equals to {dims}, but got size {len(output_size)}"
        )
    if len(input_size) != dims + 2:
        raise RuntimeError(
            f"It is expected input_size equals to {dims + 2}, but got size {len(input_size)}"
        )
    spatial = tuple(input_size[2:])
    if any(n <= 0 for n in spatial) or any(n <= 0 for n in output_size):
        letters = _DIM_LETTERS[dims]
        shown_in = ", ".join(f"{c}: {n}" for c, n in zip(letters, spatial))
        shown_out = ", ".join(f"{c}: {n}" for c, n in zip(letters, output_size))
        joiner = " and output" if dims == 1 else " output"
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({shown_in}){joiner} ({shown_out})"
        )
    return (input_size[0], input_size[1], *output_size)


def _check_non_empty(family: Upsample, self: TensorImpl) -> None:
    # torch: the TORCH_CHECK of the meta functions: an empty input only with a zero batch.
    size = self._size
    if geometry.numel(size) == 0 and geometry.numel(size[1:]) == 0:
        raise RuntimeError(
            f"Non-empty {family.dims + 2}D data tensor expected but got a tensor with sizes "
            f"{format_shape(size)}"
        )


def _check_grad_output(family: Upsample, grad_output: TensorImpl, full: tuple[int, ...]) -> None:
    # torch: the backward meta functions (TORCH_META_FUNC(upsample_*_backward)); the 1d ones
    # check each dim with check_dim_size (TensorUtils.cpp).
    rank = len(grad_output._size)
    if family.dims == 1:
        for i, n in enumerate(full):
            found = grad_output._size[i] if i < rank else None
            if rank != 3 or found != n:
                raise RuntimeError(
                    f"Expected a tensor of dimension 3 and tensor.size[{i}] == {n} but got: "
                    f"dimension {rank} and tensor.size[{i}] = {found}"
                )
        return
    if rank != family.dims + 2:
        raise RuntimeError(
            f"Expected grad_output to be a tensor of dimension {family.dims + 2} but got: "
            f"dimension {rank}"
        )
    for i, n in enumerate(full):
        if grad_output._size[i] != n:
            raise RuntimeError(
                "Expected grad_output to have the same shape as output; "
                f"output.size({i}) = {n} but got grad_output.size({i}) = {grad_output._size[i]}"
            )


# --- results ---------------------------------------------------------------------------------


def _channels_last(like: TensorImpl) -> bool:
    # torch: the structured meta functions allocate with like.suggest_memory_format().
    return layout.suggests_channels_last(like._size, like._stride)


def _strides(shape: tuple[int, ...], channels_last: bool) -> tuple[int, ...]:
    if channels_last:
        return layout.channels_last_strides(shape)
    return geometry.contiguous_strides(shape)


def _prepare_out(
    out: TensorImpl | None, shape: tuple[int, ...], dtype: DType, channels_last: bool
) -> None:
    # torch: the structured out= wrapper: the dtype must match, then a differently shaped
    # `out` is resized (with the deprecation warning) and restrided to the memory format.
    if out is None:
        return
    check_out_dtype(out, dtype)
    if out._size != shape:
        warn_resize(out, shape)
        resize_for_output(out, shape, _strides(shape, channels_last))


def _emit(
    like: TensorImpl,
    values: Array | None,
    shape: tuple[int, ...],
    dtype: DType,
    out: TensorImpl | None,
    channels_last: bool,
) -> Any:
    """`values` (logical order, any float or int dtype; None for meta) as the result: written
    into `out`, or a new tensor in `like`'s suggested memory format."""
    backend = like._storage.backend
    if out is not None:
        if values is not None and out._storage.backend is not None:
            xp = out._storage.backend.xp
            write_array(out, cast_to(xp, values, dtype, out._storage.backend))
        return out
    stride = _strides(shape, channels_last)
    if values is None or backend is None:
        return tensor_over(None, shape, stride, dtype, like._storage.device, None)
    xp = backend.xp
    values = cast_to(xp, values, dtype, backend)
    if channels_last:
        order = (0, 2, 3, 1) if len(shape) == 4 else (0, 2, 3, 4, 1)
        values = xp.permute_dims(values, order)
    return tensor_over(values, shape, stride, dtype, like._storage.device, backend)


# --- taps ------------------------------------------------------------------------------------


def _taps(
    family: Upsample,
    xp: Any,
    dtype: DType,
    in_size: int,
    out_size: int,
    align_corners: bool,
    scale: float | None,
    store: Callable[[Array], Array],
    backward: bool = False,
) -> Taps:
    """The taps of one spatial dim, in the dtype torch computes the dim's weights in;
    `store` rounds float weights as torch stores them (see `_storer`)."""
    interp = family.interp
    if interp is Interp.NEAREST or interp is Interp.NEAREST_EXACT:
        # torch: nearest_idx (with its shortcuts) in the 2d forward and every backward.
        shortcuts = backward or family.dims == 2
        exact = interp is Interp.NEAREST_EXACT
        return nearest_taps(xp, in_size, out_size, scale, exact, shortcuts)
    if dtype is uint8:
        # torch: the uint8 kernels (upsample_avx_bilinear_bicubic_uint8 and the generic
        # separable one) compute the weights in double, then int16 fixed point: over the
        # filter's support, except bicubic without antialias, whose taps are the float
        # kernel's (clamped reads at the borders).
        if interp is Interp.CUBIC:
            taps = merge_clamped(
                cubic_taps(xp, xp.float64, in_size, out_size, align_corners, scale), xp
            )
        else:
            taps = range_taps(
                xp, xp.float64, interp, in_size, out_size, align_corners, scale, family.antialias
            )
        return int16_taps(taps, xp)
    wdtype = xp.float64 if dtype is float64 else xp.float32
    if interp is Interp.LINEAR:
        return linear_taps(xp, wdtype, in_size, out_size, align_corners, scale, store)
    if interp is Interp.CUBIC:
        taps = cubic_taps(xp, wdtype, in_size, out_size, align_corners, scale)
        return taps if taps.weight is None else Taps(taps.index, store(taps.weight))
    return range_taps(xp, wdtype, interp, in_size, out_size, align_corners, scale, True)


def _storer(xp: Any, self: TensorImpl) -> Callable[[Array], Array]:
    """A weight rounded to `self`'s dtype and back: torch's compute_indices_weights stores
    the weights in scalar_t, the kernel interpolates in opmath_t (float). The identity for
    float32 and float64."""
    dtype = self._dtype
    backend = self._storage.backend
    if dtype not in _REDUCED or backend is None:
        return _unchanged

    def store(weight: Array) -> Array:
        low = cast_array(xp, weight, float32, dtype, backend)
        return cast_array(xp, low, dtype, float32, backend)

    return store


def _unchanged(weight: Array) -> Array:
    return weight


def _along(xp: Any, a: Array, axis: int, taps: Taps) -> Array:
    """`a` interpolated along `axis`: sum_j a[index[:, j]] * weight[:, j], in tap order."""
    index, weight = taps.index, taps.weight
    if weight is None:
        return xp.take(a, index[:, 0], axis=axis)
    shape = [1] * a.ndim
    shape[axis] = index.shape[0]

    def term(j: int) -> Array:
        return xp.take(a, index[:, j], axis=axis) * xp.reshape(weight[:, j], tuple(shape))

    total = term(0)
    for j in range(1, index.shape[1]):
        total = total + term(j)
    if taps.precision:
        # torch: the uint8 passes: (acc + 2**(p-1)) >> p, saturated to [0, 255] per pass.
        rounded = xp.bitwise_right_shift(total + (1 << (taps.precision - 1)), taps.precision)
        return xp.clip(rounded, 0, 255)
    return total


def _scatter_along(xp: Any, g: Array, axis: int, taps: Taps, in_size: int) -> Array:
    """The transpose of `_along`: each g[..., i, ...] * weight[i, j] added at index[i, j]."""
    moved = xp.moveaxis(g, axis, -1)
    lead = tuple(moved.shape[:-1])
    rows = geometry.numel(lead)
    out_size = moved.shape[-1]
    flat = xp.reshape(moved, (rows, out_size))
    base = xp.reshape(xp.arange(rows, dtype=xp.int64) * in_size, (rows, 1))
    positions = []
    values = []
    for j in range(taps.index.shape[1]):
        positions.append(xp.reshape(base + taps.index[None, :, j], (-1,)))
        term = flat if taps.weight is None else flat * taps.weight[None, :, j]
        values.append(xp.reshape(term, (-1,)))
    target = xp.zeros((rows * in_size,), dtype=g.dtype)
    summed = scatter_flat(xp, target, xp.concat(positions), xp.concat(values), ScatterReduce.SUM)
    return xp.moveaxis(xp.reshape(summed, (*lead, in_size)), -1, axis)


# --- kernels ---------------------------------------------------------------------------------


def _split(family: Upsample, rest: tuple[Any, ...]) -> tuple[bool, tuple[float | None, ...]]:
    # The arguments after output_size (and input_size): [align_corners,] scales...
    if family.align:
        return bool(rest[0]), tuple(rest[1:])
    return False, tuple(rest)


def _forward(
    family: Upsample,
    self: TensorImpl,
    output_size: Sequence[int],
    align_corners: bool,
    scales: tuple[float | None, ...],
    out: TensorImpl | None,
) -> Any:
    """Torch: TORCH_META_FUNC(<op>) (checks, the output in the input's memory format) and
    the CPU kernel of UpSampleKernel.cpp."""
    shape = _common_check(family, self._size, list(output_size))
    _check_non_empty(family, self)
    channels_last = _channels_last(self)
    dtype = self._dtype
    _prepare_out(out, shape, dtype, channels_last)
    if not has_data(self):
        return _emit(self, None, shape, dtype, out, channels_last)
    if dtype not in family.dtypes:
        raise not_implemented(family.kernel_name, dtype)
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # has_data
    nearest = family.interp in (Interp.NEAREST, Interp.NEAREST_EXACT)
    if dtype is uint8:
        a = input_array(self, dtype if nearest else int64)
    else:
        a = input_array(self, float64 if dtype is float64 else float32)
    spatial = self._size[2:]
    store = _unchanged if family.opmath_weights else _storer(xp, self)
    # torch: the separable kernels (antialias, and uint8 bilinear/bicubic) resample the last
    # dim first and skip a dim whose size does not change, whatever the scale; the others
    # compute every dim (linear and plain nearest treat a same-size dim as the identity).
    separable = family.antialias or (dtype is uint8 and not nearest)
    for d in reversed(range(family.dims)):
        if separable and spatial[d] == shape[2 + d]:
            continue
        taps = _taps(family, xp, dtype, spatial[d], shape[2 + d], align_corners, scales[d], store)
        a = _along(xp, a, 2 + d, taps)
    return _emit(self, a, shape, dtype, out, channels_last)


def _backward(
    family: Upsample,
    grad_output: TensorImpl,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales: tuple[float | None, ...],
    grad_input: TensorImpl | None,
) -> Any:
    """Torch: TORCH_META_FUNC(<op>_backward) (checks; the result in grad_output's memory
    format where the kernel keeps it, else contiguous) and the CPU backward kernel: every
    grad_output element, times its weights, added to the input elements it was
    interpolated from, in float32 for float16/bfloat16."""
    full = _common_check(family, list(input_size), list(output_size))
    _check_grad_output(family, grad_output, full)
    shape = tuple(input_size)
    channels_last = family.backward_channels_last and _channels_last(grad_output)
    dtype = grad_output._dtype
    _prepare_out(grad_input, shape, dtype, channels_last)
    if not has_data(grad_output):
        return _emit(grad_output, None, shape, dtype, grad_input, channels_last)
    if dtype not in family.backward_dtypes:
        cl = layout.is_channels_last(grad_output._size, grad_output._stride)
        name = family.backward_cl_name if cl and family.backward_cl_name else family.backward_name
        raise not_implemented(name, dtype)
    xp = grad_output._storage.backend.xp  # type: ignore[union-attr]  # has_data
    g = input_array(grad_output, float64 if dtype is float64 else float32)
    if family.interp is Interp.CUBIC and shape == full:
        # torch: upsample_bicubic2d_backward_out_frame copies when no dim changes size.
        return _emit(grad_output, g, shape, dtype, grad_input, channels_last)
    for d in range(family.dims):
        taps = _taps(
            family,
            xp,
            dtype,
            shape[2 + d],
            full[2 + d],
            align_corners,
            scales[d],
            _unchanged,
            backward=True,
        )
        g = _scatter_along(xp, g, 2 + d, taps, shape[2 + d])
    return _emit(grad_output, g, shape, dtype, grad_input, channels_last)


def _output_size(
    input_size: Sequence[int],
    output_size: Sequence[int] | None,
    scale_factors: Sequence[float] | None,
) -> list[int]:
    """Torch: upsample::compute_output_size (UpSample.cpp), for the `.vec` overloads."""
    spatial = len(input_size) - 2
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != spatial:
            raise RuntimeError(_unimproved("static_cast<int64_t>(output_size->size())"))
        return list(output_size)
    if scale_factors is not None:
        if len(scale_factors) != spatial:
            raise RuntimeError(_unimproved("static_cast<int64_t>(scale_factors->size())"))
        # torch: c10::checked_convert<int64_t>(double(input_size) * scale): truncation.
        return [int(float(input_size[i + 2]) * scale_factors[i]) for i in range(spatial)]
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _unimproved(left: str) -> str:
    # torch: a bare TORCH_CHECK(cond)'s message.
    return (
        f"Expected {left} == spatial_dimensions to be true, but got false.  "
        "(Could this error message be improved?  If so, please report an enhancement "
        "request to PyTorch.)"
    )


# --- the op blocks ---------------------------------------------------------------------------


def _arguments(family: Upsample) -> tuple[str, list[str]]:
    # The schema text after `output_size` (and input_size), and those argument names.
    names = (["align_corners"] if family.align else []) + list(_SCALE_NAMES[family.dims])
    text = "bool align_corners, " if family.align else ""
    text += ", ".join(f"float? {n}=None" for n in _SCALE_NAMES[family.dims])
    return text, names


def _formula(params: list[str], fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with the signature `params`: the names autograd passes it by (see
    ops/_derivative.py, which reads a formula's parameters from its signature)."""
    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY) for p in params]
    )
    return fn


def _declare(family: Upsample) -> None:
    """The overloads of one upsample op: functional, .out, .vec (CIA), .vec_out where torch
    has it, _backward and _backward.grad_input, with their derivatives.

    Torch: native_functions.yaml's upsample entries; derivatives.yaml (the forward's
    gradient is the backward op, the backward's is the forward op: both are linear).
    """
    name, dims = family.name, family.dims
    rest, rest_names = _arguments(family)
    align = "bool align_corners, " if family.align else ""
    functional = defop(f"{name}(Tensor self, SymInt[{dims}] output_size, {rest}) -> Tensor")
    out = defop(
        f"{name}.out(Tensor self, SymInt[{dims}] output_size, {rest}, *, Tensor(a!) out) "
        "-> Tensor(a!)"
    )
    vec = defop(
        f"{name}.vec(Tensor input, SymInt[]? output_size, {align}float[]? scale_factors) -> Tensor"
    )
    backward = defop(
        f"{name}_backward(Tensor grad_output, SymInt[{dims}] output_size, "
        f"SymInt[{dims + 2}] input_size, {rest}) -> Tensor"
    )
    backward_out = defop(
        f"{name}_backward.grad_input(Tensor grad_output, SymInt[{dims}] output_size, "
        f"SymInt[{dims + 2}] input_size, {rest}, *, Tensor(a!) grad_input) -> Tensor(a!)"
    )

    def forward_kernel(
        self: TensorImpl, output_size: list[int], *rest: Any, out: TensorImpl | None = None
    ) -> Any:
        align_corners, scales = _split(family, rest)
        return _forward(family, self, output_size, align_corners, scales, out)

    def backward_kernel(
        grad_output: TensorImpl,
        output_size: list[int],
        input_size: list[int],
        *rest: Any,
        grad_input: TensorImpl | None = None,
    ) -> Any:
        align_corners, scales = _split(family, rest)
        return _backward(
            family, grad_output, output_size, input_size, align_corners, scales, grad_input
        )

    def vec_decomposition(input: TensorImpl, output_size: Any, *rest: Any) -> Any:
        # torch: <op>(input, output_size, [align_corners,] scale_factors) in UpSample*.cpp:
        # compute_output_size, then the op with get_scale_value(scale_factors, i).
        scale_factors = rest[-1]
        osize = _output_size(input._size, output_size, scale_factors)
        scales = [None if scale_factors is None else scale_factors[i] for i in range(dims)]
        return getattr(aten, name).default(input, osize, *rest[:-1], *scales)

    def forward_self(grad: Any, output_size: list[int], self_sym_sizes: Any, **rest: Any) -> Any:
        # torch: <op>_backward_symint(grad, output_size, self.sym_sizes(), [align_corners,]
        # scales...)
        args = [rest[n] for n in rest_names]
        return getattr(aten, f"{name}_backward").default(grad, output_size, self_sym_sizes, *args)

    def backward_grad_output(grad: Any, output_size: list[int], **rest: Any) -> Any:
        # torch: <op>_symint(grad, output_size, [align_corners,] scales...)
        args = [rest[n] for n in rest_names]
        return getattr(aten, name).default(grad, output_size, *args)

    for fn, role in (
        (forward_kernel, "kernel"),
        (backward_kernel, "backward_kernel"),
        (vec_decomposition, "vec_decomposition"),
        (forward_self, "backward_self"),
        (backward_grad_output, "backward_grad_output"),
    ):
        fn.__name__ = fn.__qualname__ = f"{name}_{role}"
    implements(functional)(forward_kernel)
    implements(out)(forward_kernel)
    implements(backward)(backward_kernel)
    implements(backward_out)(backward_kernel)
    vec.decomposition(vec_decomposition)
    functional.derivative("self")(
        _formula(["grad", "output_size", "self_sym_sizes", *rest_names], forward_self)
    )
    backward.derivative("grad_output")(
        _formula(["grad", "output_size", *rest_names], backward_grad_output)
    )
    if family.vec_out:
        vec_out = defop(
            f"{name}.vec_out(Tensor input, SymInt[]? output_size, {align}float[]? "
            "scale_factors, *, Tensor(a!) out) -> Tensor(a!)"
        )

        def vec_out_kernel(input: TensorImpl, output_size: Any, *rest: Any, out: TensorImpl) -> Any:
            # torch: <op>_out(out, input, compute_output_size(...), [align_corners,] scales).
            scale_factors = rest[-1]
            osize = _output_size(input._size, output_size, scale_factors)
            scales = [None if scale_factors is None else scale_factors[i] for i in range(dims)]
            return getattr(aten, name).out(input, osize, *rest[:-1], *scales, out=out)

        vec_out_kernel.__name__ = vec_out_kernel.__qualname__ = f"{name}_vec_out_kernel"
        implements(vec_out)(vec_out_kernel)


for _family in FAMILIES:
    _declare(_family)
