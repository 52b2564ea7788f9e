"""The nodes recorded for ops with derivative formulas, and what they save.

Torch: the classes torchgen generates into torch/csrc/autograd/generated/Functions.h (one per
derivatives.yaml entry: `AddBackward0` with its saved variables and `apply`), and
torch/csrc/autograd/generated/python_functions.cpp (the `_saved_<name>` getters). Here one
class, FormulaNode, runs any entry; `node_class` gives it torch's name per entry, so
`type(y.grad_fn).__name__` is `AddBackward0` as in torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from refimpl._base.dtypes import bool_, complex128, float64, int64
from refimpl.autograd.graph import FREED_MESSAGE, NO_HOOKS, SEQUENCE, Node, SavedVariable
from refimpl.autograd.variable import Edge
from refimpl.core.tensor import TensorImpl
from refimpl.dispatch.overloads import namespace
from refimpl.dispatch.schema import FunctionSchema
from refimpl.ops._derivative import TENSOR_FACTS, DerivativeEntry, Formula

aten = namespace("aten")

# How a formula parameter is filled (see ops/_derivative.py).
GRAD: Final = "grad"
GRADS: Final = "grads"
MASK: Final = "grad_input_mask"
ARGUMENT: Final = "argument"
FACT: Final = "fact"
OUTPUT: Final = "output"


def _fact(kind: str, t: Any) -> Any:
    # The part of an input tensor a formula reads without its values (torch's saved
    # `self_sym_sizes`, `self_scalar_type`, ...; `tensors_args_sizes` of a tensor list).
    if isinstance(t, (list, tuple)):
        return [_fact(kind.removeprefix("args_"), item) for item in t]
    if t is None:
        return None
    if isinstance(t, (bool, int, float, complex)):
        # A Python number given for a Tensor argument: torch wraps it in a tensor of the
        # number's own type (a wrapped number: bool, int64, double, complex double).
        return wrapped_number_fact(kind, t)
    if kind in ("sym_sizes", "sizes"):
        return t._size
    if kind.startswith("argsize_"):
        return t._size[int(kind.removeprefix("argsize_"))]
    if kind in ("sym_strides", "strides"):
        return t._stride
    if kind == "sym_numel":
        n = 1
        for size in t._size:
            n *= size
        return n
    if kind == "dim":
        return len(t._size)
    if kind in ("scalar_type", "scalartypes"):
        return t._dtype
    if kind == "device":
        return t._storage.device
    if kind == "options":
        return (t._dtype, t._storage.device)
    if kind == "geometry":
        return (t._size, t._stride, t._storage_offset)
    raise RuntimeError(f"refimpl: no saved fact '{kind}'")


_WRAPPED_DTYPES: Final = {bool: bool_, int: int64, float: float64, complex: complex128}


def wrapped_number_fact(kind: str, value: bool | complex) -> Any:
    """A saved fact of a Python number given for a Tensor argument, as of torch's wrapped
    number tensor (0-dim, of the number's type)."""
    if kind in ("sym_sizes", "sizes", "sym_strides", "strides"):
        return ()
    if kind == "sym_numel":
        return 1
    if kind == "dim":
        return 0
    if kind in ("scalar_type", "scalartypes"):
        return _WRAPPED_DTYPES[type(value)]
    raise RuntimeError(f"refimpl: no saved fact '{kind}' of a number")


@dataclass(frozen=True)
class Parameter:
    """One formula parameter: what fills it, and from which argument or output."""

    name: str
    kind: str
    source: str = ""
    """The schema argument (ARGUMENT, FACT) or output (OUTPUT) it reads."""
    fact: str = ""
    """For FACT: the suffix (`sym_sizes`)."""
    output: int = -1
    """For OUTPUT: the output's position."""
    tensor: bool = False
    """Whether it holds tensors (saved only when a formula that reads it will run; torch
    saves other values always)."""
    position: int = -1
    """For ARGUMENT and FACT: the source's position among the positional arguments, -1 for
    a keyword-only one."""


@dataclass(frozen=True)
class FormulaPlan:
    """A formula with its parameters resolved and the positions of the inputs it computes
    among the node's next edges (a tensor list input spans several: `spans`)."""

    formula: Formula
    params: tuple[Parameter, ...]
    inputs: tuple[int, ...]
    """Indices into NodeSpec.inputs."""


@dataclass(frozen=True)
class DiffInput:
    """A differentiable input of the op: a Tensor, Tensor? or Tensor[] argument."""

    name: str
    position: int
    """Position among the bound positional arguments, or -1 for a keyword-only one."""
    is_list: bool


class NodeSpec:
    """Everything about one overload's node decided at registration: its class (torch's
    name), its differentiable inputs, outputs, and the formulas with what each saves.

    Torch: the generated VariableType kernel's bookkeeping and the node's member list.
    """

    def __init__(
        self, name: str, schema: FunctionSchema, entry: DerivativeEntry, exposed: frozenset[str]
    ) -> None:
        self.name = name
        self.entry = entry
        arguments = [a for a in schema.arguments if not a.is_write or not a.kwarg_only]
        positional = [a for a in schema.arguments if not a.kwarg_only]
        self.argument_positions = {a.name: i for i, a in enumerate(positional)}
        self.keyword_names = {a.name for a in schema.arguments if a.kwarg_only}
        self.argument_types = {a.name: str(a.type) for a in schema.arguments}
        self.inputs = tuple(
            DiffInput(
                a.name,
                self.argument_positions.get(a.name, -1),
                str(a.type).startswith("List[Tensor") or "Tensor[]" in str(a.type),
            )
            for a in arguments
            if "Tensor" in str(a.type) and a.name in _formula_inputs(entry)
        )
        simple = all(d.position >= 0 and not d.is_list for d in self.inputs)
        self.simple_inputs = tuple(d.position for d in self.inputs) if simple else None
        """The positions of the differentiable inputs, where each is one positional tensor."""
        self.simple_spans = tuple((i, i + 1) for i in range(len(self.inputs)))
        self.outputs = tuple(r.name or "" for r in schema.returns)
        input_index = {d.name: i for i, d in enumerate(self.inputs)}
        # torch: the generated node computes its formulas in the order of their
        # derivatives.yaml keys, sorted as strings (load_derivatives: `sorted(defn.keys())`):
        # mul's `other` before `self`, mm's `mat2` before `self`. The order shows in what a
        # TorchDispatchMode sees of a backward pass.
        self.plans = tuple(
            FormulaPlan(
                formula,
                tuple(self._parameter(p) for p in formula.params),
                tuple(input_index[name] for name in formula.inputs),
            )
            for formula in sorted(entry.formulas, key=lambda f: ", ".join(f.inputs))
        )
        # An unnamed output is declared by its formula name (`result1`), as formulas read it.
        self.non_differentiable_outputs = frozenset(
            i
            for i, name in enumerate(self.outputs)
            if (name or f"result{i}") in entry.non_differentiable_outputs
        )
        self.exposed = exposed
        self.node_class: type[FormulaNode] = node_class(name)
        # torch saves values that are not tensors whatever inputs need a gradient.
        always: dict[str, Parameter] = {}
        for plan in self.plans:
            for p in plan.params:
                if p.kind in (ARGUMENT, FACT) and not p.tensor:
                    always.setdefault(p.name, p)
        self.always_saved = tuple(always.values())
        self.always_savers = tuple((p.name, saver(p)) for p in self.always_saved)
        self.saves_tensors = any(
            p.kind == ARGUMENT and p.tensor for plan in self.plans for p in plan.params
        )
        """Whether a formula reads an input tensor (saved only for the inputs that need it)."""
        """(name, function of (args, kwargs)) for each of them, decided here."""
        outputs: dict[str, Parameter] = {}
        for plan in self.plans:
            for p in plan.params:
                if p.kind == OUTPUT:
                    outputs.setdefault(p.name, p)
        self.saved_outputs = tuple(outputs.values())

    def _parameter(self, name: str) -> Parameter:
        if name == "grad":
            return Parameter(name, GRAD)
        if name == "grads":
            return Parameter(name, GRADS)
        if name == "grad_input_mask":
            return Parameter(name, MASK)
        if name in self.argument_positions or name in self.keyword_names:
            return Parameter(
                name,
                ARGUMENT,
                name,
                tensor="Tensor" in self.argument_types[name],
                position=self.argument_positions.get(name, -1),
            )
        for i, output in enumerate(self.outputs):
            if name == (output or ("result" if len(self.outputs) == 1 else f"result{i}")):
                return Parameter(name, OUTPUT, output, output=i, tensor=True)
        source, marker, dim = name.rpartition("_sym_argsize_")
        if marker and dim.isdigit() and source in self.argument_positions:
            # torch: `batch1_sym_argsize_0`, one size of an input (batch1.sym_size(0)).
            return Parameter(
                name, FACT, source, f"argsize_{dim}", position=self.argument_positions[source]
            )
        for suffix in TENSOR_FACTS + ("args_sizes", "args_scalartypes"):
            source = name.removesuffix(f"_{suffix}")
            if source != name and (
                source in self.argument_positions or source in self.keyword_names
            ):
                return Parameter(
                    name, FACT, source, suffix, position=self.argument_positions.get(source, -1)
                )
        raise RuntimeError(
            f"refimpl: formula parameter '{name}' of {self.entry.overload} names no argument, "
            "output or saved fact"
        )

    def argument(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        position = self.argument_positions.get(name)
        return args[position] if position is not None else kwargs[name]


def _formula_inputs(entry: DerivativeEntry) -> set[str]:
    return {name for formula in entry.formulas for name in formula.inputs}


class FormulaNode(Node):
    """A node that runs an op's derivative formulas. Torch: a generated `<Op>Backward<N>`."""

    __slots__ = ("_saved", "_spans", "_spec")

    def __init__(
        self,
        spec: NodeSpec,
        next_edges: tuple[Edge | None, ...],
        spans: tuple[tuple[int, int], ...],
        saved: dict[str, Any],
    ) -> None:
        # Node.__init__, written out: a node is made for every op that records.
        self.next_edges = next_edges
        self.input_metadata = []
        self._pre_hooks = self._hooks = self._retains_grad_hooks = NO_HOOKS
        self._tensor_pre_hooks = NO_HOOKS
        self._metadata = None
        self._seq = next(SEQUENCE)
        self._spec = spec
        self._spans = spans
        """Per differentiable input, its (start, stop) among next_edges."""
        self._saved = saved

    def _needs(self, input_index: int) -> bool:
        start, stop = self._spans[input_index]
        return any(self.next_edges[i] is not None for i in range(start, stop))

    def apply(self, grads: list[Any]) -> list[Any]:
        """Each formula whose inputs need a gradient, on the gradients of the outputs.

        Torch: the generated `apply`: undefined output gradients give undefined input
        gradients (`any_grad_defined`), and only `should_compute_output` inputs are computed.
        """
        out: list[Any] = [None] * len(self.next_edges)
        if all(g is None for g in grads):
            return out
        for plan in self._spec.plans:
            if not any(self._needs(i) for i in plan.inputs):
                continue
            values = {p.name: self._value(p, grads, plan) for p in plan.params}
            result = plan.formula.fn(**values)
            if len(plan.inputs) == 1:
                self._place(plan.inputs[0], result, out)
            else:
                for i, grad in zip(plan.inputs, result, strict=True):
                    self._place(i, grad, out)
        return out

    def _place(self, input_index: int, grad: Any, out: list[Any]) -> None:
        start, stop = self._spans[input_index]
        if self._spec.inputs[input_index].is_list:
            for position, item in zip(range(start, stop), grad, strict=True):
                out[position] = item
        else:
            out[start] = grad

    def _value(self, p: Parameter, grads: list[Any], plan: FormulaPlan) -> Any:
        if p.kind == GRAD:
            return grads[0]
        if p.kind == GRADS:
            return tuple(grads)
        if p.kind == MASK:
            return tuple(self._needs(i) for i in plan.inputs)
        value = self._saved[p.name]
        return _unpacked(value, self)

    def release_variables(self) -> None:
        for value in self._saved.values():
            for item in value if isinstance(value, list) else (value,):
                if isinstance(item, (SavedVariable, SavedNumber)):
                    item.release()

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._spec.exposed})

    def __getattr__(self, name: str) -> Any:
        # torch: the `_saved_<name>` getters of the generated Python node classes.
        if name.startswith("_saved_") and name in self._spec.exposed:
            value = self._saved.get(name.removeprefix("_saved_"))
            if isinstance(value, SavedNumber):
                return value.as_tensor()
            return _exposed(_unpacked(value, self))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _unpacked(value: Any, node: Node) -> Any:
    if isinstance(value, SavedVariable):
        return value.unpack(node)
    if isinstance(value, SavedNumber):
        return value.unpack()
    if isinstance(value, list):
        return [_unpacked(item, node) for item in value]
    return value


