"""What the model reads in a message, as text that replay's measures search.

Fidelity (:mod:`ctxmgr.replay.fidelity`) and retention (:mod:`ctxmgr.replay.retention`)
both ask whether a string is still somewhere the model reads; they read a message
the same way, through these functions.
"""

from __future__ import annotations

from ctxmgr.autocontext.actions import argument_strings, collapse_whitespace
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

__all__ = ["argument_strings", "named_text", "visible_text"]


def visible_text(m: Message, *, results: bool = True) -> str:
    """Everything the model reads in ``m``: text, tool-result output (unless ``results``
    is false), tool-call argument values, joined by newlines (which no fact contains)."""
    parts: list[str] = []
    for b in m.content:
        if isinstance(b, TextBlock):
            parts.append(b.text)
        elif isinstance(b, ToolResultBlock):
            if results:
                parts.append(b.text)
        elif isinstance(b, ToolUseBlock):
            parts.extend(argument_strings(b.input))
    return "\n".join(parts)


def named_text(m: Message) -> str:
    """:func:`visible_text` with each tool call's name before its argument values, and
    every run of whitespace (line breaks included) collapsed to one space: where a
    tool call's name and key argument, or a user's sentence, are looked for."""
    parts: list[str] = []
    for b in m.content:
        if isinstance(b, TextBlock | ToolResultBlock):
            parts.append(b.text)
        elif isinstance(b, ToolUseBlock):
            parts.append(b.name)
            parts.extend(argument_strings(b.input))
    return collapse_whitespace("\n".join(parts))
