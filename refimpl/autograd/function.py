"""Custom autograd functions: `Function`, the ctx its forward fills, and the node that runs
its backward.

Torch: torch/autograd/function.py (FunctionCtx, BackwardCFunction, Function,
once_differentiable) over torch/csrc/autograd/python_function.cpp (THPFunction_apply,
PyNode::apply, _save_variables, _mark_dirty) and custom_function.cpp (_wrap_outputs). The ctx
given to `forward` is the node itself, as in torch: `y.grad_fn` is the ctx, of a class named
`<Function>Backward` made once per Function subclass.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, ClassVar, Final

from refimpl.autograd.grad_mode import GRAD_STATE, no_grad
from refimpl.autograd.graph import FREED_MESSAGE, InputMetadata, Node, SavedVariable
from refimpl.autograd.kernel import differentiable
from refimpl.autograd.variable import clear_history, grad_fn, set_history, set_requires_grad
from refimpl.autograd.views import gradient_edge, rebase_history
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.ops import aten, data

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "InplaceFunction",
    "NestedIOFunction",
    "once_differentiable",
]


class FunctionCtx:
    """What `forward` (or `setup_context`) tells autograd through `ctx`.

    Torch: torch.autograd.function.FunctionCtx. The methods only record; `Function.apply`
    reads the records once forward returns.
    """

    to_save: tuple[Any, ...] | None
    saved_for_forward: tuple[Any, ...]
    dirty_tensors: tuple[Any, ...] | None
    non_differentiable: tuple[Any, ...] | None
    materialize_grads: bool

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward, read back as `ctx.saved_tensors`.
        Torch: FunctionCtx.save_for_backward."""
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors for `jvp`. Torch: FunctionCtx.save_for_forward."""
        for tensor in tensors:
            if not (tensor is None or isinstance(tensor, TensorImpl)):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; but got "
                    f"{type(tensor)}."
                )
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """Say which inputs forward modified in place. Torch: FunctionCtx.mark_dirty."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs: Any) -> None:
        """Torch: FunctionCtx.mark_shared_storage (removed; sharing is tracked)."""
        warnings.warn(
            "mark_shared_storage is deprecated. Tensors with shared storages are automatically "
            "tracked. Note that calls to `set_()` are not tracked",
            DeprecationWarning,
            stacklevel=2,
        )

    def mark_non_differentiable(self, *args: Any) -> None:
        """Say which outputs get no gradient. Torch: FunctionCtx.mark_non_differentiable."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (True) or None for outputs without a gradient.
        Torch: FunctionCtx.set_materialize_grads."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function's call, and the `ctx` its forward and backward get.

    Torch: torch.autograd.function.BackwardCFunction over the C++ PyNode. One subclass per
    Function, named `<Function>Backward` (its `name()`). Arbitrary attributes may be set on
    it (it has a `__dict__`).

    Differs: torch's `BackwardCFunction.apply(*grads)` calls the user backward; refimpl's
    `apply(grads)` is the engine's entry (PyNode::apply: materialized gradients in, the
    returned gradients checked); `node(*grads)` runs it from Python as in torch.
    """

    _forward_cls: ClassVar[type[Function]]

    def __init__(self) -> None:
        super().__init__(())
        self.to_save = None
        self.saved_for_forward = ()
        self.dirty_tensors = None
        self.non_differentiable = None
        self.materialize_grads = True
        self._materialize_non_diff_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._is_variable_input: tuple[bool, ...] = ()
        self._output_info: list[InputMetadata | None] = []
        self._tensors_saved: list[SavedVariable | None] = []
        self._has_freed_buffers = False

    # --- saved tensors (torch: THPFunction_saved_tensors) ------------------------------

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors saved by save_for_backward, checked against their versions."""
        if self._has_freed_buffers:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(None if s is None else s.unpack(self) for s in self._tensors_saved)

    @property
    def _raw_saved_tensors(self) -> tuple[SavedVariable | None, ...]:
        if self._has_freed_buffers:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(self._tensors_saved)

    def release_variables(self) -> None:
        """Torch: PyNode::release_variables."""
        for saved in self._tensors_saved:
            if saved is not None:
                saved.release()
        self._tensors_saved = []
        self._has_freed_buffers = True

    # --- backward (torch: PyNode::apply) ---------------------------------------------------

    def apply(self, grads: list[Any]) -> list[Any]:
        """The user backward on the output gradients; one gradient per tensor input."""
        fn = _user_backward(self._forward_cls)
        arguments = [self._materialized(i, g) for i, g in enumerate(grads)]
        result = fn(self, *arguments)
        returned = result if isinstance(result, tuple) else (result,)
        expected = len(self._is_variable_input)
        if len(returned) > expected and all(g is None for g in returned[expected:]):
            returned = returned[:expected]
        if len(returned) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(returned)})"
            )
        out: list[Any] = []
        for position, (is_variable, grad) in enumerate(
            zip(self._is_variable_input, returned, strict=True)
        ):
            if not is_variable:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was not "
                        "a Variable"
                    )
                continue
            if grad is not None and not isinstance(grad, TensorImpl):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            out.append(grad)
        return out

    def _materialized(self, i: int, grad: Any) -> Any:
        # torch: an undefined gradient of a tensor output becomes zeros of the output's
        # metadata while materialize_grads is on; a non-tensor output always gets None.
        info = self._output_info[i] if i < len(self._output_info) else None
        if grad is not None or not self.materialize_grads or info is None:
            return grad
        return aten.zeros.default(list(info.size), dtype=info.dtype, device=info.device)


def _user_backward(cls: type[Function]) -> Callable[..., Any]:
    """The function PyNode calls: `backward`, or `vjp` where that is the one defined.
    Torch: BackwardCFunction.apply."""
    backward_fn = cls.backward
    vjp_fn = cls.vjp
    if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
        raise RuntimeError(
            "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
            "should only implement one of them."
        )
    return vjp_fn if vjp_fn is not Function.vjp else backward_fn


class Function:
    """A differentiable operation defined by a `forward` and a `backward` static method.

    Torch: torch.autograd.Function. `apply` runs forward under no_grad and records a
    `<Name>Backward` node whose backward is the user's. Forward takes `ctx` first, or, where
    `setup_context(ctx, inputs, output)` is defined, only the inputs.
    """

    _backward_cls: ClassVar[type[BackwardCFunction]]
    _setup_context_defined: ClassVar[bool] = False
    generate_vmap_rule: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # torch: FunctionMeta.__init__ makes the backward class `<Name>Backward`.
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(
            f"{cls.__name__}Backward", (BackwardCFunction,), {"_forward_cls": cls}
        )
        cls._setup_context_defined = cls.setup_context is not Function.setup_context

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Torch: _SingleLevelFunction.forward."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Torch: _SingleLevelFunction.setup_context."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Torch: _SingleLevelFunction.backward (`vjp` is the same function)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Torch: _SingleLevelFunction.jvp (refimpl has no forward-mode AD to call it)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """Torch: Function.vmap."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward and record the node. Torch: Function.apply, THPFunction_apply."""
        if cls._setup_context_defined or kwargs:
            args = _bind_default_args(cls, args, kwargs)
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, TensorImpl)]
        ctx._is_variable_input = tuple(isinstance(a, TensorImpl) for a in args)
        ctx.needs_input_grad = tuple(isinstance(a, TensorImpl) and requires_grad(a) for a in args)
        executable = GRAD_STATE.enabled and any(requires_grad(t) for t in tensors)
        if executable:
            ctx.next_edges = tuple(gradient_edge(t) for t in tensors)
        with no_grad():
            if cls._setup_context_defined:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        return _process_outputs(ctx, tensors, output, executable)


