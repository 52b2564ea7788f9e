"""Logging modes for the corpus tests: what a TorchFunctionMode is told of, and which aten
overloads a TorchDispatchMode sees, while a program runs, on torch or on refimpl."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.utils._python_dispatch

import refimpl
import refimpl.overrides
import refimpl.utils._python_dispatch


def function_calls(lib: Any, run: Callable[[], Any]) -> tuple[list[tuple[str, tuple[str, ...]]], Any]:
    """Each function a TorchFunctionMode is told of while `run()` runs (resolve_name, or the
    function's own name, with the type names in the order given), and `run()`'s result."""
    overrides = torch.overrides if lib is torch else refimpl.overrides
    seen: list[tuple[str, tuple[str, ...]]] = []

    class Log(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            called = overrides.resolve_name(func) or getattr(func, "__name__", repr(func))
            seen.append((called, tuple(t.__name__ for t in types)))
            return func(*args, **(kwargs or {}))

    with Log():
        result = run()
    return seen, result


def aten_calls(lib: Any, run: Callable[[], Any]) -> tuple[list[str], Any]:
    """Each aten overload a TorchDispatchMode sees while `run()` runs, and its result."""
    module = torch.utils._python_dispatch if lib is torch else refimpl.utils._python_dispatch
    seen: list[str] = []

    class Log(module.TorchDispatchMode):  # type: ignore[misc, name-defined]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        result = run()
    return seen, result
