"""µs per call of a small `add` through refimpl's dispatcher, torch's, and raw NumPy, in one run.

Run: `python benchmarks/bench_dispatch.py`. Absolute times vary between machines and runs;
the ratios are what the design's targets are stated in (design.md: x + y on 8 float32
elements through the whole stack <= 4x torch eager).
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np
import torch

import refimpl
import refimpl.ops


def best_us(fn: Callable[[], object], number: int = 20_000, repeat: int = 7) -> float:
    """The best of `repeat` timings, in microseconds per call."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    tx, ty = torch.ones(8), torch.ones(8)
    rx, ry = refimpl.ones(8), refimpl.ones(8)
    nx, ny = np.ones(8, dtype=np.float32), np.ones(8, dtype=np.float32)
    t_add, r_add = torch.ops.aten.add.Tensor, refimpl.ops.aten.add.Tensor
    t_packet, r_packet = torch.ops.aten.add, refimpl.ops.aten.add

    rows = [
        ("aten.add.Tensor(x, y)", best_us(lambda: r_add(rx, ry)), best_us(lambda: t_add(tx, ty))),
        ("aten.add(x, y) (packet)", best_us(lambda: r_packet(rx, ry)), best_us(lambda: t_packet(tx, ty))),
        ("x + y", best_us(lambda: rx + ry), best_us(lambda: tx + ty)),
    ]
    numpy_us = best_us(lambda: np.add(nx, ny))
    print(f"8 float32 elements; raw numpy.add: {numpy_us:.2f} us")
    print(f"{'call':<28}{'refimpl us':>12}{'torch us':>10}{'ratio':>8}{'vs numpy':>10}")
    for name, ours, theirs in rows:
        print(f"{name:<28}{ours:>12.2f}{theirs:>10.2f}{ours / theirs:>8.2f}{ours / numpy_us:>10.1f}")


if __name__ == "__main__":
    main()
