"""The prompt cache: how often each policy compresses and breaks the cached prefix, and
where its cost goes, on the shared runs and on 300-call coding-agent sessions.

Windows (each replayed under ``none``, ctxmgr and every installed peer, with the shared
fake summarizer and token counter, as ``bench_replay.py`` does):

* ``32k SWE`` and ``16k SWE``: the 24 recorded SWE-bench coding runs;
* ``4k tau``: the 100 tau-bench support conversations;
* ``8k 300-call``, ``16k 300-call``, ``32k 300-call``: coding-agent sessions of exactly 300
  model calls each (:func:`sessions`).

**The 300-call sessions** are the recorded SWE runs replayed back to back, in file
order, as one agent thread that is handed one task after another (as a developer keeps
one coding-agent session open across several issues): the shared system prompt once,
then each run's task, its recorded steps (real ``ls``/``grep``/``sed``/pytest output),
and a one-line final answer (the recorded runs end on the tool result that submits the
diff; the answer is what the agent would say next, so the next task starts a new round).
A session stops after its 300th model call; the next one starts with the next run.
The 24 runs hold 1,988 model calls, so they make 6 sessions (the runs with no model call
are skipped). Replaying recorded runs rather than generating sessions keeps what decides
the cost real: tool outputs as long and as repetitive as an agent's are (a mean of 244
tokens, median 131, a tenth over 580, the longest 5,200), tasks of 1,100-2,700 tokens,
and what the agent copied next from earlier output (the fidelity measures). Results are
smaller than those of an agent that reads whole files (a newcomer's 8k ``create_agent``
run had results of about 2,400 tokens), so a window here fills more slowly.

Per window the table gives, per policy: compressions per 100 calls (a compression is one
step a policy reports: one of ctxmgr's strategies applied, a peer's summary or clear),
the share of calls whose prompt changed the previous prompt's prefix, the cache hit
ratio (and no management's), cost against no management at SPEC §8's rates (cached
reads 0.1, no surcharge for writes) and with a surcharge on every uncached prompt
token, which the provider writes to its cache (``--cache-write``, default 1.25:
Anthropic's 5-minute cache), cost with recovery at both, the cost split (uncached
prompt tokens, cached reads, summarizer tokens, in percent of the cost at the plain
rates), the cost had the prompts hit the cache as often as no management's do, fact
availability, recency, calls over budget, pairing violations and calls that lost the
task. Then, for ctxmgr, what each strategy did: its steps per 100 calls, the tokens it
freed and the cached tokens it cut off (each step's ``cache_invalidated_tokens``, an
upper bound), and the calls whose prefix changed with no compression.
``--markdown FILE`` writes the tables between ``<!-- bench_cache -->`` markers.

    python benchmarks/bench_cache.py [--trajectories DIR] [--window NAME ...]
        [--policy NAME ...] [--sessions N] [--cache-write RATE] [--json OUT]
        [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_replay import is_tau

from ctxmgr.autocontext import CompressionEvent
from ctxmgr.convert import from_openai
from ctxmgr.errors import CtxmgrError
from ctxmgr.replay import (
    DEFAULT_PRICING,
    FakeSummarizer,
    Policy,
    PolicyContext,
    Pricing,
    ReplayReport,
    Trajectory,
    available_policies,
    count_model_calls,
    create_policy,
    load_trajectories,
    replay,
)
from ctxmgr.replay.ctxmgr_policy import CtxmgrPolicy
from ctxmgr.replay.metrics import NOT_A_COMPRESSION
from ctxmgr.replay.report import markdown_table, replace_markdown_section
from ctxmgr.tokens import TokenCounter, default_counter

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAJECTORIES = ROOT / "benchmarks" / "data"
MARK = "bench_cache"

SESSION_CALLS = 300
"""Model calls per generated session."""

FINAL_ANSWER = "Done: the fix is submitted (the diff above). Ready for the next task."
"""What the agent says after a recorded run's last tool result, before the next task."""

