"""PyTorch's OpInfo database against refimpl: one test per (OpInfo, variant) of the CI selection.

Each test runs every dtype the OpInfo supports on the CPU with the first few samples (all of
them with REFIMPL_OPINFO_FULL=1) on the backend named by REFIMPL_BACKEND_CPU (default numpy);
the gradient layers (`grad`, `gradgrad`) check float64 and complex128 derivatives of the
first 2 and 1 differentiable samples (conformance/opinfo/gradients.py), the meta layer the
first 2 samples on the meta device (conformance/opinfo/meta.py),
and judges the cases against `conformance/xfails/<backend>.txt`: an unlisted failure or a
listed case that passes fails the test; listed failures make it xfail. `refimpl conformance`
runs the same cases with a summary table.
"""

from __future__ import annotations

import os
from typing import Final

import pytest
import torch
from torch.testing._internal.opinfo.core import OpInfo

import refimpl
from conformance._oracle import STORED_DTYPES
from conformance.opinfo import layers, machine, runner, select, xfails
from conformance.opinfo.convert import make_target

BACKEND: Final = os.environ.get("REFIMPL_BACKEND_CPU", "numpy")
TARGET: Final = make_target(BACKEND)
EXPECTED: Final = xfails.XfailList.load(BACKEND)
MAX_SAMPLES: Final = runner.max_samples_from_env()

PAIRS: Final = [(op, variant) for op in select.select() for variant in select.variants_of(op)]


@pytest.mark.parametrize(
    ("op", "variant"), PAIRS, ids=[f"{select.full_name(op)}-{v.value}" for op, v in PAIRS]
)
def test_opinfo(op: OpInfo, variant: select.Variant) -> None:
    results = layers.run_variant(op, variant, TARGET, MAX_SAMPLES)
    verdicts = [(result, EXPECTED.verdict(result)) for result in results]
    errors = [
        f"{'XPASS (remove it from the list)' if v is xfails.Verdict.XPASS else 'FAIL'}: "
        f"{r.case.id}: {r.reason}"
        for r, v in verdicts if v.is_error
    ]
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)
    xfailed = [f"{r.case.dtype}: {r.reason}" for r, v in verdicts if v is xfails.Verdict.XFAIL]
    if xfailed:
        pytest.xfail(f"{len(xfailed)} listed failure(s), e.g. {xfailed[0]}")
    if all(v is xfails.Verdict.SKIP for _, v in verdicts):
        pytest.skip(f"every case skipped, e.g. {results[0].reason if results else 'no dtypes'}")


def test_torch_lists_no_expected_failures() -> None:
    """torch against itself must pass every case: its list is the runner's self-check."""
    assert xfails.XfailList.load("torch").entries == []


def test_conversion_keeps_values_and_layout() -> None:
    """A converted sample tensor has torch's values, dtype, size, strides and offset."""
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    for view in (base, base[1:, ::2], base.t(), base[2, 1:5], base.expand(2, 4, 6)):
        with TARGET.activate():
            converted = TARGET.convert(view)
        observed = TARGET.observe(converted)
        assert (observed.size, observed.stride) == (tuple(view.size()), tuple(view.stride()))
        assert observed.dtype == "float32"
        assert torch.equal(observed.values, view.contiguous())
        assert converted.storage_offset() == view.storage_offset()


def test_conversion_makes_leaves_that_require_grad() -> None:
    """A sample tensor that requires grad becomes a leaf requiring grad, once per tensor
    (a tensor passed twice is one leaf, so its gradient sums both uses), with its layout."""
    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    leaf = base.t().requires_grad_(True)
    view = base.requires_grad_(True)[1:]
    with TARGET.activate():
        first, again, other = TARGET.convert((leaf, leaf, view))
    assert first is again and first is not other
    for converted, original in ((first, leaf), (other, view)):
        assert converted.requires_grad and converted.is_leaf
        observed = TARGET.observe(converted.detach())
        assert (observed.size, observed.stride) == (tuple(original.size()), original.stride())
        assert torch.equal(observed.values, original.detach().contiguous())


def test_referee_passes_only_values_as_accurate_as_torchs() -> None:
    """Note [A single-precision BLAS or LAPACK result is refereed in double]: a float32
    value that misses torch's by more than the tolerance passes only where it is as close
    to the double-precision answer as torch's."""
    def observed(*values: float, dtype: torch.dtype = torch.float32) -> runner.ObservedTensor:
        return runner.ObservedTensor("float32", (2,), (1,), torch.tensor(values, dtype=dtype))

    truth = observed(60.810005, 1.0, dtype=torch.float64)
    theirs, closer, farther = observed(60.80986, 1.0), observed(60.81, 1.0), observed(60.8103, 1.0)
    with pytest.raises(runner.SampleFailure, match="values differ"):
        runner.compare(theirs, closer, (0.0, 0.0))
    runner.compare(theirs, closer, (0.0, 0.0), truth=truth)
    with pytest.raises(runner.SampleFailure, match="values differ"):
        runner.compare(theirs, farther, (0.0, 0.0), truth=truth)
    # Within records (torch.return_types), element by element.
    runner.compare((theirs, theirs), (closer, theirs), (0.0, 0.0), truth=(truth, truth))


def test_half_precision_cases_run_torch_without_onednn() -> None:
    """Note [Half-precision cases run torch without oneDNN]: inside a float16 case torch's
    float16 transposed convolution is ATen's (each column's partial sum rounded), whatever
    the CPU; oneDNN's flag is restored after it, and float32 cases leave it alone."""
    enabled = torch.backends.mkldnn.is_available() and torch._C._get_mkldnn_enabled()
    with machine.native_half_kernels(torch.float32):
        assert torch._C._get_mkldnn_enabled() == enabled
    with machine.native_half_kernels(torch.float16):
        assert not torch._C._get_mkldnn_enabled()
        x = torch.linspace(-3, 3, 2 * 4 * 5 * 5).reshape(2, 4, 5, 5).half()
        w = torch.linspace(-2, 2, 4 * 3 * 3 * 3).reshape(4, 3, 3, 3).half()
        expected = torch.nn.functional.conv_transpose2d(x, w)
    assert torch._C._get_mkldnn_enabled() == enabled
    if "float16" not in STORED_DTYPES:
        return  # array_api_strict: the flags above are what this backend can show
    with TARGET.activate():
        rx, rw = TARGET.convert((x, w))
        ours = TARGET.observe(refimpl.nn.functional.conv_transpose2d(rx, rw))
    assert torch.equal(ours.values, expected)
