"""ctxmgr in LangGraph's ``create_react_agent``: the pre-model hook. Runs offline.

``ContextHook`` is the ``pre_model_hook`` and ``ContextAgentState`` the state
schema; add ``hook.tools`` (``context_reload``) to the agent's tools. A scripted
model replays a real recorded coding-agent run (bundled with ctxmgr) and the tools
return the recorded outputs.

    python examples/langgraph_react_hook.py
"""

from __future__ import annotations

import warnings

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.store.memory import InMemoryStore

from ctxmgr import CompressionEvent, default_counter
from ctxmgr_langgraph import ContextAgentState, ContextHook, from_langchain
from ctxmgr_langgraph.testing import RecordedRun

BUDGET = 16_000


def main() -> None:
    recorded = RecordedRun.bundled_messages()  # a real run; or your own, from_openai(...)
    run = RecordedRun.from_messages(recorded)
    model, tools, prompt = run.model(), run.tools(), run.system_prompt

    events: list[CompressionEvent] = []
    hook = ContextHook(max_tokens=BUDGET, system_prompt=prompt, tools=tools,
                       on_event=events.append)
    with warnings.catch_warnings():  # create_react_agent is deprecated since LangGraph 1.0
        warnings.simplefilter("ignore", DeprecationWarning)
        agent = create_react_agent(model, [*tools, *hook.tools], prompt=prompt,
                                   pre_model_hook=hook, state_schema=ContextAgentState,
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
