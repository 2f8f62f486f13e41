"""How archived tool results are shown to the model: placeholders naming their ids."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ctxmgr.archive.state import ArchiveState
from ctxmgr.messages import ContentBlock, Message, ToolResultBlock

__all__ = ["archive_placeholder", "render_archived"]


def archive_placeholder(tool_use_id: str, summary: str | None = None) -> str:
    """The text an archived tool result is shown as."""
    text = (
        "<system>This tool result has been archived. You can use the Message Archiving "
        f"Tool to unarchive it if needed (tool_use_id: {tool_use_id}).</system>"
    )
    return f"{text}\nSummary: {summary}" if summary else text


def render_archived(messages: Iterable[Message], state: ArchiveState) -> list[Message]:
    """The messages as the model should see them: archived results become placeholders.

    Only the content of archived tool-result blocks changes; every message keeps
    its id and every tool_use block stays, so tool-call pairing is unchanged.
    Messages without archived results are returned as the same objects.
    """
    if not state.entries:
        return list(messages)
    wanted: dict[tuple[str, str], str | None] = {
        (e.message_id, e.tool_use_id): e.summary for e in state.entries}
    message_ids = {mid for mid, _ in wanted}
    out: list[Message] = []
    for m in messages:
        if m.id not in message_ids:
            out.append(m)
            continue
        blocks: list[ContentBlock] = []
        touched = False
        for b in m.content:
            if isinstance(b, ToolResultBlock) and (m.id, b.tool_use_id) in wanted:
                summary = wanted[(m.id, b.tool_use_id)]
                blocks.append(dataclasses.replace(
                    b, content=archive_placeholder(b.tool_use_id, summary)))
                touched = True
            else:
                blocks.append(b)
        out.append(dataclasses.replace(m, content=tuple(blocks)) if touched else m)
    return out
