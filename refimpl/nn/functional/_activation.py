"""torch.nn.functional: activation functions (relu, gelu, elu, hardtanh, silu, ...), the
softmax family (softmax, softmin, log_softmax, gumbel_softmax) and the dropout family.

Torch: torch/nn/functional.py. Where torch's F function IS a binding, refimpl's is the same
binding: torch._C._nn ones from refimpl._C._nn (`F.gelu is torch._C._nn.gelu`), torch.* ones
from refimpl.api (`F.prelu is torch.prelu`). The Python functions check, warn and call what
torch's call (the `inplace` flag picks the trailing-underscore binding).
"""

from __future__ import annotations

import warnings
from typing import Any

from refimpl._base.dtypes import DType
from refimpl._base.memory_format import contiguous_format
from refimpl._C import _nn
from refimpl.api import distributions as _distributions
from refimpl.api import factories as _factories
from refimpl.api import nn_activation as _api
from refimpl.api._call import torch_function
from refimpl.api._torch_function import overridable
from refimpl.api.nn_activation import celu_, hardshrink, prelu, relu_, rrelu_, selu_, threshold_

__all__: list[str] = [
    "_threshold",
    "alpha_dropout",
    "celu",
    "celu_",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "elu_",
    "feature_alpha_dropout",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]


# torch._C._nn bindings (refimpl._C._nn fills its namespace from the spec, so they are read
# from it by name).
_elu: Any = vars(_nn)["elu"]
gelu: Any = vars(_nn)["gelu"]
softplus: Any = vars(_nn)["softplus"]
softshrink: Any = vars(_nn)["softshrink"]
_glu: Any = vars(_nn)["glu"]
_hardsigmoid: Any = vars(_nn)["hardsigmoid"]
_hardswish: Any = vars(_nn)["hardswish"]
_hardtanh: Any = vars(_nn)["hardtanh"]
_leaky_relu: Any = vars(_nn)["leaky_relu"]
logsigmoid: Any = vars(_nn)["log_sigmoid"]
_mish: Any = vars(_nn)["mish"]
_relu6: Any = vars(_nn)["relu6"]
_relu6_: Any = vars(_nn)["relu6_"]
_silu: Any = vars(_nn)["silu"]


def _nn_inplace(name: str) -> Any:
    """The torch._C._nn binding `name` (an in-place activation: elu_, hardtanh_, ...).

    Differs: refimpl._C._nn makes its bindings from spec/api_signatures.json, which records
    none of torch._C._nn's in-place activations but relu6_ (spec/extract.py reads them from
    torch/_C/_nn.pyi), so where refimpl._C._nn lacks one, the same binding (torch_function,
    behind __torch_function__) is made here. F.elu_ is torch._C._nn.elu_ in torch.
    """
    found: Any = vars(_nn).get(name)
    if found is None:
        found = overridable(torch_function(name, module="torch._C._nn"))
    return found


elu_ = _nn_inplace("elu_")
hardtanh_ = _nn_inplace("hardtanh_")
leaky_relu_ = _nn_inplace("leaky_relu_")
_hardsigmoid_ = _nn_inplace("hardsigmoid_")
_hardswish_ = _nn_inplace("hardswish_")
_mish_ = _nn_inplace("mish_")
_silu_ = _nn_inplace("silu_")


# --- relu, relu6, threshold, hardtanh, leaky_relu, rrelu -------------------------------------


def _threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """`value` where input <= threshold, else input. Torch: F._threshold, which F.threshold
    is (torch.threshold / torch.threshold_)."""
    if inplace:
        return _api.threshold_(input, threshold, value)
    return _api.threshold(input, threshold, value)


threshold = _threshold


def relu(input: Any, inplace: bool = False) -> Any:
    """max(input, 0). Torch: F.relu (torch.relu / torch.relu_)."""
    if inplace:
        return _api.relu_(input)
    return _api.relu(input)


def relu6(input: Any, inplace: bool = False) -> Any:
    """min(max(input, 0), 6). Torch: F.relu6 (torch._C._nn.relu6 / relu6_)."""
    if inplace:
        return _relu6_(input)
    return _relu6(input)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:
    """input clamped to [min_val, max_val]. Torch: F.hardtanh."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _hardtanh(input, min_val, max_val)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    """input where positive, else input * negative_slope. Torch: F.leaky_relu."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _leaky_relu(input, negative_slope)


def rrelu(
    input: Any,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Any:
    """Leaky relu with a random slope in [lower, upper] per element in training, else
    (lower + upper) / 2. Torch: F.rrelu (torch.rrelu / torch.rrelu_)."""
    if inplace:
        return _api.rrelu_(input, lower, upper, training)
    return _api.rrelu(input, lower, upper, training)


# --- elu, selu, celu, glu --------------------------------------------------------------------


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """input above 0, else alpha * (exp(input) - 1). Torch: F.elu."""
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha)


def selu(input: Any, inplace: bool = False) -> Any:
    """Scaled elu with SELU's constants. Torch: F.selu (torch.selu / torch.selu_)."""
    if inplace:
        return _api.selu_(input)
    return _api.selu(input)


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)). Torch: F.celu."""
    if inplace:
        return _api.celu_(input, alpha)
    return _api.celu(input, alpha)


def glu(input: Any, dim: int = -1) -> Any:
    """a * sigmoid(b) for input split in halves a, b along dim. Torch: F.glu."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _glu(input, dim)


