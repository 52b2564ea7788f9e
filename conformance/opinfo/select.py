"""Which OpInfos belong to which family, which variants each has, and what CI runs.

Families group PyTorch's OpInfo database (`op_db`) for the summary table and decide the CI
selection. The first rule of `FAMILY_RULES` that matches an OpInfo names its family, so
explicit name lists win over the OpInfo class (`frexp` is a UnaryUfuncInfo but lives in
"pointwise-other"). Only `CI_FAMILIES` run by default; the others exist so that `--family
reductions` works as soon as those ops land.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Final

from torch.testing._internal.opinfo.core import (
    BinaryUfuncInfo,
    OpInfo,
    ReductionOpInfo,
    ShapeFuncInfo,
    UnaryUfuncInfo,
)


class Variant(enum.Enum):
    """How a case calls the op. Torch: the variants OpInfo tests call (test_ops.py)."""

    FUNCTION = "function"  # op.op, torch.add(x, y)
    METHOD = "method"  # op.method_variant, x.add(y)
    INPLACE = "inplace"  # op.inplace_variant, x.add_(y)
    OPERATOR = "operator"  # op.operator_variant, x + y
    ERRORS = "errors"  # op.error_inputs: the function variant on inputs torch rejects
    GRAD = "grad"  # first derivatives of the function variant (gradients.py)
    GRADGRAD = "gradgrad"  # second derivatives, for GRADGRAD_FAMILIES
    META = "meta"  # the function and in-place variants on the meta device (meta.py)

    @property
    def is_gradient(self) -> bool:
        return self in (Variant.GRAD, Variant.GRADGRAD)


def full_name(op: OpInfo) -> str:
    """`div.floor_rounding`: the OpInfo's name and variant_test_name, as torch's test ids."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def variants_of(op: OpInfo) -> list[Variant]:
    """The variants `op` declares, in Variant order: its forward variants, then the gradient
    layers where it supports autograd (second derivatives for GRADGRAD_FAMILIES), then the
    meta layer where it has a function variant."""
    present = {
        Variant.FUNCTION: op.op is not None,
        Variant.METHOD: op.method_variant is not None,
        Variant.INPLACE: op.inplace_variant is not None,
        Variant.OPERATOR: op.operator_variant is not None,
        Variant.ERRORS: op.error_inputs_func is not None,
        Variant.GRAD: op.supports_autograd,
        Variant.GRADGRAD: (
            op.supports_autograd and op.supports_gradgrad
            and family_of(op) in GRADGRAD_FAMILIES
        ),
        Variant.META: op.op is not None,
    }
    return [v for v in Variant if present[v]]


# --- families ------------------------------------------------------------------------------------

CONVERSIONS: Final = frozenset({
    "bool", "byte", "char", "double", "float", "half", "int", "long", "short",
    "cdouble", "cfloat", "chalf", "bfloat16",
})

# Elementwise OpInfos that are neither plain unary nor plain binary ufuncs (or that the
# summary should show apart from them): ternary ops, conversions, complex views, copies.
POINTWISE_OTHER: Final = CONVERSIONS | frozenset({
    "clamp", "where", "lerp", "addcmul", "addcdiv", "nan_to_num", "masked_fill", "isclose",
    "float_power", "ldexp", "frexp", "heaviside", "polar", "complex", "view_as_real",
    "view_as_complex", "copysign", "xlogy", "clone", "contiguous", "to", "fill", "zero_",
    "positive", "fmax", "fmin", "logaddexp2", "resolve_conj", "resolve_neg",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift",
})

REDUCTIONS: Final = frozenset({
    "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "max", "min", "median",
    "nanmedian", "kthvalue", "mode", "var_mean", "std_mean",
    "aminmax", "logsumexp", "norm", "dist", "equal", "allclose", "sum_to_size", "trace",
    "softmax", "log_softmax", "_softmax_backward_data", "diff", "gradient",
    "trapz", "trapezoid", "cumulative_trapezoid", "renorm", "_segment_reduce", "scatter_reduce",
})

# Sorting, sets, searching and the statistics built on them (issue 14).
SORTING: Final = frozenset({
    "sort", "argsort", "msort", "topk", "unique", "unique_consecutive", "searchsorted",
    "bucketize", "isin", "histc", "histogram", "histogramdd", "bincount", "quantile",
    "nanquantile", "cov", "corrcoef",
})

# The random ops, compared by value: refimpl's CPU generator is torch's.
RANDOM: Final = frozenset({
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial", "normal",
    "uniform", "rand_like", "randint", "randint_like", "randn", "randn_like",
})

MATMUL: Final = frozenset({
    "addmm", "addmv", "addbmm", "baddbmm", "dot", "vdot", "bmm", "mv", "addr", "mm", "matmul",
    "__rmatmul__", "outer", "inner", "kron", "tensordot", "einsum", "cdist", "cross",
    "torch._scaled_mm", "torch._scaled_mm_v2",
})

LINALG: Final = frozenset({
    "cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_solve", "lu_unpack", "qr",
    "svd", "svd_lowrank", "pca_lowrank", "geqrf", "ormqr", "triangular_solve", "pinverse",
    "logdet", "matrix_exp",
})

INDEXING: Final = frozenset({
    "gather", "index_fill", "index_copy", "index_select", "index_add", "index_reduce",
    "__getitem__", "index_put", "put", "take", "take_along_dim", "scatter", "scatter_add",
    "masked_scatter", "masked_select", "nonzero", "nonzero_static", "argwhere",
    "_unsafe_masked_index", "_unsafe_masked_index_put_accumulate", "select_scatter",
    "slice_scatter", "diagonal_scatter", "as_strided_scatter", "unravel_index",
})

