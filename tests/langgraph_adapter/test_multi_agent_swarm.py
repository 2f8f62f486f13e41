"""langgraph-swarm: three create_agent members hand off round-robin for 300 model calls at
an 8k window, each compressing in its own session; routing reads names off the prompt."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph_swarm import create_handoff_tool, create_swarm
from multi_agent_runs import WINDOW, RunLog, cross_reads, file_text, least_recent, tool_tokens

from ctxmgr import AutoContextConfig, Tuning, validate_pairing
from ctxmgr.autocontext import ContextProcessor
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

TEAM = ["alice", "bob", "carol"]
THREAD = {"configurable": {"thread_id": "swarm-1"}, "recursion_limit": 100_000}


@tool
def read(path: str) -> str:
    """Read a file."""
    return file_text(path)


def handed_by(m: Any) -> str | None:
    """The agent whose message hands off (a transfer call, named by create_agent)."""
    if isinstance(m, AIMessage) and any(c["name"].startswith("transfer_to_")
                                        for c in m.tool_calls):
        return m.name
    return None


class Member:
    """One member's scripted model: ``per_turn`` reads, then a handoff to the member the
    prompt shows has handed off least; after ``turns`` handoffs in all, a final answer."""

    def __init__(self, name: str, log: RunLog, route: list[str], *, per_turn: int,
                 turns: int) -> None:
        self.name, self.log, self.route = name, log, route
        self.per_turn, self.turns, self.done = per_turn, turns, 0
        self.ids = itertools.count()
        self.model = ScriptedChatModel(messages=self._answers(), on_call=self._check)

    def _check(self, prompt: list[BaseMessage]) -> None:
        neutral = from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                                  for i, m in enumerate(prompt)])
        schemas = [convert_to_openai_tool(t) for t in self.model.bound_tools]
        self.log.check(neutral, tool_tokens(self.log.counter, schemas))

    def _answers(self) -> Iterator[Callable[[list[BaseMessage]], AIMessage]]:
        while True:
            for _ in range(self.per_turn):
                yield self._read
            yield self._hand_off

    def _read(self, prompt: list[BaseMessage]) -> AIMessage:
        k = next(self.ids)
        return AIMessage(content="", id=f"{self.name}-{k}", tool_calls=[
            {"name": "read", "args": {"path": f"{self.name}/file_{k}.py"},
             "id": f"{self.name}-read-{k}"}])

    def _hand_off(self, prompt: list[BaseMessage]) -> AIMessage:
        k = next(self.ids)
        if len(self.route) >= self.turns:
            return AIMessage(content="The team is done.", id=f"{self.name}-{k}")
        to = least_recent(TEAM, handed_by, prompt, exclude=self.name)
        self.route.append(to)
        return AIMessage(content="", id=f"{self.name}-{k}", tool_calls=[
            {"name": f"transfer_to_{to}", "args": {}, "id": f"{self.name}-handoff-{k}"}])


def run_swarm(config: AutoContextConfig, *, per_turn: int = 10, turns: int = 28,
              monkeypatch: pytest.MonkeyPatch | None = None
              ) -> tuple[RunLog, list[str], Any, ContextMiddleware, InMemoryStore, int]:
    middleware = ContextMiddleware(config)
    log = RunLog(counter=middleware.sessions.engine.counter,
                 budget=middleware.config.budget_tokens)
    middleware.sessions.engine.on_event = log.on_event
    passes: list[int] = []
    if monkeypatch is not None:
        original = ContextProcessor.process

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            passes.append(1)
            return original(self, *args, **kwargs)

        monkeypatch.setattr(ContextProcessor, "process", counted)
    route: list[str] = ["alice"]
    members = {n: Member(n, log, route, per_turn=per_turn, turns=turns) for n in TEAM}
    agents = [create_agent(members[n].model,
                           [read, *(create_handoff_tool(agent_name=o) for o in TEAM if o != n)],
                           name=n, middleware=[middleware]) for n in TEAM]
    store = InMemoryStore()
    app = create_swarm(agents, default_active_agent="alice").compile(
        checkpointer=InMemorySaver(), store=store)
    final = app.invoke({"messages": [{"role": "user", "content": "Read the code base."}]},
                       THREAD)
    return log, route, final, middleware, store, len(passes)


def test_a_300_call_swarm_at_8k_stays_in_budget_and_routes_by_name_after_20_compressions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = AutoContextConfig(max_tokens=WINDOW)
    log, route, final, middleware, store, passes = run_swarm(config, monkeypatch=monkeypatch)

    assert log.calls >= 300 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20
    assert route == [TEAM[k % 3] for k in range(len(route))]  # round-robin, read by name
    assert passes == log.calls  # one compression pass per model call
    # the shared message list stays the framework's, whole and valid
    assert validate_pairing(from_langchain(final["messages"])) == []
    engine = middleware.sessions.engine
    scopes = [engine.scope("swarm-1", n) for n in TEAM]
    offloads, leaks = cross_reads(engine, middleware.sessions.store_for(store), scopes)
    assert offloads > 0 and leaks == 0


def test_without_the_handoff_pins_the_same_swarm_loses_who_handed_to_whom() -> None:
    config = AutoContextConfig(max_tokens=WINDOW, tuning=Tuning(handoff_tools=frozenset()))
    _, route, *_ = run_swarm(config)
    assert route != [TEAM[k % 3] for k in range(len(route))]
