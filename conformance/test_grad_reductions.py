"""Derivatives of the reductions, scans and order statistics: refimpl's against torch's.

Each case builds the same leaf tensors in both libraries, runs one op and compares the node
(class name, `name()`, next_functions, the `_saved_*` attributes torch exposes), the first
derivative for a random output gradient, and the second derivative (the first derivative,
made with create_graph=True, dotted with a random tensor and differentiated with respect to
the input and the output gradient). A second derivative that reaches an op whose own formula
refimpl lacks yet (written by other families) is skipped with that op's name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import torch

import refimpl

Fn = Callable[..., Any]


@dataclass(frozen=True)
class Case:
    """One op call on leaves made by `make` (per input: shape and a value kind)."""

    id: str
    fn: Fn
    """fn(lib, aten, *leaves) -> output or tuple of outputs."""
    shapes: tuple[tuple[int, ...], ...] = ((3, 4),)
    kind: str = "randn"
    """randn, ties (integer values), zeros (a zero every third element), nan, positive."""
    complex: bool = False
    """Also run in complex128."""
    transpose: bool = False
    """The leaf given to the op is a transposed (non-contiguous) view."""
    second: bool = True
    skip_outputs: tuple[int, ...] = field(default=())
    """Outputs not given a gradient (aminmax: only min)."""


def _values(shape: tuple[int, ...], kind: str, dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    real = torch.float64
    t = torch.randn(shape, generator=g, dtype=real)
    if kind == "ties":
        t = torch.randint(-2, 3, shape, generator=g).to(real)
    elif kind == "zeros":
        t.view(-1)[::3] = 0
    elif kind == "two_zeros":
        t.view(-1)[:2] = 0
    elif kind == "nan":
        t.view(-1)[1::4] = math.nan
    elif kind == "positive":
        t = t.abs() + 0.5
    if dtype.is_complex:
        t = torch.complex(t, torch.randn(shape, generator=g, dtype=real))
    return t


def _leaves(case: Case, dtype: torch.dtype) -> tuple[list[torch.Tensor], list[Any]]:
    theirs, ours = [], []
    for i, shape in enumerate(case.shapes):
        t = _values(shape, case.kind, dtype, seed=10 + i)
        theirs.append(t.clone().requires_grad_(True))
        ours.append(refimpl.tensor(t.numpy()).requires_grad_(True))
    return theirs, ours


def _inputs(case: Case, leaves: list[Any], lib: Any) -> list[Any]:
    if not case.transpose:
        return leaves
    return [lib.transpose(x, 0, 1) for x in leaves]


def _numpy(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)
    return np.asarray(t.detach().numpy(force=True))


def _close(ours: Any, theirs: Any, what: str) -> None:
    if theirs is None:
        assert ours is None or not np.any(_numpy(ours)), what
        return
    assert ours is not None, f"{what}: refimpl gave no gradient"
    a, b = _numpy(ours), _numpy(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert str(ours.dtype).rpartition(".")[2] == str(theirs.dtype).rpartition(".")[2], what
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=what)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return ("tensor", tuple(value.shape), _numpy(value).tolist())
    if hasattr(value, "is_floating_point") or type(value).__name__ == "dtype":
        return str(value).rpartition(".")[2]
    return value


def _differentiable(outputs: Any, case: Case) -> list[int]:
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    return [
        i
        for i, o in enumerate(outs)
        if (o.dtype.is_floating_point or o.dtype.is_complex) and i not in case.skip_outputs
    ]


def _compare_node(ours: Any, theirs: Any) -> None:
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.name() == theirs.name()
    names = [(type(f).__name__ if f is not None else None, i) for f, i in theirs.next_functions]
    got = [(type(f).__name__ if f is not None else None, i) for f, i in ours.next_functions]
    assert got == names
    for attr in sorted(a for a in dir(theirs) if a.startswith("_saved_")):
        expected = _plain(getattr(theirs, attr))
        actual = _plain(getattr(ours, attr))
        if isinstance(expected, tuple) and expected[0] == "tensor":
            assert actual[0] == "tensor" and actual[1] == expected[1], attr
            np.testing.assert_allclose(
                np.asarray(actual[2]), np.asarray(expected[2]), equal_nan=True, err_msg=attr
            )
        elif isinstance(expected, float) and isinstance(actual, (int, float)):
            assert actual == expected or (math.isnan(expected) and math.isnan(actual)), attr
        else:
            assert actual == expected, f"{attr}: {actual!r} != {expected!r}"


def run(case: Case, dtype: torch.dtype) -> None:
    theirs_leaves, ours_leaves = _leaves(case, dtype)
    theirs_out = case.fn(torch, torch.ops.aten, *_inputs(case, theirs_leaves, torch))
    ours_out = case.fn(refimpl, refimpl.ops.aten, *_inputs(case, ours_leaves, refimpl))
    wanted = _differentiable(theirs_out, case)
    t_outs = theirs_out if isinstance(theirs_out, tuple) else (theirs_out,)
    o_outs = ours_out if isinstance(ours_out, tuple) else (ours_out,)
    _compare_node(o_outs[wanted[0]].grad_fn, t_outs[wanted[0]].grad_fn)

    g = torch.Generator().manual_seed(1)
    t_grads = [
        torch.randn(t_outs[i].shape, generator=g, dtype=t_outs[i].dtype).requires_grad_(True)
        for i in wanted
    ]
    o_grads = [refimpl.tensor(x.detach().numpy()).requires_grad_(True) for x in t_grads]
    t_first = torch.autograd.grad(
        [t_outs[i] for i in wanted], theirs_leaves, t_grads, create_graph=True, allow_unused=True
    )
    o_first = refimpl.autograd.grad(
        [o_outs[i] for i in wanted], ours_leaves, o_grads, create_graph=True, allow_unused=True
    )
    for n, (o, t) in enumerate(zip(o_first, t_first, strict=True)):
        _close(o, t, f"first derivative of input {n}")
    if not case.second:
        return

    pairs = [(o, t) for o, t in zip(o_first, t_first, strict=True) if t is not None]
    vs = [torch.randn(t.shape, generator=g, dtype=t.dtype) for _, t in pairs]
    t_dot = sum((t * v).sum() for (_, t), v in zip(pairs, vs, strict=True))
    if not isinstance(t_dot, torch.Tensor) or not t_dot.requires_grad:
        return
    t_second = torch.autograd.grad(
        t_dot, theirs_leaves + t_grads, torch.ones_like(t_dot), allow_unused=True
    )
    try:
        o_dot = None
        for (o, _), v in zip(pairs, vs, strict=True):
            term = refimpl.sum(o * refimpl.tensor(v.numpy()))
            o_dot = term if o_dot is None else o_dot + term
        o_second = refimpl.autograd.grad(
            o_dot, ours_leaves + o_grads, refimpl.ones_like(o_dot), allow_unused=True
        )
    except NotImplementedError as error:
        pytest.skip(f"second derivative: {error}")
    for n, (o, t) in enumerate(zip(o_second, t_second, strict=True)):
        _close(o, t, f"second derivative with respect to input {n}")


def _sum_outputs(lib: Any, outputs: tuple[Any, ...]) -> Any:
    return outputs[0] * 2 + outputs[1]


CASES: list[Case] = [
    # sum, nansum, mean, prod
    Case("sum", lambda T, A, x: T.sum(x), complex=True),
    Case("sum_0dim", lambda T, A, x: T.sum(x), shapes=((),)),
    Case("sum_empty", lambda T, A, x: T.sum(x), shapes=((0, 3),)),
    Case("sum_dim", lambda T, A, x: T.sum(x, 1), complex=True, transpose=True),
    Case("sum_dims_keepdim", lambda T, A, x: T.sum(x, (0, -1), keepdim=True)),
    Case("sum_dim_empty", lambda T, A, x: T.sum(x, 0), shapes=((0, 3),)),
    Case("sum_dtype", lambda T, A, x: A.sum.dim_IntList(x, [1], dtype=T.float32), second=False),
    Case("nansum", lambda T, A, x: T.nansum(x), kind="nan"),
    Case("nansum_dim", lambda T, A, x: T.nansum(x, 1, keepdim=True), kind="nan"),
    Case("mean", lambda T, A, x: T.mean(x), complex=True),
    Case("mean_dim", lambda T, A, x: T.mean(x, -1), complex=True, transpose=True),
    Case("mean_dims_keepdim", lambda T, A, x: T.mean(x, (0, 1), keepdim=True)),
    Case("mean_0dim", lambda T, A, x: T.mean(x, 0), shapes=((),)),
    Case("prod", lambda T, A, x: T.prod(x), complex=True),
    Case("prod_one_zero", lambda T, A, x: T.prod(x), shapes=((5,),), kind="zeros"),
    Case("prod_two_zeros", lambda T, A, x: T.prod(x), kind="two_zeros"),
    Case("prod_0dim", lambda T, A, x: T.prod(x), shapes=((),)),
    Case("prod_dim", lambda T, A, x: T.prod(x, 1), complex=True, transpose=True),
    Case("prod_dim_zeros", lambda T, A, x: T.prod(x, 0, keepdim=True), kind="zeros"),
    Case("prod_dim_zeros_c", lambda T, A, x: T.prod(x, 1), kind="zeros", complex=True),
    # extremes
    Case("amax", lambda T, A, x: T.amax(x), kind="ties"),
    Case("amax_dim", lambda T, A, x: T.amax(x, 1), kind="ties", transpose=True),
    Case("amin_dims_keepdim", lambda T, A, x: T.amin(x, (0, 1), keepdim=True), kind="ties"),
    Case("amin_0dim", lambda T, A, x: T.amin(x, 0), shapes=((),)),
    Case("aminmax", lambda T, A, x: _sum_outputs(T, T.aminmax(x)), kind="ties"),
    Case("aminmax_dim", lambda T, A, x: T.aminmax(x, dim=1), kind="ties"),
    Case("aminmax_min_only", lambda T, A, x: T.aminmax(x, dim=0, keepdim=True),
         kind="ties", skip_outputs=(1,)),
    Case("max", lambda T, A, x: T.max(x), kind="ties"),
    Case("max_nan", lambda T, A, x: T.max(x), kind="nan"),
    Case("min", lambda T, A, x: T.min(x)),
    Case("max_dim", lambda T, A, x: T.max(x, 1), kind="ties", transpose=True),
    Case("min_dim_keepdim", lambda T, A, x: T.min(x, 0, keepdim=True)),
    Case("max_dim_0dim", lambda T, A, x: T.max(x, 0), shapes=((),)),
    # order statistics
    Case("median", lambda T, A, x: T.median(x), kind="ties"),
    Case("nanmedian", lambda T, A, x: T.nanmedian(x), kind="nan"),
    Case("median_dim", lambda T, A, x: T.median(x, 1), transpose=True),
    Case("nanmedian_dim", lambda T, A, x: T.nanmedian(x, 1, keepdim=True), kind="nan"),
    Case("mode", lambda T, A, x: T.mode(x, 1), kind="ties"),
    Case("kthvalue", lambda T, A, x: T.kthvalue(x, 2, 0)),
    Case("kthvalue_keepdim", lambda T, A, x: T.kthvalue(x, 3, 1, keepdim=True)),
    # logsumexp, norms, renorm, dist
    Case("logsumexp", lambda T, A, x: T.logsumexp(x, 1), complex=True),
    Case("logsumexp_keepdim", lambda T, A, x: T.logsumexp(x, (0, 1), keepdim=True)),
    Case("logsumexp_0dim", lambda T, A, x: T.logsumexp(x, 0), shapes=((),)),
    Case("norm_scalar_2", lambda T, A, x: A.norm.Scalar(x, 2), complex=True),
    Case("norm_scalar_1", lambda T, A, x: A.norm.Scalar(x, 1), complex=True),
    Case("norm_scalar_0", lambda T, A, x: A.norm.Scalar(x, 0), second=False),
    Case("norm_scalar_3", lambda T, A, x: A.norm.Scalar(x, 3), complex=True),
    Case("norm_scalar_1_5", lambda T, A, x: A.norm.Scalar(x, 1.5)),
    Case("norm_scalar_0_5", lambda T, A, x: A.norm.Scalar(x, 0.5), kind="zeros"),
    Case("norm_scalar_inf", lambda T, A, x: A.norm.Scalar(x, math.inf), kind="ties"),
    Case("norm_dim", lambda T, A, x: A.norm.ScalarOpt_dim(x, 2, [1]), transpose=True),
    Case("norm_dim_inf", lambda T, A, x: A.norm.ScalarOpt_dim(x, -math.inf, [0], True)),
    Case("norm_dtype", lambda T, A, x: A.norm.ScalarOpt_dtype(x, 3, dtype=T.float64)),
    Case("norm_dim_dtype",
         lambda T, A, x: A.norm.ScalarOpt_dim_dtype(x, 2, [0], False, dtype=T.float64)),
    Case("vector_norm", lambda T, A, x: A.linalg_vector_norm(x), complex=True),
    Case("vector_norm_dim", lambda T, A, x: A.linalg_vector_norm(x, 3, [1]), transpose=True),
    Case("vector_norm_zero", lambda T, A, x: A.linalg_vector_norm(x * 0, 2, [1], True)),
    Case("vector_norm_inf", lambda T, A, x: A.linalg_vector_norm(x, math.inf, [0]),
         kind="ties"),
    Case("renorm", lambda T, A, x: T.renorm(x, 2, 0, 1.5), complex=True),
    Case("renorm_p1", lambda T, A, x: T.renorm(x, 1, 1, 1.0), shapes=((3, 4, 2),)),
    Case("renorm_", lambda T, A, x: (x * 1).renorm_(3, 1, 1.0)),
    Case("dist", lambda T, A, x, y: T.dist(x, y), shapes=((3, 4), (4,)), complex=True),
    Case("dist_p1", lambda T, A, x, y: T.dist(x, y, 1), shapes=((3, 4), (3, 4))),
    Case("dist_inf", lambda T, A, x, y: T.dist(x, y, math.inf), shapes=((2, 3), (2, 3))),
    # var, std and their means
    # torch.var(x) binds var.correction (correction None); refimpl.var(x) binds var(unbiased)
    # (correction 1): the aten overload is called directly where that shows.
    Case("var", lambda T, A, x: A.var.correction(x), complex=True),
    Case("var_dim", lambda T, A, x: T.var(x, 1, correction=0), transpose=True, complex=True),
    Case("var_dims_keepdim", lambda T, A, x: T.var(x, (0, 1), keepdim=True)),
    Case("var_dof_zero", lambda T, A, x: T.var(x, unbiased=True), shapes=((1,),)),
    Case("var_dim_dof_zero", lambda T, A, x: T.var(x, 1), shapes=((3, 1),)),
    Case("std", lambda T, A, x: A.std.correction(x), complex=True),
    Case("std_dim", lambda T, A, x: T.std(x, 0, correction=2, keepdim=True)),
    Case("std_3d", lambda T, A, x: T.std(x, (0, 2)), shapes=((2, 3, 4),)),
    Case("var_mean", lambda T, A, x: T.var_mean(x, 1), complex=True),
    Case("var_mean_all", lambda T, A, x: A.var_mean.correction(x)),
    Case("var_mean_var_only", lambda T, A, x: T.var_mean(x, 0), skip_outputs=(1,)),
    Case("std_mean", lambda T, A, x: T.std_mean(x, 1, keepdim=True)),
    Case("std_mean_mean_only", lambda T, A, x: A.std_mean.correction(x), skip_outputs=(0,)),
    # scans
    Case("cumsum", lambda T, A, x: T.cumsum(x, 1), complex=True, transpose=True),
    Case("cumsum_0dim", lambda T, A, x: T.cumsum(x, 0), shapes=((),)),
    Case("cumsum_dtype", lambda T, A, x: T.cumsum(x, 0, dtype=T.float32), second=False),
    Case("cumsum_", lambda T, A, x: (x * 1).cumsum_(0)),
    Case("cumprod", lambda T, A, x: T.cumprod(x, 1), complex=True),
    Case("cumprod_zeros", lambda T, A, x: T.cumprod(x, 1), kind="zeros"),
    Case("cumprod_zeros_c", lambda T, A, x: T.cumprod(x, 0), kind="zeros", complex=True),
    Case("cumprod_two_zeros", lambda T, A, x: T.cumprod(x, 0), shapes=((5,),),
         kind="two_zeros"),
    Case("cumprod_", lambda T, A, x: (x * 1).cumprod_(0), kind="zeros"),
    Case("cummax", lambda T, A, x: T.cummax(x, 1), kind="ties", transpose=True),
    Case("cummin", lambda T, A, x: T.cummin(x, 0), kind="ties"),
    Case("cummax_0dim", lambda T, A, x: T.cummax(x, 0), shapes=((),)),
    Case("logcumsumexp", lambda T, A, x: T.logcumsumexp(x, 1), complex=True),
    Case("logcumsumexp_0dim", lambda T, A, x: T.logcumsumexp(x, 0), shapes=((),)),
    Case("trace", lambda T, A, x: T.trace(x), complex=True),
    Case("trace_tall", lambda T, A, x: T.trace(x), shapes=((4, 2),)),
]

PARAMS = [
    pytest.param(case, dtype, id=f"{case.id}-{str(dtype).rpartition('.')[2]}")
    for case in CASES
    for dtype in ((torch.float64, torch.complex128) if case.complex else (torch.float64,))
]


@pytest.mark.parametrize(("case", "dtype"), PARAMS)
def test_derivative_matches_torch(case: Case, dtype: torch.dtype) -> None:
    run(case, dtype)


def test_every_formula_overload_has_a_case() -> None:
    """Every overload of this family that torch differentiates by formula has one here."""
    from refimpl.ops._derivative import DERIVATIVES

    family = {
        "sum", "sum.dim_IntList", "nansum", "mean", "mean.dim", "prod", "prod.dim_int",
        "amax", "amin", "aminmax", "max", "min", "max.dim", "min.dim", "median", "nanmedian",
        "median.dim", "nanmedian.dim", "mode", "kthvalue", "logsumexp", "linalg_vector_norm",
        "norm.Scalar", "norm.ScalarOpt_dim", "norm.ScalarOpt_dtype", "norm.ScalarOpt_dim_dtype",
        "renorm", "dist", "var.correction", "std.correction", "var_mean.correction",
        "std_mean.correction", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "trace",
    }
    missing = sorted(name for name in family if f"aten::{name}" not in DERIVATIVES)
    assert not missing
