"""Running one OpInfo case on a target and comparing it with torch, sample by sample.

A case is (OpInfo, dtype, variant). For each of the case's samples torch runs its own
variant on its own sample (an exact copy for in-place), the target runs its counterpart on
the converted sample, and the two outcomes must agree: the same exception type and message,
or a result with the same dtype, size, strides and values (torch's tolerances for the dtype,
widened by the OpInfo's own toleranceOverride / precisionOverride decorators), with in-place
results being their input and out-of-place calls leaving inputs alone. Error inputs
(`op.error_inputs`) must raise the declared type with a message matching the regex.
Torch: the checks of test_variant_consistency_eager and test_errors in test/test_ops.py.
Where torch's own answer depends on the machine (oneDNN's half precision, MKL's rounding),
opinfo/machine.py keeps the oracle the same on every machine.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import math
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import torch
from torch.testing._comparison import default_tolerances
from torch.testing._internal import common_utils
from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
from torch.testing._internal.opinfo.core import ErrorInput, OpInfo, SampleInput

from conformance.opinfo import machine
from conformance.opinfo.convert import (
    Missing,
    NotStored,
    Observed,
    ObservedTensor,
    Target,
    Unconvertible,
    all_values,
    exact_clone,
    observe_torch,
    torch_dtype_name,
)
from conformance.opinfo.select import RANDOM, Variant, family_of, full_name

DEVICE: Final = "cpu"
CI_MAX_SAMPLES: Final = 4
SAMPLE_TIMEOUT_S: Final = 20.0
ANY_DTYPE: Final = "*"


class Outcome(enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class Case:
    """One (OpInfo, dtype, variant); `dtype` is "*" for the errors variant."""

    op: str
    dtype: str
    variant: Variant

    @property
    def id(self) -> str:
        return f"{self.op} {self.dtype} {self.variant.value}"


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    outcome: Outcome
    reason: str
    samples: int  # samples run (not skipped)
    seconds: float


class SampleFailure(Exception):
    """A sample whose target outcome differs from torch's; the message is the reason."""


class SampleTimeout(Exception):
    """The target took longer than SAMPLE_TIMEOUT_S on one sample."""


# --- samples, generated once per (op, dtype) ------------------------------------------------------

_samples_of: dict[tuple[str, str, int | None, bool], list[SampleInput]] = {}


def samples(
    op: OpInfo, dtype: torch.dtype, limit: int | None, *, requires_grad: bool = False
) -> list[SampleInput]:
    """The first `limit` samples of `op` for `dtype` (all if None), seeded with 0.

    Kept for the op's other variants; the cache holds one op at a time, as runs go op by op.
    """
    key = (full_name(op), torch_dtype_name(dtype), limit, requires_grad)
    if key not in _samples_of:
        if not any(k[0] == key[0] for k in _samples_of):
            _samples_of.clear()
        torch.manual_seed(0)
        with no_test_lookup():
            generated = op.sample_inputs(  # type: ignore[no-untyped-call]  # torch's testing code
                DEVICE, dtype, requires_grad=requires_grad
            )
            _samples_of[key] = list(itertools.islice(generated, limit))
    return _samples_of[key]


def error_inputs(op: OpInfo, limit: int | None) -> list[ErrorInput]:
    torch.manual_seed(0)
    with no_test_lookup():
        found = op.error_inputs(DEVICE)  # type: ignore[no-untyped-call]  # torch's testing code
        return list(itertools.islice(found, limit))


@contextmanager
def no_test_lookup() -> Iterator[None]:
    """Skip torch's search of the call stack for a unittest.TestCase while making inputs.

    torch: TrackedInputIter in torch/testing/_internal/common_utils.py calls extract_test_fn,
    which runs inspect.stack() (reading the source of every frame: milliseconds under pytest)
    to seed each sample from the test's name. We never run inside a TestCase, so it finds
    none and seeds with the fixed SEED; answering None at once gives the same samples.
    """
    saved = common_utils.extract_test_fn
    common_utils.extract_test_fn = lambda: None
    try:
        yield
    finally:
        common_utils.extract_test_fn = saved


# --- tolerances ---------------------------------------------------------------------------------


