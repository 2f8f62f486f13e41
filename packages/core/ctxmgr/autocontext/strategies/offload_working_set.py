"""Strategy 8, the last resort: offload recent tool results to head-and-tail previews.

The working set (the last few tool results and the latest assistant message) and
the in-flight result are what the agent uses next, so strategies 1-7 leave them
verbatim. Only when the prompt is still over the budget without them do their
texts and outputs go, oldest first, each to a preview sized to the room that is
left: the head and the tail (where commands print what they are and how they
ended) around a note of how much was cut, plus the offload tag. Tool calls stay.
A 5 MB tool result is answered this way instead of being refused.
"""

from __future__ import annotations

from dataclasses import replace

from ctxmgr.autocontext.identifiers import identifier_names, split_rest
from ctxmgr.autocontext.marker import CompressedMarker, offload_tag, strip_offload_tags
from ctxmgr.autocontext.rounds import is_compressed
from ctxmgr.autocontext.strategies.base import (
    CHARS_PER_TOKEN,
    Plan,
    RunsWhen,
    Strategy,
    StrategyContext,
    marker_of,
    message_chars,
)
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, text_message
from ctxmgr.tokens import TokenCounter

__all__ = ["MIN_PREVIEW_TOKENS", "OffloadWorkingSet", "head_and_tail"]

MIN_PREVIEW_TOKENS = 40
"""A preview never shrinks below this: the model must still see what the result was."""


IDS_SHARE = 2 / 3
"""Share of a preview's characters that name the distinctive strings of the cut middle;
the rest is the head and the tail. In JSON output head and tail are mostly keys, and the
values an agent copies lie between: on tau-bench at 4k, with two thirds of the previews'
room for names, 4 more of 1,073 needed facts stay in the prompt than with head and tail
alone, at the same size (with a third or a half, 1 more, and the prompts cost more)."""
_SCAN_CHARS = 100_000
"""Of a longer middle, names are looked for in this many characters at each end: a
multi-megabyte output is named in part, as fast as a small one."""


def head_and_tail(text: str, chars: int) -> str:
    """The first and last characters of ``text`` around a cut note that names, in
    :data:`IDS_SHARE` of ``chars``, distinctive strings of what was cut; head and tail
    alone when the middle has none to name."""
    if len(text) <= chars:
        return text
    names_chars = int(chars * IDS_SHARE)
    half = max((chars - names_chars) // 2, 1)
    middle = text[half:len(text) - half]
    # a string the cut splits is not named by its piece ("vis_1234" of "omar_davis_1234")
    whole = middle[split_rest(text, half):len(middle) - split_rest(text[::-1], half)]
    parts = ((whole,) if len(whole) <= 2 * _SCAN_CHARS
             else (whole[:_SCAN_CHARS], whole[-_SCAN_CHARS:]))
    names = identifier_names([text_message("tool", p) for p in parts],
                             f"{text[:half]}\n{text[-half:]}", names_chars)
    if not names:
        half = max(chars // 2, 1)
        cut = len(text) - 2 * half
        return f"{text[:half]}\n[... {cut} characters offloaded ...]\n{text[-half:]}"
    return (f"{text[:half]}\n[... {len(middle)} characters offloaded, naming: "
            f"{', '.join(names)} ...]\n{text[-half:]}")


def _members(ctx: StrategyContext) -> set[int]:
    """The working set proper: the last ``keep_tool_results`` tool groups, the in-flight
    one and the latest assistant message (older answers and user turns may lie between
    them)."""
    lay = ctx.layout
    keep = ctx.config.tuning.keep_tool_results
    groups = [*(lay.groups[-keep:] if keep else ()),
              *((lay.in_flight,) if lay.in_flight else ())]
    members = {i for g in groups for i in range(g.start, g.end)}
    latest = next((i for i in range(lay.size - 1, -1, -1)
                   if ctx.messages[i].role == "assistant"), None)
    if latest is not None:
        members.add(latest)
    return members


def _earlier_preview(m: Message) -> str | None:
    """The offload id of ``m`` if this strategy wrote it: such a preview may be cut
    again, smaller, and still points to the original."""
    marker = CompressedMarker.of(m)
    return marker.offload_id if marker and marker.strategy == OffloadWorkingSet.number else None


def _original(ctx: StrategyContext, preview: Message, offload_id: str) -> Message:
    """The message ``preview`` was cut from (its offload holds it alone), so cutting it
    again keeps the original's head and tail and counts what the original lost; the
    preview itself when the store cannot give it back."""
    if ctx.load is not None:
        try:
            got = ctx.load(offload_id)
        except Exception:  # any backend failure: cut the preview again instead
            got = ()
        if len(got) == 1 and got[0].id == preview.id:
            return replace(got[0], metadata=preview.metadata)
    return preview


def _previewable(b: object) -> bool:
    return isinstance(b, TextBlock | ToolResultBlock)


def previewed(m: Message, offload_id: str, tokens: int, counter: TokenCounter, *,
              by: Strategy) -> Message:
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
            text = strip_offload_tags(b.text)  # a preview cut again keeps one tag
            chars = share * CHARS_PER_TOKEN
            while True:
                preview = f"{head_and_tail(text, chars)}\n{tag}"
                if counter.count_text(preview) <= share or chars <= 16:
                    break
                chars = chars * 3 // 4
            b = tagged(b, preview)
        blocks.append(b)
    return replace(m, content=tuple(blocks),
                   metadata=marker_of(by, offload_id).metadata(m.metadata))


class OffloadWorkingSet:
    number = 8
    name = "offload_working_set"
    uses_llm = False
    runs_when: RunsWhen = "over_budget"
    reduces_count = False
    writes_summary = False
    closes_round = False
    last_resort = True

    def plan(self, ctx: StrategyContext) -> list[Plan]:
        lay, cfg = ctx.layout, ctx.config
        over = ctx.tokens - cfg.budget_tokens
        if over <= 0:
            return []
        plans: list[Plan] = []
        start = min(lay.working_start, lay.in_flight.start if lay.in_flight else lay.size)
        members = _members(ctx)
        # what merely lies between the working set's messages goes first, oldest first
        order = sorted(range(start, lay.size), key=lambda i: (i in members, i))
        for i in order:
            m = ctx.messages[i]
            earlier = _earlier_preview(m)
            if (i in lay.kept or message_chars(m) <= MIN_PREVIEW_TOKENS
                    or (is_compressed(m) and earlier is None)):
                continue
            own = ctx.counter.count(m)
            room = max(own - over, 0)  # what this message may keep for the prompt to fit
            source = _original(ctx, m, earlier) if earlier is not None else m

            def build(_: str | None, offload_id: str, source: Message = source,
                      room: int = room) -> tuple[Message, ...]:
                return (previewed(source, offload_id, room, ctx.counter, by=self),)

            # the pipeline stops as soon as the prompt fits, so a later message is cut
            # only when the earlier ones could not free enough
            plans.append(Plan(strategy=self.number, start=i, end=i + 1, build=build,
                              offload_id=earlier))
        return plans
