"""Running a TensorIterator plan: the operands as arrays in the computation dtype, the
kernel's call, the result tensor laid out as the plan says (or written into `out`).

Torch: the loops of TensorIteratorBase (cpu_kernel, cpu_kernel_vec) that call a kernel on the
operands the iterator prepared. `run` is the general path; `simple_runner` caches its answer
for simple plans (see Note [Pointwise fast path] in ops/_pointwise.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from refimpl._base.dtypes import DType
from refimpl._base.scalars import cast_scalar
from refimpl.core.backend import Array, Backend
from refimpl.core.tensor import (
    TensorImpl,
    array_of,
    backend_dtype,
    resize_for_output,
    result_maker,
    tensor_over,
    write_array,
)
from refimpl.ops import data
from refimpl.ops._iterator import Operand, Plan, Shape
from refimpl.ops._outputs import warn_resize

Kernel = Callable[..., Array]


def operand_array(value: Operand, dtype: DType, backend: Backend) -> Array:
    """An operand as an array of `backend` in the computation dtype (not broadcast).

    A Python number (a wrapped number) is cast unchecked, as torch casts it: int8_tensor + 200
    computes with -56.
    """
    xp = backend.xp
    if isinstance(value, TensorImpl):
        source = value._storage.backend
        array = array_of(value)
        if source is not backend and source is not None:
            array = data.transfer(array, source, backend)
        if value._dtype is not dtype:
            array = data.cast_array(xp, array, value._dtype, dtype, backend)
        return array
    return scalar_array(value, dtype, backend)


# 0-d arrays of the Python numbers ops meet (`x * 2`), by exact value: a float by its hex
# form (so -0.0 and 0.0 differ), a complex by its repr. Kernels never write their inputs.
_SCALAR_ARRAYS: dict[tuple[object, ...], Array] = {}


def scalar_array(value: bool | complex, dtype: DType, backend: Backend) -> Array:
    """A wrapped number as a 0-d array of `dtype`, cast as torch casts it (cached)."""
    kind = type(value)
    exact: object = value.hex() if kind is float else (repr(value) if kind is complex else value)  # type: ignore[union-attr]  # a float has hex
    key = (kind, exact, dtype, backend)
    found = _SCALAR_ARRAYS.get(key)
    if found is None:
        found = backend.xp.asarray(cast_scalar(value, dtype), dtype=backend_dtype(backend, dtype))
        if len(_SCALAR_ARRAYS) > 1024:
            _SCALAR_ARRAYS.clear()
        _SCALAR_ARRAYS[key] = found
    return found


def run(
    p: Plan,
    kernel: Kernel,
    inputs: Sequence[Operand],
    out: TensorImpl | None,
    extra: dict[str, Any],
) -> Any:
    """Compute `kernel(xp, *arrays, **extra)` and return the result tensor (or `out`).

    The arrays arrive cast to the common dtype and, when the result is not row-major, with
    their dims permuted into the result's memory order, so the kernel's row-major result is
    already laid out as torch lays it out (no copy).
    """
    backend = p.backend
    if out is not None and p.resize:
        warn_resize(out, p.shape)
        if p.out_temporary:
            warn_resize(out, p.shape)  # torch resizes the temporary, then `out`
        resize_for_output(out, p.shape, p.out_stride)
    if backend is None:
        if out is not None:
            return out
        return tensor_over(None, p.shape, p.out_stride, p.output_dtype, p.device, None)
    xp = backend.xp
    arrays = [
        array_of(v) if direct else operand_array(v, target, backend)  # type: ignore[arg-type]  # direct inputs are tensors
        for v, direct, target in zip(inputs, p.direct, p.targets, strict=True)
    ]
    order = p.order
    shape = p.shape
    if order is not None:
        axes = tuple(reversed(order))
        arrays = [xp.permute_dims(xp.broadcast_to(a, shape), axes) if a.ndim else a for a in arrays]
        shape = tuple(shape[d] for d in axes)
    result = kernel(xp, *arrays, **extra)
    if tuple(result.shape) != shape:
        result = xp.broadcast_to(result, shape)
    if p.output_dtype is not p.kernel_dtype:
        result = data.cast_array(xp, result, p.kernel_dtype, p.output_dtype, backend)
    if out is None:
        return tensor_over(result, p.shape, p.out_stride, p.output_dtype, p.device, backend)
    if order is not None:
        result = xp.permute_dims(result, _inverse(axes))
    write_array(out, result)
    return out


def run_simple(p: Plan, kernel: Kernel, inputs: Sequence[Any], extra: dict[str, Any]) -> Any:
    """`run` for a simple plan without `out` (see Plan.simple): the kernel's row-major
    result is the new tensor's storage."""
    backend = p.backend
    assert backend is not None  # simple plans have data
    result = kernel(
        backend.xp,
        *[
            array_of(v) if direct else operand_array(v, target, backend)
            for v, direct, target in zip(inputs, p.direct, p.targets, strict=True)
        ],
        **extra,
    )
    if result.shape != p.shape:
        result = backend.xp.broadcast_to(result, p.shape)
    return tensor_over(result, p.shape, p.out_stride, p.output_dtype, p.device, backend)


