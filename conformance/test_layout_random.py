"""Random output layouts of elementwise ops against torch (hypothesis): TensorIterator's rules.

Each example draws an op of one TensorIterator builder (add with alpha, mul, div, eq, exp, neg,
where, clamp, addcmul, abs of complex), a broadcast shape, and operands of that shape or a
broadcastable one, each laid out at random: permuted, expanded (stride 0), sliced with steps,
channels-last (4-d) or channels-last-3d (5-d), 0-dim, size-1 and empty dims. The same view ops
build the operands in torch and refimpl. The op then runs functional, in place (on the first
operand) or with `out=` (an out of the right shape laid out at random, of a wrong shape:
resized with torch's warning, or empty). The result's shape, strides, storage offset, dtype and
values must match torch's, as must warnings, errors (type and message), the identity of the
returned tensor and the whole base tensor written in place or through `out=`.

`REFIMPL_HYPOTHESIS_EXAMPLES=3000 python -m pytest conformance/test_layout_random.py` searches
wider (not derandomized).
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import torch
from hypothesis import HealthCheck, given, settings

import refimpl

_LOCAL = os.environ.get("REFIMPL_HYPOTHESIS_EXAMPLES")
SETTINGS = settings(
    derandomize=_LOCAL is None, max_examples=int(_LOCAL or 150), deadline=None,
    suppress_health_check=list(HealthCheck),
)

_CPU_DTYPES = {d.name for d in refimpl.config.backends.resolve("cpu").array_dtypes}
ALL_DTYPES = [
    name for name in (
        "bool", "uint8", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64", "complex64", "complex128",
    )
    # array_api_strict has no float16.
    if name in _CPU_DTYPES
]
NUMERIC = [d for d in ALL_DTYPES if d != "bool"]
COMPLEX = [d for d in ALL_DTYPES if d.startswith("complex")]
REAL = [d for d in ALL_DTYPES if not d.startswith("complex")]


# --- operands with random layouts ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """How to build one tensor of a target shape: a contiguous base, then view ops.

    `base` is built contiguous (or channels-last when `memory_format` is set), permuted by
    `perm`'s inverse, sliced with `steps` (one per dim), then expanded to `shape`.
    """

    dtype: str
    shape: tuple[int, ...]
    base: tuple[int, ...]
    memory_format: str | None
    perm: tuple[int, ...]
    steps: tuple[int, ...]
    expand: bool
    seed: int


@st.composite
def layouts(draw: st.DrawFn, shape: tuple[int, ...], dtypes: list[str]) -> Layout:
    """A tensor of `shape` with a random layout."""
    ndim = len(shape)
    dtype = draw(st.sampled_from(dtypes))
    # Dims of size > 1 may come from a size-1 dim expanded (stride 0).
    expand = ndim > 0 and draw(st.integers(0, 3)) == 0
    pre = [1 if expand and n > 1 and draw(st.booleans()) else n for n in shape]
    steps = tuple(draw(st.sampled_from([1, 1, 2, 3])) if n > 1 else 1 for n in pre)
    # A stepped dim: the base has n*step - r elements along it (r < step).
    sliced = [n * s - draw(st.integers(0, s - 1)) if s > 1 else n for n, s in zip(pre, steps)]
    perm = tuple(draw(st.permutations(range(ndim)))) if ndim else ()
    base = tuple(sliced[p] for p in perm)
    memory_format = None
    if ndim in (4, 5) and draw(st.booleans()):
        memory_format = "channels_last" if ndim == 4 else "channels_last_3d"
    return Layout(dtype, shape, base, memory_format, perm, steps, expand,
                  draw(st.integers(0, 2**16)))


def _values(layout: Layout) -> torch.Tensor:
    """Deterministic values for the base: small integers (so comparisons meet equal values),
    with inf, nan and -0.0 among floating ones."""
    gen = torch.Generator().manual_seed(layout.seed)
    n = math.prod(layout.base)
    dtype = getattr(torch, layout.dtype)
    if layout.dtype == "bool":
        return torch.randint(0, 2, (n,), generator=gen).to(torch.bool)
    low = 0 if layout.dtype == "uint8" else -4
    ints = torch.randint(low, 5, (n,), generator=gen)
    if layout.dtype.startswith("complex"):
        imag = torch.randint(-3, 4, (n,), generator=gen)
        return torch.complex(ints.double(), imag.double()).to(dtype)
    if layout.dtype.startswith("float"):
        values = ints.double()
        special = torch.randint(0, 12, (n,), generator=gen)
        values[special == 0] = math.inf
        values[special == 1] = math.nan
        values[special == 2] = -0.0
        values[special == 3] = -math.inf
        values[special == 4] = 0.5
        return values.to(dtype)
    return ints.to(dtype)


def build(lib: Any, layout: Layout) -> tuple[Any, Any]:
    """(view, base) for `layout` in `lib` (torch or refimpl)."""
    flat = _values(layout)
    dtype = getattr(lib, layout.dtype)
    base = lib.tensor(flat.tolist(), dtype=dtype).reshape(layout.base)
    if layout.memory_format is not None:
        base = base.contiguous(memory_format=getattr(lib, layout.memory_format))
    inverse = [0] * len(layout.perm)
    for i, p in enumerate(layout.perm):
        inverse[p] = i
    view = base.permute(*inverse) if layout.perm else base
    if any(s > 1 for s in layout.steps):
        view = view[tuple(slice(None, None, s) for s in layout.steps)]
    if layout.expand:
        view = view.expand(*layout.shape)
    return view, base


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, ...]:
    """A broadcast shape: 0 to 5 dims of sizes 0 to 3 (mostly non-empty)."""
    ndim = draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4, 4, 5]))
    sizes = st.sampled_from([1, 2, 3, 2, 3, 1, 0])
    return tuple(draw(st.lists(sizes, min_size=ndim, max_size=ndim)))


@st.composite
def operand_shape(draw: st.DrawFn, full: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to `full`: a suffix of it, some dims 1."""
    lead = draw(st.integers(0, len(full))) if draw(st.booleans()) else 0
    return tuple(1 if n != 1 and draw(st.integers(0, 3)) == 0 else n for n in full[lead:])


