"""ctxmgr's tools as LangChain tools: ``context_reload``, ``context_search``,
``message_archiving`` and ``memo``.

Each is announced with the core's ``ToolSpec`` as it is (names, descriptions and JSON
schemas byte for byte what LlamaIndex announces), reaches the graph state and store
through the injected ``ToolRuntime`` (hidden from the model's schema), hands the call,
arguments unchecked, to the core session engine (which answers a bad call with a clear
tool result), and returns a ``Command`` whose update carries its ``ToolMessage`` and
the engine's change to ctxmgr's channel. The history is never edited by a tool: an archived
result and a memo write's ``content`` are shown as placeholders when the prompt is
built, from that channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxmgr import ToolSpec
from ctxmgr.session import ToolAnswer
from ctxmgr_langgraph.session import GraphSessions
from ctxmgr_langgraph.state import CONTEXT_KEY

try:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.prebuilt import ToolRuntime
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["context_tools"]


def context_tools(sessions: GraphSessions) -> list[BaseTool]:
    """The tools ``sessions``' engine offers, bound to it."""
    return [_tool(sessions, spec) for spec in sessions.engine.tool_specs]


def _state_value(state: Any, key: str) -> Any:
    if isinstance(state, Mapping):
        return state.get(key)
    return getattr(state, key, None)


def _call(sessions: GraphSessions, runtime: ToolRuntime) -> dict[str, Any]:
    """What every tool hands the engine: history, state, store and session."""
    return {"history": sessions.cache.to_neutral(_state_value(runtime.state, "messages") or []),
            "state": _state_value(runtime.state, CONTEXT_KEY)}


def _reply(runtime: ToolRuntime, name: str, answer: ToolAnswer) -> Command:
    update: dict[str, Any] = {"messages": [
        ToolMessage(content=answer.text, tool_call_id=runtime.tool_call_id, name=name)]}
    if answer.update:
        update[CONTEXT_KEY] = dict(answer.update)
    return Command(update=update)


def _where(sessions: GraphSessions, runtime: ToolRuntime) -> dict[str, Any]:
    return {"store": sessions.store_for(runtime.store),
            "session": sessions.session_of(runtime.config, runtime)}


def _tool(sessions: GraphSessions, spec: ToolSpec) -> BaseTool:
    """``spec`` as a LangChain tool: announced with the core's JSON schema as it is (so the
    model sees the same tool in every framework), the runtime injected beside it."""
    def run(runtime: ToolRuntime, **given: Any) -> Command:
        call = _call(sessions, runtime)
        answer = sessions.engine.answer(spec.name, given, call["history"], call["state"],
                                        tool_use_id=runtime.tool_call_id,
                                        **_where(sessions, runtime))
        return _reply(runtime, spec.name, answer)

    function = spec.to_openai()["function"]
    return StructuredTool.from_function(func=run, name=spec.name,
                                        description=function["description"],
                                        args_schema=function["parameters"])