def tolerance_overrides(op: OpInfo, dtype: torch.dtype) -> tuple[float, float]:
    """The widest (rtol, atol) the OpInfo's decorators declare for `dtype` on the CPU.

    toleranceOverride({dtype: tol(atol, rtol)}) and precisionOverride({dtype: atol}) wrapped
    in DecorateInfo apply to named tests of torch's suite; any of them is taken here, since
    they all compare the op with a reference computation as refimpl is compared with torch.
    """
    rtol = atol = 0.0
    for info in op.decorators:
        decorators = getattr(info, "decorators", [info])
        if getattr(info, "device_type", None) not in (None, DEVICE):
            continue
        if getattr(info, "active_if", True) is not True:
            continue
        for decorator in decorators:
            if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
                atol = max(atol, decorator.d[dtype].atol)
                rtol = max(rtol, decorator.d[dtype].rtol)
            elif isinstance(decorator, precisionOverride) and dtype in decorator.d:
                atol = max(atol, decorator.d[dtype])
    return rtol, atol


def torch_marks(op: OpInfo, test_name: str) -> str | None:
    """ "expectedFailure" or "skip" if `op` marks torch's CPU test `test_name` so, else None."""
    for info in (*op.decorators, *op.skips):
        if getattr(info, "test_name", None) != test_name:
            continue
        if getattr(info, "device_type", None) not in (None, DEVICE):
            continue
        if getattr(info, "active_if", True) is not True:
            continue
        for decorator in getattr(info, "decorators", ()):
            if getattr(decorator, "__module__", None) == "unittest.case":
                name: str = getattr(decorator, "__name__", "skip")
                return "expectedFailure" if name == "expectedFailure" else "skip"
    return None


# --- calling ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    """What a call did: its result, or the exception it raised."""

    result: Any = None
    error: BaseException | None = None


def call(fn: Callable[..., Any], sample: tuple[Any, tuple[Any, ...], dict[str, Any]]) -> Call:
    first, args, kwargs = sample
    try:
        return Call(result=fn(first, *args, **kwargs))
    except SampleTimeout:
        raise
    except Exception as error:  # noqa: BLE001  # any exception is an outcome to compare
        return Call(error=error)


