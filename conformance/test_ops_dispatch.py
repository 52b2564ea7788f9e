"""aten ops called through `refimpl.ops.aten` against `torch.ops.aten` on the same inputs.

Each case builds its inputs in both libraries and calls the same overload (or packet); the
results must agree in values, dtype, shape, strides and aliasing, and errors in type and text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl

Call = Callable[[Any], Any]


def _x(lib: Any) -> Any:
    return lib.arange(24.0).reshape(2, 3, 4).clone()


def _ints(lib: Any, dtype: str = "int64") -> Any:
    return lib.arange(6).reshape(2, 3).to(getattr(lib, dtype))


def _bools(lib: Any) -> Any:
    return lib.tensor([True, False, True])


def _complex(lib: Any) -> Any:
    return lib.tensor([1 + 2j, 3 - 1j])


CASES: Final[list[tuple[str, Call]]] = [
    # add: dtypes, Python scalars (wrapped numbers), alpha, 0-dim operands, broadcasting
    ("add_float", lambda lib: lib.ops.aten.add.Tensor(_x(lib), _x(lib))),
    ("add_int", lambda lib: lib.ops.aten.add.Tensor(_ints(lib), _ints(lib))),
    ("add_int_alpha", lambda lib: lib.ops.aten.add.Tensor(_ints(lib), _ints(lib), alpha=3)),
    ("add_float_alpha", lambda lib: lib.ops.aten.add.Tensor(_x(lib), _x(lib), alpha=0.5)),
    ("add_bool", lambda lib: lib.ops.aten.add.Tensor(_bools(lib), lib.tensor([False, False, True]))),
    ("add_bool_alpha", lambda lib: lib.ops.aten.add.Tensor(_bools(lib), lib.tensor([True, True, False]), alpha=True)),
    ("add_bool_alpha_false", lambda lib: lib.ops.aten.add.Tensor(_bools(lib), lib.tensor([True, True, False]), alpha=False)),
    ("add_complex", lambda lib: lib.ops.aten.add.Tensor(_complex(lib), _complex(lib), alpha=2j)),
    ("add_int_float_scalar", lambda lib: lib.ops.aten.add.Tensor(_ints(lib, "int32"), 2.5)),
    ("add_int8_wraps", lambda lib: lib.ops.aten.add.Tensor(_ints(lib, "int8"), 200)),
    ("add_uint8_neg", lambda lib: lib.ops.aten.add.Tensor(_ints(lib, "uint8"), -1)),
    ("add_scalar_first", lambda lib: lib.ops.aten.add.Tensor(2, _ints(lib, "int16"))),
    ("add_scalars", lambda lib: lib.ops.aten.add.Tensor(2, 3)),
    ("add_float_complex_scalar", lambda lib: lib.ops.aten.add.Tensor(_x(lib), 1j)),
    ("add_bool_int_scalar", lambda lib: lib.ops.aten.add.Tensor(_bools(lib), 1)),
    ("add_zero_dim_int64", lambda lib: lib.ops.aten.add.Tensor(_ints(lib, "int32"), lib.tensor(5))),
    ("add_zero_dim_float", lambda lib: lib.ops.aten.add.Tensor(_ints(lib, "int32"), lib.tensor(5.0, dtype=lib.float64))),
    ("add_two_zero_dim", lambda lib: lib.ops.aten.add.Tensor(lib.tensor(1, dtype=lib.int8), lib.tensor(2.0))),
    ("add_broadcast", lambda lib: lib.ops.aten.add.Tensor(lib.ones(3, 1), lib.arange(4.0))),
    ("add_strided", lambda lib: lib.ops.aten.add.Tensor(_x(lib)[:, ::2], 1)),
    ("add_sliced_rows", lambda lib: lib.ops.aten.add.Tensor(_x(lib)[:, 1:], _x(lib)[:1, :2])),
    ("add_packet", lambda lib: lib.ops.aten.add(_x(lib), 1.5)),
    ("add_method", lambda lib: _x(lib).add(_x(lib), alpha=2)),
    ("add_operator", lambda lib: 1 + _ints(lib) + _ints(lib)),
    # views
    ("view", lambda lib: lib.ops.aten.view.default(_x(lib), [6, 4])),
    ("reshape_view", lambda lib: lib.ops.aten.reshape.default(_x(lib), [4, -1])),
    ("reshape_copy", lambda lib: lib.ops.aten.reshape.default(_x(lib).transpose(0, 2), [-1])),
    ("unsafe_view", lambda lib: lib.ops.aten._unsafe_view.default(_x(lib), [6, 4])),
    ("transpose", lambda lib: lib.ops.aten.transpose.int(_x(lib), 0, -1)),
    ("t", lambda lib: lib.ops.aten.t.default(_x(lib)[0])),
    ("permute", lambda lib: lib.ops.aten.permute.default(_x(lib), [2, 0, 1])),
    ("expand", lambda lib: lib.ops.aten.expand.default(_x(lib)[:, :1], [2, 5, 4])),
    ("unsqueeze", lambda lib: lib.ops.aten.unsqueeze.default(_x(lib), 1)),
    ("squeeze", lambda lib: lib.ops.aten.squeeze.default(_x(lib)[:, :1])),
    ("squeeze_dim", lambda lib: lib.ops.aten.squeeze.dim(_x(lib)[:, :1], 1)),
    ("squeeze_dims", lambda lib: lib.ops.aten.squeeze.dims(_x(lib)[:1, :1], [0, 1, 2])),
    ("select", lambda lib: lib.ops.aten.select.int(_x(lib), 1, -1)),
    ("slice", lambda lib: lib.ops.aten.slice.Tensor(_x(lib), 2, 1, None, 2)),
    ("slice_default", lambda lib: lib.ops.aten.slice.Tensor(_x(lib))),
    ("narrow", lambda lib: lib.ops.aten.narrow.default(_x(lib), 2, -3, 2)),
    ("diagonal", lambda lib: lib.ops.aten.diagonal.default(_x(lib), 1, 1, 2)),
    ("as_strided", lambda lib: lib.ops.aten.as_strided.default(_x(lib), [2, 2], [1, 2], 3)),
    ("unfold", lambda lib: lib.ops.aten.unfold.default(_x(lib), 2, 2, 1)),
    ("alias", lambda lib: lib.ops.aten.alias.default(_x(lib))),
    ("detach", lambda lib: lib.ops.aten.detach.default(_x(lib))),
    ("split", lambda lib: lib.ops.aten.split.Tensor(_x(lib), 3, 2)),
    ("split_big", lambda lib: lib.ops.aten.split.Tensor(_x(lib), 5, 1)),
    ("split_with_sizes", lambda lib: lib.ops.aten.split_with_sizes.default(_x(lib), [1, 0, 2], 1)),
    ("unbind", lambda lib: lib.ops.aten.unbind.int(_x(lib), 1)),
    ("chunk", lambda lib: lib.ops.aten.chunk.default(_x(lib), 3, 2)),
    ("chunk_empty", lambda lib: lib.ops.aten.chunk.default(lib.ones(0, 2), 3)),
    ("movedim_int", lambda lib: lib.ops.aten.movedim.int(_x(lib), 0, -1)),
    ("movedim_list", lambda lib: lib.ops.aten.movedim.intlist(_x(lib), [0, 1], [2, 0])),
    ("flatten", lambda lib: lib.ops.aten.flatten.using_ints(_x(lib), 1)),
    ("flatten_0dim", lambda lib: lib.ops.aten.flatten.using_ints(lib.tensor(3.0))),
    ("contiguous_copy", lambda lib: lib.ops.aten.contiguous.default(_x(lib).transpose(0, 1))),
    ("clone", lambda lib: lib.ops.aten.clone.default(_x(lib))),
    # data ops and factories
    ("copy_", lambda lib: lib.ops.aten.copy_.default(lib.zeros(2, 3), lib.arange(3))),
    ("fill_scalar", lambda lib: lib.ops.aten.fill_.Scalar(lib.zeros(2, 3), 2.5)),
    ("fill_tensor", lambda lib: lib.ops.aten.fill_.Tensor(lib.zeros(2, 3, dtype=lib.int32), lib.tensor(7))),
    ("to_copy", lambda lib: lib.ops.aten._to_copy.default(_x(lib), dtype=lib.int16)),
    ("local_scalar_dense", lambda lib: lib.ops.aten._local_scalar_dense.default(lib.tensor([4.5, 1.0]))),
    ("item", lambda lib: lib.ops.aten.item.default(lib.tensor([4]))),
    ("zeros", lambda lib: lib.ops.aten.zeros.default([2, 3], dtype=lib.int8)),
    ("ones", lambda lib: lib.ops.aten.ones.default([2])),
    ("full_bool", lambda lib: lib.ops.aten.full.default([2], True)),
    ("full_int", lambda lib: lib.ops.aten.full.default([2], 3)),
    ("empty_shape", lambda lib: lib.ops.aten.empty.memory_format([2, 0, 3]).shape),
]

ERROR_CASES: Final[list[tuple[str, Call]]] = [
    ("add_int_float_alpha", lambda lib: lib.ops.aten.add.Tensor(_ints(lib), 2, alpha=0.5)),
    ("add_float_bool_alpha", lambda lib: lib.ops.aten.add.Tensor(_x(lib), 2, alpha=True)),
    ("add_int_bool_alpha", lambda lib: lib.ops.aten.add.Tensor(_ints(lib), _bools(lib)[:1], alpha=True)),
    ("add_float_complex_alpha", lambda lib: lib.ops.aten.add.Tensor(_x(lib), 2, alpha=1j)),
    ("add_broadcast_mismatch", lambda lib: lib.ops.aten.add.Tensor(lib.ones(3), lib.ones(4))),
    ("add_cpu_meta", lambda lib: lib.ops.aten.add.Tensor(lib.ones(2), lib.ones(2, device="meta"))),
    ("add_meta_cpu", lambda lib: lib.ops.aten.add.Tensor(lib.ones(2, device="meta"), lib.ones(2))),
    ("view_incompatible", lambda lib: lib.ops.aten.view.default(_x(lib).transpose(0, 1), [-1])),
    ("view_bad_shape", lambda lib: lib.ops.aten.view.default(_x(lib), [5, 5])),
    ("transpose_range", lambda lib: lib.ops.aten.transpose.int(_x(lib), 0, 3)),
    ("t_3d", lambda lib: lib.ops.aten.t.default(_x(lib))),
    ("permute_dup", lambda lib: lib.ops.aten.permute.default(_x(lib), [0, 0, 1])),
    ("expand_mismatch", lambda lib: lib.ops.aten.expand.default(_x(lib), [3, 3, 4])),
    ("select_range", lambda lib: lib.ops.aten.select.int(_x(lib), 0, 2)),
    ("narrow_overflow", lambda lib: lib.ops.aten.narrow.default(_x(lib), 2, 3, 2)),
    ("narrow_0dim", lambda lib: lib.ops.aten.narrow.default(lib.tensor(1.0), 0, 0, 1)),
    ("split_0dim", lambda lib: lib.ops.aten.split.Tensor(lib.tensor(1.0), 1)),
    ("split_negative", lambda lib: lib.ops.aten.split.Tensor(_x(lib), -1)),
    ("split_zero", lambda lib: lib.ops.aten.split.Tensor(_x(lib), 0, 1)),
    ("split_sizes_negative", lambda lib: lib.ops.aten.split_with_sizes.default(_x(lib), [1, -1, 3], 1)),
    ("split_sizes_sum", lambda lib: lib.ops.aten.split_with_sizes.default(_x(lib), [1, 1], 1)),
    ("unbind_0dim", lambda lib: lib.ops.aten.unbind.int(lib.tensor(1.0))),
    ("chunk_0dim", lambda lib: lib.ops.aten.chunk.default(lib.tensor(1.0), 2)),
    ("chunk_zero", lambda lib: lib.ops.aten.chunk.default(_x(lib), 0)),
    ("movedim_repeat", lambda lib: lib.ops.aten.movedim.intlist(_x(lib), [0, 0], [1, 2])),
    ("flatten_order", lambda lib: lib.ops.aten.flatten.using_ints(_x(lib), 2, 1)),
    ("fill_tensor_dim", lambda lib: lib.ops.aten.fill_.Tensor(lib.zeros(2), lib.ones(2))),
    ("item_many", lambda lib: lib.ops.aten.item.default(lib.ones(2))),
    ("item_meta", lambda lib: lib.ops.aten._local_scalar_dense.default(lib.ones(1, device="meta"))),
]


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _assert_same(actual: Any, expected: Any) -> None:
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, refimpl.Tensor)
        assert actual.dtype.name == str(expected.dtype).removeprefix("torch.")
        assert tuple(actual.shape) == tuple(expected.shape)
        assert actual.device.type == expected.device.type
        if expected.device.type == "meta":
            return
        assert actual.stride() == expected.stride()
        assert actual.storage_offset() == expected.storage_offset()
        assert actual._is_view() == expected._is_view()
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())
        return
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_same(a, e)
        return
    assert type(actual) is type(expected) and actual == expected


# TensorIterator keeps a permuted input's layout (pytorch-semantics.md §9.4).
LAYOUT_CASES: Final[list[tuple[str, Call]]] = [
    ("add_permuted", lambda lib: lib.ops.aten.add.Tensor(_x(lib).transpose(0, 1), 1)),
]


@pytest.mark.parametrize(("name", "call"), CASES, ids=[n for n, _ in CASES])
def test_matches_torch(name: str, call: Call) -> None:
    _assert_same(call(refimpl), call(torch))


@pytest.mark.parametrize(("name", "call"), LAYOUT_CASES, ids=[n for n, _ in LAYOUT_CASES])
def test_layout_matches_torch(name: str, call: Call) -> None:
    _assert_same(call(refimpl), call(torch))


def _raised_by(call: Call, lib: Any) -> BaseException:
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 - the error is the result under test
        return error
    raise AssertionError(f"{lib.__name__} raised nothing")


@pytest.mark.parametrize(("name", "call"), ERROR_CASES, ids=[n for n, _ in ERROR_CASES])
def test_error_matches_torch(name: str, call: Call) -> None:
    expected, actual = _raised_by(call, torch), _raised_by(call, refimpl)
    assert (type(actual), str(actual)) == (type(expected), str(expected))


def test_writes_through_views_reach_the_base() -> None:
    results = []
    for lib in (torch, refimpl):
        base = _x(lib)
        lib.ops.aten.fill_.Scalar(lib.ops.aten.select.int(base, 2, 1), -1.0)
        lib.ops.aten.copy_.default(lib.ops.aten.diagonal.default(base, 0, 1, 2), lib.ones(3))
        results.append((base.numpy().tolist(), base._version))
    assert results[0] == results[1]


def test_meta_add_gives_metadata() -> None:
    for lib in (torch, refimpl):
        out = lib.ops.aten.add.Tensor(lib.ones(2, 3, device="meta"), lib.tensor(2, dtype=lib.int64))
        assert (tuple(out.shape), out.device.type, str(out.dtype).rsplit(".", 1)[-1]) == ((2, 3), "meta", "float32")
