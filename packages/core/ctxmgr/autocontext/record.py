"""The record of what happened in a compressed range: no stand-in is a bare note.

Every stand-in for a range (a summary, a history note, the note of the user's
words) carries, after its own text, a deterministic record of the range, so that
the agent does not repeat work even when a summary is poor or a note says
nothing else:

* the tool calls, oldest first, each with its name, its key argument
  (:func:`~ctxmgr.autocontext.actions.key_argument`) and, when it did not
  succeed, its outcome (the exit status and the first error line); in a range
  where several agents worked, each call also names the agent that made it
  (``transfer_to_bob: by alice``), handoffs included;
* the files the calls named.

It is the one list of the range's calls: a summary need not list them (the
extractive one does not). A call made again with the same key argument is listed
once, where it was last made, with how it ended then and how many times it was made
(``3× pytest -q → exit 1: ...``). Nothing in it is cut mid-sentence: an error line
too long to show whole is cut at a sentence or clause end (:func:`clause_start`),
or left out.

A record rolls forward: a range that holds an earlier stand-in starts from that
stand-in's record (read back from its text, so it survives a round trip through
a provider's message format), then adds its own calls. Within ``max_chars`` the
newest calls are kept and a line says how many older ones the original holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxmgr.autocontext.actions import argument_strings, collapse_whitespace, key_argument
from ctxmgr.autocontext.authors import author_of
from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock

__all__ = [
    "CALLS_HEADER",
    "FILES_HEADER",
    "SAID_HEADER",
    "clause_start",
    "is_record_line",
    "outcome",
    "range_record",
    "record_lines",
    "without_record",
]

CALLS_HEADER = "Tool calls in this range (oldest first):"
SAID_HEADER = "The agent said:"
FILES_HEADER = "Files named:"
_OLDER = re.compile(r"^\(\+(\d+) older tool calls? (?:not listed|in the original)\)$")
_ERROR = re.compile(r"\b(?:error|exception|failed|failure|fatal|denied|not found)\b", re.I)
_EXCEPTION = re.compile(r"^\s*[\w.]*(?:Error|Exception|Exit|Interrupt)\b.*:")
_STATUS = re.compile(r"(?:returncode|exit(?:[ _]?(?:code|status))?)\W{0,3}(-?\d+)", re.I)
_TAG = re.compile(r"<[^>]*>")
_PATHLIKE = re.compile(r"[\w.-]*/[\w./-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_ERROR_CHARS = 120
_SECTION_STARTS = (CALLS_HEADER, FILES_HEADER, SAID_HEADER, "Identifiers in the original:")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_SAID_CHARS = 100
# where a clause or sentence ends: a stop or a comma before a space (Latin, Greek,
# Cyrillic, Arabic, Devanagari), or an ideographic one, which needs none
_CLAUSE_END = re.compile(r"[.,;:!?…،؛؟।](?=\s)|[。、，；：！？]")
_TIMES = re.compile(r"^(\d+)× (.+)$")
_OUTCOME = re.compile(r"^(?:exit -?\d+|error|no result yet)(?::|$)")


def clause_start(text: str, max_chars: int) -> str:
    """``text`` whole if it fits ``max_chars``, else its longest start that ends a
    sentence or a clause, marked with " …" (at most ``max_chars`` in all), else "" (no
    item is cut mid-clause, nor a URL or a path, which hold no stop before a space)."""
    if len(text) <= max_chars:
        return text
    ends = [m.end() for m in _CLAUSE_END.finditer(text, 0, max_chars + 1)
            if m.end() <= max_chars - 2]
    return f"{text[:ends[-1]]} …" if ends else ""


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
    and the first error line (the first exception line, such as ``KeyError: 'x'``,
    rather than the ``Traceback`` line that opens it)."""
    text = result.text
    status = _STATUS.search(text[:400])
    code = int(status.group(1)) if status else 0
    lines = [collapse_whitespace(_TAG.sub("", ln)) for ln in text.splitlines()]
    first_error = next((ln for ln in lines if _EXCEPTION.match(ln)), "") or next(
        (ln for ln in lines if _ERROR.search(ln) and not ln.startswith("Traceback")), "")
    first_error = clause_start(first_error, _ERROR_CHARS)
    failed = result.is_error or code != 0
    if not failed:
        return ""
    parts = [f"exit {code}"] if code else ["error"]
    if first_error:
        parts.append(first_error)
    return ": ".join(parts)


