"""The torch.* functions that read and set process-wide switches: threads, deterministic
algorithms, float32 matmul precision, warn-always, denormals, anomaly detection, and the
build facts torch reports (C++11 ABI, Vulkan, its file path).

Torch: torch/__init__.py (use_deterministic_algorithms, set_deterministic_debug_mode,
set_float32_matmul_precision, set_warn_always, compiled_with_cxx11_abi) over the bindings of
torch/csrc/Module.cpp (THPModule_setNumThreads, setDeterministicAlgorithms, setFlushDenormal,
setWarnAlways, ...), which set at::Context (refimpl/_base/context.py); the anomaly switches
are torch/csrc/autograd/init.cpp's, over AnomalyMode (refimpl/autograd/anomaly_mode.py).

Note [Switches refimpl keeps but cannot honour]
refimpl computes on one thread of the array library, so the thread counts are state only;
the float32 matmul precision is state only too (torch's CPU matmul ignores it as well unless
oneDNN's bf16 paths are on, which refimpl does not have). Deterministic algorithms are
honoured where torch's CPU kernels alert (put_ without accumulate, ops/gather_scatter.py).
Denormals cannot be flushed by an Array API library, so set_flush_denormal(True) reports
that it is not supported (False), as torch does on a CPU without the flags.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Final

from refimpl._base.context import CONTEXT
from refimpl.autograd import anomaly_mode

__all__ = [
    "are_deterministic_algorithms_enabled",
    "compiled_with_cxx11_abi",
    "get_deterministic_debug_mode",
    "get_file_path",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "init_num_threads",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_vulkan_available",
    "is_warn_always_enabled",
    "set_anomaly_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_flush_denormal",
    "set_num_interop_threads",
    "set_num_threads",
    "set_warn_always",
    "use_deterministic_algorithms",
]


def _type_name(value: object) -> str:
    return type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- threads -------------------------------------------------------------------------------


def get_num_threads() -> int:
    """The number of threads used for intra-op parallelism. Torch: torch.get_num_threads.
    See Note [Switches refimpl keeps but cannot honour]."""
    return CONTEXT.num_threads


def set_num_threads(int: Any) -> None:  # torch's parameter name
    """Set the number of intra-op threads. Torch: torch.set_num_threads
    (THPModule_setNumThreads)."""
    if not _is_int(int):
        raise RuntimeError(f"set_num_threads expects an int, but got {_type_name(int)}")
    if int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    CONTEXT.num_threads = int


def get_num_interop_threads() -> int:
    """The number of inter-op threads. Torch: torch.get_num_interop_threads."""
    return CONTEXT.num_interop_threads


def set_num_interop_threads(int: Any) -> None:  # torch's parameter name
    """Set the number of inter-op threads, once. Torch: torch.set_num_interop_threads
    (at::set_num_interop_threads: refused once set, or once parallel work started, which
    refimpl never starts)."""
    if not _is_int(int):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {_type_name(int)}")
    if int <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if CONTEXT.interop_threads_set:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    CONTEXT.interop_threads_set = True
    CONTEXT.num_interop_threads = int


def init_num_threads() -> None:
    """Initialize the thread pool of this thread: nothing to do in refimpl. Torch:
    torch.init_num_threads (at::init_num_threads)."""


# --- deterministic algorithms --------------------------------------------------------------


def use_deterministic_algorithms(mode: Any, *, warn_only: Any = False) -> None:
    """Make the ops that have no deterministic implementation raise (or warn, with
    `warn_only`). Torch: torch.use_deterministic_algorithms (_set_deterministic_algorithms)."""
    for name, value, position in (("mode", mode, " (position 1)"), ("warn_only", warn_only, "")):
        if not isinstance(value, bool):
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{name}'{position} must be bool, "
                f"not {_type_name(value)}"
            )
    CONTEXT.deterministic = mode
    CONTEXT.deterministic_warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Torch: torch.are_deterministic_algorithms_enabled."""
    return CONTEXT.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Torch: torch.is_deterministic_algorithms_warn_only_enabled."""
    return CONTEXT.deterministic_warn_only


# torch: the debug modes 0, 1, 2 and their names.
_DEBUG_MODES: Final = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    """The deterministic switches as one mode: 0 "default" (off), 1 "warn" (warn only),
    2 "error". Torch: torch.set_deterministic_debug_mode."""
    if not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    CONTEXT.deterministic = debug_mode != 0
    CONTEXT.deterministic_warn_only = debug_mode == 1


def get_deterministic_debug_mode() -> int:
    """Torch: torch.get_deterministic_debug_mode."""
    if not CONTEXT.deterministic:
        return 0
    return 1 if CONTEXT.deterministic_warn_only else 2


# --- float32 matmul precision --------------------------------------------------------------

_PRECISIONS: Final = ("highest", "high", "medium")


def get_float32_matmul_precision() -> str:
    """Torch: torch.get_float32_matmul_precision. See Note [Switches refimpl keeps but
    cannot honour]."""
    return CONTEXT.float32_matmul_precision


def set_float32_matmul_precision(precision: Any) -> None:
    """Set the internal precision of float32 matrix products; an unknown name only warns.
    Torch: torch.set_float32_matmul_precision (Context::setFloat32MatmulPrecision)."""
    if not isinstance(precision, str):
        raise RuntimeError(  # noqa: TRY004 - torch's type
            f"set_float32_matmul_precision expects a str, but got {_type_name(precision)}"
        )
    if precision not in _PRECISIONS:
        # Differs: torch appends " (Triggered internally at ...Context.cpp...)".
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    CONTEXT.float32_matmul_precision = precision


# --- warnings ------------------------------------------------------------------------------


def set_warn_always(b: Any) -> None:
    """Make the warnings torch gives once per process (TORCH_WARN_ONCE) always warn.
    Torch: torch.set_warn_always (THPModule_setWarnAlways)."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {_type_name(b)}")  # noqa: TRY004 - torch's type
    CONTEXT.warn_always = b


