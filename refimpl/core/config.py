"""refimpl's configuration: which backend serves each device type.

Torch: no counterpart; torch links its backends in. `refimpl.config.backends["cpu"]` names the
plugin that stores CPU tensors. It is read from `REFIMPL_BACKEND_<DEVICE>` environment
variables when refimpl is imported, can be set in code, and for a block with
`refimpl.config.using(cpu="array_api_strict")`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Final

from refimpl._base.device import DEVICE_TYPES
from refimpl.core.backend import REGISTRY, Backend, BackendRegistry

DEFAULT_BACKENDS: Final[Mapping[str, str]] = {"cpu": "numpy", "cuda": "cupy"}
ENV_PREFIX: Final = "REFIMPL_BACKEND_"


class BackendMap(MutableMapping[str, str]):
    """Device type -> backend name, resolving names to backends lazily and caching them."""

    __slots__ = ("_names", "_registry", "_resolved")

    def __init__(self, names: Mapping[str, str], registry: BackendRegistry) -> None:
        self._names: dict[str, str] = dict(names)
        self._resolved: dict[str, Backend] = {}
        self._registry = registry

    def __getitem__(self, device_type: str) -> str:
        return self._names[device_type]

    def __setitem__(self, device_type: str, name: str) -> None:
        # Checked when set (without importing the plugin), so a typo fails here, not at the
        # next tensor.
        if device_type not in DEVICE_TYPES or device_type == "meta":
            raise RuntimeError(
                f"refimpl: cannot configure a backend for device type '{device_type}' "
                f"(meta tensors hold no data; known device types: {', '.join(DEVICE_TYPES)})"
            )
        if name not in self._registry.names():
            raise RuntimeError(
                f"refimpl: no backend named '{name}' is installed (known backends: "
                f"{', '.join(self._registry.names())})"
            )
        self._names[device_type] = name
        self._resolved.pop(device_type, None)

    def __delitem__(self, device_type: str) -> None:
        del self._names[device_type]
        self._resolved.pop(device_type, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(self._names)

    def resolve(self, device_type: str) -> Backend:
        """The backend object serving `device_type` (imported on first use, then cached)."""
        backend = self._resolved.get(device_type)
        if backend is not None:
            return backend
        name = self._names.get(device_type)
        if name is None:
            raise RuntimeError(
                f"refimpl: no backend is configured for device type '{device_type}' "
                f"(configured: {self._names}); set refimpl.config.backends['{device_type}']"
            )
        backend = self._registry.get(name)
        if backend.device_type != device_type:
            raise RuntimeError(
                f"refimpl: backend '{name}' serves device type '{backend.device_type}', "
                f"not '{device_type}'"
            )
        self._resolved[device_type] = backend
        return backend


class Config:
    """refimpl's settings object (`refimpl.config`)."""

    __slots__ = ("backends",)

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        names = dict(DEFAULT_BACKENDS)
        for key, value in (os.environ if environ is None else environ).items():
            if key.startswith(ENV_PREFIX) and value:
                names[key[len(ENV_PREFIX) :].lower()] = value
        self.backends = BackendMap(names, REGISTRY)

    @contextmanager
    def using(self, **backends: str) -> Iterator[Config]:
        """Use other backends for a block: `with refimpl.config.using(cpu="array_api_strict"):`.

        Tensors made inside keep their backend after the block.
        """
        saved = {device_type: self.backends.get(device_type) for device_type in backends}
        try:
            for device_type, name in backends.items():
                self.backends[device_type] = name
            yield self
        finally:
            for device_type, old in saved.items():
                if old is None:
                    self.backends.pop(device_type, None)
                else:
                    self.backends[device_type] = old

    def __repr__(self) -> str:
        return f"refimpl.config(backends={self.backends!r})"


config: Final = Config()
