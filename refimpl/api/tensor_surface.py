"""The rest of torch.Tensor's dense surface: Python protocols, element callbacks, the legacy
constructor and resizes, set_, storage and memory queries, and the flags torch keeps for
layouts and devices refimpl does not have.

Torch: torch/_tensor.py (__contains__, __reversed__, __array_wrap__, __setstate__,
__dlpack__, __dlpack_device__, resize, resize_as, share_memory_, is_shared, dim_order,
module_load) and the TensorBase bindings of torch/csrc/autograd/python_variable.cpp and
python_variable_methods.cpp (apply_, map_, map2_, new, the is_* flags, volatile, _grad,
_grad_fn, _backward_hooks, name). The aten ops these reach are in ops/tensor_set.py.
"""

from __future__ import annotations

import enum
import itertools
import numbers
import types
import warnings
from collections.abc import Callable
from typing import Any, Final

from refimpl._base.device import as_device
from refimpl._base.dtypes import DType
from refimpl._base.memory_format import channels_last, memory_format
from refimpl.api import _tensor_elements, _tensor_new, factories
from refimpl.api._call import method, torch_function
from refimpl.autograd.function import Function, FunctionCtx
from refimpl.autograd.variable import AutogradMeta
from refimpl.autograd.views import current_grad_fn
from refimpl.core import strides as geometry
from refimpl.core.tensor import (
    CONJUGATE_BIT,
    NEGATIVE_BIT,
    TensorImpl,
    array_of,
    make_tensor,
    requires_grad,
)
from refimpl.ops import aten
from refimpl.ops.selection import type_meta_name

__all__ = ["_addmm_activation", "_is_all_true", "_is_any_true", "_lazy_clone", "slice_inverse"]

# torch.* bindings of the aten ops in ops/tensor_set.py (fill_diagonal_, set_ and is_set_to
# are Tensor methods only).
_is_all_true = torch_function("_is_all_true")
_is_any_true = torch_function("_is_any_true")
_lazy_clone = torch_function("_lazy_clone")
_addmm_activation = torch_function("_addmm_activation")
slice_inverse = torch_function("slice_inverse")


class DLDeviceType(enum.IntEnum):
    """The DLPack device types. Torch: torch.utils.dlpack.DLDeviceType (dlpack.h's values)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLExtDev = 12
    kDLOneAPI = 14


# torch: __dlpack_device__'s choice of a DLPack device type for each torch device type.
_DLPACK_DEVICE_TYPES: Final[dict[str, DLDeviceType]] = {
    "cpu": DLDeviceType.kDLCPU,
    "cuda": DLDeviceType.kDLCUDA,
    "xpu": DLDeviceType.kDLOneAPI,
    "privateuse1": DLDeviceType.kDLExtDev,
    "mps": DLDeviceType.kDLMetal,
}


class _Unwrapped:
    """A method the protocol's installer (install_on_tensor) leaves as it is, because torch's
    binding reports another function to a TorchFunctionMode, or none: not a function, so
    the installer passes over it.

    Torch: `x.__nonzero__()` and `x.__long__()` run the C functions of `__bool__` and
    `__int__`, so a mode is told of Tensor.__bool__ / __int__ (the methods called here,
    which are overridable); Tensor.set_'s binding runs no __torch_function__ check at all
    (measured on torch 2.13: a mode sees only the aten.set_ overload below it).
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __get__(self, instance: object, owner: type) -> Any:
        return self.fn if instance is None else types.MethodType(self.fn, instance)


def _nonzero(self: Any) -> bool:
    """Torch: Tensor.__nonzero__, Python 2's name of __bool__."""
    result: bool = self.__bool__()
    return result


def _long(self: Any) -> int:
    """Torch: Tensor.__long__, Python 2's name of __int__."""
    result: int = self.__int__()
    return result


_REINFORCE_MESSAGE: Final = (
    "reinforce() was removed.\nUse torch.distributions instead.\n"
    "See https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\n"
    "probs = policy_network(state)\naction = probs.multinomial()\n"
    "next_state, reward = env.step(action)\naction.reinforce(reward)\naction.backward()\n\n"
    "Use:\n\nprobs = policy_network(state)\n"
    "# NOTE: categorical is equivalent to what used to be called multinomial\n"
    "m = torch.distributions.Categorical(probs)\naction = m.sample()\n"
    "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
    "loss.backward()\n"
)


