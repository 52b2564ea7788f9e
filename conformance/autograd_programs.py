"""Small autograd programs, and `describe`: a graph as plain data to compare with torch's.

Each program takes a module `T` (`torch`, or `refimpl` used as `import refimpl as torch`),
runs a few lines of autograd and returns the tensors to inspect by name. The same code runs
on both libraries; `describe` turns each returned tensor into nested dicts and lists (its
grad_fn graph through `next_functions`, the `_saved_*` attributes of every node, `.grad`
values), written only against torch's public API so that refimpl's answer can be compared
with torch's by `==` (up to float tolerance). conformance/test_autograd_graphs.py runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Program = Callable[[Any], dict[str, Any]]
PROGRAMS: dict[str, Program] = {}


def program(function: Program) -> Program:
    """Register a program under its function's name."""
    PROGRAMS[function.__name__] = function
    return function


# --- describe ------------------------------------------------------------------------------


def dtype_name(dtype: Any) -> str:
    """`float64` for torch.float64 and refimpl.float64."""
    return str(dtype).rpartition(".")[2]


def tensor_meta(tensor: Any) -> dict[str, Any]:
    """Shape and dtype: what a saved tensor is compared by."""
    return {"shape": list(tensor.shape), "dtype": dtype_name(tensor.dtype)}


def plain(value: Any) -> Any:
    """A saved attribute's value as comparable data (tensors by their metadata)."""
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return {"tensor": tensor_meta(value)}
    return repr(value)


def saved_attributes(node: Any) -> dict[str, Any]:
    """The node's `_saved_<name>` attributes; one freed by backward reads as an error."""
    saved: dict[str, Any] = {}
    for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            saved[name] = plain(getattr(node, name))
        except RuntimeError:
            # "Trying to backward through the graph a second time (or directly access saved
            # tensors after they have already been freed)..."
            saved[name] = "freed"
    return saved


def describe_node(node: Any, seen: dict[int, int], alive: list[Any]) -> Any:
    """A grad_fn and, recursively, its next_functions; a node met again reads `{"ref": n}`."""
    if node is None:
        return None
    if id(node) in seen:
        return {"ref": seen[id(node)]}
    seen[id(node)] = len(seen)
    alive.append(node)  # keeps ids unique while the walk runs
    record: dict[str, Any] = {"name": node.name(), "saved": saved_attributes(node)}
    variable = getattr(node, "variable", None)
    if variable is not None:  # AccumulateGrad: the leaf it accumulates into
        record["variable"] = tensor_meta(variable)
    record["next"] = [
        [describe_node(child, seen, alive), index] for child, index in node.next_functions
    ]
    return record


def values(tensor: Any) -> Any:
    """A tensor's values as nested lists (complex numbers stay complex)."""
    return None if tensor is None else tensor.detach().tolist()


def describe(tensor: Any) -> Any:
    """One returned tensor: metadata, values, autograd flags, graph and `.grad`."""
    if tensor is None:
        return None
    if not hasattr(tensor, "grad_fn"):
        return plain(tensor)
    # .grad of a non-leaf that does not retain it warns in torch; only read it where set.
    has_grad = tensor.is_leaf or tensor.retains_grad
    return {
        **tensor_meta(tensor),
        "value": values(tensor),
        "requires_grad": tensor.requires_grad,
        "is_leaf": tensor.is_leaf,
        "version": tensor._version,
        "graph": describe_node(tensor.grad_fn, {}, []),
        "grad": values(tensor.grad) if has_grad else "non-leaf",
    }


def describe_all(results: dict[str, Any]) -> dict[str, Any]:
    """`describe` for each tensor a program returned."""
    return {name: describe(tensor) for name, tensor in results.items()}


# --- helpers the programs share ------------------------------------------------------------


def leaf(T: Any, data: Any, dtype: str = "float64") -> Any:
    """A leaf tensor that requires grad."""
    return T.tensor(data, dtype=getattr(T, dtype), requires_grad=True)


def matrix(T: Any, rows: int, cols: int, scale: float = 0.25) -> Any:
    """A (rows, cols) float64 leaf with distinct values of both signs."""
    data = [[scale * (r * cols + c) - 0.8 for c in range(cols)] for r in range(rows)]
    return leaf(T, data)


# --- the programs --------------------------------------------------------------------------


@program
def arithmetic_chain(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, -2.0, 3.0])
    y = ((x * 2 + 1) / 3 - x).sum()
    y.backward()
    return {"y": y, "x": x}


