"""Higher-level derivatives of a function: vjp, jvp, jacobian, hessian, vhp, hvp.

Torch: torch/autograd/functional.py. Each runs the user function on detached copies of the
inputs that require grad and differentiates with `grad`; jvp and hvp use the double-backward
trick (the gradient of a vjp with respect to its vector), as torch does.

Differs: `vectorize=True` and `strategy="forward-mode"` raise NotImplementedError (refimpl
has neither vmap nor forward-mode AD).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refimpl.autograd.grad_mode import GRAD_STATE, enable_grad, set_grad_enabled
from refimpl.autograd.gradients import grad
from refimpl.autograd.variable import set_requires_grad
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.ops import aten

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

Fn = Callable[..., Any]


def _numel(t: TensorImpl) -> int:
    n = 1
    for size in t._size:
        n *= size
    return n


def _size(t: TensorImpl) -> str:
    return f"torch.Size([{', '.join(map(str, t._size))}])"


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    """Torch: _as_tuple (with its TypeError for a non-tensor)."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, TensorImpl):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where} has type {type(el)}."
            )
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: bool | tuple[bool, bool]) -> Any:
    """Torch: _tuple_postprocess."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple[Any, ...], create_graph: bool, need_graph: bool) -> tuple[Any, ...]:
    """Inputs to differentiate: views (create_graph) or detached leaves. Torch:
    _grad_preprocess."""
    res = []
    for inp in inputs:
        if create_graph and requires_grad(inp):
            res.append(aten.view.default(inp, list(inp._size)))  # torch: inp.view_as(inp)
        else:
            detached = aten.detach.default(inp)
            set_requires_grad(detached, need_graph)
            res.append(detached)
    return tuple(res)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    """Torch: _grad_postprocess."""
    if isinstance(inputs[0], TensorImpl):
        return inputs if create_graph else tuple(aten.detach.default(inp) for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple[Any, ...], other: tuple[Any, ...], is_other_tuple: bool) -> None:
    """Torch: _validate_v."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other, strict=True)):
        if el_v._size != el_other._size:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {_size(el_other)} but got {_size(el_v)}."
            )


# torch: _check_requires_grad's message per input_type.
_INDEPENDENT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
    "independent of the input. This is not allowed in strict mode. You should ensure that "
    "your function is thrice differentiable and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
    "function with respect to input {i} is independent of the input. This is not allowed in "
    "strict mode. You should ensure that your function is twice differentiable and that the "
    "jacobian depends on the inputs (this would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
    "outputs must be computed in a differentiable manner from the input when running in "
    "strict mode.",
}


def _check_requires_grad(inputs: tuple[Any, ...], input_type: str, strict: bool) -> None:
    """Torch: _check_requires_grad."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not requires_grad(inp):
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(
    outputs: tuple[Any, ...],
    inputs: tuple[Any, ...],
    grad_outputs: tuple[Any, ...] | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> tuple[Any, ...]:
    """grad of the outputs that require grad (None for all inputs if none does). Torch:
    _autograd_grad."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True) if o is not None and requires_grad(o)]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
        create_graph=create_graph, retain_graph=retain_graph,
    )


# torch: _fill_in_zeros's messages per stage, for a None gradient under strict.
_FILL_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
    "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(
    grads: tuple[Any, ...], refs: tuple[Any, ...], strict: bool, create_graph: bool, stage: str
) -> tuple[Any, ...]:
    """None gradients replaced by zeros (or refused under strict). Torch: _fill_in_zeros."""
    res = []
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i=i))
            grads_i = aten.zeros_like.default(refs[i])
        elif strict and create_graph and not requires_grad(grads_i):
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        res.append(grads_i)
    return tuple(res)


def _prepared_v(v: Any, name: str, create_graph: bool) -> tuple[Any, ...]:
    _, items = _as_tuple(v, "v", name)
    return _grad_preprocess(items, create_graph=create_graph, need_graph=False)


# --- vjp and jvp ------------------------------------------------------------------------------


