"""The ``context_reload`` tool: schema and a handler that never raises on model input."""

from __future__ import annotations

import json
from typing import Any

from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.errors import OffloadNotFoundError
from ctxmgr.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.messages import thaw as _thaw
from ctxmgr.prompts import ToolSpec
from ctxmgr.tool_input import parse_tool_input

__all__ = ["CONTEXT_RELOAD_TOOL", "handle_reload_call", "render_reloaded"]

CONTEXT_RELOAD_TOOL = ToolSpec(
    name="context_reload",
    description=(
        "Reload the original messages behind a compressed message. Compressed messages "
        "end with a tag <!-- CONTEXT_OFFLOAD: uuid=ID -->; pass that ID to get the "
        "original content back, word for word."
    ),
    parameters={
        "type": "object",
        "properties": {"uuid": {"type": "string",
                                "description": "The id from the CONTEXT_OFFLOAD tag."}},
        "required": ["uuid"],
        "additionalProperties": False,
    },
)


_USAGE = 'expected {"uuid": "<id from a <!-- CONTEXT_OFFLOAD: uuid=ID --> tag>"}'


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
    return "\n\n".join(parts)


def handle_reload_call(offload: OffloadStore, tool_input: Any) -> str:
    """Answer one ``context_reload`` call: the originals as text, or why there are none.
    Never raises on anything the model sends."""
    parsed = parse_tool_input(tool_input, _USAGE)
    if isinstance(parsed, str):
        return parsed
    uuid = parsed.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip():
        return f"Error: uuid must be the id from a CONTEXT_OFFLOAD tag, got {uuid!r:.80}; {_USAGE}"
    uuid = uuid.strip()
    try:
        messages = offload.load(uuid)
    except OffloadNotFoundError:
        return (f"No messages found for uuid {uuid!r}. Copy the id exactly from a "
                "<!-- CONTEXT_OFFLOAD: uuid=ID --> tag.")
    header = f"Reloaded {len(messages)} original message(s) for uuid {uuid}:"
    return f"{header}\n\n{render_reloaded(messages)}"
