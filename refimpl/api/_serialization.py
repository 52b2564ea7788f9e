"""Pickling and deep-copying tensors: what survives, and which tensors still share storage.

Torch: Tensor.__reduce_ex__ and Tensor.__deepcopy__ (torch/_tensor.py) over
torch._utils._rebuild_tensor_v2. Both keep a tensor's whole storage with its size, stride and
storage offset (a view comes back with its strides and offset, but as a plain tensor: no
`_base`), its dtype, device and `requires_grad`. They differ in sharing and gradients:

- `pickle` rebuilds every tensor over its own copy of the storage, even two views pickled in
  one object (plain pickle has no storage memo; torch.save has one), and drops `.grad`;
  `copy.copy` (the same `__reduce_ex__`) rebuilds over the storage itself: a shallow copy
  shares it.
- `copy.deepcopy` copies each storage once per memo, so views of one base deep-copied
  together share the new storage, as they shared the old one; `.grad` is deep-copied too,
  and only leaves can be deep-copied.

A rebuilt tensor's version counter reads 1, as torch's do (its `set_` on the new storage
counts as a write). The math bits (Note [Math bits] in core/tensor.py): pickle keeps them with
the storage as it is (torch stores {'conj': True} / {'neg': True} with the tensor), deepcopy
resolves them (torch's __deepcopy__ applies conj_physical / neg to the copy, which has none).
"""

from __future__ import annotations

from typing import Any

from refimpl._base.device import device
from refimpl._base.dtypes import BY_NAME, DType
from refimpl.autograd.variable import grad_fn, meta_of, set_requires_grad
from refimpl.core.config import config
from refimpl.core.storage import Storage
from refimpl.core.tensor import (
    CONJUGATE_BIT,
    MATH_BITS,
    NEGATIVE_BIT,
    TensorImpl,
    make_tensor,
    requires_grad,
)
from refimpl.ops import aten


def _rebuilt(
    cls: type[TensorImpl],
    storage: Storage,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    dtype: DType,
    requires_grad: bool,
) -> Any:
    t = make_tensor(storage, size, stride, offset, dtype, cls=cls)
    t._version_counter.version = 1  # torch: set_ onto the new storage bumps the version
    if requires_grad:
        set_requires_grad(t, True)
    return t


# --- pickle ------------------------------------------------------------------------------


class PickledStorage:
    """A tensor's storage as `__reduce_ex__` hands it on, read as the tensor's dtype.

    `copy.copy` passes the object itself to `rebuild_tensor`, so the copy shares the storage
    (torch: the TypedStorage in the reduce tuple is the tensor's own); `pickle` stores its
    values on the host through `__reduce__`, and loading makes a new storage.
    """

    __slots__ = ("dtype", "storage")

    def __init__(self, storage: Storage, dtype: DType) -> None:
        self.storage = storage
        self.dtype = dtype

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        storage = self.storage
        backend = storage.backend
        # The storage read as the tensor's dtype (a dtype view's bytes: Note [Untyped storage]).
        flat = storage.array_as(self.dtype)
        host = None if backend is None or flat is None else backend.to_host(flat)
        elements = storage.elements(self.dtype)
        return storage_from_host, (host, elements, str(storage.device), self.dtype.name)


def storage_from_host(
    host: Any, size_elements: int, device_name: str, dtype_name: str
) -> PickledStorage:
    """A new storage holding `host`'s values, on the backend now configured for its device
    (what `PickledStorage.__reduce__` stored)."""
    dev = device(device_name)
    dtype = BY_NAME[dtype_name]
    if dev.type == "meta" or host is None:
        return PickledStorage(Storage(None, size_elements, dtype, dev, None), dtype)
    backend = config.backends.resolve(dev.type)
    array = backend.xp.asarray(backend.from_host(host), copy=True)
    return PickledStorage(Storage(array, size_elements, dtype, dev, backend), dtype)


def reduce_tensor(t: TensorImpl) -> tuple[Any, tuple[Any, ...]]:
    """What `pickle` and `copy.copy` get for `t`: its storage (see PickledStorage) and the
    view geometry.

    Torch: Tensor.__reduce_ex__ (_reduce_ex_internal in torch/_tensor.py), which hands on
    the storage and calls torch._utils._rebuild_tensor_v2 on load.
    """
    return rebuild_tensor, (
        type(t),
        PickledStorage(t._storage, t._dtype),
        t._size,
        t._stride,
        t._storage_offset,
        requires_grad(t),
        t._key_set & MATH_BITS,
    )


def rebuild_tensor(
    cls: type[TensorImpl],
    source: PickledStorage,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    requires_grad: bool,
    math_bits: int = 0,
) -> Any:
    """A tensor over `source`'s storage. Torch: torch._utils._rebuild_tensor_v2 (with the
    tensor's metadata: its math bits)."""
    dtype = source.dtype
    out = _rebuilt(cls, source.storage, tuple(size), tuple(stride), offset, dtype, requires_grad)
    out._key_set |= math_bits & MATH_BITS
    return out


# --- copy.deepcopy -------------------------------------------------------------------------


def deepcopy_tensor(t: TensorImpl, memo: dict[int, Any]) -> Any:
    """A copy of `t` over a copy of its storage, made once per storage in `memo`.

    Torch: Tensor.__deepcopy__ in torch/_tensor.py (the storage goes through
    TypedStorage._deepcopy with the same memo, so aliases stay aliases).
    """
    if id(t) in memo:
        return memo[id(t)]
    if grad_fn(t) is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may "
            "be because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001"
        )
    storage = t._storage
    new_storage = memo.get(id(storage))
    if new_storage is None:
        backend = storage.backend
        array = (
            None
            if storage.array is None or backend is None
            else backend.xp.asarray(storage.array, copy=True)
        )
        new_storage = Storage(array, storage.size_elements, storage.dtype, storage.device, backend)
        memo[id(storage)] = new_storage
        # Keep the old storage alive while the memo holds its id (copy._keep_alive does so).
        memo.setdefault(id(memo), []).append(storage)
    out = _rebuilt(
        type(t),
        new_storage,
        t._size,
        t._stride,
        t._storage_offset,
        t._dtype,
        requires_grad(t) and not t._key_set & MATH_BITS,
    )
    if t._key_set & MATH_BITS:
        # torch: the copy holds the storage's values without the bits; conj_physical and neg
        # (under no_grad) give it the values `t` shows, and it is a leaf as `t` is.
        if t._key_set & CONJUGATE_BIT:
            out = aten.conj_physical.default(out)
        if t._key_set & NEGATIVE_BIT:
            out = aten.neg.default(out)
        if requires_grad(t):
            set_requires_grad(out, True)
    memo[id(t)] = out
    grad = None if t._autograd_meta is None else t._autograd_meta.grad
    if grad is not None:
        meta_of(out).grad = deepcopy_tensor(grad, memo)
    return out
