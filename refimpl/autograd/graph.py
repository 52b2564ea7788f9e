"""The autograd graph: nodes, their edges and hooks, saved variables, and AccumulateGrad.

Torch: torch/csrc/autograd/function.h (Node), edge.h, saved_variable.cpp (SavedVariable),
functions/accumulate_grad.cpp (AccumulateGrad), and torch/autograd/graph.py (the Python view:
`name()`, `next_functions`, `metadata`, `register_hook`, `register_prehook`,
`saved_tensors_hooks`).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final, NamedTuple, Self

from refimpl._base.dtypes import DType
from refimpl.autograd.variable import Edge, meta_of, set_history
from refimpl.core.tensor import TensorImpl, is_inference
from refimpl.dispatch.python_dispatch import python_detach
from refimpl.ops import data

Hook = Callable[..., Any]

# torch: the thread-local sequence number of Node (at::sequence_number); the engine runs
# ready nodes with larger numbers first (made later in the forward pass).
SEQUENCE = itertools.count()
# torch: AccumulateGrad's sequence number is UINT64_MAX, so it runs as soon as it is ready.
ACCUMULATE_PRIORITY = 2**64 - 1


class InputMetadata(NamedTuple):
    """What the engine checks a gradient against: the shape, dtype and device of the tensor
    it is the gradient of. Torch: autograd::InputMetadata."""

    size: tuple[int, ...]
    dtype: DType
    device: Any

    @classmethod
    def of(cls, t: TensorImpl) -> InputMetadata:
        # tuple.__new__: half the cost of the NamedTuple constructor, on every output.
        return _new_tuple(cls, (t._size, t._dtype, t._storage.device))


_new_tuple = tuple.__new__
NO_HOOKS: Final[dict[int, Any]] = {}  # read-only by convention: a node's hooks until it has one


class RemovableHandle:
    """Removes a hook from the dict it was added to. Torch: torch.utils.hooks.RemovableHandle."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Any]) -> None:
        self.id = next(RemovableHandle._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *args: object) -> None:
        self.remove()