# --- tanhshrink, softsign, tanh, sigmoid, hardsigmoid, silu, mish, hardswish -----------------


def tanhshrink(input: Any) -> Any:
    """input - tanh(input). Torch: F.tanhshrink."""
    return input - input.tanh()


def softsign(input: Any) -> Any:
    """input / (|input| + 1). Torch: F.softsign."""
    return input / (input.abs() + 1)


def tanh(input: Any) -> Any:
    """Torch: F.tanh (input.tanh())."""
    return input.tanh()


def sigmoid(input: Any) -> Any:
    """Torch: F.sigmoid (input.sigmoid())."""
    return input.sigmoid()


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    """min(max(input + 3, 0), 6) / 6. Torch: F.hardsigmoid."""
    if inplace:
        return _hardsigmoid_(input)
    return _hardsigmoid(input)


def silu(input: Any, inplace: bool = False) -> Any:
    """input * sigmoid(input). Torch: F.silu."""
    if inplace:
        return _silu_(input)
    return _silu(input)


def mish(input: Any, inplace: bool = False) -> Any:
    """input * tanh(softplus(input)). Torch: F.mish."""
    if inplace:
        return _mish_(input)
    return _mish(input)


def hardswish(input: Any, inplace: bool = False) -> Any:
    """input * hardsigmoid(input). Torch: F.hardswish."""
    if inplace:
        return _hardswish_(input)
    return _hardswish(input)


# --- softmax, softmin, log_softmax, gumbel_softmax -------------------------------------------


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dim of an implicit-dim softmax call, with torch's deprecation warning.
    Torch: F._get_softmax_dim."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        # torch's `_stacklevel` counts from here to the caller; the __torch_function__
        # wrapper of the F function is one frame more.
        stacklevel=stacklevel + 1,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmin(
    input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Any:
    """softmax(-input). Torch: F.softmin."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def softmax(
    input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Any:
    """exp(input) / sum(exp(input)) along dim. Torch: F.softmax."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def gumbel_softmax(
    logits: Any, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Any:
    """softmax((logits + Gumbel noise) / tau), one-hot (straight-through) when `hard`.

    Torch: F.gumbel_softmax: the noise is -log of exponential_() draws on an empty_like.
    """
    if eps != 1e-10:
        # torch's stacklevel=2, plus the __torch_function__ wrapper's frame.
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=3)
    gumbels = -_factories.empty_like(logits, memory_format=contiguous_format).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _factories.zeros_like(logits, memory_format=contiguous_format).scatter_(
            dim, index, 1.0
        )
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def log_softmax(
    input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Any:
    """log(softmax(input)) along dim. Torch: F.log_softmax."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


# --- dropout, alpha_dropout, dropout1d/2d/3d, feature_alpha_dropout ---------------------------


def _check_p(p: float) -> None:
    # torch: the check at the start of each F dropout function.
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Elements zeroed with probability p, the rest scaled by 1 / (1 - p). Torch: F.dropout."""
    _check_p(p)
    if inplace:
        return _distributions.dropout_(input, p, training)
    return _distributions.dropout(input, p, training)


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Any:
    """Dropout keeping SELU's mean and variance. Torch: F.alpha_dropout."""
    _check_p(p)
    if inplace:
        return _distributions.alpha_dropout_(input, p, training)
    return _distributions.alpha_dropout(input, p, training)


def _feature_dropout(input: Any, p: float, training: bool, inplace: bool) -> Any:
    # torch: _VF.feature_dropout_ if inplace else _VF.feature_dropout.
    if inplace:
        return _distributions.feature_dropout_(input, p, training)
    return _distributions.feature_dropout(input, p, training)


def _unbatched_feature_dropout(input: Any, p: float, training: bool, inplace: bool) -> Any:
    # torch: dropout1d / dropout3d on an unbatched input: unsqueeze(0), drop, squeeze(0).
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Whole channels of a (N, C, L) or (C, L) input zeroed. Torch: F.dropout1d."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    if inp_dim == 3:
        return _feature_dropout(input, p, training, inplace)
    return _unbatched_feature_dropout(input, p, training, inplace)


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Whole channels of a (N, C, H, W) input zeroed; a 3-D input is taken as (N, C, L).
    Torch: F.dropout2d (and its two deprecation warnings)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warn_msg = (
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."
        )
        warnings.warn(warn_msg, stacklevel=3)  # torch's 2, plus the wrapper's frame
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=3,  # torch's 2, plus the __torch_function__ wrapper's frame
        )
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Whole channels of a (N, C, D, H, W) or (C, D, H, W) input zeroed. Torch: F.dropout3d."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warn_msg = (
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs)."
        )
        warnings.warn(warn_msg, stacklevel=3)  # torch's 2, plus the wrapper's frame
    if inp_dim == 5:
        return _feature_dropout(input, p, training, inplace)
    return _unbatched_feature_dropout(input, p, training, inplace)


def feature_alpha_dropout(
    input: Any, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Any:
    """Whole channels set to SELU's negative saturation value. Torch: F.feature_alpha_dropout."""
    _check_p(p)
    if inplace:
        return _distributions.feature_alpha_dropout_(input, p, training)
    return _distributions.feature_alpha_dropout(input, p, training)
