"""Dispatch keys, their priority order, and key sets.

Torch: c10/core/DispatchKey.h and c10/core/DispatchKeySet.h (torch._C.DispatchKey,
torch._C.DispatchKeySet). This module lives in `_base` because a tensor caches its key set
when it is built, and the tensor core sits below the dispatcher. See Note [Key set bit
layout] and Note [Dispatch table slots].
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Final

# Note [Key set bit layout]
# A key set is one int. Backend component b (CPUBit=1 .. MetaBit=16) is bit b-1; functionality
# key f (Dense=1 .. PythonDispatcher=46) is bit NUM_BACKENDS+f-1. A per-backend runtime key
# such as AutogradCPU has no bit of its own: it is functionality bit AutogradFunctionality plus
# backend bit CPU. This is torch's layout, so DispatchKeySet.raw_repr() equals torch's, and the
# highest functionality bit is the highest-priority functionality (int.bit_length()).


class BackendComponent(enum.IntEnum):
    """The backend bits of a key set, in ascending priority.

    Torch: c10::BackendComponent (c10/core/DispatchKey.h). Bit `b - 1` of a key set.
    """

    InvalidBit = 0  # no backend; what a key set without backend bits reports
    CPUBit = 1
    CUDABit = 2
    HIPBit = 3
    XLABit = 4
    MPSBit = 5
    IPUBit = 6
    XPUBit = 7
    HPUBit = 8
    VEBit = 9
    LazyBit = 10
    MTIABit = 11
    MAIABit = 12
    PrivateUse1Bit = 13
    PrivateUse2Bit = 14
    PrivateUse3Bit = 15
    MetaBit = 16  # highest: a call mixing CPU and meta tensors runs the Meta kernel
    EndOfBackendKeys = 16  # alias of MetaBit, as in torch

    __str__ = enum.Enum.__str__


class DispatchKey(enum.IntEnum):
    """Every dispatch key, by value: functionality keys in ascending priority, then the
    per-backend runtime keys, then the alias keys.

    Torch: c10::DispatchKey (torch._C.DispatchKey). Values are torch's. Keys marked `[C++]`
    exist in c10 but not in the pybind enum (torch._C._dispatch_key_parse knows them).
    """

    # --- functionality keys (one key-set bit each), lowest priority first ------------------
    Undefined = 0  # no bit; the table slot used when the key set is empty
    Dense = 1  # per-backend building block -> CPU, CUDA, ..., Meta
    FPGA = 2  # [C++] non-customizable backend (autograd: AutogradOther)
    Vulkan = 3  # [C++] non-customizable backend
    Metal = 4  # [C++] non-customizable backend
    Quantized = 5  # per-backend building block -> QuantizedCPU, ...
    CustomRNGKeyId = 6  # [C++] custom generators
    MkldnnCPU = 7  # [C++] mkldnn tensors
    Sparse = 8  # per-backend building block -> SparseCPU, ...
    SparseCsr = 9  # per-backend building block -> SparseCsrCPU, ...
    NestedTensor = 10  # per-backend building block -> NestedTensorCPU, ...
    BackendSelect = 11  # factory ops with no tensor args pick their backend here
    Fake = 12  # [C++] C++ FakeTensor key (below Python so Python modes fire first)
    Python = 13  # __torch_dispatch__: tensor subclasses and TorchDispatchModes
    FuncTorchDynamicLayerBackMode = 14  # functorch back
    Functionalize = 15  # FunctionalTensorWrapper
    Conjugate = 16  # lazy conjugation bit
    Negative = 17  # lazy negation bit
    ZeroTensor = 18  # _efficientzerotensor tensors
    ADInplaceOrView = 19  # version counter bumps and view bookkeeping
    AutogradOther = 20  # autograd for backends without their own autograd key
    AutogradFunctionality = 21  # per-backend building block -> AutogradCPU, ...
    AutogradNestedTensor = 22  # autograd for nested tensors
    Tracer = 23  # [C++] TorchScript tracer
    AutocastCPU = 24
    AutocastMTIA = 25  # [C++]
    AutocastMAIA = 26  # [C++]
    AutocastXPU = 27
    AutocastIPU = 28
    AutocastHPU = 29
    AutocastXLA = 30  # [C++]
    AutocastMPS = 31
    AutocastCUDA = 32
    AutocastPrivateUse1 = 33
    FuncTorchBatched = 34  # vmap
    BatchedNestedTensor = 35  # [C++]
    FuncTorchVmapMode = 36
    Batched = 37  # [C++] legacy vmap
    VmapMode = 38  # [C++] legacy vmap
    FuncTorchGradWrapper = 39
    DeferredInit = 40  # [C++] torchdistx
    PythonTLSSnapshot = 41  # snapshots Python TLS on entry, then redispatches
    FuncTorchDynamicLayerFrontMode = 42  # functorch front
    TESTING_ONLY_GenericWrapper = 43  # [C++]
    TESTING_ONLY_GenericMode = 44  # [C++]
    PreDispatch = 45  # make_fx(pre_dispatch=True)
    PythonDispatcher = 46  # highest: torch._C._EnablePythonDispatcher routes calls to Python

    # --- per-backend runtime keys: Dense x backend ----------------------------------------
    StartOfDenseBackends = 48  # marker: Dense with no backend bit
    CPU = 49
    CUDA = 50
    HIP = 51
    XLA = 52
    MPS = 53
    IPU = 54
    XPU = 55
    HPU = 56
    VE = 57
    Lazy = 58
    MTIA = 59
    MAIA = 60
    PrivateUse1 = 61
    PrivateUse2 = 62
    PrivateUse3 = 63
    Meta = 64
    EndOfDenseBackends = 64  # alias of Meta

    # --- Quantized x backend --------------------------------------------------------------
    StartOfQuantizedBackends = 65  # marker
    QuantizedCPU = 66
    QuantizedCUDA = 67
    QuantizedHIP = 68
    QuantizedXLA = 69
    QuantizedMPS = 70
    QuantizedIPU = 71
    QuantizedXPU = 72
    QuantizedHPU = 73
    QuantizedVE = 74
    QuantizedLazy = 75
    QuantizedMTIA = 76
    QuantizedMAIA = 77
    QuantizedPrivateUse1 = 78
    QuantizedPrivateUse2 = 79
    QuantizedPrivateUse3 = 80
    QuantizedMeta = 81
    EndOfQuantizedBackends = 81  # alias of QuantizedMeta

    # --- Sparse x backend -----------------------------------------------------------------
    StartOfSparseBackends = 82  # marker
    SparseCPU = 83
    SparseCUDA = 84
    SparseHIP = 85
    SparseXLA = 86
    SparseMPS = 87
    SparseIPU = 88
    SparseXPU = 89
    SparseHPU = 90
    SparseVE = 91
    SparseLazy = 92
    SparseMTIA = 93
    SparseMAIA = 94
    SparsePrivateUse1 = 95
    SparsePrivateUse2 = 96
    SparsePrivateUse3 = 97
    SparseMeta = 98
    EndOfSparseBackends = 98  # alias of SparseMeta

    # --- SparseCsr x backend --------------------------------------------------------------
    StartOfSparseCsrBackends = 99  # marker
    SparseCsrCPU = 100
    SparseCsrCUDA = 101
    SparseCsrHIP = 102
    SparseCsrXLA = 103
    SparseCsrMPS = 104
    SparseCsrIPU = 105
    SparseCsrXPU = 106
    SparseCsrHPU = 107
    SparseCsrVE = 108
    SparseCsrLazy = 109
    SparseCsrMTIA = 110
    SparseCsrMAIA = 111
    SparseCsrPrivateUse1 = 112
    SparseCsrPrivateUse2 = 113
    SparseCsrPrivateUse3 = 114
    SparseCsrMeta = 115
    EndOfSparseCsrBackends = 115  # alias of SparseCsrMeta

    # --- NestedTensor x backend -----------------------------------------------------------
    StartOfNestedTensorBackends = 116  # marker
    NestedTensorCPU = 117
    NestedTensorCUDA = 118
    NestedTensorHIP = 119
    NestedTensorXLA = 120
    NestedTensorMPS = 121
    NestedTensorIPU = 122
    NestedTensorXPU = 123
    NestedTensorHPU = 124
    NestedTensorVE = 125
    NestedTensorLazy = 126
    NestedTensorMTIA = 127
    NestedTensorMAIA = 128
    NestedTensorPrivateUse1 = 129
    NestedTensorPrivateUse2 = 130
    NestedTensorPrivateUse3 = 131
    NestedTensorMeta = 132
    EndOfNestedTensorBackends = 132  # alias of NestedTensorMeta

    # --- AutogradFunctionality x backend --------------------------------------------------
    StartOfAutogradFunctionalityBackends = 133  # marker
    AutogradCPU = 134
    AutogradCUDA = 135
    AutogradHIP = 136
    AutogradXLA = 137
    AutogradMPS = 138
    AutogradIPU = 139
    AutogradXPU = 140
    AutogradHPU = 141
    AutogradVE = 142
    AutogradLazy = 143
    AutogradMTIA = 144
    AutogradMAIA = 145
    AutogradPrivateUse1 = 146
    AutogradPrivateUse2 = 147
    AutogradPrivateUse3 = 148
    AutogradMeta = 149
    EndOfAutogradFunctionalityBackends = 149  # alias of AutogradMeta

    # --- alias keys: registration only, never in a key set (see ALIAS_RUNTIME_KEY_SETS) ----
    Autograd = 150  # every autograd key
    CompositeImplicitAutograd = 151  # "math": decompositions, autograd from the callees
    FuncTorchBatchedDecomposition = 152  # vmap decompositions
    CompositeImplicitAutogradNestedTensor = 153  # CIA variant for nested tensors
    CompositeExplicitAutograd = 154  # backend-agnostic kernel (a.k.a. DefaultBackend)
    CompositeExplicitAutogradNonFunctional = 155  # CEA minus the "functional" backends

    __str__ = enum.Enum.__str__


# --- the shape of the key space -----------------------------------------------------------

NUM_BACKENDS: Final = 16  # torch._C._dispatch_num_backends()
NUM_FUNCTIONALITY_KEYS: Final = 47  # DispatchKey::EndOfFunctionalityKeys
BACKEND_MASK: Final = (1 << NUM_BACKENDS) - 1  # torch: full_backend_mask
FULL_RAW: Final = (1 << (NUM_BACKENDS + NUM_FUNCTIONALITY_KEYS - 1)) - 1

# Note [Requires-grad bit]
# Differs: not a torch key. A tensor that requires grad carries this bit (just past torch's 62)
# in its cached `_key_set`; key sets read back for users never show it. A call's key set thus
# says, at no cost per call, whether a tensor argument requires grad, and the dispatcher skips
# autograd kernels that would only redispatch (Note [Autograd skip] in dispatch/table.py).
REQUIRES_GRAD_BIT: Final = 1 << (NUM_BACKENDS + NUM_FUNCTIONALITY_KEYS - 1)

# The functionalities that are customisable per backend, with their block of runtime keys.
# torch: C10_FORALL_FUNCTIONALITY_KEYS in c10/core/DispatchKey.h.
PER_BACKEND_START: Final[dict[DispatchKey, DispatchKey]] = {
    DispatchKey.Dense: DispatchKey.StartOfDenseBackends,
    DispatchKey.Quantized: DispatchKey.StartOfQuantizedBackends,
    DispatchKey.Sparse: DispatchKey.StartOfSparseBackends,
    DispatchKey.SparseCsr: DispatchKey.StartOfSparseCsrBackends,
    DispatchKey.NestedTensor: DispatchKey.StartOfNestedTensorBackends,
    DispatchKey.AutogradFunctionality: DispatchKey.StartOfAutogradFunctionalityBackends,
}

# Autograd .. CompositeExplicitAutogradNonFunctional. torch: StartOfAliasKeys..EndOfAliasKeys.
ALIAS_KEYS: Final = tuple(key for key in DispatchKey if key >= DispatchKey.Autograd)


def _per_backend_parts() -> dict[DispatchKey, tuple[DispatchKey, BackendComponent]]:
    # Each block is StartOf<F>Backends followed by one key per backend, in BackendComponent
    # order; the marker itself maps to (F, InvalidBit) as in torch.
    parts: dict[DispatchKey, tuple[DispatchKey, BackendComponent]] = {}
    for functionality, start in PER_BACKEND_START.items():
        for backend in BackendComponent:
            parts[DispatchKey(start + backend)] = (functionality, backend)
    return parts


# Runtime per-backend key -> (functionality, backend), e.g. AutogradCPU -> (AutogradFunctionality,
# CPUBit). torch: toFunctionalityKey / toBackendComponent in c10/core/DispatchKey.h.
PER_BACKEND_PARTS: Final = _per_backend_parts()
_PER_BACKEND_KEY: Final = {parts: key for key, parts in PER_BACKEND_PARTS.items()}


def is_alias_key(key: DispatchKey) -> bool:
    """Whether `key` is an alias key (registration only). Torch: isAliasDispatchKey."""
    return key >= DispatchKey.Autograd


def is_per_backend_functionality_key(key: DispatchKey) -> bool:
    """Dense, Quantized, Sparse, SparseCsr, NestedTensor, AutogradFunctionality.

    Torch: isPerBackendFunctionalityKey.
    """
    return key in PER_BACKEND_START


def to_functionality_key(key: DispatchKey) -> DispatchKey:
    """The functionality part of a key (AutogradCPU -> AutogradFunctionality); alias -> Undefined.

    Torch: toFunctionalityKey.
    """
    if key < NUM_FUNCTIONALITY_KEYS:
        return key
    if key in PER_BACKEND_PARTS:
        return PER_BACKEND_PARTS[key][0]
    return DispatchKey.Undefined


def to_backend_component(key: DispatchKey) -> BackendComponent:
    """The backend part of a per-backend runtime key (SparseMeta -> MetaBit), else InvalidBit.

    Torch: toBackendComponent(DispatchKey).
    """
    parts = PER_BACKEND_PARTS.get(key)
    return BackendComponent.InvalidBit if parts is None else parts[1]


def to_runtime_per_backend_key(
    functionality: DispatchKey, backend: BackendComponent
) -> DispatchKey:
    """Dense x CUDABit -> CUDA; Undefined when `functionality` is not per-backend.

    Torch: toRuntimePerBackendFunctionalityKey.
    """
    return _PER_BACKEND_KEY.get((functionality, backend), DispatchKey.Undefined)


# --- raw key-set arithmetic (the hot path works on these ints) ----------------------------


def key_raw(key: DispatchKey) -> int:
    """The bits of one key: functionality bit plus backend bit; 0 for Undefined and aliases.

    Torch: DispatchKeySet(DispatchKey) constructor.
    """
    functionality = to_functionality_key(key)
    if functionality == DispatchKey.Undefined:
        return 0
    raw = 1 << (NUM_BACKENDS + functionality - 1)
    backend = to_backend_component(key)
    if backend != BackendComponent.InvalidBit:
        raw |= 1 << (backend - 1)
    return raw


def backend_raw(backend: BackendComponent) -> int:
    """The bit of one backend component. Torch: DispatchKeySet(BackendComponent)."""
    return 0 if backend == BackendComponent.InvalidBit else 1 << (backend - 1)


PYTHON_DISPATCHER_RAW: Final = key_raw(DispatchKey.PythonDispatcher)


def full_after_raw(key: DispatchKey) -> int:
    """Every bit strictly below `key`'s functionality bit, plus PythonDispatcher.

    Torch: DispatchKeySet(FULL_AFTER, key). The constructor always adds PythonDispatcher
    (visible in torch._C._dispatch_keyset_full_after(Python)), so redispatching "below" a key
    never loses the Python dispatcher.
    """
    below = (1 << (NUM_BACKENDS + to_functionality_key(key) - 1)) - 1
    return below | PYTHON_DISPATCHER_RAW


def _slot_keys() -> tuple[DispatchKey, ...]:
    # torch: initializeFunctionalityOffsetsAndMasks in c10/core/DispatchKeySet.cpp. Undefined
    # gets slot 0, every other functionality one slot, a per-backend one a slot per backend.
    keys = [DispatchKey.Undefined]
    for functionality in range(1, NUM_FUNCTIONALITY_KEYS):
        key = DispatchKey(functionality)
        if key in PER_BACKEND_START:
            keys.extend(to_runtime_per_backend_key(key, b) for b in list(BackendComponent)[1:])
        else:
            keys.append(key)
    return tuple(keys)


# Note [Dispatch table slots]
# An operator's dispatch table is a list indexed by slot. SLOT_KEYS[i] is the runtime key of
# slot i: Undefined, CPU .. Meta, FPGA, Vulkan, Metal, QuantizedCPU .., ..., PythonDispatcher.
# This is also the order in which torch iterates DispatchKeySet(FULL) and prints dump tables.
SLOT_KEYS: Final = _slot_keys()
NUM_SLOTS: Final = len(SLOT_KEYS)  # torch: num_runtime_entries (137)
SLOT_INDEX: Final = {key: index for index, key in enumerate(SLOT_KEYS)}  # the table slot of a key


# Per functionality value: the first slot of that functionality, and which bits pick the
# backend within it (all backend bits for per-backend functionalities, none otherwise).
def _slot_offsets() -> tuple[int, ...]:
    offsets = []
    for value in range(NUM_FUNCTIONALITY_KEYS):
        key = DispatchKey(value)
        if key in PER_BACKEND_START:
            key = to_runtime_per_backend_key(key, BackendComponent.CPUBit)
        offsets.append(SLOT_INDEX[key])
    return tuple(offsets)


_SLOT_OFFSET: Final = _slot_offsets()
_SLOT_BACKEND_MASK: Final = tuple(
    BACKEND_MASK if DispatchKey(f) in PER_BACKEND_START else 0
    for f in range(NUM_FUNCTIONALITY_KEYS)
)


def highest_priority_index(raw: int) -> int:
    """The dispatch-table slot of a raw key set's highest-priority key (0 when empty).

    Torch: DispatchKeySet::getDispatchTableIndexForDispatchKeySet. A per-backend functionality
    with no backend bit lands on its CPU slot, as in torch.
    """
    functionality = (raw >> NUM_BACKENDS).bit_length()
    backend = ((raw & _SLOT_BACKEND_MASK[functionality]) >> 1).bit_length()
    return _SLOT_OFFSET[functionality] + backend


def backend_index(raw: int) -> int:
    """0-based index of the highest backend bit (CPU=0 .. Meta=15; 0 when none).

    Torch: DispatchKeySet::getBackendIndex; it selects a per-backend fallthrough mask.
    """
    return ((raw & BACKEND_MASK) >> 1).bit_length()


# --- DispatchKeySet -----------------------------------------------------------------------


class DispatchKeySet:
    """An immutable set of dispatch keys, held as one int in torch's bit layout.

    Torch: c10::DispatchKeySet (torch._C.DispatchKeySet). See Note [Key set bit layout].
    Removing keys (`-`, `remove`) clears functionality bits only: backend bits are shared by
    every per-backend key and are never removed (torch: Note [Removing keys from
    DispatchKeySet Only Affects Functionality Keys]).
    """

    __slots__ = ("raw",)
    raw: int

    def __init__(
        self,
        keys: DispatchKey | BackendComponent | Iterable[DispatchKey | BackendComponent] = (),
    ) -> None:
        items = (keys,) if isinstance(keys, (DispatchKey, BackendComponent)) else keys
        raw = 0
        for key in items:
            raw |= backend_raw(key) if isinstance(key, BackendComponent) else key_raw(key)
        object.__setattr__(self, "raw", raw)

    @classmethod
    def from_raw_repr(cls, raw: int) -> DispatchKeySet:
        """The key set with these bits. Torch: DispatchKeySet.from_raw_repr."""
        ks = object.__new__(cls)
        object.__setattr__(ks, "raw", raw & ~REQUIRES_GRAD_BIT)
        return ks

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DispatchKeySet is immutable")

    def raw_repr(self) -> int:
        """The 64-bit representation, equal to torch's. Torch: DispatchKeySet.raw_repr."""
        return self.raw

    # set algebra ---------------------------------------------------------------------------

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.raw | other.raw)

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.raw & other.raw)

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        # torch: operator- keeps every backend bit of self.
        return DispatchKeySet.from_raw_repr(self.raw & (BACKEND_MASK | ~other.raw))

    def __xor__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.raw ^ other.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DispatchKeySet):
            return NotImplemented
        return self.raw == other.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def add(self, key: DispatchKey | DispatchKeySet) -> DispatchKeySet:
        """This set with `key` (or every key of a set) added. Torch: DispatchKeySet::add."""
        bits = key.raw if isinstance(key, DispatchKeySet) else key_raw(key)
        return DispatchKeySet.from_raw_repr(self.raw | bits)

    def remove(self, key: DispatchKey) -> DispatchKeySet:
        """This set without `key`'s functionality bit. Torch: DispatchKeySet::remove.

        `ks.remove(CPU)` on a CPU tensor's set clears Dense but keeps the CPU bit, so
        AutogradCPU is still in the result.
        """
        return DispatchKeySet.from_raw_repr(self.raw & ~(key_raw(key) & ~BACKEND_MASK))

    def remove_backend(self, backend: BackendComponent) -> DispatchKeySet:
        """This set without one backend bit. Torch: DispatchKeySet::remove_backend."""
        return DispatchKeySet.from_raw_repr(self.raw & ~backend_raw(backend))

    # queries -------------------------------------------------------------------------------

    def has(self, key: DispatchKey) -> bool:
        """Whether every bit of `key` is set (a per-backend key needs both of its bits).

        Torch: DispatchKeySet::has. Undefined and alias keys have no bits, so they are in every
        set, as in torch.
        """
        bits = key_raw(key)
        return self.raw & bits == bits

    def has_backend(self, backend: BackendComponent) -> bool:
        """Whether the backend bit is set. Torch: DispatchKeySet::has_backend."""
        bits = backend_raw(backend)
        return self.raw & bits == bits

    def has_all(self, other: DispatchKeySet) -> bool:
        """Whether this set is a superset of `other`. Torch: DispatchKeySet::has_all."""
        return self.raw & other.raw == other.raw

    def has_any(self, other: DispatchKeySet) -> bool:
        """Whether any bit of `other` is set. Torch: DispatchKeySet::has_any.

        As in torch, `other` should not mix per-backend functionality bits with backend bits
        (AutogradCPU.has_any(CPU) would be true through the shared CPU bit).
        """
        return self.raw & other.raw != 0

    is_superset_of = has_all  # torch: DispatchKeySet::isSupersetOf

    def empty(self) -> bool:
        """Whether no bit is set. Torch: DispatchKeySet::empty."""
        return self.raw == 0

    def highest_functionality_key(self) -> DispatchKey:
        """The highest functionality bit as a key (Dense, not CPU); Undefined when none.

        Torch: DispatchKeySet::highestFunctionalityKey.
        """
        return DispatchKey((self.raw >> NUM_BACKENDS).bit_length())

    def highest_backend(self) -> BackendComponent:
        """The highest backend bit; InvalidBit when none. Torch: highestBackendKey."""
        return BackendComponent((self.raw & BACKEND_MASK).bit_length())

    def highest_priority_type_id(self) -> DispatchKey:
        """The key that dispatch selects for this set.

        Torch: DispatchKeySet::highestPriorityTypeId. A per-backend functionality combines with
        the highest backend bit (Meta beats CPU); with no backend bit it yields the
        StartOf<F>Backends marker, as in torch.
        """
        functionality = self.highest_functionality_key()
        start = PER_BACKEND_START.get(functionality)
        if start is None:
            return functionality
        return DispatchKey(start + self.highest_backend())

    highestPriorityTypeId = highest_priority_type_id  # torch._C.DispatchKeySet's name

    def __iter__(self) -> Iterator[DispatchKey]:
        """The runtime keys in the set, lowest priority first.

        Torch: DispatchKeySet::iterator. A per-backend functionality yields one key per set
        backend bit (CPU before CUDA); with no backend bit it yields nothing.
        """
        functionalities = self.raw >> NUM_BACKENDS
        backends = [b for b in list(BackendComponent)[1:] if self.raw & (1 << (b - 1))]
        for value in range(1, functionalities.bit_length() + 1):
            if not functionalities & (1 << (value - 1)) or value >= NUM_FUNCTIONALITY_KEYS:
                continue
            functionality = DispatchKey(value)
            if functionality in PER_BACKEND_START:
                for backend in backends:
                    yield to_runtime_per_backend_key(functionality, backend)
            else:
                yield functionality

    def __repr__(self) -> str:
        # torch: toString(DispatchKeySet) in c10/core/DispatchKeySet.cpp
        return "DispatchKeySet(" + ", ".join(key.name for key in self) + ")"

    __str__ = __repr__


