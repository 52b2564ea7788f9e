"""einsum's equation: its grammar, torch's errors for it, and the dims each label maps to.

Torch: the parsing half of einsum in aten/src/ATen/native/Linear.cpp. An equation is
`lhs` or `lhs->rhs`; `lhs` holds one subscript string per operand, separated by commas;
subscripts are letters (A-Z sort before a-z), at most one `...` per operand (the ellipsis
dims, broadcast across operands and right-aligned), and spaces, which are ignored. Without
`->` the output is the ellipsis dims, then every label used exactly once, in label order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

ELLIPSIS: Final = -1
"""The marker of `...` in a parsed subscript list (labels are 0..51)."""


def label_index(char: str) -> int | None:
    """A subscript letter as torch numbers it: A-Z are 0-25, a-z are 26-51."""
    if "A" <= char <= "Z":
        return ord(char) - ord("A")
    if "a" <= char <= "z":
        return ord(char) - ord("a") + 26
    return None


def label_char(label: int) -> str:
    return chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26)


def _invalid(index: int) -> RuntimeError:
    return RuntimeError(
        f"einsum(): invalid subscript given at index {index} in the equation string, "
        "subscripts must be in [a-zA-Z]"
    )


@dataclass(frozen=True, slots=True)
class Equation:
    """A parsed equation: each operand's subscripts and the output's (ELLIPSIS for `...`)."""

    inputs: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]


def parse(equation: str, ranks: Sequence[int]) -> Equation:
    """Parse `equation` for operands of the given ranks, with torch's errors in its order."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    num_ops = len(ranks)
    inputs: list[list[int]] = [[]]
    found_ell = False
    i = 0
    while i < len(lhs):
        char = lhs[i]
        if char == " ":
            pass
        elif char == ".":
            if found_ell:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {len(inputs) - 1} for which an ellipsis "
                    "was already found"
                )
            if lhs[i + 1 : i + 3] != "..":
                raise RuntimeError(
                    f"einsum(): found '.' for operand {len(inputs) - 1} that is not part of "
                    "any ellipsis"
                )
            inputs[-1].append(ELLIPSIS)
            found_ell = True
            i += 2
        elif char == ",":
            if len(inputs) >= num_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            inputs.append([])
            found_ell = False
        else:
            label = label_index(char)
            if label is None:
                raise _invalid(i)
            inputs[-1].append(label)
        i += 1
    if len(inputs) != num_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for index, (labels, rank) in enumerate(zip(inputs, ranks, strict=True)):
        _check_rank(index, labels, rank)
    if arrow < 0:
        return Equation(tuple(map(tuple, inputs)), _implicit_output(inputs))
    return Equation(tuple(map(tuple, inputs)), _explicit_output(equation, arrow + 2, inputs))


def _check_rank(index: int, labels: list[int], rank: int) -> None:
    if ELLIPSIS in labels:
        if len(labels) - 1 > rank:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(labels) - 1}) is "
                f"more than the number of dimensions ({rank}) for operand {index}"
            )
    elif len(labels) != rank:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({len(labels)}) does not "
            f"match the number of dimensions ({rank}) for operand {index} and no ellipsis "
            "was given"
        )


def _implicit_output(inputs: list[list[int]]) -> tuple[int, ...]:
    counts: dict[int, int] = {}
    for labels in inputs:
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
    ellipsis = (ELLIPSIS,) if ELLIPSIS in counts else ()
    return ellipsis + tuple(sorted(k for k, n in counts.items() if n == 1 and k != ELLIPSIS))


def _explicit_output(equation: str, start: int, inputs: list[list[int]]) -> tuple[int, ...]:
    used = {label for labels in inputs for label in labels}
    output: list[int] = []
    i = start
    while i < len(equation):
        char = equation[i]
        if char == " ":
            pass
        elif char == ".":
            if ELLIPSIS in output:
                raise RuntimeError(
                    "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if equation[i + 1 : i + 3] != "..":
                raise RuntimeError(
                    "einsum(): found '.' for output that is not part of any ellipsis (...)"
                )
            output.append(ELLIPSIS)
            i += 2
        else:
            label = label_index(char)
            if label is None:
                raise _invalid(i)
            if label in output:
                raise RuntimeError(
                    f"einsum(): output subscript {char} appears more than once in the output"
                )
            if label not in used:
                raise RuntimeError(
                    f"einsum(): output subscript {char} does not appear in the equation for "
                    "any input operand"
                )
            output.append(label)
        i += 1
    return tuple(output)
