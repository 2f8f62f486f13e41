"""The tool outputs of a recorded run, for agents that replay it with a scripted model.

Both adapters' ``RecordedRun`` give the agent one tool per recorded tool name; a call
returns what the recorded call with the same name and arguments returned, in recorded
order. This module indexes a recording that way and answers those calls, so the
framework tools only wrap it.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.messages import Message, ToolResultBlock, thaw

__all__ = ["RecordedTools", "canonical_arguments"]


def canonical_arguments(arguments: Any) -> str:
    """One text per set of arguments (read-only mappings and tuples as JSON objects, lists)."""
    return json.dumps(thaw(arguments), sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedTools:
    """Recorded tool outputs by (tool name, canonical arguments), and argument names."""

    outputs: dict[tuple[str, str], tuple[str, ...]] = field(repr=False)
    """Recorded tool outputs by (tool name, canonical JSON arguments), in call order."""
    arguments: dict[str, tuple[str, ...]] = field(repr=False)
    """Argument names seen per tool."""

    @classmethod
    def from_messages(cls, messages: Sequence[Message]) -> RecordedTools:
        calls: dict[str, tuple[str, str]] = {}
        outputs: dict[tuple[str, str], list[str]] = defaultdict(list)
        arguments: dict[str, set[str]] = defaultdict(set)
        for m in messages:
            for use in m.tool_uses:
                calls[use.id] = (use.name, canonical_arguments(use.input))
                arguments[use.name].update(use.input)
            for block in m.content:
                if isinstance(block, ToolResultBlock) and block.tool_use_id in calls:
                    outputs[calls[block.tool_use_id]].append(block.text)
        return cls(outputs={k: tuple(v) for k, v in outputs.items()},
                   arguments={k: tuple(sorted(v)) for k, v in arguments.items()})

    def replayers(self) -> dict[str, Callable[..., str]]:
        """One function per tool name, sharing one queue per recorded call: each call
        returns the next recorded output of the same call, or says there is none."""
        queues = {k: deque(v) for k, v in self.outputs.items()}

        def replayer(name: str) -> Callable[..., str]:
            def replay(**kwargs: Any) -> str:
                queue = queues.get((name, canonical_arguments(kwargs)))
                if not queue:
                    return f"(no recorded output for {name} {canonical_arguments(kwargs)})"
                return queue.popleft()
            return replay

        return {name: replayer(name) for name in sorted(self.arguments)}
