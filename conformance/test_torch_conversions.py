"""torch.asarray, frombuffer and from_dlpack against torch: values, dtypes, strides, the
sharing of memory (where the CPU backend can view host memory), the copy=/requires_grad=
rules, warnings, errors, and what a logging TorchDispatchMode sees.
"""

from __future__ import annotations

import array
import functools
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._mode_logs import aten_calls
from conformance._torch_misc_checks import (
    LIBS,
    check,
    needs_sharing,
    restore_switches,  # noqa: F401 - the fixture pytestmark names
    warnings_of,
)

pytestmark = pytest.mark.usefixtures("restore_switches")


# --- asarray -----------------------------------------------------------------------------------

ASARRAY_CASES: Final = [
    ("list", lambda lib: lib.asarray([1, 2.5])),
    ("int", lambda lib: lib.asarray(3)),
    ("float", lambda lib: lib.asarray(3.0)),
    ("bool", lambda lib: lib.asarray(True)),
    ("nested", lambda lib: lib.asarray([[1, 2], [3, 4]], dtype=lib.float64)),
    ("ragged", lambda lib: lib.asarray([[1], [2, 3]])),
    ("empty", lambda lib: lib.asarray([])),
    ("str", lambda lib: lib.asarray("abc")),
    ("None", lambda lib: lib.asarray(None)),
    ("object", lambda lib: lib.asarray(object())),
    ("sequence copy=False", lambda lib: lib.asarray([1, 2], copy=False)),
    ("numpy", lambda lib: lib.asarray(np.arange(4.0))),
    ("numpy strided", lambda lib: lib.asarray(np.arange(6.0).reshape(2, 3).T)),
    ("numpy sliced", lambda lib: lib.asarray(np.arange(4)[::2])),
    ("numpy dtype", lambda lib: lib.asarray(np.arange(3), dtype=lib.float32)),
    ("numpy alias dtype", lambda lib: lib.asarray(np.arange(3.0), copy=False, dtype=lib.float32)),
    ("numpy meta", lambda lib: lib.asarray(np.arange(3), device="meta")),
    ("numpy alias meta", lambda lib: lib.asarray(np.arange(3), copy=False, device="meta")),
    ("numpy scalar", lambda lib: lib.asarray(np.float64(1))),
    ("numpy scalar in list", lambda lib: lib.asarray([np.float64(1)])),
    ("numpy scalar alias", lambda lib: lib.asarray(np.float32(2), copy=False)),
    ("tensor dtype", lambda lib: lib.asarray(lib.ones(3), dtype=lib.float64)),
    ("tensor alias dtype", lambda lib: lib.asarray(lib.ones(3), dtype=lib.float64, copy=False)),
    ("tensor meta", lambda lib: lib.asarray(lib.ones(3), device="meta")),
    ("bytearray", lambda lib: lib.asarray(bytearray(b"\x01\x02\x03\x04"), dtype=lib.uint8)),
    ("bytearray default dtype", lambda lib: lib.asarray(bytearray(b"\x00\x00\x80\x3f"))),
    ("bytearray short", lambda lib: lib.asarray(bytearray(b"ab"))),
    ("array.array", lambda lib: lib.asarray(array.array("f", [1, 2]))),
    ("list requires_grad", lambda lib: lib.asarray([1.0, 2], requires_grad=True)),
    ("int list requires_grad", lambda lib: lib.asarray([1, 2], requires_grad=True)),
    ("bad dtype", lambda lib: lib.asarray([1], dtype=1)),
    ("bad copy", lambda lib: lib.asarray([1], copy=1)),
]


