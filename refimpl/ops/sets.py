"""Set operations as aten ops: unique (_unique, _unique2, unique_dim), unique_consecutive,
unique_dim_consecutive, isin.

Torch: Unique.cpp (unique_cpu_sorted_template, unique_cpu_bool_template,
unique_consecutive_cpu_template, unique_dim_cpu_template and their callers), TensorCompare.cpp
(isin: the structured meta functions, isin_default_kernel_cpu and isin_sorting). The unique
ops have CPU (and CUDA) kernels only: their output sizes depend on the data, so a meta tensor
gets the dispatcher's "no fake impl or Meta kernel" error, as in torch.

Note [unique's order]
torch's CPU unique always sorts, whatever `sorted` says ("the current CPU implementation of
unique always sort due to this is faster than hash table"), ascending with NaN last, and
never merges two NaNs (IsUnique<scalar_t, equal_nan=false>): each NaN is its own unique
value with count 1. Its sort is at::sort with stable=False, so equal values come in
introsort's order (see Note [Order among equal values] in sorting.py), which decides the
inverse of each NaN and which of -0.0 and 0.0 stands for both. unique_consecutive merges
runs of equal neighbours, NaNs again never. unique_dim sorts the slices along `dim`
lexicographically (std::sort with an element-wise `<` comparator) and merges equal
neighbours (at::equal, so slices holding a NaN stay apart). torch's comparator is not a
strict weak order where a NaN is involved (a NaN is neither less nor greater, so the next
element decides), and among equal slices of -0.0 and 0.0 the one kept is the one its sort
leaves first: refimpl replays that std::sort for slices holding a NaN or a -0.0. Differs:
beyond _REPLAY_SLICES elements they take the stable lexicographic order (NaN last).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from refimpl._base import promotion
from refimpl._base.dtypes import DType, bool_, complex128, float64, int64
from refimpl._base.keys import DispatchKey
from refimpl._base.promotion import OperandKind, result_type_of
from refimpl.core import strides as geometry
from refimpl.core.tensor import TensorImpl, array_of, backend_dtype, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import _scan, data
from refimpl.ops._backward_unary import not_implemented as not_implemented_derivative
from refimpl.ops._outputs import resize_output
from refimpl.ops._reduction import check_out_dtype, has_data, same_as_out
from refimpl.ops._register import OpBlock, defop
from refimpl.ops.scan import CEA, new_tensor, not_implemented, registered, write_values, xp_of
from refimpl.ops.sorting import sort_order

aten: Final = namespace("aten")

F = TypeVar("F", bound=Callable[..., Any])
# The most elements unique_dim replays torch's sort for (see Note [unique's order]).
_REPLAY_SLICES: Final = 1 << 16
Scalar = bool | int | float | complex
Shape = tuple[int, ...]


def _cpu_kernel(block: OpBlock) -> Callable[[F], F]:
    """Register the body as the op's CPU and CUDA kernels (torch has no Meta kernel)."""

    def register(fn: F) -> F:
        block.kernel(DispatchKey.CPU)(fn)
        block.kernel(DispatchKey.CUDA)(fn)
        return fn

    return register


def _check_dtype(self: TensorImpl, kernel: str) -> None:
    # torch: AT_DISPATCH_V2(..., "unique", AT_EXPAND(AT_ALL_TYPES), kBool, kHalf, kBFloat16,
    # AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES)): every real dtype (unique_dim the same).
    if self._dtype.is_complex:
        raise not_implemented(kernel, self._dtype)


def _new(self: TensorImpl, array: Any, dtype: DType) -> Any:
    """A new contiguous tensor owning `array` (already `dtype`)."""
    size = tuple(int(s) for s in array.shape)
    stride = geometry.contiguous_strides(size)
    return tensor_over(array, size, stride, dtype, self._storage.device, self._storage.backend)


