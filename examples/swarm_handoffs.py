"""ctxmgr in a langgraph-swarm: each member compresses in its own session, handoffs stay
verbatim. Runs offline.

A ``triage`` member hands a bug report to a ``coder`` member, which replays a real recorded
coding run (bundled with ctxmgr: 116 model calls, the tools returning the recorded
outputs); only the models are scripted. One ``ContextMiddleware`` serves both: each call
is compressed in the session of the member making it.

    python examples/swarm_handoffs.py
"""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph_swarm import create_handoff_tool, create_swarm

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr_langgraph import ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

WINDOW = 16_000


def main() -> None:
    run = RecordedRun.from_messages(RecordedRun.bundled_messages())
    context = ContextMiddleware(AutoContextConfig(max_tokens=WINDOW))
    triage_model = ScriptedChatModel(messages=iter([AIMessage(content="", tool_calls=[
        {"name": "transfer_to_coder", "args": {}, "id": "handoff-1"}])]))
    coder_model = run.model()
    triage = create_agent(triage_model, [create_handoff_tool(agent_name="coder")],
                          name="triage", middleware=[context],
                          system_prompt="Hand code changes to the coder.")
    coder = create_agent(coder_model, [*run.tools(), create_handoff_tool(agent_name="triage")],
                         name="coder", middleware=[context], system_prompt=run.system_prompt)
    swarm = create_swarm([triage, coder], default_active_agent="triage")
    app = swarm.compile(checkpointer=InMemorySaver(), store=InMemoryStore())
    task = run.inputs()[0].text
    result = app.invoke({"messages": [{"role": "user", "content": task}]},
                        {"configurable": {"thread_id": "ticket-9"}, "recursion_limit": 1_000})

    counter = context.sessions.engine.counter
    largest = max(counter.count_messages(from_langchain(p)) for p in coder_model.received)
    print(f"coder: {len(coder_model.received)} model calls, largest prompt {largest:,} tokens "
          f"(window {WINDOW:,})")
    handoff = [m for p in coder_model.received[-1:] for m in p
               if isinstance(m, AIMessage) and m.name == "triage"]
    print(f"the triage member's handoff is still in the coder's last prompt, by name: "
          f"{bool(handoff)}")
    shared = from_langchain(result["messages"])
    print(f"the swarm's shared list: {len(shared)} messages, tool pairing valid: "
          f"{validate_pairing(shared) == []}")
    sessions = [context.sessions.engine.scope("ticket-9", n).session for n in ("triage", "coder")]
    print(f"member sessions: {sessions}")
    print(f"final answer: {result['messages'][-1].content}")


if __name__ == "__main__":
    main()
