"""torch.gradient: finite-difference estimates of a tensor's derivative along its dims.

Torch: gradient and its helpers (pre_check_gradient, gradient_helper, gradient_helper_float,
gradient_dim_preprocess, prepend_append_on_dim) in aten/src/ATen/native/ReduceOps.cpp. Every
overload is CompositeImplicitAutograd: second-order central differences inside, first- or
second-order one-sided differences at the two ends (`edge_order`), joined with cat, so
autograd differentiates the slices, arithmetic and cat it is made of.

Spacing is one of: absent (1 per dim), one Scalar for every dim, a Scalar per dim, or a 1-d
coordinate tensor per dim (unevenly spaced samples). `dim` is absent (every dim), one int,
or a list of ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import uint8
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.ops._register import defop

aten: Final = namespace("aten")

Scalar = bool | int | float | complex


def _check(
    self: TensorImpl, spacing_size: int | None, dims: Sequence[int] | None, edge_order: int
) -> None:
    """Torch: pre_check_gradient (the order of its checks is torch's)."""
    if self._dtype is uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    ndim = len(self._size)
    if spacing_size is not None and dims is None and spacing_size != ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a "
            f"list of length {spacing_size}"
        )
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    checked = range(ndim) if dims is None else dims
    if dims is not None:
        geometry.dim_list(dims, ndim)
    for d in checked:
        if self._size[geometry.wrap_dim(d, ndim)] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )


def _dims(self: TensorImpl, dim: int | None) -> list[int]:
    """Torch: gradient_dim_preprocess: the one dim given, else every dim."""
    return [dim] if dim is not None else list(range(len(self._size)))


def _slice(t: TensorImpl, d: int, start: int | None, end: int | None = None) -> TensorImpl:
    result: TensorImpl = aten.slice.Tensor(t, d, start, end, 1)
    return result


def _join(prepend: TensorImpl, center: TensorImpl, append: TensorImpl, d: int) -> TensorImpl:
    """Torch: prepend_append_on_dim (cat of the three along `d`)."""
    result: TensorImpl = aten.cat.default([prepend, center, append], d)
    return result


def _uniform(
    self: TensorImpl, spacing: Sequence[Scalar], dims: Sequence[int], edge_order: int
) -> list[TensorImpl]:
    """Torch: gradient_helper_float: samples `spacing[i]` apart along `dims[i]`."""
    result = []
    for step, dim in zip(spacing, dims):
        d = geometry.wrap_dim(dim, len(self._size))
        center = aten.div.Scalar(aten.sub.Tensor(_slice(self, d, 2), _slice(self, d, 0, -2)), step)
        if edge_order == 1:
            prepend = aten.div.Scalar(
                aten.sub.Tensor(_slice(self, d, 1, 2), _slice(self, d, 0, 1)), step
            )
            append = aten.div.Scalar(
                aten.sub.Tensor(_slice(self, d, -1), _slice(self, d, -2, -1)), step
            )
        else:
            prepend = aten.div.Scalar(
                aten.sub.Tensor(
                    aten.add.Tensor(
                        aten.mul.Scalar(_slice(self, d, 0, 1), -1.5),
                        aten.mul.Scalar(_slice(self, d, 1, 2), 2),
                    ),
                    aten.mul.Scalar(_slice(self, d, 2, 3), 0.5),
                ),
                step,
            )
            append = aten.div.Scalar(
                aten.add.Tensor(
                    aten.sub.Tensor(
                        aten.mul.Scalar(_slice(self, d, -3, -2), 0.5),
                        aten.mul.Scalar(_slice(self, d, -2, -1), 2),
                    ),
                    aten.mul.Scalar(_slice(self, d, -1), 1.5),
                ),
                step,
            )
        result.append(_join(prepend, aten.div.Scalar(center, 2), append, d))
    return result


def _coordinates(
    self: TensorImpl, coordinates: Sequence[TensorImpl], dims: Sequence[int], edge_order: int
) -> list[TensorImpl]:
    """Torch: gradient_helper: samples at the 1-d `coordinates[i]` along `dims[i]`."""
    for c in coordinates:
        if c.device != self.device:
            raise RuntimeError(
                "torch.gradient expected each tensor to be on the same device, but got devices "
                f"{self.device} and {c.device}!"
            )
    mul, div, add, sub = aten.mul.Tensor, aten.div.Tensor, aten.add.Tensor, aten.sub.Tensor
    result = []
    for coordinate, dim in zip(coordinates, dims):
        if len(coordinate._size) != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but "
                f"got an element with {len(coordinate._size)} dimensions!"
            )
        d = geometry.wrap_dim(dim, len(self._size))
        shape = [1] * len(self._size)
        shape[d] = -1
        dx = aten.diff.default(coordinate, 1, 0, None, None)
        dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1)
        a = aten.reshape.default(div(aten.neg.default(dx2), mul(dx1, add(dx1, dx2))), shape)
        b = aten.reshape.default(div(sub(dx2, dx1), mul(dx1, dx2)), shape)
        c = aten.reshape.default(div(dx1, mul(dx2, add(dx1, dx2))), shape)
        center = add(
            add(mul(a, _slice(self, d, 0, -2)), mul(b, _slice(self, d, 1, -1))),
            mul(c, _slice(self, d, 2)),
        )
        first, second = aten.select.int(dx, 0, 0), aten.select.int(dx, 0, 1)
        last, before_last = aten.select.int(dx, 0, -1), aten.select.int(dx, 0, -2)
        if edge_order == 1:
            prepend = div(sub(_slice(self, d, 1, 2), _slice(self, d, 0, 1)), first)
            append = div(sub(_slice(self, d, -1), _slice(self, d, -2, -1)), last)
        else:
            both = add(first, second)
            a = div(aten.neg.default(add(aten.mul.Scalar(first, 2.0), second)), mul(first, both))
            b = div(both, mul(first, second))
            c = div(aten.neg.default(first), mul(second, both))
            prepend = add(
                add(mul(a, _slice(self, d, 0, 1)), mul(b, _slice(self, d, 1, 2))),
                mul(c, _slice(self, d, 2, 3)),
            )
            both = add(last, before_last)
            a = div(last, mul(before_last, both))
            b = div(aten.neg.default(both), mul(last, before_last))
            c = div(add(aten.mul.Scalar(last, 2), before_last), mul(last, both))
            append = add(
                add(mul(a, _slice(self, d, -3, -2)), mul(b, _slice(self, d, -2, -1))),
                mul(c, _slice(self, d, -1)),
            )
        result.append(_join(prepend, center, append, d))
    return result


