"""TensorIterator: the broadcast shape, dtypes, device and output layout of an elementwise op.

Torch: TensorIteratorBase::build (aten/src/ATen/TensorIterator.cpp) and the builders the
structured kernels' meta functions call (build_borrowing_binary_op, build_comparison_op, ...).
`plan` decides everything that depends only on the operands' metadata (dtypes, shapes,
strides, devices, scalar kinds) and caches the answer, so a repeated call decides nothing
twice; `run` then computes with the backend's Array API namespace and writes the result into
a new tensor laid out as torch lays it out, or into `out` / `self`. See Note [Output layout of
elementwise ops] in core/layout.py.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from refimpl._base import promotion
from refimpl._base.device import device
from refimpl._base.dtypes import DType, bfloat16, bool_, float16, float32
from refimpl._base.promotion import OperandKind, can_cast, get_default_dtype, result_type_of
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.backend import Backend
from refimpl.core.config import config
from refimpl.core.tensor import (
    TensorImpl,
    operand_key,
)
from refimpl.ops import data
from refimpl.ops._outputs import format_shape, overlap_status

Operand = TensorImpl | bool | int | float | complex
Shape = tuple[int, ...]
_CPU: Final = device("cpu")


class ResultDtype(enum.Enum):
    """The dtype of a result the iterator allocates, given the common dtype.

    Torch: declare_static_dtype (comparisons: bool) or the common dtype; TO_REAL is
    unary_op_impl_with_complex_to_float (abs, angle of complex give real results).
    """

    COMMON = enum.auto()
    BOOL = enum.auto()
    TO_REAL = enum.auto()
    TO_COMPLEX = enum.auto()
    """torch.complex and torch.polar: real operands give a complex result."""

    __hash__ = object.__hash__


@dataclass(frozen=True, slots=True)
class IterConfig:
    """The flags an op's meta function sets on its iterator. Torch: TensorIteratorConfig."""

    promote_inputs_to_common_dtype: bool = False
    promote_integer_inputs_to_float: bool = False
    cast_common_dtype_to_outputs: bool = False
    enforce_safe_casting_to_output: bool = False
    check_all_same_dtype: bool = True
    allow_cpu_scalars: bool = False
    check_mem_overlap: bool = True
    result: ResultDtype = ResultDtype.COMMON
    """The dtype of an allocated output (`out=` keeps its own)."""
    cast_bool_to_outputs: bool = False
    """Comparisons: cast the bool result into a non-bool `out` (Note [special-case bool outputs])."""
    bool_condition: bool = False
    """where: the first input is a bool condition, which torch never converts to the common
    dtype (only self and other are), so it votes on the layout as it is."""
    scalar_operands: bool = True
    """Python scalars among the inputs are torch's wrapped-number operands (`x + 2`); False
    where torch passes them to a unary iterator's kernel instead (pow.Tensor_Scalar, clamp's
    Scalar bounds), so they do not count in the operands' shapes."""
    output_like_self: bool = False
    """The functional op allocates its result with empty_like(self) before the iterator
    (torch: _conj_physical), so that result keeps a dense self's exact strides (an empty or
    size-1 dim's included) instead of the iterator's layout."""
    reduced_scalar_opmath: bool = False
    """mul and div (true, trunc, floor): where the common dtype is float16 or bfloat16 and the
    second input is a scalar (one element: a Python number, a 0-dim or a one-element tensor),
    that input reaches the kernel in float32 converted from its own dtype, not rounded to the
    common dtype, and the kernel computes in float32 and rounds once (torch: the branch of
    mul_kernel and the div kernels taken for `iter.is_scalar(2)` on reduced floats, which reads
    `iter.original_scalar_value<opmath_t>(2)`): float16 `x * 0.3` multiplies by 0.3f, not by
    float16(0.3)."""


