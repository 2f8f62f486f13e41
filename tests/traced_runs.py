"""A real agent's model calls traced the way LangSmith and OpenTelemetry users trace them.

:class:`RecordingClient` stands in for ``langsmith.Client`` under a real
``LangChainTracer``: it keeps what the tracer creates and patches, and
:meth:`RecordingClient.export` writes each run as ``langsmith.schemas.Run`` JSON, one per
line, as runs listed with the SDK are saved. :class:`GenAISpans` is a LangChain callback
that records each chat-model call as an OpenTelemetry GenAI inference span with the real
SDK, in the v1.37+ attribute form or the older per-message event form;
:func:`write_otlp_json` writes the finished spans as the OTLP/JSON file exporter does
(the OTLP protobuf request, rendered as JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

from google.protobuf.json_format import MessageToJson
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import LLMResult
from langsmith import schemas
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Span, Tracer


class RecordingClient:
    """The two calls a ``RunTree`` makes on its client, kept instead of sent."""

    otel_exporter = None
    """LangSmith's own OpenTelemetry export, off (``langsmith.run_helpers`` asks)."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}

    def create_run(self, **run: Any) -> None:
        self.runs[str(run["id"])] = dict(run)

    def update_run(self, run_id: Any, **changes: Any) -> None:
        self.runs[str(run_id)].update(
            {k: v for k, v in changes.items() if v is not None and k != "attachments"})

    def flush(self) -> None:
        return None

    def export(self, path: Path) -> Path:
        path.write_text("".join(schemas.Run(**run).model_dump_json() + "\n"
                                for run in self.runs.values()), encoding="utf-8")
        return path


def _parts(m: BaseMessage) -> list[dict[str, Any]]:
    text = m.content if isinstance(m.content, str) else json.dumps(m.content)
    if isinstance(m, ToolMessage):
        return [{"type": "tool_call_response", "id": m.tool_call_id, "response": text}]
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    if isinstance(m, AIMessage):
        parts += [{"type": "tool_call", "id": c["id"], "name": c["name"],
                   "arguments": c["args"]} for c in m.tool_calls]
    return parts


_ROLE = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _body(m: BaseMessage) -> dict[str, Any]:
    """The body of a deprecated per-message event (semantic conventions v1.28-v1.36)."""
    body: dict[str, Any] = {"content": m.content}
    if isinstance(m, AIMessage) and m.tool_calls:
        body["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
            "name": c["name"], "arguments": c["args"]}} for c in m.tool_calls]
    if isinstance(m, ToolMessage):
        body["id"] = m.tool_call_id
    return body


class GenAISpans(BaseCallbackHandler):
    """One GenAI inference span per chat-model call (``events``: the deprecated event
    form, each body in ``gen_ai.event.content``, as Azure's and Semantic Kernel's
    instrumentations write it)."""

    run_inline = True

    def __init__(self, tracer: Tracer, *, events: bool = False,
                 conversation: str | None = None) -> None:
        self.tracer = tracer
        self.events = events
        self.conversation = conversation
        self.open: dict[UUID, Span] = {}

    def on_chat_model_start(self, serialized: Any, messages: list[list[BaseMessage]], *,
                            run_id: UUID, **kwargs: Any) -> None:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat",
                                      "gen_ai.provider.name": "scripted",
                                      "gen_ai.request.model": "recorded"}
        if self.conversation:
            attributes["gen_ai.conversation.id"] = self.conversation
        span = self.tracer.start_span("chat recorded", attributes=attributes)
        prompt = messages[0]
        if self.events:
            for m in prompt:
                span.add_event(f"gen_ai.{_ROLE[m.type]}.message",
                               {"gen_ai.event.content": json.dumps(_body(m))})
        else:
            system = [p for m in prompt if isinstance(m, SystemMessage) for p in _parts(m)]
            if system:
                span.set_attribute("gen_ai.system_instructions", json.dumps(system))
            span.set_attribute("gen_ai.input.messages", json.dumps(
                [{"role": _ROLE[m.type], "parts": _parts(m)} for m in prompt
                 if not isinstance(m, SystemMessage)]))
        self.open[run_id] = span

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        span = self.open.pop(run_id)
        message = response.generations[0][0].message  # type: ignore[attr-defined]
        reason = "tool_call" if message.tool_calls else "stop"
        if self.events:
            span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
                {"index": 0, "finish_reason": reason, "message": _body(message)})})
        else:
            span.set_attribute("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "parts": _parts(message), "finish_reason": reason}]))
        span.end()


def tracer_and_exporter() -> tuple[Tracer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("ctxmgr.tests"), exporter


def write_otlp_json(spans: tuple[ReadableSpan, ...], path: Path) -> Path:
    """The spans as one ``ExportTraceServiceRequest`` in OTLP/JSON, one line."""
    path.write_text(MessageToJson(encode_spans(spans), indent=None) + "\n", encoding="utf-8")
    return path
