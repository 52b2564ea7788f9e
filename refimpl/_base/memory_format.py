"""Memory formats: the dim order a new tensor's strides follow.

Torch: torch.memory_format (c10/core/MemoryFormat.h): contiguous_format (row-major),
preserve_format (keep the input's layout), channels_last (NHWC for 4-d tensors) and
channels_last_3d (NDHWC for 5-d tensors). An aten argument of type MemoryFormat carries the
enum's int (0, 1, 2, 3); `as_memory_format` reads either form.
"""

from __future__ import annotations

from typing import Final


class memory_format:
    """A memory format. Torch: torch.memory_format; compared by identity."""

    __slots__ = ("_name", "_value")

    def __init__(self, name: str, value: int) -> None:
        self._name = name
        self._value = value

    def __repr__(self) -> str:
        return f"refimpl.{self._name}"

    def __reduce__(self) -> str:
        return self._name

    def __int__(self) -> int:
        # torch: the c10::MemoryFormat value an aten MemoryFormat argument carries.
        return self._value


contiguous_format: Final = memory_format("contiguous_format", 0)
preserve_format: Final = memory_format("preserve_format", 1)
channels_last: Final = memory_format("channels_last", 2)
channels_last_3d: Final = memory_format("channels_last_3d", 3)

_BY_VALUE: Final = (contiguous_format, preserve_format, channels_last, channels_last_3d)


def as_memory_format(value: object) -> memory_format | None:
    """A MemoryFormat argument (a memory_format, its int, or None) as a memory_format."""
    if value is None or isinstance(value, memory_format):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(_BY_VALUE):
        return _BY_VALUE[value]
    raise TypeError(f"expected a memory_format, got {type(value).__name__}")
