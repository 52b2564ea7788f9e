"""The random factories as aten ops: rand, randn and randint (each with its generator and
out= overloads).

Torch: TensorFactories.cpp: rand is empty(size, options).uniform_(0, 1, generator); randn
is empty(...).normal_(0, 1, generator); randint is empty(...).random_(low, high, generator)
(dtype int64 unless given); the out= forms resize `out` and fill it the same way. The draws
are those of refimpl/ops/random.py's in-place samplers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl._base.device import device
from refimpl._base.dtypes import ALL_DTYPES, DType
from refimpl._base.promotion import get_default_dtype
from refimpl.core.random import Generator
from refimpl.core.tensor import TensorImpl, empty_tensor
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.factory import _check_sizes, _factory_target
from refimpl.ops.random import DISPATCH_NAMES, check_from_to_in_range
from refimpl.ops.scan import CEA

aten: Final = namespace("aten")


def _fresh(t: Any) -> Any:
    """A new tensor starts at version 0: torch fills it below ADInplaceOrView, where the
    in-place samplers bump no version; refimpl's nested calls did, so reset it."""
    t._version_counter.version = 0
    return t

_OPTIONS: Final = (
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
)
_INT_OPTIONS: Final = (
    "ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None"
)


def _new(size: list[int], dtype: DType, dev: device | None) -> Any:
    target, backend = _factory_target(dev)
    return empty_tensor(_check_sizes(size), dtype, target, backend)


def _floating(dtype: DType, kernel: str) -> None:
    # torch: the sampler's AT_DISPATCH over floating and complex types.
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{DISPATCH_NAMES[dtype.name]}'"
        )


def _resized(out: TensorImpl, size: list[int]) -> TensorImpl:
    """Torch: the out= factories call result.resize_(size), which warns about nothing."""
    shape = _check_sizes(size)
    if out._size != shape:
        aten.resize_.default(out, list(shape))
    return out


# --- rand, randn -----------------------------------------------------------------------------


def _uniform(t: TensorImpl, generator: Generator | None) -> Any:
    _floating(t._dtype, "check_uniform_bounds")
    return aten.uniform_.default(t, 0.0, 1.0, generator=generator)


def _normal(t: TensorImpl, generator: Generator | None) -> Any:
    _floating(t._dtype, "normal_kernel_cpu")
    return aten.normal_.default(t, 0.0, 1.0, generator=generator)


def _register(block: OpBlock) -> Callable[[Callable[..., Any]], Any]:
    # torch: rand.out is CompositeExplicitAutograd, randn.out a decomposition; defop's spec
    # says which.
    return block.decomposition if block.spec.cia else block.kernel(CEA)


