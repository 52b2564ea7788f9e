"""The gradient layers of an OpInfo run: first ("grad") and second ("gradgrad") derivatives.

A gradient case is (OpInfo, dtype, layer) for float64 and, where the OpInfo's backward dtypes
include it, complex128. For each sample (`requires_grad=True`) torch runs the function variant
through the OpInfo's gradcheck wrapper, takes the outputs that require grad and pulls random
cotangents (seeded per sample) back to every input tensor that requires grad with
`torch.autograd.grad(..., allow_unused=True)`; the target does the same on the converted
sample with the same cotangents, and each gradient must agree: None where torch's is None,
else the same dtype, size and values (the OpInfo's tolerances; strides are free, as the
engine's are). The second layer builds the first gradients with `create_graph=True`, the
cotangents requiring grad as torch's gradgradcheck makes them, and pulls random vectors back
through those gradients to the inputs and the cotangents.
A bounded (CI) run checks the first CI_SAMPLES differentiable samples of a case. An OpInfo
whose layer checked no sample at all fails the run unless listed with its reason, so no
differentiable OpInfo goes unchecked silently.
Torch: test_fn_grad and test_fn_gradgrad in test/test_ops.py (which check against finite
differences; here torch's own gradients are the oracle).
"""

from __future__ import annotations

import dataclasses
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import torch
from torch.testing._internal.opinfo.core import OpInfo, SampleInput

from conformance.opinfo.convert import (
    Missing,
    NotStored,
    Observed,
    ObservedTensor,
    Target,
    Unconvertible,
    all_values,
    observe_torch,
    torch_dtype_name,
)
from conformance.opinfo.runner import (
    ANY_DTYPE,
    DEVICE,
    SAMPLE_TIMEOUT_S,
    Case,
    CaseResult,
    Outcome,
    SampleFailure,
    SampleTimeout,
    compare,
    describe,
    samples,
    time_guard,
    tolerance_overrides,
)
from conformance.opinfo.select import Variant, full_name

GRADIENT_DTYPES: Final = (torch.float64, torch.complex128)

# Samples checked per case in a bounded run (CI); `--full` checks every sample. Samples
# without anything to differentiate do not count, so up to RAW_SAMPLES are looked at.
CI_SAMPLES: Final = {Variant.GRAD: 4, Variant.GRADGRAD: 2}
RAW_SAMPLES: Final = 8

_DERIVATIVE_MISSING: Final = re.compile(r"derivative for (\S+) is not implemented")


# --- what a sample differentiates -----------------------------------------------------------------


def flat_outputs(value: Any) -> list[Any]:
    """The leaves of a result: tuples (torch.return_types too) and lists flattened."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flat_outputs(item)]
    return [value]


def grad_inputs(parts: Any, is_tensor: Callable[[Any], bool]) -> list[Any]:
    """The tensors of a sample that require grad, in all_values order (repeats kept)."""
    return [v for v in all_values(parts) if is_tensor(v) and v.requires_grad]


def cotangents(
    outputs: Sequence[torch.Tensor], seed: int, requires_grad: bool
) -> list[torch.Tensor]:
    """Standard normal tensors like `outputs` (complex normal for complex outputs)."""
    generator = torch.Generator().manual_seed(seed)
    return [
        torch.randn(o.shape, dtype=o.dtype, generator=generator).requires_grad_(requires_grad)
        for o in outputs
    ]


def sample_seed(op: OpInfo, dtype: torch.dtype, index: int, layer: Variant) -> int:
    return zlib.crc32(f"{full_name(op)} {torch_dtype_name(dtype)} {index} {layer.value}".encode())


# --- comparing gradients --------------------------------------------------------------------------


def _without_strides(observed: Observed) -> Observed:
    if isinstance(observed, ObservedTensor):
        return dataclasses.replace(observed, stride=())
    return observed


def compare_gradients(
    expected: Sequence[torch.Tensor | None],
    actual: Sequence[Any],
    target: Target,
    tolerance: tuple[float, float],
    what: str,
) -> None:
    """Raise SampleFailure where a target gradient differs from torch's (None, dtype, size,
    values)."""
    for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
        where = f"{what} {i}"
        if e is None or a is None:
            if (e is None) != (a is None):
                got, torchs = ("None", "a tensor") if a is None else ("a tensor", "None")
                raise SampleFailure(f"{where}: {got}, torch's is {torchs}")
            continue
        compare(
            _without_strides(observe_torch(e)),
            _without_strides(target.observe(a)),
            tolerance,
            where,
        )


def gradient_failure(error: BaseException, step: str) -> SampleFailure:
    """The failure of a target's backward: "derivative not implemented: aten::exp" when
    refimpl's NotImplemented node raised, else the error's first line."""
    found = _DERIVATIVE_MISSING.search(str(error))
    if isinstance(error, NotImplementedError) and found:
        return SampleFailure(f"derivative not implemented: {found.group(1)}")
    return SampleFailure(f"{step}: {describe(error)}")


class NothingToCheck(Exception):
    """A sample without a differentiable input or output (or one torch rejects)."""


# --- one sample -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Forward:
    """One side's forward call: the inputs requiring grad and the outputs differentiated."""

    inputs: list[Any]
    outputs: list[Any]


