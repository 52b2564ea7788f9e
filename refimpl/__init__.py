"""refimpl: PyTorch's eager stack as readable Python over Array API libraries.

`import refimpl as torch` gives torch's public names: tensors, dtypes, devices, factories,
promotion, random numbers; `refimpl.config` picks the array backend per device type.
"""

from __future__ import annotations

import builtins as _builtins
import importlib

__version__ = "0.1.0"

# Public modules with torch's paths: refimpl.ops (torch.ops), refimpl.library, refimpl._C.
from refimpl import _C as _C
from refimpl import autograd as autograd
from refimpl import fft as fft
from refimpl import functional as functional
from refimpl import library as library
from refimpl import linalg as linalg
from refimpl import ops as ops
from refimpl import random as random
from refimpl import return_types as return_types
from refimpl import special as special
from refimpl import utils as utils
from refimpl._base.device import device
from refimpl._base.dtypes import (
    DType as dtype,
)
from refimpl._base.dtypes import (
    bfloat16,
    complex32,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from refimpl._base.dtypes import (
    bool_ as bool,
)
from refimpl._base.finfo import finfo, iinfo
from refimpl._base.layout import (
    _mkldnn as _mkldnn,
)
from refimpl._base.layout import (
    jagged,
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from refimpl._base.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from refimpl._base.promotion import get_default_dtype, set_default_dtype
from refimpl._base.size import Size
from refimpl._base.spec import api_signatures, torch_public_names
from refimpl._base.tags import Tag
from refimpl.api import (
    constructions,
    distributions,
    indexing_ops,
    joins,
    linalg_norms,
    linalg_solve,
    linalg_spectral,
    masking,
    nn_activation,
    nn_attention,
    nn_convolution,
    nn_embedding,
    nn_loss,
    nn_margin,
    nn_normalization,
    nn_pooling,
    nn_sampling,
    padding,
    products,
    reductions,
    scans,
    sorting,
    spectral,
    statistics,
)
from refimpl.api import softmax as _softmax_family  # `softmax` is also torch.softmax
from refimpl.api._tensor_str import get_printoptions, set_printoptions

# Each family of operators lists its torch.* names in its module's __all__.
from refimpl.api.constructions import *
from refimpl.api.conversions import *
from refimpl.api.default_device import *
from refimpl.api.distributions import *
from refimpl.api.factories import (
    arange,
    as_strided_,
    as_tensor,
    empty,
    empty_like,
    empty_permuted,
    empty_strided,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    resize_as_,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from refimpl.api.functions import (
    abs,
    absolute,
    acos,
    acosh,
    add,
    addcdiv,
    addcmul,
    allclose,
    angle,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    clone,
    complex,
    conj,
    conj_physical,
    copysign,
    cos,
    cosh,
    deg2rad,
    digamma,
    div,
    divide,
    eq,
    equal,
    erf,
    erfc,
    erfinv,
    exp,
    exp2,
    expm1,
    fill,
    fix,
    float_power,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    frac,
    frexp,
    gcd,
    ge,
    greater,
    greater_equal,
    gt,
    heaviside,
    hypot,
    i0,
    igamma,
    igammac,
    imag,
    isclose,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isreal,
    lcm,
    ldexp,
    le,
    lerp,
    less,
    less_equal,
    lgamma,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    logit,
    lt,
    masked_fill,
    maximum,
    minimum,
    mul,
    multiply,
    mvlgamma,
    nan_to_num,
    ne,
    neg,
    negative,
    nextafter,
    not_equal,
    polar,
    polygamma,
    positive,
    pow,
    rad2deg,
    real,
    reciprocal,
    remainder,
    resolve_conj,
    resolve_neg,
    round,
    rsqrt,
    rsub,
    sgn,
    sigmoid,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    sqrt,
    square,
    sub,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
    view_as_complex,
    view_as_real,
    where,
    xlogy,
    zero_,
)
from refimpl.api.functions_inplace import *
from refimpl.api.global_switches import *
from refimpl.api.indexing_ops import *
from refimpl.api.joins import *
from refimpl.api.linalg_norms import *
from refimpl.api.linalg_solve import *
from refimpl.api.linalg_spectral import *
from refimpl.api.masking import *
from refimpl.api.math_bits import *
from refimpl.api.nn_activation import *
from refimpl.api.nn_attention import *
from refimpl.api.nn_convolution import *
from refimpl.api.nn_embedding import *
from refimpl.api.nn_loss import *
from refimpl.api.nn_margin import *
from refimpl.api.nn_normalization import *
from refimpl.api.nn_pooling import *
from refimpl.api.nn_sampling import *
from refimpl.api.padding import *
from refimpl.api.products import *
from refimpl.api.promotion import can_cast, promote_types, result_type
from refimpl.api.random import (
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from refimpl.api.reductions import *
from refimpl.api.rnn import *
from refimpl.api.scans import *
from refimpl.api.softmax import *
from refimpl.api.sorting import *
from refimpl.api.spectral import *
from refimpl.api.statistics import *
from refimpl.api.tensor import Tensor
from refimpl.api.tensor_queries import *
from refimpl.api.tensor_surface import *
from refimpl.api.torch_misc import *
from refimpl.api.windows import *
from refimpl.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from refimpl.core.config import config
from refimpl.core.random import Generator
from refimpl.core.storage import Storage as UntypedStorage
from refimpl.dispatch.schema import FunctionSchema, parse_schema
from refimpl.random import default_generator

# torch's dtype aliases.
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128
chalf = complex32

__all__ = [
    "FunctionSchema",
    "Generator",
    "Size",
    "Tag",
    "Tensor",
    "UntypedStorage",
    "__version__",
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "addcdiv",
    "addcmul",
    "allclose",
    "angle",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "as_strided_",
    "as_tensor",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "autograd",
    "bfloat16",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bool",
    "can_cast",
    "cdouble",
    "ceil",
    "cfloat",
    "chalf",
    "channels_last",
    "channels_last_3d",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "complex",
    "complex32",
    "complex64",
    "complex128",
    "config",
    "conj",
    "conj_physical",
    "contiguous_format",
    "copysign",
    "cos",
    "cosh",
    "default_generator",
    "deg2rad",
    "device",
    "digamma",
    "div",
    "divide",
    "double",
    "dtype",
    "empty",
    "empty_like",
    "empty_permuted",
    "empty_strided",
    "enable_grad",
    "eq",
    "equal",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "fill",
    "finfo",
    "fix",
    "float",
    "float16",
    "float32",
    "float64",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frac",
    "frexp",
    "from_numpy",
    "full",
    "full_like",
    "gcd",
    "ge",
    "get_default_dtype",
    "get_printoptions",
    "get_rng_state",
    "greater",
    "greater_equal",
    "gt",
    "half",
    "heaviside",
    "hypot",
    "i0",
    "igamma",
    "igammac",
    "iinfo",
    "imag",
    "inference_mode",
    "initial_seed",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "jagged",
    "layout",
    "lcm",
    "ldexp",
    "le",
    "lerp",
    "less",
    "less_equal",
    "lgamma",
    "library",
    "linspace",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logspace",
    "long",
    "lt",
    "manual_seed",
    "masked_fill",
    "maximum",
    "memory_format",
    "minimum",
    "mul",
    "multiply",
    "mvlgamma",
    "nan_to_num",
    "ne",
    "neg",
    "negative",
    "nextafter",
    "no_grad",
    "normal",
    "not_equal",
    "ones",
    "ones_like",
    "ops",
    "parse_schema",
    "polar",
    "polygamma",
    "positive",
    "pow",
    "preserve_format",
    "promote_types",
    "rad2deg",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "real",
    "reciprocal",
    "remainder",
    "resize_as_",
    "resolve_conj",
    "resolve_neg",
    "result_type",
    "round",
    "rsqrt",
    "rsub",
    "scalar_tensor",
    "seed",
    "set_default_dtype",
    "set_grad_enabled",
    "set_printoptions",
    "set_rng_state",
    "sgn",
    "short",
    "sigmoid",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "sqrt",
    "square",
    "strided",
    "sub",
    "subtract",
    "tan",
    "tanh",
    "tensor",
    "true_divide",
    "trunc",
    "uint8",
    "view_as_complex",
    "view_as_real",
    "where",
    "xlogy",
    "zero_",
    "zeros",
    "zeros_like",
]

for _family in (
    constructions, distributions, indexing_ops, joins, linalg_norms, linalg_solve,
    linalg_spectral, masking, nn_activation, nn_attention, nn_convolution, nn_embedding,
    nn_loss, nn_margin, nn_normalization, nn_pooling, nn_sampling, padding, products,
    reductions, scans, _softmax_family, sorting, spectral, statistics,
):
    __all__ += _family.__all__


# Every overridable refimpl.* function goes through the __torch_function__ protocol.
from refimpl.api._torch_function import (
    DisableTorchFunction as DisableTorchFunction,
)
from refimpl.api._torch_function import (
    DisableTorchFunctionSubclass as DisableTorchFunctionSubclass,
)
from refimpl.api._torch_function import install_on_namespace as _install_on_namespace
from refimpl.api._torch_function import overridable as _overridable
from refimpl.autograd import grad_mode as _autograd_grad_mode

_install_on_namespace(globals(), "torch")
_install_on_namespace(globals(), "torch.functional")  # torch.norm, einsum, ... are these
_install_on_namespace(vars(special), "torch.special")
_install_on_namespace(vars(linalg), "torch.linalg")
_install_on_namespace(vars(fft), "torch.fft")

# torch.nn.functional (refimpl/nn) and torch.masked (refimpl/masked) sit above the torch API;
# they are imported once that is whole.
from refimpl import masked as masked
from refimpl import nn as nn
from refimpl import signal as signal
from refimpl._C import _nn as _C_nn  # torch._C._nn, the bindings F uses

del _C_nn


def _set_grad_enabled(mode: _builtins.bool) -> None:
    """Torch: torch._C._set_grad_enabled, what the grad-mode context managers call (a
    TorchFunctionMode sees it)."""
    _autograd_grad_mode.GRAD_STATE.enabled = mode


# The grad-mode setter and autograd.grad go through the protocol as torch's do.
_set_grad_enabled = _overridable(_set_grad_enabled, modes_only=True)
_C._set_grad_enabled = _set_grad_enabled  # type: ignore[attr-defined]
_autograd_grad_mode.GRAD_MODE_SETTER.set = _set_grad_enabled
autograd.grad = _overridable(autograd.grad, python_level=True)


# torch's constants: torch/__init__.py takes e, inf, nan and pi from math; newaxis is None.
from math import e as e
from math import inf as inf
from math import nan as nan
from math import pi as pi

newaxis: None = None


def __getattr__(name: str) -> object:
    # torch._subclasses (FakeTensor) loads on first use: `import refimpl` does not pay for it.
    if name == "_subclasses":
        return importlib.import_module("refimpl._subclasses")
    # torch's public names that refimpl does not have yet say so, rather than a bare
    # AttributeError (the names come from torch's stubs, spec/api_signatures.json, and the
    # torch module's attributes, spec/torch_names.json).
    if not name.startswith("__") and (
        api_signatures("torch", name) or name in torch_public_names("torch")
    ):
        raise AttributeError(
            f"refimpl does not implement torch.{name} yet (module 'refimpl' has no attribute "
            f"'{name}')"
        )
    raise AttributeError(f"module 'refimpl' has no attribute '{name}'")
