"""Extracts torch's `__torch_function__` facts as data: what a TorchFunctionMode is told for
each Python operator and special method of Tensor, which Tensor attributes torch handles in
Python (torch/_tensor.py, whose `types` include plain Tensor), which methods take no
argument but self (their C++ bindings also report self's type), and the names of
torch.overrides' function tables (the testing overrides' signatures are in
api_signatures.json).

Run from the repository root with the targeted torch installed:

    python spec/extract_overrides.py

It rewrites spec/torch_function.json; see spec/README.md. Like spec/extract.py, this script
may import torch; refimpl never does.
"""

from __future__ import annotations

import inspect
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.overrides import (
    TorchFunctionMode,
    get_ignored_functions,
    get_overridable_functions,
    resolve_name,
)

OUT = Path(__file__).with_name("torch_function.json")


class _Record(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, list[str]]] = []

    def __torch_function__(
        self, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        self.seen.append((resolve_name(func) or repr(func), [t.__name__ for t in types]))
        return func(*args, **(kwargs or {}))


def _first_seen(call: Callable[[Any], Any], operand: Any) -> tuple[str, list[str]] | None:
    """The function the mode is told of when `call(operand)` runs (the operand made before
    the mode is entered), if it is told of exactly one: a dunder torch does not intercept
    itself (`__iter__`) shows the several calls its body makes, and is no alias."""
    mode = _Record()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with mode:
                call(operand)
        except Exception:  # noqa: BLE001, S110  # an operand the dunder refuses: no fact
            pass
    return mode.seen[0] if len(mode.seen) == 1 else None


def _operators() -> dict[str, dict[str, Any]]:
    """What the mode sees for each dunder, called as Python calls it."""
    f = torch.ones(2)
    i = torch.ones(2, dtype=torch.int64)
    b = torch.ones(2, dtype=torch.bool)
    m = torch.ones(2, 2)
    s = torch.ones(())
    binary_float = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "ne", "lt", "le", "gt", "ge", "div"]
    binary_int = ["and", "or", "xor", "lshift", "rshift"]
    calls: dict[str, tuple[Callable[[Any], Any], Any]] = {}
    for name in binary_float:
        for form in (f"__{name}__", f"__r{name}__", f"__i{name}__"):
            if hasattr(torch.Tensor, form):
                calls[form] = (lambda t, form=form: getattr(t, form)(2), f)
    for name in binary_int:
        for form in (f"__{name}__", f"__r{name}__", f"__i{name}__"):
            if hasattr(torch.Tensor, form):
                calls[form] = (lambda t, form=form: getattr(t, form)(1), i)
    calls.update(
        {
            "__matmul__": (lambda t: t.__matmul__(t), m),
            "__rmatmul__": (lambda t: t.__rmatmul__(t), m),
            "__imatmul__": (lambda t: t.__imatmul__(t), m),
            "__neg__": (lambda t: t.__neg__(), f),
            "__pos__": (lambda t: t.__pos__(), f),
            "__abs__": (lambda t: t.__abs__(), f),
            "__invert__": (lambda t: t.__invert__(), b),
            "__bool__": (lambda t: t.__bool__(), s),
            "__float__": (lambda t: t.__float__(), s),
            "__int__": (lambda t: t.__int__(), s),
            "__index__": (lambda t: t.__index__(), torch.ones((), dtype=torch.int64)),
            "__complex__": (lambda t: t.__complex__(), s),
            "__len__": (lambda t: t.__len__(), f),
            "__iter__": (lambda t: t.__iter__(), f),
            "__reversed__": (lambda t: t.__reversed__(), f),
            "__contains__": (lambda t: t.__contains__(1.0), f),
            "__getitem__": (lambda t: t.__getitem__(0), f),
            "__setitem__": (lambda t: t.__setitem__(0, 1.0), f),
            "__repr__": (lambda t: t.__repr__(), f),
            "__format__": (lambda t: t.__format__(".2f"), s),
            "__hash__": (lambda t: t.__hash__(), f),
            "__array__": (lambda t: t.__array__(), f),
            "__deepcopy__": (lambda t: t.__deepcopy__({}), f),
            "__reduce_ex__": (lambda t: t.__reduce_ex__(2), f),
            "__dlpack__": (lambda t: t.__dlpack__(), f),
            "__dlpack_device__": (lambda t: t.__dlpack_device__(), f),
        }
    )
    facts: dict[str, dict[str, Any]] = {}
    for form, (call, operand) in sorted(calls.items()):
        seen = _first_seen(call, operand.clone())
        if seen is not None:
            facts[form] = {"name": seen[0], "types": seen[1]}
    return facts


def _python_level() -> list[str]:
    """Tensor attributes torch defines in Python (torch/_tensor.py): functions, properties
    and class methods whose handle_torch_function call includes plain Tensors in `types`."""
    found = []
    for name, value in vars(torch.Tensor).items():
        if isinstance(value, (property, classmethod, staticmethod)) or inspect.isfunction(value):
            found.append(name)
    return sorted(found)


def _noargs_methods() -> list[str]:
    """Tensor methods whose C++ binding reports self's type to a mode: those called with
    nothing but self (torch: the METH_NOARGS bindings call handle_torch_function(self))."""
    x = torch.ones(2)
    found = []
    for name in sorted(dir(torch._C.TensorBase)):
        value = inspect.getattr_static(torch._C.TensorBase, name)
        if name.startswith("__") or type(value).__name__ != "method_descriptor":
            continue
        seen = _first_seen(lambda t, name=name: getattr(t, name)(), x.clone())
        if seen is not None and seen[1] == ["Tensor"] and seen[0].endswith(f".{name}"):
            found.append(name)
    return found


