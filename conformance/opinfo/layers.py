"""Which code runs a variant: the forward variants (runner.py), the gradient layers
(gradients.py) or the meta layer (meta.py), and a whole selection op by op."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from torch.testing._internal.opinfo.core import OpInfo

from conformance.opinfo.convert import Target
from conformance.opinfo.gradients import run_gradient_layer
from conformance.opinfo.meta import run_meta_layer
from conformance.opinfo.runner import CaseResult, run_forward_variant
from conformance.opinfo.select import Variant, variants_of


def run_variant(
    op: OpInfo, variant: Variant, target: Target, max_samples: int | None
) -> list[CaseResult]:
    """Every case of (op, variant); `max_samples` bounds the forward variants, and the
    gradient and meta layers to at most their own CI bounds (gradients.CI_SAMPLES,
    meta.CI_SAMPLES)."""
    if variant.is_gradient:
        return run_gradient_layer(op, variant, target, max_samples)
    if variant is Variant.META:
        return run_meta_layer(op, target, max_samples)
    return run_forward_variant(op, variant, target, max_samples)


def selected_variants(op: OpInfo, layers: Collection[Variant] | None = None) -> list[Variant]:
    """The variants of `op` to run: all, or those among `layers`."""
    return [v for v in variants_of(op) if layers is None or v in layers]


def run_selection(
    ops: Iterable[OpInfo],
    target: Target,
    max_samples: int | None,
    layers: Collection[Variant] | None = None,
) -> Iterator[tuple[OpInfo, Variant, list[CaseResult]]]:
    """Every (op, variant) of `ops` (the variants among `layers`) with its case results, op
    by op."""
    for op in ops:
        for variant in selected_variants(op, layers):
            yield op, variant, run_variant(op, variant, target, max_samples)
