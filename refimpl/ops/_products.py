"""What the matmul family's kernels share: one body for every backend key, the out= and
in-place checks of torch's structured kernels, and products computed as torch's CPU gemm
computes them (16-bit floats accumulate in float32 and round once; integers wrap).

Torch: the structured-kernel machinery of LinearAlgebra.cpp and Blas.cpp (set_output,
resize_output, check_inplace), at::opmath_type, and the beta/alpha handling of gemm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from refimpl._base.dtypes import DType, bfloat16, float16, float32
from refimpl._base.keys import DispatchKey
from refimpl._base.scalars import Scalar, checked_convert
from refimpl.core import strides as geometry
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    make_view,
    resize_for_output,
    tensor_over,
    write_array,
)
from refimpl.ops import data
from refimpl.ops._iterator_run import scalar_array
from refimpl.ops._outputs import warn_resize
from refimpl.ops._register import OpBlock
from refimpl.ops.selection import type_meta_name
from refimpl.ops.view import legacy_type_name

BACKEND_KEYS: Final = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)

F = TypeVar("F", bound=Callable[..., Any])

# torch: at::opmath_type, the type CPU gemm accumulates 16-bit floats in.
OPMATH: Final[dict[DType, DType]] = {float16: float32, bfloat16: float32}


def backend_kernels(block: OpBlock) -> Callable[[F], F]:
    """Register the decorated body as `block`'s CPU, CUDA and Meta kernel.

    Differs: torch has a kernel per backend; one body that skips arithmetic on meta tensors
    serves all three here.
    """

    def register(fn: F) -> F:
        for key in BACKEND_KEYS:
            block.kernel(key)(fn)
        return fn

    return register


# --- shared pieces ------------------------------------------------------------------------


def sizes_text(size: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, size)) + "]"


def not_implemented(kernel: str, dtype: DType) -> NotImplementedError:
    # torch: the AT_DISPATCH switch of the CPU kernel, which has no case for bool.
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


def check_out(out: TensorImpl, size: tuple[int, ...], dtype: DType) -> None:
    """Torch: set_output of a structured kernel: `out` must have the result dtype, and is
    resized (with resize_output's deprecation warning when it had elements)."""
    if out._dtype is not dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {type_meta_name(dtype)}, but got "
            f"{type_meta_name(out._dtype)} instead"
        )
    resize_out(out, size)


def resize_out(out: TensorImpl, size: tuple[int, ...]) -> None:
    """Torch: at::native::resize_output; an `out` of the right shape keeps its strides."""
    if out._size != size:
        warn_resize(out, size)
        resize_for_output(out, size, geometry.contiguous_strides(size))


def check_inplace(self: TensorImpl, size: tuple[int, ...]) -> None:
    # torch: the structured in-place check (check_inplace in the generated code).
    if self._size != size:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {sizes_text(self._size)} and output tensor "
            f"size {sizes_text(size)} should match"
        )


def finish(
    size: tuple[int, ...],
    dtype: DType,
    like: TensorImpl,
    out: TensorImpl | None,
    compute: Callable[[Any, Backend], Array],
) -> Any:
    """The result: `compute(xp, backend)`'s values (already of `dtype`) in a new contiguous
    tensor, or written into `out`; on meta tensors nothing is computed."""
    backend = like._storage.backend
    if out is None:
        stride = geometry.contiguous_strides(size)
        values = None if backend is None else compute(backend.xp, backend)
        return tensor_over(values, size, stride, dtype, like._storage.device, backend)
    if backend is not None and out._storage.backend is not None:
        write_array(out, compute(backend.xp, backend))
    return out


def operands(backend: Backend, dtype: DType, *tensors: TensorImpl) -> list[Array]:
    """The tensors' arrays in the dtype products are computed in (float32 for 16-bit floats)."""
    arrays = [array_of(t) for t in tensors]
    wide = OPMATH.get(dtype)
    if wide is None:
        return arrays
    xp = backend.xp
    target = backend_dtype(backend, wide)
    return [xp.astype(a, target) for a in arrays]


def rounded(backend: Backend, dtype: DType, values: Array) -> Array:
    """Values computed in the opmath dtype, rounded once to `dtype`."""
    if dtype in OPMATH:
        return backend.xp.astype(values, backend_dtype(backend, dtype))
    return values


def scaled_sum(
    backend: Backend,
    dtype: DType,
    self: Array | None,
    product: Array,
    beta: Scalar,
    alpha: Scalar,
) -> Array:
    """beta * self + alpha * product, in the compute dtype of `dtype`, rounded to `dtype`.

    Note [beta == 0]: torch's gemm does not read `self` when beta is zero (after conversion
    to the dtype: an integer addmm truncates beta=0.5 to 0), so NaN and inf in `self` do not
    reach the result. alpha and beta are converted as Scalar::to<T> converts them: integers
    truncate a float alpha (torch's addmm does not refuse one), a complex value overflows a
    real dtype.
    """
    compute = OPMATH.get(dtype, dtype)
    a = checked_convert(alpha, compute)
    b = checked_convert(beta, compute)
    result = product
    if a != 1:
        result = result * scalar_array(a, compute, backend)
    if self is None or b == 0:
        return rounded(backend, dtype, result)
    scaled_self = self if b == 1 else self * scalar_array(b, compute, backend)
    return rounded(backend, dtype, scaled_self + result)


def expanded(self: TensorImpl, size: tuple[int, ...]) -> TensorImpl:
    """`self` expanded to the result's size, with expand's errors. Torch: expand_size."""
    if self._size == size:
        return self
    g = geometry.expand(self._geometry(), size, legacy_type_name(self._dtype))
    return make_view(self, g)  # type: ignore[no-any-return]  # a TensorImpl


def matmul_arrays(backend: Backend, dtype: DType, a: TensorImpl, b: TensorImpl) -> Array:
    """a @ b (matrices or batches of them) in the compute dtype of `dtype`, not yet rounded.

    The array's `@` (the standard's __matmul__) rather than xp.matmul: a compatibility
    layer's wrapper around it costs more than an 8x8 product.
    """
    if dtype not in OPMATH:
        return array_of(a) @ array_of(b)
    left, right = operands(backend, dtype, a, b)
    return left @ right


def cast_values(backend: Backend, values: Array, source: DType, target: DType) -> Array:
    """`values` of dtype `source` as `target`, cast as torch casts (data.cast_array)."""
    if source is target:
        return values
    return data.cast_array(backend.xp, values, source, target, backend)
