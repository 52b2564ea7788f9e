"""refimpl's dispatch keys and thread-local defaults against the installed torch.

Names, numeric values and order of DispatchKey; the keys torch's pybind enum omits, checked
through torch._C._dispatch_key_parse; device types; the default included/excluded sets.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import pytest
import torch

from refimpl._base import keys
from refimpl._base.keys import BackendComponent, DispatchKey
from refimpl.dispatch import tls

TK: Final[Any] = torch._C.DispatchKey

# Keys c10 has but torch._C.DispatchKey does not expose (pytorch-semantics.md §1.2); the
# enum marks each with [C++].
NOT_IN_PYBIND: Final = frozenset(
    {
        "FPGA",
        "Vulkan",
        "Metal",
        "CustomRNGKeyId",
        "MkldnnCPU",
        "Fake",
        "Tracer",
        "AutocastMTIA",
        "AutocastMAIA",
        "AutocastXLA",
        "BatchedNestedTensor",
        "Batched",
        "VmapMode",
        "DeferredInit",
        "TESTING_ONLY_GenericWrapper",
        "TESTING_ONLY_GenericMode",
    }
)


def test_every_torch_key_has_the_same_value() -> None:
    for name, value in TK.__members__.items():
        assert name in DispatchKey.__members__, name
        assert int(DispatchKey[name]) == int(value), name


def test_keys_missing_from_pybind_parse_to_the_same_value() -> None:
    extra = set(DispatchKey.__members__) - set(TK.__members__)
    assert extra == NOT_IN_PYBIND
    for name in sorted(extra):
        parsed: Any = torch._C._dispatch_key_parse(name)  # a value pybind has no name for
        assert int(parsed) == int(DispatchKey[name]), name


def test_canonical_names_and_order() -> None:
    # Each value's canonical name (the one repr and dumps print) is torch's toString, except
    # for the StartOf<F>Backends markers, which torch prints as "Undefined" and
    # "<F>Undefined"; those keep their enum names.
    values = [int(key) for key in DispatchKey]
    assert values == sorted(values)
    for key in DispatchKey:
        if key.name.startswith("StartOf"):
            assert TK.__members__[key.name] == TK(int(key))
            continue
        assert torch._C._dispatch_key_name(TK(int(key))) == key.name


def test_key_space_shape() -> None:
    assert len(list(BackendComponent)) - 1 == torch._C._dispatch_num_backends()
    assert keys.NUM_FUNCTIONALITY_KEYS == int(TK.PythonDispatcher) + 1
    assert keys.ALIAS_KEYS == tuple(
        DispatchKey(int(TK.__members__[name]))
        for name in (
            "Autograd",
            "CompositeImplicitAutograd",
            "FuncTorchBatchedDecomposition",
            "CompositeImplicitAutogradNestedTensor",
            "CompositeExplicitAutograd",
            "CompositeExplicitAutogradNonFunctional",
        )
    )
    for key in DispatchKey:
        assert keys.is_alias_key(key) == torch._C._dispatch_is_alias_key(TK(int(key))), key.name


@pytest.mark.parametrize("device_type", sorted(keys.DEVICE_TYPE_BACKEND))
def test_device_type_backend(device_type: str) -> None:
    dense = keys.to_runtime_per_backend_key(
        DispatchKey.Dense, keys.DEVICE_TYPE_BACKEND[device_type]
    )
    assert dense.name == torch._C._dispatch_key_for_device(device_type)


def test_tls_defaults_match_a_fresh_torch_thread() -> None:
    seen: dict[str, tuple[int, int]] = {}

    def read() -> None:
        seen["torch"] = (
            torch._C._dispatch_tls_local_include_set().raw_repr(),
            torch._C._dispatch_tls_local_exclude_set().raw_repr(),
        )
        seen["refimpl"] = (
            tls.tls_local_include_set().raw_repr(),
            tls.tls_local_exclude_set().raw_repr(),
        )

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert seen["refimpl"] == seen["torch"]
    assert repr(tls.tls_local_include_set()) == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
