"""An async run with a hung summarizer is delayed once per cool-down period, not per call.

A summarizer whose ``asummarize`` never answers is cancelled at ``summary_timeout_s``;
before the cool-down, every later summary waited the full timeout again (LangGraph
``ainvoke`` 12 times, ``ContextFunctionAgent`` 98 times on the same kind of run). With
it, the first timeout starts ``summary_cooldown_s``, shared by every session of the
engine, and until it has passed every summary is skipped at once, saying why.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_agents import RECURSION

from ctxmgr import AutoContextConfig, CompressionEvent, InMemoryStore, Message, Tuning
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory
from ctxmgr_llamaindex.testing import FINAL_ANSWER, ScriptedLLM
from ctxmgr_llamaindex.testing import RecordedRun as LlamaRecordedRun

TIMEOUT = 0.2
CONFIG = AutoContextConfig(max_tokens=6000, summary_timeout_s=TIMEOUT,
                           tuning=Tuning(cached_token_price=None, history_notes_first=False))
"""Summaries before the history notes (by default a run folds its history into notes
first and needs no summary): the hung model is asked, and the agent waits for it once."""


class HungModel:
    """An async summarizer that never answers (a model endpoint that stopped responding)."""

    def __init__(self) -> None:
        self.calls = 0

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        self.calls += 1
        await asyncio.sleep(3600)
        return "never"


def timeouts(events: list[CompressionEvent]) -> int:
    return sum(e.status == "skipped" and (e.reason or "").startswith("summarizer timed out after")
               for e in events)


def cooled(events: list[CompressionEvent]) -> int:
    return sum(e.status == "skipped" and "timed out recently" in (e.reason or "")
               for e in events)


def swe_run(trajectories: list[Trajectory]) -> Trajectory:
    return next(t for t in trajectories if "django-11099" in t.id)


def test_create_agent_ainvoke_waits_for_a_hung_summarizer_once(
        swe_trajectories: list[Trajectory]) -> None:
    run = RecordedRun.from_messages(swe_run(swe_trajectories).messages)
    events: list[CompressionEvent] = []
    summarizer = HungModel()
    middleware = ContextMiddleware(CONFIG, summarizer=summarizer, store=InMemoryStore(),
                                   on_event=events.append)

    async def both_threads() -> None:  # two threads of one engine share the cool-down
        for thread in ("t1", "t2"):
            graph = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                                 middleware=[middleware], checkpointer=InMemorySaver())
            await graph.ainvoke({"messages": run.inputs(0)},
                                {"configurable": {"thread_id": thread}, **RECURSION})

    started = time.monotonic()
    asyncio.run(both_threads())
    elapsed = time.monotonic() - started

    assert summarizer.calls == timeouts(events) == 1
    assert cooled(events) >= 5  # later summaries were wanted, and skipped at once
    assert any(e.status == "applied" for e in events)  # cheaper strategies still apply
    assert elapsed < 60


def test_context_function_agent_waits_for_a_hung_summarizer_once(
        swe_trajectories: list[Trajectory]) -> None:
    trajectory = swe_run(swe_trajectories)
    rec = LlamaRecordedRun.from_messages(trajectory.messages)
    events: list[CompressionEvent] = []
    summarizer = HungModel()
    memory = ContextMemory.from_defaults(config=CONFIG, store=InMemoryStore(),
                                         summarizer=summarizer, on_event=events.append,
                                         session_id="hung-summarizer")
    agent = ContextFunctionAgent(tools=rec.tools(), llm=ScriptedLLM(rec.answer_messages(0)),
                                 system_prompt=rec.system_prompt)

    async def main() -> Any:
        return await agent.run(user_msg=rec.user_message(0), memory=memory,
                               max_iterations=1000)

    result = asyncio.run(main())

    assert str(result) == FINAL_ANSWER
    assert summarizer.calls == timeouts(events) == 1
    assert cooled(events) >= 5
