"""`refimpl.return_types`: the named tuples of multi-output ops (`refimpl.return_types.max`).

Torch: torch.return_types. The types are made from the aten schemas' return names when the
bindings of `refimpl.*` and `Tensor.*` are built (refimpl/api/return_types.py).
"""

from __future__ import annotations

from refimpl.api.return_types import StructSeq, known_return_type


def __getattr__(name: str) -> type[StructSeq]:
    found = known_return_type(name)
    if found is None:
        raise AttributeError(f"module 'refimpl.return_types' has no attribute '{name}'")
    return found