def add_hook(hooks: dict[int, Hook], fn: Hook) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class Node:
    """A function of the backward graph: gradients of a forward op's outputs in, gradients
    of its inputs out, along `next_edges`.

    Torch: torch::autograd::Node. Its inputs are the forward op's outputs (`input_metadata`,
    one per output); its outputs go to `next_edges`, one per forward input (None where that
    input needs no gradient).
    """

    __slots__ = (
        "__weakref__",
        "_hooks",
        "_metadata",
        "_pre_hooks",
        "_retains_grad_hooks",
        "_seq",
        "_tensor_pre_hooks",
        "input_metadata",
        "next_edges",
    )

    def __init__(self, next_edges: tuple[Edge | None, ...] = ()) -> None:
        self.next_edges = next_edges
        self.input_metadata: list[InputMetadata | None] = []
        # Hook dicts and metadata are made on first use: most nodes never get any, and a
        # node is made for every op that records.
        self._pre_hooks: dict[int, Hook] = NO_HOOKS
        self._hooks: dict[int, Hook] = NO_HOOKS
        self._tensor_pre_hooks: dict[int, tuple[int, Hook]] = NO_HOOKS
        self._retains_grad_hooks: dict[int, Hook] = NO_HOOKS
        self._metadata: dict[str, Any] | None = None
        self._seq = next(SEQUENCE)

    # --- what Python sees (torch.autograd.graph.Node) -----------------------------------

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((None, 0) if edge is None else edge for edge in self.next_edges)

    def _sequence_nr(self) -> int:
        return self._seq

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for the user's data. Torch: Node.metadata."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Hook) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` after the node ran; a non-None return replaces
        grad_inputs. Torch: Node.register_hook."""
        if self._hooks is NO_HOOKS:
            self._hooks = {}
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn: Hook) -> RemovableHandle:
        """`fn(grad_outputs)` before the node runs; a non-None return replaces them.
        Torch: Node.register_prehook."""
        if self._pre_hooks is NO_HOOKS:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def set_retains_grad_hook(self, output_nr: int, fn: Hook) -> None:
        """The hook that keeps output `output_nr`'s gradient in its `.grad` (retain_grad).
        Torch: Node::add_retains_grad_hook."""
        if self._retains_grad_hooks is NO_HOOKS:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = fn

    def __call__(self, *grads: Any) -> Any:
        result = self.apply(list(grads))
        return result[0] if len(result) == 1 else tuple(result)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # --- what the engine uses -------------------------------------------------------------

    def priority(self) -> int:
        return self._seq

    def add_input_metadata(self, t: TensorImpl) -> int:
        """Record an output of the forward op; its index is the output's `output_nr`. The
        record is InputMetadata's fields as a plain tuple (made on every recorded op)."""
        self.input_metadata.append((t._size, t._dtype, t._storage.device))  # type: ignore[arg-type]
        return len(self.input_metadata) - 1

    def add_tensor_pre_hook(self, output_nr: int, fn: Hook) -> RemovableHandle:
        """A hook of this node's `output_nr`-th output tensor: `fn(grad)` before the node
        runs; a non-None return replaces the gradient. Torch: Node::add_tensor_pre_hook."""
        if self._tensor_pre_hooks is NO_HOOKS:
            self._tensor_pre_hooks = {}
        handle = RemovableHandle(self._tensor_pre_hooks)
        self._tensor_pre_hooks[handle.id] = (output_nr, fn)
        return handle

    def apply(self, grads: list[Any]) -> list[Any]:
        raise NotImplementedError(f"{self.name()} has no backward")

    def release_variables(self) -> None:
        """Free what was saved for backward. Torch: Node::release_variables."""


# --- saved variables ------------------------------------------------------------------------

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


class _SavedHooks(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Hook, Hook]] = []


SAVED_HOOKS = _SavedHooks()


class saved_tensors_hooks:  # torch's name
    """Pack every tensor saved for backward in the block with `pack_hook`, unpack it with
    `unpack_hook`. Torch: torch.autograd.graph.saved_tensors_hooks (a class, so that
    save_on_cpu can subclass it)."""

    def __init__(self, pack_hook: Hook, unpack_hook: Hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        SAVED_HOOKS.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args: object) -> None:
        SAVED_HOOKS.stack.pop()


class save_on_cpu(saved_tensors_hooks):  # torch's name
    """Keep saved tensors on the CPU, moving them back at unpack. Torch:
    torch.autograd.graph.save_on_cpu. refimpl's tensors to save are moved with `.to`."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t: Any) -> tuple[Any, Any]:
            return (t.device, t.to("cpu"))

        def unpack(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


def type_name(t: TensorImpl) -> str:
    """Torch's legacy type name in messages: torch.FloatTensor, torch.cuda.DoubleTensor."""
    prefix = "torch.cuda." if t._storage.device.type == "cuda" else "torch."
    return f"{prefix}{t._dtype.scalar_name}Tensor"


