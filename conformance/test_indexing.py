"""Advanced indexing, masks, `Tensor.__getitem__` and `__setitem__` against torch.

Table-driven. Each indexing case runs `x[index]` or `x[index] = value` in both libraries on
inputs made outside the op log, and compares the aten overloads logged (a logging
TorchDispatchMode in torch, the Python-key fallback in refimpl), the result's dtype, shape,
strides and values, `x` afterwards, or the exception's type and text (with `x` unchanged).
The op cases run index_put, masked_select, masked_scatter, nonzero, nonzero_static and
argwhere in their function, method, in-place and out= forms over the stored dtypes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES, outcome
from conformance.test_api_op_log import refimpl_op_log, torch_op_log

Lib = Any


def _tensor_summary(value: Any) -> Any:
    if isinstance(value, (torch.Tensor, refimpl.Tensor)):
        dtype = str(value.dtype).rpartition(".")[2]
        data = value.tolist() if value.device.type != "meta" else None
        return ("tensor", tuple(value.shape), tuple(value.stride()), dtype, data)
    if isinstance(value, tuple):
        return tuple(_tensor_summary(v) for v in value)
    return value


def _nan_safe(summary: Any) -> Any:
    # NaN != NaN: compare through repr.
    return repr(summary)


# --- t[index] and t[index] = value ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IndexCase:
    """`x[index]` (value None) or `x[index] = value`, with x, index and value made per library."""

    name: str
    index: Callable[[Lib], Any]
    value: Callable[[Lib], Any] | None = None
    x: Callable[[Lib], Any] = lambda lib: lib.arange(24.0).reshape(2, 3, 4)
    torch_writes_before_error: bool = False
    """torch's CPU kernel writes the elements before a bad index; refimpl checks first."""


def _i(*values: Any, dtype: str = "int64") -> Callable[[Lib], Any]:
    return lambda lib: lib.tensor(list(values), dtype=getattr(lib, dtype))


def _mask(*values: bool) -> Callable[[Lib], Any]:
    return lambda lib: lib.tensor(list(values))


def _m23(lib: Lib) -> Any:
    return lib.tensor([[True, False, True], [False, True, True]])


def _gt(threshold: float) -> Callable[[Lib], Any]:
    return lambda lib: lib.arange(24.0).reshape(2, 3, 4) > threshold


def _ii(lib: Lib) -> tuple[Any, ...]:
    return (lib.tensor([0, 1]), slice(None), lib.tensor([1, 3]))


def _permuted(lib: Lib) -> Any:
    return lib.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)


def _strided(lib: Lib) -> Any:
    return lib.arange(48.0).reshape(4, 3, 4)[::2, :, 1:]


