"""FakeTensorMode's rules per op: errors, output devices, data-dependent ops.

Torch: torch/_subclasses/fake_impls.py (the op_implementations FakeTensorMode consults before
an op's Meta kernel) and the exceptions and device rule of torch/_subclasses/fake_tensor.py,
which re-exports the exceptions. The rules read only what FakeTensor offers every tensor
(`fake_device`, `dim()`), so this module does not import the FakeTensor class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import bool_, uint8
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import OpOverload
from refimpl.ops import aten

# --- errors -------------------------------------------------------------------------------------
# torch: these are dataclasses over RuntimeError, so `str(e)` is `str(e.func)` (the exception's
# only argument) and `e.func` is the op.


@dataclass
class UnsupportedFakeTensorException(RuntimeError):
    """A tensor FakeTensorMode cannot make a FakeTensor of. Torch: the same class."""

    reason: str


@dataclass
class DynamicOutputShapeException(RuntimeError):
    """An op whose output shape depends on the input's values (nonzero, masked_select, a
    boolean mask index). Torch: the same class; raised where no ShapeEnv can name the size."""

    func: OpOverload


@dataclass
class DataDependentOutputException(RuntimeError):
    """An op whose output is a value read from the data (`item`, `equal`, `allclose`).

    Torch: the same class (ops tagged data_dependent_output, and _local_scalar_dense).
    """

    func: OpOverload


@dataclass
class UnsupportedOperatorException(RuntimeError):
    """An op with no Meta kernel. Torch: the same class (raised when no fallback may run)."""

    func: OpOverload


class FakeTensorDeviceMismatchError(RuntimeError):
    """FakeTensors of two devices in one op. Torch: the same class and text."""

    def __init__(self, func: OpOverload, common_device: device, device: device) -> None:
        self.func = func
        self.common_device = common_device
        self.device = device
        super().__init__(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{common_device} and {device}!"
        )


# --- which device an op's output is on ------------------------------------------------------

# torch: _like_tensor_constructors in fake_impls.py: their output device defaults to their
# input's.
LIKE_CONSTRUCTORS: Final = frozenset(
    f"aten::{name}"
    for name in (
        "empty_like",
        "full_like",
        "ones_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "zeros_like",
        "new_empty",
        "new_empty_strided",
        "new_full",
        "new_zeros",
        "new_ones",
    )
)
LIFT_FNS: Final = frozenset({"aten::lift_fresh", "aten::lift"})
# torch: multi_device_op_default and index_put_impl in fake_impls.py: ops that take tensors of
# several devices and give their first input's.
INPUT_DEVICE_OPS: Final = frozenset(
    {
        "aten::copy",
        "aten::copy_",
        "aten::copy.out",
        "aten::_unsafe_index_put",
        "aten::slice_scatter",
        "aten::slice_scatter.out",
        "aten::diagonal_scatter",
        "aten::index_put",
        "aten::index_put_",
    }
)
# torch: the dyn_shape rule of fake_impls.py skips the dynamic_output_shape ops with a rule of
# their own (index.Tensor: only for boolean indices; repeat_interleave.Tensor: only without
# output_size).
OWN_DYNAMIC_RULE: Final = frozenset(
    {"aten::index.Tensor", "aten::nonzero", "aten::repeat_interleave.Tensor"}
)


def is_tensor_constructor(func: OpOverload) -> bool:
    # torch: is_tensor_constructor: no argument holds a tensor, one Tensor return.
    schema = func._schema
    return (
        not schema.dispatch_argument_indices
        and len(schema.returns) == 1
        and str(schema.returns[0].type) == "Tensor"
    )


def is_view_op(func: OpOverload) -> bool:
    # A view op's first argument is aliased, not written, and its returns alias it.
    schema = func._schema
    first = schema.arguments[0] if schema.arguments else None
    if first is None or first.alias_info is None or first.alias_info.is_write:
        return False
    return any(r.alias_info is not None for r in schema.returns)


def find_common_device(func: OpOverload, fakes: list[Any]) -> device:
    """The device of an op's FakeTensor arguments: all the same, except that zero-dim CPU
    tensors join any device.

    Torch: FakeTensor.find_common_device (merge_devices).
    """
    common: device | None = None
    common_is_cpu_scalar = False
    for t in fakes:
        dev = t.fake_device
        is_cpu_scalar = dev.type == "cpu" and t.dim() == 0
        if common is None:
            common, common_is_cpu_scalar = dev, is_cpu_scalar
            continue
        if dev == common:
            if common_is_cpu_scalar:
                common_is_cpu_scalar = is_cpu_scalar
            continue
        if is_cpu_scalar:
            continue
        if common_is_cpu_scalar:
            common, common_is_cpu_scalar = dev, is_cpu_scalar
            continue
        raise FakeTensorDeviceMismatchError(func, common, dev)
    if common is None:
        raise AssertionError(f"Could not find common device for {func}")
    return common


# --- data-dependent ops with a rule of their own --------------------------------------------------
# torch: the op_implementations of fake_impls.py that raise without a ShapeEnv.


def _raise_data_dependent(func: OpOverload, args: Any, kwargs: Any) -> None:
    # torch: local_scalar_dense (item and _local_scalar_dense).
    raise DataDependentOutputException(func)


def _raise_dynamic(func: OpOverload, args: Any, kwargs: Any) -> None:
    # torch: nonzero, masked_select.
    raise DynamicOutputShapeException(func)


def _index_tensor(func: OpOverload, args: Any, kwargs: Any) -> None:
    # torch: index.Tensor's meta expands a boolean or uint8 index into its nonzero(), which
    # FakeTensorMode refuses: the error names aten.nonzero.default.
    indices = args[1] if len(args) > 1 else kwargs.get("indices", [])
    for index in indices:
        if isinstance(index, TensorImpl) and index.dtype in (bool_, uint8):
            raise DynamicOutputShapeException(aten.nonzero.default)


def _index_put(func: OpOverload, args: Any, kwargs: Any) -> None:
    # torch: index_put_impl: values on another device must be a one-element zero-dim tensor.
    self, values = args[0], args[2]
    if not (self.fake_device == values.fake_device or (values.dim() == 0 and values.numel() == 1)):
        raise RuntimeError(
            f"Mismatching {func} device between self ({self.fake_device}) and values "
            f"({values.fake_device})"
        )


def _repeat_interleave_tensor(func: OpOverload, args: Any, kwargs: Any) -> None:
    # torch: repeat_interleave_tensor: the output size is known only when given.
    if kwargs.get("output_size") is None:
        raise DynamicOutputShapeException(func)


DATA_DEPENDENT_CHECKS: Final[dict[str, Callable[[OpOverload, Any, Any], None]]] = {
    "aten::_local_scalar_dense": _raise_data_dependent,
    "aten::item": _raise_data_dependent,
    "aten::nonzero": _raise_dynamic,
    "aten::masked_select": _raise_dynamic,
    "aten::index.Tensor": _index_tensor,
    "aten::repeat_interleave.Tensor": _repeat_interleave_tensor,
    "aten::index_put": _index_put,
    "aten::index_put_": _index_put,
}
