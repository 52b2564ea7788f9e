"""Structured constructions, the *_copy forms of views, the scatter-backs of views and narrow_copy against torch.

Table-driven: each case runs the same call in both libraries; the outcome must match: the
exception (type and message) and the warnings, or the result's dtype, shape, strides,
storage offset and values (NaNs equal), and whether an out= call returned `out` itself.
tril/triu (function, method, in-place, out=), tril_indices/triu_indices, diag, diag_embed,
diagflat, block_diag, meshgrid, cartesian_prod, combinations, every `*_copy` view copy
(and out=), select/slice/diagonal/as_strided_scatter (function, method, out=), narrow_copy,
on contiguous, transposed, sliced and expanded inputs, and on meta tensors.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl
from conformance._oracle import STORED_DTYPES
from conformance.test_api_op_log import refimpl_op_log, torch_op_log
from refimpl._base.keys import DispatchKey

_NAN = math.nan
_VALUES: dict[str, list[Any]] = {
    "bool": [True, False, True, True, False, True, False, False, True, True, False, True],
    "uint": [0, 1, 2, 3, 5, 7, 12, 255, 9, 4, 6, 8],
    "int": [-3, -1, 0, 1, 2, 5, 12, -8, 7, -6, 4, 9],
    "float": [-1.5, -0.0, 0.0, 1.0, 2.5, math.inf, _NAN, -math.inf, 3.25, -2.0, 0.5, 7.0],
    "complex": [1 + 2j, complex(_NAN, 1), 0j, 2.5j, 0.5 + 0.5j, 3j, -2 + 0j, 1 + 0j,
                4 - 1j, -1j, 2 + 2j, 0.25 + 0j],
}


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype == "uint8":
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "complex" if dtype.startswith("complex") else "float"


def _t(lib: Any, dtype: str, shape: tuple[int, ...] = (3, 4)) -> Any:
    """A tensor of `shape` (at most 12 elements) with the dtype's sample values."""
    data = _VALUES[_kind(dtype)][: math.prod(shape)]
    return lib.tensor(data, dtype=getattr(lib, dtype)).reshape(shape)


def _u(lib: Any, dtype: str, shape: tuple[int, ...]) -> Any:
    """Other values of the dtype (the samples reversed)."""
    data = _VALUES[_kind(dtype)][::-1][: math.prod(shape)]
    return lib.tensor(data, dtype=getattr(lib, dtype)).reshape(shape)


def _tt(lib: Any, dtype: str) -> Any:
    """A transposed (4, 3) view: not contiguous."""
    return _t(lib, dtype).t()


def _sliced(lib: Any, dtype: str) -> Any:
    """A (3, 2) view with storage offset 1 and stride (4, 2)."""
    return _t(lib, dtype)[:, 1::2]


def _expanded(lib: Any, dtype: str) -> Any:
    """A (3, 4) view with stride (0, 1)."""
    return _t(lib, dtype, (4,)).expand(3, 4)


def _without_origin(message: str) -> str:
    # torch appends where in C++ a warning came from; refimpl's warnings have no such suffix.
    return message.split(" (Triggered internally at")[0]


def _outcome(fn: Callable[[Any], Any], lib: Any) -> tuple[Any, BaseException | None, list[str]]:
    """(result, exception, warning messages) of `fn(lib)`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = fn(lib), None
        except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
            result, error = None, exc
    return result, error, [_without_origin(str(w.message)) for w in caught]


def _same(expected: Any, actual: Any) -> None:
    if expected is None:
        assert actual is None
        return
    if isinstance(expected, tuple | list):
        assert type(actual) is type(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    assert actual.storage_offset() == expected.storage_offset()
    assert actual.device.type == expected.device.type
    if expected.device.type == "meta":
        return
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)


def _check(fn: Callable[[Any], Any], *, compare_warnings: bool = True) -> None:
    expected, expected_error, expected_warnings = _outcome(fn, torch)
    actual, actual_error, actual_warnings = _outcome(fn, refimpl)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error), str(expected_error)
        )
        return
    if actual_error is not None:
        message = str(actual_error)
        if "backend cannot run" in message or "backend has no '" in message:
            # A backend without a capability (array_api_strict: no bitcast, no complex
            # constructor) refuses by name; see refimpl.core.backend.
            pytest.xfail(message.partition(":")[2].strip())
        raise actual_error
    _same(expected, actual)
    if compare_warnings:
        assert actual_warnings == expected_warnings


def _into(call: Callable[[Any, Any], Any], out: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`call(lib, out)` with a fresh `out`; the result is (returned is out, out)."""

    def run(lib: Any) -> Any:
        target = out(lib)
        returned = call(lib, target)
        assert returned is target
        return target

    return run


