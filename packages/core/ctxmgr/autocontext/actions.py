"""What identifies a tool call: its name and its key argument.

A record of what the agent already did must name each call so that the agent
does not make it again, and replay's ``actions_retained`` asks whether a prompt
still names each earlier call. Both use the rule here, so they cannot drift.

**The key argument** of a call is, among its top-level argument values in order,
the first that looks like a path (one word holding ``/`` or ending in a file
extension), else the first string that is not a single plain word (a command, a
query, an id), else the first string or number at all.

**Its name** is the value's first non-empty line, runs of whitespace collapsed to
one space, in at most :data:`KEY_CHARS` characters. A longer line keeps its start
and, when the last word that names a path (its *operand*: the file a command reads,
edits or runs) lies beyond that start, its operand too; :data:`ELLIPSIS` stands
for each stretch left out. Why both ends and no table of tools: a command says what
it does at its start (``grep -n "def test_reindl"``) and what it does it to at its
end (``./pvlib/tests/test_irradiance.py``), and whichever of the two is cut, the
agent cannot tell that call from another one. The operand takes at most half the
room unless the start is short (a long path keeps its last directories and file
name, cut at a ``/``); what follows the operand (``-A20``, ``| head -20``) comes with
it when it fits. A line without an operand beyond its start (prose, a query, a
command whose file comes early) keeps its start, cut at a word boundary.

Each stretch of a name (:func:`name_parts`) is a piece of that first line as it is:
a prompt that holds the line holds every part, and a record that holds the name does
too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from ctxmgr.autocontext.identifiers import is_plain_word
from ctxmgr.messages import ToolUseBlock
from ctxmgr.tool_input import argument_strings

__all__ = ["ELLIPSIS", "KEY_CHARS", "argument_strings", "collapse_whitespace", "key_argument",
           "name_parts"]

KEY_CHARS = 60
"""Longest name of a key argument: enough for a shell command's verb, pattern and file."""
ELLIPSIS = "…"
"""Stands for what a name leaves out of the line (with a space on each side)."""

_GAP = f" {ELLIPSIS} "
_END = f" {ELLIPSIS}"
_WS = re.compile(r"\s+")
_PATH = re.compile(r"[^\s]*/[^\s]*|[^\s/]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_OPERAND = re.compile(r"[\w.~*+@%:-]*/[\w.~*+@%:/-]*|[\w.*+@%-]+\.[A-Za-z][A-Za-z0-9]{0,7}")
_QUOTES = "\"'`()[]{},;"
_OPERAND_SHARE = 1 / 2
"""Most of the room the operand's file name takes when the start does not fit whole
beside it (a longer one: the line's start alone)."""


def collapse_whitespace(text: str) -> str:
    """``text`` with every run of whitespace made one space, stripped."""
    return _WS.sub(" ", text).strip()


def name_parts(name: str) -> tuple[str, ...]:
    """The stretches of the line a name shows (the pieces between its ellipses)."""
    return tuple(p for p in (s.strip() for s in name.split(ELLIPSIS)) if p)


def _start(text: str, room: int) -> str:
    """The start of ``text`` in at most ``room`` characters, cut at the last word
    boundary unless that would throw away more than a quarter of the room."""
    if len(text) <= room:
        return text
    cut = text.rfind(" ", 0, room + 1)
    return text[:cut] if cut >= room * 3 // 4 else text[:room]


def _operand(line: str) -> tuple[int, int] | None:
    """Where the last word of ``line`` that names a path starts and ends (quotes
    around it left out), or ``None``. The first word (the program) is none, nor is a
    word with other marks in it (``2>/dev/null``, ``'s/a/b/g'``)."""
    words = list(re.finditer(r"\S+", line))
    for word in reversed(words[1:]):
        text = word.group()
        inner = text.strip(_QUOTES)
        if inner and _OPERAND.fullmatch(inner):
            start = word.start() + text.index(inner)
            return start, start + len(inner)
    return None


def _tails(line: str, start: int, end: int) -> list[str]:
    """Ends of ``line`` that keep the operand at ``line[start:end]``, longest first:
    from its start or from a ``/`` within it, with what follows it, then without
    (marked left out)."""
    starts = [start, *(k + 1 for k in range(start, end - 1) if line[k] == "/")]
    tails = [line[s:] for s in starts]
    if end < len(line):
        tails += [line[s:end] + _END for s in starts]
    return tails


def _name(line: str) -> str:
    """``line`` in at most :data:`KEY_CHARS` characters (the rule in the module
    docstring): the whole start and the longest end that keeps the operand beside it;
    when even the file name leaves no room for the whole start, the start cut and the
    file name alone (with what follows it if that is short)."""
    if len(line) <= KEY_CHARS:
        return line
    plain = _start(line, KEY_CHARS - len(_END)) + _END
    operand = _operand(line)
    if operand is None or operand[1] <= len(plain) - len(_END):
        return plain
    start, end = operand
    before = line[:start].rstrip()
    room = KEY_CHARS - len(_GAP)
    tails = _tails(line, start, end)
    tail = next((t for t in tails if len(before) + len(t) <= room), None)
    if tail is None:
        short = [t for t in tails if len(t) <= room * _OPERAND_SHARE]
        if not short:
            return plain
        tail = min(short, key=len)
    return f"{_start(before, room - len(tail))}{_GAP}{tail}"


def key_argument(use: ToolUseBlock) -> str:
    """The name of ``use``'s key argument ("" for a call without string or number
    arguments)."""
    values = [s for v in _top_level(use.input) if not isinstance(v, Mapping | list | tuple)
              for s in argument_strings(v)]
    values = [v for v in values if v.strip()]
    for v in values:
        if _PATH.fullmatch(v.strip()):
            return _first_line(v)
    for v in values:
        if not is_plain_word(v.strip()) and any(ch.isalpha() for ch in v):
            return _first_line(v)
    return _first_line(values[0]) if values else ""


def _first_line(value: str) -> str:
    line = next((ln for ln in value.splitlines() if ln.strip()), "")
    return _name(collapse_whitespace(line))


def _top_level(arguments: Mapping[str, object]) -> Iterator[object]:
    yield from arguments.values()
