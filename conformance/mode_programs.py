"""The mode corpus: programs, each written once and run with `lib` = torch and `lib` = refimpl,
whose every API call and aten call conformance/test_mode_corpus.py logs through a
TorchFunctionMode and a TorchDispatchMode and holds against torch's (issue 13).

A program is `(lib, t) -> result`, where `t = inputs(lib, requires_grad)` is made fresh for each
run: float64 operands (leaves that require grad in the second set), a bool mask and int64
indices. Programs that need a graph return early when their inputs carry none, so every
program runs on both sets. The corpus covers the Python operators on both sides of a scalar,
comparisons, unary and binary math, reductions, views, indexing and each form of setitem,
joins, the matmul family, in-place ops, copies and conversions, factories, compositions written
from primitives, and backward passes (an MLP, a cross-entropy, a layer norm, in-place and view
graphs), with hooks, retain_grad, autograd.grad and grad-mode blocks. New ops join it as later
issues add them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

# Programs use what every backend stores and computes (no float16, no erf or fmod, which the
# array-api-strict backend lacks), so the file runs on each CI backend.
Program = Callable[[Any, dict[str, Any]], Any]
LEAVES: Final = ("x", "y", "w", "v", "a")


def inputs(lib: Any, requires_grad: bool) -> dict[str, Any]:
    """x, y: (2, 3) (y positive); w: (3, 4); v: (3,); a: (2, 3, 4); a (2, 3) bool mask and
    int64 indices. The float64 ones are leaves that require grad when asked."""
    f64 = lib.float64
    t = {
        "x": lib.arange(6.0, dtype=f64).reshape(2, 3).sub(2.5),
        "y": lib.arange(6.0, dtype=f64).reshape(2, 3).div(3).add(0.5),
        "w": lib.arange(12.0, dtype=f64).reshape(3, 4).div(7).sub(0.75),
        "v": lib.tensor([0.5, -1.0, 2.0], dtype=f64),
        "a": lib.arange(24.0, dtype=f64).reshape(2, 3, 4).div(10).sub(1.1),
    }
    if requires_grad:
        for leaf in t.values():
            leaf.requires_grad_(True)
    return {**t, "mask": lib.arange(6).reshape(2, 3) % 2 == 0, "idx": lib.tensor([1, 0, 1])}


def grads(t: dict[str, Any]) -> list[Any]:
    """The leaves' .grad (None where a leaf took no part)."""
    return [t[k].grad for k in LEAVES]


def _with_backward(loss_of: Program) -> Program:
    """The program that computes `loss_of`'s scalar and, when it has a graph, backpropagates
    through it and returns the loss with the leaves' gradients."""

    def program(lib: Any, t: dict[str, Any]) -> Any:
        loss = loss_of(lib, t)
        if not loss.requires_grad:
            return loss
        loss.backward()
        return [loss, *grads(t)]

    return program


# --- operators and math ------------------------------------------------------------------------


