"""Key-set algebra, printing, priority, FULL_AFTER, alias membership and the TLS guards,
each compared with torch._C.DispatchKeySet / torch._C._dispatch_* on the same inputs.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest

from refimpl._base import keys
from refimpl._base.keys import DispatchKey, DispatchKeySet
from refimpl.dispatch import tls

torch = pytest.importorskip("torch")
TK: Final[Any] = torch._C.DispatchKey
TKS: Final[Any] = torch._C.DispatchKeySet

EVERY_KEY: Final = tuple(DispatchKey)  # aliases like EndOfDenseBackends are not repeated
NON_ALIAS_KEYS: Final = tuple(k for k in EVERY_KEY if not keys.is_alias_key(k))


def torch_key(key: DispatchKey) -> Any:
    return TK(int(key))


def sample_raws(count: int) -> list[int]:
    """Deterministic key sets: sparse random bit patterns plus every single bit."""
    rng = random.Random(0)
    raws = [0, keys.FULL_RAW, keys.BACKEND_MASK, 1 << 16]
    raws += [1 << bit for bit in range(62)]
    for _ in range(count):
        raw = 0
        for _ in range(rng.randint(1, 8)):
            raw |= 1 << rng.randrange(62)
        raws.append(raw)
    return raws


RAWS: Final = sample_raws(400)


# --- construction, raw_repr, repr -----------------------------------------------------------


@pytest.mark.parametrize("key", NON_ALIAS_KEYS + keys.ALIAS_KEYS, ids=lambda k: k.name)
def test_single_key_set_matches_torch(key: DispatchKey) -> None:
    expected = TKS(torch_key(key))
    actual = DispatchKeySet(key)
    assert actual.raw_repr() == expected.raw_repr()
    assert repr(actual) == repr(expected)


def test_repr_and_iteration_match_torch() -> None:
    for raw in RAWS:
        assert repr(DispatchKeySet.from_raw_repr(raw)) == repr(TKS.from_raw_repr(raw)), hex(raw)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_tensor_key_sets_match_torch() -> None:
    cases = {
        ("cpu", DispatchKey.Dense): torch.empty(2),
        ("meta", DispatchKey.Dense): torch.empty(2, device="meta"),
        ("cpu", DispatchKey.Sparse): torch.ones(2).to_sparse(),
        ("cpu", DispatchKey.SparseCsr): torch.ones(2, 2).to_sparse_csr(),
        ("cpu", DispatchKey.Quantized): torch.quantize_per_tensor(
            torch.ones(2), 1.0, 0, torch.qint8
        ),
    }
    for (device, functionality), tensor in cases.items():
        expected = torch._C._dispatch_keys(tensor)
        actual = keys.key_set_for_device(device, functionality)
        assert actual.raw_repr() == expected.raw_repr(), (device, functionality)
    with torch.inference_mode():
        expected = torch._C._dispatch_keys(torch.empty(2))
    assert keys.key_set_for_device("cpu", inference=True).raw_repr() == expected.raw_repr()


def test_cuda_and_nested_key_sets() -> None:
    # No CUDA build here: pytorch-semantics.md §1.4 (getAutogradRelatedKeySetFromBackend and
    # getAutocastRelatedKeySetFromBackend in c10/core/DispatchKeySet.h).
    assert repr(keys.key_set_for_device("cuda")) == (
        "DispatchKeySet(CUDA, ADInplaceOrView, AutogradCUDA, AutocastCUDA)"
    )
    # Verified in §1.4 with torch.nested.nested_tensor.
    assert repr(keys.key_set_for_device("cpu", DispatchKey.NestedTensor)) == (
        "DispatchKeySet(NestedTensorCPU, ADInplaceOrView, AutogradCPU, AutogradNestedTensor, "
        "AutocastCPU)"
    )


def test_python_keys_match_a_wrapper_subclass() -> None:
    class Wrapper(torch.Tensor):  # type: ignore[misc,name-defined]  # torch is Any here
        @staticmethod
        def __new__(cls, elem: Any) -> Any:
            return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        @classmethod
        def __torch_dispatch__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            return NotImplemented

    expected = torch._C._dispatch_keys(Wrapper(torch.empty(2)))
    actual = keys.with_python_keys(keys.key_set_for_device("cpu"))
    assert actual.raw_repr() == expected.raw_repr()


# --- algebra --------------------------------------------------------------------------------


BINARY: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "or": lambda a, b: a | b,
    "and": lambda a, b: a & b,
    "sub": lambda a, b: a - b,
}


@pytest.mark.parametrize("op", list(BINARY), ids=list(BINARY))
def test_binary_operators_match_torch(op: str) -> None:
    rng = random.Random(1)
    for _ in range(500):
        a, b = rng.choice(RAWS), rng.choice(RAWS)
        expected = BINARY[op](TKS.from_raw_repr(a), TKS.from_raw_repr(b)).raw_repr()
        actual = BINARY[op](DispatchKeySet.from_raw_repr(a), DispatchKeySet.from_raw_repr(b))
        assert actual.raw_repr() == expected, (op, hex(a), hex(b))


def test_add_remove_has_match_torch() -> None:
    rng = random.Random(2)
    for raw in rng.sample(RAWS, 60):
        theirs, ours = TKS.from_raw_repr(raw), DispatchKeySet.from_raw_repr(raw)
        for key in NON_ALIAS_KEYS:
            tkey = torch_key(key)
            assert ours.add(key).raw_repr() == theirs.add(tkey).raw_repr()
            assert ours.remove(key).raw_repr() == theirs.remove(tkey).raw_repr()
            if key != DispatchKey.Undefined:  # torch asserts in debug builds
                assert ours.has(key) == theirs.has(tkey), (hex(raw), key.name)


def test_remove_keeps_backend_bits() -> None:
    # pytorch-semantics.md §1.1: ks.remove(CPU) on a CPU tensor keeps the CPU bit.
    cpu = keys.key_set_for_device("cpu")
    expected = torch._C._dispatch_keys(torch.empty(2)).remove(TK.CPU)
    assert cpu.remove(DispatchKey.CPU).raw_repr() == expected.raw_repr()
    assert repr(cpu.remove(DispatchKey.CPU)) == (
        "DispatchKeySet(ADInplaceOrView, AutogradCPU, AutocastCPU)"
    )


def test_has_all_has_any() -> None:
    cpu = keys.key_set_for_device("cpu")
    assert cpu.has_all(DispatchKeySet([DispatchKey.CPU, DispatchKey.AutogradCPU]))
    assert not cpu.has_all(DispatchKeySet([DispatchKey.CPU, DispatchKey.Python]))
    assert cpu.has_any(keys.AUTOGRAD_KEYS)
    assert not cpu.has_any(keys.PYTHON_KEYS)
    assert DispatchKeySet() == DispatchKeySet.from_raw_repr(0)
    assert hash(cpu) == hash(keys.key_set_for_device("cpu"))


# --- priority -------------------------------------------------------------------------------


def test_highest_priority_type_id_matches_torch() -> None:
    for raw in RAWS:
        expected = int(TKS.from_raw_repr(raw).highestPriorityTypeId())
        ours = DispatchKeySet.from_raw_repr(raw)
        assert int(ours.highest_priority_type_id()) == expected, hex(raw)
        assert ours.highestPriorityTypeId() == ours.highest_priority_type_id()


def test_meta_beats_cpu() -> None:
    both = keys.key_set_for_device("cpu") | keys.key_set_for_device("meta")
    mixed = both - keys.DEFAULT_EXCLUDED_SET
    assert mixed.highest_priority_type_id() == DispatchKey.AutogradMeta
    below = mixed & keys.AFTER_AD_INPLACE_OR_VIEW
    assert below.highest_priority_type_id() == DispatchKey.Meta


def test_slots_follow_torch_full_set_order() -> None:
    # torch: DispatchKeySet(FULL) iterates the runtime keys in dispatch-table order.
    names = repr(torch._C._dispatch_keyset_full()).removeprefix("DispatchKeySet(")[:-1]
    assert [k.name for k in keys.SLOT_KEYS] == ["Undefined", *names.split(", ")]
    assert keys.NUM_SLOTS == 137  # torch: num_runtime_entries


def test_highest_priority_index_selects_the_highest_key() -> None:
    for raw in RAWS:
        ks = DispatchKeySet.from_raw_repr(raw)
        slot_key = keys.SLOT_KEYS[keys.highest_priority_index(raw)]
        functionality = ks.highest_functionality_key()
        if keys.is_per_backend_functionality_key(functionality) and not raw & keys.BACKEND_MASK:
            # torch's table index falls on the functionality's CPU slot without a backend bit.
            expected = keys.to_runtime_per_backend_key(functionality, keys.BackendComponent.CPUBit)
        else:
            expected = ks.highest_priority_type_id()
        assert slot_key == expected, hex(raw)


def test_full_and_full_after_match_torch() -> None:
    assert keys.FULL.raw_repr() == torch._C._dispatch_keyset_full().raw_repr()
    for key in EVERY_KEY:
        expected = torch._C._dispatch_keyset_full_after(torch_key(key)).raw_repr()
        assert keys.full_after(key).raw_repr() == expected, key.name
    after_autograd = torch._C._dispatch_keyset_full_after(TK.AutogradOther).raw_repr()
    assert keys.AFTER_AUTOGRAD.raw_repr() == after_autograd


# --- alias keys -----------------------------------------------------------------------------


@pytest.mark.parametrize("alias", keys.ALIAS_KEYS, ids=lambda k: k.name)
def test_alias_membership_matches_torch(alias: DispatchKey) -> None:
    for key in EVERY_KEY:
        expected = torch._C._dispatch_is_included_in_alias(torch_key(key), torch_key(alias))
        assert keys.is_included_in_alias(key, alias) == expected, (key.name, alias.name)


def test_non_alias_membership_is_equality() -> None:
    for key, other in [(DispatchKey.CPU, DispatchKey.CPU), (DispatchKey.CPU, DispatchKey.Python)]:
        expected = torch._C._dispatch_is_included_in_alias(torch_key(key), torch_key(other))
        assert keys.is_included_in_alias(key, other) == expected


def test_backend_key_set_from_autograd_matches_torch() -> None:
    for key in EVERY_KEY:
        expected = torch._C._dispatch_get_backend_keyset_from_autograd(torch_key(key))
        assert keys.backend_key_set_from_autograd(key).raw_repr() == expected.raw_repr(), key.name
    autograd_other_backends = torch._C._dispatch_autogradother_backends.raw_repr()
    assert keys.AUTOGRAD_OTHER_BACKENDS.raw_repr() == autograd_other_backends


# --- thread-local include/exclude sets and guards ------------------------------------------


def both_tls() -> tuple[tuple[int, int], tuple[int, int]]:
    theirs = (
        torch._C._dispatch_tls_local_include_set().raw_repr(),
        torch._C._dispatch_tls_local_exclude_set().raw_repr(),
    )
    ours = (tls.tls_local_include_set().raw_repr(), tls.tls_local_exclude_set().raw_repr())
    return theirs, ours


def assert_same_tls() -> None:
    theirs, ours = both_tls()
    assert ours == theirs, ([hex(x) for x in ours], [hex(x) for x in theirs])


def test_tls_defaults_match_torch() -> None:
    assert_same_tls()


def test_guards_match_torch() -> None:
    k = DispatchKey
    with torch._C._IncludeDispatchKeyGuard(TK.Python), tls.IncludeDispatchKeyGuard(k.Python):
        assert_same_tls()
        with torch._C._IncludeDispatchKeyGuard(TK.CPU), tls.IncludeDispatchKeyGuard(k.CPU):
            assert_same_tls()
        assert_same_tls()
    assert_same_tls()
    torch_autograd_cpu = TKS(TK.AutogradCPU)
    with (
        torch._C._ExcludeDispatchKeyGuard(torch_autograd_cpu),
        tls.ExcludeDispatchKeyGuard(DispatchKeySet(k.AutogradCPU)),
    ):
        assert_same_tls()
    assert_same_tls()
    with torch._C._AutoDispatchBelowAutograd(), tls.AutoDispatchBelowAutograd():
        assert_same_tls()
        with torch._C._AutoDispatchBelowADInplaceOrView(), tls.AutoDispatchBelowADInplaceOrView():
            assert_same_tls()
        assert_same_tls()
    assert_same_tls()
    forced = (TKS(TK.Python), TKS(TK.Conjugate))
    ours_forced = (DispatchKeySet(k.Python), DispatchKeySet(k.Conjugate))
    with torch._C._ForceDispatchKeyGuard(*forced), tls.ForceDispatchKeyGuard(*ours_forced):
        assert_same_tls()
    assert_same_tls()


def test_guards_restore_changes_made_inside() -> None:
    # See Note [Dispatch key guards restore the saved set] in refimpl/dispatch/tls.py.
    with (
        torch._C._ExcludeDispatchKeyGuard(TKS(TK.Python)),
        tls.ExcludeDispatchKeyGuard(DispatchKeySet(DispatchKey.Python)),
    ):
        torch._C._dispatch_tls_set_dispatch_key_excluded(TK.Negative, True)
        tls.tls_set_dispatch_key_excluded(DispatchKey.Negative, True)
        torch._C._dispatch_tls_set_dispatch_key_excluded(TK.Python, False)
        tls.tls_set_dispatch_key_excluded(DispatchKey.Python, False)
        assert_same_tls()
    assert_same_tls()
    with (
        torch._C._IncludeDispatchKeyGuard(TK.BackendSelect),
        tls.IncludeDispatchKeyGuard(DispatchKey.BackendSelect),
    ):
        torch._C._dispatch_tls_set_dispatch_key_included(TK.BackendSelect, False)
        tls.tls_set_dispatch_key_included(DispatchKey.BackendSelect, False)
        assert_same_tls()
    assert_same_tls()


@contextlib.contextmanager
def isolated_tls() -> Iterator[None]:
    """Restore both libraries' sets afterwards, lingering backend bits included."""
    with (
        torch._C._ForceDispatchKeyGuard(
            torch._C._dispatch_tls_local_include_set(), torch._C._dispatch_tls_local_exclude_set()
        ),
        tls.ForceDispatchKeyGuard(tls.tls_local_include_set(), tls.tls_local_exclude_set()),
    ):
        yield


