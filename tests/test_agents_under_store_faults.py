"""Real agents finish under transient store faults, losing nothing and naming no dangling id.

One put in three fails (every third, and seeded at random), raising what a shared
backend raises when it blips: ``psycopg.OperationalError``, ``ConnectionError``,
``TimeoutError``. The agents are real (``create_agent`` with ``ContextMiddleware``; a
LlamaIndex ``ContextFunctionAgent``), replaying a recorded SWE run in a window small
enough that almost every call compresses. On every model call the prompt is checked
(pairing, budget, everything that left it reloadable byte for byte), and at the end
every ``CONTEXT_OFFLOAD`` id of the last prompt reloads.

Before the store calls were retried and a failed step let the pass go on, every one of
these runs died with ``ContextOverflowError`` blaming pinned messages.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from faults import FaultyStore
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_agents import RECURSION, CallChecker, reachable_originals
from llamaindex_agents import PromptChecker

from ctxmgr import AutoContextConfig, InMemoryStore, StoreRetry, Tuning, default_counter
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory
from ctxmgr_llamaindex.testing import FINAL_ANSWER, ScriptedLLM
from ctxmgr_llamaindex.testing import RecordedRun as LlamaRecordedRun

WINDOW = 4500
"""Small enough that almost every call compresses. (At 4,000 the create_agent runs overflow
once context_search's schema, 175 tokens of every request, is sent beside context_reload's:
with a third of the puts failing, the steps left cannot free those tokens.)"""
RESERVE = 500
RETRY = StoreRetry(backoff_s=0.001)  # three tries as by default, without the pauses

ERRORS: dict[str, Callable[[str], BaseException]] = {
    "psycopg": lambda key: psycopg.OperationalError("server closed the connection"),
    "ConnectionError": lambda key: ConnectionError("connection reset by peer"),
    "TimeoutError": lambda key: TimeoutError("timed out"),
}


def every_third(key: str, i: int) -> bool:
    return i % 3 == 2


def one_in_three(seed: int) -> Callable[[str, int], bool]:
    rng = random.Random(seed)
    return lambda key, i: rng.random() < 1 / 3


FAULTS: dict[str, Callable[[], Callable[[str, int], bool]]] = {
    "every_third": lambda: every_third,
    "random_seed_0": lambda: one_in_three(0),
    "random_seed_1": lambda: one_in_three(1),
    "random_seed_2": lambda: one_in_three(2),
}


def swe_run(trajectories: list[Trajectory]) -> Trajectory:
    return next(t for t in trajectories if "django-11099" in t.id)


CASES = [*(("every_third", error) for error in ERRORS),
         *((fault, "ConnectionError") for fault in FAULTS if fault != "every_third")]


@pytest.mark.parametrize(("fault", "error"), CASES)
def test_create_agent_finishes_under_one_in_three_put_failures_and_loses_nothing(
        fault: str, error: str, swe_trajectories: list[Trajectory]) -> None:
    run = RecordedRun.from_messages(swe_run(swe_trajectories).messages)
    store = FaultyStore(fail_put=FAULTS[fault](), error=ERRORS[error])
    counter = default_counter()
    checker = CallChecker(counter=counter, max_tokens=WINDOW, reserve=RESERVE)
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=WINDOW,
                                                     reserve_output_tokens=RESERVE,
                                                     tuning=Tuning(store_retry=RETRY)), store=store,
                                   on_event=checker.on_event)
    model = run.model()
    model.on_call, checker.model = checker, model
    checker.reload = middleware.sessions.processor("t1").reload
    graph = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[middleware], checkpointer=InMemorySaver())

    graph.invoke({"messages": run.inputs(0)},
                 {"configurable": {"thread_id": "t1"}, **RECURSION})

    assert checker.calls == len(run.answers) + 1  # every recorded answer, then the end
    assert len(checker.applied()) >= 10 and checker.recovered > 0
    assert reachable_originals(checker.last, checker.reload)  # no dangling id


@pytest.mark.parametrize("fault", ["every_third", "random_seed_0"])
def test_a_llamaindex_agent_finishes_under_one_in_three_put_failures_and_loses_nothing(
        fault: str, swe_trajectories: list[Trajectory]) -> None:
    trajectory = swe_run(swe_trajectories)
    rec = LlamaRecordedRun.from_messages(trajectory.messages)
    store = FaultyStore(InMemoryStore(), fail_put=FAULTS[fault](),
                        error=ERRORS["ConnectionError"])
    memory = ContextMemory.from_defaults(max_tokens=WINDOW, store=store,
                                         session_id=f"faults-{fault}")
    checker = PromptChecker(memory, trajectory)
    llm = ScriptedLLM(rec.answer_messages(0), on_call=checker)
    checker.llm = llm
    agent = ContextFunctionAgent(tools=[*rec.tools(), *memory.as_tools()], llm=llm,
                                 system_prompt=rec.system_prompt)

    async def main() -> Any:
        return await agent.run(user_msg=rec.user_message(0), memory=memory,
                               max_iterations=1000)

    result = asyncio.run(main())

    assert str(result) == FINAL_ANSWER
    assert checker.compressed_calls > 10
    ids = find_offload_ids("\n".join(m.text for m in memory.history()))
    assert ids and all(memory.reload(i) for i in ids)  # no dangling id