@contextmanager
def time_guard(seconds: float) -> Iterator[None]:
    """Raise SampleTimeout in the block after `seconds` (main thread only, else no guard)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise SampleTimeout(f"timeout: a sample took more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def torch_variant(op: OpInfo, variant: Variant) -> Callable[..., Any]:
    table: dict[Variant, Callable[..., Any] | None] = {
        Variant.FUNCTION: op.op,
        Variant.METHOD: op.method_variant,
        Variant.INPLACE: op.inplace_variant,
        Variant.OPERATOR: op.operator_variant,
        Variant.ERRORS: op.op,
        Variant.GRAD: op.op,
        Variant.GRADGRAD: op.op,
    }
    fn = table[variant]
    if fn is None:
        raise ValueError(f"{full_name(op)} has no {variant.value} variant")
    return fn


# --- comparing ----------------------------------------------------------------------------------


def builtin_type(error: BaseException) -> type[BaseException]:
    """The nearest builtin exception class (torch's _LinAlgError -> RuntimeError)."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(error)


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def describe(error: BaseException) -> str:
    """`Type: message`, the message cut to its first sentence when its first line is long
    (the dispatcher's "Could not run 'aten::abs' with arguments from the 'CPU' backend.")."""
    line = first_line(str(error), limit=10_000)
    if len(line) > 120 and ". " in line[40:]:
        line = line[: line.index(". ", 40) + 1]
    return f"{type(error).__name__}: {first_line(line)}"


def compare(
    expected: Observed,
    actual: Observed,
    tolerance: tuple[float, float],
    where: str = "result",
    truth: Observed = None,
) -> None:
    """Raise SampleFailure if `actual` differs from `expected` (torch's); with `truth`
    (torch's result in double precision: Note [A single-precision BLAS or LAPACK result is
    refereed in double] in opinfo/machine.py), values that differ pass where `actual` is as
    accurate as `expected`."""
    if isinstance(expected, ObservedTensor):
        if not isinstance(actual, ObservedTensor):
            raise SampleFailure(f"{where}: expected a tensor, got {type(actual).__name__}")
        compare_tensors(
            expected, actual, tolerance, where, truth if isinstance(truth, ObservedTensor) else None
        )
    elif isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            raise SampleFailure(f"{where}: expected a sequence of {len(expected)}, got {actual!r}")
        truths = truth if isinstance(truth, (tuple, list)) else [None] * len(expected)
        for i, (e, a, t) in enumerate(zip(expected, actual, truths)):
            compare(e, a, tolerance, f"{where}[{i}]", t)
    elif isinstance(actual, ObservedTensor):
        raise SampleFailure(f"{where}: expected {type(expected).__name__}, got a tensor")
    elif isinstance(expected, (bool, int, float, complex)):
        same_kind = isinstance(actual, bool) == isinstance(expected, bool)
        both_nan = (
            isinstance(expected, float)
            and isinstance(actual, float)
            and (math.isnan(expected) and math.isnan(actual))
        )
        if not same_kind or not (both_nan or actual == expected):
            raise SampleFailure(f"{where}: expected {expected!r}, got {actual!r}")
    elif expected != actual:
        raise SampleFailure(f"{where}: expected {expected!r}, got {actual!r}")


# Dtypes torch.testing cannot compare on the CPU, and the dtype their values compare in.
_WIDENED: Final = {torch.complex32: torch.complex64, torch.bfloat16: torch.float32}


def comparable(values: torch.Tensor) -> torch.Tensor:
    widened = _WIDENED.get(values.dtype)
    return values if widened is None else values.to(widened)


def compare_tensors(
    expected: ObservedTensor,
    actual: ObservedTensor,
    tolerance: tuple[float, float],
    where: str,
    truth: ObservedTensor | None = None,
) -> None:
    if actual.dtype != expected.dtype:
        raise SampleFailure(f"{where}: dtype {actual.dtype}, expected {expected.dtype}")
    if actual.size != expected.size:
        raise SampleFailure(f"{where}: size {list(actual.size)}, expected {list(expected.size)}")
    if actual.stride != expected.stride:
        raise SampleFailure(f"{where}: stride {actual.stride}, expected {expected.stride}")
    if expected.values is None or actual.values is None:
        return
    if torch.equal(comparable(actual.values), comparable(expected.values)):
        return
    rtol, atol = default_tolerances(expected.values.dtype)
    rtol, atol = max(rtol, tolerance[0]), max(atol, tolerance[1])
    try:
        torch.testing.assert_close(
            comparable(actual.values),
            comparable(expected.values),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
            check_dtype=False,
            check_stride=False,
        )
    except AssertionError as error:
        if (
            truth is not None
            and truth.values is not None
            and machine.as_accurate(actual.values, expected.values, truth.values, rtol, atol)
        ):
            return
        detail = [ln for ln in str(error).splitlines() if ln.startswith(("Mismatched", "Greatest"))]
        raise SampleFailure(f"{where}: values differ: {'; '.join(detail[:2])}") from None


def compare_unchanged(
    before: list[Observed],
    target: Target,
    after: list[Any],
    what: str,
    pristine: list[Observed] | None = None,
    tolerance: tuple[float, float] | None = None,
) -> None:
    """Raise SampleFailure if a target input now differs from the sample's value as torch's
    call left it (`before`). An input torch's call wrote (it differs from `pristine`, the
    value before the call: batch norm's running statistics) compares as a result does,
    within `tolerance`; any other must be bitwise unchanged."""
    for i, (original, now) in enumerate(zip(before, after)):
        if isinstance(original, ObservedTensor) and target.is_tensor(now):
            observed = target.observe(now)
            if not isinstance(observed, ObservedTensor):
                raise SampleFailure(f"{what} {i} is no longer a tensor")
            if original.values is None or observed.values is None:
                continue
            earlier = None if pristine is None else pristine[i]
            written = (
                isinstance(earlier, ObservedTensor)
                and earlier.values is not None
                and not torch.equal(_bits(earlier.values), _bits(original.values))
            )
            if written and tolerance is not None:
                compare_tensors(original, observed, tolerance, f"written {what} {i}")
                continue
            # Bitwise: a copy keeps NaN payloads and the sign of zero; a write may not.
            if not torch.equal(_bits(observed.values), _bits(original.values)):
                raise SampleFailure(f"{what} {i} was modified")


def _bits(values: torch.Tensor) -> torch.Tensor:
    # An empty tensor may carry stride 0 (torch.from_numpy of an empty array), which
    # `view(torch.uint8)` refuses; it has no bits to compare.
    if values.numel() == 0:
        return values.new_empty(0, dtype=torch.uint8)
    return values.reshape(-1).view(torch.uint8)


def compare_errors(expected: BaseException, actual: Call, lambda_note: str) -> None:
    if actual.error is None:
        raise SampleFailure(f"torch raised {describe(expected)}; the target did not")
    if builtin_type(actual.error) is not builtin_type(expected):
        raise SampleFailure(
            f"{lambda_note}raised {describe(actual.error)}; torch raised {describe(expected)}"
        )
    if str(actual.error) != str(expected):
        raise SampleFailure(
            f"message differs: {first_line(str(actual.error), 120)!r}, torch: "
            f"{first_line(str(expected), 120)!r}"
        )


# --- running a case -----------------------------------------------------------------------------


def _parts(sample: SampleInput) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    return sample.input, tuple(sample.args), dict(sample.kwargs)


# OpInfos whose results are uninitialized memory: only their dtype, size and strides compare
# (torch's own OpInfo tests skip their value checks the same way).
UNINITIALIZED: Final = frozenset(
    {
        "empty",
        "empty_like",
        "empty_permuted",
        "empty_strided",
        "new_empty",
        "new_empty_strided",
    }
)


# OpInfos whose results are defined up to a phase (singular vectors, eigenvectors: see Note
# [Singular and eigenvectors are defined up to a phase] in refimpl/ops/linalg_spectral.py):
# their dtypes, sizes and strides compare as they are, their values through the sample's
# output_process_fn_grad (torch's gauge-invariant functions of them: |U|, U Vh, |V|, ...).
GAUGE_DEPENDENT: Final = frozenset(
    {"linalg.eig", "linalg.eigh", "linalg.svd", "svd", "svd_lowrank", "pca_lowrank"}
)


# The seed both generators get before each sample of a random op.
RANDOM_SEED: Final = 1234


def _without_values(observed: Observed) -> Observed:
    if isinstance(observed, ObservedTensor):
        return dataclasses.replace(observed, values=None)
    if isinstance(observed, (tuple, list)):
        return type(observed)(_without_values(item) for item in observed)
    return observed


def run_sample(
    variant: Variant,
    torch_fn: Callable[..., Any],
    target_fn: Callable[..., Any],
    sample: SampleInput,
    target: Target,
    tolerance: tuple[float, float],
    lambda_note: str,
    *,
    values: bool = True,
    gauge: bool = False,
    seeded: bool = False,
    refereed: bool = False,
) -> None:
    """Run one sample on torch and on the target; raise SampleFailure where they differ
    (`values` False: results compare by dtype, size and strides only; `gauge`: values
    compare through the sample's output_process_fn_grad, see GAUGE_DEPENDENT; `seeded`: a
    random op, both generators seeded alike before the call; `refereed`: values that differ
    are judged against torch's double-precision result, see opinfo/machine.py). Inputs are
    compared with torch's inputs after its call (OpInfos such as `cauchy` call the in-place
    method)."""
    parts = _parts(sample)
    if variant is Variant.INPLACE:
        parts = (
            exact_clone(parts[0]) if isinstance(parts[0], torch.Tensor) else parts[0],
            parts[1],
            parts[2],
        )
    leaves = list(all_values(parts))
    pristine = [observe_torch(v) for v in leaves]
    # Converted inside activate(): refimpl makes the tensors on the target's backend.
    with target.activate():
        converted = target.convert(parts)
        if seeded:
            target.manual_seed(RANDOM_SEED)
        with time_guard(SAMPLE_TIMEOUT_S):
            actual = call(target_fn, converted)
    if seeded:
        torch.manual_seed(RANDOM_SEED)
    expected = call(torch_fn, parts)
    # The inputs as torch's call left them: an op that writes into an argument (a random
    # op's in-place method, F.embedding's max_norm renormalising its weight) must write the
    # same values; any other must leave its inputs alone.
    before = [observe_torch(v) for v in leaves]
    if expected.error is not None:
        compare_errors(expected.error, actual, lambda_note)
        return
    if actual.error is not None:
        raise SampleFailure(f"{lambda_note}{describe(actual.error)}")
    observed_expected, observed_actual = (
        observe_torch(expected.result),
        target.observe(actual.result),
    )
    if not values or gauge:
        observed_expected, observed_actual = (
            _without_values(observed_expected),
            _without_values(observed_actual),
        )
    try:
        compare(observed_expected, observed_actual, tolerance)
    except SampleFailure:
        answer = call(torch_fn, machine.widened(parts)) if refereed else None
        if answer is None or answer.error is not None:
            raise
        truth = observe_torch(answer.result)
        compare(observed_expected, observed_actual, tolerance, truth=truth)
    if gauge:
        with target.activate():
            processed = target.resolve(sample.output_process_fn_grad)(actual.result)
        compare(
            observe_torch(sample.output_process_fn_grad(expected.result)),
            target.observe(processed),
            tolerance,
            "gauge-invariant result",
        )
    converted_leaves = list(all_values(converted))
    if variant is Variant.INPLACE:
        if actual.result is not converted[0]:
            raise SampleFailure("the in-place result is not its input")
        compare_unchanged(before[1:], target, converted_leaves[1:], "argument", pristine[1:])
    else:
        compare_unchanged(before, target, converted_leaves, "input", pristine, tolerance)


def run_error_input(
    target_fn: Callable[..., Any], error_input: ErrorInput, target: Target, lambda_note: str
) -> None:
    """The target must raise error_input's type with a message matching its regex."""
    parts = _parts(error_input.sample_input)
    before = [observe_torch(v) for v in all_values(parts)]
    with target.activate():
        converted = target.convert(parts)
        with time_guard(SAMPLE_TIMEOUT_S):
            actual = call(target_fn, converted)
    if (
        actual.error is None
        and actual.result is NotImplemented
        and issubclass(AssertionError, error_input.error_type)
    ):
        # torch's test_errors asserts, inside its assertRaises block, that the result is not
        # NotImplemented (what a reflected operator returns for two numbers).
        return
    if actual.error is None:
        raise SampleFailure(f"no error; torch raises {error_input.error_type.__name__}")
    if not isinstance(actual.error, error_input.error_type):
        raise SampleFailure(
            f"{lambda_note}raised {describe(actual.error)}; expected "
            f"{error_input.error_type.__name__}"
        )
    if not re.search(error_input.error_regex, str(actual.error)):
        raise SampleFailure(
            f"message {first_line(str(actual.error), 120)!r} does not match "
            f"{error_input.error_regex!r}"
        )
    compare_unchanged(before, target, list(all_values(converted)), "input")


class CaseStop(Exception):
    """A case decided before its samples run (not stored, missing, no inputs)."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def case_inputs(
    op: OpInfo,
    variant: Variant,
    dtype: torch.dtype | None,
    target: Target,
    max_samples: int | None,
) -> tuple[Callable[..., Any], list[Any]]:
    """The target's callable for the case and its inputs (SampleInputs or ErrorInputs).

    Error inputs are cheap to make and often absent on the CPU, so they are looked at
    first (none is a skip); samples are made only once the target has the callable, since
    making them is most of a run's cost. Raises CaseStop when the case is decided already.
    """
    if dtype is not None and not target.stores(dtype):
        raise CaseStop(Outcome.SKIPPED, f"not stored: {torch_dtype_name(dtype)} on {target.name}")
    inputs: list[Any] | None = None
    if dtype is None:
        try:
            inputs = error_inputs(op, max_samples)
        except Exception as error:  # noqa: BLE001  # torch's generator failing is not the target's
            raise CaseStop(
                Outcome.SKIPPED, f"torch made no error inputs: {describe(error)}"
            ) from None
        if not inputs:
            raise CaseStop(Outcome.SKIPPED, "no error inputs on the CPU")
        marked = torch_marks(op, "test_errors")
        if marked:
            raise CaseStop(Outcome.SKIPPED, f"torch's own test_errors is marked {marked}")
    try:
        target_fn = target.resolve(torch_variant(op, variant))
    except Missing as missing:
        raise CaseStop(Outcome.FAILED, str(missing)) from None
    if inputs is None:
        assert dtype is not None  # the errors variant made its inputs above
        try:
            inputs = samples(op, dtype, max_samples)
        except Exception as error:  # noqa: BLE001  # as above
            raise CaseStop(Outcome.SKIPPED, f"torch made no samples: {describe(error)}") from None
    return target_fn, inputs


def run_case(
    op: OpInfo,
    variant: Variant,
    dtype: torch.dtype | None,
    target: Target,
    max_samples: int | None,
) -> CaseResult:
    """Run every sample (the first `max_samples`) of one case; never raises."""
    start = time.perf_counter()
    case = Case(full_name(op), ANY_DTYPE if dtype is None else torch_dtype_name(dtype), variant)

    def result(outcome: Outcome, reason: str = "", run: int = 0) -> CaseResult:
        return CaseResult(case, outcome, reason, run, time.perf_counter() - start)

    try:
        target_fn, inputs = case_inputs(op, variant, dtype, target, max_samples)
    except CaseStop as stop:
        return result(stop.outcome, stop.reason)
    torch_fn = torch_variant(op, variant)
    # An OpInfo lambda runs as it is on the target's tensors; say so in its failures.
    module = getattr(target_fn, "__module__", None) or ""
    lambda_note = (
        f"in the OpInfo's {target_fn.__qualname__}: "
        if target_fn is torch_fn and module.startswith("torch.testing") and target.name != "torch"
        else ""
    )
    tolerance = tolerance_overrides(op, dtype) if dtype is not None else (0.0, 0.0)
    # An in-place variant has written into its input by the time a referee would read it.
    refereed = (
        dtype in machine.REFEREED_DTYPES
        and variant is not Variant.INPLACE
        and machine.refereed(op.name, family_of(op))
    )
    run = skipped = 0
    with machine.native_half_kernels(dtype):
        for index, sample in enumerate(inputs):
            try:
                if dtype is None:
                    run_error_input(target_fn, sample, target, lambda_note)
                else:
                    run_sample(
                        variant,
                        torch_fn,
                        target_fn,
                        sample,
                        target,
                        tolerance,
                        lambda_note,
                        values=op.name not in UNINITIALIZED,
                        gauge=op.name in GAUGE_DEPENDENT,
                        seeded=op.name in RANDOM,
                        refereed=refereed,
                    )
                run += 1
            except NotStored:
                skipped += 1
            except (SampleFailure, Unconvertible, SampleTimeout) as failure:
                return result(Outcome.FAILED, f"sample {index}: {failure}", run + 1)
            except Exception as crash:  # noqa: BLE001  # a crash of the comparison is a failure too
                return result(Outcome.FAILED, f"sample {index}: crashed: {describe(crash)}", run + 1)
    if run == 0:
        return result(Outcome.SKIPPED, "no samples" if not skipped else "samples not stored")
    return result(Outcome.PASSED, run=run)


def dtypes_of(op: OpInfo) -> list[torch.dtype]:
    """The dtypes `op` supports on the CPU, in a stable order."""
    supported = op.supported_dtypes(DEVICE)  # type: ignore[no-untyped-call]  # torch's testing code
    return sorted(supported, key=torch_dtype_name)


def run_forward_variant(
    op: OpInfo, variant: Variant, target: Target, max_samples: int | None
) -> list[CaseResult]:
    """Every case of a forward (op, variant): one per supported dtype, or one for the errors
    variant. (layers.run_variant chooses between this and the gradient layers.)"""
    if variant is Variant.ERRORS:
        return [run_case(op, variant, None, target, max_samples)]
    return [run_case(op, variant, dtype, target, max_samples) for dtype in dtypes_of(op)]


def max_samples_from_env(full: bool = False) -> int | None:
    """CI_MAX_SAMPLES per case, or every sample with `full` or REFIMPL_OPINFO_FULL=1."""
    return None if full or os.environ.get("REFIMPL_OPINFO_FULL") == "1" else CI_MAX_SAMPLES
