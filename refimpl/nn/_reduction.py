"""`refimpl.nn._reduction`: torch.nn._reduction, the `reduction` argument's enum and the
legacy `size_average`/`reduce` translation shared by every loss.

Torch: torch/nn/_reduction.py (enum values as aten/src/ATen/core/Reduction.h: None=0,
Mean=1, Sum=2).
"""

from __future__ import annotations

import warnings

__all__ = ["get_enum", "legacy_get_enum", "legacy_get_string"]

# reduction string -> Reduction enum value ('elementwise_mean' is the deprecated 'mean').
_ENUM: dict[str, int] = {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The aten `Reduction` value of `reduction`; ValueError for an unknown string."""
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=2,
        )
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(
    size_average: bool | None,
    reduce: bool | None,
    emit_warning: bool = True,
) -> str:
    """The `reduction` string the legacy `size_average`/`reduce` pair means (None counts as
    True); warns that they will be deprecated unless `emit_warning` is False."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use "
            f"reduction='{ret}' instead.",
            stacklevel=2,
        )
    return ret


def legacy_get_enum(
    size_average: bool | None,
    reduce: bool | None,
    emit_warning: bool = True,
) -> int:
    """`get_enum(legacy_get_string(...))`."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
