"""Random reductions against torch (hypothesis): output dtype, shape, layout and values.

Each example draws a reduction (sum, mean, prod, amax, argmax, var, any), an input of any
stored dtype and a random shape (0-dim, size-0 and size-1 dims included) laid out at random
(permuted, sliced with a step, channels-last), a `dim` argument of each form the op takes
(None, an int, a list with negative dims, the empty list) and `keepdim`, then calls it
functionally or with `out=` (an out of the result's shape, of another shape: resized with
torch's warning, empty, or of another dtype). The outcome must be torch's: the error (type
and message), or the result's dtype, shape, strides and values, the warnings, and for out=
the identity of the returned tensor. See Note [Reduction output layout] in
refimpl/ops/_reduction.py.

`REFIMPL_HYPOTHESIS_EXAMPLES=3000 python -m pytest conformance/test_reductions_random.py`
searches wider (not derandomized).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import torch
from hypothesis import HealthCheck, given, settings

import refimpl
from conformance._oracle import STORED_DTYPES

_LOCAL = os.environ.get("REFIMPL_HYPOTHESIS_EXAMPLES")
SETTINGS = settings(
    derandomize=_LOCAL is None,
    max_examples=int(_LOCAL or 300),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

# op -> the `dim` forms it takes: "none" (omitted), "int", "list" (possibly empty).
OPS: dict[str, tuple[str, ...]] = {
    "sum": ("none", "int", "list"),
    "mean": ("none", "int", "list"),
    "prod": ("none", "int"),
    "amax": ("none", "int", "list"),
    "argmax": ("none", "int"),
    "var": ("none", "int", "list"),
    "any": ("none", "int", "list"),
}


@dataclass(frozen=True, slots=True)
class Example:
    """One drawn call: the input's construction, the op and its arguments, and the out=."""

    op: str
    dtype: str
    base: tuple[int, ...]
    perm: tuple[int, ...]
    step_dim: int | None
    channels_last: bool
    dim: int | list[int] | None
    keepdim: bool | None
    out: str | None  # None (functional), "same", "resize", "empty", "dtype"
    seed: int


@st.composite
def examples(draw: st.DrawFn) -> Example:
    op = draw(st.sampled_from(sorted(OPS)))
    dtype = draw(st.sampled_from(STORED_DTYPES))
    ndim = draw(st.integers(0, 4))
    base = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    perm = tuple(draw(st.permutations(range(ndim)))) if ndim else ()
    step_dim = draw(st.one_of(st.none(), st.integers(0, ndim - 1))) if ndim else None
    channels_last = ndim == 4 and draw(st.booleans())
    form = draw(st.sampled_from(OPS[op]))
    bound = max(ndim, 1)
    dim: int | list[int] | None = None
    if form == "int":
        dim = draw(st.integers(-bound, bound - 1))
    elif form == "list":
        picked = draw(st.lists(st.integers(0, bound - 1), unique=True, max_size=bound))
        dim = [d - bound if draw(st.booleans()) else d for d in picked]
    keepdim = draw(st.one_of(st.none(), st.booleans()))
    out = draw(st.sampled_from([None, None, "same", "resize", "empty", "dtype"]))
    if op == "prod" and dim is None:
        # torch.prod(x, out=...) is a TypeError in torch (its full-reduction Python signature
        # has no out=), and prod takes no None dim. Differs: refimpl's binding accepts out=
        # for the packet as a whole (api/_call.py), so the call is left out here.
        out = None
    return Example(
        op,
        dtype,
        base,
        perm,
        step_dim,
        channels_last,
        dim,
        keepdim,
        out,
        draw(st.integers(0, 2**16)),
    )


