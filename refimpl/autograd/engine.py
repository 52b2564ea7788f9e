"""The engine: runs the backward graph from the roots' gradients to the leaves.

Torch: torch/csrc/autograd/engine.cpp (Engine::execute, evaluate_function, validate_outputs,
the ready queue ordered by sequence number), input_buffer.cpp (summing gradients that reach
one input), and functions/accumulate_grad.h (AccumulateGrad::accumulateGrad: how `.grad` is
set and added to, with its layout contract). Single-threaded, as torch's CPU engine is for a
CPU graph.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final

from refimpl.autograd.anomaly_mode import ANOMALY, check_nan_outputs
from refimpl.autograd.grad_mode import GRAD_STATE
from refimpl.autograd.graph import AccumulateGrad, InputMetadata, Node
from refimpl.autograd.variable import AutogradMeta, Edge, meta_of
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.python_dispatch import is_tensor_subclass_like
from refimpl.ops import aten
from refimpl.ops._backward import sum_to


class GraphTask:
    """One call of backward or grad. Torch: GraphTask (dependencies, exec_info, captures)."""

    def __init__(
        self,
        keep_graph: bool,
        create_graph: bool,
        accumulate_grad: bool,
        outputs: Sequence[Edge],
    ) -> None:
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.accumulate_grad = accumulate_grad
        self.dependencies: dict[Node, int] = {}
        self.buffers: dict[Node, list[Any]] = {}
        self.captures: dict[tuple[Node, int], list[int]] = {}
        for index, (node, nr) in enumerate(outputs):
            self.captures.setdefault((node, nr), []).append(index)
        self.captured: list[Any] = [None] * len(outputs)
        self.needed: set[Node] | None = None
        """Nodes to run when only some inputs' gradients are wanted (None: all)."""
        self.owned: set[int] = set()
        """ids of gradients the engine made (AccumulateGrad may keep them as `.grad`)."""
        self.deliveries: dict[int, int] = {}
        """How many input buffers each gradient was put in (torch reads use counts)."""

    def add(self, node: Node, nr: int, grad: Any) -> None:
        """Torch: InputBuffer::add / accumulate: the first gradient is kept; a later one is
        added into whichever of the two nothing else holds (in place, outside create_graph),
        else summed into a new tensor."""
        buffer = self.buffers.get(node)
        if buffer is None:
            buffer = self.buffers[node] = [None] * max(len(node.input_metadata), nr + 1)
        self.deliveries[id(grad)] = self.deliveries.get(id(grad), 0) + 1
        old = buffer[nr]
        if old is None:
            buffer[nr] = grad
        elif not GRAD_STATE.enabled and self._may_overwrite(old, grad):
            aten.add_.Tensor(old, grad)
        elif not GRAD_STATE.enabled and self._may_overwrite(grad, old):
            buffer[nr] = aten.add_.Tensor(grad, old)
        else:
            buffer[nr] = aten.add.Tensor(old, grad)
            self.owned.add(id(buffer[nr]))
            self.deliveries[id(buffer[nr])] = 1

    def _may_overwrite(self, t: Any, other: Any) -> bool:
        """Torch: can_accumulate_inplace (nothing else holds the tensor or its storage: here,
        the engine made it, gave it to one place, and it is no view), for an addition that
        keeps its dtype and shape; never a tensor subclass, nor under a dispatch mode (torch:
        isTensorSubclassLike)."""
        return (
            id(t) in self.owned
            and not is_tensor_subclass_like(t)
            and self.deliveries.get(id(t), 0) == 1
            and t._base is None
            and t._dtype is other._dtype
            and t._size == other._size
            and geometry.is_non_overlapping_and_dense(t._size, t._stride)
        )


def _collect(roots: Sequence[Node], task: GraphTask) -> None:
    """Count, for every node reachable from the roots, the edges that reach it."""
    seen: set[Node] = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            child = edge[0]
            task.dependencies[child] = task.dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)


