"""The placeholder that stands for a saved memo in the history, and the guard against it.

After a successful write the history only needs the summary, so the caller swaps
the ``content`` argument of that tool call for :func:`memo_placeholder` text with
:func:`elide_memo_content`. Because the model then sees that placeholder in its
own past calls, a write whose content is (or contains) it is refused: the model
would otherwise overwrite a real memo with the placeholder.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Iterable

from ctxmgr.messages import Message, ToolUseBlock

__all__ = ["PLACEHOLDER_MARKER", "contains_placeholder", "elide_memo_content",
           "memo_placeholder"]

logger = logging.getLogger(__name__)

PLACEHOLDER_MARKER = "[PLACEHOLDER — NOT REAL CONTENT]"

# A dash of any kind and any spacing: a model retyping the marker may not keep the em dash.
_MARKER_RE = re.compile(r"\[\s*PLACEHOLDER\s*[-‐‑‒–—―]+\s*NOT\s+REAL\s+CONTENT\s*\]",
                        re.IGNORECASE)


def memo_placeholder(key: str, summary: str, size: int) -> str:
    """The text that stands for a saved memo's content in the history."""
    return (f"{PLACEHOLDER_MARKER} persisted to disk; key: {json.dumps(key, ensure_ascii=False)}, "
            f"summary: {json.dumps(summary, ensure_ascii=False)}, size: {size} chars; "
            f"recall: memo read key={json.dumps(key, ensure_ascii=False)}")


def contains_placeholder(text: str) -> bool:
    """True when ``text`` holds the placeholder marker (any dash, spacing or case)."""
    return bool(_MARKER_RE.search(text))


def elide_memo_content(
    messages: Iterable[Message], tool_use_id: str, placeholder: str
) -> list[Message]:
    """Replace the ``content`` argument of a memo write call with ``placeholder``.

    The call is the latest tool_use block with ``tool_use_id`` (ids can repeat
    in a history; the write just made is the latest). Its message keeps its id
    and every other argument; all other messages are returned as they were.
    When there is no such call, or it has no ``content`` argument, the list is
    returned unchanged.
    """
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        m = out[i]
        if not any(isinstance(b, ToolUseBlock) and b.id == tool_use_id for b in m.content):
            continue
        blocks = list(m.content)
        for k in range(len(blocks) - 1, -1, -1):
            b = blocks[k]
            if isinstance(b, ToolUseBlock) and b.id == tool_use_id:
                if "content" not in b.input or b.input["content"] == placeholder:
                    return out
                # raw_input is the provider's text of the old arguments: it no longer applies.
                blocks[k] = dataclasses.replace(
                    b, input={**b.input, "content": placeholder}, raw_input=None)
                out[i] = dataclasses.replace(m, content=tuple(blocks))
                return out
    logger.debug("elide_memo_content: no tool call %r in the history", tool_use_id)
    return out
