"""The `__torch_function__` protocol against torch's: what a TorchFunctionMode is told of for a
corpus of programs (function names as torch.overrides.resolve_name spells them, and the types),
tensor-likes, the disable guards, nested modes and the protocol's helpers.

Each program runs twice, once with `lib` = torch and once with `lib` = refimpl; the lists a
logging mode records must be equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
import torch

import refimpl
import refimpl.overrides

Program = Callable[[Any], Any]


def _overrides(lib: Any) -> Any:
    return torch.overrides if lib is torch else refimpl.overrides


def _log(lib: Any, program: Program) -> list[tuple[str, tuple[str, ...]]]:
    overrides = _overrides(lib)
    seen: list[tuple[str, tuple[str, ...]]] = []

    class Log(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append((overrides.resolve_name(func) or repr(func), tuple(t.__name__ for t in types)))
            return func(*args, **(kwargs or {}))

    with Log():
        program(lib)
    return seen


def _x(lib: Any, *shape: int, grad: bool = False) -> Any:
    n = 1
    for s in shape:
        n *= s
    return lib.arange(n, dtype=lib.float32).reshape(*shape).requires_grad_(grad) if grad else (
        lib.arange(n, dtype=lib.float32).reshape(*shape)
    )


def _backward(lib: Any) -> None:
    x = lib.ones(2, 3, requires_grad=True)
    (x.abs() * 2).sum().backward()
    _ = x.grad


CORPUS: dict[str, Program] = {
    "factory": lambda lib: lib.zeros(2, 3),
    "randn": lambda lib: lib.randn(2, 4),
    "tensor": lambda lib: lib.tensor([1.0, 2.0]),
    "add_scalar": lambda lib: _x(lib, 3) + 1,
    "radd_scalar": lambda lib: 1 + _x(lib, 3),
    "sub_rsub": lambda lib: (_x(lib, 3) - 1, 2 - _x(lib, 3)),
    "mul_div": lambda lib: (_x(lib, 3) * 2, _x(lib, 3) / 2, 2 / (_x(lib, 3) + 1)),
    "floordiv_mod_pow": lambda lib: (_x(lib, 3) // 2, _x(lib, 3) % 2, _x(lib, 3) ** 2, 2 ** _x(lib, 3)),
    "neg_pos_abs": lambda lib: (-_x(lib, 3), +_x(lib, 3), abs(_x(lib, 3))),
    "compare": lambda lib: (_x(lib, 3) > 1, _x(lib, 3) == 1, _x(lib, 3) != 1, _x(lib, 3) <= 1),
    "bitwise": lambda lib: (lib.ones(3, dtype=lib.int64) & 1, lib.ones(3, dtype=lib.int64) | 2, ~lib.ones(3, dtype=lib.bool)),
    "inplace": lambda lib: _x(lib, 3).add_(1).mul_(2),
    "augmented": lambda lib: _iadd(lib),
    "methods": lambda lib: (_x(lib, 2, 3).exp(), _x(lib, 2, 3).sum(1), _x(lib, 2, 3).mean()),
    "functions": lambda lib: (lib.exp(_x(lib, 3)), lib.add(_x(lib, 3), 1, alpha=2), lib.sum(_x(lib, 3))),
    "reductions": lambda lib: (_x(lib, 2, 3).max(), _x(lib, 2, 3).argmin(1), _x(lib, 2, 3).prod(0)),
    "views": lambda lib: (_x(lib, 2, 3).t(), _x(lib, 2, 3).view(-1), _x(lib, 2, 3).transpose(0, 1), _x(lib, 2, 3).unsqueeze(0)),
    "properties": lambda lib: (_x(lib, 2, 3).shape, _x(lib, 2, 3).dtype, _x(lib, 2, 3).T, _x(lib, 2, 3).ndim),
    "getitem": lambda lib: (_x(lib, 2, 3)[0], _x(lib, 2, 3)[:, 1], _x(lib, 2, 3)[..., None]),
    "setitem": lambda lib: _setitem(lib),
    "where": lambda lib: lib.where(_x(lib, 3) > 1, _x(lib, 3), 0.0),
    "cat_stack": lambda lib: (lib.cat([_x(lib, 3), _x(lib, 3)]), lib.stack([_x(lib, 3), _x(lib, 3)])),
    # (not lib.mm: torch's resolve_name calls torch.mm "torch.spmm", the same builtin.)
    "matmul": lambda lib: (_x(lib, 2, 3) @ _x(lib, 3, 2), lib.matmul(_x(lib, 2, 3), _x(lib, 3, 2))),
    "python_protocol": lambda lib: (len(_x(lib, 3)), float(_x(lib, 1)), int(_x(lib, 1)), bool(_x(lib, 1) + 1)),
    "repr": lambda lib: repr(_x(lib, 2)),
    "backward": _backward,
    "requires_grad_ops": lambda lib: (_x(lib, 3, grad=True) * 2 + 1).sum(),
    "clone_detach": lambda lib: (_x(lib, 3).clone(), _x(lib, 3).detach()),
    "to_dtype": lambda lib: (_x(lib, 3).to(lib.float64), _x(lib, 3).double(), _x(lib, 3).int()),
    "item_tolist": lambda lib: (_x(lib, 1).item(), _x(lib, 3).tolist()),
}


def _iadd(lib: Any) -> Any:
    x = _x(lib, 3)
    x += 1
    x *= 2
    return x


def _setitem(lib: Any) -> Any:
    x = _x(lib, 2, 3)
    x[0] = 1.0
    x[:, 1] = _x(lib, 2)
    return x


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_mode_sees_what_torch_mode_sees(name: str) -> None:
    program = CORPUS[name]
    assert _log(refimpl, program) == _log(torch, program)


class _TorchLike:
    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return ("handled", func.__name__, tuple(t.__name__ for t in types), len(args))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.add(_TorchLike(), 1),
        lambda lib: lib.sum(_TorchLike()),
        lambda lib: lib.cat([lib.ones(1), _TorchLike()]),
        lambda lib: lib.where(lib.ones(1) > 0, _TorchLike(), 1.0),
    ],
)
def test_tensor_likes_are_handled(call: Program) -> None:
    assert call(refimpl) == call(torch)


def test_disable_torch_function_turns_modes_off() -> None:
    def program(lib: Any) -> Any:
        with lib._C.DisableTorchFunction() if lib is torch else refimpl.overrides.DisableTorchFunction():
            return lib.ones(2) + 1

    assert _log(refimpl, program) == _log(torch, program) == []


def test_nested_modes_see_in_stack_order() -> None:
    def run(lib: Any) -> list[str]:
        overrides = _overrides(lib)
        seen: ClassVar[list[str]] = []

        class Named(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
            def __init__(self, tag: str) -> None:
                super().__init__()
                self.tag = tag

            def __torch_function__(
                self, func: Any, types: Any, args: Any = (), kwargs: Any = None
            ) -> Any:
                seen.append(f"{self.tag}:{overrides.resolve_name(func)}")
                return func(*args, **(kwargs or {}))

        x = lib.ones(2)
        with Named("outer"), Named("inner"):
            _ = x + 1
            _ = x.sum()
        return seen

    assert run(refimpl) == run(torch)


def test_a_mode_returning_its_own_value() -> None:
    def run(lib: Any) -> Any:
        overrides = _overrides(lib)

        class Constant(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
            def __torch_function__(
                self, func: Any, types: Any, args: Any = (), kwargs: Any = None
            ) -> Any:
                return 42

        with Constant():
            return (lib.ones(2) + 1, lib.zeros(3))

    # lib.ones(2) inside the mode is answered by the mode too.
    assert run(refimpl) == run(torch)


def test_not_implemented_everywhere_raises_torch_error() -> None:
    class Refuses:
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    for lib in (torch, refimpl):
        with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.add'; all"):
            lib.add(Refuses(), 1)
        with pytest.raises(TypeError, match="no implementation found for 'torch.add' on types"):
            _overrides(lib).handle_torch_function(lib.add, (Refuses(),), Refuses(), 1)


def test_helpers() -> None:
    for lib in (torch, refimpl):
        overrides = _overrides(lib)
        x = lib.ones(2)
        assert overrides.is_tensor_like(x)
        assert overrides.is_tensor_like(_TorchLike())
        assert not overrides.is_tensor_like(3)
        assert not overrides.has_torch_function((x, 1))
        assert overrides.has_torch_function((x, _TorchLike()))
        assert overrides.resolve_name(lib.add) == "torch.add"
        assert overrides.resolve_name(lib.Tensor.add) == "torch.Tensor.add"
        assert overrides.resolve_name(lib.Tensor.shape.__get__) == "torch.Tensor.shape.__get__"
        assert overrides.is_tensor_method_or_property(lib.Tensor.add)
        assert not overrides.is_tensor_method_or_property(lib.add)
    overridable = refimpl.overrides.get_overridable_functions()
    assert refimpl.add in overridable[refimpl]
    assert refimpl.Tensor.add in overridable[refimpl.Tensor]
    testing = refimpl.overrides.get_testing_overrides()
    assert testing[refimpl.add](1, 2) == -1


# --- Tensor subclasses through __torch_function__ ------------------------------------------


def _subclass_run(lib: Any, program: Callable[[Any, Any], Any]) -> Any:
    """Run `program(lib, classes)` with subclasses defined on `lib.Tensor`; describe results
    by class name, value and, for tensors, dtype and shape."""

    class Keeps(lib.Tensor):  # type: ignore[misc, name-defined]
        """A plain subclass: results of its default handling keep the class."""

    class Logs(lib.Tensor):  # type: ignore[misc, name-defined]
        seen: ClassVar[list[str]] = []

        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            cls.seen.append(_overrides(lib).resolve_name(func) or repr(func))
            return super().__torch_function__(func, types, args, kwargs)

    class OverridesAdd(lib.Tensor):  # type: ignore[misc, name-defined]
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if func is lib.add or func is lib.Tensor.add:
                return "add overridden"
            return super().__torch_function__(func, types, args, kwargs)

    class Child(Logs):
        pass

    classes = {"Keeps": Keeps, "Logs": Logs, "OverridesAdd": OverridesAdd, "Child": Child}
    result = program(lib, classes)
    return _describe(result), list(Logs.seen)


def _describe(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_describe(v) for v in value]]
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return (type(value).__name__, str(value.dtype).replace("refimpl", "torch"),
                tuple(value.shape), value.detach().tolist() if hasattr(value, "detach") else None)
    return value


def _make(lib: Any, cls: Any, values: list[float], grad: bool = False) -> Any:
    t = lib.tensor(values)
    if grad:
        t.requires_grad_(True)
    return t.as_subclass(cls)


SUBCLASS_PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "results_keep_the_subclass": lambda lib, c: (
        _make(lib, c["Keeps"], [1.0, 2.0]) + 1,
        lib.add(_make(lib, c["Keeps"], [1.0]), 1),
        _make(lib, c["Keeps"], [1.0, 2.0]).sum(),
        _make(lib, c["Keeps"], [1.0, 2.0])[0],
        _make(lib, c["Keeps"], [1.0, 2.0]).unbind(),
    ),
    "logging_subclass": lambda lib, c: (
        _make(lib, c["Logs"], [1.0, -2.0]).abs() * 2,
        lib.cat([_make(lib, c["Logs"], [1.0]), lib.ones(1)]),
        _make(lib, c["Logs"], [1.0, 2.0]).shape,
    ),
    "overrides_one_op_defers_the_rest": lambda lib, c: (
        lib.add(_make(lib, c["OverridesAdd"], [1.0]), 1),
        _make(lib, c["OverridesAdd"], [1.0]).add(1),
        _make(lib, c["OverridesAdd"], [3.0]).mul(2),
    ),
    "child_before_parent": lambda lib, c: (
        lib.add(_make(lib, c["Logs"], [1.0]), _make(lib, c["Child"], [2.0])),
    ),
    "two_unrelated_subclasses": lambda lib, c: _try(
        lambda: lib.add(_make(lib, c["Keeps"], [1.0]), _make(lib, c["OverridesAdd"], [2.0]))
    ),
    "grad_through_a_subclass": lambda lib, c: _grad(lib, c["Keeps"]),
    "detach_and_grad_fields_not_wrapped": lambda lib, c: _fields(lib, c["Keeps"]),
}


def _try(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except TypeError as error:
        return ("TypeError", str(error).splitlines()[0].replace("refimpl", "torch"))


def _grad(lib: Any, cls: Any) -> Any:
    leaf = lib.tensor([1.0, 2.0], requires_grad=True)
    x = leaf.as_subclass(cls)
    loss = (x * x).sum()
    loss.backward()
    return (type(loss).__name__, type(loss.grad_fn).__name__, leaf.grad)


def _fields(lib: Any, cls: Any) -> Any:
    leaf = lib.tensor([1.0], requires_grad=True)
    (leaf * 2).sum().backward()
    x = leaf.as_subclass(cls)
    return (type(x.grad).__name__, type(x.detach()).__name__, x.grad is leaf.grad)


@pytest.mark.parametrize("name", sorted(SUBCLASS_PROGRAMS))
def test_subclass_protocol(name: str) -> None:
    program = SUBCLASS_PROGRAMS[name]
    assert _subclass_run(refimpl, program) == _subclass_run(torch, program)


def test_mode_and_subclass_together() -> None:
    def run(lib: Any) -> Any:
        overrides = _overrides(lib)
        seen: ClassVar[list[str]] = []

        class Sub(lib.Tensor):  # type: ignore[misc, name-defined]
            @classmethod
            def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                seen.append("subclass:" + overrides.resolve_name(func))
                return super().__torch_function__(func, types, args, kwargs)

        class Mode(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
            def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                seen.append("mode:" + overrides.resolve_name(func) + ":" + ",".join(t.__name__ for t in types))
                return func(*args, **(kwargs or {}))

        x = lib.ones(2).as_subclass(Sub)
        with Mode():
            y = x + 1
            z = lib.exp(y)
        return seen, type(z).__name__

    assert run(refimpl) == run(torch)


def test_a_mode_calling_back_into_the_library() -> None:
    def run(lib: Any) -> Any:
        overrides = _overrides(lib)
        seen: ClassVar[list[str]] = []

        class Doubling(overrides.TorchFunctionMode):  # type: ignore[misc, name-defined]
            def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                seen.append(overrides.resolve_name(func))
                result = func(*args, **(kwargs or {}))
                if overrides.resolve_name(func) == "torch.Tensor.add":
                    return lib.mul(result, 2)  # inside the handler: not seen again
                return result

        with Doubling():
            out = lib.ones(2) + 1
        return seen, out.tolist()

    assert run(refimpl) == run(torch)