def _scalar_operators(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return [2 + x, x + True, 2 - x, x - 0.5, 3 * x, x * 0.5, 1 / y, y / 4, 2**x, y**3, y**0.5]


def _floordiv_mod(lib: Any, t: dict[str, Any]) -> Any:
    y = t["y"]
    return [y // 0.4, 3 // y, y % 0.7, 5 % y, y.remainder(0.3), lib.remainder(y, 0.3)]


def _int_operators(lib: Any, t: dict[str, Any]) -> Any:
    i = t["idx"]
    return [i + 1, i * 2, i // 2, i % 2, i << 1, i >> 1, -i, i**2, i / 2, i & 1, i | 2, i ^ 3]


def _bool_operators(lib: Any, t: dict[str, Any]) -> Any:
    m, pos = t["mask"], t["x"] > 0
    return [m & pos, m | True, m ^ pos, ~m, m.logical_not(), lib.logical_xor(m, pos)]


def _compare(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return [x < 0, 0 < x, x >= y, x == 1.5, 2 != x, lib.eq(x, y), x.gt(y), lib.le(x, 0.5)]


def _scalar_conversions(lib: Any, t: dict[str, Any]) -> Any:
    s = t["x"].sum()
    return [float(s), int(t["idx"].sum()), t["x"][0, 0].item(), bool(s < 0), t["v"].tolist()]


def _properties(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [
        x.shape, x.size(), x.size(1), x.ndim, x.dim(), x.numel(), x.stride(),
        x.is_contiguous(), x.t().is_contiguous(), x.dtype, x.device,
        x.requires_grad, x.is_leaf, len(x), [list(r.shape) for r in x],
    ]


def _unary_exp_log(lib: Any, t: dict[str, Any]) -> Any:
    y = t["y"]
    return [y.exp(), lib.log(y), y.log1p(), y.expm1(), y.sqrt(), lib.rsqrt(y), y.log2(), y.exp2()]


def _unary_trig(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [x.sin(), lib.cos(x), x.tan(), x.tanh(), lib.sigmoid(x), x.asinh(), x.atan(), x.cosh()]


def _unary_rounding(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"] * 1.7
    return [z.floor(), z.ceil(), z.round(), lib.trunc(z), z.frac(), z.sign(), z.abs(), z.neg()]


def _binary_math(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return [
        lib.maximum(x, y), lib.minimum(x, 0.5 * y), lib.atan2(x, y), lib.hypot(x, y),
        x.copysign(y), lib.logaddexp(x, y), x.pow(2), lib.pow(2, x), y.reciprocal(), x.square(),
    ]


def _pointwise_ternary(lib: Any, t: dict[str, Any]) -> Any:
    x, y, v = t["x"], t["y"], t["v"]
    return [
        lib.addcmul(x, y, v, value=0.5), x.addcdiv(v, y, value=2), lib.lerp(x, y, 0.25),
        x.lerp(y, v.abs() / 2), lib.clamp(x, min=-y, max=y), x.clip(-1, 1),
        x.clamp_min(0.0), lib.clamp_max(x, v),
    ]


def _where(lib: Any, t: dict[str, Any]) -> Any:
    x, y, m = t["x"], t["y"], t["mask"]
    return [
        lib.where(x > 0, x, y), lib.where(m, x, 0.0), lib.where(m, 1.0, y),
        x.where(m, y), lib.where(x < y, 0.0, 1.0),
    ]


# --- reductions --------------------------------------------------------------------------------


def _sum_dims(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [
        x.sum((0, 1)), x.sum(dim=1, keepdim=True), x.sum(-1), lib.sum(x, 0, dtype=lib.float32),
        t["idx"].sum(), t["mask"].sum(), t["a"].sum((0, 2)), x.nansum(),
    ]


def _mean_prod(lib: Any, t: dict[str, Any]) -> Any:
    x, y, a = t["x"], t["y"], t["a"]
    return [x.mean(1, keepdim=True), lib.mean(a, (1, 2)), y.prod(), y.prod(0), a.mean(-1)]


def _max_min(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return [
        x.max(), tuple(x.max(1)), tuple(lib.min(x, 0, keepdim=True)), lib.max(x, y),
        x.amax((0, 1)), x.amin(1), tuple(lib.aminmax(x)),
    ]


def _var_std(lib: Any, t: dict[str, Any]) -> Any:
    x, a = t["x"], t["a"]
    return [
        x.var(0), x.var(1, unbiased=False), x.std(1, keepdim=True), x.var(correction=0),
        tuple(lib.var_mean(a, 2)), tuple(lib.std_mean(x)), a.std((0, 2)),
    ]


def _scans(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return [
        x.cumsum(1), lib.cumsum(x, 0, dtype=lib.float32), y.cumprod(1), tuple(x.cummax(1)),
        lib.logcumsumexp(x, 1), t["idx"].cumsum(0),
    ]


def _arg_reductions(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [
        x.argmax(), x.argmax(1), x.argmin(0, keepdim=True), lib.argmax(t["a"], -1),
        (x > 0).all(), t["mask"].any(1), lib.count_nonzero(t["mask"]),
    ]


def _norms(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [
        x.norm(), x.norm(p=1), lib.norm(x, dim=1), x.norm(2, 1, keepdim=True),
        lib.logsumexp(t["a"], (1, 2)), tuple(x.median(1)), lib.dist(x, t["y"]),
    ]


# --- views -------------------------------------------------------------------------------------


def _view_shapes(lib: Any, t: dict[str, Any]) -> Any:
    x, a = t["x"], t["a"]
    return [
        x.view(-1), x.view(3, 2), x.reshape(-1, 2), a.view(6, 4), x.view_as(t["y"]),
        a.reshape_as(a.flatten(1).t()), lib.reshape(x, (6,)), x.t().reshape(6),
    ]


def _dtype_views_and_data(lib: Any, t: dict[str, Any]) -> Any:
    # Non-differentiable aliases: a mode sees torch's shallow copies as aten.detach. (Views
    # as the same dtype: array-api-strict has no bitcast for another one.)
    x, i = t["x"], t["idx"]
    d = x.data
    d.mul_(1.0)
    return [x.view(lib.float64), i.view(lib.int64), d, d._version]


def _printing(lib: Any, t: dict[str, Any]) -> Any:
    # torch prints with every dispatch mode off: a mode sees none of the slices of a long
    # tensor, nor the clone of a conjugate view.
    z = lib.complex(t["x"].detach(), t["y"].detach()).conj()
    texts = [repr(t["x"] * 2), str(lib.arange(2000.0)), repr(z), repr(z.imag)]
    return [text.replace(f"{lib.__name__}.", "") for text in texts]  # dtype=float64


def _permutations(lib: Any, t: dict[str, Any]) -> Any:
    a = t["a"]
    return [
        a.permute(2, 0, 1), lib.permute(a, (1, 0, 2)), a.transpose(-1, -2), a.mT,
        a.movedim(0, -1), lib.swapaxes(a, 0, 2), lib.t(t["x"]),
    ]


def _squeeze_expand(lib: Any, t: dict[str, Any]) -> Any:
    x, v = t["x"], t["v"]
    return [
        x[:, None, :, None].squeeze(), x[None].squeeze(0), x.unsqueeze(-1), lib.unsqueeze(v, 0),
        v.expand(4, -1), v.expand_as(x), lib.broadcast_to(v, (2, 3)),
        lib.broadcast_tensors(x, v), lib.atleast_2d(v),
    ]


def _narrow_select(lib: Any, t: dict[str, Any]) -> Any:
    a = t["a"]
    return [
        a.narrow(2, 1, 2), lib.narrow(a, 0, 1, 1), a.select(1, 2), lib.select(a, -1, 0),
        a.flatten(1), a.flatten(0, 1), lib.flatten(a), a.unflatten(2, (2, 2)),
    ]


def _splits(lib: Any, t: dict[str, Any]) -> Any:
    a, x = t["a"], t["x"]
    return [
        a.split(3, 2), lib.split(a, [1, 3], 2), x.tensor_split(2, 1), a.chunk(3, -1),
        lib.unbind(a), a.unbind(2), x.split_with_sizes([2, 1], 1), lib.chunk(x, 2),
    ]


def _diagonals(lib: Any, t: dict[str, Any]) -> Any:
    w, a = t["w"], t["a"]
    return [
        w.diagonal(), w.diagonal(1), lib.diagonal(a, 0, 1, 2), lib.diag(t["v"]), w.diag(-1),
        lib.trace(w), w.tril(), lib.triu(w, 1),
    ]


# --- indexing and setitem ----------------------------------------------------------------------


def _getitem_basic(lib: Any, t: dict[str, Any]) -> Any:
    x, a = t["x"], t["a"]
    return [
        x[-1], x[:, ::2], x[1, 2], x[..., 1], x[None, :, None], a[0, ..., 1:3], a[:, -1],
        a[1:, None, ::3], x[()],
    ]


def _getitem_advanced(lib: Any, t: dict[str, Any]) -> Any:
    x, a, i = t["x"], t["a"], t["idx"]
    return [
        x[i], x[[1, 0]], x[[0, 1], [2, 0]], x[0, i], x[:, [True, False, True]], a[:, i, 1:],
        a[i[:2], :, i[:2] + 1], a[..., i],
    ]


def _getitem_masks(lib: Any, t: dict[str, Any]) -> Any:
    x, m, a = t["x"], t["mask"], t["a"]
    return [x[m], x[x > 0], x[m[:, 0]], a[m], a[:, m[0]], x[~m]]


def _setitem_basic(lib: Any, t: dict[str, Any]) -> Any:
    z = t["a"].clone()
    z[0] = 1.0
    z[..., 0] = 5
    z[1, 2, 3] = -1
    z[:, ::2] = 0.0
    z[1:, :, 1:3] = t["x"][:1, :, None]
    z[None, 0, 1] = t["w"][0]
    return z


def _setitem_tensor_values(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[:] = t["v"]
    z[0] = t["y"][1]
    z[1, :2] = lib.tensor(7.0, dtype=lib.float64)
    return z


def _setitem_advanced(lib: Any, t: dict[str, Any]) -> Any:
    z, i = t["x"].clone(), t["idx"]
    z[[0, 1], [2, 0]] = 7.0
    z[i[:2]] = t["v"]
    z[0, i] = t["y"][0]
    z[:, [True, False, True]] = -3.0
    return z


def _setitem_masks(lib: Any, t: dict[str, Any]) -> Any:
    z, m = t["x"].clone(), t["mask"]
    z[m] = t["y"][m]
    z[z > 1] = 0.0
    z[m[:, 0]] = 4.0
    return z


def _index_family(lib: Any, t: dict[str, Any]) -> Any:
    x, y, i = t["x"], t["y"], t["idx"]
    return [
        x.index_select(1, i), lib.index_select(x, 0, i[:1]), x.index_add(1, i, y),
        x.index_fill(1, i, -1.0), x.index_copy(0, i[:2], y), lib.take(x, i),
        x.index_put((i[:2], i[1:]), lib.tensor(9.0, dtype=lib.float64)),
        x.clone().index_put_((i,), y[0, 0], accumulate=True),
    ]


def _gather_scatter(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    g = lib.tensor([[0, 2], [1, 1]])
    return [
        x.gather(1, g), lib.gather(x, 0, g[:1] % 2), x.scatter(1, g, y), x.scatter(1, g, 2.5),
        lib.scatter_add(x, 1, g, y), x.scatter_reduce(1, g, y, "amax"),
        lib.take_along_dim(x, g, 1),
    ]


def _masking(lib: Any, t: dict[str, Any]) -> Any:
    x, m = t["x"], t["mask"]
    return [
        x.masked_fill(m, 0.0), lib.masked_fill(x, ~m, lib.tensor(-1.0, dtype=lib.float64)),
        x.masked_select(m), x.masked_scatter(m, t["y"]), lib.masked_select(x, x > 0),
    ]


# --- joins and products -----------------------------------------------------------------------


def _joins(lib: Any, t: dict[str, Any]) -> Any:
    x, y, v = t["x"], t["y"], t["v"]
    return [
        lib.cat([x, y, x], -1), lib.cat((x[0:1], y)), lib.concat([x, y], 1), lib.stack([x, y], 1),
        lib.stack((v, v), -1), lib.hstack([v, v]), lib.vstack([x, v]), lib.dstack([x, y]),
        lib.column_stack([x.t(), v]),
    ]


def _matmul_shapes(lib: Any, t: dict[str, Any]) -> Any:
    x, w, v, a = t["x"], t["w"], t["v"], t["a"]
    return [
        a @ a.mT, x @ a, a @ w.t(), v @ x.t(), x @ v, lib.matmul(a, w[0]), w.t() @ x.t(),
    ]


def _products(lib: Any, t: dict[str, Any]) -> Any:
    x, w, v, a = t["x"], t["w"], t["v"], t["a"]
    return [
        lib.mm(x, w), x.mv(v), lib.dot(v, v), lib.outer(v, w[0]), lib.inner(x, v),
        lib.bmm(a, a.mT), lib.addmv(t["v"], x.t(), x[:, 0]), lib.addr(x, x[0].neg()[:2], v),
        lib.baddbmm(a, a, a.mT @ a, beta=0.5, alpha=2), x.addmm(x, w[:, :3], alpha=0.5),
    ]


def _einsums(lib: Any, t: dict[str, Any]) -> Any:
    x, y, w, v, a = t["x"], t["y"], t["w"], t["v"], t["a"]
    return [
        lib.einsum("bij,bjk->bik", a, a.mT), lib.einsum("ij->ji", x), lib.einsum("ij,ij->", x, y),
        lib.einsum("i,j->ij", v, v), lib.einsum("ij,jk", x, w), lib.einsum("bij->j", a),
        lib.tensordot(a, w, ([1], [0])),
    ]


# --- in-place, copies, conversions, factories ---------------------------------------------------


def _inplace_unary(lib: Any, t: dict[str, Any]) -> Any:
    z = t["y"].clone()
    z.exp_().log_().sqrt_().neg_().abs_()
    w = t["x"].clone().sigmoid_().mul_(3).floor_()
    return [z, w]


def _inplace_binary(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z.add_(t["v"]).sub_(1, alpha=2).mul_(2).div_(t["y"]).pow_(2).clamp_(max=3.0)
    u = t["x"].clone().fill_(2.0)
    u.addcmul_(t["y"], t["y"], value=0.5).lerp_(t["x"], 0.5)
    return [z, u, t["x"].clone().zero_(), t["x"].clone().masked_fill_(t["mask"], 1.0)]


def _augmented_assignment(lib: Any, t: dict[str, Any]) -> Any:
    z, i, m = t["y"].clone(), t["idx"].clone(), t["mask"].clone()
    z += t["v"]
    z -= 1
    z *= 2.5
    z /= t["y"]
    z **= 2
    z //= 0.5
    z %= 3
    i <<= 1
    i >>= 1
    i += 2
    i *= 3
    m &= t["x"] > -1
    m |= t["x"] > 2
    m ^= t["mask"]
    return [z, i, m]


def _inplace_views(lib: Any, t: dict[str, Any]) -> Any:
    z = t["a"].clone()
    z[:, 1].zero_()
    z[0].diagonal().fill_(1.0)
    z.view(-1)[::5] += 1
    z.transpose(0, 2)[1] *= -1
    z.select(2, 3).copy_(t["x"])
    z[1].select(0, 2).add_(2)
    return z


def _copies(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    z = lib.zeros(2, 3, dtype=lib.float64)
    z.copy_(t["y"])
    z[0].copy_(t["v"])
    return [
        x.clone(), lib.clone(x), x.detach(), x.t().contiguous(), x.contiguous(), z,
        lib.detach(x).requires_grad, x.t().clone().stride(),
    ]


def _conversions(lib: Any, t: dict[str, Any]) -> Any:
    x, i, m = t["x"], t["idx"], t["mask"]
    return [
        x.to(lib.float32), x.to(t["y"]), x.to("cpu"), x.to(dtype=lib.float64, copy=True),
        x.double(), x.float(), x.long(), x.bool(), i.double(), m.int(), x.to(lib.int32),
        x.type(lib.float32), x.short().dtype, m.to(x.dtype), i.type_as(x),
    ]


def _factories(lib: Any, t: dict[str, Any]) -> Any:
    return [
        lib.zeros(2, 3, dtype=lib.int64), lib.ones((2,)), lib.full((2, 2), 3),
        lib.full((2,), 1.5), lib.arange(1, 5, 0.5), lib.arange(5), lib.linspace(0, 1, 5),
        lib.eye(3), lib.eye(2, 3), lib.empty(2, 3).shape, lib.tensor(3.0),
        lib.tensor([[1, 2], [3, 4]]), lib.scalar_tensor(2), lib.tensor([True, False]),
    ]


def _like_factories(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    return [
        lib.zeros_like(x), lib.ones_like(x, dtype=lib.int32), lib.full_like(x, 7),
        lib.empty_like(x).shape, x.new_zeros(2), x.new_ones((1, 2)), x.new_full((2,), 4.0),
        x.new_tensor([1.0, 2.0]), x.new_empty(3).shape, lib.zeros_like(t["idx"]),
    ]


# --- compositions ------------------------------------------------------------------------------


def _softmax(lib: Any, t: dict[str, Any]) -> Any:
    x = t["a"]
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def _gelu_like(lib: Any, t: dict[str, Any]) -> Any:
    x = t["a"]
    return 0.5 * x * (1 + lib.tanh(0.7978845608 * (x + 0.044715 * x**3)))


# --- losses (scalars) for backward passes -------------------------------------------------------


def _loss_scalar_ops(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return ((2 - x * 3 / y) ** 2 + 1 / y - y**0.5).sum()


def _loss_reductions(lib: Any, t: dict[str, Any]) -> Any:
    x, a = t["x"], t["a"]
    return x.sum(0).prod() + x.mean(1).sum() + x.std() + a.amax(1).sum() + a.var(2).mean()


def _loss_broadcast(lib: Any, t: dict[str, Any]) -> Any:
    x, v, a = t["x"], t["v"], t["a"]
    return ((x + v) * v).sum() + (a * t["w"][0]).mean() + (x[:, :, None] - a).abs().sum()


def _loss_matmul(lib: Any, t: dict[str, Any]) -> Any:
    x, w, v, a = t["x"], t["w"], t["v"], t["a"]
    return (a @ a.mT).sum() + (x @ a).mean() + (x @ v).sum() + (v @ w).sum() + lib.dot(v, v)


def _loss_einsum(lib: Any, t: dict[str, Any]) -> Any:
    return lib.einsum("bij,jk->bik", t["a"].mT, t["w"]).pow(2).sum()


def _loss_indexing(lib: Any, t: dict[str, Any]) -> Any:
    x, i, m, a = t["x"], t["idx"], t["mask"], t["a"]
    return x[i].sum() + x[m].sum() * 2 + x[:, i].prod() + a[0, ..., 1:3].sum() + a[:, i, 0].sum()


def _loss_setitem(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"] * 1
    z[0] = t["y"][1]
    z[:, 1] = 0.0
    z[t["mask"]] = t["v"].sum()
    z[t["idx"][:2], 2] = t["v"][:2]
    return (z * t["y"]).sum()


def _loss_gather_scatter(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    g = lib.tensor([[0, 2], [1, 1]])
    gathered = (x.gather(1, g) * 2).sum()
    scattered = x.scatter_add(1, g, y[:, :2]).pow(2).sum()
    return gathered + scattered + x.index_select(1, t["idx"]).sum()


def _loss_mlp(lib: Any, t: dict[str, Any]) -> Any:
    x, w, v = t["x"], t["w"], t["v"]
    hidden = lib.addmm(w[0], x, w).tanh()
    out = lib.mm(hidden, w.t()) + v
    return ((out - t["y"]) ** 2).mean()


def _loss_cross_entropy(lib: Any, t: dict[str, Any]) -> Any:
    logits = t["a"].reshape(6, 4) @ t["w"].t()
    target = lib.tensor([0, 2, 1, 1, 0, 2])
    log_probs = logits - lib.logsumexp(logits, 1, keepdim=True)
    return -log_probs.gather(1, target.unsqueeze(1)).squeeze(1).mean()


def _loss_layer_norm(lib: Any, t: dict[str, Any]) -> Any:
    a = t["a"]
    mean = a.mean(-1, keepdim=True)
    var = a.var(-1, unbiased=False, keepdim=True)
    normed = (a - mean) / (var + 1e-5).sqrt()
    return (normed * t["w"][1] + t["w"][2]).pow(2).sum()


def _loss_inplace(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"] * 1
    z.mul_(t["y"]).add_(t["v"]).sin_()
    z += 1
    z.clamp_(max=1.5)
    return z.exp().sum()


def _loss_inplace_views(lib: Any, t: dict[str, Any]) -> Any:
    z = t["a"].clone()
    z[0].mul_(2)
    z.transpose(1, 2)[1].add_(t["v"])
    z[:, 1].copy_(t["w"][:2])
    return (z * z).sum()


def _loss_joins(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    c = lib.cat([x, y * 2], 1)
    s = lib.stack([x, y]).sum(0)
    p, q = c.split([2, 4], 1)
    return (p.sum() + q.mean()) * s.max() + lib.hstack([x[0], t["v"]]).norm()


def _loss_where_clamp(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    return (lib.where(x > 0, x * y, -y).sum() + x.clamp(-1, 1).sum() + x.abs().max()
            + lib.maximum(x, y).sum() + x.masked_fill(t["mask"], 0.0).sum())


def _loss_views(lib: Any, t: dict[str, Any]) -> Any:
    a = t["a"]
    parts = a.permute(2, 0, 1).unbind(0)
    unbound = (parts[1] * parts[3]).sum()
    viewed = a.view(6, 4).t()[1:].sum() + a.expand(3, 2, 3, 4).mean()
    return unbound + viewed + a.diagonal(0, 1, 2).sum()


# --- autograd programs -------------------------------------------------------------------------


def _backward_nonscalar(lib: Any, t: dict[str, Any]) -> Any:
    out = t["x"] * t["y"] + t["v"]
    if not out.requires_grad:
        return out
    out.backward(lib.ones_like(out) * 0.5)
    return grads(t)


def _backward_twice(lib: Any, t: dict[str, Any]) -> Any:
    loss = (t["x"].exp() * t["y"]).sum()
    if not loss.requires_grad:
        return loss
    loss.backward(retain_graph=True)
    loss.backward()
    return grads(t)


def _sgd_step(lib: Any, t: dict[str, Any]) -> Any:
    """Two steps of gradient descent on an MLP, updating the leaves under no_grad."""
    params = [t["w"], t["v"]]
    losses = []
    for _ in range(2):
        loss = _loss_mlp(lib, t)
        losses.append(loss.detach())
        if not loss.requires_grad:
            break
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad.zero_()
    return [losses, *params]


def _retain_grad(lib: Any, t: dict[str, Any]) -> Any:
    h = t["x"] * t["y"]
    g = h.exp()
    if not g.requires_grad:
        return g
    h.retain_grad()
    g.retain_grad()
    (g * t["v"]).sum().backward()
    return [h.grad, g.grad, h.is_leaf, g.retains_grad, *grads(t)]


def _hooks(lib: Any, t: dict[str, Any]) -> Any:
    h = t["x"] * 3
    if not h.requires_grad:
        return h
    seen = []
    h.register_hook(lambda g: g * 2)
    t["x"].register_hook(lambda g: seen.append(g.sum().item()))
    handle = t["y"].register_hook(lambda g: g + 1)
    handle.remove()
    (h * t["y"]).sum().backward()
    return [seen, *grads(t)]


def _autograd_grad(lib: Any, t: dict[str, Any]) -> Any:
    out = t["x"] * t["y"] + t["a"][:, 0, :3]
    if not out.requires_grad:
        return out
    first = lib.autograd.grad(out, [t["x"], t["y"]], grad_outputs=lib.ones_like(out) * 2,
                              retain_graph=True)
    unused = lib.autograd.grad(out.sum(), [t["x"], t["w"]], allow_unused=True)
    return [first, unused]


def _double_backward(lib: Any, t: dict[str, Any]) -> Any:
    out = (t["x"] ** 3).sum()
    if not out.requires_grad:
        return out
    (g,) = lib.autograd.grad(out, t["x"], create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), t["x"])
    return [g, gg]


def _grad_modes(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    with lib.no_grad():
        a = x * 2
        with lib.enable_grad():
            b = x * y
    with lib.set_grad_enabled(False):
        c = x + 1
    d = x.detach() * y
    return [a, b, c, d, lib.is_grad_enabled(), a.requires_grad, b.requires_grad]


def _graph_attributes(lib: Any, t: dict[str, Any]) -> Any:
    h = (t["x"] * t["y"]).sum(1)
    node = h.grad_fn
    if node is None:
        return [h.is_leaf, h.requires_grad]
    inputs = [type(n).__name__ for n, _ in node.next_functions]
    return [h.is_leaf, h.requires_grad, node.name(), inputs]


def _detach_in_graph(lib: Any, t: dict[str, Any]) -> Any:
    x, y = t["x"], t["y"]
    loss = (x.detach() * y).sum() + (x * y.detach().clone()).sum()
    if not loss.requires_grad:
        return loss
    loss.backward()
    return grads(t)


def _fresh_leaf(lib: Any, t: dict[str, Any]) -> Any:
    """A leaf made inside the program, so the plain set takes a graph too."""
    p = lib.ones(3, dtype=lib.float64, requires_grad=True)
    q = lib.zeros(2, 3, dtype=lib.float64).requires_grad_()
    loss = ((t["x"] * p + q) ** 2).sum()
    loss.backward()
    return [loss, p.grad, q.grad, p.is_leaf]


PROGRAMS: Final[dict[str, Program]] = {
    # operators and math
    "scalar_operators": _scalar_operators,
    "floordiv_mod": _floordiv_mod,
    "int_operators": _int_operators,
    "bool_operators": _bool_operators,
    "compare": _compare,
    "scalar_conversions": _scalar_conversions,
    "properties": _properties,
    "unary_exp_log": _unary_exp_log,
    "unary_trig": _unary_trig,
    "unary_rounding": _unary_rounding,
    "binary_math": _binary_math,
    "pointwise_ternary": _pointwise_ternary,
    "where": _where,
    # reductions
    "sum_dims": _sum_dims,
    "mean_prod": _mean_prod,
    "max_min": _max_min,
    "var_std": _var_std,
    "scans": _scans,
    "arg_reductions": _arg_reductions,
    "norms": _norms,
    # views
    "view_shapes": _view_shapes,
    "dtype_views_and_data": _dtype_views_and_data,
    "printing": _printing,
    "permutations": _permutations,
    "squeeze_expand": _squeeze_expand,
    "narrow_select": _narrow_select,
    "splits": _splits,
    "diagonals": _diagonals,
    # indexing and setitem
    "getitem_basic": _getitem_basic,
    "getitem_advanced": _getitem_advanced,
    "getitem_masks": _getitem_masks,
    "setitem_basic": _setitem_basic,
    "setitem_tensor_values": _setitem_tensor_values,
    "setitem_advanced": _setitem_advanced,
    "setitem_masks": _setitem_masks,
    "index_family": _index_family,
    "gather_scatter": _gather_scatter,
    "masking": _masking,
    # joins and products
    "joins": _joins,
    "matmul_shapes": _matmul_shapes,
    "products": _products,
    "einsums": _einsums,
    # in-place, copies, conversions, factories
    "inplace_unary": _inplace_unary,
    "inplace_binary": _inplace_binary,
    "augmented_assignment": _augmented_assignment,
    "inplace_views": _inplace_views,
    "copies": _copies,
    "conversions": _conversions,
    "factories": _factories,
    "like_factories": _like_factories,
    # compositions
    "softmax": _softmax,
    "log_softmax": lambda lib, t: t["x"] - lib.logsumexp(t["x"], 0, keepdim=True),
    "gelu_like": _gelu_like,
    "normalize": lambda lib, t: t["x"] / t["x"].norm(dim=1, keepdim=True).clamp_min(1e-12),
    # backward passes
    "backward_scalar_ops": _with_backward(_loss_scalar_ops),
    "backward_reductions": _with_backward(_loss_reductions),
    "backward_broadcast": _with_backward(_loss_broadcast),
    "backward_matmul": _with_backward(_loss_matmul),
    "backward_einsum": _with_backward(_loss_einsum),
    "backward_indexing": _with_backward(_loss_indexing),
    "backward_setitem": _with_backward(_loss_setitem),
    "backward_gather_scatter": _with_backward(_loss_gather_scatter),
    "backward_mlp": _with_backward(_loss_mlp),
    "backward_cross_entropy": _with_backward(_loss_cross_entropy),
    "backward_layer_norm": _with_backward(_loss_layer_norm),
    "backward_inplace": _with_backward(_loss_inplace),
    "backward_inplace_views": _with_backward(_loss_inplace_views),
    "backward_joins": _with_backward(_loss_joins),
    "backward_where_clamp": _with_backward(_loss_where_clamp),
    "backward_views": _with_backward(_loss_views),
    "backward_nonscalar": _backward_nonscalar,
    "backward_twice": _backward_twice,
    "sgd_step": _sgd_step,
    # autograd
    "retain_grad": _retain_grad,
    "hooks": _hooks,
    "autograd_grad": _autograd_grad,
    "double_backward": _double_backward,
    "grad_modes": _grad_modes,
    "graph_attributes": _graph_attributes,
    "detach_in_graph": _detach_in_graph,
    "fresh_leaf": _fresh_leaf,
}