# --- ops -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpSpec:
    """One op: how many tensor operands, their dtypes, and how to call it."""

    name: str
    arity: int
    dtypes: tuple[list[str], ...]


OPS = {
    # BINARY_OP (alpha), BINARY_OP, BINARY_FLOAT_OP, COMPARISON_OP
    "add": OpSpec("add", 2, (NUMERIC, NUMERIC)),
    "mul": OpSpec("mul", 2, (ALL_DTYPES, ALL_DTYPES)),
    "div": OpSpec("div", 2, (NUMERIC, NUMERIC)),
    "eq": OpSpec("eq", 2, (ALL_DTYPES, ALL_DTYPES)),
    # UNARY_FLOAT_OP, UNARY_OP, TO_REAL
    "exp": OpSpec("exp", 1, (NUMERIC,)),
    "neg": OpSpec("neg", 1, (NUMERIC,)),
    "abs": OpSpec("abs", 1, (COMPLEX,)),
    # TERNARY_OP: where (a bool condition), clamp (tensor bounds), addcmul (value)
    "where": OpSpec("where", 3, (["bool"], NUMERIC, NUMERIC)),
    "clamp": OpSpec("clamp", 3, (REAL[1:], REAL[1:], REAL[1:])),
    "addcmul": OpSpec("addcmul", 3, (NUMERIC, NUMERIC, NUMERIC)),
}


def call(lib: Any, name: str, operands: list[Any], form: str, extra: dict[str, Any],
         out: Any) -> Any:
    """The op in `lib`: functional, in-place (method `name_` on the first operand) or out=."""
    kwargs = dict(extra)
    if form == "out":
        kwargs["out"] = out
    if name == "where":
        cond, a, b = operands
        if form == "inplace":
            # torch has no where_; Tensor.where is not in place either. Use the functional.
            return lib.where(cond, a, b)
        return lib.where(cond, a, b, **kwargs)
    if name == "clamp":
        x, low, high = operands
        kwargs.update(min=low, max=high)
        operands = [x]
    if form == "inplace":
        first, *rest = operands
        return getattr(first, name + "_")(*rest, **kwargs)
    return getattr(lib, name)(*operands, **kwargs)


@dataclass(frozen=True, slots=True)
class Case:
    op: str
    operands: tuple[Layout, ...]
    form: str  # "functional", "inplace", "out"
    out: Layout | None  # out= laid out at random (any shape), or None
    out_dtype: str | None  # None: the functional result's dtype
    extra: tuple[tuple[str, Any], ...]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    name = draw(st.sampled_from(sorted(OPS)))
    spec = OPS[name]
    full = draw(shapes())
    form = draw(st.sampled_from(["functional", "inplace", "out"]))
    operands = []
    for i, dtypes in enumerate(spec.dtypes):
        # In place: the first operand usually has the full shape (else torch's error).
        same = form == "inplace" and i == 0 and draw(st.integers(0, 5)) > 0
        shape = full if same else draw(operand_shape(full))
        operands.append(draw(layouts(shape, dtypes)))
    if draw(st.booleans()) and spec.arity > 1:
        # Often one dtype for all, so results are not all promoted to the widest.
        first = operands[1 if name == "where" else 0].dtype
        operands = [
            o if (name == "where" and i == 0) else _with_dtype(o, first)
            for i, o in enumerate(operands)
        ]
    out = None
    out_dtype = None
    if form == "out":
        kind = draw(st.sampled_from(["right", "right", "wrong", "empty"]))
        if kind == "right":
            out_shape = full
        elif kind == "empty":
            out_shape = (0,)
        else:
            out_shape = draw(shapes())
        out = draw(layouts(out_shape, ALL_DTYPES))
        # The out's values are drawn in a dtype; the dtype used is the result's, or another.
        out_dtype = draw(st.sampled_from([None, None, None, *ALL_DTYPES]))
        if out.expand and kind == "right" and draw(st.booleans()):
            out = _with(out, expand=False)
    extra: list[tuple[str, Any]] = []
    if name == "add":
        extra.append(("alpha", draw(st.sampled_from([1, 2, -1, 0.5, True]))))
    if name == "addcmul":
        extra.append(("value", draw(st.sampled_from([1, 2, -1, 0.5]))))
    return Case(name, tuple(operands), form, out, out_dtype, tuple(extra))


