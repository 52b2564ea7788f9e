"""The margin and embedding losses, ctc_loss and the distances against torch, for what their
OpInfos leave out: every reduction and the legacy size_average/reduce pair (with torch's
warnings), non-contiguous inputs, gradients, the aten ops a TorchDispatchMode sees forward
and backward, torch's errors, out= forms, meta tensors and the aten ops these functions
reach directly (_pdist_forward/_pdist_backward, multilabel_margin_loss_forward, _ctc_loss,
_ctc_loss_backward).

Each case runs the same call in both libraries on the same inputs (drawn once from a seeded
torch generator); the outcome must match: the exception (type and message), or the
result's dtype, shape, strides and values, and the gradients of the inputs that require one.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import refimpl
import refimpl.nn.functional as RF
from conformance._mode_logs import aten_calls
from conformance._oracle import outcome

Call = Callable[[Any, Any, dict[str, Any]], Any]
"""A case: `call(lib, F, inputs)` with the library, its torch.nn.functional, its inputs."""

_TOL = {torch.float32: 2e-5, torch.float64: 1e-10, torch.float16: 2e-3}


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _inputs(seed: int = 0, dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    """The tensors the cases use, drawn once (float ones require grad where the case asks)."""
    g = _generator(seed)
    log_probs = torch.randn(7, 3, 5, generator=g, dtype=dtype).log_softmax(2)
    return {
        "a": torch.randn(4, 6, generator=g, dtype=dtype),
        "b": torch.randn(4, 6, generator=g, dtype=dtype),
        "c": torch.randn(4, 6, generator=g, dtype=dtype),
        "wide": torch.randn(6, 4, generator=g, dtype=dtype),  # .t() is a (4, 6) view
        "v": torch.randn(6, generator=g, dtype=dtype),
        "w": torch.randn(6, generator=g, dtype=dtype),
        "s": torch.randn(4, generator=g, dtype=dtype),
        "t": torch.randn(4, generator=g, dtype=dtype),
        "sign": torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=dtype),
        "ones": torch.tensor([1.0, -1.0, 1.0, 0.5], dtype=dtype),
        "classes": torch.tensor([1, 0, 5, 3]),
        "weight": torch.rand(6, generator=g, dtype=dtype) + 0.5,
        "labels": torch.tensor(
            [[1, 0, -1, 2, 3, 4], [5, 5, 2, -1, 0, 0], [0, 1, 2, 3, 4, 5], [-1, 1, 2, 3, 4, 5]]
        ),
        "log_probs": log_probs,
        "padded": torch.tensor([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 2]]),
        "concatenated": torch.tensor([1, 2, 2, 3, 1, 4, 4, 4, 2]),
        "input_lengths": torch.tensor([7, 6, 7]),
        "target_lengths": torch.tensor([3, 2, 4]),
    }


def _convert(value: torch.Tensor) -> Any:
    if value.numel() == 0:
        dtype = getattr(refimpl, str(value.dtype).removeprefix("torch."))
        return refimpl.empty_strided(tuple(value.shape), value.stride(), dtype=dtype)
    return refimpl.from_numpy(value.detach().clone().numpy())


def _for(lib: Any, tensors: dict[str, torch.Tensor], grad: bool) -> dict[str, Any]:
    made = {k: v.detach().clone() if lib is torch else _convert(v) for k, v in tensors.items()}
    if grad:
        for key, value in tensors.items():
            # torch refuses a weight that requires grad (multi_margin_loss has no formula for
            # it: check_no_requires_grad); refimpl's autograd does not check that yet.
            if value.is_floating_point() and key != "weight":
                made[key].requires_grad_()
    return made


def _numpy(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor) and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    if expected.device.type == "meta":
        assert actual.device.type == "meta"
        return
    tol = _TOL.get(expected.dtype, 0)
    np.testing.assert_allclose(_numpy(actual), _numpy(expected), rtol=tol, atol=tol)


def _run(call: Call, grad: bool, seed: int = 0, dtype: torch.dtype = torch.float64) -> None:
    """`call` on both libraries: the same error, or the same result and gradients."""
    tensors = _inputs(seed, dtype)
    found: dict[str, Any] = {}

    def run(lib: Any) -> Any:
        functional = F if lib is torch else RF
        inputs = _for(lib, tensors, grad)
        result = call(lib, functional, inputs)
        found[lib.__name__] = inputs
        return result

    expected, expected_error = outcome(run, torch)
    actual, actual_error = outcome(run, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert type(actual_error) is type(expected_error)
        assert str(actual_error) == str(expected_error)
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)
    if not grad or not getattr(expected, "requires_grad", False):
        return
    theirs, ours = found["torch"], found["refimpl"]
    keys = [k for k, v in theirs.items() if v.requires_grad]
    expected_grads = torch.autograd.grad(
        expected.sum(), [theirs[k] for k in keys], allow_unused=True
    )
    actual_grads = refimpl.autograd.grad(actual.sum(), [ours[k] for k in keys], allow_unused=True)
    for key, e, a in zip(keys, expected_grads, actual_grads, strict=True):
        assert (e is None) == (a is None), key
        if e is not None:
            # Values and shapes: a gradient's strides come from the autograd engine's
            # accumulation (refimpl/autograd), not from these ops.
            assert tuple(a.shape) == tuple(e.shape), key
            tol = _TOL.get(e.dtype, 0)
            np.testing.assert_allclose(_numpy(a), _numpy(e), rtol=tol, atol=tol, err_msg=key)


def _F(name: str, *args: Any, **kwargs: Any) -> Call:
    """`f.<name>(*args, **kwargs)`: a string argument names an input, a callable computes one
    from the inputs, anything else is passed as it is."""

    def call(lib: Any, f: Any, x: dict[str, Any]) -> Any:
        return getattr(f, name)(*(_argument(a, x) for a in args), **kwargs)

    return call


def _argument(value: Any, x: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return x[value]
    return value(x) if callable(value) else value


def _transposed(x: dict[str, Any]) -> Any:
    return x["wide"].t()


def _expanded_sign(x: dict[str, Any]) -> Any:
    return x["sign"][:, None].expand(4, 6)


# --- values and gradients ------------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")

VALUE_CASES: dict[str, Call] = {
    "cosine_similarity": lambda lib, f, x: f.cosine_similarity(x["a"], x["b"]),
    "cosine_similarity dim0 eps": lambda lib, f, x: f.cosine_similarity(x["a"], x["b"], 0, 0.5),
    "cosine_similarity broadcast": lambda lib, f, x: f.cosine_similarity(x["a"], x["v"], dim=-1),
    "cosine_similarity transposed": lambda lib, f, x: f.cosine_similarity(x["wide"].t(), x["b"]),
    "cosine_similarity zero vector": lambda lib, f, x: f.cosine_similarity(x["a"] * 0, x["b"]),
    "cosine_similarity int and float": lambda lib, f, x: f.cosine_similarity(
        x["classes"][:, None] * lib.ones(4, 3, dtype=lib.int64), x["a"][:, :3]
    ),
    "torch.cosine_similarity": lambda lib, f, x: lib.cosine_similarity(x["a"], x["b"], dim=0),
    "pairwise_distance": lambda lib, f, x: f.pairwise_distance(x["a"], x["b"]),
    "pairwise_distance p1 keepdim": lambda lib, f, x: f.pairwise_distance(
        x["a"], x["b"], p=1.0, keepdim=True
    ),
    "pairwise_distance inf transposed": lambda lib, f, x: f.pairwise_distance(
        x["wide"].t(), x["b"], p=float("inf")
    ),
    "pairwise_distance 1-d": lambda lib, f, x: f.pairwise_distance(x["v"], x["w"], 3.0, 0.1),
    "pairwise_distance broadcast": lambda lib, f, x: f.pairwise_distance(x["a"], x["v"]),
    "pdist": lambda lib, f, x: f.pdist(x["a"]),
    "pdist transposed": lambda lib, f, x: f.pdist(x["wide"].t()),
    "pdist repeated rows": lambda lib, f, x: f.pdist(lib.cat([x["a"], x["a"][:2]])),
    **{f"pdist p={p}": _F("pdist", "a", p) for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf"))},
    "pdist one row": lambda lib, f, x: f.pdist(x["a"][:1]),
    "pdist no columns": lambda lib, f, x: f.pdist(x["a"][:, :0]),
    **{
        f"margin_ranking_loss {r}": _F(
            "margin_ranking_loss", "s", "t", "sign", margin=0.3, reduction=r
        )
        for r in _REDUCTIONS
    },
    "margin_ranking_loss 2-d broadcast": lambda lib, f, x: f.margin_ranking_loss(
        x["a"], x["b"], x["sign"][:, None]
    ),
    **{
        f"hinge_embedding_loss {r}": _F(
            "hinge_embedding_loss", "a", _expanded_sign, margin=0.7, reduction=r
        )
        for r in _REDUCTIONS
    },
    "hinge_embedding_loss other targets": lambda lib, f, x: f.hinge_embedding_loss(
        x["s"], x["ones"], reduction="none"
    ),
    **{
        f"cosine_embedding_loss {r}": _F(
            "cosine_embedding_loss", "a", _transposed, "sign", margin=0.2, reduction=r
        )
        for r in _REDUCTIONS
    },
    "cosine_embedding_loss 1-d": lambda lib, f, x: f.cosine_embedding_loss(
        x["v"], x["w"], x["sign"][1]
    ),
    **{
        f"multi_margin_loss {r} p{p}": _F(
            "multi_margin_loss", "a", "classes", p=p, margin=0.8, reduction=r
        )
        for r in _REDUCTIONS
        for p in (1, 2)
    },
    "multi_margin_loss weight transposed": lambda lib, f, x: f.multi_margin_loss(
        x["wide"].t(), x["classes"], weight=x["weight"], reduction="none"
    ),
    "multi_margin_loss 1-d": lambda lib, f, x: f.multi_margin_loss(
        x["v"], x["classes"][2:3], p=2, reduction="none"
    ),
    "multi_margin_loss 0-d target": lambda lib, f, x: f.multi_margin_loss(
        x["v"], x["classes"][2], reduction="none"
    ),
    **{
        f"multilabel_margin_loss {r}": _F("multilabel_margin_loss", "a", "labels", reduction=r)
        for r in _REDUCTIONS
    },
    "multilabel_margin_loss transposed": lambda lib, f, x: f.multilabel_margin_loss(
        x["wide"].t(), x["labels"]
    ),
    "multilabel_margin_loss 1-d": lambda lib, f, x: f.multilabel_margin_loss(
        x["v"], x["labels"][1], reduction="none"
    ),
    **{
        f"triplet_margin_loss {r}": _F(
            "triplet_margin_loss", "a", "b", "c", margin=2.0, reduction=r
        )
        for r in _REDUCTIONS
    },
    "triplet_margin_loss swap p1": lambda lib, f, x: f.triplet_margin_loss(
        x["a"], x["wide"].t(), x["c"], p=1, swap=True, eps=0.0
    ),
    **{
        f"triplet_margin_with_distance_loss {r}": _F(
            "triplet_margin_with_distance_loss", "a", "b", "c", margin=2.0, reduction=r
        )
        for r in _REDUCTIONS
    },
    "triplet_margin_with_distance_loss cosine swap": lambda lib, f, x: (
        f.triplet_margin_with_distance_loss(
            x["a"],
            x["b"],
            x["c"],
            distance_function=lambda u, v: 1 - f.cosine_similarity(u, v),
            swap=True,
        )
    ),
    **{
        f"ctc_loss {r} {kind}": _F(
            "ctc_loss", "log_probs", kind, "input_lengths", "target_lengths", reduction=r
        )
        for r in _REDUCTIONS
        for kind in ("padded", "concatenated")
    },
    "ctc_loss lists blank 4": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"] - 1, [7, 5, 6], (3, 2, 4), blank=4, reduction="sum"
    ),
    "ctc_loss int32 targets": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"].int(), x["input_lengths"].int(), x["target_lengths"].int()
    ),
    "ctc_loss zero_infinity": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [2, 6, 1], [3, 2, 4], reduction="none", zero_infinity=True
    ),
    "ctc_loss infinite": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [2, 6, 7], [3, 2, 4], reduction="none"
    ),
    "ctc_loss empty input and target": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [0, 6, 7], [0, 0, 4], reduction="sum"
    ),
    "ctc_loss unbatched": lambda lib, f, x: f.ctc_loss(
        x["log_probs"][:, 1], x["padded"][1, :2], [6], [2], reduction="none"
    ),
    "ctc_loss unbatched mean": lambda lib, f, x: f.ctc_loss(
        x["log_probs"][:, 1], x["padded"][1, :2], x["input_lengths"][1], x["target_lengths"][1]
    ),
    "ctc_loss permuted log_probs": lambda lib, f, x: f.ctc_loss(
        x["log_probs"].permute(1, 0, 2).contiguous().permute(1, 0, 2),
        x["padded"],
        x["input_lengths"],
        x["target_lengths"],
    ),
    "torch.ctc_loss": lambda lib, f, x: lib.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4], 0, 2, False
    ),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values_and_gradients(name: str) -> None:
    _run(VALUE_CASES[name], grad=True)


@pytest.mark.parametrize(
    "name",
    [
        "cosine_similarity",
        "pairwise_distance",
        "pdist",
        "margin_ranking_loss mean",
        "cosine_embedding_loss sum",
        "multi_margin_loss none p2",
        "multilabel_margin_loss mean",
        "triplet_margin_loss none",
        "ctc_loss mean padded",
    ],
)
def test_float32(name: str) -> None:
    _run(VALUE_CASES[name], grad=True, dtype=torch.float32)


# --- the aten ops a TorchDispatchMode sees ---------------------------------------------------

MODE_CASES = [
    "cosine_similarity",
    "cosine_similarity int and float",
    "pairwise_distance p1 keepdim",
    "pairwise_distance 1-d",
    "pdist",
    "margin_ranking_loss mean",
    "margin_ranking_loss none",
    "hinge_embedding_loss sum",
    "cosine_embedding_loss mean",
    "cosine_embedding_loss 1-d",
    "multi_margin_loss none p1",
    "multi_margin_loss weight transposed",
    "multilabel_margin_loss mean",
    "triplet_margin_loss none",
    "triplet_margin_loss swap p1",
    "triplet_margin_with_distance_loss mean",
    "ctc_loss mean padded",
    "ctc_loss sum concatenated",
    "ctc_loss lists blank 4",
    "ctc_loss int32 targets",
    "ctc_loss zero_infinity",
    "ctc_loss unbatched",
    "ctc_loss unbatched mean",
]


@pytest.mark.parametrize("name", MODE_CASES)
def test_aten_calls_forward_and_backward(name: str) -> None:
    tensors = _inputs()
    logs = {}
    for lib in (torch, refimpl):
        inputs = _for(lib, tensors, grad=True)

        def run(lib: Any = lib, inputs: dict[str, Any] = inputs) -> Any:
            result = VALUE_CASES[name](lib, F if lib is torch else RF, inputs)
            result.sum().backward()
            return result

        logs[lib.__name__] = aten_calls(lib, run)[0]
    assert logs["refimpl"] == logs["torch"]


# --- errors ----------------------------------------------------------------------------------

ERROR_CASES: dict[str, Call] = {
    "cosine_similarity int": lambda lib, f, x: f.cosine_similarity(x["classes"], x["classes"], 0),
    "cosine_similarity bool": lambda lib, f, x: f.cosine_similarity(
        x["classes"] > 1, x["classes"] > 2, 0
    ),
    "cosine_similarity broadcast": lambda lib, f, x: f.cosine_similarity(x["a"], x["a"][:3]),
    "cosine_similarity dim": lambda lib, f, x: f.cosine_similarity(x["a"], x["b"], 2),
    "pdist 1-d": lambda lib, f, x: f.pdist(x["v"]),
    "pdist int": lambda lib, f, x: f.pdist(x["labels"]),
    "pdist negative p": lambda lib, f, x: f.pdist(x["a"], -1.0),
    "pdist float16": lambda lib, f, x: f.pdist(x["a"].half()),
    "_pdist_forward non-contiguous": lambda lib, f, x: lib.ops.aten._pdist_forward(x["wide"].t()),
    "_pdist_backward non-contiguous": lambda lib, f, x: lib.ops.aten._pdist_backward(
        x["s"], x["wide"].t(), 2.0, x["s"]
    ),
    "margin_ranking_loss ranks": lambda lib, f, x: f.margin_ranking_loss(
        x["s"], x["s"], x["sign"][:, None]
    ),
    "margin_ranking_loss reduction": lambda lib, f, x: f.margin_ranking_loss(
        x["s"], x["s"], x["sign"], reduction="avg"
    ),
    "hinge_embedding_loss int mean": lambda lib, f, x: f.hinge_embedding_loss(
        x["classes"], x["classes"]
    ),
    "cosine_embedding_loss 2-d target": lambda lib, f, x: f.cosine_embedding_loss(
        x["a"], x["b"], x["a"]
    ),
    "cosine_embedding_loss 3-d inputs": lambda lib, f, x: f.cosine_embedding_loss(
        x["a"][None], x["b"][None], x["sign"]
    ),
    "cosine_embedding_loss 0-d target": lambda lib, f, x: f.cosine_embedding_loss(
        x["a"], x["b"], x["sign"][0]
    ),
    "multi_margin_loss p": lambda lib, f, x: f.multi_margin_loss(x["a"], x["classes"], p=3),
    "multi_margin_loss aten p": lambda lib, f, x: lib.ops.aten.multi_margin_loss(
        x["a"], x["classes"], 3
    ),
    "multi_margin_loss weight 2-d": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"], weight=x["a"]
    ),
    "multi_margin_loss weight size": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"], weight=x["s"]
    ),
    "multi_margin_loss weight dtype": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"], weight=x["weight"].float()
    ),
    "multi_margin_loss target size": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"][:3]
    ),
    "multi_margin_loss target 2-d": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"][:, None]
    ),
    "multi_margin_loss target range": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"] + 1
    ),
    "multi_margin_loss target int32": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"].int()
    ),
    "multi_margin_loss int input": lambda lib, f, x: f.multi_margin_loss(x["labels"], x["classes"]),
    "multi_margin_loss float16": lambda lib, f, x: f.multi_margin_loss(x["a"].half(), x["classes"]),
    "multi_margin_loss empty": lambda lib, f, x: f.multi_margin_loss(x["a"][:, :0], x["classes"]),
    "multi_margin_loss 3-d": lambda lib, f, x: f.multi_margin_loss(x["a"][None], x["classes"]),
    "multilabel_margin_loss target size": lambda lib, f, x: f.multilabel_margin_loss(
        x["a"], x["labels"][:, :4]
    ),
    "multilabel_margin_loss 1-d target size": lambda lib, f, x: f.multilabel_margin_loss(
        x["v"], x["labels"][0, :4]
    ),
    "multilabel_margin_loss target range": lambda lib, f, x: f.multilabel_margin_loss(
        x["a"], x["labels"] + 1
    ),
    "multilabel_margin_loss target below": lambda lib, f, x: f.multilabel_margin_loss(
        x["a"], x["labels"] - 1
    ),
    "multilabel_margin_loss target float": lambda lib, f, x: f.multilabel_margin_loss(
        x["a"], x["b"]
    ),
    "multilabel_margin_loss int input": lambda lib, f, x: f.multilabel_margin_loss(
        x["labels"], x["labels"]
    ),
    "multilabel_margin_loss_backward is_target size": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_backward(x["s"], x["a"], x["labels"], 0, x["a"][:, :4])
    ),
    "multilabel_margin_loss_backward is_target range": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_backward(x["s"], x["a"], x["labels"], 0, x["a"] + 5)
    ),
    "multilabel_margin_loss_backward grad size": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_backward(x["s"][:3], x["a"], x["labels"], 0, x["a"] * 0)
    ),
    "triplet_margin_loss margin": lambda lib, f, x: f.triplet_margin_loss(
        x["a"], x["b"], x["c"], margin=0.0
    ),
    "triplet_margin_loss ranks": lambda lib, f, x: f.triplet_margin_loss(x["a"], x["b"], x["v"]),
    "torch.triplet_margin_loss ranks": lambda lib, f, x: lib.triplet_margin_loss(
        x["a"], x["v"], x["c"]
    ),
    "triplet_margin_with_distance_loss reduction": lambda lib, f, x: (
        f.triplet_margin_with_distance_loss(x["a"], x["b"], x["c"], reduction="avg")
    ),
    "triplet_margin_with_distance_loss margin": lambda lib, f, x: (
        f.triplet_margin_with_distance_loss(x["a"], x["b"], x["c"], margin=-1.0)
    ),
    "triplet_margin_with_distance_loss ranks": lambda lib, f, x: (
        f.triplet_margin_with_distance_loss(x["a"], x["v"], x["c"])
    ),
    "ctc_loss float16": lambda lib, f, x: f.ctc_loss(
        x["log_probs"].half(), x["padded"], [7, 6, 7], [3, 2, 4]
    ),
    "ctc_loss 4-d": lambda lib, f, x: f.ctc_loss(
        x["log_probs"][None], x["padded"], [7, 6, 7], [3, 2, 4]
    ),
    "ctc_loss 3-d targets": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"][None], [7, 6, 7], [3, 2, 4]
    ),
    "ctc_loss blank": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4], blank=5
    ),
    "ctc_loss input_lengths size": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6], [3, 2, 4]
    ),
    "ctc_loss target_lengths size": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2]
    ),
    "ctc_loss negative target length": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, -2, 4]
    ),
    "ctc_loss long target": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 5]
    ),
    "ctc_loss target rows": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"][:2], [7, 6, 7], [3, 2, 4]
    ),
    "ctc_loss concatenated size": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["concatenated"], [7, 6, 7], [3, 2, 3]
    ),
    "ctc_loss negative input length": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, -6, 7], [3, 2, 4]
    ),
    "ctc_loss long input": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 8, 7], [3, 2, 4]
    ),
    "ctc_loss float lengths": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], x["input_lengths"].double(), x["target_lengths"]
    ),
    "ctc_loss float target lengths": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], x["input_lengths"], x["target_lengths"].double()
    ),
    "ctc_loss reduction": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4], reduction="avg"
    ),
    "_ctc_loss float targets": lambda lib, f, x: lib.ops.aten._ctc_loss(
        x["log_probs"], x["padded"].double(), [7, 6, 7], [3, 2, 4]
    ),
    "_ctc_loss int16 targets": lambda lib, f, x: lib.ops.aten._ctc_loss(
        x["log_probs"], x["padded"].short(), [7, 6, 7], [3, 2, 4]
    ),
    "_ctc_loss empty": lambda lib, f, x: lib.ops.aten._ctc_loss(
        x["log_probs"][:0], x["padded"].double(), [0, 0, 0], [0, 0, 0]
    ),
    "_ctc_loss_backward float targets": lambda lib, f, x: lib.ops.aten._ctc_loss_backward(
        x["s"][:3],
        x["log_probs"],
        x["padded"].double(),
        [7, 6, 7],
        [3, 2, 4],
        x["s"][:3],
        x["log_probs"].permute(1, 0, 2),
        0,
    ),
    "_pdist_backward grad dtype": lambda lib, f, x: lib.ops.aten._pdist_backward(
        x["s"].float(), x["a"][:3], 2.0, x["s"][:3]
    ),
    "_ctc_loss.Tensor on meta": lambda lib, f, x: lib.ops.aten._ctc_loss.Tensor(
        x["log_probs"].to("meta"),
        x["padded"].to("meta"),
        x["input_lengths"].to("meta"),
        x["target_lengths"].to("meta"),
    ),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors(name: str) -> None:
    tensors = _inputs()
    _, expected_error = outcome(
        lambda lib: ERROR_CASES[name](lib, F, _for(lib, tensors, False)), torch
    )
    _, actual_error = outcome(
        lambda lib: ERROR_CASES[name](lib, RF, _for(lib, tensors, False)), refimpl
    )
    assert expected_error is not None, "torch raised nothing"
    assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
    assert type(actual_error) is type(expected_error)
    assert _message(actual_error) == _message(expected_error)


def _message(error: BaseException) -> str:
    # torch prints a torch.Size where refimpl prints a refimpl.Size; refimpl's dispatcher
    # names the packet, not the overload, in its missing-Meta-kernel error (aten::_ctc_loss
    # for torch's aten::_ctc_loss.Tensor).
    text = str(error).replace("refimpl.Size", "torch.Size")
    return re.sub(r"^(aten::\w+)\.\w+: attempted", r"\1: attempted", text)


# --- warnings --------------------------------------------------------------------------------

WARNING_CASES: dict[str, Call] = {
    "margin_ranking_loss size_average": lambda lib, f, x: f.margin_ranking_loss(
        x["s"], x["s"], x["sign"], size_average=False
    ),
    "hinge_embedding_loss reduce": lambda lib, f, x: f.hinge_embedding_loss(
        x["s"], x["sign"], reduce=False
    ),
    "cosine_embedding_loss both": lambda lib, f, x: f.cosine_embedding_loss(
        x["a"], x["b"], x["sign"], size_average=True, reduce=True
    ),
    "multi_margin_loss size_average": lambda lib, f, x: f.multi_margin_loss(
        x["a"], x["classes"], size_average=False
    ),
    "multilabel_margin_loss reduce": lambda lib, f, x: f.multilabel_margin_loss(
        x["a"], x["labels"], reduce=False
    ),
    "triplet_margin_loss size_average": lambda lib, f, x: f.triplet_margin_loss(
        x["a"], x["b"], x["c"], size_average=False
    ),
    "ctc_loss elementwise_mean": lambda lib, f, x: f.ctc_loss(
        x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4], reduction="elementwise_mean"
    ),
}


@pytest.mark.parametrize("name", list(WARNING_CASES))
def test_legacy_arguments_warn_and_reduce(name: str) -> None:
    tensors = _inputs()
    seen = {}
    for lib in (torch, refimpl):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = WARNING_CASES[name](lib, F if lib is torch else RF, _for(lib, tensors, False))
        seen[lib.__name__] = (
            result,
            [(w.category, str(w.message)) for w in caught if w.category is not DeprecationWarning],
        )
    assert seen["refimpl"][1] == seen["torch"][1]
    _same(seen["torch"][0], seen["refimpl"][0])


# --- out= forms, aten ops, meta --------------------------------------------------------------

ATEN_CASES: dict[str, Call] = {
    "_pdist_forward": lambda lib, f, x: lib.ops.aten._pdist_forward(x["a"], 1.5),
    "_pdist_forward.out": lambda lib, f, x: lib.ops.aten._pdist_forward.out(
        x["a"], 3.0, out=lib.empty(2, dtype=lib.float64)
    ),
    "_pdist_backward": lambda lib, f, x: lib.ops.aten._pdist_backward(
        lib.ones(6, dtype=lib.float64) * 0.5, x["a"], 2.0, lib.ops.aten._pdist_forward(x["a"])
    ),
    "multi_margin_loss.out": lambda lib, f, x: lib._C._nn.multi_margin_loss(
        x["a"], x["classes"], 2, 0.5, x["weight"], 0, out=lib.empty(2, dtype=lib.float64)
    ),
    "multi_margin_loss.out dtype": lambda lib, f, x: lib._C._nn.multi_margin_loss(
        x["a"], x["classes"], out=lib.empty(2, dtype=lib.float32)
    ),
    "multi_margin_loss_backward": lambda lib, f, x: lib.ops.aten.multi_margin_loss_backward(
        x["s"], x["a"], x["classes"], 2, 0.5, x["weight"], 0
    ),
    "multi_margin_loss_backward.grad_input": lambda lib, f, x: (
        lib.ops.aten.multi_margin_loss_backward.grad_input(
            lib.ones((), dtype=lib.float64),
            x["a"],
            x["classes"],
            1,
            1.0,
            None,
            1,
            grad_input=lib.empty(3, 8, dtype=lib.float64),
        )
    ),
    "multi_margin_loss_backward.grad_input non-contiguous": lambda lib, f, x: (
        lib.ops.aten.multi_margin_loss_backward.grad_input(
            lib.ones((), dtype=lib.float64),
            x["wide"].t(),
            x["classes"],
            1,
            1.0,
            None,
            1,
            grad_input=lib.empty(6, 4, dtype=lib.float64).t(),
        )
    ),
    "multilabel_margin_loss_forward": lambda lib, f, x: lib.ops.aten.multilabel_margin_loss_forward(
        x["a"], x["labels"], 0
    ),
    "multilabel_margin_loss.out": lambda lib, f, x: lib._C._nn.multilabel_margin_loss(
        x["a"], x["labels"], 0, out=lib.empty(7, dtype=lib.float64)
    ),
    "multilabel_margin_loss_forward.output": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_forward.output(
            x["a"],
            x["labels"],
            1,
            output=lib.empty(3, dtype=lib.float64),
            is_target=lib.empty(1, dtype=lib.float64),
        )
    ),
    "multilabel_margin_loss_backward": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_backward(
            x["s"],
            x["a"],
            x["labels"],
            0,
            lib.ops.aten.multilabel_margin_loss_forward(x["a"], x["labels"], 0)[1],
        )
    ),
    "_ctc_loss": lambda lib, f, x: lib._ctc_loss(x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4])[
        0
    ],
    "_ctc_loss.Tensor": lambda lib, f, x: lib.ops.aten._ctc_loss.Tensor(
        x["log_probs"], x["concatenated"], x["input_lengths"], x["target_lengths"]
    )[0],
    "_ctc_loss.out": lambda lib, f, x: lib.ops.aten._ctc_loss.out(
        x["log_probs"],
        x["padded"],
        [7, 6, 7],
        [3, 2, 4],
        out0=lib.empty(3, dtype=lib.float64),
        out1=lib.empty(0, dtype=lib.float64),
    )[0],
    "_ctc_loss_backward": lambda lib, f, x: lib.ops.aten._ctc_loss_backward(
        x["s"][:3],
        x["log_probs"],
        x["padded"],
        [7, 6, 7],
        [3, 2, 4],
        *lib.ops.aten._ctc_loss(x["log_probs"], x["padded"], [7, 6, 7], [3, 2, 4]),
        0,
    ),
    "_ctc_loss_backward.Tensor zero_infinity": lambda lib, f, x: (
        lib.ops.aten._ctc_loss_backward.Tensor(
            x["s"][:3],
            x["log_probs"],
            x["padded"],
            lib.tensor([2, 6, 7]),
            x["target_lengths"],
            *lib.ops.aten._ctc_loss(x["log_probs"], x["padded"], [2, 6, 7], [3, 2, 4]),
            0,
            True,
        )
    ),
    "meta pdist": lambda lib, f, x: f.pdist(x["a"].to("meta")),
    "meta _pdist_backward": lambda lib, f, x: lib.ops.aten._pdist_backward(
        x["s"].to("meta"), x["a"].to("meta"), 2.0, x["s"].to("meta")
    ),
    "meta multi_margin_loss": lambda lib, f, x: f.multi_margin_loss(
        x["a"].to("meta"), x["classes"].to("meta"), reduction="none"
    ),
    "meta multilabel_margin_loss_forward": lambda lib, f, x: (
        lib.ops.aten.multilabel_margin_loss_forward(x["a"].to("meta"), x["labels"].to("meta"), 0)
    ),
    "meta _ctc_loss": lambda lib, f, x: lib.ops.aten._ctc_loss(
        x["log_probs"].to("meta"), x["padded"].to("meta"), [7, 6, 7], [3, 2, 4]
    ),
    "meta _ctc_loss empty": lambda lib, f, x: lib.ops.aten._ctc_loss(
        x["log_probs"][:0].to("meta"), x["padded"].to("meta"), [0, 0, 0], [0, 0, 0]
    ),
    "_ctc_loss_backward empty": lambda lib, f, x: lib.ops.aten._ctc_loss_backward(
        x["s"][:3],
        x["log_probs"][:0],
        x["padded"],
        [0, 0, 0],
        [0, 0, 0],
        x["s"][:3],
        x["log_probs"][:0].permute(1, 0, 2),
        0,
    ),
    "meta ctc_loss": lambda lib, f, x: f.ctc_loss(
        x["log_probs"].to("meta"), x["padded"].to("meta"), [7, 6, 7], [3, 2, 4]
    ),
}


@pytest.mark.parametrize("name", list(ATEN_CASES))
def test_aten_ops_out_and_meta(name: str) -> None:
    _run(ATEN_CASES[name], grad=False)


def test_no_derivative_past_the_backward_ops() -> None:
    tensors = _inputs()
    errors = {}
    for lib in (torch, refimpl):
        x = _for(lib, tensors, grad=True)
        result = lib.ops.aten._pdist_backward(
            lib.ones(6, dtype=lib.float64, requires_grad=True),
            x["a"],
            2.0,
            lib.ops.aten._pdist_forward(x["a"].detach()),
        )

        def backward(_: Any, result: Any = result) -> Any:
            return result.sum().backward()

        _, errors[lib.__name__] = outcome(backward, lib)
    assert type(errors["refimpl"]) is type(errors["torch"])
    assert str(errors["refimpl"]) == str(errors["torch"])


SECOND_ORDER_CASES = [
    "cosine_similarity",
    "pairwise_distance",
    "pairwise_distance p1 keepdim",
    "margin_ranking_loss mean",
    "cosine_embedding_loss sum",
    "triplet_margin_loss mean",
]


@pytest.mark.parametrize("name", SECOND_ORDER_CASES)
def test_second_derivatives(name: str) -> None:
    tensors = _inputs()
    found: dict[str, Any] = {}
    for lib in (torch, refimpl):
        inputs = _for(lib, tensors, grad=True)
        grad = torch.autograd.grad if lib is torch else refimpl.autograd.grad
        result = VALUE_CASES[name](lib, F if lib is torch else RF, inputs)
        leaves = [v for v in inputs.values() if v.requires_grad]
        firsts = grad(result.sum(), leaves, create_graph=True, allow_unused=True)
        squares = [(g * g).sum() for g in firsts if g is not None and g.requires_grad]
        total: Any = squares[0]
        for square in squares[1:]:
            total = total + square
        found[lib.__name__] = grad(total, leaves, allow_unused=True)
    for e, a in zip(found["torch"], found["refimpl"], strict=True):
        assert (e is None) == (a is None)
        if e is not None:
            np.testing.assert_allclose(_numpy(a), _numpy(e), rtol=1e-9, atol=1e-9)