# torch: FunctionMeta makes the backward class of Function itself too.
Function._backward_cls = type("FunctionBackward", (BackwardCFunction,), {"_forward_cls": Function})


def _bind_default_args(
    cls: type[Function], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    """Keyword arguments and defaults made positional. Torch: bind_default_args in
    Function.apply (setup_context style; a forward taking ctx binds it too)."""
    signature = inspect.signature(cls.forward)
    if cls._setup_context_defined:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args
    bound = signature.bind(None, *args, **kwargs)
    bound.apply_defaults()
    return bound.args[1:]


# --- outputs (torch: process_outputs in python_function.cpp, _wrap_outputs) ---------------------


def _process_outputs(
    ctx: BackwardCFunction, inputs: list[TensorImpl], output: Any, executable: bool
) -> Any:
    single = not isinstance(output, tuple)
    outputs: tuple[Any, ...] = (output,) if single else output
    dirty = _mark_dirty(ctx)
    non_differentiable = _non_differentiable(ctx)
    input_ids = {id(t) for t in inputs}
    node = ctx if executable else None
    wrapped = []
    for i, out in enumerate(outputs):
        if not isinstance(out, TensorImpl):
            if node is not None:
                node.input_metadata.append(None)
                node._output_info.append(None)
            wrapped.append(out)
            continue
        wrapped.append(
            _wrap_output(
                out, i, node, id(out) in input_ids, id(out) in dirty,
                id(out) not in non_differentiable, len(outputs),
            )
        )
    returned = {id(out) for out in outputs}
    if any(key not in returned for key in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )
    if executable:
        _save_variables(ctx)
    ctx.to_save = None
    return wrapped[0] if single else tuple(wrapped)


def _mark_dirty(ctx: BackwardCFunction) -> set[int]:
    """The dirty inputs, each one's version bumped. Torch: _mark_dirty."""
    dirty: set[int] = set()
    for tensor in ctx.dirty_tensors or ():
        if not isinstance(tensor, TensorImpl):
            # torch's message ends here: its format arguments are not filled in.
            raise RuntimeError(  # noqa: TRY004 - torch's type
                "mark_dirty can only accept variables, but argument "
            )
        dirty.add(id(tensor))
        tensor._version_counter.bump()
    ctx.dirty_tensors = None
    return dirty


def _non_differentiable(ctx: BackwardCFunction) -> set[int]:
    """Torch: _parse_non_differentiable."""
    found: set[int] = set()
    for tensor in ctx.non_differentiable or ():
        if not isinstance(tensor, TensorImpl):
            # torch's message ends here: its format arguments are not filled in.
            raise RuntimeError(  # noqa: TRY004 - torch's type
                "mark_non_differentiable only accepts variable arguments, but got "
            )
        found.add(id(tensor))
    ctx.non_differentiable = None
    return found


VIEW_MODIFIED_MESSAGE: Final = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() for "
    "example) or make your Function only return one Tensor (potentially splitting it into two "
    "Functions: one doing the inplace that returns a single Tensor and a second one that does "
    "the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need "
    "help to do so."
)


