"""Random sampling as aten ops: uniform_, normal_, random_ (its three overloads) and randperm,
drawn from torch's CPU generator with torch's transforms.

Torch: aten/src/ATen/native/DistributionTemplates.h (the checks: uniform_impl_, normal_impl_,
random_impl, random_from_to_impl, check_from_to_in_range), native/cpu/DistributionTemplates.h
(the kernels and the order they draw in), TensorFactories.cpp (randperm_cpu). The factories
rand, randn, randint and normal are torch's compositions of these (empty, then the in-place
op) and live in refimpl/api/random.py. A kernel draws every word of the stream in bulk
(refimpl/core/random.py) and applies the transform to whole arrays; the elements are filled
in torch's serial-kernel order (memory order: see _distributions_draw.fill_axes).
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.dtypes import ALL_DTYPES, DType
from refimpl._base.scalars import integral_range
from refimpl.core.random import (
    Generator,
    normal_fill,
    normal_real,
    random32,
    random64,
    uniform_real,
)
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, empty_tensor, write_array
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._complex_parts import compose_complex
from refimpl.ops._distributions_draw import fill_axes, from_fill_order, generator_for
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.factory import _factory_target
from refimpl.ops.scan import CEA, registered

aten: Final = namespace("aten")

# torch: the names AT_DISPATCH prints for a dtype in "... not implemented for '<name>'".
DISPATCH_NAMES: Final[dict[str, str]] = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
    "complex32": "ComplexHalf",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    """Torch: AT_DISPATCH's error for a dtype the kernel has no case for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{DISPATCH_NAMES[dtype.name]}'")


# torch: the C++ type names check_from_to_in_range prints (typeid names, as GCC spells them).
_RANDOM_BOUND_NAMES: Final[dict[str, str]] = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
}
# torch: the floating types' (mantissa digits, largest finite value).
_FLOAT_BOUNDS: Final[dict[str, tuple[int, float]]] = {
    "float16": (11, 65504.0),
    "bfloat16": (8, 3.3895313892515355e38),
    "float32": (24, 3.4028234663852886e38),
    "float64": (53, 1.7976931348623157e308),
}