WINDOWS: dict[str, tuple[int, str]] = {
    "32k SWE": (32_000, "swe"),
    "16k SWE": (16_000, "swe"),
    "4k tau": (4_000, "tau"),
    "8k 300-call": (8_000, "sessions"),
    "16k 300-call": (16_000, "sessions"),
    "32k 300-call": (32_000, "sessions"),
}
"""Window name: (budget in tokens, the runs it replays)."""

TARGETS: dict[str, dict[str, float]] = {
    "16k SWE": {"cost": 0.50, "cost_with_recovery": 0.53, "facts": 0.94},
    "32k SWE": {"cost": 0.62, "cost_with_recovery": 0.64, "facts": 0.98},
    "4k tau": {"cost": 1.10, "facts": 0.95, "user_retention": 0.98},
    "8k 300-call": {"compressions_per_100_calls": 20.0},
}
"""The prompt-cache targets per window (every window also: 0 calls over budget, 0 pairing
violations, no lost task, recency at least 0.95)."""


def sessions(runs: Sequence[Trajectory], calls: int = SESSION_CALLS) -> list[Trajectory]:
    """The recorded coding runs back to back as sessions of exactly ``calls`` model calls.

    Each session has the first run's system prompt once, then for each run its messages
    after the system prompt and :data:`FINAL_ANSWER`; it ends after its ``calls``-th
    assistant message, and the next session starts with the next run (the rest of the
    run that filled a session is not replayed). Runs with no model call are skipped.
    A last session shorter than ``calls`` is dropped.
    """
    out: list[Trajectory] = []
    raw: list[dict[str, Any]] = []
    names: list[str] = []
    made = 0
    for run in runs:
        body = [m for m in run.raw if m.get("role") != "system"]
        if not any(m.get("role") == "assistant" for m in body):
            continue
        if not raw:
            raw = [m for m in run.raw if m.get("role") == "system"][:1]
        names.append(run.id)
        for m in [*body, {"role": "assistant", "content": FINAL_ANSWER}]:
            raw.append(m)
            made += m.get("role") == "assistant"
            if made == calls:
                break
        if made == calls:
            out.append(Trajectory(id=f"session-{len(out) + 1}", source=" + ".join(names),
                                  messages=tuple(from_openai(raw)), raw=tuple(raw)))
            raw, names, made = [], [], 0
    return out


@dataclass(slots=True)
class StrategyTally:
    """What one ctxmgr strategy did over a window."""

    steps: int = 0
    freed: int = 0
    """Prompt tokens its steps removed (before minus after)."""
    invalidated: int = 0
    """Cached prompt tokens its steps cut off (``cache_invalidated_tokens``)."""
    summarizer: int = 0


@dataclass(slots=True)
class Observed:
    """ctxmgr's compression events, by strategy, over one window."""

    by_strategy: dict[str, StrategyTally] = field(
        default_factory=lambda: defaultdict(StrategyTally))

    def add(self, event: CompressionEvent) -> None:
        if event.status != "applied":
            return
        t = self.by_strategy[event.name]
        t.steps += 1
        t.freed += event.tokens_before - event.tokens_after
        t.invalidated += event.cache_invalidated_tokens
        t.summarizer += event.summarizer_input_tokens + event.summarizer_output_tokens


class ObservedCtxmgr(CtxmgrPolicy):
    """The ``ctxmgr`` policy, its events tallied by strategy (its prompts unchanged)."""

    def __init__(self, context: PolicyContext, observed: Observed) -> None:
        self.observed = observed
        super().__init__(context)

    def reset(self) -> None:
        super().reset()
        self.memory.on_event = self.observed.add


