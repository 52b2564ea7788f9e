"""Random factories and seeding: `rand`, `randn`, `randint`, `randperm`, `manual_seed`.

Torch: torch.rand/randn/randint/randperm (TensorFactories.cpp over the distribution kernels
in aten/src/ATen/native/DistributionTemplates.h) and torch.manual_seed (torch/random.py).
Differs: the distributions are torch's, the bit stream is the backend's (see core/random.py).
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.device import device
from refimpl._base.dtypes import DType
from refimpl._base.promotion import get_default_dtype
from refimpl._base.scalars import integral_range
from refimpl.api._args import sizes
from refimpl.api.factories import _finish, _target, _wrap, like_target
from refimpl.api.tensor import Tensor
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.random import DEFAULT_GENERATORS, Generator
from refimpl.core.tensor import empty_strided_tensor, empty_tensor
from refimpl.ops import data

# torch: uniform_real_distribution draws 24 random bits for float and 53 for double
# (aten/src/ATen/core/TransformationHelper.h), so a sample is never rounded up to 1.
_MANTISSA_BITS = {"float16": 11, "float32": 24, "float64": 53}

_NOT_IMPLEMENTED_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
}


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
# torch: the floating types' (mantissa digits, largest finite value); only float16's range
# lies inside int64, so only it can fail the bounds check.
_FLOAT_BOUNDS: Final[dict[str, tuple[int, float]]] = {
    "float16": (11, 65504.0),
    "bfloat16": (8, 3.3895313892515355e38),
    "float32": (24, 3.4028234663852886e38),
    "float64": (53, 1.7976931348623157e308),
}


def check_from_to_in_range(low: int, high: int, dtype: DType) -> None:
    """Torch's checks that `low` and `high - 1` are values of `dtype` (and its warning where a
    float cannot hold every integer between them).

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
    if floating is not None:
        for label, value in (("from", low), ("to - 1", high - 1)):
            if abs(value) > 1 << digits:
                warnings.warn(
                    f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only "
                    "within this range. This warning will become an error in version 1.7 "
                    "release, please fix the code in advance",
                    UserWarning,
                    stacklevel=3,
                )


def _generator_for(generator: Generator | None, dev: device) -> Generator:
    if generator is None:
        return DEFAULT_GENERATORS.get(dev.type)
    if generator.device.type != dev.type:
        raise RuntimeError(
            f"Expected a '{dev.type}' device type for generator but found '{generator.device.type}'"
        )
    return generator


def _uniform(backend: Backend, gen: Generator, n: int, dtype: DType) -> Array:
    xp = backend.xp
    bits = _MANTISSA_BITS[dtype.to_real().name]
    samples = gen.source(backend).uniform(n)
    scale = float(1 << bits)
    return xp.floor(samples * scale) / scale


def rand(
    *size: Any,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Samples from U[0, 1). Torch: torch.rand."""
    shape = sizes(size, "rand")
    target = dtype or get_default_dtype()
    if not (target.is_floating_point or target.is_complex):
        raise NotImplementedError(
            f"\"check_uniform_bounds\" not implemented for '{_NOT_IMPLEMENTED_NAMES[target.name]}'"
        )
    dev, backend = _target(device)
    if backend is None:
        return _finish(empty_tensor(shape, target, dev, None), requires_grad)
    gen = _generator_for(generator, dev)
    n = geometry.numel(shape)
    xp = backend.xp
    if target.is_complex:
        real = target.to_real()
        values = _uniform(backend, gen, 2 * n, real)
        array = values[:n] + 1j * values[n:]
        array = data.cast_array(xp, array, dt.complex128, target, backend)
    else:
        array = data.cast_array(xp, _uniform(backend, gen, n, target), dt.float64, target, backend)
    return _finish(_wrap(xp.reshape(array, shape), target, dev, backend), requires_grad)


def randn(
    *size: Any,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Samples from N(0, 1) (complex: each part N(0, 1/2)). Torch: torch.randn."""
    shape = sizes(size, "randn")
    target = dtype or get_default_dtype()
    if not (target.is_floating_point or target.is_complex):
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{_NOT_IMPLEMENTED_NAMES[target.name]}'"
        )
    dev, backend = _target(device)
    if backend is None:
        return _finish(empty_tensor(shape, target, dev, None), requires_grad)
    gen = _generator_for(generator, dev)
    n = geometry.numel(shape)
    xp = backend.xp
    source = gen.source(backend)
    if target.is_complex:
        values = source.normal(2 * n) * (0.5**0.5)
        array = data.cast_array(xp, values[:n] + 1j * values[n:], dt.complex128, target, backend)
    else:
        array = data.cast_array(xp, source.normal(n), dt.float64, target, backend)
    return _finish(_wrap(xp.reshape(array, shape), target, dev, backend), requires_grad)