Call = tuple[str, str]
"""(tool name, record line) of one recorded call: its key argument's name and outcome,
after how many times it was made when more than once."""

_GROUP = re.compile(r"^([A-Za-z_][\w.-]*):$")


def _call(use: ToolUseBlock, result: ToolResultBlock | None, by: str | None = None) -> Call:
    head = key_argument(use)
    if by is not None:
        head = f"{head} [by {by}]" if head else f"by {by}"
    head = head or "(no arguments)"
    end = outcome(result) if result is not None else "no result yet"
    return use.name, f"{head} → {end}" if end else head


def _parts(entry: str) -> tuple[int, str, str]:
    """(times made, key argument's name, outcome) of a record line."""
    times = 1
    if (match := _TIMES.match(entry)) is not None:
        times, entry = int(match.group(1)), match.group(2)
    at = entry.find(" → ")
    while at >= 0:  # the arrow before an outcome (a command may hold one too)
        if _OUTCOME.match(entry[at + 3:]):
            return times, entry[:at], entry[at + 3:]
        at = entry.find(" → ", at + 3)
    return times, entry, ""


def _attributed(entry: str, by: str | None) -> str:
    """``entry`` naming the agent ``by`` (as it stands when it names one, or ``by`` is
    ``None``)."""
    times, name, end = _parts(entry)
    if by is None or "[by " in name or name.startswith("by "):
        return entry
    name = f"by {by}" if name == "(no arguments)" else f"{name} [by {by}]"
    line = f"{name} → {end}" if end else name
    return f"{times}× {line}" if times > 1 else line


def _times(entry: str) -> int:
    return _parts(entry)[0]


def _made_once(calls: Sequence[Call]) -> list[Call]:
    """``calls`` with each tool and key argument listed once, where it was last made,
    with its outcome then and how many times it was made."""
    last: dict[tuple[str, str], tuple[int, str]] = {}
    for tool, entry in calls:
        times, name, end = _parts(entry)
        before = last.pop((tool, name), (0, ""))  # re-inserted: the order of the last
        last[(tool, name)] = (before[0] + times, end)
    out: list[Call] = []
    for (tool, name), (times, end) in last.items():
        line = f"{name} → {end}" if end else name
        out.append((tool, f"{times}× {line}" if times > 1 else line))
    return out


def _earlier(text: str) -> tuple[list[Call], list[str], int]:
    """The calls, file names and count of unlisted older calls of a record in ``text``
    (an earlier stand-in's)."""
    calls: list[Call] = []
    files: list[str] = []
    older = 0
    section = False
    name = ""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(CALLS_HEADER):
            section = True
            continue
        if s.startswith(FILES_HEADER):
            files.extend(f.strip() for f in s[len(FILES_HEADER):].split(",") if f.strip())
            section = False
            continue
        if not section:
            continue
        if not s or is_record_line(s) or s.startswith("<!--"):
            section = False
        elif (match := _OLDER.match(s)) is not None:
            older += int(match.group(1))
        elif (group := _GROUP.match(s)) is not None:
            name = group.group(1)
        elif name:
            calls.append((name, s))
    return calls, files, older


