"""Which messages no strategy may touch.

Always pinned: every system message, the first user message (the task: on
real coding runs it is 5-11 KB, and cutting it to a preview loses the job) and
the latest user message. Callers add ids, and tool names whose calls and
results must stay verbatim (e.g. a skill document the agent would reload in a
loop). Handoffs between agents (``Tuning.handoff_tools``) stay verbatim too, each
call with its result: who handed to whom is what a multi-agent graph routes by.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Sequence

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock

__all__ = ["is_user_turn", "pinned_indices"]


def is_user_turn(m: Message) -> bool:
    """A message the user wrote (not a tool result carried in a user turn)."""
    return m.role == "user" and not any(isinstance(b, ToolResultBlock) for b in m.content)


def pinned_indices(messages: Sequence[Message], config: AutoContextConfig) -> set[int]:
    """Indices of the messages that must reach the model verbatim."""
    pinned = {i for i, m in enumerate(messages) if m.role == "system" or m.id in config.pinned_ids}
    users = [i for i, m in enumerate(messages) if is_user_turn(m)]
    if users:
        pinned.update((users[0], users[-1]))
    handoff = _handoff_pattern(config.tuning.handoff_tools)
    if config.never_compress_tools or handoff is not None:
        kept_calls: set[str] = set()
        for i, m in enumerate(messages):
            for b in m.content:
                if isinstance(b, ToolUseBlock) and (
                        b.name in config.never_compress_tools
                        or (handoff is not None and handoff.fullmatch(b.name))):
                    kept_calls.add(b.id)
                    pinned.add(i)
                elif isinstance(b, ToolResultBlock) and b.tool_use_id in kept_calls:
                    pinned.add(i)
    return pinned


@functools.lru_cache(maxsize=32)
def _handoff_pattern(patterns: frozenset[str]) -> re.Pattern[str] | None:
    """One regular expression for the ``handoff_tools`` patterns (``None`` for none)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in sorted(patterns)))