def _pieces_into(
    call: Callable[[Any, Any], Any], outs: Callable[[Any], list[Any]]
) -> Callable[[Any], Any]:
    """`call(lib, outs)` for an out= form returning nothing; the result is the list of outs."""

    def run(lib: Any) -> Any:
        targets = outs(lib)
        assert call(lib, targets) is None
        return targets

    return run


# --- every dtype ---------------------------------------------------------------------------

PER_DTYPE: dict[str, Callable[[Any, str], Any]] = {
    # tril / triu
    "tril": lambda lib, d: lib.tril(_t(lib, d)),
    "tril_transposed_offset": lambda lib, d: lib.tril(_tt(lib, d), -1),
    "tril_big_diagonal": lambda lib, d: lib.tril(_t(lib, d), 7),
    "triu_huge_diagonal": lambda lib, d: lib.triu(_t(lib, d), -(2**62)),
    "tril_huge_negative_diagonal": lambda lib, d: lib.tril(_tt(lib, d), -(2**63) + 1),
    "triu_batched_expanded": lambda lib, d: lib.triu(_t(lib, d, (2, 2, 3)).expand(2, 2, 2, 3), 1),
    "triu_method": lambda lib, d: _sliced(lib, d).triu(-1),
    "tril_inplace": lambda lib, d: _t(lib, d).t().tril_(1),
    "triu_inplace_view": lambda lib, d: _t(lib, d)[:, 1:].triu_(),
    "tril_out": lambda lib, d: _into(
        lambda lib, o: lib.tril(_tt(lib, d), out=o), lambda lib: _u(lib, d, (3, 4)).t())(lib),
    "triu_out_resized": lambda lib, d: _into(
        lambda lib, o: lib.triu(_t(lib, d), 1, out=o), lambda lib: _u(lib, d, (5,)))(lib),
    # diag, diag_embed, diagflat
    "diag_1d": lambda lib, d: lib.diag(_t(lib, d, (3,)), 1),
    "diag_2d": lambda lib, d: lib.diag(_tt(lib, d), -1),
    "diag_method": lambda lib, d: _t(lib, d).diag(2),
    "diag_out_2d": lambda lib, d: _into(
        lambda lib, o: lib.diag(_t(lib, d), out=o), lambda lib: _u(lib, d, (2,)))(lib),
    "diag_out_1d": lambda lib, d: _into(
        lambda lib, o: lib.diag(_t(lib, d, (2,)), -1, out=o), lambda lib: _u(lib, d, (3, 3)))(lib),
    "diag_embed": lambda lib, d: lib.diag_embed(_t(lib, d), 1),
    "diag_embed_dims": lambda lib, d: _tt(lib, d).diag_embed(-1, 2, 0),
    "diagflat": lambda lib, d: lib.diagflat(_tt(lib, d)[:2], 1),
    "diagflat_method": lambda lib, d: _t(lib, d, ()).diagflat(),
    # block_diag, meshgrid, cartesian_prod, combinations
    "block_diag": lambda lib, d: lib.block_diag(_tt(lib, d), _t(lib, d, (3,)), _t(lib, d, ())),
    "block_diag_promotes": lambda lib, d: lib.block_diag(
        _t(lib, d, (2,)), lib.ones(2, 1, dtype=lib.int8), lib.tensor(2.0, dtype=lib.float64)),
    "meshgrid_ij": lambda lib, d: lib.meshgrid(_t(lib, d, (2,)), _t(lib, d, (3,)), indexing="ij"),
    "meshgrid_xy": lambda lib, d: lib.meshgrid(
        [_t(lib, d, (2,)), _t(lib, d, ()), _t(lib, d, (3,))], indexing="xy"),
    "meshgrid_default": lambda lib, d: lib.meshgrid(_t(lib, d, (2,)), _t(lib, d, (3,))),
    "cartesian_prod": lambda lib, d: lib.cartesian_prod(_t(lib, d, (2,)), _t(lib, d, (3,))),
    "cartesian_prod_one": lambda lib, d: lib.cartesian_prod(_t(lib, d, (3,))),
    "combinations": lambda lib, d: lib.combinations(_t(lib, d, (4,))),
    "combinations_r3_replacement": lambda lib, d: lib.combinations(_t(lib, d, (3,)), 3, True),
    "combinations_r0": lambda lib, d: lib.combinations(_t(lib, d, (3,)), 0),
    "combinations_r_too_big": lambda lib, d: lib.combinations(_t(lib, d, (2,)), 3),
    # the *_copy forms: contiguous copies whatever the input's layout
    "view_copy": lambda lib, d: lib.view_copy(_t(lib, d), (2, 6)),
    "view_copy_needs_reshape": lambda lib, d: lib.view_copy(_tt(lib, d), (-1,)),
    "permute_copy": lambda lib, d: lib.permute_copy(_t(lib, d, (2, 3, 2)), (2, 0, 1)),
    "expand_copy": lambda lib, d: lib.expand_copy(_t(lib, d, (3, 1)), (2, 3, 4)),
    "transpose_copy": lambda lib, d: lib.transpose_copy(_sliced(lib, d), 0, 1),
    "t_copy": lambda lib, d: lib.t_copy(_tt(lib, d)),
    "squeeze_copy": lambda lib, d: lib.squeeze_copy(_t(lib, d, (1, 3, 1, 4))),
    "squeeze_copy_dim": lambda lib, d: lib.squeeze_copy(_t(lib, d, (1, 3, 1, 4)), 2),
    "squeeze_copy_dims": lambda lib, d: lib.squeeze_copy(_t(lib, d, (1, 3, 1, 4)), (0, 1, 2)),
    "unsqueeze_copy": lambda lib, d: lib.unsqueeze_copy(_tt(lib, d), 1),
    "select_copy": lambda lib, d: lib.select_copy(_tt(lib, d), 1, -1),
    "slice_copy": lambda lib, d: lib.slice_copy(_tt(lib, d), 0, 1, None, 2),
    "diagonal_copy": lambda lib, d: lib.diagonal_copy(_tt(lib, d), -1),
    "as_strided_copy": lambda lib, d: lib.as_strided_copy(_t(lib, d), (2, 2), (1, 3), 1),
    "alias_copy": lambda lib, d: lib.alias_copy(_tt(lib, d)),
    "detach_copy": lambda lib, d: lib.detach_copy(_expanded(lib, d)),
    "unfold_copy": lambda lib, d: lib.unfold_copy(_tt(lib, d), 0, 2, 1),
    "split_copy": lambda lib, d: lib.split_copy(_tt(lib, d), 3),
    "split_with_sizes_copy": lambda lib, d: lib.split_with_sizes_copy(_t(lib, d), [1, 3], 1),
    "unbind_copy": lambda lib, d: lib.unbind_copy(_tt(lib, d), 1),
    "permute_copy_out_transposed": lambda lib, d: _into(
        lambda lib, o: lib.permute_copy(_t(lib, d), (1, 0), out=o),
        lambda lib: _u(lib, d, (3, 4)).t())(lib),
    "expand_copy_out_resized": lambda lib, d: _into(
        lambda lib, o: lib.expand_copy(_t(lib, d, (4,)), (2, 4), out=o),
        lambda lib: _u(lib, d, (3,)))(lib),
    "select_copy_out_empty": lambda lib, d: _into(
        lambda lib, o: lib.select_copy(_t(lib, d), 0, 1, out=o),
        lambda lib: lib.empty(0, dtype=getattr(lib, d)))(lib),
    "split_copy_out": lambda lib, d: _pieces_into(
        lambda lib, o: lib.split_copy(_t(lib, d), 2, 1, out=o),
        lambda lib: [_u(lib, d, (3, 2)), _u(lib, d, (3, 2)).t().contiguous().t()])(lib),
    "split_copy_out_casts_and_broadcasts": lambda lib, d: _pieces_into(
        lambda lib, o: lib.split_copy(_t(lib, d)[:1], 2, 1, out=o),
        lambda lib: [lib.zeros(3, 2, dtype=lib.complex128) for _ in range(2)])(lib),
    "unbind_copy_out_resized": lambda lib, d: _pieces_into(
        lambda lib, o: lib.unbind_copy(_tt(lib, d), 0, out=o),
        lambda lib: [_u(lib, d, (2,)), _u(lib, d, (0,)), _u(lib, d, (6,))[::2],
                     _u(lib, d, (3,))])(lib),
    "split_with_sizes_copy_out_resized": lambda lib, d: _pieces_into(
        lambda lib, o: lib.split_with_sizes_copy(_t(lib, d), [1, 3], 1, out=o),
        lambda lib: [_u(lib, d, (1, 3)).t(), _u(lib, d, (2,))])(lib),
    # the scatter-backs: a copy of self (its strides and storage offset kept) with src written
    "select_scatter": lambda lib, d: lib.select_scatter(_t(lib, d), _u(lib, d, (4,)), 0, 1),
    "select_scatter_sliced": lambda lib, d: lib.select_scatter(
        _sliced(lib, d), _u(lib, d, (3,)), 1, -1),
    "select_scatter_method_transposed": lambda lib, d: _tt(lib, d).select_scatter(
        _u(lib, d, (3,)), 0, 2),
    "select_scatter_casts_src": lambda lib, d: lib.select_scatter(
        _t(lib, d), lib.ones(4, dtype=lib.float64), 0, 0),
    "slice_scatter": lambda lib, d: lib.slice_scatter(_t(lib, d), _u(lib, d, (3, 2)), 1, 0, 4, 2),
    "slice_scatter_defaults": lambda lib, d: _sliced(lib, d).slice_scatter(_u(lib, d, (3, 2))),
    "slice_scatter_expanded": lambda lib, d: lib.slice_scatter(
        _expanded(lib, d), _u(lib, d, (1, 4)), 0, 2),
    "diagonal_scatter": lambda lib, d: lib.diagonal_scatter(_t(lib, d), _u(lib, d, (3,))),
    "diagonal_scatter_offset": lambda lib, d: _tt(lib, d).diagonal_scatter(
        _u(lib, d, (2,)), -2, 1, 0),
    "as_strided_scatter": lambda lib, d: lib.as_strided_scatter(
        _t(lib, d), _u(lib, d, (2, 2)), (2, 2), (1, 4)),
    "as_strided_scatter_sliced": lambda lib, d: _sliced(lib, d).as_strided_scatter(
        _u(lib, d, (2,)), (2,), (2,)),
    "as_strided_scatter_offset": lambda lib, d: lib.as_strided_scatter(
        _t(lib, d), _u(lib, d, (3,)), (3,), (3,), 2),
    "select_scatter_out": lambda lib, d: _into(
        lambda lib, o: lib.ops.aten.select_scatter.out(
            _t(lib, d), _u(lib, d, (4,)), 0, 2, out=o),
        lambda lib: _u(lib, d, (4, 3)).t())(lib),
    # (torch.ops calls give torch's resize warning to C++'s log, not to Python: empty outs.)
    "slice_scatter_out_resized": lambda lib, d: _into(
        lambda lib, o: lib.ops.aten.slice_scatter.out(
            _t(lib, d), _u(lib, d, (1, 4)), 0, 1, 2, out=o),
        lambda lib: _u(lib, d, (0,)))(lib),
    # narrow_copy
    "narrow_copy": lambda lib, d: lib.narrow_copy(_tt(lib, d), 0, 1, 2),
    "narrow_copy_negative": lambda lib, d: _t(lib, d).narrow_copy(-1, -3, 3),
    "narrow_copy_out_resized_silently": lambda lib, d: _into(
        lambda lib, o: lib.narrow_copy(_t(lib, d), 0, 1, 2, out=o),
        lambda lib: _u(lib, d, (3, 4)).t())(lib),
    "narrow_copy_out_same_shape": lambda lib, d: _into(
        lambda lib, o: lib.narrow_copy(_t(lib, d), 1, 1, 3, out=o),
        lambda lib: _u(lib, d, (3, 3)))(lib),
}


