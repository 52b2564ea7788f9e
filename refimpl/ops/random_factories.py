"""torch.normal's overloads and the functional samplers as aten ops: normal.Tensor_float,
normal.float_Tensor, normal.Tensor_Tensor, normal.float_float (and their out= forms),
normal_functional, normal.out, uniform, uniform.out, random (and .from/.to, out= forms).

Torch: aten/src/ATen/native/Distributions.cpp and DistributionTemplates.h (normal_impl,
normal_out_impl): each is an output tensor filled by normal_ / uniform_ / random_ of
refimpl/ops/random.py, then (for the tensor overloads of normal) mul_(std) and add_(mean),
so the draws and their order are the in-place ops'. Their derivatives are zeros
(derivatives.yaml: normal's mean and std, normal_functional's self).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.promotion import get_default_dtype
from refimpl.core import strides as geometry
from refimpl.core.random import Generator
from refimpl.core.tensor import TensorImpl, empty_strided_tensor, empty_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.factory import _factory_target
from refimpl.ops.random import check_std
from refimpl.ops.scan import CEA, registered

aten: Final = namespace("aten")


def _fresh(t: Any) -> Any:
    """A new tensor starts at version 0: torch fills it below ADInplaceOrView, where the
    in-place samplers bump no version; refimpl's nested calls did, so reset it."""
    t._version_counter.version = 0
    return t


