"""The mask rules every torch.masked function shares: canonical dims, the canonical input and
output masks, the reduction identities, and the input with its masked-out elements replaced by
the identity.

Torch: the private helpers of torch/masked/_ops.py, under torch's names and signatures
(`torch.masked._input_mask`, `_output_mask`, ...: torch's OpInfo gradcheck wrappers call
them), strided layout only: refimpl has no sparse tensors and no MaskedTensor, so the sparse
branches and the `Combine` autograd.Function that unwraps a MaskedTensor have no counterpart.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import refimpl
from refimpl._base.dtypes import DType, bool_, float32, uint8
from refimpl._base.layout import sparse_coo, sparse_csr, strided

Tensor = Any

# What torch.masked calls `DimOrDims`: one dim, several, or None (every dim).
DimOrDims = int | Sequence[int] | None


def _canonical_dim(dim: DimOrDims, ndim: int) -> tuple[int, ...]:
    """`dim` as a sorted tuple of non-negative dims; None (and the tuple `()`) is every dim.

    Torch: _canonical_dim in torch/masked/_ops.py. Only the tuple `()` means "every dim"
    (torch compares `dim == ()`, so an empty list passes through as no dims, which
    torch.sum reads as every dim too). A 0-dim input accepts dims 0 and -1.
    """
    if isinstance(dim, tuple) and dim == ():
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims_in = (dim,) if isinstance(dim, int) else dim
    dims: list[int] = []
    for d in dims_in:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The canonical input mask: the `mask` keyword broadcast to `input`'s shape, as bool.

    Torch: _input_mask in torch/masked/_ops.py (strided layout): a mask of another shape is
    cloned and broadcast (`broadcast_to(mask.clone(), input.shape)`), never downcast, so a
    mask with more dims than the input is refused; then `.to(dtype=torch.bool)`. The other
    arguments of the masked call may come along and are ignored.
    """
    if input.layout not in (strided, sparse_coo, sparse_csr):
        raise ValueError(
            f"_input_mask expects strided or sparse COO or sparse CSR tensor but got {input.layout}"
        )
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than "
                "of the input)"
            )
        mask = refimpl.broadcast_to(mask.clone(), input.shape).to(dtype=bool_)
    return mask.to(dtype=bool_)


# Note [Reduction identities]
# The value a masked-out element takes before the reduction runs: one that leaves the
# reduction's result unchanged (https://github.com/pytorch/rfcs/pull/27). Torch writes it as
# an if-chain in _reduction_identity; here it is a table from the op to its identity: a number,
# or the dtype's lowest / highest value (-inf / +inf for floating dtypes, iinfo's min / max for
# integral ones; other dtypes have none, and torch raises NotImplementedError). mean, var and
# std have no identity (None) and never mask their input this way; median and norm depend on
# more than the dtype and are written out in the function.
_UNDEFINED: Final = frozenset({"mean", "var", "std"})


class _Extreme(enum.Enum):
    """The identity of the max-like (LOWEST) and min-like (HIGHEST) reductions."""

    LOWEST = enum.auto()  # -inf, or iinfo(dtype).min
    HIGHEST = enum.auto()  # +inf, or iinfo(dtype).max


_NEG: Final = _Extreme.LOWEST
_POS: Final = _Extreme.HIGHEST

_IDENTITIES: Final[dict[str, _Extreme | int]] = {
    "sum": 0,
    "cumsum": 0,
    "prod": 1,
    "cumprod": 1,
    "amax": _NEG,
    "argmax": _NEG,
    "logaddexp": _NEG,
    "logsumexp": _NEG,
    "amin": _POS,
    "argmin": _POS,
}