def _groups(xp: Any, starts: Any) -> tuple[Any, Any]:
    """From a bool array marking where each group starts (in sorted order): each element's
    group number and each group's size."""
    n = int(starts.shape[0])
    group = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
    first = xp.nonzero(starts)[0]
    ends = xp.concat((first[1:], xp.asarray([n], dtype=first.dtype)))
    return group, xp.astype(ends - first, xp.int64)


def _inverse_permutation(xp: Any, order: Any) -> Any:
    """Where each position of a permutation went (the standard has no scatter)."""
    return xp.argsort(order, stable=True)


# --- unique of all elements -----------------------------------------------------------------


def _odd_floats(xp: Any, array: Any) -> bool:
    """Whether a float array holds a NaN or a -0.0: the values whose place among equals
    shows in unique's results."""
    if not xp.isdtype(array.dtype, "real floating"):
        return False
    negative_zero = xp.logical_and(array == 0, xp.signbit(array))
    return bool(xp.any(xp.logical_or(xp.isnan(array), negative_zero)))


def _unique_order(xp: Any, backend: Any, flat: Any) -> Any:
    """Torch: unique_cpu_sorted_template sorts with at::sort (stable=False): introsort's order,
    which decides the inverse of each NaN and which of -0.0 and 0.0 stands for both. Among
    other equal values the order shows nowhere, so only rows with a NaN or a -0.0 replay it."""
    replay = backend if _odd_floats(xp, flat) else None
    return sort_order(xp, flat, False, False, radix=True, backend=replay)


def _unique_flat(self: TensorImpl, consecutive: bool) -> tuple[Any, Any, Any]:
    """(unique values, inverse shaped like self, counts) as arrays. See Note [unique's order]."""
    xp = xp_of(self)
    flat = xp.reshape(array_of(self), (-1,))
    n = int(flat.shape[0])
    if n == 0:
        empty = xp.zeros((0,), dtype=xp.int64)
        return flat, xp.reshape(empty, self._size), empty
    order = None if consecutive else _unique_order(xp, self._storage.backend, flat)
    ranked = flat if order is None else xp.take(flat, order)
    keys = _scan.comparable(xp, ranked)
    starts = xp.concat((xp.ones((1,), dtype=xp.bool), keys[1:] != keys[:-1]))
    group, counts = _groups(xp, starts)
    values = xp.take(ranked, xp.nonzero(starts)[0])
    inverse = group if order is None else xp.take(group, _inverse_permutation(xp, order))
    return values, xp.reshape(inverse, self._size), counts


def _unique_results(
    self: TensorImpl, return_inverse: bool, return_counts: bool, consecutive: bool, kernel: str
) -> tuple[Any, Any, Any]:
    """unique's three tensors; inverse and counts are empty (size 0) unless asked for.

    Torch: unique_cpu_sorted_template / unique_consecutive_cpu_template: the inverse has
    self's size, the counts the output's.
    """
    _check_dtype(self, kernel)
    values, inverse, counts = _unique_flat(self, consecutive)
    empty = xp_of(self).zeros((0,), dtype=xp_of(self).int64)
    return (
        _new(self, values, self._dtype),
        _new(self, inverse if return_inverse else empty, int64),
        _new(self, counts if return_counts else empty, int64),
    )


_unique = defop("_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)")


@_cpu_kernel(_unique)
def _unique_kernel(self: TensorImpl, sorted: bool, return_inverse: bool) -> Any:
    """Torch: _unique_cpu (Unique.cpp)."""
    values, inverse, _ = _unique_results(self, return_inverse, False, False, "unique")
    return values, inverse


_unique2 = defop(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)"
)


@_cpu_kernel(_unique2)
def _unique2_kernel(
    self: TensorImpl, sorted: bool, return_inverse: bool, return_counts: bool
) -> Any:
    """The sorted unique elements, with the inverse and counts when asked for. Torch:
    _unique2_cpu (Unique.cpp). See Note [unique's order]."""
    return _unique_results(self, return_inverse, return_counts, False, "unique")


