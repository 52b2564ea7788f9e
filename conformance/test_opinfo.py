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

from conformance.opinfo import layers, runner, select, xfails
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
