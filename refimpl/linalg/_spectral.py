"""torch.linalg's spectral and orthogonal decompositions: eig, eigvals, eigh, eigvalsh, svd, svdvals, qr, pinv, matrix_rank, householder_product.

Torch: torch/linalg/__init__.py (generated bindings of the linalg_* aten ops). Each function
calls its `aten.linalg_<name>` packet through `api/_call.py`, which binds torch's Python
arguments and picks the overload (pinv and matrix_rank: float or tensor tolerances, the
rcond / tol forms). The ops are in refimpl/ops/linalg_spectral.py (svd, eigh, eig),
_linalg_spectral_qr.py (qr, householder_product) and _linalg_spectral_pinv.py (pinv,
matrix_rank).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl.api._call import torch_function
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace

aten = namespace("aten")

# The torch.linalg names this module adds to `refimpl.linalg`.
__all__: list[str] = [
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "matrix_rank",
    "pinv",
    "qr",
    "svd",
    "svdvals",
]


def _linalg(name: str) -> Callable[..., Any]:
    """`refimpl.linalg.<name>`: the aten packet `aten.linalg_<name>`. Torch: torch.linalg.<name>."""
    return torch_function(name, f"linalg_{name}", module="torch.linalg")


eig = _linalg("eig")
eigvals = _linalg("eigvals")
eigh = _linalg("eigh")
eigvalsh = _linalg("eigvalsh")
svd = _linalg("svd")
svdvals = _linalg("svdvals")
qr = _linalg("qr")
_pinv = _linalg("pinv")
_matrix_rank = _linalg("matrix_rank")


def _tensor_tolerances(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call binds to the Tensor-tolerance signature (atol=, rtol= as tensors or
    None, no positional tolerance): torch's parser tries it first, while the aten packet
    lists the float one (linalg_pinv.atol_rtol_float) before it."""
    if args or not set(kwargs) <= {"atol", "rtol", "hermitian", "out"}:
        return False
    return all(kwargs.get(k) is None or isinstance(kwargs[k], TensorImpl) for k in ("atol", "rtol"))


def _with_tensor_tolerances(
    name: str, packet_call: Callable[..., Any], overload: str
) -> Callable[..., Any]:
    def function(input: Any, *args: Any, **kwargs: Any) -> Any:
        if not _tensor_tolerances(args, kwargs):
            return packet_call(input, *args, **kwargs)
        out = kwargs.pop("out", None)
        packet = getattr(aten, f"linalg_{name}")
        if out is None:
            return getattr(packet, overload)(input, **kwargs)
        return getattr(packet, f"{overload}_out")(input, out=out, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "refimpl.linalg"
    function.__doc__ = (
        f"Torch: torch.linalg.{name} (the aten.linalg_{name} overloads, tried in the order of "
        "torch's Python signatures: tensor tolerances first)."
    )
    return function


pinv = _with_tensor_tolerances("pinv", _pinv, "atol_rtol_tensor")
matrix_rank = _with_tensor_tolerances("matrix_rank", _matrix_rank, "atol_rtol_tensor")
householder_product = _linalg("householder_product")