def check_from_to_in_range(low: int, high: int, dtype: DType, *, warn: bool = True) -> None:
    """Torch's checks that `low` and `high - 1` are values of `dtype` (and, with `warn`, its
    warning where a float cannot hold every integer between them).

    Torch: check_from_to_in_range in aten/src/ATen/native/DistributionTemplates.h.
    """
    if dtype.is_complex:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    name = _RANDOM_BOUND_NAMES[dtype.name]
    floating = _FLOAT_BOUNDS.get(dtype.name)
    if floating is None:
        lowest, largest = integral_range(dtype) if dtype is not dt.bool_ else (0, 1)
    else:
        digits, largest_float = floating
        lowest, largest = -largest_float, largest_float  # type: ignore[assignment]  # floats
    for label, value in (("from", low), ("to - 1", high - 1)):
        if value < lowest or value > largest:
            raise RuntimeError(f"{label} is out of bounds for {name}")
    if floating is not None and warn:
        for label, value in (("from", low), ("to - 1", high - 1)):
            if abs(value) > 1 << digits:
                warnings.warn(
                    f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only "
                    "within this range. This warning will become an error in version 1.7 "
                    "release, please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )


def _fill(self: TensorImpl, values: Any) -> TensorImpl:
    """`values` (1-D, in fill order, already `self`'s dtype) written through `self`."""
    backend = self._storage.backend
    assert backend is not None
    axes = fill_axes(self)
    write_array(self, from_fill_order(backend.xp, values, self._size, axes))
    return self


def _fill_complex(self: TensorImpl, fill: Any) -> TensorImpl:
    """Torch: the complex cases of uniform_ and normal_ fill view_as_real(self). Where the
    backend's real view is a copy (array_api_strict cannot reinterpret bytes), the filled
    parts are written back as complex values."""
    real: TensorImpl = aten.view_as_real.default(self)
    fill(real)
    if real._storage is not self._storage and has_data(self):
        backend = self._storage.backend
        assert backend is not None
        parts = array_of(real)
        write_array(self, compose_complex(backend.xp, parts[..., 0], parts[..., 1]))
    return self


# --- uniform_ --------------------------------------------------------------------------------

uniform_ = defop(
    "uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) "
    "-> Tensor(a!)"
)


@registered(uniform_)
def uniform__kernel(
    self: TensorImpl, low: float, high: float, *, generator: Generator | None
) -> Any:
    """Samples of U[from, to). Torch: uniform_impl_ (DistributionTemplates.h): complex
    tensors fill their real view; the bounds must lie in the dtype's range; uniform_kernel."""
    dtype = self._dtype
    if dtype.is_complex:
        _uniform_checks(dtype.to_real(), low, high)
        return _fill_complex(
            self, lambda real: uniform__kernel(real, low, high, generator=generator)
        )
    if not dtype.is_floating_point:
        raise not_implemented("check_uniform_bounds", dtype)
    _uniform_checks(dtype, low, high)
    data.check_writable(self)  # torch: the TensorIterator's internal-overlap check
    if not has_data(self):
        return self  # torch's meta kernels check no generator
    gen = generator_for(self, generator)
    backend = self._storage.backend
    assert backend is not None
    return _fill(self, uniform_real(gen, backend, self.numel(), dtype, low, high))


def _uniform_checks(dtype: DType, low: float, high: float) -> None:
    # torch: CHECK_OUT_OF_BOUNDS on from and to, then from <= to.
    _, largest = _FLOAT_BOUNDS[dtype.name]
    name = _RANDOM_BOUND_NAMES[dtype.name]
    for label, value in (("from", low), ("to", high)):
        if not (-largest <= value <= largest):
            raise RuntimeError(f"{label} is out of bounds for {name}")
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > "
            f"to={_num(high)}"
        )


def _num(value: float) -> str:
    """A double as torch's messages print it (C++ ostream: 6 significant digits)."""
    return f"{value:g}"


# --- normal_ ---------------------------------------------------------------------------------

normal_ = defop(
    "normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) "
    "-> Tensor(a!)"
)


def check_std(std: float) -> None:
    # torch: CHECK_NORMAL_STD in DistributionTemplates.h.
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


@registered(normal_)
def normal__kernel(
    self: TensorImpl, mean: float, std: float, *, generator: Generator | None
) -> Any:
    """Samples of N(mean, std^2). Torch: normal_impl_ (complex: the real view with std /
    sqrt(2)) and normal_kernel: a contiguous float tensor of 16 or more elements takes
    normal_fill (blocks of 16), any other the serial normal_distribution<double>."""
    check_std(std)
    dtype = self._dtype
    if dtype.is_complex:
        return _fill_complex(
            self, lambda real: normal__kernel(real, mean, std / 2**0.5, generator=generator)
        )
    if not dtype.is_floating_point:
        raise not_implemented("normal_kernel_cpu", dtype)
    data.check_writable(self)  # torch: the TensorIterator's internal-overlap check
    if not has_data(self):
        return self  # torch's meta kernels check no generator
    gen = generator_for(self, generator)
    backend = self._storage.backend
    assert backend is not None
    n = self.numel()
    if n >= 16 and self.is_contiguous():
        values = normal_fill(gen, backend, n, dtype, mean, std)
        return _fill(self, values)
    return _fill(self, normal_real(gen, backend, n, dtype, mean, std))


# --- random_ ---------------------------------------------------------------------------------

random_ = defop("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)")
random_from = defop(
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)"
)
random_to = defop("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)")

# torch: the dtypes random_full_64_bits_range_kernel fills (the others raise).
_WIDE_DRAW: Final = frozenset({"int64", "float64", "float32", "bfloat16"})
# torch 2.13's uniform_int_from_to_distribution draws random64() for a range of 2^28 or
# more, in every dtype (measured: int32 and int64 switch between 2^28 - 1 and 2^28;
# the DistributionsHelper.h of older releases switched at 2^32 for int64/double/float/
# bfloat16 only), so that `val % range` stays nearly unbiased.
_WIDE_SPAN: Final = 1 << 28
_INT64_MIN: Final = -(1 << 63)