class Builder(enum.Enum):
    """The TensorIterator builders of torch's structured kernels, by their torch names."""

    BINARY_OP = enum.auto()  # add, sub, mul, maximum, bitwise_*, remainder, ...
    BINARY_FLOAT_OP = enum.auto()  # div (true), atan2, hypot, logaddexp, ...
    COMPARISON_OP = enum.auto()  # eq, ne, lt, le, gt, ge, logical_* (functional: bool)
    UNARY_OP = enum.auto()  # neg, abs, sign, floor, bitwise_not, ... (no promotion)
    UNARY_FLOAT_OP = enum.auto()  # exp, sin, sqrt, sigmoid, ... (integers compute as float)
    UNARY_FORCE_BOOLEAN_OP = enum.auto()  # signbit, isposinf, ... (always bool)
    TERNARY_OP = enum.auto()  # addcmul, addcdiv, lerp, where-like n-ary ops

    __hash__ = object.__hash__


# torch: the builders in aten/src/ATen/TensorIterator.cpp. Comparison ops with a bool `out`
# (or none) do not cast; see ResultDtype.BOOL and `cast_bool_to_outputs`.
CONFIGS: Final[dict[Builder, IterConfig]] = {
    Builder.BINARY_OP: IterConfig(
        promote_inputs_to_common_dtype=True,
        cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True,
        check_all_same_dtype=False,
        allow_cpu_scalars=True,
    ),
    Builder.BINARY_FLOAT_OP: IterConfig(
        promote_inputs_to_common_dtype=True,
        promote_integer_inputs_to_float=True,
        cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True,
        check_all_same_dtype=False,
        allow_cpu_scalars=True,
    ),
    Builder.COMPARISON_OP: IterConfig(
        promote_inputs_to_common_dtype=True,
        check_all_same_dtype=False,
        allow_cpu_scalars=True,
        result=ResultDtype.BOOL,
        cast_bool_to_outputs=True,
    ),
    Builder.UNARY_OP: IterConfig(),
    Builder.UNARY_FLOAT_OP: IterConfig(
        promote_inputs_to_common_dtype=True,
        promote_integer_inputs_to_float=True,
        cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True,
        check_all_same_dtype=False,
    ),
    Builder.UNARY_FORCE_BOOLEAN_OP: IterConfig(
        check_all_same_dtype=False,
        result=ResultDtype.BOOL,
        cast_bool_to_outputs=True,
    ),
    Builder.TERNARY_OP: IterConfig(
        promote_inputs_to_common_dtype=True,
        cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True,
        check_all_same_dtype=False,
        allow_cpu_scalars=True,
    ),
}


@dataclass(frozen=True, slots=True)
class Plan:
    """What TensorIterator decided for one combination of operand metadata."""

    shape: Shape
    common_dtype: DType
    """The dtype inputs are cast to and the kernel computes in (torch: common_dtype())."""
    kernel_dtype: DType
    """The dtype of the kernel's result (bool for comparisons, real for TO_REAL)."""
    output_dtype: DType
    """The dtype of the result tensor: an allocated output's, or `out`'s own."""
    device: device
    backend: Backend | None
    """None for meta tensors: shapes and dtypes only."""
    order: Shape | None
    """Dims fastest first when the result is not row-major (torch: perm_); None: row-major."""
    out_stride: Shape
    """Strides (elements) of an allocated or resized output."""
    resize: bool
    """`out` must be resized to `shape` (it had another shape)."""
    direct: tuple[bool, ...] = ()
    """Per input: a tensor whose array the kernel takes as it is (the common dtype, on the
    plan's backend), so `run` skips the conversion."""
    simple: bool = False
    """The result is row-major and needs no cast, and nothing is written: `run_simple`."""
    out_temporary: bool = False
    """On the CPU, `out` of another dtype is written through a temporary (torch's
    compute_types), so resizing it warns twice."""
    targets: tuple[DType, ...] = ()
    """Per input: the dtype its array reaches the kernel in (the common dtype; where's bool
    condition stays bool)."""
    scalar_opmath: bool = False
    """The kernel computes in float32 with the second input's original value (see
    IterConfig.reduced_scalar_opmath)."""


# --- errors --------------------------------------------------------------------------------


def broadcast_all(shapes: Sequence[Shape]) -> Shape:
    """The broadcast of every shape, with torch's error. Torch: compute_shape (infer_size)."""
    result: Shape | None = None
    for shape in shapes:
        result = shape if result is None else data.broadcast_shapes(result, shape)
    return () if result is None else result


