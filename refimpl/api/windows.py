"""The window factories of torch: hann_window, hamming_window, blackman_window,
bartlett_window and kaiser_window.

Torch: their generated Python bindings (python_torch_functions.cpp, over torch::hann_window
etc. in torch/csrc/autograd/generated/variable_factories.h): the arguments are matched against
the aten overloads (`hamming_window(8, False, 0.5)` is hamming_window.periodic_alpha; there is
no out=), the aten op runs below autograd, and the result takes `requires_grad`. The values
are computed by the aten ops in refimpl/ops/windows.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from refimpl._base.device import as_device, device
from refimpl._base.dtypes import DType
from refimpl.api._autograd_methods import set_requires_grad_for_factory
from refimpl.api._call import Binding, call_packet, invalid_arguments
from refimpl.dispatch.tls import AutoDispatchBelowADInplaceOrView
from refimpl.ops import aten

if TYPE_CHECKING:
    from refimpl.api.tensor import Tensor

__all__ = [
    "bartlett_window",
    "blackman_window",
    "hamming_window",
    "hann_window",
    "kaiser_window",
]

_CPU: Final = device("cpu")


def _window(
    binding: Binding,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    dtype: DType | None,
    layout: Any,
    dev: device | str | int | None,
    pin_memory: bool | None,
    requires_grad: bool,
) -> Tensor:
    """The aten overload for the arguments, called below autograd; then `requires_grad`.

    torch: the binding passes the device (the default device when none is given) and
    pin_memory to the aten op, so the window checks print them as given; dtype and layout
    only when given.
    """
    given = {**kwargs}
    for name, value in (("dtype", dtype), ("layout", layout), ("device", dev)):
        if value is not None:
            given[name] = value
    if pin_memory:
        given["pin_memory"] = pin_memory
    if dtype is not None and not isinstance(dtype, DType):
        raise invalid_arguments(binding, args, given)
    options: dict[str, Any] = {
        "device": _CPU if dev is None else dev,
        "pin_memory": bool(pin_memory),
    }
    if isinstance(options["device"], (str, int)):
        options["device"] = as_device(options["device"])
    try:
        with AutoDispatchBelowADInplaceOrView():
            result: Tensor = call_packet(binding, args, {**given, **options})
    except TypeError as error:
        if not str(error).startswith(f"{binding.name}()"):
            raise
        # torch's parser names only the arguments the caller gave.
        raise invalid_arguments(binding, args, given) from None
    if requires_grad:
        set_requires_grad_for_factory(result)
    return result


_HANN: Final = Binding("hann_window", "torch", aten.hann_window)
_HAMMING: Final = Binding("hamming_window", "torch", aten.hamming_window)
_BLACKMAN: Final = Binding("blackman_window", "torch", aten.blackman_window)
_BARTLETT: Final = Binding("bartlett_window", "torch", aten.bartlett_window)
_KAISER: Final = Binding("kaiser_window", "torch", aten.kaiser_window)


def hann_window(
    window_length: Any,
    *args: Any,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """The Hann window, 0.5 - 0.5 cos(2 pi n / (N - 1)), periodic unless `periodic=False`.

    Torch: torch.hann_window(window_length, periodic=True, *, dtype=None, layout=torch.strided,
    device=None, requires_grad=False) (aten.hann_window, .periodic).
    """
    return _window(
        _HANN, (window_length, *args), kwargs, dtype, layout, device, pin_memory, requires_grad
    )


def hamming_window(
    window_length: Any,
    *args: Any,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """The Hamming window, alpha - beta cos(2 pi n / (N - 1)) (alpha 0.54, beta 0.46).

    Torch: torch.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *,
    dtype=None, layout=torch.strided, device=None, requires_grad=False): alpha only after
    periodic, beta only after alpha (aten.hamming_window, .periodic, .periodic_alpha,
    .periodic_alpha_beta).
    """
    return _window(
        _HAMMING, (window_length, *args), kwargs, dtype, layout, device, pin_memory, requires_grad
    )


def blackman_window(
    window_length: Any,
    *args: Any,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """The Blackman window, 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    Torch: torch.blackman_window(window_length, periodic=True, *, dtype=None,
    layout=torch.strided, device=None, requires_grad=False).
    """
    return _window(
        _BLACKMAN, (window_length, *args), kwargs, dtype, layout, device, pin_memory, requires_grad
    )


def bartlett_window(
    window_length: Any,
    *args: Any,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """The Bartlett (triangular) window, 1 - |2n / (N - 1) - 1|.

    Torch: torch.bartlett_window(window_length, periodic=True, *, dtype=None,
    layout=torch.strided, device=None, requires_grad=False).
    """
    return _window(
        _BARTLETT, (window_length, *args), kwargs, dtype, layout, device, pin_memory, requires_grad
    )


def kaiser_window(
    window_length: Any,
    *args: Any,
    dtype: DType | None = None,
    layout: Any = None,
    device: device | str | int | None = None,
    pin_memory: bool | None = False,
    requires_grad: bool = False,
    **kwargs: Any,
) -> Tensor:
    """The Kaiser window, I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta) (beta 12).

    Torch: torch.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None,
    layout=torch.strided, device=None, requires_grad=False): beta only after periodic
    (aten.kaiser_window, .periodic, .beta).
    """
    return _window(
        _KAISER, (window_length, *args), kwargs, dtype, layout, device, pin_memory, requires_grad
    )
