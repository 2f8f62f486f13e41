"""ctxmgr in a hand-built LangGraph ``StateGraph``: a node before the model. Runs offline.

``ContextNode`` writes the prompt to send into ``state["llm_input_messages"]``;
the model node sends it. ``ContextState`` is ``MessagesState`` plus ctxmgr's own
JSON state. A scripted model replays a real recorded coding-agent run (bundled
with ctxmgr) and the tools return the recorded outputs.

    python examples/langgraph_custom_graph.py
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.memory import InMemoryStore

from ctxmgr import CompressionEvent, default_counter
from ctxmgr_langgraph import ContextNode, ContextState, from_langchain
from ctxmgr_langgraph.testing import RecordedRun

BUDGET = 16_000


def main() -> None:
    recorded = RecordedRun.bundled_messages()  # a real run; or your own, from_openai(...)
    run = RecordedRun.from_messages(recorded)
    model, tools, prompt = run.model(), run.tools(), run.system_prompt

    events: list[CompressionEvent] = []
    context = ContextNode(max_tokens=BUDGET, system_prompt=prompt,
                          tools=tools, on_event=events.append)
    all_tools = [*tools, *context.tools]
    bound = model.bind_tools(all_tools)

    def call_model(state: ContextState) -> dict[str, Any]:
        system = [("system", prompt)] if prompt else []
        return {"messages": [bound.invoke([*system, *state["llm_input_messages"]])]}

    builder = StateGraph(ContextState)
    builder.add_node("context", context)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(all_tools))
    builder.add_edge(START, "context")
    builder.add_edge("context", "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "context")
    graph = builder.compile(checkpointer=InMemorySaver(), store=InMemoryStore())

    config = {"configurable": {"thread_id": "example"}, "recursion_limit": 1_000}
    result = graph.invoke({"messages": run.inputs()}, config)

    counter = default_counter()
    largest = max(counter.count_messages(from_langchain(p)) for p in model.received)
    applied = [e for e in events if e.status == "applied"]
    print(f"recorded run: {len(recorded)} messages; model calls: {len(model.received)}")
    print(f"largest prompt sent: {largest:,} tokens (budget {BUDGET:,})")
    print(f"compressions: {len(applied)} ({', '.join(sorted({e.name for e in applied}))})")
    print(f"messages in state: {len(result['messages'])}")
    print(f"final answer: {result['messages'][-1].content}")


if __name__ == "__main__":
    main()
