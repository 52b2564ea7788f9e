"""A corpus of small programs, each written once and run with `lib` = torch and `lib` = refimpl,
for the tests that compare what torch's extension points see (conformance/test_corpus_modes.py).

Each program takes the library and a dict of fresh inputs (`inputs(lib, requires_grad)`) and
returns what it computed. New ops join the corpus as later issues add them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

Program = Callable[[Any, dict[str, Any]], Any]


def inputs(lib: Any, requires_grad: bool) -> dict[str, Any]:
    """float64 operands (requiring grad or not), a mask and an index tensor."""
    f64 = lib.float64
    x = lib.arange(6.0, dtype=f64).reshape(2, 3).sub(2.5)
    y = lib.arange(6.0, dtype=f64).reshape(2, 3).div(3).add(0.5)
    w = lib.arange(12.0, dtype=f64).reshape(3, 4).div(7)
    v = lib.arange(3.0, dtype=f64).add(1)
    if requires_grad:
        for t in (x, y, w, v):
            t.requires_grad_(True)
    return {
        "x": x,
        "y": y,
        "w": w,
        "v": v,
        "mask": lib.arange(6).reshape(2, 3) % 2 == 0,
        "idx": lib.tensor([1, 0, 1]),
    }


def _setitem_int(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[0] = 1.0
    return z


def _setitem_slice(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[:, 1] = t["v"][:2]
    return z


def _setitem_mask(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[t["mask"]] = 0.0
    return z


def _setitem_index(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[:, t["idx"][:2]] = 2.0
    return z


def _inplace_chain(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z.add_(1).mul_(t["y"]).clamp_(min=0.0)
    return z


def _augmented(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z += 1
    z *= t["y"]
    z -= 0.5
    z /= 2
    return z


def _inplace_view(lib: Any, t: dict[str, Any]) -> Any:
    z = t["x"].clone()
    z[0].mul_(2)
    z.t()[1].add_(1)
    return z


def _backward(loss_of: Callable[[Any, dict[str, Any]], Any]) -> Program:
    def program(lib: Any, t: dict[str, Any]) -> Any:
        loss = loss_of(lib, t)
        if not loss.requires_grad:
            return loss
        loss.backward()
        return [loss, *(t[k].grad for k in ("x", "y", "w", "v"))]

    return program


def _mlp(lib: Any, t: dict[str, Any]) -> Any:
    hidden = lib.clamp(t["x"] @ t["w"], min=0.0)
    logits = hidden @ t["w"].t()
    target = lib.tensor([0, 2])
    log_probs = logits - lib.logsumexp(logits, 1, keepdim=True)
    return -lib.gather(log_probs, 1, target.unsqueeze(1)).mean()


def _layer_norm(lib: Any, t: dict[str, Any]) -> Any:
    x = t["x"]
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return ((x - mean) / lib.sqrt(var + 1e-5) * t["v"]).sum()


def _softmax_from_primitives(lib: Any, t: dict[str, Any]) -> Any:
    e = (t["x"] - t["x"].amax(1, keepdim=True)).exp()
    return e / e.sum(1, keepdim=True)


def _autograd_grad(lib: Any, t: dict[str, Any]) -> Any:
    out = (t["x"] * t["y"]).sum()
    if not out.requires_grad:
        return out
    return lib.autograd.grad(out, [t["x"], t["y"]])


def _retain_grad(lib: Any, t: dict[str, Any]) -> Any:
    h = t["x"] * 2
    if not h.requires_grad:
        return h
    h.retain_grad()
    h.sum().backward()
    return [h.grad, t["x"].grad]


def _no_grad_block(lib: Any, t: dict[str, Any]) -> Any:
    with lib.no_grad():
        z = t["x"] * 2
    return z + t["y"]


def _hook(lib: Any, t: dict[str, Any]) -> Any:
    h = t["x"] * 3
    if not h.requires_grad:
        return h
    h.register_hook(lambda g: g * 2)
    h.sum().backward()
    return t["x"].grad


# --- the functional layer (issue 15) -----------------------------------------------------------


def _image(t: dict[str, Any]) -> Any:
    # (1, 1, 3, 4): a one-channel image from the (3, 4) weight.
    return t["w"].reshape(1, 1, 3, 4)


def _batch_norm(lib: Any, t: dict[str, Any]) -> Any:
    f64 = lib.float64
    running_mean, running_var = lib.zeros(3, dtype=f64), lib.ones(3, dtype=f64)
    out = lib.nn.functional.batch_norm(
        t["x"], running_mean, running_var, t["v"], t["v"], training=True, momentum=0.2
    )
    return [out, running_mean, running_var]


def _dropout(lib: Any, t: dict[str, Any]) -> Any:
    lib.manual_seed(0)
    return lib.nn.functional.dropout(t["x"], 0.5)


def _attention(lib: Any, t: dict[str, Any]) -> Any:
    # (1, 1, 2, 3) query, key and value: 4-D, so torch's CPU choice is its flash kernel.
    q, k = t["x"][None, None], t["y"][None, None]
    return lib.nn.functional.scaled_dot_product_attention(q, k, k)


FUNCTIONAL: Final[dict[str, Program]] = {
    "F_linear": lambda lib, t: lib.nn.functional.linear(t["x"], t["w"].t(), t["w"][0]),
    "F_layer_norm": lambda lib, t: lib.nn.functional.layer_norm(t["x"], [3], t["v"], t["v"]),
    "F_softmax": lambda lib, t: [
        lib.nn.functional.softmax(t["x"], 1), lib.nn.functional.log_softmax(t["x"], -1)
    ],
    "F_cross_entropy": lambda lib, t: lib.nn.functional.cross_entropy(
        t["x"], lib.tensor([0, 2])
    ),
    "F_dropout": _dropout,
    "F_gelu": lambda lib, t: [
        lib.nn.functional.gelu(t["x"]), lib.nn.functional.gelu(t["x"], approximate="tanh")
    ],
    "F_embedding": lambda lib, t: lib.nn.functional.embedding(t["idx"], t["w"]),
    "F_conv2d": lambda lib, t: lib.nn.functional.conv2d(
        _image(t), t["x"].reshape(1, 1, 2, 3), padding=1
    ),
    "F_max_pool2d": lambda lib, t: lib.nn.functional.max_pool2d(_image(t), 2, 1),
    "F_batch_norm": _batch_norm,
    "F_attention": _attention,
}
for _name, _program in list(FUNCTIONAL.items()):
    FUNCTIONAL[f"backward_{_name}"] = _backward(
        lambda lib, t, _program=_program: _total(lib, _program(lib, t))
    )


def _total(lib: Any, result: Any) -> Any:
    # One scalar from a program's result (only its tensors of a float dtype that can carry
    # gradients: running statistics are buffers).
    values = result if isinstance(result, list) else [result]
    return lib.stack([v.sum() for v in values if v.requires_grad]).sum() if any(
        v.requires_grad for v in values
    ) else values[0].sum()


PROGRAMS: Final[dict[str, Program]] = {
    # arithmetic with Python scalars, both sides
    "add_scalar": lambda lib, t: [t["x"] + 1, 1 + t["x"], t["x"] + 1.5],
    "sub_scalar": lambda lib, t: [t["x"] - 1, 1 - t["x"]],
    "mul_div_scalar": lambda lib, t: [t["x"] * 2, 2 * t["x"], t["x"] / 2, 2 / t["y"]],
    "pow_scalar": lambda lib, t: [t["y"] ** 2, 2 ** t["x"], t["y"] ** 0.5],
    "floordiv_mod": lambda lib, t: [t["y"] // 0.5, t["y"] % 0.5],
    "neg_abs": lambda lib, t: [-t["x"], abs(t["x"]), +t["x"]],
    # tensor arithmetic
    "tensor_arith": lambda lib, t: [t["x"] * t["y"] - t["y"], t["x"] / t["y"]],
    "add_alpha": lambda lib, t: [lib.add(t["x"], t["y"], alpha=2), lib.sub(t["x"], t["y"], alpha=3)],
    "broadcast": lambda lib, t: [t["x"] + t["v"], t["x"] * t["v"][None]],
    "unary_math": lambda lib, t: [t["y"].exp(), t["y"].log(), t["y"].sqrt(), lib.sin(t["x"]), lib.tanh(t["x"])],
    "compare": lambda lib, t: [t["x"] > 0, t["x"] == t["y"], t["x"] <= t["y"], t["x"] != 1],
    "clamp": lambda lib, t: [lib.clamp(t["x"], 0, 1), t["x"].clamp(min=-1.0), t["x"].clamp_max(0.5)],
    "logical": lambda lib, t: [t["mask"] & (t["x"] > 0), t["mask"] | t["mask"], ~t["mask"]],
    # reductions
    "sum": lambda lib, t: [t["x"].sum(), t["x"].sum(0), t["x"].sum(1, keepdim=True)],
    "mean_var_std": lambda lib, t: [t["x"].mean(), t["x"].var(1), t["x"].std()],
    "amax_max": lambda lib, t: [t["x"].amax(1), t["x"].max(), t["x"].min(0)],
    "argmax_prod": lambda lib, t: [t["x"].argmax(), t["x"].argmin(1), t["y"].prod(1)],
    "cumsum_logsumexp": lambda lib, t: [t["x"].cumsum(1), lib.logsumexp(t["x"], 1)],
    "norm": lambda lib, t: [t["x"].norm(), lib.norm(t["x"], 1)],
    # views
    "view_reshape": lambda lib, t: [t["x"].view(6), t["x"].reshape(3, 2), t["x"].flatten()],
    "transpose": lambda lib, t: [t["x"].t(), t["x"].transpose(0, 1), t["x"].permute(1, 0), t["x"].T],
    "unsqueeze_squeeze": lambda lib, t: [t["x"].unsqueeze(0), t["x"][None].squeeze(0), t["v"].unsqueeze(1)],
    "expand": lambda lib, t: [t["v"].expand(2, 3), t["x"][:1].expand(4, 3)],
    "narrow_diagonal": lambda lib, t: [t["x"].narrow(1, 1, 2), t["x"].diagonal()],
    "split_unbind": lambda lib, t: [t["x"].split(1), t["x"].unbind(1), t["x"].chunk(3, 1)],
    # indexing
    "getitem_basic": lambda lib, t: [t["x"][0], t["x"][:, 1], t["x"][1:], t["x"][..., None]],
    "getitem_mask": lambda lib, t: [t["x"][t["mask"]]],
    "getitem_index": lambda lib, t: [t["x"][:, t["idx"]], t["x"][[0, 1]]],
    "index_select_gather": lambda lib, t: [
        t["x"].index_select(1, t["idx"]),
        lib.gather(t["x"], 1, t["idx"][:2].unsqueeze(1)),
    ],
    "masked_fill": lambda lib, t: [t["x"].masked_fill(t["mask"], 0.0)],
    "setitem_int": _setitem_int,
    "setitem_slice": _setitem_slice,
    "setitem_mask": _setitem_mask,
    "setitem_index": _setitem_index,
    # where, joins
    "where": lambda lib, t: [lib.where(t["x"] > 0, t["x"], t["y"]), lib.where(t["mask"], t["x"], 0.0)],
    "cat": lambda lib, t: [lib.cat([t["x"], t["y"]]), lib.cat([t["x"], t["y"]], 1)],
    "stack": lambda lib, t: [lib.stack([t["x"], t["y"]]), lib.hstack([t["x"], t["y"]])],
    # matmul family
    "matmul": lambda lib, t: [t["x"] @ t["w"], t["x"] @ t["v"], t["v"] @ t["v"]],
    "mm_mv_dot": lambda lib, t: [lib.mm(t["x"], t["w"]), lib.mv(t["x"], t["v"]), lib.dot(t["v"], t["v"])],
    "bmm_einsum": lambda lib, t: [
        lib.bmm(t["x"][None], t["w"][None]),
        lib.einsum("ij,jk->ik", t["x"], t["w"]),
    ],
    "addmm": lambda lib, t: [lib.addmm(t["w"][0], t["x"], t["w"])],
    # in-place
    "inplace_chain": _inplace_chain,
    "augmented": _augmented,
    "inplace_view": _inplace_view,
    # copies, conversions, factories
    "clone_detach": lambda lib, t: [t["x"].clone(), t["x"].detach(), t["x"].contiguous()],
    "to_dtype": lambda lib, t: [t["x"].to(lib.float32), t["x"].float(), t["x"].int()],
    "factories": lambda lib, t: [lib.zeros(2, 3), lib.ones(3), lib.full((2,), 1.5), lib.arange(4)],
    "like": lambda lib, t: [lib.zeros_like(t["x"]), lib.ones_like(t["x"]), lib.empty_like(t["x"]).shape],
    "tensor_literal": lambda lib, t: [lib.tensor([1.0, 2.0]) + t["v"][:2]],
    # compositions
    "softmax_from_primitives": _softmax_from_primitives,
    # autograd
    "backward_simple": _backward(lambda lib, t: ((t["x"] * t["y"] + 1).exp() @ t["w"]).sum()),
    "backward_views": _backward(lambda lib, t: (t["x"].t()[1:] * 2).sum() + (t["x"][0] * t["v"]).mean()),
    "backward_mlp": _backward(_mlp),
    "backward_layer_norm": _backward(_layer_norm),
    "backward_where_cat": _backward(
        lambda lib, t: lib.where(t["x"] > 0, t["x"], t["y"]).sum() + lib.cat([t["x"], t["y"]]).amax()
    ),
    "autograd_grad": _autograd_grad,
    "retain_grad": _retain_grad,
    "no_grad_block": _no_grad_block,
    "hook": _hook,
    **FUNCTIONAL,
}
