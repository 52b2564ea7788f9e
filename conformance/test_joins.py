"""Shapes and joins against torch: cat, stack and its forms, the splits, flip, roll, rot90,
repeat, tile, repeat_interleave, atleast_*, broadcast_*, ravel, unflatten and the module-level
view functions.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message), or each result's dtype, shape, strides, storage offset, whether
it is a view, and values. Inputs include transposed, sliced, expanded and channels-last
tensors; function, method and out= forms.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import HealthCheck, given, settings

import refimpl
from conformance._oracle import STORED_DTYPES, outcome
from conformance.test_api_op_log import refimpl_op_log, torch_op_log


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, bool | int | float) or expected is None:
        assert actual == expected
        return
    if isinstance(expected, torch.Size):
        assert type(actual) is refimpl.Size and tuple(actual) == tuple(expected)
        return
    if isinstance(expected, tuple | list):
        assert type(actual) is type(expected), (type(actual), type(expected))
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.storage_offset() == expected.storage_offset()
    assert actual._is_view() == expected._is_view()
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)


def _check(fn: Callable[[Any], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    _same(expected, actual)


def _a(lib: Any, *shape: int, dtype: str = "float32") -> Any:
    """arange over `shape` (values that show every reordering)."""
    n = 1
    for s in shape:
        n *= s
    x = lib.arange(n).reshape(shape)
    return x.to(getattr(lib, dtype)) if dtype != "int64" else x


def _cl(lib: Any) -> Any:
    """A channels-last (2, 3, 2, 2) tensor."""
    return _a(lib, 2, 3, 2, 2).contiguous(memory_format=lib.channels_last)


def _cat_into_input(lib: Any) -> Any:
    x = _a(lib, 2, 3)
    return lib.cat([x, x], out=x)


# --- every dtype ---------------------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    "cat": lambda lib, d: lib.cat([_a(lib, 2, 3, dtype=d), _a(lib, 1, 3, dtype=d)]),
    "cat dim 1 transposed": lambda lib, d: lib.cat([_a(lib, 3, 2, dtype=d).t()] * 2, 1),
    "stack": lambda lib, d: lib.stack([_a(lib, 2, 3, dtype=d)] * 3, 1),
    "stack last": lambda lib, d: lib.stack([_a(lib, 2, 3, dtype=d)] * 2, -1),
    "flip": lambda lib, d: lib.flip(_a(lib, 2, 3, 2, dtype=d), (0, 2)),
    "roll": lambda lib, d: lib.roll(_a(lib, 3, 4, dtype=d), (1, -2), (0, 1)),
    "rot90": lambda lib, d: lib.rot90(_a(lib, 2, 3, dtype=d)),
    "repeat": lambda lib, d: _a(lib, 2, 3, dtype=d).repeat(2, 1, 2),
    "repeat_interleave": lambda lib, d: lib.repeat_interleave(_a(lib, 2, 3, dtype=d), 2, 0),
    "tensor_split": lambda lib, d: lib.tensor_split(_a(lib, 7, 2, dtype=d), 3),
}


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_per_dtype(name: str, dtype: str) -> None:
    _check(lambda lib: PER_DTYPE[name](lib, dtype))


# --- forms, layouts, errors ----------------------------------------------------------------

CASES: dict[str, Callable[[Any], Any]] = {
    # cat: promotion, the legacy skip of 1-d empty tensors, layouts, out=, errors.
    "cat promotes int+float": lambda lib: lib.cat([_a(lib, 2, dtype="int64"), _a(lib, 2, dtype="float32")]),
    "cat promotes bool+uint8": lambda lib: lib.cat([_a(lib, 2, dtype="bool"), _a(lib, 2, dtype="uint8")]),
    "cat promotes u8+i8": lambda lib: lib.cat([_a(lib, 2, dtype="uint8"), _a(lib, 2, dtype="int8")]),
    "cat skips [0]": lambda lib: lib.cat([lib.ones(0), _a(lib, 2, 3)], 1),
    "cat skips [0] dtype counts": lambda lib: lib.cat([lib.ones(0, dtype=lib.float64), _a(lib, 2, 3)]),
    "cat only skipped": lambda lib: lib.cat([lib.ones(0), lib.ones(0, dtype=lib.int32)], 5),
    "cat empty 2-d not skipped": lambda lib: lib.cat([lib.ones(0, 2), _a(lib, 2, 3)], 1),
    "cat single input copies": lambda lib: lib.cat([_a(lib, 2, 3)]),
    "cat strided input": lambda lib: lib.cat([_a(lib, 4, 6)[::2, 1::2], _a(lib, 2, 3)]),
    "cat expanded input": lambda lib: lib.cat([lib.ones(1, 3).expand(2, 3), _a(lib, 2, 3)]),
    "cat channels-last": lambda lib: lib.cat([_cl(lib), _cl(lib)], 1),
    "cat channels-last and contiguous": lambda lib: lib.cat([_cl(lib), _a(lib, 2, 3, 2, 2)], 1),
    "cat channels-last 3d": lambda lib: lib.cat(
        [_a(lib, 1, 2, 2, 1, 3).contiguous(memory_format=lib.channels_last_3d)] * 2, 4),
    "cat channels-last size-1 channel": lambda lib: lib.cat(
        [_a(lib, 2, 1, 2, 2).contiguous(memory_format=lib.channels_last)] * 2, 0),
    "cat negative dim": lambda lib: lib.cat([_a(lib, 2, 3), _a(lib, 2, 1)], -1),
    "cat tuple": lambda lib: lib.cat((_a(lib, 2), _a(lib, 3))),
    "concat": lambda lib: lib.concat([_a(lib, 2, 3), _a(lib, 2, 3)], 1),
    "concatenate": lambda lib: lib.concatenate([_a(lib, 2, 3), _a(lib, 2, 3)]),
    "cat out": lambda lib: lib.cat([_a(lib, 2, 3), _a(lib, 2, 3)], out=lib.empty(4, 3)),
    "cat out resized": lambda lib: lib.cat([_a(lib, 2, 3)] * 2, out=lib.empty(0)),
    "cat out resized channels-last": lambda lib: lib.cat([_cl(lib)] * 2, out=lib.empty(0)),
    "cat out downcast": lambda lib: lib.cat([_a(lib, 2, dtype="float64")], out=lib.empty(2)),
    "cat out transposed": lambda lib: lib.cat([_a(lib, 2, 3)] * 2, 1, out=lib.empty(6, 2).t()),
    "cat out cannot cast": lambda lib: lib.cat([_a(lib, 2)], out=lib.empty(2, dtype=lib.int64)),
    "cat out overlaps input": lambda lib: _cat_into_input(lib),
    "cat out overlaps itself": lambda lib: lib.cat(
        [_a(lib, 2, 3)] * 2, out=lib.ones(1, 3).expand(4, 3)),
    "cat empty list": lambda lib: lib.cat([]),
    "cat devices differ": lambda lib: lib.cat([lib.ones(2), lib.ones(2, device="meta")]),
    "cat devices differ meta first": lambda lib: lib.cat([lib.ones(2, device="meta"), lib.ones(2)]),
    "cat out on another device": lambda lib: lib.cat(
        [lib.ones(2), lib.ones(2)], out=lib.empty(4, device="meta")),
    "stack devices differ": lambda lib: lib.stack([lib.ones(2), lib.ones(2, device="meta")]),
    "cat 0-dim": lambda lib: lib.cat([_a(lib, 2), lib.tensor(1.0)]),
    "cat sizes differ": lambda lib: lib.cat([_a(lib, 2, 3), _a(lib, 3, 2)], 1),
    "cat ranks differ": lambda lib: lib.cat([_a(lib, 2, 3), _a(lib, 3)]),
    "cat dim out of range": lambda lib: lib.cat([_a(lib, 2, 3)], 2),
    "cat method-less aten": lambda lib: lib.ops.aten.cat.default([_a(lib, 2), _a(lib, 1)]),
    # _chunk_cat.
    "_chunk_cat": lambda lib: lib._chunk_cat([_a(lib, 2, 3), _a(lib, 2, 5).t().t()], -1, 2),
    "_chunk_cat ranks differ": lambda lib: lib._chunk_cat(
        [_a(lib, 3, 3, 2), _a(lib, 1, 4), _a(lib, 2, 3).t()], 0, 2),
    "_chunk_cat transposed": lambda lib: lib._chunk_cat([_a(lib, 2, 3).t()], 0, 2),
    "_chunk_cat out": lambda lib: lib.ops.aten._chunk_cat.out(
        [_a(lib, 2)], 0, 2, out=lib.empty(0)),
    "_chunk_cat out cannot cast": lambda lib: lib.ops.aten._chunk_cat.out(
        [_a(lib, 2)], 0, 2, out=lib.empty(0, dtype=lib.int64)),
    "_chunk_cat empty list": lambda lib: lib._chunk_cat([], 0, 1),
    "_chunk_cat chunks": lambda lib: lib._chunk_cat([_a(lib, 2), _a(lib, 0)], 0, 0),
    "_chunk_cat empty input": lambda lib: lib._chunk_cat([_a(lib, 2), lib.ones(0)], 0, 1),
    "_chunk_cat dtypes": lambda lib: lib._chunk_cat([_a(lib, 2), _a(lib, 2, dtype="int64")], 0, 1),
    "_chunk_cat negative dim ranks differ": lambda lib: lib._chunk_cat(
        [_a(lib, 2, 3), _a(lib, 2)], -1, 2),
    "_chunk_cat dim past a rank": lambda lib: lib._chunk_cat([_a(lib, 2, 3), _a(lib, 4)], 1, 3),
    "_chunk_cat leading sizes": lambda lib: lib._chunk_cat(
        [_a(lib, 2, 3, 4), _a(lib, 4, 3)], 1, 3),
    "_chunk_cat dim out of range": lambda lib: lib._chunk_cat([_a(lib, 2, 3)] * 2, 2, 2),
    # stack and the h/v/d/column/row forms.
    "stack transposed": lambda lib: lib.stack([_a(lib, 3, 2).t()] * 2, 1),
    "stack promotes": lambda lib: lib.stack([_a(lib, 2, dtype="uint8"), _a(lib, 2, dtype="int8")]),
    "stack 0-dim": lambda lib: lib.stack([lib.tensor(1.0), lib.tensor(2.0)]),
    "stack out": lambda lib: lib.stack([_a(lib, 2, 3)] * 2, 1, out=lib.empty(0)),
    "stack out last": lambda lib: lib.stack([_a(lib, 2, 3)] * 2, 2, out=lib.empty(2, 3, 2)),
    "stack out transposed": lambda lib: lib.stack(
        [_a(lib, 2, 3)] * 2, 0, out=lib.empty(3, 2, 2).permute(2, 1, 0)),
    "stack channels-last dim 0": lambda lib: lib.stack([_cl(lib), _cl(lib)]),
    "stack channels-last dim 2": lambda lib: lib.stack([_cl(lib), _cl(lib)], 2),
    "stack channels-last last": lambda lib: lib.stack([_cl(lib), _cl(lib)], 4),
    "stack 3-d to channels-last rank": lambda lib: lib.stack([_a(lib, 3, 1, 2).permute(2, 0, 1)] * 2, 3),
    "stack empty": lambda lib: lib.stack([]),
    "stack sizes differ": lambda lib: lib.stack([_a(lib, 2, 3), _a(lib, 3, 3)]),
    "stack dim out of range": lambda lib: lib.stack([_a(lib, 2, 3)], 3),
    "_stack": lambda lib: lib.ops.aten._stack.default([_a(lib, 2, 3)] * 2, 1),
    "hstack 1-d": lambda lib: lib.hstack([_a(lib, 2), _a(lib, 3)]),
    "hstack 2-d": lambda lib: lib.hstack([_a(lib, 2, 3), _a(lib, 2, 1)]),
    "hstack out": lambda lib: lib.hstack([_a(lib, 2), _a(lib, 3)], out=lib.empty(5)),
    "vstack": lambda lib: lib.vstack([_a(lib, 3), _a(lib, 2, 3)]),
    "row_stack": lambda lib: lib.row_stack([_a(lib, 3), _a(lib, 3)]),
    "dstack": lambda lib: lib.dstack([_a(lib, 3), _a(lib, 1, 3)]),
    "dstack out": lambda lib: lib.dstack([_a(lib, 3), _a(lib, 1, 3)], out=lib.empty(1, 3, 2)),
    "column_stack": lambda lib: lib.column_stack([_a(lib, 2), _a(lib, 2, 3), lib.ones(2)]),
    "column_stack 0-dim": lambda lib: lib.column_stack([lib.tensor(1.0), lib.tensor(2.0)]),
    "hstack empty": lambda lib: lib.hstack([]),
    "vstack empty": lambda lib: lib.vstack([]),
    "dstack empty": lambda lib: lib.dstack([]),
    "column_stack empty": lambda lib: lib.column_stack([]),
    "row_stack empty": lambda lib: lib.row_stack([]),
    # splits.
    "split int": lambda lib: lib.split(_a(lib, 5, 2), 2),
    "split list": lambda lib: lib.split(_a(lib, 5, 2), [1, 4]),
    "split dim": lambda lib: lib.split(_a(lib, 2, 5).t(), 3, 1),
    "split_with_sizes": lambda lib: lib.split_with_sizes(_a(lib, 5), [2, 3]),
    "tensor_split sections": lambda lib: lib.tensor_split(_a(lib, 2, 7), 3, 1),
    "tensor_split indices": lambda lib: lib.tensor_split(_a(lib, 2, 3), [2, 1, 5], 1),
    "tensor_split tensor 0-d": lambda lib: lib.tensor_split(_a(lib, 5), lib.tensor(2)),
    "tensor_split tensor 1-d": lambda lib: lib.tensor_split(_a(lib, 5), lib.tensor([1, 3])),
    "tensor_split method": lambda lib: _a(lib, 6).tensor_split(4),
    "tensor_split 0-dim": lambda lib: lib.tensor_split(lib.tensor(1.0), 2),
    "tensor_split 0 sections": lambda lib: lib.tensor_split(_a(lib, 3), 0),
    "tensor_split float tensor": lambda lib: lib.tensor_split(_a(lib, 3), lib.tensor([1.0])),
    "tensor_split 2-d tensor": lambda lib: lib.tensor_split(_a(lib, 3), lib.tensor([[1]])),
    "hsplit": lambda lib: lib.hsplit(_a(lib, 2, 4), 2),
    "hsplit 1-d": lambda lib: lib.hsplit(_a(lib, 4), [1, 3]),
    "vsplit": lambda lib: _a(lib, 4, 2).vsplit([3]),
    "dsplit": lambda lib: lib.dsplit(_a(lib, 1, 2, 4), 2),
    "hsplit 0-dim": lambda lib: lib.hsplit(lib.tensor(1.0), 2),
    "hsplit indivisible": lambda lib: lib.hsplit(_a(lib, 2, 3), 2),
    "hsplit zero": lambda lib: lib.hsplit(_a(lib, 2, 3), 0),
    "vsplit 1-d": lambda lib: lib.vsplit(_a(lib, 3), 3),
    "dsplit 2-d": lambda lib: lib.dsplit(_a(lib, 2, 2), 2),
    "chunk": lambda lib: lib.chunk(_a(lib, 5, 2), 3),
    "unbind": lambda lib: lib.unbind(_a(lib, 2, 3), 1),
    "unsafe_split": lambda lib: lib.unsafe_split(_a(lib, 2, 5), 2, 1),
    "unsafe_split_with_sizes": lambda lib: lib.unsafe_split_with_sizes(_a(lib, 5), [1, 4]),
    "unsafe_chunk": lambda lib: _a(lib, 2, 5).unsafe_chunk(2, 1),
    "unsafe_split out": lambda lib: lib.ops.aten.unsafe_split.Tensor_out(
        _a(lib, 4), 2, out=[lib.empty(2), lib.empty(0)]),
    # flip, roll, rot90.
    "flip transposed keeps layout": lambda lib: lib.flip(_a(lib, 3, 4).t(), (0,)),
    "flip expanded": lambda lib: lib.flip(_a(lib, 3, 1).expand(3, 4), (0,)),
    "flip size-1 dims": lambda lib: lib.flip(_a(lib, 1, 3, 1).permute(2, 1, 0), (0, 1, 2)),
    "flip no dims": lambda lib: lib.flip(_a(lib, 2, 3), ()),
    "flip channels-last": lambda lib: lib.flip(_cl(lib), (1, 3)),
    "flip method varargs": lambda lib: _a(lib, 2, 3).flip(0, 1),
    "flip method keyword": lambda lib: _a(lib, 2, 3).flip(dims=[1]),
    "flip out": lambda lib: lib.ops.aten.flip.out(_a(lib, 2, 3), [0], out=lib.empty(5)),
    "flip out dtype": lambda lib: lib.ops.aten.flip.out(
        _a(lib, 2, 3), [0], out=lib.empty(0, dtype=lib.int64)),
    "flip repeated dim": lambda lib: lib.flip(_a(lib, 2, 3), (0, -2)),
    "flip dim out of range": lambda lib: lib.flip(_a(lib, 2, 3), (2,)),
    "fliplr": lambda lib: lib.fliplr(_a(lib, 2, 3).t()),
    "flipud": lambda lib: _a(lib, 3, 2).flipud(),
    "fliplr 1-d": lambda lib: lib.fliplr(_a(lib, 3)),
    "flipud 0-d": lambda lib: lib.flipud(lib.tensor(1.0)),
    "roll flattened": lambda lib: lib.roll(_a(lib, 2, 3).t(), 2),
    "roll one dim": lambda lib: lib.roll(_a(lib, 3, 4).t(), -1, 0),
    "roll channels-last": lambda lib: lib.roll(_cl(lib), 1, 2),
    "roll channels-last flattened": lambda lib: lib.roll(_cl(lib), 3),
    "roll channels-last two dims": lambda lib: lib.roll(_cl(lib), (1, 1), (1, 3)),
    "roll empty": lambda lib: lib.roll(lib.ones(0, 3).t(), 1, 1),
    "roll method": lambda lib: _a(lib, 3, 4).roll((1, 1), (1, 0)),
    "roll out": lambda lib: lib.ops.aten.roll.out(_a(lib, 4), [1], [0], out=lib.empty(4)),
    "roll misaligned": lambda lib: lib.roll(_a(lib, 2, 3), (1, 2), (0,)),
    "roll no dims two shifts": lambda lib: lib.roll(_a(lib, 2, 3), (1, 2)),
    "roll no shifts": lambda lib: lib.roll(_a(lib, 2, 3), (), ()),
    "roll dim out of range": lambda lib: lib.roll(_a(lib, 2, 3), 1, 2),
    "roll 0-dim": lambda lib: lib.roll(lib.tensor(1.0), 1, 0),
    "rot90 k=2": lambda lib: lib.rot90(_a(lib, 2, 3), 2),
    "rot90 k=3": lambda lib: lib.rot90(_a(lib, 2, 3, 2), 3, (2, 0)),
    "rot90 k=-1 transposed": lambda lib: lib.rot90(_a(lib, 3, 2).t(), -1),
    "rot90 k=4": lambda lib: lib.rot90(_a(lib, 3, 2).t(), 4),
    "rot90 channels-last": lambda lib: lib.rot90(_cl(lib), 1, (1, 2)),
    "rot90 method": lambda lib: _a(lib, 2, 3).rot90(1, [1, 0]),
    "rot90 one dim": lambda lib: lib.rot90(_a(lib, 2, 3), 1, (0,)),
    "rot90 same dims": lambda lib: lib.rot90(_a(lib, 2, 3), 1, (0, -2)),
    "rot90 dims wrap equal": lambda lib: lib.rot90(_a(lib, 2, 3, 4), 1, (0, -3)),
    "rot90 1-d": lambda lib: lib.rot90(_a(lib, 3), 1, (0, 1)),
    "rot90 dim out of range": lambda lib: lib.rot90(_a(lib, 2, 3), 1, (0, 2)),
    # repeat, tile, repeat_interleave.
    "repeat tuple": lambda lib: _a(lib, 2, 3).t().repeat((2, 1, 1)),
    "repeat keyword": lambda lib: _a(lib, 3).repeat(repeats=[2]),
    "repeat zero": lambda lib: _a(lib, 2, 3).repeat(0, 1),
    "repeat 0-dim": lambda lib: lib.tensor(5).repeat(3),
    "repeat too few": lambda lib: _a(lib, 2, 3).repeat(2),
    "repeat negative": lambda lib: _a(lib, 2, 3).repeat(2, -1),
    "repeat out": lambda lib: lib.ops.aten.repeat.out(_a(lib, 2), [2, 2], out=lib.empty(0)),
    "tile pads": lambda lib: lib.tile(_a(lib, 2, 3), (2,)),
    "tile more dims": lambda lib: _a(lib, 2, 3).tile(2, 1, 2),
    "tile negative": lambda lib: lib.tile(_a(lib, 2, 3), (-2,)),
    "repeat_interleave int": lambda lib: lib.repeat_interleave(_a(lib, 2, 3), 2),
    "repeat_interleave int dim": lambda lib: _a(lib, 3, 2).t().repeat_interleave(3, -1),
    "repeat_interleave tensor": lambda lib: lib.repeat_interleave(
        _a(lib, 2, 3), lib.tensor([1, 0, 2]), 1),
    "repeat_interleave tensor one": lambda lib: lib.repeat_interleave(
        _a(lib, 2, 3), lib.tensor([2]), 0),
    "repeat_interleave 0-d tensor no dim": lambda lib: lib.repeat_interleave(
        _a(lib, 2, 2), lib.tensor(2)),
    "repeat_interleave repeats only": lambda lib: lib.repeat_interleave(lib.tensor([1, 0, 3])),
    "repeat_interleave int32 repeats": lambda lib: lib.repeat_interleave(
        lib.tensor([2, 1], dtype=lib.int32)),
    "repeat_interleave empty repeats": lambda lib: lib.repeat_interleave(
        lib.tensor([], dtype=lib.int64)),
    "repeat_interleave output_size": lambda lib: lib.repeat_interleave(
        lib.tensor([1, 2]), output_size=3),
    "repeat_interleave output_size wrong": lambda lib: lib.repeat_interleave(
        lib.tensor([1, 2]), output_size=5),
    "repeat_interleave float repeats": lambda lib: lib.repeat_interleave(lib.tensor([1.0])),
    "repeat_interleave 2-d repeats": lambda lib: lib.repeat_interleave(lib.tensor([[1, 2]])),
    "repeat_interleave negative": lambda lib: lib.repeat_interleave(lib.tensor([1, -2])),
    "repeat_interleave size mismatch": lambda lib: lib.repeat_interleave(
        _a(lib, 2, 3), lib.tensor([1, 2]), 1),
    "repeat_interleave negative int": lambda lib: lib.repeat_interleave(_a(lib, 2), -1),
    "repeat_interleave 2-d tensor": lambda lib: lib.repeat_interleave(
        _a(lib, 2, 3), lib.tensor([[1]])),
    "repeat_interleave out": lambda lib: lib.ops.aten.repeat_interleave.Tensor_out(
        lib.tensor([1, 2]), out=lib.empty(0, dtype=lib.int64)),
    # atleast_*, broadcast_*, ravel, unflatten, the dim aliases.
    "atleast_1d 0-dim": lambda lib: lib.atleast_1d(lib.tensor(1.0)),
    "atleast_1d several": lambda lib: lib.atleast_1d(lib.tensor(1.0), _a(lib, 2)),
    "atleast_1d list": lambda lib: lib.atleast_1d([lib.tensor(1.0), _a(lib, 2)]),
    "atleast_2d": lambda lib: lib.atleast_2d(_a(lib, 3)),
    "atleast_2d 0-dim": lambda lib: lib.atleast_2d(lib.tensor(1.0)),
    "atleast_3d 0-dim": lambda lib: lib.atleast_3d(lib.tensor(1.0)),
    "atleast_3d 1-d": lambda lib: lib.atleast_3d(_a(lib, 3)),
    "atleast_3d 2-d": lambda lib: lib.atleast_3d((_a(lib, 2, 3).t(),)),
    "atleast_3d 3-d": lambda lib: lib.atleast_3d(_a(lib, 1, 2, 3)),
    "ravel contiguous": lambda lib: lib.ravel(_a(lib, 2, 3)),
    "ravel transposed": lambda lib: _a(lib, 2, 3).t().ravel(),
    "broadcast_to": lambda lib: lib.broadcast_to(_a(lib, 3), (2, 3)),
    "broadcast_to method": lambda lib: _a(lib, 3, 1).broadcast_to(2, 3, 4),
    "broadcast_to too few": lambda lib: lib.broadcast_to(_a(lib, 2, 3), (3,)),
    "broadcast_tensors": lambda lib: lib.broadcast_tensors(_a(lib, 2, 1), _a(lib, 3), _a(lib, 2, 3)),
    "broadcast_tensors mismatch": lambda lib: lib.broadcast_tensors(_a(lib, 2, 3), _a(lib, 3, 1)),
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((2, 1), (3,), 1, None, [4, 1, 1]),
    "broadcast_shapes none": lambda lib: lib.broadcast_shapes(),
    "broadcast_shapes mismatch": lambda lib: lib.broadcast_shapes((2, 3), (3, 1), (4,)),
    "broadcast_shapes negative": lambda lib: lib.broadcast_shapes((2, -1)),
    "functional.broadcast_shapes": lambda lib: lib.functional.broadcast_shapes((2, 1), (1, 5)),
    "unflatten": lambda lib: lib.unflatten(_a(lib, 2, 6), 1, (2, -1)),
    "unflatten method transposed": lambda lib: _a(lib, 2, 3).t().unflatten(0, (3, 1)),
    "unflatten wrong product": lambda lib: lib.unflatten(_a(lib, 2, 3), 1, (2, 2)),
    "unflatten empty sizes": lambda lib: lib.unflatten(_a(lib, 2, 3), 1, ()),
    "moveaxis": lambda lib: lib.moveaxis(_a(lib, 2, 3, 4), 0, -1),
    "moveaxis lists": lambda lib: _a(lib, 2, 3, 4).moveaxis((0, 1), (2, 0)),
    "swapaxes": lambda lib: lib.swapaxes(_a(lib, 2, 3, 4), 0, 2),
    "swapdims": lambda lib: _a(lib, 2, 3).swapdims(0, 1),
    "swapaxes out of range": lambda lib: lib.swapaxes(_a(lib, 2, 3), 0, 2),
    "narrow tensor start": lambda lib: lib.narrow(_a(lib, 2, 5), 1, lib.tensor(1), 3),
    "narrow float start": lambda lib: lib.narrow(_a(lib, 2, 5), 1, lib.tensor(1.0), 3),
    "narrow bool start": lambda lib: lib.narrow(_a(lib, 2, 5), 1, lib.tensor(True), 3),
    "reshape_as": lambda lib: _a(lib, 2, 3).t().reshape_as(_a(lib, 6)),
    # module-level forms of the view ops.
    "reshape": lambda lib: lib.reshape(_a(lib, 2, 3), (3, -1)),
    "reshape copies": lambda lib: lib.reshape(_a(lib, 2, 3).t(), (6,)),
    "transpose": lambda lib: lib.transpose(_a(lib, 2, 3, 4), 0, 2),
    "permute": lambda lib: lib.permute(_a(lib, 2, 3, 4), (2, 0, 1)),
    "squeeze": lambda lib: lib.squeeze(_a(lib, 1, 3, 1)),
    "squeeze dim": lambda lib: lib.squeeze(_a(lib, 1, 3, 1), -1),
    "squeeze dims": lambda lib: lib.squeeze(_a(lib, 1, 3, 1), (0, 2)),
    "unsqueeze": lambda lib: lib.unsqueeze(_a(lib, 2, 3).t(), 1),
    "t": lambda lib: lib.t(_a(lib, 2, 3)),
    "select": lambda lib: lib.select(_a(lib, 2, 3), 1, -1),
    "diagonal": lambda lib: lib.diagonal(_a(lib, 3, 4), 1),
    "flatten": lambda lib: lib.flatten(_a(lib, 2, 3, 4), 1),
    "as_strided": lambda lib: lib.as_strided(_a(lib, 6), (2, 2), (1, 2), 1),
    "movedim": lambda lib: lib.movedim(_a(lib, 2, 3, 4), 1, 0),
    "narrow": lambda lib: lib.narrow(_a(lib, 4, 2), 0, -3, 2),
    "chunk function": lambda lib: lib.chunk(_a(lib, 6), 4),
    "detach": lambda lib: lib.detach(_a(lib, 2, 3).t()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str) -> None:
    _check(CASES[name])


def _resize_warnings(lib: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.cat([lib.ones(2, 3)] * 2, out=lib.ones(2, 3))
        lib.stack([lib.ones(2)] * 2, out=lib.ones(3))
        lib.cat([lib.ones(2)] * 2, out=lib.ones(0))  # an empty out resizes silently
    # torch appends where in its C++ sources the warning was raised.
    return [str(w.message).partition(" (Triggered internally")[0] for w in caught]


def test_out_resize_warns_as_torch() -> None:
    assert _resize_warnings(refimpl) == _resize_warnings(torch)


def _results_alias_input(lib: Any) -> list[bool]:
    """Which results share memory with their input, beyond what `_is_view` says."""
    x = _a(lib, 2, 3)
    pointer = x.data_ptr()
    return [
        lib.cat([x]).data_ptr() == pointer,
        lib.flip(x, ()).data_ptr() == pointer,
        lib.rot90(x, 0).data_ptr() == pointer,
        lib.unsafe_split(x, 1)[0].data_ptr() == pointer,
        lib.broadcast_tensors(x)[0] is x,
        lib.atleast_2d(x) is x,
    ]


def test_memory_sharing_as_torch() -> None:
    assert _results_alias_input(refimpl) == _results_alias_input(torch)


def test_unflatten_unexpected_error_as_torch() -> None:
    # torch appends a C++ stack trace to this message; its first two lines are compared.
    def run(lib: Any) -> tuple[type, list[str]]:
        with pytest.raises(RuntimeError) as caught:
            lib.unflatten(_a(lib, 2, 6), 1, (-1, -1))
        return caught.type, str(caught.value).splitlines()[:2]

    assert run(refimpl) == run(torch)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("case", ["same", "empty out"])
def test_failed_cat_leaves_out_as_it_was(case: str) -> None:
    # torch resizes `out` (warning) before its overlap check, so its failing cat.out has
    # resized `out`; refimpl judges the overlap on the resized geometry and raises the same
    # error with `out` as it was (an op that fails changes nothing). The empty `out` is
    # PyTorch's error_inputs_cat sample 6: refused by identity, though it has no elements.
    def run(lib: Any) -> tuple[tuple[int, ...], str, int]:
        x = lib.ones(2, 3) if case == "same" else lib.zeros(0)
        inputs = [x, x] if case == "same" else [x, lib.ones(4, 6)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lib.cat(inputs, out=x)
            except RuntimeError as error:
                return tuple(x.shape), str(error), len(caught)
        return tuple(x.shape), "", len(caught)

    before = (2, 3) if case == "same" else (0,)
    shape, error, warned = run(refimpl)
    assert (error, warned) == run(torch)[1:]
    assert error and shape == before


def test_meta_tensors() -> None:
    def run(lib: Any) -> list[tuple[tuple[int, ...], tuple[int, ...], str]]:
        x = lib.empty(2, 3, device="meta")
        results = [
            lib.cat([x, x], 1),
            lib.stack([x, x]),
            lib.flip(x, (0,)),
            lib.roll(x, 1, 0),
            lib.rot90(x),
            x.repeat(2, 1),
            lib.repeat_interleave(lib.empty(2, dtype=lib.int64, device="meta"), output_size=4),
        ]
        return [(tuple(r.shape), tuple(r.stride()), str(r.device)) for r in results]

    assert run(refimpl) == run(torch)


# --- which aten ops run ----------------------------------------------------------------------

# Each case: the inputs (made outside the log) and the call. The op logs must be torch's:
# CompositeImplicitAutograd ops appear decomposed, kernels' inner calls do not appear.
OP_LOG_CASES: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]] = {
    "concat": (lambda lib: [_a(lib, 2), _a(lib, 3)], lambda lib, xs: lib.concat(xs)),
    "hstack 1-d": (lambda lib: [_a(lib, 2), _a(lib, 3)], lambda lib, xs: lib.hstack(xs)),
    "vstack": (lambda lib: [_a(lib, 3), _a(lib, 2, 3)], lambda lib, xs: lib.vstack(xs)),
    "dstack": (lambda lib: [_a(lib, 3), _a(lib, 1, 3)], lambda lib, xs: lib.dstack(xs)),
    "column_stack": (lambda lib: [_a(lib, 2), _a(lib, 2, 3)], lambda lib, xs: lib.column_stack(xs)),
    "stack": (lambda lib: [_a(lib, 2, 3)] * 2, lambda lib, xs: lib.stack(xs, 1)),
    "stack out": (
        lambda lib: ([_a(lib, 2, 3)] * 2, lib.empty(0)),
        lambda lib, a: lib.stack(a[0], 1, out=a[1]),
    ),
    "tile": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.tile(x, (2,))),
    "atleast_3d": (lambda lib: _a(lib, 3), lambda lib, x: lib.atleast_3d(x)),
    "ravel": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.ravel(x)),
    "broadcast_tensors": (
        lambda lib: (_a(lib, 2, 3), _a(lib, 3)),
        lambda lib, xs: lib.broadcast_tensors(*xs),
    ),
    "unflatten": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.unflatten(x, 1, (3, 1))),
    "swapaxes": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.swapaxes(x, 0, 1)),
    "moveaxis": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.moveaxis(x, 0, 1)),
    "tensor_split": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.tensor_split(x, 2, 1)),
    "hsplit": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.hsplit(x, [1])),
    "unsafe_chunk": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.unsafe_chunk(x, 2, 1)),
    "split sizes": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.split(x, [1, 2], 1)),
    "fliplr": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.fliplr(x)),
    "rot90": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.rot90(x, 3)),
    "roll": (lambda lib: _a(lib, 2, 3), lambda lib, x: lib.roll(x, 1)),
    "repeat_interleave int": (
        lambda lib: _a(lib, 2, 3),
        lambda lib, x: lib.repeat_interleave(x, 2),
    ),
    "repeat_interleave tensor": (
        lambda lib: (_a(lib, 2, 3), lib.tensor([1, 2])),
        lambda lib, a: lib.repeat_interleave(a[0], a[1], 0),
    ),
    "narrow tensor start": (
        lambda lib: (_a(lib, 2, 3), lib.tensor(1)),
        lambda lib, a: lib.narrow(a[0], 1, a[1], 2),
    ),
}


@pytest.mark.parametrize("name", sorted(OP_LOG_CASES))
def test_op_log(name: str) -> None:
    make, call = OP_LOG_CASES[name]
    torch_inputs, refimpl_inputs = make(torch), make(refimpl)
    with torch_op_log() as expected:
        call(torch, torch_inputs)
    with refimpl_op_log() as actual:
        call(refimpl, refimpl_inputs)
    assert actual == expected


# --- random strided inputs (hypothesis) ------------------------------------------------------

_RANDOM: Final = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# An input: its shape, the order its dims are stored in, the step of its last stored dim
# (2: every other element of a wider tensor) and its dtype.
Layout = tuple[tuple[int, ...], tuple[int, ...], int, str]


def _strided(lib: Any, layout: Layout) -> Any:
    shape, order, step, dtype = layout
    stored = [shape[d] for d in order]
    stored[-1] *= step
    n = 1
    for s in stored:
        n *= s
    x = lib.arange(n).reshape(stored).to(getattr(lib, dtype))[..., ::step]
    inverse = sorted(range(len(order)), key=lambda i: order[i])
    return x.permute(inverse)


@st.composite
def layouts(draw: st.DrawFn, shape: tuple[int, ...]) -> Layout:
    order = tuple(draw(st.permutations(list(range(len(shape))))))
    step = draw(st.sampled_from([1, 2]))
    dtype = draw(st.sampled_from(["float32", "int32", "float64"]))
    return shape, order, step, dtype


@st.composite
def cat_inputs(draw: st.DrawFn) -> tuple[list[Layout], int]:
    shape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    inputs = []
    for _ in range(draw(st.integers(1, 3))):
        sized = list(shape)
        sized[dim] = draw(st.integers(0, 3))
        inputs.append(draw(layouts(tuple(sized))))
    return inputs, dim


@_RANDOM
@given(case=cat_inputs())
def test_cat_random_layouts(case: tuple[list[Layout], int]) -> None:
    inputs, dim = case
    _check(lambda lib: lib.cat([_strided(lib, layout) for layout in inputs], dim))


@st.composite
def one_input(draw: st.DrawFn) -> Layout:
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=2, max_size=4)))
    return draw(layouts(shape))


_ONE_INPUT_OPS: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "stack": lambda lib, x: lib.stack([x, x], 1),
    "flip": lambda lib, x: lib.flip(x, (0, -1)),
    "roll": lambda lib, x: lib.roll(x, (1, -2), (0, -1)),
    "roll flattened": lambda lib, x: lib.roll(x, 3),
    "rot90": lambda lib, x: lib.rot90(x, 1, (0, -1)),
    "rot90 twice": lambda lib, x: lib.rot90(x, 2, (-1, 0)),
    "repeat": lambda lib, x: x.repeat(*([2] + [1] * x.dim())),
    "repeat_interleave": lambda lib, x: lib.repeat_interleave(x, 2, -1),
    "tensor_split": lambda lib, x: lib.tensor_split(x, 2, -1),
    "ravel": lambda lib, x: lib.ravel(x),
    "hstack": lambda lib, x: lib.hstack([x, x]),
}


@pytest.mark.parametrize("name", sorted(_ONE_INPUT_OPS))
@_RANDOM
@given(layout=one_input())
def test_one_input_random_layouts(name: str, layout: Layout) -> None:
    _check(lambda lib: _ONE_INPUT_OPS[name](lib, _strided(lib, layout)))


@pytest.mark.parametrize(
    "fn",
    ["cat", "stack", "hstack", "vstack", "dstack", "column_stack", "block_diag",
     "broadcast_tensors", "cartesian_prod", "meshgrid", "atleast_1d", "atleast_3d"],
)
@pytest.mark.parametrize(
    "case", ["None element", "number element", "first None", "a tensor", "None", "spread"]
)
def test_tensor_list_argument_errors(fn: str, case: str) -> None:
    # torch's parser checks a TensorList's elements: "expected Tensor as element 1 in
    # argument 0, but got NoneType" (PyTorch's error_inputs_cat sample 11); a value that is
    # no sequence "must be tuple of Tensors, not Tensor". torch/functional.py's varargs
    # functions (block_diag, meshgrid, atleast_1d, ...) hand their arguments to the same
    # parser as one list.
    def run(lib: Any) -> Any:
        x = lib.ones(2)
        if case == "spread":
            return getattr(lib, fn)(x, None)
        arg = {"None element": (x, None), "number element": [x, 3], "first None": (None, x),
               "a tensor": x, "None": None}[case]
        return getattr(lib, fn)(arg)

    (_, expected), (result, actual) = outcome(run, torch), outcome(run, refimpl)
    if expected is None:  # a tensor alone: atleast_1d and the varargs ones take it
        assert actual is None and result is not None
        return
    assert type(actual) is type(expected)
    assert str(actual) == str(expected)
