"""The thread-local include/exclude guards change which kernel runs, as torch's do.

A custom op with labelled kernels runs in torch and refimpl under the same guard; the label
sequences must agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
import refimpl.library
from refimpl._base import keys as rkeys
from refimpl.dispatch import tls as rtls

_COUNTER = itertools.count()


def _torch_keyset(*names: str) -> Any:
    result = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, names[0]))
    for name in names[1:]:
        result = result | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    return result


def _refimpl_keyset(*names: str) -> Any:
    return rkeys.DispatchKeySet([getattr(rkeys.DispatchKey, n) for n in names])


def _run(lib_module: Any, ops: Any, ones: Any, guard: Callable[[], Any], regs: list[str],
         redispatch: tuple[str, ...] | None = None) -> list[str]:
    ns = f"refimpl_tls_{next(_COUNTER)}"
    lib = lib_module.Library(ns, "DEF")
    log: list[str] = []
    try:
        lib.define("foo(Tensor x) -> Tensor")
        for key in regs:
            def kernel(x: Any, key: str = key) -> Any:
                log.append(key)
                return x
            lib.impl("foo", kernel, key)
        op = getattr(ops, ns).foo.default
        x = ones(2)
        try:
            with guard():
                if redispatch is None:
                    op(x)
                else:
                    keyset = (_torch_keyset if lib_module is torch.library else _refimpl_keyset)(
                        *redispatch
                    )
                    op.redispatch(keyset, x)
        except NotImplementedError as error:
            log.append(f"NotImplementedError: {str(error).replace(ns, '<ns>')[:60]}")
        return log
    finally:
        lib._destroy()


CASES: dict[str, tuple[Callable[[], Any], Callable[[], Any], list[str]]] = {
    "exclude_autograd_cpu": (
        lambda: torch._C._ExcludeDispatchKeyGuard(_torch_keyset("AutogradCPU")),
        lambda: rtls.ExcludeDispatchKeyGuard(_refimpl_keyset("AutogradCPU")),
        ["Autograd", "CPU"],
    ),
    "below_autograd": (
        torch._C._AutoDispatchBelowAutograd,
        rtls.AutoDispatchBelowAutograd,
        ["Autograd", "CPU"],
    ),
    "include_functionalize": (
        lambda: torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.Functionalize),
        lambda: rtls.IncludeDispatchKeyGuard(rkeys.DispatchKey.Functionalize),
        ["Functionalize", "Autograd", "CPU"],
    ),
    "include_and_exclude": (
        lambda: _both(torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.Functionalize),
                      torch._C._ExcludeDispatchKeyGuard(_torch_keyset("Functionalize"))),
        lambda: _both(rtls.IncludeDispatchKeyGuard(rkeys.DispatchKey.Functionalize),
                      rtls.ExcludeDispatchKeyGuard(_refimpl_keyset("Functionalize"))),
        ["Functionalize", "CPU"],
    ),
    "exclude_cpu_backend": (
        lambda: torch._C._ExcludeDispatchKeyGuard(_torch_keyset("CPU")),
        lambda: rtls.ExcludeDispatchKeyGuard(_refimpl_keyset("CPU")),
        ["CPU"],
    ),
}


class _both:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def __enter__(self) -> None:
        self.a.__enter__()
        self.b.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.b.__exit__(*exc)
        self.a.__exit__(*exc)


@pytest.mark.parametrize("name", list(CASES))
def test_guard_selects_kernel_like_torch(name: str) -> None:
    torch_guard, refimpl_guard, regs = CASES[name]
    expected = _run(torch.library, torch.ops, torch.ones, torch_guard, regs)
    assert _run(refimpl.library, refimpl.ops, refimpl.ones, refimpl_guard, regs) == expected


@pytest.mark.parametrize(
    "keys", [("CPU",), ("AutogradCPU", "CPU"), ("Meta",), ("AutogradCPU",)]
)
def test_redispatch_with_explicit_key_set(keys: tuple[str, ...]) -> None:
    regs = ["Autograd", "CPU", "Meta"]
    noop = lambda: _both(torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.CPU),  # noqa: E731
                         torch._C._ExcludeDispatchKeyGuard(_torch_keyset("Meta")))
    ref_noop = lambda: _both(rtls.IncludeDispatchKeyGuard(rkeys.DispatchKey.CPU),  # noqa: E731
                             rtls.ExcludeDispatchKeyGuard(_refimpl_keyset("Meta")))
    expected = _run(torch.library, torch.ops, torch.ones, noop, regs, keys)
    assert _run(refimpl.library, refimpl.ops, refimpl.ones, ref_noop, regs, keys) == expected
