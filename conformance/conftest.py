"""Shared fixtures for the conformance suite: torch as the oracle, refimpl as the target.

The CPU backend under test is chosen by `REFIMPL_BACKEND_CPU` (default numpy), so the same
suite runs for every backend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES


@contextmanager
def default_dtype_in_both(name: str) -> Iterator[str]:
    """Set the default dtype `name` in torch and refimpl for a block, then restore both."""
    saved_torch, saved_refimpl = torch.get_default_dtype(), refimpl.get_default_dtype()
    torch.set_default_dtype(getattr(torch, name))
    refimpl.set_default_dtype(getattr(refimpl, name))
    try:
        yield name
    finally:
        torch.set_default_dtype(saved_torch)
        refimpl.set_default_dtype(saved_refimpl)


@pytest.fixture(params=["float32", "float64"], ids=["default_f32", "default_f64"])
def default_dtype(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test under both default dtypes, in both libraries, and restore them."""
    with default_dtype_in_both(request.param) as name:
        yield name


# Note [float16 cases on a backend without float16]
# The functional layer's tests (test_nn_*.py) run many of their cases once per dtype, with the
# dtype in the case's id ("relu-float16", "mse_loss-mean-f16", "max_pool2d float16"). A
# backend that stores no float16 (array_api_strict) cannot build their inputs, so those cases
# are skipped there, by id, rather than each table listing the backend's dtypes.
_FLOAT16_ID: Final = re.compile(r"(?<![a-z0-9])(float16|f16|half)(?![a-z0-9])")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "float16" in STORED_DTYPES:
        return
    skip = pytest.mark.skip(reason="the backend stores no float16")
    for item in items:
        spec = getattr(item, "callspec", None)
        if (
            spec is not None
            and item.fspath.basename.startswith("test_nn_")
            and _FLOAT16_ID.search(spec.id)
        ):
            item.add_marker(skip)