unique_consecutive = defop(
    "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
    "int? dim=None) -> (Tensor, Tensor, Tensor)"
)


@_cpu_kernel(unique_consecutive)
def unique_consecutive_kernel(
    self: TensorImpl, return_inverse: bool, return_counts: bool, dim: int | None
) -> Any:
    """Runs of equal neighbours merged. Torch: unique_consecutive_cpu (Unique.cpp): with a
    `dim` (or a 1-dim self and dim 0: the same thing) it is unique_dim_consecutive."""
    if dim is None or (len(self._size) == 1 and dim == 0):
        return _unique_results(self, return_inverse, return_counts, True, "unique")
    return _unique_dim(self, dim, return_inverse, return_counts, consecutive=True)


# --- unique of slices -----------------------------------------------------------------------


def _lexicographic_order(xp: Any, rows: Any) -> Any:
    """The stable order of the rows of a 2-dim array, compared element by element (NaN last in
    each column): one stable sort per column, last column first."""
    order = xp.arange(int(rows.shape[0]), dtype=xp.int64)
    for column in range(int(rows.shape[1]) - 1, -1, -1):
        keys = xp.take(rows[:, column], order)
        order = xp.take(order, _scan.order_nan_last(xp, keys))
    return order


class _RowKey:
    """A slice compared as unique_dim_cpu_template's std::sort comparator compares: element
    by element, the first `<` or `>` deciding; a NaN (neither) passes to the next element."""

    __slots__ = ("values",)

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def __lt__(self, other: _RowKey) -> bool:
        for lhs, rhs in zip(self.values, other.values, strict=True):
            if lhs < rhs:
                return True
            if lhs > rhs:
                return False
        return False


def _slice_order(xp: Any, backend: Any, rows: Any) -> Any:
    """The order torch's unique_dim sorts the rows of a 2-dim array in. Rows holding a NaN
    or a -0.0 take a replay of std::sort (introsort) with torch's comparator, up to
    _REPLAY_SLICES elements; others the stable lexicographic order, which leaves equal rows
    next to each other as torch's does. See Note [unique's order]."""
    if geometry.numel(rows.shape) <= _REPLAY_SLICES and _odd_floats(xp, rows):
        keys = [_RowKey(row) for row in backend.tolist(rows)]
        return xp.asarray(_scan.introsort_order(keys), dtype=xp.int64)
    return _lexicographic_order(xp, rows)


def _unique_dim(
    self: TensorImpl, dim: int, return_inverse: bool, return_counts: bool, consecutive: bool
) -> Any:
    """Torch: unique_dim_cpu_template / unique_dim_consecutive_cpu (Unique.cpp): the slices
    along `dim` as rows of a [size(dim), -1] view, sorted (unless consecutive), equal
    neighbours merged. See Note [unique's order]."""
    if not self._size:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    axis = geometry.wrap_dim(dim, len(self._size))
    _check_dtype(self, "unique_dim")
    zero_dims = sum(1 for s in self._size if s == 0)
    if self._size[axis] == 0:
        if zero_dims != 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        empty = new_tensor(self, (0,), int64)
        return new_tensor(self, self._size, self._dtype), empty, new_tensor(self, (0,), int64)
    if zero_dims:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    xp = xp_of(self)
    moved = xp.moveaxis(array_of(self), axis, 0)
    n = int(moved.shape[0])
    rows = xp.reshape(moved, (n, -1))
    order = None if consecutive else _slice_order(xp, self._storage.backend, rows)
    ranked = rows if order is None else xp.take(rows, order, axis=0)
    keys = _scan.comparable(xp, ranked)
    changed = xp.any(keys[1:, ...] != keys[:-1, ...], axis=1)
    starts = xp.concat((xp.ones((1,), dtype=xp.bool), changed))
    group, counts = _groups(xp, starts)
    picked = xp.take(xp.reshape(ranked, moved.shape), xp.nonzero(starts)[0], axis=0)
    inverse = group if order is None else xp.take(group, _inverse_permutation(xp, order))
    # torch: the output is the [num_unique, ...] contiguous result moved back (moveaxis), so
    # it has the strides of that view.
    front = new_tensor(self, tuple(int(s) for s in picked.shape), self._dtype)
    write_values(front, picked)
    output = aten.movedim.int(front, 0, axis) if axis else front
    empty = xp.zeros((0,), dtype=xp.int64)
    return (
        output,
        _new(self, inverse if return_inverse else empty, int64),
        _new(self, counts if return_counts else empty, int64),
    )