def _reduction_identity(op_name: str, input: Tensor, *args: Any) -> Tensor | None:
    """The identity of the masked op `op_name` on `input`'s dtype, as a 0-dim tensor; None
    for mean, var and std, which have none.

    Torch: _reduction_identity in torch/masked/_ops.py (`op_name` may carry its module:
    `masked.sum`). See Note [Reduction identities].
    """
    dtype: DType = input.dtype
    device = input.device
    op_name = op_name.rsplit(".", 1)[-1]
    if op_name in _UNDEFINED:
        return None
    if op_name == "norm":
        ord = args[0] if args else 2
        if ord == -math.inf:
            if not refimpl.is_floating_point(input):
                raise AssertionError(f"input must be floating point, got {dtype}")
            return refimpl.tensor(math.inf, dtype=dtype, device=device)
        return refimpl.tensor(0, dtype=dtype, device=device)
    if op_name == "median":
        # torch computes median with nanmedian, for which NaN is the identity (it is skipped);
        # a non-floating input takes torch.float (float32, not the default dtype).
        nan_dtype = dtype if refimpl.is_floating_point(input) else float32
        return refimpl.tensor(math.nan, dtype=nan_dtype, device=device)
    identity = _IDENTITIES.get(op_name)
    if isinstance(identity, int):
        return refimpl.tensor(identity, dtype=dtype, device=device)
    if identity is not None:
        if refimpl.is_floating_point(input):
            value = -math.inf if identity == _NEG else math.inf
            return refimpl.tensor(value, dtype=dtype, device=device)
        if op_name == "logsumexp" and refimpl.is_complex(input):
            return refimpl.tensor(complex(-math.inf, 0), dtype=dtype, device=device)
        # A complex input reaches iinfo, which refuses it (TypeError), as in torch. (torch
        # asks torch.is_signed(input), which a TorchFunctionMode sees; the dtype says the same.)
        if dtype.is_signed or dtype is uint8:
            info = refimpl.iinfo(dtype)
            return refimpl.tensor(
                info.min if identity == _NEG else info.max, dtype=dtype, device=device
            )
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def masked_input(op_name: str, input: Tensor, mask: Tensor | None, *args: Any) -> Tensor:
    """`input` with its masked-out elements replaced by the identity of the op `op_name`.

    Torch: the strided branch of _combine_input_and_mask in torch/masked/_ops.py
    (`torch.where(canonical_mask, input, identity)`, or `input` itself without a mask), which
    torch's masked functions call with themselves (or sum, prod, amax, amin) as the op.
    """
    if mask is None:
        return input
    canonical = _input_mask(input, mask=mask)
    fill = _reduction_identity(op_name, input, *args)
    return _where(canonical, input, fill)


def _where(mask: Tensor, input: Tensor, fill_value: Tensor) -> Tensor:
    """torch.where(mask, input, fill_value), for the strided masks refimpl has.

    Torch: _where in torch/masked/_ops.py (its sparse COO / CSR branches have no counterpart).
    """
    if mask.layout != strided:
        raise ValueError(
            f"_where expects strided or sparse COO or sparse CSR tensor but got {mask.layout}"
        )
    return refimpl.where(mask, input, fill_value)


def _combine_input_and_mask(
    op: Callable[..., Any], input: Tensor, mask: Tensor | None, *args: Any
) -> Tensor:
    """`input` with its masked-out elements replaced by the identity of the masked op `op`.

    Torch: _combine_input_and_mask in torch/masked/_ops.py (the identity is looked up by
    `op.__name__`).
    """
    if mask is None:
        return input
    if not callable(op):
        raise ValueError(  # noqa: TRY004  # torch's type
            f"_combine_input_and_mask expected masked operation (got {type(op).__name__} object)"
        )
    return masked_input(op.__name__, input, mask, *args)


# The masked functions whose output mask is the input mask reduced with any over `dim`, and
# those whose output mask is the input mask itself. Torch: the name sets of _output_mask.
_REDUCTIONS: Final = frozenset(
    {
        "sum",
        "prod",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "mean",
        "median",
        "norm",
        "var",
        "std",
        "logsumexp",
    }
)
_NORMALIZATIONS: Final = frozenset(
    {"softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"}
)


def _output_mask(op: Callable[..., Any], input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Where the output of the masked op `op` called with these arguments is defined.

    Torch: _output_mask in torch/masked/_ops.py: for a reduction, the input mask with any
    over the reduced dims (one dim at a time, the last first, as torch's _any); for a
    normalization or scan, the input mask.
    """
    if not callable(op):
        raise ValueError(  # noqa: TRY004  # torch's type
            f"_output_mask expected masked operation (got {type(op).__name__} object)"
        )
    name = op.__name__
    if name in _REDUCTIONS:
        if name == "norm" and args:
            args = args[1:]  # ord comes before dim
        dim = args[0] if args else kwargs.get("dim")
        outmask = _input_mask(input, *args, **kwargs)
        keepdim = bool(kwargs.get("keepdim", False))
        for d in reversed(_canonical_dim(dim, input.ndim)):
            outmask = outmask.any(dim=d, keepdim=keepdim)
        return outmask
    if name in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    raise ValueError(
        f"_output_mask expected masked operation (got callable {op.__module__}.{name})"
    )
