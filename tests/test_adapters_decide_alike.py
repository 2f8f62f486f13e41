"""One recorded history through both adapters, real frameworks on both sides, every feature
on, gives the same decisions, the same tool schemas and the same events: the session
engine in the core makes them all.

The LangGraph side is ``create_agent`` with ``ContextMiddleware``, the LlamaIndex side a
``ContextFunctionAgent`` with ``ContextMemory``; both replay the same recorded run with
their scripted model, the same config, tools of the same schemas and the same system
prompt. Every feature is on: calibration (each model reports its input tokens, at 1.3
times ctxmgr's count, as a model with another tokenizer would), ``context_reload`` and
``context_search``, memos and archiving (offered, so their schemas and the guidance are
sent). Counted with the approximate counter: the offload ids a stand-in names come from
the message ids, which each framework assigns its own way, and a BPE counts two
different hex ids differently; the approximate counter counts their length.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver

from ctxmgr import AutoContextConfig, CompressionEvent, InMemoryStore
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import ApproximateCounter
from ctxmgr_langgraph import CONTEXT_KEY, ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun as GraphRun
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory
from ctxmgr_llamaindex.testing import RecordedRun as IndexRun

COUNTER = ApproximateCounter()
USAGE_RATIO = 1.3
EVERY_FEATURE = AutoContextConfig(max_tokens=8000, message_archiving=True, memo=True,
                                  context_reload=True, calibrate=True)

_NOT_DECISIONS = frozenset({"offload_id", "replaced_ids", "duration_s"})
"""Event fields that name ids (each framework assigns its own) or time the run."""


@dataclass(frozen=True)
class Run:
    """What one adapter did with the recorded history."""

    events: list[dict[str, Any]]
    """Every compression event, ids and timings left out."""
    schemas: list[str]
    """ctxmgr's tools as the model is sent them (OpenAI JSON, byte for byte)."""
    calibration: dict[str, Any]
    """The session's calibration at the end of the run."""


def decisions(events: list[CompressionEvent]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        d = {k: v for k, v in e.to_dict().items() if k not in _NOT_DECISIONS}
        d["replaced"] = len(e.replaced_ids)
        out.append(d)
    return out


def through_langgraph(trajectory: Trajectory) -> Run:
    events: list[CompressionEvent] = []
    run = GraphRun.from_messages(trajectory.messages)
    middleware = ContextMiddleware(EVERY_FEATURE, counter=COUNTER, store=InMemoryStore(),
                                   on_event=events.append)
    model = run.model(usage_counter=COUNTER, usage_ratio=USAGE_RATIO)
    agent = create_agent(model, run.tools(), system_prompt=run.system_prompt,
                         middleware=[middleware], checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}, "recursion_limit": 1000}
    agent.invoke({"messages": run.inputs()}, thread)
    state = agent.get_state(thread).values.get(CONTEXT_KEY, {})
    return Run(events=decisions(events),
               schemas=[json.dumps(convert_to_openai_tool(t)) for t in middleware.tools],
               calibration=state.get("calibration", {}))


def through_llamaindex(trajectory: Trajectory) -> Run:
    events: list[CompressionEvent] = []
    run = IndexRun.from_messages(trajectory.messages)
    memory = ContextMemory.from_defaults(config=EVERY_FEATURE, counter=COUNTER,
                                         store=InMemoryStore(), on_event=events.append)
    agent = ContextFunctionAgent(tools=[*run.tools(), *memory.as_tools()],
                                 llm=run.llm(usage_counter=COUNTER, usage_ratio=USAGE_RATIO),
                                 system_prompt=run.system_prompt)

    async def main() -> None:
        await agent.run(user_msg=run.user_message(), memory=memory, max_iterations=1000)

    asyncio.run(main())
    return Run(events=decisions(events),
               schemas=[json.dumps(t.metadata.to_openai_tool()) for t in memory.as_tools()],
               calibration=memory.session_state.get("calibration", {}))


def differences(a: list[Any], b: list[Any]) -> list[str]:
    """Each position where the two lists differ, shown side by side."""
    out = [f"#{i}: {x!r} != {y!r}" for i, (x, y) in enumerate(zip(a, b, strict=False))
           if x != y]
    if len(a) != len(b):
        out.append(f"lengths {len(a)} != {len(b)}")
    return out


@pytest.mark.parametrize("part", ["django-11099", "pydicom-1256"])
def test_one_recorded_history_gets_the_same_decisions_through_either_adapter(
        swe_trajectories: list[Trajectory], part: str) -> None:
    trajectory = next(t for t in swe_trajectories if part in t.id)
    graph = through_langgraph(trajectory)
    index = through_llamaindex(trajectory)
    assert sum(e["status"] == "applied" for e in graph.events) > 5  # compressed, repeatedly
    assert abs(graph.calibration["ratio"] - USAGE_RATIO) < 0.01  # learned from the reports
    assert differences(graph.events, index.events) == []
    assert differences(graph.schemas, index.schemas) == []
    assert graph.calibration == index.calibration


def test_both_frameworks_send_ctxmgr_s_tools_as_the_core_declares_them() -> None:
    """Names, descriptions and every JSON-schema keyword (maxLength, pattern, minimum,
    maximum, additionalProperties) reach the model unchanged in either framework."""
    from ctxmgr.session import SessionEngine

    specs = SessionEngine(EVERY_FEATURE.evolve(project="p")).tool_specs
    declared = [json.dumps(spec.to_openai()) for spec in specs]
    middleware = ContextMiddleware(EVERY_FEATURE, store=InMemoryStore())
    memory = ContextMemory.from_defaults(config=EVERY_FEATURE, store=InMemoryStore())
    assert [json.dumps(convert_to_openai_tool(t)) for t in middleware.tools] == declared
    assert [json.dumps(t.metadata.to_openai_tool()) for t in memory.as_tools()] == declared
    memo = json.loads(declared[-1])["function"]["parameters"]["properties"]
    assert memo["key"]["maxLength"] == 100 and "pattern" in memo["key"]


def test_both_summarizers_ask_their_model_alike() -> None:
    """An empty instruction sends no system message and an empty range reads "(no
    messages)" in both (LlamaIndex sent an empty system message and an empty transcript)."""
    from llama_index.core.base.llms.types import ChatMessage, ChatResponse
    from llama_index.core.llms import MockLLM

    from ctxmgr_langgraph.summarizer import LangChainSummarizer
    from ctxmgr_langgraph.testing import ScriptedChatModel
    from ctxmgr_llamaindex.summarizer import LlamaIndexSummarizer

    graph = ScriptedChatModel(messages=iter(["ok", "ok"]))
    asked: list[list[ChatMessage]] = []

    class Recording(MockLLM):
        def chat(self, messages: Any, **kwargs: Any) -> ChatResponse:
            asked.append(list(messages))
            return ChatResponse(message=ChatMessage(role="assistant", content="ok"))

    for instruction in ("  ", "Keep the paths."):
        LangChainSummarizer(graph).summarize([], instruction)
        LlamaIndexSummarizer(Recording()).summarize([], instruction)
    sent_graph = [[(m.type, m.content) for m in p] for p in graph.received]
    sent_index = [[({"user": "human"}.get(m.role.value, m.role.value), m.content) for m in p]
                  for p in asked]
    assert sent_graph == sent_index == [[("human", "(no messages)")],
                                        [("system", "Keep the paths."),
                                         ("human", "(no messages)")]]
