"""The ``context_reload`` tool: schema, the room an answer may take, and a handler that
never raises on model input.

Two rules hold for every caller (``AutoContextMemory`` and every framework adapter):

* **Room.** An answer may take what the prompt has left before compression would
  start again (``trigger_tokens`` less the prompt), but never less than half the gap
  between the trigger and the target: a prompt at its trigger is compressed to its
  target before the model reads the page, and that frees at least this much.
* **Pages.** A range longer than the room comes back in pages. The first answer for a
  range fixes its page size, and later pages of that range keep it, so page N always
  starts where page N-1 ended and following the pages gives back every byte.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.paging import LineCounts, line_counts, paginate
from ctxmgr.autocontext.reload_text import render_reloaded
from ctxmgr.errors import OffloadNotFoundError, StoreError
from ctxmgr.messages import Message
from ctxmgr.prompts import ToolSpec
from ctxmgr.tokens import TokenCounter, default_counter
from ctxmgr.tool_guard import never_raises
from ctxmgr.tool_input import parse_tool_input

__all__ = ["CONTEXT_RELOAD_TOOL", "ReloadAnswer", "answer_reload", "handle_reload_call",
           "reload_floor", "reload_pages", "reload_room", "reload_text_pages", "reloaded_size",
           "render_reloaded"]

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


OFFLOAD_ID_CHARS = 32
"""The most characters an offload id has (an earlier version's; new ones have 16): a longer
uuid is refused unread."""

_JOIN_SLACK_TOKENS = 4
"""Tokens a tokenizer may add where the header, the note and the page text meet."""

_USAGE = ('expected {"uuid": "<id from a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag>", '
          '"page": <optional page number, from 1>}')


def reload_room(config: AutoContextConfig, used_tokens: int) -> int:
    """Tokens a ``context_reload`` answer may take beside a prompt of ``used_tokens``
    (see the module doc): the room before the trigger, at least :func:`reload_floor`."""
    return max(config.trigger_tokens - used_tokens, reload_floor(config))


def reload_floor(config: AutoContextConfig) -> int:
    """The room an answer always has: half the gap between the trigger and the target
    (and never under 256), freed by the compression a prompt at its trigger gets."""
    return max(256, (config.trigger_tokens - config.target_tokens) // 2)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReloadAnswer:
    """What one ``context_reload`` call answered."""

    text: str
    """The tool result for the model."""
    uuid: str | None = None
    """The range asked for, when the input named one."""
    page_tokens: int | None = None
    """The page size the answer was cut to: keep it for the range's next pages."""


@never_raises("context_reload", str)
def handle_reload_call(offload: OffloadStore, tool_input: Any, *,
                       reload_room: int | None = None,
                       counter: TokenCounter | None = None) -> str:
    """Answer one ``context_reload`` call: the originals as text, or why there are none.
    Never raises: not on anything the model sends, nor on any store failure.

    Args:
        offload: where the originals are.
        tool_input: ``{"uuid": ID, "page": N}`` as a mapping or JSON text.
        reload_room: tokens the answer may take (the room left in the prompt); a longer
            range comes back in pages of that size, each saying how to get the next.
            ``None``: the whole range at once.
        counter: counts the pages (default: the exact default counter).
    """
    return answer_reload(offload, tool_input, reload_room=reload_room, counter=counter).text


def answer_reload(offload: OffloadStore, tool_input: Any, *, reload_room: int | None,
                  counter: TokenCounter | None = None,
                  page_tokens: Mapping[str, int] | None = None) -> ReloadAnswer:
    """:func:`handle_reload_call`, keeping a range's page size across its pages.

    Args:
        page_tokens: the page size each range was first answered with (its
            :attr:`ReloadAnswer.page_tokens`); a range found here is cut to that size
            whatever ``reload_room`` says, so its pages line up.
    """
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return ReloadAnswer(text=parsed)
    uuid = parsed.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip():
        return ReloadAnswer(text=f"Error: uuid must be the id from a CONTEXT_OFFLOAD tag, "
                                 f"got {uuid!r:.80}; {_USAGE}")
    uuid = uuid.strip()
    if len(uuid) > OFFLOAD_ID_CHARS:  # never echoed whole, never a key of the session state
        return ReloadAnswer(text=f"Error: uuid is {len(uuid)} characters long; an offload id "
                                 "is the hex digits of a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag "
                                 f"(at most {OFFLOAD_ID_CHARS}).")
    page = parsed.get("page", 1)
    if isinstance(page, str) and page.strip().isdigit():
        page = int(page)
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return ReloadAnswer(text=f"Error: page must be a whole number from 1, got "
                                 f"{page!r:.40}; {_USAGE}", uuid=uuid)
    try:
        messages = offload.load(uuid)
    except OffloadNotFoundError:
        return ReloadAnswer(text=f"No messages found for uuid {uuid!r}. Copy the id exactly "
                                 "from a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag.")
    except StoreError as exc:  # the store failed or the blob is damaged: not the model's fault
        logger.warning("context_reload of %s failed: %s", uuid, exc)
        return ReloadAnswer(text=f"The original messages for uuid {uuid} cannot be read: "
                                 f"{exc}. Please carry on from the compressed text in the "
                                 "conversation.", uuid=uuid)
    text = render_reloaded(messages)
    room = (page_tokens or {}).get(uuid, reload_room)
    counter = counter or default_counter()
    lines = line_counts(text, counter) if room is not None else None
    header = _header(uuid, len(messages), text, counter, lines)
    if room is None:
        return ReloadAnswer(uuid=uuid, text=f"{header}:\n\n{text}" if page == 1 else (
            f"Error: uuid {uuid} has only one page; call context_reload without page."))
    pages = _paginate(uuid, header, text, room, counter, lines)
    if page > len(pages):
        return ReloadAnswer(uuid=uuid, page_tokens=room,
                            text=f"Error: uuid {uuid} has {len(pages)} page(s); ask for "
                                 f"page 1 to {len(pages)}.")
    if len(pages) == 1:
        return ReloadAnswer(uuid=uuid, page_tokens=room, text=f"{header}:\n\n{text}")
    note = _page_note(uuid, page, len(pages), more=page < len(pages))
    return ReloadAnswer(uuid=uuid, page_tokens=room, text=f"{header}{note}{pages[page - 1]}")


def reload_pages(offload_id: str, messages: Sequence[Message], room: int,
                 counter: TokenCounter) -> list[str]:
    """The pages ``context_reload`` cuts the range ``messages`` into for ``room`` tokens:
    joined, they are :func:`render_reloaded` of the range (``context_search`` uses them
    to name the page a match is on)."""
    return reload_text_pages(offload_id, len(messages), render_reloaded(list(messages)), room,
                             counter)


def reload_text_pages(offload_id: str, message_count: int, text: str, room: int,
                      counter: TokenCounter, *, lines: LineCounts | None = None) -> list[str]:
    """:func:`reload_pages` of a range of ``message_count`` messages whose reload text
    (:func:`render_reloaded`) is ``text`` (``lines``: its line counts, when known)."""
    lines = lines or line_counts(text, counter)
    return _paginate(offload_id, _header(offload_id, message_count, text, counter, lines), text,
                     room, counter, lines)


def reloaded_size(text: str, counter: TokenCounter) -> tuple[int, int]:
    """(characters, tokens) of a range's reload text (:func:`render_reloaded`): what its
    reload header and its stand-ins' tags state."""
    return len(text), counter.count_text(text)


def _header(uuid: str, message_count: int, text: str, counter: TokenCounter,
            lines: LineCounts | None = None) -> str:
    """The first line of a reload answer: what the range is, with its true size (its
    tokens from ``lines`` when counted so)."""
    chars, tokens = (len(text), lines.total) if lines is not None else reloaded_size(text,
                                                                                    counter)
    return (f"Reloaded {message_count} original message(s) for uuid {uuid} "
            f"({chars:,} characters, {tokens:,} tokens)")


def _paginate(uuid: str, header: str, text: str, room: int, counter: TokenCounter,
              lines: LineCounts | None) -> list[str]:
    # The note names the uuid again (hex digits are many tokens to a BPE): count it as
    # the longest it can be, page numbers of five digits.
    note = _page_note(uuid, 99_999, 99_999, more=True)
    return paginate(text, room - counter.count_text(header + note) - _JOIN_SLACK_TOKENS,
                    counter, lines=lines)


def _page_note(uuid: str, page: int, pages: int, *, more: bool) -> str:
    """What follows the header of a page: which page it is and how to get the next."""
    following = (f' Call context_reload with {{"uuid": "{uuid}", "page": {page + 1}}} for the '
                 "next." if more else " This is the last page.")
    return f", page {page} of {pages}.{following}\n\n"