def _check_overlaps(out: TensorImpl, inputs: Sequence[Operand]) -> None:
    # torch: compute_mem_overlaps (assert_no_internal_overlap, assert_no_partial_overlap).
    if layout.has_internal_overlap(out._size, out._stride):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    for value in inputs:
        if (
            isinstance(value, TensorImpl)
            and value is not out
            and value._storage is out._storage
            and overlap_status(out, value) is layout.Overlap.PARTIAL
        ):
            raise RuntimeError(layout.PARTIAL_OVERLAP_MESSAGE)


# --- building a plan -----------------------------------------------------------------------


def operands_key(operands: Sequence[Operand]) -> tuple[object, ...]:
    """What a plan for `operands` depends on: each operand's key and the default dtype."""
    if len(operands) == 2:
        # The binary case, unrolled: operand_key's token read inline for tensors.
        a, b = operands
        ka = a._meta_token if isinstance(a, TensorImpl) else None
        kb = b._meta_token if isinstance(b, TensorImpl) else None
        return (
            get_default_dtype(),
            ka if ka is not None else operand_key(a),
            kb if kb is not None else operand_key(b),
        )
    if len(operands) == 1:
        # The unary case, unrolled likewise.
        (a,) = operands
        ka = a._meta_token if isinstance(a, TensorImpl) else None
        return (get_default_dtype(), ka if ka is not None else operand_key(a))
    if len(operands) == 3:
        # The ternary case (where, addcmul, lerp), unrolled likewise.
        a, b, c = operands
        ka = a._meta_token if isinstance(a, TensorImpl) else None
        kb = b._meta_token if isinstance(b, TensorImpl) else None
        kc = c._meta_token if isinstance(c, TensorImpl) else None
        return (
            get_default_dtype(),
            ka if ka is not None else operand_key(a),
            kb if kb is not None else operand_key(b),
            kc if kc is not None else operand_key(c),
        )
    key: list[object] = [get_default_dtype()]
    for value in operands:
        # operand_key's token read, inline for the common operand.
        token = value._meta_token if isinstance(value, TensorImpl) else None
        key.append(token if token is not None else operand_key(value))
    return tuple(key)


_PLANS: dict[tuple[object, ...], Plan] = {}


def plan(
    iter_config: IterConfig,
    inputs: Sequence[Operand],
    out: TensorImpl | None,
) -> Plan:
    """TensorIterator's decisions for these operands, cached by their metadata.

    Torch: TensorIteratorBase::build. Errors come in torch's order: memory overlap, shape,
    output shape, then dtypes and devices (compute_types). `out` is the `out=` tensor or, for
    an in-place op, `self` (which is also the first input).
    """
    to_real = _complex_into_real(iter_config, inputs, out)
    if out is not None and iter_config.check_mem_overlap and not to_real:
        _check_overlaps(out, inputs)
    key = (
        iter_config,
        None if out is None else operand_key(out),
        out is not None and any(out is v for v in inputs),
        get_default_dtype(),
        *[operand_key(v) for v in inputs],
    )
    found = _PLANS.get(key)
    if found is None:
        found = _build(iter_config, inputs, out)
        if len(_PLANS) > 8192:
            _PLANS.clear()
        _PLANS[key] = found
    if (
        to_real
        and out is not None
        and not found.resize
        and layout.has_internal_overlap(out._size, out._stride)
    ):
        # torch: the copy of the real part into `out` checks it, after the dtype checks.
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)
    return found


def _complex_into_real(
    iter_config: IterConfig, inputs: Sequence[Operand], out: TensorImpl | None
) -> bool:
    """Whether a complex input writes its real result into a real `out` (abs, angle).

    Torch: unary_op_impl_with_complex_to_float_out runs the iterator on a fresh complex
    result, then resizes `out` with resize_output (contiguous) and copies the real part in.
    """
    first = inputs[0] if inputs else None
    return (
        out is not None
        and iter_config.result is ResultDtype.TO_REAL
        and isinstance(first, TensorImpl)
        and first._dtype.is_complex
        and not out._dtype.is_complex
    )


