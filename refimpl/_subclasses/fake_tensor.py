"""FakeTensor and FakeTensorMode: tensors with metadata and a device but no data.

Torch: torch/_subclasses/fake_tensor.py and fake_impls.py. A FakeTensor is a tensor whose
storage is a meta storage (sizes in bytes, no array) and which reports the device it stands
for (`fake_device`) as its `device`. Inside a FakeTensorMode every op is handed to the mode
at the Python key: it runs the op's Meta kernel on meta aliases of its FakeTensor arguments
and wraps the results as FakeTensors on the op's device; factories make FakeTensors on the
device they are asked for; ops whose output depends on the data raise.
The per-op rules (which device a result is on, which ops raise for data-dependent output)
and the exceptions live in fake_impls.py, as in torch.

Note [Running an op on meta]
The mode's handler replaces each FakeTensor argument with a plain meta tensor that shares its
storage, geometry and version counter (`_unwrap`), runs the op with the Python keys excluded
(torch: in_kernel_invocation_manager, which adds Meta to the included keys and disables
__torch_dispatch__), then maps the results back (`_wrap`): a result that *is* one of the meta
aliases (in-place and out= ops) becomes the FakeTensor it stands for, after taking any new
geometry the op gave it (`resize_`, `t_`); any other result becomes a new FakeTensor on the
op's device. Views share the storage of what they view, so aliasing carries over; a view op's
result gets its input's root as `_base`, as torch's ADInplaceOrView (as_view) gives it.

Differs: refimpl has no symbolic shapes: no ShapeEnv, no unbacked symbols, no constant
propagation (`torch.tensor(3.0).item()` inside the mode raises here; torch keeps the value of
small constants), no fake-kernel cache, no fallback to real kernels for ops without a Meta
kernel, no propagation of real tensors. See pytorch-semantics.md §4.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Final, Self

from refimpl._base.device import as_device, device
from refimpl._base.keys import PYTHON_KEYS, key_set_for_device
from refimpl._base.tags import Tag
from refimpl._subclasses.fake_impls import (
    DATA_DEPENDENT_CHECKS,
    INPUT_DEVICE_OPS,
    LIFT_FNS,
    LIKE_CONSTRUCTORS,
    OWN_DYNAMIC_RULE,
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensorDeviceMismatchError,
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
    find_common_device,
    is_tensor_constructor,
    is_view_op,
)
from refimpl.api._tensor_str import print_without_values, printoptions
from refimpl.api.tensor import Tensor
from refimpl.autograd.grad_mode import no_grad
from refimpl.core.storage import Storage
from refimpl.core.tensor import TensorImpl, make_tensor
from refimpl.dispatch import python_dispatch
from refimpl.dispatch.overloads import OpOverload
from refimpl.dispatch.tls import ExcludeDispatchKeyGuard
from refimpl.utils._python_dispatch import TorchDispatchMode

__all__ = [
    "DataDependentOutputException",
    "DynamicOutputShapeException",
    "FakeTensor",
    "FakeTensorConverter",
    "FakeTensorDeviceMismatchError",
    "FakeTensorMode",
    "UnsupportedFakeTensorException",
    "UnsupportedOperatorException",
    "in_kernel_invocation_manager",
    "is_fake",
    "maybe_get_fake_mode",
]

_META: Final = device("meta")
_CPU: Final = device("cpu")
_PYTHON_KEYS_RAW: Final = PYTHON_KEYS.raw


# --- FakeTensor ---------------------------------------------------------------------------------


def _normalize_fake_device(dev: device) -> device:
    # torch: FakeTensor._normalize_fake_device: an indexed device type without an index is
    # its current device (0 here: refimpl keeps no current CUDA device).
    if dev.type not in ("cpu", "meta") and dev.index is None:
        return device(dev.type, 0)
    return dev


class FakeTensor(Tensor):
    """A tensor with metadata and a device but no data, made by a FakeTensorMode.

    Torch: torch._subclasses.fake_tensor.FakeTensor. Its storage is a meta storage; `device`
    is `fake_device`, the device it stands for; `fake_mode` is the mode that made it. Ops on it
    run under its mode (see Note [Running an op on meta]).
    """

    __slots__ = ("constant", "fake_mode", "real_tensor")

    _storage: FakeStorage
    fake_mode: FakeTensorMode
    constant: Any
    """Differs: always None; refimpl does no constant propagation."""
    real_tensor: Any

    @property
    def fake_device(self) -> device:
        """The device this tensor stands for: its `device`. Torch: FakeTensor.fake_device."""
        return self._storage.device

    def untyped_storage(self) -> Storage:
        """The meta storage (torch: a FakeTensor's storage is a meta storage)."""
        return self._storage.meta

    @staticmethod
    def from_tensor(t: Any, fake_mode: FakeTensorMode) -> FakeTensor:
        """Torch: FakeTensor.from_tensor (fake_mode.from_tensor(t))."""
        return fake_mode.from_tensor(t)

    def tolist(self) -> Any:
        """Nested lists of `item()`s, which raise DataDependentOutputException.

        Torch: FakeTensor.tolist.
        """
        if self.dim() == 0:
            return self.item()
        # `unbind(0)` is what iterating over a tensor runs (torch: Tensor.__iter__).
        if self.dim() == 1:
            return [elem.item() for elem in self.unbind(0)]
        return [elem.tolist() for elem in self.unbind(0)]

    @classmethod
    def __torch_dispatch__(
        cls, func: OpOverload, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        """An op reached a FakeTensor outside its mode: run it under the mode.

        Torch: FakeTensor.__torch_dispatch__ (NotImplemented for subclasses it does not know
        and when a FakeTensorMode already runs, so the mode handles the op).
        """
        if any(not issubclass(t, FakeTensor) for t in types):
            return NotImplemented
        fake_mode = next(
            (a.fake_mode for a in _flat_tensors(args, kwargs or {}) if isinstance(a, FakeTensor)),
            None,
        )
        if fake_mode is None:
            raise AssertionError("Could not find a FakeTensor in the arguments")
        if any(isinstance(m, FakeTensorMode) for m in python_dispatch.PYTHON_DISPATCH_STATE.modes):
            return NotImplemented
        with fake_mode:
            return func(*args, **(kwargs or {}))


print_without_values(FakeTensor)


class FakeStorage(Storage):
    """The storage of FakeTensors: no data, the fake device, and the meta storage that the
    meta aliases of those FakeTensors share (see Note [Fake storages]).

    Torch: a FakeTensor's TensorImpl reports its fake device (dispatch_device) over a meta
    storage.
    """

    __slots__ = ("meta",)

    def __init__(self, meta: Storage, dev: device) -> None:
        super().__init__(None, meta.size_elements, meta.dtype, dev, None)
        self.meta = meta


# Note [Fake storages]
# refimpl's kernels and autograd formulas read a tensor's device from its storage
# (`t._storage.device`, e.g. `scalar_tensor(0., device=grad._storage.device)` in a backward
# formula), where torch's C++ asks the FakeTensor, which answers its fake device. So a
# FakeTensor's storage is a FakeStorage on the fake device, paired with one meta storage:
# the meta aliases an op runs on hold the meta storage, and results over a meta storage map
# back to its FakeStorage, so FakeTensors alias exactly when their meta aliases do.


def _new_fake(mode: FakeTensorMode, elem: TensorImpl, dev: device) -> FakeTensor:
    """A FakeTensor over meta tensor `elem` (its storage, geometry, version counter), with
    no autograd history, on `dev`.

    Torch: FakeTensor.__new__ (`Tensor._make_subclass(cls, elem, device_for_backend_keys=
    device)`: the key set is that of a tensor of the fake device, plus the Python keys).
    """
    if elem.device.type != "meta":
        raise AssertionError(f"elem.device.type must be 'meta', got {elem.device.type}")
    out: FakeTensor = object.__new__(FakeTensor)
    out._storage = mode.fake_tensor_converter.fake_storage(elem._storage, dev)
    out._size = elem._size
    out._stride = elem._stride
    out._storage_offset = elem._storage_offset
    out._dtype = elem._dtype
    out._counter = elem._counter
    out._meta_token = None
    out._base = None
    out._autograd_meta = None
    out._array_cache = None
    out._key_set = key_set_for_device(dev.type).raw_repr() | _PYTHON_KEYS_RAW
    out.fake_mode = mode
    out.constant = None
    out.real_tensor = None
    return out


def _unwrap(t: FakeTensor) -> Tensor:
    # See Note [Running an op on meta]: a plain meta tensor over the FakeTensor's storage,
    # with its version counter and its root as `_base` (so views of it have the same root).
    plain: Tensor = object.__new__(Tensor)
    plain._storage = t._storage.meta
    plain._size = t._size
    plain._stride = t._stride
    plain._storage_offset = t._storage_offset
    plain._dtype = t._dtype
    plain._key_set = _META_KEY_SET
    plain._counter = t._version_counter
    plain._meta_token = None
    plain._base = t._base
    plain._autograd_meta = None
    plain._array_cache = None
    return plain


_META_KEY_SET: Final = key_set_for_device("meta").raw_repr()


def _flat_tensors(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    # Schema arguments nest at most one level (Tensor[], Tensor?[]).
    found: list[Any] = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, TensorImpl))
        elif isinstance(value, TensorImpl):
            found.append(value)
    return found


def _map_tensors(value: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(value, TensorImpl):
        return fn(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, TensorImpl) for v in value):
        mapped = [fn(v) if isinstance(v, TensorImpl) else v for v in value]
        return mapped if isinstance(value, list) else type(value)(mapped)
    return value


def is_fake(x: object) -> bool:
    """Whether `x` is a FakeTensor. Torch: torch._subclasses.fake_tensor.is_fake."""
    return isinstance(x, FakeTensor)


def maybe_get_fake_mode(t: object) -> FakeTensorMode | None:
    """The mode of a FakeTensor, else None. Torch: maybe_get_fake_mode."""
    return t.fake_mode if isinstance(t, FakeTensor) else None


# --- converting real tensors ------------------------------------------------------------------


class FakeTensorConverter:
    """Makes FakeTensors of real tensors, one per real tensor (memoized while it lives).

    Torch: FakeTensorConverter (with MetaConverter, torch/_subclasses/meta_utils.py): the fake
    has the real tensor's sizes, strides, offset, dtype and device, a meta storage of the same
    number of bytes shared by the fakes of every tensor that shares the real storage, its
    `requires_grad`, and a fake of its `.grad`.
    """

    def __init__(self, *, copy_data: bool = False, export: bool = False) -> None:
        self.tensor_memo: dict[int, tuple[weakref.ref[Any], FakeTensor]] = {}
        self._storage_memo: dict[int, tuple[weakref.ref[Storage], Storage]] = {}
        self._fake_storages: weakref.WeakValueDictionary[int, FakeStorage] = (
            weakref.WeakValueDictionary()
        )

    def from_real_tensor(
        self,
        fake_mode: FakeTensorMode,
        t: Any,
        make_constant: bool = False,
        shape_env: Any = None,
        *,
        source: Any = None,
        symbolic_context: Any = None,
        trace: bool = True,
    ) -> FakeTensor:
        """The FakeTensor of real tensor `t` (the same object each time). Torch: the same.

        Differs: a real tensor with a grad_fn becomes a fake *leaf* that requires grad (torch
        gives it a placeholder grad_fn), and views of `t` keep their root as `_base`.
        """
        if shape_env is not None:
            raise NotImplementedError(
                "refimpl: FakeTensorMode has no symbolic shapes (shape_env must be None)"
            )
        memo = self.tensor_memo.get(id(t))
        if memo is not None and memo[0]() is t:
            return memo[1]
        if isinstance(t, FakeTensor):
            raise UnsupportedFakeTensorException("FakeTensor of a FakeTensor")
        elem = make_tensor(
            self._meta_storage(t._storage),
            t._size,
            t._stride,
            t._storage_offset,
            t._dtype,
        )
        out = _new_fake(fake_mode, elem, t.device)
        if t._base is not None:
            base = self.from_real_tensor(fake_mode, t._base)
            out._base = base
            out._counter = base._version_counter
        if t.requires_grad:
            with no_grad():
                out.requires_grad_(True)
        grad = t.grad if t.is_leaf else None
        if grad is not None:
            out.grad = self.from_real_tensor(fake_mode, grad)
        self.set_tensor_memo(t, out)
        return out

    def set_tensor_memo(self, t: Any, v: FakeTensor) -> None:
        """Remember `v` as the fake of `t` while `t` lives. Torch: set_tensor_memo."""
        key = id(t)
        self.tensor_memo[key] = (weakref.ref(t, lambda _: self.tensor_memo.pop(key, None)), v)

    def _meta_storage(self, storage: Storage) -> Storage:
        memo = self._storage_memo.get(id(storage))
        if memo is not None and memo[0]() is storage:
            return memo[1]
        meta = Storage(None, storage.size_elements, storage.dtype, _META, None)
        key = id(storage)
        self._storage_memo[key] = (
            weakref.ref(storage, lambda _: self._storage_memo.pop(key, None)),
            meta,
        )
        return meta

    def fake_storage(self, meta: Storage, dev: device) -> FakeStorage:
        """The FakeStorage of meta storage `meta` (see Note [Fake storages])."""
        found = self._fake_storages.get(id(meta))
        if found is not None and found.meta is meta:
            return found
        made = FakeStorage(meta, _normalize_fake_device(dev))
        self._fake_storages[id(meta)] = made
        return made

    def from_meta_and_device(self, fake_mode: FakeTensorMode, t: Any, dev: device) -> FakeTensor:
        """A FakeTensor over meta tensor `t`, on `dev`. Torch: the same."""
        return _new_fake(fake_mode, t, dev)


# --- the mode -----------------------------------------------------------------------------------


class in_kernel_invocation_manager:
    """Run an op's Meta kernel: the Python keys excluded, `fake_mode.in_kernel_invocation` set.

    Torch: in_kernel_invocation_manager (which also TLS-includes Meta; refimpl hands the
    kernel meta aliases instead, see Note [Running an op on meta]).
    """

    def __init__(self, fake_mode: FakeTensorMode) -> None:
        self._mode = fake_mode
        self._guard = ExcludeDispatchKeyGuard(PYTHON_KEYS)
        self._previous = False

    def __enter__(self) -> None:
        self._previous = self._mode.in_kernel_invocation
        self._mode.in_kernel_invocation = True
        self._guard.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._guard.__exit__(None, None, None)
        self._mode.in_kernel_invocation = self._previous


def _render_call(func: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    # torch: render_call in torch/_utils.py (tensors without values).
    with printoptions(threshold=0, edgeitems=0):
        parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


class FakeTensorMode(TorchDispatchMode):
    """Run ops on FakeTensors: metadata and devices propagate, no data is computed.

    Torch: torch._subclasses.fake_tensor.FakeTensorMode. Inside it factories make FakeTensors
    on the device they name, ops on FakeTensors give FakeTensors on the op's device, real
    tensors are refused unless `allow_non_fake_inputs`, and data-dependent ops raise
    DataDependentOutputException or DynamicOutputShapeException.
    Differs: no ShapeEnv (`shape_env` must be None; shapes are static), no fallback kernels
    (`allow_fallback_kernels` is accepted and ignored), no fake-kernel cache.
    """

    in_kernel_invocation: bool
    allow_non_fake_inputs: bool

    def __init__(
        self,
        *,
        allow_fallback_kernels: bool = True,
        allow_non_fake_inputs: bool = False,
        shape_env: Any = None,
        static_shapes: bool | None = None,
        export: bool = False,
    ) -> None:
        super().__init__()
        if shape_env is not None:
            raise NotImplementedError(
                "refimpl: FakeTensorMode has no symbolic shapes (shape_env must be None)"
            )
        self.allow_fallback_kernels = allow_fallback_kernels
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.fake_tensor_converter = FakeTensorConverter(export=export)
        self.shape_env = None
        self.static_shapes = True if static_shapes is None else static_shapes
        self.allow_meta = True
        self.in_kernel_invocation = False
        self._entered: list[bool] = []

    @classmethod
    def is_infra_mode(cls) -> bool:
        return True

    def is_our_fake(self, t: object) -> bool:
        """Whether `t` is a FakeTensor of this mode. Torch: is_our_fake."""
        return isinstance(t, FakeTensor) and t.fake_mode is self

    def from_tensor(
        self,
        tensor: Any,
        *,
        static_shapes: bool | None = None,
        source: Any = None,
        symbolic_context: Any = None,
        trace: bool = True,
    ) -> FakeTensor:
        """The FakeTensor of real tensor `tensor`, memoized. Torch: FakeTensorMode.from_tensor."""
        return self.fake_tensor_converter.from_real_tensor(self, tensor)

    # --- entering: an infra mode sits below every user mode -------------------------------

    def __enter__(self) -> Self:
        # torch: FakeTensorMode is an infra mode, kept in its own slot below the user modes
        # (TorchDispatchModeTLS::set_mode), so user modes see each op first whatever the
        # order they were entered in; entering the active fake mode again changes nothing.
        modes = python_dispatch.PYTHON_DISPATCH_STATE.modes
        if any(m is self for m in modes):
            self._entered.append(False)
            return self
        python_dispatch.push_mode(self)
        modes.remove(self)
        modes.insert(_infra_position(modes), self)
        self._entered.append(True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        if not self._entered.pop():
            return
        modes = python_dispatch.PYTHON_DISPATCH_STATE.modes
        if modes and modes[-1] is self:
            python_dispatch.pop_mode()
        else:
            modes.remove(self)

    # --- the handler ------------------------------------------------------------------------

    def __torch_dispatch__(
        self, func: OpOverload, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        """Torch: FakeTensorMode.__torch_dispatch__ and _dispatch_impl."""
        kwargs = dict(kwargs or {})
        # torch: a subclass the mode does not know gets its own __torch_dispatch__.
        if any(not issubclass(t, FakeTensor) for t in types):
            return NotImplemented
        # torch: a lift (torch.tensor, a Python number assigned by indexing) of a real tensor
        # is its FakeTensor.
        if func.name() in LIFT_FNS and len(args) == 1 and not isinstance(args[0], FakeTensor):
            return self.from_tensor(args[0])
        args, kwargs = self._validate_and_convert(func, tuple(args), kwargs)
        check = DATA_DEPENDENT_CHECKS.get(func.name())
        if check is not None:
            check(func, args, kwargs)
        tags = func.tags
        if Tag.dynamic_output_shape in tags and func.name() not in OWN_DYNAMIC_RULE:
            raise DynamicOutputShapeException(func)
        if Tag.data_dependent_output in tags:
            raise DataDependentOutputException(func)
        return self._run_on_meta(func, args, kwargs)

    def _validate_and_convert(
        self, func: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # torch: validate_and_convert_non_fake_tensors.
        real = [t for t in _flat_tensors(args, kwargs) if not self.is_our_fake(t)]
        if not real:
            return args, kwargs
        if Tag.inplace_view in func.tags:
            raise AssertionError(
                "Can't call metadata mutating ops on non-Fake Tensor inputs. Found in "
                f"{_render_call(func, args, kwargs)}"
            )
        if not self.allow_non_fake_inputs:
            other = next((t for t in real if isinstance(t, FakeTensor)), None)
            if other is not None:
                raise AssertionError(
                    f"Mixing fake modes NYI x.fake_mode={other.fake_mode} vs self={self}"
                )
            raise AssertionError(
                "Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode "
                f"with 'allow_non_fake_inputs'. Found in {_render_call(func, args, kwargs)}"
            )

        def convert(t: Any) -> Any:
            return t if self.is_our_fake(t) else self.from_tensor(t)

        return (
            tuple(_map_tensors(a, convert) for a in args),
            {k: _map_tensors(v, convert) for k, v in kwargs.items()},
        )

    def _run_on_meta(self, func: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # See Note [Running an op on meta].
        fakes = _flat_tensors(args, kwargs)
        # The output device: a factory's `device=` (cpu by default), a like-constructor's
        # `device=` (its input's by default), an op's `device=` (`_to_copy`), else the common
        # device of the FakeTensor arguments (torch: constructors in fake_impls.py and
        # wrap_meta_outputs_with_default_device_logic).
        requested = kwargs.get("device")
        out_device: device | None = None
        if requested is not None:
            out_device = _normalize_fake_device(as_device(requested))
            kwargs["device"] = _META
        elif func._schema.name in LIKE_CONSTRUCTORS or func.name() in INPUT_DEVICE_OPS:
            out_device = fakes[0].fake_device
        elif is_tensor_constructor(func):
            out_device = _CPU
            kwargs["device"] = _META
        unwrapped: dict[int, tuple[FakeTensor, Tensor]] = {}

        def unwrap(t: Any) -> Any:
            plain = _unwrap(t)
            unwrapped[id(plain)] = (t, plain)
            return plain

        meta_args = tuple(_map_tensors(a, unwrap) for a in args)
        meta_kwargs = {k: _map_tensors(v, unwrap) for k, v in kwargs.items()}
        with in_kernel_invocation_manager(self):
            result = func(*meta_args, **meta_kwargs)
        for fake, plain in unwrapped.values():
            _take_geometry(fake, plain)
        if not _holds_tensor(result):
            return result
        if out_device is None:
            out_device = find_common_device(func, fakes)
        view_root = None
        if is_view_op(func) and isinstance(args[0], FakeTensor):
            view_root = args[0]._base if args[0]._base is not None else args[0]
        dev = out_device

        def wrap(t: Any) -> Any:
            found = unwrapped.get(id(t))
            if found is not None and found[1] is t:
                return found[0]
            out = _new_fake(self, t, dev)
            if view_root is not None:
                out._base = view_root
            return out

        return _map_tensors(result, wrap)

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"


def _infra_position(modes: list[Any]) -> int:
    # Below every user mode, above the infra modes already there.
    return sum(1 for m in modes if getattr(type(m), "is_infra_mode", lambda: False)())


def _holds_tensor(result: Any) -> bool:
    if isinstance(result, TensorImpl):
        return True
    return isinstance(result, (list, tuple)) and any(isinstance(r, TensorImpl) for r in result)


def _take_geometry(fake: FakeTensor, plain: Tensor) -> None:
    # An op that changed its argument's metadata in place (resize_, t_, as_strided_, set_)
    # changed the meta alias's: the FakeTensor takes it.
    storage = fake._storage
    if (
        plain._size is fake._size
        and plain._stride is fake._stride
        and plain._storage is storage.meta
        and plain._storage_offset == fake._storage_offset
    ):
        return
    fake._size = plain._size
    fake._stride = plain._stride
    if plain._storage is not storage.meta:
        converter = fake.fake_mode.fake_tensor_converter
        fake._storage = converter.fake_storage(plain._storage, storage.device)
    fake._storage_offset = plain._storage_offset
    fake._dtype = plain._dtype
    fake._meta_token = None