def torch_forward(op: OpInfo, sample: SampleInput) -> tuple[Forward, list[int]]:
    """torch's call and the positions of its outputs that require grad."""
    parts = (sample.input, tuple(sample.args), dict(sample.kwargs))
    inputs = grad_inputs(parts, lambda v: isinstance(v, torch.Tensor))
    if not inputs:
        raise NothingToCheck("no input requires grad")
    try:
        result = op.gradcheck_wrapper(op.op, parts[0], *parts[1], **parts[2])
    except Exception as error:  # noqa: BLE001  # a sample torch rejects checks nothing
        raise NothingToCheck(f"torch raised {describe(error)}") from None
    outputs = flat_outputs(sample.output_process_fn_grad(result))
    positions = [
        i for i, o in enumerate(outputs) if isinstance(o, torch.Tensor) and o.requires_grad
    ]
    if not positions:
        raise NothingToCheck("no output requires grad")
    return Forward(inputs, outputs), positions


def target_forward(
    op: OpInfo, target_fn: Callable[..., Any], sample: SampleInput, target: Target
) -> Forward:
    """The target's call on the converted sample (inside target.activate())."""
    parts = target.convert((sample.input, tuple(sample.args), dict(sample.kwargs)))
    inputs = grad_inputs(parts, target.is_tensor)
    wrapper = target.resolve(op.gradcheck_wrapper)
    process = target.resolve(sample.output_process_fn_grad)
    with time_guard(SAMPLE_TIMEOUT_S):
        try:
            result = wrapper(target_fn, parts[0], *parts[1], **parts[2])
        except (SampleTimeout, NotStored, Unconvertible):
            raise
        except Exception as error:  # noqa: BLE001  # the target failing is the outcome
            raise SampleFailure(f"forward: {describe(error)}") from None
    return Forward(inputs, flat_outputs(process(result)))


def check_differentiability(
    expected: Forward, positions: list[int], actual: Forward, target: Target
) -> None:
    if len(actual.inputs) != len(expected.inputs):
        raise SampleFailure(
            f"{len(actual.inputs)} converted inputs require grad, torch's {len(expected.inputs)}"
        )
    if len(actual.outputs) != len(expected.outputs):
        raise SampleFailure(f"{len(actual.outputs)} outputs, torch's {len(expected.outputs)}")
    for i, out in enumerate(actual.outputs):
        requires = target.is_tensor(out) and bool(out.requires_grad)
        if requires != (i in positions):
            raise SampleFailure(f"output {i}: requires_grad={requires}, torch's {i in positions}")


@dataclass(frozen=True, slots=True)
class Expected:
    """torch's side of a sample: its forward, cotangents, gradients and, for the second
    layer, the vectors pulled back through the gradients and the second derivatives."""

    forward: Forward
    positions: list[int]  # the outputs that require grad
    us: list[torch.Tensor]  # their cotangents
    grads: tuple[torch.Tensor | None, ...]  # one per input requiring grad
    chosen: list[int]  # with create_graph: the gradients that require grad
    vs: list[torch.Tensor]  # their cotangents
    seconds: tuple[torch.Tensor | None, ...]  # one per input, then one per `us`