SHAPES: Final = frozenset({
    "broadcast_to", "broadcast_shapes", "broadcast_tensors", "block_diag", "chunk",
    "unsafe_chunk", "expand", "expand_as", "expand_copy", "diag", "diag_embed", "diagonal",
    "diagonal_copy", "alias_copy", "flip", "fliplr", "flipud", "as_strided", "as_strided_copy",
    "narrow", "narrow_copy", "view_copy", "permute", "permute_copy", "roll", "rot90", "split",
    "unsafe_split", "split_with_sizes", "split_with_sizes_copy", "select", "slice",
    "tensor_split", "hsplit", "vsplit", "dsplit", "ravel", "reshape", "reshape_as", "view",
    "view_as", "atleast_1d", "atleast_2d", "atleast_3d", "flatten", "unflatten",
    "column_stack", "stack", "_chunk_cat", "hstack", "cat", "unbind", "unbind_copy", "vstack",
    "dstack", "unfold", "unfold_copy", "movedim", "squeeze", "squeeze_copy", "unsqueeze",
    "unsqueeze_copy", "transpose", "transpose_copy", "T", "H", "mT", "mH", "t", "t_copy",
    "tril", "triu", "meshgrid", "combinations", "cartesian_prod", "diagflat",
    "repeat_interleave", "resize_", "resize_as_",
})

# The aten ops beneath torch.nn.functional that op_db tests by their aten names (issue 15).
NN_ATEN: Final = frozenset({
    "native_layer_norm", "native_group_norm", "native_batch_norm", "_native_batch_norm_legit",
    "_batch_norm_with_update", "native_dropout_backward", "max_pool2d_with_indices_backward",
    "grid_sampler_2d", "grid_sampler_3d", "_upsample_bilinear2d_aa",
    "torch.ops.aten._safe_softmax.default", "torch.ops.aten._flash_attention_forward",
    "torch.ops.aten._efficient_attention_forward",
})

# Not elementwise at all, or not for the CPU: never in a family's CI selection.
EXCLUDED_PREFIXES: Final = ("jiterator_", "sparse.", "to_sparse")


def _named(names: frozenset[str]) -> Callable[[OpInfo], bool]:
    return lambda op: op.name in names


def _prefixed(*prefixes: str) -> Callable[[OpInfo], bool]:
    return lambda op: op.name.startswith(prefixes)


def _of_class(cls: type) -> Callable[[OpInfo], bool]:
    return lambda op: isinstance(op, cls)


# First match wins: explicit names and prefixes before the OpInfo classes.
FAMILY_RULES: Final[tuple[tuple[str, Callable[[OpInfo], bool]], ...]] = (
    ("excluded", _prefixed(*EXCLUDED_PREFIXES)),
    ("masked", _prefixed("masked.")),
    ("nn.functional", lambda op: op.name.startswith("nn.functional.") or op.name in NN_ATEN),
    ("special", _prefixed("special.")),
    ("fft", lambda op: op.name.startswith("fft.") or op.name in ("stft", "istft")),
    ("linalg", lambda op: op.name.startswith("linalg.") or op.name in LINALG),
    ("pointwise-other", _named(POINTWISE_OTHER)),
    ("sorting", _named(SORTING)),
    ("random", _named(RANDOM)),
    ("unary", _of_class(UnaryUfuncInfo)),
    ("binary", _of_class(BinaryUfuncInfo)),
    ("reductions", lambda op: isinstance(op, ReductionOpInfo) or op.name in REDUCTIONS),
    ("matmul", _named(MATMUL)),
    ("indexing", _named(INDEXING)),
    ("shapes", lambda op: isinstance(op, ShapeFuncInfo) or op.name in SHAPES),
    ("other", lambda op: True),
)

FAMILIES: Final = tuple(name for name, _ in FAMILY_RULES)
# Second derivatives are checked for the elementwise ops, the matmul family and the reductions.
GRADGRAD_FAMILIES: Final = (
    "unary", "binary", "special", "pointwise-other", "matmul", "reductions", "sorting",
    "fft", "linalg", "nn.functional", "masked",
)
CI_FAMILIES: Final = (
    "unary", "binary", "special", "pointwise-other", "reductions", "shapes", "indexing", "matmul",
    "sorting", "random", "fft", "linalg", "nn.functional", "masked",
)


def family_of(op: OpInfo) -> str:
    """The family of `op`: the first of FAMILY_RULES that matches it."""
    for name, matches in FAMILY_RULES:
        if matches(op):
            return name
    raise AssertionError("the last rule matches every OpInfo")


@cache
def op_db() -> tuple[OpInfo, ...]:
    """torch's OpInfo database, imported once (about 10 s)."""
    from torch.testing._internal.common_methods_invocations import op_db as database

    return tuple(database)


def select(
    ops: Sequence[str] | None = None,
    families: Iterable[str] | None = None,
    database: Sequence[OpInfo] | None = None,
) -> list[OpInfo]:
    """The OpInfos to run: those named in `ops` (by name or full name), else those of
    `families` (default CI_FAMILIES). Unknown names raise ValueError."""
    database = op_db() if database is None else database
    if ops:
        wanted = set(ops)
        chosen = [op for op in database if op.name in wanted or full_name(op) in wanted]
        found = {op.name for op in chosen} | {full_name(op) for op in chosen}
        unknown = sorted(wanted - found)
        if unknown:
            raise ValueError(f"no OpInfo named {', '.join(unknown)}")
        return chosen
    chosen_families = tuple(CI_FAMILIES if families is None else families)
    unknown = sorted(set(chosen_families) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown family {', '.join(unknown)}; choose from {', '.join(FAMILIES)}")
    return [op for op in database if family_of(op) in chosen_families]
