"""Ops over vectors laid along a dim: cross products, pairwise distances (cdist) and
trapezoid-rule integration.

Torch: aten/src/ATen/native/Cross.cpp (cross, linalg_cross), Distance.cpp (cdist,
_cdist_forward, _euclidean_dist) and Integration.cpp (trapezoid, trapz,
cumulative_trapezoid). cross, cdist and the trapezoid functions are
CompositeImplicitAutograd in torch, decompositions here; linalg_cross and _cdist_forward
have real kernels (one body for CPU, CUDA and Meta), _euclidean_dist is
CompositeExplicitAutograd.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Final

from refimpl._base.dtypes import bool_
from refimpl._base.keys import DispatchKey
from refimpl._base.scalars import Scalar
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import TensorImpl, array_of
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._backward_products import cdist_backward, euclidean_dist_backward
from refimpl.ops._products import backend_kernels, check_out, finish, not_implemented
from refimpl.ops._register import defop

aten: Final = namespace("aten")
_CEA: Final = DispatchKey.CompositeExplicitAutograd


# --- linalg_cross, cross -----------------------------------------------------------------

linalg_cross = defop("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor")
linalg_cross_out = defop(
    "linalg_cross.out(Tensor self, Tensor other, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)"
)


def _linalg_cross(self: TensorImpl, other: TensorImpl, dim: int, out: TensorImpl | None) -> Any:
    """The cross product of 3-vectors along `dim`, over the broadcast batch.

    Torch: TORCH_META_FUNC(linalg_cross) and the cross kernel in Cross.cpp; the components
    compute in the dtype itself (a 16-bit float rounds after each operation).
    """
    if len(self._size) != len(other._size):
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    n1, n2 = self.size(dim), other.size(dim)
    if n1 != 3 or n2 != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {n1} and {n2}"
        )
    size = data.broadcast_shapes(self._size, other._size)
    dtype = self._dtype
    if out is not None:
        check_out(out, size, dtype)
    if other._dtype is not dtype:
        # torch: the cross kernel reads other as self's scalar type.
        raise RuntimeError(
            f"expected scalar type {dtype.scalar_name} but found {other._dtype.scalar_name}"
        )
    axis = geometry.wrap_dim(dim, len(size))

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype is bool_:
            raise not_implemented("cross", dtype)
        a = xp.broadcast_to(array_of(self), size)
        b = xp.broadcast_to(array_of(other), size)

        def part(x: Array, i: int) -> Array:
            return xp.take(x, xp.asarray([i]), axis=axis)

        a0, a1, a2 = (part(a, i) for i in range(3))
        b0, b1, b2 = (part(b, i) for i in range(3))
        return xp.concat((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=axis)

    return finish(size, dtype, self, out, compute)


@backend_kernels(linalg_cross)
def linalg_cross_kernel(self: TensorImpl, other: TensorImpl, *, dim: int) -> Any:
    """The cross product along `dim` (default the last). Torch: linalg_cross (Cross.cpp)."""
    return _linalg_cross(self, other, dim, None)


@backend_kernels(linalg_cross_out)
def linalg_cross_out_kernel(
    self: TensorImpl, other: TensorImpl, *, dim: int, out: TensorImpl
) -> Any:
    """linalg_cross into `out`. Torch: linalg_cross_out."""
    return _linalg_cross(self, other, dim, out)


@linalg_cross.derivative("self")
def linalg_cross_backward_self(grad: Tensor, other: Tensor, dim: int) -> Tensor:
    # torch: at::linalg_cross(other.conj(), grad, dim)
    return aten.linalg_cross.default(aten.conj.default(other), grad, dim=dim)


@linalg_cross.derivative("other")
def linalg_cross_backward_other(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    # torch: at::linalg_cross(grad, self.conj(), dim)
    return aten.linalg_cross.default(grad, aten.conj.default(self), dim=dim)


cross = defop("cross(Tensor self, Tensor other, int? dim=None) -> Tensor")
cross_out = defop(
    "cross.out(Tensor self, Tensor other, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)"
)


def _default_cross_dim(self: TensorImpl, dim: int | None) -> int:
    """Torch: cross and _default_cross_dim in Cross.cpp: without `dim`, a deprecation warning
    and the first dim of size 3 (not linalg.cross's -1)."""
    if dim is not None:
        return dim
    warnings.warn(
        "Using torch.cross without specifying the dim arg is deprecated.\n"
        "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
        "The default value of dim will change to agree with that of linalg.cross in a future "
        "release.",
        UserWarning,
        stacklevel=5,
    )
    for i, n in enumerate(self._size):
        if n == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


@cross.decomposition
def cross_decomposition(self: TensorImpl, other: TensorImpl, dim: int | None) -> Any:
    """The cross product along `dim`. Torch: cross (Cross.cpp), over linalg_cross."""
    return aten.linalg_cross.default(self, other, dim=_default_cross_dim(self, dim))


@cross_out.decomposition
def cross_out_decomposition(
    self: TensorImpl, other: TensorImpl, dim: int | None, *, out: TensorImpl
) -> Any:
    """cross into `out`. Torch: cross_out (linalg_cross_out)."""
    return aten.linalg_cross.out(self, other, dim=_default_cross_dim(self, dim), out=out)


# --- cdist, _cdist_forward, _euclidean_dist ----------------------------------------------

cdist = defop("cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor")
_cdist_forward = defop("_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor")
_euclidean_dist = defop("_euclidean_dist(Tensor x1, Tensor x2) -> Tensor")


def _cdist_checks(x1: TensorImpl, x2: TensorImpl) -> None:
    # torch: the first checks of cdist and _cdist_forward (Distance.cpp).
    for name, t in (("X1", x1), ("X2", x2)):
        if len(t._size) < 2:
            raise RuntimeError(
                f"cdist only supports at least 2D tensors, {name} got: {len(t._size)}D"
            )
    c1, c2 = x1._size[-1], x2._size[-1]
    if c1 != c2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}")