def torch_gradients(op: OpInfo, sample: SampleInput, second: bool, seed: int) -> Expected:
    """torch's gradients of one sample; NothingToCheck where torch has none."""
    forward, positions = torch_forward(op, sample)
    us = cotangents([forward.outputs[i] for i in positions], seed, requires_grad=second)
    try:
        grads = torch.autograd.grad(
            [forward.outputs[i] for i in positions],
            forward.inputs,
            us,
            allow_unused=True,
            create_graph=second,
        )
    except Exception as error:  # noqa: BLE001  # as above: torch has no gradient here
        raise NothingToCheck(f"torch's backward raised {describe(error)}") from None
    # With create_graph, the gradients that require grad; those that do not (torch's
    # zeros_like(grad) for floor) have no second derivative, and the target's must not either.
    chosen = [i for i, g in enumerate(grads) if g is not None and g.requires_grad]
    if not (second and chosen):
        return Expected(forward, positions, us, grads, chosen, [], ())
    vs = cotangents([grads[i] for i in chosen], seed + 1, requires_grad=False)
    try:
        seconds = torch.autograd.grad(
            [grads[i] for i in chosen], [*forward.inputs, *us], vs, allow_unused=True
        )
    except Exception as error:  # noqa: BLE001  # as above
        raise NothingToCheck(f"torch's double backward raised {describe(error)}") from None
    return Expected(forward, positions, us, grads, chosen, vs, seconds)


def target_grad(
    target: Target,
    outputs: list[Any],
    inputs: list[Any],
    cotangents: list[Any],
    step: str,
    create_graph: bool,
) -> tuple[Any, ...]:
    """The target's autograd.grad under the sample time limit; its errors are failures."""
    with time_guard(SAMPLE_TIMEOUT_S):
        try:
            return target.grad(outputs, inputs, cotangents, create_graph)
        except (SampleTimeout, NotStored, Unconvertible):
            raise
        except Exception as error:  # noqa: BLE001  # the target failing is the outcome
            raise gradient_failure(error, step) from None


def run_gradient_sample(
    op: OpInfo,
    layer: Variant,
    dtype: torch.dtype,
    index: int,
    target_fn: Callable[..., Any],
    sample: SampleInput,
    target: Target,
    tolerance: tuple[float, float],
) -> None:
    """Check one sample's gradients (and second derivatives for GRADGRAD); raise
    SampleFailure where the target differs, NothingToCheck where there is nothing to."""
    second = layer is Variant.GRADGRAD
    expected = torch_gradients(op, sample, second, sample_seed(op, dtype, index, layer))
    with target.activate():
        actual = target_forward(op, target_fn, sample, target)
        check_differentiability(expected.forward, expected.positions, actual, target)
        us = target.convert(expected.us)
        outputs = [actual.outputs[i] for i in expected.positions]
        grads = target_grad(target, outputs, actual.inputs, us, "backward", second)
        compare_gradients(expected.grads, grads, target, tolerance, "gradient of input")
        if not second:
            return
        for i, g in enumerate(grads):
            requires = g is not None and bool(g.requires_grad)
            if requires != (i in expected.chosen):
                raise SampleFailure(
                    f"gradient of input {i}: requires_grad={requires} with create_graph=True, "
                    f"torch's {i in expected.chosen}"
                )
        if not expected.chosen:
            return
        seconds = target_grad(
            target,
            [grads[i] for i in expected.chosen],
            [*actual.inputs, *us],
            target.convert(expected.vs),
            "double backward",
            False,
        )
    n = len(actual.inputs)
    compare_gradients(
        expected.seconds[:n], seconds[:n], target, tolerance, "second derivative, input"
    )
    compare_gradients(
        expected.seconds[n:], seconds[n:], target, tolerance, "second derivative, cotangent"
    )


# --- one case -------------------------------------------------------------------------------------