@pytest.mark.parametrize("dtype", STORED_DTYPES)
@pytest.mark.parametrize("name", sorted(PER_DTYPE))
def test_matches_torch(name: str, dtype: str) -> None:
    call = PER_DTYPE[name]
    # torch warns about meshgrid's missing `indexing` once per process (test_meshgrid_warning).
    _check(lambda lib: call(lib, dtype), compare_warnings=name != "meshgrid_default")


# --- factories, other dtypes, meta tensors -------------------------------------------------

OTHER: dict[str, Callable[[Any], Any]] = {
    "tril_indices": lambda lib: lib.tril_indices(3, 4),
    "tril_indices_offset": lambda lib: lib.tril_indices(4, 3, 1),
    "triu_indices_negative_offset": lambda lib: lib.triu_indices(3, 4, -1, dtype=lib.int32),
    "triu_indices_empty": lambda lib: lib.triu_indices(3, 3, 5),
    "tril_indices_huge_offset": lambda lib: lib.tril_indices(2, 3, 2**62),
    "triu_indices_huge_negative_offset": lambda lib: lib.triu_indices(2, 3, -(2**62)),
    "tril_indices_no_rows": lambda lib: lib.tril_indices(0, 3),
    "tril_indices_out": lambda lib: _into(
        lambda lib, o: lib.ops.aten.tril_indices.out(3, 3, -1, out=o),
        lambda lib: lib.empty(0, dtype=lib.int64))(lib),
    "triu_indices_meta": lambda lib: lib.triu_indices(4, 4, device="meta"),
    "block_diag_empty": lambda lib: lib.block_diag(),
    "block_diag_empty_blocks": lambda lib: lib.block_diag(lib.ones(0, 2), lib.ones(2, 0)),
    "block_diag_out": lambda lib: _into(
        lambda lib, o: lib.ops.aten.block_diag.out([lib.ones(2, 2), lib.ones(1)], out=o),
        lambda lib: lib.empty(0))(lib),
    "diag_embed_out": lambda lib: _into(
        lambda lib, o: lib.ops.aten.diag_embed.out(lib.ones(2, 3), 0, 0, 2, out=o),
        lambda lib: lib.empty(0))(lib),
    "meshgrid_one": lambda lib: lib.meshgrid(lib.arange(3.0), indexing="xy"),
    "meshgrid_aten": lambda lib: lib.ops.aten.meshgrid.default([lib.arange(2), lib.arange(3)]),
    "combinations_empty": lambda lib: lib.combinations(lib.ones(0)),
    "view_copy_dtype": lambda lib: lib.ops.aten.view_copy.dtype(lib.ones(2, 2), lib.int32),
    "view_as_real_copy": lambda lib: lib.view_as_real_copy(
        lib.tensor([[1 + 2j, 3j, 4.0], [0j, -1j, 2 + 0j]]).t()),
    "view_as_complex_copy": lambda lib: lib.view_as_complex_copy(
        lib.arange(12.0).reshape(3, 2, 2)[:, 1]),
    "expand_copy_implicit": lambda lib: lib.expand_copy(lib.ones(3, 1), (3, 4), implicit=True),
    "tril_meta": lambda lib: lib.tril(lib.ones(3, 4, device="meta").t()),
    "triu_out_meta": lambda lib: _into(
        lambda lib, o: lib.triu(lib.ones(3, 4, device="meta"), out=o),
        lambda lib: lib.empty(0, device="meta"))(lib),
    "diag_embed_meta": lambda lib: lib.diag_embed(lib.ones(2, 3, device="meta")),
    "permute_copy_meta": lambda lib: lib.permute_copy(lib.ones(2, 3, device="meta"), (1, 0)),
    "select_scatter_meta": lambda lib: lib.select_scatter(
        lib.ones(3, 4, device="meta")[:, 1:], lib.ones(3, device="meta"), 1, 0),
    "narrow_copy_meta": lambda lib: lib.narrow_copy(lib.ones(3, 4, device="meta").t(), 0, 1, 2),
}


