"""Reductions through moments: var, std, var_mean, std_mean.

Torch: std_var_out and std_var_mean_out in aten/src/ATen/native/ReduceOps.cpp (var/std and
their unbiased/correction overloads). The shared reduction rules are in `_reduction.py`;
logsumexp and the norms are in `reduction_norms.py`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, complex32, complex64, float32, float64
from refimpl._base.promotion import can_cast
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_reduction import std_backward, var_backward, with_mean_backward
from refimpl.ops._derivative import derivative
from refimpl.ops._reduction import (
    Plan,
    Reduction,
    accumulate_dtype,
    axes,
    finish_as,
    has_data,
    implements,
    input_array,
    is_float_or_complex,
    plan,
    reduced_shape,
    reduction_dims,
    reduction_output,
    same_as_out,
    to_real,
)
from refimpl.ops._register import defop

aten: Final = namespace("aten")


def compute_dtype(dtype: DType) -> DType:
    """The dtype a reduction of `dtype` computes in. Torch: acc_type on CPU: float16/bfloat16
    (and complex32) accumulate in float32."""
    return complex64 if dtype is complex32 else accumulate_dtype(dtype)


# --- var, std, var_mean, std_mean ----------------------------------------------------------


def _moments(
    self: TensorImpl, dims: tuple[int, ...], correction: Scalar | None, keepdim: bool, name: str
) -> tuple[Array, Array]:
    """(variance, mean) arrays over `dims`: two passes in the accumulation dtype.

    Torch: std_var_kernel (Welford's algorithm on CPU; the two-pass form is the same value
    within rounding). The divisor is max(n - correction, 0), so n <= correction gives inf or
    nan, with torch's warning.
    """
    xp = self._storage.backend.xp  # type: ignore[union-attr]  # callers check has_data
    # torch: the reduction factor is input numel / output numel (0 for an empty output).
    n = geometry.numel(self._size) // max(geometry.numel(reduced_shape(self._size, dims, False)), 1)
    c = 1 if correction is None else correction.real  # a real Scalar: int, float (or bool)
    if n - c <= 0:
        # torch computes a complex input's variance as that of its real and imaginary parts,
        # warning once for each.
        for _ in range(2 if self._dtype.is_complex else 1):
            # Differs: torch appends "(Triggered internally at ...ReduceOps.cpp...)".
            warnings.warn(
                f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                "than the reduction factor (input numel divided by output numel).",
                UserWarning,
                stacklevel=6,
            )
    a = input_array(self, compute_dtype(self._dtype))
    axis = axes(self, dims)
    # The mean as sum / n (xp.mean warns through NumPy on an empty slice; 0 / 0 is nan).
    mean = xp.sum(a, axis=axis, keepdims=True) / xp.asarray(n, dtype=a.dtype)
    d = a - mean
    squares = (
        xp.real(d) * xp.real(d) + xp.imag(d) * xp.imag(d)
        if d.dtype in (xp.complex64, xp.complex128)
        else d * d
    )
    m2 = xp.sum(squares, axis=axis, keepdims=keepdim)
    divisor = xp.asarray(max(n - c, 0), dtype=m2.dtype)
    if not keepdim and self._size:
        mean = xp.reshape(mean, reduced_shape(self._size, dims, False))
    return m2 / divisor, mean


def _check_float(self: TensorImpl, what: str) -> None:
    if not is_float_or_complex(self._dtype):
        raise RuntimeError(f"{what} only support floating point and complex dtypes")


@Reduction
def _var_std_meta(
    self: TensorImpl, out: TensorImpl | None, dim: Sequence[int] | None, keepdim: bool
) -> Plan:
    """Torch: std_var_out's checks in ReduceOps.cpp (the result is real; `out` may be any
    dtype the real result casts to)."""
    _check_float(self, "std and var")
    real = to_real(self._dtype)
    if out is not None and not can_cast(real, out._dtype):
        raise RuntimeError(
            f"result type {real.scalar_name} can't be cast to the desired output type "
            f"{out._dtype.scalar_name}"
        )
    result_dtype = real if out is None else out._dtype
    dims = reduction_dims(dim, self.ndim)
    if (
        has_data(self)
        and result_dtype in (float32, float64)
        and self._dtype.is_floating_point
        and self._dtype.itemsize == 2
        and geometry.numel(self._size) > 0
        and geometry.numel(reduced_shape(self._size, dims, False)) == 1
    ):
        # torch: std_var_out's one-element fast path (std_var_all_cpu) takes a float or
        # double result and refuses a float16/bfloat16 input there.
        raise RuntimeError(f"std_var_all: Unsupported dtype {self._dtype.scalar_name}")
    # torch reduces a complex input's parts into temporaries before `out` is resized, so
    # their warnings come first (see _var_std); a real input's `out` is resized here.
    late = has_data(self) and self._dtype.is_complex
    return plan(self, dims, keepdim, result_dtype, None if late else out)


def _var_std(
    self: TensorImpl,
    dim: Sequence[int] | None,
    correction: Scalar | None,
    keepdim: bool,
    out: TensorImpl | None,
    take_sqrt: bool,
) -> Any:
    """Torch: std_var_out in ReduceOps.cpp."""
    p = _var_std_meta(self, out, dim, keepdim)
    if p.backend is None:
        return p.finish(None, out)
    variance, _ = _moments(self, p.dims, correction, keepdim, "std" if take_sqrt else "var")
    values = p.xp.sqrt(variance) if take_sqrt else variance
    if out is not None and self._dtype.is_complex:
        reduction_output(self, p.dims, keepdim, p.dtype, out)
    return p.finish(values, out)


@Reduction
def _var_std_mean_meta(
    self: TensorImpl, out: None, dim: Sequence[int] | None, keepdim: bool, name: str
) -> Plan:
    """Torch: std_var_mean_out's checks in ReduceOps.cpp (the first result is real)."""
    _check_float(self, name)
    return plan(self, reduction_dims(dim, self.ndim), keepdim, to_real(self._dtype), None)


