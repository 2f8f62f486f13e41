"""One run's history from the model calls a tracer recorded (LangSmith runs, OTel spans).

A tracer records each model call on its own: the prompt it was sent and the answer.
Without context management the last call's prompt plus its answer is the whole run. With
it (ctxmgr's middleware, a summarizing peer) later prompts hold stand-ins, so the
history is rebuilt call by call instead: each call's prompt repeats the previous answer,
and what follows that answer in the prompt (tool results, the next user message) is new.
A call whose prompt does not hold the previous answer is a side call (a summarizer's
request, say) and is left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr.replay.sources.base import Trajectory, trajectory_from_openai

__all__ = ["ModelCall", "merge_calls", "runs_from_calls"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCall:
    """One recorded model call, its messages in OpenAI chat format."""

    prompt: tuple[dict[str, Any], ...]
    answer: tuple[dict[str, Any], ...]
    order: tuple[Any, ...] = ()
    """Sort key: when the call started (and a tie-breaker)."""


def _key(message: dict[str, Any]) -> str:
    """What identifies a message across calls: role, text and tool calls (not ids, which
    some tracers leave out or make up per call)."""
    calls = [(c.get("function", {}).get("name"), c.get("function", {}).get("arguments"))
             for c in message.get("tool_calls") or ()]
    return json.dumps([message.get("role"), message.get("content") or "", calls],
                      sort_keys=True, default=str)


def merge_calls(calls: Sequence[ModelCall]) -> list[dict[str, Any]]:
    """The run's history: the first call's prompt and answer, then for each later call
    what its prompt holds after the previous answer, and its own answer."""
    history: list[dict[str, Any]] = []
    previous: str | None = None
    for call in sorted(calls, key=lambda c: c.order):
        if not call.answer:
            continue
        if previous is None:
            history = [*call.prompt, *call.answer]
        else:
            # from the end: the previous answer is near it, and a long prompt is not
            # serialised whole for each call
            last = next((i for i in range(len(call.prompt) - 1, -1, -1)
                         if _key(call.prompt[i]) == previous), None)
            if last is None:
                continue  # a side call: not a step of this run
            history += [*call.prompt[last + 1:], *call.answer]
        previous = _key(call.answer[-1])
    return history


def runs_from_calls(groups: Mapping[str, Sequence[ModelCall]], *, kind: str, source: str,
                    system_prompt: str | None) -> list[Trajectory]:
    """One trajectory per group of calls (a thread, a trace), the earliest group first;
    ``kind`` and ``source`` say where they came from ("langsmith", the file)."""
    out: list[Trajectory] = []
    for group, calls in sorted(groups.items(), key=lambda g: min(c.order for c in g[1])):
        history = merge_calls(calls)
        if history:
            out.append(trajectory_from_openai(
                history, id=group, source=f"{kind} {source}", where=f"{source} ({group})",
                system_prompt=system_prompt))
    return out
