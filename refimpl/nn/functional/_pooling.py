"""torch.nn.functional: max, average, adaptive, Lp and fractional pooling, max_unpool.

Torch: torch/nn/functional.py. `max_pool2d`, `adaptive_max_pool2d`, `fractional_max_pool2d`
and their 1d/3d kin choose between two functions on `return_indices`, as torch's
boolean_dispatch (torch/_jit_internal.py) does; avg_pool2d/3d are the torch._C._nn bindings
themselves, avg_pool1d and adaptive_avg_pool1d the torch.* functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from refimpl._C import _nn
from refimpl.api import functions as api_functions
from refimpl.api import nn_pooling as torch_api
from refimpl.api._torch_function import overridable
from refimpl.api.nn_pooling import adaptive_avg_pool1d, avg_pool1d
from refimpl.api.random import rand
from refimpl.nn.functional import _activation

__all__: list[str] = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


# torch: F.avg_pool2d / F.avg_pool3d are the torch._C._nn bindings themselves.
avg_pool2d = _nn.avg_pool2d
avg_pool3d = _nn.avg_pool3d


_F = TypeVar("_F", bound=Callable[..., Any])


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    # torch: _single / _pair / _triple (torch/nn/modules/utils.py): an iterable as a tuple,
    # anything else repeated n times.
    if isinstance(value, Iterable):
        return tuple(value)
    return (value,) * n


class _BooleanDispatch:
    """One of two functions, chosen by a boolean argument. Torch: the `fn` boolean_dispatch
    builds (torch/_jit_internal.py): the flag is read as a keyword, else at `index`, else
    False. It is not itself behind `__torch_function__`: the functions it calls are (each
    reporting the public function, as torch's handle_torch_function calls do)."""

    __slots__ = ("__dict__", "_if_false", "_if_true", "_index")
    # torch lists it among the overridable functions (torch.overrides), and its callees
    # report it to handlers: refimpl.overrides finds it by this mark.
    __wrapped_by_torch_function__ = True

    def __init__(
        self, name: str, index: int, if_true: Callable[..., Any], if_false: Callable[..., Any]
    ) -> None:
        self.__name__ = name
        self.__doc__ = if_true.__doc__
        self._index = index
        self._if_true = if_true
        self._if_false = if_false

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "return_indices" in kwargs:
            flag = kwargs["return_indices"]
        elif self._index < len(args):
            flag = args[self._index]
        else:
            flag = False
        return self._if_true(*args, **kwargs) if flag else self._if_false(*args, **kwargs)


def _python_level(fn: _F) -> _F:
    # torch: a function torch.nn.functional writes in Python, behind has_torch_function
    # (wrapped here, not by the package, because the dispatchers below hold it).
    wrapped: _F = overridable(fn, python_level=True)  # type: ignore[assignment]  # same signature
    return wrapped


def _reported_as(fn: Callable[..., Any], public: Callable[[], Any]) -> Callable[..., Any]:
    # torch: a function behind boolean_dispatch calls handle_torch_function with the public
    # function (`_max_pool2d` reports `max_pool2d`), counting plain Tensors as Python does.
    return overridable(fn, public=public, python_level=True)


# --- max pooling ---------------------------------------------------------------------------------


@_python_level
def max_pool1d_with_indices(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """(max, indices) of 1d max pooling. Torch: F.max_pool1d_with_indices
    (torch.max_pool1d_with_indices)."""
    if stride is None:
        stride = []
    return torch_api.max_pool1d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode
    )


def _max_pool1d_values(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    # torch: F._max_pool1d (torch.max_pool1d).
    if stride is None:
        stride = []
    return torch_api.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


_max_pool1d = _reported_as(_max_pool1d_values, lambda: max_pool1d)


@_python_level
def max_pool2d_with_indices(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """(max, indices) of 2d max pooling. Torch: F.max_pool2d_with_indices
    (torch._C._nn.max_pool2d_with_indices)."""
    if stride is None:
        stride = []
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d_values(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    # torch: F._max_pool2d (torch.max_pool2d).
    if stride is None:
        stride = []
    return torch_api.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


_max_pool2d = _reported_as(_max_pool2d_values, lambda: max_pool2d)


@_python_level
def max_pool3d_with_indices(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """(max, indices) of 3d max pooling. Torch: F.max_pool3d_with_indices
    (torch._C._nn.max_pool3d_with_indices; its CUDA deterministic branch does not apply)."""
    if stride is None:
        stride = []
    return _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool3d_values(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    # torch: F._max_pool3d (torch.max_pool3d).
    if stride is None:
        stride = []
    return torch_api.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


_max_pool3d = _reported_as(_max_pool3d_values, lambda: max_pool3d)


max_pool1d: _BooleanDispatch = _BooleanDispatch(
    "max_pool1d", 6, max_pool1d_with_indices, _max_pool1d
)
"""1d max pooling; (max, indices) with `return_indices`. Torch: F.max_pool1d."""


max_pool2d: _BooleanDispatch = _BooleanDispatch(
    "max_pool2d", 6, max_pool2d_with_indices, _max_pool2d
)
"""2d max pooling; (max, indices) with `return_indices`. Torch: F.max_pool2d."""


max_pool3d: _BooleanDispatch = _BooleanDispatch(
    "max_pool3d", 6, max_pool3d_with_indices, _max_pool3d
)
"""3d max pooling; (max, indices) with `return_indices`. Torch: F.max_pool3d."""


# --- max_unpool ----------------------------------------------------------------------------------


def _unpool_output_size(
    input: Any,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    output_size: Sequence[int] | None,
) -> Sequence[int]:
    """The unpooled spatial size: the default inverse of pooling's, or `output_size` (its
    last dims) if within a stride of it. Torch: F._unpool_output_size."""
    input_size = input.size()
    n = len(kernel_size)
    default_size = [
        (input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)
    ]
    ret: Sequence[int]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(
                "output_size should be a sequence containing "
                f"{n} or {n + 2} elements, but it has a length of '{len(output_size)}'"
            )
        for d in range(n):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between '
                    f"{min_size} and {max_size})"
                )
        ret = output_size  # torch returns the sequence as given (a tuple stays one)
    for d in range(n):
        # torch: _check_unpool_output_size (torch._check_value: ValueError).
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, "
                f"but got output_size[{d}]={ret[d]}"
            )
    return ret


def max_unpool1d(
    input: Any,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Any:
    """The partial inverse of max_pool1d. Torch: F.max_unpool1d (max_unpool2d over an
    unsqueezed last dim)."""
    kernel = _ntuple(kernel_size, 1)
    strides = _ntuple(stride, 1) if stride is not None else kernel
    pads = _ntuple(padding, 1)
    size = _unpool_output_size(input, kernel, strides, pads, output_size)
    size = [*size, 1] if isinstance(size, list) else (*size, 1)
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(
    input: Any,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Any:
    """The partial inverse of max_pool2d. Torch: F.max_unpool2d."""
    kernel = _ntuple(kernel_size, 2)
    strides = _ntuple(stride, 2) if stride is not None else kernel
    pads = _ntuple(padding, 2)
    size = _unpool_output_size(input, kernel, strides, pads, output_size)
    return _nn.max_unpool2d(input, indices, size)


def max_unpool3d(
    input: Any,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Any:
    """The partial inverse of max_pool3d. Torch: F.max_unpool3d."""
    kernel = _ntuple(kernel_size, 3)
    strides = _ntuple(stride, 3) if stride is not None else kernel
    pads = _ntuple(padding, 3)
    size = _unpool_output_size(input, kernel, strides, pads, output_size)
    return _nn.max_unpool3d(input, indices, size, strides, pads)


# --- Lp pooling ----------------------------------------------------------------------------------


def _lp_pool(
    input: Any,
    norm_type: float,
    kernel_size: Any,
    stride: Any,
    ceil_mode: bool,
    rank: int,
    max_pool: Callable[..., Any],
    avg_pool: Callable[..., Any],
) -> Any:
    # torch: lp_pool1d/2d/3d in torch/nn/functional.py, one body each there; the 2d and 3d
    # bodies unpack the kernel size first (`kw, kh = _pair(kernel_size)`: a ValueError for
    # too many values).
    factor: Any = kernel_size
    if rank == 2:
        kw, kh = _ntuple(kernel_size, 2)
        factor = kw * kh
    elif rank == 3:
        kd, kw, kh = _ntuple(kernel_size, 3)
        factor = kd * kw * kh
    if isinstance(norm_type, int | float):
        if norm_type == math.inf:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    # torch: F.relu, the activation family's function (read when called).
    relu = _activation.relu
    return (api_functions.sign(out) * relu(api_functions.abs(out))).mul(factor).pow(1.0 / norm_type)


def lp_pool1d(
    input: Any,
    norm_type: float,
    kernel_size: int,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Any:
    """1d power-average pooling. Torch: F.lp_pool1d."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, max_pool1d, avg_pool1d)


def lp_pool2d(
    input: Any,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Any:
    """2d power-average pooling. Torch: F.lp_pool2d."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, max_pool2d, avg_pool2d)


def lp_pool3d(
    input: Any,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Any:
    """3d power-average pooling. Torch: F.lp_pool3d."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, max_pool3d, avg_pool3d)


# --- adaptive pooling ----------------------------------------------------------------------------


def _list_with_default(out_size: Any, defaults: Sequence[int]) -> Any:
    """`out_size` with None entries taken from the input's last dims. Torch:
    F._list_with_default (torch/nn/modules/utils.py)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [
        v if v is not None else d
        for v, d in zip(out_size, defaults[-len(out_size) :], strict=False)
    ]


def _symint_list(size: Any, n: int) -> Any:
    # Differs: torch's argument parser fills a SymInt[n] parameter from one int; refimpl's
    # bindings match aten schemas, which (as torch.ops.aten) do not, so the int is repeated
    # here.
    return [size] * n if isinstance(size, int) else size


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """2d adaptive average pooling. Torch: F.adaptive_avg_pool2d."""
    size = _list_with_default(output_size, input.size())
    return _nn.adaptive_avg_pool2d(input, _symint_list(size, 2))


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """3d adaptive average pooling. Torch: F.adaptive_avg_pool3d."""
    size = _list_with_default(output_size, input.size())
    return _nn.adaptive_avg_pool3d(input, _symint_list(size, 3))


@_python_level
def adaptive_max_pool1d_with_indices(
    input: Any, output_size: Any, return_indices: bool = False
) -> Any:
    """(max, indices) of 1d adaptive max pooling. Torch: F.adaptive_max_pool1d_with_indices
    (torch.adaptive_max_pool1d)."""
    return torch_api.adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d_values(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    # torch: F._adaptive_max_pool1d.
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


_adaptive_max_pool1d = _reported_as(_adaptive_max_pool1d_values, lambda: adaptive_max_pool1d)


@_python_level
def adaptive_max_pool2d_with_indices(
    input: Any, output_size: Any, return_indices: bool = False
) -> Any:
    """(max, indices) of 2d adaptive max pooling. Torch: F.adaptive_max_pool2d_with_indices."""
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def _adaptive_max_pool2d_values(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    # torch: F._adaptive_max_pool2d.
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


_adaptive_max_pool2d = _reported_as(_adaptive_max_pool2d_values, lambda: adaptive_max_pool2d)


@_python_level
def adaptive_max_pool3d_with_indices(
    input: Any, output_size: Any, return_indices: bool = False
) -> Any:
    """(max, indices) of 3d adaptive max pooling. Torch: F.adaptive_max_pool3d_with_indices."""
    return _nn.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def _adaptive_max_pool3d_values(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    # torch: F._adaptive_max_pool3d.
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


_adaptive_max_pool3d = _reported_as(_adaptive_max_pool3d_values, lambda: adaptive_max_pool3d)


adaptive_max_pool1d: _BooleanDispatch = _BooleanDispatch(
    "adaptive_max_pool1d", 2, adaptive_max_pool1d_with_indices, _adaptive_max_pool1d
)
"""1d adaptive max pooling. Torch: F.adaptive_max_pool1d."""


adaptive_max_pool2d: _BooleanDispatch = _BooleanDispatch(
    "adaptive_max_pool2d", 2, adaptive_max_pool2d_with_indices, _adaptive_max_pool2d
)
"""2d adaptive max pooling. Torch: F.adaptive_max_pool2d."""


adaptive_max_pool3d: _BooleanDispatch = _BooleanDispatch(
    "adaptive_max_pool3d", 2, adaptive_max_pool3d_with_indices, _adaptive_max_pool3d
)
"""3d adaptive max pooling. Torch: F.adaptive_max_pool3d."""


# --- fractional max pooling ----------------------------------------------------------------------


@_python_level
def fractional_max_pool2d_with_indices(
    input: Any,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """(max, indices) of 2d fractional max pooling. Torch:
    F.fractional_max_pool2d_with_indices (samples drawn with torch.rand when not given)."""
    if output_size is None and output_ratio is None:
        raise ValueError(
            "fractional_max_pool2d requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError(
                "fractional_max_pool2d requires output_ratio to either be a single Int or "
                "tuple of Ints."
            )
        ratio = _ntuple(output_ratio, 2)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = rand(n_batch, input.size(-3), 2, dtype=input.dtype, device=input.device)
    return _nn.fractional_max_pool2d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool2d_values(
    input: Any,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    # torch: F._fractional_max_pool2d.
    return fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


_fractional_max_pool2d = _reported_as(_fractional_max_pool2d_values, lambda: fractional_max_pool2d)


@_python_level
def fractional_max_pool3d_with_indices(
    input: Any,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """(max, indices) of 3d fractional max pooling. Torch: F.fractional_max_pool3d_with_indices."""
    if output_size is None and output_ratio is None:
        raise ValueError(
            "fractional_max_pool3d requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        ratio = _ntuple(output_ratio, 3)
        output_size = [
            int(input.size(-3) * ratio[0]),
            int(input.size(-2) * ratio[1]),
            int(input.size(-1) * ratio[2]),
        ]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = rand(n_batch, input.size(-4), 3, dtype=input.dtype, device=input.device)
    return _nn.fractional_max_pool3d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool3d_values(
    input: Any,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    # torch: F._fractional_max_pool3d.
    return fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


_fractional_max_pool3d = _reported_as(_fractional_max_pool3d_values, lambda: fractional_max_pool3d)


fractional_max_pool2d: _BooleanDispatch = _BooleanDispatch(
    "fractional_max_pool2d", 4, fractional_max_pool2d_with_indices, _fractional_max_pool2d
)
"""2d fractional max pooling. Torch: F.fractional_max_pool2d."""


fractional_max_pool3d: _BooleanDispatch = _BooleanDispatch(
    "fractional_max_pool3d", 4, fractional_max_pool3d_with_indices, _fractional_max_pool3d
)
"""3d fractional max pooling. Torch: F.fractional_max_pool3d."""
