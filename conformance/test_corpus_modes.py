"""What torch's extension points see, for every program of the corpus (corpus_programs.py),
with plain inputs and with inputs that require grad: the functions a TorchFunctionMode is told
of (by torch.overrides.resolve_name, with the types) and the aten overloads a
TorchDispatchMode sees, on refimpl and on torch, must be equal, and so must the results.

Where refimpl's aten calls differ from torch's for a reason outside the protocols (a
derivative formula calling other ops than torch's, say), the program is listed in DIFFERS
with the reason and checked to still differ, so it leaves the list once it matches.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
import torch
import torch.utils._python_dispatch

import refimpl
import refimpl.overrides
import refimpl.utils._python_dispatch
from conformance._mode_logs import aten_calls, function_calls
from conformance.corpus_programs import PROGRAMS, inputs

# Programs whose ops compute with a backend extension (F.gelu: erf) run where it exists.
NEEDS_EXTENSION: Final[dict[str, str]] = {"F_gelu": "erf", "backward_F_gelu": "erf"}
_CPU_EXTENSIONS: Final = refimpl.config.backends.resolve("cpu").extensions

# (program, requires_grad, which log) -> why refimpl's log differs from torch's.
DIFFERS: Final[dict[tuple[str, bool, str], str]] = {}


def _function_log(lib: Any, name: str, requires_grad: bool) -> Any:
    t = inputs(lib, requires_grad)
    seen, result = function_calls(lib, lambda: PROGRAMS[name](lib, t))
    return seen, _describe(result)


def _dispatch_log(lib: Any, name: str, requires_grad: bool) -> Any:
    t = inputs(lib, requires_grad)
    seen, result = aten_calls(lib, lambda: PROGRAMS[name](lib, t))
    return seen, _describe(result)


def _describe(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        values = value.detach().tolist()
        return (str(value.dtype).replace("refimpl", "torch"), tuple(value.shape),
                _rounded(values), bool(value.requires_grad))
    if hasattr(value, "__len__"):  # torch.Size
        return list(value)
    return repr(value)


def _rounded(values: Any) -> Any:
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return round(values, 9) if isinstance(values, float) else values


CASES = [(name, grad) for name in PROGRAMS for grad in (False, True)]


@pytest.mark.parametrize("log", ["function", "dispatch"])
@pytest.mark.parametrize(("name", "requires_grad"), CASES,
                         ids=[f"{n}-{'grad' if g else 'plain'}" for n, g in CASES])
def test_modes_see_what_torch_modes_see(name: str, requires_grad: bool, log: str) -> None:
    extension = NEEDS_EXTENSION.get(name)
    if extension is not None and extension not in _CPU_EXTENSIONS:
        pytest.skip(f"the backend has no {extension}")
    run = _function_log if log == "function" else _dispatch_log
    expected = run(torch, name, requires_grad)
    actual = run(refimpl, name, requires_grad)
    reason = DIFFERS.get((name, requires_grad, log))
    if reason is not None:
        assert actual[0] != expected[0], "matches torch now: remove it from DIFFERS"
        assert actual[1] == expected[1]
        pytest.xfail(reason)
    assert actual[1] == expected[1], "results differ"
    assert actual[0] == expected[0]


def test_corpus_size() -> None:
    """Issue 13: at least 50 programs."""
    assert len(PROGRAMS) >= 50
