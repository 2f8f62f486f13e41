"""End to end: a recorded SWE run replayed through real LangGraph agents with ctxmgr inside.

The same run goes through ``create_agent`` + ``ContextMiddleware``,
``create_react_agent`` + ``ContextHook`` and a hand-built ``StateGraph`` +
``ContextNode``, each with a real checkpointer; only the chat model is scripted
(it answers as the recorded assistant did; the tools return the recorded
outputs). On every model call the checker sees the prompt as the provider would:
valid pairing, under budget counting system prompt, tools and reserve, the
previous prompt a byte-identical prefix unless a compression happened, and every
message that left the prompt reloadable exactly.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph_agents import (
    RECURSION,
    STYLES,
    Agent,
    CallChecker,
    build,
    reachable_originals,
    reloader,
)

from ctxmgr import AutoContextConfig, Message, TokenCounter, default_counter
from ctxmgr.messages import message_to_dict
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph import CONTEXT_KEY, ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import RecordedRun

MAX_TOKENS = 10_000
RESERVE = 500
CONFIG = AutoContextConfig(max_tokens=MAX_TOKENS)


@pytest.fixture(scope="module")
def run(swe_trajectories: list[Trajectory]) -> RecordedRun:
    """django-11099: 42 model calls, about 19k tokens in all."""
    trajectory = next(t for t in swe_trajectories if "django-11099" in t.id)
    return RecordedRun.from_messages(trajectory.messages)


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return default_counter()


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}, **RECURSION}


def checker_for(counter: TokenCounter) -> CallChecker:
    return CallChecker(counter=counter, max_tokens=MAX_TOKENS, reserve=RESERVE)


def agent_with_checks(style: str, run: RecordedRun, counter: TokenCounter, name: str,
                      **kwargs: Any) -> tuple[Agent, CallChecker]:
    checker = checker_for(counter)
    agent = build(style, run, config=CONFIG, checker=checker, reserve_output_tokens=RESERVE,
                  **kwargs)
    checker.reload = reloader(agent, name, kwargs.get("store"))
    return agent, checker


def every_version(agent: Agent, config: dict[str, Any]) -> dict[str, BaseMessage]:
    """The first version of every message the messages channel ever held."""
    first: dict[str, BaseMessage] = {}
    for snapshot in reversed(list(agent.graph.get_state_history(config))):
        for m in snapshot.values.get("messages", []):
            first.setdefault(m.id, m)
    return first


def assert_nothing_lost(agent: Agent, config: dict[str, Any], name: str) -> int:
    """Every message that was ever in the state is in it now, or reloadable exactly."""
    state = agent.graph.get_state(config).values
    now = {m.id: m for m in state["messages"]}
    view = from_langchain(state["messages"])
    reachable = {json.dumps(message_to_dict(m), sort_keys=True)
                 for m in reachable_originals(view, reloader(agent, name))}
    offloaded = 0
    for mid, original in every_version(agent, config).items():
        if mid in now and now[mid] == original:
            continue
        [as_neutral] = from_langchain([original])
        assert json.dumps(message_to_dict(as_neutral), sort_keys=True) in reachable, mid
        offloaded += 1
    return offloaded


def assert_json_native(value: Any) -> None:
    assert json.loads(json.dumps(value)) == value


# --- the three integrations, sync, in memory -------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_a_recorded_run_stays_in_budget_with_a_stable_prefix_and_loses_nothing(
        style: str, run: RecordedRun, counter: TokenCounter,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    agent, checker = agent_with_checks(style, run, counter, "t1",
                                       checkpointer=InMemorySaver())
    result = agent.graph.invoke(agent.inputs(run), thread("t1"))

    assert checker.calls == len(run.answers) + 1  # every recorded answer, then the end
    assert len(checker.applied()) >= 3
    assert checker.peak <= MAX_TOKENS
    assert checker.stable_calls >= checker.calls - 2 * len(checker.applied()) - 1
    assert checker.recovered > 0
    assert len(result["messages"]) < 2 * len(run.answers)  # the compressions persisted
    assert assert_nothing_lost(agent, thread("t1"), "t1") > 0
    context = agent.graph.get_state(thread("t1")).values[CONTEXT_KEY]
    assert_json_native(context)
    assert context["compression"]["stand_ins"]
    assert "unregistered type" not in caplog.text


def test_the_compressed_prefix_is_the_state_itself(run: RecordedRun,
                                                   counter: TokenCounter) -> None:
    """The prompt's messages are the very objects of the persisted view (no copy
    re-rendered each turn), so its bytes cannot drift between calls."""
    agent, checker = agent_with_checks("create_agent", run, counter, "t1",
                                       checkpointer=InMemorySaver())
    agent.graph.invoke(agent.inputs(run), thread("t1"))
    state = agent.graph.get_state(thread("t1")).values["messages"]
    last = agent.model.received[-1]
    sent = [m for m in last if m.type != "system"]
    assert [m.id for m in sent] == [m.id for m in state[:len(sent)]]
    assert all(a == b for a, b in zip(sent, state, strict=False))


# --- sync and async, invoke and stream --------------------------------------------------


async def _astream(agent: Agent, inputs: dict[str, Any], config: dict[str, Any]) -> None:
    async for _ in agent.graph.astream(inputs, config, stream_mode="updates"):
        pass


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("mode", ["stream", "ainvoke", "astream"])
def test_streaming_and_async_runs_hold_the_same_checks(
        style: str, mode: str, run: RecordedRun, counter: TokenCounter) -> None:
    agent, checker = agent_with_checks(style, run, counter, "t1",
                                       checkpointer=InMemorySaver())
    inputs, config = agent.inputs(run), thread("t1")
    if mode == "stream":
        for _ in agent.graph.stream(inputs, config, stream_mode="updates"):
            pass
    elif mode == "ainvoke":
        asyncio.run(agent.graph.ainvoke(inputs, config))
    else:
        asyncio.run(_astream(agent, inputs, config))
    assert checker.calls == len(run.answers) + 1
    assert len(checker.applied()) >= 3 and checker.peak <= MAX_TOKENS
    assert_nothing_lost(agent, config, "t1")


# --- a worker stops, another restores the checkpoint and goes on ---------------------


class Crash(Exception):
    """The worker dies in the middle of a model call."""


@pytest.mark.parametrize("style", STYLES)
def test_a_run_stopped_mid_way_continues_from_a_sqlite_checkpoint(
        style: str, run: RecordedRun, counter: TokenCounter, tmp_path: Path) -> None:
    database = str(tmp_path / "checkpoints.sqlite")
    crash_at = 30
    answers = run.answer_messages()

    with SqliteSaver.from_conn_string(database) as saver:
        first, checker = agent_with_checks(style, run, counter, "w", checkpointer=saver)

        def dies(prompt: list[BaseMessage]) -> None:
            checker(prompt)
            if checker.calls == crash_at:
                raise Crash

        first.model.on_call = dies
        with pytest.raises(Crash):
            first.graph.invoke(first.inputs(run), thread("w"))
        assert len(checker.applied()) >= 2
        before = first.graph.get_state(thread("w")).values

    # a new process: new agent, new caches, new connection to the same file
    with SqliteSaver.from_conn_string(database) as saver:
        second, checker2 = agent_with_checks(style, run, counter, "w", checkpointer=saver,
                                             answers=answers[crash_at - 1:])
        restored = second.graph.get_state(thread("w")).values
        assert restored[CONTEXT_KEY] == before[CONTEXT_KEY]
        assert_json_native(restored[CONTEXT_KEY])
        ids = [m.id for m in restored["messages"]]
        assert ids == [m.id for m in before["messages"]]
        reload = reloader(second, "w")
        assert reachable_originals(from_langchain(restored["messages"]), reload)

        result = second.graph.invoke(None, thread("w"))
        assert result["messages"][-1].content == second.model.final_answer
        assert checker2.calls == len(answers) - crash_at + 2
        assert checker2.peak <= MAX_TOKENS
        assert_nothing_lost(second, thread("w"), "w")


def test_two_threads_keep_their_offloads_apart(run: RecordedRun, counter: TokenCounter
                                               ) -> None:
    agent, _ = agent_with_checks("create_agent", run, counter, "a",
                                 checkpointer=InMemorySaver())
    agent.graph.invoke(agent.inputs(run), thread("a"))
    view = from_langchain(agent.graph.get_state(thread("a")).values["messages"])
    own: list[Message] = reachable_originals(view, reloader(agent, "a"))
    assert own
    with pytest.raises(KeyError):
        reachable_originals(view, reloader(agent, "b"))


@pytest.mark.parametrize("style", ["react_hook", "state_graph"])
def test_the_hook_hands_the_model_a_fresh_prompt_on_every_call(
        style: str, run: RecordedRun, counter: TokenCounter) -> None:
    """``llm_input_messages`` has no reducer and stays in the checkpoint: the hook writes
    it, non-empty, on every call, so the model never gets an earlier call's view."""
    agent, checker = agent_with_checks(style, run, counter, "t1",
                                       checkpointer=InMemorySaver())
    node = "pre_model_hook" if style == "react_hook" else "context"
    written = [update[node]["llm_input_messages"]
               for update in agent.graph.stream(agent.inputs(run), thread("t1"),
                                                stream_mode="updates")
               if node in update]
    assert len(written) == checker.calls == len(agent.model.received)
    for prompt, received in zip(written, agent.model.received, strict=True):
        assert prompt
        assert [m.id for m in received if m.type != "system"] == [
            m.id for m in prompt if m.type != "system"]