class SavedVariable:
    """A tensor saved for backward, checked against its version when unpacked.

    Torch: torch::autograd::SavedVariable. An input is kept as it is (unpacking gives the
    same tensor); an output is kept as a detached alias, and unpacking gives a new tensor
    with the node as its grad_fn, so the node and its output do not keep each other alive.
    """

    __slots__ = ("_data", "_freed", "_original", "_output_nr", "_packed", "_unpack", "_version")

    def __init__(self, t: TensorImpl, *, is_output: bool, output_nr: int = 0) -> None:
        if is_inference(t):
            # torch: SavedVariable's constructor.
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        self._version = t._version
        self._output_nr = output_nr if is_output else -1
        """The output's index for a saved output, -1 for a saved input."""
        self._freed = False
        self._unpack: Hook | None = None
        self._packed: Any = None
        # torch: an input, or an output that is a leaf (no history: a non-differentiable
        # output such as max.dim's indices), is kept as it is; any other output as a detached
        # alias (tensor_data), given its history again when unpacked.
        meta = t._autograd_meta
        self._original = not is_output or meta is None or meta.grad_fn is None
        data: TensorImpl = t if self._original else detached_alias(t)
        if SAVED_HOOKS.stack:
            pack, self._unpack = SAVED_HOOKS.stack[-1]
            self._packed = pack(data)
            self._data: TensorImpl | None = None
        else:
            self._data = data

    def unpack(self, node: Node | None = None) -> Any:
        """The saved tensor; an output gets `node` as its grad_fn again."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        data = self._data if self._unpack is None else self._unpack(self._packed)
        assert data is not None
        if data._version != self._version:
            raise RuntimeError(self._modified_message(data, node))
        if node is None or self._original:
            return data
        out = detached_alias(data)
        set_history(out, node, self._output_nr)
        return out

    def _modified_message(self, data: TensorImpl, node: Node | None) -> str:
        # torch names the node the tensor's gradient goes to now: for a saved input, its
        # current grad_fn (the in-place op's, after one); for a saved output, this node.
        if self._output_nr >= 0:
            current, output_nr = node, self._output_nr
        else:
            meta = data._autograd_meta
            current = None if meta is None else meta.grad_fn
            output_nr = 0 if meta is None else meta.output_nr
        which = ""
        if current is not None:
            # torch names the forward op: ExpBackward0 -> Exp.
            forward = current.name().rstrip("0123456789").removesuffix("Backward")
            which = f", which is output {output_nr} of {forward},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name(data)} [{', '.join(map(str, data._size))}]]"
            f"{which} is at version {data._version}; expected version {self._version} instead. "
            "Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )

    def release(self) -> None:
        self._data = None
        self._packed = None
        self._freed = True

    @property
    def freed(self) -> bool:
        return self._freed


def detached_alias(t: TensorImpl) -> Any:
    """What SavedVariable keeps of an output. Torch: Variable::tensor_data."""
    handled = python_detach(t)  # a mode or subclass answers first (see python_detach)
    if handled is not None:
        return handled
    return data.alias_detached(t, share_version=True)


# --- leaves -------------------------------------------------------------------------------


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds the gradient into `.grad`.

    Torch: torch::autograd::AccumulateGrad. `variable` is the leaf; tensor hooks registered
    on the leaf run before it (they live in the leaf's AutogradMeta).
    """

    __slots__ = ("variable",)

    def __init__(self, variable: TensorImpl) -> None:
        # Node.__init__, written out: an accumulator is made for each leaf of each graph.
        self.next_edges = ()
        self.input_metadata = [(variable._size, variable._dtype, variable._storage.device)]  # type: ignore[list-item]
        self._pre_hooks = self._hooks = self._retains_grad_hooks = NO_HOOKS
        self._tensor_pre_hooks = NO_HOOKS
        self._metadata = None
        self._seq = next(SEQUENCE)
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def priority(self) -> int:
        return ACCUMULATE_PRIORITY

    def apply(self, grads: list[Any]) -> list[Any]:
        # The engine accumulates (engine.accumulate_grad): it knows whether the gradient
        # buffer is shared and whether the graph is being differentiated again.
        raise RuntimeError("AccumulateGrad runs through the engine")


def grad_accumulator(t: TensorImpl) -> AccumulateGrad:
    """The leaf's AccumulateGrad, shared while one is alive. Torch: impl::grad_accumulator
    (a weak pointer in AutogradMeta)."""
    meta = meta_of(t)
    found = None if meta._accumulator is None else meta._accumulator()
    if found is None:
        found = AccumulateGrad(t)
        meta._accumulator = weakref.ref(found)
    return found
