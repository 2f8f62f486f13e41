"""How originals read when they come back: the text of a reload.

``context_reload`` answers with it, ``context_search`` searches it and names pages of
it, and the search index (:mod:`~ctxmgr.autocontext.search_index`) saves it beside each
offloaded range, so all three agree on every character.
"""

from __future__ import annotations

import json

from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.messages import thaw as _thaw

__all__ = ["SEPARATOR", "render_reloaded"]

SEPARATOR = "\n\n"
"""What stands between two rendered blocks, and so between two messages' texts."""


def render_reloaded(messages: list[Message]) -> str:
    """Originals as text for the model: role headers, tool calls, verbatim contents."""
    parts: list[str] = []
    for m in messages:
        for b in m.content:
            if isinstance(b, TextBlock):
                parts.append(f"[{m.role}]\n{b.text}")
            elif isinstance(b, ToolUseBlock):
                args = json.dumps(_thaw(b.input), ensure_ascii=False)
                parts.append(f"[{m.role} tool call id={b.id}] {b.name} {args}")
            elif isinstance(b, ToolResultBlock):
                parts.append(f"[tool result id={b.tool_use_id}]\n{b.text}")
    return SEPARATOR.join(parts)
