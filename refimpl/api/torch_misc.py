"""torch.* functions that belong to no family: type queries (is_tensor, is_storage, typename),
the symbolic-number helpers on plain numbers (sym_*), range and vander, the weight-norm ops
torch exposes (norm_except_dim, _weight_norm), native_norm, detach_, dsmm/spmm, and the removed
solve and lstsq.

Torch: torch/__init__.py (is_tensor, is_storage, typename, the sym_* functions),
torch/_linalg_utils.py (solve, lstsq), and the generated bindings of the aten ops
(python_torch_functions.cpp; range's is hand-written in python_torch_functions_manual.cpp).
"""

from __future__ import annotations

import builtins
import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any, Final

from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl._base.layout import strided
from refimpl._base.promotion import get_default_dtype
from refimpl.api._call import torch_function
from refimpl.api.factories import _finish, _range_argument
from refimpl.core.storage import Storage
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.tls import AutoDispatchBelowADInplaceOrView
from refimpl.ops import aten

if TYPE_CHECKING:
    from refimpl.api.tensor import Tensor

__all__ = [
    "_weight_norm",
    "_weight_norm_interface",
    "batch_norm_backward_elemt",
    "batch_norm_backward_reduce",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_stats",
    "batch_norm_update_stats",
    "detach_",
    "dsmm",
    "is_storage",
    "is_tensor",
    "lstsq",
    "native_norm",
    "norm_except_dim",
    "range",
    "solve",
    "spmm",
    "sym_float",
    "sym_int",
    "sym_ite",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_sqrt",
    "sym_sum",
    "typename",
    "vander",
]


# --- type queries ------------------------------------------------------------------------------


def is_tensor(obj: Any, /) -> bool:
    """Whether `obj` is a Tensor (a subclass counts). Torch: torch.is_tensor."""
    return isinstance(obj, TensorImpl)


def is_storage(obj: Any, /) -> bool:
    """Whether `obj` is a storage (its exact type). Torch: torch.is_storage; refimpl has
    UntypedStorage only."""
    return type(obj) is Storage


def typename(obj: Any, /) -> str:
    """The qualified name of `obj`'s type; a tensor's legacy type name (torch.FloatTensor).
    Torch: torch.typename."""
    if isinstance(obj, TensorImpl):
        name: str = obj.type()  # type: ignore[attr-defined]  # a Tensor's method
        return name
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return str(qualname)
    return f"{module}.{qualname}"


# --- sym_* on plain numbers ---------------------------------------------------------------
# torch: these take SymInt / SymFloat / SymBool too (symbolic shapes, which refimpl does not
# trace); on plain numbers they are Python's operations. NumPy numbers count as numbers:
# np.integer and np.floating register as numbers.Integral and numbers.Real.

# torch: __all_and_float_types() when NumPy is installed, as its assertion prints them.
_ALL_TYPES_TEXT: Final = (
    "(<class 'numpy.integer'>, <class 'numpy.floating'>, <class 'int'>, <class 'float'>)"
)


def _check_number(value: Any) -> None:
    if not isinstance(value, numbers.Real) or isinstance(value, TensorImpl):
        raise AssertionError(f"expected {_ALL_TYPES_TEXT}, got {type(value)}")  # noqa: TRY004 - torch's type


def _is_float(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)


def sym_max(a: Any, b: Any) -> Any:
    """max(a, b), a float if either is. Torch: torch.sym_max."""
    _check_number(a)
    _check_number(b)
    if _is_float(a) or _is_float(b):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a: Any, b: Any) -> Any:
    """min(a, b), a float if either is. Torch: torch.sym_min."""
    _check_number(a)
    _check_number(b)
    if _is_float(a) or _is_float(b):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_float(a: Any) -> Any:
    """float(a). Torch: torch.sym_float."""
    return builtins.float(a)


def sym_int(a: Any) -> Any:
    """int(a) (truncation). Torch: torch.sym_int."""
    return builtins.int(a)


def sym_not(a: Any) -> Any:
    """not a. Torch: torch.sym_not."""
    return not a


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """`t` if `b` else `f`, for a bool `b` and `t`, `f` of one type. Torch: torch.sym_ite."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")  # noqa: TRY004 - torch's type
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a: Any) -> Any:
    """math.sqrt(a). Torch: torch.sym_sqrt."""
    return math.sqrt(a)


def sym_sum(*args: Any) -> Any:
    """The sum of the arguments, given as one list or tuple or one by one. Torch:
    torch.sym_sum."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return builtins.sum(args)