# --- named key sets (torch: c10/core/DispatchKeySet.h) ------------------------------------

FULL: Final = DispatchKeySet.from_raw_repr(FULL_RAW)


def full_after(key: DispatchKey) -> DispatchKeySet:
    """Every key below `key`'s functionality, plus PythonDispatcher.

    Torch: DispatchKeySet(FULL_AFTER, key); torch._C._dispatch_keyset_full_after.
    """
    return DispatchKeySet.from_raw_repr(full_after_raw(key))


_ALL_BACKENDS: Final = DispatchKeySet.from_raw_repr(BACKEND_MASK)

AUTOGRAD_KEYS: Final = DispatchKeySet(  # torch: autograd_dispatch_keyset (no backend bits)
    [DispatchKey.AutogradFunctionality, DispatchKey.AutogradOther, DispatchKey.AutogradNestedTensor]
)
AUTOGRAD_AND_AD_INPLACE_OR_VIEW_KEYS: Final = AUTOGRAD_KEYS.add(DispatchKey.ADInplaceOrView)

# Backends with an Autocast key. torch: getAutocastRelatedKeySetFromBackend (Meta, HIP, VE,
# Lazy, PrivateUse2/3 have none, so a meta tensor carries no Autocast key).
_AUTOCAST_KEY: Final[dict[BackendComponent, DispatchKey]] = {
    BackendComponent.CPUBit: DispatchKey.AutocastCPU,
    BackendComponent.CUDABit: DispatchKey.AutocastCUDA,
    BackendComponent.XLABit: DispatchKey.AutocastXLA,
    BackendComponent.MPSBit: DispatchKey.AutocastMPS,
    BackendComponent.IPUBit: DispatchKey.AutocastIPU,
    BackendComponent.XPUBit: DispatchKey.AutocastXPU,
    BackendComponent.HPUBit: DispatchKey.AutocastHPU,
    BackendComponent.MTIABit: DispatchKey.AutocastMTIA,
    BackendComponent.MAIABit: DispatchKey.AutocastMAIA,
    BackendComponent.PrivateUse1Bit: DispatchKey.AutocastPrivateUse1,
}

