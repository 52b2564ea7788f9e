"""Autograd of custom ops: refimpl.library.register_autograd against torch.library's.

Each program defines the same operators (from schema strings, under one fresh namespace shared
by both libraries, so error texts naming the op agree) in one library, runs them and describes
what it saw: values and gradients, the grad_fn's class and next_functions, what backward and
setup_context were given, the error raised. The two descriptions must match.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import torch

import refimpl
from refimpl._base.keys import DispatchKey
from refimpl.autograd import custom_ops as _custom_ops
from refimpl.dispatch import custom_ops as dispatch_library

_COUNTER = itertools.count()


class Ops:
    """The custom ops and libraries a program made in one library, destroyed afterwards."""

    def __init__(self, lib: Any, ns: str) -> None:
        self.lib = lib
        self.ns = ns
        self.defs: list[Any] = []
        self.libraries: list[Any] = []

    def custom_op(self, name: str, schema: str, fn: Callable[..., Any], **kwargs: Any) -> Any:
        mutates = kwargs.pop("mutates_args", ())
        op = self.lib.library.custom_op(
            f"{self.ns}::{name}", mutates_args=mutates, schema=schema, **kwargs
        )(fn)
        self.defs.append(op)
        return op

    def library(self) -> Any:
        made = self.lib.library.Library(self.ns, "FRAGMENT")
        self.libraries.append(made)
        return made

    def destroy(self) -> None:
        for op in self.defs:
            if self.lib is torch:
                torch._library.custom_ops.OPDEF_TO_LIB.pop(op._qualname)._destroy()
            else:
                op._lib._destroy()
        for made in self.libraries:
            made._destroy()


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


def _scaled_mul(ops: Ops, seen: list[Any]) -> Any:
    """`mul(x, y, k=2.0) = x * y * k`, its formula saving x, y and k."""

    def mul(x: Any, y: Any, k: float = 2.0) -> Any:
        return x * y * k

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        x, y, k = inputs
        seen.append(("setup", type(inputs).__name__, len(inputs), k, _value(output)))
        ctx.save_for_backward(x, y)
        ctx.k = k

    def backward(ctx: Any, grad: Any) -> Any:
        seen.append(("backward", ctx.needs_input_grad))
        x, y = ctx.saved_tensors
        return grad * y * ctx.k, grad * x * ctx.k, None

    op = ops.custom_op("mul", "(Tensor x, Tensor y, float k=2.0) -> Tensor", mul)
    op.register_autograd(backward, setup_context=setup_context)
    return op


# --- programs -------------------------------------------------------------------------------


def prog_grad(ops: Ops) -> Any:
    seen: list[Any] = []
    return _grad_program(ops.lib, _scaled_mul(ops, seen), seen)


def _grad_program(lib: Any, op: Any, seen: list[Any]) -> Any:
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0], requires_grad=False)
    out = op(x, y)
    node = out.grad_fn
    desc = [_value(out), _fn_name(node), node.name(), _next(node), out.requires_grad]
    (gx,) = lib.autograd.grad(out, x, lib.ones_like(out))
    return [*desc, _value(gx), seen]


def prog_backward_accumulates(ops: Ops) -> Any:
    lib, seen = ops.lib, []
    op = _scaled_mul(ops, seen)
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0])
    op(x, y, 3.0).sum().backward()
    op(x, y).sum().backward()
    return _value(x.grad), _value(y.grad), seen


def prog_defaults_left_out(ops: Ops) -> Any:
    # torch's dispatcher leaves out trailing arguments equal to their defaults, so
    # needs_input_grad has fewer entries; setup_context still gets every input.
    lib, seen = ops.lib, []
    op = _scaled_mul(ops, seen)
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0], requires_grad=False)
    for out in (op(x, y), op(x, y, 2.0), op(x, y, 5.0), op(x, y=y, k=2.0)):
        out.sum().backward()
    return _value(x.grad), seen


def prog_kwarg_only_setup_context(ops: Ops) -> Any:
    lib, seen = ops.lib, []

    def scale(x: Any, *, k: float = 2.0, shift: int = 0) -> Any:
        return x * k + shift

    def setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
        seen.append(("setup", len(inputs), keyword_only_inputs))
        ctx.k = keyword_only_inputs["k"]

    def backward(ctx: Any, grad: Any) -> Any:
        seen.append(("backward", ctx.needs_input_grad))
        return grad * ctx.k

    op = ops.custom_op("scale", "(Tensor x, *, float k=2.0, int shift=0) -> Tensor", scale)
    op.register_autograd(backward, setup_context=setup_context)
    x = _tensor(lib, [1.0, 2.0])
    op(x, k=3.0).sum().backward()
    op(x).sum().backward()
    return _value(x.grad), seen


def prog_multiple_outputs(ops: Ops) -> Any:
    lib, seen = ops.lib, []

    def two(x: Any, y: Any) -> Any:
        return x * 2, x * y

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_backward(*inputs)

    def backward(ctx: Any, ga: Any, gb: Any) -> Any:
        seen.append((ctx.needs_input_grad, _value(ga), _value(gb)))
        x, y = ctx.saved_tensors
        return ga * 2 + gb * y, gb * x

    op = ops.custom_op("two", "(Tensor x, Tensor y) -> (Tensor, Tensor)", two)
    op.register_autograd(backward, setup_context=setup_context)
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0])
    p, q = op(x, y)
    desc = [_value(p), _value(q), _fn_name(p.grad_fn), _next(p.grad_fn), q.grad_fn is p.grad_fn]
    q.sum().backward(retain_graph=True)
    desc += [_value(x.grad), _value(y.grad)]
    gx, gy = lib.autograd.grad((p, q), (x, y), (lib.ones_like(p), lib.ones_like(q)))
    return [*desc, _value(gx), _value(gy), seen]


def prog_no_formula(ops: Ops) -> Any:
    lib = ops.lib
    op = ops.custom_op("sin", "(Tensor x) -> Tensor", lambda x: x.sin())
    x = _tensor(lib, [0.5, 1.0])
    plain = op(_tensor(lib, [0.5, 1.0], requires_grad=False))
    out = op(x)
    desc = [_value(plain), plain.grad_fn, _value(out), _fn_name(out.grad_fn), _next(out.grad_fn)]
    try:
        out.sum().backward()
    except RuntimeError as error:
        return [*desc, str(error)]
    return desc


def prog_late_registration(ops: Ops) -> Any:
    # The kernel reads the formula at backward: a graph built before registering uses it.
    lib = ops.lib
    op = ops.custom_op("double", "(Tensor x) -> Tensor", lambda x: x * 2)
    x = _tensor(lib, [1.0, 2.0])
    out = op(x)
    op.register_autograd(lambda ctx, g: g * 2)
    out.sum().backward()
    return _value(x.grad)


def prog_no_grad_and_no_requires_grad(ops: Ops) -> Any:
    lib, seen = ops.lib, []
    op = _scaled_mul(ops, seen)
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0], requires_grad=False)
    with lib.no_grad():
        a = op(x, y)
    b = op(y, y)
    with lib.enable_grad():
        c = op(x.detach(), y)
    return [(_value(t), t.grad_fn, t.requires_grad) for t in (a, b, c)], seen


def prog_wrong_gradient_count(ops: Ops) -> Any:
    lib = ops.lib
    op = ops.custom_op("mul2", "(Tensor x, Tensor y) -> Tensor", lambda x, y: x * y)
    op.register_autograd(lambda ctx, g: g)
    x = _tensor(lib, [1.0])
    op(x, _tensor(lib, [2.0])).sum().backward()
    return _value(x.grad)


def prog_double_backward(ops: Ops) -> Any:
    lib = ops.lib

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_backward(inputs[0])

    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x

    op = ops.custom_op("cube", "(Tensor x) -> Tensor", lambda x: x * x * x)
    op.register_autograd(backward, setup_context=setup_context)
    x = _tensor(lib, [1.0, 2.0])
    (gx,) = lib.autograd.grad(op(x).sum(), x, create_graph=True)
    (ggx,) = lib.autograd.grad(gx.sum(), x)
    return _value(gx), _fn_name(gx.grad_fn), _value(ggx)


def prog_tensor_lists(ops: Ops) -> Any:
    lib, seen = ops.lib, []

    def scale_all(xs: Any, w: Any) -> Any:
        return [a * w for a in xs]

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        seen.append(("setup", [type(v).__name__ for v in inputs], len(output)))
        ctx.save_for_backward(inputs[1], *inputs[0])

    def backward(ctx: Any, grads: Any) -> Any:
        seen.append(("backward", ctx.needs_input_grad, _value(grads)))
        w, *xs = ctx.saved_tensors
        return [g * w for g in grads], sum(g * x for g, x in zip(grads, xs, strict=True))

    op = ops.custom_op("scale_all", "(Tensor[] xs, Tensor w) -> Tensor[]", scale_all)
    op.register_autograd(backward, setup_context=setup_context)
    a, b = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0], requires_grad=False)
    w = _tensor(lib, [5.0, 6.0])
    out = op([a, b], w)
    desc = [type(out).__name__, _value(out), _fn_name(out[0].grad_fn), _next(out[0].grad_fn)]
    out[0].sum().backward()
    return [*desc, _value(a.grad), _value(w.grad), seen]


def prog_tensor_list_wrong_structure(ops: Ops) -> Any:
    lib = ops.lib
    op = ops.custom_op("total", "(Tensor[] xs) -> Tensor", lambda xs: xs[0] + xs[1])
    op.register_autograd(lambda ctx, g: (g, g))
    a = _tensor(lib, [1.0])
    try:
        op([a, _tensor(lib, [2.0])]).sum().backward()
    except RuntimeError as error:
        return str(error).startswith(
            "Expected the return from backward to be of the same structure as the inputs."
        )
    return _value(a.grad)


def prog_mutable_version_bump(ops: Ops) -> Any:
    lib, seen = ops.lib, []

    def add_into(x: Any, y: Any) -> None:
        seen.append(("body sees version", x._version))
        x.add_(y)

    op = ops.custom_op("add_into", "(Tensor(a!) x, Tensor y) -> ()", add_into, mutates_args=("x",))
    z = lib.zeros(2, dtype=lib.float64)
    results = [z._version]
    results.append(op(z, lib.ones(2, dtype=lib.float64)))
    results.append(z._version)
    # An argument that requires grad runs the generated Function (no node: no outputs).
    results.append(op(z, _tensor(lib, [1.0, 2.0])))
    results += [z._version, _value(z), z.grad_fn]
    with lib.no_grad():
        op(z, lib.ones(2, dtype=lib.float64))
    return [*results, z._version, seen]


def prog_out_variant(ops: Ops) -> Any:
    lib = ops.lib

    def copy_into(x: Any, *, out: Any) -> Any:
        out.copy_(x)
        return out

    op = ops.custom_op(
        "copy_into",
        "(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
        copy_into,
        mutates_args=("out",),
        tags=(lib.Tag.out,),
    )
    x, out = _tensor(lib, [1.0, 2.0]), lib.zeros(2, dtype=lib.float64)
    errors = []
    for call in (
        lambda: op.register_autograd(lambda ctx, g: g),
        lambda: lib.library.register_autograd(f"{ops.ns}::copy_into", lambda ctx, g: g),
        lambda: op(x, out=out),
    ):
        try:
            call()
        except RuntimeError as error:
            errors.append(str(error))
    with lib.no_grad():
        result = op(x, out=out)
    return [*errors, _value(result), out._version, result.grad_fn]


def prog_registration_errors(ops: Ops) -> Any:
    lib = ops.lib
    mutable = ops.custom_op("mutate", "(Tensor(a!) x) -> ()", lambda x: None, mutates_args=("x",))
    library = ops.library()
    library.define("kw_tensor(Tensor x, *, Tensor y) -> Tensor")
    library.define("view(Tensor(a) x) -> Tensor(a)")
    library.define("nothing(Tensor x) -> ()")
    library.define("inplace(Tensor(a!) x) -> Tensor(a!)")
    targets: list[Any] = [
        mutable,
        f"{ops.ns}::mutate",
        f"{ops.ns}::kw_tensor",
        f"{ops.ns}::view",
        getattr(lib.ops, ops.ns).view.default,
        f"{ops.ns}::nothing",
        f"{ops.ns}::inplace",
        3,
    ]
    errors = []
    for target in targets:
        try:
            lib.library.register_autograd(target, lambda ctx, g: g)
        except Exception as error:  # noqa: BLE001 - the error is the outcome compared
            errors.append((type(error).__name__, str(error)))
    try:
        mutable.register_autograd(lambda ctx, g: g)
    except RuntimeError as error:
        errors.append(str(error))
    return errors


def prog_register_on_defined_op(ops: Ops) -> Any:
    # An operator from Library.define gets its Autograd kernel from register_autograd.
    lib, seen = ops.lib, []
    library = ops.library()
    library.define("scale(Tensor x, Tensor y, *, float k=2.0) -> Tensor")
    library.impl("scale", lambda x, y, *, k=2.0: x * y * k, "CompositeExplicitAutograd")

    def setup_context(ctx: Any, inputs: Any, keyword_only_inputs: Any, output: Any) -> None:
        seen.append(("setup", len(inputs), keyword_only_inputs))
        ctx.save_for_backward(*inputs)
        ctx.k = keyword_only_inputs["k"]

    def backward(ctx: Any, grad: Any) -> Any:
        seen.append(("backward", ctx.needs_input_grad))
        x, y = ctx.saved_tensors
        return grad * y * ctx.k, grad * x * ctx.k

    op = getattr(lib.ops, ops.ns).scale
    x, y = _tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0], requires_grad=False)
    lib.library.register_autograd(
        f"{ops.ns}::scale", backward, setup_context=setup_context, lib=library
    )
    out = op(x, y, k=3.0)
    desc = [_value(out), _fn_name(out.grad_fn), _next(out.grad_fn)]
    out.sum().backward()
    with lib.no_grad():
        desc.append(op(x, y).grad_fn)
    return [*desc, _value(x.grad), seen]


def prog_register_through_names(ops: Ops) -> Any:
    # A custom op's name or OpOverload reaches CustomOpDef.register_autograd.
    lib = ops.lib
    op = ops.custom_op("triple", "(Tensor x) -> Tensor", lambda x: x * 3)
    grads = []
    for target in (f"{ops.ns}::triple", op._opoverload, op):
        factor = len(grads) + 1
        lib.library.register_autograd(target, lambda ctx, g, f=factor: g * f)
        x = _tensor(lib, [1.0])
        op(x).sum().backward()
        grads.append(_value(x.grad))
    return grads


PROGRAMS: dict[str, Callable[[Ops], Any]] = {
    name.removeprefix("prog_"): fn for name, fn in globals().items() if name.startswith("prog_")
}


def _describe(program: Callable[[Ops], Any], lib: Any, ns: str) -> tuple[Any, Any]:
    ops = Ops(lib, ns)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _normalize(program(ops)), None
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return None, (type(error).__name__, str(error))
    finally:
        ops.destroy()


def _normalize(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_normalize(v) for v in x]
    if isinstance(x, (torch.Tensor, refimpl.Tensor)):
        return _value(x)
    return x


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_custom_op_autograd_matches_torch(name: str) -> None:
    ns = f"refimpl_test_{next(_COUNTER)}"
    expected = _describe(PROGRAMS[name], torch, ns)
    actual = _describe(PROGRAMS[name], refimpl, ns)
    assert actual == expected


# --- custom ops defined before the autograd layer installs its factory -------------------------


@contextmanager
def _without_autograd_factory() -> Iterator[None]:
    saved = list(dispatch_library.AUTOGRAD_IMPL_FACTORY)
    dispatch_library.AUTOGRAD_IMPL_FACTORY.clear()
    try:
        yield
    finally:
        dispatch_library.AUTOGRAD_IMPL_FACTORY[:] = saved


def test_op_defined_before_autograd_gets_its_kernel() -> None:
    # refimpl imports its autograd layer with the package, so this state is made by hand: a
    # custom op defined while no factory is installed has no Autograd kernel, gets it when the
    # factory is installed, and then behaves as torch's op.
    ns = f"refimpl_test_{next(_COUNTER)}"
    expected = _describe(prog_grad, torch, ns)
    ops, seen = Ops(refimpl, ns), []
    try:
        with _without_autograd_factory():
            op = _scaled_mul(ops, seen)
            assert not op._opoverload.entry.kernels_for(DispatchKey.Autograd)
            factory = _custom_ops.make_autograd_impl
            dispatch_library.install_autograd_impl_factory(factory)
            assert op._opoverload.entry.kernels_for(DispatchKey.Autograd)
            actual = _normalize(_grad_program(refimpl, op, seen)), None
    finally:
        ops.destroy()
    assert actual == expected
