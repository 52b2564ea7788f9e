"""Tensor layouts: how elements are stored. refimpl has one, `refimpl.strided`.

Torch: torch.layout (c10/core/Layout.h): strided, sparse_coo, sparse_csr, ... Only strided
tensors exist here; the others are future work for sparse backends.
"""

from __future__ import annotations

from typing import Final


class layout:
    """A storage layout. Torch: torch.layout; compared by identity."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"refimpl.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided: Final = layout("strided")