def _with_dtype(layout: Layout, dtype: str) -> Layout:
    return _with(layout, dtype=dtype)


def _with(layout: Layout, **changes: Any) -> Layout:
    fields = {f: getattr(layout, f) for f in Layout.__slots__}
    fields.update(changes)
    return Layout(**fields)


# --- running both libraries ----------------------------------------------------------------

_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.DOTALL)


@dataclass(slots=True)
class Outcome:
    result: Any
    error: BaseException | None
    warnings: list[str]
    bases: list[Any]  # the bases of the operands and of out, after the call
    same_object: bool | None  # in place / out=: the returned tensor is self / out


def run(lib: Any, case: Case) -> Outcome:
    built = [build(lib, layout) for layout in case.operands]
    operands = [v for v, _ in built]
    bases = [b for _, b in built]
    out = None
    if case.out is not None:
        layout = case.out
        if case.out_dtype is not None:
            layout = _with_dtype(layout, case.out_dtype)
        out, out_base = build(lib, layout)
        bases.append(out_base)
    if case.out is not None and case.out_dtype is None:
        # out= of the functional result's dtype.
        try:
            dtype = call(lib, case.op, operands, "functional", dict(case.extra), None).dtype
        except Exception:  # noqa: BLE001 - the out= call below shows the same error
            dtype = out.dtype
        if out.dtype != dtype:
            out_view, out_base = build(lib, _with_dtype(case.out, str(dtype).split(".")[-1]))
            out, bases[-1] = out_view, out_base
    target = out if case.form == "out" else operands[0] if case.form == "inplace" else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(lib, case.op, operands, case.form, dict(case.extra), out)
            error = None
        except Exception as exc:  # noqa: BLE001 - compared with torch's
            result, error = None, exc
    # torch's C++ warnings end with " (Triggered internally at <file>:<line>.)".
    # "Casting complex values to real discards the imaginary part" is TORCH_WARN_ONCE: torch
    # gives it once per process, so it is not compared.
    texts = [
        _TRIGGERED.sub("", str(w.message)) for w in caught
        if issubclass(w.category, UserWarning) and "discards the imaginary" not in str(w.message)
    ]
    same = None if target is None or result is None else result is target
    if case.op == "where" and case.form == "inplace":
        same = None
    return Outcome(result, error, texts, bases, same)


def _dtype_name(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


def _as_torch(t: Any, dtype: torch.dtype) -> torch.Tensor:
    return torch.tensor(t.tolist(), dtype=dtype).reshape(tuple(t.shape))


def check(case: Case) -> None:
    expected = run(torch, case)
    actual = run(refimpl, case)
    if expected.error is not None:
        assert actual.error is not None, f"torch raised {expected.error!r}; refimpl did not"
        assert (type(actual.error), str(actual.error)) == (
            type(expected.error), str(expected.error)
        )
        return
    if actual.error is not None:
        raise actual.error
    assert actual.warnings == expected.warnings
    want, got = expected.result, actual.result
    assert _dtype_name(got.dtype) == _dtype_name(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride()), (
        f"strides {tuple(got.stride())} != torch's {tuple(want.stride())}"
    )
    assert got.storage_offset() == want.storage_offset()
    assert actual.same_object == expected.same_object
    torch.testing.assert_close(_as_torch(got, want.dtype), want, equal_nan=True)
    for base_r, base_t in zip(actual.bases, expected.bases, strict=True):
        # Whatever was written in place or through out= reached the same base elements.
        assert tuple(base_r.shape) == tuple(base_t.shape)
        torch.testing.assert_close(_as_torch(base_r, base_t.dtype), base_t, equal_nan=True)


@given(cases())
@SETTINGS
def test_random_output_layout_matches_torch(case: Case) -> None:
    check(case)


# --- fixed cases the search found or that must stay covered --------------------------------


def _fixed(op: str, *shapes_: tuple[tuple[int, ...], tuple[int, ...]], form: str = "functional",
           out: Layout | None = None, extra: tuple[tuple[str, Any], ...] = ()) -> Case:
    layouts_ = tuple(
        Layout(dtype, shape, tuple(shape[p] for p in perm), None, perm, (1,) * len(shape),
               False, 7)
        for (shape, perm), dtype in zip(shapes_, ["float32"] * 3, strict=False)
    )
    return Case(op, layouts_, form, out, None, extra)


def test_transposed_operands_give_transposed_result() -> None:
    check(_fixed("add", ((2, 3), (1, 0)), ((2, 3), (1, 0)), extra=(("alpha", 2),)))


def test_broadcast_of_ranks_follows_dimensioned_operand() -> None:
    check(_fixed("mul", ((2, 3, 4), (2, 0, 1)), ((4,), (0,))))
