"""Random number generators: `refimpl.Generator` and the default generator per device type.

Torch: torch.Generator (c10/core/GeneratorImpl.h; CPUGeneratorImpl, CUDAGeneratorImpl).
Differs: refimpl's distributions are torch's (uniform [0, 1), standard normal, integers in
[low, high), permutations), but the bits come from the backend library's own generator
(NumPy's PCG64, CuPy's), so the same seed gives different numbers than torch.
"""

from __future__ import annotations

import pickle
import secrets
from typing import Any, Final

from refimpl._base.device import as_device, device
from refimpl._base.dtypes import uint8
from refimpl.core.backend import REGISTRY, Backend, RandomSource
from refimpl.core.config import config
from refimpl.core.tensor import TensorImpl, backend_dtype, from_array

# torch: default_rng_seed_val in c10/core/GeneratorImpl.h.
DEFAULT_SEED: Final = 67280421310721


class Generator:
    """A seeded random state for one device. Torch: torch.Generator.

    Differs: same distributions as torch, not the same bit stream (see the module docstring).
    """

    __slots__ = ("_device", "_seed", "_sources")

    def __init__(self, device: device | str = "cpu") -> None:
        self._device = as_device(device)
        self._seed = DEFAULT_SEED
        self._sources: dict[str, RandomSource] = {}

    @property
    def device(self) -> device:
        return self._device

    def manual_seed(self, seed: int) -> Generator:
        """Reset the state from `seed`. Torch: Generator.manual_seed (negative seeds wrap)."""
        seed = int(seed)
        if seed < -(1 << 63) or seed >= (1 << 64):
            raise RuntimeError("Overflow when unpacking long long")
        self._seed = seed % (1 << 64)
        self._sources.clear()
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the seed. Torch: Generator.seed."""
        self.manual_seed(secrets.randbits(63))
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def source(self, backend: Backend) -> RandomSource:
        """The random source for `backend`, created from the seed on first use."""
        source = self._sources.get(backend.name)
        if source is None:
            source = backend.random(self._seed)
            self._sources[backend.name] = source
        return source

    def get_state(self) -> Any:
        """The whole state as a uint8 CPU tensor. Torch: Generator.get_state.

        Differs: the bytes are refimpl's (the seed and each backend generator's state), not
        torch's Philox/mt19937 state.
        """
        backend = config.backends.resolve("cpu")
        state = pickle.dumps(
            (self._seed, {name: s.get_state() for name, s in self._sources.items()})
        )
        array = backend.xp.asarray(list(state), dtype=backend_dtype(backend, uint8))
        return from_array(array, uint8, backend, device("cpu"))

    def set_state(self, new_state: object) -> Generator:
        """Restore a state from `get_state`. Torch: Generator.set_state."""
        if not isinstance(new_state, TensorImpl):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        seed, sources = pickle.loads(bytes(new_state.tolist()))
        self._seed = seed
        self._sources.clear()
        for name, source_state in sources.items():
            source = REGISTRY.get(name).random(seed)
            source.set_state(source_state)
            self._sources[name] = source
        return self

    def __repr__(self) -> str:
        return f"<refimpl.Generator object on {self._device}>"


class DefaultGenerators:
    """One default generator per device type. Torch: at::detail::getDefaultCPUGenerator etc."""

    __slots__ = ("_by_device", "_seed")

    def __init__(self) -> None:
        self._by_device: dict[str, Generator] = {}
        self._seed = DEFAULT_SEED

    def get(self, device_type: str) -> Generator:
        generator = self._by_device.get(device_type)
        if generator is None:
            generator = Generator(device_type).manual_seed(self._seed)
            self._by_device[device_type] = generator
        return generator

    def manual_seed(self, seed: int) -> None:
        """Seed every default generator, current and future. Torch: torch.manual_seed."""
        self._seed = int(seed) % (1 << 64)
        self.get("cpu")
        for generator in self._by_device.values():
            generator.manual_seed(seed)

    def reseed_all(self) -> int:
        seed = secrets.randbits(63)
        self.manual_seed(seed)
        return seed


DEFAULT_GENERATORS: Final = DefaultGenerators()