def _var_std_mean(
    self: TensorImpl,
    dim: Sequence[int] | None,
    correction: Scalar | None,
    keepdim: bool,
    take_sqrt: bool,
) -> Any:
    """Torch: std_var_mean_out in ReduceOps.cpp: (var or std, mean) in one pass."""
    name = "std_mean" if take_sqrt else "var_mean"
    p = _var_std_mean_meta(self, None, dim, keepdim, name)
    if p.backend is None:
        return p.finish(None, None), finish_as(p, None, self._dtype, None)
    variance, mean = _moments(self, p.dims, correction, keepdim, name)
    values = p.xp.sqrt(variance) if take_sqrt else variance
    return p.finish(values, None), finish_as(p, mean, self._dtype, None)


def _correction(unbiased: bool) -> int:
    # torch: the unbiased overloads are correction 1 (Bessel's) or 0.
    return 1 if unbiased else 0


def _register_var_std(name: str, take_sqrt: bool) -> None:
    """Register var's (std's) overloads: the correction kernel and torch's decompositions of
    the `unbiased` forms (CompositeImplicitAutograd in torch)."""
    packet = getattr(aten, name)

    def correction_kernel(
        self: TensorImpl,
        dim: list[int] | None,
        *,
        correction: Scalar | None,
        keepdim: bool,
        out: TensorImpl | None = None,
    ) -> Any:
        """Torch: var.correction / std.correction (and their correction_out)."""
        return _var_std(self, dim, correction, keepdim, out, take_sqrt)

    implements(
        defop(
            f"{name}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> Tensor"
        )
    )(correction_kernel)
    implements(
        defop(
            f"{name}.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False, Tensor(a!) out) -> Tensor(a!)"
        )
    )(correction_kernel)

    def unbiased_all(self: TensorImpl, unbiased: bool) -> Any:
        """Torch: var(self, unbiased) / std(self, unbiased) in ReduceOps.cpp."""
        return packet.correction(self, None, correction=_correction(unbiased))

    def unbiased_dim(self: TensorImpl, dim: list[int] | None, unbiased: bool, keepdim: bool) -> Any:
        """Torch: var.dim / std.dim in ReduceOps.cpp."""
        return packet.correction(self, dim, correction=_correction(unbiased), keepdim=keepdim)

    def unbiased_out(
        self: TensorImpl, dim: list[int] | None, unbiased: bool, keepdim: bool, *, out: TensorImpl
    ) -> Any:
        """Torch: var.out / std.out in ReduceOps.cpp."""
        return packet.correction_out(
            self, dim, correction=_correction(unbiased), keepdim=keepdim, out=out
        )

    defop(f"{name}(Tensor self, bool unbiased=True) -> Tensor").decomposition(unbiased_all)
    defop(
        f"{name}.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor"
    ).decomposition(unbiased_dim)
    defop(
        f"{name}.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
        "Tensor(a!) out) -> Tensor(a!)"
    ).decomposition(unbiased_out)


