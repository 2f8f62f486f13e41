"""Strategy 4: summarize finished rounds before the current one (LLM).

The round's user message stays; the agent's work on it up to and including the
final answer becomes one assistant summary. Oldest rounds go first: they matter
least, and editing early keeps the later prefix cached between compressions.
A round is summarized on its own, and only once it is worth a summary
(``min_compression_tokens``): the user's words go last, so a span never takes a
user turn into a summary (AgentScope joined small rounds, user messages and all).
"""

from __future__ import annotations

from ctxmgr.autocontext.rounds import is_range_stand_in
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    StrategyContext,
    summary_message,
)
from ctxmgr.messages import Message

__all__ = ["PreviousRounds"]


class PreviousRounds:
    number = 4
    name = "previous_rounds"
    uses_llm = True
    runs_when: RunsWhen = "over_target"
    reduces_count = True
    writes_summary = True
    closes_round = True
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        plans: list[Plan] = []  # every round worth a summary, oldest first
        for user, final in lay.rounds:
            start, end = user + 1, final + 1
            if (final >= lay.latest_user or end > lay.frozen_from
                    or any(i in lay.kept for i in range(start, end))):
                continue
            tokens = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
            if tokens >= cfg.min_range_tokens and self._worth(ctx, start, end):
                plans.append(self._plan(ctx, start, end))
        return plans

    @staticmethod
    def _worth(ctx: StrategyContext, start: int, end: int) -> bool:
        """Not just one earlier summary or one lone answer."""
        if end - start > 1:
            return True
        m = ctx.messages[start]
        return m.has_tool_blocks and not is_range_stand_in(m)

    def _plan(self, ctx: StrategyContext, start: int, end: int) -> Plan:
        def build(summary: str | None, offload_id: str) -> tuple[Message, ...]:
            assert summary is not None
            return (summary_message(ctx.messages[start:end], summary, offload_id, by=self,
                                    identifiers_chars=ctx.config.identifiers_limit,
                                    elsewhere=ctx.elsewhere(start, end),
                                    record_chars=ctx.config.record_limit),)

        return Plan(strategy=self.number, start=start, end=end, build=build,
                    instruction=ctx.config.tuning.previous_round_prompt)
