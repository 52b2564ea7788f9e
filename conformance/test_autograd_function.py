"""Custom autograd Functions: refimpl.autograd.Function against torch.autograd.Function.

Each program defines the same Function subclass in one library, runs it and describes what
it saw (values, node names, next_functions, ctx attributes, the error raised); the two
descriptions must match.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl


def _value(x: Any) -> Any:
    if isinstance(x, (torch.Tensor, refimpl.Tensor)):
        return [round(v, 10) for v in x.detach().reshape(-1).tolist()]
    if isinstance(x, (tuple, list)):
        return [_value(v) for v in x]
    return x


def _fn_name(node: Any) -> Any:
    return None if node is None else type(node).__name__


def _next(node: Any) -> list[Any]:
    return [(_fn_name(n), nr) for n, nr in node.next_functions]


def _tensor(lib: Any, values: list[float], requires_grad: bool = True) -> Any:
    return lib.tensor(values, dtype=lib.float64, requires_grad=requires_grad)


def _mul_function(lib: Any) -> Any:
    class MyMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, k: Any, y: Any) -> Any:
            ctx.save_for_backward(x, y)
            ctx.k = k
            ctx.grad_enabled_in_forward = lib.is_grad_enabled()
            return x * y * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, y = ctx.saved_tensors
            return g * y * ctx.k, None, g * x * ctx.k

    return MyMul


def prog_basic(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, 2.0, 3.0])
    y = _tensor(lib, [4.0, 5.0, 6.0], requires_grad=False)
    out = fn.apply(x, 2, y)
    node = out.grad_fn
    desc = [
        _value(out), _fn_name(node), node.name(), _next(node), node.k,
        node.needs_input_grad, node.grad_enabled_in_forward, node is out.grad_fn,
    ]
    (gx,) = lib.autograd.grad(out, x, lib.ones_like(out))
    return [*desc, _value(gx)]


def prog_saved_freed(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, 2.0])
    out = fn.apply(x, 3, x)
    out.backward(lib.ones_like(out))
    return _value(x.grad), out.grad_fn.saved_tensors


def prog_retain_graph(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, 2.0])
    out = fn.apply(x, 3, x)
    out.backward(lib.ones_like(out), retain_graph=True)
    out.backward(lib.ones_like(out))
    return _value(x.grad)


def prog_no_grad(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, 2.0])
    with lib.no_grad():
        out = fn.apply(x, 2, x)
    y = fn.apply(x.detach(), 2, x.detach())
    return out.grad_fn, out.requires_grad, y.grad_fn, y.requires_grad


def _returning(lib: Any, grads: Callable[[Any], Any], n_inputs: int = 1) -> Any:
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, *rest: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return grads(g)

    x = _tensor(lib, [1.0, 2.0])
    out = Bad.apply(x, *range(n_inputs - 1))
    out.backward(lib.ones_like(out))
    return _value(x.grad)


def prog_too_many(lib: Any) -> Any:
    return _returning(lib, lambda g: (g, g))


def prog_too_few(lib: Any) -> Any:
    return _returning(lib, lambda g: g, n_inputs=2)


def prog_extra_none(lib: Any) -> Any:
    return _returning(lib, lambda g: (g, None, None))


def prog_grad_for_non_tensor(lib: Any) -> Any:
    return _returning(lib, lambda g: (g, g), n_inputs=2)


def prog_grad_not_tensor(lib: Any) -> Any:
    return _returning(lib, lambda g: 3)


def prog_grad_wrong_shape(lib: Any) -> Any:
    return _returning(lib, lambda g: lib.ones(4, dtype=lib.float64))


def prog_save_non_tensor(lib: Any) -> Any:
    class Save(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(3)
            return x * 2

    return Save.apply(_tensor(lib, [1.0]))


def prog_identity(lib: Any) -> Any:
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 3

    x = _tensor(lib, [1.0, 2.0])
    out = Ident.apply(x)
    desc = [out is x, out._base is x, _fn_name(out.grad_fn), out._version]
    with lib.no_grad():
        plain = Ident.apply(x)
    desc += [plain is x, plain.requires_grad]
    out.backward(lib.ones_like(out))
    return [*desc, _value(x.grad)]


def _dirty_function(lib: Any, returned: Callable[[Any], Any]) -> Any:
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return returned(x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (saved,) = ctx.saved_tensors
            return g * 2 + saved * 0

    return Dirty


def prog_mark_dirty(lib: Any) -> Any:
    fn = _dirty_function(lib, lambda x: x)
    leaf = _tensor(lib, [1.0, 2.0])
    x = leaf * 1
    v0 = x._version
    out = fn.apply(x)
    desc = [out is x, _fn_name(x.grad_fn), _next(x.grad_fn), v0, x._version, _value(x)]
    out.backward(lib.ones_like(out))
    return [*desc, _value(leaf.grad)]


def prog_mark_dirty_leaf(lib: Any) -> Any:
    return _dirty_function(lib, lambda x: x).apply(_tensor(lib, [1.0]))


def prog_mark_dirty_not_returned(lib: Any) -> Any:
    return _dirty_function(lib, lambda x: x * 1).apply(_tensor(lib, [1.0]) * 1)


def prog_mark_dirty_not_tensor(lib: Any) -> Any:
    class D(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_dirty(x, 3)
            return x

    return D.apply(_tensor(lib, [1.0]) * 1)


def _two_outputs(lib: Any, materialize: bool) -> Any:
    seen = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(materialize)
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b, 5

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any, gc: Any) -> Any:
            seen.append([_value(ga), _value(gb), gc])
            return ga

    x = _tensor(lib, [1.0, 2.0])
    a, b, c = Two.apply(x)
    desc = [_fn_name(a.grad_fn), b.requires_grad, b.grad_fn, c, a.output_nr]
    a.backward(lib.ones_like(a))
    return [*desc, seen, _value(x.grad)]


def prog_non_differentiable(lib: Any) -> Any:
    return _two_outputs(lib, True)


def prog_no_materialize(lib: Any) -> Any:
    return _two_outputs(lib, False)


def prog_non_differentiable_not_tensor(lib: Any) -> Any:
    class N(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_non_differentiable(3)
            return x * 2

    return N.apply(_tensor(lib, [1.0]))


def prog_setup_context(lib: Any) -> Any:
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x: Any, k: Any = 3) -> Any:
            return x * x * x * k

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            x, k = inputs
            ctx.k = k
            ctx.save_for_backward(x, output)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, _out = ctx.saved_tensors
            return g * x * x * 3 * ctx.k, None

    x = _tensor(lib, [1.0, 2.0])
    out = Cube.apply(x)
    out2 = Cube.apply(x, k=2)
    (gx,) = lib.autograd.grad(out, x, lib.ones_like(out), create_graph=True)
    (ggx,) = lib.autograd.grad(gx, x, lib.ones_like(gx))
    return [_fn_name(out.grad_fn), _value(out), _value(out2), _value(gx), _value(ggx),
            _fn_name(gx.grad_fn)]


def prog_double_backward(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, -2.0, 0.5])
    y = _tensor(lib, [3.0, 0.25, 2.0])
    out = fn.apply(x, 2, y)
    gx, gy = lib.autograd.grad(out, (x, y), lib.ones_like(out), create_graph=True)
    v = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    ggx, ggy = lib.autograd.grad(gx * v + gy, (x, y), lib.ones_like(gx), allow_unused=True)
    return [_value(gx), _value(gy), _value(ggx), _value(ggy)]


def _once(lib: Any) -> Any:
    once_differentiable = lib.autograd.function.once_differentiable

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * g * x

    return Once


def prog_once_differentiable(lib: Any) -> Any:
    x = _tensor(lib, [1.0, 2.0])
    v = lib.ones(2, dtype=lib.float64, requires_grad=True)
    out = _once(lib).apply(x)
    (g,) = lib.autograd.grad(out, x, v, create_graph=True)
    desc = [_value(g), g.requires_grad, _fn_name(g.grad_fn), g.grad_fn.name(),
            _next(g.grad_fn)]
    (plain,) = lib.autograd.grad(_once(lib).apply(x), x, lib.ones(2, dtype=lib.float64))
    return [*desc, plain.requires_grad]


def prog_once_differentiable_twice(lib: Any) -> Any:
    x = _tensor(lib, [1.0, 2.0])
    v = lib.ones(2, dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(_once(lib).apply(x), x, v, create_graph=True)
    g.backward(lib.ones_like(g))


def prog_no_backward(lib: Any) -> Any:
    class NoBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

    out = NoBackward.apply(_tensor(lib, [1.0]))
    out.backward(lib.ones_like(out))


def prog_no_forward(lib: Any) -> Any:
    class NoForward(lib.autograd.Function):
        pass

    return NoForward.apply(_tensor(lib, [1.0]))


def prog_vjp(lib: Any) -> Any:
    class Vjp(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def vjp(ctx: Any, g: Any) -> Any:
            return g * 2

    x = _tensor(lib, [1.0, 2.0])
    out = Vjp.apply(x)
    out.backward(lib.ones_like(out))
    return _value(x.grad), lib.autograd.Function.vjp is lib.autograd.Function.backward


def prog_backward_and_vjp(lib: Any) -> Any:
    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

        @staticmethod
        def vjp(ctx: Any, g: Any) -> Any:
            return g

    out = Both.apply(_tensor(lib, [1.0]))
    out.backward(lib.ones_like(out))


def prog_jvp_not_implemented(lib: Any) -> Any:
    return lib.autograd.Function.jvp(None, None)


def prog_instantiate(lib: Any) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = _mul_function(lib)()
    messages = [(w.category.__name__, str(w.message).split("'")[2]) for w in caught]
    try:
        f(1)
    except RuntimeError as e:
        return messages, str(e)
    return messages, None


def prog_modified_saved_output(lib: Any) -> Any:
    class SaveOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = x * 2
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (out,) = ctx.saved_tensors
            return g * out

    y = SaveOut.apply(_tensor(lib, [1.0, 2.0]))
    with lib.no_grad():
        y.add_(1)
    y.backward(lib.ones_like(y))


def prog_saved_output_grad_fn(lib: Any) -> Any:
    seen = []

    class SaveOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = x * 2
            ctx.save_for_backward(x, out, None)
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, out, none = ctx.saved_tensors
            seen.append([_fn_name(x.grad_fn), _fn_name(out.grad_fn), none, _value(out)])
            return g * 2

    x = _tensor(lib, [1.0, 2.0])
    y = SaveOut.apply(x)
    y.backward(lib.ones_like(y))
    return seen, _value(x.grad)


def prog_hooks(lib: Any) -> Any:
    seen = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, x * 3

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            return g1 + g2

    x = _tensor(lib, [1.0, 2.0])
    a, b = Two.apply(x)
    a.grad_fn.register_hook(lambda gi, go: seen.append(["post", _value(gi), _value(go)]))
    a.grad_fn.register_prehook(lambda go: seen.append(["pre", _value(go)]))
    a.backward(lib.ones_like(a))
    return seen, a.grad_fn is b.grad_fn, a.output_nr, b.output_nr


def prog_subclass_name(lib: Any) -> Any:
    base = _mul_function(lib)

    class Derived(base):  # type: ignore[misc, valid-type]
        pass

    x = _tensor(lib, [1.0])
    return _fn_name(Derived.apply(x, 2, x).grad_fn), _fn_name(base.apply(x, 2, x).grad_fn)


def prog_two_inputs_same_tensor(lib: Any) -> Any:
    fn = _mul_function(lib)
    x = _tensor(lib, [1.0, 2.0])
    out = fn.apply(x, 1, x)
    out.backward(lib.ones_like(out))
    return _next(out.grad_fn), _value(x.grad)


PROGRAMS = {
    name.removeprefix("prog_"): fn
    for name, fn in sorted(globals().items())
    if name.startswith("prog_")
}


def _describe(program: Callable[[Any], Any], lib: Any) -> tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = program(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return None, (type(error).__name__, str(error).replace("torch.", "refimpl."))
    return _normalize(result), None


def _normalize(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_normalize(v) for v in x]
    if isinstance(x, (torch.Tensor, refimpl.Tensor)):
        return _value(x)
    return x


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_function_matches_torch(name: str) -> None:
    expected = _describe(PROGRAMS[name], torch)
    actual = _describe(PROGRAMS[name], refimpl)
    assert actual == expected


def test_reachable_from_refimpl() -> None:
    assert refimpl.autograd.Function.__name__ == "Function"
    assert callable(refimpl.autograd.function.once_differentiable)


def test_anomaly_nan_check_message() -> None:
    # The engine runs refimpl.autograd.anomaly_mode.check_nan_outputs after each node (an
    # engine hook the lead adds); here the check itself is compared with torch's message.
    x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as caught, torch.autograd.detect_anomaly():
        (x / x).backward(torch.ones(1, dtype=torch.float64))
    ours = refimpl.tensor([0.0], dtype=refimpl.float64, requires_grad=True)
    node = (ours / ours).grad_fn
    anomaly = refimpl.autograd.anomaly_mode
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with refimpl.autograd.detect_anomaly():
            assert anomaly.is_anomaly_enabled()
            with pytest.raises(RuntimeError) as ours_caught:
                anomaly.check_nan_outputs(node, node(refimpl.ones(1, dtype=refimpl.float64)))
    assert not anomaly.is_anomaly_enabled()
    assert str(ours_caught.value) == str(caught.value)
    with refimpl.autograd.set_detect_anomaly(True, check_nan=False):
        anomaly.check_nan_outputs(node, node(refimpl.ones(1, dtype=refimpl.float64)))
        assert anomaly.is_anomaly_enabled() and not anomaly.is_anomaly_check_nan_enabled()
    assert not anomaly.is_anomaly_enabled() and anomaly.is_anomaly_check_nan_enabled()