def record_lines(messages: Sequence[Message]) -> tuple[list[Call], list[str], int]:
    """Every call of ``messages`` (those of earlier records first, in place), each
    tool and key argument once (where last made), the files their calls named, and
    how many older calls earlier records left unlisted."""
    results: dict[str, ToolResultBlock] = {}
    for m in messages:
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                results.setdefault(b.tool_use_id, b)
    calls: list[Call] = []
    files: dict[str, None] = {}
    older = 0
    several = len({a for a in map(author_of, messages) if a is not None}) > 1
    for m in messages:
        if m.role in ("assistant", "user") and not m.has_tool_blocks:
            old_calls, old_files, old_older = _earlier(m.text)
            agent = author_of(m) if several else None  # an earlier stand-in's agent
            calls.extend((tool, _attributed(entry, agent)) for tool, entry in old_calls)
            files.update(dict.fromkeys(old_files))
            older += old_older
        by = author_of(m) if several else None
        for use in m.tool_uses:
            calls.append(_call(use, results.get(use.id), by))
            for value in argument_strings(use.input):
                for token in distinctive_strings(value):
                    # a dotted name called as a function (np.isnan(x)) names no file
                    if _PATHLIKE.fullmatch(token) and f"{token}(" not in value:
                        files[token] = None
    return _made_once(calls), list(files), older


def _render(calls: Sequence[Call]) -> list[str]:
    """Calls as lines: the tool's name once per run of its calls, then one line each."""
    out: list[str] = []
    name = None
    for tool, entry in calls:
        if tool != name:
            out.append(f"{tool}:")
            name = tool
        out.append(entry)
    return out


def range_record(messages: Sequence[Message], max_chars: int, *, agent_text: bool = True
                 ) -> str:
    """The record of ``messages`` within ``max_chars`` ("" when ``max_chars`` is 0 or the
    range says nothing): the newest calls that fit, then the files they named that the
    listed calls do not show; for a range without tool calls, what the agent said
    (unless not ``agent_text``)."""
    if max_chars <= 0:
        return ""
    calls, files, older = record_lines(messages)
    if not calls:
        return _said(messages, max_chars) if agent_text else ""
    # the header, and the line counting older calls (40 characters hold a count of up to
    # three digits; a rolled record may count more)
    total = older + sum(_times(entry) for _, entry in calls)
    reserve = max(40, len(f"\n(+{total} older tool calls in the original)"))
    room = max_chars - len(CALLS_HEADER) - reserve
    if room < 0:
        return ""  # not even the header and the count fit: no record rather than too long
    kept, size, name = 0, 0, None
    for tool, entry in reversed(calls):
        cost = len(entry) + 1 + (len(tool) + 2 if tool != name else 0)
        if size + cost > room:
            break
        kept, size, name = kept + 1, size + cost, tool
    listed = calls[len(calls) - kept:]
    older += sum(_times(entry) for _, entry in calls[:len(calls) - kept])
    out = [CALLS_HEADER]
    if older:
        s = "s" if older > 1 else ""
        out.append(f"(+{older} older tool call{s} in the original)")
    out.extend(_render(listed))
    shown = "\n".join(out)
    size = len(shown) + len(FILES_HEADER) + 1
    named: list[str] = []
    for f in reversed(files):
        if f in shown:
            continue
        if size + len(f) + 2 > max_chars:
            break
        named.append(f)
        size += len(f) + 2
    if named:
        out.append(f"{FILES_HEADER} {', '.join(reversed(named))}")
    return "\n".join(out)


def _said(messages: Sequence[Message], max_chars: int) -> str:
    """For a range of text only: the first sentence of each thing the agent said (not
    an earlier stand-in's; a long one cut at a clause end, or left out), newest first
    within ``max_chars``, shown oldest first."""
    firsts: list[str] = []
    for m in messages:
        if m.role != "assistant" or CompressedMarker.of(m) is not None:
            continue
        line = collapse_whitespace(next((ln for ln in m.text.splitlines() if ln.strip()), ""))
        first = clause_start(_SENTENCE_END.split(line, maxsplit=1)[0], _SAID_CHARS)
        if first and first not in firsts:
            firsts.append(first)
    kept: list[str] = []
    size = len(SAID_HEADER)
    for first in reversed(firsts):
        if size + len(first) + 3 > max_chars:
            break
        kept.append(first)
        size += len(first) + 3
    if not kept:
        return ""
    return "\n".join([SAID_HEADER, *(f"- {f}" for f in reversed(kept))])