AUTOCAST_KEYS: Final = DispatchKeySet(_AUTOCAST_KEY.values())  # torch: autocast_dispatch_keyset
PYTHON_KEYS: Final = DispatchKeySet([DispatchKey.Python, DispatchKey.PythonTLSSnapshot])

# Thread-local defaults (torch: default_included_set / default_excluded_set, Note [TLS
# Initialization]): BackendSelect and ADInplaceOrView always run; autocast is off until enabled.
DEFAULT_INCLUDED_SET: Final = DispatchKeySet(
    [DispatchKey.BackendSelect, DispatchKey.ADInplaceOrView]
)
DEFAULT_EXCLUDED_SET: Final = AUTOCAST_KEYS

AFTER_AUTOGRAD: Final = full_after(DispatchKey.AutogradOther)  # torch: after_autograd_keyset
AFTER_AD_INPLACE_OR_VIEW: Final = full_after(DispatchKey.ADInplaceOrView)
AFTER_FUNCTIONALIZE: Final = full_after(DispatchKey.Functionalize).remove(
    # torch: after_func_keyset. Functionalize redispatches an in-place op as an out-of-place
    # one, whose ADInplaceOrView kernel must not run.
    DispatchKey.ADInplaceOrView
)

# The "backends" whose autograd key is AutogradOther: the non-customizable backends plus the
# Quantized/Sparse/SparseCsr functionalities on every backend. torch: autogradother_backends.
AUTOGRAD_OTHER_BACKENDS: Final = (
    DispatchKeySet(
        [
            DispatchKey.FPGA,
            DispatchKey.Vulkan,
            DispatchKey.Metal,
            DispatchKey.CustomRNGKeyId,
            DispatchKey.MkldnnCPU,
            DispatchKey.Sparse,
            DispatchKey.SparseCsr,
            DispatchKey.Quantized,
        ]
    )
    | _ALL_BACKENDS
)