def _sampling_factory(
    name: str, fill: Callable[[TensorImpl, Generator | None], Any], check: str
) -> None:
    """The four overloads of rand or randn: a new tensor of the default (or given) floating
    dtype filled in place by `fill` (uniform_ or normal_ on [0, 1) / N(0, 1)), with and
    without a generator, and their out= forms (out.resize_(size), then the fill).

    Torch: rand / randn and rand_out / randn_out (TensorFactories.cpp).
    """
    functional = defop(f"{name}(SymInt[] size, *, {_OPTIONS}) -> Tensor")
    with_generator = defop(
        f"{name}.generator(SymInt[] size, *, Generator? generator, {_OPTIONS}) -> Tensor"
    )
    out = defop(f"{name}.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
    generator_out = defop(
        f"{name}.generator_out(SymInt[] size, *, Generator? generator, Tensor(a!) out) -> "
        "Tensor(a!)"
    )

    def generator_kernel(
        size: list[int],
        *,
        generator: Generator | None,
        dtype: DType | None,
        layout: Any,
        device: device | None,
        pin_memory: bool | None,
    ) -> Any:
        target = dtype or get_default_dtype()
        _floating(target, check)
        return _fresh(fill(_new(size, target, device), generator))

    def functional_kernel(
        size: list[int],
        *,
        dtype: DType | None,
        layout: Any,
        device: device | None,
        pin_memory: bool | None,
    ) -> Any:
        return generator_kernel(
            size, generator=None, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
        )

    def out_kernel(size: list[int], *, out: TensorImpl) -> Any:
        return fill(_resized(out, size), None)

    def generator_out_kernel(
        size: list[int], *, generator: Generator | None, out: TensorImpl
    ) -> Any:
        return fill(_resized(out, size), generator)

    for block, kernel in (
        (functional, functional_kernel),
        (with_generator, generator_kernel),
        (out, out_kernel),
        (generator_out, generator_out_kernel),
    ):
        kernel.__name__ = kernel.__qualname__ = f"{name}_{kernel.__name__}"
        _register(block)(kernel)


_sampling_factory("rand", _uniform, "check_uniform_bounds")
_sampling_factory("randn", _normal, "normal_kernel_cpu")


# --- randint ---------------------------------------------------------------------------------

randint = defop(f"randint(SymInt high, SymInt[] size, *, {_INT_OPTIONS}) -> Tensor")
randint_generator = defop(
    f"randint.generator(SymInt high, SymInt[] size, *, Generator? generator, {_INT_OPTIONS}) "
    "-> Tensor"
)
randint_low = defop(
    f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_INT_OPTIONS}) -> Tensor"
)
randint_low_generator = defop(
    "randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
    f"{_INT_OPTIONS}) -> Tensor"
)
randint_out = defop("randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
randint_generator_out = defop(
    "randint.generator_out(SymInt high, SymInt[] size, *, Generator? generator, "
    "Tensor(a!) out) -> Tensor(a!)"
)
randint_low_out = defop(
    "randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)"
)
randint_low_generator_out = defop(
    "randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, "
    "Generator? generator, Tensor(a!) out) -> Tensor(a!)"
)


def _random(t: TensorImpl, low: int, high: int, generator: Generator | None) -> Any:
    fill = getattr(aten.random_, "from")
    return fill(t, low, high, generator=generator)


def _check_randint(low: int, high: int, dtype: DType) -> None:
    # torch: random_from_to_impl's checks, before the tensor is made; its warning comes once,
    # from the random_ call that fills the tensor.
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    check_from_to_in_range(low, high, dtype, warn=False)


@randint_low_generator.kernel(CEA)
def randint_low_generator_kernel(
    low: int,
    high: int,
    size: list[int],
    *,
    generator: Generator | None,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    """Integers uniform in [low, high). Torch: randint (TensorFactories.cpp)."""
    # The schema's default (`ScalarType? dtype=4`) arrives as the enum's int: int64.
    target = ALL_DTYPES[dtype] if isinstance(dtype, int) else dtype or dt.int64
    _check_randint(low, high, target)
    return _fresh(_random(_new(size, target, device), low, high, generator))


@randint_low.kernel(CEA)
def randint_low_kernel(
    low: int,
    high: int,
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    return randint_low_generator_kernel(
        low,
        high,
        size,
        generator=None,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )


@randint_generator.kernel(CEA)
def randint_generator_kernel(
    high: int,
    size: list[int],
    *,
    generator: Generator | None,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    return randint_low_generator_kernel(
        0,
        high,
        size,
        generator=generator,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )


@randint.kernel(CEA)
def randint_kernel(
    high: int,
    size: list[int],
    *,
    dtype: DType | None,
    layout: Any,
    device: device | None,
    pin_memory: bool | None,
) -> Any:
    return randint_low_generator_kernel(
        0,
        high,
        size,
        generator=None,
        dtype=dtype,
        layout=layout,
        device=device,
        pin_memory=pin_memory,
    )


@randint_low_generator_out.kernel(CEA)
def randint_low_generator_out_kernel(
    low: int, high: int, size: list[int], *, generator: Generator | None, out: TensorImpl
) -> Any:
    _check_randint(low, high, out._dtype)
    return _random(_resized(out, size), low, high, generator)


@randint_low_out.kernel(CEA)
def randint_low_out_kernel(low: int, high: int, size: list[int], *, out: TensorImpl) -> Any:
    return randint_low_generator_out_kernel(low, high, size, generator=None, out=out)


@randint_generator_out.kernel(CEA)
def randint_generator_out_kernel(
    high: int, size: list[int], *, generator: Generator | None, out: TensorImpl
) -> Any:
    return randint_low_generator_out_kernel(0, high, size, generator=generator, out=out)


@randint_out.kernel(CEA)
def randint_out_kernel(high: int, size: list[int], *, out: TensorImpl) -> Any:
    return randint_low_generator_out_kernel(0, high, size, generator=None, out=out)
