"""The side-by-side comparison of issue 5: every policy on the shared recorded runs.

Three replays, each with every policy (default: all installed), the shared fake
summarizer and the shared token counter (``ctxmgr.tokens.default_counter``):

* budget 32,000 and 16,000 on the whole shared set (24 SWE-bench coding runs +
  100 tau-bench conversations, 124 runs, as in the issue's targets; the
  conversations stay under 12,000 tokens, so at these budgets only the coding
  runs are managed);
* budget 4,000 on the 100 tau-bench conversations (trigger 3,000; the system
  prompt alone is ~1,260 tokens), so that round summaries fire.

Prints a table per replay, writes each report as JSON (SPEC §8 layout) into
``--out``, and with ``--markdown FILE`` writes the tables into that file
(between ``<!-- bench_replay -->`` markers, so other sections survive).
Runs in about three minutes on 2 cores. Usage::

    python benchmarks/bench_replay.py [--trajectories DIR] [--policy NAME ...]
        [--out DIR] [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxmgr.replay import (
    FakeSummarizer,
    PolicyContext,
    Trajectory,
    available_policies,
    count_model_calls,
    create_policy,
    load_trajectories,
    replay,
)
from ctxmgr.replay.report import (
    format_table,
    print_table,
    replace_markdown_section,
    write_json,
)
from ctxmgr.tokens import TokenCounter, default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT.parent / "shared" / "trajectories"
MARK = "bench_replay"


def _is_tau(t: Trajectory) -> bool:
    return t.id.startswith("tau") or "tau-bench" in t.source


def _run(
    label: str,
    trajectories: Sequence[Trajectory],
    budget: int,
    names: Sequence[str],
    counter: TokenCounter,
) -> dict[str, Any]:
    summarizer = FakeSummarizer(counter)
    context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
    policies = [create_policy(n, context) for n in names]
    total = count_model_calls(trajectories) * len(policies)
    start = time.perf_counter()
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:
        report = replay(trajectories, policies, budget=budget, counter=counter,
                        summarizer=summarizer)
    else:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(label, total=total)
            report = replay(
                trajectories, policies, budget=budget, counter=counter, summarizer=summarizer,
                progress=lambda p, n: bar.update(task, advance=n, description=f"{label}: {p}"))
    data = report.to_json()
    data["label"] = label
    data["seconds"] = round(time.perf_counter() - start, 1)
    return data


def _title(label: str, trajectories: Sequence[Trajectory], budget: int) -> str:
    return (f"{label}: {len(trajectories)} runs, {count_model_calls(trajectories):,} model "
            f"calls, budget {budget:,} tokens")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trajectories", type=Path, default=DEFAULT_TRAJECTORIES,
                        help=f"shared trajectories (default {DEFAULT_TRAJECTORIES})")
    parser.add_argument("--policy", action="extend", nargs="+", metavar="NAME",
                        help="policies to compare (default: every one installed)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[32_000, 16_000],
                        help="budgets for the whole set (default 32000 16000)")
    parser.add_argument("--tau-budget", type=int, default=4_000,
                        help="budget for the tau-bench conversations (default 4000; 0 skips)")
    parser.add_argument("--out", type=Path, default=Path("replay-results"),
                        help="folder for the JSON reports (default ./replay-results)")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE (e.g. benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)

    trajectories = load_trajectories([args.trajectories])
    if not trajectories:
        print(f"no trajectories in {args.trajectories}", file=sys.stderr)
        return 2
    tau = [t for t in trajectories if _is_tau(t)]
    names = list(dict.fromkeys(args.policy or available_policies()))
    counter = default_counter()
    args.out.mkdir(parents=True, exist_ok=True)

    plan: list[tuple[str, list[Trajectory], int]] = [
        ("all runs", trajectories, b) for b in args.budgets]
    if args.tau_budget and tau:
        plan.append(("tau-bench", tau, args.tau_budget))
    sections = []
    for label, runs, budget in plan:
        data = _run(label, runs, budget, names, counter)
        title = _title(label, runs, budget)
        print_table(data, title=title)
        slug = "tau" if label == "tau-bench" else "all"
        out = args.out / f"replay_{slug}_{budget}.json"
        write_json(data, out)
        print(f"wrote {out} ({data['seconds']} s)", file=sys.stderr)
        sections.append(format_table(data, title=title))

    if args.markdown:
        command = "python benchmarks/bench_replay.py " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]))
        body = "\n\n".join([
            "## Replay: every policy on the shared recorded runs",
            f"Produced by `{command.strip()}` (Python {platform.python_version()}, "
            f"{platform.machine()}, token counter `{counter!r}`, the shared fake summarizer "
            "answering a fixed 1,203-character text). `cost / none` is the effective cost "
            "(0.1 x cached + uncached prompt tokens + summarizer input and output) relative "
            "to no management; `task lost` counts model calls whose prompt no longer holds "
            "the first user message verbatim; `ms/call` is the median of the policy's own "
            "time per model call (summarizer time excluded).",
            *sections,
        ])
        replace_markdown_section(args.markdown, MARK, body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
