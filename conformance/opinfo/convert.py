"""Targets of an OpInfo run: how torch's sample values become the target's, and back.

A *target* is what the OpInfo database runs against: torch itself (the self-check, where
conversion is an exact copy) or refimpl on one backend. A target converts a SampleInput's
values (tensors with their strides and storage offset, dtypes, devices, nested containers),
maps torch's callables to its own (`torch.add` -> `refimpl.add`), and describes its results
in torch terms (`Observed`) so that one comparison serves every target.
"""

from __future__ import annotations

import abc
import functools
import operator
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import numpy as np
import torch

import refimpl
from refimpl.core.backend import REGISTRY

TORCH_TARGET = "torch"


class NotStored(Exception):
    """The target cannot hold a dtype of the sample (bfloat16, complex32, float16 on strict)."""


class Missing(Exception):
    """The target lacks the callable a variant needs (`missing: refimpl.exp`)."""


class Unconvertible(Exception):
    """A sample value has no counterpart on the target (a torch.Generator, say)."""


# --- exact copies of torch tensors -------------------------------------------------------------


def exact_clone(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t` over a copy of its whole storage: same size, strides and storage offset.

    `Tensor.clone` makes a non-dense input contiguous; an in-place op on the clone would then
    see other strides than the sample has, so the storage is copied instead.
    """
    if t.is_conj() or t.is_neg() or t.layout is not torch.strided:
        return t.clone()
    storage = t.untyped_storage().clone()  # type: ignore[no-untyped-call]  # torch's stubs
    out = torch.empty(0, dtype=t.dtype, device=t.device)
    out.set_(storage, t.storage_offset(), t.size(), t.stride())
    return out


def storage_extent(t: torch.Tensor) -> int:
    """Elements of storage `t` reaches: offset + 1 + sum((size - 1) * stride), 0 if empty."""
    offset = int(t.storage_offset())
    if t.numel() == 0:
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(t.size(), t.stride()))


def shared_storage(
    t: torch.Tensor,
    storages: dict[tuple[int, torch.dtype], Any],
    copy: Callable[[torch.Tensor], Any],
) -> Any:
    """The target's copy of `t`'s whole storage as a flat tensor, made once per storage.

    Tensors of one sample that share a storage in torch (`take(x, i, out=x)`) share one on the
    target too, so the ops' overlap checks see what torch sees. None for tensors whose storage
    cannot be shared this way (conjugate or negative views, empty storages).
    """
    if t.is_conj() or t.is_neg() or t.layout is not torch.strided:
        return None
    storage = t.untyped_storage()
    if storage.data_ptr() == 0 or storage.nbytes() % t.element_size():
        return None
    key = (storage.data_ptr(), t.dtype)
    found = storages.get(key)
    if found is None:
        whole = torch.empty(0, dtype=t.dtype, device=t.device)
        whole.set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))
        found = storages[key] = copy(whole.detach())
    return found


# --- what a result looks like, in torch terms ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObservedTensor:
    """A result tensor seen from outside: dtype name, size, stride and its values in torch.

    `values` is a contiguous torch tensor (dtype from the same name) built from a host copy,
    so refimpl's and torch's results compare with torch.testing.assert_close.
    """

    dtype: str
    size: tuple[int, ...]
    stride: tuple[int, ...]
    values: torch.Tensor | None


# An ObservedTensor, a tuple or list of Observed, or a plain Python value (bool, int, dtype...).
Observed: TypeAlias = Any


def torch_dtype_name(dtype: torch.dtype) -> str:
    """`float32` for torch.float32."""
    return str(dtype).removeprefix("torch.")


# --- the targets ---------------------------------------------------------------------------------


class Target(abc.ABC):
    """What an OpInfo case runs against, and how values cross over to it."""

    name: str

    def activate(self) -> AbstractContextManager[object]:
        """A context in which the target's tensors are made (refimpl's backend choice)."""
        return nullcontext()

    @abc.abstractmethod
    def manual_seed(self, seed: int) -> None:
        """Seed the target's default generator (torch.manual_seed)."""
        raise NotImplementedError

    @abc.abstractmethod
    def stores(self, dtype: torch.dtype) -> bool:
        """Whether the target can hold tensors of `dtype`."""
        raise NotImplementedError

    @abc.abstractmethod
    def convert(self, value: Any) -> Any:
        """A sample value (tensor, dtype, device, container, Python scalar) on the target."""
        raise NotImplementedError

    @abc.abstractmethod
    def resolve(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """The target's counterpart of torch callable `fn`; raises Missing if it has none."""
        raise NotImplementedError

    @abc.abstractmethod
    def is_tensor(self, value: object) -> bool:
        raise NotImplementedError

    @abc.abstractmethod
    def observe(self, value: Any) -> Observed:
        """A result of the target as an `Observed` value (tensors become ObservedTensor)."""
        raise NotImplementedError

    @abc.abstractmethod
    def grad(
        self, outputs: list[Any], inputs: list[Any], grad_outputs: list[Any], create_graph: bool
    ) -> tuple[Any, ...]:
        """The target's `autograd.grad(outputs, inputs, grad_outputs, allow_unused=True)`."""
        raise NotImplementedError


def observe_torch(value: Any) -> Observed:
    """Describe a torch result; containers recursively, other values as they are."""
    if isinstance(value, torch.Tensor):
        plain = value.resolve_conj().resolve_neg()
        # A meta tensor has no values to compare.
        values = (
            None if value.is_meta else plain.detach().clone(memory_format=torch.contiguous_format)
        )
        return ObservedTensor(
            torch_dtype_name(value.dtype), tuple(value.size()), tuple(value.stride()), values
        )
    if isinstance(value, tuple):
        # torch.return_types records are tuples; refimpl's may be plain tuples.
        return tuple(observe_torch(v) for v in value)
    if isinstance(value, list):
        return [observe_torch(v) for v in value]
    return value


class TorchTarget(Target):
    """torch against itself: every value is an exact copy, every callable itself.

    Any failure here is a bug of the runner (or a non-deterministic OpInfo), never of refimpl,
    which is why `conformance/xfails/torch.txt` must stay empty.
    """

    name = TORCH_TARGET

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def stores(self, dtype: torch.dtype) -> bool:
        return True

    def convert(self, value: Any) -> Any:
        return self._convert(value, {}, {})

    def _convert(
        self,
        value: Any,
        storages: dict[tuple[int, torch.dtype], torch.Tensor],
        leaves: dict[int, torch.Tensor],
    ) -> Any:
        if isinstance(value, torch.Tensor) and value.requires_grad:
            if id(value) not in leaves:
                leaves[id(value)] = exact_clone(value.detach()).requires_grad_(True)
            return leaves[id(value)]
        if isinstance(value, torch.Tensor):
            flat = shared_storage(value, storages, lambda whole: exact_clone(whole))
            if flat is None:
                return exact_clone(value)
            return flat.as_strided(value.size(), value.stride(), value.storage_offset())
        if type(value) in (list, tuple):
            return type(value)(self._convert(v, storages, leaves) for v in value)
        if isinstance(value, dict):
            return {k: self._convert(v, storages, leaves) for k, v in value.items()}
        return value

    def resolve(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn

    def is_tensor(self, value: object) -> bool:
        return isinstance(value, torch.Tensor)

    def observe(self, value: Any) -> Observed:
        return observe_torch(value)

    def grad(
        self, outputs: list[Any], inputs: list[Any], grad_outputs: list[Any], create_graph: bool
    ) -> tuple[Any, ...]:
        return torch.autograd.grad(
            outputs, inputs, grad_outputs, allow_unused=True, create_graph=create_graph
        )


# Tensor classes whose methods map by name to refimpl.Tensor's.
_TORCH_TENSOR_CLASSES: Final = (torch._C.TensorBase, torch.Tensor)


class RefimplTarget(Target):
    """refimpl with backend `backend` for the sample's device type (cpu)."""

    def __init__(self, backend: str) -> None:
        self.backend_name = backend
        self.backend = REGISTRY.get(backend)
        self.name = backend
        self.device = refimpl.device(self.backend.device_type)
        self._stored = {d.name for d in self.backend.array_dtypes}

    @contextmanager
    def _using(self) -> Iterator[object]:
        with refimpl.config.using(**{self.backend.device_type: self.backend_name}):
            yield self

    def activate(self) -> AbstractContextManager[object]:
        return self._using()

    def manual_seed(self, seed: int) -> None:
        refimpl.manual_seed(seed)

    def stores(self, dtype: torch.dtype) -> bool:
        return torch_dtype_name(dtype) in self._stored

    def dtype(self, dtype: torch.dtype) -> refimpl.dtype:
        name = torch_dtype_name(dtype)
        if name not in self._stored:
            raise NotStored(f"not stored: {name} on {self.backend_name}")
        found: refimpl.dtype = getattr(refimpl, name)
        return found

    def tensor(self, t: torch.Tensor) -> refimpl.Tensor:
        """A refimpl tensor with `t`'s values, dtype, size, strides and storage offset.

        The storage extent `t` reaches is copied (as a 1-D host array) into a fresh refimpl
        tensor, which is then `as_strided` like `t`, so non-contiguous samples stay so.
        """
        dtype = self.dtype(t.dtype)
        if t.is_conj() or t.is_neg():
            t = t.resolve_conj().resolve_neg()
        t = t.detach()
        if t.is_meta:  # no values: a meta tensor of the same geometry (error inputs use them)
            meta: refimpl.Tensor = refimpl.empty_strided(
                tuple(t.size()), tuple(t.stride()), dtype=dtype, device="meta"
            )
            return meta
        extent = storage_extent(t)
        flat_torch = torch.as_strided(t, (extent,), (1,), 0)
        # Through a clone: Tensor.numpy() marks the storage it views non-resizable, which
        # would make torch refuse to resize the sample (addbmm_ grows a (1,) self).
        host = flat_torch.clone().numpy()
        # tensor(), not from_numpy: torch's sample owns its storage, which resizes (an error
        # input's `out` grows before its overlap is judged), where from_numpy's would refuse.
        flat = refimpl.tensor(host)
        if flat.dtype is not dtype:
            raise Unconvertible(f"from_numpy gave {flat.dtype} for {t.dtype}")
        if self.device.type != "cpu":
            flat = flat.to(self.device)
        out: refimpl.Tensor = flat.as_strided(
            tuple(t.size()), tuple(t.stride()), int(t.storage_offset())
        )
        return out

    def convert(self, value: Any) -> Any:
        return self._convert(value, {}, {})

    def _convert(
        self, value: Any, storages: dict[tuple[int, torch.dtype], Any], leaves: dict[int, Any]
    ) -> Any:
        if isinstance(value, torch.Tensor) and value.requires_grad:
            # A leaf of its own (no storage shared with other sample tensors), made once per
            # torch tensor, so a tensor passed twice gets its two uses' gradients summed.
            if id(value) not in leaves:
                leaves[id(value)] = self.tensor(value).requires_grad_(True)
            return leaves[id(value)]
        if isinstance(value, torch.Tensor):
            # One torch tensor passed twice is one target tensor (`cat((x, y), out=x)`: torch
            # refuses an out that is an input even where x is empty, by identity).
            if id(value) not in leaves:
                flat = shared_storage(value, storages, self.tensor)
                leaves[id(value)] = (
                    self.tensor(value)
                    if flat is None
                    else flat.as_strided(
                        tuple(value.size()), tuple(value.stride()), int(value.storage_offset())
                    )
                )
            return leaves[id(value)]
        if isinstance(value, torch.dtype):
            return self.dtype(value)
        if isinstance(value, torch.device):
            return self.device
        if isinstance(value, torch.Size):
            return refimpl.Size(value)
        if type(value) in (list, tuple):
            return type(value)(self._convert(v, storages, leaves) for v in value)
        if isinstance(value, dict):
            return {k: self._convert(v, storages, leaves) for k, v in value.items()}
        if isinstance(value, (torch.memory_format, torch.layout)):
            name = str(value).removeprefix("torch.")
            if not hasattr(refimpl, name):
                raise Unconvertible(f"missing: refimpl.{name}")
            return getattr(refimpl, name)
        if isinstance(value, torch.nn.PairwiseDistance):
            # triplet_margin_with_distance_loss's samples pass this module as the distance;
            # refimpl has no modules yet, so the function it calls stands in for it.
            return functools.partial(
                refimpl.nn.functional.pairwise_distance,
                p=value.norm, eps=value.eps, keepdim=value.keepdim,
            )
        if type(value).__module__.split(".")[0] == "torch":
            raise Unconvertible(f"cannot convert {type(value).__qualname__} to refimpl")
        if isinstance(value, str) and value == "cpu" and self.device.type != "cpu":
            return str(self.device)
        return value

    def resolve(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return resolve_in_refimpl(fn)

    def is_tensor(self, value: object) -> bool:
        return isinstance(value, refimpl.Tensor)

    def observe(self, value: Any) -> Observed:
        if isinstance(value, refimpl.Tensor):
            dtype = value.dtype.name
            values: torch.Tensor | None = None
            if hasattr(torch, dtype) and not value.is_meta:
                # np.ascontiguousarray would turn a 0-d array into a 1-d one.
                # NumPy holds at most 64 dims, torch more: read the values flat then.
                flat = value.ndim > 64
                host = (value.reshape(-1) if flat else value).numpy(force=True)
                values = torch.from_numpy(np.array(host, copy=True, order="C"))
                if flat:
                    values = values.reshape(tuple(value.size()))
            return ObservedTensor(dtype, tuple(value.size()), tuple(value.stride()), values)
        if isinstance(value, torch.Tensor):
            raise Unconvertible("the target returned a torch.Tensor (the call reached torch)")
        if isinstance(value, tuple):
            return tuple(self.observe(v) for v in value)
        if isinstance(value, list):
            return [self.observe(v) for v in value]
        if isinstance(value, refimpl.dtype):
            return getattr(torch, value.name)
        return value

    def grad(
        self, outputs: list[Any], inputs: list[Any], grad_outputs: list[Any], create_graph: bool
    ) -> tuple[Any, ...]:
        return refimpl.autograd.grad(
            outputs, inputs, grad_outputs, allow_unused=True, create_graph=create_graph
        )


# --- torch callables -> refimpl callables ---------------------------------------------------


def _walk(root: object, path: str) -> Any:
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _refimpl_path(path: str) -> Callable[..., Any]:
    """`refimpl.<path>`, or Missing naming the first absent piece."""
    obj: Any = refimpl
    done = "refimpl"
    for part in path.split("."):
        done = f"{done}.{part}"
        if not hasattr(obj, part):
            raise Missing(f"missing: {done}")
        obj = getattr(obj, part)
    found: Callable[..., Any] = obj
    return found


# Python modules whose functions run as they are on refimpl tensors: OpInfo's own lambdas and
# the operator module (operator.add calls Tensor.__add__).
_RUN_AS_IS_MODULES: Final = ("torch.testing.", "operator", "_operator")


def torch_path(fn: Callable[..., Any]) -> str | None:
    """The public torch path of `fn` (`special.i0e`, `nn.functional.relu`) if it has one.

    Found by `__module__` and `__name__` for torch's Python functions, and by looking `fn` up
    under torch's public namespaces for builtins (whose `__module__` is a private one such
    as `torch._C._special`).
    """
    name = getattr(fn, "__name__", None)
    if name is None:
        return None
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("torch") and not module.startswith("torch._"):
        path = f"{module.removeprefix('torch').lstrip('.')}.{name}".lstrip(".")
        try:
            if _walk(torch, path) is fn:
                return path
        except AttributeError:
            pass
    for namespace in _PUBLIC_NAMESPACES:
        candidates = (name, name.removeprefix(namespace.replace(".", "_") + "_"))
        for candidate in candidates:
            path = f"{namespace}.{candidate}".lstrip(".")
            try:
                if _walk(torch, path) is fn:
                    return path
            except AttributeError:
                continue
    return None


_PUBLIC_NAMESPACES: Final = ("", "special", "nn.functional", "linalg", "fft", "_C._nn")


def resolve_in_refimpl(fn: Callable[..., Any]) -> Callable[..., Any]:
    """refimpl's counterpart of a torch callable from an OpInfo.

    - a Tensor method (`torch.Tensor.add`, `Tensor.__radd__`): `refimpl.Tensor.<name>`;
    - an `aten` overload or packet: `refimpl.ops.aten.<op>[.<overload>]`;
    - a public torch function (`torch.add`, `torch.special.i0e`): the same path in refimpl;
    - a function of torch's testing modules (OpInfo lambdas) or of `operator`: itself.
    """
    if isinstance(fn, functools.partial):
        # OpInfo's in-place variants of F functions: partial(F.mish, inplace=True).
        return functools.partial(resolve_in_refimpl(fn.func), *fn.args, **fn.keywords)
    objclass = getattr(fn, "__objclass__", None)
    qualname = getattr(fn, "__qualname__", "") or ""
    module = getattr(fn, "__module__", None) or ""
    if objclass in _TORCH_TENSOR_CLASSES or (
        module == "torch._tensor" and qualname.startswith("Tensor.")
    ):
        name = fn.__name__
        if not hasattr(refimpl.Tensor, name):
            raise Missing(f"missing: refimpl.Tensor.{name}")
        method: Callable[..., Any] = getattr(refimpl.Tensor, name)
        return method
    if isinstance(fn, torch._ops.OpOverload):
        qualified: str = fn.name()  # type: ignore[no-untyped-call]  # torch's stubs
        packet, _, overload = qualified.removeprefix("aten::").partition(".")
        return _refimpl_path(f"ops.aten.{packet}.{overload or 'default'}")
    if isinstance(fn, torch._ops.OpOverloadPacket):
        return _refimpl_path(f"ops.aten.{fn._qualified_op_name.removeprefix('aten::')}")
    if module.startswith(_RUN_AS_IS_MODULES) and isinstance(fn, types.FunctionType):
        return _with_torch_as_refimpl(fn)
    if module.startswith(_RUN_AS_IS_MODULES) or fn in _OPERATOR_FUNCTIONS:
        return fn
    path = torch_path(fn)
    if path is None:
        raise Missing(f"unmapped torch callable {module}.{qualname or fn!r}")
    return _refimpl_path(path)


def _with_torch_as_refimpl(fn: types.FunctionType) -> Callable[..., Any]:
    """An OpInfo lambda that names the `torch` module, with `torch` bound to refimpl (the
    lambda's own code and closure, other globals unchanged); other lambdas as they are.

    OpInfos such as where (`lambda self, condition, other: torch.where(condition, self,
    other)`) call torch functions by name; run on the target, they must call its functions.
    """
    names = fn.__code__.co_names
    if "torch" not in names and "wrapper_set_seed" not in names:
        return fn
    rebound = types.FunctionType(
        fn.__code__,
        {**fn.__globals__, "torch": refimpl, "wrapper_set_seed": _refimpl_wrapper_set_seed},
        fn.__name__,
        fn.__defaults__,
        fn.__closure__,
    )
    rebound.__kwdefaults__ = fn.__kwdefaults__
    rebound.__qualname__ = fn.__qualname__
    rebound.__module__ = fn.__module__
    return rebound


def _refimpl_wrapper_set_seed(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """torch.testing._utils.wrapper_set_seed for refimpl: the random OpInfos (bernoulli,
    randn, normal, ...) call their op after `manual_seed(42)` with the generator's state
    restored afterwards; on the target the seed must be refimpl's, so that its values can
    equal torch's."""
    state = refimpl.get_rng_state()
    refimpl.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        refimpl.set_rng_state(state)


_OPERATOR_FUNCTIONS: Final = frozenset(
    getattr(operator, n) for n in dir(operator) if not n.startswith("_")
)


def make_target(name: str) -> Target:
    """The target called `name`: "torch", or a refimpl backend from REGISTRY.names()."""
    if name == TORCH_TARGET:
        return TorchTarget()
    if name not in REGISTRY.names():
        raise ValueError(
            f"unknown target {name!r}; choose torch or a backend: {', '.join(REGISTRY.names())}"
        )
    return RefimplTarget(name)


def target_names() -> list[str]:
    return [TORCH_TARGET, *REGISTRY.names()]


def all_values(value: Any) -> Iterator[Any]:
    """Every leaf of a nested sample value (containers flattened, dicts by value)."""
    if type(value) in (list, tuple):
        for v in value:
            yield from all_values(v)
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from all_values(v)
    else:
        yield value
