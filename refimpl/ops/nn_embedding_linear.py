"""linear and bilinear as aten ops: linear (CompositeImplicitAutograd over addmm / matmul),
linear.out, bilinear (CompositeImplicitAutograd over _trilinear), and _trilinear with its
out= form and derivative.

Torch: aten/src/ATen/native/Linear.cpp (linear, linear_out, _flatten_nd_linear, bilinear,
_trilinear, sumproduct_pair), _trilinear_backward in torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import bool_, float16, float32, int64
from refimpl._base.keys import DispatchKey
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.python_dispatch import is_tensor_subclass_like
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._reduction import finish, has_data, input_array, same_as_out
from refimpl.ops._register import defop
from refimpl.ops.scan import not_implemented, registered
from refimpl.ops.selection import type_meta_name

aten: Final = namespace("aten")
Shape = tuple[int, ...]


# --- linear ----------------------------------------------------------------------------------

linear = defop("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")


def _check_linear_dims(input: TensorImpl, weight: TensorImpl) -> None:
    # torch: linear's first check (_flatten_nd_linear does not work on 0-dim inputs).
    if len(input._size) == 0 or len(weight._size) == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{len(input._size)}D and {len(weight._size)}D"
        )


def _flatten_nd_linear(input: TensorImpl, weight: TensorImpl, bias: TensorImpl) -> Any:
    """Torch: _flatten_nd_linear in Linear.cpp: the input's leading dims flattened into the
    rows of one addmm (no -1 in the reshape: a zero-size dim would make it ambiguous), the
    result viewed back."""
    sizes = input._size
    rows = geometry.numel(sizes[:-1])
    flat = aten.reshape.default(input, [rows, sizes[-1]])
    result = aten.addmm.default(bias, flat, aten.t.default(weight))
    new_size = list(sizes[:-1])
    if len(weight._size) == 2:
        new_size.append(weight._size[0])
    return aten.view.default(result, new_size)


@linear.decomposition
def linear_decomposition(
    input: TensorImpl, weight: TensorImpl, bias: TensorImpl | None = None
) -> Any:
    """Torch: linear in Linear.cpp: addmm for a 2-D input with a bias; one flattened addmm
    for a contiguous input whose bias is (or squeezes to) 1-D; else matmul, then the bias
    added (out of place for subclasses and under dispatch modes, else in place)."""
    _check_linear_dims(input, weight)
    input_dim = len(input._size)
    if input_dim == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.t.default(weight))
    if (
        bias is not None
        and input.is_contiguous()
        and (len(bias._size) == 1 or len(aten.squeeze.default(bias)._size) == 1)
    ):
        return _flatten_nd_linear(input, weight, bias)
    output = aten.matmul.default(input, aten.t.default(weight))
    if bias is None:
        return output
    if is_tensor_subclass_like(bias):
        return aten.add.Tensor(output, bias)
    return aten.add_.Tensor(output, bias)


linear_out = defop(
    "linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(linear_out)
def linear_out_kernel(
    input: TensorImpl, weight: TensorImpl, bias: TensorImpl | None = None, *, out: TensorImpl
) -> Any:
    """Torch: linear_out in Linear.cpp: addmm_out for a 2-D input with a bias, else
    matmul_out followed by an in-place add of the bias."""
    if len(input._size) == 2 and bias is not None:
        return aten.addmm.out(bias, input, aten.t.default(weight), out=out)
    aten.matmul.out(input, aten.t.default(weight), out=out)
    if bias is not None:
        aten.add_.Tensor(out, bias)
    return out


# --- bilinear --------------------------------------------------------------------------------

bilinear = defop(
    "bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor"
)


def _check_bilinear(
    input1: TensorImpl, input2: TensorImpl, weight: TensorImpl, bias: TensorImpl | None
) -> None:
    """Torch: bilinear's checks in Linear.cpp, in its order."""
    tensors = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        tensors.append(("bias", bias))
    if any(t._dtype is not input1._dtype for _, t in tensors):
        listed = ", ".join(f"{name}: {type_meta_name(t._dtype)}" for name, t in tensors)
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")
    ndim = len(input1._size)
    if ndim != len(input2._size):
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {ndim} and {len(input2._size)}"
        )
    for i in range(ndim - 1):
        if input1._size[i] != input2._size[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1._size[i]} and {input2._size[i]}"
            )
    last1 = input1._size[geometry.wrap_dim(-1, ndim)]
    if last1 != weight._size[geometry.wrap_dim(1, len(weight._size))]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {last1} but expected "
            f"{weight._size[1]}"
        )
    last2 = input2._size[-1]
    if last2 != weight._size[geometry.wrap_dim(2, len(weight._size))]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {last2} but expected "
            f"{weight._size[2]}"
        )
    if bias is not None and bias._size[geometry.wrap_dim(0, len(bias._size))] != weight._size[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias._size[0]} but "
            f"expected {weight._size[0]}"
        )