@pytest.mark.parametrize("name", sorted(OTHER))
def test_other_matches_torch(name: str) -> None:
    _check(OTHER[name])


# --- errors --------------------------------------------------------------------------------

_X = (3, 4)

ERRORS: dict[str, Callable[[Any], Any]] = {
    "tril_1d": lambda lib: lib.tril(lib.ones(3)),
    "triu_0d": lambda lib: lib.ones(()).triu_(),
    "tril_out_dtype": lambda lib: lib.tril(lib.ones(*_X), out=lib.empty(5, dtype=lib.int64)),
    "tril_indices_negative_row": lambda lib: lib.tril_indices(-1, 4),
    "triu_indices_negative_col": lambda lib: lib.triu_indices(3, -4),
    "tril_indices_float": lambda lib: lib.tril_indices(3, 3, dtype=lib.float32),
    "triu_indices_int8": lambda lib: lib.triu_indices(3, 3, dtype=lib.int8),
    "diag_3d": lambda lib: lib.diag(lib.ones(2, 2, 2)),
    "diag_0d": lambda lib: lib.ones(()).diag(),
    "diag_out_3d": lambda lib: lib.diag(lib.ones(2, 2, 2), out=lib.empty(1)),
    "diag_out_cannot_cast": lambda lib: lib.diag(lib.ones(3), out=lib.empty(3, 3, dtype=lib.int64)),
    "diag_out_dtype": lambda lib: lib.diag(lib.ones(3), out=lib.empty(3, 3, dtype=lib.float64)),
    "diag_out_2d_dtype": lambda lib: lib.diag(lib.ones(*_X), out=lib.empty(3, dtype=lib.int64)),
    "diag_embed_same_dims": lambda lib: lib.diag_embed(lib.ones(*_X), 1, 0, -3),
    "diag_embed_dim_range": lambda lib: lib.diag_embed(lib.ones(*_X), 1, 0, 5),
    "diag_embed_0d": lambda lib: lib.diag_embed(lib.ones(())),
    "block_diag_3d": lambda lib: lib.block_diag(lib.ones(2), lib.ones(2, 2, 2)),
    "block_diag_devices": lambda lib: lib.block_diag(lib.ones(2), lib.ones(2, device="meta")),
    "meshgrid_empty": lambda lib: lib.meshgrid(indexing="ij"),
    "meshgrid_dtypes": lambda lib: lib.meshgrid(lib.ones(2), lib.arange(3), indexing="ij"),
    "meshgrid_devices": lambda lib: lib.meshgrid(
        lib.ones(2), lib.ones(3, device="meta"), indexing="ij"),
    "meshgrid_indexing": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(3), indexing="yx"),
    "cartesian_prod_2d": lambda lib: lib.cartesian_prod(lib.ones(2), lib.ones(2, 2)),
    "combinations_2d": lambda lib: lib.combinations(lib.ones(2, 2)),
    "combinations_negative": lambda lib: lib.combinations(lib.ones(3), -1),
    "permute_copy_bad_dims": lambda lib: lib.permute_copy(lib.ones(*_X), (0, 0)),
    "expand_copy_bad_size": lambda lib: lib.expand_copy(lib.ones(*_X), (3, 3)),
    "select_copy_index": lambda lib: lib.select_copy(lib.ones(*_X), 0, 5),
    "view_copy_bad_size": lambda lib: lib.view_copy(lib.ones(*_X), (5,)),
    "permute_copy_out_dtype": lambda lib: lib.permute_copy(
        lib.ones(*_X), (1, 0), out=lib.empty(4, 3, dtype=lib.int64)),
    "split_copy_out_count": lambda lib: lib.split_copy(lib.ones(*_X), 2, 1, out=[lib.empty(3, 2)]),
    "split_with_sizes_copy_out_count": lambda lib: lib.split_with_sizes_copy(
        lib.ones(*_X), [1, 2], 0, out=[lib.empty(4)]),
    "unbind_copy_out_count": lambda lib: lib.unbind_copy(lib.ones(*_X), 0, out=[lib.empty(4)]),
    "unbind_copy_out_dtype": lambda lib: lib.unbind_copy(
        lib.ones(2, 2), 0, out=[lib.empty(2), lib.empty(2, dtype=lib.int64)]),
    "split_with_sizes_copy_out_dtype": lambda lib: lib.split_with_sizes_copy(
        lib.ones(2, 2), [1, 1], out=[lib.empty(1, 2, dtype=lib.int64), lib.empty(1, 2)]),
    "split_copy_out_shape": lambda lib: lib.split_copy(
        lib.ones(*_X), 2, 1, out=[lib.empty(3, 2), lib.empty(3, 1)]),
    "select_scatter_shape": lambda lib: lib.select_scatter(lib.ones(*_X), lib.ones(3), 0, 1),
    "select_scatter_no_broadcast": lambda lib: lib.select_scatter(
        lib.ones(*_X), lib.ones(1), 0, 1),
    "select_scatter_index": lambda lib: lib.select_scatter(lib.ones(*_X), lib.ones(4), 0, 5),
    "slice_scatter_shape": lambda lib: lib.slice_scatter(lib.ones(*_X), lib.ones(3), 1, 0, 2),
    "diagonal_scatter_shape": lambda lib: lib.diagonal_scatter(lib.ones(*_X), lib.ones(4)),
    "as_strided_scatter_shape": lambda lib: lib.as_strided_scatter(
        lib.ones(*_X), lib.ones(4), (2,), (1,)),
    "narrow_copy_0d": lambda lib: lib.narrow_copy(lib.ones(()), 0, 0, 1),
    "narrow_copy_length": lambda lib: lib.narrow_copy(lib.ones(*_X), 0, 2, 2),
    "narrow_copy_negative_length": lambda lib: lib.narrow_copy(lib.ones(*_X), 0, 0, -1),
    "narrow_copy_start": lambda lib: lib.narrow_copy(lib.ones(*_X), 0, 5, 0),
    "narrow_copy_dim": lambda lib: lib.narrow_copy(lib.ones(*_X), 3, 0, 0),
    "narrow_copy_negative_dim": lambda lib: lib.narrow_copy(lib.ones(*_X), -3, 0, 0),
    "narrow_copy_out_dtype": lambda lib: lib.narrow_copy(
        lib.ones(*_X), 0, 0, 1, out=lib.empty(1, 4, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name: str) -> None:
    _check(ERRORS[name])


OUT_UNCHANGED: dict[str, Callable[[Any, Any], Any]] = {
    "tril": lambda lib, o: lib.tril(lib.ones(3), out=o),
    "diag_embed": lambda lib, o: lib.ops.aten.diag_embed.out(lib.ones(2), 0, 0, 0, out=o),
    "select_scatter": lambda lib, o: lib.ops.aten.select_scatter.out(
        lib.ones(2, 2), lib.ones(3), 0, 0, out=o),
    "narrow_copy": lambda lib, o: lib.narrow_copy(lib.ones(2, 2), 0, 1, 2, out=o),
}


@pytest.mark.parametrize("name", sorted(OUT_UNCHANGED))
def test_failing_out_call_leaves_out_unchanged(name: str) -> None:
    """A call that raises leaves its `out` as it was (values, shape, version)."""
    out = refimpl.tensor([5.0, 6.0, 7.0])
    version = out._version
    with pytest.raises(RuntimeError):
        OUT_UNCHANGED[name](refimpl, out)
    assert out.tolist() == [5.0, 6.0, 7.0]
    assert out._version == version


def test_meshgrid_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """meshgrid without `indexing` warns once per process, with torch's text (TORCH_WARN_ONCE:
    torch's own once-flag may be spent already, so its text is written here as torch 2.13
    gives it)."""
    from refimpl._base.context import CONTEXT

    monkeypatch.setattr(CONTEXT, "warned_once", set())
    _, _, first = _outcome(lambda lib: lib.meshgrid(lib.ones(2), lib.ones(3)), refimpl)
    _, _, second = _outcome(lambda lib: lib.meshgrid(lib.ones(2), lib.ones(3)), refimpl)
    expected = (
        "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
        "argument."
    )
    assert first == [expected]
    assert second == []


def test_meshgrid_returns_views() -> None:
    """meshgrid's grids are views of its inputs (expanded), as in torch."""
    a = refimpl.arange(3.0)
    grid_a, grid_b = refimpl.meshgrid(a, refimpl.arange(2.0), indexing="ij")
    assert grid_a._base is a and grid_a.untyped_storage() is a.untyped_storage()
    assert grid_b.stride() == torch.meshgrid(
        torch.arange(3.0), torch.arange(2.0), indexing="ij")[1].stride()


def test_copies_do_not_alias() -> None:
    """A *_copy result and a scatter result own their storage: writing them leaves the input."""
    x = refimpl.arange(6.0).reshape(2, 3)
    for result in (
        refimpl.alias_copy(x),
        refimpl.select_copy(x, 0, 0),
        refimpl.slice_copy(x, 0, 0, 1),
        refimpl.select_scatter(x, refimpl.zeros(3), 0, 1),
        refimpl.narrow_copy(x, 0, 0, 1),
        refimpl.view_copy(x, (6,)),
    ):
        assert result.untyped_storage() is not x.untyped_storage()
        result.fill_(-1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize(
    ("packet", "keys"),
    [
        ("tril", ("CPU", "Meta", "CompositeExplicitAutogradNonFunctional")),
        ("permute_copy", ("CompositeExplicitAutogradNonFunctional",)),
        ("select_scatter", ("CompositeExplicitAutogradNonFunctional",)),
        ("narrow_copy", ("CPU", "CompositeExplicitAutogradNonFunctional")),
        ("block_diag", ("CompositeExplicitAutograd",)),
        ("diag", ("CompositeImplicitAutograd",)),
    ],
)
def test_registered_where_torch_registers(packet: str, keys: tuple[str, ...]) -> None:
    """The functional overload has kernels for the keys torch registers it under."""
    for key in keys:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{packet}", key)
        overload = getattr(refimpl.ops.aten, packet).default
        assert overload.has_kernel_for_dispatch_key(DispatchKey[key]), (packet, key)


# --- which aten ops run -----------------------------------------------------------------------

OP_LOG: dict[str, Callable[[Any], Any]] = {
    "diag_1d": lambda lib: lib.diag(lib.ones(3)),
    "diag_2d": lambda lib: lib.diag(lib.ones(3, 3), 1),
    "diag_out": lambda lib: lib.diag(lib.ones(3, 3), out=lib.empty(3)),
    "diagflat_transposed": lambda lib: lib.diagflat(lib.ones(2, 2).t()),
    "meshgrid": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(3), indexing="xy"),
    "cartesian_prod": lambda lib: lib.cartesian_prod(lib.ones(2), lib.ones(3)),
    "block_diag": lambda lib: lib.block_diag(lib.ones(2), lib.ones(1, 2)),
    "tril": lambda lib: lib.tril(lib.ones(2, 2)),
    "tril_": lambda lib: lib.ones(2, 2).tril_(),
    "triu_out": lambda lib: lib.triu(lib.ones(2, 2), out=lib.empty(2, 2)),
    "narrow_copy": lambda lib: lib.narrow_copy(lib.ones(2, 2), 0, 0, 1),
    "split_copy": lambda lib: lib.split_copy(lib.ones(4), 2),
    "select_scatter": lambda lib: lib.ones(2, 2).select_scatter(lib.zeros(2), 0, 0),
}


@pytest.mark.parametrize("name", sorted(OP_LOG))
def test_op_log_matches_torch(name: str) -> None:
    """The aten ops a mode would see: CompositeImplicitAutograd ops (diag, diagflat,
    meshgrid, cartesian_prod) decomposed as torch decomposes them, the others as one op.
    (combinations differs: torch's mask uses aten.arange, which refimpl does not have yet.)"""
    with torch_op_log() as expected:
        OP_LOG[name](torch)
    with refimpl_op_log() as actual:
        OP_LOG[name](refimpl)
    assert actual == expected