def replay_window(runs: Sequence[Trajectory], budget: int, names: Sequence[str],
                  counter: TokenCounter, label: str) -> tuple[ReplayReport, Observed]:
    """Replay ``runs`` at ``budget`` under every named policy, ctxmgr observed."""
    summarizer = FakeSummarizer(counter)
    context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
    observed = Observed()
    policies: list[Policy] = [ObservedCtxmgr(context, observed) if n == "ctxmgr"
                              else create_policy(n, context) for n in names]
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:
        return replay(runs, policies, budget=budget, counter=counter,
                      summarizer=summarizer), observed
    total = count_model_calls(runs) * len(policies)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        report = replay(runs, policies, budget=budget, counter=counter, summarizer=summarizer,
                        progress=lambda p, n: bar.update(task, advance=n,
                                                         description=f"{label}: {p}"))
    return report, observed


def window_rows(report: ReplayReport, surcharge: Pricing) -> list[dict[str, Any]]:
    """Per policy: the aggregate at the plain rates, with the surcharge's costs added."""
    rows = []
    for name in report.runs:
        plain, dear = report.aggregate(name), report.aggregate(name, surcharge)
        rows.append({"policy": name, **plain,
                     "surcharge_cost_ratio": dear["effective_cost_ratio"],
                     "surcharge_cost_with_recovery_ratio": dear["cost_with_recovery_ratio"],
                     "surcharge_cost_at_baseline_hit": dear[
                         "effective_cost_ratio_at_baseline_hit"]})
    return rows


def format_rows(rows: Sequence[dict[str, Any]], surcharge: Pricing) -> str:
    """The window's table, one line per policy."""
    w = f"writes {surcharge.cache_write:g}"
    header = ["policy", "calls", "compr. / 100 calls", "prefix changed", "cache hit (none's)",
              "cost / none", f"cost / none, {w}", "cost+recovery / none",
              f"cost+recovery, {w}", "uncached/cached/summ. % of cost",
              "cost at none's hit", "facts", "recency", "user kept", "over budget",
              "pairing", "task lost"]
    lines = []
    for r in rows:
        split = "/".join(f"{r[k] * 100:.0f}" for k in (
            "cost_share_uncached", "cost_share_cached", "cost_share_summarizer"))
        lines.append([
            r["policy"], f"{r['model_calls']:,}", f"{r['compressions_per_100_calls']:.1f}",
            f"{r['prefix_changed_share']:.3f}",
            f"{r['cache_hit_ratio']:.3f} ({r['baseline_cache_hit_ratio']:.3f})",
            f"{r['effective_cost_ratio']:.3f}", f"{r['surcharge_cost_ratio']:.3f}",
            f"{r['cost_with_recovery_ratio']:.3f}",
            f"{r['surcharge_cost_with_recovery_ratio']:.3f}", split,
            f"{r['effective_cost_ratio_at_baseline_hit']:.3f}",
            f"{r['fact_availability']:.3f}", f"{r['recency']:.3f}",
            f"{r['user_retention']:.3f}", f"{r['over_budget_calls']:,}",
            f"{r['pairing_violations']:,}", f"{r['task_lost']:,}"])
    return markdown_table(header, lines)


def strategy_rows(report: ReplayReport, observed: Observed) -> tuple[str, str]:
    """ctxmgr's steps by strategy (a table), and a line on the prefix changes no
    compression explains."""
    calls = [c for r in report.runs["ctxmgr"].results for c in r.calls]
    n = len(calls) or 1
    total = sum(t.invalidated for t in observed.by_strategy.values()) or 1
    lines = []
    for name, t in sorted(observed.by_strategy.items(), key=lambda kv: -kv[1].invalidated):
        lines.append([name, f"{t.steps:,}", f"{100 * t.steps / n:.1f}", f"{t.freed:,}",
                      f"{t.invalidated:,}", f"{t.invalidated / total * 100:.0f} %",
                      f"{t.freed / t.invalidated:.2f}" if t.invalidated else "-",
                      f"{t.summarizer:,}"])
    table = markdown_table(["strategy", "steps", "per 100 calls", "tokens freed",
                            "cached tokens cut off", "share cut off",
                            "freed per token cut off", "summarizer tokens"], lines)
    steps = [sum(e not in NOT_A_COMPRESSION for e in c.events) for c in calls]
    passes = sum(k > 0 for k in steps)
    broke = sum(c.prefix_changed for c, k in zip(calls, steps, strict=True) if k)
    silent = sum(c.prefix_changed for c, k in zip(calls, steps, strict=True) if not k)
    note = (f"ctxmgr compressed on {passes:,} of {len(calls):,} calls "
            f"({100 * passes / n:.1f} per 100; {sum(steps):,} steps, "
            f"{sum(steps) / passes if passes else 0:.1f} per compressing call); {broke:,} of "
            f"those calls changed the prefix, and {silent:,} calls changed it with no "
            "compression.")
    return table, note


