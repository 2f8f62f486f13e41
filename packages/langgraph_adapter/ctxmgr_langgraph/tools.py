"""ctxmgr's tools as LangChain tools: ``context_reload``, ``message_archiving`` and ``memo``.

Each reaches the graph state and store through the injected ``ToolRuntime``
(hidden from the model's schema) and returns a ``Command`` whose update carries
its ``ToolMessage`` and, for archiving and memo writes, the change to ctxmgr's
state. The history is never edited by a tool: the placeholder of an archived
result and the elided ``content`` of a memo write are applied when the prompt is
built, from that state.

``context_reload`` answers within the room left before compression would start
again; a longer range comes back in pages of that size, each saying how to ask
for the next (the size is kept in ctxmgr's state, so the pages line up).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ctxmgr import (
    ARCHIVE_TOOL,
    CONTEXT_RELOAD_TOOL,
    MEMO_TOOL,
    ArchiveState,
    handle_archive_call,
)
from ctxmgr_langgraph.calibration import ratio_of
from ctxmgr_langgraph.state import CONTEXT_KEY, archive_changes

try:
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.tools import BaseTool, tool
    from langgraph.prebuilt import ToolRuntime
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

if TYPE_CHECKING:
    from ctxmgr_langgraph.engine import ContextEngine

__all__ = ["context_tools"]

def context_tools(engine: ContextEngine) -> list[BaseTool]:
    """The tools ``engine`` is configured for, bound to it."""
    tools: list[BaseTool] = []
    if engine.context_reload:
        tools.append(_reload_tool(engine))
    if engine.settings.message_archiving:
        tools.append(_archive_tool(engine))
    if engine.settings.memo:
        tools.append(_memo_tool(engine))
    return tools


# --- helpers --------------------------------------------------------------------------


def _state_value(state: Any, key: str, default: Any = None) -> Any:
    if isinstance(state, Mapping):
        return state.get(key, default)
    return getattr(state, key, default)


def _reply(runtime: ToolRuntime, name: str, text: str, context: Mapping[str, Any] | None = None
           ) -> Command:
    update: dict[str, Any] = {
        "messages": [ToolMessage(content=text, tool_call_id=runtime.tool_call_id, name=name)]}
    if context:
        update[CONTEXT_KEY] = dict(context)
    return Command(update=update)


def _calling_message_id(messages: Sequence[BaseMessage], tool_call_id: str | None) -> str | None:
    """Id of the latest assistant message that made the call ``tool_call_id``."""
    for m in reversed(messages):
        if isinstance(m, AIMessage) and any(c.get("id") == tool_call_id for c in m.tool_calls):
            return m.id
    return None


# --- context_reload -------------------------------------------------------------------


def _reload_tool(engine: ContextEngine) -> BaseTool:
    @tool(CONTEXT_RELOAD_TOOL.name, description=CONTEXT_RELOAD_TOOL.description)
    def context_reload(
        uuid: Annotated[str, "The id from the CONTEXT_OFFLOAD tag."],
        runtime: ToolRuntime,
        page: Annotated[int, "Which page of a long range (default 1)."] = 1,
    ) -> Command:
        state = runtime.state
        context = _state_value(state, CONTEXT_KEY) or {}
        session = engine.session_of(runtime.config, runtime)
        ratio = ratio_of(context.get("calibration")) if engine.calibrate else 1.0
        processor = engine.processor(engine.store_for(runtime.store), session, ratio)
        key = uuid.strip() if isinstance(uuid, str) else ""
        sizes = context.get("reload_pages") or {}
        # the first page is sized to the room left now; the later pages of the same range
        # keep that size, so that page N always starts where page N-1 ended
        room = sizes.get(key)
        if not isinstance(room, int) or isinstance(room, bool):
            room = engine.reload_budget(processor, _state_value(state, "messages") or [],
                                        context)
        text = processor.handle_reload_call({"uuid": uuid, "page": page}, room_tokens=room)
        change = {"reload_pages": {key: room}} if key and key not in sizes else None
        return _reply(runtime, CONTEXT_RELOAD_TOOL.name, text, change)

    return context_reload


# --- message_archiving ----------------------------------------------------------------


def _archive_tool(engine: ContextEngine) -> BaseTool:
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
        state = runtime.state
        context = _state_value(state, CONTEXT_KEY) or {}
        messages = engine.cache.to_neutral(_state_value(state, "messages") or [])
        before = ArchiveState.from_dict(context.get("archive"))
        tool_input: dict[str, Any] = {"action": action, "tool_use_ids": tool_use_ids}
        if summary is not None:
            tool_input["summary"] = summary
        after, text = handle_archive_call(messages, before, tool_input, config=engine.config)
        return _reply(runtime, ARCHIVE_TOOL.name, text,
                      archive_changes(before.to_dict(), after.to_dict()))

    return message_archiving


# --- memo -----------------------------------------------------------------------------


def _memo_tool(engine: ContextEngine) -> BaseTool:
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
        session = engine.session_of(runtime.config, runtime)
        memos = engine.memos(engine.store_for(runtime.store), session)
        tool_input = {k: v for k, v in (("action", action), ("key", key), ("summary", summary),
                                        ("content", content)) if v is not None}
        result = memos.run_memo_call(tool_input)
        change: dict[str, Any] = {}
        if result.placeholder:
            messages = _state_value(runtime.state, "messages") or []
            message_id = _calling_message_id(messages, runtime.tool_call_id)
            if message_id is not None:
                change["memos_add"] = [{"message_id": message_id,
                                        "tool_use_id": runtime.tool_call_id,
                                        "placeholder": result.placeholder}]
        return _reply(runtime, MEMO_TOOL.name, result.text, change)

    return memo
