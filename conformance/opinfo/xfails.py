"""Expected failures of a target: reading, matching and rewriting `conformance/xfails/<target>.txt`.

One entry per line, `<opinfo name> <dtype or *> <variant or *>  # reason`, the variant being
a forward variant or a gradient layer (`exp complex128 gradgrad  # derivative not
implemented: aten::_conj`); blank lines and lines starting with `#` are comments. A listed
case that fails is XFAIL; a listed case that passes is XPASS, an error ("remove it from the
list"), so the lists only shrink; an unlisted failure is FAIL. Torch: the expectedFailure
lists of torch's own test suites, one per device.
"""

from __future__ import annotations

import enum
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.opinfo.runner import CaseResult, Outcome

XFAIL_DIR: Final = Path(__file__).resolve().parent.parent / "xfails"
WILDCARD: Final = "*"


class Verdict(enum.Enum):
    """A case's result judged against the target's expected-failure list."""

    PASS = "pass"
    FAIL = "fail"  # unexpected: fails the run
    XFAIL = "xfail"
    XPASS = "xpass"  # listed but passing: fails the run
    SKIP = "skip"

    @property
    def is_error(self) -> bool:
        return self in (Verdict.FAIL, Verdict.XPASS)


@dataclass(frozen=True, slots=True)
class Entry:
    op: str
    dtype: str
    variant: str
    reason: str
    line: int

    def matches(self, op: str, dtype: str, variant: str) -> bool:
        return (
            self.op == op
            and self.dtype in (WILDCARD, dtype)
            and self.variant in (WILDCARD, variant)
        )

    def render(self) -> str:
        line = f"{self.op} {self.dtype} {self.variant}"
        return f"{line}  # {self.reason}" if self.reason else line


def xfail_path(target: str) -> Path:
    return XFAIL_DIR / f"{target}.txt"


def parse(text: str, source: str = "<xfails>") -> list[Entry]:
    """The entries of an xfail file; malformed lines raise ValueError naming the line."""
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body, _, reason = raw.partition("#")
        fields = body.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise ValueError(
                f"{source}:{number}: expected '<opinfo> <dtype or *> <variant or *>  # reason', "
                f"got {raw!r}"
            )
        entries.append(Entry(fields[0], fields[1], fields[2], reason.strip(), number))
    return entries


class XfailList:
    """The expected failures of one target, indexed by OpInfo name."""

    def __init__(self, entries: Iterable[Entry], path: Path | None = None) -> None:
        self.entries = list(entries)
        self.path = path
        self._by_op: dict[str, list[Entry]] = defaultdict(list)
        for entry in self.entries:
            self._by_op[entry.op].append(entry)

    @classmethod
    def load(cls, target: str) -> XfailList:
        path = xfail_path(target)
        if not path.exists():
            return cls([], path)
        return cls(parse(path.read_text(), str(path)), path)

    def entry_for(self, op: str, dtype: str, variant: str) -> Entry | None:
        for entry in self._by_op.get(op, ()):
            if entry.matches(op, dtype, variant):
                return entry
        return None

    def verdict(self, result: CaseResult) -> Verdict:
        case = result.case
        listed = self.entry_for(case.op, case.dtype, case.variant.value) is not None
        if result.outcome is Outcome.SKIPPED:
            return Verdict.SKIP
        if result.outcome is Outcome.PASSED:
            return Verdict.XPASS if listed else Verdict.PASS
        return Verdict.XFAIL if listed else Verdict.FAIL


# --- writing ------------------------------------------------------------------------------------

HEADER: Final = """\
# Expected OpInfo failures of the {target!r} target: `<opinfo> <dtype or *> <variant or *>  # reason`.
# Regenerate with `refimpl conformance --target {target} --write-xfails` as ops land; an entry
# whose case passes fails the run (XPASS), so this list only shrinks.
"""


def entries_for(results: Sequence[CaseResult], whole_ops: bool = True) -> list[Entry]:
    """Entries covering exactly the failed cases, as few as the wildcards allow.

    An (op, variant) whose every non-skipped dtype failed becomes one `op * variant` line
    (the most common reason); an op whose every variant is such a line becomes `op * *`
    (only when `whole_ops`: the results hold every variant of their ops).
    """
    by_pair: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for result in results:
        by_pair[(result.case.op, result.case.variant.value)].append(result)
    per_op: dict[str, list[Entry]] = defaultdict(list)
    all_failed: dict[str, bool] = defaultdict(lambda: True)
    for (op, variant), group in by_pair.items():
        ran = [r for r in group if r.outcome is not Outcome.SKIPPED]
        failed = [r for r in ran if r.outcome is Outcome.FAILED]
        if ran and len(failed) == len(ran):
            reason = Counter(_reason(r) for r in failed).most_common(1)[0][0]
            per_op[op].append(Entry(op, WILDCARD, variant, reason, 0))
        else:
            all_failed[op] = all_failed[op] and not ran
            per_op[op].extend(Entry(op, r.case.dtype, variant, _reason(r), 0) for r in failed)
    entries = []
    for op, op_entries in per_op.items():
        if (
            whole_ops and all_failed[op] and op_entries
            and all(e.dtype == WILDCARD for e in op_entries)
        ):
            reason = Counter(e.reason for e in op_entries).most_common(1)[0][0]
            entries.append(Entry(op, WILDCARD, WILDCARD, reason, 0))
        else:
            entries.extend(op_entries)
    return entries


def _reason(result: CaseResult) -> str:
    text = result.reason.strip().splitlines()
    return text[0] if text else result.outcome.value


def write(
    target: str,
    results: Sequence[CaseResult],
    ran: Iterable[tuple[str, str]],
    whole_ops: bool = True,
) -> Path:
    """Rewrite the target's file: the failures of `results`, plus the existing entries of
    the (OpInfo, variant) pairs this run did not touch (so `--ops add --write-xfails` keeps
    the rest). `ran` holds (OpInfo, variant) pairs; `whole_ops` says every variant of their
    OpInfos ran (no `--layers`): else an existing `op * *` entry stays and covers the op."""
    path = xfail_path(target)
    pairs = set(ran)
    ran_ops = {op for op, _ in pairs}

    def untouched(e: Entry) -> bool:
        if e.op not in ran_ops:
            return True
        return not whole_ops if e.variant == WILDCARD else (e.op, e.variant) not in pairs

    kept = [e for e in XfailList.load(target).entries if untouched(e)]
    covering = XfailList(kept)
    new = [
        e
        for e in entries_for([r for r in results if r.case.op in ran_ops], whole_ops)
        if covering.entry_for(e.op, e.dtype, e.variant) is None
    ]
    order = {name: i for i, name in enumerate(dict.fromkeys([e.op for e in kept + new]))}
    lines = sorted(kept + new, key=lambda e: (order[e.op], e.variant, e.dtype))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(target=target) + "".join(e.render() + "\n" for e in lines))
    return path