unique_dim = defop(
    "unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)"
)


@_cpu_kernel(unique_dim)
def unique_dim_kernel(
    self: TensorImpl, dim: int, sorted: bool, return_inverse: bool, return_counts: bool
) -> Any:
    """The unique slices along `dim`, sorted. Torch: unique_dim_cpu (Unique.cpp)."""
    return _unique_dim(self, dim, return_inverse, return_counts, consecutive=False)


unique_dim_consecutive = defop(
    "unique_dim_consecutive(Tensor self, int dim, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)"
)


@_cpu_kernel(unique_dim_consecutive)
def unique_dim_consecutive_kernel(
    self: TensorImpl, dim: int, return_inverse: bool, return_counts: bool
) -> Any:
    """Runs of equal neighbouring slices along `dim` merged. Torch:
    unique_dim_consecutive_cpu (Unique.cpp)."""
    return _unique_dim(self, dim, return_inverse, return_counts, consecutive=True)


# --- derivatives ---------------------------------------------------------------------------
# torch: derivatives.yaml gives each unique op `self: not_implemented("<op>")`: the output
# requires grad (its node is UniqueBackward0, Unique2Backward0, ...), backward raises.


def _not_implemented_backward(name: str) -> Callable[..., Any]:
    def backward(grads: tuple[Any, ...]) -> Any:
        not_implemented_derivative(name)

    backward.__name__ = f"{name.strip('_')}_backward"
    return backward


for _block, _name in (
    (_unique, "_unique"),
    (_unique2, "_unique2"),
    (unique_dim, "unique_dim"),
    (unique_consecutive, "unique_consecutive"),
    (unique_dim_consecutive, "unique_dim_consecutive"),
):
    _block.derivative("self")(_not_implemented_backward(_name))


# --- the out= forms (CompositeExplicitAutograd, generated) ----------------------------------


def _copy_outs(results: Sequence[TensorImpl], outs: Sequence[TensorImpl]) -> tuple[Any, ...]:
    # torch: the generated CompositeExplicitAutograd out= wrapper: each out resized to its
    # result, its dtype checked, the result copied in.
    for result, out in zip(results, outs, strict=True):
        same_as_out(result, out)
    return tuple(outs)


_unique_out = defop(
    "_unique.out(Tensor self, bool sorted=True, bool return_inverse=False, *, "
    "Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"
)


@_unique_out.kernel(CEA)
def _unique_out_kernel(
    self: TensorImpl, sorted: bool, return_inverse: bool, *, out0: TensorImpl, out1: TensorImpl
) -> Any:
    return _copy_outs(aten._unique.default(self, sorted, return_inverse), (out0, out1))


_unique2_out = defop(
    "_unique2.out(Tensor self, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))"
)


