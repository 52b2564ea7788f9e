"""`refimpl.utils.trace`: every layer a call passes through, shown as a tree.

    refimpl trace "x = torch.randn(2, 4, requires_grad=True); (x.abs() * 2).sum().backward()"

runs the code with `torch` bound to refimpl and prints, statement by statement: each torch
function or method called (what a TorchFunctionMode sees), under it each aten overload the
dispatcher ran with the key whose kernel ran (Autograd, ADInplaceOrView, a
CompositeImplicitAutograd decomposition, the backend kernel and the array library it ran on),
the node autograd recorded, and for `.backward()` each node the engine ran with the aten ops
it dispatched. `--json` prints the same tree as data; `trace(fn, *args)` returns it.

Differs: issue 13 asked for `refimpl.trace.trace`; `refimpl.trace` is torch.trace (the matrix
trace), so the layer trace lives in refimpl.utils, with torch.utils' other helpers.

Torch: no single counterpart. The pieces are torch's own observers: a TorchFunctionMode for the
API, the dispatcher's table for which kernel a key set selects (torch._C._dispatch_dump_table),
and the autograd graph. Here the dispatcher reports each kernel it runs while a trace is on
(Note [Dispatch observer] in dispatch/table.py) and the engine each node
(autograd/engine.py, ENGINE_OBSERVER); a program that is not traced pays nothing for either.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from refimpl._base.keys import SLOT_KEYS, DispatchKey, highest_priority_index
from refimpl.api._torch_function import TF_TLS, _pop_mode_temporarily
from refimpl.autograd.engine import ENGINE_OBSERVER
from refimpl.autograd.graph import Node
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.dispatcher import DISPATCHER
from refimpl.dispatch.table import OBSERVER, FillKind, KernelRecord, OperatorEntry
from refimpl.overrides import TorchFunctionMode, resolve_name

__all__ = ["Step", "Trace", "main", "trace", "trace_source"]


@dataclass
class Step:
    """One thing that ran: a statement, a torch function, an aten kernel, an autograd node."""

    kind: str
    """"statement", "call" (torch API), "kernel" (an aten overload at one key), "node" (a
    backward node the engine ran), "error" (what a statement raised)."""
    name: str
    key: str | None = None
    """For a kernel: the dispatch key whose table slot ran."""
    how: str | None = None
    """For a kernel: how the slot got it (kernel, autograd kernel, math kernel = a
    CompositeImplicitAutograd decomposition, default backend kernel, backend fallback) and
    what it is."""
    backend: str | None = None
    """For a backend kernel: the array library it computed with."""
    recorded: str | None = None
    """For an Autograd kernel: the node it recorded on its output."""
    children: list[Step] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [])}


@dataclass
class Trace:
    """What `trace` returns: the steps, and the function's result."""

    steps: list[Step]
    result: Any = None

    def to_json(self) -> str:
        return json.dumps([s.to_dict() for s in self.steps], indent=1)


# --- the observers --------------------------------------------------------------------------

_AUTOGRAD_KEYS = frozenset(k for k in DispatchKey if k.name.startswith("Autograd"))
# The keys whose kernels compute: the backends (a kernel at any other key redispatches).
_BACKEND_KEYS = frozenset(
    k for k in DispatchKey if k.name in ("CPU", "CUDA", "Meta", "Undefined", "PrivateUse1")
)


_FUNCTIONAL = "torch.nn.functional."


def _qualified_name(func: Any) -> str:
    # A function torch's resolve_name does not know (torch._C._nn.cross_entropy_loss, which
    # F.cross_entropy calls): its module and name, with torch's spelling of the module.
    module = str(getattr(func, "__module__", "") or "")
    name = str(getattr(func, "__qualname__", repr(func)))
    if module.startswith("refimpl"):
        module = "torch" + module.removeprefix("refimpl")
    return f"{module}.{name}" if module else name


