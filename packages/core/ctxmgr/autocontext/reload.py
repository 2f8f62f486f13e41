"""The ``context_reload`` tool: schema and a handler that never raises on model input."""

from __future__ import annotations

import json
import logging
from typing import Any

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.paging import paginate
from ctxmgr.errors import OffloadNotFoundError, StoreError
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.messages import thaw as _thaw
from ctxmgr.prompts import ToolSpec
from ctxmgr.tokens import TokenCounter, default_counter
from ctxmgr.tool_input import parse_tool_input

__all__ = ["CONTEXT_RELOAD_TOOL", "handle_reload_call", "render_reloaded"]

logger = logging.getLogger(__name__)

CONTEXT_RELOAD_TOOL = ToolSpec(
    name="context_reload",
    description=(
        "Reload the original messages behind a compressed message. Compressed messages "
        "end with a tag <!-- CONTEXT_OFFLOAD: uuid=ID -->; pass that ID to get the "
        "original content back, word for word. A long range comes back in pages: pass "
        "page to get the next one."
    ),
    parameters={
        "type": "object",
        "properties": {"uuid": {"type": "string",
                                "description": "The id from the CONTEXT_OFFLOAD tag."},
                       "page": {"type": "integer", "minimum": 1,
                                "description": "Which page of a long range (default 1)."}},
        "required": ["uuid"],
        "additionalProperties": False,
    },
)


_PAGE_NOTE_TOKENS = 40  # ", page 2 of 7. Call context_reload with {...} for the next."

_USAGE = ('expected {"uuid": "<id from a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag>", '
          '"page": <optional page number, from 1>}')


def render_reloaded(messages: list[Message]) -> str:
    """Originals as text for the model: role headers, tool calls, verbatim contents."""
    parts: list[str] = []
    for m in messages:
        for b in m.content:
            if isinstance(b, TextBlock):
                parts.append(f"[{m.role}]\n{b.text}")
            elif isinstance(b, ToolUseBlock):
                args = json.dumps(_thaw(b.input), ensure_ascii=False)
                parts.append(f"[{m.role} tool call id={b.id}] {b.name} {args}")
            elif isinstance(b, ToolResultBlock):
                parts.append(f"[tool result id={b.tool_use_id}]\n{b.text}")
    return "\n\n".join(parts)


def handle_reload_call(offload: OffloadStore, tool_input: Any, *,
                       room_tokens: int | None = None,
                       counter: TokenCounter | None = None) -> str:
    """Answer one ``context_reload`` call: the originals as text, or why there are none.
    Never raises on anything the model sends.

    Args:
        offload: where the originals are.
        tool_input: ``{"uuid": ID, "page": N}`` as a mapping or JSON text.
        room_tokens: tokens the answer may take (the room left in the prompt); a longer
            range comes back in pages of that size, each saying how to get the next.
            ``None``: the whole range at once.
        counter: counts the pages (default: the exact default counter).
    """
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return parsed
    uuid = parsed.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip():
        return f"Error: uuid must be the id from a CONTEXT_OFFLOAD tag, got {uuid!r:.80}; {_USAGE}"
    uuid = uuid.strip()
    page = parsed.get("page", 1)
    if isinstance(page, str) and page.strip().isdigit():
        page = int(page)
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return f"Error: page must be a whole number from 1, got {page!r:.40}; {_USAGE}"
    try:
        messages = offload.load(uuid)
    except OffloadNotFoundError:
        return (f"No messages found for uuid {uuid!r}. Copy the id exactly from a "
                "<!-- CONTEXT_OFFLOAD: uuid=ID --> tag.")
    except StoreError as exc:  # the store failed or the blob is damaged: not the model's fault
        logger.warning("context_reload of %s failed: %s", uuid, exc)
        return (f"The original messages for uuid {uuid} cannot be read: {exc}. Please "
                "carry on from the compressed text in the conversation.")
    header = f"Reloaded {len(messages)} original message(s) for uuid {uuid}"
    text = render_reloaded(messages)
    if room_tokens is None:
        return f"{header}:\n\n{text}" if page == 1 else (
            f"Error: uuid {uuid} has only one page; call context_reload without page.")
    counter = counter or default_counter()
    pages = paginate(text, room_tokens - counter.count_text(header) - _PAGE_NOTE_TOKENS,
                     counter)
    if page > len(pages):
        return (f"Error: uuid {uuid} has {len(pages)} page(s); ask for page 1 to "
                f"{len(pages)}.")
    if len(pages) == 1:
        return f"{header}:\n\n{text}"
    more = (f' Call context_reload with {{"uuid": "{uuid}", "page": {page + 1}}} for the next.'
            if page < len(pages) else " This is the last page.")
    return f"{header}, page {page} of {len(pages)}.{more}\n\n{pages[page - 1]}"