def _build(iter_config: IterConfig, inputs: Sequence[Operand], out: TensorImpl | None) -> Plan:
    tensors = [v for v in inputs if isinstance(v, TensorImpl)]
    shape = broadcast_all([t._size for t in tensors])
    is_inplace = out is not None and any(out is v for v in inputs)
    resize = False
    if out is not None and out._size != shape:
        if is_inplace:
            # torch: mark_resize_outputs; an input that is also the output cannot broadcast.
            raise RuntimeError(
                f"output with shape {format_shape(out._size)} doesn't match the broadcast "
                f"shape {format_shape(shape)}"
            )
        resize = True
    common, kernel_dtype, output_dtype = _dtypes(iter_config, inputs, out)
    dev, backend = _device(iter_config, inputs, out)
    order, out_stride = _layout(shape, inputs, out, resize, iter_config, common, dev.type == "cpu")
    first = inputs[0]
    if resize and _complex_into_real(iter_config, inputs, out):
        order, out_stride = None, geometry.contiguous_strides(shape)
    elif (
        out is None
        and (
            iter_config.output_like_self
            or (iter_config.result is ResultDtype.TO_REAL and common.is_complex)
        )
        and isinstance(first, TensorImpl)
    ):
        # torch: unary_op_impl_with_complex_to_float allocates the real result, and
        # _conj_physical its result, with empty_like(self), which keeps a dense self's exact
        # strides (size-1 and empty dims included).
        out_stride = geometry.dense_strides_like(shape, first._stride)
        order = _order_of(shape, out_stride)
    # where's bool condition reaches the kernel as bool; every other input in the common dtype.
    targets = tuple(
        bool_
        if i == 0 and iter_config.bool_condition and isinstance(v, TensorImpl) and v._dtype is bool_
        else common
        for i, v in enumerate(inputs)
    )
    scalar_opmath = (
        iter_config.reduced_scalar_opmath
        and common in (float16, bfloat16)
        and backend is not None
        and len(inputs) == 2
        and (not isinstance(inputs[1], TensorImpl) or geometry.numel(inputs[1]._size) == 1)
    )
    if scalar_opmath:
        targets = (common, float32)
    direct = tuple(
        isinstance(v, TensorImpl) and v._dtype is target and v._storage.backend is backend
        for v, target in zip(inputs, targets, strict=True)
    )
    simple = order is None and output_dtype is kernel_dtype and backend is not None
    out_temporary = (
        out is not None
        and dev.type == "cpu"
        and _casts_output(iter_config, common, out)
        and not _complex_into_real(iter_config, inputs, out)
    )
    return Plan(
        shape,
        common,
        kernel_dtype,
        output_dtype,
        dev,
        backend,
        order,
        out_stride,
        resize,
        direct,
        simple,
        out_temporary,
        targets,
        scalar_opmath,
    )


def _kind(value: Operand) -> tuple[DType, OperandKind]:
    if isinstance(value, TensorImpl):
        return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)
    return promotion.scalar_dtype(value), OperandKind.WRAPPED


def _dtypes(
    iter_config: IterConfig, inputs: Sequence[Operand], out: TensorImpl | None
) -> tuple[DType, DType, DType]:
    """(common, kernel result, output) dtypes. Torch: TensorIteratorBase::compute_types."""
    kinds = [_kind(v) for v in inputs]
    first = kinds[0][0]
    common = first
    if any(dtype is not first for dtype, _ in kinds) or all(
        kind is OperandKind.WRAPPED for _, kind in kinds
    ):
        if iter_config.promote_inputs_to_common_dtype:
            common = result_type_of(kinds)
        elif iter_config.check_all_same_dtype:
            different = next(dtype for dtype, _ in kinds if dtype is not first)
            raise RuntimeError(
                f"Found dtype {different.scalar_name} but expected {first.scalar_name}"
            )
    if out is not None and iter_config.check_all_same_dtype and out._dtype is not common:
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {common.scalar_name}"
        )
    if iter_config.promote_integer_inputs_to_float and not (
        common.is_floating_point or common.is_complex
    ):
        common = get_default_dtype()
    result_rule = iter_config.result
    if result_rule is ResultDtype.BOOL:
        kernel_dtype = bool_
    elif result_rule is ResultDtype.TO_REAL:
        kernel_dtype = common.to_real()
    elif result_rule is ResultDtype.TO_COMPLEX:
        kernel_dtype = common.to_complex()
    else:
        kernel_dtype = common
    if out is None:
        return common, kernel_dtype, kernel_dtype
    if iter_config.enforce_safe_casting_to_output and not can_cast(common, out._dtype):
        raise RuntimeError(
            f"result type {common.scalar_name} can't be cast to the desired output type "
            f"{out._dtype.scalar_name}"
        )
    # torch: unary_op_impl_with_complex_to_float_out.
    if (
        result_rule is ResultDtype.TO_REAL
        and common.is_complex
        and not out._dtype.is_complex
        and not can_cast(kernel_dtype, out._dtype)
    ):
        raise RuntimeError(
            f"result type {kernel_dtype.scalar_name} can't be cast to the desired output "
            f"type {out._dtype.scalar_name}"
        )
    return common, kernel_dtype, out._dtype


