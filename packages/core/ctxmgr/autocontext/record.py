"""The record of what happened in a compressed range: no stand-in is a bare note.

Every stand-in for a range (a summary, a history note, the note of the user's
words) carries, after its own text, a deterministic record of the range, so that
the agent does not repeat work even when a summary is poor or a note says
nothing else:

* the tool calls, oldest first, each with its name, its key argument
  (:func:`~ctxmgr.autocontext.actions.key_argument`) and, when it did not
  succeed, its outcome (the exit status and the first error line);
* the files the calls named.

A record rolls forward: a range that holds an earlier stand-in starts from that
stand-in's record (read back from its text, so it survives a round trip through
a provider's message format), then adds its own calls. Within ``max_chars`` the
newest calls are kept and a line says how many older ones the original holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxmgr.autocontext.actions import collapse_whitespace, key_argument
from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock, thaw

__all__ = [
    "CALLS_HEADER",
    "FILES_HEADER",
    "is_record_line",
    "outcome",
    "range_record",
    "record_lines",
    "without_record",
]

CALLS_HEADER = "Tool calls in this range (oldest first):"
FILES_HEADER = "Files named:"
_OLDER = re.compile(r"^\(\+(\d+) older tool calls? (?:not listed|in the original)\)$")
_ERROR = re.compile(r"\b(?:error|exception|traceback|failed|failure|fatal|denied|not found)\b",
                    re.I)
_STATUS = re.compile(r"(?:returncode|exit(?:[ _]?(?:code|status))?)\W{0,3}(-?\d+)", re.I)
_TAG = re.compile(r"<[^>]*>")
_PATHLIKE = re.compile(r"[\w.-]*/[\w./-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_ERROR_CHARS = 120
_SECTION_STARTS = (CALLS_HEADER, FILES_HEADER, "Identifiers in the original:")


def is_record_line(line: str) -> bool:
    """True for a line that starts a section ctxmgr writes into a stand-in."""
    return line.strip().startswith(_SECTION_STARTS)


def without_record(text: str) -> str:
    """``text`` up to the first record section (what a summary or a note says itself)."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if is_record_line(line):
            return "\n".join(lines[:k]).rstrip()
    return text


def outcome(result: ToolResultBlock) -> str:
    """How a call ended, in a few words: ``""`` for a success, else the exit status
    and/or the first error line."""
    text = result.text
    status = _STATUS.search(text[:400])
    code = int(status.group(1)) if status else 0
    first_error = next((collapse_whitespace(_TAG.sub("", ln)) for ln in text.splitlines()
                        if _ERROR.search(ln) and _TAG.sub("", ln).strip()), "")
    if len(first_error) > _ERROR_CHARS:
        first_error = first_error[:_ERROR_CHARS - 1] + "…"
    failed = result.is_error or code != 0
    if not failed:
        return ""
    parts = [f"exit {code}"] if code else ["error"]
    if first_error:
        parts.append(first_error)
    return ": ".join(parts)


def _call_line(use: ToolUseBlock, result: ToolResultBlock | None) -> str:
    head = key_argument(use)
    line = f"- {use.name}: {head}" if head else f"- {use.name}"
    end = outcome(result) if result is not None else "no result yet"
    return f"{line} → {end}" if end else line


def _earlier(text: str) -> tuple[list[str], list[str], int]:
    """The call lines, file names and count of unlisted older calls of a record in
    ``text`` (an earlier stand-in's)."""
    calls: list[str] = []
    files: list[str] = []
    older = 0
    section = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(CALLS_HEADER):
            section = "calls"
            continue
        if s.startswith(FILES_HEADER):
            files.extend(f.strip() for f in s[len(FILES_HEADER):].split(",") if f.strip())
            section = None
            continue
        if section == "calls":
            match = _OLDER.match(s)
            if match:
                older += int(match.group(1))
            elif s.startswith("- "):
                calls.append(s)
            else:
                section = None
    return calls, files, older


def record_lines(messages: Sequence[Message]) -> tuple[list[str], list[str], int]:
    """Every call line of ``messages`` (earlier records first, in place), the files
    their calls named, and how many older calls earlier records left unlisted."""
    results: dict[str, ToolResultBlock] = {}
    for m in messages:
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                results.setdefault(b.tool_use_id, b)
    calls: list[str] = []
    files: dict[str, None] = {}
    older = 0
    for m in messages:
        if m.role in ("assistant", "user") and not m.has_tool_blocks:
            old_calls, old_files, old_older = _earlier(m.text)
            calls.extend(old_calls)
            files.update(dict.fromkeys(old_files))
            older += old_older
        for use in m.tool_uses:
            calls.append(_call_line(use, results.get(use.id)))
            for value in _strings(thaw(use.input)):
                for token in distinctive_strings(value):
                    if _PATHLIKE.fullmatch(token):
                        files[token] = None
    return calls, list(files), older


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def range_record(messages: Sequence[Message], max_chars: int) -> str:
    """The record of ``messages`` within ``max_chars`` ("" when it has no tool calls or
    ``max_chars`` is 0): the newest calls that fit, then the files that fit."""
    if max_chars <= 0:
        return ""
    calls, files, older = record_lines(messages)
    if not calls:
        return ""
    kept: list[str] = []
    size = len(CALLS_HEADER) + 1
    room = max_chars - 40  # the line counting older calls
    for line in reversed(calls):
        if size + len(line) + 1 > room:
            break
        kept.append(line)
        size += len(line) + 1
    kept.reverse()
    older += len(calls) - len(kept)
    out = [CALLS_HEADER]
    if older:
        s = "s" if older > 1 else ""
        out.append(f"(+{older} older tool call{s} in the original)")
    out.extend(kept)
    listed: list[str] = []
    size += len(FILES_HEADER) + 1
    for f in reversed(files):
        if size + len(f) + 2 > max_chars:
            break
        listed.append(f)
        size += len(f) + 2
    if listed:
        out.append(f"{FILES_HEADER} {', '.join(reversed(listed))}")
    return "\n".join(out)