def _random_dtype_check(dtype: DType, kernel: str) -> None:
    if dtype.is_complex or dtype.name in ("uint16", "uint32", "uint64"):
        raise not_implemented(kernel, dtype)


def _to_dtype(backend: Any, values: Any, dtype: DType) -> Any:
    """int64 (or uint64) `values` as `dtype`: static_cast<T>(int64) (floats round, integers
    keep the low bits, bool is nonzero)."""
    xp = backend.xp
    if dtype is dt.bool_:
        return values != 0
    return xp.astype(values, backend_dtype(backend, dtype))


@registered(random_)
def random__kernel(self: TensorImpl, *, generator: Generator | None) -> Any:
    """Integers in [0, 2^mantissa] for floats, [0, max] for integers, {0, 1} for bool.
    Torch: random_impl / random_kernel over uniform_int_distribution and
    transformation::uniform_int (TransformationHelper.h)."""
    dtype = self._dtype
    _random_dtype_check(dtype, "random_kernel_cpu")
    data.check_writable(self)  # torch: the TensorIterator's internal-overlap check
    if not has_data(self):
        return self  # torch's meta kernels check no generator
    gen = generator_for(self, generator)
    backend = self._storage.backend
    assert backend is not None
    xp = backend.xp
    n = self.numel()
    if dtype in (dt.float64, dt.int64):
        words = random64(gen, backend, n)
    else:
        words = xp.astype(random32(gen, backend, n), xp.uint64)
    if dtype is dt.bool_:
        modulus = 2
    elif dtype.is_floating_point:
        modulus = (1 << _FLOAT_BOUNDS[dtype.name][0]) + 1
    else:
        modulus = integral_range(dtype)[1] + 1
    values = xp.astype(words % xp.asarray(modulus, dtype=xp.uint64), xp.int64)
    return _fill(self, _to_dtype(backend, values, dtype))


@registered(random_from)
def random_from_kernel(
    self: TensorImpl, low: int, high: int | None, *, generator: Generator | None
) -> Any:
    """Integers in [from, to) (to=None: up to the dtype's largest, or every int64 when from
    is int64's lowest). Torch: random_from_to_impl (DistributionTemplates.h)."""
    dtype = self._dtype
    if high is not None:
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if dtype.is_floating_point:
            low, high = _update_from(low, dtype), _update_to(high, dtype)
            if low >= high:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={high}"
                )
        check_from_to_in_range(low, high, dtype)
        return _random_from_to(self, high - low, low, generator)
    if low != _INT64_MIN:
        if dtype.is_complex:
            raise not_implemented("random_from_to_range_calc", dtype)
        if dtype is dt.bool_:
            to_inc = 1
        elif dtype.is_floating_point:
            to_inc = 1 << _FLOAT_BOUNDS[dtype.name][0]
        else:
            to_inc = integral_range(dtype)[1]
        check_from_to_in_range(low, to_inc + 1, dtype)
        if low > to_inc:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={low} > to_inc={to_inc}"
            )
        return _random_from_to(self, to_inc - low + 1, low, generator)
    # torch: random_full_64_bits_range_kernel: random64() as int64 for int64, double,
    # float and bfloat16; an error for the others.
    if dtype.name not in _WIDE_DRAW:
        if dtype.is_complex or dtype in (dt.bool_, dt.float16):
            raise not_implemented("random_full_64_bits_range_kernel_cpu", dtype)
        raise RuntimeError(
            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
        )
    data.check_writable(self)  # torch: the TensorIterator's internal-overlap check
    if not has_data(self):
        return self  # torch's meta kernels check no generator
    gen = generator_for(self, generator)
    backend = self._storage.backend
    assert backend is not None
    xp = backend.xp
    values = xp.astype(random64(gen, backend, self.numel()), xp.int64)
    return _fill(self, _to_dtype(backend, values, dtype))