# Keys a CompositeExplicitAutograd kernel serves: every backend, not NestedTensor.
# torch: backend_dispatch_keyset in c10/core/DispatchKeySet.cpp.
_BACKEND_KEYS: Final = AUTOGRAD_OTHER_BACKENDS | DispatchKeySet(DispatchKey.Dense)

# CompositeExplicitAutogradNonFunctional skips the "functional" backends XLA and Lazy, and the
# (COO) Sparse functionality. torch: non_functional_backend_dispatch_keyset.
_NON_FUNCTIONAL_BACKEND_KEYS: Final = (
    _BACKEND_KEYS.remove(DispatchKey.Sparse)
    .remove_backend(BackendComponent.XLABit)
    .remove_backend(BackendComponent.LazyBit)
)

_NESTED_KEYS: Final = (  # torch: nested_dispatch_keyset
    DispatchKeySet([DispatchKey.AutogradNestedTensor, DispatchKey.NestedTensor]) | _ALL_BACKENDS
)

# Alias key -> the runtime keys a kernel registered to it may fill. Measured against
# torch._C._dispatch_is_included_in_alias for every key (tests/test_keys.py).
# torch: getRuntimeDispatchKeySet in c10/core/DispatchKeySet.cpp.
ALIAS_RUNTIME_KEY_SETS: Final[dict[DispatchKey, DispatchKeySet]] = {
    DispatchKey.Autograd: AUTOGRAD_KEYS | _ALL_BACKENDS,
    DispatchKey.CompositeImplicitAutograd: _BACKEND_KEYS | AUTOGRAD_KEYS | _NESTED_KEYS,
    DispatchKey.FuncTorchBatchedDecomposition: DispatchKeySet(DispatchKey.FuncTorchBatched),
    DispatchKey.CompositeImplicitAutogradNestedTensor: _NESTED_KEYS,
    DispatchKey.CompositeExplicitAutograd: _BACKEND_KEYS,
    DispatchKey.CompositeExplicitAutogradNonFunctional: _NON_FUNCTIONAL_BACKEND_KEYS,
}


