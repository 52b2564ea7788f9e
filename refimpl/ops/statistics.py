"""Statistics as aten ops: quantile, nanquantile, cov, corrcoef (CompositeImplicitAutograd).

Torch: aten/src/ATen/native/Sorting.cpp (quantile_checks, quantile_output_shape,
quantile_compute, quantile/nanquantile and their out= and scalar-q forms) and
native/Correlation.cpp (cov, corrcoef). torch decomposes all of them over other aten ops, so
refimpl does too: each block calls the ops torch calls, in its order, and autograd
differentiates through them (torch has no derivative entry for any of these).

Note [Quantiles by sorting]
torch sorts the reduced dimension (NaN last), turns each q into a rank q * (n - 1) computed
in the input's dtype (float32 ranks for float32 input), rounds the rank for the lower, higher
and nearest modes (nearest rounds half to even), gathers the values at floor(rank) and
ceil(rank), and lerps them with weight rank - floor(rank) (0.5 for midpoint), torch's lerp
rounding. A row with a NaN ranks every q at n - 1, where the sorted NaN is. nanquantile ranks
over the count of non-NaN values instead (rank 0 for an all-NaN row, whose result is NaN).
torch calls some of these ops in place (ranks.floor_(), values_below.lerp_(...),
squeeze_/transpose_); refimpl calls the out-of-place forms of those that touch values
(lerp, squeeze, transpose): the same values and the same gradients.
Differs: torch's CPU lerp computes fma(weight or weight - 1, end - start, start or end) in
one rounding; refimpl's lerp rounds the product and the sum apart, so a linear quantile may
differ from torch's in the last bit (float32 and float64); the other four modes are
bit-equal (midpoint's product by 0.5 is exact).
"""

from __future__ import annotations

import warnings
from typing import Any, Final

from refimpl._base.dtypes import Category, DType, float32, float64, int64
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._histogram import format_double
from refimpl.ops._outputs import resize_output
from refimpl.ops._register import defop

aten: Final = namespace("aten")

# torch: QUANTILE_INTERPOLATION_MODE, by the name the Python argument gives.
_INTERPOLATIONS: Final = ("linear", "lower", "higher", "midpoint", "nearest")
# torch: the ranks are exact in double up to 2**24 values a row (quantile_compute).
_MAX_QUANTILE_ROW: Final = 2**24


def _device_type(t: TensorImpl) -> str:
    return t._storage.device.type


def _is_true(t: TensorImpl) -> bool:
    """Whether the 0-dim bool tensor `t` is True. Torch: is_scalar_tensor_true
    (at::equal(t, t.new_ones({}))), so a meta tensor raises equal's error."""
    ones = aten.new_ones.default(t, [])
    return bool(aten.equal.default(t, ones))


# --- quantile, nanquantile ---------------------------------------------------------------------


def _interpolation_mode(interpolation: str) -> str:
    """Torch: get_quantile_interpolation_mode."""
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    return interpolation


def _quantile_checks(self: TensorImpl, q: TensorImpl) -> None:
    """Torch: quantile_checks (Sorting.cpp)."""
    if geometry.numel(self._size) == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if len(q._size) > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self._dtype is not float32 and self._dtype is not float64:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if self._dtype is not q._dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if self._storage.device != q._storage.device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")


def _quantile_output_shape(
    dim: int | None, self: TensorImpl, q: TensorImpl, keepdim: bool, wrapped_dim: int
) -> list[int]:
    """Torch: quantile_output_shape: the reduced shape of `self`, after q's length if q is
    1-D."""
    out_shape: list[int] = []
    if dim is not None and self._size:
        out_shape = list(self._size)
        if keepdim:
            out_shape[wrapped_dim] = 1
        else:
            del out_shape[wrapped_dim]
    elif keepdim:
        out_shape = [1] * len(self._size)
    if q._size:
        out_shape.insert(0, geometry.numel(q._size))
    return out_shape


