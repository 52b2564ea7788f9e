"""Random factories, sampling methods and seeding: `rand`, `randn`, `randint`, `randperm`,
`normal`, `Tensor.uniform_/normal_/random_`, `manual_seed`, `get_rng_state`.

Torch: torch.rand/randn/randint/randperm/normal (TensorFactories.cpp and Distributions.cpp:
an empty tensor, then uniform_ / normal_ / random_ on it; normal's tensor overloads are
normal_(0, 1) then mul_(std) and add_(mean)) and torch.manual_seed (torch/random.py). The
samples come from the aten ops of refimpl/ops/random.py over torch's CPU generator, so a
seeded program draws torch's numbers (see refimpl/core/random.py).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl.api._args import sizes
from refimpl.api.factories import _finish
from refimpl.api.tensor import Tensor
from refimpl.core.random import DEFAULT_GENERATORS, Generator
from refimpl.dispatch.overloads import namespace
from refimpl.ops.random import DISPATCH_NAMES

_aten: Final = namespace("aten")

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "normal",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_rng_state",
]


def _floating(dtype: DType, kernel: str) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{DISPATCH_NAMES[dtype.name]}'"
        )


def _fresh(t: Tensor, out: Tensor | None, requires_grad: bool) -> Tensor:
    # A new tensor starts at version 0 (the fill is part of its making).
    if out is None:
        t._version_counter.version = 0
    return _finish(t, requires_grad)


def _factory(
    name: str,
    args: tuple[Any, ...],
    generator: Generator | None,
    out: Tensor | None,
    dtype: DType | None,
    device: device | str | int | None,
    requires_grad: bool,
) -> Tensor:
    """torch's binding of a random factory: the `.generator` overloads when a generator is
    given, the `.out` ones when `out` is; `args` ends with the size."""
    packet = getattr(_aten, name)
    if out is not None:
        overload = "generator_out" if generator is not None else "out"
        extra = {"generator": generator} if generator is not None else {}
        result: Tensor = getattr(packet, overload)(*args, out=out, **extra)
        return result
    options = {"dtype": dtype, "device": None if device is None else as_device(device)}
    if generator is not None:
        result = packet.generator(*args, generator=generator, **options)
    else:
        result = packet.default(*args, **options)
    return _finish(result, requires_grad)


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
    """Samples from U[0, 1). Torch: torch.rand (aten.rand: empty, then uniform_(0, 1))."""
    shape = list(sizes(size, "rand"))
    return _factory("rand", (shape,), generator, out, dtype, device, requires_grad)


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
    """Samples from N(0, 1) (complex: each part N(0, 1/2)). Torch: torch.randn (aten.randn:
    empty, then normal_(0, 1))."""
    shape = list(sizes(size, "randn"))
    return _factory("randn", (shape,), generator, out, dtype, device, requires_grad)


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
    """Integers uniform in [low, high). Torch: torch.randint(low=0, high, size) (aten.randint
    .low: empty, then random_(low, high))."""
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
    shape = list(sizes((size,), "randint"))
    name_args = (int(low), int(high), shape)
    packet = _aten.randint
    if out is not None:
        if generator is not None:
            result: Tensor = packet.low_generator_out(*name_args, generator=generator, out=out)
        else:
            result = packet.low_out(*name_args, out=out)
        return result
    options = {"dtype": dtype, "device": None if device is None else as_device(device)}
    if generator is not None:
        result = packet.low_generator(*name_args, generator=generator, **options)
    else:
        result = packet.low(*name_args, **options)
    return _finish(result, requires_grad)


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
    """A random permutation of 0..n-1. Torch: torch.randperm (randperm_cpu's algorithm)."""
    packet = _aten.randperm
    if out is not None:
        if generator is not None:
            result: Tensor = packet.generator_out(n, generator=generator, out=out)
        else:
            result = packet.out(n, out=out)
        return result
    options = {
        "dtype": dtype or dt.int64,
        "device": None if device is None else as_device(device),
    }
    if generator is not None:
        result = packet.generator(n, generator=generator, **options)
    else:
        result = packet.default(n, **options)
    return _finish(result, requires_grad)


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Normal samples. Torch: torch.normal's overloads (Distributions.cpp normal /
    normal_out_impl): float_float (a new tensor of `size`, normal_(mean, std)); Tensor_float
    (normal_(0, std), then add_(mean)); float_Tensor and Tensor_Tensor (normal_(0, 1), then
    mul_(std), add_(mean)), each in a tensor shaped like the broadcast of the tensors."""
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments")
        shape = list(sizes((size,), "normal"))
        if out is not None:
            result: Tensor = _aten.normal.float_float_out(
                float(mean), float(std), shape, generator=generator, out=out
            )
            return result
        result = _aten.normal.float_float(
            float(mean), float(std), shape, generator=generator, dtype=dtype, device=device
        )
        return _finish(result, requires_grad)
    overload = {
        (True, False): "Tensor_float",
        (False, True): "float_Tensor",
        (True, True): "Tensor_Tensor",
    }[(mean_is_tensor, std_is_tensor)]
    mean = mean if mean_is_tensor else float(mean)
    std = std if std_is_tensor else float(std)
    if out is not None:
        result = getattr(_aten.normal, f"{overload}_out")(mean, std, generator=generator, out=out)
        return result
    result = getattr(_aten.normal, overload)(mean, std, generator=generator)
    return result


def _like(
    name: str,
    args: tuple[Any, ...],
    generator: Generator | None,
    dtype: DType | None,
    device: Any,
    requires_grad: bool,
    memory_format: Any,
) -> Tensor:
    """torch's binding of a `*_like` random factory: its `generator` overload when a
    generator is given (`name` is (plain overload, generator overload))."""
    plain, with_generator = name.split("|")
    options = {
        "dtype": dtype,
        "device": None if device is None else as_device(device),
        "memory_format": memory_format,
    }
    packet = getattr(_aten, plain.split(".")[0])
    if generator is not None:
        result: Tensor = getattr(packet, with_generator)(*args, generator=generator, **options)
    else:
        result = getattr(packet, plain.partition(".")[2] or "default")(*args, **options)
    return _finish(result, requires_grad)


def rand_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """U[0, 1) samples shaped like `input`. Torch: torch.rand_like (empty_like, uniform_)."""
    return _like(
        "rand_like|generator", (input,), generator, dtype, device, requires_grad, memory_format
    )


def randn_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """N(0, 1) samples shaped like `input`. Torch: torch.randn_like (empty_like, normal_)."""
    return _like(
        "randn_like|generator", (input,), generator, dtype, device, requires_grad, memory_format
    )


def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    generator: Generator | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Integers in [low, high) shaped like `input`. Torch: torch.randint_like(input, high) and
    (input, low, high) (empty_like, random_(low, high))."""
    args: tuple[Any, ...]
    if high is None:
        name, args = "randint_like|generator", (input, int(low))
    else:
        name, args = "randint_like.low_dtype|low_generator_dtype", (input, int(low), int(high))
    return _like(name, args, generator, dtype, device, requires_grad, memory_format)


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