def _view_as_self(t: TensorImpl) -> Any:
    """A view of `t` standing for it as an output. Torch: _view_as_self_with_no_grad; with
    grad mode off torch's result is a detached alias (not a view)."""
    if not GRAD_STATE.enabled:
        return data.alias_detached(t, share_version=True)
    with no_grad():
        return aten.alias.default(t)


def _wrap_output(
    var: TensorImpl,
    i: int,
    node: BackwardCFunction | None,
    is_input: bool,
    is_modified: bool,
    marked_differentiable: bool,
    num_outputs: int,
) -> Any:
    """Give one output its history. Torch: set_history in _wrap_outputs."""
    is_differentiable = node is not None and marked_differentiable and differentiable(var)
    if node is not None:
        node._output_info.append(InputMetadata.of(var))
        if is_differentiable:
            node.add_input_metadata(var)
        else:
            node.input_metadata.append(None)
    if not is_differentiable:
        if not requires_grad(var):
            return _view_as_self(var) if is_input and not is_modified else var
        # Detached aliases of inputs, not inputs changed in place.
        if is_input:
            return aten.detach.default(var)
        if var._base is None:
            clear_history(var)
        return var
    assert node is not None
    if is_modified:
        if grad_fn(var) is None and requires_grad(var):
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        if not is_input:
            warnings.warn(
                "Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an "
                "input, there is no need to pass it to mark_dirty().",
                stacklevel=4,
            )
        if var._base is not None:
            if num_outputs > 1:
                raise RuntimeError(VIEW_MODIFIED_MESSAGE)
            rebase_history(var, node)
        else:
            set_history(var, node, i)
        return var
    if is_input:
        out = _view_as_self(var)
        set_history(out, node, i)
        return out
    set_history(var, node, i)
    return var


