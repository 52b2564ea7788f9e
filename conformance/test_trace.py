"""`refimpl trace`: the layer tree against torch where torch can answer.

The torch functions a trace lists are what torch's TorchFunctionMode sees for the same code;
the node each Autograd step records is the grad_fn torch gives that op's result; the aten
overloads the traced backward nodes dispatch are the nodes torch's engine runs. The console
script and --json are run as a reader runs them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import torch

import refimpl
from refimpl.utils.trace import Step, trace, trace_source

PROGRAMS = {
    "functional": (
        "x = torch.ones(2, 4, requires_grad=True); w = torch.ones(3, 4); "
        "F = torch.nn.functional; F.cross_entropy(F.linear(F.layer_norm(x, [4]), w), "
        "torch.tensor([0, 2])).backward()"
    ),
    "arith": "x = torch.ones(2, 3); y = (x * 2 + 1).sum(1)",
    "views": "x = torch.ones(2, 3); y = x.t()[0]; z = x.reshape(6)",
    "grad": "x = torch.ones(2, 4, requires_grad=True); (x.abs() * 2).sum().backward()",
    "inplace": "x = torch.zeros(3); x.add_(1); x[0] = 2.0",
    "matmul": "a = torch.ones(2, 3, requires_grad=True); b = torch.ones(3, 4); (a @ b).mean().backward()",
}


def _walk(steps: list[Step]) -> list[Step]:
    found: list[Step] = []
    for step in steps:
        found.append(step)
        found.extend(_walk(step.children))
    return found


def _torch_calls(source: str) -> list[str]:
    seen: list[str] = []

    class Log(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            seen.append(torch.overrides.resolve_name(func) or repr(func))
            return func(*args, **(kwargs or {}))

    with Log():
        exec(source, {"torch": torch})  # noqa: S102
    return seen


def _outer_calls(steps: list[Step]) -> list[str]:
    # The calls a TorchFunctionMode sees: those not made inside another call (a functional
    # call shows the torch calls it makes as its children; see Note [Functional calls in a
    # trace] in refimpl/utils/trace.py).
    found: list[str] = []
    for step in steps:
        if step.kind == "call":
            found.append(step.name)
        else:
            found.extend(_outer_calls(step.children))
    return found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_calls_are_what_a_torch_function_mode_sees(name: str) -> None:
    source = PROGRAMS[name]
    assert _outer_calls(trace_source(source).steps) == _torch_calls(source)


def test_autograd_steps_record_torch_nodes() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(2, 3, requires_grad=True)
        return (x.exp() * 2).sum()

    steps = _walk(trace(program, refimpl).steps)
    recorded = [s.recorded for s in steps if s.kind == "kernel" and s.recorded]
    out = program(torch)
    expected = []
    node = out.grad_fn
    while node is not None:  # the chain sum <- mul <- exp, forward order reversed
        expected.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
        if node is not None and node.name() == "torch::autograd::AccumulateGrad":
            break
    assert recorded == list(reversed(expected))


def test_backward_nodes_are_torch_engine_nodes() -> None:
    source = PROGRAMS["grad"]
    nodes = [s.name for s in _walk(trace_source(source).steps) if s.kind == "node"]
    x = torch.ones(2, 4, requires_grad=True)
    loss = (x.abs() * 2).sum()
    ran: list[str] = []
    for fn in (loss.grad_fn, loss.grad_fn.next_functions[0][0]):
        fn.register_prehook(lambda grads, fn=fn: ran.append(fn.name()))
    abs_node = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    abs_node.register_prehook(lambda grads: ran.append(abs_node.name()))
    loss.backward()
    assert nodes[: len(ran)] == ran
    assert nodes[-1] == "torch::autograd::AccumulateGrad"


def test_every_kernel_step_names_its_key_and_backend_kernels_their_library() -> None:
    steps = _walk(trace_source(PROGRAMS["matmul"]).steps)
    kernels = [s for s in steps if s.kind == "kernel"]
    assert kernels
    assert all(s.key for s in kernels)
    leaves = [s for s in kernels if not s.children and s.key == "CPU"]
    assert leaves and all(s.backend == refimpl.config.backends["cpu"] for s in leaves)
    assert any(s.key == "AutogradCPU" and s.recorded == "MmBackward0" for s in kernels)


def test_errors_end_the_trace_and_show() -> None:
    result = trace_source("x = torch.ones(2, requires_grad=True); x.add_(1); y = 2")
    last = result.steps[-1]
    assert last.name == "x.add_(1)"
    assert last.children[-1].kind == "error"
    assert "leaf Variable that requires grad" in last.children[-1].name
    assert len(result.steps) == 2


def test_untraced_calls_leave_the_dispatcher_as_it_was() -> None:
    from refimpl.dispatch.table import OBSERVER

    trace_source("x = torch.ones(2) + 1")
    assert OBSERVER.wrap is None
    x = refimpl.ones(2)
    entry = refimpl.dispatch.dispatcher.DISPATCHER.find("aten::add.Tensor")  # type: ignore[attr-defined]
    _ = x + 1
    assert all(r.kernel.__name__ != "traced" for r in entry.direct_records.values())


def test_console_script_and_json() -> None:
    code = "x = torch.ones(2, requires_grad=True); (x * 3).sum().backward()"
    run = subprocess.run(
        [sys.executable, "-m", "conformance.entry", "trace", code, "--json"],
        capture_output=True, text=True, check=True,
    )
    tree = json.loads(run.stdout)
    assert [s["name"] for s in tree] == ["x = torch.ones(2, requires_grad=True)",
                                         "(x * 3).sum().backward()"]
    text = subprocess.run(
        [sys.executable, "-m", "conformance.entry", "trace", code],
        capture_output=True, text=True, check=True,
    ).stdout
    for expected in ("torch.Tensor.mul", "aten::mul.Tensor", "AutogradCPU", "MulBackward0",
                     "backward node SumBackward0"):
        assert expected in text


# Programs that reach every kernel declared with `dispatches_nothing` (ops/view.py,
# ops/pointwise.py), in the dtypes and layouts those kernels branch on.
DISPATCH_FREE_PROGRAMS = """
x = torch.arange(24.0).reshape(2, 3, 4)
c = torch.ones(2, 3, dtype=torch.complex64)
i = torch.ones(3, dtype=torch.int64)
v = x.view(6, 4); v = x.view(-1); v = x.t() if x.dim() == 2 else x.transpose(0, 2)
v = x[0].t(); v = x.permute(2, 0, 1); v = x[:, :1].expand(2, 5, 4)
v = x.unsqueeze(0); v = x.unsqueeze(-1).squeeze(); v = x[:1].squeeze(0); v = x[:1, :1].squeeze((0, 1))
v = x.select(1, 2); v = x[:, 1:3, ::2]; v = x.diagonal(0, 1, 2); v = x.as_strided((2, 2), (1, 2), 1)
v = x.unfold(2, 2, 1); v = x.split(1); v = x.split([1, 2], 1); v = x.unbind(1)
v = torch.ops.aten.alias.default(x)
y = torch.zeros(2, 3, 4); y.copy_(x); y.copy_(i.double()[0]); y.copy_(torch.ones(4, dtype=torch.int32))
y.fill_(2.0); y.fill_(torch.tensor(3.0)); c.copy_(x[:, :, 0]); i.copy_(torch.ones(3))
w = torch.ones(2, requires_grad=True); z = w * 1; u = z[0]; u2 = z.t() if z.dim() == 2 else z.view(2)
with torch.no_grad():
    n = x[0]; n2 = x.split(1)
