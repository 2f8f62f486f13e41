"""Strategy 5: summarize large messages of the current round (LLM).

Only the text is replaced: tool calls, tool-result ids and their order stay,
so the model still sees which calls it made.
"""

from __future__ import annotations

from ctxmgr.autocontext.rounds import is_compressed
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    StrategyContext,
    message_chars,
    with_text_replaced,
)
from ctxmgr.messages import Message

__all__ = ["CurrentLarge"]


class CurrentLarge:
    number = 5
    name = "current_large"
    uses_llm = True
    runs_when: RunsWhen = "over_trigger"
    reduces_count = False
    writes_summary = False
    closes_round = False
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        plans: list[Plan] = []
        for i in range(max(lay.latest_user + 1, 0), lay.frozen_from):
            m = ctx.messages[i]
            if (i in lay.kept or is_compressed(m)
                    or message_chars(m) <= cfg.large_chars):
                continue

            def build(summary: str | None, offload_id: str, m: Message = m
                      ) -> tuple[Message, ...]:
                assert summary is not None
                return (with_text_replaced(m, summary, offload_id, by=self),)

            plans.append(Plan(strategy=self.number, start=i, end=i + 1, build=build,
                              instruction=cfg.tuning.current_large_prompt))
        return plans
