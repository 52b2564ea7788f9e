"""refimpl's hand-written key enums against spec/dispatch_keys.json (extracted from torch)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from refimpl._base import keys
from refimpl._base.keys import BackendComponent, DispatchKey

SPEC: Final[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[1] / "spec" / "dispatch_keys.json").read_text()
)


def test_backend_components_in_order() -> None:
    assert [b.name for b in BackendComponent] == SPEC["backend_components"]


def test_functionality_keys_in_priority_order() -> None:
    ours = [DispatchKey(value).name for value in range(keys.NUM_FUNCTIONALITY_KEYS)]
    assert ours == SPEC["functionality_keys"]


def test_per_backend_functionalities() -> None:
    assert [k.name for k in keys.PER_BACKEND_START] == SPEC["per_backend_functionality"]


def test_runtime_and_alias_key_values() -> None:
    for section in ("runtime_keys", "alias_keys"):
        for name, value in SPEC[section].items():
            assert int(DispatchKey[name]) == value, name
    listed = set(SPEC["runtime_keys"]) | set(SPEC["alias_keys"]) | set(SPEC["functionality_keys"])
    assert set(DispatchKey.__members__) == listed


def test_tls_defaults() -> None:
    assert [k.name for k in keys.DEFAULT_INCLUDED_SET] == SPEC["tls_default"]["included"]
    assert [k.name for k in keys.DEFAULT_EXCLUDED_SET] == SPEC["tls_default"]["excluded"]
