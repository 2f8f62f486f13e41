"""The message-archiving tool: its schema and the handler of one call (never raises)."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.archive.state import ArchivedResult, ArchiveState
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.pins import pinned_indices
from ctxmgr.messages import Message, OpaqueBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.prompts import ARCHIVE_TOOL_DESCRIPTION, ToolSpec
from ctxmgr.tool_input import parse_tool_input

__all__ = ["ARCHIVE_TOOL", "ARCHIVE_TOOL_NAME", "MIN_ARCHIVE_CHARS", "ArchiveEvent",
           "MAX_LISTED_NOTES", "handle_archive_call"]

logger = logging.getLogger("ctxmgr.archive")

ARCHIVE_TOOL_NAME = "message_archiving"
MIN_ARCHIVE_CHARS = 100
"""Results of this many characters or fewer are not archived: the placeholder is as long."""
MAX_LISTED_NOTES = 20
"""Ids a tool result lists one by one (each line capped); the rest are counted."""

ARCHIVE_TOOL = ToolSpec(
    name=ARCHIVE_TOOL_NAME,
    description=ARCHIVE_TOOL_DESCRIPTION,
    parameters={
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["archive", "unarchive"],
                "description": "archive: hide the results behind a placeholder; "
                "unarchive: restore them.",
            },
            "tool_use_ids": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "Ids of the tool calls whose results to archive or restore.",
            },
            "summary": {
                "type": "string",
                "description": "Optional (archive only): what the results contained that "
                "you may still need; shown in the placeholder.",
            },
        },
        "required": ["action", "tool_use_ids"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveEvent:
    """What one archiving tool call did; passed to ``on_event`` and logged."""

    action: str
    count: int
    """Results archived (or unarchived) by this call."""
    tool_use_ids: tuple[str, ...]
    """Ids whose results changed state."""
    notes: tuple[str, ...]
    """One line per id that was refused, skipped or resolved with a caveat."""
    text: str
    """The whole tool result given to the model."""


# --- the tool -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Found:
    result_index: int | None  # message index of the result to act on
    block: ToolResultBlock | None
    problem: str | None  # why nothing can be done (then result_index is None)
    note: str | None  # caveat worth telling the model (repeated id)


class _History:
    """Where each tool-call id occurs: calls and results by message index."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = messages
        self.calls: dict[str, list[int]] = {}
        self.results: dict[str, list[tuple[int, ToolResultBlock]]] = {}
        for i, m in enumerate(messages):
            for b in m.content:
                if isinstance(b, ToolUseBlock):
                    self.calls.setdefault(b.id, []).append(i)
                elif isinstance(b, ToolResultBlock):
                    self.results.setdefault(b.tool_use_id, []).append((i, b))
        self.position = {m.id: i for i, m in enumerate(messages)}

    def in_last_group(self, call_index: int) -> bool:
        """True when nothing but tool results follows the call: it is still running."""
        return all(any(isinstance(b, ToolResultBlock) for b in m.content)
                   for m in self.messages[call_index + 1:])

    def find(self, tool_use_id: str) -> _Found:
        calls = self.calls.get(tool_use_id, [])
        results = self.results.get(tool_use_id, [])
        if not calls and not results:
            return _Found(None, None, "unknown tool_use_id (no tool call with this id in the "
                                      "conversation)", None)
        last_result = results[-1][0] if results else -1
        if calls and calls[-1] > last_result:
            where = ("its latest call" if len(calls) > 1 else "the call")
            if self.in_last_group(calls[-1]):
                return _Found(None, None, f"in flight: {where} has no result yet; archive it "
                                          "once its result is in", None)
            return _Found(None, None, f"{where} was never answered (no tool result in the "
                                      "conversation), so there is nothing to archive", None)
        index, block = results[-1]
        note = None
        if len(results) > 1 or len(calls) > 1:
            n = max(len(results), len(calls))
            note = (f"this id occurs {n} times in the conversation; used the latest result "
                    f"(message {index + 1} of {len(self.messages)})")
        return _Found(index, block, None, note)


def _size(block: ToolResultBlock) -> int:
    """Characters of a result as the model reads it (opaque parts count as their JSON)."""
    if isinstance(block.content, str):
        return len(block.content)
    return sum(len(b.text) if not isinstance(b, OpaqueBlock)
               else len(json.dumps(dict(b.data), default=str)) for b in block.content)


def _parse_input(tool_input: Any) -> tuple[str, list[Any], str | None] | str:
    """(action, ids, summary) or the message explaining what is wrong."""
    usage = ('expected {"action": "archive" | "unarchive", "tool_use_ids": ["<id>", ...], '
             '"summary": "<optional text>"}')
    parsed = parse_tool_input(tool_input, usage)
    if isinstance(parsed, str):
        return parsed
    tool_input = parsed
    action = tool_input.get("action")
    if not isinstance(action, str) or action.strip().lower() not in ("archive", "unarchive"):
        return f"Error: action must be \"archive\" or \"unarchive\", got {action!r:.80}; {usage}"
    ids = tool_input.get("tool_use_ids")
    if isinstance(ids, str):
        ids = [ids]
    if not isinstance(ids, list | tuple) or not ids:
        return f"Error: tool_use_ids must be a non-empty list of ids, got {ids!r:.80}; {usage}"
    summary = tool_input.get("summary")
    if summary is not None and not isinstance(summary, str):
        return f"Error: summary must be a string, got {type(summary).__name__}; {usage}"
    summary = summary.strip() if summary else None
    return action.strip().lower(), list(ids), summary or None