def test_a_request_rewritten_by_an_outer_middleware_is_compressed_view_only(
        run: RecordedRun, counter: TokenCounter, caplog: pytest.LogCaptureFixture) -> None:
    """Edits naming messages the state lacks are not persisted (``add_messages`` would
    raise on them); the model still gets a compressed, well-paired prompt."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import ToolMessage

    class Copies(AgentMiddleware):
        """Hands on copies of the tool results under new ids."""

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            messages = [m.model_copy(update={"id": f"{m.id}-copy"})
                        if isinstance(m, ToolMessage) else m for m in request.messages]
            return handler(request.override(messages=messages))

    caplog.set_level(logging.WARNING, logger="ctxmgr_langgraph")
    checker = checker_for(counter)
    model = run.model(on_call=checker)
    checker.model = model
    context = ContextMiddleware(CONFIG.evolve(reserve_output_tokens=RESERVE),
                                on_event=checker.on_event)
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[Copies(), context], checkpointer=InMemorySaver())
    checker.reload = reloader(Agent(agent, model, context.sessions, context, "create_agent"),
                              "t1")
    agent.invoke({"messages": run.inputs()}, thread("t1"))
    assert len(checker.applied()) >= 3 and checker.peak <= MAX_TOKENS
    assert "kept view-only" in caplog.text
    state = agent.get_state(thread("t1")).values["messages"]
    assert sum(isinstance(m, ToolMessage) for m in state) == len(run.answers)


# --- the graph's own store -------------------------------------------------------------


def test_offloads_go_to_the_graphs_store_sync(run: RecordedRun, counter: TokenCounter) -> None:
    from langgraph.store.memory import InMemoryStore as GraphStore

    store = GraphStore()
    agent, checker = agent_with_checks("create_agent", run, counter, "t1",
                                       checkpointer=InMemorySaver(), store=store)
    agent.graph.invoke(agent.inputs(run), thread("t1"))
    project = agent.sessions.engine.project
    keys = [i.key for i in store.search(("ctxmgr", project, "offload", "t1"), limit=1000)]
    assert len(keys) >= len({e.offload_id for e in checker.applied()}) > 0
    assert checker.recovered > 0  # reloaded from that store, through the agent's engine


def test_an_async_only_store_serves_an_async_run_from_its_own_loop(
        run: RecordedRun, counter: TokenCounter, tmp_path: Path) -> None:
    """AsyncSqliteStore has no sync methods: ctxmgr's sync store calls run in a worker
    thread and are handed to the store's loop, so ``ainvoke`` neither blocks nor fails."""
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    async def main() -> tuple[int, int]:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "store.db")) as store:
            await store.setup()
            agent, checker = agent_with_checks("create_agent", run, counter, "t1",
                                               checkpointer=InMemorySaver(), store=store,
                                               memo=True)
            await agent.graph.ainvoke(agent.inputs(run), thread("t1"))
            items = await store.asearch(("ctxmgr", agent.sessions.engine.project, "offload", "t1"),
                                        limit=1000)
            return len(items), len(checker.applied())

    stored, applied = asyncio.run(main())
    assert stored > 0 and applied >= 3