class TensorSurfaceMethods:
    """The legacy and protocol half of refimpl.Tensor's surface."""

    __slots__ = ()

    # --- Python protocols ----------------------------------------------------------------

    def __contains__(self: Any, element: Any, /) -> bool:
        """Whether some element equals `element` (a tensor or a number). Torch:
        Tensor.__contains__: (element == self).any().item()."""
        if isinstance(element, (TensorImpl, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )

    def __reversed__(self: Any) -> Any:
        """The tensor flipped along dim 0 (a 0-dim tensor is itself). Torch:
        Tensor.__reversed__."""
        return self if not self._size else self.flip(0)

    __nonzero__ = _Unwrapped(_nonzero)
    __long__ = _Unwrapped(_long)

    def __delitem__(self: Any, index: object) -> None:
        # torch: THPVariable's mapping protocol has no item deletion.
        raise TypeError("Tensor does not support deleting items")

    def __array_wrap__(self: Any, array: Any) -> Any:
        """A NumPy ufunc's result as a tensor over the same memory. Torch:
        Tensor.__array_wrap__ (torch.from_numpy; bool arrays become uint8 first)."""
        if str(array.dtype) == "bool":
            array = array.astype("uint8")
        return factories.from_numpy(array)

    def __setstate__(self: Any, state: Any) -> None:
        """Restore a legacy pickled state. Torch: Tensor.__setstate__: a 4-tuple (storage,
        storage_offset, size, stride) is set_; a 5-tuple is a legacy Variable (data, _,
        backward_hooks, requires_grad, volatile); a 3-tuple is (requires_grad, volatile,
        backward_hooks). Pickling itself goes through __reduce_ex__, which never calls it."""
        if current_grad_fn(self) is not None:
            raise RuntimeError("__setstate__ can be only called on leaf Tensors")
        if len(state) == 4:
            self.set_(*state)
            return
        if len(state) == 5:
            self.data = state[0]
            state = (state[3], state[4], state[2])
        self.requires_grad, _, self._backward_hooks = state

    def __getstate__(self: Any) -> Any:
        """The instance attributes a subclass added, or None. Torch: object.__getstate__ of a
        Tensor, whose fields live in the C++ TensorImpl, not in the instance: refimpl's live
        in slots, which are no more part of this state than torch's are."""
        return getattr(self, "__dict__", None) or None

    def __dlpack__(
        self: Any,
        *,
        stream: Any = -1,
        max_version: tuple[int, int] | None = None,
        dl_device: Any = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule over this tensor's memory: the backend array's own.

        Torch: Tensor.__dlpack__ (torch.utils.dlpack.to_dlpack): its refusals, then a
        capsule ("dltensor", or "dltensor_versioned" when `max_version` is given). On a
        device without streams, stream -1 means None.
        """
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if self._key_set & CONJUGATE_BIT:
            raise BufferError("Can't export tensors with the conjugate bit set")
        device_type = self.device.type
        if device_type not in _DLPACK_DEVICE_TYPES or self._storage.backend is None:
            raise BufferError(f"Cannot pack tensors on {self.device}")
        # On a backend without strided views (array_api_strict) a non-contiguous tensor's
        # array is a gathered copy, so its capsule shares no memory with the tensor.
        # torch packs the memory as it is: a tensor with the negative bit exports the values
        # before the bit (read through a plain alias of the same geometry).
        plain = self
        if self._key_set & NEGATIVE_BIT:
            plain = make_tensor(
                self._storage, self._size, self._stride, self._storage_offset, self._dtype
            )
        array = array_of(plain)
        export = getattr(array, "__dlpack__", None)
        if export is None:
            # Differs: torch packs its own memory; refimpl exports the backend's array.
            raise BufferError(
                f"refimpl: the '{self._storage.backend.name}' backend's arrays have no __dlpack__"
            )
        if device_type == "cpu" and stream == -1:
            stream = None
        kwargs: dict[str, Any] = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return export(**kwargs)

    def __dlpack_device__(self: Any) -> tuple[DLDeviceType, int]:
        """(DLPack device type, device index). Torch: Tensor.__dlpack_device__."""
        dev = self.device
        kind = _DLPACK_DEVICE_TYPES.get(dev.type)
        if kind is None:
            raise ValueError(f"Unknown device type {dev.type} for Dlpack")
        if dev.type == "cpu" and self.is_pinned():
            kind = DLDeviceType.kDLCUDAHost
        return kind, dev.index if dev.index is not None else 0

    # --- element callbacks ---------------------------------------------------------------

    def apply_(self: Any, callable: Any) -> Any:
        """Each element replaced by `callable(element)`, in row-major order.

        Torch: THPVariable_apply_ (python_variable_methods.cpp; tensor_apply.cpp, CPU only).
        It writes below the dispatcher: no aten op runs and the version is not bumped.
        """
        if requires_grad(self):
            raise RuntimeError(
                "Can't call apply_() on Variable that requires grad. Use "
                "var.detach().apply_() instead."
            )
        if self.is_meta:
            return self  # torch: a meta tensor has no elements to visit
        _tensor_elements.check_cpu("apply_", self)
        _tensor_elements.apply_elements(self, (), callable)
        return self

    def map_(self: Any, tensor: Any, callable: Any) -> Any:
        """Each element replaced by `callable(element, other's element)`, `tensor` broadcast to
        this tensor's shape. Torch: THPVariable_map_ (CPU only, no version bump)."""
        _tensor_elements.check_tensor_argument("map_", "other", 1, tensor)
        if requires_grad(self) or requires_grad(tensor):
            raise RuntimeError(
                "Can't call map_() on Variable that requires grad. Use var.detach().map_() instead."
            )
        _tensor_elements.check_same_type(self, tensor, "map_: expected {} for 'other' (got {})")
        if self.is_meta:
            return self
        _tensor_elements.check_cpu("map_", self)
        other = _tensor_elements.expanded(tensor, self._size)
        _tensor_elements.apply_elements(self, (other,), callable)
        return self

    def map2_(self: Any, x: Any, y: Any, callable: Any) -> Any:
        """Each element replaced by `callable(element, x's, y's)`, `x` and `y` broadcast to
        this tensor's shape. Torch: THPVariable_map2_ (CPU only, no version bump)."""
        _tensor_elements.check_tensor_argument("map2_", "x", 1, x)
        _tensor_elements.check_tensor_argument("map2_", "y", 2, y)
        if requires_grad(self) or requires_grad(x) or requires_grad(y):
            raise RuntimeError(
                "Can't call map2_() on Variable that requires grad. Use "
                "var.detach().map2_() instead."
            )
        _tensor_elements.check_same_type(self, x, "map2_: expected {} for argument 'x' (got {})")
        _tensor_elements.check_same_type(self, y, "map2_: expected {} for argument 'y' (got {})")
        if self.is_meta:
            return self
        _tensor_elements.check_cpu("map2_", self, x, y)
        first = _tensor_elements.expanded(x, self._size)
        second = _tensor_elements.expanded(y, self._size)
        _tensor_elements.apply_elements(self, (first, second), callable)
        return self

    # --- the legacy constructor and resizes ------------------------------------------------

    def new(self: Any, *args: Any, **kwargs: Any) -> Any:
        """A tensor of this tensor's dtype and device type: empty with the given sizes, over a
        storage, an alias of a tensor of the same dtype, or a copy of sequence data.

        Torch: Tensor.new, torch/csrc/utils/tensor_new.cpp's legacy_tensor_new: its
        signatures are (*, device), (Storage), (Tensor other), (sizes, *, device) and
        (PyObject data, *, device).
        """
        return _tensor_new.legacy_new(self, args, kwargs)

    def resize(self: Any, *sizes: Any) -> Any:
        """A tensor of `sizes` holding the same elements, recorded by autograd. Torch:
        Tensor.resize (deprecated; torch.autograd._functions.Resize)."""
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        return Resize.apply(self, sizes)

    def resize_as(self: Any, tensor: Any) -> Any:
        """resize to `tensor`'s sizes. Torch: Tensor.resize_as (deprecated)."""
        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        return Resize.apply(self, tensor.size())

    set_ = _Unwrapped(method("set_"))
    is_set_to = method("is_set_to")
    fill_diagonal_ = method("fill_diagonal_")
    slice_inverse = method("slice_inverse")
    _is_all_true = method("_is_all_true")
    _is_any_true = method("_is_any_true")
    _lazy_clone = method("_lazy_clone")
    _addmm_activation = method("_addmm_activation")
    _to_dense = method("_to_dense")

    def to_dense(self: Any, dtype: DType | None = None, *, masked_grad: bool | None = None) -> Any:
        """A strided tensor: this one (converted to `dtype` if given). Torch: to_dense
        (CompositeImplicitAutograd): a strided tensor returns itself or self.to(dtype)."""
        return self if dtype is None else self.to(dtype)

    def module_load(self: Any, other: Any, assign: bool = False) -> Any:
        """What load_state_dict swaps in for this tensor: `other` detached, or this tensor
        with `other`'s values, detached. Torch: Tensor.module_load."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    # --- storage and memory ----------------------------------------------------------------

    def share_memory_(self: Any) -> Any:
        """This tensor. Torch: Tensor.share_memory_ moves the storage into memory shared
        between processes.

        Differs: refimpl's backends allocate process-private arrays and cannot move one
        into shared memory; refimpl keeps torch's return value and reports the truth
        through is_shared() (False), rather than claim memory it does not share.
        """
        return self

    def is_shared(self: Any) -> bool:
        """Whether the storage is in memory shared between processes: never in refimpl
        (see share_memory_). Torch: Tensor.is_shared."""
        return False

    is_pinned = method("is_pinned")

    def pin_memory(self: Any, device: Any = None) -> Any:
        """Torch: Tensor.pin_memory, which needs an accelerator's host allocator; refimpl has
        none, so it answers as torch's CPU-only build does."""
        if device is not None:
            warnings.warn(
                "The argument 'device' of Tensor.pin_memory() is deprecated. Please do not "
                "pass this argument. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Memory.cpp:46.)",
                DeprecationWarning,
                stacklevel=2,
            )
            # torch: pin_memory (Memory.cpp) asks is_pinned(device) first, then _pin_memory
            # refuses a CPU device.
            aten.is_pinned.default(self, as_device(device))
            if as_device(device).type == "cpu":
                raise RuntimeError("CPU device type not an accelerator.")
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def const_data_ptr(self: Any) -> int:
        """data_ptr() for reading. Torch: Tensor.const_data_ptr."""
        address: int = self.data_ptr()
        return address

    def dim_order(self: Any, *, ambiguity_check: Any = False) -> tuple[int, ...]:
        """The dims from outermost to innermost in memory. Torch: Tensor.dim_order
        (torch._prims_common.compute_elementwise_output_logical_to_physical_perm)."""
        if not isinstance(ambiguity_check, bool) and (
            not isinstance(ambiguity_check, list)
            or not all(isinstance(f, memory_format) for f in ambiguity_check)
        ):
            raise TypeError(
                "The ambiguity_check argument must be a bool or a list of memory formats."
            )
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        check = ambiguity_check if isinstance(ambiguity_check, bool) else True
        if check and _has_several_dim_orders(self._size, self._stride):
            matching = sum(1 for f in formats if self.is_contiguous(memory_format=f))
            if matching != 1:
                raise RuntimeError(
                    "The tensor does not have unique dim order, or cannot map to exact one "
                    "of the given memory formats."
                )
        order, ambiguous = _dim_order(self, bool(ambiguity_check))
        if ambiguous:
            raise RuntimeError("The tensor does not have unique dim order.")
        return order

    def _use_count(self: Any) -> int:
        """How many owners the TensorImpl has. Torch: Tensor._use_count (its intrusive_ptr
        count, 1 for a tensor held by one Python object). A refimpl tensor is its own impl,
        owned by that one object."""
        return 1

    # --- flags of layouts and devices refimpl does not have ------------------------------

    @property
    def is_sparse(self: Any) -> bool:
        """False: refimpl tensors are strided and dense. Torch: Tensor.is_sparse."""
        return False

    @property
    def is_sparse_csr(self: Any) -> bool:
        """False: refimpl tensors are strided and dense. Torch: Tensor.is_sparse_csr."""
        return False

    @property
    def is_quantized(self: Any) -> bool:
        """False: refimpl tensors are strided and dense. Torch: Tensor.is_quantized."""
        return False

    @property
    def is_nested(self: Any) -> bool:
        """False: refimpl tensors are strided and dense. Torch: Tensor.is_nested."""
        return False

    @property
    def is_mkldnn(self: Any) -> bool:
        """False: refimpl tensors are strided and dense. Torch: Tensor.is_mkldnn."""
        return False

    @property
    def is_mps(self: Any) -> bool:
        """Whether the tensor is on a mps device. Torch: Tensor.is_mps."""
        return bool(self.device.type == "mps")

    @property
    def is_xla(self: Any) -> bool:
        """Whether the tensor is on a xla device. Torch: Tensor.is_xla."""
        return bool(self.device.type == "xla")

    @property
    def is_xpu(self: Any) -> bool:
        """Whether the tensor is on a xpu device. Torch: Tensor.is_xpu."""
        return bool(self.device.type == "xpu")

    @property
    def is_ipu(self: Any) -> bool:
        """Whether the tensor is on a ipu device. Torch: Tensor.is_ipu."""
        return bool(self.device.type == "ipu")

    @property
    def is_maia(self: Any) -> bool:
        """Whether the tensor is on a maia device. Torch: Tensor.is_maia."""
        return bool(self.device.type == "maia")

    @property
    def is_mtia(self: Any) -> bool:
        """Whether the tensor is on a mtia device. Torch: Tensor.is_mtia."""
        return bool(self.device.type == "mtia")

    @property
    def is_vulkan(self: Any) -> bool:
        """Whether the tensor is on a vulkan device. Torch: Tensor.is_vulkan."""
        return bool(self.device.type == "vulkan")

    def is_distributed(self: Any) -> bool:
        """Torch: Tensor.is_distributed, False for every tensor of this build."""
        return False

    def _is_zerotensor(self: Any) -> bool:
        """Whether the tensor is an _efficientzerotensor: refimpl makes none. Torch:
        Tensor._is_zerotensor."""
        return False

    # --- legacy autograd fields --------------------------------------------------------------

    @property
    def volatile(self: Any) -> bool:
        """Always False. Torch: THPVariable_get_volatile, with its warning."""
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    @volatile.setter
    def volatile(self: Any, value: Any) -> None:
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            UserWarning,
            stacklevel=2,
        )

    def reinforce(self: Any, reward: Any) -> None:
        # torch: Tensor.reinforce in torch/_tensor.py (removed, with this advice).
        raise RuntimeError(_REINFORCE_MESSAGE)

    @property
    def name(self: Any) -> None:
        """Torch: TensorBase.name, None for a tensor without a named dim (read-only)."""
        return None

    @property
    def grad_dtype(self: Any) -> DType:
        """The dtype gradients accumulate in: this tensor's. Torch: TensorBase.grad_dtype."""
        dtype: DType = self._dtype
        return dtype

    @grad_dtype.setter
    def grad_dtype(self: Any, value: Any) -> None:
        if current_grad_fn(self) is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        grad = self._grad
        if grad is not None and value is not None and grad._dtype is not value:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{value.scalar_name}' because there is already a "
                f"gradient with dtype '{type_meta_name(grad._dtype)}'. Please clear the "
                "gradient (.grad = None) before changing grad_dtype, or ensure the new "
                "grad_dtype matches the existing gradient's dtype."
            )
        if value is not self._dtype:
            # Differs: torch's engine can accumulate a leaf's gradient in another dtype;
            # refimpl's accumulates in the tensor's own.
            raise NotImplementedError(
                "refimpl: a grad_dtype other than the tensor's dtype is not supported"
            )

    @property
    def _grad(self: Any) -> Any:
        """The gradient field, read without the non-leaf warning. Torch: TensorBase._grad."""
        meta: AutogradMeta | None = self._autograd_meta
        return None if meta is None else meta.grad

    @_grad.setter
    def _grad(self: Any, value: Any) -> None:
        self.grad = value

    @property
    def _grad_fn(self: Any) -> Any:
        """Torch: TensorBase._grad_fn (grad_fn; setting it to None detaches in place)."""
        return current_grad_fn(self)

    @_grad_fn.setter
    def _grad_fn(self: Any, value: Any) -> None:
        if value is not None:
            raise RuntimeError("_grad_fn can be only set to None")
        self.detach_()

    @property
    def _backward_hooks(self: Any) -> Any:
        """The hooks register_hook added to a leaf, by handle id (None before the first).
        Torch: TensorBase._backward_hooks."""
        meta: AutogradMeta | None = self._autograd_meta
        if meta is None or not meta.hooks or current_grad_fn(self) is not None:
            return None
        return meta.hooks

    @_backward_hooks.setter
    def _backward_hooks(self: Any, value: Any) -> None:
        # torch: THPVariable_set_backwards_hooks: None removes the hooks; a dict's hooks run
        # in place of the old ones. Differs: refimpl takes a dict on leaves only.
        meta: AutogradMeta | None = self._autograd_meta
        if value is None:
            if meta is not None:
                meta.hooks.clear()
            return
        if meta is not None and current_grad_fn(self) is None:
            meta.hooks = value

    @property
    def _post_accumulate_grad_hooks(self: Any) -> Any:
        """The post-accumulate-grad hooks of a leaf, by handle id (None before the first).
        Torch: TensorBase._post_accumulate_grad_hooks."""
        meta: AutogradMeta | None = self._autograd_meta
        if meta is None or not meta.post_accumulate_grad_hooks:
            return None
        return meta.post_accumulate_grad_hooks