def _against_targets(window: str, rows: Sequence[dict[str, Any]]) -> str:
    """One line: ctxmgr's figures beside the prompt-cache targets for ``window``."""
    r = next((r for r in rows if r["policy"] == "ctxmgr"), None)
    if r is None:
        return ""
    got = {"cost": r["effective_cost_ratio"], "cost_with_recovery": r["cost_with_recovery_ratio"],
           "facts": r["fact_availability"], "user_retention": r["user_retention"],
           "compressions_per_100_calls": r["compressions_per_100_calls"]}
    parts = []
    for key, target in TARGETS.get(window, {}).items():
        ok = got[key] >= target if key in ("facts", "user_retention") else got[key] <= target
        parts.append(f"{key.replace('_', ' ')} {got[key]:.3f} (target "
                     f"{'≥' if key in ('facts', 'user_retention') else '≤'} {target:g}: "
                     f"{'met' if ok else 'not met'})")
    every = (r["over_budget_calls"] == 0 and r["pairing_violations"] == 0
             and r["task_lost"] == 0 and r["recency"] >= 0.95)
    parts.append(f"over budget {r['over_budget_calls']}, pairing {r['pairing_violations']}, "
                 f"task lost {r['task_lost']}, recency {r['recency']:.3f} (every window: "
                 f"{'met' if every else 'not met'})")
    return f"ctxmgr against the prompt-cache targets: {'; '.join(parts)}."


