"""Strategy 2: offload large historical messages, protecting the tail (no LLM).

A text message becomes its first ``preview_chars`` characters + ``...``
+ the offload tag; a tool result keeps its id and only its output text is
replaced. Tool calls are never offloaded (the model must see what it did).
"""

from __future__ import annotations

from dataclasses import replace

from ctxmgr.autocontext.identifiers import preview_note
from ctxmgr.autocontext.marker import offload_tag, quote_offload_tags
from ctxmgr.autocontext.rounds import is_compressed
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    Strategy,
    StrategyContext,
    marker_of,
    message_chars,
)
from ctxmgr.messages import (
    ContentBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = ["OffloadProtected", "offload_plans", "previewed"]


def previewed(m: Message, offload_id: str, *, chars: int, by: Strategy,
              identifiers_chars: int = 0, elsewhere: frozenset[str] = frozenset()) -> Message:
    """``m`` with each text and tool-result output cut to a preview + tag (and, with
    ``identifiers_chars``, a line naming the distinctive strings the preview lost)."""
    tag = offload_tag(offload_id)

    def cut(text: str) -> str:
        note = preview_note(m, text, chars, identifiers_chars, elsewhere=elsewhere)
        head = quote_offload_tags(text[:chars])
        return f"{head}...\n{note}\n{tag}" if note else f"{head}...\n{tag}"

    blocks: list[ContentBlock] = []
    for b in m.content:
        if isinstance(b, TextBlock):
            blocks.append(replace(b, text=cut(b.text)))
        elif isinstance(b, ToolResultBlock):
            blocks.append(replace(b, content=cut(b.text)))
        else:
            blocks.append(b)
    return replace(m, content=tuple(blocks),
                   metadata=marker_of(by, offload_id).metadata(m.metadata))


def offload_plans(ctx: StrategyContext, *, before: int, by: Strategy) -> list[Plan]:
    """One-for-one offload plans for every large, touchable message before ``before``."""
    lay, cfg = ctx.layout, ctx.config
    plans: list[Plan] = []
    for i in range(min(before, lay.frozen_from)):
        m = ctx.messages[i]
        if (i in lay.kept or is_compressed(m)
                or any(isinstance(b, ToolUseBlock) for b in m.content)
                or message_chars(m) <= cfg.large_chars):
            continue

        def build(_: str | None, offload_id: str, m: Message = m, i: int = i
                  ) -> tuple[Message, ...]:
            return (previewed(m, offload_id, chars=cfg.preview_chars, by=by,
                              identifiers_chars=cfg.identifiers_limit,
                              elsewhere=ctx.elsewhere(i, i + 1)),)

        plans.append(Plan(strategy=by.number, start=i, end=i + 1, build=build))
    return plans


class OffloadProtected:
    number = 2
    name = "offload_protected"
    uses_llm = False
    runs_when: RunsWhen = "over_target"
    reduces_count = False
    writes_summary = False
    closes_round = False
    last_resort = False
    frees_history = False

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        return offload_plans(ctx, before=ctx.layout.tail_start, by=self)