GET_CASES: Final[list[IndexCase]] = [
    IndexCase("tensor", _i(0, 1)),
    IndexCase("tensor_negative", _i(-1, 0, -2)),
    IndexCase("tensor_2d", lambda lib: lib.tensor([[0, 1], [1, 0]])),
    IndexCase("tensor_int32", _i(1, 0, dtype="int32")),
    IndexCase("tensor_empty", _i()),
    IndexCase("tensor_0dim", lambda lib: lib.tensor(1)),
    IndexCase("tensor_0dim_and_tensor", lambda lib: (lib.tensor(1), lib.tensor([0, 2]))),
    IndexCase("slice_tensor", lambda lib: (slice(None), lib.tensor([0, 2]))),
    IndexCase("slice_tensor_2d", lambda lib: (slice(None), lib.tensor([[0, 1], [2, 0]]))),
    IndexCase("tensor_slice_tensor", _ii),
    IndexCase("tensors_broadcast", lambda lib: (lib.tensor([[0], [1]]), lib.tensor([0, 2]))),
    IndexCase("int_tensor", lambda lib: (0, lib.tensor([0, 1]))),
    IndexCase("tensor_int", lambda lib: (lib.tensor([0, 1]), 0)),
    IndexCase("tensor_int_tensor", lambda lib: (lib.tensor([0, 1]), 1, lib.tensor([2, 3]))),
    IndexCase("tensor_none", lambda lib: (lib.tensor([0, 1]), None)),
    IndexCase("none_tensor_slice_tensor", lambda lib: (None, lib.tensor([1]), slice(1, 3), lib.tensor([0]))),
    IndexCase("ellipsis_tensor", lambda lib: (Ellipsis, lib.tensor([0, 1]))),
    IndexCase("slice_step_tensor", lambda lib: (slice(None, None, 2), lib.tensor([2, 0]))),
    IndexCase("mask_full", _gt(5.0)),
    IndexCase("mask_none_true", _gt(100.0)),
    IndexCase("mask_dim0", _mask(True, False)),
    IndexCase("mask_dim1", lambda lib: (slice(None), lib.tensor([True, False, True]))),
    IndexCase("mask_2d", _m23),
    IndexCase("mask_2d_tensor", lambda lib: (_m23(lib), lib.tensor([0, 1, 2, 3]))),
    IndexCase("mask_2d_ellipsis", lambda lib: (_m23(lib), Ellipsis)),
    IndexCase("mask_0dim_true", lambda lib: lib.tensor(True)),
    IndexCase("mask_0dim_false", lambda lib: lib.tensor(False)),
    IndexCase("mask_uint8", _i(1, 0, dtype="uint8")),
    IndexCase("true", lambda lib: True),
    IndexCase("false", lambda lib: False),
    IndexCase("int_true", lambda lib: (0, True)),
    IndexCase("true_false_tuple", lambda lib: (True, False)),
    IndexCase("list", lambda lib: [0, 1]),
    IndexCase("list_negative", lambda lib: [-1, 0]),
    IndexCase("list_floats", lambda lib: [0.0, 1.0]),
    IndexCase("list_bools", lambda lib: [True, False]),
    IndexCase("list_empty", lambda lib: []),
    IndexCase("list_nested", lambda lib: [[0, 1]]),
    IndexCase("list_of_lists", lambda lib: [[0, 1], [1, 2]]),
    IndexCase("list_with_slice", lambda lib: [slice(None), 0]),
    IndexCase("list_with_none", lambda lib: [None, 0]),
    IndexCase("tuple_of_tuple", lambda lib: ((0, 1),)),
    IndexCase("tuple_list_slice_list", lambda lib: ([0, 1], slice(None), [1, 2])),
    IndexCase("numpy_array", lambda lib: np.array([1, 0])),
    IndexCase("numpy_bool_array", lambda lib: np.array([True, False])),
    IndexCase("numpy_int", lambda lib: np.int64(1)),
    IndexCase("numpy_int_in_tuple", lambda lib: (slice(None), np.int64(2))),
    IndexCase("permuted_slice_tensor", lambda lib: (slice(None), lib.tensor([0, 1])), x=_permuted),
    IndexCase("permuted_tensor", _i(0, 1), x=_permuted),
    IndexCase("permuted_tensor_slice_tensor", _ii, x=_permuted),
    IndexCase("strided_tensor", lambda lib: (slice(None), lib.tensor([2, 0])), x=_strided),
    IndexCase("strided_mask", _mask(True, False), x=_strided),
    # errors
    IndexCase("error_out_of_bounds", _i(0, 2)),
    IndexCase("error_out_of_bounds_dim1", lambda lib: (slice(None), lib.tensor([0, 3]))),
    IndexCase("error_negative_out_of_bounds", _i(-3)),
    IndexCase("error_float_index", lambda lib: lib.tensor([0.0, 1.0])),
    IndexCase("error_broadcast", lambda lib: (lib.tensor([0, 1]), lib.tensor([0, 1, 2]))),
    IndexCase("error_mask_shape", _mask(True, False, True)),
    IndexCase("error_too_many", lambda lib: (lib.tensor([0]),) * 4),
    IndexCase("error_empty_dim", _i(0), x=lambda lib: lib.ones(0, 3)),
    IndexCase("error_str", lambda lib: "a"),
    IndexCase("error_object", lambda lib: (0, object())),
]