def gradient_dtypes(op: OpInfo) -> list[torch.dtype]:
    """float64, and complex128 where the OpInfo declares complex backward support."""
    # torch's testing code is untyped
    supported = op.supported_backward_dtypes(DEVICE)  # type: ignore[no-untyped-call]
    return [d for d in GRADIENT_DTYPES if d in supported]


def layer_limit(layer: Variant, max_samples: int | None) -> int | None:
    """Samples checked per gradient case: all when the run is unbounded, else at most the
    layer's CI bound."""
    return None if max_samples is None else min(max_samples, CI_SAMPLES[layer])


def run_gradient_case(
    op: OpInfo, layer: Variant, dtype: torch.dtype, target: Target, limit: int | None
) -> CaseResult:
    """Check the first `limit` differentiable samples of (op, dtype) on one gradient layer;
    never raises."""
    start = time.perf_counter()
    case = Case(full_name(op), torch_dtype_name(dtype), layer)

    def result(outcome: Outcome, reason: str = "", run: int = 0) -> CaseResult:
        return CaseResult(case, outcome, reason, run, time.perf_counter() - start)

    if not target.stores(dtype):
        return result(Outcome.SKIPPED, f"not stored: {case.dtype} on {target.name}")
    try:
        target_fn = target.resolve(op.op)
    except Missing as missing:
        return result(Outcome.FAILED, str(missing))
    try:
        inputs = samples(op, dtype, None if limit is None else RAW_SAMPLES, requires_grad=True)
    except Exception as error:  # noqa: BLE001  # torch's generator failing is not the target's
        return result(Outcome.SKIPPED, f"torch made no samples: {describe(error)}")
    tolerance = tolerance_overrides(op, dtype)
    run = 0
    unchecked: list[str] = []
    for index, sample in enumerate(inputs):
        if limit is not None and run >= limit:
            break
        try:
            run_gradient_sample(op, layer, dtype, index, target_fn, sample, target, tolerance)
            run += 1
        except NothingToCheck as nothing:
            unchecked.append(str(nothing))
        except NotStored:
            unchecked.append("not stored")
        except (SampleFailure, Unconvertible, SampleTimeout) as failure:
            return result(Outcome.FAILED, f"sample {index}: {failure}", run + 1)
        except Exception as crash:  # noqa: BLE001  # a crash of the comparison is a failure too
            return result(Outcome.FAILED, f"sample {index}: crashed: {describe(crash)}", run + 1)
    if run == 0:
        return result(Outcome.SKIPPED, unchecked[0] if unchecked else "no samples")
    return result(Outcome.PASSED, run=run)


def run_gradient_layer(
    op: OpInfo, layer: Variant, target: Target, max_samples: int | None
) -> list[CaseResult]:
    """Every case of (op, layer): one per gradient dtype. An OpInfo whose layer checked no
    sample at all fails ("gradient not checked"), so a differentiable OpInfo is either
    checked or listed as an expected failure with that reason."""
    limit = layer_limit(layer, max_samples)
    results = [run_gradient_case(op, layer, d, target, limit) for d in gradient_dtypes(op)]
    if any(r.outcome is not Outcome.SKIPPED for r in results):
        return results
    why = "; ".join(f"{r.case.dtype}: {r.reason}" for r in results) or "no gradient dtype"
    seconds = sum(r.seconds for r in results)
    case = Case(full_name(op), ANY_DTYPE, layer)
    if not results or all(r.reason.startswith(_ORACLE_HAS_NONE) for r in results):
        # Nothing any target could be checked against: the OpInfo has no CPU dtype to
        # differentiate, or torch itself computes no gradient (ctc_loss's double backward).
        return [
            CaseResult(case, Outcome.SKIPPED, f"{layer.value}: torch has none: {why}", 0, seconds)
        ]
    return [CaseResult(case, Outcome.FAILED, f"{layer.value} not checked: {why}", 0, seconds)]


# The reasons of a skipped gradient sample that say torch, the oracle, gave nothing to
# compare with (NothingToCheck's texts above).
_ORACLE_HAS_NONE: Final = (
    "torch raised",
    "torch's backward raised",
    "torch's double backward raised",
)
