"""Anomaly detection: whether backward checks each node's gradients for NaN.

Torch: torch/autograd/anomaly_mode.py (detect_anomaly, set_detect_anomaly) over
torch/csrc/autograd/anomaly_mode.h (AnomalyMode's thread-local flags) and the NaN check of
call_function in torch/csrc/autograd/engine.cpp (`check_nan_outputs` here, which the engine
calls after each node runs while the mode is on).

Differs: torch also records each node's forward traceback while the mode is on and prints it
when backward fails; refimpl records none.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from refimpl.autograd.grad_mode import no_grad
from refimpl.autograd.graph import Node
from refimpl.core.tensor import TensorImpl
from refimpl.ops import aten

__all__ = [
    "ANOMALY",
    "check_nan_outputs",
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]


class _AnomalyState(threading.local):
    """Torch: AnomalyMode's flags (`_enabled`, `_check_nan`)."""

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


ANOMALY = _AnomalyState()


def is_anomaly_enabled() -> bool:
    """Torch: torch.is_anomaly_enabled."""
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Torch: torch.is_anomaly_check_nan_enabled."""
    return ANOMALY.check_nan


def _set(enabled: bool, check_nan: bool) -> None:
    ANOMALY.enabled = enabled
    ANOMALY.check_nan = check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Torch: torch.set_anomaly_enabled (AnomalyMode::set_enabled)."""
    _set(enabled, check_nan)


class detect_anomaly:
    """Anomaly detection on in the block (with a warning that it is slow).

    Torch: torch.autograd.detect_anomaly.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.check_nan = check_nan
        self.prev_check_nan = ANOMALY.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection now (a call) or for a block (a context manager).

    Torch: torch.autograd.set_detect_anomaly.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.prev_check_nan = ANOMALY.check_nan
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _set(self.prev, self.prev_check_nan)


def check_nan_outputs(node: Node, outputs: Sequence[Any]) -> None:
    """Raise if a gradient `node` returned holds NaN, while anomaly mode checks NaN.

    Torch: the AnomalyMode check of call_function in engine.cpp. The engine calls this after
    each node runs.
    """
    if not (ANOMALY.enabled and ANOMALY.check_nan):
        return
    with no_grad():
        for i, output in enumerate(outputs):
            if not isinstance(output, TensorImpl):
                continue
            if aten._local_scalar_dense.default(aten.any.default(aten.isnan.default(output))):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