def _overridable_names() -> list[str]:
    """Every public name an overridable function has: torch.overrides' table keeps one name
    per object (resolve_name), so an alias (torch.mm, which is torch.spmm's builtin) is found
    by walking each namespace's attributes."""
    table = get_overridable_functions()
    ids = {id(f) for functions in table.values() for f in functions}
    names = set(_names(f for functions in table.values() for f in functions))
    for namespace in table:
        if isinstance(namespace, type) or not hasattr(namespace, "__name__"):
            continue
        for attr in dir(namespace):
            if id(getattr(namespace, attr, None)) in ids:
                names.add(f"{namespace.__name__}.{attr}")
    return sorted(names)


def _names(functions: Any) -> list[str]:
    return sorted({resolve_name(f) or repr(f) for f in functions})


def _resolved_as(names: list[str]) -> dict[str, str]:
    """Names whose function torch's resolve_name calls by another name (its index keeps one
    name per object: torch.mm is torch.spmm's builtin, named "torch.spmm")."""
    found = {}
    for name in names:
        obj: Any = torch
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        resolved = None if obj is None else resolve_name(obj)
        if resolved is not None and resolved != name:
            found[name] = resolved
    return dict(sorted(found.items()))


def _mode_only() -> list[str]:
    """Ignored functions a mode still sees: those bound in C++ (torch's argument parser checks
    for modes in every binding; factories such as torch.randn take no tensor to override), and
    the ignored Tensor methods whose binding or Python body still hands the call to a handler
    (Tensor.stride, Tensor.new_zeros, Tensor.unflatten; a subclass's handler sees these too)."""
    ignored = [name for f in get_ignored_functions() if (name := resolve_name(f))]
    functions = {
        name
        for f in get_ignored_functions()
        if type(f).__name__ == "builtin_function_or_method"
        and (name := resolve_name(f))
        and not _unseen_without_arguments(f)
    }
    return sorted(functions | {name for name in ignored if _tensor_method_seen(name)})


# Ignored bindings that need arguments but whose hand-written binding asks no handler (torch:
# THPVariable_range and THPVariable_frombuffer in python_torch_functions_manual.cpp), each
# with a call that shows it.
_TRIAL_CALLS: dict[str, Callable[[Any], Any]] = {
    "torch.range": lambda f: f(0, 1),
    "torch.frombuffer": lambda f: f(bytearray(1), dtype=torch.uint8),
}


def _unseen_without_arguments(f: Any) -> bool:
    """Whether `f` runs with no arguments (or with its trial arguments) and a mode is not told
    of it: a binding without the argument parser (torch.is_grad_enabled,
    torch.get_default_dtype) or one that asks no handler (torch.range)."""
    mode = _Record()
    trial = _TRIAL_CALLS.get(resolve_name(f) or "", lambda f: f())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with mode:
                trial(f)
        except Exception:  # noqa: BLE001  # it needs arguments: the parser's binding
            return False
    return not mode.seen


# Arguments to try an ignored Tensor method with: the first its signature takes shows whether a
# mode is told of the call.
_TRIAL_ARGUMENTS = ((), (0,), ([1.0],), ((2,), 1.0), ((2,), (1,)), (0, (2, 1)))


def _tensor_method_seen(name: str) -> bool:
    """Whether calling the Tensor method `name` tells a mode of exactly that method."""
    attr = name.removeprefix("torch.Tensor.")
    if not name.startswith("torch.Tensor.") or "." in attr or attr.startswith("__"):
        return False
    for args in _TRIAL_ARGUMENTS:
        seen = _first_seen(lambda t, args=args: getattr(t, attr)(*args), torch.ones(2, 1))
        if seen is not None and seen[0] == name:
            return True
    return False


def _unlisted_bindings() -> list[str]:
    """torch.* bindings the overridable table leaves out by their name alone: torch.overrides'
    get_overridable_functions skips names that start or end with an underscore (torch.exp_,
    torch._softmax), though torch's argument parser hands these calls to handlers and modes
    as any other's. The ignored functions stay out."""
    ignored = {id(f) for f in get_ignored_functions()}
    found = []
    for attr in dir(torch._C._VariableFunctions):
        if attr.startswith("__") or not (attr.startswith("_") or attr.endswith("_")):
            continue
        function = getattr(torch, attr, None)
        if function is None or id(function) in ignored:
            continue
        if function is not getattr(torch._C._VariableFunctions, attr):
            continue  # torch/__init__.py rebinds the name to something else
        found.append(f"torch.{attr}")
    return sorted(found)


def main() -> None:
    overridable = _overridable_names()
    facts = {
        "torch_version": torch.__version__,
        "operators": _operators(),
        "python_level": _python_level(),
        "noargs_methods": _noargs_methods(),
        "overridable": overridable,
        "ignored": _names(get_ignored_functions()),
        "mode_only": _mode_only(),
        "unlisted": _unlisted_bindings(),
        "resolved_as": _resolved_as(overridable),
    }
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=False) + "\n")
    print(
        f"wrote {OUT}: {len(facts['operators'])} operators, {len(facts['python_level'])} "
        f"Python-level attributes, {len(facts['noargs_methods'])} no-argument methods, "
        f"{len(overridable)} overridable, {len(facts['ignored'])} ignored"
    )


if __name__ == "__main__":
    main()