# --- resize and resize_as ---------------------------------------------------------------------


class Resize(Function):
    """A reshape with the same number of elements. Torch: torch.autograd._functions.Resize."""

    @staticmethod
    def forward(ctx: FunctionCtx, tensor: Any, sizes: Any) -> Any:
        count = geometry.numel(tuple(sizes))
        if tensor.numel() != count:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in "
                f"total), but the given tensor has a size of "
                f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                "autograd's resize can only change the shape of a given tensor, while "
                "preserving the number of elements. "
            )
        ctx.input_sizes = tensor.size()  # type: ignore[attr-defined]  # ctx holds any field
        if tensor.is_contiguous():
            # torch: tensor.new(tensor) (an alias) made contiguous, then viewed.
            return tensor.new(tensor).contiguous().view(*sizes)
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Any) -> Any:
        return grad_output.contiguous().view(ctx.input_sizes), None  # type: ignore[attr-defined]


# --- dim_order --------------------------------------------------------------------------------


def _has_several_dim_orders(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether more than one dim order lays this tensor out: a size-1 dim, or two neighbouring
    dims of equal stride. Torch: dim_order's has_multiple_dim_order."""
    same = any(a == b for a, b in itertools.pairwise(stride))
    return same or any(n == 1 for n in size)


def _dim_order(tensor: Any, ambiguity_check: bool) -> tuple[tuple[int, ...], bool]:
    """The logical-to-physical permutation and whether it is ambiguous.

    Torch: compute_elementwise_output_logical_to_physical_perm in torch/_prims_common: an
    insertion sort of the dims, innermost first, by stride (then by size for equal strides).
    """
    size, stride = tensor._size, tensor._stride
    ndim = len(size)
    if ndim == 0:
        return (), False
    if ndim == 1:
        return (0,), False
    contiguous = tensor.is_contiguous()
    nhwc = ndim == 4 and tensor.is_contiguous(memory_format=channels_last)
    if contiguous and not nhwc:
        return tuple(range(ndim)), False
    if nhwc and not contiguous:
        return (0, *range(2, ndim), 1), False

    def at_least(a: int, b: int) -> bool:
        if b == 0:
            return True
        if a == 0:
            return False
        return a >= b or a % b == 0

    def order(a: int, b: int) -> int:
        sa, sb = stride[a], stride[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if at_least(size[b], size[a]) else 1
        if at_least(sb, sa):
            return -1
        if at_least(sa, sb):
            return 1
        return 0

    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        right = i
        for left in reversed(range(i)):
            comparison = order(perm[left], perm[right])
            if comparison > 0:
                perm[left], perm[right] = perm[right], perm[left]
                right = left
            elif comparison < 0:
                break
    ambiguous = ambiguity_check and any(order(perm[i], perm[i + 1]) != -1 for i in range(ndim - 1))
    return tuple(reversed(perm)), ambiguous