@_unique2_out.kernel(CEA)
def _unique2_out_kernel(
    self: TensorImpl,
    sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    results = aten._unique2.default(self, sorted, return_inverse, return_counts)
    return _copy_outs(results, (out0, out1, out2))


unique_dim_out = defop(
    "unique_dim.out(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))"
)


@unique_dim_out.kernel(CEA)
def unique_dim_out_kernel(
    self: TensorImpl,
    dim: int,
    sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    results = aten.unique_dim.default(self, dim, sorted, return_inverse, return_counts)
    return _copy_outs(results, (out0, out1, out2))


unique_consecutive_out = defop(
    "unique_consecutive.out(Tensor self, bool return_inverse=False, bool return_counts=False, "
    "int? dim=None, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))"
)


@unique_consecutive_out.kernel(CEA)
def unique_consecutive_out_kernel(
    self: TensorImpl,
    return_inverse: bool,
    return_counts: bool,
    dim: int | None,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    results = aten.unique_consecutive.default(self, return_inverse, return_counts, dim)
    return _copy_outs(results, (out0, out1, out2))


unique_dim_consecutive_out = defop(
    "unique_dim_consecutive.out(Tensor self, int dim, bool return_inverse=False, "
    "bool return_counts=False, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> "
    "(Tensor(a!), Tensor(b!), Tensor(c!))"
)


@unique_dim_consecutive_out.kernel(CEA)
def unique_dim_consecutive_out_kernel(
    self: TensorImpl,
    dim: int,
    return_inverse: bool,
    return_counts: bool,
    *,
    out0: TensorImpl,
    out1: TensorImpl,
    out2: TensorImpl,
) -> Any:
    results = aten.unique_dim_consecutive.default(self, dim, return_inverse, return_counts)
    return _copy_outs(results, (out0, out1, out2))


# --- isin -----------------------------------------------------------------------------------

# torch: AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16, ..., "isin_default_cpu").
_ISIN_TYPES: Final = frozenset(
    {"uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"}
)

Operand = TensorImpl | Scalar


def _kind(value: Operand) -> tuple[DType, OperandKind]:
    if isinstance(value, TensorImpl):
        return value._dtype, (OperandKind.DIMENSIONED if value._size else OperandKind.ZERO_DIM)
    return promotion.scalar_dtype(value), OperandKind.WRAPPED


def _check_isin_dtype(dtype: DType) -> None:
    """Torch: check_for_unsupported_isin_dtype (TensorCompare.cpp)."""
    if dtype is bool_ or dtype.is_complex:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {dtype.scalar_name}")


def _scalar_type(value: Scalar) -> DType:
    """The c10::Scalar's own type: bool, int64, double or complex double."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return complex128 if isinstance(value, complex) else float64


def _array(value: Operand, dtype: DType, backend: Any) -> Any:
    """The operand's values in `dtype`, converted as torch converts (a number as its Scalar
    type first, so -1 against uint8 wraps to 255 as in eq)."""
    xp = backend.xp
    if isinstance(value, TensorImpl):
        return data.cast_array(xp, array_of(value), value._dtype, dtype, backend)
    source = _scalar_type(value)
    array = xp.asarray(value, dtype=backend_dtype(backend, source))
    return data.cast_array(xp, array, source, dtype, backend)


def _isin_into(
    elements: Operand, test_elements: Operand, invert: bool, out: TensorImpl
) -> TensorImpl:
    """Torch: the isin meta functions (dtype checks, a bool result shaped like `elements`),
    then isin_default_kernel_cpu / isin_sorting on the common dtype: NaN is in nothing."""
    for value in (elements, test_elements):
        dtype = value._dtype if isinstance(value, TensorImpl) else _scalar_type(value)
        _check_isin_dtype(dtype)
    size = elements._size if isinstance(elements, TensorImpl) else ()
    check_out_dtype(out, bool_)
    resize_output(out, size)
    tensor = elements if isinstance(elements, TensorImpl) else test_elements
    assert isinstance(tensor, TensorImpl)
    if not has_data(tensor) or geometry.numel(size) == 0:
        return out
    common = result_type_of([_kind(elements), _kind(test_elements)])
    if common.name not in _ISIN_TYPES:
        raise not_implemented("isin_default_cpu", common)
    backend = tensor._storage.backend
    assert backend is not None  # has_data
    xp = backend.xp
    a = _array(elements, common, backend)
    tests = xp.reshape(_array(test_elements, common, backend), (-1,))
    if int(tests.shape[0]) == 0:
        found = xp.zeros(a.shape, dtype=xp.bool)
    else:
        ordered = xp.sort(tests)
        flat = xp.reshape(a, (-1,))
        position = xp.clip(xp.searchsorted(ordered, flat), 0, int(ordered.shape[0]) - 1)
        found = xp.reshape(xp.take(ordered, position) == flat, a.shape)
    write_values(out, xp.logical_not(found) if invert else found)
    return out


def _new_bool(elements: Operand, test_elements: Operand) -> Any:
    tensor = elements if isinstance(elements, TensorImpl) else test_elements
    assert isinstance(tensor, TensorImpl)
    return new_tensor(tensor, (0,), bool_)


isin_tensor_tensor = defop(
    "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor"
)


@registered(isin_tensor_tensor)
def isin_tensor_tensor_kernel(
    elements: TensorImpl, test_elements: TensorImpl, *, assume_unique: bool, invert: bool
) -> Any:
    """Whether each element is among `test_elements`. Torch: isin.Tensor_Tensor (structured,
    TensorCompare.cpp)."""
    return _isin_into(elements, test_elements, invert, _new_bool(elements, test_elements))


isin_tensor_tensor_out = defop(
    "isin.Tensor_Tensor_out(Tensor elements, Tensor test_elements, *, "
    "bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(isin_tensor_tensor_out)
def isin_tensor_tensor_out_kernel(
    elements: TensorImpl,
    test_elements: TensorImpl,
    *,
    assume_unique: bool,
    invert: bool,
    out: TensorImpl,
) -> Any:
    """Torch: isin_Tensor_Tensor_out (TensorCompare.cpp)."""
    return _isin_into(elements, test_elements, invert, out)


isin_tensor_scalar = defop(
    "isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor"
)


@registered(isin_tensor_scalar)
def isin_tensor_scalar_kernel(
    elements: TensorImpl, test_element: Scalar, *, assume_unique: bool, invert: bool
) -> Any:
    """Torch: isin_Tensor_Scalar_out: eq (ne with invert) against the number."""
    return _isin_into(elements, test_element, invert, _new_bool(elements, test_element))


isin_tensor_scalar_out = defop(
    "isin.Tensor_Scalar_out(Tensor elements, Scalar test_element, *, "
    "bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(isin_tensor_scalar_out)
def isin_tensor_scalar_out_kernel(
    elements: TensorImpl,
    test_element: Scalar,
    *,
    assume_unique: bool,
    invert: bool,
    out: TensorImpl,
) -> Any:
    """Torch: isin_Tensor_Scalar_out (TensorCompare.cpp)."""
    return _isin_into(elements, test_element, invert, out)


isin_scalar_tensor = defop(
    "isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor"
)


@registered(isin_scalar_tensor)
def isin_scalar_tensor_kernel(
    element: Scalar, test_elements: TensorImpl, *, assume_unique: bool, invert: bool
) -> Any:
    """Torch: isin_Scalar_Tensor_out: the number as a wrapped 0-dim tensor."""
    return _isin_into(element, test_elements, invert, _new_bool(element, test_elements))


isin_scalar_tensor_out = defop(
    "isin.Scalar_Tensor_out(Scalar element, Tensor test_elements, *, "
    "bool assume_unique=False, bool invert=False, Tensor(a!) out) -> Tensor(a!)"
)


@registered(isin_scalar_tensor_out)
def isin_scalar_tensor_out_kernel(
    element: Scalar,
    test_elements: TensorImpl,
    *,
    assume_unique: bool,
    invert: bool,
    out: TensorImpl,
) -> Any:
    """Torch: isin_Scalar_Tensor_out (TensorCompare.cpp)."""
    return _isin_into(element, test_elements, invert, out)
