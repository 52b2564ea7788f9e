"""Conversions and copies against torch: every dtype pair, layouts, copy_, errors.

Each case runs the same call on tensors built from the same Python values in torch and in
refimpl and compares values (nan-aware), dtype, shape, strides, aliasing, and errors (type
and message).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import refimpl

_CPU_DTYPES = {d.name for d in refimpl.config.backends.resolve("cpu").array_dtypes}
DTYPES = [
    name for name in (
        "bool", "uint8", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128",
    ) if name in _CPU_DTYPES
]
_SPECIAL = [
    0.0, -0.0, 1.0, -1.0, 2.5, -3.7, 300.5, -129.5, 70000.7, 3e9, -3e9, 1e20, -1e20,
    math.inf, -math.inf, math.nan,
]
_COMPLEX = [0j, 1j, 1 + 0j, complex(math.nan, 0), complex(0, -0.0), -2.5 + 3j, complex(math.inf, 1)]


def _source(name: str) -> torch.Tensor:
    values: list[Any] = _SPECIAL + (_COMPLEX if name.startswith("complex") else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.tensor(values, dtype=torch.complex128).to(getattr(torch, name))


def _mirror(t: torch.Tensor) -> refimpl.Tensor:
    return refimpl.tensor(t.tolist(), dtype=getattr(refimpl, str(t.dtype).split(".")[1]))


def _same_values(got: refimpl.Tensor, want: torch.Tensor) -> None:
    assert got.dtype.name == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    torch.testing.assert_close(
        torch.tensor(got.tolist(), dtype=want.dtype), want, equal_nan=True, rtol=0, atol=0
    )


@pytest.mark.parametrize("target", DTYPES)
@pytest.mark.parametrize("source", DTYPES)
def test_to_dtype_every_pair(source: str, target: str) -> None:
    t = _source(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = t.to(getattr(torch, target))
        got = _mirror(t).to(getattr(refimpl, target))
    _same_values(got, want)


def test_complex_to_real_warns() -> None:
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary"):
        refimpl.tensor([1 + 2j]).float()


# --- layouts: (id, build the input, the call) --------------------------------------------


def _arange(lib: Any, *shape: int) -> Any:
    n = math.prod(shape)
    return lib.arange(n, dtype=lib.float32).reshape(*shape)


def _cl(lib: Any) -> Any:
    return _arange(lib, 2, 3, 4, 5).contiguous(memory_format=lib.channels_last)


INPUTS: dict[str, Callable[[Any], Any]] = {
    "contiguous": lambda lib: _arange(lib, 3, 4),
    "transposed": lambda lib: _arange(lib, 3, 4).t(),
    "permuted": lambda lib: _arange(lib, 2, 3, 4).permute(2, 0, 1),
    "sliced": lambda lib: _arange(lib, 4, 6)[:, ::2],
    "sliced_t": lambda lib: _arange(lib, 4, 6)[:, ::2].t(),
    "expanded": lambda lib: _arange(lib, 3, 1).expand(3, 4),
    "channels_last": _cl,
    "cl_sliced": lambda lib: _arange(lib, 2, 3, 4, 5).permute(0, 2, 3, 1)[:, ::2],
    "nchw": lambda lib: _arange(lib, 2, 3, 4, 5),
    "zero_dim": lambda lib: lib.tensor(2.5),
    "empty": lambda lib: _arange(lib, 0, 3).t(),
}
CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "clone": lambda lib, x: x.clone(),
    "clone_contig": lambda lib, x: x.clone(memory_format=lib.contiguous_format),
    "clone_preserve": lambda lib, x: x.clone(memory_format=lib.preserve_format),
    "contiguous": lambda lib, x: x.contiguous(),
    "double": lambda lib, x: x.double(),
    "int": lambda lib, x: x.int(),
    "to_copy": lambda lib, x: x.to(copy=True),
    "to_same": lambda lib, x: x.to(lib.float32),
    "to_contig": lambda lib, x: x.to(memory_format=lib.contiguous_format),
    "to_meta": lambda lib, x: x.to("meta"),
}
FOUR_D_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "clone_cl": lambda lib, x: x.clone(memory_format=lib.channels_last),
    "contiguous_cl": lambda lib, x: x.contiguous(memory_format=lib.channels_last),
    "to_cl": lambda lib, x: x.to(memory_format=lib.channels_last),
    "double_cl": lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
}


def _compare_call(build: Callable[[Any], Any], call: Callable[[Any, Any], Any]) -> None:
    tx, rx = build(torch), build(refimpl)
    try:
        want = call(torch, tx)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        with pytest.raises(type(e)) as info:
            call(refimpl, rx)
        assert str(info.value) == str(e)
        return
    got = call(refimpl, rx)
    assert tuple(got.stride()) == tuple(want.stride())
    assert (got is rx) == (want is tx)
    assert got.device.type == want.device.type
    if want.device.type != "meta":
        _same_values(got, want)


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("build", list(INPUTS))
def test_layout(build: str, call: str) -> None:
    _compare_call(INPUTS[build], CALLS[call])


@pytest.mark.parametrize("call", list(FOUR_D_CALLS))
@pytest.mark.parametrize("build", ["contiguous", "channels_last", "cl_sliced", "nchw"])
def test_layout_channels_last(build: str, call: str) -> None:
    _compare_call(INPUTS[build], FOUR_D_CALLS[call])


@pytest.mark.parametrize("build", list(INPUTS))
def test_is_contiguous_memory_format(build: str) -> None:
    tx, rx = INPUTS[build](torch), INPUTS[build](refimpl)
    for name in ("contiguous_format", "channels_last", "channels_last_3d"):
        want = tx.is_contiguous(memory_format=getattr(torch, name))
        assert rx.is_contiguous(memory_format=getattr(refimpl, name)) == want, name


def test_contiguous_preserve_is_an_error() -> None:
    _compare_call(
        INPUTS["transposed"], lambda lib, x: x.contiguous(memory_format=lib.preserve_format)
    )


# --- copy_ -------------------------------------------------------------------------------

def _shifted_copy(x: Any) -> Any:
    return x[1:].copy_(x[:-1])


def _self_copy(x: Any) -> Any:
    return x.copy_(x)


COPIES: dict[str, Callable[[Any], Any]] = {
    "same": lambda lib: _arange(lib, 3, 4).mul(0).copy_(_arange(lib, 3, 4)),
    "cast": lambda lib: lib.zeros(3, 4, dtype=lib.int8).copy_(_arange(lib, 3, 4) * 40.5),
    "complex_to_bool": lambda lib: lib.zeros(2, dtype=lib.bool).copy_(lib.tensor([1j, 0j])),
    "broadcast": lambda lib: lib.zeros(3, 4).copy_(lib.arange(4.0)),
    "into_transposed": lambda lib: lib.zeros(4, 3).t().copy_(_arange(lib, 3, 4)),
    "from_transposed": lambda lib: lib.zeros(4, 3).copy_(_arange(lib, 3, 4).t()),
    "scalar_src": lambda lib: lib.zeros(3).copy_(lib.tensor(7)),
    "bad_shape": lambda lib: lib.zeros(3).copy_(lib.zeros(4)),
    "into_expanded": lambda lib: lib.zeros(3, 1).expand(3, 4).copy_(lib.ones(3, 4)),
    "from_meta": lambda lib: lib.zeros(3).copy_(lib.zeros(3, device="meta")),
    "partial_overlap": lambda lib: _shifted_copy(lib.arange(6.0)),
    "full_overlap": lambda lib: _self_copy(lib.arange(6.0)),
}


@pytest.mark.parametrize("case", list(COPIES))
def test_copy_(case: str) -> None:
    _compare_call(lambda lib: None, lambda lib, _: COPIES[case](lib))


def test_type_names() -> None:
    for name in DTYPES:
        assert refimpl.zeros(1, dtype=getattr(refimpl, name)).type() == torch.zeros(
            1, dtype=getattr(torch, name)
        ).type()
    assert refimpl.zeros(2).type("torch.IntTensor").dtype is refimpl.int32
    assert refimpl.zeros(2).type(refimpl.float64).dtype is refimpl.float64


def test_memory_format_names() -> None:
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        assert repr(getattr(refimpl, name)) == repr(getattr(torch, name)).replace("torch", "refimpl")