# --- the overloads (torch: the `gradient` functions of ReduceOps.cpp) ------------------------

gradient_scalarint = defop(
    "gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) "
    "-> Tensor[]"
)


@gradient_scalarint.decomposition
def gradient_scalarint_decomposition(
    self: TensorImpl, *, spacing: Scalar | None, dim: int | None, edge_order: int
) -> Any:
    """One spacing (1 when absent) for the one dim given, or for every dim."""
    dims = _dims(self, dim)
    steps = [1.0 if spacing is None else spacing] * (1 if dim is not None else len(self._size))
    _check(
        self, None if spacing is None else len(steps), dims if dim is not None else None, edge_order
    )
    return _uniform(self, steps, dims, edge_order)


gradient_scalararray = defop(
    "gradient.scalararray(Tensor self, *, Scalar spacing, int[] dim, int edge_order=1) -> Tensor[]"
)


@gradient_scalararray.decomposition
def gradient_scalararray_decomposition(
    self: TensorImpl, *, spacing: Scalar, dim: list[int], edge_order: int
) -> Any:
    """One spacing for each dim of the list."""
    steps = [spacing] * len(dim)
    _check(self, len(steps), dim, edge_order)
    return _uniform(self, steps, dim, edge_order)


gradient_array = defop("gradient.array(Tensor self, *, int[] dim, int edge_order=1) -> Tensor[]")


@gradient_array.decomposition
def gradient_array_decomposition(self: TensorImpl, *, dim: list[int], edge_order: int) -> Any:
    """Unit spacing along each dim of the list."""
    steps: list[Scalar] = [1.0] * len(dim)
    _check(self, len(steps), dim, edge_order)
    return _uniform(self, steps, dim, edge_order)


gradient_scalarrayint = defop(
    "gradient.scalarrayint(Tensor self, *, Scalar[] spacing, int? dim=None, int edge_order=1) "
    "-> Tensor[]"
)


@gradient_scalarrayint.decomposition
def gradient_scalarrayint_decomposition(
    self: TensorImpl, *, spacing: list[Scalar], dim: int | None, edge_order: int
) -> Any:
    """A spacing per dim: for the one dim given, or for every dim."""
    dims = _dims(self, dim)
    _check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _uniform(self, spacing, dims, edge_order)


gradient_scalarrayarray = defop(
    "gradient.scalarrayarray(Tensor self, *, Scalar[] spacing, int[] dim, int edge_order=1) "
    "-> Tensor[]"
)


@gradient_scalarrayarray.decomposition
def gradient_scalarrayarray_decomposition(
    self: TensorImpl, *, spacing: list[Scalar], dim: list[int], edge_order: int
) -> Any:
    """A spacing per dim of the list."""
    _check(self, len(spacing), dim, edge_order)
    return _uniform(self, spacing, dim, edge_order)


gradient_tensorarrayint = defop(
    "gradient.tensorarrayint(Tensor self, *, Tensor[] spacing, int? dim=None, int edge_order=1) "
    "-> Tensor[]"
)


@gradient_tensorarrayint.decomposition
def gradient_tensorarrayint_decomposition(
    self: TensorImpl, *, spacing: list[TensorImpl], dim: int | None, edge_order: int
) -> Any:
    """Coordinates per dim: for the one dim given, or for every dim."""
    dims = _dims(self, dim)
    _check(self, len(spacing), dims if dim is not None else None, edge_order)
    return _coordinates(self, spacing, dims, edge_order)


gradient_tensorarray = defop(
    "gradient.tensorarray(Tensor self, *, Tensor[] spacing, int[] dim, int edge_order=1) "
    "-> Tensor[]"
)


@gradient_tensorarray.decomposition
def gradient_tensorarray_decomposition(
    self: TensorImpl, *, spacing: list[TensorImpl], dim: list[int], edge_order: int
) -> Any:
    """Coordinates per dim of the list."""
    _check(self, len(spacing), dim, edge_order)
    return _coordinates(self, spacing, dim, edge_order)
