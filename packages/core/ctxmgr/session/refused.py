"""Oversized arguments of refused context-tool calls, shown elided as a memo's content is.

A model that sends ``context_reload`` a 300,000-character ``uuid`` (or ``context_search``
such a ``query``) gets one line refusing it, but its own call stays in the history, in
the current round that compression keeps whole, and the next call would overflow. So an
argument longer than :data:`ELIDED_ABOVE_CHARS` of a ctxmgr tool call whose result
refused it (an ``Error: ...`` tool result) is counted and shown as a short placeholder
saying what it was. The rule reads the history alone, so it holds in every framework
and needs no state; the history keeps the call as it was made.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from ctxmgr.archive import ARCHIVE_TOOL
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL
from ctxmgr.autocontext.search import CONTEXT_SEARCH_TOOL
from ctxmgr.memo import MEMO_TOOL
from ctxmgr.messages import Message, ToolUseBlock

__all__ = ["ELIDED_ABOVE_CHARS", "elide_refused"]

ELIDED_ABOVE_CHARS = 1_000
"""An argument of a refused call longer than this (as JSON text when not a string) is
shown elided: no id, query, key or summary a ctxmgr tool takes is that long."""

_TOOLS = frozenset({CONTEXT_RELOAD_TOOL.name, CONTEXT_SEARCH_TOOL.name, ARCHIVE_TOOL.name,
                    MEMO_TOOL.name})
_OWN_RULE = {(MEMO_TOOL.name, "content")}
"""A memo's ``content`` has its own rule: elided once written; a refused write's content
stays for the model to send again."""


def elide_refused(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with the oversized arguments of refused ctxmgr tool calls as their
    placeholder. Messages nothing applies to are returned as the same objects."""
    out = list(messages)
    for i, m in enumerate(out):
        oversized = [u for u in m.tool_uses if u.name in _TOOLS and _oversized(u)]
        if not oversized:
            continue
        refused = _refused_ids(out, i)
        shown = tuple(_elided(b) if isinstance(b, ToolUseBlock) and b.id in refused
                      and any(b is u for u in oversized) else b for b in m.content)
        if any(a is not b for a, b in zip(shown, m.content, strict=True)):
            out[i] = dataclasses.replace(m, content=shown)
    return out


def _refused_ids(messages: Sequence[Message], i: int) -> set[str]:
    """Ids of the calls of ``messages[i]`` that their results refused: the results up to
    the next assistant message answer that turn's calls."""
    refused: set[str] = set()
    for m in messages[i + 1:]:
        if m.role == "assistant":
            break
        refused.update(r.tool_use_id for r in m.tool_results if r.text.startswith("Error"))
    return refused


def _size(value: object) -> int:
    if isinstance(value, str):
        return len(value)
    try:
        return len(json.dumps(value, ensure_ascii=False, default=str))
    except (ValueError, RecursionError):  # nested past reading: too large to show
        return ELIDED_ABOVE_CHARS + 1


def _oversized(use: ToolUseBlock) -> bool:
    return any(_size(v) > ELIDED_ABOVE_CHARS and (use.name, k) not in _OWN_RULE
               for k, v in use.input.items())


def _elided(use: ToolUseBlock) -> ToolUseBlock:
    shown = {k: (f"[elided by ctxmgr: {_size(v):,} characters, which {use.name} refused]"
                 if _size(v) > ELIDED_ABOVE_CHARS and (use.name, k) not in _OWN_RULE else v)
             for k, v in use.input.items()}
    # raw_input is the provider's text of the old arguments: it no longer applies
    return dataclasses.replace(use, input=shown, raw_input=None)
