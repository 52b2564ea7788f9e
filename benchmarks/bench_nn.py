"""The functional layer: refimpl against torch eager (and the raw NumPy computation where one is
simple to write), forward and forward + backward, in one run.

Run: `OPENBLAS_NUM_THREADS=1 taskset -c 1 python benchmarks/bench_nn.py`. The targets (issue
15): `F.conv2d` (batch 8, 64 -> 64 channels, 32x32, 3x3) and
`F.scaled_dot_product_attention` (8 heads, 256 tokens, 64 dims) at most 1.5x torch eager
forward; `F.layer_norm`, `F.softmax` and `F.cross_entropy` on 64x512 at most 2x; the backward
ratios are reported. Candidates are timed in turns (see bench_dispatch.best_us), so load on
the machine affects all of them alike. torch runs with one thread, as NumPy's BLAS does under
OPENBLAS_NUM_THREADS=1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from bench_dispatch import Bench, _guard, best_us

import refimpl
import refimpl.nn.functional as RF


def _pair(array: np.ndarray, grad: bool = False) -> tuple[Any, Any]:
    ours = refimpl.from_numpy(array.copy())
    theirs = torch.from_numpy(array.copy())
    if grad:
        ours.requires_grad_(True)
        theirs.requires_grad_(True)
    return ours, theirs


def _backward(lib: Any, forward: Callable[[], Any]) -> Bench:
    def run() -> Any:
        out = forward()
        out.sum().backward()
        return out

    return run


def _numpy_attention(q: np.ndarray) -> np.ndarray:
    scores = q @ np.swapaxes(q, -1, -2) * (1.0 / math.sqrt(q.shape[-1]))
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    return (probs @ q) / probs.sum(-1, keepdims=True)


# The raw NumPy computations of the 64x512 rows (float32 throughout), the floor refimpl's
# kernels stand on: NumPy alone is about 2x torch's fused, vectorised kernels here.
def _numpy_layer_norm(a: np.ndarray) -> np.ndarray:
    mean = a.mean(1, keepdims=True)
    centred = a - mean
    return centred / np.sqrt((centred * centred).mean(1, keepdims=True) + 1e-5)


def _numpy_softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _numpy_cross_entropy(a: np.ndarray, target: np.ndarray) -> np.ndarray:
    shifted = a - a.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    return -np.take_along_axis(log_probs, target[:, None], 1).mean()


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    image = rng.standard_normal((8, 64, 32, 32)).astype(np.float32)
    kernel = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
    qkv = rng.standard_normal((1, 8, 256, 64)).astype(np.float32)
    rows64 = rng.standard_normal((64, 512)).astype(np.float32)
    target = rng.integers(0, 512, 64)
    ri, ti = _pair(image)
    rk, tk = _pair(kernel)
    rq, tq = _pair(qkv)
    rx, tx = _pair(rows64)
    rt, tt = refimpl.from_numpy(target), torch.from_numpy(target)
    gi, gti = _pair(image, grad=True)
    gk, gtk = _pair(kernel, grad=True)
    gq, gtq = _pair(qkv, grad=True)
    gx, gtx = _pair(rows64, grad=True)
    shape = [512]
    # name: (refimpl, raw NumPy or None, torch eager)
    rows: dict[str, tuple[Bench, Bench | None, Bench]] = {
        "conv2d 8x64x32x32 3x3": (
            lambda: RF.conv2d(ri, rk, padding=1), None, lambda: F.conv2d(ti, tk, padding=1)
        ),
        "sdpa 8h 256t 64d": (
            lambda: RF.scaled_dot_product_attention(rq, rq, rq),
            lambda: _numpy_attention(qkv),
            lambda: F.scaled_dot_product_attention(tq, tq, tq),
        ),
        "layer_norm 64x512": (
            lambda: RF.layer_norm(rx, shape),
            lambda: _numpy_layer_norm(rows64),
            lambda: F.layer_norm(tx, shape),
        ),
        "softmax 64x512": (
            lambda: RF.softmax(rx, -1),
            lambda: _numpy_softmax(rows64),
            lambda: F.softmax(tx, -1),
        ),
        "cross_entropy 64x512": (
            lambda: RF.cross_entropy(rx, rt),
            lambda: _numpy_cross_entropy(rows64, target),
            lambda: F.cross_entropy(tx, tt),
        ),
        "conv2d fwd+bwd": (
            _backward(refimpl, lambda: RF.conv2d(gi, gk, padding=1)),
            None,
            _backward(torch, lambda: F.conv2d(gti, gtk, padding=1)),
        ),
        "sdpa fwd+bwd": (
            _backward(refimpl, lambda: RF.scaled_dot_product_attention(gq, gq, gq)),
            None,
            _backward(torch, lambda: F.scaled_dot_product_attention(gtq, gtq, gtq)),
        ),
        "layer_norm fwd+bwd": (
            _backward(refimpl, lambda: RF.layer_norm(gx, shape)),
            None,
            _backward(torch, lambda: F.layer_norm(gtx, shape)),
        ),
        "softmax fwd+bwd": (
            _backward(refimpl, lambda: RF.softmax(gx, -1) * gx),
            None,
            _backward(torch, lambda: F.softmax(gtx, -1) * gtx),
        ),
        "cross_entropy fwd+bwd": (
            _backward(refimpl, lambda: RF.cross_entropy(gx, rt)),
            None,
            _backward(torch, lambda: F.cross_entropy(gtx, tt)),
        ),
    }
    # Calls per timing by row: a few for the millisecond rows (conv2d, sdpa), many for the
    # microsecond ones, whose timings of 3 calls would mostly measure cold caches. Each
    # group's candidates are timed in turns.
    best: dict[str, float] = {}
    for heavy in (True, False):
        candidates: dict[str, Bench] = {}
        for name, (ours, raw, theirs) in rows.items():
            if name.startswith(("conv2d", "sdpa")) != heavy:
                continue
            candidates[f"refimpl {name}"] = _guard(ours)
            if raw is not None:
                candidates[f"numpy {name}"] = raw
            candidates[f"torch {name}"] = theirs
        best.update(best_us(candidates, number=3 if heavy else 200, rounds=5 if heavy else 7))
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
