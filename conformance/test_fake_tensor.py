"""FakeTensorMode against torch's: metadata, devices, autograd and errors without data.

Each program runs once with torch and its `torch._subclasses.fake_tensor`, once with refimpl and
`refimpl._subclasses.fake_tensor`, and describes what it made: every tensor's class, shape,
dtype, strides, offset, device, requires_grad and grad_fn; errors as (class name, message,
`func`). The two descriptions must be equal. See refimpl/_subclasses/fake_tensor.py.

This torch is a CPU-only build: there, FakeTensorMode makes `device="cuda"` tensors and runs
ops on them, but recording autograd on them aborts the process and `.to("cuda")` or a copy
into a cuda FakeTensor raises "PyTorch is not linked with support for cuda devices"; those
are not compared (refimpl behaves as a CUDA build would: the fake grads are on cuda:0).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

import numpy as np
import pytest
import torch
import torch._subclasses.fake_tensor as torch_fake

import refimpl
import refimpl._subclasses.fake_tensor as refimpl_fake

LIBS: Final = {"torch": (torch, torch_fake), "refimpl": (refimpl, refimpl_fake)}
Program = Callable[[ModuleType, ModuleType], Any]


def describe(value: Any) -> Any:
    """A library-neutral description of what a program made."""
    if isinstance(value, (torch.Tensor, refimpl.Tensor)):
        grad_fn = value.grad_fn
        return {
            "class": type(value).__name__,
            "shape": tuple(value.shape),
            "dtype": str(value.dtype).rpartition(".")[2],
            "stride": tuple(value.stride()),
            "offset": value.storage_offset(),
            "device": str(value.device),
            "requires_grad": value.requires_grad,
            "grad_fn": None if grad_fn is None else type(grad_fn).__name__,
        }
    if isinstance(value, dict):
        return {k: describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if isinstance(value, (torch.dtype, refimpl.dtype)):
        return str(value).rpartition(".")[2]
    if isinstance(value, (torch.device, refimpl.device)):
        return str(value)
    if isinstance(value, str):
        return value.replace("refimpl.", "torch.")
    return value


def run(program: Program, lib: str) -> Any:
    T, fake = LIBS[lib]
    try:
        return describe(program(T, fake))
    except Exception as e:  # noqa: BLE001 - the error is the result
        func = getattr(e, "func", None)
        return ("raised", type(e).__name__, describe(str(e)), None if func is None else str(func))


def assert_same(program: Program) -> None:
    expected, actual = run(program, "torch"), run(program, "refimpl")
    assert actual == expected


# --- factories in the mode ----------------------------------------------------------------------


FACTORIES: Final[dict[str, Callable[[ModuleType], Any]]] = {
    "ones": lambda T: T.ones(2, 3),
    "zeros_int": lambda T: T.zeros(4, dtype=T.int64),
    "empty_f64": lambda T: T.empty(2, 0, 3, dtype=T.float64),
    "full": lambda T: T.full((3,), 2.5),
    "empty_strided": lambda T: T.empty_strided((2, 3), (1, 2)),
    "empty_strided_cuda": lambda T: T.empty_strided((2, 3), (1, 2), device="cuda"),
    "ones_cuda": lambda T: T.ones(2, 3, device="cuda"),
    "ones_cuda1": lambda T: T.ones(2, device="cuda:1"),
    "zeros_meta": lambda T: T.zeros(2, device="meta"),
    "scalar_tensor": lambda T: T.scalar_tensor(3.0),
    "requires_grad": lambda T: T.zeros(3, requires_grad=True),
    "zeros_like_cuda": lambda T: T.zeros_like(T.ones(2, 3, device="cuda")),
    "ones_like_to_cpu": lambda T: T.ones_like(T.ones(2, device="cuda"), device="cpu"),
    "new_zeros": lambda T: T.ones(2, 3, device="cuda").new_zeros(4),
    "empty_like_strided": lambda T: T.empty_like(T.ones(2, 3).t()),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_in_mode(name: str) -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        with fake.FakeTensorMode():
            out = FACTORIES[name](T)
        return out, repr(out), out.is_cuda, out.is_cpu, out.is_meta, out.get_device()

    assert_same(program)


# --- from_real_tensor -----------------------------------------------------------------------------


def test_from_real_tensor() -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        mode = fake.FakeTensorMode()
        base = T.arange(24.0).reshape(4, 6)
        view = base[1:, ::2].t()
        leaf = T.ones(3, requires_grad=True)
        leaf.grad = T.ones(3) * 2
        f_base, f_view, f_leaf = (mode.from_tensor(t) for t in (base, view, leaf))
        return {
            "base": f_base,
            "view": f_view,
            "view_is_view": f_view._is_view(),
            "memo": mode.from_tensor(view) is f_view,
            "converter": mode.fake_tensor_converter.from_real_tensor(mode, base) is f_base,
            "shared_storage": f_view.untyped_storage() is f_base.untyped_storage(),
            "storage": (f_view.untyped_storage().nbytes(), str(f_view.untyped_storage().device)),
            "leaf": f_leaf,
            "leaf_is_leaf": f_leaf.is_leaf,
            "leaf_grad": f_leaf.grad,
            "int": mode.from_tensor(T.tensor([1, 2, 3])),
            "fake_mode": f_base.fake_mode is mode,
            "fake_device": f_base.fake_device,
            "is_fake": [fake.is_fake(f_base), fake.is_fake(base)],
            "repr": [repr(f_leaf), repr(f_view)],
        }

    assert_same(program)


# --- an MLP, forward and backward -------------------------------------------------------------------

BATCH, WIDTH, CLASSES = 64, 512, 10


def mlp(T: ModuleType, fake: ModuleType) -> dict[str, Any]:
    """A 3-layer MLP (addmm/mm, relu by clamp, cross-entropy from logsumexp and gather) on
    fakes of real parameters: every intermediate and every gradient."""
    rng = np.random.default_rng(0)
    shapes = [(WIDTH, WIDTH), (WIDTH,), (WIDTH, WIDTH), (WIDTH,), (WIDTH, CLASSES), (CLASSES,)]
    real = [
        T.tensor((rng.standard_normal(s) * 0.05).astype(np.float32), requires_grad=True)
        for s in shapes
    ]
    mode = fake.FakeTensorMode()
    w1, b1, w2, b2, w3, b3 = params = [mode.from_tensor(p) for p in real]
    x = mode.from_tensor(T.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32)))
    labels = mode.from_tensor(T.tensor(rng.integers(0, CLASSES, BATCH)))
    out: dict[str, Any] = {}
    with mode:
        out["h1"] = h1 = T.addmm(b1, x, w1)
        out["a1"] = a1 = h1.clamp(min=0)
        out["h2"] = h2 = T.mm(a1, w2) + b2
        out["a2"] = a2 = h2.clamp_min(0)
        out["logits"] = logits = T.addmm(b3, a2, w3)
        out["index"] = index = labels.unsqueeze(1)
        out["picked"] = picked = logits.gather(1, index).squeeze(1)
        out["lse"] = lse = logits.logsumexp(1)
        out["loss"] = loss = (lse - picked).mean()
        loss.backward()
        out["grads"] = [p.grad for p in params]
    # Outside the mode, ops on FakeTensors run under their mode (FakeTensor.__torch_dispatch__).
    out["sgd"] = [p.detach() - 0.01 * p.grad for p in params]
    out["leaf_grad_after"] = params[0].grad
    return out


def test_mlp_forward_backward() -> None:
    assert_same(mlp)


def test_backward_outside_the_mode() -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        mode = fake.FakeTensorMode()
        w = mode.from_tensor(T.ones(5, 3, requires_grad=True))
        with mode:
            x = T.ones(4, 5)
        y = (x @ w).exp().sum(1)
        y.sum().backward()
        return y, w.grad, T.autograd.grad((x @ w).sum(), w)

    assert_same(program)


# --- views and in-place ops --------------------------------------------------------------------------


def test_views_and_inplace() -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        with fake.FakeTensorMode():
            a = T.ones(4, 6)
            v = a[1:, ::2]
            t = a.t()
            out: dict[str, Any] = {
                "v": v,
                "v_base": v._base is a,
                "t_base": t._base is a,
                "view_of_view": v.t()._base is a,
                "expand": T.ones(3, 1).expand(3, 4),
                "contiguous": t.contiguous(),
                "reshape_copy": t.reshape(24),
                "unbind": a.unbind(1)[2],
                "split": list(a.split(4, 1)),
                "diag": a.diagonal(),
            }
            version = a._version
            out["add_"] = a.add_(1) is a
            out["version"] = a._version - version
            out["view_version"] = v._version - version
            out["inplace_view"] = (v.mul_(2) is v, a._version - version)
            b = T.ones(4, 6)
            out["t_"] = (b.t_() is b, b)
            out["unsqueeze_"] = (b.unsqueeze_(0) is b, b)
            out["resize_"] = (b.resize_(2, 3) is b, b)
            c = T.empty(0)
            out["out="] = (T.add(T.ones(2, 3), 1, out=c) is c, c)
            out["copy_"] = T.ones(2, 3).copy_(T.ones(3).double())
            out["setitem"] = T.zeros(3, 4).__setitem__((slice(None), 0), 1.0)
            out["transpose_strided"] = T.empty_strided((2, 3), (1, 2)) + 1
            return out

    assert_same(program)


# --- data-dependent ops ----------------------------------------------------------------------------

DATA_DEPENDENT: Final[dict[str, Callable[[ModuleType, Any], Any]]] = {
    "item": lambda T, x: x.sum().item(),
    "item_many": lambda T, x: x.item(),
    "tolist": lambda T, x: x.tolist(),
    "tolist_0d": lambda T, x: x.sum().tolist(),
    "bool": lambda T, x: bool(x.sum() > 0),
    "bool_many": lambda T, x: bool(x),
    "float": lambda T, x: float(x.sum()),
    "int": lambda T, x: int(x[0, 0]),
    "nonzero": lambda T, x: x.nonzero(),
    "masked_select": lambda T, x: T.masked_select(x, x > 0),
    "bool_mask_index": lambda T, x: x[x > 0],
    "aten_index_bool": lambda T, x: T.ops.aten.index.Tensor(x, [x > 0]),
    "index_int": lambda T, x: x[T.zeros(5, dtype=T.int64)],
    "equal": lambda T, x: x.equal(x),
    "allclose": lambda T, x: T.allclose(x, x),
    "repeat_interleave": lambda T, x: T.repeat_interleave(T.ones(3, dtype=T.int64)),
    "repeat_interleave_output_size": lambda T, x: T.repeat_interleave(
        T.ones(3, dtype=T.int64), output_size=3
    ),
    "comparison_is_fine": lambda T, x: x.sum() > 0,
}


@pytest.mark.parametrize("name", list(DATA_DEPENDENT))
def test_data_dependent_errors(name: str) -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        with fake.FakeTensorMode():
            x = T.ones(2, 3)
            return DATA_DEPENDENT[name](T, x)

    assert_same(program)


def test_exceptions_are_torch_classes() -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        names = [
            "FakeTensor",
            "FakeTensorMode",
            "FakeTensorConverter",
            "DataDependentOutputException",
            "DynamicOutputShapeException",
            "UnsupportedFakeTensorException",
            "UnsupportedOperatorException",
            "FakeTensorDeviceMismatchError",
        ]
        bases = {n: [b.__name__ for b in getattr(fake, n).__mro__[1:3]] for n in names[3:]}
        e = fake.DynamicOutputShapeException(T.ops.aten.nonzero.default)
        subclasses = T._subclasses
        return (
            bases,
            str(e),
            str(e.func),
            issubclass(fake.FakeTensor, T.Tensor),
            fake.FakeTensorMode.is_infra_mode(),
            [hasattr(subclasses, n) for n in names[:2]],
        )

    assert_same(program)


# --- mixing real and fake tensors ------------------------------------------------------------------


MIXING: Final[dict[str, Callable[[ModuleType, ModuleType], Any]]] = {}


def _mixing(name: str) -> Callable[[Program], Program]:
    def register(program: Program) -> Program:
        MIXING[name] = program
        return program

    return register


@_mixing("real_input_refused")
def _real_refused(T: ModuleType, fake: ModuleType) -> Any:
    real = T.ones(3)
    with fake.FakeTensorMode():
        return T.ones(2, 3) + real


@_mixing("real_input_refused_outside")
def _real_refused_outside(T: ModuleType, fake: ModuleType) -> Any:
    real = T.ones(3)
    mode = fake.FakeTensorMode()
    with mode:
        x = T.ones(2, 3)
    return x * real


@_mixing("real_input_with_kwargs")
def _real_kwargs(T: ModuleType, fake: ModuleType) -> Any:
    real = T.ones(3)
    with fake.FakeTensorMode():
        return T.add(T.ones(2, 3), real, alpha=2)


@_mixing("allow_non_fake_inputs")
def _allowed(T: ModuleType, fake: ModuleType) -> Any:
    real = T.ones(3, requires_grad=True)
    with fake.FakeTensorMode(allow_non_fake_inputs=True):
        out = T.ones(2, 3) + real
    return out, real.requires_grad, type(real).__name__


@_mixing("inplace_view_on_real")
def _inplace_view_real(T: ModuleType, fake: ModuleType) -> Any:
    real = T.ones(2, 3)
    with fake.FakeTensorMode(allow_non_fake_inputs=True):
        return real.t_()


@_mixing("fake_outside_mode")
def _fake_outside(T: ModuleType, fake: ModuleType) -> Any:
    with fake.FakeTensorMode():
        x = T.ones(2, 3, device="cuda")
    return (x + 1, x.sum(0), x.t() @ x, x.to(T.float64), x.cpu())


@pytest.mark.parametrize("name", list(MIXING))
def test_mixing_real_and_fake(name: str) -> None:
    assert_same(MIXING[name])


# --- devices ------------------------------------------------------------------------------------------

DEVICES: Final[dict[str, Callable[[ModuleType], Any]]] = {
    "cuda_plus_scalar": lambda T: T.ones(2, 3, device="cuda") + 1,
    "cuda_plus_cpu_0dim": lambda T: T.ones(2, 3, device="cuda") + T.ones(()),
    "cpu_0dim_plus_cuda": lambda T: T.ones(()) * T.ones(2, 3, device="cuda"),
    "cuda_0dim_plus_cpu": lambda T: T.ones((), device="cuda") + T.ones(2, 3),
    "cuda_plus_cpu": lambda T: T.ones(2, 3, device="cuda") + T.ones(3),
    "cuda0_plus_cuda1": lambda T: T.ones(2, device="cuda") + T.ones(2, device="cuda:1"),
    "cpu_plus_meta": lambda T: T.ones(2) + T.ones(2, device="meta"),
    "mm_cuda_cpu": lambda T: T.mm(T.ones(2, 3, device="cuda"), T.ones(3, 2)),
    "cat_cuda": lambda T: T.cat([T.ones(2, device="cuda"), T.ones(3, device="cuda")]),
    "cuda_to_cpu": lambda T: T.ones(2, 3, device="cuda").to("cpu"),
    "to_meta": lambda T: T.ones(2, 3).to("meta"),
    "copy_cuda_into_cpu": lambda T: T.ones(2, 3).copy_(T.ones(2, 3, device="cuda")),
    "where_cuda": lambda T: T.where(
        T.ones(3, device="cuda") > 0, T.ones(3, device="cuda"), T.zeros(3, device="cuda")
    ),
    "reductions_cuda": lambda T: (
        T.ones(2, 3, device="cuda").sum(1),
        T.ones(2, 3, device="cuda").amax(0, keepdim=True),
        T.ones(2, 3, device="cuda").logsumexp(1),
    ),
    "dispatch_keys_cpu": lambda T: str(T._C._dispatch_keys(T.ones(2))),
    "dispatch_keys_cuda": lambda T: str(T._C._dispatch_keys(T.ones(2, device="cuda"))),
    "repr_cuda_int": lambda T: repr(T.zeros(3, dtype=T.int64, device="cuda")),
}


@pytest.mark.parametrize("name", list(DEVICES))
def test_device_propagation(name: str) -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        with fake.FakeTensorMode():
            return DEVICES[name](T)

    assert_same(program)


# --- modes around the fake mode -----------------------------------------------------------------------


def test_user_modes_run_before_the_fake_mode() -> None:
    def program(T: ModuleType, fake: ModuleType) -> Any:
        dispatch = torch.utils._python_dispatch if T is torch else refimpl.utils._python_dispatch
        seen: list[str] = []

        class Log(dispatch.TorchDispatchMode):  # type: ignore[misc, name-defined]
            def __torch_dispatch__(
                self, func: Any, types: Any, args: Any = (), kwargs: Any = None
            ) -> Any:
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        with Log(), fake.FakeTensorMode():
            x = T.ones(2, 3)
            y = (x * 2).sum(0)
        with fake.FakeTensorMode(), Log():
            z = T.zeros(3).neg()
        return seen, y, z

    assert_same(program)


def test_import_is_lazy() -> None:
    # `import refimpl` does not import the package; its first use does, as an attribute
    # (`torch._subclasses.fake_tensor`) or by an import.
    code = (
        "import sys, refimpl; before = 'refimpl._subclasses' in sys.modules; "
        "print(before, refimpl._subclasses.fake_tensor.FakeTensorMode.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "FakeTensorMode"]
