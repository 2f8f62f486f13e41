"""What every trajectory source shares: the run it yields, its options, its reader's shape.

A source turns where a user keeps runs (a messages file, a LangGraph checkpointer,
LangSmith runs, OpenTelemetry spans) into :class:`Trajectory` values, one per run, each
holding the run's full history as OpenAI chat messages: replay then counts every source
the same way. Kept apart from :mod:`ctxmgr.replay.trajectories` so that the readers and
the entry point that dispatches to them do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr.convert.openai import from_openai
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import Message

__all__ = ["SourceOptions", "SourceReader", "Trajectory", "trajectory_from_openai"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Trajectory:
    """One recorded run: its id, where it came from, and its messages."""

    id: str
    source: str
    messages: tuple[Message, ...]
    raw: tuple[dict[str, Any], ...] = field(repr=False, compare=False)
    """The OpenAI-format messages exactly as read (or as a source rebuilt them)."""
    agent: str | None = None
    """The agent of a multi-agent run whose history this is (a subagent, a specialist, a
    swarm member); ``None`` for the run's outermost agent, or a run of one agent."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceOptions:
    """What the caller chose about a source; each reader uses the options it knows."""

    threads: tuple[str, ...] | None = None
    """The runs to read, by id: LangGraph threads, LangSmith threads or traces,
    OpenTelemetry conversations or traces, the ids of a messages file's runs; ``None``
    reads all."""
    system_prompt: str | None = None
    """A system prompt to put first in every run that has none: ``create_agent`` keeps
    its ``system_prompt`` out of the graph state, so a checkpoint never holds it."""


SourceReader = Callable[[str, SourceOptions], list[Trajectory]]
"""A reader: a target (a file, or a URI for a database) and the options, to the runs
found there. Raises ``InvalidMessageError`` for content it cannot read (naming the
target) and ``OSError`` for a target it cannot open."""


def trajectory_from_openai(raw: Sequence[dict[str, Any]], *, id: str, source: str,
                           where: str, system_prompt: str | None = None,
                           agent: str | None = None) -> Trajectory:
    """A :class:`Trajectory` from OpenAI chat messages (``system_prompt`` put first when
    the run has no system message); errors name ``where``.

    Raises:
        InvalidMessageError: a message that is not valid OpenAI chat format.
    """
    messages = list(raw)
    if system_prompt and not any(
            isinstance(m, dict) and m.get("role") == "system" for m in messages):
        messages.insert(0, {"role": "system", "content": system_prompt})
    try:
        neutral = from_openai(messages)
    except InvalidMessageError as exc:
        raise InvalidMessageError(f"{where}: {exc}") from None
    except RecursionError:
        raise InvalidMessageError(f"{where}: a message nested too deeply to process") from None
    return Trajectory(id=id, source=source, messages=tuple(neutral), raw=tuple(messages),
                      agent=agent)