def _set(value: Callable[[Lib], Any], name: str, index: Callable[[Lib], Any], **kw: Any) -> IndexCase:
    return IndexCase(name, index, value, **kw)


def _v(value: Any) -> Callable[[Lib], Any]:
    return lambda lib: value


SET_CASES: Final[list[IndexCase]] = [
    _set(_v(-1.0), "set_mask_scalar", _gt(5.0)),
    _set(lambda lib: lib.tensor(-1.0), "set_mask_0dim", _gt(5.0)),
    _set(lambda lib: lib.tensor(7), "set_mask_0dim_other_dtype", _gt(5.0)),
    _set(lambda lib: lib.tensor([-1.0]), "set_mask_one_element", _gt(5.0)),
    _set(lambda lib: -lib.arange(18.0), "set_mask_values", _gt(5.0)),
    _set(_v(-1.0), "set_mask_dim1", lambda lib: (slice(None), lib.tensor([True, False, True]))),
    _set(_v(-1.0), "set_mask_uint8", _i(1, 0, dtype="uint8")),
    _set(_v(-1.0), "set_tensor_scalar", _i(0, 1)),
    _set(lambda lib: lib.ones(4), "set_tensor_broadcast", _i(1)),
    _set(lambda lib: lib.ones(1, 1, 4), "set_tensor_leading_ones", _i(1, 0)),
    _set(lambda lib: -lib.arange(6.0).reshape(2, 3), "set_slice_tensor", lambda lib: (slice(None), slice(None), lib.tensor([0, 2])) ),
    _set(lambda lib: lib.tensor([5.0, 6.0]), "set_duplicates", lambda lib: (lib.tensor([0, 0]), lib.tensor([1, 1]), 2)),
    _set(_v(9.0), "set_int_tensor", lambda lib: (0, lib.tensor([0, 1]))),
    _set(_v(9.0), "set_true_in_tuple", lambda lib: (0, True)),
    _set(_v(9.0), "set_false_in_tuple", lambda lib: (0, False)),
    _set(_v(9.0), "set_list", lambda lib: [0, 1]),
    _set(_v(9.0), "set_list_of_lists", lambda lib: [[0, 1], [1, 2]]),
    _set(_v(9.0), "set_0dim_tensor_index", lambda lib: lib.tensor(1)),
    _set(_v(9.0), "set_ellipsis_tensor", lambda lib: (Ellipsis, lib.tensor([3, 0]))),
    _set(_v(9.0), "set_numpy_array", lambda lib: np.array([1])),
    _set(_v(9.0), "set_permuted", lambda lib: (slice(None), lib.tensor([1])), x=_permuted),
    _set(_v(9.0), "set_strided", lambda lib: (lib.tensor([1]), slice(None), lib.tensor([0, 2])), x=_strided),
    # errors
    _set(lambda lib: lib.ones(4, dtype=lib.int64), "set_error_dtype", _i(0, 1)),
    _set(lambda lib: lib.ones(5), "set_error_shape", _i(0, 1)),
    _set(_v(1.0), "set_error_out_of_bounds", _i(0, 5), torch_writes_before_error=True),
    _set(_v(1.0), "set_error_mask_shape", _mask(True, False, True)),
    _set(_v(1.0), "set_error_float_index", lambda lib: lib.tensor([0.5])),
]


def _run_index(lib: Lib, case: IndexCase) -> tuple[list[str], Any]:
    x = case.x(lib)
    index = case.index(lib)
    value = case.value(lib) if case.value is not None else None
    log = torch_op_log if lib is torch else refimpl_op_log
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with log() as ops:
            try:
                if case.value is None:
                    result: Any = _tensor_summary(x[index])
                else:
                    x[index] = value
                    result = None
            except Exception as exc:  # noqa: BLE001 - the exception is what is compared
                result = ("raised", type(exc), str(exc))
    return ops, (result, _tensor_summary(x))


