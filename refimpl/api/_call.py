"""The one place every refimpl.* function and Tensor method passes through on its way to aten.

Torch: the generated Python bindings (python_torch_functions.cpp, python_variable_methods.cpp)
over torch/csrc/utils/python_arg_parser.cpp: they check for `__torch_function__` overrides,
match the arguments against torch's Python signatures, and call the aten overload. Here the
aten packet does the matching (its overload order is torch's), with torch's Python spelling
of the first argument (`input`) mapped to the schema's (`self`). The next layer up, the
`__torch_function__` protocol (issue 13), hooks into `call_packet`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from refimpl._base.spec import api_signatures
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.binding import NoMatchingSchema
from refimpl.dispatch.overloads import OpOverloadPacket, namespace

_ATEN: Final = namespace("aten")


def call_packet(
    api_name: str, packet: OpOverloadPacket, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Call `packet` as torch's Python binding `api_name` would.

    `input=` is the schema's `self`; an explicit `out=None` means no out= overload. Arguments
    that fit none of torch's signatures raise TypeError, as torch's argument parser does.
    """
    if kwargs:
        kwargs = dict(kwargs)
        if "input" in kwargs and "self" not in kwargs:
            kwargs["self"] = kwargs.pop("input")
        if "out" in kwargs and kwargs["out"] is None:
            del kwargs["out"]
    try:
        return packet(*args, **kwargs)
    except NoMatchingSchema:
        raise invalid_arguments(api_name, args, kwargs) from None


def _type_name(value: object) -> str:
    if isinstance(value, TensorImpl):
        return "Tensor"
    if isinstance(value, bool):
        return "bool"
    return type(value).__name__


def invalid_arguments(api_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    """Torch's TypeError for arguments that match no signature.

    Torch: PythonArgParser::print_error in python_arg_parser.cpp ("add() received an invalid
    combination of arguments - got (str, int), but expected one of: ...").
    """
    method = bool(args) and isinstance(args[0], TensorImpl)
    namespace_name = "Tensor" if method else "torch"
    signatures = api_signatures(namespace_name, api_name) or api_signatures("torch", api_name)
    got = ", ".join(
        [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    )
    lines = [f"{api_name}() received an invalid combination of arguments - got ({got}), "
             "but expected one of:"]
    for signature in signatures:
        params = ", ".join(
            p.name if p.default is None else f"{p.name} = {p.default}"
            for p in signature.parameters
            if p.name != "self"
        )
        lines.append(f" * ({params})")
    return TypeError("\n".join(lines))


def torch_function(name: str, aten_name: str | None = None) -> Callable[..., Any]:
    """`refimpl.<name>`: calls the aten packet `aten.<aten_name or name>` through
    `call_packet`. Torch: `torch.<name>`."""
    packet: OpOverloadPacket = getattr(_ATEN, aten_name or name)

    def function(*args: Any, **kwargs: Any) -> Any:
        return call_packet(name, packet, args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "refimpl"
    function.__doc__ = f"Torch: torch.{name} (the aten.{aten_name or name} overloads)."
    return function


def method(name: str, aten_name: str | None = None) -> Callable[..., Any]:
    """`Tensor.<name>`: calls `aten.<aten_name or name>` with the tensor as `self`.
    Torch: `torch.Tensor.<name>`."""
    packet: OpOverloadPacket = getattr(_ATEN, aten_name or name)

    def bound(self: TensorImpl, *args: Any, **kwargs: Any) -> Any:
        return call_packet(name, packet, (self, *args), kwargs)

    bound.__name__ = name
    bound.__qualname__ = f"Tensor.{name}"
    bound.__doc__ = f"Torch: torch.Tensor.{name} (the aten.{aten_name or name} overloads)."
    return bound
