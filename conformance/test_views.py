"""View metadata and aliasing against torch: size, stride, offset, contiguity, `_base`, writes.

Each case is a chain of view ops applied to the same base in both libraries; the view's
geometry must equal torch's, and a write through it must change the same base elements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import pytest
import torch

import refimpl

View = Callable[[Any], Any]


def _base(lib: Any) -> Any:
    return lib.arange(24.0).reshape(2, 3, 4).clone()


def _base_t(lib: Any) -> Any:
    return lib.arange(24.0).reshape(4, 6).clone().t()


CASES: Final[list[tuple[str, Callable[[Any], Any], View]]] = [
    ("view_6_4", _base, lambda x: x.view(6, 4)),
    ("view_neg1", _base, lambda x: x.view(-1)),
    ("reshape_viewable", _base, lambda x: x.reshape(6, 4)),
    ("flatten", _base, lambda x: x.flatten()),
    ("flatten_1_2", _base, lambda x: x.flatten(1, 2)),
    ("transpose_0_2", _base, lambda x: x.transpose(0, 2)),
    ("transpose_neg", _base, lambda x: x.transpose(-1, -2)),
    ("permute_2_0_1", _base, lambda x: x.permute(2, 0, 1)),
    ("permute_tuple", _base, lambda x: x.permute((1, 2, 0))),
    ("select_t", _base, lambda x: x[0].t()),
    ("unsqueeze_1", _base, lambda x: x.unsqueeze(1)),
    ("unsqueeze_last", _base, lambda x: x.unsqueeze(-1)),
    ("expand", _base, lambda x: x[:, :1].expand(2, 5, 4)),
    ("expand_new_dims", _base, lambda x: x[0, 0].expand(3, 2, 4)),
    ("expand_neg1", _base, lambda x: x[:, :1].expand(-1, 3, -1)),
    ("expand_empty", _base, lambda x: x[:, :0, :1].expand(2, 0, 3)),
    ("select_1_2", _base, lambda x: x.select(1, 2)),
    ("select_neg", _base, lambda x: x.select(-1, -1)),
    ("index_int", _base, lambda x: x[1]),
    ("index_ellipsis_slice", _base, lambda x: x[..., 1:3]),
    ("narrow", _base, lambda x: x.narrow(2, 1, 2)),
    ("narrow_neg_start", _base, lambda x: x.narrow(1, -2, 2)),
    ("slice_step", _base, lambda x: x[:, ::2]),
    ("slice_step3", _base, lambda x: x[:, :, 1::3]),
    ("slice_clamped", _base, lambda x: x[:, -10:10]),
    ("slice_empty", _base, lambda x: x[:, 2:1]),
    ("index_none", _base, lambda x: x[None, 1, None, :, 2]),
    ("index_bool_true", _base, lambda x: x[True]),
    ("index_bool_false", _base, lambda x: x[False]),
    ("as_strided", _base, lambda x: x.as_strided((2, 2), (1, 2), 3)),
    ("as_strided_no_offset", _base, lambda x: x[1].as_strided((3,), (5,))),
    ("diagonal", _base, lambda x: x.diagonal(0, 1, 2)),
    ("diagonal_offset", _base, lambda x: x.diagonal(1, 1, 2)),
    ("diagonal_neg_offset", _base, lambda x: x.diagonal(-1, 1, 2)),
    ("diagonal_default", _base, lambda x: x[0].diagonal()),
    ("unfold", _base, lambda x: x.unfold(2, 2, 1)),
    ("unfold_step", _base, lambda x: x.unfold(1, 2, 2)),
    ("split_second", _base, lambda x: x.split(2, dim=2)[1]),
    ("chunk_last", _base, lambda x: x.chunk(3, dim=1)[2]),
    ("unbind", _base, lambda x: x.unbind(1)[1]),
    ("movedim", _base, lambda x: x.movedim(0, -1)),
    ("mT", _base, lambda x: x.mT),
    ("T_2d", _base, lambda x: x.view(2, 12).T),
    ("squeeze_all", _base, lambda x: x[:, :1, None].squeeze()),
    ("squeeze_dim", _base, lambda x: x[:, :1].squeeze(1)),
    ("squeeze_noop", _base, lambda x: x.squeeze(0)),
    ("squeeze_dims", _base, lambda x: x[:1, :1].squeeze((0, 1))),
    ("chain_t_slice_unsqueeze", _base_t, lambda x: x[1:, ::2].unsqueeze(0)),
    ("chain_transposed_view", _base_t, lambda x: x.transpose(0, 1).view(24)),
    ("chain_t_select", _base_t, lambda x: x.select(1, 2)),
    ("chain_t_diagonal", _base_t, lambda x: x.diagonal()),
    ("chain_t_expand", _base_t, lambda x: x[:, :1].expand(6, 3)),
    ("chain_t_split_view", _base_t, lambda x: x[:, 1:].view(6, 3)),
    ("chain_as_strided_of_view", _base_t, lambda x: x[2:].as_strided((2, 3), (2, 1), 1)),
    ("chain_many", _base, lambda x: x.permute(1, 0, 2)[1:, :, ::3].unsqueeze(2).transpose(0, 3)),
]


def _metadata(base: Any, v: Any) -> dict[str, Any]:
    shares = v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    return {
        "size": tuple(v.size()),
        "stride": tuple(v.stride()),
        "storage_offset": v.storage_offset(),
        "is_contiguous": v.is_contiguous(),
        "is_view": v._is_view(),
        "base_is_root": v._base is base or v._base is base._base,
        "byte_offset": v.data_ptr() - base.data_ptr() if v.numel() and shares else None,
        "shares_storage": shares,
    }


@pytest.mark.parametrize(("name", "make", "chain"), CASES, ids=[c[0] for c in CASES])
def test_view_metadata_matches_torch(name: str, make: Callable[[Any], Any], chain: View) -> None:
    tb, rb = make(torch), make(refimpl)
    tv, rv = chain(tb), chain(rb)
    assert _metadata(rb, rv) == _metadata(tb, tv)
    assert rv.tolist() == tv.tolist()


@pytest.mark.parametrize(("name", "make", "chain"), CASES, ids=[c[0] for c in CASES])
def test_write_through_view_matches_torch(
    name: str, make: Callable[[Any], Any], chain: View
) -> None:
    results = []
    for lib in (torch, refimpl):
        base = make(lib)
        view = chain(base)
        try:
            view.fill_(-1.0)
            error = None
        except RuntimeError as exc:
            error = str(exc)
        results.append((error, base.tolist(), base._version, view._version))
    assert results[1] == results[0]


ERROR_CASES: Final[list[tuple[str, View]]] = [
    ("transpose_out_of_range", lambda x: x.transpose(0, 3)),
    ("permute_wrong_length", lambda x: x.permute(0, 1)),
    ("permute_duplicate", lambda x: x.permute(0, 0, 1)),
    ("expand_mismatch", lambda x: x.expand(3, 3, 4)),
    ("expand_too_few", lambda x: x.expand(4)),
    ("expand_leading_neg", lambda x: x.expand(-1, 2, 3, 4)),
    ("select_out_of_range", lambda x: x.select(0, 2)),
    ("index_out_of_range", lambda x: x[5]),
    ("too_many_indices", lambda x: x[0, 0, 0, 0]),
    ("narrow_too_long", lambda x: x.narrow(0, 1, 5)),
    ("unsqueeze_out_of_range", lambda x: x.unsqueeze(4)),
    ("squeeze_out_of_range", lambda x: x.squeeze(3)),
    ("diagonal_same_dims", lambda x: x.diagonal(0, 0, 0)),
    ("as_strided_out_of_bounds", lambda x: x.as_strided((10, 10), (10, 1))),
    ("as_strided_negative_stride", lambda x: x.as_strided((2,), (-1,))),
    ("as_strided_negative_offset", lambda x: x.as_strided((2,), (1,), -1)),
    ("view_bad_size", lambda x: x.view(5, 5)),
    ("view_two_inferred", lambda x: x.view(-1, -1)),
    ("view_non_viewable", lambda x: x.transpose(0, 1).view(24)),
    ("t_of_3d", lambda x: x.t()),
    ("unfold_too_big", lambda x: x.unfold(0, 3, 1)),
    ("unfold_zero_step", lambda x: x.unfold(0, 1, 0)),
    ("slice_negative_step", lambda x: x[:, ::-1]),
    ("slice_zero_step", lambda x: x[:, ::0]),
    ("movedim_out_of_range", lambda x: x.movedim(0, 5)),
    ("select_0d", lambda x: x[0, 0, 0].select(0, 0)),
    ("permute_no_dims", lambda x: x[0, 0, 0].permute()),
    ("len_0d", lambda x: len(x[0, 0, 0])),
    ("iter_0d", lambda x: iter(x[0, 0, 0])),
    ("bool_many", lambda x: bool(x)),
    ("item_many", lambda x: x.item()),
    ("int_many", lambda x: int(x)),
    ("index_float", lambda x: x[0, 0, 0].__index__()),
    ("expand_copy_into", lambda x: x[:, :1].expand(2, 3, 4).copy_(x)),
]


def _raised(chain: View, lib: Any) -> tuple[type[BaseException], str] | None:
    try:
        chain(_base(lib))
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        # Messages that name a type say torch.FloatTensor in torch, refimpl.FloatTensor here.
        return type(exc), str(exc).replace("torch.", "refimpl.")
    return None


@pytest.mark.parametrize(("name", "chain"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_view_errors_match_torch(name: str, chain: View) -> None:
    expected = _raised(chain, torch)
    assert expected is not None
    assert _raised(chain, refimpl) == expected


def test_version_counter_shared_like_torch() -> None:
    for lib in (torch, refimpl):
        a = lib.zeros(3)
        v = a.view(3)
        v.fill_(2.0)
        a[0] = 5.0
        d = a.detach()
        d.fill_(1.0)
        assert (a._version, v._version, d._version) == (3, 3, 3)
        assert d._base is None and not d._is_view()


def test_bool_of_empty_and_comparison_fallbacks_match_torch() -> None:
    for lib in (torch, refimpl):
        x = lib.ones(2)
        assert (x == None, x != None, x == "a") == (False, True, False)
        assert x in [x] and {x: 1}[x] == 1
    assert _raised(lambda x: bool(x[:0]), refimpl) == _raised(lambda x: bool(x[:0]), torch)