def _device(
    iter_config: IterConfig, inputs: Sequence[Operand], out: TensorImpl | None
) -> tuple[device, Backend | None]:
    """The common device and backend. Torch: compute_types (first non-CPU device wins; one
    0-dim CPU input may join another device when the op allows CPU scalars)."""
    tensors: list[TensorImpl] = ([] if out is None else [out]) + [
        v for v in inputs if isinstance(v, TensorImpl) and v is not out
    ]
    if not tensors:
        return _CPU, config.backends.resolve("cpu")
    first = tensors[0]._storage
    if all(
        t._storage.device == first.device and t._storage.backend is first.backend for t in tensors
    ):
        return first.device, first.backend
    devices = [t._storage.device for t in tensors]
    if any(d.type == "meta" for d in devices):
        return _meta_mix(inputs, out)
    common = next((d for d in devices if d.type != "cpu"), _CPU)
    cpu_scalars = 0
    for t in tensors:
        dev = t._storage.device
        if (
            common.type != "cpu"
            and iter_config.allow_cpu_scalars
            and t is not out
            and not t._size
            and dev.type == "cpu"
        ):
            cpu_scalars += 1
            if cpu_scalars > 1:
                raise RuntimeError("Trying to pass too many CPU scalars to non-CPU kernel!")
        elif dev != common:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, {common} and {dev}!"
            )
    backend = _common_backend(tensors, common)
    return common, backend


def _meta_mix(inputs: Sequence[Operand], out: TensorImpl | None) -> tuple[device, None]:
    # torch: meta operands mixed with others run the Python meta kernels, whose device check
    # is check_same_device in torch/_prims_common (0-dim CPU tensors may join), then the out=
    # wrapper's copy check (torch/_prims_common/wrappers.py).
    expected: device | None = None
    for value in inputs:
        if not isinstance(value, TensorImpl):
            continue
        dev = value._storage.device
        if not value._size and dev.type == "cpu":
            continue
        if expected is None:
            expected = dev
        elif dev != expected:
            raise RuntimeError(f"Tensor on device {dev} is not on the expected device {expected}!")
    result = expected if expected is not None else _CPU
    if out is not None and out._storage.device != result:
        raise RuntimeError(
            f"Attempting to copy from device {result} to device {out._storage.device}, but "
            "cross-device copies are not allowed!"
        )
    return result, None


def _common_backend(tensors: Sequence[TensorImpl], dev: device) -> Backend | None:
    """The backend holding the operands on `dev`.

    Differs: torch has one library per device; refimpl can hold CPU tensors of two backends
    (`config.using(cpu=...)`), and an op never converts between them silently.
    """
    found: Backend | None = None
    for t in tensors:
        backend = t._storage.backend
        if t._storage.device != dev or backend is None:
            continue
        if found is None:
            found = backend
        elif backend is not found:
            raise RuntimeError(
                f"refimpl: an op got tensors held by two different backends, '{found.name}' "
                f"and '{backend.name}', on device {dev}; move one with .to() after changing "
                "refimpl.config.backends"
            )
    return found