def runtime_key_set(key: DispatchKey) -> DispatchKeySet:
    """The runtime keys an alias key stands for; a runtime key stands for itself.

    Torch: getRuntimeDispatchKeySet.
    """
    alias_set = ALIAS_RUNTIME_KEY_SETS.get(key)
    return DispatchKeySet(key) if alias_set is None else alias_set


def is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    """Whether a kernel registered to `alias` serves runtime `key` (never Undefined).

    Torch: isIncludedInAlias; torch._C._dispatch_is_included_in_alias. For a non-alias
    `alias` this is `key == alias`.
    """
    if key == DispatchKey.Undefined:
        return False
    alias_set = ALIAS_RUNTIME_KEY_SETS.get(alias)
    return key == alias if alias_set is None else alias_set.has(key)


# Autograd key -> the backend keys it does autograd for. torch: getBackendKeySetFromAutograd
# in c10/core/DispatchKeySet.cpp. Its switch has no case for AutogradHIP, AutogradVE and
# AutogradMTIA (measured: empty sets), so a HIP kernel does not stop a CIA kernel at AutogradHIP.
_AUTOGRAD_BACKEND_KEYS: Final[dict[DispatchKey, DispatchKeySet]] = {
    DispatchKey.AutogradOther: AUTOGRAD_OTHER_BACKENDS,
    DispatchKey.AutogradNestedTensor: DispatchKeySet(DispatchKey.NestedTensor) | _ALL_BACKENDS,
    DispatchKey.AutogradCPU: DispatchKeySet(DispatchKey.CPU),
    DispatchKey.AutogradCUDA: DispatchKeySet(DispatchKey.CUDA),
    DispatchKey.AutogradXLA: DispatchKeySet(DispatchKey.XLA),
    DispatchKey.AutogradMPS: DispatchKeySet(DispatchKey.MPS),
    DispatchKey.AutogradIPU: DispatchKeySet(DispatchKey.IPU),
    DispatchKey.AutogradXPU: DispatchKeySet(DispatchKey.XPU),
    DispatchKey.AutogradHPU: DispatchKeySet(DispatchKey.HPU),
    DispatchKey.AutogradLazy: DispatchKeySet(DispatchKey.Lazy),
    DispatchKey.AutogradMAIA: DispatchKeySet(DispatchKey.MAIA),
    DispatchKey.AutogradPrivateUse1: DispatchKeySet(DispatchKey.PrivateUse1),
    DispatchKey.AutogradPrivateUse2: DispatchKeySet(DispatchKey.PrivateUse2),
    DispatchKey.AutogradPrivateUse3: DispatchKeySet(DispatchKey.PrivateUse3),
    DispatchKey.AutogradMeta: DispatchKeySet(DispatchKey.Meta),
}


