"""LangSmith runs, as the SDK exports them: JSON lines (or a JSON list) of run objects.

``Client.list_runs`` yields ``langsmith.schemas.Run`` objects; written out with
``run.json()`` (or ``model_dump_json``) one per line, each chat-model call is a run with
``run_type == "llm"``, ``inputs.messages`` (a batch: a list of lists of LangChain
messages, serialised) and ``outputs.generations`` (a list of lists of generations, each
with its ``message``), plus ``trace_id``, ``dotted_order`` and ``start_time``. Runs are
grouped into trajectories by the LangGraph thread in their metadata (``thread_id``,
``session_id`` or ``conversation_id``), else by trace; one trajectory's calls are merged
into its history by :func:`~ctxmgr.replay.sources.calls.merge_calls`. Chain, tool and
retriever runs are skipped. Messages may be serialised LangChain messages (``{"lc": 1,
"type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``), their plain dumps
(``{"type": "ai", "content": ...}``), ``messages_to_dict`` records or OpenAI messages
(runs of ``wrap_openai``, whose output is the ``choices`` of the response); no LangChain
import is needed to read any of them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxmgr.errors import InvalidMessageError
from ctxmgr.replay.sources.base import Trajectory
from ctxmgr.replay.sources.calls import ModelCall, runs_from_calls

__all__ = ["is_langsmith_run", "read_langsmith_runs"]

_ROLES = {
    "human": "user", "HumanMessage": "user", "HumanMessageChunk": "user", "user": "user",
    "ai": "assistant", "AIMessage": "assistant", "AIMessageChunk": "assistant",
    "assistant": "assistant",
    "system": "system", "SystemMessage": "system", "SystemMessageChunk": "system",
    "tool": "tool", "ToolMessage": "tool", "ToolMessageChunk": "tool",
}
_THREAD_KEYS = ("thread_id", "session_id", "conversation_id")


def is_langsmith_run(data: Any) -> bool:
    """A LangSmith run object: it has a ``run_type`` and a trace or run id."""
    return (isinstance(data, dict) and isinstance(data.get("run_type"), str)
            and any(k in data for k in ("trace_id", "dotted_order", "id")))


def read_langsmith_runs(runs: Sequence[tuple[Any, str]], *, source: str,
                        threads: tuple[str, ...] | None = None,
                        system_prompt: str | None = None) -> list[Trajectory]:
    """One trajectory per thread (or trace) of the chat-model runs among ``runs``
    (``(run, where)`` pairs), in order of each thread's first call.

    Raises:
        InvalidMessageError: a chat-model run whose messages cannot be read (naming where).
    """
    groups: dict[str, list[ModelCall]] = {}
    for run, where in runs:
        if not is_langsmith_run(run):
            raise InvalidMessageError(f"{where}: not a LangSmith run (no run_type)")
        if run["run_type"] != "llm":
            continue
        prompt = _prompt(run.get("inputs"), where)
        if prompt is None:
            continue  # a completion-style LLM run (a prompt string), not a chat call
        group = _group(run)
        if threads is not None and group not in threads:
            continue
        order = (str(run.get("start_time") or ""), str(run.get("dotted_order") or ""))
        groups.setdefault(group, []).append(ModelCall(
            prompt=tuple(prompt), answer=tuple(_answer(run.get("outputs"), where)),
            order=order))
    return runs_from_calls(groups, kind="langsmith", source=source, system_prompt=system_prompt)


def _group(run: dict[str, Any]) -> str:
    extra = run.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    if not isinstance(metadata, dict):
        metadata = {}
    for key in _THREAD_KEYS:
        if metadata.get(key):
            return str(metadata[key])
    if run.get("trace_id"):
        return str(run["trace_id"])
    dotted = str(run.get("dotted_order") or "")
    return dotted.split(".")[0][-36:] if dotted else str(run.get("id"))


def _prompt(inputs: Any, where: str) -> list[dict[str, Any]] | None:
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    if not isinstance(messages, list):
        return None
    if messages and isinstance(messages[0], list):  # a batch: the first prompt
        messages = messages[0]
    return [_message(m, where) for m in messages]


def _answer(outputs: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(outputs, dict):
        return []
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        if isinstance(first, list):
            first = first[0] if first else None
        if isinstance(first, dict):
            if isinstance(first.get("message"), dict):
                return [_message(first["message"], where)]
            if isinstance(first.get("text"), str):
                return [{"role": "assistant", "content": first["text"]}]
        return []
    choices = outputs.get("choices")  # an OpenAI response (wrap_openai)
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return [_message(message, where)]
    return []


def _message(raw: Any, where: str) -> dict[str, Any]:
    """An OpenAI chat message for one message of a run, whatever its serialisation."""
    if not isinstance(raw, dict):
        raise InvalidMessageError(f"{where}: a message that is not an object: {raw!r:.60}")
    if raw.get("lc") == 1 and isinstance(raw.get("id"), list) and raw["id"]:
        kind, fields = str(raw["id"][-1]), raw.get("kwargs") or {}
        if not isinstance(fields, dict):
            raise InvalidMessageError(f"{where}: a serialised {kind} whose kwargs are not "
                                      "an object")
    elif "role" in raw and "type" not in raw:
        return _openai(raw)
    elif isinstance(raw.get("data"), dict) and "type" in raw:  # messages_to_dict
        kind, fields = str(raw["type"]), raw["data"]
    else:
        kind, fields = str(raw.get("type") or raw.get("role") or ""), raw
    if kind in ("ChatMessage", "chat"):
        role = str(fields.get("role", ""))
        role = _ROLES.get(role, role)
    else:
        role = _ROLES.get(kind, "")
    if not role:
        raise InvalidMessageError(f"{where}: a message of unknown type {kind!r}")
    out: dict[str, Any] = {"role": role, "content": _content(fields.get("content"))}
    if role == "assistant":
        calls = _tool_calls(fields)
        if calls:
            out["tool_calls"] = calls
    elif role == "tool":
        out["tool_call_id"] = str(fields.get("tool_call_id", ""))
    return out


def _openai(raw: dict[str, Any]) -> dict[str, Any]:
    keep = ("role", "content", "tool_calls", "tool_call_id", "name")
    out = {k: raw[k] for k in keep if k in raw and raw[k] is not None}
    out.setdefault("content", "")
    return out


def _content(content: Any) -> Any:
    """Text stays text; a list of LangChain content blocks becomes OpenAI parts (text
    parts as such, tool-call blocks dropped since ``tool_calls`` carries them)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = []
        for block in content:
            if isinstance(block, str):
                parts.append({"type": "text", "text": block})
            elif isinstance(block, dict) and block.get("type") in ("tool_use", "tool_call"):
                continue
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append({"type": "text", "text": str(block.get("text", ""))})
            else:
                parts.append(block)
        return parts
    return json.dumps(content, default=str)


def _tool_calls(fields: dict[str, Any]) -> list[dict[str, Any]]:
    calls = fields.get("tool_calls")
    if isinstance(calls, list) and calls:
        out = []
        for c in calls:
            if not isinstance(c, dict):
                continue
            if isinstance(c.get("function"), dict):  # already OpenAI format
                out.append(c)
                continue
            out.append({"id": str(c.get("id") or ""), "type": "function", "function": {
                "name": str(c.get("name", "")),
                "arguments": json.dumps(c.get("args") or {}, ensure_ascii=False)}})
        return out
    extra = fields.get("additional_kwargs")
    if isinstance(extra, dict) and isinstance(extra.get("tool_calls"), list):
        return [c for c in extra["tool_calls"] if isinstance(c, dict)]
    return []