def _layout(
    shape: Shape,
    inputs: Sequence[Operand],
    out: TensorImpl | None,
    resize: bool,
    iter_config: IterConfig,
    common: DType,
    on_cpu: bool,
) -> tuple[Shape | None, Shape]:
    """(dim order or None for row-major, strides of an allocated output).

    Torch: fast_set_up, compute_strides, reorder_dimensions, allocate_or_resize_outputs.
    See Note [Output layout of elementwise ops].
    """
    ndim = len(shape)
    contiguous = geometry.contiguous_strides(shape)
    if ndim <= 1:
        return None, contiguous
    # Operands in torch's order: the output first (unless it is resized), then the inputs,
    # as (size, stride, itemsize) of the tensor the iterator sees.
    voting: list[tuple[Shape, Shape, int]] = []
    if out is not None and not resize:
        voting.append(_iterated(out, _casts_output(iter_config, common, out), common, on_cpu, True))
    promote = iter_config.promote_inputs_to_common_dtype
    voting.extend(
        _iterated(v, promote and not (i == 0 and iter_config.bool_condition), common, on_cpu)
        for i, v in enumerate(inputs)
        if isinstance(v, TensorImpl) and v is not out
    )
    # torch: compute_shape: a CPU scalar (a 0-dim wrapped number: refimpl's Python scalar
    # operand) beside a tensor of dims makes the operands' shapes differ, so no fast setup:
    # `zeros(3, 0).mT + 0` takes reorder_dimensions' layout, strides (1, 0).
    scalars = (
        iter_config.scalar_operands
        and ndim > 0
        and any(not isinstance(v, TensorImpl) for v in inputs)
    )
    if all(size == shape for size, _, _ in voting) and voting and not scalars:
        fast = layout.fast_setup([(size, stride) for size, stride, _ in voting])
        if fast is layout.FastSetup.CONTIGUOUS:
            return None, contiguous
        if fast is layout.FastSetup.CHANNELS_LAST:
            stride = layout.channels_last_strides(shape)
            return _order_of(shape, stride), stride
        if fast is layout.FastSetup.NON_OVERLAPPING_DENSE:
            stride = voting[-1][1]
            return _order_of(shape, stride), stride
    byte_strides = [
        tuple(s * itemsize for s in layout.broadcast_strides(size, stride, shape))
        for size, stride, itemsize in voting
    ]
    order = layout.iteration_order(shape, byte_strides)
    if layout.is_inverted(order):
        return None, contiguous
    return order, layout.strides_in_order(shape, order)


def _casts_output(iter_config: IterConfig, common: DType, out: TensorImpl) -> bool:
    # torch: compute_types swaps an `out` of another dtype than the common one for a
    # temporary when the op casts to outputs; comparisons write a bool `out` directly.
    if out._dtype is common:
        return False
    return iter_config.cast_common_dtype_to_outputs or (
        iter_config.cast_bool_to_outputs and out._dtype is not bool_
    )


def _iterated(
    t: TensorImpl, converts: bool, common: DType, on_cpu: bool, is_output: bool = False
) -> tuple[Shape, Shape, int]:
    """The (size, stride, itemsize) TensorIterator sees for an operand.

    Torch: compute_types on the CPU swaps an input of another dtype for `t.to(common)` (laid
    out as empty_like with preserve_format: a dense input keeps its strides, another gets
    dense strides in its dims' order), and an output of another dtype for a contiguous temporary (empty_like with
    LEGACY_CONTIGUOUS_MEMORY_FORMAT), before the layout is decided.
    """
    size, stride = t._size, t._stride
    if not (on_cpu and converts and t._dtype is not common):
        return size, stride, t._dtype.itemsize
    if is_output:
        return size, geometry.contiguous_strides(size), common.itemsize
    return size, geometry.dense_strides_like(size, stride), common.itemsize


def _order_of(shape: Shape, stride: Shape) -> Shape | None:
    # The dims fastest first for dense strides (ties: later dims are faster).
    order = tuple(sorted(range(len(shape)), key=lambda d: (stride[d], -d)))
    return None if layout.is_inverted(order) else order
