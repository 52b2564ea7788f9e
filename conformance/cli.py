"""`refimpl conformance`: run PyTorch's OpInfo database against a target and report.

    refimpl conformance --target numpy                 # the CI selection, 4 samples a case
    refimpl conformance --target array_api_strict --ops add,exp --full
    refimpl conformance --target torch                 # the self-check: must be all green
    refimpl conformance --target numpy --write-xfails  # rewrite conformance/xfails/numpy.txt
    refimpl conformance --target numpy --layers grad,gradgrad   # the gradient layers only
    refimpl conformance --target numpy --layers meta   # shapes, dtypes, strides on meta

The exit status is 1 when a case fails unexpectedly or an expected failure passes (XPASS).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from conformance.opinfo import gradients, layers, meta, report, runner, select, xfails
from conformance.opinfo.convert import TORCH_TARGET, make_target, target_names


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def _layers(text: str | None) -> set[select.Variant] | None:
    """The variants named in `text`; unknown names raise ValueError."""
    names = _names(text)
    if names is None:
        return None
    known = {v.value: v for v in select.Variant}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown layer {', '.join(unknown)}; choose from {', '.join(known)}")
    return {known[n] for n in names}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="refimpl", description="refimpl's command-line tools")
    commands = top.add_subparsers(dest="command", required=True)
    conf = commands.add_parser(
        "conformance", help="run torch's OpInfo database against a target",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    conf.add_argument(
        "--target", default="numpy",
        help=f"torch (self-check) or a refimpl backend: {', '.join(target_names())}",
    )
    conf.add_argument("--ops", help="comma-separated OpInfo names (add,exp,div.floor_rounding)")
    conf.add_argument(
        "--family", help=f"comma-separated families (default: {','.join(select.CI_FAMILIES)}); "
        f"all: {','.join(select.FAMILIES)}",
    )
    conf.add_argument(
        "--layers", help="comma-separated layers (variants) to run; default: all of "
        f"{','.join(v.value for v in select.Variant)}",
    )
    conf.add_argument("--full", action="store_true",
                      help="every sample (also REFIMPL_OPINFO_FULL=1); default: "
                      f"the first {runner.CI_MAX_SAMPLES} of each case, and "
                      f"{gradients.CI_SAMPLES[select.Variant.GRAD]} / "
                      f"{gradients.CI_SAMPLES[select.Variant.GRADGRAD]} differentiable samples "
                      f"a case for grad / gradgrad, {meta.CI_SAMPLES} for meta")
    conf.add_argument("--max-samples", type=int, help="samples per case (overrides --full)")
    conf.add_argument("--json", action="store_true", help="print the report as JSON")
    conf.add_argument("--write-xfails", action="store_true",
                      help="rewrite conformance/xfails/<target>.txt with the current failures")
    conf.add_argument("--show", type=int, default=30, help="unexpected failures to list")
    # `refimpl trace` is dispatched before this parser (conformance/entry.py); listed for --help.
    commands.add_parser(
        "trace", help="show every layer a call passes through (refimpl trace --help)"
    )
    return top


def run_conformance(args: argparse.Namespace) -> int:
    """Run the selection on the target, report, and return the exit status."""
    try:
        target = make_target(args.target)
        ops = select.select(_names(args.ops), _names(args.family))
        chosen_layers = _layers(args.layers)
    except ValueError as error:
        print(f"refimpl conformance: {error}", file=sys.stderr)
        return 2
    max_samples = (
        args.max_samples if args.max_samples is not None
        else runner.max_samples_from_env(args.full)
    )
    expected = xfails.XfailList.load(target.name)
    if target.name == TORCH_TARGET and expected.entries:
        print(f"{expected.path}: the torch target must list no expected failures",
              file=sys.stderr)
        return 2
    console = Console(stderr=args.json)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    judged: list[report.Judged] = []
    results: list[runner.CaseResult] = []
    start = time.perf_counter()
    pairs = sum(len(layers.selected_variants(op, chosen_layers)) for op in ops)
    # torch's sample generators and casts warn (ComplexHalf is experimental...): not ours.
    warnings.simplefilter("ignore", UserWarning)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, disable=args.json, transient=True,
    ) as progress:
        task = progress.add_task(f"OpInfos on {target.name}", total=pairs)
        for op, variant, case_results in layers.run_selection(
            ops, target, max_samples, chosen_layers
        ):
            family = select.family_of(op)
            for result in case_results:
                judged.append(report.Judged(result, expected.verdict(result), family))
            results.extend(case_results)
            progress.update(
                task, advance=1, description=f"{select.full_name(op)} {variant.value}"
            )
    seconds = time.perf_counter() - start
    samples_text = "all samples" if max_samples is None else f"≤{max_samples} samples a case"
    title = (
        f"OpInfo conformance: {target.name}, {len(ops)} OpInfos, {len(judged)} cases, "
        f"{samples_text}, {seconds:.1f} s"
    )
    if args.json:
        run_info = {"target": target.name, "opinfos": len(ops), "max_samples": max_samples,
                    "seconds": round(seconds, 2)}
        print(json.dumps(report.as_json(judged, run_info), indent=1))
    else:
        report.print_report(console, judged, title, args.show)
        for line in report.layer_lines(judged):
            console.print(line, markup=False, highlight=False)
    if args.write_xfails:
        if target.name == TORCH_TARGET:
            print("the torch target keeps an empty list; fix the runner instead",
                  file=sys.stderr)
            return 2
        ran = {
            (select.full_name(op), v.value)
            for op in ops for v in layers.selected_variants(op, chosen_layers)
        }
        path = xfails.write(target.name, results, ran, whole_ops=chosen_layers is None)
        print(f"wrote {path}", file=sys.stderr)
        return 0
    return 1 if any(j.verdict.is_error for j in judged) else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "conformance":
        return run_conformance(args)
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
