"""Strategy 6: compress the whole current round to ~30 % of its characters (LLM).

Unlike AgentScope, the latest tool call and its result (the in-flight group)
stay verbatim after the summary: a model that sees its last call only as prose
tends to make the same call again. A round smaller than ``min_range_tokens`` is
left alone while the prompt still fits the window: summarizing a few hundred
tokens on every call costs more than it saves.
"""

from __future__ import annotations

from ctxmgr.autocontext.rounds import is_compressed
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    StrategyContext,
    summary_message,
)
from ctxmgr.messages import Message

__all__ = ["CurrentRound"]


class CurrentRound:
    number = 6
    name = "current_round"
    uses_llm = True
    runs_when: RunsWhen = "over_trigger"
    reduces_count = False
    writes_summary = True
    closes_round = False
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        start = max(lay.latest_user + 1, 0)
        end = lay.frozen_from
        # shrink to the touchable span: stop before the first pinned message after start
        for i in range(start, end):
            if i in lay.kept:
                end = i
                break
        if end - start < 1 or (end - start == 1 and is_compressed(ctx.messages[start])):
            return []
        tokens = sum(ctx.counter.count(m) for m in ctx.messages[start:end])
        if tokens < cfg.min_range_tokens and ctx.tokens <= cfg.budget_tokens:
            return []  # not worth a summary yet, and the prompt still fits the window
        ratio = f"{round(cfg.tuning.current_round_compression_ratio * 100)}%"

        def build(summary: str | None, offload_id: str) -> tuple[Message, ...]:
            assert summary is not None
            return (summary_message(ctx.messages[start:end], summary, offload_id, by=self,
                                    current_round=True,
                                    identifiers_chars=ctx.config.identifiers_limit,
                                    elsewhere=ctx.elsewhere(start, end),
                                    record_chars=ctx.config.record_limit),)

        return [Plan(strategy=self.number, start=start, end=end, build=build,
                     instruction=cfg.tuning.current_round_prompt.replace("{ratio}", ratio))]