def backend_key_set_from_autograd(key: DispatchKey) -> DispatchKeySet:
    """The backend keys whose autograd key is `key` (AutogradCPU -> CPU); empty otherwise.

    Torch: getBackendKeySetFromAutograd; torch._C._dispatch_get_backend_keyset_from_autograd.
    """
    return _AUTOGRAD_BACKEND_KEYS.get(key, DispatchKeySet())


def autograd_key_from_backend(backend: BackendComponent) -> DispatchKey:
    """AutogradCPU for CPUBit, ...; AutogradOther for InvalidBit. Torch: getAutogradKeyFromBackend."""
    if backend == BackendComponent.InvalidBit:
        return DispatchKey.AutogradOther
    return to_runtime_per_backend_key(DispatchKey.AutogradFunctionality, backend)


# torch.device type string -> backend component. torch: toBackendComponent(DeviceType) and
# torch._C._dispatch_key_for_device.
DEVICE_TYPE_BACKEND: Final[dict[str, BackendComponent]] = {
    "cpu": BackendComponent.CPUBit,
    "cuda": BackendComponent.CUDABit,
    "hip": BackendComponent.HIPBit,
    "xla": BackendComponent.XLABit,
    "mps": BackendComponent.MPSBit,
    "ipu": BackendComponent.IPUBit,
    "xpu": BackendComponent.XPUBit,
    "hpu": BackendComponent.HPUBit,
    "ve": BackendComponent.VEBit,
    "lazy": BackendComponent.LazyBit,
    "mtia": BackendComponent.MTIABit,
    "maia": BackendComponent.MAIABit,
    "privateuseone": BackendComponent.PrivateUse1Bit,
    "meta": BackendComponent.MetaBit,
}