@pytest.mark.parametrize("case", GET_CASES + SET_CASES, ids=lambda c: c.name)
def test_indexing_matches_torch(case: IndexCase) -> None:
    expected_ops, expected = _run_index(torch, case)
    actual_ops, actual = _run_index(refimpl, case)
    assert actual_ops == expected_ops
    if case.torch_writes_before_error:
        assert actual[0] == expected[0]
        assert _nan_safe(actual[1]) == _nan_safe(_run_index(refimpl, case)[1][1])
        return
    assert _nan_safe(actual) == _nan_safe(expected)


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("get_uint8_mask", lambda lib: lib.arange(4.0)[lib.tensor([1, 0, 1, 0], dtype=lib.uint8)]),
        ("list_of_slices", lambda lib: lib.arange(4.0).reshape(2, 2)[[slice(None), 0]]),
    ],
)
def test_indexing_warnings_match_torch(name: str, call: Callable[[Lib], Any]) -> None:
    caught = {}
    for lib in (torch, refimpl):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call(lib)
        # torch adds where its C++ code warned.
        caught[lib] = [(w.category, str(w.message).partition(" (Triggered")[0]) for w in record]
    assert caught[refimpl] == caught[torch]


# --- the ops -------------------------------------------------------------------------------

_VALUES: Final = [3, 0, -2, 5, 0, 7, 1, 0, 2, -4, 6, 0]


def _x(lib: Lib, dtype: str, shape: tuple[int, ...] = (3, 4)) -> Any:
    t = lib.tensor(_VALUES[: int(np.prod(shape))]).reshape(shape)
    if dtype == "bool":
        return t != 0
    return t.to(getattr(lib, dtype))


def _xt(lib: Lib, dtype: str) -> Any:
    """A transposed (non-contiguous) input."""
    return _x(lib, dtype, (4, 3)).t()


def _m(lib: Lib) -> Any:
    return lib.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


def _row_mask(lib: Lib) -> Any:
    return lib.tensor([True, False, True, True])


OpCall = Callable[[Lib, str], Any]

