"""Solvers and factorizations against torch, for what the OpInfos do not cover: the errors
LAPACK's info becomes (singular and not positive-definite inputs, one matrix or a batch, with
torch's "(Batch element i)" form), the info values of the `_ex` forms and their
check_errors=True, dtype and shape errors, out= dtype errors, torch.linalg.LinAlgError,
lstsq's drivers (which outputs are empty, residuals only at full rank), lu_unpack's flags,
torch.lu's forms, the layouts (strides) of every result, and meta tensors.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type, and the message's text), or each result's dtype, shape, strides and values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import refimpl
from conformance._oracle import outcome

_SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]
# A zero row: singular exactly under any pivoting and either orientation (torch's det factors a
# row-major matrix as its transpose; MKL gave [[1, 2, 3], [2, 4, 6], [1, 0, 1]] a determinant of
# -6.7e-16 on one CPU and 0 on another, where OpenBLAS gives 0).
_SINGULAR = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
_NOT_PD = [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
_ZERO3 = [[0.0] * 3] * 3
_RECT = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0], [3.0, 1.0, -2.0, 1.0]]


def _m(lib: Any, rows: Any, dtype: str = "float64") -> Any:
    return lib.tensor(rows, dtype=getattr(lib, dtype))


def _batch(lib: Any, *mats: Any, dtype: str = "float64") -> Any:
    return lib.stack([_m(lib, m, dtype) for m in mats])


def _b(lib: Any, shape: tuple[int, ...] = (3, 2), dtype: str = "float64") -> Any:
    n = int(np.prod(shape))
    values = [((i * 7) % 5 - 2) / 3 for i in range(n)]
    return lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)


Case = Callable[[Any], Any]

CASES: dict[str, Case] = {
    # singular / not positive-definite: one matrix and a batch
    "inv singular": lambda t: t.linalg.inv(_m(t, _SINGULAR)),
    "inv zero": lambda t: t.linalg.inv(_m(t, _ZERO3)),
    "inv batch": lambda t: t.linalg.inv(_batch(t, _SPD, _SINGULAR)),
    "inverse batch": lambda t: t.inverse(_batch(t, _SPD, _ZERO3)),
    "inv_ex info": lambda t: t.linalg.inv_ex(_batch(t, _SPD, _SINGULAR, _ZERO3)).info,
    "inv_ex check_errors": lambda t: t.linalg.inv_ex(_m(t, _SINGULAR), check_errors=True),
    "inv_ex check_errors batch": lambda t: t.linalg.inv_ex(
        _batch(t, _SPD, _SINGULAR), check_errors=True
    ),
    "solve singular": lambda t: t.linalg.solve(_m(t, _SINGULAR), _b(t)),
    "solve batch": lambda t: t.linalg.solve(_batch(t, _SPD, _ZERO3), _b(t, (2, 3, 2))),
    "solve_ex info": lambda t: t.linalg.solve_ex(_batch(t, _SPD, _ZERO3), _b(t, (2, 3))).info,
    "solve_ex check_errors": lambda t: t.linalg.solve_ex(_m(t, _ZERO3), _b(t), check_errors=True),
    "cholesky not pd": lambda t: t.linalg.cholesky(_m(t, _NOT_PD)),
    "cholesky batch": lambda t: t.linalg.cholesky(_batch(t, _SPD, _NOT_PD)),
    "cholesky upper batch": lambda t: t.linalg.cholesky(_batch(t, _SPD, _NOT_PD), upper=True),
    "cholesky_ex info": lambda t: t.linalg.cholesky_ex(_batch(t, _SPD, _NOT_PD, _ZERO3)).info,
    "cholesky_ex check_errors": lambda t: t.linalg.cholesky_ex(_m(t, _NOT_PD), check_errors=True),
    "torch.cholesky not pd": lambda t: t.cholesky(_m(t, _NOT_PD)),
    "torch.cholesky batch": lambda t: t.cholesky(_batch(t, _SPD, _NOT_PD)),
    "cholesky_inverse zero": lambda t: t.cholesky_inverse(_m(t, _ZERO3)),
    "cholesky_inverse batch": lambda t: t.cholesky_inverse(_batch(t, _SPD, _ZERO3)),
    "lu_factor singular": lambda t: t.linalg.lu_factor(_m(t, _ZERO3)),
    "lu_factor batch": lambda t: t.linalg.lu_factor(_batch(t, _SPD, _ZERO3)),
    "lu_factor_ex info": lambda t: t.linalg.lu_factor_ex(_batch(t, _SPD, _SINGULAR, _ZERO3)),
    "lu_factor_ex check_errors": lambda t: t.linalg.lu_factor_ex(
        _batch(t, _SPD, _ZERO3), check_errors=True
    ),
    "torch.lu get_infos": lambda t: t.lu(_batch(t, _SPD, _ZERO3), get_infos=True),
    "torch.lu": lambda t: t.lu(_m(t, _SPD)),
    "Tensor.lu": lambda t: _m(t, _SPD).lu(get_infos=True),
    "ldl_factor singular": lambda t: t.linalg.ldl_factor(_m(t, _ZERO3)),
    "ldl_factor_ex info": lambda t: t.linalg.ldl_factor_ex(_batch(t, _SPD, _ZERO3)),
    # values at singular inputs (no error)
    "det singular": lambda t: t.linalg.det(_batch(t, _SPD, _SINGULAR, _ZERO3)),
    "slogdet singular": lambda t: t.linalg.slogdet(_batch(t, _SPD, _SINGULAR, _ZERO3)),
    "logdet negative": lambda t: t.logdet(_m(t, [[-1.0, 0.0], [0.0, 2.0]])),
    "solve_triangular zero diagonal": lambda t: t.linalg.solve_triangular(
        _m(t, [[1.0, 2.0], [0.0, 0.0]]), _b(t, (2, 2)), upper=True
    ),
    # dtypes
    "inv long": lambda t: t.linalg.inv(_m(t, [[1, 0], [0, 1]], "int64")),
    "inv half": lambda t: t.linalg.inv(_m(t, [[1, 0], [0, 1]], "float16")),
    "lu_factor long": lambda t: t.linalg.lu_factor(_m(t, [[1, 0], [0, 1]], "int64")),
    "det half": lambda t: t.linalg.det(_m(t, [[1, 0], [0, 1]], "float16")),
    "slogdet half": lambda t: t.linalg.slogdet(_m(t, [[1, 0], [0, 1]], "float16")),
    "logdet long": lambda t: t.logdet(_m(t, [[1, 0], [0, 1]], "int64")),
    "cholesky int": lambda t: t.linalg.cholesky(_m(t, [[1, 0], [0, 1]], "int32")),
    "torch.cholesky half": lambda t: t.cholesky(_m(t, [[1, 0], [0, 1]], "float16")),
    "solve dtypes": lambda t: t.linalg.solve(_m(t, _SPD, "float32"), _b(t)),
    "lu_solve pivots dtype": lambda t: t.linalg.lu_solve(_m(t, _SPD), _b(t, (3,)), _b(t)),
    "lstsq long": lambda t: t.linalg.lstsq(
        _m(t, [[1, 0], [0, 1]], "int64"), _m(t, [[1], [2]], "int64")
    ),
    "lstsq dtypes": lambda t: t.linalg.lstsq(_m(t, _SPD), _b(t, (3, 2), "float32")),
    "triangular_solve dtypes": lambda t: t.triangular_solve(_b(t, (3, 2), "float32"), _m(t, _SPD)),
    "cholesky_solve dtypes": lambda t: t.cholesky_solve(_b(t), _m(t, _SPD, "float32")),
    # shapes
    "inv vector": lambda t: t.linalg.inv(_b(t, (3,))),
    "inv rectangular": lambda t: t.linalg.inv(_m(t, _RECT)),
    "det rectangular": lambda t: t.linalg.det(_m(t, _RECT)),
    "solve incompatible": lambda t: t.linalg.solve(_m(t, _SPD), _b(t, (4, 2))),
    "solve right incompatible": lambda t: t.linalg.solve(_m(t, _SPD), _b(t, (3, 4)), left=False),
    "solve right vector": lambda t: t.linalg.solve(_m(t, _SPD), _b(t, (3,)), left=False),
    "solve batch broadcast": lambda t: t.linalg.solve(_batch(t, _SPD, _SPD), _b(t, (4, 1, 3, 2))),
    "solve batch mismatch": lambda t: t.linalg.solve(_batch(t, _SPD, _SPD), _b(t, (3, 3, 2))),
    "lu_factor vector": lambda t: t.linalg.lu_factor(_b(t, (3,))),
    "lu_solve pivots shape": lambda t: t.linalg.lu_solve(
        _m(t, _SPD), t.ones(2, 3, dtype=t.int32), _b(t)
    ),
    "lu_solve pivots count": lambda t: t.linalg.lu_solve(
        _m(t, _SPD), t.ones(2, dtype=t.int32), _b(t)
    ),
    "lstsq vector input": lambda t: t.linalg.lstsq(_b(t, (3,)), _b(t, (3,))),
    "lstsq rows": lambda t: t.linalg.lstsq(_m(t, _SPD), _b(t, (4, 2))),
    "lstsq driver": lambda t: t.linalg.lstsq(_m(t, _SPD), _b(t), driver="qr"),
    "triangular_solve vector": lambda t: t.triangular_solve(_b(t, (3,)), _m(t, _SPD)),
    "triangular_solve incompatible": lambda t: t.triangular_solve(_b(t, (2, 2)), _m(t, _SPD)),
    "cholesky_solve vector": lambda t: t.cholesky_solve(_b(t, (3,)), _m(t, _SPD)),
    "cholesky_inverse vector": lambda t: t.cholesky_inverse(_b(t, (3,))),
    "lu_unpack pivots dtype": lambda t: t.lu_unpack(_m(t, _SPD), _b(t, (3,))),
    "lu pivot=False": lambda t: t.linalg.lu(_m(t, _SPD), pivot=False),
    # out= dtypes
    "inv out double": lambda t: t.linalg.inv(
        _m(t, _SPD, "float32"), out=t.empty(0, dtype=t.float64)
    ),
    "inv out int": lambda t: t.linalg.inv(_m(t, _SPD), out=t.empty(0, dtype=t.int32)),
    "solve_triangular out": lambda t: t.linalg.solve_triangular(
        _m(t, _SPD), _b(t), upper=True, out=t.empty(0, dtype=t.float32)
    ),
    "cholesky out": lambda t: t.cholesky(_m(t, _SPD), out=t.empty(0, dtype=t.int64)),
    "lstsq out": lambda t: t.linalg.lstsq(
        _m(t, _SPD), _b(t), out=tuple(t.empty(0, dtype=t.float64) for _ in range(4))
    ),
    # results: drivers, flags, layouts
    "lstsq gels tall": lambda t: t.linalg.lstsq(_m(t, _RECT).mT, _b(t, (4, 2)), driver="gels"),
    "lstsq gelsy tall": lambda t: t.linalg.lstsq(_m(t, _RECT).mT, _b(t, (4, 2))),
    "lstsq gelsd tall": lambda t: t.linalg.lstsq(_m(t, _RECT).mT, _b(t, (4, 2)), driver="gelsd"),
    "lstsq gelss wide": lambda t: t.linalg.lstsq(_m(t, _RECT), _b(t, (3, 2)), driver="gelss"),
    "lstsq gelsd rank deficient": lambda t: t.linalg.lstsq(
        _m(t, [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), _b(t, (3, 1)), driver="gelsd"
    ),
    "lstsq vector b": lambda t: t.linalg.lstsq(_m(t, _RECT).mT, _b(t, (4,)), driver="gelsd"),
    "lstsq upper-case driver": lambda t: t.linalg.lstsq(_m(t, _SPD), _b(t), driver="GELSD"),
    "lu_unpack no data": lambda t: t.lu_unpack(*t.linalg.lu_factor(_m(t, _SPD)), unpack_data=False),
    "lu_unpack no pivots": lambda t: t.lu_unpack(
        *t.linalg.lu_factor(_m(t, _SPD)), unpack_pivots=False
    ),
    "lu tall": lambda t: t.linalg.lu(_m(t, _RECT).mT),
    "solve left=False": lambda t: t.linalg.solve(_m(t, _SPD), _b(t, (2, 3)), left=False),
    "solve_ex LU": lambda t: t.ops.aten._linalg_solve_ex(_m(t, _SPD).mT, _b(t)),
    "solve complex": lambda t: t.linalg.solve(
        _m(t, _SPD, "complex128") * (1 + 1j), _b(t, (3, 2), "complex128")
    ),
    "solve_triangular right": lambda t: t.linalg.solve_triangular(
        _m(t, _SPD), _b(t, (2, 3)), upper=False, left=False, unitriangular=True
    ),
    "triangular_solve transpose": lambda t: t.triangular_solve(
        _b(t, (2, 3, 2)), _m(t, _SPD), upper=False, transpose=True
    ),
    "cholesky_solve upper": lambda t: t.cholesky_solve(
        _b(t), t.linalg.cholesky(_m(t, _SPD), upper=True), upper=True
    ),
    "ldl_solve": lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(_m(t, _SPD)), _b(t)),
    "empty inv": lambda t: t.linalg.inv(t.zeros(2, 0, 0, dtype=t.float64)),
    "empty det": lambda t: t.linalg.det(t.zeros(0, 0, dtype=t.float64)),
    "empty solve": lambda t: t.linalg.solve(t.zeros(0, 3, 3, dtype=t.float64), _b(t, (3, 2))),
    "meta inv": lambda t: t.linalg.inv_ex(t.empty(2, 3, 3, device="meta")),
    "meta solve": lambda t: t.ops.aten._linalg_solve_ex(
        t.empty(2, 3, 3, device="meta"), t.empty(3, device="meta")
    ),
    "meta lu": lambda t: t.linalg.lu(t.empty(2, 4, 3, device="meta")),
    "meta slogdet": lambda t: t.ops.aten._linalg_slogdet(
        t.empty(3, 3, device="meta", dtype=t.complex64)
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
            assert mine == expected
            continue
        assert str(mine.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(mine.shape) == tuple(expected.shape)
        if expected.numel() > 1:
            assert tuple(mine.stride()) == expected.stride()
        if expected.device.type == "meta":
            assert mine.device.type == "meta"
            continue
        np.testing.assert_allclose(_host(mine), _host(expected), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str) -> None:
    case = CASES[name]
    theirs, their_error = outcome(case, torch)
    ours, our_error = outcome(case, refimpl)
    if our_error is not None and _backend_lacks(our_error):
        pytest.skip(f"the backend lacks what this case needs: {our_error}")
    if their_error is not None:
        assert our_error is not None, f"torch raises {their_error!r}; refimpl returned {ours!r}"
        assert isinstance(our_error, _builtin_type(their_error)), repr(our_error)
        if isinstance(their_error, torch.linalg.LinAlgError):
            assert isinstance(our_error, refimpl.linalg.LinAlgError)
        expected = str(their_error).split("\n")[0]
        if "INTERNAL ASSERT FAILED" in expected:
            expected = expected.split("to PyTorch. ")[-1]
        assert expected in str(our_error), f"{our_error!s} != {expected}"
        return
    assert our_error is None, f"refimpl raises {our_error!r}"
    _same(ours, theirs)


def _backend_lacks(error: BaseException) -> bool:
    # A backend without a LAPACK extension (ldl, lstsq on array_api_strict) or a dtype
    # (float16 on array_api_strict) says so; such a case checks nothing about refimpl's ops.
    text = str(error)
    return "backend has no" in text or ("backend (" in text and "has no dtype" in text)


def _builtin_type(error: BaseException) -> type[BaseException]:
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(error)


def test_linalg_error_is_runtime_error() -> None:
    assert issubclass(refimpl.linalg.LinAlgError, RuntimeError)


# --- double backward (create_graph=True): the formulas' second derivatives -------------------

_A = [[1.5, 0.2, -0.3], [0.4, 2.0, 0.1], [-0.2, 0.3, 1.7]]
_B = [[1.0, -0.5], [0.3, 0.2], [0.7, 1.1]]
_T = [[2.0, 0.5, 0.1], [0.0, 1.5, 0.3], [0.0, 0.0, 1.2]]

GRAD_CASES: dict[str, tuple[Callable[..., Any], list[Any]]] = {
    "solve": (lambda t, a, b: t.linalg.solve(a, b), [_A, _B]),
    "solve left=False": (lambda t, a, b: t.linalg.solve(a, b.mT, left=False), [_A, _B]),
    "det": (lambda t, a: t.linalg.det(a), [_A]),
    "det singular": (lambda t, a: t.linalg.det(a), [_SINGULAR]),
    "slogdet": (lambda t, a: t.linalg.slogdet(a)[1], [_A]),
    "solve_triangular": (lambda t, a, b: t.linalg.solve_triangular(a, b, upper=True), [_T, _B]),
    "triangular_solve": (lambda t, b, a: t.triangular_solve(b, a)[0], [_B, _T]),
    "lu_solve": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b), [_A, _B]),
    "lu_solve adjoint": (
        lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b, adjoint=True),
        [_A, _B],
    ),
    "lstsq": (lambda t, a, b: t.linalg.lstsq(a, b, driver="gelsd")[0], [_A, _B]),
    "cholesky": (
        lambda t, a: t.linalg.cholesky(a @ a.mT + 3 * t.eye(3, dtype=t.float64)),
        [_A],
    ),
    "cholesky_solve": (lambda t, b, u: t.cholesky_solve(b, u.mT), [_B, _T]),
    "cholesky_inverse": (lambda t, u: t.cholesky_inverse(u, upper=True), [_T]),
    "lu_factor": (lambda t, a: t.linalg.lu_factor(a)[0], [_A]),
    "lu_unpack": (lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a))[1], [_A]),
}


def _second_derivatives(lib: Any, fn: Callable[..., Any], values: list[Any]) -> list[Any]:
    inputs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(lib, *inputs)
    grads = lib.autograd.grad(
        out, inputs, lib.full(out.shape, 0.7, dtype=lib.float64), create_graph=True
    )
    total = sum((g * g).sum() for g in grads)
    second = lib.autograd.grad(total, inputs, allow_unused=True)
    return [*grads, *second]


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_double_backward(name: str) -> None:
    fn, values = GRAD_CASES[name]
    ours, our_error = outcome(lambda lib: _second_derivatives(lib, fn, values), refimpl)
    if our_error is not None and _backend_lacks(our_error):
        pytest.skip(f"the backend lacks what this case needs: {our_error}")
    assert our_error is None, repr(our_error)
    theirs = _second_derivatives(torch, fn, values)
    for mine, expected in zip(ours, theirs, strict=True):
        assert (mine is None) == (expected is None)
        if expected is not None:
            np.testing.assert_allclose(_host(mine), _host(expected), rtol=1e-6, atol=1e-8)
