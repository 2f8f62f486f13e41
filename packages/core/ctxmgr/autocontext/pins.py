"""Which messages no strategy may touch.

Always pinned: every system message, the first user message (the task: on
real coding runs it is 5-11 KB, and cutting it to a preview loses the job) and
the latest user message. Callers add ids, and tool names whose calls and
results must stay verbatim (e.g. a skill document the agent would reload in a
loop). The latest handoffs between agents (``Tuning.handoff_tools``,
``Tuning.kept_handoffs``) stay verbatim too, each call with its result: who handed to
whom is what a multi-agent graph routes by. An older one is compressed whole, call and
result together, and the record of its range names the agent that made it.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Sequence

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
    if config.never_compress_tools:
        _pin_calls(messages, lambda name: name in config.never_compress_tools, pinned)
    handoff = _handoff_pattern(config.tuning.handoff_tools)
    if handoff is not None and config.tuning.kept_handoffs:
        handoffs = {i for i, m in enumerate(messages)
                    if any(handoff.fullmatch(b.name) for b in m.tool_uses)}
        latest = sorted(handoffs)[-config.tuning.kept_handoffs:]
        if latest:
            start = latest[0]
            kept: set[int] = set()
            _pin_calls(messages[start:], lambda name: handoff.fullmatch(name) is not None,
                       kept)
            pinned.update(start + i for i in kept)
    return pinned


def _pin_calls(messages: Sequence[Message], chosen: Callable[[str], bool],
               pinned: set[int]) -> None:
    """Add to ``pinned`` each message holding a call of a ``chosen`` tool, and its result."""
    kept_calls: set[str] = set()
    for i, m in enumerate(messages):
        for b in m.content:
            if isinstance(b, ToolUseBlock) and chosen(b.name):
                kept_calls.add(b.id)
                pinned.add(i)
            elif isinstance(b, ToolResultBlock) and b.tool_use_id in kept_calls:
                pinned.add(i)


@functools.lru_cache(maxsize=32)
def _handoff_pattern(patterns: frozenset[str]) -> re.Pattern[str] | None:
    """One regular expression for the ``handoff_tools`` patterns (``None`` for none)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in sorted(patterns)))
