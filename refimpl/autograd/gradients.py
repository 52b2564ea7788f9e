"""`backward` and `grad`: gradients of outputs with respect to the graph's leaves or inputs.

Torch: torch/autograd/__init__.py (backward, grad, _make_grads) over
torch/csrc/autograd/python_engine.cpp (THPEngine_run_backward).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refimpl._base.memory_format import preserve_format
from refimpl._base.size import Size
from refimpl.autograd import engine
from refimpl.autograd.variable import Edge
from refimpl.autograd.views import gradient_edge
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.ops import aten

TensorOrTensors = TensorImpl | Sequence[TensorImpl]


def _tensors(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, TensorImpl):
        return (value,)
    return tuple(value)


def _make_grads(
    outputs: Sequence[TensorImpl], grads: Sequence[Any], is_grads_batched: bool = False
) -> tuple[list[Any], list[bool]]:
    """The gradient of each output: the one given (checked against the output's shape), or
    ones for a scalar output. Torch: torch.autograd._make_grads."""
    made: list[Any] = []
    was_made: list[bool] = []
    for i, (out, grad) in enumerate(zip(outputs, grads, strict=True)):
        if isinstance(grad, TensorImpl):
            shape = grad._size[1:] if is_grads_batched else grad._size
            if shape != out._size:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(grad._size)} "
                    f"and output[{i}] has a shape of {Size(out._size)}."
                )
            if out._dtype.is_complex != grad._dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{grad._dtype} and output[{i}] has a dtype of {out._dtype}."
                )
            made.append(grad)
            was_made.append(False)
        elif grad is None:
            if out._autograd_meta is None or gradient_edge(out) is None:
                made.append(None)
                was_made.append(False)
                continue
            if geometry.numel(out._size) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out._dtype.is_floating_point:
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out._dtype}"
                )
            made.append(aten.ones_like.default(out, memory_format=preserve_format))
            was_made.append(True)
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(grad).__name__}"
            )
    return made, was_made


def _root_edges(outputs: Sequence[TensorImpl]) -> list[Edge]:
    edges = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        edges.append(edge)
    return edges


def backward(
    tensors: TensorOrTensors,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate the gradients of `tensors` into the leaves' `.grad`. Torch:
    torch.autograd.backward."""
    outputs = _tensors(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    grads = _tensors(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"grad_tensors should be the same length as tensors, but got {len(grads)} and "
            f"{len(outputs)}"
        )
    chosen = _tensors(inputs)
    if inputs is not None and not chosen:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    made, was_made = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(outputs)
    wanted = [_input_edge(t) for t in chosen]
    engine.execute(
        edges,
        made,
        keep_graph=retain_graph,
        create_graph=create_graph,
        accumulate_grad=True,
        outputs=wanted,
        made=was_made,
    )


def _input_edge(t: Any) -> Edge:
    if not isinstance(t, TensorImpl):
        raise TypeError(f"expected Tensor, got {type(t).__name__}")
    edge = gradient_edge(t)
    if edge is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge


def grad(
    outputs: TensorOrTensors,
    inputs: TensorOrTensors,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """The gradients of `outputs` with respect to `inputs`, without touching `.grad`.

    Torch: torch.autograd.grad.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _tensors(outputs)
    ins = _tensors(inputs)
    grads = _tensors(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if len(grads) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output per output, got {len(grads)} and {len(outs)}"
        )
    if is_grads_batched:
        return _batched_grad(
            outs, ins, grads, retain_graph, create_graph, allow_unused, materialize_grads
        )
    made, was_made = _make_grads(outs, grads, is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(outs)
    wanted = [_input_edge(t) for t in ins]
    result = engine.execute(
        edges,
        made,
        keep_graph=retain_graph,
        create_graph=create_graph,
        accumulate_grad=False,
        outputs=wanted,
        made=was_made,
    )
    final = []
    for index, (t, value) in enumerate(zip(ins, result, strict=True)):
        if value is None:
            if materialize_grads:
                value = aten.zeros_like.default(t, memory_format=preserve_format)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
        final.append(value)
    return tuple(final)


def _batched_grad(
    outs: tuple[Any, ...],
    ins: tuple[Any, ...],
    grads: tuple[Any, ...],
    retain_graph: bool | None,
    create_graph: bool,
    allow_unused: bool,
    materialize_grads: bool,
) -> tuple[Any, ...]:
    """`grad` for each slice of the grad_outputs' first dim, stacked.

    Torch: is_grads_batched=True runs the backward under vmap over that dim. Differs: refimpl
    has no vmap and runs one backward per slice (the same values; slower).
    """
    _make_grads(outs, grads, is_grads_batched=True)  # torch's shape checks
    batch = next(g._size[0] for g in grads if isinstance(g, TensorImpl))
    keep = create_graph if retain_graph is None else retain_graph
    rows = []
    for b in range(batch):
        sliced = [aten.select.int(g, 0, b) if isinstance(g, TensorImpl) else g for g in grads]
        rows.append(
            grad(
                outs,
                ins,
                sliced,
                retain_graph=True if b < batch - 1 else keep,
                create_graph=create_graph,
                allow_unused=allow_unused,
                materialize_grads=materialize_grads,
            )
        )
    return tuple(
        None
        if any(row[i] is None for row in rows)
        else aten.stack.default([row[i] for row in rows], 0)
        for i in range(len(ins))
    )
