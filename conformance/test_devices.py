"""Devices against torch: parsing, attributes, printing, equality."""

from __future__ import annotations

from typing import Any, Final

import pytest
import torch

import refimpl

SPECS: Final[list[tuple[Any, ...]]] = [
    ("cpu",), ("cpu:0",), ("cuda",), ("cuda:1",), ("cuda", 2), ("meta",), ("cpu", 1),
    ("xla:3",), ("mps",), ("cuda:x",), ("cuda:-1",), ("cuda", -1), ("cuda:1:2",),
    ("cuda:01",), ("CPU",), ("cuda:1", 1), ("",),
]


def _describe(lib: Any, spec: tuple[Any, ...]) -> tuple[object, ...]:
    try:
        d = lib.device(*spec)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return (type(error), str(error))
    return (d.type, d.index, str(d), repr(d))


@pytest.mark.parametrize("spec", SPECS, ids=[":".join(map(str, s)) for s in SPECS])
def test_device_matches_torch(spec: tuple[Any, ...]) -> None:
    assert _describe(refimpl, spec) == _describe(torch, spec)


def test_device_equality_matches_torch() -> None:
    for lib in (torch, refimpl):
        assert lib.device("cuda:1") == lib.device("cuda", 1)
        assert lib.device("cuda") != lib.device("cuda:0")
        assert (lib.device("cpu") == "cpu") is False
        assert hash(lib.device("cpu:0")) == hash(lib.device("cpu", 0))
        assert lib.device(lib.device("cuda:2")) == lib.device("cuda:2")
    assert refimpl.ones(2).device == refimpl.device("cpu")
    assert refimpl.ones(2, device="meta").device == refimpl.device("meta")