class _Recorder(TorchFunctionMode):
    """Collects the steps: torch functions through the mode, kernels through the dispatch
    observer, nodes through the engine observer."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Step("root", "")
        self.stack: list[Step] = [self.root]

    def open(self, step: Step) -> None:
        self.stack[-1].children.append(step)
        self.stack.append(step)

    def close(self) -> None:
        self.stack.pop()

    # TorchFunctionMode: the torch function or method a statement called.
    def __torch_function__(
        self, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        name = resolve_name(func) or _qualified_name(func)
        self.open(Step("call", name))
        try:
            body = getattr(func, "__wrapped__", None)
            if name.startswith(_FUNCTIONAL) and body is not None:
                # Note [Functional calls in a trace]: a mode is off while its handler runs, so
                # a TorchFunctionMode never sees the torch calls F.layer_norm makes. The
                # functional layer is Python over torch.*, and showing that is what a trace is
                # for: the function's body (behind its __torch_function__ check) runs with
                # the recorder on again, so torch.layer_norm shows under F.layer_norm.
                with self:
                    return body(*args, **(kwargs or {}))
            return func(*args, **(kwargs or {}))
        finally:
            self.close()

    # The dispatch observer: each kernel the dispatcher resolves runs through `traced`.
    def wrap(self, entry: OperatorEntry, record: KernelRecord, keyset: int) -> KernelRecord:
        slot = highest_priority_index(keyset)
        key = SLOT_KEYS[slot]
        kind = entry.table_kinds[slot] if record is entry.dispatch_table[slot] else None
        how = _describe(record, kind)
        name = entry.name
        original = record.kernel

        def traced(*args: Any, **kwargs: Any) -> Any:
            step = Step("kernel", name, key=key.name, how=how)
            if key in _BACKEND_KEYS:
                step.backend = _backend_of(args, kwargs)
            self.open(step)
            try:
                if TF_TLS.stack and TF_TLS.stack[-1] is self:
                    # Inside a functional call the recorder is on again (Note [Functional
                    # calls in a trace]); what a kernel does is not a torch call.
                    with _pop_mode_temporarily():
                        result = original(*args, **kwargs)
                else:
                    result = original(*args, **kwargs)
            finally:
                self.close()
            if key in _AUTOGRAD_KEYS:
                step.recorded = _grad_fn_name(result)
            elif key in _BACKEND_KEYS and step.backend is None:
                step.backend = _backend_of((result,), {})  # a factory: no tensor argument
            return result

        return KernelRecord(
            traced,
            record.debug,
            is_fallthrough=record.is_fallthrough,
            with_keyset=record.with_keyset,
            boxed=record.boxed,
            passes_without_grad=record.passes_without_grad,
        )

    # The engine observer: each node backward runs.
    @contextmanager
    def node(self, node: Node) -> Iterator[None]:
        self.open(Step("node", node.name()))
        try:
            yield
        finally:
            self.close()


# How a table slot got its kernel, as a reader knows the registrations (torch's dump tables
# print the FillKind values: "default backend kernel", "math kernel", ...).
_KIND_TEXT = {
    FillKind.KERNEL: "kernel",
    FillKind.DEFAULT_BACKEND: "CompositeExplicitAutograd kernel",
    FillKind.MATH: "CompositeImplicitAutograd decomposition",
    FillKind.AUTOGRAD: "autograd kernel",
    FillKind.BACKEND_FALLBACK: "fallback",
}


def _describe(record: KernelRecord, kind: FillKind | None) -> str:
    what = record.debug.replace("registered at ", "")
    if kind is None:
        return what
    return f"{_KIND_TEXT.get(kind, kind.value)}: {what}"


def _backend_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, TensorImpl):
                backend = item._storage.backend
                return "meta (no data)" if backend is None else backend.name
    return None


def _grad_fn_name(result: Any) -> str | None:
    items = result if isinstance(result, (list, tuple)) else (result,)
    for item in items:
        meta = getattr(item, "_autograd_meta", None)
        node = None if meta is None else meta.grad_fn
        if node is not None:
            return str(node.name())
    return None


@contextmanager
def _observing(recorder: _Recorder) -> Iterator[None]:
    if OBSERVER.wrap is not None:
        raise RuntimeError("refimpl.utils.trace: a trace is already running")
    OBSERVER.wrap = recorder.wrap
    ENGINE_OBSERVER.node_hook = recorder.node
    DISPATCHER.clear_caches()
    try:
        with recorder:
            yield
    finally:
        OBSERVER.wrap = None
        ENGINE_OBSERVER.node_hook = None
        DISPATCHER.clear_caches()


# --- entry points -------------------------------------------------------------------------


def trace(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Trace:
    """Run `fn(*args, **kwargs)` and return every step it took, with its result."""
    recorder = _Recorder()
    with _observing(recorder):
        result = fn(*args, **kwargs)
    return Trace(recorder.root.children, result)


def trace_source(source: str, namespace: dict[str, Any] | None = None) -> Trace:
    """Run Python source with `torch` bound to refimpl, one step per top-level statement."""
    import refimpl  # the package that imports this module

    scope: dict[str, Any] = {"torch": refimpl} if namespace is None else namespace
    module = ast.parse(source)
    recorder = _Recorder()
    with _observing(recorder):
        for statement in module.body:
            step = Step("statement", ast.unparse(statement))
            recorder.open(step)
            try:
                code = compile(ast.Module([statement], type_ignores=[]), "<trace>", "exec")
                exec(code, scope)  # noqa: S102  # the user's own statement
            except Exception as error:  # noqa: BLE001  # shown as the statement's last step
                del recorder.stack[1:]
                step.children.append(Step("error", f"{type(error).__name__}: {error}"))
                break
            recorder.close()
    return Trace(recorder.root.children)


def _label(step: Step) -> str:
    if step.kind == "statement":
        return f"[bold]{step.name}[/bold]"
    if step.kind == "call":
        return f"[cyan]{step.name}[/cyan]"
    if step.kind == "node":
        return f"[magenta]backward node {step.name}[/magenta]"
    if step.kind == "error":
        return f"[red]raised {step.name}[/red]"
    text = f"[green]{step.name}[/green]  [yellow]{step.key}[/yellow]"
    if step.how:
        text += f": {step.how}"
    if step.backend:
        text += f" on [blue]{step.backend}[/blue]"
    if step.recorded:
        text += f" -> recorded [magenta]{step.recorded}[/magenta]"
    return text


def render(steps: Sequence[Step]) -> Any:
    """The steps as a rich Tree."""
    from rich.tree import Tree  # only the console needs rich

    root = Tree("[dim]refimpl trace[/dim]")

    def add(parent: Any, step: Step) -> None:
        branch = parent.add(_label(step))
        for child in step.children:
            add(branch, child)

    for step in steps:
        add(root, step)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """`refimpl trace "<statements>" [--json]`."""
    parser = argparse.ArgumentParser(
        prog="refimpl trace",
        description="Run Python statements with `torch` bound to refimpl and show every "
        "layer each call passes through.",
    )
    parser.add_argument("source", help='Python statements, e.g. "x = torch.ones(2); x + 1"')
    parser.add_argument("--json", action="store_true", help="print the tree as JSON")
    args = parser.parse_args(argv)
    result = trace_source(args.source)
    if args.json:
        print(result.to_json())
        return 0
    from rich.console import Console

    Console().print(render(result.steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