def vjp(func: Fn, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """(func(inputs), v^T J): the vector-Jacobian product. Torch: torch.autograd.functional.vjp."""
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*ins), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        vs: tuple[Any, ...] | None = None
        if v is not None:
            vs = _prepared_v(v, "vjp", create_graph)
            _validate_v(vs, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or _numel(outputs[0]) != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(True if create_graph else GRAD_STATE.enabled):
        grad_res = _autograd_grad(outputs, ins, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "back")
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def jvp(func: Fn, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """(func(inputs), J v): the Jacobian-vector product by the double-backward trick.
    Torch: torch.autograd.functional.jvp."""
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        vs: tuple[Any, ...] | None = None
        if v is not None:
            vs = _prepared_v(v, "jvp", create_graph)
            _validate_v(vs, ins, is_inputs_tuple)
        elif len(ins) != 1 or _numel(ins[0]) != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        is_outputs_tuple, outputs = _as_tuple(
            func(*ins), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_requiring_grad(out) for out in outputs)
        grad_inputs = _autograd_grad(outputs, ins, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else GRAD_STATE.enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple),
    )


def _zeros_requiring_grad(t: Any) -> Any:
    out = aten.zeros_like.default(t)
    set_requires_grad(out, True)
    return out


# --- jacobian and hessian ----------------------------------------------------------------------


def jacobian(
    func: Fn,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of each output with respect to each input, of shape output.shape +
    input.shape, one backward per output element. Torch: torch.autograd.functional.jacobian."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.'
            )
        raise NotImplementedError("refimpl has no forward-mode AD: strategy='reverse-mode' only")
    with enable_grad():
        is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*ins), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            raise NotImplementedError("refimpl has no vmap: vectorize=False only")
        result = []
        for i, out in enumerate(outputs):
            rows: list[list[Any]] = [[] for _ in ins]
            flat = aten.reshape.default(out, [-1])
            for j in range(_numel(out)):
                vj = _autograd_grad(
                    (aten.select.int(flat, 0, j),), ins, retain_graph=True,
                    create_graph=create_graph,
                )
                for el_idx, (row, vj_el, inp_el) in enumerate(zip(rows, vj, ins, strict=True)):
                    if vj_el is not None:
                        if strict and create_graph and not requires_grad(vj_el):
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        row.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {el_idx}. This is not allowed in strict mode."
                            )
                        row.append(aten.zeros_like.default(inp_el))
            result.append(
                tuple(
                    _stack_rows(row, out, ins[el_idx]) for el_idx, row in enumerate(rows)
                )
            )
        jac = _grad_postprocess(tuple(result), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(rows: list[Any], out: Any, inp: Any) -> Any:
    shape = [*out._size, *inp._size]
    if not rows:
        return aten.zeros.default(shape, dtype=inp._dtype, device=inp._storage.device)
    return aten.view.default(aten.stack.default(rows, 0), shape)


def hessian(
    func: Fn,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function: the Jacobian of its Jacobian. Torch:
    torch.autograd.functional.hessian."""
    is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Any) -> Any:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, TensorImpl):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if _numel(out) != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return aten.squeeze.default(out)

    def jac_func(*inp: Any) -> Any:
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(
        jac_func, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# --- vhp and hvp -------------------------------------------------------------------------------


def _scalar_function_setup(
    func: Fn, inputs: Any, v: Any, create_graph: bool, strict: bool, name: str
) -> tuple[bool, tuple[Any, ...], tuple[Any, ...] | None, Any, Any]:
    """What vhp and hvp share: prepared inputs and v, the output, and its gradient (made with
    a graph)."""
    is_inputs_tuple, ins = _as_tuple(inputs, "inputs", name)
    ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
    vs: tuple[Any, ...] | None = None
    if v is not None:
        vs = _prepared_v(v, name, create_graph)
        _validate_v(vs, ins, is_inputs_tuple)
    elif len(ins) != 1 or _numel(ins[0]) != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    is_outputs_tuple, outputs = _as_tuple(func(*ins), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], TensorImpl):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if _numel(outputs[0]) != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    jac = _autograd_grad(outputs, ins, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, ins, vs, outputs, jac


def vhp(func: Fn, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """(func(inputs), v^T H): a vector-Hessian product. Torch: torch.autograd.functional.vhp."""
    with enable_grad():
        is_inputs_tuple, ins, vs, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with set_grad_enabled(True if create_graph else GRAD_STATE.enabled):
        grad_res = _autograd_grad(jac, ins, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "double_back")
    return (
        _grad_postprocess(outputs, create_graph)[0],
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def hvp(func: Fn, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """(func(inputs), H v) by the double-backward trick. Torch: torch.autograd.functional.hvp."""
    with enable_grad():
        is_inputs_tuple, ins, vs, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "hvp"
        )
        grad_jac = tuple(aten.zeros_like.default(inp) for inp in ins)
        for g in grad_jac:
            set_requires_grad(g, True)
        double_back = _autograd_grad(jac, ins, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else GRAD_STATE.enabled):
        grad_res = _autograd_grad(double_back, grad_jac, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "double_back_trick")
    return (
        _grad_postprocess(outputs, create_graph)[0],
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )
