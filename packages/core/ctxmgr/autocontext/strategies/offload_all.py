"""Strategy 3: strategy 2 without the tail protection, still sparing the current round.

The current round is everything after the latest final answer; with no final
answer yet, it is the whole conversation after the task, so this strategy then
does nothing.
"""

from __future__ import annotations

from ctxmgr.autocontext.strategies.base import Plan, RunsWhen, StrategyContext
from ctxmgr.autocontext.strategies.offload_protected import offload_plans

__all__ = ["OffloadAll"]


class OffloadAll:
    number = 3
    name = "offload_all"
    uses_llm = False
    runs_when: RunsWhen = "over_target"
    reduces_count = False
    writes_summary = False
    closes_round = False
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        return offload_plans(ctx, before=ctx.layout.latest_final + 1, by=self)
