"""langgraph-supervisor: a supervisor routes between two create_agent specialists for 300
model calls at an 8k window, in both output modes; it reads who reported off the names
in its prompt, and keeps its own prompt in budget with a ContextHook."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.warnings import LangGraphDeprecatedSinceV10
from langgraph_supervisor import create_supervisor
from langgraph_supervisor.handoff import create_handoff_tool
from multi_agent_runs import WINDOW, RunLog, cross_reads, file_text, least_recent, tool_tokens

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr_langgraph import ContextAgentState, ContextHook, ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

TEAM = ["researcher", "analyst"]


@tool
def read(path: str) -> str:
    """Read a file."""
    return file_text(path)


def reported_by(m: Any) -> str | None:
    """The specialist a handoff-back message names (it returns control to the supervisor)."""
    if isinstance(m, AIMessage) and any(c["name"] == "transfer_back_to_supervisor"
                                        for c in m.tool_calls):
        return m.name
    return None


def checked(log: RunLog, model: ScriptedChatModel) -> Callable[[list[BaseMessage]], None]:
    def check(prompt: list[BaseMessage]) -> None:
        neutral = from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                                  for i, m in enumerate(prompt)])
        schemas = [convert_to_openai_tool(t) for t in model.bound_tools]
        log.check(neutral, tool_tokens(log.counter, schemas))
    return check


def specialist(name: str, per_task: int) -> Iterator[Callable[[list[BaseMessage]], AIMessage]]:
    ids = itertools.count()
    while True:
        for _ in range(per_task):
            def read_next(prompt: list[BaseMessage], k: int = next(ids)) -> AIMessage:
                return AIMessage(content="", id=f"{name}-{k}", tool_calls=[
                    {"name": "read", "args": {"path": f"{name}/file_{k}.py"},
                     "id": f"{name}-read-{k}"}])
            yield read_next
        k = next(ids)
        yield lambda prompt, k=k: AIMessage(content=f"{name} finished task {k}.",
                                            id=f"{name}-{k}")


def supervisor(route: list[str], tasks: int) -> Iterator[Callable[[list[BaseMessage]],
                                                                  AIMessage]]:
    for k in itertools.count():
        def decide(prompt: list[BaseMessage], k: int = k) -> AIMessage:
            if len(route) >= tasks:
                return AIMessage(content="Everything is done.", id=f"supervisor-{k}")
            to = least_recent(TEAM, reported_by, prompt)
            route.append(to)
            return AIMessage(content="", id=f"supervisor-{k}", tool_calls=[
                {"name": f"transfer_to_{to}", "args": {}, "id": f"supervisor-handoff-{k}"}])
        yield decide


def run_supervisor(output_mode: str, *, per_task: int = 10, tasks: int = 27
                   ) -> tuple[RunLog, list[str], dict[str, Any], ContextMiddleware, Any]:
    config = AutoContextConfig(max_tokens=WINDOW)
    middleware = ContextMiddleware(config)
    engine = middleware.sessions.engine
    log = RunLog(counter=engine.counter, budget=middleware.config.budget_tokens)
    engine.on_event = log.on_event
    route: list[str] = []
    specialists = []
    for name in TEAM:
        model = ScriptedChatModel(messages=specialist(name, per_task))
        model.on_call = checked(log, model)
        specialists.append(create_agent(model, [read], name=name, middleware=[middleware],
                                        system_prompt=f"You are the {name}."))
    boss = ScriptedChatModel(messages=supervisor(route, tasks))
    boss.on_call = checked(log, boss)
    hook = ContextHook(config, on_event=log.on_event,
                       tools=[create_handoff_tool(agent_name=n) for n in TEAM])
    store = InMemoryStore()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        app = create_supervisor(specialists, model=boss, output_mode=output_mode,
                                pre_model_hook=hook, state_schema=ContextAgentState,
                                prompt="Route each task to the specialist who reported least."
                                ).compile(checkpointer=InMemorySaver(), store=store)
    final = app.invoke({"messages": [{"role": "user", "content": "Study the code base."}]},
                       {"configurable": {"thread_id": "sup-1"}, "recursion_limit": 100_000})
    return log, route, final, middleware, middleware.sessions.store_for(store)


@pytest.mark.parametrize("output_mode", ["last_message", "full_history"])
def test_a_300_call_supervisor_at_8k_stays_in_budget_and_routes_by_name(
        output_mode: str) -> None:
    log, route, final, middleware, store = run_supervisor(output_mode)

    assert log.calls >= 300 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20
    assert route == [TEAM[k % 2] for k in range(len(route))]  # read off the names
    assert validate_pairing(from_langchain(final["messages"])) == []
    engine = middleware.sessions.engine
    scopes = [engine.scope("sup-1", n) for n in [*TEAM, "supervisor"]]
    offloads, leaks = cross_reads(engine, store, scopes)
    assert offloads > 0 and leaks == 0
