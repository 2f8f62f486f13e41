"""One recorded history through both adapters, real frameworks on both sides, gives the
same compression decisions: the session engine in the core makes them all.

The LangGraph side is ``create_agent`` with ``ContextMiddleware``, the LlamaIndex side a
``ContextFunctionAgent`` with ``ContextMemory``; both replay the same recorded run with
their scripted model, the same config, tools of the same schemas and the same system
prompt. Counted with the approximate counter: the offload ids a stand-in names come
from the message ids, which each framework assigns its own way, and a BPE counts two
different hex ids differently; the approximate counter counts their length.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

from ctxmgr import ApproximateCounter, AutoContextConfig, CompressionEvent, InMemoryStore
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun as GraphRun
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory
from ctxmgr_llamaindex.testing import RecordedRun as IndexRun

COUNTER = ApproximateCounter()


def decisions(events: list[CompressionEvent]) -> list[tuple[Any, ...]]:
    return [(e.strategy, e.name, e.status, len(e.replaced_ids), e.tokens_before,
             e.tokens_after) for e in events]


def through_langgraph(trajectory: Trajectory, config: AutoContextConfig) -> list[Any]:
    events: list[CompressionEvent] = []
    run = GraphRun.from_messages(trajectory.messages)
    middleware = ContextMiddleware(config, counter=COUNTER, context_reload=False,
                                   calibrate=False, store=InMemoryStore(),
                                   on_event=events.append)
    agent = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                         middleware=[middleware], checkpointer=InMemorySaver())
    agent.invoke({"messages": run.inputs()},
                 {"configurable": {"thread_id": "t"}, "recursion_limit": 1000})
    return decisions(events)


def through_llamaindex(trajectory: Trajectory, config: AutoContextConfig) -> list[Any]:
    events: list[CompressionEvent] = []
    run = IndexRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(config=config, counter=COUNTER, calibrate=False,
                                         store=InMemoryStore(), on_event=events.append)
    agent = ContextFunctionAgent(tools=run.tools(), llm=run.llm(),
                                 system_prompt=run.system_prompt)

    async def main() -> None:
        await agent.run(user_msg=run.user_message(), memory=memory, max_iterations=1000)

    asyncio.run(main())
    return decisions(events)


@pytest.mark.parametrize("part", ["django-11099", "pydicom-1256"])
def test_one_recorded_history_gets_the_same_decisions_through_either_adapter(
        swe_trajectories: list[Trajectory], part: str) -> None:
    trajectory = next(t for t in swe_trajectories if part in t.id)
    config = AutoContextConfig(max_tokens=8000)
    graph = through_langgraph(trajectory, config)
    index = through_llamaindex(trajectory, config)
    assert len(graph) > 5  # it compressed, again and again
    assert index == graph