"""


def test_dispatch_free_kernels_dispatch_nothing() -> None:
    """Note [Fused redispatch]: a kernel declared `dispatches_nothing` makes no nested call."""
    from refimpl.dispatch.table import is_dispatch_free  # noqa: PLC0415
    from refimpl.ops import pointwise, view  # noqa: PLC0415

    declared = {
        name for module in (view, pointwise) for name, fn in vars(module).items()
        if callable(fn) and is_dispatch_free(fn)
    }
    assert len(declared) >= 20
    steps = _walk(trace_source(DISPATCH_FREE_PROGRAMS).steps)
    assert not [s for s in steps if s.kind == "error"]
    reached = set()
    for step in steps:
        if step.kind != "kernel" or not step.how:
            continue
        name = step.how.rpartition("(")[2].rstrip(")")
        if name in declared:
            reached.add(name)
            assert not step.children, f"{name} dispatched {[c.name for c in step.children]}"
    assert reached == declared


def test_functional_calls_show_the_torch_calls_they_make() -> None:
    """F.cross_entropy is Python over torch._C._nn.cross_entropy_loss: the trace shows that
    call under it, and the aten kernels under that (torch's own TorchFunctionMode sees only
    the F call); F.layer_norm's kernels show under it."""
    steps = trace_source(PROGRAMS["functional"]).steps
    calls = [s for s in _walk(steps) if s.kind == "call"]
    loss = next(s for s in calls if s.name == "torch.nn.functional.cross_entropy")
    inner = [c for c in loss.children if c.kind == "call"]
    assert [c.name for c in inner] == ["torch._C._nn.cross_entropy_loss"]
    kernels = [k.name for k in _walk(inner[0].children) if k.kind == "kernel"]
    assert "aten::cross_entropy_loss" in kernels and "aten::nll_loss_forward" in kernels
    layer_norm = next(s for s in calls if s.name == "torch.nn.functional.layer_norm")
    kernels = [k.name for k in _walk(layer_norm.children) if k.kind == "kernel"]
    assert "aten::native_layer_norm" in kernels