class SavedNumber:
    """A Python number given for a Tensor argument and saved for backward. Torch wraps it in
    a 0-dim tensor (a wrapped number) and saves that: it is freed after backward like any
    saved tensor, and `_saved_<name>` reads it as a 0-dim tensor of the number's type."""

    __slots__ = ("_freed", "value")

    def __init__(self, value: bool | complex) -> None:
        self.value = value
        self._freed = False

    def unpack(self) -> bool | complex:
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return self.value

    def as_tensor(self) -> Any:
        value = self.unpack()
        return aten.scalar_tensor.default(value, dtype=_WRAPPED_DTYPES[type(value)])

    def release(self) -> None:
        self._freed = True


_UINT64: Final = 2**64 - 1


def _exposed(value: Any) -> Any:
    # torch's `_saved_<name>` getters read int64 values as unsigned (-1 reads 2**64 - 1) and
    # int lists and sizes as tuples.
    if type(value) is int:
        return value & _UINT64
    if isinstance(value, (tuple, list)) and all(type(n) is int for n in value):
        return tuple(n & _UINT64 for n in value)
    if isinstance(value, list):
        return tuple(value)  # torch: a saved list (of tensors) reads as a tuple
    return value


_NODE_CLASSES: dict[str, type[FormulaNode]] = {}