def key_set_for_device(
    device_type: str,
    functionality: DispatchKey = DispatchKey.Dense,
    *,
    inference: bool = False,
) -> DispatchKeySet:
    """The key set a fresh tensor of this device type (and layout functionality) carries.

    Torch: TensorImpl's constructor (c10/core/TensorImpl.cpp): the backend key, plus
    getAutogradRelatedKeySetFromBackend (ADInplaceOrView + Autograd<Backend>) unless created
    in inference mode, plus getAutocastRelatedKeySetFromBackend. "cpu" gives
    DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU). `functionality` is Dense
    (strided), Sparse, SparseCsr, Quantized or NestedTensor; nested tensors also carry
    AutogradNestedTensor.
    """
    backend = DEVICE_TYPE_BACKEND.get(device_type)
    if backend is None:
        raise RuntimeError(f"refimpl has no dispatch key for device type '{device_type}'")
    ks = DispatchKeySet(to_runtime_per_backend_key(functionality, backend))
    if not inference:
        ks = ks | DispatchKeySet([DispatchKey.ADInplaceOrView, autograd_key_from_backend(backend)])
        if functionality == DispatchKey.NestedTensor:
            ks = ks.add(DispatchKey.AutogradNestedTensor)
    autocast = _AUTOCAST_KEY.get(backend)
    return ks if autocast is None else ks.add(autocast)


def with_python_keys(ks: DispatchKeySet) -> DispatchKeySet:
    """`ks` plus Python and PythonTLSSnapshot, as a `__torch_dispatch__` subclass carries.

    Torch: TensorImpl::set_python_dispatch / c10::python_ks.
    """
    return ks | PYTHON_KEYS
