"""Tensor's autograd methods: requires_grad, grad, grad_fn, backward, hooks, detach.

Torch: torch/_tensor.py (backward, register_hook, retain_grad, register_post_accumulate_grad_hook)
and the TensorBase getters and setters of torch/csrc/autograd/python_variable.cpp
(requires_grad, grad, grad_fn, is_leaf, data, output_nr, retains_grad).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from refimpl.autograd import gradients
from refimpl.autograd.graph import RemovableHandle, add_hook, grad_accumulator
from refimpl.autograd.variable import AutogradMeta, clear_history, meta_of, set_requires_grad
from refimpl.autograd.views import current_grad_fn as grad_fn
from refimpl.core.grad_mode import GRAD_STATE
from refimpl.core.storage import VersionCounter
from refimpl.core.tensor import TensorImpl, is_inference, requires_grad, set_data
from refimpl.dispatch.python_dispatch import python_detach
from refimpl.ops import aten, data


class AutogradMethods:
    """The autograd half of refimpl.Tensor."""

    __slots__ = ()

    @property
    def requires_grad(self: Any) -> bool:
        # torch: a view autograd recorded requires grad while its base does, even one made
        # in no_grad mode (DifferentiableViewMeta::requires_grad).
        if requires_grad(self):
            return True
        meta: AutogradMeta | None = self._autograd_meta
        base = self._base
        return (
            base is not None
            and meta is not None
            and meta.view_version is not None
            and requires_grad(base)
        )

    @requires_grad.setter
    def requires_grad(self: Any, value: bool) -> None:
        # torch: THPVariable_set_requires_grad words its dtype error apart from requires_grad_.
        _set_requires_grad(self, value, SETTER_DTYPE_ERROR)

    def requires_grad_(self: Any, requires_grad: bool = True) -> Any:
        """Set whether autograd records operations on this leaf. Torch: requires_grad_."""
        return _set_requires_grad(self, requires_grad, METHOD_DTYPE_ERROR)

    @property
    def grad_fn(self: Any) -> Any:
        return grad_fn(self)

    def is_inference(self: Any) -> bool:
        """Whether the tensor was made in inference mode. Torch: Tensor.is_inference (see
        Note [Inference tensors] in core/tensor.py)."""
        return is_inference(self)

    @property
    def is_leaf(self: Any) -> bool:
        return grad_fn(self) is None

    @property
    def output_nr(self: Any) -> int:
        meta: AutogradMeta | None = self._autograd_meta
        return 0 if meta is None else meta.output_nr

    @property
    def grad(self: Any) -> Any:
        meta: AutogradMeta | None = self._autograd_meta
        if meta is None:
            return None
        if meta.grad_fn is not None and not meta.retains_grad and meta.grad is None:
            _warn_non_leaf_grad()
        return meta.grad

    @grad.setter
    def grad(self: Any, value: Any) -> None:
        # torch: THPVariable_set_grad checks the new gradient's type, device and shape.
        if value is not None:
            if not isinstance(value, TensorImpl):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._storage.device != self._storage.device:
                raise RuntimeError("assigned grad has data located on a different device")
            if value._size != self._size:
                raise RuntimeError("assigned grad has data of a different size")
        elif self._autograd_meta is None:
            return
        meta_of(self).grad = value

    @property
    def retains_grad(self: Any) -> bool:
        meta: AutogradMeta | None = self._autograd_meta
        return meta is not None and meta.retains_grad

    def retain_grad(self: Any) -> None:
        """Keep this non-leaf's gradient in `.grad`. Torch: Tensor.retain_grad."""
        if not requires_grad(self):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        meta = meta_of(self)
        node = grad_fn(self)
        if node is None or meta.retains_grad:
            return
        tensor = self

        def retain(grad: Any) -> None:
            # torch: the retains_grad hook keeps a copy, then adds later gradients to it.
            current = meta_of(tensor).grad
            if current is None:
                meta_of(tensor).grad = aten.clone.default(grad)
            else:
                meta_of(tensor).grad = aten.add.Tensor(current, grad)

        node.set_retains_grad_hook(meta.output_nr, retain)
        meta.retains_grad = True

    def register_hook(self: Any, hook: Callable[[Any], Any]) -> RemovableHandle:
        """`hook(grad)` whenever this tensor's gradient is computed; a non-None return
        replaces it. Torch: Tensor.register_hook."""
        if not requires_grad(self):
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        meta = meta_of(self)
        node = grad_fn(self)
        if node is None:
            grad_accumulator(self)  # torch: the leaf's accumulator exists from here on
            return add_hook(meta.hooks, hook)
        return node.add_tensor_pre_hook(meta.output_nr, hook)

    def register_post_accumulate_grad_hook(
        self: Any, hook: Callable[[Any], Any]
    ) -> RemovableHandle:
        """`hook(tensor)` after a gradient was added into this leaf's `.grad`. Torch:
        Tensor.register_post_accumulate_grad_hook."""
        if not requires_grad(self):
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if grad_fn(self) is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        return add_hook(meta_of(self).post_accumulate_grad_hooks, hook)

    def backward(
        self: Any,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Accumulate this tensor's gradient into the leaves. Torch: Tensor.backward."""
        gradients.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self: Any) -> Any:
        """A tensor sharing storage and version counter, outside autograd. Torch: detach."""
        return aten.detach.default(self)

    def detach_(self: Any) -> Any:
        """Make this tensor a leaf that does not require grad. Torch: detach_."""
        if self._base is not None and requires_grad(self._base):
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        clear_history(self)
        return self

    @property
    def data(self: Any) -> Any:
        """A tensor sharing storage but not history or version counter. Torch: Tensor.data
        (Variable::variable_data: a shallow_copy_and_detach, which a mode or the tensor's class
        answers first, as `aten.detach.default`; then a fresh version counter)."""
        handled = python_detach(self)
        if handled is None:
            return data.alias_detached(self, share_version=False)
        handled._counter = VersionCounter()
        return handled

    @data.setter
    def data(self: Any, value: Any) -> None:
        # torch: THPVariable_set_data (VariableHooks::set_data): the tensor takes the new
        # data's storage, dtype and geometry, keeping its own autograd state.
        if not isinstance(value, TensorImpl):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        set_data(self, value)


# torch's three texts for an integer tensor asked to require grad: requires_grad_(), the
# `requires_grad` setter, and a factory's requires_grad=True.
METHOD_DTYPE_ERROR = "only Tensors of floating point dtype can require gradients"
SETTER_DTYPE_ERROR = "only Tensors of floating point and complex dtype can require gradients"
FACTORY_DTYPE_ERROR = "Only Tensors of floating point and complex dtype can require gradients"


def _set_requires_grad(self: Any, requires_grad: bool, dtype_error: str) -> Any:
    """Torch: requires_grad_ / THPVariable_set_requires_grad on a leaf."""
    if grad_fn(self) is not None:
        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
        return self
    if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(dtype_error)
    if requires_grad and is_inference(self) and not GRAD_STATE.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
    set_requires_grad(self, requires_grad)
    return self


def set_requires_grad_for_factory(t: Any) -> Any:
    """A factory's requires_grad=True. Torch: the binding's set_requires_grad (its text)."""
    return _set_requires_grad(t, True, FACTORY_DTYPE_ERROR)


def _warn_non_leaf_grad() -> None:
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
        ".grad attribute won't be populated during autograd.backward(). If you indeed want "
        "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
        "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
        "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
        "informations. (Triggered internally at "
        "/pytorch/build/aten/src/ATen/core/TensorBody.h:489.)",
        UserWarning,
        stacklevel=3,
    )
