"""Spectral and orthogonal decompositions against torch, for what the OpInfos do not cover: the out= forms (outs of the right layout, empty ones resized, wrong dtypes), every overload of pinv and matrix_rank, torch.svd's compute_uv=False and some=False, the qr modes, empty inputs, non-finite inputs (svd's and eigh's LinAlgError, eig's check), driver=, UPLO, the dtype and shape errors of each op, meta tensors, the gauge checks of the svd and eigh backward, and the aten calls torch makes (a TorchDispatchMode log).

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type, and the message's text), or each result's dtype, shape, strides and values.
Singular vectors and eigenvectors are compared through gauge-invariant functions of them
(|U|, U diag(S) Vh, ...): they are defined up to a phase (see refimpl/ops/linalg_spectral.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.utils._python_dispatch as torch_python_dispatch

import refimpl
import refimpl.utils._python_dispatch as refimpl_python_dispatch
from conformance._oracle import STORED_DTYPES, outcome

_SQ = [[4.0, 1.0, 0.5], [1.0, -3.0, 0.25], [0.5, 2.0, 2.0]]
_RECT = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0], [3.0, 1.0, -2.0, 1.0]]
_RANK2 = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]


def _m(lib: Any, rows: Any, dtype: str = "float64") -> Any:
    return lib.tensor(rows, dtype=getattr(lib, dtype))


def _b(lib: Any, shape: tuple[int, ...], dtype: str = "float64") -> Any:
    n = int(np.prod(shape))
    values = [math.sin(1.7 * i + 0.3) + 0.05 * i for i in range(n)]
    t = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return t * (1 + 0.5j) if dtype.startswith("complex") else t


def _nan(lib: Any, batch: tuple[int, ...] = ()) -> Any:
    t = _m(lib, _SQ)
    t[1, 1] = float("nan")
    return t.expand(*batch, 3, 3).clone() if batch else t


def _usv(r: Any) -> Any:
    """A gauge-invariant view of an SVD: |U|, S, |Vh| and U diag(S) Vh."""
    U, S, Vh = r
    k = S.shape[-1]
    return (
        U[..., :k].abs(),
        S,
        Vh[..., :k, :].abs(),
        (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :],
    )


def _lv(r: Any) -> Any:
    """A gauge-invariant view of an eigendecomposition: the values and |V|."""
    return r[0], r[1].abs()


def _v_to_vh(r: Any) -> Any:
    """torch.svd's (U, S, V) as (U, S, Vh)."""
    return r[0], r[1], r[2].mH


def _u_vh(r: Any) -> Any:
    return r[0] @ r[2]


def _sum_prod(w: Any) -> Any:
    return w.sum(), w.prod()


def _outs(lib: Any, *dtypes: str) -> tuple[Any, ...]:
    return tuple(lib.empty(0, dtype=getattr(lib, d)) for d in dtypes)


Case = Callable[[Any], Any]

