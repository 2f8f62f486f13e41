"""Strategy 7, the last resort: offload recent tool results to head-and-tail previews.

The working set (the last few tool results and the latest assistant message) and
the in-flight result are what the agent uses next, so strategies 1-6 leave them
verbatim. Only when the prompt is still over the budget without them do their
texts and outputs go, oldest first, each to a preview sized to the room that is
left: the head and the tail (where commands print what they are and how they
ended) around a note of how much was cut, plus the offload tag. Tool calls stay.
A 5 MB tool result is answered this way instead of being refused.
"""

from __future__ import annotations

from dataclasses import replace

from ctxmgr.autocontext.marker import CompressedMarker, offload_tag
from ctxmgr.autocontext.rounds import is_compressed
from ctxmgr.autocontext.strategies.base import Plan, StrategyContext, message_chars
from ctxmgr.messages import Message, TextBlock, ToolResultBlock
from ctxmgr.tokens import TokenCounter

__all__ = ["MIN_PREVIEW_TOKENS", "OffloadWorkingSet", "head_and_tail"]

MIN_PREVIEW_TOKENS = 40
"""A preview never shrinks below this: the model must still see what the result was."""


def head_and_tail(text: str, chars: int) -> str:
    """The first and last ``chars // 2`` characters of ``text`` around a cut note."""
    if len(text) <= chars:
        return text
    half = max(chars // 2, 1)
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[... {cut} characters offloaded ...]\n{text[-half:]}"


def _previewable(b: object) -> bool:
    return isinstance(b, TextBlock | ToolResultBlock)


def previewed(m: Message, offload_id: str, tokens: int, counter: TokenCounter) -> Message:
    """``m`` with each text and tool-result output cut to a head-and-tail preview that
    keeps the whole message within ``tokens`` (or :data:`MIN_PREVIEW_TOKENS` per part).
    Tool calls and result ids stay, so pairing holds."""
    tag = offload_tag(offload_id)

    def tagged(b: TextBlock | ToolResultBlock, text: str) -> TextBlock | ToolResultBlock:
        return replace(b, text=text) if isinstance(b, TextBlock) else replace(b, content=text)

    parts = [b for b in m.content if _previewable(b)]
    fixed = counter.count(replace(m, content=tuple(
        tagged(b, tag) if _previewable(b) else b for b in m.content)))  # type: ignore[arg-type]
    share = max((tokens - fixed) // max(len(parts), 1), MIN_PREVIEW_TOKENS)
    blocks = []
    for b in m.content:
        if isinstance(b, TextBlock | ToolResultBlock):
            text = b.text
            chars = share * 3  # about three characters per token in tool output
            while True:
                preview = f"{head_and_tail(text, chars)}\n{tag}"
                if counter.count_text(preview) <= share or chars <= 16:
                    break
                chars = chars * 3 // 4
            b = tagged(b, preview)
        blocks.append(b)
    return replace(m, content=tuple(blocks), metadata=CompressedMarker(
        strategy=OffloadWorkingSet.number, offload_id=offload_id).metadata(m.metadata))


class OffloadWorkingSet:
    number = 7
    name = "offload_working_set"

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        over = ctx.tokens - cfg.budget_tokens
        if over <= 0:
            return []
        plans: list[Plan] = []
        start = min(lay.working_start, lay.in_flight.start if lay.in_flight else lay.size)
        for i in range(start, lay.size):
            m = ctx.messages[i]
            if i in lay.pinned or is_compressed(m) or message_chars(m) <= MIN_PREVIEW_TOKENS:
                continue
            own = ctx.counter.count(m)
            room = max(own - over, 0)  # what this message may keep for the prompt to fit

            def build(_: str | None, offload_id: str, m: Message = m, room: int = room
                      ) -> tuple[Message, ...]:
                return (previewed(m, offload_id, room, ctx.counter),)

            # oldest first; the pipeline stops as soon as the prompt fits, so a later
            # message is cut only when the earlier ones could not free enough
            plans.append(Plan(strategy=self.number, start=i, end=i + 1, build=build))
        return plans