@pytest.mark.parametrize(("name", "call"), ASARRAY_CASES, ids=[n for n, _ in ASARRAY_CASES])
def test_asarray(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


@needs_sharing
def test_asarray_shares_memory() -> None:
    for lib in LIBS:
        source = np.arange(4.0)
        shared, copied = lib.asarray(source), lib.asarray(source, copy=True)
        source[0] = 9
        assert shared[0].item() == 9 and copied[0].item() == 0
        t = lib.ones(3)
        assert lib.asarray(t) is t
        assert lib.asarray(t, copy=True) is not t
        assert lib.asarray(t, copy=True)._base is None


def _asarray_of(obj: Any, lib: Any) -> Any:
    return lib.asarray(obj)


def test_asarray_requires_grad_rules() -> None:
    results = []
    for lib in LIBS:
        leaf = lib.ones(2, requires_grad=True)
        nonleaf = leaf * 2
        kept = warnings_of(functools.partial(_asarray_of, nonleaf), lib)
        detached = lib.asarray(nonleaf, requires_grad=False)
        converted = lib.asarray(leaf, dtype=lib.float64)
        results.append(
            (
                kept,
                detached.requires_grad,
                detached.grad_fn is None,
                type(converted.grad_fn).__name__,
                lib.asarray(leaf, requires_grad=False).requires_grad,
                leaf.requires_grad,
            )
        )
    assert results[1] == results[0]


def test_asarray_of_read_only_numpy_warns() -> None:
    def run(lib: Any) -> Any:
        source = np.arange(3.0)
        source.flags.writeable = False
        return lib.asarray(source)

    torch.set_warn_always(True)
    refimpl.set_warn_always(True)
    assert warnings_of(run, refimpl) == warnings_of(run, torch)


@pytest.mark.parametrize(
    "run",
    [
        lambda lib: lib.asarray([1, 2]),
        lambda lib: lib.asarray(np.ones(2)),
        lambda lib: lib.asarray(np.ones(2), dtype=lib.float32),
    ],
    ids=["list", "numpy", "numpy dtype"],
)
def test_asarray_mode_log(run: Callable[[Any], Any]) -> None:
    assert aten_calls(refimpl, lambda: run(refimpl))[0] == aten_calls(torch, lambda: run(torch))[0]


def _three_asarrays(lib: Any, x: Any) -> Any:
    return lib.asarray(x), lib.asarray(x, copy=True), lib.asarray(x, dtype=lib.float64)


def test_asarray_tensor_mode_log() -> None:
    logs = []
    for lib in LIBS:
        x = lib.ones(2)
        log, _ = aten_calls(lib, functools.partial(_three_asarrays, lib, x))
        logs.append(log)
    assert logs[1] == logs[0]


# --- frombuffer --------------------------------------------------------------------------------


def _buffer() -> bytearray:
    return bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")


FROMBUFFER_CASES: Final = [
    ("int32", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32)),
    ("count offset", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, count=1, offset=4)),
    ("int16 offset", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int16, offset=2)),
    ("float32", lambda lib: lib.frombuffer(_buffer(), dtype=lib.float32)),
    ("bool", lambda lib: lib.frombuffer(bytearray(b"\x00\x01"), dtype=lib.bool)),
    ("bytes", lambda lib: lib.frombuffer(b"\x01\x02", dtype=lib.uint8)),
    ("array.array", lambda lib: lib.frombuffer(array.array("h", [1, -2]), dtype=lib.int16)),
    ("requires_grad", lambda lib: lib.frombuffer(_buffer(), dtype=lib.float32, requires_grad=True)),
    ("count too large", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, count=3)),
    ("count 0", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, count=0)),
    ("offset past end", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, offset=9)),
    ("negative offset", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, offset=-1)),
    ("ragged offset", lambda lib: lib.frombuffer(_buffer(), dtype=lib.int32, offset=1)),
    ("empty buffer", lambda lib: lib.frombuffer(bytearray(), dtype=lib.int32)),
    ("not a buffer", lambda lib: lib.frombuffer([1, 2], dtype=lib.int32)),
]


@pytest.mark.parametrize(("name", "call"), FROMBUFFER_CASES, ids=[n for n, _ in FROMBUFFER_CASES])
def test_frombuffer(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


@needs_sharing
def test_frombuffer_shares_memory_and_warns_for_read_only() -> None:
    for lib in LIBS:
        buffer = _buffer()
        t = lib.frombuffer(buffer, dtype=lib.uint8)
        buffer[0] = 99
        assert t[0].item() == 99
        t[1] = 7
        assert buffer[1] == 7
    torch.set_warn_always(True)
    refimpl.set_warn_always(True)
    run = lambda lib: lib.frombuffer(b"\x01\x02", dtype=lib.uint8)
    expected = warnings_of(run, torch)
    assert expected and warnings_of(run, refimpl) == expected


def test_frombuffer_logs_nothing() -> None:
    def run(lib: Any) -> Any:
        return lib.frombuffer(bytearray(4), dtype=lib.uint8)

    assert aten_calls(refimpl, lambda: run(refimpl))[0] == aten_calls(torch, lambda: run(torch))[0]


# --- from_dlpack -------------------------------------------------------------------------------


class _Producer:
    """A torch-free DLPack producer: it hands out a NumPy array's capsule."""

    def __init__(self, source: np.ndarray) -> None:
        self.source = source

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.source.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.source.__dlpack_device__()


DLPACK_CASES: Final = [
    ("numpy", lambda lib: lib.from_dlpack(np.arange(3))),
    ("numpy strided", lambda lib: lib.from_dlpack(np.arange(6.0).reshape(2, 3).T)),
    ("producer", lambda lib: lib.from_dlpack(_Producer(np.arange(4, dtype=np.int16)))),
    ("tensor", lambda lib: lib.from_dlpack(lib.arange(3.0))),
    ("list", lambda lib: lib.from_dlpack([1, 2])),
]


@pytest.mark.parametrize(("name", "call"), DLPACK_CASES, ids=[n for n, _ in DLPACK_CASES])
def test_from_dlpack(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


@needs_sharing
def test_from_dlpack_shares_memory() -> None:
    for lib in LIBS:
        source = np.arange(3.0)
        t = lib.from_dlpack(source)
        source[0] = 5
        assert t[0].item() == 5
        x = lib.ones(2)
        y = lib.from_dlpack(x)
        x.add_(1)
        assert y[0].item() == 2 and y._base is None and y is not x and y._version == 0


def test_from_dlpack_round_trips_refimpl_tensor_dlpack() -> None:
    if not hasattr(refimpl.Tensor, "__dlpack__"):
        pytest.skip("refimpl.Tensor.__dlpack__ is not there yet")
    x = refimpl.arange(4.0)
    back = refimpl.from_dlpack(np.from_dlpack(x))
    assert back.tolist() == x.tolist()
