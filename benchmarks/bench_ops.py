"""Reductions, indexing, joins and matmul: refimpl against torch eager (small inputs) and against
NumPy (large inputs), in one run.

Run: `python benchmarks/bench_ops.py`. The targets (issue 11): on small inputs `x.sum()`,
`x.sum(1)`, `x[idx]`, `x[mask]`, `torch.cat([x, y])` and `a @ b` at most 3x torch eager;
on 1000x1000, sum, matmul and `x[mask]` at most 1.05x NumPy. Candidates are timed in turns
(see bench_dispatch.best_us), so load on the machine affects all of them alike.
"""

from __future__ import annotations

import numpy as np
import torch
from bench_dispatch import Bench, _guard, best_us

import refimpl


def main_small() -> None:
    """Small inputs, refimpl against torch eager."""
    tx, rx = torch.ones(2, 4), refimpl.ones(2, 4)
    ty, ry = torch.ones(2, 4), refimpl.ones(2, 4)
    tidx, ridx = torch.tensor([0, 1, 1]), refimpl.tensor([0, 1, 1])
    tmask = torch.tensor([[True, False, True, False]] * 2)
    rmask = refimpl.tensor([[True, False, True, False]] * 2)
    ta, ra = torch.ones(8, 8), refimpl.ones(8, 8)
    rows: dict[str, tuple[Bench, Bench]] = {
        "x.sum()": (lambda: rx.sum(), lambda: tx.sum()),
        "x.sum(1)": (lambda: rx.sum(1), lambda: tx.sum(1)),
        "x[idx]": (lambda: rx[ridx], lambda: tx[tidx]),
        "x[mask]": (lambda: rx[rmask], lambda: tx[tmask]),
        "cat([x, y])": (lambda: refimpl.cat([rx, ry]), lambda: torch.cat([tx, ty])),
        "a @ b (8x8)": (lambda: ra @ ra, lambda: ta @ ta),
    }
    candidates: dict[str, Bench] = {}
    for name, (ours, theirs) in rows.items():
        candidates[f"refimpl {name}"] = _guard(ours)
        candidates[f"torch {name}"] = theirs
    best = best_us(candidates, number=5_000, rounds=7)
    print(f"{'small inputs':<28}{'refimpl us':>12}{'torch us':>10}{'ratio':>8}")
    for name in rows:
        ours, theirs = best[f"refimpl {name}"], best[f"torch {name}"]
        print(f"{name:<28}{ours:>12.2f}{theirs:>10.2f}{ours / theirs:>8.2f}")


def main_large() -> None:
    """1000x1000 float32 (and 256x256 matmul), refimpl against NumPy."""
    rng = np.random.default_rng(0)
    n = rng.standard_normal((1000, 1000), dtype=np.float32)
    m = rng.standard_normal((256, 256), dtype=np.float32)
    mask = n > 0
    r, rm, rmask = refimpl.from_numpy(n), refimpl.from_numpy(m), refimpl.from_numpy(mask)
    rows: dict[str, tuple[Bench, Bench]] = {
        "sum": (lambda: r.sum(), lambda: np.sum(n)),
        "matmul 256x256": (lambda: rm @ rm, lambda: np.matmul(m, m)),
        "matmul 1000x1000": (lambda: r @ r, lambda: np.matmul(n, n)),
        "x[mask]": (lambda: r[rmask], lambda: n[mask]),
    }
    candidates: dict[str, Bench] = {}
    for name, (ours, theirs) in rows.items():
        candidates[f"refimpl {name}"] = _guard(ours)
        candidates[f"numpy {name}"] = theirs
    best = best_us(candidates, number=20, rounds=7)
    print(f"{'1000x1000 float32':<28}{'refimpl us':>12}{'numpy us':>10}{'ratio':>8}")
    for name in rows:
        ours, theirs = best[f"refimpl {name}"], best[f"numpy {name}"]
        print(f"{name:<28}{ours:>12.1f}{theirs:>10.1f}{ours / theirs:>8.3f}")


if __name__ == "__main__":
    main_small()
    main_large()