@bilinear.decomposition
def bilinear_decomposition(
    input1: TensorImpl, input2: TensorImpl, weight: TensorImpl, bias: TensorImpl | None = None
) -> Any:
    """Torch: bilinear in Linear.cpp: both inputs flattened to rows, one
    `_trilinear(input1, weight, input2, [1, 3], [0], [1, 2], [2, 3])`, reshaped to the batch
    and weight's output size, plus the bias."""
    _check_bilinear(input1, input2, weight, bias)
    output_size = [*input1._size[:-1], weight._size[0]]
    flat1 = aten.reshape.default(input1, [-1, input1._size[-1]])
    flat2 = aten.reshape.default(input2, [-1, input2._size[-1]])
    product = aten._trilinear.default(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3])
    output = aten.reshape.default(product, output_size)
    if bias is not None:
        output = aten.add.Tensor(output, bias)
    return output


# --- _trilinear ------------------------------------------------------------------------------

_trilinear = defop(
    "_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, "
    "int[] sumdim, int unroll_dim=1) -> Tensor"
)


def _dim_set(dims: Sequence[int], total_dim: int) -> frozenset[int]:
    # torch: at::dim_list_to_bitset (wrapped, each dim once).
    return frozenset(geometry.dim_list(dims, total_dim))


def _trilinear_forward(
    i1: TensorImpl,
    i2: TensorImpl,
    i3: TensorImpl,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    unroll_dim: int,
    out: TensorImpl | None,
) -> Any:
    """The sum over `sumdim` of the product of the three inputs, each unsqueezed at its
    `expand` dims (so that they broadcast against each other).

    Torch: _trilinear in Linear.cpp. Its loop over `unroll_dim` and its two sumproduct_pair
    calls (i1 with i2 summed over the sum dims i3 lacks, then with i3 over the rest) compute
    this one sum; their checks are kept: the unroll dim's slices come from the first
    `unroll_size` entries of each input that has the dim, and sizes both != 1 must match.
    """
    total_dim = len(i1._size) + len(expand1)
    if not 0 <= unroll_dim < total_dim:
        raise RuntimeError(f"unroll_dim must be in [0,{total_dim - 1}]")
    sets = [_dim_set(e, total_dim) for e in (expand1, expand2, expand3)]
    sums = _dim_set(sumdim, total_dim)
    inputs = (i1, i2, i3)
    for t, e in zip(inputs[1:], (expand2, expand3), strict=True):
        if len(t._size) + len(e) != total_dim:
            raise RuntimeError("number of dimensions must match")
    # Each input's size per output dim (1 where it is expanded), as torch's unsqueezes give.
    shapes: list[list[int]] = []
    for t, expanded in zip(inputs, sets, strict=True):
        sizes = iter(t._size)
        shapes.append([1 if i in expanded else next(sizes) for i in range(total_dim)])
    output_size: list[int] = []
    unroll_size = 0
    for i in range(total_dim):
        s = 0
        for shape, expanded in zip(shapes, sets, strict=True):
            if i not in expanded:
                s = shape[i]
        output_size.append(1 if i in sums else s)
        if i == unroll_dim:
            unroll_size = s
    final_size = tuple(n for i, n in enumerate(output_size) if i not in sums)
    dtype = i1._dtype
    if out is not None:
        return same_as_out(
            _trilinear_forward(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, None),
            out,
        )
    if any(geometry.numel(t._size) == 0 for t in inputs):
        # torch: the output stays zeros when an input is empty (nothing is checked further).
        if not has_data(i1):
            return finish(i1, None, final_size, dtype, None)
        xp = i1._storage.backend.xp  # type: ignore[union-attr]  # has_data
        zeros = xp.zeros(final_size, dtype=input_array(i1, dtype).dtype)
        return finish(i1, zeros, final_size, dtype, None)
    for shape, expanded in zip(shapes, sets, strict=True):
        if unroll_dim not in expanded and shape[unroll_dim] < unroll_size:
            size = shape[unroll_dim]
            raise RuntimeError(f"start ({size}) + length (1) exceeds dimension size ({size}).")
    for i in range(total_dim):
        if i == unroll_dim:
            continue
        present = [shape[i] for shape in shapes if shape[i] != 1]
        if any(n != present[0] for n in present):
            raise RuntimeError("non-broadcast dimensions must match")
    pair_sums = [i for i in sums if i != unroll_dim]
    sums_12 = [i for i in pair_sums if i in sets[2]]
    sums_23 = [i for i in pair_sums if i not in sets[2]]
    uses_bmm = bool(sums_12 or sums_23)
    for t in inputs[1:]:
        if uses_bmm and t._dtype is not dtype:
            raise RuntimeError(
                f"expected scalar type {dtype.scalar_name} but found {t._dtype.scalar_name}"
            )
    if dtype is bool_ and uses_bmm:
        raise not_implemented("bmm", dtype)
    if not has_data(i1):
        return finish(i1, None, final_size, dtype, None)
    # float16 products accumulate in float32 (torch's CPU bmm), bool ones as integers.
    compute = {float16: float32, bool_: int64}.get(dtype, dtype)
    xp = i1._storage.backend.xp  # type: ignore[union-attr]  # has_data
    arrays = []
    for t, shape, expanded in zip(inputs, shapes, sets, strict=True):
        a = xp.reshape(input_array(t, compute), tuple(shape))
        if unroll_dim not in expanded and shape[unroll_dim] != unroll_size:
            a = a[(*(slice(None),) * unroll_dim, slice(0, unroll_size), ...)]
        arrays.append(a)
    product = arrays[0] * arrays[1]
    if sums_12:
        product = xp.sum(product, axis=tuple(sums_12), dtype=product.dtype, keepdims=True)
    if compute is not dtype and dtype is float16:
        # torch: the first sumproduct_pair's result is a float16 tensor.
        backend = i1._storage.backend
        half = data.cast_array(xp, product, float32, float16, backend)  # type: ignore[arg-type]
        product = data.cast_array(xp, half, float16, float32, backend)  # type: ignore[arg-type]
    product = product * arrays[2]
    if sums:
        product = xp.sum(product, axis=tuple(sorted(sums)), dtype=product.dtype, keepdims=True)
    if dtype is bool_:
        product = product != 0
    return finish(i1, xp.reshape(product, final_size), final_size, dtype, None)


