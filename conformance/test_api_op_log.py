"""Which aten overloads a Tensor API call dispatches to: the op log of torch and of refimpl.

Torch's log is what a logging TorchDispatchMode records in plain eager mode: the mode runs at
the Python key, below Autograd, so CompositeImplicitAutograd ops (`to.dtype`, `reshape`,
`contiguous`, `item`) appear decomposed, and ops called inside a kernel do not appear
(pytorch-semantics.md §2.6, §4.1).

refimpl's log is the same logging mode on refimpl's TorchDispatchMode.

Each case runs the same call on fresh inputs in both libraries and compares the op names in
order, the result (shape, dtype, values) and the input afterwards (for assignments), or the
exception's type and text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import refimpl
from refimpl.utils._python_dispatch import TorchDispatchMode as RefimplTorchDispatchMode

# --- the two loggers -----------------------------------------------------------------------


class _TorchOpLog(TorchDispatchMode):
    """Records `str(func)` of every aten call that reaches the Python key, then runs it."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


@contextmanager
def torch_op_log() -> Iterator[list[str]]:
    """The aten ops torch runs in the block, as a logging TorchDispatchMode sees them."""
    with _TorchOpLog() as mode:
        yield mode.ops


class _RefimplOpLog(RefimplTorchDispatchMode):
    """The same logging mode, on refimpl's TorchDispatchMode (refimpl/dispatch/python_dispatch.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


@contextmanager
def refimpl_op_log() -> Iterator[list[str]]:
    """The aten ops refimpl runs in the block, as its logging TorchDispatchMode sees them."""
    with _RefimplOpLog() as mode:
        yield mode.ops


# --- cases ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    """An API call on inputs made (outside the log) by `make`; `xfail` says why refimpl differs."""

    name: str
    call: Callable[..., Any]
    make: Callable[[Any], tuple[Any, ...]]
    xfail: str = ""


def _x(lib: Any) -> tuple[Any, ...]:
    return (lib.arange(24.0).reshape(2, 3, 4),)


def _x_and(*extra: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
    def make(lib: Any) -> tuple[Any, ...]:
        return (*_x(lib), *(e(lib) for e in extra))

    return make


def _x_int(lib: Any) -> tuple[Any, ...]:
    return (lib.arange(6).reshape(2, 3),)


def _scalar(lib: Any) -> tuple[Any, ...]:
    return (lib.arange(24.0).reshape(2, 3, 4)[1, 2, 3],)


def _set(index: Any, value_at: int | None = None, value: Any = None) -> Callable[..., Any]:
    """`x[index] = value`, or `= inputs[value_at]` for a tensor value made outside the log."""

    def call(x: Any, *inputs: Any) -> Any:
        x[index] = inputs[value_at - 1] if value_at is not None else value
        return x

    return call


CASES: Final[list[Case]] = [
    # t[index]
    Case("get_int", lambda x: x[0], _x),
    Case("get_negative_int", lambda x: x[-1], _x),
    Case("get_slice", lambda x: x[1:], _x),
    Case("get_full_slice", lambda x: x[:], _x),
    Case("get_slice_step", lambda x: x[::2], _x),
    Case("get_slice_bounds", lambda x: x[0:2], _x),
    Case("get_tuple_slices", lambda x: x[1:, ::2], _x),
    Case("get_tuple_full_slices", lambda x: x[:, :], _x),
    Case("get_tuple_covering_slice", lambda x: x[:, -10:10], _x),
    Case("get_tuple_negative_slice", lambda x: x[:, -1:], _x),
    Case("get_none", lambda x: x[None], _x),
    Case("get_ellipsis", lambda x: x[...], _x),
    Case("get_empty_tuple", lambda x: x[()], _x),
    Case("get_ellipsis_int", lambda x: x[..., 0], _x),
    Case("get_slice_none_int", lambda x: x[:, None, 1], _x),
    Case("get_three_ints", lambda x: x[0, 1, 2], _x),
    Case("get_int_ellipsis_none", lambda x: x[0, ..., None], _x),
    Case("get_chained", lambda x: x[1:][0], _x),
    Case("get_true", lambda x: x[True], _x),
    Case("get_out_of_range", lambda x: x[..., 5], _x),
    Case("get_0dim_int", lambda s: s[0], _scalar),
    Case("get_negative_step", lambda x: x[:, ::-1], _x),
    # t[index] = value
    Case("set_int_float", _set(0, value=1.0), _x),
    Case("set_int_int", _set(0, value=1), _x),
    Case("set_slice_scalar", _set(slice(1, None), value=1.0), _x),
    Case("set_full_slice_scalar", _set(slice(None), value=2.0), _x),
    Case("set_ellipsis_scalar", _set(Ellipsis, value=2.0), _x),
    Case("set_none_scalar", _set(None, value=2.0), _x),
    Case("set_false_scalar", _set(False, value=2.0), _x),
    Case("set_ints_scalar", _set((0, 1, 2), value=5.0), _x),
    Case("set_0dim_value", _set(0, value_at=1), _x_and(lambda lib: lib.full((), 3.0))),
    Case("set_same_shape", _set(0, value_at=1), _x_and(lambda lib: lib.ones(3, 4))),
    Case("set_leading_ones", _set(0, value_at=1), _x_and(lambda lib: lib.ones(1, 3, 4))),
    Case("set_broadcast", _set(0, value_at=1), _x_and(lambda lib: lib.ones(4))),
    Case("set_slice_broadcast", _set(slice(1, None), value_at=1), _x_and(lambda lib: lib.ones(3, 4))),
    Case("set_int_tensor_into_float", _set(0, value_at=1), _x_and(lambda lib: lib.ones(3, 4, dtype=lib.int64))),
    Case("set_bad_broadcast", _set(0, value_at=1), _x_and(lambda lib: lib.ones(5))),
    Case("set_out_of_range", _set(5, value=1.0), _x),
    Case("set_float_into_int", _set((1, 2), value=2.7), _x_int),
    Case("set_str", _set(0, value="a"), _x),
    Case("set_0dim_empty_tuple", _set((), value=1.0), _scalar),
    # dtype and device conversions
    Case("to_float64", lambda x: x.to(refimpl_or_torch(x).float64), _x),
    Case("to_same_dtype", lambda x: x.to(refimpl_or_torch(x).float32), _x),
    Case("to_same_dtype_copy", lambda x: x.to(refimpl_or_torch(x).float32, copy=True), _x),
    Case("to_cpu", lambda x: x.to("cpu"), _x),
    Case("to_cpu_float64", lambda x: x.to("cpu", refimpl_or_torch(x).float64), _x),
    Case("to_copy_only", lambda x: x.to(copy=True), _x),
    Case("to_other", lambda x, o: x.to(o), _x_and(lambda lib: lib.ones(1, dtype=lib.int32))),
    Case("to_meta", lambda x: x.to("meta").shape, _x),
    Case("float_on_float", lambda x: x.float(), _x),
    Case("double", lambda x: x.double(), _x),
    Case("long", lambda x: x.long(), _x),
    Case("int", lambda x: x.int(), _x),
    Case("bool", lambda x: x.bool(), _x),
    Case("type_as", lambda x, o: x.type_as(o), _x_and(lambda lib: lib.ones(1, dtype=lib.int32))),
    Case("cpu", lambda x: x.cpu(), _x),
    # scalars, detach, copies, views
    Case("item", lambda s: s.item(), _scalar),
    Case("bool_of_scalar", lambda s: bool(s), _scalar),
    Case("detach", lambda x: x.detach(), _x),
    Case("numpy", lambda x: x.numpy().tolist(), _x),
    Case("clone", lambda x: x.clone(), _x),
    Case("contiguous_on_contiguous", lambda x: x.contiguous(), _x),
    Case("contiguous_on_transposed", lambda x: x.transpose(0, 1).contiguous(), _x),
    Case("view_T", lambda x: x.view(6, 4).T, _x),
    Case("reshape_viewable", lambda x: x.reshape(6, 4), _x),
    Case("reshape_copy", lambda x: x.transpose(0, 1).reshape(24), _x),
]


def refimpl_or_torch(t: Any) -> Any:
    """The library a tensor belongs to, so one lambda serves both."""
    return refimpl if isinstance(t, refimpl.Tensor) else torch


# --- running a case ------------------------------------------------------------------------


def _summary(value: Any) -> Any:
    """What a result is, comparable across the libraries."""
    if isinstance(value, (torch.Tensor, refimpl.Tensor)):
        dtype = str(value.dtype).rpartition(".")[2]
        data = value.tolist() if value.device.type != "meta" else None
        return ("tensor", tuple(value.shape), dtype, value.device.type, data)
    return value


def _run(lib: Any, case: Case) -> tuple[list[str], Any]:
    inputs = case.make(lib)
    log = torch_op_log if lib is torch else refimpl_op_log
    with log() as ops:
        try:
            outcome: Any = _summary(case.call(*inputs))
        except Exception as exc:  # noqa: BLE001 - the exception is what is compared
            outcome = ("raised", type(exc), str(exc).replace("refimpl.", "torch."))
    return ops, (outcome, [_summary(t) for t in inputs])


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.xfail(reason=c.xfail, strict=True)) if c.xfail else c
     for c in CASES],
    ids=[c.name for c in CASES],
)
def test_op_log_matches_torch(case: Case) -> None:
    expected = _run(torch, case)
    actual = _run(refimpl, case)
    assert actual[0] == expected[0]
    assert actual[1] == expected[1]


def test_logger_sees_only_top_level_calls() -> None:
    # The refimpl logger itself, checked against torch's: a decomposed op shows its parts,
    # and the fill_ kernel's own use of the scalar is not logged.
    x = refimpl.ones(2, 3)
    with refimpl_op_log() as ops:
        x.reshape(3, 2)
        x[0] = 1.0
    t = torch.ones(2, 3)
    with torch_op_log() as expected:
        t.reshape(3, 2)
        t[0] = 1.0
    assert ops == expected == [
        "aten.view.default", "aten.lift_fresh.default", "aten.select.int", "aten.fill_.Tensor",
    ]
    with refimpl_op_log() as after:
        pass
    x.reshape(6)
    assert after == []
