"""The NumPy backend: CPU tensors stored in NumPy arrays (the default for `cpu`).

NumPy has strided views and in-place writes, so views never copy and writes through views
land in the shared buffer, exactly as in torch.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Sequence
from typing import Any

import array_api_compat.numpy as xp_numpy
import numpy as np

from backends._common import NumpyRandom, StridedViews, dtype_table
from backends._warnings import ignore_runtime_warnings_from
from backends.numpy.extensions import numpy_extensions
from refimpl._base.dtypes import DType

# Differs: NumPy warns on overflow, invalid values and division by zero (inf - inf, nan cast
# to int, 1 / 0) where torch computes silently. The filter, set when the backend loads (no
# np.errstate per call), covers only warnings raised from refimpl's, the backends' and
# array-api-compat's own calls into NumPy, so a user's NumPy code still warns.
# backends/_warnings.py keeps the filter in front, through catch_warnings blocks.
ignore_runtime_warnings_from(r"(refimpl|backends|array_api_compat)(\.|$)")


# array-api-compat wraps NumPy's creation functions to check `device`; NumPy 2 takes
# `device="cpu"` itself, so the namespace uses NumPy's own (about 1 us less per new tensor).
_NUMPY_OWN: tuple[str, ...] = ("empty", "full", "ones", "zeros")


def _array_results() -> bool:
    """Whether the ufuncs take `out=...` (NumPy 2.3 and later): an array result even where it
    is 0-dim, as the standard's reductions give, instead of a NumPy scalar that the caller
    turns into an array again (0.4 us a full reduction)."""
    try:
        np.add.reduce(np.zeros(1), out=...)
    except TypeError:
        return False
    return True


_ARRAY_RESULTS: bool = _array_results()


def _reduction(ufunc: Any) -> Any:
    """The standard's reduction (`sum`, `prod`, `max`, `min`) as the ufunc's `reduce`, which
    numpy.sum and its siblings call after about 1.5 us of argument handling (results
    identical, dtype included; 0-dim results as arrays where NumPy can: `_array_results`)."""

    def reduce(
        x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False
    ) -> Any:
        return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims, out=...)

    def reduce_to_scalar(
        x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False
    ) -> Any:
        return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)

    return reduce if _ARRAY_RESULTS else reduce_to_scalar


def _extremum(ufunc: Any) -> Any:
    def reduce(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, out=...)

    def reduce_to_scalar(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
        return ufunc.reduce(x, axis=axis, keepdims=keepdims)

    return reduce if _ARRAY_RESULTS else reduce_to_scalar


def _namespace() -> Any:
    """array-api-compat's NumPy namespace, with NumPy's own functions where the wrapper adds
    nothing NumPy lacks (`_NUMPY_OWN`, NumPy 2 and later), and the reductions straight on
    their ufuncs."""
    if int(np.__version__.split(".")[0]) < 2:
        return xp_numpy
    namespace = types.ModuleType(xp_numpy.__name__, xp_numpy.__doc__)
    namespace.__dict__.update(
        {name: value for name, value in vars(xp_numpy).items() if name not in ("__name__", "__doc__")}
    )
    for name in _NUMPY_OWN:
        setattr(namespace, name, getattr(np, name))
    namespace.__dict__.update(
        sum=_reduction(np.add),
        prod=_reduction(np.multiply),
        max=_extremum(np.maximum),
        min=_extremum(np.minimum),
    )
    return namespace


class NumpyBackend(StridedViews):
    """CPU tensors on NumPy, computing through array-api-compat's NumPy namespace."""

    name = "numpy"
    device_type = "cpu"
    supports_strided_views = True
    supports_inplace = True
    supports_bitcast = True

    def __init__(self) -> None:
        self.xp: Any = _namespace()
        self._lib = np
        self.extensions = numpy_extensions()
        self.array_dtypes: dict[DType, Any] = dtype_table(xp_numpy)
        self._by_numpy = {np.dtype(v): k for k, v in self.array_dtypes.items()}

    def as_strided(
        self, flat: Any, size: Sequence[int], stride: Sequence[int], offset: int
    ) -> Any:
        # The ndarray constructor over the storage's buffer: the view stride_tricks.as_strided
        # makes, in a tenth of its time (it goes through __array_interface__). NumPy checks
        # the view's extent against a nonempty buffer only; an empty storage, and an empty
        # view (whose offset may lie past the storage's end, as torch allows), take the
        # general path.
        if flat.size and flat.flags.c_contiguous and 0 not in size:
            itemsize = flat.itemsize
            return np.ndarray(
                tuple(size),
                flat.dtype,
                flat,
                offset * itemsize,
                tuple(s * itemsize for s in stride),
            )
        return super().as_strided(flat, size, stride, offset)

    # ndarray.ravel is always C-contiguous (a view when it can be, else a copy) and costs
    # half of the flags check and reshape of the shared StridedViews.flatten. A methodcaller
    # calls it without a Python frame: every op's result passes here (result_maker).
    flatten = staticmethod(operator.methodcaller("ravel"))  # type: ignore[assignment]  # def flatten(self, array)

    def from_host(self, data: object) -> Any:
        return np.asarray(data)

    def to_host(self, array: Any) -> Any:
        return array

    def tolist(self, array: Any) -> Any:
        return array.tolist()

    def dtype_of(self, array_or_scalar: object) -> DType | None:
        dt = getattr(array_or_scalar, "dtype", None)
        if dt is None:
            return None
        try:
            return self._by_numpy.get(np.dtype(dt))
        except TypeError:
            return None

    def random(self, seed: int) -> NumpyRandom:
        return NumpyRandom(seed, lambda a: a)


def backend() -> NumpyBackend:
    """Entry point: the NumPy backend."""
    return NumpyBackend()