_register_var_std("var", take_sqrt=False)
_register_var_std("std", take_sqrt=True)


@derivative("aten::var.correction", "self")
def var_backward_self(
    grad: Tensor, self: Tensor, dim: list[int] | None, correction: Scalar | None, keepdim: bool
) -> Tensor:
    # torch: var_backward(grad, self, dim, correction, keepdim)
    return var_backward(grad, self, dim, correction, keepdim)


@derivative("aten::std.correction", "self")
def std_backward_self(
    result: Tensor,
    grad: Tensor,
    self: Tensor,
    dim: list[int] | None,
    correction: Scalar | None,
    keepdim: bool,
) -> Tensor:
    # torch: std_backward(result, grad, self, dim, correction, keepdim)
    return std_backward(result, grad, self, dim, correction, keepdim)


def _register_var_std_mean(name: str, take_sqrt: bool) -> None:
    """Register var_mean's (std_mean's) overloads, as `_register_var_std` does."""
    packet = getattr(aten, name)

    def correction_kernel(
        self: TensorImpl, dim: list[int] | None, *, correction: Scalar | None, keepdim: bool
    ) -> Any:
        """Torch: var_mean.correction / std_mean.correction."""
        return _var_std_mean(self, dim, correction, keepdim, take_sqrt)

    def correction_out(
        self: TensorImpl,
        dim: list[int] | None,
        *,
        correction: Scalar | None,
        keepdim: bool,
        out0: TensorImpl,
        out1: TensorImpl,
    ) -> Any:
        """Torch: the generated correction_out (each result copied into its out)."""
        first, second = packet.correction(self, dim, correction=correction, keepdim=keepdim)
        return same_as_out(first, out0), same_as_out(second, out1)

    implements(
        defop(
            f"{name}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> (Tensor, Tensor)"
        )
    )(correction_kernel)
    implements(
        defop(
            f"{name}.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"
        )
    )(correction_out)

    def unbiased_all(self: TensorImpl, unbiased: bool) -> Any:
        """Torch: var_mean(self, unbiased) / std_mean in ReduceOps.cpp."""
        return packet.correction(self, None, correction=_correction(unbiased))

    def unbiased_dim(self: TensorImpl, dim: list[int] | None, unbiased: bool, keepdim: bool) -> Any:
        """Torch: var_mean.dim / std_mean.dim in ReduceOps.cpp."""
        return packet.correction(self, dim, correction=_correction(unbiased), keepdim=keepdim)

    defop(f"{name}(Tensor self, bool unbiased=True) -> (Tensor, Tensor)").decomposition(
        unbiased_all
    )
    defop(
        f"{name}.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
        "-> (Tensor, Tensor)"
    ).decomposition(unbiased_dim)


_register_var_std_mean("var_mean", take_sqrt=False)
_register_var_std_mean("std_mean", take_sqrt=True)


@derivative("aten::var_mean.correction", "self")
def var_mean_backward(
    grads: tuple[Tensor | None, Tensor | None],
    self: Tensor,
    dim: list[int] | None,
    correction: Scalar | None,
    keepdim: bool,
) -> Tensor | None:
    # torch: var_mean_backward(grads[0], grads[1], self, dim, correction, keepdim)
    gvar, gmean = grads
    gself = None if gvar is None else var_backward(gvar, self, dim, correction, keepdim)
    return with_mean_backward(gself, gmean, self, dim, keepdim)


@derivative("aten::std_mean.correction", "self")
def std_mean_backward(
    grads: tuple[Tensor | None, Tensor | None],
    self: Tensor,
    result0: Tensor,
    dim: list[int] | None,
    correction: Scalar | None,
    keepdim: bool,
) -> Tensor | None:
    # torch: std_mean_backward(grads[0], grads[1], self, result0, dim, correction, keepdim)
    gstd, gmean = grads
    gself = None if gstd is None else std_backward(result0, gstd, self, dim, correction, keepdim)
    return with_mean_backward(gself, gmean, self, dim, keepdim)