Runner = Callable[..., Any]
"""`runner(extra, *operands)`: the kernel's extra arguments first, so that
functools.partial(runner, extra) is the runner for fixed arguments. Without extra arguments
the kernel is called without `**` (CPython unpacks even an empty dict)."""


def simple_runner(p: Plan, kernel: Kernel) -> Runner:
    """`run_simple` for one simple plan and kernel, with every per-operand decision made.

    A cache of run_simple's answer (see Note [Pointwise fast path]): which operands are read
    directly and which are converted, and the result's geometry, are fixed by the plan, so
    the runner only fetches the arrays, calls the kernel and wraps the result.
    """
    backend = p.backend
    assert backend is not None  # simple plans have data
    xp = backend.xp
    shape = p.shape
    make = result_maker(shape, p.out_stride, p.output_dtype, p.device, backend)

    def converter(target: DType) -> Callable[[Any], Array]:
        return lambda value: operand_array(value, target, backend)

    fetch = [
        array_of if direct else converter(target)
        for direct, target in zip(p.direct, p.targets, strict=True)
    ]

    def finish(result: Array) -> Any:
        if result.shape != shape:
            result = xp.broadcast_to(result, shape)
        return make(result)

    if len(fetch) == 1:
        (fetch0,) = fetch

        def run_unary(extra: dict[str, Any], a: Any) -> Any:
            result = kernel(xp, fetch0(a), **extra) if extra else kernel(xp, fetch0(a))
            if result.shape != shape:
                return finish(result)
            return make(result)

        return run_unary
    if len(fetch) == 2 and p.direct == (True, True):

        def run_tensors(extra: dict[str, Any], a: TensorImpl, b: TensorImpl) -> Any:
            # Two tensors read as they are (`x + y`): array_of's cached array, read inline.
            cached = a._array_cache
            x = cached[1] if cached is not None and cached[0] is a._storage.array else array_of(a)
            cached = b._array_cache
            y = cached[1] if cached is not None and cached[0] is b._storage.array else array_of(b)
            result = kernel(xp, x, y, **extra) if extra else kernel(xp, x, y)
            if result.shape != shape:
                return finish(result)
            return make(result)

        return run_tensors
    if len(fetch) == 2:
        fetch0, fetch1 = fetch

        def run_binary(extra: dict[str, Any], a: Any, b: Any) -> Any:
            x, y = fetch0(a), fetch1(b)
            result = kernel(xp, x, y, **extra) if extra else kernel(xp, x, y)
            if result.shape != shape:
                return finish(result)
            return make(result)

        return run_binary
    if len(fetch) == 3:
        fetch0, fetch1, fetch2 = fetch

        def run_ternary(extra: dict[str, Any], a: Any, b: Any, c: Any) -> Any:
            x, y, z = fetch0(a), fetch1(b), fetch2(c)
            result = kernel(xp, x, y, z, **extra) if extra else kernel(xp, x, y, z)
            if result.shape != shape:
                return finish(result)
            return make(result)

        return run_ternary
    return lambda extra, *inputs: run_simple(p, kernel, inputs, extra)


def _inverse(axes: Shape) -> Shape:
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)
