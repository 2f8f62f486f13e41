"""The shared trajectory format: OpenAI chat messages, one run per file or per line.

``*.json`` holds ``{"id", "source", "messages": [...]}`` or a plain list of messages;
``*.jsonl`` one such record per line (SPEC §8). A record of one agent of a multi-agent
run also names it: ``"agent": "researcher"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxmgr.errors import InvalidMessageError
from ctxmgr.replay.sources.base import Trajectory, trajectory_from_openai

__all__ = ["is_messages_record", "read_messages_records"]


def is_messages_record(data: Any) -> bool:
    """A run in the shared format: a list of messages, or an object with a ``messages``
    list."""
    if isinstance(data, dict):
        return isinstance(data.get("messages"), list)
    return isinstance(data, list) and all(isinstance(m, dict) and "role" in m for m in data)


def read_messages_records(records: Sequence[tuple[Any, str, str]], *,
                          system_prompt: str | None = None) -> list[Trajectory]:
    """One trajectory per ``(record, where, default id)``.

    Raises:
        InvalidMessageError: a record in neither layout, or a message that is not valid
            OpenAI chat format (the message names ``where``).
    """
    out: list[Trajectory] = []
    for data, where, default_id in records:
        agent = None
        if isinstance(data, list):
            raw, tid, source = data, default_id, "messages file"
        elif isinstance(data, dict) and isinstance(data.get("messages"), list):
            raw = data["messages"]
            tid = str(data.get("id") or default_id)
            source = str(data.get("source", ""))
            agent = data.get("agent")
            if agent is not None and (not isinstance(agent, str) or not agent):
                raise InvalidMessageError(f"{where}: 'agent' must be a non-empty string, "
                                          f"got {agent!r:.80}")
        else:
            raise InvalidMessageError(
                f"{where}: expected a list of messages or an object with a 'messages' list")
        out.append(trajectory_from_openai(raw, id=tid, source=source, where=where,
                                          system_prompt=system_prompt, agent=agent))
    return out
