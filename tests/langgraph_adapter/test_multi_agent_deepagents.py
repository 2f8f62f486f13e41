"""deepagents: a deep agent hands ten tasks to two subagents over 300 model calls at an 8k
window; ctxmgr takes the place of deepagents' summarization (or runs inside it), each
subagent compresses in its own session, and the parent sees each task's result only."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from deepagents import create_deep_agent
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from multi_agent_runs import WINDOW, RunLog, cross_reads, file_text, tool_tokens

from ctxmgr import AutoContextConfig, validate_pairing
from ctxmgr.store import Namespace
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.convert import from_langchain
from ctxmgr_langgraph.testing import ScriptedChatModel

SUBAGENTS = ["researcher", "writer"]
THREAD = "deep-1"


@tool
def read(path: str) -> str:
    """Read a file."""
    return file_text(path)


def checked(log: RunLog, model: ScriptedChatModel) -> Callable[[list[BaseMessage]], None]:
    def check(prompt: list[BaseMessage]) -> None:
        neutral = from_langchain([m if m.id else m.model_copy(update={"id": f"p{i}"})
                                  for i, m in enumerate(prompt)])
        schemas = [convert_to_openai_tool(t) for t in model.bound_tools]
        log.check(neutral, tool_tokens(log.counter, schemas))
    return check


def reads(who: str, ids: Iterator[int], n: int) -> Iterator[AIMessage]:
    for _ in range(n):
        k = next(ids)
        yield AIMessage(content="", id=f"{who}-{k}", tool_calls=[
            {"name": "read", "args": {"path": f"{who}/file_{k}.py"}, "id": f"{who}-read-{k}"}])


def main_script(tasks: int, per_task: int) -> Iterator[AIMessage | str]:
    ids = itertools.count()
    for t in range(tasks):
        yield from reads("main", ids, per_task)
        yield AIMessage(content="", id=f"main-task-{t}", tool_calls=[
            {"name": "task", "id": f"task-{t}",
             "args": {"description": f"task {t}", "subagent_type": SUBAGENTS[t % 2]}}])
    yield "All tasks are done."


def sub_script(name: str, per_task: int) -> Iterator[AIMessage | str]:
    ids = itertools.count()
    for t in itertools.count():
        yield from reads(name, ids, per_task)
        yield f"{name} result {t}: all {per_task} files read, nothing is missing."


def run_deep_agent(middleware: ContextMiddleware, *, tasks: int = 10, per_task: int = 10,
                   sub_steps: int = 18, window: int | None = None
                   ) -> tuple[RunLog, dict[str, Any], Any]:
    engine = middleware.sessions.engine
    log = RunLog(counter=engine.counter, budget=middleware.config.budget_tokens)
    engine.on_event = log.on_event
    profile = {"max_input_tokens": window} if window else None

    def model(script: Iterator[AIMessage | str]) -> ScriptedChatModel:
        m = ScriptedChatModel(messages=script, profile=profile)
        m.on_call = checked(log, m)
        return m

    subagents = [{"name": n, "description": f"The {n}.", "system_prompt": f"You are the {n}.",
                  "model": model(sub_script(n, sub_steps)), "tools": [read],
                  "middleware": [middleware]} for n in SUBAGENTS]
    store = InMemoryStore()
    agent = create_deep_agent(model(main_script(tasks, per_task)), [read],
                              subagents=subagents, middleware=[middleware],
                              checkpointer=InMemorySaver(), store=store)
    final = agent.invoke({"messages": [{"role": "user", "content": "Study the code base."}]},
                         {"configurable": {"thread_id": THREAD}, "recursion_limit": 100_000})
    return log, final, middleware.sessions.store_for(store)


def summarization_in_place(config: AutoContextConfig) -> ContextMiddleware:
    return ContextMiddleware(config, name="SummarizationMiddleware")


@pytest.mark.parametrize("place", ["replaces deepagents' summarization", "runs inside it"])
def test_a_300_call_deep_agent_at_8k_stays_in_budget_each_subagent_in_its_own_session(
        place: str) -> None:
    config = AutoContextConfig(max_tokens=WINDOW)
    middleware = (summarization_in_place(config) if place.startswith("replaces")
                  else ContextMiddleware(config))
    log, final, store = run_deep_agent(middleware)

    assert log.calls >= 300 and log.over_budget == 0 and log.pairing_violations == 0
    assert log.compressions >= 20
    parent = final["messages"]
    assert validate_pairing(from_langchain(parent)) == []
    engine = middleware.sessions.engine
    scopes = [engine.scope(THREAD), *(engine.scope(THREAD, n) for n in SUBAGENTS)]
    offloads, leaks = cross_reads(engine, store, scopes)
    assert offloads > 0 and leaks == 0
    # the parent holds each task's result (in its messages or its own offloads), and
    # nothing of a subagent's working context
    parent_blobs = [store.get(Namespace(engine.project, THREAD, "offload"), key) or b""
                    for key in store.keys(Namespace(engine.project, THREAD, "offload"))]
    seen = "\n".join([*(str(m.content) for m in parent),
                      *(b.decode("utf-8", "replace") for b in parent_blobs)])
    for t in range(10):
        assert f"{SUBAGENTS[t % 2]} result {t // 2}:" in seen
    assert not any(f"{n}/file_" in seen for n in SUBAGENTS)


def test_in_place_of_deepagents_summarization_no_summary_is_ever_asked_of_the_model() -> None:
    """With a model whose profile gives the 8k window, deepagents' own summarization would
    fire at 85% of it and ask the model for summaries; in its place, ctxmgr compresses
    with its own summarizer, and every model call is an agent's step."""
    config = AutoContextConfig(max_tokens=WINDOW)
    log, final, _ = run_deep_agent(summarization_in_place(config), tasks=4, window=WINDOW)
    assert log.over_budget == 0 and log.compressions > 0
    assert final["messages"][-1].content == "All tasks are done."
    assert "_summarization_event" not in final
