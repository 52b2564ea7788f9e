"""`refimpl.Tensor`: the user-facing tensor class and its methods.

Torch: torch.Tensor (torch/_tensor.py over torch._C.TensorBase). The data and metadata live in
`core.tensor.TensorImpl`, which this class extends; this module registers the class with the
core once, at import, so tensors made by lower layers are `refimpl.Tensor`s.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from refimpl._base import dtypes as dt
from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl._base.layout import layout, strided
from refimpl._base.memory_format import contiguous_format, preserve_format
from refimpl._base.scalars import int_of
from refimpl._base.size import Size
from refimpl._base.spec import api_signatures, torch_public_names
from refimpl.api import _serialization, _tensor_str, factories
from refimpl.api._args import sizes as parse_sizes
from refimpl.api._autograd_methods import AutogradMethods, set_requires_grad_for_factory
from refimpl.api._call import method
from refimpl.api._indexing import getitem, setitem
from refimpl.api._methods import TensorMethods
from refimpl.api._operators import TensorOperators, operand
from refimpl.api._subclass import SubclassMethods
from refimpl.api._torch_function import (
    TorchFunctionMethods,
    install_on_tensor,
    register_plain_type,
)
from refimpl.api.constructions import ConstructionMethods
from refimpl.api.distributions import DistributionMethods
from refimpl.api.indexing_ops import IndexingMethods
from refimpl.api.joins import JoinMethods
from refimpl.api.linalg_norms import LinalgNormMethods
from refimpl.api.linalg_solve import LinalgSolveMethods
from refimpl.api.linalg_spectral import LinalgSpectralMethods
from refimpl.api.masking import MaskingMethods
from refimpl.api.nn_activation import ActivationMethods
from refimpl.api.nn_attention import AttentionMethods
from refimpl.api.nn_convolution import ConvolutionMethods
from refimpl.api.nn_embedding import EmbeddingMethods
from refimpl.api.nn_loss import LossMethods
from refimpl.api.nn_margin import MarginMethods
from refimpl.api.nn_normalization import NormalizationMethods
from refimpl.api.nn_pooling import PoolingMethods
from refimpl.api.nn_sampling import SamplingMethods
from refimpl.api.products import ProductMethods
from refimpl.api.random_methods import RandomMethods
from refimpl.api.reductions import ReductionMethods
from refimpl.api.scans import ScanMethods
from refimpl.api.softmax import SoftmaxMethods
from refimpl.api.sorting import SortingMethods
from refimpl.api.spectral import SpectralMethods
from refimpl.api.statistics import StatisticsMethods
from refimpl.api.tensor_surface import TensorSurfaceMethods
from refimpl.autograd.grad_mode import no_grad
from refimpl.core import strides as geometry
from refimpl.core.tensor import (
    CONJUGATE_BIT,
    MATH_BITS,
    NEGATIVE_BIT,
    TensorImpl,
    array_of,
    set_tensor_class,
)
from refimpl.dispatch.python_dispatch import pop_mode as pop_dispatch_mode
from refimpl.dispatch.python_dispatch import push_mode as push_dispatch_mode
from refimpl.dispatch.python_dispatch import stack_len as dispatch_stack_len
from refimpl.ops import aten
from refimpl.ops.pointwise import STRIDED


def _compare(packet: Any, self: Tensor, other: object) -> Any:
    # torch: a tensor, a number or a NumPy scalar (as the arithmetic operators take them).
    value = operand(other)
    return NotImplemented if value is None else packet(self, value)


def _device_arg(dev: Any) -> device | None:
    return None if dev is None else as_device(dev)


class Tensor(
    TensorImpl,
    TorchFunctionMethods,
    AutogradMethods,
    TensorOperators,
    TensorMethods,
    ReductionMethods,
    ScanMethods,
    JoinMethods,
    ConstructionMethods,
    IndexingMethods,
    MaskingMethods,
    ProductMethods,
    SortingMethods,
    StatisticsMethods,
    SoftmaxMethods,
    DistributionMethods,
    RandomMethods,
    SpectralMethods,
    LinalgSolveMethods,
    LinalgSpectralMethods,
    LinalgNormMethods,
    ActivationMethods,
    LossMethods,
    MarginMethods,
    NormalizationMethods,
    EmbeddingMethods,
    ConvolutionMethods,
    PoolingMethods,
    SamplingMethods,
    AttentionMethods,
    SubclassMethods,
    TensorSurfaceMethods,
):
    """A multi-dimensional array of one dtype on one device. Torch: torch.Tensor."""

    __slots__ = ()

    if not TYPE_CHECKING:  # (mypy would accept any attribute of a class with __getattr__)

        def __getattr__(self, name: str) -> Any:
            """A torch.Tensor attribute refimpl lacks says so, as the module's names do
            (`t.storage()`); any other missing name gets Python's error. Runs only when
            the usual lookup failed."""
            kind = type(self).__name__
            if not name.startswith("__"):
                if hasattr(type(self), name):
                    # A descriptor of the class raised: its own error, again.
                    return object.__getattribute__(self, name)
                if name in torch_public_names("Tensor") or api_signatures("Tensor", name):
                    raise AttributeError(
                        f"refimpl does not implement torch.Tensor.{name} yet ('{kind}' "
                        f"object has no attribute '{name}')"
                    )
            raise AttributeError(f"'{kind}' object has no attribute '{name}'")

    # --- properties ----------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._size)

    @property
    def layout(self) -> layout:
        """How the elements are stored: always strided here. Torch: Tensor.layout."""
        return strided

    @property
    def real(self) -> Tensor:
        """The real part (a view for a complex tensor, self otherwise). Torch: Tensor.real."""
        out: Tensor = aten.real.default(self)
        return out

    @real.setter
    def real(self, value: Any) -> None:
        # torch: THPVariable_set_real: self.real.copy_(value).
        aten.real.default(self).copy_(value)

    @property
    def imag(self) -> Tensor:
        """The imaginary part of a complex tensor, as a view. Torch: Tensor.imag."""
        out: Tensor = aten.imag.default(self)
        return out

    @imag.setter
    def imag(self, value: Any) -> None:
        aten.imag.default(self).copy_(value)

    @property
    def T(self) -> Tensor:
        """All dims reversed (torch deprecates T on tensors with other than 2 dims)."""
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped. Torch: Tensor.mT."""
        if self.dim() < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. Got "
                f"{self.dim()}-D tensor."
            )
        out: Tensor = aten.transpose.int(self, -2, -1)
        return out

    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of the last two dims. Torch: Tensor.mH (adjoint)."""
        if self.dim() < 2:
            raise RuntimeError(
                "tensor.mH is only supported on matrices or batches of matrices. Got "
                f"{self.dim()}-D tensor."
            )
        out: Tensor = aten.transpose.int(self, -2, -1)
        # torch: conj is a no-op without a dispatch for real tensors.
        return aten.conj.default(out) if self._dtype.is_complex else out

    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix. Torch: Tensor.H."""
        if self.dim() != 2:
            hint = ". For batches of matrices, consider using tensor.mH" if self.dim() > 2 else "."
            raise RuntimeError(
                "tensor.H is only supported on matrices (2-D tensors). Got "
                f"{self.dim()}-D tensor{hint}"
            )
        return self.mH

    # --- Python protocol -----------------------------------------------------------------

    def __repr__(self) -> str:
        return _printed(self)

    # str(t) is object.__str__, which calls __repr__ (torch.Tensor defines no __str__: a
    # TorchFunctionMode is told of Tensor.__repr__ for both).

    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The rows, as unbind(0) gives them (views that share one node). Torch:
        Tensor.__iter__ in torch/_tensor.py, which a handler is not told of itself: it sees
        the dim and unbind calls."""
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def _one_element(self) -> Any:
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self) -> int:
        # torch: THPVariable_integral_fn; int(complex) needs a zero imaginary part.
        return int_of(self._one_element(), self._dtype.is_floating_point)

    def __float__(self) -> float:
        if self.requires_grad:
            # torch: THPVariable_float_scalar (only float() warns; int() and item() do not).
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.",
                UserWarning,
                stacklevel=2,
            )
        value = self._one_element()
        if isinstance(value, complex):
            raise TypeError("float() argument must be a string or a real number, not 'complex'")
        return float(value)

    def __complex__(self) -> complex:
        return complex(self._one_element())

    def __index__(self) -> int:
        if self._dtype.category is not dt.Category.INTEGRAL or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, tuple[Any, ...]]:
        """What pickle stores. Torch: Tensor.__reduce_ex__ (see api/_serialization.py)."""
        return _serialization.reduce_tensor(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """A copy sharing storage with tensors copied in the same `memo`. Torch: __deepcopy__."""
        out: Tensor = _serialization.deepcopy_tensor(self, memo)
        return out

    # Comparisons dispatch to aten.eq/ne/lt/le/gt/ge (Tensor or Scalar overload, as torch
    # picks); other operand types give NotImplemented, so `x == None` is False as in torch.
    def __eq__(self, other: object) -> Any:
        return _compare(aten.eq, self, other)

    def __ne__(self, other: object) -> Any:
        return _compare(aten.ne, self, other)

    def __lt__(self, other: object) -> Any:
        return _compare(aten.lt, self, other)

    def __le__(self, other: object) -> Any:
        return _compare(aten.le, self, other)

    def __gt__(self, other: object) -> Any:
        return _compare(aten.gt, self, other)

    def __ge__(self, other: object) -> Any:
        return _compare(aten.ge, self, other)

    def __getitem__(self, index: object) -> Tensor:
        """A view (a copy for Python bools) selected by basic indices. Torch: __getitem__."""
        out: Tensor = getitem(self, index)
        return out

    def __setitem__(self, index: object, value: object) -> None:
        """Write `value`, broadcast, into the elements `index` selects. Torch: __setitem__."""
        setitem(self, index, value)

    # --- conversion to Python and NumPy --------------------------------------------------

    def numpy(self, *, force: bool = False) -> Any:
        """A NumPy array sharing memory with this CPU tensor where the backend allows.

        Torch: Tensor.numpy (tensor_to_numpy in torch/csrc/utils/tensor_numpy.cpp): the checks,
        then aten.detach (and with `force` a copy to the CPU). On the NumPy backend the array
        is a view of the storage.
        """
        if not force:
            if self.device.type != "cpu":
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use "
                    "Tensor.cpu() to copy the tensor to host memory first."
                )
            if self.requires_grad:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that requires grad. Use "
                    "tensor.detach().numpy() instead."
                )
            # torch: tensor_to_numpy refuses a math bit: the array would share the storage,
            # which holds the values before the bit.
            if self._key_set & CONJUGATE_BIT:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that has conjugate bit set. Use "
                    "tensor.resolve_conj().numpy() instead."
                )
            if self._key_set & NEGATIVE_BIT:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that has negative bit set. Use "
                    "tensor.resolve_neg().numpy() instead."
                )
        prepared: Tensor = aten.detach.default(self)
        if force:
            # torch: tensor.detach().cpu().resolve_conj().resolve_neg()
            prepared = prepared.cpu().resolve_conj().resolve_neg()
        return prepared._backend_or_raise().to_host(array_of(prepared))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        host = self.numpy()
        return host if dtype is None else host.astype(dtype)

    def _backend_or_raise(self) -> Any:
        backend = self._storage.backend
        if backend is None:
            if self.is_meta:
                raise NotImplementedError("Cannot copy out of meta tensor; no data!")
            raise RuntimeError("refimpl: this tensor has no data")
        return backend

    # --- views: each method is one aten op call, as torch's Tensor methods are ----------

    def view(self, *shape: Any) -> Tensor:
        """A view with another shape, or of the same bytes as another dtype (never copies).

        Torch: Tensor.view, which binds `view(dtype)` to aten.view.dtype and sizes to
        aten.view.
        """
        out: Tensor
        if len(shape) == 1 and isinstance(shape[0], DType):
            out = aten.view.dtype(self, shape[0])
            return out
        # parse_sizes returns ints only: the overload takes them as they are.
        out = aten.view.default.call_checked((self, list(parse_sizes(shape, "view"))))
        return out

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other._size)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when the strides allow, else a contiguous copy. Torch: reshape (CIA)."""
        out: Tensor = aten.reshape.default(self, list(parse_sizes(shape, "reshape")))
        return out

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        out: Tensor = aten.flatten.using_ints(self, start_dim, end_dim)
        return out

    def permute(self, *dims: Any) -> Tensor:
        if not dims:
            # torch's argument parser: `dims` is required (use permute(()) for a 0-dim tensor).
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        out: Tensor = aten.permute.default(self, list(parse_sizes(dims, "permute")))
        return out

    def expand(self, *sizes: Any) -> Tensor:
        out: Tensor = aten.expand.default(self, list(parse_sizes(sizes, "expand")))
        return out

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other._size)

    def as_strided(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        out: Tensor = aten.as_strided.default(self, list(size), list(stride), storage_offset)
        return out

    # In-place view ops: new geometry for this tensor, same storage (inplace_view ops).
    squeeze_ = method("squeeze_")
    unsqueeze_ = method("unsqueeze_")
    t_ = method("t_")
    transpose_ = method("transpose_")
    swapdims_ = method("swapdims_")
    swapaxes_ = method("swapaxes_")
    as_strided_ = method("as_strided_")
    resize_as_ = method("resize_as_")

    def resize_(self, *sizes: Any, memory_format: object = None) -> Tensor:
        """New sizes, over a storage grown to fit (values kept). Torch: Tensor.resize_, whose
        binding takes the sizes as varargs or one sequence (aten.resize_)."""
        out: Tensor = aten.resize_.default(
            self, list(parse_sizes(sizes, "resize_")), memory_format=memory_format
        )
        return out

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        # torch: Tensor.split (torch/_tensor.py) picks split.Tensor or split_with_sizes.
        if isinstance(split_size, int):
            return tuple(aten.split.Tensor(self, split_size, dim))
        return tuple(aten.split_with_sizes.default(self, list(split_size), dim))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        return tuple(aten.chunk.default(self, chunks, dim))

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        return tuple(aten.unbind.int(self, dim))

    # --- copies and writes ---------------------------------------------------------------

    def contiguous(self, memory_format: object = contiguous_format) -> Tensor:
        """Itself if already laid out as `memory_format`, else a copy that is.

        Torch: Tensor.contiguous (aten.contiguous, CompositeImplicitAutograd).
        """
        if memory_format is contiguous_format and geometry.is_contiguous(self._size, self._stride):
            return self  # torch: TensorBase::contiguous checks before dispatching
        out: Tensor = aten.contiguous.default(self, memory_format=memory_format)
        return out

    def clone(self, *, memory_format: object = None) -> Tensor:
        out: Tensor = aten.clone.default(self, memory_format=memory_format)
        return out

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number. Torch: Tensor.item."""
        return aten.item.default(self)

    # --- new_* factories: this tensor's dtype and device by default ---------------------

    def new_tensor(
        self,
        data_obj: Any,
        *,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        return factories.tensor(
            data_obj,
            dtype=dtype or self._dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    def new_zeros(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        """Zeros of this tensor's dtype and device. Torch: Tensor.new_zeros (aten.new_zeros)."""
        out: Tensor = aten.new_zeros.default(
            self, list(parse_sizes(size, "new_zeros")), dtype=dtype, device=_device_arg(device)
        )
        return set_requires_grad_for_factory(out) if requires_grad else out

    def new_ones(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        """Ones of this tensor's dtype and device. Torch: Tensor.new_ones (aten.new_ones)."""
        out: Tensor = aten.new_ones.default(
            self, list(parse_sizes(size, "new_ones")), dtype=dtype, device=_device_arg(device)
        )
        return set_requires_grad_for_factory(out) if requires_grad else out

    def new_empty(
        self,
        *size: Any,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        """An uninitialised tensor (refimpl: zeros) of this tensor's dtype and device.

        Torch: Tensor.new_empty (aten.new_empty).
        """
        out: Tensor = aten.new_empty.default(
            self, list(parse_sizes(size, "new_empty")), dtype=dtype, device=_device_arg(device)
        )
        return set_requires_grad_for_factory(out) if requires_grad else out

    def new_full(
        self,
        size: Sequence[int],
        fill_value: Any,
        *,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        """`fill_value` in this tensor's dtype (not the value's) and device.

        Torch: Tensor.new_full (aten.new_full).
        """
        value = fill_value.item() if isinstance(fill_value, TensorImpl) else fill_value
        out: Tensor = aten.new_full.default(
            self,
            list(parse_sizes((size,), "new_full")),
            value,
            dtype=dtype,
            device=_device_arg(device),
        )
        return set_requires_grad_for_factory(out) if requires_grad else out

    def new_empty_strided(
        self,
        size: Sequence[int],
        stride: Sequence[int],
        *,
        dtype: DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        """empty_strided with this tensor's dtype and device by default.

        Torch: Tensor.new_empty_strided (aten.new_empty_strided).
        """
        out: Tensor = aten.new_empty_strided.default(
            self, list(size), list(stride), dtype=dtype, device=_device_arg(device)
        )
        return set_requires_grad_for_factory(out) if requires_grad else out

    # --- dtype and device conversion ----------------------------------------------------

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    # --- the math bits (Note [Math bits] in core/tensor.py) --------------------------------

    def is_conj(self) -> bool:
        """Whether the conjugate bit is set. Torch: Tensor.is_conj (reads the key set)."""
        return bool(self._key_set & CONJUGATE_BIT)

    def is_neg(self) -> bool:
        """Whether the negative bit is set. Torch: Tensor.is_neg (reads the key set)."""
        return bool(self._key_set & NEGATIVE_BIT)

    adjoint = method("adjoint")
    _neg_view = method("_neg_view")

    def tolist(self) -> Any:
        """Nested lists of Python scalars. Torch: Tensor.tolist, which reads
        `self.resolve_conj().resolve_neg()` (tensor_to_list in torch/csrc/utils/tensor_list.cpp):
        a dispatch mode sees the clones of a tensor with a math bit."""
        if self._key_set & MATH_BITS:
            resolved = aten.resolve_neg.default(aten.resolve_conj.default(self))
            return TensorImpl.tolist(resolved)
        return TensorImpl.tolist(self)

    def get_device(self) -> int:
        # torch: -1 for CPU and meta tensors, which have no device index.
        dev = self.device
        return -1 if dev.type in ("cpu", "meta") else (dev.index or 0)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """This tensor with another dtype and/or device; itself if nothing changes.

        Torch: Tensor.to (THPVariable_to and dispatch_to in python_variable_methods.cpp), which
        calls aten.to.dtype for a dtype alone, aten.to.device for a device and a dtype, and
        aten.to.dtype_layout (this tensor's options, another device) otherwise; all three
        decompose to aten._to_copy, or to `self` when nothing would change.
        """
        target_device, target_dtype, non_blocking, copy, memory_format = _parse_to(args, kwargs)
        out: Tensor
        if target_device is None and target_dtype is None:
            if not copy and memory_format is None:
                return self
            out = aten.to.dtype_layout(
                self,
                dtype=self._dtype,
                layout=STRIDED,
                device=self.device,
                non_blocking=non_blocking,
                copy=copy,
                memory_format=memory_format,
            )
        elif target_device is None:
            out = aten.to.dtype(self, target_dtype, non_blocking, copy, memory_format)
        elif target_dtype is None:
            out = aten.to.dtype_layout(
                self,
                dtype=self._dtype,
                layout=STRIDED,
                device=target_device,
                non_blocking=non_blocking,
                copy=copy,
                memory_format=memory_format,
            )
        else:
            out = aten.to.device(
                self, target_device, target_dtype, non_blocking, copy, memory_format
            )
        return out

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self, device: int | str | None = None) -> Tensor:
        return self.to(as_device(device) if device is not None else "cuda")

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other._dtype)

    def float(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.float32, memory_format=memory_format)

    def double(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.float64, memory_format=memory_format)

    def half(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.float16, memory_format=memory_format)

    def long(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.int64, memory_format=memory_format)

    def int(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.int32, memory_format=memory_format)

    def short(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.int16, memory_format=memory_format)

    def char(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.int8, memory_format=memory_format)

    def byte(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.uint8, memory_format=memory_format)

    def bool(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.bool_, memory_format=memory_format)

    def cfloat(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.complex64, memory_format=memory_format)

    def cdouble(self, memory_format: Any = preserve_format) -> Tensor:
        return self.to(dt.complex128, memory_format=memory_format)

    def bfloat16(self, memory_format: Any = preserve_format) -> Tensor:
        """Differs: no refimpl backend stores bfloat16; the backend's dtype error is raised."""
        return self.to(dt.bfloat16, memory_format=memory_format)

    def chalf(self, memory_format: Any = preserve_format) -> Tensor:
        """Differs: no refimpl backend stores complex32; the backend's dtype error is raised."""
        return self.to(dt.complex32, memory_format=memory_format)

    def type(self, dtype: Any = None, non_blocking: object = False, **kwargs: Any) -> Any:
        """The legacy type name ('torch.FloatTensor'), or this tensor converted to a dtype or
        a type name. Torch: Tensor.type (torch/_utils.py _type).

        The names are torch's own strings, not 'refimpl.FloatTensor': they are data that
        code compares (`x.type() == 'torch.FloatTensor'`), and refimpl accepts them back.
        """
        if dtype is None:
            prefix = "torch." if self.device.type == "cpu" else f"torch.{self.device.type}."
            return f"{prefix}{self._dtype.scalar_name}Tensor"
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            for candidate in dt.ALL_DTYPES:
                if f"{candidate.scalar_name}Tensor" == name:
                    dtype = candidate
                    break
            else:
                raise ValueError(f"invalid type: '{dtype}'")
        return self.to(dtype, non_blocking=bool(non_blocking))


def _parse_to(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[device | None, DType | None, bool, bool, Any]:
    """Torch's `Tensor.to` signatures: (dtype), (device, dtype), (other), and keywords.

    Torch: parse_to_conversion in torch/csrc/utils/python_arg_parser. Returns the device,
    dtype, non_blocking, copy and memory_format asked for (None: not given).
    """
    target_device: device | None = None
    target_dtype: DType | None = None
    rest = list(args)
    if rest and isinstance(rest[0], TensorImpl):
        other = rest.pop(0)
        target_device, target_dtype = other.device, other._dtype
    elif rest and isinstance(rest[0], DType):
        target_dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (device, str, int))) and not isinstance(rest[0], bool):
        target_device = as_device(rest.pop(0))
        if rest and isinstance(rest[0], DType):
            target_dtype = rest.pop(0)
    flags = dict(kwargs)
    for flag in ("non_blocking", "copy"):
        if rest and isinstance(rest[0], bool):
            flags.setdefault(flag, rest.pop(0))
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: {args!r}")
    if flags.get("dtype") is not None:
        target_dtype = flags["dtype"]
    if flags.get("device") is not None:
        target_device = as_device(flags["device"])
    return (
        target_device,
        target_dtype,
        bool(flags.get("non_blocking", False)),
        bool(flags.get("copy", False)),
        flags.get("memory_format"),
    )


set_tensor_class(Tensor)
register_plain_type(Tensor)
# Every overridable method, property and operator goes through the __torch_function__ protocol.
TORCH_FUNCTION_INSTALLED = install_on_tensor(Tensor)

def _printed(t: Tensor) -> str:
    """The text of `repr(t)`, made with the dispatch modes off and grad mode off: a mode sees
    none of printing's calls (the clone of a tensor with a math bit, the slices of a long
    one). Torch: _str in torch/_tensor_str.py (no_grad and _disable_current_modes)."""
    modes = [pop_dispatch_mode() for _ in range(dispatch_stack_len())]
    try:
        with no_grad():
            return _tensor_str.tensor_str(t)
    finally:
        for mode in reversed(modes):
            push_dispatch_mode(mode)


_tensor_str.print_as_plain_tensor(Tensor)
