"""ctxmgr in a deep agent: in place of deepagents' summarization, each subagent in its own
session. Runs offline.

The deep agent hands a coding task to a ``coder`` subagent, which replays a real
recorded coding run (bundled with ctxmgr: 116 model calls, the tools returning the
recorded outputs); only the models are scripted. ``ContextMiddleware(...,
name="SummarizationMiddleware")`` takes the place of deepagents' own summarization in the
main agent and in every subagent given it.

    python examples/deepagents_subagents.py
"""

from __future__ import annotations

from deepagents import create_deep_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from ctxmgr import AutoContextConfig, CompressionEvent
from ctxmgr_langgraph import ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

WINDOW = 16_000


def main() -> None:
    run = RecordedRun.from_messages(RecordedRun.bundled_messages())
    task = run.inputs()[0].text  # the recorded user task, handed to the subagent
    events: list[CompressionEvent] = []
    context = ContextMiddleware(AutoContextConfig(max_tokens=WINDOW), on_event=events.append,
                                name="SummarizationMiddleware")  # deepagents' slot

    coder_model = run.model()  # answers as the recorded coding agent did
    lead_model = ScriptedChatModel(messages=iter([
        AIMessage(content="", id="lead-1", tool_calls=[{
            "name": "task", "id": "task-1",
            "args": {"description": task, "subagent_type": "coder"}}]),
        "The coder fixed the bug; its report is above."]))
    coder = {"name": "coder", "description": "Fixes bugs in a code base.",
             "system_prompt": run.system_prompt or "You fix bugs.", "model": coder_model,
             "tools": run.tools(), "middleware": [context]}
    agent = create_deep_agent(lead_model, [], subagents=[coder], middleware=[context],
                              checkpointer=InMemorySaver(), store=InMemoryStore())
    result = agent.invoke({"messages": [{"role": "user", "content": "Fix the reported bug."}]},
                          {"configurable": {"thread_id": "ticket-42"}, "recursion_limit": 1_000})

    counter = context.sessions.engine.counter
    largest = max(counter.count_messages(from_langchain(p)) for p in coder_model.received)
    coder_session = context.sessions.engine.scope("ticket-42", "coder").session
    print(f"coder: {len(coder_model.received)} model calls, largest prompt "
          f"{largest:,} tokens (window {WINDOW:,})")
    print(f"compressions: {sum(e.status == 'applied' for e in events)}, in the coder's own "
          f"session {coder_session!r}")
    report = result["messages"][-2]  # the task's result, all the lead agent sees of it
    print(f"the lead agent holds {len(result['messages'])} messages; the coder's report: "
          f"{str(report.content)[:60]!r}")
    print(f"final answer: {result['messages'][-1].content}")


if __name__ == "__main__":
    main()
