"""The default device (set_default_device / get_default_device and its effect on the
factories) and the global switches (threads, deterministic algorithms and what they change
on the CPU, float32 matmul precision, warn-always, denormals, anomaly detection, build
facts), against torch; every switch is restored after each test (restore_switches).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._torch_misc_checks import (
    DETERMINISTIC,
    LIBS,
    check,
    restore_switches,  # noqa: F401 - the fixture pytestmark names
    warnings_of,
)

pytestmark = pytest.mark.usefixtures("restore_switches")


# --- default device ----------------------------------------------------------------------------

DEFAULT_DEVICE_CASES: Final = [
    ("ones", lambda lib: lib.ones(2)),
    ("zeros", lambda lib: lib.zeros(2, 3)),
    ("empty", lambda lib: lib.empty(1)),
    ("full", lambda lib: lib.full((1,), 2.0)),
    ("arange", lambda lib: lib.arange(3)),
    ("range", lambda lib: lib.range(0, 3)),
    ("linspace", lambda lib: lib.linspace(0, 1, 3)),
    ("eye", lambda lib: lib.eye(2)),
    ("tensor", lambda lib: lib.tensor([1.0])),
    ("as_tensor", lambda lib: lib.as_tensor([1])),
    ("asarray", lambda lib: lib.asarray([1])),
    ("scalar_tensor", lambda lib: lib.scalar_tensor(1)),
    ("randn", lambda lib: lib.randn(2)),
    ("hann_window", lambda lib: lib.hann_window(3)),
    ("explicit cpu", lambda lib: lib.ones(2, device="cpu")),
    ("zeros_like cpu", lambda lib: lib.zeros_like(lib.ones(1, device="cpu"))),
    ("from_numpy", lambda lib: lib.from_numpy(np.ones(2))),
    ("frombuffer", lambda lib: lib.frombuffer(bytearray(4), dtype=lib.uint8)),
    ("new_ones", lambda lib: lib.ones(1).new_ones(2)),
    ("get_default_device", lambda lib: str(lib.get_default_device())),
]


@pytest.mark.parametrize(
    ("name", "call"), DEFAULT_DEVICE_CASES, ids=[n for n, _ in DEFAULT_DEVICE_CASES]
)
def test_default_device_meta(name: str, call: Callable[[Any], Any]) -> None:
    torch.set_default_device("meta")
    refimpl.set_default_device("meta")
    expected = call(torch)
    actual = call(refimpl)
    torch.set_default_device(None)
    refimpl.set_default_device(None)
    if isinstance(expected, torch.Tensor):
        assert str(actual.device) == str(expected.device)
        assert tuple(actual.shape) == tuple(expected.shape)
    else:
        assert actual == expected


def test_default_device_setting_and_stack() -> None:
    seen = []
    for lib in LIBS:
        overrides = lib.overrides
        states: list[Any] = [str(lib.get_default_device())]
        lib.set_default_device("meta")
        states.append(str(lib.get_default_device()))
        states.append(len(overrides._get_current_function_mode_stack()))
        lib.set_default_device("cpu")
        states.append(str(lib.get_default_device()))
        states.append(len(overrides._get_current_function_mode_stack()))
        states.append(str(lib.ones(1).device))
        lib.set_default_device(lib.device("meta"))
        states.append(str(lib.zeros(1).device))
        lib.set_default_device(None)
        states.append(len(overrides._get_current_function_mode_stack()))
        states.append(str(lib.get_default_device()))
        seen.append(states)
    assert seen[1] == seen[0]


def test_device_as_context_manager() -> None:
    # torch: `with device` pushes a DeviceContext on top of the mode stack and pops the top.
    seen = []
    for lib in LIBS:
        stack = lib.overrides._get_current_function_mode_stack
        states: list[Any] = []
        with lib.device("meta") as entered:
            states += [str(entered), len(stack()), str(lib.ones(2).device)]
            states.append(str(lib.get_default_device()))
            with lib.device("cpu"):
                states += [str(lib.zeros(1).device), str(lib.get_default_device()), len(stack())]
            states.append(str(lib.arange(3).device))
        lib.set_default_device("meta")
        with lib.device("cpu"):
            states += [len(stack()), str(lib.ones(1).device)]
        states.append(str(lib.ones(1).device))
        lib.set_default_device(None)
        states += [len(stack()), str(lib.ones(1).device)]
        seen.append(states)
    assert seen[1] == seen[0]


def test_default_device_bad_name() -> None:
    check(lambda lib: lib.set_default_device("bogus"))


# --- global switches ---------------------------------------------------------------------------

SWITCH_CASES: Final = [
    ("set_num_threads", lambda lib: (lib.set_num_threads(3), lib.get_num_threads())),
    ("set_num_threads 0", lambda lib: lib.set_num_threads(0)),
    ("set_num_threads float", lambda lib: lib.set_num_threads(2.0)),
    ("set_num_threads bool", lambda lib: lib.set_num_threads(True)),
    ("set_num_interop_threads float", lambda lib: lib.set_num_interop_threads(2.0)),
    ("set_num_interop_threads 0", lambda lib: lib.set_num_interop_threads(0)),
    ("init_num_threads", lambda lib: lib.init_num_threads()),
    (
        "use_deterministic_algorithms",
        lambda lib: (
            lib.use_deterministic_algorithms(True, warn_only=True),
            lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
            lib.get_deterministic_debug_mode(),
        ),
    ),
    ("use_deterministic_algorithms int", lambda lib: lib.use_deterministic_algorithms(1)),
    (
        "use_deterministic_algorithms warn_only int",
        lambda lib: lib.use_deterministic_algorithms(True, warn_only=1),
    ),
    (
        "use_deterministic_algorithms keyword",
        lambda lib: lib.use_deterministic_algorithms(mode=False),
    ),
    (
        "debug mode warn",
        lambda lib: (
            lib.set_deterministic_debug_mode("warn"),
            lib.get_deterministic_debug_mode(),
            lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
        ),
    ),
    (
        "debug mode 2",
        lambda lib: (
            lib.set_deterministic_debug_mode(2),
            lib.get_deterministic_debug_mode(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
        ),
    ),
    (
        "debug mode True",
        lambda lib: (lib.set_deterministic_debug_mode(True), lib.get_deterministic_debug_mode()),
    ),
    ("debug mode bad str", lambda lib: lib.set_deterministic_debug_mode("bad")),
    ("debug mode bad int", lambda lib: lib.set_deterministic_debug_mode(5)),
    ("debug mode float", lambda lib: lib.set_deterministic_debug_mode(1.0)),
    ("debug mode None", lambda lib: lib.set_deterministic_debug_mode(None)),
    ("matmul precision default", lambda lib: lib.get_float32_matmul_precision()),
    (
        "matmul precision high",
        lambda lib: (lib.set_float32_matmul_precision("high"), lib.get_float32_matmul_precision()),
    ),
    (
        "matmul precision unknown",
        lambda lib: (lib.set_float32_matmul_precision("HIGH"), lib.get_float32_matmul_precision()),
    ),
    ("matmul precision int", lambda lib: lib.set_float32_matmul_precision(1)),
    ("warn always", lambda lib: (lib.set_warn_always(True), lib.is_warn_always_enabled())),
    ("warn always int", lambda lib: lib.set_warn_always(1)),
    ("flush denormal off", lambda lib: lib.set_flush_denormal(False)),
    ("flush denormal int", lambda lib: lib.set_flush_denormal(1)),
    ("anomaly default", lambda lib: (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())),
    (
        "anomaly on",
        lambda lib: (
            lib.set_anomaly_enabled(True),
            lib.is_anomaly_enabled(),
            lib.is_anomaly_check_nan_enabled(),
        ),
    ),
    (
        "anomaly no nan check",
        lambda lib: (
            lib.set_anomaly_enabled(True, False),
            lib.is_anomaly_enabled(),
            lib.is_anomaly_check_nan_enabled(),
        ),
    ),
    ("anomaly int", lambda lib: lib.set_anomaly_enabled(1)),
    ("anomaly check_nan int", lambda lib: lib.set_anomaly_enabled(True, 1)),
    ("cxx11 abi", lambda lib: lib.compiled_with_cxx11_abi()),
    ("vulkan", lambda lib: lib.is_vulkan_available()),
]


@pytest.mark.parametrize(("name", "call"), SWITCH_CASES, ids=[n for n, _ in SWITCH_CASES])
def test_switches(name: str, call: Callable[[Any], Any]) -> None:
    check(call)


def test_matmul_precision_warning() -> None:
    run = lambda lib: lib.set_float32_matmul_precision("bad")
    assert warnings_of(run, refimpl) == warnings_of(run, torch)


def test_thread_counts_default_to_torchs() -> None:
    assert refimpl.get_num_interop_threads() == torch.get_num_interop_threads()


def test_get_file_path_is_beside_the_package() -> None:
    for lib in LIBS:
        parent = os.path.dirname(os.path.dirname(lib.__file__))
        assert lib.get_file_path() == parent
        assert lib.get_file_path("a", "b") == os.path.join(parent, "a", "b")


def test_anomaly_switch_reaches_autograd() -> None:
    refimpl.set_anomaly_enabled(True)
    assert refimpl.autograd.anomaly_mode.is_anomaly_enabled()


DETERMINISTIC_CASES: Final = [
    ("put_", lambda lib: lib.zeros(2).put_(lib.tensor([0, 0]), lib.ones(2))),
    ("put", lambda lib: lib.zeros(2).put(lib.tensor([0, 1]), lib.ones(2))),
    ("put_ accumulate", lambda lib: lib.zeros(2).put_(lib.tensor([0, 0]), lib.ones(2), True)),
    ("index_add_", lambda lib: lib.zeros(5).index_add_(0, lib.tensor([0, 0]), lib.ones(2))),
    ("scatter_add_", lambda lib: lib.zeros(5).scatter_add_(0, lib.tensor([0, 0]), lib.ones(2))),
    (
        "index_put_ accumulate",
        lambda lib: lib.zeros(5).index_put_((lib.tensor([0, 0]),), lib.ones(2), accumulate=True),
    ),
    ("cumsum", lambda lib: lib.cumsum(lib.ones(3), 0)),
    # torch fills uninitialised memory (torch.utils.deterministic.fill_uninitialized_memory).
    ("empty", lambda lib: lib.empty(3)),
    ("empty float64", lambda lib: lib.empty(2, 2, dtype=lib.float64)),
    ("empty int32", lambda lib: lib.empty(2, dtype=lib.int32)),
    ("empty uint8", lambda lib: lib.empty(2, dtype=lib.uint8)),
    ("empty int64", lambda lib: lib.empty(2, dtype=lib.int64)),
    ("empty bool", lambda lib: lib.empty(2, dtype=lib.bool)),
    ("empty complex", lambda lib: lib.empty(2, dtype=lib.complex64)),
    ("empty channels_last", lambda lib: lib.empty(1, 2, 2, 2, memory_format=lib.channels_last)),
    ("empty_like", lambda lib: lib.empty_like(lib.ones(2, 3))),
    ("new_empty", lambda lib: lib.ones(1).new_empty(2)),
    ("empty_strided", lambda lib: lib.empty_strided((2, 2), (1, 2))),
    ("empty_permuted", lambda lib: lib.empty_permuted((2, 3), (1, 0))),
    ("zeros_like", lambda lib: lib.zeros_like(lib.ones(2))),
]


@pytest.mark.parametrize("warn_only", [False, True])
@pytest.mark.parametrize(
    ("name", "call"), DETERMINISTIC_CASES, ids=[n for n, _ in DETERMINISTIC_CASES]
)
def test_deterministic_algorithms_on_cpu(
    name: str, call: Callable[[Any], Any], warn_only: bool
) -> None:
    torch.use_deterministic_algorithms(True, warn_only=warn_only)
    refimpl.use_deterministic_algorithms(True, warn_only=warn_only)
    check(call)
    assert warnings_of(call, refimpl) == warnings_of(call, torch)


def test_warn_always_repeats_warn_oncewarnings_of() -> None:
    run = lambda lib: (
        lib.meshgrid(lib.ones(2), lib.ones(3)),
        lib.meshgrid(lib.ones(2), lib.ones(3)),
    )
    torch.set_warn_always(True)
    refimpl.set_warn_always(True)
    expected = warnings_of(run, torch)
    assert len(expected) == 2
    assert warnings_of(run, refimpl) == expected


def test_fill_uninitialized_memory_switch() -> None:
    results = []
    for lib, module in zip(LIBS, DETERMINISTIC, strict=True):
        lib.use_deterministic_algorithms(True)
        module.fill_uninitialized_memory = False
        off = module.fill_uninitialized_memory
        lib.empty(2)  # values unspecified: not compared
        module.fill_uninitialized_memory = True
        filled = lib.empty(2).tolist()
        with pytest.raises(RuntimeError) as raised:
            module.fill_uninitialized_memory = 1
        results.append((off, [math.isnan(v) for v in filled], str(raised.value)))
    assert results[1] == results[0]
