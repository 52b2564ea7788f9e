"""Follow-ups found by the issue-14 helpers, each checked against torch: reflection_pad1d
(stft's double backward), linalg.det's gradient for empty and 1 x 1 matrices, no NumPy
RuntimeWarning escaping refimpl, and the strides of empty results (conj_physical, binary
ops on empty views)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import refimpl


def _r(t: torch.Tensor) -> Any:
    """The refimpl tensor with torch's values (and torch's dtype)."""
    dtype = getattr(refimpl, str(t.dtype).removeprefix("torch."))
    try:
        refimpl.zeros(1, dtype=dtype)
    except TypeError as error:  # the backend has no such dtype (array_api_strict: float16)
        pytest.skip(str(error))
    if t.dtype in (torch.float16, torch.bfloat16):
        return refimpl.tensor(t.double().numpy()).to(dtype)
    return refimpl.tensor(t.numpy(), dtype=dtype)


def _t(x: Any) -> torch.Tensor:
    if str(x.dtype) in ("refimpl.float16", "refimpl.bfloat16"):
        return torch.from_numpy(np.asarray(x.double().numpy())).to(
            getattr(torch, str(x.dtype).removeprefix("refimpl."))
        )
    return torch.from_numpy(np.array(x.numpy()))


def _same(a: Any, b: torch.Tensor) -> None:
    got = _t(a)
    assert got.dtype == b.dtype
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == b.stride()
    torch.testing.assert_close(got, b, rtol=0, atol=0, equal_nan=True)


# --- reflection_pad1d ---------------------------------------------------------------------

_PADS = [((2, 5), [1, 2]), ((3, 2, 5), [4, 4]), ((1, 5), [-1, 2]), ((1, 5), [2, -3]),
         ((2, 5), [0, 0]), ((0, 2, 5), [1, 1]), ((2, 1), [0, 0])]


@pytest.mark.parametrize("shape,pad", _PADS)
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex64, torch.int64, torch.float16])
def test_reflection_pad1d(shape: tuple[int, ...], pad: list[int], dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g, dtype=torch.float64).mul(10).to(dtype)
    expected = torch.ops.aten.reflection_pad1d(x, pad)
    _same(refimpl.ops.aten.reflection_pad1d.default(_r(x), pad), expected)
    if dtype is torch.int64:
        return
    grad = torch.randn(expected.shape, generator=g, dtype=torch.float64).to(dtype)
    back = torch.ops.aten.reflection_pad1d_backward(grad, x, pad)
    _same(refimpl.ops.aten.reflection_pad1d_backward.default(_r(grad), _r(x), pad), back)


@pytest.mark.parametrize(
    "shape,pad", [((5,), [1, 1]), ((0, 5), [1, 1]), ((1, 4), [4, 0]), ((1, 4), [-2, -2]),
                  ((1, 4), [1])]
)
def test_reflection_pad1d_errors(shape: tuple[int, ...], pad: list[int]) -> None:
    x = torch.zeros(shape)
    with pytest.raises(RuntimeError) as expected:
        torch.ops.aten.reflection_pad1d(x, pad)
    with pytest.raises(RuntimeError) as got:
        refimpl.ops.aten.reflection_pad1d.default(_r(x), pad)
    assert str(got.value) == str(expected.value)


def test_reflection_pad1d_dtype_errors() -> None:
    with pytest.raises(NotImplementedError, match="'Bool'"):
        refimpl.ops.aten.reflection_pad1d.default(refimpl.ones(1, 4, dtype=refimpl.bool), [1, 1])
    with pytest.raises(NotImplementedError, match="'Long'"):
        refimpl.ops.aten.reflection_pad1d_backward.default(
            refimpl.ones(1, 6, dtype=refimpl.int64), refimpl.ones(1, 4, dtype=refimpl.int64),
            [1, 1],
        )


def _second_wrt_input(lib: Any, x: Any, **kwargs: Any) -> Any:
    y = lib.stft(x, **kwargs)
    u = lib.ones_like(y, requires_grad=True)
    (g,) = lib.autograd.grad(y, x, u, create_graph=True)
    return lib.autograd.grad(g, [x, u], lib.ones_like(g), allow_unused=True)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_stft_double_backward_reaches_input(dtype: str) -> None:
    kwargs = {"n_fft": 10, "return_complex": True, "window": None}
    base = (torch.arange(100, dtype=torch.float64) / 7).to(getattr(torch, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _second_wrt_input(torch, base.clone().requires_grad_(), **kwargs)
        got = _second_wrt_input(refimpl, _r(base).requires_grad_(), **kwargs)
    for e, a in zip(expected, got, strict=True):
        assert (e is None) == (a is None)
        if e is not None:
            torch.testing.assert_close(_t(a), e)


# --- linalg.det's gradient ----------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (1, 1), (3, 1, 1), (0, 1, 1)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_gradient_empty_and_one_by_one(shape: tuple[int, ...], dtype: str) -> None:
    a = torch.arange(1, 1 + int(np.prod(shape)), dtype=torch.float64).reshape(shape)
    a = a.to(getattr(torch, dtype))
    results = []
    for lib, x in ((torch, a.clone()), (refimpl, _r(a))):
        x.requires_grad_()
        y = lib.linalg.det(x)
        u = lib.ones_like(y, requires_grad=True)
        (g,) = lib.autograd.grad(y, x, u, create_graph=True)
        results.append((g, g.requires_grad))
    (expected, e_req), (got, g_req) = results
    assert g_req == e_req
    assert tuple(got.stride()) == expected.stride()
    torch.testing.assert_close(_t(got.detach()), expected.detach())


# --- no NumPy RuntimeWarning escapes refimpl ----------------------------------------------


def _runtime_warnings(fn: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
            if issubclass(w.category, RuntimeWarning)]


def test_no_runtime_warning_escapes() -> None:
    x = refimpl.ones(3, 3)
    assert _runtime_warnings(lambda: refimpl.ones(3) / 0) == []
    assert _runtime_warnings(lambda: refimpl.zeros(3) / 0) == []
    assert _runtime_warnings(lambda: refimpl.cov(x, correction=4)) == []
    assert _runtime_warnings(lambda: refimpl.tensor([float("nan")]).to(refimpl.int32)) == []
    # torch: no RuntimeWarning either; cov's own UserWarning is torch's.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cov(torch.ones(3, 3), correction=4)
        torch.ones(3) / 0
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    # A user's own NumPy code still warns.
    assert _runtime_warnings(lambda: np.ones(3) / 0)


def test_runtime_warning_filter_survives_catch_warnings() -> None:
    # The backend loading inside a catch_warnings block (as pytest runs every test) and a
    # later simplefilter("error"): refimpl's NumPy warnings stay silent.
    import subprocess
    import sys

    code = (
        "import warnings, refimpl\n"
        "with warnings.catch_warnings():\n"
        "    refimpl.ones(1) + 1\n"
        "warnings.simplefilter('error')\n"
        "refimpl.ones(3) / 0\n"
        "refimpl.cov(refimpl.ones(3, 3), correction=2)\n"
        "try:\n"
        "    __import__('numpy').ones(1) / 0\n"
        "except RuntimeWarning:\n"
        "    print('user warns')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "user warns"


# --- layouts of empty results and of ops with a scalar operand ------------------------------


def _lib_cases(lib: Any) -> list[tuple[str, Any]]:
    c64 = lib.complex64
    return [
        ("conj_physical empty mT", lib.zeros(3, 0, dtype=c64).mT.conj_physical()),
        ("conj_physical strided", lib.zeros(4, 6, dtype=c64)[:, ::2].mT.conj_physical()),
        ("conj_physical size-1", lib.zeros(3, 1, 2, dtype=c64).permute(1, 2, 0).conj_physical()),
        ("empty mT + 0", lib.zeros(3, 0).mT + 0),
        ("empty mT neg", lib.zeros(3, 0).mT.neg()),
        ("empty permuted + 0", lib.zeros(2, 0, 3).permute(2, 0, 1) + 0),
        ("empty transposed * itself", lib.zeros(4, 0, 2).transpose(0, 2).mul(2.5)),
        ("empty + 0-dim tensor", lib.zeros(4, 0, 2).transpose(0, 2) + lib.zeros(())),
        ("size-1 mT pow 2", lib.zeros(3, 1).mT.pow(2)),
        ("empty clamp", lib.zeros(1, 0).mT.clamp(min=0)),
        ("size-1 permuted == 1", lib.zeros(2, 1, 1, 3).permute(0, 3, 1, 2) == 1),
    ]


def test_empty_and_scalar_operand_layouts() -> None:
    for (name, expected), (_, got) in zip(_lib_cases(torch), _lib_cases(refimpl), strict=True):
        assert tuple(got.shape) == tuple(expected.shape), name
        assert tuple(got.stride()) == expected.stride(), name


def test_scalar_operand_layouts_random() -> None:
    rng = np.random.default_rng(0)
    ops = [
        lambda lib, x: x + 2, lambda lib, x: 3 - x, lambda lib, x: x / 2,
        lambda lib, x: lib.where(x > 0, x, 0.0), lambda lib, x: lib.pow(x, 2),
        lambda lib, x: lib.add(x, 1, alpha=2), lambda lib, x: lib.clamp(x, min=0),
        lambda lib, x: x == 1, lambda lib, x: lib.clamp_max(x, 1),
    ]
    for _ in range(400):
        ndim = int(rng.integers(1, 5))
        shape = [int(s) for s in rng.choice([0, 1, 2, 3], ndim)]
        perm = [int(d) for d in rng.permutation(ndim)]
        step = bool(rng.random() < 0.3)
        op = ops[int(rng.integers(len(ops)))]
        results = []
        for lib in (torch, refimpl):
            x = lib.zeros(*shape).permute(*perm)
            if step and x.shape[-1] > 0:
                x = x[..., ::2]
            results.append(op(lib, x))
        expected, got = results
        assert tuple(got.stride()) == expected.stride(), (shape, perm, step)
