"""The remaining random distributions as aten ops: bernoulli, exponential_, geometric_, log_normal_, cauchy_, poisson, binomial (multinomial, the dropout ops, and the Gamma and Dirichlet samplers are in the `_distributions_*` modules).

Torch: aten/src/ATen/native/Distributions.cpp (bernoulli, multinomial, _s_poisson_cpu),
DistributionTemplates.h (the `*_impl_` checks), native/cpu/DistributionKernels.cpp and
native/cpu/DistributionTemplates.h (the serial CPU kernels), native/cpu/MultinomialKernel.cpp.
Every op draws from the call's generator (refimpl/core/random.py) in the order torch's CPU
kernel does, so after `manual_seed(s)` the results are torch's, bit for bit (see
`_distributions_draw.py` for the transforms, and for the last bits a backend without the C
library's log/tan/exp may give).

Each in-place op checks its parameters, then (TensorIterator's build) that `self` has no
internal overlap, then the dtype its kernel dispatches on, and draws only for tensors with
data; a meta tensor passes the same checks and draws nothing. The functional forms are
torch's generated ones (a clone of `self`, then the in-place op) and the out= forms copy the
functional result into `out`.

Differs: torch's bernoulli_(float) on an Intel CPU with MKL draws from MKL's MCG31 stream
seeded by one `random()` (bernoulli_scalar_kernel in DistributionKernels.cpp); on other CPUs
(this AMD machine, and the path refimpl follows) it draws one random64() per element.
Where torch checks inside its per-element loop (bernoulli_'s tensor p, multinomial's rows,
poisson's rates), refimpl checks every element first, so a failing call writes nothing and
draws nothing (torch has drawn for, and written, the elements before the bad one).
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import DType
from refimpl.core import layout
from refimpl.core import strides as geometry
from refimpl.core.random import Generator, normal_real
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    empty_tensor,
    resize_for_output,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops import (
    _distributions_dropout,
    _distributions_gamma,
    _distributions_multinomial,
)
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_binary import zeros_of
from refimpl.ops._distributions_draw import (
    backend_of,
    binomial_floor,
    cast_from_double,
    cauchy_transform,
    clone_then,
    exponential_transform,
    fill_axes,
    from_fill_order,
    generated_out,
    generator_for,
    geometric_transform,
    in_fill_order,
    libm_function,
    normal_transform,
    poisson_floor,
    sample_binomial,
    sample_poisson,
    serial_samples,
    uniform_doubles,
    uniform_floats,
)
from refimpl.ops._iterator import broadcast_all
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import has_data
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.scan import CEA, not_implemented, registered
from refimpl.ops.selection import type_meta_name

# The dropout and multinomial ops register when their modules are imported.
__all__ = ["_distributions_dropout", "_distributions_gamma", "_distributions_multinomial"]

aten: Final = namespace("aten")

# torch: AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16) and AT_DISPATCH_ALL_TYPES_AND2(Half,
# BFloat16) (plus Bool for bernoulli_), the dtypes of the CPU kernels.
_FLOATING: Final = frozenset({dt.float16, dt.bfloat16, dt.float32, dt.float64})
_ALL_TYPES: Final = _FLOATING | {dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64}
_BERNOULLI_TYPES: Final = _ALL_TYPES | {dt.bool_}

# torch: the caffe2::TypeMeta names cauchy_'s message prints (through self.dtype()) that
# selection.type_meta_name's table lacks: the unsigned types beyond uint8.
_UNSIGNED_TYPE_META_NAMES: Final[dict[str, str]] = {
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
}


def _check_writable(self: TensorImpl) -> None:
    """Torch: assert_no_internal_overlap (also TensorIterator's check on its output)."""
    if layout.has_internal_overlap(self._size, self._stride):
        raise RuntimeError(layout.INTERNAL_OVERLAP_MESSAGE)


def _write_drawn(self: TensorImpl, values: Any, axes: tuple[int, ...]) -> None:
    """`values` (1-D, in fill order, already `self`'s dtype) written through `self`."""
    xp = backend_of(self).xp
    write_array(self, from_fill_order(xp, values, self._size, axes))


# --- bernoulli ---------------------------------------------------------------------------------

bernoulli_float_ = defop(
    "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)"
)


@registered(bernoulli_float_)
def bernoulli_float__kernel(self: TensorImpl, p: float, *, generator: Generator | None) -> Any:
    """Each element 1 with probability `p`, else 0.

    Torch: bernoulli_impl_ (DistributionTemplates.h), then bernoulli_scalar_kernel's default
    path: per element, in memory order, uniform_real_distribution<double> (one random64())
    and `u < p` (bernoulli_distribution<double>).
    """
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    _check_writable(self)
    if geometry.numel(self._size) == 0:
        return self
    if self._dtype not in _BERNOULLI_TYPES:
        raise not_implemented("bernoulli_scalar_cpu_", self._dtype)
    if not has_data(self):
        return self
    backend = backend_of(self)
    xp = backend.xp
    gen = generator_for(self, generator)
    u = uniform_doubles(gen, backend, geometry.numel(self._size))
    drawn = u < xp.asarray(p, dtype=u.dtype)
    _write_drawn(self, _from_mask(backend, drawn, self._dtype), fill_axes(self))
    return self


def _from_mask(backend: Any, mask: Any, dtype: DType) -> Any:
    """A boolean draw as `dtype` (static_cast<scalar_t>(bool))."""
    if dtype is dt.bool_:
        return mask
    return backend.xp.astype(mask, backend_dtype(backend, dtype))


bernoulli_tensor_ = defop(
    "bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)"
)


@registered(bernoulli_tensor_)
def bernoulli_tensor__kernel(
    self: TensorImpl, p: TensorImpl, *, generator: Generator | None
) -> Any:
    """Each element 1 with the probability at its place in `p` (broadcast to `self`).

    Torch: bernoulli_impl_ and bernoulli_tensor_kernel (cpu/DistributionTemplates.h): `p`
    expanded to `self` (expand_inplace), then per element in TensorIterator's order: for a
    double `p`, uniform_real_distribution<double> (random64()) and `u < p`; for float, half
    and bfloat16 `p`, uniform_real_distribution<float> (one random()) and `u < float(p)`.
    Each p must lie in [0, 1] (torch's message is its TORCH_CHECK text).
    """
    _check_writable(self)
    if geometry.numel(self._size) == 0:
        return self
    if self._dtype not in _BERNOULLI_TYPES:
        raise not_implemented("bernoulli_tensor_cpu_self_", self._dtype)
    expanded = aten.expand.default(p, list(self._size))
    if p._dtype not in _FLOATING:
        raise not_implemented("bernoulli_tensor_cpu_p_", p._dtype)
    if not has_data(self) or not has_data(p):
        return self
    backend = backend_of(self)
    xp = backend.xp
    axes = fill_axes(self, (expanded,))
    probabilities = in_fill_order(xp, array_of(expanded), axes)
    if not bool(xp.all((probabilities >= 0) & (probabilities <= 1))):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    gen = generator_for(self, generator)
    n = geometry.numel(self._size)
    if p._dtype is dt.float64:
        drawn = uniform_doubles(gen, backend, n) < probabilities
    else:
        f32 = backend_dtype(backend, dt.float32)
        drawn = uniform_floats(gen, backend, n) < xp.astype(probabilities, f32)
    _write_drawn(self, _from_mask(backend, drawn, self._dtype), axes)
    return self


def _bernoulli_backward_self(grad: Tensor) -> Tensor:
    # torch: self: zeros_like(grad)
    return aten.zeros_like.default(grad)


def _bernoulli_backward_p(p_sym_sizes: Any, p_scalar_type: DType, p_device: Any) -> Tensor:
    # torch: p: zeros_like(p) (p_info saved)
    return zeros_of(p_sym_sizes, p_scalar_type, p_device)


bernoulli_float_.derivative("self")(_bernoulli_backward_self)
bernoulli_tensor_.derivative("self")(_bernoulli_backward_self)
bernoulli_tensor_.derivative("p")(_bernoulli_backward_p)


def _contiguous_like(self: TensorImpl) -> Any:
    """Torch: at::empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT)."""
    return empty_tensor(self._size, self._dtype, self._storage.device, self._storage.backend)


bernoulli = defop("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor")


@bernoulli.kernel(CEA)
def bernoulli_kernel(self: TensorImpl, *, generator: Generator | None) -> Any:
    """A 0/1 tensor of `self`'s dtype, each element 1 with probability self's element.

    Torch: bernoulli(self, gen) in Distributions.cpp: empty_like(self) (contiguous), then
    bernoulli_(self, gen) on it.
    """
    return aten.bernoulli_.Tensor(_contiguous_like(self), self, generator=generator)


bernoulli.derivative("self")(_bernoulli_backward_self)

bernoulli_out = defop(
    "bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(bernoulli_out)
def bernoulli_out_kernel(self: TensorImpl, *, generator: Generator | None, out: TensorImpl) -> Any:
    """Torch: bernoulli_out_impl: out.resize_(self.sizes()) (no warning, any dtype), then
    bernoulli_(out, self)."""
    if out._size != self._size:
        resize_for_output(out, self._size, geometry.contiguous_strides(self._size))
    return aten.bernoulli_.Tensor(out, self, generator=generator)


bernoulli_p = defop("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")


@registered(bernoulli_p)
def bernoulli_p_kernel(self: TensorImpl, p: float, *, generator: Generator | None) -> Any:
    """Torch: bernoulli(self, p, gen): empty_like(self) (contiguous), then bernoulli_(p)."""
    return aten.bernoulli_.float(_contiguous_like(self), p, generator=generator)


bernoulli_tensor = defop(
    "bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor"
)


@bernoulli_tensor.kernel(CEA)
def bernoulli_tensor_kernel(self: TensorImpl, p: TensorImpl, *, generator: Generator | None) -> Any:
    """Torch: the generated functional bernoulli_.Tensor."""
    return clone_then(aten.bernoulli_.Tensor, self, p, generator=generator)


bernoulli_tensor_out = defop(
    "bernoulli.Tensor_out(Tensor self, Tensor p, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@bernoulli_tensor_out.kernel(CEA)
def bernoulli_tensor_out_kernel(
    self: TensorImpl, p: TensorImpl, *, generator: Generator | None, out: TensorImpl
) -> Any:
    return generated_out(aten.bernoulli.Tensor(self, p, generator=generator), out)


bernoulli_float_out = defop(
    "bernoulli.float_out(Tensor self, float p=0.5, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"
)


@bernoulli_float_out.kernel(CEA)
def bernoulli_float_out_kernel(
    self: TensorImpl, p: float, *, generator: Generator | None, out: TensorImpl
) -> Any:
    # torch: the generated functional of bernoulli_.float (a clone, then bernoulli_(p)).
    result = clone_then(aten.bernoulli_.float, self, p, generator=generator)
    return generated_out(result, out)


# --- exponential_, geometric_, log_normal_, cauchy_ ---------------------------------------------


def _draw_doubles(self: TensorImpl, generator: Generator | None, transform: Any) -> TensorImpl:
    """Fill `self` with `transform(xp, u)` of one uniform double per element, in memory order,
    cast as static_cast<scalar_t>(double) does. Torch: the serial kernels of
    cpu/DistributionTemplates.h over *_distribution<double>."""
    if not has_data(self):
        return self
    backend = backend_of(self)
    gen = generator_for(self, generator)
    u = uniform_doubles(gen, backend, geometry.numel(self._size))
    values = cast_from_double(backend, transform(backend.xp, u), self._dtype)
    _write_drawn(self, values, fill_axes(self))
    return self


exponential_ = defop(
    "exponential_(Tensor(a!) self, float lambd=1., *, Generator? generator=None) -> Tensor(a!)"
)


@registered(exponential_)
def exponential__kernel(self: TensorImpl, lambd: float, *, generator: Generator | None) -> Any:
    """Samples of the exponential distribution with rate `lambd`.

    Torch: exponential_impl_ (`lambda > 0`, then nothing for an empty tensor) and the CPU
    exponential_kernel: `-1 / lambda * log1p(-u)` per element in double.
    """
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if geometry.numel(self._size) == 0:
        return self
    _check_writable(self)
    if self._dtype not in _FLOATING:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must "
            f"be a floating point but you specified {self._dtype.scalar_name}"
        )
    return _draw_doubles(self, generator, lambda xp, u: exponential_transform(xp, u, lambd))


geometric_ = defop(
    "geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)"
)


@registered(geometric_)
def geometric__kernel(self: TensorImpl, p: float, *, generator: Generator | None) -> Any:
    """The number of Bernoulli(p) trials up to the first success.

    Torch: geometric_impl_ (`0 < p < 1`) and geometric_kernel: `ceil(log(u) / log1p(-p))`
    in double, cast to the tensor's dtype (integers too).
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if geometry.numel(self._size) == 0:
        return self
    _check_writable(self)
    if self._dtype not in _ALL_TYPES:
        raise not_implemented("geometric_cpu", self._dtype)
    return _draw_doubles(self, generator, lambda xp, u: geometric_transform(xp, u, p))


cauchy_ = defop(
    "cauchy_(Tensor(a!) self, float median=0., float sigma=1., *, Generator? generator=None) "
    "-> Tensor(a!)"
)


@registered(cauchy_)
def cauchy__kernel(
    self: TensorImpl, median: float, sigma: float, *, generator: Generator | None
) -> Any:
    """Samples of the Cauchy distribution. Torch: cauchy_impl_ (`sigma > 0`, then a
    floating dtype even for an empty tensor) and cauchy_kernel:
    `median + sigma * tan(pi * (u - 0.5))` in double."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if self._dtype not in _FLOATING:
        name = _UNSIGNED_TYPE_META_NAMES.get(self._dtype.name) or type_meta_name(self._dtype)
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {name}"
        )
    if geometry.numel(self._size) == 0:
        return self
    _check_writable(self)
    return _draw_doubles(self, generator, lambda xp, u: cauchy_transform(xp, u, median, sigma))


log_normal_ = defop(
    "log_normal_(Tensor(a!) self, float mean=1., float std=2., *, Generator? generator=None) "
    "-> Tensor(a!)"
)


@registered(log_normal_)
def log_normal__kernel(
    self: TensorImpl, mean: float, std: float, *, generator: Generator | None
) -> Any:
    """exp of normal samples. Torch: log_normal_impl_ (`std > 0`) and log_normal_kernel:
    per element lognormal_distribution<double>: exp(z * std + mean) with z from
    normal_distribution<double> (which uses and refills the generator's cached second
    Box-Muller sample)."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if geometry.numel(self._size) == 0:
        return self
    _check_writable(self)
    if self._dtype not in _FLOATING:
        raise not_implemented("log_normal_cpu", self._dtype)
    if not has_data(self):
        return self
    backend = backend_of(self)
    xp = backend.xp
    gen = generator_for(self, generator)
    z = normal_real(gen, backend, geometry.numel(self._size), dt.float64)
    logs = normal_transform(xp, z, mean, std)
    values = cast_from_double(backend, libm_function(xp, "exp")(logs), self._dtype)
    _write_drawn(self, values, fill_axes(self))
    return self


def _random_fill_backward(grad: Tensor) -> Tensor:
    # torch: self: zeros_like(grad) (exponential_, geometric_, log_normal_, cauchy_)
    return aten.zeros_like.default(grad)


def _functional_forms(name: str, inplace: OpBlock, params: str) -> None:
    """The generated functional and out= forms of an in-place distribution op, and the
    shared derivative. Torch: torchgen's functional variants (`exponential(Tensor self,
    ...)`) and their out= overloads."""
    inplace.derivative("self")(_random_fill_backward)
    functional = defop(f"{name}(Tensor self, {params}, *, Generator? generator=None) -> Tensor")
    out_form = defop(
        f"{name}.out(Tensor self, {params}, *, Generator? generator=None, Tensor(a!) out) "
        "-> Tensor(a!)"
    )
    inplace_op = inplace.op

    def functional_kernel(self: TensorImpl, *args: Any, generator: Generator | None) -> Any:
        return clone_then(inplace_op, self, *args, generator=generator)

    def out_kernel(
        self: TensorImpl, *args: Any, generator: Generator | None, out: TensorImpl
    ) -> Any:
        result = functional.op(self, *args, generator=generator)
        return generated_out(result, out)

    functional_kernel.__name__ = f"{name}_kernel"
    out_kernel.__name__ = f"{name}_out_kernel"
    functional.kernel(CEA)(functional_kernel)
    out_form.kernel(CEA)(out_kernel)


_functional_forms("exponential", exponential_, "float lambd=1.")
_functional_forms("geometric", geometric_, "float p")
_functional_forms("cauchy", cauchy_, "float median=0., float sigma=1.")
_functional_forms("log_normal", log_normal_, "float mean=1., float std=2.")


# --- poisson -----------------------------------------------------------------------------------

poisson = defop("poisson(Tensor self, Generator? generator=None) -> Tensor")


@registered(poisson)
def poisson_kernel(self: TensorImpl, generator: Generator | None) -> Any:
    """Poisson samples with the rates of `self`, in `self`'s dtype.

    Torch: _s_poisson_cpu (Distributions.cpp): zeros of self's size (contiguous), then per
    element in order sample_poisson(double(rate)) (rejection sampling: a varying number of
    uniform doubles per element), cast to the dtype.
    """
    result = empty_tensor(self._size, self._dtype, self._storage.device, self._storage.backend)
    if self._dtype not in _FLOATING:
        raise not_implemented("poisson_cpu", self._dtype)
    if not has_data(self) or geometry.numel(self._size) == 0:
        return result
    backend = backend_of(self)
    xp = backend.xp
    rates = xp.reshape(xp.astype(array_of(self), backend_dtype(backend, dt.float64)), (-1,))
    if not bool(xp.all(rates >= 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = generator_for(self, generator)
    params = [(float(r),) for r in backend.tolist(rates)]
    samples = serial_samples(gen, backend, params, sample_poisson, poisson_floor)
    values = xp.asarray(samples, dtype=backend_dtype(backend, dt.float64))
    write_array(result, xp.reshape(cast_from_double(backend, values, self._dtype), self._size))
    return result


@poisson.derivative("self")
def poisson_backward(self_sym_sizes: Any, self_scalar_type: DType, self_device: Any) -> Tensor:
    # torch: self: zeros_like(self)
    return zeros_of(self_sym_sizes, self_scalar_type, self_device)


poisson_out = defop(
    "poisson.out(Tensor self, Generator? generator=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@poisson_out.kernel(CEA)
def poisson_out_kernel(self: TensorImpl, generator: Generator | None, *, out: TensorImpl) -> Any:
    return generated_out(aten.poisson.default(self, generator), out)


# --- binomial ----------------------------------------------------------------------------------

binomial = defop("binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor")


@registered(binomial)
def binomial_kernel(count: TensorImpl, prob: TensorImpl, generator: Generator | None) -> Any:
    """Binomial(count, prob) samples, in count's dtype.

    Torch: binomial (Distributions.cpp: floating count and prob, TORCH_CHECK_VALUE) and
    _s_binomial_cpu: zeros of count's size as the output of a TensorIterator over count and
    prob (so broadcast to their shape, with resize_output's warning where that is larger,
    and one dtype: "Found dtype ... but expected ..."), then per element in order
    sample_binomial<scalar_t, double> (a varying number of uniform doubles).
    Differs: torch loops forever on a NaN or infinite count; refimpl raises.
    """
    for name, t in (("count", count), ("prob", prob)):
        if not t._dtype.is_floating_point:
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: "
                f"{t._dtype.scalar_name}"
            )
    shape = broadcast_all([count._size, prob._size])
    if prob._dtype is not count._dtype:
        raise RuntimeError(
            f"Found dtype {prob._dtype.scalar_name} but expected {count._dtype.scalar_name}"
        )
    result = empty_tensor(count._size, count._dtype, count._storage.device, count._storage.backend)
    resize_output(result, shape)
    if count._dtype not in (dt.float32, dt.float64):
        raise not_implemented("binomial_cpu", count._dtype)
    if not has_data(count) or geometry.numel(shape) == 0:
        return result
    backend = backend_of(count)
    xp = backend.xp
    f64 = backend_dtype(backend, dt.float64)

    def flat(t: TensorImpl) -> list[float]:
        expanded = array_of(aten.expand.default(t, list(shape)))
        return [float(v) for v in backend.tolist(xp.reshape(xp.astype(expanded, f64), (-1,)))]

    single = count._dtype is dt.float32
    params = [(c, p, single) for c, p in zip(flat(count), flat(prob))]
    if not all(math.isfinite(c) for c, _, _ in params):
        raise RuntimeError("refimpl: binomial with a NaN or infinite count never ends in torch")
    gen = generator_for(count, generator)
    samples = serial_samples(gen, backend, params, sample_binomial, binomial_floor)
    values = xp.astype(xp.asarray(samples, dtype=f64), backend_dtype(backend, count._dtype))
    write_array(result, xp.reshape(values, shape))
    return result


binomial_out = defop(
    "binomial.out(Tensor count, Tensor prob, Generator? generator=None, *, Tensor(a!) out) "
    "-> Tensor(a!)"
)


@binomial_out.kernel(CEA)
def binomial_out_kernel(
    count: TensorImpl, prob: TensorImpl, generator: Generator | None, *, out: TensorImpl
) -> Any:
    return generated_out(aten.binomial.default(count, prob, generator), out)