def is_warn_always_enabled() -> bool:
    """Torch: torch.is_warn_always_enabled."""
    return CONTEXT.warn_always


# --- denormals -----------------------------------------------------------------------------


def set_flush_denormal(mode: Any) -> bool:
    """Whether denormal flushing could be set as asked: turning it off always succeeds,
    turning it on is not supported (see Note [Switches refimpl keeps but cannot honour]).
    Torch: torch.set_flush_denormal (at::globalContext().setFlushDenormal)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {_type_name(mode)}")  # noqa: TRY004 - torch's type
    # Differs: torch returns True for both on a CPU with SSE3 (it sets the FTZ/DAZ flags).
    return not mode


# --- anomaly detection ---------------------------------------------------------------------


def is_anomaly_enabled() -> bool:
    """Whether autograd's anomaly detection is on. Torch: torch.is_anomaly_enabled."""
    return anomaly_mode.is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward outputs for NaN. Torch:
    torch.is_anomaly_check_nan_enabled."""
    return anomaly_mode.is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled: Any, check_nan: Any = True) -> None:
    """Turn anomaly detection on or off. Torch: torch.set_anomaly_enabled (what
    torch.autograd.set_detect_anomaly calls)."""
    for name, value, position in (("enabled", enabled, 1), ("check_nan", check_nan, 2)):
        if not isinstance(value, bool):
            raise TypeError(
                f"set_anomaly_enabled(): argument '{name}' (position {position}) must be bool, "
                f"not {_type_name(value)}"
            )
    anomaly_mode.set_anomaly_enabled(enabled, check_nan)


# --- build facts ---------------------------------------------------------------------------


def compiled_with_cxx11_abi() -> bool:
    """Torch: torch.compiled_with_cxx11_abi: True for torch 2.13's builds (refimpl has no C++;
    it reports the torch release it follows)."""
    return True


def is_vulkan_available(*args: Any, **kwargs: Any) -> bool:
    """Torch: torch.is_vulkan_available: False (refimpl has no Vulkan backend; torch's
    binding ignores its arguments)."""
    return False


def get_file_path(*path_components: str) -> str:
    """A path under the directory that holds the package. Torch:
    torch._utils_internal.get_file_path (the directory above torch/)."""
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    return os.path.join(package_parent, *path_components)
