"""Compressions as OpenTelemetry spans, in the tracing a user already runs.

Every compression step, each :class:`~ctxmgr.CompressionEvent` (applied or skipped),
is one span named ``ctxmgr.compress``, a child of the span that is current while the
model call is prepared (the agent's run, the framework's model-call node). It is made
in one place, where the pipeline emits the event, so every integration (the LangGraph
middleware, hook and node, the LlamaIndex memory and agents, ``AutoContextMemory``,
``ContextProcessor``, the command line) reports the same spans.

Why a span per step, and not an event on the model call's span:

* ctxmgr runs *before* the model call: the span an instrumentation makes for that call
  is usually not started yet, and an event added to a span that is not there (or to a
  non-recording one) is dropped without a word;
* a step takes time (a summarizer call can take seconds): a span puts it on the trace's
  timeline, an event has no duration;
* every backend lists spans and lets one query their attributes; several keep span
  events only inside a span's detail view, or drop them.

And a span per step rather than one per pass with an event per step: each span is then
exactly one ``CompressionEvent`` with flat attributes, so "tokens saved per strategy" is
a group-by in the backend. A skipped step (a summarizer that failed or timed out) has
the status ``ERROR`` with its reason: that is what one wants to be alerted on.

Names. Of the OpenTelemetry GenAI semantic conventions (checked against release v1.44), only
``gen_ai.conversation.id`` names something ctxmgr reports (the session, when its label
is the thread id itself); the rest is ``ctxmgr.*`` (see :data:`ATTRIBUTES`). Two GenAI
names are deliberately not used: ``gen_ai.operation.name`` (its well-known values are
model, agent and tool operations; a GenAI-aware backend would take the span for a model
call) and ``gen_ai.usage.*`` for the summarizer's tokens (a summarizer's own model call,
when traced, reports them already, and a backend that prices usage would count them
twice).

Costs nothing without OpenTelemetry: the API's import is tried once, at the first
compression (never at ``import ctxmgr``), and when it failed every later step returns
at once. With the API and no SDK configured the spans are non-recording, and no
attribute is built. An exporter or processor that raises is logged and compression goes
on (:func:`record_compression` never raises).
"""

from __future__ import annotations

import functools
import logging
import time
from typing import TYPE_CHECKING, Final

from ctxmgr._version import __version__
from ctxmgr.autocontext.events import CompressionEvent

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer
    from opentelemetry.util.types import AttributeValue

__all__ = ["ATTRIBUTES", "SPAN_NAME", "record_compression", "span_attributes"]

logger = logging.getLogger("ctxmgr.autocontext")

SPAN_NAME: Final = "ctxmgr.compress"
"""The name of every compression span (low-cardinality: the strategy is an attribute)."""

ATTRIBUTES: Final = {
    "ctxmgr.compression.strategy": "the strategy's number (1-6, then the last resorts 7-9)",
    "ctxmgr.compression.strategy_name": "the strategy's name, e.g. tool_runs",
    "ctxmgr.compression.status": "applied or skipped",
    "ctxmgr.compression.tokens_before": "prompt tokens before the step",
    "ctxmgr.compression.tokens_after": "prompt tokens after it",
    "ctxmgr.compression.messages_replaced": "how many messages the step replaced",
    "ctxmgr.compression.offload_id": "the id that reloads them (context_reload), if any",
    "ctxmgr.compression.cache_invalidated_tokens": (
        "prompt tokens of the cached prefix the step cut off (an upper bound)"),
    "ctxmgr.compression.reason": "why a step was skipped",
    "ctxmgr.summarizer.input_tokens": "tokens the step sent its summarizer",
    "ctxmgr.summarizer.output_tokens": "tokens of the summary",
    "ctxmgr.session": "the session's store label",
    "gen_ai.conversation.id": "the thread or session id (when it is its own label)",
}
"""Every attribute a compression span may carry, with its meaning."""

_ESCAPED_LABEL = "__"  # a session label that is not the thread id itself starts so


def span_attributes(event: CompressionEvent, session: str | None = None
                    ) -> dict[str, AttributeValue]:
    """The attributes of ``event``'s span (see :data:`ATTRIBUTES`); ``None`` is left out."""
    attributes: dict[str, AttributeValue] = {
        "ctxmgr.compression.strategy": event.strategy,
        "ctxmgr.compression.strategy_name": event.name,
        "ctxmgr.compression.status": event.status,
        "ctxmgr.compression.tokens_before": event.tokens_before,
        "ctxmgr.compression.tokens_after": event.tokens_after,
        "ctxmgr.compression.messages_replaced": len(event.replaced_ids),
        "ctxmgr.compression.cache_invalidated_tokens": event.cache_invalidated_tokens,
        "ctxmgr.summarizer.input_tokens": event.summarizer_input_tokens,
        "ctxmgr.summarizer.output_tokens": event.summarizer_output_tokens,
    }
    if event.offload_id is not None:
        attributes["ctxmgr.compression.offload_id"] = event.offload_id
    if event.reason is not None:
        attributes["ctxmgr.compression.reason"] = event.reason
    if session is not None:
        attributes["ctxmgr.session"] = session
        if not session.startswith(_ESCAPED_LABEL):
            attributes["gen_ai.conversation.id"] = session
    return attributes


@functools.cache
def _tracer() -> Tracer | None:
    """ctxmgr's tracer, or ``None`` without OpenTelemetry (the import is tried once).

    A tracer got before the application sets its provider follows that provider once it
    is set (the API's proxy), so caching it is safe."""
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("ctxmgr", __version__)


def record_compression(event: CompressionEvent, *, session: str | None = None) -> None:
    """Record ``event`` as a ``ctxmgr.compress`` span under the current span, ending now
    and starting ``event.duration_s`` earlier. Never raises."""
    tracer = _tracer()
    if tracer is None:
        return
    try:
        end = time.time_ns()
        span = tracer.start_span(SPAN_NAME, start_time=end - int(event.duration_s * 1e9))
        try:
            if span.is_recording():
                span.set_attributes(span_attributes(event, session))
                if event.status == "skipped":
                    from opentelemetry.trace import Status, StatusCode

                    span.set_status(Status(StatusCode.ERROR, event.reason))
        finally:
            span.end(end_time=end)
    except Exception as exc:  # noqa: BLE001 - tracing's failure is not compression's
        logger.warning("recording a compression span raised %s: %s; compression goes on",
                       type(exc).__name__, exc, exc_info=True)
