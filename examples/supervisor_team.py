"""ctxmgr in a langgraph-supervisor team: each specialist in its own session, the supervisor
kept in budget too. Runs offline.

A ``coder`` specialist replays a real recorded coding run (bundled with ctxmgr: 116 model
calls, the tools returning the recorded outputs) and a ``reviewer`` answers in one line;
only the models are scripted. The supervisor reads who has reported off the names in its
prompt (``output_mode="full_history"``: it receives every step of the coder's run), so its
own prompt is kept in budget by a ``ContextHook``.

    python examples/supervisor_team.py
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph_supervisor import create_supervisor
from langgraph_supervisor.handoff import create_handoff_tool

from ctxmgr import AutoContextConfig
from ctxmgr_langgraph import ContextAgentState, ContextHook, ContextMiddleware, from_langchain
from ctxmgr_langgraph.testing import RecordedRun, ScriptedChatModel

WINDOW = 16_000
TEAM = ("coder", "reviewer")


def reported(prompt: Sequence[BaseMessage]) -> set[str]:
    """The specialists whose report is in the prompt: a message named after them that
    hands control back to the supervisor (langgraph-supervisor adds one per report)."""
    return {m.name for m in prompt if isinstance(m, AIMessage) and m.name and any(
        c["name"] == "transfer_back_to_supervisor" for c in m.tool_calls)}


def route(prompt: list[BaseMessage]) -> AIMessage:
    """The supervisor's scripted model: the first specialist that has not reported."""
    waiting = [name for name in TEAM if name not in reported(prompt)]
    if not waiting:
        return AIMessage(content="The bug is fixed and reviewed.")
    return AIMessage(content="", tool_calls=[{"name": f"transfer_to_{waiting[0]}", "args": {},
                                              "id": f"route-{waiting[0]}"}])


class _RemainingSteps(logging.Filter):
    """create_supervisor gives the graph around the supervisor the supervisor's state
    schema, where ``remaining_steps`` is a managed value: LangGraph ignores the supervisor's
    write of it, harmlessly, and logs so at every step."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "unknown channel remaining_steps" not in record.getMessage()


def main() -> None:
    logging.getLogger("langgraph").addFilter(_RemainingSteps())
    run = RecordedRun.from_messages(RecordedRun.bundled_messages())
    config = AutoContextConfig(max_tokens=WINDOW)
    context = ContextMiddleware(config)  # one instance: each specialist gets its session
    coder_model = run.model()
    coder = create_agent(coder_model, run.tools(), name="coder", middleware=[context],
                         system_prompt=run.system_prompt)
    reviewer = create_agent(ScriptedChatModel(messages=iter(["Reviewed: the fix is sound."])),
                            [], name="reviewer", middleware=[context])
    supervisor_model = ScriptedChatModel(messages=iter([route] * 3))
    hook = ContextHook(config, tools=[create_handoff_tool(agent_name=n) for n in TEAM])
    with warnings.catch_warnings():  # langgraph-supervisor builds on create_react_agent
        warnings.simplefilter("ignore", DeprecationWarning)
        team = create_supervisor([coder, reviewer], model=supervisor_model,
                                 output_mode="full_history", pre_model_hook=hook,
                                 state_schema=ContextAgentState,
                                 prompt="Hand the task to the coder, then to the reviewer.")
    app = team.compile(checkpointer=InMemorySaver(), store=InMemoryStore())
    task = run.inputs()[0].text
    result = app.invoke({"messages": [{"role": "user", "content": task}]},
                        {"configurable": {"thread_id": "ticket-7"}, "recursion_limit": 1_000})

    counter = context.sessions.engine.counter
    for name, model in (("coder", coder_model), ("supervisor", supervisor_model)):
        largest = max(counter.count_messages(from_langchain(p)) for p in model.received)
        print(f"{name}: {len(model.received)} model calls, largest prompt {largest:,} tokens "
              f"(window {WINDOW:,})")
    print(f"the supervisor routed by the names in its prompt: reported "
          f"{sorted(reported(result['messages']))}")
    sessions = [context.sessions.engine.scope("ticket-7", n).session for n in TEAM]
    print(f"specialist sessions: {sessions}")
    print(f"final answer: {result['messages'][-1].content}")


if __name__ == "__main__":
    main()
