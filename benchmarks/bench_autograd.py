"""A training step through autograd: refimpl against torch eager, in one run.

Run: `python benchmarks/bench_autograd.py`. The target (issue 12): forward + backward + SGD
step of a 3-layer MLP on a 64x512 batch (addmm, relu, a cross-entropy written from
logsumexp and gather) at most 2x torch eager. The step is the same code for both libraries
(`T` is torch or refimpl); the two are timed in turns (see bench_dispatch.best_us).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from bench_dispatch import best_us

import refimpl

BATCH, WIDTH, CLASSES = 64, 512, 10


def make(T: Any, seed: int = 0) -> tuple[list[Any], Any, Any]:
    """Parameters, a batch and its labels, the same values for both libraries."""
    rng = np.random.default_rng(seed)
    shapes = [(WIDTH, WIDTH), (WIDTH,), (WIDTH, WIDTH), (WIDTH,), (WIDTH, CLASSES), (CLASSES,)]
    params = [
        T.tensor((rng.standard_normal(shape) * 0.05).astype(np.float32), requires_grad=True)
        for shape in shapes
    ]
    x = T.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    labels = T.tensor(rng.integers(0, CLASSES, BATCH))
    return params, x, labels


def step(T: Any, params: list[Any], x: Any, labels: Any, lr: float = 0.01) -> Any:
    """One SGD step; the loss before it."""
    w1, b1, w2, b2, w3, b3 = params
    h = T.addmm(b1, x, w1).clamp_min(0)
    h = T.addmm(b2, h, w2).clamp_min(0)
    logits = T.addmm(b3, h, w3)
    picked = logits.gather(1, labels.unsqueeze(1)).squeeze(1)
    loss = (logits.logsumexp(1) - picked).mean()
    loss.backward()
    with T.no_grad():
        for p in params:
            p.sub_(p.grad, alpha=lr)
            p.grad = None
    return loss


def main() -> None:
    ours, theirs = make(refimpl), make(torch)
    losses = [step(refimpl, *ours).detach().item(), step(torch, *theirs).detach().item()]
    if abs(losses[0] - losses[1]) > 1e-4 * max(1.0, abs(losses[1])):
        raise SystemExit(f"the steps differ: refimpl loss {losses[0]}, torch loss {losses[1]}")
    best = best_us(
        {"refimpl": lambda: step(refimpl, *ours), "torch": lambda: step(torch, *theirs)},
        number=20,
        rounds=7,
    )
    print(
        f"MLP {BATCH}x{WIDTH} forward+backward+SGD: refimpl {best['refimpl'] / 1000:.2f} ms, "
        f"torch {best['torch'] / 1000:.2f} ms; ratio {best['refimpl'] / best['torch']:.2f}"
    )


if __name__ == "__main__":
    main()
