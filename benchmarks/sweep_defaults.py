"""Sweep AutoContextConfig knobs on the recorded runs: cost against fidelity.

Every variant replays the runs a window manages (the 24 SWE runs at 32k and 16k,
the 100 tau-bench conversations at 4k) with the shared fake summarizer and token
counter, exactly as ``bench_replay.py`` replays the ``ctxmgr`` policy, and prints
one row per variant and window: cost against no management, fact availability,
recency, cost with reload round trips, calls over budget, pairing violations.
The defaults are chosen on this frontier (see benchmarks/RESULTS.md).

    python benchmarks/sweep_defaults.py [--trajectories DIR] [--variant NAME ...]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
from ctxmgr.replay import FakeSummarizer, PolicyContext, load_trajectories, replay
from ctxmgr.replay.ctxmgr_policy import CtxmgrPolicy
from ctxmgr.replay.metrics import aggregate_row
from ctxmgr.tokens import default_counter

ROOT = Path(__file__).resolve().parents[1]

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "0.6/0.15 no working set": {"keep_tool_results": 0},
    "0.6/0.25": {"target_ratio": 0.25},
    "0.6/0.35": {"target_ratio": 0.35},
    "0.7/0.25": {"token_ratio": 0.7, "target_ratio": 0.25},
    "0.7/0.35": {"token_ratio": 0.7, "target_ratio": 0.35},
    "0.75/0.5": {"token_ratio": 0.75, "target_ratio": 0.5},
    "0.8/0.4": {"token_ratio": 0.8, "target_ratio": 0.4},
    "0.8/0.5": {"token_ratio": 0.8, "target_ratio": 0.5},
    "0.9/0.5": {"token_ratio": 0.9, "target_ratio": 0.5},
    "ids 400": {"identifiers_chars": 400},
    "ids 1000": {"identifiers_chars": 1000},
    "0.7/0.35 ids 600": {"token_ratio": 0.7, "target_ratio": 0.35, "identifiers_chars": 600},
    "0.8/0.4 ids 600": {"token_ratio": 0.8, "target_ratio": 0.4, "identifiers_chars": 600},
    "0.8/0.4 ids 1500": {"token_ratio": 0.8, "target_ratio": 0.4, "identifiers_chars": 1500},
    "0.8/0.35 ids 2000": {"token_ratio": 0.8, "target_ratio": 0.35, "identifiers_chars": 2000},
    "0.75/0.3 ids 2000": {"token_ratio": 0.75, "target_ratio": 0.3, "identifiers_chars": 2000},
    "0.7/0.3 ids 2500": {"token_ratio": 0.7, "target_ratio": 0.3, "identifiers_chars": 2500},
    "0.8/0.3 ids 3000": {"token_ratio": 0.8, "target_ratio": 0.3, "identifiers_chars": 3000},
    "0.8/0.3 ids 1500": {"token_ratio": 0.8, "target_ratio": 0.3, "identifiers_chars": 1500},
    "0.8/0.25 ids 4000": {"token_ratio": 0.8, "target_ratio": 0.25, "identifiers_chars": 4000},
    "0.8/0.3 ids 400": {"token_ratio": 0.8, "target_ratio": 0.3, "identifiers_chars": 400},
    "0.8/0.3": {"token_ratio": 0.8, "target_ratio": 0.3},
    "0.8/0.3 keep 2 ids 400": {"token_ratio": 0.8, "target_ratio": 0.3, "identifiers_chars": 400,
                               "keep_tool_results": 2},
}


class VariantPolicy(CtxmgrPolicy):
    """The ctxmgr policy with some knobs set."""

    def __init__(self, context: PolicyContext, name: str, overrides: dict[str, Any]) -> None:
        self.overrides = overrides
        super().__init__(context)
        self.name = name

    def reset(self) -> None:
        self.memory = AutoContextMemory(
            AutoContextConfig(max_tokens=self.context.budget, **self.overrides),
            counter=self.context.counter, summarizer=self.context.summarizer)
        self._seen = 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=Path, default=ROOT / "benchmarks" / "data")
    parser.add_argument("--variant", nargs="*", default=list(VARIANTS))
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="an extra variant from knobs, e.g. token_ratio=0.7 target_ratio=0.3")
    parser.add_argument("--json", type=Path, help="write every row here")
    parser.add_argument("--window", nargs="*", default=["32k SWE", "16k SWE", "4k tau"])
    args = parser.parse_args(argv)
    variants = {v: VARIANTS[v] for v in args.variant}
    if args.set:
        variants[" ".join(args.set)] = {k: json.loads(v) for k, v in
                                        (kv.split("=", 1) for kv in args.set)}
    runs = load_trajectories([args.trajectories])
    swe = [t for t in runs if not t.id.startswith("tau")]
    tau = [t for t in runs if t.id.startswith("tau")]
    counter = default_counter()
    rows: list[dict[str, Any]] = []
    print("| variant | window | cost / none | facts kept | recency | cost+reloads / none "
          "| over budget | pairing |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")
    windows = [w for w in (("32k SWE", 32_000, swe), ("16k SWE", 16_000, swe),
                           ("4k tau", 4_000, tau)) if w[0] in args.window]
    for window, budget, trajectories in windows:
        summarizer = FakeSummarizer(counter)
        context = PolicyContext(budget=budget, counter=counter, summarizer=summarizer)
        policies = [VariantPolicy(context, name, o) for name, o in variants.items()]
        started = time.perf_counter()
        report = replay(trajectories, ["none", *policies], budget=budget, counter=counter,
                        summarizer=summarizer)
        base = aggregate_row(report.runs["none"].results, budget)
        for name in variants:
            row = aggregate_row(report.runs[name].results, budget)
            cost = row["effective_cost"] / base["effective_cost"]
            reloads = row["cost_with_reloads"] / base["effective_cost"]
            rows.append({"variant": name, "window": window, "cost": cost,
                         "fact_availability": row["fact_availability"],
                         "recency": row["recency"], "cost_with_reloads": reloads,
                         "over_budget_calls": row["over_budget_calls"],
                         "pairing_violations": row["pairing_violations"]})
            print(f"| {name} | {window} | {cost:.3f} | {row['fact_availability']:.3f} | "
                  f"{row['recency']:.3f} | {reloads:.3f} | {row['over_budget_calls']} | "
                  f"{row['pairing_violations']} |", flush=True)
        print(f"<!-- {window}: {time.perf_counter() - started:.0f} s -->", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
