"""The meta layer of an OpInfo run: shapes, dtypes and strides on the `meta` device, without data.

A meta case is (OpInfo, dtype, "meta"). Each of the case's samples is moved to the meta device
on both sides, keeping every tensor's size, strides and storage offset (tensors sharing a
storage in the sample share one meta storage, so overlap checks see what they see on the CPU),
with requires_grad off; a device argument naming the CPU names meta instead. torch runs the function variant on its meta sample, the target its
counterpart on its own, and the outcomes must agree:

- both raise, with the same exception type and message (see Note [Meta error texts]);
  torch raising NotImplementedError (no Meta kernel, or an output size that depends on data)
  skips the sample unless the target raises the same;
- or both return, and each output tensor has torch's device type, dtype, size, storage offset
  and, where torch's output is dense and non-overlapping, its strides (those of dimensions
  longer than 1, as torch's check_significant_strides compares them).

The in-place variant runs the same way and must return its input. Where torch's meta outcome
is not its own CPU outcome (its Meta kernel raises where the CPU kernel returns, as for
addbmm_, or returns where the CPU kernel raises, as the in-place ops torch/_refs resize) and
the target's outcome is the CPU one, the sample is skipped with that reason. The OpInfo's
error inputs run on meta too: those torch rejects on meta with the declared error must be
rejected alike; they form one more case per OpInfo, with ERRORS_DTYPE in the dtype column.
Torch: test_meta_outplace / test_meta_inplace in test/test_meta.py (assert_ref_meta_equal),
which hold meta results against CPU results; here torch's meta results are the oracle.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import torch
from torch._prims_common import is_non_overlapping_and_dense_or_false
from torch.testing._internal.opinfo.core import ErrorInput, OpInfo, SampleInput

import refimpl
from conformance.opinfo.convert import (
    TORCH_TARGET,
    Missing,
    NotStored,
    Target,
    TorchTarget,
    Unconvertible,
    storage_extent,
    torch_dtype_name,
)
from conformance.opinfo.runner import (
    DEVICE,
    SAMPLE_TIMEOUT_S,
    Call,
    Case,
    CaseResult,
    Outcome,
    SampleFailure,
    SampleTimeout,
    builtin_type,
    call,
    compare_errors,
    describe,
    dtypes_of,
    error_inputs,
    first_line,
    samples,
    time_guard,
    torch_marks,
)
from conformance.opinfo.select import Variant, full_name

# The dtype column of the case that runs an OpInfo's error inputs on meta. Not "*": in an
# expected-failure list "*" matches every dtype, and so would cover the sample cases too.
ERRORS_DTYPE: Final = "errors"
META: Final = "meta"
# Samples a meta case checks in a bounded run (CI), fewer than the forward layers' 4: every
# dtype still runs, and a meta call costs torch a Python meta function; `--full` checks all.
CI_SAMPLES: Final = 2

Parts = tuple[Any, tuple[Any, ...], dict[str, Any]]


# Note [Meta error texts]
# Many of torch's Meta kernels are Python (torch/_meta_registrations.py, torch/_refs), and
# word an error their own way: exp_ of an int tensor raises "result type Float can't be cast
# to the desired output type Long" on the CPU but "Attempting to cast from torch.float32 to
# out tensor with dtype torch.int64, ..." on meta. refimpl's meta path is its CPU path
# without data, so it raises the CPU text. A target error of torch's meta type therefore
# matches when its message is torch's meta message or the message torch raises for the same
# sample on the CPU.


class SampleSkip(Exception):
    """A sample the meta layer cannot judge: torch has no Meta kernel for it, or torch's meta
    outcome is not its CPU outcome (the reason says which)."""


# --- moving a sample to the meta device -----------------------------------------------------------


# (storage address, dtype) -> the flat meta tensor standing for that storage.
Storages = dict[tuple[int, torch.dtype], Any]
FlatMaker = Callable[[int, torch.dtype], Any]


def meta_tensor(t: torch.Tensor, storages: Storages, make_flat: FlatMaker) -> Any:
    """A meta tensor with `t`'s dtype, size, strides and storage offset: a view of a flat meta
    tensor as long as `t`'s storage (one per storage of the sample), or as `t` reaches."""
    t = t.detach()
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    storage = t.untyped_storage()
    shareable = storage.data_ptr() != 0 and storage.nbytes() % t.element_size() == 0
    if shareable:
        key = (storage.data_ptr(), t.dtype)
        if key not in storages:
            storages[key] = make_flat(storage.nbytes() // t.element_size(), t.dtype)
        flat = storages[key]
    else:
        flat = make_flat(storage_extent(t), t.dtype)
    return flat.as_strided(tuple(t.size()), tuple(t.stride()), int(t.storage_offset()))


def map_values(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """`value` with `leaf` applied to every leaf of its lists, tuples and dicts."""
    if type(value) in (list, tuple):
        return type(value)(map_values(v, leaf) for v in value)
    if isinstance(value, dict):
        return {k: map_values(v, leaf) for k, v in value.items()}
    return leaf(value)


def torch_meta_parts(parts: Parts) -> Parts:
    """torch's sample with its tensors on the meta device."""
    storages: Storages = {}

    def make_flat(n: int, dtype: torch.dtype) -> torch.Tensor:
        return torch.empty(n, dtype=dtype, device=META)

    def leaf(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return meta_tensor(value, storages, make_flat)
        return on_meta(value)

    converted: Parts = map_values(parts, leaf)
    return converted


def on_meta(value: Any) -> Any:
    """A device argument naming the samples' device (a factory's `device="cpu"`) as meta, so
    that factories and `to` make meta tensors too; other values as they are."""
    if isinstance(value, torch.device) and value.type == DEVICE:
        return torch.device(META)
    if isinstance(value, str) and value == DEVICE:
        return META
    return value


def refimpl_dtype(dtype: torch.dtype) -> refimpl.dtype:
    """refimpl's dtype of the same name, whatever the backend stores: meta holds no data."""
    found = getattr(refimpl, torch_dtype_name(dtype), None)
    if not isinstance(found, refimpl.dtype):
        raise NotStored(f"refimpl has no dtype {torch_dtype_name(dtype)}")
    return found


def target_meta_parts(parts: Parts, target: Target) -> Parts:
    """The target's sample with its tensors on the meta device (call inside target.activate()).

    Tensors, dtypes and devices are made here, so no backend's dtype list matters; every other
    value is converted by the target as in the forward layers.
    """
    if target.name == TORCH_TARGET:
        return torch_meta_parts(parts)
    storages: Storages = {}

    def make_flat(n: int, dtype: torch.dtype) -> refimpl.Tensor:
        return refimpl.empty(n, dtype=refimpl_dtype(dtype), device=META)

    def leaf(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return meta_tensor(value, storages, make_flat)
        if isinstance(value, torch.dtype):
            return refimpl_dtype(value)
        value = on_meta(value)
        if isinstance(value, torch.device):
            return refimpl.device(str(value))
        return target.convert(value)

    converted: Parts = map_values(parts, leaf)
    return converted


# --- what a meta result looks like ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MetaTensor:
    """A result tensor's metadata; `stride` holds None for the dimensions whose stride is not
    compared, and is None when none is (torch's output is not dense and non-overlapping)."""

    device: str
    dtype: str
    size: tuple[int, ...]
    stride: tuple[int | None, ...] | None
    storage_offset: int


def significant_strides(
    size: tuple[int, ...], stride: tuple[int, ...], dense: bool
) -> tuple[int | None, ...] | None:
    """The strides that compare: none unless `dense`, else those of dimensions longer than 1
    (an empty tensor's strides are free). Torch: check_significant_strides in
    torch/_prims_common/__init__.py, as test_meta.py's assert_ref_meta_equal uses it."""
    if not dense:
        return None
    if 0 in size:
        return tuple(None for _ in size)
    return tuple(s if n > 1 else None for n, s in zip(size, stride))


def observe_torch_meta(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        size, stride = tuple(value.size()), tuple(value.stride())
        dense = is_non_overlapping_and_dense_or_false(value)
        return MetaTensor(
            value.device.type,
            torch_dtype_name(value.dtype),
            size,
            significant_strides(size, stride, dense),
            int(value.storage_offset()),
        )
    if isinstance(value, (tuple, list)):
        return [observe_torch_meta(v) for v in value]
    return value


def observe_target_meta(value: Any, target: Target, like: Any) -> Any:
    """A target result as torch's `like` (its observation) is seen: strides masked alike."""
    if target.is_tensor(value):
        size, stride = tuple(value.size()), tuple(value.stride())
        mask = like.stride if isinstance(like, MetaTensor) else None
        kept = (
            None
            if mask is None
            else tuple(None if m is None else s for m, s in zip(mask, stride, strict=False))
        )
        dtype = value.dtype
        return MetaTensor(
            value.device.type,
            getattr(dtype, "name", None) or torch_dtype_name(dtype),
            size,
            kept,
            int(value.storage_offset()),
        )
    if isinstance(value, (tuple, list)):
        likes = like if isinstance(like, list) and len(like) == len(value) else [None] * len(value)
        return [observe_target_meta(v, target, lk) for v, lk in zip(value, likes)]
    if isinstance(value, refimpl.dtype):
        return getattr(torch, value.name)
    return value


def compare_meta(expected: Any, actual: Any, where: str = "result") -> None:
    """Raise SampleFailure where the target's observed result differs from torch's."""
    if isinstance(expected, MetaTensor):
        if not isinstance(actual, MetaTensor):
            raise SampleFailure(f"{where}: expected a tensor, got {type(actual).__name__}")
        for field in ("device", "dtype", "size", "storage_offset", "stride"):
            e, a = getattr(expected, field), getattr(actual, field)
            if e != a:
                raise SampleFailure(f"{where}: {field} {a}, expected {e}")
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            raise SampleFailure(f"{where}: expected a sequence of {len(expected)}, got {actual!r}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare_meta(e, a, f"{where}[{i}]")
    elif isinstance(actual, MetaTensor):
        raise SampleFailure(f"{where}: expected {type(expected).__name__}, got a tensor")
    elif expected != actual or type(expected) is not type(actual):
        raise SampleFailure(f"{where}: expected {expected!r}, got {actual!r}")


# --- one sample -----------------------------------------------------------------------------------


def run_meta_call(
    torch_fn: Callable[..., Any],
    target_fn: Callable[..., Any],
    parts: Parts,
    target: Target,
    *,
    inplace: bool,
) -> None:
    """Run one variant of one sample on meta on both sides and compare the outcomes."""
    torch_parts = torch_meta_parts(parts)
    with target.activate():
        target_parts = target_meta_parts(parts, target)
        with time_guard(SAMPLE_TIMEOUT_S):
            actual = call(target_fn, target_parts)
    expected = call(torch_fn, torch_parts)

    def on_cpu() -> BaseException | None:
        """torch's error for the sample on the CPU (run only where the outcomes differ)."""
        return call(torch_fn, _cpu_copy(parts)).error

    if expected.error is not None:
        if actual.error is None and on_cpu() is None:
            raise SampleSkip(
                f"torch's Meta kernel raises where its CPU kernel does not: "
                f"{describe(expected.error)}"
            )
        compare_meta_errors(expected.error, actual, on_cpu)
        return
    if actual.error is not None:
        if same_error(on_cpu(), actual.error):
            raise SampleSkip(
                f"torch's Meta kernel accepts what its CPU kernel rejects: {describe(actual.error)}"
            )
        raise SampleFailure(describe(actual.error))
    if inplace and actual.result is not target_parts[0]:
        raise SampleFailure("the in-place result is not its input")
    observed = observe_torch_meta(expected.result)
    compare_meta(observed, observe_target_meta(actual.result, target, observed))


def _cpu_copy(parts: Parts) -> Parts:
    """An exact copy of the CPU sample (an in-place call may write to it)."""
    copied: Parts = _EXACT_COPY.convert(parts)
    return copied


_EXACT_COPY: Final = TorchTarget()


def same_error(expected: BaseException | None, actual: BaseException | None) -> bool:
    """Both are errors of the same builtin type with the same message."""
    return (
        expected is not None
        and actual is not None
        and builtin_type(actual) is builtin_type(expected)
        and str(actual) == str(expected)
    )


def compare_meta_errors(
    expected: BaseException, actual: Call, on_cpu: Callable[[], BaseException | None]
) -> None:
    """Both sides must raise alike; torch's NotImplementedError (no Meta kernel, or an op whose
    output size depends on data) is matched when the target raises it too, else skipped.

    See Note [Meta error texts] for the second text a target's error may match.
    """
    if isinstance(expected, NotImplementedError):
        if not same_error(expected, actual.error):
            raise SampleSkip(f"torch has no Meta kernel: {first_line(str(expected), 120)}")
        return
    if actual.error is not None and same_error(on_cpu(), actual.error):
        return
    compare_errors(expected, actual, "")


def run_meta_sample(
    op: OpInfo,
    target: Target,
    sample: SampleInput,
    function_fn: Callable[..., Any],
    inplace_fn: Callable[..., Any] | None,
) -> None:
    """The function variant, then the in-place variant where the target has one (a missing
    one is the in-place layer's failure, not counted again here)."""
    parts: Parts = (sample.input, tuple(sample.args), dict(sample.kwargs))
    run_meta_call(op.op, function_fn, parts, target, inplace=False)
    if op.inplace_variant is not None and inplace_fn is not None:
        try:
            run_meta_call(op.inplace_variant, inplace_fn, parts, target, inplace=True)
        except SampleFailure as failure:
            raise SampleFailure(f"in-place: {failure}") from None


def run_meta_error_input(
    op: OpInfo, target_fn: Callable[..., Any], error: ErrorInput, target: Target
) -> None:
    """An error input torch rejects on meta with the declared error must be rejected alike
    by the target; SampleSkip for the others."""
    sample = error.sample_input
    parts: Parts = (sample.input, tuple(sample.args), dict(sample.kwargs))
    expected = call(op.op, torch_meta_parts(parts)).error
    if expected is None:
        raise SampleSkip("torch on meta: no error")
    if not isinstance(expected, error.error_type) or not re.search(
        error.error_regex, str(expected)
    ):
        raise SampleSkip(f"torch on meta: {describe(expected)}")
    with target.activate():
        target_parts = target_meta_parts(parts, target)
        with time_guard(SAMPLE_TIMEOUT_S):
            actual = call(target_fn, target_parts)
    if actual.error is None:
        raise SampleFailure(f"no error; torch raises {describe(expected)}")
    if not isinstance(actual.error, error.error_type):
        raise SampleFailure(
            f"raised {describe(actual.error)}; expected {error.error_type.__name__}"
        )
    if not re.search(error.error_regex, str(actual.error)):
        raise SampleFailure(
            f"message {first_line(str(actual.error), 120)!r} does not match {error.error_regex!r}"
        )


# --- cases ----------------------------------------------------------------------------------------


def _inplace_fn(op: OpInfo, target: Target) -> Callable[..., Any] | None:
    if op.inplace_variant is None:
        return None
    try:
        return target.resolve(op.inplace_variant)
    except Missing:
        return None


def run_meta_case(
    op: OpInfo, dtype: torch.dtype | None, target: Target, max_samples: int | None
) -> CaseResult:
    """The first `max_samples` samples of (op, dtype) on meta, or its error inputs (dtype
    None); never raises."""
    start = time.perf_counter()
    label = ERRORS_DTYPE if dtype is None else torch_dtype_name(dtype)
    case = Case(full_name(op), label, Variant.META)

    def result(outcome: Outcome, reason: str = "", run: int = 0) -> CaseResult:
        return CaseResult(case, outcome, reason, run, time.perf_counter() - start)

    if dtype is not None and target.name != TORCH_TARGET:
        try:
            refimpl_dtype(dtype)
        except NotStored as not_stored:
            return result(Outcome.SKIPPED, str(not_stored))
    if dtype is None and (marked := torch_marks(op, "test_errors")):
        return result(Outcome.SKIPPED, f"torch's own test_errors is marked {marked}")
    try:
        target_fn = target.resolve(op.op)
    except Missing as missing:
        return result(Outcome.FAILED, str(missing))
    try:
        inputs: list[Any] = (
            error_inputs(op, max_samples) if dtype is None else samples(op, dtype, max_samples)
        )
    except Exception as error:  # noqa: BLE001  # torch's generator failing is not the target's
        return result(Outcome.SKIPPED, f"torch made no inputs: {describe(error)}")
    inplace_fn = _inplace_fn(op, target)
    run = 0
    skipped: list[str] = []
    for index, item in enumerate(inputs):
        try:
            if dtype is None:
                run_meta_error_input(op, target_fn, item, target)
            else:
                run_meta_sample(op, target, item, target_fn, inplace_fn)
            run += 1
        except (SampleSkip, NotStored) as skip:
            skipped.append(str(skip))
        except (SampleFailure, Unconvertible, SampleTimeout) as failure:
            return result(Outcome.FAILED, f"sample {index}: {failure}", run + 1)
        except Exception as crash:  # noqa: BLE001  # a crash of the comparison is a failure too
            return result(Outcome.FAILED, f"sample {index}: crashed: {describe(crash)}", run + 1)
    if run == 0:
        return result(Outcome.SKIPPED, skipped[0] if skipped else "no inputs")
    # A passing case says what it skipped (seen in --json), e.g. samples torch has no Meta
    # kernel for.
    note = f"{len(skipped)} skipped, e.g. {skipped[0]}" if skipped else ""
    return result(Outcome.PASSED, note, run=run)


def run_meta_layer(op: OpInfo, target: Target, max_samples: int | None) -> list[CaseResult]:
    """Every meta case of `op`: one per supported dtype, then one for its error inputs where
    it has them; a bounded run checks at most CI_SAMPLES samples (or error inputs) a case."""
    limit = None if max_samples is None else min(max_samples, CI_SAMPLES)
    results = [run_meta_case(op, dtype, target, limit) for dtype in dtypes_of(op)]
    if op.error_inputs_func is not None:
        results.append(run_meta_case(op, None, target, limit))
    return results