def _as_float_int(value: int, dtype: DType) -> int:
    """static_cast<int64_t>(static_cast<scalar_t>(value)): `value` rounded to `dtype`."""
    digits = _FLOAT_BOUNDS[dtype.name][0]
    if value == 0 or abs(value) < 1 << digits:
        return value
    shift = abs(value).bit_length() - digits
    quotient, remainder = divmod(value, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1  # to nearest, ties to even
    return quotient << shift


def _update_from(low: int, dtype: DType) -> int:
    """Torch: update_from (DistributionTemplates.h): a `from` whose successor rounds below it
    in `dtype` moves up to the next value the dtype holds."""
    from_plus_1 = _as_float_int(low + 1, dtype)
    if from_plus_1 < low:
        n = abs(low + 1).bit_length() - 1
        return from_plus_1 + (1 << (n - _FLOAT_BOUNDS[dtype.name][0] + 1))
    return low


def _update_to(high: int, dtype: DType) -> int:
    """Torch: update_to: a `to` whose predecessor rounds up to it (or above) in `dtype` moves
    down below that value."""
    to_minus_1 = _as_float_int(high - 1, dtype)
    if to_minus_1 >= high:
        n = abs(high - 1).bit_length() - 1
        return to_minus_1 - (1 << (n - _FLOAT_BOUNDS[dtype.name][0] + 1))
    return high


def _random_from_to(
    self: TensorImpl, span: int, base: int, generator: Generator | None
) -> TensorImpl:
    """Torch: random_from_to_kernel with uniform_int_from_to_distribution: `random()` (or
    `random64()` for a span of 2^28 or more) % span + base, through int64."""
    dtype = self._dtype
    _random_dtype_check(dtype, "random_from_to_kernel_cpu")
    data.check_writable(self)  # torch: the TensorIterator's internal-overlap check
    if not has_data(self):
        return self  # torch's meta kernels check no generator
    gen = generator_for(self, generator)
    backend = self._storage.backend
    assert backend is not None
    xp = backend.xp
    n = self.numel()
    if span >= _WIDE_SPAN:
        words = random64(gen, backend, n)
    else:
        words = xp.astype(random32(gen, backend, n), xp.uint64)
    offsets = words % xp.asarray(span, dtype=xp.uint64)
    # (val % range) + base as uint64, then int64: wraps as two's complement.
    values = xp.astype(offsets + xp.asarray(base % (1 << 64), dtype=xp.uint64), xp.int64)
    return _fill(self, _to_dtype(backend, values, dtype))


@registered(random_to)
def random_to_kernel(self: TensorImpl, high: int, *, generator: Generator | None) -> Any:
    """Integers in [0, to). Torch: random_from_to_impl with from = 0."""
    return random_from_kernel(self, 0, high, generator=generator)


# --- randperm --------------------------------------------------------------------------------

randperm_default = defop(
    "randperm(SymInt n, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor"
)
randperm_default_out = defop("randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)")
randperm = defop(
    "randperm.generator(SymInt n, *, Generator? generator, ScalarType? dtype=4, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
)
randperm_out = defop(
    "randperm.generator_out(SymInt n, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)"
)

# torch: the C type names of the integral overflow check (c10::checked_convert).
_INT_C_NAMES: Final[dict[str, str]] = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
}
# torch: check_supported_max_int_with_precision (TensorFactories.cpp): the largest n a
# floating dtype holds every integer below, and the type name its message prints.
_PERMUTABLE_FLOATS: Final[dict[str, tuple[int, str]]] = {
    "float16": ((1 << 11) + 1, "Half"),
    "bfloat16": ((1 << 8) + 1, "BFloat16"),
    "float32": ((1 << 24) + 1, "Float"),
    "float64": ((1 << 53) + 1, "Double"),
}
# torch: randperm_cpu keeps the 32-bit draw below this n (uint32 max / 20).
_RANDPERM_SMALL: Final = 0xFFFFFFFF // 20


