"""Strategy 8, the last resort: offload recent tool results to head-and-tail previews.

The working set (the last few tool results and the latest assistant message) and
the in-flight result are what the agent uses next, so strategies 1-7 leave them
verbatim. Only when the prompt is still over the budget without them do their
texts and outputs go, oldest first, each to a preview sized to the room that is
left: the head and the tail (where commands print what they are and how they
ended) around a note of how much was cut, plus the offload tag; so do the long string
arguments of its tool calls (a file the agent wrote). The calls themselves stay.
A 5 MB tool result is answered this way instead of being refused.
"""

from __future__ import annotations

from collections.abc import Callable
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
from ctxmgr.messages import (
    ContentBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    text_message,
)
from ctxmgr.tokens import TokenCounter

__all__ = ["LONG_ARGUMENT_CHARS", "MIN_PREVIEW_TOKENS", "OffloadWorkingSet", "head_and_tail"]

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


LONG_ARGUMENT_CHARS = 2 * MIN_PREVIEW_TOKENS * CHARS_PER_TOKEN
"""A tool call's string argument longer than this is cut with the texts (a file the agent
wrote, a patch it applied); shorter ones, the ids and paths it names, stay as they are."""


def _long_arguments(b: object) -> list[str]:
    if not isinstance(b, ToolUseBlock):
        return []
    return [k for k, v in b.input.items() if isinstance(v, str) and len(v) > LONG_ARGUMENT_CHARS]


def _cuttable_chars(m: Message) -> int:
    """Characters a preview of ``m`` can cut: its text, tool-result output and long
    string arguments."""
    return message_chars(m) + sum(len(b.input[k]) for b in m.content
                                  for k in _long_arguments(b) if isinstance(b, ToolUseBlock))


def _cut(text: str, share: int, tag: str, counter: TokenCounter) -> str:
    """``text`` as a head-and-tail preview of at most ``share`` tokens, ending in ``tag``."""
    text = strip_offload_tags(text)  # a preview cut again keeps one tag
    chars = share * CHARS_PER_TOKEN
    while True:
        preview = f"{head_and_tail(text, chars)}\n{tag}"
        if counter.count_text(preview) <= share or chars <= 16:
            return preview
        chars = chars * 3 // 4


def previewed(m: Message, offload_id: str, tokens: int, counter: TokenCounter, *,
              by: Strategy) -> Message:
    """``m`` with each text, tool-result output and long string argument of its tool calls
    cut to a head-and-tail preview that keeps the whole message within ``tokens`` (or
    :data:`MIN_PREVIEW_TOKENS` per part). Tool calls, their names and result ids stay, so
    pairing holds; the original, arguments included, reloads by the tag's id."""
    tag = offload_tag(offload_id)

    def shown(b: ContentBlock, cut: Callable[[str], str]) -> ContentBlock:
        if isinstance(b, TextBlock):
            return replace(b, text=cut(b.text))
        if isinstance(b, ToolResultBlock):
            return replace(b, content=cut(b.text))
        if isinstance(b, ToolUseBlock) and (long := _long_arguments(b)):
            return replace(b, input={k: cut(v) if k in long else v
                                     for k, v in b.input.items()}, raw_input=None)
        return b

    parts = sum(_previewable(b) + len(_long_arguments(b)) for b in m.content)
    fixed = counter.count(replace(m, content=tuple(
        shown(b, lambda _: tag) for b in m.content)))
    share = max((tokens - fixed) // max(parts, 1), MIN_PREVIEW_TOKENS)
    blocks = tuple(shown(b, lambda text: _cut(text, share, tag, counter)) for b in m.content)
    return replace(m, content=blocks,
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
    frees_history = False

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
            if (i in lay.kept or _cuttable_chars(m) <= MIN_PREVIEW_TOKENS
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
