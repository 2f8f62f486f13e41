"""What identifies a tool call: its name and its key argument.

A record of what the agent already did must name each call so that the agent
does not make it again, and replay's ``actions_retained`` asks whether a prompt
still names each earlier call. Both use the rule here, so they cannot drift.

**The rule.** The key argument of a call is, among its top-level argument values
in order, the first that looks like a path (one word holding ``/`` or ending in
a file extension), else the first string that is not a single plain word (a
command, a query, an id), else the first string or number at all. Its *head* is
the value's first non-empty line with runs of whitespace collapsed to one space,
cut at a word boundary to at most :data:`KEY_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from ctxmgr.autocontext.identifiers import is_plain_word
from ctxmgr.messages import ToolUseBlock
from ctxmgr.tool_input import argument_strings

__all__ = ["KEY_CHARS", "argument_strings", "collapse_whitespace", "key_argument"]

KEY_CHARS = 60
"""Longest head of a key argument: enough for a shell command's first line or a path."""

_WS = re.compile(r"\s+")
_PATH = re.compile(r"[^\s]*/[^\s]*|[^\s/]+\.[A-Za-z][A-Za-z0-9]{0,7}")


def collapse_whitespace(text: str) -> str:
    """``text`` with every run of whitespace made one space, stripped."""
    return _WS.sub(" ", text).strip()


def _head(value: str) -> str:
    line = next((ln for ln in value.splitlines() if ln.strip()), "")
    line = collapse_whitespace(line)
    if len(line) <= KEY_CHARS:
        return line
    cut = line.rfind(" ", 0, KEY_CHARS + 1)
    return line[:cut] if cut >= KEY_CHARS // 2 else line[:KEY_CHARS]


def key_argument(use: ToolUseBlock) -> str:
    """The head of ``use``'s key argument ("" for a call without string or number
    arguments)."""
    values = [s for v in _top_level(use.input) if not isinstance(v, Mapping | list | tuple)
              for s in argument_strings(v)]
    values = [v for v in values if v.strip()]
    for v in values:
        if _PATH.fullmatch(v.strip()):
            return _head(v)
    for v in values:
        if not is_plain_word(v.strip()) and any(ch.isalpha() for ch in v):
            return _head(v)
    return _head(values[0]) if values else ""


def _top_level(arguments: Mapping[str, object]) -> Iterator[object]:
    yield from arguments.values()
