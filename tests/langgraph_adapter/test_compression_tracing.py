"""Compressions in the user's tracing: OpenTelemetry spans and LangChain custom events.

A real agent (only the model is scripted) reads ten large files in a 4,000-token window,
so it compresses several times. Every ``CompressionEvent`` its ``on_event`` sees must show
up once, with the same figures, as a ``ctxmgr.compress`` span under the span that was
current, and as a ``ctxmgr.compression`` custom event to the callback handler passed in
the run's config, attached to the run that prepared the model call.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from uuid import UUID

import pytest
from doc_pages import blocks_with, run_block
from langchain_core.callbacks import BaseCallbackHandler
from langgraph_agents import build
from opentelemetry import trace
from otel_spans import compression_spans, recording_spans

from ctxmgr import AutoContextConfig, CompressionEvent, from_openai
from ctxmgr.tokens import ApproximateCounter
from ctxmgr_langgraph import COMPRESSION_EVENT
from ctxmgr_langgraph.testing import RecordedRun

CONFIG = AutoContextConfig(max_tokens=4000)
LIMITS = {"recursion_limit": 200}
PREPARING_RUN = {"create_agent": "model", "react_hook": "ctxmgr_pre_model_hook",
                 "state_graph": "ctxmgr_context"}
"""The run each integration prepares the model call in: custom events are attached to it."""


def reading_run(files: int = 10) -> RecordedRun:
    """A coding agent that reads ``files`` files of about 700 tokens each, then answers."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coder."},
                                      {"role": "user", "content": "fix the bug"}]
    for i in range(files):
        path = f"src/f{i}.py"
        messages.append({"role": "assistant", "content": f"reading {path}", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "\n".join(
            f"{path} line {j}: " + "x" * 60 for j in range(40))})
    messages.append({"role": "assistant", "content": "fixed"})
    return RecordedRun.from_messages(from_openai(messages))


class Recorder(BaseCallbackHandler):
    """A plain LangChain callback handler: the runs it saw start and the custom events."""

    def __init__(self, *, raise_error: bool = False) -> None:
        self.run_names: dict[UUID, str | None] = {}
        self.custom: list[tuple[str, dict[str, Any], UUID]] = []
        self.raise_error = raise_error

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                       **kwargs: Any) -> None:
        self.run_names[run_id] = kwargs.get("name")

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.custom.append((name, data, run_id))
        if self.raise_error:
            raise RuntimeError("this handler is broken")


def run_agent(style: str, *, mode: str = "invoke", handler: Recorder | None = None
              ) -> list[CompressionEvent]:
    """Run the reading agent once; the events its ``on_event`` saw (several, all applied)."""
    seen: list[CompressionEvent] = []
    run = reading_run()
    agent = build(style, run, config=CONFIG, counter=ApproximateCounter(),
                  on_event=seen.append)
    config: dict[str, Any] = {**LIMITS, "callbacks": [handler] if handler else []}
    if mode == "invoke":
        result = agent.graph.invoke(agent.inputs(run), config)
    else:
        result = asyncio.run(agent.graph.ainvoke(agent.inputs(run), config))
    assert result["messages"][-1].content == "fixed"
    assert len(seen) >= 3 and all(e.status == "applied" for e in seen)
    return seen


def test_each_compression_of_a_create_agent_run_is_one_span_with_the_event_s_figures(
) -> None:
    with recording_spans() as exporter:
        with trace.get_tracer("test").start_as_current_span("agent run") as parent:
            seen = run_agent("create_agent")
        spans = compression_spans(exporter)
    assert len(spans) == len(seen)
    for span, event in zip(spans, seen, strict=True):
        assert span.parent is not None
        assert span.parent.span_id == parent.get_span_context().span_id
        assert span.attributes is not None
        assert dict(span.attributes) == {
            "ctxmgr.compression.strategy": event.strategy,
            "ctxmgr.compression.strategy_name": event.name,
            "ctxmgr.compression.status": "applied",
            "ctxmgr.compression.tokens_before": event.tokens_before,
            "ctxmgr.compression.tokens_after": event.tokens_after,
            "ctxmgr.compression.messages_replaced": len(event.replaced_ids),
            "ctxmgr.compression.offload_id": event.offload_id,
            "ctxmgr.compression.cache_invalidated_tokens": event.cache_invalidated_tokens,
            "ctxmgr.summarizer.input_tokens": event.summarizer_input_tokens,
            "ctxmgr.summarizer.output_tokens": event.summarizer_output_tokens,
            "ctxmgr.session": "__no-thread",  # no thread id: no gen_ai.conversation.id
        }
        assert span.start_time is not None and span.end_time is not None
        assert span.start_time <= span.end_time
        assert span.status.is_ok


@pytest.mark.parametrize(("style", "mode"), [
    ("create_agent", "invoke"), ("create_agent", "ainvoke"), ("react_hook", "invoke"),
    ("state_graph", "ainvoke")])
def test_a_callback_handler_sees_each_compression_as_a_custom_event_of_the_preparing_run(
        style: str, mode: str) -> None:
    handler = Recorder()
    seen = run_agent(style, mode=mode, handler=handler)
    assert [name for name, _, _ in handler.custom] == [COMPRESSION_EVENT] * len(seen)
    assert [data for _, data, _ in handler.custom] == [
        {**e.to_dict(), "session": "__no-thread"} for e in seen]
    assert {handler.run_names.get(run) for _, _, run in handler.custom} == {
        PREPARING_RUN[style]}


def test_a_handler_that_raises_on_the_event_does_not_stop_the_agent(
        caplog: pytest.LogCaptureFixture) -> None:
    handler = Recorder(raise_error=True)
    with caplog.at_level(logging.WARNING, logger="ctxmgr_langgraph.tracing"):
        seen = run_agent("create_agent", handler=handler)
    assert len(handler.custom) == len(seen)
    assert "this handler is broken" in caplog.text


def test_a_thread_id_is_the_spans_conversation_id() -> None:
    run = reading_run()
    agent = build("create_agent", run, config=CONFIG, counter=ApproximateCounter())
    with recording_spans() as exporter:
        agent.graph.invoke(agent.inputs(run),
                           {**LIMITS, "configurable": {"thread_id": "ticket-42"}})
        spans = compression_spans(exporter)
    assert spans and all(s.attributes is not None
                         and s.attributes["gen_ai.conversation.id"] == "ticket-42"
                         for s in spans)


def test_the_guides_handler_prints_one_line_per_compression(
        capsys: pytest.CaptureFixture[str]) -> None:
    [block] = blocks_with("PrintCompressions(")  # the tracing guide's
    seen: list[CompressionEvent] = []
    run = reading_run()
    agent = build("create_agent", run, config=CONFIG, counter=ApproximateCounter(),
                  on_event=seen.append)
    run_block(block, agent=agent.graph, run=run)  # with the agent it refers to
    lines = capsys.readouterr().out.splitlines()
    assert seen and lines == [
        f"{e.name}: {e.tokens_before} -> {e.tokens_after} tokens, "
        f"{e.cache_invalidated_tokens} cached tokens invalidated" for e in seen]
