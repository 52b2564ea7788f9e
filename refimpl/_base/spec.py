"""The facts extracted from torch 2.13 into spec/: every aten and prims schema with its tags.

Torch: the operator registry of an installed torch (torch._C._jit_get_all_schemas,
OpOverload.tags), written to spec/schemas.json by spec/extract.py. refimpl reads it so that
`refimpl.ops.aten.<op>` knows every overload torch has, in torch's order, before any kernel
is registered, and so that an op block's inline schema can be checked against torch's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Final

SPEC_PACKAGE: Final = "spec"


@dataclass(frozen=True, slots=True)
class SpecOverload:
    """One overload as torch 2.13 has it."""

    name: str
    """Qualified op name without overload, `aten::add`."""
    overload: str
    """Overload name, "" for the default overload."""
    schema: str
    tags: tuple[str, ...]
    cia: bool
    """Has a CompositeImplicitAutograd kernel in torch."""
    cea: bool
    ceanf: bool
    dispatcher: bool
    """Registered with the c10 dispatcher (False: a TorchScript-only operator)."""
    packet_index: int
    """Position in `torch.ops.<ns>.<op>.overloads()`."""


def read_text(filename: str) -> str:
    """A file of the spec/ folder."""
    return files(SPEC_PACKAGE).joinpath(filename).read_text()


@cache
def spec_overloads() -> dict[str, tuple[SpecOverload, ...]]:
    """Qualified op name -> its overloads in torch's packet order."""
    by_name: dict[str, list[SpecOverload]] = {}
    for row in json.loads(read_text("schemas.json")):
        item = SpecOverload(
            row["name"], row["overload"], row["schema"], tuple(row["tags"]), row["cia"],
            row["cea"], row["ceanf"], row["dispatcher"], row["packet_index"],
        )
        by_name.setdefault(item.name, []).append(item)
    return {
        name: tuple(sorted(items, key=lambda o: o.packet_index))
        for name, items in by_name.items()
    }


def spec_overload(qualified_name: str, overload: str) -> SpecOverload | None:
    """The spec entry for `aten::add` + `Tensor`, or None."""
    for item in spec_overloads().get(qualified_name, ()):
        if item.overload == overload:
            return item
    return None
