"""Tensor layouts: how elements are stored. refimpl's tensors are `refimpl.strided`.

Torch: torch.layout (c10/core/Layout.h): strided, sparse_coo, sparse_csr, ... Only strided
tensors exist here; the other layout objects exist so that code naming them (a factory's
`layout=` argument) gets torch's error rather than an AttributeError.
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
sparse_coo: Final = layout("sparse_coo")
sparse_csr: Final = layout("sparse_csr")
sparse_csc: Final = layout("sparse_csc")
sparse_bsr: Final = layout("sparse_bsr")
sparse_bsc: Final = layout("sparse_bsc")
_mkldnn: Final = layout("_mkldnn")
jagged: Final = layout("jagged")