def _uses_mm(p: float, mode: int, r1: int, r2: int) -> bool:
    # torch: compute_mode 0 uses the matmul form of p=2 past 25 rows, 1 always, 2 never.
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


@cdist.decomposition
def cdist_decomposition(x1: TensorImpl, x2: TensorImpl, p: float, compute_mode: int | None) -> Any:
    """p-norm distances between the rows of x1 and x2, batch by (broadcast) batch.

    Torch: cdist in Distance.cpp: _euclidean_dist (the matmul form, ||a||^2 - 2ab + ||b||^2)
    for p=2 where compute_mode asks for it, _cdist_forward (the direct form) otherwise.
    """
    _cdist_checks(x1, x2)
    r1, r2 = x1._size[-2], x2._size[-2]
    mode = 0 if compute_mode is None else compute_mode
    if geometry.numel(x1._size) == 0 or geometry.numel(x2._size) == 0:
        return aten._cdist_forward.default(x1, x2, p, compute_mode)
    if not _uses_mm(p, mode, r1, r2):
        return aten._cdist_forward.default(x1, x2, p, compute_mode)
    batch, output_shape = _cdist_impl_checks(x1, x2, p, compute_mode)
    c = x1._size[-1]
    if r1 == 0 or r2 == 0 or geometry.numel(batch) == 0:
        return aten.empty.memory_format(output_shape, dtype=x1._dtype, device=x1.device)
    if c == 0:
        return aten.zeros.default(output_shape, dtype=x1._dtype, device=x1.device)
    product = geometry.numel(batch)
    left = aten.reshape.default(aten.expand.default(x1, [*batch, r1, c]), [product, r1, c])
    right = aten.reshape.default(aten.expand.default(x2, [*batch, r2, c]), [product, r2, c])
    return aten.view.default(aten._euclidean_dist.default(left, right), output_shape)


def _cdist_impl_checks(
    x1: TensorImpl, x2: TensorImpl, p: float, compute_mode: int | None
) -> tuple[list[int], list[int]]:
    """Torch: the checks of cdist_impl; returns the broadcast batch and the result shape."""
    for name, t in (("X1", x1), ("X2", x2)):
        if not t._dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {t._dtype.scalar_name}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if not 0 <= mode <= 2:
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    batch = list(data.broadcast_shapes(x1._size[:-2], x2._size[:-2]))
    return batch, [*batch, x1._size[-2], x2._size[-2]]


def _pairwise(xp: Any, a: Array, b: Array, p: float) -> Array:
    """Distances between the rows of a (B, R1, C) and b (B, R2, C). Torch: the cdist kernels
    of DistanceOpsKernel.cpp: p=0 counts differing coordinates, p=inf takes the largest."""
    diff = xp.abs(a[:, :, None, :] - b[:, None, :, :])
    if p == 0:
        return xp.sum(xp.astype(diff != 0, a.dtype), axis=-1)
    if p == 1:
        return xp.sum(diff, axis=-1)
    if p == 2:
        return xp.sqrt(xp.sum(diff * diff, axis=-1))
    if math.isinf(p):
        return xp.max(diff, axis=-1)
    exponent = xp.asarray(p, dtype=a.dtype)
    return xp.sum(diff**exponent, axis=-1) ** (1 / exponent)