# --- removed functions ----------------------------------------------------------------------


def solve(input: Any, A: Any, *, out: Any = None) -> Any:  # torch's names
    """Removed from torch: raises, pointing to torch.linalg.solve. Torch: torch.solve
    (torch/_linalg_utils.py)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\n"
        "To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` "
        "or `torch.lu_unpack`.\n"
        "X = torch.solve(B, A).solution should be replaced with:\n"
        "X = torch.linalg.solve(A, B)"
    )


def lstsq(input: Any, A: Any, *, out: Any = None) -> Any:  # torch's names
    """Removed from torch: raises, pointing to torch.linalg.lstsq. Torch: torch.lstsq
    (torch/_linalg_utils.py)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR "
        "decomposition in the returned tuple (although it returns other information about "
        "the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the "
        "residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\n"
        "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution"
    )


# --- range ----------------------------------------------------------------------------------

_RANGE_DEPRECATION: Final = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)


def range(  # torch's name
    start: Any,
    end: Any,
    step: Any = 1,
    *,
    out: Tensor | None = None,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Values from `start` to `end` inclusive by `step`, after a deprecation warning; the
    default dtype unless one is given. Torch: torch.range (THPVariable_range: aten.range.step,
    or aten.range.out with `out`; ops/ranges.py)."""
    warnings.warn(_RANGE_DEPRECATION, UserWarning, stacklevel=3)
    start, end, step = (_range_argument(v) for v in (start, end, step))  # 0-dim tensors' values
    result: Tensor
    if out is not None:
        if dtype is not None and dtype is not out._dtype:
            # torch: check_out_type_matches in the Python binding.
            raise RuntimeError(
                f"dtype {dtype.scalar_name} does not match dtype of out parameter "
                f"({out._dtype.scalar_name})"
            )
        result = aten.range.out(start, end, step, out=out)
        return _finish(result, requires_grad)
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"range(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    # torch: the binding passes the dtype (the default dtype when none is given), the layout
    # and the device (cpu when none is given) to the aten op, run below autograd.
    options = {
        "dtype": get_default_dtype() if dtype is None else dtype,
        "layout": strided if layout is None else layout,
        "device": _CPU if device is None else as_device(device),
    }
    with AutoDispatchBelowADInplaceOrView():
        result = aten.range.step(start, end, step, **options)
    return _finish(result, requires_grad)


_CPU: Final = as_device("cpu")


# --- aten ops with a torch.* binding ----------------------------------------------------------

vander = torch_function("vander")
norm_except_dim = torch_function("norm_except_dim")
_weight_norm = torch_function("_weight_norm")
_weight_norm_interface = torch_function("_weight_norm_interface")
# torch: native_norm has kernels for sparse tensors only (and Meta); a strided CPU tensor
# reaches NotImplementedError, as in torch.
native_norm = torch_function("native_norm")
# torch: the one sync-batch-norm op with a CPU kernel (ops/batch_norm_stats.py); the others
# have CUDA kernels only, and a CPU tensor reaches NotImplementedError, as in torch.
batch_norm_update_stats = torch_function("batch_norm_update_stats")
batch_norm_stats = torch_function("batch_norm_stats")
batch_norm_elemt = torch_function("batch_norm_elemt")
batch_norm_gather_stats = torch_function("batch_norm_gather_stats")
batch_norm_gather_stats_with_counts = torch_function("batch_norm_gather_stats_with_counts")
batch_norm_backward_reduce = torch_function("batch_norm_backward_reduce")
batch_norm_backward_elemt = torch_function("batch_norm_backward_elemt")
# torch: dsmm and spmm are bindings of _sparse_mm, which is mm for two strided tensors.
dsmm = torch_function("dsmm", "_sparse_mm")
spmm = torch_function("spmm", "_sparse_mm")


def detach_(input: Any) -> Any:
    """Detach `input` from the graph in place. Torch: torch.detach_ (Tensor.detach_)."""
    if not isinstance(input, TensorImpl):
        raise TypeError(
            f"detach_(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return input.detach_()  # type: ignore[attr-defined]  # a Tensor's method