def handle_archive_call(
    messages: Sequence[Message],
    state: ArchiveState,
    tool_input: Any,
    *,
    on_event: Callable[[ArchiveEvent], None] | None = None,
    config: AutoContextConfig | None = None,
) -> tuple[ArchiveState, str]:
    """Run one call of the archiving tool. Never raises on anything the model sends.

    Args:
        messages: the history with original (not rendered) tool results.
        state: the archive state before the call.
        tool_input: the tool-call arguments, as a dict or as its JSON text.
        on_event: called with an :class:`ArchiveEvent` after every call that
            was well formed.
        config: the compressor's settings; results it keeps verbatim (``pinned_ids``
            and the tools of ``never_compress_tools``) are not archived either.

    Returns:
        The new state and the tool result for the model: a first line
        ``Archived N tool result(s)`` / ``Unarchived N tool result(s)``, then one
        line per id that was refused or resolved with a caveat (the first
        :data:`MAX_LISTED_NOTES`, each id cut to 120 characters; the rest counted).
    """
    parsed = _parse_input(tool_input)
    if isinstance(parsed, str):
        logger.info("message_archiving: refused: %s", parsed)
        return state, parsed
    action, ids, summary = parsed
    history = _History(messages)
    pinned = pinned_indices(messages, config) if config is not None else set()
    entries = list(state.entries)
    notes: list[str] = []
    changed: list[str] = []
    seen: set[str] = set()
    for n, raw_id in enumerate(ids):
        if not isinstance(raw_id, str):
            notes.append(f"- tool_use_ids[{n}]: not a string ({raw_id!r:.60}); skipped")
            continue
        tid = raw_id.strip()
        label = f"- {tid!r:.120}"
        if not tid:
            notes.append(f"- tool_use_ids[{n}]: empty id; skipped")
            continue
        if tid in seen:
            notes.append(f"{label}: repeated in this call; handled once")
            continue
        seen.add(tid)
        if action == "archive":
            line = _archive_one(history, entries, tid, summary, changed, pinned)
        else:
            line = _unarchive_one(history, entries, tid, changed)
        if line:
            notes.append(f"{label}: {line}")
    verb = "Archived" if action == "archive" else "Unarchived"
    head = f"{verb} {len(changed)} tool result(s)"
    if len(notes) > MAX_LISTED_NOTES:  # 10,000 bogus ids must not make a 1 MB answer
        notes = [*notes[:MAX_LISTED_NOTES],
                 f"- and {len(notes) - MAX_LISTED_NOTES} more id(s) refused or noted (only "
                 f"the first {MAX_LISTED_NOTES} are listed)"]
    text = "\n".join([head, *notes])
    new_state = ArchiveState(tuple(entries))
    logger.info("%s", head)
    for line in notes:
        logger.debug("message_archiving %s", line)
    if on_event is not None:
        on_event(ArchiveEvent(action=action, count=len(changed), tool_use_ids=tuple(changed),
                              notes=tuple(notes), text=text))
    return new_state, text


def _archive_one(history: _History, entries: list[ArchivedResult], tid: str,
                 summary: str | None, changed: list[str], pinned: set[int]) -> str | None:
    found = history.find(tid)
    if found.problem is not None:
        return f"not archived: {found.problem}"
    assert found.result_index is not None and found.block is not None
    if found.result_index in pinned:
        return ("not archived: this result is pinned (its message id is pinned or its tool "
                "is never compressed), so it stays verbatim")
    message_id = history.messages[found.result_index].id
    prefix = f"{found.note}; " if found.note else ""
    for k, e in enumerate(entries):
        if e.tool_use_id == tid and e.message_id == message_id:
            if summary and summary != e.summary:
                entries[k] = dataclasses.replace(e, summary=summary)
                return f"{prefix}already archived; summary updated"
            return f"{prefix}already archived"
    size = _size(found.block)
    if size <= MIN_ARCHIVE_CHARS:
        return (f"{prefix}not archived: the result is only {size} characters (results of "
                f"{MIN_ARCHIVE_CHARS} characters or fewer are kept)")
    entries.append(ArchivedResult(tool_use_id=tid, message_id=message_id, summary=summary))
    changed.append(tid)
    return f"{prefix}archived" if found.note else None


def _unarchive_one(history: _History, entries: list[ArchivedResult], tid: str,
                   changed: list[str]) -> str | None:
    mine = [k for k, e in enumerate(entries) if e.tool_use_id == tid]
    if not mine:
        if tid not in history.calls and tid not in history.results:
            return "not unarchived: unknown tool_use_id (no tool call with this id in the " \
                   "conversation)"
        return "not unarchived: this result is not archived"
    # the latest result in the history first; entries whose message is gone count as oldest
    k = max(mine, key=lambda k: (history.position.get(entries[k].message_id, -1), k))
    del entries[k]
    changed.append(tid)
    if len(mine) > 1:
        return (f"this id occurs more than once; unarchived its latest archived result, "
                f"{len(mine) - 1} other archived result(s) with this id remain archived")
    return None


# --- rendering ----------------------------------------------------------------------
