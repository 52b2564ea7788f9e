"""multinomial as an aten op: indices drawn from the rows of a probability tensor, with and without replacement.

Torch: multinomial / multinomial_out in aten/src/ATen/native/Distributions.cpp and
multinomial_with_replacement_apply in native/cpu/MultinomialKernel.cpp.

Without replacement (and for one sample with replacement) torch takes the Gumbel-max trick in
its exponential form: q = empty_like(self).exponential_(1), q = self / q, then argmax (one
sample) or topk (n samples) of q per row; so the draws are one exponential_ per element of
`self`, in its memory order. With replacement, per row in order: the cumulative sums of the
row (in the dtype, float for half), divided by their total, the last set to 1; then per
sample one uniform double and a binary search for the first cumulative value >= it.
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base import dtypes as dt
from refimpl.core import strides as geometry
from refimpl.core.random import Generator
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    empty_tensor,
    resize_for_output,
    write_array,
)
from refimpl.dispatch.overloads import namespace
from refimpl.ops._distributions_draw import backend_of, generator_for, uniform_doubles
from refimpl.ops._reduction import has_data
from refimpl.ops._register import defop
from refimpl.ops.scan import registered

aten: Final = namespace("aten")

# torch: FLOAT32_MAX_CONSECUTIVE_INT (categories are counted in a float index).
_MAX_CATEGORIES: Final = 1 << 24


def _check_arguments(self: TensorImpl) -> None:
    """Torch: the first checks of multinomial_out (then out's dtype, then _check_counts)."""
    if not 1 <= len(self._size) <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self._dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{self._dtype.scalar_name}"
        )


def _check_counts(self: TensorImpl, n_sample: int, replacement: bool) -> None:
    """Torch: multinomial_out's checks of the sample count and the number of categories."""
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self._size[-1]
    if not replacement and n_sample > n_categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if n_categories > _MAX_CATEGORIES:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _result_size(self: TensorImpl, n_sample: int) -> tuple[int, ...]:
    return (n_sample,) if len(self._size) == 1 else (self._size[0], n_sample)


def _multinomial_into(
    self: TensorImpl,
    n_sample: int,
    replacement: bool,
    generator: Generator | None,
    result: TensorImpl,
) -> Any:
    """Fill `result` (already of the result size, int64). Torch: multinomial_out after its
    resize."""
    if geometry.numel(result._size) == 0 or not has_data(self):
        return result
    if not replacement or n_sample == 1:
        return _without_replacement(self, n_sample, generator, result)
    return _with_replacement(self, n_sample, generator, result)


def _without_replacement(
    self: TensorImpl, n_sample: int, generator: Generator | None, result: TensorImpl
) -> Any:
    """Torch: multinomial_out's fast path (the Gumbel-max trick, see the module docstring)."""
    backend = backend_of(self)
    xp = backend.xp
    a = array_of(self)
    if not bool(xp.all(a < xp.inf)) or not bool(xp.all(a >= 0)):
        # torch: (self.max() < INFINITY) & (self.min() >= 0); a NaN fails both.
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = xp.sum(a, axis=-1)
    if bool(xp.any(sums == 0)):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = aten.exponential_.default(aten.empty_like.default(self), 1.0, generator=generator)
    q = aten.div.Tensor(self, q)
    if n_sample == 1:
        chosen = aten.argmax.default(q, -1, True)
    else:
        chosen = aten.topk.default(q, n_sample)[1]
    write_array(result, xp.reshape(array_of(chosen), result._size))
    return result


def _with_replacement(
    self: TensorImpl, n_sample: int, generator: Generator | None, result: TensorImpl
) -> Any:
    """Torch: multinomial_with_replacement_apply (MultinomialKernel.cpp)."""
    backend = backend_of(self)
    xp = backend.xp
    # torch: the half and bfloat16 kernel accumulates in float.
    accumulate = dt.float32 if self._dtype in (dt.float16, dt.bfloat16) else self._dtype
    acc = backend_dtype(backend, accumulate)
    if self._size[-1] == 0:
        # torch: each row's sum is 0.
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = xp.reshape(xp.astype(array_of(self), acc), (-1, self._size[-1]))
    # torch: the checks run per element of each row, in order: `val >= 0` (NaN fails it),
    # then finite, then the row's sum > 0.
    for row in range(rows.shape[0]):
        values = rows[row, :]
        negative = ~(values >= 0)
        infinite = ~xp.isfinite(values)
        if bool(xp.any(negative | infinite)):
            first_negative = _first(xp, negative)
            if first_negative <= _first(xp, infinite):
                raise RuntimeError(
                    "invalid multinomial distribution (encountering probability entry < 0)"
                )
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity "
                "or NaN)"
            )
    cumulative = xp.cumulative_sum(rows, axis=-1)
    totals = cumulative[:, -1:]
    if not bool(xp.all(totals > 0)):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cumulative = cumulative / totals
    f64 = backend_dtype(backend, dt.float64)
    gen = generator_for(self, generator)
    n_dist = rows.shape[0]
    u = xp.reshape(uniform_doubles(gen, backend, n_dist * n_sample), (n_dist, n_sample))
    picked = []
    for row in range(n_dist):
        edges = xp.astype(cumulative[row, :], f64)
        # torch: "make sure the last cumulative distribution bucket sums to 1".
        edges = xp.concat([edges[:-1], xp.ones((1,), dtype=f64)])
        picked.append(xp.searchsorted(edges, u[row, :], side="left"))
    indices = xp.astype(xp.stack(picked), backend_dtype(backend, dt.int64))
    write_array(result, xp.reshape(indices, result._size))
    return result


def _first(xp: Any, mask: Any) -> int:
    """The index of the first True in a 1-D mask (its length if none)."""
    n = int(mask.shape[0])
    if not bool(xp.any(mask)):
        return n
    return int(xp.argmax(xp.astype(mask, xp.int8)))


multinomial = defop(
    "multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None) -> Tensor"
)


@registered(multinomial)
def multinomial_kernel(
    self: TensorImpl, num_samples: int, replacement: bool, *, generator: Generator | None
) -> Any:
    """Torch: multinomial: an empty int64 tensor, then native::multinomial_out into it (a
    direct call, not through the dispatcher)."""
    result = empty_tensor((0,), dt.int64, self._storage.device, self._storage.backend)
    return multinomial_out_kernel(self, num_samples, replacement, generator=generator, out=result)


multinomial_out = defop(
    "multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
)


@registered(multinomial_out)
def multinomial_out_kernel(
    self: TensorImpl,
    num_samples: int,
    replacement: bool,
    *,
    generator: Generator | None,
    out: TensorImpl,
) -> Any:
    """Torch: multinomial_out: its checks, `out` resized (result.resize_, no warning), then
    the draws."""
    if out._storage.device != self._storage.device:
        raise RuntimeError("multinomial arguments must have the same device")
    _check_arguments(self)
    if out._dtype is not dt.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out._dtype.scalar_name}")
    _check_counts(self, num_samples, replacement)
    size = _result_size(self, num_samples)
    if out._size != size:
        resize_for_output(out, size, geometry.contiguous_strides(size))
    return _multinomial_into(self, num_samples, replacement, generator, out)
