"""`refimpl.Size`: the tuple type of tensor shapes.

Torch: torch.Size (torch/csrc/Size.cpp), a tuple subclass that prints as `torch.Size([2, 3])`.
"""

from __future__ import annotations


class Size(tuple[int, ...]):
    """A tensor's shape: a tuple of ints. Torch: torch.Size."""

    __slots__ = ()

    def numel(self) -> int:
        """The number of elements a tensor of this shape has. Torch: torch.Size.numel."""
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"refimpl.Size([{', '.join(str(s) for s in self)}])"

    def __str__(self) -> str:
        return self.__repr__()

    def __getitem__(self, index):  # type: ignore[no-untyped-def]  # tuple has overloads
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other: tuple[int, ...]) -> Size:  # type: ignore[override,unused-ignore]  # Size + tuple is a Size
        return Size(tuple.__add__(self, other))
