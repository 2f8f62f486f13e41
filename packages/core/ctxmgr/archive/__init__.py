"""Message archiving: the model hides tool results it no longer needs, and brings them back.

Archiving never edits the history. An :class:`ArchiveState` (JSON-native, so
it fits in a LangGraph checkpoint) records which results are archived, and
:func:`render_archived` swaps their content for a placeholder naming the
tool_use_id when messages are sent to the model. The originals stay in the
history, so unarchiving is dropping the entry from the state.

Tool-call ids repeat in real histories, so an entry pins one result by
``(message id, tool_use_id)``; a repeated id in a tool call resolves to its
latest occurrence, and the tool result says so.

An adapter is three calls::

    state, text = handle_archive_call(messages, state, tool_input)   # the tool
    prompt = render_archived(messages, state)                        # before each model call
    ARCHIVE_TOOL.to_openai()  /  ARCHIVE_TOOL.to_anthropic()         # the definition
"""

from __future__ import annotations

from ctxmgr.archive.render import archive_placeholder, render_archived
from ctxmgr.archive.state import ArchivedResult, ArchiveState
from ctxmgr.archive.tool import (
    ARCHIVE_TOOL,
    ARCHIVE_TOOL_NAME,
    MAX_LISTED_NOTES,
    MIN_ARCHIVE_CHARS,
    ArchiveEvent,
    handle_archive_call,
)

__all__ = [
    "ARCHIVE_TOOL",
    "ARCHIVE_TOOL_NAME",
    "MAX_LISTED_NOTES",
    "MIN_ARCHIVE_CHARS",
    "ArchiveEvent",
    "ArchiveState",
    "ArchivedResult",
    "archive_placeholder",
    "handle_archive_call",
    "render_archived",
]
