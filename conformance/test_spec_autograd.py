"""spec/derivatives.json against the installed torch: node names, saved attributes, coverage.

The file is written by spec/extract_autograd.py from torchgen's reading of derivatives.yaml;
these tests hold it against what torch's autograd actually does: the node a real call records
is the entry's "node", the node exposes exactly the entry's `_saved_*` attributes, each op's
category agrees with torch's dispatcher, and every overload refimpl registers is classified.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
import torch

from refimpl._base.spec import read_text
from refimpl.ops._register import registered_overloads

SECTIONS = ("derivatives", "autograd", "not_differentiable", "views")
CATEGORIES = {
    "formula",
    "composite_implicit",
    "manual",
    "out",
    "not_differentiable",
    "not_implemented",
}


@cache
def facts() -> dict[str, Any]:
    """spec/derivatives.json."""
    return json.loads(read_text("derivatives.json"))  # type: ignore[no-any-return]


@cache
def schema_names() -> frozenset[str]:
    """Every overload of spec/schemas.json, spelled `aten::add.Tensor` / `aten::relu`."""
    rows = json.loads(read_text("schemas.json"))
    return frozenset(
        row["name"] + (f".{row['overload']}" if row["overload"] else "") for row in rows
    )


def leaf(*shape: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """A leaf that requires grad, filled with distinct nonzero values."""
    count = 1
    for size in shape:
        count *= size
    values = torch.arange(1, count + 1, dtype=dtype).reshape(shape) / 7 - 0.4
    return values.requires_grad_()


def _index() -> torch.Tensor:
    return torch.tensor([1, 0, 1])


# One real call per overload: the tensor whose grad_fn the overload's autograd kernel sets.
CALLS: dict[str, Callable[[], torch.Tensor]] = {
    "aten::abs": lambda: leaf(2, 3).abs(),
    "aten::sign": lambda: leaf(3).sign(),
    "aten::add.Tensor": lambda: leaf(2, 3) + leaf(2, 3),
    "aten::add.Scalar": lambda: torch.ops.aten.add.Scalar(leaf(2, 3), 1),
    "aten::add_.Tensor": lambda: leaf(2, 3).clone().add_(leaf(2, 3)),
    "aten::sub.Tensor": lambda: leaf(2, 3) - leaf(3),
    "aten::rsub.Scalar": lambda: 2 - leaf(3),
    "aten::mul.Tensor": lambda: leaf(2, 3) * leaf(2, 3),
    "aten::mul_.Tensor": lambda: leaf(3).clone().mul_(leaf(3)),
    "aten::div.Tensor": lambda: leaf(2, 3) / leaf(3),
    "aten::neg": lambda: -leaf(3),
    "aten::pow.Tensor_Scalar": lambda: leaf(3) ** 3,
    "aten::exp": lambda: leaf(3).exp(),
    "aten::exp_": lambda: leaf(3).clone().exp_(),
    "aten::log": lambda: leaf(3).abs().log(),
    "aten::sqrt": lambda: leaf(3).abs().sqrt(),
    "aten::tanh": lambda: leaf(3).tanh(),
    "aten::sigmoid": lambda: leaf(3).sigmoid(),
    "aten::relu": lambda: leaf(3).relu(),
    "aten::clamp_min": lambda: leaf(3).clamp_min(0),
    "aten::where.self": lambda: torch.where(torch.tensor([True, False, True]), leaf(3), leaf(3)),
    "aten::masked_fill.Scalar": lambda: leaf(3).masked_fill(torch.tensor([True, False, True]), 0),
    "aten::sum": lambda: leaf(2, 3).sum(),
    "aten::sum.dim_IntList": lambda: leaf(2, 3).sum(0, keepdim=True),
    "aten::mean": lambda: leaf(2, 3).mean(),
    "aten::mean.dim": lambda: leaf(2, 3).mean(1),
    "aten::var.correction": lambda: leaf(2, 3).var(0),
    "aten::max": lambda: leaf(2, 3).max(),
    "aten::max.dim": lambda: leaf(2, 3).max(1).values,
    "aten::logsumexp": lambda: leaf(2, 3).logsumexp(1),
    "aten::cumsum": lambda: leaf(2, 3).cumsum(1),
    "aten::mm": lambda: leaf(2, 3) @ leaf(3, 4),
    "aten::addmm": lambda: torch.addmm(leaf(4), leaf(2, 3), leaf(3, 4)),
    "aten::bmm": lambda: torch.bmm(leaf(2, 2, 3), leaf(2, 3, 1)),
    "aten::view": lambda: leaf(2, 3).view(6),
    "aten::view_copy": lambda: torch.view_copy(leaf(2, 3), [6]),
    "aten::t": lambda: leaf(2, 3).t(),
    "aten::t_copy": lambda: torch.t_copy(leaf(2, 3)),
    "aten::permute": lambda: leaf(2, 3).permute(1, 0),
    "aten::expand": lambda: leaf(3).expand(2, 3),
    "aten::unsqueeze": lambda: leaf(3).unsqueeze(0),
    "aten::squeeze.dim": lambda: leaf(1, 3).squeeze(0),
    "aten::select.int": lambda: leaf(2, 3)[1],
    "aten::slice.Tensor": lambda: leaf(4, 3)[1:],
    "aten::index.Tensor": lambda: leaf(2, 3)[_index()],
    "aten::index_put_": lambda: leaf(3).clone().index_put_((_index(),), leaf(3), accumulate=True),
    "aten::gather": lambda: leaf(2, 3).gather(1, torch.tensor([[0], [2]])),
    "aten::cat": lambda: torch.cat([leaf(2), leaf(3)]),
    "aten::stack": lambda: torch.stack([leaf(2), leaf(2)]),
    "aten::split.Tensor": lambda: leaf(4).split(2)[0],
    "aten::unbind.int": lambda: leaf(2, 3).unbind()[0],
    "aten::clone": lambda: leaf(3).clone(),
    "aten::_to_copy": lambda: leaf(3).float(),
    "aten::sort": lambda: leaf(3).sort().values,
}


def test_sections_and_keys_are_torch_overloads() -> None:
    data = facts()
    assert data["torch_version"] == torch.__version__
    known = schema_names()
    for section in SECTIONS:
        names = list(data[section])
        assert names == sorted(names), section
        assert set(names) <= known, f"{section}: {sorted(set(names) - known)[:5]}"
    assert set(data["autograd"].values()) == CATEGORIES
    assert set(data["not_differentiable"]) == {
        name for name, kind in data["autograd"].items() if kind == "not_differentiable"
    }


def test_formula_ops_have_a_node() -> None:
    data = facts()
    for name, kind in data["autograd"].items():
        if kind == "formula":
            assert data["derivatives"][name]["node"], name


@pytest.mark.parametrize("qualified", sorted(CALLS))
def test_node_and_saved_attributes_match_a_real_call(qualified: str) -> None:
    record = facts()["derivatives"][qualified]
    assert facts()["autograd"][qualified] == "formula"
    grad_fn = CALLS[qualified]().grad_fn
    assert grad_fn is not None
    assert grad_fn.name() == type(grad_fn).__name__ == record["node"]
    attributes = dir(grad_fn)
    assert [a for a in attributes if a.startswith("_saved_")] == record["saved"]
    assert [a for a in attributes if a.startswith("_raw_saved_")] == record["raw_saved"]
    for attribute in record["saved"]:
        getattr(grad_fn, attribute)  # readable before backward


def test_sample_is_large_enough() -> None:
    assert len(CALLS) >= 20


def test_same_node_for_functional_and_inplace() -> None:
    derivatives = facts()["derivatives"]
    assert derivatives["aten::add_.Tensor"]["node"] == derivatives["aten::add.Tensor"]["node"]
    assert derivatives["aten::add_.Tensor"]["formula_of"] == "aten::add.Tensor"
    assert derivatives["aten::add.Scalar"]["node"] == "AddBackward1"
    assert derivatives["aten::exp"]["auto_element_wise"]
    assert derivatives["aten::mean"]["auto_linear"]
    assert derivatives["aten::exp"]["uses_result"]


def test_not_implemented_ops_record_torchs_placeholder_node() -> None:
    assert facts()["autograd"]["aten::floor_divide"] == "not_implemented"
    y = torch.floor_divide(leaf(3), 2)
    assert y.grad_fn is not None
    assert type(y.grad_fn).__name__ == "NotImplemented"
    assert y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        y.sum().backward()


@pytest.mark.parametrize(
    ("qualified", "call"),
    [
        ("aten::argmax", lambda: leaf(3).argmax()),
        ("aten::isnan", lambda: leaf(3).isnan()),
        ("aten::eq.Tensor", lambda: leaf(3) == leaf(3)),
        ("aten::zeros_like", lambda: torch.zeros_like(leaf(3))),
        ("aten::logical_not", lambda: leaf(3).logical_not()),
    ],
)
def test_not_differentiable_ops_record_nothing(
    qualified: str, call: Callable[[], torch.Tensor]
) -> None:
    assert facts()["autograd"][qualified] == "not_differentiable"
    result = call()
    assert result.grad_fn is None
    assert not result.requires_grad


def test_views_are_torchs_view_ops() -> None:
    views = facts()["views"]
    assert views["aten::view"] == {"view_copy": "aten::view_copy", "view_inplace": None}
    assert views["aten::t"]["view_inplace"] == "aten::t_"
    for name in views:
        packet, _, overload = name.removeprefix("aten::").partition(".")
        op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        assert op.is_view, name


def test_categories_agree_with_torchs_dispatcher() -> None:
    """composite_implicit: AutogradCPU runs the decomposition; else torch's autograd kernel.

    The extractor decides this from native_functions.yaml; torch's dispatch table answers.
    """
    dispatcher = set(torch._C._dispatch_get_all_op_names())
    for name, kind in facts()["autograd"].items():
        if name not in dispatcher:
            continue
        table = torch._C._dispatch_dump_table(name)
        autograd_cpu = next(line for line in table.splitlines() if line.startswith("AutogradCPU:"))
        expected = {"[math kernel]"} if kind == "composite_implicit" else {"[autograd kernel]"}
        if kind == "out":
            # adaptive_avg_pool1d.out, ...: out= forms of decomposed ops get the fallback.
            expected.add("[backend fallback]")
        assert autograd_cpu[autograd_cpu.rindex("[") :] in expected, (name, kind, autograd_cpu)


def test_every_refimpl_overload_is_classified() -> None:
    """Each overload refimpl registers has torch's autograd category; differentiable ones
    (a formula in derivatives.yaml) have their entry, whose node is not a CIA leftover."""
    data = facts()
    missing = []
    for name in registered_overloads():
        kind = data["autograd"].get(name)
        if kind is None:
            missing.append(name)
        elif kind == "formula":
            record = data["derivatives"].get(name)
            if record is None or record["node"] is None or record["cia"]:
                missing.append(name)
    assert not missing