@backend_kernels(_cdist_forward)
def _cdist_forward_kernel(
    x1: TensorImpl, x2: TensorImpl, p: float, compute_mode: int | None
) -> Any:
    """The direct p-norm distances. Torch: _cdist_forward over cdist_impl (Distance.cpp)."""
    _cdist_checks(x1, x2)
    batch, output_shape = _cdist_impl_checks(x1, x2, p, compute_mode)
    dtype = x1._dtype
    if x2._dtype is not dtype:
        raise RuntimeError(
            f"expected scalar type {dtype.scalar_name} but found {x2._dtype.scalar_name}"
        )
    r1, r2, c = x1._size[-2], x2._size[-2], x1._size[-1]
    product = geometry.numel(batch)

    def compute(xp: Any, backend: Backend) -> Array:
        if dtype.itemsize < 4:
            raise not_implemented("cdist", dtype)
        if r1 == 0 or r2 == 0 or product == 0 or c == 0:
            return xp.zeros(tuple(output_shape), dtype=array_of(x1).dtype)
        a = xp.reshape(xp.broadcast_to(array_of(x1), (*batch, r1, c)), (product, r1, c))
        b = xp.reshape(xp.broadcast_to(array_of(x2), (*batch, r2, c)), (product, r2, c))
        return xp.reshape(_pairwise(xp, a, b, p), tuple(output_shape))

    return finish(tuple(output_shape), dtype, x1, None, compute)


@_euclidean_dist.kernel(_CEA)
def _euclidean_dist_kernel(x1: TensorImpl, x2: TensorImpl) -> Any:
    """sqrt(max(||a||^2 - 2 a.b + ||b||^2, 1e-30)) for every pair of rows, through matmul.

    Torch: _euclidean_dist in Distance.cpp: the rows become [-2a, ||a||^2, 1] and
    [b, 1, ||b||^2], one matmul gives the squared distances, then clamp_min and sqrt.
    """
    x1_norm = aten.sum.dim_IntList(aten.pow.Tensor_Scalar(x1, 2), [-1], True)
    x2_norm = aten.sum.dim_IntList(aten.pow.Tensor_Scalar(x2, 2), [-1], True)
    x1_pad = aten.ones_like.default(x1_norm)
    x2_pad = aten.ones_like.default(x2_norm)
    left = aten.cat.default([aten.mul.Scalar(x1, -2), x1_norm, x1_pad], -1)
    right = aten.cat.default([x2, x2_pad, x2_norm], -1)
    result = aten.matmul.default(left, aten.transpose.int(right, -2, -1))
    return aten.sqrt_.default(aten.clamp_min_.default(result, 1e-30))


@_cdist_forward.derivative("x1")
def cdist_backward_x1(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor) -> Tensor:
    # torch: _cdist_backward(grad.contiguous(), x1, x2, p, result)
    return cdist_backward(grad, x1, x2, p, result)


@_cdist_forward.derivative("x2")
def cdist_backward_x2(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor) -> Tensor:
    # torch: _cdist_backward(grad.mT().contiguous(), x2, x1, p, result.mT().contiguous())
    swapped = aten.transpose.int(grad, -2, -1)
    return cdist_backward(swapped, x2, x1, p, aten.transpose.int(result, -2, -1))


@_euclidean_dist.derivative("x1", "x2")
def euclidean_dist_backward_x1_x2(
    grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor
) -> tuple[Tensor, Tensor]:
    # torch: _euclidean_dist_backward(grad, x1, x2, result)
    return euclidean_dist_backward(grad, x1, x2, result)


# --- trapezoid, trapz, cumulative_trapezoid ----------------------------------------------

trapezoid_x = defop("trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor")
trapezoid_dx = defop("trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor")
trapz_x = defop("trapz.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor")
trapz_dx = defop("trapz.dx(Tensor y, *, float dx=1., int dim=-1) -> Tensor")
cumulative_trapezoid_x = defop(
    "cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor"
)
cumulative_trapezoid_dx = defop(
    "cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor"
)


def _zeros_except(y: TensorImpl, dim: int) -> Any:
    # torch: zeros_like_except in Integration.cpp (the integral over no samples is 0).
    sizes = list(y._size)
    del sizes[geometry.wrap_dim(dim, len(sizes))]
    return aten.zeros.default(sizes, dtype=y._dtype, device=y.device)


def _check_dx(name: str, dx: Scalar) -> float:
    if isinstance(dx, bool | complex):
        raise RuntimeError(  # noqa: TRY004 - torch raises RuntimeError
            f"{name}: Currently, we only support dx as a real number."
        )
    return float(dx)


