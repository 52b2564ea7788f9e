"""The math bits (lazy conjugation and negation) against torch: conj views and neg views.

`x.conj()` of a complex tensor and `x.conj().imag` (or `_neg_view`) are views that carry the
Conjugate / Negative key (refimpl/core/tensor.py, Note [Math bits]); ops meet them through the
fallbacks of refimpl/ops/math_bits.py. Every case runs the same function with torch and with
refimpl and compares values, the bits, aliasing, version bumps, errors, gradients and what a
TorchDispatchMode sees.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any, Final

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import refimpl
from conformance._mode_logs import aten_calls
from conformance._oracle import outcome

Lib = Any

# A backend without a bitcast (array_api_strict) gives real / imag over a copy of the storage
# (Note [Complex views are copies] in refimpl/ops/complex.py): no `_base`, and writes through
# them do not reach the complex tensor. Those cases need a bitcast.
BITCAST: Final = refimpl.config.backends.resolve("cpu").supports_bitcast
_NEEDS_BITCAST: Final = frozenset({"in-place neg", "fill_"})


def _x(lib: Lib) -> Any:
    return lib.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j, 0.0 - 2j])


def _a(lib: Lib) -> Any:
    return lib.tensor([[1 + 1j, 2 - 0.5j, 0.25j], [3j, 4 - 1j, -1.0], [0.5, 1j, 2 + 2j]])


def _spd(lib: Lib) -> Any:
    a = _a(lib)
    return lib.mm(a, a.mH.resolve_conj()) + lib.eye(3) * 3


def _plain(value: Any) -> Any:
    """A value as plain Python data: tensors as (tolist, dtype name, shape, is_conj, is_neg)."""
    if isinstance(value, (torch.Tensor, refimpl.Tensor)):
        return (
            value.tolist(),
            str(value.dtype).rpartition(".")[2],
            tuple(value.shape),
            value.is_conj(),
            value.is_neg(),
        )
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, complex | float) or isinstance(b, complex | float):
        return abs(complex(a) - complex(b)) <= 1e-5 * (1 + abs(complex(b)))
    return bool(a == b)


def _check(fn: Callable[[Lib], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None or actual_error is not None:
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    want, got = _plain(expected), _plain(actual)
    assert _close(got, want), (got, want)


def _leaf_state(t: Any) -> Any:
    return t.detach(), t.requires_grad, t.grad_fn is None


# --- the bits, aliasing and views -------------------------------------------------------------

BIT_CASES: Final[dict[str, Callable[[Lib], Any]]] = {
    "conj": lambda lib: _x(lib).conj(),
    "conj of conj": lambda lib: _x(lib).conj().conj(),
    "conj of real": lambda lib: lib.tensor([1.0, 2.0]).conj(),
    "_conj": lambda lib: lib._conj(_x(lib)),
    "neg_view": lambda lib: lib._neg_view(_x(lib)),
    "neg_view real": lambda lib: lib._neg_view(lib.tensor([1.0, -2.0])),
    "neg_view twice": lambda lib: lib._neg_view(lib._neg_view(_x(lib))),
    "neg_view of conj": lambda lib: lib._neg_view(_x(lib).conj()),
    "imag of conj": lambda lib: _x(lib).conj().imag,
    "real of conj": lambda lib: _x(lib).conj().real,
    "imag of conj of neg": lambda lib: lib._neg_view(_x(lib)).conj().imag,
    "slice of conj": lambda lib: _x(lib).conj()[1:3],
    "select of conj": lambda lib: _x(lib).conj()[2],
    "view of conj": lambda lib: _a(lib).conj().view(9),
    "reshape of conj": lambda lib: _a(lib).conj().reshape(9),
    "transpose of conj": lambda lib: _a(lib).conj().t(),
    "expand of conj": lambda lib: _x(lib).conj().expand(2, 4),
    "unbind of conj": lambda lib: _a(lib).conj().unbind(0),
    "split of conj": lambda lib: _x(lib).conj().split(2),
    "diagonal of conj": lambda lib: _a(lib).conj().diagonal(),
    "detach of conj": lambda lib: _x(lib).conj().detach(),
    "data of neg": lambda lib: lib._neg_view(_x(lib)).data,
    "view_as_real of neg": lambda lib: lib.view_as_real(lib._neg_view(_x(lib))),
    "view_as_complex of neg": lambda lib: lib.view_as_complex(lib._neg_view(lib.ones(2, 2))),
    "mH": lambda lib: _a(lib).mH,
    "mH real": lambda lib: lib.ones(2, 3).mH,
    "H": lambda lib: _a(lib).H,
    "mT": lambda lib: _a(lib).mT,
    "mH of mH": lambda lib: _a(lib).mH.mH,
    "adjoint": lambda lib: _a(lib).adjoint(),
    "torch.adjoint": lambda lib: lib.adjoint(_a(lib)),
    "adjoint real": lambda lib: lib.adjoint(lib.ones(2, 3)),
    "adjoint 1-d": lambda lib: lib.ones(2).adjoint(),
    "is_conj functions": lambda lib: (lib.is_conj(_x(lib).conj()), lib.is_conj(_x(lib))),
    "is_neg functions": lambda lib: (lib.is_neg(_x(lib).conj().imag), lib.is_neg(_x(lib).imag)),
    "resolve_conj": lambda lib: _x(lib).conj().resolve_conj(),
    "resolve_neg of conj": lambda lib: _x(lib).conj().resolve_neg(),
    "resolve_neg": lambda lib: _x(lib).conj().imag.resolve_neg(),
    "resolve_conj of neg": lambda lib: _x(lib).conj().imag.resolve_conj(),
    "clone": lambda lib: _x(lib).conj().clone(),
    "clone of neg": lambda lib: lib._neg_view(_x(lib)).clone(),
    "contiguous of transposed conj": lambda lib: _a(lib).conj().t().contiguous(),
    "empty_like of conj": lambda lib: lib.empty_like(_x(lib).conj()).is_conj(),
    "zeros_like of conj": lambda lib: lib.zeros_like(_x(lib).conj()),
    "to other dtype": lambda lib: _x(lib).conj().to(lib.complex128),
    "to same dtype": lambda lib: _x(lib).conj().to(lib.complex64),
    "conj_physical of conj": lambda lib: _x(lib).conj().conj_physical(),
    "tolist of conj": lambda lib: _x(lib).conj().tolist(),
    "tolist of neg": lambda lib: _x(lib).conj().imag.tolist(),
    "item of conj": lambda lib: _x(lib).conj()[0].item(),
    "repr of conj": lambda lib: repr(_x(lib).conj()),
    "repr of neg": lambda lib: repr(lib._neg_view(lib.tensor([1.5, -2.0]))),
    "numpy force": lambda lib: _x(lib).conj().numpy(force=True).tolist(),
    "pickle of conj": lambda lib: pickle.loads(pickle.dumps(_x(lib).conj())),
    "pickle of neg": lambda lib: pickle.loads(pickle.dumps(lib._neg_view(_x(lib)))),
    "deepcopy of conj": lambda lib: copy.deepcopy(_x(lib).conj()),
    "deepcopy of neg leaf": lambda lib: _leaf_state(
        copy.deepcopy(lib._neg_view(_x(lib)).detach().requires_grad_())
    ),
    "dispatch keys conj": lambda lib: str(lib._C._dispatch_keys(_x(lib).conj())),
    "dispatch keys neg": lambda lib: str(lib._C._dispatch_keys(_x(lib).conj().imag)),
    "dispatch keys both": lambda lib: str(lib._C._dispatch_keys(lib._neg_view(_x(lib).conj()))),
}


@pytest.mark.parametrize("name", list(BIT_CASES))
def test_bits_match_torch(name: str) -> None:
    _check(BIT_CASES[name])


def _aliasing(lib: Lib) -> Any:
    x = _x(lib)
    y = x.conj()
    n = y.imag
    s = y[1:3]
    return (
        y.data_ptr() == x.data_ptr(),
        y._base is x,
        y._is_view(),
        s._base is x,
        lib._neg_view(x)._base is x,
        y.conj()._base is x,
        y._version == x._version,
        # n (imag of a conj view) is a view only over a bitcast; see BITCAST.
        n._base is x or not BITCAST if lib is refimpl else n._base is x,
        y.clone()._base is None,
        y.resolve_conj()._base is None,
        x.resolve_conj() is x,
    )


def test_aliasing_matches_torch() -> None:
    assert _aliasing(refimpl) == _aliasing(torch)


# --- writes through the bits -------------------------------------------------------------------


def _setitem(lib: Lib) -> Any:
    x = _x(lib)
    y = x.conj()
    y[0] = 5 + 5j
    y[1:3] = lib.tensor([1j, 2.0])
    return x, y, x._version


def _inplace(lib: Lib) -> Any:
    x = _x(lib)
    y = x.conj()
    v = x._version
    y.add_(1)
    y.mul_(lib.tensor(2j))
    return x, y, x._version - v


def _inplace_neg(lib: Lib) -> Any:
    x = _x(lib)
    n = x.conj().imag
    n.add_(1)
    n.neg_()
    return x, n


def _copy_into_conj(lib: Lib) -> Any:
    z = lib.zeros(4, dtype=lib.complex64)
    z.conj().copy_(_x(lib))
    return z


def _copy_from_conj(lib: Lib) -> Any:
    z = lib.zeros(4, dtype=lib.complex128)
    z.copy_(_x(lib).conj())
    w = lib.zeros(4)
    w.copy_(lib._neg_view(lib.arange(4.0)))
    return z, w


def _copy_conj_to_conj(lib: Lib) -> Any:
    z = lib.zeros(4, dtype=lib.complex64)
    z.conj().copy_(_x(lib).conj())
    return z


def _copy_into_neg(lib: Lib) -> Any:
    z = lib.zeros(4)
    lib._neg_view(z).copy_(lib.arange(4.0))
    return z


def _out_into_conj(lib: Lib) -> Any:
    z = lib.zeros(4, dtype=lib.complex64)
    zc = z.conj()
    lib.add(_x(lib), 1, out=zc)
    return z, zc


def _out_resized(lib: Lib) -> Any:
    z = lib.zeros(0, dtype=lib.complex64)
    zc = z.conj()
    lib.mul(_x(lib), 2, out=zc)
    return z, zc, zc.shape


def _conj_physical_(lib: Lib) -> Any:
    x = _x(lib)
    y = x.conj()
    y.conj_physical_()
    return x, y


def _fill(lib: Lib) -> Any:
    x = _x(lib)
    x.conj().fill_(1 + 1j)
    x.conj().imag.zero_()
    return x


def _transposed_write(lib: Lib) -> Any:
    a = _a(lib)
    a.mH[0] = lib.tensor([1j, 2j, 3j])
    return a


WRITE_CASES: Final[dict[str, Callable[[Lib], Any]]] = {
    "setitem": _setitem,
    "in-place": _inplace,
    "in-place neg": _inplace_neg,
    "copy_ into conj": _copy_into_conj,
    "copy_ from conj": _copy_from_conj,
    "copy_ conj to conj": _copy_conj_to_conj,
    "copy_ into neg": _copy_into_neg,
    "out= into conj": _out_into_conj,
    "out= resized conj": _out_resized,
    "conj_physical_": _conj_physical_,
    "fill_": _fill,
    "write through mH": _transposed_write,
}


@pytest.mark.parametrize("name", list(WRITE_CASES))
def test_writes_match_torch(name: str) -> None:
    if name in _NEEDS_BITCAST and not BITCAST:
        pytest.skip("writes through imag need a bitcast (Note [Complex views are copies])")
    _check(WRITE_CASES[name])


# --- ops on inputs with bits ------------------------------------------------------------------

OP_CASES: Final[dict[str, Callable[[Lib], Any]]] = {
    "add": lambda lib: _x(lib).conj() + _x(lib),
    "mul": lambda lib: _x(lib).conj() * 2,
    "mul neg": lambda lib: lib._neg_view(_x(lib)) * _x(lib).conj(),
    "sub both bits": lambda lib: lib._neg_view(_x(lib).conj()) - 1,
    "sin": lambda lib: _x(lib).conj().sin(),
    "exp": lambda lib: _x(lib).conj().exp(),
    "abs": lambda lib: _x(lib).conj().abs(),
    "angle": lambda lib: _x(lib).conj().angle(),
    "sgn": lambda lib: _x(lib).conj().sgn(),
    "pow": lambda lib: _x(lib).conj() ** 2,
    "square": lambda lib: _x(lib).conj().square(),
    "eq": lambda lib: _x(lib).conj() == _x(lib),
    "eq self": lambda lib: _x(lib).conj() == _x(lib).conj().resolve_conj(),
    "equal": lambda lib: lib.equal(_x(lib).conj(), _x(lib).conj_physical()),
    "allclose": lambda lib: lib.allclose(_x(lib).conj(), _x(lib).conj_physical()),
    "gt of neg": lambda lib: lib._neg_view(lib.arange(4.0)) > -2,
    "where": lambda lib: lib.where(lib.tensor([True, False, True, False]), _x(lib).conj(), 0),
    "sum": lambda lib: _x(lib).conj().sum(),
    "sum of neg": lambda lib: _x(lib).conj().imag.sum(),
    "mean": lambda lib: _a(lib).conj().mean(0),
    "prod": lambda lib: _x(lib).conj().prod(),
    "cumsum": lambda lib: _x(lib).conj().cumsum(0),
    "max of neg": lambda lib: lib._neg_view(lib.arange(4.0)).max(),
    "norm": lambda lib: lib.linalg.norm(_a(lib).conj()),
    "var": lambda lib: _x(lib).conj().var(),
    "cat": lambda lib: lib.cat([_x(lib).conj(), _x(lib)]),
    "stack": lambda lib: lib.stack([_x(lib).conj(), lib._neg_view(_x(lib))]),
    "flip": lambda lib: _x(lib).conj().flip(0),
    "index": lambda lib: _x(lib).conj()[lib.tensor([3, 0, 1])],
    "masked_fill": lambda lib: _x(lib).conj().masked_fill(lib.tensor([True, False] * 2), 0),
    "mm": lambda lib: lib.mm(_a(lib).conj(), _a(lib)),
    "mm both": lambda lib: lib.mm(_a(lib).mH, _a(lib).conj()),
    "matmul": lambda lib: lib.matmul(_a(lib).mH, _a(lib)),
    "matmul vector": lambda lib: _a(lib).conj() @ _x(lib)[:3].conj(),
    "mv": lambda lib: lib.mv(_a(lib).conj(), _x(lib)[:3]),
    "bmm": lambda lib: lib.bmm(_a(lib).conj()[None], _a(lib).mH[None]),
    "addmm": lambda lib: lib.addmm(_a(lib).conj(), _a(lib).mH, _a(lib)),
    "baddbmm": lambda lib: lib.baddbmm(_a(lib)[None], _a(lib).conj()[None], _a(lib)[None]),
    "dot": lambda lib: lib.dot(_x(lib).conj(), _x(lib)),
    "vdot": lambda lib: lib.vdot(_x(lib).conj(), _x(lib)),
    "vdot both": lambda lib: lib.vdot(_x(lib).conj(), _x(lib).conj()),
    "outer": lambda lib: lib.outer(_x(lib).conj(), _x(lib)),
    "kron": lambda lib: lib.kron(_a(lib).conj(), _a(lib)[:2, :2]),
    "einsum": lambda lib: lib.einsum("ij,j->i", _a(lib).conj(), _x(lib)[:3]),
    "tensordot": lambda lib: lib.tensordot(_a(lib).conj(), _a(lib), dims=1),
    "det": lambda lib: lib.linalg.det(_a(lib).conj()),
    "inv": lambda lib: lib.linalg.inv(_a(lib).mH),
    "solve": lambda lib: lib.linalg.solve(_a(lib).conj(), _x(lib)[:3].conj()),
    "solve_triangular": lambda lib: lib.linalg.solve_triangular(
        _a(lib).conj().triu(), _a(lib).mH, upper=True
    ),
    "svdvals": lambda lib: lib.linalg.svdvals(_a(lib).conj()),
    "svd S": lambda lib: lib.linalg.svd(_a(lib).mH)[1],
    "cholesky": lambda lib: lib.linalg.cholesky(_spd(lib).conj()),
    "eigvalsh": lambda lib: lib.linalg.eigvalsh(_spd(lib).mH),
    "qr R diag abs": lambda lib: lib.linalg.qr(_a(lib).mH)[1].diagonal().abs(),
    "matrix_power": lambda lib: lib.linalg.matrix_power(_a(lib).conj(), 3),
    "fft": lambda lib: lib.fft.fft(_x(lib).conj()),
    "ifft of neg": lambda lib: lib.fft.ifft(lib._neg_view(_x(lib))),
    "view_as_real resolved": lambda lib: lib.view_as_real(_x(lib).conj().resolve_conj()),
    "real of neg": lambda lib: lib._neg_view(_x(lib)).real,
    "isreal": lambda lib: _x(lib).conj().isreal(),
}


@pytest.mark.parametrize("name", list(OP_CASES))
def test_ops_on_bits_match_torch(name: str) -> None:
    _check(OP_CASES[name])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    values=st.lists(
        st.complex_numbers(max_magnitude=100, allow_nan=False, allow_infinity=False),
        min_size=6,
        max_size=6,
    ),
    op=st.sampled_from(["add", "mul", "sub", "div", "sin", "sum", "mm", "matmul", "copy_"]),
    bits=st.sampled_from(["conj", "neg", "both", "mH"]),
)
def test_random_ops_on_bits_match_torch(values: list[complex], op: str, bits: str) -> None:
    def run(lib: Lib) -> Any:
        base = lib.tensor(values, dtype=lib.complex128).reshape(2, 3)
        plain = lib.tensor(values[::-1], dtype=lib.complex128).reshape(2, 3)
        t = {
            "conj": base.conj(),
            "neg": lib._neg_view(base),
            "both": lib._neg_view(base).conj(),
            "mH": base.mH.mT,
        }[bits]
        if op == "sin":
            return t.sin()
        if op == "sum":
            return t.sum(1)
        if op in ("mm", "matmul"):
            return getattr(lib, op)(t, plain.mT)
        if op == "copy_":
            target = lib.zeros(2, 3, dtype=lib.complex128)
            {"conj": target.conj(), "neg": lib._neg_view(target)}.get(bits, target).copy_(plain)
            return target
        return getattr(lib, op)(t, plain)

    _check(run)


# --- errors -------------------------------------------------------------------------------------

ERROR_CASES: Final[dict[str, Callable[[Lib], Any]]] = {
    "view_as_real of conj": lambda lib: lib.view_as_real(_x(lib).conj()),
    "numpy of conj": lambda lib: _x(lib).conj().numpy(),
    "numpy of neg": lambda lib: lib._neg_view(lib.ones(2)).numpy(),
    "numpy of both": lambda lib: lib._neg_view(_x(lib)).conj().numpy(),
    "__array__ of conj": lambda lib: _x(lib).conj().__array__(),
    "view dtype of conj": lambda lib: _x(lib).conj().view(lib.float32),
    "view same dtype of conj": lambda lib: _x(lib).conj().view(lib.complex64),
    "view dtype of neg": lambda lib: lib._neg_view(lib.ones(2)).view(lib.int32),
    "imag of real": lambda lib: lib.ones(2).conj().imag,
    "adjoint 1-d": lambda lib: lib.adjoint(lib.ones(3)),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_torch(name: str) -> None:
    _check(ERROR_CASES[name])


# --- what a dispatch mode sees -------------------------------------------------------------------


def _mode_p1(lib: Lib) -> Any:
    x = _x(lib)
    z = x.conj()
    w = z * 2
    v = z.sin()
    z.add_(1)
    return w, v, z


MODE_PROGRAMS: Final[dict[str, Callable[[Lib], Any]]] = {
    "mul, sin, add_": _mode_p1,
    "mH": lambda lib: _a(lib).mH,
    "mH real": lambda lib: lib.ones(2, 2).mH,
    "adjoint": lambda lib: _a(lib).adjoint(),
    "mm": lambda lib: lib.mm(_a(lib).conj(), _a(lib)),
    "matmul": lambda lib: lib.matmul(_a(lib).mH, _a(lib)),
    "addmm": lambda lib: lib.addmm(_a(lib), _a(lib).conj(), _a(lib)),
    "dot, vdot": lambda lib: (lib.dot(_x(lib).conj(), _x(lib)), lib.vdot(_x(lib).conj(), _x(lib))),
    "resolve_conj": lambda lib: _x(lib).conj().resolve_conj(),
    "clone": lambda lib: _x(lib).conj().clone(),
    "imag": lambda lib: _x(lib).conj().imag,
    "real": lambda lib: _x(lib).conj().real,
    "imag sum": lambda lib: _x(lib).conj().imag.sum(),
    "copy_ into conj": lambda lib: _x(lib).conj().copy_(lib.tensor([5j, 1, 2, 3])),
    "neg_view sum": lambda lib: lib._neg_view(_x(lib)).sum(),
    "both bits mul": lambda lib: lib._neg_view(_x(lib).conj()) * 2,
    "out= into conj": lambda lib: lib.add(_x(lib), 1, out=_x(lib).conj()),
    "eq": lambda lib: _x(lib).conj() == _x(lib),
    "tolist": lambda lib: _x(lib).conj().tolist(),
    "item": lambda lib: _x(lib).conj()[0].item(),
    "setitem": lambda lib: _x(lib).conj().__setitem__(0, 5 + 5j),
    "neg_": lambda lib: _x(lib).conj().imag.neg_(),
    "cat": lambda lib: lib.cat([_x(lib).conj(), _x(lib)]),
    "conj_physical": lambda lib: _x(lib).conj().conj_physical(),
    "conj_physical_": lambda lib: _x(lib).conj().conj_physical_(),
    "sin_": lambda lib: _x(lib).conj().sin_(),
    "abs": lambda lib: _x(lib).conj().abs(),
}


@pytest.mark.parametrize("name", list(MODE_PROGRAMS))
def test_dispatch_mode_sees_what_torch_sees(name: str) -> None:
    program = MODE_PROGRAMS[name]
    expected, _ = aten_calls(torch, lambda: program(torch))
    actual, _ = aten_calls(refimpl, lambda: program(refimpl))
    assert actual == expected


# --- gradients ----------------------------------------------------------------------------------

GRAD_CASES: Final[dict[str, Callable[[Lib, Any, Any], Any]]] = {
    "conj mul": lambda lib, x, a: (x.conj() * x * x).real.sum(),
    "imag of conj": lambda lib, x, a: (x.conj().imag * 3).sum(),
    "imag of conj squared": lambda lib, x, a: (x.conj().imag ** 2).sum(),
    "neg_view": lambda lib, x, a: lib._neg_view(x).mul(x).abs().sum(),
    "mm": lambda lib, x, a: (a.conj() @ a.mH).abs().sum(),
    "adjoint sin": lambda lib, x, a: a.adjoint().sin().abs().sum(),
    "in-place on conj view": lambda lib, x, a: _grad_inplace(x),
    "in-place on slice of conj": lambda lib, x, a: _grad_inplace_slice(x),
    "in-place on neg view": lambda lib, x, a: _grad_inplace_neg(lib, x),
    "grad is conj": lambda lib, x, a: (x.conj()[0] * 2).real,
    "vdot": lambda lib, x, a: lib.vdot(x.conj(), x * x).abs(),
    "resolve_conj": lambda lib, x, a: x.conj().resolve_conj().pow(2).sum().real,
    "real of conj": lambda lib, x, a: (x.conj().real * x.imag).sum(),
}


def _grad_inplace(x: Any) -> Any:
    y = x * 1
    y.conj().mul_(2j)
    return (y * y).abs().sum()


def _grad_inplace_slice(x: Any) -> Any:
    y = x * 1
    y.conj()[1:].mul_(2j)
    return (y * y).abs().sum()


def _grad_inplace_neg(lib: Lib, x: Any) -> Any:
    y = x * 1
    lib._neg_view(y).add_(x * x)
    return (y * y.conj()).real.sum()


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_torch(name: str) -> None:
    def run(lib: Lib) -> Any:
        x = lib.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j], dtype=lib.complex128, requires_grad=True)
        a = _a(lib).to(lib.complex128).requires_grad_(True)
        GRAD_CASES[name](lib, x, a).backward()
        return [None if g is None else g.detach() for g in (x.grad, a.grad)]

    _check(run)


@pytest.mark.parametrize("view", ["conj", "neg", "imag of conj"])
def test_gradcheck_through_math_bit_views(view: str) -> None:
    make: Callable[[Any], Any] = {
        "conj": lambda t: t.conj().sin(),
        "neg": lambda t: refimpl._neg_view(t).exp(),
        "imag of conj": lambda t: t.conj().imag * t,
    }[view]
    x = refimpl.tensor([1 + 2j, 0.5 - 1j], dtype=refimpl.complex128, requires_grad=True)
    assert refimpl.autograd.gradcheck(make, (x,))
    # and the same function passes torch's gradcheck (the gradients above are torch's).
    tx = torch.tensor([1 + 2j, 0.5 - 1j], dtype=torch.complex128, requires_grad=True)
    tmake: Callable[[Any], Any] = {
        "conj": lambda t: t.conj().sin(),
        "neg": lambda t: torch._neg_view(t).exp(),
        "imag of conj": lambda t: t.conj().imag * t,
    }[view]
    assert torch.autograd.gradcheck(tmake, (tx,))