def _fail(message: str) -> int:
    print(f"bench_cache: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=Path, default=DEFAULT_TRAJECTORIES,
                        help=f"recorded runs (default {DEFAULT_TRAJECTORIES})")
    parser.add_argument("--window", nargs="+", default=list(WINDOWS),
                        help=f"windows to replay (default: {', '.join(WINDOWS)})")
    parser.add_argument("--policy", action="extend", nargs="+", metavar="NAME",
                        help="policies (default: every one installed; none and ctxmgr always)")
    parser.add_argument("--sessions", type=int, default=0, metavar="N",
                        help="replay only the first N 300-call sessions (default all)")
    parser.add_argument("--cache-write", type=float, default=1.25, metavar="RATE",
                        help="the second pricing's price of an uncached prompt token, written "
                             "to the cache (default 1.25: Anthropic's 5-minute cache)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every row here")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE (e.g. benchmarks/RESULTS.md)")
    args = parser.parse_args(argv)

    if not args.trajectories.exists():
        return _fail(f"{args.trajectories} does not exist (the recorded runs are in "
                     f"{DEFAULT_TRAJECTORIES})")
    unknown = [w for w in args.window if w not in WINDOWS]
    if unknown:
        return _fail(f"unknown window {unknown[0]!r} (known: {', '.join(WINDOWS)})")
    if args.sessions < 0:
        return _fail(f"--sessions must be 0 (all) or more, got {args.sessions}")
    known = available_policies()
    names = list(dict.fromkeys(["none", "ctxmgr", *(args.policy or known)]))
    missing = [n for n in names if n not in known]
    if missing:
        return _fail(f"policy {missing[0]!r} is unknown or not installed "
                     f"(available: {', '.join(known)})")
    try:
        surcharge = Pricing(cache_write=args.cache_write)
        runs = load_trajectories([args.trajectories])
    except (CtxmgrError, OSError) as exc:
        return _fail(str(exc))
    swe = [t for t in runs if not is_tau(t)]
    made = sessions(swe)
    groups = {"swe": swe, "tau": [t for t in runs if is_tau(t)],
              "sessions": made[:args.sessions] if args.sessions else made}

    counter = default_counter()
    sections: list[str] = []
    every: dict[str, Any] = {}
    for window in args.window:
        budget, group = WINDOWS[window]
        trajectories = groups[group]
        if not trajectories:
            print(f"{window}: no runs in {args.trajectories}, skipped", file=sys.stderr)
            continue
        started = time.perf_counter()
        report, observed = replay_window(trajectories, budget, names, counter, window)
        rows = window_rows(report, surcharge)
        title = (f"{window}: {len(trajectories)} runs, {count_model_calls(trajectories):,} "
                 f"model calls, budget {budget:,} tokens")
        strategies, note = strategy_rows(report, observed)
        targets = _against_targets(window, rows)
        text = "\n\n".join(p for p in (f"**{title}**", format_rows(rows, surcharge), targets,
                                       f"ctxmgr by strategy ({window}):", strategies, note)
                           if p)
        print(text + "\n", flush=True)
        print(f"{window}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        sections.append(text)
        every[window] = {"budget": budget, "rows": rows,
                         "ctxmgr_strategies": {k: dataclasses.asdict(v) for k, v in
                                               observed.by_strategy.items()}}

    if args.json:
        args.json.write_text(json.dumps(every, indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    if args.markdown:
        command = "python benchmarks/bench_cache.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        body = "\n\n".join(["## The prompt cache: compressions, changed prefixes and where "
                            "the cost goes", _header(command, counter, surcharge, made),
                            *sections])
        replace_markdown_section(args.markdown, MARK, body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


def _header(command: str, counter: TokenCounter, surcharge: Pricing,
            made: Sequence[Trajectory]) -> str:
    runs = "; ".join(f"`{t.id}`: {t.source.count(' + ') + 1} runs" for t in made)
    return (
        f"Produced by `{command.strip()}` (Python {platform.python_version()}, "
        f"{platform.machine()}, token counter `{counter!r}`, the shared fake summarizer). "
        "`compr. / 100 calls`: compression steps per 100 model calls (one of ctxmgr's "
        "strategies applied, a peer's summary or clear); `prefix changed`: the share of "
        "calls whose prompt does not start with the previous prompt, so the provider bills "
        "the rest of it uncached again; `cache hit (none's)`: the share of prompt tokens "
        "the cache serves, and no management's on the same calls; `cost / none`: the "
        f"effective cost against no management at {DEFAULT_PRICING.label()} (SPEC §8) and "
        f"at {surcharge.label()} (every uncached prompt token written to the cache, as "
        "Anthropic's 5-minute cache bills it), `cost+recovery` the same with the cost of "
        "getting lost facts back (see the replay section); the cost split is in percent "
        "of the cost at the plain rates; `cost at none's hit`: the cost had the prompts "
        "hit the cache as often as no management's do (plain rates). The 300-call "
        "sessions are the 24 recorded SWE runs back to back as one agent thread handed "
        "one task after another, each run closed by a one-line final answer, cut into "
        f"sessions of 300 model calls ({runs}; see the script's docstring for why). Under "
        "each table, ctxmgr's steps by strategy: the tokens each freed and the cached "
        "tokens each cut off (the events' `cache_invalidated_tokens`: from the first "
        "message a step changed to where an earlier step of its pass had cut, an upper "
        "bound that counts the prompt before the pass as cached).")


if __name__ == "__main__":
    sys.exit(main())
