"""torch.linalg's norms, products and matrix functions against torch, beyond the OpInfos.

Covers what the OpInfo samples leave out: every `ord` of matrix_norm, norm and cond with
dims, keepdim and dtype; matrix_power for negative, zero and large powers (integers too);
matrix_exp on each branch of torch's degree selection (single matrices with norms in each
threshold interval, batches, the BLAS-sized path, 0x0, 1x1, NaN) to torch's rounding;
multi_dot's product order (the aten calls torch makes), chain_matmul, vander, vecdot,
tensorinv, tensorsolve, frobenius_norm, nuclear_norm and torch.norm's matrix norms; the out=
forms (resize, dtype checks); torch's errors (type and message); and gradients (matrix_exp's
block-matrix backward, aten.matrix_exp_backward, norms and cond through the ops they call).

Each case runs the same call in both libraries on the same values and compares the outcome:
the exception, or dtype, shape, strides and values.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import refimpl
from conformance._oracle import STORED_DTYPES, outcome
from refimpl.utils._python_dispatch import TorchDispatchMode as RefimplTorchDispatchMode

_INF: Final = math.inf
_GEN: Final = torch.Generator().manual_seed(14)


def _randn(*shape: int, dtype: torch.dtype = torch.float64, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN, dtype=dtype) * scale


def _in(lib: Any, t: torch.Tensor, requires_grad: bool = False) -> Any:
    """`t` (a torch tensor) in `lib`: a copy for torch, the same values for refimpl."""
    if lib is torch:
        return t.clone().requires_grad_(requires_grad)
    name = str(t.dtype).removeprefix("torch.")
    if name not in STORED_DTYPES:
        pytest.skip(f"{name} is not stored by this backend")
    dtype = getattr(refimpl, name)
    values = refimpl.tensor(t.tolist(), dtype=dtype).reshape(t.shape)
    if t.dim() >= 2 and t.stride(-2) == 1 and t.stride(-1) != 1:
        values = values.mT.contiguous().mT  # a transposed input stays transposed
    return values.requires_grad_(requires_grad)


def _to_torch(actual: Any, like: torch.Tensor) -> torch.Tensor:
    return torch.tensor(actual.tolist(), dtype=like.dtype).reshape(like.shape)


def _same(expected: Any, actual: Any, rtol: float | None = None, atol: float | None = None) -> None:
    if isinstance(expected, tuple | list):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a, rtol, atol)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    if expected.numel() > 1:
        assert tuple(actual.stride()) == tuple(expected.stride())
    torch.testing.assert_close(
        _to_torch(actual, expected), expected.detach(), rtol=rtol, atol=atol, equal_nan=True
    )


def _check(
    call: Callable[[Any], Any], rtol: float | None = None, atol: float | None = None
) -> None:
    expected, expected_error = outcome(call, torch)
    actual, actual_error = outcome(call, refimpl)
    if isinstance(actual_error, NotImplementedError) and "backend has no" in str(actual_error):
        # inv, solve and svd need LAPACK functions the Array API lacks; a backend without
        # them (array_api_strict) says so.
        pytest.skip(str(actual_error))
    if expected_error is not None:
        assert actual_error is not None, f"refimpl returned, torch raised {expected_error!r}"
        expected_type = type(expected_error).__name__.removeprefix("_")
        assert type(actual_error).__name__ == expected_type
        assert str(actual_error) == str(expected_error)
        return
    assert actual_error is None, f"refimpl raised {actual_error!r}"
    _same(expected, actual, rtol, atol)


# --- values ------------------------------------------------------------------------------------

_A = _randn(2, 3, 4)
_SQ = _randn(2, 3, 3)
_SQ_C = _randn(3, 3, dtype=torch.complex128)
_SINGULAR = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)

_CHAIN: Final = [_randn(4, 2), _randn(2, 6), _randn(6, 1), _randn(1, 5), _randn(5, 3)]
_T623, _T234, _T32, _T23 = _randn(6, 2, 3), _randn(2, 3, 4), _randn(3, 2), _randn(2, 3)
_T236 = _randn(2, 3, 6)

_MATRIX_ORDERS: Final = ["fro", "nuc", _INF, -_INF, 1, -1, 2, -2]

VALUE_CASES: Final[list[tuple[str, Callable[[Any], Any]]]] = [
    *[
        (f"matrix_norm-{o}", lambda L, o=o: L.linalg.matrix_norm(_in(L, _A), o))
        for o in _MATRIX_ORDERS
    ],
    *[
        (
            f"matrix_norm-{o}-dims-keepdim",
            lambda L, o=o: L.linalg.matrix_norm(_in(L, _A), o, dim=(2, 0), keepdim=True),
        )
        for o in _MATRIX_ORDERS
    ],
    *[
        (
            f"matrix_norm-{o}-dtype",
            lambda L, o=o: L.linalg.matrix_norm(_in(L, _A.float()), o, dtype=L.float64),
        )
        for o in _MATRIX_ORDERS
    ],
    *[
        (f"matrix_norm-complex-{o}", lambda L, o=o: L.linalg.matrix_norm(_in(L, _SQ_C), o))
        for o in _MATRIX_ORDERS
    ],
    *[
        (
            f"matrix_norm-empty-{o}",
            lambda L, o=o: L.linalg.matrix_norm(_in(L, torch.zeros(2, 3, 0)), o, keepdim=True),
        )
        for o in ("fro", "nuc", _INF, 1, 2)
    ],
    ("norm-default-3d", lambda L: L.linalg.norm(_in(L, _A))),
    ("norm-vector-ord3-dim", lambda L: L.linalg.norm(_in(L, _A), 3, dim=1)),
    ("norm-matrix-ord-inf", lambda L: L.linalg.norm(_in(L, _A[0]), _INF)),
    ("norm-nuc-dims", lambda L: L.linalg.norm(_in(L, _A), "nuc", dim=(0, 1), keepdim=True)),
    ("norm-fro-2d", lambda L: L.linalg.norm(_in(L, _A[0]), "fro")),
    ("norm-dtype", lambda L: L.linalg.norm(_in(L, _A.float()), dtype=L.float64)),
    ("vector_norm", lambda L: L.linalg.vector_norm(_in(L, _A), 0.5, dim=(0, 2))),
    *[(f"cond-{p}", lambda L, p=p: L.linalg.cond(_in(L, _SQ), p)) for p in [None, *_MATRIX_ORDERS]],
    *[
        (f"cond-complex-{p}", lambda L, p=p: L.linalg.cond(_in(L, _SQ_C), p))
        for p in [None, 1, "fro", "nuc"]
    ],
    *[
        (f"cond-singular-{p}", lambda L, p=p: L.linalg.cond(_in(L, _SINGULAR), p))
        for p in [1, -_INF, "fro"]
    ],
    ("cond-rectangular-2", lambda L: L.linalg.cond(_in(L, _A), -2)),
    ("cond-empty", lambda L: L.linalg.cond(_in(L, torch.zeros(2, 0, 0)))),
    ("cond-empty-fro", lambda L: L.linalg.cond(_in(L, torch.zeros(2, 0, 0)), "fro")),
    *[
        (f"matrix_power-{n}", lambda L, n=n: L.linalg.matrix_power(_in(L, _SQ), n))
        for n in range(-3, 8)
    ],
    ("matrix_power-transposed-0", lambda L: L.linalg.matrix_power(_in(L, _SQ).mT, 0)),
    ("matrix_power-transposed-1", lambda L: L.linalg.matrix_power(_in(L, _SQ).mT, 1)),
    *[
        (
            f"matrix_power-int-{n}",
            lambda L, n=n: L.matrix_power(_in(L, torch.arange(9).reshape(3, 3)), n),
        )
        for n in (0, 1, 2, 5)
    ],
    ("matrix_power-method", lambda L: _in(L, _SQ_C).matrix_power(-2)),
    (
        "multi_dot-1d-ends",
        lambda L: L.linalg.multi_dot([_in(L, _A[0, 0]), _in(L, _SQ[0]), _in(L, _A[0])]),
    ),
    ("multi_dot-1d-1d", lambda L: L.linalg.multi_dot([_in(L, _A[0, 0]), _in(L, _A[0, 1])])),
    (
        "multi_dot-5",
        lambda L: L.linalg.multi_dot([_in(L, t) for t in _CHAIN]),
    ),
    (
        "multi_dot-int",
        lambda L: L.linalg.multi_dot(
            [_in(L, torch.arange(6).reshape(2, 3))] * 1 + [_in(L, torch.arange(6).reshape(3, 2))]
        ),
    ),
    ("chain_matmul-1", lambda L: L.chain_matmul(_in(L, _SQ[0]))),
    ("chain_matmul-4", lambda L: L.chain_matmul(*[_in(L, _SQ[i % 2]) for i in range(4)])),
    ("vecdot-complex-dim0", lambda L: L.linalg.vecdot(_in(L, _SQ_C), _in(L, _SQ_C[0]), dim=0)),
    ("vecdot-broadcast", lambda L: L.linalg.vecdot(_in(L, _A), _in(L, _A[0, 0]))),
    ("vander-N", lambda L: L.linalg.vander(_in(L, _A[0]), N=5)),
    ("vander-int8", lambda L: L.linalg.vander(_in(L, torch.tensor([1, -2, 3], dtype=torch.int8)))),
    ("vander-complex", lambda L: L.linalg.vander(_in(L, _SQ_C[0]))),
    ("tensorinv-ind1", lambda L: L.linalg.tensorinv(_in(L, _T623), ind=1)),
    (
        "tensorinv-ind2",
        lambda L: L.linalg.tensorinv(_in(L, _T236.reshape(6, 2, 3).permute(1, 2, 0))),
    ),
    ("tensorsolve-dims", lambda L: L.linalg.tensorsolve(_in(L, _T236), _in(L, _T32), dims=(0,))),
    ("tensorsolve", lambda L: L.linalg.tensorsolve(_in(L, _T236), _in(L, _T23))),
    ("frobenius_norm", lambda L: L.frobenius_norm(_in(L, _A), [0, 2], keepdim=True)),
    ("nuclear_norm", lambda L: L.nuclear_norm(_in(L, _A), keepdim=True)),
    ("nuclear_norm-dims", lambda L: L.nuclear_norm(_in(L, _A), [0, 2])),
    ("torch.norm-nuc", lambda L: L.norm(_in(L, _A[0]), "nuc")),
    ("torch.norm-nuc-dims", lambda L: L.norm(_in(L, _A), "nuc", dim=(1, 2))),
    ("Tensor.norm-nuc", lambda L: _in(L, _A[0]).norm("nuc", keepdim=True)),
    ("linalg.diagonal", lambda L: L.linalg.diagonal(_in(L, _A), offset=1, dim1=0, dim2=2)),
    ("linalg.matmul", lambda L: L.linalg.matmul(_in(L, _A), _in(L, _A[0].mT))),
    ("linalg.cross", lambda L: L.linalg.cross(_in(L, _SQ), _in(L, _SQ[0]), dim=0)),
]


@pytest.mark.parametrize(("name", "call"), VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_values(name: str, call: Callable[[Any], Any]) -> None:
    _check(call)


# --- matrix_exp: each branch of torch's algorithm ------------------------------------------------
# The 1-norm bounds torch's degrees switch at (float32 / float64); norms just under, between
# and over each, and far over (squarings).
_NORMS: Final = {
    torch.float32: (1e-7, 5e-4, 5e-2, 0.5, 1.4, 2.9, 20.0, 300.0),
    torch.float64: (1e-16, 2e-8, 3e-4, 4e-2, 0.25, 1.0, 20.0, 300.0),
}
_EXP_DTYPES: Final = (torch.float32, torch.float64, torch.complex64, torch.complex128)


def _batch_with_nan_and_inf() -> torch.Tensor:
    a = _randn(4, 3, 3, scale=3.0)
    a[1, 0, 0] = math.nan
    a[2, 1, 1] = math.inf
    return a


_NAN_INF_BATCH: Final = _batch_with_nan_and_inf()


def _with_norm(n: int, dtype: torch.dtype, norm: float) -> torch.Tensor:
    a = _randn(n, n, dtype=dtype)
    return a * (norm / float(torch.linalg.matrix_norm(a, 1)))


MATRIX_EXP_CASES: Final = [
    (f"{str(d).removeprefix('torch.')}-n{n}-norm{norm:g}", _with_norm(n, d, norm))
    for d in _EXP_DTYPES
    for norm in _NORMS[d.to_real()]
    for n in (2, 5)
] + [
    ("float32-batch", _randn(4, 5, 5, dtype=torch.float32, scale=3.0)),
    ("complex128-batch", _randn(2, 3, 4, 4, dtype=torch.complex128)),
    ("float64-blas-sized", _randn(9, 9, scale=0.5)),
    ("float64-1x1", _randn(3, 1, 1)),
    ("float64-0x0", torch.zeros(2, 0, 0, dtype=torch.float64)),
    ("float64-nan", torch.tensor([[1.0, math.nan], [0.0, 1.0]], dtype=torch.float64)),
    ("float64-transposed", _randn(4, 4).mT),
    ("float64-batch-nan-inf", _NAN_INF_BATCH),
    # torch's float16 results come from its tables' bytes read as float16 (see the note in
    # _linalg_norms_functions.py): NaN, infinities or huge values, reproduced.
    *[
        (f"float16-n{n}-scale{scale:g}-batch{batch}", _randn(batch, n, n, scale=scale).half())
        for n in (3, 5)
        for scale in (1e-4, 1e-2, 0.1, 0.2, 0.5, 30.0)
        for batch in (1, 2)
    ],
]


@pytest.mark.parametrize(("name", "a"), MATRIX_EXP_CASES, ids=[c[0] for c in MATRIX_EXP_CASES])
def test_matrix_exp(name: str, a: torch.Tensor) -> None:
    # torch's polynomials and products are reproduced in the input's precision, so the
    # results agree to a few ulps of the largest entry (squarings amplify a last-bit
    # difference of the library's products only past the small-matrix path).
    rtol = {torch.float16: 1e-3, torch.float32: 1e-5, torch.complex64: 1e-5}.get(a.dtype, 1e-12)
    atol = (
        rtol * float(torch.linalg.matrix_exp(a).abs().nan_to_num().amax(dim=(-2, -1)).max())
        if a.numel()
        else 0.0
    )
    _check(lambda L: L.linalg.matrix_exp(_in(L, a)), rtol=rtol, atol=atol)


def test_matrix_exp_aliases() -> None:
    _check(lambda L: L.matrix_exp(_in(L, _SQ)))
    _check(lambda L: _in(L, _SQ_C).matrix_exp())
    _check(lambda L: L.ops.aten.matrix_exp_backward(_in(L, _SQ), _in(L, _SQ[::-1].contiguous())))


# --- out= ------------------------------------------------------------------------------------------


def _out(dtype: torch.dtype, *shape: int) -> Callable[[Any], Any]:
    return lambda L: L.empty(shape, dtype=getattr(L, str(dtype).removeprefix("torch.")))


OUT_CASES: Final[list[tuple[str, Callable[[Any, Any], Any]]]] = [
    ("norm", lambda L, o: L.linalg.norm(_in(L, _A), out=o)),
    ("norm-nuc", lambda L, o: L.linalg.norm(_in(L, _A[0]), "nuc", out=o)),
    ("matrix_norm", lambda L, o: L.linalg.matrix_norm(_in(L, _A), 1, out=o)),
    ("matrix_norm-fro", lambda L, o: L.linalg.matrix_norm(_in(L, _A), out=o)),
    ("cond", lambda L, o: L.linalg.cond(_in(L, _SQ), out=o)),
    ("cond-fro", lambda L, o: L.linalg.cond(_in(L, _SQ), "fro", out=o)),
    *[
        (f"matrix_power-{n}", lambda L, o, n=n: L.linalg.matrix_power(_in(L, _SQ), n, out=o))
        for n in (-2, -1, 0, 1, 2, 3, 6)
    ],
    ("torch.matrix_power", lambda L, o: L.matrix_power(_in(L, _SQ), 5, out=o)),
    ("multi_dot-2", lambda L, o: L.linalg.multi_dot([_in(L, _SQ[0]), _in(L, _A[0])], out=o)),
    (
        "multi_dot-3",
        lambda L, o: L.linalg.multi_dot([_in(L, _A[0, 0]), _in(L, _SQ[0]), _in(L, _A[0])], out=o),
    ),
    ("multi_dot-4", lambda L, o: L.linalg.multi_dot([_in(L, _SQ[0])] * 3 + [_in(L, _A[0])], out=o)),
    ("chain_matmul-1", lambda L, o: L.chain_matmul(_in(L, _SQ[0]), out=o)),
    ("vecdot", lambda L, o: L.linalg.vecdot(_in(L, _A), _in(L, _A), out=o)),
    ("tensorinv", lambda L, o: L.linalg.tensorinv(_in(L, _SQ[0]), 1, out=o)),
    ("tensorsolve", lambda L, o: L.linalg.tensorsolve(_in(L, _SQ[0]), _in(L, _A[0, 0, :3]), out=o)),
    ("frobenius_norm", lambda L, o: L.frobenius_norm(_in(L, _A), [1, 2], out=o)),
    ("nuclear_norm", lambda L, o: L.nuclear_norm(_in(L, _A), out=o)),
    ("linalg.matmul", lambda L, o: L.linalg.matmul(_in(L, _SQ), _in(L, _SQ), out=o)),
]
_OUTS: Final = {
    "empty": _out(torch.float64, 0),
    "wrong-shape": _out(torch.float64, 2, 2),
    "float32": _out(torch.float32, 0),
    "int64": _out(torch.int64, 0),
    "complex128": _out(torch.complex128, 0),
}


@pytest.mark.parametrize("out", list(_OUTS))
@pytest.mark.parametrize(("name", "call"), OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out(name: str, call: Callable[[Any, Any], Any], out: str) -> None:
    make = _OUTS[out]

    def run(L: Any) -> Any:
        o = make(L)
        result = call(L, o)
        assert result is o
        return o

    _check(run)


# --- errors ----------------------------------------------------------------------------------------

_L = torch.ones(3, 3, dtype=torch.long)
_H = torch.ones(3, 3, dtype=torch.float16)
_R = _randn(2, 3)
_F = _SQ[0]

ERROR_CASES: Final[list[tuple[str, Callable[[Any], Any]]]] = [
    ("mn-ord3", lambda L: L.linalg.matrix_norm(_in(L, _F), 3)),
    ("mn-ord-complex", lambda L: L.linalg.matrix_norm(_in(L, _F), 1j)),
    ("mn-long", lambda L: L.linalg.matrix_norm(_in(L, _L))),
    ("mn-half-nuc", lambda L: L.linalg.matrix_norm(_in(L, _H), "nuc")),
    ("mn-half-2", lambda L: L.linalg.matrix_norm(_in(L, _H), -2)),
    ("mn-1d", lambda L: L.linalg.matrix_norm(_in(L, _F[0]))),
    ("mn-dim3", lambda L: L.linalg.matrix_norm(_in(L, _F), dim=(0, 1, 1))),
    ("mn-dims-same", lambda L: L.linalg.matrix_norm(_in(L, _F), dim=(1, -1))),
    ("mn-dim-range", lambda L: L.linalg.matrix_norm(_in(L, _F), dim=(1, 5))),
    ("mn-str", lambda L: L.linalg.matrix_norm(_in(L, _F), "abc")),
    ("mn-dtype-long", lambda L: L.linalg.matrix_norm(_in(L, _F), dtype=L.long)),
    ("mn-dtype-complex", lambda L: L.linalg.matrix_norm(_in(L, _F), dtype=L.cdouble)),
    ("mn-dtype-narrow", lambda L: L.linalg.matrix_norm(_in(L, _F), dtype=L.float32)),
    ("mn-out-dtype", lambda L: L.linalg.matrix_norm(_in(L, _F), out=L.empty(0, dtype=L.float32))),
    ("mn-empty-min", lambda L: L.linalg.matrix_norm(_in(L, torch.zeros(3, 0)), -1)),
    ("norm-dim3", lambda L: L.linalg.norm(_in(L, _F), dim=(0, 1, 1))),
    ("norm-3d-ord", lambda L: L.linalg.norm(_in(L, _A), 2)),
    ("norm-3d-str", lambda L: L.linalg.norm(_in(L, _A), "fro")),
    ("norm-1d-fro", lambda L: L.linalg.norm(_in(L, _F[0]), "fro")),
    ("norm-long", lambda L: L.linalg.norm(_in(L, _L))),
    ("norm-long-ord", lambda L: L.linalg.norm(_in(L, _L), 1)),
    ("norm-out-dtype", lambda L: L.linalg.norm(_in(L, _F), out=L.empty(0, dtype=L.float32))),
    ("norm-str-dim1", lambda L: L.linalg.norm(_in(L, _F), "nuc", dim=(1,))),
    ("cond-1d", lambda L: L.linalg.cond(_in(L, _F[0]))),
    ("cond-3", lambda L: L.linalg.cond(_in(L, _F), 3)),
    ("cond-str", lambda L: L.linalg.cond(_in(L, _F), "abc")),
    ("cond-1-rect", lambda L: L.linalg.cond(_in(L, _R), 1)),
    ("cond-1.0-rect", lambda L: L.linalg.cond(_in(L, _R), 1.0)),
    ("cond-inf-rect", lambda L: L.linalg.cond(_in(L, _R), -_INF)),
    ("cond-fro-rect", lambda L: L.linalg.cond(_in(L, _R), "fro")),
    ("cond-long-1", lambda L: L.linalg.cond(_in(L, _L), 1)),
    ("cond-half-1", lambda L: L.linalg.cond(_in(L, _H), 1)),
    ("cond-out-dtype", lambda L: L.linalg.cond(_in(L, _F), out=L.empty(0, dtype=L.long))),
    ("mp-rect", lambda L: L.linalg.matrix_power(_in(L, _R), 2)),
    ("mp-1d", lambda L: L.linalg.matrix_power(_in(L, _F[0]), 2)),
    ("mp-long-neg", lambda L: L.linalg.matrix_power(_in(L, _L), -1)),
    ("mp-singular", lambda L: L.linalg.matrix_power(_in(L, torch.zeros(3, 3)), -2)),
    ("mp-out-dtype", lambda L: L.linalg.matrix_power(_in(L, _F), 2, out=L.empty(0, dtype=L.long))),
    ("me-rect", lambda L: L.linalg.matrix_exp(_in(L, _R))),
    ("me-long", lambda L: L.linalg.matrix_exp(_in(L, _L))),
    ("me-1d", lambda L: L.matrix_exp(_in(L, _F[0]))),
    ("me-backward-rect", lambda L: L.ops.aten.matrix_exp_backward(_in(L, _R), _in(L, _R))),
    ("ti-ind0", lambda L: L.linalg.tensorinv(_in(L, _F), 0)),
    ("ti-prod", lambda L: L.linalg.tensorinv(_in(L, _T234), 1)),
    ("ti-singular", lambda L: L.linalg.tensorinv(_in(L, torch.zeros(4, 2, 2)), 1)),
    ("ti-out-dtype", lambda L: L.linalg.tensorinv(_in(L, _F), 1, out=L.empty(0, dtype=L.long))),
    ("ts-prod", lambda L: L.linalg.tensorsolve(_in(L, _T234), _in(L, _T23[0, :2]))),
    ("ts-singular", lambda L: L.linalg.tensorsolve(_in(L, torch.zeros(2, 3, 6)), _in(L, _T23))),
    (
        "ts-out-dtype",
        lambda L: L.linalg.tensorsolve(_in(L, _F), _in(L, _F[0]), out=L.empty(0, dtype=L.long)),
    ),
    ("md-1", lambda L: L.linalg.multi_dot([_in(L, _F)])),
    ("md-0", lambda L: L.linalg.multi_dot([])),
    ("md-3d-first", lambda L: L.linalg.multi_dot([_in(L, _A), _in(L, _F)])),
    ("md-3d-last", lambda L: L.linalg.multi_dot([_in(L, _F), _in(L, _A)])),
    ("md-middle-1d", lambda L: L.linalg.multi_dot([_in(L, _F), _in(L, _F[0]), _in(L, _F)])),
    ("md-dtype", lambda L: L.linalg.multi_dot([_in(L, _F), _in(L, _F.float())])),
    ("md-shapes", lambda L: L.linalg.multi_dot([_in(L, _F), _in(L, _R)])),
    (
        "md-out-dtype",
        lambda L: L.linalg.multi_dot([_in(L, _F), _in(L, _F)], out=L.empty(0, dtype=L.float32)),
    ),
    ("cm-0", lambda L: L.chain_matmul()),
    ("cm-1d", lambda L: L.chain_matmul(_in(L, _F), _in(L, _F[0]))),
    ("vd-long", lambda L: L.linalg.vecdot(_in(L, _L), _in(L, _L))),
    ("vd-dtype", lambda L: L.linalg.vecdot(_in(L, _F), _in(L, _F.float()))),
    ("vd-shape", lambda L: L.linalg.vecdot(_in(L, _F), _in(L, _R))),
    (
        "vd-out-dtype",
        lambda L: L.linalg.vecdot(_in(L, _F), _in(L, _F), out=L.empty(0, dtype=L.float32)),
    ),
    ("va-bool", lambda L: L.linalg.vander(_in(L, _L[0].bool()))),
    ("va-half", lambda L: L.linalg.vander(_in(L, _H[0]))),
    ("va-N1", lambda L: L.linalg.vander(_in(L, _F[0]), N=1)),
    ("va-0d", lambda L: L.linalg.vander(_in(L, _F[0, 0]))),
    ("fn-3dims", lambda L: L.frobenius_norm(_in(L, _A), [0, 1, 2])),
    ("nn-dim1", lambda L: L.nuclear_norm(_in(L, _F), [0])),
    ("torch.norm-str", lambda L: L.norm(_in(L, _A), "abc")),
    ("torch.norm-fro-3dims", lambda L: L.norm(_in(L, _A), "fro", dim=(0, 1, 2))),
    ("diagonal-1d", lambda L: L.linalg.diagonal(_in(L, _F[0]))),
]


@pytest.mark.parametrize(("name", "call"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(name: str, call: Callable[[Any], Any]) -> None:
    _check(call)


# --- gradients -------------------------------------------------------------------------------------

GRAD_CASES: Final[list[tuple[str, torch.Tensor, Callable[[Any, Any], Any]]]] = [
    ("matrix_exp", _randn(4, 4), lambda L, x: L.linalg.matrix_exp(x)),
    ("matrix_exp-large-norm", _randn(3, 3, scale=4.0), lambda L, x: L.linalg.matrix_exp(x)),
    ("matrix_exp-batch", _randn(2, 3, 3), lambda L, x: L.linalg.matrix_exp(x)),
    ("matrix_exp-complex", _randn(3, 3, dtype=torch.complex128), lambda L, x: L.matrix_exp(x)),
    (
        "matrix_power-neg",
        _randn(3, 3) + 3 * torch.eye(3, dtype=torch.float64),
        lambda L, x: L.linalg.matrix_power(x, -3),
    ),
    ("matrix_power-0", _randn(3, 3), lambda L, x: L.linalg.matrix_power(x, 0)),
    ("matrix_norm-nuc", _randn(3, 4), lambda L, x: L.linalg.matrix_norm(x, "nuc")),
    ("matrix_norm-inf", _randn(3, 4), lambda L, x: L.linalg.matrix_norm(x, _INF)),
    ("cond-1", _randn(3, 3), lambda L, x: L.linalg.cond(x, 1)),
    ("cond-fro", _randn(3, 3), lambda L, x: L.linalg.cond(x, "fro")),
    ("multi_dot", _randn(3, 3), lambda L, x: L.linalg.multi_dot([x, x.mT, x, x[0]])),
    (
        "vecdot-complex",
        _randn(3, 3, dtype=torch.complex128),
        lambda L, x: L.linalg.vecdot(x, x * 2),
    ),
    ("vander", _randn(4), lambda L, x: L.linalg.vander(x, N=3)),
    (
        "tensorinv",
        _randn(4, 2, 2) + torch.eye(4, dtype=torch.float64).reshape(4, 2, 2),
        lambda L, x: L.linalg.tensorinv(x, 1),
    ),
]


@pytest.mark.parametrize(("name", "x", "call"), GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients(name: str, x: torch.Tensor, call: Callable[[Any, Any], Any]) -> None:
    def grads(L: Any) -> Any:
        leaf = _in(L, x, requires_grad=True)
        result = call(L, leaf)
        weight = _in(L, torch.arange(result.numel(), dtype=torch.float64).reshape(result.shape) / 7)
        (result * weight).abs().sum().backward() if result.dtype.is_complex else (
            result * weight
        ).sum().backward()
        return leaf.grad

    _check(grads, rtol=1e-9, atol=1e-9)


# --- the aten calls torch makes ------------------------------------------------------------------


class _TorchLog(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


class _RefimplLog(RefimplTorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


@contextmanager
def _log(L: Any) -> Iterator[list[str]]:
    with _TorchLog() if L is torch else _RefimplLog() as mode:
        yield mode.ops


LOG_CASES: Final[list[tuple[str, Callable[[Any, list[Any]], Any]]]] = [
    ("multi_dot-4", lambda L, x: L.linalg.multi_dot([x[0][:2], x[0], x[0], x[0][0]])),
    ("multi_dot-3-out", lambda L, x: L.linalg.multi_dot([x[0], x[0], x[0][0]], out=x[1])),
    ("matrix_power-6", lambda L, x: L.linalg.matrix_power(x[0], 6)),
    ("matrix_power-5-out", lambda L, x: L.linalg.matrix_power(x[0], 5, out=x[1])),
    ("matrix_power-0", lambda L, x: L.linalg.matrix_power(x[0], 0)),
    ("matrix_norm-inf-keepdim", lambda L, x: L.linalg.matrix_norm(x[0], _INF, keepdim=True)),
    ("matrix_norm-fro-out", lambda L, x: L.linalg.matrix_norm(x[0], out=x[1])),
    ("vander", lambda L, x: L.linalg.vander(x[0])),
    ("vecdot", lambda L, x: L.linalg.vecdot(x[0], x[0])),
    ("matrix_exp", lambda L, x: L.linalg.matrix_exp(x[0])),
    ("tensorsolve", lambda L, x: L.linalg.tensorsolve(x[0], x[0][0])),
    ("tensorinv", lambda L, x: L.linalg.tensorinv(x[0], 1)),
    ("matrix_power--2", lambda L, x: L.linalg.matrix_power(x[0], -2)),
    ("cond-1", lambda L, x: L.linalg.cond(x[0], 1)),
    ("cond-2", lambda L, x: L.linalg.cond(x[0])),
    ("cond-nuc", lambda L, x: L.linalg.cond(x[0], "nuc")),
    ("matrix_norm-nuc-keepdim", lambda L, x: L.linalg.matrix_norm(x[0], "nuc", keepdim=True)),
    ("torch.norm-nuc", lambda L, x: L.norm(x[0], "nuc")),
    ("frobenius_norm", lambda L, x: L.frobenius_norm(x[0], [0, 1])),
    ("chain_matmul-1", lambda L, x: L.chain_matmul(x[0])),
]


@pytest.mark.parametrize(("name", "call"), LOG_CASES, ids=[c[0] for c in LOG_CASES])
def test_aten_calls(name: str, call: Callable[[Any, list[Any]], Any]) -> None:
    def run(L: Any) -> list[str]:
        inputs = [_in(L, _SQ[0]), L.empty(0, dtype=L.float64)]
        with warnings.catch_warnings(), _log(L) as ops:
            warnings.simplefilter("ignore")
            try:
                call(L, inputs)
            except NotImplementedError as error:
                if "backend has no" not in str(error):
                    raise
                pytest.skip(str(error))
        return ops

    assert run(refimpl) == run(torch)


def test_matrix_exp_backward_aten_calls() -> None:
    """The backward is torch's block-matrix formula: exp([[A^H, G], [0, A^H]])[:n, n:]."""

    def run(L: Any) -> list[str]:
        x = _in(L, _SQ[0], requires_grad=True)
        y = L.linalg.matrix_exp(x)
        grad = _in(L, _SQ[1])
        with _log(L) as ops:
            y.backward(grad)
        return ops

    assert run(refimpl) == run(torch)


GRADGRAD_CASES: Final[list[tuple[str, Callable[[Any, Any], Any]]]] = [
    ("matrix_exp", lambda L, x: L.linalg.matrix_exp(x)),
    ("matrix_power--2", lambda L, x: L.linalg.matrix_power(x, -2)),
    ("matrix_norm-nuc", lambda L, x: L.linalg.matrix_norm(x, "nuc")),
    ("multi_dot", lambda L, x: L.linalg.multi_dot([x, x, x])),
    # torch's cond(ord=1) writes into linalg_inv_ex's output (masked_fill_), which its
    # backward saved: the double backward raises torch's version-counter error.
    ("cond-1", lambda L, x: L.linalg.cond(x, 1)),
]


@pytest.mark.parametrize(("name", "call"), GRADGRAD_CASES, ids=[c[0] for c in GRADGRAD_CASES])
def test_second_derivatives(name: str, call: Callable[[Any, Any], Any]) -> None:
    def second(L: Any) -> Any:
        x = _in(L, _SQ[0], requires_grad=True)
        y = call(L, x)
        (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g * g).sum(), x)
        return h

    _check(second, rtol=1e-9, atol=1e-9)