@program
def mlp_addmm_relu_cross_entropy(T: Any) -> dict[str, Any]:
    x, w1, b1, w2 = (
        matrix(T, 2, 3),
        matrix(T, 3, 4),
        leaf(T, [0.1, -0.2, 0.3, 0.0]),
        matrix(T, 4, 2),
    )
    h = T.addmm(b1, x, w1).clamp_min(0)
    logits = h.mm(w2)
    target = T.tensor([1, 0])
    loss = (logits.logsumexp(1) - logits.gather(1, target.unsqueeze(1)).squeeze(1)).mean()
    loss.backward()
    return {"loss": loss, "w1": w1, "b1": b1, "w2": w2, "x": x}


@program
def mlp_relu_by_where(T: Any) -> dict[str, Any]:
    x, w = matrix(T, 2, 3), matrix(T, 3, 3, scale=0.5)
    z = x.mm(w)
    h = T.where(z > 0, z, T.zeros_like(z))
    h.sum().backward()
    return {"h": h, "w": w, "x": x}


@program
def layer_norm_from_mean_var(T: Any) -> dict[str, Any]:
    x, weight, bias = matrix(T, 2, 4), leaf(T, [1.0, 0.5, 2.0, 1.5]), leaf(T, [0.0, 0.1, 0.2, 0.3])
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, correction=0)
    y = (x - mean) / (var + 1e-5).sqrt() * weight + bias
    (y * y).sum().backward()
    return {"y": y, "x": x, "weight": weight, "bias": bias}


@program
def view_then_inplace(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0])
    y = x.clone()
    v = y[1:]
    v.mul_(2)
    y.sum().backward()
    return {"y": y, "v": v, "x": x}


@program
def inplace_index_add(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0, 4.0])
    y = x * 1
    idx = T.tensor([0, 2])
    y[idx] += 1
    (y * y).sum().backward()
    return {"y": y, "x": x}


@program
def basic_indexing(T: Any) -> dict[str, Any]:
    x = matrix(T, 3, 4)
    y = x[1] * 2 + x[:, 1:3].sum(1)[0] + x[..., None][2, 3, 0]
    y.sum().backward()
    return {"y": y, "x": x}


@program
def advanced_indexing_repeats_accumulate(T: Any) -> dict[str, Any]:
    x = matrix(T, 3, 2)
    y = x[T.tensor([0, 2, 0])]
    (y * T.tensor([[1.0], [2.0], [3.0]], dtype=T.float64)).sum().backward()
    return {"y": y, "x": x}


@program
def boolean_mask_indexing(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, -2.0, 3.0, -4.0])
    y = x[x > 0]
    (y * 3).sum().backward()
    return {"y": y, "x": x}


@program
def where_two_branches(T: Any) -> dict[str, Any]:
    a, b = leaf(T, [1.0, 2.0, 3.0]), leaf(T, [-1.0, -2.0, -3.0])
    y = T.where(T.tensor([True, False, True]), a * a, b)
    y.sum().backward()
    return {"y": y, "a": a, "b": b}


@program
def cat_dim0(T: Any) -> dict[str, Any]:
    a, b = matrix(T, 1, 3), matrix(T, 2, 3, scale=0.5)
    y = T.cat([a, b * 2], dim=0)
    (y * y).sum().backward()
    return {"y": y, "a": a, "b": b}


@program
def stack_dim1(T: Any) -> dict[str, Any]:
    a, b = leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])
    y = T.stack([a, b], 1)
    (y * T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)).sum().backward()
    return {"y": y, "a": a, "b": b}


@program
def reductions_dim_keepdim(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    s = x.sum(1, keepdim=True)
    m = x.mean(0)
    a = x.amax(1)
    (s.sum() + m.sum() * 2 + a.sum() * 3).backward()
    return {"s": s, "m": m, "a": a, "x": x}


@program
def broadcasting_sums_gradient_back(T: Any) -> dict[str, Any]:
    x, bias, scale = matrix(T, 2, 3), leaf(T, [0.5, -0.5, 1.0]), leaf(T, [[2.0], [3.0]])
    y = (x + bias) * scale
    y.sum().backward()
    return {"y": y, "bias": bias, "scale": scale}


@program
def outer_product_broadcast(T: Any) -> dict[str, Any]:
    a, b = leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0, 5.0])
    y = a[:, None] * b[None, :]
    y.sum().backward()
    return {"y": y, "a": a, "b": b}


@program
def retain_grad_of_intermediate(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0])
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    return {"h": h, "x": x}


@program
def tensor_hooks(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0])
    x.register_hook(lambda grad: grad * 3)
    h = x * x
    h.register_hook(lambda grad: grad + 1)
    h.sum().backward()
    return {"h": h, "x": x}


@program
def custom_function(T: Any) -> dict[str, Any]:
    class Square(T.autograd.Function):  # type: ignore[misc,name-defined]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = leaf(T, [1.0, -2.0, 3.0])
    y = Square.apply(x)
    (y * 2).sum().backward()
    return {"y": y, "x": x}


