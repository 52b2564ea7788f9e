"""The process-wide switches torch keeps in its global context: threads, deterministic
algorithms, float32 matmul precision, warn-always, denormal flushing.

Torch: at::Context (aten/src/ATen/Context.h and Context.cpp), the object
at::globalContext() returns, and c10's WarningUtils (the warn-always flag that
TORCH_WARN_ONCE reads). One object holds them, as torch's does; every layer may read it,
the torch API (api/global_switches.py) sets it.
"""

from __future__ import annotations

import os
import warnings
from typing import Final


class GlobalContext:
    """The switches of at::Context that refimpl keeps. Torch: at::Context."""

    __slots__ = (
        "deterministic",
        "deterministic_warn_only",
        "fill_uninitialized_memory",
        "float32_matmul_precision",
        "interop_threads_set",
        "num_interop_threads",
        "num_threads",
        "warn_always",
        "warned_once",
    )

    def __init__(self) -> None:
        # torch: intra-op threads default to the CPUs the process may run on (OpenMP's
        # default); inter-op threads likewise until set, and they can be set only once.
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.num_threads: int = cpus or 1
        self.num_interop_threads: int = cpus or 1
        self.interop_threads_set = False
        self.deterministic = False
        self.deterministic_warn_only = False
        # torch: torch.utils.deterministic.fill_uninitialized_memory (on by default).
        self.fill_uninitialized_memory = True
        self.float32_matmul_precision = "highest"
        self.warn_always = False
        # The TORCH_WARN_ONCE sites that have warned (torch: one static flag per site).
        self.warned_once: set[str] = set()


CONTEXT: Final = GlobalContext()


def alert_not_deterministic(caller: str) -> None:
    """Raise (or warn, with warn_only) that `caller` has no deterministic implementation,
    when deterministic algorithms are on. Torch: Context::alertNotDeterministic."""
    if not CONTEXT.deterministic:
        return
    if CONTEXT.deterministic_warn_only:
        warnings.warn(
            f"{caller} does not have a deterministic implementation, but you set "
            "'torch.use_deterministic_algorithms(True, warn_only=True)'. You can file an issue "
            "at https://github.com/pytorch/pytorch/issues to help us prioritize adding "
            "deterministic support for this operation.",
            UserWarning,
            stacklevel=4,
        )
        return
    raise RuntimeError(
        f"{caller} does not have a deterministic implementation, but you set "
        "'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for "
        "this operation, or you can use the 'warn_only=True' option, if that's acceptable for "
        "your application. You can also file an issue at "
        "https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic "
        "support for this operation."
    )


def should_warn_once(site: str) -> bool:
    """Whether a TORCH_WARN_ONCE at `site` warns now: the first time, or always while
    torch.set_warn_always(True) is on. Torch: TORCH_WARN_ONCE (c10/util/Exception.h)."""
    if CONTEXT.warn_always:
        return True
    if site in CONTEXT.warned_once:
        return False
    CONTEXT.warned_once.add(site)
    return True