def _quantile_compute(
    self: TensorImpl,
    q: TensorImpl,
    dim: int | None,
    interpolation: str,
    ignore_nan: bool,
    wrapped_dim: int,
    out_shape: list[int],
) -> Any:
    """The quantiles of `self` at `q`. Torch: quantile_compute; see Note [Quantiles by
    sorting]."""
    if _device_type(self) == "cpu":
        # torch: checked on the CPU only, to spare an accelerator the sync.
        in_range = aten.logical_and.default(aten.ge.Scalar(q, 0), aten.le.Scalar(q, 1))
        if not bool(aten.item.default(aten.all.default(in_range))):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        sorted_ = aten.sort.default(aten.flatten.using_ints(self))[0]
    elif wrapped_dim == len(self._size) - 1:
        sorted_ = aten.sort.default(self)[0]
    else:
        moved = aten.transpose.int(aten.unsqueeze.default(self, -1), wrapped_dim, -1)
        sorted_ = aten.sort.default(moved)[0]
    shape = list(out_shape)
    if not q._size:
        shape.insert(0, geometry.numel(q._size))
    in_shape = shape[1:] + [sorted_._size[-1]]
    sorted_ = aten.view.default(sorted_, in_shape)
    if sorted_._size[-1] > _MAX_QUANTILE_ROW:
        raise RuntimeError("quantile() input tensor is too large")
    if ignore_nan:
        valid = aten.sum.dim_IntList(
            aten.logical_not.default(aten.isnan.default(sorted_)), [-1], True
        )
        ranks = aten.mul.Tensor(q, aten.sub.Scalar(valid, 1))
        ranks = aten.masked_fill.Scalar(ranks, aten.lt.Scalar(ranks, 0), 0)
    else:
        last_index = sorted_._size[-1] - 1
        has_nan = aten.any.dim(aten.isnan.default(sorted_), -1, True)
        scaled, nan_rows = aten.broadcast_tensors.default([aten.mul.Scalar(q, last_index), has_nan])
        ranks = aten.masked_fill.Scalar(scaled, nan_rows, last_index)
    if interpolation == "lower":
        ranks = aten.floor.default(ranks)
    elif interpolation == "higher":
        ranks = aten.ceil.default(ranks)
    elif interpolation == "nearest":
        ranks = aten.round.default(ranks)
    ranks_below = aten._to_copy.default(ranks, dtype=int64)
    values = aten.gather.default(sorted_, -1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = aten.full_like.default(ranks, 0.5)
        else:
            weights = aten.sub.Tensor(ranks, ranks_below)
        ranks_above = aten._to_copy.default(aten.ceil.default(ranks), dtype=int64)
        values_above = aten.gather.default(sorted_, -1, ranks_above)
        values = aten.lerp.Tensor(values, values_above, weights)
    if not q._size:
        return aten.squeeze.dim(values, -1)
    moved = aten.transpose.int(aten.unsqueeze.default(values, 0), 0, -1)
    return aten.squeeze.dim(moved, -1)


def _quantile(
    self: TensorImpl,
    q: TensorImpl,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
    out: TensorImpl | None,
) -> Any:
    """Torch: quantile / nanquantile / their out= forms (Tensor q)."""
    mode = _interpolation_mode(interpolation)
    _quantile_checks(self, q)
    if out is not None:
        if out._dtype is not self._dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        if out._storage.device != self._storage.device:
            raise RuntimeError(
                "quantile() out tensor must be on the same device as the input tensor"
            )
    wrapped_dim = geometry.wrap_dim(0 if dim is None else dim, len(self._size))
    out_shape = _quantile_output_shape(dim, self, q, keepdim, wrapped_dim)
    if out is not None:
        resize_output(out, tuple(out_shape))
    result = _quantile_compute(self, q, dim, mode, ignore_nan, wrapped_dim, out_shape)
    if out is None:
        return result
    return aten.copy_.default(out, result)


def _scalar_q(self: TensorImpl, q: float) -> Any:
    """Torch: the scalar-q forms: q checked, then at::scalar_tensor(q, self.options())."""
    if not (q >= 0 and q <= 1):
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {format_double(q)}")
    return aten.scalar_tensor.default(q, dtype=self._dtype, device=self._storage.device)


def _register_quantiles(name: str, ignore_nan: bool) -> None:
    """The four overloads of quantile or nanquantile."""
    tail = 'int? dim=None, bool keepdim=False, *, str interpolation="linear"'
    tensor_q = defop(f"{name}(Tensor self, Tensor q, {tail}) -> Tensor")
    scalar_q = defop(f"{name}.scalar(Tensor self, float q, {tail}) -> Tensor")
    tensor_out = defop(f"{name}.out(Tensor self, Tensor q, {tail}, Tensor(a!) out) -> Tensor(a!)")
    scalar_out = defop(
        f"{name}.scalar_out(Tensor self, float q, {tail}, Tensor(a!) out) -> Tensor(a!)"
    )

    @tensor_q.decomposition
    def tensor_q_decomposition(
        self: TensorImpl, q: TensorImpl, dim: int | None, keepdim: bool, *, interpolation: str
    ) -> Any:
        return _quantile(self, q, dim, keepdim, interpolation, ignore_nan, None)

    @scalar_q.decomposition
    def scalar_q_decomposition(
        self: TensorImpl, q: float, dim: int | None, keepdim: bool, *, interpolation: str
    ) -> Any:
        q_tensor = _scalar_q(self, q)
        return getattr(aten, name).default(
            self, q_tensor, dim, keepdim, interpolation=interpolation
        )

    @tensor_out.decomposition
    def tensor_out_decomposition(
        self: TensorImpl,
        q: TensorImpl,
        dim: int | None,
        keepdim: bool,
        *,
        interpolation: str,
        out: TensorImpl,
    ) -> Any:
        return _quantile(self, q, dim, keepdim, interpolation, ignore_nan, out)

    @scalar_out.decomposition
    def scalar_out_decomposition(
        self: TensorImpl,
        q: float,
        dim: int | None,
        keepdim: bool,
        *,
        interpolation: str,
        out: TensorImpl,
    ) -> Any:
        q_tensor = _scalar_q(self, q)
        return getattr(aten, name).out(
            self, q_tensor, dim, keepdim, interpolation=interpolation, out=out
        )

    what = "the NaN-ignoring quantiles" if ignore_nan else "the quantiles"
    for fn, torch_name in (
        (tensor_q_decomposition, name),
        (scalar_q_decomposition, f"{name} (double q)"),
        (tensor_out_decomposition, f"{name}_out"),
        (scalar_out_decomposition, f"{name}_out (double q)"),
    ):
        fn.__doc__ = f"{what.capitalize()} of `self` at q. Torch: {torch_name} in Sorting.cpp."


_register_quantiles("quantile", ignore_nan=False)
_register_quantiles("nanquantile", ignore_nan=True)


# --- cov, corrcoef ---------------------------------------------------------------------------


cov = defop(
    "cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor"
)
corrcoef = defop("corrcoef(Tensor self) -> Tensor")

_OBSERVATIONS_DIM: Final = 1


def _scalar_type_name(dtype: DType) -> str:
    # torch: a ScalarType streamed into a message (`Float`, `Long`).
    return dtype.scalar_name


def _check_weights(w: TensorImpl, name: str, num_observations: int, integral: bool) -> None:
    """Torch: cov's checks of fweights (integral) and aweights (floating point)."""
    if len(w._size) > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{len(w._size)} dimensions"
        )
    if integral and w._dtype.category is not Category.INTEGRAL:
        raise RuntimeError(
            f"cov(): expected {name} to have integral dtype but got {name} with "
            f"{_scalar_type_name(w._dtype)} dtype"
        )
    if not integral and not w._dtype.is_floating_point:
        raise RuntimeError(
            f"cov(): expected {name} to have floating point dtype but got {name} with "
            f"{_scalar_type_name(w._dtype)} dtype"
        )
    if geometry.numel(w._size) != num_observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {geometry.numel(w._size)} != {num_observations}"
        )
    if num_observations != 0 and not _is_true(aten.ge.Scalar(aten.min.default(w), 0)):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@cov.decomposition