# torch: the hand-written nodes' name() is their C++ name (generated ones print the class's).
_QUALIFIED: Final = {"CopyBackwards": "torch::autograd::CopyBackwards"}


def node_class(name: str) -> type[FormulaNode]:
    """The FormulaNode subclass named `name` (one per torch node name)."""
    found = _NODE_CLASSES.get(name)
    if found is None:
        body: dict[str, Any] = {"__slots__": ()}
        qualified = _QUALIFIED.get(name)
        if qualified is not None:
            body["name"] = lambda self: qualified
        found = _NODE_CLASSES[name] = type(name, (FormulaNode,), body)
    return found


def save_tensor_argument(p: Parameter, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the node keeps of a Tensor-typed argument a formula reads: a SavedVariable (a
    list of them for a tensor list), or a SavedNumber for a Python number. Other values are
    saved by the parameter's `saver`."""
    value = args[p.position] if p.position >= 0 else kwargs[p.source]
    if isinstance(value, TensorImpl):
        return SavedVariable(value, is_output=False)
    if isinstance(value, (bool, int, float, complex)):
        return SavedNumber(value)
    if isinstance(value, (list, tuple)):
        return [
            SavedVariable(v, is_output=False) if isinstance(v, TensorImpl) else v for v in value
        ]
    return value  # None, for an optional tensor not given


Saver = Callable[[tuple[Any, ...], dict[str, Any]], Any]


def saver(p: Parameter) -> Saver:
    """How one non-tensor parameter is saved (a value, or a fact of an input), with where it
    reads from decided once."""
    position, source = p.position, p.source
    if p.kind == FACT:
        kind = p.fact
        if kind == "scalar_type" and position >= 0:

            def save_scalar_type(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                value = args[position]
                return value._dtype if isinstance(value, TensorImpl) else _fact(kind, value)

            return save_scalar_type
        if position >= 0:
            return lambda args, kwargs: _fact(kind, args[position])
        return lambda args, kwargs: _fact(kind, kwargs[source])
    if position >= 0:
        return lambda args, kwargs: args[position]
    return lambda args, kwargs: kwargs[source]