OP_CASES: Final[list[tuple[str, OpCall]]] = [
    ("index_put", lambda lib, d: lib.index_put(_x(lib, d), (lib.tensor([0, 2]),), _x(lib, d)[1])),
    ("index_put_method", lambda lib, d: _x(lib, d).index_put((lib.tensor([2, 0]), lib.tensor([1, 3])), _x(lib, d)[0, :2])),
    ("index_put_inplace", lambda lib, d: _x(lib, d).index_put_((lib.tensor([1]), lib.tensor([[0], [3]])), _x(lib, d)[:2, :1])),
    ("index_put_aten_none", lambda lib, d: lib.ops.aten.index_put_.default(_x(lib, d), [None, lib.tensor([1])], _x(lib, d)[:, :1])),
    ("index_put_accumulate", lambda lib, d: _x(lib, d).index_put_((lib.tensor([0, 0, 2, 0]),), _x(lib, d)[2], accumulate=True)),
    ("index_put_accumulate_mask", lambda lib, d: _x(lib, d).index_put_((_m(lib),), _x(lib, d)[0, 0], accumulate=True)),
    ("index_put_mask", lambda lib, d: _x(lib, d).index_put_((_m(lib),), _x(lib, d)[0, 0])),
    ("index_put_transposed", lambda lib, d: _xt(lib, d).index_put_((lib.tensor([1, 1]), lib.tensor([0, 2])), _x(lib, d)[0, 1:3])),
    ("index_put_impl", lambda lib, d: lib._index_put_impl_(_x(lib, d), (lib.tensor([1]),), _x(lib, d)[2])),
    ("index_aten", lambda lib, d: lib.ops.aten.index.Tensor(_xt(lib, d), [None, lib.tensor([[0, 1], [2, 2]])])),
    ("index_aten_out", lambda lib, d: lib.ops.aten.index.Tensor_out(_x(lib, d), [lib.tensor([1])], out=_x(lib, d)[:1])),
    ("masked_select", lambda lib, d: lib.masked_select(_x(lib, d), _m(lib))),
    ("masked_select_method_transposed", lambda lib, d: _xt(lib, d).masked_select(_m(lib)[:, :3])),
    ("masked_select_broadcast", lambda lib, d: lib.masked_select(_x(lib, d), _row_mask(lib))),
    ("masked_select_broadcast_self", lambda lib, d: lib.masked_select(_x(lib, d)[0], _m(lib))),
    ("masked_select_out", lambda lib, d: lib.masked_select(_x(lib, d), _m(lib), out=_x(lib, d)[0])),
    ("masked_scatter", lambda lib, d: lib.masked_scatter(_x(lib, d), _m(lib), _x(lib, d).flip(0))),
    ("masked_scatter_method_broadcast", lambda lib, d: _x(lib, d)[0].masked_scatter(_m(lib), _x(lib, d))),
    ("masked_scatter_inplace", lambda lib, d: _xt(lib, d).masked_scatter_(_m(lib)[:, :3].t(), _x(lib, d))),
    ("masked_scatter_inplace_row_mask", lambda lib, d: _x(lib, d).masked_scatter_(_row_mask(lib), _x(lib, d).t())),
    ("nonzero", lambda lib, d: lib.nonzero(_x(lib, d))),
    ("nonzero_method_transposed", lambda lib, d: _xt(lib, d).nonzero()),
    ("nonzero_0dim", lambda lib, d: _x(lib, d)[0, 0].nonzero()),
    ("nonzero_0dim_zero", lambda lib, d: _x(lib, d)[0, 1].nonzero()),
    ("nonzero_as_tuple", lambda lib, d: lib.nonzero(_x(lib, d), as_tuple=True)),
    ("nonzero_as_tuple_0dim", lambda lib, d: _x(lib, d)[0, 0].nonzero(as_tuple=True)),
    ("nonzero_out_empty", lambda lib, d: lib.nonzero(_x(lib, d), out=lib.empty(0, dtype=lib.int64))),
    ("nonzero_out_resized", lambda lib, d: lib.nonzero(_x(lib, d), out=lib.zeros(3, dtype=lib.int64))),
    ("nonzero_static_pad", lambda lib, d: lib.nonzero_static(_x(lib, d), size=11)),
    ("nonzero_static_cut", lambda lib, d: _x(lib, d).nonzero_static(size=2, fill_value=9)),
    ("nonzero_static_out", lambda lib, d: lib.nonzero_static(_x(lib, d), size=3, out=lib.zeros(0, dtype=lib.int64))),
    ("argwhere", lambda lib, d: lib.argwhere(_xt(lib, d))),
    ("argwhere_method", lambda lib, d: _x(lib, d).argwhere()),
]

