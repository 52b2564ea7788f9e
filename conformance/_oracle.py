"""What the table-driven family tests share: the dtypes under test and running a call in a library.

Each test calls the same function with `torch` and with `refimpl` and compares the outcomes
(a value or an exception); these are the pieces that do not depend on the family.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

import torch

import refimpl

_CPU_DTYPES: Final = {d.name for d in refimpl.config.backends.resolve("cpu").array_dtypes}

# torch's basic dtypes that the CPU backend under test stores (array_api_strict: no float16).
STORED_DTYPES: Final[list[str]] = [
    name for name in (
        "bool", "uint8", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128",
    ) if name in _CPU_DTYPES
]


def outcome(fn: Callable[[Any], Any], lib: Any) -> tuple[Any, BaseException | None]:
    """`fn(lib)` as (result, None), or (None, the exception it raised); warnings silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return None, error


def assert_same_outcome(
    make: Callable[[Any], Any], same: Callable[[Any, Any], None]
) -> None:
    """`make(torch)` and `make(refimpl)` agree: both raise, with the same exception type and
    text, or neither does and `same(expected, actual)` accepts the results."""
    expected, expected_error = outcome(make, torch)
    actual, actual_error = outcome(make, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    same(expected, actual)
