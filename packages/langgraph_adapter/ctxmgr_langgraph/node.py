"""``ContextState`` and ``ContextNode``: ctxmgr in a hand-built ``StateGraph``.

Example::

    from langgraph.graph import START, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from ctxmgr_langgraph import ContextNode, ContextState

    context = ContextNode(AutoContextConfig(max_tokens=32_000), system_prompt=PROMPT,
                          tools=tools)

    def call_model(state: ContextState) -> dict:
        prompt = [("system", PROMPT), *state["llm_input_messages"]]
        return {"messages": [model.bind_tools([*tools, *context.tools]).invoke(prompt)]}

    graph = StateGraph(ContextState)
    graph.add_node("context", context)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode([*tools, *context.tools]))
    graph.add_edge(START, "context")
    graph.add_edge("context", "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "context")

``ContextState`` is ``MessagesState`` plus ctxmgr's JSON dict (with its reducer)
and ``llm_input_messages``, the prompt the node writes on every call for the
model node to send.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from ctxmgr_langgraph.hook import ContextHook
from ctxmgr_langgraph.state import merge_context_state

try:
    from langchain_core.messages import AnyMessage
    from langgraph.graph import MessagesState
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["ContextNode", "ContextState"]


class ContextState(MessagesState):
    """``MessagesState`` with ctxmgr's state and the prompt for the model node."""

    ctxmgr: NotRequired[Annotated[dict[str, Any], merge_context_state]]
    llm_input_messages: NotRequired[list[AnyMessage]]


class ContextNode(ContextHook):
    """The node to run before the model node; the same work as :class:`ContextHook`.

    Its update holds ``llm_input_messages`` (the prompt: send it as it is), the
    compressions for ``messages`` and ctxmgr's state changes.
    """

    def __init__(self, *args: Any, name: str = "ctxmgr_context", **kwargs: Any) -> None:
        super().__init__(*args, name=name, **kwargs)
