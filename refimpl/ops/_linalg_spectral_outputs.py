"""What the spectral and orthogonal decompositions share: new outputs and out= tensors, the CPU kernels' dtype check, per-matrix infos, whether a gradient may be asked for.

Torch: the structured kernels' set_output_strided / resize_out (generated code),
AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES of the LAPACK kernels, and _may_require_fw_or_bw_grad
(aten/src/ATen/native/LinearAlgebraUtils.h).
"""

from __future__ import annotations

from typing import Any, Final

from refimpl._base.dtypes import DType
from refimpl.core import strides as geometry
from refimpl.core.grad_mode import is_grad_enabled
from refimpl.core.tensor import TensorImpl, empty_strided_tensor, requires_grad
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.python_dispatch import is_tensor_subclass_like
from refimpl.ops._advanced_index import resize_output
from refimpl.ops._linalg_checks import LAPACK_DTYPES
from refimpl.ops._reduction import check_out_dtype, has_data
from refimpl.ops.scan import not_implemented

aten: Final = namespace("aten")

Shape = tuple[int, ...]


def new_output(like: TensorImpl, size: Shape, stride: Shape, dtype: DType) -> Any:
    """A new tensor on `like`'s device. Torch: set_output_strided / at::empty_strided."""
    return empty_strided_tensor(size, stride, dtype, like._storage.device, like._storage.backend)


def prepare_out(
    out: TensorImpl, size: Shape, stride: Shape, dtype: DType, like: TensorImpl
) -> None:
    """A structured kernel's out= tensor: torch's dtype and device checks, then resized (and
    restrided) only when its shape differs. Torch: resize_out in the generated code."""
    check_out_dtype(out, dtype)
    if out._storage.device != like._storage.device:
        raise RuntimeError(
            f"Expected out tensor to have device {like._storage.device}, but got "
            f"{out._storage.device} instead"
        )
    resize_output(out, size, stride)


def check_lapack_dtype(t: TensorImpl, kernel: str) -> None:
    """The CPU kernel's AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES: float16 and bfloat16 (and
    integers, where no earlier check refused them) have no case. Meta tensors pass."""
    if has_data(t) and t._dtype.name not in LAPACK_DTYPES:
        raise not_implemented(kernel, t._dtype)


def matrix_infos(xp: Any, bad: Any) -> list[int]:
    """One LAPACK-style info per matrix of a batch from a boolean array over the batch."""
    flat = xp.reshape(bad, (-1,))
    return [int(v) for v in xp.astype(flat, xp.int64)]


def may_require_grad(t: TensorImpl) -> bool:
    """Torch: _may_require_fw_or_bw_grad (no forward AD in refimpl): grad mode on and `t`
    requires grad, or `t` is subclass-like (a dispatch mode is active)."""
    return (is_grad_enabled() and requires_grad(t)) or is_tensor_subclass_like(t)


def all_finite(xp: Any, a: Any) -> Any:
    """Per matrix of a batch: whether every element is finite."""
    return xp.all(xp.isfinite(a), axis=(-2, -1))


def write_out_like(out: TensorImpl, result: TensorImpl) -> None:
    """Torch: the out= path of the non-structured LAPACK ops (linalg_eig_out, geqrf_out,
    linalg_householder_product_out, ormqr_out): an empty `out` of the result's dtype takes
    the result's (column-major) layout; one of another shape is resized, contiguous (with the
    warning if it had elements); one of the right shape keeps its strides. The values are then copied in (cast if `out`'s
    dtype is a wider one)."""
    if out._size != result._size:
        if geometry.numel(out._size) == 0 and out._dtype is result._dtype:
            resize_output(out, result._size, result._stride)
        else:
            resize_output(out, result._size)
    if has_data(result):
        aten.copy_.default(out, result)