def _input(lib: Any, ex: Example) -> Any:
    """The example's input in `lib`: the same values and the same view ops in both."""
    gen = torch.Generator().manual_seed(ex.seed)
    values = torch.randn(ex.base, generator=gen, dtype=torch.float64) * 3
    if ex.dtype == "bool":
        values = values > 0
    elif not ex.dtype.startswith(("float", "complex")):
        values = values.round().abs() if ex.dtype == "uint8" else values.round()
    t = lib.tensor(values.tolist(), dtype=getattr(lib, ex.dtype))
    if ex.channels_last:
        t = t.contiguous(memory_format=lib.channels_last)
    if ex.perm:
        t = t.permute(*ex.perm)
    if ex.step_dim is not None:
        index = [slice(None)] * t.dim()
        index[ex.step_dim] = slice(None, None, 2)
        t = t[tuple(index)]
    return t


def _call(lib: Any, ex: Example, x: Any, out: Any) -> Any:
    """`lib.<op>(x, [dim], [keepdim=...], [out=...])` in a spelling torch's parser accepts:
    sum and mean take keepdim and out= only after a dim (None here), prod only with an int
    dim."""
    args: list[Any] = [] if ex.dim is None else [ex.dim]
    kwargs: dict[str, Any] = {}
    if ex.keepdim is not None and not (ex.op == "prod" and ex.dim is None):
        if ex.dim is None and ex.op in ("sum", "mean"):
            args = [None]
        kwargs["keepdim"] = ex.keepdim
    if out is not None:
        if ex.dim is None and ex.op in ("sum", "mean"):
            args = [None]
        kwargs["out"] = out
    return getattr(lib, ex.op)(x, *args, **kwargs)


def _run(lib: Any, ex: Example) -> tuple[Any, Any, tuple[str, ...], bool]:
    """(result, out, warning messages, result is out) or the exception raised."""
    x = _input(lib, ex)
    out = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if ex.out is not None:
            # The functional result tells the out's shape and dtype (torch's own answer).
            reference = _call(torch, ex, _input(torch, ex), None)
            dtype = str(reference.dtype).removeprefix("torch.")
            shape = tuple(reference.shape)
            if ex.out == "resize":
                shape = (*shape, 2)
            elif ex.out == "empty":
                shape = (0,)
            elif ex.out == "dtype":
                dtype = "float64" if dtype != "float64" else "int32"
            out = lib.zeros(shape, dtype=getattr(lib, dtype))
        result = _call(lib, ex, x, out)
    # torch warns about complex-to-real casts once per process (TORCH_WARN_ONCE), so that
    # warning is left out of the comparison.
    messages = tuple(
        str(w.message).partition(" (Triggered")[0]
        for w in caught
        if issubclass(w.category, UserWarning)
        and "discards the imaginary part" not in str(w.message)
    )
    return result, out, messages, result is out


def _outcome(lib: Any, ex: Example) -> tuple[Any, BaseException | None]:
    try:
        return _run(lib, ex), None
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return None, error


def _same_tensor(expected: Any, actual: Any) -> None:
    assert repr(actual.dtype).removeprefix("refimpl.") == str(expected.dtype).removeprefix("torch.")
    assert tuple(actual.shape) == tuple(expected.shape)
    assert tuple(actual.stride()) == tuple(expected.stride())
    got = torch.tensor(actual.tolist(), dtype=expected.dtype).reshape(expected.shape)
    loose = expected.dtype in (torch.float16, torch.bfloat16)
    torch.testing.assert_close(
        got, expected, equal_nan=True, rtol=1e-2 if loose else 1e-5, atol=1e-2 if loose else 1e-5
    )


@SETTINGS
@given(ex=examples())
def test_reduction_matches_torch(ex: Example) -> None:
    expected, expected_error = _outcome(torch, ex)
    actual, actual_error = _outcome(refimpl, ex)
    if expected_error is not None:
        assert actual_error is not None, f"torch raised {expected_error!r}, refimpl did not"
        assert (type(actual_error), str(actual_error)) == (
            type(expected_error),
            str(expected_error),
        )
        return
    if actual_error is not None:
        raise actual_error
    result, out, messages, is_out = actual
    assert messages == expected[2]
    assert is_out == expected[3]
    _same_tensor(expected[0], result)
    if out is not None:
        _same_tensor(expected[1], out)
