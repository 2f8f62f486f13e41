"""Strategy 4: summarize each finished round before the current one (LLM).

The user's message stays; everything after it up to and including the final
answer becomes one assistant summary. Oldest rounds go first: they matter
least, and editing early keeps the later prefix cached between compressions.
"""

from __future__ import annotations

from ctxmgr.autocontext.strategies.base import Plan, StrategyContext, summary_message
from ctxmgr.messages import Message

__all__ = ["PreviousRounds"]


class PreviousRounds:
    number = 4
    name = "previous_rounds"

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        for user, final in lay.rounds:
            start, end = user + 1, final + 1
            if final >= lay.latest_user or end - start < 1 or end > lay.frozen_from:
                continue
            if any(i in lay.pinned for i in range(start, end)):
                continue
            if len(range(start, end)) == 1 and not ctx.messages[start].has_tool_blocks:
                continue  # a lone answer: nothing to fold into it
            tokens = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
            if tokens < cfg.min_compression_tokens:
                continue

            def build(summary: str | None, offload_id: str,
                      start: int = start, end: int = end) -> tuple[Message, ...]:
                assert summary is not None
                return (summary_message(ctx.messages[start:end], summary, offload_id,
                                        strategy=self.number),)

            return [Plan(strategy=self.number, start=start, end=end, build=build,
                         instruction=cfg.previous_round_prompt)]
        return []
