"""torch.masked's functions on strided tensors: reductions, scans and normalizations in which a
boolean mask says which elements take part.

Torch: torch/masked/_ops.py (this module's path is torch's, `torch.masked._ops`). Each function
replaces the masked-out elements of its input by the op's identity (refimpl/masked/_mask.py)
and calls the torch.* function torch's calls on the result (`torch.sum`, `torch.amax`,
`torch.linalg.vector_norm`, `F.softmax`, ...), so autograd, modes and the aten calls a
TorchDispatchMode sees are those of the composition, as in torch. They are called through the
`refimpl` namespace, where they sit behind the __torch_function__ protocol, because torch's
masked functions are not overridable themselves: a subclass or a TorchFunctionMode is told of
each inner torch.* call (and a subclass input gives a subclass result), as in torch. (The
package is whole by the time these run: refimpl/__init__.py imports `refimpl.masked` after
installing the protocol.) mean, var and std divide a
masked sum by the count of masked-in elements instead; a fully masked-out slice gives NaN
there (0 / 0), and the identity (-inf for amax, ...) in the reductions that have one.
"""

from __future__ import annotations

from typing import Any, Final

import refimpl
from refimpl._base.dtypes import DType, bool_, float32, int8, int16, int32, int64, uint8
from refimpl.masked._mask import DimOrDims, _canonical_dim, _input_mask, masked_input

__all__: list[str] = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

Tensor = Any

# sum and prod accumulate these input dtypes in int64 when no dtype is given (torch.sum does
# the same for its own reductions; torch.masked writes it out).
_PROMOTED_TO_INT64: Final = frozenset({uint8, bool_, int8, int16, int32})


def _sum_dtype(input: Tensor, dtype: DType | None) -> DType:
    # torch: the `dtype is None` branches of masked sum and prod (strided layout).
    if dtype is not None:
        return dtype
    return int64 if input.dtype in _PROMOTED_TO_INT64 else input.dtype


# --- reductions with an identity ---------------------------------------------------------------


