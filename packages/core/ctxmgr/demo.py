"""``ctxmgr demo``: replay a bundled real agent run through AutoContextMemory, offline.

Each recorded assistant message is a model call; before it, the memory is
given the new messages and compresses if needed. The demo shows the prompt
size per call with and without ctxmgr, the strategies that fired and the
savings, then reloads one compressed range to show nothing was lost.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory, ExtractiveSummarizer
from ctxmgr.convert import from_openai
from ctxmgr.messages import Message, message_to_dict
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import default_counter

__all__ = ["DemoReport", "run_demo"]


@dataclass(slots=True)
class DemoReport:
    trajectory_id: str
    budget: int
    baseline: list[int] = field(default_factory=list)
    """Prompt tokens per model call with no management."""
    managed: list[int] = field(default_factory=list)
    """Prompt tokens per model call with ctxmgr."""
    strategies: Counter[str] = field(default_factory=Counter)
    fired: dict[int, list[str]] = field(default_factory=dict)
    """Model call index -> what compressed right before it ("tool_runs: 38 messages")."""
    pairing_violations: int = 0
    reload_checked: int = 0
    """Offloaded ranges reloaded and compared with the originals (all must match)."""
    runner: str = ""
    """What replayed the run ("AutoContextMemory", "create_agent + ContextMiddleware")."""
    reload_shown: Any = None
    """The LangGraph demo's one ``context_reload``: an object with ``offload_id``,
    ``message_id``, ``detail`` and ``exact`` (``None`` when none was made)."""
    kept: tuple[str, str, str] | None = None
    """Where a demo left its offloads for ``ctxmgr reload`` / ``ctxmgr search``: (the
    store's folder, the project, the session); ``None`` when they were in memory only."""


def bundled_trajectory() -> tuple[str, list[Message]]:
    data = json.loads(resources.files("ctxmgr.data").joinpath("demo_trajectory.json")
                      .read_text(encoding="utf-8"))
    return data["id"], from_openai(data["messages"])


def run_demo(*, budget: int = 16_000, trajectory: Trajectory | None = None,
             progress: Callable[[int, int], object] | None = None) -> DemoReport:
    """Replay the bundled run (or ``trajectory``) and measure it; ``progress(i, n)`` per call."""
    if trajectory is None:
        tid, messages = bundled_trajectory()
    else:
        tid, messages = trajectory.id, list(trajectory.messages)
    counter = default_counter()
    memory = AutoContextMemory(AutoContextConfig(max_tokens=budget), counter=counter,
                               summarizer=ExtractiveSummarizer())
    report = DemoReport(trajectory_id=tid, budget=budget, runner="AutoContextMemory")
    calls = [i for i, m in enumerate(messages) if m.role == "assistant"]
    seen = 0
    for k, i in enumerate(calls):
        memory.add(messages[seen:i])
        seen = i
        applied = [e for e in memory.compress_if_needed() if e.status == "applied"]
        if applied:
            report.fired[k] = [f"{e.name}: {len(e.replaced_ids)} message(s) -> offload "
                               f"{e.offload_id[:8]}" for e in applied if e.offload_id]
        report.baseline.append(counter.count_messages(messages[:i]))
        report.managed.append(memory.tokens)
        report.pairing_violations += len(validate_pairing(memory.messages))
        if progress:
            progress(k + 1, len(calls))
    originals = {m.id: message_to_dict(m) for m in messages}
    for event in memory.events:
        if event.status == "applied":
            assert event.offload_id is not None, "an applied event names its offload"
            report.strategies[event.name] += 1
            restored = [message_to_dict(m) for m in memory.reload(event.offload_id)]
            # a range may hold earlier stand-ins; compare those that are originals
            for d in restored:
                if d["id"] in originals and not d.get("metadata", {}).get("ctxmgr"):
                    assert d == originals[d["id"]], "reload must give the original back"
            report.reload_checked += 1
    return report


def render(report: DemoReport) -> str:
    """A plain-text summary of the demo (the rich table shows the same numbers)."""
    base, managed = sum(report.baseline), sum(report.managed)
    within = "within" if max(report.managed) <= report.budget else "OVER"
    lines = [
        f"trajectory {report.trajectory_id}: {len(report.baseline)} model calls, "
        f"budget {report.budget} tokens" + (f", replayed by {report.runner}" if report.runner
                                            else ""),
        f"prompt tokens summed over calls: {base:,} without ctxmgr, {managed:,} with "
        f"({1 - managed / base:.0%} saved)",
        f"peak prompt: {max(report.baseline):,} without, {max(report.managed):,} with "
        f"(budget {report.budget:,}: {within})",
        "strategies fired: " + (", ".join(f"{n} x{c}" for n, c in
                                          sorted(report.strategies.items())) or "none"),
        f"tool-pairing violations: {report.pairing_violations}; offloaded ranges reloaded "
        f"byte for byte: {report.reload_checked}",
    ]
    shown = report.reload_shown
    if shown is not None:
        first = shown.detail.splitlines()[0] if shown.detail else ""
        lines.append(f"context_reload {shown.offload_id[:8]} brought message {shown.message_id} "
                     f"back {'exactly' if shown.exact else 'CHANGED'} ({len(shown.detail):,} "
                     f"chars): {first[:70]}")
    if report.kept is not None:
        folder, project, session = report.kept
        some = next((ids[-1] for ids in (re.findall(r"offload ([0-9a-f]{8})", f)
                                         for fs in report.fired.values() for f in fs) if ids),
                    "ID")
        lines.append(f"the offloads stay in {folder} (project {project}, session {session}) "
                     f"until the next demo: try ctxmgr reload {some} --project {project}, or "
                     f"ctxmgr search TEXT --project {project}")
    return "\n".join(lines)



def timeline(report: DemoReport, *, every: int = 10) -> str:
    """Prompt size at every ``every``-th call and at every call a compression preceded."""
    lines = [f"{'call':>5}  {'without ctxmgr':>14}  {'with ctxmgr':>11}  compression"]
    for k, (base, managed) in enumerate(zip(report.baseline, report.managed, strict=True)):
        if k % every and k not in report.fired and k != len(report.baseline) - 1:
            continue
        what = "; ".join(report.fired.get(k, []))
        lines.append(f"{k + 1:>5}  {base:>14,}  {managed:>11,}  {what}")
    return "\n".join(lines)


def sparkline(values: list[int], *, top: int, width: int = 60) -> str:
    """One text line of bars: each column is the max of its slice of ``values``."""
    bars = " ▁▂▃▄▅▆▇█"
    if not values:
        return ""
    step = max(1, -(-len(values) // width))
    cols = [max(values[i:i + step]) for i in range(0, len(values), step)]
    return "".join(bars[min(8, round(8 * v / top))] for v in cols)
