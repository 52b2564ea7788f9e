"""`refimpl.random`: torch.random's functions over refimpl's default generators.

Torch: torch/random.py. `default_generator` is the default CPU generator (torch's
torch._C.default_generator, also `torch.default_generator`); the seeding functions seed
every device type's default generator (refimpl/core/random.py DefaultGenerators), the
state functions read and write the CPU one, and `fork_rng` restores the CPU state (and
the named device type's) after its block.
Differs: refimpl keeps one default generator per device type, not one per device index,
so `fork_rng` forks a device type's generator once whatever `devices` lists; a device type
counts one device when its backend loads, none otherwise (torch: device_count()). refimpl
has no DataLoader workers: `thread_safe_generator` returns None, torch's answer outside
thread workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any, Final

from refimpl.api.random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from refimpl.core.config import config
from refimpl.core.random import DEFAULT_GENERATORS, Generator

__all__ = [
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]

# torch: torch._C.default_generator (at::detail::getDefaultCPUGenerator()), the object
# torch.manual_seed returns.
default_generator: Final[Generator] = DEFAULT_GENERATORS.get("cpu")


# Backends that failed to load: a failed import is retried on every call otherwise (ms each).
_UNLOADABLE: set[str] = set()


def _device_count(device_type: str) -> int:
    """1 where `device_type`'s backend loads, else 0 (torch: device_mod.device_count())."""
    name = config.backends.get(device_type)
    if name is None or name in _UNLOADABLE:
        return 0
    try:
        config.backends.resolve(device_type)
    except RuntimeError:
        _UNLOADABLE.add(name)
        return 0
    return 1


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[Any] | None = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Restore the random state on leaving the block. Torch: torch.random.fork_rng.

    The CPU state is always forked; `device_type` (default "cuda", torch's choice without
    an accelerator) is forked for `devices` (default: every device of that type). A "meta"
    device type or `enabled=False` forks nothing. The states are taken (and a device
    type without a backend fails) before the block runs.
    """
    if device_type == "meta" or not enabled:
        yield
        return
    device_type = device_type or "cuda"
    device_list = (
        list(range(_device_count(device_type))) if devices is None else list(devices)
    )
    cpu_rng_state = get_rng_state()
    # One generator per device type: its state once, whatever indices `devices` names.
    device_state = None
    if device_list:
        config.backends.resolve(device_type)  # raises where the type has no backend
        device_state = DEFAULT_GENERATORS.get(device_type).get_state()
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        if device_state is not None:
            DEFAULT_GENERATORS.get(device_type).set_state(device_state)


def thread_safe_generator() -> Generator | None:
    """The generator of the current DataLoader thread worker, or None (the default global
    generator). Torch: torch.random.thread_safe_generator. refimpl has no workers: None."""
    return None