@pytest.mark.parametrize("key", [DispatchKey.AutogradCPU, DispatchKey.Python, DispatchKey.CPU])
def test_set_and_query_match_torch(key: DispatchKey) -> None:
    tkey = torch_key(key)
    with isolated_tls():
        for state in (True, True, False, False):
            torch._C._dispatch_tls_set_dispatch_key_excluded(tkey, state)
            tls.tls_set_dispatch_key_excluded(key, state)
            torch._C._dispatch_tls_set_dispatch_key_included(tkey, state)
            tls.tls_set_dispatch_key_included(key, state)
            # Removing a per-backend key leaves its backend bit behind, in both.
            assert_same_tls()
            assert tls.tls_is_dispatch_key_excluded(key) == (
                torch._C._dispatch_tls_is_dispatch_key_excluded(tkey)
            )
            assert tls.tls_is_dispatch_key_included(key) == (
                torch._C._dispatch_tls_is_dispatch_key_included(tkey)
            )
    assert_same_tls()


def test_tls_is_per_thread() -> None:
    seen: list[tuple[int, int]] = []

    def read() -> None:
        seen.append((tls.DISPATCH_TLS.included_raw, tls.DISPATCH_TLS.excluded_raw))

    with tls.IncludeDispatchKeyGuard(DispatchKey.Python):
        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
    assert seen == [(keys.DEFAULT_INCLUDED_SET.raw, keys.DEFAULT_EXCLUDED_SET.raw)]
