"""ctxmgr's tools as LangChain tools: ``context_reload``, ``context_search``,
``message_archiving`` and ``memo``.

Each reaches the graph state and store through the injected ``ToolRuntime``
(hidden from the model's schema), hands the call to the core session engine, and
returns a ``Command`` whose update carries its ``ToolMessage`` and the engine's
change to ctxmgr's channel. The history is never edited by a tool: an archived
result and a memo write's ``content`` are shown as placeholders when the prompt is
built, from that channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from ctxmgr import ARCHIVE_TOOL, CONTEXT_RELOAD_TOOL, CONTEXT_SEARCH_TOOL, MEMO_TOOL
from ctxmgr.autocontext.search import DEFAULT_MAX_RESULTS
from ctxmgr.session import ToolAnswer
from ctxmgr_langgraph.session import GraphSessions
from ctxmgr_langgraph.state import CONTEXT_KEY

try:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool, tool
    from langgraph.prebuilt import ToolRuntime
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["context_tools"]


def context_tools(sessions: GraphSessions) -> list[BaseTool]:
    """The tools ``sessions``' engine offers, bound to it."""
    made = {CONTEXT_RELOAD_TOOL.name: _reload_tool, CONTEXT_SEARCH_TOOL.name: _search_tool,
            ARCHIVE_TOOL.name: _archive_tool, MEMO_TOOL.name: _memo_tool}
    return [made[spec.name](sessions) for spec in sessions.engine.tool_specs]


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


def _reload_tool(sessions: GraphSessions) -> BaseTool:
    @tool(CONTEXT_RELOAD_TOOL.name, description=CONTEXT_RELOAD_TOOL.description)
    def context_reload(
        uuid: Annotated[str, "The id from the CONTEXT_OFFLOAD tag."],
        runtime: ToolRuntime,
        page: Annotated[int, "Which page of a long range (default 1)."] = 1,
    ) -> Command:
        call = _call(sessions, runtime)
        answer = sessions.engine.reload({"uuid": uuid, "page": page}, call["history"],
                                        call["state"], **_where(sessions, runtime))
        return _reply(runtime, CONTEXT_RELOAD_TOOL.name, answer)

    return context_reload


def _search_tool(sessions: GraphSessions) -> BaseTool:
    @tool(CONTEXT_SEARCH_TOOL.name, description=CONTEXT_SEARCH_TOOL.description)
    def context_search(
        query: Annotated[str, "The text to find."],
        runtime: ToolRuntime,
        regex: bool = False,
        max_results: Annotated[int, "Matches per page."] = DEFAULT_MAX_RESULTS,
        page: int = 1,
    ) -> Command:
        call = _call(sessions, runtime)
        answer = sessions.engine.search(
            {"query": query, "regex": regex, "max_results": max_results, "page": page},
            call["history"], call["state"], **_where(sessions, runtime))
        return _reply(runtime, CONTEXT_SEARCH_TOOL.name, answer)

    return context_search


def _archive_tool(sessions: GraphSessions) -> BaseTool:
    @tool(ARCHIVE_TOOL.name, description=ARCHIVE_TOOL.description)
    def message_archiving(
        action: Annotated[Literal["archive", "unarchive"],
                          "archive: hide the results behind a placeholder; unarchive: "
                          "restore them."],
        tool_use_ids: Annotated[list[str], "Ids of the tool calls whose results to archive "
                                           "or restore (at least one)."],
        runtime: ToolRuntime,
        summary: Annotated[str | None, "Optional (archive only): what the results contained "
                                       "that you may still need; shown in the "
                                       "placeholder."] = None,
    ) -> Command:
        tool_input: dict[str, Any] = {"action": action, "tool_use_ids": tool_use_ids}
        if summary is not None:
            tool_input["summary"] = summary
        call = _call(sessions, runtime)
        answer = sessions.engine.archive(tool_input, call["history"], call["state"])
        return _reply(runtime, ARCHIVE_TOOL.name, answer)

    return message_archiving


def _memo_tool(sessions: GraphSessions) -> BaseTool:
    @tool(MEMO_TOOL.name, description=MEMO_TOOL.description)
    def memo(
        action: Annotated[Literal["write", "read", "list", "delete"],
                          "write, read, list or delete memos."],
        runtime: ToolRuntime,
        key: Annotated[str | None, "The memo's name (required for write, read and delete), "
                                   "e.g. \"plan\" or \"root-cause_analysis\"."] = None,
        summary: Annotated[str | None, "Write only: one line (1-300 characters) saying what "
                                       "the memo holds."] = None,
        content: Annotated[str | None, "Write only: the full text to save (Markdown)."] = None,
    ) -> Command:
        tool_input = {k: v for k, v in (("action", action), ("key", key), ("summary", summary),
                                        ("content", content)) if v is not None}
        answer = sessions.engine.memo(tool_input, _call(sessions, runtime)["history"],
                                      tool_use_id=runtime.tool_call_id,
                                      **_where(sessions, runtime))
        return _reply(runtime, MEMO_TOOL.name, answer)

    return memo