def sum(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The sum of the masked-in elements over `dim`; a fully masked-out slice sums to 0.

    Torch: torch.masked.sum (torch.sum of the input with 0 where the mask is False; integral
    and bool inputs sum in int64 unless `dtype` is given).
    """
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    masked = masked_input("sum", input, mask)
    return refimpl.sum(masked, dims, bool(keepdim), dtype=dtype)


def prod(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The product of the masked-in elements over `dim`; a fully masked-out slice gives 1.

    Torch: torch.masked.prod. torch.prod takes one dim, so the input (with 1 where the mask
    is False, cast to the result dtype) is reduced one dim at a time, the last first
    (pytorch/pytorch#56586); a 0-dim input with no mask comes back as it is.
    """
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    result = masked_input("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def amax(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The largest masked-in element over `dim`; a fully masked-out slice gives -inf (the
    dtype's minimum for integers).

    Torch: torch.masked.amax (torch.amax, then `.to(dtype)`).
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("amax", input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return refimpl.amax(masked, dims, bool(keepdim)).to(dtype=dtype)


def amin(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The smallest masked-in element over `dim`; a fully masked-out slice gives +inf (the
    dtype's maximum for integers).

    Torch: torch.masked.amin (torch.amin, then `.to(dtype)`).
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("amin", input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return refimpl.amin(masked, dims, bool(keepdim)).to(dtype=dtype)


def argmax(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The index of the largest masked-in element over `dim`, in `dtype`.

    Torch: torch.masked.argmax: torch.argmax of the input with -inf where the mask is False,
    then `.to(dtype)`, whose default is the input's dtype (so a float input gives float
    indices).
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("argmax", input, mask)
    return refimpl.argmax(masked, dim, bool(keepdim)).to(dtype=dtype)


def argmin(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The index of the smallest masked-in element over `dim`, in `dtype`.

    Torch: torch.masked.argmin (as argmax, with +inf for the masked-out elements).
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("argmin", input, mask)
    return refimpl.argmin(masked, dim, bool(keepdim)).to(dtype=dtype)


def logsumexp(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """log(sum(exp(x))) of the masked-in elements over `dim`; a fully masked-out slice gives
    -inf.

    Torch: torch.masked.logsumexp (torch.logsumexp, then `.to(dtype)`).
    """
    if dtype is None:
        dtype = input.dtype
    dims = _canonical_dim(dim, input.ndim)
    masked = masked_input("logsumexp", input, mask)
    return refimpl.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def norm(
    input: Tensor,
    ord: float | None = 2.0,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The vector norm of order `ord` of the masked-in elements over `dim`.

    Torch: torch.masked.norm: torch.linalg.vector_norm of the input with 0 where the mask is
    False (+inf for `ord=-inf`).
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("norm", input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return refimpl.linalg.vector_norm(masked, ord, dims, bool(keepdim), dtype=dtype)


# --- reductions without an identity: counts and NaN -------------------------------------------


def mean(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The mean of the masked-in elements over `dim`; a fully masked-out slice gives NaN.

    Torch: torch.masked.mean: the masked sum divided by the count of masked-in elements (the
    masked sum of ones without a mask). The dtype must be floating point or complex.
    """
    dtype_source = "Optional"
    if dtype is None:
        dtype = input.dtype
        dtype_source = "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {dtype_source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    if mask is None:
        ones = refimpl.ones(input.shape, dtype=int64, device=input.device)
        count = sum(ones, dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(
    input: Tensor,
    dim: int = -1,
    *,
    keepdim: bool = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The median of the masked-in elements along `dim`; a fully masked-out slice gives NaN.

    Torch: torch.masked.median: torch.nanmedian of the input (cast to float32 if it is not
    floating point) with NaN where the mask is False. A floating result keeps the input's
    dtype whatever `dtype` says; a non-floating one is cast to `dtype` unless a slice was
    fully masked out, which is refused.
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = refimpl.is_floating_point(input)
    if not is_float:
        input = input.to(dtype=float32)
    masked = masked_input("median", input, mask)
    output = refimpl.nanmedian(masked, d, keepdim).values
    if is_float:
        return output
    if not refimpl.isnan(output).any():
        return output.to(dtype=dtype)
    raise ValueError(
        "masked median expects no fully masked out rows if dtype is not floating point"
    )


def _std_var(
    input: Tensor,
    dim: DimOrDims,
    unbiased: bool | None,
    *,
    correction_opt: float | None,
    keepdim: bool | None,
    dtype: DType | None,
    mask: Tensor | None,
    take_sqrt: bool,
) -> Tensor:
    """The masked variance (or, with `take_sqrt`, standard deviation) over `dim`.

    Torch: _std_var in torch/masked/_ops.py: the masked mean (kept dims), the masked sum of
    `x * x.conj()` around it, divided by max(count - correction, 0) in the real dtype; integral
    inputs compute in float32.
    """
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = float32
    compute_dtype = dtype
    if not (compute_dtype.is_floating_point or compute_dtype.is_complex):
        compute_dtype = float32
    inmask = None
    if mask is None:
        ones = refimpl.ones(input.shape, dtype=int64, device=input.device)
        count = sum(ones, dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    sample_mean = refimpl.divide(sample_total, count)
    x = refimpl.subtract(input, sample_mean)
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real_dtype = compute_dtype.to_real() if compute_dtype.is_complex else compute_dtype
        count = count.to(real_dtype)
        count = refimpl.subtract(count, correction)
        count = refimpl.maximum(count, count.new_zeros([]))
    output = refimpl.divide(total, count).to(dtype=dtype)
    if take_sqrt:
        output = refimpl.sqrt(output)
    return output


def var(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: float | None = None,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The variance of the masked-in elements over `dim`; a fully masked-out slice gives NaN.

    Torch: torch.masked.var (see _std_var).
    """
    return _std_var(
        input,
        dim,
        unbiased,
        correction_opt=correction,
        keepdim=keepdim,
        dtype=dtype,
        mask=mask,
        take_sqrt=False,
    )


def std(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: int | None = None,
    keepdim: bool | None = False,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The standard deviation of the masked-in elements over `dim`; a fully masked-out slice
    gives NaN.

    Torch: torch.masked.std (see _std_var).
    """
    return _std_var(
        input,
        dim,
        unbiased,
        correction_opt=correction,
        keepdim=keepdim,
        dtype=dtype,
        mask=mask,
        take_sqrt=True,
    )


# --- scans, normalizations and the binary logaddexp --------------------------------------------


def cumsum(
    input: Tensor,
    dim: int,
    *,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The cumulative sum along `dim`, masked-out elements counting as 0.

    Torch: torch.masked.cumsum (torch.cumsum, then `.to(dtype)`; the dtype defaults to the
    input's, so integers are not widened as torch.cumsum would).
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = masked_input("sum", input, mask)
    return refimpl.cumsum(masked, d, dtype=dtype).to(dtype=dtype)


def cumprod(
    input: Tensor,
    dim: int,
    *,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The cumulative product along `dim`, masked-out elements counting as 1.

    Torch: torch.masked.cumprod (torch.cumprod, then `.to(dtype)`).
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = masked_input("prod", input, mask)
    return refimpl.cumprod(masked, d, dtype=dtype).to(dtype=dtype)


def softmax(
    input: Tensor,
    dim: int,
    *,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Softmax along `dim` over the masked-in elements; masked-out ones get 0, and a fully
    masked-out slice NaN.

    Torch: torch.masked.softmax: F.softmax (`input.softmax(dim, dtype=dtype)`) of the input
    with -inf where the mask is False.
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = masked_input("amax", input, mask)
    return refimpl.nn.functional.softmax(masked, d, dtype=dtype)


def log_softmax(
    input: Tensor,
    dim: int,
    *,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Log-softmax along `dim` over the masked-in elements; masked-out ones get -inf, and a
    fully masked-out slice NaN.

    Torch: torch.masked.log_softmax (F.log_softmax of the input with -inf where the mask is
    False).
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = masked_input("amax", input, mask)
    return refimpl.nn.functional.log_softmax(masked, d, dtype=dtype)


def softmin(
    input: Tensor,
    dim: int,
    *,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Softmin along `dim` over the masked-in elements; masked-out ones get 0, and a fully
    masked-out slice NaN.

    Torch: torch.masked.softmin: F.softmin (`(-input).softmax(dim, dtype=dtype)`) of the
    input with +inf where the mask is False.
    """
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = masked_input("amin", input, mask)
    return refimpl.nn.functional.softmin(masked, d, dtype=dtype)


def normalize(
    input: Tensor,
    ord: float,
    dim: int,
    *,
    eps: float = 1e-12,
    dtype: DType | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The input divided by its masked `ord`-norm along `dim` (at least `eps`); masked-out
    elements become 0.

    Torch: torch.masked.normalize: the input with 0 where the mask is False, divided by
    `maximum(masked norm (keepdim), eps)`.
    """
    if dtype is None:
        dtype = input.dtype
    masked = masked_input("sum", input, mask)
    norms = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denominator = refimpl.maximum(norms, norms.new_full([], eps))
    return refimpl.divide(masked, denominator)


def logaddexp(
    input: Tensor,
    other: Tensor,
    *,
    dtype: DType | None = None,
    input_mask: Tensor | None = None,
    other_mask: Tensor | None = None,
) -> Tensor:
    """log(exp(input) + exp(other)), each operand's masked-out elements counting as -inf.

    Torch: torch.masked.logaddexp (torch.logaddexp of both masked operands, then
    `.to(dtype)`).
    """
    if dtype is None:
        dtype = input.dtype
    masked_self = masked_input("logaddexp", input, input_mask)
    masked_other = masked_input("logaddexp", other, other_mask)
    return refimpl.logaddexp(masked_self, masked_other).to(dtype=dtype)
