"""ctxmgr's tools as LlamaIndex ``FunctionTool`` s, bound to one :class:`ContextMemory`.

* ``context_reload`` gives back the originals behind an offload tag, sized to the
  room the window has left beside the latest prompt; a longer range comes back
  in pages, each saying how to ask for the next.
* ``message_archiving`` hides tool results the model no longer needs behind a
  placeholder (the originals stay, and can be unarchived). It sees this run's
  results too: it reads the agent's scratchpad through the workflow ``Context``
  LlamaIndex passes to tools that ask for one.
* ``memo`` writes, reads, lists and deletes notes in the memory's store; after a
  write, the call's ``content`` argument is replaced in the history by a short
  placeholder (the memo holds the text).

Archiving and memos are off unless switched on (``ContextMemory.from_defaults(
message_archiving=True, memo=True)`` or ``CTXMGR_MESSAGE_ARCHIVING`` /
``CTXMGR_MEMO`` in the environment or ``.env``); the tools read their inputs
with ctxmgr's own handlers, so a bad call gets a clear tool result, never an
exception that ends the run.
"""

# No ``from __future__ import annotations`` here: LlamaIndex recognises the ``Context``
# parameter of a tool function by its annotation object, not by a string.

from typing import TYPE_CHECKING, Any, Literal

from ctxmgr import ARCHIVE_TOOL, CONTEXT_RELOAD_TOOL, MEMO_TOOL, MemoStore, handle_archive_call

try:
    from llama_index.core.bridge.pydantic import BaseModel, Field
    from llama_index.core.tools import FunctionTool, ToolMetadata
    from llama_index.core.workflow import Context
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

if TYPE_CHECKING:
    from ctxmgr_llamaindex.memory import ContextMemory

__all__ = ["SCRATCHPAD_KEY", "context_tools"]

SCRATCHPAD_KEY = "scratchpad"
"""Where ``FunctionAgent`` keeps the run's tool calls and results in ``ctx.store``."""


class ReloadInput(BaseModel):
    uuid: str = Field(description="The id from the CONTEXT_OFFLOAD tag.")
    page: int = Field(default=1, ge=1, description="Which page of a long range (default 1).")


class ArchiveInput(BaseModel):
    action: Literal["archive", "unarchive"] = Field(
        description="archive: hide the results behind a placeholder; unarchive: restore them.")
    tool_use_ids: list[str] = Field(
        min_length=1, description="Ids of the tool calls whose results to archive or restore.")
    summary: str | None = Field(
        default=None, description="Optional (archive only): what the results contained that "
                                  "you may still need; shown in the placeholder.")


class MemoInput(BaseModel):
    action: Literal["write", "read", "list", "delete"] = Field(
        description="write, read, list or delete memos.")
    key: str | None = Field(
        default=None, description="The memo's name (required for write, read and delete), "
                                  "e.g. \"plan\" or \"root-cause_analysis\".")
    summary: str | None = Field(
        default=None, description="Write only: one line (1-300 characters) saying what the "
                                  "memo holds.")
    content: str | None = Field(
        default=None, description="Write only: the full text to save (Markdown).")


def context_tools(memory: "ContextMemory") -> list[FunctionTool]:
    """The tools ``memory`` is switched on for (``context_reload`` always)."""
    tools = [_reload_tool(memory)]
    if memory.message_archiving:
        tools.append(_archive_tool(memory))
    if memory.memo:
        tools.append(_memo_tool(memory))
    return tools


def _given(**kwargs: Any) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def _reload_tool(memory: "ContextMemory") -> FunctionTool:
    def context_reload(uuid: Any = None, page: Any = 1) -> str:
        return memory.processor.handle_reload_call(_given(uuid=uuid, page=page),
                                                   room_tokens=memory.reload_room())

    return FunctionTool.from_defaults(
        fn=context_reload, tool_metadata=ToolMetadata(
            name=CONTEXT_RELOAD_TOOL.name, description=CONTEXT_RELOAD_TOOL.description,
            fn_schema=ReloadInput))


def _archive_tool(memory: "ContextMemory") -> FunctionTool:
    async def message_archiving(ctx: Context, action: Any = None, tool_use_ids: Any = None,
                                summary: Any = None) -> str:
        scratchpad = await ctx.store.get(SCRATCHPAD_KEY, default=[])
        history = memory.run_history(scratchpad if isinstance(scratchpad, list) else [])
        state, text = handle_archive_call(
            history, memory.archive_state,
            _given(action=action, tool_use_ids=tool_use_ids, summary=summary),
            config=memory.auto_config)
        memory.archive = state.to_dict()
        return text

    return FunctionTool.from_defaults(
        async_fn=message_archiving, tool_metadata=ToolMetadata(
            name=ARCHIVE_TOOL.name, description=ARCHIVE_TOOL.description,
            fn_schema=ArchiveInput))


def _memo_tool(memory: "ContextMemory") -> FunctionTool:
    def memo(action: Any = None, key: Any = None, summary: Any = None,
             content: Any = None) -> str:
        memos = MemoStore(memory.store, session=memory.session_id, project=memory.project)
        result = memos.run_memo_call(_given(action=action, key=key, summary=summary,
                                            content=content))
        if result.placeholder is not None and isinstance(content, str) and result.key:
            memory.add_memo_elision(str(key), content, result.placeholder)
        return result.text

    return FunctionTool.from_defaults(
        fn=memo, tool_metadata=ToolMetadata(
            name=MEMO_TOOL.name, description=MEMO_TOOL.description, fn_schema=MemoInput))
