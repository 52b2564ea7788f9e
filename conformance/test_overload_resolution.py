"""Which overload a packet call binds to: `refimpl.ops.aten.<op>.resolve(...)` against torch.

Torch decides by trying each overload's schema in order (torch/csrc/jit/python/pybind_utils.h,
createStackForSchema per overload). To learn its choice, each call runs in torch under a
TorchDispatchMode that records the first OpOverload it sees and stops the call there, with
autograd excluded (`_AutoDispatchBelowAutograd`) so CompositeImplicitAutograd overloads such
as `to.dtype` reach the mode undecomposed (pytorch-semantics.md §1.7). Where no overload
matches, torch raises before the mode; the exception type and first message line are compared.

Every call is written once, as `lambda lib, t: lib.ops.aten.add(t.x, 2)`: `lib` is torch or a
refimpl proxy whose packets resolve instead of running, `t` holds the same inputs built by
either library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import refimpl

Call = Callable[[Any, Any], object]


def _inputs(lib: Any) -> SimpleNamespace:
    """The same inputs in either library."""
    return SimpleNamespace(
        x=lib.ones(2, 3),  # float32 (default dtype)
        y=lib.ones(2, 3),
        i=lib.ones(2, 3, dtype=lib.int64),
        m=lib.tensor([[True, False, True], [False, True, False]]),
        s=lib.tensor(2.0),  # 0-dim float
        si=lib.tensor(3),  # 0-dim int
        idx=lib.tensor([0, 1]),
        v=lib.ones(6),
    )


# --- the oracle ------------------------------------------------------------------------------


class _Found(Exception):
    pass


class _FirstOp(TorchDispatchMode):
    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        raise _Found(str(func))


def _outcome(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


class _TorchPacket:
    """A torch packet whose call returns the name of the overload torch binds to."""

    def __init__(self, packet: Any) -> None:
        self._packet = packet

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        # The packet call itself: its error where nothing matches, else the first overload
        # the mode sees.
        try:
            with torch._C._AutoDispatchBelowAutograd(), _FirstOp():
                self._packet(*args, **kwargs)
        except _Found as found:
            first: str | None = str(found)
        else:
            first = None
        # An overload that never enters the dispatcher (TorchScript-only, e.g. `add.str`,
        # `to.prim_Device`) is invisible to the mode, or shows up as the overload it calls
        # internally. So ask each overload in packet order, as torch's matching does, whether
        # it accepts the call on its own; the first that does is torch's choice.
        for name in self._packet.overloads():
            overload = getattr(self._packet, name)
            try:
                with torch._C._AutoDispatchBelowAutograd(), _FirstOp():
                    overload(*args, **kwargs)
            except _Found:
                pass
            except RuntimeError:
                continue
            if _is_dispatcher_op(overload):
                # The oracle's two views agree for overloads the mode can see.
                assert str(overload) == first, (str(overload), first)
            return str(overload)
        raise AssertionError(f"no single overload accepts the call (first op seen: {first})")


def _is_dispatcher_op(overload: Any) -> bool:
    name, _, overload_name = overload.name().partition(".")
    try:
        torch._C._dispatch_find_schema_or_throw(name, overload_name)
    except RuntimeError:
        return False
    return True


class _TorchLib:
    def __init__(self) -> None:
        self.ops = SimpleNamespace(aten=_TorchNamespace())

    def __getattr__(self, name: str) -> Any:
        return getattr(torch, name)


class _TorchNamespace:
    def __getattr__(self, name: str) -> Any:
        return _TorchPacket(getattr(torch.ops.aten, name))


def torch_choice(call: Call) -> str:
    t = _inputs(torch)
    try:
        return str(call(_TorchLib(), t))
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return _outcome(error)


class _ResolvingNamespace:
    def __init__(self, ns: Any) -> None:
        self._ns = ns

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ns, name).resolve


class _ResolvingLib:
    """refimpl, except that `lib.ops.aten.<op>(...)` returns the overload instead of calling it."""

    def __init__(self) -> None:
        self.ops = SimpleNamespace(aten=_ResolvingNamespace(refimpl.ops.aten))

    def __getattr__(self, name: str) -> Any:
        return getattr(refimpl, name)


def refimpl_choice(call: Call) -> str:
    t = _inputs(refimpl)
    try:
        return str(call(_ResolvingLib(), t))
    except Exception as error:  # noqa: BLE001
        return _outcome(error)


# --- the table -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    call: Call


CASES = [
    # add / sub / mul / div: Tensor vs Scalar, numbers as tensors
    Case("add_tt", lambda lib, t: lib.ops.aten.add(t.x, t.y)),
    Case("add_ts", lambda lib, t: lib.ops.aten.add(t.x, 2)),
    Case("add_tf", lambda lib, t: lib.ops.aten.add(t.x, 2.5)),
    Case("add_st", lambda lib, t: lib.ops.aten.add(2, t.x)),
    Case("add_alpha", lambda lib, t: lib.ops.aten.add(t.x, t.y, alpha=2)),
    Case("add_0dim", lambda lib, t: lib.ops.aten.add(t.x, t.s)),
    Case("add_bool", lambda lib, t: lib.ops.aten.add(t.x, True)),
    Case("add_ints", lambda lib, t: lib.ops.aten.add(1, 2)),
    Case("add_floats", lambda lib, t: lib.ops.aten.add(1.0, 2.5)),
    Case("add_str", lambda lib, t: lib.ops.aten.add("a", "b")),
    Case("add_lists", lambda lib, t: lib.ops.aten.add([1], [2])),
    Case("add_bad", lambda lib, t: lib.ops.aten.add(t.x, "a")),
    Case("add_too_many", lambda lib, t: lib.ops.aten.add(t.x, t.y, 1, 2)),
    Case("add_unknown_kw", lambda lib, t: lib.ops.aten.add(t.x, t.y, beta=2)),
    Case("sub_tt", lambda lib, t: lib.ops.aten.sub(t.x, t.y)),
    Case("sub_ts", lambda lib, t: lib.ops.aten.sub(t.x, 1)),
    Case("rsub_ts", lambda lib, t: lib.ops.aten.rsub(t.x, 1)),
    Case("mul_tt", lambda lib, t: lib.ops.aten.mul(t.x, t.i)),
    Case("mul_ts", lambda lib, t: lib.ops.aten.mul(t.x, 3.0)),
    Case("mul_st", lambda lib, t: lib.ops.aten.mul(3, t.x)),
    Case("div_tt", lambda lib, t: lib.ops.aten.div(t.x, t.y)),
    Case("div_ts", lambda lib, t: lib.ops.aten.div(t.x, 2)),
    Case("div_mode", lambda lib, t: lib.ops.aten.div(t.x, t.y, rounding_mode="floor")),
    Case("div_mode_none", lambda lib, t: lib.ops.aten.div(t.x, t.y, rounding_mode=None)),
    Case("div_s_mode", lambda lib, t: lib.ops.aten.div(t.x, 2, rounding_mode="trunc")),
    Case("div_mode_pos", lambda lib, t: lib.ops.aten.div(t.x, t.y, "floor")),
    # pow: scalar or tensor in each position
    Case("pow_tt", lambda lib, t: lib.ops.aten.pow(t.x, t.y)),
    Case("pow_ts", lambda lib, t: lib.ops.aten.pow(t.x, 2)),
    Case("pow_st", lambda lib, t: lib.ops.aten.pow(2, t.x)),
    Case("pow_ss", lambda lib, t: lib.ops.aten.pow(2, 3)),
    Case("pow_ff", lambda lib, t: lib.ops.aten.pow(2.0, 0.5)),
    Case("pow_t0", lambda lib, t: lib.ops.aten.pow(t.x, t.s)),
    # sum / mean
    Case("sum", lambda lib, t: lib.ops.aten.sum(t.x)),
    Case("sum_dim_int", lambda lib, t: lib.ops.aten.sum(t.x, 0)),
    Case("sum_dim_list", lambda lib, t: lib.ops.aten.sum(t.x, [0, 1])),
    Case("sum_dim_tuple", lambda lib, t: lib.ops.aten.sum(t.x, (1,))),
    Case("sum_keepdim", lambda lib, t: lib.ops.aten.sum(t.x, [0], True)),
    Case("sum_keepdim_int", lambda lib, t: lib.ops.aten.sum(t.x, [0], 1)),
    Case("sum_dtype", lambda lib, t: lib.ops.aten.sum(t.x, dtype=lib.float64)),
    Case("sum_dim_dtype", lambda lib, t: lib.ops.aten.sum(t.x, 1, dtype=lib.float64)),
    Case("sum_dim_none", lambda lib, t: lib.ops.aten.sum(t.x, None)),
    Case("sum_list_ints", lambda lib, t: lib.ops.aten.sum([1, 2])),
    Case("sum_bad_dim", lambda lib, t: lib.ops.aten.sum(t.x, 1.5)),
    Case("mean", lambda lib, t: lib.ops.aten.mean(t.x)),
    Case("mean_dim", lambda lib, t: lib.ops.aten.mean(t.x, [1], keepdim=True)),
    Case("mean_dim_int", lambda lib, t: lib.ops.aten.mean(t.x, 1)),
    # max / min / argmax
    Case("max", lambda lib, t: lib.ops.aten.max(t.x)),
    Case("max_dim", lambda lib, t: lib.ops.aten.max(t.x, 1)),
    Case("max_dim_keepdim", lambda lib, t: lib.ops.aten.max(t.x, 1, True)),
    Case("max_other", lambda lib, t: lib.ops.aten.max(t.x, t.y)),
    Case("min_dim", lambda lib, t: lib.ops.aten.min(t.x, dim=0)),
    Case("min_other", lambda lib, t: lib.ops.aten.min(t.x, t.y)),
    Case("max_ints", lambda lib, t: lib.ops.aten.max(1, 2)),
    Case("max_list", lambda lib, t: lib.ops.aten.max([1, 2])),
    Case("argmax", lambda lib, t: lib.ops.aten.argmax(t.x)),
    Case("argmax_dim", lambda lib, t: lib.ops.aten.argmax(t.x, 1, keepdim=True)),
    # clamp
    Case("clamp_ss", lambda lib, t: lib.ops.aten.clamp(t.x, 0, 1)),
    Case("clamp_none_s", lambda lib, t: lib.ops.aten.clamp(t.x, None, 1)),
    Case("clamp_s_none", lambda lib, t: lib.ops.aten.clamp(t.x, 0.5)),
    Case("clamp_tt", lambda lib, t: lib.ops.aten.clamp(t.x, t.y, t.y)),
    Case("clamp_t_none", lambda lib, t: lib.ops.aten.clamp(t.x, t.y)),
    Case("clamp_none_t", lambda lib, t: lib.ops.aten.clamp(t.x, max=t.y)),
    Case("clamp_kw_min", lambda lib, t: lib.ops.aten.clamp(t.x, min=0)),
    Case("clamp_mixed", lambda lib, t: lib.ops.aten.clamp(t.x, 0, t.y)),
    Case("clamp_0dim", lambda lib, t: lib.ops.aten.clamp(t.x, t.s)),
    # where / index / masked_fill / fill
    Case("where_ttt", lambda lib, t: lib.ops.aten.where(t.m, t.x, t.y)),
    Case("where_tst", lambda lib, t: lib.ops.aten.where(t.m, 1.0, t.y)),
    Case("where_tts", lambda lib, t: lib.ops.aten.where(t.m, t.x, 0)),
    Case("where_tss", lambda lib, t: lib.ops.aten.where(t.m, 1, 0)),
    Case("where_cond", lambda lib, t: lib.ops.aten.where(t.m)),
    Case("index", lambda lib, t: lib.ops.aten.index(t.x, [t.idx])),
    Case("index_none", lambda lib, t: lib.ops.aten.index(t.x, [None, t.idx])),
    Case("index_mask", lambda lib, t: lib.ops.aten.index(t.x, [t.m])),
    Case("index_not_list", lambda lib, t: lib.ops.aten.index(t.x, t.idx)),
    Case("masked_fill_s", lambda lib, t: lib.ops.aten.masked_fill(t.x, t.m, 0.0)),
    Case("masked_fill_t", lambda lib, t: lib.ops.aten.masked_fill(t.x, t.m, t.s)),
    Case("fill_s", lambda lib, t: lib.ops.aten.fill(t.x, 1)),
    Case("fill_t", lambda lib, t: lib.ops.aten.fill(t.x, t.s)),
    Case("fill__s", lambda lib, t: lib.ops.aten.fill_(t.x, 1.5)),
    # factories
    Case("full", lambda lib, t: lib.ops.aten.full([2, 3], 1.5)),
    Case("full_tuple", lambda lib, t: lib.ops.aten.full((2,), 1, dtype=lib.int64)),
    Case("full_int_size", lambda lib, t: lib.ops.aten.full(2, 1)),
    Case("full_names", lambda lib, t: lib.ops.aten.full([2], 1, names=None)),
    Case("zeros", lambda lib, t: lib.ops.aten.zeros([2, 3])),
    Case("zeros_int", lambda lib, t: lib.ops.aten.zeros(2)),
    Case("zeros_dtype_int", lambda lib, t: lib.ops.aten.zeros([2], dtype=6)),
    Case("ones_device", lambda lib, t: lib.ops.aten.ones([2], device="meta")),
    Case("ones_device_obj", lambda lib, t: lib.ops.aten.ones([2], device=lib.device("cpu"))),
    Case("empty", lambda lib, t: lib.ops.aten.empty([2, 3])),
    Case("empty_memfmt", lambda lib, t: lib.ops.aten.empty([2], memory_format=None)),
    Case("empty_bad_dtype", lambda lib, t: lib.ops.aten.empty([2], dtype="float")),
    Case("arange_end", lambda lib, t: lib.ops.aten.arange(5)),
    Case("arange_start_end", lambda lib, t: lib.ops.aten.arange(1, 5)),
    Case("arange_step", lambda lib, t: lib.ops.aten.arange(1, 5, 2)),
    Case("arange_float", lambda lib, t: lib.ops.aten.arange(0.5)),
    Case("arange_float_step", lambda lib, t: lib.ops.aten.arange(0, 1, 0.25)),
    Case("arange_dtype", lambda lib, t: lib.ops.aten.arange(5, dtype=lib.float64)),
    Case("arange_se_dtype", lambda lib, t: lib.ops.aten.arange(1, 5, dtype=lib.int32)),
    Case("arange_tensor", lambda lib, t: lib.ops.aten.arange(t.si)),
    # to / views / shape ops
    Case("to_dtype", lambda lib, t: lib.ops.aten.to(t.x, lib.int64)),
    Case("to_dtype_kw", lambda lib, t: lib.ops.aten.to(t.x, dtype=lib.int64)),
    Case("to_device_str", lambda lib, t: lib.ops.aten.to(t.x, "meta")),
    Case("to_device", lambda lib, t: lib.ops.aten.to(t.x, lib.device("cpu"))),
    Case("to_device_dtype", lambda lib, t: lib.ops.aten.to(t.x, "cpu", lib.int64)),
    Case("to_other", lambda lib, t: lib.ops.aten.to(t.x, t.i)),
    Case("to_copy_kw", lambda lib, t: lib.ops.aten.to(t.x, copy=True)),
    Case("to_dtype_layout", lambda lib, t: lib.ops.aten.to(t.x, dtype=lib.int64, device="cpu")),
    Case("view", lambda lib, t: lib.ops.aten.view(t.x, [3, 2])),
    Case("view_int", lambda lib, t: lib.ops.aten.view(t.x, 6)),
    Case("view_dtype", lambda lib, t: lib.ops.aten.view(t.x, lib.int32)),
    Case("reshape", lambda lib, t: lib.ops.aten.reshape(t.x, (-1,))),
    Case("transpose", lambda lib, t: lib.ops.aten.transpose(t.x, 0, 1)),
    Case("transpose_str", lambda lib, t: lib.ops.aten.transpose(t.x, "a", "b")),
    Case("select", lambda lib, t: lib.ops.aten.select(t.x, 0, 1)),
    Case("select_0dim", lambda lib, t: lib.ops.aten.select(t.x, 0, t.si)),
    Case("slice", lambda lib, t: lib.ops.aten.slice(t.x, 1, 0, 2)),
    Case("slice_defaults", lambda lib, t: lib.ops.aten.slice(t.x)),
    Case("slice_none", lambda lib, t: lib.ops.aten.slice(t.x, 0, None, None, 1)),
    Case("expand", lambda lib, t: lib.ops.aten.expand(t.v, [2, 6])),
    Case("expand_implicit", lambda lib, t: lib.ops.aten.expand(t.v, [2, 6], implicit=True)),
    Case("cat", lambda lib, t: lib.ops.aten.cat([t.x, t.y])),
    Case("cat_dim", lambda lib, t: lib.ops.aten.cat((t.x, t.y), 1)),
    Case("cat_not_list", lambda lib, t: lib.ops.aten.cat(t.x)),
    Case("stack", lambda lib, t: lib.ops.aten.stack([t.x, t.y], dim=0)),
    Case("squeeze", lambda lib, t: lib.ops.aten.squeeze(t.x)),
    Case("squeeze_dim", lambda lib, t: lib.ops.aten.squeeze(t.x, 0)),
    Case("squeeze_dims", lambda lib, t: lib.ops.aten.squeeze(t.x, [0, 1])),
    Case("unsqueeze", lambda lib, t: lib.ops.aten.unsqueeze(t.x, -1)),
    Case("permute", lambda lib, t: lib.ops.aten.permute(t.x, [1, 0])),
    # comparisons and bitwise
    Case("eq_s", lambda lib, t: lib.ops.aten.eq(t.x, 1)),
    Case("eq_t", lambda lib, t: lib.ops.aten.eq(t.x, t.y)),
    Case("eq_ints", lambda lib, t: lib.ops.aten.eq(1, 1)),
    Case("eq_strs", lambda lib, t: lib.ops.aten.eq("a", "b")),
    Case("eq_lists", lambda lib, t: lib.ops.aten.eq([1], [1])),
    Case("lt_s", lambda lib, t: lib.ops.aten.lt(t.x, 0.5)),
    Case("lt_t", lambda lib, t: lib.ops.aten.lt(t.x, t.s)),
    Case("lt_ff", lambda lib, t: lib.ops.aten.lt(1.0, 2)),
    Case("ne_bool", lambda lib, t: lib.ops.aten.ne(t.m, True)),
    Case("bitwise_and_t", lambda lib, t: lib.ops.aten.bitwise_and(t.i, t.i)),
    Case("bitwise_and_s", lambda lib, t: lib.ops.aten.bitwise_and(t.i, 3)),
    Case("bitwise_and_st", lambda lib, t: lib.ops.aten.bitwise_and(3, t.i)),
    Case("bitwise_or_s", lambda lib, t: lib.ops.aten.bitwise_or(t.m, True)),
    Case("bitwise_not", lambda lib, t: lib.ops.aten.bitwise_not(t.i)),
    Case("remainder_t", lambda lib, t: lib.ops.aten.remainder(t.x, t.y)),
    Case("remainder_s", lambda lib, t: lib.ops.aten.remainder(t.x, 2)),
    Case("remainder_st", lambda lib, t: lib.ops.aten.remainder(2, t.x)),
    Case("remainder_ints", lambda lib, t: lib.ops.aten.remainder(5, 2)),
    # misc
    Case("neg", lambda lib, t: lib.ops.aten.neg(t.x)),
    Case("neg_int", lambda lib, t: lib.ops.aten.neg(3)),
    Case("abs", lambda lib, t: lib.ops.aten.abs(t.x)),
    Case("clone_memfmt", lambda lib, t: lib.ops.aten.clone(t.x, memory_format=None)),
    Case("size_int", lambda lib, t: lib.ops.aten.size(t.x, 0)),
    Case("floor_divide_s", lambda lib, t: lib.ops.aten.floor_divide(t.x, 2)),
    Case("floor_divide_st", lambda lib, t: lib.ops.aten.floor_divide(2, t.x)),
    Case("true_divide_st", lambda lib, t: lib.ops.aten.true_divide(2, t.x)),
    Case("mul_list_int", lambda lib, t: lib.ops.aten.mul([1, 2], 2)),
    Case("missing_arg", lambda lib, t: lib.ops.aten.transpose(t.x, 0)),
    Case("both_pos_kw", lambda lib, t: lib.ops.aten.transpose(t.x, 0, 1, dim0=0)),
    Case("softmax", lambda lib, t: lib.ops.aten.softmax(t.x, 1)),
    Case("softmax_dtype", lambda lib, t: lib.ops.aten.softmax(t.x, 1, lib.float64)),
    Case("topk", lambda lib, t: lib.ops.aten.topk(t.x, 2)),
    Case("flip_int", lambda lib, t: lib.ops.aten.flip(t.x, 0)),
    Case("roll_int", lambda lib, t: lib.ops.aten.roll(t.x, 1)),
    Case("repeat_int", lambda lib, t: lib.ops.aten.repeat(t.x, 2)),
    # value rules of torch's toIValue (pybind casters in convert mode)
    Case("keepdim_none", lambda lib, t: lib.ops.aten.sum(t.x, [0], None)),
    Case("keepdim_float", lambda lib, t: lib.ops.aten.sum(t.x, [0], 1.0)),
    Case("keepdim_str", lambda lib, t: lib.ops.aten.sum(t.x, [0], "a")),
    Case("dtype_bool", lambda lib, t: lib.ops.aten.sum(t.x, dtype=True)),
    Case("int_from_bool", lambda lib, t: lib.ops.aten.transpose(t.x, True, 0)),
    Case("int_from_float", lambda lib, t: lib.ops.aten.transpose(t.x, 1.0, 0)),
    Case("int_from_tensor", lambda lib, t: lib.ops.aten.transpose(t.x, t.si, 0)),
    Case("symint_list_bools", lambda lib, t: lib.ops.aten.view(t.x, [True, 6])),
    Case("device_int", lambda lib, t: lib.ops.aten.ones([2], device=0)),
    Case("device_bad_str", lambda lib, t: lib.ops.aten.ones([2], device="foo")),
    Case("scalar_from_tensor", lambda lib, t: lib.ops.aten.pow(2.0, t.s)),
    Case("str_from_int", lambda lib, t: lib.ops.aten.div(t.x, t.y, rounding_mode=1)),
    Case("generic_empty_lists", lambda lib, t: lib.ops.aten.add([], [])),
    Case("missing_before_dup", lambda lib, t: lib.ops.aten.transpose(t.x, 0, dim0=1)),
    Case("dup_kw", lambda lib, t: lib.ops.aten.transpose(t.x, 0, 1, dim0=1)),
    Case("unknown_kw_single", lambda lib, t: lib.ops.aten.rand([2], generator=None)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_overload_matches_torch(case: Case) -> None:
    assert refimpl_choice(case.call) == torch_choice(case.call)


def test_table_covers_enough_calls() -> None:
    assert len(CASES) >= 50
