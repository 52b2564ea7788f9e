"""Shared fixtures for the conformance suite: torch as the oracle, refimpl as the target.

The CPU backend under test is chosen by `REFIMPL_BACKEND_CPU` (default numpy), so the same
suite runs for every backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch

import refimpl


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