@program
def no_grad_block(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    with T.no_grad():
        c = x * 2
    y = c * x
    y.sum().backward()
    return {"c": c, "y": y, "x": x}


@program
def detach_cuts_the_graph(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0])
    d = (x * 2).detach()
    y = d * x
    y.sum().backward()
    return {"d": d, "y": y, "x": x}


@program
def double_backward(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, -1.0])
    y = (x**3).sum()
    (g,) = T.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    return {"g": g, "x": x}


@program
def autograd_grad_allow_unused(T: Any) -> dict[str, Any]:
    a, b = leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])
    y = (a * a).sum()
    ga, gb = T.autograd.grad(y, [a, b], allow_unused=True)
    return {"ga": ga, "gb": gb, "a": a, "b": b}


@program
def complex_inputs(T: Any) -> dict[str, Any]:
    z = leaf(T, [1 + 2j, 3 - 1j], dtype="complex128")
    y = (z * z.conj()).real.sum() + z.abs().sum()
    y.backward()
    return {"y": y, "z": z}


@program
def int_input_gets_no_grad(T: Any) -> dict[str, Any]:
    x, i = leaf(T, [1.0, 2.0, 3.0]), T.tensor([2, 0, 1])
    y = x * i
    y.sum().backward()
    return {"y": y, "x": x, "i": i}


@program
def max_dim_multi_output(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    values, indices = x.max(1)
    (values * 2).sum().backward()
    return {"values": values, "indices": indices, "x": x}


@program
def split_multi_output(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    a, b = x.split([1, 2], dim=1)
    (a * 2 + b.sum(1, keepdim=True)).sum().backward()
    return {"a": a, "b": b, "x": x}


@program
def chunk_decomposes_to_split(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0, 3.0, 4.0])
    first, second = x.chunk(2)
    (first * second).sum().backward()
    return {"first": first, "second": second, "x": x}


@program
def matmul_matrix_vector(T: Any) -> dict[str, Any]:
    m, v = matrix(T, 2, 3), leaf(T, [1.0, 0.5, -1.0])
    y = T.matmul(m, v)
    y.sum().backward()
    return {"y": y, "m": m, "v": v}


@program
def softmax_by_hand(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    e = (x - x.amax(1, keepdim=True)).exp()
    p = e / e.sum(1, keepdim=True)
    (p * T.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=T.float64)).sum().backward()
    return {"p": p, "x": x}


@program
def transpose_then_reshape_copies(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    y = x.t().reshape(-1)
    (y * T.arange(6, dtype=T.float64)).sum().backward()
    return {"y": y, "x": x}


@program
def view_ops_chain(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 3)
    y = x.unsqueeze(0).permute(2, 0, 1).squeeze(1).expand(2, 3, 2)
    y.sum().backward()
    return {"y": y, "x": x}


@program
def inplace_on_non_leaf(T: Any) -> dict[str, Any]:
    x = leaf(T, [0.5, 1.0, 1.5])
    y = x * 1
    y.add_(1)
    y.exp_()
    y.sum().backward()
    return {"y": y, "x": x}


@program
def backward_with_explicit_gradient(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    y = x * 3
    y.backward(T.tensor([0.5, -1.0], dtype=T.float64))
    return {"y": y, "x": x}


@program
def gradients_accumulate_across_backwards(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    (x * 2).sum().backward()
    (x * x).sum().backward()
    return {"x": x}


@program
def shared_subexpression(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    y = x * x
    z = y + y * y
    z.sum().backward()
    return {"z": z, "x": x}


@program
def dtype_conversion(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    y = x.to(T.float32) * 2
    y.sum().backward()
    return {"y": y, "x": x}


@program
def retain_graph_keeps_saved_tensors(T: Any) -> dict[str, Any]:
    x = leaf(T, [1.0, 2.0])
    y = (x.sigmoid() * x).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    return {"y": y, "x": x}


@program
def masked_fill_and_clamp(T: Any) -> dict[str, Any]:
    x = leaf(T, [-1.0, 0.5, 2.0, 3.0])
    y = x.masked_fill(T.tensor([True, False, False, True]), 0.0).clamp(0.0, 1.0)
    (y * 2).sum().backward()
    return {"y": y, "x": x}


@program
def mlp_graph_before_backward(T: Any) -> dict[str, Any]:
    x, w, b = matrix(T, 2, 3), matrix(T, 3, 2), leaf(T, [0.5, -0.5])
    logits = T.addmm(b, x, w).clamp_min(0)
    loss = (logits.logsumexp(1) - logits.gather(1, T.tensor([[1], [0]])).squeeze(1)).mean()
    return {"loss": loss}


@program
def layer_norm_graph_before_backward(T: Any) -> dict[str, Any]:
    x = matrix(T, 2, 4)
    y = (x - x.mean(-1, keepdim=True)) / (x.var(-1, keepdim=True, correction=0) + 1e-5).sqrt()
    return {"y": y}
