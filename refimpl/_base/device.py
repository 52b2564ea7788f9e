"""Devices: a device type and an optional index, as `refimpl.device`.

Torch: torch.device (c10/core/Device.cpp). Which devices can hold data is a question for the
backends (`core/backend.py`); a device is only a name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Self

# torch: the device types c10 parses (c10/core/DeviceType.cpp), in the order its error lists them.
DEVICE_TYPES: Final[tuple[str, ...]] = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)
_DEVICE_TYPE_SET: Final = frozenset(DEVICE_TYPES)


class device:
    """A device type and an optional index.

    Torch: torch.device. `device("cuda:1")`, `device("cuda", 1)`, `device(other_device)`.
    Like torch's, a device never compares equal to a string.
    """

    __slots__ = ("_index", "_type")

    _type: str
    _index: int | None

    def __init__(self, type: str | device, index: int | None = None) -> None:
        if isinstance(type, device):
            self._type, self._index = type._type, type._index
            return
        if not isinstance(type, str):
            raise TypeError(
                f"device(): argument 'type' (position 1) must be str, not {_type_name(type)}"
            )
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
            )
        parsed_type, parsed_index = _parse(type)
        if index is not None:
            if parsed_index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            parsed_index = index
        self._type, self._index = parsed_type, parsed_index

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self) -> int | None:
        return self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __reduce__(self) -> tuple[Any, tuple[str, int | None]]:
        return (device, (self._type, self._index))

    def __enter__(self) -> Self:
        """`with device(...)`: factory calls without a device allocate on this one. Torch:
        THPDevice_enter pushes a DeviceContext TorchFunctionMode (api/default_device.py, which
        registers the hooks: the mode stack lives above this layer)."""
        hooks = DEVICE_CONTEXT_HOOKS
        if hooks.enter is None:
            raise RuntimeError("refimpl: `with device(...)` needs refimpl's torch API loaded")
        hooks.enter(self)
        return self

    def __exit__(self, *exc: object) -> None:
        """Torch: THPDevice_exit pops the top of the TorchFunctionMode stack."""
        if DEVICE_CONTEXT_HOOKS.exit is not None:
            DEVICE_CONTEXT_HOOKS.exit()


class DeviceContextHooks:
    """What `with device(...)` calls: set once by the torch API (api/default_device.py)."""

    enter: Callable[[device], None] | None = None
    exit: Callable[[], None] | None = None


DEVICE_CONTEXT_HOOKS: Final = DeviceContextHooks()


# torch: device types whose allocators give every storage an index-less device (the CPU
# allocator's DataPtr carries Device(kCPU); meta storages likewise), so `zeros(2,
# device="cpu:1").device` reads back as `cpu` although `device("cpu:1")` keeps its index.
_INDEXLESS_TYPES: Final = frozenset({"cpu", "meta"})


def storage_device(dev: device) -> device:
    """The device a tensor allocated on `dev` reports: CPU and meta tensors carry no index.

    Torch: Tensor.device reads the storage's DataPtr device, which the CPU and meta
    allocators create without an index.
    """
    if dev._index is not None and dev._type in _INDEXLESS_TYPES:
        return device(dev._type)
    return dev


def _type_name(value: object) -> str:
    return type(value).__name__


def _parse(text: str) -> tuple[str, int | None]:
    # torch: Device::Device(const std::string&) in c10/core/Device.cpp
    if not text:
        raise RuntimeError("Device string must not be empty")
    type_part, sep, index_part = text.partition(":")
    if type_part not in _DEVICE_TYPE_SET:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
            f"{text}"
        )
    if not sep:
        return type_part, None
    # An index is decimal digits without a leading zero (except "0" itself).
    valid = (
        index_part.isdigit()
        and index_part.isascii()
        and (index_part == "0" or not index_part.startswith("0"))
    )
    if not valid:
        raise RuntimeError(f"Invalid device string: '{text}'")
    return type_part, int(index_part)


DeviceLike = device | str | int | None


def as_device(value: device | str | int) -> device:
    """A `device` from what torch accepts as a `device=` argument (a device, a string, an int).

    Torch: an int means an index of the current accelerator type (`cuda`).
    """
    if isinstance(value, device):
        return value
    if isinstance(value, str):
        return device(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return device("cuda", value)
    raise TypeError(f"expected a device, a string or an int, not {_type_name(value)}")
