"""Fused multiply-add on the Array API: `a * b + c` rounded once.

The standard has no fma, but torch's CPU kernels are compiled with FMA contraction (GCC
contracts `a * b + c`, and the vectorized kernels call vec::fmadd), so some of them round
once where a plain expression rounds twice: the distribution transforms (see Note [Fused
multiply-add in the transforms] in _distributions_draw.py) and lerp (native/Lerp.h and
LerpKernel.cpp's lerp_vec). These helpers compute the once-rounded result from the standard's
arithmetic alone.

- `fma` (float64): exact. The product's rounding error by Dekker's TwoProduct (Veltkamp
  splitting), the sum's by Knuth's TwoSum, then the errors added to the rounded sum, their
  own sum's error deciding where it lands on a tie of the final rounding (as for lerp's
  weights 1.5 or -0.5, whose products are often ties); a -0 sum keeps its sign.
- `fma_float32` (float32): exact. The product of two float32 is exact in float64; the float64
  sum rounds once more, and its TwoSum error says which way. Casting that sum to float32 is
  the fma's rounding except where the sum lands exactly on a float32 tie while the exact
  result does not: there the float32 neighbour on the error's side is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

Array = Any

BLOCK: Final = 1 << 16  # elements per block in `blockwise`

_SPLITTER: Final = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into 26 + 27 bits


def fma(xp: Any, a: Array, b: Array, c: Array) -> Array:
    """a * b + c rounded once (float64 arrays, broadcast together)."""
    p = a * b
    a_big = a * _SPLITTER
    a_hi = a_big - (a_big - a)
    a_lo = a - a_hi
    b_big = b * _SPLITTER
    b_hi = b_big - (b_big - b)
    b_lo = b - b_hi
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    b_virtual = s - p
    s_err = (p - (s - b_virtual)) + (c - b_virtual)
    # The exact result is s + s_err + p_err; t = s_err + p_err rounds with error t_err.
    t = s_err + p_err
    t_virtual = t - s_err
    t_err = (s_err - (t - t_virtual)) + (p_err - t_virtual)
    # Where t lands on a rounding boundary of s's grid (a multiple of half s's ulp, so that
    # s + 2t is exact) while the exact errors do not, t moves one ulp toward t_err: off the
    # boundary, on the exact result's side. Elsewhere s + t rounds as s + s_err + p_err.
    on_boundary = (t_err != 0) & ((s + 2.0 * t) - s == 2.0 * t)
    if bool(xp.any(on_boundary)):
        infinity = xp.full_like(t, xp.inf)
        t = xp.where(on_boundary, xp.nextafter(t, xp.where(t_err > 0, infinity, -infinity)), t)
    # s - (0 - t), not s + t: the same sum, but -0 stays -0 where the error is zero.
    fused = s - (0.0 - t)
    # Where a term is infinite or NaN the error terms are NaN: the plain result is the fma's.
    return xp.where(xp.isfinite(fused), fused, p + c)


def fma_float32(xp: Any, a: Array, b: Array, c: Array) -> Array:
    """a * b + c rounded once to float32 (float32 arrays, broadcast together)."""
    f64 = xp.float64
    p = xp.astype(a, f64) * xp.astype(b, f64)  # exact: 24 + 24 bits
    c64 = xp.astype(c, f64)
    s = p + c64
    rounded = xp.astype(s, xp.float32)
    # TwoSum's error of s (NaN where a term is not finite; then s is the fma's result).
    virtual = s - p
    err = (p - (s - virtual)) + (c64 - virtual)
    inexact = err != 0  # False for NaN
    if not bool(xp.any(inexact)):
        return rounded
    # The few inexact sums: is s on a float32 tie, halfway between `rounded` and its
    # neighbour on s's side, while the exact result lies past it on the error's side?
    shape = tuple(s.shape)
    if tuple(inexact.shape) != shape:
        inexact = xp.broadcast_to(inexact, shape)
    s_, err_, rounded_ = s[inexact], err[inexact], rounded[inexact]
    back = xp.astype(rounded_, f64)
    infinity = xp.full_like(rounded_, xp.inf)
    other = xp.nextafter(rounded_, xp.where(s_ > back, infinity, -infinity))
    other64 = xp.astype(other, f64)
    tie = ((back + other64) * 0.5 == s_) & (back != s_)
    use_other = tie & ((other64 - s_) * err_ > 0)
    if not bool(xp.any(use_other)):
        return rounded
    result = xp.asarray(rounded, copy=True)
    result[inexact] = xp.where(use_other, other, rounded_)
    return result


def blockwise(xp: Any, fn: Callable[..., Array], *arrays: Array) -> Array:
    """`fn(xp, *arrays)` computed on blocks of BLOCK elements of the broadcast, flattened
    arrays, then put back together: an elementwise function with many temporaries (the
    exact fmas) then keeps them in cache (measured: lerp on 10^6 float32 2.5x faster)."""
    if len(arrays) > 1:
        shape = tuple(xp.broadcast_arrays(*arrays)[0].shape)
    else:
        shape = tuple(arrays[0].shape)
    size = 1
    for extent in shape:
        size *= extent
    if size <= BLOCK:
        return fn(xp, *arrays)
    flat = [
        xp.reshape(a if tuple(a.shape) == shape else xp.broadcast_to(a, shape), (-1,))
        for a in arrays
    ]
    blocks = [
        fn(xp, *(a[i : min(i + BLOCK, size)] for a in flat)) for i in range(0, size, BLOCK)
    ]
    return xp.reshape(xp.concat(blocks), shape)
