"""ctxmgr in LangChain's ``create_agent``: one middleware. Runs offline.

A scripted model replays a real recorded coding-agent run (bundled with ctxmgr)
and the tools return the recorded outputs; put your own chat model and tools in
their place and nothing else changes.

    python examples/langgraph_create_agent.py
"""

from __future__ import annotations

from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from ctxmgr import CompressionEvent, default_counter
from ctxmgr_langgraph import ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun

BUDGET = 16_000


def main() -> None:
    recorded = RecordedRun.bundled_messages()  # a real run; or your own, from_openai(...)
    run = RecordedRun.from_messages(recorded)
    model = run.model()  # answers as the recorded model did (tool calls included)

    events: list[CompressionEvent] = []
    agent = create_agent(
        model, run.tools(), system_prompt=run.system_prompt,
        middleware=[ContextMiddleware(max_tokens=BUDGET, on_event=events.append)],  # one line
        checkpointer=InMemorySaver(), store=InMemoryStore())

    config = {"configurable": {"thread_id": "example"}, "recursion_limit": 1_000}
    result = agent.invoke({"messages": run.inputs()}, config)

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