def _dx_of(name: str, y: TensorImpl, x: TensorImpl, dim: int) -> Any:
    """The spacings x[i+1] - x[i] along `dim`, shaped to broadcast against y's slices.

    Torch: trapezoid(y, x, dim) in Integration.cpp: a 1-D x is viewed along `dim`, a
    lower-rank x gets leading ones; x is not broadcast to y before the difference (NumPy's
    rule).
    """
    if len(x._size) == 1:
        if x._size[0] != y.size(dim):
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * len(y._size)
        sizes[geometry.wrap_dim(dim, len(sizes))] = x._size[0]
        x = aten.view.default(x, sizes)
    elif len(x._size) < len(y._size):
        x = aten.view.default(x, [1] * (len(y._size) - len(x._size)) + list(x._size))
    left = aten.slice.Tensor(x, dim, 0, -1)
    right = aten.slice.Tensor(x, dim, 1)
    return aten.sub.Tensor(right, left)


def _y_pairs(y: TensorImpl, dim: int) -> Any:
    return aten.add.Tensor(aten.slice.Tensor(y, dim, 0, -1), aten.slice.Tensor(y, dim, 1))


def _trapezoid_dx(name: str, y: TensorImpl, dx: Scalar, dim: int) -> Any:
    """Torch: trapezoid(y, dx, dim): (sum(y) - (y[0] + y[-1]) / 2) * dx along `dim`."""
    if y.size(dim) == 0:
        return _zeros_except(y, dim)
    if y._dtype is bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    spacing = _check_dx(name, dx)
    last = aten.select.int(y, dim, -1)
    first = aten.select.int(y, dim, 0)
    ends = aten.mul.Scalar(aten.add.Tensor(first, last), 0.5)
    total = aten.sub.Tensor(aten.sum.dim_IntList(y, [dim]), ends)
    return aten.mul.Scalar(total, spacing)


def _trapezoid_x(name: str, y: TensorImpl, x: TensorImpl, dim: int) -> Any:
    """Torch: trapezoid(y, x, dim): sum((y[i] + y[i+1]) * dx[i]) / 2 along `dim`."""
    if y.size(dim) == 0:
        return _zeros_except(y, dim)
    if y._dtype is bool_ or x._dtype is bool_:
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )
    dx = _dx_of(name, y, x, dim)
    summed = aten.sum.dim_IntList(aten.mul.Tensor(_y_pairs(y, dim), dx), [dim])
    return aten.div.Scalar(summed, 2.0)


@trapezoid_x.decomposition
def trapezoid_x_decomposition(y: TensorImpl, x: TensorImpl, *, dim: int) -> Any:
    """The trapezoid rule over samples y at points x. Torch: trapezoid (Integration.cpp)."""
    return _trapezoid_x("trapezoid", y, x, dim)


@trapezoid_dx.decomposition
def trapezoid_dx_decomposition(y: TensorImpl, *, dx: Scalar, dim: int) -> Any:
    """The trapezoid rule over samples y spaced dx apart. Torch: trapezoid (Integration.cpp)."""
    return _trapezoid_dx("trapezoid", y, dx, dim)


@trapz_x.decomposition
def trapz_x_decomposition(y: TensorImpl, x: TensorImpl, *, dim: int) -> Any:
    """Torch: trapz, the older name (trapezoid)."""
    return aten.trapezoid.x(y, x, dim=dim)


@trapz_dx.decomposition
def trapz_dx_decomposition(y: TensorImpl, *, dx: float, dim: int) -> Any:
    """Torch: trapz, the older name (trapezoid with a float dx)."""
    return aten.trapezoid.dx(y, dx=dx, dim=dim)


@cumulative_trapezoid_x.decomposition
def cumulative_trapezoid_x_decomposition(y: TensorImpl, x: TensorImpl, *, dim: int) -> Any:
    """The running trapezoid integral of y at points x. Torch: cumulative_trapezoid
    (Integration.cpp): cumsum(dx * (y[i] + y[i+1])) / 2 along `dim`."""
    name = "cumulative_trapezoid"
    if y._dtype is bool_ or x._dtype is bool_:
        raise RuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported"
        )
    dx = _dx_of(name, y, x, dim)
    return aten.div.Scalar(aten.cumsum.default(aten.mul.Tensor(dx, _y_pairs(y, dim)), dim), 2.0)


@cumulative_trapezoid_dx.decomposition
def cumulative_trapezoid_dx_decomposition(y: TensorImpl, *, dx: Scalar, dim: int) -> Any:
    """The running trapezoid integral of y spaced dx apart. Torch: cumulative_trapezoid
    (Integration.cpp): cumsum(dx / 2 * (y[i] + y[i+1])) along `dim`."""
    name = "cumulative_trapezoid"
    if y._dtype is bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    spacing = _check_dx(name, dx)
    return aten.cumsum.default(aten.mul.Scalar(_y_pairs(y, dim), spacing / 2.0), dim)
