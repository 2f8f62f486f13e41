"""The side-by-side comparison: every policy on the shared recorded runs.

Three replays, each with every policy (default: all installed), the shared fake
summarizer and the shared token counter (``ctxmgr.tokens.default_counter``):

* budget 32,000 and 16,000 on the whole shared set (24 SWE-bench coding runs +
  100 tau-bench conversations, 124 runs; the
  conversations stay under 12,000 tokens, so at these budgets only the coding
  runs are managed);
* budget 4,000 on the 100 tau-bench conversations (trigger 3,000; the system
  prompt alone is ~1,260 tokens), so that round summaries fire.

With ``--multi-agent FILE`` it also replays a recorded multi-agent run (one record per
agent run; ``tests/fixtures/multi_agent/deep_agent_scripted.jsonl`` is one) at
``--multi-agent-budget`` (default 8,000): the whole run, then each agent's runs beside
the peers. Prints a table per replay, then the fidelity table: per window, on the runs
that window manages (the 24 SWE runs at 32,000 and 16,000, the tau-bench
conversations at 4,000), cost against fact availability, reloadable facts,
recency, user retention, actions retained and cost with recovery,
and availability by source age.
Writes each report as JSON (SPEC §8 layout) into ``--out``, and with
``--markdown FILE`` writes the tables into that file (between
``<!-- bench_replay -->`` markers, so other sections survive). The recorded
runs are in ``benchmarks/data`` (see its README). Runs in about two minutes on
2 cores. Usage::

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

from ctxmgr.errors import CtxmgrError
from ctxmgr.replay import (
    FakeSummarizer,
    PolicyContext,
    ReplayReport,
    Trajectory,
    available_policies,
    count_model_calls,
    create_policy,
    load_trajectories,
    replay,
)
from ctxmgr.replay.fidelity import AGE_BUCKETS
from ctxmgr.replay.metrics import aggregate_row
from ctxmgr.replay.report import (
    format_table,
    print_table,
    replace_markdown_section,
    write_json,
)
from ctxmgr.replay.runner import OUTERMOST
from ctxmgr.tokens import TokenCounter, default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "benchmarks" / "data"
MULTI_AGENT_RUN = ROOT / "tests" / "fixtures" / "multi_agent" / "deep_agent_scripted.jsonl"
"""A recorded deep-agent run (benchmarks/record_multi_agent_run.py): ``--multi-agent``."""
MARK = "bench_replay"


def is_tau(t: Trajectory) -> bool:
    """A tau-bench conversation (replayed at its own, smaller budget)."""
    return t.id.startswith("tau") or "tau-bench" in t.source


def _run(
    label: str,
    trajectories: Sequence[Trajectory],
    budget: int,
    names: Sequence[str],
    counter: TokenCounter,
) -> tuple[ReplayReport, dict[str, Any]]:
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
    return report, data


def _title(label: str, trajectories: Sequence[Trajectory], budget: int) -> str:
    return (f"{label}: {len(trajectories)} runs, {count_model_calls(trajectories):,} model "
            f"calls, budget {budget:,} tokens")


def fidelity_rows(window: str, report: ReplayReport, ids: set[str]
                  ) -> list[tuple[str, str, dict[str, Any]]]:
    """``(window, policy, aggregate over the trajectories in ids)`` for every policy."""
    return [(window, name, aggregate_row([r for r in run.results if r.id in ids],
                                         report.budget))
            for name, run in report.runs.items()]


def format_fidelity(rows: Sequence[tuple[str, str, dict[str, Any]]]) -> str:
    """The fidelity tables: the seven measures, then availability by source age."""
    head = ("| window | policy | cost / none | fact availability | fact searchable "
            "| fact reloadable | recency | user retention | actions retained "
            "| cost with recovery / none | needed facts | recovery calls |")
    lines = [head, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for window, name, a in rows:
        lines.append(
            f"| {window} | {name} | {a['effective_cost_ratio']:.3f} | "
            f"{a['fact_availability']:.3f} | {a['fact_searchable']:.3f} "
            f"| {a['fact_reloadable']:.3f} | {a['recency']:.3f} "
            f"| {a['user_retention']:.3f} | {a['actions_retained']:.3f} "
            f"| {a['cost_with_recovery_ratio']:.3f} | {a['needed_facts']:,} | "
            f"{a['recovery_calls']:,} |")
    ages = " | ".join(f"{b} back" for b in AGE_BUCKETS)
    lines += ["", f"| window | policy | {ages} |",
              "|---|---|" + "--:|" * len(AGE_BUCKETS)]
    for window, name, a in rows:
        shares = a["fact_availability_by_age"]
        lines.append(f"| {window} | {name} | "
                     + " | ".join(f"{shares[b]:.3f}" for b in AGE_BUCKETS) + " |")
    first = rows[0][2]["needed_facts_by_age"] if rows else {}
    if first:
        lines += ["", "Needed facts by source age (the same for every policy of a window): "
                  + "; ".join(f"{window}: " + ", ".join(
                      f"{b} back {a['needed_facts_by_age'][b]:,}" for b in AGE_BUCKETS)
                      for window, name, a in rows if name == rows[0][1]) + "."]
    return "\n".join(lines)


def _per_agent(path: Path, budget: int, names: Sequence[str], counter: TokenCounter,
               out: Path) -> list[str]:
    """Replay a recorded multi-agent run: the whole run, then each agent's runs under
    every policy (:meth:`ReplayReport.by_agent`); the tables, printed and returned.

    Raises:
        CtxmgrError, OSError: the file cannot be read.
    """
    runs = load_trajectories([path])
    report, data = _run("multi-agent", runs, budget, names, counter)
    write_json(data, out / f"replay_multi_agent_{budget}.json")
    tables = [(data, _title(f"multi-agent run {path.name}", runs, budget))]
    for agent, part in report.by_agent(runs).items():
        mine = [t for t in runs if (t.agent or OUTERMOST) == agent]
        tables.append((part.to_json(), _title(f"agent {agent}", mine, budget)))
    for table, title in tables:
        print_table(table, title=title)
    return [format_table(table, title=title) for table, title in tables]


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
    parser.add_argument("--multi-agent", type=Path, metavar="FILE",
                        help="also replay a recorded multi-agent run (one record per agent "
                             f"run, e.g. {MULTI_AGENT_RUN.relative_to(ROOT)}), each agent "
                             "beside the peers")
    parser.add_argument("--multi-agent-budget", type=int, default=8_000,
                        help="budget for --multi-agent (default 8000)")
    args = parser.parse_args(argv)

    if not args.trajectories.exists():
        print(f"bench_replay: {args.trajectories} does not exist (the recorded runs are in "
              f"{DEFAULT_TRAJECTORIES})", file=sys.stderr)
        return 2
    try:
        trajectories = load_trajectories([args.trajectories])
    except (CtxmgrError, OSError) as exc:
        print(f"bench_replay: {exc}", file=sys.stderr)
        return 2
    if not trajectories:
        print(f"no trajectories in {args.trajectories}", file=sys.stderr)
        return 2
    tau = [t for t in trajectories if is_tau(t)]
    names = list(dict.fromkeys(args.policy or available_policies()))
    counter = default_counter()
    args.out.mkdir(parents=True, exist_ok=True)

    plan: list[tuple[str, list[Trajectory], int]] = [
        ("all runs", trajectories, b) for b in args.budgets]
    if args.tau_budget and tau:
        plan.append(("tau-bench", tau, args.tau_budget))
    sections = []
    fidelity: list[tuple[str, str, dict[str, Any]]] = []
    for label, runs, budget in plan:
        report, data = _run(label, runs, budget, names, counter)
        title = _title(label, runs, budget)
        print_table(data, title=title)
        slug = "tau" if label == "tau-bench" else "all"
        out = args.out / f"replay_{slug}_{budget}.json"
        write_json(data, out)
        print(f"wrote {out} ({data['seconds']} s)", file=sys.stderr)
        sections.append(format_table(data, title=title))
        managed = [t for t in runs if not is_tau(t)] if label == "all runs" else runs
        window = f"{budget // 1000}k {'SWE' if label == 'all runs' else label}"
        fidelity += fidelity_rows(f"{window} ({len(managed)} runs)", report,
                                  {t.id for t in managed})
    fidelity_table = format_fidelity(fidelity)
    print(fidelity_table)
    if args.multi_agent:
        try:
            sections += _per_agent(args.multi_agent, args.multi_agent_budget, names, counter,
                                   args.out)
        except (CtxmgrError, OSError) as exc:
            print(f"bench_replay: {exc}", file=sys.stderr)
            return 2

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
            "time per model call (summarizer time excluded). `facts kept`, `reloadable`, "
            "`searchable`, "
            "`recency`, `user kept` (user retention), `actions kept` (actions retained) and "
            "`cost+recovery / none` are the fidelity measures, explained below.",
            *sections,
            "### Fidelity: what the prompts kept of what the agent used next",
            "Per model call, the *needed facts* are the distinctive strings (paths, "
            "identifiers, numbers: tokens of six or more characters from `[A-Za-z0-9_./:-]` "
            "that are not plain words; the exact rule is in `ctxmgr/replay/fidelity.py`) of "
            "the recorded next step, its text and tool-call arguments, that occur in an "
            "earlier tool result and in no earlier system or user message. `fact "
            "availability`: share of needed facts present verbatim in the prompt; `fact "
            "searchable`: share of the missing ones that one `context_search` for the fact "
            "itself finds (answers are at most 1,000 tokens); `fact "
            "reloadable`: share of the missing ones that an offload id in the prompt gives "
            "back (only ctxmgr can search or reload; 1.000 when nothing is missing); "
            "`recency`: calls "
            "whose prompt holds the last three tool results verbatim, of the calls with a "
            "tool result before them; `user retention`: of the user messages before each "
            "call (the first one included, tool results carried in a user turn not), the "
            "share still in the prompt, either verbatim or by every sentence of its standing "
            "content (`ctxmgr.autocontext.standing.standing_content`: what is left once "
            "courtesies such as \"ok thanks\" are dropped; a message that is only courtesy "
            "counts as kept), whitespace aside; `actions retained`: of the tool calls before "
            "each call, the share whose tool name and key argument (the first argument "
            "that is a path, else the first that is not a plain word, else the first; its "
            "first line in at most 60 characters, a longer one by its start and the path "
            "it ends on, as a stand-in's record names it: "
            "`ctxmgr.autocontext.actions.key_argument`) the prompt's text, whitespace "
            "collapsed, still holds within one message (the exact rules are in "
            "`ctxmgr/replay/retention.py`; "
            "the JSON rows add `user_verbatim`, the share of user messages kept word for "
            "word); `cost with recovery`: the effective cost plus, for each "
            "call that misses a needed fact (`recovery calls`), one round trip: the prompt "
            "again at the cached price and, uncached, the cheapest way to get each missing "
            "fact back that the policy has (a search answer that holds it, the ranges a "
            "reload brings back, or the output of the tool that produced it, run again; "
            "every policy can do the last, so a policy that loses a fact pays for it). "
            "Each window "
            "is measured on the runs it manages: at 32k and 16k the 24 SWE runs (the "
            "tau-bench conversations stay under 12,000 tokens), so `cost / none` here is "
            "over those runs and differs from the all-runs tables above.",
            fidelity_table,
        ])
        replace_markdown_section(args.markdown, MARK, body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