def _check_randperm(n: int, dtype: DType) -> None:
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is dt.bool_ or dtype.is_complex or dtype.name in ("uint16", "uint32", "uint64"):
        raise not_implemented("randperm", dtype)
    floating = _PERMUTABLE_FLOATS.get(dtype.name)
    if floating is not None:
        if n > floating[0]:
            raise RuntimeError(f"n cannot be greater than {floating[0]} for {floating[1]} type.")
        return
    largest = integral_range(dtype)[1]
    if n - 1 > largest:
        raise RuntimeError(
            f"value cannot be converted to type {_INT_C_NAMES[dtype.name]} without overflow"
        )


def permutation(gen: Generator, backend: Any, n: int) -> list[int]:
    """torch's permutation of range(n). Torch: randperm_cpu (TensorFactories.cpp): for
    n < 2^32 / 20, r = 0..n-1 then for i < n - 1 swap r[i] with r[i + random() % (n - i)];
    else the inside-out Fisher-Yates with random64() % (i + 1)."""
    if n <= 1:
        return list(range(n))
    if n < _RANDPERM_SMALL:
        words = backend.tolist(random32(gen, backend, n - 1))
        order = list(range(n))
        for i, word in enumerate(words):
            z = i + word % (n - i)
            order[i], order[z] = order[z], order[i]
        return order
    draws = backend.tolist(random64(gen, backend, n))
    order = [0] * n
    for i, word in enumerate(draws):
        z = word % (i + 1)
        order[i] = order[z]
        order[z] = i
    return order


@randperm.kernel(CEA)
def randperm_kernel(
    n: int,
    *,
    generator: Generator | None,
    dtype: DType | None,
    layout: Any,
    device: Any,
    pin_memory: bool | None,
) -> Any:
    """A random permutation of 0..n-1. Torch: randperm (TensorFactories.cpp): empty, then
    randperm_out."""
    target, backend = _factory_target(device)
    # The schema's default (`ScalarType? dtype=4`) arrives as the enum's int: int64.
    result_dtype = ALL_DTYPES[dtype] if isinstance(dtype, int) else dtype or dt.int64
    out = empty_tensor((n,) if n >= 0 else (0,), result_dtype, target, backend)
    _check_randperm(n, out._dtype)
    return randperm_out_kernel(n, generator=generator, out=out)


@registered(randperm_out)
def randperm_out_kernel(n: int, *, generator: Generator | None, out: TensorImpl) -> Any:
    """Torch: randperm_out_cpu: checks, resize to (n,), the permutation."""
    _check_randperm(n, out._dtype)
    if out._size != (n,):
        aten.resize_.default(out, [n])
    if not has_data(out):
        return out
    gen = generator_for(out, generator)
    backend = out._storage.backend
    assert backend is not None
    xp = backend.xp
    order = xp.asarray(permutation(gen, backend, n), dtype=xp.int64)
    write_array(out, _to_dtype(backend, order, out._dtype))
    return out


@randperm_default.kernel(CEA)
def randperm_default_kernel(
    n: int, *, dtype: DType | None, layout: Any, device: Any, pin_memory: bool | None
) -> Any:
    """Torch: randperm(n) is randperm.generator with the default generator."""
    return randperm_kernel(
        n, generator=None, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
    )


@randperm_default_out.kernel(CEA)
def randperm_default_out_kernel(n: int, *, out: TensorImpl) -> Any:
    return randperm_out_kernel(n, generator=None, out=out)


# --- derivatives -----------------------------------------------------------------------------


def sampled_backward(grad: Tensor) -> Tensor:
    # torch: derivatives.yaml, uniform_ / normal_ / random_: self: zeros_like(grad)
    result: Tensor = aten.zeros_like.default(grad)
    return result


for _sampler in (uniform_, normal_, random_, random_from, random_to):
    _sampler.derivative("self")(sampled_backward)
