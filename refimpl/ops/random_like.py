"""The random `*_like` factories as aten ops: rand_like, randn_like, randint_like (each with
its generator, low/high, Tensor-high and out= overloads).

Torch: TensorFactories.cpp: `empty_like(self, options, memory_format)` (preserve_format by
default: `self`'s dense layout, so the in-place sampler fills it in memory order), then
uniform_(0, 1) / normal_(0, 1) / random_(low, high). The out= overloads are the generated
ones (the functional result, then `out` resized as resize_output does and copied).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl.core.random import Generator
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop
from refimpl.ops.random import check_from_to_in_range
from refimpl.ops.random_creation import _floating
from refimpl.ops.random_factories import _fresh, _into
from refimpl.ops.scan import CEA

aten: Final = namespace("aten")

_OPTIONS: Final = (
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None"
)

Fill = Callable[[TensorImpl, Generator | None], Any]


def _like(
    self: TensorImpl, fill: Fill, generator: Generator | None, options: dict[str, Any]
) -> Any:
    t = aten.empty_like.default(self, **options)
    fill(t, generator)
    return _fresh(t)


def _uniform(t: TensorImpl, generator: Generator | None) -> Any:
    _floating(t._dtype, "check_uniform_bounds")
    return aten.uniform_.default(t, 0.0, 1.0, generator=generator)


def _normal(t: TensorImpl, generator: Generator | None) -> Any:
    _floating(t._dtype, "normal_kernel_cpu")
    return aten.normal_.default(t, 0.0, 1.0, generator=generator)


def _integers(low: int, high: int) -> Fill:
    def fill(t: TensorImpl, generator: Generator | None) -> Any:
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        check_from_to_in_range(low, high, t._dtype)
        return getattr(aten.random_, "from")(t, low, high, generator=generator)

    return fill


def _high_of(high: TensorImpl) -> int:
    # torch: randint_like.Tensor: high.item<int64_t>() of a 0-dim CPU tensor.
    if high._size or high._storage.device.type != "cpu":
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return int(high.item())


def _register_like(name: str, fill: Callable[..., Fill], params: str, arity: int) -> None:
    """The functional, generator and out= overloads of one `*_like` form: `fill(*values)`
    makes the sampler from the overload's leading arguments after `self`."""

    def functional(self: TensorImpl, *values: Any, generator: Any = None, **options: Any) -> Any:
        return _like(self, fill(*values[:arity]), generator, options)

    def out_form(
        self: TensorImpl, *values: Any, generator: Any = None, memory_format: Any, out: TensorImpl
    ) -> Any:
        result = _like(self, fill(*values[:arity]), generator, {"memory_format": memory_format})
        return _into(out, result)

    base, _, overload = name.partition(".")
    suffix = f".{overload}" if overload else ""
    gen_suffix = f".{overload}_generator" if overload else ".generator"
    if base == "randint_like" and overload in ("low_dtype",):
        gen_suffix = ".low_generator_dtype"
    head = f"Tensor self{params}"
    defop(f"{base}{suffix}({head}, *, {_OPTIONS}) -> Tensor").kernel(CEA)(functional)
    defop(f"{base}{gen_suffix}({head}, *, Generator? generator, {_OPTIONS}) -> Tensor").kernel(CEA)(
        functional
    )
    out_suffix = f"{suffix}_out" if overload else ".out"
    defop(
        f"{base}{out_suffix}({head}, *, MemoryFormat? memory_format=None, Tensor(a!) out) "
        "-> Tensor(a!)"
    ).kernel(CEA)(out_form)
    defop(
        f"{base}{gen_suffix}_out({head}, *, Generator? generator, "
        "MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"
    ).kernel(CEA)(out_form)


_register_like("rand_like", lambda: _uniform, "", 0)
_register_like("randn_like", lambda: _normal, "", 0)
_register_like("randint_like", lambda high: _integers(0, high), ", SymInt high", 1)
_register_like("randint_like.low_dtype", _integers, ", SymInt low, SymInt high", 2)
_register_like("randint_like.Tensor", lambda high: _integers(0, _high_of(high)), ", Tensor high", 1)
