"""F.conv2d forward and backward: refimpl against torch eager and raw NumPy, in one run.

Run: `OPENBLAS_NUM_THREADS=1 taskset -c 1 python benchmarks/bench_nn_conv.py` (one core, as
torch runs with one thread here). The target (issue 15): F.conv2d with batch 8, 64 -> 64
channels, 32x32, 3x3, padding 1 at most 1.5x torch eager forward; the backward
(aten.convolution_backward, all three gradients) is reported too. The NumPy row is the
textbook im2col + one matmul (a strided window view copied into columns), the way torch's
slow CPU kernel computes; refimpl's kernel sums one matmul per kernel offset instead (see
Note [Convolution as shifted products] in refimpl/ops/_nn_convolution_xp.py). Candidates are
timed in turns (bench_dispatch.best_us), so load on the machine affects all of them alike.
"""

from __future__ import annotations

import numpy as np
import torch
from bench_dispatch import Bench, _guard, best_us
from numpy.lib.stride_tricks import as_strided

import refimpl

N, C, O, H, W, K = 8, 64, 64, 32, 32, 3


def _numpy_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """im2col + matmul: the padded input's 3x3 windows as columns, times the weight."""
    padded = np.zeros((N, C, H + 2, W + 2), dtype=x.dtype)
    padded[:, :, 1:-1, 1:-1] = x
    s = padded.strides
    windows = as_strided(padded, (N, H, W, C, K, K), (s[0], s[2], s[3], s[1], s[2], s[3]))
    columns = windows.reshape(N * H * W, C * K * K)
    y = columns @ w.reshape(O, C * K * K).T + b
    return np.ascontiguousarray(y.reshape(N, H, W, O).transpose(0, 3, 1, 2))


def _numpy_conv2d_backward(
    x: np.ndarray, w: np.ndarray, g: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """col2im of (g @ w) for the input, columns^T @ g for the weight, g summed for the bias."""
    padded = np.zeros((N, C, H + 2, W + 2), dtype=x.dtype)
    padded[:, :, 1:-1, 1:-1] = x
    s = padded.strides
    windows = as_strided(padded, (N, H, W, C, K, K), (s[0], s[2], s[3], s[1], s[2], s[3]))
    columns = windows.reshape(N * H * W, C * K * K)
    g2 = g.transpose(0, 2, 3, 1).reshape(N * H * W, O)
    grad_weight = (g2.T @ columns).reshape(O, C, K, K)
    grad_columns = (g2 @ w.reshape(O, C * K * K)).reshape(N, H, W, C, K, K)
    grad_padded = np.zeros_like(padded)
    for i in range(K):
        for j in range(K):
            grad_padded[:, :, i : i + H, j : j + W] += grad_columns[..., i, j].transpose(0, 3, 1, 2)
    grad_bias = g.sum(axis=(0, 2, 3))
    return np.ascontiguousarray(grad_padded[:, :, 1:-1, 1:-1]), grad_weight, grad_bias


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, C, H, W), dtype=np.float32)
    w = rng.standard_normal((O, C, K, K), dtype=np.float32)
    b = rng.standard_normal(O, dtype=np.float32)
    g = rng.standard_normal((N, O, H, W), dtype=np.float32)
    tx, tw, tb, tg = (torch.from_numpy(a) for a in (x, w, b, g))
    rx, rw, rb, rg = (refimpl.from_numpy(a) for a in (x, w, b, g))

    expected = torch.nn.functional.conv2d(tx, tw, tb, padding=1).numpy()
    for name, got in (
        ("refimpl", refimpl.nn.functional.conv2d(rx, rw, rb, padding=1).numpy()),
        ("numpy", _numpy_conv2d(x, w, b)),
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3, err_msg=name)

    args = ([1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    torch_backward = torch.ops.aten.convolution_backward.default
    refimpl_backward = refimpl.ops.aten.convolution_backward.default
    rows: dict[str, tuple[Bench, Bench, Bench]] = {
        "forward": (
            lambda: refimpl.nn.functional.conv2d(rx, rw, rb, padding=1),
            lambda: torch.nn.functional.conv2d(tx, tw, tb, padding=1),
            lambda: _numpy_conv2d(x, w, b),
        ),
        "backward": (
            lambda: refimpl_backward(rg, rx, rw, [O], *args),
            lambda: torch_backward(tg, tx, tw, [O], *args),
            lambda: _numpy_conv2d_backward(x, w, g),
        ),
    }
    candidates: dict[str, Bench] = {}
    for name, (run_refimpl, run_torch, run_numpy) in rows.items():
        candidates[f"refimpl {name}"] = _guard(run_refimpl)
        candidates[f"torch {name}"] = run_torch
        candidates[f"numpy {name}"] = run_numpy
    best = best_us(candidates, number=3, rounds=7)
    title = f"conv2d {N}x{C}x{H}x{W}, {O}x{C}x{K}x{K}"
    print(
        f"{title:<34}{'refimpl ms':>11}{'torch ms':>10}{'numpy ms':>10}"
        f"{'vs torch':>10}{'vs numpy':>10}"
    )
    for name in rows:
        ours = best[f"refimpl {name}"] / 1e3
        theirs = best[f"torch {name}"] / 1e3
        raw = best[f"numpy {name}"] / 1e3
        print(
            f"{name:<34}{ours:>11.2f}{theirs:>10.2f}{raw:>10.2f}"
            f"{ours / theirs:>10.2f}{ours / raw:>10.2f}"
        )


if __name__ == "__main__":
    main()
