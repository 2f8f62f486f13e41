"""Strategy 4: summarize finished rounds before the current one (LLM).

The round's user message stays; everything after it up to and including the
final answer becomes one assistant summary. Oldest rounds go first: they
matter least, and editing early keeps the later prefix cached between
compressions. A round big enough on its own becomes (user, summary);
smaller rounds join the span before them (their user messages go
into the summary) until it is worth a summary, and such a span absorbs the
summary before it, so on support conversations (many short rounds) summaries
roll forward instead of piling up.
"""

from __future__ import annotations

from ctxmgr.autocontext.rounds import summary_strategy
from ctxmgr.autocontext.strategies.base import Plan, StrategyContext, summary_message
from ctxmgr.messages import Message

__all__ = ["PreviousRounds"]


class PreviousRounds:
    number = 4
    name = "previous_rounds"

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        plans: list[Plan] = []  # every span worth a summary, oldest first
        span: tuple[int, int] | None = None  # (first message, end) of the span being grown
        tokens = 0
        for user, final in lay.rounds:
            start, end = user + 1, final + 1
            usable = (final < lay.latest_user and end <= lay.frozen_from
                      and not any(i in lay.pinned for i in range(start, end)))
            if not usable:
                span, tokens = None, 0
                continue
            own = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
            if (span is not None and span[1] == user and user not in lay.pinned
                    and own < cfg.min_range_tokens):
                span = (span[0], end)  # a small round joins the span, its user message too
                tokens += ctx.counter.count(ctx.messages[user]) + own
            else:
                span, tokens = (start, end), own
            if tokens >= cfg.min_range_tokens and self._worth(ctx, *span):
                plans.append(self._plan(ctx, *span))
                span, tokens = None, 0
        return plans

    @staticmethod
    def _worth(ctx: StrategyContext, start: int, end: int) -> bool:
        """Not just one earlier summary or one lone answer."""
        if end - start > 1:
            return True
        m = ctx.messages[start]
        return m.has_tool_blocks and summary_strategy(m) is None

    def _plan(self, ctx: StrategyContext, start: int, end: int) -> Plan:
        def build(summary: str | None, offload_id: str) -> tuple[Message, ...]:
            assert summary is not None
            return (summary_message(ctx.messages[start:end], summary, offload_id,
                                    strategy=self.number,
                                    identifiers_chars=ctx.config.identifiers_limit,
                                    elsewhere=ctx.elsewhere(start, end)),)

        return Plan(strategy=self.number, start=start, end=end, build=build,
                    instruction=ctx.config.previous_round_prompt)
