"""refimpl: PyTorch's eager stack as readable Python over Array API libraries.

`import refimpl as torch` gives torch's public names: tensors, dtypes, devices, factories,
promotion, random numbers; `refimpl.config` picks the array backend per device type.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Public modules with torch's paths: refimpl.ops (torch.ops), refimpl.library, refimpl._C.
from refimpl import _C as _C
from refimpl import library as library
from refimpl import ops as ops
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
from refimpl._base.layout import layout, strided
from refimpl._base.promotion import get_default_dtype, set_default_dtype
from refimpl._base.size import Size
from refimpl._base.tags import Tag
from refimpl.api._tensor_str import get_printoptions, set_printoptions
from refimpl.api.factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from refimpl.api.promotion import can_cast, promote_types, result_type
from refimpl.api.random import (
    get_rng_state,
    initial_seed,
    manual_seed,
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
from refimpl.api.tensor import Tensor
from refimpl.core.config import config
from refimpl.core.random import Generator
from refimpl.core.storage import Storage as UntypedStorage
from refimpl.dispatch.schema import FunctionSchema, parse_schema

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
    "arange",
    "as_tensor",
    "bfloat16",
    "bool",
    "can_cast",
    "cdouble",
    "cfloat",
    "chalf",
    "complex32",
    "complex64",
    "complex128",
    "config",
    "device",
    "double",
    "dtype",
    "empty",
    "empty_like",
    "eye",
    "finfo",
    "float",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "get_printoptions",
    "get_rng_state",
    "half",
    "iinfo",
    "initial_seed",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "layout",
    "library",
    "linspace",
    "logspace",
    "long",
    "manual_seed",
    "ones",
    "ones_like",
    "ops",
    "parse_schema",
    "promote_types",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "result_type",
    "seed",
    "set_default_dtype",
    "set_printoptions",
    "set_rng_state",
    "short",
    "strided",
    "tensor",
    "uint8",
    "zeros",
    "zeros_like",
]