def _postorder(roots: Sequence[Node]) -> list[Node]:
    """Every node reachable from the roots, each after all the nodes it leads to."""
    order: list[Node] = []
    seen: set[Node] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_edges))]
        while stack:
            node, edges = stack[-1]
            for edge in edges:
                if edge is not None and edge[0] not in seen:
                    seen.add(edge[0])
                    stack.append((edge[0], iter(edge[0].next_edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _mark_needed(roots: Sequence[Node], task: GraphTask) -> None:
    """Torch: GraphTask::init_to_execute: run only the nodes on a path from a root to a
    captured edge (and the AccumulateGrad of a leaf whose gradient is wanted)."""
    targets = {node for node, _ in task.captures}
    needed: set[Node] = set()
    for node in _postorder(roots):
        if isinstance(node, AccumulateGrad) and node in targets or any(
            edge is not None and (edge[0] in targets or edge[0] in needed)
            for edge in node.next_edges
        ):
            needed.add(node)
    task.needed = needed


def obeys_layout_contract(grad: TensorImpl, variable: TensorImpl) -> bool:
    """Torch: utils::obeys_layout_contract: a dense variable's gradient has its strides (in
    every dim of size > 1); any other variable's gradient is contiguous."""
    if geometry.is_non_overlapping_and_dense(variable._size, variable._stride):
        # torch: dims of size 1 are free, unless the gradient's stride there is 0 (a view
        # such as cat's or expand's output).
        return all(
            g == v if n != 1 else g != 0
            for n, g, v in zip(grad._size, grad._stride, variable._stride, strict=True)
        )
    return geometry.is_contiguous(grad._size, grad._stride)


def clone_obey_contract(grad: TensorImpl, variable: TensorImpl) -> Any:
    """Torch: utils::clone_obey_contract: a copy with the variable's strides where it is
    dense, else contiguous."""
    if geometry.is_non_overlapping_and_dense(variable._size, variable._stride):
        out = aten.new_empty_strided.default(grad, list(variable._size), list(variable._stride))
        return aten.copy_.default(out, grad)
    return aten.clone.default(grad, memory_format=None)


def accumulate_grad(variable: TensorImpl, new_grad: Any, task: GraphTask) -> None:
    """Add `new_grad` into the leaf's `.grad`. Torch: AccumulateGrad::accumulateGrad."""
    meta: AutogradMeta = meta_of(variable)
    old = meta.grad
    if old is None:
        # torch keeps the gradient itself when nothing else holds it (use_count); refimpl
        # keeps one the engine made, once.
        may_keep = not GRAD_STATE.enabled and id(new_grad) in task.owned
        if may_keep and obeys_layout_contract(new_grad, variable):
            task.owned.discard(id(new_grad))
            meta.grad = aten.detach.default(new_grad)
        else:
            meta.grad = clone_obey_contract(new_grad, variable)
    elif not GRAD_STATE.enabled:
        aten.add_.Tensor(old, new_grad)
    else:
        meta.grad = aten.add.Tensor(old, new_grad)
    for hook in list(meta.post_accumulate_grad_hooks.values()):
        hook(variable)


def _expandable(size: tuple[int, ...], to: tuple[int, ...]) -> bool:
    if len(size) > len(to):
        return False
    return all(n == m or n == 1 for n, m in zip(reversed(size), reversed(to), strict=False))


def validate_outputs(node: Node, grads: list[Any], task: GraphTask) -> None:
    """Torch: validate_outputs in engine.cpp: each gradient reduced to its input's shape (by
    summing broadcast dims), cast to its dtype; a shape that cannot be reduced is an error."""
    for i, edge in enumerate(node.next_edges):
        grad = grads[i] if i < len(grads) else None
        if edge is None or grad is None:
            continue
        next_node, nr = edge
        metadata: InputMetadata | None = (
            next_node.input_metadata[nr] if nr < len(next_node.input_metadata) else None
        )
        if metadata is None:
            continue
        size, dtype, _ = metadata
        if grad._size != size:
            if not _expandable(size, grad._size):
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {i} - got "
                    f"[{', '.join(map(str, grad._size))}] but expected shape compatible with "
                    f"[{', '.join(map(str, size))}]"
                )
            grad = sum_to(grad, size)
            task.owned.add(id(grad))
        if grad._dtype is not dtype:
            grad = aten._to_copy.default(grad, dtype=dtype)
            task.owned.add(id(grad))
        grads[i] = grad


def _call_pre_hooks(node: Node, inputs: list[Any]) -> list[Any]:
    """Torch: call_tensor_pre_hooks (tensor hooks, then retains_grad hooks), then
    call_pre_hooks (the node's own)."""
    if isinstance(node, AccumulateGrad):
        meta: AutogradMeta | None = node.variable._autograd_meta
        if meta is not None:
            for hook in list(meta.hooks.values()):
                result = hook(inputs[0])
                if result is not None:
                    inputs[0] = result
    for nr, hook in list(node._tensor_pre_hooks.values()):
        result = hook(inputs[nr])
        if result is not None:
            inputs[nr] = result
    for nr, hook in list(node._retains_grad_hooks.items()):
        hook(inputs[nr])
    for hook in list(node._pre_hooks.values()):
        result = hook(tuple(inputs))
        if result is not None:
            inputs = list(result)
    return inputs


class EngineObserver:
    """Who watches the engine run nodes (refimpl.utils.trace): `node_hook(node)` is a context
    manager entered around each node's evaluation. Unset, the engine asks once per node."""

    node_hook: Callable[[Node], AbstractContextManager[object]] | None = None


ENGINE_OBSERVER: Final = EngineObserver()


def _evaluate(node: Node, task: GraphTask) -> list[Any]:
    """Run one node on its input buffer (watched by ENGINE_OBSERVER when it is set)."""
    hook = ENGINE_OBSERVER.node_hook
    if hook is None:
        return _evaluate_node(node, task)
    with hook(node):
        return _evaluate_node(node, task)


def _evaluate_node(node: Node, task: GraphTask) -> list[Any]:
    """Run one node on its input buffer. Torch: evaluate_function / call_function."""
    inputs = task.buffers.pop(node, None) or [None] * max(len(node.input_metadata), 1)
    inputs = _call_pre_hooks(node, inputs)
    for nr, grad in enumerate(inputs):
        for index in task.captures.get((node, nr), ()):
            task.captured[index] = grad
    if task.needed is not None and node not in task.needed:
        return []
    if isinstance(node, AccumulateGrad):
        if task.accumulate_grad and inputs[0] is not None:
            accumulate_grad(node.variable, inputs[0], task)
        return []
    outputs = node.apply(list(inputs))
    if ANOMALY.enabled:
        check_nan_outputs(node, outputs)
    validate_outputs(node, outputs, task)
    given = {id(g) for g in inputs if g is not None}
    for output in outputs:
        # A formula's new tensor is the engine's; a gradient it passes on as it came (add's,
        # clone's) stays whoever's it was (the caller's, for a root gradient).
        if output is not None and id(output) not in given:
            task.owned.add(id(output))
    for hook in list(node._hooks.values()):
        result = hook(tuple(outputs), tuple(inputs))
        if result is not None:
            outputs = list(result)
    if not task.keep_graph:
        node.release_variables()
    return outputs


def execute(
    roots: Sequence[Edge],
    grads: Sequence[Any],
    *,
    keep_graph: bool,
    create_graph: bool,
    accumulate_grad: bool,
    outputs: Sequence[Edge] = (),
    made: Sequence[bool] = (),
) -> list[Any]:
    """Run the graph from `roots` (edges with their gradients); the gradients reaching
    `outputs`, if any. `made[i]` says the i-th root gradient was made for this call (the
    implicit ones of a scalar), not given by the caller. Torch: Engine::execute. A node
    that does not run passes nothing on (its children are not needed either)."""
    task = GraphTask(keep_graph, create_graph, accumulate_grad, outputs)
    task.owned.update(id(g) for g, was_made in zip(grads, made, strict=False) if was_made)
    root_nodes = list(dict.fromkeys(node for node, _ in roots))
    _collect(root_nodes, task)
    if outputs:
        _mark_needed(root_nodes, task)
    for (node, nr), grad in zip(roots, grads, strict=True):
        if grad is not None and nr < len(node.input_metadata):
            # torch: the graph root's outputs pass validate_outputs too: a gradient given in
            # another dtype is cast to its output's.
            metadata = node.input_metadata[nr]
            if metadata is not None and grad._dtype is not metadata[1]:
                grad = aten._to_copy.default(grad, dtype=metadata[1])
                task.owned.add(id(grad))
        task.add(node, nr, grad)
    order = itertools.count()
    ready: list[tuple[int, int, Node]] = [
        (-node.priority(), next(order), node)
        for node in root_nodes
        if task.dependencies.get(node, 0) == 0
    ]
    heapq.heapify(ready)
    previous = GRAD_STATE.enabled
    GRAD_STATE.enabled = create_graph
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            results = _evaluate(node, task)
            for edge, grad in zip(node.next_edges, results, strict=False):
                if edge is None:
                    continue
                child, nr = edge
                if grad is not None:
                    task.add(child, nr, grad)
                task.dependencies[child] -= 1
                if task.dependencies[child] == 0:
                    heapq.heappush(ready, (-child.priority(), next(order), child))
    finally:
        GRAD_STATE.enabled = previous
    return task.captured