def _check_std_tensor(std: TensorImpl) -> None:
    # torch: CHECK_NORMAL_TENSOR_STD (DistributionTemplates.h).
    if std._dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if has_data(std) and std.numel() and bool(aten.lt.Scalar(aten.min.default(std), 0).item()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _like(t: TensorImpl) -> Any:
    """Torch: at::empty_like(t, MemoryFormat::Contiguous)."""
    return empty_tensor(t._size, t._dtype, t._storage.device, t._storage.backend)


def _zeros_like_input(sizes: Any, grad: Tensor) -> Tensor:
    # torch: at::zeros_symint(<input>.sym_sizes(), grad.options())
    result: Tensor = aten.zeros.default(list(sizes), dtype=grad.dtype, device=grad.device)
    return result


# --- normal.Tensor_float: normal_(0, std), then add_(mean) ----------------------------------

normal_tensor_float = defop(
    "normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> Tensor"
)
normal_tensor_float_out = defop(
    "normal.Tensor_float_out(Tensor mean, float std=1., *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _fill_tensor_float(
    out: TensorImpl, mean: TensorImpl, std: float, generator: Generator | None
) -> Any:
    aten.normal_.default(out, 0.0, std, generator=generator)
    return aten.add_.Tensor(out, mean)


@registered(normal_tensor_float)
def normal_tensor_float_kernel(mean: TensorImpl, std: float, *, generator: Generator | None) -> Any:
    """Torch: normal(const Tensor& mean, double std, gen) (DistributionTemplates.h)."""
    check_std(std)
    return _fresh(_fill_tensor_float(_like(mean), mean, std, generator))


@registered(normal_tensor_float_out)
def normal_tensor_float_out_kernel(
    mean: TensorImpl, std: float, *, generator: Generator | None, out: TensorImpl
) -> Any:
    check_std(std)
    # torch: no resize here; add_ then rejects an `out` that `mean` does not broadcast to.
    return _fill_tensor_float(out, mean, std, generator)


@normal_tensor_float.derivative("mean")
def normal_backward_mean(grad: Tensor, mean_sym_sizes: Any) -> Tensor:
    return _zeros_like_input(mean_sym_sizes, grad)


# --- normal.float_Tensor: normal_(0, 1), mul_(std), add_(mean) -----------------------------

normal_float_tensor = defop(
    "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor"
)
normal_float_tensor_out = defop(
    "normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _fill_scaled(out: TensorImpl, mean: Any, std: Any, generator: Generator | None) -> Any:
    aten.normal_.default(out, 0.0, 1.0, generator=generator)
    aten.mul_.Tensor(out, std)
    if isinstance(mean, TensorImpl):
        return aten.add_.Tensor(out, mean)
    return aten.add_.Scalar(out, mean)


@registered(normal_float_tensor)
def normal_float_tensor_kernel(mean: float, std: TensorImpl, *, generator: Generator | None) -> Any:
    """Torch: normal(double mean, const Tensor& std, gen)."""
    _check_std_tensor(std)
    return _fresh(_fill_scaled(_like(std), mean, std, generator))


@registered(normal_float_tensor_out)
def normal_float_tensor_out_kernel(
    mean: float, std: TensorImpl, *, generator: Generator | None, out: TensorImpl
) -> Any:
    _check_std_tensor(std)
    resize_output(out, std._size)
    return _fill_scaled(out, mean, std, generator)


@normal_float_tensor.derivative("std")
def normal_backward_std(grad: Tensor, std_sym_sizes: Any) -> Tensor:
    return _zeros_like_input(std_sym_sizes, grad)


# --- normal.Tensor_Tensor: in the broadcast shape, mean's dtype ------------------------------

normal_tensor_tensor = defop(
    "normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor"
)
normal_tensor_tensor_out = defop(
    "normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@registered(normal_tensor_tensor)
def normal_tensor_tensor_kernel(
    mean: TensorImpl, std: TensorImpl, *, generator: Generator | None
) -> Any:
    """Torch: normal(const Tensor& mean, const Tensor& std, gen): at::empty({0},
    mean.options()) resized to the broadcast of the two shapes."""
    _check_std_tensor(std)
    shape = data.broadcast_shapes(mean._size, std._size)
    out = empty_tensor(shape, mean._dtype, mean._storage.device, mean._storage.backend)
    return _fresh(_fill_scaled(out, mean, std, generator))


@registered(normal_tensor_tensor_out)
def normal_tensor_tensor_out_kernel(
    mean: TensorImpl, std: TensorImpl, *, generator: Generator | None, out: TensorImpl
) -> Any:
    _check_std_tensor(std)
    resize_output(out, data.broadcast_shapes(mean._size, std._size))
    return _fill_scaled(out, mean, std, generator)


normal_tensor_tensor.derivative("mean")(normal_backward_mean)
normal_tensor_tensor.derivative("std")(normal_backward_std)


# --- normal.float_float: a new tensor of `size`, normal_(mean, std) ------------------------

normal_float_float = defop(
    "normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)
normal_float_float_out = defop(
    "normal.float_float_out(float mean, float std, SymInt[] size, *, "
    "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
)


@normal_float_float.kernel(CEA)
def normal_float_float_kernel(
    mean: float,
    std: float,
    size: list[int],
    *,
    generator: Generator | None,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """Torch: normal(double mean, double std, IntArrayRef size, gen, options)."""
    check_std(std)
    target, backend = _factory_target(device)
    out = empty_tensor(size, dtype or get_default_dtype(), target, backend)
    return _fresh(aten.normal_.default(out, mean, std, generator=generator))


@normal_float_float_out.kernel(CEA)
def normal_float_float_out_kernel(
    mean: float, std: float, size: list[int], *, generator: Generator | None, out: TensorImpl
) -> Any:
    check_std(std)
    if out._size != tuple(size):
        aten.resize_.default(out, list(size))  # torch: output.resize_(size), no warning
    return aten.normal_.default(out, mean, std, generator=generator)


# --- functional forms of the in-place samplers ---------------------------------------------

normal_functional = defop(
    "normal_functional(Tensor self, float mean=0., float std=1., *, "
    "Generator? generator=None) -> Tensor"
)
normal_out = defop(
    "normal.out(Tensor self, float mean=0., float std=1., *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)
uniform = defop(
    "uniform(Tensor self, float from=0., float to=1., *, Generator? generator=None) -> Tensor"
)
uniform_out = defop(
    "uniform.out(Tensor self, float from=0., float to=1., *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)
random = defop("random(Tensor self, *, Generator? generator=None) -> Tensor")
random_out = defop(
    "random.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
)
random_from = defop(
    "random.from(Tensor self, int from, int? to, *, Generator? generator=None) -> Tensor"
)
random_from_out = defop(
    "random.from_out(Tensor self, int from, int? to, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)
random_to = defop("random.to(Tensor self, int to, *, Generator? generator=None) -> Tensor")
random_to_out = defop(
    "random.to_out(Tensor self, int to, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
)


def _copy_of(self: TensorImpl) -> Any:
    """Torch: self.clone() (preserve_format): `self`'s dense layout and values."""
    stride = geometry.dense_strides_like(self._size, self._stride)
    out = empty_strided_tensor(
        self._size, stride, self._dtype, self._storage.device, self._storage.backend
    )
    return data.copy_(out, self)


def _into(out: TensorImpl, result: TensorImpl) -> Any:
    """Torch: a generated out= form (resize_out, then copy)."""
    resize_output(out, result._size)
    return data.copy_(out, result)


@normal_functional.kernel(CEA)
def normal_functional_kernel(
    self: TensorImpl, mean: float, std: float, *, generator: Generator | None
) -> Any:
    """Torch: normal_functional (Distributions.cpp): self.clone().normal_(mean, std)."""
    return _fresh(aten.normal_.default(_copy_of(self), mean, std, generator=generator))


@normal_out.kernel(CEA)
def normal_out_kernel(
    self: TensorImpl, mean: float, std: float, *, generator: Generator | None, out: TensorImpl
) -> Any:
    return _into(out, normal_functional_kernel(self, mean, std, generator=generator))


@normal_functional.derivative("self")
def normal_functional_backward(grad: Tensor) -> Tensor:
    # torch: zeros_like(grad)
    result: Tensor = aten.zeros_like.default(grad)
    return result


@uniform.kernel(CEA)
def uniform_kernel(
    self: TensorImpl, low: float, high: float, *, generator: Generator | None
) -> Any:
    """Torch: the functional variant generated for uniform_ (clone, then uniform_)."""
    return _fresh(aten.uniform_.default(_copy_of(self), low, high, generator=generator))


@uniform_out.kernel(CEA)
def uniform_out_kernel(
    self: TensorImpl, low: float, high: float, *, generator: Generator | None, out: TensorImpl
) -> Any:
    return _into(out, uniform_kernel(self, low, high, generator=generator))


@random.kernel(CEA)
def random_kernel(self: TensorImpl, *, generator: Generator | None) -> Any:
    """Torch: the functional variant generated for random_ (clone, then random_)."""
    return _fresh(aten.random_.default(_copy_of(self), generator=generator))


@random_out.kernel(CEA)
def random_out_kernel(self: TensorImpl, *, generator: Generator | None, out: TensorImpl) -> Any:
    return _into(out, random_kernel(self, generator=generator))


@random_from.kernel(CEA)
def random_from_kernel(
    self: TensorImpl, low: int, high: int | None, *, generator: Generator | None
) -> Any:
    fill = getattr(aten.random_, "from")
    return _fresh(fill(_copy_of(self), low, high, generator=generator))


@random_from_out.kernel(CEA)
def random_from_out_kernel(
    self: TensorImpl, low: int, high: int | None, *, generator: Generator | None, out: TensorImpl
) -> Any:
    return _into(out, random_from_kernel(self, low, high, generator=generator))


@random_to.kernel(CEA)
def random_to_kernel(self: TensorImpl, high: int, *, generator: Generator | None) -> Any:
    return _fresh(aten.random_.to(_copy_of(self), high, generator=generator))


@random_to_out.kernel(CEA)
def random_to_out_kernel(
    self: TensorImpl, high: int, *, generator: Generator | None, out: TensorImpl
) -> Any:
    return _into(out, random_to_kernel(self, high, generator=generator))
