"""What the conformance tests of torch's miscellaneous functions share (test_torch_misc.py,
test_torch_conversions.py, test_torch_switches.py): comparing outcomes with torch, recording
warnings, and restoring the global switches after each test."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
import torch
import torch.utils.deterministic

import refimpl
import refimpl.utils.deterministic
from conformance._oracle import outcome

LIBS: Final[tuple[Any, ...]] = (torch, refimpl)
# The torch.utils.deterministic modules (their property is on the module's class).
DETERMINISTIC: Final[tuple[Any, Any]] = (torch.utils.deterministic, refimpl.utils.deterministic)
# Memory is shared, and a host array's strides kept, only on a CPU backend with strided views
# (NumPy); another copies (api/conversions.py).
SHARES_HOST_MEMORY: Final = refimpl.config.backends.resolve("cpu").supports_strided_views
needs_sharing = pytest.mark.skipif(
    not SHARES_HOST_MEMORY, reason="the CPU backend copies host memory"
)


def same_tensor(expected: Any, actual: Any) -> None:
    assert isinstance(actual, refimpl.Tensor), actual
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    if SHARES_HOST_MEMORY or expected.is_contiguous():
        assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.requires_grad == expected.requires_grad
    assert str(actual.device) == str(expected.device)
    if not expected.is_meta:
        got = torch.tensor(actual.detach().tolist(), dtype=expected.dtype).reshape(expected.shape)
        # torch's default tolerances: sums (batch_norm_update_stats) differ in summation order.
        torch.testing.assert_close(got, expected.detach(), equal_nan=True)


def same(expected: Any, actual: Any) -> None:
    if isinstance(expected, torch.Tensor):
        same_tensor(expected, actual)
    elif isinstance(expected, (tuple, list)):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual, strict=True):
            same(e, a)
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(actual)
    else:
        assert type(actual) is type(expected), (actual, expected)
        assert actual == expected


def check(call: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(call, torch)
    actual, actual_error = outcome(call, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert type(actual_error) is type(expected_error)
        # torch's C++ errors may carry a "(Triggered internally at ...)" tail or a dispatcher
        # listing (whose keys differ: refimpl has fewer), so the first line up to it is compared.
        first = str(expected_error).split("\n")[0].split(" is only available for these")[0]
        assert str(actual_error).split("\n")[0].split(" is only available for these")[0] == first
        return
    if isinstance(actual_error, TypeError) and " has no dtype " in str(actual_error):
        pytest.skip(f"the backend under test does not store the dtype: {actual_error}")
    assert actual_error is None, actual_error
    same(expected, actual)


def warnings_of(call: Callable[[Any], Any], lib: Any) -> list[tuple[type[Warning], str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(lib)
        except Exception:  # noqa: BLE001, S110 - an error is allowed: only the warnings matter
            pass
    return [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]


@pytest.fixture
def restore_switches() -> Iterator[None]:
    """The global switches of torch and refimpl as they were before the test."""
    saved = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.get_float32_matmul_precision(),
        torch.is_warn_always_enabled(),
        torch.get_num_threads(),
        torch.is_anomaly_enabled(),
        torch.is_anomaly_check_nan_enabled(),
    )
    saved_refimpl = (
        refimpl.are_deterministic_algorithms_enabled(),
        refimpl.is_deterministic_algorithms_warn_only_enabled(),
        refimpl.get_float32_matmul_precision(),
        refimpl.is_warn_always_enabled(),
        refimpl.get_num_threads(),
        refimpl.is_anomaly_enabled(),
        refimpl.is_anomaly_check_nan_enabled(),
    )
    try:
        yield
    finally:
        for lib, values in ((torch, saved), (refimpl, saved_refimpl)):
            deterministic, warn_only, precision, warn_always, threads, anomaly, nan = values
            lib.use_deterministic_algorithms(deterministic, warn_only=warn_only)
            lib.set_float32_matmul_precision(precision)
            lib.set_warn_always(warn_always)
            lib.set_num_threads(threads)
            lib.set_anomaly_enabled(anomaly, nan)
            lib.set_default_device(None)
        for module in DETERMINISTIC:
            module.fill_uninitialized_memory = True
