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

from refimpl._base.spec import ApiParameter, ApiSignature, ParameterKind, api_signatures
from refimpl.api.return_types import StructSeq, return_type
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.binding import NoMatchingSchema
from refimpl.dispatch.overloads import OpOverloadPacket, namespace

_ATEN: Final = namespace("aten")


# Note [The reduction default of torch's Python bindings]
# native_functions.yaml writes `int reduction=at::Reduction::Mean`; the aten schema's default
# is Mean (1), but torch's Python argument parser reads an int default with atol, which
# gives 0 for that text: so `torch.kl_div(a, b)`, `torch._C._nn.mse_loss(a, b)` and
# `torch.ctc_loss(...)` without `reduction` are unreduced (Reduction::None), while
# `torch.ops.aten.kl_div(a, b)` is the mean (measured on torch 2.13). A binding whose schema
# has such an argument passes reduction=0 when the call leaves it out; F's functions always
# pass it.
_REDUCTION_MEAN: Final = 1
_REDUCTION_NONE: Final = 0


class Binding:
    """How one torch Python function reaches its aten packet.

    Torch: the generated binding of `torch.<name>` / `Tensor.<name>` and its signatures.
    """

    __slots__ = (
        "accepts_out",
        "input_is_self",
        "name",
        "namespace",
        "out_names",
        "out_signatures",
        "packet",
        "returns",
        "returns_list",
        "returns_out",
        "unreduced_from",
    )

    def __init__(self, name: str, namespace_name: str, packet: OpOverloadPacket) -> None:
        self.name = name
        self.namespace = namespace_name
        self.packet = packet
        signatures = api_signatures(namespace_name, name)
        # torch: a binding takes `out=` only where one of its Python signatures has it.
        self.accepts_out = not signatures or any(
            p.name == "out" for s in signatures for p in s.parameters
        )
        # For each signature with `out`: its positional parameters (the method's own `self`
        # left out), the required ones, and every name a keyword may use.
        self.out_signatures: tuple[OutSignature, ...]
        self.out_signatures = tuple(
            _out_signature(s) for s in signatures if any(p.name == "out" for p in s.parameters)
        )
        # The names of the outputs of a multi-output out= overload (frexp: mantissa,
        # exponent), which torch's binding takes as one tuple `out=(m, e)`.
        self.out_names: dict[int, tuple[str, ...]] = {}
        # torch: an op whose schema names each of several returns gives a structseq,
        # torch.return_types.<op> (its out= form <op>_out); see api/return_types.py.
        self.returns: type[StructSeq] | None = None
        self.returns_out: type[StructSeq] | None = None
        # torch: a binding returns a Tensor[] result as a tuple (wrap(TensorList)).
        self.returns_list = False
        # See Note [The reduction default of torch's Python bindings].
        self.unreduced_from: int | None = None
        # `input=` names the schema's `self`, unless no schema has a `self` (lstm's is `input`).
        self.input_is_self = False
        for overload_name in packet.overloads():
            schema = getattr(packet, overload_name)._schema
            if any(argument.name == "self" for argument in schema.arguments):
                self.input_is_self = True
            for position, argument in enumerate(schema.arguments):
                if (
                    argument.name == "reduction"
                    and not argument.kwarg_only
                    and (argument.default_value == _REDUCTION_MEAN)
                ):
                    self.unreduced_from = position
            self.returns_list |= any(str(r.type) == "List[Tensor]" for r in schema.returns)
            outs = tuple(a.name for a in schema.arguments if a.kwarg_only and a.is_write)
            if len(outs) > 1:
                self.out_names.setdefault(len(outs), outs)
            fields = tuple(r.name or "" for r in schema.returns)
            if len(fields) > 1 and all(fields):
                if outs:
                    self.returns_out = return_type(f"{packet.__name__}_out", fields)
                else:
                    self.returns = return_type(packet.__name__, fields)