def cov_decomposition(
    self: TensorImpl,
    *,
    correction: int,
    fweights: TensorImpl | None,
    aweights: TensorImpl | None,
) -> Any:
    """The covariance matrix of the variables in `self`'s rows (observations in columns).

    Torch: cov (Correlation.cpp), including its corner cases: a single observation weighted
    by fweights or aweights alone zeroes `self` itself in place (torch writes through its
    `in` view of the input), and non-positive degrees of freedom warn and divide by zero.
    """
    if len(self._size) > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{len(self._size)} dimensions"
        )
    if self._dtype.name == "bool":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    in_ = aten.view.default(self, [1, -1]) if len(self._size) < 2 else self
    num_observations = in_._size[_OBSERVATIONS_DIM]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", num_observations, integral=True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", num_observations, integral=False)
        w = aten.mul.Tensor(w, aweights) if w is not None else aweights
    if w is not None:
        w_sum = aten.sum.default(w)
    else:
        w_sum = aten.scalar_tensor.default(
            num_observations, dtype=int64, device=in_._storage.device
        )
    if w is not None and not _is_true(aten.ne.Scalar(w_sum, 0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    weighted = aten.mul.Tensor(in_, w) if w is not None else in_
    avg = aten.div.Tensor(aten.sum.dim_IntList(weighted, [_OBSERVATIONS_DIM]), w_sum)
    if w is None:
        norm_factor = aten.scalar_tensor.default(
            num_observations - correction, dtype=int64, device=in_._storage.device
        )
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = aten.sub.Scalar(w_sum, correction)
    elif fweights is None and num_observations == 1 and correction == 1:
        norm_factor = aten.scalar_tensor.default(0, dtype=int64, device=in_._storage.device)
    else:
        spread = aten.sum.default(aten.mul.Tensor(w, aweights))
        norm_factor = aten.sub.Tensor(
            w_sum, aten.div.Tensor(aten.mul.Scalar(spread, correction), w_sum)
        )
    if _is_true(aten.le.Scalar(norm_factor, 0)):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = aten.zero_.default(norm_factor)
    if num_observations == 1 and (fweights is not None) != (aweights is not None):
        aten.zero_.default(in_)
        if in_._dtype.category is Category.INTEGRAL:
            in_ = aten._to_copy.default(in_, dtype=float32)
    else:
        in_ = aten.sub.Tensor(in_, aten.unsqueeze.default(avg, 1))
    other = aten.mul.Tensor(in_, w) if w is not None else in_
    c = aten.mm.default(in_, aten.conj.default(aten.t.default(other)))
    return aten.squeeze.default(aten.true_divide.Tensor(c, norm_factor))


@corrcoef.decomposition
def corrcoef_decomposition(self: TensorImpl) -> Any:
    """The correlation coefficients of `self`'s rows: cov normalized by the standard
    deviations, clipped to [-1, 1] as NumPy clips them.

    Torch: corrcoef (Correlation.cpp); a scalar covariance gives c / c (NaN for 0, inf, NaN).
    """
    if len(self._size) > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{len(self._size)} dimensions"
        )
    c = aten.cov.default(self)
    if not c._size:
        return aten.div.Tensor(c, c)
    d = aten.diagonal.default(c)
    stddev = aten.sqrt.default(aten.real.default(d) if d._dtype.is_complex else d)
    c = aten.div.Tensor(c, aten.view.default(stddev, [-1, 1]))
    c = aten.div.Tensor(c, aten.view.default(stddev, [1, -1]))
    if c._dtype.is_complex:
        return aten.complex.default(
            aten.clip.default(aten.real.default(c), -1, 1),
            aten.clip.default(aten.imag.default(c), -1, 1),
        )
    return aten.clip.default(c, -1, 1)