CASES: dict[str, Case] = {
    # --- svd ---------------------------------------------------------------------------------
    "svd full": lambda t: _usv(t.linalg.svd(_b(t, (2, 4, 3)))),
    "svd wide complex": lambda t: _usv(t.linalg.svd(_b(t, (3, 5), "complex128"), False)),
    "svd layouts": lambda t: [x.stride() for x in t.linalg.svd(_b(t, (2, 4, 3)))],
    "svd empty full": lambda t: t.linalg.svd(t.zeros(3, 0, dtype=t.float64)),
    "svd empty batch": lambda t: t.linalg.svd(t.zeros(0, 3, 2, dtype=t.float64)),
    "svd nan": lambda t: t.linalg.svd(_nan(t)),
    "svd nan batch": lambda t: t.linalg.svd(_nan(t, (2,))),
    "svd driver": lambda t: t.linalg.svd(_b(t, (3, 3)), driver="gesvd"),
    "svd driver empty": lambda t: t.linalg.svd(t.zeros(0, 3, dtype=t.float64), driver="gesvd"),
    "svd long": lambda t: t.linalg.svd(_m(t, [[1, 2], [3, 4]], "int64")),
    "svd half": lambda t: t.linalg.svd(_b(t, (2, 2), "float16")),
    "svd vector": lambda t: t.linalg.svd(_b(t, (3,))),
    "svdvals": lambda t: t.linalg.svdvals(_b(t, (2, 3, 5))),
    "svdvals vector": lambda t: t.linalg.svdvals(_b(t, (3,))),
    "_linalg_svd no uv": lambda t: t.ops.aten._linalg_svd(_b(t, (4, 3)), compute_uv=False),
    "svd out": lambda t: _usv(t.linalg.svd(_b(t, (4, 3)), out=_outs(t, *["float64"] * 3))),
    "svd out layouts": lambda t: [
        x.stride() for x in t.linalg.svd(_b(t, (4, 3)), out=_outs(t, *["float64"] * 3))
    ],
    "svd out dtype": lambda t: t.linalg.svd(
        _b(t, (4, 3)), out=_outs(t, "float32", "float64", "float64")
    ),
    "svdvals out": lambda t: t.linalg.svdvals(_b(t, (4, 3)), out=t.empty(0, dtype=t.float64)),
    "svdvals out complex": lambda t: t.linalg.svdvals(
        _b(t, (4, 3), "complex128"), out=t.empty(0, dtype=t.float64)
    ),
    "torch.svd": lambda t: _usv(_v_to_vh(t.svd(_b(t, (4, 3))))),
    "torch.svd some=False": lambda t: [x.shape for x in t.svd(_b(t, (4, 3)), some=False)],
    "torch.svd compute_uv=False": lambda t: t.svd(_b(t, (2, 4, 3)), compute_uv=False),
    "torch.svd vector": lambda t: t.svd(_b(t, (3,))),
    "Tensor.svd": lambda t: _b(t, (3, 4)).svd(compute_uv=False),
    # --- eigh -------------------------------------------------------------------------------
    "eigh": lambda t: _lv(t.linalg.eigh(_m(t, _SQ))),
    "eigh U": lambda t: _lv(t.linalg.eigh(_m(t, _SQ), UPLO="U")),
    "eigh complex": lambda t: _lv(t.linalg.eigh(_b(t, (2, 3, 3), "complex128"), UPLO="U")),
    "eigh layouts": lambda t: [x.stride() for x in t.linalg.eigh(_b(t, (2, 3, 3)))],
    "eigh bad UPLO": lambda t: t.linalg.eigh(_m(t, _SQ), UPLO="X"),
    "eigvalsh lower-case UPLO": lambda t: t.linalg.eigvalsh(_m(t, _SQ), UPLO="u"),
    "eigh rectangular": lambda t: t.linalg.eigh(_m(t, _RECT)),
    "eigh vector": lambda t: t.linalg.eigh(_b(t, (3,))),
    "eigh long": lambda t: t.linalg.eigh(_m(t, [[1, 2], [3, 4]], "int64")),
    "eigh nan": lambda t: t.linalg.eigh(_nan(t)),
    "eigh empty": lambda t: t.linalg.eigh(t.zeros(2, 0, 0, dtype=t.float64)),
    "eigh out": lambda t: _lv(t.linalg.eigh(_m(t, _SQ), out=_outs(t, "float64", "float64"))),
    "eigh out dtype": lambda t: t.linalg.eigh(_m(t, _SQ), out=_outs(t, "float32", "float64")),
    "eigvalsh out": lambda t: t.linalg.eigvalsh(_m(t, _SQ), out=t.empty(0, dtype=t.float64)),
    "_linalg_eigh no v": lambda t: t.ops.aten._linalg_eigh(_m(t, _SQ), "L", False),
    # --- eig ----------------------------------------------------------------------------------
    "eig": lambda t: _lv(t.linalg.eig(_m(t, _SQ))),
    "eig layouts": lambda t: [x.stride() for x in t.linalg.eig(_b(t, (2, 3, 3)))],
    # ?geev's order of the eigenvalues of a complex matrix is LAPACK's own (MKL's differs from
    # OpenBLAS's): their sum and product compare.
    "eig complex": lambda t: _sum_prod(t.linalg.eig(_b(t, (3, 3), "complex128"))[0]),
    "eig nan": lambda t: t.linalg.eig(_nan(t)),
    "eig rectangular": lambda t: t.linalg.eig(_m(t, _RECT)),
    "eig long": lambda t: t.linalg.eig(_m(t, [[1, 2], [3, 4]], "int64")),
    "eig half": lambda t: t.linalg.eig(_b(t, (2, 2), "float16")),
    "eig empty": lambda t: t.linalg.eig(t.zeros(0, 3, 3, dtype=t.float64)),
    "eig out": lambda t: _lv(t.linalg.eig(_m(t, _SQ), out=_outs(t, "complex128", "complex128"))),
    "eig out layouts": lambda t: [
        x.stride() for x in t.linalg.eig(_b(t, (2, 3, 3)), out=_outs(t, *["complex128"] * 2))
    ],
    "eig out real": lambda t: t.linalg.eig(_m(t, _SQ), out=_outs(t, "float64", "complex128")),
    "eigvals": lambda t: t.linalg.eigvals(_b(t, (2, 3, 3))),
    "eigvals long": lambda t: t.linalg.eigvals(_m(t, [[1, 2], [3, 4]], "int64")),
    "eigvals out": lambda t: t.linalg.eigvals(_m(t, _SQ), out=t.empty(0, dtype=t.complex128)),
    "eigvals out real": lambda t: t.linalg.eigvals(_m(t, _SQ), out=t.empty(0, dtype=t.float64)),
    # --- qr, geqrf, householder_product, ormqr -----------------------------------------------------
    "qr reduced": lambda t: t.linalg.qr(_b(t, (2, 4, 3))),
    "qr complete": lambda t: t.linalg.qr(_b(t, (4, 3), "complex128"), mode="complete"),
    "qr r": lambda t: t.linalg.qr(_b(t, (3, 5)), mode="r"),
    "qr bad mode": lambda t: t.linalg.qr(_b(t, (3, 3)), mode="full"),
    "qr long": lambda t: t.linalg.qr(_m(t, [[1, 2], [3, 4]], "int64")),
    "qr half": lambda t: t.linalg.qr(_b(t, (2, 2), "float16")),
    "qr empty complete": lambda t: t.linalg.qr(t.zeros(3, 0, dtype=t.float64), mode="complete"),
    "qr out": lambda t: t.linalg.qr(_b(t, (4, 3)), out=_outs(t, "float64", "float64")),
    "qr out layouts": lambda t: [
        x.stride() for x in t.linalg.qr(_b(t, (4, 3)), out=_outs(t, "float64", "float64"))
    ],
    "torch.qr": lambda t: t.qr(_b(t, (4, 3)), some=False),
    "Tensor.qr out": lambda t: t.qr(_b(t, (4, 3)), out=_outs(t, "float64", "float64")),
    "geqrf": lambda t: t.geqrf(_b(t, (2, 5, 3), "complex128")),
    "geqrf wide": lambda t: t.geqrf(_b(t, (3, 5))),
    "geqrf vector": lambda t: t.geqrf(_b(t, (3,))),
    "geqrf long": lambda t: t.geqrf(_m(t, [[1, 2], [3, 4]], "int64")),
    "geqrf out": lambda t: t.geqrf(_b(t, (4, 3)), out=_outs(t, "float64", "float64")),
    "geqrf out dtype": lambda t: t.geqrf(_b(t, (4, 3)), out=_outs(t, "float32", "float64")),
    "householder_product": lambda t: t.linalg.householder_product(*t.geqrf(_b(t, (2, 4, 3)))),
    "householder_product short tau": lambda t: t.linalg.householder_product(
        _b(t, (4, 3)), _b(t, (2,))
    ),
    "householder_product wide": lambda t: t.linalg.householder_product(_b(t, (2, 3)), _b(t, (2,))),
    "householder_product tau": lambda t: t.linalg.householder_product(_b(t, (4, 2)), _b(t, (3,))),
    "householder_product tau dtype": lambda t: t.linalg.householder_product(
        _b(t, (4, 2)), _b(t, (2,), "float32")
    ),
    "householder_product batch": lambda t: t.linalg.householder_product(
        _b(t, (2, 4, 2)), _b(t, (3, 2))
    ),
    "householder_product out": lambda t: t.linalg.householder_product(
        _b(t, (4, 3)), _b(t, (3,)), out=t.empty(0, dtype=t.float64)
    ),
    "orgqr": lambda t: t.orgqr(_b(t, (4, 3)), _b(t, (3,))),
    "Tensor.orgqr": lambda t: _b(t, (4, 3)).orgqr(_b(t, (3,))),
    "ormqr left": lambda t: t.ormqr(_b(t, (4, 3)), _b(t, (3,)), _b(t, (4, 2))),
    "ormqr right transpose": lambda t: t.ormqr(
        _b(t, (4, 3), "complex128"),
        _b(t, (3,), "complex128"),
        _b(t, (2, 4), "complex128"),
        left=False,
        transpose=True,
    ),
    "ormqr tau": lambda t: t.ormqr(_b(t, (4, 3)), _b(t, (2,)), _b(t, (4, 2))),
    "ormqr rows": lambda t: t.ormqr(_b(t, (4, 3)), _b(t, (3,)), _b(t, (3, 2))),
    "ormqr right": lambda t: t.ormqr(_b(t, (4, 3)), _b(t, (3,)), _b(t, (4, 2)), left=False),
    "ormqr dtype": lambda t: t.ormqr(_b(t, (4, 3)), _b(t, (3,)), _b(t, (4, 2), "float32")),
    "ormqr batch": lambda t: t.ormqr(_b(t, (2, 4, 3)), _b(t, (2, 3)), _b(t, (3, 4, 2))),
    "ormqr out": lambda t: t.ormqr(
        _b(t, (4, 3)), _b(t, (3,)), _b(t, (4, 2)), out=t.empty(0, dtype=t.float64)
    ),
    # --- pinv, pinverse, matrix_rank ------------------------------------------------------------
    "pinv": lambda t: t.linalg.pinv(_b(t, (2, 4, 3))),
    "pinv rcond": lambda t: t.linalg.pinv(_m(t, _RANK2), 0.1),
    "pinv rtol tensor": lambda t: t.linalg.pinv(
        _m(t, _RANK2), rtol=_m(t, [0.5, 1e-3])[:, None, None]
    ),
    "pinv atol float": lambda t: t.linalg.pinv(_m(t, _RANK2), atol=1.0, rtol=0.0),
    "pinv atol tensor": lambda t: t.linalg.pinv(_m(t, _RANK2), atol=_m(t, 1.0)),
    "pinv hermitian": lambda t: t.linalg.pinv(_m(t, _SQ) + _m(t, _SQ).mT, hermitian=True),
    "pinv complex rtol": lambda t: t.linalg.pinv(_m(t, _SQ), rtol=_m(t, 1j, "complex64")),
    "pinv long": lambda t: t.linalg.pinv(_m(t, [[1, 2], [3, 4]], "int64")),
    "pinv vector": lambda t: t.linalg.pinv(_b(t, (3,))),
    "pinv empty": lambda t: t.linalg.pinv(t.zeros(0, 3, dtype=t.float64)),
    "pinv out": lambda t: t.linalg.pinv(_m(t, _RANK2), out=t.empty(0, dtype=t.float64)),
    "pinv out int": lambda t: t.linalg.pinv(_m(t, _RANK2), out=t.empty(0, dtype=t.int64)),
    "pinverse": lambda t: t.pinverse(_b(t, (3, 4), "complex128")),
    "Tensor.pinverse": lambda t: _m(t, _RANK2).pinverse(rcond=0.5),
    "matrix_rank": lambda t: t.linalg.matrix_rank(_m(t, _RANK2)),
    "matrix_rank batch": lambda t: t.linalg.matrix_rank(_b(t, (2, 3, 4))),
    "matrix_rank tol": lambda t: t.linalg.matrix_rank(_m(t, _RANK2), tol=1.5),
    "matrix_rank tol tensor": lambda t: t.linalg.matrix_rank(_m(t, _RANK2), _m(t, 1.5)),
    "matrix_rank atol rtol": lambda t: t.linalg.matrix_rank(_m(t, _RANK2), atol=0.5, rtol=0.1),
    "matrix_rank rtol tensor": lambda t: t.linalg.matrix_rank(_m(t, _RANK2), rtol=_m(t, 0.2)),
    "matrix_rank hermitian": lambda t: t.linalg.matrix_rank(
        _m(t, _SQ) + _m(t, _SQ).mT, hermitian=True
    ),
    "matrix_rank empty": lambda t: t.linalg.matrix_rank(t.zeros(2, 0, 3, dtype=t.float64)),
    "matrix_rank long": lambda t: t.linalg.matrix_rank(_m(t, [[1, 2], [3, 4]], "int64")),
    "matrix_rank vector": lambda t: t.linalg.matrix_rank(_b(t, (3,))),
    "matrix_rank complex tol": lambda t: t.linalg.matrix_rank(
        _m(t, _SQ), atol=_m(t, 1j, "complex64")
    ),
    "matrix_rank out": lambda t: t.linalg.matrix_rank(_m(t, _RANK2), out=t.empty(0, dtype=t.int64)),
    "matrix_rank out float": lambda t: t.linalg.matrix_rank(
        _m(t, _RANK2), out=t.empty(0, dtype=t.float64)
    ),
    # --- removed in torch 1.9: they raise, with torch's message -----------------------------
    "torch.eig": lambda t: t.eig(_m(t, _SQ), True),
    "Tensor.eig": lambda t: _m(t, _SQ).eig(),
    "torch.symeig": lambda t: t.symeig(_m(t, _SQ)),
    "Tensor.symeig": lambda t: _m(t, _SQ).symeig(eigenvectors=True),
    "torch.matrix_rank": lambda t: t.matrix_rank(_m(t, _SQ)),
    # --- meta --------------------------------------------------------------------------------------
    "meta svd": lambda t: t.linalg.svd(t.empty(2, 4, 3, device="meta")),
    "meta eig": lambda t: t.linalg.eig(t.empty(2, 3, 3, device="meta")),
    "meta eigh": lambda t: t.linalg.eigh(t.empty(2, 3, 3, device="meta")),
    "meta qr": lambda t: t.linalg.qr(t.empty(2, 4, 3, device="meta"), mode="complete"),
    "meta householder_product": lambda t: t.linalg.householder_product(
        t.empty(4, 3, device="meta"), t.empty(3, device="meta")
    ),
}


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def _host(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return np.asarray(t.detach().resolve_conj().numpy())


def _same(ours: Any, theirs: Any) -> None:
    ours_all, theirs_all = _flatten(ours), _flatten(theirs)
    assert len(ours_all) == len(theirs_all)
    for mine, expected in zip(ours_all, theirs_all, strict=True):
        if not isinstance(expected, torch.Tensor):
            assert (
                tuple(mine) == tuple(expected) if isinstance(expected, tuple) else mine == expected
            )
            continue
        assert str(mine.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(mine.shape) == tuple(expected.shape)
        if expected.numel() > 1:
            assert tuple(mine.stride()) == expected.stride()
        if expected.device.type == "meta":
            assert mine.device.type == "meta"
            continue
        np.testing.assert_allclose(_host(mine), _host(expected), rtol=1e-6, atol=1e-8)


_TORCH_LINALG_ERROR: type[BaseException] = torch.linalg.LinAlgError  # type: ignore[attr-defined]


def _builtin_type(error: BaseException) -> type[BaseException]:
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(error)


def _same_outcome(case: Case) -> None:
    theirs, their_error = outcome(case, torch)
    ours, our_error = outcome(case, refimpl)
    if their_error is not None:
        assert our_error is not None, f"torch raises {their_error!r}; refimpl returned {ours!r}"
        assert isinstance(our_error, _builtin_type(their_error)), repr(our_error)
        if isinstance(their_error, _TORCH_LINALG_ERROR):
            assert isinstance(our_error, refimpl.linalg.LinAlgError)
        expected = str(their_error).split("\n")[0]
        assert expected in str(our_error), f"{our_error!s} != {expected}"
        return
    assert our_error is None, f"refimpl raises {our_error!r}"
    _same(ours, theirs)


_BACKEND = refimpl.config.backends.resolve("cpu")


def _skip_unless_backend_has(name: str, grad: bool = False) -> None:
    """Cases that need a backend extension (eig: `linalg_eig`; qr's backward:
    `solve_triangular`) or float16 storage skip where the CPU backend has none
    (array_api_strict): the op then raises refimpl's "backend has no" error by design."""
    needs = {
        "linalg_eig": ("eig", "eigvals"),
        "solve_triangular": ("qr",) if grad else (),
    }
    for extension, words in needs.items():
        if extension not in _BACKEND.extensions and any(w in name.split() for w in words):
            pytest.skip(f"the {_BACKEND.name} backend has no '{extension}'")
    if "half" in name and "float16" not in STORED_DTYPES:
        pytest.skip(f"the {_BACKEND.name} backend stores no float16")


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str) -> None:
    _skip_unless_backend_has(name)
    _same_outcome(CASES[name])


# --- gradients: gauge checks, and the formulas the OpInfos reach only through gradcheck -----------


def _grad(lib: Any, fn: Callable[[Any], Any], a: Any) -> Any:
    a = a.detach().requires_grad_()
    loss = fn(a)
    (g,) = lib.autograd.grad(loss.abs().sum() if loss.is_complex() else loss.sum(), [a])
    return g


GRAD_CASES: dict[str, Case] = {
    # Phase-dependent losses: torch refuses them.
    "svd phase": lambda t: _grad(t, lambda a: t.linalg.svd(a)[0], _b(t, (3, 3), "complex128")),
    "svd phase U real part": lambda t: _grad(
        t, lambda a: t.linalg.svd(a)[0].real, _b(t, (3, 3), "complex128")
    ),
    "eigh phase": lambda t: _grad(
        t, lambda a: t.linalg.eigh(a)[1].real, _b(t, (3, 3), "complex128")
    ),
    "eig phase": lambda t: _grad(t, lambda a: t.linalg.eig(a)[1].real, _m(t, _SQ)),
    # Gauge-invariant losses.
    "svd U Vh": lambda t: _grad(
        t,
        lambda a: _u_vh(t.linalg.svd(a, full_matrices=False)),
        _b(t, (4, 3), "complex128"),
    ),
    "svdvals": lambda t: _grad(t, t.linalg.svdvals, _b(t, (2, 3, 5))),
    "eigvalsh": lambda t: _grad(t, t.linalg.eigvalsh, _m(t, _SQ)),
    "eigvals": lambda t: _grad(t, t.linalg.eigvals, _m(t, _SQ)),
    "qr": lambda t: _grad(t, lambda a: t.linalg.qr(a)[1], _b(t, (4, 3))),
    "qr wide": lambda t: _grad(t, lambda a: t.linalg.qr(a)[0] * 2 + 1, _b(t, (3, 5))),
    "qr mode r": lambda t: _grad(t, lambda a: t.linalg.qr(a, mode="r")[1], _b(t, (4, 3))),
    "qr complete tall": lambda t: _grad(
        t, lambda a: t.linalg.qr(a, mode="complete")[1], _b(t, (4, 3))
    ),
    "pinv": lambda t: _grad(t, t.linalg.pinv, _m(t, _RECT)),
    "pinv hermitian": lambda t: _grad(
        t, lambda a: t.linalg.pinv(a + a.mT, hermitian=True), _m(t, _SQ)
    ),
    "householder_product": lambda t: _grad(
        t, lambda a: t.linalg.householder_product(a, a[..., 0, :]), _b(t, (4, 3), "complex128")
    ),
    "ormqr": lambda t: _grad(
        t, lambda a: t.ormqr(a, a[0], a[:, :2], left=True, transpose=True), _b(t, (3, 3))
    ),
    "geqrf": lambda t: _grad(t, lambda a: t.geqrf(a)[0], _b(t, (3, 3))),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_case(name: str) -> None:
    _skip_unless_backend_has(name, grad=True)
    _same_outcome(GRAD_CASES[name])


# --- the aten calls torch makes ---------------------------------------------------------------------


def _aten_log(lib: Any, fn: Callable[[Any, Any], Any]) -> list[str]:
    mode_base = (
        torch_python_dispatch if lib is torch else refimpl_python_dispatch
    ).TorchDispatchMode
    calls: list[str] = []

    class Log(mode_base):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    a = _m(lib, _RANK2)
    with Log():
        fn(lib, a)
    return calls


LOGGED: dict[str, Callable[[Any, Any], Any]] = {
    "svd": lambda t, a: t.linalg.svd(a),
    "svdvals": lambda t, a: t.linalg.svdvals(a),
    "torch.svd compute_uv=False": lambda t, a: t.svd(a, compute_uv=False),
    "eigvalsh": lambda t, a: t.linalg.eigvalsh(a, UPLO="U"),
    "eigvals": lambda t, a: t.linalg.eigvals(a),
    "qr": lambda t, a: t.linalg.qr(a, mode="r"),
    "pinv": lambda t, a: t.linalg.pinv(a),
    "pinv rcond": lambda t, a: t.linalg.pinv(a, 0.1),
    "pinverse": lambda t, a: t.pinverse(a),
    "matrix_rank": lambda t, a: t.linalg.matrix_rank(a),
    "matrix_rank hermitian": lambda t, a: t.linalg.matrix_rank(a, hermitian=True),
    "matrix_rank tol": lambda t, a: t.linalg.matrix_rank(a, tol=0.1),
    "orgqr": lambda t, a: t.orgqr(a, a[0]),
}


@pytest.mark.parametrize("name", sorted(LOGGED))
def test_aten_calls(name: str) -> None:
    _skip_unless_backend_has(name)
    assert _aten_log(refimpl, LOGGED[name]) == _aten_log(torch, LOGGED[name])
