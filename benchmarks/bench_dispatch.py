"""µs per call of a small `add` through refimpl's dispatcher, torch's, and raw NumPy, in one run.

Run: `python benchmarks/bench_dispatch.py`. Absolute times vary between machines and runs;
the ratios are what the design's targets are stated in (design.md: x + y on 8 float32
elements through the whole stack <= 4x torch eager). The candidates are timed in turns,
round after round, and each keeps its best round, so a burst of load on the machine
affects all of them alike.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np
import torch

import refimpl
import refimpl.ops

Bench = Callable[[], object]


def best_us(candidates: dict[str, Bench], number: int = 20_000, rounds: int = 9) -> dict[str, float]:
    """The best round of each candidate, in microseconds per call, timed in turns."""
    for fn in candidates.values():
        fn()
    best = {name: float("inf") for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            seconds = timeit.timeit(fn, number=number)
            best[name] = min(best[name], seconds / number * 1e6)
    return best


def main() -> None:
    tx, ty = torch.ones(8), torch.ones(8)
    rx, ry = refimpl.ones(8), refimpl.ones(8)
    nx, ny = np.ones(8, dtype=np.float32), np.ones(8, dtype=np.float32)
    t_add, r_add = torch.ops.aten.add.Tensor, refimpl.ops.aten.add.Tensor
    t_packet, r_packet = torch.ops.aten.add, refimpl.ops.aten.add
    rows = {
        "aten.add.Tensor(x, y)": (lambda: r_add(rx, ry), lambda: t_add(tx, ty)),
        "aten.add(x, y) (packet)": (lambda: r_packet(rx, ry), lambda: t_packet(tx, ty)),
        "x + y": (lambda: rx + ry, lambda: tx + ty),
    }
    candidates: dict[str, Bench] = {"numpy": lambda: np.add(nx, ny)}
    for name, (ours, theirs) in rows.items():
        candidates[f"refimpl {name}"] = ours
        candidates[f"torch {name}"] = theirs
    best = best_us(candidates)
    numpy_us = best["numpy"]
    print(f"8 float32 elements; raw numpy.add: {numpy_us:.2f} us")
    print(f"{'call':<28}{'refimpl us':>12}{'torch us':>10}{'ratio':>8}{'vs numpy':>10}")
    for name in rows:
        ours, theirs = best[f"refimpl {name}"], best[f"torch {name}"]
        print(f"{name:<28}{ours:>12.2f}{theirs:>10.2f}{ours / theirs:>8.2f}{ours / numpy_us:>10.1f}")


def main_large() -> None:
    """x + y on 10^6 float32 elements: refimpl against the raw array library (target <= 1.05x)."""
    n = 1_000_000
    rx, ry = refimpl.ones(n), refimpl.ones(n)
    tx, ty = torch.ones(n), torch.ones(n)
    nx, ny = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    best = best_us(
        {"refimpl": lambda: rx + ry, "torch": lambda: tx + ty, "numpy": lambda: np.add(nx, ny)},
        number=200,
    )
    print(
        f"10^6 float32 elements, x + y: refimpl {best['refimpl']:.0f} us, torch "
        f"{best['torch']:.0f} us, numpy {best['numpy']:.0f} us; refimpl / numpy = "
        f"{best['refimpl'] / best['numpy']:.3f}"
    )


if __name__ == "__main__":
    main()
    main_large()