ERROR_CASES: Final[list[tuple[str, Callable[[Lib], Any]]]] = [
    ("index_put_none_in_indices", lambda lib: lib.zeros(3, 4).index_put_((None, lib.tensor([1])), lib.tensor(1.0))),
    ("index_put_int_in_indices", lambda lib: lib.index_put(lib.zeros(3, 4), (lib.tensor([1]), 2), lib.tensor(1.0))),
    ("index_put_dtype", lambda lib: lib.zeros(3).index_put_((lib.tensor([0]),), lib.tensor([1]))),
    ("index_put_shape", lambda lib: lib.zeros(3, 2).index_put_((lib.tensor([0, 1]),), lib.ones(3))),
    ("index_put_out_of_bounds", lambda lib: lib.zeros(3).index_put_((lib.tensor([0, 3]),), lib.tensor(1.0), accumulate=True)),
    ("index_put_too_many", lambda lib: lib.zeros(3).index_put_((lib.tensor([0]),) * 2, lib.tensor(1.0))),
    ("index_put_uint8_mask_fill", lambda lib: lib.zeros(2).index_put_((lib.tensor([1, 0], dtype=lib.uint8),), lib.tensor(1.0))),
    ("index_put_float_index", lambda lib: lib.zeros(2).index_put_((lib.tensor([1.0]),), lib.tensor([1.0]))),
    ("index_no_indices", lambda lib: lib.ops.aten.index.Tensor(lib.zeros(2), [])),
    ("index_too_many", lambda lib: lib.ops.aten.index.Tensor(lib.zeros(2), [lib.tensor([0])] * 2)),
    ("index_out_dtype", lambda lib: lib.ops.aten.index.Tensor_out(lib.zeros(2), [lib.tensor([0])], out=lib.zeros(1, dtype=lib.float64))),
    ("index_mask_past_dims", lambda lib: lib.ops.aten.index.Tensor(lib.zeros(3, 4), [None, lib.ones(3, 4, dtype=lib.bool)])),
    ("masked_select_int_mask", lambda lib: lib.zeros(2).masked_select(lib.tensor([1, 0]))),
    ("masked_select_uint8_mask", lambda lib: lib.zeros(2).masked_select(lib.tensor([1, 0], dtype=lib.uint8))),
    ("masked_select_shape", lambda lib: lib.zeros(3).masked_select(lib.tensor([True, False]))),
    ("masked_select_out_dtype", lambda lib: lib.masked_select(lib.zeros(2), lib.tensor([True, False]), out=lib.zeros(1, dtype=lib.int64))),
    ("masked_scatter_dtype", lambda lib: lib.zeros(2).masked_scatter(lib.tensor([True, False]), lib.ones(2, dtype=lib.int64))),
    ("masked_scatter_uint8", lambda lib: lib.zeros(2).masked_scatter(lib.tensor([1, 0], dtype=lib.uint8), lib.ones(2))),
    ("masked_scatter_long_mask", lambda lib: lib.zeros(2).masked_scatter(lib.tensor([1, 0]), lib.ones(2))),
    ("masked_scatter_small_source", lambda lib: lib.zeros(3).masked_scatter_(lib.tensor([True, True, True]), lib.ones(2))),
    ("masked_scatter_inplace_broadcast_self", lambda lib: lib.zeros(4).masked_scatter_(lib.ones(3, 4, dtype=lib.bool), lib.ones(12))),
    ("nonzero_out_dtype", lambda lib: lib.nonzero(lib.ones(2), out=lib.zeros(0))),
    ("nonzero_as_tuple_out", lambda lib: lib.nonzero(lib.ones(2), as_tuple=True, out=lib.zeros(0, dtype=lib.int64))),
    ("nonzero_static_negative", lambda lib: lib.nonzero_static(lib.ones(2), size=-1)),
    ("nonzero_static_out_dtype", lambda lib: lib.nonzero_static(lib.ones(2), size=1, out=lib.zeros(1, 1))),
    ("nonzero_meta", lambda lib: lib.ones(2, device="meta").nonzero()),
]


def _compare(fn: Callable[[Lib], Any]) -> None:
    expected, expected_error = outcome(fn, torch)
    actual, actual_error = outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert type(actual_error) is type(expected_error)
        assert str(actual_error) == str(expected_error)
        return
    assert actual_error is None, f"refimpl raised {actual_error!r}"
    assert _nan_safe(_tensor_summary(actual)) == _nan_safe(_tensor_summary(expected))


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize(("name", "call"), OP_CASES, ids=[n for n, _ in OP_CASES])
def test_op_matches_torch(name: str, call: OpCall, dtype: str) -> None:
    _compare(lambda lib: call(lib, dtype))


@pytest.mark.parametrize(("name", "call"), ERROR_CASES, ids=[n for n, _ in ERROR_CASES])
def test_error_matches_torch(name: str, call: Callable[[Lib], Any]) -> None:
    _compare(call)


def test_failed_index_put_leaves_input_unchanged() -> None:
    # Differs: torch's CPU kernel writes 7 and 8 before it meets index 9; refimpl checks every
    # index before writing (the same error).
    x = refimpl.arange(6.0)
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 0 with size 6"):
        x[refimpl.tensor([0, 1, 9])] = refimpl.tensor([7.0, 8.0, 9.0])
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_return_of_nonzero_as_tuple_is_a_tuple() -> None:
    result = refimpl.arange(3).nonzero(as_tuple=True)
    assert type(result) is tuple
    assert type(torch.arange(3).nonzero(as_tuple=True)) is tuple
