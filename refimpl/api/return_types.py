"""`refimpl.return_types`: the named tuples torch's Python bindings return for multi-output ops.

Torch: torch.return_types (torch/csrc/utils/structseq.cpp and the generated
python_return_types.cpp). An aten op whose schema names every one of several returns
(`max.dim(...) -> (Tensor values, Tensor indices)`) comes back to Python as a structseq named
after the op (`torch.return_types.max`); its out= form as `<name>_out`. Unnamed returns
(`var_mean`) stay plain tuples. The field names are the schema's, so this module derives each
type from the schema the binding already has; one class per name, made once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Self

from refimpl._base.pytree_nodes import pytree_register_structseq


class StructSeq(tuple[Any, ...]):
    """A tuple whose items are also named fields. Torch: a PyStructSequence of
    torch.return_types (its repr prints one field a line)."""

    __slots__ = ()
    n_fields: int = 0
    n_sequence_fields: int = 0
    n_unnamed_fields: int = 0
    _field_names: tuple[str, ...] = ()

    def __new__(cls, values: Sequence[Any]) -> Self:
        items = tuple(values)
        if len(items) != cls.n_fields:
            raise TypeError(
                f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        # torch: returned_structseq_repr in structseq.cpp.
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._field_names, self))
        return f"torch.return_types.{type(self).__name__}(\n{fields})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _rebuild, (type(self).__name__, self._field_names, tuple(self))


def _field(index: int) -> property:
    return property(lambda self: self[index])


_TYPES: Final[dict[str, type[StructSeq]]] = {}


def return_type(name: str, fields: tuple[str, ...]) -> type[StructSeq]:
    """The structseq type `torch.return_types.<name>` with `fields`, made on first use."""
    found = _TYPES.get(name)
    if found is not None:
        if found._field_names != fields:
            raise RuntimeError(f"return type {name} has fields {found._field_names}, not {fields}")
        return found
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": "refimpl.return_types",
        "n_fields": len(fields),
        "n_sequence_fields": len(fields),
        "_field_names": fields,
    }
    namespace.update((field, _field(i)) for i, field in enumerate(fields))
    made = type(name, (StructSeq,), namespace)
    _TYPES[name] = made
    # torch: torch/return_types.py registers every return type as a pytree node.
    pytree_register_structseq(made)
    return made


def _rebuild(name: str, fields: tuple[str, ...], values: tuple[Any, ...]) -> StructSeq:
    return return_type(name, fields)(values)


def known_return_type(name: str) -> type[StructSeq] | None:
    """The return type called `name` if a binding has made it."""
    return _TYPES.get(name)
