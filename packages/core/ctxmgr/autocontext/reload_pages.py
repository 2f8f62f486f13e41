"""``context_reload`` answers sized to the room left in the prompt, in pages.

A compressed range can be far larger than the room the prompt has before
compression starts again: reloaded whole, it would push the prompt over the
budget, and the next compression would offload it straight back. Here a reload
answers with the part that fits, and ends with the ``offset`` to pass for the
next part, so the model reads a long original piece by piece. Every adapter
(LangGraph tools, LlamaIndex tools) answers through :func:`handle_paged_reload_call`.

Example::

    room = reload_room(config, prompt_tokens=last_result.tokens)
    text = handle_paged_reload_call(offload, {"uuid": "...", "offset": 0},
                                    room_tokens=room, counter=counter)
"""

from __future__ import annotations

from typing import Any

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL, handle_reload_call
from ctxmgr.prompts import ToolSpec
from ctxmgr.tokens import TokenCounter
from ctxmgr.tool_input import parse_tool_input

__all__ = [
    "CONTEXT_RELOAD_PAGED_TOOL",
    "MIN_PAGE_TOKENS",
    "MIN_PAGE_WINDOW_SHARE",
    "PAGE_FRAME_TOKENS",
    "RELOAD_PAGE_NOTE",
    "handle_paged_reload_call",
    "min_page_tokens",
    "page_text",
    "reload_room",
]

RELOAD_PAGE_NOTE = (" A long original comes back in parts: the answer then ends with the offset "
                    "to pass for the next part.")
PAGE_FRAME_TOKENS = 80
"""Room kept in a page for its own header and footer lines."""
MIN_PAGE_TOKENS = 256
"""The smallest page, in tokens, however full the prompt is ..."""
MIN_PAGE_WINDOW_SHARE = 1 / 25
"""... or this share of the window if more: a full context still gets a useful page."""

CONTEXT_RELOAD_PAGED_TOOL = ToolSpec(
    name=CONTEXT_RELOAD_TOOL.name,
    description=CONTEXT_RELOAD_TOOL.description + RELOAD_PAGE_NOTE,
    parameters={
        "type": "object",
        "properties": {
            "uuid": {"type": "string", "description": "The id from the CONTEXT_OFFLOAD tag."},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "Where to continue a long original (given at the end "
                                      "of the previous part); 0 for the start."},
        },
        "required": ["uuid"],
        "additionalProperties": False,
    },
)

_USAGE = ('expected {"uuid": "<id from a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag>", '
          '"offset": <0, or the offset a previous part gave>}')


def min_page_tokens(config: AutoContextConfig) -> int:
    """The smallest page on ``config``'s window: :data:`MIN_PAGE_TOKENS`, or
    ``max_tokens *`` :data:`MIN_PAGE_WINDOW_SHARE` if more."""
    return max(MIN_PAGE_TOKENS, int(config.max_tokens * MIN_PAGE_WINDOW_SHARE))


def reload_room(config: AutoContextConfig, prompt_tokens: int) -> int:
    """Tokens a reload answer may take: the room between ``prompt_tokens`` (the prompt
    as last sent, overhead included) and the compression trigger, and never less than
    :func:`min_page_tokens`."""
    return max(config.trigger_tokens - prompt_tokens, min_page_tokens(config))


def page_text(text: str, offset: int, budget: int, counter: TokenCounter
              ) -> tuple[str, int | None]:
    """The part of ``text`` from ``offset`` that fits in ``budget`` tokens, and the offset
    of the next part (``None`` at the end). A part ends at a line break when one is in
    its second half, so lines are not cut where it can be helped."""
    rest = text[offset:]
    tokens = counter.count_text(rest)
    if tokens <= budget:
        return rest, None
    n = max(1, int(len(rest) * budget / tokens))
    while n > 1 and counter.count_text(rest[:n]) > budget:
        n = max(1, int(n * 0.9))
    cut = rest.rfind("\n", 0, n)
    if cut >= n // 2:
        n = cut + 1
    return rest[:n], offset + n


def handle_paged_reload_call(offload: OffloadStore, tool_input: Any, *, room_tokens: int,
                             counter: TokenCounter) -> str:
    """Answer one ``context_reload`` call within ``room_tokens``; never raises on the
    model's input.

    Args:
        offload: where the originals are.
        tool_input: ``{"uuid": str, "offset": int (optional)}``, as a mapping or its JSON.
        room_tokens: tokens the answer may take (:func:`reload_room`).
        counter: counts the page.

    Returns:
        The originals as :func:`~ctxmgr.handle_reload_call` renders them, from
        ``offset``; when they do not fit, the part that does and a last line giving
        the next offset. An unknown id or a bad input gets the reason instead.
    """
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return parsed
    offset = parsed.get("offset", 0)
    if offset is None:
        offset = 0
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        return f"Error: offset must be a whole number >= 0, got {offset!r:.40}; {_USAGE}"
    text = handle_reload_call(offload, {"uuid": parsed.get("uuid")})
    if not text.startswith("Reloaded "):
        return text  # an error or "not found": short, and already says what to do
    uuid = str(parsed["uuid"]).strip()
    total = len(text)
    if offset >= total:
        return (f"Nothing more: the original of uuid {uuid} is {total} characters long and "
                f"offset {offset} is past its end.")
    part, following = page_text(text, offset, max(1, room_tokens - PAGE_FRAME_TOKENS), counter)
    lines = []
    if offset:
        lines.append(f"[context_reload uuid={uuid}, continued at character {offset} of {total}]")
    lines.append(part)
    if following is not None:
        lines.append(f"\n[context_reload: characters {offset}-{following} of {total} shown. "
                     f"{total - following} more: call context_reload with uuid=\"{uuid}\" and "
                     f"offset={following} for the next part.]")
    return "\n".join(lines)