def randint(
    *args: Any,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    **kwargs: Any,
) -> Tensor:
    """Integers uniform in [low, high). Torch: torch.randint(low=0, high, size)."""
    low: int
    high: int
    if "size" in kwargs:
        args = args + (kwargs.pop("size"),)
    if "high" in kwargs:
        args = (kwargs.pop("low", 0), kwargs.pop("high")) + args
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() received an invalid combination of arguments")
    shape = sizes((size,), "randint")
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    target = dtype or dt.int64
    check_from_to_in_range(low, high, target)
    dev, backend = _target(device)
    if backend is None:
        return _finish(empty_tensor(shape, target, dev, None), requires_grad)
    gen = _generator_for(generator, dev)
    xp = backend.xp
    values = gen.source(backend).integers(int(low), int(high), geometry.numel(shape))
    array = data.cast_array(xp, values, dt.int64, target, backend)
    return _finish(_wrap(xp.reshape(array, shape), target, dev, backend), requires_grad)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A random permutation of 0..n-1. Torch: torch.randperm."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    target = dtype or dt.int64
    dev, backend = _target(device)
    if backend is None:
        return _finish(empty_tensor((n,), target, dev, None), requires_grad)
    gen = _generator_for(generator, dev)
    xp = backend.xp
    array = data.cast_array(xp, gen.source(backend).permutation(n), dt.int64, target, backend)
    return _finish(_wrap(array, target, dev, backend), requires_grad)


def _like_shape(input: Tensor, dtype: DType | None, device: Any) -> tuple[Any, DType, Any]:
    return input._size, dtype or input._dtype, input.device if device is None else device


def _laid_out_like(input: Tensor, samples: Tensor) -> Tensor:
    """`samples` (contiguous, from the configured backend) in `input`'s layout and backend.

    Torch: the *_like factories use preserve_format, as empty_like does.
    """
    dev, backend = like_target(input, samples.device)
    stride = geometry.dense_strides_like(input._size, input._stride)
    if samples._stride == stride and samples._storage.backend is backend:
        return samples
    out: Tensor = empty_strided_tensor(input._size, stride, samples._dtype, dev, backend)
    data.copy_(out, samples)
    out._version_counter.version = 0
    return out


def rand_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """U[0, 1) samples shaped like `input`. Torch: torch.rand_like."""
    size, target, dev = _like_shape(input, dtype, device)
    return _finish(_laid_out_like(input, rand(size, dtype=target, device=dev)), requires_grad)


def randn_like(
    input: Tensor,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """N(0, 1) samples shaped like `input`. Torch: torch.randn_like."""
    size, target, dev = _like_shape(input, dtype, device)
    return _finish(_laid_out_like(input, randn(size, dtype=target, device=dev)), requires_grad)


def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Integers in [low, high) shaped like `input`. Torch: torch.randint_like(input, high)."""
    if high is None:
        low, high = 0, low
    size, target, dev = _like_shape(input, dtype, device)
    samples = randint(low, high, size, dtype=target, device=dev)
    return _finish(_laid_out_like(input, samples), requires_grad)


def manual_seed(seed: int) -> Generator:
    """Seed every default generator; returns the CPU one. Torch: torch.manual_seed."""
    DEFAULT_GENERATORS.manual_seed(seed)
    return DEFAULT_GENERATORS.get("cpu")


def seed() -> int:
    """Seed every default generator non-deterministically. Torch: torch.seed."""
    return DEFAULT_GENERATORS.reseed_all()


def initial_seed() -> int:
    """The seed of the default CPU generator. Torch: torch.initial_seed."""
    return DEFAULT_GENERATORS.get("cpu").initial_seed()


def get_rng_state() -> Any:
    """The default CPU generator's state as a uint8 tensor. Torch: torch.get_rng_state."""
    return DEFAULT_GENERATORS.get("cpu").get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default CPU generator's state. Torch: torch.set_rng_state."""
    DEFAULT_GENERATORS.get("cpu").set_state(new_state)
