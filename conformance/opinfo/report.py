"""The summary of an OpInfo run: counts per family and variant, as a rich table or JSON."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from conformance.opinfo.runner import CaseResult
from conformance.opinfo.select import Variant
from conformance.opinfo.xfails import Verdict


@dataclass(frozen=True, slots=True)
class Judged:
    """A case result with its verdict and the family of its OpInfo."""

    result: CaseResult
    verdict: Verdict
    family: str


@dataclass(slots=True)
class Row:
    """Counts for one (family, variant); variant "all" for a family's total."""

    family: str
    variant: str
    verdicts: Counter[Verdict] = field(default_factory=Counter)
    ops: set[str] = field(default_factory=set)
    ops_passed: set[str] = field(default_factory=set)  # with at least one passing case
    ops_failing: set[str] = field(default_factory=set)  # with a failing or xfailed case
    samples: int = 0

    def add(self, judged: Judged) -> None:
        op = judged.result.case.op
        self.verdicts[judged.verdict] += 1
        self.ops.add(op)
        if judged.verdict is Verdict.PASS:
            self.ops_passed.add(op)
        elif judged.verdict is not Verdict.SKIP:
            self.ops_failing.add(op)
        self.samples += judged.result.samples

    @property
    def ops_passing(self) -> int:
        """OpInfos whose every case here passed or was skipped, with at least one passed."""
        return len(self.ops_passed - self.ops_failing)

    def as_json(self) -> dict[str, Any]:
        return {
            "family": self.family, "variant": self.variant, "opinfos": len(self.ops),
            "opinfos_passing": self.ops_passing, "samples": self.samples,
            **{v.value: self.verdicts[v] for v in Verdict},
        }


def summarize(judged: Sequence[Judged]) -> list[Row]:
    """One row per (family, variant) in Variant order, then a total row per family, then one
    per variant (layer) over the families, then all."""
    rows: dict[tuple[str, str], Row] = {}
    families = list(dict.fromkeys(j.family for j in judged))
    keys = [(f, v.value) for f in families for v in Variant] + [(f, "all") for f in families]
    layer_keys = [("all", v.value) for v in Variant]
    for key in [*keys, *layer_keys, ("all", "all")]:
        rows[key] = Row(*key)
    for j in judged:
        variant = j.result.case.variant.value
        for key in ((j.family, variant), (j.family, "all"), ("all", variant), ("all", "all")):
            rows[key].add(j)
    ordered = [rows[k] for k in keys if rows[k].ops and k[1] != "all"]
    totals = [rows[(f, "all")] for f in families] if len(families) > 1 else []
    layers = [rows[k] for k in layer_keys if rows[k].ops] if len(families) > 1 else []
    return [*ordered, *totals, *layers, rows[("all", "all")]]


# The layers whose count a run reports under its table: the gradient layers (issue 12 asks
# for at least 90% of OpInfos on the NumPy backend) and the meta layer (issue 13).
COUNTED_LAYERS: Final = (Variant.GRAD, Variant.GRADGRAD, Variant.META)


def layer_lines(judged: Sequence[Judged]) -> list[str]:
    """Per layer of COUNTED_LAYERS that ran: OpInfos and samples checked, and the share of
    OpInfos without an expected or unexpected failure."""
    lines = []
    for layer in COUNTED_LAYERS:
        rows = summarize([j for j in judged if j.result.case.variant is layer])
        if not rows or not rows[-1].ops:
            continue
        total = rows[-1]
        ops = len(total.ops)
        clean = len(total.ops - total.ops_failing)
        passed = sum(
            j.result.samples for j in judged
            if j.result.case.variant is layer and j.verdict is Verdict.PASS
        )
        lines.append(
            f"{layer.value}: {ops} OpInfos, {clean} ({100 * clean / ops:.1f}%) with no "
            f"expected or unexpected failure; {total.samples} samples checked, {passed} in "
            "passing cases"
        )
    return lines


def table(rows: Sequence[Row], title: str) -> Table:
    out = Table(title=title, show_lines=False)
    for name, justify in (
        ("family", "left"), ("layer", "left"), ("OpInfos", "right"), ("all pass", "right"),
        ("pass", "right"), ("xfail", "right"), ("fail", "right"), ("xpass", "right"),
        ("skip", "right"), ("samples", "right"),
    ):
        out.add_column(name, justify=justify)  # type: ignore[arg-type]  # rich's Literal
    for row in rows:
        v = row.verdicts
        style = "bold" if row.variant == "all" else None
        out.add_row(
            row.family, row.variant, str(len(row.ops)), str(row.ops_passing),
            str(v[Verdict.PASS]), str(v[Verdict.XFAIL]),
            _red(v[Verdict.FAIL]), _red(v[Verdict.XPASS]), str(v[Verdict.SKIP]),
            str(row.samples), style=style,
        )
    return out


def _red(n: int) -> str:
    return f"[red]{n}[/red]" if n else "0"


def print_report(
    console: Console, judged: Sequence[Judged], title: str, show_errors: int = 30
) -> None:
    """The table, then the first `show_errors` unexpected failures and XPASSes, with the
    dtypes of one (op, variant, verdict, reason) on one line."""
    console.print(table(summarize(judged), title))
    groups: dict[tuple[str, str, Verdict, str], list[str]] = defaultdict(list)
    for j in judged:
        if j.verdict.is_error:
            case = j.result.case
            groups[(case.op, case.variant.value, j.verdict, j.result.reason)].append(case.dtype)
    for (op, variant, verdict, reason), dtypes in list(groups.items())[:show_errors]:
        what = "XPASS (remove it from the list)" if verdict is Verdict.XPASS else "FAIL"
        console.print(f"{what}: {op} {variant} [{', '.join(dtypes)}]: {reason}", markup=False,
                      highlight=False)
    if len(groups) > show_errors:
        console.print(f"... and {len(groups) - show_errors} more (--show N, or --json)")


def as_json(judged: Sequence[Judged], meta: dict[str, Any]) -> dict[str, Any]:
    by_verdict: defaultdict[str, int] = defaultdict(int)
    for j in judged:
        by_verdict[j.verdict.value] += 1
    return {
        **meta,
        "totals": dict(by_verdict),
        "summary": [row.as_json() for row in summarize(judged)],
        "cases": [
            {
                "op": j.result.case.op, "dtype": j.result.case.dtype,
                "variant": j.result.case.variant.value, "family": j.family,
                "outcome": j.result.outcome.value, "verdict": j.verdict.value,
                "reason": j.result.reason, "samples": j.result.samples,
                "seconds": round(j.result.seconds, 4),
            }
            for j in judged
        ],
    }