def call_packet(binding: Binding, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call the binding's packet as torch's Python binding would.

    `input=` is the schema's `self`; an explicit `out=None` means no out= overload; a tuple
    `out=` names each output. Arguments that fit none of torch's signatures raise TypeError,
    as torch's argument parser does.
    """
    position = binding.unreduced_from
    if position is not None and len(args) <= position and "reduction" not in kwargs:
        kwargs = {**kwargs, "reduction": _REDUCTION_NONE}
    if kwargs:
        kwargs = dict(kwargs)
        if "input" in kwargs and "self" not in kwargs and binding.input_is_self:
            kwargs["self"] = kwargs.pop("input")
        if "out" in kwargs:
            out = kwargs["out"]
            if out is None:
                del kwargs["out"]
            elif not binding.accepts_out or not _out_fits(binding, args, kwargs):
                raise invalid_arguments(binding, args, kwargs)
            elif isinstance(out, tuple | list) and len(out) in binding.out_names:
                del kwargs["out"]
                kwargs.update(zip(binding.out_names[len(out)], out, strict=True))
    try:
        # Note [Calls without keywords] in dispatch/overloads.py.
        result = binding.packet(*args, **kwargs) if kwargs else binding.packet(*args)
    except NoMatchingSchema:
        raise invalid_arguments(binding, args, kwargs) from None
    if binding.returns_list and type(result) is list:
        return tuple(result)
    if binding.returns is not None and type(result) is tuple:
        if binding.returns_list:
            # torch: a Tensor[] field of a structseq comes back as a tuple (histogramdd).
            result = tuple(tuple(r) if type(r) is list else r for r in result)
        outs = binding.out_names.get(len(result), ())
        if binding.returns_out is not None and kwargs and any(n in kwargs for n in outs):
            return binding.returns_out(result)
        return binding.returns(result)
    return result


OutSignature = tuple[tuple[str, ...], frozenset[str], frozenset[str], tuple[bool, ...]]


def _out_signature(signature: ApiSignature) -> OutSignature:
    """(positional names, required names, every name, whether each positional takes only a
    Tensor) of a signature with `out`."""
    params = [p for p in signature.parameters if not (p.name == "self" and p.annotation is None)]
    positional_params = [p for p in params if p.kind is not ParameterKind.KEYWORD_ONLY]
    positional = tuple(p.name for p in positional_params)
    required = frozenset(p.name for p in positional_params if p.default is None)
    names = frozenset(p.name for p in params) | {"self"}
    tensor_only = tuple(p.annotation == "Tensor" for p in positional_params)
    return positional, required, names, tensor_only


def _out_fits(binding: Binding, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a signature that has `out` takes these arguments. Torch: the argument parser
    matches the whole call against each signature, so `torch.sum(x, out=o)` fits none (the
    one-argument signature has no `out`)."""
    if not binding.out_signatures:
        return True  # no stubs to judge by: the schema decides
    shown = args[1:] if binding.namespace == "Tensor" else args
    for positional, required, names, tensor_only in binding.out_signatures:
        if len(shown) > len(positional):
            continue
        if any(
            only and isinstance(value, (bool, int, float, complex))
            for only, value in zip(tensor_only, shown, strict=False)
        ):
            # torch: a Python number does not fit a Tensor parameter (`torch.remainder(2.0,
            # x, out=o)`: the Number-first signature has no `out`).
            continue
        given = set(positional[: len(shown)]) | set(kwargs)
        if "self" in kwargs or binding.namespace == "Tensor":
            given.add("input")
        if required <= given and all(name in names for name in kwargs):
            return True
    return False


def _type_name(value: object) -> str:
    if isinstance(value, TensorImpl):
        return "Tensor"
    if isinstance(value, bool):
        return "bool"
    return type(value).__name__


# torch's Python type names in argument-parser messages, from the stubs' annotations
# (torch: python_arg_parser.cpp, FunctionParameter::type_name).
_TYPE_NAMES: Final[dict[str, str]] = {
    "Tensor": "Tensor",
    "tuple[Tensor, ...]": "tuple of Tensors",
    "_int": "int",
    "SymInt": "int",
    "_float": "float",
    "_bool": "bool",
    "Number": "Number",
    "_complex": "complex",
    "_size": "tuple of ints",
    "_dtype": "torch.dtype",
    "str": "str",
    "Device": "torch.device",
    "_layout": "torch.layout",
    "memory_format": "torch.memory_format",
    "Generator": "torch.Generator",
}
_FITS: Final[dict[str, tuple[type, ...]]] = {
    "Tensor": (TensorImpl,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "Number": (bool, int, float, complex),
    "complex": (bool, int, float, complex),
    "str": (str,),
    "tuple of ints": (tuple, list),
    "tuple of Tensors": (tuple, list),
}


def _expected(annotation: str | None) -> str | None:
    if annotation is None:
        return None
    first = annotation.split("|")[0].strip()
    return _TYPE_NAMES.get(first)


def _signature_text(signature: ApiSignature) -> str:
    # torch: FunctionSignature::toString ("(Tensor input, *, Number alpha = 1)").
    parts: list[str] = []
    star = False
    for p in signature.parameters:
        if p.name == "self" and p.annotation is None:
            continue
        if p.kind is ParameterKind.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = f"{_expected(p.annotation) or p.annotation or ''} {p.name}".strip()
        parts.append(text if p.default is None else f"{text} = {p.default}")
    return "(" + ", ".join(parts) + ")"


def check_tensor_list(values: Any, position: int) -> None:
    """Torch's parser's refusal of a TensorList argument with an element that is not a
    tensor: "expected Tensor as element 1 in argument 0, but got NoneType" (`position` is
    the argument's 0-based index). Torch: FunctionSignature::parse in python_arg_parser.cpp;
    torch/functional.py's varargs functions (block_diag, meshgrid, ...) pass their tuple of
    arguments as that list."""
    if isinstance(values, (tuple, list)):
        for i, item in enumerate(values):
            if not isinstance(item, TensorImpl):
                raise TypeError(
                    f"expected Tensor as element {i} in argument {position}, but got "
                    f"{_type_name(item)}"
                )


# The functions and methods whose argument parser has more signatures than their stub shows
# (hidden, deprecated ones), so a call that fits none gets the message of several signatures
# ("div() received an invalid combination of arguments - got (Tensor, Tensor), but expected
# one of:"), not one signature's ("takes 1 positional argument but 2 were given"). Measured
# against torch 2.13 by calling each single-stub function and method with an argument too many.
_HIDDEN_SIGNATURES: Final = frozenset(
    {
        ("torch", "div"),
        *(("Tensor", name) for name in ("div", "div_", "copy_", "floor_divide", "floor_divide_",
                                        "true_divide", "true_divide_")),
    }
)  # fmt: skip


def _extra_arguments(
    binding: Binding,
    params: list[ApiParameter],
    positional: list[ApiParameter],
    given: int,
    keywords: bool,
) -> TypeError | None:
    """Torch's TypeError for more positional arguments than its one signature takes, or
    None. Torch: extra_args in python_arg_parser.cpp ("cat() takes from 1 to 2 positional
    arguments but 3 were given"; a signature of int varargs, `view(*size)`, takes any number);
    a method with no parameter is CPython's METH_NOARGS ("TensorBase.t() takes no arguments
    (1 given)")."""
    name = binding.name
    if binding.namespace == "Tensor" and not params:
        if given:
            return TypeError(f"TensorBase.{name}() takes no arguments ({given} given)")
        return TypeError(f"TensorBase.{name}() takes no keyword arguments") if keywords else None
    if given <= len(positional) or any(p.kind is ParameterKind.VAR_POSITIONAL for p in params):
        return None
    most = len(positional)
    least = sum(1 for p in params if p.default is None)
    verb = "was" if given == 1 else "were"
    if least != most:
        return TypeError(
            f"{name}() takes from {least} to {most} positional arguments but {given} {verb} given"
        )
    plural = "" if most == 1 else "s"
    return TypeError(f"{name}() takes {most} positional argument{plural} but {given} {verb} given")


def invalid_arguments(binding: Binding, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    """Torch's TypeError for arguments that match none of its Python signatures.

    Torch: PythonArgParser::raw_parse / print_error in python_arg_parser.cpp: with one
    signature, the first argument of the wrong type ("transpose(): argument 'dim0'
    (position 1) must be int, not float"); with several, "add() received an invalid
    combination of arguments - got (str, int), but expected one of:" and each signature.
    """
    api_name = binding.name
    signatures = api_signatures(binding.namespace, api_name)
    shown = args[1:] if binding.namespace == "Tensor" else args
    if len(signatures) == 1 and (binding.namespace, api_name) not in _HIDDEN_SIGNATURES:
        params = [
            p for p in signatures[0].parameters if not (p.name == "self" and p.annotation is None)
        ]
        positional = [p for p in params if p.kind is not ParameterKind.KEYWORD_ONLY]
        extra = _extra_arguments(binding, params, positional, len(shown), bool(kwargs))
        if extra is not None:
            return extra
        for position, (param, value) in enumerate(zip(positional, shown), start=1):
            expected = _expected(param.annotation)
            if expected == "tuple of Tensors" and isinstance(value, (tuple, list)):
                try:
                    check_tensor_list(value, position - 1)
                except TypeError as refused:
                    return refused
                continue
            fits = _FITS.get(expected or "")
            if fits is not None and not isinstance(value, fits):
                return TypeError(
                    f"{api_name}(): argument '{param.name}' (position {position}) must be "
                    f"{expected}, not {_type_name(value)}"
                )
        given = {p.name for p in positional[: len(shown)]} | set(kwargs)
        if (binding.namespace != "Tensor" and args) or "self" in kwargs:
            given.add("input")
        missing = [
            p.name
            for p in positional
            if p.default is None and p.name not in given and not (p.name == "input" and args)
        ]
        if missing:
            # torch: FunctionSignature::parse's missing_args (its plural 's' is inverted).
            plural = "s" if len(missing) == 1 else ""
            names_text = ", ".join(f'"{name}"' for name in missing)
            return TypeError(
                f"{api_name}() missing {len(missing)} required positional argument{plural}: "
                f"{names_text}"
            )
        names = {p.name for p in params} | {"input", "self"}
        for name in kwargs:
            if name not in names:
                return TypeError(f"{api_name}() got an unexpected keyword argument '{name}'")
    got = ", ".join(
        [_type_name(a) for a in shown] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    )
    header = (
        f"{api_name}() received an invalid combination of arguments - got ({got}), but "
        "expected one of:"
    )
    lines = [header]
    lines.extend(f" * {_signature_text(signature)}" for signature in signatures)
    return TypeError("\n".join(lines) + "\n")


def torch_function(
    name: str, aten_name: str | None = None, *, module: str = "torch"
) -> Callable[..., Any]:
    """`refimpl.<name>` (or `refimpl.special.<name>` with module "torch.special"): calls the
    aten packet `aten.<aten_name or name>` through `call_packet`. Torch: `<module>.<name>`."""
    binding = Binding(name, module, getattr(_ATEN, aten_name or name))

    def function(*args: Any, **kwargs: Any) -> Any:
        return call_packet(binding, args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = module.replace("torch", "refimpl", 1)
    function.__doc__ = f"Torch: {module}.{name} (the aten.{aten_name or name} overloads)."
    return function


def method(name: str, aten_name: str | None = None) -> Callable[..., Any]:
    """`Tensor.<name>`: calls `aten.<aten_name or name>` with the tensor as `self`.
    Torch: `torch.Tensor.<name>`."""
    binding = Binding(name, "Tensor", getattr(_ATEN, aten_name or name))

    def bound(self: TensorImpl, *args: Any, **kwargs: Any) -> Any:
        return call_packet(binding, (self, *args), kwargs)

    bound.__name__ = name
    bound.__qualname__ = f"Tensor.{name}"
    bound.__doc__ = f"Torch: torch.Tensor.{name} (the aten.{aten_name or name} overloads)."
    return bound
