"""Sorting, linear algebra, FFT and random numbers: refimpl against the raw NumPy call and
against torch eager, in one run.

Run: `python benchmarks/bench_families.py`. The targets (issue 14): `torch.sort` on 10^6
float32 elements (against argsort and take_along_axis, the raw call giving values and
indices), `torch.linalg.solve` on a 256x256 float64 system and `torch.fft.rfft` on 2^20
float32 at most 1.1x the raw NumPy call; `torch.randn(10**6)` and `torch.rand(10**6)` at most
2x torch eager. Candidates are timed in turns (see bench_dispatch.best_us), so load on the
machine affects all of them alike; torch's column is there for reference.
"""

from __future__ import annotations

import numpy as np
import torch
from bench_dispatch import Bench, _guard, best_us

import refimpl


def main() -> None:
    rng = np.random.default_rng(0)
    values = rng.standard_normal(10**6).astype(np.float32)
    a = rng.standard_normal((256, 256)) + 16 * np.eye(256)
    b = rng.standard_normal(256)
    signal = rng.standard_normal(2**20).astype(np.float32)
    rv, ra, rb, rs = (refimpl.from_numpy(x) for x in (values, a, b, signal))
    tv, ta, tb, ts = (torch.from_numpy(x) for x in (values, a, b, signal))
    # name: (refimpl, raw NumPy or None, torch eager)
    rows: dict[str, tuple[Bench, Bench | None, Bench]] = {
        # torch.sort returns the values and their indices: the raw call doing that is an
        # argsort and a gather; np.sort (values only) is shown beside it.
        "sort 10^6 float32": (
            lambda: refimpl.sort(rv),
            lambda: np.take_along_axis(values, np.argsort(values), -1),
            lambda: torch.sort(tv),
        ),
        "sort vs np.sort": (
            lambda: refimpl.sort(rv), lambda: np.sort(values), lambda: torch.sort(tv)
        ),
        "linalg.solve 256x256": (
            lambda: refimpl.linalg.solve(ra, rb),
            lambda: np.linalg.solve(a, b),
            lambda: torch.linalg.solve(ta, tb),
        ),
        "fft.rfft 2^20 float32": (
            lambda: refimpl.fft.rfft(rs), lambda: np.fft.rfft(signal), lambda: torch.fft.rfft(ts)
        ),
        "randn(10**6)": (lambda: refimpl.randn(10**6), None, lambda: torch.randn(10**6)),
        "rand(10**6)": (lambda: refimpl.rand(10**6), None, lambda: torch.rand(10**6)),
    }
    candidates: dict[str, Bench] = {}
    for name, (ours, raw, theirs) in rows.items():
        candidates[f"refimpl {name}"] = _guard(ours)
        if raw is not None:
            candidates[f"numpy {name}"] = raw
        candidates[f"torch {name}"] = theirs
    best = best_us(candidates, number=5, rounds=7)
    header = f"{'':<24}{'refimpl us':>12}{'numpy us':>10}{'torch us':>10}"
    print(f"{header}{'/numpy':>8}{'/torch':>8}")
    for name, (_, raw, _) in rows.items():
        ours, theirs = best[f"refimpl {name}"], best[f"torch {name}"]
        numpy_us = best[f"numpy {name}"] if raw is not None else float("nan")
        print(
            f"{name:<24}{ours:>12.0f}{numpy_us:>10.0f}{theirs:>10.0f}"
            f"{ours / numpy_us:>8.3f}{ours / theirs:>8.2f}"
        )


if __name__ == "__main__":
    main()
