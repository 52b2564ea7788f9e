"""Random chains of view ops against torch (hypothesis): geometry, values, writes through views.

Each example draws a base shape and a chain of up to five view ops with valid arguments; the
same chain runs in torch and refimpl, and the view's size, stride, storage offset,
contiguity and values must match, as must the base after a write through the view.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import torch
from hypothesis import HealthCheck, given, settings

import refimpl

settings.register_profile(
    "ci", derandomize=True, max_examples=150, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")

Step = tuple[str, tuple[Any, ...]]


@st.composite
def view_chain(draw: st.DrawFn) -> tuple[tuple[int, ...], list[Step]]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    current = list(shape)
    steps: list[Step] = []
    for _ in range(draw(st.integers(1, 5))):
        ndim = len(current)
        choices = ["unsqueeze", "expand_like"]
        if ndim >= 1:
            # torch: `x.permute()` with no dims is a TypeError even for a 0-dim tensor.
            choices += ["select", "slice", "narrow", "transpose", "unfold", "permute"]
        if ndim >= 2:
            choices += ["diagonal"]
        if any(n == 1 for n in current):
            choices += ["squeeze"]
        op = draw(st.sampled_from(choices))
        if op == "select" and ndim >= 1:
            d = draw(st.integers(0, ndim - 1))
            i = draw(st.integers(-current[d], current[d] - 1))
            steps.append(("select", (d, i)))
            current.pop(d)
        elif op == "slice":
            d = draw(st.integers(0, ndim - 1))
            start = draw(st.integers(-current[d], current[d]))
            step = draw(st.integers(1, 3))
            steps.append(("slice", (d, start, step)))
            begin = start + current[d] if start < 0 else start
            current[d] = max(0, (current[d] - begin + step - 1) // step)
        elif op == "narrow":
            d = draw(st.integers(0, ndim - 1))
            start = draw(st.integers(0, current[d]))
            length = draw(st.integers(0, current[d] - start))
            steps.append(("narrow", (d, start, length)))
            current[d] = length
        elif op == "transpose":
            a, b = draw(st.integers(0, ndim - 1)), draw(st.integers(0, ndim - 1))
            steps.append(("transpose", (a, b)))
            current[a], current[b] = current[b], current[a]
        elif op == "permute":
            order = draw(st.permutations(list(range(ndim))))
            steps.append(("permute", tuple(order)))
            current = [current[i] for i in order]
        elif op == "unsqueeze":
            d = draw(st.integers(0, ndim))
            steps.append(("unsqueeze", (d,)))
            current.insert(d, 1)
        elif op == "squeeze":
            d = draw(st.sampled_from([i for i, n in enumerate(current) if n == 1]))
            steps.append(("squeeze", (d,)))
            current.pop(d)
        elif op == "diagonal":
            a, b = draw(st.sampled_from([(i, j) for i in range(ndim) for j in range(ndim) if i != j]))
            offset = draw(st.integers(-2, 2))
            steps.append(("diagonal", (offset, a, b)))
            length = max(0, min(current[a], current[b] - offset) if offset >= 0 else min(current[a] + offset, current[b]))
            current = [n for i, n in enumerate(current) if i not in (a, b)] + [length]
        elif op == "unfold":
            d = draw(st.integers(0, ndim - 1))
            size = draw(st.integers(0, current[d]))
            step = draw(st.integers(1, 2))
            steps.append(("unfold", (d, size, step)))
            current[d] = (current[d] - size) // step + 1
            current.append(size)
        elif op == "expand_like":
            # Expand a size-1 dim (if any) to 3, or add a leading dim of 2.
            target = [3 if n == 1 else n for n in current]
            if target == current:
                target = [2, *current]
            steps.append(("expand", tuple(target)))
            current = target
    return shape, steps


def _apply(t: Any, steps: list[Step]) -> Any:
    for name, args in steps:
        if name == "slice":
            d, start, step = args
            index = [slice(None)] * t.dim()
            index[d] = slice(start, None, step)
            t = t[tuple(index)]
        else:
            t = getattr(t, name)(*args)
    return t


def _geometry(base: Any, view: Any) -> tuple[object, ...]:
    offset_bytes = view.data_ptr() - base.data_ptr() if view.numel() else None
    return (
        tuple(view.shape), tuple(view.stride()), view.storage_offset(), view.is_contiguous(),
        offset_bytes, view.tolist(),
    )


@given(view_chain())
def test_random_view_chain_matches_torch(case: tuple[tuple[int, ...], list[Step]]) -> None:
    shape, steps = case
    n = 1
    for s in shape:
        n *= s
    tb = torch.arange(float(n)).reshape(shape).clone()
    rb = refimpl.arange(float(n)).reshape(shape).clone()
    tv, rv = _apply(tb, steps), _apply(rb, steps)
    assert _geometry(rb, rv) == _geometry(tb, tv)
    # A write through the view (fill_ allows overlapping, expanded views) reaches the base.
    tv.fill_(-1.0)
    rv.fill_(-1.0)
    assert rb.tolist() == tb.tolist()
    assert rb._version == tb._version
