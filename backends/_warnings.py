"""Silencing NumPy's floating-point RuntimeWarnings raised from refimpl's own computations.

NumPy warns on overflow, invalid values and division by zero (inf - inf, a NaN cast to int,
1 / 0) where torch computes silently. The backends silence them with a warnings filter on
the modules that call into NumPy (refimpl, backends, the array library's wrappers), set once
(no np.errstate per call: it would cost about 1 us of a 3 us add), so a user's own NumPy
code still warns.

A filter set once does not stay, though: `warnings.catch_warnings` restores on exit the list
it found on entry, so a filter added inside such a block (the backend loads lazily, at the
first tensor, which pytest runs inside catch_warnings for every test, collection included)
is gone afterwards; and a `simplefilter("always")` or `("error")` put in front of it (tests
comparing warnings with torch's) wins over it. Both let refimpl's RuntimeWarnings escape
where torch gives none (found: `refimpl.cov(x, correction=4)` warning "divide by zero
encountered in divide" from refimpl/ops/arithmetic.py under pytest).

So the filters are kept: the warnings module calls `_filters_mutated` after every change to
its filters (filterwarnings, simplefilter, resetwarnings, catch_warnings' entry and exit),
and the backends' wrapper of it puts their filters back in front of the list. Where a Python
lacks that hook (the warnings module is private there), the filters are set once, as before.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Final

_KEPT: Final[list[tuple[Any, ...]]] = []


def _restore() -> None:
    filters: list[Any] = warnings.filters  # type: ignore[assignment]  # a list at run time
    if filters[: len(_KEPT)] == _KEPT:
        return
    filters[:] = _KEPT + [f for f in filters if f not in _KEPT]


def _install_hook() -> None:
    original = getattr(warnings, "_filters_mutated", None)
    if original is None or getattr(original, "_refimpl_keeps_filters", False):
        return

    def filters_mutated() -> None:
        _restore()
        original()

    filters_mutated._refimpl_keeps_filters = True  # type: ignore[attr-defined]
    warnings._filters_mutated = filters_mutated  # type: ignore[attr-defined]


def ignore_runtime_warnings_from(module_pattern: str) -> None:
    """Ignore RuntimeWarnings raised from modules whose name matches `module_pattern` (a
    regular expression, matched at the start, as `warnings.filterwarnings(module=...)`),
    now and after any later change to the warnings filters."""
    entry = ("ignore", None, RuntimeWarning, re.compile(module_pattern), 0)
    if entry not in _KEPT:
        _KEPT.append(entry)
    _install_hook()
    _restore()
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:
        mutated()
