"""ctxmgr's tools as LlamaIndex ``FunctionTool`` s, bound to one :class:`ContextMemory`.

* ``context_reload`` gives back the originals behind an offload tag, within the
  room the prompt leaves before the trigger; a longer range comes back in pages of
  the size its first page had, each saying how to ask for the next.
* ``context_search`` finds the lines that match a query in everything the memory
  hid from the model (offloaded ranges, memos, archived results), newest first,
  each with the uuid and page a ``context_reload`` gives it back on.
* ``message_archiving`` hides tool results the model no longer needs behind a
  placeholder (the originals stay, and can be unarchived). It sees this run's
  results too: it reads the agent's scratchpad through the workflow ``Context``
  LlamaIndex passes to tools that ask for one.
* ``memo`` writes, reads, lists and deletes notes in the memory's store; after a
  write, the model is shown the call's ``content`` argument as a short placeholder
  (the memo holds the text; the history keeps the call as it was).

Archiving and memos are off unless switched on (``ContextMemory.from_defaults(
message_archiving=True, memo=True)`` or ``CTXMGR_MESSAGE_ARCHIVING`` /
``CTXMGR_MEMO`` in the environment or ``.env``). Each call goes to the core session
engine, which answers with a tool result (a bad call gets a clear one, never an
exception that ends the run) and a change to the memory's session state.
"""

# No ``from __future__ import annotations`` here: LlamaIndex recognises the ``Context``
# parameter of a tool function by its annotation object, not by a string.

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ctxmgr import Message, Store, ToolSpec
from ctxmgr.session import TOOLS_NAMING_CALLS, Scope, SessionEngine

try:
    from llama_index.core.bridge.pydantic import BaseModel, ConfigDict, create_model
    from llama_index.core.tools import FunctionTool, ToolMetadata
    from llama_index.core.workflow import Context
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["SCRATCHPAD_KEY", "BoundMemory", "bound_memory", "context_tools", "schema_model"]

SCRATCHPAD_KEY = "scratchpad"
"""Where ``FunctionAgent`` keeps the run's tool calls and results in ``ctx.store``."""
_BOUND = "_ctxmgr_memory"
"""The attribute of each tool :func:`context_tools` makes that holds the memory it serves."""


def schema_model(name: str, parameters: Mapping[str, Any]) -> type[BaseModel]:
    """A pydantic model LlamaIndex reads a tool's schema from, announcing ``parameters``
    exactly (ctxmgr's tools are described once, in the core's ``ToolSpec``)."""
    fields: dict[str, Any] = {p: (Any, None) for p in parameters.get("properties", {})}
    base: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="allow"), **fields)
    schema = json.loads(json.dumps(parameters))

    class Announced(base):  # type: ignore[valid-type,misc]
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return json.loads(json.dumps(schema))

    Announced.__name__ = name
    return Announced


@dataclass
class _SpecMetadata(ToolMetadata):
    """A tool's metadata that announces the core's JSON schema as it is: LlamaIndex's own
    keeps only some keys of a schema (``additionalProperties`` is dropped), and the model
    is to see the same tool in every framework."""

    parameters: dict[str, Any] = field(default_factory=dict)

    def get_parameters_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.parameters))


def _metadata(spec: ToolSpec) -> ToolMetadata:
    function = spec.to_openai()["function"]
    return _SpecMetadata(name=spec.name, description=function["description"],
                         fn_schema=schema_model(spec.name, function["parameters"]),
                         parameters=function["parameters"])


class BoundMemory(Protocol):
    """What the tools and the observer need of the memory they serve (a
    :class:`~ctxmgr_llamaindex.ContextMemory`; a protocol, so neither imports it)."""

    session_state: dict[str, Any]

    @property
    def engine(self) -> SessionEngine: ...

    @property
    def store(self) -> Store: ...

    @property
    def session(self) -> str: ...

    @property
    def scope(self) -> Scope: ...

    def history(self) -> list[Message]: ...

    def run_history(self, scratchpad: Sequence[Any]) -> list[Message]: ...

    def apply(self, update: Mapping[str, Any]) -> None: ...


def context_tools(memory: BoundMemory) -> list[FunctionTool]:
    """The tools ``memory``'s engine offers, bound to it."""
    tools = [_tool(memory, spec) for spec in memory.engine.tool_specs]
    for tool in tools:
        setattr(tool, _BOUND, memory)
    return tools


def bound_memory(tool: Any) -> BoundMemory | None:
    """The memory a tool of :func:`context_tools` serves (``None`` for any other tool)."""
    memory = getattr(tool, _BOUND, None)
    return memory if memory is not None else None


def _given(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def _answered(memory: BoundMemory, name: str, given: Mapping[str, Any],
              history: list[Message]) -> str:
    """The engine's answer to one call (it validates the arguments), its state change
    kept in the memory."""
    answer = memory.engine.answer(name, _given(given), history, memory.session_state,
                                  store=memory.store, session=memory.scope)
    if answer.update:
        memory.apply(answer.update)
    return answer.text


def _tool(memory: BoundMemory, spec: ToolSpec) -> FunctionTool:
    """``spec`` as a ``FunctionTool`` announcing the core's schema as it is. A tool whose
    calls name the run's tool calls reads the run's scratchpad through the workflow
    ``Context`` (LlamaIndex passes it to a tool that asks for one); LlamaIndex gives a
    tool no call id, so a memo write is found by its arguments."""
    if spec.name in TOOLS_NAMING_CALLS:
        async def run_tool(ctx: Context, **given: Any) -> str:
            scratchpad = await ctx.store.get(SCRATCHPAD_KEY, default=[])
            history = memory.run_history(scratchpad if isinstance(scratchpad, list) else [])
            return _answered(memory, spec.name, given, history)

        return FunctionTool.from_defaults(async_fn=run_tool, tool_metadata=_metadata(spec))

    def tool(**given: Any) -> str:
        return _answered(memory, spec.name, given, memory.history())

    return FunctionTool.from_defaults(fn=tool, tool_metadata=_metadata(spec))
