"""Strategy 1: summarize the oldest long run of historical tool calls (LLM).

A run is a sequence of whole tool groups (call + results) with nothing else
between them, outside the protected tail. Unlike AgentScope, a long single
round counts too: everything before the tail is history even when the task has
no final answer yet, so coding agents that work on one task for hundreds of
steps get the cheap strategies first.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    StrategyContext,
    summary_message,
)
from ctxmgr.messages import Message
from ctxmgr.pairing import ToolGroup

__all__ = ["ToolRuns"]


class ToolRuns:
    number = 1
    name = "tool_runs"
    uses_llm = True
    runs_when: RunsWhen = "over_target"
    reduces_count = True
    writes_summary = True
    closes_round = False
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay = ctx.layout
        boundary = min(lay.tail_start, lay.frozen_from)
        plans: list[Plan] = []  # every qualifying run, oldest first
        run: list[tuple[int, int]] = []  # consecutive whole groups (or earlier run summaries)
        for g in _units(ctx.messages, lay.groups):
            usable = g.end <= boundary and not any(
                i in lay.kept for i in range(g.start, g.end))
            if usable and (not run or run[-1][1] == g.start):
                run.append((g.start, g.end))
                continue
            plans.extend(self._accept(ctx, run))
            run = [(g.start, g.end)] if usable else []
        plans.extend(self._accept(ctx, run))
        return plans

    def _accept(self, ctx: StrategyContext, run: list[tuple[int, int]]) -> list[Plan]:
        if not run:
            return []
        start, end = run[0][0], run[-1][1]
        if end - start <= ctx.config.tuning.min_consecutive_tool_messages:
            return []
        if all(_is_run_summary(m) for m in ctx.messages[start:end]):
            return []
        tokens = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
        if tokens < ctx.config.min_range_tokens:
            return []

        def build(summary: str | None, offload_id: str) -> tuple[Message, ...]:
            assert summary is not None
            return (summary_message(ctx.messages[start:end], summary, offload_id, by=self,
                                    identifiers_chars=ctx.config.identifiers_limit,
                                    elsewhere=ctx.elsewhere(start, end),
                                    record_chars=ctx.config.record_limit),)

        return [Plan(strategy=self.number, start=start, end=end, build=build,
                     instruction=ctx.config.tuning.tool_run_prompt)]


def _is_run_summary(m: Message) -> bool:
    marker = CompressedMarker.of(m)
    return marker is not None and marker.strategy == ToolRuns.number


def _units(messages: Sequence[Message], groups: Sequence[ToolGroup]) -> list[ToolGroup]:
    """Tool groups plus earlier strategy-1 summaries, in order: a new run absorbs the
    summary before it, so the record rolls forward instead of piling up."""
    units = list(groups)
    units.extend(ToolGroup(i, i + 1) for i, m in enumerate(messages) if _is_run_summary(m))
    units.sort(key=lambda g: g.start)
    return units