def _save_variables(ctx: BackwardCFunction) -> None:
    """Torch: _save_variables: an output (its grad_fn is this node) is saved as an output."""
    saved: list[SavedVariable | None] = []
    for i, obj in enumerate(ctx.to_save or ()):
        if obj is None:
            saved.append(None)
            continue
        if not isinstance(obj, TensorImpl):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type "
                f"{type(obj).__name__}"
            )
        is_output = grad_fn(obj) is ctx
        output_nr = obj._autograd_meta.output_nr if is_output else 0
        saved.append(SavedVariable(obj, is_output=is_output, output_nr=output_nr))
    ctx._tensors_saved = saved


# --- once_differentiable ---------------------------------------------------------------------

ONCE_DIFFERENTIABLE_MESSAGE: Final = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class DelayedErrorNode(Node):
    """A node that raises when backward reaches it. Torch: torch::autograd::Error (made by
    DelayedError), Python class name `Error`."""

    __slots__ = ("_message",)

    def __init__(self, message: str, next_edges: tuple[Any, ...]) -> None:
        super().__init__(next_edges)
        self._message = message

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: list[Any]) -> list[Any]:
        raise RuntimeError(self._message)


DelayedErrorNode.__name__ = "Error"
DelayedErrorNode.__qualname__ = "Error"


def delayed_error(message: str, *inputs: Any) -> Any:
    """Aliases of `inputs` whose backward raises `message`. Torch: _functions.DelayedError."""
    edges = tuple(gradient_edge(t) if isinstance(t, TensorImpl) else None for t in inputs)
    node = DelayedErrorNode(message, edges)
    executable = GRAD_STATE.enabled and any(e is not None for e in edges)
    outputs: list[Any] = []
    for i, t in enumerate(inputs):
        if not isinstance(t, TensorImpl):
            outputs.append(None)
            node.input_metadata.append(None)
            continue
        out = data.alias_detached(t, share_version=False)
        if executable:
            node.add_input_metadata(out)
            set_history(out, node, i)
        outputs.append(out)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A backward that runs under no_grad; differentiating its result raises.

    Torch: torch.autograd.function.once_differentiable.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not GRAD_STATE.enabled:
            return outputs
        # torch: any gradient input requiring grad makes every output require grad, through
        # an Error node (whether the backward used a saved tensor cannot be known).
        if not any(isinstance(arg, TensorImpl) and requires_grad(arg) for arg in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        return delayed_error(ONCE_DIFFERENTIABLE_MESSAGE, *(_fake_requires_grad(v) for v in outs))

    return wrapper


def _fake_requires_grad(var: Any) -> Any:
    if var is None:
        return None
    detached = aten.detach.default(var)
    set_requires_grad(detached, True)
    return detached


# --- legacy names --------------------------------------------------------------------------


class InplaceFunction(Function):
    """Torch: torch.autograd.function.InplaceFunction (a Function with an `inplace` flag)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Torch: torch.autograd.function.NestedIOFunction (legacy; not supported here).

    Differs: refimpl does not implement the legacy nested-I/O protocol.
    """
