"""The memo tool: its schema and a handler that answers the model, never raising on its input."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ctxmgr.errors import HalfWrittenMemoError, InvalidMemoKeyError, MemoWriteError, StoreError
from ctxmgr.memo.entry import MemoInfo
from ctxmgr.memo.index import Index
from ctxmgr.memo.keys import KEY_PATTERN, MAX_KEY_CHARS, validate_memo_key
from ctxmgr.memo.placeholder import memo_placeholder
from ctxmgr.prompts import MEMO_TOOL_DESCRIPTION, ToolSpec
from ctxmgr.tool_input import parse_tool_input

__all__ = ["MAX_SUMMARY_CHARS", "MEMO_TOOL", "MEMO_TOOL_NAME", "MemoCallResult",
           "run_memo_call"]

logger = logging.getLogger(__name__)

MEMO_TOOL_NAME = "memo"
MAX_SUMMARY_CHARS = 300

MEMO_TOOL = ToolSpec(
    name=MEMO_TOOL_NAME,
    description=MEMO_TOOL_DESCRIPTION,
    parameters={
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["write", "read", "list", "delete"],
                "description": "write, read, list or delete memos.",
            },
            "key": {
                "type": "string",
                "maxLength": MAX_KEY_CHARS,
                "pattern": KEY_PATTERN,
                "description": "The memo's name (required for write, read and delete), "
                "e.g. \"plan\" or \"root-cause_analysis\".",
            },
            "summary": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_SUMMARY_CHARS,
                "description": "Write only: one line saying what the memo holds.",
            },
            "content": {
                "type": "string",
                "minLength": 1,
                "description": "Write only: the full text to save (Markdown).",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
)

_USAGE = ('expected {"action": "write" | "read" | "list" | "delete", "key": "<key>", '
          '"summary": "<1-300 chars, write only>", "content": "<text, write only>"}')


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoCallResult:
    """What one memo tool call did."""

    text: str
    """The tool result for the model."""
    ok: bool
    action: str | None = None
    key: str | None = None
    placeholder: str | None = None
    """Set after a successful write: what the call's ``content`` argument becomes."""


class MemoSession(Protocol):
    """What the handler needs of a session's memos (:class:`~ctxmgr.MemoStore` has it);
    a protocol, so that the store can offer the tool without an import cycle."""

    max_memos: int

    def write(self, key: str, content: str, summary: str) -> tuple[MemoInfo, bool]: ...

    def delete(self, key: str) -> bool: ...

    def list_memos(self) -> list[MemoInfo]: ...

    def _read(self, key: str) -> tuple[MemoInfo, str, str | None] | None: ...

    def _index(self) -> Index: ...


def run_memo_call(memos: MemoSession, tool_input: Any) -> MemoCallResult:
    """Run one memo tool call on ``memos``. Never raises on the model's input.

    Args:
        tool_input: the call's arguments, as a dict or as its JSON text.

    Returns:
        The tool result text, whether the call succeeded, and after a
        successful write the placeholder for :func:`elide_memo_content`.
    """
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return MemoCallResult(text=parsed, ok=False)
    tool_input = parsed
    action = tool_input.get("action")
    action = action.strip().lower() if isinstance(action, str) else action
    if action not in ("write", "read", "list", "delete"):
        return MemoCallResult(text=f"Error: action must be write, read, list or delete, got "
                                   f"{action!r:.80}; {_USAGE}", ok=False)
    try:
        if action == "list":
            return MemoCallResult(text=_list_text(memos), ok=True, action=action)
        key = tool_input.get("key")
        if key is None:
            return MemoCallResult(text=f"Error: {action} needs a key; {_USAGE}", ok=False,
                                  action=action)
        validate_memo_key(key)
        match action:
            case "write":
                return _write(memos, key, tool_input)
            case "read":
                return _read(memos, key)
            case _:
                if memos.delete(key):
                    return MemoCallResult(text=f"Deleted memo {key!r}", ok=True,
                                          action=action, key=key)
                return MemoCallResult(text=f"No memo with key {key!r}; nothing deleted. "
                                           f"{_keys_hint(memos)}", ok=False, action=action,
                                      key=key)
    except InvalidMemoKeyError as exc:
        return MemoCallResult(text=f"Error: {exc}. Example keys: \"plan\", "
                                   "\"root-cause_analysis\"", ok=False, action=action)
    except MemoWriteError as exc:
        return MemoCallResult(text=f"Refused: {exc}", ok=False, action=action)
    except HalfWrittenMemoError as exc:
        logger.warning("memo %s failed: %s", action, exc)
        return MemoCallResult(text=f"Error: {exc}.", ok=False, action=action)
    except (StoreError, OSError, UnicodeDecodeError) as exc:
        logger.warning("memo %s failed: %s", action, exc)
        return MemoCallResult(text=f"Error: the memo store failed ({exc}); the memo was "
                                   "not changed. Try again later.", ok=False, action=action)


def _write(memos: MemoSession, key: str, tool_input: Mapping[str, Any]) -> MemoCallResult:
    summary, content = tool_input.get("summary"), tool_input.get("content")
    if summary is not None and not isinstance(summary, str):
        raise MemoWriteError(f"summary must be a string, got {type(summary).__name__}")
    if content is not None and not isinstance(content, str):
        raise MemoWriteError(f"content must be a string, got {type(content).__name__}")
    info, overwrote = memos.write(key, content or "", summary or "")
    what = "updated (the previous version was overwritten)" if overwrote else "saved"
    return MemoCallResult(
        text=f"Memo {info.key!r} {what}: {info.size} chars, summary: "
             f"{json.dumps(info.summary, ensure_ascii=False)}. Recall it with memo read "
             f"key=\"{info.key}\".",
        ok=True, action="write", key=info.key,
        placeholder=memo_placeholder(info.key, info.summary, info.size))


def _read(memos: MemoSession, key: str) -> MemoCallResult:
    found = memos._read(key)
    if found is None:
        return MemoCallResult(text=f"No memo with key {key!r}. {_keys_hint(memos)}",
                              ok=False, action="read", key=key)
    info, content, warning = found
    head = (f"Memo {info.key!r} (summary: {json.dumps(info.summary, ensure_ascii=False)}; "
            f"{info.size} chars; updated {info.updated or 'unknown'}):")
    if warning is not None:
        head += f"\nWarning: {warning}."
    return MemoCallResult(text=f"{head}\n\n{content}", ok=True, action="read", key=info.key)


def _list_text(memos: MemoSession) -> str:
    index = memos._index()
    warnings = [f"Warning: {p}." for p in index.problems]
    if not index.entries:
        return "\n".join([*warnings, "No memos in this session yet."])
    lines = [*warnings, f"{len(index.entries)} memo(s) of at most {memos.max_memos}, most "
             "recently updated first:"]
    lines += [f"- {e.key}: {e.summary} ({e.size} chars, updated {e.updated or 'unknown'})"
              for e in index.entries]
    return "\n".join(lines)


def _keys_hint(memos: MemoSession) -> str:
    keys = [e.key for e in memos.list_memos()]
    if not keys:
        return "This session has no memos."
    shown = ", ".join(keys[:20]) + (f", ... ({len(keys)} in all)" if len(keys) > 20 else "")
    return f"Existing keys: {shown}."