@_trilinear.kernel(DispatchKey.CompositeExplicitAutogradNonFunctional)
def _trilinear_kernel(
    i1: TensorImpl,
    i2: TensorImpl,
    i3: TensorImpl,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    unroll_dim: int = 1,
) -> Any:
    """Torch: _trilinear (CompositeExplicitAutogradNonFunctional in Linear.cpp)."""
    return _trilinear_forward(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, None)


@_trilinear.derivative("i1", "i2", "i3")
def _trilinear_backward(
    grad: Tensor,
    i1: Tensor,
    i2: Tensor,
    i3: Tensor,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    grad_input_mask: tuple[bool, bool, bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    # torch: _trilinear_backward in FunctionsManual.cpp: each input's gradient is another
    # _trilinear, with the gradient in its place and its expand and sum dims swapped.
    e1, e2, e3, s = list(expand1), list(expand2), list(expand3), list(sumdim)
    g1 = aten._trilinear.default(grad, i2, i3, s, e2, e3, e1) if grad_input_mask[0] else None
    g2 = aten._trilinear.default(i1, grad, i3, e1, s, e3, e2) if grad_input_mask[1] else None
    g3 = aten._trilinear.default(i1, i2, grad, e1, e2, s, e3) if grad_input_mask[2] else None
    return g1, g2, g3


_trilinear_out = defop(
    "_trilinear.out(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, "
    "int[] expand3, int[] sumdim, int unroll_dim=1, *, Tensor(a!) out) -> Tensor(a!)"
)


@registered(_trilinear_out)
def _trilinear_out_kernel(
    i1: TensorImpl,
    i2: TensorImpl,
    i3: TensorImpl,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    unroll_dim: int = 1,
    *,
    out: TensorImpl,
) -> Any:
    """Torch: the generated CompositeExplicitAutograd out= wrapper of _trilinear."""
    return _trilinear_forward(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, out)
