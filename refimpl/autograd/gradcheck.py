"""gradcheck and gradgradcheck: analytical Jacobians (backward) against finite differences.

Torch: torch/autograd/gradcheck.py (gradcheck, gradgradcheck, GradcheckError and the slow
mode's helpers). Jacobians are (input numel, output numel) matrices, as torch's: row k of the
numerical one is the central difference of every output for input element k; column j of
the analytical one is the gradient of output element j. Only refimpl ops compute them.

Differs: `fast_mode=True` runs the slow (full-Jacobian) check, whose verdict is the same for
all but borderline tolerances; `check_batched_grad`, `check_batched_forward_grad` and
`check_forward_ad` raise NotImplementedError (refimpl has neither vmap nor forward-mode AD);
sparse, MKLDNN and masked inputs do not exist here.
"""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

from refimpl._base.dtypes import complex128, float64
from refimpl._base.memory_format import contiguous_format
from refimpl._base.promotion import promote_types
from refimpl.autograd.gradients import grad
from refimpl.autograd.graph import Node
from refimpl.autograd.variable import set_history, set_requires_grad
from refimpl.autograd.views import gradient_edge
from refimpl.core.tensor import TensorImpl, requires_grad
from refimpl.ops import aten, data

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by gradcheck and gradgradcheck. Torch: torch.autograd.GradcheckError."""


Fn = Callable[..., Any]

FAILED_NONDET_MSG: Final = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

UNDEFINED_NOTES: Final = 'Please look at "Notes about undefined output gradients" in ' \
    '"tools/autograd/derivatives.yaml"'


# --- small helpers ---------------------------------------------------------------------------


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x: Any) -> tuple[Any, ...]:
    return tuple(o for o in _as_tuple(x) if requires_grad(o))


def _diff_inputs(inputs: Sequence[Any]) -> list[Any]:
    return [t for t in inputs if isinstance(t, TensorImpl) and requires_grad(t)]


def _numel(t: TensorImpl) -> int:
    n = 1
    for size in t._size:
        n *= size
    return n


def _item(t: Any) -> Any:
    return aten._local_scalar_dense.default(t)


def _flat(t: Any) -> Any:
    return aten.reshape.default(aten.detach.default(t), [-1])


def _entry(t: Any, index: tuple[int, ...]) -> Any:
    """The 0-dim view of `t` at `index` (torch: `x[idx]`)."""
    for i in index:
        t = aten.select.int(t, 0, i)
    return t


def _allclose_with_type_promotion(a: Any, b: Any, rtol: float, atol: float) -> bool:
    promoted = promote_types(a._dtype, b._dtype)
    a = aten._to_copy.default(a, dtype=promoted)
    b = aten._to_copy.default(b, dtype=promoted)
    return bool(aten.allclose.default(a, b, rtol, atol))


def _max_abs_diff(a: Any, b: Any) -> float:
    return float(_item(aten.max.default(aten.abs.default(aten.sub.Tensor(a, b)))))


# --- checks of the arguments -------------------------------------------------------------------


def _check_inputs(tupled_inputs: Sequence[Any]) -> None:
    """Torch: _check_inputs."""
    any_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if not (isinstance(inp, TensorImpl) and requires_grad(inp)):
            continue
        if inp._dtype not in (float64, complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=4,
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(inp._stride, inp._size, strict=True)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
        any_requiring_grad = True
    if not any_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


# --- numerical Jacobians (torch: _get_numerical_jacobian) -----------------------------------------


def _check_same_dtype_and_shape(a: Any, b: Any, eps: float, idx: tuple[int, ...]) -> None:
    """Torch: _check_outputs_same_dtype_and_shape."""
    on_index = f"on index {idx} "
    if a._size != b._size:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {_shape(a)} and {_shape(b)}."
        )
    if a._dtype is not b._dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {a._dtype} and {b._dtype}."
        )


def _shape(t: Any) -> str:
    return f"torch.Size([{', '.join(map(str, t._size))}])"


def _central_difference(
    fn: Callable[[], tuple[Any, ...]], entry: Any, v: complex, eps: float, idx: tuple[int, ...]
) -> list[Any]:
    """(fn(x + v) - fn(x - v)) / (2 eps), each output flattened. Torch:
    _compute_numerical_gradient."""
    orig = aten.clone.default(entry)
    aten.copy_.default(entry, aten.sub.Scalar(orig, v))
    outa = fn()
    aten.copy_.default(entry, aten.add.Scalar(orig, v))
    outb = fn()
    aten.copy_.default(entry, orig)
    columns = []
    for a, b in zip(outa, outb, strict=True):
        _check_same_dtype_and_shape(a, b, eps, idx)
        columns.append(_flat(aten.div.Scalar(aten.sub.Tensor(b, a), 2 * eps)))
    return columns


def _numerical_jacobian(
    fn: Fn, inputs: Sequence[Any], outputs: Sequence[Any], eps: float
) -> list[tuple[Any, ...]]:
    """Per input requiring grad, one Jacobian per output. Torch: _get_numerical_jacobian."""
    if any(o._dtype.is_complex for o in outputs):
        raise ValueError(
            "Expected output to be non-complex. get_numerical_jacobian no longer supports "
            "functions that return complex outputs."
        )

    def wrapped() -> tuple[Any, ...]:
        return tuple(aten.clone.default(aten.detach.default(o)) for o in _as_tuple(fn(*inputs)))

    jacobians = []
    for inp in _diff_inputs(inputs):
        # torch: perturb `input.data`, so the input's version counter does not move.
        x = data.alias_detached(inp, share_version=False)
        is_complex = x._dtype.is_complex
        numel = _numel(x)
        rows: list[list[Any]] = []
        for index in itertools.product(*(range(n) for n in x._size)):
            entry = _entry(x, index)
            ds_dx = _central_difference(wrapped, entry, eps, eps, index)
            if is_complex:
                # torch: the conjugate Wirtinger derivative ds/dx + i ds/dy.
                ds_dy = _central_difference(wrapped, entry, eps * 1j, eps, index)
                ds_dx = [
                    aten.add.Tensor(dx, aten.mul.Scalar(dy, 1j))
                    for dx, dy in zip(ds_dx, ds_dy, strict=True)
                ]
            rows.append(ds_dx)
        per_output = []
        for i, o in enumerate(outputs):
            dtype = x._dtype if is_complex else o._dtype
            jacobian = aten.zeros.default([numel, _numel(o)], dtype=dtype, device=o._storage.device)
            for k, row in enumerate(rows):
                aten.copy_.default(aten.select.int(jacobian, 0, k), row[i])
            per_output.append(jacobian)
        jacobians.append(tuple(per_output))
    return jacobians


# --- analytical Jacobians (torch: _check_analytical_jacobian_attributes) --------------------------


def _jacobian_rows(vjp: Fn, output: Any) -> list[list[Any]]:
    """Per input, the gradients of each output element. Torch: _compute_analytical_jacobian_rows."""
    # torch: zeros_like(output, memory_format=torch.legacy_contiguous_format), so that the
    # flat view exists for column-major outputs (LAPACK's) too.
    grad_out = aten.zeros_like.default(output, memory_format=contiguous_format)
    flat = aten.view.default(grad_out, [-1])
    rows: list[list[Any]] = []
    for j in range(_numel(output)):
        aten.zero_.default(flat)
        aten.fill_.Scalar(aten.select.int(flat, 0, j), 1.0)
        for i, d_x in enumerate(vjp(grad_out)):
            if j == 0:
                rows.append([])
            rows[i].append(aten.clone.default(d_x) if isinstance(d_x, TensorImpl) else None)
    return rows


def _stack_and_check(
    rows: list[list[Any]], diff_inputs: list[Any], numel_output: int
) -> tuple[list[Any], bool, bool]:
    """Torch: _stack_and_check_tensors: the Jacobians, whether sizes and dtypes were right."""
    jacobians = []
    sizes_ok = True
    types_ok = True
    for i, column_list in enumerate(rows):
        inp = diff_inputs[i]
        jacobian = aten.zeros.default(
            [_numel(inp), numel_output], dtype=inp._dtype, device=inp._storage.device
        )
        for j, tensor in enumerate(column_list):
            if tensor is not None and tensor._size != inp._size:
                sizes_ok = False
            elif tensor is not None and tensor._dtype is not inp._dtype:
                types_ok = False
            if tensor is None:
                continue
            column = aten.select.int(jacobian, 1, j)
            if _numel(column) != _numel(tensor):
                raise AssertionError(
                    f"Expected out_jacobian column to have {_numel(tensor)} elements, but got "
                    f"{_numel(column)}"
                )
            aten.copy_.default(column, _flat(tensor))
        jacobians.append(jacobian)
    return jacobians, sizes_ok, types_ok


def _analytical_jacobian(
    inputs: Sequence[Any], output: Any, nondet_tol: float, check_grad_dtypes: bool
) -> list[Any]:
    """Per input, the Jacobian of `output` by backward, computed twice to check that backward
    is deterministic. Torch: _check_analytical_jacobian_attributes."""
    diff_inputs = _diff_inputs(inputs)

    def vjp(grad_output: Any) -> tuple[Any, ...]:
        return grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)

    numel = _numel(output)
    # torch unpacks _stack_and_check_tensors' (sizes, types) as (types, sizes): a wrong size
    # is reported as a dtype mismatch (with check_grad_dtypes) and a wrong dtype as a size.
    jacobians1, types_ok, sizes_ok = _stack_and_check(_jacobian_rows(vjp, output), diff_inputs, numel)
    jacobians2, _, _ = _stack_and_check(_jacobian_rows(vjp, output), diff_inputs, numel)
    reentrant = all(
        _numel(j1) == 0 or _max_abs_diff(j1, j2) <= nondet_tol
        for j1, j2 in zip(jacobians1, jacobians2, strict=True)
    )
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and "
            "grad_output multiple times gives different values, although analytical gradient "
            f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG
        )
    return jacobians1


def _notallclose_msg(
    analytical: Any,
    numerical: Any,
    output_idx: int,
    input_idx: int,
    complex_indices: Sequence[int] | None,
    test_imag: bool,
) -> str:
    """Torch: _get_notallclose_msg (backward mode)."""
    prefix = ""
    if complex_indices and output_idx in complex_indices:
        part = "imaginary" if test_imag else "real"
        prefix = f"While considering the {part} part of complex outputs only, "
    return (
        prefix + f"Jacobian mismatch for output {output_idx:d} with respect to input "
        f"{input_idx:d},\nnumerical:{numerical}\nanalytical:{analytical}\n"
    )


def _slow_gradcheck(
    func: Fn,
    func_out: Any,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    eps: float,
    rtol: float,
    atol: float,
    check_grad_dtypes: bool,
    nondet_tol: float,
    complex_indices: Sequence[int] | None = None,
    test_imag: bool = False,
) -> None:
    """Torch: _slow_gradcheck (backward mode)."""
    func_out = _as_tuple(func_out)
    if not outputs:
        for per_input in _numerical_jacobian(func, inputs, func_out, eps):
            for jacobian in per_input:
                if _item(aten.any.default(aten.ne.Scalar(jacobian, 0))):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    by_input = _numerical_jacobian(func, inputs, func_out, eps)
    # torch: the numerical Jacobians of outputs that do not require grad are dropped.
    numerical = [
        column for o, column in zip(func_out, zip(*by_input, strict=True), strict=False)
        if requires_grad(o)
    ]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i], strict=False)):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag))


def _real_imag_fn(fn: Fn, part: Callable[[Any], Any]) -> Fn:
    """`fn` with `part` (real or imag) applied to its complex outputs. Torch:
    _real_and_imag_output."""

    def wrapped(*inputs: Any) -> tuple[Any, ...]:
        return tuple(part(o) if o._dtype.is_complex else o for o in _as_tuple(fn(*inputs)))

    return wrapped


def _gradcheck_real_imag(
    func: Fn,
    func_out: Any,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    eps: float,
    rtol: float,
    atol: float,
    check_grad_dtypes: bool,
    nondet_tol: float,
) -> None:
    """A complex output is checked as two real functions, imaginary part first. Torch:
    _gradcheck_real_imag (backward mode)."""
    complex_indices = [i for i, o in enumerate(outputs) if o._dtype.is_complex]
    if not any(o._dtype.is_complex for o in _as_tuple(func_out)):
        _slow_gradcheck(
            func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol
        )
        return
    for part, test_imag in ((aten.imag.default, True), (aten.real.default, False)):
        part_fn = _real_imag_fn(func, part)
        part_out = part_fn(*inputs)
        _slow_gradcheck(
            part_fn, part_out, inputs, _differentiable_outputs(part_out), eps, rtol, atol,
            check_grad_dtypes, nondet_tol, complex_indices, test_imag,
        )


# --- the checks of backward's contract -------------------------------------------------------


def _test_backward_mul_by_grad_output(outputs: Sequence[Any], inputs: Sequence[Any]) -> None:
    """Zero output gradients give zero input gradients of the inputs' size and dtype.
    Torch: _test_backward_mul_by_grad_output."""
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    zeros = [aten.zeros_like.default(o) for o in outputs]
    grads_input = grad(outputs, diff_inputs, zeros, allow_unused=True)
    for gi, di in zip(grads_input, diff_inputs, strict=True):
        if gi is None:
            continue
        if not _item(aten.all.default(aten.eq.Scalar(gi, 0))):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._dtype is not di._dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._storage.device != di._storage.device:
            raise GradcheckError("grad is incorrect device")
        if gi._size != di._size:
            raise GradcheckError("grad is incorrect size")


class UndefinedGradBackward(Node):
    """Passes undefined gradients on. Torch: torch::autograd::UndefinedGradBackward."""

    __slots__ = ()

    def apply(self, grads: list[Any]) -> list[Any]:
        return [None] * len(self.next_edges)


def undefined_grad(t: Any) -> Any:
    """An alias of `t` whose gradient reaches `t` undefined. Torch:
    torch._C._functions.UndefinedGrad."""
    node = UndefinedGradBackward((gradient_edge(t),))
    out = data.alias_detached(t, share_version=True)
    node.add_input_metadata(out)
    set_history(out, node, 0)
    return out


def _test_undefined_backward_mode(func: Fn, outputs: Sequence[Any], inputs: Sequence[Any]) -> None:
    """Every backward accepts undefined output gradients and gives undefined or zero input
    gradients. Torch: _test_undefined_backward_mode."""
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking() -> None:
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is "
            "enabled by default, but it may break existing callers of this function. If this "
            'is true for you, you can call this function with "check_undefined_grad=False" to '
            "disable the feature",
            stacklevel=4,
        )

    def check(output_to_check: list[Any]) -> None:
        zeros = [aten.zeros_like.default(o) for o in output_to_check]
        try:
            grads_input = grad(output_to_check, diff_inputs, zeros, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                f"Expected backward function to handle undefined output grads. {UNDEFINED_NOTES}"
            ) from e
        for gi in grads_input:
            if gi is not None and not _item(aten.all.default(aten.eq.Scalar(gi, 0))):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    f"undefined or zero. {UNDEFINED_NOTES}"
                )

    to_check = [
        [undefined_grad(o) for o in _differentiable_outputs(func(*inputs))
         if isinstance(o, TensorImpl)]
    ]
    if len(to_check[0]) > 1:
        for undefined_index in range(len(outputs)):
            again = _differentiable_outputs(func(*inputs))
            to_check.append(
                [undefined_grad(o) if i == undefined_index else o for i, o in enumerate(again)]
            )
    for output in to_check:
        check(output)


# --- the public checks ---------------------------------------------------------------------------


def gradcheck(
    func: Fn,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Whether backward's gradients of `func` at `inputs` match finite differences.

    Torch: torch.autograd.gradcheck. Inputs of float64 or complex128 that require grad are
    checked; a mismatch raises GradcheckError (or returns False with raise_exception=False).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    try:
        return _gradcheck_helper(
            func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
            check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
            check_forward_ad, check_backward_ad,
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(
    func: Fn,
    inputs: Any,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_undefined_grad: bool,
    check_grad_dtypes: bool,
    check_batched_grad: bool,
    check_batched_forward_grad: bool,
    check_forward_ad: bool,
    check_backward_ad: bool,
) -> bool:
    """Torch: _gradcheck_helper."""
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("refimpl has no forward-mode AD: check_forward_ad=False only")
    if check_backward_ad:
        _gradcheck_real_imag(
            func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
            nondet_tol,
        )
    if not check_backward_ad:
        return True
    if check_batched_grad:
        raise NotImplementedError("refimpl has no vmap: check_batched_grad=False only")
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def gradgradcheck(
    func: Fn,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Whether the gradients of backward's gradients match finite differences: gradcheck of
    `(inputs, grad_outputs) -> grad(func(inputs), inputs, grad_outputs, create_graph=True)`.

    Torch: torch.autograd.gradgradcheck. Random grad_outputs are uniform in [-1, 1).

    Differs: gen_non_contig_grad_outputs makes contiguous ones.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        tupled_grad_outputs = tuple(
            _random_grad_output(x) for x in _differentiable_outputs(func(*tupled_inputs))
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_indices = {
        i for i, x in enumerate(tupled_inputs) if isinstance(x, TensorImpl) and requires_grad(x)
    }

    def new_func(*args: Any) -> tuple[Any, ...]:
        input_args = args[:-num_outputs]
        outputs = _differentiable_outputs(func(*input_args))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        grad_inputs = grad(
            outputs, diff_input_args, args[-num_outputs:], create_graph=True, allow_unused=True
        )
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(
        new_func,
        tupled_inputs + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )


def _random_grad_output(x: Any) -> Any:
    """A gradient output uniform in [-1, 1) that requires grad. Torch: make_tensor(x.shape,
    low=-1, high=1, requires_grad=True) in gradgradcheck.

    Differs: the values come from Python's `random` (seeded per call), not torch's generator.
    """
    dtype = x._dtype if (x._dtype.is_floating_point or x._dtype.is_complex) else float64
    out = aten.empty.memory_format(list(x._size), dtype=dtype, device=x._storage.device)
    rng = random.Random(_numel(x))
    for index in itertools.product(*(range(n) for n in x._size)):
        value: complex = rng.uniform(-1, 1)
        if dtype.is_complex:
            value = complex(value, rng.uniform(-1, 1))
        aten.fill_.Scalar(_entry(out, index), value)
    set_requires_grad(out, True)
    return out
